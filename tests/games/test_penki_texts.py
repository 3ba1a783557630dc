"""What Penki tells a client besides moves: its options and assumptions (checked against the
rulebook and ``docs/rules/penki.md``), its description, its component data (validated at import)
and the immutability of its values.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from lawspeaker.games import penki
from lawspeaker.games.core import Rng
from lawspeaker.games.penki import (
    ASSUMPTIONS,
    GAME,
    OPTIONS,
    Alignment,
    ConnectTile,
    Draw,
    EventDetail,
    Options,
    Pass,
    PlacePair,
    Setup,
    Stuck,
    Tile,
    Tiles,
)
from lawspeaker.v1 import penki_pb2

ROOT = Path(__file__).resolve().parents[2]
RULEBOOK = ROOT.parent / "shared" / "rulebooks" / "penki.txt"
DOC = ROOT / "docs" / "rules" / "penki.md"
COMPONENTS = json.loads((ROOT / "service" / "lawspeaker" / "games" / "penki" / "components.json").read_text())

#: The option name of each engine enum, as ``Options`` and the contract spell it.
OPTION_ENUMS: dict[str, type[enum.Enum]] = {
    "setup": Setup,
    "tiles": Tiles,
    "alignment": Alignment,
    "stuck": Stuck,
}


def _words(text: str) -> str:
    return " ".join(text.split())


def _rulebook() -> str:
    if not RULEBOOK.exists():  # pragma: no cover - the shared rulebooks lie beside the repository
        pytest.skip(f"no rulebook at {RULEBOOK}")
    return _words(RULEBOOK.read_text(encoding="utf-8"))


def _doc_rows() -> dict[str, tuple[str, str, str]]:
    """The assumption table of docs/rules/penki.md: id -> (rulebook quote, decision, other reading)."""
    rows: dict[str, tuple[str, str, str]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.fullmatch(r"\| `(\w+)` \| (.*) \| (.*) \| (.*) \|", line)
        if m:
            rows[m[1]] = (m[2], m[3], m[4])
    return rows


# --------------------------------------------------------------------------- options


def test_the_options_are_the_fields_of_options_spelled_as_the_contract_spells_them() -> None:
    """Every option DescribeGame lists is a field of ``Options``; its values are the contract's enum
    constants ``PENKI_<OPTION>_<MEMBER>`` in the engine enum's order, its default that of ``Options()``."""
    assert [o.name for o in OPTIONS] == [f.name for f in dataclasses.fields(Options)]
    defaults = Options()
    for option in OPTIONS:
        members = list(OPTION_ENUMS[option.name])
        prefix = f"PENKI_{option.name.upper()}_"
        assert option.allowed == tuple(prefix + m.name for m in members)
        assert option.default == prefix + getattr(defaults, option.name).name
        for value in option.allowed:
            assert hasattr(penki_pb2, value), value
        assert option.description[0].isupper() and option.description.endswith("."), option


def test_the_engine_enums_spell_their_values_as_their_names() -> None:
    """The codec maps enum members by name; values spelled alike keep a stored state readable."""
    enums: list[type[enum.Enum]] = [*OPTION_ENUMS.values(), penki.Phase]
    for members in enums:
        assert [m.value for m in members] == [m.name for m in members]


# --------------------------------------------------------------------------- assumptions


def test_every_assumption_quotes_the_rulebook_word_for_word() -> None:
    """An assumption's ``rulebook`` text is a quotation: each part (between "...") is in the rulebook."""
    book = _rulebook()
    for a in ASSUMPTIONS:
        for part in a.rulebook.split("..."):
            assert _words(part) in book, (a.id, part)


def test_every_assumption_is_recorded_in_the_rules_document() -> None:
    """docs/rules/penki.md lists every assumption with the same quote and decision."""
    rows = _doc_rows()
    assert list(rows) == [a.id for a in ASSUMPTIONS]
    for a in ASSUMPTIONS:
        quote, decision, _other = rows[a.id]
        assert quote == f'"{a.rulebook}"', a.id
        assert decision == a.decision, a.id


