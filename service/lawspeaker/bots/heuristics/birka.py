"""The ``greedy`` bot's value of a Birka position for one seat (see ``docs/rules/birka.md``, "Greedy bot:
what it values"; the weights are a decision of this project, not a rule).

Each seat gets an estimate of the points it will end with: for the seat itself, its own Runestone Cards
(completed ones in full, the others by how far its Byn has come towards them); for every other seat,
whose cards it cannot see, the points the public Byn already fulfils, weighted by the chance that a
random hand holds each card. A few assets that bring points later (Skepp, buildings, upgrades, the
extension, resources, food for the Rations) are added for every seat alike. The estimates become a
share of the victory with a softmax whose temperature falls as the game nears its end, so the same
lead counts for more late in the game.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from lawspeaker.games.birka import (
    GAME,
    HIDDEN,
    STARVING,
    Phase,
    State,
    capacity,
    possible,
    ration_cost,
)
from lawspeaker.games.birka.data import (
    BUILD,
    BUILDINGS,
    EXTENSION,
    NOTHING,
    SKEPP,
    STORE,
    UPGRADES,
    Data,
    Price,
    data_for,
)

__all__ = ["value"]

PARTIAL = 0.5  # share of a card's points an unfinished card is worth at full progress short of done
RAW = 0.1  # points a Raw Resource is worth as such (half a crafted one: two make one)
CRAFTED = 0.25  # points a Crafted Resource is worth as such
SKEPP_WORTH = 1.0  # an extra action every Turn
BUILDING_WORTH = 0.8  # payments from other players, BUILDINGS cards, a BUILD card denied to others
UPGRADE_WORTH = 0.6  # one more dice token: about one more resource every six Turns
EXTENSION_WORTH = 0.4  # four more Visthus slots
FED_WORTH = 0.8  # holding this round's Ration: no starvation next round
STARVING_COST = 2.0  # a round with nearly every action closed
T_END, T_START = 1.0, 5.0  # softmax temperature (points) at the end and at the start of the game


def value(state: State, seat: int) -> float:
    """``seat``'s prospects in ``state`` (as the seat sees it), from 0.0 (lost) to 1.0 (won)."""
    outcome = GAME.outcome(state)
    if outcome is not None:
        return 1.0 / len(outcome.winners) if seat in outcome.winners else 0.0
    data = data_for(state.options.data)
    done = _progress_of_game(state, data)
    temperature = T_END + (T_START - T_END) * (1.0 - done)
    estimates = [
        (_own_points(state, s, data) if s == seat else _expected_points(state, s, data))
        + _assets(state, s, data)
        for s in range(state.players)
    ]
    top = max(estimates)
    weights = [math.exp((e - top) / temperature) for e in estimates]
    return weights[seat] / sum(weights)


def _progress_of_game(state: State, data: Data) -> float:
    """How much of the game is played, 0.0 to 1.0 (by Turns; the game may also end earlier)."""
    turns = data.turns_per_round
    total = state.options.calendar_rounds * turns
    return min(1.0, ((state.round - 1) * turns + state.turn - 1) / total)


# --------------------------------------------------------------------------- Runestone Cards


class _Byn(NamedTuple):
    """What one seat's cards depend on, counted once per call (the cards share it)."""

    seat: int
    row: tuple[int, ...]
    owned: int  # buildings owned
    skepp: int  # Skepp bought
    upgraded: tuple[int, ...]  # per upgrade good: plot slots upgraded with it
    fullest: int  # the most slots filled on one plot
    next_upgrade: tuple[float, ...]  # per upgrade good: the share of its next purchase held
    next_building: float  # the share held of the cheapest-to-finish free building


def _byn(state: State, seat: int, data: Data) -> _Byn:
    row = state.visthus[seat]
    prices = data.prices_for(state.card)
    plots = state.plots[seat]
    size = data.slots_per_plot
    goods = range(len(data.good_ids))
    next_upgrade = []
    for g in goods:
        b = data.good_building[g]
        if data.ownable[b] and state.owners[b] < 0:  # it must be built (by anyone) before it sells
            next_upgrade.append(0.5 * _held(row, prices.build[b]))
        else:
            next_upgrade.append(_held(row, prices.use[b]))
    free = [prices.build[b] for b, o in enumerate(state.owners) if o < 0 and data.ownable[b]]
    return _Byn(
        seat,
        row,
        sum(1 for o in state.owners if o == seat),
        state.skepp[seat] - data.skepp_start,
        tuple(sum(1 for i in range(1 + g, len(plots), size) if plots[i]) for g in goods),
        max(sum(1 for t in plots[p : p + size] if t) for p in range(0, len(plots), size)),
        tuple(next_upgrade),
        max((_held(row, price) for price in free), default=0.0),
    )


