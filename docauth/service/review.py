"""The clerk's review page at ``/``: server-rendered HTML and a little vanilla JS, no external resources."""

from __future__ import annotations

from flask import render_template

from docauth import __version__
from docauth.pipeline.policy import REASONS


def install(app) -> None:
    @app.get("/")
    def review_page():
        response = app.make_response(render_template("review.html", version=__version__, reasons=REASONS))
        # Everything is served from here; the page may not load or send anything elsewhere.
        response.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
        )
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response
