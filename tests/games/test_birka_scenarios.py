# ruff: noqa: RUF002  (the docstrings quote the rulebook verbatim, en dashes included)
"""Independent rule scenarios for the Birka engine, written from the rulebook.

Every test quotes, in its docstring, the rulebook sentence it checks (``shared/rulebooks/birka.txt``);
where the rulebook is silent or lost its numbers the test names the recorded decision it relies on
(``lawspeaker.games.birka.ASSUMPTIONS``, ``docs/rules/birka.md``).

The expectations are worked out here from the rulebook and the printed components, which are read
straight from the JSON files beside the engine (prices, payments, cards, die faces): nothing is taken
from the engine's rule code. Positions are reached by playing the engine from ``new_game`` with
explicit chance outcomes (``Draw(outcome)``, ``DrawCard(index)``) and chosen moves, and by
``State._replace`` edits that are checked with ``check_state``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from lawspeaker.games import core
from lawspeaker.games.birka import (
    ASSUMPTIONS,
    FED,
    GAME,
    HIDDEN,
    RECOVERED,
    REFERENCE,
    STARVING,
    AcquireRunestone,
    Build,
    BuildExtension,
    BuySkepp,
    Collect,
    Craft,
    Discard,
    Draw,
    DrawCard,
    EndActions,
    KeepCard,
    MarketTrade,
    Options,
    OutlawTrade,
    PayLevy,
    PayRation,
    PayTribute,
    Phase,
    PlaceToken,
    State,
    StopCollecting,
    TakeTribute,
    Upgrade,
    possible,
)
from lawspeaker.games.core import Event, IllegalMove, LawspeakerError, Result, Rng

# --------------------------------------------------------------------------- the printed components

DATA = Path(__file__).resolve().parents[2] / "service" / "lawspeaker" / "games" / "birka"


def _json(name: str) -> Any:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


RESOURCES = _json("resources")
BYN = _json("byn")
BIRKA = _json("birka")
CALENDAR = _json("calendar")
RUNESTONES = _json("runestones")

RES_IDS = [r["id"] for r in RESOURCES["raw"]] + [r["id"] for r in RESOURCES["crafted"]]
N_RES = len(RES_IDS)
RAW = [r["id"] for r in RESOURCES["raw"]]
R = {rid: i for i, rid in enumerate(RES_IDS)}
FISK, KORN, LERA, MALM, ULL, VIRKE = (R[x] for x in RAW)
TRAN, BROD, KERAMIK, JARN, VADMAL, TRAKOL = (R[r["id"]] for r in RESOURCES["crafted"])
BUILDINGS = {b["id"]: b for b in BIRKA["buildings"]}
B = {b["id"]: i for i, b in enumerate(BIRKA["buildings"])}
CAL = {c["id"]: i for i, c in enumerate(CALENDAR["cards"])}
CARDS = RUNESTONES["cards"]
RS = {c["id"]: i for i, c in enumerate(CARDS)}
POINTS = {c["id"]: c["points"] for c in CARDS}
GOODS = [g["id"] for g in BYN["upgrades"]]
TRAL, VERKTYG, HAST = (GOODS.index(g) for g in ("TRAL", "VERKTYG", "HAST"))
PLOT = {p["resource"]: i for i, p in enumerate(BYN["plots"])}  # plot index by its resource
START_TOKEN = {p["resource"]: p["start_token"] for p in BYN["plots"]}
SLOTS = 1 + len(GOODS)  # the starting token and one slot per upgrade good
FACE = {i + 1: R[rid] for i, rid in enumerate(RESOURCES["die_faces"])}  # die face -> resource
TOTAL = [RESOURCES["supply"]["raw"]] * len(RAW) + [RESOURCES["supply"]["crafted"]] * len(RESOURCES["crafted"])
# a hand that no position of these tests fulfils by accident
HARD = ("UPGRADES_5", "FULL_PLOT", "STORE_ALL_CRAFTED", "BUILDINGS_3", "STORE_JARN_TRAKOL")
ASSUMPTION_IDS = {a.id for a in ASSUMPTIONS}
UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$")


def price(item: dict[str, int]) -> tuple[int, ...]:
    """A printed price ({"LERA": 2, ...}) as a per-resource row."""
    row = [0] * N_RES
    for rid, n in item.items():
        row[R[rid]] += n
    return tuple(row)


def res(**counts: int) -> tuple[int, ...]:
    """A Visthus row: ``res(LERA=2, MALM=1)``."""
    return price(counts)


def plus(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def minus(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    return tuple(x - y for x, y in zip(a, b, strict=True))


def one(r: int) -> tuple[int, ...]:
    row = [0] * N_RES
    row[r] = 1
    return tuple(row)


def uses(*ids: str) -> None:
    """The recorded decisions a test relies on exist."""
    for i in ids:
        assert i in ASSUMPTION_IDS, i


def supply(state: State, r: int) -> int:
    """The supply pile of ``r``: every token not in a Visthus or the Market (assumption SUPPLY)."""
    return TOTAL[r] - sum(v[r] for v in state.visthus) - state.market[r]


# --------------------------------------------------------------------------- positions


def edit(state: State, **fields: Any) -> State:
    """``state`` with ``fields`` replaced; the result must be a valid state."""
    new = state._replace(**fields)
    problems = GAME.check_state(new)
    assert problems == [], problems
    return new


def put(t: Sequence[Any], i: int, v: Any) -> tuple[Any, ...]:
    return (*t[:i], v, *t[i + 1 :])


def go(state: State, *moves: Any) -> State:
    return run(state, *moves)[0]


def run(state: State, *moves: Any) -> tuple[State, list[Event]]:
    """Apply legal moves through the shared core; every state on the way must be valid."""
    events: list[Event] = []
    for move in moves:
        violation = core.validate(GAME, state, move)
        assert violation is None, (move, violation)
        state, more = core.apply(GAME, state, move)
        assert GAME.check_state(state) == []
        events += more
    return state, events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def refused(state: State, move: Any, reason: str, *words: str) -> str:
    """The move is not listed, is refused with ``reason`` and a sentence that names the rule (every one
    of ``words`` appears in it); ``core.apply`` raises. Returns the message."""
    assert move not in GAME.legal_moves(state)
    violation = core.validate(GAME, state, move)
    assert violation is not None, move
    assert violation.reason == reason, violation
    assert UPPER_SNAKE.match(violation.reason)
    message = violation.message
    assert (
        (message[0].isupper() or message[0].isdigit())
        and message.rstrip().endswith(".")
        and len(message) > 20
    )
    for w in words:
        assert w.lower() in message.lower(), (w, message)
    with pytest.raises(IllegalMove):
        core.apply(GAME, state, move)
    return message


def deal_indices(cards: Sequence[str]) -> list[int]:
    """The ``DrawCard`` indices that deal ``cards`` in order from a full deck sorted by card number."""
    deck = list(range(len(CARDS)))
    out = []
    for c in cards:
        out.append(deck.index(RS[c]))
        deck.remove(RS[c])
    return out


def setup(
    players: int = 2,
    starter: int = 0,
    card: str = "MIDSOMMARBLOT",
    hands: dict[int, Sequence[str]] | None = None,
    options: Options | None = None,
    seed: int = 2024,
) -> State:
    """A new game set up with explicit chance outcomes: the hands (HARD unless given), the Starting
    Player and the first Calendar Card."""
    state = GAME.new_game(players, options or Options(), Rng.from_seed(seed))
    for seat in range(players):
        for i in deal_indices((hands or {}).get(seat, HARD)):
            assert state.phase is Phase.SETUP_DEAL
            assert GAME.to_act(state).players == (seat,)
            state = go(state, DrawCard(i))
    assert state.phase is Phase.SETUP_START
    state = go(state, Draw(starter))
    assert state.phase is Phase.CALENDAR
    return go(state, Draw(CAL[card]))


def acting(state: State, seat: int, **fields: Any) -> State:
    """``seat`` taking their actions now (as many as their Skepp unless ``actions_left`` is given)."""
    skepp = fields.get("skepp", state.skepp)
    fields.setdefault("actions_left", skepp[seat])
    if state.die == 0:  # a position before the first roll: the yellow die shows a 6
        fields.setdefault("die", 6)
        fields.setdefault("yellow", 6)
    step = (seat - state.starter) % state.players
    return edit(state, phase=Phase.ACTIONS, actor=seat, step=step, **fields)


def vis(state: State, **seats: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every Visthus with those of ``s0=...``, ``s1=...`` replaced."""
    out = list(state.visthus)
    for key, row in seats.items():
        out[int(key[1:])] = row
    return tuple(out)


def own(state: State, **buildings: int) -> tuple[int, ...]:
    """The owners with ``KOLMILA=1`` etc. set."""
    owners = list(state.owners)
    for bid, seat in buildings.items():
        owners[B[bid]] = seat
    return tuple(owners)


def with_hands(state: State, hands: dict[int, tuple[Sequence[str], Sequence[str]]], **fields: Any) -> State:
    """Seats hold ``hands[seat] = (cards, completed)`` (their deck every other card), with ``fields``
    replaced in the same edit."""
    hs, ds, cs = list(state.hands), list(state.decks), list(state.completed)
    for seat, (cards, done) in hands.items():
        hs[seat] = tuple(sorted(RS[c] for c in cards))
        ds[seat] = tuple(c for c in range(len(CARDS)) if c not in hs[seat])
        cs[seat] = tuple(sorted(RS[c] for c in done))
    return edit(state, hands=tuple(hs), decks=tuple(ds), completed=tuple(cs), **fields)


def advance(
    state: State,
    stop: Callable[[State], bool],
    die: int = 3,
    cards: Sequence[str] = ("MIDSOMMARBLOT", "SKEPPSBYGGARE", "FREDLOS", "STORMFLOD", "MARKNADSDAG"),
    limit: int = 20_000,
) -> tuple[State, list[Event]]:
    """Play passively until ``stop(state)``: every roll shows ``die``, players end their actions at once,
    a Calendar Card is the first of ``cards`` not yet revealed (else the first left), any other decision
    takes the first listed move."""
    events: list[Event] = []
    for _ in range(limit):
        if stop(state) or state.phase is Phase.OVER:
            return state, events
        if state.phase is Phase.ROLL:
            move: Any = Draw(die)
        elif state.phase is Phase.CALENDAR:
            left = [c.move.outcome for c in GAME.chance(state).outcomes]  # type: ignore[union-attr]
            move = Draw(next((CAL[c] for c in cards if CAL[c] in left), left[0]))
        elif state.phase is Phase.ACTIONS:
            move = EndActions()
        else:
            move = GAME.legal_moves(state)[0]
        state, more = run(state, move)
        events += more
    raise AssertionError("the position was not reached")


def roll(state: State, die: int) -> tuple[State, list[Event]]:
    assert state.phase is Phase.ROLL
    return run(state, Draw(die))


# --------------------------------------------------------------------------- setup


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_five_hidden_runestones_one_bread_one_clay_and_one_token_a_market_row(players: int) -> None:
    """1. Player icon: Each Player selects a Player icon , and picks up: • 1 Byn Board • 10 Icon Tokens
    • 5 random Runestone Cards (keep hidden from other players) 2. Initial Resources: Place 1 Bröd and 1
    Lera in your Visthus Slots . ... Place 1 resource of each type in the first Slot of both Raw Market
    and Crafted Market, unless the revealed Calendar Card states otherwise.
    (Assumptions PLAYER_COUNT, SETUP_ORDER, RUNESTONE_DECKS, MARKET_RESET.)"""
    uses("PLAYER_COUNT", "SETUP_ORDER", "RUNESTONE_DECKS", "MARKET_RESET")
    state = GAME.new_game(players, Options(), Rng.from_seed(players))
    assert state.phase is Phase.SETUP_DEAL
    for seat in range(players):
        for k in range(5):
            chance = GAME.chance(state)
            assert chance is not None
            # a random card of the player's own deck of the whole set, every card equally likely
            assert len(chance.outcomes) == len(CARDS) - k
            assert {round(o.probability * (len(CARDS) - k), 9) for o in chance.outcomes} == {1.0}
            assert GAME.to_act(state).players == (seat,)
            state = go(state, DrawCard(0))  # every player gets the lowest cards: the same set
    assert state.hands == (tuple(range(5)),) * players
    assert state.visthus == (res(BROD=1, LERA=1),) * players
    assert state.skepp == (1,) * players
    state = go(state, Draw(players - 1), Draw(CAL["SILLSTIM"]))
    assert state.market == (1,) * N_RES
    # hidden from the other players: only their number shows
    for seat in range(players):
        view = GAME.view(state, seat)
        for other in range(players):
            expected = tuple(range(5)) if other == seat else (HIDDEN,) * 5
            assert view.hands[other] == expected


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_the_dice_determine_the_starting_player(players: int) -> None:
    """3. Starting Player: Let the Dice determine the Starting Player.
    1. The Roll: The Starting Player rolls the yellow Dice ...
    (Assumption SETUP_ORDER.)"""
    uses("SETUP_ORDER")
    state = GAME.new_game(players, Options(), Rng.from_seed(9))
    while state.phase is Phase.SETUP_DEAL:
        state = go(state, DrawCard())
    chance = GAME.chance(state)
    assert chance is not None
    assert [o.move for o in chance.outcomes] == [Draw(s) for s in range(players)]
    assert all(abs(o.probability - 1 / players) < 1e-12 for o in chance.outcomes)
    for starter in range(players):
        s = go(state, Draw(starter), Draw(CAL["MIDSOMMARBLOT"]))
        assert s.phase is Phase.ROLL and s.starter == starter
        assert GAME.to_act(s).players == (starter,) and GAME.to_act(s).chance
    refused(state, Draw(players), "NO_SUCH_OUTCOME")


def test_setup_marknadsdag_as_the_first_card_states_otherwise_for_the_market() -> None:
    """Place 1 resource of each type in the first Slot of both Raw Market and Crafted Market, unless the
    revealed Calendar Card states otherwise. (Marknadsdag: 2 in every Raw row, 1 in every Crafted row;
    assumptions SETUP_ORDER, MARKET_RESET, CALENDAR_CARDS.)"""
    uses("SETUP_ORDER", "MARKET_RESET", "CALENDAR_CARDS")
    state = setup(2, card="MARKNADSDAG")
    stock = CALENDAR["cards"][CAL["MARKNADSDAG"]]["effects"][0]
    assert state.market == (stock["raw"],) * len(RAW) + (stock["crafted"],) * (N_RES - len(RAW))


