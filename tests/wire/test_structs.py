"""The REST JSON path over msgspec Structs (``lawspeaker.wire.structs``) answers exactly as the protobuf path.

``RulesApi`` and every codec run over either namespace of messages. These tests hold the two
together for every registered game: the same responses (compared as proto3 JSON with
``json_format``), the same errors for illegal moves and broken states, and the same reading of
every canonical request; non-canonical spellings are refused by the wire decoder so that the
general path (``protojson`` / ``json_format``) answers them.
"""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lawspeaker.api.rules import RulesApi
from lawspeaker.games.core import LawspeakerError
from lawspeaker.http import problems, routes, rules_routes
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire import fieldpaths, structs
from lawspeaker.wire.registry import REGISTRY

WIRE = structs.default_wire()
SLOW = RulesApi()
FAST = RulesApi(messages=WIRE)
GAMES = sorted(REGISTRY)
FD = FieldDescriptor


def _json(msg: Message) -> bytes:
    return json_format.MessageToJson(msg, indent=None).encode()


def _outcome(api: RulesApi, method: str, request: Any) -> Any:
    """The response as a proto3 JSON dict, or the error as (code, reason, message, violations)."""
    try:
        response = getattr(api, method)(request)
    except LawspeakerError as err:
        return (err.code, err.reason, err.message, tuple(err.field_violations), dict(err.metadata or {}))
    if isinstance(response, Message):  # as the general path writes it for a JSON caller
        return fieldpaths.json_answer(json_format.MessageToDict(response))
    return json.loads(structs.encode(response))


def both(method: str, request: Message) -> Any:
    """Ask both paths; the wire path gets the request as the canonical JSON a client would send."""
    expected = _outcome(SLOW, method, request)
    decoded = WIRE.decode(getattr(WIRE, type(request).__name__), _json(request))
    got = _outcome(FAST, method, decoded)
    assert got == expected, f"{method}: the wire path answered differently"
    return expected


def whole_game(game_id: str, players: int, seed: int) -> int:
    """Play a seeded random game through both paths, RPC by RPC; returns the plies played."""
    rng = random.Random(seed)
    new = pb.NewGameRequest(game=game_id, players=players, seed=seed)
    state_json = both("new_game", new)["state"]
    state = json_format.ParseDict(state_json, game_pb2.GameState())
    previous_moves: list[game_pb2.Move] = []
    for ply in range(5000):
        listed = both("legal_moves", pb.LegalMovesRequest(game=game_id, state=state))
        moves = [json_format.ParseDict(m, game_pb2.Move()) for m in listed.get("moves", [])]
        # A move of an earlier position is usually illegal here: both paths must refuse it alike.
        for stale in previous_moves[:2]:
            both("validate_move", pb.ValidateMoveRequest(game=game_id, state=state, move=stale))
            both("apply_move", pb.ApplyMoveRequest(game=game_id, state=state, move=stale))
        if not moves:
            return ply
        move = rng.choice(moves)
        both("validate_move", pb.ValidateMoveRequest(game=game_id, state=state, move=move))
        applied = both("apply_move", pb.ApplyMoveRequest(game=game_id, state=state, move=move))
        state = json_format.ParseDict(applied["state"], game_pb2.GameState())
        previous_moves = moves
    pytest.fail(f"{game_id}: the game did not end")


@pytest.mark.parametrize("game_id", GAMES)
def test_whole_games_answer_the_same_on_both_paths(game_id: str) -> None:
    game = REGISTRY[game_id].game
    for players in sorted({game.min_players, game.max_players}):
        assert whole_game(game_id, players, seed=players * 7 + 1) > 0


