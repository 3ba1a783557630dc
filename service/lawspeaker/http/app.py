"""The Litestar app: REST, Connect, ``/healthz`` and ``/schema`` on one HTTP port."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, cast

import msgspec
from litestar import Litestar, Request, Response, get, route
from litestar.config.cors import CORSConfig
from litestar.datastructures import State
from litestar.enums import HttpMethod
from litestar.exceptions import HTTPException
from litestar.handlers import HTTPRouteHandler

from lawspeaker.api.access import Access
from lawspeaker.api.rules import RulesApi
from lawspeaker.games.core import LawspeakerError
from lawspeaker.http import compression, connect, grpcweb, guard, semantics
from lawspeaker.http.docs import docs_handlers
from lawspeaker.http.media import JSON
from lawspeaker.http.openapi import openapi_bytes
from lawspeaker.http.pages import links_middleware, page_handlers
from lawspeaker.http.play import play_handlers
from lawspeaker.http.problems import (
    ALLOW_TABLE,
    MAX_BODY_BYTES,
    PUBLIC_URL,
    Problem,
    http_exception_handler,
    internal_error,
    lawspeaker_error_handler,
    method_not_allowed,
    problem_handler,
)
from lawspeaker.http.routes import RPCS, SESSION_RPCS
from lawspeaker.http.rules_routes import rules_handlers
from lawspeaker.http.session_routes import session_handlers
from lawspeaker.observe import calls, metrics
from lawspeaker.sessions.service import SessionApi

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- the app


def options_handler(allow: semantics.AllowTable, handlers: Sequence[HTTPRouteHandler]) -> HTTPRouteHandler:
    """OPTIONS on every path of ``handlers``, answering the ``Allow`` of the request's route and
    ``:verb`` (Litestar's own OPTIONS names the methods of one handler of the path). Registered
    before the handlers, so that Litestar adds none of its own. A CORS preflight never gets here:
    the CORS middleware answers it."""

    async def options(request: Request[Any, Any, Any]) -> Response[bytes]:
        path = request.scope["path"]
        methods = allow.lookup(path)
        if methods is None:
            raise Problem(404, "ROUTE_NOT_FOUND", f"No route matches OPTIONS {path}.")
        if not methods:  # the route has no such :verb: a 404 naming the ones it has
            return method_not_allowed(request, "", {})
        return Response(b"", status_code=204, headers={"Allow": semantics.allow_header(methods)})

    paths = sorted({p for h in handlers for p in h.paths})
    return route(paths, http_method=[HttpMethod.OPTIONS], status_code=200, name="options")(options)


def create_app(
    api: RulesApi | None = None,
    sessions: SessionApi | None = None,
    cors_origins: Sequence[str] = (),
    access: Access | None = None,
    metrics_route: bool = True,
    public_url: str = "",
    compress_min_bytes: int = compression.DEFAULT_MIN_BYTES,
) -> Litestar:
    """The Litestar app serving RulesService (and, given ``sessions``, SessionService) over HTTP, as
    REST and as the Connect protocol (``lawspeaker.http.connect``), ``/healthz`` and ``/schema``.

    ``cors_origins`` (e.g. ``["https://app.example"]`` or ``["*"]``) turns CORS on for those origins.
    ``access`` (default: the sessions' ``limits.access``) says which calls need an API key and which
    proxies are trusted (``lawspeaker.http.guard``). ``metrics_route``: serve ``GET /metrics`` (while
    metrics are on; ``--metrics-port`` serves them elsewhere). ``public_url``: the base URL the
    OpenAPI document names as its server and the links of every answer start with (a refused move's
    ``rule``, a problem's ``type``: ``lawspeaker.http.pages``; empty: the address each request was sent
    to). ``compress_min_bytes``: responses at least this long are compressed when the client asks
    (``lawspeaker.http.compression``; Connect stream messages too).
    """
    if access is None:
        access = sessions.limits.access if sessions is not None else Access()

    rules = api if api is not None else RulesApi()
    fast = rules.on_wire

    @get("/healthz")
    async def healthz() -> Response[bytes]:
        return Response(b'{"status":"SERVING"}', media_type=JSON)

    @get("/healthz/details")
    async def health_details() -> Response[bytes]:
        """Liveness plus what an operator checks: the session store, its live sessions against the
        cap, the quotas and what an acknowledged move survives (read from the store's settings)."""
        details: dict[str, Any] = {"status": "SERVING"}
        if sessions is not None:
            details["sessions"] = await sessions.health()
        return Response(msgspec.json.encode(details), media_type=JSON, headers={"Cache-Control": "no-store"})

    @get("/metrics")
    async def metrics_route_handler() -> Response[bytes]:
        """The Prometheus exposition (every worker's, with ``--workers``): the store's live sessions
        are read now, the rest is what the calls recorded."""
        if not metrics.enabled():
            raise Problem(404, "ROUTE_NOT_FOUND", "Metrics are off on this server (--no-metrics).")
        if sessions is not None:
            await sessions.read_metrics()
        return Response(
            metrics.render(), media_type=metrics.CONTENT_TYPE, headers={"Cache-Control": "no-store"}
        )

    def servers(request: Request[Any, Any, Any]) -> tuple[str, ...]:
        """Where the document says the API is: --public-url, else where this request was sent."""
        return (public_url,) if public_url else (str(request.base_url).rstrip("/"),)

    @get(["/schema", "/schema/openapi.json"], opt=compression.STATIC_OPT)
    async def schema(request: Request[Any, Any, Any]) -> Response[bytes]:
        return Response(openapi_bytes(servers(request)), media_type="application/vnd.oai.openapi+json")

    rest_handlers = [
        *rules_handlers(rules, fast),
        healthz,
        health_details,
        *((metrics_route_handler,) if metrics_route else ()),
        schema,
        *docs_handlers(servers),
        *play_handlers(),
        *page_handlers(),
        *(session_handlers(sessions) if sessions is not None else ()),
    ]
    connect_handlers = connect.handlers(
        rules, sessions, fast, grpc_web=grpcweb.respond, compress_min_bytes=compress_min_bytes
    )
    allow = semantics.AllowTable()
    for rpc in (*RPCS, *(SESSION_RPCS if sessions is not None else ())):
        allow.add(rpc.template, (rpc.http_method,))
    for template, methods in connect.bindings():
        allow.add(template, methods)
    for handler in rest_handlers:  # the routes that are no RPC's, as their handlers say
        for path in handler.paths:
            if not allow.covers(path):
                allow.add(path, handler.http_methods)
    handlers = [*rest_handlers, *connect_handlers]

    return Litestar(
        route_handlers=[options_handler(allow, handlers), *handlers],
        state=State({ALLOW_TABLE: allow, PUBLIC_URL: public_url}),
        cors_config=CORSConfig(
            allow_origins=list(cors_origins),
            allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
            allow_headers=list(connect.CORS_ALLOW_HEADERS),
            expose_headers=list(connect.CORS_EXPOSE_HEADERS),
            max_age=7200,
        )
        if cors_origins
        else None,
        exception_handlers={
            LawspeakerError: lawspeaker_error_handler,
            Problem: problem_handler,
            HTTPException: http_exception_handler,
            Exception: internal_error,
        },
        openapi_config=None,
        logging_config=None,  # the process's own (``lawspeaker.server.logs``), not Litestar's
        request_max_body_size=MAX_BODY_BYTES,
        middleware=[
            links_middleware,
            guard.http_middleware(access),
            compression.http_middleware(compress_min_bytes),
        ],
        debug=False,
    )


def observed(app: Litestar) -> Any:
    """The ASGI app to serve: ``app`` under the middleware that records every request
    (``lawspeaker.observe.calls``), unmatched paths included (Litestar runs its own middleware on routes
    only), or, when nothing observes calls, under the one that only answers each with its
    ``X-Request-Id``."""
    if calls.observing():
        return calls.http_middleware(cast(Any, app))
    return calls.request_id_middleware(cast(Any, app))
