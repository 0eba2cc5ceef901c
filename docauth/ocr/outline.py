"""The document outline model: which pixels of a photo or scan belong to the document.

Contours of edges and colour segments find a card on a plain table, but not on
a cluttered desk, over a keyboard or on grass, where the portrait, a sticker or
the background's own shapes make better rectangles. A small encoder-decoder
network, trained on the generator's captures (whose labels carry the exact
corners), marks the document's pixels; the quad is then fitted to that mask
(:func:`mask_to_quad`) and refined on the full-resolution edges by
:mod:`docauth.ocr.locate`. For an opened passport the data page is the
document: the facing page is not marked.

Input: RGB squashed to 192 x 192, float32 in [0, 1]; output: 96 x 96
probabilities. It runs through the runtime layer like every model.

Optional and not shipped yet: the first training run (6,000 captures, 6 of 10
epochs, 2026-11-23) reached a median corner error of 11 % of the image side,
worse than the contour locator; see docs/training.md. ``DocumentReader.load``
uses it only when ``models/outline.keras`` exists.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

MODEL_NAME = "outline"
INPUT_SIDE = 192
MASK_SIDE = 96
LABELS = ["background", "document"]


def preprocess(rgb: np.ndarray) -> np.ndarray:
    """(192, 192, 3) float32 in [0, 1], aspect not kept (the mask is stretched back the same way)."""
    import cv2

    small = cv2.resize(rgb, (INPUT_SIDE, INPUT_SIDE), interpolation=cv2.INTER_AREA)
    return small.astype(np.float32) * (1.0 / 255.0)


def mask_to_quad(mask: np.ndarray, image_shape, threshold: float = 0.5) -> tuple[np.ndarray, float] | None:
    """Four corners (image order TL, TR, BR, BL, input coordinates) of the largest marked region, and its
    share of the image; None when nothing document-sized is marked."""
    import cv2

    from docauth.ocr.quad import fit_sides, order_corners, quad_from_contour

    h, w = image_shape[:2]
    binary = (mask >= threshold).astype(np.uint8)
    n, labels, stats, _c = cv2.connectedComponentsWithStats(binary, connectivity=4)
    if n <= 1:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    share = float(stats[k, cv2.CC_STAT_AREA]) / binary.size
    if share < 0.02:
        return None
    # Upsample the soft mask of that region for a sub-cell outline.
    soft = np.where(labels == k, mask, 0.0).astype(np.float32)
    big_side = 384
    soft = cv2.resize(soft, (big_side, big_side), interpolation=cv2.INTER_LINEAR)
    region = (soft >= threshold).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    contour = max(contours, key=cv2.contourArea)
    quad = quad_from_contour(contour, cv2)
    if quad is None:
        quad = cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float64)
    points = contour.reshape(-1, 2).astype(np.float64)
    quad = fit_sides(order_corners(quad), points, cv2)
    scale = np.array([w / big_side, h / big_side])
    quad = order_corners(quad * scale)
    quad[:, 0] = np.clip(quad[:, 0], 0, w - 1)
    quad[:, 1] = np.clip(quad[:, 1], 0, h - 1)
    return quad, share


# --- model ----------------------------------------------------------------------------
def build_model():
    """(training model with logits, inference model with probabilities); ~0.1 M parameters."""
    import keras
    from keras import layers

    def block(x, filters, stride=1):
        x = layers.SeparableConv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        return layers.ReLU()(x)

    inp = keras.Input((INPUT_SIDE, INPUT_SIDE, 3), name="image")
    x = layers.Conv2D(16, 3, strides=2, padding="same", use_bias=False)(inp)
    x = layers.BatchNormalization()(x)
    s96 = layers.ReLU()(x)
    s48 = block(block(s96, 32, 2), 32)
    s24 = block(block(s48, 64, 2), 64)
    s12 = block(block(s24, 96, 2), 96)
    x = block(s12, 128)
    # Context: the whole card must be seen to tell its edge from the portrait's.
    x = layers.SeparableConv2D(128, 3, padding="same", dilation_rate=2, activation="relu")(x)
    for skip, filters in ((s24, 64), (s48, 32), (s96, 16)):
        x = layers.UpSampling2D(interpolation="bilinear")(x)
        x = layers.Concatenate()([x, skip])
        x = block(x, filters)
    logits = layers.Conv2D(1, 1, name="logits")(x)
    probs = layers.Activation("sigmoid", name="probabilities")(logits)
    return keras.Model(inp, logits, name="outline_train"), keras.Model(inp, probs, name=MODEL_NAME)


# --- training data -----------------------------------------------------------------------
def _target(corners, image_shape) -> np.ndarray:
    import cv2

    h, w = image_shape[:2]
    mask = np.zeros((MASK_SIDE, MASK_SIDE), np.uint8)
    if corners is not None:
        pts = np.asarray(corners, np.float64) * [MASK_SIDE / w, MASK_SIDE / h]
        cv2.fillPoly(mask, [np.round(pts * 8).astype(np.int32)], 255, lineType=cv2.LINE_AA, shift=3)
    return mask


def make_dataset(seed: int, count: int, start: int = 0, log=None) -> tuple[np.ndarray, np.ndarray]:
    """uint8 inputs (N, 192, 192, 3) and uint8 masks (N, 96, 96) from the generator's default mix."""
    import cv2

    from docauth.synth import generate_sample

    xs = np.empty((count, INPUT_SIDE, INPUT_SIDE, 3), np.uint8)
    ys = np.empty((count, MASK_SIDE, MASK_SIDE), np.uint8)
    t0 = time.time()
    for k, i in enumerate(range(start, start + count)):
        sample = generate_sample(seed, i)
        xs[k] = cv2.resize(sample.image, (INPUT_SIDE, INPUT_SIDE), interpolation=cv2.INTER_AREA)
        ys[k] = _target(sample.label["corners"] if sample.label["is_document"] else None, sample.image.shape)
        if log and (k + 1) % 1000 == 0:
            log(f"  {k + 1}/{count} samples ({time.time() - t0:.0f}s)")
    return xs, ys


