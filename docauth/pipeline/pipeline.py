"""One check over all stages: a predictor composed of swappable stage objects (doctr style).

    pipeline = Pipeline.load(settings)           # models loaded once, here
    result = pipeline.check(image, person_id="...")   # or claimed={"surname": ..., ...}
    result.decision, result.reason_codes, result.export()

Each stage is an object held as an attribute and written to a contract of
:mod:`docauth.pipeline.contracts`, so tests (and deployments) build a ``Pipeline``
from any mix of real stages, a temporary store, or another classifier.
:meth:`Pipeline.forward` is the check, top to bottom. The pipeline never decides
HTTP status codes and never logs personal data.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from docauth.config import (
    DEFAULT_DOCUMENT_THRESHOLD,
    DEFAULT_DUPLICATE_FACE_THRESHOLD,
    DEFAULT_FACE_THRESHOLD,
    Settings,
)
from docauth.dates import parse_date
from docauth.errors import DocauthError, InputError, InvalidImage, NotFound
from docauth.pipeline import loaders, quality
from docauth.pipeline.batching import batched, model_batchers
from docauth.pipeline.claims import claimed_person_id
from docauth.pipeline.contracts import Classification, Classifier, DocumentRead, Faces, Reader, TextMatcher
from docauth.pipeline.describe import describe_stages
from docauth.pipeline.face_process import FaceProcessStage
from docauth.pipeline.faces import FaceStage
from docauth.pipeline.geometry import document_geometry
from docauth.pipeline.ocr_summary import OCRSummary, ocr_summary, rectified
from docauth.pipeline.persons import normalise_person
from docauth.pipeline.policy import MRZ_UNSURE_NOTE, REASONS, DecisionPolicy
from docauth.pipeline.portrait import portrait_on_page
from docauth.pipeline.portrait_search import PortraitSearch
from docauth.pipeline.result import CheckResult, StageRecord, classification_output, jsonable
from docauth.pipeline.side import SidedClassification, SideEvidence, decide_side, sided
from docauth.pipeline.store_access import build_face_index, face_templates, get_person, search_index, store_version
from docauth.pipeline.text_reasons import text_summary
from docauth.pipeline.warmup import warmup_document, warmup_image
from docauth.store import Store

# Sides that carry a machine-readable zone (TD1 cards print it on the back; passports on the data page).
MRZ_SIDES = {"back", "open"}
FACE_SIDES = {"front", "open"}
# What a photo the classifier takes for no document is still measured for: a glared, dark or tiny photo of a
# document looks like none to it, and the customer should be asked again rather than told it is no document.
# Not blur: a photo of a person or a scene is smooth where a document is print, and reads as blurred. Cut-off
# corners need the located document.
NOT_A_DOCUMENT_RETAKE = (quality.GLARE, quality.TOO_DARK, quality.TOO_SMALL)


@dataclass
class Thresholds:
    document: float = DEFAULT_DOCUMENT_THRESHOLD
    face: float = DEFAULT_FACE_THRESHOLD
    duplicate_face: float = DEFAULT_DUPLICATE_FACE_THRESHOLD

    @classmethod
    def from_settings(cls, settings: Settings) -> "Thresholds":
        return cls(
            document=settings.document_threshold,
            face=settings.face_threshold,
            duplicate_face=settings.duplicate_face_threshold,
        )


class Pipeline:
    """Classify -> side -> OCR/MRZ -> face 1:1 and 1:N -> text match -> decision."""

    def __init__(
        self,
        *,
        classifier: Classifier,
        reader: Reader | None,
        faces: Faces | None,
        text_matcher: TextMatcher | None,
        store: Store | None = None,
        policy: DecisionPolicy | None = None,
        thresholds: Thresholds | None = None,
        today: Callable[[], dt.date] = dt.date.today,
        settings: Settings | None = None,
        capture_quality: Callable[..., quality.CaptureQuality] | None = None,
    ):
        self.classifier = classifier
        # Capture quality (docauth.pipeline.quality.measure, or the same call): None measures nothing.
        self.capture_quality = capture_quality
        self.reader = reader
        self.faces = faces
        self.text_matcher = text_matcher
        self.store = store
        self.policy = policy or DecisionPolicy()
        self.thresholds = thresholds or Thresholds()
        self.today = today
        self.settings = settings
        self._index_lock = threading.Lock()
        self._face_index = None
        self._face_index_version = None
        # Concurrent face search pays off for one request at a time (realtime); under load
        # (throughput, batch) the request threads already fill the cores.
        self.parallel_face = settings is None or settings.mode == "realtime"
        self._pool: ThreadPoolExecutor | None = None
        self._tail_pool: ThreadPoolExecutor | None = None

    # -- construction --------------------------------------------------------------------
    @classmethod
    def load(cls, settings: Settings | None = None, *, store: Store | None = None,
             classifier: Classifier | None = None, reader: Reader | None = None, faces: Faces | None = None,
             text_matcher: TextMatcher | None = None, batcher_config=None) -> "Pipeline":
        """Load every stage once. Pass any stage (or a store) to use it instead of the default."""
        settings = settings or Settings.load()
        face_children = None
        if faces is None and settings.mode == "realtime" and settings.face_process:
            # The face processes load dlib (seconds) on their own while the models load here.
            faces = face_children = FaceProcessStage.load(settings, wait=False)
        loaded = False
        try:
            stages = cls._load_stages(settings, classifier, reader, faces, text_matcher, store, batcher_config)
            if face_children is not None:
                face_children.wait_started()
            loaded = True
        finally:
            if face_children is not None and not loaded:
                face_children.close()  # a failed load leaves no face process behind
        return cls(**stages, policy=DecisionPolicy.from_settings(settings),
                   thresholds=Thresholds.from_settings(settings), settings=settings, capture_quality=quality.measure)

    @staticmethod
    def _load_stages(settings: Settings, classifier, reader, faces, text_matcher, store, batcher_config) -> dict:
        if classifier is None:
            classifier = loaders.load_classifier(settings)
            if settings.mode == "throughput" and not model_batchers(classifier):
                # The runtime batches in throughput mode; this covers a backend that does not.
                classifier = batched(classifier, settings, batcher_config)
        if reader is None:
            reader = loaders.load_reader(settings)
        if faces is None:
            faces = FaceStage.load(settings)
        if text_matcher is None:
            text_matcher = loaders.load_text_matcher(settings)
        if store is None:
            store = loaders.open_store(settings)
        return {"classifier": classifier, "reader": reader, "faces": faces, "text_matcher": text_matcher,
                "store": store}

    def warmup(self) -> dict[str, float]:
        """Check a stored document photo whole, so the first real request pays no start-up cost: its zone read,
        printed fields and portrait reach every stage's full path and the model shapes a real page brings. A stage
        that check did not reach (a pipeline of other stages need not read that photo) then runs once on a
        synthetic image. Milliseconds by step."""
        if self.reader is not None:
            self.reader.warmup()  # a stage may load lazily (Tesseract's languages)
        if self.store is not None:
            self._index()
        start = time.perf_counter()
        result = None
        try:
            result = self.check(warmup_document())
        except DocauthError:
            pass  # whatever ran is loaded; the synthetic image covers the rest
        timings = {"check": (time.perf_counter() - start) * 1000}
        image = warmup_image()
        for name, stage, run in (("classify", self.classifier, lambda: self.classifier([image])),
                                 ("ocr", self.reader, lambda: self.reader(image)),
                                 ("face", self.faces, lambda: self.faces.encode(image))):
            if stage is None:
                continue
            record = result.stages.get(name) if result is not None else None
            if record is not None and record.status != "skipped":
                timings[name] = result.timings_ms.get(name, 0.0)
                continue
            start = time.perf_counter()
            try:
                run()
            except DocauthError:
                pass  # a synthetic image need not be readable; the code paths are now loaded
            timings[name] = (time.perf_counter() - start) * 1000
        return timings

    def describe(self) -> dict:
        """Backends, modes and model versions, for /v1/runtime and result trees."""
        return jsonable(describe_stages(self.classifier, self.reader, self.faces))

    # -- single stages (the service's /v1/classify and /v1/ocr) ---------------------------
    def classify(self, images: Sequence[np.ndarray]) -> list[SidedClassification]:
        """Document or not and the side, decided as the check decides it (docauth.pipeline.side): the side
        model, and for each document the MRZ the reader finds first on it (when the reader has one)."""
        images = list(images)
        return [sided(c, image, self.reader) for c, image in zip(self.classifier(images), images)]

    def read(self, image: np.ndarray):
        if self.reader is None:
            raise DocauthError("the OCR stage is not available", code="stage_unavailable")
        return self.reader(image)

    # -- the check -------------------------------------------------------------------------
    def check(self, image: np.ndarray, person_id: str | None = None, claimed: dict | None = None) -> CheckResult:
        return self.check_many([image], [(person_id, claimed)])[0]

    def check_many(self, images: Sequence[np.ndarray], persons: Sequence[tuple] | None = None) -> list[CheckResult]:
        """Check several images; the classifier sees them as one batch (the archive scanner's path)."""
        images = list(images)
        persons = list(persons) if persons is not None else [(None, None)] * len(images)
        # The person is looked up before any model runs, so an unknown id fails fast.
        records = [self._person(pid, claimed) for pid, claimed in persons]
        named = [claimed_person_id(self.store, claimed) if pid is None else None for pid, claimed in persons]
        start = time.perf_counter()
        classifications = list(self.classifier(images)) if images else []
        # One model call classified them all: each image is charged its share, so the totals of a batch add up
        # to the time it took rather than counting the call once per image.
        classify_ms = (time.perf_counter() - start) * 1000.0 / max(1, len(images))
        results = []
        for image, cls_out, (pid, claimed), person, named_id in zip(images, classifications, persons, records,
                                                                     named):
            result = CheckResult(person_id=pid, claimed=claimed is not None and pid is None,
                                 claimed_person_id=named_id)
            result.timings_ms["classify"] = round(classify_ms, 2)
            t0 = time.perf_counter()
            self.forward(result, image, cls_out, pid, person)
            self.policy.apply(result)
            result.timings_ms["total"] = round(classify_ms + (time.perf_counter() - t0) * 1000.0, 2)
            results.append(result)
        return results

    def _person(self, person_id, claimed) -> dict | None:
        if person_id is not None:
            if self.store is None:
                raise DocauthError("no person store is configured", code="store_unavailable")
            person = get_person(self.store, person_id)
            if person is None:
                raise NotFound(f"no person with id {person_id!r}", code="person_not_found")
            return person
        if claimed is not None:
            if not isinstance(claimed, dict):
                raise InputError("claimed must be a JSON object of fields", code="invalid_claimed")
            return normalise_person(claimed)
        return None

    def forward(self, result: CheckResult, image: np.ndarray, classification: Classification, person_id,
                person: dict | None) -> None:
        """The check of one image after its classification, top to bottom: each step writes its stage record
        and reasons into ``result``."""
        side = self._classified(result, classification)
        if side is False:
            # Not a document: nothing else runs. A photo too blurred, dark or small to tell is asked for again.
            self._judge_capture(result, image, None, only=NOT_A_DOCUMENT_RETAKE)
            return
        search = self._start_portrait_search(image, side, result.document.get("side_scores") or {})
        ocr, read = self._read_document(result, image, side, search.rectified_ready if search else None, person)
        self._judge_capture(result, image, ocr)
        side = self._side_from_mrz(result, side, read)
        self._match_face(result, image, ocr, side, person_id, search)
        self._place_on_document(result, ocr)
        self._match_text(result, read.fields, person, person_id, read.verified, read.unsure)

    @staticmethod
    def _place_on_document(result: CheckResult, ocr: DocumentRead | None) -> None:
        """Where the zone, the fields and the portrait are on the rectified document (the desk draws them)."""
        if ocr is None:
            return
        face = result.stages.get("face")
        result.geometry = document_geometry(ocr, face.output if face is not None else None)
        result.rectified = rectified(ocr)

    def _start_portrait_search(self, image: np.ndarray, side: str | None, scores: dict) -> "PortraitSearch | None":
        """Latency (realtime): the portrait is searched while OCR reads the printed fields, on the other core:
        first where the layout puts it on the upright rectified document as soon as OCR has made it; when no
        face is there, the photo as taken and the whole page (a turned or small portrait). Not beside OCR where
        the zone OCR hands over makes the side one without a portrait (the side model took a card's back for
        its front): the check then skips the face stage, and the look runs only if it asks after all."""
        wants_face = self.faces is not None and (side is None or side in FACE_SIDES)
        if not (wants_face and self.parallel_face):
            return None
        concurrent_tail = self.faces.concurrent_calls > 1
        return PortraitSearch(self._face_pool(), self._encode_timed, self._encode_places_timed, image,
                              tail_pool=self._face_tail_pool() if concurrent_tail else None,
                              unwanted=lambda zone: _zone_rules_out_portrait(side, scores, zone))

    # 1-2. document or not, and which side
    def _classified(self, result: CheckResult, classification: Classification):
        """The side (None when the classifier gives none), or False when it is not a document."""
        c = classification_output(classification)
        result.stages["classify"] = StageRecord(output=c)
        result.document = {"is_document": c["is_document"], "document_score": c["document_score"],
                           "side": c.get("side"), "side_scores": c.get("side_scores")}
        result.scores["document"] = c["document_score"]
        if not c["is_document"] or c["document_score"] < self.thresholds.document:
            result.document["is_document"] = False
            result.add_reason("not_a_document", "classify", REASONS["not_a_document"])
            for name in ("ocr", "face", "duplicates", "text"):
                result.skip(name, "not a document")
            return False
        return c.get("side")

    @staticmethod
    def _side_from_mrz(result: CheckResult, side, read: OCRSummary):
        """The side decided from the model's answer and the zone read (docauth.pipeline.side); the model's
        own answer stays beside it (``side_model``, and ``side_classified`` when the zone changed it)."""
        evidence = SideEvidence(side, result.document.get("side_scores") or {}, read.kind, read.mrz_valid,
                                read.format_sure)
        decision = decide_side(evidence)
        result.document.update(side=decision.side, side_source=decision.source, side_model=decision.model_side)
        if decision.side != side:
            result.document["side_classified"] = side
        return decision.side

    # 3. locate, rectify, MRZ, printed fields
    def _read_document(self, result: CheckResult, image, side, on_rectified=None, person: dict | None = None):
        """(OCR result, its summary: fields, the fields a check digit confirms, MRZ kind and validity). The
        person's record is handed to the reader, whose print confirms it with fewer reads where it holds."""
        if self.reader is None:
            result.skip("ocr", "OCR stage not configured")
            return None, OCRSummary()
        ocr = None
        with result.timed("ocr"):
            try:
                ocr = self.reader(image, side=side, on_rectified=on_rectified, expected=person)
            except DocauthError as exc:
                result.stages["ocr"] = StageRecord(status="failed", output=exc.export()["error"])
                result.add_reason("stage_failed", "ocr", f"OCR failed: {exc.code}")
        if ocr is None:
            return None, OCRSummary()
        read = ocr_summary(ocr)
        result.stages["ocr"] = StageRecord(output=read.export)
        fields = read.fields
        result.fields = fields
        result.document["kind"] = read.kind
        result.scores["mrz"] = read.mrz_score
        if read.mrz_found:
            if not read.mrz_checks_pass:
                result.add_reason("mrz_invalid", "ocr", REASONS["mrz_invalid"])
            elif not read.mrz_valid:  # our read is unsure where no check digit reaches: say so, blame no one
                result.stages["ocr"].note = MRZ_UNSURE_NOTE
        elif side in MRZ_SIDES:
            result.add_reason("mrz_not_found", "ocr", REASONS["mrz_not_found"])
        if read.viz_mrz_mismatch:
            result.add_reason("viz_mrz_mismatch", "ocr",
                              REASONS["viz_mrz_mismatch"] + f" ({', '.join(read.viz_mrz_mismatch)})")
        expiry = parse_date(fields.get("expiry_date"), kind="expiry")
        if expiry is not None and expiry < self.today():
            result.add_reason("expired", "ocr", REASONS["expired"])
        return ocr, read

    # 3b. is the capture good enough to judge (else: ask for a new photo)
    def _judge_capture(self, result: CheckResult, image, ocr: DocumentRead | None,
                       only=quality.QUALITY_REASONS) -> None:
        """Capture quality on the located, rectified document (the whole photo when OCR did not run);
        ``only`` these reasons are given."""
        if self.capture_quality is None:
            return
        view = ocr.document if ocr is not None else None
        with result.timed("quality"):
            if view is not None:
                judged = self.capture_quality(image, corners=view.corners, found=bool(view.found),
                                              rectified=rectified(ocr),
                                              zone=ocr.mrz.zone if ocr.mrz is not None else None)
            else:
                judged = self.capture_quality(image)
        result.stages["quality"] = StageRecord(output=judged.export())
        for code in judged.reasons:
            if code in only:
                result.add_reason(code, "quality", REASONS[code])

    # 4. face 1:1 with the person, 1:N against everyone enrolled
    def _match_face(self, result: CheckResult, image, ocr, side, person_id, search) -> None:
        if self.faces is None:
            result.skip("face", "face stage not configured")
            result.skip("duplicates", "face stage not configured")
            return
        if side is not None and side not in FACE_SIDES:
            result.skip("face", f"the {side} side carries no portrait")
            result.skip("duplicates", f"the {side} side carries no portrait")
            if person_id is not None or result.claimed:
                # Ownership cannot be confirmed from this side alone: never an automatic accept.
                result.add_reason("face_not_checked", "face", REASONS["face_not_checked"])
            return
        try:
            encoding, face_info = self._find_face(result, image, ocr, search)
        except DocauthError as exc:  # e.g. the face process died: this check gets no face decision
            result.stages["face"] = StageRecord(status="failed", output=exc.export()["error"])
            result.add_reason("stage_failed", "face", f"face matching failed: {exc.code}")
            result.skip("duplicates", "the face stage failed")
            return
        face_out: dict = {"face_found": encoding is not None, **face_info}
        if encoding is None:
            result.add_reason("face_not_found", "face", REASONS["face_not_found"])
        elif person_id is not None:
            templates = face_templates(self.store, person_id)
            if len(templates) == 0:
                face_out["compared"] = 0
                result.add_reason("face_not_checked", "face", REASONS["face_not_checked"])
            else:
                distance = float(np.min(self.faces.distance(templates, encoding)))
                face_out.update(compared=len(templates), distance=distance, threshold=self.thresholds.face,
                                match=distance <= self.thresholds.face)
                result.scores["face_distance"] = distance
                if distance > self.thresholds.face:
                    result.add_reason("face_mismatch", "face", REASONS["face_mismatch"])
        result.stages["face"] = StageRecord(output=face_out)
        if encoding is None or self.store is None:
            result.skip("duplicates", "no face to search with" if encoding is None else "no person store")
            return
        with result.timed("duplicates"):
            # The person the check is about (by id, or named in the claimed fields) is no duplicate of themselves.
            excluded = int(person_id) if person_id is not None else result.claimed_person_id
            hits = self._duplicates(encoding, exclude=excluded)
        result.stages["duplicates"] = StageRecord(output={"threshold": self.thresholds.duplicate_face,
                                                          "matches": hits, "excluded_person_id": excluded})
        if hits:
            result.scores["duplicate_distance"] = hits[0]["distance"]
            result.add_reason("duplicate_identity", "duplicates", REASONS["duplicate_identity"])

    def _find_face(self, result: CheckResult, image, ocr: DocumentRead | None, search):
        """(encoding or None, info): the :class:`PortraitSearch` started beside OCR (realtime), or run here
        after it (batch), both in its order: where the layout puts the portrait on the rectified page; then, on
        a page sure to hold the portrait (:func:`~docauth.pipeline.portrait.portrait_on_page`), the same places
        more closely, else the whole page, the photo, the page turned and the photo at the larger size."""
        page = rectified(ocr) if ocr is not None else None
        leave_page = page is None or not _holds_portrait(ocr, page)
        if search is None:
            search = PortraitSearch(None, self._encode_timed, self._encode_places_timed, image)
            if page is not None:
                search.rectified_ready(page, ocr.mrz)
        encoding, info, ms = search.result(leave_page=leave_page, read_page=page,
                                           read_zone=ocr.mrz if ocr is not None else None)
        if encoding is None and search.left_page and not search.searched_large:  # last: the photo, larger
            encoding, info, more_ms = self._encode_timed(image, upsampled=False)
            info["searched"] = search.searched + ", photo (large)"
            ms += more_ms
        result.timings_ms["face"] = round(ms, 2)
        return encoding, info

    # 5. text match with the person's record (or the claimed fields)
    def _match_text(self, result: CheckResult, fields, person, person_id, verified: set[str],
                    unsure: set[str] = frozenset()) -> None:
        """``unsure``: fields read from print without confidence; their disagreement with the record is noted
        in the stage's output, never raised as a reason (it may be our misread)."""
        if person is None:
            result.skip("text", "no person or claimed fields given")
            if person_id is None:
                result.add_reason("no_person", "text", REASONS["no_person"])
            return
        if self.text_matcher is None:
            result.skip("text", "text matcher not configured")
            return
        if not fields:
            result.skip("text", "no fields were read from the document")
            result.add_reason("text_not_checked", "text", REASONS["text_not_checked"])
            return
        with result.timed("text"):
            match = self.text_matcher(fields, person, today=self.today())
        out, mismatches = text_summary(match, verified, unsure)
        result.stages["text"] = StageRecord(output=out)
        result.scores["text"] = out.get("score")
        for code in mismatches:
            message = REASONS.get(code, code.replace("_", " "))
            if code == "text_not_checked":
                message += f" (not compared: {', '.join(out['not_compared']) or 'none'})"
            result.add_reason(code, "text", message)

    def _face_pool(self) -> ThreadPoolExecutor:
        with self._index_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="docauth-face")
            return self._pool

    def _face_tail_pool(self) -> ThreadPoolExecutor:
        """One thread for the second of a hard photo's last two portrait searches (never waits on the face
        pool, so it cannot deadlock with it)."""
        with self._index_lock:
            if self._tail_pool is None:
                self._tail_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="docauth-face-tail")
            return self._tail_pool

    def _encode_timed(self, image, *, upsampled: bool = True, large: bool = True):
        start = time.perf_counter()
        encoding, info = self.faces.encode(image, upsampled=upsampled, large=large)
        return encoding, info, (time.perf_counter() - start) * 1000.0

    def _encode_places_timed(self, page, regions, *, closer: bool = False):
        start = time.perf_counter()
        encoding, info = self.faces.encode(page, regions=regions, closer=closer)
        return encoding, info, (time.perf_counter() - start) * 1000.0

    # -- 1:N -------------------------------------------------------------------------------
    def _index(self):
        with self._index_lock:
            version = store_version(self.store)
            if self._face_index is None or version != self._face_index_version:
                self._face_index = build_face_index(self.store)
                self._face_index_version = version
            return self._face_index

    def _duplicates(self, encoding, exclude) -> list[dict]:
        index = self._index()
        return search_index(index, encoding, self.thresholds.duplicate_face, exclude=exclude)

    # -- enrolment (the service's POST /v1/persons) ----------------------------------------
    def encode_photo(self, image: np.ndarray) -> np.ndarray:
        if self.faces is None:
            raise DocauthError("the face stage is not available", code="stage_unavailable")
        encoding, _ = self.faces.encode(image)
        if encoding is None:
            raise InvalidImage("no face was found in the enrolment photo", code="face_not_found")
        return encoding


def _zone_rules_out_portrait(side: str | None, scores: dict, zone) -> bool:
    """Whether ``zone`` (the MRZ OCR read, or None) with the side model's answer decides a side that carries no
    portrait, as :meth:`Pipeline._side_from_mrz` decides it from the same zone."""
    if zone is None:
        return False
    decided = decide_side(SideEvidence(side, scores, zone.type, bool(zone.valid), bool(zone.format_sure))).side
    return decided is not None and decided not in FACE_SIDES


def _holds_portrait(ocr: DocumentRead, page: np.ndarray) -> bool:
    """Whether OCR's ``page`` is sure to hold the portrait (one located page, its zone valid and of a format
    printed on the portrait's page)."""
    if ocr.document is None or ocr.mrz is None:
        return False
    return portrait_on_page(page.shape, located=bool(ocr.document.found), zone_type=ocr.mrz.type,
                            zone_valid=bool(ocr.mrz.valid))
