"""``docauth match-faces``: are the faces in two images the same person (1:1)."""

from __future__ import annotations

import json
import sys

import click

from docauth.clitools import NEGATIVE, OK, handle_errors as _handle_errors, json_option
from docauth.config import Settings
from docauth.errors import DocauthError, InputError
from docauth.imageio import load_image
from docauth.matching.face import FaceMatcher, encode_largest_face


def _largest_face(path: str):
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
