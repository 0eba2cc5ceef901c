"""Measure every usable backend here and keep the fastest per mode: the deployment profile.

``docauth tune`` measures backend x thread setting x batch size on the shipped
models and writes ``<data_dir>/runtime-profile.json``:

    {"version": 3, "created": ..., "fingerprint": <machine>, "probe": {...},
     "measurements": [{"model", "spec", "mode", "batch", "latency_ms_p50", "compute_ms_p50", ...}],
     "choice": {"realtime": {"spec", "batch", "reason", ...}, "throughput": {...}},
     "per_model": {"document": {"realtime": {...}, "throughput": {...}}, ...}}

Real-time mode ranks by the CPU time of a call (:func:`compute_ms`), which a busy host does not stretch;
throughput mode by images/s of wall-clock time, as the batchers deliver them. A configuration is eligible
when the model's stated tolerance holds (:mod:`docauth.runtime.tolerance`).

``load_model(backend="auto")`` uses the profile when its fingerprint matches
this machine; otherwise it measures the one model for a few seconds (bounded
by ``Settings.autotune_seconds``; ``DOCAUTH_AUTOTUNE=0`` skips measuring and
takes the default ranking) and records that in the profile.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import json
import logging
import os
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from docauth.config import Settings
from docauth.errors import ConfigError, DocauthError
from docauth.runtime import backends
from docauth.runtime.batching import BatchingConfig, MicroBatcher
from docauth.runtime.engines.base import BackendSpec, file_sha256, input_hwc
from docauth.runtime.inputs import sample_inputs, scaled_for
from docauth.runtime.measuring import (burst_step, compute_ms, measure, measure_interleaved,  # noqa: F401 (re-exported)
                                       on_device, stepper, summarize)
from docauth.runtime.model import load_metadata, model_paths, onnx_only, version_file
from docauth.runtime.probe import HardwareProbe, cached_probe
from docauth.runtime.tolerance import (ACCURACY_ATOL, ACCURACY_MIN_AGREEMENT, output_agreement, tolerance_of,
                                       within)

log = logging.getLogger(__name__)

PROFILE_FILE = "runtime-profile.json"
# 2: measurements carry each model's own tolerance (its metadata's ``tolerance``); profiles of version 1 chose
# without it and are measured again.
# 3: real-time candidates ranked by the CPU time of a call (``compute_ms_p50``), not its wall-clock time, and a
# text detector's engines compared by the regions of its thresholded map: version-2 profiles chose by the
# host's load at start-up and refused every other engine for the detector, and are measured again.
# 4: on one core OpenVINO's one-thread configuration is spelled threads=1; version-3 profiles made there
# left it out of the engine step and chose ONNX Runtime, and are measured again.
PROFILE_VERSION = 4
DEFAULT_BATCH_SIZES = (4, 8, 16, 32)
# Engines whose one-thread calls cost within this fraction of each other tie, and the earlier in the default
# ranking is taken: medians of a few calls' CPU time scatter by a few percent, and a near tie would otherwise
# pick another engine at each start-up.
ENGINE_MARGIN = 0.1
TUNING_INPUTS = 32
# Calls of each candidate in each round at least, however slow: a page-sized model's median over fewer would
# rest on one call per round.
REALTIME_MIN_CALLS = 2
# The start-up tune compares engines on a few inputs only: every input goes through every candidate once for
# the accuracy check, and 32 of a page-sized model (a text detector at 640 px) take longer than the whole
# budget, which left only the first candidate measured.
QUICK_TUNING_INPUTS = 4
# Lines of glyphs drawn on each tuning input: a text detector's map is empty on gradients alone, and an engine
# that moves its regions would pass a comparison of empty maps.
TUNING_TEXT_LINES = 3


def profile_path(settings: Settings | None = None) -> Path:
    settings = settings or Settings.load()
    return Path(settings.data_dir) / PROFILE_FILE


@dataclass
class Measurement:
    model: str
    spec: str
    mode: str
    batch: int
    latency_ms_p50: float | None = None
    latency_ms_p95: float | None = None
    throughput_img_s: float | None = None
    iterations: int = 0
    load_s: float | None = None
    error: str | None = None
    max_abs_diff: float | None = None  # vs. an fp32 engine on the tuning inputs
    argmax_agreement: float | None = None
    atol: float | None = ACCURACY_ATOL  # the largest max_abs_diff this model's answers bear (model_tolerance)
    mask_iou: float | None = None  # a thresholded map's regions against fp32's (models whose tolerance says so)
    within_tolerance: bool | None = None  # the model's stated tolerance (docauth.runtime.tolerance) holds
    compute_ms_p50: float | None = None  # CPU time of a call (compute_ms): what real-time mode ranks by
    cpu_ms_p50: float | None = None  # the whole process's CPU time per call

    def export(self) -> dict:
        return asdict(self)


def _combined(measurements: list[dict], models: list[str], mode: str) -> list[dict]:
    """Per (spec, batch): both models on every image. Latency adds up; images/s combine harmonically."""
    groups: dict[tuple[str, int], dict[str, dict]] = {}
    for m in measurements:
        if m["mode"] == mode and m["error"] is None and m["model"] in models:
            groups.setdefault((m["spec"], m["batch"]), {})[m["model"]] = m
    rows = []
    for (spec, batch), by_model in groups.items():
        if set(by_model) != set(models):
            continue
        rows.append({
            "spec": spec, "batch": batch,
            "latency_ms_p50": round(sum(m["latency_ms_p50"] for m in by_model.values()), 3),
            "latency_ms_p95": round(sum(m["latency_ms_p95"] for m in by_model.values()), 3),
            "throughput_img_s": round(1 / sum(1 / m["throughput_img_s"] for m in by_model.values()), 1),
            "max_abs_diff": max((m.get("max_abs_diff") or 0.0) for m in by_model.values()),
            "argmax_agreement": min((m.get("argmax_agreement") if m.get("argmax_agreement") is not None else 1.0)
                                    for m in by_model.values()),
            "atol": min((m.get("atol", ACCURACY_ATOL) for m in by_model.values() if m.get("atol", 0) is not None),
                        default=None),
            "within_tolerance": all(_accurate(m) for m in by_model.values()),
            "compute_ms_p50": round(sum(_rank_ms(m) for m in by_model.values()), 3),
        })
    return rows


def _rank_ms(row: dict) -> float:
    """What real-time mode ranks by: the call's CPU time, or its wall-clock time in rows measured without it."""
    return row["compute_ms_p50"] if row.get("compute_ms_p50") is not None else row["latency_ms_p50"]


