"""The one way a bench script rewrites its own section of docs/benchmarks.md (between its markers)."""

from __future__ import annotations

import platform
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def write_section(markdown: str, begin: str, end: str, path: Path = BENCHMARKS) -> None:
    """Replace what stands between ``begin`` and ``end`` with ``markdown``; append the section when absent."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    block = f"{begin}\n{markdown.rstrip()}\n{end}"
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def cpu_name() -> str:
    """The CPU's model name as Linux reports it, for the machine a table names (hosts differ in speed)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
