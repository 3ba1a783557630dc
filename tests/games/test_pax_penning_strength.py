"""Exact-value tests of the Pax Penning engine that close gaps found by mutation testing.

The scenarios of ``test_pax_penning_rules.py`` check which reason a move is refused for and that the
game goes on as the rulebook says; these pin what a player or a client reads word for word (every
refusal sentence with its field, every event text with its player and details, the chance steps'
descriptions, the outcome) and the invariants ``check_state`` enforces, one crafted impossible state
per violation. Positions start from :func:`started` (4 players, seed 1: seat 1 is on turn, the
hierarchy is 1, 2, 3, 0, coin).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_pax_penning_rules import (
    F1,
    F2,
    F3,
    F4,
    F5,
    FORD,
    KING_BOWL,
    PAWN_BOWL,
    at,
    coins,
    empty_roads,
    play,
    resolving,
    started,
)

from lawspeaker.games import core
from lawspeaker.games.core import Event, Rng, Violation
from lawspeaker.games.pax_penning import (
    BISHOP,
    COIN,
    EVERYONE_LOSES,
    GAME,
    JARL,
    KING,
    KNIGHT,
    PAWN,
    REFERENCE,
    ROOK,
    THEGN,
    AnnounceLoyalty,
    AskBlessing,
    Bless,
    ChangeStanding,
    ChooseBowl,
    ChooseHeir,
    Draw,
    EventDetail,
    Gather,
    MovePawn,
    Options,
    Phase,
    PlaceDie,
    PlaceRunestone,
    PlaceStone,
    RemoveDie,
    Resolve,
    ReturnPawn,
    Roll,
    SendStone,
    State,
    Vote,
)

START = started(4, 1)


def _problems(state: State) -> list[tuple[str, str]]:
    return [(p.field, p.description) for p in GAME.check_state(state)]


def _emptied(state: State, h: int) -> State:
    """House ``h`` emptied into Sigtuna (every stone stays accounted for)."""
    sigtuna = [k + state.houses[h][c] for c, k in enumerate(state.sigtuna)]
    houses = (*state.houses[:h], (0,) * state.players, *state.houses[h + 1 :])
    return state._replace(sigtuna=tuple(sigtuna), houses=houses, sizes=core.replaced(state.sizes, h, 0))


def _setup_at(phase: Phase) -> State:
    """A seeded 4-player game played (first listed move) to the first state of ``phase``."""
    state = GAME.new_game(4, Options(), Rng.from_seed(1))
    while state.phase is not phase:
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    assert GAME.check_state(state) == []
    return state


# --------------------------------------------------------------------------- check_state: the shape


def test_the_base_positions_are_valid() -> None:
    assert _problems(START) == []
    for phase in (Phase.SETUP_MARKET, Phase.SETUP_COINS, Phase.SETUP_HIERARCHY, Phase.SETUP_SEND):
        assert _problems(_setup_at(phase)) == []


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda s: s._replace(options=Options(board="{}")), ("options.board", "the board has no 'sigtuna'")),
        (lambda s: s._replace(players=2), ("players", "must be 3 to 5")),
        (lambda s: s._replace(players=6), ("players", "must be 3 to 5")),
        (lambda s: s._replace(sigtuna=(4, 8, 4)), ("houses", "must describe exactly 4 Houses")),
        (lambda s: s._replace(houses=s.houses[:3]), ("houses", "must describe exactly 4 Houses")),
        (lambda s: s._replace(sizes=s.sizes[:3]), ("houses", "must describe exactly 4 Houses")),
        (lambda s: s._replace(coins=s.coins[:3]), ("houses", "must describe exactly 4 Houses")),
        (lambda s: s._replace(bowls=s.bowls[:5]), ("bowls", "the state does not fit the board")),
        (lambda s: s._replace(roads=s.roads[:22]), ("roads", "the state does not fit the board")),
        (
            lambda s: s._replace(runestones=s.runestones[:7]),
            ("runestones", "the state does not fit the board"),
        ),
        (lambda s: s._replace(pawns=s.pawns[:2]), ("pawns", "the state does not fit the board")),
    ],
)
def test_a_state_of_the_wrong_shape_is_refused_with_one_problem(
    change: Callable[[State], State], problem: tuple[str, str]
) -> None:
    assert _problems(change(START)) == [problem]


def test_a_three_player_state_describes_three_houses() -> None:
    three = started(3, 2)
    assert _problems(three) == []
    assert _problems(three._replace(sizes=(*three.sizes, 0))) == [
        ("houses", "must describe exactly 3 Houses")
    ]


def _stones(state: State, **fields: Any) -> list[tuple[str, str]]:
    return _problems(state._replace(**fields))


def test_stone_counts_must_add_up() -> None:
    s = START
    assert _stones(s, sigtuna=(-1, 8, 4, 0)) == [("sigtuna", "stone counts cannot be negative")]
    hidden = s._replace(houses=(s.houses[0], (), s.houses[2], s.houses[3]))
    assert _problems(hidden) == [("houses[1]", "a hidden House has size -1")]
    assert _problems(hidden._replace(sizes=(15, -1, 15, 15))) == []  # a view: totals not counted
    assert _stones(s, sizes=(15, -2, 15, 15)) == [("sizes[1]", "cannot be negative")]
    row = "must count the stones of every colour, adding up to its size"
    assert ("houses[1]", row) in _stones(s, sizes=(15, 14, 15, 15))
    assert ("houses[1]", row) in _stones(s, houses=(s.houses[0], (2, 9, 2), *s.houses[2:]))
    negative = _stones(s, houses=(s.houses[0], (-1, 12, 2, 2), *s.houses[2:]))
    assert ("houses[1]", row) in negative
    # a stone of colour 2 moved from House 1 to Sigtuna would be fine; a lost stone is not
    lost = s._replace(houses=(s.houses[0], (2, 9, 1, 2), *s.houses[2:]), sizes=(15, 14, 15, 15))
    assert _problems(lost) == [("houses", "Player 3 must have 21 stones in play, not 20")]


def test_the_hierarchy_holds_each_stone_and_the_coin_once() -> None:
    once = ("hierarchy", "holds each player's stone once and the coin once")
    every = ("hierarchy", "must hold every player's stone and the coin")
    assert once in _stones(START, hierarchy=(1, 1, 3, 0, COIN))
    assert once in _stones(START, hierarchy=(1, 2, 3, 4, COIN))
    assert once in _stones(START, hierarchy=(1, 2, 3, -2, COIN))
    assert once in _stones(START, hierarchy=(1, 2, COIN, 0, COIN))
    assert _stones(START, hierarchy=(1, 2, 3, 0)) == [every]
    coins_phase = _setup_at(Phase.SETUP_COINS)
    assert _problems(coins_phase) == []  # setup: the hierarchy is still empty


def test_dice_runestones_coins_and_the_king_stay_in_range() -> None:
    s = START
    assert ("runestones", "hold a player's colour or -1") in _stones(
        s, runestones=(1, 2, 3, 4, -1, -1, -1, -1)
    )
    assert ("runestones", "hold a player's colour or -1") in _stones(
        s, runestones=(1, 2, 3, -2, -1, -1, -1, -1)
    )
    assert ("roads", "dice show 1 to 6") in _stones(s, roads=(7, *s.roads[1:]))
    assert ("roads", "dice show 1 to 6") in _stones(s, roads=(-1, *s.roads[1:]))
    assert ("roads", "dice show 1 to 6") in _stones(s, phase=Phase.LEVERAGE_ASSIGN, dice=(0,))
    assert ("roads", "dice show 1 to 6") in _stones(s, phase=Phase.LEVERAGE_ASSIGN, dice=(7,))
    full = (3,) * 12 + (0,) * 11
    assert _stones(s, roads=full) == [("phase", "GATHER: gathering comes before the roll")]
    assert _stones(s, roads=full, to_roll=1) == [("roads", "there are only 12 dice")]
    assert _stones(s, roads=(3,) * 11 + (0,) * 12, phase=Phase.ROLL, to_roll=2) == [
        ("roads", "there are only 12 dice")
    ]
    assert _stones(s, coins=((True,) * 5, (True,) * 5, (True,) * 5, (True,) * 5 + (False,))) == [
        ("coins", "there are only 21 coins")
    ]
    assert _problems(s._replace(coins=((True,) * 5, (True,) * 5, (True,) * 5, (True,) * 5))) == []
    king = ("king", "stands in Sigtuna (0) or on a coin of the King's Path")
    assert _stones(s, king=9) == [king]
    assert _stones(s, king=-1) == [king]
    assert _stones(s, king=8) == []


def test_pawns_stand_on_roads_or_stars_apart_from_dice_and_from_each_other() -> None:
    s = START
    on = ("pawns[0]", "stands on a road space or a starting star")
    assert _stones(s, pawns=(REFERENCE.spaces, *s.pawns[1:])) == [on]  # a crossroads
    assert _stones(s, pawns=(REFERENCE.sigtuna, *s.pawns[1:])) == [on]
    assert _stones(s, pawns=(-1, *s.pawns[1:])) == [on]
    assert _stones(s, pawns=(REFERENCE.sigtuna + 1, *s.pawns[1:])) == [on]
    assert _stones(s, pawns=(0, *s.pawns[1:])) == [("pawns[0]", "cannot share a road space with a die")]
    assert _stones(s, pawns=(F1, F1, s.pawns[2])) == [
        ("pawns", "two pawns share a road space: a pawn landing on another returns")
    ]
    assert _stones(s, pawns=(F1, F2, s.pawns[2])) == []
    waiting = resolving(START, PAWN, 1, roads=empty_roads(), pawns=(F1, F2, START.pawns[2]))
    waiting, _ = play(waiting, MovePawn(0))
    assert waiting.pawn == 0 and waiting.phase is Phase.PAY_STONE
    assert _problems(waiting._replace(pawns=(F3, F2, START.pawns[2]))) == [
        ("pawn", "the pawn waiting to return reached Sigtuna or landed on a pawn")
    ]
    home = waiting._replace(pawns=(REFERENCE.sigtuna, F2, START.pawns[2]))
    assert _problems(home) == []
    assert _problems(home._replace(pawn=1)) == [
        ("pawns[0]", "stands on a road space or a starting star"),
        ("pawn", "the pawn waiting to return reached Sigtuna or landed on a pawn"),
    ]


def test_market_pieces_actor_and_victory() -> None:
    s = START
    every = ("bowls", "every market piece is in one bowl or in use")
    assert _stones(s, bowls=((4,), (3,), (1,), (), (), ())) == [every]
    assert _stones(s, bowls=((4,), (3,), (1,), (2,), (), ()), taken=(KNIGHT,)) == [every]
    assert _stones(s, bowls=((4,), (3,), (1,), (), (), ()), taken=(BISHOP,)) == []
    assert _problems(GAME.new_game(4, Options(), Rng.from_seed(1))) == []
    assert ("actor", "must be a seat") in _stones(s, actor=4)
    assert ("actor", "must be a seat") in _stones(s, actor=-2)
    assert ("actor", "must be a seat") in _stones(s, turn=4)
    assert ("actor", "must be a seat") in _stones(s, turn=-1)
    named = ("winners", "a finished game names its victory")
    assert named in _stones(s, phase=Phase.OVER, actor=-1)
    assert named in _stones(s, phase=Phase.OVER, actor=-1, victory=THEGN)
    assert _stones(s, phase=Phase.OVER, actor=-1, victory=EVERYONE_LOSES) == []
    assert _stones(s, phase=Phase.OVER, actor=-1, victory=JARL, winners=(2,)) == []
    assert _stones(s, victory=THEGN) == [("victory", "is set only once the game ends")]
    assert _stones(s, ply=-1) == [("ply", "must not be negative")]


# --------------------------------------------------------------------------- check_state: the phase


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"chain": (4,)}, ("chain", "chain, winners and payers hold seats")),
        ({"winners": (-1,)}, ("chain", "chain, winners and payers hold seats")),
        ({"payers": (4,)}, ("chain", "chain, winners and payers hold seats")),
        ({"x": 7}, ("x", "x, best_vote and pairs are die-sized, to_roll is not negative")),
        ({"x": -1}, ("x", "x, best_vote and pairs are die-sized, to_roll is not negative")),
        ({"best_vote": 7}, ("x", "x, best_vote and pairs are die-sized, to_roll is not negative")),
        ({"best_vote": -1}, ("x", "x, best_vote and pairs are die-sized, to_roll is not negative")),
        ({"pairs": 7}, ("x", "x, best_vote and pairs are die-sized, to_roll is not negative")),
        ({"pairs": -1}, ("x", "x, best_vote and pairs are die-sized, to_roll is not negative")),
        ({"to_roll": -1}, ("x", "x, best_vote and pairs are die-sized, to_roll is not negative")),
        ({"gathered": 16}, ("gathered", "gathered and asked are bit sets of seats; moved is a count")),
        ({"gathered": -1}, ("gathered", "gathered and asked are bit sets of seats; moved is a count")),
        ({"asked": 16}, ("gathered", "gathered and asked are bit sets of seats; moved is a count")),
        ({"asked": -1}, ("gathered", "gathered and asked are bit sets of seats; moved is a count")),
        ({"moved": 101}, ("gathered", "gathered and asked are bit sets of seats; moved is a count")),
        ({"moved": -1}, ("gathered", "gathered and asked are bit sets of seats; moved is a count")),
        ({"blessing": 4}, ("blessing", "blessing and target are seats or -1, pawn a pawn or -1")),
        ({"blessing": -2}, ("blessing", "blessing and target are seats or -1, pawn a pawn or -1")),
        ({"target": -2}, ("blessing", "blessing and target are seats or -1, pawn a pawn or -1")),
        ({"pawn": -2}, ("blessing", "blessing and target are seats or -1, pawn a pawn or -1")),
        ({"piece": 6}, ("piece", "must be a chess piece or 0")),
        ({"piece": -1}, ("piece", "must be a chess piece or 0")),
        ({"step": -1}, ("piece", "must be a chess piece or 0")),
        ({"chosen": ((6, PAWN),)}, ("chosen", "chosen pieces name a bowl and a piece")),
        ({"chosen": ((-1, PAWN),)}, ("chosen", "chosen pieces name a bowl and a piece")),
        ({"chosen": ((4, 0),)}, ("chosen", "chosen pieces name a bowl and a piece")),
        ({"chosen": ((4, 6),)}, ("chosen", "chosen pieces name a bowl and a piece")),
        ({"chosen": ((4, PAWN), (5, KING), (3, 1))}, ("chosen", "at most 2 different bowls are chosen")),
        ({"chosen": ((4, PAWN), (4, PAWN))}, ("chosen", "at most 2 different bowls are chosen")),
        ({"target": 0}, ("target", "names a House only while the Bishop or the setup sends stones")),
        ({"things": 3}, ("things", "the game ends at Thing 3")),
        ({"things": -1}, ("things", "the game ends at Thing 3")),
    ],
)
def test_each_field_of_a_turn_stays_in_its_range(fields: dict[str, Any], problem: tuple[str, str]) -> None:
    assert _problems(START._replace(**fields)) == [problem]


def test_a_pawn_waits_to_return_only_while_stones_are_placed_or_it_returns() -> None:
    assert _problems(START._replace(pawn=3))[0] == (
        "blessing",
        "blessing and target are seats or -1, pawn a pawn or -1",
    )
    waiting = resolving(START, PAWN, 1, roads=empty_roads(), pawns=(F1, F2, START.pawns[2]))
    waiting, _ = play(waiting, MovePawn(0))
    assert _problems(waiting._replace(phase=Phase.GATHER)) == [
        ("pawn", "a pawn waits to return only while stones are placed or it returns")
    ]
    ret = waiting._replace(phase=Phase.PAWN_RETURN, payers=(), actor=waiting.turn)
    assert _problems(ret) == []
    assert _problems(ret._replace(pawn=-1, pawns=(F1, F2, START.pawns[2]))) == [
        ("phase", "PAWN_RETURN: a pawn waits to return")
    ]


def _phase(state: State, why: str) -> list[tuple[str, str]]:
    return [("phase", f"{state.phase.value}: {why}")]


def test_the_setup_phases_hold_their_invariants() -> None:
    market = GAME.new_game(4, Options(), Rng.from_seed(1))
    assert _problems(market._replace(step=1)) == _phase(
        market, "the market is filled bowl by bowl from the top before anything else"
    )
    assert _problems(market._replace(actor=0)) == [("actor", "must be -1 in SETUP_MARKET")]
    full = _setup_at(Phase.SETUP_COINS)._replace(phase=Phase.SETUP_MARKET, step=4, actor=-1)
    assert _problems(full) == _phase(
        full, "the market is filled bowl by bowl from the top before anything else"
    )
    assert _problems(full._replace(step=3, bowls=(*full.bowls[:3], (), (), ()))) == []
    hier = _setup_at(Phase.SETUP_HIERARCHY)
    assert _problems(hier._replace(phase=Phase.SETUP_MARKET, step=4)) != []
    coins_ = _setup_at(Phase.SETUP_COINS)
    assert coins_.actor == 0 and coins_.step == 0
    coin_why = "the starting coins are placed one by one, seat by seat"
    assert _problems(coins_._replace(step=1)) == _phase(coins_, coin_why)
    assert _problems(coins_._replace(step=2)) == [
        *_phase(coins_, coin_why),
        ("actor", "must be 1 in SETUP_COINS"),
    ]
    last = coins_._replace(step=7, actor=3, coins=((True, True), (True, True), (True, True), (True,)))
    assert _problems(last) == []
    assert _problems(last._replace(actor=2)) == [("actor", "must be 3 in SETUP_COINS")]
    done = last._replace(step=8, coins=((True, True),) * 4)
    assert _problems(done) == [*_phase(done, coin_why), ("actor", "must be 4 in SETUP_COINS")]
    hier_why = "the Hierarchy is filled after the coins, one stone at a time"
    assert _problems(hier._replace(coins=((True, True),) * 3 + ((True,),))) == _phase(hier, hier_why)
    assert _problems(hier._replace(actor=0)) == [("actor", "must be -1 in SETUP_HIERARCHY")]
    assert _problems(_setup_at(Phase.SETUP_ROADBLOCK_ROLL)) == []


def test_the_setup_player_phases_hold_their_invariants() -> None:
    roll = _setup_at(Phase.SETUP_ROADBLOCK_ROLL)
    last = roll.hierarchy[3]
    assert roll.actor == last
    assert _problems(roll._replace(roads=(1, *roll.roads[1:]))) == _phase(
        roll, "the first roadblock is rolled and placed on an empty road space"
    )
    assert _problems(roll._replace(actor=roll.hierarchy[0])) == [
        ("actor", f"must be {last} in SETUP_ROADBLOCK_ROLL")
    ]
    place = _setup_at(Phase.SETUP_ROADBLOCK_PLACE)
    assert _problems(place._replace(x=0)) == _phase(
        place, "the first roadblock is rolled and placed on an empty road space"
    )
    sig = _setup_at(Phase.SETUP_SIGTUNA)
    assert sig.x == 4
    assert _problems(sig._replace(x=5)) == _phase(sig, "4 stones are placed in Sigtuna")
    assert _problems(sig._replace(x=0)) == _phase(sig, "4 stones are placed in Sigtuna")
    assert _problems(sig._replace(step=1)) == [("actor", f"must be {sig.hierarchy[1]} in SETUP_SIGTUNA")]
    other = sig.hierarchy[1]
    assert _problems(sig._replace(actor=other)) == [
        *_phase(sig, "the player setting up is on turn"),
        ("actor", f"must be {sig.hierarchy[0]} in SETUP_SIGTUNA"),
    ]
    assert _problems(_emptied(sig, sig.turn)) == _phase(sig, "setup stones come from the House")
    send = _setup_at(Phase.SETUP_SEND)
    assert send.target == (send.turn + 1) % 4
    send_why = "setup stones go to every other House"
    assert _problems(send._replace(target=send.turn)) == _phase(send, send_why)
    assert _problems(send._replace(target=-1)) == _phase(send, send_why)
    assert _problems(send._replace(x=5)) == _phase(send, send_why)
    assert _problems(send._replace(x=0)) == _phase(send, send_why)
    assert _problems(send._replace(x=4)) == []
    rune = _setup_at(Phase.SETUP_RUNESTONE)
    rune_why = "a setup runestone needs an empty crossroads"
    assert _problems(rune._replace(x=3)) == _phase(rune, rune_why)
    assert _problems(rune._replace(x=0)) == _phase(rune, rune_why)
    assert _problems(rune._replace(x=2)) == []
    die = _setup_at(Phase.SETUP_DIE_PLACE)
    assert _problems(die._replace(x=0)) == _phase(die, "a rolled die is placed on an empty road space")
    assert _problems(_setup_at(Phase.SETUP_DIE_ROLL)) == []


def test_the_gathering_phases_hold_their_invariants() -> None:
    s = START
    other = 2
    assert _problems(s._replace(to_roll=1)) == _phase(s, "gathering comes before the roll")
    assert _problems(s._replace(blessing=other)) == _phase(s, "gathering comes before the roll")
    assert _problems(s._replace(step=1)) == _phase(s, "during a turn the step counter is 0")
    asked = s._replace(phase=Phase.BLESSING, actor=other, blessing=other, asked=1 << other)
    assert _problems(asked) == []
    why = "a blessing is asked of another player"
    assert _problems(asked._replace(asked=0)) == _phase(asked, why)
    assert _problems(asked._replace(blessing=-1, actor=-1)) == _phase(asked, why)
    assert _problems(asked._replace(actor=s.turn)) == [("actor", f"must be {other} in BLESSING")]
    blessed = asked._replace(phase=Phase.GATHER_BLESSED, actor=s.turn)
    assert _problems(blessed) == []
    why = "the blessed player's stones wait in Sigtuna"
    assert _problems(blessed._replace(gathered=1 << other)) == _phase(blessed, why)
    assert _problems(blessed._replace(blessing=s.turn)) == _phase(blessed, why)
    no_dice = blessed._replace(options=Options(gathering_limited_by_dice=True), moved=12)
    assert _problems(no_dice) == _phase(blessed, why)
    roll = s._replace(phase=Phase.ROLL, to_roll=7)
    assert _problems(roll) == []
    assert _problems(roll._replace(to_roll=0)) == _phase(roll, "a die of the pool is left to roll")


def test_the_feast_and_leverage_phases_hold_their_invariants() -> None:
    s = START
    feast = s._replace(phase=Phase.FEAST_SEND, dice=(2, 2), pairs=1)
    assert _problems(feast) == []
    why = "a feast pair is being resolved"
    assert _problems(feast._replace(pairs=0)) == _phase(feast, why)
    assert _problems(feast._replace(dice=())) == _phase(feast, why)
    assert _problems(_emptied(feast, s.turn)) == _phase(feast, why)
    assert _problems(_emptied(feast, s.turn)._replace(phase=Phase.FEAST_FAVOUR)) == []
    choose = s._replace(phase=Phase.LEVERAGE_CHOOSE, dice=(2, 5))
    assert _problems(choose) == []
    why = "a market bowl is left to choose"
    assert _problems(choose._replace(dice=())) == _phase(choose, why)
    one = choose._replace(dice=(2,), chosen=((PAWN_BOWL, PAWN),))
    assert _problems(one) == _phase(one, why)
    assert _problems(one._replace(dice=(2, 5))) == []
    assign = s._replace(phase=Phase.LEVERAGE_ASSIGN, dice=(2,), chosen=((PAWN_BOWL, PAWN),))
    assert _problems(assign) == []
    why = "a chosen piece waits for a die"
    assert _problems(assign._replace(chosen=())) == _phase(assign, why)
    assert _problems(assign._replace(chosen=((PAWN_BOWL, PAWN), (KING_BOWL, KING)))) == _phase(assign, why)


def test_the_piece_phases_hold_their_invariants() -> None:
    match = "the piece being resolved matches the step"
    king = resolving(START, KING, 3)
    assert _problems(king._replace(piece=ROOK)) == _phase(king, match)
    assert _problems(king._replace(x=0)) == _phase(king, match)
    why = "the King's runestone needs a stone and an empty crossroads"
    assert _problems(king._replace(runestones=(1, 2, 3, 0, 1, 2, 3, 0))) != []  # stones not accounted
    full = king._replace(runestones=(1, 2, 3, 0, 1, 1, 1, 1), sigtuna=(4, 4, 4, 0))
    assert _problems(full) == _phase(full, why)
    assert _problems(_emptied(king, king.turn)) == _phase(king, why)
    rook = resolving(START, ROOK, 4)
    assert _problems(rook) == []
    roads = tuple(0 if i in rook.pawns else 1 for i in range(REFERENCE.spaces))
    assert sum(1 for v in roads if v) > 11  # too many dice for the supply: the shape check says so
    knight = resolving(START, KNIGHT, 3)
    assert knight.roads[2] == 1
    why = "the Knight needs a die of value X or less"
    assert _problems(knight._replace(roads=empty_roads())) == _phase(knight, why)
    assert _problems(knight._replace(x=1, roads=(2, *empty_roads()[1:]))) == _phase(knight, why)
    assert _problems(knight._replace(x=2, roads=(2, *empty_roads()[1:]))) == []
    bishop = resolving(START, BISHOP, 3)
    why = "the Bishop sends stones from a House that has some to another House"
    assert _problems(bishop._replace(target=bishop.turn)) == _phase(bishop, why)
    assert _problems(bishop._replace(target=0)) == []
    assert _problems(_emptied(bishop, bishop.turn)) == _phase(bishop, why)
    pawn = resolving(START, PAWN, 3)
    assert _problems(pawn._replace(piece=KNIGHT)) == _phase(pawn, match)


def test_a_rook_without_an_empty_space_is_an_impossible_step() -> None:
    """A board with few dice so that every road space can hold one."""
    rook = resolving(START, ROOK, 4)
    roads = tuple(0 if i in rook.pawns else 1 for i in range(REFERENCE.spaces))
    crowded = rook._replace(roads=roads)
    assert ("phase", "ROOK_PLACE: the Rook needs an empty road space") not in _problems(crowded)
    assert ("roads", "there are only 12 dice") in _problems(crowded)


def test_the_stone_placing_and_thing_phases_hold_their_invariants() -> None:
    waiting = resolving(START, PAWN, 1, roads=empty_roads(), pawns=(F1, F2, START.pawns[2]))
    pay, _ = play(waiting, MovePawn(0))
    assert pay.payers == (pay.turn,)
    why = "the player placing a stone has one"
    assert _problems(_emptied(pay, pay.turn)) == _phase(pay, why)
    assert _problems(pay._replace(payers=())) == [*_phase(pay, why), ("actor", "must be -2 in PAY_STONE")]
    assert _problems(pay._replace(payers=(0,))) == [("actor", "must be 0 in PAY_STONE")]
    order = [s for s in START.hierarchy if s != COIN]
    vote = START._replace(phase=Phase.THING_VOTE, thing_pending=True, actor=order[0])
    assert _problems(vote) == []
    assert _problems(vote._replace(thing_pending=False)) == _phase(
        vote, "the Thing is held when the King returns to Sigtuna"
    )
    assert _problems(vote._replace(step=1)) == [("actor", f"must be {order[1]} in THING_VOTE")]
    assert _problems(vote._replace(step=4, actor=-2)) == [("actor", "must be a seat")]
    assert _problems(vote._replace(step=4)) == [("actor", "must be -2 in THING_VOTE")]  # every vote is cast
    roll = vote._replace(phase=Phase.THING_ROLL, step=3, actor=order[3])
    assert _problems(roll) == []
    assert _problems(roll._replace(thing_pending=False)) == _phase(
        roll, "the Thing is held when the King returns to Sigtuna"
    )
    take = vote._replace(phase=Phase.THING_COINS, thing_pending=False)
    assert _problems(take) == []
    full = take._replace(coins=((True,) * 5, (True,) * 5, (True,) * 5, (True,) * 5))
    assert _problems(full) == _phase(full, "coins are left in the supply")


def test_the_end_phases_hold_their_invariants() -> None:
    rows = {h: [3 if c == h else 0 for c in range(4)] for h in range(4)}
    rows[1][2] = 5
    rows[1][3] = 5
    base = at(START, houses=rows)
    heir = base._replace(phase=Phase.HEIR, victory=JARL, chain=(1,), actor=1)
    assert _problems(heir) == []
    why = "an Heir tie is broken after a victory"
    assert _problems(heir._replace(victory=EVERYONE_LOSES)) == _phase(heir, why)
    assert _problems(heir._replace(chain=(), actor=-2)) == [("actor", "must be a seat")]
    assert _problems(heir._replace(chain=(2,), actor=2)) == _phase(heir, why)
    assert _problems(heir._replace(actor=2)) == [("actor", "must be 1 in HEIR")]
    over = base._replace(phase=Phase.OVER, victory=JARL, chain=(1,), winners=(1,), actor=-1)
    assert _problems(over) == []
    assert _problems(over._replace(actor=1)) == [("actor", "must be -1 in OVER")]


def test_a_player_to_act_always_has_a_move() -> None:
    s = START._replace(phase=Phase.PAWN_CHOOSE, piece=PAWN, x=1, dice=(1,))
    assert _problems(s) == []
    # LEVERAGE_ASSIGN with a chosen piece and no die is caught first; PAY_STONE with a stone always
    # has a move; a Knight needs a die -- every step the engine reaches has a move:
    feast = START._replace(phase=Phase.FEAST_FAVOUR, dice=(2, 2), pairs=1)
    assert _problems(feast) == []
    hidden = GAME.view(START, 0)
    assert _problems(hidden) == []  # views are never asked for the moves of a hidden House


# --------------------------------------------------------------------------- refusals


def _refusal(state: State, move: Any) -> tuple[str, str, str]:
    """The reason, sentence and field of an illegal move (through the shared core)."""
    assert move not in GAME.legal_moves(state)
    violation = core.validate(GAME, state, move)
    assert isinstance(violation, Violation)
    return violation.reason, violation.message, violation.field


GATHER_WAIT = "the player on turn gathers, moving stones from Sigtuna, asking for a blessing or rolling"


def test_a_move_of_another_step_or_a_draw_out_of_turn_is_refused_naming_the_step() -> None:
    assert _refusal(START, Vote(True)) == (
        "WRONG_STEP",
        f"That move is not part of this step: {GATHER_WAIT}.",
        "move",
    )
    assert _refusal(START, Draw(1)) == ("NOT_A_CHANCE_STEP", f"Nothing is drawn now: {GATHER_WAIT}.", "draw")
    market = GAME.new_game(4, Options(), Rng.from_seed(1))
    assert _refusal(market, Draw(4)) == (
        "NO_SUCH_OUTCOME",
        "Outcome 4 is not possible in this draw; the possible outcomes are 0, 1, 2, 3.",
        "draw.outcome",
    )
    assert _refusal(market, Roll()) == (
        "WRONG_STEP",
        "That move is not part of this step: the market pieces are being placed at random.",
        "move",
    )
    coin = _setup_at(Phase.SETUP_COINS)
    assert (
        _refusal(coin, Draw(2))[1]
        == "Outcome 2 is not possible in this draw; the possible outcomes are 1, 0."
    )
    hier = _setup_at(Phase.SETUP_HIERARCHY)
    assert (
        _refusal(hier, Draw(-1))[1]
        == "Outcome -1 is not possible in this draw; the possible outcomes are 0, 1, 2, 3."
    )


def test_gathering_refusals_name_the_colour_and_the_count() -> None:
    s = START  # seat 1 on turn; Sigtuna holds 4, 8, 4, 0; 5 dice on roads; seat 1 has 2 Silvers
    empty = ("NO_STONES_IN_SIGTUNA", "There are no stones of that colour in Sigtuna.", "gather.colour")
    assert _refusal(s, Gather(3, 1)) == empty
    assert _refusal(s, Gather(4, 1)) == empty
    assert _refusal(s, Gather(-1, 1)) == empty
    assert _refusal(s, Gather(2, 1)) == (
        "BLESSING_NEEDED",
        "Another player's stones move only with that player's blessing.",
        "gather.colour",
    )
    assert _refusal(s._replace(gathered=2), Gather(1, 1)) == (
        "ALREADY_GATHERED",
        "Stones of that colour were already moved this turn.",
        "gather.colour",
    )
    assert _refusal(s, Gather(1, 9)) == (
        "TOO_MANY_STONES",
        "Between 1 and 8 stones of that colour can be moved: Sigtuna holds 8.",
        "gather.count",
    )
    limited = s._replace(options=Options(gathering_limited_by_dice=True))
    assert _refusal(limited, Gather(1, 6)) == (
        "TOO_MANY_STONES",
        "Between 1 and 5 stones can be moved: one die per stone, and 5 dice are left.",
        "gather.count",
    )
    assert _refusal(limited._replace(moved=4), Gather(1, 2))[1] == (
        "Between 1 and 1 stones can be moved: one die per stone, and 1 die is left."
    )
    assert _refusal(limited._replace(moved=5), Gather(1, 1))[1] == (
        "No more stones can be moved from Sigtuna: each needs a die, and none is left."
    )
    assert Gather(1, 5) in GAME.legal_moves(limited) and Gather(1, 1) in GAME.legal_moves(
        limited._replace(moved=4)
    )
    blessed = s._replace(phase=Phase.GATHER_BLESSED, blessing=2, asked=4)
    exact = blessed._replace(options=Options(gathering_limited_by_dice=True), moved=1)  # 4 dice for 4 stones
    assert (
        _refusal(exact, Gather(2, 5))[1]
        == "Between 1 and 4 stones of that colour can be moved: Sigtuna holds 4."
    )
    assert _refusal(blessed, Gather(0, 1)) == (
        "NOT_BLESSED",
        "Only the blessed player's stones may be moved now.",
        "gather.colour",
    )
    assert GAME.legal_moves(blessed) == [Gather(2, k) for k in range(1, 5)]
    assert _refusal(s, AskBlessing(1)) == (
        "CANNOT_ASK",
        "A blessing can be asked only of another player with stones in Sigtuna, once a turn.",
        "ask_blessing",
    )
    assert _refusal(s, AskBlessing(3))[0] == "CANNOT_ASK"  # no stones of colour 3 in Sigtuna
    assert _refusal(s._replace(asked=1), AskBlessing(0))[0] == "CANNOT_ASK"


def test_sending_and_feast_refusals() -> None:
    feast = START._replace(phase=Phase.FEAST_SEND, dice=(2, 2), pairs=1)
    assert _refusal(feast, SendStone(4, 0)) == (
        "NO_SUCH_STONE",
        "Your House has no stone of that colour.",
        "send_stone.colour",
    )
    assert _refusal(feast, SendStone(-1, 0))[0] == "NO_SUCH_STONE"
    bare = at(START, houses={1: [0, 9, 0, 0]})._replace(phase=Phase.FEAST_SEND, dice=(2, 2), pairs=1)
    assert _refusal(bare, SendStone(0, 0))[0] == "NO_SUCH_STONE"
    assert _refusal(feast, SendStone(1, 1)) == (
        "NOT_ANOTHER_HOUSE",
        "Stones go to another player's House.",
        "send_stone.house",
    )
    bishop = resolving(START, BISHOP, 3)._replace(target=3)
    assert _refusal(bishop, SendStone(1, 0)) == (
        "SAME_HOUSE",
        "These stones go to Player 4's House.",
        "send_stone.house",
    )
    favour = START._replace(phase=Phase.FEAST_FAVOUR, dice=(2, 2), pairs=1)
    assert _refusal(favour, ChangeStanding(4)) == (
        "NO_SUCH_PAIR",
        "There are no adjacent hierarchy slots 4 and 5: Change Standing swaps slots 0 and 1 up to 3 and 4.",
        "change_standing.position",
    )
    assert _refusal(favour, AnnounceLoyalty(4, 0)) == (
        "NO_SUCH_COIN",
        "There is no seat 4: the seats are 0 to 3.",
        "announce_loyalty",
    )
    assert _refusal(favour, AnnounceLoyalty(-1, 0))[1] == "There is no seat -1: the seats are 0 to 3."
    assert _refusal(favour, AnnounceLoyalty(0, 2)) == (
        "NO_SUCH_COIN",
        "Player 1 has no coin 2: their coins are numbered 0 to 1.",
        "announce_loyalty",
    )


def test_leverage_refusals_name_the_bowl_the_pennings_and_the_piece() -> None:
    s = START._replace(phase=Phase.LEVERAGE_CHOOSE, dice=(2, 5))  # seat 1: no Penning
    assert _refusal(s, ChooseBowl(6, PAWN)) == (
        "NO_SUCH_BOWL",
        "There is no market bowl 6: the bowls are numbered 0 (the top) to 5.",
        "choose_bowl.bowl",
    )
    assert _refusal(s, ChooseBowl(-1, PAWN))[0] == "NO_SUCH_BOWL"
    assert _refusal(s, ChooseBowl(3, BISHOP)) == (
        "BOWL_TOO_EXPENSIVE",
        "The bowl's value 1 exceeds your 0 Pennings.",
        "choose_bowl.bowl",
    )
    one = s._replace(coins=coins(s, s1=(True, False)))
    assert _refusal(one, ChooseBowl(2, KNIGHT))[1] == "The bowl's value 2 exceeds your 1 Penning."
    assert ChooseBowl(3, BISHOP) in GAME.legal_moves(one)
    chosen = s._replace(chosen=((PAWN_BOWL, PAWN),))
    assert _refusal(chosen, ChooseBowl(PAWN_BOWL, PAWN)) == (
        "BOWL_ALREADY_CHOSEN",
        "Choose 2 different market bowls.",
        "choose_bowl.bowl",
    )
    assert _refusal(s._replace(king_used=True), ChooseBowl(KING_BOWL, KING)) == (
        "KING_ONCE",
        "You can only take the King's action once per turn.",
        "choose_bowl.piece",
    )
    assert _refusal(s, ChooseBowl(KING_BOWL, PAWN)) == (
        "NO_SUCH_PIECE",
        "That piece is not in the bowl (nor printed in it when empty).",
        "choose_bowl.piece",
    )
    assign = START._replace(
        phase=Phase.LEVERAGE_ASSIGN, dice=(2, 5), chosen=((PAWN_BOWL, PAWN), (KING_BOWL, KING))
    )
    assert _refusal(assign, Resolve(2, 2)) == (
        "NO_SUCH_PIECE",
        "There is no chosen piece with that number.",
        "resolve.slot",
    )
    assert _refusal(assign, Resolve(-1, 2))[0] == "NO_SUCH_PIECE"
    assert _refusal(assign, Resolve(0, 3)) == (
        "NO_SUCH_DIE",
        "No die you rolled and have not assigned shows that value.",
        "resolve.die",
    )
    assert GAME.legal_moves(assign) == [Resolve(0, 2), Resolve(0, 5), Resolve(1, 2), Resolve(1, 5)]


def test_piece_refusals_name_what_the_piece_needs() -> None:
    king = resolving(START, KING, 3)
    taken = ("CROSSROADS_TAKEN", "Runestones go on an empty crossroads.", "place_runestone.crossroads")
    assert _refusal(king, PlaceRunestone(0, 1)) == taken
    assert _refusal(king, PlaceRunestone(8, 1)) == taken
    assert _refusal(king, PlaceRunestone(-1, 1)) == taken
    assert _refusal(king, PlaceRunestone(4, 4)) == (
        "NO_SUCH_STONE",
        "Your House has no stone of that colour for a runestone.",
        "place_runestone.colour",
    )
    rook = resolving(START, ROOK, 4)
    assert _refusal(rook, PlaceDie(0)) == (
        "SPACE_NOT_EMPTY",
        "Dice go on an empty road space (no die, no pawn).",
        "place_die.space",
    )
    knight = resolving(START, KNIGHT, 3)
    assert _refusal(knight, RemoveDie(1)) == (
        "NO_SUCH_DIE",
        "The Knight removes a die of value 3 or less from a road space.",
        "remove_die.space",
    )
    pawn = resolving(START, PAWN, 3)
    assert _refusal(pawn, MovePawn(3)) == ("NO_SUCH_PAWN", "The pawns are numbered 0 to 2.", "move_pawn.pawn")
    waiting = resolving(START, PAWN, 1, roads=empty_roads(), pawns=(F1, F2, START.pawns[2]))
    pay, _ = play(waiting, MovePawn(0))
    assert _refusal(pay, PlaceStone(4)) == (
        "NO_SUCH_STONE",
        "Your House has no stone of that colour.",
        "place_stone.colour",
    )
    ret, _ = play(pay, PlaceStone(1))
    assert _refusal(ret, ReturnPawn(5)) == (
        "NO_SUCH_STAR",
        "The starting stars are numbered 0 to 4.",
        "return_pawn.star",
    )


def test_an_heir_outside_the_tie_is_refused() -> None:
    rows = {h: [3 if c == h else 0 for c in range(4)] for h in range(4)}
    rows[1][2] = 5
    rows[1][3] = 5
    heir = at(START, houses=rows)._replace(phase=Phase.HEIR, victory=JARL, chain=(1,), actor=1)
    assert GAME.legal_moves(heir) == [ChooseHeir(2), ChooseHeir(3)]
    assert _refusal(heir, ChooseHeir(0)) == (
        "NOT_TIED",
        "The Heir is one of the players tied for the most stones in your House.",
        "choose_heir.seat",
    )


# --------------------------------------------------------------------------- events and chances


def _said(events: list[Event]) -> list[tuple[str, str, int | None, object]]:
    return [(e.kind, e.text, e.player, e.detail) for e in events]


def _d(value: int = 0, colours: tuple[int, ...] = (), seats: tuple[int, ...] = ()) -> EventDetail:
    return EventDetail(value, colours, seats)


def _die_chance(description: str) -> core.Chance[Any]:
    return core.Chance(description, tuple(core.ChanceOutcome(Draw(v), 1 / 6, f"a {v}") for v in range(1, 7)))


def test_the_setup_draws_describe_themselves_and_tell_what_was_drawn() -> None:
    market = GAME.new_game(4, Options(), Rng.from_seed(1))
    assert GAME.to_act(market) == core.ToAct((), True)
    assert GAME.chance(market) == core.Chance(
        "A market piece is placed at random in top bowl 1",
        tuple(
            core.ChanceOutcome(Draw(i), 0.25, name)
            for i, name in enumerate(("Knight", "Bishop", "Rook", "Pawn"))
        ),
    )
    state, events = play(market, Draw(2), Draw(0), Draw(1))
    assert GAME.chance(state) == core.Chance(
        "A market piece is placed at random in top bowl 4", (core.ChanceOutcome(Draw(0), 1.0, "Bishop"),)
    )
    state, more = play(state, Draw(0))
    assert _said(events + more) == [
        ("PIECE_PLACED", "The Rook is placed in bowl 1.", None, _d(ROOK)),
        ("PIECE_PLACED", "The Knight is placed in bowl 2.", None, _d(KNIGHT)),
        ("PIECE_PLACED", "The Pawn is placed in bowl 3.", None, _d(PAWN)),
        ("PIECE_PLACED", "The Bishop is placed in bowl 4.", None, _d(BISHOP)),
    ]
    assert state.bowls == ((ROOK,), (KNIGHT,), (PAWN,), (BISHOP,), (), ())
    assert state.phase is Phase.SETUP_COINS and state.actor == 0 and state.step == 0
    coin = core.Chance(
        "Player 1 places a coin with a random side up",
        (
            core.ChanceOutcome(Draw(1), 0.5, "Penning side up"),
            core.ChanceOutcome(Draw(0), 0.5, "Silver side up"),
        ),
    )
    assert GAME.chance(state) == coin
    state, events = play(state, Draw(1), Draw(0))
    assert _said(events) == [
        ("COIN_TAKEN", "Player 1 took a coin, Penning side up.", 0, _d(1)),
        ("COIN_TAKEN", "Player 1 took a coin, Silver side up.", 0, _d(0)),
    ]
    assert state.actor == 1 and state.coins[0] == (True, False)
    state, _ = play(state, *[Draw(1)] * 6)
    assert state.phase is Phase.SETUP_HIERARCHY and state.actor == -1 and state.step == 0
    hier = core.Chance(
        "A player's stone is placed at random in hierarchy slot 1",
        tuple(core.ChanceOutcome(Draw(i), 0.25, f"Player {i + 1}") for i in range(4)),
    )
    assert GAME.chance(state) == hier
    state, events = play(state, Draw(3), Draw(0))
    assert GAME.chance(state) == core.Chance(
        "A player's stone is placed at random in hierarchy slot 3",
        (core.ChanceOutcome(Draw(0), 0.5, "Player 2"), core.ChanceOutcome(Draw(1), 0.5, "Player 3")),
    )
    state, more = play(state, Draw(1), Draw(0))
    assert _said(events + more) == [
        ("HIERARCHY_FILLED", "Player 4 takes hierarchy slot 1.", 3, None),
        ("HIERARCHY_FILLED", "Player 1 takes hierarchy slot 2.", 0, None),
        ("HIERARCHY_FILLED", "Player 3 takes hierarchy slot 3.", 2, None),
        ("HIERARCHY_FILLED", "Player 2 takes hierarchy slot 4.", 1, None),
        ("HIERARCHY_COIN", "The Hierarchy coin is placed at the bottom, Silver side up.", None, None),
    ]
    assert state.hierarchy == (3, 0, 2, 1, COIN) and state.sizes == (20, 20, 20, 20)
    assert state.houses[1] == (0, 20, 0, 0)
    assert (state.phase, state.actor, state.turn) == (Phase.SETUP_ROADBLOCK_ROLL, 1, 1)
    assert GAME.to_act(state) == core.ToAct((1,), True)
    assert GAME.chance(state) == _die_chance("Player 2, last in the Hierarchy, rolls the first roadblock die")
    state, events = play(state, Draw(5))
    assert (state.phase, state.x) == (Phase.SETUP_ROADBLOCK_PLACE, 5)
    state, more = play(state, PlaceDie(F2))
    assert _said(events + more) == [
        ("DIE_ROLLED", "Player 2 rolled a 5.", 1, _d(5)),
        ("ROADBLOCK_PLACED", "Player 2 placed a 5 on f2.", 1, _d(F2)),
        ("SETUP_PLAYER", "Player 4 sets up.", 3, None),
    ]
    assert (state.phase, state.actor, state.turn, state.step, state.x, state.target) == (
        Phase.SETUP_SIGTUNA,
        3,
        3,
        0,
        4,
        -1,
    )


def test_a_setup_player_places_stones_sends_them_clockwise_raises_a_runestone_and_places_a_die() -> None:
    state = _setup_at(Phase.SETUP_SIGTUNA)
    seat = state.turn
    left, across, right = (seat + 1) % 4, (seat + 2) % 4, (seat + 3) % 4
    state, events = play(state, *[PlaceStone(seat)] * 4)
    assert _said(events)[0][:3] == (
        "STONE_TO_SIGTUNA",
        f"Player {seat + 1} placed a stone of Player {seat + 1} in Sigtuna.",
        seat,
    )
    assert events[0].detail == _d(1, (seat,))
    assert (state.phase, state.x, state.target) == (Phase.SETUP_SEND, 2, left)
    state, events = play(state, SendStone(seat, left))
    assert _said(events) == [
        (
            "STONE_SENT",
            f"Player {seat + 1} sent a stone to Player {left + 1}'s House.",
            seat,
            EventDetail(1, (seat,), (left,), True, (seat, left)),
        )
    ]
    assert (state.x, state.target) == (1, left)
    state, _ = play(state, SendStone(seat, left))
    assert (state.x, state.target) == (2, across)
    state, _ = play(state, SendStone(seat, across), SendStone(seat, across), SendStone(seat, right))
    assert (state.phase, state.x, state.target) == (Phase.SETUP_SEND, 1, right)
    state, _ = play(state, SendStone(seat, right))
    assert (state.phase, state.x, state.target) == (Phase.SETUP_RUNESTONE, 1, -1)
    free = state.runestones.index(-1)
    state, events = play(state, PlaceRunestone(free, seat))
    name = REFERENCE.crossroads_ids[free]
    assert _said(events) == [
        (
            "RUNESTONE_RAISED",
            f"Player {seat + 1} raised a runestone of Player {seat + 1} at {name}.",
            seat,
            _d(free, (seat,)),
        )
    ]
    assert (state.phase, state.x) == (Phase.SETUP_DIE_ROLL, 0)
    assert GAME.chance(state) == _die_chance(f"Player {seat + 1} rolls a die to place on a road")
    state, _ = play(state, Draw(3))
    assert (state.phase, state.x) == (Phase.SETUP_DIE_PLACE, 3)
    state, events = play(state, PlaceDie(F5))
    nxt = state.hierarchy[1]
    assert _said(events) == [
        ("ROADBLOCK_PLACED", f"Player {seat + 1} placed a 3 on f5.", seat, _d(F5)),
        ("SETUP_PLAYER", f"Player {nxt + 1} sets up.", nxt, None),
    ]
    assert (state.step, state.actor, state.turn, state.x) == (1, nxt, nxt, 4)


def test_three_players_send_four_stones_to_each_house_and_raise_two_runestones() -> None:
    state = GAME.new_game(3, Options(), Rng.from_seed(1))
    while state.phase is not Phase.SETUP_SEND:
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    seat = state.turn
    assert (state.x, state.target) == (4, (seat + 1) % 3)
    for _ in range(4):
        state, _ = play(state, SendStone(seat, (seat + 1) % 3))
    assert (state.x, state.target) == (4, (seat + 2) % 3)
    for _ in range(4):
        state, _ = play(state, SendStone(seat, (seat + 2) % 3))
    assert (state.phase, state.x) == (Phase.SETUP_RUNESTONE, 2)
    state, _ = play(state, GAME.legal_moves(state)[0])
    assert (state.phase, state.x) == (Phase.SETUP_RUNESTONE, 1)
    state, _ = play(state, GAME.legal_moves(state)[0])
    assert state.phase is Phase.SETUP_DIE_ROLL
    assert [len(r) for r in started(3, 1).coins] == [3, 3, 3]


def test_the_last_setup_die_starts_the_first_turn_at_the_top_of_the_hierarchy() -> None:
    state = _setup_at(Phase.SETUP_DIE_PLACE)
    while not (state.phase is Phase.SETUP_DIE_PLACE and state.step == 3):
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    top = state.hierarchy[0]
    state, events = play(state, GAME.legal_moves(state)[0])
    assert _said(events)[-1] == ("TURN_STARTED", f"Player {top + 1}'s turn.", top, None)
    assert (state.phase, state.actor, state.turn, state.step) == (Phase.GATHER, top, top, 0)


def test_gathering_events_name_the_stones_the_blessings_and_the_pool() -> None:
    state, events = play(START, Gather(1, 3), AskBlessing(2))
    assert GAME.to_act(state) == core.ToAct((2,), False)
    state, more = play(state, Bless(True), Gather(2, 1), AskBlessing(0), Bless(False))
    assert (state.phase, state.actor, state.blessing, state.asked, state.gathered) == (
        Phase.GATHER,
        1,
        -1,
        5,
        6,
    )
    state, last = play(state, Roll())
    assert _said(events + more + last) == [
        ("STONES_GATHERED", "Player 2 moved 3 stones of Player 2 from Sigtuna.", 1, _d(3, (1,))),
        ("BLESSING_ASKED", "Player 2 asks Player 3 for their blessing.", 1, None),
        ("BLESSING_GIVEN", "Player 3 gives the blessing.", 2, None),
        ("STONES_GATHERED", "Player 2 moved 1 stone of Player 3 from Sigtuna.", 1, _d(1, (2,))),
        ("BLESSING_ASKED", "Player 2 asks Player 1 for their blessing.", 1, None),
        ("BLESSING_REFUSED", "Player 1 refuses the blessing.", 0, None),
        ("POOL_ROLLED", "Player 2 rolls 6 dice.", 1, _d(6)),
    ]
    assert (state.moved, state.to_roll, state.sizes[1]) == (4, 6, 19)
    assert GAME.chance(state) == _die_chance("Player 2 rolls die 1 of 6")
    state, _ = play(state, Draw(4))
    assert GAME.chance(state) == _die_chance("Player 2 rolls die 2 of 6")
    assert (state.dice, state.to_roll) == ((4,), 5)


def test_a_blessing_with_no_stone_to_move_returns_to_gathering() -> None:
    refused, _ = play(START, AskBlessing(2), Bless(False))
    assert (refused.phase, refused.actor, refused.blessing) == (Phase.GATHER, 1, -1)
    blessed, _ = play(START, AskBlessing(2), Bless(True))
    assert (blessed.phase, blessed.actor, blessed.blessing) == (Phase.GATHER_BLESSED, 1, 2)


def test_the_pool_is_capped_by_the_dice_in_the_supply() -> None:
    state = START._replace(roads=(1,) * 11 + (0,) * 12)
    state, events = play(state, Gather(1, 3), Roll())
    assert state.to_roll == 1 and events[-1].text == "Player 2 rolls 1 dice."


def test_the_feast_events_count_pairs_and_name_each_choice() -> None:
    state = START._replace(phase=Phase.ROLL, dice=(2, 5), to_roll=1)
    state, events = play(state, Draw(2))
    assert _said(events) == [
        ("DIE_ROLLED", "Player 2 rolled a 2.", 1, _d(2)),
        ("FEAST", "Player 2 rolled 2, 2, 5: 1 pair.", 1, _d(1)),
    ]
    assert (state.phase, state.pairs, state.dice) == (Phase.FEAST_SEND, 1, (2, 2, 5))
    state, events = play(state, SendStone(1, 2), ChangeStanding(0))
    assert _said(events)[1:] == [("STANDING_CHANGED", "Player 2 swapped hierarchy slots 1 and 2.", 1, _d(0))]
    assert state.hierarchy == (2, 1, 3, 0, COIN) and state.phase is Phase.LEVERAGE_CHOOSE
    none = START._replace(phase=Phase.ROLL, dice=(1, 3), to_roll=1)
    none, events = play(none, Draw(6))
    assert events[-1].text == "Player 2 rolled 1, 3, 6: 0 pairs." and events[-1].detail == _d(0)
    two = START._replace(phase=Phase.ROLL, dice=(4, 4, 4), to_roll=1)
    two, events = play(two, Draw(4))
    assert events[-1].text == "Player 2 rolled 4, 4, 4, 4: 2 pairs."
    two, events = play(two, SendStone(1, 3), AnnounceLoyalty(0, 1))
    assert _said(events)[1:] == [
        ("LOYALTY_ANNOUNCED", "Player 2 flipped Player 1's coin 2 to Silver.", 1, _d(1, (), (0,)))
    ]
    assert two.coins[0] == (True, False) and (two.phase, two.pairs) == (Phase.FEAST_SEND, 1)
    two, events = play(two, SendStone(1, 3), AnnounceLoyalty(0, 1))
    assert events[-1].text.endswith("Player 1's coin 2 to Penning.") or events[-1].kind == "PIECE_CHOSEN"
    assert two.coins[0] == (True, True) and two.pairs == 0


def test_the_leverage_events_name_the_piece_the_bowl_and_the_die() -> None:
    state = START._replace(phase=Phase.LEVERAGE_CHOOSE, dice=(2, 5), coins=coins(START, s1=(True, False)))
    state, events = play(state, ChooseBowl(3, BISHOP), ChooseBowl(PAWN_BOWL, PAWN))
    assert _said(events) == [
        ("PIECE_CHOSEN", "Player 2 chose the Bishop taken from bowl 4.", 1, _d(BISHOP, (), (3,))),
        ("PIECE_CHOSEN", "Player 2 chose the Pawn printed on bowl 5.", 1, _d(PAWN, (), (PAWN_BOWL,))),
    ]
    assert state.taken == (BISHOP,) and state.bowls[3] == () and state.phase is Phase.LEVERAGE_ASSIGN
    state, events = play(state, Resolve(0, 2))
    assert _said(events) == [
        ("PIECE_RESOLVED", "Player 2 assigned a 2 to the Bishop.", 1, _d(2, (), (BISHOP,)))
    ]
    assert (state.phase, state.piece, state.x, state.target, state.dice, state.chosen) == (
        Phase.BISHOP_SEND,
        BISHOP,
        2,
        -1,
        (5,),
        ((PAWN_BOWL, PAWN),),
    )
    state, _ = play(state, SendStone(1, 3))
    assert (state.x, state.target) == (1, 3)
    state, _ = play(state, SendStone(0, 3))
    assert (state.phase, state.piece, state.x, state.target) == (Phase.LEVERAGE_ASSIGN, 0, 0, -1)
    assert state.houses[3] == (3, 1, 0, 13)


def test_the_king_events_and_his_walk() -> None:
    state = resolving(START, KING, 1)
    state, events = play(state, PlaceRunestone(4, 2))
    assert _said(events) == [
        (
            "RUNESTONE_RAISED",
            f"Player 2 raised a runestone of Player 3 at {REFERENCE.crossroads_ids[4]}.",
            1,
            _d(4, (2,)),
        ),
        ("KING_MOVED", "The King walks 1 coin clockwise.", 1, _d(1)),
        ("CLEAN_UP", "The market shifts down; the used pieces go to the top bowl.", 1, None),
        ("TURN_STARTED", "Player 3's turn.", 2, None),
    ]
    assert state.king == 1 and state.runestones[4] == 2
    walk = resolving(START, KING, 6, king=2)
    walk, events = play(walk, PlaceRunestone(4, 2))
    assert _said(events)[1][:2] == ("KING_MOVED", "The King walks 6 coins clockwise.") and walk.king == 8
    home = resolving(START, KING, 6, king=3)
    home, events = play(home, PlaceRunestone(4, 2))
    assert _said(events)[1] == (
        "KING_HOME",
        "The King returns to Sigtuna: the Thing is held at the end of the turn.",
        1,
        _d(0),
    )
    assert _said(events)[3] == ("THING_HELD", "The Thing is held.", None, None)
    assert home.king == 0 and home.phase is Phase.THING_VOTE and home.thing_pending


def test_a_king_with_an_empty_house_only_walks() -> None:
    state = _emptied(START, 1)._replace(phase=Phase.LEVERAGE_ASSIGN, dice=(2,), chosen=((KING_BOWL, KING),))
    state, events = play(state, Resolve(0, 2))
    assert [e.kind for e in events][:2] == ["PIECE_RESOLVED", "KING_MOVED"] and state.king == 2
    assert state.king_used is False and state.turn == 2  # a new turn clears it


def test_the_rook_knight_and_nothing_to_do_events() -> None:
    rook = resolving(START, ROOK, 4)
    rook, events = play(rook, PlaceDie(F1))
    assert _said(events)[0] == ("ROADBLOCK_PLACED", "Player 2 placed a 4 on f1.", 1, _d(F1))
    last = START._replace(phase=Phase.ROOK_PLACE, piece=ROOK, x=4, dice=(), roads=(3,) * 11 + (0,) * 12)
    over, events = play(last, PlaceDie(F5))
    assert _said(events)[1] == (
        "LAST_DIE_PLACED",
        "The last die is on the roads: the game ends and everyone loses.",
        1,
        None,
    )
    assert (over.phase, over.actor, over.victory, over.chosen, over.dice) == (
        Phase.OVER,
        -1,
        EVERYONE_LOSES,
        (),
        (),
    )
    outcome = GAME.outcome(over)
    assert outcome is not None and outcome.summary == "The last die was placed on the roads: everyone loses."
    assert GAME.to_act(over) == core.ToAct(())
    assert GAME.legal_moves(over) == ()
    knight = resolving(START, KNIGHT, 3)
    knight, events = play(knight, RemoveDie(2))
    assert _said(events)[0] == (
        "DIE_REMOVED",
        f"The Knight removed the 1 from {REFERENCE.space_ids[2]}.",
        1,
        _d(2),
    )
    assert knight.roads[2] == 0


@pytest.mark.parametrize(("piece", "name"), [(KNIGHT, "Knight"), (BISHOP, "Bishop")])
def test_a_piece_with_nothing_to_act_on_says_so(piece: int, name: str) -> None:
    state = START._replace(phase=Phase.LEVERAGE_ASSIGN, dice=(1,), chosen=((PAWN_BOWL, PAWN),))
    bowl = next(b for b, row in enumerate(START.bowls) if row == (piece,))
    state = state._replace(
        chosen=((bowl, piece),), taken=(piece,), bowls=core.replaced(START.bowls, bowl, ())
    )
    state = state._replace(roads=(2, 4, 3, 0, 0, *START.roads[5:]))
    if piece == BISHOP:
        state = _emptied(state, 1)
    state, events = play(state, Resolve(0, 1))
    assert _said(events)[1] == ("NOTHING_TO_DO", f"The {name} has nothing to act on.", 1, None)


def test_the_pawn_events_name_the_walk_the_payers_and_the_star() -> None:
    owner = 2
    runestones = tuple(owner if i == FORD else r for i, r in enumerate(START.runestones))
    start = at(START, runestones=runestones)
    state = resolving(start, PAWN, 1, roads=empty_roads(), pawns=(F3, *START.pawns[1:]))
    state, events = play(state, MovePawn(0))
    assert _said(events) == [
        ("PAWN_MOVED", "The pawn walked from road space f3 to road space f4.", 1, _d(F4, (), (0,)))
    ]
    assert (state.phase, state.actor, state.payers, state.pawn) == (Phase.PAY_STONE, owner, (owner,), -1)
    state, events = play(state, PlaceStone(owner))
    assert _said(events)[0] == (
        "STONE_TO_SIGTUNA",
        "Player 3 placed a stone of Player 3 in Sigtuna.",
        owner,
        _d(1, (owner,)),
    )
    assert state.turn == 2 and state.phase is Phase.GATHER  # clean up, then the next turn
    arrive = resolving(START, PAWN, 2, roads=empty_roads(), pawns=(F5, *START.pawns[1:]))
    arrive = at(arrive, runestones=tuple(-1 if i == 4 else r for i, r in enumerate(START.runestones)))
    arrive, events = play(arrive, MovePawn(0))
    assert _said(events) == [
        ("PAWN_MOVED", "The pawn walked from road space f5 to Sigtuna.", 1, _d(REFERENCE.sigtuna, (), (0,))),
        ("PAWN_ARRIVED", "The pawn reached Sigtuna: it returns to a starting star.", 1, _d(0)),
    ]
    assert (arrive.phase, arrive.actor, arrive.payers, arrive.pawn) == (Phase.PAY_STONE, 1, (1,), 0)
    arrive, _ = play(arrive, PlaceStone(1))
    assert (arrive.phase, arrive.actor, arrive.payers) == (Phase.PAWN_RETURN, 1, ())
    arrive, events = play(arrive, ReturnPawn(2))
    assert _said(events)[0] == ("PAWN_RETURNED", f"The pawn returns to {REFERENCE.star_ids[2]}.", 1, _d(2))
    assert arrive.pawns[0] == REFERENCE.star_node(2) and arrive.pawn == -1


def test_a_payer_with_an_empty_house_is_skipped_with_an_event() -> None:
    owner = 2
    runestones = tuple(owner if i == FORD else r for i, r in enumerate(START.runestones))
    start = _emptied(at(START, runestones=runestones), owner)
    state = resolving(start, PAWN, 1, roads=empty_roads(), pawns=(F3, *START.pawns[1:]))
    state, events = play(state, MovePawn(0))
    assert _said(events)[1] == (
        "NO_STONE_TO_PLACE",
        "Player 3 has no stone in their House to place.",
        owner,
        None,
    )
    assert state.turn == 2 and state.phase is Phase.GATHER


def test_a_pawn_from_a_star_walks_over_the_crossroads_runestones_in_order() -> None:
    """For each runestone you pass, its owner places 1 stone from their House in Sigtuna."""
    runestones = tuple(0 if i in (FORD, 4) else r for i, r in enumerate(START.runestones))
    start = at(START, runestones=runestones)
    state = resolving(start, PAWN, 5, roads=empty_roads(), pawns=(F1, *START.pawns[1:]))
    state, events = play(state, MovePawn(0))
    # f2 (1), f3 (2, difficult), crossroads ford (free, its runestone passed), f4 (1), f5 (1)
    assert state.pawns[0] == F5 and state.payers == (0,) and events[-1].kind == "PAWN_MOVED"
    state = resolving(start, PAWN, 6, roads=empty_roads(), pawns=(F1, *START.pawns[1:]))
    state, events = play(state, MovePawn(0))
    assert state.payers == (0, 0, 1) and state.pawn == 0 and events[-1].kind == "PAWN_ARRIVED"


def test_the_thing_events_and_the_coins_of_the_vikings() -> None:
    order = [s for s in START.hierarchy if s != COIN]
    vote = START._replace(phase=Phase.THING_VOTE, thing_pending=True, actor=order[0])
    state, events = play(vote, Vote(True))
    assert _said(events) == [("ROYALTY_SUPPORTED", "Player 2 supports Olof Skötkonung and rolls.", 1, None)]
    assert GAME.chance(state) == _die_chance("Player 2 supports royalty and rolls 1 die")
    state, events = play(state, Draw(5), Vote(False))
    assert _said(events)[1] == (
        "ROYALTY_NOT_SUPPORTED",
        "Player 3 does not support Olof Skötkonung.",
        2,
        None,
    )
    assert (state.best_vote, state.step, state.actor) == (5, 2, order[2])
    state, events = play(state, Vote(True), Draw(3), Vote(False))
    assert state.best_vote == 5
    assert _said(events)[-1] == (
        "HIERARCHY_COIN_FLIPPED",
        "The highest die 5 is at least the 5 dice on roads: the Hierarchy coin turns to Penning.",
        None,
        None,
    )
    assert (state.phase, state.step, state.actor, state.hierarchy_penning) == (
        Phase.THING_COINS,
        0,
        order[0],
        True,
    )
    assert GAME.chance(state) == core.Chance(
        "Player 2 places a coin with a random side up",
        (
            core.ChanceOutcome(Draw(1), 0.5, "Penning side up"),
            core.ChanceOutcome(Draw(0), 0.5, "Silver side up"),
        ),
    )
    state, events = play(state, Draw(1), Draw(0), Draw(1), Draw(0))
    assert _said(events)[:2] == [
        ("COIN_TAKEN", "Player 2 took a coin, Penning side up.", 1, _d(1)),
        ("COIN_TAKEN", "Player 3 took a coin, Silver side up.", 2, _d(0)),
    ]
    assert _said(events)[-1] == ("TURN_STARTED", "Player 3's turn.", 2, None)
    assert state.coins == ((True, True, False), (False, False, True), (True, True, False), (True, True, True))
    assert (state.things, state.thing_pending, state.step) == (1, False, 0)
    low = vote._replace(roads=(2, 4, 1, 4, 4, 3, *START.roads[6:]))  # 6 dice on roads
    low, events = play(low, Vote(True), Draw(5), Vote(False), Vote(False), Vote(False))
    assert _said(events)[-1] == ("THING_UNMOVED", "Royalty did not find enough support.", None, None)
    assert not low.hierarchy_penning
    none, events = play(vote._replace(roads=(0,) * REFERENCE.spaces), *[Vote(False)] * 4)
    assert events[-1].kind == "THING_UNMOVED" and not none.hierarchy_penning  # no supporter, no flip


def test_the_coins_run_out_in_the_supply() -> None:
    order = [s for s in START.hierarchy if s != COIN]
    five = ((True,) * 5, (True,) * 5, (True,) * 4, (True,) * 5)  # 19 coins + the Hierarchy coin: 1 left
    vote = START._replace(phase=Phase.THING_VOTE, thing_pending=True, actor=order[0], coins=five)
    state, _ = play(vote, *[Vote(False)] * 4)
    assert state.phase is Phase.THING_COINS and state.actor == order[0]
    state, _ = play(state, Draw(0))
    assert state.phase is Phase.GATHER and state.coins[order[0]] == (True,) * 5 + (False,)
    assert state.things == 1


def _over(state: State) -> State:
    while state.phase is Phase.HEIR:
        state, _ = play(state, GAME.legal_moves(state)[0])
    return state


def test_the_thegn_vote_ends_the_game_with_its_events_and_outcome() -> None:
    order = [s for s in START.hierarchy if s != COIN]
    rows = {h: [3 if c == h else 0 for c in range(4)] for h in range(4)}
    base = at(START, houses=rows)
    vote = base._replace(phase=Phase.THING_VOTE, thing_pending=True, actor=order[0], hierarchy_penning=True)
    state, events = play(vote, Vote(True), Draw(6), Vote(False), Vote(False), Vote(False))
    # Pennings: seat 0, 2 and 3 have 2 each; seat 2 is highest of them in the hierarchy
    kinds_ = [e.kind for e in events]
    assert kinds_[-3:] == ["THEGN_VOTE", "GAME_ENDS", "GAME_WON"]
    assert _said(events)[-3] == (
        "THEGN_VOTE",
        "The highest die 6 is at least the 5 dice on roads, and the coin already shows Penning.",
        None,
        None,
    )
    assert _said(events)[-2:] == [
        ("GAME_ENDS", "The game ends in the Thegn's Victory: Player 3 holds the victory.", 2, None),
        ("GAME_WON", "Player 3 won.", 2, _d(0, (), (2,))),
    ]
    assert (state.phase, state.actor, state.victory, state.chain, state.winners) == (
        Phase.OVER,
        -1,
        THEGN,
        (2,),
        (2,),
    )
    outcome = GAME.outcome(state)
    assert outcome == core.Outcome(core.Result.WIN, (2,), "Thegn's Victory: Player 3 wins.")
    assert GAME.outcome(START) is None


def _third_thing(houses: dict[int, list[int]], *, coin_on_top: bool) -> tuple[State, list[Event]]:
    """The third Thing held with nobody voting; nobody has a Penning (all tie for the most)."""
    order = [s for s in START.hierarchy if s != COIN]  # 1, 2, 3, 0
    base = at(START, houses=houses, coins=((False, False),) * 4)
    if coin_on_top:
        base = base._replace(hierarchy=(COIN, *order))
    vote = base._replace(phase=Phase.THING_VOTE, thing_pending=True, actor=order[0], things=2)
    return play(vote, *[Vote(False)] * 4, *[Draw(0)] * 4)


def _rows(**extra: int) -> dict[int, list[int]]:
    """Each House holds 3 of its owner's stones; ``h1=2`` adds 4 stones of colour 2 to House 1."""
    rows = {h: [3 if c == h else 0 for c in range(4)] for h in range(4)}
    for key, colour in extra.items():
        rows[int(key[1:])][colour] += 4
    return rows


