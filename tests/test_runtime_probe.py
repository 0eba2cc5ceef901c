"""Hardware probe and GPU selection. No GPU here or in CI: GPU paths run on *simulated* discovery only."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from docauth.config import Settings
from docauth.runtime import backends, loading, tuning
from docauth.runtime.engines.base import BackendSpec
from docauth.runtime.export import export_onnx
from docauth.runtime.probe import DeviceDiscovery, probe
from docauth.runtime.inputs import sample_inputs
from docauth.runtime.untrained import build_untrained_model


def simulated_gpu() -> DeviceDiscovery:
    """What discovery returns on a CUDA machine with onnxruntime-gpu and tensorflow[and-cuda]."""
    return DeviceDiscovery(
        tf_gpus=lambda: ["/physical_device:GPU:0"],
        ort_providers=lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"],
        ort_gpus=lambda: ["CUDAExecutionProvider:NVIDIA"],
        openvino_devices=lambda: ["CPU"],
    )


def no_accelerators() -> DeviceDiscovery:
    return DeviceDiscovery(tf_gpus=lambda: [], ort_providers=lambda: ["CPUExecutionProvider"],
                           ort_gpus=lambda: [], openvino_devices=lambda: ["CPU"])


def test_real_probe_reads_this_cpu():
    p = probe()
    assert p.physical_cores >= 1 and p.sockets >= 1 and p.logical_cpus >= p.physical_cores
    assert p.cpu_model
    assert set(p.isa) >= {"avx2", "avx512f", "avx512_bf16", "amx_tile"}
    assert "CPUExecutionProvider" in p.ort_providers
    exported = p.export()
    json.dumps(exported)  # JSON-safe
    assert exported["fingerprint"] == p.fingerprint() == probe().fingerprint()  # stable


def test_simulated_gpu_changes_fingerprint_and_availability():
    gpu, cpu = probe(simulated_gpu()), probe(no_accelerators())
    assert gpu.has_gpu and not cpu.has_gpu
    assert gpu.fingerprint() != cpu.fingerprint()
    available = {a.name: a.available for a in backends.availability(gpu)}
    assert available["tf_gpu"] and available["onnxruntime_cuda"]
    available = {a.name: a.available for a in backends.availability(cpu)}
    assert not available["tf_gpu"] and not available["onnxruntime_cuda"]


@pytest.mark.parametrize("mode", ["realtime", "throughput"])
def test_gpu_backends_become_candidates_only_with_a_gpu(mode):
    gpu_specs = [s.name for s in backends.candidates(probe(simulated_gpu()), mode)]
    assert gpu_specs[:2] == ["tf_gpu", "onnxruntime_cuda"]  # untuned ranking puts the GPU first
    assert gpu_specs[-1] == "keras_tf"
    cpu_specs = [s.name for s in backends.candidates(probe(no_accelerators()), mode)]
    assert "tf_gpu" not in cpu_specs and "onnxruntime_cuda" not in cpu_specs
    # without an exported ONNX file only TensorFlow backends are candidates
    assert {s.name for s in backends.candidates(probe(simulated_gpu()), mode, onnx_ready=False)} == {"tf_gpu",
                                                                                                     "keras_tf"}


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    models_dir = tmp_path_factory.mktemp("models")
    build_untrained_model(models_dir, "standin", height=32, width=32)
    export_onnx("standin", models_dir)
    return models_dir


def test_selection_picks_gpu_and_falls_back_safely_without_one(standin, tmp_path, monkeypatch):
    """Simulated discovery says GPU; the real TensorFlow/ORT here have none: loading must fall back cleanly."""
    gpu = probe(simulated_gpu())
    settings = Settings.load(data_dir=tmp_path, autotune=False)
    choice = tuning.auto_choice("standin", models_dir=standin, mode="realtime", settings=settings, probe=gpu)
    assert choice.source == "heuristic" and choice.specs[0].name == "tf_gpu"
    monkeypatch.setattr(tuning, "cached_probe", lambda: gpu)
    model = loading.load("standin", models_dir=standin, backend="auto", mode="realtime", settings=settings)
    try:
        assert model.backend_name not in ("tf_gpu", "onnxruntime_cuda")
        assert "fell back" in model.reason and "tf_gpu" in model.reason
        assert model.predict(sample_inputs((32, 32, 3), 2)).shape == (2, 3)
    finally:
        model.close()


def test_profile_choosing_gpu_on_gpu_machine_is_used(standin, tmp_path, monkeypatch):
    """A profile measured on the (simulated) GPU machine picks the GPU; on this machine it fails over."""
    gpu = probe(simulated_gpu())
    settings = Settings.load(data_dir=tmp_path, autotune=False)
    profile = {"version": tuning.PROFILE_VERSION, "created": "test", "fingerprint": gpu.fingerprint(),
               "per_model": {}, "measurements": [],
               "choice": {"realtime": {"spec": BackendSpec("onnxruntime_cuda").export(), "batch": 1,
                                       "reason": "fastest on the GPU"}}}
    tuning.write_profile(profile, tuning.profile_path(settings))
    choice = tuning.auto_choice("standin", models_dir=standin, mode="realtime", settings=settings, probe=gpu)
    assert choice.source == "profile" and choice.specs[0].name == "onnxruntime_cuda"
    monkeypatch.setattr(tuning, "cached_probe", lambda: gpu)
    model = loading.load("standin", models_dir=standin, backend="auto", mode="realtime", settings=settings)
    try:
        assert model.backend_name != "onnxruntime_cuda"
        assert "CUDAExecutionProvider" in model.reason  # why the profile's choice was not used
        np.testing.assert_equal(model.predict(sample_inputs((32, 32, 3), 1)).shape, (1, 3))
    finally:
        model.close()


def test_cuda_provider_keeps_fp32_unless_tf32_is_asked_for():
    from docauth.runtime.engines.onnx_runtime import provider_list

    (name, options), fallback = provider_list(BackendSpec.parse("onnxruntime_cuda"), "realtime")
    assert name == "CUDAExecutionProvider" and fallback == "CPUExecutionProvider"
    assert options == {"device_id": 0, "use_tf32": "0"}
    (_, options), _ = provider_list(BackendSpec.parse("onnxruntime_cuda:precision=tf32,device=cuda:1"), "realtime")
    assert options == {"device_id": 1, "use_tf32": "1"}


def test_on_one_core_every_cpu_engine_competes_by_its_one_thread_call():
    # A process held to one core (a pinned worker, a one-CPU container): OpenVINO's "all cores" is one thread,
    # and is spelled so, or the tuner's engine step (one-thread calls) would see ONNX Runtime alone.
    one_core = dataclasses.replace(probe(no_accelerators()), physical_cores=1)
    specs = [s for s in backends.candidates(one_core, "realtime") if s.name in ("onnxruntime", "openvino")]
    assert specs and all(s.threads == 1 for s in specs)
    assert any(s.name == "openvino" for s in specs) == ("CPU" in one_core.openvino_devices)
