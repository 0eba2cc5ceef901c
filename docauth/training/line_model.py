"""Training the MRZ line recogniser (``docauth train mrz``): strips, data sets, the CTC loop.

Strips are cut with the reader's own code (:func:`docauth.ocr.mrz.finder.cut_strip`) from rendered MRZ blocks
(:mod:`docauth.training.mrz_render`) and from synthetic phone and scanner captures (:mod:`docauth.synth`, TRAIN
seeds), so the recogniser learns the crops it will see. The network and its decoding are the reading library's
(:mod:`docauth.ocr.mrz.line_model`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import cv2
import numpy as np

from docauth.ocr.locate import warp
from docauth.ocr.mrz.line_model import (CONTEXT_LAYER, FRAMES, LABELS, MODEL_NAME, MRZ_CONTEXT, TOLERANCE,
                                  build_model, decode_line)
from docauth.ocr.mrz.finder import LINE_H, LINE_W, FoundMRZ, cut_strip, find_mrz_levelled
from docauth.ocr.photo_search import DOCUMENT_READ_SIDE
from docauth.runtime.model import save_model_files
from docauth.synth import generate_sample
from docauth.synth.seeds import TRAIN, VALIDATION
from docauth.training.mrz_render import random_mrz, render_block


def init_from(model, source, log=print) -> None:
    """Start ``model`` from ``source``'s weights, layer by layer in order where a layer of the same kind,
    weight shapes and dilation follows in ``source`` (a different output layer, for other characters, is
    left as built). Context layers ``source`` lacks (a model grown with more :func:`build_model` dilations)
    start with their output weights at zero: their residual branch adds nothing, so the grown model reads
    exactly as ``source`` did until training gives it something to add."""
    def kind(layer) -> tuple:
        return (type(layer).__name__, tuple(w.shape for w in layer.get_weights()),
                str(getattr(layer, "dilation_rate", "")))

    theirs = [layer for layer in source.layers if layer.get_weights()]
    taken, at = 0, 0
    for layer in (layer for layer in model.layers if layer.get_weights()):
        match = next((k for k in range(at, len(theirs)) if kind(theirs[k]) == kind(layer)), None)
        if match is not None:
            layer.set_weights(theirs[match].get_weights())
            taken, at = taken + 1, match + 1
        elif layer.name.startswith(CONTEXT_LAYER):
            depthwise, pointwise, bias = layer.get_weights()
            layer.set_weights([depthwise, np.zeros_like(pointwise), np.zeros_like(bias)])
    weighted = sum(1 for layer in model.layers if layer.get_weights())
    log(f"initialised {taken} of {weighted} layers from the source model")


# --- training data ---------------------------------------------------------------------
def _jitter(rng) -> dict:
    """Detection as imperfect as it is on real photos: ends off by up to a glyph, baseline off."""
    return {"pad": (float(rng.uniform(0.1, 1.6)), float(rng.uniform(0.1, 1.6))),
            "dy": float(rng.normal(0, 0.08)), "half_height": float(rng.uniform(0.72, 1.05))}


def strips_from_found(found: FoundMRZ, truth: list[str], flip: bool, rng=None) -> list[tuple[np.ndarray, str]]:
    """Strips of a found block labelled with the truth lines (read upside down when ``flip``)."""
    block = found.block
    strips = []
    for line in block.lines:
        opts = _jitter(rng) if rng is not None else {}
        strips.append(cut_strip(found.gray, line, block.scale, **opts))
    if flip:
        strips = [s[::-1, ::-1] for s in reversed(strips)]
    return list(zip(strips, truth))


def _angle_gap(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def rendered_strips(count: int, seed: int, log=None) -> tuple[list, dict]:
    """Strips from ``count`` rendered, degraded MRZ blocks of every format."""
    rng = np.random.default_rng(seed)
    types = ["TD1", "TD1", "TD3", "TD3", "TD2", "MRVA", "MRVB"]
    out, missed = [], 0
    t0 = time.time()
    for k in range(count):
        lines = random_mrz(rng, types[k % len(types)])
        gray = render_block(rng, lines)
        found = [f for f in find_mrz_levelled(gray, limit=1) if len(f.block.lines) == len(lines)]
        if not found:
            missed += 1
            continue
        out += strips_from_found(found[0], lines, flip=_angle_gap(found[0].angle, 0.0) > 90, rng=rng)
        if log and (k + 1) % 1000 == 0:
            log(f"  rendered {k + 1}/{count} blocks ({time.time() - t0:.0f}s, detector missed {missed})")
    return out, {"blocks": count, "detector_missed": missed}


def capture_strips(count: int, seed: int, start: int = 0, log=None, flat: bool = False) -> tuple[list, dict]:
    """Strips from synthetic phone and scanner captures, found by the reader's own search.

    ``flat``: also those of the reader's second search, on the document warped flat at reading
    size (:meth:`docauth.ocr.photo_search.PhotoSearch.read_on_document`): sharper and larger
    than on the photo, and the search that reads the blurred, small pages the first one missed.
    """
    rng = np.random.default_rng(seed + 7)
    out, missed, flat_missed = [], 0, 0
    t0 = time.time()
    for i in range(start, start + count):
        sample = generate_sample(seed, i, category=("td1_back", "td3_open")[i % 2])
        truth = list(sample.label["mrz"])
        quad = np.array(sample.label["mrz_corners"], np.float32)
        gray = cv2.cvtColor(sample.image, cv2.COLOR_RGB2GRAY)
        pairs = _strips_of_zone(gray, quad, truth, rng)
        missed += not pairs
        out += pairs
        if flat:
            page, homography = _flat_document(gray, np.array(sample.label["corners"], np.float64), rng)
            flat_quad = cv2.perspectiveTransform(quad.reshape(-1, 1, 2), homography).reshape(-1, 2)
            pairs = _strips_of_zone(page, flat_quad, truth, rng)
            flat_missed += not pairs
            out += pairs
        if log and (i - start + 1) % 500 == 0:
            log(f"  captures {i - start + 1}/{count} ({time.time() - t0:.0f}s, detector missed {missed})")
    info = {"captures": count, "detector_missed": missed}
    if flat:
        info["flat_document"] = {"detector_missed": flat_missed}
    return out, info


def _strips_of_zone(gray: np.ndarray, quad: np.ndarray, truth: list[str], rng) -> list:
    """Strips of the found block lying on the zone ``quad`` (its first line's start first), or none."""
    reading = np.degrees(np.arctan2(*(quad[1] - quad[0])[::-1]))
    for found in find_mrz_levelled(gray, limit=3):
        if len(found.block.lines) != len(truth):
            continue
        if cv2.pointPolygonTest(quad.reshape(-1, 1, 2).astype(np.float32), found.centre_in_input(), False) >= 0:
            return strips_from_found(found, truth, flip=_angle_gap(found.angle, reading) > 90, rng=rng)
    return []


def _flat_document(gray: np.ndarray, corners: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray]:
    """The document warped flat the way the reader's second search does, from its true corners moved
    by up to 2 % of its size (the locator's outline is not exact) and listed from the image's top left."""
    size = np.linalg.norm(corners[2] - corners[0])
    moved = corners + rng.uniform(-0.02, 0.02, corners.shape) * size
    image_order = np.roll(moved, -int(np.argmin(moved.sum(axis=1))), axis=0)
    return warp(gray, image_order, max_long_side=DOCUMENT_READ_SIDE, min_long_side=DOCUMENT_READ_SIDE)


def _arrays(pairs: list) -> tuple[np.ndarray, np.ndarray]:
    x = np.stack([np.round(s * 255).astype(np.uint8) for s, _ in pairs])
    y = np.zeros((len(pairs), 44), np.int32)  # 0 = blank = padding for the CTC loss
    for i, (_, text) in enumerate(pairs):
        y[i, :len(text)] = [LABELS.index(c) for c in text]
    return x, y


def build_dataset(blocks: int, captures: int, seed: int, capture_seed: int, log=None) -> dict:
    strips, info = rendered_strips(blocks, seed, log=log)
    if captures:
        more, cinfo = capture_strips(captures, capture_seed, log=log)
        strips += more
        info["captures"] = cinfo
    x, y = _arrays(strips)
    return {"x": x, "y": y, "info": info}


def extend_strip_cache(source: str | Path, target: str | Path, captures: int, start: int, log=None,
                       flat: bool = False) -> dict:
    """``target``: the strips cached in ``source`` plus those of ``captures`` more synthetic captures (TRAIN seeds,
    indices ``start`` on; ``flat``: also cut on the document warped flat, see :func:`capture_strips`); the
    validation strips unchanged. Returns the data description stored with it."""
    x, y, xv, yv, info = load_strip_cache(source)
    pairs, more = capture_strips(captures, TRAIN.nth(9303), start=start, log=log, flat=flat)
    if pairs:
        x_more, y_more = _arrays(pairs)
        x, y = np.concatenate([x, x_more]), np.concatenate([y, y_more])
    earlier = info.get("more_captures")
    info["more_captures"] = {**more, "start": start, "strips": len(pairs), "extends": str(source)}
    if earlier:  # the source was itself extended: keep how, so the chain can be rebuilt
        info["more_captures"]["source_extended"] = earlier
    save_strip_cache(target, x, y, xv, yv, info)
    return info


def load_strip_cache(path: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
    """(training strips, their labels, validation strips, their labels, data description) of a strip cache."""
    with np.load(path, allow_pickle=False) as data:
        return data["x"], data["y"], data["xv"], data["yv"], json.loads(str(data["info"]))


def save_strip_cache(path: str | Path, x, y, xv, yv, info: dict) -> None:
    """The strip cache :func:`load_strip_cache` reads (both line recognisers' training data)."""
    np.savez(path, x=x, y=y, xv=xv, yv=yv, info=json.dumps(info))


def _extension_recipe(info: dict) -> str:
    more = info.get("more_captures")
    if not more or "extends" not in more:
        return ""  # not extended, or extended by hand before --extend-cache (described in the data block)
    step = f" --extend-cache {more['extends']} --more-captures {more['captures']} --captures-start {more['start']}"
    if "flat_document" in more:
        step += " --flat-document-strips"
    earlier = more.get("source_extended")
    if earlier and "extends" in earlier:  # the source cache is built first, the same way
        step += (f" (after building {more['extends']} with --extend-cache {earlier['extends']}"
                 f" --more-captures {earlier['captures']} --captures-start {earlier['start']})")
    return step


# --- training ---------------------------------------------------------------------------
def write_model(model, out_dir: Path, *, training: dict, metrics: dict) -> dict:
    """``<out_dir>/mrz_lines.keras`` and its metadata (what the runtime layer and the reader check)."""
    return save_model_files(model, out_dir, {
        "name": MODEL_NAME,
        "version": 1,
        "input": {"height": LINE_H, "width": LINE_W, "channels": 1, "range": [0.0, 1.0]},
        "output": {"frames": FRAMES, "classes": len(LABELS), "blank": 0,
                   "decoding": "CTC, docauth.ocr.mrz.line_model.decode_line"},
        "labels": LABELS,
        "tolerance": TOLERANCE,
        "preprocessing": "grayscale strip along one MRZ line cut by docauth.ocr.mrz.finder.cut_strip: "
                         "ink=1, paper=0, float32 in [0, 1]",
        "training": training,
        "metrics": metrics,
    })


def ctc_loss(y_true, logits):
    """CTC loss through TensorFlow's C++ kernel (sparse labels; 0 = blank = padding).

    Keras' own CTC loss takes dense labels, which TensorFlow computes with a
    scan of small ops, several times slower on a CPU.
    """
    import tensorflow as tf  # deferred: TensorFlow loads only when training runs

    labels = tf.sparse.from_dense(tf.cast(y_true, tf.int32))
    batch, frames = tf.shape(logits)[0], tf.shape(logits)[1]
    return tf.nn.ctc_loss(labels=labels, logits=logits, label_length=None, logit_length=tf.fill([batch], frames),
                          logits_time_major=False, blank_index=0)


def line_accuracy(model, x: np.ndarray, y: np.ndarray, labels: list = LABELS, known_length: bool = True) -> float:
    """Share of lines read exactly (``known_length``: decoded to the true length, as the MRZ's format gives it)."""
    probs = model.predict(x.astype(np.float32)[..., None] / 255.0, batch_size=128, verbose=0)
    ok = 0
    for p, codes in zip(probs, y):
        truth = "".join(labels[k] for k in codes if k)
        ok += decode_line(p, len(truth) if known_length else None, labels).text == truth
    return ok / max(1, len(y))


def degrade(strips, share: float):
    """Training augmentation of a (N, 32, 768, 1) float batch: ``share`` of the strips lose resolution (shrunk
    by 0.35-0.8 and enlarged back) and, independently, ``share`` are blurred (Gaussian, sigma 0.5-1.6 px).

    What the reader's misses look like (docs/history.md, the OCR section): MRZs a few pixels tall, upscaled
    into the strip, and out-of-focus ones; the rendered and captured strips have too few of them.
    """
    import tensorflow as tf  # deferred: TensorFlow loads only when training runs

    n = tf.shape(strips)[0]
    size = tf.shape(strips)[1:3]
    factor = tf.random.uniform((), 0.35, 0.8)
    small = tf.image.resize(strips, tf.cast(tf.cast(size, tf.float32) * factor, tf.int32), method="area")
    coarse = tf.image.resize(small, size, method="bilinear")
    strips = tf.where(tf.random.uniform((n, 1, 1, 1)) < share, coarse, strips)
    sigma = tf.random.uniform((), 0.5, 1.6)
    taps = tf.exp(-tf.square(tf.range(-3.0, 4.0)) / (2.0 * sigma * sigma))
    taps /= tf.reduce_sum(taps)
    blurred = tf.nn.conv2d(strips, tf.reshape(taps, (7, 1, 1, 1)), 1, "SAME")
    blurred = tf.nn.conv2d(blurred, tf.reshape(taps, (1, 7, 1, 1)), 1, "SAME")
    return tf.where(tf.random.uniform((n, 1, 1, 1)) < share, blurred, strips)


def train(out_dir: Path, *, blocks: int = 12000, captures: int = 4000, epochs: int = 8, seed: int = 9303,
          cache: str | Path | None = None, init: str | Path | None = None, batch_size: int = 32,
          augment_share: float = 0.3, learning_rate: float | None = None, log=print) -> dict:
    """Cut strips, train with CTC, measure line accuracy on held-out strips, write ``mrz_lines.keras`` + ``.json``."""
    import keras  # deferred: Keras (and TensorFlow) load only when training runs

    keras.utils.set_random_seed(seed)
    cache_file = Path(cache) if cache else None
    if cache_file is not None and cache_file.is_file():
        log(f"loading cached strips from {cache_file}")
        x, y, xv, yv, info = load_strip_cache(cache_file)
    else:
        log(f"cutting strips from {blocks} rendered blocks and {captures} synthetic captures ...")
        train_set = build_dataset(blocks, captures, seed, TRAIN.nth(9303), log=log)
        val_set = build_dataset(max(300, blocks // 12), max(150, captures // 12), seed + 1, VALIDATION.nth(9303))
        x, y, info = train_set["x"], train_set["y"], train_set["info"]
        xv, yv = val_set["x"], val_set["y"]
        info["validation"] = val_set["info"]
        if cache_file is not None:
            save_strip_cache(cache_file, x, y, xv, yv, info)
    log(f"train strips {len(y)}, validation strips {len(yv)}")
    if epochs == 0:  # only cut the strips (a cache to extend or to train from later)
        return {"metrics": {"train_strips": int(len(y)), "val_strips": int(len(yv))}, "training": {"data": info}}
    train_model, model = build_model(context=MRZ_CONTEXT)
    if init:
        init_from(model, keras.saving.load_model(init, compile=False), log)
    peak = learning_rate if learning_rate is not None else (2e-3 if not init else 1e-3)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    def describe(history: list, seconds: float) -> dict:
        return {"seed": seed, "epochs": epochs, "epochs_run": len(history), "batch_size": batch_size,
                "learning_rate": peak, "degraded_share": augment_share,
                "strips": int(len(y)), "initialised_from": str(init) if init else None,
                "seconds": round(seconds, 1), "data": info, "history": history,
                # The strips' own description: a cache built by an earlier run holds what that run cut.
                "recipe": f"docauth train mrz --blocks {info.get('blocks', blocks)}"
                          f" --captures {info.get('captures', {}).get('captures', 0)} --epochs {epochs}"
                          f" --batch-size {batch_size} --lr {peak:g} --degraded-share {augment_share:g}"
                          + (f" --init {init}" if init else "") + (f" --cache {cache}" if cache else "")
                          + _extension_recipe(info)}

    def save(history: list, seconds: float, accuracy: float) -> dict:
        return write_model(model, out_dir, training=describe(history, seconds),
                           metrics={"val_line_accuracy": round(accuracy, 5), "val_strips": int(len(yv))})

    best, meta = fit_ctc(train_model, model, (x, y), (xv, yv), epochs=epochs, batch_size=batch_size, peak=peak,
                         augment_share=augment_share, seed=seed, accuracy=lambda: line_accuracy(model, xv, yv),
                         save=save, log=log)
    log(f"held-out line accuracy {best:.4f}; wrote {out_dir / (MODEL_NAME + '.keras')}")
    return meta


def fit_ctc(train_model, model, train_set: tuple, val_set: tuple, *, epochs: int, batch_size: int, peak: float,
            augment_share: float, seed: int, accuracy, save, log) -> tuple[float, dict]:
    """Train ``train_model`` (logits) with CTC on uint8 strips (ink = 255) and integer labels (0 = padding),
    degraded as :func:`degrade` and jittered in contrast; after each epoch ``accuracy()`` of ``model`` on the
    held-out strips, and ``save(history, seconds, accuracy)`` when it is the best so far (a long run cut short
    still leaves the best model). Returns (best accuracy, what the last ``save`` returned); ``model`` ends with
    the best epoch's weights."""
    import keras  # deferred: Keras and TensorFlow load only when training runs
    import tensorflow as tf

    (x, y), (xv, yv) = train_set, val_set
    steps = epochs * int(np.ceil(len(y) / batch_size))
    lr = keras.optimizers.schedules.CosineDecay(0.0, steps, warmup_target=peak,
                                                warmup_steps=min(500, steps // 10))
    train_model.compile(optimizer=keras.optimizers.AdamW(lr, weight_decay=1e-4), loss=ctc_loss)

    def as_float(strips, labels):
        strips = tf.cast(strips, tf.float32)[..., None] / 255.0
        return strips, labels

    def augment(strips, labels):
        strips = degrade(strips, augment_share)
        # Contrast and ink-weight variation on top of what rendering and capture already vary.
        gain = tf.random.uniform((tf.shape(strips)[0], 1, 1, 1), 0.7, 1.15)
        strips = tf.clip_by_value(strips * gain + tf.random.normal(tf.shape(strips), 0, 0.04), 0.0, 1.0)
        return strips, labels

    data = (tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(y), seed=seed, reshuffle_each_iteration=True)
            .batch(batch_size).map(as_float).map(augment).prefetch(2))
    val = tf.data.Dataset.from_tensor_slices((xv, yv)).batch(256).map(as_float)
    t0 = time.time()
    history: list = []
    best, best_weights, meta = -1.0, None, {}
    for epoch in range(epochs):
        h = train_model.fit(data, epochs=1, validation_data=val, verbose=2)
        acc = accuracy()
        history.append({"epoch": epoch + 1, "loss": round(float(h.history["loss"][-1]), 4),
                        "val_loss": round(float(h.history["val_loss"][-1]), 4), "val_line_accuracy": round(acc, 5)})
        log(f"epoch {epoch + 1}/{epochs}: {history[-1]} ({time.time() - t0:.0f}s)")
        if acc >= best:
            best, best_weights = acc, model.get_weights()
            meta = save(history, time.time() - t0, best)
    model.set_weights(best_weights)
    meta = save(history, time.time() - t0, best)
    return best, meta
