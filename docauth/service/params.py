"""Request values every view parses alike: JSON within the configured limits, and ids from a path."""

from __future__ import annotations

from docauth.errors import NotFound
from docauth.service.jsonbody import parse_json
from docauth.service.state import state


def json_value(raw: str | bytes, name: str):
    """``raw`` parsed as JSON, within the service's depth and size limits (an InputError naming ``name``)."""
    s = state().settings
    return parse_json(raw, name=name, max_depth=s.max_json_depth, max_bytes=s.max_json_bytes)


def row_id(raw: int, name: str) -> int:
    """A path id within SQL's 64-bit integers (Flask's int converter takes any size)."""
    if not 0 < raw < 2**63:
        raise NotFound(f"no {name} {raw}")
    return raw
