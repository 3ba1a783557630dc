"""The gRPC transport: RulesService on a ``grpc.aio`` server, with health checking and reflection.

The servicer is thin: it calls :class:`~lawspeaker.api.RulesApi` and maps a
:class:`~lawspeaker.games.core.LawspeakerError` to a rich status (``lawspeaker.errors``) once.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
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
from lawspeaker.v1 import rules_service_pb2, rules_service_pb2_grpc

log = logging.getLogger(__name__)

SERVICE_NAME: str = rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name
MAX_MESSAGE_BYTES = 4 * 1024 * 1024

Handler = Callable[[Message, grpc.aio.ServicerContext[Any, Any]], Awaitable[Message]]


async def _abort(context: grpc.aio.ServicerContext[Any, Any], status: Any) -> NoReturn:
    # abort_with_status is missing from grpc-stubs' aio ServicerContext.
    await cast(Any, context).abort_with_status(rpc_status.to_status(status))
    raise AssertionError("abort_with_status returned")  # pragma: no cover


def _unary(method: str, call: Callable[[Any], Message]) -> Handler:
    async def handle(request: Message, context: grpc.aio.ServicerContext[Any, Any]) -> Message:
        try:
            return call(request)
        except LawspeakerError as err:
            await _abort(context, errors.to_rpc_status(err))
        except Exception:
            log.exception("unexpected error in %s", method)
            await _abort(context, errors.internal_rpc_status())

    handle.__name__ = method
    return handle


class RulesServicer:
    """RulesService over a :class:`RulesApi`: one thin handler per RPC."""

    def __init__(self, api: RulesApi) -> None:
        self.ListGames = _unary("ListGames", api.list_games)
        self.DescribeGame = _unary("DescribeGame", api.describe_game)
        self.NewGame = _unary("NewGame", api.new_game)
        self.LegalMoves = _unary("LegalMoves", api.legal_moves)
        self.ValidateMove = _unary("ValidateMove", api.validate_move)
        self.ApplyMove = _unary("ApplyMove", api.apply_move)


async def create_server(address: str, api: RulesApi | None = None) -> tuple[grpc.aio.Server, int]:
    """A server bound to ``address`` (``host:port``; port 0 picks a free port) and its port.

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
    health = HealthServicer()
    for name in ("", SERVICE_NAME):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
        server,
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot bind gRPC server to {address}")
    return server, port
