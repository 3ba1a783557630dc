"""Valhalla (Norse Senet): a pure rules engine over a frozen state.

Rulebook: ``shared/rulebooks/valhalla.txt``; every reading of it is recorded in
``docs/rules/valhalla.md``. Board numbers (spaces, harbours, shoal, yard, layout) come from
``board.json`` beside this module, loaded and validated once at import.

Ships are indexed 0-11: light ships 1-6 are indices 0-5 and dark ships 1-6 are 6-11. A ship's
position is 0 while it waits off the board (enter start), 1-35 on the board, 36 once it has passed
into Valhalla. Seats are 0 and 1; ``dark_seat`` says which seat sails the dark ships (-1 until the
first natural one decides it in the layout start).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from lawspeaker.games.core import (
    Assumption,
    Chance,
    ChanceOutcome,
    Description,
    Event,
    FieldViolation,
    OptionInfo,
    Outcome,
    Result,
    Rng,
    ToAct,
    Violation,
    check_ply,
)
from lawspeaker.games.valhalla.reasons import REASONS

# --------------------------------------------------------------------------- board data


def _load_board() -> dict[str, Any]:
    board: dict[str, Any] = json.loads(
        resources.files(__package__).joinpath("board.json").read_text(encoding="utf-8")
    )
    spaces = board["spaces"]
    assert spaces == sum(r["last"] - r["first"] + 1 for r in board["rows"]), "rows must cover the board"
    for key in ("rocky_shoal", "repair_yard", "home_port", "valhalla_gate"):
        assert 1 <= board[key] <= spaces, f"board.{key} is off the board"
    assert board["valhalla_gate"] == spaces, "the last space is the passage to Valhalla"
    assert all(1 <= s < spaces for s in board["safe_harbours"]), "safe harbours must be on the board"
    n = board["ships_per_fleet"]
    layout = board["layout"]
    assert len(layout["light"]) == n and len(layout["dark"]) == n, "layout must place every ship"
    assert len(set(layout["light"]) | set(layout["dark"])) == 2 * n, "layout spaces must differ"
    assert board["first_dark_move"]["from"] in layout["dark"]
    return board


BOARD = _load_board()
SPACES: int = BOARD["spaces"]
GATE: int = BOARD["valhalla_gate"]
SHIPS: int = BOARD["ships_per_fleet"]
SAFE_HARBOURS = frozenset(BOARD["safe_harbours"])
ROCKY_SHOAL: int = BOARD["rocky_shoal"]
REPAIR_YARD: int = BOARD["repair_yard"]
HOME_PORT: int = BOARD["home_port"]
ENTRY_SPACES = frozenset(BOARD["entry_spaces"])
_ROWS = {r["row"]: (r["first"], r["last"]) for r in BOARD["rows"]}
ROW_ONE_LAST: int = _ROWS[1][1]
BLOCKADE_FIRST, BLOCKADE_LAST = _ROWS[BOARD["blockade_row"]]
LAYOUT_LIGHT: tuple[int, ...] = tuple(BOARD["layout"]["light"])
LAYOUT_DARK: tuple[int, ...] = tuple(BOARD["layout"]["dark"])
FIRST_DARK_FROM: int = BOARD["first_dark_move"]["from"]
FIRST_DARK_TO: int = BOARD["first_dark_move"]["to"]
ALL_TAILS: int = BOARD["all_tails_score"]

LIGHT, DARK = 0, 1
COLOUR_NAMES = ("Light", "Dark")

# --------------------------------------------------------------------------- values


class Start(enum.Enum):
    """How the game begins (rulebook: "Play may begin in one of two ways")."""

    LAYOUT = "LAYOUT"
    ENTER = "ENTER"


class Scoring(enum.Enum):
    """How the sticks are scored: with the runes, or the traditional 1-to-1 method."""

    RUNES = "RUNES"
    TRADITIONAL = "TRADITIONAL"


class Hagalaz(enum.Enum):
    """What Hagalaz cancels in an unnatural cast (the pictures that showed it were lost)."""

    CANCELS_ANOTHER = "CANCELS_ANOTHER"
    CANCELS_OWN = "CANCELS_OWN"


class EntryBlocked(enum.Enum):
    """With the enter start, what a player still entering does when the cast's space is occupied."""

    FORFEIT = "FORFEIT"
    MOVE_ANOTHER = "MOVE_ANOTHER"


class Phase(enum.Enum):
    """What the game waits for."""

    CHOOSING_COLOURS = "CHOOSING_COLOURS"
    CAST = "CAST"
    MOVE = "MOVE"
    EXTRA_POINTS = "EXTRA_POINTS"
    OVER = "OVER"


@dataclass(frozen=True, slots=True)
class Options:
    """Options of a game; the defaults are the readings recorded in docs/rules/valhalla.md."""

    start: Start = Start.LAYOUT
    scoring: Scoring = Scoring.RUNES
    hagalaz: Hagalaz = Hagalaz.CANCELS_ANOTHER
    doubles: bool = False
    entry_blocked: EntryBlocked = EntryBlocked.FORFEIT


@dataclass(frozen=True, slots=True)
class Sticks:
    """The four fate casting sticks as they fell: True means heads (rune) up."""

    sowulo: bool
    tiewaz: bool
    gebo: bool
    hagalaz: bool

    @property
    def heads(self) -> int:
        return self.sowulo + self.tiewaz + self.gebo + self.hagalaz

    def label(self) -> str:
        up = [n for n, h in zip(RUNES, (self.sowulo, self.tiewaz, self.gebo, self.hagalaz), strict=True) if h]
        return " and ".join(up) + " heads up" if up else "all tails up"


