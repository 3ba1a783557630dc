"""What Birka tells a player and a client, word for word: every refusal's reason, field and
sentence, every event's text and details, the chance steps' labels, the options against the
contract (``lawspeaker.v1.birka_pb2``), the assumptions against the rulebook, the description, the
module's public names and the immutability of its values.

The refusals and events are caught from seeded playouts (a fixed policy over the legal moves): each
catalogue entry names the playout seed and the ply where the move is tried or the event happens.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lawspeaker.games import birka, core
from lawspeaker.games.birka import (
    ASSUMPTIONS,
    GAME,
    OPTIONS,
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
    EventDetail,
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
)
from lawspeaker.games.birka.data import REFERENCE as D
from lawspeaker.games.core import ErrorCode, Event, LawspeakerError, Rng
from lawspeaker.v1 import birka_pb2

ROOT = Path(__file__).resolve().parents[2]
RULEBOOK = ROOT.parent / "shared" / "rulebooks" / "birka.txt"


def _words(text: str) -> str:
    return " ".join(text.split())


def _playout(seed: int) -> Iterator[tuple[int, State, list[Event]]]:
    """Seed ``seed``'s playout: (ply, the state before the ply's move, the events of that move). The
    policy: mostly a random purchase or craft, else mostly a move that is neither a discard nor the
    end of the actions; 2 to 4 players, 5 or 10 Calendar Rounds."""
    rng = random.Random(seed)
    options = Options(calendar_rounds=(5, 10)[seed % 2])
    state = GAME.new_game(2 + seed % 3, options, Rng.from_seed(seed))
    ply = 0
    while GAME.outcome(state) is None:
        moves = GAME.legal_moves(state)
        big = [
            m
            for m in moves
            if isinstance(m, Build | BuySkepp | BuildExtension | AcquireRunestone | Upgrade | Craft)
        ]
        busy = [m for m in moves if not isinstance(m, EndActions | Discard)]
        r = rng.random()
        move = rng.choice(big if big and r < 0.7 else busy if busy and r < 0.95 else moves)
        after, events = GAME.apply(state, move)
        yield ply, state, events
        state = after
        ply += 1


# --------------------------------------------------------------------------- refusals and events

#: (seed, ply, move tried, reason, field, message): the first time the playouts meet each refusal.
REFUSALS: list[tuple[int, int, Any, str, str, str]] = [
    (
        0,
        0,
        MarketTrade(give=0, take=0),
        "WRONG_STEP",
        "move",
        "That move is not part of this step: Runestone Cards are being dealt.",
    ),
    (
        0,
        0,
        Discard(resource=-1),
        "DISCARD_ONLY_IN_ACTIONS",
        "discard",
        "You discard only during your own actions: you cannot discard Resources during the collection "
        "phase or another step.",
    ),
    (
        0,
        0,
        Draw(outcome=-1),
        "WRONG_DRAW",
        "draw",
        "This chance step is drawn with DrawCard (a secret Runestone Card): Runestone Cards are being dealt.",
    ),
    (
        0,
        0,
        DrawCard(index=-1),
        "NO_SUCH_OUTCOME",
        "draw_card.index",
        "That is not a possible outcome (-1): this draw has 24 possible outcomes, listed with the "
        "legal moves.",
    ),
    (
        0,
        10,
        Draw(outcome=-1),
        "NO_SUCH_OUTCOME",
        "draw.outcome",
        "That is not a possible outcome (-1): the starting player is a seat from 0 to 1 (Player 1 to "
        "Player 2).",
    ),
    (
        0,
        15,
        MarketTrade(give=0, take=0),
        "NO_ACTIONS_LEFT",
        "move",
        "You can perform as many actions as you own Skepp: you have none left this Turn.",
    ),
    (0, 15, Discard(resource=-1), "NO_SUCH_RESOURCE", "discard.resource", "There is no such resource."),
    (
        0,
        15,
        Discard(resource=0),
        "NOTHING_TO_DISCARD",
        "discard.resource",
        "Your Visthus holds no Fisk to discard.",
    ),
    (
        0,
        15,
        Draw(outcome=-1),
        "NOT_A_CHANCE_STEP",
        "draw",
        "Nothing is drawn now: a player performs actions, discards, or ends their actions.",
    ),
    (
        0,
        25,
        MarketTrade(give=0, take=0),
        "SAME_RESOURCE",
        "market_trade.take",
        "A trade exchanges one resource for another.",
    ),
    (
        0,
        25,
        MarketTrade(give=0, take=1),
        "CANNOT_AFFORD",
        "market_trade.give",
        "This trade gives 1 Fisk from your Visthus to the Market, and you hold 0.",
    ),
    (
        0,
        25,
        MarketTrade(give=0, take=6),
        "DIFFERENT_MARKETS",
        "market_trade.take",
        "The Raw Market trades Raw Resources and the Crafted Market Crafted Resources.",
    ),
    (
        0,
        25,
        MarketTrade(give=2, take=0),
        "NOT_IN_MARKET",
        "market_trade.take",
        "You may not trade for a Resource that is not present: no Fisk at the Market.",
    ),
    (
        0,
        25,
        OutlawTrade(give=0, take=0),
        "SAME_RESOURCE",
        "outlaw_trade.take",
        "A trade exchanges one resource for another.",
    ),
    (
        0,
        25,
        OutlawTrade(give=0, take=1),
        "CANNOT_AFFORD",
        "outlaw_trade.give",
        "The Outlaw Trader wants 2 Fisk for 1 Korn; you hold 0.",
    ),
    (0, 25, Craft(building=-1), "NO_SUCH_BUILDING", "craft.building", "There is no such building."),
    (
        0,
        25,
        Craft(building=0),
        "NOT_BUILT",
        "craft.building",
        "A Building cannot be used until purchased by any Player in Birka: nobody owns the Trankokeri yet.",
    ),
    (
        0,
        25,
        Craft(building=6),
        "NOT_A_CRAFTING_BUILDING",
        "craft.building",
        "The Trältorget is not a crafting building.",
    ),
    (0, 25, Build(building=-1), "NO_SUCH_BUILDING", "build.building", "There is no such building."),
    (
        0,
        25,
        Build(building=0),
        "CANNOT_AFFORD",
        "build.building",
        "That costs 1 Ull and 2 Virke, more than your Visthus holds.",
    ),
    (
        0,
        25,
        Build(building=6),
        "NOT_FOR_SALE",
        "build.building",
        "The Trältorget cannot be built: nobody owns it and it is always available.",
    ),
    (0, 25, Upgrade(plot=-1, good=-1), "NO_SUCH_PLOT", "upgrade.plot", "There is no such Resource Plot."),
    (
        0,
        25,
        Upgrade(plot=0, good=-1),
        "NO_SUCH_GOOD",
        "upgrade.good",
        "The upgrades are Träl, Verktyg and Häst.",
    ),
    (
        0,
        25,
        Upgrade(plot=0, good=0),
        "CANNOT_AFFORD",
        "upgrade",
        "That costs 1 Fisk and 1 Bröd, more than your Visthus holds.",
    ),
    (
        0,
        25,
        Upgrade(plot=0, good=1),
        "NOT_BUILT",
        "upgrade.good",
        "A Building cannot be used until purchased by any Player in Birka: nobody owns the Smedjan yet.",
    ),
    (
        0,
        25,
        Upgrade(plot=1, good=0),
        "SLOT_TAKEN",
        "upgrade.plot",
        "Once placed, dice cannot be changed: the Träl slot of your Korn plot is already upgraded.",
    ),
    (
        0,
        25,
        BuySkepp(),
        "CANNOT_AFFORD",
        "buy_skepp",
        "That costs 2 Virke and 1 Vadmal, more than your Visthus holds.",
    ),
    (
        0,
        25,
        BuildExtension(),
        "CANNOT_AFFORD",
        "build_extension",
        "That costs 2 Lera and 2 Virke, more than your Visthus holds.",
    ),
    (
        0,
        25,
        AcquireRunestone(),
        "CANNOT_AFFORD",
        "acquire_runestone",
        "That costs 1 Keramik and 1 Vadmal, more than your Visthus holds.",
    ),
    (
        0,
        55,
        Craft(building=1),
        "CANNOT_AFFORD",
        "craft.building",
        "That costs 3 Korn, more than your Visthus holds.",
    ),
    (0, 55, Build(building=1), "BUILDING_OWNED", "build.building", "The Eldhus already belongs to Player 1."),
    (
        0,
        60,
        OutlawTrade(give=0, take=1),
        "OUTLAW_CLOSED",
        "outlaw_trade",
        "The Calendar Card in effect closes the Outlaw Trader.",
    ),
    (
        0,
        145,
        BuildExtension(),
        "EXTENSION_OWNED",
        "build_extension",
        "Your Visthus already has its extension.",
    ),
    (
        0,
        230,
        Craft(building=0),
        "STARVING",
        "move",
        "You are starving: until the Ration is paid you may only collect food (Korn or Fisk), craft "
        "Bröd, trade and receive payments.",
    ),
    (
        0,
        270,
        MarketTrade(give=1, take=0),
        "MARKET_ROW_FULL",
        "market_trade.give",
        "You may not exceed available Slots: the Korn row is full.",
    ),
    (
        0,
        345,
        MarketTrade(give=0, take=1),
        "MARKET_CLOSED",
        "market_trade",
        "The Calendar Card in effect closes the Market.",
    ),
    (1, 25, PlaceToken(value=0), "NO_SUCH_TOKEN", "place_token.value", "Dice tokens show 1 to 6."),
    (
        1,
        455,
        Collect(resource=-1),
        "NOT_DUE",
        "collect.resource",
        "Collect only the Raw Resources the roll gives you this Turn.",
    ),
    (
        1,
        455,
        StopCollecting(),
        "MUST_COLLECT",
        "stop_collecting",
        "All Players collect; only the Mjödhallen owner may leave part of the collection, when its "
        "number was rolled, to have room for the payment.",
    ),
    (
        4,
        295,
        PayRation(food=(0, 0), bread=False),
        "BAD_RATION",
        "pay_ration.food",
        "The Ration costs 3 Korn / Fisk (any combination, one count per food resource) or 1 Bröd.",
    ),
    (
        4,
        295,
        PayRation(food=(2, 1), bread=False),
        "CANNOT_PAY_RATION",
        "pay_ration.food",
        "The Ration costs 3 Korn / Fisk in any combination, and you hold 1 Korn, 3 Fisk: pay with what "
        "you hold.",
    ),
    (
        4,
        295,
        PayRation(food=(), bread=True),
        "CANNOT_PAY_RATION",
        "pay_ration.bread",
        "The Ration costs 1 Bröd, and you hold 0.",
    ),
    (
        5,
        1625,
        PayLevy(resource=-1),
        "NO_SUCH_RESOURCE",
        "pay_levy",
        "The levy takes a resource of the kind the card names that you hold.",
    ),
]
#: (seed, ply, event): the first event of each kind (with and without details) in the playouts.
EVENTS: list[tuple[int, int, Event]] = [
    (
        0,
        0,
        Event(
            kind="CARD_DEALT",
            text="Player 1 is dealt a Runestone Card.",
            player=0,
            detail=EventDetail(
                value=1, resources=(), seats=(0,), cards=(13,), secret=True, private=False, viewers=(0,)
            ),
        ),
    ),
    (
        0,
        10,
        Event(
            kind="STARTING_PLAYER", text="The dice make Player 2 the Starting Player.", player=1, detail=None
        ),
    ),
    (
        0,
        11,
        Event(
            kind="CALENDAR_CARD",
            text="Torka is revealed at the start of the Calendar Round.",
            player=None,
            detail=EventDetail(
                value=1, resources=(), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        11,
        Event(
            kind="MARKET_RESET",
            text="The Market is reset: 1 in every Raw row, 1 in every Crafted row.",
            player=None,
            detail=EventDetail(
                value=0,
                resources=(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11),
                seats=(),
                cards=(),
                secret=False,
                private=False,
                viewers=(),
            ),
        ),
    ),
    (
        0,
        12,
        Event(
            kind="DIE_ROLLED",
            text="Player 2 rolls the yellow die: 4 (Malm).",
            player=1,
            detail=EventDetail(
                value=4, resources=(3,), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        12,
        Event(
            kind="COLLECTED",
            text="Player 2 collects Fisk, Malm.",
            player=1,
            detail=EventDetail(
                value=0, resources=(0, 3), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        13,
        Event(
            kind="GOOD_BOUGHT",
            text="Player 2 purchases a Träl in the Trältorget for plot 2 (Korn).",
            player=1,
            detail=EventDetail(
                value=0, resources=(1,), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        14,
        Event(
            kind="PLOT_UPGRADED",
            text="Player 2 places a 4 dice token with the Träl on plot 2 (Korn).",
            player=1,
            detail=EventDetail(
                value=4, resources=(1,), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (0, 15, Event(kind="ACTIONS_ENDED", text="Player 2 ends their actions.", player=1, detail=None)),
    (
        0,
        18,
        Event(
            kind="DISCARDED",
            text="Player 1 discards 1 Malm.",
            player=0,
            detail=EventDetail(
                value=1, resources=(3,), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        22,
        Event(
            kind="MARKET_TRADE",
            text="Player 1 trades 1 Ull for 1 Fisk at the Market.",
            player=0,
            detail=EventDetail(
                value=1, resources=(4, 0), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        30,
        Event(
            kind="OUTLAW_TRADE",
            text="Player 2 trades 2 Lera for 1 Korn with the Outlaw Trader.",
            player=1,
            detail=EventDetail(
                value=2, resources=(2, 1), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        53,
        Event(
            kind="BUILT",
            text="Player 1 builds the Eldhus and places their Player icon on it.",
            player=0,
            detail=EventDetail(
                value=1, resources=(), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        53,
        Event(
            kind="RUNESTONE_BLOCKED",
            text="Player 2 can no longer complete one of their Runestone Cards.",
            player=1,
            detail=EventDetail(
                value=0, resources=(), seats=(1,), cards=(1,), secret=True, private=True, viewers=(1,)
            ),
        ),
    ),
    (
        0,
        53,
        Event(
            kind="RUNESTONE_COMPLETED",
            text="Player 1 completes a Runestone Card.",
            player=0,
            detail=EventDetail(
                value=1, resources=(), seats=(0,), cards=(1,), secret=True, private=True, viewers=(0,)
            ),
        ),
    ),
    (
        0,
        113,
        Event(
            kind="STARVING",
            text="Player 1 cannot pay the Ration and starves next Calendar Round.",
            player=0,
            detail=None,
        ),
    ),
    (0, 113, Event(kind="ROUND_ENDED", text="Calendar Round 1 ends.", player=None, detail=None)),
    (
        0,
        114,
        Event(
            kind="GIFT_RECEIVED",
            text="Player 2 receives Bröd.",
            player=1,
            detail=EventDetail(
                value=0, resources=(7,), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        115,
        Event(
            kind="RECOVERED",
            text="Player 2 pays the Ration (Bröd) and recovers from the next Turn.",
            player=1,
            detail=EventDetail(
                value=1, resources=(7,), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        131,
        Event(
            kind="EXTENSION_BUILT",
            text="Player 1 builds the Visthus extension (+4 slots).",
            player=0,
            detail=None,
        ),
    ),
    (
        0,
        261,
        Event(
            kind="CRAFTED",
            text="Player 2 crafts 1 Tran in the Trankokeri.",
            player=1,
            detail=EventDetail(
                value=0, resources=(6,), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        291,
        Event(
            kind="OWNER_PAID",
            text="Player 2 pays Korn to Player 1 for using the Eldhus.",
            player=0,
            detail=EventDetail(
                value=1, resources=(1,), seats=(1, 0), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        296,
        Event(
            kind="RATION_PAID",
            text="Player 1 pays the Ration (Korn, Korn, Korn).",
            player=0,
            detail=EventDetail(
                value=0, resources=(1, 1, 1), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (0, 415, Event(kind="LEVY_NOTHING", text="Player 2 has nothing the levy takes.", player=1, detail=None)),
    (
        0,
        415,
        Event(
            kind="LEVY_PAID",
            text="Player 1 returns 1 Lera to the supply.",
            player=0,
            detail=EventDetail(
                value=1, resources=(2,), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        0,
        452,
        Event(
            kind="LAST_ROUND_ENDED",
            text="Calendar Round 5 ends: the game ends (no Rations are required).",
            player=None,
            detail=None,
        ),
    ),
    (
        0,
        452,
        Event(
            kind="RUNESTONES_REVEALED",
            text="Player 1 reveals their Runestone Cards: 5 points.",
            player=0,
            detail=EventDetail(
                value=5,
                resources=(),
                seats=(0,),
                cards=(1, 13, 14, 19, 22, 1, 14),
                secret=False,
                private=False,
                viewers=(),
            ),
        ),
    ),
    (
        0,
        452,
        Event(
            kind="GAME_WON",
            text="Player 1, Player 2 share the victory with 5 points.",
            player=0,
            detail=EventDetail(
                value=5, resources=(), seats=(0, 1), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        1,
        627,
        Event(
            kind="CALENDAR_RESHUFFLED",
            text="Every Calendar Card was revealed: they are shuffled again.",
            player=None,
            detail=None,
        ),
    ),
    (
        3,
        287,
        Event(
            kind="VISTHUS_FULL",
            text="Player 2 has no empty Visthus slot and collects nothing.",
            player=1,
            detail=None,
        ),
    ),
    (
        3,
        667,
        Event(
            kind="SKEPP_BOUGHT",
            text="Player 1 purchases a Skepp (2 now) and may perform a new action.",
            player=0,
            detail=EventDetail(
                value=2, resources=(), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
    (
        3,
        743,
        Event(
            kind="RUNESTONE_PURCHASED",
            text="Player 1 purchases Runestone Cards at Tinget: draws two, keeps one.",
            player=0,
            detail=None,
        ),
    ),
    (
        3,
        744,
        Event(
            kind="CARD_DRAWN",
            text="Player 1 draws a Runestone Card at Tinget.",
            player=0,
            detail=EventDetail(
                value=1, resources=(), seats=(0,), cards=(7,), secret=True, private=False, viewers=(0,)
            ),
        ),
    ),
    (
        3,
        746,
        Event(
            kind="CARD_KEPT",
            text="Player 1 keeps a Runestone Card and discards the other.",
            player=0,
            detail=EventDetail(
                value=0, resources=(), seats=(0,), cards=(7, 11), secret=True, private=False, viewers=(0,)
            ),
        ),
    ),
    (
        4,
        642,
        Event(
            kind="MJODHALLEN_TOKEN",
            text="Player 3 places a permanent 5 in the Mjödhallen's white box.",
            player=2,
            detail=EventDetail(
                value=5, resources=(), seats=(), cards=(), secret=False, private=False, viewers=()
            ),
        ),
    ),
]


def _by_seed(entries: list[Any]) -> dict[int, dict[int, list[Any]]]:
    out: dict[int, dict[int, list[Any]]] = {}
    for entry in entries:
        out.setdefault(entry[0], {}).setdefault(entry[1], []).append(entry)
    return out


@pytest.mark.parametrize("seed", sorted({e[0] for e in REFUSALS} | {e[0] for e in EVENTS}))
def test_refusals_and_events_word_for_word(seed: int) -> None:
    """Each refusal keeps its reason code, the field it blames and its sentence; each event its kind,
    text, player and details."""
    refusals = _by_seed(REFUSALS).get(seed, {})
    events = _by_seed(EVENTS).get(seed, {})
    last = max([*refusals, *events])
    for ply, state, happened in _playout(seed):
        for _seed, _ply, move, reason, field, message in refusals.get(ply, []):
            assert move not in GAME.legal_moves(state)
            violation = core.validate(GAME, state, move)
            assert violation is not None, move
            assert (violation.reason, violation.field, violation.message) == (reason, field, message), move
        for _seed, _ply, event in events.get(ply, []):
            assert event in happened, (event, happened)
        if ply == last:
            return
    raise AssertionError("the playout ended early")


def test_every_refusal_reason_of_the_catalogue_is_a_documented_reason() -> None:
    assert {r[3] for r in REFUSALS} <= set(GAME.reasons)


# --------------------------------------------------------------------------- chance steps and outcome


def test_the_chance_steps_describe_every_outcome() -> None:
    """Setup deals from the player's own deck; the dice choose the Starting Player; the die faces
    name their resources; the Calendar Cards are named."""
    state = GAME.new_game(3, Options(), Rng.from_seed(4))
    chance = GAME.chance(state)
    assert chance is not None
    assert chance.description == "Player 1 is dealt a Runestone Card from their own deck (24 cards)"
    assert [o.label for o in chance.outcomes[:2]] == ["card 1 of 24", "card 2 of 24"]
    assert [o.move for o in chance.outcomes] == [DrawCard(i) for i in range(24)]
    while state.phase is Phase.SETUP_DEAL:
        state, _ = GAME.apply(state, DrawCard(0))
    chance = GAME.chance(state)
    assert chance is not None
    assert chance.description == "The dice determine the Starting Player"
    assert [(o.move, o.label) for o in chance.outcomes] == [
        (Draw(0), "Player 1 starts"),
        (Draw(1), "Player 2 starts"),
        (Draw(2), "Player 3 starts"),
    ]
    state, _ = GAME.apply(state, Draw(2))
    chance = GAME.chance(state)
    assert chance is not None
    assert chance.description == "The next Calendar Card is revealed"
    assert [o.label for o in chance.outcomes] == list(D.card_names)
    state, _ = GAME.apply(state, Draw(D.card_ids.index("MARKNADSDAG")))
    while state.phase is not Phase.ROLL:
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    chance = GAME.chance(state)
    assert chance is not None
    assert chance.description == "Player 3 rolls the yellow die"
    assert [(o.move, o.probability, o.label) for o in chance.outcomes] == [
        (Draw(1), 1 / 6, "1: Fisk"),
        (Draw(2), 1 / 6, "2: Korn"),
        (Draw(3), 1 / 6, "3: Lera"),
        (Draw(4), 1 / 6, "4: Malm"),
        (Draw(5), 1 / 6, "5: Ull"),
        (Draw(6), 1 / 6, "6: Virke"),
    ]
    assert GAME.chance(GAME.apply(state, Draw(1))[0]) is None


# --------------------------------------------------------------------------- options


def test_bad_options_are_refused_naming_the_option() -> None:
    with pytest.raises(LawspeakerError) as rounds:
        GAME.new_game(2, Options(calendar_rounds=6), Rng.from_seed(1))
    assert (rounds.value.code, rounds.value.reason) == (ErrorCode.MALFORMED, "INVALID_OPTIONS")
    assert [(v.field, v.description) for v in rounds.value.field_violations] == [
        ("calendar_rounds", "calendar_rounds must be 5 or 10")
    ]
    with pytest.raises(LawspeakerError) as data:
        GAME.new_game(2, Options(data="{"), Rng.from_seed(1))
    assert (data.value.code, data.value.reason) == (ErrorCode.MALFORMED, "INVALID_DATA")
    assert [v.field for v in data.value.field_violations] == ["data"]
    assert data.value.field_violations[0].description.startswith("data: ")


def test_the_options_are_the_fields_of_options_and_of_the_contracts_birka_options() -> None:
    """Every option is a field of ``Options`` and of ``BirkaOptions``; its default is ``Options()``'s."""
    contract = [f.name for f in birka_pb2.BirkaOptions.DESCRIPTOR.fields]
    assert [o.name for o in OPTIONS] == ["calendar_rounds", "tokens_only", "data"]
    assert sorted(o.name for o in OPTIONS) == sorted(f.name for f in dataclasses.fields(Options))
    assert sorted(contract) == sorted(o.name for o in OPTIONS)
    defaults = Options()
    assert {o.name: o.default for o in OPTIONS} == {
        "calendar_rounds": str(defaults.calendar_rounds),
        "tokens_only": str(defaults.tokens_only).lower(),
        "data": defaults.data,
    }
    assert {o.name: o.allowed for o in OPTIONS} == {
        "calendar_rounds": ("5", "10"),
        "tokens_only": ("true", "false"),
        "data": (),
    }


