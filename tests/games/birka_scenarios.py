"""Helpers for the Birka rule scenarios: seeded positions built with the engine's own moves, then
changed with :func:`at`, which checks that the result is a valid state.

Positions start from a seeded game set up with its first listed moves, the first Calendar Card
forced (Marknadsdag by default: it changes nothing after its Market reset), every hand replaced by
:data:`HARD_HAND` (cards no early position fulfils) and, with :func:`base`, the first roll made.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from lawspeaker.games import core
from lawspeaker.games.birka import (
    GAME,
    Draw,
    EndActions,
    Options,
    Phase,
    State,
    fulfilled,
)
from lawspeaker.games.birka.data import REFERENCE as D
from lawspeaker.games.core import Event, Rng

R = {rid: i for i, rid in enumerate(D.resource_ids)}
FISK, KORN, LERA, MALM, ULL, VIRKE = (R[x] for x in ("FISK", "KORN", "LERA", "MALM", "ULL", "VIRKE"))
TRAN, BROD, KERAMIK, JARN, VADMAL, TRAKOL = (
    R[x] for x in ("TRAN", "BROD", "KERAMIK", "JARN", "VADMAL", "TRAKOL")
)
B = {bid: i for i, bid in enumerate(D.building_ids)}
CAL = {cid: i for i, cid in enumerate(D.card_ids)}
RS = {rid: i for i, rid in enumerate(D.runestone_ids)}
TRAL, VERKTYG, HAST = (D.good_ids.index(g) for g in ("TRAL", "VERKTYG", "HAST"))
PLOT = {D.resource_ids[r]: p for p, r in enumerate(D.plot_resources)}  # plot index by its resource
SLOTS = D.slots_per_plot
HARD_CARDS = ("UPGRADES_5", "FULL_PLOT", "STORE_ALL_CRAFTED", "BUILDINGS_3", "STORE_JARN_TRAKOL")
HARD_HAND = tuple(RS[c] for c in HARD_CARDS)  # no position of these tests fulfils them
# Calendar Cards a passive playout reveals when it may choose: those that change no collection or Ration
QUIET_CARDS = tuple(
    CAL[c]
    for c in (
        "MARKNADSDAG",
        "MIDSOMMARBLOT",
        "SKEPPSBYGGARE",
        "FREDLOS",
        "STORMFLOD",
        "GASTABUD",
        "KUNGENS_SKATT",
        "SILLSTIM",
        "TORKA",
        "HARD_VINTER",
    )
)


def hand_with(card: str) -> tuple[int, ...]:
    """``card`` and four cards of HARD_HAND."""
    return (RS[card], *[c for c in HARD_HAND if c != RS[card]][:4])


def res(**counts: int) -> tuple[int, ...]:
    """A Visthus row: ``res(LERA=2, MALM=1)``."""
    row = [0] * D.resources
    for name, k in counts.items():
        row[R[name]] = k
    return tuple(row)


def rows(state: State, **seats: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every Visthus with the rows of ``s0=...``, ``s1=...`` replaced."""
    out = list(state.visthus)
    for key, row in seats.items():
        out[int(key[1:])] = row
    return tuple(out)


def at(state: State, **fields: Any) -> State:
    """``state`` with ``fields`` replaced; it must be a valid state."""
    new = state._replace(**fields)
    problems = GAME.check_state(new)
    assert problems == [], problems
    return new


def with_hands(state: State, hands: dict[int, Sequence[int]]) -> State:
    """Seats' hands replaced (their decks hold every other card); fulfilled cards are completed."""
    hs, ds = list(state.hands), list(state.decks)
    for s, cards in hands.items():
        hs[s] = tuple(sorted(cards))
        ds[s] = tuple(c for c in range(len(D.runestone_ids)) if c not in cards)
    new = state._replace(hands=tuple(hs), decks=tuple(ds))
    completed = tuple(tuple(c for c in new.hands[s] if fulfilled(new, s, c, D)) for s in range(new.players))
    return at(new, completed=completed)


