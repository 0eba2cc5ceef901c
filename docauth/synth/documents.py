"""Flat, upright renderings of TD1 ID cards (front/back, both on a sheet), TD2 cards, TD3 passport data pages
(opened booklet or the page alone) and MRV-A/MRV-B visa stickers: :func:`render_document` by kind."""

from __future__ import annotations

import datetime as dt

import numpy as np

from docauth.synth.cards import render_td1_back, render_td1_both, render_td1_front, render_td2_front
from docauth.synth.document_parts import RenderedDocument
from docauth.synth.identity import random_identity
from docauth.synth.passports import render_td3_open, render_td3_page
from docauth.synth.visas import render_mrv_visa

DOCUMENT_KINDS = ("td1_front", "td1_back", "td3_open")

EXTRA_KINDS = ("td1_both", "td2_front", "mrv_visa", "td3_page")  # added later; td1_both: front + back on a sheet

RENDERERS = {"td1_front": render_td1_front, "td1_back": render_td1_back, "td3_open": render_td3_open,
             "td1_both": render_td1_both, "td2_front": render_td2_front, "mrv_visa": render_mrv_visa,
             "td3_page": render_td3_page}


def render_document(kind: str, seed_or_rng, identity: dict | None = None, portrait: np.ndarray | None = None
                    ) -> RenderedDocument:
    """Render one flat, upright document.

    ``seed_or_rng``: an int seed or a ``numpy.random.Generator``. ``identity`` overrides any printed field
    (surname, given_names, date_of_birth, document_number, expiry, nationality, sex, issuing_state);
    ``portrait`` (RGB array) replaces the drawn face.
    """
    if kind not in RENDERERS:
        raise ValueError(f"unknown document kind {kind!r}; expected one of {DOCUMENT_KINDS + EXTRA_KINDS}")
    rng = seed_or_rng if isinstance(seed_or_rng, np.random.Generator) else np.random.default_rng(seed_or_rng)
    holder = random_identity(rng)
    if identity:
        holder.update({k: v for k, v in identity.items() if v is not None})
        for k in ("date_of_birth", "expiry", "date_of_issue"):
            if isinstance(holder[k], dt.date):
                holder[k] = holder[k].isoformat()
        for k in ("surname", "given_names", "document_number", "nationality", "issuing_state", "sex"):
            holder[k] = str(holder[k]).upper()
        for k in ("nationality", "issuing_state"):
            if not (1 <= len(holder[k]) <= 3 and holder[k].isascii() and holder[k].isalpha()):
                raise ValueError(f"{k} must be an ICAO code of 1-3 letters (e.g. 'D', 'UTO'), not {holder[k]!r}")
    return RENDERERS[kind](rng, holder, portrait)