# --------------------------------------------------------------------------- the roll and the collection


def test_the_yellow_die_first_then_the_grey_die_and_the_starting_player_rotates_clockwise() -> None:
    """1. The Roll: The Starting Player rolls the yellow Dice and places it on the Calendar Board in the
    first Dice Slot . ... 5. The next player in clockwise order becomes the Starting Player and starts a
    new Turn with the grey Dice . (Assumptions YELLOW_AND_GREY_DIE, TURN_ORDER.)"""
    uses("YELLOW_AND_GREY_DIE", "TURN_ORDER")
    state = setup(3, starter=2)
    chance = GAME.chance(state)
    assert chance is not None and "yellow" in chance.description.lower()
    assert [o.move for o in chance.outcomes] == [Draw(v) for v in range(1, 7)]
    state, events = roll(state, 4)
    assert (state.yellow, state.die) == (4, 4)
    assert "yellow" in next(e for e in events if e.kind == "DIE_ROLLED").text.lower()
    starters = [state.starter]
    for turn in range(2, 13):
        state = advance(state, lambda s: s.phase is Phase.ROLL)[0]
        assert state.turn == turn
        chance = GAME.chance(state)
        assert chance is not None and "grey" in chance.description.lower()
        assert GAME.to_act(state).players == (state.starter,)
        state, _ = roll(state, turn % 6 + 1)
        assert state.yellow == 4 and state.die == turn % 6 + 1  # the yellow die stays on its slot
        starters.append(state.starter)
    assert starters == [(2 + t) % 3 for t in range(12)]
    # the next round: the yellow die again, and the rotation goes on
    state = advance(state, lambda s: s.phase is Phase.ROLL)[0]
    assert (state.round, state.turn, state.starter) == (2, 1, (starters[-1] + 1) % 3)
    chance = GAME.chance(state)
    assert chance is not None and "yellow" in chance.description.lower()
    state, _ = roll(state, 6)
    assert state.yellow == 6


def test_collection_gives_the_die_resource_plus_every_matching_dice_token() -> None:
    """2. Resource Collection: All Players collect the Raw Resource matching the Dice result plus any
    Dice Tokens – on their Resource Plot . Place in empty Visthus Slots .
    (Assumptions DIE_FACES, RESOURCE_PLOTS, COLLECTION.)"""
    uses("DIE_FACES", "RESOURCE_PLOTS", "COLLECTION")
    state = setup(3, starter=1)
    # seat 2 has upgraded its Fisk plot's Träl slot with a 1
    plots = put(state.plots, 2, put(state.plots[2], PLOT["FISK"] * SLOTS + 1, 1))
    state = edit(state, plots=plots)
    state, events = roll(state, 1)
    malm_plot = [r for r, t in START_TOKEN.items() if t == 1]
    assert malm_plot == ["MALM"]
    start = res(BROD=1, LERA=1)
    assert state.visthus[0] == plus(start, res(FISK=1, MALM=1))
    assert state.visthus[1] == plus(start, res(FISK=1, MALM=1))
    assert state.visthus[2] == plus(start, res(FISK=2, MALM=1))
    collected = [e.player for e in events if e.kind == "COLLECTED"]
    assert collected == [1, 2, 0]  # clockwise from the Starting Player
    # every face: the face's resource and the plot whose starting token shows it
    for die in range(1, 7):
        s, _ = roll(setup(2, starter=0), die)
        plot_res = next(r for r, t in START_TOKEN.items() if t == die)
        assert s.visthus[1] == plus(start, plus(one(FACE[die]), one(R[plot_res])))


def test_items_are_collected_only_into_empty_slots_and_the_player_chooses_when_short() -> None:
    """• Items can only be collected if there is an empty Slot. ... Place in empty Visthus Slots .
    (Assumption COLLECTION: with too few slots for several kinds the player chooses one at a time; what
    does not fit is lost.)"""
    uses("COLLECTION", "VISTHUS")
    state = setup(3, starter=1)
    seven = res(BROD=1, LERA=3, ULL=3)  # 1 empty slot of 8
    full = res(BROD=1, LERA=4, ULL=3)  # no empty slot
    state = edit(state, visthus=vis(state, s0=seven, s1=seven, s2=full))
    state, events = roll(state, 1)  # Fisk and Malm due to everyone
    # the Starting Player chooses first, then clockwise
    assert state.phase is Phase.COLLECT and state.actor == 1
    assert set(GAME.legal_moves(state)) == {Collect(FISK), Collect(MALM)}
    refused(state, StopCollecting(), "MUST_COLLECT")
    refused(state, Collect(LERA), "NOT_DUE")
    refused(state, Discard(LERA), "DISCARD_ONLY_IN_ACTIONS", "collection")
    state, events = run(state, Collect(MALM))
    assert state.visthus[1] == plus(seven, one(MALM))  # the Fisk did not fit: lost
    assert [e.player for e in events if e.kind == "VISTHUS_FULL"] == [2]
    assert state.visthus[2] == full  # nothing collected without an empty slot
    assert state.phase is Phase.COLLECT and state.actor == 0
    state, _ = run(state, Collect(FISK))
    assert state.visthus[0] == plus(seven, one(FISK))
    assert state.phase is Phase.ACTIONS and state.actor == 1
    assert supply(state, FISK) == TOTAL[FISK] - 1 - state.market[FISK]


def test_a_single_kind_due_is_collected_at_once_as_far_as_it_fits() -> None:
    """• Items can only be collected if there is an empty Slot.
    (Assumption COLLECTION: only one kind due is collected at once, what does not fit is lost.)"""
    uses("COLLECTION")
    state = setup(2, starter=0, card="TORKA")  # Torka: no Korn, so a 5 gives Ull only
    plots = put(state.plots, 0, put(state.plots[0], PLOT["ULL"] * SLOTS + 1, 5))
    seven = res(BROD=1, LERA=6)
    state = edit(state, plots=plots, visthus=vis(state, s0=seven))
    state, _ = roll(state, 5)  # seat 0 is due 2 Ull (face and Träl token) with 1 slot
    assert state.phase is Phase.ACTIONS
    assert state.visthus[0] == plus(seven, one(ULL))
    assert state.visthus[1] == res(BROD=1, LERA=1, ULL=1)


# --------------------------------------------------------------------------- actions, Skepp and trade


def test_a_player_performs_as_many_actions_as_they_own_skepp() -> None:
    """3. Player Actions: In clockwise order, you can perform as many actions as you own Skepp (each
    player starts with 1): (Assumptions TURN_ORDER, SKEPP.)"""
    uses("TURN_ORDER", "SKEPP")
    state = setup(3, starter=2)
    state = edit(state, skepp=(1, 3, 1), visthus=vis(state, s1=res(BROD=1, LERA=4)))
    state, _ = roll(state, 3)  # everyone collects Lera and Virke
    assert (state.phase, state.actor, state.actions_left) == (Phase.ACTIONS, 2, 1)
    state = go(state, MarketTrade(LERA, FISK))
    assert (state.actor, state.actions_left) == (2, 0)
    assert set(GAME.legal_moves(state)) <= {EndActions(), *(Discard(r) for r in range(N_RES))}
    refused(state, MarketTrade(VIRKE, KORN), "NO_ACTIONS_LEFT", "Skepp")
    state = go(state, EndActions())
    assert (state.actor, state.actions_left) == (0, 1)  # clockwise: seat 0 follows seat 2
    state = go(state, EndActions())
    assert (state.actor, state.actions_left) == (1, 3)
    state = go(state, MarketTrade(LERA, KORN), MarketTrade(LERA, MALM), MarketTrade(LERA, ULL))
    assert state.actions_left == 0
    refused(state, OutlawTrade(LERA, KORN), "NO_ACTIONS_LEFT")
    state = go(state, EndActions())
    assert state.phase is Phase.ROLL and state.starter == 0


def test_a_bought_skepp_gives_a_new_action_in_the_same_turn_and_counts_next_turn() -> None:
    """• Purchase Skepp: Purchase a Skepp to increase the number of Actions. After a Skepp purchase you
    may perform a new action in the same Turn. (Assumption SKEPP: 2 Virke and 1 Vadmal, at most 4.)"""
    uses("SKEPP")
    state = setup(2, starter=0)
    state = edit(state, visthus=vis(state, s0=res(VIRKE=3, VADMAL=1, LERA=2)))
    state, _ = roll(state, 1)  # + Fisk, Malm
    before = state.visthus[0]
    state, events = run(state, BuySkepp())
    assert state.skepp == (2, 1)
    assert "SKEPP_BOUGHT" in kinds(events)
    assert state.visthus[0] == minus(before, price(BYN["skepp"]["price"]))
    assert state.actions_left == 1  # the purchase used the action and gave a new one
    state = go(state, Build(B["ELDHUS"]))  # the new action, in the same Turn
    assert state.owners[B["ELDHUS"]] == 0 and state.actions_left == 0
    refused(state, Discard(BROD), "NOTHING_TO_DISCARD")
    state = advance(state, lambda s: s.phase is Phase.ACTIONS and s.actor == 0 and s.turn == 2)[0]
    assert state.actions_left == 2
    # at most 4 Skepp
    full = acting(state, 0, skepp=(4, 1), visthus=vis(state, s0=res(VIRKE=2, VADMAL=1)))
    refused(full, BuySkepp(), "SKEPP_LIMIT", "Skepp")


def test_market_trades_one_for_one_into_limited_slots_and_only_for_what_is_present() -> None:
    """– Limited Slots: 5 Raw and 3 Crafted per Resource type. – You may not exceed available Slots. –
    You may not trade for a Resource that is not present. (Assumption MARKET: 1 Raw for 1 other Raw, 1
    Crafted for 1 other Crafted; what is given goes into its row.)"""
    uses("MARKET")
    assert (BIRKA["market"]["raw_slots"], BIRKA["market"]["crafted_slots"]) == (5, 3)
    state = setup(2, starter=0)
    market = (5, 1, 1, 0, 1, 1, 1, 3, 1, 1, 0, 1)
    row = res(FISK=2, KORN=1, LERA=1, MALM=1, BROD=2, TRAN=1)
    state = acting(state, 0, skepp=(4, 1), market=market, visthus=vis(state, s0=row))
    assert state.actions_left == 4
    s, events = run(state, MarketTrade(KORN, LERA))
    assert "MARKET_TRADE" in kinds(events)
    assert s.visthus[0] == plus(minus(row, one(KORN)), one(LERA))
    assert s.market == plus(minus(market, one(LERA)), one(KORN))
    assert s.actions_left == 3  # a trade is an action
    s = go(s, MarketTrade(TRAN, KERAMIK))  # crafted for crafted
    assert s.visthus[0][KERAMIK] == 1 and s.market[TRAN] == 2 and s.market[KERAMIK] == 0
    refused(state, MarketTrade(FISK, KORN), "MARKET_ROW_FULL", "slot")  # 5 Fisk there already
    refused(state, MarketTrade(BROD, TRAN), "MARKET_ROW_FULL", "slot")  # 3 Bröd there already
    refused(state, MarketTrade(KORN, MALM), "NOT_IN_MARKET", "Malm")  # no Malm present
    refused(state, MarketTrade(TRAN, VADMAL), "NOT_IN_MARKET", "Vadmal")
    refused(state, MarketTrade(ULL, KORN), "CANNOT_AFFORD", "Ull")  # seat 0 holds no Ull
    refused(state, MarketTrade(KORN, KORN), "SAME_RESOURCE")
    refused(state, MarketTrade(KORN, TRAN), "DIFFERENT_MARKETS")
    refused(state, MarketTrade(TRAN, KORN), "DIFFERENT_MARKETS")


def test_the_outlaw_trader_has_an_unlimited_supply_and_worse_ratios() -> None:
    """The Outlaw Trader – Unlimited supply. – Less favorable trade ratios. – All trades are handled using
    the Supply piles. ... Any Price stated is paid with 2 Raw Resouces or 1 Crafted Resource.
    (Assumption OUTLAW_TRADER: a Raw Resource costs 1 unit, a Crafted one 2; a unit is 2 Raw or 1 Crafted
    of one kind.)"""
    uses("OUTLAW_TRADER")
    state = setup(2, starter=0)
    market = (0,) * N_RES  # nothing at the Market: the Outlaw Trader does not need it
    row = res(FISK=2, KORN=1, LERA=4, BROD=1)
    state = acting(state, 0, skepp=(4, 1), market=market, visthus=vis(state, s0=row))
    s, events = run(state, OutlawTrade(FISK, MALM))  # 2 Raw for 1 Raw
    assert "OUTLAW_TRADE" in kinds(events)
    assert s.visthus[0] == plus(minus(row, res(FISK=2)), one(MALM))
    assert s.market == market and supply(s, FISK) == supply(state, FISK) + 2
    s = go(state, OutlawTrade(BROD, MALM))  # 1 Crafted for 1 Raw
    assert s.visthus[0] == plus(minus(row, res(BROD=1)), one(MALM))
    s = go(state, OutlawTrade(LERA, VADMAL))  # 4 Raw for 1 Crafted
    assert s.visthus[0] == plus(minus(row, res(LERA=4)), one(VADMAL))
    s = go(acting(state, 0, visthus=vis(state, s0=res(BROD=2))), OutlawTrade(BROD, VADMAL))
    assert s.visthus[0] == res(VADMAL=1)  # 2 Crafted for 1 Crafted
    refused(state, OutlawTrade(BROD, VADMAL), "CANNOT_AFFORD")  # a Crafted costs 2 Crafted
    refused(state, OutlawTrade(KORN, MALM), "CANNOT_AFFORD")  # 2 Raw needed
    refused(state, OutlawTrade(FISK, VADMAL), "CANNOT_AFFORD")  # 4 Raw needed
    # the price is paid with one kind: 1 Fisk and 1 Korn do not make 2 Raw
    mixed = acting(state, 0, visthus=vis(state, s0=res(FISK=1, KORN=1)))
    refused(mixed, OutlawTrade(FISK, MALM), "CANNOT_AFFORD")
    refused(mixed, OutlawTrade(KORN, MALM), "CANNOT_AFFORD")
    refused(state, OutlawTrade(LERA, LERA), "SAME_RESOURCE")


