"""Tesseract in process (libtesseract) and as a command (pytesseract): same words, same orientation."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from docauth.config import Settings
from docauth.errors import ConfigError
from docauth.ocr import tesseract as T

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
LINES = ["SURNAME", "MUSTERMANN", "GIVEN NAMES", "ERIKA", "DATE OF BIRTH", "12 08 1964"]


def _page(lines=LINES, size=30) -> np.ndarray:
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(FONT, size)
    img = Image.new("L", (700, 70 + len(lines) * 2 * size), 255)
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        draw.text((40, 30 + i * 2 * size), line, fill=0, font=font)
    return np.asarray(img)


def _words(data: dict) -> list[str]:
    return [t for t, c in zip(data["text"], data["conf"]) if t.strip() and float(c) >= 0]


@pytest.fixture(scope="module")
def library():
    try:
        return T.tesseract_engine("library")
    except T.TesseractError as exc:
        pytest.skip(f"libtesseract is not loadable here: {exc}")


def test_both_engines_read_the_same_words(library):
    page = _page()
    expected = " ".join(LINES).split()
    in_process = library.data(page)
    command = T.tesseract_engine("command").data(page)
    assert _words(in_process) == expected
    assert _words(command) == _words(in_process)
    assert in_process["left"] == command["left"] and in_process["top"] == command["top"]


def test_orientation_of_a_page_turned_half_way(library):
    page = _page(LINES * 3, size=26)
    for engine in (library, T.tesseract_engine("command")):
        upright, turned = engine.orientation(page), engine.orientation(np.ascontiguousarray(page[::-1, ::-1]))
        assert upright is not None and upright.rotate == 0
        assert turned is not None and turned.rotate == 180 and turned.confidence > 1.0


def test_a_blank_image_reads_as_no_words(library):
    blank = np.full((120, 400), 255, np.uint8)
    assert _words(library.data(blank)) == []
    assert library.orientation(blank) is None


def test_concurrent_callers_each_get_their_own_text(library):
    pages = {name: _page([name], size=40) for name in ("ALPHA", "BRAVO", "CHARLIE", "DELTA")}
    results: dict = {}

    def read(name):
        results[name] = [_words(library.data(pages[name])) for _ in range(5)]

    threads = [threading.Thread(target=read, args=(name,)) for name in pages]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {name: [[name]] * 5 for name in pages}


def test_a_page_read_in_parts_at_once(library):
    parts = [_page(["FIRST", "PART"]), _page(["SECOND", "PART"])]
    assert [_words(d) for d in library.data_each(parts)] == [["FIRST", "PART"], ["SECOND", "PART"]]


def test_auto_falls_back_to_the_command_without_the_library(monkeypatch):
    # Injected fault: no libtesseract on this machine.
    monkeypatch.setattr(T, "LIBRARY_NAMES", ("libtesseract-missing.so.99",))
    monkeypatch.setattr(T.ctypes.util, "find_library", lambda name: None)
    monkeypatch.setattr(T._Library, "_loaded", None)
    monkeypatch.setattr(T, "_engines", {})
    assert T.tesseract_engine("auto").name == "command"
    with pytest.raises(T.TesseractError, match="libtesseract could not be loaded"):
        T.tesseract_engine("library")


def test_engine_names_are_checked():
    with pytest.raises(ConfigError):
        T.tesseract_engine("gpu")
    with pytest.raises(ConfigError, match="tesseract"):
        Settings.load(environ={"DOCAUTH_TESSERACT": "fast"})
    assert Settings.load(environ={"DOCAUTH_TESSERACT": "command"}).tesseract == "command"
