"""Exact-value tests of the Valhalla engine that close gaps found by mutation testing.

The scenarios of ``test_valhalla_rules.py`` check which reason a move is refused for and that its
sentence names a few words; these pin what a player or a client reads word for word (every refusal
sentence with its field, every kind of event text with its player and detail), which end ships of
runs of two, three and four ships in row three are protected, a backward move landing exactly on
space 1, and the invariants ``check_state`` enforces on finished games and on the repair flags.
Positions are built with the helpers of ``test_valhalla_rules.py``: seat 0 sails light and seat 1
dark, and ships not named are already in Valhalla (36).
"""

# The docstrings quote the rulebook verbatim, with its curly quotation marks.
# ruff: noqa: RUF002

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from test_valhalla_rules import (
    DARK_SEAT,
    ENTER,
    HAGALAZ_ALONE,
    LIGHT_SEAT,
    NATURAL,
    UNNATURAL_ONE,
    VALHALLA,
    Fleets,
    moves_of,
    play,
    position,
    ships,
    sticks_of,
)

from lawspeaker.games import core, valhalla
from lawspeaker.games.core import Event, FieldViolation, Rng, Violation
from lawspeaker.games.valhalla import (
    GAME,
    Cast,
    EventDetail,
    Move,
    MoveShip,
    Options,
    Phase,
    State,
    Sticks,
)

LIGHT, DARK = 0, 1

# --------------------------------------------------------------------------- helpers


def refusal(state: State, move: Move) -> Violation:
    """The violation ``move`` is refused with; it is not listed and applying it raises that reason."""
    assert move not in GAME.legal_moves(state)
    violation = core.validate(GAME, state, move)
    assert violation is not None, f"{move} should be refused"
    with pytest.raises(core.IllegalMove) as raised:
        core.apply(GAME, state, move)
    assert raised.value.reason == violation.reason
    return violation


def moved(colour: int, ship: int, frm: int, to: int) -> EventDetail:
    return EventDetail(colour=colour, ship=ship, frm=frm, to=to)


# --------------------------------------------------------------------------- blockades: run ends


def _attack(dark: list[int], frm: int, target: int) -> State:
    """Light's only ship on ``frm`` casts exactly the distance to ``target``, held by a dark ship."""
    points = target - frm if target > frm else frm - target
    state = position({"light": {1: frm}, "dark": {k + 1: s for k, s in enumerate(dark)}}, points)
    assert target in state.positions[6:]
    return state


#: (dark ships in row three, light ship's space, the dark ship attacked, length of its run).
RUN_ENDS = [
    # runs of two: both end ships are protected
    ([26, 27], 23, 26, 2),
    ([26, 27], 24, 27, 2),
    ([25, 26], 22, 25, 2),  # the run starts on the first space of row three
    ([34, 35], 31, 35, 2),  # the run ends on 35, the last space before Valhalla
    # runs of three: neither end ship is protected
    ([26, 27, 28], 23, 26, 3),
    ([26, 27, 28], 25, 28, 3),
    ([25, 26, 27], 22, 25, 3),
    ([25, 26, 27], 24, 27, 3),  # counted back to 25, the first space of row three
    ([33, 34, 35], 31, 33, 3),  # counted on to 35, the last space before Valhalla
    ([33, 34, 35], 31, 35, 3),
    # runs of four: both end ships are protected
    ([25, 26, 27, 28], 22, 25, 4),
    ([25, 26, 27, 28], 24, 28, 4),
    ([32, 33, 34, 35], 31, 35, 4),
    # a run of one and a run of five are not protected either
    ([27], 24, 27, 1),
    ([25, 26, 27, 28, 29], 22, 25, 5),
]


@pytest.mark.parametrize(("dark", "frm", "target", "run"), RUN_ENDS)
def test_only_the_end_ships_of_even_runs_in_row_three_are_protected(
    dark: list[int], frm: int, target: int, run: int
) -> None:
    """ "any two or four adjacent pieces of the same colour cannot be attacked or moved by opposing
    ships. Groups of three are not protected." — the ship at either end of a run counts the whole
    run, up to the first space of row three (25) and to 35 (assumption BLOCKADE_RUNS)."""
    state = _attack(dark, frm, target)
    victim = 1 + dark.index(target)
    if run % 2 == 0:
        assert refusal(state, MoveShip(1, target)) == Violation(
            "BLOCKADE",
            f"Light ship 1 cannot attack Dark ship {victim} on {target}: it is part of a blockade of "
            f"{run} adjacent ships in row three.",
            "move_ship.to",
        )
        assert (1, target) not in moves_of(state)
    else:
        assert moves_of(state) == {(1, target)}
        after, events = play(state, MoveShip(1, target))
        assert events == [
            Event(
                "SHIPS_SWAPPED",
                f"Light ship 1 moved from {frm} to {target} and swapped places with Dark ship {victim}, "
                f"which goes to {frm}.",
                LIGHT_SEAT,
                moved(LIGHT, 1, frm, target),
            )
        ]
        assert ships(after, "light")[1] == target
        assert ships(after, "dark")[victim] == frm


def test_a_run_of_three_broken_by_a_light_ship_leaves_a_protected_pair() -> None:
    """ "blockades may be formed by an even number of adjacent ships. In other words, any two or four
    adjacent pieces of the same colour cannot be attacked" — adjacent ships of the other colour do
    not lengthen a run: dark 26-27 beside light 28 is a pair."""
    state = position({"light": {1: 23, 2: 28}, "dark": {1: 26, 2: 27}}, 4)
    assert refusal(state, MoveShip(1, 27)) == Violation(
        "BLOCKADE",
        "Light ship 1 cannot attack Dark ship 2 on 27: it is part of a blockade of 2 adjacent ships in "
        "row three.",
        "move_ship.to",
    )


def test_a_light_pair_beside_a_dark_ship_is_a_blockade_against_dark() -> None:
    """ "any two or four adjacent pieces of the same colour cannot be attacked or moved by opposing
    ships." — the same for a light pair attacked by dark: dark's own ship next to the pair does not
    lengthen it, and a lone light ship next to a dark ship is open."""
    pair = position({"light": {1: 27, 2: 26}, "dark": {1: 23, 2: 28}}, 4, mover="dark")
    assert refusal(pair, MoveShip(1, 27)) == Violation(
        "BLOCKADE",
        "Dark ship 1 cannot attack Light ship 1 on 27: it is part of a blockade of 2 adjacent ships in "
        "row three.",
        "move_ship.to",
    )
    lone = position({"light": {1: 27}, "dark": {1: 23, 2: 28}}, 4, mover="dark")
    assert moves_of(lone) == {(1, 27), (2, 32)}


