"""The face stage in a child process, for realtime checks.

Why a process: dlib's face encoder (the shape predictor and ResNet behind
``face_recognition.face_encodings``) holds Python's GIL for its whole call.
Measured here, a pure-Python loop that takes 123 ms alone took 4,989 ms beside
a thread encoding faces, and OCR beside the concurrent portrait search took
790 ms instead of 354 ms. In a child process the portrait search and OCR run
truly side by side.

The child is a fresh interpreter (``python -m docauth.pipeline.face_process``),
not a fork (TensorFlow's threads do not survive one) and not a
``multiprocessing`` spawn (that re-imports the caller's main script, which
breaks scripts without a ``__main__`` guard). It loads dlib once, serves one
call at a time over its stdin/stdout (length-prefixed pickles between our own
two processes), and exits when its parent dies.

Throughput mode and the batch scanner keep the in-process stage: there the
request threads or worker processes already fill the cores.
"""

from __future__ import annotations

import os
import pickle
import struct
import subprocess
import sys
import threading
import time

import numpy as np

from docauth import errors
from docauth.errors import DocauthError, Unavailable
from docauth.pipeline.stages import FaceStage

_HEADER = struct.Struct(">Q")


def _send(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def _receive(stream):
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError("the other side closed the pipe")
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the other side closed the pipe mid-message")
    return pickle.loads(data)


# -- the child -------------------------------------------------------------------------------------
def _exit_with_parent(parent_pid: int) -> None:
    # A SIGKILLed parent (a gunicorn worker killed mid-request) cannot stop its child: go with it.
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(0)


def serve(parent_pid: int, requests=None, replies=None) -> None:
    """The child's loop: ("encode", image, upsampled, large) or ("enrol", image) -> a reply tuple."""
    if replies is None:
        # The reply channel is a private copy of stdout; anything printed (by dlib or a library) goes to stderr.
        replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    requests = requests or sys.stdin.buffer
    threading.Thread(target=_exit_with_parent, args=(parent_pid,), daemon=True, name="docauth-face-watchdog").start()
    stage = FaceStage.load()
    _send(replies, ("ready",))
    while True:
        try:
            request = _receive(requests)
        except EOFError:
            return
        kind, image, *options = request
        try:
            if kind == "encode":
                upsampled, large = options
                reply = ("ok", stage.encode(image, upsampled=upsampled, large=large))
            else:
                reply = ("ok", stage.encode_enrolment(image))
        except DocauthError as exc:  # input errors cross back as data, with their code
            reply = ("error", type(exc).__name__, exc.code, exc.message, exc.details)
        _send(replies, reply)


# -- the parent ------------------------------------------------------------------------------------
class FaceProcessStage:
    """The :class:`~docauth.pipeline.stages.FaceStage` interface with dlib's work in one child process
    (calls are served one at a time, as dlib needs). Distances are plain numpy and stay here."""

    START_TIMEOUT_S = 120.0

    def __init__(self):
        from docauth.matching.face import face_distance

        self._distance = face_distance
        self._child: subprocess.Popen | None = None
        self._lock = threading.Lock()

    @classmethod
    def load(cls, settings=None) -> "FaceProcessStage":
        stage = cls()
        with stage._lock:
            stage._start()
        return stage

    def _start(self) -> None:
        if self._child is not None and self._child.poll() is None:
            return
        # Logs and dlib's own messages go to the parent's stderr; stdout is the reply channel.
        self._child = subprocess.Popen(
            [sys.executable, "-m", "docauth.pipeline.face_process", str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True)
        try:
            greeting = _receive(self._child.stdout)
        except EOFError as exc:
            self._stop()
            raise Unavailable("the face process did not start (see the log above)",
                               code="face_process_failed") from exc
        if greeting != ("ready",):
            self._stop()
            raise Unavailable(f"the face process answered {greeting!r} at start", code="face_process_failed")

    def _stop(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        for stream in (child.stdin, child.stdout):
            try:
                stream.close()
            except OSError:
                pass  # the pipe is already broken: nothing to flush
        try:
            child.wait(10)  # EOF on its stdin ends its loop
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()

    def _call(self, request: tuple):
        with self._lock:
            self._start()
            try:
                _send(self._child.stdin, request)
                reply = _receive(self._child.stdout)
            except (BrokenPipeError, EOFError, OSError) as exc:
                self._stop()  # the next call starts a new child
                raise Unavailable("the face process stopped; it is restarted on the next request",
                                   code="face_process_failed") from exc
        if reply[0] == "error":
            _tag, kind, code, message, details = reply
            error = getattr(errors, kind, None)
            if not (isinstance(error, type) and issubclass(error, DocauthError)):
                error = DocauthError
            raise error(message, code=code, details=details)
        return reply[1]

    def encode(self, image: np.ndarray, *, upsampled: bool = True, large: bool = True):
        return self._call(("encode", np.ascontiguousarray(image), upsampled, large))

    def encode_enrolment(self, image: np.ndarray) -> np.ndarray:
        return self._call(("enrol", np.ascontiguousarray(image)))

    distance = FaceStage.distance  # numpy over self._distance

    def close(self) -> None:
        with self._lock:
            self._stop()


if __name__ == "__main__":
    serve(int(sys.argv[1]))
