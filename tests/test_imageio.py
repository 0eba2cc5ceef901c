"""Safe decoding: every malformed input becomes a clear docauth input error."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from docauth import errors
from docauth.imageio import declared_pixels, decode_image, load_image, sniff_media_type


def _png(arr: np.ndarray, mode: str | None = None) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(arr, mode=mode).save(buf, format="PNG")
    return buf.getvalue()


def test_rgb_png_round_trip():
    arr = np.random.default_rng(0).integers(0, 255, (20, 30, 3), dtype=np.uint8)
    out = load_image(_png(arr))
    assert out.dtype == np.uint8 and out.shape == (20, 30, 3)
    assert np.array_equal(out, arr)


def test_empty_and_text_are_rejected():
    with pytest.raises(errors.EmptyFile):
        decode_image(b"")
    with pytest.raises(errors.UnsupportedMediaType):
        decode_image(b"this is plain text, not an image")
    with pytest.raises(errors.UnsupportedMediaType):
        decode_image(b"%PDF-1.4\n...")


def test_declared_dimensions_checked_before_decoding():
    img = Image.new("L", (4000, 3000))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    with pytest.raises(errors.ImageTooLarge):
        decode_image(buf.getvalue(), max_pixels=1_000_000)


def test_modes_become_rgb():
    gray16 = Image.fromarray((np.arange(100, dtype=np.uint16).reshape(10, 10) * 600))
    buf = io.BytesIO()
    gray16.save(buf, format="PNG")
    assert load_image(buf.getvalue()).shape == (10, 10, 3)
    cmyk = Image.new("CMYK", (8, 8), (0, 255, 0, 0))
    buf = io.BytesIO()
    cmyk.save(buf, format="JPEG")
    out = load_image(buf.getvalue())
    assert out.shape == (8, 8, 3) and out[..., 0].mean() > 200 and out[..., 1].mean() < 60
    rgba = np.zeros((6, 6, 4), dtype=np.uint8)  # fully transparent -> white background
    assert load_image(_png(rgba, "RGBA")).min() == 255


def test_exif_rotation_applied():
    img = Image.new("RGB", (40, 20), (255, 0, 0))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise on display
    buf = io.BytesIO()
    img.save(buf, format="JPEG", exif=exif)
    assert load_image(buf.getvalue()).shape == (40, 20, 3)


def test_truncated_jpeg_is_invalid_image():
    arr = np.random.default_rng(1).integers(0, 255, (64, 64, 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="JPEG")
    with pytest.raises(errors.InvalidImage):
        decode_image(buf.getvalue()[: len(buf.getvalue()) // 2])


def test_sniffing_ignores_names():
    assert sniff_media_type(b"GIF89a....") == "image/gif"
    assert sniff_media_type(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"


EXPECTED_BAD_INPUTS = {
    "corrupted.png": errors.InvalidImage,
    "empty.png": errors.UnsupportedMediaType,
    "zero_bytes.jpg": errors.EmptyFile,
    "text_renamed.jpg": errors.UnsupportedMediaType,
    "png_bomb_60000x60000.png": errors.ImageTooLarge,
    "truncated.jpg": errors.InvalidImage,
}


@pytest.mark.parametrize("name", sorted(EXPECTED_BAD_INPUTS))
def test_shared_bad_inputs_rejected_clearly(shared_data, name):
    with pytest.raises(EXPECTED_BAD_INPUTS[name]) as info:
        decode_image(shared_data / "bad-inputs" / name)
    assert 400 <= info.value.http_status < 500


@pytest.mark.parametrize("name,shape", [("valid_1x1.png", (1, 1, 3)), ("animated.gif", (64, 96, 3)),
                                        ("bad_exif_orientation.jpg", (240, 320, 3))])
def test_shared_odd_but_valid_inputs_decode(shared_data, name, shape):
    assert load_image(shared_data / "bad-inputs" / name).shape == shape


def test_declared_pixels_reads_the_header_only():
    from bad_inputs import jpeg_claiming, png_claiming

    assert declared_pixels(png_claiming(6000, 5000)) == 30_000_000  # 4 rows of data: never decoded
    assert declared_pixels(jpeg_claiming(4000, 3000)) == 12_000_000
    assert declared_pixels(b"not an image") == 0
    assert declared_pixels(b"\x89PNG\r\n\x1a\n") == 0  # a signature without a header


def test_a_truncated_file_is_refused_even_after_the_face_models_are_loaded():
    # face_recognition switches Pillow to loading truncated files when imported; docauth's face stage must not.
    from docauth.matching.dlib_models import face_encoder
    from docauth.matching.face import load_dlib

    rng = np.random.default_rng(0)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 255, (300, 400, 3), dtype=np.uint8)).save(buf, format="PNG")
    half = buf.getvalue()[: len(buf.getvalue()) // 2]
    load_dlib()
    face_encoder()
    with pytest.raises(errors.InvalidImage, match="truncated"):
        decode_image(half)
