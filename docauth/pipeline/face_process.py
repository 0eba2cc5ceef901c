"""The face stage in a child process, for realtime checks.

Why a process: dlib's HOG detector and shape predictor hold Python's GIL for
their whole call, so in a thread they stall OCR beside it (the descriptor
network runs on the runtime layer, which releases it). In a child process the portrait search and
OCR run truly side by side (the measurements are in docs/benchmarks.md).

The child is a fresh interpreter (``python -m docauth.pipeline.face_child``),
not a fork (TensorFlow's threads do not survive one) and not a
``multiprocessing`` spawn (that re-imports the caller's main script, which
breaks scripts without a ``__main__`` guard). It loads dlib once, serves one
call at a time over its stdin/stdout (length-prefixed pickles between our own
two processes), and exits when its parent dies. Two children by default: the
last two portrait searches of a hard photo run at once, and two concurrent
requests of a service worker do not queue for one.

Throughput mode and the batch scanner keep the in-process stage: there the
request threads or worker processes already fill the cores.
"""

from __future__ import annotations

import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

import docauth
from docauth.errors import DocauthError, Unavailable
from docauth.matching.face import face_distance
from docauth.pipeline.faces import FaceStage

_HEADER = struct.Struct(">Q")


def _error_classes(cls: type[DocauthError]) -> dict[str, type[DocauthError]]:
    out = {cls.__name__: cls}
    for sub in cls.__subclasses__():
        out.update(_error_classes(sub))
    return out


# The child names an error by its class; the parent raises the same class (any other name: DocauthError).
_ERRORS = _error_classes(DocauthError)


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


def _error_reply(exc: DocauthError) -> tuple:
    return ("error", type(exc).__name__, exc.code, exc.message, exc.details)


def _raise_reply(reply: tuple):
    _tag, kind, code, message, details = reply
    raise _ERRORS.get(kind, DocauthError)(message, code=code, details=details)


# -- the child -------------------------------------------------------------------------------------
def _exit_with_parent(parent_pid: int) -> None:
    # A SIGKILLed parent (a gunicorn worker killed mid-request) cannot stop its child: go with it.
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(0)


def serve(parent_pid: int, requests=None, replies=None) -> None:
    """The child's loop: ("encode", image, upsampled, large, regions, closer) or ("enrol", image) -> a reply tuple."""
    if replies is None:
        # The reply channel is a private copy of stdout; anything printed (by dlib or a library) goes to stderr.
        replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    requests = requests or sys.stdin.buffer
    threading.Thread(target=_exit_with_parent, args=(parent_pid,), daemon=True, name="docauth-face-watchdog").start()
    try:
        stage = FaceStage.load()
        greeting = ("ready",)
    except DocauthError as exc:  # a missing or corrupt model file: the parent raises it, no traceback here
        stage, greeting = None, _error_reply(exc)
    try:
        _send(replies, greeting)
    except BrokenPipeError:  # the parent stopped us while dlib loaded (its own start failed): nothing to say
        return
    if stage is None:
        return
    while True:
        try:
            request = _receive(requests)
        except EOFError:
            return
        kind, image, *options = request
        try:
            if kind == "encode":
                upsampled, large, regions, closer = options
                reply = ("ok", stage.encode(image, upsampled=upsampled, large=large, regions=regions, closer=closer))
            else:
                reply = ("ok", stage.encode_enrolment(image))
        except DocauthError as exc:  # input errors cross back as data, with their code
            reply = _error_reply(exc)
        try:
            _send(replies, reply)
        except BrokenPipeError:  # the parent went away mid-call
            return


# -- the parent ---------------------------------------------------------------------------------
class _Child:
    """One face process: started on demand, restarted after it dies."""

    def __init__(self):
        self.proc: subprocess.Popen | None = None
        self.greeted = False  # its "ready" was read: dlib is loaded

    def launch(self) -> None:
        """Start the child (it loads dlib on its own) without waiting for it."""
        if self.proc is not None and self.proc.poll() is None:
            return
        # Logs and dlib's own messages go to the parent's stderr; stdout is the reply channel. The child finds
        # this docauth even when the parent imported it from a checkout rather than an installed package.
        env = dict(os.environ)
        source_root = str(Path(docauth.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (source_root, env.get("PYTHONPATH", "")) if p)
        self.greeted = False
        # -P: ``-m`` would put the working folder first on the child's path, so a kiosk started inside another
        # checkout would run that checkout's face stage.
        self.proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "docauth.pipeline.face_child", str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True, env=env)

    def start(self) -> None:
        """Started and ready (dlib loaded): launched now if it is not running, then its greeting awaited."""
        self.launch()
        if self.greeted:
            return
        try:
            greeting = _receive(self.proc.stdout)
        except EOFError as exc:
            self.stop()
            raise Unavailable("the face process did not start (see the log above)",
                              code="face_process_failed") from exc
        if greeting != ("ready",):
            self.stop()
            if isinstance(greeting, tuple) and greeting[:1] == ("error",):
                _raise_reply(greeting)  # the child could not load a model: the same error here
            raise Unavailable(f"the face process answered {greeting!r} at start", code="face_process_failed")
        self.greeted = True

    def call(self, request: tuple):
        self.start()
        try:
            _send(self.proc.stdin, request)
            return _receive(self.proc.stdout)
        except (BrokenPipeError, EOFError, OSError) as exc:
            self.stop()  # the next call starts a new one
            raise Unavailable("the face process stopped; it is restarted on the next request",
                              code="face_process_failed") from exc

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass  # the pipe is already broken: nothing to flush
        try:
            proc.wait(10)  # EOF on its stdin ends its loop
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class FaceProcessStage:
    """The :class:`~docauth.pipeline.faces.FaceStage` interface with dlib's work in child processes, each
    serving one call at a time (as dlib needs); ``children`` calls run at once. Distances are plain numpy
    and stay here."""

    def __init__(self, children: int = 2):
        self._distance = face_distance
        self._children = [_Child() for _ in range(max(1, children))]
        self._idle: queue.SimpleQueue = queue.SimpleQueue()
        for child in self._children:
            self._idle.put(child)

    @property
    def concurrent_calls(self) -> int:
        return len(self._children)

    @classmethod
    def load(cls, settings=None, *, children: int = 2, wait: bool = True) -> "FaceProcessStage":
        """The stage with its children started, all at once (each loads dlib for seconds, side by side).
        ``wait=False`` returns while they load (the caller loads other models meanwhile); then
        :meth:`wait_started` before the first request."""
        stage = cls(children)
        for child in stage._children:
            child.launch()
        if wait:
            stage.wait_started()
        return stage

    def wait_started(self) -> None:
        """Every child ready (dlib loaded), so that no request pays for a start."""
        for child in self._children:
            child.start()

    def _call(self, request: tuple):
        child = self._idle.get()
        try:
            reply = child.call(request)
        finally:
            self._idle.put(child)
        if reply[0] == "error":
            _raise_reply(reply)
        return reply[1]

    def encode(self, image: np.ndarray, *, upsampled: bool = True, large: bool = True, regions=None,
               closer: bool = False):
        return self._call(("encode", np.ascontiguousarray(image), upsampled, large, regions, closer))

    def encode_enrolment(self, image: np.ndarray) -> np.ndarray:
        return self._call(("enrol", np.ascontiguousarray(image)))

    distance = FaceStage.distance  # numpy over self._distance

    def close(self) -> None:
        for child in self._children:
            child.stop()
