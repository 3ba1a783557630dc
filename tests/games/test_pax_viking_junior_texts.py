"""What Pax Viking Junior tells a client besides moves: its options (spelled as the protobuf contract
spells them), its assumptions (checked against the rulebook and ``docs/rules/pax-viking-junior.md``),
its description and the immutability of its values.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from pathlib import Path

import pytest

from lawspeaker.games import pax_viking_junior
from lawspeaker.games.core import OptionInfo, Rng
from lawspeaker.games.pax_viking_junior import (
    ASSUMPTIONS,
    GAME,
    OPTIONS,
    ChooseBoard,
    Draw,
    DrawTiles,
    EventDetail,
    Journey,
    KittenTie,
    Options,
    Phase,
    PickUpCats,
    PlaceBigCat,
    PlaceKittens,
    PlaceTile,
    ReturnTiles,
    SkipDraw,
    VictoryCards,
)
from lawspeaker.games.pax_viking_junior.components import REFERENCE, REFERENCE_DATA, SECTIONS
from lawspeaker.v1 import pax_viking_junior_pb2

ROOT = Path(__file__).resolve().parents[2]
RULEBOOK = ROOT.parent / "shared" / "rulebooks" / "pax-viking-junior.txt"
DOC = ROOT / "docs" / "rules" / "pax-viking-junior.md"
DATA = ROOT / "service" / "lawspeaker" / "games" / "pax_viking_junior"

#: The option name of each engine enum, as ``Options`` and the contract spell it.
OPTION_ENUMS: dict[str, type[enum.Enum]] = {"victory_cards": VictoryCards, "kitten_tie": KittenTie}
BOOLEAN_OPTIONS = ("buff", "return_journeys")


def _words(text: str) -> str:
    return " ".join(text.split())


def _rulebook() -> str:
    if not RULEBOOK.exists():  # pragma: no cover - the shared rulebooks lie beside the repository
        pytest.skip(f"no rulebook at {RULEBOOK}")
    return _words(RULEBOOK.read_text(encoding="utf-8"))


def _contract_enum(option: str) -> list[str]:
    """The values of the contract's enum for ``option``, without the UNSPECIFIED zero value."""
    name = "PaxVikingJunior" + "".join(w.title() for w in option.split("_"))
    values = pax_viking_junior_pb2.DESCRIPTOR.enum_types_by_name[name].values
    return [v.name for v in values if not v.name.endswith("_UNSPECIFIED")]


