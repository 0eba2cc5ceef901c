"""The archive scanner: inputs, the append-only results file, SIGKILL + resume, engines.

The kill/resume and engine tests exercise the scanner's machinery with the
stand-in pipeline (``--pipeline-factory``; fast and deterministic), as a real
``docauth batch`` subprocess killed with SIGKILL. The 1,000-image run with the
shipped models is bench/bench_batch_resume.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from docauth.batch.inputs import expand_inputs
from docauth.batch.journal import ResultJournal
from docauth.imageio import encode_jpeg, encode_png

ROOT = Path(__file__).resolve().parent.parent
DOCAUTH = ROOT / ".venv" / "bin" / "docauth"
FACTORY = "pipeline_support:standin_pipeline"


def _env(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "tests") + os.pathsep + env.get("PYTHONPATH", "")
    env["DOCAUTH_DATA_DIR"] = str(tmp_path / "data")
    env["OMP_THREAD_LIMIT"] = "1"
    return env


def make_archive(folder: Path, count: int) -> list[str]:
    """``count`` images (oblong 'documents' and square 'photos') in nested folders, plus two bad files."""
    rng = np.random.default_rng(0)
    paths = []
    for i in range(count):
        sub = folder / f"box{i % 3}"
        sub.mkdir(parents=True, exist_ok=True)
        h, w = (120, 190) if i % 4 else (150, 150)
        pixels = rng.integers(0, 255, (h, w, 3), dtype=np.uint8)
        p = sub / f"img{i:04d}.{'png' if i % 2 else 'jpg'}"
        p.write_bytes(encode_png(pixels) if i % 2 else encode_jpeg(pixels))
        paths.append(str(p))
    (folder / "box0" / "corrupt.jpg").write_bytes(b"\xff\xd8\xff" + b"\x00garbage" * 10)
    (folder / "box1" / "empty.png").write_bytes(b"")
    return paths + [str(folder / "box0" / "corrupt.jpg"), str(folder / "box1" / "empty.png")]


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# -- inputs and the journal ----------------------------------------------------------------------
def test_inputs_from_folders_globs_and_list_files(tmp_path):
    paths = make_archive(tmp_path / "a", 6)
    (tmp_path / "list.txt").write_text(f"# a list\n{paths[0]}\n\na/box1/img0001.png\n")
    got = expand_inputs([str(tmp_path / "a" / "box2"), str(tmp_path / "a" / "box0" / "*.jpg"),
                         "@" + str(tmp_path / "list.txt"), str(tmp_path / "nope.png")])
    names = [Path(p).name for p in got.paths]
    assert names == ["img0002.jpg", "img0005.png", "corrupt.jpg", "img0000.jpg", "img0001.png"]
    assert len(set(got.paths)) == len(got.paths)  # img0000 via glob and list: once
    assert got.missing == [str(tmp_path / "nope.png")]


def test_journal_discards_a_torn_last_line_and_never_repeats(tmp_path):
    out = tmp_path / "r.jsonl"
    with ResultJournal(out) as j:
        for i in range(3):
            j.append({"path": f"/x/{i}", "decision": "accept"})
    with open(out, "ab") as f:
        f.write(b'{"path": "/x/3", "decision": "acc')
    with pytest.raises(Exception, match="--resume"):
        ResultJournal(out)
    j = ResultJournal(out, resume=True)
    assert j.done == {"/x/0", "/x/1", "/x/2"} and j.discarded_bytes > 0
    j.append({"path": "/x/3", "decision": "review"})
    j.close()
    assert [r["path"] for r in read_lines(out)] == ["/x/0", "/x/1", "/x/2", "/x/3"]


# -- a real run, killed and resumed ----------------------------------------------------------------
def test_sigkill_mid_run_then_resume_gives_every_input_exactly_once(tmp_path):
    inputs = make_archive(tmp_path / "archive", 60)
    out = tmp_path / "results.jsonl"
    env = _env(tmp_path)
    cmd = [str(DOCAUTH), "batch", str(tmp_path / "archive"), "--out", str(out), "--pipeline-factory", FACTORY,
           "--chunk", "2"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if out.exists() and out.read_text().count("\n") >= 15:
            break
        if proc.poll() is not None:
            pytest.fail(f"finished before the kill: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    done_before = read_lines(out)
    assert 15 <= len(done_before) < len(inputs)
    with open(out, "ab") as f:  # as if the kill had landed inside a write
        f.write(b'{"path": "' + inputs[-3].encode() + b'", "decis')

    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode != 0 and "--resume" in again.stderr  # never silently appends to an old run

    resumed = subprocess.run(cmd + ["--resume", "--workers", "2"], env=env, capture_output=True, text=True,
                             timeout=180)
    summary = json.loads(resumed.stdout.strip().splitlines()[-1])["summary"]
    assert resumed.returncode == (1 if summary["errors"] else 0), resumed.stderr[-3000:]  # 1: some inputs failed
    assert summary["skipped"] == len(done_before) and summary["discarded_partial_line"] is True
    assert "img/s" in resumed.stderr and "ETA" not in resumed.stderr  # the summary; no progress bar off a terminal

    records = read_lines(out)
    counts = Counter(r["path"] for r in records)
    assert set(counts) == set(inputs)
    assert max(counts.values()) == 1
    errors = {Path(r["path"]).name: r["error"]["code"] for r in records if "error" in r}
    assert errors == {"corrupt.jpg": "invalid_image", "empty.png": "empty_file"}
    for r in records:
        if "error" not in r:
            square = Path(r["path"]).stem.startswith("img") and int(Path(r["path"]).stem[3:]) % 4 == 0
            assert ("not_a_document" in r["reasons"]) == square
            assert r["result"]["decision"] == r["decision"]


def test_ray_engine_writes_the_same_results_as_local(tmp_path):
    pytest.importorskip("ray")
    make_archive(tmp_path / "archive", 5)
    env = _env(tmp_path)
    base = [str(DOCAUTH), "batch", str(tmp_path / "archive"), "--pipeline-factory", FACTORY, "--chunk", "2"]
    local = subprocess.run(base + ["--out", str(tmp_path / "local.jsonl")], env=env, capture_output=True,
                           text=True, timeout=120)
    assert local.returncode == 1, local.stderr[-2000:]  # the archive's two bad files
    ray_run = subprocess.run(base + ["--out", str(tmp_path / "ray.jsonl"), "--engine", "ray", "--workers", "2"],
                             env=env, capture_output=True, text=True, timeout=300)
    assert ray_run.returncode == 1, ray_run.stderr[-3000:]

    def by_path(name):
        return {r["path"]: (r.get("decision"), r.get("reasons"), (r.get("error") or {}).get("code"))
                for r in read_lines(tmp_path / name)}

    local_results, ray_results = by_path("local.jsonl"), by_path("ray.jsonl")
    assert len(local_results) == 7
    assert ray_results == local_results


def test_pdf_pages_are_rendered_and_reported_in_one_line(tmp_path):
    import shutil

    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    from PIL import Image

    from docauth.batch.scan import scan
    from docauth.config import Settings
    from pipeline_support import standin_pipeline

    pages = [Image.new("RGB", (850, 550), (230, 230, 220)), Image.new("RGB", (600, 600), (40, 90, 160))]
    pdf = tmp_path / "archive" / "scan.pdf"
    pdf.parent.mkdir()
    pages[0].save(pdf, save_all=True, append_images=pages[1:], resolution=100)
    (tmp_path / "archive" / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    settings = Settings.load(environ={}, data_dir=tmp_path / "data", mode="throughput")
    out = tmp_path / "r.jsonl"
    summary = scan([str(tmp_path / "archive")], out, settings, pipeline=standin_pipeline(settings),
                   progress_stream=open(os.devnull, "w"))
    records = {Path(r["path"]).name: r for r in read_lines(out)}
    assert summary.scanned == 2 and summary.errors == 1
    assert records["broken.pdf"]["error"]["code"] == "invalid_pdf"
    doc = records["scan.pdf"]
    assert [p["page"] for p in doc["pages"]] == [1, 2]
    assert [("not_a_document" in p["reasons"]) for p in doc["pages"]] == [False, True]
    assert doc["decision"] == "reject"  # the worst page decides


def test_a_callers_bar_moves_with_every_result_written(tmp_path):
    from docauth.batch.scan import scan
    from docauth.config import Settings
    from pipeline_support import standin_pipeline

    archive = tmp_path / "archive"
    archive.mkdir()
    for i in range(3):
        (archive / f"not-an-image-{i}.jpg").write_bytes(b"junk")
    settings = Settings.load(environ={}, data_dir=tmp_path / "data", mode="throughput")
    out = tmp_path / "r.jsonl"
    moves: list[int] = []
    scan([str(archive), str(tmp_path / "missing.jpg")], out, settings, pipeline=standin_pipeline(settings),
         chunk=2, on_done=moves.append)
    assert sum(moves) == len(read_lines(out)) == 4 and len(moves) >= 2  # the missing file's line counts too
