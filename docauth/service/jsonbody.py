"""JSON from clients, parsed within limits: size and nesting checked before parsing, strict UTF-8 text.

Python's ``json`` recurses once per nesting level (2,000 levels raise RecursionError) and accepts
``"\\ud800"``, a lone surrogate no database can store; both become a 400 here, before any parsing or storing.

>>> parse_json('{"surname": "ERIKSSON"}', name="person")
{'surname': 'ERIKSSON'}
>>> parse_json("[" * 100 + "]" * 100, name="claimed")
Traceback (most recent call last):
...
docauth.errors.InputError: claimed nests deeper than 32 levels
>>> parse_json('{"surname": "\\\\ud800"}', name="body")
Traceback (most recent call last):
...
docauth.errors.InputError: body: surname contains a lone UTF-16 surrogate (\\ud800), which is not text
"""

from __future__ import annotations

import json

from docauth.errors import InputError, PayloadTooLarge

DEFAULT_MAX_DEPTH = 32
DEFAULT_MAX_BYTES = 64 * 1024


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[`` / ``{`` outside strings, in one pass without recursion.

    >>> nesting_depth('{"a": [1, {"b": "[[["}]}')
    3
    """
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def check_text(value: str, where: str) -> None:
    """InputError when ``value`` cannot be encoded as UTF-8 (a lone surrogate from a ``\\uD800`` escape)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = value[exc.start]
        raise InputError(f"{where} contains a lone UTF-16 surrogate (\\u{ord(bad):04x}), which is not text",
                         code="invalid_text") from exc


def _check_strings(value, where: str) -> None:
    """Every key and string of a parsed value is valid text (iterative: the depth is already bounded)."""
    stack = [(value, where)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            check_text(item, path)
        elif isinstance(item, dict):
            for key, child in item.items():
                check_text(key, f"{path}: a key")
                stack.append((child, f"{where}: {key}" if path == where else f"{path}.{key}"))
        elif isinstance(item, list):
            stack.extend((child, path) for child in item)


def parse_json(raw: str | bytes, *, name: str, max_depth: int = DEFAULT_MAX_DEPTH,
               max_bytes: int = DEFAULT_MAX_BYTES):
    """The parsed value of ``raw``, or an :class:`InputError` / :class:`PayloadTooLarge` naming ``name``.

    Bytes must be UTF-8; strings, keys included, must be encodable as UTF-8; numbers must be finite.
    """
    if isinstance(raw, (bytes, bytearray, memoryview)):
        if len(raw) > max_bytes:
            raise PayloadTooLarge(f"{name} is {len(raw)} bytes, over the limit of {max_bytes}", code="json_too_large")
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{name} is not UTF-8 text (byte {exc.start})", code="invalid_json") from exc
    elif len(raw) > max_bytes:
        raise PayloadTooLarge(f"{name} is {len(raw)} characters, over the limit of {max_bytes}",
                              code="json_too_large")
    if nesting_depth(raw) > max_depth:
        raise InputError(f"{name} nests deeper than {max_depth} levels", code="json_too_deep")
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name} is not valid JSON: {exc.msg} at position {exc.pos}", code="invalid_json") from exc
    except RecursionError as exc:  # a nesting the pre-scan miscounted must still be a 400
        raise InputError(f"{name} nests too deeply", code="json_too_deep") from exc
    _check_strings(value, name)
    return value


def _refuse_constant(token: str):
    raise InputError(f"{token} is not a JSON number", code="invalid_json")
