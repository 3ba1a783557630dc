"""The guards on what clients send (``lawspeaker.wire.inbound``): the JSON depth limit counts exactly the
nesting a decoder would recurse through, undecodable protobuf is MALFORMED_PROTOBUF, and a JSON
value of the wrong kind is described in JSON's words, never in those of a Python error."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from lawspeaker.api.rules import RulesApi
from lawspeaker.games.core import LawspeakerError
from lawspeaker.http.bodies import decode_request as _decode
from lawspeaker.v1 import game_pb2, valhalla_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire import inbound

LIMIT = inbound.MAX_JSON_DEPTH
_PYTHON_WORDS = re.compile(
    r"<class|Traceback|\b[A-Z]\w*(?:Error|Exception)\b|object is not|object has no|has no len"
    r"|unhashable|bytes-like|NoneType|\w+\(\) argument|invalid literal for|unsupported operand"
    r"|'(?:int|float|str|bool|dict|list|tuple|bytes)'|\{'"
)


def depth(value: Any) -> int:
    """The reference: how deep a decoded JSON value nests objects and arrays."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


# Strings full of what the scan must not mistake for structure: brackets, quotes, backslashes.
_tricky = st.text(alphabet='[]{}"\\ab:,\u00e9', max_size=8)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | _tricky,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_tricky, inner, max_size=3),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(_json, st.booleans(), st.booleans())
def test_json_depth_counts_exactly_the_nesting_outside_strings(
    value: Any, ascii_only: bool, spaced: bool
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=1 if spaced else None)
    assert inbound.json_depth(text.encode()) == depth(value)


@pytest.mark.parametrize("opening", ["[", '{"a":'])
def test_the_limit_is_inclusive(opening: str) -> None:
    def nested(n: int) -> bytes:
        closing = "]" if opening == "[" else "}"
        return (opening * n + "1" + closing * n).encode()

    inbound.check_json_depth(nested(LIMIT))  # exactly at the limit: not refused
    with pytest.raises(LawspeakerError) as refused:
        inbound.check_json_depth(nested(LIMIT + 1))
    err = refused.value
    assert (err.code.value, err.reason) == ("MALFORMED", "JSON_TOO_DEEP")
    assert err.metadata == {"maxDepth": str(LIMIT)}
    assert f"{LIMIT + 1} levels deep" in err.message and f"at most {LIMIT}" in err.message
    assert [v.field for v in err.field_violations] == ["body"]


@pytest.mark.parametrize("levels", [1000, 100_000])
@pytest.mark.parametrize("shape", ["objects", "arrays"])
def test_thousands_of_levels_are_refused_before_any_decoder_recurses(shape: str, levels: int) -> None:
    inner = '{"a":' * levels + "1" + "}" * levels if shape == "objects" else "[" * levels + "]" * levels
    body = f'{{"state":{inner}}}'.encode()
    with pytest.raises(LawspeakerError) as refused:
        _decode(pb.LegalMovesRequest, body, "application/json")
    assert refused.value.reason == "JSON_TOO_DEEP"
    assert f"{levels + 1} levels deep" in refused.value.message


def test_brackets_inside_strings_do_not_count() -> None:
    body = json.dumps({"game": "[" * 1000 + "{" * 1000, "x": '\\"' + "[" * 500}).encode()
    assert inbound.json_depth(body) == 1
    inbound.check_json_depth(body)  # not refused for depth (the decoder decides the rest)


@pytest.mark.parametrize(
    "tail",
    [b'"' + b'\\"' * 200_000, b"\\" + b'"' * 400_000, b'"\\' + b"a" * 400_000, b'\\"x' * 130_000],
    ids=["escaped-quotes", "quotes", "unterminated", "escaped-quotes-and-text"],
)
def test_escapes_and_quotes_in_bulk_are_read_in_one_pass(tail: bytes) -> None:
    """Hundreds of thousands of quotes and backslashes (what makes a string-matching regular
    expression backtrack for ever) after 100 real levels: counted, and refused."""
    with pytest.raises(LawspeakerError) as refused:
        inbound.check_json_depth(b"[" * 100 + tail)
    assert refused.value.reason == "JSON_TOO_DEEP"
    assert "100 levels deep" in refused.value.message


def test_undecodable_protobuf_is_malformed_protobuf_and_valid_bytes_parse() -> None:
    request = pb.DescribeGameRequest(game="valhalla")
    assert inbound.parse_protobuf(pb.DescribeGameRequest, request.SerializeToString()) == request
    with pytest.raises(LawspeakerError) as refused:
        inbound.parse_protobuf(pb.ListGamesRequest, b"\xff\xff\xff")
    assert (refused.value.code.value, refused.value.reason) == ("MALFORMED", "MALFORMED_PROTOBUF")
    assert "lawspeaker.v1.ListGamesRequest" in refused.value.message
    assert "<class" not in refused.value.message


