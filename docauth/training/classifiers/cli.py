"""``docauth train classifiers`` and ``docauth eval classifiers``."""

from __future__ import annotations

import datetime as _dt
import json
import sys
from pathlib import Path

import click

from docauth.classifiers.stage import DocumentClassifier
from docauth.clitools import fail
from docauth.config import default_models_dir, shared_data_dir
from docauth.errors import DocauthError
from docauth.progress import Progress, echo
from docauth.synth import seeds
from docauth.training.classifiers.data import SUBSETS, generator_version
from docauth.training.classifiers.evaluate import evaluate_real, evaluate_synthetic, format_report
from docauth.training.classifiers.recipe import DataSpec, train_both
from docauth.training.classifiers.train import TrainConfig

@click.command("classifiers")
@click.option("--train-count", type=click.IntRange(min=10), default=16000, show_default=True,
              help="Synthetic training samples (documents and not; the side model uses the documents).")
@click.option("--val-count", type=click.IntRange(min=0), default=1500, show_default=True,
              help="Synthetic validation samples (the best epoch is chosen on them).")
@click.option("--epochs", type=click.IntRange(min=1), default=12, show_default=True, help="Training epochs.")
@click.option("--batch-size", type=click.IntRange(min=1), default=64, show_default=True, help="Training batch size.")
@click.option("--learning-rate", "--lr", type=float, default=2e-3, show_default=True, help="Peak learning rate.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output directory for <task>.keras/.json (default: models/).")
@click.option("--task", "tasks", type=click.Choice(["document", "side"]), multiple=True,
              help="Train only this model (repeatable; default both).")
@click.option("--train-seed", type=int, default=None, help="Generator seed for training (default TRAIN range).")
@click.option("--val-seed", type=int, default=None, help="Generator seed for validation (default VALIDATION range).")
@click.option("--seed", "random_seed", type=int, default=1, show_default=True, help="Weight-init / shuffle seed.")
@click.option("--documents-count", type=click.IntRange(min=0), default=0, show_default=True,
              help="Extra documents-only samples (same seed), mostly for the side model.")
@click.option("--both-count", type=click.IntRange(min=0), default=0, show_default=True,
              help="Extra front+back-of-a-card samples (generator category td1_both; document model only).")
@click.option("--extra-count", type=click.IntRange(min=0), default=0, show_default=True,
              help="Supplementary samples from docauth.training.classifiers.photographs (photographs, stacked card scans).")
@click.option("--flat-count", type=click.IntRange(min=0), default=0, show_default=True,
              help="Supplementary flat, tightly cropped documents from docauth.training.classifiers.flat_crops.")
@click.option("--lookalikes-count", type=click.IntRange(min=0), default=0, show_default=True,
              help="Extra non-documents that look most like one (cards, card crops, scenery, letters).")
@click.option("--realistic-count", type=click.IntRange(min=0), default=0, show_default=True,
              help="Supplementary documents drawn as real ones look, from docauth.training.classifiers.realistic.")
@click.option("--val-realistic-count", type=click.IntRange(min=0), default=0, show_default=True,
              help="Also validate on this many realistic samples (the best epoch is chosen on both).")
@click.option("--extra-train", multiple=True, metavar="VERSION:SEED:COUNT[:SUBSET]",
              help="Also train on samples cached from an earlier generator version (repeatable).")
@click.option("--init-from", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              help="Continue training from <dir>/<task>.keras instead of random weights (fine-tuning).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes generating samples (the cores are shared: keep this low).")
@click.option("--threads", type=click.IntRange(min=1), default=2, show_default=True,
              help="TensorFlow intra-op threads for training (match the cores you may use).")
@click.option("--test-count", type=click.IntRange(min=0), default=2000, show_default=True,
              help="Evaluate on this many fresh TEST-seed samples afterwards and record the metrics (0: skip).")