def corner_error(model, x: np.ndarray, y: np.ndarray) -> dict:
    """Median / 90th percentile of the largest corner error (fraction of the image side) on documents,
    and the share of non-documents with nothing marked."""
    probs = model.predict(x.astype(np.float32) / 255.0, batch_size=64, verbose=0)[..., 0]
    errors, empty_ok, negatives = [], 0, 0
    for p, target in zip(probs, y):
        truth = mask_to_quad(target / 255.0, (1000, 1000))
        got = mask_to_quad(p, (1000, 1000))
        if truth is None:
            negatives += 1
            empty_ok += got is None
            continue
        errors.append(1.0 if got is None else float(np.abs(got[0] - truth[0]).max()) / 1000)
    errors = np.array(errors) if errors else np.array([1.0])
    return {"corner_error_median": round(float(np.median(errors)), 4),
            "corner_error_p90": round(float(np.percentile(errors, 90)), 4),
            "documents_within_3pct": round(float(np.mean(errors <= 0.03)), 4),
            "non_documents_left_empty": round(empty_ok / max(1, negatives), 4)}


def write_model(model, out_dir: Path, *, training: dict, metrics: dict) -> dict:
    from docauth.runtime.model import save_model_files

    return save_model_files(model, out_dir, {
        "name": MODEL_NAME,
        "version": 1,
        "input": {"height": INPUT_SIDE, "width": INPUT_SIDE, "channels": 3},
        "output": {"height": MASK_SIDE, "width": MASK_SIDE, "meaning": "probability that the pixel is document"},
        "labels": LABELS,
        "preprocessing": "RGB resized to 192x192 (aspect not kept, INTER_AREA), float32 / 255 in [0, 1]",
        "training": training,
        "metrics": metrics,
    })


