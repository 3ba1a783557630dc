"""Rule-scenario tests for the Penki engine: one test per rule of the rulebook.

Every test quotes, in its docstring, the rulebook sentence it enforces
(``shared/rulebooks/penki.txt``); a test of a reading the rulebook leaves open also names the
engine's assumption id (``lawspeaker.games.penki.ASSUMPTIONS``). ``docs/rules/penki.md`` maps each
rule to these tests.

Positions are built with :func:`position` from a list of tiles ``(x, y, pieces)``: ``pieces`` is
``""`` for an empty tile, two letters of ``L``/``D``/``J`` for a filled one (first cavity first) or
``"??"`` for filler pieces that form no row. Pieces not on the board or named in a hand go, paired,
to the hands (the unnamed seat first), so every position holds exactly the 56 pieces.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from math import comb

import pytest
from google.protobuf import json_format

from lawspeaker.api.rules import RulesApi
from lawspeaker.games import core
from lawspeaker.games.core import Event, Rng
from lawspeaker.games.penki import (
    ASSUMPTIONS,
    COMPONENTS,
    DARK,
    GAME,
    JOKER,
    KIND_OF,
    LIGHT,
    PAIR_KINDS,
    Alignment,
    ConnectTile,
    Draw,
    Move,
    Options,
    Pass,
    Phase,
    PlacePair,
    Setup,
    State,
    Stuck,
    Tile,
    Tiles,
    make_state,
)
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire.codec.penki import CODEC

# --------------------------------------------------------------------------- helpers

L, D, J = LIGHT, DARK, JOKER
LETTER = {"L": L, "D": D, "J": J}
UPRIGHT = Options(tiles=Tiles.UPRIGHT_ALLOWED)  # the default reading (assumption TILE_ORIENTATION)
FLAT = Options(tiles=Tiles.HORIZONTAL_ONLY)  # the other reading: scenarios drawn for flat tiles
DEFAULT = Options()

TileSpec = tuple[int, int, str] | tuple[int, int, str, str]


def filler(x: int, y: int) -> int:
    """A piece pattern with no run longer than two in any direction."""
    return L if (x + 2 * y) % 4 < 2 else D


def pairs_of(text: str) -> list[tuple[int, int]]:
    return [(LETTER[p[0]], LETTER[p[1]]) for p in text.split()]


def position(
    tiles: Sequence[TileSpec],
    *,
    hands: dict[int, str] | None = None,
    turn: int = 0,
    options: Options | None = None,
    phase: Phase | None = None,
) -> State:
    """A valid state. Each tile is ``(x, y, pieces)`` or ``(x, y, pieces, "U")`` for upright.

    The phase defaults to PLAY, or CONNECT when every cavity is filled."""
    built = [Tile(0, 0)] if not tiles or tiles[0][:2] != (0, 0) else []
    for spec in tiles:
        x, y, text = spec[0], spec[1], spec[2]
        upright = len(spec) == 4
        t = Tile(x, y, upright)
        if text == "??":
            (x0, y0), (x1, y1) = t.cavities
            t = Tile(x, y, upright, filler(x0, y0), filler(x1, y1))
        elif text:
            t = Tile(x, y, upright, LETTER[text[0]], LETTER[text[1]])
        built.append(t)
    counts = [0] * 6
    hand_counts = [[0] * 6, [0] * 6]
    left = [24, 24, 8]
    for t in built:
        if t.filled:
            left[t.first] -= 1
            left[t.second] -= 1
    for seat, text in (hands or {}).items():
        for pair in pairs_of(text):
            hand_counts[seat][KIND_OF[pair]] += 1
            left[pair[0]] -= 1
            left[pair[1]] -= 1
    assert min(left) >= 0, left
    rest = [p for p in (L, D, J) for _ in range(left[p])]
    named = set(hands or {})
    order = [s for s in (0, 1) if s not in named] + [s for s in (0, 1) if s in named]
    for k in range(0, len(rest), 2):
        seat = next(s for s in order if sum(hand_counts[s]) < 14)
        hand_counts[seat][KIND_OF[(rest[k], rest[k + 1])]] += 1
    del counts
    if phase is None:
        phase = Phase.CONNECT if all(t.filled for t in built) else Phase.PLAY
    state = make_state(
        options or FLAT,
        phase,
        turn,
        (0, 0, 0),
        (tuple(hand_counts[0]), tuple(hand_counts[1])),
        tuple(built),
        -1,
        40,
        Rng.from_seed(5),
    )
    assert GAME.check_state(state) == [], GAME.check_state(state)
    return state


def play(state: State, move: Move) -> tuple[State, list[Event]]:
    """Apply a legal move through the shared core; the new state must be valid."""
    assert core.validate(GAME, state, move) is None, core.validate(GAME, state, move)
    new_state, events = core.apply(GAME, state, move)
    assert GAME.check_state(new_state) == [], GAME.check_state(new_state)
    return new_state, events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def refused(state: State, move: Move, reason: str, *words: str) -> str:
    """Assert ``move`` is refused for ``reason`` with a readable sentence naming ``words``."""
    assert move not in GAME.legal_moves(state)
    violation = core.validate(GAME, state, move)
    assert violation is not None, f"{move} should be refused"
    assert violation.reason == reason, violation
    message = violation.message
    assert message[0].isupper() and message.endswith("."), message
    for word in words:
        assert word in message, (word, message)
    with pytest.raises(core.IllegalMove) as raised:
        core.apply(GAME, state, move)
    assert raised.value.reason == reason
    return message


def connects(state: State) -> set[tuple[int, int, bool]]:
    return {(m.x, m.y, m.upright) for m in GAME.legal_moves(state) if isinstance(m, ConnectTile)}


def assumption(ident: str) -> None:
    assert ident in {a.id for a in ASSUMPTIONS}, ident


def random_states(options: Options = DEFAULT, seeds: range = range(200)) -> Iterator[State]:
    """Every state of seeded random playouts (deterministic)."""
    for seed in seeds:
        pick = random.Random(seed)
        state = GAME.new_game(2, options, Rng.from_seed(seed))
        yield state
        while GAME.outcome(state) is None:
            state, _ = GAME.apply(state, pick.choice(list(GAME.legal_moves(state))))
            yield state


def after_setup(seed: int = 1, options: Options = DEFAULT) -> State:
    state = GAME.new_game(2, options, Rng.from_seed(seed))
    while state.phase is Phase.DRAW:
        state, _ = play(state, Draw())
    return state


# --------------------------------------------------------------------------- setup


def test_the_bag_holds_56_pieces_24_per_colour_and_8_jokers() -> None:
    """ "56 playing pieces in 3 colours (24 per player, plus joker pieces)" "All playing pieces are
    placed in the bag." """
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    assert state.bag == (24, 24, 8)
    assert COMPONENTS["pieces"] == {"light": 24, "dark": 24, "joker": 8}
    assert state.hands == ((0,) * 6, (0,) * 6)
    assert state.phase is Phase.DRAW and GAME.to_act(state) == core.ToAct((0,), True)


