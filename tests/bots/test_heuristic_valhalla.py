"""The greedy bot's value of a Valhalla position (lawspeaker.bots.heuristics.valhalla): exact at the end of
the game, within [0, 1] everywhere, ordered as a player would order a few positions, and good enough
that a one-ply greedy player beats a uniformly random one from either seat. Deterministic: every game
is seeded."""

from __future__ import annotations

import dataclasses
import random

import pytest

from lawspeaker.bots.heuristics.valhalla import value
from lawspeaker.games.core import Rng
from lawspeaker.games.valhalla import (
    GAME,
    GATE,
    REPAIR_YARD,
    SHIPS,
    Move,
    MoveShip,
    Options,
    Phase,
    Scoring,
    Start,
    State,
    Sticks,
    score,
)

DEFAULTS = Options()
#: The option sets the range test plays: the defaults, the enter start, and traditional scoring with
#: doubles (another distribution of points a turn).
OPTION_SETS = (
    Options(),
    Options(start=Start.ENTER),
    Options(scoring=Scoring.TRADITIONAL, doubles=True),
)
#: Two natural points (Sowulo and Tiewaz heads up), and a natural one (Sowulo alone).
TWO = Sticks(True, True, False, False)
ONE = Sticks(True, False, False, False)


def _seen(state: State, seat: int) -> float:
    return value(GAME.view(state, seat), seat)


def _greedy_move(state: State, seat: int, rng: random.Random) -> Move:
    """The one-ply greedy player: the move whose next position, as the seat sees it, is worth most;
    ties broken by ``rng``."""
    best: list[Move] = []
    best_value = -1.0
    for move in GAME.legal_moves(state):
        after, _ = GAME.apply(state, move)
        v = value(GAME.view(after, seat), seat)
        if v > best_value + 1e-12:
            best, best_value = [move], v
        elif v >= best_value - 1e-12:
            best.append(move)
    return rng.choice(best)


def _play(seed: int, greedy: int | None, options: Options = DEFAULTS) -> tuple[State, list[State]]:
    """A game from ``seed``: seat ``greedy`` (if any) plays greedy, the other uniformly at random;
    chance steps are the server's draws. Returns the end and every position on the way."""
    rng = random.Random(seed)
    state = GAME.new_game(2, options, Rng.from_seed(seed))
    states = [state]
    while GAME.outcome(state) is None:
        if GAME.chance(state) is not None:
            move = GAME.legal_moves(state)[0]
        elif state.turn == greedy:
            move = _greedy_move(state, state.turn, rng)
        else:
            move = rng.choice(list(GAME.legal_moves(state)))
        state, _ = GAME.apply(state, move)
        states.append(state)
    return state, states


def _position(
    light: tuple[int, ...],
    dark: tuple[int, ...],
    phase: Phase = Phase.CAST,
    cast: Sticks | None = None,
    repair: tuple[bool, ...] = (False,) * (2 * SHIPS),
) -> State:
    """A checked position with colours chosen (seat 1 sails dark) and light (seat 0) on turn: to cast,
    or with ``cast`` in hand to move."""
    base = GAME.new_game(2, Options(), Rng.from_seed(1))
    points = 0 if cast is None else score(cast, base.options)[0]
    state = dataclasses.replace(
        base,
        phase=phase,
        dark_seat=1,
        turn=0,
        positions=light + dark,
        repair=repair,
        cast=cast,
        points=points,
        ply=10,
    )
    assert GAME.check_state(state) == []
    return state


def _after(state: State, move: MoveShip) -> float:
    """What the seat on turn makes of ``move`` (which must be legal)."""
    assert move in GAME.legal_moves(state)
    seat = state.turn
    after, _ = GAME.apply(state, move)
    return _seen(after, seat)


# --------------------------------------------------------------------------- the end of the game


def test_a_finished_game_is_worth_one_to_its_winner_and_nothing_to_the_loser() -> None:
    for seed in range(3):
        end, _ = _play(seed, greedy=None)
        outcome = GAME.outcome(end)
        assert outcome is not None
        for seat in (0, 1):
            want = 1 / len(outcome.winners) if seat in outcome.winners else 0.0
            assert _seen(end, seat) == want


def test_the_value_counts_each_of_k_winners_one_kth() -> None:
    # Valhalla always has one winner; the value reads the outcome's winners, so it is exact for any.
    end, _ = _play(4, greedy=None)
    outcome = GAME.outcome(end)
    assert outcome is not None and len(outcome.winners) == 1
    assert sorted(_seen(end, seat) for seat in (0, 1)) == [0.0, 1.0]


