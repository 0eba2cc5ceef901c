"""The face stage in a child process, for realtime checks.

Why a process: dlib's face encoder (the shape predictor and ResNet behind
``face_recognition.face_encodings``) holds Python's GIL for its whole call.
Measured here, a pure-Python loop that takes 123 ms alone took 4,989 ms beside
a thread encoding faces, and OCR beside the concurrent portrait search took
790 ms instead of 354 ms. In a child process the portrait search and OCR run
truly side by side. The child is started with ``spawn`` (nothing forked from a
process holding TensorFlow's threads), loads dlib once, and exits when its
parent dies.

Throughput mode and the batch scanner keep the in-process stage: there the
request threads or worker processes already fill the cores.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import numpy as np

from docauth.errors import DocauthError, InputError
from docauth.pipeline.stages import FaceStage

# -- in the child ----------------------------------------------------------------------------------
_stage = None


def _start_child(parent_pid: int) -> None:
    global _stage
    _stage = FaceStage.load()
    threading.Thread(target=_exit_with_parent, args=(parent_pid,), daemon=True, name="docauth-face-watchdog").start()


def _exit_with_parent(parent_pid: int) -> None:
    # A SIGKILLed parent (a gunicorn worker killed mid-request) cannot shut its pool down: go with it.
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(0)


def _encode_in_child(image: np.ndarray, upsampled: bool, large: bool):
    return _stage.encode(image, upsampled=upsampled, large=large)


def _enrolment_in_child(image: np.ndarray):
    """("ok", encoding) or ("error", code, message, details): errors cross back as data, with their code."""
    try:
        return ("ok", _stage.encode_enrolment(image))
    except InputError as exc:
        return ("error", exc.code, exc.message, exc.details)


# -- in the parent ---------------------------------------------------------------------------------
class FaceProcessStage:
    """The :class:`~docauth.pipeline.stages.FaceStage` interface, with dlib's work done in one child process
    (calls queue there one at a time, as dlib needs). Distances are plain numpy and stay here."""

    def __init__(self):
        from docauth.matching.face import face_distance

        self._distance = face_distance
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    @classmethod
    def load(cls, settings=None) -> "FaceProcessStage":
        stage = cls()
        stage.start()
        return stage

    def start(self) -> None:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_start_child, initargs=(os.getpid(),))

    def _call(self, fn, *args):
        self.start()
        try:
            return self._pool.submit(fn, *args).result()
        except BrokenProcessPool as exc:
            with self._lock:
                self._pool = None  # the next call starts a new child
            raise DocauthError("the face process stopped; it is restarted on the next request",
                               code="face_process_failed") from exc

    def encode(self, image: np.ndarray, *, upsampled: bool = True, large: bool = True):
        return self._call(_encode_in_child, np.ascontiguousarray(image), upsampled, large)

    def encode_enrolment(self, image: np.ndarray) -> np.ndarray:
        out = self._call(_enrolment_in_child, np.ascontiguousarray(image))
        if out[0] == "error":
            _tag, code, message, details = out
            raise InputError(message, code=code, details=details)
        return out[1]

    distance = FaceStage.distance  # numpy over self._distance

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
