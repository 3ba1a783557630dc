"""One record per call, filled where each fact is known and read once when the call ends.

The edges (the HTTP middleware below for REST and Connect, the gRPC handlers in
``lawspeaker.grpc.server``) open a :class:`Call` and put it in :data:`CURRENT`; the layers under
them note what only they know (the RPC a route serves, the game once the registry knows it, a
refusal's code and reason, a move found illegal); :func:`finish` hands the record to the metrics
(``lawspeaker.observe.metrics``), the access log (``lawspeaker.server.logs``) and the server span
(``lawspeaker.server.tracing``). When all three are off, :func:`observing` is False and the edges open no
record at all: nothing is added to a call.

A record holds only bounded values: the game is noted after the registry found it, the method is
one of the contract's, the reason one of the catalogue's. Nothing here reads a body or a token.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from lawspeaker.observe import metrics

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_LOGGED_PATH = 256  # characters of a request's path an access line keeps (a hostile one can be long)
OTHER = "other"  # service and method of an HTTP route that is no RPC (health, schema, docs, ...)
REQUEST_ID_HEADER = "x-request-id"
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:/+=-]{1,128}$")
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$")

# The HTTP status of an answer that carries no error code of ours (Litestar's own 404/405/413...).
_HTTP_CODES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    409: "ABORTED",
    412: "FAILED_PRECONDITION",
    413: "RESOURCE_EXHAUSTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


class Call:
    """What is known about one call so far."""

    __slots__ = (
        "code",
        "game",
        "http_method",
        "method",
        "path",
        "reason",
        "request_id",
        "service",
        "span",
        "started",
        "status",
        "streaming",
        "trace_id",
        "transport",
        "violation",
    )

    def __init__(self, transport: str, service: str = OTHER, method: str = OTHER) -> None:
        self.transport = transport
        self.service = service
        self.method = method
        self.game = ""
        self.code = ""  # the gRPC status code name of the answer ("" until known)
        self.reason = ""  # the reason code of a refusal
        self.violation = ""  # the reason a ValidateMove found the move illegal
        self.status = 0  # the HTTP status (REST and Connect)
        self.started = time.perf_counter()
        self.streaming = False
        self.request_id = ""
        self.trace_id = ""
        self.http_method = ""  # HTTP only, with the access log on: the request's method
        self.path = ""  # and its path, never its query string (a Connect GET carries the message)
        self.span: Any = None  # the server span, when tracing is on


CURRENT: contextvars.ContextVar[Call | None] = contextvars.ContextVar("lawspeaker_call", default=None)

# What is on (``configure``): metrics, the access log, tracing.
_metrics = True
_access_log: Callable[[Call, float], None] | None = None
_tracing: Any = None  # lawspeaker.server.tracing.Tracing when the otel extra is configured


def configure(
    metrics_on: bool, access_log: Callable[[Call, float], None] | None = None, tracing: Any = None
) -> None:
    """Say what a finished call feeds (``lawspeaker serve`` calls this once, before serving)."""
    global _metrics, _access_log, _tracing
    _metrics = metrics_on
    metrics.set_enabled(metrics_on)
    _access_log = access_log
    _tracing = tracing


def observing() -> bool:
    """True when a finished call feeds anything: the edges open records only then."""
    return _metrics or _access_log is not None or _tracing is not None


def tracing() -> Any:
    return _tracing


_NO_SPAN: contextlib.nullcontext[None] = contextlib.nullcontext()


def rules_span(method: str) -> contextlib.AbstractContextManager[Any]:
    """A span around the rules work of ``method`` when tracing is on; nothing otherwise."""
    return _NO_SPAN if _tracing is None else _tracing.rules(method)


def logging_calls() -> bool:
    """True when the access log is on (a call's request id and trace id are read only then)."""
    return _access_log is not None


# --------------------------------------------------------------------------- noted by the layers


def note_rpc(service: str, method: str) -> None:
    call = CURRENT.get()
    if call is not None:
        call.service = service
        call.method = method


def note_game(game: str) -> None:
    """The game of the call, once the registry knows it (never a name a client made up)."""
    call = CURRENT.get()
    if call is not None:
        call.game = game
        if call.span is not None:
            call.span.set_attribute("lawspeaker.game", game)


def note_refusal(code: str, reason: str) -> None:
    """The call is answered with an error: its gRPC code name and reason code."""
    call = CURRENT.get()
    if call is not None:
        call.code = code
        call.reason = reason


def note_violation(reason: str) -> None:
    """ValidateMove found the move illegal for ``reason`` (a valid answer, but a rejected move)."""
    call = CURRENT.get()
    if call is not None:
        call.violation = reason


def transport() -> str:
    """The transport of the current call ("library" outside of one)."""
    call = CURRENT.get()
    return call.transport if call is not None else "library"


def note_streaming() -> None:
    call = CURRENT.get()
    if call is not None:
        call.streaming = True


# --------------------------------------------------------------------------- the end of a call


def finish(call: Call) -> None:
    """Feed the finished ``call`` to what is on."""
    seconds = time.perf_counter() - call.started
    if not call.code:
        call.code = "OK" if 200 <= call.status < 400 or call.status == 0 else http_code(call.status)
    if _tracing is not None:  # first: it sets the trace id the access log carries
        _tracing.finished(call)
    if _metrics:
        metrics.request(
            call.transport,
            call.service,
            call.method,
            call.game,
            call.code,
            None if call.streaming else seconds,
        )
        if call.method in metrics.MOVE_METHODS:
            if call.violation:
                metrics.rejected(call.game, call.method, call.violation)
            elif call.code == "FAILED_PRECONDITION" and call.reason:
                metrics.rejected(call.game, call.method, call.reason)
    if _access_log is not None:
        _access_log(call, seconds)


def http_code(status: int) -> str:
    if status >= 500:
        return _HTTP_CODES.get(status, "INTERNAL")
    return _HTTP_CODES.get(status, "UNKNOWN" if status >= 400 else "OK")


def request_id_of(value: str | None) -> str:
    """The caller's request id when it is a plausible one (at most 128 safe characters), else a new
    one: it is logged and echoed, never stored, and never a label."""
    if value and _REQUEST_ID.match(value):
        return value
    return secrets.token_hex(8)


def trace_id_of(traceparent: str | None) -> str:
    """The trace id of a W3C ``traceparent`` header ("" when there is none or it is malformed)."""
    if traceparent:
        found = _TRACEPARENT.match(traceparent.strip().lower())
        if found and found[1] != "0" * 32:
            return found[1]
    return ""


# --------------------------------------------------------------------------- the HTTP edge

_CONNECT_PREFIX = "/lawspeaker."
_REQUEST_ID_BYTES = REQUEST_ID_HEADER.encode()
_TRACEPARENT_BYTES = b"traceparent"


def scope_headers(scope: Scope, first: bytes, second: bytes) -> tuple[str | None, str | None]:
    """The first value of each of two headers (lower-case names) of an ASGI request, None when it
    has none: one pass over the headers, for the middlewares that read two of them."""
    one = two = None
    for name, value in scope["headers"]:
        lowered = name.lower()
        if lowered == first and one is None:
            one = bytes(value).decode("latin-1")
        elif lowered == second and two is None:
            two = bytes(value).decode("latin-1")
    return one, two


def _echoing(send: Send, echo: bytes) -> Send:
    """``send`` with ``X-Request-Id: echo`` added to the answer's headers."""

    async def sending(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", ()), (b"x-request-id", echo)]
        await send(message)

    return sending


def request_id_middleware(app: ASGIApp) -> ASGIApp:
    """The ASGI middleware that answers every HTTP request with an ``X-Request-Id``: the caller's
    (when it is a plausible one, ``request_id_of``), else a new one. What serves when nothing
    observes calls; :func:`http_middleware` does the same when something does."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        given, _ = scope_headers(scope, _REQUEST_ID_BYTES, b"")
        await app(scope, receive, _echoing(send, request_id_of(given).encode()))

    return middleware


def http_middleware(app: ASGIApp) -> ASGIApp:
    """The ASGI middleware opening a record for every HTTP request (REST or Connect, by path).

    It reads the caller's ``X-Request-Id`` (or makes one) and echoes it in the answer (the access log
    line and the error logs carry it), and with the access log on reads ``traceparent`` for the trace
    id a log line carries."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        path: str = scope["path"]
        call = Call("connect" if path.startswith(_CONNECT_PREFIX) else "rest")
        request_id, traceparent = scope_headers(scope, _REQUEST_ID_BYTES, _TRACEPARENT_BYTES)
        call.request_id = request_id_of(request_id)
        echo = call.request_id.encode()
        if _access_log is not None:
            call.trace_id = trace_id_of(traceparent)
            call.http_method = scope["method"]
            call.path = path if len(path) <= MAX_LOGGED_PATH else path[:MAX_LOGGED_PATH] + "..."
        if _tracing is not None:
            call.span = _tracing.current_span()

        async def sending(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                call.status = message["status"]
                if call.span is not None:  # now: the answer's last message ends the server span
                    _tracing.finished(call)
                message["headers"] = [*message.get("headers", ()), (b"x-request-id", echo)]
            await send(message)

        token = CURRENT.set(call)
        try:
            await app(scope, receive, sending)
        except BaseException:
            if not call.status:
                call.status = 500
            raise
        finally:
            CURRENT.reset(token)
            finish(call)

    return middleware
