"""Worker processes that die with the scanner that started them.

A ``docauth batch`` killed with SIGKILL cannot stop its pool: its workers (a loaded pipeline each, hundreds
of MB) would be adopted by init and live on. Each worker therefore asks Linux to SIGKILL it when its parent
dies (``prctl(PR_SET_PDEATHSIG)``) and, on any system, watches its parent id from a daemon thread.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
WATCH_INTERVAL_S = 0.5


def _set_parent_death_signal(sig: int) -> bool:
    """True when the kernel will send ``sig`` to this process as its parent exits (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return False
    return libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0


def _watch(parent_pid: int) -> None:
    while True:
        if os.getppid() != parent_pid:
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(WATCH_INTERVAL_S)


def die_with_parent(parent_pid: int) -> None:
    """Call first thing in a worker process: it ends when ``parent_pid`` (the process that started it) ends,
    including when the parent died before this call."""
    _set_parent_death_signal(signal.SIGKILL)
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=_watch, args=(parent_pid,), name="docauth-parent-watch", daemon=True).start()
