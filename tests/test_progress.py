"""Progress bars: count, rate and a time left that reads in days and hours, on a terminal only."""

from __future__ import annotations

import io

from rich.console import Console

from docauth.progress import Progress


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _terminal() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=True, width=150, color_system=None), buffer


def test_an_archive_taking_more_than_a_day_shows_days_not_a_wrapped_clock():
    console, buffer = _terminal()
    clock = Clock()
    with Progress(150_000, description="scan", unit="img", console=console, clock=clock) as bar:
        for _ in range(100):  # 1.2 images a second for 100 s
            clock.now += 1.0
            bar.advance(1.2)
        console.print(bar._progress.get_renderable())
    text = buffer.getvalue()
    # (150,000 - 120) / 1.2 s = 34.7 h; a clock through time.gmtime would have shown 10:...
    assert "ETA 1 d 10 h" in text and "1.20 img/s" in text and "120/150000" in text


def test_count_lines_move_the_bar_and_each_label_is_a_phase():
    console, buffer = _terminal()
    clock = Clock()
    with Progress(description="training", unit="it", console=console, clock=clock) as bar:
        bar.follow("  captures 100/4000 (12s, detector missed 3)")
        clock.now += 10
        bar.follow("  captures 200/4000 (22s, detector missed 3)")
        task = bar._progress.tasks[0]
        assert (task.description, task.completed, task.total) == ("captures", 200, 4000)
        bar.follow("epoch 1/6: {'loss': 0.4}")
        task = bar._progress.tasks[0]
        assert (task.description, task.completed, task.total) == ("epoch", 1, 6)
        bar.follow("saved 3/2 models")  # past its total: not a count of work
        assert bar._progress.tasks[0].total == 6
    assert "captures 100/4000 (12s, detector missed 3)" in buffer.getvalue()  # every line is kept above the bar


def test_nothing_is_drawn_off_a_terminal(capsys):
    buffer = io.StringIO()
    with Progress(10, description="scan", console=Console(file=buffer)) as bar:
        assert not bar.active
        bar.advance(5)
        bar.follow("epoch 1/2: done")
    assert buffer.getvalue() == ""
    assert capsys.readouterr().err == "epoch 1/2: done\n"  # messages still reach stderr, as plain lines


def test_echo_reaches_the_open_bar_or_stderr(capsys):
    from docauth.progress import echo

    console, buffer = _terminal()
    with Progress(description="evaluating", console=console) as bar:
        echo("  chunk 2/5 done")
        assert bar._progress.tasks[0].completed == 2 and bar._progress.tasks[0].total == 5
    echo("after the bar")
    assert "chunk 2/5 done" in buffer.getvalue() and capsys.readouterr().err == "after the bar\n"


def test_a_bar_without_a_refresh_thread_draws_as_it_moves():
    import threading

    def refreshers() -> set:
        """rich's redrawing threads now running (other tests' threads come and go meanwhile)."""
        return {t for t in threading.enumerate() if type(t).__name__ == "_RefreshThread" and t.is_alive()}

    console, buffer = _terminal()
    before = refreshers()
    with Progress(4, description="scan", unit="img", console=console, threaded=False) as bar:
        assert not refreshers() - before  # workers forked under this bar copy no running thread
        bar.advance(3)
        assert "3/4" in buffer.getvalue()
    with Progress(4, description="scan", unit="img", console=console):
        assert refreshers() - before  # by default rich redraws from its own thread