@pytest.mark.parametrize("game_id", GAMES)
def test_every_option_value_answers_the_same_on_both_paths(game_id: str) -> None:
    entry = REGISTRY[game_id]
    for option in entry.game.describe().options:
        for value in option.allowed:
            body = {
                "game": game_id,
                "players": entry.game.max_players,
                "seed": "3",
                "options": {
                    entry.codec.field: {option.name: value == "true" if value in ("true", "false") else value}
                },
            }
            request = json_format.ParseDict(body, pb.NewGameRequest())
            state = both("new_game", request)
            if "state" in state:
                parsed = json_format.ParseDict(state["state"], game_pb2.GameState())
                both("legal_moves", pb.LegalMovesRequest(game=game_id, state=parsed))


def _scalar_setters(msg: Message) -> list[tuple[Message, Any]]:
    out: list[tuple[Message, Any]] = []
    for f in msg.DESCRIPTOR.fields:
        if f.type == FD.TYPE_MESSAGE:
            if f.is_repeated:
                for item in getattr(msg, f.name):
                    out += _scalar_setters(item)
            elif msg.HasField(f.name):
                out += _scalar_setters(getattr(msg, f.name))
        elif not f.is_repeated and f.type in (FD.TYPE_INT32, FD.TYPE_BOOL, FD.TYPE_ENUM):
            out.append((msg, f))
    return out


@pytest.mark.parametrize("game_id", GAMES)
def test_broken_states_are_refused_alike_on_both_paths(game_id: str) -> None:
    """Every scalar of a mid-game state set to odd values: the same answer or the same error."""
    entry = REGISTRY[game_id]
    game = entry.game
    rng = random.Random(11)
    request = pb.NewGameRequest(game=game_id, players=game.max_players, seed=11)
    state = SLOW.new_game(request).state
    for _ in range(40):
        listed = SLOW.legal_moves(pb.LegalMovesRequest(game=game_id, state=state))
        if not listed.moves:
            break
        state = SLOW.apply_move(
            pb.ApplyMoveRequest(game=game_id, state=state, move=rng.choice(list(listed.moves)))
        ).state
    listed = SLOW.legal_moves(pb.LegalMovesRequest(game=game_id, state=state))
    move = listed.moves[0] if listed.moves else game_pb2.Move()
    count = 0
    for index in range(len(_scalar_setters(state))):
        for value in (0, 1, -1, 7, 99):
            broken = game_pb2.GameState()
            broken.CopyFrom(state)
            target, f = _scalar_setters(broken)[index]
            if f.type == FD.TYPE_BOOL:
                setattr(target, f.name, bool(value % 2))
            elif f.type == FD.TYPE_ENUM:
                if value < 0 or value not in f.enum_type.values_by_number:
                    continue  # an unknown enum number is not canonical JSON (a name is)
                setattr(target, f.name, value)
            else:
                setattr(target, f.name, value)
            both("legal_moves", pb.LegalMovesRequest(game=game_id, state=broken))
            both("apply_move", pb.ApplyMoveRequest(game=game_id, state=broken, move=move))
            count += 1
    assert count > 10


def test_missing_parts_are_refused_alike_on_both_paths() -> None:
    state = SLOW.new_game(pb.NewGameRequest(game="valhalla", players=2, seed=1)).state
    cases: list[tuple[str, Message]] = [
        ("apply_move", pb.ApplyMoveRequest(game="valhalla", state=state)),
        ("apply_move", pb.ApplyMoveRequest(game="valhalla", move=game_pb2.Move())),
        ("apply_move", pb.ApplyMoveRequest(game="penki", state=state, move=game_pb2.Move())),
        ("apply_move", pb.ApplyMoveRequest(game="nope", state=state)),
        ("legal_moves", pb.LegalMovesRequest(game="", state=state)),
        ("new_game", pb.NewGameRequest(game="valhalla", players=9)),
        (
            "new_game",
            json_format.ParseDict(
                {"game": "valhalla", "players": 2, "options": {"penki": {}}}, pb.NewGameRequest()
            ),
        ),
    ]
    for method, request in cases:
        assert isinstance(both(method, request), tuple)  # an error, the same on both paths