def _pick(rows: list[dict], mode: str) -> tuple[dict, str] | None:
    rows = [r for r in rows if _accurate(r)]  # too inaccurate (bf16 on this model): not eligible
    if not rows:
        return None
    if mode == "realtime":
        # Two steps. The engine and precision: by their one-thread calls, whose CPU time is exact whatever the
        # host's load (and by device calls, timed on the wall clock). Then that engine's thread setting: a
        # multi-threaded call's CPU time grows on a busy host (its threads wait for each other), so it only
        # decides between settings of the one engine, never which engine.
        singles = [r for r in rows if _engine_step(r)] or rows
        fastest = min(_rank_ms(r) for r in singles)
        # rows come in the default ranking's order: a later engine must be clearly faster to be taken
        engine = _engine_of(next(r for r in singles if _rank_ms(r) <= fastest * (1 + ENGINE_MARGIN)))
        ranked = sorted([r for r in rows if _engine_of(r) == engine], key=_rank_ms)
        best = ranked[0]
        why = f"least batch-1 compute p50 {_rank_ms(best)} ms (wall {best['latency_ms_p50']} ms)"
        others = sorted([r for r in singles if _engine_of(r) != engine], key=_rank_ms)
        if others:
            why += f"; fastest one-thread {fastest} ms (next engine: {others[0]['spec']} {_rank_ms(others[0])} ms)"
    else:
        ranked = sorted(rows, key=lambda r: -r["throughput_img_s"])
        best = ranked[0]
        why = f"highest throughput {best['throughput_img_s']} img/s at batch {best['batch']}"
        if len(ranked) > 1:
            why += f" (next: {ranked[1]['spec']} batch {ranked[1]['batch']} {ranked[1]['throughput_img_s']} img/s)"
    return best, why


