"""Progress of long commands on the terminal: count, rate and time left in days and hours (rich).

Drawn on stderr, and only when stderr is a terminal: a run piped into a file
or started by cron writes its results and its final summary, nothing else.
Messages given to :meth:`Progress.log` are printed above the bar (or as plain
lines on stderr when there is no bar).

    with Progress(total=len(paths), description="scan", unit="img") as bar:
        for path in paths:
            ...
            bar.advance()

>>> format_duration(34 * 3600 + 26 * 60 + 40)
'1 d 10 h'
>>> format_duration(23 * 3600 + 5 * 60), format_duration(125), format_duration(9.4), format_duration(None)
('23 h 5 min', '2 min 5 s', '9 s', '-')
>>> format_rate(1.2, "img"), format_rate(0.004, "img")
('1.20 img/s', '14.4 img/h')
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress as RichProgress,
    ProgressColumn,
    SpinnerColumn,
    TextColumn,
)
from rich.text import Text

# A log line that reports a count, e.g. "epoch 3/6: ..." or "  captures 120/4000 (12s)": the bar follows it.
_COUNT = re.compile(r"^\s*(?P<label>[A-Za-z][A-Za-z _-]*?)?\s*(?P<done>\d+)\s*/\s*(?P<total>\d+)\b")
# Rate and time left are averaged over this window: long runs (an archive, a training) change pace slowly.
SPEED_WINDOW_S = 300.0
# The bars open now, innermost last: echo() reaches them from code that only knows how to log a line.
_open: list["Progress"] = []


def echo(message: str) -> None:
    """A log line: through the innermost open bar (:meth:`Progress.follow`), else a plain line on stderr."""
    if _open:
        _open[-1].follow(message)
    else:
        print(message, file=sys.stderr, flush=True)


def format_duration(seconds: float | None) -> str:
    """Two units at most, up to days: a day-long run reads ``1 d 10 h``, never a clock that wraps."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    s = max(0, int(round(seconds)))
    for big, big_unit, small, small_unit in ((86400, "d", 3600, "h"), (3600, "h", 60, "min"), (60, "min", 1, "s")):
        if s >= big:
            rest = (s % big) // small
            return f"{s // big} {big_unit}" + (f" {rest} {small_unit}" if rest else "")
    return f"{s} s"


def format_rate(per_second: float | None, unit: str) -> str:
    if not per_second:
        return f"- {unit}/s"
    if per_second >= 0.1:
        return f"{per_second:.2f} {unit}/s"
    return f"{per_second * 3600:.1f} {unit}/h"


def _columns(unit: str):
    class Rate(ProgressColumn):
        def render(self, task):
            speed = task.speed
            if speed is None and task.elapsed:  # too few updates for rich's window: the average so far
                speed = (task.completed - task.fields.get("start_at", 0)) / task.elapsed or None
            return Text(format_rate(speed, unit), style="progress.data.speed")

    class TimeLeft(ProgressColumn):
        def render(self, task):
            if task.finished:
                return Text(f"took {format_duration(task.finished_time or task.elapsed)}", style="progress.elapsed")
            return Text(f"ETA {format_duration(task.time_remaining)}", style="progress.remaining")

    class Elapsed(ProgressColumn):
        def render(self, task):
            return Text("" if task.finished else format_duration(task.elapsed), style="progress.elapsed")

    return (SpinnerColumn(), TextColumn("[progress.description]{task.description}"), BarColumn(),
            MofNCompleteColumn(), Rate(), TimeLeft(), Elapsed())


class Progress:
    """A bar with count, rate and time left, or nothing when stderr is not a terminal."""

    def __init__(self, total: int | None = None, *, description: str = "", unit: str = "item",
                 completed: int = 0, console: Any = None, enabled: bool | None = None, clock=None,
                 threaded: bool = True):
        self.total = total
        self.description = description
        self.unit = unit
        self._completed = completed
        self._console = console
        self._enabled = enabled
        self._clock = clock  # seconds, monotonic (default: rich's own); tests pass their own to see a day go by
        # False: redrawn only when it moves, with no refresh thread (a process about to fork workers must be
        # one thread, or each worker starts by spawning a fresh interpreter).
        self._threaded = threaded
        self._progress = None
        self._task = None

    @property
    def active(self) -> bool:
        return self._progress is not None

    def __enter__(self) -> "Progress":
        console = self._console or Console(stderr=True)
        enabled = console.is_terminal if self._enabled is None else self._enabled
        if enabled:
            extra = {"get_time": self._clock} if self._clock is not None else {}
            self._progress = RichProgress(*_columns(self.unit), console=console, speed_estimate_period=SPEED_WINDOW_S,
                                          auto_refresh=self._threaded, **extra)
            self._task = self._progress.add_task(self.description, total=self.total, completed=self._completed,
                                                 start_at=self._completed)
            self._progress.start()
        _open.append(self)
        return self

    def __exit__(self, *exc_info) -> None:
        if self in _open:
            _open.remove(self)
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def advance(self, n: int = 1) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, n)
            self._redraw()

    def update(self, completed: int | None = None, *, total: int | None = None,
               description: str | None = None) -> None:
        if self._progress is None:
            return
        changes: dict[str, Any] = {}
        if completed is not None:
            changes["completed"] = completed
        if total is not None:
            changes["total"] = total
        if description is not None:
            changes["description"] = description
        self._progress.update(self._task, **changes)
        self._redraw()

    def _redraw(self) -> None:
        if not self._threaded:
            self._progress.refresh()

    def log(self, message: str) -> None:
        """Print ``message`` above the bar, or as a line on stderr when there is none."""
        if self._progress is not None:
            self._progress.console.print(message, markup=False, highlight=False, soft_wrap=True)
        else:
            print(message, file=sys.stderr, flush=True)

    def follow(self, message: str) -> None:
        """:meth:`log` a message; one that reports a count ("epoch 3/6", "captures 120/4000") moves the bar,
        a new label starting a new phase (its own rate and time left)."""
        self.log(message)
        match = _COUNT.match(message)
        if match is None or self._progress is None:
            return
        label = (match.group("label") or "").strip() or self.description
        done, total = int(match.group("done")), int(match.group("total"))
        if total <= 0 or done > total:
            return  # a ratio such as "MRZ exact 50/60" is not a count of work
        if label != self._progress.tasks[0].description:
            self._progress.reset(self._task, total=total, completed=done, description=label, start_at=done)
        else:
            self._progress.update(self._task, total=total, completed=done)