def test_an_heir_chain_is_told_event_by_event_and_in_the_outcome() -> None:
    state, events = _third_thing(_rows(h1=2, h2=3, h3=0), coin_on_top=False)
    assert (state.victory, state.chain, state.winners) == (JARL, (1, 2, 3, 0), (0,))
    assert _said(events)[-5:] == [
        ("GAME_ENDS", "The game ends in the Jarl's Victory: Player 2 holds the victory.", 1, None),
        ("HEIR", "Player 3 has the most stones in Player 2's House and steals the victory as Heir.", 2, None),
        ("HEIR", "Player 4 has the most stones in Player 3's House and steals the victory as Heir.", 3, None),
        ("HEIR", "Player 1 has the most stones in Player 4's House and steals the victory as Heir.", 0, None),
        ("GAME_WON", "Player 1 won.", 0, _d(0, (), (0,))),
    ]
    assert GAME.outcome(state) == core.Outcome(
        core.Result.WIN,
        (0,),
        "Jarl's Victory: Player 1 wins (the victory passed Player 2 -> Player 3 -> Player 4 -> Player 1).",
    )
    assert GAME.reveals(state, Vote(False), state)


def test_a_circle_of_heirs_is_a_coalition_that_shares_a_thegns_victory() -> None:
    state, events = _third_thing(_rows(h1=2, h2=3, h3=0, h0=2), coin_on_top=True)
    # Player 1's Heir is Player 3, already in the chain: Players 3, 4 and 1 form the circle and
    # Player 2, whose victory was stolen, is not in it.
    assert (state.victory, state.chain, state.winners) == (THEGN, (1, 2, 3, 0), (0, 2, 3))
    assert _said(events)[-2:] == [
        (
            "COALITION",
            "A complete circle of Heirs forms a Coalition: Player 3, Player 4, Player 1.",
            2,
            _d(0, (), (2, 3, 0)),
        ),
        ("GAME_WON", "Player 1, Player 3, Player 4 won.", 0, _d(0, (), (0, 2, 3))),
    ]


