"""``docauth eval real``: the real-vs-generated table (docs/evaluation.md)."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

import click

from docauth.errors import DocauthError

DOCS_START = "<!-- eval-real:start -->"
DOCS_END = "<!-- eval-real:end -->"
# One seed of the OCR evaluation range, apart from the seeds the reader was developed on.
GENERATED_SEED = 460_000


@click.command("real")
@click.option("--generated", "generated_count", default=150, show_default=True,
              help="Generated captures to check beside the real sets (0: none).")
@click.option("--seed", default=GENERATED_SEED, show_default=True, help="Seed of the generated captures.")
@click.option("--models-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Models to evaluate (default: the shipped ones).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write every image's row and the summaries as JSON here.")
@click.option("--write-docs", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Replace the table between the eval-real markers of this markdown file.")
@click.option("--verbose", is_flag=True, help="Print each image's row as it is checked.")
def eval_real(generated_count, seed, models_dir, out, write_docs, verbose):
    """Every stage on the real sets in ../shared/data beside generated captures: one table.

    Real images are for measuring only: nothing here trains or fits a threshold on them.
    """
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from docauth.config import Settings, shared_data_dir
    from docauth.pipeline import Pipeline
    from docauth.pipeline import stages
    from docauth.store.db import Store
    from docauth.training import real

    shared = shared_data_dir()
    sources: dict[str, list] = {}
    if generated_count > 0:
        sources["generated"] = real.generated_cases(generated_count, seed)
    if shared is not None and (shared / "real-docs" / "labels.csv").is_file():
        sources["real-docs"] = real.real_docs_cases(shared / "real-docs")
    if shared is not None and (shared / "mrz-specimens" / "truth.csv").is_file():
        sources["mrz-specimens"] = real.specimen_cases(shared / "mrz-specimens")
    if not sources:
        click.echo("error: nothing to evaluate (../shared/data is absent and --generated is 0)", err=True)
        sys.exit(2)
    with tempfile.TemporaryDirectory(prefix="docauth-eval-") as tmp:
        settings = Settings.load(data_dir=Path(tmp), face_process=False,
                                 **({"models_dir": models_dir} if models_dir else {}))
        try:
            store = Store(settings.resolved_database_url)
            store.upgrade()
            reader = real.CapturingReader(stages.load_reader(settings))
            pipeline = Pipeline.load(settings, store=store, reader=reader)
        except DocauthError as exc:
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(2)
        rows: dict[str, list] = {}
        for name, cases in sources.items():
            click.echo(f"{name}: {len(cases)} images", err=True)

            def progress(done, total, row, name=name):
                if verbose:
                    click.echo(json.dumps(row, default=str), err=True)
                elif done % 25 == 0 or done == total:
                    click.echo(f"  {done}/{total}", err=True)

            rows[name] = real.evaluate(pipeline, reader, cases, progress=progress)
        store.close()
    summaries = {name: real.summarise(r) for name, r in rows.items()}
    text = real.table(summaries)
    click.echo(text)
    for name, summary in summaries.items():
        if summary["false_alarms"]:
            click.echo(f"{name}: undeserved reasons {summary['false_alarms']}")
    if out:
        out.write_text(json.dumps({"seed": seed, "summaries": summaries, "rows": rows}, indent=1, default=str) + "\n")
    if write_docs:
        _write_docs(write_docs, text, seed, generated_count)


def _write_docs(path: Path, text: str, seed: int, generated_count: int) -> None:
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    block = (f"{DOCS_START}\nMeasured {stamp} on {platform.machine()}, `docauth eval real --generated "
             f"{generated_count} --seed {seed}` (generated: td1_front / td1_back / td3_open in turn).\n\n"
             f"{text}\n{DOCS_END}")
    current = path.read_text() if path.is_file() else ""
    if DOCS_START in current and DOCS_END in current:
        head, rest = current.split(DOCS_START, 1)
        current = head + block + rest.split(DOCS_END, 1)[1]
    else:
        current = current + ("\n" if current else "") + block + "\n"
    path.write_text(current)
