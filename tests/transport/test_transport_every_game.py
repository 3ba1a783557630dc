"""Every registered game, at every player count, played to the end over gRPC and REST JSON at once:
both transports give the same answer at every step (checked by ``helpers.both``)."""

from __future__ import annotations

import httpx
import pytest

from lawspeaker.v1 import rules_service_pb2_grpc
from lawspeaker.wire.registry import REGISTRY

from .helpers import play

pytestmark = pytest.mark.transport

CASES = [
    (game, players)
    for game, entry in sorted(REGISTRY.items())
    for players in range(entry.game.min_players, entry.game.max_players + 1)
]


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_whole_game_agrees_over_grpc_and_rest(
    game: str, players: int, stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client
) -> None:
    play(stub, http, game, 1000 + players, players=players, explicit_outcomes=0.3)