def _engine_of(row: dict) -> tuple:
    spec = BackendSpec.parse(row["spec"])
    return spec.name, spec.precision, spec.device


def _engine_step(row: dict) -> bool:
    """Does the row take part in choosing the engine: a one-thread call, or a call on a device."""
    spec = BackendSpec.parse(row["spec"])
    return spec.threads == 1 or on_device(spec)


def _load_runners(spec, models, metas, models_dir, mode, measurements, sizes):
    """{model: (runner, load seconds)} for every model, or None (errors recorded) if one cannot load."""
    loaded = {}
    for name in models:
        t0 = time.perf_counter()
        try:
            loaded[name] = (backends.load_spec(spec, name, metas[name], models_dir, mode),
                            round(time.perf_counter() - t0, 3))
        except DocauthError as exc:
            for b in sizes:
                measurements.append(Measurement(name, spec.key, mode, b, error=exc.message).export())
            for runner, _ in loaded.values():
                runner.close()
            return None
    return loaded


def tune(models: Iterable[str], *, models_dir=None, probe: HardwareProbe | None = None,
         modes: Iterable[str] = backends.MODES, batch_sizes: Iterable[int] = DEFAULT_BATCH_SIZES,
         seconds_per_case: float = 0.6, budget_s: float | None = None,
         specs: dict[str, list[BackendSpec]] | None = None, quick: bool = False,
         max_queue_delay_ms: float | None = None, progress: Callable[[str], None] | None = None) -> dict:
    """Measure and return a profile dict (not written; see :func:`write_profile`).

    realtime: each model alone at batch 1, every backend interleaved.
    throughput: all models together through micro-batchers of each batch size (bursts of
    single-image requests), as the service runs them.
    """
    models = list(models)
    modes = list(modes)
    probe = probe or cached_probe()
    delay_ms = Settings.load().max_queue_delay_ms if max_queue_delay_ms is None else max_queue_delay_ms
    inputs, metas, shas = {}, {}, {}
    count = QUICK_TUNING_INPUTS if quick else TUNING_INPUTS
    for name in models:
        metas[name] = load_metadata(name, models_dir)
        inputs[name] = scaled_for(metas[name], sample_inputs(input_hwc(metas[name]), count, seed=1,
                                                             text_lines=TUNING_TEXT_LINES))
        source = version_file(name, models_dir)
        shas[name] = file_sha256(source) if source.is_file() else None
    started = time.perf_counter()
    # The budget is for loading and measuring the engines, in this process's CPU time: on a busy host the wall
    # clock would stop loading sooner, and which candidates compete would depend on the host's load.
    started_cpu = time.process_time()
    singles = {n: [np.ascontiguousarray(x[None]) for x in inputs[n]] for n in models}
    onnx_ready = all(model_paths(n, models_dir).onnx.is_file() for n in models)
    joined = "+".join(models)
    measurements: list[dict] = []

    def over_budget(fraction: float) -> bool:
        return budget_s is not None and time.process_time() - started_cpu > budget_s * fraction

    def measuring_seconds(n_cases: int) -> float:
        seconds = seconds_per_case * n_cases
        if budget_s is not None:
            seconds = max(min(seconds, budget_s - (time.process_time() - started_cpu)), 0.05 * n_cases)
        return seconds

    for mode in modes:
        mode_specs = (specs or {}).get(mode) or backends.candidates(probe, mode, onnx_ready=onnx_ready)
        if any(onnx_only(m) for m in metas.values()):
            mode_specs = [s for s in mode_specs if s.name not in backends.KERAS_ENGINES]
        sizes = [1] if mode == "realtime" else list(batch_sizes)
        loaded: dict[str, dict] = {}
        for spec in mode_specs:
            if loaded and over_budget(0.5):
                break  # half the budget for loading, half for measuring
            runners = _load_runners(spec, models, metas, models_dir, mode, measurements, sizes)
            if runners is not None:
                loaded[spec.key] = runners
        accuracy = _accuracy(loaded, models, inputs, metas)
        try:
            if mode == "realtime":
                for name in models:
                    cases = {(key, 1): stepper(r[name][0].run, inputs[name], 1) for key, r in loaded.items()}
                    cpu: dict = {}
                    times = measure_interleaved(cases, seconds=measuring_seconds(len(cases)),
                                                rounds=4 if budget_s is None else 2, cpu=cpu,
                                                min_iters=REALTIME_MIN_CALLS)
                    for (key, b), samples in times.items():
                        spec = BackendSpec.parse(key)
                        m = Measurement(name, key, mode, b, load_s=loaded[key][name][1], **summarize(samples, b),
                                        **accuracy[key][name], atol=tolerance_of(metas[name])["max_abs_diff"],
                                        compute_ms_p50=compute_ms(spec, cpu[(key, b)], samples),
                                        cpu_ms_p50=round(float(np.median([p for _, p in cpu[(key, b)]])) * 1000, 3))
                        measurements.append(m.export())
                        _report(progress, m)
            else:
                cases, latencies, batchers = {}, {}, []
                burst = 64
                for key, runners in loaded.items():
                    for b in sizes:
                        group = {n: MicroBatcher(r.run, BatchingConfig(b, delay_ms), name=f"tune-{n}")
                                 for n, (r, _) in runners.items()}
                        batchers.extend(group.values())
                        latencies[(key, b)] = []
                        cases[(key, b)] = burst_step({n: g.submit for n, g in group.items()}, singles,
                                                     latencies[(key, b)], burst)
                try:
                    times = measure_interleaved(cases, seconds=measuring_seconds(len(cases)),
                                                rounds=4 if budget_s is None else 2)
                finally:
                    for batcher in batchers:
                        batcher.close()
                for (key, b), samples in times.items():
                    lat = np.array(latencies[(key, b)]) * 1000
                    m = Measurement(joined, key, mode, b, load_s=round(sum(x[1] for x in loaded[key].values()), 3),
                                    latency_ms_p50=round(float(np.percentile(lat, 50)), 3),
                                    latency_ms_p95=round(float(np.percentile(lat, 95)), 3),
                                    throughput_img_s=round(burst / float(np.median(samples)), 1),
                                    iterations=len(samples),
                                    max_abs_diff=_worst(accuracy[key], "max_abs_diff", max),
                                    argmax_agreement=_worst(accuracy[key], "argmax_agreement", min),
                                    mask_iou=_worst(accuracy[key], "mask_iou", min),
                                    within_tolerance=_all_within(accuracy[key]),
                                    atol=min((tolerance_of(metas[n])["max_abs_diff"] for n in models
                                              if tolerance_of(metas[n])["max_abs_diff"] is not None), default=None))
                    measurements.append(m.export())
                    _report(progress, m)
        finally:
            for runners in loaded.values():
                for runner, _ in runners.values():
                    runner.close()

    choice, per_model = {}, {}
    for mode in modes:
        picked = _pick(_rows(measurements, models, mode), mode)
        if picked:
            best, why = picked
            choice[mode] = {"spec": BackendSpec.parse(best["spec"]).export(), "batch": best["batch"],
                            "latency_ms_p50": best["latency_ms_p50"], "throughput_img_s": best["throughput_img_s"],
                            "models": models, "reason": f"{best['spec']}: {why} for {joined}", "quick": quick}
        for name in models:
            if mode == "throughput":  # measured with all models together: the shared choice is theirs
                if mode in choice:
                    per_model.setdefault(name, {})[mode] = dict(choice[mode], model_sha256=shas[name])
                continue
            picked = _pick(_rows(measurements, [name], mode), mode)
            if picked:
                best, why = picked
                per_model.setdefault(name, {})[mode] = {
                    "spec": BackendSpec.parse(best["spec"]).export(), "batch": best["batch"],
                    "latency_ms_p50": best["latency_ms_p50"], "throughput_img_s": best["throughput_img_s"],
                    "model_sha256": shas[name], "reason": f"{best['spec']}: {why} for {name}", "quick": quick}
    return {"version": PROFILE_VERSION, "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "fingerprint": probe.fingerprint(), "probe": probe.export(), "models": models,
            "tune_seconds": round(time.perf_counter() - started, 1), "quick": quick, "inputs": count,
            "measurements": measurements, "choice": choice, "per_model": per_model}


