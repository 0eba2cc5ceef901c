"""``docauth synth``: write synthetic documents and non-documents with labels."""

from __future__ import annotations

import sys
import time

import click

from docauth.errors import InputError
from docauth.progress import Progress
from docauth.synth import CATEGORIES, EXTRA_CATEGORIES, generate_dataset, seeds


def _parse_seed(value: str) -> int:
    named = {r.name: r for r in seeds.ALL}
    if value.lower() in named:
        return named[value.lower()].default
    try:
        seed = int(value)
    except ValueError:
        raise InputError(f"--seed must be an integer or one of {', '.join(named)}, not {value!r}") from None
    if seed < 0:
        raise InputError("--seed must be >= 0")
    return seed


@click.command("synth")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--count", required=True, type=click.IntRange(min=0), help="Number of images.")
@click.option("--seed", default="train", show_default=True,
              help="Integer seed or a named range from docauth.synth.seeds (train, validation, test, ocr_eval, "
                   "face_eval, tests).")
@click.option("--category", "categories", multiple=True,
              help="Only these categories (repeatable): documents td1_front td1_back td3_open td1_both (front and "
                   "back on one sheet) td2_front mrv_visa doc_crop (tightly cropped documents); non-documents "
                   "selfie scenery letter screenshot blank card photo card_crop. Default: the standard mix.")
@click.option("--start", default=0, type=click.IntRange(min=0), show_default=True, help="First sample index.")
@click.option("--workers", default=1, type=click.IntRange(min=1), show_default=True,
              help="Processes (output does not depend on it).")
def synth(out_dir, count, seed, categories, start, workers):
    """Generate COUNT labelled images into OUT (JPEGs + labels.jsonl)."""
    known = CATEGORIES + EXTRA_CATEGORIES
    try:
        seed_value = _parse_seed(seed)
        bad = [c for c in categories if c not in known]
        if bad:
            raise InputError(f"unknown category {bad[0]!r}; expected one of {', '.join(known)}")
    except InputError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(2)

    t0 = time.perf_counter()
    try:
        with Progress(count, description="generating", unit="img") as bar:
            path = generate_dataset(out_dir, count, seed_value, category=list(categories) or None, workers=workers,
                                    start=start, progress=bar.update)
    except OSError as exc:
        click.echo(f"error: cannot write to {out_dir}: {exc.strerror or exc}", err=True)
        sys.exit(2)
    dt = time.perf_counter() - t0
    rate = f", {dt / count * 1000:.0f} ms/image" if count else ""
    click.echo(f"wrote {count} images and {path} (seed {seed_value}) in {dt:.1f} s{rate}")
