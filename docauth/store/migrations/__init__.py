"""Alembic migrations of the docauth store (run by ``Store.upgrade()`` / ``docauth db upgrade``)."""
