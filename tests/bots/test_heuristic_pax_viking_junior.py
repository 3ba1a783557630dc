"""The greedy bot's value function for Pax Viking Junior (lawspeaker.bots.heuristics.pax_viking_junior):
1/0 on finished games, within [0, 1] everywhere, hand-checked orderings, and a one-ply greedy player
built on it beating a uniformly random player from every seat. Deterministic: everything is seeded."""

from __future__ import annotations

import random

import pytest

from lawspeaker.bots.heuristics.pax_viking_junior import value
from lawspeaker.games.core import Rng
from lawspeaker.games.pax_viking_junior import (
    GAME,
    REFERENCE,
    DrawTiles,
    Journey,
    Move,
    Options,
    Phase,
    PlaceKittens,
    SkipDraw,
    State,
)

BOARDS = ("bygul", "huginn", "munin", "sleipnir", "saehrimnir", "trjegul")


def _options(players: int) -> Options:
    return Options(seat_boards=BOARDS[:players], starting_seat=0)


def _random_game(players: int, seed: int, plies: int = 10_000) -> list[State]:
    """The states of a seeded uniformly random game (at most ``plies`` moves)."""
    rng = random.Random(seed)
    state = GAME.new_game(players, Options(), Rng.from_seed(seed))
    states = [state]
    for _ in range(plies):
        if GAME.outcome(state) is not None:
            break
        state, _ = GAME.apply(state, rng.choice(list(GAME.legal_moves(state))))
        states.append(state)
    return states


def _seen(state: State, seat: int) -> float:
    return value(GAME.view(state, seat), seat)


# --------------------------------------------------------------------------- finished games and range


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_finished_game_is_worth_1_to_its_winner_and_0_to_the_others(players: int) -> None:
    for seed in range(3):
        state = _random_game(players, seed)[-1]
        outcome = GAME.outcome(state)
        assert outcome is not None
        for seat in range(players):
            want = 1.0 / len(outcome.winners) if seat in outcome.winners else 0.0
            assert _seen(state, seat) == want


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_values_lie_between_0_and_1_over_random_play(players: int) -> None:
    for seed in range(2):
        for state in _random_game(players, 100 + seed)[::3]:
            for seat in range(players):
                v = _seen(state, seat)
                assert 0.0 <= v <= 1.0, (seed, state.ply, seat, v)
                # the hidden order of the lid and the decks (the RNG) changes nothing
                assert value(state._replace(rng=Rng.from_seed(seed + 1)), seat) == v


# --------------------------------------------------------------------------- hand-checked orderings


def _first_turn(players: int = 2, seed: int = 7) -> State:
    """The first JOURNEY of seat 0 after setup, boards Bygul, Huginn, ... and seat 0 starting."""
    state = GAME.new_game(players, _options(players), Rng.from_seed(seed))
    while state.phase is not Phase.JOURNEY:
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    return state


def _give(state: State, seat: int, region: int, tiles: tuple[int, ...]) -> State:
    """``seat`` befriends the (empty) land region with these tiles from the lid and one Kitten."""
    lid = list(state.lid)
    for t in tiles:
        lid[t] -= 1
    row = tuple(1 if s == seat else 0 for s in range(state.players))
    left = tuple(k - 1 if s == seat else k for s, k in enumerate(state.kittens_left))
    new = state._replace(
        lid=tuple(lid),
        tiles=(*state.tiles[:region], tiles, *state.tiles[region + 1 :]),
        kittens=(*state.kittens[:region], row, *state.kittens[region + 1 :]),
        friends=(*state.friends[:region], seat, *state.friends[region + 1 :]),
        kittens_left=left,
    )
    assert GAME.check_state(new) == []
    return new


def _free_region(state: State, near: int = -1) -> int:
    """A land region with no tile and no Cats (with ``near``: 1 to 3 steps from that region)."""
    return next(
        r
        for r in REFERENCE.land_regions
        if not state.tiles[r]
        and not any(state.kittens[r])
        and state.big_cats[r] < 0
        and (near < 0 or 1 <= REFERENCE.dist[near][r] <= 3)
    )


def _tile(animal: int, count: int = 1) -> int:
    """The first tile kind showing ``count`` of the animal."""
    return next(
        t
        for t in range(REFERENCE.tiles)
        if REFERENCE.tile_animal[t] == animal and REFERENCE.tile_count[t] == count
    )


def test_more_silfr_is_better_and_a_rich_rival_is_worse() -> None:
    state = _first_turn()
    base = _seen(state, 1)
    assert _seen(state._replace(silfr=(0, 9)), 1) > base
    assert _seen(state._replace(silfr=(9, 0)), 1) < base