def test_a_backward_move_onto_the_end_ship_of_a_pair_is_refused_but_of_a_three_swaps() -> None:
    """ "any two or four adjacent pieces of the same colour cannot be attacked or moved by opposing
    ships. Groups of three are not protected." — a ship moving backward (no forward move) is held
    off the end ship of a pair, but lands on the end ship of a run of three."""
    # Light 28 + 4 = 32 and 31 + 4 = 35 land on dark ships in a harbour and in the pair 34-35: no
    # forward move. Backward, 28 -> 24 is open, and 31 -> 27 lands on the end of a dark run.
    guard = {1: 32, 2: 34, 3: 35}
    three = position({"light": {1: 28, 2: 31}, "dark": {**guard, 4: 25, 5: 26, 6: 27}}, 4)
    assert moves_of(three) == {(1, 24), (2, 27)}
    after, events = play(three, MoveShip(2, 27))
    assert events == [
        Event(
            "SHIPS_SWAPPED",
            "Light ship 2 moved from 31 to 27 and swapped places with Dark ship 6, which goes to 31.",
            LIGHT_SEAT,
            moved(LIGHT, 2, 31, 27),
        )
    ]
    assert ships(after, "light")[2] == 27 and ships(after, "dark")[6] == 31
    pair = position({"light": {1: 28, 2: 31}, "dark": {**guard, 5: 26, 6: 27}}, 4)
    assert moves_of(pair) == {(1, 24)}
    assert refusal(pair, MoveShip(2, 27)) == Violation(
        "BLOCKADE",
        "Light ship 2 cannot attack Dark ship 6 on 27: it is part of a blockade of 2 adjacent ships in "
        "row three.",
        "move_ship.to",
    )


# --------------------------------------------------------------------------- backward onto space 1


def _back_to_one(dark: Fleets) -> State:
    # Light on 6, 11, 16, 21, 26, 31 with a five: every forward move lands on its own ship, and 31
    # may not pass into Valhalla while 6 and 11 are in row one; backward only 6 -> 1 is open.
    chain = {k: 5 * k + 1 for k in range(1, 7)}
    return position({"light": chain, **dark}, 5)


def test_a_backward_move_may_land_exactly_on_space_1() -> None:
    """ "Players must move their ships forward unless no forward moves are possible - in that case,
    they must move backward." (assumption BACKWARD: a backward move cannot go below space 1, but
    space 1 itself is a space of the board)"""
    state = _back_to_one({"dark": {1: 14}})
    assert GAME.legal_moves(state) == [MoveShip(1, 1)]
    after, events = play(state, MoveShip(1, 1))
    assert events == [
        Event("SHIP_MOVED", "Light ship 1 moved from 6 to 1.", LIGHT_SEAT, moved(LIGHT, 1, 6, 1))
    ]
    assert ships(after, "light")[1] == 1
    assert after.phase is Phase.CAST and after.turn == DARK_SEAT
    # The sentence of a wrong distance offers the move back to 1.
    assert refusal(state, MoveShip(1, 2)) == Violation(
        "WRONG_DISTANCE",
        "Light ship 1 on 6 must move exactly 5: to 11, or back to 1 if no ship can move forward.",
        "move_ship.to",
    )


def test_a_backward_move_onto_space_1_swaps_with_an_opposing_ship_there() -> None:
    """ "If a player lands on a space occupied by an opposing ship, the two ships exchange places."
    (assumption BACKWARD: landing on an opponent backward swaps too, on space 1 as well)"""
    state = _back_to_one({"dark": {1: 1}})
    assert GAME.legal_moves(state) == [MoveShip(1, 1)]
    after, events = play(state, MoveShip(1, 1))
    assert events == [
        Event(
            "SHIPS_SWAPPED",
            "Light ship 1 moved from 6 to 1 and swapped places with Dark ship 1, which goes to 6.",
            LIGHT_SEAT,
            moved(LIGHT, 1, 6, 1),
        )
    ]
    assert ships(after, "light")[1] == 1 and ships(after, "dark")[1] == 6


# --------------------------------------------------------------------------- check_state


def _over(light: dict[int, int], dark: dict[int, int], winner: int, dark_seat: int = DARK_SEAT) -> State:
    """A finished game (phase OVER) naming ``winner``; ships not named are in Valhalla."""
    positions = [VALHALLA] * 12
    for ship, space in light.items():
        positions[ship - 1] = space
    for ship, space in dark.items():
        positions[6 + ship - 1] = space
    return State(
        Options(),
        Phase.OVER,
        max(winner, 0),
        dark_seat,
        tuple(positions),
        (False,) * 12,
        None,
        0,
        winner,
        10,
        Rng.from_seed(7),
    )


WRONG_WINNER = FieldViolation("winner", "must be the seat whose fleet is all in Valhalla")


def test_check_state_accepts_a_finished_game_won_by_the_seat_whose_fleet_is_in_valhalla() -> None:
    """ "The first player to remove all of their ships is the winner." — a finished game is valid
    exactly when its winner is the seat sailing the fleet that is all in Valhalla."""
    assert GAME.check_state(_over({}, {1: 14}, LIGHT_SEAT)) == []
    assert GAME.check_state(_over({1: 14}, {}, DARK_SEAT)) == []
    # With the seats the other way round (seat 0 sails dark), the seats change, not the rule.
    assert GAME.check_state(_over({}, {1: 14}, 1, dark_seat=0)) == []
    assert GAME.check_state(_over({1: 14}, {}, 0, dark_seat=0)) == []


