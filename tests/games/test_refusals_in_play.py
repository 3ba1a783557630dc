"""Refusals the rule scenarios do not reach, provoked from positions of real play.

Most reasons are pinned by the rule test of the rule they enforce. A few guard moves that name
something that does not exist (a bowl, a pawn, a star, a coin) or come at the wrong moment; this
file provokes each of them from positions seeded random games reach, so that every reason listed in
``reasons.py`` (``tests/games/test_reasons.py``) is shown to be given, with its rule anchor, for the
case its meaning describes. Only the ``NOT_A_LEGAL_MOVE`` fallbacks stay unreached: no known
position gets past the other checks.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from typing import Any

import pytest

from lawspeaker.games import core
from lawspeaker.games.core import Rng
from lawspeaker.games.pax_penning import (
    GAME,
    KING,
    REFERENCE,
    AnnounceLoyalty,
    ChangeStanding,
    ChooseBowl,
    Draw,
    Gather,
    MovePawn,
    Options,
    Phase,
    PlaceRunestone,
    PlaceStone,
    ReturnPawn,
    State,
)
from lawspeaker.games.pax_penning.reasons import REASONS
from lawspeaker.games.penki import GAME as PENKI
from lawspeaker.games.penki import Draw as PenkiDraw
from lawspeaker.games.penki import Options as PenkiOptions
from lawspeaker.games.penki import Phase as PenkiPhase
from lawspeaker.games.penki import PlacePair
from lawspeaker.games.penki.reasons import REASONS as PENKI_REASONS

#: The seeded games walked (players, seed) and the plies each may take before giving up.
GAMES = ((3, 1), (4, 2), (5, 3), (4, 4), (3, 5))
MAX_PLIES = 4000


def probes(state: State) -> Iterator[tuple[str, Any]]:
    """Moves ``state`` refuses, each with the reason it must be refused for."""
    phase, seat, n = state.phase, state.actor, state.players
    if phase is Phase.GATHER:
        yield "NOT_A_CHANCE_STEP", Draw(1)
        yield "NO_STONES_IN_SIGTUNA", Gather(n, 1)  # no player's colour
        empty = [c for c in range(n) if not state.sigtuna[c]]
        if empty:
            yield "NO_STONES_IN_SIGTUNA", Gather(empty[0], 1)
        if state.gathered >> seat & 1 and state.sigtuna[seat]:
            yield "ALREADY_GATHERED", Gather(seat, 1)
    elif phase is Phase.GATHER_BLESSED:
        others = [c for c in range(n) if c != state.blessing and state.sigtuna[c]]
        if others:
            yield "NOT_BLESSED", Gather(others[0], 1)
    elif phase is Phase.FEAST_FAVOUR:
        yield "NO_SUCH_PAIR", ChangeStanding(len(state.hierarchy) - 1)
        yield "NO_SUCH_COIN", AnnounceLoyalty(seat, len(state.coins[seat]))
        yield "NO_SUCH_COIN", AnnounceLoyalty(n, 0)
    elif phase is Phase.LEVERAGE_CHOOSE:
        yield "NO_SUCH_BOWL", ChooseBowl(len(REFERENCE.bowl_values), KING)
    elif phase is Phase.KING_RUNESTONE or phase is Phase.SETUP_RUNESTONE:
        yield "CROSSROADS_TAKEN", PlaceRunestone(len(state.runestones), seat)
        taken = [x for x, r in enumerate(state.runestones) if r >= 0]
        if taken:
            yield "CROSSROADS_TAKEN", PlaceRunestone(taken[0], seat)
        free = [x for x, r in enumerate(state.runestones) if r < 0]
        yield "NO_SUCH_STONE", PlaceRunestone(free[0], n)
    elif phase is Phase.PAWN_CHOOSE:
        yield "NO_SUCH_PAWN", MovePawn(len(state.pawns))
    elif phase is Phase.PAWN_RETURN:
        yield "NO_SUCH_STAR", ReturnPawn(len(REFERENCE.star_ids))
    elif phase is Phase.PAY_STONE or phase is Phase.SETUP_SIGTUNA:
        yield "NO_SUCH_STONE", PlaceStone(n)


WANTED = frozenset(
    {
        "NOT_A_CHANCE_STEP",
        "NO_STONES_IN_SIGTUNA",
        "ALREADY_GATHERED",
        "NOT_BLESSED",
        "NO_SUCH_PAIR",
        "NO_SUCH_COIN",
        "NO_SUCH_BOWL",
        "CROSSROADS_TAKEN",
        "NO_SUCH_PAWN",
        "NO_SUCH_STAR",
        "NO_SUCH_STONE",
    }
)


@functools.cache
def found() -> dict[str, list[tuple[State, Any]]]:
    """Every probe of the seeded games, by reason (random legal moves; chance drawn by the RNG)."""
    cases: dict[str, list[tuple[State, Any]]] = {}
    for players, seed in GAMES:
        pick = random.Random(seed)
        state = GAME.new_game(players, Options(), Rng.from_seed(seed))
        for _ in range(MAX_PLIES):
            for reason, move in probes(state):
                cases.setdefault(reason, []).append((state, move))
            if state.phase is Phase.OVER:
                break
            state, _ = GAME.apply(state, pick.choice(list(GAME.legal_moves(state))))
    return cases


def test_the_probes_cover_every_pax_penning_reason_but_the_fallback() -> None:
    assert set(REASONS) - {"NOT_A_LEGAL_MOVE"} >= WANTED
    assert found().keys() >= WANTED, sorted(WANTED - found().keys())


@pytest.mark.parametrize("reason", sorted(WANTED))
def test_pax_penning_refuses_the_move_for_its_reason_with_the_rule(reason: str) -> None:
    """Each case: the move is not listed, ``explain`` gives the reason with a sentence for people,
    and the refusal carries the anchor of the rule (``REASONS[reason].rule``)."""
    cases = found().get(reason, [])
    assert cases, f"no seeded game reached a position refusing a move for {reason}"
    for state, move in cases[:25]:
        assert move not in GAME.legal_moves(state)
        violation = core.validate(GAME, state, move)
        assert violation is not None and violation.reason == reason, (move, violation)
        assert violation.message[0].isupper() and violation.message.endswith("."), violation.message
        assert not violation.message.endswith(".."), violation.message
        with pytest.raises(core.IllegalMove) as raised:
            core.apply(GAME, state, move)
        assert raised.value.rule == REASONS[reason].rule


def test_penki_refuses_a_piece_that_does_not_exist() -> None:
    """Not in the rulebook: the pieces are light, dark and joker; a draw or a placement naming
    another piece (or a drawn pair of other than two pieces) names nothing (NO_SUCH_PIECE)."""
    state = PENKI.new_game(2, PenkiOptions(), Rng.from_seed(3))
    three: Any = (0, 1, 2)  # a malformed pair, as a decoded request could carry
    for draw in (PenkiDraw((0, 9)), PenkiDraw(three)):
        violation = core.validate(PENKI, state, draw)
        assert violation is not None and violation.reason == "NO_SUCH_PIECE", violation
    while state.phase is not PenkiPhase.PLAY:
        state, _ = PENKI.apply(state, PENKI.legal_moves(state)[0])
    place = PlacePair(0, 0, 9, 0)
    assert place not in PENKI.legal_moves(state)
    with pytest.raises(core.IllegalMove) as raised:
        core.apply(PENKI, state, place)
    assert raised.value.reason == "NO_SUCH_PIECE"
    assert raised.value.rule == PENKI_REASONS["NO_SUCH_PIECE"].rule == "docs/rules/penki.md#no-such-piece"
