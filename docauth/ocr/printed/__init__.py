"""Printed fields (the visual inspection zone): text detection and recognition, captions, field assignment.

    from docauth.ocr.printed import PrintedReader
    read = PrintedReader.load()(upright_rgb, mrz_top=..., mrz_fields=...)
"""

from docauth.ocr.printed.assign import FieldRead, PrintedLine
from docauth.ocr.printed.reader import PrintedRead, PrintedReader

__all__ = ["FieldRead", "PrintedLine", "PrintedRead", "PrintedReader"]
