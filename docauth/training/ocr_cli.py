"""``docauth train mrz``, ``docauth train outline`` and ``docauth eval ocr``.

The stages are imported inside each command, as every command module here does, so listing the commands
loads no framework.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from docauth.clitools import fail, out_option
from docauth.errors import DocauthError


def _ctc_training_options(items: str, epochs: int):
    """The options both CTC line recognisers train with (``items``: what their training cuts)."""
    options = [
        click.option("--epochs", type=click.IntRange(min=0), default=epochs, show_default=True,
                     help=f"Training epochs; 0 only cuts the {items} into --cache."),
        click.option("--cache", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help=f"Keep the cut {items} in this .npz and reuse them on the next run."),
        click.option("--batch-size", default=32, show_default=True, help="Training batch size."),
        click.option("--lr", "learning_rate", type=float, default=None,
                     help="Peak learning rate (default 2e-3 from scratch, 1e-3 starting from --init)."),
        click.option("--degraded-share", type=click.FloatRange(0.0, 1.0), default=0.3, show_default=True,
                     help=f"Share of {items} coarsened (lower resolution) and, independently, of {items} blurred."),
    ]

    def decorate(command):
        for option in reversed(options):
            command = option(command)
        return command
    return decorate


@click.command("mrz")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write mrz_lines.keras/.json (default: the models directory).")
@click.option("--blocks", default=12000, show_default=True, help="Rendered MRZ blocks to cut line strips from.")
@click.option("--captures", default=4000, show_default=True,
              help="Synthetic document captures (docauth.synth, TRAIN seeds) to cut line strips from.")
@click.option("--seed", default=9303, show_default=True, help="Seed of the rendered blocks and their order.")
@click.option("--init", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="Start from this .keras model (fine-tune) instead of from scratch.")
@_ctc_training_options("strips", epochs=6)
@click.option("--extend-cache", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="Build --cache from this cache plus strips of --more-captures further captures.")
@click.option("--more-captures", type=click.IntRange(min=0), default=0, show_default=True,
              help="With --extend-cache: captures to add, from --captures-start on (TRAIN seeds).")
@click.option("--captures-start", type=click.IntRange(min=0), default=0, show_default=True,
              help="First capture index of --more-captures (past those already in --extend-cache).")
@click.option("--flat-document-strips", is_flag=True,
              help="With --more-captures: also cut their strips on the document warped flat (the reader's "
                   "second search), besides on the photo.")
def train_mrz(out_dir, blocks, captures, epochs, batch_size, seed, cache, init, learning_rate, degraded_share,
              extend_cache, more_captures, captures_start, flat_document_strips):
    """Train the MRZ line recogniser (CTC) on rendered MRZs and synthetic captures."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from docauth.config import default_models_dir
    from docauth.progress import Progress
    from docauth.training.line_model import extend_strip_cache, train

    if extend_cache is not None:
        if cache is None:
            raise click.UsageError("--extend-cache needs --cache (the file to write)")
        if cache.exists():
            raise click.UsageError(f"--cache {cache} exists: it would be used as it is, not extended")
    with Progress(description="training", unit="it") as bar:
        if extend_cache is not None:
            extend_strip_cache(extend_cache, cache, more_captures, captures_start, log=bar.follow,
                               flat=flat_document_strips)
        meta = train(out_dir or default_models_dir(), blocks=blocks, captures=captures, epochs=epochs, seed=seed,
                     cache=cache, init=init, batch_size=batch_size, augment_share=degraded_share,
                     learning_rate=learning_rate, log=bar.follow)
    click.echo(json.dumps(meta["metrics"]))


