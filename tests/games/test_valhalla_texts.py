"""What DescribeGame says about Valhalla, checked against the sources it is written from.

The engine's option table, its enums and its recorded readings (``ASSUMPTIONS``) are what a client
shows a player choosing a game; each is checked against where it comes from: the option values
against the contract's enum constants (``lawspeaker/v1/valhalla.proto``) and the engine's own
defaults, each quoted rulebook sentence against the rulebook (``shared/rulebooks/valhalla.txt``,
beside the repository) and against the table of readings in ``docs/rules/valhalla.md``, and each
decision against that table.
"""

# The rulebook and the rules document use curly quotation marks.
# ruff: noqa: RUF001

from __future__ import annotations

import enum
import re
from pathlib import Path

import pytest

from lawspeaker.games.valhalla import (
    ASSUMPTIONS,
    GAME,
    EntryBlocked,
    Hagalaz,
    Options,
    Phase,
    Scoring,
    Start,
)
from lawspeaker.v1 import valhalla_pb2

ROOT = Path(__file__).resolve().parents[2]
RULES_DOC = ROOT / "docs" / "rules" / "valhalla.md"
RULEBOOK = ROOT.parent / "shared" / "rulebooks" / "valhalla.txt"

#: Each engine enum and the prefix of its constants in the contract.
ENUMS: tuple[tuple[type[enum.Enum], str], ...] = (
    (Start, "VALHALLA_START_"),
    (Scoring, "VALHALLA_SCORING_"),
    (Hagalaz, "VALHALLA_HAGALAZ_"),
    (EntryBlocked, "VALHALLA_ENTRY_BLOCKED_"),
    (Phase, "VALHALLA_PHASE_"),
)
#: Each option of the table and the engine enum of its values.
OPTION_ENUMS: dict[str, tuple[type[enum.Enum], str]] = {
    "start": (Start, "VALHALLA_START_"),
    "scoring": (Scoring, "VALHALLA_SCORING_"),
    "hagalaz": (Hagalaz, "VALHALLA_HAGALAZ_"),
    "entry_blocked": (EntryBlocked, "VALHALLA_ENTRY_BLOCKED_"),
}


def _plain(text: str) -> str:
    """``text`` with typography and layout left out: straight quotes and dots for curly ones and
    the ellipsis, no Markdown emphasis or code marks, no whitespace (line breaks of the rulebook,
    a space before a comma)."""
    for curly, straight in (("‘", "'"), ("’", "'"), ("“", '"'), ("”", '"'), ("…", "...")):
        text = text.replace(curly, straight)
    return re.sub(r"[\s*`]", "", text)


def _doc_readings() -> dict[str, tuple[str, str]]:
    """The table of readings of ``docs/rules/valhalla.md``: id -> (quoted rulebook text, decision)."""
    rows = {}
    for line in RULES_DOC.read_text(encoding="utf-8").splitlines():
        row = re.fullmatch(r"\| `([A-Z_]+)` \| (.*) \| (.*) \| (.*) \|", line)
        if row:
            quoted = row[2]
            assert quoted.startswith('"') and quoted.endswith('"'), line
            rows[row[1]] = (quoted[1:-1], row[3])
    return rows


# --------------------------------------------------------------------------- enums and options


@pytest.mark.parametrize(("members", "prefix"), ENUMS, ids=[e.__name__ for e, _ in ENUMS])
def test_each_engine_enum_value_is_spelled_as_its_contract_constant(
    members: type[enum.Enum], prefix: str
) -> None:
    """The engine and the contract spell their values alike (``Phase.CAST`` is
    ``VALHALLA_PHASE_CAST``, the convention the codec maps by): every member's value is its name,
    and the contract has the constant of that name."""
    for member in members:
        assert member.value == member.name
        assert members(member.name) is member
        assert getattr(valhalla_pb2, prefix + member.value) > 0


def test_the_option_table_offers_the_contract_constants_with_the_engine_defaults() -> None:
    """Each option of DescribeGame allows exactly the contract constants of the engine's values,
    in the engine's order, and names the default of :class:`Options` as its default."""
    options = {o.name: o for o in GAME.describe().options}
    defaults = Options()
    assert list(options) == ["start", "scoring", "hagalaz", "doubles", "entry_blocked"]
    for name, (members, prefix) in OPTION_ENUMS.items():
        info = options[name]
        assert info.allowed == tuple(prefix + m.name for m in members)
        default = getattr(defaults, name)
        assert isinstance(default, members)
        assert info.default == prefix + default.name
        assert all(getattr(valhalla_pb2, value) > 0 for value in info.allowed)
    assert options["doubles"].allowed == ("true", "false")
    assert options["doubles"].default == str(defaults.doubles).lower() == "false"


def test_the_option_table_describes_each_option_word_for_word() -> None:
    """What a player reads when choosing the options of a game."""
    assert {o.name: o.description for o in GAME.describe().options} == {
        "start": "How the game begins: the 1-6 / 7-12 layout, or entering from off the board.",
        "scoring": "Score the sticks with their runes, or the traditional 1-to-1 method.",
        "hagalaz": "In an unnatural cast, whether Hagalaz cancels another stick's point or only its own.",
        "doubles": "The optional rule: a five, a four or a natural one throws again.",
        "entry_blocked": (
            "Enter start: a player with a ship waiting whose cast's entry space is occupied forfeits "
            "the turn (unless all five entry spaces are occupied), or may move a ship on the board "
            "instead."
        ),
    }


# --------------------------------------------------------------------------- readings


def test_every_reading_quotes_the_rulebook_verbatim() -> None:
    """Each recorded reading quotes the sentence it reads; the parts of a quotation around an
    ellipsis ("...") appear in the rulebook word for word (line breaks and curly quotation marks
    aside)."""
    if not RULEBOOK.exists():
        pytest.skip(f"the rulebook is not beside the repository ({RULEBOOK})")
    book = _plain(RULEBOOK.read_text(encoding="utf-8"))
    missing = [
        (a.id, part) for a in ASSUMPTIONS for part in a.rulebook.split("...") if _plain(part) not in book
    ]
    assert missing == []


def test_every_reading_quotes_what_the_rules_document_records() -> None:
    """``docs/rules/valhalla.md`` lists every reading the engine takes, with the same quotation."""
    recorded = _doc_readings()
    assert sorted(recorded) == sorted(a.id for a in ASSUMPTIONS)
    assert [a.id for a in ASSUMPTIONS if _plain(recorded[a.id][0]) != _plain(a.rulebook)] == []


def test_every_decision_is_the_one_the_rules_document_records() -> None:
    """The decision DescribeGame returns for a reading is the one ``docs/rules/valhalla.md``
    records (Markdown emphasis aside)."""
    recorded = _doc_readings()
    assert [a.id for a in ASSUMPTIONS if _plain(recorded[a.id][1]) != _plain(a.decision)] == []
