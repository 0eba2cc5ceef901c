"""The shipped stages, loaded from settings: what ``Pipeline.load`` puts in each place."""

from __future__ import annotations

from functools import partial

from docauth.classifiers import DocumentClassifier
from docauth.config import Settings
from docauth.matching.text import match_person
from docauth.ocr.reader import DocumentReader
from docauth.pipeline.contracts import TextMatcher
from docauth.store import Store


def load_classifier(settings: Settings) -> DocumentClassifier:
    return DocumentClassifier.load(models_dir=settings.models_dir, backend=settings.backend, mode=settings.mode)


def load_reader(settings: Settings) -> DocumentReader:
    # The reader's models run unbatched in every mode: the text detector's and recogniser's inputs take the
    # page's and the line's shapes, which differ between callers, and on one thread a batch of k of them or of
    # the MRZ line model's strips costs as much as k single calls or more (docs/benchmarks.md, service section).
    return DocumentReader.load(models_dir=settings.models_dir, backend=settings.backend, mode="realtime",
                               tesseract=settings.tesseract)


def load_text_matcher(settings: Settings | None = None) -> TextMatcher:
    if settings is None:
        return match_person
    return partial(match_person, name_threshold=settings.name_similarity_threshold)


def open_store(settings: Settings) -> Store:
    store = Store.from_settings(settings)
    store.ensure_schema()  # the first check on a fresh data folder creates the database
    return store
