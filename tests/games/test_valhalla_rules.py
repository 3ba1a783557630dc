"""Rule-scenario tests for the Valhalla engine: one test per rule of the rulebook.

Every test quotes, in its docstring, the rulebook sentence it enforces
(``shared/rulebooks/valhalla.txt``); a test of a reading the rulebook leaves open also names the
engine's assumption id (``lawspeaker.games.valhalla.ASSUMPTIONS``). ``docs/rules/valhalla.md``
maps each rule to these tests.

Positions are built directly with :func:`position`: seat 0 sails light and seat 1 dark, ships not
named are already in Valhalla (36), and the state is in phase MOVE with an explicit cast.
"""

# The docstrings quote the rulebook verbatim, with its curly quotation marks.
# ruff: noqa: RUF002

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

import pytest

from lawspeaker.games import core
from lawspeaker.games.core import Event, Rng
from lawspeaker.games.valhalla import (
    ALL_STICKS,
    ASSUMPTIONS,
    GAME,
    Cast,
    EntryBlocked,
    Hagalaz,
    MoveShip,
    Options,
    Phase,
    Scoring,
    Start,
    State,
    Sticks,
    is_natural_one,
    score,
)

# --------------------------------------------------------------------------- helpers

LIGHT_SEAT, DARK_SEAT = 0, 1
VALHALLA = 36

#: Natural casts of each score (Sowulo, Tiewaz, Gebo, Hagalaz heads up).
NATURAL = {
    1: Sticks(True, False, False, False),
    2: Sticks(True, True, False, False),
    3: Sticks(True, True, True, False),
    4: Sticks(True, True, True, True),
    5: Sticks(False, False, False, False),
}
#: Sowulo, Tiewaz and Hagalaz heads up: an unnatural one under the default Hagalaz reading.
UNNATURAL_ONE = Sticks(True, True, False, True)
#: Hagalaz alone: nothing, unnatural.
HAGALAZ_ALONE = Sticks(False, False, False, True)

Fleets = Mapping[str, Mapping[int, int]]


def position(
    fleets: Fleets,
    cast: Sticks | int = 1,
    *,
    mover: str = "light",
    options: Options | None = None,
    repair: Iterable[tuple[str, int]] = (),
    phase: Phase = Phase.MOVE,
    points: int | None = None,
    seed: int = 7,
) -> State:
    """A valid state from ``{"light": {ship: space}, "dark": {...}}``.

    Ships not named are already in Valhalla (36). ``cast`` is a :class:`Sticks` or a score whose
    natural cast is used; ``points`` defaults to the cast's score (phase MOVE).
    """
    opts = options or Options()
    sticks = cast if isinstance(cast, Sticks) else NATURAL[cast]
    positions = [VALHALLA] * 12
    for colour, base in (("light", 0), ("dark", 6)):
        for ship, space in fleets.get(colour, {}).items():
            positions[base + ship - 1] = space
    flags = [False] * 12
    for colour, ship in repair:
        flags[(0 if colour == "light" else 6) + ship - 1] = True
    turn = LIGHT_SEAT if mover == "light" else DARK_SEAT
    if phase in (Phase.MOVE, Phase.EXTRA_POINTS):
        pts = score(sticks, opts)[0] if points is None else points
        cast_value: Sticks | None = sticks
    else:
        pts, cast_value = 0, None
    state = State(
        opts,
        phase,
        turn,
        DARK_SEAT,
        tuple(positions),
        tuple(flags),
        cast_value,
        pts,
        -1,
        10,
        Rng.from_seed(seed),
    )
    assert GAME.check_state(state) == [], GAME.check_state(state)
    return state


def ships(state: State, colour: str) -> dict[int, int]:
    """``{ship: space}`` of one fleet, in Valhalla included."""
    base = 0 if colour == "light" else 6
    return {k + 1: state.positions[base + k] for k in range(6)}


def under_repair(state: State, colour: str, ship: int) -> bool:
    return state.repair[(0 if colour == "light" else 6) + ship - 1]


def play(state: State, move: Cast | MoveShip) -> tuple[State, list[Event]]:
    """Apply a legal move through the shared core; the new state must be valid."""
    assert core.validate(GAME, state, move) is None
    new_state, events = core.apply(GAME, state, move)
    assert GAME.check_state(new_state) == [], GAME.check_state(new_state)
    return new_state, events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def refused(state: State, move: Cast | MoveShip, reason: str, *words: str) -> str:
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


def moves_of(state: State) -> set[tuple[int, int]]:
    return {(m.ship, m.to) for m in GAME.legal_moves(state) if isinstance(m, MoveShip)}


def assumption(ident: str) -> None:
    assert ident in {a.id for a in ASSUMPTIONS}, ident


# --------------------------------------------------------------------------- the sticks

S, T, G, H = "S", "T", "G", "H"

#: Every cast as (runes heads up) -> (score, natural) with the default Hagalaz reading.
SIXTEEN = {
    "": (5, True),
    "S": (1, True),
    "T": (1, True),
    "G": (1, True),
    "H": (0, False),
    "ST": (2, True),
    "SG": (2, True),
    "TG": (2, True),
    "GH": (2, True),
    "SH": (0, False),
    "TH": (0, False),
    "STG": (3, True),
    "SGH": (3, True),
    "TGH": (3, True),
    "STH": (1, False),
    "STGH": (4, True),
}


def sticks_of(runes: str) -> Sticks:
    return Sticks(S in runes, T in runes, G in runes, H in runes)


def test_each_heads_up_stick_scores_one_and_hagalaz_cancels_a_point_unless_with_gebo() -> None:
    """ "Sowulo and Tiewaz each represent one point, but Hagalaz cancels one point in a cast,
    unless accompanied by Gebo, in which case the negative effect of Hagalaz is cancelled and each
    ‘heads up’ stick once again represents one point." "Throws in which each rune represents one
    point are called ‘natural’ casts. Throws in which Hagalaz decreases the score are called
    ‘unnatural’ casts." (assumption HAGALAZ_READING, default CANCELS_ANOTHER)"""
    assumption("HAGALAZ_READING")
    assert {sticks_of(r) for r in SIXTEEN} == set(ALL_STICKS)
    for runes, expected in SIXTEEN.items():
        assert score(sticks_of(runes), Options()) == expected, runes
    # The natural casts are exactly those without Hagalaz, or with Gebo beside it.
    for sticks in ALL_STICKS:
        assert score(sticks, Options())[1] == (not sticks.hagalaz or sticks.gebo)


def test_four_tails_up_score_five() -> None:
    """ "The exception is when all four sticks land ‘tails’ (blank side up), in which case the
    score is 5." (assumption ALL_TAILS_NATURAL: the five is a natural cast)"""
    assumption("ALL_TAILS_NATURAL")
    tails = Sticks(False, False, False, False)
    for options in (Options(), Options(hagalaz=Hagalaz.CANCELS_OWN), Options(scoring=Scoring.TRADITIONAL)):
        assert score(tails, options) == (5, True)


