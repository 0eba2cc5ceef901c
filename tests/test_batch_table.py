"""``docauth batch``: the CSV beside the JSON lines, the exit code, the progress bar on a terminal only."""

from __future__ import annotations

import csv
import json
import os
import pty
import subprocess
import threading
from pathlib import Path

import numpy as np

from docauth.imageio import encode_png

ROOT = Path(__file__).resolve().parent.parent
DOCAUTH = ROOT / ".venv" / "bin" / "docauth"
FACTORY = "pipeline_support:standin_pipeline"


def _archive(folder: Path) -> None:
    folder.mkdir(parents=True)
    rng = np.random.default_rng(1)
    for i in range(6):
        h, w = (120, 190) if i % 3 else (150, 150)  # oblong: a 'document' to the stand-in classifier
        (folder / f"img{i}.png").write_bytes(encode_png(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)))
    (folder / "corrupt.jpg").write_bytes(b"\xff\xd8\xff" + b"\x00garbage" * 10)


def _env(tmp_path: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT / "tests"), "DOCAUTH_DATA_DIR": str(tmp_path / "data"),
            "TERM": "xterm-256color", "COLUMNS": "120"}


def _run_on_terminal(cmd: list[str], env: dict) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (as in an operator's shell), stdout piped."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    chunks: list[bytes] = []

    def drain():
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    stdout, _ = proc.communicate(timeout=180)
    reader.join(30)
    os.close(master)
    return proc.returncode, stdout, b"".join(chunks).decode(errors="replace")


def test_csv_beside_the_json_lines_with_a_progress_bar_on_a_terminal(tmp_path):
    _archive(tmp_path / "archive")
    code, stdout, terminal = _run_on_terminal(
        [str(DOCAUTH), "batch", str(tmp_path / "archive"), "--out", str(tmp_path / "r.csv"),
         "--pipeline-factory", FACTORY], _env(tmp_path))
    assert code == 1, terminal[-2000:]  # one input could not be read
    summary = json.loads(stdout.strip().splitlines()[-1])["summary"]
    assert summary["csv"] == str(tmp_path / "r.csv") and summary["results"] == str(tmp_path / "r.jsonl")
    assert "7/7" in terminal and "img/s" in terminal and "Traceback" not in terminal

    lines = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    with open(tmp_path / "r.csv", newline="", encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    assert len(table) == len(lines) == summary["csv_rows"] == 7
    by_name = {Path(row["path"]).name: row for row in table}
    assert by_name["corrupt.jpg"]["error"] == "invalid_image" and by_name["corrupt.jpg"]["decision"] == ""
    assert by_name["img0.png"]["is_document"] == "false" and "not_a_document" in by_name["img0.png"]["reasons"]
    assert by_name["img1.png"]["is_document"] == "true" and by_name["img1.png"]["side"] == "open"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_no_bar_off_a_terminal_and_exit_0_when_every_input_was_checked(tmp_path):
    _archive(tmp_path / "archive")
    (tmp_path / "archive" / "corrupt.jpg").unlink()
    out = subprocess.run([str(DOCAUTH), "batch", str(tmp_path / "archive"), "--out", str(tmp_path / "r.jsonl"),
                          "--csv", "--pipeline-factory", FACTORY], env=_env(tmp_path), capture_output=True,
                         text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stderr.count("\n") == 1 and "ETA" not in out.stderr  # the summary line only
    assert len((tmp_path / "r.csv").read_text().splitlines()) == 1 + 6
