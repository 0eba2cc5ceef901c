"""API keys: random secrets shown once, stored only as SHA-256, compared in constant time.

A key looks like ``dak_<43 url-safe characters>`` (256 random bits). The
server looks the key up by its SHA-256 (a unique index; a hash of 256 random
bits reveals nothing useful through lookup timing) and then compares digests
with :func:`hmac.compare_digest`.

>>> key = generate_key()
>>> key.startswith("dak_") and len(key) > 40
True
>>> verify_hash(key, hash_key(key)), verify_hash(key + "x", hash_key(key))
(True, False)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

PREFIX = "dak_"


def generate_key() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def verify_hash(key: str, stored_sha256: str) -> bool:
    return hmac.compare_digest(hash_key(key).encode(), stored_sha256.encode())


def key_from_headers(headers) -> str | None:
    """The key of ``Authorization: Bearer KEY`` or ``X-API-Key: KEY``, or None."""
    auth = headers.get("Authorization", "")
    if auth[:7].lower() == "bearer ":
        token = auth[7:].strip()
        if token:
            return token
    token = headers.get("X-API-Key", "").strip()
    return token or None


class KeyRing:
    """Keys in the store's ``api_keys`` table; the store keeps only their SHA-256."""

    def __init__(self, store):
        self.store = store

    def create(self, name: str = "default") -> tuple[object, str]:
        """(record, key): the key is returned once and never stored."""
        return self.store.create_api_key(name=name, key=generate_key())

    def authenticate(self, key: str):
        """The active key's record, or None (unknown, revoked or malformed)."""
        if not key or len(key) > 200 or not key.isascii():
            return None
        return self.store.verify_api_key(key)

    def list(self):
        return self.store.list_api_keys()

    def revoke(self, key_id: int):
        return self.store.revoke_api_key(key_id)
