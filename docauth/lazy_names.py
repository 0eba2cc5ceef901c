"""Package names imported on first use (PEP 562): a package whose import must stay light (a face process, a
CLI that never opens the store) names what it offers and the module each name lives in."""

from __future__ import annotations

import importlib
from typing import Callable


def lazy_getattr(package: str, where: dict[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package`` that imports ``where[name]`` when ``name`` is first asked for."""

    def __getattr__(name: str) -> object:
        if name in where:
            return getattr(importlib.import_module(where[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
