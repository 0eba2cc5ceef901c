"""Tesseract, in this process (libtesseract's C API) or as a command (pytesseract).

    engine = tesseract_engine("auto")          # the library when it loads, else the command
    words = engine.data(gray)                  # {"text", "conf", "left", "top", "width", "height"}
    turn = engine.orientation(gray)            # (degrees to turn clockwise, confidence) or None

Both engines run the same Tesseract with the same settings and give the same
words. The command (``pytesseract``) starts a process per call, and that process
spends ~170 ms loading the language before it reads a single glyph (measured on
this 2-core host: 4 ms to read a word in process, 258 ms through the command). A
check calls Tesseract once or twice, so the kiosk keeps the language loaded.

``TessBaseAPI`` handles are not thread-safe: each call borrows one from a pool
and gives it back, so concurrent requests never share one and a thread that ends
leaks nothing. Handles are made on first use (after a server's fork), never at import.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import os
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from docauth.config import TESSERACT_ENGINES as ENGINES
from docauth.errors import ConfigError, ModelError
from docauth.runtime.threading import process_threads

LIBRARY_NAMES = ("libtesseract.so.5", "libtesseract.so", "libtesseract.5.dylib")
# Settings of the printed-field pass (a mosaic of text lines) and of the orientation pass.
TEXT_PSM, OSD_PSM = 6, 0
OEM_LSTM, OEM_LEGACY = 1, 0
TEXT_VARIABLES = {"tessedit_do_invert": "0"}
OSD_VARIABLES = {"min_characters_to_try": "20"}
# In process, Tesseract's messages ("Too few characters. Skipping this page") would land in the server log.
QUIET = {"debug_file": os.devnull}


class TesseractError(ModelError):
    """Tesseract could not start (library or language data missing)."""

    def __init__(self, message: str):
        super().__init__(message, code="ocr_engine_unavailable")


@dataclass(frozen=True)
class Orientation:
    rotate: int  # degrees to turn the image clockwise to make it upright (Tesseract's "Rotate")
    confidence: float


def words_from_tsv(tsv: str) -> dict:
    """Tesseract's TSV (``GetTsvText``, no header) as pytesseract's ``image_to_data`` dict of lists.

    >>> words_from_tsv("5\\t1\\t1\\t1\\t1\\t1\\t7\\t10\\t75\\t18\\t96.4\\tHELLO\\n")["text"]
    ['HELLO']
    """
    out: dict = {k: [] for k in ("left", "top", "width", "height", "conf", "text")}
    for row in tsv.splitlines():
        cols = row.split("\t")
        if len(cols) < 12:
            continue
        for key, value in zip(("left", "top", "width", "height"), cols[6:10]):
            out[key].append(int(value))
        out["conf"].append(float(cols[10]))
        out["text"].append("\t".join(cols[11:]))
    return out


def _gray(image: np.ndarray) -> np.ndarray:
    if image.dtype != np.uint8 or image.ndim != 2:
        raise ValueError("Tesseract reads a 2-D uint8 (grayscale) image")
    return np.ascontiguousarray(image)


class CommandTesseract:
    """The ``tesseract`` command through pytesseract: a process per call."""

    name = "command"
    concurrent = False  # every call pays the language load: one call for many lines is cheaper

    def data_each(self, images) -> list[dict]:
        return [self.data(image) for image in images]

    def warmup(self) -> None:
        """Nothing stays loaded between calls of the command."""

    def data(self, gray: np.ndarray) -> dict:
        import pytesseract  # deferred: it imports pandas when installed (seconds), and only this engine needs it

        config = f"--psm {TEXT_PSM} --oem {OEM_LSTM} " + " ".join(f"-c {k}={v}" for k, v in TEXT_VARIABLES.items())
        try:
            d = pytesseract.image_to_data(_gray(gray), config=config, output_type=pytesseract.Output.DICT)
        except (pytesseract.TesseractNotFoundError, FileNotFoundError) as exc:
            raise TesseractError("the tesseract command is not installed (Debian: tesseract-ocr)") from exc
        except (pytesseract.TesseractError, RuntimeError):
            return words_from_tsv("")  # Tesseract gave up on this image: no words, not a failed check
        return {k: list(d[k]) for k in ("left", "top", "width", "height", "conf", "text")}

    def orientation(self, gray: np.ndarray) -> Orientation | None:
        import pytesseract  # deferred: see data

        config = f"--psm {OSD_PSM} " + " ".join(f"-c {k}={v}" for k, v in OSD_VARIABLES.items())
        try:
            osd = pytesseract.image_to_osd(_gray(gray), config=config, output_type=pytesseract.Output.DICT)
        except (pytesseract.TesseractError, RuntimeError, ValueError):
            return None  # too few characters to decide
        return Orientation(int(osd.get("rotate", 0)) % 360, float(osd.get("orientation_conf", 0.0)))


class _Library:
    """libtesseract's C API, loaded once per process."""

    _lock = threading.Lock()
    _loaded: "_Library | None" = None

    def __init__(self, lib: ctypes.CDLL):
        p, c, i, f = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_float
        sig = {
            "TessBaseAPICreate": ([], p),
            "TessBaseAPIDelete": ([p], None),
            "TessBaseAPIEnd": ([p], None),
            "TessBaseAPIInit2": ([p, c, c, i], i),
            "TessBaseAPISetVariable": ([p, c, c], i),
            "TessBaseAPISetPageSegMode": ([p, i], None),
            "TessBaseAPISetImage": ([p, p, i, i, i, i], None),
            "TessBaseAPIGetTsvText": ([p, i], p),
            "TessBaseAPIDetectOrientationScript": (
                [p, ctypes.POINTER(i), ctypes.POINTER(f), ctypes.POINTER(c), ctypes.POINTER(f)], i),
            "TessBaseAPIClear": ([p], None),
            "TessDeleteText": ([p], None),
        }
        for name, (args, res) in sig.items():
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, res
        self.lib = lib

    @classmethod
    def load(cls) -> "_Library":
        with cls._lock:
            if cls._loaded is None:
                # Tesseract's OpenMP reads this when the library loads: one thread is faster on 2 cores.
                os.environ.setdefault("OMP_THREAD_LIMIT", "1")
                errors = []
                names = list(LIBRARY_NAMES)
                found = ctypes.util.find_library("tesseract")
                if found:
                    names.append(found)
                for name in names:
                    try:
                        cls._loaded = cls(ctypes.CDLL(name))
                        break
                    except (OSError, AttributeError) as exc:
                        errors.append(f"{name}: {exc}")
                else:
                    raise TesseractError("libtesseract could not be loaded (" + "; ".join(errors) + ")")
            return cls._loaded


