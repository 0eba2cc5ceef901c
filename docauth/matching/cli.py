"""``docauth match-faces`` and ``docauth eval faces``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from docauth.clitools import NEGATIVE, OK, json_option, out_option
from docauth.clitools import handle_errors as _handle_errors
from docauth.errors import DocauthError


def _largest_face(path: str):
    from docauth.errors import InputError
    from docauth.imageio import load_image
    from docauth.matching.face import encode_largest_face

    try:
        image = load_image(path)
    except DocauthError as exc:
        message = exc.message if str(path) in exc.message else f"{path}: {exc.message}"
        raise type(exc)(message, code=exc.code) from exc
    face = encode_largest_face(image)
    if face is None:
        raise InputError(f"{path}: no face was found", code="no_face")
    return face


@click.command("match-faces")
@click.argument("image_a", type=click.Path(dir_okay=False))
@click.argument("image_b", type=click.Path(dir_okay=False))
@click.option("--threshold", type=float, default=None,
              help="Largest distance still taken as the same person (default: the calibrated one).")
@json_option()
@_handle_errors
def match_faces(image_a, image_b, threshold, as_json):
    """Compare the largest face of IMAGE_A with the largest face of IMAGE_B (1:1).

    Exits 0 for the same person, 1 for different persons, 2 when an image is unusable.
    """
    from docauth.config import Settings
    from docauth.matching.face import FaceMatcher

    threshold = threshold if threshold is not None else Settings.load().face_threshold
    face_a, face_b = _largest_face(image_a), _largest_face(image_b)
    result = FaceMatcher(threshold).verify(face_a, face_b)
    out = {**result.export(), "faces_a": face_a.n_faces, "faces_b": face_b.n_faces}
    if as_json:
        click.echo(json.dumps(out))
    else:
        verdict = "same person" if result.match else "different persons"
        click.echo(f"{verdict}: distance {result.distance:.4f} (threshold {result.threshold}); "
                   f"faces found: {face_a.n_faces} in A, {face_b.n_faces} in B")  # fmt: skip
    sys.exit(OK if result.match else NEGATIVE)


@click.command("faces")
@click.option("--shared-data", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder holding faces/labels.csv (default: ../shared/data).")  # fmt: skip
@click.option("--seed", type=int, default=20261122, show_default=True, help="Synthetic documents' seed.")
@click.option("--no-documents", is_flag=True, help="Real photo pairs only.")
@out_option("Also write the report as JSON to this file.", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--write-docs", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Replace the generated calibration section of this Markdown file (docs/matching.md).")  # fmt: skip
@_handle_errors
def eval_faces(shared_data, seed, no_documents, out, write_docs):
    """Calibrate the face threshold: distance distributions, chosen threshold, error rates."""
    from docauth.config import shared_data_dir
    from docauth.matching.calibration import calibrate
    from docauth.matching.face import DEFAULT_FACE_THRESHOLD

    from docauth.progress import Progress

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
        import datetime as dt
        import os
        import platform

        from docauth.matching.calibration import report_markdown, write_docs_section

        when = f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC"
        machine = f"{platform.machine()}, {os.cpu_count()} cores, seed {seed}"
        write_docs_section(report_markdown(report, DEFAULT_FACE_THRESHOLD, when, machine), write_docs)
    click.echo(text)
