"""Every reason a game refuses a move for is listed once, with its meaning and the rule it enforces.

A game's ``reasons`` (``games/<game>/reasons.py``) must list exactly the reason codes its engine
can put in a :class:`~lawspeaker.games.core.Violation`: the codes are read from the engine's source
(every ``Violation("CODE", ...)``), so a new refusal without an entry, or an entry no refusal uses,
fails here. Each entry's anchor must exist in ``docs/rules/<game>.md`` (the link a frontend's "see
the rule" opens) and its quoted rulebook sentence must be one the rules document quotes.
"""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

from lawspeaker.games import core
from lawspeaker.wire.registry import REGISTRY

ROOT = pathlib.Path(__file__).resolve().parents[2]
GAMES_DIR = ROOT / "service" / "lawspeaker" / "games"
SHARED = {core.GAME_OVER.reason}  # shared by every game: listed in docs/errors.md
REASON = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$")


def violation_codes(package: pathlib.Path) -> set[str]:
    """The reason codes a game package's source gives to ``Violation(...)`` (first argument),
    including both arms of a conditional expression."""
    codes: set[str] = set()

    def literals(node: ast.expr) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.IfExp):
            return literals(node.body) + literals(node.orelse)
        raise AssertionError(f"{package.name}: a Violation reason that is not a literal: {ast.unparse(node)}")

    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Violation" and node.args:
                codes.update(literals(node.args[0]))
    return codes


def _doc(game_id: str) -> tuple[pathlib.Path, str]:
    reasons = REGISTRY[game_id].game.reasons
    first = next(iter(reasons.values()))
    path = ROOT / first.rule.split("#", 1)[0]
    return path, path.read_text()


def _squash(text: str) -> str:
    """Text with blockquote markers, emphasis and runs of whitespace removed (quotes wrap lines)."""
    text = re.sub(r"^\s*>\s?", "", text, flags=re.M)
    return re.sub(r"\s+", " ", text.replace("*", "")).strip()


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_a_game_lists_exactly_the_reasons_its_engine_gives(game_id: str) -> None:
    game = REGISTRY[game_id].game
    package = GAMES_DIR / game_id
    used = violation_codes(package) - SHARED
    listed = set(game.reasons)
    assert used - listed == set(), "refusals with no entry in reasons.py"
    assert listed - used == set(), "entries in reasons.py that no refusal gives"


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_every_reason_has_a_meaning_an_anchor_in_the_rules_document_and_a_rulebook_sentence(
    game_id: str,
) -> None:
    game = REGISTRY[game_id].game
    path, text = _doc(game_id)
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', text))
    quoted = _squash(text)
    for code, entry in game.reasons.items():
        assert REASON.match(code), code
        assert entry.reason == code
        assert entry.meaning.endswith(".") and not entry.meaning.endswith(".."), code
        assert entry.rule.startswith(f"docs/rules/{path.name}#"), code
        anchor = entry.rule.split("#", 1)[1]
        assert anchor in anchors, f'{code}: no <a id="{anchor}"></a> in {path.name}'
        assert entry.rulebook, code
        if entry.rulebook.startswith('"'):  # a quotation: the rules document quotes the same words
            words = _squash(entry.rulebook.strip('"'))
            assert words in quoted, f"{code}: the rulebook sentence is not quoted in {path.name}"


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_a_refused_move_carries_the_anchor_of_its_rule(game_id: str) -> None:
    game = REGISTRY[game_id].game
    for code in game.reasons:
        assert core.rule_of(game, code) == game.reasons[code].rule
    assert core.rule_of(game, core.GAME_OVER.reason) == ""