RUNES = ("Sowulo", "Tiewaz", "Gebo", "Hagalaz")
ALL_STICKS: tuple[Sticks, ...] = tuple(
    Sticks(bool(i & 1), bool(i & 2), bool(i & 4), bool(i & 8)) for i in range(16)
)


@dataclass(frozen=True, slots=True)
class Cast:
    """Cast the sticks. ``sticks=None`` asks the server to draw them from the state's RNG."""

    sticks: Sticks | None = None


@dataclass(frozen=True, slots=True)
class MoveShip:
    """Move ship ``ship`` (1-6) of the player on turn so that it lands on ``to`` (36 = Valhalla)."""

    ship: int
    to: int


Move = Cast | MoveShip


@dataclass(frozen=True, slots=True)
class State:
    """A position of Valhalla. ``positions`` and ``repair`` are indexed by ship (light 1-6, dark 1-6)."""

    options: Options
    phase: Phase
    turn: int
    dark_seat: int
    positions: tuple[int, ...]
    repair: tuple[bool, ...]
    cast: Sticks | None
    points: int
    winner: int
    ply: int
    rng: Rng


@dataclass(frozen=True, slots=True)
class EventDetail:
    """Structured details of an event, for a frontend."""

    sticks: Sticks | None = None
    score: int = 0
    natural: bool = False
    colour: int | None = None
    ship: int = 0
    frm: int = 0
    to: int = 0


# --------------------------------------------------------------------------- scoring


def score(sticks: Sticks, options: Options) -> tuple[int, bool]:
    """The points of a cast and whether it is natural.

    "Sowulo and Tiewaz each represent one point, but Hagalaz cancels one point in a cast, unless
    accompanied by Gebo ... four 'tails up' sticks would represent five points."
    """
    heads = sticks.heads
    if heads == 0:
        return ALL_TAILS, True
    if options.scoring is Scoring.TRADITIONAL or not sticks.hagalaz or sticks.gebo:
        return heads, True
    others = sticks.sowulo + sticks.tiewaz
    if options.hagalaz is Hagalaz.CANCELS_ANOTHER:
        return max(0, others - 1), False
    return others, False


def is_natural_one(sticks: Sticks, options: Options) -> bool:
    """ "a natural one (i.e. one 'heads up' stick, not including Hagalaz)"."""
    points, natural = score(sticks, options)
    if options.scoring is Scoring.TRADITIONAL:
        return points == 1 and sticks.heads == 1
    return natural and points == 1 and not sticks.hagalaz


def _colour_of_seat(state: State, seat: int) -> int:
    return DARK if seat == state.dark_seat else LIGHT


def _seat_of_colour(state: State, colour: int) -> int:
    return state.dark_seat if colour == DARK else 1 - state.dark_seat


def _points(n: int) -> str:
    """``n`` points in words a player reads: "1 point", "2 points"."""
    return f"{n} point" if n == 1 else f"{n} points"


def _who(state: State, seat: int) -> str:
    if state.dark_seat < 0:
        return f"Player {seat + 1}"
    return COLOUR_NAMES[_colour_of_seat(state, seat)]


# --------------------------------------------------------------------------- move generation

# Tables precomputed once from the board data, so that listing moves does no set building.
_BLOCKADE_RUN_LAST = min(BLOCKADE_LAST, GATE - 1)
#: Every ship move, shared: ``_SHIP_MOVES[k][to]`` is ``MoveShip(k + 1, to)`` for ``to`` 1-36.
_SHIP_MOVES: tuple[dict[int, MoveShip], ...] = tuple(
    {to: MoveShip(k + 1, to) for to in range(1, GATE + 1)} for k in range(SHIPS)
)


def _occupant(positions: tuple[int, ...], space: int) -> int:
    """The index of the ship on ``space`` (1-35), or -1."""
    return positions.index(space) if space in positions else -1


def protection(state: State, space: int, defender: int) -> str | None:
    """Why the opposing ship on ``space`` cannot be attacked, or None.

    Returns SAFE_HARBOUR, BLOCKADE or ENTRY_SPACE_PROTECTED.
    """
    if space in SAFE_HARBOURS:
        return "SAFE_HARBOUR"
    if state.options.start is Start.ENTER and space in ENTRY_SPACES:
        return "ENTRY_SPACE_PROTECTED"
    if BLOCKADE_FIRST <= space <= BLOCKADE_LAST:
        return "BLOCKADE" if _run_length(state.positions, space, defender) % 2 == 0 else None
    return None


def _run_length(positions: tuple[int, ...], space: int, colour: int) -> int:
    """The number of adjacent same-colour ships in row three around ``space`` (inclusive)."""
    fleet = positions[colour * SHIPS : colour * SHIPS + SHIPS]
    length = 1
    s = space - 1
    while s >= BLOCKADE_FIRST and s in fleet:
        length += 1
        s -= 1
    s = space + 1
    # Ships on 36 have passed into Valhalla and left the board: they are no part of a run.
    while s <= _BLOCKADE_RUN_LAST and s in fleet:
        length += 1
        s += 1
    return length


def _row_one_clear(positions: tuple[int, ...], colour: int) -> bool:
    base = colour * SHIPS
    return all(p > ROW_ONE_LAST for p in positions[base : base + SHIPS])


def _can_land(state: State, colour: int, dest: int) -> bool:
    positions = state.positions
    if dest not in positions:
        return True
    if positions.index(dest) // SHIPS == colour:
        return False
    return protection(state, dest, 1 - colour) is None