def test_the_outlaw_trader_cannot_give_what_the_supply_pile_has_run_out_of() -> None:
    """In rare cases, if the Supply pile runs out of a Resource, the Resource cannot be replaced by
    another Resource. – All trades are handled using the Supply piles. (Assumption SUPPLY.)"""
    uses("SUPPLY")
    state = setup(3, starter=0)
    malm = TOTAL[MALM]
    rows = (res(LERA=4, MALM=8), res(MALM=12), res(MALM=malm - 20 - state.market[MALM]))
    state = acting(state, 0, visthus=rows, extension=(True, True, True))
    assert supply(state, MALM) == 0
    refused(state, OutlawTrade(LERA, MALM), "SUPPLY_EMPTY", "Malm")


def test_trades_between_players_are_not_allowed() -> None:
    """• Trade: Exchange Resources at the Market or with The Outlaw Trader. Trades between Players are
    not allowed. (Assumption NO_TRADES_BETWEEN_PLAYERS.)"""
    uses("NO_TRADES_BETWEEN_PLAYERS")
    state = setup(3, starter=0)
    rich = res(FISK=1, KORN=1, LERA=1, MALM=1, ULL=1, VIRKE=1, BROD=1, VADMAL=1)
    state = acting(state, 0, visthus=(rich, rich, rich))
    moves = GAME.legal_moves(state)
    assert any(isinstance(m, MarketTrade) for m in moves) and any(isinstance(m, OutlawTrade) for m in moves)
    for move in moves:
        assert not hasattr(move, "seat"), move  # no action names another player
        after, _ = GAME.apply(state, move)
        assert after.visthus[1:] == state.visthus[1:], move  # nobody else's Visthus changes


# --------------------------------------------------------------------------- crafting and the buildings

CRAFTING = [b["id"] for b in BIRKA["buildings"] if "craft" in b]
RULEBOOK_CRAFTING = {  # the rulebook's table: raw in, building, crafted out
    "TRANKOKERI": ("FISK", "TRAN"),
    "ELDHUS": ("KORN", "BROD"),
    "KRUKMAKERI": ("LERA", "KERAMIK"),
    "BLASTERUGN": ("MALM", "JARN"),
    "VAVSTUGA": ("ULL", "VADMAL"),
    "KOLMILA": ("VIRKE", "TRAKOL"),
}


@pytest.mark.parametrize("building", sorted(RULEBOOK_CRAFTING))
def test_crafting_in_each_building_and_paying_its_owner(building: str) -> None:
    """• Craft: Convert Raw Resources into Crafted Resources . See each Building for crafting price.
    (The rulebook's table: Fisk Trankokeri Tran, Korn Eldhus Bröd, Lera Krukmakeri Keramik, Malm
    Blästerugn Järn, Ull Vävstuga Vadmal, Virke Kolmila Träkol.) • Payments: If another Player uses your
    Building, you receive the payment marked with a red border on the Building. If you use your own
    Building, no payment is made. (Assumptions CRAFTING: 2 in, 1 out; OWNER_PAYMENTS: 1 of the input.)"""
    uses("CRAFTING", "OWNER_PAYMENTS")
    assert sorted(CRAFTING) == sorted(RULEBOOK_CRAFTING)
    raw, crafted = (R[x] for x in RULEBOOK_CRAFTING[building])
    b = B[building]
    assert price(BUILDINGS[building]["craft"]["input"]) == res(**{RES_IDS[raw]: 2})
    state = setup(2, starter=0)
    state = acting(
        state, 0, owners=own(state, **{building: 1}), visthus=vis(state, s0=res(BROD=1, **{RES_IDS[raw]: 3}))
    )
    s, events = run(state, Craft(b))
    assert kinds(events)[:2] == ["CRAFTED", "OWNER_PAID"]
    assert s.visthus[0] == plus(res(BROD=1), one(crafted))  # 2 crafted from, 1 paid
    assert s.visthus[1] == plus(state.visthus[1], one(raw))  # the owner receives 1 of the input
    assert supply(s, raw) == supply(state, raw) + 2 and supply(s, crafted) == supply(state, crafted) - 1
    assert s.actions_left == 0
    # the owner crafting in their own building pays nothing
    mine = acting(state, 1, visthus=vis(state, s1=res(**{RES_IDS[raw]: 2})))
    s, events = run(mine, Craft(b))
    assert "OWNER_PAID" not in kinds(events)
    assert s.visthus[1] == one(crafted) and s.visthus[0] == mine.visthus[0]
    # 2 of the input are not enough at another player's building: the payment comes on top
    short = acting(state, 0, visthus=vis(state, s0=res(**{RES_IDS[raw]: 2})))
    refused(short, Craft(b), "CANNOT_AFFORD")


def test_crafting_in_blasterugn_pays_the_owner_a_malm() -> None:
    """• As an example, the payment received from crafting in Blästerugn is a Malm .
    (Assumption OWNER_PAYMENTS.)"""
    uses("OWNER_PAYMENTS")
    state = setup(3, starter=0)
    state = acting(state, 2, owners=own(state, BLASTERUGN=0), visthus=vis(state, s2=res(MALM=3)))
    s, events = run(state, Craft(B["BLASTERUGN"]))
    paid = next(e for e in events if e.kind == "OWNER_PAID")
    assert paid.player in (0, 2)
    assert s.visthus[0] == plus(state.visthus[0], one(MALM))
    assert s.visthus[1] == state.visthus[1]
    assert s.visthus[2] == one(JARN)


def test_a_payment_the_owner_has_no_room_for_goes_to_the_supply() -> None:
    """• Payments: If another Player uses your Building, you receive the payment marked with a red border
    on the Building. (Assumption OWNER_PAYMENTS: the user pays on top of the price; it goes into the
    owner's empty slots, or to the supply when the owner has none.)"""
    uses("OWNER_PAYMENTS")
    state = setup(2, starter=0)
    full = res(LERA=8)
    state = acting(state, 0, owners=own(state, KOLMILA=1), visthus=vis(state, s0=res(VIRKE=3), s1=full))
    s = go(state, Craft(B["KOLMILA"]))
    assert s.visthus == (one(TRAKOL), full)
    assert supply(s, VIRKE) == supply(state, VIRKE) + 3


def test_a_building_cannot_be_used_until_purchased_by_any_player() -> None:
    """• A Building cannot be used until purchased by any Player in Birka.
    (Assumption ALWAYS_AVAILABLE: every building but Trältorget and Tinget.)"""
    uses("ALWAYS_AVAILABLE")
    state = setup(2, starter=0)
    row = res(FISK=2, KORN=2, LERA=2, VIRKE=2)
    state = acting(state, 0, visthus=vis(state, s0=row))
    assert all(o == -1 for o in state.owners)
    for building in ("TRANKOKERI", "ELDHUS", "KRUKMAKERI", "KOLMILA"):
        refused(state, Craft(B[building]), "NOT_BUILT", "purchased")
    tools = acting(state, 0, visthus=vis(state, s0=res(JARN=1, TRAKOL=1, MALM=1, KORN=2, VADMAL=1)))
    refused(tools, Upgrade(PLOT["KORN"], VERKTYG), "NOT_BUILT", "purchased")
    refused(tools, Upgrade(PLOT["KORN"], HAST), "NOT_BUILT", "purchased")
    # once someone built it, anyone may use it
    built = acting(state, 0, owners=own(state, ELDHUS=1), visthus=vis(state, s0=res(KORN=3)))
    assert Craft(B["ELDHUS"]) in GAME.legal_moves(built)


def test_traltorget_and_tinget_are_not_owned_and_always_available() -> None:
    """• Trältorget (purchase Träl ) and Tinget (purchase Runestone ) are not owned always available.
    (Assumptions ALWAYS_AVAILABLE, UPGRADE_PRICES, TINGET.)"""
    uses("ALWAYS_AVAILABLE", "UPGRADE_PRICES", "TINGET")
    state = setup(2, starter=0, card="SKEPPSBYGGARE")
    everything = res(VIRKE=3, LERA=3, MALM=3, KORN=3)
    state = acting(state, 0, skepp=(2, 1), visthus=vis(state, s0=res(BROD=1, FISK=1, VADMAL=1, KERAMIK=1)))
    moves = GAME.legal_moves(state)
    assert Upgrade(PLOT["LERA"], TRAL) in moves and AcquireRunestone() in moves  # nobody built them
    rich = acting(state, 0, extension=(True, False), visthus=vis(state, s0=everything))
    refused(rich, Build(B["TRALTORGET"]), "NOT_FOR_SALE", "Trältorget")
    refused(rich, Build(B["TINGET"]), "NOT_FOR_SALE", "Tinget")
    s, events = run(state, Upgrade(PLOT["LERA"], TRAL), PlaceToken(2))
    assert "OWNER_PAID" not in kinds(events)
    assert s.visthus[0] == res(VADMAL=1, KERAMIK=1) and s.visthus[1] == state.visthus[1]
    assert all(o == -1 for o in s.owners)


def test_building_spends_the_price_and_marks_ownership_once() -> None:
    """• Build: Spend Resources to construct a Building. Place your Player icon on the Building to mark
    ownership. • Constructing: Spend Resources matching the price at the top of the Building icon, e.g.
    the Kolmila costs 2 Lera and 1 Malm . (Assumptions BUILDING_PRICES, ICON_TOKENS.)"""
    uses("BUILDING_PRICES", "ICON_TOKENS")
    assert price(BUILDINGS["KOLMILA"]["price"]) == res(LERA=2, MALM=1)  # the rulebook's example
    state = setup(2, starter=0)
    row = res(LERA=3, MALM=1, FISK=2)
    state = acting(state, 0, visthus=vis(state, s0=row))
    s, events = run(state, Build(B["KOLMILA"]))
    assert "BUILT" in kinds(events)
    assert s.owners[B["KOLMILA"]] == 0 and sum(o >= 0 for o in s.owners) == 1
    assert s.visthus[0] == res(LERA=1, FISK=2)
    other = acting(s, 1, visthus=vis(s, s1=res(LERA=2, MALM=1)))
    refused(other, Build(B["KOLMILA"]), "BUILDING_OWNED", "Kolmila")
    poor = acting(state, 0, visthus=vis(state, s0=res(LERA=1, MALM=1)))
    refused(poor, Build(B["KOLMILA"]), "CANNOT_AFFORD", "Lera")


# --------------------------------------------------------------------------- plot upgrades


def test_upgrading_a_plot_with_tral_places_any_dice_token_that_then_collects() -> None:
    """• Upgrade Plot: Purchase Träl , Verktyg or Häst , and place any Dice Token – in the upgraded Slot.
    – Raw Resources: Each Resource Plot have one starting Dice token, and the remaining three Slots can
    be upgraded to increase collection chances. (Assumptions UPGRADES, UPGRADE_PRICES: Träl 1 Bröd 1 Fisk
    at Trältorget.)"""
    uses("UPGRADES", "UPGRADE_PRICES", "RESOURCE_PLOTS")
    state = setup(2, starter=0)
    state = edit(state, visthus=vis(state, s0=res(BROD=1, FISK=1)))
    state, _ = roll(state, 6)  # + Virke (face) and Lera (plot token 6)
    s, events = run(state, Upgrade(PLOT["KORN"], TRAL))
    assert "GOOD_BOUGHT" in kinds(events)
    assert s.phase is Phase.UPGRADE_TOKEN and s.actor == 0
    assert set(GAME.legal_moves(s)) == {PlaceToken(v) for v in range(1, 7)}  # any dice token
    refused(s, PlaceToken(7), "NO_SUCH_TOKEN", "6")
    refused(s, EndActions(), "WRONG_STEP")
    s, events = run(s, PlaceToken(6))
    assert "PLOT_UPGRADED" in kinds(events)
    assert s.plots[0][PLOT["KORN"] * SLOTS + 1] == 6
    assert s.visthus[0] == res(VIRKE=1, LERA=1)
    assert s.phase is Phase.ACTIONS and s.actions_left == 0
    s = advance(s, lambda x: x.phase is Phase.ROLL)[0]
    s, _ = roll(s, 6)  # Virke, Lera, and now Korn from the upgraded slot
    assert s.visthus[0] == res(VIRKE=2, LERA=2, KORN=1)
    assert s.visthus[1] == res(BROD=1, LERA=3, VIRKE=2)


def test_verktyg_and_hast_are_bought_at_smedjan_and_stallet_which_pay_their_owner() -> None:
    """In Birka Tunet a Player can use Trältorget (Träl ), Smedjan (Verktyg ) and Stallet (Häst ) to
    upgrade Resource Plots in the Byn. (Assumptions UPGRADE_PRICES: Verktyg 1 Järn 1 Träkol, payment 1
    Malm; Häst 2 Korn 1 Vadmal, payment 1 Korn; OWNER_PAYMENTS.)"""
    uses("UPGRADE_PRICES", "OWNER_PAYMENTS", "UPGRADES")
    state = setup(2, starter=0)
    row = res(JARN=1, TRAKOL=1, MALM=1, KORN=3, VADMAL=1)
    state = acting(
        state, 0, skepp=(2, 1), owners=own(state, SMEDJAN=1, STALLET=1), visthus=vis(state, s0=row)
    )
    s, events = run(state, Upgrade(PLOT["ULL"], VERKTYG), PlaceToken(4))
    assert "OWNER_PAID" in kinds(events)
    assert s.visthus[0] == res(KORN=3, VADMAL=1)
    assert s.visthus[1] == plus(state.visthus[1], one(MALM))
    assert s.plots[0][PLOT["ULL"] * SLOTS + 2] == 4
    s = go(s, Upgrade(PLOT["ULL"], HAST), PlaceToken(4))  # the same value twice is allowed
    assert s.visthus[0] == (0,) * N_RES
    assert s.visthus[1] == plus(state.visthus[1], res(MALM=1, KORN=1))
    assert s.plots[0][PLOT["ULL"] * SLOTS + 3] == 4
    # the owner upgrading at their own Smedjan pays no Malm
    mine = acting(state, 1, visthus=vis(state, s1=res(JARN=1, TRAKOL=1)))
    s = go(mine, Upgrade(PLOT["FISK"], VERKTYG), PlaceToken(1))
    assert s.visthus[1] == (0,) * N_RES and s.visthus[0] == state.visthus[0]


