"""Dataset writer and ``docauth synth`` CLI."""

from __future__ import annotations

import hashlib
import json

from click.testing import CliRunner

from docauth.synth import generate_dataset, read_labels
from docauth.synth.cli import synth
from docauth.synth.seeds import ALL, TESTS, purpose_of


def _digests(directory):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


def test_cli_writes_n_images_and_n_label_lines(tmp_path):
    out = tmp_path / "ds"
    result = CliRunner().invoke(synth, ["--out", str(out), "--count", "5", "--seed", str(TESTS.nth(1))])
    assert result.exit_code == 0, result.output
    labels = [json.loads(line) for line in (out / "labels.jsonl").read_text().splitlines()]
    assert len(labels) == 5
    assert [lab["index"] for lab in labels] == list(range(5))
    jpgs = sorted(out.glob("*.jpg"))
    assert len(jpgs) == 5 and {p.name for p in jpgs} == {lab["file"] for lab in labels}
    assert all(p.read_bytes()[:3] == b"\xff\xd8\xff" for p in jpgs)


def test_cli_category_filter_and_named_seed(tmp_path):
    out = tmp_path / "ds"
    result = CliRunner().invoke(synth, ["--out", str(out), "--count", "4", "--seed", "tests",
                                        "--category", "td1_back", "--category", "blank"])
    assert result.exit_code == 0, result.output
    labels = read_labels(out)
    assert {lab["category"] for lab in labels} <= {"td1_back", "blank"}
    assert all(lab["seed"] == TESTS.default for lab in labels)


def test_cli_rejects_bad_input_without_traceback(tmp_path):
    runner = CliRunner()
    bad_cat = runner.invoke(synth, ["--out", str(tmp_path / "x"), "--count", "1", "--category", "passport"])
    assert bad_cat.exit_code != 0 and "unknown category" in bad_cat.output and "Traceback" not in bad_cat.output
    bad_seed = runner.invoke(synth, ["--out", str(tmp_path / "x"), "--count", "1", "--seed", "banana"])
    assert bad_seed.exit_code != 0 and "--seed" in bad_seed.output
    not_dir = tmp_path / "file"
    not_dir.write_text("x")
    blocked = runner.invoke(synth, ["--out", str(not_dir / "sub"), "--count", "1"])
    assert blocked.exit_code != 0 and "Traceback" not in blocked.output


def test_workers_do_not_change_the_output(tmp_path):
    generate_dataset(tmp_path / "one", 6, TESTS.nth(2), workers=1)
    generate_dataset(tmp_path / "two", 6, TESTS.nth(2), workers=2)
    assert _digests(tmp_path / "one") == _digests(tmp_path / "two")


def test_seed_ranges_are_disjoint_and_named():
    for i, a in enumerate(ALL):
        for b in ALL[i + 1:]:
            assert a.stop <= b.start or b.stop <= a.start, (a, b)
    assert purpose_of(TESTS.default) == "tests"
    assert len({r.name for r in ALL}) == len(ALL)
