"""SuggestMove over REST, gRPC and Connect against real servers on loopback: the same move as the
engine-level bot for the same seed on every transport, legal, reproducible from the seed it reports,
blind to what the seat cannot see, capped, bounded, and thought without holding up other calls."""

from __future__ import annotations

import concurrent.futures
import contextlib
import random
import time
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import json_format

from lawspeaker import bots
from lawspeaker.api.botpool import BotPool
from lawspeaker.api.rules import RulesApi
from lawspeaker.bots import Level
from lawspeaker.games import pax_penning
from lawspeaker.games.core import Rng, is_legal
from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire.registry import REGISTRY

from .conftest import Servers, run_servers

pytestmark = pytest.mark.transport

LEVELS = {
    Level.RANDOM: game_pb2.BOT_LEVEL_RANDOM,
    Level.GREEDY: game_pb2.BOT_LEVEL_GREEDY,
    Level.SEARCH: game_pb2.BOT_LEVEL_SEARCH,
}
RULES = RulesApi()


@pytest.fixture(scope="module")
def bot_servers() -> Iterator[Servers]:
    with run_servers(RulesApi(bot_pool=BotPool(processes=1, queue=0))) as running:
        yield running


@pytest.fixture(scope="module")
def clients(bot_servers: Servers) -> Iterator[tuple[httpx.Client, rules_service_pb2_grpc.RulesServiceStub]]:
    with (
        httpx.Client(base_url=bot_servers.base_url, timeout=60) as http,
        grpc.insecure_channel(f"127.0.0.1:{bot_servers.grpc_port}") as channel,
    ):
        yield http, rules_service_pb2_grpc.RulesServiceStub(channel)


def _decision(game_id: str, players: int, seed: int = 5, plies: int = 15) -> Any:
    game = REGISTRY[game_id].game
    rng = random.Random(seed)
    state = game.new_game(players, game.default_options(), Rng.from_seed(seed))
    for ply in range(500):
        drawn = bots.sample_chance(game, state, rng)
        if drawn is None and ply >= plies and len(game.legal_moves(state)) > 1:
            return state
        state, _ = game.apply(
            state, drawn if drawn is not None else rng.choice(list(game.legal_moves(state)))
        )
    raise AssertionError("no decision position")


def _request(game_id: str, state: Any, level: Level, **fields: Any) -> pb.SuggestMoveRequest:
    entry = RULES.registry[game_id]
    return pb.SuggestMoveRequest(
        game=game_id, state=RULES.encode_state(entry, state), level=LEVELS[level], **fields
    )


def _rest(http: httpx.Client, request: pb.SuggestMoveRequest) -> pb.SuggestMoveResponse:
    body = json_format.MessageToDict(request)
    body.pop("game")
    r = http.post(f"/v1/games/{request.game}:suggestMove", json=body)
    assert r.status_code == 200, r.text
    return json_format.Parse(r.text, pb.SuggestMoveResponse())


def _connect(http: httpx.Client, request: pb.SuggestMoveRequest) -> pb.SuggestMoveResponse:
    r = http.post(
        "/lawspeaker.v1.RulesService/SuggestMove",
        content=request.SerializeToString(),
        headers={"content-type": "application/proto"},
    )
    assert r.status_code == 200, r.text
    return pb.SuggestMoveResponse.FromString(r.content)


GAMES = [(g, 3 if g == "pax_penning" else 2) for g in sorted(REGISTRY)]


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_every_transport_suggests_the_engine_bots_move(
    clients: tuple[httpx.Client, rules_service_pb2_grpc.RulesServiceStub], game_id: str, players: int
) -> None:
    http, stub = clients
    game = REGISTRY[game_id].game
    state = _decision(game_id, players)
    seat = game.to_act(state).players[0]
    for level in Level:
        request = _request(game_id, state, level, seed=11, budget=game_pb2.BotBudget(playouts=30))
        answers = [_rest(http, request), stub.SuggestMove(request, timeout=60), _connect(http, request)]
        assert answers[0] == answers[1] == answers[2], level
        expected = bots.suggest(game, state, seat, level, playouts=30, seed=11)
        entry = RULES.registry[game_id]
        assert answers[0].move == RULES.encode_move(entry, expected.move)
        assert answers[0].value == pytest.approx(expected.value)
        assert (answers[0].playouts, answers[0].seed, answers[0].seat) == (expected.playouts, 11, seat)
        assert is_legal(game, state, entry.codec.move_from_proto(getattr(answers[0].move, entry.codec.field)))


def test_without_a_seed_the_answer_names_the_seed_that_gives_it_again(
    clients: tuple[httpx.Client, rules_service_pb2_grpc.RulesServiceStub],
) -> None:
    http, _ = clients
    state = _decision("penki", 2)
    budget = game_pb2.BotBudget(playouts=40)
    first = _rest(http, _request("penki", state, Level.SEARCH, budget=budget))
    again = _rest(http, _request("penki", state, Level.SEARCH, budget=budget, seed=first.seed))
    assert again == first


def test_a_chance_step_gets_the_draw_move_never_an_outcome(
    clients: tuple[httpx.Client, rules_service_pb2_grpc.RulesServiceStub],
) -> None:
    _, stub = clients
    game = REGISTRY["valhalla"].game
    state = game.new_game(2, game.default_options(), Rng.from_seed(1))
    assert game.chance(state) is not None
    draw = RULES.encode_move(RULES.registry["valhalla"], game.legal_moves(state)[0])
    for level in Level:
        answer = stub.SuggestMove(_request("valhalla", state, level), timeout=30)
        assert answer.move == draw and answer.playouts == 0