def test_once_placed_dice_tokens_cannot_be_changed() -> None:
    """– Once placed, dice cannot be changed. (Assumption UPGRADES: a filled slot never changes.)"""
    uses("UPGRADES")
    state = setup(2, starter=0)
    plots = put(state.plots, 0, put(state.plots[0], PLOT["FISK"] * SLOTS + 1, 2))
    state = acting(state, 0, plots=plots, visthus=vis(state, s0=res(BROD=2, FISK=2)))
    refused(state, Upgrade(PLOT["FISK"], TRAL), "SLOT_TAKEN", "cannot be changed")
    assert Upgrade(PLOT["KORN"], TRAL) in GAME.legal_moves(state)
    # the starting token is never changed either: such a state is refused
    changed = state._replace(plots=put(state.plots, 1, put(state.plots[1], PLOT["FISK"] * SLOTS, 5)))
    assert GAME.check_state(changed) != []
    # and there is no move that changes a token once placed
    s = go(state, Upgrade(PLOT["KORN"], TRAL), PlaceToken(3))
    s = acting(s, 0, visthus=vis(s, s0=res(BROD=1, FISK=1)))
    refused(s, Upgrade(PLOT["KORN"], TRAL), "SLOT_TAKEN")


# --------------------------------------------------------------------------- Tinget


def test_tinget_draws_two_random_cards_keeps_one_and_discards_the_other() -> None:
    """• Acquire Runestones: Purchase Runestone Cards . Draw two random cards, keep one, discard the
    other. When purchasing a Runestone Card, the Player acquires two new cards, and keeps one, and
    discards the other. You can purchase Runestone Cards, even though your other Runestone Cards are not
    blocked. (Assumption TINGET: 1 Vadmal and 1 Keramik, one action, two secret draws from the player's
    own deck, KeepCard 0 = the first drawn.)"""
    uses("TINGET", "IMPOSSIBLE_RUNESTONES")
    state = setup(2, starter=0, card="SKEPPSBYGGARE")
    state = acting(state, 0, visthus=vis(state, s0=res(VADMAL=1, KERAMIK=1, BROD=1)))
    assert not any(not possible(state, 0, c, REFERENCE) for c in state.hands[0])  # nothing is blocked
    s, events = run(state, AcquireRunestone())
    assert "RUNESTONE_PURCHASED" in kinds(events)
    assert s.visthus[0] == res(BROD=1) and s.actions_left == 0
    deck = sorted(set(range(len(CARDS))) - {RS[c] for c in HARD})
    for k in range(2):
        assert s.phase is Phase.TINGET_DRAW
        assert GAME.to_act(s).players == (0,) and GAME.to_act(s).chance
        chance = GAME.chance(s)
        assert chance is not None and len(chance.outcomes) == len(deck) - k
        assert not any(c["name"] in o.label for o in chance.outcomes for c in CARDS)  # no card named
        s = go(s, DrawCard(0))  # the lowest card left: first the Trankokeri's, then the Eldhus's
    assert s.phase is Phase.TINGET_KEEP and s.actor == 0
    assert set(GAME.legal_moves(s)) == {KeepCard(0), KeepCard(1)}
    refused(s, KeepCard(2), "NO_SUCH_CARD")
    s, events = run(s, KeepCard(1))
    assert "CARD_KEPT" in kinds(events)
    assert s.hands[0] == tuple(sorted([*(RS[c] for c in HARD), deck[1]]))
    assert deck[0] not in s.decks[0] and deck[1] not in s.decks[0]  # the other card is discarded
    assert len(s.decks[0]) == len(deck) - 2 and s.decks[1] == state.decks[1]
    assert s.phase is Phase.ACTIONS and s.actor == 0 and s.actions_left == 0
    poor = acting(state, 0, visthus=vis(state, s0=res(VADMAL=1)))
    refused(poor, AcquireRunestone(), "CANNOT_AFFORD", "Keramik")


def test_tinget_with_one_card_left_keeps_it_and_with_none_sells_nothing() -> None:
    """When purchasing a Runestone Card, the Player acquires two new cards, and keeps one, and discards
    the other. (Assumption TINGET: with one card left in the deck it is drawn and kept; with none,
    Tinget sells nothing to that player.)"""
    uses("TINGET")
    state = setup(2, starter=0, card="SKEPPSBYGGARE")
    last = RS["EXTENSION"]
    state = acting(
        state, 0, decks=put(state.decks, 0, (last,)), visthus=vis(state, s0=res(VADMAL=2, KERAMIK=2))
    )
    s = go(state, AcquireRunestone())
    assert s.phase is Phase.TINGET_DRAW
    s = go(s, DrawCard(0))
    assert s.phase is Phase.ACTIONS and last in s.hands[0] and s.decks[0] == ()
    empty = acting(s, 0, actions_left=1)
    refused(empty, AcquireRunestone(), "DECK_EMPTY")


def test_calendar_card_midsommarblot_makes_a_runestone_cheaper() -> None:
    """Midsommarblot: "while this card is in effect, a Runestone Card at Tinget costs 1 Keramik less."
    – Its effect applies until a new Calendar Card is revealed (Assumption CALENDAR_CARDS.)"""
    uses("CALENDAR_CARDS")
    state = setup(2, starter=0, card="MIDSOMMARBLOT")
    state = acting(state, 0, visthus=vis(state, s0=res(VADMAL=1)))
    s = go(state, AcquireRunestone())
    assert s.visthus[0] == (0,) * N_RES
    refused(acting(state, 0, visthus=vis(state, s0=res(KERAMIK=1))), AcquireRunestone(), "CANNOT_AFFORD")


# --------------------------------------------------------------------------- discarding


def test_discarding_is_only_in_your_own_actions_is_no_action_and_returns_to_the_supply() -> None:
    """4. Discard Resources: Remove Resources from your Visthus to free up Slots. • When paying,
    crafting, or discarding, return Resources to Supply piles. • You cannot discard Resources during the
    collection phase; this must be done during your previous Action phase. (Assumption DISCARD.)"""
    uses("DISCARD")
    state = setup(2, starter=0)
    refused(state, Discard(LERA), "DISCARD_ONLY_IN_ACTIONS", "discard")  # before the roll
    state, _ = roll(state, 3)
    assert state.visthus[0] == res(BROD=1, LERA=2, VIRKE=1)
    s, events = run(state, Discard(LERA), Discard(LERA), Discard(VIRKE))
    assert kinds(events) == ["DISCARDED"] * 3
    assert s.visthus[0] == res(BROD=1) and s.actions_left == 1  # no action used
    assert supply(s, LERA) == supply(state, LERA) + 2 and supply(s, VIRKE) == supply(state, VIRKE) + 1
    refused(s, Discard(LERA), "NOTHING_TO_DISCARD", "Visthus")
    # on the next player's actions it is their Visthus that a discard empties
    s = go(s, EndActions(), Discard(VIRKE))
    assert s.actor == 1 and s.visthus[1] == res(BROD=1, LERA=2) and s.visthus[0] == res(BROD=1)
    # not in an upgrade's token step either
    t = acting(s, 1, visthus=vis(s, s1=res(BROD=1, FISK=1)))
    t = go(t, Upgrade(PLOT["FISK"], TRAL))
    refused(t, Discard(LERA), "DISCARD_ONLY_IN_ACTIONS")


# --------------------------------------------------------------------------- the Calendar Round


def test_a_calendar_round_is_12_turns_with_a_calendar_card_at_its_start_and_halfway() -> None:
    """A Calendar Round is 12 Turns. – A Calendar Card is revealed at the start of each Calendar Round and
    halfway, after six Turns. (Assumptions CALENDAR_CARDS, RATIONS.)"""
    uses("CALENDAR_CARDS", "RATIONS")
    state = setup(3, starter=0, card="SILLSTIM")
    assert state.round_cards == (CAL["SILLSTIM"],) and state.card == CAL["SILLSTIM"]
    state, events = advance(state, lambda s: s.phase is Phase.CALENDAR)
    assert kinds(events).count("DIE_ROLLED") == 6 and state.round == 1
    chance = GAME.chance(state)
    assert chance is not None and len(chance.outcomes) == len(CALENDAR["cards"]) - 1  # not Sillstim again
    assert all(abs(o.probability - 1 / 9) < 1e-12 for o in chance.outcomes)
    state, events = run(state, Draw(CAL["TORKA"]))
    assert kinds(events)[0] == "CALENDAR_CARD" and state.card == CAL["TORKA"]
    state, events = advance(state, lambda s: s.phase is Phase.CALENDAR)
    assert kinds(events).count("DIE_ROLLED") == 6
    k = kinds(events)
    assert k.count("RATION_PAID") == 3 and k.index("RATION_PAID") > max(
        i for i, x in enumerate(k) if x == "DIE_ROLLED"
    )  # the Rations come after the 12th Turn
    assert "ROUND_ENDED" in k and state.round == 2
    chance = GAME.chance(state)
    assert chance is not None and len(chance.outcomes) == len(CALENDAR["cards"]) - 2
    state = go(state, Draw(CAL["GASTABUD"]))
    assert state.round_cards == (CAL["GASTABUD"],) and state.turn == 1


def test_the_game_lasts_five_calendar_rounds_of_the_ten_cards_or_ten_rounds_as_an_option() -> None:
    """The game is played over a maximum of 5 Calendar Rounds (the 10 cards), or until a Player has
    completed 5 Runestones . ... • The 10th Calendar Round ends (Assumption GAME_LENGTH: 5 rounds by
    default, 10 with calendar_rounds=10, the cards shuffled again.)"""
    uses("GAME_LENGTH")
    state, events = advance(setup(2), lambda s: False)
    assert state.phase is Phase.OVER and state.round == 5 and state.calendar == ()
    assert kinds(events).count("CALENDAR_CARD") == 9 and kinds(events).count("DIE_ROLLED") == 60
    state, events = advance(setup(2, options=Options(calendar_rounds=10)), lambda s: False)
    assert state.phase is Phase.OVER and state.round == 10
    assert kinds(events).count("DIE_ROLLED") == 120 and kinds(events).count("CALENDAR_RESHUFFLED") == 1
    # Rations after every round but the tenth
    assert kinds(events).count("RATION_PAID") + kinds(events).count("STARVING") == 2 * 9


# --------------------------------------------------------------------------- the Calendar Cards


def _halfway(state: State) -> State:
    """Play passively (rolls of 3) to the halfway Calendar Card of the round."""
    return advance(state, lambda s: s.phase is Phase.CALENDAR)[0]


def test_calendar_card_sillstim_gives_a_fisk_at_every_collection_until_the_next_card() -> None:
    """Sillstim: "while this card is in effect, every collection also gives every player 1 Fisk." – Its
    effect applies until a new Calendar Card is revealed unless otherwise stated. (Assumption
    CALENDAR_CARDS.)"""
    uses("CALENDAR_CARDS")
    state = setup(2, starter=0, card="SILLSTIM")
    s, _ = roll(state, 3)
    assert s.visthus == (res(BROD=1, LERA=2, VIRKE=1, FISK=1),) * 2
    s, _ = roll(state, 1)  # the face's Fisk and the card's
    assert s.visthus == (res(BROD=1, LERA=1, FISK=2, MALM=1),) * 2
    s = _halfway(state)
    s = go(s, Draw(CAL["SKEPPSBYGGARE"]))
    s = edit(s, visthus=(res(BROD=1),) * 2)
    s, _ = roll(s, 3)  # Sillstim is no longer in effect
    assert s.visthus == (res(BROD=1, LERA=1, VIRKE=1),) * 2


def test_calendar_card_torka_stops_every_korn_collection() -> None:
    """Torka: "Drought: while this card is in effect, nobody collects Korn." (Assumption CALENDAR_CARDS.)"""
    uses("CALENDAR_CARDS")
    state = setup(2, starter=0, card="TORKA")
    s, _ = roll(state, 2)  # the Korn face, and the Ull plot
    assert s.visthus == (res(BROD=1, LERA=1, ULL=1),) * 2
    s, _ = roll(state, 5)  # the Ull face, and the Korn plot
    assert s.visthus == (res(BROD=1, LERA=1, ULL=1),) * 2


def test_calendar_card_marknadsdag_revealed_halfway_restocks_the_market_at_once() -> None:
    """Marknadsdag: "the Market is reset with 2 resources in every Raw row and 1 in every Crafted row."
    – Reveal the next Calendar Card and immediately apply its effect. (Assumption MARKET_RESET: a market
    card revealed halfway restocks at once; other cards leave the Market as it is.)"""
    uses("MARKET_RESET", "CALENDAR_CARDS")
    state = _halfway(setup(2, starter=0, card="SILLSTIM"))
    market = (0, 3, 1, 0, 5, 1, 0, 3, 0, 2, 1, 0)
    state = edit(state, market=market)
    s, events = run(state, Draw(CAL["MARKNADSDAG"]))
    assert "MARKET_RESET" in kinds(events)
    assert s.market == (2,) * len(RAW) + (1,) * (N_RES - len(RAW))
    s = go(state, Draw(CAL["TORKA"]))
    assert s.market == market  # halfway, another card does not reset the Market


def test_the_market_is_reset_to_one_resource_a_row_at_the_start_of_every_round() -> None:
    """Market Reset: Reset the Market by placing 1 Resource in the first Slot of each row, unless the
    revealed Calendar Card states otherwise. Each Calendar Round begins with 1 Resource in the first Slot
    unless the revealed Calendar Card states otherwise. (Assumption MARKET_RESET: what was left returns
    to the supply.)"""
    uses("MARKET_RESET")
    state = setup(2, starter=0)
    state = advance(state, lambda s: s.round == 2 and s.phase is Phase.CALENDAR)[0]
    market = (5, 0, 3, 0, 2, 1, 3, 0, 2, 1, 0, 3)
    state = edit(state, market=market)
    s, events = run(state, Draw(CAL["STORMFLOD"]))
    assert "MARKET_RESET" in kinds(events)
    assert s.market == (1,) * N_RES
    assert supply(s, FISK) == supply(state, FISK) + 4 and supply(s, KORN) == supply(state, KORN) - 1


def test_calendar_card_stormflod_closes_the_market_but_not_the_outlaw_trader() -> None:
    """Stormflod: "no trade at the Market while this card is in effect." – Any Calendar Card affecting
    the Market is only applied to the Market, and not at The Outlaw Trader unless otherwise stated. – Not
    affected by ”Market” rules on cards. (Assumption MARKET_CARDS.)"""
    uses("MARKET_CARDS")
    state = setup(2, starter=0, card="STORMFLOD")
    state = acting(state, 0, visthus=vis(state, s0=res(FISK=2, BROD=1)))
    refused(state, MarketTrade(FISK, KORN), "MARKET_CLOSED", "Market")
    refused(state, MarketTrade(BROD, TRAN), "MARKET_CLOSED", "Market")
    assert not any(isinstance(m, MarketTrade) for m in GAME.legal_moves(state))
    s = go(state, OutlawTrade(FISK, KORN))
    assert s.visthus[0] == res(KORN=1, BROD=1)


