"""ONNX Runtime, imported with its usage telemetry off.

ONNX Runtime 1.31 keeps a telemetry store (``~/.cache/Microsoft/DeveloperTools/.onnxruntime/onnxruntime.db``
and a device id) open in every process that loads it; only ``ORT_DISABLE_TELEMETRY=1`` in the environment
*before the library loads* prevents that (``disable_telemetry_events()`` after import does not), so every
import of onnxruntime in docauth goes through :func:`import_ort`. An operator's own value of the variable is
kept. See docs/security.md.
"""

from __future__ import annotations

import os

TELEMETRY_ENV = "ORT_DISABLE_TELEMETRY"


def import_ort():
    """The ``onnxruntime`` module, its telemetry off when this is the first import in the process."""
    os.environ.setdefault(TELEMETRY_ENV, "1")
    import onnxruntime  # deferred on purpose: only after its environment variables are set

    disable = getattr(onnxruntime, "disable_telemetry_events", None)
    if disable is not None:
        disable()
    return onnxruntime
