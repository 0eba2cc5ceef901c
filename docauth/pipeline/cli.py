"""``docauth check IMAGE [--person-id ID | --claimed JSON] [--json]``: the whole pipeline on one image."""

from __future__ import annotations

import json
import sys

import click

from docauth.clitools import DECISION_EXIT, backend_option, fail, json_option
from docauth.errors import DocauthError


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
    from docauth.config import Settings
    from docauth.imageio import load_image
    from docauth.pipeline import Pipeline

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
