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

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from docauth.errors import EmptyFile, ImageTooLarge, ImageTooSmall, InvalidImage, UnsupportedMediaType

DEFAULT_MAX_PIXELS = 40_000_000
DEFAULT_MIN_SIDE = 1
# Long side over short side: a tightly cropped passport MRZ is about 7:1, so 10:1 admits every identity document
# and refuses the strips whose scaling to a reading width would allocate gigabytes.
DEFAULT_MAX_ASPECT = 10.0
# OpenCV's geometric functions keep coordinates in 16-bit integers; a side beyond this trips its assertions.
MAX_RESIZE_SIDE = 32_767

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
    max_aspect: float | None = DEFAULT_MAX_ASPECT,
) -> DecodedImage:
    """Decode an upload or file into RGB pixels, or raise a clear input error.

    The declared size is checked before any pixel is allocated: at most ``max_pixels``, each side at least
    ``min_side``, the long side at most ``max_aspect`` times the short one (``None``: any shape).
    """
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
            check_aspect(width, height, max_aspect)
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

    pixels = pil_pixels(img)
    return DecodedImage(pixels=pixels, media_type=media, original_size=(width, height), frames=frames)


def check_aspect(width: int, height: int, max_aspect: float | None = DEFAULT_MAX_ASPECT) -> None:
    """Raise :class:`InvalidImage` (422) for a shape no identity document or photo of one has.

    >>> check_aspect(1600, 1000)
    >>> check_aspect(16, 20000)
    Traceback (most recent call last):
    ...
    docauth.errors.InvalidImage: image is 16x20000 (1:1250); no identity document is longer than 10:1
    """
    if max_aspect is None or min(width, height) <= 0:
        return
    ratio = max(width, height) / min(width, height)
    if ratio > max_aspect:
        raise InvalidImage(f"image is {width}x{height} (1:{ratio:.0f}); no identity document is longer than "
                           f"{max_aspect:g}:1", code="implausible_aspect_ratio")


def bounded_resize(image: np.ndarray, size: tuple[int, int], *, interpolation: int | None = None,
                   max_pixels: int = DEFAULT_MAX_PIXELS) -> np.ndarray:
    """``cv2.resize`` to ``size`` = (width, height) with every side at least 1 and at most
    :data:`MAX_RESIZE_SIDE`, and at most ``max_pixels`` out; beyond that :class:`ImageTooLarge` (413), never an
    allocation of gigabytes or an OpenCV assertion. Every resize of request-derived sizes should go through here.

    >>> bounded_resize(np.zeros((16, 5000, 3), np.uint8), (1000, 3)).shape
    (3, 1000, 3)
    >>> bounded_resize(np.zeros((5000, 16), np.uint8), (1000, 312500))
    Traceback (most recent call last):
    ...
    docauth.errors.ImageTooLarge: resizing 16x5000 to 1000x312500 would exceed 32767 pixels a side or 40000000 pixels
    """
    if image.size == 0:
        raise InvalidImage(f"cannot resize an empty image of shape {image.shape}", code="empty_image")
    width, height = max(1, int(size[0])), max(1, int(size[1]))
    if width > MAX_RESIZE_SIDE or height > MAX_RESIZE_SIDE or width * height > max_pixels:
        raise ImageTooLarge(f"resizing {image.shape[1]}x{image.shape[0]} to {width}x{height} would exceed "
                            f"{MAX_RESIZE_SIDE} pixels a side or {max_pixels} pixels", code="resize_too_large")
    if interpolation is None:
        shrinking = width * height < image.shape[0] * image.shape[1]
        interpolation = cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR
    return cv2.resize(image, (width, height), interpolation=interpolation)


def declared_pixels(data: bytes) -> int:
    """Width x height an image's header declares, read without decoding it; 0 when there is no readable
    header (:func:`decode_image` then names the problem)."""
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


def pil_pixels(img) -> np.ndarray:
    """A PIL image as the file decoder gives it: EXIF orientation applied, any mode made RGB ``uint8``."""
    return _to_rgb_array(_apply_exif_orientation(img, ImageOps))


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
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def encode_png(pixels: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG")
    return buf.getvalue()