@pytest.mark.parametrize(
    ("light", "dark", "winner", "dark_seat"),
    [
        ({}, {1: 14}, DARK_SEAT, DARK_SEAT),  # light sailed home, dark named
        ({1: 14}, {}, LIGHT_SEAT, DARK_SEAT),  # dark sailed home, light named
        ({}, {1: 14}, 0, 0),  # seat 0 sails dark, light (seat 1) sailed home
        ({1: 14}, {}, 1, 0),  # seat 0 sails dark and sailed home
        ({}, {1: 14}, -1, DARK_SEAT),  # nobody named
        ({1: 13}, {1: 14}, LIGHT_SEAT, DARK_SEAT),  # no fleet is home
    ],
)
def test_check_state_rejects_a_finished_game_naming_the_wrong_winner(
    light: dict[int, int], dark: dict[int, int], winner: int, dark_seat: int
) -> None:
    """ "The first player to remove all of their ships is the winner." — a finished game naming
    another seat, or none, is refused on its ``winner`` field."""
    state = _over(light, dark, winner, dark_seat)
    assert GAME.check_state(state) == [WRONG_WINNER]
    with pytest.raises(core.InvalidState):
        core.ensure_valid_state(GAME, state)


def test_check_state_rejects_both_fleets_in_valhalla() -> None:
    """ "The first player to remove all of their ships is the winner." — the game ends with the
    first fleet home, so the second can never follow it."""
    state = _over({}, {}, LIGHT_SEAT)
    assert GAME.check_state(state) == [
        FieldViolation("ships", "both fleets cannot be in Valhalla"),
        WRONG_WINNER,
    ]


def test_check_state_rejects_a_winner_while_the_game_goes_on() -> None:
    """ "The first player to remove all of their ships is the winner." — no winner before then."""
    state = replace(position({"light": {1: 13}, "dark": {1: 14}}, phase=Phase.CAST), winner=LIGHT_SEAT)
    assert GAME.check_state(state) == [FieldViolation("winner", "must be -1 while the game goes on")]


@pytest.mark.parametrize(
    ("where", "options", "label"),
    [
        (VALHALLA, Options(), "Light ship 2"),
        (0, ENTER, "Light ship 2"),
    ],
    ids=["in-valhalla", "off-the-board"],
)
def test_check_state_rejects_a_ship_under_repair_away_from_the_yard(
    where: int, options: Options, label: str
) -> None:
    """ "Position 19 is the ship repair yard. After being forced here by running aground on the
    rocky shoal, a player may only exit by throwing a natural one" — only a ship in the yard is
    under repair: not one in Valhalla, nor one waiting off the board."""
    base = position({"light": {1: 13, 2: where}, "dark": {1: 14}}, phase=Phase.CAST, options=options)
    state = replace(base, repair=(False, True, *(False,) * 10))
    assert GAME.check_state(state) == [
        FieldViolation("ships[1].under_repair", f"{label} is under repair but not in the repair yard")
    ]
    # A dark ship in Valhalla under repair while a light ship rests in the yard: one flag each.
    both = replace(
        position({"light": {1: 19}, "dark": {1: 14}}, phase=Phase.CAST, options=options),
        repair=(True, *(False,) * 10, True),
    )
    assert GAME.check_state(both) == [
        FieldViolation("ships[11].under_repair", "Dark ship 6 is under repair but not in the repair yard")
    ]


def test_check_state_names_each_broken_invariant_in_words() -> None:
    """ "A player cannot land on a space occupied by one of their own ships." "Landing here will
    severely damage your ship, and you must immediately move it to the ship repair yard." — each
    invariant a state breaks is listed with its field and an exact sentence."""
    base = position({"light": {1: 13, 2: 20}, "dark": {1: 22, 2: 27}}, 3)

    def at(index: int, space: int) -> State:
        pos = list(base.positions)
        pos[index] = space
        return replace(base, positions=tuple(pos))

    ply_problem = core.check_ply(-1)
    assert ply_problem is not None
    cases: list[tuple[State, list[FieldViolation]]] = [
        (at(6, 13), [FieldViolation("ships[6].position", "Dark ship 1 shares space 13 with another ship")]),
        (at(1, 40), [FieldViolation("ships[1].position", "Light ship 2 is on 40, off the board (0-36)")]),
        (at(1, 37), [FieldViolation("ships[1].position", "Light ship 2 is on 37, off the board (0-36)")]),
        (
            at(1, 30),
            [FieldViolation("ships[1].position", "Light ship 2 cannot rest on the rocky shoal (30)")],
        ),
        (
            at(1, 0),
            [
                FieldViolation(
                    "ships[1].position",
                    "Light ship 2 is waiting off the board, which only the enter start allows",
                )
            ],
        ),
        (
            replace(base, positions=base.positions[:11], repair=base.repair[:11]),
            [FieldViolation("ships", "must hold exactly 6 light and 6 dark ships")],
        ),
        (
            replace(base, repair=base.repair[:11]),
            [FieldViolation("ships", "must hold exactly 6 light and 6 dark ships")],
        ),
        (replace(base, turn=2), [FieldViolation("turn", "must be 0 or 1")]),
        (
            replace(base, dark_seat=2),
            [FieldViolation("dark_seat", "must be 0, 1, or -1 while colours are undecided")],
        ),
        (
            replace(base, dark_seat=-1),
            [FieldViolation("dark_seat", "is -1 exactly while colours are being chosen")],
        ),
        (replace(base, cast=None), [FieldViolation("cast", "is required while a cast is being played")]),
        (replace(base, points=4), [FieldViolation("points", "must be the score of the cast")]),
        (
            replace(base, phase=Phase.EXTRA_POINTS, points=6),
            [FieldViolation("points", "must be 1 to 5 while a ship is to move")],
        ),
        (
            replace(base, phase=Phase.CAST, cast=None),
            [FieldViolation("points", "must be 0 when no ship is to move")],
        ),
        (replace(base, ply=-1), [ply_problem]),
    ]
    for state, expected in cases:
        assert GAME.check_state(state) == expected, state
    # Colours are chosen on the untouched layout only.
    fresh = GAME.new_game(2, Options(), Rng.from_seed(1))
    moved_layout = replace(fresh, positions=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13))
    assert GAME.check_state(moved_layout) == [
        FieldViolation("ships", "ships must stand on the starting layout while colours are chosen")
    ]
    # A fleet home while the game goes on.
    home = replace(base, positions=(36,) * 6 + base.positions[6:])
    assert GAME.check_state(home) == [FieldViolation("phase", "must be OVER once a fleet is all in Valhalla")]
    # A move state in which no ship can move should have been forfeited.
    stuck = position({"light": {1: 27, 2: 29}, "dark": {1: 31, 2: 32, 3: 25, 4: 26}}, 3)
    assert GAME.check_state(replace(stuck, cast=NATURAL[2], points=2)) == [
        FieldViolation("points", "no ship can move these points: the turn should have been forfeited")
    ]


