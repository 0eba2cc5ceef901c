"""A small route registry: each endpoint is declared once, with its schemas, and
``/openapi.json`` is generated from the same declarations the app is built from.

>>> reg = RouteRegistry()
>>> @reg.route("/v1/ping", "POST", summary="Ping", responses={200: {"type": "object"}})
... def ping(): return {}
>>> spec = reg.openapi(title="t", version="1")
>>> sorted(spec["paths"]["/v1/ping"]["post"]["responses"])[:2]
['200', '401']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                           "details": {"type": "object"}},
        }
    },
}

ERROR_STATUSES = {
    400: "Bad request (malformed form, JSON or field)",
    401: "Missing, unknown or revoked API key",
    404: "Not found",
    413: "Upload or image too large",
    415: "Content is not a supported image",
    422: "Image cannot be decoded or used",
    429: "Rate limit exceeded (see Retry-After)",
    503: "Not ready, overloaded or a dependency is down (see Retry-After)",
}


@dataclass
class Route:
    path: str  # Flask syntax, e.g. /v1/persons/<int:person_id>
    method: str
    view: Callable
    summary: str
    auth: bool
    tags: list[str]
    request: dict | None  # OpenAPI requestBody content map
    responses: dict[int, dict]
    parameters: list[dict] = field(default_factory=list)
    errors: tuple[int, ...] = ()
    operation_id: str | None = None

    @property
    def operation(self) -> str:
        """The OpenAPI operationId: given, or the view's name in camelCase (create_check -> createCheck)."""
        if self.operation_id:
            return self.operation_id
        head, *rest = self.view.__name__.split("_")
        return head + "".join(word.capitalize() for word in rest)

    @property
    def openapi_path(self) -> str:
        return re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", self.path)

    @property
    def endpoint(self) -> str:
        return f"{self.method.lower()}_{self.view.__name__}"


class RouteRegistry:
    def __init__(self):
        self.routes: list[Route] = []

    def route(self, path, method, *, summary, responses, auth=True, tags=None, request=None,
              parameters=None, errors=(), operation_id=None):
        def register(view):
            self.routes.append(Route(path=path, method=method.upper(), view=view, summary=summary, auth=auth,
                                     tags=list(tags or []), request=request, responses=responses,
                                     parameters=list(parameters or []), errors=tuple(errors),
                                     operation_id=operation_id))
            return view

        return register

    def install(self, app) -> None:
        for r in self.routes:
            app.add_url_rule(r.path, endpoint=r.endpoint, view_func=r.view, methods=[r.method])

    def openapi(self, *, title: str, version: str) -> dict:
        paths: dict[str, dict] = {}
        for r in self.routes:
            op: dict = {"operationId": r.operation, "summary": r.summary, "tags": r.tags, "responses": {}}
            params = list(r.parameters)
            for name in re.findall(r"<(?:([a-z]+):)?([a-z_]+)>", r.path):
                kind, pname = name
                params.append({"name": pname, "in": "path", "required": True,
                               "schema": {"type": "integer" if kind == "int" else "string"}})
            if params:
                op["parameters"] = params
            if r.request:
                op["requestBody"] = {"required": True, "content": r.request}
            for status, schema in r.responses.items():
                desc = "No content" if status == 204 else "OK"
                op["responses"][str(status)] = {"description": desc}
                if isinstance(schema, dict) and set(schema) == {"content"}:
                    op["responses"][str(status)]["content"] = schema["content"]  # not JSON (an image)
                elif schema is not None:
                    op["responses"][str(status)]["content"] = {"application/json": {"schema": schema}}
            statuses = set(r.errors) | ({401, 429} if r.auth else set())
            for status in sorted(statuses):
                op["responses"][str(status)] = {
                    "description": ERROR_STATUSES.get(status, "Error"),
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                }
            if r.auth:
                op["security"] = [{"bearer": []}, {"apiKey": []}]
            paths.setdefault(r.openapi_path, {})[r.method.lower()] = op
        return {
            "openapi": "3.0.3",
            "info": {"title": title, "version": version},
            "paths": paths,
            "components": {
                "schemas": {"Error": ERROR_SCHEMA},
                "securitySchemes": {
                    "bearer": {"type": "http", "scheme": "bearer"},
                    "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
                },
            },
        }
