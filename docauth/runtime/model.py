"""Model files and the backend-independent model handle."""

from __future__ import annotations

import json
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from docauth.config import default_models_dir
from docauth.errors import ModelError
from docauth.runtime.engines.base import file_sha256


@dataclass(frozen=True)
class ModelPaths:
    keras: Path
    onnx: Path
    metadata: Path


def model_paths(name: str, models_dir: str | Path | None = None) -> ModelPaths:
    d = Path(models_dir) if models_dir else default_models_dir()
    return ModelPaths(keras=d / f"{name}.keras", onnx=d / f"{name}.onnx", metadata=d / f"{name}.json")


def save_model_files(model, out_dir: str | Path, metadata: dict) -> dict:
    """``<out_dir>/<name>.keras`` and ``<name>.json`` (``metadata["name"]``, with the files' SHA-256), as the
    runtime layer loads them."""
    paths = model_paths(metadata["name"], out_dir)
    paths.keras.parent.mkdir(parents=True, exist_ok=True)
    model.save(paths.keras)
    paths.metadata.write_text(json.dumps(metadata, indent=2) + "\n")
    return record_checksums(metadata["name"], out_dir)


def load_metadata(name: str, models_dir: str | Path | None = None) -> dict:
    path = model_paths(name, models_dir).metadata
    try:
        return json.loads(path.read_text())
    except FileNotFoundError as exc:
        raise ModelError(f"model metadata file missing: {path}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(f"model metadata file is corrupt: {path}: {exc}") from exc


@dataclass
class InferenceModel:
    """A loaded model on some backend: ``predict(batch) -> probabilities``."""

    name: str
    metadata: dict
    backend_name: str
    mode: str
    _run: Callable[[np.ndarray], np.ndarray] = field(repr=False)
    reason: str = ""
    spec: str = ""  # the backend with its options, e.g. "openvino:precision=bf16"
    details: dict = field(default_factory=dict, repr=False)  # engine facts for doctor/metrics
    batcher: Any = field(default=None, repr=False)  # MicroBatcher in throughput mode
    _close: Callable[[], None] | None = field(default=None, repr=False)

    @property
    def labels(self) -> list[str]:
        return list(self.metadata["labels"])

    @property
    def input_shape(self) -> tuple[int, int, int]:
        """(height, width, channels); for a model with ``dynamic`` sides, a typical input's (the tuner's)."""
        inp = self.metadata["input"]
        return (int(inp["height"]), int(inp["width"]), int(inp.get("channels", 3)))

    def predict(self, batch: np.ndarray) -> np.ndarray:
        batch = np.ascontiguousarray(batch, dtype=np.float32)
        if batch.ndim == 3:
            batch = batch[None]
        expected = expected_sample_shape(self.metadata)
        if batch.ndim != 4 or any(want is not None and got != want for got, want in zip(batch.shape[1:], expected)):
            shown = tuple("any" if want is None else want for want in expected)
            raise ModelError(f"{self.name}: input batch has shape {batch.shape[1:]}, model expects {shown}")
        if self.batcher is not None:
            return np.asarray(self.batcher(batch), dtype=np.float32)
        return np.asarray(self._run(batch), dtype=np.float32)

    __call__ = predict

    def submit(self, batch: np.ndarray) -> Future:
        """Asynchronous predict; in throughput mode the request joins the micro-batcher's queue."""
        batch = np.ascontiguousarray(batch, dtype=np.float32)
        if batch.ndim == 3:
            batch = batch[None]
        if self.batcher is not None:
            return self.batcher.submit(batch)
        future: Future = Future()
        future.set_result(self.predict(batch))
        return future

    @property
    def queue_depth(self) -> int:
        return self.batcher.queue_depth if self.batcher is not None else 0

    def describe(self) -> dict:
        out = {"name": self.name, "backend": self.backend_name, "spec": self.spec, "mode": self.mode,
               "reason": self.reason, "input_shape": list(self.input_shape), "details": self.details}
        if self.batcher is not None:
            out["batching"] = self.batcher.stats()
        return out

    def close(self) -> None:
        if self.batcher is not None:
            self.batcher.close()
        if self._close is not None:
            self._close()


def expected_sample_shape(metadata: dict) -> tuple[int | None, int | None, int | None]:
    """One sample's shape in the model's layout, None where the metadata lists the side as ``dynamic``.

    >>> expected_sample_shape({"input": {"height": 48, "width": 320, "channels": 3, "layout": "NCHW",
    ...                                  "dynamic": ["batch", "width"]}})
    (3, 48, None)
    >>> expected_sample_shape({"input": {"height": 128, "width": 128, "channels": 3}})
    (128, 128, 3)
    """
    inp = metadata["input"]
    dynamic = set(inp.get("dynamic", ()))
    h = None if "height" in dynamic else int(inp["height"])
    w = None if "width" in dynamic else int(inp["width"])
    c = int(inp.get("channels", 3))
    return (c, h, w) if inp.get("layout") == "NCHW" else (h, w, c)


def onnx_only(metadata: dict) -> bool:
    """A model shipped as ONNX alone (no Keras source): the TensorFlow backends cannot run it."""
    return metadata.get("format") == "onnx"


def version_file(name: str, models_dir: str | Path | None = None) -> Path:
    """The file a model's version is known by: its ``.keras`` (the ``.onnx`` is exported from it), or the
    ``.onnx`` of an ONNX-only model."""
    paths = model_paths(name, models_dir)
    return paths.onnx if onnx_only(load_metadata(name, models_dir)) else paths.keras


SHA256_KEY = "sha256"  # models/<name>.json: {"sha256": {"<name>.keras": "<hex>", "<name>.onnx": "<hex>"}}


def model_files(name: str, models_dir: str | Path | None = None) -> list[Path]:
    """The model's weight files that exist: ``<name>.keras`` and ``<name>.onnx``."""
    paths = model_paths(name, models_dir)
    return [p for p in (paths.keras, paths.onnx) if p.is_file()]


def record_checksums(name: str, models_dir: str | Path | None = None) -> dict:
    """Write the SHA-256 of every existing ``.keras`` / ``.onnx`` of ``name`` into its ``.json`` (replacing
    what was recorded: a file that is gone is dropped); returns the metadata written. Run after any model
    file is written (``docauth export`` and the model writers do)."""
    paths = model_paths(name, models_dir)
    metadata = load_metadata(name, models_dir)
    if not isinstance(metadata, dict):
        raise ModelError(f"model metadata file is not a JSON object: {paths.metadata}")
    metadata[SHA256_KEY] = {p.name: file_sha256(p) for p in model_files(name, models_dir)}
    tmp = paths.metadata.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(metadata, indent=2) + "\n")
    tmp.replace(paths.metadata)
    return metadata


