"""What Pax Penning tells a client besides moves: its options and assumptions (checked against the
rulebook, ``docs/rules/pax-penning.md`` and the generated contract), its description, the map's
validation and the immutability of its values.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from lawspeaker.games.core import Rng
from lawspeaker.games.pax_penning import (
    ASSUMPTIONS,
    EVERYONE_LOSES,
    GAME,
    JARL,
    OPTIONS,
    REFERENCE,
    THEGN,
    VICTORY_NAMES,
    BoardError,
    Draw,
    EventDetail,
    Gather,
    Options,
    Phase,
    SendStone,
    load_board,
)
from lawspeaker.games.pax_penning.board import PIECE_CODES, PIECE_NAMES
from lawspeaker.v1 import pax_penning_pb2

ROOT = Path(__file__).resolve().parents[2]
RULEBOOK = ROOT.parent / "shared" / "rulebooks" / "pax-penning.txt"
DOC = ROOT / "docs" / "rules" / "pax-penning.md"


def _plain(text: str) -> str:
    """Words only: line breaks and the colon after a heading (``At 3 players``) aside."""
    return " ".join(text.replace(":", " ").split())


def _doc_sections() -> dict[str, list[str]]:
    """The assumption sections of docs/rules/pax-penning.md: id -> its paragraphs."""
    parts = re.split(r"^### `(\w+)`\n", DOC.read_text(encoding="utf-8"), flags=re.M)
    return {
        parts[i]: [p.strip() for p in parts[i + 1].strip().split("\n\n")] for i in range(1, len(parts), 2)
    }


# --------------------------------------------------------------------------- the contract


def test_each_phase_is_spelled_as_its_contract_constant_in_the_contract_order() -> None:
    """``Phase.GATHER`` is ``PAX_PENNING_PHASE_GATHER``: same names, same order (the codec maps by
    name)."""
    phases = pax_penning_pb2.PaxPenningPhase.keys()
    names = [n for n in phases if not n.endswith("_UNSPECIFIED")]
    assert [f"PAX_PENNING_PHASE_{p.value}" for p in Phase] == names
    assert all(p.value == p.name for p in Phase)


def test_pieces_and_victories_number_as_the_contract_numbers_them() -> None:
    """The engine's piece and victory codes are the contract's enum numbers."""
    for code, name in PIECE_NAMES.items():
        assert pax_penning_pb2.PaxPenningPiece.Value(f"PAX_PENNING_PIECE_{name.upper()}") == code
        assert PIECE_CODES[name.upper()] == code
    victories = {THEGN: "THEGN", JARL: "JARL", EVERYONE_LOSES: "EVERYONE_LOSES"}
    for code, name in victories.items():
        assert pax_penning_pb2.PaxPenningVictory.Value(f"PAX_PENNING_VICTORY_{name}") == code
    assert VICTORY_NAMES == {
        THEGN: "Thegn's Victory",
        JARL: "Jarl's Victory",
        EVERYONE_LOSES: "everyone loses",
    }


def test_the_options_are_the_fields_of_options_with_their_defaults() -> None:
    """Every option DescribeGame lists is a field of ``Options`` and of the contract's options
    message, in the same order; its default is that of ``Options()``."""
    fields = [f.name for f in dataclasses.fields(Options)]
    assert (
        [o.name for o in OPTIONS]
        == fields
        == list(pax_penning_pb2.PaxPenningOptions.DESCRIPTOR.fields_by_name)
    )
    assert GAME.describe().options == OPTIONS
    defaults = Options()
    for option in OPTIONS:
        value = getattr(defaults, option.name)
        if isinstance(value, bool):
            assert option.allowed == ("true", "false") and option.default == str(value).lower()
        else:
            assert option.allowed == () and option.default == value == ""
    assert GAME.default_options() == defaults


def test_the_options_describe_themselves_word_for_word() -> None:
    """What a player reads when choosing the options of a game."""
    assert {o.name: o.description for o in OPTIONS} == {
        "board": "The map as JSON text in the shape of the reference board served under data.board; empty = "
        "the reference map. It is validated like the reference map.",
        "gathering_limited_by_dice": "Gathering: a player may move only as many stones from Sigtuna as there "
        "are dice left for them (by default any number may be moved; the pool is capped by the dice in the "
        "supply).",
        "pawns_stop_at_pawns": "Pawn: a walking pawn stops on the first pawn it steps onto, so pawns never "
        "pass each other (by default it passes over pawns and lands on one only when it ends its move on "
        "that pawn's space).",
    }


# --------------------------------------------------------------------------- readings


def test_every_reading_quotes_the_rulebook_verbatim() -> None:
    """Each recorded reading quotes the sentence it reads; the parts of a quotation around an
    ellipsis ("...") appear in the rulebook word for word."""
    if not RULEBOOK.exists():  # pragma: no cover - the shared rulebooks lie beside the repository
        pytest.skip(f"no rulebook at {RULEBOOK}")
    book = _plain(RULEBOOK.read_text(encoding="utf-8"))
    missing = [
        (a.id, part) for a in ASSUMPTIONS for part in a.rulebook.split("...") if _plain(part) not in book
    ]
    assert missing == []


def test_every_reading_is_recorded_in_the_rules_document_with_the_same_quote() -> None:
    """docs/rules/pax-penning.md has a section per assumption, in the same order, quoting the same
    sentence."""
    sections = _doc_sections()
    assert list(sections) == [a.id for a in ASSUMPTIONS]
    for a in ASSUMPTIONS:
        assert sections[a.id][0] == "> " + a.rulebook, a.id


def test_the_decisions_are_the_ones_the_rules_document_records() -> None:
    """The decision served by DescribeGame is the paragraph the rules document records (three
    sections add a sentence on the other reading, which the engine serves as ``other``)."""
    sections = _doc_sections()
    differ = {a.id for a in ASSUMPTIONS if sections[a.id][1] != a.decision}
    assert differ <= {"THREE_PLAYER_EXTRAS", "DICE_SUPPLY", "PAWN_ARRIVES"}
    for a in ASSUMPTIONS:
        if a.id in differ:
            assert _plain(a.decision)[:60] == _plain(sections[a.id][1])[:60], a.id


def test_the_other_readings_name_their_options() -> None:
    """An assumption with another reading offered as an option names that option's value."""
    others = {a.id: a.option for a in ASSUMPTIONS if a.option}
    assert others == {
        "REFERENCE_BOARD": "board",
        "DICE_SUPPLY": "gathering_limited_by_dice=true (a player may move at most as many stones as there "
        "are dice left for them: supply - Silvers - stones already moved)",
        "PAWN_ARRIVES": "pawns_stop_at_pawns=true (stepping onto a pawn's space is landing on it: the pawn "
        "stops on the first pawn it reaches and pawns never pass each other)",
    }


