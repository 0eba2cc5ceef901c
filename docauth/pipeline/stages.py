"""Adapters between the pipeline and the stage packages.

The stage packages own their APIs; this module is the one place that knows
their shapes, so the pipeline body reads as the policy it is. Every loader
imports its package lazily (importing the pipeline loads no framework).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from docauth.pipeline.result import jsonable


# -- classifier -----------------------------------------------------------------------------
def load_classifier(settings):
    from docauth.classifiers import DocumentClassifier

    return DocumentClassifier.load(models_dir=settings.models_dir, backend=settings.backend, mode=settings.mode)


def classification_dict(c) -> dict:
    """Classification object (or dict) -> plain dict with the keys the pipeline uses."""
    if isinstance(c, dict):
        d = dict(c)
    else:
        d = jsonable(c.export()) if hasattr(c, "export") else {}
        for key in ("is_document", "document_score", "side", "side_scores"):
            if hasattr(c, key):
                d[key] = jsonable(getattr(c, key))
    d["is_document"] = bool(d.get("is_document"))
    d["document_score"] = float(d.get("document_score") or 0.0)
    return d


class BatchedClassifier:
    """Classifier calls from concurrent requests meet in the runtime's micro-batcher (throughput mode).

    Each caller preprocesses its own images (sizes differ); the batcher stacks the
    fixed-size model inputs of concurrent callers into one model call, waiting at
    most ``max_queue_delay_ms`` for companions. Calls with several images (the
    archive scanner) are batches already and go straight to the classifier.
    """

    def __init__(self, classifier, config):
        from docauth.runtime.batching import MicroBatcher

        self.inner = classifier
        self.batcher = MicroBatcher(self._predict, config, name="classifier")

    def _predict(self, batch: np.ndarray) -> np.ndarray:
        doc_probs, side_probs = self.inner.predict(batch)
        return np.concatenate([doc_probs, side_probs], axis=1)

    def __call__(self, images):
        images = list(images)
        if len(images) != 1:
            return self.inner(images)
        from docauth.classifiers.stage import image_sizes

        out = self.batcher(self.inner.preprocess(images))
        n_doc = out.shape[1] - len(self.inner.side_labels)
        return self.inner.postprocess(out[:, :n_doc], out[:, n_doc:], sizes=image_sizes(images))

    @property
    def mode(self):
        return "throughput"

    def describe(self) -> dict:
        return {"batching": self.batcher.stats()}

    def __getattr__(self, name):
        if name in ("inner", "batcher"):
            raise AttributeError(name)
        return getattr(self.inner, name)


def model_batchers(stage) -> dict:
    """{model name: MicroBatcher} of a stage's models that batch (the runtime's throughput mode)."""
    out = {}
    inner = getattr(stage, "inner", stage)
    holders = [inner, getattr(inner, "mrz_reader", None)]
    for holder in holders:
        if holder is None or not hasattr(holder, "__dict__"):
            continue
        for value in vars(holder).values():
            batcher = getattr(value, "batcher", None)
            if batcher is not None and hasattr(value, "backend_name"):
                out[value.name] = batcher
    if isinstance(stage, BatchedClassifier):
        out["classifier"] = stage.batcher
    return out


def batched(classifier, settings, config=None):
    from docauth.runtime.batching import BatchingConfig

    if config is None:
        config = BatchingConfig(max_batch_size=settings.max_batch_size, max_queue_delay_ms=settings.max_queue_delay_ms)
    return BatchedClassifier(classifier, config)


# -- OCR -------------------------------------------------------------------------------------
def load_reader(settings):
    from docauth.ocr.reader import DocumentReader

    return DocumentReader.load(models_dir=settings.models_dir, backend=settings.backend, mode=settings.mode,
                               tesseract=settings.tesseract)


FIELD_ALIASES = {
    "surname": ("surname", "last_name", "family_name"),
    "given_names": ("given_names", "given_name", "first_name", "first_names"),
    "date_of_birth": ("date_of_birth", "birth_date", "dob"),
    "document_number": ("document_number", "doc_number", "number"),
    "expiry_date": ("expiry_date", "date_of_expiry", "document_expiry", "expiration_date", "expires"),
    "nationality": ("nationality",),
    "sex": ("sex", "gender"),
    "issuing_country": ("issuing_country", "country", "issuer"),
    "document_type": ("document_type", "type"),
}


def _pick(d: dict, names) -> Any:
    for n in names:
        if d.get(n) not in (None, ""):
            return d[n]
    return None


def normalise_person(d: dict) -> dict:
    """Any of the accepted spellings -> the canonical field names (unknown keys kept)."""
    out = {k: v for k, v in d.items()}
    for canonical, names in FIELD_ALIASES.items():
        value = _pick(d, names)
        if value is not None:
            out[canonical] = value
    return out


def ocr_summary(ocr) -> dict:
    """The OCR result as the pipeline needs it: fields, MRZ found/valid, VIZ-MRZ disagreements."""
    export = jsonable(ocr.export()) if hasattr(ocr, "export") else jsonable(ocr)
    mrz = getattr(ocr, "mrz", None)
    found = mrz is not None and bool(getattr(mrz, "type", True)) and bool(getattr(mrz, "lines", True))
    # The reader already chose the best source per field (check-digit-verified MRZ, longer VIZ names).
    fields = {k: v for k, v in normalise_person(dict(getattr(ocr, "fields", None) or {})).items()
              if v not in (None, "")}
    if found:
        for k, v in _mrz_fields(mrz).items():
            if v not in (None, ""):
                fields.setdefault(k, v)
    fields = {k: jsonable(v) for k, v in fields.items() if not isinstance(v, (dict, list))}
    return {
        "export": export,
        "fields": fields,
        "mrz_found": found,
        "mrz_valid": found and _mrz_valid(mrz),
        "mrz_score": jsonable(getattr(mrz, "score", None)) if found else None,
        "kind": jsonable(getattr(mrz, "type", None)) if found else None,
        "viz_mrz_mismatch": _viz_mrz_mismatch(ocr),
        "verified": _verified_fields(ocr, mrz, fields, found),
        "unsure": set(getattr(ocr, "unsure", ()) or ()),
    }


def _verified_fields(ocr, mrz, fields: dict, found: bool) -> set[str]:
    """Fields whose value a passing MRZ check digit confirms; the rest were read from print alone."""
    sources = getattr(ocr, "sources", None)
    if isinstance(sources, dict):
        return {name for name, source in sources.items() if source == "mrz"}
    # A reader that does not say: what a valid MRZ carries with the same value.
    if not (found and _mrz_valid(mrz)):
        return set()
    carried = _mrz_fields(mrz)
    return {name for name, value in fields.items() if carried.get(name) == value}


def _mrz_fields(mrz) -> dict:
    fields = getattr(mrz, "fields", None)
    if fields is None and hasattr(mrz, "export"):
        fields = mrz.export().get("fields")
    return normalise_person(dict(fields or {}))


def _mrz_valid(mrz) -> bool:
    return bool(getattr(mrz, "valid", False))


def _viz_mrz_mismatch(ocr) -> list[str]:
    """Fields whose printed and MRZ values were both read and disagree."""
    consistency = getattr(ocr, "consistency", None)
    if not isinstance(consistency, dict):
        return []
    out = []
    for name, entry in consistency.items():
        agree = entry.get("agree") if isinstance(entry, dict) else entry
        if agree is False:
            out.append(name)
    return out


def rectified(ocr):
    doc = getattr(ocr, "document", None)
    img = getattr(doc, "rectified", None) if doc is not None else None
    return img if isinstance(img, np.ndarray) and img.size else None


# -- faces -----------------------------------------------------------------------------------
# dlib's detector and encoder (through face_recognition's module-level models) are not thread-safe: two
# threads in them at once crash the process (SIGSEGV). Every call goes through this. The encoder also holds
# the GIL for its whole call, which stalls every other thread (see docauth.pipeline.face_process).
_DLIB_LOCK = threading.Lock()


class FaceStage:
    """Encode the document portrait (largest face) and measure distances to templates.

    Calls into dlib are serialised by a process-wide lock (see ``_DLIB_LOCK``). Realtime checks run
    this stage in a child process instead (:mod:`docauth.pipeline.face_process`).

    A portrait covers a few percent of a document photo (less on a two-page
    passport spread), so faces are searched on the matching stage's detection
    copy upsampled once, and when that finds none, on a larger copy (up to
    :data:`DOCUMENT_DETECTION_LONG_SIDE` pixels; ``encode(large=False)`` skips it).
    """

    DOCUMENT_DETECTION_LONG_SIDE = 1600

    def __init__(self, encode_face, face_distance, face_locations=None, face_encodings=None):
        self._encode_face = encode_face
        self._distance = face_distance
        self._locations = face_locations
        self._encodings = face_encodings

    @classmethod
    def load(cls, settings=None) -> "FaceStage":
        from docauth.matching import face

        stage = cls(face.encode_face, face.face_distance, face.face_locations, face.face_encodings)
        face._fr()  # loads dlib and its model files now, not on the first request
        return stage

    def encode(self, image: np.ndarray, *, upsampled: bool = True, large: bool = True
               ) -> tuple[np.ndarray | None, dict]:
        """(encoding or None, info). The two searches can be left out: ``upsampled`` (the detection copy
        upsampled once, ~90 ms) when it already found nothing, ``large`` (the larger copy, ~200 ms)."""
        with _DLIB_LOCK:
            return self._encode(image, upsampled, large)

    def _encode(self, image: np.ndarray, upsampled: bool, large: bool) -> tuple[np.ndarray | None, dict]:
        if self._locations is None:
            if not upsampled:
                return None, {"n_faces": 0}  # this stage has one search only, and it found nothing
            outcome = self._encode_face(image, allow_multiple=True)
            info = {"n_faces": int(outcome.n_faces)}
            if outcome.face is None:
                return None, info
            info["box"] = [int(v) for v in outcome.face.box]
            return np.asarray(outcome.face.encoding, dtype=np.float64), info
        # A portrait is a small part of a document photo: the plain search (no upsampling, ~30 ms) found
        # none on any of the kiosk's card photos, so the finer one comes first.
        boxes = self._locations(image, upsample=1) if upsampled else []
        info = {"n_faces": len(boxes)}
        long_side = min(max(image.shape[:2]), self.DOCUMENT_DETECTION_LONG_SIDE)
        if not boxes and large and long_side > 1024:  # 512 px upsampled once is already 1024
            boxes = self._locations(image, upsample=0, long_side=long_side)
            info.update(n_faces=len(boxes), detection_long_side=long_side)
        if not boxes:
            return None, info
        (encoding,) = self._encodings(image, [boxes[0]])
        info["box"] = [int(v) for v in boxes[0]]
        return np.asarray(encoding, dtype=np.float64), info

    def encode_enrolment(self, image: np.ndarray) -> np.ndarray:
        """Exactly one face, or an input error saying why (no face / several)."""
        with _DLIB_LOCK:
            outcome = self._encode_face(image, allow_multiple=False)
        return np.asarray(outcome.raise_for_status("photo").encoding, dtype=np.float64)

    def distance(self, templates: np.ndarray, encoding: np.ndarray) -> np.ndarray:
        return np.atleast_1d(self._distance(np.asarray(templates).reshape(-1, encoding.shape[-1]), encoding))


# -- text ------------------------------------------------------------------------------------
def load_text_matcher(settings=None):
    from functools import partial

    from docauth.matching.text import match_person

    if settings is None:
        return match_person
    return partial(match_person, name_threshold=settings.name_similarity_threshold)


MISMATCH_CODES = {
    "surname": "name_mismatch", "given_names": "name_mismatch", "name": "name_mismatch",
    "date_of_birth": "dob_mismatch", "document_number": "document_number_mismatch",
    "expiry": "expired", "nationality": "nationality_mismatch", "sex": "sex_mismatch",
}


# A disagreement on these fields is evidence enough to reject only when a check digit confirms what was
# read; read from the printed zone alone it may be an OCR slip, and a clerk should look (review).
UNCONFIRMED_CODES = {"name_mismatch": "printed_name_mismatch", "dob_mismatch": "printed_dob_mismatch",
                     "document_number_mismatch": "printed_document_number_mismatch"}


def text_summary(match, verified: set[str] | None = None, unsure=frozenset()) -> tuple[dict, list[str]]:
    """(exported match, reason codes). Values are kept: the result goes to the authenticated caller only.

    ``verified``: the document fields a passing MRZ check digit confirms (None: treat all as confirmed).
    ``unsure``: fields read from print without confidence: a disagreement there goes to the output's
    ``unconfirmed`` list as a note, not to the reasons.
    """
    out = jsonable(match.export()) if hasattr(match, "export") else jsonable(match)
    codes: list[str] = []
    for item in (out.get("reasons") or []):
        field_name, _, why = str(item).partition(":")
        code = "expired" if why == "expired" else MISMATCH_CODES.get(field_name, f"{field_name}_mismatch")
        if verified is not None and field_name not in verified and code in UNCONFIRMED_CODES:
            code = UNCONFIRMED_CODES[code]
        if field_name in unsure and code != "expired" and (verified is None or field_name not in verified):
            out.setdefault("unconfirmed", []).append({"field": field_name, "note": code})
            continue
        if code not in codes:
            codes.append(code)
    if not codes and out.get("match") is False:
        codes.append("text_not_checked")  # nothing disagreed, but the name could not be compared
    return out, codes


# -- store -----------------------------------------------------------------------------------
def open_store(settings):
    from docauth.store import Store

    store = Store.from_settings(settings)
    store.ensure_schema()  # the first check on a fresh data folder creates the database
    return store


def get_person(store, person_id) -> dict | None:
    from docauth.errors import NotFound

    try:
        person = store.get_person(int(person_id))
    except NotFound:
        return None
    except (TypeError, ValueError):
        return None  # not an id this store can hold
    return normalise_person(person.export() if hasattr(person, "export") else dict(person))


def face_templates(store, person_id) -> np.ndarray:
    if store is None:
        return np.empty((0, 128))
    templates = store.face_templates(int(person_id))
    vectors = [np.asarray(getattr(t, "encoding", t), dtype=np.float64).reshape(-1) for t in templates]
    return np.stack(vectors) if vectors else np.empty((0, 128))


def store_version(store):
    """(count, max id) of the face templates: changes whenever any worker enrols or erases someone."""
    from sqlalchemy import func, select
    from sqlalchemy import exc as sa_exc

    from docauth.errors import Unavailable
    from docauth.store.models import FaceTemplateRow

    try:
        with store.engine.connect() as conn:
            row = conn.execute(select(func.count(FaceTemplateRow.id), func.max(FaceTemplateRow.id))).one()
    except sa_exc.SQLAlchemyError as exc:
        raise Unavailable("the database is unavailable") from exc
    return (int(row[0]), row[1])


def build_face_index(store):
    from docauth.store.index import FaceIndex

    return FaceIndex.from_store(store)


def search_index(index, encoding, threshold, exclude=None) -> list[dict]:
    hits = index.search(np.asarray(encoding), k=5, max_distance=threshold,
                        exclude_person=None if exclude is None else int(exclude))
    return [{"person_id": int(h.person_id), "distance": float(h.distance)} for h in hits]


# -- description and warm-up -----------------------------------------------------------------
def _model_info(model) -> dict:
    meta = getattr(model, "metadata", None) or {}
    if callable(getattr(model, "describe", None)):
        return {"version": meta.get("version"), **model.describe()}
    return {"name": getattr(model, "name", None), "version": meta.get("version"),
            "backend": getattr(model, "backend_name", None), "mode": getattr(model, "mode", None),
            "reason": getattr(model, "reason", None)}


def describe_stages(pipeline) -> dict:
    """Which models run where (backend, mode) and why, per stage."""
    out: dict = {}
    clf = pipeline.classifier
    inner = getattr(clf, "inner", clf)
    models = [getattr(inner, n) for n in ("document_model", "side_model") if hasattr(inner, n)]
    out["classifier"] = {"models": [_model_info(m) for m in models],
                         "reason": "; ".join(f"{m.name}: {getattr(m, 'backend_name', '?')} "
                                             f"({getattr(m, 'reason', '')})" for m in models) or None}
    if hasattr(clf, "describe"):
        out["classifier"].update(clf.describe())
    reader = pipeline.reader
    if reader is not None:
        holders = [reader, getattr(reader, "mrz_reader", None)]
        rmodels = [v for h in holders if h is not None and hasattr(h, "__dict__")
                   for v in vars(h).values() if hasattr(v, "backend_name")]
        out["reader"] = {"models": [_model_info(m) for m in rmodels],
                         "reason": "; ".join(f"{m.name}: {m.backend_name} ({m.reason})" for m in rmodels) or
                         "Tesseract (subprocess) for printed fields"}
    out["faces"] = {"reason": "dlib HOG detector + ResNet encoder (face_recognition), CPU"} \
        if pipeline.faces is not None else None
    return out


def warmup_image() -> np.ndarray:
    """A card-sized image with text-like strokes, so each stage runs its full path once."""
    rng = np.random.default_rng(0)
    img = np.full((540, 856, 3), 235, np.uint8)
    img[300:330, 40:800] = rng.integers(0, 80, (30, 760, 3), dtype=np.uint8)
    img[400:430, 40:800] = rng.integers(0, 80, (30, 760, 3), dtype=np.uint8)
    return img
