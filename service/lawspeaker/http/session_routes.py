"""The SessionService routes as their annotations bind them, with ``If-Match`` on the writes,
``If-None-Match`` (and GetSession's long poll) answering 304 on the reads, and the watch stream as
Server-Sent Events that an ``EventSource`` can resume: each event's ``id`` is the session etag, and a
reconnection's ``Last-Event-ID`` is the watch's ``resume_after_etag``. A seat token never goes in a URL:
``?token=`` is refused (an ``EventSource``, which cannot send headers, watches with a one-use
``?ticket=`` from CreateWatchTicket instead)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import msgspec
from google.protobuf.message import Message
from litestar import Request, Response, route
from litestar.enums import HttpMethod
from litestar.handlers import HTTPRouteHandler
from litestar.response import ServerSentEvent, ServerSentEventMessage

from lawspeaker.api import errors
from lawspeaker.games.core import ErrorCode, FieldViolation, LawspeakerError
from lawspeaker.http import semantics
from lawspeaker.http.bodies import decode_request, encode_answer, read_body, set_query, wants_protobuf
from lawspeaker.http.media import first_header, header_values
from lawspeaker.http.problems import Problem, problem_response
from lawspeaker.http.routes import (
    GET_SESSION,
    IF_MATCH_RPCS,
    SESSION_RPCS,
    EtagOf,
    Rpc,
    etag_getter,
    route_path,
    with_etag,
)
from lawspeaker.observe import calls, metrics
from lawspeaker.sessions.service import SessionApi, bearer
from lawspeaker.wire import protojson, structs

log = logging.getLogger(__name__)


SERVICE_NAME = "SessionService"
EVENT_STREAM = "text/event-stream"
SSE_KEEPALIVE_SECONDS = 15.0
SSE_RETRY_MS = 1000
"""The reconnection delay the first event of a watch sets (the SSE ``retry`` field): an EventSource
whose stream ends (a replica restarts) reconnects after 1 s, with Last-Event-ID, instead of the
browser's default of about 3 s."""
CONDITIONAL_GETS = frozenset({"GetSession", "ListSessionMoves"})
"""The reads whose answer carries the session etag: ``If-None-Match`` naming it answers 304."""
TOKEN_QUERY = ("token", "access_token")  # where a seat token is refused from (logs keep URLs)


