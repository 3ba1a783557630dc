"""The one mapping of :class:`~lawspeaker.games.core.ErrorCode` to gRPC and HTTP status codes.

Every transport maps errors here and nowhere else: gRPC sends a rich ``google.rpc.Status`` (with
``ErrorInfo`` and ``BadRequest`` details), REST sends an RFC 9457 problem document built from the
same pieces, and Connect sends its JSON error (the gRPC code in lower_snake case, the same details
as base64 protobuf).
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2

from lawspeaker.api import links
from lawspeaker.games.core import ErrorCode, LawspeakerError

DOMAIN = "lawspeaker.dev"


@dataclass(frozen=True, slots=True)
class Mapping:
    """How one error kind travels: its gRPC status code, HTTP status and a short title."""

    grpc_code: grpc.StatusCode
    http_status: int
    title: str


MAPPING: dict[ErrorCode, Mapping] = {
    ErrorCode.MALFORMED: Mapping(grpc.StatusCode.INVALID_ARGUMENT, 400, "Malformed request"),
    ErrorCode.INVALID_STATE: Mapping(grpc.StatusCode.INVALID_ARGUMENT, 400, "Invalid game state"),
    ErrorCode.ILLEGAL_MOVE: Mapping(grpc.StatusCode.FAILED_PRECONDITION, 409, "Illegal move"),
    ErrorCode.NOT_YOUR_TURN: Mapping(grpc.StatusCode.FAILED_PRECONDITION, 409, "Not your turn"),
    ErrorCode.GAME_OVER: Mapping(grpc.StatusCode.FAILED_PRECONDITION, 409, "Game over"),
    ErrorCode.STALE_STATE: Mapping(grpc.StatusCode.ABORTED, 409, "Stale state"),
    ErrorCode.NOT_FOUND: Mapping(grpc.StatusCode.NOT_FOUND, 404, "Not found"),
    ErrorCode.UNAVAILABLE: Mapping(grpc.StatusCode.UNAVAILABLE, 503, "Unavailable"),
    ErrorCode.PERMISSION_DENIED: Mapping(grpc.StatusCode.PERMISSION_DENIED, 403, "Permission denied"),
    ErrorCode.UNAUTHENTICATED: Mapping(grpc.StatusCode.UNAUTHENTICATED, 401, "Unauthenticated"),
    ErrorCode.RESOURCE_EXHAUSTED: Mapping(grpc.StatusCode.RESOURCE_EXHAUSTED, 429, "Too many requests"),
}

# HTTP statuses the REST transport produces itself (not from a LawspeakerError), with the gRPC
# code name that best describes them, for the problem document's ``code`` member.
HTTP_CODE_NAMES: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    406: "INVALID_ARGUMENT",
    409: "FAILED_PRECONDITION",
    412: "FAILED_PRECONDITION",
    413: "RESOURCE_EXHAUSTED",
    415: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
}


def grpc_code(err: LawspeakerError) -> grpc.StatusCode:
    """The gRPC status code of an error."""
    return MAPPING[err.code].grpc_code


def http_status(err: LawspeakerError) -> int:
    """The HTTP status of an error."""
    return MAPPING[err.code].http_status


def code_name(err: LawspeakerError) -> str:
    """The gRPC status code name of an error, e.g. ``FAILED_PRECONDITION``."""
    return str(grpc_code(err).name)


def error_metadata(err: LawspeakerError) -> dict[str, str]:
    """The ErrorInfo metadata: the error's own metadata (a refused move's ``rule``, a session's
    current ``etag``, ...) plus its kind (:class:`ErrorCode`) under ``kind`` (``lawspeaker.api.catalogue``
    explains the codes an error carries). A ``rule`` is sent as its URL on this service
    (``lawspeaker.api.links``: ``<base>/rules/valhalla#cast-first``)."""
    metadata = {str(k): str(v) for k, v in err.metadata.items()}
    if "rule" in metadata:
        metadata["rule"] = links.rule_url(metadata["rule"])
    return {**metadata, "kind": err.code.value}


def to_rpc_status(err: LawspeakerError) -> status_pb2.Status:
    """A ``google.rpc.Status`` with ErrorInfo and (when fields are named) BadRequest details."""
    code = grpc_code(err)
    status = status_pb2.Status(code=int(code.value[0]), message=err.message)
    info = error_details_pb2.ErrorInfo(reason=err.reason, domain=DOMAIN, metadata=error_metadata(err))
    status.details.add().Pack(info)
    if err.field_violations:
        bad = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field=v.field, description=v.description)
                for v in err.field_violations
            ]
        )
        status.details.add().Pack(bad)
    if err.retry_after is not None:
        info_retry = error_details_pb2.RetryInfo()
        info_retry.retry_delay.FromNanoseconds(int(err.retry_after * 1e9))
        status.details.add().Pack(info_retry)
    return status