def test_a_jarl_coalition_goes_to_the_member_with_the_biggest_house() -> None:
    rows = _rows(h1=2, h2=1)
    state, events = _third_thing(rows, coin_on_top=False)
    assert (state.victory, state.chain, state.winners) == (JARL, (1, 2), (1,))
    assert _said(events)[-2] == (
        "COALITION",
        "A complete circle of Heirs forms a Coalition: Player 2, Player 3.",
        1,
        _d(0, (), (1, 2)),
    )
    rows[2][0] += 1  # Player 3's House now holds more stones
    state, _ = _third_thing(rows, coin_on_top=False)
    assert state.winners == (2,)
    thegn, events = _third_thing(_rows(h1=2, h2=1), coin_on_top=True)
    assert thegn.winners == (1, 2)
    assert GAME.outcome(thegn) == core.Outcome(
        core.Result.WIN,
        (1, 2),
        "Thegn's Victory: Player 2, Player 3 win as a Coalition (the victory passed Player 2 -> Player 3).",
    )
    assert _said(events)[-1] == ("GAME_WON", "Player 2, Player 3 won.", 1, _d(0, (), (1, 2)))


def test_an_owner_choosing_themself_keeps_the_victory() -> None:
    rows = _rows()
    rows[1][2] = 3  # a tie in Player 2's House between Player 2 and Player 3
    state, _ = _third_thing(rows, coin_on_top=False)
    assert state.phase is Phase.HEIR and GAME.legal_moves(state) == [ChooseHeir(1), ChooseHeir(2)]
    assert GAME.to_act(state) == core.ToAct((1,), False)
    kept, events = play(state, ChooseHeir(1))
    assert kept.winners == (1,) and _said(events) == [("GAME_WON", "Player 2 won.", 1, _d(0, (), (1,)))]
    stolen, events = play(state, ChooseHeir(2))
    assert stolen.winners == (2,) and events[0].kind == "HEIR"


