"""Training: tf.data pipeline, optimiser schedule, metadata. TensorFlow is imported lazily.

The pipeline is ``from_tensor_slices`` over the cached ``uint8`` arrays ->
shuffle -> batch -> scale to float -> batched augmentation (parallel map) -> prefetch. The
float conversion in :func:`_to_float` is :func:`docauth.classifiers.preprocess.scale`
written in TensorFlow; resizing already happened when the cache was built,
with the very function inference uses.

Augmentations keep the label true for both tasks:

* 90-degree rotations (k = 0..3): captures are rotated too, and rotating a
  squashed square image equals squashing the rotated capture.
* brightness, contrast and saturation jitter per image: lighting and white balance.

No flips: a mirrored card shows mirror-written text and a portrait on the
wrong side, which no camera or scanner produces; learning to accept it would
only spend capacity (and would make "mirrored text" invisible to the model).
"""

from __future__ import annotations

import json
import math
import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from docauth.classifiers.preprocess import scale
from docauth.training.classifiers.architecture import build_model

MODEL_VERSION = "1.0.0"


@dataclass
class TrainConfig:
    epochs: int = 12
    batch_size: int = 64
    learning_rate: float = 2e-3  # peak, after warm-up
    warmup_fraction: float = 0.05
    weight_decay: float = 1e-4
    augment: bool = True
    # rot90 share: the fraction of each batch turned by a random quarter turn (1.0: every orientation equally
    # often; 0: only the generator's own rotations, 70 % upright as in real uploads)
    rotate_share: float = 1.0
    seed: int = 1
    threads: int = 2
    verbose: int = 1


@dataclass
class TrainResult:
    model: object
    history: dict
    best_epoch: int
    images_per_second: float  # training throughput, measured over all epochs after the first
    seconds: float
    epoch_seconds: list = field(default_factory=list)


def configure_threads(threads: int) -> None:
    import tensorflow as tf  # deferred on purpose: TensorFlow takes seconds to import

    try:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    except RuntimeError:
        pass  # already initialised in this process: keep what it has


def _to_float(image):
    import tensorflow as tf  # deferred on purpose: TensorFlow takes seconds to import

    return tf.cast(image, tf.float32) * (1.0 / 255.0)


def _augment_batch(images, labels, seed, rotate_share: float = 1.0):
    """A shuffled batch, float32 [0, 1], augmented with cheap vectorised ops; ``seed``: stateless (2,) seed.

    Measured on this machine (2 shared cores, batch 64): per-image ``map`` augmentation ran at
    ~115 images/s, slower than training; ``crop_and_resize`` cost 85-400 ms per batch and
    ``stateless_normal`` noise 300-1000 ms, so random crops and added noise are left to the
    generator (which already varies framing, sensor noise and JPEG quality).
    """
    import tensorflow as tf  # deferred on purpose: TensorFlow takes seconds to import

    seeds = tf.random.experimental.stateless_split(seed, num=5)
    n = tf.shape(images)[0]
    # 90-degree rotations: the batch is shuffled, so rotating its quarters by k = 0, 1, 2, 3
    # (after a random cyclic offset) gives every image a random k at the cost of one copy.
    # With rotate_share < 1 only the first part of the (shuffled) batch is rotated.
    offset = tf.random.stateless_uniform([], seeds[0], 0, 4, dtype=tf.int32)
    n_rot = tf.cast(tf.math.round(tf.cast(n, tf.float32) * rotate_share), tf.int32)
    quarter = (n_rot + 3) // 4
    parts = [tf.image.rot90(images[i * quarter:tf.minimum((i + 1) * quarter, n_rot)], (i + offset) % 4)
             for i in range(4)]
    images = tf.concat(parts + [images[n_rot:]], axis=0)
    brightness = tf.random.stateless_uniform([n, 1, 1, 1], seeds[1], -0.12, 0.12)
    contrast = tf.random.stateless_uniform([n, 1, 1, 1], seeds[2], 0.75, 1.25)
    saturation = tf.random.stateless_uniform([n, 1, 1, 1], seeds[3], 0.6, 1.4)
    mean = tf.reduce_mean(images, axis=[1, 2, 3], keepdims=True)
    images = (images - mean) * contrast + mean + brightness
    gray = tf.reduce_mean(images, axis=3, keepdims=True)
    images = gray + (images - gray) * saturation
    return tf.clip_by_value(images, 0.0, 1.0), labels