def _accuracy(loaded: dict, models: list[str], inputs: dict, metas: dict) -> dict:
    """{spec key: {model: {max_abs_diff, argmax_agreement, mask_iou, within_tolerance}}} against the first
    fp32 configuration loaded, measured as each model's stated tolerance measures (docauth.runtime.tolerance)."""
    reference_key = next((k for k in loaded if "precision=" not in k), None)
    out: dict = {}
    references = {n: loaded[reference_key][n][0].run(inputs[n]) for n in models} if reference_key else {}
    for key, runners in loaded.items():
        out[key] = {}
        for n in models:
            if not references:
                out[key][n] = {"max_abs_diff": None, "argmax_agreement": None, "mask_iou": None,
                               "within_tolerance": None}
                continue
            tolerance = tolerance_of(metas[n])
            measures = output_agreement(runners[n][0].run(inputs[n]), references[n], tolerance)
            out[key][n] = {**measures, "within_tolerance": within(measures, tolerance)}
    return out


def _worst(by_model: dict, measure: str, pick) -> float | None:
    values = [a[measure] for a in by_model.values() if a[measure] is not None]
    return pick(values) if values else None


def _all_within(by_model: dict) -> bool | None:
    verdicts = [a["within_tolerance"] for a in by_model.values()]
    return None if any(v is None for v in verdicts) else all(verdicts)