def test_hagalaz_cancels_own_point_only_with_the_cancels_own_option() -> None:
    """ "Sowulo and Tiewaz each represent one point, but Hagalaz cancels one point in a cast,
    unless accompanied by Gebo" — the other reading of assumption HAGALAZ_READING
    (option hagalaz=CANCELS_OWN): Hagalaz only loses its own point."""
    assumption("HAGALAZ_READING")
    own = Options(hagalaz=Hagalaz.CANCELS_OWN)
    changed = {"SH": (1, False), "TH": (1, False), "STH": (2, False)}
    for runes, expected in SIXTEEN.items():
        assert score(sticks_of(runes), own) == changed.get(runes, expected), runes
    # Under either reading, Hagalaz alone scores nothing.
    assert score(HAGALAZ_ALONE, own) == (0, False)
    assert score(HAGALAZ_ALONE, Options()) == (0, False)


def test_traditional_scoring_counts_heads_up_sticks_one_to_one() -> None:
    """ "However, if you wish to simplify the game or are playing with young players, the
    traditional 1-to-1 scoring method may be preferred." (assumption TRADITIONAL_NATURAL_ONE:
    runes are ignored, every cast is natural)"""
    assumption("TRADITIONAL_NATURAL_ONE")
    traditional = Options(scoring=Scoring.TRADITIONAL)
    for sticks in ALL_STICKS:
        expected = sticks.heads if sticks.heads else 5
        assert score(sticks, traditional) == (expected, True)


def test_a_natural_one_is_one_heads_up_stick_not_including_hagalaz() -> None:
    """ "The first person to throw a natural one (i.e. one ‘heads up’ stick, not including
    Hagalaz) would begin play by moving the dark piece from position 12 to position 13"."""
    ones = [s for s in ALL_STICKS if is_natural_one(s, Options())]
    assert set(ones) == {sticks_of("S"), sticks_of("T"), sticks_of("G")}
    assert not is_natural_one(HAGALAZ_ALONE, Options())
    assert not is_natural_one(UNNATURAL_ONE, Options())  # scores 1, but unnaturally
    own = Options(hagalaz=Hagalaz.CANCELS_OWN)
    assert score(sticks_of("SH"), own) == (1, False)
    assert not is_natural_one(sticks_of("SH"), own)


def test_with_traditional_scoring_any_single_heads_is_a_natural_one() -> None:
    """ "if you wish to simplify the game ... the traditional 1-to-1 scoring method may be
    preferred." (assumption TRADITIONAL_NATURAL_ONE: any single heads-up stick, Hagalaz too, is a
    natural one)"""
    assumption("TRADITIONAL_NATURAL_ONE")
    traditional = Options(scoring=Scoring.TRADITIONAL)
    ones = {s for s in ALL_STICKS if is_natural_one(s, traditional)}
    assert ones == {sticks_of("S"), sticks_of("T"), sticks_of("G"), HAGALAZ_ALONE}


# --------------------------------------------------------------------------- chance


def test_the_cast_is_a_chance_step_of_sixteen_equally_likely_outcomes() -> None:
    """ "Each stick has a ‘heads’ side and a ‘tails’ side, and the number of ‘heads up’ sticks in
    a throw determine the score.\""""
    state = GAME.new_game(2, Options(start=Start.ENTER), Rng.from_seed(1))
    chance = GAME.chance(state)
    assert chance is not None
    assert len(chance.outcomes) == 16
    assert {o.move for o in chance.outcomes} == {Cast(s) for s in ALL_STICKS}
    assert sum(o.probability for o in chance.outcomes) == pytest.approx(1.0)
    assert all(o.probability == pytest.approx(1 / 16) for o in chance.outcomes)
    assert GAME.legal_moves(state) == (Cast(),)
    assert GAME.to_act(state).chance
    assert GAME.chance(position({"light": {1: 13}, "dark": {1: 20}})) is None


def test_a_drawn_cast_comes_from_the_state_rng_deterministically() -> None:
    """ "Each stick has a ‘heads’ side and a ‘tails’ side, and the number of ‘heads up’ sticks in
    a throw determine the score." — the server draws the sticks from the RNG carried in the
    state: the same state always gives the same cast, and the draw advances the counter."""
    state = GAME.new_game(2, Options(start=Start.ENTER), Rng.from_seed(42))
    first, first_events = play(state, Cast())
    again, again_events = play(state, Cast())
    assert first == again
    assert first_events == again_events
    assert first.rng.seed == state.rng.seed
    assert first.rng.counter > state.rng.counter
    assert first_events[0].kind == "STICKS_CAST"
    drawn = first_events[0].detail.sticks
    assert drawn in ALL_STICKS
    # A different seed gives a (probably) different sequence of casts.
    casts = set()
    for seed in range(8):
        s = GAME.new_game(2, Options(start=Start.ENTER), Rng.from_seed(seed))
        casts.add(play(s, Cast())[1][0].detail.sticks)
    assert len(casts) > 1


def test_an_explicit_cast_is_accepted_and_does_not_draw() -> None:
    """ "Each stick has a ‘heads’ side and a ‘tails’ side" — a client may name the sticks as they
    fell (an explicit chance outcome); the RNG is not used."""
    state = GAME.new_game(2, Options(start=Start.ENTER), Rng.from_seed(1))
    cast = Cast(NATURAL[3])
    assert core.is_legal(GAME, state, cast)
    new_state, events = play(state, cast)
    assert new_state.phase is Phase.MOVE
    assert new_state.cast == NATURAL[3]
    assert new_state.points == 3
    assert new_state.rng == state.rng
    assert events[0].detail.score == 3 and events[0].detail.natural


# --------------------------------------------------------------------------- the layout start


