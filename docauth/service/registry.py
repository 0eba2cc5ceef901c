"""The one route registry of the service: every view module declares its routes on it, the app factory
installs it, and ``/openapi.json`` is generated from it."""

from __future__ import annotations

from docauth.service.routes import RouteRegistry

registry = RouteRegistry()
