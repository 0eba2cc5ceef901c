"""``docauth check IMAGE [--person-id ID | --claimed JSON]``: the whole pipeline on one image."""

from __future__ import annotations

import json

import click

from docauth.errors import DocauthError


@click.command()
@click.argument("image", type=click.Path(dir_okay=False))
@click.option("--person-id", type=int, default=None, help="An enrolled person to verify against.")
@click.option("--claimed", default=None, help="Claimed fields as a JSON object (instead of --person-id).")
@click.option("--backend", default=None, help="Model backend (default: auto).")
def check(image, person_id, claimed, backend):
    """Print the result tree (JSON) and exit 0 on accept, 1 on review, 3 on reject."""
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
        raise click.ClickException(f"{exc.code}: {exc.message}") from exc
    click.echo(json.dumps(result.export(), indent=2, ensure_ascii=False))
    raise SystemExit({"accept": 0, "review": 1, "reject": 3}[result.decision])