def _flagged(options: Options, spaces: dict[int, int], flags: set[int]) -> State:
    """A state in phase CAST with ship index -> space changed from a valid one, ``flags`` under repair."""
    base = position({"light": {1: 13}, "dark": {1: 14}}, phase=Phase.CAST, options=options)
    pos = list(base.positions)
    for index, space in spaces.items():
        pos[index] = space
    return replace(base, positions=tuple(pos), repair=tuple(i in flags for i in range(12)))


def test_check_state_names_every_ship_that_stands_where_it_cannot() -> None:
    """ "A player cannot land on a space occupied by one of their own ships." "Position 19 is the ship
    repair yard." — every ship breaking a rule is named once: two ships on space 1 with either start,
    a second ship on a space whose first ship is wrongly under repair, and ships under repair that
    wait off the board or are in Valhalla (which are no space of the board to share)."""
    for options in (Options(), ENTER):
        assert GAME.check_state(_flagged(options, {1: 1, 6: 1}, set())) == [
            FieldViolation("ships[6].position", "Dark ship 1 shares space 1 with another ship")
        ]
        assert GAME.check_state(_flagged(options, {1: 30}, set())) == [
            FieldViolation("ships[1].position", "Light ship 2 cannot rest on the rocky shoal (30)")
        ]
    # Light ship 1 on 13 is wrongly under repair; dark ship 1 joins it there.
    assert GAME.check_state(_flagged(Options(), {6: 13}, {0})) == [
        FieldViolation("ships[0].under_repair", "Light ship 1 is under repair but not in the repair yard"),
        FieldViolation("ships[6].position", "Dark ship 1 shares space 13 with another ship"),
    ]
    # Two ships in Valhalla, or two waiting off the board, both under repair, share no space.
    for options, space in ((Options(), VALHALLA), (ENTER, 0)):
        assert GAME.check_state(_flagged(options, {2: space, 3: space}, {2, 3})) == [
            FieldViolation(
                "ships[2].under_repair", "Light ship 3 is under repair but not in the repair yard"
            ),
            FieldViolation(
                "ships[3].under_repair", "Light ship 4 is under repair but not in the repair yard"
            ),
        ]


def _board(options: Options, light: list[int], dark: list[int]) -> State:
    return State(
        options,
        Phase.CAST,
        LIGHT_SEAT,
        DARK_SEAT,
        (*light, *dark),
        (False,) * 12,
        None,
        0,
        -1,
        10,
        Rng.from_seed(7),
    )


def _shares(index: int, space: int) -> FieldViolation:
    colour = "Light" if index < 6 else "Dark"
    return FieldViolation(
        f"ships[{index}].position", f"{colour} ship {index % 6 + 1} shares space {space} with another ship"
    )


@pytest.mark.parametrize(
    ("options", "light", "dark", "shared"),
    [
        # one ship in Valhalla, one space shared
        (Options(), [13, 14, 15, 16, 17, 18], [13, 21, 22, 23, 24, 36], [(6, 13)]),
        # several ships in Valhalla, two spaces shared
        (Options(), [13, 14, 15, 36, 36, 36], [13, 14, 36, 36, 36, 36], [(6, 13), (7, 14)]),
        # one ship waiting off the board, one space shared
        (ENTER, [0, 14, 15, 16, 17, 18], [14, 21, 22, 23, 24, 25], [(6, 14)]),
        # two ships waiting off the board, two spaces shared
        (ENTER, [0, 0, 13, 14, 15, 16], [13, 14, 22, 23, 24, 25], [(6, 13), (7, 14)]),
    ],
    ids=["one-in-valhalla", "many-in-valhalla", "one-waiting", "two-waiting"],
)
def test_check_state_finds_ships_sharing_a_space_however_many_wait_or_are_in_valhalla(
    options: Options, light: list[int], dark: list[int], shared: list[tuple[int, int]]
) -> None:
    """ "A player cannot land on a space occupied by one of their own ships." "If a player lands on a
    space occupied by an opposing ship, the two ships exchange places." — no two ships ever share a
    space of the board, whatever number of ships wait off it or have passed into Valhalla."""
    assert GAME.check_state(_board(options, light, dark)) == [_shares(i, space) for i, space in shared]


# --------------------------------------------------------------------------- refusals, word for word


def test_every_refusal_of_a_cast_or_a_move_out_of_turn_is_pinned() -> None:
    """ "Players take turns casting and moving their ships" — the sentences of CAST_FIRST and
    MOVE_BEFORE_CASTING, before colours are chosen, before the cast, after it and with points left
    over."""
    choosing = GAME.new_game(2, Options(), Rng.from_seed(1))
    assert refusal(choosing, MoveShip(6, 13)) == Violation(
        "CAST_FIRST",
        "No ship moves until colours are chosen: Player 1 must cast the sticks; the first natural one "
        "takes the dark ships.",
        "move_ship",
    )
    second, _ = play(choosing, Cast(NATURAL[2]))
    assert refusal(second, MoveShip(1, 8)).message == (
        "No ship moves until colours are chosen: Player 2 must cast the sticks; the first natural one "
        "takes the dark ships."
    )
    casting = position({"light": {1: 13}, "dark": {1: 24}}, phase=Phase.CAST, mover="dark")
    assert refusal(casting, MoveShip(1, 25)) == Violation(
        "CAST_FIRST", "Dark must cast the sticks before moving a ship.", "move_ship"
    )
    moving = position({"light": {1: 13}, "dark": {1: 24}}, 3)
    assert refusal(moving, Cast()) == Violation(
        "MOVE_BEFORE_CASTING", "Light cast 3 and must move a ship before the sticks are cast again.", "cast"
    )
    for points, words in ((3, "3 points"), (1, "1 point")):
        extra = position(
            {"light": {1: 13, 2: 20}, "dark": {1: 24}}, 5, phase=Phase.EXTRA_POINTS, points=points
        )
        assert refusal(extra, Cast(NATURAL[1])) == Violation(
            "MOVE_BEFORE_CASTING",
            f"Light has {words} left over from a ship entering Valhalla and must move another ship before "
            "the sticks are cast again.",
            "cast",
        )


