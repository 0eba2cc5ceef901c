"""What every engine shares: the backend spec and the runner shape."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np

from docauth.errors import ConfigError

PRECISIONS = ("fp32", "bf16", "tf32")  # tf32: CUDA matrix units' 10-bit mantissa, asked for by name only
OPENVINO_HINTS = ("LATENCY", "THROUGHPUT")


@dataclass(frozen=True)
class BackendSpec:
    """One way to run a model: engine name plus the knobs the tuner turns.

    Written as ``name[:key=value,...]``, e.g. ``onnxruntime:threads=1`` or
    ``openvino:precision=bf16,hint=THROUGHPUT``.

    >>> BackendSpec.parse("openvino:precision=bf16,threads=2").key
    'openvino:precision=bf16,threads=2'
    >>> BackendSpec.parse("onnxruntime").key
    'onnxruntime'
    """

    name: str
    threads: int | None = None
    precision: str = "fp32"
    hint: str | None = None  # OpenVINO performance hint; default follows the mode
    device: str | None = None
    stream_batch: int | None = None  # OpenVINO THROUGHPUT: rows per async request (None: split evenly)

    def __post_init__(self):
        if self.precision not in PRECISIONS:
            raise ConfigError(f"precision must be one of {PRECISIONS}, not {self.precision!r}")
        if self.hint is not None and self.hint not in OPENVINO_HINTS:
            raise ConfigError(f"hint must be one of {OPENVINO_HINTS}, not {self.hint!r}")
        if self.threads is not None and self.threads < 1:
            raise ConfigError(f"threads must be >= 1, not {self.threads}")
        if self.stream_batch is not None and self.stream_batch < 1:
            raise ConfigError(f"stream_batch must be >= 1, not {self.stream_batch}")

    @property
    def key(self) -> str:
        opts = []
        if self.device:
            opts.append(f"device={self.device}")
        if self.hint:
            opts.append(f"hint={self.hint}")
        if self.precision != "fp32":
            opts.append(f"precision={self.precision}")
        if self.threads:
            opts.append(f"threads={self.threads}")
        if self.stream_batch:
            opts.append(f"stream_batch={self.stream_batch}")
        return self.name + (":" + ",".join(opts) if opts else "")

    def __str__(self) -> str:
        return self.key

    def with_(self, **changes) -> "BackendSpec":
        return replace(self, **changes)

    def export(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None} | {"key": self.key}

    @classmethod
    def parse(cls, text: str) -> "BackendSpec":
        name, _, options = text.strip().partition(":")
        kwargs: dict = {}
        for item in filter(None, options.split(",")):
            key, sep, value = item.partition("=")
            if not sep:
                raise ConfigError(f"backend option {item!r} is not key=value (in {text!r})")
            key = key.strip()
            if key in ("threads", "stream_batch"):
                try:
                    kwargs[key] = int(value)
                except ValueError as exc:
                    raise ConfigError(f"{key} must be an integer, not {value!r}") from exc
            elif key in ("precision", "device"):
                kwargs[key] = value.strip()
            elif key == "hint":
                kwargs["hint"] = value.strip().upper()
            else:
                raise ConfigError(f"unknown backend option {key!r} (in {text!r})")
        return cls(name=name.strip(), **kwargs)

    @classmethod
    def from_export(cls, data: dict) -> "BackendSpec":
        return cls(**{k: v for k, v in data.items() if k in ("name", "threads", "precision", "hint", "device",
                                                                 "stream_batch")})


@dataclass
class Runner:
    """A model loaded on one engine. ``run`` must be safe to call from several threads."""

    backend: str
    run: Callable[[np.ndarray], np.ndarray]
    details: dict = field(default_factory=dict)
    close: Callable[[], None] = lambda: None


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def input_hwc(metadata: dict) -> tuple[int, int, int]:
    inp = metadata["input"]
    return int(inp["height"]), int(inp["width"]), int(inp.get("channels", 3))
