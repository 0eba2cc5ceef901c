"""The Ray engine: the same :func:`~docauth.batch.chunk.scan_chunk` in Ray Data actors.

``map_batches`` runs a pool of actors, each holding one loaded pipeline (models
load once per actor, not per batch); the driver receives finished records and
appends them to the results file, so resume works exactly as with the local
engine. Local Ray by default; ``--ray-address`` joins an existing cluster,
whose nodes must see the same input paths (a shared filesystem).

Each actor reserves its share of the cores that the CPU probe finds here (``cores // workers``, at least one)
and sizes its thread pools to it, as the local engine's workers do (:mod:`docauth.batch.worker_threads`);
on a cluster the nodes are taken to be like this machine.
"""

from __future__ import annotations

import json
from typing import Iterator

from docauth.batch.chunk import load_pipeline, scan_chunk
from docauth.batch.worker_threads import limit_this_process, thread_environment, worker_share
from docauth.config import Settings
from docauth.runtime.probe import cpu_facts
from docauth.errors import ConfigError


class PipelineActor:
    """Ray Data callable class: loads the pipeline once, then scans batches of paths."""

    def __init__(self, settings: Settings, factory: str | None = None, share: int = 1):
        limit_this_process(share)
        self.settings = settings
        self.pipeline = load_pipeline(settings, factory)

    def __call__(self, batch: dict) -> dict:
        paths = [str(p) for p in batch["path"]]
        records = scan_chunk(self.pipeline, paths, self.settings)
        # Records travel as JSON text: their nested, ragged shape is not a table.
        return {"path": paths, "line": [json.dumps(r, ensure_ascii=False, allow_nan=False) for r in records]}


def run_ray(todo: list[str], settings: Settings, *, workers: int, chunk: int,
            address: str | None = None, factory: str | None = None) -> Iterator[list[dict]]:
    if not todo:
        return
    try:
        import ray  # deferred on purpose: Ray is an optional extra and takes seconds to import
    except ImportError as exc:
        raise ConfigError("the Ray engine needs `ray[data]` (see requirements/extra.txt)") from exc

    workers = max(workers, 1)
    share = worker_share(workers)
    started_here = False
    if not ray.is_initialized():
        # The actors' processes start with their thread pools sized to the share (read when each library loads).
        runtime_env = {"env_vars": {**thread_environment(share), "TF_CPP_MIN_LOG_LEVEL": "2"}}
        if address:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, runtime_env=runtime_env)
        else:
            ray.init(num_cpus=max(cpu_facts()[0], workers * share), include_dashboard=False, log_to_driver=False,
                     object_store_memory=256 * 1024 * 1024, runtime_env=runtime_env)
        started_here = True
    try:
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        ctx.execution_options.preserve_order = False
        ds = ray.data.from_items([{"path": p} for p in todo], override_num_blocks=max(1, len(todo) // chunk))
        ds = ds.map_batches(PipelineActor, fn_constructor_kwargs={"settings": settings, "factory": factory,
                                                                  "share": share},
                            batch_size=chunk, concurrency=workers, num_cpus=share, batch_format="numpy")
        buffer: list[dict] = []
        for row in ds.iter_rows():
            buffer.append(json.loads(row["line"]))
            if len(buffer) >= chunk:
                yield buffer
                buffer = []
        if buffer:
            yield buffer
    finally:
        if started_here:
            ray.shutdown()
