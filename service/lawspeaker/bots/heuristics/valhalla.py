"""The greedy bot's value of a Valhalla position, for one seat (``docs/rules/valhalla.md``, "Greedy
bot: what it values").

Valhalla is a race with contact: six ships a side run from their start to space 36. The value is a
race estimate: the pips (spaces) each fleet still has to sail, plus what the position is likely to
cost it in pips (an opponent's hit next cast, a ship waiting in the repair yard), turned into turns
with the mean and spread of a turn's points, and then into a chance of finishing first. Valhalla
has no hidden information, so the viewed state is the whole state.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

from lawspeaker.games.valhalla import (
    ALL_STICKS,
    DARK,
    FIRST_DARK_FROM,
    FIRST_DARK_TO,
    GAME,
    GATE,
    LAYOUT_DARK,
    LAYOUT_LIGHT,
    LIGHT,
    SHIPS,
    Options,
    Phase,
    State,
    is_natural_one,
    protection,
    score,
)

#: Half a turn for the seat that casts next: in a race the side on roll is that much ahead on average.
TEMPO = 0.5
#: Spread added (in turns squared) so that the estimate stays smooth when both fleets are nearly home.
BASE_VARIANCE = 1.0
#: How much wider than the sticks alone the race's spread is: backward moves, the rocky shoal and
#: blocked casts add their own luck (fitted, with CONTACT_VARIANCE, to the results of 600 greedy and
#: random games).
DICE_SPREAD = 4.0
#: Spread (in turns squared) per pair of opposing ships still sailing: any such pair may still meet,
#: and a hit swaps the two ships, so a lead in pips is worth little while many ships are at sea.
CONTACT_VARIANCE = 64.0
#: What a second (third, ...) hit open to the attacker's cast counts, against 1 for the one it makes.
LATER_HITS = 0.25
#: 1.702 makes the logistic curve within 0.01 of the normal distribution's, and is cheaper.
LOGISTIC = 1.702


class _Sticks:
    """What the options make of a cast, worked out once per set of options."""

    __slots__ = ("chance", "natural_one", "turn_mean", "turn_variance")

    def __init__(self, options: Options) -> None:
        chance = [0.0] * 6  # chance[k]: the chance that a cast scores k points (0-5)
        natural_one = 0.0
        again = 0.0
        for sticks in ALL_STICKS:
            points, _ = score(sticks, options)
            chance[points] += 1 / len(ALL_STICKS)
            one = is_natural_one(sticks, options)
            natural_one += one / len(ALL_STICKS)
            if options.doubles and (points in (4, 5) or one):
                again += 1 / len(ALL_STICKS)
        mean = sum(k * p for k, p in enumerate(chance))
        variance = sum(k * k * p for k, p in enumerate(chance)) - mean * mean
        # With doubles a turn is a run of casts that ends on the first cast that does not throw
        # again: its points are a compound of a geometric count of casts.
        casts = 1 / (1 - again)
        self.chance = tuple(chance)
        self.natural_one = natural_one
        self.turn_mean = mean * casts
        self.turn_variance = variance * casts + mean * mean * again * casts * casts


@cache
def _sticks(options: Options) -> _Sticks:
    return _Sticks(options)


def value(state: State, seat: int) -> float:
    """The seat's prospects in ``state`` (as the seat sees it): 1.0 won, 0.0 lost, else the estimated
    chance of sailing all six ships into Valhalla first."""
    outcome = GAME.outcome(state)
    if outcome is not None:
        return 1 / len(outcome.winners) if seat in outcome.winners else 0.0
    if state.dark_seat < 0:
        return _before_colours(state, seat)
    return _race(state, DARK if seat == state.dark_seat else LIGHT)


def _before_colours(state: State, seat: int) -> float:
    """While colours are chosen (layout start), either seat may end up dark: the seat on turn takes
    dark with chance 1 / (2 - p) for p the chance of a natural one, casts alternating."""
    p = _sticks(state.options).natural_one
    dark_first = 1 / (2 - p)
    positions = list(LAYOUT_LIGHT + LAYOUT_DARK)
    positions[DARK * SHIPS + LAYOUT_DARK.index(FIRST_DARK_FROM)] = FIRST_DARK_TO
    # Colours chosen, the light seat casts first.
    chosen = State(
        state.options, Phase.CAST, 0, 1, tuple(positions), state.repair, None, 0, -1, state.ply, state.rng
    )
    as_dark = _race(chosen, DARK)
    seat_dark = dark_first if seat == state.turn else 1 - dark_first
    return seat_dark * as_dark + (1 - seat_dark) * (1 - as_dark)


def _race(state: State, colour: int) -> float:
    """The chance that ``colour`` finishes first, from the race in pips."""
    sticks = _sticks(state.options)
    mover = DARK if state.turn == state.dark_seat else LIGHT
    pips = [_pips(state, c, sticks) for c in (LIGHT, DARK)]
    if state.phase is Phase.CAST:
        # The side casting next threatens the other's unprotected ships with whatever it casts.
        pips[1 - mover] += _threat(state, mover, sticks.chance)
    else:
        # A cast (or points left over) is in hand: count them as sailed, and the one hit they may make.
        pips[mover] -= state.points
        exact = [0.0] * (state.points + 1)
        exact[state.points] = 1.0
        pips[1 - mover] += _threat(state, mover, exact)
    turns = [max(p, 0.0) / sticks.turn_mean for p in pips]
    if state.phase is Phase.CAST:
        turns[mover] -= TEMPO
    else:
        turns[1 - mover] -= TEMPO
    spread = (
        DICE_SPREAD * (pips[LIGHT] + pips[DARK]) * sticks.turn_variance / sticks.turn_mean**3
        + CONTACT_VARIANCE * _sailing(state, LIGHT) * _sailing(state, DARK)
        + BASE_VARIANCE
    )
    lead = (turns[1 - colour] - turns[colour]) / math.sqrt(spread)
    return 1 / (1 + math.exp(-LOGISTIC * lead))


def _sailing(state: State, colour: int) -> int:
    """The number of the fleet's ships not yet in Valhalla."""
    return SHIPS - state.positions[colour * SHIPS : colour * SHIPS + SHIPS].count(GATE)