def ship_moves(state: State, colour: int, points: int, natural_one: bool) -> list[MoveShip]:
    """Every legal way to move one ship of ``colour`` by ``points``.

    "Players must move their ships forward unless no forward moves are possible - in that case,
    they must move backward."
    """
    positions = state.positions
    repair = state.repair
    base = colour * SHIPS
    clear: bool | None = None  # whether row one is clear, found out when a ship could leave
    forward: list[MoveShip] = []
    movable: list[int] = []
    for k in range(SHIPS):
        p = positions[base + k]
        if p >= GATE or (repair[base + k] and not natural_one):
            continue
        movable.append(k)
        dest = p + points
        if dest >= GATE:
            if clear is None:
                clear = _row_one_clear(positions, colour)
            if clear:
                forward.append(_SHIP_MOVES[k][GATE])
        elif dest not in positions or _can_land(state, colour, dest):
            forward.append(_SHIP_MOVES[k].get(dest) or MoveShip(k + 1, dest))
    if forward:
        return forward
    backward: list[MoveShip] = []
    for k in movable:
        p = positions[base + k]
        dest = p - points
        if p > 0 and dest >= 1 and (dest not in positions or _can_land(state, colour, dest)):
            backward.append(_SHIP_MOVES[k].get(dest) or MoveShip(k + 1, dest))
    return backward


def _mover_colour(state: State) -> int:
    return _colour_of_seat(state, state.turn)


def blocked_entry(state: State) -> int:
    """The occupied entry space that forfeits the turn of the player on turn, or 0 (assumption
    ENTER_MOVES, default reading).

    "If a space is occupied by another ship of either colour, the player forfeits their turn": with
    the enter start a player is entering while a ship of theirs still waits off the board; when the
    space of the cast is then occupied by any ship, the turn is forfeited even though a ship on the
    board could move. Not when all five entry spaces are occupied: no cast could enter then, and
    with six ships a fleet and five spaces both fleets would forfeit every cast for good, so the
    player moves a ship on the board as usual.
    """
    options = state.options
    if (
        options.start is not Start.ENTER
        or options.entry_blocked is not EntryBlocked.FORFEIT
        or state.phase is not Phase.MOVE
    ):
        return 0
    space = state.points
    positions = state.positions
    if space not in ENTRY_SPACES or space not in positions:
        return 0
    base = _mover_colour(state) * SHIPS
    if 0 not in positions[base : base + SHIPS] or ENTRY_SPACES.issubset(positions):
        return 0
    return space


_LAST: tuple[State | None, tuple[MoveShip, ...]] = (None, ())


def _current_moves(state: State) -> tuple[MoveShip, ...]:
    """The ship moves of the player on turn. The last answer is kept for the same (immutable) state
    object: a request checks the state, lists or validates, then applies, asking the same question."""
    global _LAST
    last_state, last_moves = _LAST
    if last_state is state:
        return last_moves
    colour = DARK if state.turn == state.dark_seat else LIGHT
    base = colour * SHIPS
    # Whether the cast is a natural one only matters to a ship under repair.
    natural_one = (
        any(state.repair[base : base + SHIPS])
        and state.phase is Phase.MOVE
        and state.cast is not None
        and is_natural_one(state.cast, state.options)
    )
    moves = () if blocked_entry(state) else tuple(ship_moves(state, colour, state.points, natural_one))
    _LAST = (state, moves)
    return moves


# --------------------------------------------------------------------------- state checks

_FLEET_IN_VALHALLA: tuple[int, ...] = (GATE,) * SHIPS
#: Where a ship not under repair may stand, without and with the enter start (0 = waiting).
_RESTING: frozenset[int] = frozenset(range(1, GATE + 1)) - {ROCKY_SHOAL}
_RESTING_ENTER: frozenset[int] = _RESTING | {0}
#: The repair flags that can be in order: none, or one ship's (the value: its index, else -1).
_REPAIR_FLAGS: dict[tuple[bool, ...], int] = {
    tuple(i == k for i in range(2 * SHIPS)): k for k in range(-1, 2 * SHIPS)
}


def _ships_in_order(positions: tuple[int, ...], repair: tuple[bool, ...], waiting_allowed: bool) -> bool:
    """True when no ship breaks a rule of where ships stand (the quick test of ``check_state``).

    Each ship is on a space of the board other than the rocky shoal, alone, or in Valhalla, or
    (enter start only) waiting off the board; only a ship in the repair yard is under repair.
    """
    if not (_RESTING_ENTER if waiting_allowed else _RESTING).issuperset(positions):
        return False
    repaired = _REPAIR_FLAGS.get(repair)
    if repaired is None or (repaired >= 0 and positions[repaired] != REPAIR_YARD):
        return False
    # Spaces of the board hold one ship each; any number may wait off it or be in Valhalla.
    off = positions.count(0)
    done = positions.count(GATE)
    return len(set(positions)) == 2 * SHIPS - off - done + (off > 0) + (done > 0)


#: The details of ship moves, shared (they are immutable): at most one per ship, start and end.
_MOVE_DETAILS: dict[tuple[int, int, int, int], EventDetail] = {}


def _move_detail(colour: int, ship: int, frm: int, to: int) -> EventDetail:
    key = (colour, ship, frm, to)
    detail = _MOVE_DETAILS.get(key)
    if detail is None:
        detail = _MOVE_DETAILS[key] = EventDetail(colour=colour, ship=ship, frm=frm, to=to)
    return detail