def test_the_engine_phases_are_the_contracts_phases() -> None:
    names = [v.name for v in birka_pb2.BirkaPhase.DESCRIPTOR.values]
    assert names == ["BIRKA_PHASE_UNSPECIFIED", *(f"BIRKA_PHASE_{p.name}" for p in Phase)]
    assert [p.value for p in Phase] == [p.name for p in Phase]


def _rulebook() -> str:
    if not RULEBOOK.exists():  # pragma: no cover - the shared rulebooks lie beside the repository
        pytest.skip(f"no rulebook at {RULEBOOK}")
    return _words(RULEBOOK.read_text(encoding="utf-8"))


def test_every_assumption_and_option_quotes_the_rulebook_word_for_word() -> None:
    """An assumption's ``rulebook`` text is a quotation (parts between "..." each in the rulebook);
    so is every 'quoted' passage of an option's description."""
    book = _rulebook()
    for a in ASSUMPTIONS:
        for part in a.rulebook.split("..."):
            assert _words(part) in book, (a.id, part)
    quotes = [q for o in OPTIONS for q in re.findall(r"(?:^|[\s(])'(.+?)'(?=[\s),.;])", o.description)]
    assert quotes
    for quote in quotes:
        assert _words(quote) in book, quote


def test_every_assumption_names_an_existing_option_or_none() -> None:
    names = {o.name for o in OPTIONS}
    assert len({a.id for a in ASSUMPTIONS}) == len(ASSUMPTIONS)
    for a in ASSUMPTIONS:
        assert not a.option or re.sub(r"\W.*", "", a.option) in names, a


