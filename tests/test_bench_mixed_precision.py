"""bench/mixed_precision.py: plans parse or are refused, a cut model computes what the whole one does, and a
bf16 segment runs in bf16 while the fp32 one beside it does not (on a CPU with bf16 only)."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import mixed_precision  # noqa: E402  (bench/mixed_precision.py: standard library and numpy at import)

RECOGNIZER = ROOT / "models" / "text_recognizer.onnx"
SHAPE = [-1, 3, 48, -1]
CUT = "p2o.Conv.33"  # the recogniser's first layer after its convolutional backbone

needs_openvino = pytest.mark.skipif(importlib.util.find_spec("openvino") is None or not RECOGNIZER.is_file(),
                                    reason="OpenVINO or the recogniser model missing")


def test_plans_parse_and_malformed_ones_are_refused():
    assert mixed_precision.parse_plan("@bf16|p2o.Conv.33@fp32") == [(None, "bf16"), ("p2o.Conv.33", "f32")]
    for bad in ("bf16", "@int4", "p2o.Conv.33@bf16", "@bf16|@f32"):
        with pytest.raises(ValueError):
            mixed_precision.parse_plan(bad)


def test_greedy_reads_merge_repeats_and_drop_blanks():
    frames = np.zeros((1, 7, 4), np.float32)
    for t, cls in enumerate([0, 2, 2, 0, 2, 3, 3]):
        frames[0, t, cls] = 1.0
    assert mixed_precision.greedy_reads(frames) == [(2, 2, 3)]


def _inputs(width=320, count=3):
    from docauth.runtime.inputs import sample_inputs

    x = sample_inputs((48, width, 3), count, seed=5, text_lines=1)
    return np.ascontiguousarray((x / 127.5 - 1).transpose(0, 3, 1, 2).astype(np.float32))


@needs_openvino
def test_a_model_cut_in_two_fp32_parts_answers_as_the_whole_model():
    whole, _ = mixed_precision.compile_plan(mixed_precision.parse_plan("@f32"), RECOGNIZER, SHAPE)
    cut, compiled = mixed_precision.compile_plan(mixed_precision.parse_plan(f"@f32|{CUT}@f32"), RECOGNIZER, SHAPE)
    assert len(compiled) == 2
    for width in (160, 480):
        x = _inputs(width)
        assert np.abs(cut(x) - whole(x)).max() < 1e-4


@needs_openvino
def test_a_cut_at_an_unknown_op_is_refused():
    with pytest.raises(ValueError, match="no op named"):
        mixed_precision.compile_plan(mixed_precision.parse_plan("@bf16|p2o.NoSuchOp@f32"), RECOGNIZER, SHAPE)


@needs_openvino
def test_the_bf16_part_runs_in_bf16_and_the_fp32_part_does_not():
    from docauth.runtime.probe import cached_probe

    if not cached_probe().supports_bf16:
        pytest.skip("this CPU has neither AVX512_BF16 nor AMX")
    _, (body, tail) = mixed_precision.compile_plan(mixed_precision.parse_plan(f"@bf16|{CUT}@f32"), RECOGNIZER,
                                                   SHAPE)
    assert "bf16" in mixed_precision.runtime_precisions(body)["Convolution"]
    tail_precisions = set().union(*mixed_precision.runtime_precisions(tail).values())
    assert "bf16" not in tail_precisions