def test_layout_start_puts_light_ships_on_1_to_6_and_dark_on_7_to_12() -> None:
    """ "with the six light ships in positions 1-6 , and the six dark pieces in positions 7-12"
    (assumption SHIPS_PER_FLEET: ship k of light starts on k, of dark on 6+k)"""
    assumption("SHIPS_PER_FLEET")
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    assert state.positions == (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
    assert state.phase is Phase.CHOOSING_COLOURS
    assert state.dark_seat == -1
    assert state.turn == 0
    assert GAME.check_state(state) == []


def test_seats_alternate_casting_until_the_first_natural_one() -> None:
    """ "The first person to throw a natural one (i.e. one ‘heads up’ stick, not including
    Hagalaz) would begin play by moving the dark piece from position 12 to position 13"
    (assumption COLOUR_CHOICE: seats alternate single casts; doubles do not apply)"""
    assumption("COLOUR_CHOICE")
    state = GAME.new_game(2, Options(doubles=True), Rng.from_seed(1))
    for sticks, next_seat in ((NATURAL[4], 1), (UNNATURAL_ONE, 0), (HAGALAZ_ALONE, 1), (NATURAL[5], 0)):
        state, events = play(state, Cast(sticks))
        assert state.phase is Phase.CHOOSING_COLOURS
        assert state.turn == next_seat
        assert state.dark_seat == -1
        assert kinds(events) == ["STICKS_CAST"]
    assert state.positions == (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)


def test_the_first_natural_one_takes_dark_and_moves_the_ship_on_12_to_13() -> None:
    """ "The first person to throw a natural one ... would begin play by moving the dark piece from
    position 12 to position 13 (this will be their colour for the rest of the game). Play then
    passes to the other player, who will be moving the light coloured ships.\""""
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    state, _ = play(state, Cast(NATURAL[2]))  # seat 0: not a one
    state, events = play(state, Cast(sticks_of("G")))  # seat 1: a natural one
    assert kinds(events) == ["STICKS_CAST", "COLOURS_CHOSEN", "SHIP_MOVED"]
    assert state.dark_seat == 1
    assert ships(state, "dark") == {1: 7, 2: 8, 3: 9, 4: 10, 5: 11, 6: 13}
    assert ships(state, "light") == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6}
    assert state.phase is Phase.CAST
    assert state.turn == 0  # the light seat casts next
    assert GAME.to_act(state).players == (0,)


def test_no_ship_moves_until_colours_are_chosen() -> None:
    """ "The first person to throw a natural one ... would begin play by moving the dark piece from
    position 12 to position 13" — before that, the only action is to cast (CAST_FIRST)."""
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    assert GAME.legal_moves(state) == (Cast(),)
    refused(state, MoveShip(6, 13), "CAST_FIRST", "cast the sticks", "natural one")


# --------------------------------------------------------------------------- the enter start


def test_enter_start_begins_with_all_ships_off_the_board() -> None:
    """ "1) with all ships off the board." (assumption ENTER_MOVES: seat 0 sails light and casts
    first)"""
    assumption("ENTER_MOVES")
    state = GAME.new_game(2, Options(start=Start.ENTER), Rng.from_seed(1))
    assert state.positions == (0,) * 12
    assert state.phase is Phase.CAST
    assert state.turn == 0 and state.dark_seat == 1


def test_entering_lands_on_the_space_of_the_cast_among_the_first_five() -> None:
    """ "Players take turns casting and moving their ships onto the board to one of the first five
    positions." (assumption ENTER_MOVES)"""
    enter = Options(start=Start.ENTER)
    for points in range(1, 6):
        state = position({"light": dict.fromkeys(range(1, 7), 0), "dark": {1: 0}}, points, options=enter)
        assert moves_of(state) == {(k, points) for k in range(1, 7)}
        refused(state, MoveShip(3, 6), "WRONG_DISTANCE", "ship 3, waiting off the board,", f"to {points}")
        new_state, events = play(state, MoveShip(3, points))
        assert ships(new_state, "light")[3] == points
        assert kinds(events) == ["SHIP_MOVED"]
        assert "entered the board on" in events[0].text
        assert new_state.phase is Phase.CAST and new_state.turn == DARK_SEAT


ENTER = Options(start=Start.ENTER)
#: The other reading of ENTER_MOVES: a player whose entry space is occupied may move another ship.
ENTER_MOVE_ANOTHER = Options(start=Start.ENTER, entry_blocked=EntryBlocked.MOVE_ANOTHER)


def test_entering_onto_an_occupied_space_forfeits_the_turn() -> None:
    """ "If a space is occupied by another ship of either colour, the player forfeits their
    turn." (assumption ENTER_MOVES: a player with a ship still waiting off the board forfeits when
    the cast's space is occupied, though a ship on the board could move)"""
    assumption("ENTER_MOVES")
    assert ENTER.entry_blocked is EntryBlocked.FORFEIT  # the default reading
    # Light ship 1 waits; the cast's space 3 holds light's own ship 2. Ships 2 (3 -> 6) and 3
    # (9 -> 12) could move, but the turn is forfeited.
    own = position({"light": {1: 0, 2: 3, 3: 9}, "dark": {1: 0, 2: 1}}, options=ENTER, phase=Phase.CAST)
    after, events = play(own, Cast(NATURAL[3]))
    assert kinds(events) == ["STICKS_CAST", "TURN_FORFEITED"]
    assert "waiting to enter on 3" in events[1].text and "forfeits" in events[1].text
    assert after.phase is Phase.CAST and after.turn == DARK_SEAT and after.positions == own.positions
    # A ship of the other colour on the space forfeits the turn just the same.
    other = position({"light": {1: 0, 2: 9}, "dark": {1: 0, 2: 1}}, options=ENTER, phase=Phase.CAST)
    after, events = play(other, Cast(NATURAL[1]))
    assert kinds(events) == ["STICKS_CAST", "TURN_FORFEITED"] and after.turn == DARK_SEAT
    # A free entry space: the player enters or moves a ship already on the board.
    free = position({"light": {1: 0, 2: 3, 3: 9}, "dark": {1: 0, 2: 1}}, 2, options=ENTER)
    assert moves_of(free) == {(1, 2), (2, 5), (3, 11)}
    # A player with no ship waiting is not entering: an occupied space of the cast does not matter.
    entered = position({"light": {1: 3, 2: 9}, "dark": {1: 0, 2: 1}}, 3, options=ENTER)
    assert moves_of(entered) == {(1, 6), (2, 12)}
    # A move state whose entry space is occupied should have been forfeited (check_state).
    blocked = position({"light": {1: 0, 2: 3, 3: 9}, "dark": {1: 0, 2: 1}}, 3, options=ENTER_MOVE_ANOTHER)
    problems = GAME.check_state(replace(blocked, options=ENTER))
    assert [p.field for p in problems] == ["points"] and "forfeited" in problems[0].description


def test_with_all_five_entry_spaces_occupied_a_ship_on_the_board_moves() -> None:
    """ "If a space is occupied by another ship of either colour, the player forfeits their
    turn." (assumption ENTER_MOVES: not when all five entry spaces are occupied; no cast could enter
    then, and both fleets would forfeit every cast for good)"""
    full = {"light": {1: 0, 2: 1, 3: 3, 4: 5, 5: 9}, "dark": {1: 0, 2: 2, 3: 4}}
    state = position(full, options=ENTER, phase=Phase.CAST)
    moving, events = play(state, Cast(NATURAL[3]))
    assert kinds(events) == ["STICKS_CAST"] and moving.phase is Phase.MOVE
    # Ship 1 cannot enter on 3 (own ship 3); light 2 cannot hit dark 3 on the protected 4.
    assert moves_of(moving) == {(3, 6), (4, 8), (5, 12)}
    refused(moving, MoveShip(1, 3), "LANDS_ON_OWN_SHIP", "Light ship 1", "3", "own ship 3")
    after, _ = play(moving, MoveShip(3, 6))
    # Space 3 is free again, so dark (ship 1 waiting) is entering: a cast of 1 hits light 2 on 1.
    _, events = play(after, Cast(NATURAL[1]))
    assert kinds(events) == ["STICKS_CAST", "TURN_FORFEITED"] and "on 1" in events[1].text


