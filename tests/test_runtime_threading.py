"""The Intel threading plan reaches TensorFlow only when applied before its import (fresh processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from docauth.runtime.threading import ThreadingPlan, apply_threading, plan_for

PLAN_KEYS = ("OMP_NUM_THREADS", "KMP_BLOCKTIME", "KMP_AFFINITY", "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS")


def run_child(code: str, extra_env: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in PLAN_KEYS}
    env.update(extra_env or {})
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


CHILD = """
import json, os, sys
{before}
from docauth.runtime.engines.keras_tf import ensure_threading
report = ensure_threading("realtime")
import tensorflow as tf
print(json.dumps({{
    "in_time": report.in_time,
    "tf_config_applied": report.tf_config_applied,
    "env": {{k: os.environ.get(k) for k in {keys!r}}},
    "intra": tf.config.threading.get_intra_op_parallelism_threads(),
    "inter": tf.config.threading.get_inter_op_parallelism_threads(),
    "plan": [report.plan.intra_op, report.plan.inter_op],
    "kept": report.env_kept,
}}))
"""


def test_plan_applied_before_tensorflow_import():
    out = run_child(CHILD.format(before="assert 'tensorflow' not in sys.modules", keys=PLAN_KEYS))
    intra, inter = out["plan"]
    assert out["in_time"] is True and out["tf_config_applied"] is True
    assert out["env"]["KMP_BLOCKTIME"] == "0"
    assert out["env"]["OMP_NUM_THREADS"] == str(intra)
    assert out["env"]["TF_NUM_INTRAOP_THREADS"] == str(intra)
    assert out["env"]["KMP_AFFINITY"].startswith("granularity=fine")
    assert (out["intra"], out["inter"]) == (intra, inter)


def test_late_application_is_recorded_and_operator_env_wins():
    code = CHILD.format(before="import tensorflow as tf; tf.constant(1.0) + 1", keys=PLAN_KEYS)
    out = run_child(code, {"KMP_BLOCKTIME": "5"})
    assert out["in_time"] is False
    assert out["tf_config_applied"] is False  # TF's runtime had started: pools are fixed
    assert out["kept"] == {"KMP_BLOCKTIME": "5"} and out["env"]["KMP_BLOCKTIME"] == "5"


def test_plan_follows_cores_sockets_and_mode():
    assert plan_for("throughput", physical_cores=16, sockets=2) == ThreadingPlan(16, 2, 16)
    assert plan_for("realtime", physical_cores=16, sockets=2).intra_op == 4  # few threads for batch 1
    assert plan_for("realtime", physical_cores=2, sockets=1) == ThreadingPlan(2, 1, 2)
    env: dict = {"OMP_NUM_THREADS": "7"}
    report = apply_threading(ThreadingPlan(2, 1, 2), environ=env)
    assert env["OMP_NUM_THREADS"] == "7" and env["KMP_BLOCKTIME"] == "0"
    assert report.env_kept == {"OMP_NUM_THREADS": "7"}