# --------------------------------------------------------------------------- everywhere in [0, 1]


@pytest.mark.parametrize("options", OPTION_SETS, ids=["default", "enter", "traditional-doubles"])
def test_values_stay_between_zero_and_one_and_the_two_seats_share_one(options: Options) -> None:
    _, states = _play(100, greedy=None, options=options)
    assert len(states) > 300
    for state in states[:-1:5]:
        v0, v1 = _seen(state, 0), _seen(state, 1)
        assert 0.0 <= v0 <= 1.0 and 0.0 <= v1 <= 1.0
        assert v0 + v1 == pytest.approx(1.0)


def test_before_colours_are_chosen_the_value_is_a_blend_of_both_colours() -> None:
    start = GAME.new_game(2, Options(), Rng.from_seed(3))
    assert start.dark_seat == -1
    v0, v1 = _seen(start, 0), _seen(start, 1)
    assert 0.0 < v0 < 1.0 and v0 + v1 == pytest.approx(1.0)


# --------------------------------------------------------------------------- hand-checked orderings

LIGHT_MID = (14, 16, 18, 20, 22, 24)
DARK_MID = (13, 15, 17, 21, 23, 25)


def test_sailing_further_is_worth_more() -> None:
    base = _position(LIGHT_MID, DARK_MID)
    ahead = _position((14, 16, 18, 20, 22, 28), DARK_MID)
    assert _seen(ahead, 0) > _seen(base, 0)
    assert _seen(ahead, 1) < _seen(base, 1)


def test_a_fleet_nearly_home_against_one_still_in_row_one_is_nearly_won() -> None:
    state = _position((GATE,) * 5 + (35,), (1, 2, 3, 7, 8, 9))
    assert _seen(state, 0) > 0.95


def test_a_ship_under_repair_is_worth_less_than_the_same_ship_free() -> None:
    light = (14, 16, REPAIR_YARD, 20, 22, 24)
    free = _position(light, DARK_MID)
    repair = tuple(i == 2 for i in range(2 * SHIPS))
    stuck = _position(light, DARK_MID, repair=repair)
    assert _seen(stuck, 0) < _seen(free, 0)


def test_a_hit_is_worth_more_than_a_plain_move_of_the_same_length() -> None:
    # Light casts 2: ship 1 from 14 can land on dark's 16 (a swap), or ship 2 sail from 18 to 20.
    state = _position((14, 18, 22, 25, 27, 33), (13, 16, 17, 21, 23, 31), phase=Phase.MOVE, cast=TWO)
    assert _after(state, MoveShip(1, 16)) > _after(state, MoveShip(2, 20))


def test_running_aground_on_the_rocky_shoal_is_worse_than_a_plain_move() -> None:
    # Light casts 2: ship 6 from 28 would land on the shoal (30); ship 1 sails 14 -> 16 instead.
    state = _position((14, 18, 20, 22, 24, 28), (13, 15, 17, 21, 23, 31), phase=Phase.MOVE, cast=TWO)
    assert _after(state, MoveShip(1, 16)) > _after(state, MoveShip(6, 30))


def test_a_ship_in_a_blockade_is_worth_more_than_one_left_open_to_a_hit() -> None:
    # Light casts 1: ship 5 from 25 closes up to 26 beside ship 6 on 27 (a blockade of two), or ship 3
    # sails 18 -> 19 and leaves 25 and 27 open to dark's ships behind them on 21, 23 and 24.
    state = _position((14, 16, 18, 22, 25, 27), (13, 15, 17, 21, 23, 24), phase=Phase.MOVE, cast=ONE)
    assert _after(state, MoveShip(5, 26)) > _after(state, MoveShip(3, 19))


# --------------------------------------------------------------------------- greedy beats random

GAMES_PER_SEAT = 20
#: 80% of the games; a random player against a random one wins about half.
WINS_NEEDED = 16


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("options", [DEFAULTS, Options(start=Start.ENTER)], ids=["layout", "enter"])
def test_a_greedy_player_beats_a_random_one_from_either_seat(seat: int, options: Options) -> None:
    # Measured on these seeds: 18 and 20 of 20 (layout start, seats 0 and 1), 20 and 19 (enter start).
    wins = 0
    for game in range(GAMES_PER_SEAT):
        end, _ = _play(1000 * seat + game, greedy=seat, options=options)
        outcome = GAME.outcome(end)
        assert outcome is not None
        wins += seat in outcome.winners
    assert wins >= WINS_NEEDED, f"greedy won {wins} of {GAMES_PER_SEAT} from seat {seat}"