def test_players_take_turns_drawing_two_pieces_as_a_pair_until_each_holds_14_pairs() -> None:
    """ "Taking turns, each player draws 2 pieces from the bag and places them immediately in front
    of them as a pair. Players continue drawing and placing pieces in this way until each player has
    14 pairs in front of them." (assumptions SEATS, DRAWING)"""
    assumption("DRAWING")
    assumption("SEATS")
    state = GAME.new_game(2, Options(), Rng.from_seed(2))
    for number in range(28):
        assert state.phase is Phase.DRAW
        assert state.turn == number % 2
        assert GAME.legal_moves(state) == (Draw(),)
        before = sum(state.bag)
        state, events = play(state, Draw())
        assert sum(state.bag) == before - 2
        assert events[0].kind == "PAIR_DRAWN" and events[0].player == number % 2
    assert kinds(events) == ["PAIR_DRAWN", "SETUP_FINISHED"]
    assert sum(state.hands[0]) == sum(state.hands[1]) == 14
    assert state.bag == (0, 0, 0)
    assert state.phase is Phase.PLAY and state.turn == 0


def test_a_draw_is_a_chance_step_with_the_odds_of_the_bag() -> None:
    """ "each player draws 2 pieces from the bag" — the pair drawn is a chance step whose outcomes
    are the unordered pairs, with the probabilities of drawing two pieces from the bag."""
    state = GAME.new_game(2, Options(), Rng.from_seed(3))
    chance = GAME.chance(state)
    assert chance is not None
    odds = {o.move: o.probability for o in chance.outcomes}
    total = comb(56, 2)
    assert odds[Draw((L, L))] == pytest.approx(comb(24, 2) / total)
    assert odds[Draw((L, D))] == pytest.approx(24 * 24 / total)
    assert odds[Draw((D, J))] == pytest.approx(24 * 8 / total)
    assert odds[Draw((J, J))] == pytest.approx(comb(8, 2) / total)
    assert len(odds) == 6 and sum(odds.values()) == pytest.approx(1)
    # An explicit outcome forces the draw and leaves the RNG untouched.
    after, _ = play(state, Draw((J, J)))
    assert after.bag == (24, 24, 6) and after.hands[0][KIND_OF[(J, J)]] == 1 and after.rng == state.rng
    # A pair the bag cannot give, or named out of order, is refused.
    refused(state, Draw((D, L)), "PAIR_NOT_SORTED", "light+dark")
    no_jokers = after
    for _ in range(3):
        no_jokers, _ = play(no_jokers, Draw((J, J)))
    assert no_jokers.bag[J] == 0
    assert all(J not in (o.move.pair or ()) for o in (GAME.chance(no_jokers) or core.Chance("", ())).outcomes)  # type: ignore[union-attr]
    refused(no_jokers, Draw((L, J)), "NOT_IN_BAG", "light+joker")


