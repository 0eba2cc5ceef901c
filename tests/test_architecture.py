"""The layers hold: the reading library never reaches what makes models, generates data or serves HTTP; no
module uses another's private names; no file grows past one idea.

Imports are read statically (ast), those inside functions included, and docauth's own imports are
followed transitively, so a lazy import cannot hide a dependency.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "docauth"

# The reading library: what a deployment runs to check a document.
READING_LIBRARY = ("docauth.classifiers", "docauth.matching", "docauth.ocr", "docauth.pipeline", "docauth.runtime")
# What it must never import: model making and evaluation, the synthetic-data generator, and the service.
FORBIDDEN = ("docauth.training", "docauth.synth", "docauth.service")
MAX_LINES = 600


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


@functools.cache
def _imports(name: str) -> set[str]:
    """docauth modules ``name`` imports anywhere in its file (packages on the way included)."""
    path = MODULES[name]
    return _imports_in(path.read_text(), name, package=name if path.name == "__init__.py" else name.rpartition(".")[0])


def _imports_in(source: str, name: str, package: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        for target in targets:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                candidate = ".".join(parts[:i])
                if candidate in MODULES and candidate != name:
                    found.add(candidate)
    return found


def _forbidden_chain(start: str) -> list[str] | None:
    """The first import chain from ``start`` to a forbidden module (breadth first: the shortest), or None."""
    parents: dict[str, str | None] = {start: None}
    queue = [start]
    while queue:
        current = queue.pop(0)
        if _within(current, FORBIDDEN):
            chain = [current]
            while parents[chain[-1]] is not None:
                chain.append(parents[chain[-1]])
            return chain[::-1]
        for imported in sorted(_imports(current)):
            if imported not in parents:
                parents[imported] = current
                queue.append(imported)
    return None


READING_MODULES = [m for m in MODULES if _within(m, READING_LIBRARY)]


def test_the_walk_sees_every_kind_of_import():
    # A function-level or relative import is an edge like any other: deferring one does not hide it.
    source = "def f():\n    from docauth.synth import seeds\n\n\ndef g():\n    from .stage import Classification\n"
    found = _imports_in(source, "docauth.classifiers.example", package="docauth.classifiers")
    assert {"docauth.synth", "docauth.synth.seeds", "docauth.classifiers.stage"} <= found
    chain = _forbidden_chain("docauth.training.cli")  # the lab itself reaches synth, and the chain says how
    assert chain is not None and chain[0] == "docauth.training.cli" and _within(chain[-1], FORBIDDEN)


@pytest.mark.parametrize("module", READING_MODULES)
def test_reading_library_imports_neither_training_nor_synth(module):
    chain = _forbidden_chain(module)
    assert chain is None, "the reading library reaches the lab: " + " -> ".join(chain)


def test_no_file_over_600_lines():
    too_long = {}
    for name, path in MODULES.items():
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES:
            too_long[str(path.relative_to(ROOT))] = lines
    assert not too_long, f"split by idea (one file one idea): {too_long}"


def test_no_module_uses_another_modules_private_names():
    found = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        modules = {}  # local name -> docauth module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("docauth"):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{name}: from {node.module} import {alias.name}")
                    if f"{node.module}.{alias.name}" in MODULES:
                        modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("docauth") and alias.asname:
                        modules[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                found.append(f"{name}: {modules[node.value.id]}.{node.attr}")
    assert not found, f"private names are their module's own: {sorted(set(found))}"
