"""The real docauth server in a subprocess, for the security, reliability and fuzz tests.

    with DocauthServer(workers=1) as srv:          # `docauth serve` on a free loopback port
        r = srv.post("/v1/classify", files={"image": png})
        srv.log_text()                              # everything the server printed

Each server gets its own temporary ``DOCAUTH_DATA_DIR`` (SQLite database,
keys) and an API key made with ``docauth keys create``, exactly as an operator
would. The models are the shipped ones when ``models/`` has them; otherwise
small untrained stand-ins with the same names, labels and input shapes are
built once (cached in the temp dir), so these tests exercise the real loading,
decoding, HTTP and store code without waiting for trained weights.

``server_session`` is a pytest fixture: one shared server for the tests that
only need "a normal server"; fault tests start their own.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DOCAUTH_CMD = [sys.executable, "-m", "docauth"]
STANDIN_CACHE = Path(tempfile.gettempdir()) / "docauth-test-untrained-models-v5"
REQUIRED_MODELS = ("document", "side", "mrz_lines")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _models_complete(d: Path) -> bool:
    return all((d / f"{n}.keras").is_file() and (d / f"{n}.json").is_file() for n in REQUIRED_MODELS)


def test_models_dir() -> Path:
    """The shipped models when complete, else cached untrained stand-ins (same names, labels, shapes)."""
    shipped = PROJECT_ROOT / "models"
    if _models_complete(shipped):
        return shipped
    if _models_complete(STANDIN_CACHE):
        return STANDIN_CACHE
    building = Path(tempfile.mkdtemp(prefix="docauth-standin-"))
    code = (
        "import sys\n"
        "from docauth.runtime.untrained import build_untrained_model as b\n"
        "from docauth.ocr.mrz.line_model import build_model\n"
        "from docauth.training.line_model import write_model\n"
        "d = sys.argv[1]\n"
        "b(d, 'document', height=128, width=128, labels=('not_document', 'document'), seed=1)\n"
        "b(d, 'side', height=128, width=128, labels=('front', 'back', 'open'), seed=2)\n"
        "write_model(build_model()[1], d, training={'note': 'untrained stand-in'}, metrics={})\n"
    )
    subprocess.run([sys.executable, "-c", code, str(building)], check=True, capture_output=True, timeout=300,
                   env=_base_env())
    try:
        building.rename(STANDIN_CACHE)
    except OSError:  # another process built it first
        shutil.rmtree(building, ignore_errors=True)
    return STANDIN_CACHE


test_models_dir.__test__ = False  # not a test, despite the name


def _base_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCAUTH_")}
    env.update(OMP_THREAD_LIMIT="1", TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1",
               DOCAUTH_AUTOTUNE="0", CUDA_VISIBLE_DEVICES="")
    if os.environ.get("DOCAUTH_SHARED_DATA"):
        env["DOCAUTH_SHARED_DATA"] = os.environ["DOCAUTH_SHARED_DATA"]
    return env


class DocauthServer:
    """``docauth serve`` as an operator runs it, on 127.0.0.1:<free port>."""

    def __init__(self, *, workers: int | None = 1, threads: int | None = 4, mode: str = "realtime",
                 env: dict | None = None,
                 models_dir: Path | None = None, data_dir: Path | None = None, ready_timeout: float = 180.0,
                 wait_ready: bool = True):
        self.workers = workers
        self.threads = threads
        self.mode = mode
        self.extra_env = dict(env or {})
        self.models_dir = Path(models_dir) if models_dir else test_models_dir()
        self._own_data_dir = data_dir is None
        self.data_dir = Path(data_dir) if data_dir else Path(tempfile.mkdtemp(prefix="docauth-srv-"))
        self.tmp_dir = Path(tempfile.mkdtemp(prefix="docauth-srv-tmp-"))  # the server's TMPDIR
        self.log_path = self.tmp_dir.parent / f"{self.tmp_dir.name}.log"
        self.ready_timeout = ready_timeout
        self.wait_ready = wait_ready
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.key: str | None = None
        self.key_id: int | None = None
        import requests

        self.http = requests.Session()

    # -- environment and CLI ---------------------------------------------------------------
    @property
    def env(self) -> dict:
        env = _base_env()
        env.update(DOCAUTH_DATA_DIR=str(self.data_dir), DOCAUTH_MODELS_DIR=str(self.models_dir),
                   TMPDIR=str(self.tmp_dir), DOCAUTH_LOG_LEVEL="INFO")
        env.update({k: str(v) for k, v in self.extra_env.items()})
        return env

    def cli(self, *args: str, timeout: float = 120, input: str | None = None) -> subprocess.CompletedProcess:
        """``docauth ARGS`` with this server's environment (same database)."""
        return subprocess.run([*DOCAUTH_CMD, *args], env=self.env, capture_output=True, text=True,
                              timeout=timeout, input=input, cwd=self.tmp_dir)

    def create_key(self, name: str = "test", *, with_cli: bool = False) -> tuple[int, str]:
        """(id, key) of a new API key in this server's database (in-process: 4 s faster than the CLI)."""
        if with_cli:
            out = self.cli("keys", "create", "--name", name)
            assert out.returncode == 0, out.stderr
            lines = out.stdout.strip().splitlines()
            return int(lines[0].split("#", 1)[1].split()[0]), lines[-1].strip()
        from docauth.config import Settings
        from docauth.service.keys import KeyRing
        from docauth.store import Store

        store = Store.from_settings(Settings.load(environ=self.env))
        try:
            store.upgrade()
            record, key = KeyRing(store).create(name)
        finally:
            store.close()
        return record.id, key

    # -- life cycle ------------------------------------------------------------------------
    def start(self) -> "DocauthServer":
        self.key_id, self.key = self.create_key("test")
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [*DOCAUTH_CMD, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--mode", self.mode,
             *(["--workers", str(self.workers)] if self.workers else []),
             *(["--threads", str(self.threads)] if self.threads else [])],
            env=self.env, stdout=self._log, stderr=subprocess.STDOUT, cwd=self.tmp_dir, start_new_session=True)
        if self.wait_ready:
            self.wait_until_ready()
        return self

    def wait_until_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout or self.ready_timeout)
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"docauth serve exited with {self.proc.returncode}:\n{self.log_text()[-3000:]}")
            try:
                r = self.http.get(self.url + "/readyz", timeout=5)
                last = r.status_code, r.text[:300]
                if r.status_code == 200 and self._all_workers_ready():
                    return
                if r.status_code == 503 and "models_failed" in r.text:
                    raise RuntimeError(f"models failed to load: {r.text}\n{self.log_text()[-3000:]}")
            except OSError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"server not ready after {timeout or self.ready_timeout}s (last {last}):\n"
                           f"{self.log_text()[-3000:]}")

    def _all_workers_ready(self) -> bool:
        # With several workers /readyz lands on one of them; each logs "ready:" once warmed. Without --workers
        # the mode's default started as many as gunicorn booted.
        log = self.log_text()
        return log.count("ready: pipeline loaded") >= (self.workers or log.count("Booting worker"))

    def stop(self) -> None:
        self.http.close()  # idle keep-alive connections would hold a graceful shutdown up
        if self.proc is not None and self.proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 5), (signal.SIGINT, 10), (signal.SIGKILL, 10)):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if getattr(self, "_log", None):
            self._log.close()
        shutil.rmtree(self.tmp_dir, ignore_errors=True)
        if self._own_data_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc):
        self.stop()

    # -- observing -------------------------------------------------------------------------
    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def worker_pids(self) -> list[int]:
        import psutil

        return [c.pid for c in psutil.Process(self.proc.pid).children(recursive=False)]

    def rss_bytes(self) -> int:
        """Resident memory of the master and its workers."""
        import psutil

        master = psutil.Process(self.proc.pid)
        return sum(p.memory_info().rss for p in [master, *master.children(recursive=True)])

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # -- HTTP ------------------------------------------------------------------------------
    def headers(self, key: str | None = "default") -> dict:
        key = self.key if key == "default" else key
        return {"Authorization": f"Bearer {key}"} if key else {}

    def request(self, method: str, path: str, *, key: str | None = "default", timeout: float = 60, **kw):
        headers = {**self.headers(key), **kw.pop("headers", {})}
        return self.http.request(method, self.url + path, headers=headers, timeout=timeout, **kw)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def assert_healthy(self) -> None:
        """The server still answers a normal authenticated request."""
        r = self.get("/v1/persons?limit=1", timeout=30)
        assert r.status_code == 200, (r.status_code, r.text[:300])
        assert self.alive()


