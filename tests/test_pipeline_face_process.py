"""The realtime face stage in a child process: same answers as in process, errors keep their codes,
and the child does not outlive its parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from docauth.errors import InputError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def stages():
    from docauth.pipeline.face_process import FaceProcessStage
    from docauth.pipeline.faces import FaceStage

    remote = FaceProcessStage.load()
    yield FaceStage.load(), remote
    remote.close()


def test_the_child_gives_the_same_encoding_as_in_process(stages):
    import skimage.data

    local, remote = stages
    photo = skimage.data.astronaut()
    (enc_local, info_local), (enc_remote, info_remote) = local.encode(photo), remote.encode(photo)
    assert enc_remote is not None and np.allclose(enc_local, enc_remote)
    assert info_local == info_remote
    assert np.allclose(remote.encode_enrolment(photo), local.encode_enrolment(photo))
    assert remote.distance(np.stack([enc_local]), enc_remote)[0] < 1e-6


def test_enrolment_errors_cross_back_with_their_code(stages):
    _local, remote = stages
    with pytest.raises(InputError) as caught:
        remote.encode_enrolment(np.full((200, 300, 3), 128, np.uint8))
    assert caught.value.code == "no_face"


def test_a_dead_face_process_fails_one_call_then_is_replaced(stages):
    from docauth.errors import Unavailable

    _local, remote = stages
    killed = [child.proc.pid for child in remote._children]
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    # Each dead child costs at most one call, answered with a clear error (whether a child is seen dead before
    # the call or only when its pipe breaks depends on how soon the kernel finishes it); then new children serve.
    face = __import__("skimage.data").data.astronaut()
    failures = []
    for _attempt in range(len(killed) + 1):
        try:
            encoding, _info = remote.encode(face)
            break
        except Unavailable as exc:
            failures.append(exc.code)
    else:
        pytest.fail(f"no call succeeded after {len(killed)} children were killed: {failures}")
    assert encoding is not None
    assert set(failures) <= {"face_process_failed"} and len(failures) <= len(killed)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split()[2] != "Z"


def test_the_child_exits_when_its_parent_is_killed():
    script = ("from docauth.pipeline.face_process import FaceProcessStage\n"
              "import numpy as np, sys, time\n"
              "stage = FaceProcessStage.load()\n"
              "stage.encode(np.full((64, 64, 3), 128, np.uint8))\n"
              "print(stage._children[0].proc.pid, flush=True)\n"
              "time.sleep(600)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        child = int(parent.stdout.readline())
        assert _alive(child)
        parent.send_signal(signal.SIGKILL)  # no chance to shut its pool down
        parent.wait(10)
        deadline = time.monotonic() + 10
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(child), "the face process outlived its parent"
    finally:
        parent.kill()


def test_children_load_side_by_side_and_are_all_ready_before_the_first_call():
    from docauth.pipeline.face_process import FaceProcessStage

    stage = FaceProcessStage.load(wait=False)
    try:
        # Both children were started at once, and none was waited for yet (dlib loads in each, in parallel).
        assert all(c.proc is not None and c.proc.poll() is None and not c.greeted for c in stage._children)
        stage.wait_started()
        assert all(c.greeted for c in stage._children)
        pids = [c.proc.pid for c in stage._children]
        stage.encode(np.full((64, 64, 3), 128, np.uint8))
        assert [c.proc.pid for c in stage._children] == pids  # no child was started again
    finally:
        stage.close()


def _face_children() -> set[int]:
    """Face processes of this test process that are alive (an earlier test's killed ones may linger as zombies)."""
    import psutil

    pids = set()
    for child in psutil.Process().children():
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "docauth.pipeline.face_child" in " ".join(child.cmdline()):
                pids.add(child.pid)
        except psutil.Error:
            continue  # gone while looking: not alive
    return pids


def test_a_pipeline_that_fails_to_load_leaves_no_face_process(tmp_path):
    from docauth.config import Settings
    from docauth.errors import DocauthError
    from docauth.pipeline import Pipeline

    before = _face_children()
    settings = Settings.load(environ={"DOCAUTH_AUTOTUNE": "0"}, data_dir=tmp_path, models_dir=tmp_path / "no-models",
                             mode="realtime", face_process=True)
    with pytest.raises(DocauthError):
        Pipeline.load(settings)  # no models there: the classifier cannot load, after the face processes started
    assert _face_children() - before == set()


def test_a_child_without_its_descriptor_model_raises_the_model_error_here(tmp_path, monkeypatch, capfd):
    from docauth.errors import ModelError
    from docauth.pipeline.face_process import FaceProcessStage

    monkeypatch.setenv("DOCAUTH_MODELS_DIR", str(tmp_path))  # the child reads its settings from the environment
    with pytest.raises(ModelError, match="face_embedder"):
        FaceProcessStage.load(children=1)
    assert "Traceback" not in capfd.readouterr().err


def test_a_child_started_inside_another_checkout_runs_this_docauth(tmp_path, monkeypatch):
    from docauth.pipeline.face_process import FaceProcessStage

    # A docauth package in the working folder that cannot be imported: a child that looked there would not start.
    (tmp_path / "docauth").mkdir()
    (tmp_path / "docauth" / "__init__.py").write_text("raise ImportError('another checkout')\n")
    monkeypatch.chdir(tmp_path)
    stage = FaceProcessStage.load(children=1)
    try:
        encoding, _info = stage.encode(np.full((64, 64, 3), 128, np.uint8))
        assert encoding is None  # answered by a working face stage
    finally:
        stage.close()


def test_the_face_process_module_leaves_the_checks_stages_unimported():
    # Each face process imports it: the classifiers, the reader and the store would cost it seconds and memory.
    code = ("import sys, docauth.pipeline.face_process; "
            "print(sorted(m for m in ('docauth.pipeline.pipeline', 'docauth.ocr.reader', 'docauth.store.db', "
            "'sqlalchemy', 'face_recognition') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"