def test_entry_blocked_option_lets_another_ship_move() -> None:
    """ "If a space is occupied by another ship of either colour, the player forfeits their
    turn." (assumption ENTER_MOVES, option entry_blocked=MOVE_ANOTHER: entering onto an occupied
    space is not a move; another ship may still move, and only a player with no move forfeits)"""
    state = position({"light": {1: 0, 2: 3, 3: 9}, "dark": {1: 0, 2: 1}}, 3, options=ENTER_MOVE_ANOTHER)
    # Ship 1 cannot enter on 3 (own ship 2); ships 2 and 3 move on.
    assert moves_of(state) == {(2, 6), (3, 12)}
    refused(state, MoveShip(1, 3), "LANDS_ON_OWN_SHIP", "Light ship 1", "3", "own ship 2")
    after, events = play(state, MoveShip(2, 6))
    assert kinds(events) == ["SHIP_MOVED"] and ships(after, "light")[2] == 6
    state = position({"light": {1: 0, 2: 9}, "dark": {1: 0, 2: 1}}, 1, options=ENTER_MOVE_ANOTHER)
    assert moves_of(state) == {(2, 10)}
    refused(state, MoveShip(1, 1), "ENTRY_SPACE_PROTECTED", "Light ship 1", "Dark ship 2", "1")


def test_ships_on_the_first_five_spaces_cannot_be_hit() -> None:
    """ "An opponents pieces may not be 'hit' on any of these five positions." (assumption
    ENTRY_NO_HIT: with the enter start, for the whole game)"""
    assumption("ENTRY_NO_HIT")
    enter = Options(start=Start.ENTER)
    state = position({"light": {1: 2, 2: 20}, "dark": {1: 5, 2: 8}}, 3, options=enter)
    assert (1, 5) not in moves_of(state)
    refused(state, MoveShip(1, 5), "ENTRY_SPACE_PROTECTED", "Light ship 1", "Dark ship 1", "5", "1-5")
    # Backward onto a protected entry space is impossible as well. Light's ships on 8, 13, ..., 33
    # cannot move 5 forward (own ships; 33 may not exit while 8 is in row one), so only 8 -> 3 is
    # left, and dark ship 1 on 3 cannot be hit: the cast is forfeited.
    chain = {k: 3 + 5 * k for k in range(1, 7)}
    back = position({"light": chain, "dark": {1: 3, 2: 11}}, options=enter, phase=Phase.CAST)
    _, events = play(back, Cast(NATURAL[5]))
    assert kinds(events) == ["STICKS_CAST", "TURN_FORFEITED"]
    # With the layout start the same backward move hits dark ship 1.
    layout_back = position({"light": chain, "dark": {1: 3, 2: 11}}, 5)
    assert moves_of(layout_back) == {(1, 3)}
    # With the layout start, spaces 1-5 are not protected.
    layout = position({"light": {1: 2, 2: 20}, "dark": {1: 5, 2: 8}}, 3)
    new_state, events = play(layout, MoveShip(1, 5))
    assert kinds(events) == ["SHIPS_SWAPPED"]
    assert ships(new_state, "dark")[1] == 2


def test_a_player_with_no_possible_move_forfeits_the_turn() -> None:
    """ "If a space is occupied by another ship of either colour, the player forfeits their
    turn." (assumption ENTER_MOVES: a player with no possible move forfeits, under either reading)"""
    enter = ENTER_MOVE_ANOTHER
    state = position({"light": {1: 0, 2: 3}, "dark": {1: 0, 2: 1}}, phase=Phase.CAST, options=enter)
    new_state, events = play(state, Cast(NATURAL[3]))  # ship 1 cannot enter on 3; 3+3=6 is free
    assert new_state.phase is Phase.MOVE
    # Light's last ship waits off the board and its entry space 5 is held by a dark ship.
    for options in (ENTER, ENTER_MOVE_ANOTHER):
        blocked = position({"light": {1: 0}, "dark": {1: 0, 2: 5}}, phase=Phase.CAST, options=options)
        new_state, events = play(blocked, Cast(NATURAL[5]))
        assert kinds(events) == ["STICKS_CAST", "TURN_FORFEITED"]
        assert "forfeits" in events[1].text
        assert new_state.phase is Phase.CAST
        assert new_state.turn == DARK_SEAT
        assert new_state.positions == blocked.positions
    # A cast scoring nothing forfeits too.
    new_state, events = play(state, Cast(HAGALAZ_ALONE))
    assert kinds(events) == ["STICKS_CAST", "TURN_FORFEITED"]
    assert new_state.turn == DARK_SEAT


# --------------------------------------------------------------------------- moving


def test_each_player_moves_only_one_ship_per_throw() -> None:
    """ "Each player may move only one piece per throw, except when leaving the board.\""""
    state = position({"light": {1: 13, 2: 16}, "dark": {1: 20}}, 2)
    assert moves_of(state) == {(1, 15), (2, 18)}
    new_state, events = play(state, MoveShip(2, 18))
    assert kinds(events) == ["SHIP_MOVED"]
    assert ships(new_state, "light") == {**ships(state, "light"), 2: 18}
    assert new_state.phase is Phase.CAST
    assert new_state.turn == DARK_SEAT
    assert new_state.points == 0 and new_state.cast is None


def test_a_ship_reaching_or_passing_36_passes_into_valhalla() -> None:
    """ "Position 36 is the last space on the board, and provides safe passage to Valhalla. A ship
    landing here is removed from the board.\""""
    exact = position({"light": {1: 33, 2: 14}, "dark": {1: 20}}, 3)
    assert (1, VALHALLA) in moves_of(exact)
    new_state, events = play(exact, MoveShip(1, VALHALLA))
    assert ships(new_state, "light")[1] == VALHALLA
    assert kinds(events) == ["SHIP_ENTERED_VALHALLA"]
    assert new_state.phase is Phase.CAST and new_state.turn == DARK_SEAT
    # A ship already in Valhalla cannot move again.
    refused(exact, MoveShip(3, VALHALLA), "SHIP_IN_VALHALLA", "Light ship 3", "Valhalla")


