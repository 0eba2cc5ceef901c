"""The person database and the in-memory 1:N face index.

    from docauth.store import Store, FaceIndex
    store = Store.from_settings()   # SQLite under DOCAUTH_DATA_DIR, or DOCAUTH_DATABASE_URL (PostgreSQL)
    store.upgrade()
    index = FaceIndex.from_store(store)

SQLAlchemy and Alembic are imported when a store is created, not on package import.
"""

from __future__ import annotations

from docauth.lazy_names import lazy_getattr

__all__ = [
    "ApiKeyRecord",
    "CheckRecord",
    "ErasureReport",
    "FaceIndex",
    "FaceTemplateRecord",
    "IndexHit",
    "PersonRecord",
    "Store",
]

_LAZY = {
    "Store": "docauth.store.db",
    "FaceIndex": "docauth.store.index",
    "IndexHit": "docauth.store.index",
    "PersonRecord": "docauth.store.records",
    "FaceTemplateRecord": "docauth.store.records",
    "CheckRecord": "docauth.store.records",
    "ApiKeyRecord": "docauth.store.records",
    "ErasureReport": "docauth.store.records",
}


__getattr__ = lazy_getattr(__name__, _LAZY)