# --------------------------------------------------------------------------- moves and views


def test_the_listed_moves_of_each_decision_in_order() -> None:
    assert GAME.legal_moves(START) == [
        AskBlessing(0),
        *[Gather(1, k) for k in range(1, 9)],
        AskBlessing(2),
        Roll(),
    ]
    assert GAME.legal_moves(START._replace(gathered=2, asked=1)) == [AskBlessing(2), Roll()]
    limited = START._replace(options=Options(gathering_limited_by_dice=True), moved=3)
    assert GAME.legal_moves(limited) == [AskBlessing(0), Gather(1, 1), Gather(1, 2), AskBlessing(2), Roll()]
    assert GAME.legal_moves(limited._replace(moved=5)) == [Roll()]
    asked = START._replace(phase=Phase.BLESSING, actor=2, blessing=2, asked=4)
    assert GAME.legal_moves(asked) == (Bless(True), Bless(False))
    favour = START._replace(phase=Phase.FEAST_FAVOUR, dice=(2, 2), pairs=1)
    assert GAME.legal_moves(favour) == [
        *[ChangeStanding(i) for i in range(4)],
        *[AnnounceLoyalty(s, k) for s in range(4) for k in range(2)],
    ]
    send = START._replace(phase=Phase.FEAST_SEND, dice=(2, 2), pairs=1)
    assert GAME.legal_moves(send) == [SendStone(c, h) for c in range(4) for h in (0, 2, 3)]
    choose = START._replace(phase=Phase.LEVERAGE_CHOOSE, dice=(2, 5), coins=coins(START, s1=(True, True)))
    assert GAME.legal_moves(choose) == [
        ChooseBowl(2, KNIGHT),
        ChooseBowl(3, BISHOP),
        ChooseBowl(PAWN_BOWL, PAWN),
        ChooseBowl(KING_BOWL, KING),
    ]
    assert GAME.legal_moves(choose._replace(chosen=((KING_BOWL, KING),))) == [
        ChooseBowl(2, KNIGHT),
        ChooseBowl(3, BISHOP),
        ChooseBowl(PAWN_BOWL, PAWN),
    ]
    king = resolving(START, KING, 2)
    assert GAME.legal_moves(king) == [PlaceRunestone(x, c) for x in range(4, 8) for c in range(4)]
    rook = resolving(START, ROOK, 2)
    assert GAME.legal_moves(rook) == [PlaceDie(s) for s in range(5, REFERENCE.spaces)]
    knight = resolving(START, KNIGHT, 2)
    assert GAME.legal_moves(knight) == [RemoveDie(0), RemoveDie(2)]
    pawn = resolving(START, PAWN, 2)
    assert GAME.legal_moves(pawn) == [MovePawn(0), MovePawn(1), MovePawn(2)]
    vote = START._replace(phase=Phase.THING_VOTE, thing_pending=True)
    assert GAME.legal_moves(vote) == (Vote(True), Vote(False))
    assert GAME.to_act(vote) == core.ToAct((1,), False)