def make_dataset(images: np.ndarray, labels: np.ndarray, *, batch_size: int, training: bool, seed: int = 1,
                 augment: bool = True, rotate_share: float = 1.0):
    """tf.data pipeline over preprocessed ``uint8`` images and integer labels."""
    import tensorflow as tf  # deferred on purpose: TensorFlow takes seconds to import

    ds = tf.data.Dataset.from_tensor_slices((images, labels.astype(np.int32)))
    if training:
        ds = ds.shuffle(len(images), seed=seed, reshuffle_each_iteration=True)
    ds = ds.batch(batch_size).map(lambda x, y: (_to_float(x), y), num_parallel_calls=tf.data.AUTOTUNE)
    if training and augment:
        # A stateless seed per batch, (seed, running batch number): different every epoch, reproducible.
        ds = tf.data.Dataset.zip((ds, tf.data.Dataset.counter())).map(
            lambda xy, i: _augment_batch(xy[0], xy[1], tf.stack([tf.cast(seed, tf.int64), i]), rotate_share),
            num_parallel_calls=tf.data.AUTOTUNE,
        )
    return ds.prefetch(tf.data.AUTOTUNE)


def _schedule(peak: float, total_steps: int, warmup_fraction: float):
    import keras  # deferred on purpose: TensorFlow takes seconds to import

    warmup = max(1, int(total_steps * warmup_fraction))
    return keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=peak * 0.1,
        decay_steps=max(1, total_steps - warmup),
        warmup_target=peak,
        warmup_steps=warmup,
        alpha=0.01,
    )


def train_classifier(
    train_x: np.ndarray,
    train_y: np.ndarray,
    val_x: np.ndarray,
    val_y: np.ndarray,
    n_classes: int,
    config: TrainConfig,
    *,
    model=None,
    name: str = "classifier",
    log=print,
    checkpoint: Path | None = None,
) -> TrainResult:
    """Fit a fresh (or given, to continue training) model; keep the weights of the best validation epoch.

    ``checkpoint``: also save the best model so far to this ``.keras`` path after each improving epoch.
    """
    configure_threads(config.threads)
    import keras  # deferred on purpose: TensorFlow takes seconds to import

    keras.utils.set_random_seed(config.seed)
    h, w = train_x.shape[1:3]
    if model is None:
        model = build_model(n_classes, height=h, width=w, name=name)
    steps_per_epoch = math.ceil(len(train_x) / config.batch_size)
    optimizer = keras.optimizers.AdamW(
        learning_rate=_schedule(config.learning_rate, steps_per_epoch * config.epochs, config.warmup_fraction),
        weight_decay=config.weight_decay,
    )
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    train_ds = make_dataset(train_x, train_y, batch_size=config.batch_size, training=True, seed=config.seed,
                            augment=config.augment, rotate_share=config.rotate_share)
    val_ds = None
    if len(val_x):
        val_ds = make_dataset(val_x, val_y, batch_size=256, training=False)

    tracker = _BestWeights(log=log if config.verbose else None, n_train=len(train_x), checkpoint=checkpoint)
    started = time.perf_counter()
    hist = model.fit(train_ds, validation_data=val_ds, epochs=config.epochs, verbose=0,
                     callbacks=[tracker], shuffle=False)  # tf.data shuffles
    seconds = time.perf_counter() - started
    if tracker.best_weights is not None:
        model.set_weights(tracker.best_weights)
    # Throughput excludes epoch 1 (tracing / graph building) and validation time.
    times = tracker.train_seconds[1:] or tracker.train_seconds
    ips = len(train_x) * len(times) / max(sum(times), 1e-9)
    history = {k: [float(v) for v in vals] for k, vals in hist.history.items()}
    return TrainResult(model=model, history=history, best_epoch=tracker.best_epoch, images_per_second=ips,
                       seconds=seconds, epoch_seconds=list(tracker.train_seconds))


