"""The OCR stage: locate + rectify, read the MRZ, read the printed fields, cross-check.

    reader = DocumentReader.load()          # once per process (loads the glyph model)
    result = reader(rgb_image)              # OCRResult
    result.export()                         # JSON-safe dict

Stage object in the doctr style: ``preprocess`` (locate, rectify, orient),
``__call__``, ``postprocess`` (fields + consistency).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from docauth.errors import InvalidImage, ModelError
from docauth.ocr.mrz import MRZResult, parse_mrz
from docauth.ocr.mrzread import LINE_LENGTHS, MRZBlock, cut_cells, find_mrz_candidates

FIELD_NAMES = ("surname", "given_names", "nationality", "sex", "date_of_birth", "document_number", "expiry_date")
GLYPH_MODEL = "mrz_glyphs"
TOP_K = 3


@dataclass
class DocumentView:
    corners: list  # upright document's TL, TR, BR, BL in input image coordinates
    rotation: int  # CCW quarter-turn the document had in the input
    found: bool
    rectified: np.ndarray | None = field(default=None, repr=False)  # upright RGB, not exported

    def export(self) -> dict:
        return {"corners": [[float(x), float(y)] for x, y in self.corners], "rotation": int(self.rotation),
                "found": bool(self.found)}


@dataclass
class OCRResult:
    document: DocumentView
    mrz: MRZResult | None
    fields: dict
    consistency: dict
    timings_ms: dict
    viz: dict = field(default_factory=dict)  # raw printed-field reads (not exported separately)

    def export(self) -> dict:
        return {
            "document": self.document.export(),
            "mrz": None if self.mrz is None else self.mrz.export(),
            "fields": dict(self.fields),
            "consistency": {k: dict(v) for k, v in self.consistency.items()},
            "timings_ms": {k: round(float(v), 1) for k, v in self.timings_ms.items()},
        }


class MRZReader:
    """Detect the MRZ block in a grayscale image and read it with the glyph model."""

    def __init__(self, model):
        self.model = model
        self.labels = list(model.labels)

    def read(self, gray: np.ndarray, blocks: list[MRZBlock] | None = None
             ) -> tuple[MRZResult | None, MRZBlock | None]:
        """Read the given blocks, or the MRZ-like blocks found in ``gray``, until one is valid."""
        blocks = find_mrz_candidates(gray, limit=2) if blocks is None else blocks
        best = None
        for b in blocks:
            result = self._read_block(gray, b)
            key = (result.valid, self.confidence(result))
            if best is None or key > best[0]:
                best = (key, result, b)
            if result.valid:
                break
        if best is None:
            return None, None
        return best[1], best[2]

    def _read_block(self, gray: np.ndarray, block: MRZBlock) -> MRZResult:
        """Read a block; for two lines the likelier length (44 or 36, from the glyph pitch) goes first."""
        best = None
        for n in _lengths_by_pitch(block):
            result = self._read_grid(gray, block, n)
            key = (result.valid, result.score, self.confidence(result))
            if best is None or key > best[0]:
                best = (key, result, n)
            if result.valid:
                break
        result, n = best[1], best[2]
        if not result.valid:
            shifted = self._read_shifted(gray, block, n)
            if shifted is not None and shifted.valid:  # a slipped grid must prove itself with the check digits
                result = shifted
        return result

    def _read_grid(self, gray: np.ndarray, block: MRZBlock, n: int) -> MRZResult:
        cells = np.concatenate([cut_cells(gray, ln, n, block.scale) for ln in block.lines])
        probs = self.model.predict(cells[..., None])
        lines, alts, logp = [], [], 0.0
        for k in range(len(block.lines)):
            p = probs[k * n: (k + 1) * n]
            top = np.argsort(-p, axis=1)[:, :TOP_K]
            lines.append("".join(self.labels[i] for i in top[:, 0]))
            alts.append([[(self.labels[j], float(p[r, j])) for j in top[r]] for r in range(n)])
            logp += float(np.log(np.maximum(p[np.arange(n), top[:, 0]], 1e-9)).sum())
        result = parse_mrz(lines, alternatives=alts)
        result.warnings.append(f"mean glyph confidence {np.exp(logp / (n * len(block.lines))):.3f}")
        return result

    def _read_shifted(self, gray: np.ndarray, block: MRZBlock, n: int) -> MRZResult | None:
        """Re-read each line on grids slipped by one glyph left/right; keep each line's most confident grid."""
        shifts = (-1.0, 0.0, 1.0)
        cells = [cut_cells(gray, ln, n, block.scale, shift=sh) for ln in block.lines for sh in shifts]
        probs = self.model.predict(np.concatenate(cells)[..., None])
        lines, alts, total = [], [], 0.0
        for k in range(len(block.lines)):
            best = None
            for j in range(len(shifts)):
                p = probs[(k * len(shifts) + j) * n: (k * len(shifts) + j + 1) * n]
                top = np.argsort(-p, axis=1)[:, :TOP_K]
                lp = float(np.log(np.maximum(p[np.arange(n), top[:, 0]], 1e-9)).mean())
                if best is None or lp > best[0]:
                    best = (lp, p, top)
            lp, p, top = best
            total += lp
            lines.append("".join(self.labels[i] for i in top[:, 0]))
            alts.append([[(self.labels[j], float(p[r, j])) for j in top[r]] for r in range(n)])
        result = parse_mrz(lines, alternatives=alts)
        result.warnings.append(f"mean glyph confidence {np.exp(total / len(block.lines)):.3f}")
        return result

    def confidence(self, result: MRZResult | None) -> float:
        if result is None:
            return 0.0
        for w in result.warnings:
            if w.startswith("mean glyph confidence"):
                return float(w.rsplit(" ", 1)[1])
        return 0.0