def test_every_refusal_of_a_ship_move_is_pinned() -> None:
    """ "Each player may move only one piece per throw" ... "A player cannot land on a space occupied
    by one of their own ships." — one representative position for each reason a ship move is refused
    for, with its exact sentence and field."""
    plain = position({"light": {1: 13, 2: 20}, "dark": {1: 24}}, 3)
    near = position({"light": {1: 34, 2: 14}, "dark": {1: 24}}, 3)
    low = position({"light": {1: 2, 2: 14}, "dark": {1: 24}}, 3)
    waiting = position({"light": {1: 0, 3: 0, 2: 9}, "dark": {1: 0, 2: 20}}, 3, options=ENTER)
    row_one = position({"light": {1: 34, 2: 12}, "dark": {1: 20}}, 3)
    harbour = position({"light": {1: 26, 2: 14}, "dark": {1: 29}}, 3)
    pair = position({"light": {1: 25, 2: 14}, "dark": {1: 27, 2: 28}}, 3)
    entry = position({"light": {1: 2, 2: 20}, "dark": {1: 5, 2: 8}}, 3, options=ENTER)
    forward = position({"light": {1: 27, 2: 29}, "dark": {1: 20}}, 2)
    only_valhalla = position({"light": {1: 27, 2: 34}, "dark": {1: 29}}, 2)
    repair = position({"light": {1: 19, 2: 14}, "dark": {1: 22}}, 3, repair=[("light", 1)])
    light_own = position({"light": {1: 17, 2: 14}, "dark": {1: 20}}, 3)
    back_to_one = position({"light": {1: 4, 2: 14}, "dark": {1: 20}}, 3)
    repair_one = position({"light": {1: 19, 2: 14}, "dark": {1: 22}}, sticks_of("S"), repair=[("light", 1)])
    dark_own = position({"light": {1: 20}, "dark": {1: 14, 2: 17}}, 3, mover="dark")
    cases: list[tuple[State, MoveShip, Violation]] = [
        (
            light_own,
            MoveShip(2, 17),
            Violation(
                "LANDS_ON_OWN_SHIP",
                "Light ship 2 cannot land on 17: your own ship 1 is there.",
                "move_ship.to",
            ),
        ),
        (
            back_to_one,
            MoveShip(1, 1),
            Violation(
                "MUST_MOVE_FORWARD",
                "Light ship 1 cannot move backward: a forward move is possible (for example ship 1 to 7).",
                "move_ship.to",
            ),
        ),
        (
            repair_one,
            MoveShip(1, 21),
            Violation(
                "WRONG_DISTANCE",
                "Light ship 1 on 19 must move exactly 1: to 20, or back to 18 if no ship can move forward.",
                "move_ship.to",
            ),
        ),
        (
            plain,
            MoveShip(7, 16),
            Violation("NO_SUCH_SHIP", "There is no ship 7: ships are numbered 1 to 6.", "move_ship.ship"),
        ),
        (
            plain,
            MoveShip(0, 16),
            Violation("NO_SUCH_SHIP", "There is no ship 0: ships are numbered 1 to 6.", "move_ship.ship"),
        ),
        (
            plain,
            MoveShip(6, VALHALLA),
            Violation("SHIP_IN_VALHALLA", "Light ship 6 has already passed into Valhalla.", "move_ship.ship"),
        ),
        (
            plain,
            MoveShip(1, 17),
            Violation(
                "WRONG_DISTANCE",
                "Light ship 1 on 13 must move exactly 3: to 16, or back to 10 if no ship can move forward.",
                "move_ship.to",
            ),
        ),
        (
            near,
            MoveShip(1, 35),
            Violation(
                "WRONG_DISTANCE",
                "Light ship 1 on 34 must move exactly 3: to Valhalla (36), or back to 31 if no ship can move "
                "forward.",
                "move_ship.to",
            ),
        ),
        (
            low,
            MoveShip(1, 4),
            Violation("WRONG_DISTANCE", "Light ship 1 on 2 must move exactly 3: to 5.", "move_ship.to"),
        ),
        (
            waiting,
            MoveShip(3, 4),
            Violation(
                "WRONG_DISTANCE",
                "Light ship 3, waiting off the board, must move exactly 3: to 3.",
                "move_ship.to",
            ),
        ),
        (
            row_one,
            MoveShip(1, VALHALLA),
            Violation(
                "ROW_ONE_NOT_CLEAR",
                "Light ship 1 cannot pass into Valhalla while your ship 2 is still in row one (spaces 1-12): "
                "all ships must leave row one before any exits the board.",
                "move_ship.to",
            ),
        ),
        (
            dark_own,
            MoveShip(1, 17),
            Violation(
                "LANDS_ON_OWN_SHIP",
                "Dark ship 1 cannot land on 17: your own ship 2 is there.",
                "move_ship.to",
            ),
        ),
        (
            harbour,
            MoveShip(1, 29),
            Violation(
                "SAFE_HARBOUR",
                "Light ship 1 cannot attack Dark ship 1 on 29: it is docked in a safe harbour.",
                "move_ship.to",
            ),
        ),
        (
            pair,
            MoveShip(1, 28),
            Violation(
                "BLOCKADE",
                "Light ship 1 cannot attack Dark ship 2 on 28: it is part of a blockade of 2 adjacent "
                "ships in row three.",
                "move_ship.to",
            ),
        ),
        (
            entry,
            MoveShip(1, 5),
            Violation(
                "ENTRY_SPACE_PROTECTED",
                "Light ship 1 cannot land on 5: it is taken by Dark ship 1, and ships on spaces 1-5 "
                "cannot be hit.",
                "move_ship.to",
            ),
        ),
        (
            forward,
            MoveShip(1, 25),
            Violation(
                "MUST_MOVE_FORWARD",
                "Light ship 1 cannot move backward: a forward move is possible (for example ship 2 to 31).",
                "move_ship.to",
            ),
        ),
        (
            only_valhalla,
            MoveShip(1, 25),
            Violation(
                "MUST_MOVE_FORWARD",
                "Light ship 1 cannot move backward: a forward move is possible (for example ship 2 to 36).",
                "move_ship.to",
            ),
        ),
        (
            repair,
            MoveShip(1, 22),
            Violation(
                "IN_REPAIR_YARD",
                "Light ship 1 is in the repair yard (19) and may only leave on a natural one.",
                "move_ship.ship",
            ),
        ),
    ]
    for state, move, expected in cases:
        assert refusal(state, move) == expected, move
    # The first example is a move that stays on the board, when there is one.
    assert moves_of(only_valhalla) == {(2, VALHALLA)}
    mixed = position({"light": {1: 27, 2: 34, 3: 14}, "dark": {1: 29}}, 2)
    assert refusal(mixed, MoveShip(1, 25)).message == (
        "Light ship 1 cannot move backward: a forward move is possible (for example ship 3 to 16)."
    )
    # Points left over never free a ship under repair.
    leftover = position(
        {"light": {1: 19, 2: 14}, "dark": {1: 22}},
        2,
        repair=[("light", 1)],
        phase=Phase.EXTRA_POINTS,
        points=1,
    )
    assert refusal(leftover, MoveShip(1, 20)) == Violation(
        "IN_REPAIR_YARD",
        "Light ship 1 is in the repair yard and may only leave on a natural one, not on points left over "
        "from a ship entering Valhalla.",
        "move_ship.ship",
    )
    # An unnatural one does not free it either.
    unnatural = position({"light": {1: 19, 2: 14}, "dark": {1: 22}}, UNNATURAL_ONE, repair=[("light", 1)])
    assert refusal(unnatural, MoveShip(1, 20)).reason == "IN_REPAIR_YARD"


