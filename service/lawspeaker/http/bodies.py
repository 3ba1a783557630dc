"""Request and response bodies: proto3 JSON or binary protobuf in, the same out (as ``Accept``
asks), with every decoding failure a MALFORMED error naming the field at fault."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

import msgspec
from google.protobuf import descriptor, json_format
from google.protobuf.message import Message
from litestar import Request, Response

from lawspeaker.games.core import ErrorCode, FieldViolation, LawspeakerError
from lawspeaker.http.media import JSON, PROTOBUF_TYPES, bare_media_type, first_header, is_json
from lawspeaker.http.problems import HTTP_REASONS, MAX_BODY_BYTES, Problem
from lawspeaker.http.routes import Rpc
from lawspeaker.wire import fieldpaths, inbound, protojson, structs

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- encoding


def wants_protobuf(request: Request[Any, Any, Any], request_was_protobuf: bool) -> bool:
    return accepts_protobuf(first_header(request, b"accept"), request_was_protobuf)


def accepts_protobuf(accept: str, request_was_protobuf: bool) -> bool:
    """Whether an ``Accept`` header asks for binary protobuf (unsaid: as the request came)."""
    if accept == JSON:  # the usual header, decided first
        return False
    if not accept or accept == "*/*":
        return request_was_protobuf
    for part in accept.split(","):
        media = bare_media_type(part)
        params = part.split(";")[1:]
        if any(p.strip().replace(" ", "") in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in params):
            continue
        if media in PROTOBUF_TYPES:
            return True
        if is_json(media) or media == "application/*":
            return False
    return request_was_protobuf


FD = descriptor.FieldDescriptor

_AT = re.compile(r' at "?([A-Za-z_][\w.\[\]]*?)"?\.*$')
_FAILED = re.compile(r"Failed to parse (\w+) field: ")
_NO_FIELD = re.compile(r'has no field named "([^"]+)"')
_PREFIX = re.compile(r"^(Failed to parse \w+ field: )+")


def _plain(text: str) -> str:
    """json_format's words for a bad value without its parser's frame: no "Failed to parse x field:"
    chain, no "at Message.path" (the field violation names the path), no trailing periods."""
    text = _AT.sub("", _PREFIX.sub("", text)).strip().rstrip(".")
    return f"is not valid: {text[:1].lower()}{text[1:]}" if text else "is not valid"


def _kind_error(cls: type[Message], field: str, description: str) -> LawspeakerError:
    """A JSON value of a kind its field cannot hold, named in JSON's words."""
    detail = f"The request body is not a valid proto3 JSON {cls.DESCRIPTOR.full_name}: {field} {description}."
    return LawspeakerError(
        ErrorCode.MALFORMED, "INVALID_FIELD_VALUE", detail, (FieldViolation(field, description),)
    )


def parse_error(cls: type[Message], err: json_format.ParseError, data: dict[str, Any]) -> LawspeakerError:
    """A MALFORMED error naming, as well as the protobuf library lets us, the field at fault. A
    value of the wrong JSON kind is described in JSON's words (``inbound.json_kind_mismatch``), not
    in those of the Python error json_format met."""
    mismatch = inbound.json_kind_mismatch(data, cls.DESCRIPTOR)
    if mismatch is not None:
        return _kind_error(cls, *mismatch)
    text = str(err).split("\n", 1)[0].strip()
    at = _AT.search(text)
    # "... at Message.path.to.field": drop the leading message name.
    path = at.group(1).partition(".")[2] if at else ".".join(_FAILED.findall(text))
    unknown = _NO_FIELD.search(text)
    if unknown:
        path = f"{path}.{unknown.group(1)}" if path else unknown.group(1)
        reason, description = "UNKNOWN_FIELD", "is not a field of the request"
    else:
        reason, description = "INVALID_FIELD_VALUE", _plain(text)
    where = path or "body"
    name = cls.DESCRIPTOR.full_name
    detail = f"The request body is not a valid proto3 JSON {name}: {where} {description}."
    return LawspeakerError(ErrorCode.MALFORMED, reason, detail, (FieldViolation(where, description),))


def decode_request(
    cls: type[Message], body: bytes, content_type: str, strict: bool = False
) -> tuple[Message, bool]:
    """The request message and whether it came as binary protobuf. ``strict`` (REST): a JSON body's
    values must be spelled as the OpenAPI document spells them (``inbound.json_kind_mismatch``);
    Connect takes every proto3 JSON spelling, as its protocol says."""
    media = bare_media_type(content_type) if content_type else ""
    if media in PROTOBUF_TYPES:
        return inbound.parse_protobuf(cls, body), True
    if media and not is_json(media):
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
    mismatch = inbound.json_kind_mismatch(data, cls.DESCRIPTOR, strict)  # what json_format would let pass
    if mismatch is not None:  # (true for an enum, "" or [] for a message) or word in Python's terms
        raise _kind_error(cls, *mismatch)
    try:
        return protojson.parse(data, cls), False
    except json_format.ParseError as err:
        raise parse_error(cls, err, data) from None


async def read_body(request: Request[Any, Any, Any]) -> bytes:
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
            raise Problem(413, *HTTP_REASONS[413])
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


WIRE = structs.default_wire()
"""The contract's messages as msgspec Structs: canonical proto3 JSON bodies of the RulesService
POST RPCs are decoded into these and their responses written from them, with no protobuf in
between (``RulesApi.on_wire``)."""


def wire_decode(rpc: Rpc, body: bytes, content_type: str) -> Any | None:
    """The request as a wire message when the body is canonical proto3 JSON, else None (the
    general path then decides, with its own errors)."""
    cls = getattr(WIRE, rpc.input_name, None)
    if cls is None or (content_type and not is_json(bare_media_type(content_type))):
        return None
    try:
        return WIRE.decode(cls, body)
    except (msgspec.MsgspecError, ValueError, TypeError):
        return None


def encode_answer(msg: Message | structs.Message, protobuf: bool) -> Response[bytes]:
    if isinstance(msg, structs.Message):
        return Response(structs.encode(msg), media_type=JSON)
    if protobuf:
        return Response(msg.SerializeToString(), media_type=PROTOBUF_TYPES[0])
    return Response(msgspec.json.encode(fieldpaths.json_answer(protojson.to_dict(msg))), media_type=JSON)


def set_query(msg: Message, rpc: Rpc, query: Mapping[str, str]) -> None:
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
        if f.type == FD.TYPE_BOOL:  # as the HTTP annotations' query mapping spells it
            if raw not in ("true", "false"):
                raise LawspeakerError(
                    ErrorCode.MALFORMED,
                    "INVALID_FIELD_VALUE",
                    f"Query parameter {f.json_name}: {raw[:40]!r} is not true or false.",
                    (FieldViolation(name, "must be true or false"),),
                )
            setattr(msg, name, raw == "true")
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