def _doc_assumptions() -> dict[str, tuple[str, str, str]]:
    """The Assumptions section of the rules document: id -> (quote, decision, option line)."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Assumptions\n", 1)[1].split("\n## ", 1)[0]
    found: dict[str, tuple[str, str, str]] = {}
    for part in section.split("\n### `")[1:]:
        head, body = part.split("`\n", 1)
        paragraphs = [p.strip() for p in body.strip().split("\n\n")]
        quote = _words(" ".join(line.removeprefix("> ") for line in paragraphs[0].splitlines()))
        option = paragraphs[-1] if paragraphs[-1].startswith("Option:") else ""
        decision = _words(" ".join(paragraphs[1 : len(paragraphs) - bool(option)]))
        found[head] = (quote, decision, option)
    return found


# --------------------------------------------------------------------------- options


def test_the_options_are_the_fields_of_options_spelled_as_the_contract_spells_them() -> None:
    """Every option DescribeGame lists is a field of ``Options`` and of the contract's message; an
    enum option's values are the contract's enum constants in the engine enum's order, its default
    that of ``Options()``."""
    assert sorted(o.name for o in OPTIONS) == sorted(f.name for f in dataclasses.fields(Options))
    assert sorted(o.name for o in OPTIONS) == sorted(
        f.name for f in pax_viking_junior_pb2.PaxVikingJuniorOptions.DESCRIPTOR.fields
    )
    defaults = Options()
    by_name = {o.name: o for o in OPTIONS}
    for name, members in OPTION_ENUMS.items():
        option = by_name[name]
        prefix = f"PAX_VIKING_JUNIOR_{name.upper()}_"
        assert option.allowed == tuple(prefix + m.name for m in members)
        assert list(option.allowed) == _contract_enum(name)
        assert option.default == prefix + getattr(defaults, name).name
    for name in BOOLEAN_OPTIONS:
        assert by_name[name].allowed == ("true", "false")
        assert by_name[name].default == str(getattr(defaults, name)).lower() == "false"
    assert by_name["starting_seat"] == OptionInfo(
        "starting_seat",
        "The seat (0-based) of the starting player, e.g. the player who most recently petted a cat or the "
        "previous winner; unset: the starting player is drawn at random (a chance step).",
        "",
    )
    assert by_name["seat_boards"].default == "[]" and by_name["seat_boards"].allowed == ()
    assert by_name["components"].default == "" and by_name["components"].allowed == ()
    for option in OPTIONS:
        assert option.description[0].isupper() and option.description.endswith("."), option


def test_the_option_descriptions_word_for_word() -> None:
    """What a client shows next to each option."""
    assert [o.description for o in OPTIONS] == [
        "Which victory cards are laid out: STANDARD, the 2 red cards (12 Silfr, 12 Scrolls) with 2 green "
        "and 1 yellow; LONGER, the rulebook's Victory Cards Variant for a longer game: no red cards, 2 "
        "green and 2 yellow.",
        "Play with the optional Buff rules: once during a turn a player may spend 2 Silfr or 2 Scrolls for "
        "1 more step, 1 more Animal tile drawn or 1 more Kitten placed.",
        "The seat (0-based) of the starting player, e.g. the player who most recently petted a cat or "
        "the previous winner; unset: the starting player is drawn at random (a chance step).",
        'The cat board id of each seat (e.g. ["bygul", "trjegul"]); empty: each player chooses a '
        "colour and cat board at setup, the starting player first.",
        "Who is Friends with a region's animals when players tie for the most Kittens there: "
        "FRIEND_KEEPS, the current Friend keeps them (stealing takes more Kittens); NOBODY, nobody is.",
        "A journey may end where it began, going out and back (2 steps): the Longship stays. By default "
        "a journey must end on another land region.",
        "JSON text of an object replacing any of the reference components' sections (map, tiles, "
        "victory_cards, cat_boards, rules) in the shape served under data.components; empty: the "
        "reference set. It is validated like the reference set.",
    ]
    assert tuple(SECTIONS) == ("map", "tiles", "victory_cards", "cat_boards", "rules")


def test_the_engine_enums_spell_their_values_as_the_contract_does() -> None:
    """The codec maps members by name; the phases are the contract's phases in order."""
    assert [m.value for m in Phase] == [m.name for m in Phase]
    assert [m.value for m in KittenTie] == [m.name for m in KittenTie]
    assert [m.value for m in VictoryCards] == ["standard", "longer"]  # the keys of rules.json deal
    assert set(REFERENCE.deal) == {m.value for m in VictoryCards}
    assert _contract_enum("phase") == [f"PAX_VIKING_JUNIOR_PHASE_{m.name}" for m in Phase]


# --------------------------------------------------------------------------- assumptions


def test_every_assumption_quotes_the_rulebook_word_for_word() -> None:
    """An assumption's ``rulebook`` text is a quotation: each part (between "...") is in the rulebook,
    and so is every rulebook sentence quoted in an option's description."""
    book = _rulebook()
    for a in ASSUMPTIONS:
        for part in a.rulebook.split("..."):
            assert _words(part) in book, (a.id, part)
    assert "Victory Cards Variant" in book  # named by the victory_cards option


def test_every_assumption_is_recorded_in_the_rules_document() -> None:
    """docs/rules/pax-viking-junior.md lists every assumption, in order, with the same quote, the same
    decision and the option that gives the other reading."""
    rows = _doc_assumptions()
    assert list(rows) == [a.id for a in ASSUMPTIONS]
    for a in ASSUMPTIONS:
        quote, decision, option = rows[a.id]
        assert quote == _words(a.rulebook), a.id
        assert decision == _words(a.decision), a.id
        if a.option:
            names = re.findall(r"[a-z_]+(?==|,|$)", a.option.split(" (")[0])
            assert names and all(n in option for n in names), (a.id, option)
        else:
            assert option == "", a.id


