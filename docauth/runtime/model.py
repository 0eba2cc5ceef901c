"""Model files and the backend-independent model handle."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from concurrent.futures import Future
from typing import Any, Callable

import numpy as np

from docauth.config import default_models_dir
from docauth.errors import ModelError


@dataclass(frozen=True)
class ModelPaths:
    keras: Path
    onnx: Path
    metadata: Path


def model_paths(name: str, models_dir: str | Path | None = None) -> ModelPaths:
    d = Path(models_dir) if models_dir else default_models_dir()
    return ModelPaths(keras=d / f"{name}.keras", onnx=d / f"{name}.onnx", metadata=d / f"{name}.json")


def save_model_files(model, out_dir: str | Path, metadata: dict) -> dict:
    """``<out_dir>/<name>.keras`` and ``<name>.json`` (``metadata["name"]``), as the runtime layer loads them."""
    paths = model_paths(metadata["name"], out_dir)
    paths.keras.parent.mkdir(parents=True, exist_ok=True)
    model.save(paths.keras)
    paths.metadata.write_text(json.dumps(metadata, indent=2) + "\n")
    return metadata


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
        inp = self.metadata["input"]
        return (int(inp["height"]), int(inp["width"]), int(inp.get("channels", 3)))

    def predict(self, batch: np.ndarray) -> np.ndarray:
        batch = np.ascontiguousarray(batch, dtype=np.float32)
        if batch.ndim == 3:
            batch = batch[None]
        if batch.shape[1:] != self.input_shape:
            raise ModelError(
                f"{self.name}: input batch has shape {batch.shape[1:]}, model expects {self.input_shape}"
            )
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


def load_model(
    name: str,
    *,
    models_dir: str | Path | None = None,
    backend: str | None = None,
    mode: str | None = None,
) -> InferenceModel:
    """Load ``models/<name>`` on the requested backend.

    ``backend="auto"`` picks the backend chosen by the deployment profile (see
    :mod:`docauth.runtime.tuning`) when it matches this machine, else runs a
    short tune (skipped with ``DOCAUTH_AUTOTUNE=0``), and falls back to the
    Keras compiled-function backend if the choice cannot load. ``mode=None``
    (or ``backend=None``) takes the value from settings (``DOCAUTH_MODE``).
    ``backend=None`` means ``DOCAUTH_BACKEND``, default ``auto``.
    ``mode="throughput"`` puts a micro-batcher in front of the backend.
    """
    from docauth.runtime import backends

    return backends.load(name, models_dir=models_dir, backend=backend, mode=mode)


def verify_model_files(names, models_dir: str | Path | None = None) -> None:
    """Cheap start-up check without importing any framework (safe before a fork).

    Each model's metadata must parse and name its input and labels; its
    ``.keras`` file must be an intact zip archive (every member's CRC checked).
    Raises :class:`ModelError` naming the file, so ``docauth serve`` refuses to
    start instead of running workers that can never become ready.
    """
    import zipfile

    for name in names:
        paths = model_paths(name, models_dir)
        metadata = load_metadata(name, models_dir)
        if not isinstance(metadata, dict) or "input" not in metadata or "labels" not in metadata:
            raise ModelError(f"model metadata file lacks 'input' or 'labels': {paths.metadata}")
        if not paths.keras.is_file():
            raise ModelError(f"model file missing: {paths.keras}")
        try:
            with zipfile.ZipFile(paths.keras) as archive:
                bad_member = archive.testzip()
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise ModelError(f"model file is corrupt: {paths.keras}: {exc}") from exc
        if bad_member is not None:
            raise ModelError(f"model file is corrupt: {paths.keras}: member {bad_member} fails its checksum")
        if paths.onnx.exists() and paths.onnx.stat().st_size == 0:
            raise ModelError(f"model file is empty: {paths.onnx}")
