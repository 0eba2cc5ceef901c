"""Evaluation of the two classifiers: synthetic test set and the real material in ``../shared/data``.

Metrics are plain numpy (no scikit-learn): accuracy, per-class precision /
recall / support and the confusion matrix (rows = truth, columns = prediction).

>>> m = classification_metrics(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]), ["a", "b"])
>>> m["accuracy"], m["confusion_matrix"], m["per_class"]["b"]["precision"]
(0.75, [[1, 1], [0, 2]], 0.666667)
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from docauth.classifiers.preprocess import scale
from docauth.imageio import load_image
from docauth.training.classifiers.data import DOCUMENT_LABELS, SIDE_LABELS, synthetic_set


def classification_metrics(truth: np.ndarray, predicted: np.ndarray, labels: list[str]) -> dict:
    truth = np.asarray(truth, int)
    predicted = np.asarray(predicted, int)
    n = len(labels)
    cm = np.zeros((n, n), int)
    for t, p in zip(truth, predicted):
        cm[t, p] += 1
    per_class = {}
    for i, label in enumerate(labels):
        tp = cm[i, i]
        predicted_i = cm[:, i].sum()
        actual_i = cm[i, :].sum()
        per_class[label] = {
            "precision": round(float(tp / predicted_i), 6) if predicted_i else None,
            "recall": round(float(tp / actual_i), 6) if actual_i else None,
            "support": int(actual_i),
        }
    total = int(cm.sum())
    return {
        "count": total,
        "accuracy": round(float(np.trace(cm) / total), 6) if total else None,
        "per_class": per_class,
        "labels": list(labels),
        "confusion_matrix": cm.tolist(),
    }


def evaluate_arrays(clf, images_uint8: np.ndarray, is_document: np.ndarray, side: np.ndarray,
                    kind: np.ndarray | None = None, content_uint8: np.ndarray | None = None) -> dict:
    """Both models on preprocessed (cached) images; side is scored on the true documents.

    ``content_uint8``: the same images' content views (:mod:`docauth.classifiers.views`), for a classifier
    whose side model sees them.
    """
    doc_probs = clf.probabilities(clf.document_model, scale(images_uint8))
    doc_pred = (doc_probs[:, 1] >= clf.threshold).astype(int)
    result = {"document": classification_metrics(is_document, doc_pred, DOCUMENT_LABELS)}
    docs = np.flatnonzero((is_document == 1) & (side >= 0))
    side_pred = np.zeros(0, int)
    if docs.size:
        views = images_uint8[docs][:, None]
        if content_uint8 is not None and getattr(clf, "content_view", False):
            views = np.stack([images_uint8[docs], content_uint8[docs]], axis=1)
        side_probs = clf.side_probabilities(scale(views))
        side_pred = side_probs.argmax(1)
        result["side"] = classification_metrics(side[docs], side_pred, SIDE_LABELS)
        # End to end: a document is right only when accepted *and* given the right side.
        e2e = (doc_pred[docs] == 1) & (side_pred == side[docs])
        result["side"]["end_to_end_accuracy"] = round(float(e2e.mean()), 6)
    if kind is not None:
        errors: dict[str, int] = {}
        for i in np.flatnonzero(doc_pred != is_document):
            errors[str(kind[i])] = errors.get(str(kind[i]), 0) + 1
        for j, i in enumerate(docs):
            if side_pred[j] != side[i]:
                key = f"{kind[i]}:{SIDE_LABELS[side[i]]}->{SIDE_LABELS[side_pred[j]]}"
                errors[key] = errors.get(key, 0) + 1
        result["errors_by_kind"] = dict(sorted(errors.items(), key=lambda kv: -kv[1]))
    return result


def evaluate_synthetic(clf, *, seed: int, count: int, workers: int = 1, progress=None,
                       subset: str = "mix") -> dict:
    """The stage's answers on ``count`` generated samples of ``subset`` (see data.SUBSETS) from ``seed``."""
    data = synthetic_set(seed, count, workers=workers, progress=progress, subset=subset)
    content = None
    if getattr(clf, "content_view", False):
        content = synthetic_set(seed, count, workers=workers, progress=progress, view="content",
                                subset=subset).images
    result = evaluate_arrays(clf, data.images, data.is_document, data.side, data.kind, content)
    result["seed"] = seed
    if subset != "mix":
        result["subset"] = subset
    return result