def test_a_view_hides_the_rng_and_other_houses_and_a_sent_stone_is_shown_only_to_its_two_seats() -> None:
    view = GAME.view(START, 2)
    assert view.rng == Rng(bytes(32), 0)
    assert view.houses == ((), (), START.houses[2], ()) and view.sizes == (-1, -1, 15, -1)
    sent = Event(
        "STONE_SENT",
        "Player 2 sent a stone to Player 3's House.",
        1,
        EventDetail(1, (1,), (2,), True, (1, 2)),
    )
    assert GAME.view_event(sent, 1) is sent and GAME.view_event(sent, 2) is sent
    assert GAME.view_event(sent, 0) == Event(sent.kind, sent.text, 1, EventDetail(1, (), (2,), True, ()))
    public = Event("STONES_GATHERED", "x", 1, EventDetail(3, (1,)))
    assert GAME.view_event(public, 0) is public
    assert GAME.view_move(SendStone(1, 2), 1, 0) == SendStone(-1, 2)
    assert GAME.view_move(Gather(1, 2), 1, 0) == Gather(1, 2)
    after, _ = play(START, Gather(1, 1))
    assert not GAME.reveals(START, Gather(1, 1), after)
    assert GAME.reveals(START, PlaceStone(1), after) and GAME.reveals(START, PlaceRunestone(0, 1), after)
    assert GAME.reveals(START, ChooseHeir(1), after)


