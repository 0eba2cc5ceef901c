"""One labelled sample = a pure function of (seed, index, category)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from docauth.synth import photos
from docauth.synth.capture import capture_document
from docauth.synth.crop import crop_capture
from docauth.synth.documents import render_document
from docauth.synth.identity import COUNTRY_CODES
from docauth.synth.nondocs import NONDOC_RENDERERS

DOCUMENT_CATEGORIES = ("td1_front", "td1_back", "td3_open", "td1_both", "td2_front", "mrv_visa", "doc_crop")
NON_DOCUMENT_CATEGORIES = ("selfie", "scenery", "letter", "screenshot", "blank", "card", "photo", "card_crop")
CATEGORIES = DOCUMENT_CATEGORIES + NON_DOCUMENT_CATEGORIES
# Opt-in categories (never drawn by the default mix, only when named). None at present: td1_both, the
# first one, joined the default mix with the categories of generator v2.
EXTRA_CATEGORIES: tuple[str, ...] = ()
# The random-stream key of each category, fixed forever: adding or reordering categories never changes the
# samples of another one. (Keys 1-10 are what v1 derived from its category order.)
STREAM_KEY = {"td1_front": 1, "td1_back": 2, "td3_open": 3, "selfie": 4, "scenery": 5, "letter": 6,
              "screenshot": 7, "blank": 8, "card": 9, "td1_both": 10,
              "td2_front": 11, "mrv_visa": 12, "doc_crop": 13, "photo": 14, "card_crop": 15}

# The default mix: half documents, half things people upload by mistake. Front+back sheets and tight
# crops are common among real uploads and specimens, so they are a large share of the documents.
# TD2 cards and visas are rare uploads (few TD2 issuers remain; a visa is not an identity document on its
# own) but look like a passport data page, so they are in the mix at a few percent each.
MIX = {
    "td1_front": 0.09, "td1_back": 0.09, "td3_open": 0.09, "td1_both": 0.06, "td2_front": 0.025,
    "mrv_visa": 0.035, "doc_crop": 0.11,
    "selfie": 0.10, "scenery": 0.09, "letter": 0.11, "screenshot": 0.06, "blank": 0.03, "card": 0.05,
    "photo": 0.04, "card_crop": 0.02,
}
# doc_crop: which document is cropped (td3_page: the passport data page alone)
CROP_KINDS = {"td1_both": 0.3, "td3_page": 0.25, "td1_front": 0.15, "td1_back": 0.12, "td2_front": 0.06,
              "mrv_visa": 0.12}
SIDE = {"td1_front": "front", "td1_back": "back", "td3_open": "open", "td1_both": "both", "td2_front": "front",
        "mrv_visa": "front", "td3_page": "open"}
KIND = {"td1_front": "td1_card", "td1_back": "td1_card", "td3_open": "td3_passport", "td1_both": "td1_card",
        "td2_front": "td2_card", "mrv_visa": "visa", "td3_page": "td3_passport"}
PHONE_SHARE = 0.7  # documents: phone photos vs flatbed scans
THUMB_SHARE = 0.15  # phone photos where a thumb holds the document
BEND_SHARE = 0.4  # phone photos of passports whose page bulges
REAL_PHOTO_SHARE = 0.08  # documents carrying the real face photo instead of a drawing
FOREIGN_VISA_SHARE = 0.7  # visas whose holder is not a national of the issuing state


@dataclass
class Sample:
    image: np.ndarray  # RGB uint8 (H, W, 3)
    label: dict  # JSON-safe, one labels.jsonl line

    @property
    def category(self) -> str:
        return self.label["category"]


def sample_file_name(seed: int, index: int) -> str:
    return f"{seed}-{index:07d}.jpg"


def choose_category(seed: int, index: int, categories=None) -> str:
    """The category of sample ``index`` under the default mix (restricted to ``categories`` when given)."""
    names = list(categories) if categories else list(CATEGORIES)
    # named categories outside the mix (opt-in extras) weigh like an average document category
    weights_by_name = {**{c: 1 / 6 for c in EXTRA_CATEGORIES}, **MIX}
    for c in names:
        if c not in weights_by_name:
            raise ValueError(f"unknown category {c!r}; expected one of {', '.join(CATEGORIES + EXTRA_CATEGORIES)}")
    weights = np.array([weights_by_name[c] for c in names], np.float64)
    rng = np.random.default_rng([seed, index, 0])
    return names[int(rng.choice(len(names), p=weights / weights.sum()))]


def _corners(points) -> list:
    return [[round(float(x), 1), round(float(y), 1)] for x, y in points]


def _box_points(box) -> list:
    x0, y0, x1, y1 = box
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def generate_sample(seed: int, index: int, category: str | None = None) -> Sample:
    """Render and capture one sample. Same (seed, index, category) -> identical pixels and label.

    With ``category=None`` the category comes from the default mix, and the result equals
    ``generate_sample(seed, index, <that category>)``.
    """
    if seed < 0 or index < 0:
        raise ValueError("seed and index must be non-negative")
    if category is None:
        category = choose_category(seed, index)
    elif category not in STREAM_KEY:
        raise ValueError(f"unknown category {category!r}; expected one of {', '.join(CATEGORIES + EXTRA_CATEGORIES)}")
    rng = np.random.default_rng([seed, index, STREAM_KEY[category]])
    is_document = category in DOCUMENT_CATEGORIES
    label = {
        "file": sample_file_name(seed, index), "seed": int(seed), "index": int(index), "category": category,
        "is_document": is_document, "side": SIDE.get(category), "kind": KIND.get(category),
        "fields": None, "mrz": None, "mrz_type": None, "corners": None, "identity": None, "variant": None,
        "mrz_corners": None, "portrait_corners": None, "capture": None,
    }
    if is_document:
        return _document_sample(category, rng, label)
    image, extra = NONDOC_RENDERERS[category](rng)
    label.update({"identity": extra.get("identity"), "variant": extra.get("variant"), "capture": extra["capture"]})
    return Sample(image, label)


def _document_sample(category: str, rng: np.random.Generator, label: dict) -> Sample:
    kind = category
    if category == "doc_crop":  # a new category: its draws may come first
        names = list(CROP_KINDS)
        kind = names[int(rng.choice(len(names), p=np.array(list(CROP_KINDS.values())) / sum(CROP_KINDS.values())))]
    portrait = identity = None
    if kind != "td1_back" and rng.random() < REAL_PHOTO_SHARE:
        portrait = photos.face_view(rng, 450, 350)
        identity = {"identity_id": photos.REAL_FACE_IDENTITY} if portrait is not None else None
    if kind == "mrv_visa" and rng.random() < FOREIGN_VISA_SHARE:
        identity = {**(identity or {}), "nationality": str(rng.choice(COUNTRY_CODES))}
    doc = render_document(kind, rng, identity=identity, portrait=portrait)
    if category == "doc_crop":
        cap = crop_capture(doc.image, rng, mask=doc.mask)
        capture_info = dict(cap.info)
    else:
        style = "phone" if rng.random() < PHONE_SHARE else "scan"
        bent = 0.0
        if style == "phone" and category == "td3_open" and rng.random() < BEND_SHARE:
            bent = float(rng.uniform(0.004, 0.015))
        cap = capture_document(doc.image, rng, style=style, mask=doc.mask, thumb_p=THUMB_SHARE,
                               bend_amplitude=bent, fill_range=(0.75, 0.97) if category == "td1_both" else None)
        capture_info = dict(cap.info)
        capture_info["bend"] = round(bent, 4)
    if "back_box" in doc.extras:
        capture_info["sheet_corners"] = cap.corners
        capture_info["back_corners"] = _corners(cap.project(_box_points(doc.extras["back_box"])))
    elif doc.page_box != (0, 0, doc.image.shape[1], doc.image.shape[0]):
        capture_info["booklet_corners"] = cap.corners  # the open booklet, or the visa page around a sticker
    if category == "doc_crop":
        variant = kind
    else:
        variant = (doc.extras.get("booklet") or doc.extras.get("layout")
                   or ("mrz_on_front" if doc.extras.get("mrz_on_front") else None))
    label.update({
        "side": doc.side, "kind": doc.kind,
        "fields": dict(doc.fields), "mrz": list(doc.mrz) if doc.mrz else None, "mrz_type": doc.mrz_type,
        "corners": _corners(cap.project(_box_points(doc.page_box))), "identity": doc.identity,
        "variant": variant,
        "mrz_corners": _corners(cap.project(_box_points(doc.mrz_box))) if doc.mrz_box else None,
        "portrait_corners": _corners(cap.project(_box_points(doc.portrait_box))) if doc.portrait_box else None,
        "capture": capture_info,
    })
    if doc.extras.get("value_boxes") and doc.page_box[:2] == (0, 0):
        # the printed values' boxes in the capture (each a TL, TR, BR, BL quad), for the printed-field recogniser
        label["value_boxes"] = [{"field": key, "text": text, "corners": _corners(cap.project(_box_points(box)))}
                                for key, text, *box in doc.extras["value_boxes"]]
    return Sample(cap.image, label)
