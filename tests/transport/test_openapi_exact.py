"""The OpenAPI document says what the server accepts (issue 15): oneofs, required fields, ranges and
enums, from the descriptors, the game registry and the tables of ``lawspeaker.http.openapi``, each
table held here to the server's own behaviour. ``.ci/schemathesis.sh`` fuzzes the whole document
against a live server; these tests pin its parts quickly, and the rules of its hooks."""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import jsonschema
import pytest
from google.protobuf import descriptor

from lawspeaker.api.rules import RulesApi
from lawspeaker.games.core import LawspeakerError
from lawspeaker.http import openapi, semantics
from lawspeaker.http.openapi import openapi_document
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import MemoryStore
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.wire.registry import REGISTRY

from .conftest import memory_sessions_client

pytestmark = pytest.mark.transport

DOC = openapi_document()
GAMES = sorted(REGISTRY)
VERBS = ("new", "legalMoves", "validateMove", "applyMove")
FD = descriptor.FieldDescriptor


def schema_of(path: str, method: str = "post", status: str = "") -> dict[str, Any]:
    """The JSON schema of an operation's request body, or of its answer with ``status``."""
    op = DOC["paths"][path][method]
    content = op["responses"][status]["content"] if status else op["requestBody"]["content"]
    found: dict[str, Any] = content["application/json"]["schema"]
    return found