def test_extra_points_beyond_36_must_be_used_by_another_ship() -> None:
    """ "In that case, any ‘extra’ moves other than the number required to leave the board must
    be used up by another piece." (assumption LEAVING)"""
    assumption("LEAVING")
    state = position({"light": {1: 34, 2: 14, 3: 20}, "dark": {1: 23}}, 5)
    new_state, events = play(state, MoveShip(1, VALHALLA))
    assert kinds(events) == ["SHIP_ENTERED_VALHALLA", "EXTRA_POINTS"]
    assert new_state.phase is Phase.EXTRA_POINTS
    assert new_state.points == 3
    assert new_state.turn == LIGHT_SEAT
    assert moves_of(new_state) == {(2, 17), (3, 23)}
    refused(new_state, MoveShip(2, 19), "WRONG_DISTANCE", "Light ship 2", "exactly 3", "17")
    refused(new_state, Cast(), "MOVE_BEFORE_CASTING", "3 points left over", "another ship")
    final, events = play(new_state, MoveShip(3, 23))
    assert kinds(events) == ["SHIPS_SWAPPED"]
    assert ships(final, "light") == {1: VALHALLA, 2: 14, 3: 23, 4: 36, 5: 36, 6: 36}
    assert ships(final, "dark")[1] == 20
    assert final.phase is Phase.CAST and final.turn == DARK_SEAT


def test_extra_points_are_lost_when_no_other_ship_can_use_them() -> None:
    """ "any ‘extra’ moves other than the number required to leave the board must be used up by
    another piece." (assumption LEAVING: if no ship can use them they are lost)"""
    assumption("LEAVING")
    # 35 + 3 leaves two points over. Light 2 on 27 and light 3 on 29 cannot use them: 29 is their
    # own ship, 31 is held by a dark pair (31-32), 25 by a dark pair (25-26), 27 is their own.
    state = position({"light": {1: 35, 2: 27, 3: 29}, "dark": {1: 31, 2: 32, 3: 25, 4: 26}}, 3)
    new_state, events = play(state, MoveShip(1, VALHALLA))
    assert kinds(events) == ["SHIP_ENTERED_VALHALLA", "EXTRA_POINTS_LOST"]
    assert "2 points" in events[1].text
    assert new_state.phase is Phase.CAST and new_state.turn == DARK_SEAT
    assert ships(new_state, "light") == {1: VALHALLA, 2: 27, 3: 29, 4: 36, 5: 36, 6: 36}


def test_all_ships_must_leave_row_one_before_any_exits_the_board() -> None:
    """ "A player must move all of their pieces from row one before exiting the board."
    (assumption ROW_ONE: row one is 1-12; ships waiting off the board count as in row one)"""
    assumption("ROW_ONE")
    state = position({"light": {1: 34, 2: 10}, "dark": {1: 20}}, 3)
    assert moves_of(state) == {(2, 13)}
    refused(state, MoveShip(1, VALHALLA), "ROW_ONE_NOT_CLEAR", "Light ship 1", "ship 2", "row one")
    # Once ship 2 is out of row one, ship 1 may leave.
    clear = position({"light": {1: 34, 2: 13}, "dark": {1: 20}}, 3)
    assert (1, VALHALLA) in moves_of(clear)
    # With the enter start, a ship still waiting off the board holds the others back too.
    enter = Options(start=Start.ENTER)
    waiting = position({"light": {1: 34, 2: 0}, "dark": {1: 20}}, 3, options=enter)
    refused(waiting, MoveShip(1, VALHALLA), "ROW_ONE_NOT_CLEAR", "ship 2", "row one")


def test_ships_may_jump_over_ships_of_either_colour() -> None:
    """ "Any piece may jump over any other piece or pieces, regardless of colour.\""""
    state = position({"light": {1: 13, 2: 15}, "dark": {1: 14, 2: 20}}, 4)
    assert (1, 17) in moves_of(state)
    new_state, events = play(state, MoveShip(1, 17))
    assert kinds(events) == ["SHIP_MOVED"]
    assert ships(new_state, "light")[1] == 17
    assert ships(new_state, "dark") == ships(state, "dark")


def test_landing_on_an_opponent_swaps_the_two_ships() -> None:
    """ "If a player lands on a space occupied by an opposing ship, the two ships exchange
    places.\""""
    state = position({"light": {4: 14}, "dark": {2: 17, 3: 22}}, 3)
    new_state, events = play(state, MoveShip(4, 17))
    assert kinds(events) == ["SHIPS_SWAPPED"]
    assert "Dark ship 2" in events[0].text
    assert ships(new_state, "light")[4] == 17
    assert ships(new_state, "dark")[2] == 14
    assert new_state.phase is Phase.CAST and new_state.turn == DARK_SEAT


def test_a_ship_cannot_land_on_its_own_ship() -> None:
    """ "A player cannot land on a space occupied by one of their own ships.\""""
    state = position({"light": {4: 14, 2: 17}, "dark": {1: 20}}, 3)
    assert (4, 17) not in moves_of(state)
    message = refused(state, MoveShip(4, 17), "LANDS_ON_OWN_SHIP")
    assert message == "Light ship 4 cannot land on 17: your own ship 2 is there."


def test_ships_must_move_forward_when_any_forward_move_exists() -> None:
    """ "Players must move their ships forward unless no forward moves are possible"
    (assumption BACKWARD: forward is judged over all the player's ships)"""
    assumption("BACKWARD")
    # Ship 1 cannot move forward (own ship on 29), but ship 2 can: no ship may go backward.
    state = position({"light": {1: 27, 2: 29}, "dark": {1: 20}}, 2)
    assert moves_of(state) == {(2, 31)}
    refused(state, MoveShip(1, 25), "MUST_MOVE_FORWARD", "Light ship 1", "backward", "ship 2 to 31")


def test_ships_move_backward_when_no_forward_move_is_possible() -> None:
    """ "Players must move their ships forward unless no forward moves are possible - in that
    case, they must move backward." (assumption BACKWARD: not below space 1; landing on an
    opponent backward swaps too)"""
    # Forward: 27+2 = 29 (own), 29+2 = 31 (dark pair 31-32). Backward: 25 (a lone dark ship), 27 (own).
    state = position({"light": {1: 27, 2: 29}, "dark": {1: 31, 2: 32, 3: 25}}, 2)
    assert moves_of(state) == {(1, 25)}
    new_state, events = play(state, MoveShip(1, 25))
    assert kinds(events) == ["SHIPS_SWAPPED"]
    assert ships(new_state, "light")[1] == 25
    assert ships(new_state, "dark")[3] == 27
    # A backward move never goes below space 1. Light on 3, 8, ..., 28 cannot move 5 forward (own
    # ships; 33 is a dark pair with the harbour 34) nor backward (own ships; 3 - 5 is off the
    # board): a cast of 5 is forfeited.
    chain = {k: 5 * k - 2 for k in range(1, 7)}
    low = position({"light": chain, "dark": {1: 33, 2: 34}}, phase=Phase.CAST)
    after, events = play(low, Cast(NATURAL[5]))
    assert kinds(events) == ["STICKS_CAST", "TURN_FORFEITED"]
    assert after.positions == low.positions