def assert_json_error(response, statuses=range(400, 500)) -> dict:
    """A 4xx (by default) JSON ``{"error": {"code", "message"}}`` without a traceback."""
    assert response.status_code in statuses, (response.status_code, response.text[:500])
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    body = response.json()
    assert isinstance(body.get("error"), dict), body
    assert isinstance(body["error"].get("code"), str) and body["error"]["code"], body
    assert isinstance(body["error"].get("message"), str) and body["error"]["message"], body
    assert "Traceback" not in response.text
    return body


@pytest.fixture(scope="session")
def server_session():
    """One shared real server for the tests that need an ordinary one (each server start costs ~20 s).

    Two workers (the realtime default on 2 cores), so the worker-kill and load tests see a
    production layout; the per-key rate limit is off here (the load test measures the
    service, not the limiter) and tested on its own server in test_security_access.py.
    """
    with DocauthServer(workers=2, threads=4, env={"DOCAUTH_RATE_LIMIT_PER_MINUTE": 0}) as srv:
        yield srv


def png_bytes(width: int = 64, height: int = 48, mode: str = "RGB", color=(200, 40, 40)) -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new(mode, (width, height), color if mode == "RGB" else 128).save(buf, format="PNG")
    return buf.getvalue()


def dump(obj) -> str:
    return json.dumps(obj, indent=1)[:2000]