class _HandlePool:
    """Initialised ``TessBaseAPI`` handles of one kind (language + engine mode), lent one per call."""

    def __init__(self, library: _Library, lang: str, oem: int, psm: int, variables: dict):
        self.library, self.lang, self.oem, self.psm, self.variables = library, lang, oem, psm, variables
        self._idle: queue.SimpleQueue = queue.SimpleQueue()
        self._all: list = []
        self._lock = threading.Lock()

    def _new(self):
        lib = self.library.lib
        handle = ctypes.c_void_p(lib.TessBaseAPICreate())
        # datapath None: Tesseract's own default (TESSDATA_PREFIX or the packaged tessdata).
        if lib.TessBaseAPIInit2(handle, None, self.lang.encode(), self.oem) != 0:
            lib.TessBaseAPIDelete(handle)
            raise TesseractError(f"Tesseract could not load its language data {self.lang!r} "
                                 f"(Debian: tesseract-ocr-{self.lang}; or set TESSDATA_PREFIX)")
        for key, value in {**QUIET, **self.variables}.items():
            lib.TessBaseAPISetVariable(handle, key.encode(), value.encode())
        lib.TessBaseAPISetPageSegMode(handle, self.psm)
        with self._lock:
            self._all.append(handle)
        return handle

    def borrow(self):
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            return self._new()

    def give_back(self, handle) -> None:
        self.library.lib.TessBaseAPIClear(handle)  # drops the image; the language stays loaded
        self._idle.put(handle)

    def close(self) -> None:
        with self._lock:
            handles, self._all = self._all, []
        lib = self.library.lib
        for handle in handles:
            lib.TessBaseAPIEnd(handle)
            lib.TessBaseAPIDelete(handle)


