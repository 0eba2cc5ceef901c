"""Helpers shared by the pipeline, service and batch tests (area: pipeline/service/batch).

``RuleClassifier`` stands in for the trained document classifier where a test
is about the machinery around it (HTTP, auth, batching, resume), so those
tests neither wait for nor depend on the trained models; tests of the whole
check use the real models (see tests/test_service_e2e.py).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import socket
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from docauth.classifiers.stage import Classification

ASTRONAUT_PERSON = {
    "surname": "COLLINS",
    "given_names": "EILEEN MARIE",
    "date_of_birth": "1956-11-19",
    "nationality": "UTO",
    "sex": "F",
    "document_number": "L898902C3",
}
OTHER_PERSON = {
    "surname": "ERIKSSON",
    "given_names": "ANNA MARIA",
    "date_of_birth": "1974-08-12",
    "nationality": "SWE",
    "sex": "F",
    "document_number": "Q7MKDZHN2",
}


class RuleClassifier:
    """Oblong images are 'documents' (side 'open'); square ones (selfies) are not. Optionally slow."""

    def __init__(self, delay_s: float = 0.0, side: str = "open"):
        self.delay_s = delay_s
        self.side = side
        self.calls: list[int] = []

    def models(self) -> list:
        return []  # rules, no model

    def describe(self) -> dict:
        return {}

    def __call__(self, images):
        images = list(images)
        self.calls.append(len(images))
        if self.delay_s:
            time.sleep(self.delay_s * len(images))
        out = []
        for im in images:
            h, w = im.shape[:2]
            if abs(w / h - 1.0) > 0.15:
                scores = {s: (0.97 if s == self.side else 0.015) for s in ("front", "back", "open")}
                out.append(Classification(True, 0.97, self.side, scores))
            else:
                out.append(Classification(False, 0.03, None, {}))
        return out


@dataclass
class _MRZ:
    fields: dict
    valid: bool = True
    checks_pass: bool = True
    type: str | None = "unstated"  # found, of no format in particular (the side model's answer stands)
    format_sure: bool = False
    lines: list = field(default_factory=lambda: ["(the stand-in's zone)"])
    score: float | None = None
    zone_top: float | None = None  # where the zone starts is not said
    zone: list | None = None  # nor where the zone lies in the photo

    def export(self):
        return {"fields": self.fields, "valid": self.valid}


@dataclass
class _Read:
    fields: dict
    mrz: _MRZ | None
    document: object = None
    consistency: dict = field(default_factory=dict)
    sources: dict | None = None  # not said: the check compares the zone's values
    unsure: set = field(default_factory=set)
    printed: dict = field(default_factory=dict)

    def export(self):
        return {"fields": self.fields, "mrz": self.mrz.export() if self.mrz else None}


class FieldsReader:
    """Reads back the fields it was told the next document carries (the OCR stage is tested by its owners)."""

    def __init__(self):
        self.next_fields: dict = {}
        self.mrz_valid = True
        self.mrz_checks_pass = None  # None: as valid says
        self.with_mrz = True
        self.mrz_type = None  # e.g. "TD3": the MRZ format the reader reports
        self.rectified_page = None  # handed to on_rectified, as the real reader does with its upright page
    def warmup(self) -> None:
        pass

    def find_zone(self, image, timings=None, *, side=None):
        return None, None  # no zone found: Pipeline.classify keeps the side model's answer

    def models(self) -> list:
        return []

    def __call__(self, image, *, side=None, on_rectified=None, expected=None):
        fields = dict(self.next_fields)
        checks_pass = self.mrz_valid if self.mrz_checks_pass is None else self.mrz_checks_pass
        mrz = _MRZ(fields, self.mrz_valid, checks_pass) if self.with_mrz else None
        if mrz is not None and self.mrz_type:
            mrz.type = self.mrz_type
        if on_rectified is not None and self.rectified_page is not None:
            on_rectified(self.rectified_page, mrz)
        return _Read(fields=fields, mrz=mrz)


def standin_pipeline(settings):
    """Batch-scanner factory (``--pipeline-factory pipeline_support:standin_pipeline``): fast, no models."""
    from docauth.pipeline import Pipeline

    return Pipeline(classifier=RuleClassifier(delay_s=0.03), reader=None, faces=None, text_matcher=None,
                    store=None, settings=settings, today=lambda: dt.date(2026, 1, 1))


def load_log_pipeline(settings):
    """Batch-scanner factory: the stand-in pipeline, after appending the loading process's id and its share of
    the cores to ``$LOAD_LOG`` (one line per load, so a load per chunk or in the scanner itself shows)."""
    import os

    line = f"{os.getpid()} {os.environ.get('DOCAUTH_PROCESS_THREADS', '')}\n".encode()
    fd = os.open(os.environ["LOAD_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
    return standin_pipeline(settings)


def _openblas_threads() -> list[int]:
    """The thread count of every OpenBLAS this process has loaded (numpy's, OpenCV's)."""
    import ctypes
    from pathlib import Path

    counts = []
    libraries = {line.split()[-1] for line in Path("/proc/self/maps").read_text().splitlines() if ".so" in line}
    for path in sorted(p for p in libraries if "openblas" in Path(p).name.lower()):
        library = ctypes.CDLL(path)
        for name in ("openblas_get_num_threads", "scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_"):
            getter = getattr(library, name, None)
            if getter is not None:
                counts.append(int(getter()))
                break
    return counts


def thread_facts_pipeline(settings):
    """Batch-scanner factory: the stand-in pipeline, after writing what this worker was given to run on
    (``$THREAD_FACTS_DIR/<pid>.json``): its share, the thread variables, OpenCV's threads, the threads of a
    shipped model's ONNX Runtime session and the settings' queue delay."""
    import json
    import os
    from pathlib import Path

    import cv2

    from docauth.runtime import load_model

    model = load_model("document", backend="onnxruntime", mode=settings.mode)
    facts = {key: os.environ.get(key) for key in ("DOCAUTH_PROCESS_THREADS", "OMP_NUM_THREADS",
                                                  "OPENBLAS_NUM_THREADS", "OMP_THREAD_LIMIT")}
    facts.update(cv2_threads=cv2.getNumThreads(), ort_intra_op_threads=model.details["intra_op_threads"],
                 spec=model.spec, max_queue_delay_ms=settings.max_queue_delay_ms,
                 openblas_threads=_openblas_threads(), forked="spawn_main" not in Path("/proc/self/cmdline").read_text())
    model.close()
    Path(os.environ["THREAD_FACTS_DIR"], f"{os.getpid()}.json").write_text(json.dumps(facts))
    return standin_pipeline(settings)


def astronaut_portrait() -> np.ndarray:
    import skimage.data

    return skimage.data.astronaut()[20:330, 110:350]  # head and shoulders, portrait format


def document_of(person: dict, portrait: np.ndarray | None, *, seed: int = 7, kind: str = "td3_open",
                captured: bool = True) -> np.ndarray:
    """A synthetic document of ``person`` with ``portrait``, photographed phone-style."""
    from docauth.synth.documents import render_document

    identity = {k: v for k, v in person.items() if k in ("surname", "given_names", "date_of_birth", "nationality",
                                                          "sex", "document_number")}
    identity.update(expiry="2031-05-02", issuing_state=person.get("nationality", "UTO"))
    doc = render_document(kind, seed, identity=identity, portrait=portrait)
    if not captured:
        return doc.image
    from docauth.synth.capture import capture

    image, _ = capture(doc.image, np.random.default_rng(seed), style="phone")
    return image


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve_in_thread(app):
    """Real HTTP on loopback: a threaded Werkzeug server around ``app``; yields the base URL."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(5)
