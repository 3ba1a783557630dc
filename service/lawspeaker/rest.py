"""The REST transport: RulesService and SessionService over HTTP as their ``google.api.http``
annotations say (SessionService's server stream is a text/event-stream of Server-Sent Events).

Bodies are the proto3 JSON mapping of the request message (or binary protobuf with
``Content-Type: application/x-protobuf``); responses are proto3 JSON, or binary protobuf when the
``Accept`` header asks for it. Every error is an RFC 9457 ``application/problem+json`` document,
mapped once by the exception handlers at the bottom of this module. The OpenAPI 3.1 document is
built from the protobuf descriptors, so it cannot drift from the contract.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import operator
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

import msgspec
from google.api import annotations_pb2
from google.protobuf import descriptor, json_format
from google.protobuf.message import Message
from litestar import Litestar, Request, Response, get, post, route
from litestar.config.cors import CORSConfig
from litestar.datastructures import State
from litestar.enums import HttpMethod
from litestar.exceptions import HTTPException
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath
from litestar.response import ServerSentEvent, ServerSentEventMessage

from lawspeaker import errors, http_semantics, inbound, proto_comments, protojson, wire
from lawspeaker.access import Access
from lawspeaker.api import RulesApi
from lawspeaker.games.core import ErrorCode, FieldViolation, LawspeakerError
from lawspeaker.sessions.service import SessionApi, bearer
from lawspeaker.v1 import rules_service_pb2, session_service_pb2

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1024 * 1024
JSON = "application/json"
PROBLEM_JSON = "application/problem+json"
PROTOBUF_TYPES = ("application/x-protobuf", "application/protobuf")
PROBLEM_BASE = "https://lawspeaker.dev/problems/"
API_VERSION = "v1"

SERVICE: descriptor.ServiceDescriptor = rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"]
SESSION_SERVICE: descriptor.ServiceDescriptor = session_service_pb2.DESCRIPTOR.services_by_name[
    "SessionService"
]
EVENT_STREAM = "text/event-stream"
SSE_KEEPALIVE_SECONDS = 15.0

# --------------------------------------------------------------------------- the contract's routes


@dataclass(frozen=True, slots=True)
class Rpc:
    """One RPC and its HTTP binding, read from the ``google.api.http`` option."""

    method: descriptor.MethodDescriptor
    http_method: str  # "GET", "POST" or "DELETE"
    template: str  # e.g. "/v1/games/{game}:new"
    body: str  # "" or "*"
    path_params: tuple[str, ...]
    verb: str  # the ":verb" suffix, or ""
    module: Any  # the generated _pb2 module holding the messages
    api_method: str  # the name of the API method serving it, e.g. "apply_move"
    input_name: str  # the request message's name, e.g. "ApplyMoveRequest"

    @property
    def service(self) -> descriptor.ServiceDescriptor:
        return self.method.containing_service

    @property
    def streaming(self) -> bool:
        return bool(self.method.server_streaming)

    @property
    def query_params(self) -> tuple[str, ...]:
        """The request fields a body-less RPC takes from the query string."""
        if self.body:
            return ()
        return tuple(f.name for f in self.method.input_type.fields if f.name not in self.path_params)

    @property
    def name(self) -> str:
        return str(self.method.name)

    @property
    def request_type(self) -> type[Message]:
        cls: type[Message] = getattr(self.module, self.method.input_type.name)
        return cls


def _rpcs(service: descriptor.ServiceDescriptor, module: Any) -> tuple[Rpc, ...]:
    out = []
    for method in service.methods:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        kind = rule.WhichOneof("pattern")
        if kind not in ("get", "post", "delete"):
            raise ValueError(f"{method.name}: unsupported http pattern {kind!r}")
        template: str = getattr(rule, kind)
        last = template.rsplit("/", 1)[-1]
        verb = last.rsplit(":", 1)[1] if ":" in last else ""
        params = tuple(re.findall(r"{(\w+)}", template))
        api_method = re.sub(r"(?<!^)(?=[A-Z])", "_", method.name).lower()
        out.append(
            Rpc(
                method,
                kind.upper(),
                template,
                rule.body,
                params,
                verb,
                module,
                api_method,
                method.input_type.name,
            )
        )
    return tuple(out)


RPCS = _rpcs(SERVICE, rules_service_pb2)
SESSION_RPCS = _rpcs(SESSION_SERVICE, session_service_pb2)
COLLECTION = "/v1/games"
RESOURCE = "/v1/games/{game}"
RESOURCE_ROUTE = "/v1/games/{game:str}"  # Litestar syntax; POST gets "valhalla:new" whole
_GET_RPCS = {r.template: r for r in RPCS if r.http_method == "GET"}
_VERB_RPCS = {r.verb: r for r in RPCS if r.http_method == "POST"}
for _rpc in RPCS:  # the routes below are written for exactly these shapes
    if _rpc.http_method == "GET" and _rpc.template not in (COLLECTION, RESOURCE):
        raise ValueError(f"{_rpc.name}: unexpected GET route {_rpc.template}")
    if _rpc.http_method == "POST" and _rpc.template != f"{RESOURCE}:{_rpc.verb}":
        raise ValueError(f"{_rpc.name}: unexpected POST route {_rpc.template}")


# --------------------------------------------------------------------------- problems


@dataclass
class Problem(Exception):
    """An HTTP-level error the REST transport raises itself (not one from the API)."""

    status: int
    reason: str
    detail: str
    field_violations: Sequence[FieldViolation] = ()
    headers: Mapping[str, str] = field(default_factory=dict)


def _problem_response(
    status: int,
    reason: str,
    detail: str,
    code: str,
    violations: Sequence[FieldViolation] = (),
    metadata: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response[bytes]:
    doc: dict[str, Any] = {
        "type": PROBLEM_BASE + reason.lower().replace("_", "-"),
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
        "reason": reason,
    }
    if violations:
        doc["fieldViolations"] = [{"field": v.field, "description": v.description} for v in violations]
    if metadata:
        doc["metadata"] = dict(metadata)
    return Response(
        msgspec.json.encode(doc), status_code=status, media_type=PROBLEM_JSON, headers=dict(headers or {})
    )


def _lawspeaker_error(_: Request[Any, Any, Any], err: LawspeakerError) -> Response[bytes]:
    return _problem_response(
        errors.http_status(err),
        err.reason,
        err.message,
        errors.code_name(err),
        err.field_violations,
        errors.error_metadata(err),
        errors.retry_after_header(err),
    )


def _problem(request: Request[Any, Any, Any], exc: Problem) -> Response[bytes]:
    if exc.status == 405 and not exc.headers:
        return _method_not_allowed(request, exc.detail, {})
    code = errors.HTTP_CODE_NAMES.get(exc.status, "UNKNOWN")
    return _problem_response(
        exc.status, exc.reason, exc.detail, code, exc.field_violations, None, exc.headers
    )


_HTTP_REASONS = {
    404: ("ROUTE_NOT_FOUND", "No route matches {method} {path}."),
    405: ("METHOD_NOT_ALLOWED", "Method {method} is not allowed for {path}."),
    413: ("BODY_TOO_LARGE", f"The request body exceeds the limit of {MAX_BODY_BYTES} bytes."),
}


def _http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    status = exc.status_code
    if status >= 500:
        return _internal(request, exc)
    reason, template = _HTTP_REASONS.get(status, ("BAD_REQUEST", "{detail}"))
    detail = template.format(method=request.method, path=request.url.path, detail=exc.detail)
    headers = {k: v for k, v in (exc.headers or {}).items() if k.lower() == "allow"}
    if status == 405:
        return _method_not_allowed(request, detail, headers)
    code = errors.HTTP_CODE_NAMES.get(status, "UNKNOWN")
    return _problem_response(status, reason, detail, code, headers=headers)


ALLOW_TABLE = "lawspeaker.allow"  # the app state key of the app's http_semantics.AllowTable


def _method_not_allowed(
    request: Request[Any, Any, Any], detail: str, fallback: Mapping[str, str]
) -> Response[bytes]:
    """A 405 whose ``Allow`` names the methods of the route's ``:verb`` (Litestar's own, in
    ``fallback``, names those of every verb on the path), or a 404 when the route has no such verb."""
    table: http_semantics.AllowTable | None = request.app.state.get(ALLOW_TABLE)
    path = request.scope["path"]
    methods = table.lookup(path) if table is not None else None
    if table is not None and methods is not None and not methods:
        detail = f"No route matches {request.method} {path}."
        _, colon, verb = path.rsplit("/", 1)[-1].rpartition(":")
        if colon:
            known = ", ".join(f":{v}" for v in table.verbs(path)) or "none"
            detail = f"{detail[:-1]}: unknown method ':{verb}'; known methods: {known}."
        return _problem_response(404, "ROUTE_NOT_FOUND", detail, "NOT_FOUND")
    headers = {"Allow": http_semantics.allow_header(methods)} if methods else dict(fallback)
    return _problem_response(405, "METHOD_NOT_ALLOWED", detail, "UNIMPLEMENTED", headers=headers)


def _internal(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    return _problem_response(500, "INTERNAL", "Internal error.", "INTERNAL")


# --------------------------------------------------------------------------- encoding


def _media_type(header: str) -> str:
    return header.split(";", 1)[0].strip().lower()


def _is_json(media: str) -> bool:
    return media == JSON or (media.startswith("application/") and media.endswith("+json"))


def _wants_protobuf(request: Request[Any, Any, Any], request_was_protobuf: bool) -> bool:
    return _accepts_protobuf(_header(request, b"accept"), request_was_protobuf)


def _accepts_protobuf(accept: str, request_was_protobuf: bool) -> bool:
    """Whether an ``Accept`` header asks for binary protobuf (unsaid: as the request came)."""
    if not accept or accept == "*/*" or accept == JSON:
        return request_was_protobuf
    for part in accept.split(","):
        media = _media_type(part)
        params = part.split(";")[1:]
        if any(p.strip().replace(" ", "") in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in params):
            continue
        if media in PROTOBUF_TYPES:
            return True
        if _is_json(media) or media == "application/*":
            return False
    return request_was_protobuf


_AT = re.compile(r' at "?([A-Za-z_][\w.\[\]]*?)"?\.*$')
_FAILED = re.compile(r"Failed to parse (\w+) field: ")
_NO_FIELD = re.compile(r'has no field named "([^"]+)"')


def _parse_error(cls: type[Message], err: json_format.ParseError, data: dict[str, Any]) -> LawspeakerError:
    """A MALFORMED error naming, as well as the protobuf library lets us, the field at fault. A
    value of the wrong JSON kind is described in JSON's words (``inbound.json_kind_mismatch``), not
    in those of the Python error json_format met."""
    mismatch = inbound.json_kind_mismatch(data, cls.DESCRIPTOR)
    if mismatch is not None:
        field, description = mismatch
        name = cls.DESCRIPTOR.full_name
        detail = f"The request body is not a valid proto3 JSON {name}: {field} {description}."
        return LawspeakerError(
            ErrorCode.MALFORMED, "INVALID_FIELD_VALUE", detail, (FieldViolation(field, description),)
        )
    text = str(err).split("\n", 1)[0].strip()
    at = _AT.search(text)
    # "... at Message.path.to.field": drop the leading message name.
    path = at.group(1).partition(".")[2] if at else ".".join(_FAILED.findall(text))
    unknown = _NO_FIELD.search(text)
    if unknown:
        path = f"{path}.{unknown.group(1)}" if path else unknown.group(1)
        reason, description = "UNKNOWN_FIELD", "is not a field of the request"
    else:
        reason, description = "INVALID_FIELD_VALUE", text
    detail = f"The request body is not a valid proto3 JSON {cls.DESCRIPTOR.full_name}: {text}"
    return LawspeakerError(
        ErrorCode.MALFORMED, reason, detail, (FieldViolation(path or "body", description),)
    )


def _decode(cls: type[Message], body: bytes, content_type: str) -> tuple[Message, bool]:
    """The request message and whether it came as binary protobuf."""
    media = _media_type(content_type) if content_type else ""
    if media in PROTOBUF_TYPES:
        return inbound.parse_protobuf(cls, body), True
    if media and not _is_json(media):
        accepted = ", ".join((JSON, *PROTOBUF_TYPES))
        raise Problem(
            415, "UNSUPPORTED_MEDIA_TYPE", f"Content-Type {media!r} is not supported; use {accepted}."
        )
    if not body.strip():
        return cls(), False
    inbound.check_json_depth(body)
    try:
        data = msgspec.json.decode(body)
    except msgspec.DecodeError as err:
        raise LawspeakerError(
            ErrorCode.MALFORMED,
            "MALFORMED_JSON",
            f"The request body is not valid JSON: {err}",
            (FieldViolation("body", str(err)),),
        ) from None
    if not isinstance(data, dict):
        raise LawspeakerError(
            ErrorCode.MALFORMED,
            "MALFORMED_JSON",
            f"The request body must be a JSON object (the proto3 JSON of {cls.DESCRIPTOR.full_name}).",
            (FieldViolation("body", "must be a JSON object"),),
        )
    try:
        return protojson.parse(data, cls), False
    except json_format.ParseError as err:
        raise _parse_error(cls, err, data) from None


async def _read_body(request: Request[Any, Any, Any]) -> bytes:
    """The request body, refused with 413 once it passes ``MAX_BODY_BYTES``.

    Read from the ASGI ``receive`` channel directly: Litestar's ``Request.body()`` does the same
    with a good deal more machinery per call, which on the hot RPCs is a measurable part of the
    request's cost.
    """
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await request.receive()
        if message["type"] != "http.request":  # the client went away
            raise Problem(400, "CLIENT_DISCONNECTED", "The client disconnected before sending the body.")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise Problem(413, *_HTTP_REASONS[413])
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _header(request: Request[Any, Any, Any], name: bytes) -> str:
    """One request header (the first), from the raw ASGI list: ``name`` in lower case."""
    for key, value in request.scope["headers"]:
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


_WIRE = wire.default_wire()
"""The contract's messages as msgspec Structs: canonical proto3 JSON bodies of the RulesService
POST RPCs are decoded into these and their responses written from them, with no protobuf in
between (``RulesApi.on_wire``)."""


def _wire_decode(rpc: Rpc, body: bytes, content_type: str) -> Any | None:
    """The request as a wire message when the body is canonical proto3 JSON, else None (the
    general path then decides, with its own errors)."""
    cls = getattr(_WIRE, rpc.input_name, None)
    if cls is None or (content_type and not _is_json(_media_type(content_type))):
        return None
    try:
        return _WIRE.decode(cls, body)
    except (msgspec.MsgspecError, ValueError, TypeError):
        return None


def _encode(msg: Message | wire.Message, protobuf: bool) -> Response[bytes]:
    if isinstance(msg, wire.Message):
        return Response(wire.encode(msg), media_type=JSON)
    if protobuf:
        return Response(msg.SerializeToString(), media_type=PROTOBUF_TYPES[0])
    return Response(msgspec.json.encode(protojson.to_dict(msg)), media_type=JSON)


def answer_post(
    rules: RulesApi,
    fast: RulesApi | None,
    rpc: Rpc,
    game_id: str,
    body: bytes,
    content_type: str,
    accept: str,
) -> tuple[bytes, str]:
    """The response body and media type of a RulesService POST RPC on ``game_id``, or the
    LawspeakerError / Problem refusing it.

    A canonical proto3 JSON body that asks for a JSON answer goes through ``fast`` (a RulesApi over
    ``lawspeaker.wire`` messages); anything else, or everything when ``fast`` is None, through
    ``rules`` over protobuf. Both give the same answer (``tests/unit/test_wire.py``).
    """
    if fast is not None and not _accepts_protobuf(accept, False):
        wired = _wire_decode(rpc, body, content_type)
        if wired is not None:
            _check_game(wired.game, game_id)
            answer = wire_answer(fast, rpc, msgspec.structs.replace(wired, game=game_id))
            if answer is not None:
                return answer, JSON
    msg, was_protobuf = _decode(rpc.request_type, body, content_type)
    _check_game(getattr(msg, "game"), game_id)  # noqa: B009
    setattr(msg, "game", game_id)  # noqa: B010
    response = _call(rules, rpc, msg)
    if _accepts_protobuf(accept, was_protobuf):
        return response.SerializeToString(), PROTOBUF_TYPES[0]
    return msgspec.json.encode(protojson.to_dict(response)), JSON


WIRE_RPCS = frozenset(r.name for r in _VERB_RPCS.values())
"""The RulesService RPCs served over ``lawspeaker.wire`` messages for JSON: the four POST ones (the
GET ones are cheap, and DescribeGame's answer holds a google.protobuf.Struct)."""


def wire_answer(fast: RulesApi, rpc: Rpc, wired: Any) -> bytes | None:
    """The JSON answer of ``rpc`` to a wire request, or None when the request turns out not to be
    canonical (two members of a oneof): the API is pure, so the caller starts over on the general
    path. Errors are raised as on that path."""
    with contextlib.suppress(wire.NotCanonical):
        return wire.encode(_call(fast, rpc, wired))
    return None


def _check_game(body_game: str, game_id: str) -> None:
    if body_game and body_game != game_id:
        raise LawspeakerError(
            ErrorCode.MALFORMED,
            "GAME_MISMATCH",
            f"The body names game {body_game!r} but the path names {game_id!r}.",
            (FieldViolation("game", f"must be {game_id!r}, as in the path, or unset"),),
        )


def _call(api: RulesApi, rpc: Rpc, msg: Any) -> Any:
    method: Callable[[Message], Message] = getattr(api, rpc.api_method)
    return method(msg)


# --------------------------------------------------------------------------- generic bindings


def _route_path(template: str) -> str:
    """The Litestar path of a template: the ``:verb`` is left to the handler, ``{x}`` is ``{x:str}``."""
    last = template.rsplit("/", 1)[-1]
    if ":" in last:
        template = template[: template.rindex(":")]
    return re.sub(r"{(\w+)}", r"{\1:str}", template)


def _set_query(msg: Message, rpc: Rpc, query: Mapping[str, str]) -> None:
    """The request fields of a body-less RPC, from the query string (proto or JSON names)."""
    fields = msg.DESCRIPTOR.fields_by_name
    for name in rpc.query_params:
        f = fields[name]
        raw = query.get(name, query.get(f.json_name))
        if raw is None:
            continue
        if f.type == FD.TYPE_STRING:
            setattr(msg, name, raw)
            continue
        try:
            setattr(msg, name, int(raw))
        except (TypeError, ValueError):
            raise LawspeakerError(
                ErrorCode.MALFORMED,
                "INVALID_FIELD_VALUE",
                f"Query parameter {f.json_name}: {raw!r} is not an integer in range.",
                (FieldViolation(name, "must be an integer"),),
            ) from None


def _sse(first: Message, rest: AsyncIterator[Message]) -> ServerSentEvent:
    """A Server-Sent Events response: one ``message`` event per streamed response (proto3 JSON), and
    a comment line every SSE_KEEPALIVE_SECONDS of silence so that proxies keep the stream open.

    The next update is asked for only once the previous event has been handed to the server (the
    one update asked for meanwhile runs in a task, so that waiting for it can time out without
    cancelling it). So a client that stops reading stops the stream here, and the updates pile up
    where they are bounded: in the watcher's queue, which ends the stream as WATCH_STREAM_BEHIND.
    """

    def event(msg: Message) -> ServerSentEventMessage:
        return ServerSentEventMessage(
            data=msgspec.json.encode(protojson.to_dict(msg)).decode(), event="message"
        )

    def error(err: LawspeakerError) -> ServerSentEventMessage:
        problem = {"status": errors.http_status(err), "reason": err.reason, "detail": err.message}
        return ServerSentEventMessage(data=msgspec.json.encode(problem).decode(), event="error")

    async def next_update() -> Message:
        return await anext(rest)

    async def events() -> AsyncIterator[ServerSentEventMessage]:
        pending: asyncio.Task[Message] | None = None
        try:
            yield event(first)
            while True:
                if pending is None:
                    pending = asyncio.create_task(next_update())
                done, _ = await asyncio.wait((pending,), timeout=SSE_KEEPALIVE_SECONDS)
                if not done:
                    yield ServerSentEventMessage(comment="keep-alive")
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


def _bound_handler(
    http_method: str,
    path: str,
    by_verb: Mapping[str, Rpc],
    call: Callable[[Rpc, Message, str | None, bool], Awaitable[Any]],
    stream: Callable[[Rpc, Message, str | None], AsyncIterator[Message]],
) -> HTTPRouteHandler:
    """One Litestar handler for every RPC bound to ``http_method path`` (they differ by ``:verb``)."""
    ends_in_param = path.endswith("}")
    last_param = path.rsplit("{", 1)[-1].split(":", 1)[0] if ends_in_param else ""
    etag_of = {r.name: _etag_getter(r) for r in by_verb.values()}
    conditional = IF_MATCH_RPCS.intersection(r.name for r in by_verb.values())

    async def handle(request: Request[Any, Any, Any]) -> Response[Any]:
        params = {str(k): str(v) for k, v in request.path_params.items()}
        verb = ""
        if ends_in_param and ":" in params[last_param]:
            params[last_param], _, verb = params[last_param].rpartition(":")
        rpc = by_verb.get(verb)
        if rpc is None:  # a 404 when no method has the :verb here (``_method_not_allowed``)
            raise Problem(
                405, "METHOD_NOT_ALLOWED", f"Method {http_method} is not allowed for {request.url.path}."
            )
        token = bearer(_header(request, b"authorization") or None)
        was_protobuf = False
        if rpc.body == "*":
            msg, was_protobuf = _decode(
                rpc.request_type, await _read_body(request), _header(request, b"content-type")
            )
        else:
            msg = rpc.request_type()
            _set_query(msg, rpc, request.query_params)
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
            updates = stream(rpc, msg, token)
            first = await updates.__anext__()  # errors before the first update are plain HTTP errors
            return _with_etag(_sse(first, updates), etag_of[rpc.name], first)
        protobuf = _wants_protobuf(request, was_protobuf)
        if rpc.name in conditional:
            if_match = _header_values(request, b"if-match")
            if if_match:
                return await _call_if_match(rpc, msg, token, protobuf, call, if_match, etag_of[rpc.name])
        answer = await call(rpc, msg, token, protobuf)
        return _with_etag(_encode(answer, protobuf), etag_of[rpc.name], answer)

    names = "_".join(r.api_method for r in by_verb.values())
    handle.__name__ = f"{http_method.lower()}_{names}"
    return route(path, http_method=[HttpMethod(http_method)], status_code=200, name=handle.__name__)(handle)


IF_MATCH_RPCS = frozenset({"SessionApplyMove", "UndoMove"})
"""The RPCs whose ``If-Match`` header is a precondition on the version they write (the body's
``etag`` works as before; README "Game sessions" gives the rules)."""
_GET_SESSION = next(r for r in SESSION_RPCS if r.name == "GetSession")
EtagOf = Callable[[Any], str]


def _etag_getter(rpc: Rpc) -> EtagOf | None:
    """How to read the session etag a response of ``rpc`` carries; None when it carries none."""
    fields = rpc.method.output_type.fields_by_name
    session = fields.get("session")
    if session is not None and "etag" in getattr(session.message_type, "fields_by_name", ()):
        return operator.attrgetter("session.etag")
    return operator.attrgetter("etag") if "etag" in fields else None


def _with_etag(response: Response[Any], etag_of: EtagOf | None, answer: Any) -> Response[Any]:
    """``response`` with the ``ETag`` header of the session version ``answer`` carries, if any."""
    if etag_of is not None:
        etag = etag_of(answer)
        if etag:
            response.headers["ETag"] = f'"{etag}"'
    return response


def _header_values(request: Request[Any, Any, Any], name: bytes) -> str:
    """Every line of a request header, joined as one list (RFC 9110 section 5.3)."""
    return ", ".join(bytes(v).decode("latin-1") for k, v in request.scope["headers"] if k.lower() == name)


async def _call_if_match(
    rpc: Rpc,
    msg: Message,
    token: str | None,
    protobuf: bool,
    call: Callable[[Rpc, Message, str | None, bool], Awaitable[Any]],
    if_match: str,
    etag_of: EtagOf | None,
) -> Response[Any]:
    """``rpc`` (SessionApplyMove or UndoMove) under ``If-Match``: the write is made on the version
    If-Match and the body's etag name together (``http_semantics.etag_for``), and a version that
    is not one If-Match names answers 412 instead of 409."""
    conditions = http_semantics.parse_if_match(if_match)
    if not conditions.any:
        etag = http_semantics.etag_for(conditions, getattr(msg, "etag"))  # noqa: B009
        if etag is None:  # several tags, or only weak ones: the current version decides
            session: str = getattr(msg, "session")  # noqa: B009
            got = await call(_GET_SESSION, _GET_SESSION.request_type(session=session), token, True)
            etag = got.session.etag
            if etag not in conditions.tags:
                return _precondition_failed(http_semantics.not_current(session, etag, conditions))
        setattr(msg, "etag", etag)  # noqa: B010
    try:
        answer = await call(rpc, msg, token, protobuf)
    except LawspeakerError as err:
        if conditions.any or err.reason != http_semantics.ETAG_MISMATCH:
            raise
        if err.metadata.get("etag") in conditions.tags:
            raise  # If-Match holds (the version is one it names): only the body's etag is stale
        return _precondition_failed(err)
    return _with_etag(_encode(answer, protobuf), etag_of, answer)


def _precondition_failed(err: LawspeakerError) -> Response[bytes]:
    """A session version mismatch as If-Match's 412: the problem names the reason, the current
    etag in its metadata and the ``ETag`` header (when the version is known)."""
    current = str(err.metadata.get("etag", ""))
    headers = {"ETag": http_semantics.quoted(current)} if current.isdigit() else {}
    return _problem_response(
        412,
        err.reason,
        err.message,
        errors.code_name(err),
        (FieldViolation("If-Match", "names no entity tag that is the session's current version"),),
        errors.error_metadata(err),
        headers,
    )


SESSION_WIRE_METHODS = {"SessionApplyMove": "session_apply_move_wire"}
"""SessionService RPCs whose JSON answers are built over ``lawspeaker.wire`` messages (the call a
game makes on every move); the others answer with protobuf messages, written by ``protojson``."""


async def call_session(
    api: SessionApi, rpc: Rpc, msg: Message, token: str | None, json: bool
) -> Message | wire.Message:
    """A SessionService call, for REST and Connect: over wire messages for a JSON caller where
    ``SESSION_WIRE_METHODS`` has the RPC, else over protobuf."""
    name = SESSION_WIRE_METHODS.get(rpc.name, rpc.api_method) if json else rpc.api_method
    method: Callable[[Message, str | None], Awaitable[Message | wire.Message]] = getattr(api, name)
    return await method(msg, token)


def _session_handlers(api: SessionApi) -> list[HTTPRouteHandler]:
    """The SessionService routes, as the annotations of its RPCs bind them."""

    async def call(rpc: Rpc, msg: Message, token: str | None, protobuf: bool) -> Message | wire.Message:
        return await call_session(api, rpc, msg, token, json=not protobuf)

    def stream(rpc: Rpc, msg: Message, token: str | None) -> AsyncIterator[Message]:
        method: Callable[[Message, str | None], AsyncIterator[Message]] = getattr(api, rpc.api_method)
        return method(msg, token)

    groups: dict[tuple[str, str], dict[str, Rpc]] = {}
    for rpc in SESSION_RPCS:
        groups.setdefault((rpc.http_method, _route_path(rpc.template)), {})[rpc.verb] = rpc
    return [_bound_handler(m, p, by_verb, call, stream) for (m, p), by_verb in groups.items()]


# --------------------------------------------------------------------------- the app


def _options_handler(
    allow: http_semantics.AllowTable, handlers: Sequence[HTTPRouteHandler]
) -> HTTPRouteHandler:
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
            return _method_not_allowed(request, "", {})
        return Response(b"", status_code=204, headers={"Allow": http_semantics.allow_header(methods)})

    paths = sorted({p for h in handlers for p in h.paths})
    return route(paths, http_method=[HttpMethod.OPTIONS], status_code=200, name="options")(options)


def create_app(
    api: RulesApi | None = None,
    sessions: SessionApi | None = None,
    cors_origins: Sequence[str] = (),
    access: Access | None = None,
) -> Litestar:
    """The Litestar app serving RulesService (and, given ``sessions``, SessionService) over HTTP, as
    REST and as the Connect protocol (``lawspeaker.connect``), ``/healthz`` and ``/schema``.

    ``cors_origins`` (e.g. ``["https://app.example"]`` or ``["*"]``) turns CORS on for those origins.
    ``access`` (default: the sessions' ``limits.access``) says which calls need an API key and which
    proxies are trusted (``lawspeaker.guard``).
    """
    from lawspeaker import connect, guard  # they build on this module

    if access is None:
        access = sessions.limits.access if sessions is not None else Access()

    rules = api if api is not None else RulesApi()
    fast = rules.on_wire

    @get(COLLECTION)
    async def list_games(request: Request[Any, Any, Any]) -> Response[bytes]:
        rpc = _GET_RPCS[COLLECTION]
        return _encode(_call(rules, rpc, rpc.request_type()), _wants_protobuf(request, False))

    described: dict[tuple[str, bool], Response[bytes]] = {}  # fixed per game: encoded once

    @get(RESOURCE_ROUTE)
    async def describe_game(request: Request[Any, Any, Any], game: FromPath[str]) -> Response[bytes]:
        protobuf = _wants_protobuf(request, False)
        found = described.get((game, protobuf))
        if found is not None:
            return Response(found.content, media_type=found.media_type)
        if ":" in game:  # "valhalla:new" is a POST route (or, with an unknown verb, none)
            raise Problem(405, "METHOD_NOT_ALLOWED", f"Method GET is not allowed for {request.url.path}.")
        rpc = _GET_RPCS[RESOURCE]
        msg = rpc.request_type()
        setattr(msg, "game", game)  # noqa: B010 - the field named by the path template
        answer = _encode(_call(rules, rpc, msg), protobuf)
        described[(game, protobuf)] = answer  # only known games get here: an unknown one raised
        return Response(answer.content, media_type=answer.media_type)

    @post(RESOURCE_ROUTE, status_code=200)
    async def custom_method(request: Request[Any, Any, Any], game: FromPath[str]) -> Response[bytes]:
        game_id, sep, verb = game.rpartition(":")
        if not sep:
            raise Problem(405, "METHOD_NOT_ALLOWED", f"Method POST is not allowed for {request.url.path}.")
        rpc = _VERB_RPCS.get(verb)
        if rpc is None:
            known = ", ".join(f":{v}" for v in sorted(_VERB_RPCS))
            raise Problem(
                404, "ROUTE_NOT_FOUND", f"Unknown method ':{verb}' on {RESOURCE}; known methods: {known}."
            )
        body = await _read_body(request)
        content, media_type = answer_post(
            rules, fast, rpc, game_id, body, _header(request, b"content-type"), _header(request, b"accept")
        )
        return Response(content, media_type=media_type)

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

    @get(["/schema", "/schema/openapi.json"])
    async def schema() -> Response[bytes]:
        return Response(_openapi_bytes(), media_type="application/vnd.oai.openapi+json")

    rest_handlers = [
        list_games,
        describe_game,
        custom_method,
        healthz,
        health_details,
        schema,
        *(_session_handlers(sessions) if sessions is not None else ()),
    ]
    connect_handlers = connect.handlers(rules, sessions, fast)
    allow = http_semantics.AllowTable()
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
        route_handlers=[_options_handler(allow, handlers), *handlers],
        state=State({ALLOW_TABLE: allow}),
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
            LawspeakerError: _lawspeaker_error,
            Problem: _problem,
            HTTPException: _http_exception,
            Exception: _internal,
        },
        openapi_config=None,
        request_max_body_size=MAX_BODY_BYTES,
        middleware=[guard.http_middleware(access)],
        debug=False,
    )


