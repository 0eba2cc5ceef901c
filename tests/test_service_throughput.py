"""Throughput mode's layout and its bounded queue: the gate that runs a worker's checks in turns (threads, no
server), then the real ``docauth serve --mode throughput`` (gunicorn, shipped models, loopback HTTP)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from docauth.errors import Overloaded
from docauth.service.ratelimit import ConcurrencyGate


def _hold(gate: ConcurrencyGate, inside: threading.Event, leave: threading.Event, running: list, peak: list):
    with gate:
        running.append(1)
        peak.append(len(running))
        inside.set()
        leave.wait(10)
        running.pop()


def test_gate_runs_its_turns_and_queues_the_rest_then_refuses():
    gate = ConcurrencyGate(3, running=1)
    leave = threading.Event()
    running, peak = [], []
    entered = [threading.Event() for _ in range(3)]
    threads = [threading.Thread(target=_hold, args=(gate, e, leave, running, peak)) for e in entered]
    threads[0].start()
    assert entered[0].wait(5)
    for t in threads[1:]:
        t.start()
    deadline = time.monotonic() + 5
    while gate.waiting < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert gate.waiting == 2  # admitted, waiting their turn
    assert not entered[1].is_set() and not entered[2].is_set()
    with pytest.raises(Overloaded):  # the queue is full: refused at once, not queued
        with gate:
            pass
    leave.set()
    for t in threads:
        t.join(10)
    assert all(e.is_set() for e in entered) and max(peak) == 1 and gate.waiting == 0
    with gate:  # every slot was given back
        pass


def test_gate_turn_wait_is_bounded_and_gives_the_slot_back():
    gate = ConcurrencyGate(2, running=1, max_wait_s=0.2)
    inside, leave = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold, args=(gate, inside, leave, [], []))
    holder.start()
    assert inside.wait(5)
    t0 = time.monotonic()
    with pytest.raises(Overloaded, match="waited"):
        with gate:
            pass
    assert 0.15 < time.monotonic() - t0 < 5
    leave.set()
    holder.join(10)
    with gate, pytest.raises(Overloaded):  # both admission slots free again: one taken here, one left
        with gate:
            with gate:
                pass


def test_realtime_gate_has_no_turns():
    gate = ConcurrencyGate(2)
    with gate:
        with gate:  # both run at once
            with pytest.raises(Overloaded):
                with gate:
                    pass


def test_workers_share_the_cores_in_both_modes_and_keep_an_operators_value():
    from docauth.config import Settings
    from docauth.runtime.probe import cpu_facts
    from docauth.service.server import default_workers, share_cores

    cores, _ = cpu_facts()
    assert default_workers("throughput") == min(2 * cores, 16)
    share = str(max(1, cores // 2))
    for mode in ("throughput", "realtime"):
        env = {}
        share_cores(Settings.load(environ={}, mode=mode), 2, environ=env)
        assert env == {"DOCAUTH_PROCESS_THREADS": share, "OPENCV_FOR_THREADS_NUM": share}, mode
    env = {"DOCAUTH_PROCESS_THREADS": "3", "OPENCV_FOR_THREADS_NUM": "5"}
    share_cores(Settings.load(environ={}, mode="throughput"), 2, environ=env)
    assert env == {"DOCAUTH_PROCESS_THREADS": "3", "OPENCV_FOR_THREADS_NUM": "5"}
    env = {}
    share_cores(Settings.load(environ={}, mode="realtime"), 1, environ=env)  # the kiosk: every core
    assert env == {"DOCAUTH_PROCESS_THREADS": str(cores), "OPENCV_FOR_THREADS_NUM": str(cores)}


# -- the real server ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def throughput_server():
    from http_server import DocauthServer

    # Default workers and threads for the mode; two checks admitted per worker, one running, so a burst
    # overflows the queue. The ONNX Runtime backend, so its sessions' thread counts can be read back.
    env = {"DOCAUTH_BACKEND": "onnxruntime", "DOCAUTH_MAX_INFLIGHT_CHECKS": "2", "DOCAUTH_RUNNING_CHECKS": "1",
           "DOCAUTH_RATE_LIMIT_PER_MINUTE": "0"}
    with DocauthServer(workers=None, threads=None, mode="throughput", env=env, ready_timeout=300) as srv:
        yield srv


def test_throughput_serves_two_processes_per_core_each_on_its_share(throughput_server):
    import psutil

    from docauth.runtime.probe import cpu_facts

    cores, _ = cpu_facts()
    workers = [psutil.Process(pid) for pid in throughput_server.worker_pids()]
    assert len(workers) == min(2 * cores, 16)
    r = throughput_server.get("/v1/runtime")  # one worker answers; its models' thread pools are its share
    assert r.status_code == 200, r.text
    stages = r.json()["stages"]
    threads = {m["name"]: m["details"].get("intra_op_threads") for s in ("classifier", "reader")
               for m in stages[s]["models"]}
    assert set(threads.values()) == {max(1, cores // len(workers))}, threads
    # Callers' classifier calls meet in a batcher; the reader's models, whose inputs differ in shape between
    # callers, run unbatched.
    assert any("batching" in m for m in stages["classifier"]["models"]) or "batching" in stages["classifier"]
    assert not any("batching" in m for m in stages["reader"]["models"])


def test_throughput_burst_gets_answers_or_a_clear_503(throughput_server):
    import requests

    from docauth.imageio import encode_jpeg
    from pipeline_support import ASTRONAUT_PERSON, astronaut_portrait, document_of

    # A card photo: every stage runs, so a check holds its worker long enough for a burst to queue.
    photo = encode_jpeg(document_of(ASTRONAUT_PERSON, astronaut_portrait(), seed=3, kind="td1_front"), 90)

    def check(_):  # a connection each, as separate clients
        r = requests.post(throughput_server.url + "/v1/checks", headers=throughput_server.headers(),
                          files={"image": ("card.jpg", photo)}, timeout=120)
        return r.status_code, r.headers.get("Retry-After"), r.json()

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(check, range(16)))
    statuses = [a[0] for a in answers]
    assert set(statuses) <= {200, 503}, answers
    assert statuses.count(200) >= 2, statuses
    refused = [a for a in answers if a[0] == 503]
    assert refused, statuses  # 16 at once overflow 2 admitted per worker (4 workers on 2 cores)
    assert all(a[1] and a[2]["error"]["code"] == "overloaded" for a in refused), refused
    assert all("decision" in a[2] for a in answers if a[0] == 200)
    assert check(0)[0] == 200  # and it serves again afterwards
