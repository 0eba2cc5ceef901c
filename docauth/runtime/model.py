"""Model files and the backend-independent model handle."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

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
        return np.asarray(self._run(batch), dtype=np.float32)

    __call__ = predict


def load_model(
    name: str,
    *,
    models_dir: str | Path | None = None,
    backend: str = "auto",
    mode: str = "realtime",
) -> InferenceModel:
    """Load ``models/<name>`` on the requested backend.

    ``backend="auto"`` picks the backend chosen by the deployment profile (see
    :mod:`docauth.runtime.tuning`) when one exists, else falls back to the
    Keras compiled-function backend.
    """
    from docauth.runtime import backends

    return backends.load(name, models_dir=models_dir, backend=backend, mode=mode)