# --------------------------------------------------------------------------- the description


def test_the_description_numbers_the_nodes_and_lists_the_pieces_and_roads() -> None:
    """DescribeGame serves the reference map, the node numbering, the piece names and every road."""
    description = GAME.describe()
    data = description.data
    assert set(data) == {"board", "pieces", "nodes", "roads"}
    assert data["board"] == json.loads((ROOT / "service/lawspeaker/games/pax_penning/board.json").read_text())
    assert data["pieces"] == {"1": "Knight", "2": "Bishop", "3": "Rook", "4": "Pawn", "5": "King"}
    assert data["nodes"] == {
        "road_spaces": [0, 22],
        "crossroads": [23, 30],
        "starting_stars": [31, 35],
        "sigtuna": 36,
        "description": "PaxPenningState.pawns holds node numbers: road spaces, crossroads and stars are "
        "numbered in the order listed in board, then Sigtuna. Moves and roads/runestones use the index "
        "within their own list.",
    }
    assert [r["star"] for r in data["roads"]] == list(REFERENCE.star_ids)
    assert [r["path"] for r in data["roads"]] == [
        REFERENCE.road_from(REFERENCE.star_node(i)) for i in range(5)
    ]
    assert description.assumptions == ASSUMPTIONS
    assert (GAME.id, GAME.title, GAME.min_players, GAME.max_players) == ("pax_penning", "Pax Penning", 3, 5)
    assert GAME.rules_version == "pax_penning-2"


# --------------------------------------------------------------------------- the map


def _ref() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(REFERENCE.data))
    return data


