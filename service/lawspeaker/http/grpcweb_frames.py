"""gRPC-Web's wire format (grpc/grpc ``doc/PROTOCOL-WEB.md``): its media types, frames and trailers,
for :mod:`lawspeaker.http.grpcweb`, which serves the protocol, and :mod:`lawspeaker.http.guard`,
which refuses a gRPC-Web call in it before the call is routed.
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass

from google.rpc import code_pb2, status_pb2

from lawspeaker.api import errors
from lawspeaker.games.core import LawspeakerError
from lawspeaker.http.media import bare_media_type

GRPC_WEB = "application/grpc-web"
GRPC_WEB_TEXT = "application/grpc-web-text"
FLAG_DATA = 0x00
FLAG_COMPRESSED = 0x01
FLAG_TRAILERS = 0x80


def is_grpc_web(content_type: str) -> bool:
    """Whether a request's Content-Type is one of gRPC-Web's (served here, or refused as such)."""
    return bare_media_type(content_type).startswith(GRPC_WEB)


@dataclass(frozen=True, slots=True)
class Wire:
    """The form of one gRPC-Web call: its messages' codec, whether it is the base64 text form, and
    the response's Content-Type."""

    codec: str  # "proto" or "json", as lawspeaker.http.connect names them
    text: bool
    media: str


def wire_of(content_type: str) -> Wire | None:
    """The form of a gRPC-Web Content-Type, None for one not served (another codec)."""
    base, _, codec = bare_media_type(content_type).partition("+")
    if base not in (GRPC_WEB, GRPC_WEB_TEXT):
        return None
    codec = codec or "proto"
    if codec not in ("proto", "json") or (codec == "json" and base == GRPC_WEB_TEXT):
        return None
    return Wire(codec, base == GRPC_WEB_TEXT, f"{base}+{codec}")


def percent_encode(message: str) -> str:
    """``grpc-message``'s encoding: UTF-8, each byte outside printable ASCII, and ``%``, as ``%XX``."""
    return "".join(chr(b) if 0x20 <= b <= 0x7E and b != 0x25 else f"%{b:02X}" for b in message.encode())


def trailer_block(status: status_pb2.Status) -> bytes:
    """The trailers of a call ended with ``status``, as HTTP/1 header lines."""
    lines = [f"grpc-status: {status.code}"]
    if status.message:
        lines.append(f"grpc-message: {percent_encode(status.message)}")
    if status.code != code_pb2.OK and status.details:
        details = base64.b64encode(status.SerializeToString()).decode().rstrip("=")
        lines.append(f"grpc-status-details-bin: {details}")
    return "".join(f"{line}\r\n" for line in lines).encode("ascii")


def frame(flags: int, data: bytes, text: bool = False) -> bytes:
    """One frame: the 5-byte prefix and ``data``; in base64 for the text form."""
    raw = struct.pack(">BI", flags, len(data)) + data
    return base64.b64encode(raw) if text else raw


def trailers_frame(status: status_pb2.Status, text: bool = False) -> bytes:
    return frame(FLAG_TRAILERS, trailer_block(status), text)


def refusal(err: LawspeakerError, content_type: str) -> tuple[int, str, bytes]:
    """The HTTP status, Content-Type and body refusing a gRPC-Web call with ``err`` before it is
    routed (``lawspeaker.http.guard``): a response of its trailers frame alone."""
    wire = wire_of(content_type) or Wire("proto", False, f"{GRPC_WEB}+proto")
    return 200, wire.media, trailers_frame(errors.to_rpc_status(err), wire.text)