# --------------------------------------------------------------------------- events, word for word


def test_cast_events_name_the_sticks_the_score_and_whether_it_is_natural() -> None:
    """ "Throws in which each rune represents one point are called ‘natural’ casts. Throws in which
    Hagalaz decreases the score are called ‘unnatural’ casts.\""""
    state = position({"light": {1: 13}, "dark": {1: 24}}, phase=Phase.CAST)
    for sticks, text, points, natural in (
        (NATURAL[2], "Light cast Sowulo and Tiewaz heads up: 2, natural.", 2, True),
        (UNNATURAL_ONE, "Light cast Sowulo and Tiewaz and Hagalaz heads up: 1, unnatural.", 1, False),
        (NATURAL[5], "Light cast all tails up: 5, natural.", 5, True),
        (sticks_of("GH"), "Light cast Gebo and Hagalaz heads up: 2, natural.", 2, True),
    ):
        after, events = play(state, Cast(sticks))
        assert events == [
            Event("STICKS_CAST", text, LIGHT_SEAT, EventDetail(sticks=sticks, score=points, natural=natural))
        ]
        assert after.phase is Phase.MOVE and after.points == points


def test_forfeit_events_say_why_the_turn_is_forfeited() -> None:
    """ "If a space is occupied by another ship of either colour, the player forfeits their turn." —
    the three ways a cast is forfeited: nothing scored, no ship able to move, an entry space taken."""
    state = position({"light": {1: 13}, "dark": {1: 24}}, phase=Phase.CAST)
    _, events = play(state, Cast(HAGALAZ_ALONE))
    assert events[1:] == [Event("TURN_FORFEITED", "Light scored nothing and forfeits the turn.", LIGHT_SEAT)]
    blocked = position({"light": {1: 27, 2: 29}, "dark": {1: 31, 2: 32, 3: 25, 4: 26}}, phase=Phase.CAST)
    _, events = play(blocked, Cast(NATURAL[2]))
    assert events[1:] == [
        Event("TURN_FORFEITED", "Light cannot move any ship 2 spaces and forfeits the turn.", LIGHT_SEAT)
    ]
    entering = position({"light": {1: 0, 2: 3, 3: 9}, "dark": {1: 0, 2: 1}}, options=ENTER, phase=Phase.CAST)
    _, events = play(entering, Cast(NATURAL[3]))
    assert events[1:] == [
        Event(
            "TURN_FORFEITED",
            "Light has a ship waiting to enter on 3, which is occupied, and forfeits the turn.",
            LIGHT_SEAT,
        )
    ]


def test_choosing_colours_events_name_the_seats_and_the_first_dark_move() -> None:
    """ "The first person to throw a natural one ... would begin play by moving the dark piece from
    position 12 to position 13 (this will be their colour for the rest of the game). Play then passes
    to the other player, who will be moving the light coloured ships.\""""
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    state, events = play(state, Cast(NATURAL[3]))
    assert events == [
        Event(
            "STICKS_CAST",
            "Player 1 cast Sowulo and Tiewaz and Gebo heads up: 3, natural.",
            0,
            EventDetail(sticks=NATURAL[3], score=3, natural=True),
        )
    ]
    one = sticks_of("T")
    _, events = play(state, Cast(one))
    assert events == [
        Event(
            "STICKS_CAST",
            "Player 2 cast Tiewaz heads up: 1, natural.",
            1,
            EventDetail(sticks=one, score=1, natural=True),
        ),
        Event(
            "COLOURS_CHOSEN",
            "Player 2 cast the first natural one and takes the dark ships; Player 1 sails the light ships.",
            1,
            EventDetail(colour=DARK),
        ),
        Event("SHIP_MOVED", "Dark ship 6 moved from 12 to 13.", 1, moved(DARK, 6, 12, 13)),
    ]


def test_move_events_say_where_each_ship_went() -> None:
    """ "Players take turns casting and moving their ships onto the board" ... "If a player lands on
    a space occupied by an opposing ship, the two ships exchange places." — the texts of a plain
    move, an entry and a swap, for either colour."""
    state = position({"light": {1: 13, 2: 16}, "dark": {1: 20}}, 2)
    _, events = play(state, MoveShip(2, 18))
    assert events == [
        Event("SHIP_MOVED", "Light ship 2 moved from 16 to 18.", LIGHT_SEAT, moved(LIGHT, 2, 16, 18))
    ]
    enter = position({"light": {1: 0, 2: 0}, "dark": {1: 0}}, 3, options=ENTER, mover="dark")
    _, events = play(enter, MoveShip(1, 3))
    assert events == [
        Event("SHIP_MOVED", "Dark ship 1 entered the board on 3.", DARK_SEAT, moved(DARK, 1, 0, 3))
    ]
    swap = position({"light": {4: 17}, "dark": {2: 14, 3: 22}}, 3, mover="dark")
    _, events = play(swap, MoveShip(2, 17))
    assert events == [
        Event(
            "SHIPS_SWAPPED",
            "Dark ship 2 moved from 14 to 17 and swapped places with Light ship 4, which goes to 14.",
            DARK_SEAT,
            moved(DARK, 2, 14, 17),
        )
    ]