def test_a_server_draw_comes_from_the_state_rng_deterministically() -> None:
    """ "All playing pieces are placed in the bag." — the server draws from the bag's counts with the
    state's RNG; the same state always draws the same pair."""
    state = GAME.new_game(2, Options(), Rng.from_seed(4))
    first, _ = play(state, Draw())
    second, _ = play(state, Draw())
    assert first == second and first.rng.counter > state.rng.counter


def test_the_faster_setup_deals_all_pairs_at_random_in_one_step() -> None:
    """ "If both players agree, they may also draw more than 2 pieces from the bag at a time and
    place them in pairs at random. This reduces setup time." (assumption RANDOM_PAIRS, option
    setup=PENKI_SETUP_RANDOM_PAIRS)"""
    assumption("RANDOM_PAIRS")
    options = Options(setup=Setup.RANDOM_PAIRS)
    state = GAME.new_game(2, options, Rng.from_seed(5))
    chance = GAME.chance(state)
    assert chance is not None and [o.move for o in chance.outcomes] == [Draw()]
    refused(state, Draw((L, L)), "DEAL_DRAWN_BY_SERVER")
    after, events = play(state, Draw())
    assert kinds(events) == ["PAIRS_DEALT"]
    assert sum(after.hands[0]) == sum(after.hands[1]) == 14 and after.bag == (0, 0, 0)
    assert after.phase is Phase.PLAY and after.turn == 0
    again, _ = play(GAME.new_game(2, options, Rng.from_seed(6)), Draw())
    assert again.hands != after.hands


def test_the_pairs_are_visible_to_both_players() -> None:
    """ "each player draws 2 pieces from the bag and places them immediately in front of them as a
    pair" — pairs lie open: every seat and spectators see the whole state."""
    state = after_setup(7)
    for seat in (None, 0, 1):
        assert GAME.view(state, seat) == state


def test_one_tile_starts_in_the_centre_and_27_form_the_supply() -> None:
    """ "To begin, place one wooden tile in the centre of the table. Its longest side represents the
    base line. The remaining 27 wooden tiles form the common supply." (assumption GRID)"""
    assumption("GRID")
    state = GAME.new_game(2, Options(), Rng.from_seed(8))
    assert state.tiles == (Tile(0, 0, False),)
    assert state.tiles[0].cavities == ((0, 0), (1, 0))
    assert state.supply == 27 and COMPONENTS["tiles"] == 28


def test_nothing_is_played_before_the_setup_is_finished_and_nothing_drawn_after() -> None:
    """ "Players continue drawing and placing pieces in this way until each player has 14 pairs in
    front of them." """
    state = GAME.new_game(2, Options(), Rng.from_seed(9))
    refused(state, ConnectTile(2, 0), "SETUP_NOT_FINISHED", "14 pairs")
    refused(state, PlacePair(0, 0, L, L), "SETUP_NOT_FINISHED")
    refused(after_setup(9), Draw(), "SETUP_FINISHED")


# --------------------------------------------------------------------------- a turn


def test_a_turn_is_connecting_a_tile_or_placing_a_pair() -> None:
    """ "On your turn, you must do one of the following: - connect a new wooden tile, or - place a
    pair of playing pieces in one wooden tile." """
    state = position([(0, 0, "")], hands={0: "LL LD JJ"})
    moves = set(GAME.legal_moves(state))
    assert moves == {
        ConnectTile(-2, 0),
        ConnectTile(2, 0),
        PlacePair(0, 0, L, L),
        PlacePair(0, 0, L, D),
        PlacePair(0, 0, D, L),
        PlacePair(0, 0, J, J),
    } | {
        m
        for m in moves
        if isinstance(m, PlacePair) and (m.first, m.second) not in {(L, L), (L, D), (D, L), (J, J)}
    }
    after, events = play(state, ConnectTile(2, 0))
    assert kinds(events) == ["TILE_CONNECTED"] and after.turn == 1 and after.supply == state.supply - 1
    after, events = play(state, PlacePair(0, 0, D, L))
    assert kinds(events) == ["PAIR_PLACED", "MUST_CONNECT_TILE"] and after.turn == 0
    assert after.tiles[0] == Tile(0, 0, False, D, L)
    assert after.hands[0][KIND_OF[(L, D)]] == state.hands[0][KIND_OF[(L, D)]] - 1


def test_passing_is_not_allowed() -> None:
    """ "Players take turns. It is not permitted to pass your turn." (assumption NO_PASS)"""
    assumption("NO_PASS")
    state = after_setup(10)
    assert Pass() not in GAME.legal_moves(state)
    refused(state, Pass(), "PASS_NOT_ALLOWED", "pass")


