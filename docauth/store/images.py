"""The images the review desk shows, and nothing more: a check's upright rectified document while the check
waits for a clerk, and a person's enrolment photo.

    images = Images(store)
    images.keep_check_document(check_id, rectified_rgb, person_id=7, keep_days=30)
    images.check_document(check_id)     # JPEG bytes, or NotFound
    images.keep_enrolment_photo(person_id, photo_rgb)
    images.enrolment_photo(person_id)   # the latest, or NotFound

A check's document goes with the clerk's decision (:meth:`drop_check_document`), at expiry, or with the person
it is about; an enrolment photo goes with the person (:meth:`Store.delete_person` deletes both explicitly,
and the foreign keys cascade). Results (``GET /v1/checks/{id}``) never carry images.
"""

from __future__ import annotations

import datetime as dt

import cv2
import numpy as np
from sqlalchemy import delete, select

from docauth.errors import NotFound
from docauth.store.models import StoredImageRow, utcnow
from docauth.store.rows import aware

CHECK_DOCUMENT, ENROLMENT_PHOTO = "check_document", "enrolment_photo"
JPEG = "image/jpeg"
# Large enough for a clerk to read the printed fields, small enough to keep (~100-200 kB).
DOCUMENT_LONG_SIDE = 1100
PHOTO_LONG_SIDE = 480


def jpeg(rgb: np.ndarray, long_side: int, quality: int = 85) -> bytes:
    """``rgb`` as JPEG, shrunk to ``long_side`` pixels at most."""
    rgb = np.ascontiguousarray(rgb if rgb.ndim == 3 else np.stack([rgb] * 3, axis=-1))
    scale = long_side / max(rgb.shape[:2])
    if scale < 1.0:
        rgb = cv2.resize(rgb, (max(1, round(rgb.shape[1] * scale)), max(1, round(rgb.shape[0] * scale))),
                         interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("the image could not be encoded as JPEG")
    return data.tobytes()


class Images:
    def __init__(self, store):
        self.store = store

    def keep_check_document(self, check_id: int, rectified: np.ndarray, *, person_id: int | None,
                            keep_days: float) -> None:
        data = jpeg(rectified, DOCUMENT_LONG_SIDE)
        now = utcnow()
        with self.store.transaction() as session:
            session.execute(delete(StoredImageRow).where(StoredImageRow.expires_at < now))
            session.add(StoredImageRow(kind=CHECK_DOCUMENT, check_id=int(check_id), person_id=person_id,
                                       media_type=JPEG, data=data, created_at=now,
                                       expires_at=now + dt.timedelta(days=keep_days)))

    def check_document(self, check_id: int) -> bytes:
        return self._latest(StoredImageRow.check_id == int(check_id), CHECK_DOCUMENT,
                            f"no document image is kept for check {check_id} (kept only while the check waits "
                            "for a clerk)", "check_image_gone")

    def drop_check_document(self, check_id: int) -> int:
        with self.store.transaction() as session:
            gone = session.execute(delete(StoredImageRow).where(StoredImageRow.kind == CHECK_DOCUMENT,
                                                                StoredImageRow.check_id == int(check_id)))
            return int(gone.rowcount or 0)

    def keep_enrolment_photo(self, person_id: int, photo: np.ndarray) -> None:
        data = jpeg(photo, PHOTO_LONG_SIDE)
        with self.store.transaction() as session:
            session.add(StoredImageRow(kind=ENROLMENT_PHOTO, person_id=int(person_id), media_type=JPEG, data=data,
                                       created_at=utcnow()))

    def enrolment_photo(self, person_id: int) -> bytes:
        return self._latest(StoredImageRow.person_id == int(person_id), ENROLMENT_PHOTO,
                            f"no enrolment photo is kept for person {person_id}", "photo_not_found")

    def _latest(self, where, kind: str, message: str, code: str) -> bytes:
        with self.store.transaction() as session:
            row = session.scalars(select(StoredImageRow).where(where, StoredImageRow.kind == kind)
                                  .order_by(StoredImageRow.id.desc()).limit(1)).first()
            if row is None or (row.expires_at is not None and aware(row.expires_at) < utcnow()):
                raise NotFound(message, code=code)
            return bytes(row.data)

