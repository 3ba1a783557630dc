"""Rule-scenario tests for the Birka engine: one test per rule of the rulebook.

Every test quotes, in its docstring, the rulebook sentence it enforces
(``shared/rulebooks/birka.txt``); a test of a reading the rulebook leaves open, or of a number it
lost, also names the engine's assumption id (``lawspeaker.games.birka.ASSUMPTIONS``).
``docs/rules/birka.md`` maps each rule to these tests. Positions are built by
``tests/games/birka_scenarios.py`` from seeded games played with the engine's own moves.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest
from birka_scenarios import (
    BROD,
    CAL,
    FISK,
    HARD_HAND,
    HAST,
    JARN,
    KORN,
    LERA,
    MALM,
    PLOT,
    RS,
    SLOTS,
    TRAL,
    TRAN,
    VERKTYG,
    VIRKE,
    B,
    acting,
    advance,
    at,
    base,
    hand_with,
    kinds,
    play,
    random_playout,
    refused,
    res,
    rows,
    started,
    with_hands,
)

from lawspeaker.games import core
from lawspeaker.games.birka import (
    ASSUMPTIONS,
    FED,
    GAME,
    HIDDEN,
    OPTIONS,
    RECOVERED,
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
    capacity,
    possible,
    supplies,
    view_event,
)
from lawspeaker.games.birka.data import REFERENCE as D
from lawspeaker.games.birka.data import BirkaDataError, load_data
from lawspeaker.games.core import Event, LawspeakerError, Result, Rng, ToAct

IDS = {a.id for a in ASSUMPTIONS}
EMPTY_MARKET = (0,) * D.resources
EMPTY = (0,) * D.resources


def uses(*ids: str) -> None:
    """The assumptions a test relies on exist."""
    for i in ids:
        assert i in IDS, i


def _set(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return (*t[:i], v, *t[i + 1 :])


def passive(state: State) -> tuple[State, list[Event]]:
    return advance(state, lambda s: False, limit=100_000)


# --------------------------------------------------------------------------- setup


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_each_player_picks_up_five_random_hidden_runestone_cards(players: int) -> None:
    """1. Player icon: Each Player selects a Player icon , and picks up: • 1 Byn Board • 10 Icon Tokens
    • 5 random Runestone Cards (keep hidden from other players)
    (Assumptions PLAYER_COUNT, SETUP_ORDER, RUNESTONE_DECKS.)"""
    uses("PLAYER_COUNT", "SETUP_ORDER", "RUNESTONE_DECKS")
    assert (GAME.min_players, GAME.max_players) == (2, 4)
    state = GAME.new_game(players, Options(), Rng.from_seed(7))
    assert state.phase is Phase.SETUP_DEAL
    assert refused(state, Draw(), "WRONG_DRAW")  # a card, not a die
    cards = len(D.runestone_ids)
    for step in range(5 * players):
        seat = step // 5
        assert GAME.to_act(state) == ToAct((seat,), True)  # the player draws their own card
        chance = GAME.chance(state)
        assert chance is not None and len(chance.outcomes) == cards - step % 5
        assert all(o.move == DrawCard(i) for i, o in enumerate(chance.outcomes))
        assert all(abs(o.probability - 1 / len(chance.outcomes)) < 1e-12 for o in chance.outcomes)
        assert not any(name in o.label for o in chance.outcomes for name in D.runestone_names)
        assert GAME.legal_moves(state) == (DrawCard(),)
        state, events = play(state, DrawCard())
        assert kinds(events)[0] == "CARD_DEALT"
    assert state.phase is Phase.SETUP_START
    assert all(len(h) == 5 for h in state.hands)
    assert all(len(d) == cards - 5 for d in state.decks)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_initial_resources_are_one_bread_and_one_clay_in_the_visthus(players: int) -> None:
    """2. Initial Resources: Place 1 Bröd and 1 Lera in your Visthus Slots .
    (Assumptions SETUP_ORDER, VISTHUS, SKEPP, RESOURCE_PLOTS.)"""
    uses("SETUP_ORDER", "VISTHUS", "SKEPP", "RESOURCE_PLOTS")
    state = GAME.new_game(players, Options(), Rng.from_seed(3))
    assert state.visthus == (res(BROD=1, LERA=1),) * players
    assert state.skepp == (1,) * players
    assert all(capacity(state, s, D) == 8 for s in range(players))
    starting = {"FISK": 4, "KORN": 5, "LERA": 6, "MALM": 1, "ULL": 2, "VIRKE": 3}
    for name, token in starting.items():
        assert state.plots[0][PLOT[name] * SLOTS : PLOT[name] * SLOTS + SLOTS] == (token, 0, 0, 0)
    assert state.owners == (-1,) * len(D.building_ids)


def test_setup_the_market_gets_one_resource_in_the_first_slot_of_every_row() -> None:
    """2. Birka Köpingen Setup: Place 1 resource of each type in the first Slot of both Raw Market and
    Crafted Market, unless the revealed Calendar Card states otherwise. (Assumption MARKET_RESET.)"""
    uses("MARKET_RESET")
    state = started(3, card="SILLSTIM")
    assert state.market == (1,) * D.resources
    stocked = started(3, card="MARKNADSDAG")  # "unless the revealed Calendar Card states otherwise"
    assert stocked.market == tuple(2 if D.is_raw[r] else 1 for r in range(D.resources))


def test_setup_the_dice_determine_the_starting_player() -> None:
    """3. Starting Player: Let the Dice determine the Starting Player. (Assumption SETUP_ORDER.)"""
    uses("SETUP_ORDER")
    state = GAME.new_game(3, Options(), Rng.from_seed(3))
    while state.phase is Phase.SETUP_DEAL:
        state, _ = play(state, DrawCard())
    chance = GAME.chance(state)
    assert chance is not None and GAME.to_act(state) == ToAct((), True)
    assert [o.move for o in chance.outcomes] == [Draw(0), Draw(1), Draw(2)]
    assert all(abs(o.probability - 1 / 3) < 1e-12 for o in chance.outcomes)
    state, events = play(state, Draw(2))
    assert state.starter == 2 and "STARTING_PLAYER" in kinds(events)
    state, _ = play(state, Draw(CAL["SILLSTIM"]))
    assert state.phase is Phase.ROLL and GAME.to_act(state) == ToAct((2,), True)


def test_setup_icon_tokens_mark_ownership_and_limit_it() -> None:
    """1. Player icon: Each Player selects a Player icon , and picks up: • 1 Byn Board • 10 Icon Tokens
    ... • Ownership: Place your Player icon on the Building to claim ownership.
    (Assumptions ICON_TOKENS, REFERENCE_DATA: the limit never binds with the reference data, so a data
    set with one icon token shows it.)"""
    uses("ICON_TOKENS", "REFERENCE_DATA")
    assert D.icon_tokens == 10 and sum(D.ownable) < 10
    byn = dict(D.data["byn"], icon_tokens=1)
    options = Options(data=json.dumps({"byn": byn}))
    state = GAME.new_game(2, options, Rng.from_seed(1))
    state, _ = advance(state, lambda s: s.phase is Phase.ACTIONS)
    seat = state.actor
    wallet = rows(state, **{f"s{seat}": res(LERA=4, MALM=2)})
    state = acting(state, seat, actions_left=2, skepp=(2, 2), visthus=wallet)
    state, events = play(state, Build(B["KOLMILA"]))
    assert state.owners[B["KOLMILA"]] == seat and "icon" in events[0].text
    assert refused(state, Build(B["ELDHUS"]), "NO_ICON_TOKENS")


# --------------------------------------------------------------------------- game structure


def test_the_game_lasts_at_most_five_calendar_rounds_of_two_cards() -> None:
    """The game is played over a maximum of 5 Calendar Rounds (the 10 cards), or until a Player has
    completed 5 Runestones . (Assumption GAME_LENGTH.)"""
    uses("GAME_LENGTH")
    state = GAME.new_game(2, Options(), Rng.from_seed(5))
    state, events = passive(state)
    assert state.phase is Phase.OVER and state.round == 5 and state.turn == 12
    assert kinds(events).count("DIE_ROLLED") == 5 * 12
    cards = [e.detail.value for e in events if e.kind == "CALENDAR_CARD"]
    assert sorted(cards) == list(range(10))  # the ten cards, each once
    assert "CALENDAR_RESHUFFLED" not in kinds(events)
    assert OPTIONS[0].name == "calendar_rounds" and OPTIONS[0].allowed == ("5", "10")


def test_the_other_reading_plays_ten_calendar_rounds() -> None:
    """End of Game is triggered immediately when: • A Player completes 5 Runestone Cards or • The 10th
    Calendar Round ends (Assumption GAME_LENGTH: the option calendar_rounds=10.)"""
    uses("GAME_LENGTH")
    state = GAME.new_game(3, Options(calendar_rounds=10), Rng.from_seed(5))
    state, events = passive(state)
    assert state.phase is Phase.OVER and state.round == 10
    assert kinds(events).count("DIE_ROLLED") == 10 * 12
    assert kinds(events).count("CALENDAR_CARD") == 20
    assert kinds(events).count("CALENDAR_RESHUFFLED") == 1


# --------------------------------------------------------------------------- the turn


def test_the_starting_player_rolls_the_yellow_die_then_the_grey_die() -> None:
    """1. The Roll: The Starting Player rolls the yellow Dice and places it on the Calendar Board in the
    first Dice Slot . ... 5. The next player in clockwise order becomes the Starting Player and starts a
    new Turn with the grey Dice . (Assumption YELLOW_AND_GREY_DIE.)"""
    uses("YELLOW_AND_GREY_DIE")
    state = started(2)
    chance = GAME.chance(state)
    assert chance is not None and "yellow" in chance.description
    assert refused(state, DrawCard(), "WRONG_DRAW")
    assert [o.move for o in chance.outcomes] == [Draw(v) for v in range(1, 7)]
    state, events = play(state, Draw(4))
    assert (state.die, state.yellow) == (4, 4) and "yellow" in events[0].text
    state, _ = advance(state, lambda s: s.phase is Phase.ROLL)
    chance = GAME.chance(state)
    assert chance is not None and "grey" in chance.description
    state, events = play(state, Draw(2))
    assert (state.die, state.yellow) == (2, 4) and "grey" in events[0].text


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_next_player_clockwise_becomes_the_starting_player(players: int) -> None:
    """5. The next player in clockwise order becomes the Starting Player and starts a new Turn with the
    grey Dice . (Assumptions TURN_ORDER, PLAYER_COUNT: 12 Turns a round give every player as many.)"""
    uses("TURN_ORDER", "PLAYER_COUNT")
    state = started(players)
    first = state.starter
    starters = []
    for _ in range(12):
        starters.append(state.starter)
        state, _ = advance(state, lambda s: s.phase is Phase.ACTIONS)
        order = []
        while state.phase is Phase.ACTIONS:
            order.append(state.actor)
            state, _ = play(state, EndActions())
        assert order == [(starters[-1] + i) % players for i in range(players)]
        state, _ = advance(state, lambda s: s.phase is Phase.ROLL)
    assert starters == [(first + t) % players for t in range(12)]
    assert all(starters.count(s) == 12 // players for s in range(players))
    assert state.round == 2 and state.starter == (first + 12) % players


def test_collection_gives_the_die_resource_plus_every_matching_dice_token() -> None:
    """2. Resource Collection: All Players collect the Raw Resource matching the Dice result plus any
    Dice Tokens – on their Resource Plot . Place in empty Visthus Slots .
    (Assumptions DIE_FACES, RESOURCE_PLOTS.)
    """  # noqa: RUF002
    uses("DIE_FACES", "RESOURCE_PLOTS")
    state = started(2)
    plots = list(state.plots[0])
    plots[PLOT["KORN"] * SLOTS + 1 + TRAL] = 3  # an upgraded slot showing 3
    state = at(state, plots=(tuple(plots), state.plots[1]), visthus=(EMPTY, EMPTY))
    state, _ = play(state, Draw(3))  # face 3 is Lera; Virke's starting token is 3
    assert state.visthus[0] == res(LERA=1, VIRKE=1, KORN=1)
    assert state.visthus[1] == res(LERA=1, VIRKE=1)
    assert [D.resource_ids[f] for f in D.die_faces] == ["FISK", "KORN", "LERA", "MALM", "ULL", "VIRKE"]


def test_collection_from_the_matching_dice_tokens_only_with_the_option() -> None:
    """2. Resource Collection: All Players collect the Raw Resource matching the Dice result plus any
    Dice Tokens – on their Resource Plot . (Assumption DIE_FACES, its other reading: option
    tokens_only.)
    """  # noqa: RUF002
    uses("DIE_FACES")
    state = started(2)
    state = at(state, options=Options(tokens_only=True))
    plots = list(state.plots[0])
    plots[PLOT["KORN"] * SLOTS + 1 + TRAL] = 3
    state = at(state, plots=(tuple(plots), state.plots[1]), visthus=(EMPTY, EMPTY))
    state, _ = play(state, Draw(3))  # Virke's starting token is 3, and the upgraded Korn slot
    assert state.visthus[0] == res(VIRKE=1, KORN=1)
    assert state.visthus[1] == res(VIRKE=1)


def test_items_can_only_be_collected_into_empty_slots() -> None:
    """• Items can only be collected if there is an empty Slot. (Assumption COLLECTION.)"""
    uses("COLLECTION")
    state = started(3, seed=2)
    s0, s1, s2 = state.starter, (state.starter + 1) % 3, (state.starter + 2) % 3
    full, one_slot, roomy = res(FISK=8), res(FISK=7), res(FISK=6)
    state = at(state, visthus=rows(state, **{f"s{s0}": full, f"s{s1}": one_slot, f"s{s2}": roomy}))
    state, events = play(state, Draw(3))  # Lera and Virke are due to everyone
    assert "VISTHUS_FULL" in kinds(events) and state.visthus[s0] == full
    assert state.phase is Phase.COLLECT and state.actor == s1  # 2 kinds due, 1 empty slot: a choice
    assert GAME.to_act(state) == ToAct((s1,))
    assert list(GAME.legal_moves(state)) == [Collect(LERA), Collect(VIRKE)]
    assert refused(state, Collect(KORN), "NOT_DUE")
    assert refused(state, StopCollecting(), "MUST_COLLECT")  # collecting is not optional
    state, _ = play(state, Collect(VIRKE))
    assert state.visthus[s1] == res(FISK=7, VIRKE=1)  # the Lera is lost: no empty slot
    assert state.visthus[s2] == res(FISK=6, LERA=1, VIRKE=1)  # it fitted: collected at once
    assert state.phase is Phase.ACTIONS


def test_no_discarding_during_the_collection_phase() -> None:
    """• You cannot discard Resources during the collection phase; this must be done during your
    previous Action phase. (Assumption DISCARD.)"""
    uses("DISCARD")
    state = started(2, seed=2)
    other = (state.starter + 1) % 2
    state = at(state, visthus=rows(state, **{f"s{state.starter}": res(FISK=7), f"s{other}": res(FISK=2)}))
    state, _ = play(state, Draw(3))
    assert state.phase is Phase.COLLECT and state.actor == state.starter
    assert refused(state, Discard(FISK), "DISCARD_ONLY_IN_ACTIONS").startswith("You discard only")


def test_each_player_performs_as_many_actions_as_they_own_skepp_in_clockwise_order() -> None:
    """3. Player Actions: In clockwise order, you can perform as many actions as you own Skepp (each
    player starts with 1): (Assumptions TURN_ORDER, SKEPP.)"""
    uses("TURN_ORDER", "SKEPP")
    state = base(3)
    seat = state.actor
    state = acting(
        state, seat, skepp=_set(state.skepp, seat, 2), visthus=rows(state, **{f"s{seat}": res(FISK=8)})
    )
    assert state.actions_left == 2
    state, _ = play(state, OutlawTrade(FISK, KORN), OutlawTrade(FISK, LERA))
    assert state.actions_left == 0
    assert {type(m) for m in GAME.legal_moves(state)} == {Discard, EndActions}
    assert refused(state, OutlawTrade(FISK, MALM), "NO_ACTIONS_LEFT")
    state, _ = play(state, EndActions())
    nxt = (seat + 1) % 3
    assert state.phase is Phase.ACTIONS and state.actor == nxt and state.actions_left == state.skepp[nxt] == 1


# --------------------------------------------------------------------------- trading


def test_trades_between_players_are_not_allowed() -> None:
    """• Trade: Exchange Resources at the Market or with The Outlaw Trader. Trades between Players are
    not allowed. (Assumption NO_TRADES_BETWEEN_PLAYERS.)"""
    uses("NO_TRADES_BETWEEN_PLAYERS")
    state = base(3)
    seat = state.actor
    rich = res(FISK=2, KORN=2, LERA=2, MALM=1, VIRKE=2, TRAN=1, BROD=1, KERAMIK=1)
    state = acting(state, seat, extension=(True,) * 3, visthus=rows(state, **{f"s{seat}": rich}))
    moves = GAME.legal_moves(state)
    assert {type(m).__name__ for m in moves} >= {"MarketTrade", "OutlawTrade", "Build", "Upgrade", "Discard"}
    for move in moves:
        after, _ = play(state, move)
        others = [s for s in range(3) if s != seat]
        assert [after.visthus[s] for s in others] == [state.visthus[s] for s in others], move


def test_the_market_has_limited_slots_per_resource_type() -> None:
    """– Limited Slots: 5 Raw and 3 Crafted per Resource type. – You may not exceed available Slots.
    (Assumption MARKET.)
    """  # noqa: RUF002
    uses("MARKET")
    state = base(2)
    seat = state.actor
    market = list(EMPTY_MARKET)
    market[FISK], market[KORN], market[TRAN], market[BROD] = 5, 1, 3, 1
    state = acting(
        state, seat, market=tuple(market), visthus=rows(state, **{f"s{seat}": res(FISK=2, TRAN=1)})
    )
    assert D.market_slots[FISK] == 5 and D.market_slots[TRAN] == 3
    assert refused(state, MarketTrade(FISK, KORN), "MARKET_ROW_FULL")
    assert refused(state, MarketTrade(TRAN, BROD), "MARKET_ROW_FULL")
    market[FISK] = 4
    state = at(state, market=tuple(market))
    state, _ = play(state, MarketTrade(FISK, KORN))
    assert state.market[FISK] == 5 and state.market[KORN] == 0


def test_you_may_not_trade_for_a_resource_that_is_not_present() -> None:
    """– You may not trade for a Resource that is not present. (Assumption MARKET.)"""  # noqa: RUF002
    uses("MARKET")
    state = base(2)
    seat = state.actor
    market = _set(EMPTY_MARKET, LERA, 1)
    state = acting(state, seat, market=market, visthus=rows(state, **{f"s{seat}": res(FISK=2)}))
    assert refused(state, MarketTrade(FISK, KORN), "NOT_IN_MARKET")
    assert MarketTrade(FISK, LERA) in GAME.legal_moves(state)


def test_market_trades_at_the_raw_and_crafted_market_ratios() -> None:
    """The trading ratio is stated on the Birka Köpingen Board, in the information box at the Raw and
    Crafted Market, and The Outlaw Trader. (Assumption MARKET: 1 for 1 within the Raw or the Crafted
    Market.)"""
    uses("MARKET")
    state = base(2)
    seat = state.actor
    state = acting(
        state,
        seat,
        skepp=_set(state.skepp, seat, 2),
        market=(1,) * D.resources,
        visthus=rows(state, **{f"s{seat}": res(FISK=1, TRAN=1)}),
    )
    after, events = play(state, MarketTrade(FISK, KORN))
    assert after.visthus[seat] == res(KORN=1, TRAN=1)
    assert after.market[FISK] == 2 and after.market[KORN] == 0 and "MARKET_TRADE" in kinds(events)
    after, _ = play(after, MarketTrade(TRAN, BROD))
    assert after.visthus[seat] == res(KORN=1, BROD=1) and after.market[TRAN] == 2
    assert refused(state, MarketTrade(FISK, TRAN), "DIFFERENT_MARKETS")
    assert refused(state, MarketTrade(FISK, FISK), "SAME_RESOURCE")


def test_the_outlaw_trader_has_an_unlimited_supply_and_worse_ratios() -> None:
    """– Unlimited supply. – Less favorable trade ratios. – All trades are handled using the Supply piles.
    ... Any Price stated is paid with 2 Raw Resouces or 1 Crafted Resource. (Assumption OUTLAW_TRADER.)
    """  # noqa: RUF002
    uses("OUTLAW_TRADER")
    state = base(2)
    seat = state.actor
    state = acting(
        state,
        seat,
        skepp=_set(state.skepp, seat, 4),
        market=EMPTY_MARKET,  # nothing at the Market: the Outlaw Trader trades anyway
        visthus=rows(state, **{f"s{seat}": res(FISK=7, TRAN=1)}),
    )
    after, events = play(state, OutlawTrade(FISK, KORN))  # a raw resource: 2 raw
    assert after.visthus[seat] == res(FISK=5, KORN=1, TRAN=1) and "OUTLAW_TRADE" in kinds(events)
    after, _ = play(after, OutlawTrade(TRAN, KORN))  # ... or 1 crafted
    assert after.visthus[seat] == res(FISK=5, KORN=2)
    after, _ = play(after, OutlawTrade(FISK, JARN))  # a crafted resource: 4 raw (2 units)
    assert after.visthus[seat] == res(FISK=1, KORN=2, JARN=1)
    assert after.market == EMPTY_MARKET
    assert refused(after, OutlawTrade(FISK, LERA), "CANNOT_AFFORD")
    assert supplies(after, D)[FISK] == supplies(state, D)[FISK] + 6  # paid into the supply piles
    # the Market's rate is better: 1 Fisk for 1 Korn there, 2 Fisk at the Outlaw Trader
    assert D.market_give[0] < D.outlaw_unit[0] * D.outlaw_price[0]


def test_a_resource_the_supply_has_run_out_of_cannot_be_replaced() -> None:
    """In rare cases, if the Supply pile runs out of a Resource, the Resource cannot be replaced by
    another Resource. (Assumptions SUPPLY, REFERENCE_DATA: a data set with 10 tokens of each raw
    resource shows it.)"""
    uses("SUPPLY", "REFERENCE_DATA")
    resources = dict(D.data["resources"], supply={"raw": 10, "crafted": 20})
    options = Options(data=json.dumps({"resources": resources}))
    small = load_data(options.data)
    state = GAME.new_game(2, options, Rng.from_seed(1))
    state, _ = advance(state, lambda s: s.phase is Phase.ROLL)
    first, other = state.starter, (state.starter + 1) % 2
    state = at(
        state,
        market=_set(state.market, VIRKE, 0),
        visthus=rows(state, **{f"s{first}": res(VIRKE=8), f"s{other}": res(VIRKE=2, FISK=2)}),
    )
    assert supplies(state, small)[VIRKE] == 0
    state, _ = play(state, Draw(6))  # face 6 is Virke; Lera's starting token is 6
    assert state.visthus[other] == res(VIRKE=2, FISK=2, LERA=1)  # no Virke left to collect
    state = acting(state, other)
    assert refused(state, OutlawTrade(FISK, VIRKE), "SUPPLY_EMPTY")


# --------------------------------------------------------------------------- crafting and buildings


CRAFTS = [
    (b, D.craft_input[b], D.craft_output[b]) for b in range(len(D.building_ids)) if D.craft_output[b] >= 0
]


@pytest.mark.parametrize("building,inputs,output", CRAFTS, ids=[D.building_ids[c[0]] for c in CRAFTS])
def test_crafting_in_every_crafting_building(building: int, inputs: Any, output: int) -> None:
    """• Craft: Convert Raw Resources into Crafted Resources . See each Building for crafting price. ...
    Raw Resources may be crafted into specific Crafted Resources in designated Buildings.
    (Assumption CRAFTING.)"""
    uses("CRAFTING")
    state = base(2)
    seat = state.actor
    [(raw, count)] = inputs
    assert count == 2
    row = _set(EMPTY, raw, 2)
    state = acting(
        state, seat, owners=_set(state.owners, building, seat), visthus=rows(state, **{f"s{seat}": row})
    )
    after, events = play(state, Craft(building))
    assert after.visthus[seat] == _set(EMPTY, output, 1)
    assert after.actions_left == 0 and kinds(events)[0] == "CRAFTED"
    table = {
        "TRANKOKERI": ("FISK", "TRAN"),
        "ELDHUS": ("KORN", "BROD"),
        "KRUKMAKERI": ("LERA", "KERAMIK"),
        "BLASTERUGN": ("MALM", "JARN"),
        "VAVSTUGA": ("ULL", "VADMAL"),
        "KOLMILA": ("VIRKE", "TRAKOL"),
    }
    assert table[D.building_ids[building]] == (D.resource_ids[raw], D.resource_ids[output])


def test_a_building_cannot_be_used_until_purchased_by_any_player() -> None:
    """• A Building cannot be used until purchased by any Player in Birka."""
    state = base(2)
    seat, other = state.actor, (state.actor + 1) % 2
    state = acting(state, seat, visthus=rows(state, **{f"s{seat}": res(VIRKE=3, JARN=1, TRAKOL=1, MALM=1)}))
    assert refused(state, Craft(B["KOLMILA"]), "NOT_BUILT")
    assert refused(state, Upgrade(0, VERKTYG), "NOT_BUILT")
    state = at(state, owners=_set(_set(state.owners, B["KOLMILA"], other), B["SMEDJAN"], other))
    moves = GAME.legal_moves(state)
    assert Craft(B["KOLMILA"]) in moves and Upgrade(0, VERKTYG) in moves


def test_purchasing_a_skepp_increases_the_actions_in_the_same_turn() -> None:
    """• Purchase Skepp: Purchase a Skepp to increase the number of Actions. After a Skepp purchase you
    may perform a new action in the same Turn. (Assumption SKEPP: 2 Virke and 1 Vadmal, at most 4.)"""
    uses("SKEPP")
    state = base(2)
    seat = state.actor
    state = acting(state, seat, visthus=rows(state, **{f"s{seat}": res(VIRKE=4, VADMAL=2, FISK=2)}))
    assert state.actions_left == 1
    state, events = play(state, BuySkepp())
    assert state.skepp[seat] == 2 and state.actions_left == 1 and "SKEPP_BOUGHT" in kinds(events)
    assert state.visthus[seat] == res(VIRKE=2, VADMAL=1, FISK=2)
    state, _ = play(state, BuySkepp())
    state, _ = play(state, OutlawTrade(FISK, KORN))  # a new action after the purchases
    assert state.actions_left == 0 and state.skepp[seat] == 3
    wallet = rows(state, **{f"s{seat}": res(VIRKE=2, VADMAL=1)})
    full = acting(state, seat, skepp=_set(state.skepp, seat, 4), visthus=wallet)
    assert refused(full, BuySkepp(), "SKEPP_LIMIT")


def test_upgrading_a_plot_buys_the_good_and_places_any_dice_token() -> None:
    """• Upgrade Plot: Purchase Träl , Verktyg or Häst , and place any Dice Token – in the upgraded Slot.
    ... – Upgrades: Purchase Träl, Verktyg or Häst, and place a Dice Token in the Slot.
    (Assumptions UPGRADES, UPGRADE_PRICES.)
    """  # noqa: RUF002
    uses("UPGRADES", "UPGRADE_PRICES")
    state = base(2)
    seat = state.actor
    state = acting(state, seat, visthus=rows(state, **{f"s{seat}": res(BROD=1, FISK=1, LERA=1)}))
    state, events = play(state, Upgrade(PLOT["KORN"], TRAL))
    assert state.phase is Phase.UPGRADE_TOKEN and state.actor == seat
    assert "GOOD_BOUGHT" in kinds(events) and state.visthus[seat] == res(LERA=1)
    assert list(GAME.legal_moves(state)) == [PlaceToken(v) for v in range(1, 7)]
    assert refused(state, PlaceToken(7), "NO_SUCH_TOKEN")
    state, _ = play(state, PlaceToken(5))  # the Korn plot's own starting token is 5: any value is allowed
    slot = PLOT["KORN"] * SLOTS + 1 + TRAL
    assert state.plots[seat][slot] == 5 and state.phase is Phase.ACTIONS and state.actions_left == 0


def test_once_placed_dice_tokens_cannot_be_changed() -> None:
    """– Once placed, dice cannot be changed. (Assumption UPGRADES.)"""  # noqa: RUF002
    uses("UPGRADES")
    state = base(2)
    seat = state.actor
    plots = list(state.plots[seat])
    plots[PLOT["FISK"] * SLOTS + 1 + TRAL] = 2
    wallet = rows(state, **{f"s{seat}": res(BROD=2, FISK=2)})
    state = acting(state, seat, plots=_set(state.plots, seat, tuple(plots)), visthus=wallet)
    assert refused(state, Upgrade(PLOT["FISK"], TRAL), "SLOT_TAKEN").startswith("Once placed")
    assert Upgrade(PLOT["KORN"], TRAL) in GAME.legal_moves(state)
    plots[PLOT["FISK"] * SLOTS] = 3  # the starting token cannot be changed either
    moved = state._replace(plots=_set(state.plots, seat, tuple(plots)))
    assert any("starting dice token" in p.description for p in GAME.check_state(moved))


@pytest.mark.parametrize("good,building", [(TRAL, "TRALTORGET"), (VERKTYG, "SMEDJAN"), (HAST, "STALLET")])
def test_traltorget_smedjan_and_stallet_sell_the_plot_upgrades(good: int, building: str) -> None:
    """In Birka Tunet a Player can use Trältorget (Träl ), Smedjan (Verktyg ) and Stallet (Häst ) to
    upgrade Resource Plots in the Byn. (Assumptions UPGRADE_PRICES, OWNER_PAYMENTS.)"""
    uses("UPGRADE_PRICES", "OWNER_PAYMENTS")
    state = base(2)
    seat, other = state.actor, (state.actor + 1) % 2
    b = B[building]
    owners = state.owners if not D.ownable[b] else _set(state.owners, b, other)
    wallet = [0] * D.resources
    for r, k in (*D.prices_for(-1).use[b], *D.payment[b]):
        wallet[r] += k
    state = acting(
        state, seat, owners=owners, visthus=rows(state, **{f"s{seat}": tuple(wallet), f"s{other}": EMPTY})
    )
    after, events = play(state, Upgrade(PLOT["ULL"], good))
    assert after.visthus[seat] == EMPTY
    received = [0] * D.resources
    for r, k in D.payment[b]:
        received[r] += k
    assert after.visthus[other] == tuple(received)
    assert ("OWNER_PAID" in kinds(events)) == bool(D.payment[b])
    after, _ = play(after, PlaceToken(1))
    assert after.plots[seat][PLOT["ULL"] * SLOTS + 1 + good] == 1


OWNABLE = [b for b in range(len(D.building_ids)) if D.ownable[b]]


@pytest.mark.parametrize("building", OWNABLE, ids=[D.building_ids[b] for b in OWNABLE])
def test_building_spends_its_price_and_marks_ownership(building: int) -> None:
    """• Build: Spend Resources to construct a Building. Place your Player icon on the Building to mark
    ownership. ... • Constructing: Spend Resources matching the price at the top of the Building icon,
    e.g. the Kolmila costs 2 Lera and 1 Malm . (Assumption BUILDING_PRICES.)"""
    uses("BUILDING_PRICES")
    assert dict(D.prices_for(-1).build[B["KOLMILA"]]) == {LERA: 2, MALM: 1}
    state = base(2)
    seat, other = state.actor, (state.actor + 1) % 2
    wallet = [0] * D.resources
    for r, k in D.prices_for(-1).build[building]:
        wallet[r] += k
    wallet[FISK] += 1
    state = acting(state, seat, visthus=rows(state, **{f"s{seat}": tuple(wallet)}))
    after, events = play(state, Build(building))
    assert after.owners[building] == seat and after.visthus[seat] == res(FISK=1)
    assert kinds(events)[0] == "BUILT" and after.actions_left == 0
    if building == D.mjodhallen:
        assert after.phase is Phase.MJOD_TOKEN
        after, _ = play(after, PlaceToken(1))
    late = acting(after, other, visthus=rows(after, **{f"s{other}": tuple(wallet)}))
    assert refused(late, Build(building), "BUILDING_OWNED")


def test_the_owner_receives_the_payment_when_another_player_uses_their_building() -> None:
    """• Payments: If another Player uses your Building, you receive the payment marked with a red border
    on the Building. ... • As an example, the payment received from crafting in Blästerugn is a Malm .
    (Assumption OWNER_PAYMENTS.)"""
    uses("OWNER_PAYMENTS")
    state = base(2)
    seat, owner = state.actor, (state.actor + 1) % 2
    state = acting(
        state,
        seat,
        owners=_set(state.owners, B["BLASTERUGN"], owner),
        visthus=rows(state, **{f"s{seat}": res(MALM=3), f"s{owner}": res(FISK=1)}),
    )
    assert dict(D.payment[B["BLASTERUGN"]]) == {MALM: 1}
    after, events = play(state, Craft(B["BLASTERUGN"]))
    assert after.visthus[seat] == res(JARN=1)
    assert after.visthus[owner] == res(FISK=1, MALM=1)
    assert "OWNER_PAID" in kinds(events)
    poorer = at(state, visthus=rows(state, **{f"s{seat}": res(MALM=2)}))
    assert refused(poorer, Craft(B["BLASTERUGN"]), "CANNOT_AFFORD")


def test_no_payment_is_made_for_using_your_own_building() -> None:
    """If you use your own Building, no payment is made. (Assumption OWNER_PAYMENTS.)"""
    uses("OWNER_PAYMENTS")
    state = base(2)
    seat = state.actor
    owners = _set(state.owners, B["BLASTERUGN"], seat)
    state = acting(state, seat, owners=owners, visthus=rows(state, **{f"s{seat}": res(MALM=2)}))
    after, events = play(state, Craft(B["BLASTERUGN"]))
    assert after.visthus[seat] == res(JARN=1) and "OWNER_PAID" not in kinds(events)


def test_a_payment_the_owner_has_no_room_for_goes_to_the_supply() -> None:
    """• Payments: If another Player uses your Building, you receive the payment marked with a red border
    on the Building. (Assumption OWNER_PAYMENTS: into empty Visthus slots only.)"""
    uses("OWNER_PAYMENTS")
    state = base(2)
    seat, owner = state.actor, (state.actor + 1) % 2
    state = acting(
        state,
        seat,
        owners=_set(state.owners, B["ELDHUS"], owner),
        visthus=rows(state, **{f"s{seat}": res(KORN=3), f"s{owner}": res(FISK=8)}),
    )
    after, events = play(state, Craft(B["ELDHUS"]))
    assert after.visthus[seat] == res(BROD=1) and after.visthus[owner] == res(FISK=8)
    assert supplies(after, D)[KORN] == supplies(state, D)[KORN] + 3
    assert any("to the supply" in e.text for e in events)


def test_traltorget_and_tinget_are_not_owned_and_always_available() -> None:
    """• Trältorget (purchase Träl ) and Tinget (purchase Runestone ) are not owned always available.
    (Assumption ALWAYS_AVAILABLE.)"""
    uses("ALWAYS_AVAILABLE")
    state = base(2)
    seat = state.actor
    state = acting(state, seat, visthus=rows(state, **{f"s{seat}": res(BROD=1, FISK=1, VADMAL=1, KERAMIK=1)}))
    assert state.owners == (-1,) * len(D.building_ids)
    moves = GAME.legal_moves(state)
    assert Upgrade(0, TRAL) in moves and AcquireRunestone() in moves
    assert refused(state, Build(B["TRALTORGET"]), "NOT_FOR_SALE")
    assert refused(state, Build(B["TINGET"]), "NOT_FOR_SALE")


# --------------------------------------------------------------------------- Tinget


def tinget(players: int = 2) -> State:
    state = base(players)
    seat = state.actor
    return acting(state, seat, visthus=rows(state, **{f"s{seat}": res(VADMAL=1, KERAMIK=1)}))


def test_acquiring_runestones_draws_two_random_cards_and_keeps_one() -> None:
    """• Acquire Runestones: Purchase Runestone Cards . Draw two random cards, keep one, discard the
    other. ... When purchasing a Runestone Card, the Player acquires two new cards, and keeps one, and
    discards the other. (Assumptions TINGET, RUNESTONE_DECKS.)"""
    uses("TINGET", "RUNESTONE_DECKS")
    state = tinget()
    seat = state.actor
    deck = state.decks[seat]
    state, _ = play(state, AcquireRunestone())
    assert state.phase is Phase.TINGET_DRAW and GAME.to_act(state) == ToAct((seat,), True)
    assert state.visthus[seat] == EMPTY and state.actions_left == 0
    chance = GAME.chance(state)
    assert chance is not None and len(chance.outcomes) == len(deck)
    state, _ = play(state, DrawCard(0))
    state, _ = play(state, DrawCard(3))
    assert state.phase is Phase.TINGET_KEEP and state.drawn == (deck[0], deck[4])
    assert list(GAME.legal_moves(state)) == [KeepCard(0), KeepCard(1)]
    assert refused(state, KeepCard(2), "NO_SUCH_CARD")
    state, events = play(state, KeepCard(1))
    assert deck[4] in state.hands[seat] and deck[0] not in state.hands[seat]
    assert deck[0] not in state.decks[seat] and deck[4] not in state.decks[seat]  # the other is discarded
    assert len(state.hands[seat]) == 6 and state.drawn == () and state.phase is Phase.ACTIONS
    assert "CARD_KEPT" in kinds(events)


def test_with_one_card_left_the_player_keeps_it_and_with_none_tinget_sells_nothing() -> None:
    """When purchasing a Runestone Card, the Player acquires two new cards, and keeps one, and discards
    the other. (Assumption TINGET.)"""
    uses("TINGET")
    state = tinget()
    seat = state.actor
    last = state.decks[seat][-1]
    state = with_hands(state, {seat: [c for c in range(len(D.runestone_ids)) if c != last]})
    assert state.decks[seat] == (last,)
    state, _ = play(state, AcquireRunestone(), DrawCard(0))
    assert state.phase is Phase.ACTIONS and last in state.hands[seat] and state.decks[seat] == ()
    state = at(state, visthus=rows(state, **{f"s{seat}": res(VADMAL=1, KERAMIK=1)}), actions_left=1)
    assert refused(state, AcquireRunestone(), "DECK_EMPTY")


def test_runestones_can_be_purchased_even_when_no_card_is_blocked() -> None:
    """You can purchase Runestone Cards, even though your other Runestone Cards are not blocked.
    (Assumption IMPOSSIBLE_RUNESTONES.)"""
    uses("IMPOSSIBLE_RUNESTONES")
    state = tinget()
    seat = state.actor
    assert all(possible(state, seat, c, D) for c in state.hands[seat])
    assert AcquireRunestone() in GAME.legal_moves(state)


# --------------------------------------------------------------------------- the Byn


def test_discarding_frees_slots_is_no_action_and_returns_resources_to_the_supply() -> None:
    """4. Discard Resources: Remove Resources from your Visthus to free up Slots. • When paying,
    crafting, or discarding, return Resources to Supply piles. (Assumption DISCARD.)"""
    uses("DISCARD")
    state = base(2)
    seat = state.actor
    state = acting(state, seat, actions_left=0, visthus=rows(state, **{f"s{seat}": res(FISK=2)}))
    before = supplies(state, D)[FISK]
    state, events = play(state, Discard(FISK))
    assert state.visthus[seat] == res(FISK=1) and state.actions_left == 0 and kinds(events) == ["DISCARDED"]
    assert supplies(state, D)[FISK] == before + 1
    assert refused(state, Discard(KORN), "NOTHING_TO_DISCARD")


def test_a_visthus_extension_increases_the_available_slots() -> None:
    """• You can buy a Visthus extension to increase available Slots. (Assumption VISTHUS.)"""
    uses("VISTHUS")
    state = base(2)
    seat = state.actor
    wallet = rows(state, **{f"s{seat}": res(VIRKE=4, LERA=4)})
    state = acting(state, seat, skepp=_set(state.skepp, seat, 2), visthus=wallet)
    assert capacity(state, seat, D) == 8
    state, events = play(state, BuildExtension())
    assert capacity(state, seat, D) == 12 and state.extension[seat] and "EXTENSION_BUILT" in kinds(events)
    assert state.visthus[seat] == res(VIRKE=2, LERA=2)
    assert refused(state, BuildExtension(), "EXTENSION_OWNED")


# --------------------------------------------------------------------------- the calendar


def test_a_calendar_round_is_12_turns_with_a_calendar_card_at_its_start_and_halfway() -> None:
    """A Calendar Round is 12 Turns. ... – A Calendar Card is revealed at the start of each Calendar
    Round and halfway, after six Turns. (Assumption CALENDAR_CARDS.)"""  # noqa: RUF002
    uses("CALENDAR_CARDS")
    state = started(2)
    assert (state.round, state.turn, len(state.round_cards)) == (1, 1, 1)
    state, events = advance(state, lambda s: s.phase is Phase.CALENDAR)
    assert (state.round, state.turn) == (1, 7) and kinds(events).count("DIE_ROLLED") == 6
    state, _ = play(state, Draw(CAL["SILLSTIM"]))
    assert state.card == CAL["SILLSTIM"] and len(state.round_cards) == 2
    state, events = advance(state, lambda s: s.phase is Phase.CALENDAR)
    assert (state.round, state.turn) == (2, 1) and kinds(events).count("DIE_ROLLED") == 6
    assert "ROUND_ENDED" in kinds(events)


def test_a_calendar_cards_effect_lasts_until_the_next_card_is_revealed() -> None:
    """– Its effect applies until a new Calendar Card is revealed unless otherwise stated.
    (Assumption CALENDAR_CARDS.)"""  # noqa: RUF002
    uses("CALENDAR_CARDS")
    state = started(2, card="TORKA")
    state, _ = advance(state, lambda s: s.phase is Phase.ROLL and s.turn == 6)
    state = at(state, visthus=(EMPTY, EMPTY))
    state, _ = play(state, Draw(2))  # face 2 is Korn: nobody collects it during Torka
    assert [row[KORN] for row in state.visthus] == [0, 0]
    state, _ = advance(state, lambda s: s.phase is Phase.CALENDAR)
    state, _ = play(state, Draw(CAL["MIDSOMMARBLOT"]))
    state = at(state, visthus=(EMPTY, EMPTY))
    state, _ = play(state, Draw(2))
    assert [row[KORN] for row in state.visthus] == [1, 1]


def halfway(
    card: str, players: int = 2, first: str = "MARKNADSDAG", **fields: Any
) -> tuple[State, list[Event]]:
    """The halfway Calendar Card ``card`` revealed; every Visthus emptied first (unless ``fields`` say
    otherwise) and the position changed by ``fields``."""
    state = started(players, card=first)
    state, _ = advance(state, lambda s: s.phase is Phase.CALENDAR)
    fields.setdefault("visthus", (EMPTY,) * players)
    state = at(state, **fields)
    return play(state, Draw(CAL[card]))


def test_calendar_card_sillstim_gives_a_fisk_at_every_collection() -> None:
    """– Effects are mandatory unless otherwise stated. (Assumption CALENDAR_CARDS: Sillstim, every
    collection also gives 1 Fisk.)"""  # noqa: RUF002
    uses("CALENDAR_CARDS")
    state, _ = halfway("SILLSTIM")
    state, _ = play(state, Draw(3))  # Lera and Virke, and the herring
    assert state.visthus == (res(LERA=1, VIRKE=1, FISK=1),) * 2


def test_calendar_card_torka_stops_every_korn_collection() -> None:
    """– Effects are mandatory unless otherwise stated. (Assumption CALENDAR_CARDS: Torka, nobody
    collects Korn, from the die or a plot.)"""  # noqa: RUF002
    uses("CALENDAR_CARDS")
    state, _ = halfway("TORKA")
    state, _ = play(state, Draw(5))  # face 5 is Ull; Korn's starting token is 5
    assert state.visthus == (res(ULL=1),) * 2


def test_calendar_card_marknadsdag_restocks_the_market() -> None:
    """2. Market Reset: Reset the Market by placing 1 Resource in the first Slot of each row, unless the
    revealed Calendar Card states otherwise. (Assumptions CALENDAR_CARDS, MARKET_RESET: Marknadsdag, 2 in
    every Raw row and 1 in every Crafted row, at once also when revealed halfway.)"""
    uses("CALENDAR_CARDS", "MARKET_RESET")
    state, events = halfway("MARKNADSDAG", first="SILLSTIM", market=EMPTY_MARKET)
    assert state.market == tuple(2 if D.is_raw[r] else 1 for r in range(D.resources))
    assert "MARKET_RESET" in kinds(events)


def test_calendar_card_stormflod_closes_the_market_but_not_the_outlaw_trader() -> None:
    """– Any Calendar Card affecting the Market is only applied to the Market, and not at The Outlaw
    Trader unless otherwise stated. ... – Not affected by ”Market” rules on cards.
    (Assumptions CALENDAR_CARDS, MARKET_CARDS.)"""  # noqa: RUF002
    uses("CALENDAR_CARDS", "MARKET_CARDS")
    state, _ = halfway("STORMFLOD")
    state, _ = play(state, Draw(1))
    seat = state.actor
    state = acting(state, seat, market=(1,) * D.resources, visthus=rows(state, **{f"s{seat}": res(FISK=2)}))
    assert refused(state, MarketTrade(FISK, KORN), "MARKET_CLOSED")
    assert OutlawTrade(FISK, KORN) in GAME.legal_moves(state)


def test_calendar_card_fredlos_closes_the_outlaw_trader_it_names() -> None:
    """– Any Calendar Card affecting the Market is only applied to the Market, and not at The Outlaw
    Trader unless otherwise stated. (Assumptions CALENDAR_CARDS, MARKET_CARDS: Fredlös names him.)"""  # noqa: RUF002
    uses("CALENDAR_CARDS", "MARKET_CARDS")
    state, _ = halfway("FREDLOS")
    state, _ = play(state, Draw(1))
    seat = state.actor
    state = acting(state, seat, market=(1,) * D.resources, visthus=rows(state, **{f"s{seat}": res(FISK=2)}))
    assert refused(state, OutlawTrade(FISK, KORN), "OUTLAW_CLOSED")
    assert MarketTrade(FISK, KORN) in GAME.legal_moves(state)


def test_calendar_card_skeppsbyggare_makes_a_skepp_cheaper() -> None:
    """– Its effect applies until a new Calendar Card is revealed unless otherwise stated.
    (Assumption CALENDAR_CARDS: Skeppsbyggare, a Skepp costs 1 Virke less.)"""  # noqa: RUF002
    uses("CALENDAR_CARDS")
    state, _ = halfway("SKEPPSBYGGARE")
    state, _ = play(state, Draw(1))
    seat = state.actor
    state = acting(state, seat, visthus=rows(state, **{f"s{seat}": res(VIRKE=1, VADMAL=1)}))
    state, _ = play(state, BuySkepp())
    assert state.visthus[seat] == EMPTY and state.skepp[seat] == 2


def test_calendar_card_hard_vinter_raises_this_rounds_rations() -> None:
    """After the 12th Turn, feed your By: • Cost: • 3 Korn / Fisk (any combination) or • 1 Bröd
    (Assumption CALENDAR_CARDS: Hård vinter, this round's Rations cost 4 Korn/Fisk or 2 Bröd.)"""
    uses("CALENDAR_CARDS")
    state, _ = halfway("HARD_VINTER")
    state, _ = advance(state, lambda s: s.phase is Phase.ROLL and s.turn == 12)
    state = at(state, visthus=rows(state, s0=res(KORN=4), s1=res(FISK=4, BROD=2)))
    state, _ = play(state, Draw(3))  # Lera and Virke: no food
    state, events = advance(state, lambda s: s.phase is Phase.RATIONS)
    assert state.actor == 1  # player 0 had one way to pay 4 food: paid at once
    assert list(GAME.legal_moves(state)) == [PayRation((0, 4)), PayRation((), True)]
    state, more = play(state, PayRation((), True))
    events += more
    paid = {e.player: e.detail.resources for e in events if e.kind == "RATION_PAID"}
    assert paid == {0: (KORN,) * 4, 1: (BROD, BROD)}
    assert state.starving == (FED, FED) and state.phase is Phase.CALENDAR


def test_calendar_card_gastabud_gives_every_player_a_bread_into_an_empty_slot() -> None:
    """1. New Calendar Card: Reveal the next Calendar Card and immediately apply its effect.
    (Assumption CALENDAR_CARDS: Gästabud, 1 Bröd to every player with an empty slot.)"""
    uses("CALENDAR_CARDS")
    state, events = halfway("GASTABUD", visthus=(res(FISK=8), res(FISK=1)))
    assert state.visthus[0] == res(FISK=8) and state.visthus[1] == res(FISK=1, BROD=1)
    assert kinds(events).count("GIFT_RECEIVED") == 2


def test_calendar_card_kungens_skatt_makes_every_player_return_a_raw_resource_of_their_choice() -> None:
    """1. New Calendar Card: Reveal the next Calendar Card and immediately apply its effect.
    (Assumption CALENDAR_CARDS: Kungens skatt; a player with several Raw Resources chooses, even when
    not the Starting Player.)"""
    uses("CALENDAR_CARDS")
    state = started(3, seed=4)
    state, _ = advance(state, lambda s: s.phase is Phase.CALENDAR)
    s0, s1, s2 = state.starter, (state.starter + 1) % 3, (state.starter + 2) % 3
    wallets = {f"s{s0}": res(BROD=1), f"s{s1}": res(FISK=2, BROD=1), f"s{s2}": res(LERA=1, MALM=1)}
    state = at(state, visthus=rows(state, **wallets))
    state, events = play(state, Draw(CAL["KUNGENS_SKATT"]))
    assert "LEVY_NOTHING" in kinds(events)  # the Starting Player has no Raw Resource
    assert state.visthus[s1] == res(FISK=1, BROD=1)  # one kind: paid at once
    assert state.phase is Phase.LEVY and state.actor == s2 and GAME.to_act(state) == ToAct((s2,))
    assert list(GAME.legal_moves(state)) == [PayLevy(LERA), PayLevy(MALM)]
    assert refused(state, PayLevy(BROD), "NO_SUCH_RESOURCE")
    state, _ = play(state, PayLevy(MALM))
    assert state.visthus[s2] == res(LERA=1) and state.phase is Phase.ROLL


def test_calendar_card_midsommarblot_makes_a_runestone_cheaper() -> None:
    """– Its effect applies until a new Calendar Card is revealed unless otherwise stated.
    (Assumption CALENDAR_CARDS: Midsommarblot, a Runestone purchase costs 1 Keramik less.)"""  # noqa: RUF002
    uses("CALENDAR_CARDS")
    state, _ = halfway("MIDSOMMARBLOT")
    state, _ = play(state, Draw(1))
    seat = state.actor
    state = acting(state, seat, visthus=rows(state, **{f"s{seat}": res(VADMAL=1)}))
    state, _ = play(state, AcquireRunestone())
    assert state.phase is Phase.TINGET_DRAW and state.visthus[seat] == EMPTY


def test_every_calendar_card_is_tested() -> None:
    """A Calendar Card is revealed at the start of each Calendar Round and halfway, after six Turns.
    (Assumption CALENDAR_CARDS: the ten cards, each with a test above.)"""
    uses("CALENDAR_CARDS")
    tested = {
        "SILLSTIM",
        "TORKA",
        "MARKNADSDAG",
        "STORMFLOD",
        "FREDLOS",
        "SKEPPSBYGGARE",
        "HARD_VINTER",
        "GASTABUD",
        "KUNGENS_SKATT",
        "MIDSOMMARBLOT",
    }
    assert set(D.card_ids) == tested and len(D.card_ids) == 10


def test_the_market_is_reset_at_the_start_of_every_round() -> None:
    """2. Market Reset: Reset the Market by placing 1 Resource in the first Slot of each row, unless the
    revealed Calendar Card states otherwise. ... Each Calendar Round begins with 1 Resource in the first
    Slot unless the revealed Calendar Card states otherwise. (Assumption MARKET_RESET.)"""
    uses("MARKET_RESET")
    state = started(2)
    state, _ = advance(state, lambda s: s.phase is Phase.CALENDAR and s.turn == 1)
    market = list(state.market)
    market[FISK], market[TRAN], market[KORN] = 5, 3, 0
    state = at(state, market=tuple(market))
    state, events = play(state, Draw(CAL["SILLSTIM"]))
    assert state.market == (1,) * D.resources and "MARKET_RESET" in kinds(events)


# --------------------------------------------------------------------------- rations and starvation


def at_round_end(players: int = 2, **visthus: tuple[int, ...]) -> tuple[State, list[Event]]:
    """The last Turn of round 1 rolled a 4 (Malm and Fisk for everyone, added to ``visthus``) and every
    player ended their actions."""
    state = started(players)
    state, _ = advance(state, lambda s: s.phase is Phase.ROLL and s.turn == 12)
    state = at(state, visthus=rows(state, **visthus))
    state, events = play(state, Draw(4))
    while state.phase is Phase.ACTIONS:
        state, more = play(state, EndActions())
        events += more
    return state, events


def test_rations_cost_three_korn_or_fisk_or_one_bread_at_the_end_of_the_round() -> None:
    """After the 12th Turn, feed your By: • Cost: • 3 Korn / Fisk (any combination) or • 1 Bröd
    (Assumption RATIONS.)"""
    uses("RATIONS")
    state, events = at_round_end(s0=res(KORN=2, BROD=1), s1=res(KORN=2))
    # player 0: 2 Korn + 1 Fisk, or 1 Bröd; player 1: 2 Korn + 1 Fisk only (paid at once)
    assert state.phase is Phase.RATIONS and state.actor == 0 and GAME.to_act(state) == ToAct((0,))
    assert list(GAME.legal_moves(state)) == [PayRation((2, 1)), PayRation((), True)]
    assert refused(state, PayRation((3, 0)), "CANNOT_PAY_RATION")
    assert refused(state, PayRation((1, 1)), "BAD_RATION")
    state, more = play(state, PayRation((), True))
    assert state.phase is Phase.CALENDAR and state.round == 2
    assert state.visthus[0] == res(KORN=2, FISK=1, MALM=1)
    assert state.visthus[1] == res(MALM=1)
    assert state.starving == (FED, FED) and kinds(events + more).count("RATION_PAID") == 2


def test_players_may_not_skip_rations() -> None:
    """• Players are not allowed to deliberately skip Rations or postpone Recovery. (Assumption RATIONS.)"""
    uses("RATIONS")
    state, _ = at_round_end(s0=res(FISK=2, BROD=1), s1=res(KORN=2))
    assert state.phase is Phase.RATIONS and len(GAME.legal_moves(state)) == 2
    assert all(isinstance(m, PayRation) for m in GAME.legal_moves(state))
    assert refused(state, EndActions(), "WRONG_STEP")


def test_a_player_who_cannot_pay_the_ration_starves_next_round() -> None:
    """• Starvation: If you cannot pay the Ration cost, you are restricted next Calendar Round to only:
    (Assumption STARVATION.)"""
    uses("STARVATION")
    state, events = at_round_end(s0=res(LERA=1), s1=res(KORN=2))
    assert state.phase is Phase.CALENDAR
    assert state.starving == (STARVING, FED) and "STARVING" in kinds(events)


def starving_actions(**fields: Any) -> State:
    """Round 2 (Skeppsbyggare), its first roll a 3 (nothing a starving player collects): player 0
    starves and takes their actions; ``fields`` then replaced."""
    state, _ = at_round_end(s0=res(LERA=1), s1=res(KORN=2))
    state, _ = play(state, Draw(CAL["SKEPPSBYGGARE"]), Draw(3))
    while not (state.phase is Phase.ACTIONS and state.actor == 0):
        state, _ = play(state, EndActions())
    assert state.starving[0] == STARVING
    return at(state, **fields) if fields else state


def test_starving_players_collect_only_food() -> None:
    """• Collect food (Korn or Fisk ) (Assumption STARVATION.)"""
    uses("STARVATION")
    state, _ = at_round_end(s0=res(LERA=1), s1=res(KORN=2))
    state, _ = play(state, Draw(CAL["SKEPPSBYGGARE"]))
    state = at(state, visthus=(EMPTY, EMPTY))
    state, _ = play(state, Draw(3))  # Lera and Virke: nothing for the starving player
    assert state.visthus[0] == EMPTY and state.visthus[1] == res(LERA=1, VIRKE=1)
    state, _ = advance(state, lambda s: s.phase is Phase.ROLL)
    state, _ = play(state, Draw(2))  # Korn and Ull: the Korn only
    assert state.visthus[0] == res(KORN=1)


def test_starving_players_may_only_trade_craft_bread_and_receive_payments() -> None:
    """• Craft Bröd • Trade • Receive Payment (also non-food Resources) from Birka Buildings • All other
    actions are unavailable until the Ration cost is paid (Assumption STARVATION.)"""
    uses("STARVATION")
    first = starving_actions()
    owners = _set(_set(_set(first.owners, B["ELDHUS"], 0), B["KOLMILA"], 1), B["SMEDJAN"], 0)
    wallet = res(KORN=2, VIRKE=2, VADMAL=1, KERAMIK=1, LERA=1)
    state = at(first, visthus=rows(first, s0=wallet), owners=owners, market=(1,) * D.resources)
    moves = GAME.legal_moves(state)
    assert Craft(B["ELDHUS"]) in moves
    assert MarketTrade(LERA, KORN) in moves and OutlawTrade(VIRKE, KORN) in moves
    assert refused(state, Craft(B["KOLMILA"]), "STARVING")
    assert refused(state, Build(B["BLASTERUGN"]), "STARVING")
    assert refused(state, BuildExtension(), "STARVING")
    assert refused(state, Upgrade(0, TRAL), "STARVING")
    assert refused(state, BuySkepp(), "STARVING")
    assert refused(state, AcquireRunestone(), "STARVING")
    # a starving owner receives payments: player 1 buys a Verktyg at player 0's Smedjan
    other = acting(state, 1, visthus=rows(state, s1=res(JARN=1, TRAKOL=1, MALM=1)))
    other, _ = play(other, Upgrade(0, VERKTYG))
    assert other.visthus[0][MALM] == 1 and other.starving[0] == STARVING
    crafted, events = play(state, Craft(B["ELDHUS"]))  # Bröd: the Ration is paid at once
    assert "RECOVERED" in kinds(events) and crafted.starving[0] == RECOVERED


def test_recovery_pays_the_ration_as_soon_as_possible_and_is_not_an_action() -> None:
    """• Recovery: As soon as the Ration is paid, the Player resumes normal play from the next Turn.
    Starvation does not stack. The Recovery step does not count as an Action. (Assumption RECOVERY.)"""
    uses("RECOVERY")
    state = starving_actions()
    state = at(state, visthus=rows(state, s0=res(KORN=2, VIRKE=3, VADMAL=1)), market=(1,) * D.resources)
    state, events = play(state, MarketTrade(VIRKE, KORN))  # 3 Korn now: the Ration is paid at once
    assert "RECOVERED" in kinds(events) and state.starving[0] == RECOVERED
    assert state.visthus[0] == res(VIRKE=2, VADMAL=1) and state.actions_left == 0  # the trade only
    assert refused(at(state, actions_left=1), BuySkepp(), "STARVING")  # still restricted this Turn
    state, _ = advance(state, lambda s: s.phase is Phase.ROLL)
    assert state.starving[0] == FED  # normal play from the next Turn


def test_a_starving_player_with_several_ways_to_pay_chooses_but_must_pay() -> None:
    """• Players are not allowed to deliberately skip Rations or postpone Recovery. (Assumption RECOVERY.)"""
    uses("RECOVERY")
    state, _ = at_round_end(s0=res(LERA=1), s1=res(KORN=2))
    state, _ = play(state, Draw(CAL["SILLSTIM"]))
    state = at(state, visthus=rows(state, s0=res(KORN=1, FISK=1)))
    state, _ = play(state, Draw(2))  # Korn, and Sillstim's Fisk: 2 Korn and 2 Fisk
    state, _ = advance(state, lambda s: s.actor == 0 and s.phase is not Phase.ROLL)
    assert state.phase is Phase.RECOVER and GAME.to_act(state) == ToAct((0,))
    assert list(GAME.legal_moves(state)) == [PayRation((2, 1)), PayRation((1, 2))]
    assert refused(state, EndActions(), "WRONG_STEP")
    state, events = play(state, PayRation((1, 2)))
    assert state.phase is Phase.ACTIONS and state.starving[0] == RECOVERED and "RECOVERED" in kinds(events)
    assert state.actions_left == state.skepp[0]  # not an action


def test_starvation_does_not_stack() -> None:
    """• Recovery: As soon as the Ration is paid, the Player resumes normal play from the next Turn.
    Starvation does not stack. (Assumption RECOVERY: starving through two Rations, one Ration ends it.)"""
    uses("RECOVERY")
    state, _ = at_round_end(s0=res(LERA=1), s1=res(KORN=2))
    assert state.starving[0] == STARVING
    state, _ = play(state, Draw(CAL["SKEPPSBYGGARE"]))
    state, events = advance(state, lambda s: s.round == 3 and s.phase is Phase.CALENDAR, die=3)
    assert "STARVING" in kinds(events) and state.starving[0] == STARVING  # a second Ration missed
    state, _ = play(state, Draw(CAL["GASTABUD"]))  # one Bröd each
    state, events = advance(state, lambda s: s.starving[0] != STARVING, die=3)
    paid = [e for e in events if e.kind == "RECOVERED" and e.player == 0]
    assert paid[0].detail.resources == (BROD,)  # one Ration, not two


# --------------------------------------------------------------------------- Mjödhallen


def mjod_owned(owner: int, token: int, starter_rolls: bool, **visthus: tuple[int, ...]) -> State:
    """Round 1, waiting for a roll; ``owner`` owns the Mjödhallen with ``token``; the Starting Player
    is the owner when ``starter_rolls``."""
    state = started(2)
    if (state.starter == owner) != starter_rolls:
        state, _ = advance(state, lambda s: s.phase is Phase.ROLL and s.turn == 2)
    owners = _set(state.owners, D.mjodhallen, owner)
    return at(state, owners=owners, mjod_token=token, visthus=rows(state, **visthus))


def test_mjodhallen_the_owner_places_a_permanent_dice_token() -> None:
    """– The owner places a permanent Dice token in the white box. (Assumption MJODHALLEN.)"""  # noqa: RUF002
    uses("MJODHALLEN")
    state = base(2)
    seat = state.actor
    state = acting(state, seat, visthus=rows(state, **{f"s{seat}": res(VIRKE=2, KERAMIK=1, KORN=1)}))
    state, _ = play(state, Build(D.mjodhallen))
    assert state.phase is Phase.MJOD_TOKEN and GAME.to_act(state) == ToAct((seat,))
    assert list(GAME.legal_moves(state)) == [PlaceToken(v) for v in range(1, 7)]
    state, events = play(state, PlaceToken(3))
    assert state.mjod_token == 3 and "MJODHALLEN_TOKEN" in kinds(events)
    assert not any(isinstance(m, PlaceToken) for m in GAME.legal_moves(state))  # permanent


def test_mjodhallen_the_roller_pays_the_owner_a_raw_resource() -> None:
    """– If the rolled Dice matches this, the roller must pay the owner 1 Raw Resource.
    (Assumption MJODHALLEN: the roller chooses which.)"""  # noqa: RUF002
    uses("MJODHALLEN")
    state = mjod_owned(0, 3, False, s0=EMPTY, s1=res(FISK=1, KORN=1, BROD=1))
    assert state.starter == 1
    state, _ = play(state, Draw(3))  # Lera + Virke for both
    assert state.phase is Phase.TRIBUTE_PAY and GAME.to_act(state) == ToAct((1,))
    assert list(GAME.legal_moves(state)) == [PayTribute(r) for r in (FISK, KORN, LERA, VIRKE)]
    assert refused(state, PayTribute(BROD), "NO_SUCH_RAW_RESOURCE")
    state, events = play(state, PayTribute(KORN))
    assert state.visthus[0] == res(LERA=1, VIRKE=1, KORN=1)
    assert state.visthus[1] == res(FISK=1, BROD=1, LERA=1, VIRKE=1)
    assert "TRIBUTE" in kinds(events) and state.phase is Phase.ACTIONS
    quiet = mjod_owned(0, 3, False, s0=EMPTY, s1=EMPTY)
    quiet, events = play(quiet, Draw(2))  # not the Mjödhallen's number
    assert "TRIBUTE" not in kinds(events)


def test_mjodhallen_the_owner_rolling_it_takes_a_raw_resource_from_any_player() -> None:
    """– If the owner rolls it, they take 1 Raw Resource from any Player. (Assumption MJODHALLEN.)"""  # noqa: RUF002
    uses("MJODHALLEN")
    state = mjod_owned(0, 3, True, s0=EMPTY, s1=res(MALM=1, TRAN=2))
    state, _ = play(state, Draw(3))
    assert state.phase is Phase.TRIBUTE_TAKE and GAME.to_act(state) == ToAct((0,))
    assert list(GAME.legal_moves(state)) == [TakeTribute(1, r) for r in (LERA, MALM, VIRKE)]
    assert refused(state, TakeTribute(0, LERA), "NOT_ANOTHER_PLAYER")
    state, _ = play(state, TakeTribute(1, MALM))
    assert state.visthus[0] == res(LERA=1, VIRKE=1, MALM=1)
    assert state.visthus[1] == res(LERA=1, VIRKE=1, TRAN=2)


def test_mjodhallen_the_owner_only_accepts_into_empty_slots() -> None:
    """– The Mjödhallen Owner is responsible for reminding the other Players to pay, and only accept
    resources if they have empty Visthus Slots. (Assumption MJODHALLEN.)"""  # noqa: RUF002
    uses("MJODHALLEN")
    state = mjod_owned(0, 3, False, s0=res(FISK=8), s1=res(FISK=1, KORN=1))
    state, events = play(state, Draw(3))
    assert "NO_TRIBUTE" in kinds(events) and state.phase is Phase.ACTIONS
    assert state.visthus[1] == res(FISK=1, KORN=1, LERA=1, VIRKE=1)


def test_mjodhallen_the_owner_may_collect_only_part_to_have_room_for_the_payment() -> None:
    """– The payment is part of the collection phase. In case the Owner has limited empty Slots, the
    Owner can choose to collect only parts of the regular collection to have room for the payment.
    (Assumption MJODHALLEN.)"""  # noqa: RUF002
    uses("MJODHALLEN")
    state = mjod_owned(0, 3, False, s0=res(FISK=6), s1=res(KORN=8))
    state, _ = play(state, Draw(3))  # the owner is due Lera + Virke with exactly 2 empty slots
    assert state.phase is Phase.COLLECT and state.actor == 0
    assert list(GAME.legal_moves(state)) == [Collect(LERA), Collect(VIRKE), StopCollecting()]
    state, _ = play(state, Collect(VIRKE))
    assert state.phase is Phase.COLLECT  # one slot left: collect the Lera, or keep it for the payment
    state, events = play(state, StopCollecting())
    assert "COLLECTION_STOPPED" in kinds(events) and "TRIBUTE" in kinds(events)
    assert state.visthus[0] == res(FISK=6, VIRKE=1, KORN=1)  # the roller's only raw kind: Korn
    assert state.visthus[1] == res(KORN=7)


def test_mjodhallen_the_owner_receives_nothing_when_no_raw_resources_are_available() -> None:
    """– If no Raw Resources are available, the Owner receives nothing. (Assumption MJODHALLEN.)"""  # noqa: RUF002
    uses("MJODHALLEN")
    owner_rolls = mjod_owned(0, 3, True, s0=EMPTY, s1=res(TRAN=8))  # full: collects nothing, no raw
    owner_rolls, events = play(owner_rolls, Draw(3))
    assert "NO_TRIBUTE" in kinds(events) and owner_rolls.visthus[1] == res(TRAN=8)
    assert owner_rolls.phase is Phase.ACTIONS
    roller = mjod_owned(0, 3, False, s0=EMPTY, s1=res(TRAN=8))
    roller, events = play(roller, Draw(3))
    assert "NO_TRIBUTE" in kinds(events) and roller.visthus[0] == res(LERA=1, VIRKE=1)


# --------------------------------------------------------------------------- runestones


def test_all_byn_have_the_same_set_of_runestone_cards() -> None:
    """– All Byn have the same set of Runestone Cards. (Assumption RUNESTONE_DECKS.)"""  # noqa: RUF002
    uses("RUNESTONE_DECKS")
    state = GAME.new_game(4, Options(), Rng.from_seed(9))
    assert len(set(state.decks)) == 1 and state.decks[0] == tuple(range(len(D.runestone_ids)))
    state, _ = advance(state, lambda s: s.phase is Phase.SETUP_START)
    held = [c for hand in state.hands for c in hand]
    assert len(held) > len(set(held))  # with this seed, several players hold the same card


def test_runestones_are_hidden_from_other_players_until_the_end() -> None:
    """– Each Player begins with 5 Runestones, hidden for other players. – Runestones remain hidden until
    the end of the game. (Assumption RUNESTONE_SECRECY.)"""  # noqa: RUF002
    uses("RUNESTONE_SECRECY")
    state = base(3)
    mine = GAME.view(state, 1)
    assert mine.hands[1] == state.hands[1] and mine.decks[1] == state.decks[1]
    assert mine.hands[0] == (HIDDEN,) * 5 and mine.hands[2] == (HIDDEN,) * 5
    assert mine.decks[0] == (HIDDEN,) * len(state.decks[0]) and mine.completed[0] == ()
    public = GAME.view(state, None)
    assert all(h == (HIDDEN,) * 5 for h in public.hands) and public.rng != state.rng
    assert all(GAME.check_state(GAME.view(state, s)) == [] for s in (None, 0, 1, 2))
    over, _ = passive(GAME.new_game(2, Options(), Rng.from_seed(5)))
    assert GAME.view(over, 0).hands == over.hands  # revealed at the end


CONDITIONS: list[tuple[str, dict[str, Any]]] = [
    ("BUILD_KOLMILA", {"owners": "KOLMILA"}),
    ("BUILDINGS_2", {"owners": "KOLMILA ELDHUS"}),
    ("SKEPP_2", {"skepp": 2}),
    ("EXTENSION", {"extension": True}),
    ("TRAL_2", {"plots": [("FISK", TRAL), ("KORN", TRAL)]}),
    (
        "UPGRADES_5",
        {"plots": [("FISK", TRAL), ("KORN", TRAL), ("LERA", TRAL), ("MALM", HAST), ("ULL", VERKTYG)]},
    ),
    ("FULL_PLOT", {"plots": [("MALM", TRAL), ("MALM", VERKTYG), ("MALM", HAST)]}),
    ("STORE_BROD", {"visthus": True}),
]


@pytest.mark.parametrize("card,change", CONDITIONS, ids=[c[0] for c in CONDITIONS])
def test_a_runestone_is_completed_when_its_conditions_are_fulfilled(
    card: str, change: dict[str, Any]
) -> None:
    """– A Runestone is completed when its conditions are fulfilled. (Assumptions RUNESTONE_CARDS,
    RUNESTONE_SECRECY: the completion is told to the holder alone.)"""  # noqa: RUF002
    uses("RUNESTONE_CARDS", "RUNESTONE_SECRECY")
    state = base(2)
    seat = state.actor
    fields: dict[str, Any] = {}
    moves: list[Any]
    if "owners" in change:
        *before, built = change["owners"].split()
        for name in before:
            fields["owners"] = _set(state.owners, B[name], seat)
        wallet, moves = res(LERA=2, MALM=1, VIRKE=1), [Build(B[built])]
    elif "skepp" in change:
        wallet, moves = res(VIRKE=2, VADMAL=1), [BuySkepp()]
    elif "extension" in change:
        wallet, moves = res(VIRKE=2, LERA=2), [BuildExtension()]
    elif "plots" in change:
        plots = list(state.plots[seat])
        *before_slots, (last_plot, last_good) = change["plots"]
        for plot, good in before_slots:
            plots[PLOT[plot] * SLOTS + 1 + good] = 6
        fields["plots"] = _set(state.plots, seat, tuple(plots))
        fields["owners"] = _set(_set(state.owners, B["SMEDJAN"], seat), B["STALLET"], seat)
        wallet = res(BROD=1, FISK=1, JARN=1, TRAKOL=1, KORN=2, VADMAL=1)
        moves = [Upgrade(PLOT[last_plot], last_good), PlaceToken(6)]
    else:
        wallet, moves = res(BROD=2, TRAN=1), [MarketTrade(TRAN, BROD)]
        fields["market"] = (1,) * D.resources
    wallets = rows(state, **{f"s{seat}": wallet})
    state = acting(state, seat, hands={seat: hand_with(card)}, visthus=wallets, **fields)
    assert RS[card] not in state.completed[seat]
    state, events = play(state, *moves)
    assert RS[card] in state.completed[seat]
    done = [e for e in events if e.kind == "RUNESTONE_COMPLETED"]
    assert done and done[0].detail.cards == (RS[card],) and done[0].player == seat
    other = (seat + 1) % 2
    assert view_event(done[0], seat) == done[0]
    assert view_event(done[0], other) is None and view_event(done[0], None) is None
    assert all(D.runestone_names[RS[card]] not in e.text for e in events)


def test_a_completed_runestone_stays_completed() -> None:
    """– A Runestone is completed when its conditions are fulfilled. (Assumption RUNESTONE_CARDS.)"""  # noqa: RUF002
    uses("RUNESTONE_CARDS")
    state = base(2)
    seat = state.actor
    state = acting(
        state,
        seat,
        hands={seat: hand_with("STORE_BROD")},
        visthus=rows(state, **{f"s{seat}": res(BROD=2, TRAN=1)}),
        market=(1,) * D.resources,
    )
    state, _ = play(state, MarketTrade(TRAN, BROD), Discard(BROD))
    assert state.visthus[seat][BROD] == 2 and RS["STORE_BROD"] in state.completed[seat]


def test_a_shared_birka_runestone_becomes_impossible_once_another_player_builds_it() -> None:
    """Since multiple Players can have the same Runestone (Birka based Runestone), some Runestone will
    not be possible to complete, e.g. Player Bear and Raven both need to build the Kolmila, and if Bear
    builds it first, Raven will not be able to complete the Runestone. (Assumption
    IMPOSSIBLE_RUNESTONES.)"""
    uses("IMPOSSIBLE_RUNESTONES")
    state = base(2)
    bear, raven = state.actor, (state.actor + 1) % 2
    hand = hand_with("BUILD_KOLMILA")
    wallets = rows(state, **{f"s{bear}": res(LERA=2, MALM=1), f"s{raven}": res(LERA=2, MALM=1)})
    state = acting(state, bear, hands={bear: hand, raven: hand}, visthus=wallets)
    state, events = play(state, Build(B["KOLMILA"]))
    assert RS["BUILD_KOLMILA"] in state.completed[bear]
    assert not possible(state, raven, RS["BUILD_KOLMILA"], D)
    blocked = [e for e in events if e.kind == "RUNESTONE_BLOCKED"]
    assert len(blocked) == 1 and blocked[0].player == raven
    assert view_event(blocked[0], raven) == blocked[0] and view_event(blocked[0], bear) is None
    state, _ = play(state, EndActions())
    assert state.actor == raven
    assert refused(state, Build(B["KOLMILA"]), "BUILDING_OWNED")
    state, _ = passive(state)
    assert RS["BUILD_KOLMILA"] not in state.completed[raven]


# --------------------------------------------------------------------------- the end and scoring


def near_the_end(players: int = 3, hand: Sequence[str] = ()) -> State:
    """The acting player has completed 4 cards (2 Skepp, the extension, the Eldhus, 2 buildings) and
    completes a fifth by building the Kolmila."""
    state = base(players)
    seat = state.actor
    names = hand or ("SKEPP_2", "EXTENSION", "BUILD_ELDHUS", "BUILDINGS_2", "BUILD_KOLMILA", "SKEPP_3")
    owners = _set(_set(state.owners, B["ELDHUS"], seat), B["VAVSTUGA"], seat)
    return acting(
        state,
        seat,
        hands={seat: [RS[c] for c in names]},
        owners=owners,
        skepp=_set(state.skepp, seat, 2),
        extension=_set(state.extension, seat, True),
        visthus=rows(state, **{f"s{seat}": res(LERA=2, MALM=1)}),
    )


def test_the_game_ends_immediately_when_a_player_completes_five_runestones() -> None:
    """End of Game is triggered immediately when: • A Player completes 5 Runestone Cards
    (Assumption GAME_END.)"""
    uses("GAME_END")
    state = near_the_end()
    seat = state.actor
    assert len(state.completed[seat]) == 4
    state, events = play(state, Build(B["KOLMILA"]))
    assert state.phase is Phase.OVER and state.finisher == seat and state.round == 1 and state.turn == 1
    assert GAME.legal_moves(state) == () and "GAME_ENDS" in kinds(events)
    assert core.validate(GAME, state, EndActions()) == core.GAME_OVER
    assert GAME.reveals(state, Build(B["KOLMILA"]), state)


@pytest.mark.parametrize("rounds", [5, 10])
def test_no_rations_are_required_when_the_game_ends_in_the_last_round(rounds: int) -> None:
    """No Rations are required if the game ends in Calendar Round 10. (Assumption GAME_LENGTH: the last
    round, 5 or 10.)"""
    uses("GAME_LENGTH")
    state = GAME.new_game(2, Options(calendar_rounds=rounds), Rng.from_seed(2))
    state, _ = advance(state, lambda s: s.round == rounds and s.phase is Phase.ROLL and s.turn == 12)
    state = at(state, visthus=(EMPTY, EMPTY))
    state, events = play(state, Draw(3))  # nobody will hold food
    state, more = passive(state)
    events += more
    assert (
        state.phase is Phase.OVER and "STARVING" not in kinds(events) and "RATION_PAID" not in kinds(events)
    )
    assert "LAST_ROUND_ENDED" in kinds(events) and state.finisher == -1


def test_a_player_with_more_than_five_completed_counts_the_five_best() -> None:
    """In rare cases where a Player completes more than 5 Runestones, the Player counts the 5 highest
    rewarded Cards. (Assumption SCORING.)"""
    uses("SCORING")
    # the Kolmila completes two cards at once: BUILD_KOLMILA (3 points) and BUILDINGS_3 (5 points)
    hand = ("SKEPP_2", "EXTENSION", "BUILD_ELDHUS", "BUILD_KOLMILA", "BUILDINGS_3", "BUILDINGS_2")
    state = near_the_end(3, hand)
    seat = state.actor
    assert len(state.completed[seat]) == 4
    state, _ = play(state, Build(B["KOLMILA"]))
    assert len(state.completed[seat]) == 6
    points = sorted((D.runestone_points[c] for c in state.completed[seat]), reverse=True)
    assert state.scores[seat] == sum(points[:5]) + 2 and sum(points) > sum(points[:5])


def test_scoring_order_finisher_first_then_clockwise() -> None:
    """1. The Player who completed 5 Runestones reveals their cards and calculates points. 2. In
    clockwise order Remaining Players reveal and calculate points. (Assumption SCORING.)"""
    uses("SCORING")
    state = near_the_end(4)
    seat = state.actor
    state, events = play(state, Build(B["KOLMILA"]))
    revealed = [e.player for e in events if e.kind == "RUNESTONES_REVEALED"]
    assert revealed == [(seat + i) % 4 for i in range(4)]
    assert kinds(events).index("FINISHER_BONUS") > kinds(events).index("RUNESTONES_REVEALED")


def test_the_finisher_gains_one_point_for_each_opponent() -> None:
    """3. The Finisher Bonus: The Player who completed 5 Runestone gains 1 point for each opponent.
    (Assumption SCORING.)"""
    uses("SCORING")
    for players in (2, 3, 4):
        state = near_the_end(players)
        seat = state.actor
        state, events = play(state, Build(B["KOLMILA"]))
        card_points = sum(D.runestone_points[c] for c in state.completed[seat])
        assert state.scores[seat] == card_points + players - 1
        bonus = [e for e in events if e.kind == "FINISHER_BONUS"]
        assert bonus[0].detail.value == players - 1


def test_the_player_who_triggered_the_end_wins_a_tie() -> None:
    """4. Tiebreaker: The Player who triggered the end wins. If not among tied Players, victory is shared.
    (Assumption SCORING.)"""
    uses("SCORING")
    state = near_the_end(2)
    seat, other = state.actor, (state.actor + 1) % 2
    # the finisher: 2 + 2 + 3 + 3 (completed) + 3 (Kolmila) + 1 (bonus) = 14; the other: 6 + 4 + 4 = 14
    owners = _set(_set(state.owners, B["STALLET"], other), B["SMEDJAN"], other)
    rich = [RS[c] for c in ("SKEPP_4", "BUILD_STALLET", "BUILD_SMEDJAN", "STORE_BROD", "TRAL_2")]
    state = with_hands(state._replace(owners=owners, skepp=_set(state.skepp, other, 4)), {other: rich})
    assert sum(D.runestone_points[c] for c in state.completed[other]) == 14
    state, _ = play(state, Build(B["KOLMILA"]))
    assert state.scores[seat] == state.scores[other] == 14
    assert state.winners == (seat,)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.result is Result.WIN and outcome.winners == (seat,)


def test_victory_is_shared_when_the_finisher_is_not_among_the_tied() -> None:
    """4. Tiebreaker: The Player who triggered the end wins. If not among tied Players, victory is shared.
    (Assumption SCORING: a shared victory is a WIN with several winners, or a DRAW when all tie.)"""
    uses("SCORING")
    state = GAME.new_game(3, Options(), Rng.from_seed(2))
    state, _ = advance(state, lambda s: s.round == 5 and s.phase is Phase.ROLL and s.turn == 12)
    state = with_hands(
        state._replace(skepp=(2, 2, 1)),
        {0: hand_with("SKEPP_2"), 1: hand_with("SKEPP_2"), 2: HARD_HAND},
    )
    state, _ = passive(state)
    assert state.phase is Phase.OVER and state.finisher == -1
    assert state.scores == (2, 2, 0) and state.winners == (0, 1)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.result is Result.WIN and "share" in outcome.summary
    everyone, _ = advance(GAME.new_game(2, Options(), Rng.from_seed(4)), lambda s: s.phase is Phase.ROLL)
    everyone, _ = passive(with_hands(everyone, {0: HARD_HAND, 1: HARD_HAND}))
    outcome = GAME.outcome(everyone)
    assert outcome is not None and outcome.result is Result.DRAW and outcome.winners == (0, 1)


# --------------------------------------------------------------------------- hidden information


def _hidden_twin(state: State, seat: int) -> State:
    """``state`` with only hidden data changed: ``seat``'s hand swapped for other cards of its deck
    (the same number) and another RNG."""
    hand = tuple(sorted(state.decks[seat][:5]))
    twin = with_hands(state._replace(rng=Rng.from_seed(12345)), {seat: hand})
    assert twin.hands[seat] != state.hands[seat] and len(twin.decks[seat]) == len(state.decks[seat])
    return twin


def test_changing_only_hidden_data_changes_no_other_seats_view() -> None:
    """– Each Player begins with 5 Runestones, hidden for other players. (Assumption RUNESTONE_SECRECY.)"""  # noqa: RUF002
    uses("RUNESTONE_SECRECY")
    state = base(3)
    twin = _hidden_twin(state, 1)
    for seat in (None, 0, 2):
        assert GAME.view(twin, seat) == GAME.view(state, seat)
    assert GAME.view(twin, 1) != GAME.view(state, 1)


def test_changing_only_hidden_data_changes_nothing_in_the_move_log_other_seats_see() -> None:
    """• Acquire Runestones: Purchase Runestone Cards . Draw two random cards, keep one, discard the
    other. (Assumption RUNESTONE_SECRECY: the move log and events another seat sees name no card.)"""
    uses("RUNESTONE_SECRECY")
    state = base(3)
    seat = state.actor
    state = acting(state, seat, visthus=rows(state, **{f"s{seat}": res(VADMAL=1, KERAMIK=1)}))
    twin = _hidden_twin(state, seat)
    logs: dict[int | None, list[Any]] = {}
    for version in (state, twin):
        s = version
        log: dict[int | None, list[Any]] = {None: [], 0: [], 1: [], 2: []}
        for move in (AcquireRunestone(), DrawCard(), DrawCard(), KeepCard(0), EndActions()):
            resolved = GAME.drawn_outcome(s) if isinstance(move, DrawCard) else move
            s, events = play(s, move)
            for viewer, entries in log.items():
                seen = GAME.view_move(resolved, seat, viewer) if viewer != seat else resolved
                shown = [x for x in (view_event(e, viewer) for e in events) if x is not None]
                entries.append((seen, shown, GAME.view(s, viewer)))
        for viewer, entries in log.items():
            logs.setdefault(viewer, []).append(entries)
    for viewer in (None, 0, 1, 2):
        if viewer == seat:
            assert logs[viewer][0] != logs[viewer][1]  # the drawer sees their own cards
        else:
            assert logs[viewer][0] == logs[viewer][1], viewer
    drawn = [entry[0] for entry in logs[(seat + 1) % 3][0] if isinstance(entry[0], DrawCard)]
    assert drawn == [DrawCard(HIDDEN), DrawCard(HIDDEN)]


def test_dealt_cards_are_secret_in_events_and_the_move_log() -> None:
    """5 random Runestone Cards (keep hidden from other players) (Assumption RUNESTONE_SECRECY.)"""
    uses("RUNESTONE_SECRECY")
    state = GAME.new_game(2, Options(), Rng.from_seed(8))
    move = GAME.drawn_outcome(state)
    assert isinstance(move, DrawCard) and move.index is not None
    after, events = play(state, DrawCard())
    dealt = events[0]
    assert dealt.kind == "CARD_DEALT" and dealt.detail.cards == (state.decks[0][move.index],)
    assert view_event(dealt, 0) == dealt
    hidden = view_event(dealt, 1)
    assert hidden is not None and hidden.detail.cards == () and hidden.text == dealt.text
    assert all(name not in dealt.text for name in D.runestone_names)
    assert GAME.view_move(move, 0, 1) == DrawCard(HIDDEN) and GAME.view_move(move, 0, None) == DrawCard(
        HIDDEN
    )
    assert GAME.view_move(move, 0, 0) == move
    assert GAME.reveals(state, move, after)


# --------------------------------------------------------------------------- data


def test_the_reference_data_is_served_by_describe_game_and_every_number_is_an_assumption() -> None:
    """See Resources & Building for details. (Assumption REFERENCE_DATA.)"""
    uses("REFERENCE_DATA")
    description = GAME.describe()
    assert set(description.data) == {"resources", "byn", "birka", "calendar", "runestones", "indices"}
    json.dumps(description.data)  # JSON-able for a frontend
    assert description.assumptions == ASSUMPTIONS and description.options == OPTIONS
    assert len(IDS) == len(ASSUMPTIONS)
    for a in ASSUMPTIONS:
        assert a.rulebook and a.decision and a.id.isupper()
    assert len(description.data["calendar"]["cards"]) == 10
    assert len(description.data["runestones"]["cards"]) == 24


def test_a_data_file_can_be_replaced_by_an_option_without_code_changes() -> None:
    """• Constructing: Spend Resources matching the price at the top of the Building icon, e.g. the
    Kolmila costs 2 Lera and 1 Malm . (Assumption REFERENCE_DATA: the data option.)"""
    uses("REFERENCE_DATA")
    birka = json.loads(json.dumps(D.data["birka"]))
    kolmila = next(b for b in birka["buildings"] if b["id"] == "KOLMILA")
    kolmila["price"] = {"LERA": 3}
    options = Options(data=json.dumps({"birka": birka}))
    state = GAME.new_game(2, options, Rng.from_seed(1))
    state, _ = advance(state, lambda s: s.phase is Phase.ACTIONS)
    seat = state.actor
    state = acting(state, seat, visthus=rows(state, **{f"s{seat}": res(LERA=3)}))
    state, _ = play(state, Build(B["KOLMILA"]))
    assert state.visthus[seat] == EMPTY and state.owners[B["KOLMILA"]] == seat


@pytest.mark.parametrize(
    "text,problem",
    [
        ("{", "not valid JSON"),
        ('{"map": {}}', "unknown data file 'map'"),
        ('{"byn": {"visthus_slots": 0}}', "byn.visthus_slots"),
        ('{"resources": {"raw": [], "crafted": []}}', "resources.raw"),
    ],
)
def test_a_bad_data_set_is_refused_with_a_clear_error(text: str, problem: str) -> None:
    """See each Building for crafting price. (Assumption REFERENCE_DATA: a replaced file is validated
    like the reference.)"""
    uses("REFERENCE_DATA")
    with pytest.raises(BirkaDataError, match=problem):
        load_data(text)
    with pytest.raises(LawspeakerError) as refused_game:
        GAME.new_game(2, Options(data=text), Rng.from_seed(1))
    assert refused_game.value.reason == "INVALID_DATA"
    assert refused_game.value.field_violations[0].field == "data"
    state = started(2)
    assert GAME.check_state(state._replace(options=Options(data=text)))[0].field == "options"
    birka = json.loads(json.dumps(D.data["birka"]))
    birka["buildings"][0]["craft"]["output"] = "FISK"
    with pytest.raises(BirkaDataError, match="crafted resource"):
        load_data(json.dumps({"birka": birka}))
    assert GAME.check_state(state._replace(options=Options(calendar_rounds=7)))[0].field == "options"


# --------------------------------------------------------------------------- properties


def _random(rng: random.Random, moves: Sequence[Any]) -> Any:
    return rng.choice(list(moves))


PREFERRED = (Build, Upgrade, AcquireRunestone, BuySkepp, BuildExtension, Craft, PlaceToken, KeepCard)


def _builder(rng: random.Random, moves: Sequence[Any]) -> Any:
    """A random player who likes to build, upgrade and go to Tinget (reaches every step)."""
    good = [m for m in moves if isinstance(m, PREFERRED)]
    if good and rng.random() < 0.9:
        return rng.choice(good)
    calm = [m for m in moves if not isinstance(m, Discard)]
    return rng.choice(calm if calm and rng.random() < 0.8 else list(moves))


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rounds", [5, 10])
@pytest.mark.parametrize("policy", [_random, _builder], ids=["random", "builder"])
def test_random_playouts_end_and_keep_every_invariant(players: int, rounds: int, policy: Any) -> None:
    """The game is played over a maximum of 5 Calendar Rounds (the 10 cards), or until a Player has
    completed 5 Runestones . (Every playout ends within 20,000 plies; every state and every view is
    valid; every listed move and chance outcome validates; unlisted moves are refused with a reason.)"""
    seed = players * 10 + rounds
    options = Options(calendar_rounds=rounds)
    states = random_playout(players, options, seed, seed, policy)
    assert states == random_playout(players, options, seed, seed, policy)  # same seed, same game
    assert GAME.outcome(states[-1]) is not None and GAME.legal_moves(states[-1]) == ()
    seen: set[Any] = set()
    for i, state in enumerate(states):
        assert GAME.check_state(state) == []
        if i % 7:
            continue
        for seat in (None, *range(players)):
            assert GAME.check_state(GAME.view(state, seat)) == []
        legal = list(GAME.legal_moves(state))
        seen.update(legal)
        chance = GAME.chance(state)
        explicit = [o.move for o in chance.outcomes] if chance else []
        if chance:
            assert abs(sum(o.probability for o in chance.outcomes) - 1) < 1e-9
            drawn, events = GAME.apply(state, legal[0])
            forced, forced_events = GAME.apply(state, GAME.drawn_outcome(state))
            assert forced_events == events and forced._replace(rng=drawn.rng) == drawn
        for move in legal[:40] + explicit[:6]:
            assert core.validate(GAME, state, move) is None
            after, _ = core.apply(GAME, state, move)
            assert GAME.check_state(after) == []
        for move in list(seen - set(legal) - set(explicit))[:40]:
            violation = core.validate(GAME, state, move)
            assert violation is not None
            assert violation.reason.replace("_", "").isalpha() and violation.reason.isupper()
            assert violation.reason != "NOT_A_LEGAL_MOVE", (state.phase, move)
            assert len(violation.message) > 10 and violation.message[0].isupper()


def test_every_assumption_and_option_is_documented() -> None:
    """Every reading of the rulebook and every option is recorded in docs/rules/birka.md."""
    from pathlib import Path

    from lawspeaker.games.birka import OPTIONS

    doc = (Path(__file__).parents[2] / "docs" / "rules" / "birka.md").read_text()
    for a in ASSUMPTIONS:
        assert f"`{a.id}`" in doc, a.id
    for o in OPTIONS:
        assert f"`{o.name}`" in doc, o.name