# --------------------------------------------------------------------------- OpenAPI 3.1

FD = descriptor.FieldDescriptor
REF = "#/components/schemas/"
SEAT_TOKEN = "seatToken"
API_KEY = "apiKey"

_SCALARS: dict[int, dict[str, Any]] = {
    FD.TYPE_DOUBLE: {"type": "number", "format": "double"},
    FD.TYPE_FLOAT: {"type": "number", "format": "float"},
    FD.TYPE_INT32: {"type": "integer", "format": "int32"},
    FD.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FD.TYPE_SFIXED32: {"type": "integer", "format": "int32"},
    FD.TYPE_UINT32: {"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295},
    FD.TYPE_FIXED32: {"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295},
    FD.TYPE_INT64: {"type": ["string", "integer"], "format": "int64"},
    FD.TYPE_SINT64: {"type": ["string", "integer"], "format": "int64"},
    FD.TYPE_SFIXED64: {"type": ["string", "integer"], "format": "int64"},
    FD.TYPE_UINT64: {"type": ["string", "integer"], "format": "uint64"},
    FD.TYPE_FIXED64: {"type": ["string", "integer"], "format": "uint64"},
    FD.TYPE_BOOL: {"type": "boolean"},
    FD.TYPE_STRING: {"type": "string"},
    FD.TYPE_BYTES: {"type": "string", "format": "byte", "contentEncoding": "base64"},
}

_WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array", "items": {}},
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": r"^-?\d+(\.\d+)?s$"},
    "google.protobuf.Empty": {"type": "object", "additionalProperties": False},
}

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "An RFC 9457 problem document; every error of the REST API is one.",
    "required": ["type", "title", "status", "detail", "code", "reason"],
    "properties": {
        "type": {"type": "string", "format": "uri", "description": "Identifies the kind of problem."},
        "title": {"type": "string", "description": "The HTTP status phrase."},
        "status": {"type": "integer", "description": "The HTTP status code."},
        "detail": {"type": "string", "description": "What went wrong, in words."},
        "code": {"type": "string", "description": "The gRPC status code name, e.g. FAILED_PRECONDITION."},
        "reason": {
            "type": "string",
            "description": "A stable UPPER_SNAKE reason, as in the gRPC ErrorInfo, e.g. CAST_FIRST.",
        },
        "fieldViolations": {
            "type": "array",
            "description": "The request fields at fault.",
            "items": {
                "type": "object",
                "required": ["field", "description"],
                "properties": {
                    "field": {"type": "string", "description": "The path of the field."},
                    "description": {"type": "string", "description": "What is wrong with it."},
                },
            },
        },
        "metadata": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "The ErrorInfo metadata, including the error kind under 'code'.",
        },
    },
}


