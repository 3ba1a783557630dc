"""Whole Valhalla games played over gRPC and REST at once, checking both agree at every step."""

from __future__ import annotations

import grpc
import httpx
import pytest

from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc, valhalla_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire.registry import REGISTRY

from .helpers import play as play_game

pytestmark = pytest.mark.transport


def play(
    stub: rules_service_pb2_grpc.RulesServiceStub,
    http: httpx.Client,
    seed: int,
    options: game_pb2.GameOptions | None = None,
    protobuf: bool = False,
) -> int:
    """Play one Valhalla game to the end over both transports; returns the number of moves applied."""
    steps, state, listed = play_game(stub, http, "valhalla", seed, options=options, protobuf=protobuf)
    assert listed.outcome.result == game_pb2.GAME_RESULT_WIN
    assert state.valhalla.phase == valhalla_pb2.VALHALLA_PHASE_OVER
    return steps


@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_whole_games_agree_over_grpc_and_json(
    stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client, seed: int
) -> None:
    assert play(stub, http, seed) > 10


def test_whole_game_with_enter_start(
    stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client
) -> None:
    options = game_pb2.GameOptions(
        valhalla=valhalla_pb2.ValhallaOptions(start=valhalla_pb2.VALHALLA_START_ENTER, doubles=True)
    )
    assert play(stub, http, 99, options) > 10


def test_whole_game_over_binary_protobuf(
    stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client
) -> None:
    assert play(stub, http, 5, protobuf=True) > 10


def test_same_seed_same_game(stub: rules_service_pb2_grpc.RulesServiceStub) -> None:
    req = pb.NewGameRequest(game="valhalla", players=2, seed=7)
    assert stub.NewGame(req) == stub.NewGame(req)


def test_list_and_describe_agree(stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client) -> None:
    from google.protobuf import json_format

    listed = stub.ListGames(pb.ListGamesRequest())
    r = http.get("/v1/games")
    assert r.status_code == 200
    assert json_format.Parse(r.text, pb.ListGamesResponse(), ignore_unknown_fields=False) == listed
    assert [g.id for g in listed.games] == sorted(REGISTRY)

    described = stub.DescribeGame(pb.DescribeGameRequest(game="valhalla"))
    r = http.get("/v1/games/valhalla")
    assert r.status_code == 200
    assert _rules_as_paths(http, json_format.Parse(r.text, pb.DescribeGameResponse())) == described
    assert described.info.id == "valhalla"

    r = http.get("/v1/games/valhalla", headers={"accept": "application/x-protobuf"})
    assert r.headers["content-type"] == "application/x-protobuf"
    assert _rules_as_paths(http, pb.DescribeGameResponse.FromString(r.content)) == described


def _rules_as_paths(http: httpx.Client, described: pb.DescribeGameResponse) -> pb.DescribeGameResponse:
    """A REST DescribeGame with each reason's rule as gRPC (no --public-url) gives it: the path of
    the rule's page, which REST links from the request's base."""
    base = str(http.base_url).rstrip("/")
    for reason in described.reasons:
        assert reason.rule.startswith(f"{base}/rules/{described.info.id}#"), reason.rule
        reason.rule = reason.rule.removeprefix(base)
    return described


def test_json_request_answers_json_even_when_accept_is_absent(http: httpx.Client) -> None:
    r = http.post("/v1/games/valhalla:new", json={"players": 2, "seed": "7"}, headers={"accept": ""})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body["state"]["rulesVersion"]
    assert isinstance(body["state"]["rng"]["seed"], str)  # bytes are base64


def test_grpc_channel_is_ready(channel: grpc.Channel) -> None:
    grpc.channel_ready_future(channel).result(timeout=10)