def test_both_orders_of_a_mixed_pair_are_distinct_moves() -> None:
    """ "places these two pieces into the cavities of one of the wooden tiles" — which piece goes into
    which cavity is the player's choice (assumption PAIR_IDENTITY)."""
    assumption("PAIR_IDENTITY")
    state = position([(0, 0, "")], hands={0: "LJ DD"})
    places = [m for m in GAME.legal_moves(state) if isinstance(m, PlacePair)]
    mine = [m for m in places if {m.first, m.second} <= {L, J, D}]
    assert PlacePair(0, 0, L, J) in mine and PlacePair(0, 0, J, L) in mine
    assert places.count(PlacePair(0, 0, D, D)) == 1
    assert len(places) == len(set(places))


def test_a_player_places_only_a_pair_in_front_of_them() -> None:
    """ "The player takes one of the pairs of playing pieces in front of them and places these two
    pieces into the cavities of one of the wooden tiles within the play area." """
    state = position([(0, 0, "")], hands={0: "LL"}, turn=0)
    held = {PAIR_KINDS[k] for k, n in enumerate(state.hands[0]) if n}
    missing = next(p for p in PAIR_KINDS if p not in held)
    refused(state, PlacePair(0, 0, *missing), "PAIR_NOT_HELD", "holds")


def test_a_pair_goes_into_an_empty_tile_of_the_play_area() -> None:
    """ "places these two pieces into the cavities of one of the wooden tiles within the play area" """
    state = position([(0, 0, "LD"), (2, 0, "")], hands={0: "LL"})
    refused(state, PlacePair(0, 0, L, L), "TILE_ALREADY_FILLED", "(0, 0)")
    refused(state, PlacePair(1, 0, L, L), "NO_SUCH_TILE", "(1, 0)")
    refused(state, PlacePair(6, 3, L, L), "NO_SUCH_TILE")
    play(state, PlacePair(2, 0, L, L))


# --------------------------------------------------------------------------- connecting a tile


def test_a_new_tile_must_be_connected_to_the_play_area() -> None:
    """ "New tiles must always be connected to the existing play area." (assumption CONNECTED)"""
    assumption("CONNECTED")
    state = position([(0, 0, "LD")])
    refused(state, ConnectTile(3, 0), "NOT_CONNECTED", "connected")
    refused(state, ConnectTile(-5, 0), "NOT_CONNECTED")
    refused(state, ConnectTile(0, 3), "NOT_CONNECTED")
    assert connects(state) == {(-2, 0, False), (2, 0, False), (0, 1, False)}


def test_illegal_tiles_not_connected_in_a_straight_line() -> None:
    """ "The tiles have to be connected to one another in a straight line." — a tile that meets the
    play area only at a corner is not (assumption STRAIGHT_LINE)."""
    assumption("STRAIGHT_LINE")
    state = position([(0, 0, "LD")])
    refused(state, ConnectTile(2, 1), "NOT_IN_STRAIGHT_LINE", "corner", "straight line")
    refused(state, ConnectTile(-2, 1), "NOT_IN_STRAIGHT_LINE")


def test_illegal_a_gap_between_the_tile_and_the_base_line() -> None:
    """ "There must never be a gap or an empty tile between the new tile and the base line." "There is
    a gap between the tile and the baseline. This gap first needs to be filled." (assumption
    REST_ON_FILLED)"""
    assumption("REST_ON_FILLED")
    state = position([(0, 0, "??"), (0, 1, "??"), (0, 2, "??"), (2, 0, "??")])
    # Beside the third storey, over nothing: (2, 1) and (3, 1) are missing.
    refused(state, ConnectTile(2, 2), "GAP_BELOW_TILE", "gap", "(2, 1)")
    # Half over the play area, half over nothing.
    refused(state, ConnectTile(3, 1), "GAP_BELOW_TILE", "(4, 0)")
    assert (2, 1, False) in connects(state)


def test_illegal_the_tile_below_is_not_yet_filled() -> None:
    """ "The tile below this tile has not yet been filled with playing pieces; therefore, you may not
    connect any tile here." (assumption REST_ON_FILLED)"""
    state = position([(0, 0, "??"), (2, 0, "")])
    refused(state, ConnectTile(2, 1), "TILE_BELOW_NOT_FILLED", "not yet been filled")
    refused(state, ConnectTile(1, 1), "TILE_BELOW_NOT_FILLED", "(2, 0)")
    assert (0, 1, False) in connects(state)


