"""Every backend answers like Keras on the same inputs.

fp32 backends: max abs difference of the probabilities <= 1e-4 and equal argmax.
bf16 (OpenVINO INFERENCE_PRECISION_HINT=bf16, only on CPUs with AVX512_BF16/AMX):
max abs difference <= BF16_ATOL and argmax agreement >= BF16_MIN_AGREEMENT; bf16
keeps 8 bits of mantissa (~3 significant digits); over a dozen layers the
probabilities of a trained classifier move by up to ~0.02 (measured on the
interim document/side models: 6e-3 and 2e-2, argmax unchanged), and only
near-ties may flip.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from docauth.errors import ConfigError, ModelError
from docauth.runtime import load_model, model_paths
from docauth.runtime.engines.base import BackendSpec
from docauth.runtime.export import export_onnx
from docauth.runtime.probe import cached_probe
from docauth.runtime.inputs import sample_inputs, scaled_for
from docauth.runtime.untrained import build_untrained_model

FP32_ATOL = 1e-4
BF16_ATOL = 5e-2  # = docauth.runtime.tuning.ACCURACY_ATOL
BF16_MIN_AGREEMENT = 0.95
SHAPE = (48, 48, 3)


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    models_dir = tmp_path_factory.mktemp("models")
    build_untrained_model(models_dir, "standin", height=SHAPE[0], width=SHAPE[1], labels=("a", "b", "c", "d"))
    result = export_onnx("standin", models_dir)
    inputs = sample_inputs(SHAPE, 24, seed=3)
    import keras

    keras_model = keras.saving.load_model(model_paths("standin", models_dir).keras, compile=False)
    reference = np.asarray(keras_model.predict(inputs, verbose=0))
    return models_dir, inputs, reference, result


@pytest.fixture(autouse=True)
def _no_startup_tune(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCAUTH_AUTOTUNE", "0")
    monkeypatch.setenv("DOCAUTH_DATA_DIR", str(tmp_path))


def test_export_refuses_an_onnx_graph_that_answers_differently(tmp_path, monkeypatch):
    """Fault injected: the converter hands back another model's graph (same shapes, other weights)."""
    import docauth.runtime.export as export

    build_untrained_model(tmp_path, "standin", height=SHAPE[0], width=SHAPE[1], labels=("a", "b", "c", "d"))
    build_untrained_model(tmp_path / "other", "standin", height=SHAPE[0], width=SHAPE[1], labels=("a", "b", "c", "d"),
                        seed=11)
    import keras

    other = keras.saving.load_model(model_paths("standin", tmp_path / "other").keras, compile=False)
    real_convert = export._convert_tf2onnx
    monkeypatch.setattr(export, "_convert_tf2onnx", lambda model, shape, out: real_convert(other, shape, out))
    with pytest.raises(ModelError, match="differs from Keras"):
        export_onnx("standin", tmp_path)
    assert not model_paths("standin", tmp_path).onnx.exists()


def test_export_writes_onnx_with_parity_and_source_hash(standin):
    models_dir, _, _, result = standin
    assert model_paths("standin", models_dir).onnx.is_file()
    assert result.max_abs_diff <= FP32_ATOL and result.argmax_agreement == 1.0
    import onnx

    props = {p.key: p.value for p in onnx.load(result.path).metadata_props}
    from docauth.runtime.engines.base import file_sha256

    assert props["docauth.source_sha256"] == file_sha256(model_paths("standin", models_dir).keras)
    mask = os.umask(0)
    os.umask(mask)
    assert os.stat(result.path).st_mode & 0o777 == 0o666 & ~mask  # like any new file, not mkstemp's 0600


FP32_BACKENDS = [
    ("keras_tf", "realtime"),
    ("onnxruntime", "realtime"),
    ("onnxruntime:threads=1", "realtime"),
    ("onnxruntime", "throughput"),
    ("openvino", "realtime"),
    ("openvino", "throughput"),  # THROUGHPUT hint: batch split over an AsyncInferQueue
    ("openvino:hint=LATENCY", "throughput"),
]


@pytest.mark.parametrize("backend,mode", FP32_BACKENDS)
def test_fp32_backend_matches_keras(standin, backend, mode):
    models_dir, inputs, reference, _ = standin
    model = load_model("standin", models_dir=models_dir, backend=backend, mode=mode)
    try:
        whole = model.predict(inputs)
        one = model.predict(inputs[5])  # a single HWC image
    finally:
        model.close()
    assert whole.shape == reference.shape and whole.dtype == np.float32
    assert np.max(np.abs(whole - reference)) <= FP32_ATOL
    assert np.array_equal(whole.argmax(-1), reference.argmax(-1))
    assert np.max(np.abs(one[0] - reference[5])) <= FP32_ATOL
    assert model.labels == ["a", "b", "c", "d"]


def test_inputs_spread_over_classes(standin):
    """The parity inputs must not all land in one class, or argmax checks would prove nothing."""
    _, _, reference, _ = standin
    assert len(set(reference.argmax(-1).tolist())) >= 2


