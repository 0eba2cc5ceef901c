"""``docauth eval real | faces`` and ``docauth bench classify``: measuring the stages and choosing the face
threshold (the classifiers' commands are :mod:`docauth.training.classifiers.cli`)."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

import click

from docauth.clitools import handle_errors, out_option
from docauth.config import DEFAULT_FACE_THRESHOLD, shared_data_dir
from docauth.errors import DocauthError
from docauth.progress import Progress
from docauth.training import real
from docauth.training.classifier_bench import format_report, run_classify_bench
from docauth.training.face_threshold import calibrate, report_markdown, write_docs_section

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

    shared = shared_data_dir()
    sources: dict[str, list] = {}
    if generated_count > 0:
        sources["generated"] = real.generated_cases(generated_count, seed)
    sources.update(real.shared_sources(shared))
    if not sources:
        click.echo("error: nothing to evaluate (../shared/data is absent and --generated is 0)", err=True)
        sys.exit(2)
    with tempfile.TemporaryDirectory(prefix="docauth-eval-") as tmp:
        try:
            pipeline, reader = real.evaluation_pipeline(Path(tmp), **({"models_dir": models_dir} if models_dir else {}))
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
        pipeline.store.close()
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


@click.command("faces")
@click.option("--shared-data", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder holding faces/labels.csv (default: ../shared/data).")  # fmt: skip
@click.option("--seed", type=int, default=20261122, show_default=True, help="Synthetic documents' seed.")
@click.option("--no-documents", is_flag=True, help="Real photo pairs only.")
@out_option("Also write the report as JSON to this file.", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--write-docs", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Replace the generated calibration section of this Markdown file (docs/matching.md).")  # fmt: skip
@handle_errors
def eval_faces(shared_data, seed, no_documents, out, write_docs):
    """Calibrate the face threshold: distance distributions, chosen threshold, error rates."""
    root = shared_data or shared_data_dir()
    faces_dir = root / "faces" if root is not None else None
    with Progress(description="calibrating (photos and generated documents)", unit="img"):
        report = calibrate(faces_dir, seed=seed, documents=not no_documents)
    data = report.export()
    data["configured_threshold"] = DEFAULT_FACE_THRESHOLD
    data["errors_at_configured_threshold"] = report.errors_at(DEFAULT_FACE_THRESHOLD)
    text = json.dumps(data, indent=2)
    if out:
        out.write_text(text + "\n")
    if write_docs:
        when = f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC"
        machine = f"{platform.machine()}, {os.cpu_count()} cores, seed {seed}"
        write_docs_section(report_markdown(report, DEFAULT_FACE_THRESHOLD, when, machine), write_docs)
    click.echo(text)


@click.command("classify")
@click.option("--models", "models", default="document,side", show_default=True,
              help="The classifiers measured together (each image goes through all of them).")
@click.option("--models-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Models directory (default: DOCAUTH_MODELS_DIR or ./models).")
@click.option("--images", default=64, show_default=True, help="Distinct input images.")
@click.option("--seconds", default=1.0, show_default=True, type=float, help="Measuring time per case.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the JSON results here.")
@handle_errors
def bench_classify(models, models_dir, images, seconds, as_json, output):
    """Baseline Keras model.predict against every backend and mode, same inputs, one run."""
    names = [n.strip() for n in models.split(",") if n.strip()]
    result = run_classify_bench(names, models_dir=models_dir, n_images=images, seconds=seconds,
                                progress=None if as_json else (lambda line: click.echo(line, err=True)))
    if output:
        Path(output).write_text(json.dumps(result, indent=1))
    click.echo(json.dumps(result, indent=1) if as_json else format_report(result))
