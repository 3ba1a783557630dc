"""gRPC-Web for RulesService and SessionService, on the HTTP port (no proxy in between).

``POST /lawspeaker.v1.RulesService/<Method>`` (and ``/lawspeaker.v1.SessionService/<Method>``), the
Connect routes' paths, with a gRPC-Web Content-Type: :mod:`lawspeaker.http.connect` hands such a
request here, with its own dispatch to the APIs (the same handlers, access guard and error mapping
as a Connect call). What is served (the protocol: grpc/grpc ``doc/PROTOCOL-WEB.md``; its framing
is :mod:`lawspeaker.http.grpcweb_frames`):

- ``application/grpc-web`` and ``application/grpc-web+proto``: binary protobuf messages;
  ``application/grpc-web+json``: proto3 JSON messages (what connect-es's ``createGrpcWebTransport``
  sends with ``useBinaryFormat: false``); ``application/grpc-web-text`` (``+proto``): the binary
  form in base64, for clients that cannot read binary streams. The response has the request's
  form, its Content-Type the full name (``application/grpc-web+proto`` for a bare
  ``application/grpc-web``).
- The request body is one frame: a 5-byte prefix (flags ``0x00``, or ``0x01`` for a message
  compressed with the ``grpc-encoding``: gzip or br, as Connect takes; then the length, big-endian)
  and the message.
- The response is HTTP 200 whatever the outcome: the answer's frames (each sent as it comes on
  the server stream ``WatchSession``), then one trailers frame (flags ``0x80``) whose block, as
  HTTP/1 header lines, carries ``grpc-status``, ``grpc-message`` (percent-encoded) and, on an
  error, ``grpc-status-details-bin``: the base64 ``google.rpc.Status`` with ``ErrorInfo`` (the
  reason) and ``BadRequest`` that the gRPC port sends for the same call
  (:func:`lawspeaker.api.errors.to_rpc_status`). An error is a response of the trailers frame alone.
  In the text form each frame is base64-encoded on its own (padded), as it is sent.
- A bad body (not one frame, a bad prefix, bytes that are not the request, broken base64) is
  INVALID_ARGUMENT in the trailers, never an HTTP error. ``grpc-timeout`` is the call's deadline
  (DEADLINE_EXCEEDED when it passes; a stream ends there). A Content-Type of another gRPC-Web
  codec (``+thrift``) is HTTP 415, its status in the headers.

The seat token is ``authorization: Bearer <token>``, as on every transport; the API key
``x-api-key``. Browsers need CORS for it: ``connect.CORS_ALLOW_HEADERS`` has ``X-Grpc-Web``,
``X-User-Agent`` and ``Grpc-Timeout``, ``connect.CORS_EXPOSE_HEADERS`` the ``Grpc-*`` headers.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import logging
import re
import struct
from collections.abc import AsyncIterator
from typing import Any

from google.protobuf.message import Message
from google.rpc import code_pb2, status_pb2
from litestar import Request, Response
from litestar.response import Stream

from lawspeaker.api import errors
from lawspeaker.games.core import LawspeakerError
from lawspeaker.http.bodies import decode_request
from lawspeaker.http.connect import Call, ConnectError, Streamer, _body, _bytes, _decompress
from lawspeaker.http.grpcweb_frames import (
    FLAG_COMPRESSED,
    FLAG_DATA,
    GRPC_WEB,
    GRPC_WEB_TEXT,
    Wire,
    frame,
    percent_encode,
    trailers_frame,
    wire_of,
)
from lawspeaker.http.media import JSON, PROTOBUF_TYPES, bare_media_type
from lawspeaker.http.problems import Problem
from lawspeaker.http.routes import Rpc
from lawspeaker.observe import calls
from lawspeaker.sessions.service import bearer
from lawspeaker.wire import fieldpaths, structs

log = logging.getLogger(__name__)

TRANSPORT = "grpc-web"  # the call record's transport (``lawspeaker.observe.calls``)
_TIMEOUT = re.compile(r"^([0-9]{1,8})([HMSmun])$")  # gRPC's Timeout: at most 8 digits and a unit
_TIMEOUT_UNITS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
_BASE64_CHUNK = re.compile(rb"[^=]+=*|=+")  # a base64 text stream: padded chunks, one after another
_OK = status_pb2.Status(code=code_pb2.OK)


def _invalid(message: str) -> ConnectError:
    return ConnectError("invalid_argument", message)


def _unbase64(body: bytes) -> bytes:
    """The bytes of a text-form body: base64, possibly as several padded chunks."""
    data = b"".join(body.split())
    try:
        return b"".join(base64.b64decode(chunk, validate=True) for chunk in _BASE64_CHUNK.findall(data))
    except (binascii.Error, ValueError) as err:
        raise _invalid(f"The {GRPC_WEB_TEXT} request body is not base64: {err}") from None


def _one_message(body: bytes, encoding: str) -> bytes:
    """The request message out of the body's one frame."""
    if len(body) < 5:
        raise _invalid(
            f"The request body has {len(body)} bytes: a gRPC-Web request is one frame, "
            "a 5-byte prefix (flags, length) and the message."
        )
    flags, size = struct.unpack(">BI", body[:5])
    if flags not in (FLAG_DATA, FLAG_COMPRESSED):
        raise _invalid(
            f"The request frame's flags are {flags:#04x}: a request message frame has 0x00, "
            "or 0x01 when compressed."
        )
    if len(body) != 5 + size:
        raise _invalid(
            f"The request body must be exactly one frame: its prefix says {size} bytes of message, "
            f"{len(body) - 5} follow."
        )
    data = body[5:]
    if flags & FLAG_COMPRESSED:
        if encoding.strip().lower() in ("", "identity"):
            raise _invalid("The request frame is flagged compressed, but the call has no grpc-encoding.")
        data = _decompress(data, encoding)
    return data