@pytest.mark.skipif(not cached_probe().supports_bf16, reason="CPU has no AVX512_BF16/AMX")
@pytest.mark.parametrize("mode", ["realtime", "throughput"])
def test_openvino_bf16_within_stated_tolerance(standin, mode):
    models_dir, inputs, reference, _ = standin
    model = load_model("standin", models_dir=models_dir, backend="openvino:precision=bf16", mode=mode)
    try:
        out = model.predict(inputs)
    finally:
        model.close()
    assert model.details["inference_precision"] == "bf16"
    diff = np.max(np.abs(out - reference))
    assert diff <= BF16_ATOL
    assert np.mean(out.argmax(-1) == reference.argmax(-1)) >= BF16_MIN_AGREEMENT
    assert diff > 0  # it really ran in reduced precision


def test_throughput_mode_batches_concurrent_callers(standin):
    from concurrent.futures import ThreadPoolExecutor

    models_dir, inputs, reference, _ = standin
    model = load_model("standin", models_dir=models_dir, backend="onnxruntime", mode="throughput")
    try:
        with ThreadPoolExecutor(max_workers=12) as pool:
            outs = list(pool.map(lambda i: model.predict(inputs[i]), range(len(inputs))))
        stats = model.describe()["batching"]
    finally:
        model.close()
    got = np.concatenate(outs)
    assert np.max(np.abs(got - reference)) <= FP32_ATOL
    assert stats["items_run"] == len(inputs)
    assert stats["batches_run"] < len(inputs)


def test_stale_onnx_is_refused(standin, tmp_path):
    models_dir, _, _, _ = standin
    import shutil

    for suffix in (".keras", ".json", ".onnx"):
        shutil.copy(models_dir / f"standin{suffix}", tmp_path / f"standin{suffix}")
    build_untrained_model(tmp_path, "standin", height=SHAPE[0], width=SHAPE[1], labels=("a", "b", "c", "d"), seed=9)
    for backend in ("onnxruntime", "openvino"):
        with pytest.raises(ModelError, match="stale"):
            load_model("standin", models_dir=tmp_path, backend=backend)
    # auto falls back to a backend that reads the Keras file itself
    model = load_model("standin", models_dir=tmp_path, backend="auto")
    assert model.backend_name == "keras_tf"


def test_wrong_input_shape_and_unknown_backend(standin):
    models_dir, inputs, _, _ = standin
    model = load_model("standin", models_dir=models_dir, backend="onnxruntime")
    with pytest.raises(ModelError, match="expects"):
        model.predict(np.zeros((1, 10, 10, 3), np.float32))
    with pytest.raises(ConfigError):
        load_model("standin", models_dir=models_dir, backend="tpu")
    with pytest.raises(ConfigError):
        BackendSpec.parse("openvino:precision=fp8")


def test_missing_model_is_a_model_error(tmp_path):
    with pytest.raises(ModelError):
        load_model("nothing", models_dir=tmp_path, backend="onnxruntime")


SHIPPED = [n for n in ("document", "side", "mrz_lines", "outline")
           if model_paths(n).keras.is_file() and model_paths(n).onnx.is_file() and model_paths(n).metadata.is_file()]


@pytest.mark.parametrize("name", SHIPPED or [pytest.param("none", marks=pytest.mark.skip("no shipped models"))])
def test_shipped_model_onnx_matches_keras(name):
    reference_model = load_model(name, backend="keras_tf")
    x = scaled_for(reference_model.metadata, sample_inputs(reference_model.input_shape, 8, seed=5))
    reference = reference_model.predict(x)
    for backend in ("onnxruntime", "openvino"):
        try:
            model = load_model(name, backend=backend)
        except ModelError as exc:
            pytest.fail(f"{backend}: {exc.message} (run `docauth export`)")
        out = model.predict(x)
        assert np.max(np.abs(out - reference)) <= FP32_ATOL, backend
        assert np.array_equal(out.argmax(-1), reference.argmax(-1)), backend


def test_openvino_keeps_what_it_compiled_for_the_next_start(standin, tmp_path, monkeypatch):
    models_dir, inputs, reference, _ = standin
    cache = tmp_path / "compiled-models"  # beside the runtime profile in the data dir (the fixture's tmp_path)

    def answers() -> np.ndarray:
        model = load_model("standin", models_dir=models_dir, backend="openvino", mode="realtime")
        try:
            return model.predict(inputs)
        finally:
            model.close()

    first = answers()
    kept = {p.name: p.stat().st_mtime_ns for p in cache.iterdir()}
    assert kept  # the batch-1 and the any-batch compilations
    again = answers()
    assert {p.name: p.stat().st_mtime_ns for p in cache.iterdir()} == kept  # read back, not compiled anew
    assert np.array_equal(first, again) and np.max(np.abs(again - reference)) <= FP32_ATOL
    # A data dir where nothing can be kept: the model compiles at every start, and still loads.
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("DOCAUTH_DATA_DIR", str(blocked))
    assert np.array_equal(answers(), first)


def test_engines_that_do_not_compile_leave_no_compiled_models_folder(standin, tmp_path):
    models_dir, inputs, _, _ = standin
    load_model("standin", models_dir=models_dir, backend="onnxruntime", mode="realtime").close()
    assert not (tmp_path / "compiled-models").exists()