def _doc(full_name: str) -> str:
    """The .proto comment of an element, or its name when it has none."""
    return proto_comments.comments().get(full_name) or f"Protobuf {full_name}."


class _SchemaBuilder:
    def __init__(self) -> None:
        self.schemas: dict[str, dict[str, Any]] = {}

    def message(self, desc: descriptor.Descriptor) -> dict[str, Any]:
        if desc.full_name in _WELL_KNOWN:
            return dict(_WELL_KNOWN[desc.full_name])
        if desc.full_name not in self.schemas:
            self.schemas[desc.full_name] = {}  # placeholder against recursion
            self.schemas[desc.full_name] = self.object_schema(desc, ())
        return {"$ref": REF + desc.full_name}

    def object_schema(self, desc: descriptor.Descriptor, skip: Sequence[str]) -> dict[str, Any]:
        props = {f.json_name: self.field(f) for f in desc.fields if f.name not in skip}
        schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
        oneofs = [o for o in desc.oneofs if not o.name.startswith("_")]
        if oneofs:
            parts = [f"{o.name}: at most one of " + ", ".join(f.json_name for f in o.fields) for o in oneofs]
            schema["description"] = _doc(desc.full_name) + " Oneofs: " + "; ".join(parts) + "."
        else:
            schema["description"] = _doc(desc.full_name)
        return schema

    def enum(self, desc: descriptor.EnumDescriptor) -> dict[str, Any]:
        if desc.full_name not in self.schemas:
            self.schemas[desc.full_name] = {
                "type": "string",
                "enum": [v.name for v in desc.values],
                "description": _doc(desc.full_name)
                + " Values: "
                + "; ".join(f"{v.name}: {_doc(f'{desc.full_name}.{v.name}')}" for v in desc.values),
            }
        return {"$ref": REF + desc.full_name}

    def single(self, f: descriptor.FieldDescriptor) -> dict[str, Any]:
        if f.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
            assert f.message_type is not None
            return self.message(f.message_type)
        if f.type == FD.TYPE_ENUM:
            assert f.enum_type is not None
            return self.enum(f.enum_type)
        return dict(_SCALARS[f.type])

    def field(self, f: descriptor.FieldDescriptor) -> dict[str, Any]:
        schema: dict[str, Any]
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            value = f.message_type.fields_by_name["value"]
            schema = {"type": "object", "additionalProperties": self.single(value)}
        elif f.is_repeated:
            schema = {"type": "array", "items": self.single(f)}
        else:
            schema = self.single(f)
        comment = proto_comments.comments().get(f.full_name)
        if comment:
            schema["description"] = comment
        return schema