def started(
    players: int = 2, seed: int = 1, card: str = "MARKNADSDAG", options: Options | None = None
) -> State:
    """A game set up up to the roll of its first Turn, with ``card`` as the first Calendar Card."""
    state = GAME.new_game(players, options or Options(), Rng.from_seed(seed))
    while state.phase is not Phase.CALENDAR:
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    state = with_hands(state, {s: HARD_HAND for s in range(players)})
    state, _ = play(state, Draw(CAL[card]))
    while state.phase is not Phase.ROLL:
        state, _ = play(state, GAME.legal_moves(state)[0])
    return state


def base(players: int = 2, seed: int = 1, die: int = 1, card: str = "MARKNADSDAG") -> State:
    """:func:`started`, then the roll of ``die``: the Starting Player's actions of the first Turn."""
    state, _ = play(started(players, seed, card), Draw(die))
    assert state.phase is Phase.ACTIONS
    return state


def acting(state: State, seat: int, hands: dict[int, Sequence[int]] | None = None, **fields: Any) -> State:
    """``seat`` taking their actions now (as many as their Skepp unless ``actions_left`` is given),
    with ``fields`` replaced and, if given, ``hands`` (see :func:`with_hands`)."""
    skepp = fields.get("skepp", state.skepp)
    fields.setdefault("actions_left", skepp[seat])
    step = (seat - state.starter) % state.players
    new = state._replace(phase=Phase.ACTIONS, actor=seat, step=step, **fields)
    return with_hands(new, hands) if hands else at(new)


def play(state: State, *moves: Any) -> tuple[State, list[Event]]:
    """Apply legal moves through the shared core; every state on the way must be valid."""
    events: list[Event] = []
    for move in moves:
        violation = core.validate(GAME, state, move)
        assert violation is None, (move, violation)
        state, more = core.apply(GAME, state, move)
        problems = GAME.check_state(state)
        assert problems == [], problems
        events += more
    return state, events


def refused(state: State, move: Any, reason: str) -> str:
    """The move is not listed and is refused with ``reason``; returns the message."""
    assert move not in GAME.legal_moves(state)
    violation = core.validate(GAME, state, move)
    assert violation is not None and violation.reason == reason, violation
    assert violation.message[0].isupper() and len(violation.message) > 10
    return violation.message


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def advance(
    state: State, stop: Callable[[State], bool], die: int = 1, limit: int = 5000
) -> tuple[State, list[Event]]:
    """Play passively until ``stop(state)``: rolls show ``die``, players end their actions at once, the
    calendar reveals the first of QUIET_CARDS left, any other decision takes the first listed move
    (server draws for secret cards)."""
    events: list[Event] = []
    for _ in range(limit):
        if stop(state) or GAME.outcome(state) is not None:
            return state, events
        if state.phase is Phase.ROLL:
            move: Any = Draw(die)
        elif state.phase is Phase.CALENDAR:
            left = state.calendar or tuple(range(len(D.card_ids)))
            move = Draw(next(c for c in QUIET_CARDS if c in left))
        elif state.phase is Phase.ACTIONS:
            move = EndActions()
        else:
            move = GAME.legal_moves(state)[0]
        state, more = play(state, move)
        events += more
    raise AssertionError("the position was not reached")


def random_playout(
    players: int,
    options: Options,
    seed: int,
    pick: int,
    policy: Callable[[random.Random, Sequence[Any]], Any],
) -> list[State]:
    """A playout choosing moves with ``policy``; the states visited (first to last)."""
    rng = random.Random(pick)
    state = GAME.new_game(players, options, Rng.from_seed(seed))
    states = [state]
    for _ in range(20_000):
        if GAME.outcome(state) is not None:
            return states
        moves = GAME.legal_moves(state)
        assert moves, "a game that is not over lists a move"
        state, _ = GAME.apply(state, policy(rng, moves))
        states.append(state)
    raise AssertionError("a playout did not end within 20,000 plies")