def test_befriending_the_animals_a_card_asks_for_is_better_than_other_animals() -> None:
    state = _first_turn()
    green = next(c for c in state.cards if REFERENCE.card_colour[c] == "green")
    wanted = [a for a, w in enumerate(REFERENCE.card_animals[green]) if w]
    kinds = range(len(REFERENCE.animal_ids))
    unwanted = [a for a in kinds if not any(REFERENCE.card_animals[c][a] for c in state.cards)]
    assert unwanted, "seed 7 lays out no card asking for Horses"
    region = _free_region(state)
    useful = _give(state, 1, region, (_tile(wanted[0]), _tile(wanted[1])))
    useless = _give(state, 1, region, (_tile(unwanted[0]), _tile(unwanted[0])))
    assert _seen(useful, 1) > _seen(useless, 1) > 0.0
    # the same animals are worth the opposite to the rival
    rivals = _give(state, 0, region, (_tile(wanted[0]), _tile(wanted[1])))
    assert _seen(rivals, 1) < _seen(state, 1) < _seen(useful, 1)


def test_a_big_cat_makes_a_friendship_a_rival_could_steal_worth_more() -> None:
    state = _first_turn()
    green = next(c for c in state.cards if REFERENCE.card_colour[c] == "green")
    wanted = [a for a, w in enumerate(REFERENCE.card_animals[green]) if w]
    near = _free_region(state, near=state.ships[0])  # seat 0 can sail there with a Big Cat left
    held = _give(state, 1, near, (_tile(wanted[0]), _tile(wanted[1])))
    guarded = held._replace(
        kittens=(*held.kittens[:near], (0, 0), *held.kittens[near + 1 :]),
        big_cats=(*held.big_cats[:near], 1, *held.big_cats[near + 1 :]),
        kittens_left=(held.kittens_left[0], held.kittens_left[1] + 1),
        big_cats_left=(held.big_cats_left[0], held.big_cats_left[1] - 1),
    )
    assert GAME.check_state(guarded) == []
    assert _seen(guarded, 1) > _seen(held, 1)


def test_drawing_beats_skipping_and_a_paid_tile_beats_no_cats() -> None:
    start = _first_turn()
    empty = next(m for m in GAME.legal_moves(start) if isinstance(m, Journey) and not start.tiles[m.region])
    state = GAME.apply(start, empty)[0]
    assert state.phase is Phase.DRAW_OFFER
    drawing = GAME.apply(state, DrawTiles(2))[0]
    skipping = GAME.apply(state, SkipDraw())[0]
    assert _seen(drawing, 0) > _seen(skipping, 0)
    while drawing.phase is Phase.DRAWING:
        drawing = GAME.apply(drawing, GAME.legal_moves(drawing)[0])[0]
    placed = GAME.apply(drawing, GAME.legal_moves(drawing)[0])[0]
    assert placed.phase is Phase.PLACE_CATS and placed.placed >= 0
    with_kitten = GAME.apply(placed, PlaceKittens(1))[0]
    without = GAME.apply(placed, PlaceKittens(0))[0]
    assert _seen(with_kitten, 0) > _seen(without, 0)


# --------------------------------------------------------------------------- greedy against random


def _greedy(state: State, seat: int, rng: random.Random) -> Move:
    """One ply: the legal move whose next state (as the seat sees it) is worth the most; ties by rng."""
    best: list[Move] = []
    top = -1.0
    for move in GAME.legal_moves(state):
        v = _seen(GAME.apply(state, move)[0], seat)
        if v > top + 1e-12:
            best, top = [move], v
        elif v >= top - 1e-12:
            best.append(move)
    return rng.choice(best)


def _winner(players: int, greedy_seat: int, seed: int) -> int:
    rng = random.Random(seed)
    state = GAME.new_game(players, Options(), Rng.from_seed(seed))
    while GAME.outcome(state) is None:
        if GAME.to_act(state).chance:
            move = GAME.legal_moves(state)[0]  # Draw(): the server's draw
        elif state.actor == greedy_seat:
            move = _greedy(state, greedy_seat, rng)
        else:
            move = rng.choice(list(GAME.legal_moves(state)))
        state = GAME.apply(state, move)[0]
    return state.winner


@pytest.mark.parametrize("seat", [0, 1])
def test_greedy_beats_random_in_two_player_games_from_either_seat(seat: int) -> None:
    wins = sum(_winner(2, seat, seed) == seat for seed in range(10))
    assert wins >= 8, wins  # measured: 9 from seat 0, 10 from seat 1


@pytest.mark.parametrize(("players", "seeds", "least"), [(4, (1000, 2000, 3000), 8), (6, (1000, 2000), 6)])
def test_greedy_comes_first_far_more_often_than_random_seats(
    players: int, seeds: tuple[int, ...], least: int
) -> None:
    """From every seat in turn; random seats would come first in 1/players of the games (3 of 12 at
    4 players, 2 of 12 at 6). Measured: 12 of 12 both."""
    wins = sum(_winner(players, seat, base + seat) == seat for seat in range(players) for base in seeds)
    assert wins >= least, wins