def deadline_of(header: str | None) -> float | None:
    """The event-loop time by which a call with this ``grpc-timeout`` must end, None without one."""
    if header is None:
        return None
    match = _TIMEOUT.match(header.strip())
    if match is None:
        raise _invalid(
            f"grpc-timeout {header!r} is not a timeout: 1 to 8 digits, then a unit (H, M, S, m, u or n)."
        )
    seconds = int(match.group(1)) * _TIMEOUT_UNITS[match.group(2)]
    return asyncio.get_running_loop().time() + seconds


def _until(deadline: float | None) -> contextlib.AbstractAsyncContextManager[Any]:
    return asyncio.timeout_at(deadline) if deadline is not None else contextlib.nullcontext()


def _status_of(err: Exception, codec: str) -> status_pb2.Status:
    """The status ending a call that failed with ``err`` (recorded as its outcome): a
    LawspeakerError's rich status from the one mapping, the transport's own errors by their code."""
    if isinstance(err, LawspeakerError):
        calls.note_refusal(errors.code_name(err), err.reason)
        return errors.to_rpc_status(fieldpaths.for_json(err) if codec == "json" else err)
    if isinstance(err, ConnectError):  # Connect's code names are gRPC's in lower case ("canceled")
        name = "CANCELLED" if err.code == "canceled" else err.code.upper()
        known = code_pb2.Code.DESCRIPTOR.values_by_name.get(name)
        code = known.number if known is not None else code_pb2.UNKNOWN
        calls.note_refusal(code_pb2.Code.Name(code), "")
        return status_pb2.Status(code=code, message=err.message)
    if isinstance(err, Problem):  # the body could not be read (the client went away)
        calls.note_refusal("INVALID_ARGUMENT", err.reason)
        return status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message=err.detail)
    if isinstance(err, TimeoutError):
        calls.note_refusal("DEADLINE_EXCEEDED", "")
        return status_pb2.Status(
            code=code_pb2.DEADLINE_EXCEEDED, message="The call's deadline (grpc-timeout) passed."
        )
    log.error("unexpected error in a gRPC-Web call", exc_info=err)
    calls.note_refusal("INTERNAL", "")
    return errors.internal_rpc_status()


def _message_bytes(msg: Message | structs.Message, codec: str) -> bytes:
    if isinstance(msg, structs.Message):  # a JSON answer built over wire messages
        return structs.encode(msg)
    return _bytes(msg, codec)


async def _frames(
    updates: AsyncIterator[Message], wire: Wire, deadline: float | None
) -> AsyncIterator[bytes]:
    """A server stream's frames, each as its message comes, then its trailers."""
    status = _OK
    try:
        while True:
            async with _until(deadline):
                try:
                    msg = await anext(updates)
                except StopAsyncIteration:
                    break
            yield frame(FLAG_DATA, _message_bytes(msg, wire.codec), wire.text)
    except Exception as err:  # the stream's end, mapped once
        status = _status_of(err, wire.codec)
    finally:
        close = getattr(updates, "aclose", None)
        if close is not None:  # the client went away, or the deadline passed: end the watch now
            await close()
    yield trailers_frame(status, wire.text)


async def respond(
    request: Request[Any, Any, Any],
    service: str,
    method: str,
    rpc: Rpc | None,
    call: Call | None,
    streamer: Streamer | None,
) -> Response[bytes] | Stream:
    """Answer one gRPC-Web call of ``service``'s ``method`` (``rpc``, None when it has none) with the
    Connect route's dispatch: ``call`` for a unary RPC, ``streamer`` for a server stream (None when
    the service is not served here)."""
    current = calls.CURRENT.get()
    if current is not None:
        current.transport = TRANSPORT
    content_type = request.headers.get("content-type", "")
    wire = wire_of(content_type)
    if wire is None:
        message = (
            f"Content-Type {bare_media_type(content_type)!r} is not served; gRPC-Web here is "
            f"{GRPC_WEB}(+proto), {GRPC_WEB}+json or {GRPC_WEB_TEXT}(+proto)."
        )
        calls.note_refusal("INVALID_ARGUMENT", "")
        headers = {"grpc-status": str(code_pb2.INVALID_ARGUMENT), "grpc-message": percent_encode(message)}
        return Response(message.encode(), status_code=415, media_type="text/plain", headers=headers)
    try:
        if rpc is None:
            raise ConnectError("unimplemented", f"{service} has no method {method!r}.")
        calls.note_rpc(rpc.service.name, rpc.name)
        if call is None or (rpc.streaming and streamer is None):
            raise ConnectError("unimplemented", f"{service} is not served here.")
        deadline = deadline_of(request.headers.get("grpc-timeout"))
        body = await _body(request)
        data = _one_message(_unbase64(body) if wire.text else body, request.headers.get("grpc-encoding", ""))
        msg, _ = decode_request(rpc.request_type, data, PROTOBUF_TYPES[0] if wire.codec == "proto" else JSON)
        token = bearer(request.headers.get("authorization"))
        if rpc.streaming:
            assert streamer is not None
            calls.note_streaming()
            updates = streamer(rpc, msg, token)
            return Stream(_frames(updates, wire, deadline), media_type=wire.media, status_code=200)
        async with _until(deadline):
            answer = await call(rpc, msg, token, wire.codec)
        out = frame(FLAG_DATA, _message_bytes(answer, wire.codec), wire.text) + trailers_frame(_OK, wire.text)
        return Response(out, media_type=wire.media, status_code=200)
    except Exception as err:  # every failure is mapped once, in _status_of
        status = _status_of(err, wire.codec)
    return Response(trailers_frame(status, wire.text), media_type=wire.media, status_code=200)
