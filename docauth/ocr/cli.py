"""``docauth ocr``: read one image. (Training and evaluating the OCR models: :mod:`docauth.training.ocr_cli`.)"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from docauth.clitools import backend_option, fail, json_option
from docauth.config import Settings
from docauth.errors import DocauthError
from docauth.imageio import load_image
from docauth.ocr.reader import DocumentReader


@click.command("ocr")
@click.argument("image", type=click.Path(dir_okay=False, path_type=Path))
@json_option("Print the full result as JSON on stdout instead of text.")
@click.option("--models-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory with the models (default: DOCAUTH_MODELS_DIR, else models/).")
@click.option("--no-viz", is_flag=True, help="Skip the printed fields (Tesseract); MRZ only.")
@backend_option()
def ocr(image, as_json, models_dir, no_viz, backend):
    """Locate the document in IMAGE, read its MRZ and printed fields."""
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    try:
        settings = Settings.load(backend=backend, **({"models_dir": models_dir} if models_dir else {}))
        pixels = load_image(image)
        reader = DocumentReader.load(models_dir=settings.models_dir, backend=settings.backend, read_viz=not no_viz,
                                     tesseract=settings.tesseract)
        result = reader(pixels)
    except DocauthError as exc:
        fail(exc, prefix=str(image))
    out = result.export()
    if as_json:
        click.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    doc = out["document"]
    click.echo(f"document: {'found' if doc['found'] else 'not found (whole image used)'}, rotation {doc['rotation']}")
    mrz = out["mrz"]
    if mrz is None:
        click.echo("mrz: none found")
    else:
        click.echo(f"mrz: {mrz['type']} {'VALID' if mrz['valid'] else 'INVALID'} score {mrz['score']}")
        for line in mrz["lines"]:
            click.echo(f"  {line}")
        failed = [k for k, v in mrz["checks"].items() if not v["ok"]]
        if failed:
            click.echo(f"  failed checks: {', '.join(failed)}")
        for c in mrz["corrections"]:
            click.echo(f"  corrected line {c['line']} pos {c['pos']}: {c['from']} -> {c['to']} ({c['reason']})")
    for name, value in out["fields"].items():
        agree = out["consistency"].get(name, {}).get("agree")
        mark = {True: "viz=mrz", False: "VIZ/MRZ DIFFER", None: ""}[agree]
        click.echo(f"{name:>16}: {value if value is not None else '-'}  {mark}")
