"""Every registered game, at every player count, played to the end over gRPC and REST JSON at once:
both transports give the same answer at every step (checked by ``helpers.both``)."""

from __future__ import annotations

import random

import httpx
import pytest

from lawspeaker.registry import REGISTRY
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import rules_service_pb2_grpc

from .helpers import both

pytestmark = pytest.mark.transport

MAX_STEPS = 5000
CASES = [
    (game, players)
    for game, entry in sorted(REGISTRY.items())
    for players in range(entry.game.min_players, entry.game.max_players + 1)
]


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_whole_game_agrees_over_grpc_and_rest(
    game: str, players: int, stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client
) -> None:
    chooser = random.Random(players)
    new = pb.NewGameRequest(game=game, players=players, seed=1000 + players)
    state = both(stub, http, "NewGame", new, pb.NewGameResponse).state
    for _ in range(MAX_STEPS):
        listed = both(
            stub, http, "LegalMoves", pb.LegalMovesRequest(game=game, state=state), pb.LegalMovesResponse
        )
        if listed.game_over:
            assert not listed.moves and listed.outcome.summary
            return
        assert listed.moves and (listed.to_act or listed.HasField("chance"))
        move = chooser.choice(list(listed.moves))
        if listed.HasField("chance") and chooser.random() < 0.3:
            move = chooser.choice(list(listed.chance.outcomes)).move  # an explicit outcome
        verdict = both(
            stub,
            http,
            "ValidateMove",
            pb.ValidateMoveRequest(game=game, state=state, move=move),
            pb.ValidateMoveResponse,
        )
        assert verdict.valid, verdict.violation
        state = both(
            stub,
            http,
            "ApplyMove",
            pb.ApplyMoveRequest(game=game, state=state, move=move),
            pb.ApplyMoveResponse,
        ).state
    pytest.fail(f"{game} with {players} players did not end within {MAX_STEPS} steps")