def test_calendar_card_fredlos_closes_the_outlaw_trader_it_names() -> None:
    """Fredlös: "The Outlaw Trader is hunted: no trade at the Outlaw Trader while this card is in
    effect." – Any Calendar Card affecting the Market is only applied to the Market, and not at The
    Outlaw Trader unless otherwise stated. (Assumption MARKET_CARDS.)"""
    uses("MARKET_CARDS")
    state = setup(2, starter=0, card="FREDLOS")
    state = acting(state, 0, visthus=vis(state, s0=res(FISK=2, BROD=1)))
    refused(state, OutlawTrade(FISK, KORN), "OUTLAW_CLOSED", "Outlaw")
    assert not any(isinstance(m, OutlawTrade) for m in GAME.legal_moves(state))
    s = go(state, MarketTrade(FISK, KORN))
    assert s.visthus[0] == res(FISK=1, KORN=1, BROD=1)


def test_calendar_card_skeppsbyggare_makes_a_skepp_cheaper_while_in_effect() -> None:
    """Skeppsbyggare: "while this card is in effect, a Skepp costs 1 Virke less." (Assumptions
    CALENDAR_CARDS, SKEPP: 2 Virke and 1 Vadmal otherwise.)"""
    uses("CALENDAR_CARDS", "SKEPP")
    state = setup(2, starter=0, card="SKEPPSBYGGARE")
    cheap = acting(state, 0, visthus=vis(state, s0=res(VIRKE=1, VADMAL=1)))
    s = go(cheap, BuySkepp())
    assert s.skepp == (2, 1) and s.visthus[0] == (0,) * N_RES
    # once the next card is revealed the Skepp costs 2 Virke again
    later = go(_halfway(state), Draw(CAL["TORKA"]))
    later = acting(later, 0, visthus=vis(later, s0=res(VIRKE=1, VADMAL=1)))
    refused(later, BuySkepp(), "CANNOT_AFFORD", "Virke")


def test_calendar_card_gastabud_gives_every_player_a_bread_into_an_empty_slot() -> None:
    """Gästabud: "A feast: every player receives 1 Bröd into an empty Visthus slot." • Items can only be
    collected if there is an empty Slot. (Assumption CALENDAR_CARDS.)"""
    uses("CALENDAR_CARDS")
    state = GAME.new_game(3, Options(), Rng.from_seed(4))
    for i in range(15):
        state = go(state, DrawCard(deal_indices(HARD)[i % 5]))
    state = go(state, Draw(1))
    full = res(LERA=8)
    state = edit(state, visthus=vis(state, s2=full))
    s, events = run(state, Draw(CAL["GASTABUD"]))
    assert s.visthus == (res(BROD=2, LERA=1), res(BROD=2, LERA=1), full)
    gifts = [(e.player, e.detail.resources) for e in events if e.kind == "GIFT_RECEIVED"]
    assert gifts == [(1, (BROD,)), (2, ()), (0, (BROD,))]  # clockwise from the next Starting Player


def test_calendar_card_kungens_skatt_makes_every_player_return_a_raw_resource_of_their_choice() -> None:
    """Kungens skatt: "every player returns 1 Raw Resource of their choice to the supply." – Effects are
    mandatory unless otherwise stated. (Assumption CALENDAR_CARDS: in clockwise order from the next
    Turn's Starting Player; a choice is a decision.)"""
    uses("CALENDAR_CARDS")
    state = GAME.new_game(4, Options(), Rng.from_seed(4))
    for i in range(20):
        state = go(state, DrawCard(deal_indices(HARD)[i % 5]))
    state = go(state, Draw(1))  # Player 2 starts
    rows = (res(BROD=1), res(BROD=1, LERA=1, KORN=1), res(KORN=1, FISK=2), res(LERA=1, BROD=1))
    state = edit(state, visthus=rows)
    s, events = run(state, Draw(CAL["KUNGENS_SKATT"]))
    assert s.phase is Phase.LEVY and s.actor == 1
    assert set(GAME.legal_moves(s)) == {PayLevy(LERA), PayLevy(KORN)}
    refused(s, PayLevy(BROD), "NO_SUCH_RESOURCE", "levy")
    refused(s, EndActions(), "WRONG_STEP")
    s = go(s, PayLevy(KORN))
    assert s.phase is Phase.LEVY and s.actor == 2
    s, events = run(s, PayLevy(FISK))
    # seat 3 has one Raw kind: returned at once; seat 0 has none: nothing
    assert s.phase is Phase.ROLL
    assert s.visthus == (res(BROD=1), res(BROD=1, LERA=1), res(KORN=1, FISK=1), res(BROD=1))
    assert "LEVY_NOTHING" in kinds(events)
    assert s.market == (1,) * N_RES  # the usual reset: Kungens skatt says nothing of the Market


def _end_of_round(state: State, round_: int = 1) -> State:
    """Play passively to the last player's actions of the 12th Turn of ``round_``."""
    n = state.players

    def last(s: State) -> bool:
        return (
            s.round == round_
            and s.turn == 12
            and s.phase is Phase.ACTIONS
            and s.actor == (s.starter + n - 1) % n
        )

    return advance(state, last)[0]


def test_calendar_card_hard_vinter_raises_this_rounds_rations_even_after_the_halfway_card() -> None:
    """Hård vinter: "the Rations at the end of this Calendar Round cost 4 Korn/Fisk or 2 Bröd." – Its
    effect applies until a new Calendar Card is revealed unless otherwise stated. (Assumptions
    CALENDAR_CARDS, RATIONS.)"""
    uses("CALENDAR_CARDS", "RATIONS")
    state = _end_of_round(setup(3, starter=0, card="HARD_VINTER"))
    assert state.card != CAL["HARD_VINTER"]  # replaced halfway, yet its text names this round
    rows = (res(KORN=3, BROD=1), res(FISK=4), res(BROD=2, FISK=1))
    state = edit(state, visthus=rows)
    s = go(state, EndActions())
    assert s.phase is Phase.CALENDAR and s.round == 2
    assert s.visthus[0] == res(KORN=3, BROD=1)  # 3 food and 1 Bröd pay neither way
    assert s.starving == (STARVING, FED, FED)
    assert s.visthus[1] == (0,) * N_RES and s.visthus[2] == res(FISK=1)
    # the next round's Rations are the usual ones again
    s = go(s, Draw(CAL["SKEPPSBYGGARE"]))
    s = _end_of_round(s, 2)
    s = edit(s, visthus=(res(BROD=1),) * 3, starving=(FED, FED, FED))
    s = go(s, EndActions())
    assert s.visthus == ((0,) * N_RES,) * 3 and s.starving == (FED, FED, FED)


# --------------------------------------------------------------------------- Rations, starvation, recovery


def test_rations_cost_three_korn_or_fisk_in_any_combination_or_one_bread() -> None:
    """After the 12th Turn, feed your By: • Cost: • 3 Korn / Fisk (any combination) or • 1 Bröd
    • Players are not allowed to deliberately skip Rations or postpone Recovery. (Assumption RATIONS:
    clockwise from the 12th Turn's Starting Player; the way is the player's choice.)"""
    uses("RATIONS")
    state = _end_of_round(setup(3, starter=0))
    assert state.starter == 2 and state.actor == 1  # Turn 12: Player 3 started, Player 2 acts last
    rows = (res(KORN=2, FISK=2, BROD=1), res(BROD=1, LERA=3), res(KORN=2, LERA=1))
    state = edit(state, visthus=rows)
    s, events = run(state, EndActions())
    # Player 3 (seat 2) first: 2 Korn cannot pay, so they starve
    assert [e.player for e in events if e.kind == "STARVING"] == [2]
    assert s.phase is Phase.RATIONS and s.actor == 0
    assert set(GAME.legal_moves(s)) == {
        PayRation(food=(2, 1)),
        PayRation(food=(1, 2)),
        PayRation(bread=True),
    }  # food counts are Korn, Fisk
    refused(s, PayRation(food=(1, 1)), "BAD_RATION")
    refused(s, PayRation(food=(3, 0)), "CANNOT_PAY_RATION")
    refused(s, EndActions(), "WRONG_STEP")
    s, events = run(s, PayRation(food=(1, 2)))
    assert s.visthus[0] == res(KORN=1, BROD=1)
    assert s.visthus[1] == res(LERA=3)  # one way only: paid at once
    assert s.visthus[2] == rows[2]
    assert s.starving == (FED, FED, STARVING)
    assert s.phase is Phase.CALENDAR and s.round == 2


def test_a_starving_player_collects_only_food() -> None:
    """• Starvation: If you cannot pay the Ration cost, you are restricted next Calendar Round to only:
    • Collect food (Korn or Fisk ) (Assumption STARVATION.)"""
    uses("STARVATION")
    state = setup(2, starter=0)
    state = edit(state, starving=(FED, STARVING), visthus=vis(state, s1=res(LERA=1)))
    s, _ = roll(state, 2)  # Korn (face) and Ull (plot)
    assert s.visthus == (res(BROD=1, LERA=1, KORN=1, ULL=1), res(LERA=1, KORN=1))
    s, _ = roll(state, 3)  # Lera and Virke: nothing for the starving player
    assert s.visthus[1] == res(LERA=1)


def test_a_starving_player_may_only_trade_craft_bread_and_discard() -> None:
    """You are restricted next Calendar Round to only: • Collect food (Korn or Fisk ) • Craft Bröd •
    Trade • Receive Payment (also non-food Resources) from Birka Buildings • All other actions are
    unavailable until the Ration cost is paid (Assumption STARVATION.)"""
    uses("STARVATION", "DISCARD")
    state = setup(2, starter=0, card="MIDSOMMARBLOT")  # Tinget costs 1 Vadmal
    row = res(LERA=3, VIRKE=2, KORN=2, VADMAL=1)
    state = acting(
        state,
        0,
        starving=(STARVING, FED),
        owners=own(state, ELDHUS=0, STALLET=0, KRUKMAKERI=1),
        visthus=vis(state, s0=row),
    )
    message = refused(state, Build(B["BLASTERUGN"]), "STARVING")
    assert "ration" in message.lower() or "starv" in message.lower()
    refused(state, BuySkepp(), "STARVING")
    refused(state, BuildExtension(), "STARVING")
    refused(state, AcquireRunestone(), "STARVING")
    refused(state, Upgrade(PLOT["KORN"], HAST), "STARVING")
    refused(state, Craft(B["KRUKMAKERI"]), "STARVING")
    # the same moves are open to a player who is fed
    fed = edit(state, starving=(FED, FED))
    for move in (
        Build(B["BLASTERUGN"]),
        BuySkepp(),
        BuildExtension(),
        AcquireRunestone(),
        Craft(B["KRUKMAKERI"]),
    ):
        assert move in GAME.legal_moves(fed), move
    moves = GAME.legal_moves(state)
    assert MarketTrade(LERA, FISK) in moves and OutlawTrade(LERA, FISK) in moves and Discard(LERA) in moves
    assert Craft(B["ELDHUS"]) in moves
    s = go(state, Discard(LERA))
    assert s.actions_left == 1


def test_a_starving_player_receives_payments_also_non_food() -> None:
    """• Receive Payment (also non-food Resources) from Birka Buildings (Assumptions STARVATION,
    OWNER_PAYMENTS.)"""
    uses("STARVATION", "OWNER_PAYMENTS")
    state = setup(2, starter=0)
    state = acting(
        state,
        0,
        starving=(FED, STARVING),
        owners=own(state, KOLMILA=1),
        visthus=vis(state, s0=res(VIRKE=3), s1=res(LERA=1)),
    )
    s = go(state, Craft(B["KOLMILA"]))
    assert s.visthus == (one(TRAKOL), res(LERA=1, VIRKE=1))


def test_recovery_pays_the_ration_at_once_is_no_action_and_normal_play_resumes_next_turn() -> None:
    """• Recovery: As soon as the Ration is paid, the Player resumes normal play from the next Turn.
    Starvation does not stack. The Recovery step does not count as an Action. (Assumption RECOVERY.)"""
    uses("RECOVERY")
    state = setup(2, starter=0)
    state = edit(state, starving=(STARVING, FED), visthus=vis(state, s0=res(KORN=2, LERA=2, VIRKE=1)))
    s, events = roll(state, 2)  # the third Korn: the Ration can be paid
    assert "RECOVERED" in kinds(events)
    assert s.phase is Phase.ACTIONS and s.actor == 0
    assert s.visthus[0] == res(LERA=2, VIRKE=1)  # 3 Korn paid; the Ull was not collected
    assert s.starving[0] == RECOVERED and s.actions_left == 1  # no action used
    refused(s, Build(B["ELDHUS"]), "STARVING")  # normal play from the next Turn
    s = go(s, EndActions(), EndActions())
    s, _ = roll(s, 4)
    assert s.starving[0] == FED
    s = go(s, EndActions())
    assert s.actor == 0 and Build(B["ELDHUS"]) in GAME.legal_moves(s)


def test_recovery_with_several_ways_to_pay_is_the_players_choice_but_cannot_be_postponed() -> None:
    """• Players are not allowed to deliberately skip Rations or postpone Recovery. The Recovery step
    does not count as an Action. (Assumption RECOVERY: as soon as the player holds a Ration, at the start
    of their actions and after each of their moves.)"""
    uses("RECOVERY")
    state = setup(2, starter=0, card="SILLSTIM")
    state = edit(state, starving=(STARVING, FED), visthus=vis(state, s0=res(KORN=2, LERA=2)))
    s, _ = roll(state, 1)  # 2 Fisk (the face and Sillstim); the Malm is no food
    assert s.visthus[0] == res(KORN=2, FISK=2, LERA=2)
    assert s.phase is Phase.RECOVER and s.actor == 0
    assert set(GAME.legal_moves(s)) == {PayRation(food=(2, 1)), PayRation(food=(1, 2))}
    refused(s, EndActions(), "WRONG_STEP")
    refused(s, MarketTrade(LERA, ULL), "WRONG_STEP")
    s, events = run(s, PayRation(food=(2, 1)))
    assert "RECOVERED" in kinds(events)
    assert s.phase is Phase.ACTIONS and s.actions_left == 1 and s.starving[0] == RECOVERED
    assert s.visthus[0] == res(FISK=1, LERA=2)
    # after a move: the trade that brings the third Korn pays the Ration at once
    trade = acting(state, 0, visthus=vis(state, s0=res(KORN=2, LERA=2)))
    trade, events = run(trade, MarketTrade(LERA, KORN))
    assert "RECOVERED" in kinds(events)
    assert trade.visthus[0] == res(LERA=1) and trade.starving[0] == RECOVERED


