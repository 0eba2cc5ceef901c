"""The README's settings table, generated from :class:`docauth.config.Settings` (its fields and the one-line
descriptions in its docstring).

    python -m docauth.settings_table            # print the table
    python -m docauth.settings_table --write    # replace it in README.md, between the settings markers

tests/test_readme.py fails when a field has no description or the README's table is not this one.

>>> row = rows()[0]
>>> row[0], row[1]
('DOCAUTH_DATA_DIR', '`data/` beside the code')
"""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

from docauth.config import PROJECT_ROOT, Settings

START = "<!-- settings:start (python -m docauth.settings_table --write) -->"
END = "<!-- settings:end -->"
README = PROJECT_ROOT / "README.md"
_LINE = re.compile(r"^\s{4}(?P<name>[a-z_]+): (?P<text>\S.*)$")


def descriptions() -> dict[str, str]:
    """Field name -> its line in the ``Settings`` docstring."""
    lines = (Settings.__doc__ or "").splitlines()
    return {m["name"]: m["text"].strip().replace("``", "`") for m in map(_LINE.match, lines) if m}


def _default(f: dataclasses.Field) -> str:
    if f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        value = f.default
    if isinstance(value, Path):
        try:
            return f"`{value.relative_to(PROJECT_ROOT)}/` beside the code"
        except ValueError:
            return f"`{value}`"
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if value == "":
        return "empty"
    return f"`{value}`"


def rows() -> list[tuple[str, str, str]]:
    """(variable, default, meaning) per field, in the order the class declares them."""
    text = descriptions()
    return [(f"DOCAUTH_{f.name.upper()}", _default(f), text.get(f.name, ""))
            for f in dataclasses.fields(Settings)]


def missing() -> list[str]:
    """Fields without a description line."""
    text = descriptions()
    return [f.name for f in dataclasses.fields(Settings) if not text.get(f.name)]


def table() -> str:
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    lines += [f"| `{name}` | {default} | {meaning} |" for name, default, meaning in rows()]
    return "\n".join(lines)


def section() -> str:
    return f"{START}\n{table()}\n{END}"


def current_section(readme_text: str) -> str | None:
    """The README's table between the markers, as it stands, or None when the markers are missing."""
    if START not in readme_text or END not in readme_text:
        return None
    head, rest = readme_text.split(START, 1)
    return START + rest.split(END, 1)[0] + END


def write(path: Path = README) -> None:
    text = path.read_text(encoding="utf-8")
    old = current_section(text)
    if old is None:
        raise SystemExit(f"{path}: no settings markers ({START} ... {END})")
    path.write_text(text.replace(old, section()), encoding="utf-8")


def main(argv: list[str]) -> int:
    if missing():
        print(f"settings without a description line in Settings' docstring: {', '.join(missing())}", file=sys.stderr)
        return 1
    if argv[1:] == ["--write"]:
        write()
    else:
        print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