def test_what_the_seat_cannot_see_does_not_change_the_answer(
    clients: tuple[httpx.Client, rules_service_pb2_grpc.RulesServiceStub],
) -> None:
    """Pax Penning: one stone moved between two Houses the seat cannot see, and another RNG: the
    same view, so the same answer, over the wire too."""
    http, _ = clients
    game = pax_penning.GAME
    checked = 0
    for seed in range(5, 40):
        state = _decision("pax_penning", 3, seed=seed)
        seat = game.to_act(state).players[0]
        a, b = [h for h in range(3) if h != seat]
        colour = next((c for c, k in enumerate(state.houses[a]) if k), None)
        if colour is None:
            continue
        houses = list(state.houses)
        houses[a] = tuple(k - (c == colour) for c, k in enumerate(houses[a]))
        houses[b] = tuple(k + (c == colour) for c, k in enumerate(houses[b]))
        twin = state._replace(houses=tuple(houses), sizes=tuple(map(sum, houses)), rng=Rng.from_seed(77))
        if game.check_state(twin):
            continue
        assert game.view(twin, seat) == game.view(state, seat) and twin != state
        for level in (Level.GREEDY, Level.SEARCH):
            fields = {"seed": 3, "budget": game_pb2.BotBudget(playouts=25)}
            assert _rest(http, _request("pax_penning", state, level, **fields)) == _rest(
                http, _request("pax_penning", twin, level, **fields)
            )
        checked += 1
        if checked == 2:
            break
    assert checked == 2


def test_budgets_past_the_caps_are_taken_as_the_caps(
    clients: tuple[httpx.Client, rules_service_pb2_grpc.RulesServiceStub],
) -> None:
    http, stub = clients
    state = _decision("valhalla", 2)
    most = 2**32 - 1
    # endless playouts stop on a short clock, never past the playout cap
    clocked = stub.SuggestMove(
        _request("valhalla", state, Level.SEARCH, budget=game_pb2.BotBudget(playouts=most, millis=300)),
        timeout=60,
    )
    assert 1 <= clocked.playouts <= bots.MAX_PLAYOUTS
    # an endless clock stops on a few playouts
    counted = _rest(
        http, _request("valhalla", state, Level.SEARCH, budget=game_pb2.BotBudget(playouts=7, millis=most))
    )
    assert counted.playouts == 7


def test_stateless_calls_are_answered_while_a_bot_thinks(
    clients: tuple[httpx.Client, rules_service_pb2_grpc.RulesServiceStub],
) -> None:
    http, stub = clients
    state = _decision("valhalla", 2)
    legal = pb.LegalMovesRequest(game="valhalla", state=_request("valhalla", state, Level.RANDOM).state)
    search = _request("valhalla", state, Level.SEARCH, budget=game_pb2.BotBudget(millis=3000))
    stub.SuggestMove(
        _request("valhalla", state, Level.SEARCH, budget=game_pb2.BotBudget(playouts=1)), timeout=60
    )
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        thinking = thread.submit(stub.SuggestMove, search, timeout=60)
        time.sleep(0.1)  # the call is on its way to the worker
        for _ in range(20):
            assert stub.LegalMoves(legal, timeout=10).moves
            assert (
                http.post(
                    "/v1/games/valhalla:legalMoves", json={"state": json_format.MessageToDict(legal.state)}
                ).status_code
                == 200
            )
        assert not thinking.done()
        assert thinking.result().playouts > 1


def test_a_full_bot_queue_answers_bots_busy_with_when_to_retry(
    clients: tuple[httpx.Client, rules_service_pb2_grpc.RulesServiceStub],
) -> None:
    """This server has one bot worker and no queue: while a search thinks, another suggestion that
    needs a worker is refused at once on every transport, saying when to try again."""
    http, stub = clients
    state = _decision("penki", 2)
    search = _request("penki", state, Level.SEARCH, budget=game_pb2.BotBudget(millis=2500))
    greedy = _request("penki", state, Level.GREEDY)
    body = json_format.MessageToDict(greedy)
    body.pop("game")
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        for _ in range(5):  # a search that holds the worker (it is refused itself if it comes second)
            thinking = thread.submit(stub.SuggestMove, search, timeout=60)
            time.sleep(0.3)
            if not thinking.done():
                break
            with contextlib.suppress(grpc.RpcError):
                thinking.result()
        r = http.post("/v1/games/penki:suggestMove", json=body)
        assert r.status_code == 429, r.text
        assert r.json()["reason"] == "BOTS_BUSY" and int(r.headers["retry-after"]) >= 1
        with pytest.raises(grpc.RpcError) as refused:
            stub.SuggestMove(greedy, timeout=30)
        assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        c = http.post(
            "/lawspeaker.v1.RulesService/SuggestMove",
            content=greedy.SerializeToString(),
            headers={"content-type": "application/proto"},
        )
        assert c.status_code == 429 and c.json()["code"] == "resource_exhausted"
        assert not thinking.done()
        assert thinking.result().playouts > 0
    assert _rest(http, greedy).move  # the worker is free again