def test_the_assumption_options_name_options_and_their_values() -> None:
    by_name = {o.name: o for o in OPTIONS}
    assert {a.id: a.option for a in ASSUMPTIONS if a.option} == {
        "REFERENCE_MAP": "components",
        "SEA_AND_STEPS": "return_journeys",
        "ANIMAL_TILES": "components",
        "VICTORY_CARDS": "components",
        "CAT_BOARDS": "components",
        "SETUP_ORDER": "seat_boards, starting_seat",
        "KITTEN_TIE": "kitten_tie=PAX_VIKING_JUNIOR_KITTEN_TIE_NOBODY (a tie always means nobody is Friends)",
        "BUFF": "buff",
    }
    tie = by_name["kitten_tie"]
    assert "PAX_VIKING_JUNIOR_KITTEN_TIE_NOBODY" in tie.allowed
    assert tie.default != "PAX_VIKING_JUNIOR_KITTEN_TIE_NOBODY"


# --------------------------------------------------------------------------- description


def test_the_description_is_the_component_data() -> None:
    """DescribeGame serves the options, the assumptions and every component, indexed as moves name
    them."""
    description = GAME.describe()
    assert description.options == OPTIONS
    assert description.assumptions == ASSUMPTIONS
    data = description.data
    assert list(data) == [
        "map",
        "animals",
        "tiles",
        "victory_cards",
        "cat_boards",
        "rules",
        "indices",
        "components",
    ]
    raw = {name: json.loads((DATA / f"{name}.json").read_text(encoding="utf-8")) for name in SECTIONS}
    assert data["components"] == REFERENCE_DATA == raw
    assert data["animals"] == raw["tiles"]["animals"]
    assert data["rules"] == raw["rules"]
    assert data["indices"] == (
        "Moves and states name regions, Animal tile kinds, victory cards and cat boards by their index in "
        "map.regions, tiles, victory_cards and cat_boards (0-based)."
    )
    assert data["tiles"][0] == {
        "index": 0,
        "name": "1 Pig (2 Silfr and 0 Scrolls)",
        "animal": "pig",
        "animals": 1,
        "silfr": 2,
        "scrolls": 0,
        "copies": 2,
    }
    assert [t["index"] for t in data["tiles"]] == list(range(REFERENCE.tiles))
    assert sum(t["copies"] for t in data["tiles"]) == 54
    assert data["victory_cards"][0] == {
        "index": 0,
        "name": "12 Silfr",
        "id": "red-silfr",
        "colour": "red",
        "silfr": 12,
    }
    assert [c["index"] for c in data["victory_cards"]] == list(range(26))
    assert data["cat_boards"][0] == {
        "index": 0,
        "region": "northwind-point",
        **raw["cat_boards"]["boards"][0],
    }
    assert [b["region"] for b in data["cat_boards"]] == [
        "northwind-point",
        "eagle-cliffs",
        "whale-rocks",
        "sandy-bay",
        "fisher-cove",
        "western-dunes",
    ]
    assert data["map"] is REFERENCE.drawing


# --------------------------------------------------------------------------- values


def test_states_moves_and_event_details_are_frozen_with_slots() -> None:
    """States are shared between requests and cached moves between states: none can change."""
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    with pytest.raises(AttributeError):
        state.ply = 3  # type: ignore[misc]
    values: list[object] = [
        Options(),
        Draw(),
        ChooseBoard(0),
        Journey(0),
        DrawTiles(2),
        SkipDraw(),
        PlaceTile(0),
        ReturnTiles(),
        PlaceKittens(1),
        PlaceBigCat(),
        PickUpCats(),
        EventDetail(),
    ]
    for value in values:
        assert not hasattr(value, "__dict__"), type(value)
        for f in dataclasses.fields(value):  # type: ignore[arg-type]
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(value, f.name, None)
    assert EventDetail() == EventDetail(-1, (), -1, 0, 0, 0, ())


def test_every_exported_name_exists() -> None:
    """``__all__`` names what ``from lawspeaker.games.pax_viking_junior import *`` gives."""
    assert pax_viking_junior.__all__ == ["REFERENCE", "Components", "ComponentsError", "load_components"]
    for name in pax_viking_junior.__all__:
        assert hasattr(pax_viking_junior, name), name