def test_rocky_shoal_events_say_where_the_damaged_ship_goes() -> None:
    """ "Position 30 is a rocky shoal. Landing here will severely damage your ship, and you must
    immediately move it to the ship repair yard." "If the repair yard space is occupied by another
    ship of any colour, the player must move their ship back to home port at position 1.\""""
    state = position({"light": {1: 27, 2: 14}, "dark": {1: 22}}, 3)
    _, events = play(state, MoveShip(1, 30))
    assert events == [
        Event("SHIP_MOVED", "Light ship 1 moved from 27 to 30.", LIGHT_SEAT, moved(LIGHT, 1, 27, 30)),
        Event(
            "RAN_AGROUND",
            "Light ship 1 ran aground on the rocky shoal (30) and is towed to the repair yard (19); it "
            "leaves only on a natural one.",
            LIGHT_SEAT,
            moved(LIGHT, 1, 30, 19),
        ),
    ]
    taken = position({"light": {1: 27, 2: 14}, "dark": {1: 19}}, 3)
    _, events = play(taken, MoveShip(1, 30))
    assert events[1:] == [
        Event(
            "SENT_HOME",
            "Light ship 1 ran aground on the rocky shoal (30); the repair yard is taken, so it goes back to "
            "home port (1).",
            LIGHT_SEAT,
            moved(LIGHT, 1, 30, 1),
        )
    ]
    # Leaving the yard on a natural one is a plain move.
    repaired = position({"light": {1: 19, 2: 14}, "dark": {1: 22}}, sticks_of("G"), repair=[("light", 1)])
    after, events = play(repaired, MoveShip(1, 20))
    assert events == [
        Event("SHIP_MOVED", "Light ship 1 moved from 19 to 20.", LIGHT_SEAT, moved(LIGHT, 1, 19, 20))
    ]
    assert not any(after.repair)


def test_valhalla_events_name_the_ship_the_points_left_over_and_the_winner() -> None:
    """ "Position 36 is the last space on the board, and provides safe passage to Valhalla. A ship
    landing here is removed from the board. The first player to remove all of their ships is the
    winner." "any ‘extra’ moves other than the number required to leave the board must be used up by
    another piece.\""""
    exact = position({"light": {1: 33, 2: 14}, "dark": {1: 20}}, 3)
    _, events = play(exact, MoveShip(1, VALHALLA))
    assert events == [
        Event(
            "SHIP_ENTERED_VALHALLA",
            "Light ship 1 sailed from 33 into Valhalla.",
            LIGHT_SEAT,
            moved(LIGHT, 1, 33, 36),
        )
    ]
    for points, words in ((5, "3 points"), (3, "1 point")):
        state = position({"light": {1: 34, 2: 14}, "dark": {1: 23}}, points)
        extra, events = play(state, MoveShip(1, VALHALLA))
        assert events[1:] == [
            Event("EXTRA_POINTS", f"Light has {words} left over that another ship must use.", LIGHT_SEAT)
        ]
        assert extra.phase is Phase.EXTRA_POINTS and extra.points == 34 + points - VALHALLA
    lost = position({"light": {1: 35, 2: 27, 3: 29}, "dark": {1: 31, 2: 32, 3: 25, 4: 26}}, 3)
    _, events = play(lost, MoveShip(1, VALHALLA))
    assert events[1:] == [
        Event("EXTRA_POINTS_LOST", "No other light ship can use the 2 points left over.", LIGHT_SEAT)
    ]
    alone = position({"light": {1: 35, 2: 19}, "dark": {1: 22}}, 2, repair=[("light", 2)])
    _, events = play(alone, MoveShip(1, VALHALLA))
    assert events[1:] == [
        Event("EXTRA_POINTS_LOST", "No other light ship can use the 1 point left over.", LIGHT_SEAT)
    ]
    last = position({"light": {1: 14}, "dark": {3: 33}}, 3, mover="dark")
    over, events = play(last, MoveShip(3, VALHALLA))
    assert events == [
        Event(
            "SHIP_ENTERED_VALHALLA",
            "Dark ship 3 sailed from 33 into Valhalla.",
            DARK_SEAT,
            moved(DARK, 3, 33, 36),
        ),
        Event("GAME_WON", "Dark has sailed all 6 ships into Valhalla and wins.", DARK_SEAT),
    ]
    outcome = GAME.outcome(over)
    assert outcome == core.Outcome(
        core.Result.WIN, (DARK_SEAT,), "Dark (player 2) has sailed all 6 ships into Valhalla and wins."
    )


def test_doubles_event_says_the_player_casts_again() -> None:
    """ "Optional Rule: Throwing a five, a four or a natural one may be considered rolling ‘doubles’,
    allowing the player to throw again.\""""
    options = Options(doubles=True)
    state = position({"light": {1: 13}, "dark": {1: 24}}, 4, options=options, mover="dark")
    _, events = play(state, MoveShip(1, 28))
    assert events[-1] == Event("THROW_AGAIN", "Dark threw doubles and casts again.", DARK_SEAT)


def test_the_chance_step_describes_who_casts_and_each_outcome() -> None:
    """ "Each stick has a ‘heads’ side and a ‘tails’ side, and the number of ‘heads up’ sticks in a
    throw determine the score." — the chance step names the seat casting and labels each of the
    sixteen casts with its score and whether it is natural."""
    choosing = GAME.new_game(2, Options(), Rng.from_seed(1))
    chance = GAME.chance(choosing)
    assert chance is not None
    assert chance.description == "Player 1 casts the four fate casting sticks"
    labels = {o.move: o.label for o in chance.outcomes}
    assert labels[Cast(NATURAL[5])] == "all tails up: 5, natural"
    assert labels[Cast(UNNATURAL_ONE)] == "Sowulo and Tiewaz and Hagalaz heads up: 1, unnatural"
    assert labels[Cast(Sticks(False, True, False, False))] == "Tiewaz heads up: 1, natural"
    dark = position({"light": {1: 13}, "dark": {1: 24}}, phase=Phase.CAST, mover="dark")
    dark_chance = GAME.chance(dark)
    assert dark_chance is not None and dark_chance.description == "Dark casts the four fate casting sticks"