def test_canonical_json_reads_back_to_the_same_json() -> None:
    request = pb.NewGameRequest(game="pax_penning", players=4, seed=2**63 + 5)
    state = SLOW.new_game(request).state
    listed = SLOW.legal_moves(pb.LegalMovesRequest(game="pax_penning", state=state))
    for msg in (
        request,
        state,
        listed,
        pb.ApplyMoveRequest(game="pax_penning", state=state, move=listed.moves[0]),
    ):
        decoded = WIRE.decode(getattr(WIRE, type(msg).__name__), _json(msg))
        assert json.loads(structs.encode(decoded)) == json_format.MessageToDict(msg)


NOT_CANONICAL: list[tuple[bytes, str]] = [
    (b'{"game": "valhalla", "players": "2"}', "NewGameRequest"),  # int32 as a string
    (b'{"game": "valhalla", "players": null}', "NewGameRequest"),  # null (unset, for json_format)
    (b'{"game": "valhalla", "seed": "1e3"}', "NewGameRequest"),
    (b'{"options": {"valhalla": {"start": 2}}}', "NewGameRequest"),  # enum number
    (b'{"valhalla": {"move_ship": {"ship": 1, "to": 5}}}', "Move"),  # proto field name
    (b'{"rng": {"seed": "AAEC-_8"}}', "GameState"),  # url-safe base64
    (b'{"players": 2147483648}', "NewGameRequest"),  # out of range
    (b'{"player": 2}', "NewGameRequest"),  # unknown field
    (b"[]", "NewGameRequest"),
]


@pytest.mark.parametrize(("body", "name"), NOT_CANONICAL)
def test_other_spellings_are_left_to_the_general_path(body: bytes, name: str) -> None:
    with pytest.raises((msgspec.MsgspecError, ValueError)):
        WIRE.decode(getattr(WIRE, name), body)


def test_null_for_an_optional_field_reads_as_unset_as_in_json_format() -> None:
    decoded = WIRE.decode(WIRE.NewGameRequest, b'{"game": "valhalla", "seed": null}')
    assert not decoded.HasField("seed")
    assert not json_format.Parse('{"game": "valhalla", "seed": null}', pb.NewGameRequest()).HasField("seed")


def test_two_members_of_a_oneof_are_left_to_the_general_path() -> None:
    move = WIRE.decode(WIRE.Move, b'{"valhalla": {"cast": {}, "moveShip": {"ship": 1}}}')
    with pytest.raises(structs.NotCanonical):
        move.valhalla.WhichOneof("action")


def test_presence_and_defaults_follow_protobuf() -> None:
    move = WIRE.decode(WIRE.Move, b'{"valhalla": {"cast": {}}}')
    assert move.valhalla.WhichOneof("action") == "cast"
    assert not move.valhalla.cast.HasField("sticks")
    assert structs.encode(move) == b'{"valhalla":{"cast":{}}}'  # a set, empty message is written
    unset = WIRE.Move()
    assert unset.WhichOneof("game") is None
    assert unset.valhalla.move_ship.ship == 0  # an unset message reads as its default
    with pytest.raises(ValueError, match="no presence"):
        unset.valhalla.move_ship.HasField("ship")
    assert WIRE.VALHALLA_PHASE_MOVE == 3 and hash(WIRE.VALHALLA_PHASE_MOVE) == hash(3)
    assert WIRE.ValhallaPhase.Name(3) == "VALHALLA_PHASE_MOVE"
    assert WIRE.ValhallaPhase.Value("VALHALLA_PHASE_MOVE") is WIRE.VALHALLA_PHASE_MOVE
    state = WIRE.RngState(seed=b"\x00\x01", counter=WIRE.uint64(0))
    assert structs.encode(state) == b'{"seed":"AAE="}'  # a zero uint64 is left out
    assert (
        structs.encode(WIRE.RngState(counter=WIRE.uint64(2**64 - 1))) == b'{"counter":"18446744073709551615"}'
    )


