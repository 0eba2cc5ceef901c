"""Calibrate the 1:1 face threshold from data (``docauth eval faces``).

Samples:

* ``real``: every single-person photo in ``<shared>/faces`` (``labels.csv``;
  rows labelled ``multiple`` are not used for pairs), plus scikit-image's
  bundled ``astronaut`` photo;
* ``document``: each of those photos cut to an ID-style portrait, printed on a
  synthetic document (``docauth.synth.render_document(kind, rng, portrait=...)``),
  photographed or scanned (``docauth.synth.capture``), rectified from the
  capture's corners as the OCR stage does, and the largest face found again on
  the rectified document.

Pairs: real photo vs real photo, and document portrait vs every real photo
(the enrolment case: a document against the photo the bank holds). Genuine
pairs are the same person, impostor pairs different persons. The threshold is
where a Gaussian fitted to the impostor distances puts the false-accept rate at
:data:`TARGET_FAR` per comparison, never above the smallest impostor distance
seen, rounded down to 0.01 (see :func:`choose_threshold`).
"""

from __future__ import annotations

import csv
import itertools
import time
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist

import cv2
import numpy as np
import skimage.data

from docauth.imageio import load_image
from docauth.matching.face import encode_face, face_distance

DOCUMENT_KINDS = ("td1_front", "td3_open")
CAPTURE_STYLES = ("phone", "scan")


@dataclass(frozen=True)
class FaceSample:
    person: str
    name: str
    kind: str  # "real" | "document"
    encoding: np.ndarray
    source: str | None = None  # for documents: the photo printed on it
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class PairDistance:
    kind: str  # "real_vs_real" | "document_vs_source" | "document_vs_other_photo" | "document_vs_other_person"
    genuine: bool
    distance: float
    a: str
    b: str


def load_labelled_photos(faces_dir: Path) -> list[tuple[str, str, np.ndarray]]:
    """``(person, relative path, RGB image)`` for every single-person row of labels.csv."""
    photos = []
    with open(faces_dir / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["person"] == "multiple":
                continue
            photos.append((row["person"], row["file"], load_image(faces_dir / row["file"])))
    return photos


def bundled_photos() -> list[tuple[str, str, np.ndarray]]:
    return [("astronaut", "skimage:astronaut", np.ascontiguousarray(skimage.data.astronaut()[..., :3]))]


def id_portrait(image: np.ndarray, box) -> np.ndarray:
    """Cut an ID-style head-and-shoulders portrait (35x45 mm proportions) around a face box."""
    top, right, bottom, left = box
    side = max(bottom - top, right - left)
    cx = (left + right) / 2
    width, height = 1.9 * side, 1.9 * side * 45 / 35
    y0 = top - 0.55 * side
    x0 = cx - width / 2
    pad = int(max(0, -x0, -y0, x0 + width - image.shape[1], y0 + height - image.shape[0])) + 1
    padded = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    x0i, y0i = int(round(x0)) + pad, int(round(y0)) + pad
    return np.ascontiguousarray(padded[y0i : y0i + int(height), x0i : x0i + int(width)])


def rectify(image: np.ndarray, corners, size: tuple[int, int]) -> np.ndarray:
    """Warp the quadrilateral ``corners`` (TL, TR, BR, BL) to an upright ``size`` (w, h) image."""
    w, h = size
    src = np.float32(corners)
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    return cv2.warpPerspective(image, cv2.getPerspectiveTransform(src, dst), (w, h), flags=cv2.INTER_LINEAR)


@dataclass
class CapturedDocument:
    kind: str
    style: str
    document: object  # the synthetic document as rendered (its image, its zone's box and type)
    captured: np.ndarray  # the photo or scan of it
    flat: np.ndarray  # that capture rectified from its true corners
    width: int  # the rectified document's width in pixels


def captured_documents(portrait: np.ndarray, seed: int, p_index: int):
    """Each document kind in each capture style carrying ``portrait``: rendered, captured, and rectified from
    the capture's corners at the document's size in the capture (deterministic by seed and photo index)."""
    from docauth.synth.capture import capture
    from docauth.synth.documents import render_document

    for k_index, (kind, style) in enumerate(itertools.product(DOCUMENT_KINDS, CAPTURE_STYLES)):
        rng = np.random.default_rng([seed, p_index, k_index])
        doc = render_document(kind, rng, portrait=portrait)
        captured, corners = capture(doc.image, rng, style=style)
        corners = np.asarray(corners, dtype=np.float64)
        aspect = doc.image.shape[1] / doc.image.shape[0]
        width = int(round(np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[2] - corners[3])) / 2)
        width = max(64, width)
        flat = rectify(captured, corners, (width, max(32, int(round(width / aspect)))))
        yield CapturedDocument(kind, style, doc, captured, flat, width)


