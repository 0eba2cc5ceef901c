"""Generated malformed and edge-case images (always available; no shared data needed).

``generated_inputs()`` maps a name to ``(bytes, expectation)``: ``"reject"``
must be a 4xx error; ``"handled"`` may be a 4xx error or a normal answer.
Everything is made in memory in a few milliseconds.
"""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
from PIL import Image


def _save(img: Image.Image, fmt: str, **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kw)
    return buf.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_claiming(width: int, height: int, rows: int = 4) -> bytes:
    """A tiny PNG whose header claims ``width x height`` RGB pixels (a decompression bomb's header)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = b"".join(b"\x00" + b"\x00" * (3 * min(width, 4096)) for _ in range(rows))
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(raw, 9))
            + _chunk(b"IEND", b""))


def jpeg_claiming(width: int, height: int) -> bytes:
    """A small JPEG whose SOF0 marker claims ``width x height``."""
    data = bytearray(_save(Image.new("RGB", (16, 16), (90, 90, 90)), "JPEG"))
    sof = data.find(b"\xff\xc0")
    struct.pack_into(">HH", data, sof + 5, height, width)
    return bytes(data)


def _scene(w: int = 320, h: int = 200, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), 235, np.uint8)
    img[h // 4: 3 * h // 4, w // 5: 4 * w // 5] = rng.integers(0, 255, 3)
    return img


def _with_exif(orientation: int) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    return _save(Image.fromarray(_scene()), "JPEG", exif=exif)


def _animated_gif() -> bytes:
    frames = [Image.new("P", (96, 64), i * 40) for i in range(3)]
    return _save(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=50, loop=0)


def _pdf() -> bytes:
    return (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
            b"trailer<</Root 1 0 R>>\n%%EOF\n")


def generated_inputs() -> dict[str, tuple[bytes, str]]:
    scene = Image.fromarray(_scene())
    good_jpeg = _save(scene, "JPEG", quality=85)
    good_png = _save(scene, "PNG")
    gray16 = Image.fromarray((np.linspace(0, 65535, 320 * 200).reshape(200, 320)).astype(np.uint16))
    rgba = np.dstack([_scene(), np.full((200, 320), 128, np.uint8)])
    return {
        # must be refused with a 4xx
        "zero_bytes": (b"", "reject"),
        "plain_text": (b"name,dob\nCOLLINS,1956-11-19\n" * 10, "reject"),
        "html": (b"<html><script>alert(1)</script></html>", "reject"),
        "pdf": (_pdf(), "reject"),
        "truncated_jpeg_header": (good_jpeg[:40], "reject"),
        "png_signature_only": (good_png[:8], "reject"),
        "png_garbage_after_signature": (good_png[:8] + bytes(range(256)) * 8, "reject"),
        "jpeg_magic_then_garbage": (b"\xff\xd8\xff" + b"\x00\x11" * 500, "reject"),
        "png_bomb_60000x60000": (png_claiming(60000, 60000), "reject"),
        "png_bomb_7000x7000": (png_claiming(7000, 7000), "reject"),  # just over the 40 Mpx limit
        "png_1x100000": (png_claiming(100000, 1, rows=1), "handled"),
        "jpeg_claiming_65000x65000": (jpeg_claiming(65000, 65000), "reject"),
        "gif_header_only": (b"GIF89a\x10\x00\x10\x00", "reject"),
        "tiff_header_only": (b"II*\x00\x08\x00\x00\x00", "reject"),
        "webp_header_only": (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "reject"),
        # decodable oddities: a normal answer or a clear 4xx
        "truncated_jpeg_half": (good_jpeg[: len(good_jpeg) // 2], "handled"),
        "truncated_png_half": (good_png[: len(good_png) // 2], "handled"),
        "tiny_1x1": (_save(Image.new("RGB", (1, 1), (255, 255, 255)), "PNG"), "handled"),
        "tiny_16x16": (_save(Image.new("RGB", (16, 16), (0, 0, 0)), "PNG"), "handled"),
        "thin_4000x20": (_save(Image.new("RGB", (4000, 20), (10, 200, 10)), "PNG"), "handled"),
        "cmyk_jpeg": (_save(scene.convert("CMYK"), "JPEG"), "handled"),
        "gray16_png": (_save(gray16, "PNG"), "handled"),
        "rgba_png": (_save(Image.fromarray(rgba, "RGBA"), "PNG"), "handled"),
        "palette_png": (_save(scene.convert("P"), "PNG"), "handled"),
        "bilevel_tiff": (_save(scene.convert("1"), "TIFF"), "handled"),
        "bmp": (_save(scene, "BMP"), "handled"),
        "webp": (_save(scene, "WEBP"), "handled"),
        "exif_rotate_6": (_with_exif(6), "handled"),
        "exif_orientation_9": (_with_exif(9), "handled"),
        "animated_gif": (_animated_gif(), "handled"),
        "valid_jpeg": (good_jpeg, "handled"),
    }


def shared_bad_inputs(shared_dir) -> dict[str, tuple[bytes, str]]:
    """``../shared/data/bad-inputs``: expectations as its README lists them."""
    folder = shared_dir / "bad-inputs"
    reject = {"corrupted.png", "empty.png", "zero_bytes.jpg", "text_renamed.jpg", "png_bomb_60000x60000.png"}
    out = {}
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.suffix.lower() != ".md":
            out[path.name] = (path.read_bytes(), "reject" if path.name in reject else "handled")
    return out