@click.option("--no-real", is_flag=True, help="Skip the evaluation on ../shared/data.")
def train_classifiers(train_count, val_count, epochs, batch_size, learning_rate, out_dir, tasks, train_seed,
                      val_seed, random_seed, documents_count, both_count, extra_count, flat_count, lookalikes_count,
                      realistic_count, val_realistic_count, extra_train, init_from, workers, threads, test_count,
                      no_real):
    """Train the document and side classifiers from scratch on synthetic data (tf.data pipeline)."""
    out_dir = out_dir or default_models_dir()
    spec = DataSpec(train_seed=seeds.TRAIN.default if train_seed is None else train_seed, train_count=train_count,
                    val_seed=seeds.VALIDATION.default if val_seed is None else val_seed, val_count=val_count,
                    documents_count=documents_count, both_count=both_count, extra_count=extra_count,
                    flat_count=flat_count, lookalikes_count=lookalikes_count, realistic_count=realistic_count,
                    val_realistic_count=val_realistic_count, extra_train=tuple(_parse_extra(e) for e in extra_train))
    config = TrainConfig(epochs=epochs, batch_size=batch_size, learning_rate=learning_rate, seed=random_seed,
                         threads=threads)
    command = "docauth train classifiers " + " ".join(sys.argv[3:]) if len(sys.argv) > 3 else \
        "docauth train classifiers"

    with Progress(description="training", unit="it"):
        train_both(spec, config, out_dir, tasks=tuple(tasks) or ("document", "side"), workers=workers,
                   command=command, init_from=init_from, log=echo)
    both_present = all((Path(out_dir) / f"{t}.keras").is_file() for t in ("document", "side"))
    if both_present and (test_count or not no_real):
        from docauth.training.classifiers.evaluate import format_report
        from docauth.training.classifiers.recipe import record_evaluation

        with Progress(description="evaluating", unit="it"):
            report = _evaluate(out_dir, "keras", seeds.TEST.default, test_count, workers, real=not no_real)
        record_evaluation(out_dir, report)
        click.echo(format_report(report))


def _load_classifier(models_dir, backend) -> DocumentClassifier:
    try:
        return DocumentClassifier.load(models_dir=models_dir, backend=backend)
    except DocauthError as exc:
        fail(exc, prefix="cannot load the classifiers")


def _parse_extra(text: str) -> tuple[str, int, int, str]:
    parts = text.split(":")
    try:
        version, seed, count = parts[0], int(parts[1]), int(parts[2])
        subset = parts[3] if len(parts) > 3 else "mix"
    except (IndexError, ValueError):
        raise click.BadParameter(f"{text!r}: expected VERSION:SEED:COUNT[:SUBSET]", param_hint="--extra-train") \
            from None
    if subset not in SUBSETS:
        raise click.BadParameter(f"{text!r}: subset must be one of {', '.join(SUBSETS)}", param_hint="--extra-train")
    return version, seed, count, subset


def _evaluate(models_dir, backend, seed, count, workers, *, real: bool, realistic_count: int = 0) -> dict:
    clf = _load_classifier(models_dir, backend)
    report: dict = {"evaluated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                    "rotations_averaged": clf.rotations, "content_view": clf.content_view}
    if count:
        report["synthetic"] = evaluate_synthetic(clf, seed=seed, count=count, workers=workers,
                                                 progress=lambda m: echo(m))
        report["synthetic"]["generator_version"] = generator_version()
    if realistic_count:
        from docauth.training.classifiers.recipe import SUBSET_SEED_OFFSET

        report["realistic"] = evaluate_synthetic(clf, seed=seed + SUBSET_SEED_OFFSET["realistic"],
                                                 count=realistic_count, workers=workers, subset="realistic",
                                                 progress=lambda m: echo(m))
    shared = shared_data_dir() if real else None
    report["real"] = evaluate_real(clf, shared) if shared else None
    return report


@click.command("classifiers")
@click.option("--count", type=click.IntRange(min=0), default=2000, show_default=True,
              help="Fresh synthetic test images (0: real data only).")
@click.option("--seed", type=int, default=None, help="Generator seed (default: the TEST range).")
@click.option("--models-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory with the models to evaluate (default: models/).")
@click.option("--backend", default="auto", show_default=True, help="Inference backend (see docauth doctor).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes generating the test samples.")
@click.option("--no-real", is_flag=True, help="Skip ../shared/data even when present.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable report on stdout.")
@click.option("--record", is_flag=True, help="Also write the numbers into the models' metadata JSON.")
@click.option("--realistic-count", type=click.IntRange(min=0), default=0, show_default=True,
              help="Also this many realistic documents (docauth.training.classifiers.realistic) from the same range.")
def eval_classifiers(count, seed, models_dir, backend, workers, no_real, as_json, record, realistic_count):
    """Accuracy, per-class precision/recall and confusion matrices, synthetic and real."""
    seed = seeds.TEST.default if seed is None else seed
    if seed in seeds.TRAIN or seed in seeds.VALIDATION:
        raise click.BadParameter(f"seed {seed} is a training/validation seed; evaluate on unseen data",
                                 param_hint="--seed")

    with Progress(description="evaluating", unit="it"):
        report = _evaluate(models_dir, backend, seed, count, workers, real=not no_real, realistic_count=realistic_count)
    if record:
        from docauth.training.classifiers.recipe import record_evaluation

        record_evaluation(models_dir or default_models_dir(), report)
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(format_report(report))