def test_every_other_reading_names_an_option_value() -> None:
    """An assumption with another reading names the option value that selects it, and that value
    is not the default (the default is the assumption's own reading)."""
    by_name = {o.name: o for o in OPTIONS}
    with_option = [a for a in ASSUMPTIONS if a.option]
    assert [a.id for a in with_option] == ["TILE_ORIENTATION", "BRICK_OFFSET", "RANDOM_PAIRS", "DRAW_GAME"]
    for a in with_option:
        m = re.match(r"(\w+)=(\w+)", a.option)
        assert m is not None, a.option
        option = by_name[m[1]]
        assert m[2] in option.allowed and m[2] != option.default, a.option


# --------------------------------------------------------------------------- description


def test_the_description_is_the_component_data_the_grid_and_the_pair_kinds() -> None:
    """The grid reaches every column a 9-wide play area holding the starting tile can reach (x from
    -7 to 8) and every row 28 upright tiles could stack up to (y up to 55)."""
    description = GAME.describe()
    assert description.options == OPTIONS
    assert description.assumptions == ASSUMPTIONS
    assert dict(description.data) == {
        **COMPONENTS,
        "grid": {"x_min": -7, "x_max": 8, "y_min": 0, "y_max": 55},
        "pair_kinds": [[0, 0], [0, 1], [0, 2], [1, 1], [1, 2], [2, 2]],
    }


# --------------------------------------------------------------------------- component data


def _load(monkeypatch: pytest.MonkeyPatch, **changes: Any) -> dict[str, Any]:
    """``_load_components`` over components.json with ``changes``."""
    data = {**COMPONENTS, **changes}
    monkeypatch.setattr(penki, "json", SimpleNamespace(loads=lambda _text: data))
    loaded: dict[str, Any] = penki._load_components()
    return loaded


def test_the_component_data_is_checked_at_import(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _load(monkeypatch) == COMPONENTS
    with pytest.raises(AssertionError, match=r"^a pair fills one tile$"):
        _load(monkeypatch, pieces_per_pair=3)
    with pytest.raises(AssertionError, match=r"^a pair fills one tile$"):
        _load(monkeypatch, cavities_per_tile=3)
    with pytest.raises(AssertionError, match=r"^every piece is drawn into a pair$"):
        _load(monkeypatch, pairs_per_player=13)
    with pytest.raises(AssertionError, match=r"^pieces fill every tile$"):
        _load(monkeypatch, tiles=27)
    with pytest.raises(AssertionError):
        _load(monkeypatch, starting_tile={"x": 0, "y": 0, "orientation": "upright"})
    with pytest.raises(AssertionError):
        _load(monkeypatch, max_width=1)
    with pytest.raises(AssertionError):
        _load(monkeypatch, row_to_win=1)
    # The smallest play area (the starting tile) and the shortest row are allowed.
    assert _load(monkeypatch, max_width=2, row_to_win=2)["max_width"] == 2


# --------------------------------------------------------------------------- values


def test_states_moves_and_event_details_are_frozen_with_slots() -> None:
    """States are shared between requests and cached moves between states: none can change."""
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    values: list[object] = [
        state,
        state.layout,
        Options(),
        Tile(0, 0),
        Draw(),
        ConnectTile(2, 0),
        PlacePair(0, 0, 0, 0),
        Pass(),
        EventDetail(),
    ]
    for value in values:
        assert not hasattr(value, "__dict__"), type(value)
        for f in dataclasses.fields(value):  # type: ignore[arg-type]
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(value, f.name, None)


def test_applying_a_pass_directly_is_an_error() -> None:
    """Validation refuses every pass; the engine's ``apply`` never turns one into a state."""
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    with pytest.raises(ValueError, match=r"^a pass is never legal$"):
        GAME.apply(state, Pass())
