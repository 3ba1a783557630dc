"""The access policy (:mod:`lawspeaker.access`) at the edges: an ASGI middleware for the HTTP port
(REST and Connect) and a gRPC server interceptor.

Both do the same two things, and nothing on any other call:

- on CreateSession they identify the caller (its API key, else its address) and put it in
  :data:`lawspeaker.access.CALLER` for the call, where the session API counts its quota; a key that
  is wrong, or missing while keys are configured, is refused with UNAUTHENTICATED before any work;
- with ``--api-keys-for-rules``, every RulesService call needs a valid key as well.

Over gRPC, CreateSession's handler identifies its caller itself (``grpc_caller``), and the
interceptor runs only with ``--api-keys-for-rules``: nothing is added to the other calls. A refusal
is written in the transport's own error format (a problem document on REST, a Connect
error on Connect, a rich status on gRPC), from the one mapping in :mod:`lawspeaker.errors`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, cast

import grpc
import msgspec
from grpc_status import rpc_status

from lawspeaker import calls, errors
from lawspeaker.access import API_KEY_HEADER, CALLER, FORWARDED_FOR, Access, Caller, grpc_peer_address
from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.http.problems import problem_of

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CREATE_SESSION_REST = "/v1/sessions"
CREATE_SESSION_CONNECT = "/lawspeaker.v1.SessionService/CreateSession"
RULES_REST = "/v1/games"
RULES_RPC = "/lawspeaker.v1.RulesService/"
_API_KEY = API_KEY_HEADER.encode()
_FORWARDED = FORWARDED_FOR.encode()


async def _refuse(send: Send, err: LawspeakerError, connect: bool) -> None:
    if connect:
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
            creating = scope["method"] == "POST" and path in (CREATE_SESSION_REST, CREATE_SESSION_CONNECT)
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
                await _refuse(send, err, connect=path.startswith("/lawspeaker."))
                return
            if not creating:
                await app(scope, receive, send)
                return
            token = CALLER.set(caller)
            try:
                await app(scope, receive, send)
            finally:
                CALLER.reset(token)

        return middleware

    return factory


def grpc_caller(access: Access, context: grpc.aio.ServicerContext[Any, Any]) -> Caller:
    """Who is calling over gRPC: the ``x-api-key`` metadata, the peer, a trusted ``x-forwarded-for``
    (raising UNAUTHENTICATED as ``Access.caller`` does)."""
    key = forwarded = None
    for name, value in context.invocation_metadata() or ():
        lowered = name.lower()
        if lowered == API_KEY_HEADER and key is None:
            key = value if isinstance(value, str) else value.decode("latin-1")
        elif lowered == FORWARDED_FOR and forwarded is None:
            forwarded = value if isinstance(value, str) else value.decode("latin-1")
    return access.caller(key, grpc_peer_address(context.peer()), forwarded, key_required=True)


class RulesKeyInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """With ``--api-keys-for-rules``: every RulesService call needs a valid API key. (CreateSession
    identifies its caller in its own handler, ``grpc_server``; no interceptor runs without the flag.)"""

    def __init__(self, access: Access) -> None:
        self.access = access

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any]]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any]:
        handler = await continuation(handler_call_details)
        if not handler_call_details.method.startswith(RULES_RPC) or handler is None:
            return handler
        inner: Any = handler.unary_unary  # a coroutine function on the aio server
        if inner is None:
            return handler
        access = self.access

        async def guarded(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            try:
                grpc_caller(access, context)
            except LawspeakerError as err:
                await cast(Any, context).abort_with_status(rpc_status.to_status(errors.to_rpc_status(err)))
                raise AssertionError("abort_with_status returned") from None  # pragma: no cover
            return await inner(request, context)

        return grpc.unary_unary_rpc_method_handler(
            guarded,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