def test_starvation_does_not_stack_one_ration_ends_it() -> None:
    """Starvation does not stack. (Assumption RECOVERY: a player still starving at the end of a round pays
    that round's Ration once, which also ends the starvation.)"""
    uses("RECOVERY", "RATIONS")
    state = _end_of_round(setup(2, starter=0))
    assert state.actor == 0 and state.starter == 1
    state = edit(
        state,
        starving=(FED, STARVING),
        owners=own(state, ELDHUS=1),
        visthus=vis(state, s0=res(KORN=3, BROD=1), s1=res(KORN=2, LERA=1)),
    )
    s = go(state, Craft(B["ELDHUS"]))  # pays Player 2 a Korn: they hold 3 Korn now
    assert s.visthus[1] == res(KORN=3, LERA=1) and s.starving[1] == STARVING
    s, events = run(s, EndActions())
    assert s.phase is Phase.CALENDAR
    assert [e.player for e in events if e.kind == "RATION_PAID"] == [1, 0]
    assert s.visthus[1] == res(LERA=1) and s.starving == (FED, FED)  # one Ration, not two


def test_no_rations_when_the_game_ends_in_the_last_round() -> None:
    """No Rations are required if the game ends in Calendar Round 10. (Assumption GAME_LENGTH: after the
    last round, 5 by default.)"""
    uses("GAME_LENGTH")
    state = _end_of_round(setup(2, starter=0), 5)
    state = edit(state, visthus=(res(KORN=2, BROD=1), res(LERA=1)), starving=(FED, FED))
    s, events = run(state, EndActions())
    assert s.phase is Phase.OVER
    assert "RATION_PAID" not in kinds(events) and "STARVING" not in kinds(events)
    assert "LAST_ROUND_ENDED" in kinds(events)
    assert s.visthus == state.visthus


# --------------------------------------------------------------------------- Mjödhallen

MJOD = B["MJODHALLEN"]


def test_mjodhallen_the_owner_places_a_permanent_dice_token() -> None:
    """Mjödhallen – The owner places a permanent Dice token in the white box. (Assumptions MJODHALLEN,
    BUILDING_PRICES: 2 Virke, 1 Keramik and 1 Korn.)"""
    uses("MJODHALLEN", "BUILDING_PRICES")
    state = setup(2, starter=0)
    state = acting(state, 0, visthus=vis(state, s0=res(VIRKE=2, KERAMIK=1, KORN=1, BROD=1)))
    s, events = run(state, Build(MJOD))
    assert s.owners[MJOD] == 0 and s.visthus[0] == res(BROD=1)
    assert s.phase is Phase.MJOD_TOKEN and s.actor == 0
    assert set(GAME.legal_moves(s)) == {PlaceToken(v) for v in range(1, 7)}
    refused(s, EndActions(), "WRONG_STEP")
    s, events = run(s, PlaceToken(5))
    assert "MJODHALLEN_TOKEN" in kinds(events) and s.mjod_token == 5
    assert s.phase is Phase.ACTIONS
    s, events = advance(s, lambda x: x.round == 2)
    assert s.mjod_token == 5 and "MJODHALLEN_TOKEN" not in kinds(events)


def _mjod(players: int, owner: int, token: int, starter: int = 0, **fields: Any) -> State:
    state = setup(players, starter=starter)
    return edit(state, owners=own(state, MJODHALLEN=owner), mjod_token=token, **fields)


def test_mjodhallen_the_roller_pays_the_owner_a_raw_resource_of_their_choice() -> None:
    """– If the rolled Dice matches this, the roller must pay the owner 1 Raw Resource. – The payment is
    part of the collection phase. (Assumption MJODHALLEN: after everyone's collection, the roller
    chooses.)"""
    uses("MJODHALLEN")
    state = _mjod(3, owner=1, token=3, starter=2)
    s, events = roll(state, 3)  # everyone collects Lera and Virke first
    assert kinds(events).count("COLLECTED") == 3
    assert s.phase is Phase.TRIBUTE_PAY and s.actor == 2
    assert set(GAME.legal_moves(s)) == {PayTribute(LERA), PayTribute(VIRKE)}
    refused(s, PayTribute(BROD), "NO_SUCH_RAW_RESOURCE")
    refused(s, PayTribute(FISK), "NO_SUCH_RAW_RESOURCE")
    s, events = run(s, PayTribute(VIRKE))
    assert "TRIBUTE" in kinds(events)
    after_roll = res(BROD=1, LERA=2, VIRKE=1)
    assert s.visthus == (after_roll, plus(after_roll, one(VIRKE)), res(BROD=1, LERA=2))
    assert s.phase is Phase.ACTIONS and s.actor == 2
    # another number: nobody pays
    s, events = roll(state, 1)
    assert s.phase is Phase.ACTIONS and "TRIBUTE" not in kinds(events)


def test_mjodhallen_the_owner_rolling_it_takes_a_raw_resource_from_any_player() -> None:
    """– If the owner rolls it, they take 1 Raw Resource from any Player. (Assumption MJODHALLEN: any
    other player, the owner's choice.)"""
    uses("MJODHALLEN")
    state = _mjod(3, owner=0, token=3, starter=0)
    state = edit(state, visthus=vis(state, s1=res(BROD=1), s2=res(FISK=1, BROD=1)))
    s, _ = roll(state, 3)
    assert s.phase is Phase.TRIBUTE_TAKE and s.actor == 0
    expected = {TakeTribute(seat, r) for seat in (1, 2) for r in (LERA, VIRKE)} | {TakeTribute(2, FISK)}
    assert set(GAME.legal_moves(s)) == expected
    refused(s, TakeTribute(0, LERA), "NOT_ANOTHER_PLAYER")
    refused(s, TakeTribute(1, FISK), "NO_SUCH_RAW_RESOURCE")
    refused(s, TakeTribute(1, BROD), "NO_SUCH_RAW_RESOURCE")
    s = go(s, TakeTribute(2, FISK))
    assert s.visthus[0] == res(BROD=1, LERA=2, VIRKE=1, FISK=1)
    assert s.visthus[2] == res(BROD=1, LERA=1, VIRKE=1)
    assert s.phase is Phase.ACTIONS and s.actor == 0


def test_mjodhallen_the_owner_may_collect_only_part_to_have_room_for_the_payment() -> None:
    """– The payment is part of the collection phase. In case the Owner has limited empty Slots, the
    Owner can choose to collect only parts of the regular collection to have room for the payment.
    (Assumption MJODHALLEN: the owner collects one at a time and may stop.)"""
    uses("MJODHALLEN", "COLLECTION")
    six = res(BROD=1, LERA=5)
    state = _mjod(2, owner=1, token=1, starter=0)
    state = edit(state, visthus=vis(state, s1=six))
    s, _ = roll(state, 1)  # Fisk and Malm for everyone; the owner has 2 empty slots
    assert s.visthus[0] == res(BROD=1, LERA=1, FISK=1, MALM=1)
    assert s.phase is Phase.COLLECT and s.actor == 1
    assert set(GAME.legal_moves(s)) == {Collect(FISK), Collect(MALM), StopCollecting()}
    s = go(s, Collect(MALM))
    assert s.phase is Phase.COLLECT and StopCollecting() in GAME.legal_moves(s)
    s, events = run(s, StopCollecting())
    assert "COLLECTION_STOPPED" in kinds(events)
    assert s.phase is Phase.TRIBUTE_PAY and s.actor == 0
    s = go(s, PayTribute(FISK))
    assert s.visthus[1] == plus(six, res(MALM=1, FISK=1))
    assert s.visthus[0] == res(BROD=1, LERA=1, MALM=1)
    # only the owner, and only when its number is rolled, may leave part of the collection
    seven = res(BROD=1, LERA=6)
    s, _ = roll(edit(state, visthus=vis(state, s0=seven)), 1)
    assert (s.phase, s.actor) == (Phase.COLLECT, 0)
    refused(s, StopCollecting(), "MUST_COLLECT", "Mjödhallen")
    other = edit(state, mjod_token=5, visthus=vis(state, s1=seven))
    s, _ = roll(other, 1)
    assert (s.phase, s.actor) == (Phase.COLLECT, 1)
    refused(s, StopCollecting(), "MUST_COLLECT")
    # with room for everything there is nothing to choose
    s, _ = roll(edit(state, visthus=vis(state, s1=res(BROD=1))), 1)
    assert s.phase is Phase.TRIBUTE_PAY and s.visthus[1] == res(BROD=1, FISK=1, MALM=1)


def test_mjodhallen_the_owner_receives_nothing_without_raw_resources_or_an_empty_slot() -> None:
    """– If no Raw Resources are available, the Owner receives nothing. – After this, the game continues
    as normal. – The Mjödhallen Owner is responsible for reminding the other Players to pay, and only
    accept resources if they have empty Visthus Slots. (Assumption MJODHALLEN.)"""
    uses("MJODHALLEN")
    crafted = res(BROD=2, TRAN=2, KERAMIK=2, JARN=1, VADMAL=1)  # 8: full, no Raw Resource
    state = _mjod(2, owner=1, token=3, starter=0)
    s, events = roll(edit(state, visthus=vis(state, s0=crafted)), 3)
    assert "NO_TRIBUTE" in kinds(events) and "TRIBUTE" not in kinds(events)
    assert s.phase is Phase.ACTIONS and s.actor == 0 and s.visthus[0] == crafted
    # the owner rolling it, with nobody holding a Raw Resource
    state = _mjod(2, owner=0, token=3, starter=0)
    s, events = roll(edit(state, visthus=vis(state, s1=crafted)), 3)
    assert "NO_TRIBUTE" in kinds(events)
    assert s.phase is Phase.ACTIONS and s.visthus[1] == crafted
    # the owner has no empty slot: the roller keeps their resources
    state = _mjod(2, owner=1, token=3, starter=0)
    full = res(LERA=4, ULL=4)
    s, events = roll(edit(state, visthus=vis(state, s1=full)), 3)
    assert "NO_TRIBUTE" in kinds(events)
    assert s.visthus == (res(BROD=1, LERA=2, VIRKE=1), full)


# --------------------------------------------------------------------------- Runestones


def test_a_shared_birka_runestone_becomes_impossible_once_another_player_builds_it() -> None:
    """Since multiple Players can have the same Runestone (Birka based Runestone), some Runestone will not
    be possible to complete, e.g. Player Bear and Raven both need to build the Kolmila, and if Bear builds
    it first, Raven will not be able to complete the Runestone. – All Byn have the same set of Runestone
    Cards. (Assumptions IMPOSSIBLE_RUNESTONES, RUNESTONE_DECKS.)"""
    uses("IMPOSSIBLE_RUNESTONES", "RUNESTONE_DECKS")
    hand = ("BUILD_KOLMILA", "UPGRADES_5", "FULL_PLOT", "STORE_ALL_CRAFTED", "STORE_JARN_TRAKOL")
    state = setup(3, starter=0, hands={0: hand, 1: hand})  # Bear is seat 0, Raven seat 1
    kolmila = RS["BUILD_KOLMILA"]
    assert kolmila in state.hands[0] and kolmila in state.hands[1]
    state = acting(state, 0, visthus=vis(state, s0=res(LERA=2, MALM=1), s1=res(LERA=2, MALM=1)))
    s, events = run(state, Build(B["KOLMILA"]))
    assert s.completed[0] == (kolmila,) and s.completed[1] == ()
    assert not possible(s, 1, kolmila, REFERENCE) and possible(state, 1, kolmila, REFERENCE)
    done = next(e for e in events if e.kind == "RUNESTONE_COMPLETED")
    blocked = next(e for e in events if e.kind == "RUNESTONE_BLOCKED")
    assert done.player == 0 and blocked.player == 1
    # each is told privately
    assert GAME.view_event(done, 1) is None and GAME.view_event(done, 2) is None
    assert GAME.view_event(blocked, 0) is None and GAME.view_event(blocked, 1) is not None
    assert not any(c["name"] in e.text for e in events for c in CARDS)
    # Raven can never build the Kolmila now
    raven = acting(s, 1)
    refused(raven, Build(B["KOLMILA"]), "BUILDING_OWNED")


def test_a_runestone_is_completed_when_its_conditions_are_fulfilled_and_stays_completed() -> None:
    """– A Runestone is completed when its conditions are fulfilled. (Assumption RUNESTONE_CARDS: checked
    after every change, and it stays completed.)"""
    uses("RUNESTONE_CARDS")
    hand = ("STORE_BROD", "SKEPP_2", "UPGRADES_5", "FULL_PLOT", "STORE_ALL_CRAFTED")
    state = setup(2, starter=0, hands={0: hand})
    state = acting(state, 0, visthus=vis(state, s0=res(BROD=2, TRAN=2, VIRKE=2, VADMAL=1)))
    assert state.completed[0] == ()
    s, events = run(state, BuySkepp())  # the second Skepp
    assert s.completed[0] == (RS["SKEPP_2"],) and "RUNESTONE_COMPLETED" in kinds(events)
    s, events = run(s, OutlawTrade(TRAN, BROD))  # 2 Tran for the third Bröd
    assert s.completed[0] == tuple(sorted((RS["STORE_BROD"], RS["SKEPP_2"])))
    assert "RUNESTONE_COMPLETED" in kinds(events)
    s = go(s, Discard(BROD), Discard(BROD))
    assert RS["STORE_BROD"] in s.completed[0]  # holding fewer Bröd later does not undo it