def evaluate_real(clf, shared: Path) -> dict:
    """Specimens (all documents; side truth from truth.csv) and face photos (no documents)."""
    shared = Path(shared)
    out: dict = {"shared_data": str(shared)}
    spec_dir = shared / "mrz-specimens"
    if spec_dir.is_dir():
        truth = {}
        truth_file = spec_dir / "truth.csv"
        if truth_file.is_file():
            with truth_file.open(newline="") as fh:
                truth = {row["file"]: row.get("side", "") for row in csv.DictReader(fh)}
        files = sorted(p for p in spec_dir.rglob("*") if p.is_file() and p.suffix.lower() in _IMAGE_SUFFIXES)
        results = clf([load_image(p) for p in files])
        items, side_total, side_right = [], 0, 0
        for p, r in zip(files, results):
            rel = p.relative_to(spec_dir).as_posix()
            want_side = truth.get(rel, "")
            item = {"file": rel, "is_document": r.is_document, "document_score": round(r.document_score, 4),
                    "side": r.side, "true_side": want_side}
            if want_side in SIDE_LABELS:
                side_total += 1
                # Scored on every such specimen: a rejected document has no side, so it counts as wrong.
                item["side_correct"] = r.side == want_side
                side_right += int(item["side_correct"])
            items.append(item)
        n_doc = sum(1 for r in results if r.is_document)
        out["specimens"] = {
            "count": len(files),
            "classified_as_document": n_doc,
            "document_rate": round(n_doc / len(files), 6) if files else None,
            "side_scored": side_total,
            "side_correct": side_right,
            "side_accuracy": round(side_right / side_total, 6) if side_total else None,
            "items": items,
        }
    face_dir = shared / "faces"
    if face_dir.is_dir():
        files = _face_files(face_dir)
        results = clf([load_image(p) for p in files])
        n_not = sum(1 for r in results if not r.is_document)
        out["faces"] = {
            "count": len(files),
            "classified_as_not_document": n_not,
            "not_document_rate": round(n_not / len(files), 6) if files else None,
            "items": [{"file": p.relative_to(face_dir).as_posix(), "is_document": r.is_document,
                       "document_score": round(r.document_score, 4)} for p, r in zip(files, results)],
        }
    return out


_IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp"}


def _face_files(face_dir: Path) -> list[Path]:
    labels = face_dir / "labels.csv"
    if labels.is_file():
        with labels.open(newline="") as fh:
            files = [face_dir / row["file"] for row in csv.DictReader(fh)]
        return [p for p in files if p.is_file()]
    return sorted(p for p in face_dir.rglob("*") if p.is_file() and p.suffix.lower() in _IMAGE_SUFFIXES)


def format_report(report: dict) -> str:
    lines = []
    if report.get("rotations_averaged", 1) > 1:
        lines.append(f"(each answer averaged over {report['rotations_averaged']} quarter turns of the image)")
    if report.get("content_view"):
        lines.append("(side answers averaged over the whole image and its content crop, where it has one)")
    syn = report.get("synthetic")
    if syn:
        lines.append(f"Synthetic test set (seed {syn['seed']}, {syn['document']['count']} images)")
        lines += _format_metrics("document / not", syn["document"])
        if "side" in syn:
            lines += _format_metrics("side (true documents)", syn["side"])
            lines.append(f"  end-to-end (accepted and right side): {syn['side']['end_to_end_accuracy']:.4f}")
        if syn.get("errors_by_kind"):
            lines.append("  errors by kind: " + ", ".join(f"{k} x{v}" for k, v in syn["errors_by_kind"].items()))
    more = report.get("realistic")
    if more and "side" in more:
        lines.append(f"Realistic documents (docauth.training.classifiers.realistic, seed {more['seed']}, "
                     f"{more['document']['count']} images)")
        lines.append(f"  classified as document: {more['document']['accuracy']:.4f}")
        lines += _format_metrics("side", more["side"])
        if more.get("errors_by_kind"):
            lines.append("  errors by kind: " + ", ".join(f"{k} x{v}" for k, v in more["errors_by_kind"].items()))
    real = report.get("real")
    if real is None:
        lines.append("Real data: ../shared/data not found, skipped")
    else:
        spec = real.get("specimens")
        if spec:
            lines.append(f"Real specimens ({spec['count']} documents, {real['shared_data']}/mrz-specimens)")
            lines.append(f"  classified as document: {spec['classified_as_document']}/{spec['count']} "
                         f"= {spec['document_rate']:.4f}")
            if spec["side_scored"]:
                lines.append(f"  side correct (front/back/open truth): {spec['side_correct']}/{spec['side_scored']}"
                             f" = {spec['side_accuracy']:.4f}")
            for it in spec["items"]:
                wrong = (not it["is_document"]) or it.get("side_correct") is False
                if wrong:
                    lines.append(f"    miss: {it['file']}: document={it['is_document']} "
                                 f"(score {it['document_score']}), side={it['side']} truth={it['true_side']}")
        faces = real.get("faces")
        if faces:
            lines.append(f"Real face photos ({faces['count']}, none is a document)")
            lines.append(f"  classified as not document: {faces['classified_as_not_document']}/{faces['count']} "
                         f"= {faces['not_document_rate']:.4f}")
            for it in faces["items"]:
                if it["is_document"]:
                    lines.append(f"    miss: {it['file']} (document score {it['document_score']})")
    return "\n".join(lines)


def _format_metrics(title: str, m: dict) -> list[str]:
    labels = m["labels"]
    width = max(12, max(len(label) for label in labels) + 2)
    lines = [f"  {title}: accuracy {m['accuracy']:.4f} ({m['count']} images)"]
    lines.append("    " + "class".ljust(width) + "precision  recall  support")
    for label in labels:
        pc = m["per_class"][label]
        prec = "-" if pc["precision"] is None else f"{pc['precision']:.4f}"
        rec = "-" if pc["recall"] is None else f"{pc['recall']:.4f}"
        lines.append("    " + label.ljust(width) + prec.rjust(9) + rec.rjust(8) + str(pc["support"]).rjust(9))
    lines.append("    confusion (rows truth, columns predicted): " + " ".join(labels))
    for label, row in zip(labels, m["confusion_matrix"]):
        lines.append("      " + label.ljust(width) + " ".join(str(v).rjust(6) for v in row))
    return lines