def sse_response(first: Message | None, rest: AsyncIterator[Message | None]) -> ServerSentEvent:
    """A Server-Sent Events response: one ``message`` event per streamed response (proto3 JSON), and
    a comment line every SSE_KEEPALIVE_SECONDS of silence so that proxies keep the stream open.

    Each event's ``id`` is the etag of the version it carries (a browser's EventSource sends the last
    one back as ``Last-Event-ID`` when it reconnects). ``first`` None: a watch resumed at the current
    version, which starts with a comment and sends the next change.

    The next update is asked for only once the previous event has been handed to the server (the
    one update asked for meanwhile runs in a task, so that waiting for it can time out without
    cancelling it). So a client that stops reading stops the stream here, and the updates pile up
    where they are bounded: in the watcher's queue, which ends the stream as WATCH_STREAM_BEHIND.
    """

    def event(msg: Message) -> ServerSentEventMessage:
        etag: str = getattr(msg, "session").etag  # noqa: B009 - "" on the deleted message: no id
        return ServerSentEventMessage(
            data=msgspec.json.encode(protojson.to_dict(msg)).decode(), event="message", id=etag or None
        )

    def error(err: LawspeakerError) -> ServerSentEventMessage:
        calls.note_refusal(errors.code_name(err), err.reason)
        problem = {"status": errors.http_status(err), "reason": err.reason, "detail": err.message}
        return ServerSentEventMessage(data=msgspec.json.encode(problem).decode(), event="error")

    async def next_update() -> Message | None:
        return await anext(rest)

    async def events() -> AsyncIterator[ServerSentEventMessage]:
        pending: asyncio.Task[Message | None] | None = None
        try:
            if first is None:
                yield ServerSentEventMessage(
                    comment="resumed at the current version: no change since", data=None, retry=SSE_RETRY_MS
                )
            else:
                opening = event(first)
                opening.retry = SSE_RETRY_MS
                yield opening
            while True:
                if pending is None:
                    pending = asyncio.create_task(next_update())
                done, _ = await asyncio.wait((pending,), timeout=SSE_KEEPALIVE_SECONDS)
                if not done:
                    yield ServerSentEventMessage(comment="keep-alive", data=None)
                    continue
                got, pending = pending, None
                try:
                    msg = got.result()
                except StopAsyncIteration:
                    return
                except LawspeakerError as err:
                    yield error(err)
                    return
                except Exception:
                    log.exception("unexpected error in a watch stream")
                    return
                if msg is not None:
                    yield event(msg)
        finally:
            if pending is not None:
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending
            close = getattr(rest, "aclose", None)  # leave the watch (its subscription) now, not at GC
            if close is not None:
                with contextlib.suppress(BaseException):
                    await close()

    return ServerSentEvent(events(), headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def bound_handler(
    http_method: str,
    path: str,
    by_verb: Mapping[str, Rpc],
    call: Callable[[Rpc, Message, str | None, bool], Awaitable[Any]],
    stream: Callable[[Rpc, Message, str | None], AsyncIterator[Message | None]],
) -> HTTPRouteHandler:
    """One Litestar handler for every RPC bound to ``http_method path`` (they differ by ``:verb``)."""
    ends_in_param = path.endswith("}")
    last_param = path.rsplit("{", 1)[-1].split(":", 1)[0] if ends_in_param else ""
    etag_of = {r.name: etag_getter(r) for r in by_verb.values()}
    conditional = IF_MATCH_RPCS.intersection(r.name for r in by_verb.values())

    async def handle(request: Request[Any, Any, Any]) -> Response[Any]:
        params = {str(k): str(v) for k, v in request.path_params.items()}
        verb = ""
        if ends_in_param and ":" in params[last_param]:
            params[last_param], _, verb = params[last_param].rpartition(":")
        rpc = by_verb.get(verb)
        if rpc is None:  # a 404 when no method has the :verb here (``method_not_allowed``)
            raise Problem(
                405, "METHOD_NOT_ALLOWED", f"Method {http_method} is not allowed for {request.url.path}."
            )
        calls.note_rpc(SERVICE_NAME, rpc.name)
        if any(name in request.query_params for name in TOKEN_QUERY):
            raise token_in_url()
        token = bearer(first_header(request, b"authorization") or None)
        was_protobuf = False
        if rpc.body == "*":
            msg, was_protobuf = decode_request(
                rpc.request_type,
                await read_body(request),
                first_header(request, b"content-type"),
                strict=True,
            )
        else:
            msg = rpc.request_type()
            set_query(msg, rpc, request.query_params)
        for name, value in params.items():
            in_body: str = getattr(msg, name)
            if in_body and in_body != value:
                raise LawspeakerError(
                    ErrorCode.MALFORMED,
                    f"{name.upper()}_MISMATCH",
                    f"The body names {name} {in_body!r} but the path names {value!r}.",
                    (FieldViolation(name, f"must be {value!r}, as in the path, or unset"),),
                )
            setattr(msg, name, value)
        if rpc.streaming:
            calls.note_streaming()
            last_event_id = first_header(request, b"last-event-id")
            if last_event_id and not getattr(msg, "resume_after_etag"):  # noqa: B009
                setattr(msg, "resume_after_etag", last_event_id)  # noqa: B010
            updates = stream(rpc, msg, token)
            first = await updates.__anext__()  # errors before the first update are plain HTTP errors
            response = sse_response(first, updates)
            return response if first is None else with_etag(response, etag_of[rpc.name], first)
        protobuf = wants_protobuf(request, was_protobuf)
        if rpc.name in conditional:
            if_match = header_values(request, b"if-match")
            if if_match:
                return await call_if_match(rpc, msg, token, protobuf, call, if_match, etag_of[rpc.name])
        answer = await call(rpc, msg, token, protobuf)
        if rpc.name in CONDITIONAL_GETS:
            unchanged = not_modified(request, msg, etag_of[rpc.name], answer)
            if unchanged is not None:
                return unchanged
        return with_etag(encode_answer(answer, protobuf), etag_of[rpc.name], answer)

    names = "_".join(r.api_method for r in by_verb.values())
    handle.__name__ = f"{http_method.lower()}_{names}"
    return route(path, http_method=[HttpMethod(http_method)], status_code=200, name=handle.__name__)(handle)


async def call_if_match(
    rpc: Rpc,
    msg: Message,
    token: str | None,
    protobuf: bool,
    call: Callable[[Rpc, Message, str | None, bool], Awaitable[Any]],
    if_match: str,
    etag_of: EtagOf | None,
) -> Response[Any]:
    """``rpc`` (SessionApplyMove or UndoMove) under ``If-Match``: the write is made on the version
    If-Match and the body's etag name together (``semantics.etag_for``), and a version that
    is not one If-Match names answers 412 instead of 409."""
    conditions = semantics.parse_if_match(if_match)
    if not conditions.any:
        etag = semantics.etag_for(conditions, getattr(msg, "etag"))  # noqa: B009
        if etag is None:  # several tags, or only weak ones: the current version decides
            session: str = getattr(msg, "session")  # noqa: B009
            get = GET_SESSION.request_type()
            setattr(get, "session", session)  # noqa: B010 - Message's stub takes no field arguments
            got = await call(GET_SESSION, get, token, True)
            etag = got.session.etag
            if etag not in conditions.tags:
                metrics.write_conflict(session.partition(".")[0])  # refused without a write: count it here
                return precondition_failed(semantics.not_current(session, etag, conditions))
        setattr(msg, "etag", etag)  # noqa: B010
    try:
        answer = await call(rpc, msg, token, protobuf)
    except LawspeakerError as err:
        if conditions.any or err.reason != semantics.ETAG_MISMATCH:
            raise
        if err.metadata.get("etag") in conditions.tags:
            raise  # If-Match holds (the version is one it names): only the body's etag is stale
        return precondition_failed(err)
    return with_etag(encode_answer(answer, protobuf), etag_of, answer)


def token_in_url() -> LawspeakerError:
    return LawspeakerError(
        ErrorCode.MALFORMED,
        "SEAT_TOKEN_IN_URL",
        "A seat token does not go in a URL, where access logs and proxies keep it: send it as "
        "'Authorization: Bearer <token>'. A browser's EventSource, which cannot send headers, makes a "
        "one-use watch ticket with POST /v1/sessions/{session}:watchTicket and watches with ?ticket=.",
        (FieldViolation("token", "must not be in the query string"),),
    )


def not_modified(
    request: Request[Any, Any, Any], msg: Message, etag_of: EtagOf | None, answer: Any
) -> Response[bytes] | None:
    """A 304 for a read whose answer is at a version the caller has: ``If-None-Match`` names its
    etag (weak comparison, RFC 9110 section 13.1.2; ``*`` matches any), or a long poll
    (``wait_for_change``) ended at the version it waited on. None when the answer is to be sent."""
    etag = etag_of(answer) if etag_of is not None else ""
    if not etag:
        return None
    unchanged = getattr(msg, "wait_for_change", "") == etag
    if not unchanged:
        if_none_match = header_values(request, b"if-none-match")
        unchanged = bool(if_none_match) and semantics.none_match(if_none_match, etag)
    if not unchanged:
        return None
    return Response(b"", status_code=304, headers={"ETag": semantics.quoted(etag)})


def precondition_failed(err: LawspeakerError) -> Response[bytes]:
    """A session version mismatch as If-Match's 412: the problem names the reason, the current
    etag in its metadata and the ``ETag`` header (when the version is known)."""
    current = str(err.metadata.get("etag", ""))
    headers = {"ETag": semantics.quoted(current)} if current.isdigit() else {}
    return problem_response(
        412,
        err.reason,
        err.message,
        errors.code_name(err),
        (FieldViolation("If-Match", "names no entity tag that is the session's current version"),),
        errors.error_metadata(err),
        headers,
    )


SESSION_WIRE_METHODS = {"SessionApplyMove": "session_apply_move_wire"}
"""SessionService RPCs whose JSON answers are built over ``lawspeaker.wire.structs`` messages (the call a
game makes on every move); the others answer with protobuf messages, written by ``protojson``."""


async def call_session(
    api: SessionApi, rpc: Rpc, msg: Message, token: str | None, json: bool
) -> Message | structs.Message:
    """A SessionService call, for REST and Connect: over wire messages for a JSON caller where
    ``SESSION_WIRE_METHODS`` has the RPC, else over protobuf."""
    name = SESSION_WIRE_METHODS.get(rpc.name, rpc.api_method) if json else rpc.api_method
    method: Callable[[Message, str | None], Awaitable[Message | structs.Message]] = getattr(api, name)
    return await method(msg, token)


def session_handlers(api: SessionApi) -> list[HTTPRouteHandler]:
    """The SessionService routes, as the annotations of its RPCs bind them."""

    async def call(rpc: Rpc, msg: Message, token: str | None, protobuf: bool) -> Message | structs.Message:
        return await call_session(api, rpc, msg, token, json=not protobuf)

    def stream(rpc: Rpc, msg: Message, token: str | None) -> AsyncIterator[Message | None]:
        if rpc.name == "WatchSession":  # None first when resumed at the current version
            return api.watch_session_updates(msg, token)  # type: ignore[arg-type]
        method: Callable[[Message, str | None], AsyncIterator[Message]] = getattr(api, rpc.api_method)
        return method(msg, token)

    groups: dict[tuple[str, str], dict[str, Rpc]] = {}
    for rpc in SESSION_RPCS:
        groups.setdefault((rpc.http_method, route_path(rpc.template)), {})[rpc.verb] = rpc
    return [bound_handler(m, p, by_verb, call, stream) for (m, p), by_verb in groups.items()]