def _pips(state: State, colour: int, sticks: _Sticks) -> float:
    """The spaces the fleet still has to sail, plus the expected wait of a ship under repair."""
    base = colour * SHIPS
    fleet = state.positions[base : base + SHIPS]
    to_sail = float(sum(GATE - p for p in fleet))
    for k in range(SHIPS):
        if state.repair[base + k]:
            # The other ships use the casts meanwhile; the wait costs only what is left of it when
            # they are home: (1 - p) ** T / p turns, T the turns the other ships still need.
            p = sticks.natural_one
            others = (to_sail - (GATE - fleet[k])) / sticks.turn_mean
            to_sail += (1 - p) ** others / p * sticks.turn_mean
    return to_sail


def _threat(state: State, attacker: int, chance: Sequence[float]) -> float:
    """The pips the defender expects to lose to hits by ``attacker``, with ``chance[k]`` the chance of
    moving k. A hit swaps the two ships, so the defender's ship goes back k spaces. The attacker
    takes one hit a move when one is there; every further hit it could have made counts
    LATER_HITS as much, for the open ships stay open to later casts."""
    positions = state.positions
    defender = 1 - attacker
    fleet = positions[attacker * SHIPS : attacker * SHIPS + SHIPS]
    repair = state.repair[attacker * SHIPS : attacker * SHIPS + SHIPS]
    open_ships = [
        p for p in positions[defender * SHIPS : defender * SHIPS + SHIPS] if _exposed(state, p, defender)
    ]
    if not open_ships:
        return 0.0
    # A ship under repair can leave only on a natural one; it is left out of the threat for speed.
    sources = {p for p, r in zip(fleet, repair, strict=True) if p < GATE and not r}
    lost = 0.0
    for k in range(1, len(chance)):
        if chance[k]:
            hits = sum(1 for s in open_ships if s - k in sources)
            if hits:
                lost += chance[k] * k * (1 + LATER_HITS * (hits - 1))
    return lost


def _exposed(state: State, space: int, colour: int) -> bool:
    """Whether a ship of ``colour`` on ``space`` could be hit: on the board, and neither in a safe
    harbour, nor in a blockade, nor (enter start) on an entry space."""
    return 0 < space < GATE and protection(state, space, colour) is None
