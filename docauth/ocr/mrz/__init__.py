"""The machine-readable zone (ICAO 9303): the format, the corrections an OCR read needs, reading it from an image.

    from docauth.ocr.mrz import parse_mrz
    result = parse_mrz("P<UTO...|L898902C3...")  # MRZResult; never raises

Modules, from the text up to the pixels:

- ``format``: layouts, position classes, check digits run, fields, dates, transliteration (``checkdigit``,
  ``countries``: the check-digit arithmetic and the ICAO country codes);
- ``rules``: each correction of an OCR read, one named function;
- ``parse``: :func:`parse_mrz`, the rules applied in order, the checks, the verdict;
- ``confirm``: unsure name and code letters settled by the page's printed text;
- ``finder``: the zone in an image, its lines cut into strips;
- ``line_model``: the CTC line recogniser (network, decoding, voting);
- ``reader``: :class:`~docauth.ocr.mrz.reader.MRZReader`, finder + line model + parse.
"""

from docauth.ocr.mrz.confirm import confirm_in_print
from docauth.ocr.mrz.format import FORMATS, MRZ_CHARS, mrz_date, split_name, transliterate
from docauth.ocr.mrz.parse import MRZResult, checks_pass, parse_mrz

__all__ = ["MRZResult", "parse_mrz", "checks_pass", "confirm_in_print", "mrz_date", "split_name", "transliterate",
           "FORMATS", "MRZ_CHARS"]
