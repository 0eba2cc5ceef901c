"""Injected faults against the real processes: the database goes away, a worker is killed,
a model file is corrupt or missing, a batch scan is SIGKILLed again and again.

These are "@pytest.mark.slow"-free on purpose: each is bounded (about 20-60 s)
and CI runs them with the rest of the suite.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.register_assert_rewrite("http_server", "bad_inputs")

pytest_plugins = ["http_server"]  # the session-wide `server_session` fixture

from http_server import DOCAUTH_CMD, DocauthServer, _base_env, assert_json_error, png_bytes, test_models_dir

TESTS_DIR = Path(__file__).resolve().parent


# -- database unreachable -----------------------------------------------------------------------
class _StoppablePostgres:
    """A private throwaway PostgreSQL (tests/pg_server.py's server) that can be stopped and started again."""

    def __init__(self):
        import pg_server

        bin_dir = pg_server._find_bin_dir()
        if bin_dir is None:
            pytest.skip("no PostgreSQL binaries")
        if os.geteuid() == 0 and shutil.which("runuser") is None:
            pytest.skip("root without runuser")
        self.server = pg_server._PgServer(bin_dir)
        try:
            self.server.start()
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            self.server.stop()
            pytest.skip(f"cannot start PostgreSQL: {exc}")
        self.url = self.server.admin_url

    def _options(self) -> str:
        s = self.server
        return (f"-k {s.root} -p {s.port} -c listen_addresses=127.0.0.1 "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50")

    def down(self) -> None:
        out = self.server._run("pg_ctl", "-D", str(self.server.data), "-m", "fast", "-w", "stop", timeout=60)
        assert out.returncode == 0, out.stderr

    def up(self) -> None:
        out = self.server._run("pg_ctl", "-D", str(self.server.data), "-l", str(self.server.root / "server.log"),
                               "-o", self._options(), "-w", "-t", "60", "start", timeout=90)
        assert out.returncode == 0, out.stderr

    def close(self) -> None:
        self.server.stop()


def _count(url: str, table: str) -> int:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(text(f"select count(*) from {table}")).scalar_one()
    finally:
        engine.dispose()


def test_database_outage_503_then_recovery_without_restart():
    pg = _StoppablePostgres()
    try:
        url = pg.url.replace("postgresql+psycopg://", "postgresql+psycopg://")
        with DocauthServer(workers=1, threads=4, env={"DOCAUTH_DATABASE_URL": url}) as srv:
            workers_before = srv.worker_pids()
            r = srv.post("/v1/persons", json={"surname": "BEFORE"})
            assert r.status_code == 201, r.text[:300]
            assert srv.post("/v1/checks", files={"image": ("a.png", png_bytes(200, 120), "image/png")}).status_code == 200
            # PostgreSQL refuses NUL in text, which SQLite stores: still a clear answer, not a 500
            r = srv.post("/v1/persons", json={"surname": "NUL\x00BYTE"})
            assert r.status_code in (201, 400, 422), r.text[:300]
            persons, checks = _count(url, "persons"), _count(url, "checks")

            pg.down()
            r = srv.get("/readyz")
            body = assert_json_error(r, (503,))
            assert "database" in body["error"]["message"].lower(), body
            assert r.headers.get("Retry-After")
            assert srv.get("/healthz").status_code == 200  # alive, just not ready
            for attempt in (
                lambda: srv.post("/v1/checks", files={"image": ("a.png", png_bytes(200, 120), "image/png")}),
                lambda: srv.post("/v1/persons", json={"surname": "DURING"}),
                lambda: srv.get("/v1/persons"),
            ):
                r = attempt()
                assert_json_error(r, (503,))
                assert r.headers.get("Retry-After")

            pg.up()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and srv.get("/readyz").status_code != 200:
                time.sleep(0.5)
            assert srv.get("/readyz").status_code == 200, srv.get("/readyz").text
            r = srv.post("/v1/checks", files={"image": ("a.png", png_bytes(200, 120), "image/png")})
            assert r.status_code == 200, r.text[:300]
            assert srv.post("/v1/persons", json={"surname": "AFTER"}).status_code == 201
            assert srv.worker_pids() == workers_before  # recovered without a restart
            # nothing half-written during the outage: exactly the requests answered 2xx left rows
            assert _count(url, "persons") == persons + 1
            assert _count(url, "checks") == checks + 1
            surnames = {p["surname"] for p in srv.get("/v1/persons?limit=1000").json()["persons"]}
            assert "DURING" not in surnames and {"BEFORE", "AFTER"} <= surnames
    finally:
        pg.close()


# -- a worker killed mid-request ------------------------------------------------------------------
def test_worker_killed_mid_request_others_serve_and_it_is_replaced(server_session):
    import requests

    sys.path.insert(0, str(TESTS_DIR.parent / "bench"))
    import load_test

    srv = server_session  # two workers
    image = load_test.document_image()  # a photographed passport page: OCR takes long enough to be cut
    victims = srv.worker_pids()
    assert len(victims) == 2, victims
    victim = victims[0]
    ready_lines = srv.log_text().count("ready: pipeline loaded")

    def ocr(_):
        try:
            r = requests.post(srv.url + "/v1/ocr", headers=srv.headers(), timeout=60,
                              files={"image": ("a.jpg", image, "image/jpeg")})
            return r.status_code, time.monotonic()
        except OSError as exc:  # requests the killed worker had accepted lose their connection
            return type(exc).__name__, time.monotonic()

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(ocr, i) for i in range(8)]
        time.sleep(0.4)  # the requests are now inside the workers
        killed_at = time.monotonic()
        os.kill(victim, signal.SIGKILL)
        in_flight = [f.result() for f in futures]
    assert all(s == 200 or isinstance(s, str) for s, _ in in_flight), in_flight  # lost, never a 5xx
    assert any(s != 200 or t > killed_at for s, t in in_flight), "nothing was in flight at the kill"

    # the other worker keeps serving while the master replaces the victim
    statuses = [srv.get("/v1/persons?limit=1").status_code for _ in range(20)]
    assert statuses == [200] * 20, statuses
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        pids = srv.worker_pids()
        if len(pids) == 2 and victim not in pids and srv.log_text().count("ready: pipeline loaded") > ready_lines:
            break
        time.sleep(0.5)
    pids = srv.worker_pids()
    assert len(pids) == 2 and victim not in pids, pids
    assert srv.log_text().count("ready: pipeline loaded") > ready_lines, "the replacement never became ready"
    with ThreadPoolExecutor(4) as pool:
        after = [s for s, _ in pool.map(ocr, range(8))]
    assert after == [200] * 8, after


# -- corrupt or missing model file --------------------------------------------------------------
def _serve_with_models(models_dir: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = _base_env()
    env.update(DOCAUTH_MODELS_DIR=str(models_dir), DOCAUTH_DATA_DIR=str(tmp_path / "data"))
    from http_server import free_port

    try:
        return subprocess.run([*DOCAUTH_CMD, "serve", "--host", "127.0.0.1", "--port", str(free_port())],
                              env=env, capture_output=True, text=True, timeout=60, start_new_session=True)
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode(errors="replace") + (exc.stderr or b"").decode(errors="replace")
        pytest.fail(f"`docauth serve` kept running with a broken model instead of refusing to start:\n{out[-1500:]}")


@pytest.mark.parametrize("fault", ["corrupt_keras", "truncated_keras", "missing_keras", "corrupt_metadata",
                                   "missing_metadata"])
def test_broken_model_file_stops_serve_with_a_clear_error(tmp_path, fault):
    models = tmp_path / "models"
    shutil.copytree(test_models_dir(), models)
    name = {"corrupt_keras": "document.keras", "truncated_keras": "side.keras", "missing_keras": "mrz_lines.keras",
            "corrupt_metadata": "document.json", "missing_metadata": "side.json"}[fault]
    target = models / name
    if fault.startswith("missing"):
        target.unlink()
    elif fault == "truncated_keras":
        data = target.read_bytes()
        target.write_bytes(data[: len(data) // 2])
    elif fault == "corrupt_keras":
        data = bytearray(target.read_bytes())
        data[len(data) // 3: len(data) // 3 + 4096] = os.urandom(4096)
        target.write_bytes(bytes(data))
    else:
        target.write_text('{"name": "document", "labels": [')
    out = _serve_with_models(models, tmp_path)
    text = out.stdout + out.stderr
    assert out.returncode != 0, text[-1500:]
    assert name in text, f"the error does not name {name}:\n{text[-1500:]}"
    assert "Traceback" not in text, text[-3000:]


# -- batch scan killed with SIGKILL, five times ---------------------------------------------------
def _make_images(folder: Path, n: int) -> list[str]:
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(5)
    paths = []
    for i in range(n):
        w, h = (int(rng.integers(120, 260)), int(rng.integers(80, 200)))
        p = folder / f"img_{i:04d}.png"
        Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(p)
        paths.append(str(p))
    (folder / "broken_0001.jpg").write_bytes(b"not an image")
    paths.append(str(folder / "broken_0001.jpg"))
    return paths


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


@pytest.mark.parametrize("workers", [2])  # worker processes: the harder case (one variant keeps this ~40 s)
def test_batch_killed_five_times_resumes_exactly_once(tmp_path, workers):
    images = tmp_path / "images"
    images.mkdir()
    inputs = _make_images(images, 120)
    out_file = tmp_path / "results.jsonl"
    env = _base_env()
    env.update(DOCAUTH_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(TESTS_DIR))
    cmd = [*DOCAUTH_CMD, "batch", str(images), "--out", str(out_file), "--resume", "--workers", str(workers),
           "--chunk", "4", "--pipeline-factory", "pipeline_support:standin_pipeline"]
    rng = random.Random(20261122 + workers)
    kills = 0
    while kills < 5:
        done = _lines(out_file)
        if done >= len(inputs):
            break
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                start_new_session=True)
        target = done + rng.randint(3, 15)
        deadline = time.monotonic() + 120
        while _lines(out_file) < target and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(rng.uniform(0.005, 0.05))
        time.sleep(rng.uniform(0, 0.1))  # somewhere inside the next write, or between two
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the scanner and its worker processes
            kills += 1
        proc.wait(30)
        proc.stderr.close()
    assert kills == 5, f"the scan finished before five kills ({kills})"
    final = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, final.stderr[-2000:]
    assert "Traceback" not in final.stderr
    records = [json.loads(line) for line in out_file.read_text().splitlines()]
    paths = [r["path"] for r in records]
    assert len(paths) == len(set(paths)), "an input appears twice"
    assert sorted(paths) == sorted(inputs), "an input is missing"
    broken = [r for r in records if r["path"].endswith("broken_0001.jpg")]
    assert broken and broken[0].get("error")


# -- model files that do not match their recorded SHA-256 (issue 27) ------------------------------
def _random_block(path: Path, size: int = 4096) -> None:
    """4 KB of random bytes written into the middle of the file: same size, different content."""
    data = bytearray(path.read_bytes())
    start = len(data) // 2
    data[start:start + size] = os.urandom(min(size, len(data) - start))
    path.write_bytes(bytes(data))


def _models_copy(tmp_path: Path) -> Path:
    models = tmp_path / "models"
    shutil.copytree(test_models_dir(), models)
    return models


@pytest.mark.parametrize("fault", ["corrupt_onnx", "corrupt_reader_keras", "corrupt_text_recognizer_onnx",
                                   "no_checksums", "unrecorded_onnx"])
def test_model_file_not_matching_its_checksum_stops_serve_naming_it(tmp_path, fault):
    models = _models_copy(tmp_path)
    if fault == "corrupt_onnx":
        name = "document.onnx"
        if not (models / name).is_file():
            pytest.skip("no shipped document.onnx")
        _random_block(models / name)
    elif fault in ("corrupt_reader_keras", "corrupt_text_recognizer_onnx"):
        # models the OCR stage loads after the classifiers (the MRZ recogniser; the ONNX-only text recogniser)
        name = "mrz_lines.keras" if fault == "corrupt_reader_keras" else "text_recognizer.onnx"
        _random_block(models / name)
    elif fault == "no_checksums":
        name = "side.json"
        meta = json.loads((models / name).read_text())
        meta.pop("sha256")
        (models / name).write_text(json.dumps(meta))
    else:
        name = "mrz_lines.onnx"
        meta = json.loads((models / "mrz_lines.json").read_text())
        if name not in meta["sha256"]:
            pytest.skip("no shipped mrz_lines.onnx")
        del meta["sha256"][name]
        (models / "mrz_lines.json").write_text(json.dumps(meta))
    started = time.monotonic()
    out = _serve_with_models(models, tmp_path)
    text = out.stdout + out.stderr
    assert out.returncode != 0, text[-1500:]
    assert time.monotonic() - started < 60
    assert name in text, f"the error does not name {name}:\n{text[-1500:]}"
    assert "Traceback" not in text, text[-3000:]


def test_a_corrupt_onnx_is_never_run_the_auto_backend_falls_back_and_says_so(tmp_path):
    """In process (the path a replaced file takes after start-up): the ONNX engines refuse it by its hash."""
    from docauth.errors import ModelError
    from docauth.runtime import loading

    models = _models_copy(tmp_path)
    if not (models / "document.onnx").is_file():
        pytest.skip("no shipped document.onnx")
    _random_block(models / "document.onnx")
    with pytest.raises(ModelError, match="document.onnx"):
        loading.load("document", models_dir=models, backend="onnxruntime", mode="realtime")
    model = loading.load("document", models_dir=models, backend="auto", mode="realtime")
    try:
        assert model.backend_name == "keras_tf", model.describe()
        assert "document.onnx" in model.reason and "SHA-256" in model.reason, model.reason
    finally:
        model.close()


# -- batch workers die with their parent (issue 27) ------------------------------------------------
def _session_processes(sid: int) -> list:
    import psutil

    found = []
    for p in psutil.process_iter(["pid", "cmdline"]):
        try:
            if os.getsid(p.info["pid"]) == sid and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p.info)
        except (ProcessLookupError, PermissionError, psutil.Error):
            continue
    return found


def test_sigkill_of_batch_leaves_no_worker_process(tmp_path):
    images = tmp_path / "images"
    images.mkdir()
    _make_images(images, 200)
    out_file = tmp_path / "results.jsonl"
    env = _base_env()
    env.update(DOCAUTH_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(TESTS_DIR))
    cmd = [*DOCAUTH_CMD, "batch", str(images), "--out", str(out_file), "--workers", "2", "--chunk", "4",
           "--pipeline-factory", "pipeline_support:standin_pipeline"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)  # its own session: every process it starts is findable
    try:
        deadline = time.monotonic() + 120
        while _lines(out_file) < 8 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the scan ended before it could be killed"
        assert len(_session_processes(proc.pid)) >= 3, _session_processes(proc.pid)  # scanner + 2 workers
        os.kill(proc.pid, signal.SIGKILL)  # the scanner alone, as an OOM killer or an operator would
        proc.wait(10)
        deadline = time.monotonic() + 10
        while _session_processes(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _session_processes(proc.pid) == [], _session_processes(proc.pid)
    finally:
        for p in _session_processes(proc.pid):
            os.kill(p["pid"], signal.SIGKILL)