def _own_points(state: State, seat: int, data: Data) -> float:
    """The seat's own cards: completed ones in full, the others by progress; the best ones count."""
    byn = _byn(state, seat, data)
    completed = state.completed[seat]
    worth = [float(data.runestone_points[c]) for c in completed]
    worth += [_card_worth(state, byn, c, data) for c in state.hands[seat] if c not in completed]
    if state.actor == seat and state.phase in (Phase.TINGET_DRAW, Phase.TINGET_KEEP):
        worth.append(_pending_card(state, byn, data))
    worth.sort(reverse=True)
    return sum(worth[: data.best_cards])


def _pending_card(state: State, byn: _Byn, data: Data) -> float:
    """A card being bought at Tinget: the better of the two drawn (the unseen ones at the deck's mean)."""
    deck = [c for c in state.decks[byn.seat] if c != HIDDEN]
    mean = sum(_card_worth(state, byn, c, data) for c in deck) / len(deck) if deck else 0.0
    seen = [_card_worth(state, byn, c, data) for c in state.drawn if c != HIDDEN]
    return max([mean, *seen])


def _expected_points(state: State, seat: int, data: Data) -> float:
    """Another seat's cards are hidden: every card at its worth to that seat, times the chance that a
    random hand of its size holds it."""
    byn = _byn(state, seat, data)
    cards = len(data.runestone_ids)
    share = min(len(state.hands[seat]), cards) / cards
    return share * sum(_card_worth(state, byn, c, data) for c in range(cards))


def _card_worth(state: State, byn: _Byn, card: int, data: Data) -> float:
    """Points of a card not yet completed: in full when fulfilled, else a part by progress (nothing
    when it can no longer be completed)."""
    points = data.runestone_points[card]
    cond = data.conditions[card]
    kind = cond.kind
    row = byn.row
    if kind == BUILD:
        owner = state.owners[cond.building]
        if owner == byn.seat:
            return float(points)
        if owner >= 0:
            return 0.0
        return PARTIAL * points * _held(row, data.prices_for(state.card).build[cond.building])
    if kind == STORE:
        held = _held(row, cond.resources)
        return float(points) if held >= 1.0 else PARTIAL * points * held
    if kind == EXTENSION:
        if state.extension[byn.seat]:
            return float(points)
        return PARTIAL * points * _held(row, data.prices_for(state.card).extension)
    if kind == SKEPP:
        have, need = byn.skepp, cond.count - data.skepp_start
        part = _held(row, data.prices_for(state.card).skepp)
    elif kind == BUILDINGS:
        if not possible(state, byn.seat, card, data):
            return 0.0
        have, need, part = byn.owned, cond.count, byn.next_building
    elif kind == UPGRADES:
        if cond.good == NOTHING:
            have, part = sum(byn.upgraded), max(byn.next_upgrade)
        else:
            have, part = byn.upgraded[cond.good], byn.next_upgrade[cond.good]
        need = cond.count
    else:  # FULL_PLOT: the fullest plot (more than one full plot is not counted on)
        have, need, part = byn.fullest - 1, data.slots_per_plot - 1, max(byn.next_upgrade)
        if cond.count > 1:
            return 0.0
    if have >= need:
        return float(points)
    return PARTIAL * points * (max(have, 0) + part) / need


def _held(row: tuple[int, ...], price: Price) -> float:
    """The share of ``price`` the Visthus holds."""
    total = 0
    held = 0
    for r, n in price:
        total += n
        held += row[r] if row[r] < n else n
    return held / total if total else 1.0


# --------------------------------------------------------------------------- assets


def _assets(state: State, seat: int, data: Data) -> float:
    """What brings points later, counted alike for every seat (all of it is public)."""
    row = state.visthus[seat]
    size = data.slots_per_plot
    upgraded = sum(1 for i, t in enumerate(state.plots[seat]) if t and i % size)
    goods = sum(RAW * n if data.is_raw[r] else CRAFTED * n for r, n in enumerate(row))
    # a full Visthus collects nothing more: resources beyond its slots are worth little
    room = capacity(state, seat, data)
    if sum(row) > room:
        goods *= room / sum(row)
    points = (
        SKEPP_WORTH * (state.skepp[seat] - data.skepp_start)
        + BUILDING_WORTH * sum(1 for o in state.owners if o == seat)
        + UPGRADE_WORTH * upgraded
        + (EXTENSION_WORTH if state.extension[seat] else 0.0)
        + goods
    )
    if state.starving[seat] == STARVING:
        points -= STARVING_COST
    elif state.round < state.options.calendar_rounds and _can_feed(state, seat, data):
        points += FED_WORTH
    return points


def _can_feed(state: State, seat: int, data: Data) -> bool:
    """The seat holds what this round's Rations cost."""
    food, bread = ration_cost(state, data)
    row = state.visthus[seat]
    return sum(row[f] for f in data.food) >= food or row[data.bread] >= bread