def _accurate(row: dict) -> bool:
    """Is the row's configuration eligible: its model(s)' stated tolerance holds (rows measured before the
    verdict was recorded: probabilities within ``atol`` and the same top answers)."""
    if row.get("within_tolerance") is not None:
        return bool(row["within_tolerance"])
    atol = row.get("atol", ACCURACY_ATOL)
    return within(row, {"max_abs_diff": atol, "min_argmax_agreement": ACCURACY_MIN_AGREEMENT})


def model_tolerance(metadata: dict) -> float | None:
    """The largest difference from fp32 a model's probabilities may show (None: the model states its tolerance
    on thresholded regions instead); see :mod:`docauth.runtime.tolerance`."""
    return tolerance_of(metadata)["max_abs_diff"]


def _report(progress, m: Measurement) -> None:
    if progress:
        progress(f"{m.mode:10s} {m.model:16s} {m.spec:40s} batch {m.batch:3d}: p50 {m.latency_ms_p50:8.2f} ms "
                 f"p95 {m.latency_ms_p95:8.2f} ms {m.throughput_img_s:8.1f} img/s")


def _rows(measurements: list[dict], models: list[str], mode: str) -> list[dict]:
    if mode == "throughput":
        joined = "+".join(models)
        return [m for m in measurements if m["mode"] == mode and m["error"] is None and m["model"] == joined]
    return _combined(measurements, models, mode)


# --- the profile file -----------------------------------------------------------------------------
def write_profile(profile: dict, path: Path) -> Path:
    """Atomic write (several workers may tune at once; readers never see half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".runtime-profile-", suffix=".json")
    with os.fdopen(fd, "w") as fh:
        json.dump(profile, fh, indent=1)
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes 0600; service workers may run as another user
    os.replace(tmp, path)
    return path


def load_profile(path: Path) -> dict | None:
    """The profile, or None when missing, unreadable or from another format version."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return None
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        log.warning("runtime: ignoring unreadable profile %s: %s", path, exc)
        return None
    if not isinstance(data, dict) or data.get("version") != PROFILE_VERSION or "fingerprint" not in data:
        return None
    return data


def merge_profile(old: dict | None, new: dict) -> dict:
    """Combine with the existing profile of the same machine.

    A quick tune adds its per-model entries. A full tune replaces the choices and its models'
    entries, and keeps the entries of models it did not measure (their measurements stay valid).
    """
    if not old or old.get("fingerprint") != new["fingerprint"]:
        return new
    if not new.get("quick"):
        kept = {n: e for n, e in old.get("per_model", {}).items() if n not in new["models"]}
        if not kept:
            return new
        merged = dict(new)
        merged["per_model"] = {**kept, **new["per_model"]}
        merged["measurements"] = new["measurements"] + [m for m in old.get("measurements", [])
                                                        if m["model"] in kept]
        return merged
    merged = dict(old)
    merged["measurements"] = old.get("measurements", []) + new["measurements"]
    merged["per_model"] = {**old.get("per_model", {})}
    for name, entry in new["per_model"].items():
        merged["per_model"][name] = {**merged["per_model"].get(name, {}), **entry}
    merged["choice"] = {**new["choice"], **old.get("choice", {})}
    return merged


