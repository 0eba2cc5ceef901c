"""Training the MRZ line recogniser: its augmentation, growing a trained model, the strip cache, the command."""

from __future__ import annotations

import json

import numpy as np
import pytest

from docauth.ocr.mrz.finder import LINE_H, LINE_W


def test_training_degrades_strips_like_the_readers_misses():
    """The recogniser's training augmentation lowers resolution and blurs: sharp glyph edges get softer."""
    tf = pytest.importorskip("tensorflow")
    from docauth.training.line_model import degrade

    tf.random.set_seed(3)
    strips = np.zeros((4, 32, 768, 1), np.float32)
    strips[:, 8:24, ::12] = 1.0  # thin vertical strokes
    kept = degrade(tf.constant(strips), 0.0).numpy()
    assert np.array_equal(kept, strips)
    changed = degrade(tf.constant(strips), 1.0).numpy()
    assert changed.shape == strips.shape and 0.0 <= changed.min() and changed.max() <= 1.0
    edge = lambda a: np.abs(np.diff(a, axis=2)).mean()  # noqa: E731
    assert edge(changed) < 0.8 * edge(strips)
    assert changed.sum() == pytest.approx(strips.sum(), rel=0.15)  # ink is spread, not lost


def test_a_recogniser_grown_with_more_context_starts_reading_as_its_source():
    """More mixing layers (build_model's ``context``) start from a trained model: every layer the source has is
    taken over, the new residual branches add nothing, so the grown model gives the source's probabilities."""
    pytest.importorskip("tensorflow")
    from docauth.ocr.mrz.line_model import build_model
    from docauth.training.line_model import init_from

    _, source = build_model(context=(1, 2))
    rng = np.random.default_rng(5)
    for layer in source.layers:  # away from any initialiser, so a layer left untaken shows
        layer.set_weights([rng.normal(0, 0.2, w.shape).astype(np.float32) + (w if w.ndim == 1 else 0)
                           for w in layer.get_weights()])
    _, grown = build_model(context=(1, 2, 4, 8))
    init_from(grown, source, log=lambda *_: None)
    strips = rng.random((2, 32, 768, 1)).astype(np.float32)
    assert np.allclose(grown.predict(strips, verbose=0), source.predict(strips, verbose=0), atol=1e-5)
    _, fresh = build_model(context=(1, 2, 4, 8))
    assert not np.allclose(fresh.predict(strips, verbose=0), source.predict(strips, verbose=0), atol=1e-3)


def test_a_strip_cache_is_extended_with_more_captures(tmp_path):
    from docauth.training.line_model import extend_strip_cache

    source, target = tmp_path / "small.npz", tmp_path / "more.npz"
    x = np.zeros((2, LINE_H, LINE_W), np.uint8)
    y = np.zeros((2, 44), np.int32)
    np.savez(source, x=x, y=y, xv=x[:1], yv=y[:1], info=json.dumps({"blocks": 2}))
    info = extend_strip_cache(source, target, captures=2, start=5)
    with np.load(target) as data:
        assert len(data["x"]) == len(data["y"]) == 2 + info["more_captures"]["strips"]
        assert info["more_captures"]["strips"] >= 2  # a card back's 3 lines or a passport's 2, each found
        assert len(data["xv"]) == 1  # the validation strips are left as they were
        assert (data["y"][2:] > 0).any(axis=1).all()  # every added strip carries its line's text
        assert json.loads(str(data["info"]))["more_captures"]["start"] == 5


def test_extending_an_extended_cache_keeps_the_chain_in_the_recipe(tmp_path):
    from docauth.training.line_model import _extension_recipe, extend_strip_cache

    first, second, third = tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "c.npz"
    x = np.zeros((1, LINE_H, LINE_W), np.uint8)
    y = np.zeros((1, 44), np.int32)
    np.savez(first, x=x, y=y, xv=x, yv=y, info=json.dumps({"blocks": 1}))
    extend_strip_cache(first, second, captures=1, start=3)
    info = extend_strip_cache(second, third, captures=1, start=4)
    recipe = _extension_recipe(info)
    assert f"--extend-cache {second} --more-captures 1 --captures-start 4" in recipe
    assert f"--extend-cache {first} --more-captures 1 --captures-start 3" in recipe


def test_extending_a_cache_needs_a_new_cache_file(tmp_path):
    from click.testing import CliRunner

    from docauth.training.ocr_cli import train_mrz

    source = tmp_path / "small.npz"
    source.write_bytes(b"not read")
    result = CliRunner().invoke(train_mrz, ["--extend-cache", str(source)])
    assert result.exit_code == 2 and "--extend-cache needs --cache" in result.output
    result = CliRunner().invoke(train_mrz, ["--extend-cache", str(source), "--cache", str(source)])
    assert result.exit_code == 2 and "exists" in result.output
