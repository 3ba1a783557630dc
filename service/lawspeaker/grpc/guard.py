"""The access policy (:mod:`lawspeaker.api.access`) at the gRPC edge, as ``lawspeaker.http.guard``
is at the HTTP one: CreateSession's handler identifies its caller itself (:func:`grpc_caller`), and
with ``--api-keys-for-rules`` :class:`RulesKeyInterceptor` asks every RulesService call for a valid
API key; nothing is added to the other calls. A refusal is a rich status, from the one mapping in
:mod:`lawspeaker.api.errors`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

import grpc
from grpc_status import rpc_status

from lawspeaker.api import errors
from lawspeaker.api.access import API_KEY_HEADER, FORWARDED_FOR, RULES_RPC, Access, Caller, grpc_peer_address
from lawspeaker.games.core import LawspeakerError


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