def _broken(change: str) -> dict[str, Any]:
    data = _ref()
    if change == "no bowls":
        del data["bowls"]
    elif change == "no spaces":
        data["spaces"] = []
    elif change == "space without id":
        del data["spaces"][0]["id"]
    elif change == "space without x":
        del data["spaces"][0]["x"]
    elif change == "space without next":
        del data["spaces"][0]["next"]
    elif change == "sigtuna not an object":
        data["sigtuna"] = "sigtuna"
    elif change == "duplicate id":
        data["spaces"][1]["id"] = data["spaces"][0]["id"]
    elif change == "into a star":
        data["spaces"][0]["next"] = data["stars"][0]["id"]
    elif change == "difficult not boolean":
        data["spaces"][0]["difficult"] = 1
    elif change == "royal stars empty":
        data["royal_stars"] = []
    elif change == "royal stars repeated":
        data["royal_stars"] = [data["royal_stars"][0]] * 2
    elif change == "two bowls":
        data["bowls"] = data["bowls"][-2:]
    elif change == "negative bowl":
        data["bowls"][0]["value"] = -1
    elif change == "printed rook":
        data["bowls"][-1]["printed"] = "ROOK"
    elif change == "printed on a valued bowl":
        data["bowls"][0]["printed"] = "PAWN"
    elif change == "bowls unsorted":
        data["bowls"][0]["value"], data["bowls"][1]["value"] = (
            data["bowls"][1]["value"],
            data["bowls"][0]["value"],
        )
    elif change == "no pawn bowl":
        data["bowls"][-2]["printed"] = None
    elif change == "king market piece":
        data["market_pieces"] = ["KING"]
    elif change == "small hierarchy":
        data["hierarchy"] = data["hierarchy"][:5]
    elif change == "stones zero":
        data["stones_per_player"] = 0
    elif change == "stones a boolean":
        data["stones_per_player"] = True
    elif change == "few stones":
        data["stones_per_player"] = 14
    elif change == "few coins":
        data["coins_total"] = 10
    elif change == "one die":
        data["dice"] = 1
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("no bowls", "the board has no 'bowls'"),
        ("no spaces", "spaces must be a non-empty list"),
        ("space without id", "every entry of spaces needs an id"),
        ("space without x", "spaces a1 needs x"),
        ("space without next", "spaces a1 needs a next node towards Sigtuna"),
        ("sigtuna not an object", "sigtuna must be an object with an id"),
        ("duplicate id", "node ids must be unique"),
        ("into a star", "a1 leads into a starting star"),
        ("difficult not boolean", "space a1: difficult must be a boolean"),
        ("royal stars empty", "royal_stars must list the stars the pawns start on"),
        ("royal stars repeated", "royal_stars must be distinct stars"),
        ("two bowls", "there must be at least three market bowls"),
        ("negative bowl", "every bowl needs a value >= 0"),
        ("printed rook", "a bowl's printed piece is KING, PAWN or null"),
        ("printed on a valued bowl", "only zero-value bowls have a printed piece"),
        ("bowls unsorted", "bowls are listed from the top (highest value) down"),
        ("no pawn bowl", "a zero-value bowl must print the Pawn"),
        ("king market piece", "bad market_pieces"),
        ("small hierarchy", "the hierarchy needs a slot per player and the coin"),
        ("stones zero", "stones_per_player must be an integer >= 1"),
        ("stones a boolean", "stones_per_player must be an integer >= 1"),
        ("few stones", "too few stones for the setup"),
        ("few coins", "too few coins for the setup"),
        ("one die", "dice must be an integer >= 2"),
    ],
)
def test_a_broken_map_is_refused_naming_its_first_problem(change: str, message: str) -> None:
    """The map is data validated at load (Assumption REFERENCE_BOARD): each broken map is refused with
    the sentence that names what is wrong."""
    assert _ref()["spaces"][0]["id"] == "a1"
    with pytest.raises(BoardError) as err:
        load_board(json.dumps(_broken(change)))
    assert str(err.value) == message


def test_a_map_that_is_not_json_or_not_an_object_is_refused() -> None:
    with pytest.raises(BoardError, match=r"^the board is not valid JSON: "):
        load_board("{")
    with pytest.raises(BoardError, match=r"^the board must be a JSON object$"):
        load_board("[]")
    assert load_board(json.dumps(_ref())).spaces == REFERENCE.spaces


# --------------------------------------------------------------------------- values


def test_states_moves_options_and_event_details_are_frozen_with_slots() -> None:
    """Values handed out by the engine cannot be changed in place."""
    state = GAME.new_game(3, Options(), Rng.from_seed(1))
    assert isinstance(state, tuple) and hasattr(state, "_replace")
    with pytest.raises(AttributeError):
        state.phase = Phase.OVER  # type: ignore[misc]
    values: list[Any] = [Options(), Draw(1), Gather(0, 1), SendStone(0, 1), EventDetail(1), REFERENCE]
    for value in values:
        assert dataclasses.is_dataclass(value) and not hasattr(value, "__dict__")
        field = dataclasses.fields(value)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, getattr(value, field))


def test_the_public_names_exist() -> None:
    """``from lawspeaker.games.pax_penning import *`` gives the map and its pieces."""
    from lawspeaker.games import pax_penning

    assert set(pax_penning.__all__) == {
        "BISHOP",
        "KING",
        "KNIGHT",
        "PAWN",
        "REFERENCE",
        "ROOK",
        "Board",
        "BoardError",
        "load_board",
    }
    assert all(hasattr(pax_penning, name) for name in pax_penning.__all__)