def test_every_move_is_frozen_with_slots() -> None:
    import dataclasses
    import typing

    from lawspeaker.games.pax_penning import Move

    for kind in typing.get_args(Move):
        params = kind.__dataclass_params__
        assert params.frozen and "__slots__" in kind.__dict__, kind
        assert dataclasses.is_dataclass(kind)


WAITING = {
    Phase.SETUP_MARKET: "the market pieces are being placed at random",
    Phase.SETUP_COINS: "the starting coins are being placed with a random side up",
    Phase.SETUP_HIERARCHY: "the Hierarchy is being filled in a random order",
    Phase.SETUP_ROADBLOCK_ROLL: "the last player in the Hierarchy rolls the first roadblock die",
    Phase.SETUP_ROADBLOCK_PLACE: "the first roadblock die is placed on an empty road space",
    Phase.SETUP_SIGTUNA: "a setup stone is placed in Sigtuna",
    Phase.SETUP_SEND: "a setup stone is placed in another player's House",
    Phase.SETUP_RUNESTONE: "a setup runestone is placed on an empty crossroads",
    Phase.SETUP_DIE_ROLL: "a player rolls a die to place on a road",
    Phase.SETUP_DIE_PLACE: "the rolled die is placed on an empty road space",
    Phase.GATHER: GATHER_WAIT,
    Phase.BLESSING: "the asked player gives or refuses their blessing",
    Phase.GATHER_BLESSED: "the blessed player's stones are moved",
    Phase.ROLL: "the dice pool is being rolled",
    Phase.FEAST_SEND: "a pair moves 1 stone from your House to another player's House",
    Phase.FEAST_FAVOUR: "a pair gives a Change Standing or an Announce Loyalty",
    Phase.LEVERAGE_CHOOSE: "choose a market bowl",
    Phase.LEVERAGE_ASSIGN: "assign a die to a chosen piece",
    Phase.KING_RUNESTONE: "the King places a runestone",
    Phase.ROOK_PLACE: "the Rook places its die on an empty road space",
    Phase.KNIGHT_REMOVE: "the Knight removes a die from a road space",
    Phase.BISHOP_SEND: "the Bishop moves stones to another player's House",
    Phase.PAWN_CHOOSE: "choose the pawn that walks",
    Phase.PAY_STONE: "a player places 1 stone from their House in Sigtuna",
    Phase.PAWN_RETURN: "the pawn returns to a starting star",
    Phase.THING_VOTE: "the Thing votes on supporting royalty",
    Phase.THING_ROLL: "a supporter rolls 1 die",
    Phase.THING_COINS: "the Vikings come home with coins",
    Phase.HEIR: "a House owner breaks a tie for their Heir",
    Phase.OVER: "the game is over",
}

