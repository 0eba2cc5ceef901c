"""Loading a model: the one place that turns a name, a backend request and a mode into an
:class:`~docauth.runtime.model.InferenceModel`.

``backend="auto"`` asks :mod:`docauth.runtime.tuning` for the measured choice and falls back down a
safe ranking (:mod:`docauth.runtime.backends`) when it cannot load; the throughput mode puts a
micro-batcher (:mod:`docauth.runtime.batching`) in front of the engine.
"""

from __future__ import annotations

import logging
from pathlib import Path

from docauth.config import Settings
from docauth.errors import ConfigError, DocauthError, ModelError
from docauth.runtime import backends, tuning
from docauth.runtime.batching import BatchingConfig, MicroBatcher
from docauth.runtime.engines.base import BackendSpec
from docauth.runtime.model import InferenceModel, load_metadata, onnx_only

log = logging.getLogger(__name__)

COMPILED_CACHE_DIR = "compiled-models"


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
    return load(name, models_dir=models_dir, backend=backend, mode=mode)



def load(name: str, *, models_dir: str | Path | None = None, backend: str | None = "auto",
         mode: str | None = None, settings: Settings | None = None) -> InferenceModel:
    settings = settings or Settings.load(mode=mode, backend=backend)
    mode = mode or settings.mode
    backend = backend or settings.backend
    if mode not in backends.MODES:
        raise ConfigError(f"mode must be one of {backends.MODES}, not {mode!r}")
    models_dir = models_dir or settings.models_dir
    metadata = load_metadata(name, models_dir)
    _check_metadata(name, metadata)
    batch_size = None
    if backend == "auto":
        choice = tuning.auto_choice(name, models_dir=models_dir, mode=mode, settings=settings)
        runner, spec, reason = _load_first(choice.specs, name, metadata, models_dir, mode, choice.reason,
                                           compiled_cache(settings))
        batch_size = choice.batch_size
    else:
        spec = backends.resolve_spec(backend)
        runner = backends.load_spec(spec, name, metadata, models_dir, mode, compiled_cache(settings))
        reason = f"backend {spec.key} requested explicitly"
    model = InferenceModel(name=name, metadata=metadata, backend_name=runner.backend, mode=mode, _run=runner.run,
                           reason=reason, spec=spec.key, details=runner.details, _close=runner.close)
    if mode == "throughput":
        size = settings.max_batch_size
        if batch_size and settings.max_batch_size == Settings.max_batch_size:  # the operator did not set one
            size = batch_size
        model.batcher = MicroBatcher(runner.run, BatchingConfig(size, settings.max_queue_delay_ms),
                                     sample_ndim=None, name=f"{name}-batcher")
    return model


def compiled_cache(settings: Settings) -> Path:
    """Where the served models' compiled forms are kept between starts (a kiosk's, a worker's): beside the
    runtime profile. Only an engine that compiles (OpenVINO) makes the folder. The tuner's trial configurations
    are not kept."""
    return Path(settings.data_dir) / COMPILED_CACHE_DIR


def _load_first(specs: list[BackendSpec], name, metadata, models_dir, mode, reason, cache: Path | None = None):
    """Try the choice, then the ranking behind it; the Keras CPU backend is the last resort (for a model that
    has a Keras source)."""
    failures = []
    ordered = list(dict.fromkeys(list(specs) + [backends.FALLBACK]))
    if onnx_only(metadata):
        ordered = [s for s in ordered if s.name not in backends.KERAS_ENGINES]
    for i, spec in enumerate(ordered):
        try:
            runner = backends.load_spec(spec, name, metadata, models_dir, mode, cache)
        except DocauthError as exc:
            failures.append(f"{spec.key}: {exc.message}")
            log.warning("runtime: %s could not load %s: %s", spec.key, name, exc.message)
            continue
        if i == 0:
            return runner, spec, reason
        return runner, spec, f"{reason}; fell back to {spec.key} because " + "; ".join(failures)
    raise ModelError(f"no backend could load {name}: " + "; ".join(failures))


def _check_metadata(name: str, metadata: dict) -> None:
    try:
        inp = metadata["input"]
        int(inp["height"]), int(inp["width"])
        if not metadata["labels"]:
            raise ValueError("no labels")
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"{name}: metadata lacks input height/width or labels ({exc})") from exc
