"""The Connect protocol (unary calls) for RulesService and SessionService, on the HTTP server.

``POST /lawspeaker.v1.RulesService/<Method>`` (and ``/lawspeaker.v1.SessionService/<Method>``) with
``Content-Type: application/json`` (proto3 JSON) or ``application/proto`` (binary protobuf); the
response uses the request's codec. Methods without side effects also answer Connect's ``GET`` form
(``?encoding=json|proto&message=...&base64=1``). So browsers and React Native apps call the same
contract over plain HTTP/1.1, with any Connect client (e.g. ``@connectrpc/connect-web``).

Errors are Connect's JSON error: ``{"code": "failed_precondition", "message": ..., "details": [...]}``
with the HTTP status of Connect's table; the code and the details (``google.rpc.ErrorInfo`` whose
``reason`` is the rule, ``google.rpc.BadRequest``) come from :mod:`lawspeaker.api.errors`, the one
mapping every transport uses. A SessionService call takes the seat token from the
``Authorization: Bearer`` header, as REST does.

The server stream ``WatchSession`` speaks Connect's streaming protocol (``application/connect+json``
or ``application/connect+proto``: enveloped messages, then an end-of-stream message carrying any
error), which ``@connectrpc/connect-web`` uses over fetch.

Compression (``lawspeaker.http.compression``): a unary request may come with ``Content-Encoding: gzip``
or ``br`` and its answer is compressed by the HTTP middleware as ``Accept-Encoding`` asks; a stream's
request message may be flagged compressed (``Connect-Content-Encoding``) and its messages are
compressed one by one as ``Connect-Accept-Encoding`` asks. Another coding is ``unimplemented``.
"""

from __future__ import annotations

import base64
import binascii
import logging
import struct
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import brotli
import msgspec
from google.protobuf import descriptor_pb2
from google.protobuf.message import Message
from litestar import Request, Response, route
from litestar.enums import HttpMethod
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath
from litestar.response import Stream

from lawspeaker.api import errors
from lawspeaker.api.rules import RulesApi
from lawspeaker.games.core import LawspeakerError
from lawspeaker.http import compression
from lawspeaker.http.bodies import decode_request, read_body, wire_decode
from lawspeaker.http.media import JSON, PROTOBUF_TYPES, bare_media_type
from lawspeaker.http.problems import MAX_BODY_BYTES, Problem
from lawspeaker.http.routes import RPCS, SESSION_RPCS, Rpc
from lawspeaker.http.rules_routes import THINKING_RPCS, WIRE_RPCS, call_rpc, call_thinking, wire_answer
from lawspeaker.http.semantics import allow_header
from lawspeaker.http.session_routes import call_session
from lawspeaker.observe import calls
from lawspeaker.sessions.service import SessionApi, bearer
from lawspeaker.wire import fieldpaths, protojson, structs

log = logging.getLogger(__name__)

PROTO = "application/proto"
STREAM_TYPES = {"application/connect+json": "json", "application/connect+proto": "proto"}
FLAG_COMPRESSED = 0x01
FLAG_END_STREAM = 0x02
PROTOCOL_VERSION = "1"
STREAM_ACCEPT = "Connect-Accept-Encoding"  # the codings a stream's messages may use (response header)
NO_SIDE_EFFECTS = descriptor_pb2.MethodOptions.NO_SIDE_EFFECTS
# Request headers a browser must be allowed to send, and response headers it may read (CORS).
CORS_ALLOW_HEADERS = (
    "Content-Type",
    "Accept",
    "Authorization",
    "X-Api-Key",
    "Connect-Protocol-Version",
    "Connect-Timeout-Ms",
    "Connect-Accept-Encoding",
    "Connect-Content-Encoding",
    "Content-Encoding",
    "Accept-Encoding",
    "Grpc-Timeout",
    "X-Grpc-Web",
    "X-User-Agent",
    "If-Match",
    "If-None-Match",
    "Last-Event-ID",
    "X-Request-Id",
)
CORS_EXPOSE_HEADERS = (
    "Content-Encoding",
    "Connect-Content-Encoding",
    "Grpc-Status",
    "Grpc-Message",
    "Grpc-Status-Details-Bin",
    "ETag",
    "Retry-After",
    "X-Request-Id",
    "RateLimit",
    "RateLimit-Policy",
)