def resolved(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema a reference names (itself, when it is none)."""
    while "$ref" in schema:
        schema = DOC["components"]["schemas"][schema["$ref"].removeprefix("#/components/schemas/")]
    return schema


def valid(schema: dict[str, Any], instance: Any) -> bool:
    root = {**schema, "components": DOC["components"]}
    return bool(jsonschema.Draft202012Validator(root).is_valid(instance))


def component(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    """A server with sessions in memory (the required fields of session writes are checked too)."""
    with memory_sessions_client() as client:
        yield client


# --------------------------------------------------------------------------- games, paths, players


def test_the_game_parameter_is_the_registry_and_each_game_has_its_own_operations() -> None:
    describe = DOC["paths"]["/v1/games/{game}"]["get"]
    assert resolved(describe["parameters"][0]["schema"])["enum"] == GAMES
    assert "GAME_NOT_FOUND" in describe["responses"]["404"]["description"]
    for game in GAMES:
        for verb in VERBS:
            op = DOC["paths"][f"/v1/games/{game}:{verb}"]["post"]
            assert op["operationId"].endswith(f"_{game}") and "parameters" not in op
            assert "404" not in op["responses"]  # the path names a game the service plays
    assert not any("{game}:" in path for path in DOC["paths"])


def test_players_are_bounded_by_each_games_min_and_max_players() -> None:
    create = schema_of("/v1/sessions")
    for game_id, entry in REGISTRY.items():
        game = entry.game
        body = resolved(schema_of(f"/v1/games/{game_id}:new"))
        players = body["properties"]["players"]
        assert (players["minimum"], players["maximum"]) == (game.min_players, game.max_players)
        assert "players" in body["required"]
        assert valid(create, {"game": game_id, "players": game.max_players})
        assert not valid(create, {"game": game_id, "players": game.max_players + 1})
        assert not valid(create, {"game": game_id, "players": game.min_players - 1})
        assert not valid(create, {"players": game.min_players})  # the game is required
    other = next(g for g in GAMES if g != "valhalla")
    assert not valid(create, {"game": "valhalla", "players": 2, "options": {camel(other): {}}})
    assert valid(create, {"game": "valhalla", "players": 2, "options": {"valhalla": {}}})
    assert not valid(create, {"game": "chess", "players": 2})


def test_pax_viking_junior_seat_options_are_bounded_by_the_number_of_players() -> None:
    body = schema_of("/v1/games/pax_viking_junior:new")

    def options(**values: Any) -> dict[str, Any]:
        return {"players": 2, "options": {"paxVikingJunior": values}}

    assert valid(body, options(startingSeat=1, seatBoards=["bygul", "huginn"]))
    assert valid(body, options(startingSeat=-1, seatBoards=[]))
    assert not valid(body, options(startingSeat=2))
    assert not valid(body, options(seatBoards=["bygul"]))
    assert not valid(body, options(seatBoards=["bygul", "bygul"]))
    assert not valid(body, options(seatBoards=["bygul", "nobody"]))
    assert valid(body, options(seatBoards=["bygul", "nobody"], components="{}"))  # the data decides


# --------------------------------------------------------------------------- oneofs


def test_oneofs_are_exactly_one_or_at_most_one() -> None:
    move, options = component("Move"), component("GameOptions")
    cast = {"cast": {}}
    assert valid(move, {"valhalla": cast})
    assert not valid(move, {})  # a move is of one game
    assert not valid(move, {"valhalla": cast, "penki": {"pass": {}}})
    assert not valid(move, {"valhalla": {}})  # and is one action
    assert not valid(move, {"valhalla": {**cast, "moveShip": {"ship": 1, "to": 2}}})
    assert valid(options, {}) and valid(options, {"penki": {}})  # options: at most one game's
    assert not valid(options, {"valhalla": {}, "penki": {}})
    valhalla_move = component("MoveValhalla")
    assert valid(valhalla_move, {"valhalla": cast})
    assert not valid(valhalla_move, {"penki": {"pass": {}}})  # a Valhalla operation takes no other
    # null is a member's default (unset), as proto3 JSON reads it: it sets no member
    assert valid(move, {"valhalla": cast, "penki": None})
    assert valid(options, {"valhalla": None, "penki": {}})
    assert not valid(move, {"valhalla": {"cast": {}, "moveShip": {"ship": 1, "to": 2}}, "penki": None})


def test_a_oneof_member_that_is_null_is_unset_over_rest(http: httpx.Client) -> None:
    """What the document says of null in a oneof, the service does (proto3 JSON: null is unset)."""
    created = http.post("/v1/sessions", json={"game": "valhalla", "players": 2}).json()
    seat = {"Authorization": f"Bearer {created['seatTokens'][0]['token']}"}
    url = f"/v1/sessions/{created['session']['session']}:validateMove"
    body = {"move": {"valhalla": {"cast": {}, "moveShip": None}, "penki": None}}
    assert valid(schema_of("/v1/sessions/{session}:validateMove"), body)
    assert http.post(url, json=body, headers=seat).json() == {"valid": True}


# --------------------------------------------------------------------------- the server's own answers


@pytest.mark.parametrize("game", GAMES)
def test_what_the_server_answers_is_what_the_document_says_and_takes(http: httpx.Client, game: str) -> None:
    """Exactness must not cost correctness: a game's own states and moves are schema-valid
    requests, and every answer conforms to its response schema."""
    players = REGISTRY[game].game.min_players
    new = http.post(f"/v1/games/{game}:new", json={"players": players, "seed": "7"})
    assert new.status_code == 200 and valid(schema_of(f"/v1/games/{game}:new", status="200"), new.json())
    state = new.json()["state"]
    assert valid(schema_of(f"/v1/games/{game}:legalMoves"), {"state": state})
    legal = http.post(f"/v1/games/{game}:legalMoves", json={"state": state})
    assert valid(schema_of(f"/v1/games/{game}:legalMoves", status="200"), legal.json())
    body = {"state": state, "move": legal.json()["moves"][0]}
    assert valid(schema_of(f"/v1/games/{game}:applyMove"), body)
    applied = http.post(f"/v1/games/{game}:applyMove", json=body)
    assert applied.status_code == 200
    assert valid(schema_of(f"/v1/games/{game}:applyMove", status="200"), applied.json())


# --------------------------------------------------------------------------- required fields


def _state(http: httpx.Client, game: str = "valhalla") -> dict[str, Any]:
    state: dict[str, Any] = http.post(f"/v1/games/{game}:new", json={"players": 2, "seed": "7"}).json()[
        "state"
    ]
    return state


def test_every_required_field_is_one_the_server_refuses_to_go_without(http: httpx.Client) -> None:
    state = _state(http)
    move = http.post("/v1/games/valhalla:legalMoves", json={"state": state}).json()["moves"][0]
    created = http.post("/v1/sessions", json={"game": "valhalla", "players": 2}).json()
    session = created["session"]["session"]
    seat = {"Authorization": f"Bearer {created['seatTokens'][0]['token']}"}
    without_seed = {**state, "rng": {k: v for k, v in state["rng"].items() if k != "seed"}}
    lobby = http.post("/v1/sessions", json={"game": "valhalla", "players": 2, "openSeats": [1]}).json()
    open_session, host = lobby["session"]["session"], {"Authorization": f"Bearer {lobby['hostToken']}"}
    # the message, its URL, a complete body (accepted) and each required field's refusal without it
    cases: dict[str, tuple[str, dict[str, Any], dict[str, str]]] = {
        "lawspeaker.v1.NewGameRequest": ("/v1/games/valhalla:new", {"players": 2}, {}),
        "lawspeaker.v1.LegalMovesRequest": ("/v1/games/valhalla:legalMoves", {"state": state}, {}),
        "lawspeaker.v1.ValidateMoveRequest": (
            "/v1/games/valhalla:validateMove",
            {"state": state, "move": move},
            {},
        ),
        "lawspeaker.v1.ApplyMoveRequest": (
            "/v1/games/valhalla:applyMove",
            {"state": state, "move": move},
            {},
        ),
        "lawspeaker.v1.SuggestMoveRequest": (
            "/v1/games/valhalla:suggestMove",
            {"state": state, "level": "BOT_LEVEL_RANDOM"},
            {},
        ),
        "lawspeaker.v1.CreateSessionRequest": ("/v1/sessions", {"game": "valhalla", "players": 2}, {}),
        "lawspeaker.v1.SessionValidateMoveRequest": (
            f"/v1/sessions/{session}:validateMove",
            {"move": move},
            seat,
        ),
        "lawspeaker.v1.SessionApplyMoveRequest": (
            f"/v1/sessions/{session}:applyMove",
            {"move": move, "etag": created["session"]["etag"]},
            seat,
        ),
        "lawspeaker.v1.ClaimSeatRequest": (
            f"/v1/sessions/{open_session}:claimSeat",
            {"displayName": "Ulf"},
            {},
        ),
        "lawspeaker.v1.ManageSeatRequest": (
            f"/v1/sessions/{open_session}:manageSeat",
            {"seat": 0, "action": "SEAT_ACTION_REISSUE_TOKEN"},
            host,
        ),
    }
    assert set(cases) | {"lawspeaker.v1.RngState"} == set(openapi.REQUIRED)
    for message, (url, body, headers) in cases.items():
        for name in openapi.REQUIRED[message]:
            json_name = descriptor_field(message, name).json_name
            without = {k: v for k, v in body.items() if k != json_name}
            refused = http.post(url, json=without, headers=headers)
            assert refused.status_code == 400, (message, name, refused.text)
        assert http.post(url, json=body, headers=headers).status_code == 200, message
    refused = http.post("/v1/games/valhalla:legalMoves", json={"state": without_seed})
    assert refused.status_code == 400 and refused.json()["reason"] == "INVALID_STATE"


def descriptor_field(message: str, name: str) -> descriptor.FieldDescriptor:
    pool = game_pb2.DESCRIPTOR.pool
    found: descriptor.FieldDescriptor = pool.FindMessageTypeByName(message).fields_by_name[name]
    return found


# --------------------------------------------------------------------------- ranges and patterns


def test_bounds_and_patterns_are_the_servers(http: httpx.Client) -> None:
    state = _state(http)
    rng = component("RngState")
    limit = openapi.BOUNDS["lawspeaker.v1.RngState.counter"][1]
    # a 64-bit integer is a decimal string (a JSON number is refused over REST)
    for counter, ok in ((limit, False), (str(limit), True), (str(limit + 1), False), ("01", False)):
        at = {**state, "rng": {**state["rng"], "counter": counter}}
        assert valid(rng, at["rng"]) is ok
        assert (http.post("/v1/games/valhalla:legalMoves", json={"state": at}).status_code == 200) is ok
    created = http.post("/v1/sessions", json={"game": "penki", "players": 2}).json()["session"]["session"]
    moves = DOC["paths"]["/v1/sessions/{session}/moves"]["get"]["parameters"]
    assert next(p for p in moves if p["name"] == "pageSize")["schema"]["minimum"] == 0
    assert http.get(f"/v1/sessions/{created}/moves", params={"pageSize": 0}).status_code == 200
    assert http.get(f"/v1/sessions/{created}/moves", params={"pageSize": -1}).status_code == 400
    birka = schema_of("/v1/games/birka:new")
    for rounds, ok in ((0, True), (5, True), (10, True), (7, False)):
        body = {"players": 2, "options": {"birka": {"calendarRounds": rounds}}}
        assert valid(birka, body) is ok
        assert (http.post("/v1/games/birka:new", json=body).status_code == 200) is ok


def test_the_options_every_game_describes_take_their_zero_value_as_the_default(http: httpx.Client) -> None:
    for game, entry in REGISTRY.items():
        member = entry.codec.field
        options = game_pb2.GameOptions.DESCRIPTOR.fields_by_name[member].message_type
        zeros = {f.json_name: f.enum_type.values[0].name for f in options.fields if f.type == FD.TYPE_ENUM}
        body = {"players": entry.game.min_players, "options": {options_json(member): zeros}}
        assert valid(schema_of(f"/v1/games/{game}:new"), body), game
        assert http.post(f"/v1/games/{game}:new", json=body).status_code == 200, game


def camel(member: str) -> str:
    head, *rest = member.split("_")
    return head + "".join(part.capitalize() for part in rest)


def options_json(member: str) -> str:
    return game_pb2.GameOptions.DESCRIPTOR.fields_by_name[member].json_name


@pytest.mark.parametrize("bound", [0, 5, 10, 99, 100, 2**31 - 1, 2**63 - 1, 2**64 - 1])
def test_a_64_bit_integer_as_a_string_has_the_bounds_of_one_as_a_number(bound: int) -> None:
    pattern = re.compile(openapi._integer(0, bound, "uint64")["pattern"])
    for n in sorted(x for x in {0, 1, 9, 10, bound // 2, bound - 1, bound} if 0 <= x <= bound):
        assert pattern.match(str(n)), n
    assert not pattern.match(str(bound + 1)) and not pattern.match("01") and not pattern.match("-1")
    signed = re.compile(openapi._integer(-(2**63), 2**63 - 1, "int64")["pattern"])
    assert signed.match(str(-(2**63))) and not signed.match(str(-(2**63) - 1))


@pytest.mark.parametrize(
    "header", ['"7"', 'W/"7"', '"7", "8"', ' "7" ,, W/"x" ', "*", " * ", "7", '"7" "8"', "", '"a"b"', ","]
)
def test_the_if_match_pattern_is_what_the_service_parses(header: str) -> None:
    try:
        semantics.parse_if_match(header)
        parsed = True
    except LawspeakerError:
        parsed = False
    assert bool(re.match(openapi.IF_MATCH_PATTERN, header)) is parsed


# --------------------------------------------------------------------------- clocks and resignation


@pytest.mark.parametrize(
    ("clock", "ok"),
    [
        (None, True),  # null: no clock
        ({"perMoveSeconds": 60}, True),
        ({"bankSeconds": 300, "incrementSeconds": 5}, True),
        ({"perMoveSeconds": 259200, "bankSeconds": None, "incrementSeconds": 0}, True),  # correspondence
        ({"perMoveSeconds": 60, "onTimeout": "TIMEOUT_ACTION_FORFEIT", "timeoutBotLevel": None}, True),
        ({"perMoveSeconds": openapi.BOUNDS["lawspeaker.v1.Clock.per_move_seconds"][1]}, True),
        ({"perMoveSeconds": openapi.BOUNDS["lawspeaker.v1.Clock.per_move_seconds"][1] + 1}, False),
        ({"perMoveSeconds": 60, "bankSeconds": -1}, False),
        ({"perMoveSeconds": 60, "incrementSeconds": 5}, False),  # an increment needs a bank
        ({}, False),  # a clock with neither a limit per move nor a bank
        ({"perMoveSeconds": 0, "bankSeconds": None}, False),
    ],
)
def test_a_clock_the_document_allows_is_one_the_server_takes(
    http: httpx.Client, clock: dict[str, Any] | None, ok: bool
) -> None:
    body = {"game": "valhalla", "players": 2, "clock": clock}
    assert valid(schema_of("/v1/sessions"), body) is ok
    answer = http.post("/v1/sessions", json=body)
    assert (answer.status_code == 200) is ok, answer.text
    if ok:
        assert valid(schema_of("/v1/sessions", status="200"), answer.json())
    else:
        assert answer.status_code == 400 and answer.json()["reason"] == "CLOCK_INVALID"


def test_a_resignation_and_what_it_leaves_are_what_the_document_says(http: httpx.Client) -> None:
    clock = {"bankSeconds": 300, "incrementSeconds": 5}
    created = http.post("/v1/sessions", json={"game": "valhalla", "players": 2, "clock": clock}).json()
    session = created["session"]["session"]
    seat = {"Authorization": f"Bearer {created['seatTokens'][1]['token']}"}
    url = f"/v1/sessions/{session}:resign"
    resign = schema_of("/v1/sessions/{session}:resign")
    assert not valid(resign, {"etag": "x"})
    refused = http.post(url, json={"etag": "x"}, headers=seat)
    assert refused.status_code == 400 and refused.json()["reason"] == "ETAG_MALFORMED"
    body = {"etag": "", "action": None, "botLevel": None}  # each unset: now, forfeit, the default bot
    assert valid(resign, body)
    resigned = http.post(url, json=body, headers=seat)
    assert resigned.status_code == 200, resigned.text
    assert valid(schema_of("/v1/sessions/{session}:resign", status="200"), resigned.json())
    assert resigned.headers["ETag"] == f'"{resigned.json()["session"]["etag"]}"'
    assert resigned.json()["session"]["result"]["reason"] == "RESULT_REASON_RESIGNATION"
    got = http.get(f"/v1/sessions/{session}", headers=seat)
    assert valid(schema_of("/v1/sessions/{session}", "get", "200"), got.json())
    moves = http.get(f"/v1/sessions/{session}/moves", headers=seat)
    assert valid(schema_of("/v1/sessions/{session}/moves", "get", "200"), moves.json())
    assert moves.json()["moves"][-1]["seatEvent"]["kind"] == "SEAT_EVENT_KIND_RESIGNED"


# --------------------------------------------------------------------------- enum values never unset


def _enum_paths(desc: Any, prefix: tuple[Any, ...] = (), depth: int = 0) -> Iterator[tuple[Any, ...]]:
    for f in desc.fields:
        if f.type == FD.TYPE_ENUM:
            yield (*prefix, f)
        elif f.type == FD.TYPE_MESSAGE and depth < 4 and f.message_type is not desc:
            yield from _enum_paths(f.message_type, (*prefix, f), depth + 1)


def _zeroed(msg: Any, path: tuple[Any, ...]) -> bool:
    """Set the enum at ``path`` of ``msg`` (first elements of repeated fields) to 0; False when the
    path holds nothing to set."""
    target = msg
    for f in path[:-1]:
        if f.is_repeated:
            if not getattr(target, f.name):
                return False
            target = getattr(target, f.name)[0]
        else:
            target = getattr(target, f.name)
    last = path[-1]
    if last.is_repeated:
        if not getattr(target, last.name):
            return False
        getattr(target, last.name)[0] = 0
    else:
        getattr(target, "SetInParent", lambda: None)()
        setattr(target, last.name, 0)
    return True


def _refused_unset() -> set[str]:
    """The enum fields of states (as NewGame makes them) and of moves (as LegalMoves lists them)
    that a codec refuses to decode set to their zero value."""
    api, found = RulesApi(), set()
    for entry in REGISTRY.values():
        game, member = entry.game, entry.codec.field
        state = api.new_game(pb.NewGameRequest(game=game.id, players=game.min_players, seed=7)).state
        for path in _enum_paths(getattr(state, member).DESCRIPTOR):
            probe = game_pb2.GameState()
            probe.CopyFrom(state)
            if _zeroed(getattr(probe, member), path):
                try:
                    api.decode_state(entry, probe)
                except LawspeakerError:
                    found.add(path[-1].full_name)
        move_desc = game_pb2.Move.DESCRIPTOR.fields_by_name[member].message_type
        for action in move_desc.oneofs_by_name["action"].fields:
            for path in _enum_paths(action.message_type, (action,)):
                move = getattr(game_pb2.Move(), member).__class__()
                getattr(move, action.name).SetInParent()
                for other in _enum_paths(action.message_type, (action,)):  # others: a value of theirs
                    values = other[-1].enum_type.values
                    if other != path and not other[-1].is_repeated and len(values) > 1:
                        _set(move, other, values[1].number)
                if _zeroed(move, path):
                    try:
                        entry.codec.move_from_proto(move)
                    except LawspeakerError:
                        found.add(path[-1].full_name)
    return found


def _set(msg: Any, path: tuple[Any, ...], value: int) -> None:
    target = msg
    for f in path[:-1]:
        target = getattr(target, f.name)
    setattr(target, path[-1].name, value)


def _levels_refused_unset(http: httpx.Client) -> set[str]:
    """The bot levels of the requests that name one, refused when left unset."""
    found = set()
    state = _state(http)
    if http.post("/v1/games/valhalla:suggestMove", json={"state": state}).json().get("reason") == (
        "BOT_LEVEL_REQUIRED"
    ):
        found.add("lawspeaker.v1.SuggestMoveRequest.level")
    bots = {"game": "valhalla", "players": 2, "bots": [{"seat": 1}]}
    if http.post("/v1/sessions", json=bots).json().get("reason") == "BOT_LEVEL_REQUIRED":
        found.add("lawspeaker.v1.BotSeat.level")
    made = http.post("/v1/sessions", json={"game": "valhalla", "players": 2}).json()
    host = {"Authorization": f"Bearer {made['hostToken']}"}
    manage = f"/v1/sessions/{made['session']['session']}:manageSeat"
    if http.post(manage, json={"seat": 1}, headers=host).json().get("reason") == "SEAT_ACTION_INVALID":
        found.add("lawspeaker.v1.ManageSeatRequest.action")
    return found


def test_enums_the_document_never_leaves_unset_are_the_ones_the_codecs_refuse_unset(
    http: httpx.Client,
) -> None:
    assert _refused_unset() | _levels_refused_unset(http) == openapi.NONZERO_ENUMS
    phase = DOC["components"]["schemas"]["ValhallaState"]
    assert (
        "phase" in phase["required"]
        and "VALHALLA_PHASE_UNSPECIFIED" not in phase["properties"]["phase"]["enum"]
    )


async def _no_physical_dice() -> dict[str, str]:
    """The option values (each tried alone, for every number of players) with which a session of
    physical dice cannot start."""
    api, found = SessionApi(MemoryStore()), {}
    for game_id, entry in REGISTRY.items():
        member = entry.codec.field
        options = game_pb2.GameOptions.DESCRIPTOR.fields_by_name[member].message_type
        tried: list[tuple[Any, Any]] = [(None, None)]
        tried += [(f, v.number) for f in options.fields if f.type == FD.TYPE_ENUM for v in f.enum_type.values]
        tried += [(f, True) for f in options.fields if f.type == FD.TYPE_BOOL]
        for players in range(entry.game.min_players, entry.game.max_players + 1):
            for f, value in tried:
                request = spb.CreateSessionRequest(game=game_id, players=players, physical_dice=True, seed=7)
                getattr(request.options, member).SetInParent()
                if f is not None:
                    setattr(getattr(request.options, member), f.name, value)
                try:
                    await api.create_session(request, None)
                except LawspeakerError as err:
                    assert err.reason == "PHYSICAL_DICE_UNSUPPORTED" and f is not None, (game_id, err.reason)
                    found[f.full_name] = f.enum_type.values_by_number[value].name
    return found


def test_the_setups_without_physical_dice_are_the_ones_the_server_refuses() -> None:
    assert asyncio.run(_no_physical_dice()) == openapi.NO_PHYSICAL_DICE
    penki = component("CreateSessionRequest")
    random_pairs = {
        "game": "penki",
        "players": 2,
        "options": {"penki": {"setup": "PENKI_SETUP_RANDOM_PAIRS"}},
    }
    assert valid(penki, random_pairs) and not valid(penki, {**random_pairs, "physicalDice": True})
    assert valid(penki, {**random_pairs, "physicalDice": None})  # null: false, its default
    assert valid(penki, {"game": "penki", "players": 2, "physicalDice": True})


# --------------------------------------------------------------------------- the schemathesis hooks


def _hooks() -> ModuleType:
    pytest.importorskip("schemathesis")
    path = Path(__file__).parents[2] / ".ci" / "schemathesis_hooks.py"
    spec = importlib.util.spec_from_file_location("lawspeaker_schemathesis_hooks", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def problem(reason: str, *fields: str) -> dict[str, Any]:
    return {
        "status": 400,
        "reason": reason,
        "fieldViolations": [{"field": f, "description": "x"} for f in fields],
    }


def test_the_hooks_allow_only_refusals_json_schema_cannot_express() -> None:
    hooks = _hooks()
    allowed = hooks.inexpressible
    assert allowed("LegalMoves_pax_penning", problem("INVALID_STATE", "state.paxPenning.pawns[2]"), {})
    assert allowed("LegalMoves_pax_penning", problem("INVALID_BOARD", "state.paxPenning.options.board"), {})
    assert not allowed("LegalMoves_pax_penning", problem("INVALID_STATE", "state.rng.seed"), {})
    assert not allowed("LegalMoves_valhalla", problem("RULES_VERSION_MISMATCH", "state.rulesVersion"), {})
    assert not allowed("LegalMoves_valhalla", problem("STATE_REQUIRED", "state.valhalla"), {})
    assert not allowed("NewGame_valhalla", problem("PLAYER_COUNT", "players"), {})
    assert not allowed("ApplyMove_valhalla", problem("INVALID_STATE"), {})  # names no field
    penki_move = {"move": {"penki": {"pass": {}}}}
    assert allowed("SessionApplyMove", problem("MOVE_REQUIRED", "move.valhalla"), penki_move, "valhalla.x")
    assert not allowed("SessionApplyMove", problem("MOVE_REQUIRED", "move.penki"), penki_move, "penki.x")
    no_action = {"move": {"valhalla": {"cast": None, "moveShip": None}}}
    assert allowed("ApplyMove_valhalla", problem("MOVE_REQUIRED", "move.valhalla"), no_action)
    assert allowed("SessionApplyMove", problem("MOVE_REQUIRED", "move.valhalla"), no_action, "valhalla.x")
    assert allowed("SessionApplyMove", problem("MOVE_REQUIRED", "move"), {"move": {"penki": None}}, "penki.x")
    assert not allowed(
        "ApplyMove_valhalla", problem("MOVE_REQUIRED", "move.valhalla"), {"move": {"valhalla": {}}}
    )
    assert allowed("ApplyMove_valhalla", problem("INVALID_STATE", "state.valhalla.ships"), {})  # still there
    assert allowed("UndoMove", problem("ETAG_REQUIRED", "etag"), {})
    assert not allowed("GetSession", problem("ETAG_REQUIRED", "etag"), {})


def test_the_document_names_every_refusal_the_hooks_allow() -> None:
    hooks = _hooks()
    assert set(hooks.INEXPRESSIBLE) == set(openapi.INEXPRESSIBLE)
    for rpc, reasons in hooks.INEXPRESSIBLE.items():
        ops = [
            op
            for item in DOC["paths"].values()
            for op in item.values()
            if op["operationId"].split("_")[0] == rpc
        ]
        assert ops, rpc
        for op in ops:
            assert all(reason in op["responses"]["400"]["description"] for reason in reasons), (rpc, reasons)


# --------------------------------------------------------------------------- spellings and null


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        ("/v1/games/valhalla:new", {"players": 2, "seed": 42}, "seed"),  # 64-bit: a decimal string
        ("/v1/games/valhalla:new", {"players": 2, "seed": "042"}, "seed"),
        ("/v1/games/valhalla:new", {"players": "2"}, "players"),  # 32-bit: a JSON number
        (
            "/v1/games/valhalla:new",
            {"players": 2, "options": {"valhalla": {"start": 1}}},
            "options.valhalla.start",
        ),
        ("/v1/sessions", {"game": "valhalla", "players": 2, "seed": 7}, "seed"),
    ],
)
def test_rest_takes_the_spelling_the_document_gives_and_names_the_field_of_another(
    http: httpx.Client, url: str, body: dict[str, Any], field: str
) -> None:
    """proto3 JSON reads several spellings of some values (a 64-bit integer as a number, an integer
    as a string, an enum value by number); REST takes the one its document gives, so that a generated
    client has one type per field and the document is exact. Connect takes them all, as its
    protocol says."""
    assert not valid(schema_of(url), body)
    refused = http.post(url, json=body)
    assert refused.status_code == 400, refused.text
    problem = refused.json()
    assert problem["reason"] == "INVALID_FIELD_VALUE"
    assert [v["field"] for v in problem["fieldViolations"]] == [field]
    assert field in problem["detail"]
    if url.startswith("/v1/games/"):
        connect = http.post(
            "/lawspeaker.v1.RulesService/NewGame",
            json={"game": "valhalla", **body},
            headers={"connect-protocol-version": "1"},
        )
        assert connect.status_code == 200, connect.text


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/v1/games/valhalla:new", {"players": 2, "seed": None, "options": None}),
        ("/v1/games/valhalla:new", {"players": 2, "options": {"valhalla": {"start": None, "doubles": None}}}),
        ("/v1/games/penki:new", {"players": 2, "options": {"penki": None}}),
        ("/v1/sessions", {"game": "penki", "players": 2, "physicalDice": None, "bots": None, "seed": None}),
    ],
)
def test_null_is_a_fields_default_in_the_document_as_in_the_service(
    http: httpx.Client, url: str, body: dict[str, Any]
) -> None:
    """proto3 JSON reads null as a field's default: the document says so for every field a request
    may leave unset (not for a required one, nor for a list's entries)."""
    assert valid(schema_of(url), body)
    assert http.post(url, json=body).status_code == 200
    assert not valid(schema_of(url), {**body, "players": None})  # required: null is 0 players
    assert http.post(url, json={**body, "players": None}).status_code == 400


def test_a_nested_null_in_a_state_is_the_fields_default(http: httpx.Client) -> None:
    state = _state(http)
    state["valhalla"]["ply"] = None
    body = {"state": state}
    assert valid(schema_of("/v1/games/valhalla:legalMoves"), body)
    assert http.post("/v1/games/valhalla:legalMoves", json=body).status_code == 200
    answer = http.post("/v1/games/valhalla:new", json={"players": 2}).json()
    assert None not in _values(answer)  # answers never write null


def _values(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _values(v)
    elif isinstance(value, list):
        for v in value:
            yield from _values(v)
    else:
        yield value


# --------------------------------------------------------------------------- what generators read


def _walk(value: Any, path: str = "#") -> Iterator[tuple[str, Any]]:
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, f"{path}/{i}")


VALIDATION_ONLY = ("dependentSchemas", "if", "then", "else", "contentSchema")
"""Keywords generators do not turn into types: what the document says beyond the types lives there."""


def test_the_document_has_the_shapes_generators_read_as_types() -> None:
    """openapi-generator, openapi-python-client and openapi-typescript type every schema outside the
    validation-only keywords: no boolean schema (openapi-python-client refuses them), no oneOf,
    allOf or not (they become wrapper types or break generation), every message a plain object, one
    media type per body (a response typed JSON-or-string otherwise)."""
    for path, value in _walk(DOC):
        if any(f"/{k}/" in path + "/" for k in VALIDATION_ONLY):
            continue
        if isinstance(value, dict) and ("/schema" in path or path.startswith("#/components/schemas")):
            assert not {"oneOf", "allOf", "not"} & set(value), path
        assert not (isinstance(value, bool) and path.rsplit("/", 1)[-1] in ("properties", "items")), path
    for name, schema in DOC["components"]["schemas"].items():
        for prop, sub in schema.get("properties", {}).items():
            assert not isinstance(sub, bool), (name, prop)
        if "anyOf" in schema:
            raise AssertionError(f"{name}: anyOf at a schema's top")
    for item in DOC["paths"].values():
        for op in item.values():
            for status, response in op["responses"].items():
                assert len(response.get("content", {})) <= 1, (op["operationId"], status)
            if "requestBody" in op:
                assert list(op["requestBody"]["content"]) == ["application/json"], op["operationId"]
                assert "$ref" in op["requestBody"]["content"]["application/json"]["schema"]


def test_every_schema_is_named_for_what_it_is_and_no_two_fold_into_one_class() -> None:
    names = list(DOC["components"]["schemas"])
    folded = ["".join(c for c in n if c.isalnum()).lower() for n in names]
    assert len(set(folded)) == len(folded)
    assert all(re.fullmatch(r"[A-Z][A-Za-z0-9]*", n) for n in names), names
    files = {
        f
        for m in (pb, spb)
        for f in (m.DESCRIPTOR, *m.DESCRIPTOR.dependencies, *game_pb2.DESCRIPTOR.dependencies)
    }
    contract = {
        d.name for f in files for d in (*f.message_types_by_name.values(), *f.enum_types_by_name.values())
    }
    per_game = {f"{n}{''.join(p.capitalize() for p in g.split('_'))}" for n in contract for g in GAMES}
    extra = {"Problem", "FieldViolation", "Reason", "GameId", "Health", "HealthDetails", "WatchSessionEvent"}
    assert set(names) <= contract | per_game | extra, set(names) - (contract | per_game | extra)


def test_the_served_document_names_the_public_url_or_where_it_was_asked_for() -> None:
    from litestar.testing import TestClient

    from lawspeaker.http.app import create_app

    with TestClient(create_app()) as client:
        served = client.get("/schema/openapi.json").json()
        assert [s["url"] for s in served["servers"]] == ["http://testserver.local"]
    with TestClient(create_app(public_url="https://rules.example/lawspeaker")) as client:
        served = client.get("/schema").json()
        assert [s["url"] for s in served["servers"]] == ["https://rules.example/lawspeaker"]
        assert {k: v for k, v in served.items() if k != "servers"} == {
            k: v for k, v in DOC.items() if k != "servers"
        }
    assert [s["url"] for s in DOC["servers"]] == list(openapi.DEFAULT_SERVERS)