def document_samples(photos, encodings: dict[str, object], seed: int) -> tuple[list[FaceSample], list[dict]]:
    """Print each photo's portrait on synthetic documents, capture, rectify, find the face again."""
    samples, failures = [], []
    for p_index, (person, name, image) in enumerate(photos):
        face = encodings.get(name)
        if face is None:
            continue
        for shot in captured_documents(id_portrait(image, face.box), seed, p_index):
            kind, style, flat, width = shot.kind, shot.style, shot.flat, shot.width
            outcome = encode_face(flat, allow_multiple=True)
            tag = f"{name}|{kind}|{style}"
            if outcome.face is None:
                failures.append({"sample": tag, "reason": outcome.status, "document_width_px": width})
                continue
            top, right, bottom, left = outcome.face.box
            samples.append(
                FaceSample(
                    person, tag, "document", outcome.face.encoding, source=name,
                    details={"face_px": int(max(bottom - top, right - left)), "document_width_px": width},
                )  # fmt: skip
            )
    return samples, failures


def pair_distances(real: list[FaceSample], documents: list[FaceSample]) -> list[PairDistance]:
    pairs = []
    for a, b in itertools.combinations(real, 2):
        pairs.append(PairDistance("real_vs_real", a.person == b.person, face_distance(a.encoding, b.encoding), a.name, b.name))
    for d in documents:
        for r in real:
            if r.name == d.source:
                kind = "document_vs_source"
            elif r.person == d.person:
                kind = "document_vs_other_photo"
            else:
                kind = "document_vs_other_person"
            pairs.append(PairDistance(kind, r.person == d.person, face_distance(d.encoding, r.encoding), d.name, r.name))
    return pairs


#: False-accept rate per 1:1 comparison the threshold aims at, on the Gaussian
#: fitted to impostor distances: the few identities in the data cannot show a
#: 1-in-10,000 event, the fitted tail can estimate it.
TARGET_FAR = 1e-4


@dataclass(frozen=True)
class ImpostorFit:
    mean: float
    std: float

    def far(self, threshold: float) -> float:
        """Fitted probability that two different persons are at most ``threshold`` apart."""
        return NormalDist(self.mean, self.std).cdf(threshold)

    def threshold_for(self, far: float) -> float:
        return NormalDist(self.mean, self.std).inv_cdf(far)


def fit_impostors(impostor: np.ndarray) -> ImpostorFit:
    return ImpostorFit(float(np.mean(impostor)), float(np.std(impostor, ddof=1)))


def choose_threshold(genuine: np.ndarray, impostor: np.ndarray, target_far: float = TARGET_FAR) -> float:
    """The fitted ``target_far`` point, never above the smallest impostor distance, rounded down to 0.01.

    With fewer than 30 impostor pairs (no fit possible): the middle of the gap
    between genuine and impostor distances, or the point with fewest errors
    (false accepts counted first) when they overlap.
    """
    genuine, impostor = np.sort(genuine), np.sort(impostor)
    if impostor.size >= 30:
        t = fit_impostors(impostor).threshold_for(target_far)
        t = float(np.floor(min(t, impostor[0]) * 100) / 100)
        return round(t - 0.01, 2) if t >= impostor[0] else t
    if genuine.size and impostor.size and genuine[-1] < impostor[0]:
        middle = (genuine[-1] + impostor[0]) / 2
        for digits in (2, 3, 4):
            t = round(middle, digits)
            if genuine[-1] <= t < impostor[0]:
                return float(t)
        return float(middle)
    candidates = np.unique(np.concatenate([genuine, impostor]))
    best, best_key = 0.6, None
    for t in candidates:
        fa = int(np.sum(impostor <= t))
        fr = int(np.sum(genuine > t))
        key = (fa + fr, fa)
        if best_key is None or key < best_key:
            best, best_key = float(t), key
    return round(best, 4)


