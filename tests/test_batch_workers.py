"""The archive scanner's workers each run on their share of the cores: thread pools sized to cores // workers
(ONNX Runtime, OpenVINO, OpenCV, OpenBLAS/OpenMP), Tesseract reads one after the other in a one-core share,
model calls wait for no companions (one caller per process), and chunks small enough to share the work out.
Speed itself is a benchmark (bench/bench_batch_scale.py), not asserted here."""

from __future__ import annotations

import json
import os
import subprocess

import cv2
import numpy as np

from docauth.batch.scan import CHUNKS_PER_WORKER, chunk_size
from docauth.batch.worker_threads import thread_environment, worker_environment, worker_share
from docauth.config import Settings
from docauth.ocr.tesseract import LibraryTesseract
from docauth.runtime.backends import within_share
from docauth.runtime.engines.base import BackendSpec
from docauth.runtime.probe import cpu_facts
from docauth.runtime.threading import PROCESS_THREADS_ENV, plan_for, process_threads
from test_batch_scan import DOCAUTH, _env, make_archive

FACTORY = "pipeline_support:thread_facts_pipeline"
LOAD_LOG_FACTORY = "pipeline_support:load_log_pipeline"


def test_each_worker_process_gets_its_share_of_the_cores_everywhere(tmp_path):
    make_archive(tmp_path / "archive", 6)
    facts_dir = tmp_path / "facts"
    facts_dir.mkdir()
    env = _env(tmp_path)
    for key in (PROCESS_THREADS_ENV, "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env.pop(key, None)
    env["THREAD_FACTS_DIR"] = str(facts_dir)
    proc = subprocess.run([str(DOCAUTH), "batch", str(tmp_path / "archive"), "--out", str(tmp_path / "r.jsonl"),
                           "--workers", "2", "--pipeline-factory", FACTORY], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr[-3000:]  # the archive's two bad files
    facts = [json.loads(p.read_text()) for p in facts_dir.glob("*.json")]
    assert len(facts) == 2, facts  # one per worker process
    share = worker_share(2)
    for f in facts:
        assert f["DOCAUTH_PROCESS_THREADS"] == str(share)
        assert f["OMP_NUM_THREADS"] == f["OPENBLAS_NUM_THREADS"] == str(share)
        assert f["OMP_THREAD_LIMIT"] == "1"
        assert f["cv2_threads"] == share
        assert f["ort_intra_op_threads"] == share
        assert f["max_queue_delay_ms"] == 0.0
        # numpy's and OpenCV's OpenBLAS were loaded (sized to the machine) by the scanner before the fork
        assert f["openblas_threads"] and set(f["openblas_threads"]) == {share}, f
        assert f["forked"] is True  # the scanner is one thread without models: its workers fork from it
    # The scanner's own environment is left as it was.
    assert PROCESS_THREADS_ENV not in os.environ or os.environ[PROCESS_THREADS_ENV] == env.get(PROCESS_THREADS_ENV)


def test_share_divides_the_physical_cores_and_caps_every_engines_threads(monkeypatch):
    assert worker_share(2, cores=2) == 1 and worker_share(2, cores=16) == 8 and worker_share(3, cores=2) == 1
    assert worker_share(1, cores=4) == 4
    monkeypatch.delenv(PROCESS_THREADS_ENV, raising=False)
    assert process_threads() == cpu_facts()[0]
    assert within_share(BackendSpec("openvino")) == BackendSpec("openvino")  # no share: the engine's default
    monkeypatch.setenv(PROCESS_THREADS_ENV, "1")
    assert process_threads() == 1
    assert within_share(BackendSpec("openvino")).threads == 1
    assert within_share(BackendSpec("onnxruntime", threads=4)).threads == 1
    assert plan_for("throughput").intra_op == 1  # TensorFlow's plan too
    monkeypatch.setenv(PROCESS_THREADS_ENV, "999")
    assert process_threads() == cpu_facts()[0]  # never more than the cores
    monkeypatch.setenv(PROCESS_THREADS_ENV, "many")
    assert process_threads() == cpu_facts()[0]


def test_worker_environment_keeps_the_operators_values_and_is_undone(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv(PROCESS_THREADS_ENV, raising=False)
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    with worker_environment(1) as applied:
        assert os.environ["OMP_NUM_THREADS"] == "3" and "OMP_NUM_THREADS" not in applied
        assert os.environ[PROCESS_THREADS_ENV] == "1" and os.environ["OPENBLAS_NUM_THREADS"] == "1"
    assert PROCESS_THREADS_ENV not in os.environ and "OPENBLAS_NUM_THREADS" not in os.environ
    assert os.environ["OMP_NUM_THREADS"] == "3"
    assert set(thread_environment(2)) >= {PROCESS_THREADS_ENV, "OMP_NUM_THREADS", "OMP_THREAD_LIMIT"}


def test_chunks_share_the_work_out_among_workers():
    settings = Settings.load(environ={})
    assert chunk_size(1000, 1, settings) == 16
    assert chunk_size(1000, 2, settings) == 16
    small = chunk_size(120, 2, settings)
    assert -(-120 // small) >= 2 * CHUNKS_PER_WORKER and small >= 1
    assert chunk_size(3, 4, settings) == 1


def test_tesseract_reads_one_after_the_other_in_a_one_core_share(monkeypatch):
    images = [np.full((40, 200), 255, np.uint8) for _ in range(3)]
    for image, word in zip(images, ("ALPHA", "BRAVO", "DELTA")):
        cv2.putText(image, word, (5, 30), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 0, 2)
    monkeypatch.setenv(PROCESS_THREADS_ENV, "1")
    engine = LibraryTesseract()
    try:
        sequential = engine.data_each(images)
        assert engine._helpers is None  # no helper threads were started
        assert [" ".join(d["text"]).strip() for d in sequential] == ["ALPHA", "BRAVO", "DELTA"]
        monkeypatch.setenv(PROCESS_THREADS_ENV, "2")
        if process_threads() >= 2:
            assert engine.data_each(images) == sequential  # the same reads, side by side
            assert engine._helpers is not None
    finally:
        engine.close()


def test_auto_workers_one_per_core_each_loads_once_after_it_starts(tmp_path):
    inputs = make_archive(tmp_path / "archive", 24)
    env = _env(tmp_path)
    env.pop(PROCESS_THREADS_ENV, None)
    env["LOAD_LOG"] = str(tmp_path / "loads.log")
    proc = subprocess.Popen([str(DOCAUTH), "batch", str(tmp_path / "archive"), "--out", str(tmp_path / "r.jsonl"),
                             "--workers", "auto", "--chunk", "2", "--pipeline-factory", LOAD_LOG_FACTORY],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 1, stderr[-3000:]  # the archive's two bad files
    summary = json.loads(stdout.strip().splitlines()[-1])["summary"]
    cores = cpu_facts()[0]
    assert summary["scanned"] == len(inputs)  # the bad files among them
    assert summary["workers"] == cores and summary["threads_per_worker"] == worker_share(cores) == 1
    loads = [line.split() for line in (tmp_path / "loads.log").read_text().splitlines()]
    pids = [int(load[0]) for load in loads]
    if cores == 1:  # one worker: the scanner itself, on every core
        assert pids == [proc.pid]
    else:
        # Once per worker process whatever the number of chunks, each on one thread, none in the scanner.
        assert len(pids) == len(set(pids)) == cores, loads
        assert proc.pid not in pids
        assert all(load[1:] == ["1"] for load in loads), loads


def test_workers_other_than_a_count_or_auto_are_refused(tmp_path):
    from click.testing import CliRunner

    from docauth.batch.cli import batch

    for value, message in (("many", "neither a number nor 'auto'"), ("0", "not between 1 and 256")):
        result = CliRunner().invoke(batch, [str(tmp_path), "--out", str(tmp_path / "r.jsonl"), "--workers", value])
        assert result.exit_code == 2 and message in result.output, result.output
    assert not (tmp_path / "r.jsonl").exists()


def test_workers_are_spawned_where_a_fork_would_copy_a_running_thread():
    import sys
    import threading

    from docauth.batch.local_engine import FRAMEWORKS, start_method

    stop = threading.Event()
    busy = threading.Thread(target=stop.wait)
    busy.start()
    try:
        assert start_method() == "spawn"
    finally:
        stop.set()
        busy.join()
    assert start_method() == ("fork" if FRAMEWORKS.isdisjoint(sys.modules) else "spawn")
    import onnxruntime  # noqa: F401  (a framework loaded in the scanner: its pools must not be forked)
    assert start_method() == "spawn"