@pytest.mark.parametrize(
    ("body", "field", "description"),
    [
        ({"state": 1.5}, "state", "must be a JSON object, not the number 1.5"),
        (
            {"state": {"valhalla": {"ships": 3}}},
            "state.valhalla.ships",
            "must be a JSON array, not the number 3",
        ),
        (
            {"state": {"valhalla": {"ships": [{"position": {}}]}}},
            "state.valhalla.ships[0].position",
            "must be an integer, not a JSON object",
        ),
        (
            {"state": {"valhalla": {"darkSeat": "x"}}},
            "state.valhalla.darkSeat",
            'must be an integer, not the string "x"',
        ),
        ({"game": ["valhalla"]}, "game", "must be a string, not a JSON array"),
        ({"state": {"rng": {"seed": 2.5}}}, "state.rng.seed", "must be a string, not the number 2.5"),
        (
            {"state": {"valhalla": {"phase": {}}}},
            "state.valhalla.phase",
            "must be the name of a lawspeaker.v1.ValhallaPhase value, not a JSON object",
        ),
    ],
)
def test_a_value_of_the_wrong_kind_is_named_in_json_words(
    body: dict[str, Any], field: str, description: str
) -> None:
    assert inbound.json_kind_mismatch(body, pb.ApplyMoveRequest.DESCRIPTOR) == (field, description)
    with pytest.raises(LawspeakerError) as refused:
        _decode(pb.ApplyMoveRequest, json.dumps(body).encode(), "application/json")
    assert refused.value.reason == "INVALID_FIELD_VALUE"
    assert [(v.field, v.description) for v in refused.value.field_violations] == [(field, description)]


def test_what_json_format_says_in_its_own_words_is_left_to_it() -> None:
    desc = pb.ApplyMoveRequest.DESCRIPTOR
    assert inbound.json_kind_mismatch({"nope": 1, "state": 1.5}, desc) is None  # unknown field first
    assert inbound.json_kind_mismatch({"state": {"valhalla": {"ships": [None]}}}, desc) is None


def test_a_number_that_is_no_integer_or_out_of_range_is_named_in_json_words() -> None:
    desc = pb.ApplyMoveRequest.DESCRIPTOR
    assert inbound.json_kind_mismatch({"state": {"valhalla": {"darkSeat": 1.5}}}, desc) == (
        "state.valhalla.darkSeat",
        "must be a whole number, not the number 1.5",
    )
    assert inbound.json_kind_mismatch({"state": {"valhalla": {"darkSeat": "4294967296"}}}, desc) == (
        "state.valhalla.darkSeat",
        'must be an integer from -2147483648 to 2147483647, not the string "4294967296"',
    )
    assert inbound.json_kind_mismatch({"state": {"valhalla": {"darkSeat": 2.0}}}, desc) is None
    assert inbound.json_kind_mismatch({"state": None, "game": "valhalla"}, desc) is None


_SWAPS: list[Any] = [
    None,
    True,
    0,
    -1,
    1.5,
    2**70,
    "",
    "x",
    "NaN",
    "1e5",
    [],
    {},
    [1],
    [[]],
    {"a": 1},
    [None],
    [{}],
]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        out += _paths(item, (*path, key))
    return out


@pytest.mark.parametrize("game", ["valhalla", "birka", "pax_viking_junior", "penki", "pax_penning"])
def test_no_refusal_of_a_mutated_request_speaks_python(game: str) -> None:
    """Every value of a real ApplyMove request of each game, swapped for values of other kinds: the
    refusal names the field in JSON's words."""
    api = RulesApi()
    state = api.new_game(
        pb.NewGameRequest(game=game, players=3 if game == "pax_penning" else 2, seed=3)
    ).state
    move = api.legal_moves(pb.LegalMovesRequest(game=game, state=state)).moves[0]
    request = json_format.MessageToDict(pb.ApplyMoveRequest(game=game, state=state, move=move))
    rng = random.Random(game)
    paths = [p for p in _paths(request) if p]
    for _ in range(400):
        path = rng.choice(paths)
        mutated = json.loads(json.dumps(request))
        parent = mutated
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = rng.choice(_SWAPS)
        try:
            _decode(pb.ApplyMoveRequest, json.dumps(mutated).encode(), "application/json")
        except LawspeakerError as err:
            words = "\n".join([err.message, *(f"{v.field} {v.description}" for v in err.field_violations)])
            assert _PYTHON_WORDS.search(words) is None, (path, words)


def test_a_valid_request_is_untouched_by_the_guards() -> None:
    move = game_pb2.Move(valhalla=valhalla_pb2.ValhallaMove(cast=valhalla_pb2.ValhallaCast()))
    state = RulesApi().new_game(pb.NewGameRequest(game="valhalla", players=2, seed=1)).state
    request = pb.ApplyMoveRequest(game="valhalla", state=state, move=move)
    body = json_format.MessageToJson(request).encode()
    inbound.check_json_depth(body)
    assert inbound.json_kind_mismatch(json.loads(body), pb.ApplyMoveRequest.DESCRIPTOR) is None
    assert _decode(pb.ApplyMoveRequest, body, "application/json") == (request, False)


def test_the_readme_states_the_limit() -> None:
    readme = (Path(__file__).parents[2] / "docs" / "api.md").read_text()
    assert f"at most {LIMIT} levels deep" in readme and "JSON_TOO_DEEP" in readme


def test_what_json_format_would_let_pass_is_refused_in_json_words() -> None:
    """A boolean for an enum and an empty string or array for a message are no proto3 JSON, though
    protobuf's json_format reads them (as 1 or 0, and an empty message): the service refuses them."""
    body = b'{"players": 2, "options": {"valhalla": {"start": true}}}'
    with pytest.raises(LawspeakerError) as caught:
        _decode(pb.NewGameRequest, body, "application/json")
    assert caught.value.reason == "INVALID_FIELD_VALUE"
    assert caught.value.field_violations[0].field == "options.valhalla.start"
    for empty in (b'""', b"[]"):
        with pytest.raises(LawspeakerError) as caught:
            _decode(pb.NewGameRequest, b'{"players": 2, "options": ' + empty + b"}", "application/json")
        assert caught.value.field_violations[0].description.startswith("must be a JSON object")