def test_illegal_the_maximum_width_of_9_is_exceeded() -> None:
    """ "The maximum width of the play area may not exceed 9 cavities." "The maximum width of 9
    recesses has been exceeded." (assumption WIDTH)"""
    assumption("WIDTH")
    state = position([(0, 0, "??"), (2, 0, "??"), (4, 0, "??"), (6, 0, "??")])
    refused(state, ConnectTile(8, 0), "MAX_WIDTH_EXCEEDED", "10 cavities", "9")
    refused(state, ConnectTile(-2, 0), "MAX_WIDTH_EXCEEDED")
    assert all(y > 0 for _, y, _ in connects(state))
    # With upright tiles (the default reading) the limit bites at exactly 9: one upright tile fits.
    upright = position([(0, 0, "??"), (2, 0, "??"), (4, 0, "??"), (6, 0, "??")], options=UPRIGHT)
    assert (8, 0, True) in connects(upright) and (-1, 0, True) in connects(upright)
    nine = position(
        [(0, 0, "??"), (2, 0, "??"), (4, 0, "??"), (6, 0, "??"), (8, 0, "??", "U")], options=UPRIGHT
    )
    refused(nine, ConnectTile(-1, 0, True), "MAX_WIDTH_EXCEEDED", "10 cavities", "9")


def test_illegal_a_tile_below_the_base_line() -> None:
    """ "Always watch the base line: no tile may be placed below it, or protrude beyond it." "The tile
    protrudes below the defined baseline." """
    state = position([(0, 0, "??")])
    refused(state, ConnectTile(0, -1), "BELOW_BASE_LINE", "base line")
    refused(state, ConnectTile(2, -1), "BELOW_BASE_LINE")
    refused(position([(0, 0, "??")], options=UPRIGHT), ConnectTile(2, -1, True), "BELOW_BASE_LINE")


def test_a_tile_cannot_cover_another_tile() -> None:
    """ "New tiles must always be connected to the existing play area." — next to it, not on it."""
    state = position([(0, 0, "??"), (2, 0, "")])
    refused(state, ConnectTile(1, 0), "SPACE_TAKEN", "cover")
    refused(state, ConnectTile(2, 0), "SPACE_TAKEN")


def test_no_tile_can_be_connected_from_an_empty_supply() -> None:
    """ "The remaining 27 wooden tiles form the common supply." — once they are all connected, no tile
    is left to connect."""
    state = next(s for s in random_states() if s.phase is Phase.PLAY and s.supply == 0)
    assert not connects(state)
    refused(state, ConnectTile(0, 20), "NO_TILES_LEFT", "supply")


def test_tiles_may_sit_one_cavity_off_the_tile_below_unless_the_option_says_otherwise() -> None:
    """ "The player must connect the wooden tile horizontally or vertically, so that the cavities are
    perfectly aligned." (assumption BRICK_OFFSET, option alignment=PENKI_ALIGNMENT_TILES)"""
    assumption("BRICK_OFFSET")
    tiles: list[TileSpec] = [(0, 0, "??"), (2, 0, "??")]
    brick = position(tiles)
    assert connects(brick) == {(-2, 0, False), (4, 0, False), (0, 1, False), (1, 1, False), (2, 1, False)}
    play(brick, ConnectTile(1, 1))
    stacked = position(tiles, options=Options(tiles=Tiles.HORIZONTAL_ONLY, alignment=Alignment.TILES))
    assert connects(stacked) == {(-2, 0, False), (4, 0, False), (0, 1, False), (2, 1, False)}
    refused(stacked, ConnectTile(1, 1), "NOT_IN_STRAIGHT_LINE", "one cavity off")


def test_tiles_lie_horizontally_unless_upright_tiles_are_allowed() -> None:
    """ "The player must connect the wooden tile horizontally or vertically" (assumption
    TILE_ORIENTATION, option tiles=PENKI_TILES_UPRIGHT_ALLOWED)"""
    assumption("TILE_ORIENTATION")
    refused(position([(0, 0, "??")]), ConnectTile(2, 0, True), "UPRIGHT_NOT_ALLOWED", "upright")
    state = position([(0, 0, "??")], options=UPRIGHT)
    assert {(-1, 0, True), (2, 0, True), (0, 1, True), (1, 1, True)} <= connects(state)
    after, _ = play(state, ConnectTile(2, 0, True))
    assert after.tiles[-1].cavities == ((2, 0), (2, 1))
    # The upright tile rests on its own lower cavity; nothing may rest on it while it is empty.
    refused(after, ConnectTile(2, 2, True), "TILE_BELOW_NOT_FILLED")


def test_with_upright_tiles_the_play_area_reaches_but_never_exceeds_9_cavities() -> None:
    """ "The maximum width of the play area may not exceed 9 cavities." (assumptions WIDTH,
    TILE_ORIENTATION)"""
    state = position([(0, 0, "??"), (2, 0, "??"), (4, 0, "??"), (6, 0, "??")], options=UPRIGHT)
    assert (8, 0, True) in connects(state) and (-1, 0, True) in connects(state)
    after, _ = play(state, ConnectTile(8, 0, True))
    after, _ = play(after, PlacePair(8, 0, *PAIR_KINDS[next(k for k, n in enumerate(after.hands[1]) if n)]))
    assert after.phase is Phase.CONNECT
    refused(after, ConnectTile(-1, 0, True), "MAX_WIDTH_EXCEEDED", "10 cavities")


