"""The README stays true: its settings table is the generated one, its exit codes are the CLI's, its links
reach every doc, its commands exist."""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path

from docauth import settings_table
from docauth.clitools import EXIT_CODES
from docauth.config import Settings

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_setting_has_a_description():
    assert settings_table.missing() == [], (
        "add a line 'name: what it does' to the Settings docstring in docauth/config.py, then run "
        "python -m docauth.settings_table --write")


def test_the_settings_table_is_complete_and_current():
    current = settings_table.current_section(README)
    assert current is not None, "README.md has lost its settings markers"
    listed = set(re.findall(r"^\| `(DOCAUTH_[A-Z0-9_]+)` \|", current, re.M))
    fields = {f"DOCAUTH_{f.name.upper()}" for f in dataclasses.fields(Settings)}
    assert listed == fields, f"missing {sorted(fields - listed)}, stale {sorted(listed - fields)}"
    assert current == settings_table.section(), "run: python -m docauth.settings_table --write"


def test_the_exit_codes_are_the_command_lines():
    for code, meaning in EXIT_CODES:
        assert f"| `{code}` | {meaning} |" in README, code
    assert len(re.findall(r"^\| `\d` \| ", README, re.M)) == len(EXIT_CODES)


def test_every_doc_is_linked():
    docs = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))
    unlinked = [d for d in docs if f"]({d})" not in README]
    assert unlinked == [], unlinked
    for target in re.findall(r"\]\((docs/[^)#]+)", README):
        assert (ROOT / target).is_file(), target


def test_the_two_commands_and_the_examples_hold():
    for script in ("scripts/run", "scripts/test"):
        assert f"./{script}" in README and os.access(ROOT / script, os.X_OK)
    blocks = re.findall(r"```json\n(.*?)```", README, re.S)
    answer = json.loads(blocks[0])  # the curl call's answer is real JSON of a check
    assert answer["decision"] in ("accept", "review", "reject") and answer["document"]["kind"] == "TD3"
    python = re.findall(r"```python\n(.*?)```", README, re.S)[0]
    assert python.splitlines()[0] == "import docauth" and len(python.strip().splitlines()) == 3


def test_every_docauth_variable_the_code_reads_is_in_the_readme():
    """A ``DOCAUTH_*`` name the code reads outside the settings is documented beside their table."""
    code = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "docauth").rglob("*.py"))
    named = set(re.findall(r"[\"'](DOCAUTH_[A-Z0-9_]+)[\"']", code))
    documented = set(re.findall(r"`(DOCAUTH_[A-Z0-9_]+)`", README))
    assert named - documented == set(), "document these in README.md beside the settings table"
