"""Training and evaluation arrays from the synthetic generator, cached on disk.

Generating a sample (render, capture simulation, JPEG) costs far more than a
training step, so every sample is generated once per (seed, index, input
size, generator version): chunks of :data:`CHUNK` consecutive indices are
stored as ``.npz`` files of *preprocessed* ``uint8`` images
(:func:`docauth.classifiers.preprocess.resize_uint8`) plus labels under
``data/cache/classifiers/``. Reruns, longer runs (more indices) and the
batch-size study reuse them. The generator version is a hash of the
``docauth/synth`` sources, so a changed generator never serves stale images.
"""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

import docauth.synth
from docauth.classifiers import preprocess, views
from docauth.classifiers.views import content_view
from docauth.config import default_data_dir
from docauth.synth import generate_sample

DOCUMENT_LABELS = ["not_document", "document"]
SIDE_LABELS = ["front", "back", "open"]
NO_SIDE = -1
CHUNK = 250


@dataclass
class LabelledImages:
    """Preprocessed ``uint8`` images with both tasks' labels (``side`` is -1 for non-documents)."""

    images: np.ndarray  # (N, H, W, 3) uint8
    is_document: np.ndarray  # (N,) int8, index into DOCUMENT_LABELS
    side: np.ndarray  # (N,) int8, index into SIDE_LABELS or NO_SIDE
    kind: np.ndarray  # (N,) str, the generator's kind / category (for error analysis)

    def __len__(self) -> int:
        return len(self.images)

    @classmethod
    def concat(cls, parts: list["LabelledImages"]) -> "LabelledImages":
        return cls(
            images=np.concatenate([p.images for p in parts]),
            is_document=np.concatenate([p.is_document for p in parts]),
            side=np.concatenate([p.side for p in parts]),
            kind=np.concatenate([p.kind for p in parts]),
        )

    def documents_only(self) -> "LabelledImages":
        keep = (self.is_document == 1) & (self.side != NO_SIDE)
        return LabelledImages(self.images[keep], self.is_document[keep], self.side[keep], self.kind[keep])

    def task(self, task: str) -> tuple[np.ndarray, np.ndarray]:
        """(images, integer labels) for ``"document"`` or ``"side"`` (documents only)."""
        if task == "document":
            return self.images, self.is_document.astype(np.int32)
        if task == "side":
            docs = self.documents_only()
            return docs.images, docs.side.astype(np.int32)
        raise ValueError(f"unknown task {task!r}; use 'document' or 'side'")


def labels_from_sample_label(label: dict) -> tuple[int, int, str]:
    """(is_document index, side index or -1, kind) from a generator label dict."""
    is_doc = 1 if label.get("is_document") else 0
    side = label.get("side")
    side_index = SIDE_LABELS.index(side) if (is_doc and side in SIDE_LABELS) else NO_SIDE
    kind = str(label.get("category") or label.get("kind") or ("document" if is_doc else "other"))
    if kind == "doc_crop" and label.get("variant"):  # which document was cropped
        kind = f"doc_crop:{label['variant']}"
    return is_doc, side_index, kind