class DocumentReader:
    """Locate, rectify, read MRZ + printed fields, cross-check."""

    def __init__(self, mrz_reader: MRZReader, *, read_viz: bool = True):
        self.mrz_reader = mrz_reader
        self.read_viz = read_viz

    @classmethod
    def load(cls, models_dir: str | Path | None = None, backend: str = "auto", mode: str = "realtime",
             *, read_viz: bool = True) -> "DocumentReader":
        from docauth.runtime import load_model

        os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # Tesseract: faster single-threaded on small crops
        model = load_model(GLYPH_MODEL, models_dir=models_dir, backend=backend, mode=mode)
        if model.input_shape[2] != 1 or len(model.labels) != 37:
            raise ModelError(f"{GLYPH_MODEL}: expected a 37-class single-channel glyph model")
        return cls(MRZReader(model), read_viz=read_viz)

    # -- stages ------------------------------------------------------------
    def preprocess(self, image: np.ndarray, timings: dict | None = None) -> tuple[DocumentView, np.ndarray, MRZResult | None]:
        """Locate, warp and orient; reads the MRZ on the way (orientation comes from it)."""
        import cv2

        from docauth.ocr.locate import document_corners, locate_document, rotate_quarter, warp

        timings = {} if timings is None else timings
        image = _as_rgb(image)
        t = time.perf_counter()
        located = locate_document(image)
        rect, _m = warp(image, located.corners)
        timings["locate_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        gray = cv2.cvtColor(rect, cv2.COLOR_RGB2GRAY)
        rotation, mrz, upright_gray = self._orient(gray)
        timings["mrz_ms"] = (time.perf_counter() - t) * 1000
        if (mrz is None or not mrz.valid) and located.found:
            # The quad may be wrong (a photo frame, a page edge): look at the whole image too.
            t = time.perf_counter()
            full_gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
            rot2, mrz2, _g = self._orient(full_gray)
            if mrz2 is None:
                mrz2 = self._read_tilted(full_gray)
            if mrz2 is not None and _better(mrz2, mrz, self.mrz_reader):
                mrz2.zone_top = None  # found outside the rectified view: its position says nothing there
                mrz = mrz2
            timings["mrz_ms"] += (time.perf_counter() - t) * 1000
        if mrz is None and self.read_viz:
            t = time.perf_counter()
            rotation = _orient_by_text(gray)
            timings["orient_ms"] = (time.perf_counter() - t) * 1000
        upright = rotate_quarter(rect, rotation)
        view = DocumentView(corners=document_corners(located.corners, rotation), rotation=rotation,
                            found=located.found, rectified=upright)
        return view, upright, mrz

    def _orient(self, gray: np.ndarray) -> tuple[int, MRZResult | None, np.ndarray]:
        """Rotation (CCW quarter-turn of the document) and the MRZ.

        MRZ lines are horizontal only at the right quarter-turn or its opposite;
        upside down the glyphs are nonsense to the classifier, so of the two
        reads the valid / more confident one wins.
        """
        from docauth.ocr.locate import rotate_quarter

        h, w = gray.shape
        for rotation in ((0, 90) if w >= h else (90, 0)):
            g = rotate_quarter(gray, rotation)
            blocks = find_mrz_candidates(g, limit=2)
            if not blocks:
                continue
            result, block = self.mrz_reader.read(g, blocks)
            if result is not None:
                result.zone_top = block.box[1] / g.shape[0]
            if result is not None and result.valid:
                return rotation, result, g
            other = (rotation + 180) % 360
            g2 = rotate_quarter(gray, other)
            r2, b2 = self.mrz_reader.read(g2)
            if r2 is not None:
                r2.zone_top = b2.box[1] / g2.shape[0]
            key1 = (bool(result and result.valid), self.mrz_reader.confidence(result))
            key2 = (bool(r2 and r2.valid), self.mrz_reader.confidence(r2))
            if r2 is not None and key2 > key1:
                return other, r2, g2
            return rotation, result, g
        return 0, None, gray

    def _read_tilted(self, gray: np.ndarray) -> MRZResult | None:
        """A photo tilted beyond the finder's tolerance, whose outline was not found: level it, read again."""
        from docauth.ocr.locate import rotate_quarter
        from docauth.ocr.mrzread import mrz_skew_degrees, rotate_degrees

        for base in (0, 90):
            g = rotate_quarter(gray, base)
            angle = mrz_skew_degrees(g)
            if angle is None:
                continue
            _rot, result, _g = self._orient(rotate_degrees(g, angle))
            if result is not None:
                return result
        return None

    def __call__(self, image: np.ndarray) -> OCRResult:
        timings: dict = {}
        t0 = time.perf_counter()
        view, upright, mrz = self.preprocess(image, timings)
        viz: dict = {}
        if self.read_viz:
            from docauth.ocr.viz import read_printed_fields

            t = time.perf_counter()
            viz = read_printed_fields(upright, mrz_top=_mrz_top(mrz))
            timings["viz_ms"] = (time.perf_counter() - t) * 1000
        result = self.postprocess(view, mrz, viz, timings)
        result.timings_ms["total_ms"] = (time.perf_counter() - t0) * 1000
        return result

    def postprocess(self, view: DocumentView, mrz: MRZResult | None, viz: dict, timings: dict) -> OCRResult:
        from docauth.ocr.viz import compare_field

        mrz_fields = mrz.fields if mrz is not None and mrz.type else {}
        fields: dict = {}
        consistency: dict = {}
        for name in FIELD_NAMES:
            v, m = viz.get(name), mrz_fields.get(name)
            agree = compare_field(name, v, m) if (v is not None and m not in (None, "")) else None
            consistency[name] = {"viz": v, "mrz": m, "agree": agree}
            # A check-digit-verified MRZ is the most trustworthy source; names beyond the MRZ width are
            # truncated there, so a VIZ name that starts with the MRZ one is preferred.
            # A field under its own passing check digit is verified even when the MRZ as a whole is not.
            own_check = (mrz is not None and mrz.structure_ok and mrz.checks.get(name, {}).get("ok", False)
                         and mrz.checks.get("composite", {"ok": True})["ok"])
            if mrz is not None and (mrz.valid or own_check) and m not in (None, ""):
                fields[name] = m
                if name in ("surname", "given_names") and v and agree:
                    fields[name] = v if len(v) > len(m) else m
            elif v not in (None, ""):
                fields[name] = v
            elif m not in (None, ""):
                fields[name] = m
            else:
                fields[name] = None
        return OCRResult(document=view, mrz=mrz, fields=fields, consistency=consistency, timings_ms=timings, viz=viz)


def _lengths_by_pitch(block: MRZBlock) -> tuple[int, ...]:
    """Line lengths to try, likeliest first: the spacing of single glyphs gives the pitch."""
    lengths = LINE_LENGTHS[len(block.lines)]
    if len(lengths) == 1:
        return lengths
    pitches = []
    for ln in block.lines:
        b = ln.boxes[ln.boxes[:, 2] <= 1.2 * ln.height]
        cx = np.sort(b[:, 0] + b[:, 2] / 2)
        d = np.diff(cx)
        d = d[(d > 0.5 * ln.height) & (d < 1.6 * ln.height)]
        if len(d):
            pitches.append(float(np.median(d)))
    if not pitches:
        return lengths
    ln = block.lines[0]
    estimate = (ln.x1 - ln.x0) / float(np.median(pitches))
    return tuple(sorted(lengths, key=lambda n: abs(n - estimate)))


def _better(a: MRZResult, b: MRZResult | None, mrz_reader: MRZReader) -> bool:
    if b is None:
        return True
    return (a.valid, mrz_reader.confidence(a)) > (b.valid, mrz_reader.confidence(b))


def _orient_by_text(gray: np.ndarray) -> int:
    """Quarter-turn of a document without an MRZ.

    Text lines run horizontally when upright (component chains decide 0/180 vs
    90/270). Printed fields put a small label *above* a larger value, left
    aligned: upside down the small text sits below and right-aligned. That vote
    decides upright from upside down; Tesseract's orientation detector breaks ties.
    """
    import cv2

    from docauth.ocr.locate import rotate_quarter
    from docauth.ocr.mrzread import find_text_lines
    from docauth.ocr.viz import text_boxes

    s = min(1.0, 800 / max(gray.shape))
    small = cv2.resize(gray, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else gray
    chars = {r: sum(ln.count for ln in find_text_lines(rotate_quarter(small, r))) for r in (0, 90)}
    base = 0 if chars[0] >= chars[90] else 90
    g = rotate_quarter(small, base)
    up, down = _label_value_votes(text_boxes(g))
    if down >= up + 2:
        return (base + 180) % 360
    if up >= down + 1:
        return base
    try:
        import pytesseract

        osd = pytesseract.image_to_osd(g, config="--psm 0 -c min_characters_to_try=20",
                                       output_type=pytesseract.Output.DICT)
        if int(osd.get("rotate", 0)) == 180 and float(osd.get("orientation_conf", 0)) > 1.0:
            return (base + 180) % 360
    except (pytesseract.TesseractError, OSError, RuntimeError, ValueError):
        pass  # too little text to decide: keep the horizontal reading
    return base


def _label_value_votes(boxes) -> tuple[int, int]:
    """(upright, upside-down) votes from small-label-over-large-value pairs."""
    if len(boxes) < 4:
        return 0, 0
    hs = np.array([b[3] - b[1] for b in boxes], float)
    ref = float(np.percentile(hs, 70))
    small = [b for b in boxes if b[3] - b[1] < 0.75 * ref]
    large = [b for b in boxes if b[3] - b[1] >= 0.85 * ref]
    up = down = 0
    for sx0, sy0, sx1, sy1 in small:
        sh = sy1 - sy0
        for lx0, ly0, lx1, ly1 in large:
            if abs(lx0 - sx0) < 1.5 * sh and 0 <= ly0 - sy1 < 1.5 * sh:
                up += 1
                break
        for lx0, ly0, lx1, ly1 in large:
            if abs(lx1 - sx1) < 1.5 * sh and 0 <= sy0 - ly1 < 1.5 * sh:
                down += 1
                break
    return up, down


def _mrz_top(mrz: MRZResult | None) -> float | None:
    """Fraction of the upright document above the MRZ (printed fields live there)."""
    top = getattr(mrz, "zone_top", None) if mrz is not None else None
    return top if top is not None and top > 0.3 else None


def _as_rgb(image) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise InvalidImage("the OCR stage expects an RGB uint8 image array")
    if image.ndim == 2:
        return np.stack([image] * 3, -1)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise InvalidImage(f"the OCR stage expects an (H, W, 3) image, not shape {image.shape}")
    if min(image.shape[:2]) < 16:
        raise InvalidImage(f"image is too small to read ({image.shape[1]}x{image.shape[0]})")
    return np.ascontiguousarray(image[..., :3])