def test_messages_the_wire_does_not_compile_are_named() -> None:
    assert WIRE.unsupported == ["lawspeaker.v1.DescribeGameResponse"]  # it holds a google.protobuf.Struct


# --------------------------------------------------------------------------- fuzzing the REST path


def _requests() -> list[tuple[str, dict[str, Any]]]:
    """Canonical JSON bodies of every POST RPC, for every game, at a few points of a seeded game."""
    out: list[tuple[str, dict[str, Any]]] = []
    for game_id in GAMES:
        entry = REGISTRY[game_id]
        new = pb.NewGameRequest(game=game_id, players=entry.game.max_players, seed=4)
        out.append(("new", json_format.MessageToDict(new)))
        state = SLOW.new_game(new).state
        rng = random.Random(4)
        for ply in range(60):
            listed = SLOW.legal_moves(pb.LegalMovesRequest(game=game_id, state=state))
            if not listed.moves:
                break
            move = rng.choice(list(listed.moves))
            if ply % 20 == 3:
                for verb, msg in (
                    ("legalMoves", pb.LegalMovesRequest(game=game_id, state=state)),
                    ("validateMove", pb.ValidateMoveRequest(game=game_id, state=state, move=move)),
                    ("applyMove", pb.ApplyMoveRequest(game=game_id, state=state, move=move)),
                ):
                    out.append((verb, json_format.MessageToDict(msg)))
            state = SLOW.apply_move(pb.ApplyMoveRequest(game=game_id, state=state, move=move)).state
    return out


REQUESTS = _requests()
ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.sampled_from(["", "0", "7", "-1", "1e3", "VALHALLA_PHASE_MOVE", "PENKI_PIECE_JOKER", "AAEC-_8", "x"]),
    st.just([]),
    st.just({}),
    st.lists(st.integers(0, 40), max_size=3),
)


def _paths(node: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*here, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*here, i))
    return out


def _mutate(body: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    body = json.loads(json.dumps(body))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(body)[1:] or [()]))
        if not path:
            break
        parent = body
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        action = data.draw(st.sampled_from(["value", "value", "delete", "rename", "extra"]))
        if action == "value":
            parent[last] = data.draw(ODD_VALUES)
        elif action == "delete":
            del parent[last]
        elif isinstance(parent, dict) and action == "rename":
            snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in str(last))
            parent[snake] = parent.pop(last)
        elif isinstance(parent, dict):
            parent[data.draw(st.sampled_from(["moveShip", "cast", "valhalla", "penki", "bogus", "seed"]))] = (
                data.draw(ODD_VALUES)
            )
    return body


def _post(fast: RulesApi | None, verb: str, game_id: str, body: bytes) -> Any:
    rpc = routes.VERB_RPCS[verb]
    try:
        content, media = rules_routes.answer_post(SLOW, fast, rpc, game_id, body, "application/json", "")
    except LawspeakerError as err:
        return ("error", err.code, err.reason, err.message, tuple(err.field_violations))
    except problems.Problem as problem:
        return ("problem", problem.status, problem.reason, problem.detail)
    assert media == "application/json"
    return json.loads(content)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_body_gets_the_same_answer_with_or_without_the_wire_path(data: st.DataObject) -> None:
    """Canonical or not, valid or not: the REST answer is the one the general path gives, and a
    bad body is a client error, never an exception of another kind."""
    verb, body = data.draw(st.sampled_from(REQUESTS))
    mutated = _mutate(body, data)
    raw = json.dumps(mutated).encode()
    game_id = body.get("game", "valhalla")
    fast, general = _post(FAST, verb, game_id, raw), _post(None, verb, game_id, raw)
    if verb == "new" and isinstance(fast, dict) and mutated.get("seed") is None:
        assert isinstance(general, dict)  # no seed: a random game each time
    else:
        assert fast == general
