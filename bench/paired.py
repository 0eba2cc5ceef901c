"""Two checkouts measured in one run: each in its own process (its code by PYTHONPATH), fed the same keys in turn.

A bench script that compares builds starts itself with ``--serve`` in each checkout; the parent writes one JSON
key a line to both children, alternating which goes first, and reads one JSON reply a line from each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def start(script: str, root: Path, *args: str) -> subprocess.Popen:
    """``script --serve *args`` with ``root``'s docauth, on one thread unless OMP_THREAD_LIMIT says otherwise."""
    env = dict(os.environ, PYTHONPATH=str(root), OMP_THREAD_LIMIT=os.environ.get("OMP_THREAD_LIMIT", "1"))
    proc = subprocess.Popen([sys.executable, script, "--serve", *args], cwd=root, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    proc.ready = reply(proc)  # the child says it is ready, with what it has to say about itself
    return proc


def reply(proc: subprocess.Popen) -> dict:
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"a checkout's process stopped (exit {proc.wait()})")
        if line.startswith("{"):  # a library may print other lines
            return json.loads(line)


def ask_in_turn(procs: dict[str, subprocess.Popen], key, n: int) -> dict[str, dict]:
    """Send ``key`` to every process, the first on even ``n`` and the last on odd, so neither always goes first."""
    names = list(procs) if n % 2 == 0 else list(procs)[::-1]
    out = {}
    for name in names:
        procs[name].stdin.write(json.dumps(key) + "\n")
        procs[name].stdin.flush()
        out[name] = reply(procs[name])
    return {name: out[name] for name in procs}


def stop(procs: dict[str, subprocess.Popen]) -> None:
    for proc in procs.values():
        proc.stdin.close()
        proc.wait()


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