def retry_after_header(err: LawspeakerError) -> dict[str, str]:
    """The ``Retry-After`` header (whole seconds, rounded up) of an error that says when to retry."""
    if err.retry_after is None:
        return {}
    return {"Retry-After": str(max(1, math.ceil(err.retry_after)))}


def internal_rpc_status() -> status_pb2.Status:
    """The status of an unexpected failure: a generic message, nothing leaked."""
    return status_pb2.Status(code=code_pb2.INTERNAL, message="Internal error.")


# The HTTP status of each Connect error code (the Connect protocol's own table).
CONNECT_HTTP_STATUS: dict[str, int] = {
    "canceled": 499,
    "unknown": 500,
    "invalid_argument": 400,
    "deadline_exceeded": 504,
    "not_found": 404,
    "already_exists": 409,
    "permission_denied": 403,
    "resource_exhausted": 429,
    "failed_precondition": 400,
    "aborted": 409,
    "out_of_range": 400,
    "unimplemented": 501,
    "internal": 500,
    "unavailable": 503,
    "data_loss": 500,
    "unauthenticated": 401,
}


def connect_code(err: LawspeakerError) -> str:
    """The Connect error code of an error: the gRPC code name in lower_snake case."""
    return code_name(err).lower()


_DETAIL_TYPES: dict[str, type[Message]] = {
    t.DESCRIPTOR.full_name: t
    for t in (
        error_details_pb2.ErrorInfo,
        error_details_pb2.BadRequest,
        error_details_pb2.RetryInfo,
        error_details_pb2.PreconditionFailure,
        error_details_pb2.ResourceInfo,
        error_details_pb2.QuotaFailure,
        error_details_pb2.Help,
        error_details_pb2.LocalizedMessage,
    )
}


def connect_error_body(status: status_pb2.Status) -> dict[str, Any]:
    """The Connect JSON error of a ``google.rpc.Status``: code, message and its details, each as the
    fully qualified type name, the base64 (unpadded) of the packed message and, as the Connect
    protocol allows, ``debug``: the detail as proto3 JSON, so that a client with no protobuf (curl, a
    React Native ``fetch``) reads the reason (``debug.reason``) and the field violations."""
    code = code_pb2.Code.Name(status.code).lower()
    body: dict[str, Any] = {"code": code, "message": status.message}
    if status.details:
        details = []
        for d in status.details:
            name = d.type_url.rsplit("/", 1)[-1]
            detail: dict[str, Any] = {"type": name, "value": base64.b64encode(d.value).decode().rstrip("=")}
            kind = _DETAIL_TYPES.get(name)
            if kind is not None:
                detail["debug"] = json_format.MessageToDict(kind.FromString(d.value))
            details.append(detail)
        body["details"] = details
    return body


def to_connect_error(err: LawspeakerError) -> tuple[int, dict[str, Any]]:
    """The HTTP status and Connect JSON error body of an error (the same details as gRPC's)."""
    return CONNECT_HTTP_STATUS[connect_code(err)], connect_error_body(to_rpc_status(err))
