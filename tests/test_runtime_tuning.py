"""The tuner and the deployment profile: write, load, fingerprint match and mismatch, start-up tune."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from docauth.config import Settings
from docauth.runtime import backends, load_model, loading, tuning
from docauth.runtime.engines.base import BackendSpec
from docauth.ocr.printed.detection import PIXEL_THRESHOLD
from docauth.runtime.export import export_onnx
from docauth.runtime.model import load_metadata
from docauth.runtime.tolerance import output_agreement, tolerance_of, within
from docauth.runtime.probe import cached_probe
from docauth.runtime.untrained import build_untrained_model

SPECS = {"realtime": [BackendSpec("onnxruntime", threads=1), BackendSpec("openvino")],
         "throughput": [BackendSpec("onnxruntime"), BackendSpec("openvino")]}


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    models_dir = tmp_path_factory.mktemp("models")
    for name, labels in (("first", ("a", "b")), ("second", ("x", "y", "z"))):
        build_untrained_model(models_dir, name, height=32, width=32, labels=labels)
        export_onnx(name, models_dir)
    return models_dir


@pytest.fixture(scope="module")
def profile(standin):
    return tuning.tune(["first", "second"], models_dir=standin, specs=SPECS, batch_sizes=(4, 8),
                       seconds_per_case=0.05)


def test_tune_measures_every_case_and_chooses_per_mode(profile):
    cases = {(m["model"], m["spec"], m["mode"], m["batch"]) for m in profile["measurements"] if not m["error"]}
    # realtime: each model alone, 2 specs at batch 1; throughput: both models together, 2 specs x 2 sizes
    assert {c for c in cases if c[2] == "realtime"} == {(n, s.key, "realtime", 1) for n in ("first", "second")
                                                        for s in SPECS["realtime"]}
    assert {c for c in cases if c[2] == "throughput"} == {("first+second", s.key, "throughput", b)
                                                          for s in SPECS["throughput"] for b in (4, 8)}
    for mode in ("realtime", "throughput"):
        entry = profile["choice"][mode]
        assert entry["spec"]["key"] in {s.key for s in SPECS[mode]}
        assert entry["reason"]
    rt = [m for m in profile["measurements"] if m["mode"] == "realtime"]
    for m in rt:
        assert 0 < m["compute_ms_p50"] and 0 < m["cpu_ms_p50"]
    # the engine by its one-thread calls (here the only one-thread spec), then that engine's settings
    assert profile["choice"]["realtime"]["spec"]["key"] == "onnxruntime:threads=1"
    assert profile["fingerprint"] == cached_probe().fingerprint()
    assert set(profile["per_model"]) == {"first", "second"}
    tp = [m for m in profile["measurements"] if m["mode"] == "throughput"]
    assert profile["choice"]["throughput"]["throughput_img_s"] == max(m["throughput_img_s"] for m in tp)
    assert profile["per_model"]["first"]["throughput"]["spec"] == profile["choice"]["throughput"]["spec"]
    json.dumps(profile)


def test_profile_round_trip_and_use(profile, standin, tmp_path):
    settings = Settings.load(data_dir=tmp_path, autotune=False)
    path = tuning.write_profile(profile, tuning.profile_path(settings))
    assert path == tmp_path / "runtime-profile.json"
    assert tuning.load_profile(path) == json.loads(json.dumps(profile))
    choice = tuning.auto_choice("first", models_dir=standin, mode="realtime", settings=settings)
    assert choice.source == "profile"
    assert choice.specs[0].key == profile["per_model"]["first"]["realtime"]["spec"]["key"]
    model = loading.load("first", models_dir=standin, backend="auto", mode="throughput", settings=settings)
    try:
        assert model.spec == profile["per_model"]["first"]["throughput"]["spec"]["key"]
        assert model.batcher.config.max_batch_size == profile["per_model"]["first"]["throughput"]["batch"]
        assert "profile" in model.reason
    finally:
        model.close()


def test_fingerprint_mismatch_is_ignored(profile, standin, tmp_path):
    settings = Settings.load(data_dir=tmp_path, autotune=False)
    other = dict(profile, fingerprint="another-machine")
    tuning.write_profile(other, tuning.profile_path(settings))
    choice = tuning.auto_choice("first", models_dir=standin, mode="realtime", settings=settings)
    assert choice.source == "heuristic"
    assert any("another-machine" in note for note in choice.notes)


def test_retrained_model_invalidates_its_entry(profile, standin, tmp_path):
    settings = Settings.load(data_dir=tmp_path, autotune=False)
    changed = json.loads(json.dumps(profile))
    changed["per_model"]["first"]["realtime"]["model_sha256"] = "0" * 64
    tuning.write_profile(changed, tuning.profile_path(settings))
    stale = tuning.auto_choice("first", models_dir=standin, mode="realtime", settings=settings)
    assert stale.source == "profile" and "not measured" in stale.reason  # the machine-wide choice
    assert stale.specs[0].key == profile["choice"]["realtime"]["spec"]["key"]
    fresh = tuning.auto_choice("second", models_dir=standin, mode="realtime", settings=settings)
    assert fresh.source == "profile" and "this model)" in fresh.reason
    assert fresh.specs[0].key == profile["per_model"]["second"]["realtime"]["spec"]["key"]


@pytest.mark.parametrize("content", ["{not json", json.dumps({"version": 999, "fingerprint": "x"}), "[]"])
def test_unreadable_profile_is_ignored(tmp_path, content):
    path = tmp_path / "runtime-profile.json"
    path.write_text(content)
    assert tuning.load_profile(path) is None


def test_short_startup_tune_is_bounded_and_recorded(standin, tmp_path, monkeypatch):
    monkeypatch.setenv("DOCAUTH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DOCAUTH_AUTOTUNE_SECONDS", "2")
    monkeypatch.delenv("DOCAUTH_AUTOTUNE", raising=False)
    import time

    t0 = time.perf_counter()
    model = load_model("second", models_dir=standin, backend="auto", mode="realtime")
    elapsed = time.perf_counter() - t0
    model.close()
    assert "quick start-up tune" in model.reason
    assert elapsed < 15  # budget 2 s for measuring; loading the candidates comes on top
    written = tuning.load_profile(tmp_path / "runtime-profile.json")
    assert written["quick"] and written["per_model"]["second"]["realtime"]["spec"]["key"] == model.spec
    # a few inputs through each candidate, so that a page-sized model's accuracy check fits the budget too
    assert written["inputs"] == tuning.QUICK_TUNING_INPUTS < tuning.TUNING_INPUTS
    # the next start-up reuses it instead of measuring again
    again = load_model("second", models_dir=standin, backend="auto", mode="realtime")
    again.close()
    assert "profile" in again.reason and again.spec == model.spec


def test_start_up_tunes_at_once_keep_every_entry_and_measure_a_model_once(standin, tmp_path):
    # A kiosk's worker and its face processes tune their models at the same time on a fresh data folder.
    from concurrent.futures import ThreadPoolExecutor

    settings = Settings.load(data_dir=tmp_path, autotune=True, autotune_seconds=1.0)
    with ThreadPoolExecutor(3) as pool:
        choices = list(pool.map(lambda name: tuning.auto_choice(name, models_dir=standin, settings=settings),
                                ["first", "second", "first"]))
    written = tuning.load_profile(tmp_path / "runtime-profile.json")
    assert set(written["per_model"]) == {"first", "second"}
    assert sorted(c.source for c in choices) == ["profile", "quick-tune", "quick-tune"]
    firsts = [c for c, name in zip(choices, ["first", "second", "first"]) if name == "first"]
    assert firsts[0].specs[0] == firsts[1].specs[0]


def test_autotune_off_uses_default_ranking(standin, tmp_path, monkeypatch):
    monkeypatch.setenv("DOCAUTH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DOCAUTH_AUTOTUNE", "0")
    model = load_model("first", models_dir=standin)
    model.close()
    assert "not measured" in model.reason
    assert not (tmp_path / "runtime-profile.json").exists()


def test_measurements_carry_accuracy_and_inaccurate_configurations_are_not_chosen(profile):
    for m in profile["measurements"]:
        if not m["error"]:
            assert m["max_abs_diff"] is not None and m["max_abs_diff"] <= 1e-4  # fp32 engines agree
            assert m["argmax_agreement"] == 1.0
    fast_but_wrong = {"spec": "openvino:precision=bf16", "batch": 1, "latency_ms_p50": 0.01,
                      "latency_ms_p95": 0.02, "throughput_img_s": 1e5, "max_abs_diff": 0.3, "argmax_agreement": 0.7}
    slow_but_right = {"spec": "onnxruntime", "batch": 1, "latency_ms_p50": 1.0, "latency_ms_p95": 2.0,
                      "throughput_img_s": 1e3, "max_abs_diff": 1e-7, "argmax_agreement": 1.0}
    for mode in ("realtime", "throughput"):
        best, _ = tuning._pick([fast_but_wrong, slow_but_right], mode)
        assert best["spec"] == "onnxruntime"


def test_unmeasured_model_gets_machine_choice_in_fp32(profile, standin, tmp_path):
    settings = Settings.load(data_dir=tmp_path, autotune=False)
    bf16 = json.loads(json.dumps(profile))
    bf16["per_model"] = {}
    bf16["choice"]["realtime"]["spec"] = BackendSpec("openvino", precision="bf16").export()
    tuning.write_profile(bf16, tuning.profile_path(settings))
    choice = tuning.auto_choice("first", models_dir=standin, mode="realtime", settings=settings)
    assert choice.source == "profile"
    assert choice.specs[0] == BackendSpec("openvino")
    assert "accuracy not measured" in choice.reason


def test_full_tune_keeps_entries_of_models_it_did_not_measure(profile):
    other = {"spec": BackendSpec("openvino").export(), "batch": 1, "reason": "measured earlier", "quick": True}
    old = dict(profile, per_model={"mrz": {"realtime": other}},
               measurements=[{"model": "mrz", "spec": "openvino", "mode": "realtime", "batch": 1, "error": None}])
    merged = tuning.merge_profile(old, profile)
    assert merged["per_model"]["mrz"]["realtime"] == other
    assert merged["per_model"]["first"] == profile["per_model"]["first"]
    assert merged["choice"] == profile["choice"]
    assert tuning.merge_profile(dict(old, fingerprint="elsewhere"), profile) is profile


def test_a_model_that_states_a_tight_tolerance_gets_no_engine_that_moves_its_probabilities_more():
    # bf16 moved the MRZ line model's probabilities by 0.0265 on the tuning inputs with the same top answers;
    # the reader trusts characters above a probability, so the model states 0.005 and bf16 is not chosen.
    assert tuning.model_tolerance(load_metadata("mrz_lines")) == 0.005
    assert tuning.model_tolerance(load_metadata("text_recognizer")) == 0.005
    assert tuning.model_tolerance({"input": {}}) == tuning.ACCURACY_ATOL
    bf16 = {"spec": "openvino:precision=bf16", "batch": 1, "latency_ms_p50": 1.7, "latency_ms_p95": 2.0,
            "throughput_img_s": 580.0, "max_abs_diff": 0.0265, "argmax_agreement": 1.0}
    fp32 = {"spec": "openvino", "batch": 1, "latency_ms_p50": 2.2, "latency_ms_p95": 2.5,
            "throughput_img_s": 450.0, "max_abs_diff": 1.8e-6, "argmax_agreement": 1.0}
    assert tuning._pick([{**bf16, "atol": 0.005}, {**fp32, "atol": 0.005}], "realtime")[0]["spec"] == "openvino"
    assert tuning._pick([bf16, fp32], "realtime")[0]["spec"] == "openvino:precision=bf16"  # default tolerance
    rows = tuning._combined([{**bf16, "model": m, "mode": "realtime", "error": None, "atol": atol}
                             for m, atol in (("a", 0.05), ("b", 0.005))], ["a", "b"], "realtime")
    assert rows[0]["atol"] == 0.005  # models chosen together: the tightest tolerance holds


def test_the_measuring_time_is_shared_by_the_cases_not_given_to_each():
    # Three cases of 10 ms calls in 0.3 s: about 30 calls in all, not 30 each (the start-up tune's budget
    # is for the whole comparison). Sleep only overshoots, so the count can only come out lower.
    cases = {k: (lambda: time.sleep(0.01)) for k in "abc"}
    times = tuning.measure_interleaved(cases, seconds=0.3, rounds=2, warmup=0)
    calls = sum(len(v) for v in times.values())
    assert 3 * 2 <= calls <= 30 + 3 * 2, calls
    # a slow case still runs its minimum each round
    slow = tuning.measure_interleaved({"slow": lambda: time.sleep(0.05)}, seconds=0.01, rounds=2, min_iters=2,
                                      warmup=0)
    assert len(slow["slow"]) == 4


def test_real_time_ranks_by_cpu_time_so_waiting_for_the_cpu_does_not_count():
    # A candidate preempted by other processes waits without computing: the same work plus a wait (a sleep
    # stands in for the host's load) must cost the same compute time, while its wall-clock time grows.
    work = np.random.default_rng(0).normal(size=200_000).astype(np.float32)

    def compute():  # element-wise numpy: one thread (a BLAS call would spin-wait for its own threads)
        for _ in range(8):
            np.sqrt(np.abs(work)) * work

    def compute_then_wait():
        compute()
        time.sleep(0.03)

    cpu: dict = {}
    wall = tuning.measure_interleaved({"alone": compute, "loaded": compute_then_wait}, seconds=0.6, rounds=3,
                                      min_iters=3, cpu=cpu)
    spec = BackendSpec("onnxruntime", threads=1)
    alone, loaded = (tuning.compute_ms(spec, cpu[k], wall[k]) for k in ("alone", "loaded"))
    assert np.median(wall["loaded"]) * 1000 >= alone + 25  # the wait shows on the wall clock
    assert loaded < alone + 15  # and not in the compute time
    # a device engine's call waits on its device: there the wall clock is the measure
    assert tuning.compute_ms(BackendSpec("onnxruntime_cuda"), cpu["loaded"], wall["loaded"]) >= 30


def test_a_detector_is_compared_by_its_thresholded_regions_not_per_pixel_or_by_argmax():
    tolerance = tolerance_of(load_metadata("text_detector"))
    assert tolerance["mask_threshold"] == PIXEL_THRESHOLD  # the threshold the reader cuts lines at
    reference = np.zeros((1, 1, 64, 64), np.float32)
    reference[0, 0, 20:30, 5:60] = 0.9
    moved_far_from_threshold = reference.copy()
    moved_far_from_threshold[0, 0, 22:28, 10:50] = 0.35  # still text: the same region
    moved_far_from_threshold[0, 0, 40:50, 5:60] = 0.25  # still background
    measures = output_agreement(moved_far_from_threshold, reference, tolerance)
    assert measures["max_abs_diff"] > 0.5 and measures["mask_iou"] == 1.0 and within(measures, tolerance)
    shifted = np.zeros_like(reference)
    shifted[0, 0, 22:32, 5:60] = 0.9  # the line found two pixels lower: other boxes, other crops
    assert not within(output_agreement(shifted, reference, tolerance), tolerance)


def test_the_shipped_detector_gets_openvino_fp32_and_no_bf16():
    # The tuner once compared the detector's engines by the argmax over a one-channel map's last axis and
    # refused OpenVINO fp32 (identical regions) on every machine. bf16 moves region edges by a pixel, and
    # with them the boxes the recogniser reads: refused where the CPU offers it.
    bf16 = BackendSpec("openvino", threads=1, precision="bf16")
    specs = [BackendSpec("onnxruntime", threads=1), BackendSpec("openvino", threads=1)]
    specs += [bf16] if cached_probe().supports_bf16 else []
    profile = tuning.tune(["text_detector"], specs={"realtime": specs}, modes=["realtime"], seconds_per_case=0.05,
                          quick=True)
    rows = {m["spec"]: m for m in profile["measurements"]}
    assert rows["openvino:threads=1"]["error"] is None
    assert rows["openvino:threads=1"]["mask_iou"] >= 0.999 and rows["openvino:threads=1"]["within_tolerance"]
    assert rows["openvino:threads=1"]["argmax_agreement"] is None
    if bf16.key in rows:
        assert rows[bf16.key]["mask_iou"] < 0.999 and not rows[bf16.key]["within_tolerance"]
        assert profile["per_model"]["text_detector"]["realtime"]["spec"]["precision"] == "fp32"


def test_real_time_chooses_the_engine_by_one_thread_calls_then_its_thread_setting():
    def row(spec, compute):
        return {"spec": spec, "batch": 1, "latency_ms_p50": 1.0, "latency_ms_p95": 1.0, "throughput_img_s": 1.0,
                "compute_ms_p50": compute, "within_tolerance": True}

    # a multi-threaded candidate of the engine that loses at one thread does not win (its CPU time grows and
    # shrinks with the host's load); the winning engine's own multi-threaded setting does
    rows = [row("onnxruntime:threads=1", 26.0), row("onnxruntime:threads=2", 15.0),
            row("openvino:threads=1", 16.0), row("openvino", 17.0)]
    assert tuning._pick(rows, "realtime")[0]["spec"] == "openvino:threads=1"
    rows[3] = row("openvino", 12.0)
    assert tuning._pick(rows, "realtime")[0]["spec"] == "openvino"
    # reduced precision is an engine of its own, eligible only within the model's tolerance
    bf16 = row("openvino:precision=bf16,threads=1", 8.0)
    assert tuning._pick(rows + [bf16], "realtime")[0]["spec"] == bf16["spec"]
    assert tuning._pick(rows + [dict(bf16, within_tolerance=False)], "realtime")[0]["spec"] == "openvino"
    # a near tie goes to the engine earlier in the default ranking, whichever measured a little faster
    tie = [row("onnxruntime:threads=1", 2.6), row("openvino:threads=1", 2.45)]
    assert tuning._pick(tie, "realtime")[0]["spec"] == "onnxruntime:threads=1"
    assert tuning._pick(tie[::-1], "realtime")[0]["spec"] == "openvino:threads=1"
    # a device's call is timed on the wall clock and competes as an engine
    assert tuning._pick(rows + [row("onnxruntime_cuda", 2.0)], "realtime")[0]["spec"] == "onnxruntime_cuda"