def _error_responses(statuses: Sequence[int]) -> dict[str, Any]:
    return {
        str(s): {
            "description": HTTPStatus(s).phrase,
            "content": {PROBLEM_JSON: {"schema": {"$ref": REF + "Problem"}}},
        }
        for s in statuses
    }


def _binary(full_name: str) -> dict[str, Any]:
    return {"schema": {"type": "string", "format": "binary", "description": f"Binary protobuf {full_name}."}}


def _operation(rpc: Rpc, builder: _SchemaBuilder) -> dict[str, Any]:
    out_desc = rpc.method.output_type
    in_desc = rpc.method.input_type
    op: dict[str, Any] = {
        "operationId": rpc.name,
        "summary": rpc.name,
        "tags": [rpc.service.name],
        "description": f"{_doc(rpc.method.full_name)} (gRPC {rpc.service.full_name}/{rpc.name}.)",
    }
    params = []
    for name in rpc.path_params:
        f = in_desc.fields_by_name[name]
        params.append({"name": name, "in": "path", "required": True, "schema": builder.single(f)})
    for name in rpc.query_params:
        f = in_desc.fields_by_name[name]
        query = {"name": f.json_name, "in": "query", "required": False, "schema": builder.single(f)}
        comment = proto_comments.comments().get(f.full_name)
        if comment:
            query["description"] = comment
        params.append(query)
    if rpc.name == "CreateSession":
        op["security"] = [{}, {API_KEY: []}]
    elif rpc.service is SESSION_SERVICE:
        op["security"] = [{}, {SEAT_TOKEN: []}]
    else:
        op["security"] = [{}, {API_KEY: []}]
    if rpc.name in IF_MATCH_RPCS:
        params.append(IF_MATCH_PARAMETER)
    if params:
        op["parameters"] = params
    if rpc.body == "*":
        op["requestBody"] = {
            "required": True,
            "content": {
                JSON: {"schema": builder.object_schema(in_desc, rpc.path_params)},
                **{t: _binary(in_desc.full_name) for t in PROTOBUF_TYPES},
            },
        }
    statuses = [400, 404, 409, 413, 415, 500] if rpc.body else [400, 404, 500]
    if rpc.service is SESSION_SERVICE:
        statuses = sorted({*statuses, 403, 409, 503})
    if rpc.name == "CreateSession" or rpc.service is SERVICE:
        statuses = sorted({*statuses, 401})
    if rpc.name == "CreateSession":
        statuses = sorted({*statuses, 429})
    ok: dict[str, Any] = {
        JSON: {"schema": builder.message(out_desc)},
        **{t: _binary(out_desc.full_name) for t in PROTOBUF_TYPES},
    }
    if rpc.streaming:
        ok = {
            EVENT_STREAM: {
                "schema": {
                    "type": "string",
                    "description": "Server-Sent Events: each 'message' event's data is the proto3 JSON of "
                    f"one {out_desc.full_name} (see components.schemas); an 'error' event carries "
                    "a problem summary before the stream ends.",
                },
                "x-sse-data": builder.message(out_desc),
            }
        }
    ok_response: dict[str, Any] = {"description": "OK", "content": ok}
    if rpc.service is SESSION_SERVICE and _etag_getter(rpc) is not None:
        ok_response["headers"] = {"ETag": ETAG_HEADER}
    op["responses"] = {"200": ok_response, **_error_responses(statuses)}
    if 401 in statuses:
        op["responses"]["401"]["description"] = (
            "An API key is needed (X-Api-Key) and was missing or not valid: reason API_KEY_REQUIRED or "
            "API_KEY_INVALID. "
            + (
                "Only when the service is configured with API keys."
                if rpc.name == "CreateSession"
                else "Only when the service runs with --api-keys-for-rules."
            )
        )
    if 429 in statuses:
        op["responses"]["429"]["description"] = (
            "A quota: this client's rate of new sessions (reason SESSION_CREATE_RATE_LIMITED) or the "
            "service's cap on live sessions (SESSION_LIMIT_REACHED). Retry-After says when to try again."
        )
        op["responses"]["429"]["headers"] = {
            "Retry-After": {
                "description": "Seconds to wait before trying again.",
                "schema": {"type": "integer", "minimum": 1},
            }
        }
    if rpc.name in IF_MATCH_RPCS:
        failed = _error_responses([412])["412"]
        failed["description"] = (
            "If-Match names no entity tag that is the session's current version (reason "
            "SESSION_ETAG_MISMATCH; the current etag is in the problem's metadata and the ETag header)."
        )
        op["responses"]["412"] = {**failed, "headers": {"ETag": ETAG_HEADER}}
    return op


