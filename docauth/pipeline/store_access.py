"""What the check reads from the person store: a person, their face templates, and the 1:N index (rebuilt
when the templates change, whichever worker changed them)."""

from __future__ import annotations

import numpy as np
from sqlalchemy import exc as sa_exc, func, select

from docauth.errors import NotFound, Unavailable
from docauth.face_encoding import ENCODING_SIZE
from docauth.pipeline.persons import normalise_person
from docauth.store import Store
from docauth.store.index import FaceIndex
from docauth.store.models import FaceTemplateRow


def get_person(store: Store, person_id) -> dict | None:
    """The person's record under canonical field names; None when the store holds no such person."""
    try:
        person = store.get_person(int(person_id))
    except NotFound:
        return None
    except (TypeError, ValueError):
        return None  # not an id this store can hold
    return normalise_person(person.export())


def face_templates(store: Store | None, person_id) -> np.ndarray:
    """The person's enrolled encodings, one row each ((0, 128) when none)."""
    if store is None:
        return np.empty((0, ENCODING_SIZE))
    vectors = [np.asarray(t.encoding, dtype=np.float64).reshape(-1) for t in store.face_templates(int(person_id))]
    return np.stack(vectors) if vectors else np.empty((0, ENCODING_SIZE))


def store_version(store: Store):
    """(count, max id) of the face templates: changes whenever any worker enrols or erases someone."""
    try:
        with store.engine.connect() as conn:
            row = conn.execute(select(func.count(FaceTemplateRow.id), func.max(FaceTemplateRow.id))).one()
    except sa_exc.SQLAlchemyError as exc:
        raise Unavailable("the database is unavailable") from exc
    return (int(row[0]), row[1])


def build_face_index(store: Store) -> FaceIndex:
    return FaceIndex.from_store(store)


def search_index(index: FaceIndex, encoding, threshold: float, exclude=None) -> list[dict]:
    hits = index.search(np.asarray(encoding), k=5, max_distance=threshold,
                        exclude_person=None if exclude is None else int(exclude))
    return [{"person_id": int(h.person_id), "distance": float(h.distance)} for h in hits]
