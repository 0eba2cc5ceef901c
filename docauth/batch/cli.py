"""``docauth batch INPUT... --out results.jsonl [--csv] [--resume] [--engine local|ray] [--workers N]``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from docauth.batch.inputs import expand_inputs
from docauth.batch.scan import scan
from docauth.batch.table import paths_for, write_csv
from docauth.batch.worker_threads import probe_workers
from docauth.clitools import NEGATIVE, OK, backend_option, fail
from docauth.config import Settings
from docauth.errors import DocauthError, InputError
from docauth.progress import Progress
from docauth.store import Store

MAX_WORKERS = 256


class WorkerCount(click.ParamType):
    """``--workers``: a count from 1 to 256, or ``auto`` for the probe's physical cores."""

    name = "N|auto"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        if str(value).strip().lower() == "auto":
            return probe_workers()
        try:
            count = int(value)
        except ValueError:
            self.fail(f"{value!r} is neither a number nor 'auto'", param, ctx)
        if not 1 <= count <= MAX_WORKERS:
            self.fail(f"{count} is not between 1 and {MAX_WORKERS}", param, ctx)
        return count


@click.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help="Results file: one JSON line per input. A name ending in .csv writes the CSV table there and "
                   "the JSON lines beside it (.jsonl).")
@click.option("--csv", "with_csv", is_flag=True, help="Also write a CSV table beside the JSON lines (same name, .csv).")
@click.option("--resume", is_flag=True, help="Continue an interrupted run: skip inputs already in --out.")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: worker processes on this machine; ray: Ray actors (a local or an existing cluster).")
@click.option("--workers", type=WorkerCount(), default="1", show_default=True,
              help="Processes (local) or actors (ray), each with its own loaded pipeline and cores // N threads; "
                   "auto: one per physical core.")
@click.option("--ray-address", default=None, help="An existing Ray cluster (default: start a local one).")
@backend_option()
@click.option("--chunk", type=click.IntRange(1, 256), default=None, help="Images per classifier batch.")
@click.option("--pipeline-factory", default=None, hidden=True,
              help="module:callable(settings) -> pipeline, instead of the shipped models (plug-ins, tests).")
def batch(inputs, out, with_csv, resume, engine, workers, ray_address, backend, chunk, pipeline_factory):
    """Scan folders, globs or @list files of document images into one JSON line per input.

    Each finished input is appended whole and fsynced; a killed run continues
    with --resume, without losing or repeating any input. Unreadable files get
    an {"path", "error"} line and never stop the run. The summary is one JSON
    line on stdout. Exits 0 when every input was checked, 1 when some could not
    be (their error lines say why), 2 on a usage error.
    """
    jsonl, csv_path = paths_for(out, with_csv)
    try:
        settings = Settings.load(mode="throughput", backend=backend)
        _migrate(settings)
        # The bar moves as results are written, with no thread of its own: the workers fork from this process.
        with Progress(_count_inputs(inputs), description="scan", unit="img",
                      completed=_lines(jsonl) if resume else 0, threaded=False) as bar:
            summary = scan(list(inputs), jsonl, settings, resume=resume, engine=engine, workers=workers,
                           chunk=chunk, ray_address=ray_address, factory=pipeline_factory, on_done=bar.advance)
        rows = write_csv(jsonl, csv_path) if csv_path is not None else None
    except DocauthError as exc:
        fail(exc)
    except OSError as exc:
        fail(InputError(f"cannot write the results: {exc.strerror or exc}", code="unwritable_output"))
    s = summary.export()
    s["results"] = str(jsonl)
    if csv_path is not None:
        s["csv"], s["csv_rows"] = str(csv_path), rows
    click.echo(f"scanned {s['scanned']} (skipped {s['skipped']} already done, {s['errors']} errors) "
               f"in {s['elapsed_s']:.1f} s, {s['rate_per_s'] or 0:.2f} img/s; decisions {s['decisions']}", err=True)
    click.echo(json.dumps({"summary": s}))
    raise SystemExit(NEGATIVE if s["errors"] else OK)


def _migrate(settings: Settings) -> None:
    """The 1:N duplicate search reads the person database; make sure its schema exists."""
    store = Store.from_settings(settings)
    try:
        store.ensure_schema()
    finally:
        store.close()


def _count_inputs(inputs) -> int:
    expanded = expand_inputs(list(inputs))
    return len(expanded.paths) + len(expanded.missing)


def _lines(path: Path) -> int:
    """Complete lines in the results file (the inputs a resumed run skips)."""
    try:
        with open(path, "rb") as fh:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except FileNotFoundError:
        return 0