def _turn_ends(
    options: Options,
    seat: int,
    dark_seat: int,
    positions: tuple[int, ...],
    repair: tuple[bool, ...],
    cast: Sticks | None,
    ply: int,
    rng: Rng,
    events: list[Event],
) -> State:
    """The state once ``seat`` has played its cast: the next seat casts, or the same one on doubles."""
    nxt = 1 - seat
    if options.doubles and cast is not None:
        points, _ = score(cast, options)
        if points in (4, 5) or is_natural_one(cast, options):
            nxt = seat
            who = (
                f"Player {seat + 1}" if dark_seat < 0 else COLOUR_NAMES[DARK if seat == dark_seat else LIGHT]
            )
            events.append(Event("THROW_AGAIN", f"{who} threw doubles and casts again.", seat))
    return State(options, Phase.CAST, nxt, dark_seat, positions, repair, None, 0, -1, ply, rng)


# --------------------------------------------------------------------------- the game


_DRAW = Cast()
_CHANCE_CACHE: dict[tuple[Scoring, Hagalaz, int, str], Chance[Move]] = {}


class Valhalla:
    """The Valhalla rules engine (implements :class:`lawspeaker.games.core.Game`)."""

    id = "valhalla"
    title = "Valhalla"
    min_players = 2
    max_players = 2
    rules_version = "valhalla-2"
    reasons = REASONS

    # -- creation -------------------------------------------------------------

    def default_options(self) -> Options:
        return Options()

    def new_game(self, players: int, options: Options, rng: Rng) -> State:
        if options.start is Start.LAYOUT:
            positions = LAYOUT_LIGHT + LAYOUT_DARK
            phase, dark_seat = Phase.CHOOSING_COLOURS, -1
        else:
            positions = (0,) * (2 * SHIPS)
            phase, dark_seat = Phase.CAST, 1
        return State(options, phase, 0, dark_seat, positions, (False,) * (2 * SHIPS), None, 0, -1, 0, rng)

    # -- questions --------------------------------------------------------------

    def to_act(self, state: State) -> ToAct:
        if state.phase is Phase.OVER:
            return ToAct(())
        chance = state.phase in (Phase.CAST, Phase.CHOOSING_COLOURS)
        return ToAct((state.turn,), chance)

    def legal_moves(self, state: State) -> Sequence[Move]:
        phase = state.phase
        if phase is Phase.CAST or phase is Phase.CHOOSING_COLOURS:
            return (_DRAW,)
        if phase is Phase.OVER:
            return ()
        return list(_current_moves(state))

    def chance(self, state: State) -> Chance[Move] | None:
        if state.phase is not Phase.CAST and state.phase is not Phase.CHOOSING_COLOURS:
            return None
        who = _who(state, state.turn)
        key = (state.options.scoring, state.options.hagalaz, state.turn, who)
        cached = _CHANCE_CACHE.get(key)
        if cached is None:
            outcomes: list[ChanceOutcome[Move]] = []
            for sticks in ALL_STICKS:
                points, natural = score(sticks, state.options)
                kind = "natural" if natural else "unnatural"
                outcomes.append(ChanceOutcome(Cast(sticks), 1 / 16, f"{sticks.label()}: {points}, {kind}"))
            cached = Chance(f"{who} casts the four fate casting sticks", tuple(outcomes))
            _CHANCE_CACHE[key] = cached
        return cached

    def drawn_outcome(self, state: State) -> Move:
        """The explicit cast a server draw in ``state`` comes to (the same RNG draw as ``apply``)."""
        index, _ = state.rng.below(16)
        return Cast(ALL_STICKS[index])

    def outcome(self, state: State) -> Outcome | None:
        if state.phase is not Phase.OVER:
            return None
        colour = _colour_of_seat(state, state.winner)
        return Outcome(
            Result.WIN,
            (state.winner,),
            f"{COLOUR_NAMES[colour]} (player {state.winner + 1}) has sailed all {SHIPS} ships into "
            "Valhalla and wins.",
        )

    def view(self, state: State, seat: int | None) -> State:
        """Valhalla has no hidden information: every seat sees the whole board."""
        return state

    # -- validation -------------------------------------------------------------

    def explain(self, state: State, move: Move) -> Violation:
        """Why ``move`` (not among the legal moves) is refused."""
        phase = state.phase
        who = _who(state, state.turn)
        if isinstance(move, Cast):
            if phase is Phase.EXTRA_POINTS:
                due = (
                    f"has {_points(state.points)} left over from a ship entering Valhalla and must move "
                    "another ship"
                )
            else:
                due = f"cast {state.points} and must move a ship"
            return Violation("MOVE_BEFORE_CASTING", f"{who} {due} before the sticks are cast again.", "cast")
        if phase is Phase.CHOOSING_COLOURS:
            return Violation(
                "CAST_FIRST",
                f"No ship moves until colours are chosen: {who} must cast the sticks; the first "
                "natural one takes the dark ships.",
                "move_ship",
            )
        if phase is Phase.CAST:
            return Violation("CAST_FIRST", f"{who} must cast the sticks before moving a ship.", "move_ship")
        return self._explain_ship_move(state, move)

    def _explain_ship_move(self, state: State, move: MoveShip) -> Violation:
        colour = _mover_colour(state)
        name = COLOUR_NAMES[colour]
        if not 1 <= move.ship <= SHIPS:
            return Violation(
                "NO_SUCH_SHIP",
                f"There is no ship {move.ship}: ships are numbered 1 to {SHIPS}.",
                "move_ship.ship",
            )
        idx = colour * SHIPS + move.ship - 1
        p = state.positions[idx]
        n = state.points
        ship = f"{name} ship {move.ship}"
        if p >= GATE:
            return Violation(
                "SHIP_IN_VALHALLA", f"{ship} has already passed into Valhalla.", "move_ship.ship"
            )
        if state.repair[idx]:
            if state.phase is Phase.EXTRA_POINTS:
                return Violation(
                    "IN_REPAIR_YARD",
                    f"{ship} is in the repair yard and may only leave on a natural one, not on points "
                    "left over from a ship entering Valhalla.",
                    "move_ship.ship",
                )
            if state.cast is None or not is_natural_one(state.cast, state.options):
                return Violation(
                    "IN_REPAIR_YARD",
                    f"{ship} is in the repair yard ({REPAIR_YARD}) and may only leave on a natural one.",
                    "move_ship.ship",
                )
        ahead = min(p + n, GATE)
        where = ", waiting off the board," if p == 0 else f" on {p}"
        if move.to not in (ahead, p - n) or move.to < 1 or (move.to == p - n and p == 0):
            target = "Valhalla (36)" if ahead == GATE else str(ahead)
            return Violation(
                "WRONG_DISTANCE",
                f"{ship}{where} must move exactly {n}: to {target}"
                + (f", or back to {p - n} if no ship can move forward." if p - n >= 1 else "."),
                "move_ship.to",
            )
        forward = move.to == ahead
        if forward and ahead == GATE and not _row_one_clear(state.positions, colour):
            base = colour * SHIPS
            laggard = next(k for k in range(SHIPS) if state.positions[base + k] <= ROW_ONE_LAST)
            return Violation(
                "ROW_ONE_NOT_CLEAR",
                f"{ship} cannot pass into Valhalla while your ship {laggard + 1} is still in row one "
                f"(spaces 1-{ROW_ONE_LAST}): all ships must leave row one before any exits the board.",
                "move_ship.to",
            )
        dest = move.to
        occ = _occupant(state.positions, dest) if dest < GATE else -1
        if occ >= 0 and occ // SHIPS == colour:
            return Violation(
                "LANDS_ON_OWN_SHIP",
                f"{ship} cannot land on {dest}: your own ship {occ % SHIPS + 1} is there.",
                "move_ship.to",
            )
        if occ >= 0:
            why = protection(state, dest, 1 - colour)
            other = f"{COLOUR_NAMES[1 - colour]} ship {occ % SHIPS + 1}"
            if why == "SAFE_HARBOUR":
                return Violation(
                    "SAFE_HARBOUR",
                    f"{ship} cannot attack {other} on {dest}: it is docked in a safe harbour.",
                    "move_ship.to",
                )
            if why == "BLOCKADE":
                run = _run_length(state.positions, dest, 1 - colour)
                return Violation(
                    "BLOCKADE",
                    f"{ship} cannot attack {other} on {dest}: it is part of a blockade of {run} adjacent "
                    "ships in row three.",
                    "move_ship.to",
                )
            if why == "ENTRY_SPACE_PROTECTED":
                return Violation(
                    "ENTRY_SPACE_PROTECTED",
                    f"{ship} cannot land on {dest}: it is taken by {other}, and ships on spaces 1-5 "
                    "cannot be hit.",
                    "move_ship.to",
                )
        if not forward:
            options = _current_moves(state)
            example = next((m for m in options if m.to != GATE), options[0] if options else None)
            hint = f" (for example ship {example.ship} to {example.to})" if example else ""
            return Violation(
                "MUST_MOVE_FORWARD",
                f"{ship} cannot move backward: a forward move is possible{hint}.",
                "move_ship.to",
            )
        return Violation("NOT_A_LEGAL_MOVE", f"{ship} cannot move to {dest}.", "move_ship")

    # -- applying ---------------------------------------------------------------

    def apply(self, state: State, move: Move) -> tuple[State, list[Event]]:
        events: list[Event] = []
        if isinstance(move, Cast):
            return self._apply_cast(state, move, events), events
        return self._apply_ship_move(state, move, events), events

    def _apply_cast(self, state: State, move: Cast, events: list[Event]) -> State:
        rng = state.rng
        sticks = move.sticks
        if sticks is None:
            index, rng = rng.below(16)
            sticks = ALL_STICKS[index]
        opts = state.options
        points, natural = score(sticks, opts)
        seat = state.turn
        who = _who(state, seat)
        kind = "natural" if natural else "unnatural"
        events.append(
            Event(
                "STICKS_CAST",
                f"{who} cast {sticks.label()}: {points}, {kind}.",
                seat,
                EventDetail(sticks=sticks, score=points, natural=natural),
            )
        )
        ply = state.ply + 1
        if state.phase is Phase.CHOOSING_COLOURS:
            if not is_natural_one(sticks, opts):
                return State(
                    opts, state.phase, 1 - seat, -1, state.positions, state.repair, None, 0, -1, ply, rng
                )
            positions = list(state.positions)
            idx = DARK * SHIPS + LAYOUT_DARK.index(FIRST_DARK_FROM)
            positions[idx] = FIRST_DARK_TO
            events.append(
                Event(
                    "COLOURS_CHOSEN",
                    f"Player {seat + 1} cast the first natural one and takes the dark ships; "
                    f"Player {2 - seat} sails the light ships.",
                    seat,
                    EventDetail(colour=DARK),
                )
            )
            events.append(
                Event(
                    "SHIP_MOVED",
                    f"Dark ship {idx - DARK * SHIPS + 1} moved from {FIRST_DARK_FROM} to {FIRST_DARK_TO}.",
                    seat,
                    EventDetail(
                        colour=DARK, ship=idx - DARK * SHIPS + 1, frm=FIRST_DARK_FROM, to=FIRST_DARK_TO
                    ),
                )
            )
            return State(
                opts, Phase.CAST, 1 - seat, seat, tuple(positions), state.repair, None, 0, -1, ply, rng
            )
        moved = State(
            opts,
            Phase.MOVE,
            seat,
            state.dark_seat,
            state.positions,
            state.repair,
            sticks,
            points,
            -1,
            ply,
            rng,
        )
        if points > 0 and _current_moves(moved):
            return moved
        blocked = blocked_entry(moved) if points else 0
        if blocked:
            why = f"{who} has a ship waiting to enter on {blocked}, which is occupied, and forfeits the turn."
        elif points:
            why = f"{who} cannot move any ship {points} spaces and forfeits the turn."
        else:
            why = f"{who} scored nothing and forfeits the turn."
        events.append(Event("TURN_FORFEITED", why, seat))
        return self._end_turn(moved, events)

    def _end_turn(self, state: State, events: list[Event]) -> State:
        return _turn_ends(
            state.options,
            state.turn,
            state.dark_seat,
            state.positions,
            state.repair,
            state.cast,
            state.ply,
            state.rng,
            events,
        )

    def _apply_ship_move(self, state: State, move: MoveShip, events: list[Event]) -> State:
        seat = state.turn
        dark_seat = state.dark_seat
        colour = DARK if seat == dark_seat else LIGHT
        name = COLOUR_NAMES[colour]
        ship = move.ship
        idx = colour * SHIPS + ship - 1
        old = state.positions
        frm = old[idx]
        dest = move.to
        positions = list(old)
        repair = list(state.repair)
        repair[idx] = False
        detail = _move_detail(colour, ship, frm, dest)
        where = "the board" if frm == 0 else str(frm)
        extra = 0
        if dest == GATE:
            extra = frm + state.points - GATE
            positions[idx] = GATE
            events.append(
                Event(
                    "SHIP_ENTERED_VALHALLA",
                    f"{name} ship {ship} sailed from {where} into Valhalla.",
                    seat,
                    detail,
                )
            )
        else:
            positions[idx] = dest
            if dest in old:
                occ = old.index(dest)
                positions[occ] = frm
                repair[occ] = False
                events.append(
                    Event(
                        "SHIPS_SWAPPED",
                        f"{name} ship {ship} moved from {where} to {dest} and swapped places with "
                        f"{COLOUR_NAMES[1 - colour]} ship {occ % SHIPS + 1}, which goes to {frm}.",
                        seat,
                        detail,
                    )
                )
            else:
                verb = "entered the board on" if frm == 0 else f"moved from {frm} to"
                events.append(Event("SHIP_MOVED", f"{name} ship {ship} {verb} {dest}.", seat, detail))
            if dest == ROCKY_SHOAL:
                if REPAIR_YARD not in positions:
                    positions[idx] = REPAIR_YARD
                    repair[idx] = True
                    events.append(
                        Event(
                            "RAN_AGROUND",
                            f"{name} ship {ship} ran aground on the rocky shoal ({ROCKY_SHOAL}) and is "
                            f"towed to the repair yard ({REPAIR_YARD}); it leaves only on a natural one.",
                            seat,
                            EventDetail(colour=colour, ship=ship, frm=ROCKY_SHOAL, to=REPAIR_YARD),
                        )
                    )
                else:
                    home = HOME_PORT
                    taken = set(positions)
                    while home in taken:
                        home += 1
                    positions[idx] = home
                    events.append(
                        Event(
                            "SENT_HOME",
                            f"{name} ship {ship} ran aground on the rocky shoal ({ROCKY_SHOAL}); the "
                            f"repair yard is taken, so it goes back to home port ({home}).",
                            seat,
                            EventDetail(colour=colour, ship=ship, frm=ROCKY_SHOAL, to=home),
                        )
                    )
        ply = state.ply + 1
        new_positions = tuple(positions)
        new_repair = tuple(repair)
        base = colour * SHIPS
        # Only a ship that has just passed into Valhalla can complete its fleet there.
        if positions[idx] == GATE and new_positions[base : base + SHIPS] == _FLEET_IN_VALHALLA:
            events.append(
                Event("GAME_WON", f"{name} has sailed all {SHIPS} ships into Valhalla and wins.", seat)
            )
            return State(
                state.options,
                Phase.OVER,
                seat,
                dark_seat,
                new_positions,
                new_repair,
                state.cast,
                0,
                seat,
                ply,
                state.rng,
            )
        if extra > 0:
            after = State(
                state.options,
                Phase.EXTRA_POINTS,
                seat,
                dark_seat,
                new_positions,
                new_repair,
                state.cast,
                extra,
                -1,
                ply,
                state.rng,
            )
            if _current_moves(after):
                events.append(
                    Event(
                        "EXTRA_POINTS",
                        f"{name} has {_points(extra)} left over that another ship must use.",
                        seat,
                    )
                )
                return after
            events.append(
                Event(
                    "EXTRA_POINTS_LOST",
                    f"No other {name.lower()} ship can use the {_points(extra)} left over.",
                    seat,
                )
            )
        return _turn_ends(
            state.options, seat, dark_seat, new_positions, new_repair, state.cast, ply, state.rng, events
        )

    # -- invariants ---------------------------------------------------------------

    def check_state(self, state: State) -> list[FieldViolation]:
        problems: list[FieldViolation] = []
        add = problems.append
        positions = state.positions
        if len(positions) != 2 * SHIPS or len(state.repair) != 2 * SHIPS:
            add(FieldViolation("ships", f"must hold exactly {SHIPS} light and {SHIPS} dark ships"))
            return problems
        waiting_allowed = state.options.start is Start.ENTER
        if not _ships_in_order(positions, state.repair, waiting_allowed):
            self._check_ships(state, waiting_allowed, add)
        phase = state.phase
        dark_seat = state.dark_seat
        if state.turn not in (0, 1):
            add(FieldViolation("turn", "must be 0 or 1"))
        if dark_seat not in (-1, 0, 1):
            add(FieldViolation("dark_seat", "must be 0, 1, or -1 while colours are undecided"))
        elif (dark_seat == -1) != (phase is Phase.CHOOSING_COLOURS):
            add(FieldViolation("dark_seat", "is -1 exactly while colours are being chosen"))
        if phase is Phase.CHOOSING_COLOURS and positions != LAYOUT_LIGHT + LAYOUT_DARK:
            add(FieldViolation("ships", "ships must stand on the starting layout while colours are chosen"))
        light_done = positions[:SHIPS] == _FLEET_IN_VALHALLA
        dark_done = positions[SHIPS:] == _FLEET_IN_VALHALLA
        if light_done and dark_done:
            add(FieldViolation("ships", "both fleets cannot be in Valhalla"))
        if phase is Phase.OVER:
            if (
                light_done == dark_done
                or dark_seat < 0
                or state.winner != _seat_of_colour(state, LIGHT if light_done else DARK)
            ):
                add(FieldViolation("winner", "must be the seat whose fleet is all in Valhalla"))
        else:
            if light_done or dark_done:
                add(FieldViolation("phase", "must be OVER once a fleet is all in Valhalla"))
            if state.winner != -1:
                add(FieldViolation("winner", "must be -1 while the game goes on"))
        points = state.points
        if phase is Phase.MOVE or phase is Phase.EXTRA_POINTS:
            cast = state.cast
            if cast is None:
                add(FieldViolation("cast", "is required while a cast is being played"))
            elif phase is Phase.MOVE and points != score(cast, state.options)[0]:
                add(FieldViolation("points", "must be the score of the cast"))
            if not 1 <= points <= ALL_TAILS:
                add(FieldViolation("points", f"must be 1 to {ALL_TAILS} while a ship is to move"))
            elif not problems and not _current_moves(state):
                add(
                    FieldViolation(
                        "points", "no ship can move these points: the turn should have been forfeited"
                    )
                )
        elif points != 0:
            add(FieldViolation("points", "must be 0 when no ship is to move"))
        ply_problem = check_ply(state.ply)
        if ply_problem is not None:
            add(ply_problem)
        return problems

    @staticmethod
    def _check_ships(state: State, waiting_allowed: bool, add: Callable[[FieldViolation], None]) -> None:
        """Name every ship that stands where it cannot (``check_state`` once the quick test fails)."""
        seen: dict[int, int] = {}
        for i, p in enumerate(state.positions):
            if (
                0 < p < GATE
                and p != ROCKY_SHOAL
                and p not in seen
                and (not state.repair[i] or p == REPAIR_YARD)
            ):
                seen[p] = i  # the common case: a ship alone on a space of the board
                continue
            if ((p == 0 and waiting_allowed) or p == GATE) and not state.repair[i]:
                continue
            f = f"ships[{i}].position"
            label = f"{COLOUR_NAMES[i // SHIPS]} ship {i % SHIPS + 1}"
            if not 0 <= p <= GATE:
                add(FieldViolation(f, f"{label} is on {p}, off the board (0-{GATE})"))
            elif p == 0 and state.options.start is not Start.ENTER:
                add(FieldViolation(f, f"{label} is waiting off the board, which only the enter start allows"))
            elif p == ROCKY_SHOAL:
                add(FieldViolation(f, f"{label} cannot rest on the rocky shoal ({ROCKY_SHOAL})"))
            elif 0 < p < GATE:
                if p in seen:
                    add(FieldViolation(f, f"{label} shares space {p} with another ship"))
                seen[p] = i
            if state.repair[i] and p != REPAIR_YARD:
                add(
                    FieldViolation(
                        f"ships[{i}].under_repair", f"{label} is under repair but not in the repair yard"
                    )
                )

    # -- description ----------------------------------------------------------------

    def describe(self) -> Description:
        spaces = []
        for number in range(1, SPACES + 1):
            row = next(r for r, (a, b) in _ROWS.items() if a <= number <= b)
            first, last = _ROWS[row]
            col = number - first if row % 2 == 1 else last - number  # the serpent turns at each row
            marks = []
            if number in SAFE_HARBOURS:
                marks.append("safe_harbour")
            if number == ROCKY_SHOAL:
                marks.append("rocky_shoal")
            if number == REPAIR_YARD:
                marks.append("repair_yard")
            if number == HOME_PORT:
                marks.append("home_port")
            if number == GATE:
                marks.append("valhalla_gate")
            spaces.append({"number": number, "row": row, "x": col, "y": row - 1, "marks": marks})
        return Description(OPTIONS, {**BOARD, "board": spaces}, ASSUMPTIONS)


