"""Suite-wide fixtures (owned by the lead; areas keep their fixtures in their own files)."""

from __future__ import annotations

import os

import pytest

from docauth.config import shared_data_dir

# Tesseract is 1.5-2x faster single-threaded on these small images.
os.environ.setdefault("OMP_THREAD_LIMIT", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


@pytest.fixture(scope="session")
def shared_data():
    """``../shared/data`` (real faces, specimens, malformed files), or skip."""
    path = shared_data_dir()
    if path is None:
        pytest.skip("../shared/data is absent (a fresh clone has no real evaluation data)")
    return path
