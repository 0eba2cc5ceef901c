"""``docauth batch INPUT... --out results.jsonl [--resume] [--engine local|ray] [--workers N]``."""

from __future__ import annotations

import json

import click

from docauth.config import Settings
from docauth.errors import DocauthError


@click.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False), help="Results file (JSON lines).")
@click.option("--resume", is_flag=True, help="Continue an interrupted run: skip inputs already in --out.")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--workers", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Processes (local) or actors (ray), each with its own loaded pipeline.")
@click.option("--ray-address", default=None, help="An existing Ray cluster (default: start a local one).")
@click.option("--backend", default=None, help="Model backend (default: auto).")
@click.option("--chunk", type=click.IntRange(1, 256), default=None, help="Images per classifier batch.")
@click.option("--pipeline-factory", default=None, hidden=True,
              help="module:callable(settings) -> pipeline, instead of the shipped models (plug-ins, tests).")
def batch(inputs, out, resume, engine, workers, ray_address, backend, chunk, pipeline_factory):
    """Scan folders, globs or @list files of document images into one JSON line per input.

    Each finished input is appended whole and fsynced; a killed run continues
    with --resume, without losing or repeating any input. Unreadable files get
    an {"path", "error"} line and never stop the run.
    """
    from docauth.batch.scan import scan

    try:
        settings = Settings.load(mode="throughput", backend=backend)
        _migrate(settings)
        summary = scan(list(inputs), out, settings, resume=resume, engine=engine, workers=workers,
                       chunk=chunk, ray_address=ray_address, factory=pipeline_factory)
    except DocauthError as exc:
        raise click.ClickException(exc.message) from exc
    s = summary.export()
    click.echo(f"scanned {s['scanned']} (skipped {s['skipped']} already done, {s['errors']} errors) "
               f"in {s['elapsed_s']:.1f} s, {s['rate_per_s'] or 0:.2f} img/s; decisions {s['decisions']}", err=True)
    click.echo(json.dumps({"summary": s}))


def _migrate(settings: Settings) -> None:
    """The 1:N duplicate search reads the person database; make sure its schema exists."""
    from docauth.store import Store

    store = Store.from_settings(settings)
    try:
        store.upgrade()
    finally:
        store.close()
