"""What to scan: folders (recursive), globs, list files (``@list.txt``) and plain paths.

Each input becomes an absolute path string, which is also its key in the
results file (resume dedupes by it). Order is stable (sorted within a folder or
glob, in argument order otherwise) and duplicates are dropped.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()); (d / "sub").mkdir()
>>> for name in ("b.png", "sub/a.JPG", "notes.txt"): _ = (d / name).write_bytes(b"x")
>>> [pathlib.Path(p).name for p in expand_inputs([str(d)]).paths]
['b.png', 'a.JPG']
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from pathlib import Path

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".gif", ".bmp", ".tif", ".tiff", ".webp", ".pdf"}


@dataclass
class Inputs:
    paths: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # arguments that matched nothing (recorded as errors)


def _walk(folder: Path) -> list[str]:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if Path(name).suffix.lower() in IMAGE_SUFFIXES:
                found.append(os.path.abspath(os.path.join(root, name)))
    return found


def _list_file(path: Path) -> list[str]:
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            p = Path(line)
            entries.append(str(p if p.is_absolute() else path.parent / p))
    return entries


def expand_inputs(args: list[str]) -> Inputs:
    out = Inputs()
    seen: set[str] = set()

    def add(p: str) -> None:
        if p not in seen:
            seen.add(p)
            out.paths.append(p)

    pending = list(args)
    while pending:
        arg = pending.pop(0)
        if arg.startswith("@"):
            list_path = Path(arg[1:])
            try:
                pending[0:0] = _list_file(list_path)
            except (OSError, UnicodeDecodeError):
                out.missing.append(arg)
            continue
        path = Path(arg)
        if path.is_dir():
            for p in _walk(path):
                add(p)
        elif path.exists() or path.is_symlink():
            add(os.path.abspath(arg))  # an explicit file is scanned whatever its name says
        elif glob.has_magic(arg):
            matches = sorted(glob.glob(arg, recursive=True))
            files = [m for m in matches if not Path(m).is_dir()]
            if not files:
                out.missing.append(arg)
            for m in files:
                add(os.path.abspath(m))
        else:
            out.missing.append(arg)
    return out