def train(out_dir: Path, *, count: int = 8000, val_count: int = 600, epochs: int = 12, batch_size: int = 32,
          seed: int = 1, cache: str | Path | None = None, log=print) -> dict:
    import keras
    import tensorflow as tf

    from docauth.synth.seeds import TRAIN, VALIDATION

    keras.utils.set_random_seed(seed)
    train_seed, val_seed = TRAIN.nth(77), VALIDATION.nth(77)
    cache_file = Path(cache) if cache else None
    if cache_file is not None and cache_file.is_file():
        with np.load(cache_file) as data:
            x, y, xv, yv = data["x"], data["y"], data["xv"], data["yv"]
    else:
        log(f"generating {count} training and {val_count} validation captures ...")
        x, y = make_dataset(train_seed, count, log=log)
        xv, yv = make_dataset(val_seed, val_count)
        if cache_file is not None:
            np.savez(cache_file, x=x, y=y, xv=xv, yv=yv)
    train_model, model = build_model()

    def loss(target, logits):
        target = tf.cast(target, tf.float32)
        bce = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(target, logits))
        p = tf.sigmoid(logits)
        inter = tf.reduce_sum(p * target, axis=[1, 2, 3])
        dice = 1.0 - (2 * inter + 1.0) / (tf.reduce_sum(p + target, axis=[1, 2, 3]) + 1.0)
        return bce + 0.5 * tf.reduce_mean(dice)

    def prepare(images, masks):
        images = tf.cast(images, tf.float32) / 255.0
        masks = tf.cast(masks, tf.float32)[..., None] / 255.0
        return images, masks

    def augment(images, masks):
        # Colour only: geometry comes from the generator, and quarter turns keep image and mask aligned.
        k = tf.random.uniform((), 0, 4, tf.int32)
        images, masks = tf.image.rot90(images, k), tf.image.rot90(masks, k)
        images = tf.image.random_brightness(images, 0.1)
        images = tf.image.random_contrast(images, 0.8, 1.2)
        return tf.clip_by_value(images, 0.0, 1.0), masks

    steps = epochs * int(np.ceil(len(x) / batch_size))
    lr = keras.optimizers.schedules.CosineDecay(0.0, steps, warmup_target=3e-3, warmup_steps=min(300, steps // 10))
    train_model.compile(optimizer=keras.optimizers.AdamW(lr, weight_decay=1e-4), loss=loss)
    data = (tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x), seed=seed).batch(batch_size)
            .map(prepare).map(augment).prefetch(2))
    val = tf.data.Dataset.from_tensor_slices((xv, yv)).batch(128).map(prepare)
    t0 = time.time()
    history, best = [], (None, None)
    for epoch in range(epochs):
        h = train_model.fit(data, epochs=1, validation_data=val, verbose=2)
        m = corner_error(model, xv, yv)
        history.append({"epoch": epoch + 1, "loss": round(float(h.history["loss"][-1]), 4),
                        "val_loss": round(float(h.history["val_loss"][-1]), 4), **m})
        log(f"epoch {epoch + 1}/{epochs}: {history[-1]} ({time.time() - t0:.0f}s)")
        key = (m["documents_within_3pct"], m["non_documents_left_empty"])
        if best[0] is None or key >= best[0]:
            best = (key, model.get_weights())
    model.set_weights(best[1])
    metrics = corner_error(model, xv, yv) | {"validation_images": int(len(xv))}
    training = {"seed": seed, "train_seed": train_seed, "images": int(len(x)), "epochs": epochs,
                "batch_size": batch_size, "seconds": round(time.time() - t0, 1), "history": history,
                "recipe": f"docauth train outline --count {count} --epochs {epochs}"}
    meta = write_model(model, out_dir, training=training, metrics=metrics)
    log(f"validation: {metrics}")
    return meta