def generator_version() -> str:
    """Short hash of the synthetic generator's sources (cache key)."""
    root = Path(docauth.synth.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def default_cache_dir() -> Path:
    return default_data_dir() / "cache" / "classifiers"


def _generate_chunk_sizes(seed: int, start: int, stop: int, sizes: tuple[tuple[int, int], ...],
                          subset: str = "mix", view: str = "whole") -> dict[tuple[int, int], LabelledImages]:
    """Samples ``start..stop-1`` resized to each of ``sizes`` (each sample is rendered once)."""
    images: dict[tuple[int, int], list] = {size: [] for size in sizes}
    is_doc, side, kind = [], [], []
    for index in range(start, stop):
        if subset == "extra":
            from docauth.training.classifiers.photographs import extra_sample

            image, label = extra_sample(seed, index)
        elif subset == "flat":
            from docauth.training.classifiers.flat_crops import flat_sample

            image, label = flat_sample(seed, index)
        elif subset == "realistic":
            from docauth.training.classifiers.realistic import realistic_sample

            image, label = realistic_sample(seed, index)
        elif subset == "both":
            sample = generate_sample(seed, index, "td1_both")
            image, label = sample.image, sample.label
        elif subset in ("documents", "lookalikes"):
            from docauth.synth import DOCUMENT_CATEGORIES, choose_category

            categories = DOCUMENT_CATEGORIES if subset == "documents" else LOOKALIKE_CATEGORIES
            sample = generate_sample(seed, index, choose_category(seed, index, categories))
            image, label = sample.image, sample.label
        else:
            sample = generate_sample(seed, index)
            image, label = sample.image, sample.label
        d, s, k = labels_from_sample_label(label)
        if view == "content":
            image = content_view(image)
        for (height, width), out in images.items():
            out.append(preprocess.resize_uint8(image, height, width))
        is_doc.append(d)
        side.append(s)
        kind.append(k)
    labels = (np.array(is_doc, np.int8), np.array(side, np.int8), np.array(kind))
    return {size: LabelledImages(np.stack(out), *labels) for size, out in images.items()}


# The non-documents the document model takes for documents most often (docs/training.md: bank and loyalty
# cards, card crops, scenery, letters).
LOOKALIKE_CATEGORIES = ("card", "card_crop", "scenery", "letter")

SUBSETS = {
    "mix": "generate_sample(seed, index): the generator's default mix of documents and non-documents",
    "documents": "generate_sample(seed, index, choose_category(seed, index, DOCUMENT_CATEGORIES)): documents only",
    "lookalikes": "generate_sample(seed, index, choose_category(seed, index, LOOKALIKE_CATEGORIES)): "
                  "non-documents that look most like one (cards, card crops, scenery, letters)",
    "both": "generate_sample(seed, index, 'td1_both'): front and back of a card in one image "
            "(documents with no single side: document model only)",
    "flat": "docauth.training.classifiers.flat_crops.flat_sample(seed, index): one card side or passport data page, "
            "flat and tightly cropped (documents with a side)",
    "extra": "docauth.training.classifiers.photographs.extra_sample(seed, index): photographs (not documents) and "
             "front+back card scans (documents, no side)",
    "realistic": "docauth.training.classifiers.realistic.realistic_sample(seed, index): documents drawn as real ones look "
                 "(pale print, white MRZ band, secondary portraits, booklet spreads), rendered, scanned on white "
                 "or photographed (documents with a side)",
}


# The files that draw a subset's samples (and the content crop): their contents key its cache, so a changed
# drawing never serves stale images.
_SOURCES = {
    "extra": (Path(__file__).parent / "photographs.py",),
    "flat": (Path(__file__).parent / "flat_crops.py",),
    "realistic": (Path(__file__).parent / "realistic.py", Path(__file__).parent / "layouts.py"),
    "views": (Path(views.__file__),),
}
# Subsets drawn by a module of their own: its hash is part of their cache key.
MODULE_SUBSETS = ("extra", "flat", "realistic")


def _module_hash(name: str) -> str:
    digest = hashlib.sha256()
    for path in _SOURCES[name]:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:8]


def subset_module(subset: str) -> dict:
    """``{"module_hash": ...}`` for the subsets drawn by their own module (their cache key), else ``{}``."""
    return {"module_hash": _module_hash(subset)} if subset in MODULE_SUBSETS else {}


def _chunk_path(cache_dir: Path, seed: int, start: int, stop: int, height: int, width: int, version: str,
                subset: str = "mix", view: str = "whole") -> Path:
    if subset == "mix":
        name = f"seed{seed}_{start:07d}-{stop:07d}.npz"
    elif subset in MODULE_SUBSETS:  # also keyed by the module that draws these samples
        name = f"{subset}-{_module_hash(subset)}_seed{seed}_{start:07d}-{stop:07d}.npz"
    else:
        name = f"{subset}_seed{seed}_{start:07d}-{stop:07d}.npz"
    if view == "content":  # keyed by the module that crops
        name = f"content-{_module_hash('views')}_{name}"
    return cache_dir / f"synth-{version}" / f"{height}x{width}" / name


def _save(path: Path, data: LabelledImages) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}.npz")
    np.savez(tmp, images=data.images, is_document=data.is_document, side=data.side, kind=data.kind)
    os.replace(tmp, path)  # atomic: a killed run never leaves a half-written chunk