def test_the_game_ends_immediately_when_a_player_completes_five_runestones() -> None:
    """End of Game is triggered immediately when: • A Player completes 5 Runestone Cards 1. The Player
    who completed 5 Runestones reveals their cards and calculates points. 2. In clockwise order Remaining
    Players reveal and calculate points. 3. The Finisher Bonus: The Player who completed 5 Runestone gains
    1 point for each opponent. (Assumptions GAME_END, SCORING.)"""
    uses("GAME_END", "SCORING")
    hand = ("SKEPP_2", "EXTENSION", "BUILD_ELDHUS", "STORE_BROD", "BUILD_KOLMILA")
    other = ("STORE_BROD", "UPGRADES_5", "FULL_PLOT", "STORE_ALL_CRAFTED", "SKEPP_4")
    done = ("SKEPP_2", "EXTENSION", "BUILD_ELDHUS", "STORE_BROD")
    state = setup(3, starter=0)
    state = with_hands(
        state,
        {1: (hand, done), 2: (other, ("STORE_BROD",))},
        skepp=(1, 2, 1),
        extension=(False, True, False),
        owners=own(state, ELDHUS=1),
        visthus=vis(state, s1=res(BROD=3, LERA=2, MALM=1), s2=res(BROD=3)),
    )
    state = acting(state, 1, actions_left=2)  # Player 2 acts after Player 1 in this Turn
    s, events = run(state, Build(B["KOLMILA"]))
    assert s.phase is Phase.OVER and s.finisher == 1
    assert "GAME_ENDS" in kinds(events)
    revealed = [e.player for e in events if e.kind == "RUNESTONES_REVEALED"]
    assert revealed == [1, 2, 0]  # the finisher first, then clockwise
    five = sum(POINTS[c] for c in (*done, "BUILD_KOLMILA"))
    assert five == 12
    assert s.scores == (0, five + 2, POINTS["STORE_BROD"])  # + 1 point for each of 2 opponents
    bonus = next(e for e in events if e.kind == "FINISHER_BONUS")
    assert bonus.player == 1
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.result is Result.WIN and outcome.winners == (1,)
    assert GAME.legal_moves(s) == [] or tuple(GAME.legal_moves(s)) == ()
    assert GAME.to_act(s).players == ()
    # every hand is shown once the game is over
    assert GAME.view(s, 0).hands == s.hands
    refused(s, EndActions(), "GAME_OVER")


def test_a_player_completing_more_than_five_counts_the_five_highest() -> None:
    """In rare cases where a Player completes more than 5 Runestones, the Player counts the 5 highest
    rewarded Cards. (Assumption SCORING.)"""
    uses("SCORING")
    hand = ("SKEPP_2", "EXTENSION", "STORE_BROD", "BUILD_ELDHUS", "BUILD_KOLMILA", "BUILDINGS_2")
    state = setup(2, starter=0)
    state = with_hands(
        state,
        {0: (hand, ("SKEPP_2", "EXTENSION", "STORE_BROD", "BUILD_ELDHUS"))},
        skepp=(2, 1),
        extension=(True, False),
        owners=own(state, ELDHUS=0),
        visthus=vis(state, s0=res(BROD=3, LERA=2, MALM=1)),
    )
    state = acting(state, 0)
    s = go(state, Build(B["KOLMILA"]))  # completes both the Kolmila's and "Own 2 buildings"
    assert s.phase is Phase.OVER and len(s.completed[0]) == 6
    best = sorted((POINTS[c] for c in hand), reverse=True)[:5]
    assert sum(best) == 13
    assert s.scores[0] == 13 + 1


def test_the_player_who_triggered_the_end_wins_a_tie() -> None:
    """4. Tiebreaker: The Player who triggered the end wins. (Assumption SCORING.)"""
    uses("SCORING")
    hand = ("SKEPP_2", "EXTENSION", "BUILD_ELDHUS", "STORE_BROD", "BUILD_KOLMILA")
    rival = ("SKEPP_4", "BUILD_TRANKOKERI", "EXTENSION", "STORE_BROD", "UPGRADES_5")
    state = setup(2, starter=0)
    state = with_hands(
        state,
        {0: (hand, hand[:4]), 1: (rival, rival[:4])},
        skepp=(2, 4),
        extension=(True, True),
        owners=own(state, ELDHUS=0, TRANKOKERI=1),
        visthus=(res(BROD=3, LERA=2, MALM=1), res(BROD=3)),
    )
    state = acting(state, 0)
    s = go(state, Build(B["KOLMILA"]))
    assert s.scores == (12 + 1, 6 + 3 + 2 + 2)  # a tie at 13
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.result is Result.WIN and outcome.winners == (0,)


def test_victory_is_shared_when_the_finisher_is_not_among_the_tied() -> None:
    """4. Tiebreaker: The Player who triggered the end wins. If not among tied Players, victory is
    shared. (Assumption SCORING.)"""
    uses("SCORING")
    hand = ("SKEPP_2", "EXTENSION", "BUILD_ELDHUS", "STORE_BROD", "BUILD_KOLMILA")
    rival1 = ("SKEPP_4", "STORE_ALL_CRAFTED", "BUILD_TRANKOKERI", "UPGRADES_5", "FULL_PLOT")
    rival2 = ("SKEPP_4", "STORE_ALL_CRAFTED", "BUILD_VAVSTUGA", "UPGRADES_5", "FULL_PLOT")
    every = res(TRAN=1, BROD=1, KERAMIK=1, JARN=1, VADMAL=1, TRAKOL=1)
    state = setup(3, starter=0)
    state = with_hands(
        state,
        {0: (hand, hand[:4]), 1: (rival1, rival1[:3]), 2: (rival2, rival2[:3])},
        skepp=(2, 4, 4),
        extension=(True, False, False),
        owners=own(state, ELDHUS=0, TRANKOKERI=1, VAVSTUGA=2),
        visthus=(res(BROD=3, LERA=2, MALM=1), every, every),
    )
    state = acting(state, 0)
    s = go(state, Build(B["KOLMILA"]))
    assert s.scores == (12 + 2, 15, 15)
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.result is Result.WIN and outcome.winners == (1, 2)


def test_a_tie_at_the_end_of_the_last_round_is_shared() -> None:
    """• The 10th Calendar Round ends ... 4. Tiebreaker: The Player who triggered the end wins. If not
    among tied Players, victory is shared. (Assumptions GAME_LENGTH, SCORING: without a finisher the tied
    players share.)"""
    uses("GAME_LENGTH", "SCORING")
    state = _end_of_round(setup(3, starter=0), 5)
    hand = ("STORE_BROD", "UPGRADES_5", "FULL_PLOT", "STORE_ALL_CRAFTED", "SKEPP_4")
    state = with_hands(
        state,
        {0: (hand, ("STORE_BROD",)), 1: (hand, ("STORE_BROD",))},
        visthus=(res(BROD=3), res(BROD=3), res(LERA=1)),
        starving=(FED, FED, FED),
    )
    assert state.starter == 2  # the 60th Turn's Starting Player
    s, events = run(state, EndActions())
    assert s.phase is Phase.OVER and s.finisher == -1
    assert s.scores == (2, 2, 0)
    assert [e.player for e in events if e.kind == "RUNESTONES_REVEALED"] == [2, 0, 1]
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.result is Result.WIN and outcome.winners == (0, 1)
    assert "FINISHER_BONUS" not in kinds(events)


def test_a_gift_completing_two_players_fifth_card_ends_the_game_for_the_first_clockwise() -> None:
    """End of Game is triggered immediately when: • A Player completes 5 Runestone Cards (Assumptions
    GAME_END: several at once, the first clockwise from the Starting Player completed them;
    CALENDAR_CARDS: Gästabud's gifts go clockwise from the next Turn's Starting Player.)"""
    uses("GAME_END", "CALENDAR_CARDS")
    state = advance(setup(3, starter=2), lambda s: s.phase is Phase.CALENDAR)[0]
    assert state.starter == 2  # Turn 7 is Player 3's
    hand0 = ("SKEPP_2", "EXTENSION", "BUILD_ELDHUS", "BUILD_KOLMILA", "STORE_BROD")
    hand2 = ("SKEPP_2", "EXTENSION", "BUILD_KRUKMAKERI", "BUILD_VAVSTUGA", "STORE_BROD")
    state = with_hands(
        state,
        {0: (hand0, hand0[:4]), 2: (hand2, hand2[:4])},
        skepp=(2, 1, 2),
        extension=(True, False, True),
        owners=own(state, ELDHUS=0, KOLMILA=0, KRUKMAKERI=2, VAVSTUGA=2),
        visthus=(res(BROD=2), res(BROD=1), res(BROD=2)),
        starving=(FED, FED, FED),
    )
    s = go(state, Draw(CAL["GASTABUD"]))
    assert s.phase is Phase.OVER and s.finisher == 2
    assert s.scores == (12, 0, 12 + 2)
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.winners == (2,)  # the tie goes to who triggered the end


# --------------------------------------------------------------------------- more of the Byn


def test_a_visthus_extension_increases_the_available_slots_once() -> None:
    """• You can buy a Visthus extension to increase available Slots. (Assumption VISTHUS: 8 slots, the
    extension 4 more for 2 Virke and 2 Lera, once.)"""
    uses("VISTHUS")
    state = setup(2, starter=1)
    row = res(VIRKE=2, LERA=2, ULL=4)
    state = acting(state, 1, visthus=vis(state, s1=row))
    s, events = run(state, BuildExtension())
    assert "EXTENSION_BUILT" in kinds(events) and s.extension == (False, True)
    assert s.visthus[1] == res(ULL=4)
    s = edit(s, visthus=vis(s, s1=res(ULL=11)))  # 11 of 12 slots: a slot an 8-slot Visthus lacks
    refused(acting(s, 1, visthus=vis(s, s1=res(VIRKE=2, LERA=2))), BuildExtension(), "EXTENSION_OWNED")
    s = go(s, EndActions(), EndActions())
    s, _ = roll(s, 6)  # Virke and Lera due: one slot, the player chooses
    assert s.phase is Phase.COLLECT and s.actor == 1
    s = go(s, Collect(LERA))
    assert sum(s.visthus[1]) == 12


def test_collection_takes_only_what_the_supply_holds() -> None:
    """In rare cases, if the Supply pile runs out of a Resource, the Resource cannot be replaced by
    another Resource. (Assumptions SUPPLY, COLLECTION: only what the supply holds is collected.)"""
    uses("SUPPLY", "COLLECTION")
    state = setup(3, starter=0)
    lera = TOTAL[LERA] - state.market[LERA]  # every Lera token: 29 in the Visthus, 1 at the Market
    rows = (res(LERA=9, BROD=1), res(LERA=10), res(LERA=lera - 19))  # 2 empty slots each
    state = edit(state, extension=(True, True, True), visthus=rows)
    assert supply(state, LERA) == 0
    s, _ = roll(state, 3)  # Lera (face) and Virke (plot): the Lera pile is empty
    assert s.phase is Phase.ACTIONS
    assert s.visthus == tuple(plus(row, one(VIRKE)) for row in rows)


# --------------------------------------------------------------------------- hidden information


def _mid_game() -> State:
    state = setup(2, starter=0, card="SKEPPSBYGGARE")
    return acting(state, 0, visthus=(res(VADMAL=1, KERAMIK=1, BROD=1), res(BROD=1, LERA=1)))


def _other_hand(state: State) -> State:
    """Seat 0 holds other cards (and so another deck), the RNG is another one: nothing else changes."""
    hand = ("BUILD_TRANKOKERI", "SKEPP_3", "TRAL_2", "HAST_2", "VERKTYG_2")
    return with_hands(state, {0: (hand, ())}, rng=Rng.from_seed(99))


def test_another_seats_view_does_not_change_with_a_hand_it_may_not_see_or_the_rng() -> None:
    """– Each Player begins with 5 Runestones, hidden for other players. – Runestones remain hidden until
    the end of the game. (Assumption RUNESTONE_SECRECY.)"""
    uses("RUNESTONE_SECRECY")
    a = _mid_game()
    b = _other_hand(a)
    assert a.hands[0] != b.hands[0] and a.decks[0] != b.decks[0] and a.rng != b.rng
    assert GAME.view(a, 1) == GAME.view(b, 1)
    assert GAME.view(a, None) == GAME.view(b, None)
    assert GAME.view(a, 0) != GAME.view(b, 0)
    assert GAME.view(a, 1).hands[0] == (HIDDEN,) * 5 and GAME.view(a, 1).hands[1] == a.hands[1]


def test_another_seat_sees_the_same_move_log_and_events_whatever_the_hidden_cards() -> None:
    """– Runestones remain hidden until the end of the game. When purchasing a Runestone Card, the Player
    acquires two new cards, and keeps one, and discards the other. (Assumption RUNESTONE_SECRECY: the
    cards drawn and kept are named only to their holder.)"""
    uses("RUNESTONE_SECRECY")
    moves = [AcquireRunestone(), DrawCard(3), DrawCard(7), KeepCard(1), EndActions(), EndActions(), Draw(2)]
    logs = []
    for state in (_mid_game(), _other_hand(_mid_game())):
        log = []
        for move in moves:
            actor = state.actor
            state, events = run(state, move)
            seen = [GAME.view_event(e, 1) for e in events]
            log.append((GAME.view_move(move, actor, 1), seen, GAME.view(state, 1)))
        logs.append((log, state))
    (log_a, end_a), (log_b, end_b) = logs
    assert end_a.hands[0] != end_b.hands[0]  # seat 0 kept different cards
    assert log_a == log_b
    assert log_a[1][0] == DrawCard(HIDDEN)  # the card drawn is not shown to seat 1
    # the holder is told which card they kept
    a = go(_mid_game(), AcquireRunestone(), DrawCard(3), DrawCard(7))
    drawn = a.drawn
    a, events = run(a, KeepCard(1))
    kept = next(e for e in events if e.kind == "CARD_KEPT")
    mine = GAME.view_event(kept, 0)
    theirs = GAME.view_event(kept, 1)
    assert mine is not None and drawn[1] in mine.detail.cards
    assert theirs is not None and theirs.detail.cards == ()
    # the drawer's own log shows their draw
    assert GAME.view_move(DrawCard(3), 0, 0) == DrawCard(3)
    # a server draw from different RNGs looks the same to seat 1
    a = go(_mid_game(), AcquireRunestone())
    b = a._replace(rng=Rng.from_seed(12345))
    views = []
    for s in (a, b):
        s, events = run(s, DrawCard(), DrawCard())
        views.append(([GAME.view_event(e, 1) for e in events], GAME.view(s, 1)))
    assert views[0] == views[1]