# --------------------------------------------------------------------------- filling the last cavities


def test_filling_the_last_two_free_cavities_forces_a_tile_connection_in_the_same_turn() -> None:
    """ "If, with this move, the player fills the last two free cavities in the entire play area, they
    must immediately connect a new wooden tile, observing the placement rules. This is the only case
    that allows a player to place playing pieces and a tile in the same turn." (assumption
    FORCED_CONNECTION)"""
    assumption("FORCED_CONNECTION")
    state = position([(0, 0, "LD"), (2, 0, "")], hands={0: "LL"})
    after, events = play(state, PlacePair(2, 0, L, L))
    assert kinds(events) == ["PAIR_PLACED", "MUST_CONNECT_TILE"]
    assert after.phase is Phase.CONNECT and after.turn == 0
    moves = GAME.legal_moves(after)
    assert moves and all(isinstance(m, ConnectTile) for m in moves)
    assert set(moves) == {
        ConnectTile(-2, 0),
        ConnectTile(4, 0),
        ConnectTile(0, 1),
        ConnectTile(1, 1),
        ConnectTile(2, 1),
    }
    refused(after, PlacePair(0, 0, L, L), "MUST_CONNECT_TILE", "connect a new")
    refused(after, ConnectTile(5, 0), "NOT_CONNECTED")
    done, _ = play(after, ConnectTile(0, 1))
    assert done.phase is Phase.PLAY and done.turn == 1
    # Filling a tile while another is still empty passes the turn as usual.
    other = position([(0, 0, ""), (2, 0, "")], hands={0: "LL"})
    after, events = play(other, PlacePair(2, 0, L, L))
    assert kinds(events) == ["PAIR_PLACED"] and after.phase is Phase.PLAY and after.turn == 1


def test_filling_the_last_cavities_with_the_supply_empty_ends_the_game() -> None:
    """ "If, with this move, the player fills the last two free cavities in the entire play area, they
    must immediately connect a new wooden tile" — with no tile left, every piece is placed and the
    game ends (assumptions FORCED_CONNECTION, DRAW_GAME)."""
    final = next(
        s
        for s in random_states()
        if s.phase is Phase.OVER and s.winner < 0 and s.supply == 0 and all(t.filled for t in s.tiles)
    )
    assert GAME.outcome(final) == core.Outcome(core.Result.DRAW, (), GAME.outcome(final).summary)  # type: ignore[union-attr]
    assert sum(final.hands[0]) == sum(final.hands[1]) == 0
    assert GAME.legal_moves(final) == ()


# --------------------------------------------------------------------------- winning


def _win(tiles: Sequence[TileSpec], move: PlacePair, hands: str, winner: int = 0) -> list[Event]:
    state = position(tiles, hands={0: hands})
    after, events = play(state, move)
    assert after.phase is Phase.OVER and after.winner == winner
    assert GAME.outcome(after) is not None and GAME.outcome(after).winners == (winner,)  # type: ignore[union-attr]
    assert GAME.legal_moves(after) == ()
    assert events[-1].kind == "GAME_WON"
    return events


def test_a_horizontal_row_of_five_wins() -> None:
    """ "Form an unbroken row of at least 5 of your own playing pieces (PENKI in Lithuanian: "five").
    The row may be vertical, horizontal or diagonal." (assumption ROW)"""
    assumption("ROW")
    events = _win([(0, 0, "LL"), (2, 0, "LL"), (4, 0, "")], PlacePair(4, 0, L, D), "LD")
    assert events[-1].detail.row == ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0))


def test_a_vertical_row_of_five_wins() -> None:
    """ "The row may be vertical, horizontal or diagonal." """
    tiles: list[TileSpec] = [*[(0, y, "LD") for y in range(4)], (0, 4, "")]
    events = _win(tiles, PlacePair(0, 4, L, L), "LL")
    assert events[-1].detail.row == tuple((0, y) for y in range(5))


@pytest.mark.parametrize("rising", [True, False])
def test_a_diagonal_row_of_five_wins(rising: bool) -> None:
    """ "The row may be vertical, horizontal or diagonal." """
    diagonal = {(k, k) if rising else (5 - k, k) for k in range(5)}
    last = (4, 4) if rising else (1, 4)
    tiles: list[TileSpec] = []
    for y in range(5):
        for x in (0, 2, 4):
            if (x, y) == (last[0] - last[0] % 2, 4):
                tiles.append((x, y, ""))
                continue
            pieces = "".join(
                "L" if (cx, y) in diagonal else ("D" if filler(cx, y) == D else "L") for cx in (x, x + 1)
            )
            tiles.append((x, y, pieces))
    target = PlacePair(last[0] - last[0] % 2, 4, L, D) if rising else PlacePair(0, 4, D, L)
    events = _win(tiles, target, "LD")
    assert set(events[-1].detail.row) == diagonal


