"""One labelled sample = a pure function of (seed, index, category)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from docauth.synth import photos
from docauth.synth.capture import capture_document
from docauth.synth.documents import render_document
from docauth.synth.nondocs import NONDOC_RENDERERS

DOCUMENT_CATEGORIES = ("td1_front", "td1_back", "td3_open")
NON_DOCUMENT_CATEGORIES = ("selfie", "scenery", "letter", "screenshot", "blank", "card")
CATEGORIES = DOCUMENT_CATEGORIES + NON_DOCUMENT_CATEGORIES
# Opt-in categories: never drawn by the default mix, only when asked for by name.
# td1_both: front and back of one card on one sheet (photocopy / specimen style), side "both".
EXTRA_CATEGORIES = ("td1_both",)
EXTRA_WEIGHTS = {"td1_both": 1 / 6}

# The default mix: half documents (equal thirds), half things people upload by mistake.
MIX = {
    "td1_front": 1 / 6, "td1_back": 1 / 6, "td3_open": 1 / 6,
    "selfie": 0.12, "scenery": 0.10, "letter": 0.12, "screenshot": 0.07, "blank": 0.04, "card": 0.05,
}
SIDE = {"td1_front": "front", "td1_back": "back", "td3_open": "open", "td1_both": "both"}
KIND = {"td1_front": "td1_card", "td1_back": "td1_card", "td3_open": "td3_passport", "td1_both": "td1_card"}
PHONE_SHARE = 0.7  # documents: phone photos vs flatbed scans
THUMB_SHARE = 0.15  # phone photos where a thumb holds the document
BEND_SHARE = 0.4  # phone photos of passports whose page bulges
REAL_PHOTO_SHARE = 0.08  # documents carrying the real face photo instead of a drawing


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
    weights_by_name = {**MIX, **EXTRA_WEIGHTS}
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
    elif category not in CATEGORIES + EXTRA_CATEGORIES:
        raise ValueError(f"unknown category {category!r}; expected one of {', '.join(CATEGORIES + EXTRA_CATEGORIES)}")
    # the stream key of a category never changes (extras come after), so adding one keeps old samples
    rng = np.random.default_rng([seed, index, 1 + (CATEGORIES + EXTRA_CATEGORIES).index(category)])
    is_document = category in DOCUMENT_CATEGORIES or category in EXTRA_CATEGORIES
    label = {
        "file": sample_file_name(seed, index), "seed": int(seed), "index": int(index), "category": category,
        "is_document": is_document, "side": SIDE.get(category), "kind": KIND.get(category),
        "fields": None, "mrz": None, "mrz_type": None, "corners": None, "identity": None, "variant": None,
        "mrz_corners": None, "portrait_corners": None, "capture": None,
    }
    if is_document:
        portrait = identity = None
        if category != "td1_back" and rng.random() < REAL_PHOTO_SHARE:
            portrait = photos.face_view(rng, 450, 350)
            identity = {"identity_id": photos.REAL_FACE_IDENTITY} if portrait is not None else None
        doc = render_document(category, rng, identity=identity, portrait=portrait)
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
            capture_info["booklet_corners"] = cap.corners
        label.update({
            "fields": dict(doc.fields), "mrz": list(doc.mrz) if doc.mrz else None, "mrz_type": doc.mrz_type,
            "corners": _corners(cap.project(_box_points(doc.page_box))), "identity": doc.identity,
            "variant": doc.extras.get("booklet") or doc.extras.get("layout")
            or ("mrz_on_front" if doc.extras.get("mrz_on_front") else None),
            "mrz_corners": _corners(cap.project(_box_points(doc.mrz_box))) if doc.mrz_box else None,
            "portrait_corners": _corners(cap.project(_box_points(doc.portrait_box))) if doc.portrait_box else None,
            "capture": capture_info,
        })
        return Sample(cap.image, label)
    image, extra = NONDOC_RENDERERS[category](rng)
    label.update({"identity": extra.get("identity"), "variant": extra.get("variant"), "capture": extra["capture"]})
    return Sample(image, label)
