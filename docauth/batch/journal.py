"""The results file: JSON lines, each appended whole, flushed and fsynced before the next.

A line is written with one ``write`` on an ``O_APPEND`` descriptor and then
``fsync``; a run killed at any moment leaves complete lines, plus at most one
incomplete last line (no newline). On resume that fragment is cut off and its
input is done again; every complete line's input is skipped. So the file ends
with every input exactly once.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "r.jsonl")
>>> with ResultJournal(path) as j:
...     j.append({"path": "/a", "decision": "accept"})
>>> with open(path, "a") as f: _ = f.write('{"path": "/b", "deci')   # a killed write
>>> j = ResultJournal(path, resume=True); sorted(j.done), j.discarded_bytes > 0
(['/a'], True)
>>> j.close()
"""

from __future__ import annotations

import json
import os

from docauth.errors import InputError


class ResultJournal:
    def __init__(self, path: str | os.PathLike, *, resume: bool = False, key: str = "path"):
        self.path = os.fspath(path)
        self.key = key
        self.done: set[str] = set()
        self.discarded_bytes = 0
        self.duplicates = 0
        exists = os.path.exists(self.path) and os.path.getsize(self.path) > 0
        if exists and not resume:
            raise InputError(f"{self.path} exists; pass --resume to continue it, or choose another --out",
                             code="output_exists")
        if exists:
            self._recover()
        parent = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(parent, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)

    def _recover(self) -> None:
        with open(self.path, "rb") as f:
            data = f.read()
        end = data.rfind(b"\n") + 1  # everything after the last newline is a torn write
        if end < len(data):
            self.discarded_bytes = len(data) - end
            with open(self.path, "r+b") as f:
                f.truncate(end)
                f.flush()
                os.fsync(f.fileno())
        for raw in data[:end].splitlines():
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except json.JSONDecodeError:
                continue  # cannot happen with whole-line writes; such a line's input is redone
            k = record.get(self.key) if isinstance(record, dict) else None
            if isinstance(k, str):
                if k in self.done:
                    self.duplicates += 1
                self.done.add(k)

    def append(self, record: dict) -> None:
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n").encode()
        view = memoryview(line)
        while view:  # a regular file takes it in one write; loop only for robustness
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)
        k = record.get(self.key)
        if isinstance(k, str):
            self.done.add(k)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
