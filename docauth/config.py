"""Settings with one precedence rule: defaults -> ``DOCAUTH_*`` env -> explicit arguments.

>>> s = Settings.load(environ={"DOCAUTH_MODE": "throughput"}, max_batch_size=8)
>>> (s.mode, s.max_batch_size)
('throughput', 8)
>>> Settings.load(environ={"DOCAUTH_MODE": "throughput"}, mode="realtime").mode
'realtime'
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from docauth.errors import ConfigError

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def default_models_dir() -> Path:
    return PROJECT_ROOT / "models"


def default_data_dir() -> Path:
    return PROJECT_ROOT / "data"


def shared_data_dir() -> Path | None:
    """``../shared/data`` beside the checkout, when present (real evaluation material)."""
    env = os.environ.get("DOCAUTH_SHARED_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(PROJECT_ROOT.parent / "shared" / "data")
    for c in candidates:
        if c.is_dir():
            return c
    return None


# The decision thresholds' defaults, stated once: the stages that take a threshold default to these, and
# so does Settings. The face threshold was calibrated on the Euclidean distance between dlib encodings
# (`docauth eval faces`, docs/matching.md), not the library's 0.6.
DEFAULT_DOCUMENT_THRESHOLD = 0.5
DEFAULT_FACE_THRESHOLD = 0.54
DEFAULT_DUPLICATE_FACE_THRESHOLD = 0.45
DEFAULT_NAME_THRESHOLD = 0.85


# auto: libtesseract in process when it loads, else the command; see docauth.ocr.tesseract.
TESSERACT_ENGINES = ("auto", "library", "command")


@dataclass(frozen=True)
class Settings:
    """Every setting is also the environment variable ``DOCAUTH_<NAME>``; one line each for the README's
    table (``python -m docauth.settings_table``; a test fails when a field has no line here):

    data_dir: Folder of the SQLite database, the runtime profile, compiled models and stored uploads (made on first use).
    models_dir: Folder of the trained models and their metadata.
    database_url: A PostgreSQL URL (``postgresql://user:pass@host/db``); unset, SQLite in ``data_dir``.
    mode: ``realtime`` (lowest latency per request) or ``throughput`` (batched: archives, busy services).
    backend: Where the models run: ``auto`` (measured here) or a backend ``docauth doctor`` lists.
    max_batch_size: Throughput mode: most images per batched model call.
    max_queue_delay_ms: Throughput mode: longest wait for companions before a batch runs.
    autotune: With ``backend=auto`` and no profile for this machine, measure the backends briefly at start-up.
    autotune_seconds: Budget of that start-up measurement, per model, in seconds of the process's CPU time.
    tesseract: ``auto``, ``library`` (libtesseract in process) or ``command`` (a process per call).
    max_upload_bytes: Largest request body the service accepts.
    max_image_pixels: Largest image (width x height, from its header, before decoding).
    max_request_pixels: Largest sum of pixels over all images of one request.
    min_image_side: Smallest width or height of an image.
    max_image_aspect: Largest ratio of an image's long side to its short side.
    max_json_depth: Deepest nesting of a JSON body or form field.
    max_json_bytes: Largest JSON body or form field.
    database_probe_timeout_s: Longest wait for the database in ``/readyz`` and API-key lookups before a 503.
    document_threshold: Document score from which an image counts as a document.
    classifier_rotations: Quarter turns (1, 2 or 4) the classifiers' answers are averaged over.
    classifier_content_view: The side model also looks at the document cropped from a plain background.
    face_threshold: Largest face distance still taken as the same person (calibrated, docs/matching.md).
    duplicate_face_threshold: Largest face distance reported as a possible duplicate identity (1:N).
    name_similarity_threshold: Smallest name similarity (0-1) that counts as a match.
    reject_reasons: Comma-separated reason codes that reject instead of review; empty: the policy's default.
    rate_limit_per_minute: Requests per minute per API key, in each worker.
    store_uploads: Keep each uploaded image under ``data_dir/uploads`` (off: images are never stored).
    check_retention_days: Days a check's result (no images) stays readable at ``GET /v1/checks/{id}``; 0: not kept.
    face_process: Realtime mode: run the face stage in a child process beside OCR (~150 MB per worker).
    max_inflight_checks: Checks one worker admits at once; beyond, requests get 503 with Retry-After.
    running_checks: Throughput mode: checks a worker runs at once; the other admitted checks wait their turn.
    log_level: Logging level (``DEBUG``, ``INFO``, ``WARNING``, ``ERROR``).
    """

    # where things live
    data_dir: Path = field(default_factory=default_data_dir)
    models_dir: Path = field(default_factory=default_models_dir)
    database_url: str | None = None  # None: SQLite in data_dir
    # runtime
    mode: str = "realtime"  # realtime | throughput
    backend: str = "auto"
    max_batch_size: int = 16
    max_queue_delay_ms: float = 5.0
    autotune: bool = True  # backend="auto" without a matching profile: measure briefly at start-up
    autotune_seconds: float = 3.0  # budget of that start-up measurement, per model (CPU seconds)
    tesseract: str = "auto"  # auto | library (libtesseract in process) | command (a process per call)
    # input limits
    max_upload_bytes: int = 20 * 1024 * 1024
    max_image_pixels: int = 40_000_000
    # All images of one request together, from their headers before any is decoded: a decoded pixel costs
    # 3 bytes and more while decoding, so this bounds a request's memory (16 x 6000x6000 would need ~2 GB).
    max_request_pixels: int = 100_000_000
    min_image_side: int = 16
    # Long side over short side (docauth.imageio.DEFAULT_MAX_ASPECT): refused at decode, before any resize.
    max_image_aspect: float = 10.0
    # JSON bodies and JSON form fields: nesting and size refused before parsing (docauth.service.jsonbody).
    max_json_depth: int = 32
    max_json_bytes: int = 64 * 1024
    # /readyz and API-key lookups wait at most this long for the database, then answer 503.
    database_probe_timeout_s: float = 1.0
    # decision thresholds
    document_threshold: float = DEFAULT_DOCUMENT_THRESHOLD
    # The classifiers answer for the image averaged over this many quarter turns (1, 2 or 4): trained on every
    # orientation, their errors differ by turn and the average is right more often (docs/training.md)
    classifier_rotations: int = 4
    # The side model also answers for the document cropped from a plain surface around it (a card on a
    # scanner page), averaged with the whole image (docauth.classifiers.views; docs/training.md)
    classifier_content_view: bool = True
    face_threshold: float = DEFAULT_FACE_THRESHOLD
    duplicate_face_threshold: float = DEFAULT_DUPLICATE_FACE_THRESHOLD
    name_similarity_threshold: float = DEFAULT_NAME_THRESHOLD
    reject_reasons: str = ""  # comma-separated reason codes that reject; "" = docauth.pipeline.policy default
    # service
    rate_limit_per_minute: int = 600
    store_uploads: bool = False
    # A check's result holds the document's fields: kept only this long (and erased with the person).
    check_retention_days: float = 30.0
    # realtime mode: the face stage (dlib) in a child process, so the portrait search and OCR truly run side
    # by side (dlib's encoder holds the GIL); one child per worker, ~150 MB
    face_process: bool = True
    max_inflight_checks: int = 32  # per worker; beyond it requests get 503 + Retry-After
    # throughput mode: a worker's models have one thread and its checks share one interpreter lock, so they
    # take turns (the rest wait, bounded by max_inflight_checks); the workers, two per core, fill the cores
    running_checks: int = 1
    log_level: str = "INFO"

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{Path(self.data_dir) / 'docauth.sqlite3'}"

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None, **explicit: Any) -> "Settings":
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            key = "DOCAUTH_" + f.name.upper()
            if key in environ and environ[key] != "":
                values[f.name] = _coerce(f, environ[key])
        for name, value in explicit.items():
            if name not in {f.name for f in dataclasses.fields(cls)}:
                raise ConfigError(f"unknown setting {name!r}")
            if value is not None:
                values[name] = value
        settings = cls(**values)
        if settings.mode not in ("realtime", "throughput"):
            raise ConfigError(f"mode must be 'realtime' or 'throughput', not {settings.mode!r}")
        if settings.classifier_rotations not in (1, 2, 4):
            raise ConfigError(f"classifier_rotations must be 1, 2 or 4, not {settings.classifier_rotations!r}")
        if not settings.check_retention_days >= 0:
            raise ConfigError(f"check_retention_days must be 0 or more, not {settings.check_retention_days!r}")
        if settings.tesseract not in TESSERACT_ENGINES:
            raise ConfigError(f"tesseract must be one of {', '.join(TESSERACT_ENGINES)}, not {settings.tesseract!r}")
        return settings


def _coerce(f: dataclasses.Field, raw: str) -> Any:
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    try:
        if kind.startswith("Path"):
            return Path(raw)
        if kind == "int":
            return int(raw)
        if kind == "float":
            return float(raw)
        if kind == "bool":
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
    except ValueError as exc:
        raise ConfigError(f"DOCAUTH_{f.name.upper()}={raw!r} is not a valid {kind}") from exc
    return raw
