"""The front door: one plain function per question, as ``import docauth`` offers them.

    import docauth
    result = docauth.check("passport.jpg")            # whole pipeline: result.decision, .reason_codes, .export()
    docauth.read("passport.jpg").fields               # MRZ and printed fields
    docauth.classify("passport.jpg").side             # document or not, which side
    docauth.compare_faces("selfie.jpg", "passport.jpg").match

Every image argument may be a file path, the file's bytes, a PIL image or an
RGB ``uint8`` array (H, W, 3); it becomes an array here and nowhere else. The
models load on the first call that needs them and are reused after; settings
come from the ``DOCAUTH_*`` environment, or from :func:`configure`. The first
check creates the person database under ``DOCAUTH_DATA_DIR`` when it is not
there yet. Errors are :class:`docauth.errors.DocauthError` subclasses with a
message that says what was wrong.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from docauth.errors import ImageTooLarge, ImageTooSmall, InputError

# Every other import waits for the first call that needs it: ``import docauth`` looks these functions up
# (tests/test_front.py), and neither numpy, Pillow, OpenCV nor SQLAlchemy may load before then.

_lock = threading.RLock()
_overrides: dict[str, Any] = {}
_loaded: dict[str, Any] = {}


class WrongImageType(InputError, TypeError):
    """An image argument of a type the front door does not take (also a ``TypeError``)."""

    code = "wrong_image_type"


def configure(**settings: Any) -> None:
    """Use these settings (fields of :class:`docauth.config.Settings`, e.g. ``data_dir=``, ``backend=``)
    from the next call on; models loaded so far are dropped."""
    from docauth.config import Settings

    Settings.load(**{**_overrides, **settings})  # refuses unknown names and bad values now, not later
    with _lock:
        _close_loaded()
        _overrides.update(settings)


def pipeline():
    """The shared :class:`docauth.pipeline.Pipeline`, loaded on first use (reusing stages already loaded)."""
    with _lock:
        if "pipeline" not in _loaded:
            from docauth.pipeline import Pipeline

            _loaded["pipeline"] = Pipeline.load(_settings(), classifier=_loaded.get("classifier"),
                                                reader=_loaded.get("reader"))
        return _loaded["pipeline"]


def check(image, *, person_id: int | None = None, claimed: dict | None = None):
    """The whole check of one document image: a :class:`docauth.pipeline.CheckResult`.

    ``person_id``: an enrolled person to verify against; ``claimed``: the fields the customer claims
    (``{"surname": ..., "date_of_birth": "YYYY-MM-DD", ...}``) instead. ``result.decision`` is
    ``accept``, ``review``, ``reject`` or ``retake``; ``result.export()`` is the JSON the service answers.
    """
    pixels = image_array(image)
    return pipeline().check(pixels, person_id=person_id, claimed=claimed)


def read(image):
    """Locate the document and read its MRZ and printed fields: a :class:`docauth.ocr.OCRResult`
    (``.fields``, ``.mrz``, ``.export()``)."""
    pixels = image_array(image)
    return _stage("reader")(pixels)


def classify(image):
    """Document or not, and which side (``front``, ``back``, ``open``), decided as the check decides it:
    ``.is_document``, ``.side``, ``.document_score``, ``.export()``."""
    from docauth.pipeline.side import sided

    pixels = image_array(image)
    (result,) = _stage("classifier")([pixels])
    return sided(result, pixels, _stage("reader"))


def compare_faces(a, b, *, threshold: float | None = None):
    """Whether the largest face in ``a`` and in ``b`` are the same person: a
    :class:`docauth.matching.face.FaceMatch` (``.match``, ``.distance``, ``.threshold``; lower distance is
    more alike). An image without a face raises :class:`docauth.errors.InputError` (code ``no_face``)."""
    from docauth.matching.face import FaceMatcher, encode_largest_face

    faces = []
    for name, image in (("a", a), ("b", b)):
        face = encode_largest_face(image_array(image))
        if face is None:
            raise InputError(f"image {name}: no face was found", code="no_face")
        faces.append(face)
    return FaceMatcher(_settings().face_threshold if threshold is None else threshold).verify(*faces)


def image_array(image):
    """An RGB ``uint8`` array (H, W, 3) of a path, bytes, PIL image or array, within the size limits."""
    import numpy as np

    from docauth.imageio import decode_image

    settings = _settings()
    if isinstance(image, (str, os.PathLike, bytes, bytearray, memoryview)):
        return decode_image(image if not isinstance(image, os.PathLike) else os.fspath(image),
                            max_pixels=settings.max_image_pixels, min_side=settings.min_image_side).pixels
    if _is_pil_image(image):
        pixels = _pil_pixels(image)
    elif isinstance(image, np.ndarray):
        pixels = _array_pixels(image)
    else:
        raise WrongImageType(f"an image is a file path, bytes, a PIL image or a numpy array (H, W, 3), "
                             f"not {type(image).__module__}.{type(image).__qualname__}")
    height, width = pixels.shape[:2]
    if width * height > settings.max_image_pixels:
        raise ImageTooLarge(f"image is {width}x{height} pixels, over the limit of {settings.max_image_pixels}")
    if min(width, height) < settings.min_image_side:
        raise ImageTooSmall(f"image is {width}x{height}; each side must be at least {settings.min_image_side} pixels")
    return pixels


def _array_pixels(image):
    import numpy as np

    if image.dtype != np.uint8:
        raise WrongImageType(f"an image array holds uint8 pixels (0-255), not {image.dtype}; "
                             f"scale it and convert with .astype(numpy.uint8)")
    if image.ndim == 2:
        image = np.stack([image] * 3, axis=-1)
    elif image.ndim != 3 or image.shape[2] not in (3, 4):
        raise WrongImageType(f"an image array is (H, W, 3) RGB, (H, W, 4) RGBA or (H, W) grey, "
                             f"not shape {image.shape}")
    return np.ascontiguousarray(image[:, :, :3])


def _is_pil_image(image) -> bool:
    pil = sys.modules.get("PIL.Image")  # not imported yet: nothing can be a PIL image
    return pil is not None and isinstance(image, pil.Image)


def _pil_pixels(image):
    """A PIL image as the file decoder would give it: EXIF orientation applied, any mode made RGB."""
    from docauth import imageio

    return imageio.pil_pixels(image)


def _stage(name: str):
    """The classifier or reader: the loaded pipeline's own, else loaded alone once."""
    from docauth.pipeline import loaders

    with _lock:
        if "pipeline" in _loaded:
            return getattr(_loaded["pipeline"], name)
        if name not in _loaded:
            load = {"classifier": loaders.load_classifier, "reader": loaders.load_reader}[name]
            _loaded[name] = load(_settings())
        return _loaded[name]


def _settings():
    from docauth.config import Settings

    with _lock:
        if "settings" not in _loaded:
            defaults = {}
            if "DOCAUTH_FACE_PROCESS" not in os.environ:
                # In a library the face stage runs in this process: no child process outlives a notebook cell.
                defaults["face_process"] = False
            _loaded["settings"] = Settings.load(**{**defaults, **_overrides})
        return _loaded["settings"]


def _close_loaded() -> None:
    loaded = _loaded.get("pipeline")
    if loaded is not None:
        for part in (loaded.store, loaded.faces):  # the database connections, a face child process
            close = getattr(part, "close", None)
            if close is not None:
                close()
    _loaded.clear()
