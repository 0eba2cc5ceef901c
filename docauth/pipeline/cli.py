"""``docauth check IMAGE``: the whole pipeline on one image; ``docauth classify IMAGES``: its first stage,
document / not and the side, decided as the check decides it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from docauth.classifiers.stage import DocumentClassifier
from docauth.clitools import DECISION_EXIT, backend_option, fail, json_option
from docauth.config import Settings
from docauth.errors import DocauthError, InputError
from docauth.imageio import load_image
from docauth.ocr.reader import DocumentReader
from docauth.pipeline.pipeline import Pipeline
from docauth.progress import echo


@click.command()
@click.argument("image", type=click.Path(dir_okay=False))
@click.option("--person-id", type=int, default=None, help="An enrolled person to verify the document against.")
@click.option("--claimed", default=None, metavar="JSON",
              help='Claimed fields as a JSON object instead of --person-id, e.g. \'{"surname": "ERIKSSON", '
                   '"date_of_birth": "1974-08-12"}\'.')
@backend_option()
@json_option("Print the whole result tree as JSON on stdout instead of a summary.")
def check(image, person_id, claimed, backend, as_json):
    """Check one document image: is it a document, which side, what does it say, whose is it.

    Exits 0 on accept, 1 on review, 3 on reject, 5 on retake (ask for a new photo); 2 when the image or
    an option is unusable, 4 when a model or the database is unavailable. The person database under DOCAUTH_DATA_DIR is created on
    first use.
    """
    try:
        claimed_fields = json.loads(claimed) if claimed else None
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not valid JSON: {exc.msg}", param_hint="--claimed") from exc
    try:
        settings = Settings.load(backend=backend)
        pixels = load_image(image, max_pixels=settings.max_image_pixels, min_side=settings.min_image_side)
        pipeline = Pipeline.load(settings)
        result = pipeline.check(pixels, person_id=person_id, claimed=claimed_fields)
    except DocauthError as exc:
        fail(exc, prefix=image)
    if as_json:
        click.echo(json.dumps(result.export(), indent=2, ensure_ascii=False))
    else:
        click.echo(summary(result.export()))
    sys.exit(DECISION_EXIT[result.decision])


def summary(out: dict) -> str:
    """The result for a person reading it: decision, reasons, what the document is and says."""
    lines = [f"decision: {out['decision']}"]
    for reason in out["reasons"]:
        lines.append(f"  {reason['severity']:<6} {reason['code']}: {reason['message']}")
    doc = out.get("document") or {}
    kind = f", {doc['kind']}" if doc.get("kind") else ""
    lines.append(f"document: {'yes' if doc.get('is_document') else 'no'} "
                 f"(score {doc.get('document_score', 0):.3f}), side {doc.get('side') or '-'}{kind}")
    for name, value in (out.get("fields") or {}).items():
        if value not in (None, "") and not name.endswith("_raw"):  # the raw MRZ digits repeat the dates
            lines.append(f"{name:>16}: {value}")
    return "\n".join(lines)


def _echo_err(message: str) -> None:
    echo(message)  # above the progress bar while one is drawn, else on stderr


@click.command("classify")
@click.argument("images", nargs=-1, required=True, type=click.Path(dir_okay=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per image (JSON lines) on stdout.")
@click.option("--models-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory with document/side .keras and .json (default: models/).")
@click.option("--backend", default="auto", show_default=True, help="Inference backend (see docauth doctor).")
@click.option("--no-mrz", is_flag=True,
              help="The side model's answer alone: no MRZ read (faster; the check's side may differ).")
def classify(images: tuple[Path, ...], as_json: bool, models_dir: Path | None, backend: str, no_mrz: bool) -> None:
    """Document / not, and which side (front, back, open), for each IMAGE.

    The side is decided as the check decides it: a valid MRZ in a format printed on one face settles it
    (TD1: back, TD3: open, visa: front), else the side model's answer stands; ``side_model`` keeps the model's
    own answer. A file that is not a readable image gets a per-file error; the others are still classified
    and the exit status is 1 at the end.
    """
    settings = Settings.load()
    failures = 0
    pipeline = None
    group = max(1, settings.max_batch_size)
    for start in range(0, len(images), group):
        batch_paths, batch_pixels = [], []
        for path in images[start:start + group]:
            try:
                batch_pixels.append(load_image(path, max_pixels=settings.max_image_pixels))
                batch_paths.append(path)
            except InputError as exc:
                failures += 1
                _report_error(path, exc, as_json)
        if not batch_pixels:
            continue
        if pipeline is None:
            pipeline = _load_pipeline(models_dir, backend, with_mrz=not no_mrz)
        for path, result in zip(batch_paths, pipeline.classify(batch_pixels)):
            body = {"path": str(path), **result.export()}
            if as_json:
                click.echo(json.dumps(body))
            else:
                click.echo(_human(body))
    if failures:
        if not as_json:
            _echo_err(f"{failures} of {len(images)} file(s) could not be classified")
        sys.exit(1)


def _report_error(path: Path, exc: DocauthError, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({"path": str(path), **exc.export()}))
    else:
        _echo_err(f"{path}: error: {exc.message} ({exc.code})")


def _load_classifier(models_dir, backend) -> DocumentClassifier:
    try:
        return DocumentClassifier.load(models_dir=models_dir, backend=backend)
    except DocauthError as exc:
        fail(exc, prefix="cannot load the classifiers")


def _load_pipeline(models_dir, backend, *, with_mrz: bool):
    """The check's classify stage: the classifiers and, for the side, the reader's MRZ search (no printed-field
    reading, no faces, no store)."""
    classifier = _load_classifier(models_dir, backend)
    reader = None
    if with_mrz:
        try:
            reader = DocumentReader.load(models_dir=models_dir, backend=backend, read_viz=False)
        except DocauthError as exc:
            fail(exc, prefix="cannot load the MRZ reader")
    return Pipeline(classifier=classifier, reader=reader, faces=None, text_matcher=None)


def _human(body: dict) -> str:
    if not body["is_document"]:
        return f"{body['path']}: not a document (document score {body['document_score']:.3f})"
    scores = ", ".join(f"{k} {v:.3f}" for k, v in body["side_scores"].items())
    line = f"{body['path']}: document (score {body['document_score']:.3f}), side {body['side']}"
    if body.get("side_source") == "mrz":
        line += f" (from its {body.get('mrz_kind')} zone; model {body.get('side_model')}: {scores})"
    else:
        line += f" ({scores})"
    return line
