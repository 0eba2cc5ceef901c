"""The review desk's images (docauth.store.images) on a real SQLite store: a check's document kept while it
waits for a clerk (gone with the decision, at expiry, or with the person), enrolment photos (gone with the
person), JPEGs no larger than they need to be."""

from __future__ import annotations

import numpy as np
import pytest

from docauth.errors import NotFound
from docauth.store.checks import CheckResults
from docauth.store.images import DOCUMENT_LONG_SIDE, Images
from docauth.store.reviews import Reviews
from pipeline_support import ASTRONAUT_PERSON


@pytest.fixture()
def store(tmp_path):
    from docauth.store import Store

    s = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    s.upgrade()
    yield s
    s.close()


def _check(store, person_id=None) -> int:
    return CheckResults(store).record({"decision": "review"}, verdict="review", scores={}, reasons={"codes": []},
                                      person_id=person_id, subject_id=person_id, channel="api", keep_days=30).id


def _page(h=900, w=1400) -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(0, 255, (h, w, 3), dtype=np.uint8)


def test_a_checks_document_is_kept_shrunk_and_goes_with_the_clerks_decision(store):
    import cv2

    images = Images(store)
    check_id = _check(store)
    images.keep_check_document(check_id, _page(), person_id=None, keep_days=30)
    data = images.check_document(check_id)
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert data[:2] == b"\xff\xd8" and max(decoded.shape[:2]) == DOCUMENT_LONG_SIDE
    Reviews(store).decide(check_id, "accept", reviewer="clerk", api_key_id=None)
    with pytest.raises(NotFound) as gone:
        images.check_document(check_id)
    assert gone.value.code == "check_image_gone"


def test_an_expired_document_is_never_served(store):
    images = Images(store)
    check_id = _check(store)
    images.keep_check_document(check_id, _page(), person_id=None, keep_days=-1)
    with pytest.raises(NotFound):
        images.check_document(check_id)


def test_the_person_takes_their_photo_and_the_documents_about_them_along(store):
    person, _ = store.enrol(ASTRONAUT_PERSON)
    other, _ = store.enrol({**ASTRONAUT_PERSON, "surname": "OTHER", "document_number": "X1"})
    images = Images(store)
    images.keep_enrolment_photo(person.id, _page(600, 450))
    images.keep_enrolment_photo(other.id, _page(600, 450))
    mine, theirs = _check(store, person.id), _check(store, other.id)
    images.keep_check_document(mine, _page(), person_id=person.id, keep_days=30)
    images.keep_check_document(theirs, _page(), person_id=other.id, keep_days=30)
    store.delete_person(person.id)
    for fetch in (lambda: images.enrolment_photo(person.id), lambda: images.check_document(mine)):
        with pytest.raises(NotFound):
            fetch()
    assert images.enrolment_photo(other.id)[:2] == b"\xff\xd8" and images.check_document(theirs)
