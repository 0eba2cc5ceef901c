"""OCR stage: locate and rectify the document, read the MRZ (ICAO 9303), read the printed fields.

    from docauth.ocr import DocumentReader, parse_mrz
    reader = DocumentReader.load()      # loads models/mrz_lines and the text models through docauth.runtime
    result = reader(rgb)                # OCRResult; result.export() is JSON-safe
    parse_mrz("P<UTO...|L898902C3...")  # MRZResult; never raises

Modules: ``mrz`` (parser, checks, corrections), ``mrzread`` (text direction,
zone finder, line strips), ``mrzlines`` (the CTC line recogniser: model,
decoding, training), ``mrzrender`` (rendered MRZs for training), ``locate``
(document quad, warp, quarter-turns), ``quad`` (corner geometry), ``outline`` (optional
segmentation model for the quad), ``printed`` (printed fields: text detection and recognition, captions,
field assignment, comparison with the MRZ), ``textboxes`` (word boxes by morphology, for which way up a page
is), ``tesseract`` (its orientation detector), ``reader`` (the stage object), ``evaluate``, ``cli``.
Importing this package loads no ML framework.
"""

from docauth.ocr.mrz import MRZResult, parse_mrz
from docauth.ocr.reader import DocumentReader, DocumentView, OCRResult

__all__ = ["DocumentReader", "DocumentView", "OCRResult", "MRZResult", "parse_mrz"]
