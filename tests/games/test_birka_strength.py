"""What the Birka engine checks beyond the rule scenarios: every impossible state ``check_state``
refuses, with the field it blames and its sentence (each case a valid position with a few fields
replaced), and rule scenarios the mutation runs (tests/mutation/mutate.py) showed untested.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from birka_scenarios import (
    CAL,
    FISK,
    HARD_HAND,
    KORN,
    LERA,
    MALM,
    RS,
    ULL,
    VERKTYG,
    B,
    acting,
    advance,
    at,
    base,
    kinds,
    play,
    res,
    rows,
    started,
)
from test_birka_rules import at_round_end, near_the_end

from lawspeaker.games import core
from lawspeaker.games.birka import (
    GAME,
    HIDDEN,
    RECOVERED,
    STARVING,
    AcquireRunestone,
    Build,
    BuildExtension,
    BuySkepp,
    Craft,
    Discard,
    Draw,
    DrawCard,
    EndActions,
    EventDetail,
    MarketTrade,
    Options,
    OutlawTrade,
    PayLevy,
    PayRation,
    Phase,
    State,
    Upgrade,
    fulfilled,
    load_data,
    supplies,
)
from lawspeaker.games.birka.data import REFERENCE as D
from lawspeaker.games.core import Rng, Violation


def S(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return (*t[:i], v, *t[i + 1 :])


# --------------------------------------------------------------------------- check_state


def _cases(b: State) -> dict[str, dict[str, Any]]:
    V = b.visthus
    return {
        "bad_rounds": dict(options=Options(calendar_rounds=7)),
        "players_1": dict(players=1),
        "players_5": dict(players=5),
        "per_seat": dict(skepp=(1, 1, 1)),
        "visthus_len": dict(visthus=(V[0][:-1], V[1])),
        "market_len": dict(market=b.market[:-1]),
        "plots_len": dict(plots=(b.plots[0][:-1], b.plots[1])),
        "owners_len": dict(owners=b.owners[:-1]),
        "due_collect": dict(phase=Phase.COLLECT, actions_left=0, due=(1,)),
        "due_other": dict(due=(0,) * D.resources),
        "hidden_neg": dict(hidden=-1),
        "hidden_big": dict(hidden=4),
        "ply": dict(ply=-1),
        "actor_big": dict(actor=2),
        "starter_low": dict(starter=-2),
        "round_0": dict(round=0),
        "round_6": dict(round=6),
        "turn_0": dict(turn=0),
        "turn_13": dict(turn=13),
        "die_7": dict(die=7),
        "yellow_neg": dict(yellow=-1),
        "actions_neg": dict(actions_left=-1),
        "actions_big": dict(actions_left=D.skepp_max + 1),
        "visthus_neg": dict(visthus=(S(V[0], 0, -1), V[1])),
        "visthus_full": dict(visthus=(S(V[0], 0, 20), V[1])),
        "skepp_0": dict(skepp=(0, 1)),
        "skepp_big": dict(skepp=(1, D.skepp_max + 1), actions_left=1),
        "starving_3": dict(starving=(3, 0)),
        "plot_start": dict(plots=(S(b.plots[0], 0, 5), b.plots[1])),
        "plot_token_7": dict(plots=(S(b.plots[0], 1, 7), b.plots[1])),
        "plot_token_neg": dict(plots=(b.plots[0], S(b.plots[1], 2, -1))),
        "owner_seat_2": dict(owners=S(b.owners, 0, 2)),
        "owner_neg2": dict(owners=S(b.owners, 0, -2)),
        "owner_traltorget": dict(owners=S(b.owners, D.tinget, 0)),
        "mjod_token_unowned": dict(mjod_token=3),
        "mjod_token_7": dict(owners=S(b.owners, D.mjodhallen, 0), mjod_token=7),
        "mjod_no_token": dict(owners=S(b.owners, D.mjodhallen, 0)),
        "market_neg": dict(market=S(b.market, 0, -1)),
        "market_full": dict(market=S(b.market, 0, D.market_slots[0] + 1)),
        "supply_short": dict(
            market=S(b.market, 6, 3), visthus=(S(V[0], 6, 8), S(V[1], 6, 8)), extension=(True, True)
        ),
        "calendar_unsorted": dict(calendar=tuple(reversed(b.calendar))),
        "calendar_dup": dict(calendar=(0, 0, *b.calendar[2:])),
        "calendar_range": dict(calendar=(*b.calendar, len(D.card_ids))),
        "round_card_range": dict(round_cards=(-1,)),
        "card_not_last": dict(card=b.calendar[0]),
        "card_big": dict(card=len(D.card_ids), round_cards=()),
        "round_cards_3": dict(round_cards=(b.calendar[0], b.calendar[1], b.card)),
        "card_in_calendar": dict(calendar=tuple(sorted((*b.calendar, b.card)))),
        "over_no_scores": dict(phase=Phase.OVER, actor=-1),
        "over_finisher": dict(phase=Phase.OVER, actor=-1, scores=(1, 2), winners=(1,), finisher=2),
        "over_winner_bad": dict(phase=Phase.OVER, actor=-1, scores=(1, 2), winners=(2,)),
        "scores_early": dict(scores=(1, 2)),
        "finisher_early": dict(finisher=0),
        "drawn_early": dict(drawn=(0,)),
        "hidden_visible": dict(hidden=1),
        "hidden_done": dict(
            hidden=1,
            hands=((HIDDEN,) * 5, b.hands[1]),
            decks=((HIDDEN,) * 19, b.decks[1]),
            completed=((HIDDEN,), ()),
        ),
        "hand_dup": dict(hands=((10, 10, 18, 19, 22), b.hands[1])),
        "hand_range": dict(hands=((10, 18, 19, 22, 99), b.hands[1])),
        "hand_unsorted": dict(hands=((18, 10, 19, 22, 23), b.hands[1])),
        "deck_unsorted": dict(decks=(tuple(reversed(b.decks[0])), b.decks[1])),
        "completed_not_in_hand": dict(completed=((0,), ())),
        "completed_unsorted": dict(completed=((18, 10), ())),
        "hand_short": dict(
            hands=((10, 18, 19, 22), b.hands[1]), decks=(tuple(sorted(b.decks[0] + (23,))), b.decks[1])
        ),
        "deal_wrong": dict(
            phase=Phase.SETUP_DEAL,
            starter=-1,
            card=-1,
            round_cards=(),
            step=1,
            actor=0,
            die=0,
            yellow=0,
            actions_left=0,
        ),
        "too_many_cards": dict(decks=(b.decks[0] + (24,), b.decks[1])),
        "setup_started": dict(phase=Phase.SETUP_START, actor=-1),
        "no_starter": dict(starter=-1),
        "pending": dict(pending=3),
        "left": dict(left=1),
        "step_order": dict(step=2),
        "step_roll": dict(phase=Phase.ROLL, step=1, actions_left=0),
        "actions_roll": dict(phase=Phase.ROLL, actions_left=1, die=0),
        "no_die": dict(die=0),
        "yellow_first": dict(yellow=2),
        "no_card": dict(card=-1, round_cards=()),
        "round_cards_turn8": dict(turn=8),
        "yellow_late": dict(phase=Phase.ROLL, turn=2, die=0, yellow=0, actions_left=0),
        "recovered": dict(phase=Phase.ROLL, die=0, yellow=0, actions_left=0, starving=(RECOVERED, 0)),
        "roll_rolled": dict(phase=Phase.ROLL, actions_left=0),
        "calendar_bad": dict(phase=Phase.CALENDAR, actor=-1, actions_left=0, turn=3, die=0, yellow=1),
        "actor_wrong": dict(actor=0),
        "upgrade_pending": dict(phase=Phase.UPGRADE_TOKEN, pending=0),
        "upgrade_full": dict(phase=Phase.UPGRADE_TOKEN, pending=1, plots=(b.plots[0], S(b.plots[1], 1, 3))),
        "mjod_token_phase": dict(phase=Phase.MJOD_TOKEN),
        "tinget_draw": dict(phase=Phase.TINGET_DRAW, drawn=(0, 1), decks=(b.decks[0], b.decks[1][2:])),
        "tinget_keep": dict(phase=Phase.TINGET_KEEP, drawn=(0,), decks=(b.decks[0], b.decks[1][1:])),
        "recover": dict(phase=Phase.RECOVER),
        "rations_turn": dict(phase=Phase.RATIONS),
        "rations_choice": dict(
            phase=Phase.RATIONS,
            actions_left=0,
            turn=12,
            round_cards=(2, 3),
            card=3,
            calendar=tuple(c for c in b.calendar if c != 3),
        ),
        "starving_actions": dict(starving=(0, STARVING), visthus=(V[0], S(V[1], 1, 3))),
        "levy": dict(phase=Phase.LEVY, actions_left=0, left=1),
        "collect": dict(phase=Phase.COLLECT, actions_left=0, due=(0,) * D.resources),
        "collect_crafted": dict(phase=Phase.COLLECT, actions_left=0, due=(0,) * 7 + (1,) + (0,) * 4),
        "tribute_pay": dict(phase=Phase.TRIBUTE_PAY),
        "tribute_take": dict(phase=Phase.TRIBUTE_TAKE),
        "deal_empty_deck": dict(
            phase=Phase.SETUP_DEAL,
            starter=-1,
            card=-1,
            round_cards=(),
            step=1,
            actor=0,
            die=0,
            yellow=0,
            actions_left=0,
            hands=((10,), ()),
            decks=((), tuple(sorted(b.hands[1] + b.decks[1]))),
            calendar=tuple(range(10)),
        ),
        "deal_deck_empty": dict(
            phase=Phase.SETUP_DEAL,
            starter=-1,
            card=-1,
            round_cards=(),
            step=10,
            actor=0,
            die=0,
            yellow=0,
            actions_left=0,
        ),
    }


#: Each crafted impossible state (a valid position with a few fields replaced) and the exact
#: violations ``check_state`` reports for it, in order.
EXPECTED: dict[str, list[tuple[str, str]]] = {
    "bad_rounds": [("options", "calendar_rounds must be 5 or 10")],
    "players_1": [("players", "must be 2 to 4")],
    "players_5": [("players", "must be 2 to 4")],
    "per_seat": [("visthus", "every per-player field must describe exactly 2 players")],
    "visthus_len": [("visthus", "every Visthus and the Market count 12 resources")],
    "market_len": [("visthus", "every Visthus and the Market count 12 resources")],
    "plots_len": [("plots", "every Byn has 24 plot slots")],
    "owners_len": [("owners", "there are 11 buildings")],
    "due_collect": [("due", "the collection due counts 12 resources")],
    "due_other": [("due", "is set only while a player chooses what to collect")],
    "hidden_neg": [("hidden", "is a bit set of seats")],
    "hidden_big": [("hidden", "is a bit set of seats")],
    "ply": [("ply", "must not be negative")],
    "actor_big": [("actor", "actor and starter are seats or -1")],
    "starter_low": [("actor", "actor and starter are seats or -1")],
    "round_0": [("round", "runs from 1 to 5")],
    "round_6": [("round", "runs from 1 to 5")],
    "turn_0": [("turn", "runs from 1 to 12")],
    "turn_13": [("turn", "runs from 1 to 12")],
    "die_7": [("die", "dice show 1 to 6 (0 before the roll)")],
    "yellow_neg": [("die", "dice show 1 to 6 (0 before the roll)")],
    "actions_neg": [("actions_left", "is 0 to 4")],
    "actions_big": [("actions_left", "is 0 to 4")],
    "visthus_neg": [("visthus[0]", "counts cannot be negative")],
    "visthus_full": [("visthus[0]", "holds more than its slots")],
    "skepp_0": [("skepp[0]", "is 1 to 4")],
    "skepp_big": [("skepp[1]", "is 1 to 4")],
    "starving_3": [("starving[0]", "is 0 (fed), 1 (starving) or 2 (recovered this Turn)")],
    "plot_start": [("plots[0]", "plot 1 keeps its starting dice token 4")],
    "plot_token_7": [("plots[0]", "dice tokens show 1 to 6 (0 = empty slot)")],
    "plot_token_neg": [("plots[1]", "dice tokens show 1 to 6 (0 = empty slot)")],
    "owner_seat_2": [("owners", "hold a seat or -1")],
    "owner_neg2": [("owners", "hold a seat or -1")],
    "owner_traltorget": [("owners", "Trältorget and Tinget are not owned")],
    "mjod_token_unowned": [("mjod_token", "the Mjödhallen's owner places a token of 1 to 6")],
    "mjod_token_7": [("mjod_token", "the Mjödhallen's owner places a token of 1 to 6")],
    "mjod_no_token": [("mjod_token", "the Mjödhallen's owner has placed its token")],
    "market_neg": [("market", "a Market row holds 0 up to its slots")],
    "market_full": [("market", "a Market row holds 0 up to its slots")],
    "supply_short": [],
    "calendar_unsorted": [("calendar", "holds distinct Calendar Cards, sorted")],
    "calendar_dup": [("calendar", "holds distinct Calendar Cards, sorted")],
    "calendar_range": [("calendar", "holds distinct Calendar Cards, sorted")],
    "round_card_range": [("calendar", "holds distinct Calendar Cards, sorted")],
    "card_not_last": [("card", "the card in effect is the last revealed")],
    "card_big": [("card", "the card in effect is the last revealed")],
    "round_cards_3": [("round_cards", "at most two cards a round, each revealed once per deck")],
    "card_in_calendar": [("round_cards", "at most two cards a round, each revealed once per deck")],
    "over_no_scores": [("winners", "a finished game has scores and winners")],
    "over_finisher": [("finisher", "is a seat or -1")],
    "over_winner_bad": [("winners", "a finished game has scores and winners")],
    "scores_early": [("scores", "scores, winners and finisher are set once the game is over")],
    "finisher_early": [("scores", "scores, winners and finisher are set once the game is over")],
    "drawn_early": [("drawn", "cards wait to be kept only at Tinget")],
    "hidden_visible": [("hands[0]", "a hidden player's cards are all HIDDEN (-1)")],
    "hidden_done": [("hands[0]", "a hidden player's cards are all HIDDEN (-1)")],
    "hand_dup": [("hands[0]", "hand, deck and drawn cards are distinct cards of the set")],
    "hand_range": [("hands[0]", "hand, deck and drawn cards are distinct cards of the set")],
    "hand_unsorted": [("hands[0]", "hands and decks are sorted")],
    "deck_unsorted": [("hands[0]", "hands and decks are sorted")],
    "completed_not_in_hand": [("completed[0]", "completed cards are cards of the hand, sorted")],
    "completed_unsorted": [("completed[0]", "completed cards are cards of the hand, sorted")],
    "hand_short": [("hands[0]", "holds at least the 5 cards dealt")],
    "deal_wrong": [
        ("hands[0]", "holds 1 cards while 1 are dealt"),
        ("hands[1]", "holds 0 cards while 1 are dealt"),
    ],
    "too_many_cards": [
        ("hands[0]", "hand, deck and drawn cards are distinct cards of the set"),
        ("decks[0]", "a player has 24 Runestone Cards in all"),
    ],
    "setup_started": [("phase", "SETUP_START: setup comes before the first round")],
    "no_starter": [("starter", "the dice have chosen a Starting Player")],
    "pending": [("pending", "names a plot slot only while its token is placed")],
    "left": [("left", "counts a levy only while it is paid")],
    "step_order": [("step", "is a position in the clockwise order")],
    "step_roll": [("step", "is 0 in ROLL")],
    "actions_roll": [
        ("actions_left", "counts actions only during a player's actions"),
        ("phase", "ROLL: the die is not rolled yet"),
    ],
    "no_die": [("die", "the die was rolled this Turn")],
    "yellow_first": [("yellow", "the first Turn of a round is rolled with the yellow die")],
    "no_card": [
        ("card", "a Calendar Card is revealed at the start of the first round"),
        ("round_cards", "1 Calendar Card(s) are revealed by Turn 1"),
    ],
    "round_cards_turn8": [("round_cards", "2 Calendar Card(s) are revealed by Turn 8")],
    "yellow_late": [("yellow", "the yellow die was rolled on the first Turn of the round")],
    "recovered": [("starving", "a recovered player plays normally from the next Turn")],
    "roll_rolled": [("phase", "ROLL: the die is not rolled yet")],
    "calendar_bad": [
        ("phase", "CALENDAR: a card is revealed at the start of a round and after the halfway Turn")
    ],
    "actor_wrong": [("actor", "must be 1 in ACTIONS")],
    "upgrade_pending": [("phase", "UPGRADE_TOKEN: an upgraded slot waits for its token")],
    "upgrade_full": [("phase", "UPGRADE_TOKEN: the upgraded slot is empty until its token is placed")],
    "mjod_token_phase": [("phase", "MJOD_TOKEN: the Mjödhallen's new owner places its token")],
    "tinget_draw": [("phase", "TINGET_DRAW: a card is left to draw at Tinget")],
    "tinget_keep": [("phase", "TINGET_KEEP: two cards drawn at Tinget wait for the choice")],
    "recover": [("phase", "RECOVER: a starving player chooses how to pay the Ration")],
    "rations_turn": [
        ("actions_left", "counts actions only during a player's actions"),
        ("phase", "RATIONS: Rations are paid after the last Turn of a round (not the last round)"),
    ],
    "rations_choice": [("phase", "RATIONS: the player chooses how to pay the Ration")],
    "starving_actions": [("phase", "ACTIONS: a starving player who can pay the Ration pays it at once")],
    "levy": [("phase", "LEVY: a levy is paid from two or more kinds of resource")],
    "collect": [("phase", "COLLECT: a choice is needed: more is due than the empty slots hold")],
    "collect_crafted": [("phase", "COLLECT: only Raw Resources are due")],
    "tribute_pay": [
        ("actions_left", "counts actions only during a player's actions"),
        ("phase", "TRIBUTE_PAY: the Mjödhallen's number was rolled and its owner has an empty slot"),
    ],
    "tribute_take": [
        ("actions_left", "counts actions only during a player's actions"),
        ("phase", "TRIBUTE_TAKE: the Mjödhallen's number was rolled and its owner has an empty slot"),
        ("actor", "must be -1 in TRIBUTE_TAKE"),
    ],
    "deal_empty_deck": [("phase", "SETUP_DEAL: the deck has a card to deal")],
    "deal_deck_empty": [
        ("phase", "SETUP_DEAL: 5 cards are dealt to each player"),
        ("actor", "must be 2 in SETUP_DEAL"),
    ],
}


def test_the_base_position_is_valid() -> None:
    assert GAME.check_state(base()) == []


@pytest.mark.parametrize("case", list(EXPECTED))
def test_check_state_names_the_field_and_the_problem_of_an_impossible_state(case: str) -> None:
    b = base()
    state = b._replace(**_cases(b)[case])
    assert [(v.field, v.description) for v in GAME.check_state(state)] == EXPECTED[case]


# --------------------------------------------------------------------------- rule scenarios


def test_crafting_in_another_players_building_completes_the_crafters_runestone() -> None:
    """A Runestone is completed when its conditions are fulfilled: also right after crafting in a
    building another player owns (and pays)."""
    state = base(2)
    seat, owner = state.actor, (state.actor + 1) % 2
    state = acting(
        state,
        seat,
        hands={seat: (RS["STORE_BROD"], *HARD_HAND[:4])},
        owners=S(state.owners, B["ELDHUS"], owner),
        visthus=rows(state, **{f"s{seat}": res(KORN=3, BROD=2), f"s{owner}": res()}),
    )
    after, events = play(state, Craft(B["ELDHUS"]))
    assert after.visthus[owner] == res(KORN=1)
    assert after.completed[seat] == (RS["STORE_BROD"],)
    assert kinds(events) == ["CRAFTED", "OWNER_PAID", "RUNESTONE_COMPLETED"]


def test_check_state_counts_the_icon_tokens_of_the_data_set() -> None:
    """10 Icon Tokens (ICON_TOKENS): with a data set of 1 token, owning 2 buildings is impossible."""
    byn = json.loads(json.dumps(D.data["byn"]))
    byn["icon_tokens"] = 1
    options = Options(data=json.dumps({"byn": byn}))
    b = base()
    state = b._replace(options=options)
    assert GAME.check_state(state) == []
    two = S(S(b.owners, B["ELDHUS"], 0), B["KOLMILA"], 0)
    assert [(v.field, v.description) for v in GAME.check_state(state._replace(owners=two))] == [
        ("owners", "a player owns at most 1 buildings")
    ]


def test_when_the_last_round_ends_the_starting_player_reveals_first_then_clockwise() -> None:
    """The 10th Calendar Round ends (GAME_LENGTH): with no Finisher, the cards are revealed from the
    Starting Player of the last Turn clockwise (SCORING), here Player 1."""
    state = GAME.new_game(3, Options(), Rng.from_seed(2))
    state, _ = advance(state, lambda s: s.round == 5 and s.phase is Phase.ROLL and s.turn == 12)
    state = at(state, starter=0, actor=0)
    state, events = advance(state, lambda s: False)
    assert state.phase is Phase.OVER and state.finisher == -1
    revealed = [e for e in events if e.kind == "RUNESTONES_REVEALED"]
    assert [e.player for e in revealed] == [0, 1, 2]
    assert [e.text for e in revealed] == [
        f"Player {s + 1} reveals their Runestone Cards: {state.scores[s]} points." for s in range(3)
    ]
    assert "GAME_ENDS" not in kinds(events) and "FINISHER_BONUS" not in kinds(events)


def test_the_end_of_the_game_and_the_finisher_bonus_are_announced_word_for_word() -> None:
    """End of Game is triggered immediately when: • A Player completes 5 Runestone Cards ... The
    Finisher Bonus: The Player who completed 5 Runestone gains 1 point for each opponent."""
    state = near_the_end(3)
    seat = state.actor
    state, events = play(state, Build(B["KOLMILA"]))
    texts = {e.kind: (e.text, e.player, e.detail) for e in events}
    who = f"Player {seat + 1}"
    assert texts["GAME_ENDS"] == (f"{who} has completed 5 Runestones: the game ends.", seat, None)
    assert texts["FINISHER_BONUS"] == (f"{who} gains 2 points, 1 for each opponent.", seat, EventDetail(2))
    top = max(state.scores)
    assert texts["GAME_WON"][0] in (
        f"{who} wins with {top} points.",
        f"{who} wins: the tie is broken for the Player who triggered the end.",
    )
    assert GAME.outcome(state) is not None


# --------------------------------------------------------------------------- refusals

RICH = res(LERA=2, VIRKE=2, VADMAL=1, KERAMIK=1)  # affords the extension, a Skepp and a Runestone


@pytest.mark.parametrize(
    "change,move,expected",
    [
        (
            {"extension": True},
            BuildExtension(),
            ("EXTENSION_OWNED", "build_extension", "Your Visthus already has its extension."),
        ),
        ({"skepp": 4}, BuySkepp(), ("SKEPP_LIMIT", "buy_skepp", "A Byn holds at most 4 Skepp.")),
        (
            {"decks": ()},
            AcquireRunestone(),
            ("DECK_EMPTY", "acquire_runestone", "Your Runestone deck has no card left to draw."),
        ),
    ],
    ids=["extension", "skepp", "deck"],
)
def test_a_purchase_the_player_cannot_make_again_is_refused_word_for_word(
    change: dict[str, Any], move: Any, expected: tuple[str, str, str]
) -> None:
    """You can buy a Visthus extension (once); Skepp up to the limit (SKEPP); Runestone Cards while the
    deck lasts (RUNESTONE_DECKS)."""
    b = base()
    seat = b.actor
    fields = {k: S(getattr(b, k), seat, v) for k, v in change.items()}
    state = acting(b, seat, None, visthus=rows(b, **{f"s{seat}": RICH}), **fields)
    assert move not in GAME.legal_moves(state)
    violation = core.validate(GAME, state, move)
    assert violation is not None
    assert (violation.reason, violation.field, violation.message) == expected


def test_a_player_without_icon_tokens_left_cannot_build() -> None:
    """10 Icon Tokens (ICON_TOKENS): each marks one building owned; a data set of 1 token allows one."""
    byn = json.loads(json.dumps(D.data["byn"]))
    byn["icon_tokens"] = 1
    b = base()
    seat = b.actor
    state = acting(
        b._replace(options=Options(data=json.dumps({"byn": byn}))),
        seat,
        owners=S(b.owners, B["ELDHUS"], seat),
        visthus=rows(b, **{f"s{seat}": res(LERA=3, MALM=1, VIRKE=2)}),
    )
    assert Build(B["KOLMILA"]) not in GAME.legal_moves(state)
    violation = core.validate(GAME, state, Build(B["KOLMILA"]))
    assert violation is not None
    assert (violation.reason, violation.field, violation.message) == (
        "NO_ICON_TOKENS",
        "build.building",
        "You have no Player icon left to mark ownership.",
    )


# --------------------------------------------------------------------------- survivors of the mutation run


def _data(**files: Any) -> Options:
    """Options whose data set replaces the named reference files."""
    return Options(data=json.dumps(files))


def test_a_view_replaces_the_rng_by_the_all_zero_placeholder() -> None:
    """Hidden information: a view drops the RNG (whoever holds it can foresee the draws): every seat
    and a spectator see the same all-zero RNG."""
    b = base()
    for seat in (0, 1, None):
        assert GAME.view(b, seat).rng == Rng(bytes(32), 0)


def test_the_supply_helpers_refuse_rows_that_do_not_count_every_resource() -> None:
    """The supply is the game's tokens minus those in the Visthus and the Market, resource by resource:
    a Market or Visthus row that does not count every resource is refused, not cut short."""
    b = base()
    assert supplies(b, D) == [26, 28, 26, 26, 28, 28, 19, 17, 19, 19, 19, 19]
    with pytest.raises(ValueError):
        supplies(b._replace(market=b.market[:-1]), D)
    calendar = b._replace(phase=Phase.CALENDAR, actor=-1, visthus=(b.visthus[0] + (0,), b.visthus[1]))
    with pytest.raises(ValueError):
        GAME.apply(calendar, Draw(0))


def test_a_full_plot_card_counts_each_full_plot_once() -> None:
    """FULL_PLOT: a card asking for 2 full Resource Plots (a data set's count) is not fulfilled by 1."""
    rs = json.loads(json.dumps(D.data["runestones"]))
    card = RS["FULL_PLOT"]
    rs["cards"][card]["condition"]["count"] = 2
    data = load_data(json.dumps({"runestones": rs}))
    b = base()
    size = D.slots_per_plot
    one = (*b.plots[0][:1], 1, 2, 3, *b.plots[0][size:])
    two = (*one[: size + 1], 4, 5, 6, *one[2 * size :])
    assert not fulfilled(b._replace(plots=(one, b.plots[1])), 0, card, data)
    assert fulfilled(b._replace(plots=(two, b.plots[1])), 0, card, data)
    assert fulfilled(b._replace(plots=(one, b.plots[1])), 0, card, D)


def test_the_outlaw_trader_sells_the_last_raw_token_of_the_supply() -> None:
    """The Outlaw Trader's resources come from the supply: while 1 Fisk is left he sells it, then none."""
    b = base(3)
    seat = b.actor
    others = [s for s in range(3) if s != seat]
    state = acting(
        b,
        seat,
        extension=(True, True, True),
        market=S(b.market, FISK, 5),
        visthus=rows(
            b,
            **{f"s{seat}": res(FISK=10, KORN=2), f"s{others[0]}": res(FISK=12), f"s{others[1]}": res(FISK=2)},
        ),
    )
    assert supplies(state, D)[FISK] == 1
    assert OutlawTrade(KORN, FISK) in GAME.legal_moves(state)
    state, _ = play(state, OutlawTrade(KORN, FISK))
    assert supplies(state, D)[FISK] == 0 and state.visthus[seat][FISK] == 11
    assert not any(isinstance(m, OutlawTrade) and m.take == FISK for m in GAME.legal_moves(state))


def test_a_ration_paid_with_food_and_bread_at_once_is_refused_word_for_word() -> None:
    """Cost: • 3 Korn / Fisk (any combination) or • 1 Bröd: not both."""
    state, _ = at_round_end(s0=res(KORN=2, BROD=1), s1=res(KORN=2))
    assert state.phase is Phase.RATIONS
    violation = core.validate(GAME, state, PayRation((2, 1), True))
    assert violation == Violation(
        "BAD_RATION", "Pay the Ration with food or with Bröd, not both.", "pay_ration.food"
    )


def test_a_resource_out_of_range_is_refused_word_for_word() -> None:
    """A discard or a trade names one of the 12 resources."""
    b = base()
    assert core.validate(GAME, b, Discard(D.resources)) == Violation(
        "NO_SUCH_RESOURCE", "There is no such resource.", "discard.resource"
    )
    for move, name in ((MarketTrade(-1, FISK), "market_trade"), (OutlawTrade(12, FISK), "outlaw_trade")):
        no_such = Violation("NO_SUCH_RESOURCE", "There is no such resource.", f"{name}.give")
        assert core.validate(GAME, b, move) == no_such


def test_explain_asked_of_a_legal_discard_falls_back_to_not_a_legal_move() -> None:
    """The fallback sentence, which no refused discard reaches (explain asked of a legal move)."""
    b = base()
    assert Discard(FISK) in GAME.legal_moves(b)
    fallback = Violation("NOT_A_LEGAL_MOVE", "That move is not legal now.", "move")
    assert GAME.explain(b, Discard(FISK)) == fallback


def test_a_market_row_may_be_filled_to_its_last_slot() -> None:
    """You may not exceed available Slots: a trade that fills the Fisk row exactly (4 of 5) is refused
    only because the Market has no Korn."""
    b = base()
    seat = b.actor
    state = acting(b, seat, market=S(S(b.market, FISK, 4), KORN, 0))
    assert core.validate(GAME, state, MarketTrade(FISK, KORN)) == Violation(
        "NOT_IN_MARKET",
        "You may not trade for a Resource that is not present: no Korn at the Market.",
        "market_trade.take",
    )
    assert MarketTrade(FISK, LERA) in GAME.legal_moves(state)
    after, _ = play(state, MarketTrade(FISK, LERA))
    assert after.market[FISK] == 5


def test_an_upgrade_at_a_building_player_1_owns_is_refused_for_its_price_not_as_unbuilt() -> None:
    """A Building cannot be used until purchased by any Player: the Smedjan of Player 1 can be used,
    at its price plus the owner's payment."""
    b = base()
    seat = b.actor
    assert seat != 0
    state = acting(b, seat, owners=S(b.owners, B["SMEDJAN"], 0))
    assert core.validate(GAME, state, Upgrade(0, VERKTYG)) == Violation(
        "CANNOT_AFFORD", "That costs 1 Malm, 1 Järn and 1 Träkol, more than your Visthus holds.", "upgrade"
    )


def test_acquiring_a_runestone_is_refused_when_no_building_sells_runestone_cards() -> None:
    """A data set whose buildings sell no Runestone Cards: Acquire Runestone is never listed."""
    birka = json.loads(json.dumps(D.data["birka"]))
    tinget = birka["buildings"][D.tinget]
    del tinget["sells"], tinget["use_price"]
    calendar = json.loads(json.dumps(D.data["calendar"]))
    for card in calendar["cards"]:
        card["effects"] = [e for e in card["effects"] if e.get("item") != "RUNESTONE"]
    b = base()
    seat = b.actor
    state = acting(
        b._replace(options=_data(birka=birka, calendar=calendar)),
        seat,
        visthus=rows(b, **{f"s{seat}": res(VADMAL=2, KERAMIK=2)}),
    )
    assert AcquireRunestone() not in GAME.legal_moves(state)
    assert core.validate(GAME, state, AcquireRunestone()) == Violation(
        "NO_TINGET", "No building sells Runestone Cards.", "acquire_runestone"
    )


def test_apply_refuses_a_move_it_does_not_know() -> None:
    """``apply`` expects a validated move: a move of no step of the game is an error, not a no-op."""
    roll = base()._replace(phase=Phase.ROLL, die=0, actions_left=0)
    with pytest.raises(AssertionError, match="unknown move"):
        GAME.apply(roll, EndActions())


def test_check_state_refuses_a_card_in_effect_still_in_a_calendar_of_two_cards() -> None:
    """Each Calendar Card is revealed once per deck, also with a data set of 2 cards."""
    calendar = json.loads(json.dumps(D.data["calendar"]))
    calendar["cards"] = [calendar["cards"][CAL["SILLSTIM"]], calendar["cards"][CAL["MARKNADSDAG"]]]
    b = base()
    state = at(b, options=_data(calendar=calendar), card=1, round_cards=(1,), calendar=(0,))
    assert [(v.field, v.description) for v in GAME.check_state(state._replace(calendar=(0, 1)))] == [
        ("round_cards", "at most two cards a round, each revealed once per deck")
    ]


def test_check_state_accepts_the_mjodhallen_as_the_first_building_of_a_data_set() -> None:
    """The Mjödhallen's owner places a dice token: also when the Mjödhallen is building 0."""
    birka = json.loads(json.dumps(D.data["birka"]))
    buildings = birka["buildings"]
    birka["buildings"] = [buildings[D.mjodhallen], *buildings[: D.mjodhallen], *buildings[D.mjodhallen + 1 :]]
    b = base()
    state = b._replace(options=_data(birka=birka), owners=S(b.owners, 0, 0), mjod_token=3)
    assert GAME.check_state(state) == []
    assert [(v.field, v.description) for v in GAME.check_state(state._replace(mjod_token=0))] == [
        ("mjod_token", "the Mjödhallen's owner has placed its token")
    ]


def test_check_state_refuses_a_tribute_to_an_owner_with_a_full_visthus() -> None:
    """The Mjödhallen's owner is paid into an empty slot: with a full Visthus there is no tribute."""
    b = base()
    roller, owner = b.actor, 1 - b.actor
    assert b.starter == roller
    tribute = b._replace(
        phase=Phase.TRIBUTE_PAY,
        actions_left=0,
        owners=S(b.owners, D.mjodhallen, owner),
        mjod_token=b.die,
    )
    room = tribute._replace(visthus=rows(b, **{f"s{owner}": res(FISK=4, LERA=3)}))
    assert GAME.check_state(room) == []
    full = tribute._replace(visthus=rows(b, **{f"s{owner}": res(FISK=5, LERA=3)}))
    assert [(v.field, v.description) for v in GAME.check_state(full)] == [
        ("phase", "TRIBUTE_PAY: the Mjödhallen's number was rolled and its owner has an empty slot")
    ]


def test_check_state_refuses_five_completed_runestones_while_the_game_goes_on() -> None:
    """End of Game is triggered immediately when a Player completes 5 Runestone Cards: a game that
    goes on has nobody with 5 completed."""
    state = near_the_end(3)
    seat = state.actor
    names = ("SKEPP_2", "EXTENSION", "BUILD_ELDHUS", "BUILDINGS_2", "BUILD_VAVSTUGA")
    hand = tuple(sorted(RS[c] for c in names))
    deck = tuple(c for c in range(len(D.runestone_ids)) if c not in hand)
    five = state._replace(
        hands=S(state.hands, seat, hand),
        decks=S(state.decks, seat, deck),
        completed=S(state.completed, seat, hand),
    )
    assert [(v.field, v.description) for v in GAME.check_state(five)] == [
        (f"completed[{seat}]", "5 completed Runestones end the game")
    ]


def test_a_levy_of_two_asks_the_player_again_after_the_first_resource() -> None:
    """Kungens skatt: every player returns the card's amount of Raw Resources; with a data set's levy
    of 2, a player with several kinds chooses twice, one resource at a time."""
    calendar = json.loads(json.dumps(D.data["calendar"]))
    calendar["cards"][CAL["KUNGENS_SKATT"]]["effects"][0]["amount"] = 2
    state = started(3, seed=4, options=_data(calendar=calendar))
    state, _ = advance(state, lambda s: s.phase is Phase.CALENDAR)
    s0, s1, s2 = state.starter, (state.starter + 1) % 3, (state.starter + 2) % 3
    wallets = {f"s{s0}": res(BROD=1), f"s{s1}": res(FISK=2, BROD=1), f"s{s2}": res(LERA=1, MALM=1, ULL=1)}
    state = at(state, visthus=rows(state, **wallets))
    state, _ = play(state, Draw(CAL["KUNGENS_SKATT"]))
    assert state.visthus[s1] == res(BROD=1)  # one kind: both paid at once
    assert state.phase is Phase.LEVY and state.actor == s2 and state.left == 2
    state, events = play(state, PayLevy(MALM))
    assert kinds(events) == ["LEVY_PAID"]
    assert state.phase is Phase.LEVY and state.actor == s2 and state.left == 1
    assert list(GAME.legal_moves(state)) == [PayLevy(LERA), PayLevy(ULL)]
    state, _ = play(state, PayLevy(ULL))
    assert state.visthus[s2] == res(LERA=1) and state.phase is Phase.ROLL


def test_a_card_drawn_at_tinget_from_a_deck_of_one_is_kept_at_once() -> None:
    """Acquire Runestone: draw 2 cards, keep 1; with a single card left in the deck it is kept, and the
    event says so word for word."""
    b = base()
    seat = b.actor
    last = b.decks[seat][0]
    state = acting(
        b, seat, decks=S(b.decks, seat, (last,)), visthus=rows(b, **{f"s{seat}": res(VADMAL=1, KERAMIK=1)})
    )
    state, _ = play(state, AcquireRunestone())
    assert state.phase is Phase.TINGET_DRAW
    state, events = play(state, DrawCard(0))
    kept = [e for e in events if e.kind == "CARD_KEPT"]
    assert [(e.text, e.player) for e in kept] == [
        (f"Player {seat + 1} keeps a Runestone Card (the deck had only one).", seat)
    ]
    assert last in state.hands[seat] and state.decks[seat] == () and state.drawn == ()
