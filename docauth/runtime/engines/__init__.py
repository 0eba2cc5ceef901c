"""Backend engines, one module per framework; each imports its framework only inside ``load``.

Every engine's ``load(spec, paths, metadata, mode) -> Runner`` returns an object
with ``run(batch float32 NHWC) -> probabilities`` and ``close()``.
"""