def test_four_in_a_row_or_a_row_broken_by_an_empty_cavity_does_not_win() -> None:
    """ "Form an unbroken row of at least 5 of your own playing pieces" """
    state = position([(0, 0, "LL"), (2, 0, ""), (4, 0, "LL"), (6, 0, "")], hands={0: "LD"})
    after, events = play(state, PlacePair(6, 0, L, D))
    assert "GAME_WON" not in kinds(events) and after.phase is Phase.PLAY


def test_jokers_count_for_either_player() -> None:
    """ "Joker pieces may be used to replace either colour." "Joker pieces may be included in the
    row." """
    _win([(0, 0, "LJ"), (2, 0, "JL"), (4, 0, "")], PlacePair(4, 0, L, L), "LL")
    _win([(0, 0, "DJ"), (2, 0, "JD"), (4, 0, "")], PlacePair(4, 0, D, D), "DD", winner=1)


def _tactical_board() -> list[TileSpec]:
    """Five storeys, four tiles wide: columns 0, 2, 4-6 hold four dark or joker pieces, column 3
    four light ones, and the top storey is four empty tiles. No tile can be connected: the play
    area is 8 wide and every top tile is empty."""
    rows = []
    for y in range(4):
        edge = "J" if y < 2 else "D"
        rows.append(f"JDDLDDD{edge}")
    tiles: list[TileSpec] = []
    for y, row in enumerate(rows):
        for x in range(0, 8, 2):
            tiles.append((x, y, row[x : x + 2]))
    tiles += [(x, 4, "") for x in range(0, 8, 2)]
    return tiles


def test_a_row_completed_for_both_players_wins_for_the_player_who_did_not_play() -> None:
    """ "If placing a pair of pieces completes a winning row for both players at the same time, the
    player who did not play on that last turn wins the game." """
    state = position(_tactical_board(), hands={1: "DJ"}, turn=1)
    after, events = play(state, PlacePair(2, 4, D, J))  # dark column 2 and light column 3
    assert after.winner == 0 and "did not play" in events[-1].text
    assert set(events[-1].detail.row) == {(3, y) for y in range(5)}


def test_the_tactical_tip_every_legal_move_can_hand_the_opponent_the_win() -> None:
    """ "Because players may not pass their turn to avoid placing playing pieces, pay attention
    towards the end of the game not to find yourself holding only playing pieces of your opponent's
    colour. Otherwise you may be forced to complete a row that gives your opponent the victory." """
    state = position(_tactical_board(), hands={0: "DD"}, turn=0)
    assert state.hands[0] == (0, 0, 0, 1, 0, 0) and state.supply > 0
    moves = GAME.legal_moves(state)
    assert len(moves) == 4 and all(isinstance(m, PlacePair) for m in moves)
    for move in moves:
        after, events = play(state, move)
        assert after.phase is Phase.OVER and after.winner == 1, move
        assert events[-1].kind == "GAME_WON" and events[-1].player == 1
    refused(state, Pass(), "PASS_NOT_ALLOWED")


STUCK_DRAW = Options(tiles=Tiles.HORIZONTAL_ONLY, stuck=Stuck.DRAW)


def _stuck_board() -> list[TileSpec]:
    """Four storeys of filler, 8 cavities wide (flat tiles: the widest play area), and three empty
    tiles on top; the fourth top tile is the one connection left. Light holds no pair: once the
    last top tile is connected, light can neither place a pair nor connect a tile."""
    tiles: list[TileSpec] = [(x, y, "??") for y in range(4) for x in range(0, 8, 2)]
    return tiles + [(x, 4, "") for x in range(0, 6, 2)]


def test_a_player_who_cannot_move_is_skipped_while_the_opponent_can() -> None:
    """ "The game may also end in a draw." "It is not permitted to pass your turn." (assumption
    DRAW_GAME: a player with no legal move is not passing by choice; their turn is skipped while the
    opponent can still move)"""
    assumption("DRAW_GAME")
    state = position(_stuck_board(), hands={0: ""}, turn=1)
    assert DEFAULT.stuck is Stuck.SKIP_TURN and state.options.stuck is Stuck.SKIP_TURN
    assert not any(state.hands[0]) and sum(state.hands[1]) == 12
    assert connects(state) == {(6, 4, False)}
    after, events = play(state, ConnectTile(6, 4))
    assert kinds(events) == ["TILE_CONNECTED", "TURN_SKIPPED"]
    assert events[1].player == 0 and "Dark (player 2) plays again" in events[1].text
    assert after.phase is Phase.PLAY and after.turn == 1
    assert GAME.legal_moves(after) and all(isinstance(m, PlacePair) for m in GAME.legal_moves(after))
    # Dark fills a top tile; a tile can be connected on it, so light moves again.
    again, events = play(after, PlacePair(6, 4, D, D))
    assert kinds(events) == ["PAIR_PLACED"] and again.phase is Phase.PLAY and again.turn == 0
    assert connects(again) == {(6, 5, False)}
    # A state with the stuck player on turn should have been skipped (check_state).
    problems = GAME.check_state(replace(after, turn=0))
    assert [p.field for p in problems] == ["phase"] and "skipped" in problems[0].description


