"""The one error the client raises, parsed from a gRPC rich status or a REST problem document."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import httpx
from google.rpc import error_details_pb2
from grpc_status import rpc_status

# The gRPC code name that best describes an HTTP status without a problem document's "code".
HTTP_CODES: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    409: "FAILED_PRECONDITION",
    413: "RESOURCE_EXHAUSTED",
    415: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """A request field at fault: its path (e.g. ``move.valhalla.move_ship``) and what is wrong."""

    field: str
    description: str


class LawspeakerClientError(Exception):
    """A failed call, over either transport.

    ``code`` is the gRPC status code name (``NOT_FOUND``, ``FAILED_PRECONDITION``...), also over REST;
    ``reason`` the service's stable UPPER_SNAKE reason (``GAME_NOT_FOUND``, ``CAST_FIRST``...), empty
    when the failure did not come from the service (e.g. a connection failure); ``message`` the
    explanation in words; ``field_violations`` the request fields at fault; ``retry_after`` the
    seconds to wait before trying again, when the service said (a quota: ``RESOURCE_EXHAUSTED``).
    """

    def __init__(
        self,
        code: str,
        reason: str,
        message: str,
        field_violations: Sequence[FieldViolation] = (),
        *,
        http_status: int | None = None,
        metadata: Mapping[str, str] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(code, reason, message)
        self.code = code
        self.reason = reason
        self.message = message
        self.field_violations: tuple[FieldViolation, ...] = tuple(field_violations)
        self.http_status = http_status
        self.metadata: dict[str, str] = dict(metadata or {})
        self.retry_after = retry_after

    @property
    def kind(self) -> str:
        """The service's error kind (``MALFORMED``, ``INVALID_STATE``, ``ILLEGAL_MOVE``...), which tells
        apart refusals sharing a ``code``; empty when the failure did not come from the service."""
        return self.metadata.get("kind", "")

    @property
    def rule(self) -> str:
        """For a refused move, the link of the rule it breaks, on the service's page of the game's
        rules (``https://rules.example/rules/valhalla#cast-first``; over gRPC, from a service with no
        --public-url, the path alone: ``/rules/valhalla#cast-first``); empty otherwise. DescribeGame's
        ``reasons`` quote the rulebook sentence of each."""
        return self.metadata.get("rule", "")

    def __str__(self) -> str:
        head = f"{self.code} {self.reason}" if self.reason else self.code
        return f"{head}: {self.message}"

    def __repr__(self) -> str:
        return (
            f"LawspeakerClientError(code={self.code!r}, reason={self.reason!r}, message={self.message!r}, "
            f"field_violations={list(self.field_violations)!r})"
        )


def from_grpc(err: grpc.RpcError) -> LawspeakerClientError:
    """The error of a failed gRPC call, with the ErrorInfo and BadRequest of its rich status."""
    call: Any = err
    code_obj = call.code() if hasattr(call, "code") else None
    code = str(code_obj.name) if code_obj is not None else "UNKNOWN"
    message = str(call.details() or "") if hasattr(call, "details") else str(err)
    reason = ""
    metadata: dict[str, str] = {}
    violations: list[FieldViolation] = []
    retry_after: float | None = None
    status = None
    try:
        status = rpc_status.from_call(call)
    except (ValueError, AttributeError):  # a status whose code or message disagree, or no metadata
        status = None
    if status is not None:
        message = status.message or message
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason = str(info.reason)
                metadata = {str(k): str(v) for k, v in info.metadata.items()}
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                violations.extend(
                    FieldViolation(str(v.field), str(v.description)) for v in bad.field_violations
                )
            elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                retry = error_details_pb2.RetryInfo()
                detail.Unpack(retry)
                retry_after = retry.retry_delay.ToNanoseconds() / 1e9
    return LawspeakerClientError(
        code, reason, message, violations, metadata=metadata, retry_after=retry_after
    )


def from_response(response: httpx.Response) -> LawspeakerClientError:
    """The error of a failed HTTP call, from its RFC 9457 problem document when it has one."""
    status = response.status_code
    doc: Any = None
    try:
        doc = response.json()
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        text = response.text.strip()[:500] or response.reason_phrase
        return LawspeakerClientError(HTTP_CODES.get(status, "UNKNOWN"), "", text, http_status=status)
    violations = [
        FieldViolation(str(v.get("field", "")), str(v.get("description", "")))
        for v in doc.get("fieldViolations") or ()
        if isinstance(v, dict)
    ]
    metadata = doc.get("metadata")
    # The wait to the millisecond is the problem's metadata.retryAfterSeconds (a number); the
    # Retry-After header, whole seconds rounded up, is the fallback (a proxy's answer, say).
    retry_after: float | None = None
    exact = metadata.get("retryAfterSeconds") if isinstance(metadata, dict) else None
    if isinstance(exact, (int, float)) and not isinstance(exact, bool) and exact >= 0:
        retry_after = float(exact)
    else:
        try:
            retry_after = float(response.headers["retry-after"])
        except (KeyError, ValueError):  # absent, or an HTTP date (this service sends seconds)
            retry_after = None
    return LawspeakerClientError(
        str(doc.get("code") or HTTP_CODES.get(status, "UNKNOWN")),
        str(doc.get("reason") or ""),
        str(doc.get("detail") or doc.get("title") or response.reason_phrase),
        violations,
        http_status=status,
        metadata={str(k): str(v) for k, v in metadata.items()} if isinstance(metadata, dict) else None,
        retry_after=retry_after,
    )


def from_transport(err: httpx.HTTPError) -> LawspeakerClientError:
    """A request that got no HTTP response at all (connection refused, timeout...)."""
    code = "DEADLINE_EXCEEDED" if isinstance(err, httpx.TimeoutException) else "UNAVAILABLE"
    return LawspeakerClientError(code, "", f"{type(err).__name__}: {err}")