def _load(path: Path) -> LabelledImages:
    with np.load(path, allow_pickle=False) as z:
        return LabelledImages(z["images"], z["is_document"], z["side"], z["kind"])


def synthetic_set(
    seed: int,
    count: int,
    *,
    height: int = preprocess.INPUT_HEIGHT,
    width: int = preprocess.INPUT_WIDTH,
    cache_dir: Path | None = None,
    workers: int = 1,
    use_cache: bool = True,
    progress: Callable[[str], None] | None = None,
    version: str | None = None,
    subset: str = "mix",
    also_cache_sizes: tuple[tuple[int, int], ...] = (),
    view: str = "whole",
) -> LabelledImages:
    """Samples ``0..count-1`` of ``subset`` (see :data:`SUBSETS`), preprocessed; cached by chunk when ``use_cache``.

    ``version``: read the cache of an *earlier* generator version (by its hash) instead of the
    current one; nothing is generated then, and a missing chunk is an error.
    ``also_cache_sizes``: (height, width) pairs to cache as well when a chunk is generated (rendering
    dominates the cost; comparing input sizes then needs no second rendering).
    """
    sizes = ((height, width),) + tuple(tuple(sz) for sz in also_cache_sizes if tuple(sz) != (height, width))
    cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
    if subset not in SUBSETS:
        raise ValueError(f"unknown subset {subset!r}; expected one of {', '.join(SUBSETS)}")
    if view not in ("whole", "content"):
        raise ValueError(f"unknown view {view!r}; expected 'whole' or 'content'")
    current = generator_version()
    pinned = version is not None and version != current
    version = version or current
    bounds = [(s, min(s + CHUNK, count)) for s in range(0, count, CHUNK)]
    parts: dict[tuple[int, int], LabelledImages] = {}
    missing = []
    for start, stop in bounds:
        # A chunk is always stored whole (CHUNK indices) so any count can reuse it.
        full_stop = start + CHUNK
        path = _chunk_path(cache_dir, seed, start, full_stop, height, width, version, subset, view)
        if use_cache and path.is_file():
            parts[(start, stop)] = _slice(_load(path), 0, stop - start)
        else:
            missing.append((start, stop, full_stop, path))
    if missing and pinned:
        raise FileNotFoundError(f"generator version {version}: {len(missing)} cached chunk(s) of seed {seed} missing "
                                f"under {cache_dir}; only the current version ({current}) can be generated")
    if missing and progress:
        progress(f"generating {sum(m[2] - m[0] for m in missing)} samples (seed {seed}) with {workers} worker(s)")

    def store(item, by_size):
        start, stop, full_stop, path = item
        if use_cache:
            _save(path, by_size[(height, width)])
            for size in sizes[1:]:
                other = _chunk_path(cache_dir, seed, start, full_stop, size[0], size[1], version, subset, view)
                if not other.is_file():
                    _save(other, by_size[size])
        parts[(start, stop)] = _slice(by_size[(height, width)], 0, stop - start)

    if workers > 1 and len(missing) > 1:
        import multiprocessing

        # spawn: never fork a process that may already hold TensorFlow's threads.
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            futures = {pool.submit(_generate_chunk_sizes, seed, m[0], m[2] if use_cache else m[1], sizes,
                                   subset, view): m for m in missing}
            for n, fut in enumerate(futures):
                store(futures[fut], fut.result())
                if progress:
                    progress(f"  chunk {n + 1}/{len(missing)} done")
    else:
        for n, m in enumerate(missing):
            store(m, _generate_chunk_sizes(seed, m[0], m[2] if use_cache else m[1], sizes, subset, view))
            if progress:
                progress(f"  chunk {n + 1}/{len(missing)} done")
    if not bounds:
        return LabelledImages(np.zeros((0, height, width, 3), np.uint8), np.zeros(0, np.int8),
                              np.zeros(0, np.int8), np.zeros(0, str))
    return LabelledImages.concat([parts[b] for b in bounds])


def _slice(data: LabelledImages, a: int, b: int) -> LabelledImages:
    return LabelledImages(data.images[a:b], data.is_document[a:b], data.side[a:b], data.kind[a:b])
