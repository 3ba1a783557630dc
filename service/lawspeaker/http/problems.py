"""RFC 9457 problem documents: the REST transport's one writer of an error response, and the
exception handlers that map every error to one."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, TypeVar

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException

from lawspeaker.api import errors, links
from lawspeaker.games.core import FieldViolation, LawspeakerError
from lawspeaker.http import semantics
from lawspeaker.http.media import PROBLEM_JSON, PROTOBUF_TYPES, bare_media_type, first_header
from lawspeaker.observe import calls
from lawspeaker.wire import fieldpaths

log = logging.getLogger(__name__)


MAX_BODY_BYTES = 1024 * 1024
PUBLIC_URL = "lawspeaker.public_url"  # the app state key of --public-url ("": each request's own)


def request_base(request: Request[Any, Any, Any]) -> str:
    """The base URL of the links a request is answered with (``lawspeaker.api.links``): --public-url,
    else the request's own scheme, host and root path."""
    public: str = request.app.state.get(PUBLIC_URL, "")
    return public or str(request.base_url).rstrip("/")


_E = TypeVar("_E", bound=Exception)


def linked(
    handler: Callable[[Request[Any, Any, Any], _E], Response[bytes]],
) -> Callable[[Request[Any, Any, Any], _E], Response[bytes]]:
    """An exception handler whose problem links to this service from the request's base (it also
    runs for paths no route matches, where no route's middleware set it)."""

    @functools.wraps(handler)
    def with_base(request: Request[Any, Any, Any], exc: _E) -> Response[bytes]:
        with links.using(request_base(request)):
            return handler(request, exc)

    return with_base


# --------------------------------------------------------------------------- problems


@dataclass
class Problem(Exception):
    """An HTTP-level error the REST transport raises itself (not one from the API)."""

    status: int
    reason: str
    detail: str
    field_violations: Sequence[FieldViolation] = ()
    headers: Mapping[str, str] = field(default_factory=dict)


def problem_response(
    status: int,
    reason: str,
    detail: str,
    code: str,
    violations: Sequence[FieldViolation] = (),
    metadata: Mapping[str, object] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response[bytes]:
    doc: dict[str, Any] = {
        "type": links.problem_type(reason),  # a page of this service (lawspeaker.http.pages)
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
    calls.note_refusal(code, reason)
    return Response(
        msgspec.json.encode(doc), status_code=status, media_type=PROBLEM_JSON, headers=dict(headers or {})
    )


@linked
def lawspeaker_error_handler(request: Request[Any, Any, Any], err: LawspeakerError) -> Response[bytes]:
    """The problem document of an error; a request that did not come as binary protobuf (JSON, or a
    query string) gets its fields named by their JSON names (``lawspeaker.wire.fieldpaths``)."""
    if not _protobuf_request(request):
        err = fieldpaths.for_json(err)
    return problem_of(err)


def problem_of(err: LawspeakerError) -> Response[bytes]:
    """The problem document of an error, as it names its fields; with Retry-After when it says, and
    the wait as a number in its metadata (``retryAfterSeconds``: the header has whole seconds only)."""
    metadata: dict[str, object] = dict(errors.error_metadata(err))
    if err.retry_after is not None:
        metadata["retryAfterSeconds"] = round(max(err.retry_after, 0.001), 3)
    return problem_response(
        errors.http_status(err),
        err.reason,
        err.message,
        errors.code_name(err),
        err.field_violations,
        metadata,
        errors.retry_after_header(err),
    )


def _protobuf_request(request: Request[Any, Any, Any]) -> bool:
    return bare_media_type(first_header(request, b"content-type")) in PROTOBUF_TYPES


@linked
def problem_handler(request: Request[Any, Any, Any], exc: Problem) -> Response[bytes]:
    if exc.status == 405 and not exc.headers:
        return method_not_allowed(request, exc.detail, {})
    code = errors.HTTP_CODE_NAMES.get(exc.status, "UNKNOWN")
    return problem_response(exc.status, exc.reason, exc.detail, code, exc.field_violations, None, exc.headers)


HTTP_REASONS = {
    404: ("ROUTE_NOT_FOUND", "No route matches {method} {path}."),
    405: ("METHOD_NOT_ALLOWED", "Method {method} is not allowed for {path}."),
    413: ("BODY_TOO_LARGE", f"The request body exceeds the limit of {MAX_BODY_BYTES} bytes."),
}


@linked
def http_exception_handler(request: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    status = exc.status_code
    if status >= 500:
        return internal_error(request, exc)
    reason, template = HTTP_REASONS.get(status, ("BAD_REQUEST", "{detail}"))
    detail = template.format(method=request.method, path=request.url.path, detail=exc.detail)
    headers = {k: v for k, v in (exc.headers or {}).items() if k.lower() == "allow"}
    if status == 405:
        return method_not_allowed(request, detail, headers)
    code = errors.HTTP_CODE_NAMES.get(status, "UNKNOWN")
    return problem_response(status, reason, detail, code, headers=headers)


ALLOW_TABLE = "lawspeaker.allow"  # the app state key of the app's semantics.AllowTable


def method_not_allowed(
    request: Request[Any, Any, Any], detail: str, fallback: Mapping[str, str]
) -> Response[bytes]:
    """A 405 whose ``Allow`` names the methods of the route's ``:verb`` (Litestar's own, in
    ``fallback``, names those of every verb on the path), or a 404 when the route has no such verb."""
    table: semantics.AllowTable | None = request.app.state.get(ALLOW_TABLE)
    path = request.scope["path"]
    methods = table.lookup(path) if table is not None else None
    if table is not None and methods is not None and not methods:
        detail = f"No route matches {request.method} {path}."
        _, colon, verb = path.rsplit("/", 1)[-1].rpartition(":")
        if colon:
            known = ", ".join(f":{v}" for v in table.verbs(path)) or "none"
            detail = f"{detail[:-1]}: unknown method ':{verb}'; known methods: {known}."
        return problem_response(404, "ROUTE_NOT_FOUND", detail, "NOT_FOUND")
    headers = {"Allow": semantics.allow_header(methods)} if methods else dict(fallback)
    return problem_response(405, "METHOD_NOT_ALLOWED", detail, "UNIMPLEMENTED", headers=headers)


@linked
def internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    return problem_response(500, "INTERNAL", "Internal error.", "INTERNAL")
