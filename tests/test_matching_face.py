"""Face detection, encoding and 1:1 / 1:N matching with the real dlib models.

Encodings cost ~0.1-0.3 s each: every image is encoded once per module.
"""

from __future__ import annotations

import csv
import itertools
import json

import numpy as np
import pytest

from docauth.config import Settings, shared_data_dir
from docauth.errors import InputError
from docauth.training.face_threshold import choose_threshold
from docauth.matching.face import (
    DEFAULT_FACE_THRESHOLD,
    FaceMatcher,
    encode_face,
    encode_largest_face,
    face_distance,
    face_encodings,
    face_locations,
    photo_sha256,
)
from docauth.store import FaceIndex, Store
from face_support import document_page

FACES = shared_data_dir() / "faces" if shared_data_dir() else None
needs_faces = pytest.mark.skipif(
    FACES is None or not (FACES / "labels.csv").exists(), reason="../shared/data/faces is absent"
)


@pytest.fixture(scope="module")
def astronaut():
    import skimage.data

    return np.ascontiguousarray(skimage.data.astronaut()[..., :3])


@pytest.fixture(scope="module")
def astronaut_outcome(astronaut):
    return encode_face(astronaut, allow_multiple=False)


@pytest.fixture(scope="module")
def shared_faces():
    """{relative path: (person, FaceOutcome)} for every labelled photo, or skip."""
    if FACES is None or not (FACES / "labels.csv").exists():
        pytest.skip("../shared/data/faces is absent")
    from docauth.imageio import load_image

    out = {}
    with open(FACES / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            image = load_image(FACES / row["file"])
            out[row["file"]] = (row["person"], encode_face(image, allow_multiple=row["person"] == "multiple"))
    return out


def _document_portrait(astronaut, box, kind: str, style: str, seed: int) -> np.ndarray | None:
    """The astronaut printed on a synthetic document, photographed/scanned, rectified, face found again."""
    face = encode_largest_face(document_page(astronaut, box, kind, style, seed))
    return None if face is None else face.encoding


@pytest.fixture(scope="module")
def document_encodings(astronaut, astronaut_outcome):
    """One card (phone photo) and one passport page (scan) whose portrait was found again.

    A capture can blur a small portrait past detection (calibration reports how
    often); such a capture is replaced by the next seed, at most three times.
    """
    box = astronaut_outcome.face.box
    found = []
    for kind, style in (("td1_front", "phone"), ("td3_open", "scan")):
        encodings = (_document_portrait(astronaut, box, kind, style, seed) for seed in range(11, 14))
        encoding = next((e for e in encodings if e is not None), None)
        assert encoding is not None, f"no face found on three {kind} ({style}) documents"
        found.append(encoding)
    return found


def test_astronaut_has_one_face(astronaut, astronaut_outcome):
    assert astronaut_outcome.ok and astronaut_outcome.n_faces == 1
    face = astronaut_outcome.face
    top, right, bottom, left = face.box
    assert 0 <= top < bottom <= 512 and 0 <= left < right <= 512
    assert 150 < (left + right) / 2 < 300 and (bottom - top) > 60  # her face, upper middle
    assert face.encoding.shape == (128,) and face.encoding.dtype == np.float64
    assert json.loads(json.dumps(astronaut_outcome.export()))["status"] == "ok"


def test_boxes_are_scaled_back_to_the_input_image(astronaut, astronaut_outcome):
    import cv2

    big = cv2.resize(astronaut, (1536, 1536), interpolation=cv2.INTER_LINEAR)
    (box,) = face_locations(big)  # detected on a 512 px copy
    assert np.allclose(box, np.array(astronaut_outcome.face.box) * 3, atol=12)
    (enc,) = face_encodings(big, [box])
    assert face_distance(enc, astronaut_outcome.face.encoding) < 0.2


def test_no_face_and_several_faces_are_reported(astronaut):
    import skimage.data

    camera = skimage.data.camera()  # a grey photo without a frontal face
    nothing = encode_face(camera, allow_multiple=False)
    assert nothing.status == "no_face" and nothing.face is None and not nothing.ok
    with pytest.raises(InputError) as err:
        nothing.raise_for_status("camera.png")
    assert err.value.code == "no_face" and "camera.png" in err.value.message
    assert encode_largest_face(camera) is None

    two = np.hstack([astronaut, astronaut[:, ::-1]])  # two equally large faces
    enrolment = encode_face(two, allow_multiple=False)
    assert enrolment.status == "multiple_faces" and enrolment.n_faces >= 2
    with pytest.raises(InputError, match="faces were found"):
        enrolment.raise_for_status("two.png")
    document = encode_face(two, allow_multiple=True)
    assert document.ok and document.n_faces >= 2


def test_a_small_second_face_does_not_reject_an_enrolment_photo(astronaut):
    import cv2

    head = astronaut[20:240, 110:330]  # her head and shoulders, face in the middle
    canvas = np.full((512, 512, 3), 200, np.uint8)
    canvas[:440, :440] = cv2.resize(head, (440, 440), interpolation=cv2.INTER_LINEAR)
    canvas[322:, 322:] = cv2.resize(head, (190, 190), interpolation=cv2.INTER_AREA)  # e.g. a photo on the wall
    boxes = face_locations(canvas, upsample=1)
    assert len(boxes) == 2, boxes  # both are faces to HOG
    outcome = encode_face(canvas, allow_multiple=False)
    assert outcome.ok, outcome.export()  # the second is under half the size of the first
    assert outcome.face.box[0] < 200  # the large face was encoded


def test_face_distance_and_matcher(astronaut_outcome):
    enc = astronaut_outcome.face.encoding
    other = enc + 0.1
    assert face_distance(enc, enc) == 0.0
    d = face_distance(np.stack([enc, other]), enc)
    assert d.shape == (2,) and d[0] == 0 and np.isclose(d[1], np.sqrt(128) * 0.1)
    assert face_distance(np.empty((0, 128)), enc).shape == (0,)
    matcher = FaceMatcher()
    assert matcher.threshold == DEFAULT_FACE_THRESHOLD == Settings.load(environ={}).face_threshold
    same = matcher.verify(astronaut_outcome.face, enc)
    assert same.export() == {"distance": 0.0, "match": True, "threshold": DEFAULT_FACE_THRESHOLD}
    assert not matcher.verify(enc, other).match
    assert matcher.verify_any(np.stack([other, enc]), enc).distance == 0.0
    with pytest.raises(InputError):
        matcher.verify(enc, np.zeros(5))
    with pytest.raises(InputError):
        FaceMatcher(threshold=0)
    with pytest.raises(InputError):
        matcher.verify_any(np.empty((0, 128)), enc)


def test_threshold_choice():
    genuine = np.array([0.2, 0.3, 0.45])
    assert 0.45 <= choose_threshold(genuine, np.array([0.7, 0.8])) < 0.7  # separable, few impostors
    rng = np.random.default_rng(0)
    impostor = rng.normal(0.83, 0.077, 2000)
    t = choose_threshold(genuine, impostor, target_far=1e-4)
    assert 0.5 < t < 0.56 and t < impostor.min()
    impostor_with_outlier = np.append(impostor, 0.4)  # never above an impostor actually seen
    assert choose_threshold(genuine, impostor_with_outlier) < 0.4


@needs_faces
def test_shared_faces_same_person_pairs_match_and_others_do_not(shared_faces):
    matcher = FaceMatcher()
    singles = {name: (person, o.face.encoding) for name, (person, o) in shared_faces.items() if person != "multiple"}
    assert all(o.ok for p, o in shared_faces.values() if p != "multiple"), "a single-person photo gave no face"
    assert len(singles) >= 10
    failures = []
    for (a, (pa, ea)), (b, (pb, eb)) in itertools.combinations(singles.items(), 2):
        result = matcher.verify(ea, eb)
        if result.match != (pa == pb):
            failures.append((a, b, round(result.distance, 3)))
    assert failures == [], f"wrong at threshold {matcher.threshold}: {failures}"


@needs_faces
def test_group_photos_are_refused_for_enrolment(shared_faces):
    groups = [o for person, o in shared_faces.values() if person == "multiple"]
    assert groups
    for outcome in groups:
        assert outcome.ok and outcome.n_faces >= 2  # documents: largest face taken
    from docauth.imageio import load_image

    name = next(n for n, (p, _) in shared_faces.items() if p == "multiple")
    assert encode_face(load_image(FACES / name), allow_multiple=False).status == "multiple_faces"


def test_document_portrait_matches_the_enrolled_astronaut_only(
    tmp_path, astronaut, astronaut_outcome, document_encodings, request
):
    """A synthetic document carrying the astronaut matches her enrolment, not another face."""
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    store.upgrade()
    from docauth.imageio import encode_png

    her, _ = store.enrol(
        {"surname": "Collins", "given_names": "Eileen"},
        faces=[(astronaut_outcome.face.encoding, photo_sha256(encode_png(astronaut)))],
    )
    other_face = None
    if FACES is not None and (FACES / "labels.csv").exists():
        shared = request.getfixturevalue("shared_faces")
        other_face = shared["examples/obama-720p.jpg"][1].face.encoding
        other, _ = store.enrol({"surname": "Other"}, faces=[(other_face, "0" * 64)])
    matcher = FaceMatcher()
    index = FaceIndex.from_store(store)
    for doc_encoding in document_encodings:
        her_templates = np.stack([t.encoding for t in store.face_templates(her.id)])
        assert matcher.verify_any(her_templates, doc_encoding).match
        (best, *rest) = index.search(doc_encoding, k=2)
        assert best.person_id == her.id and best.distance <= matcher.threshold
        if other_face is not None:
            other_templates = np.stack([t.encoding for t in store.face_templates(other.id)])
            assert not matcher.verify_any(other_templates, doc_encoding).match
            assert rest and rest[0].person_id == other.id and rest[0].distance > matcher.threshold
    if other_face is None:
        pytest.skip("negative half needs a second real face (../shared/data/faces absent)")
