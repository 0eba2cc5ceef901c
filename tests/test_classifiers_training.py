"""Classifier training mechanics and the stage object, on tiny models (no shipped model needed)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from docauth.classifiers import Classification, DocumentClassifier, preprocess
from docauth.training.classifiers.data import DOCUMENT_LABELS, SIDE_LABELS, LabelledImages
from docauth.training.classifiers.evaluate import classification_metrics
from docauth.training.classifiers.train import TrainConfig, make_dataset, save_model, train_classifier

SIZE = 32
TINY_STAGES = ((8, 1), (16, 1))


def tiny_model(n_classes, name):
    from docauth.training.classifiers.architecture import build_model

    return build_model(n_classes, height=SIZE, width=SIZE, stages=TINY_STAGES, stem_filters=8, name=name)


def separable_data(n, rng):
    """Images whose class is visible (bright square for class 1), labels 0/1."""
    images = rng.integers(0, 120, size=(n, SIZE, SIZE, 3), dtype=np.uint8)
    labels = rng.integers(0, 2, size=n)
    images[labels == 1, 8:24, 8:24] = 250
    return images, labels


def test_preprocess_resizes_any_image_and_scales_to_unit_range():
    rng = np.random.default_rng(0)
    images = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in [(480, 640), (20, 7), (128, 128), (1, 1)]]
    batch = preprocess.preprocess_batch(images)
    assert batch.shape == (4, preprocess.INPUT_HEIGHT, preprocess.INPUT_WIDTH, 3)
    assert batch.dtype == np.float32
    assert 0.0 <= batch.min() and batch.max() <= 1.0
    # An image already at input size is only scaled: training caches uint8 at this size.
    np.testing.assert_allclose(batch[2], images[2].astype(np.float32) / 255.0, atol=1e-7)


def test_tf_data_pipeline_batches_and_augments_within_range():
    rng = np.random.default_rng(1)
    images, labels = separable_data(40, rng)
    ds = make_dataset(images, labels, batch_size=16, training=True, seed=3)
    batches = list(ds.as_numpy_iterator())
    assert [len(b[0]) for b in batches] == [16, 16, 8]
    x = np.concatenate([b[0] for b in batches])
    assert x.dtype == np.float32 and x.shape[1:] == (SIZE, SIZE, 3)
    assert x.min() >= 0.0 and x.max() <= 1.0
    # shuffled + augmented: not the raw scaled inputs in order
    assert not np.allclose(x, images.astype(np.float32) / 255.0)
    assert sorted(np.concatenate([b[1] for b in batches]).tolist()) == sorted(labels.tolist())


def test_short_training_run_updates_weights_and_lowers_loss():
    rng = np.random.default_rng(2)
    x, y = separable_data(256, rng)
    vx, vy = separable_data(64, rng)
    model = tiny_model(2, "document")
    before = [w.copy() for w in model.get_weights()]
    config = TrainConfig(epochs=4, batch_size=32, learning_rate=5e-3, augment=False, verbose=0)
    result = train_classifier(x, y, vx, vy, 2, config, model=model)
    after = result.model.get_weights()
    assert any(not np.allclose(a, b) for a, b in zip(before, after)), "no weight changed"
    losses = result.history["loss"]
    assert losses[-1] < losses[0] * 0.8, losses
    assert result.images_per_second > 0
    assert 1 <= result.best_epoch <= 4


def test_classification_metrics_per_class_and_confusion():
    m = classification_metrics(np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 2, 1]), SIDE_LABELS)
    assert m["confusion_matrix"] == [[1, 0, 0], [0, 1, 1], [0, 0, 2]]
    assert m["accuracy"] == pytest.approx(0.8)
    assert m["per_class"]["back"] == {"precision": 1.0, "recall": 0.5, "support": 2}
    assert m["per_class"]["open"]["precision"] == pytest.approx(2 / 3, abs=1e-6)


def test_labelled_images_side_task_keeps_documents_only():
    data = LabelledImages(np.zeros((4, 2, 2, 3), np.uint8), np.array([1, 0, 1, 1], np.int8),
                          np.array([0, -1, 2, 1], np.int8), np.array(["a", "b", "c", "d"]))
    x, y = data.task("side")
    assert len(x) == 3 and y.tolist() == [0, 2, 1]
    assert data.task("document")[1].tolist() == [1, 0, 1, 1]


@pytest.fixture(scope="module")
def tiny_models_dir(tmp_path_factory):
    """Two tiny trained-for-nothing models saved like the real ones, loaded through docauth.runtime."""
    out = tmp_path_factory.mktemp("models")
    for name, labels in (("document", DOCUMENT_LABELS), ("side", SIDE_LABELS)):
        meta = {"version": "test", "input": {"height": SIZE, "width": SIZE, "channels": 3}, "labels": labels,
                "preprocessing": preprocess.describe(SIZE, SIZE), "training": {}, "metrics": {}}
        save_model(tiny_model(len(labels), name), meta, out, name)
    return out


def test_stage_batches_images_of_any_size_and_exports_json_safe(tiny_models_dir):
    clf = DocumentClassifier.load(tiny_models_dir, threshold=0.5, max_batch_size=2)
    rng = np.random.default_rng(3)
    images = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in [(50, 80), (300, 200), (32, 32),
                                                                             (5, 900), (64, 64)]]
    results = clf(images)
    assert len(results) == 5 and all(isinstance(r, Classification) for r in results)
    for r in results:
        body = json.loads(json.dumps(r.export()))
        assert set(body) == {"is_document", "document_score", "side", "side_scores"}
        assert 0.0 <= body["document_score"] <= 1.0
        if body["is_document"]:
            assert body["side"] in SIDE_LABELS
            assert set(body["side_scores"]) == set(SIDE_LABELS)
            assert sum(body["side_scores"].values()) == pytest.approx(1.0, abs=1e-4)
        else:
            assert body["side"] is None and body["side_scores"] == {}
    # batching must not change answers
    single = [clf([im])[0].document_score for im in images]
    assert single == pytest.approx([r.document_score for r in results], abs=1e-5)
    assert clf([]) == []


def test_threshold_decides_document_and_side_presence(tiny_models_dir):
    img = np.full((80, 120, 3), 128, np.uint8)
    always = DocumentClassifier.load(tiny_models_dir, threshold=0.0)([img])[0]
    never = DocumentClassifier.load(tiny_models_dir, threshold=1.01)([img])[0]
    assert always.is_document and always.side in SIDE_LABELS
    assert not never.is_document and never.side is None


def test_synthetic_set_caches_chunks_and_reuses_them(tmp_path, monkeypatch):
    from docauth.training.classifiers import data

    monkeypatch.setattr(data, "CHUNK", 3)
    first = data.synthetic_set(7, 5, cache_dir=tmp_path, subset="extra", height=SIZE, width=SIZE)
    files = sorted(p.name for p in tmp_path.rglob("*.npz"))
    assert len(files) == 2  # chunks [0, 3) and [3, 6): stored whole
    assert first.images.shape == (5, SIZE, SIZE, 3) and first.images.dtype == np.uint8
    again = data.synthetic_set(7, 5, cache_dir=tmp_path, subset="extra", height=SIZE, width=SIZE)
    np.testing.assert_array_equal(first.images, again.images)
    np.testing.assert_array_equal(first.is_document, again.is_document)
    # documents among the supplementary samples are front+back scans: no single side
    assert set(first.side[first.is_document == 1].tolist()) <= {-1}
    with pytest.raises(FileNotFoundError):
        data.synthetic_set(7, 5, cache_dir=tmp_path, subset="extra", version="0" * 12)


def test_lookalike_subset_holds_only_the_non_documents_most_like_one(tmp_path):
    from docauth.training.classifiers import data
    from docauth.training.classifiers.recipe import SUBSET_SEED_OFFSET, DataSpec

    looks = data.synthetic_set(7, 8, cache_dir=tmp_path, subset="lookalikes", height=SIZE, width=SIZE, use_cache=False)
    assert len(looks) == 8 and not looks.is_document.any() and (looks.side == data.NO_SIDE).all()
    assert set(looks.kind.tolist()) <= set(data.LOOKALIKE_CATEGORIES) and len(set(looks.kind.tolist())) >= 2
    parts = DataSpec(train_seed=100, train_count=10, val_seed=200, val_count=5, lookalikes_count=8).parts()
    assert {"subset": "lookalikes", "seed": 100 + SUBSET_SEED_OFFSET["lookalikes"], "count": 8,
            "generator_version": None} in parts


def test_vivid_recolours_the_paper_and_keeps_the_print_dark():
    import cv2

    from docauth.training.classifiers.photographs import vivid

    card = np.full((60, 90, 3), 235, np.uint8)  # pale paper...
    card[20:30, 10:80] = 20  # ...with a line of dark print
    out = vivid(card, np.random.default_rng(0), hue=100.0, strength=1.0)  # towards blue
    hsv = cv2.cvtColor(out, cv2.COLOR_RGB2HSV)
    assert hsv[5, 5, 1] > 120 and 70 <= hsv[5, 5, 0] <= 100  # the paper is now a strong cyan-blue
    assert out[25, 40].max() < 40  # the print is still print


def test_flat_samples_cover_every_kind_and_keep_their_side():
    from docauth.training.classifiers.flat_crops import KINDS, SIDES, flat_sample

    seen = {}
    for index in range(40):
        image, label = flat_sample(7, index)
        kind = label["category"].removeprefix("flat_")
        seen[kind] = label["side"]
        assert image.ndim == 3 and label["is_document"] and label["side"] == SIDES[kind]
    assert set(seen) == set(KINDS) and seen["mrv_visa"] == seen["td2_front"] == "front"