def _make_best_weights_class():
    import keras  # deferred on purpose: TensorFlow takes seconds to import

    class BestWeights(keras.callbacks.Callback):
        """Remember the weights of the epoch with the best validation accuracy (ties: lower loss)."""

        def __init__(self, log=None, n_train=0, checkpoint=None):
            super().__init__()
            self.checkpoint = checkpoint
            self.log = log
            self.n_train = n_train
            self.best = (-1.0, float("inf"))
            self.best_weights = None
            self.best_epoch = -1
            self.train_seconds: list[float] = []
            self._t0 = 0.0

        def on_epoch_begin(self, epoch, logs=None):
            self._t0 = time.perf_counter()

        def on_test_begin(self, logs=None):
            # Validation runs inside the epoch; stop the training clock here.
            self.train_seconds.append(time.perf_counter() - self._t0)

        def on_epoch_end(self, epoch, logs=None):
            logs = logs or {}
            if len(self.train_seconds) <= epoch:  # no validation data
                self.train_seconds.append(time.perf_counter() - self._t0)
            acc = logs.get("val_accuracy", logs.get("accuracy", 0.0))
            loss = logs.get("val_loss", logs.get("loss", float("inf")))
            if (acc, -loss) > (self.best[0], -self.best[1]):
                self.best = (acc, loss)
                self.best_weights = self.model.get_weights()
                self.best_epoch = epoch + 1
                if self.checkpoint:
                    self.model.save(self.checkpoint)
            if self.log:
                ips = self.n_train / max(self.train_seconds[epoch], 1e-9)
                self.log(f"    epoch {epoch + 1}: loss {logs.get('loss', 0):.4f} acc {logs.get('accuracy', 0):.4f}"
                         f" val_loss {logs.get('val_loss', float('nan')):.4f} val_acc "
                         f"{logs.get('val_accuracy', float('nan')):.4f} ({ips:.0f} img/s)")

    return BestWeights


def _BestWeights(**kw):
    return _make_best_weights_class()(**kw)


def predict_probabilities(model, images_uint8: np.ndarray, batch_size: int = 256) -> np.ndarray:
    """Softmax outputs of a Keras model on cached ``uint8`` images (same scaling as inference)."""
    out = []
    for i in range(0, len(images_uint8), batch_size):
        out.append(np.asarray(model(scale(images_uint8[i:i + batch_size]), training=False)))
    if not out:
        return np.zeros((0, model.output_shape[-1]), np.float32)
    return np.concatenate(out)


def save_model(model, metadata: dict, out_dir: Path, name: str) -> dict:
    """Write ``<name>.keras`` and ``<name>.json``; adds file size and parameter count to the metadata."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    keras_path = out_dir / f"{name}.keras"
    model.save(keras_path)
    metadata = dict(metadata)
    metadata["name"] = name
    metadata["parameters"] = int(model.count_params())
    metadata["file"] = {"name": keras_path.name, "bytes": keras_path.stat().st_size}
    write_metadata(out_dir / f"{name}.json", metadata)
    return metadata


def write_metadata(path: Path, metadata: dict) -> None:
    path = Path(path)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(metadata, indent=2, sort_keys=False) + "\n")
    tmp.replace(path)


def machine_description() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def framework_versions() -> dict:
    import keras  # deferred on purpose: TensorFlow takes seconds to import
    import tensorflow as tf

    return {"tensorflow": tf.__version__, "keras": keras.__version__, "numpy": np.__version__}
