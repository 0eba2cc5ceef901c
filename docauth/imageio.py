"""Safe image decoding shared by the CLI, the service and the batch scanner.

Every input passes here: content is sniffed (extensions and client content
types are not trusted), declared dimensions are checked *before* pixels are
allocated, EXIF orientation is applied when valid, and any mode (palette,
CMYK, 16-bit, alpha, animated) becomes an RGB ``uint8`` array of shape
(H, W, 3). Failures raise :mod:`docauth.errors` input errors, never library
exceptions.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from docauth.errors import (
    EmptyFile,
    ImageTooLarge,
    ImageTooSmall,
    InvalidImage,
    UnsupportedMediaType,
)

DEFAULT_MAX_PIXELS = 40_000_000
DEFAULT_MIN_SIDE = 1

# magic bytes -> media type
_SIGNATURES: list[tuple[bytes, str]] = [
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
    (b"%PDF-", "application/pdf"),
]
SUPPORTED_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/bmp", "image/tiff", "image/webp")


def sniff_media_type(data: bytes) -> str | None:
    """Media type from the first bytes, or None.

    >>> sniff_media_type(b"\\x89PNG\\r\\n\\x1a\\n....")
    'image/png'
    >>> sniff_media_type(b"hello") is None
    True
    """
    for magic, media in _SIGNATURES:
        if data.startswith(magic):
            return media
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


@dataclass(frozen=True)
class DecodedImage:
    pixels: np.ndarray  # (H, W, 3) uint8 RGB
    media_type: str
    original_size: tuple[int, int]  # (width, height) as stored
    frames: int = 1


def read_bytes(source: str | Path | bytes) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    path = Path(source)
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise InvalidImage(f"{path}: no such file", code="file_not_found") from exc
    except IsADirectoryError as exc:
        raise InvalidImage(f"{path}: is a directory", code="not_a_file") from exc
    except PermissionError as exc:
        raise InvalidImage(f"{path}: permission denied", code="unreadable_file") from exc


def decode_image(
    source: str | Path | bytes,
    *,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    min_side: int = DEFAULT_MIN_SIDE,
) -> DecodedImage:
    """Decode an upload or file into RGB pixels, or raise a clear input error."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    data = read_bytes(source)
    if len(data) == 0:
        raise EmptyFile("the file is empty (0 bytes)")
    media = sniff_media_type(data)
    if media == "application/pdf":
        raise UnsupportedMediaType("a PDF was sent where an image is expected; send JPEG, PNG, GIF, BMP, TIFF or WebP")
    if media is None:
        raise UnsupportedMediaType(
            "the content is not a recognised image (JPEG, PNG, GIF, BMP, TIFF or WebP); "
            "the file name and declared content type are not trusted"
        )
    try:
        with warnings.catch_warnings():
            # Pillow warns between MAX_IMAGE_PIXELS and 2x; our own limit decides.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
            width, height = img.size
            if width * height > max_pixels:
                raise ImageTooLarge(
                    f"image declares {width}x{height} pixels, over the limit of {max_pixels} pixels"
                )
            if min(width, height) < min_side:
                raise ImageTooSmall(f"image is {width}x{height}; each side must be at least {min_side} pixels")
            frames = getattr(img, "n_frames", 1)
            img.seek(0)
            img.load()
    except Image.DecompressionBombError as exc:
        raise ImageTooLarge(f"image dimensions exceed the decompression limit: {exc}") from exc
    except UnidentifiedImageError as exc:
        raise InvalidImage(f"cannot decode the {media} image: the data is corrupt") from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        # Pillow reports truncated and malformed streams this way.
        raise InvalidImage(f"cannot decode the {media} image: {exc}") from exc

    img = _apply_exif_orientation(img, ImageOps)
    pixels = _to_rgb_array(img)
    return DecodedImage(pixels=pixels, media_type=media, original_size=(width, height), frames=frames)


def declared_pixels(data: bytes) -> int:
    """Width x height an image's header declares, read without decoding it; 0 when there is no readable
    header (:func:`decode_image` then names the problem)."""
    from PIL import Image, UnidentifiedImageError

    if sniff_media_type(data) not in SUPPORTED_MEDIA_TYPES:
        return 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as img:
                width, height = img.size
    except Image.DecompressionBombError:
        return 2**62  # beyond any budget
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError):
        return 0
    return int(width) * int(height)


def load_image(source: str | Path | bytes, **limits) -> np.ndarray:
    """RGB ``uint8`` array (H, W, 3) of an image file or bytes."""
    return decode_image(source, **limits).pixels


def _apply_exif_orientation(img, ImageOps):
    try:
        orientation = img.getexif().get(0x0112)
    except (OSError, SyntaxError, ValueError, KeyError, TypeError):
        return img  # unreadable EXIF: keep the pixels as stored
    if orientation not in (2, 3, 4, 5, 6, 7, 8):
        return img  # 1, missing, or undefined values such as 9
    try:
        return ImageOps.exif_transpose(img)
    except (OSError, SyntaxError, ValueError, KeyError, TypeError):
        return img


def _to_rgb_array(img) -> np.ndarray:
    mode = img.mode
    if mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        arr = np.asarray(img, dtype=np.float64)
        hi = arr.max() if arr.size else 1.0
        scale = 255.0 / (65535.0 if hi > 255 else max(hi, 1.0))
        gray = np.clip(arr * scale, 0, 255).astype(np.uint8)
        return np.ascontiguousarray(np.stack([gray] * 3, axis=-1))
    if mode in ("RGBA", "LA", "PA") or (mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        from PIL import Image

        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        img = Image.alpha_composite(background, rgba)
    if img.mode != "RGB":
        img = img.convert("RGB")
    return np.ascontiguousarray(np.asarray(img, dtype=np.uint8))


def encode_jpeg(pixels: np.ndarray, quality: int = 90) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def encode_png(pixels: np.ndarray) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG")
    return buf.getvalue()
