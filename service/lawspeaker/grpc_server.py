"""The gRPC transport: RulesService (and SessionService) on a ``grpc.aio`` server, with health
checking and reflection.

The servicers are thin: they call :class:`~lawspeaker.api.RulesApi` or
:class:`~lawspeaker.sessions.service.SessionApi` and map a
:class:`~lawspeaker.games.core.LawspeakerError` to a rich status (``lawspeaker.errors``) once.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NoReturn, cast

import grpc
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from lawspeaker import errors
from lawspeaker.api import RulesApi
from lawspeaker.games.core import LawspeakerError
from lawspeaker.sessions.service import SessionApi, bearer
from lawspeaker.v1 import (
    rules_service_pb2,
    rules_service_pb2_grpc,
    session_service_pb2,
    session_service_pb2_grpc,
)

log = logging.getLogger(__name__)

SERVICE_NAME: str = rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name
SESSION_SERVICE_NAME: str = session_service_pb2.DESCRIPTOR.services_by_name["SessionService"].full_name
MAX_MESSAGE_BYTES = 4 * 1024 * 1024

Handler = Callable[[Message, grpc.aio.ServicerContext[Any, Any]], Awaitable[Message]]


async def _abort(context: grpc.aio.ServicerContext[Any, Any], status: Any) -> NoReturn:
    # abort_with_status is missing from grpc-stubs' aio ServicerContext.
    await cast(Any, context).abort_with_status(rpc_status.to_status(status))
    raise AssertionError("abort_with_status returned")  # pragma: no cover


async def _fail(context: grpc.aio.ServicerContext[Any, Any], method: str, err: Exception) -> NoReturn:
    """End the call with the error's rich status; an unexpected error is logged and becomes a bare
    INTERNAL with nothing leaked."""
    if isinstance(err, LawspeakerError):
        await _abort(context, errors.to_rpc_status(err))
    log.error("unexpected error in %s", method, exc_info=err)
    await _abort(context, errors.internal_rpc_status())


def _unary(method: str, call: Callable[[Any], Message]) -> Handler:
    async def handle(request: Message, context: grpc.aio.ServicerContext[Any, Any]) -> Message:
        try:
            return call(request)
        except Exception as err:  # every failure is mapped once, in _fail
            await _fail(context, method, err)

    handle.__name__ = method
    return handle


def _token(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    """The seat token of ``authorization: Bearer <token>`` metadata, None when absent."""
    for key, value in context.invocation_metadata() or ():
        if key.lower() == "authorization":
            return bearer(value if isinstance(value, str) else value.decode())
    return None


def _session_unary(method: str, call: Callable[[Any, str | None], Awaitable[Message]]) -> Handler:
    async def handle(request: Message, context: grpc.aio.ServicerContext[Any, Any]) -> Message:
        try:
            return await call(request, _token(context))
        except Exception as err:  # every failure is mapped once, in _fail
            await _fail(context, method, err)

    handle.__name__ = method
    return handle


def _session_stream(
    method: str, call: Callable[[Any, str | None], AsyncIterator[Message]]
) -> Callable[[Message, grpc.aio.ServicerContext[Any, Any]], AsyncIterator[Message]]:
    async def handle(request: Message, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Message]:
        try:
            async for item in call(request, _token(context)):
                yield item
        except Exception as err:  # every failure is mapped once, in _fail
            await _fail(context, method, err)

    handle.__name__ = method
    return handle


class SessionServicer:
    """SessionService over a :class:`SessionApi`; the seat token comes from the metadata."""

    def __init__(self, api: SessionApi) -> None:
        self.CreateSession = _session_unary("CreateSession", api.create_session)
        self.GetSession = _session_unary("GetSession", api.get_session)
        self.ListSessionMoves = _session_unary("ListSessionMoves", api.list_session_moves)
        self.SessionLegalMoves = _session_unary("SessionLegalMoves", api.session_legal_moves)
        self.SessionValidateMove = _session_unary("SessionValidateMove", api.session_validate_move)
        self.SessionApplyMove = _session_unary("SessionApplyMove", api.session_apply_move)
        self.UndoMove = _session_unary("UndoMove", api.undo_move)
        self.DeleteSession = _session_unary("DeleteSession", api.delete_session)
        self.WatchSession = _session_stream("WatchSession", api.watch_session)


class RulesServicer:
    """RulesService over a :class:`RulesApi`: one thin handler per RPC."""

    def __init__(self, api: RulesApi) -> None:
        self.ListGames = _unary("ListGames", api.list_games)
        self.DescribeGame = _unary("DescribeGame", api.describe_game)
        self.NewGame = _unary("NewGame", api.new_game)
        self.LegalMoves = _unary("LegalMoves", api.legal_moves)
        self.ValidateMove = _unary("ValidateMove", api.validate_move)
        self.ApplyMove = _unary("ApplyMove", api.apply_move)


async def create_server(
    address: str, api: RulesApi | None = None, sessions: SessionApi | None = None
) -> tuple[grpc.aio.Server, int]:
    """A server bound to ``address`` (``host:port``; port 0 picks a free port) and its port.

    With ``sessions``, the server also serves SessionService.

    The server is not started yet: call ``await server.start()``.
    """
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ]
    )
    rules_service_pb2_grpc.add_RulesServiceServicer_to_server(
        RulesServicer(api if api is not None else RulesApi()), server
    )
    names = [SERVICE_NAME]
    if sessions is not None:
        session_service_pb2_grpc.add_SessionServiceServicer_to_server(SessionServicer(sessions), server)
        names.append(SESSION_SERVICE_NAME)
    health = HealthServicer()
    for name in ("", *names):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    reflection.enable_server_reflection(
        (*names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
        server,
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot bind gRPC server to {address}")
    return server, port