#: One move of every kind, and the steps where that kind of move belongs.
KINDS: list[tuple[Any, set[Phase]]] = [
    (Gather(9, 1), {Phase.GATHER, Phase.GATHER_BLESSED}),
    (AskBlessing(9), {Phase.GATHER}),
    (Roll(), {Phase.GATHER}),
    (Bless(True), {Phase.BLESSING}),
    (SendStone(9, 0), {Phase.FEAST_SEND, Phase.BISHOP_SEND, Phase.SETUP_SEND}),
    (ChangeStanding(9), {Phase.FEAST_FAVOUR}),
    (AnnounceLoyalty(9, 0), {Phase.FEAST_FAVOUR}),
    (ChooseBowl(9, PAWN), {Phase.LEVERAGE_CHOOSE}),
    (Resolve(9, 1), {Phase.LEVERAGE_ASSIGN}),
    (PlaceRunestone(9, 0), {Phase.KING_RUNESTONE, Phase.SETUP_RUNESTONE}),
    (PlaceDie(99), {Phase.ROOK_PLACE, Phase.SETUP_ROADBLOCK_PLACE, Phase.SETUP_DIE_PLACE}),
    (RemoveDie(99), {Phase.KNIGHT_REMOVE}),
    (MovePawn(9), {Phase.PAWN_CHOOSE}),
    (PlaceStone(9), {Phase.PAY_STONE, Phase.SETUP_SIGTUNA}),
    (ReturnPawn(9), {Phase.PAWN_RETURN}),
    (Vote(True), {Phase.THING_VOTE}),
    (ChooseHeir(9), {Phase.HEIR}),
]


