"""Batch-size study: training throughput and validation accuracy versus batch size.

For each batch size, both models are trained from the same initial seed on the
same cached data for the same number of epochs, once with a fixed peak
learning rate and once with the learning rate scaled linearly with the batch
size (``lr = base_lr * batch / reference_batch``, Goyal et al. 2017; the warm-up
of the normal schedule applies to both). Throughput is training images per
second over the epochs after the first (graph tracing excluded, validation
excluded).

    nice -n 10 .venv/bin/python -m docauth.training.classifiers.batch_size_study --train-count 3000 --epochs 4 \\
        --out docs/training_study.json

Writes a JSON file with every run and prints a Markdown table for docs/training.md.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
import time
from pathlib import Path

from docauth.synth import seeds
from docauth.training.classifiers.data import generator_version, synthetic_set
from docauth.training.classifiers.recipe import TASKS
from docauth.training.classifiers.train import (
    TrainConfig,
    framework_versions,
    machine_description,
    predict_probabilities,
    train_classifier,
)

BATCH_SIZES = (16, 32, 64, 128, 256, 512)


def run_study(*, train_count: int, val_count: int, epochs: int, base_lr: float, reference_batch: int,
              batch_sizes=BATCH_SIZES, tasks=("document", "side"), workers: int = 1, train_seed: int | None = None,
              val_seed: int | None = None, version: str | None = None, log=print, on_run=None) -> dict:
    train_seed = seeds.TRAIN.default if train_seed is None else train_seed
    val_seed = seeds.VALIDATION.default if val_seed is None else val_seed
    # ``version``: a cached earlier generator version (the study does not need the newest images).
    train = synthetic_set(train_seed, train_count, workers=workers, version=version, progress=log)
    val = synthetic_set(val_seed, val_count, workers=workers, version=version, progress=log)
    runs = []
    started = time.perf_counter()
    header = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_description(),
        "frameworks": framework_versions(),
        "generator_version": version or generator_version(),
        "train_seed": train_seed, "train_count": train_count,
        "validation_seed": val_seed, "validation_count": val_count,
        "train_images": {t: len(train.task(t)[0]) for t in tasks},
        "validation_images": {t: len(val.task(t)[0]) for t in tasks},
        "epochs": epochs, "base_learning_rate": base_lr, "reference_batch": reference_batch,
    }
    for task in tasks:
        x, y = train.task(task)
        vx, vy = val.task(task)
        for batch in batch_sizes:
            for scaled in (False, True):
                lr = base_lr * batch / reference_batch if scaled else base_lr
                config = TrainConfig(epochs=epochs, batch_size=batch, learning_rate=lr, seed=1, verbose=0)
                result = train_classifier(x, y, vx, vy, len(TASKS[task]["labels"]), config, name=task, log=log)
                # Accuracy of the *final* weights (the study is about what a fixed budget reaches),
                # and of the best epoch as training keeps it.
                final_acc = result.history.get("val_accuracy", [None])[-1]
                best_probs = predict_probabilities(result.model, vx)
                best_acc = float((best_probs.argmax(1) == vy).mean())
                run = {
                    "task": task, "batch_size": batch, "lr_scaling": scaled, "learning_rate": lr,
                    "steps": epochs * -(-len(x) // batch),
                    "images_per_second": round(result.images_per_second, 1),
                    "seconds": round(result.seconds, 1),
                    "val_accuracy_final": round(final_acc, 4) if final_acc is not None else None,
                    "val_accuracy_best": round(best_acc, 4),
                    "train_loss_final": round(result.history["loss"][-1], 4),
                }
                runs.append(run)
                if on_run:  # partial results survive an interrupted study
                    on_run({**header, "total_seconds": round(time.perf_counter() - started, 1), "runs": runs})
                log(f"{task:8s} batch {batch:3d} {'scaled' if scaled else 'fixed '} lr {lr:.5f}: "
                    f"{run['images_per_second']:6.1f} img/s, val acc final {run['val_accuracy_final']} "
                    f"best {run['val_accuracy_best']} ({run['seconds']} s)")
    return {**header, "total_seconds": round(time.perf_counter() - started, 1), "runs": runs}


def markdown_table(study: dict) -> str:
    lines = []
    for task in sorted({r["task"] for r in study["runs"]}, key=["document", "side"].index):
        lines.append(f"\n**{task}** ({study['train_images'][task]} training images, "
                     f"{study['validation_images'][task]} validation images, {study['epochs']} epochs)\n")
        lines.append("| batch | steps | train img/s | speed-up vs 16 | val acc, fixed lr | val acc, scaled lr "
                     "(lr) |")
        lines.append("|---:|---:|---:|---:|---:|---:|")
        rows = [r for r in study["runs"] if r["task"] == task]
        base_ips = None
        for batch in sorted({r["batch_size"] for r in rows}):
            pair = [next((r for r in rows if r["batch_size"] == batch and r["lr_scaling"] == scaled), None)
                    for scaled in (False, True)]
            done = [r for r in pair if r]
            ips = sum(r["images_per_second"] for r in done) / len(done)
            base_ips = base_ips or ips
            fixed_acc = f"{pair[0]['val_accuracy_final']:.4f}" if pair[0] else "-"
            scaled_acc = f"{pair[1]['val_accuracy_final']:.4f} ({pair[1]['learning_rate']:.4g})" if pair[1] else "-"
            lines.append(f"| {batch} | {done[0]['steps']} | {ips:.0f} | {ips / base_ips:.2f}x | {fixed_acc} | "
                         f"{scaled_acc} |")
    return "\n".join(lines)


def _write(path: Path, study: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(study, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--train-count", type=int, default=3000)
    p.add_argument("--val-count", type=int, default=1000)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--base-lr", type=float, default=2e-3)
    p.add_argument("--reference-batch", type=int, default=64)
    p.add_argument("--batch-sizes", type=lambda s: tuple(int(v) for v in s.split(",")), default=BATCH_SIZES)
    p.add_argument("--tasks", type=lambda s: tuple(s.split(",")), default=("document", "side"))
    p.add_argument("--train-seed", type=int, default=None)
    p.add_argument("--val-seed", type=int, default=None)
    p.add_argument("--version", default=None, help="use the cache of this (earlier) generator version")
    p.add_argument("--out", type=Path, default=Path("data/study/batch_size.json"))
    args = p.parse_args(argv)
    study = run_study(train_count=args.train_count, val_count=args.val_count, epochs=args.epochs,
                      base_lr=args.base_lr, reference_batch=args.reference_batch, batch_sizes=args.batch_sizes,
                      tasks=args.tasks, train_seed=args.train_seed, val_seed=args.val_seed, version=args.version,
                      log=lambda m: print(m, flush=True), on_run=lambda partial: _write(args.out, partial))
    _write(args.out, study)
    print(markdown_table(study))
    print(f"\nwritten {args.out}; {study['total_seconds']} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