def test_with_the_stuck_option_the_game_is_drawn_when_the_player_on_turn_cannot_move() -> None:
    """ "The game may also end in a draw." (assumption DRAW_GAME, option stuck=PENKI_STUCK_DRAW: the
    game is a draw as soon as the player on turn cannot move, though the opponent holds pairs)"""
    state = position(_stuck_board(), hands={0: ""}, turn=1, options=STUCK_DRAW)
    after, events = play(state, ConnectTile(6, 4))
    assert kinds(events) == ["TILE_CONNECTED", "GAME_DRAWN"]
    assert events[1].player == 0 and "Light (player 1) can neither" in events[1].text
    assert after.phase is Phase.OVER and after.winner == -1 and sum(after.hands[1]) == 12
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.result is core.Result.DRAW
    assert GAME.legal_moves(after) == ()
    # The same finished state is no draw under the default reading: dark can still move.
    problems = GAME.check_state(replace(after, options=replace(STUCK_DRAW, stuck=Stuck.SKIP_TURN)))
    assert [p.field for p in problems] == ["winner"] and "can still move" in problems[0].description


@pytest.mark.parametrize("options", [DEFAULT, Options(stuck=Stuck.DRAW)], ids=["skip-turn", "draw"])
def test_the_game_is_a_draw_when_no_legal_move_remains(options: Options) -> None:
    """ "The game may also end in a draw." (assumption DRAW_GAME: by default when neither player can
    move, which is every piece placed; with stuck=DRAW when the player on turn cannot move)"""
    found = 0
    for state in random_states(options):
        if state.phase is Phase.OVER and state.winner < 0:
            outcome = GAME.outcome(state)
            assert outcome is not None and outcome.result is core.Result.DRAW and outcome.winners == ()
            assert GAME.legal_moves(state) == ()
            mover = state.turn
            assert not any(state.hands[mover]) or all(t.filled for t in state.tiles)
            if options.stuck is Stuck.SKIP_TURN:
                assert not any(state.hands[0]) and not any(state.hands[1])
                assert state.supply == 0 and all(t.filled for t in state.tiles)
            found += 1
    assert found


def test_a_player_without_pairs_still_connects_tiles() -> None:
    """ "On your turn, you must do one of the following: - connect a new wooden tile, or - place a
    pair of playing pieces in one wooden tile." — with no pair left, a player must connect."""
    state = next(s for s in random_states() if s.phase is Phase.PLAY and not any(s.hands[s.turn]))
    moves = GAME.legal_moves(state)
    assert moves and all(isinstance(m, ConnectTile) for m in moves)


# --------------------------------------------------------------------------- codec and service


def test_every_move_kind_round_trips_and_an_empty_move_is_malformed() -> None:
    """The codec's edge: every kind of move survives protobuf, and a move naming no action is refused."""
    for move in (
        Draw(),
        Draw((L, J)),
        ConnectTile(-2, 0),
        ConnectTile(3, 4, True),
        PlacePair(0, 0, J, D),
        Pass(),
    ):
        assert CODEC.move_from_proto(CODEC.move_to_proto(move)) == move
    with pytest.raises(core.LawspeakerError) as err:
        CODEC.move_from_proto(game_pb2.Move().penki)
    assert err.value.reason == "MOVE_REQUIRED"


def test_the_service_plays_penki_with_json_moves() -> None:
    """The stateless API plays Penki end to end: NewGame, LegalMoves, ValidateMove and ApplyMove."""
    api = RulesApi()
    state = api.new_game(pb.NewGameRequest(game="penki", players=2, seed=3)).state
    listed = api.legal_moves(pb.LegalMovesRequest(game="penki", state=state))
    assert listed.HasField("chance") and len(listed.chance.outcomes) == 6
    move = json_format.ParseDict({"penki": {"pass": {}}}, game_pb2.Move())
    answer = api.validate_move(pb.ValidateMoveRequest(game="penki", state=state, move=move))
    assert not answer.valid and answer.violation.reason == "PASS_NOT_ALLOWED"
    assert answer.violation.field == "move.penki.pass"
    applied = api.apply_move(pb.ApplyMoveRequest(game="penki", state=state, move=listed.moves[0]))
    assert applied.events[0].kind == "PAIR_DRAWN" and applied.events[0].penki.HasField("pair")
    described = api.describe_game(pb.DescribeGameRequest(game="penki"))
    assert {o.name for o in described.options} == {"setup", "tiles", "alignment", "stuck"}
    assert {a.id for a in described.assumptions} == {a.id for a in ASSUMPTIONS}
