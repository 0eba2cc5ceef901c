"""Estimate the Docker images' sizes from what their layers hold, on a machine without a Docker engine.

    .venv/bin/python bench/image_sizes.py        # prints the table docs/deployment.md quotes

Measured here: the Debian packages each stage adds (their installed size, with the dependencies a Debian
bookworm system lacks by priority), the Python packages of each requirements file (the bytes their
installed files take in .venv), the models and the code. Not measured: the Python base image itself,
taken from its published size.
"""

from __future__ import annotations

import importlib.metadata as md
import re
import subprocess
import sys
from pathlib import Path

from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from test_service_docker import _apt, _stages  # noqa: E402  (the same parse the tests check)

MB = 1_000_000


def _apt_closure(packages: list[str]) -> set[str]:
    out = subprocess.run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
                          "--no-breaks", "--no-replaces", "--no-enhances", *packages],
                         capture_output=True, text=True, check=True).stdout
    return {line.strip() for line in out.splitlines() if line and not line.startswith(" ") and "<" not in line}


def _installed_kb(names: set[str]) -> dict[str, tuple[int, str]]:
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Installed-Size}\t${Priority}\n", *sorted(names)],
                         capture_output=True, text=True).stdout
    sizes = {}
    for line in out.splitlines():
        name, kb, priority = line.split("\t")
        if kb:
            sizes[name] = (int(kb), priority)
    return sizes


# What python:3.11-slim-bookworm holds already: Debian's essential set, apt, and the libraries its Python
# is linked with (the image's own Dockerfile keeps these).
SLIM_BASE = ["apt", "ca-certificates", "netbase", "tzdata", "libbz2-1.0", "libexpat1", "libffi8", "libgdbm6",
             "liblzma5", "libncursesw6", "libreadline8", "libsqlite3-0", "libssl3", "libuuid1", "zlib1g"]


def base_closure() -> set[str]:
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Essential}\n"], capture_output=True, text=True,
                         check=True).stdout
    essential = [line.split("\t")[0] for line in out.splitlines() if line.endswith("\tyes")]
    return _apt_closure(essential + SLIM_BASE)


def apt_mb(packages: list[str], already: set[str]) -> tuple[float, set[str], int]:
    """(MB, the closure beyond ``already``, how many of it are not installed here to measure)."""
    closure = _apt_closure(packages) - already
    sizes = _installed_kb(closure)
    return sum(kb for kb, _ in sizes.values()) * 1024 / MB, closure, len(closure - set(sizes))


def _pip_closure(requirements: str) -> set[str]:
    """The pins of a requirements file and everything they require (as installed in .venv)."""
    from packaging.requirements import Requirement

    todo = [canonicalize_name(m.group(1)) for m in map(re.compile(r"^([A-Za-z0-9._-]+)(?:\[[^]]*\])?==").match,
            (ROOT / "requirements" / requirements).read_text().splitlines()) if m]
    env = {"extra": "data", "python_version": "3.11", "python_full_version": "3.11.7", "sys_platform": "linux",
           "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
           "implementation_name": "cpython", "platform_python_implementation": "CPython"}
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = md.distribution(name).requires or []
        except md.PackageNotFoundError:
            continue
        for raw in requires:
            req = Requirement(raw)
            if req.marker is None or req.marker.evaluate(env):
                todo.append(canonicalize_name(req.name))
    return seen


def pip_mb(names: set[str]) -> float:
    total = 0
    for name in names:
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        for f in dist.files or []:
            path = Path(dist.locate_file(f))
            if path.is_file():
                total += path.stat().st_size
    return total / MB


def tree_mb(folder: Path, pattern: str = "*") -> float:
    return sum(p.stat().st_size for p in folder.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts) / MB


def main() -> None:
    stages = _stages(ROOT / "Dockerfile")
    base = base_closure()
    runtime_pip = _pip_closure("cpu.txt") | {"setuptools", "wheel"}
    runtime_apt, runtime_closure, runtime_missing = apt_mb(_apt(stages["base"]), base)
    test_apt, _, test_missing = apt_mb(_apt(stages["test"]), base | runtime_closure)
    rows = [
        ("python:3.11.9-slim-bookworm (published, not measured here)", 125.0),
        (f"apt, runtime: {' '.join(_apt(stages['base']))} and their dependencies", runtime_apt),
        ("pip, requirements/cpu.txt and setuptools, face-recognition", pip_mb(runtime_pip | {"face-recognition"})),
        ("models/ (baked in)", tree_mb(ROOT / "models")),
        ("docauth/ code (+ its .pyc)", 2 * tree_mb(ROOT / "docauth", "*.py")),
    ]
    slim = sum(mb for _, mb in rows)
    test_rows = [(f"apt, test: {' '.join(_apt(stages['test']))}", test_apt),
                 ("pip, requirements/extra.txt and what its pins require", pip_mb(_pip_closure("extra.txt") - runtime_pip)),
                 ("tests/, bench/, docs/", tree_mb(ROOT / "tests") + tree_mb(ROOT / "bench") + tree_mb(ROOT / "docs"))]
    print("| layer | MB |\n|---|---|")
    for name, mb in rows:
        print(f"| {name} | {mb:.0f} |")
    print(f"| **runtime image (slim)** | **{slim:.0f}** |")
    for name, mb in test_rows:
        print(f"| {name} | {mb:.0f} |")
    print(f"| **test image** | **{slim + sum(mb for _, mb in test_rows):.0f}** |")
    if runtime_missing or test_missing:
        print(f"\n(not installed here, so not counted: {runtime_missing} runtime and {test_missing} test packages)")


if __name__ == "__main__":
    main()