def test_texts_name_the_colours_when_seat_0_took_the_dark_ships() -> None:
    """ "The first person to throw a natural one ... would begin play by moving the dark piece from
    position 12 to position 13 (this will be their colour for the rest of the game)." — once seat 0
    has taken dark, texts name the colours, not the seats: light casts, and dark throws doubles."""
    state = GAME.new_game(2, Options(doubles=True), Rng.from_seed(1))
    state, _ = play(state, Cast(sticks_of("S")))
    assert state.dark_seat == 0 and state.turn == 1
    chance = GAME.chance(state)
    assert chance is not None and chance.description == "Light casts the four fate casting sticks"
    assert refusal(state, MoveShip(1, 3)).message == "Light must cast the sticks before moving a ship."
    state, events = play(state, Cast(NATURAL[2]))
    assert events[0].text == "Light cast Sowulo and Tiewaz heads up: 2, natural."
    state, _ = play(state, MoveShip(6, 8))
    state, _ = play(state, Cast(NATURAL[4]))
    state, events = play(state, MoveShip(6, 17))
    assert events == [
        Event("SHIP_MOVED", "Dark ship 6 moved from 13 to 17.", 0, moved(DARK, 6, 13, 17)),
        Event("THROW_AGAIN", "Dark threw doubles and casts again.", 0),
    ]
    assert state.phase is Phase.CAST and state.turn == 0


# --------------------------------------------------------------------------- values are frozen


def _values() -> list[object]:
    """One of each value the engine hands out: options, sticks, moves, a state, an event detail."""
    state = GAME.new_game(2, Options(), Rng.from_seed(3))
    sticks = Sticks(True, False, False, False)
    return [Options(), sticks, Cast(sticks), MoveShip(1, 2), state, EventDetail(ship=1)]


@pytest.mark.parametrize("value", _values(), ids=lambda v: type(v).__name__)
def test_engine_values_are_frozen_slotted_and_hashable(value: object) -> None:
    """States, moves and event details are shared (a request checks a state, lists its moves, then
    applies one; move details and ship moves are cached): none can be changed once made, none
    carries a ``__dict__``, and each can be a key of a cache."""
    field = next(iter(dataclasses.fields(value)))  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field.name, getattr(value, field.name))
    assert not hasattr(value, "__dict__")
    assert hash(value) == hash(copy.copy(value))


def test_valhalla_seats_exactly_two_players() -> None:
    """ "attacks by their opponents": two players, one sailing the light fleet and one the dark."""
    assert (GAME.min_players, GAME.max_players) == (2, 2)
    assert valhalla.COLOUR_NAMES == ("Light", "Dark")


# --------------------------------------------------------------------------- the board data


class _BoardFile:
    """Stands in for ``importlib.resources`` serving a given ``board.json``."""

    def __init__(self, board: dict[str, Any]) -> None:
        self.text = json.dumps(board)

    def files(self, package: str) -> _BoardFile:
        assert package == "lawspeaker.games.valhalla"
        return self

    def joinpath(self, name: str) -> _BoardFile:
        assert name == "board.json"
        return self

    def read_text(self, encoding: str) -> str:
        return self.text


def _load(monkeypatch: pytest.MonkeyPatch, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    board = copy.deepcopy(valhalla.BOARD)
    change(board)
    monkeypatch.setattr(valhalla, "resources", _BoardFile(board))
    return valhalla._load_board()


def test_the_board_data_loads_as_shipped(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _load(monkeypatch, lambda board: None) == valhalla.BOARD


def _harbours(spaces: list[int]) -> Callable[[dict[str, Any]], None]:
    return lambda board: board.update(safe_harbours=spaces)


def test_safe_harbours_may_be_anywhere_from_space_1_to_the_last_before_the_gate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _load(monkeypatch, _harbours([1, 35]))["safe_harbours"] == [1, 35]


def _fleet(colour: str, spaces: list[int]) -> Callable[[dict[str, Any]], None]:
    return lambda board: board["layout"].update({colour: spaces})


@pytest.mark.parametrize(
    ("change", "error"),
    [
        # a harbour on the last space would dock a ship in the passage to Valhalla
        (_harbours([29, 32, 36]), "safe harbours must be on the board"),
        (_harbours([0, 29]), "safe harbours must be on the board"),
        (_fleet("dark", [7, 8, 9, 10, 11]), "layout must place every ship"),
        (_fleet("light", [1, 2, 3, 4, 5]), "layout must place every ship"),
        (_fleet("light", [1, 2, 3, 4, 5, 6, 13]), "layout must place every ship"),
        (_fleet("light", [1, 2, 3, 4, 5, 7]), "layout spaces must differ"),
    ],
)
def test_a_broken_board_file_is_refused_at_import_saying_what_is_wrong(
    monkeypatch: pytest.MonkeyPatch, change: Callable[[dict[str, Any]], None], error: str
) -> None:
    with pytest.raises(AssertionError) as raised:
        _load(monkeypatch, change)
    assert str(raised.value) == error


# --------------------------------------------------------------------------- describe


def test_describe_lays_the_board_out_as_a_serpent_with_its_marked_spaces() -> None:
    """Three rows of twelve: row one runs left to right from space 1, row two turns back right to
    left, row three runs left to right again to the passage into Valhalla (36). The marks are the
    safe harbours (29, 32, 34), the rocky shoal (30), the repair yard (19), home port (1) and the
    gate (36)."""
    marks = {
        1: ["home_port"],
        19: ["repair_yard"],
        29: ["safe_harbour"],
        30: ["rocky_shoal"],
        32: ["safe_harbour"],
        34: ["safe_harbour"],
        36: ["valhalla_gate"],
    }
    expected = []
    for number in range(1, 37):
        row, along = divmod(number - 1, 12)
        x = along if row % 2 == 0 else 11 - along
        expected.append({"number": number, "row": row + 1, "x": x, "y": row, "marks": marks.get(number, [])})
    data = GAME.describe().data
    assert data["board"] == expected
    assert {k: v for k, v in data.items() if k != "board"} == valhalla.BOARD