def test_two_or_four_adjacent_ships_in_row_three_form_a_blockade() -> None:
    """ "Once the pieces reach the third row, blockades may be formed by an even number of adjacent
    ships. In other words, any two or four adjacent pieces of the same colour cannot be attacked or
    moved by opposing ships." (assumption BLOCKADE_RUNS)"""
    assumption("BLOCKADE_RUNS")
    pair = position({"light": {1: 25, 2: 14}, "dark": {1: 27, 2: 28}}, 3)
    assert (1, 28) not in moves_of(pair)
    refused(pair, MoveShip(1, 28), "BLOCKADE", "Light ship 1", "Dark ship 2", "28", "blockade of 2")
    four = position({"light": {1: 23, 2: 14}, "dark": {1: 25, 2: 26, 3: 27, 4: 28}}, 3)
    refused(four, MoveShip(1, 26), "BLOCKADE", "Dark ship 2", "26", "blockade of 4")
    # The blockade protects against backward moves as well (27 -> 25 onto the pair 25-26).
    back = position({"light": {1: 27, 2: 29, 3: 14}, "dark": {1: 31, 2: 32, 3: 25, 4: 26}}, 2)
    assert moves_of(back) == {(3, 16)}
    assert GAME.legal_moves(replace(back, positions=(27, 29, 36, 36, 36, 36, *back.positions[6:]))) == []


def test_three_adjacent_ships_are_not_protected() -> None:
    """ "Groups of three are not protected.\""""
    state = position({"light": {1: 23, 2: 14}, "dark": {1: 25, 2: 26, 3: 27}}, 3)
    assert (1, 26) in moves_of(state)
    new_state, events = play(state, MoveShip(1, 26))
    assert kinds(events) == ["SHIPS_SWAPPED"]
    assert ships(new_state, "dark")[2] == 23


def test_a_pair_outside_row_three_is_not_a_blockade() -> None:
    """ "Once the pieces reach the third row, blockades may be formed by an even number of adjacent
    ships.\""""
    state = position({"light": {1: 18}, "dark": {1: 20, 2: 21}}, 3)
    new_state, events = play(state, MoveShip(1, 21))
    assert kinds(events) == ["SHIPS_SWAPPED"]
    assert ships(new_state, "dark")[2] == 18
    # A pair straddling rows two and three: only 25 is in row three, so 25 stands alone.
    edge = position({"light": {1: 22}, "dark": {1: 24, 2: 25}}, 3)
    assert (1, 25) in moves_of(edge)


def test_ships_in_valhalla_are_not_part_of_a_blockade() -> None:
    """ "Once past the serpent’s jaws, your ships pass into Valhalla, at which point they leave the
    board." — a ship on 35 next to ships already in Valhalla (position 36) stands alone
    (assumption BLOCKADE_RUNS)."""
    state = position({"light": {5: 31, 1: 14}, "dark": {1: 35}}, 4)
    assert (5, 35) in moves_of(state)
    new_state, events = play(state, MoveShip(5, 35))
    assert kinds(events) == ["SHIPS_SWAPPED"]
    assert ships(new_state, "dark")[1] == 31
    # ...and a real pair 34-35 is still a pair, not a group of three.
    pair = position({"light": {5: 31, 1: 14}, "dark": {1: 35, 2: 34}}, 4)
    refused(pair, MoveShip(5, 35), "BLOCKADE", "blockade of 2")


@pytest.mark.parametrize("harbour", [29, 32, 34])
def test_ships_in_safe_harbours_cannot_be_attacked(harbour: int) -> None:
    """ "Positions 29, 32 and 34 are safe harbours. Any ship docked in one of these spaces is
    protected and cannot be attacked by an opponent.\""""
    state = position({"light": {1: harbour - 3, 2: 14}, "dark": {1: harbour}}, 3)
    assert (1, harbour) not in moves_of(state)
    refused(
        state,
        MoveShip(1, harbour),
        "SAFE_HARBOUR",
        "Light ship 1",
        "Dark ship 1",
        str(harbour),
        "safe harbour",
    )
    # An empty harbour is open to anyone.
    empty = position({"light": {1: harbour - 3}, "dark": {1: 14}}, 3)
    new_state, _ = play(empty, MoveShip(1, harbour))
    assert ships(new_state, "light")[1] == harbour


def test_landing_on_the_rocky_shoal_sends_the_ship_to_the_repair_yard() -> None:
    """ "Position 30 is a rocky shoal. Landing here will severely damage your ship, and you must
    immediately move it to the ship repair yard.\""""
    state = position({"light": {1: 27, 2: 14}, "dark": {1: 22}}, 3)
    new_state, events = play(state, MoveShip(1, 30))
    assert kinds(events) == ["SHIP_MOVED", "RAN_AGROUND"]
    assert ships(new_state, "light")[1] == 19
    assert under_repair(new_state, "light", 1)
    assert new_state.phase is Phase.CAST and new_state.turn == DARK_SEAT


def test_when_the_repair_yard_is_taken_the_ship_goes_back_to_home_port() -> None:
    """ "If the repair yard space is occupied by another ship of any colour, the player must move
    their ship back to home port at position 1. It is not necessary to throw a 1 to leave this
    position.\""""
    for occupant in ({"dark": {1: 19}}, {"light": {3: 19}}):
        fleets = {"light": {1: 27, 2: 14}, "dark": {2: 22}}
        for colour, ships_ in occupant.items():
            fleets[colour] = {**fleets[colour], **ships_}
        state = position(fleets, 3)
        new_state, events = play(state, MoveShip(1, 30))
        assert kinds(events) == ["SHIP_MOVED", "SENT_HOME"]
        assert ships(new_state, "light")[1] == 1
        assert not under_repair(new_state, "light", 1)
    # From home port it moves on any cast.
    home = position({"light": {1: 1, 2: 14}, "dark": {1: 19}}, 2)
    assert (1, 3) in moves_of(home)


def test_when_home_port_is_taken_too_the_ship_goes_to_the_next_free_space() -> None:
    """ "the player must move their ship back to home port at position 1." (assumption
    HOME_PORT_TAKEN: if 1 is taken, the first free space after it)"""
    assumption("HOME_PORT_TAKEN")
    state = position({"light": {1: 27, 2: 2}, "dark": {1: 19, 2: 1, 3: 3}}, 3)
    new_state, events = play(state, MoveShip(1, 30))
    assert kinds(events) == ["SHIP_MOVED", "SENT_HOME"]
    assert ships(new_state, "light")[1] == 4
    assert "(4)" in events[1].text


