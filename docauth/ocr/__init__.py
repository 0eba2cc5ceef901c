"""OCR stage: locate and rectify the document, read the MRZ (ICAO 9303), read the printed fields.

    from docauth.ocr import DocumentReader, parse_mrz
    reader = DocumentReader.load()      # loads models/mrz_lines and the text models through docauth.runtime
    result = reader(rgb)                # OCRResult; result.export() is JSON-safe
    parse_mrz("P<UTO...|L898902C3...")  # MRZResult; never raises

Modules: ``reader`` (the stage object: locate, read the MRZ, read the print, cross-check), ``mrz`` (the
machine-readable zone: ICAO 9303 format, correction rules, parser, zone finder, CTC line recogniser, MRZ reader),
``printed`` (printed fields: text detection and recognition, captions, field assignment, comparison with the
MRZ), ``locate`` (document quad, warp, quarter-turns), ``quad`` (corner geometry), ``outline`` (optional
segmentation model for the quad), ``zone_geometry`` (the document's corners from where its MRZ lies),
``orient`` (which way up a page without an MRZ lies), ``textboxes`` (word boxes by morphology),
``tesseract`` (its orientation detector), ``cli`` (``docauth ocr``). Training and evaluation live in
:mod:`docauth.training`. Importing this package loads no ML framework.
"""

from docauth.ocr.mrz import MRZResult, parse_mrz
from docauth.ocr.reader import DocumentReader, DocumentView, OCRResult

__all__ = ["DocumentReader", "DocumentView", "OCRResult", "MRZResult", "parse_mrz"]