OPTIONS = (
    OptionInfo(
        "start",
        "How the game begins: the 1-6 / 7-12 layout, or entering from off the board.",
        "VALHALLA_START_LAYOUT",
        ("VALHALLA_START_LAYOUT", "VALHALLA_START_ENTER"),
    ),
    OptionInfo(
        "scoring",
        "Score the sticks with their runes, or the traditional 1-to-1 method.",
        "VALHALLA_SCORING_RUNES",
        ("VALHALLA_SCORING_RUNES", "VALHALLA_SCORING_TRADITIONAL"),
    ),
    OptionInfo(
        "hagalaz",
        "In an unnatural cast, whether Hagalaz cancels another stick's point or only its own.",
        "VALHALLA_HAGALAZ_CANCELS_ANOTHER",
        ("VALHALLA_HAGALAZ_CANCELS_ANOTHER", "VALHALLA_HAGALAZ_CANCELS_OWN"),
    ),
    OptionInfo(
        "doubles",
        "The optional rule: a five, a four or a natural one throws again.",
        "false",
        ("true", "false"),
    ),
    OptionInfo(
        "entry_blocked",
        "Enter start: a player with a ship waiting whose cast's entry space is occupied forfeits the turn "
        "(unless all five entry spaces are occupied), or may move a ship on the board instead.",
        "VALHALLA_ENTRY_BLOCKED_FORFEIT",
        ("VALHALLA_ENTRY_BLOCKED_FORFEIT", "VALHALLA_ENTRY_BLOCKED_MOVE_ANOTHER"),
    ),
)

