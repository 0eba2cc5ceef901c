"""Write a labelled dataset: ``<out>/<seed>-<index>.jpg`` + ``<out>/labels.jsonl`` (one line per image, in
index order). Parallel generation gives byte-identical output to serial generation."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import cv2

from docauth.synth.sample import choose_category, generate_sample

JPEG_QUALITY = 95  # the capture already applied its own JPEG quality; this save should add little


def _restrict(category):
    if category is None:
        return None
    if isinstance(category, str):
        return [category]
    cats = list(category)
    return cats or None


def _write_one(args) -> dict:
    out_dir, seed, index, categories = args
    cat = categories[0] if categories and len(categories) == 1 else (
        choose_category(seed, index, categories) if categories else None)
    sample = generate_sample(seed, index, cat)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(sample.image, cv2.COLOR_RGB2BGR),
                           [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    path = Path(out_dir) / sample.label["file"]
    tmp = path.with_suffix(".jpg.part")
    tmp.write_bytes(buf.tobytes())
    os.replace(tmp, path)
    return sample.label


def _init_worker():
    cv2.setNumThreads(1)  # the pool provides the parallelism; OpenCV threads would oversubscribe


def generate_dataset(out_dir, count: int, seed: int, category=None, workers: int = 1, start: int = 0,
                     progress=None) -> Path:
    """Generate samples ``start .. start+count-1`` of ``seed``; returns the labels.jsonl path.

    ``category``: None (default mix), one category name, or a list of names (the mix restricted to them).
    ``workers`` > 1 uses forked processes; the output does not depend on it.
    ``progress``: optional callable(n_done) for CLIs.
    """
    if count < 0:
        raise ValueError("count must be >= 0")
    if workers < 1:
        raise ValueError("workers must be >= 1")
    categories = _restrict(category)
    if categories:
        choose_category(seed, 0, categories)  # validates the names
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    labels_path = out / "labels.jsonl"
    jobs = [(str(out), seed, i, categories) for i in range(start, start + count)]
    tmp = labels_path.with_suffix(".jsonl.part")
    with open(tmp, "w", encoding="utf-8") as fh:
        if workers == 1 or count < 2:
            previous = cv2.getNumThreads()
            cv2.setNumThreads(1)
            try:
                for n, job in enumerate(jobs, 1):
                    fh.write(json.dumps(_write_one(job), ensure_ascii=False) + "\n")
                    if progress:
                        progress(n)
            finally:
                cv2.setNumThreads(previous)
        else:
            ctx = multiprocessing.get_context("fork")
            with ctx.Pool(workers, initializer=_init_worker) as pool:
                for n, label in enumerate(pool.imap(_write_one, jobs, chunksize=4), 1):
                    fh.write(json.dumps(label, ensure_ascii=False) + "\n")
                    if progress:
                        progress(n)
    os.replace(tmp, labels_path)
    return labels_path


def read_labels(path) -> list[dict]:
    """Labels of a generated dataset (``labels.jsonl`` or its directory)."""
    p = Path(path)
    if p.is_dir():
        p = p / "labels.jsonl"
    with open(p, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
