"""The docs stay guides: docs/benchmarks.md short with the sections its scripts write, docs/api.md naming every
error code the service can answer, docs/architecture.md short and naming modules that exist."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BENCHMARKS = (DOCS / "benchmarks.md").read_text(encoding="utf-8")

sys.path.insert(0, str(ROOT / "bench"))
import bench_ocr  # noqa: E402  (bench/bench_ocr.py: the OCR section's writer, standard library only at import)


def prose_paragraphs(markdown: str) -> list[str]:
    """Paragraphs and list items, without tables and code blocks."""
    markdown = re.sub(r"```.*?```", "", markdown, flags=re.S)
    out = []
    for block in re.split(r"\n\s*\n", markdown):
        lines = [line for line in block.splitlines() if not line.lstrip().startswith(("|", "<!--"))]
        text = "\n".join(lines)
        out += [item for item in re.split(r"\n(?=- )", text) if item.strip()]
    return out


def test_benchmarks_is_under_1500_words_with_short_paragraphs():
    words = len(BENCHMARKS.split())  # as `wc -w` counts
    assert words < 1500, f"docs/benchmarks.md has {words} words: move history to docs/history.md"
    long = [p[:60] for p in prose_paragraphs(BENCHMARKS) if len(p.split()) > 80]
    assert long == [], long


def test_every_section_a_script_writes_has_its_markers_once():
    names = set()
    for script in (ROOT / "bench").glob("*.py"):
        names |= set(re.findall(r"<!-- (\w+):begin -->", script.read_text(encoding="utf-8")))
    assert {"ocr", "kiosk", "service", "load", "matching", "batch", "synth"} <= names
    for name in names:
        begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
        assert BENCHMARKS.count(begin) == 1 and BENCHMARKS.count(end) == 1, name
        assert BENCHMARKS.index(begin) < BENCHMARKS.index(end), name
        inside = BENCHMARKS[BENCHMARKS.index(begin):BENCHMARKS.index(end)]
        # the script replaces everything between its markers: another section there would be lost at its next run
        assert len(re.findall(r"^## ", inside, re.M)) == 1, f"only the {name} section between the {name} markers"


def test_the_ocr_section_renders_short_from_the_stored_evaluations():
    results = ROOT / "bench" / "results"
    speed = {"mrz_cpu_ms": 115.0, "full_cpu_ms": 271.0, "locate_ms": 43.0, "mrz_ms": 68.0, "viz_ms": 151.0,
             "load": 1.0}
    spec = {"mrz_exact": 32, "count": 35, "mrz_exact_rate": 32 / 35, "false_valid": 0}
    peye = json.loads((results / "passporteye.json").read_text())
    section = bench_ocr.section(speed, spec, peye, 30, results / "ocr_eval_2000.json",
                                results / "ocr_eval_2000_seed420000.json")
    assert section.startswith("<!-- ocr:begin -->") and section.rstrip().endswith("<!-- ocr:end -->")
    assert "| 0.9724 (0.9906 / 0.949); 0 |" in section  # the stored evaluation's MRZ rate, TD1 / TD3
    assert "0.9766" in section  # the second seed's
    assert len(section.split()) < 260


def service_error_codes() -> dict[str, str]:
    """Every stable error code the reading library, the service, the store, batch and the CLI can raise or
    answer, read from the source: class defaults (``code = "..."``), ``code="..."`` arguments, the JSON error
    bodies written as literals, and the status-to-code tables of the Flask app and the gunicorn worker.
    The lab (training, synth) is left out: it answers no request."""
    import ast

    found: dict[str, str] = {}
    for path in sorted((ROOT / "docauth").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("docauth/training/", "docauth/synth/")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            values = []
            if isinstance(node, ast.Call):
                values += [kw.value for kw in node.keywords if kw.arg == "code"]
            elif isinstance(node, ast.ClassDef):
                values += [stmt.value for stmt in node.body if isinstance(stmt, ast.Assign)
                           and any(isinstance(t, ast.Name) and t.id == "code" for t in stmt.targets)]
            elif isinstance(node, ast.Dict):
                values += [v for k, v in zip(node.keys, node.values)
                           if isinstance(k, ast.Constant) and k.value == "code"]
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in ("_HTTP_CODES",
                                                                                           "_CLIENT_ERRORS")
                                                      for t in node.targets):
                if isinstance(node.value, ast.Dict):
                    values += node.value.values
                elif isinstance(node.value, ast.Tuple):
                    values += [row.elts[3] for row in node.value.elts if isinstance(row, ast.Tuple)]
            for value in values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value:
                    found.setdefault(value.value, f"{rel}:{getattr(value, 'lineno', 0)}")
    return found


def test_every_error_code_is_in_the_api_docs():
    codes = service_error_codes()
    assert {"invalid_image", "json_too_deep", "implausible_aspect_ratio", "uri_too_long", "headers_too_large",
            "internal_error", "method_not_allowed", "invalid_text"} <= set(codes)  # the scan still finds them
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    missing = {code: where for code, where in codes.items() if f"`{code}`" not in api}
    assert missing == {}, f"add these codes to the Errors section of docs/api.md: {missing}"


def test_training_opens_with_every_shipped_model():
    training = (DOCS / "training.md").read_text(encoding="utf-8")
    first_table = re.search(r"\n(\|.*?)\n\n", training, re.S).group(1)
    shipped = sorted(p.stem for p in (ROOT / "models").glob("*.json"))
    assert shipped, "no models/*.json"
    missing = [name for name in shipped if f"`{name}." not in first_table]
    assert missing == [], f"docs/training.md's first table should say how each shipped model is made: {missing}"
    assert training.index("## Rebuild the shipped models") < training.index("## How the classifiers learn")


def test_architecture_fits_two_screens_and_names_what_exists():
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 120
    package = ROOT / "docauth"
    module = r"`([\w/]+(?:\.py|/))`"
    named = set(re.findall(r"`docauth/([\w/.]+?)`", text))  # paths from the repository root
    layers = re.search(r"\| layer \|.*?\n\n", text, re.S).group(0)  # packages relative to docauth/
    named |= set(re.findall(module, layers))
    for folder, paragraph in re.findall(r"Inside `(\w+)/`:(.*?)\n\n", text, re.S):  # modules of one package
        named |= {f"{folder}/{name}" for name in re.findall(module, paragraph)}
        if folder == "ocr":  # the MRZ package's modules, named bare
            listed = paragraph.split("`mrz/`", 1)[1].split(")", 1)[0]
            named |= {f"ocr/mrz/{name}.py" for name in re.findall(r"`(\w+)`", listed)}
    missing = [name for name in sorted(named) if not (package / name.rstrip("/")).exists()]
    assert missing == [], f"docs/architecture.md names modules that do not exist: {missing}"


def test_the_guides_name_only_modules_that_exist():
    """Paths (docauth/x/y.py) and modules (docauth.x.y, or docauth.x.y.name) the README and the guides name;
    docs/history.md is the record and keeps the names of its day."""
    guides = [ROOT / "README.md"] + [p for p in sorted(DOCS.glob("*.md")) if p.name != "history.md"]
    missing = []
    for guide in guides:
        text = guide.read_text(encoding="utf-8")
        for path in set(re.findall(r"\bdocauth/[\w/]+(?:\.py|/)", text)):
            if not (ROOT / path.rstrip("/")).exists():
                missing.append(f"{guide.name}: {path}")
        for dotted in set(re.findall(r"\bdocauth(?:\.[a-z_]\w*)+", text)):
            parts = dotted.split(".")
            candidates = [ROOT.joinpath(*parts[:n]) for n in (len(parts), len(parts) - 1)]
            if not any(c.is_dir() or c.with_suffix(".py").is_file() for c in candidates):
                missing.append(f"{guide.name}: {dotted}")
    assert missing == [], missing