# --------------------------------------------------------------------------- description


def test_the_description_is_the_reference_data_with_the_engines_indices() -> None:
    description = GAME.describe()
    assert description.options == OPTIONS
    assert description.assumptions == ASSUMPTIONS
    assert {k: v for k, v in description.data.items() if k != "indices"} == dict(D.data)
    assert description.data["indices"] == {
        "resources": list(D.resource_ids),
        "buildings": list(D.building_ids),
        "plots": [D.resource_ids[r] for r in D.plot_resources],
        "upgrades": list(D.good_ids),
        "calendar_cards": list(D.card_ids),
        "runestone_cards": list(D.runestone_ids),
        "plot_slots": "BirkaState plots hold, per player, plot * slots_per_plot + slot: slot 0 is the "
        "starting dice token, slot 1 + g the slot upgraded with upgrade good g.",
        "slots_per_plot": 4,
    }
    assert description.data["indices"]["upgrades"] == ["TRAL", "VERKTYG", "HAST"]


# --------------------------------------------------------------------------- values


MOVES: list[type[Any]] = [
    Draw,
    DrawCard,
    Collect,
    StopCollecting,
    PayTribute,
    TakeTribute,
    MarketTrade,
    OutlawTrade,
    Craft,
    BuySkepp,
    Upgrade,
    PlaceToken,
    Build,
    BuildExtension,
    AcquireRunestone,
    KeepCard,
    Discard,
    EndActions,
    PayRation,
    PayLevy,
]


