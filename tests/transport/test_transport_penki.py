"""Whole Penki games played over gRPC and REST at once, checking both agree at every step."""

from __future__ import annotations

import httpx
import pytest

from lawspeaker.v1 import game_pb2, penki_pb2, rules_service_pb2_grpc
from lawspeaker.v1 import rules_service_pb2 as pb

from .helpers import both
from .helpers import play as play_game

pytestmark = pytest.mark.transport


def play(
    stub: rules_service_pb2_grpc.RulesServiceStub,
    http: httpx.Client,
    seed: int,
    options: game_pb2.GameOptions | None = None,
    protobuf: bool = False,
) -> int:
    """Play one Penki game to the end over both transports; returns the number of moves applied."""
    steps, state, _ = play_game(stub, http, "penki", seed, options=options, protobuf=protobuf, max_steps=500)
    assert state.penki.phase == penki_pb2.PENKI_PHASE_OVER
    return steps


@pytest.mark.parametrize("seed", [3, 11])
def test_whole_penki_games_agree_over_grpc_and_json(
    stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client, seed: int
) -> None:
    assert play(stub, http, seed) > 28


def test_whole_penki_game_with_every_option_over_protobuf(
    stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client
) -> None:
    options = game_pb2.GameOptions(
        penki=penki_pb2.PenkiOptions(
            setup=penki_pb2.PENKI_SETUP_RANDOM_PAIRS,
            tiles=penki_pb2.PENKI_TILES_UPRIGHT_ALLOWED,
            alignment=penki_pb2.PENKI_ALIGNMENT_TILES,
        )
    )
    assert play(stub, http, 5, options, protobuf=True) > 1


def test_an_illegal_tile_is_refused_alike_over_both_transports(
    stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client
) -> None:
    state = both(
        stub, http, "NewGame", pb.NewGameRequest(game="penki", players=2, seed=1), pb.NewGameResponse
    ).state
    move = game_pb2.Move(penki=penki_pb2.PenkiMove(connect_tile=penki_pb2.PenkiConnectTile(x=2, y=0)))
    verdict = both(
        stub,
        http,
        "ValidateMove",
        pb.ValidateMoveRequest(game="penki", state=state, move=move),
        pb.ValidateMoveResponse,
    )
    assert not verdict.valid and verdict.violation.reason == "SETUP_NOT_FINISHED"
    assert verdict.violation.field == "move.penki.connect_tile"
