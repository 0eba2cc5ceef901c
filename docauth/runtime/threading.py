"""Intel's CPU threading recipe for TensorFlow, applied before TensorFlow is imported.

intra-op threads = physical cores, inter-op threads = sockets, ``OMP_NUM_THREADS``
= intra-op, ``KMP_BLOCKTIME=0`` (no spinning after a parallel region: cores are
handed back at once, which real-time mode wants), ``KMP_AFFINITY`` pinning.

OpenMP and TensorFlow read these once, when their thread pools start, so they
only count before ``import tensorflow``. :func:`apply_threading` therefore
records whether it was still in time. (Stock TensorFlow wheels use their own
Eigen pool and load no OpenMP runtime, so the OMP_/KMP_ variables matter only
with oneDNN-OpenMP builds such as intel-tensorflow; TF's own pools are set
through ``TF_NUM_*_THREADS`` and ``tf.config.threading``, which always count.)
"""

from __future__ import annotations

import os
import sys
from dataclasses import asdict, dataclass, field
from typing import MutableMapping

from docauth.runtime.probe import cpu_facts

KMP_AFFINITY = "granularity=fine,compact,1,0"
# A process's share of the cores when several processes split them (the batch scanner sets it for each worker):
# its models' thread pools are sized to the share, not to the whole machine, so the workers do not oversubscribe.
PROCESS_THREADS_ENV = "DOCAUTH_PROCESS_THREADS"


def process_threads() -> int:
    """Threads this process's models may use: its share (``DOCAUTH_PROCESS_THREADS``) when one is set, else
    every physical core; never more than the cores it can run on."""
    cores, _ = cpu_facts()
    share = process_share()
    return cores if share is None else min(share, cores)


def process_share() -> int | None:
    """The share of the cores set for this process, or None when it has the machine to itself."""
    value = os.environ.get(PROCESS_THREADS_ENV, "").strip()
    if not value:
        return None
    try:
        share = int(value)
    except ValueError:
        return None
    return share if share >= 1 else None


@dataclass(frozen=True)
class ThreadingPlan:
    intra_op: int
    inter_op: int
    omp_num_threads: int
    kmp_blocktime: int = 0
    kmp_affinity: str = KMP_AFFINITY

    def env(self) -> dict[str, str]:
        return {
            "OMP_NUM_THREADS": str(self.omp_num_threads),
            "KMP_BLOCKTIME": str(self.kmp_blocktime),
            "KMP_AFFINITY": self.kmp_affinity,
            "TF_NUM_INTRAOP_THREADS": str(self.intra_op),
            "TF_NUM_INTEROP_THREADS": str(self.inter_op),
        }


def plan_for(mode: str = "realtime", physical_cores: int | None = None, sockets: int | None = None) -> ThreadingPlan:
    """The plan for ``mode``: all physical cores for intra-op, one inter-op thread per socket.

    Real-time work is one small image at a time; beyond a few threads the
    fork/join cost outweighs the split, so real-time caps intra-op at 4.
    """
    if physical_cores is None or sockets is None:
        _, detected_sockets = cpu_facts()
        physical_cores = physical_cores or process_threads()
        sockets = sockets or detected_sockets
    intra = physical_cores if mode == "throughput" else min(physical_cores, 4)
    return ThreadingPlan(intra_op=intra, inter_op=max(sockets, 1), omp_num_threads=intra)


@dataclass
class ThreadingReport:
    plan: ThreadingPlan
    env_set: dict[str, str] = field(default_factory=dict)  # what we wrote
    env_kept: dict[str, str] = field(default_factory=dict)  # already set by the operator: theirs wins
    tensorflow_already_imported: bool = False
    tf_config_applied: bool | None = None  # None: not attempted yet
    notes: list[str] = field(default_factory=list)

    @property
    def in_time(self) -> bool:
        """True when the environment was in place before TensorFlow was imported."""
        return not self.tensorflow_already_imported

    def export(self) -> dict:
        out = asdict(self)
        out["in_time"] = self.in_time
        return out


_last_report: ThreadingReport | None = None


def apply_threading(plan: ThreadingPlan | None = None, *, mode: str = "realtime",
                    environ: MutableMapping[str, str] | None = None) -> ThreadingReport:
    """Put ``plan`` into the environment (operator-set variables are kept) and say if it was in time."""
    global _last_report
    plan = plan or plan_for(mode)
    environ = os.environ if environ is None else environ
    report = ThreadingReport(plan=plan, tensorflow_already_imported="tensorflow" in sys.modules)
    for key, value in plan.env().items():
        if key in environ and environ[key] != "":
            report.env_kept[key] = environ[key]
        else:
            environ[key] = value
            report.env_set[key] = value
    if report.tensorflow_already_imported:
        report.notes.append("TensorFlow was imported before the threading plan; environment variables come too late, "
                            "tf.config threading is attempted instead")
    _last_report = report
    return report


def configure_tensorflow(report: ThreadingReport) -> ThreadingReport:
    """Apply the plan through ``tf.config.threading`` (works until TF's runtime is initialised)."""
    import tensorflow as tf  # deferred on purpose: TensorFlow takes seconds to import

    plan = report.plan
    try:
        tf.config.threading.set_intra_op_parallelism_threads(plan.intra_op)
        tf.config.threading.set_inter_op_parallelism_threads(plan.inter_op)
        report.tf_config_applied = True
    except RuntimeError as exc:  # the runtime already started: pools are fixed for this process
        report.tf_config_applied = False
        report.notes.append(f"tf.config threading not applied: {exc}")
    return report


def last_report() -> ThreadingReport | None:
    return _last_report


def tensorflow_threads() -> dict[str, int]:
    """What TensorFlow will use (0 means TF's own default)."""
    import tensorflow as tf  # deferred on purpose: TensorFlow takes seconds to import

    return {
        "intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
        "inter_op": tf.config.threading.get_inter_op_parallelism_threads(),
    }
