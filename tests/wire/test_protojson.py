"""The fast proto3 JSON path gives exactly what google.protobuf.json_format gives."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from lawspeaker.api.rules import RulesApi
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire import protojson

API = RulesApi()


def messages_of_a_game(seed: int) -> list[Message]:
    """Every request and response of a whole Valhalla game, plus the service's other responses."""
    out: list[Message] = [
        API.list_games(pb.ListGamesRequest()),
        API.describe_game(pb.DescribeGameRequest(game="valhalla")),
    ]
    request = pb.NewGameRequest(game="valhalla", players=2, seed=seed)
    state = API.new_game(request).state
    out.append(request)
    chooser = random.Random(seed)
    for _ in range(400):
        listed = API.legal_moves(pb.LegalMovesRequest(game="valhalla", state=state))
        out.append(listed)
        if listed.game_over:
            break
        move = chooser.choice(list(listed.moves))
        apply = pb.ApplyMoveRequest(game="valhalla", state=state, move=move)
        applied = API.apply_move(apply)
        out += [
            apply,
            applied,
            API.validate_move(pb.ValidateMoveRequest(game="valhalla", state=state, move=move)),
        ]
        state = applied.state
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_to_dict_and_parse_agree_with_json_format(seed: int) -> None:
    for msg in messages_of_a_game(seed):
        expected = json_format.MessageToDict(msg)
        assert protojson.to_dict(msg) == expected
        assert json.dumps(protojson.to_dict(msg)) == json.dumps(expected)  # same key order too
        assert protojson.parse(expected, type(msg)) == msg


ODD_BUT_VALID: list[tuple[dict[str, Any], type[Message]]] = [
    ({"game": "valhalla", "players": 2, "seed": 7}, pb.NewGameRequest),  # uint64 as a number
    ({"game": "valhalla", "players": "2"}, pb.NewGameRequest),  # int32 as a string
    ({"game": "valhalla", "players": 2.0}, pb.NewGameRequest),  # integral float
    ({"game": "valhalla", "seed": None}, pb.NewGameRequest),  # null means unset
    ({"game": "valhalla", "options": {"valhalla": {"start": 2}}}, pb.NewGameRequest),  # enum number
    ({"valhalla": {"move_ship": {"ship": 1, "to": 5}}}, game_pb2.Move),  # proto field names
    ({"rng": {"seed": "AAEC-_8"}}, game_pb2.GameState),  # url-safe base64, no padding
    ({"valhalla": {"cast": {}}}, game_pb2.Move),  # empty message still sets the field
    ({"valhalla": []}, game_pb2.Move),  # a json_format quirk: an empty list for a message
]

INVALID: list[tuple[dict[str, Any], type[Message]]] = [
    ({"game": "valhalla", "player": 2}, pb.NewGameRequest),  # unknown field
    ({"game": 5}, pb.NewGameRequest),  # wrong type
    ({"players": "two"}, pb.NewGameRequest),
    ({"players": 2**40}, pb.NewGameRequest),  # out of range
    ({"seed": "-1"}, pb.NewGameRequest),
    ({"options": {"valhalla": {"start": "SIDEWAYS"}}}, pb.NewGameRequest),
    ({"valhalla": {"cast": {}, "moveShip": {"ship": 1}}}, game_pb2.Move),  # two members of a oneof
    ({"valhalla": {"moveShip": {"ship": 1}, "move_ship": {"ship": 2}}}, game_pb2.Move),  # duplicate
]


@pytest.mark.parametrize(("data", "cls"), ODD_BUT_VALID)
def test_unusual_spellings_parse_as_json_format_parses_them(data: dict[str, Any], cls: type[Message]) -> None:
    expected = cls()
    json_format.ParseDict(data, expected)
    assert protojson.parse(data, cls) == expected


@pytest.mark.parametrize(("data", "cls"), INVALID)
def test_invalid_input_raises_json_formats_own_error(data: dict[str, Any], cls: type[Message]) -> None:
    with pytest.raises(json_format.ParseError) as expected:
        json_format.ParseDict(data, cls())
    with pytest.raises(json_format.ParseError) as got:
        protojson.parse(data, cls)
    assert str(got.value) == str(expected.value)