@dataclass
class Choice:
    specs: list[BackendSpec]  # first is the choice, the rest the fallback ranking
    batch_size: int | None
    reason: str
    source: str  # profile | quick-tune | heuristic
    notes: list[str] = field(default_factory=list)


def _entry_for(profile: dict, name: str, mode: str, models_dir) -> dict | None:
    entry = profile.get("per_model", {}).get(name, {}).get(mode)
    if entry:
        source = version_file(name, models_dir)
        if entry.get("model_sha256") and source.is_file() and file_sha256(source) != entry["model_sha256"]:
            return None  # measured on an older version of this model
        return entry
    return None


def _profile_choice(profile: dict | None, name: str, mode: str, models_dir, fingerprint: str, path: Path,
                    ranking: list[BackendSpec], can_measure: bool, notes: list[str]) -> Choice | None:
    """The profile's answer for this model, or None when it has none that may be used."""
    if profile is None:
        return None
    if profile["fingerprint"] != fingerprint:
        notes.append(f"profile {path} is for machine {profile['fingerprint']}, this is {fingerprint}: ignored")
        return None
    entry = _entry_for(profile, name, mode, models_dir)
    scope = "this model"
    if entry is None and not can_measure:
        # A model the tuner did not measure (or an older version of it), and no measuring allowed: the
        # machine-wide choice, measured on other models, is the best guess. With measuring allowed the
        # quick tune measures it once and keeps the answer in the profile (models differ too much:
        # a text recogniser and a 128 px classifier need not run fastest on the same engine).
        entry = profile.get("choice", {}).get(mode)
        scope = "machine-wide choice; this model version was not measured"
    if not entry:
        return None
    spec = BackendSpec.from_export(entry["spec"])
    reason = f"profile {path} ({profile.get('created')}, {scope}): {entry['reason']}"
    if scope != "this model" and spec.precision != "fp32":
        # reduced precision was accepted for the measured models only; this one gets fp32
        spec = spec.with_(precision="fp32")
        reason += f"; fp32 instead of {entry['spec'].get('precision')} (accuracy not measured for {name})"
    return Choice([spec] + ranking, entry.get("batch"), reason, "profile", notes)