def _summary(values: np.ndarray) -> dict:
    if values.size == 0:
        return {"n": 0}
    q = np.percentile(values, [0, 5, 50, 95, 100])
    return {"n": int(values.size), "min": round(float(q[0]), 4), "p5": round(float(q[1]), 4), "median": round(float(q[2]), 4),
            "p95": round(float(q[3]), 4), "max": round(float(q[4]), 4)}  # fmt: skip


@dataclass
class CalibrationReport:
    threshold: float
    pairs: list[PairDistance]
    n_real: int
    n_documents: int
    failures: list[dict]
    seconds: float
    skipped: list[str] = field(default_factory=list)

    def errors_at(self, threshold: float, kinds=None) -> dict:
        sel = [p for p in self.pairs if kinds is None or p.kind in kinds]
        gen = np.array([p.distance for p in sel if p.genuine])
        imp = np.array([p.distance for p in sel if not p.genuine])
        fr = int(np.sum(gen > threshold))
        fa = int(np.sum(imp <= threshold))
        return {
            "genuine_pairs": int(gen.size),
            "impostor_pairs": int(imp.size),
            "false_rejects": fr,
            "false_accepts": fa,
            "frr": round(fr / gen.size, 4) if gen.size else None,
            "far": round(fa / imp.size, 4) if imp.size else None,
        }

    def impostor_fit(self) -> dict | None:
        impostor = np.array([p.distance for p in self.pairs if not p.genuine])
        if impostor.size < 30:
            return None
        fit = fit_impostors(impostor)
        return {
            "mean": round(fit.mean, 4),
            "std": round(fit.std, 4),
            "target_far": TARGET_FAR,
            "threshold_at_target_far": round(fit.threshold_for(TARGET_FAR), 4),
            "fitted_far_at_threshold": float(f"{fit.far(self.threshold):.2e}"),
            "fitted_far_at_0.6": float(f"{fit.far(0.6):.2e}"),
        }

    def distributions(self) -> dict:
        out = {}
        for kind in sorted({p.kind for p in self.pairs}):
            for genuine in (True, False):
                vals = np.array([p.distance for p in self.pairs if p.kind == kind and p.genuine == genuine])
                if vals.size:
                    out[f"{kind}/{'genuine' if genuine else 'impostor'}"] = _summary(vals)
        return out

    def export(self) -> dict:
        kinds = sorted({p.kind for p in self.pairs})
        return {
            "threshold": self.threshold,
            "n_real_photos": self.n_real,
            "n_document_portraits": self.n_documents,
            "document_faces_not_found": self.failures,
            "errors": {"all": self.errors_at(self.threshold), **{k: self.errors_at(self.threshold, {k}) for k in kinds}},
            "errors_at_library_default_0.6": self.errors_at(0.6),
            "impostor_fit": self.impostor_fit(),
            "distributions": self.distributions(),
            "closest_impostors": [
                {"kind": p.kind, "distance": round(p.distance, 4), "a": p.a, "b": p.b}
                for p in sorted((p for p in self.pairs if not p.genuine), key=lambda p: p.distance)[:5]
            ],
            "farthest_genuine": [
                {"kind": p.kind, "distance": round(p.distance, 4), "a": p.a, "b": p.b}
                for p in sorted((p for p in self.pairs if p.genuine), key=lambda p: -p.distance)[:5]
            ],
            "skipped": self.skipped,
            "seconds": round(self.seconds, 1),
        }


DOCS_BEGIN, DOCS_END = "<!-- calibration:begin -->", "<!-- calibration:end -->"