def test_a_move_of_another_step_is_refused_naming_what_the_game_waits_for() -> None:
    """Every step names what it waits for, word for word; each kind of move belongs to its steps only."""
    assert set(WAITING) == set(Phase)
    for phase, waiting in WAITING.items():
        state = START._replace(phase=phase)
        for move, phases in KINDS:
            violation = GAME.explain(state, move)
            if phase in phases:
                assert violation.reason not in ("WRONG_STEP", "NOT_A_CHANCE_STEP"), (phase, move)
            else:
                assert violation == Violation(
                    "WRONG_STEP", f"That move is not part of this step: {waiting}.", "move"
                ), (phase, move)
        if not GAME.to_act(state).chance:
            assert GAME.explain(state, Draw(1)) == Violation(
                "NOT_A_CHANCE_STEP", f"Nothing is drawn now: {waiting}.", "draw"
            )
    chance = {p for p in Phase if GAME.to_act(START._replace(phase=p)).chance}
    assert chance == {
        Phase.SETUP_MARKET,
        Phase.SETUP_COINS,
        Phase.SETUP_HIERARCHY,
        Phase.SETUP_ROADBLOCK_ROLL,
        Phase.SETUP_DIE_ROLL,
        Phase.ROLL,
        Phase.THING_ROLL,
        Phase.THING_COINS,
    }
