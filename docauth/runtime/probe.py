"""What hardware and which inference frameworks this process can use.

CPU facts come from ``/proc`` and ``/sys`` (no framework import). Accelerators
are found through a :class:`DeviceDiscovery`, a bundle of small functions that
is *injectable*: tests pass a simulated discovery to exercise the GPU paths on
machines without a GPU. The default discovery is lazy and cheap: TensorFlow is
imported to list GPUs only when the kernel shows a GPU driver at all.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from docauth.runtime.ort_env import import_ort

# ISA features that matter for inference kernels, as /proc/cpuinfo spells them.
ISA_FLAGS = {
    "avx2": "avx2",
    "fma": "fma",
    "avx512f": "avx512f",
    "avx512_vnni": "avx512_vnni",
    "avx512_bf16": "avx512_bf16",
    "avx_vnni": "avx_vnni",
    "amx_tile": "amx_tile",
    "amx_bf16": "amx_bf16",
    "amx_int8": "amx_int8",
}

FRAMEWORK_DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu", "keras", "onnxruntime", "onnxruntime-gpu",
                           "onnxruntime-openvino", "openvino", "tf2onnx")


# --- device discovery (injectable) -----------------------------------------------------------
def _gpu_driver_present() -> bool:
    """A kernel-level hint that some GPU exists; avoids importing TensorFlow on CPU-only machines."""
    return any(Path(p).exists() for p in ("/dev/nvidiactl", "/proc/driver/nvidia/gpus", "/dev/kfd", "/dev/dxg"))


def discover_tf_gpus() -> list[str]:
    if "tensorflow" not in sys.modules and not _gpu_driver_present():
        return []
    if importlib.util.find_spec("tensorflow") is None:
        return []
    import tensorflow as tf  # deferred on purpose: TensorFlow takes seconds to import

    return [d.name for d in tf.config.list_physical_devices("GPU")]


def discover_ort_providers() -> list[str]:
    if importlib.util.find_spec("onnxruntime") is None:
        return []

    onnxruntime = import_ort()

    return list(onnxruntime.get_available_providers())


def discover_ort_gpus() -> list[str]:
    if importlib.util.find_spec("onnxruntime") is None:
        return []

    onnxruntime = import_ort()

    devices = []
    for ep_device in getattr(onnxruntime, "get_ep_devices", lambda: [])():
        if ep_device.device.type == onnxruntime.OrtHardwareDeviceType.GPU:
            devices.append(f"{ep_device.ep_name}:{ep_device.device.vendor}")
    return devices


def discover_openvino_devices() -> list[str]:
    if importlib.util.find_spec("openvino") is None:
        return []
    import openvino  # deferred on purpose: OpenVINO is optional and slow to import

    return list(openvino.Core().available_devices)


@dataclass(frozen=True)
class DeviceDiscovery:
    """How accelerators and providers are found. Replace fields to simulate hardware we lack."""

    tf_gpus: Callable[[], list[str]] = discover_tf_gpus
    ort_providers: Callable[[], list[str]] = discover_ort_providers
    ort_gpus: Callable[[], list[str]] = discover_ort_gpus
    openvino_devices: Callable[[], list[str]] = discover_openvino_devices


# --- CPU facts --------------------------------------------------------------------------------
def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _cpuinfo() -> tuple[str, set[str], float | None, int, int]:
    """Model name, flags, MHz, physical cores, sockets (from /proc/cpuinfo)."""
    model, flags, mhz = platform.processor() or platform.machine(), set(), None
    cores: set[tuple[str, str]] = set()
    sockets: set[str] = set()
    physical_id = core_id = None
    for line in _read("/proc/cpuinfo").splitlines() + [""]:
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "model name":
            model = value
        elif key == "flags" and not flags:
            flags = set(value.split())
        elif key == "cpu MHz" and mhz is None:
            try:
                mhz = float(value)
            except ValueError:
                pass
        elif key == "physical id":
            physical_id = value
            sockets.add(value)
        elif key == "core id":
            core_id = value
        elif not key:  # end of one processor block
            if physical_id is not None and core_id is not None:
                cores.add((physical_id, core_id))
            physical_id = core_id = None
    return model, flags, mhz, len(cores), len(sockets)


def _max_mhz() -> float | None:
    raw = _read("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq").strip()
    return int(raw) / 1000 if raw.isdigit() else None


def _memory_gib() -> float | None:
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            return round(int(line.split()[1]) / 1024 / 1024, 1)
    return None


def _versions() -> dict[str, str]:
    found = {}
    for dist in FRAMEWORK_DISTRIBUTIONS:
        try:
            found[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


@dataclass(frozen=True)
class HardwareProbe:
    cpu_model: str
    logical_cpus: int
    usable_cpus: int  # this process's affinity (containers, taskset)
    physical_cores: int  # usable physical cores
    sockets: int
    isa: dict[str, bool]
    cpu_mhz: float | None
    cpu_max_mhz: float | None
    memory_gib: float | None
    tf_gpus: list[str] = field(default_factory=list)
    ort_providers: list[str] = field(default_factory=list)
    ort_gpus: list[str] = field(default_factory=list)
    openvino_devices: list[str] = field(default_factory=list)
    framework_versions: dict[str, str] = field(default_factory=dict)
    python: str = field(default_factory=platform.python_version)

    @property
    def has_gpu(self) -> bool:
        return bool(self.tf_gpus or self.ort_gpus or any(d.startswith("GPU") for d in self.openvino_devices))

    @property
    def supports_bf16(self) -> bool:
        return self.isa.get("avx512_bf16", False) or self.isa.get("amx_bf16", False)

    def fingerprint(self) -> str:
        """Stable id of what decides inference speed here: CPU, cores, ISA, devices, framework versions."""
        key = {
            "cpu_model": self.cpu_model,
            "physical_cores": self.physical_cores,
            "usable_cpus": self.usable_cpus,
            "sockets": self.sockets,
            "isa": sorted(k for k, v in self.isa.items() if v),
            "tf_gpus": self.tf_gpus,
            "ort_providers": sorted(self.ort_providers),
            "openvino_devices": sorted(self.openvino_devices),
            "framework_versions": self.framework_versions,
        }
        return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]

    def export(self) -> dict:
        out = asdict(self)
        out["has_gpu"] = self.has_gpu
        out["supports_bf16"] = self.supports_bf16
        out["fingerprint"] = self.fingerprint()
        return out


def probe(discovery: DeviceDiscovery | None = None) -> HardwareProbe:
    """Probe now. With ``discovery=None`` the result is cached for the process (see :func:`cached_probe`)."""
    discovery = discovery or DeviceDiscovery()
    model, flags, mhz, physical, sockets = _cpuinfo()
    logical = os.cpu_count() or 1
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        usable = logical
    physical = physical or logical
    if physical > usable:  # affinity narrower than the socket: count what we may run on
        physical = usable
    return HardwareProbe(
        cpu_model=model,
        logical_cpus=logical,
        usable_cpus=usable,
        physical_cores=physical,
        sockets=max(sockets, 1),
        isa={name: flag in flags for name, flag in ISA_FLAGS.items()},
        cpu_mhz=mhz,
        cpu_max_mhz=_max_mhz(),
        memory_gib=_memory_gib(),
        tf_gpus=list(discovery.tf_gpus()),
        ort_providers=list(discovery.ort_providers()),
        ort_gpus=list(discovery.ort_gpus()),
        openvino_devices=list(discovery.openvino_devices()),
        framework_versions=_versions(),
    )


@functools.lru_cache(maxsize=1)
def cached_probe() -> HardwareProbe:
    return probe()


@functools.lru_cache(maxsize=1)
def _core_counts() -> tuple[int, int]:
    """(physical cores, sockets) from /proc/cpuinfo, read once: they do not change while a process runs."""
    _, _, _, physical, sockets = _cpuinfo()
    return physical, sockets


def cpu_facts() -> tuple[int, int]:
    """(physical cores, sockets) without discovering any device: cheap enough before importing TF, and to ask
    on every call."""
    physical, sockets = _core_counts()
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 1
    physical = min(physical or usable, usable)
    return max(physical, 1), max(sockets, 1)