@pytest.mark.parametrize("cls", [*MOVES, EventDetail, Options], ids=lambda c: c.__name__)
def test_moves_details_and_options_are_frozen_slotted_values(cls: type[Any]) -> None:
    """A move is a dict key and a set member: it compares by value, cannot change, holds no dict."""
    fields = dataclasses.fields(cls)
    args = [0 if f.default is dataclasses.MISSING else f.default for f in fields]
    value, same = cls(*args), cls(*args)
    assert value is not same and value == same and hash(value) == hash(same)
    assert cls.__slots__ == tuple(f.name for f in fields)
    assert not hasattr(value, "__dict__")
    for name in [f.name for f in fields] or ["extra"]:
        with pytest.raises((dataclasses.FrozenInstanceError, AttributeError, TypeError)):
            setattr(value, name, 1)


def test_the_module_exports_its_public_names() -> None:
    assert sorted(birka.__all__) == sorted(
        [
            "ASSUMPTIONS",
            "FED",
            "GAME",
            "HIDDEN",
            "OPTIONS",
            "RECOVERED",
            "REFERENCE",
            "STARVING",
            "BirkaDataError",
            "Birka",
            "Data",
            "EventDetail",
            "Move",
            "Options",
            "Phase",
            "State",
            "capacity",
            "free_slots",
            "fulfilled",
            "load_data",
            "possible",
            "ration_cost",
            "ration_options",
            "supplies",
            "view_event",
            *(m.__name__ for m in MOVES),
        ]
    )
    assert len(set(birka.__all__)) == len(birka.__all__)
    for name in birka.__all__:
        assert hasattr(birka, name), name


def _doc_sections() -> dict[str, str]:
    """docs/rules/birka.md: each assumption's section (under ``### `ID```), its words."""
    text = (ROOT / "docs" / "rules" / "birka.md").read_text(encoding="utf-8")
    parts = re.split(r"^### `(\w+)`$", text, flags=re.M)
    return {parts[i]: _words(parts[i + 1].split("\n## ")[0]) for i in range(1, len(parts), 2)}


def test_every_assumption_is_recorded_word_for_word_in_the_rules_document() -> None:
    """docs/rules/birka.md has a section per assumption quoting the rulebook and stating the decision."""
    sections = _doc_sections()
    for a in ASSUMPTIONS:
        assert a.id in sections, a.id
        assert _words(f"> {a.rulebook}") in sections[a.id], a.id
        assert _words(a.decision) in sections[a.id], a.id