class ConnectError(Exception):
    """An error the Connect transport raises itself (not one from the API)."""

    def __init__(
        self, code: str, message: str, status: int | None = None, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status if status is not None else errors.CONNECT_HTTP_STATUS[code]
        self.headers = headers  # e.g. the Allow of a 405


def _error_response(
    status: int, body: Mapping[str, Any], headers: Mapping[str, str] | None = None
) -> Response[bytes]:
    return Response(msgspec.json.encode(body), status_code=status, media_type=JSON, headers=headers)


def _codec(media: str) -> str:
    """``json`` or ``proto`` for a Content-Type (or a GET's ``encoding``), else a 415 error."""
    media = media.split(";", 1)[0].strip().lower()
    if media in (JSON, "json"):
        return "json"
    if media in (PROTO, "proto"):
        return "proto"
    raise ConnectError(
        "unknown", f"Content-Type {media!r} is not supported; use {JSON} or {PROTO} (unary calls).", 415
    )


def _json_request(request: Request[Any, Any, Any]) -> bool:
    """Whether a unary call came as JSON (its errors then name fields by their JSON names)."""
    if request.method == "GET":
        return request.query_params.get("encoding", "") != "proto"
    return bare_media_type(request.headers.get("content-type", "")) != PROTO


def _check_encoding(encoding: str, accept_header: str = "Accept-Encoding") -> str:
    """A request's compression (lower case; "" for none), or Connect's ``unimplemented`` listing
    the supported ones, in the error and in ``accept_header`` (``Accept-Encoding`` for unary calls,
    ``Connect-Accept-Encoding`` for streams), as the Connect protocol asks."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity", *compression.CODINGS):
        return "" if encoding == "identity" else encoding
    raise ConnectError(
        "unimplemented",
        f"Compression {encoding!r} is not supported; use one of: {compression.SUPPORTED} (or identity).",
        headers={accept_header: compression.SUPPORTED},
    )


def _decompress(body: bytes, encoding: str, accept_header: str = "Accept-Encoding") -> bytes:
    """A request message compressed with ``encoding`` (gzip or br; "" or identity: none), inflated
    to at most MAX_BODY_BYTES."""
    encoding = _check_encoding(encoding, accept_header)
    if not encoding:
        return body
    try:
        if encoding == compression.GZIP:
            inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)  # gzip framing
            data = inflate.decompress(body, MAX_BODY_BYTES + 1)
            complete = inflate.eof
        else:
            unbrotli = brotli.Decompressor()
            # brotli >= 1.2 bounds the output (its stubs do not know the argument yet)
            data = unbrotli.process(body, output_buffer_limit=MAX_BODY_BYTES + 1)  # type: ignore[call-arg]
            complete = unbrotli.is_finished()
    except (zlib.error, brotli.error) as err:
        raise ConnectError("invalid_argument", f"The {encoding} request body is corrupt: {err}") from None
    if len(data) > MAX_BODY_BYTES:
        raise ConnectError(
            "resource_exhausted", f"The request message exceeds the limit of {MAX_BODY_BYTES} bytes."
        )
    if not complete:
        raise ConnectError("invalid_argument", f"The {encoding} request body is truncated.")
    return data


async def _body(request: Request[Any, Any, Any]) -> bytes:
    try:
        return await read_body(request)
    except Problem as err:
        if err.status == 413:
            raise ConnectError(
                "resource_exhausted", f"The request body exceeds the limit of {MAX_BODY_BYTES} bytes."
            ) from None
        raise


async def _read(request: Request[Any, Any, Any], rpc: Rpc) -> tuple[bytes, str]:
    """The request message's bytes and codec, from a POST body or Connect's GET query."""
    if request.method == "GET":
        query = request.query_params
        codec = _codec(query.get("encoding", ""))
        raw = query.get("message", "")
        if query.get("base64") == "1":
            try:
                data = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))
            except (binascii.Error, ValueError) as err:
                raise ConnectError(
                    "invalid_argument", f"The message parameter is not base64: {err}"
                ) from None
        else:
            data = raw.encode()
        return _decompress(data, query.get("compression", "")), codec
    version = request.headers.get("connect-protocol-version")
    if version is not None and version != PROTOCOL_VERSION:
        raise ConnectError(
            "invalid_argument", f"Connect-Protocol-Version {version!r} is not supported; send 1."
        )
    codec = _codec(request.headers.get("content-type", ""))
    body = await _body(request)
    return _decompress(body, request.headers.get("content-encoding", "")), codec


def _bytes(msg: Message, codec: str) -> bytes:
    if codec == "proto":
        return msg.SerializeToString()
    return msgspec.json.encode(fieldpaths.json_answer(protojson.to_dict(msg)))


def _encode(msg: Message | structs.Message, codec: str) -> Response[bytes]:
    if isinstance(msg, structs.Message):  # a JSON answer built over wire messages
        return Response(structs.encode(msg), media_type=JSON)
    return Response(_bytes(msg, codec), media_type=PROTO if codec == "proto" else JSON)


def _envelope(flags: int, data: bytes) -> bytes:
    return struct.pack(">BI", flags, len(data)) + data


def _end_stream(error: Mapping[str, Any] | None = None) -> bytes:
    return _envelope(FLAG_END_STREAM, msgspec.json.encode({"error": error} if error else {}))


async def _read_envelope(request: Request[Any, Any, Any]) -> bytes:
    """The one request message of a server-streaming call, out of its envelope."""
    body = await _body(request)
    if len(body) < 5:
        raise ConnectError("invalid_argument", "The request body is not an enveloped Connect message.")
    flags, size = struct.unpack(">BI", body[:5])
    if len(body) != 5 + size or flags & ~FLAG_COMPRESSED:
        raise ConnectError("invalid_argument", "The request must be exactly one enveloped message.")
    data = body[5:]
    encoding = _check_encoding(request.headers.get("connect-content-encoding", ""), STREAM_ACCEPT)
    if flags & FLAG_COMPRESSED:
        if not encoding:
            raise ConnectError(
                "invalid_argument",
                "The request message is flagged compressed without Connect-Content-Encoding.",
            )
        data = _decompress(data, encoding, STREAM_ACCEPT)
    return data


async def _stream_frames(
    updates: AsyncIterator[Message], codec: str, coding: str | None = None, min_bytes: int = 1
) -> AsyncIterator[bytes]:
    """The response envelopes of a server stream: its messages (each of at least ``min_bytes``
    compressed on its own with ``coding``, flag 0x01, when the client accepts one), then the end of
    the stream (with the error, mapped by :mod:`lawspeaker.api.errors`, when the stream failed)."""
    try:
        async for msg in updates:
            yield _envelope(*compression.compress_message(_bytes(msg, codec), coding, min_bytes))
    except LawspeakerError as err:
        calls.note_refusal(errors.code_name(err), err.reason)
        yield _end_stream(errors.to_connect_error(err)[1])
        return
    except Exception:
        log.exception("unexpected error in a Connect stream")
        calls.note_refusal("INTERNAL", "")
        yield _end_stream({"code": "internal", "message": "Internal error."})
        return
    yield _end_stream()


Call = Callable[[Rpc, Message, str | None, str], Awaitable[Message | structs.Message]]  # (.., codec)
Streamer = Callable[[Rpc, Message, str | None], AsyncIterator[Message]]
# A gRPC-Web call on these routes (``lawspeaker.http.grpcweb.respond``): (request, service, method,
# its Rpc or None, the service's Call and Streamer or None) -> the answer.
GrpcWeb = Callable[
    [Request[Any, Any, Any], str, str, Rpc | None, Call | None, Streamer | None],
    Awaitable[Response[bytes] | Stream],
]


async def _stream_response(
    request: Request[Any, Any, Any],
    rpc: Rpc | None,
    streamer: Streamer | None,
    codec: str,
    min_bytes: int = compression.DEFAULT_MIN_BYTES,
) -> Stream:
    """A server-streaming call: HTTP 200 whatever happens, errors in the end-of-stream message.
    Its messages are compressed as ``Connect-Accept-Encoding`` asks (``Connect-Content-Encoding``
    names the coding), each on its own, so none waits for the next."""
    media = next(m for m, c in STREAM_TYPES.items() if c == codec)
    coding = compression.message_codec(request.headers.get("connect-accept-encoding"))
    headers = {STREAM_ACCEPT: compression.SUPPORTED}
    if coding is not None:
        headers["Connect-Content-Encoding"] = coding
    calls.note_streaming()
    try:
        if rpc is None or streamer is None or not rpc.streaming:
            what = "not a server stream" if rpc is not None and streamer is not None else "not served"
            raise ConnectError("unimplemented", f"{request.url.path} is {what} here.")
        data = await _read_envelope(request)
        wire = PROTOBUF_TYPES[0] if codec == "proto" else JSON
        msg, _ = decode_request(rpc.request_type, data, wire)
        updates = streamer(rpc, msg, bearer(request.headers.get("authorization")))
        calls.note_rpc(rpc.service.name, rpc.name)
        frames = _stream_frames(updates, codec, coding, min_bytes)
        return Stream(frames, media_type=media, status_code=200, headers=headers)
    except LawspeakerError as err:
        calls.note_refusal(errors.code_name(err), err.reason)
        end = _end_stream(errors.to_connect_error(fieldpaths.for_json(err) if codec == "json" else err)[1])
    except ConnectError as err:
        calls.note_refusal(err.code.upper(), "")
        end = _end_stream({"code": err.code, "message": err.message})
    return Stream(iter((end,)), media_type=media, status_code=200, headers=headers)


def _handler(
    service: str,
    rpcs: tuple[Rpc, ...],
    call: Call | None,
    streamer: Streamer | None = None,
    fast: RulesApi | None = None,
    grpc_web: GrpcWeb | None = None,
    compress_min_bytes: int = compression.DEFAULT_MIN_BYTES,
) -> HTTPRouteHandler:
    """The Connect route of one service. ``fast``, a RulesApi over ``lawspeaker.wire.structs`` messages,
    answers canonical JSON requests of the RPCs in ``WIRE_RPCS`` as REST does; ``grpc_web`` answers
    the POSTs with a gRPC-Web Content-Type, over the same ``call`` and ``streamer``."""
    by_name = {r.name: r for r in rpcs}

    async def handle(request: Request[Any, Any, Any], method: FromPath[str]) -> Response[bytes] | Stream:
        media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if grpc_web is not None and media.startswith("application/grpc-web") and request.method == "POST":
            return await grpc_web(request, service, method, by_name.get(method), call, streamer)
        stream_codec = STREAM_TYPES.get(media)
        if stream_codec is not None and request.method == "POST":
            return await _stream_response(
                request, by_name.get(method), streamer, stream_codec, compress_min_bytes
            )
        try:
            rpc = by_name.get(method)
            if rpc is None:
                raise ConnectError("unimplemented", f"{service} has no method {method!r}.", status=404)
            if call is None:
                raise ConnectError("unimplemented", f"{service} is not served here.")
            calls.note_rpc(rpc.service.name, rpc.name)
            if request.method == "GET" and "GET" not in methods(rpc):
                why = "is a server stream" if rpc.streaming else "has side effects"
                raise ConnectError(
                    "unimplemented",
                    f"{rpc.name} {why}: call it with POST.",
                    status=405,
                    headers={"Allow": allow_header(methods(rpc))},
                )
            if rpc.streaming:
                raise ConnectError(
                    "unimplemented",
                    f"{rpc.name} is a server stream: call it with Connect's streaming protocol "
                    "(Content-Type application/connect+json or application/connect+proto).",
                    status=415,
                )
            data, codec = await _read(request, rpc)
            if codec == "json" and fast is not None and rpc.name in WIRE_RPCS:
                wired = wire_decode(rpc, data, JSON)
                answer = wire_answer(fast, rpc, wired) if wired is not None else None
                if answer is not None:
                    return Response(answer, media_type=JSON)
            msg, _ = decode_request(rpc.request_type, data, PROTOBUF_TYPES[0] if codec == "proto" else JSON)
            token = bearer(request.headers.get("authorization"))
            return _encode(await call(rpc, msg, token, codec), codec)
        except LawspeakerError as err:
            calls.note_refusal(errors.code_name(err), err.reason)
            if _json_request(request):
                err = fieldpaths.for_json(err)
            return _error_response(*errors.to_connect_error(err), errors.retry_after_header(err))
        except ConnectError as err:
            calls.note_refusal(err.code.upper(), "")
            return _error_response(err.status, {"code": err.code, "message": err.message}, err.headers)
        except Problem as err:  # not raised for the two codecs used here; mapped for safety
            calls.note_refusal("INVALID_ARGUMENT", err.reason)
            return _error_response(err.status, {"code": "invalid_argument", "message": err.detail})
        except Exception:
            log.exception("unexpected error in Connect call %s %s", request.method, request.url.path)
            calls.note_refusal("INTERNAL", "")
            return _error_response(500, {"code": "internal", "message": "Internal error."})

    handle.__name__ = "connect_" + service.rsplit(".", 1)[-1]
    return route(
        f"/{service}/{{method:str}}",
        http_method=[HttpMethod.POST, HttpMethod.GET],
        status_code=200,
        name=handle.__name__,
    )(handle)


def methods(rpc: Rpc) -> tuple[str, ...]:
    """The HTTP methods a Connect call of ``rpc`` may use: POST, and GET for a unary RPC without
    side effects."""
    if rpc.method.GetOptions().idempotency_level == NO_SIDE_EFFECTS and not rpc.streaming:
        return ("GET", "POST")
    return ("POST",)


def bindings() -> list[tuple[str, tuple[str, ...]]]:
    """Each Connect route and its methods (for ``Allow``): a method's own path, and its service's
    path template, which allows nothing itself (an unknown method is not found)."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for rpcs in (RPCS, SESSION_RPCS):
        service = rpcs[0].service.full_name
        out.append((f"/{service}/{{method}}", ()))
        out.extend((f"/{service}/{rpc.name}", methods(rpc)) for rpc in rpcs)
    return out


def handlers(
    rules: RulesApi,
    sessions: SessionApi | None,
    fast: RulesApi | None = None,
    grpc_web: GrpcWeb | None = None,
    compress_min_bytes: int = compression.DEFAULT_MIN_BYTES,
) -> list[HTTPRouteHandler]:
    """The Connect routes of RulesService and SessionService (the latter answering
    ``unimplemented`` when the server has no sessions). ``fast``, the same rules over
    ``lawspeaker.wire.structs`` messages, answers canonical JSON calls as REST does; ``grpc_web``
    (``lawspeaker.http.grpcweb.respond``) answers gRPC-Web calls on the same routes."""

    async def call_rules(rpc: Rpc, msg: Message, _token: str | None, _codec: str) -> Message:
        if rpc.name in THINKING_RPCS:
            thought: Message = await call_thinking(rules, rpc, msg)
            return thought
        answer: Message = call_rpc(rules, rpc, msg)  # as REST calls it (traced there)
        return answer

    async def call_sessions(
        rpc: Rpc, msg: Message, token: str | None, codec: str
    ) -> Message | structs.Message:
        assert sessions is not None
        return await call_session(sessions, rpc, msg, token, json=codec == "json")

    def stream_sessions(rpc: Rpc, msg: Message, token: str | None) -> AsyncIterator[Message]:
        method: Callable[[Message, str | None], AsyncIterator[Message]] = getattr(sessions, rpc.api_method)
        return method(msg, token)

    return [
        _handler(
            RPCS[0].service.full_name,
            RPCS,
            call_rules,
            fast=fast,
            grpc_web=grpc_web,
            compress_min_bytes=compress_min_bytes,
        ),
        _handler(
            SESSION_RPCS[0].service.full_name,
            SESSION_RPCS,
            call_sessions if sessions is not None else None,
            stream_sessions if sessions is not None else None,
            grpc_web=grpc_web,
            compress_min_bytes=compress_min_bytes,
        ),
    ]