def verify_file(path: Path, metadata: dict, *, required: bool = True) -> None:
    """Raise :class:`ModelError` naming ``path`` unless its SHA-256 is the one its metadata records.

    ``required=False``: a file the metadata records nothing for passes (models written by code that predates
    checksums, in tests); a recorded hash is always checked.
    """
    recorded = metadata.get(SHA256_KEY) if isinstance(metadata, dict) else None
    expected = recorded.get(path.name) if isinstance(recorded, dict) else None
    if expected is None:
        if required:
            raise ModelError(f"model file {path} has no SHA-256 in its metadata, so it cannot be verified; "
                             f"run `docauth export --checksums-only` after checking the file")
        return
    if not path.is_file():
        raise ModelError(f"model file missing: {path}")
    actual = file_sha256(path)
    if actual != expected:
        raise ModelError(f"model file is corrupt or replaced: {path} (SHA-256 {actual[:12]}..., its metadata "
                         f"records {str(expected)[:12]}...)")


def verify_model_files(names, models_dir: str | Path | None = None) -> None:
    """Start-up check without importing any framework (safe before a fork).

    Each model's metadata must parse, name its input and labels and record a SHA-256 for every ``.keras`` /
    ``.onnx`` of the model (the ``.keras`` must exist, or the ``.onnx`` of an ONNX-only model); every recorded
    file must exist and match. Raises :class:`ModelError` naming the file, so ``docauth serve`` refuses to
    start instead of serving an unverified model or running workers that can never become ready.
    """
    for name in names:
        paths = model_paths(name, models_dir)
        metadata = load_metadata(name, models_dir)
        if not isinstance(metadata, dict) or "input" not in metadata or "labels" not in metadata:
            raise ModelError(f"model metadata file lacks 'input' or 'labels': {paths.metadata}")
        weights = paths.onnx if onnx_only(metadata) else paths.keras
        if not weights.is_file():
            raise ModelError(f"model file missing: {weights}")
        recorded = metadata.get(SHA256_KEY)
        if not isinstance(recorded, dict) or not recorded:
            raise ModelError(f"model metadata file records no SHA-256 of its files: {paths.metadata}; "
                             f"run `docauth export --checksums-only` after checking the files")
        for file_name in recorded:
            if file_name not in (paths.keras.name, paths.onnx.name):
                raise ModelError(f"{paths.metadata} records a SHA-256 for {file_name}, not a file of {name}")
            verify_file(paths.metadata.parent / file_name, metadata)
        for path in model_files(name, models_dir):
            verify_file(path, metadata)  # a file present but not recorded is refused too
