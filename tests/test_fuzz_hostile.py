"""Hypothesis against a real `docauth serve` (issue 27): image sizes and JSON shapes, 0 responses >= 500.

* images of 1 to 100,000 px a side, either *declared* (a PNG header claiming the size over a tiny body) or
  *real* (a decodable PNG of that size, when it has at most 1 Mpx), on every image endpoint;
* JSON nested 1 to 5,000 levels, with lone surrogates, invalid UTF-8 or ordinary text, as the body of every
  route of /openapi.json and in every JSON form field (``claimed``, ``person``).

Derandomised (the same examples each run) and bounded so the file takes well under a minute.
"""

from __future__ import annotations

import io
import json
import struct
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.register_assert_rewrite("http_server")

from http_server import assert_json_error, png_bytes

pytest_plugins = ["http_server"]

MAX_SIDE = 100_000
REAL_MAX_PIXELS = 1_000_000
IMAGE_ENDPOINTS = [("/v1/classify", "image", {}), ("/v1/ocr", "image", {}), ("/v1/checks", "image", {}),
                   ("/v1/persons", "photo", {"surname": "FUZZ"})]
FUZZ = settings(derandomize=True, deadline=None, database=None, print_blob=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def declared_png(width: int, height: int) -> bytes:
    """A PNG whose header declares width x height (8-bit grey) over one short row of data."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    idat = zlib.compress(b"\x00" + b"\x80" * min(width, 64))
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def real_png(width: int, height: int) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("L", (width, height), 180).save(buf, format="PNG")
    return buf.getvalue()


def _assert_no_server_error(response, label: str) -> None:
    assert response.status_code < 500, f"{label}: {response.status_code} {response.text[:300]}"
    if response.status_code >= 400:
        assert_json_error(response)


@given(width=st.integers(1, MAX_SIDE), height=st.integers(1, MAX_SIDE), real=st.booleans(),
       endpoint=st.sampled_from(IMAGE_ENDPOINTS))
@settings(FUZZ, max_examples=60)
def test_image_dimensions_declared_and_real(server_session, width, height, real, endpoint):
    path, field, form = endpoint
    real = real and width * height <= REAL_MAX_PIXELS
    data = real_png(width, height) if real else declared_png(width, height)
    r = server_session.post(path, files={field: ("f.png", data, "image/png")}, data=form, timeout=120)
    _assert_no_server_error(r, f"{'real' if real else 'declared'} {width}x{height} -> {path}")
    ratio = max(width, height) / min(width, height)
    if ratio > 10 or min(width, height) < 16 or width * height > 40_000_000:
        assert 400 <= r.status_code < 500, (width, height, r.status_code)


# -- JSON ----------------------------------------------------------------------------------------
def _nested(depth: int, kind: str) -> str:
    if kind == "array":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "0" + "}" * depth


SURROGATE = st.integers(0xD800, 0xDFFF).map(lambda c: f"\\u{c:04x}")
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40).map(lambda t: json.dumps(t)[1:-1])
JSON_BODIES = st.one_of(
    st.tuples(st.integers(1, 5000), st.sampled_from(["array", "object"])).map(lambda t: _nested(*t).encode()),
    st.lists(st.one_of(SURROGATE, TEXT), min_size=1, max_size=4).map(
        lambda parts: ('{"surname": "' + "".join(parts) + '"}').encode("utf-8")),
    st.binary(max_size=40).map(lambda b: b'{"surname": "' + b + b'"}'),
)


@pytest.fixture(scope="module")
def routes(server_session):
    """(method, path) of every route /openapi.json lists, ids far beyond any enrolled person."""
    spec = server_session.get("/openapi.json", key=None).json()
    return sorted((method.upper(), path.replace("{person_id}", "987654321987"))
                  for path, ops in spec["paths"].items() for method in ops)


@given(body=JSON_BODIES, index=st.integers(0, 10_000))
@settings(FUZZ, max_examples=150)
def test_json_depth_and_encoding_on_every_route(server_session, routes, body, index):
    method, path = routes[index % len(routes)]
    r = server_session.request(method, path, data=body, headers={"Content-Type": "application/json"}, timeout=60)
    _assert_no_server_error(r, f"{method} {path} <- {body[:80]!r}")


@given(body=JSON_BODIES, field=st.sampled_from(["claimed", "person"]))
@settings(FUZZ, max_examples=60)
def test_json_depth_and_encoding_in_form_fields(server_session, body, field):
    srv = server_session
    value = body.decode("utf-8", errors="surrogateescape").encode("utf-8", errors="surrogateescape")
    if field == "claimed":
        r = srv.post("/v1/checks", files={"image": ("a.png", png_bytes(200, 120), "image/png"),
                                          "claimed": (None, value)}, timeout=60)
    else:
        r = srv.post("/v1/persons", files={"person": (None, value)}, timeout=60)
    _assert_no_server_error(r, f"{field} <- {body[:80]!r}")
