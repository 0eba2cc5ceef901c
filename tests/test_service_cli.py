"""``docauth keys`` and ``docauth serve`` argument handling, as subprocesses."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCAUTH = ROOT / ".venv" / "bin" / "docauth"


def run(args, data_dir, **env):
    return subprocess.run([str(DOCAUTH), *args], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, DOCAUTH_DATA_DIR=str(data_dir), **env))


def test_keys_create_list_revoke(tmp_path):
    created = run(["keys", "create", "--name", "desk-7"], tmp_path)
    assert created.returncode == 0, created.stderr
    lines = created.stdout.strip().splitlines()
    key = lines[-1]
    assert key.startswith("dak_") and len(key) >= 40 and key.strip() == key
    assert key not in "\n".join(lines[:-1])  # alone on its line, shown once

    from docauth.store import Store

    store = Store(f"sqlite:///{tmp_path / 'docauth.sqlite3'}")
    try:
        assert store.verify_api_key(key).name == "desk-7"
        assert key not in (tmp_path / "docauth.sqlite3").read_bytes().decode("latin-1")  # only its hash is stored
    finally:
        store.close()

    listed = run(["keys", "list"], tmp_path)
    assert "desk-7" in listed.stdout and "active" in listed.stdout and key not in listed.stdout
    revoked = run(["keys", "revoke", "1"], tmp_path)
    assert revoked.returncode == 0 and "revoked" in revoked.stdout
    missing = run(["keys", "revoke", "42"], tmp_path)
    assert missing.returncode != 0 and "no API key with id 42" in missing.stderr and "Traceback" not in missing.stderr


def test_serve_rejects_bad_settings_with_a_message(tmp_path):
    bad = run(["serve", "--mode", "fast"], tmp_path)
    assert bad.returncode != 0 and "fast" in bad.stderr and "Traceback" not in bad.stderr
    bad_env = run(["serve", "--port", "0"], tmp_path, DOCAUTH_MAX_BATCH_SIZE="many")
    assert bad_env.returncode != 0 and "DOCAUTH_MAX_BATCH_SIZE" in bad_env.stderr
    assert "Traceback" not in bad_env.stderr


def test_serve_without_models_stops_at_start_naming_the_file(tmp_path):
    empty = tmp_path / "models"
    empty.mkdir()
    proc = run(["serve", "--port", "0"], tmp_path / "data", DOCAUTH_MODELS_DIR=str(empty))
    assert proc.returncode != 0
    assert f"{empty / 'document.json'}" in proc.stderr and "Traceback" not in proc.stderr