def test_a_ship_under_repair_leaves_only_on_a_natural_one() -> None:
    """ "After being forced here by running aground on the rocky shoal, a player may only exit by
    throwing a natural one" (assumption REPAIR_EXIT: it then moves one space like any ship)"""
    assumption("REPAIR_EXIT")
    fleets = {"light": {1: 19, 2: 14}, "dark": {1: 22}}
    repair = [("light", 1)]
    for cast in (NATURAL[2], NATURAL[5], UNNATURAL_ONE):
        state = position(fleets, cast, repair=repair)
        assert all(m.ship != 1 for m in GAME.legal_moves(state) if isinstance(m, MoveShip))
        n = state.points
        refused(state, MoveShip(1, 19 + n), "IN_REPAIR_YARD", "Light ship 1", "repair yard", "natural one")
    one = position(fleets, sticks_of("T"), repair=repair)
    assert (1, 20) in moves_of(one)
    new_state, _ = play(one, MoveShip(1, 20))
    assert ships(new_state, "light")[1] == 20
    assert not any(new_state.repair)
    # A player whose only ship is under repair forfeits a cast that is not a natural one.
    alone = position({"light": {1: 19}, "dark": {1: 22}}, repair=repair, phase=Phase.CAST)
    after, events = play(alone, Cast(NATURAL[3]))
    assert kinds(events) == ["STICKS_CAST", "TURN_FORFEITED"]
    assert after.turn == DARK_SEAT and under_repair(after, "light", 1)


def test_other_ships_may_move_while_one_waits_in_the_repair_yard() -> None:
    """ "They may move other pieces while waiting to throw a one.\""""
    state = position({"light": {1: 19, 2: 14}, "dark": {1: 22}}, 3, repair=[("light", 1)])
    assert moves_of(state) == {(2, 17)}
    new_state, _ = play(state, MoveShip(2, 17))
    assert under_repair(new_state, "light", 1)
    assert ships(new_state, "light")[1] == 19


def test_a_ship_landing_on_the_repair_yard_otherwise_is_not_under_repair() -> None:
    """ "(this does not apply unless they are actually there for repairs)" (assumption REPAIR_EXIT:
    a ship that lands on 19 normally, or is swapped out of the yard, is not under repair)"""
    state = position({"light": {1: 17}, "dark": {1: 22}}, 2)
    new_state, _ = play(state, MoveShip(1, 19))
    assert ships(new_state, "light")[1] == 19
    assert not under_repair(new_state, "light", 1)
    later = replace(new_state, phase=Phase.MOVE, turn=LIGHT_SEAT, cast=NATURAL[3], points=3)
    assert GAME.check_state(later) == []
    assert (1, 22) in moves_of(later)
    # An opponent landing on the yard swaps the repaired ship out of it: it is free again.
    attack = position({"light": {1: 19}, "dark": {1: 16}}, 3, mover="dark", repair=[("light", 1)])
    swapped, events = play(attack, MoveShip(1, 19))
    assert kinds(events) == ["SHIPS_SWAPPED"]
    assert ships(swapped, "light")[1] == 16
    assert not any(swapped.repair)


def test_extra_points_never_free_a_ship_under_repair() -> None:
    """ "a player may only exit by throwing a natural one" (assumption LEAVING: points left over
    from a ship entering Valhalla are not a throw)"""
    # 35 + 2 leaves one point over, which a ship under repair may not use: it is lost.
    state = position({"light": {1: 35, 2: 19}, "dark": {1: 22}}, 2, repair=[("light", 2)])
    new_state, events = play(state, MoveShip(1, VALHALLA))
    assert kinds(events) == ["SHIP_ENTERED_VALHALLA", "EXTRA_POINTS_LOST"]
    assert under_repair(new_state, "light", 2)
    # With another ship to use the point, the ship under repair is refused.
    state = position({"light": {1: 35, 2: 19, 3: 14}, "dark": {1: 22}}, 2, repair=[("light", 2)])
    extra, _ = play(state, MoveShip(1, VALHALLA))
    assert extra.phase is Phase.EXTRA_POINTS and extra.points == 1
    assert moves_of(extra) == {(3, 15)}
    refused(extra, MoveShip(2, 20), "IN_REPAIR_YARD", "Light ship 2", "left over")


def test_the_first_player_to_remove_all_ships_wins() -> None:
    """ "The first player to remove all of their ships is the winner.\""""
    state = position({"light": {6: 35}, "dark": {1: 14, 2: 20}}, 1)
    over, events = play(state, MoveShip(6, VALHALLA))
    assert kinds(events) == ["SHIP_ENTERED_VALHALLA", "GAME_WON"]
    assert over.phase is Phase.OVER
    assert over.winner == LIGHT_SEAT
    outcome = GAME.outcome(over)
    assert outcome is not None
    assert outcome.result is core.Result.WIN and outcome.winners == (LIGHT_SEAT,)
    assert "Light" in outcome.summary
    assert GAME.legal_moves(over) == ()
    assert GAME.to_act(over).players == ()
    assert GAME.chance(over) is None
    for move in (Cast(), MoveShip(1, 15)):
        violation = core.validate(GAME, over, move)
        assert violation is not None and violation.reason == "GAME_OVER"
        with pytest.raises(core.IllegalMove) as raised:
            core.apply(GAME, over, move)
        assert raised.value.code is core.ErrorCode.GAME_OVER
    # The dark seat wins the same way.
    dark = position({"light": {1: 14}, "dark": {3: 33}}, 3, mover="dark")
    over, _ = play(dark, MoveShip(3, VALHALLA))
    assert GAME.outcome(over) is not None and over.winner == DARK_SEAT


@pytest.mark.parametrize(
    "sticks", [NATURAL[5], NATURAL[4], sticks_of("G")], ids=["five", "four", "natural-one"]
)
def test_doubles_option_a_five_a_four_or_a_natural_one_throws_again(sticks: Sticks) -> None:
    """ "Optional Rule: Throwing a five, a four or a natural one may be considered rolling
    ‘doubles’, allowing the player to throw again." (assumption DOUBLES)"""
    assumption("DOUBLES")
    options = Options(doubles=True)
    state = position({"light": {1: 13}, "dark": {1: 24}}, options=options, phase=Phase.CAST)
    moving, _ = play(state, Cast(sticks))
    assert moving.phase is Phase.MOVE
    after, events = play(moving, next(iter(GAME.legal_moves(moving))))
    assert kinds(events)[-1] == "THROW_AGAIN"
    assert after.phase is Phase.CAST and after.turn == LIGHT_SEAT
    # Without the option the turn passes.
    plain = position({"light": {1: 13}, "dark": {1: 24}}, phase=Phase.CAST)
    moving, _ = play(plain, Cast(sticks))
    after, events = play(moving, next(iter(GAME.legal_moves(moving))))
    assert "THROW_AGAIN" not in kinds(events)
    assert after.turn == DARK_SEAT