ETAG_HEADER: dict[str, Any] = {
    "description": 'The session\'s version as a strong entity tag: its etag quoted, e.g. "7" for '
    "etag 7. Send it back in If-Match on SessionApplyMove or UndoMove.",
    "schema": {"type": "string", "pattern": '^"[0-9]+"$'},
}
IF_MATCH_PARAMETER: dict[str, Any] = {
    "name": "If-Match",
    "in": "header",
    "required": False,
    "description": 'The version the write is made on, as the ETag header sent it ("7"), instead of '
    "or as well as the body's etag (then the body's etag must be one of the entity tags). Several "
    "tags: the write is made on whichever is current; weak tags (W/) never match; * adds nothing "
    "(the body's etag is still needed). A version If-Match does not name answers 412, not 409.",
    "schema": {"type": "string"},
}


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


@functools.cache
def _openapi() -> dict[str, Any]:
    builder = _SchemaBuilder()
    paths: dict[str, dict[str, Any]] = {}
    for rpc in (*RPCS, *SESSION_RPCS):
        paths.setdefault(rpc.template, {})[rpc.http_method.lower()] = _operation(rpc, builder)
    paths["/healthz"] = {
        "get": {
            "operationId": "Healthz",
            "summary": "Liveness and readiness",
            "tags": ["Health"],
            "responses": {
                "200": {
                    "description": "The service is serving.",
                    "content": {
                        JSON: {
                            "schema": {
                                "type": "object",
                                "required": ["status"],
                                "properties": {"status": {"type": "string", "enum": ["SERVING"]}},
                            }
                        }
                    },
                }
            },
        }
    }
    paths["/healthz/details"] = {
        "get": {
            "operationId": "HealthDetails",
            "summary": "Health details for operators",
            "description": "The session store: whether it answers, its live sessions against the cap "
            "(maxSessions, 0: none), the quotas on creating sessions, how long request ids are "
            "remembered, and what an acknowledged move survives (read from the store's own settings).",
            "tags": ["Health"],
            "responses": {
                "200": {
                    "description": "The service is serving; 'sessions' is there when it serves them.",
                    "content": {
                        JSON: {
                            "schema": {
                                "type": "object",
                                "required": ["status"],
                                "properties": {
                                    "status": {"type": "string", "enum": ["SERVING"]},
                                    "sessions": {"type": "object", "additionalProperties": True},
                                },
                            }
                        }
                    },
                }
            },
        }
    }
    schemas = dict(builder.schemas)
    schemas["Problem"] = PROBLEM_SCHEMA
    doc = {
        "openapi": "3.1.0",
        "info": {
            "title": "Lawspeaker",
            "version": API_VERSION,
            "description": (
                "Rules as a service for Viking-era board games. Stateless: every request carries the "
                "game state. Bodies are the proto3 JSON mapping of the request messages of "
                f"{SERVICE.full_name}, or binary protobuf with Content-Type application/x-protobuf. "
                f"Server-held game sessions ({SESSION_SERVICE.full_name}, under /v1/sessions) keep the "
                "state and its RNG on the server; a seat acts with its token in the Authorization header. "
                "A method a path does not list answers 405 with an Allow header naming the methods it "
                "does; OPTIONS on any path answers 204 with that Allow."
            ),
        },
        "tags": [{"name": SERVICE.name}, {"name": SESSION_SERVICE.name}, {"name": "Health"}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                API_KEY: {
                    "type": "apiKey",
                    "in": "header",
                    "name": "X-Api-Key",
                    "description": "An API key, needed to create sessions when the service is configured "
                    "with keys (and for the stateless RPCs with --api-keys-for-rules).",
                },
                SEAT_TOKEN: {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The secret token of one seat, as CreateSession returned it. Without "
                    "it a session is seen as a spectator sees it.",
                },
            },
        },
    }
    result: dict[str, Any] = _sorted(doc)
    return result


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the REST API, built from the protobuf descriptors."""
    copy: dict[str, Any] = msgspec.json.decode(_openapi_bytes())
    return copy


@functools.cache
def _openapi_bytes() -> bytes:
    return msgspec.json.encode(_openapi())