@contextlib.contextmanager
def _profile_lock(path: Path):
    """The profile's lock, held while one process measures a model and adds it to the file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path.with_name(path.name + ".lock"), "a")
    except OSError:  # a read-only data folder: the profile cannot be written either, so nothing to guard
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
        yield


def auto_choice(name: str, *, models_dir=None, mode: str = "realtime", settings: Settings | None = None,
                probe: HardwareProbe | None = None) -> Choice:
    settings = settings or Settings.load()
    probe = probe or cached_probe()
    path = profile_path(settings)
    onnx_ready = model_paths(name, models_dir).onnx.is_file()
    ranking = backends.candidates(probe, mode, onnx_ready=onnx_ready)
    if onnx_only(load_metadata(name, models_dir)):
        ranking = [s for s in ranking if s.name not in backends.KERAS_ENGINES]
    notes = [] if onnx_ready else [f"no {name}.onnx: ONNX Runtime/OpenVINO not considered (run `docauth export`)"]
    fingerprint = probe.fingerprint()
    can_measure = settings.autotune and len(ranking) > 1
    choice = _profile_choice(load_profile(path), name, mode, models_dir, fingerprint, path, ranking, can_measure,
                             notes)
    if choice is not None:
        return choice
    if not can_measure:
        why = "DOCAUTH_AUTOTUNE=0" if not settings.autotune else "only one candidate"
        top = ranking[0].key if ranking else backends.FALLBACK.key
        reason = "; ".join([f"{top}: default ranking, not measured ({why})"] + notes)
        return Choice(ranking, None, reason, "heuristic", notes)
    # Processes that start together (a kiosk's worker and its face processes, a service's workers) measure one
    # at a time, and each reads the profile again once it holds the lock: a model another process has just
    # measured is not measured again, and an entry is added to the file as it is now, not to the copy read
    # before measuring (writing that copy back would drop what the others added meanwhile).
    with _profile_lock(path):
        profile = load_profile(path)
        choice = _profile_choice(profile, name, mode, models_dir, fingerprint, path, ranking, can_measure, [])
        if choice is not None:
            return choice
        # Start-up must stay short: TensorFlow's import alone takes seconds, and keras_tf is the fallback
        # anyway, so the quick tune measures the exported-model backends only (`docauth tune` measures all).
        quick_specs = measuring_order([s for s in ranking if s.name != "keras_tf"] or ranking)
        quick = tune([name], models_dir=models_dir, probe=probe, modes=[mode], seconds_per_case=0.25,
                     batch_sizes=(settings.max_batch_size,), budget_s=settings.autotune_seconds, quick=True,
                     specs={mode: quick_specs})
        try:
            write_profile(merge_profile(profile, quick), path)
        except OSError as exc:
            notes.append(f"could not write {path}: {exc}")
    entry = quick["per_model"].get(name, {}).get(mode)
    if not entry:
        return Choice(ranking, None, "quick tune measured nothing usable: default ranking", "heuristic", notes)
    spec = BackendSpec.from_export(entry["spec"])
    return Choice([spec] + ranking, entry.get("batch"),
                  f"quick start-up tune ({quick['tune_seconds']} s): {entry['reason']}", "quick-tune", notes)


def measuring_order(specs: list[BackendSpec]) -> list[BackendSpec]:
    """``specs`` in the order a bounded tune loads them: devices, then each CPU engine's one-thread fp32
    configuration, then reduced precision, then more threads, so that the engines compete whatever the budget
    leaves out."""
    def rank(indexed):
        i, spec = indexed
        return (not on_device(spec), spec.threads != 1, spec.precision != "fp32", i)

    return [spec for _, spec in sorted(enumerate(specs), key=rank)]


# --- presenting -----------------------------------------------------------------------------------
def format_table(profile: dict) -> str:
    lines = [f"{'mode':10s} {'model':16s} {'backend':40s} {'batch':>5s} {'p50 ms':>9s} {'p95 ms':>9s} "
             f"{'img/s':>9s}  note"]
    for m in profile["measurements"]:
        if m["error"]:
            lines.append(f"{m['mode']:10s} {m['model']:16s} {m['spec']:40s} {m['batch']:5d} {'-':>9s} {'-':>9s} "
                         f"{'-':>9s}  {m['error'][:60]}")
        else:
            note = "" if _accurate(m) else "  (not eligible: answers differ from fp32)"
            if m.get("mask_iou") is not None:
                note = f"  diff {m['max_abs_diff']:.1e} mask IoU {m['mask_iou']:.4f}" + note
            elif m.get("max_abs_diff") is not None:
                note = f"  diff {m['max_abs_diff']:.1e} argmax {m['argmax_agreement']:.2f}" + note
            if m.get("compute_ms_p50") is not None:
                note = f"  compute {m['compute_ms_p50']:.2f} ms" + note
            lines.append(f"{m['mode']:10s} {m['model']:16s} {m['spec']:40s} {m['batch']:5d} "
                         f"{m['latency_ms_p50']:9.2f} {m['latency_ms_p95']:9.2f} {m['throughput_img_s']:9.1f}{note}")
    for mode, entry in profile.get("choice", {}).items():
        lines.append(f"choice {mode}: {entry['reason']}")
    for name, modes in profile.get("per_model", {}).items():
        for mode, entry in modes.items():
            lines.append(f"  {name} {mode}: {entry['spec']['key']} batch {entry['batch']}")
    return "\n".join(lines)


def parse_models(text: str | None, models_dir=None) -> list[str]:
    """``"document,side"`` -> names; None -> every model with metadata and weights in models_dir."""
    if text:
        names = [n.strip() for n in text.split(",") if n.strip()]
        if not names:
            raise ConfigError("no model names given")
        return names
    d = Path(models_dir) if models_dir else Settings.load().models_dir
    return sorted(p.stem for p in d.glob("*.keras") if p.with_suffix(".json").is_file())