ASSUMPTIONS = (
    Assumption(
        "HAGALAZ_READING",
        "Sowulo and Tiewaz each represent one point, but Hagalaz cancels one point in a cast, unless "
        "accompanied by Gebo",
        "Hagalaz heads up without Gebo scores nothing and cancels one point of another heads-up stick "
        "(Sowulo or Tiewaz), never below zero: Hagalaz alone or with one other stick = 0, with both = 1.",
        "hagalaz=VALHALLA_HAGALAZ_CANCELS_OWN (Hagalaz only loses its own point: alone 0, with one 1, "
        "with two 2)",
    ),
    Assumption(
        "ALL_TAILS_NATURAL",
        "The exception is when all four sticks land 'tails' (blank side up), in which case the score is 5.",
        "An all-tails five is a natural cast (Hagalaz is not heads up to decrease it).",
    ),
    Assumption(
        "TRADITIONAL_NATURAL_ONE",
        "if you wish to simplify the game ... the traditional 1-to-1 scoring method may be preferred.",
        "With traditional scoring the runes are ignored: every cast is natural and any single heads-up "
        "stick (Hagalaz too) is a natural one.",
        "scoring",
    ),
    Assumption(
        "ENTER_MOVES",
        "Players take turns casting and moving their ships onto the board to one of the first five "
        "positions. If a space is occupied by another ship of either colour, the player forfeits their turn.",
        "With the enter start a waiting ship enters on the space equal to the cast (1-5); seat 0 sails light "
        "and casts first. A player is entering while a ship of theirs still waits off the board: if the "
        "space of the cast is then occupied by any ship, the turn is forfeited, even if a ship on the board "
        "could move, except when all five entry spaces are occupied (no cast could enter, and both fleets "
        "would forfeit for good): then a ship on the board moves as usual. When the space is free the player "
        "may enter or move a ship on the board. A player with no possible move forfeits the turn.",
        "entry_blocked=VALHALLA_ENTRY_BLOCKED_MOVE_ANOTHER (a player whose entry space is occupied may move "
        "a ship already on the board instead; only a player with no possible move forfeits)",
    ),
    Assumption(
        "ENTRY_NO_HIT",
        "An opponents pieces may not be 'hit' on any of these five positions.",
        "With the enter start, ships on spaces 1-5 cannot be hit for the whole game.",
    ),
    Assumption(
        "COLOUR_CHOICE",
        "The first person to throw a natural one ... would begin play by moving the dark piece from "
        "position 12 to position 13",
        "With the layout start, seat 0 casts first; seats alternate single casts until one casts a natural "
        "one. That seat takes dark and its ship on 12 moves to 13 automatically; the light seat then casts. "
        "The doubles rule does not apply to these casts.",
    ),
    Assumption(
        "ROW_ONE",
        "A player must move all of their pieces from row one before exiting the board.",
        "Row one is spaces 1-12; ships still waiting off the board also count as in row one.",
    ),
    Assumption(
        "LEAVING",
        "Each player may move only one piece per throw, except when leaving the board. In that case, any "
        "'extra' moves other than the number required to leave the board must be used up by another piece.",
        "A ship leaves when its move reaches or passes 36; the points beyond 36 must be moved by one other "
        "ship (forward if possible, else backward). If no ship can use them they are lost. Those points "
        "are not a throw: they never free a ship from the repair yard.",
    ),
    Assumption(
        "BLOCKADE_RUNS",
        "blockades may be formed by an even number of adjacent ships. In other words, any two or four "
        "adjacent pieces of the same colour cannot be attacked ... Groups of three are not protected.",
        "A maximal run of adjacent same-colour ships on row three's spaces 25-35 protects its ships when "
        "its length is even (2, 4 or 6); runs of 1, 3 or 5 do not. Ships on 36 have passed into "
        "Valhalla and are no part of a run.",
    ),
    Assumption(
        "BACKWARD",
        "Players must move their ships forward unless no forward moves are possible - in that case, they "
        "must move backward.",
        "Forward is judged over all the player's ships: a backward move is legal only when no ship has a "
        "forward move. A backward move cannot go below space 1. Landing on an opponent backward swaps too.",
    ),
    Assumption(
        "HOME_PORT_TAKEN",
        "If the repair yard space is occupied by another ship of any colour, the player must move their "
        "ship back to home port at position 1.",
        "If space 1 is taken too, the ship goes to the first free space after it (2, 3, ...).",
    ),
    Assumption(
        "REPAIR_EXIT",
        "a player may only exit by throwing a natural one",
        "A ship under repair can move only on a natural one (it then moves one space like any ship). A ship "
        "swapped out of the yard, or one that lands on 19 otherwise, is not under repair.",
    ),
    Assumption(
        "DOUBLES",
        "Throwing a five, a four or a natural one may be considered rolling 'doubles', allowing the "
        "player to throw again.",
        "With doubles on, such a cast earns another cast after it is played, even when no ship could move.",
        "doubles",
    ),
    Assumption(
        "SHIPS_PER_FLEET",
        "with the six light ships in positions 1-6, and the six dark pieces in positions 7-12",
        "Each fleet has six ships, numbered 1-6 from the back: light ship k starts on k, dark ship k on 6+k.",
    ),
)

GAME = Valhalla()