class LibraryTesseract:
    """libtesseract in this process: the language is loaded once per handle, not once per call."""

    name = "library"
    concurrent = True  # calls are cheap: a long text can be read in parts on two cores

    def __init__(self, library: _Library | None = None):
        library = library or _Library.load()
        self._text = _HandlePool(library, "eng", OEM_LSTM, TEXT_PSM, TEXT_VARIABLES)
        self._osd = _HandlePool(library, "osd", OEM_LEGACY, OSD_PSM, OSD_VARIABLES)
        self._lib = library.lib
        self._helpers = None  # threads for data_each, made on first use
        self._helpers_lock = threading.Lock()
        atexit.register(self.close)  # ends the handles quietly (Tesseract reports leaks otherwise)

    def warmup(self) -> None:
        """Load both languages now: a first request should not pay ~170 ms for each."""
        for pool in (self._text, self._osd):
            pool.give_back(pool.borrow())

    def _set_image(self, handle, gray: np.ndarray) -> None:
        self._lib.TessBaseAPISetImage(handle, gray.ctypes.data, gray.shape[1], gray.shape[0], 1, gray.strides[0])

    def data(self, gray: np.ndarray) -> dict:
        gray = _gray(gray)
        handle = self._text.borrow()
        try:
            self._set_image(handle, gray)
            text = self._lib.TessBaseAPIGetTsvText(handle, 0)
            if not text:
                return words_from_tsv("")
            try:
                return words_from_tsv(ctypes.string_at(text).decode("utf-8", "replace"))
            finally:
                self._lib.TessDeleteText(text)
        finally:
            self._text.give_back(handle)

    def data_each(self, images) -> list[dict]:
        """``data`` of each image, all at once (the last in the calling thread); one after the other in a
        process given a single core (a batch scanner's worker), where concurrent reads only take turns."""
        images = list(images)
        if len(images) < 2 or process_threads() < 2:
            return [self.data(image) for image in images]
        with self._helpers_lock:
            if self._helpers is None:
                self._helpers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="docauth-tesseract")
        others = [self._helpers.submit(self.data, image) for image in images[:-1]]
        last = self.data(images[-1])
        return [f.result() for f in others] + [last]

    def orientation(self, gray: np.ndarray) -> Orientation | None:
        gray = _gray(gray)
        handle = self._osd.borrow()
        try:
            self._set_image(handle, gray)
            degrees, conf, script_conf = ctypes.c_int(0), ctypes.c_float(0.0), ctypes.c_float(0.0)
            script = ctypes.c_char_p()
            ok = self._lib.TessBaseAPIDetectOrientationScript(
                handle, ctypes.byref(degrees), ctypes.byref(conf), ctypes.byref(script), ctypes.byref(script_conf))
        finally:
            self._osd.give_back(handle)
        if not ok:
            return None  # too few characters to decide
        # The text is turned ``degrees`` counter-clockwise; turning it upright is the same angle clockwise
        # for 0 and 180, and the other quarter for 90/270 (Tesseract's own "Rotate" figure).
        rotate = {0: 0, 90: 270, 180: 180, 270: 90}.get(int(degrees.value) % 360, 0)
        return Orientation(rotate, float(conf.value))

    def close(self) -> None:
        if self._helpers is not None:
            self._helpers.shutdown(wait=True)
        self._text.close()
        self._osd.close()


_engines: dict = {}
_engines_lock = threading.Lock()


def tesseract_engine(kind: str = "auto"):
    """The shared engine of this process: ``library`` (in process), ``command``, or ``auto``.

    ``auto`` takes the library when it loads and the command otherwise (a
    machine with the tesseract binary but no loadable libtesseract).
    """
    if kind not in ENGINES:
        raise ConfigError(f"tesseract engine must be one of {', '.join(ENGINES)}, not {kind!r}")
    with _engines_lock:
        if kind not in _engines:
            if kind == "command":
                _engines[kind] = CommandTesseract()
            elif kind == "library":
                _engines[kind] = LibraryTesseract()
            else:
                try:
                    _engines[kind] = LibraryTesseract()
                except TesseractError:
                    _engines[kind] = CommandTesseract()
        return _engines[kind]
