"""The access policy (:mod:`lawspeaker.api.access`) at the HTTP edge: an ASGI middleware for the HTTP
port (REST and Connect). ``lawspeaker.grpc.guard`` is the same policy as a gRPC interceptor.

Both do the same two things, and nothing on any other call:

- on CreateSession (and Rematch, ListSessions, ClaimSeat) they identify the caller (its API key,
  else its address) and put it in :data:`lawspeaker.api.access.CALLER` for the call, where the
  session API counts its quota; a key that is wrong, or missing while keys are configured, is
  refused with UNAUTHENTICATED before any work; the state of the quota the call took from
  (:data:`lawspeaker.api.access.RATE_LIMIT`) goes out as the ``RateLimit-Policy`` and ``RateLimit``
  headers of its answer, success or refusal;
- with ``--api-keys-for-rules``, every RulesService call needs a valid key as well.

A refusal
is written in the transport's own error format (a problem document on REST, a Connect
error on Connect, its trailers on gRPC-Web, a rich status on gRPC), from the one mapping in
:mod:`lawspeaker.api.errors`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import msgspec

from lawspeaker.api import errors
from lawspeaker.api.access import (
    API_KEY_HEADER,
    CALLER,
    FORWARDED_FOR,
    RATE_LIMIT,
    RULES_RPC,
    Access,
    RateLimitNote,
)
from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.http import grpcweb_frames
from lawspeaker.http.problems import problem_of
from lawspeaker.observe import calls

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CREATE_SESSION_REST = "/v1/sessions"
IDENTIFIED_CONNECT = frozenset(
    f"/lawspeaker.v1.SessionService/{m}" for m in ("CreateSession", "ListSessions", "ClaimSeat", "Rematch")
)
"""The calls whose quotas count per client: creating a session (CreateSession, and a Rematch, which
makes one) and the lobby's (ListSessions, ClaimSeat)."""
IDENTIFIED_VERBS = (":claimSeat", ":rematch")


def identified(method: str, path: str) -> bool:
    """Whether the call is one whose caller is identified (``IDENTIFIED_CONNECT``), over REST or Connect."""
    if method == "GET":
        return path == CREATE_SESSION_REST
    if method != "POST":
        return False
    if path == CREATE_SESSION_REST or path in IDENTIFIED_CONNECT:
        return True
    return path.startswith(CREATE_SESSION_REST + "/") and path.endswith(IDENTIFIED_VERBS)


RULES_REST = "/v1/games"
_API_KEY = API_KEY_HEADER.encode()
_FORWARDED = FORWARDED_FOR.encode()


async def _refuse(send: Send, err: LawspeakerError, connect: bool, scope: Scope) -> None:
    content_type = next(
        (bytes(v).decode("latin-1") for k, v in scope["headers"] if k.lower() == b"content-type"), ""
    )
    if connect and grpcweb_frames.is_grpc_web(content_type):  # gRPC-Web on a Connect path: its trailers
        status, web_media, content = grpcweb_frames.refusal(err, content_type)
        media = web_media.encode()
    elif connect:
        status, body = errors.to_connect_error(err)
        content = msgspec.json.encode(body)
        media = b"application/json"
    else:
        response = problem_of(err)  # the one problem document writer
        status, content = errors.http_status(err), bytes(response.content)
        media = b"application/problem+json"
    headers = [(b"content-type", media), (b"content-length", str(len(content)).encode())]
    if err.code is ErrorCode.UNAUTHENTICATED:
        headers.append((b"www-authenticate", b'ApiKey header="X-Api-Key"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": content})


def http_middleware(access: Access) -> Callable[[Any], Any]:
    """The Litestar middleware factory enforcing ``access`` on the HTTP port."""

    def factory(app: Any) -> Any:
        async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http" or scope["method"] == "OPTIONS":
                await app(scope, receive, send)
                return
            path: str = scope["path"]
            creating = identified(scope["method"], path)
            if not creating and not (
                access.keys_for_rules and (path.startswith(RULES_REST) or path.startswith(RULES_RPC))
            ):
                await app(scope, receive, send)
                return
            key, forwarded = calls.scope_headers(scope, _API_KEY, _FORWARDED)
            client = scope.get("client")
            try:
                caller = access.caller(key, client[0] if client else None, forwarded, key_required=True)
            except LawspeakerError as err:
                await _refuse(send, err, connect=path.startswith("/lawspeaker."), scope=scope)
                return
            if not creating:
                await app(scope, receive, send)
                return
            note = RateLimitNote()

            async def send_with_rate_limit(message: MutableMapping[str, Any]) -> None:
                if message["type"] == "http.response.start" and note.value is not None:
                    added = [(k.lower().encode(), v.encode()) for k, v in note.value.headers().items()]
                    message = {**message, "headers": [*message.get("headers", ()), *added]}
                await send(message)

            token, noting = CALLER.set(caller), RATE_LIMIT.set(note)
            try:
                await app(scope, receive, send_with_rate_limit)
            finally:
                RATE_LIMIT.reset(noting)
                CALLER.reset(token)

        return middleware

    return factory