@click.command("outline")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write outline.keras/.json (default: the models directory).")
@click.option("--count", default=8000, show_default=True, help="Generated training captures (default mix).")
@click.option("--val-count", default=600, show_default=True, help="Generated validation captures.")
@click.option("--epochs", default=12, show_default=True, help="Training epochs.")
@click.option("--cache", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Keep the generated images and masks in this .npz and reuse them on the next run.")
def train_outline(out_dir, count, val_count, epochs, cache):
    """Train the document outline model on generated captures (their labels carry the corners)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from docauth.config import default_models_dir
    from docauth.progress import Progress
    from docauth.training.outline import train

    with Progress(description="training", unit="it") as bar:
        meta = train(out_dir or default_models_dir(), count=count, val_count=val_count, epochs=epochs, cache=cache,
                     log=bar.follow)
    click.echo(json.dumps(meta["metrics"]))


@click.command("ocr")
@click.option("--count", default=2000, show_default=True, help="Synthetic captures to read.")
@click.option("--seed", default=None, type=int, help="Synthetic seed (default: the OCR_EVAL range).")
@click.option("--models-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory with the models to evaluate (default: models/).")
@click.option("--no-specimens", is_flag=True, help="Skip the real specimens in ../shared/data.")
@out_option("Also write the full report as JSON to this file.", old=("--json-out",),
            type=click.Path(dir_okay=False, path_type=Path))
def eval_ocr(count, seed, models_dir, no_specimens, out):
    """Exact-match rates per field and per MRZ format: synthetic captures + real specimens."""
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from docauth.config import shared_data_dir
    from docauth.ocr.reader import DocumentReader
    from docauth.progress import Progress
    from docauth.training.ocr_eval import evaluate_specimens, evaluate_synthetic

    try:
        reader = DocumentReader.load(models_dir=models_dir)
    except DocauthError as exc:
        fail(exc)
    report: dict = {}
    shared = shared_data_dir()
    if not no_specimens and shared is not None and (shared / "mrz-specimens" / "truth.csv").is_file():
        click.echo("real specimens:")
        spec = evaluate_specimens(reader, shared / "mrz-specimens", log=lambda m: click.echo("  " + m))
        report["specimens"] = spec
        click.echo(f"  MRZ exact {spec['mrz_exact']}/{spec['count']} = {spec['mrz_exact_rate']:.1%}; "
                   f"false valid {spec['false_valid']}; invalid specimens reported invalid "
                   f"{spec['invalid_specimens_reported_invalid']}/{spec['invalid_specimens']}")
        click.echo("  printed fields against the true MRZ: " + "; ".join(
            f"{name} {p['exact']} exact of {p['read']} read" for name, p in spec["printed_fields"].items()))
    elif not no_specimens:
        click.echo("real specimens: ../shared/data absent, skipped")
    if count > 0:
        from docauth.synth.seeds import OCR_EVAL

        seed = OCR_EVAL.default if seed is None else seed
        click.echo(f"synthetic captures: {count} (seed {seed})")
        with Progress(count, description="reading", unit="img") as bar:
            syn = evaluate_synthetic(_Counted(reader, bar.advance), count, seed, log=click.echo)
        report["synthetic"] = syn
        click.echo(f"  MRZ exact {syn['mrz_exact_rate']} of {syn['mrz_count']}; false valid {syn['mrz_false_valid']}")
        for fmt, v in syn["per_format"].items():
            click.echo(f"    {fmt}: {v['exact_rate']} ({v['count']})")
        click.echo("  fields (final, MRZ-verified else printed):")
        for name, v in syn["fields"].items():
            click.echo(f"    {name:>16}: {v['exact_rate']} ({v['count']})")
        click.echo("  printed fields only (VIZ: Tesseract + printed-field recogniser; card fronts and passport pages):")
        for name, v in syn["viz_fields"].items():
            click.echo(f"    {name:>16}: {v['exact_rate']} ({v['count']})")
        click.echo(f"  rotation correct {syn['rotation_rate']}; document found {syn['document_found_rate']}; "
                   f"median {syn['median_ms']} ms per image")
    if out:
        out.write_text(json.dumps(report, indent=2, default=str) + "\n")


class _Counted:
    """A reader that moves the progress bar once per image it reads."""

    def __init__(self, reader, advance):
        self._reader, self._advance = reader, advance

    def __call__(self, image, **kwargs):
        result = self._reader(image, **kwargs)
        self._advance()
        return result

    def __getattr__(self, name):
        return getattr(self._reader, name)
