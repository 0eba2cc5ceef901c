"""The in-memory 1:N face index."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from docauth.store import FaceIndex, Store


def _random(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, 0.09, size=(n, 128))


def _brute_force_persons(vectors, person_ids, query, k):
    d = np.linalg.norm(vectors - query, axis=1)
    best: dict[int, float] = {}
    for p, dist in zip(person_ids, d):
        best[p] = min(best.get(p, np.inf), dist)
    return sorted(best.items(), key=lambda kv: kv[1])[:k]


def test_search_equals_brute_force_with_one_hit_per_person():
    vectors = _random(3000)
    person_ids = np.arange(3000) // 3  # three templates per person
    index = FaceIndex()
    index.add_many(np.arange(3000), person_ids, vectors)
    assert len(index) == 3000 and index.n_persons == 1000
    rng = np.random.default_rng(1)
    for _ in range(20):
        query = vectors[rng.integers(3000)] + rng.normal(0, 0.03, 128)
        hits = index.search(query, k=7)
        expected = _brute_force_persons(vectors, person_ids, query, 7)
        assert [h.person_id for h in hits] == [p for p, _ in expected]
        assert np.allclose([h.distance for h in hits], [d for _, d in expected], atol=1e-5)
        assert len({h.person_id for h in hits}) == 7


def test_many_templates_of_one_person_do_not_hide_the_others():
    near = np.zeros((200, 128))
    near[:, 0] = np.linspace(0, 0.01, 200)  # 200 templates of person 1 at the query
    far = np.zeros((2, 128))
    far[:, 0] = [0.5, 0.7]
    index = FaceIndex()
    index.add_many(np.arange(202), [1] * 200 + [2, 3], np.vstack([near, far]))
    hits = index.search(np.zeros(128), k=3)
    assert [h.person_id for h in hits] == [1, 2, 3]


def test_max_distance_exclude_and_removal():
    index = FaceIndex(capacity=2)  # forces growth
    base = np.zeros(128)
    for t, (person, offset) in enumerate([(10, 0.1), (10, 0.2), (20, 0.3), (30, 0.9)]):
        v = base.copy()
        v[0] = offset
        index.add(t, person, v)
    assert [h.person_id for h in index.search(base, k=5, max_distance=0.5)] == [10, 20]
    assert [h.person_id for h in index.search(base, k=5, exclude_person=10)] == [20, 30]
    assert index.remove_person(10) == 2
    assert [h.person_id for h in index.search(base, k=5)] == [20, 30]
    assert index.remove_template(3) and not index.remove_template(3)
    assert [h.export() for h in index.search(base, k=5)] == [{"person_id": 20, "distance": 0.3, "template_id": 2}]
    with pytest.raises(ValueError):
        index.add(2, 99, base)  # template id already indexed
    with pytest.raises(ValueError):
        index.search(np.zeros(5))
    assert FaceIndex().search(base) == []


def test_concurrent_enrol_erase_and_search_stay_consistent():
    index = FaceIndex()
    vectors = _random(4000, seed=2)
    index.add_many(np.arange(2000), np.arange(2000), vectors[:2000])
    errors: list[BaseException] = []

    def enrol():
        for t in range(2000, 4000):
            index.add(t, t, vectors[t])

    def erase():
        for p in range(0, 2000, 2):
            index.remove_person(p)

    def search():
        rng = np.random.default_rng(3)
        for _ in range(300):
            try:
                hits = index.search(vectors[rng.integers(4000)], k=3)
                assert all(h.distance >= 0 for h in hits)
            except BaseException as exc:  # collected and re-raised in the main thread
                errors.append(exc)
                return

    threads = [threading.Thread(target=f) for f in (enrol, erase, search, search)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(index) == 3000
    # every surviving template is found exactly at distance 0, erased ones never
    for t in (1, 3, 2500, 3999):
        assert index.search(vectors[t], k=1)[0].person_id == t
    assert index.search(vectors[0], k=1)[0].person_id != 0


def test_loads_from_the_store_and_keeps_up_with_erasure(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    store.upgrade()
    vectors = _random(4, seed=5)
    a, _ = store.enrol({"surname": "A"}, faces=[(vectors[0], "0" * 64), (vectors[1], "1" * 64)])
    b, (tb,) = store.enrol({"surname": "B"}, faces=[(vectors[2], "2" * 64)])
    index = FaceIndex.from_store(store)
    assert len(index) == 3 and index.n_persons == 2
    assert index.search(vectors[1], k=1)[0].person_id == a.id
    c, (tc,) = store.enrol({"surname": "C"}, faces=[(vectors[3], "3" * 64)])
    index.add(tc.id, c.id, tc.encoding)
    store.delete_person(a.id)
    index.remove_person(a.id)
    assert [h.person_id for h in index.search(vectors[0], k=5)] == sorted(
        [b.id, c.id], key=lambda p: np.linalg.norm(vectors[0] - vectors[2 if p == b.id else 3])
    )
    reloaded = FaceIndex.from_store(store)
    assert len(reloaded) == len(index) == 2