def test_dealt_cards_are_secret_in_the_events_other_seats_see() -> None:
    """• 5 random Runestone Cards (keep hidden from other players) (Assumption RUNESTONE_SECRECY.)"""
    uses("RUNESTONE_SECRECY")
    state = GAME.new_game(2, Options(), Rng.from_seed(5))
    state, events = run(state, DrawCard(4))
    dealt = events[0]
    assert dealt.kind == "CARD_DEALT" and dealt.player == 0
    other = GAME.view_event(dealt, 1)
    assert other is not None and other.detail.cards == ()
    own_view = GAME.view_event(dealt, 0)
    assert own_view is not None and own_view.detail.cards == (4,)
    assert not any(c["name"] in dealt.text for c in CARDS)
    assert GAME.view_move(DrawCard(4), 0, 1) == DrawCard(HIDDEN)


# --------------------------------------------------------------------------- refusals


def test_refusals_of_moves_of_the_wrong_kind_name_what_the_game_waits_for() -> None:
    """Every refused move is explained: a stable UPPER_SNAKE reason and a sentence naming the rule."""
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    refused(state, Draw(1), "WRONG_DRAW", "card")  # a card is dealt, not a die
    state = setup(2, starter=0)
    refused(state, DrawCard(0), "WRONG_DRAW", "die")
    refused(state, EndActions(), "WRONG_STEP", "roll")
    state, _ = roll(state, 3)
    refused(state, Draw(3), "NOT_A_CHANCE_STEP")
    refused(state, PayRation(bread=True), "WRONG_STEP")
    refused(state, PayTribute(LERA), "WRONG_STEP")
    refused(state, Collect(LERA), "WRONG_STEP")
    refused(state, KeepCard(0), "WRONG_STEP")


def test_refusals_of_actions_that_name_nothing_in_the_game() -> None:
    """Every refused move is explained: a stable UPPER_SNAKE reason and a sentence naming the rule."""
    state = setup(2, starter=0)
    state = acting(state, 0, visthus=vis(state, s0=res(LERA=3, VIRKE=3, MALM=1, BROD=1)))
    refused(state, Craft(B["TINGET"]), "NOT_A_CRAFTING_BUILDING", "crafting")
    refused(state, Craft(B["SMEDJAN"]), "NOT_A_CRAFTING_BUILDING", "crafting")
    refused(state, Craft(99), "NO_SUCH_BUILDING")
    refused(state, Upgrade(6, TRAL), "NO_SUCH_PLOT", "Plot")
    refused(state, Upgrade(PLOT["FISK"], 3), "NO_SUCH_GOOD", "Träl")
    refused(state, Build(len(BIRKA["buildings"])), "NO_SUCH_BUILDING", "building")
    refused(state, MarketTrade(LERA, 12), "NO_SUCH_RESOURCE")
    refused(state, Discard(-1), "NO_SUCH_RESOURCE")


# --------------------------------------------------------------------------- more corners


def test_mjodhallen_owner_rolling_it_may_also_stop_collecting_and_a_starving_roller_still_pays() -> None:
    """– If the owner rolls it, they take 1 Raw Resource from any Player. ... In case the Owner has limited
    empty Slots, the Owner can choose to collect only parts of the regular collection to have room for
    the payment. (Assumptions MJODHALLEN, STARVATION: a starving player still pays the Mjödhallen.)"""
    uses("MJODHALLEN", "STARVATION")
    state = _mjod(2, owner=0, token=1, starter=0)
    six = res(BROD=1, LERA=5)
    s, _ = roll(edit(state, visthus=vis(state, s0=six)), 1)
    assert s.phase is Phase.COLLECT and s.actor == 0 and StopCollecting() in GAME.legal_moves(s)
    s = go(s, Collect(FISK), StopCollecting())
    assert s.phase is Phase.TRIBUTE_TAKE and s.actor == 0
    assert set(GAME.legal_moves(s)) == {TakeTribute(1, r) for r in (FISK, LERA, MALM)}
    s = go(s, TakeTribute(1, MALM))
    assert s.visthus == (plus(six, res(FISK=1, MALM=1)), res(BROD=1, LERA=1, FISK=1))
    # a starving roller pays too: with one Raw kind it is paid at once
    state = _mjod(2, owner=1, token=3, starter=0)
    state = edit(state, starving=(STARVING, FED), visthus=vis(state, s0=res(ULL=1)))
    s, events = roll(state, 3)  # a starving player collects no Lera or Virke
    assert "TRIBUTE" in kinds(events)
    assert s.visthus == ((0,) * N_RES, res(BROD=1, LERA=2, VIRKE=1, ULL=1))


def test_calendar_card_hard_vinter_revealed_halfway_prices_that_rounds_rations() -> None:
    """Hård vinter: "the Rations at the end of this Calendar Round cost 4 Korn/Fisk or 2 Bröd." (Assumptions
    CALENDAR_CARDS, RATIONS; RECOVERY: a starving player recovers with the usual Ration.)"""
    uses("CALENDAR_CARDS", "RATIONS", "RECOVERY")
    state = go(_halfway(setup(2, starter=0)), Draw(CAL["HARD_VINTER"]))
    state = _end_of_round(state)
    state = edit(state, visthus=(res(BROD=1, FISK=3), res(BROD=2)), starving=(FED, FED))
    s = go(state, EndActions())
    assert s.starving == (STARVING, FED) and s.visthus == (res(BROD=1, FISK=3), (0,) * N_RES)
    # a starving player recovers with the usual Ration even while Hård vinter is in effect
    state = setup(2, starter=0, card="HARD_VINTER")
    state = edit(state, starving=(STARVING, FED), visthus=vis(state, s0=res(FISK=2, LERA=1)))
    s, events = roll(state, 1)  # the third Fisk
    assert "RECOVERED" in kinds(events) and s.starving[0] == RECOVERED
    assert s.visthus[0] == res(LERA=1)


def test_crafting_and_gifts_take_only_what_the_supply_holds() -> None:
    """In rare cases, if the Supply pile runs out of a Resource, the Resource cannot be replaced by
    another Resource. (Assumption SUPPLY.)"""
    uses("SUPPLY")
    state = _halfway(setup(3, starter=0))
    bread = TOTAL[BROD] - state.market[BROD] - 1  # one Bröd left in the pile
    rows = (res(BROD=7), res(BROD=7), res(BROD=bread - 14))
    state = edit(state, visthus=rows, starving=(FED, FED, FED))
    s = go(state, Draw(CAL["GASTABUD"]))
    assert s.visthus == (res(BROD=8), res(BROD=7), rows[2])  # the first clockwise gets the last one
    assert supply(s, BROD) == 0
    # with the Tran pile empty nobody crafts Tran
    tran = TOTAL[TRAN] - s.market[TRAN]
    assert s.starter == 0
    rows = (res(FISK=2, TRAN=6), res(TRAN=7), res(TRAN=tran - 13))
    t = acting(s, 0, owners=own(s, TRANKOKERI=0), visthus=rows)
    assert supply(t, TRAN) == 0
    refused(t, Craft(B["TRANKOKERI"]), "SUPPLY_EMPTY", "Tran")


def test_a_player_who_recovered_still_feeds_their_by_after_the_12th_turn() -> None:
    """After the 12th Turn, feed your By: ... • Recovery: As soon as the Ration is paid, the Player
    resumes normal play from the next Turn. (Assumptions RATIONS, RECOVERY: the Recovery pays the missed
    Ration; the round's Ration is due like everyone's.)"""
    uses("RATIONS", "RECOVERY")
    state = _end_of_round(setup(2, starter=0))
    assert state.actor == 0
    state = edit(state, starving=(STARVING, FED), visthus=vis(state, s0=res(KORN=2, LERA=1), s1=res(BROD=1)))
    s = go(state, MarketTrade(LERA, KORN))  # recovers in the 12th Turn
    assert s.starving[0] == RECOVERED and s.visthus[0] == (0,) * N_RES
    s, events = run(s, EndActions())
    assert s.phase is Phase.CALENDAR
    assert [e.player for e in events if e.kind == "STARVING"] == [0]  # nothing left for this round's
    assert s.starving == (STARVING, FED)


def test_two_to_four_players_and_the_two_game_lengths_only() -> None:
    """Each Player selects a Player icon ... The game is played over a maximum of 5 Calendar Rounds
    (Assumptions PLAYER_COUNT: 2 to 4; GAME_LENGTH: 5 or 10 rounds.)"""
    uses("PLAYER_COUNT", "GAME_LENGTH")
    assert (GAME.min_players, GAME.max_players) == (2, 4)
    with pytest.raises(LawspeakerError):
        GAME.new_game(2, Options(calendar_rounds=7), Rng.from_seed(1))
    for players in (2, 3, 4):
        assert GAME.new_game(players, Options(), Rng.from_seed(1)).players == players


def test_upgrade_runestones_complete_when_the_tokens_are_placed() -> None:
    """– A Runestone is completed when its conditions are fulfilled. "Have 2 plot slots upgraded with
    Träl." "Fill every slot of one Resource Plot." (Assumptions RUNESTONE_CARDS, UPGRADES.)"""
    uses("RUNESTONE_CARDS", "UPGRADES")
    hand = ("TRAL_2", "FULL_PLOT", "UPGRADES_5", "STORE_ALL_CRAFTED", "BUILDINGS_3")
    state = setup(2, starter=0)
    plots = put(state.plots, 0, put(state.plots[0], PLOT["MALM"] * SLOTS + 1, 2))  # a Träl on the Malm plot
    row = res(BROD=1, FISK=1, JARN=1, TRAKOL=1, KORN=2, VADMAL=1, MALM=1)
    state = acting(
        state,
        0,
        plots=plots,
        skepp=(4, 1),
        owners=own(state, SMEDJAN=1, STALLET=0),
        visthus=vis(state, s0=row),
    )
    state = with_hands(state, {0: (hand, ())})
    s, events = run(state, Upgrade(PLOT["ULL"], TRAL), PlaceToken(1))
    assert s.completed[0] == (RS["TRAL_2"],) and "RUNESTONE_COMPLETED" in kinds(events)
    s = go(s, Upgrade(PLOT["MALM"], VERKTYG), PlaceToken(3))
    assert RS["FULL_PLOT"] not in s.completed[0]  # the Häst slot is still empty
    s, events = run(s, Upgrade(PLOT["MALM"], HAST), PlaceToken(3))
    assert s.completed[0] == tuple(sorted((RS["TRAL_2"], RS["FULL_PLOT"])))
    assert s.plots[0][PLOT["MALM"] * SLOTS : PLOT["MALM"] * SLOTS + SLOTS] == (START_TOKEN["MALM"], 2, 3, 3)


@pytest.mark.parametrize("players", [2, 4])
def test_a_card_kept_at_tinget_that_is_already_fulfilled_completes_and_can_end_the_game(players: int) -> None:
    """– A Runestone is completed when its conditions are fulfilled. End of Game is triggered immediately
    when: • A Player completes 5 Runestone Cards (Assumption RUNESTONE_CARDS: also when the card is
    kept.) 3. The Finisher Bonus: The Player who completed 5 Runestone gains 1 point for each opponent."""
    uses("RUNESTONE_CARDS", "GAME_END", "SCORING")
    hand = ("SKEPP_2", "BUILD_ELDHUS", "STORE_BROD", "BUILD_KOLMILA", "UPGRADES_5")
    state = setup(players, starter=0, card="SKEPPSBYGGARE")
    state = with_hands(
        state,
        {0: (hand, hand[:4])},
        skepp=(2,) + (1,) * (players - 1),
        extension=(True,) + (False,) * (players - 1),
        owners=own(state, ELDHUS=0, KOLMILA=0),
        visthus=vis(state, s0=res(BROD=3, VADMAL=1, KERAMIK=1)),
    )
    state = acting(state, 0)
    deck = state.decks[0]
    s = go(state, AcquireRunestone(), DrawCard(deck.index(RS["EXTENSION"])), DrawCard(0))
    assert s.phase is Phase.TINGET_KEEP
    s = go(s, KeepCard(0))  # the Visthus extension is already built
    assert s.phase is Phase.OVER and s.finisher == 0
    points = sum(POINTS[c] for c in (*hand[:4], "EXTENSION"))
    assert s.scores == (points + players - 1, *(0,) * (players - 1))


def test_a_completion_another_seat_may_not_know_of_changes_nothing_it_sees() -> None:
    """– Runestones remain hidden until the end of the game. – A Runestone is completed when its
    conditions are fulfilled. (Assumption RUNESTONE_SECRECY: the completion of a card is told to its
    holder alone.)"""
    uses("RUNESTONE_SECRECY")
    base = setup(2, starter=0)
    base = acting(base, 0, visthus=vis(base, s0=res(LERA=2, MALM=1, BROD=1)))
    with_card = with_hands(base, {0: (("BUILD_KOLMILA", *HARD[:4]), ())})
    seen = []
    for state in (base, with_card):
        state, events = run(state, Build(B["KOLMILA"]), EndActions())
        visible = [v for v in (GAME.view_event(e, 1) for e in events) if v is not None]
        seen.append((visible, GAME.view(state, 1)))
        assert state.completed[0] == ((RS["BUILD_KOLMILA"],) if state.hands[0] != base.hands[0] else ())
    assert seen[0] == seen[1]


def test_a_runestone_needing_more_buildings_than_remain_is_blocked() -> None:
    """Since multiple Players can have the same Runestone (Birka based Runestone), some Runestone will not
    be possible to complete (Assumption IMPOSSIBLE_RUNESTONES: also a card needing more buildings than
    remain; its holder is told privately.)"""
    uses("IMPOSSIBLE_RUNESTONES")
    rival = ("UPGRADES_5", "FULL_PLOT", "STORE_ALL_CRAFTED", "STORE_JARN_TRAKOL", "SKEPP_4")
    state = setup(2, starter=0, hands={1: rival})
    six = ("TRANKOKERI", "ELDHUS", "KRUKMAKERI", "BLASTERUGN", "VAVSTUGA", "SMEDJAN")
    state = acting(
        state,
        1,
        owners=own(state, **dict.fromkeys(six, 1)),
        visthus=vis(state, s1=res(VIRKE=3, KORN=1)),
    )
    buildings_3 = RS["BUILDINGS_3"]
    assert buildings_3 in state.hands[0] and possible(state, 0, buildings_3, REFERENCE)
    s, events = run(state, Build(B["STALLET"]))  # Kolmila and Mjödhallen remain: 2 of the 3 needed
    assert not possible(s, 0, buildings_3, REFERENCE)
    blocked = [e for e in events if e.kind == "RUNESTONE_BLOCKED"]
    assert [e.player for e in blocked] == [0]
    assert GAME.view_event(blocked[0], 1) is None
