"""Keras -> ONNX export, verified against Keras before the file is kept.

``models/<name>.onnx`` is written beside ``<name>.keras`` with a dynamic batch
axis and the sha256 of its source recorded in its metadata
(``docauth.source_sha256``), so a retrained Keras model makes a stale ONNX file
detectable. tf2onnx converts; Keras' own ``model.export(format="onnx")`` is the
fallback. Parity: ONNX Runtime output on image-like inputs must match Keras
within ``PARITY_ATOL`` on the model's own input scale (``OFF_SCALE_PARITY_ATOL``
on the others) with equal argmax, else the file is not written.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from docauth.errors import ModelError
from docauth.runtime.engines.base import file_sha256, input_hwc
from docauth.runtime.engines.keras_tf import ensure_threading, load_keras_model
from docauth.runtime.engines.onnx_runtime import SOURCE_SHA_KEY, ort_errors
from docauth.runtime.inputs import sample_inputs, scaled_for
from docauth.runtime.model import load_metadata, model_paths, record_checksums

PARITY_ATOL = 1e-4  # on inputs scaled as the metadata says (what the model will see)
# On the other scales (0..255 fed to a 0..1 model) activations run far outside training and float32 rounding
# grows with them; a wrong graph still differs by orders of magnitude more (tenths, not thousandths).
OFF_SCALE_PARITY_ATOL = 1e-3
OPSET = 17


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@dataclass
class ExportResult:
    name: str
    path: str
    method: str
    seconds: float
    max_abs_diff: float
    argmax_agreement: float
    samples: int

    def export(self) -> dict:
        return asdict(self)


def _convert_tf2onnx(model, shape, out: Path):
    import tensorflow as tf  # deferred on purpose: TensorFlow takes seconds to import
    import tf2onnx

    spec = (tf.TensorSpec((None, *shape), tf.float32, name="input"),)
    proto, _ = tf2onnx.convert.from_keras(model, input_signature=spec, opset=OPSET)
    return proto


def _convert_keras(model, shape, out: Path):
    import onnx  # deferred on purpose: only the ONNX tooling needs it

    tmp = out.with_suffix(".keras-export.onnx")
    try:
        model.export(str(tmp), format="onnx", verbose=False)
        return onnx.load(str(tmp))
    finally:
        tmp.unlink(missing_ok=True)


def export_onnx(name: str, models_dir=None, *, samples: int = 16) -> ExportResult:
    ensure_threading("throughput")
    try:
        import onnx  # deferred on purpose: only the ONNX tooling needs it
        from docauth.runtime.ort_env import import_ort

        ort = import_ort()
    except ImportError as exc:
        raise ModelError(f"ONNX export needs onnx and onnxruntime (pip install 'docauth[export]'): {exc}") from exc

    paths = model_paths(name, models_dir)
    metadata = load_metadata(name, models_dir)
    shape = input_hwc(metadata)
    model = load_keras_model(paths.keras)
    started = time.perf_counter()
    errors = []
    proto, method = None, None
    for method_name, convert in (("tf2onnx", _convert_tf2onnx), ("keras", _convert_keras)):
        try:
            proto = convert(model, shape, paths.onnx)
            method = method_name
            break
        except (ImportError, ValueError, TypeError, RuntimeError, NotImplementedError, KeyError,
                AttributeError) as exc:
            errors.append(f"{method_name}: {type(exc).__name__}: {exc}")
    if proto is None:
        raise ModelError(f"{name}: ONNX export failed: " + " | ".join(errors))
    entry = proto.metadata_props.add()
    entry.key, entry.value = SOURCE_SHA_KEY, file_sha256(paths.keras)
    entry = proto.metadata_props.add()
    entry.key, entry.value = "docauth.model_version", str(metadata.get("version", ""))

    try:
        fd, tmp_name = tempfile.mkstemp(dir=paths.onnx.parent, prefix=f".{name}-", suffix=".onnx")
    except OSError as exc:
        raise ModelError(f"cannot write beside {paths.keras}: {exc}") from exc
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        onnx.save(proto, str(tmp))
        # on the scale the metadata names, and on both usual scales (0..1 and 0..255), so the check sees
        # unsaturated activations whatever the preprocessing text says
        raw = sample_inputs(shape, samples, seed=7)
        h, q = samples // 2, 3 * samples // 4
        x = np.concatenate([scaled_for(metadata, raw[:h]), raw[h:q] / np.float32(255.0), raw[q:]]).astype(np.float32)
        expected = np.asarray(model(x, training=False))
        so = ort.SessionOptions()
        so.log_severity_level = 3
        try:
            session = ort.InferenceSession(str(tmp), so, providers=["CPUExecutionProvider"])
            got = session.run(None, {session.get_inputs()[0].name: x})[0]
        except ort_errors() as exc:
            raise ModelError(f"{name}: exported ONNX does not load in ONNX Runtime: {exc}") from exc
        gap = np.abs(got - expected)
        diff = float(np.max(gap))
        on_scale = float(np.max(gap[:h]))
        agree = float(np.mean(got.argmax(-1) == expected.argmax(-1)))
        if on_scale > PARITY_ATOL or diff > OFF_SCALE_PARITY_ATOL or agree < 1.0:
            raise ModelError(f"{name}: ONNX export differs from Keras (max abs diff {diff:.2e}, "
                             f"argmax agreement {agree:.3f}); not written")
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a model file is as readable as its .keras
        os.replace(tmp, paths.onnx)
    finally:
        tmp.unlink(missing_ok=True)
    record_checksums(name, models_dir)  # the service serves only files whose SHA-256 its metadata records
    return ExportResult(name=name, path=str(paths.onnx), method=method,
                        seconds=round(time.perf_counter() - started, 2), max_abs_diff=diff,
                        argmax_agreement=agree, samples=samples)