def report_markdown(report: "CalibrationReport", configured: float, when: str, machine: str) -> str:
    data = report.export()
    fit = data["impostor_fit"]
    lines = [
        DOCS_BEGIN,
        f"Generated by `docauth eval faces` on {when} ({machine}); {data['seconds']} s. "
        f"{data['n_real_photos']} real photos, {data['n_document_portraits']} document portraits "
        f"({len(data['document_faces_not_found'])} documents where the face was not found again).",
        "",
        "Distance distributions (Euclidean distance between 128-d encodings):",
        "",
        "| pairs | n | min | p5 | median | p95 | max |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, d in data["distributions"].items():
        lines.append(f"| {name} | {d['n']} | {d['min']:.3f} | {d['p5']:.3f} | {d['median']:.3f} | {d['p95']:.3f} | {d['max']:.3f} |")
    lines += [""]
    if fit:
        lines += [
            f"Impostor distances fitted by a Gaussian: mean {fit['mean']:.3f}, sd {fit['std']:.3f}; "
            f"the fitted false-accept rate {fit['target_far']:g} per comparison lies at {fit['threshold_at_target_far']:.3f}.",
            "",
        ]
    lines += [
        f"**Chosen threshold: {data['threshold']}** (configured: `DEFAULT_FACE_THRESHOLD = {configured}`).",
        "",
        "| pairs | threshold | genuine | impostor | false rejects | FRR | false accepts | FAR |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, threshold, kinds in [("all", configured, None)] + [
        (k, configured, {k}) for k in sorted({p.kind for p in report.pairs})
    ] + [("all, library default", 0.6, None)]:
        e = report.errors_at(threshold, kinds)
        frr = "-" if e["frr"] is None else f"{100 * e['frr']:.1f} %"
        far = "-" if e["far"] is None else f"{100 * e['far']:.1f} %"
        lines.append(f"| {label} | {threshold} | {e['genuine_pairs']} | {e['impostor_pairs']} | {e['false_rejects']} | {frr} | {e['false_accepts']} | {far} |")
    if fit:
        lines += ["", f"Fitted FAR per comparison: {fit['fitted_far_at_threshold']:.1e} at {data['threshold']}, "
                      f"{fit['fitted_far_at_0.6']:.1e} at 0.6."]
    lines += ["", "Closest impostor pairs:", ""]
    lines += [f"- {p['distance']:.3f} {p['kind']}: `{p['a']}` vs `{p['b']}`" for p in data["closest_impostors"]]
    lines += ["", "Farthest genuine pairs:", ""]
    lines += [f"- {p['distance']:.3f} {p['kind']}: `{p['a']}` vs `{p['b']}`" for p in data["farthest_genuine"]]
    if data["document_faces_not_found"]:
        lines += ["", "Documents where the face was not found again: "
                  + ", ".join(f"`{f['sample']}`" for f in data["document_faces_not_found"])]
    lines.append(DOCS_END)
    return "\n".join(lines)


def write_docs_section(section: str, path: Path) -> None:
    text = path.read_text() if path.exists() else ""
    if DOCS_BEGIN in text and DOCS_END in text:
        head, rest = text.split(DOCS_BEGIN, 1)
        _, tail = rest.split(DOCS_END, 1)
        text = head + section + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text)


def calibrate(faces_dir: Path | None, *, seed: int = 20261122, documents: bool = True) -> CalibrationReport:
    start = time.perf_counter()
    skipped: list[str] = []
    photos = bundled_photos()
    if faces_dir is not None and (faces_dir / "labels.csv").exists():
        photos = load_labelled_photos(faces_dir) + photos
    else:
        skipped.append("shared faces folder absent: only the bundled astronaut photo")
    encodings = {}
    real: list[FaceSample] = []
    for person, name, image in photos:
        outcome = encode_face(image, allow_multiple=True)
        if outcome.face is None:
            skipped.append(f"{name}: no face")
            continue
        encodings[name] = outcome.face
        real.append(FaceSample(person, name, "real", outcome.face.encoding))
    docs: list[FaceSample] = []
    failures: list[dict] = []
    if documents:
        try:
            import docauth.synth  # noqa: F401  (the generator may be absent in a trimmed install)
        except ImportError as exc:
            skipped.append(f"synthetic documents skipped: {exc}")
        else:
            docs, failures = document_samples(photos, encodings, seed)
    pairs = pair_distances(real, docs)
    genuine = np.array([p.distance for p in pairs if p.genuine])
    impostor = np.array([p.distance for p in pairs if not p.genuine])
    threshold = choose_threshold(genuine, impostor)
    return CalibrationReport(threshold, pairs, len(real), len(docs), failures, time.perf_counter() - start, skipped)
