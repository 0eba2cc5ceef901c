"""``docauth train classifiers``: data -> both models -> files with complete metadata -> evaluation.

Kept apart from the click command so the batch-size study and tests call the same code.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from pathlib import Path

from docauth.classifiers import preprocess
from docauth.training.classifiers.architecture import DEFAULT_STAGES
from docauth.training.classifiers.data import (
    DOCUMENT_LABELS,
    SIDE_LABELS,
    SUBSETS,
    LabelledImages,
    generator_version,
    subset_module,
    synthetic_set,
)
from docauth.training.classifiers.train import (
    MODEL_VERSION,
    TrainConfig,
    framework_versions,
    machine_description,
    predict_probabilities,
    save_model,
    train_classifier,
    write_metadata,
)

TASKS = {
    "document": {"labels": DOCUMENT_LABELS, "description": "binary: is the image an identity document"},
    "side": {"labels": SIDE_LABELS,
             "description": "which side a document shows (card front, card back, open passport/booklet); "
                            "trained and meaningful on documents only"},
}

AUGMENTATION = [
    "rot90 by k=0..3 (each quarter of a shuffled batch, random offset)",
    "brightness +-0.12", "contrast x0.75-1.25", "saturation x0.6-1.4 (per image)",
    "no flips (mirrored documents do not occur); framing, blur, noise, JPEG come from the generator",
]


# Each supplementary subset draws from its own seed (train seed + offset, still in the TRAIN range): on the
# train seed itself, index i of "documents" or "both" would often repeat index i of the mix (same category,
# same random stream), i.e. duplicate images instead of new ones.
SUBSET_SEED_OFFSET = {"documents": 1, "both": 2, "extra": 3, "flat": 4, "lookalikes": 5, "realistic": 6}


@dataclass
class DataSpec:
    train_seed: int
    train_count: int
    val_seed: int
    val_count: int
    height: int = preprocess.INPUT_HEIGHT
    width: int = preprocess.INPUT_WIDTH
    # More training samples from the current generator, same seed, other subsets (see data.SUBSETS):
    documents_count: int = 0  # documents only (more material for the side model)
    both_count: int = 0  # front+back of a card in one image (document model only)
    extra_count: int = 0  # docauth.training.classifiers.photographs: photographs, stacked card scans
    flat_count: int = 0  # docauth.training.classifiers.flat_crops: tightly cropped flat card sides / data pages
    lookalikes_count: int = 0  # non-documents that look most like one (document model only)
    realistic_count: int = 0  # docauth.training.classifiers.realistic: documents drawn as real ones look
    # Validation samples of the realistic subset beside the mix (val seed + its offset): the best epoch is then
    # chosen on both worlds.
    val_realistic_count: int = 0
    # Training samples already cached from earlier generator versions: (version, seed, count, subset).
    extra_train: tuple[tuple[str, int, int, str], ...] = ()

    def parts(self) -> list[dict]:
        out = [{"subset": "mix", "seed": self.train_seed, "count": self.train_count, "generator_version": None}]
        for subset, count in (("documents", self.documents_count), ("both", self.both_count),
                              ("extra", self.extra_count), ("flat", self.flat_count),
                              ("lookalikes", self.lookalikes_count), ("realistic", self.realistic_count)):
            if count:
                out.append({"subset": subset, "seed": self.train_seed + SUBSET_SEED_OFFSET[subset], "count": count,
                            "generator_version": None})
        for version, seed, count, subset in self.extra_train:
            out.append({"subset": subset, "seed": seed, "count": count, "generator_version": version})
        return out


def load_data(spec: DataSpec, *, workers: int = 1, log=print) -> tuple[LabelledImages, LabelledImages]:
    parts = [synthetic_set(p["seed"], p["count"], height=spec.height, width=spec.width, workers=workers,
                           progress=log, version=p["generator_version"], subset=p["subset"])
             for p in spec.parts() if p["count"]]
    train = LabelledImages.concat(parts)
    val = synthetic_set(spec.val_seed, spec.val_count, height=spec.height, width=spec.width,
                        workers=workers, progress=log)
    if spec.val_realistic_count:
        val = LabelledImages.concat([val, synthetic_set(
            spec.val_seed + SUBSET_SEED_OFFSET["realistic"], spec.val_realistic_count, height=spec.height,
            width=spec.width, workers=workers, progress=log, subset="realistic")])
    return train, val


def describe_data(data: LabelledImages) -> dict:
    sides = {label: int((data.side == i).sum()) for i, label in enumerate(SIDE_LABELS)}
    return {"images": len(data), "documents": int((data.is_document == 1).sum()),
            "not_documents": int((data.is_document == 0).sum()), "sides": sides}


def train_task(task: str, train: LabelledImages, val: LabelledImages, config: TrainConfig, log=print,
               init_model=None, checkpoint: Path | None = None):
    x, y = train.task(task)
    vx, vy = val.task(task)
    log(f"training {task!r}: {len(x)} training / {len(vx)} validation images, batch {config.batch_size}, "
        f"{config.epochs} epochs, peak lr {config.learning_rate:g}"
        + (" (continuing from given weights)" if init_model is not None else ""))
    result = train_classifier(x, y, vx, vy, len(TASKS[task]["labels"]), config, name=task, log=log,
                              model=init_model, checkpoint=checkpoint)
    val_acc = None
    if len(vx):
        probs = predict_probabilities(result.model, vx)
        val_acc = float((probs.argmax(1) == vy).mean())
    return result, val_acc


def train_both(
    spec: DataSpec,
    config: TrainConfig,
    out_dir: Path,
    *,
    tasks: tuple[str, ...] = ("document", "side"),
    workers: int = 1,
    command: str = "",
    init_from: Path | None = None,
    log=print,
) -> dict[str, dict]:
    """Train and save the models; returns their metadata (without test metrics; see :func:`record_evaluation`).

    ``init_from``: a directory with ``<task>.keras`` to continue training from (fine-tuning a model
    trained on an earlier generator version) instead of random initial weights.
    """
    train, val = load_data(spec, workers=workers, log=log)
    version = generator_version()
    written = {}
    for task in tasks:
        init_model, init_note = None, None
        if init_from is not None:
            import keras  # deferred on purpose: TensorFlow takes seconds to import

            init_path = Path(init_from) / f"{task}.keras"
            init_model = keras.saving.load_model(init_path, compile=False)
            init_note = _describe_init(Path(init_from), task)
        result, val_acc = train_task(task, train, val, config, log=log, init_model=init_model)
        x, _ = train.task(task)
        vx, _ = val.task(task)
        metadata = {
            "name": task,
            "version": MODEL_VERSION,
            "task": TASKS[task]["description"],
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "input": {"height": spec.height, "width": spec.width, "channels": 3, "dtype": "float32",
                      "range": [0.0, 1.0], "layout": "NHWC", "color": "RGB"},
            "labels": TASKS[task]["labels"],
            "output": "softmax probabilities, one per label",
            "preprocessing": preprocess.describe(spec.height, spec.width),
            "architecture": {
                "type": "CNN from scratch: 3x3 stride-2 conv stem (24) + depthwise-separable conv stages "
                        "(BatchNorm, ReLU, stride 2 per stage) + global average pooling + dropout 0.2 + dense softmax",
                "stages": [list(s) for s in DEFAULT_STAGES],
            },
            "training": {
                "data": "docauth.synth.generate_sample(seed, index) for index in range(count)",
                "generator_version": version,
                "train_seed": spec.train_seed,
                "train_count": spec.train_count,
                "train_parts": [{**p, "generator_version": p["generator_version"] or version,
                                 "what": SUBSETS[p["subset"]], **subset_module(p["subset"])}
                                for p in spec.parts() if p["count"]],
                "initialised_from": init_note or "random (from scratch)",
                "train_images_used": len(x),
                "train_composition": describe_data(train if task == "document" else train.documents_only()),
                "validation_seed": spec.val_seed,
                "validation_count": spec.val_count,
                **({"validation_realistic": {"seed": spec.val_seed + SUBSET_SEED_OFFSET["realistic"],
                                             "count": spec.val_realistic_count, **subset_module("realistic")}}
                   if spec.val_realistic_count else {}),
                "validation_images_used": len(vx),
                "epochs": config.epochs,
                "best_epoch": result.best_epoch,
                "batch_size": config.batch_size,
                "learning_rate": config.learning_rate,
                "optimizer": f"AdamW (weight decay {config.weight_decay:g})",
                "schedule": f"linear warm-up over {config.warmup_fraction:.0%} of steps from 0.1x peak, "
                            "then cosine decay to 0.01x peak",
                "loss": "sparse categorical cross-entropy",
                "augmentation": AUGMENTATION if config.augment else [],
                "random_seed": config.seed,
                "threads": config.threads,
                "seconds": round(result.seconds, 1),
                "images_per_second": round(result.images_per_second, 1),
                "history": {k: [round(v, 5) for v in vals] for k, vals in result.history.items()},
                "machine": machine_description(),
                "frameworks": framework_versions(),
                "command": command,
            },
            "metrics": {"validation": {"accuracy": round(val_acc, 6) if val_acc is not None else None,
                                       "images": len(vx)}},
        }
        written[task] = save_model(result.model, metadata, out_dir, task)
        log(f"saved {out_dir}/{task}.keras ({written[task]['file']['bytes'] / 1024:.0f} KiB, "
            f"{written[task]['parameters']} parameters), validation accuracy {val_acc}")
    return written


def _describe_init(init_dir: Path, task: str) -> str:
    meta_path = init_dir / f"{task}.json"
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        training = meta.get("training", {})
        return (f"{init_dir / (task + '.keras')}: {training.get('summary') or 'see its metadata'}; "
                f"validation accuracy {meta.get('metrics', {}).get('validation', {}).get('accuracy')}")
    return str(init_dir / f"{task}.keras")


def record_evaluation(out_dir: Path, report: dict) -> None:
    """Write an evaluation report's numbers into ``document.json`` and ``side.json``."""
    out_dir = Path(out_dir)
    synthetic = report.get("synthetic")
    real = report.get("real") or {}
    for task in ("document", "side"):
        path = out_dir / f"{task}.json"
        if not path.is_file():
            continue
        metadata = json.loads(path.read_text())
        metrics = metadata.setdefault("metrics", {})
        if synthetic and task in synthetic:
            test = dict(synthetic[task])
            test["seed"] = synthetic["seed"]
            test["generator_version"] = synthetic.get("generator_version")
            metrics["test"] = test
        real_summary = {}
        spec = real.get("specimens")
        faces = real.get("faces")
        if task == "document":
            if spec:
                real_summary["specimens_document_rate"] = spec["document_rate"]
                real_summary["specimens"] = f"{spec['classified_as_document']}/{spec['count']}"
            if faces:
                real_summary["faces_not_document_rate"] = faces["not_document_rate"]
                real_summary["faces"] = f"{faces['classified_as_not_document']}/{faces['count']}"
        elif spec and spec.get("side_scored"):
            real_summary["specimens_side_accuracy"] = spec["side_accuracy"]
            real_summary["specimens_side"] = f"{spec['side_correct']}/{spec['side_scored']} (front/back/open truth)"
        if real_summary:
            metrics["real"] = real_summary
        metrics["evaluated"] = report.get("evaluated")
        # The numbers are the stage's (DocumentClassifier), which averages views of each image.
        metrics["evaluated_with"] = {"rotations_averaged": report.get("rotations_averaged", 1),
                                     "content_view": bool(report.get("content_view", False))}
        write_metadata(path, metadata)

