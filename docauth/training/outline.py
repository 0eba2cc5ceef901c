"""Training the document outline model (``docauth train outline``) on the generator's captures.

The network, its input and the mask-to-quad fit are the reading library's (:mod:`docauth.ocr.outline`).
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from docauth.ocr.outline import INPUT_SIDE, LABELS, MASK_SIDE, MODEL_NAME, build_model, mask_to_quad
from docauth.runtime.model import save_model_files
from docauth.synth import generate_sample
from docauth.synth.seeds import TRAIN, VALIDATION

def _target(corners, image_shape) -> np.ndarray:
    h, w = image_shape[:2]
    mask = np.zeros((MASK_SIDE, MASK_SIDE), np.uint8)
    if corners is not None:
        pts = np.asarray(corners, np.float64) * [MASK_SIDE / w, MASK_SIDE / h]
        cv2.fillPoly(mask, [np.round(pts * 8).astype(np.int32)], 255, lineType=cv2.LINE_AA, shift=3)
    return mask


def make_dataset(seed: int, count: int, start: int = 0, log=None) -> tuple[np.ndarray, np.ndarray]:
    """uint8 inputs (N, 192, 192, 3) and uint8 masks (N, 96, 96) from the generator's default mix."""
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
    return save_model_files(model, out_dir, {
        "name": MODEL_NAME,
        "version": 1,
        "input": {"height": INPUT_SIDE, "width": INPUT_SIDE, "channels": 3, "range": [0.0, 1.0]},
        "output": {"height": MASK_SIDE, "width": MASK_SIDE, "meaning": "probability that the pixel is document"},
        "labels": LABELS,
        "preprocessing": "RGB resized to 192x192 (aspect not kept, INTER_AREA), float32 / 255 in [0, 1]",
        "training": training,
        "metrics": metrics,
    })


def train(out_dir: Path, *, count: int = 8000, val_count: int = 600, epochs: int = 12, batch_size: int = 32,
          seed: int = 1, cache: str | Path | None = None, log=print) -> dict:
    import keras  # deferred: Keras and TensorFlow load only when training runs
    import tensorflow as tf

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