def test_doubles_option_other_casts_pass_the_turn_and_a_forfeited_double_throws_again() -> None:
    """ "Throwing a five, a four or a natural one may be considered rolling ‘doubles’, allowing the
    player to throw again." (assumption DOUBLES: even when no ship could move)"""
    options = Options(doubles=True)
    state = position({"light": {1: 13}, "dark": {1: 24}}, options=options, phase=Phase.CAST)
    for sticks in (NATURAL[2], NATURAL[3], UNNATURAL_ONE):
        moving, _ = play(state, Cast(sticks))
        after, events = play(moving, next(iter(GAME.legal_moves(moving))))
        assert "THROW_AGAIN" not in kinds(events)
        assert after.turn == DARK_SEAT
    # A two with no possible move is forfeited and the turn passes...
    blocked = position(
        {"light": {1: 27, 2: 29}, "dark": {1: 31, 2: 32, 3: 25, 4: 26}}, options=options, phase=Phase.CAST
    )
    after, events = play(blocked, Cast(NATURAL[2]))
    assert kinds(events) == ["STICKS_CAST", "TURN_FORFEITED"]
    assert after.turn == DARK_SEAT
    # ...but a five with no possible move is forfeited and still throws again.
    chain = {k: 5 * k - 2 for k in range(1, 7)}
    stuck = position({"light": chain, "dark": {1: 33, 2: 34}}, options=options, phase=Phase.CAST)
    after, events = play(stuck, Cast(NATURAL[5]))
    assert kinds(events) == ["STICKS_CAST", "TURN_FORFEITED", "THROW_AGAIN"]
    assert after.phase is Phase.CAST and after.turn == LIGHT_SEAT


# --------------------------------------------------------------------------- invariants and refusals


def _broken(change: str) -> State:
    base = position({"light": {1: 13, 2: 20}, "dark": {1: 22, 2: 27}}, 3)
    pos = list(base.positions)
    flags = list(base.repair)
    if change == "two ships on one space":
        pos[6] = 13
    elif change == "position 40":
        pos[1] = 40
    elif change == "position -1":
        pos[1] = -1
    elif change == "on the rocky shoal":
        pos[1] = 30
    elif change == "waiting in the layout start":
        pos[1] = 0
    elif change == "under repair away from 19":
        flags[0] = True
    elif change == "no possible move":
        return replace(
            position({"light": {1: 27, 2: 29}, "dark": {1: 31, 2: 32, 3: 25, 4: 26}}, 3),
            cast=NATURAL[2],
            points=2,
        )
    elif change == "points not the cast's score":
        return replace(base, points=4)
    elif change == "a fleet in Valhalla but not over":
        pos[:6] = [36] * 6
    elif change == "colours undecided while moving":
        return replace(base, dark_seat=-1)
    return replace(base, positions=tuple(pos), repair=tuple(flags))


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ("two ships on one space", "ships[6].position", "shares space 13"),
        ("position 40", "ships[1].position", "off the board"),
        ("position -1", "ships[1].position", "off the board"),
        ("on the rocky shoal", "ships[1].position", "rocky shoal"),
        ("waiting in the layout start", "ships[1].position", "enter start"),
        ("under repair away from 19", "ships[0].under_repair", "repair yard"),
        ("no possible move", "points", "forfeited"),
        ("points not the cast's score", "points", "score of the cast"),
        ("a fleet in Valhalla but not over", "phase", "OVER"),
        ("colours undecided while moving", "dark_seat", "colours"),
    ],
)
def test_check_state_rejects_positions_the_rules_cannot_reach(change: str, field: str, words: str) -> None:
    """ "A player cannot land on a space occupied by one of their own ships." "Landing here will
    severely damage your ship, and you must immediately move it to the ship repair yard." — a
    state breaking the rules' invariants is refused, naming the field."""
    problems = GAME.check_state(_broken(change))
    assert problems, change
    fields = {p.field: p.description for p in problems}
    assert field in fields, problems
    assert words in fields[field], fields[field]
    with pytest.raises(core.InvalidState):
        core.ensure_valid_state(GAME, _broken(change))


def test_a_ship_must_move_exactly_the_points_cast() -> None:
    """ "the number of ‘heads up’ sticks in a throw determine the score" — a ship moves exactly the
    score, forward (or backward when no forward move exists)."""
    state = position({"light": {1: 13, 2: 20}, "dark": {1: 24}}, 3)
    refused(state, MoveShip(1, 17), "WRONG_DISTANCE", "Light ship 1", "13", "exactly 3", "16")
    refused(state, MoveShip(1, 13), "WRONG_DISTANCE", "Light ship 1")
    refused(state, MoveShip(1, 40), "WRONG_DISTANCE", "Light ship 1")


def test_there_are_six_ships_per_fleet() -> None:
    """ "with the six light ships in positions 1-6 , and the six dark pieces in positions 7-12"
    (assumption SHIPS_PER_FLEET: ships are numbered 1-6)"""
    state = position({"light": {1: 13}, "dark": {1: 24}}, 3)
    for ship in (0, 7, -1):
        refused(state, MoveShip(ship, 16), "NO_SUCH_SHIP", f"ship {ship}", "1 to 6")


def test_a_ship_is_moved_before_the_sticks_are_cast_again() -> None:
    """ "Players take turns casting and moving their ships" — once cast, the points must be moved
    before casting again (MOVE_BEFORE_CASTING)."""
    state = position({"light": {1: 13}, "dark": {1: 24}}, 3)
    assert GAME.chance(state) is None
    refused(state, Cast(), "MOVE_BEFORE_CASTING", "Light", "3", "move a ship")
    refused(state, Cast(NATURAL[2]), "MOVE_BEFORE_CASTING")


def test_the_sticks_are_cast_before_a_ship_moves() -> None:
    """ "Players take turns casting and moving their ships" — no ship moves before the sticks are
    cast (CAST_FIRST)."""
    state = position({"light": {1: 13}, "dark": {1: 24}}, phase=Phase.CAST)
    refused(state, MoveShip(1, 14), "CAST_FIRST", "Light", "cast the sticks")


def test_every_recorded_assumption_is_exercised_by_a_rule_test() -> None:
    """ "No one is certain how close this version is to that lost original" — so every reading the
    engine takes where the rulebook is silent or ambiguous is recorded (``ASSUMPTIONS``, each with
    its quoted sentence and decision) and named by at least one test of this module."""
    ids = [a.id for a in ASSUMPTIONS]
    assert len(set(ids)) == len(ids)
    assert all(a.rulebook and a.decision for a in ASSUMPTIONS)
    assert GAME.describe().assumptions == ASSUMPTIONS
    docs = " ".join(
        f.__doc__ or "" for name, f in globals().items() if name.startswith("test_") and callable(f)
    )
    assert [i for i in ids if i not in docs] == []
