"""Penki: a pure rules engine over a frozen state.

Rulebook: ``shared/rulebooks/penki.txt``; every reading of it is recorded in ``docs/rules/penki.md``.
The numbers of the components (tiles, pieces, pairs, width, row length) come from
``components.json`` beside this module, loaded and validated once at import.

Pieces are ``LIGHT`` (0), ``DARK`` (1) and ``JOKER`` (2); seat 0 plays light, seat 1 dark. A pair
held in front of a player is unordered: hands are counts of the six kinds of pair (``PAIR_KINDS``).
Cavities lie on one grid: ``x`` grows to the right, ``y = 0`` is the row resting on the base line,
and the starting tile covers (0, 0) and (1, 0). A tile is named by its first cavity (its left one,
or its lower one when upright). A tile is either empty or full: a pair fills both its cavities.

For speed the state carries a derived :class:`Layout` (a byte grid of the cavities and the height
of every column), rebuilt from the tiles by :func:`make_state` and updated incrementally by
``apply``; it takes no part in equality.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
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
from lawspeaker.games.penki.reasons import REASONS

# --------------------------------------------------------------------------- component data


def _load_components() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        resources.files(__package__).joinpath("components.json").read_text(encoding="utf-8")
    )
    pieces = data["pieces"]
    assert data["cavities_per_tile"] == 2 and data["pieces_per_pair"] == 2, "a pair fills one tile"
    assert sum(pieces.values()) == 2 * data["pairs_per_player"] * 2, "every piece is drawn into a pair"
    assert sum(pieces.values()) == data["tiles"] * data["cavities_per_tile"], "pieces fill every tile"
    assert data["starting_tiles"] == 1 and data["starting_tile"] == {
        "x": 0,
        "y": 0,
        "orientation": "horizontal",
    }
    assert data["max_width"] >= 2 and data["row_to_win"] >= 2
    return data


COMPONENTS = _load_components()
TILES: int = COMPONENTS["tiles"]
PIECES: tuple[int, int, int] = (
    COMPONENTS["pieces"]["light"],
    COMPONENTS["pieces"]["dark"],
    COMPONENTS["pieces"]["joker"],
)
PAIRS_PER_PLAYER: int = COMPONENTS["pairs_per_player"]
MAX_WIDTH: int = COMPONENTS["max_width"]
ROW_TO_WIN: int = COMPONENTS["row_to_win"]

LIGHT, DARK, JOKER = 0, 1, 2
EMPTY = -1
PIECE_NAMES = ("light", "dark", "joker")
COLOUR_NAMES = ("Light", "Dark")

#: The six kinds of unordered pair, in the order hands count them.
PAIR_KINDS: tuple[tuple[int, int], ...] = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))
KIND_OF: dict[tuple[int, int], int] = {}
for _k, (_a, _b) in enumerate(PAIR_KINDS):
    KIND_OF[(_a, _b)] = KIND_OF[(_b, _a)] = _k

# The grid: every column a width-limited play area that contains the starting tile can reach,
# every row the 56 cavities could stack up to, and a border of non-cavities all round.
X_MIN, X_MAX = 2 - MAX_WIDTH, MAX_WIDTH - 1
Y_MAX = TILES * 2 - 1
XOFF = 1 - X_MIN  # grid column of x
W = X_MAX - X_MIN + 3  # grid columns, with a border column each side
ROWS = Y_MAX + 3  # grid rows, with a border row below the base line and one on top
# Grid cell values: no cavity, an empty cavity, or the piece in it (piece + 2).
NONE, HOLE = 0, 1
CELL_JOKER = JOKER + 2
DIRECTIONS = (1, W, W + 1, W - 1)


def cell_index(x: int, y: int) -> int:
    """The grid index of cavity (x, y) (which must lie within the grid)."""
    return (y + 1) * W + x + XOFF


def cell_xy(index: int) -> tuple[int, int]:
    """The (x, y) of a grid index."""
    return index % W - XOFF, index // W - 1


def on_grid(x: int, y: int) -> bool:
    return X_MIN <= x <= X_MAX and 0 <= y <= Y_MAX


# --------------------------------------------------------------------------- values


class Setup(enum.Enum):
    """How the pieces are drawn: pair by pair, or (if both agree) many at once paired at random."""

    PAIR_BY_PAIR = "PAIR_BY_PAIR"
    RANDOM_PAIRS = "RANDOM_PAIRS"


class Tiles(enum.Enum):
    """Which ways a tile may stand (the rulebook is silent on upright tiles)."""

    HORIZONTAL_ONLY = "HORIZONTAL_ONLY"
    UPRIGHT_ALLOWED = "UPRIGHT_ALLOWED"


class Alignment(enum.Enum):
    """How a tile above the base line sits on the tiles below (brick-wise or not)."""

    CAVITIES = "CAVITIES"
    TILES = "TILES"


class Stuck(enum.Enum):
    """What happens when the player on turn has no legal move (assumption DRAW_GAME)."""

    SKIP_TURN = "SKIP_TURN"
    DRAW = "DRAW"


class Phase(enum.Enum):
    """What the game waits for."""

    DRAW = "DRAW"
    PLAY = "PLAY"
    CONNECT = "CONNECT"
    OVER = "OVER"


@dataclass(frozen=True, slots=True)
class Options:
    """Options of a game; the defaults are the readings recorded in docs/rules/penki.md."""

    setup: Setup = Setup.PAIR_BY_PAIR
    tiles: Tiles = Tiles.UPRIGHT_ALLOWED
    alignment: Alignment = Alignment.CAVITIES
    stuck: Stuck = Stuck.SKIP_TURN


@dataclass(frozen=True, slots=True)
class Tile:
    """A wooden tile of the play area: its first cavity, how it lies and its two pieces (or EMPTY)."""

    x: int
    y: int
    upright: bool = False
    first: int = EMPTY
    second: int = EMPTY

    @property
    def cavities(self) -> tuple[tuple[int, int], tuple[int, int]]:
        other = (self.x, self.y + 1) if self.upright else (self.x + 1, self.y)
        return (self.x, self.y), other

    @property
    def filled(self) -> bool:
        return self.first != EMPTY


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw from the bag. ``pair=None`` asks the server to draw from the state's RNG; an explicit
    ``pair`` (two pieces, sorted) forces that outcome of a pair-by-pair draw."""

    pair: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class ConnectTile:
    """Connect a new tile whose first cavity is (x, y); ``upright`` tiles cover (x, y) and (x, y+1)."""

    x: int
    y: int
    upright: bool = False


@dataclass(frozen=True, slots=True)
class PlacePair:
    """Place the pair {first, second} into the tile whose first cavity is (x, y): ``first`` into
    that cavity, ``second`` into the other."""

    x: int
    y: int
    first: int
    second: int


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass the turn: never legal."""


Move = Draw | ConnectTile | PlacePair | Pass


@dataclass(frozen=True, slots=True)
class Layout:
    """Derived from the tiles: the byte grid of cavities and the height of every grid column."""

    grid: bytes
    heights: tuple[int, ...]
    lo: int  # the leftmost grid column holding a cavity
    hi: int  # the rightmost grid column holding a cavity


@dataclass(frozen=True, slots=True)
class State:
    """A position of Penki. ``hands[seat]`` counts that seat's pairs by kind (``PAIR_KINDS``);
    ``bag`` counts the light, dark and joker pieces left. ``layout`` is derived from ``tiles``."""

    options: Options
    phase: Phase
    turn: int
    bag: tuple[int, int, int]
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    tiles: tuple[Tile, ...]
    winner: int
    ply: int
    rng: Rng
    layout: Layout = field(compare=False, repr=False)

    @property
    def supply(self) -> int:
        """The tiles left in the common supply."""
        return TILES - len(self.tiles)


@dataclass(frozen=True, slots=True)
class EventDetail:
    """Structured details of an event, for a frontend."""

    pair: tuple[int, int] | None = None
    tile: Tile | None = None
    row: tuple[tuple[int, int], ...] = ()
    hands: tuple[tuple[int, ...], ...] = ()


# --------------------------------------------------------------------------- the layout


def build_layout(tiles: Sequence[Tile]) -> Layout:
    """The layout of a tile list (tiles off the grid or overlapping are skipped; check_state says so)."""
    grid = bytearray(W * ROWS)
    heights = [0] * W
    for t in tiles:
        cells = t.cavities
        if not all(on_grid(x, y) for x, y in cells):
            continue
        for (x, y), piece in zip(cells, (t.first, t.second), strict=True):
            i = cell_index(x, y)
            if grid[i] == NONE:
                grid[i] = HOLE if piece == EMPTY else piece + 2
            c = x + XOFF
            heights[c] = max(heights[c], y + 1)
    used = [c for c in range(W) if heights[c]]
    lo, hi = (used[0], used[-1]) if used else (XOFF, XOFF)
    return Layout(bytes(grid), tuple(heights), lo, hi)


def make_state(
    options: Options,
    phase: Phase,
    turn: int,
    bag: tuple[int, int, int],
    hands: tuple[tuple[int, ...], tuple[int, ...]],
    tiles: tuple[Tile, ...],
    winner: int,
    ply: int,
    rng: Rng,
) -> State:
    """A state with its layout derived from the tiles."""
    return State(options, phase, turn, bag, hands, tiles, winner, ply, rng, build_layout(tiles))


def hand_pairs(hand: Sequence[int]) -> list[tuple[int, int]]:
    """The pairs of a hand, one entry per pair, sorted by kind."""
    return [PAIR_KINDS[k] for k, n in enumerate(hand) for _ in range(n)]


def row_through(grid: bytes | bytearray, index: int, colour: int) -> tuple[int, ...] | None:
    """The grid indices of a row of at least five through ``index`` for ``colour`` (jokers count), or None."""
    mine = colour + 2
    for d in DIRECTIONS:
        back = index - d
        while grid[back] == mine or grid[back] == CELL_JOKER:
            back -= d
        ahead = index + d
        while grid[ahead] == mine or grid[ahead] == CELL_JOKER:
            ahead += d
        if (ahead - back) // d - 1 >= ROW_TO_WIN:
            return tuple(range(back + d, ahead, d))
    return None


def _rows_made(
    grid: bytes | bytearray, cells: Sequence[tuple[int, int]]
) -> list[tuple[int, tuple[int, ...]]]:
    """Every colour that has a row of five through one of ``(index, piece)``, with that row."""
    found: dict[int, tuple[int, ...]] = {}
    for index, piece in cells:
        for colour in (LIGHT, DARK) if piece == JOKER else (piece,):
            if colour not in found:
                row = row_through(grid, index, colour)
                if row is not None:
                    found[colour] = row
    return sorted(found.items())


# --------------------------------------------------------------------------- move generation

_CONNECT: dict[tuple[int, int, bool], ConnectTile] = {}
_PLACE: dict[tuple[int, int], tuple[tuple[PlacePair, ...], ...]] = {}


def _connect(x: int, y: int, upright: bool) -> ConnectTile:
    key = (x, y, upright)
    move = _CONNECT.get(key)
    if move is None:
        move = _CONNECT[key] = ConnectTile(x, y, upright)
    return move


def _placements(x: int, y: int) -> tuple[tuple[PlacePair, ...], ...]:
    """For a tile at (x, y): the placement moves of each pair kind (both orders when they differ)."""
    moves = _PLACE.get((x, y))
    if moves is None:
        moves = _PLACE[(x, y)] = tuple(
            (PlacePair(x, y, a, b),) if a == b else (PlacePair(x, y, a, b), PlacePair(x, y, b, a))
            for a, b in PAIR_KINDS
        )
    return moves


def _tile_at(tiles: Sequence[Tile], x: int, y: int, upright: bool) -> bool:
    return any(t.x == x and t.y == y and t.upright == upright for t in tiles)


def connect_moves(state: State) -> list[ConnectTile]:
    """Every legal tile connection: touching the play area, each cavity above the base line over a
    filled cavity, no wider than the maximum width."""
    if len(state.tiles) >= TILES:
        return []
    lay = state.layout
    h, g, lo, hi = lay.heights, lay.grid, lay.lo, lay.hi
    by_tiles = state.options.alignment is Alignment.TILES
    out: list[ConnectTile] = []
    for c in range(max(1, lo - 2), min(W - 3, hi + 1) + 1):
        y = h[c]
        if h[c + 1] != y:
            continue
        if y == 0:
            if c != lo - 2 and c != hi + 1:
                continue
        else:
            below = y * W + c
            if g[below] < 2 or g[below + 1] < 2:
                continue
            if by_tiles and not _tile_at(state.tiles, c - XOFF, y - 1, False):
                continue
        if max(hi, c + 1) - min(lo, c) >= MAX_WIDTH:
            continue
        out.append(_connect(c - XOFF, y, False))
    if state.options.tiles is Tiles.UPRIGHT_ALLOWED:
        for c in range(max(1, lo - 1), min(W - 2, hi + 1) + 1):
            y = h[c]
            if y + 1 > Y_MAX:
                continue
            if y == 0:
                if c != lo - 1 and c != hi + 1:
                    continue
            else:
                if g[y * W + c] < 2:
                    continue
                if by_tiles and not _tile_at(state.tiles, c - XOFF, y - 2, True):
                    continue
            if max(hi, c) - min(lo, c) >= MAX_WIDTH:
                continue
            out.append(_connect(c - XOFF, y, True))
    return out


def place_moves(state: State) -> list[PlacePair]:
    """Every way to place one of the mover's pairs into an empty tile (both orders when they differ)."""
    hand = state.hands[state.turn]
    kinds = [k for k in range(6) if hand[k]]
    out: list[PlacePair] = []
    if not kinds:
        return out
    for t in state.tiles:
        if t.first == EMPTY:
            per_kind = _placements(t.x, t.y)
            for k in kinds:
                out.extend(per_kind[k])
    return out


def _has_move(state: State, seat: int | None = None) -> bool:
    """Whether ``seat`` (by default the player on turn) would have a legal move in phase PLAY: the
    tile connections are the same for both players, the pairs are their own."""
    if any(state.hands[state.turn if seat is None else seat]) and any(t.first == EMPTY for t in state.tiles):
        return True
    return bool(connect_moves(state))


# --------------------------------------------------------------------------- the game

_DRAW = Draw()
_CHANCE_CACHE: dict[tuple[tuple[int, int, int], int, Setup], Chance[Move]] = {}


def _piece_list(pair: tuple[int, int]) -> str:
    a, b = pair
    return f"{PIECE_NAMES[a]}+{PIECE_NAMES[b]}"


def _who(seat: int) -> str:
    return f"{COLOUR_NAMES[seat]} (player {seat + 1})"


class Penki:
    """The Penki rules engine (implements :class:`lawspeaker.games.core.Game`)."""

    id = "penki"
    title = "Penki"
    min_players = 2
    max_players = 2
    rules_version = "penki-2"
    reasons = REASONS

    # -- creation -------------------------------------------------------------

    def default_options(self) -> Options:
        return Options()

    def new_game(self, players: int, options: Options, rng: Rng) -> State:
        empty = (0,) * len(PAIR_KINDS)
        return make_state(options, Phase.DRAW, 0, PIECES, (empty, empty), (Tile(0, 0),), -1, 0, rng)

    # -- questions --------------------------------------------------------------

    def to_act(self, state: State) -> ToAct:
        if state.phase is Phase.OVER:
            return ToAct(())
        return ToAct((state.turn,), state.phase is Phase.DRAW)

    def legal_moves(self, state: State) -> Sequence[Move]:
        phase = state.phase
        if phase is Phase.PLAY:
            moves: list[Move] = list(connect_moves(state))
            moves.extend(place_moves(state))
            return moves
        if phase is Phase.DRAW:
            return (_DRAW,)
        if phase is Phase.CONNECT:
            return connect_moves(state)
        return ()

    def chance(self, state: State) -> Chance[Move] | None:
        if state.phase is not Phase.DRAW:
            return None
        key = (state.bag, state.turn, state.options.setup)
        cached = _CHANCE_CACHE.get(key)
        if cached is None:
            who = _who(state.turn)
            if state.options.setup is Setup.RANDOM_PAIRS:
                cached = Chance(
                    f"{who} shuffles the bag and deals all {sum(state.bag) // 2} pairs at random, "
                    "alternately",
                    (ChanceOutcome(_DRAW, 1.0, "the server deals every pair from the RNG"),),
                )
            else:
                counts = state.bag
                n = sum(counts)
                total = n * (n - 1) / 2
                outcomes: list[ChanceOutcome[Move]] = []
                for a, b in PAIR_KINDS:
                    ways = counts[a] * (counts[a] - 1) / 2 if a == b else counts[a] * counts[b]
                    if ways:
                        outcomes.append(ChanceOutcome(Draw((a, b)), ways / total, _piece_list((a, b))))
                cached = Chance(f"{who} draws two pieces from the bag", tuple(outcomes))
            _CHANCE_CACHE[key] = cached
        return cached

    def outcome(self, state: State) -> Outcome | None:
        if state.phase is not Phase.OVER:
            return None
        if state.winner < 0:
            return Outcome(
                Result.DRAW, (), "No legal move remains and nobody formed a row of five: the game is a draw."
            )
        return Outcome(
            Result.WIN,
            (state.winner,),
            f"{_who(state.winner)} has an unbroken row of {ROW_TO_WIN} and wins.",
        )

    def view(self, state: State, seat: int | None) -> State:
        """Penki has no hidden information: the pairs lie open and the bag holds only counts."""
        return state

    # -- validation -------------------------------------------------------------

    def explain(self, state: State, move: Move) -> Violation:
        """Why ``move`` (not among the legal moves) is refused."""
        if isinstance(move, Pass):
            return Violation("PASS_NOT_ALLOWED", "It is not permitted to pass your turn.", "pass")
        if state.phase is Phase.DRAW:
            if isinstance(move, Draw):
                return self._explain_draw(state, move)
            return Violation(
                "SETUP_NOT_FINISHED",
                f"The setup is not finished: {_who(state.turn)} must draw from the bag until each "
                f"player holds {PAIRS_PER_PLAYER} pairs.",
                "connect_tile" if isinstance(move, ConnectTile) else "place_pair",
            )
        if isinstance(move, Draw):
            return Violation(
                "SETUP_FINISHED", "The setup is over: every pair has been drawn from the bag.", "draw"
            )
        if isinstance(move, PlacePair):
            if state.phase is Phase.CONNECT:
                return Violation(
                    "MUST_CONNECT_TILE",
                    f"{_who(state.turn)} filled the last two free cavities and must now connect a new "
                    "tile, not place another pair.",
                    "place_pair",
                )
            return self._explain_place(state, move)
        return self._explain_connect(state, move)

    def _explain_draw(self, state: State, move: Draw) -> Violation:
        if state.options.setup is Setup.RANDOM_PAIRS:
            return Violation(
                "DEAL_DRAWN_BY_SERVER",
                "With the random-pairs setup the server deals every pair: send a draw without pieces.",
                "draw.pair",
            )
        pair = move.pair
        if pair is None or len(pair) != 2 or not all(p in (LIGHT, DARK, JOKER) for p in pair):
            return Violation("NO_SUCH_PIECE", "A pair is two pieces: light, dark or joker.", "draw.pair")
        if pair[0] > pair[1]:
            return Violation(
                "PAIR_NOT_SORTED",
                f"Name the drawn pair in the order light, dark, joker: {_piece_list((pair[1], pair[0]))}.",
                "draw.pair",
            )
        return Violation(
            "NOT_IN_BAG",
            f"The bag does not hold {_piece_list(pair)}: it holds {state.bag[0]} light, {state.bag[1]} "
            f"dark and {state.bag[2]} joker pieces.",
            "draw.pair",
        )

    def _explain_place(self, state: State, move: PlacePair) -> Violation:
        if move.first not in (LIGHT, DARK, JOKER) or move.second not in (LIGHT, DARK, JOKER):
            return Violation("NO_SUCH_PIECE", "A pair is two pieces: light, dark or joker.", "place_pair")
        pair = (min(move.first, move.second), max(move.first, move.second))
        who = _who(state.turn)
        if not state.hands[state.turn][KIND_OF[pair]]:
            hand = state.hands[state.turn]
            held = ", ".join(f"{n} {_piece_list(PAIR_KINDS[k])}" for k, n in enumerate(hand) if n)
            return Violation(
                "PAIR_NOT_HELD",
                f"{who} holds no {_piece_list(pair)} pair (holds: {held or 'no pairs'}).",
                "place_pair",
            )
        tile = next((t for t in state.tiles if t.x == move.x and t.y == move.y), None)
        if tile is None:
            return Violation(
                "NO_SUCH_TILE",
                f"No tile of the play area has its first cavity at ({move.x}, {move.y}): name a tile by "
                "its left (or, upright, lower) cavity.",
                "place_pair",
            )
        if tile.filled:
            return Violation(
                "TILE_ALREADY_FILLED",
                f"The tile at ({move.x}, {move.y}) already holds a pair: choose an empty tile.",
                "place_pair",
            )
        return Violation(
            "NOT_A_LEGAL_MOVE", f"That pair cannot be placed at ({move.x}, {move.y}).", "place_pair"
        )

    def _explain_connect(self, state: State, move: ConnectTile) -> Violation:
        f = "connect_tile"
        if state.supply <= 0:
            return Violation("NO_TILES_LEFT", "The supply is empty: every tile is in the play area.", f)
        if move.upright and state.options.tiles is Tiles.HORIZONTAL_ONLY:
            return Violation(
                "UPRIGHT_NOT_ALLOWED",
                "Tiles lie horizontally in this game (two cavities side by side): its options do not allow "
                "upright tiles.",
                f,
            )
        new = Tile(move.x, move.y, move.upright).cavities
        where = f"at ({move.x}, {move.y})"
        if min(y for _, y in new) < 0:
            return Violation(
                "BELOW_BASE_LINE",
                f"A tile {where} protrudes below the base line: no tile may be placed below it.",
                f,
            )
        existing = {xy for t in state.tiles for xy in t.cavities}
        xs = [x for x, _ in existing] + [x for x, _ in new]
        if any(xy in existing for xy in new):
            return Violation("SPACE_TAKEN", f"A tile {where} would cover a cavity of another tile.", f)
        touching = any(
            (x + dx, y + dy) in existing for x, y in new for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
        )
        if not touching:
            corner = any(
                (x + dx, y + dy) in existing
                for x, y in new
                for dx, dy in ((1, 1), (-1, 1), (1, -1), (-1, -1))
            )
            if corner:
                return Violation(
                    "NOT_IN_STRAIGHT_LINE",
                    f"A tile {where} would touch the play area only at a corner: tiles have to be "
                    "connected to one another in a straight line.",
                    f,
                )
            return Violation(
                "NOT_CONNECTED",
                f"A tile {where} would not touch the play area: new tiles must always be connected to it.",
                f,
            )
        filled = {xy for t in state.tiles if t.filled for xy in t.cavities}
        for x, y in new:
            if y == 0 or (x, y - 1) in new:
                continue
            if (x, y - 1) not in existing:
                return Violation(
                    "GAP_BELOW_TILE",
                    f"There would be a gap between a tile {where} and the base line: the space at "
                    f"({x}, {y - 1}) must be filled first.",
                    f,
                )
            if (x, y - 1) not in filled:
                return Violation(
                    "TILE_BELOW_NOT_FILLED",
                    f"The tile holding cavity ({x}, {y - 1}) has not yet been filled with playing pieces, so "
                    f"no tile may be connected {where}.",
                    f,
                )
        if state.options.alignment is Alignment.TILES and move.y > 0:
            below_y = move.y - 2 if move.upright else move.y - 1
            if not _tile_at(state.tiles, move.x, below_y, move.upright):
                kind = "an upright" if move.upright else "a flat"
                off = any(_tile_at(state.tiles, move.x + dx, below_y, move.upright) for dx in (-1, 1))
                return Violation(
                    "NOT_IN_STRAIGHT_LINE",
                    (
                        f"A tile {where} would sit one cavity off the tile below"
                        if off
                        else f"{kind.capitalize()} tile {where} would not rest on {kind} tile"
                    )
                    + ": in this game tiles are connected in a straight line, each exactly on top of "
                    "one tile of its own orientation.",
                    f,
                )
        width = max(xs) - min(xs) + 1
        if width > MAX_WIDTH:
            return Violation(
                "MAX_WIDTH_EXCEEDED",
                f"A tile {where} would make the play area {width} cavities wide: the maximum is {MAX_WIDTH}.",
                f,
            )
        return Violation("NOT_A_LEGAL_MOVE", f"No tile can be connected {where}.", f)

    # -- applying ---------------------------------------------------------------

    def apply(self, state: State, move: Move) -> tuple[State, list[Event]]:
        events: list[Event] = []
        if isinstance(move, PlacePair):
            return self._apply_place(state, move, events), events
        if isinstance(move, ConnectTile):
            return self._apply_connect(state, move, events), events
        if isinstance(move, Draw):
            if state.options.setup is Setup.RANDOM_PAIRS:
                return self._apply_deal(state, events), events
            return self._apply_draw(state, move, events), events
        raise ValueError("a pass is never legal")  # pragma: no cover - validated before

    def _apply_draw(self, state: State, move: Draw, events: list[Event]) -> State:
        rng = state.rng
        bag = list(state.bag)
        pair = move.pair
        if pair is None:
            drawn = []
            for _ in range(2):
                i, rng = rng.below(bag[0] + bag[1] + bag[2])
                piece = LIGHT if i < bag[0] else DARK if i < bag[0] + bag[1] else JOKER
                bag[piece] -= 1
                drawn.append(piece)
            pair = (min(drawn), max(drawn))
        else:
            bag[pair[0]] -= 1
            bag[pair[1]] -= 1
        seat = state.turn
        hands = [state.hands[0], state.hands[1]]
        hand = list(hands[seat])
        hand[KIND_OF[pair]] += 1
        hands[seat] = tuple(hand)
        events.append(
            Event(
                "PAIR_DRAWN", f"{_who(seat)} drew a {_piece_list(pair)} pair.", seat, EventDetail(pair=pair)
            )
        )
        new_bag = (bag[0], bag[1], bag[2])
        done = sum(hands[0]) == PAIRS_PER_PLAYER and sum(hands[1]) == PAIRS_PER_PLAYER
        if done:
            events.append(
                Event("SETUP_FINISHED", f"Each player holds {PAIRS_PER_PLAYER} pairs; play begins.", 0)
            )
        return State(
            state.options,
            Phase.PLAY if done else Phase.DRAW,
            0 if done else 1 - seat,
            new_bag,
            (hands[0], hands[1]),
            state.tiles,
            -1,
            state.ply + 1,
            rng,
            state.layout,
        )

    def _apply_deal(self, state: State, events: list[Event]) -> State:
        rng = state.rng
        pieces = [p for p in (LIGHT, DARK, JOKER) for _ in range(state.bag[p])]
        for i in range(len(pieces) - 1, 0, -1):
            j, rng = rng.below(i + 1)
            pieces[i], pieces[j] = pieces[j], pieces[i]
        hands = [list(state.hands[0]), list(state.hands[1])]
        seat = state.turn
        for k in range(0, len(pieces) - 1, 2):
            hands[seat][KIND_OF[(pieces[k], pieces[k + 1])]] += 1
            seat = 1 - seat
        new_hands = (tuple(hands[0]), tuple(hands[1]))
        events.append(
            Event(
                "PAIRS_DEALT",
                f"The bag was shuffled and {len(pieces) // 2} pairs dealt at random; each player holds "
                f"{PAIRS_PER_PLAYER} pairs and play begins.",
                state.turn,
                EventDetail(hands=new_hands),
            )
        )
        return State(
            state.options,
            Phase.PLAY,
            0,
            (0, 0, 0),
            new_hands,
            state.tiles,
            -1,
            state.ply + 1,
            rng,
            state.layout,
        )

    def _apply_connect(self, state: State, move: ConnectTile, events: list[Event]) -> State:
        lay = state.layout
        grid = bytearray(lay.grid)
        heights = list(lay.heights)
        c = move.x + XOFF
        i = cell_index(move.x, move.y)
        grid[i] = HOLE
        if move.upright:
            grid[i + W] = HOLE
            heights[c] = move.y + 2
            lo, hi = min(lay.lo, c), max(lay.hi, c)
        else:
            grid[i + 1] = HOLE
            heights[c] = heights[c + 1] = move.y + 1
            lo, hi = min(lay.lo, c), max(lay.hi, c + 1)
        tile = Tile(move.x, move.y, move.upright)
        seat = state.turn
        shape = "an upright tile" if move.upright else "a tile"
        events.append(
            Event(
                "TILE_CONNECTED",
                f"{_who(seat)} connected {shape} at ({move.x}, {move.y}); "
                f"{state.supply - 1} left in the supply.",
                seat,
                EventDetail(tile=tile),
            )
        )
        after = State(
            state.options,
            Phase.PLAY,
            1 - seat,
            state.bag,
            state.hands,
            (*state.tiles, tile),
            -1,
            state.ply + 1,
            state.rng,
            Layout(bytes(grid), tuple(heights), lo, hi),
        )
        return self._check_stuck(after, events)

    def _apply_place(self, state: State, move: PlacePair, events: list[Event]) -> State:
        tiles = list(state.tiles)
        k = next(n for n, t in enumerate(tiles) if t.x == move.x and t.y == move.y)
        old = tiles[k]
        tile = Tile(old.x, old.y, old.upright, move.first, move.second)
        tiles[k] = tile
        lay = state.layout
        grid = bytearray(lay.grid)
        i = cell_index(move.x, move.y)
        j = i + W if old.upright else i + 1
        grid[i] = move.first + 2
        grid[j] = move.second + 2
        seat = state.turn
        pair = (min(move.first, move.second), max(move.first, move.second))
        hands = [state.hands[0], state.hands[1]]
        hand = list(hands[seat])
        hand[KIND_OF[pair]] -= 1
        hands[seat] = tuple(hand)
        new_hands = (hands[0], hands[1])
        new_tiles = tuple(tiles)
        new_layout = Layout(bytes(grid), lay.heights, lay.lo, lay.hi)
        events.append(
            Event(
                "PAIR_PLACED",
                f"{_who(seat)} placed {PIECE_NAMES[move.first]} and {PIECE_NAMES[move.second]} into the "
                f"tile at ({move.x}, {move.y}).",
                seat,
                EventDetail(pair=pair, tile=tile),
            )
        )
        ply = state.ply + 1
        rows = _rows_made(grid, ((i, move.first), (j, move.second)))
        if rows:
            colours = [colour for colour, _ in rows]
            winner = 1 - seat if (1 - seat) in colours else seat
            row = dict(rows)[winner]
            both = len(rows) == 2
            text = (
                f"The pair completed a row for both players: {_who(winner)}, who did not play it, wins."
                if both
                else f"{_who(winner)} has an unbroken row of {len(row)} and wins."
            )
            events.append(Event("GAME_WON", text, winner, EventDetail(row=tuple(cell_xy(c) for c in row))))
            return State(
                state.options,
                Phase.OVER,
                seat,
                state.bag,
                new_hands,
                new_tiles,
                winner,
                ply,
                state.rng,
                new_layout,
            )
        full = all(t.first != EMPTY for t in new_tiles)
        if full and len(new_tiles) < TILES:
            events.append(
                Event(
                    "MUST_CONNECT_TILE",
                    f"{_who(seat)} filled the last two free cavities and must immediately connect a new "
                    "tile.",
                    seat,
                )
            )
            return State(
                state.options,
                Phase.CONNECT,
                seat,
                state.bag,
                new_hands,
                new_tiles,
                -1,
                ply,
                state.rng,
                new_layout,
            )
        after = State(
            state.options,
            Phase.PLAY,
            1 - seat,
            state.bag,
            new_hands,
            new_tiles,
            -1,
            ply,
            state.rng,
            new_layout,
        )
        return self._check_stuck(after, events)

    def _check_stuck(self, state: State, events: list[Event]) -> State:
        """Deal with a player now on turn who has no legal move (assumption DRAW_GAME).

        By default (``stuck=SKIP_TURN``) the turn goes back to the player who just moved while they
        can move: the stuck player is not passing to avoid placing pieces, and the opponent's pairs
        still have to be placed. The game is a draw only when neither player can move. With
        ``stuck=DRAW`` the game is a draw at once."""
        if _has_move(state):
            return state
        stuck = state.turn
        if state.options.stuck is Stuck.SKIP_TURN and _has_move(state, 1 - stuck):
            events.append(
                Event(
                    "TURN_SKIPPED",
                    f"{_who(stuck)} can neither place a pair nor connect a tile, so the turn is skipped: "
                    f"{_who(1 - stuck)} plays again.",
                    stuck,
                )
            )
            return replace(state, turn=1 - stuck)
        if state.options.stuck is Stuck.SKIP_TURN:
            text = "Neither player can place a pair or connect a tile: the game is a draw."
        else:
            text = f"{_who(stuck)} can neither place a pair nor connect a tile: the game is a draw."
        events.append(Event("GAME_DRAWN", text, stuck))
        return State(
            state.options,
            Phase.OVER,
            state.turn,
            state.bag,
            state.hands,
            state.tiles,
            -1,
            state.ply,
            state.rng,
            state.layout,
        )

    # -- invariants ---------------------------------------------------------------

    def check_state(self, state: State) -> list[FieldViolation]:
        problems: list[FieldViolation] = []
        add = problems.append
        if state.turn not in (0, 1):
            add(FieldViolation("turn", "must be 0 or 1"))
        if len(state.bag) != 3 or any(n < 0 for n in state.bag):
            add(FieldViolation("bag", "must count light, dark and joker pieces, none negative"))
            return problems
        if len(state.hands) != 2 or any(len(h) != len(PAIR_KINDS) or min(h) < 0 for h in state.hands):
            add(FieldViolation("hands", "must hold the pairs of exactly two players"))
            return problems
        for seat, hand in enumerate(state.hands):
            if sum(hand) > PAIRS_PER_PLAYER:
                add(FieldViolation(f"hands[{seat}]", f"holds more than {PAIRS_PER_PLAYER} pairs"))
        tiles = state.tiles
        if not 1 <= len(tiles) <= TILES:
            add(FieldViolation("tiles", f"must hold 1 to {TILES} tiles"))
            return problems
        if (tiles[0].x, tiles[0].y, tiles[0].upright) != (0, 0, False):
            add(FieldViolation("tiles[0]", "the starting tile lies horizontally at (0, 0)"))
        seen: set[tuple[int, int]] = set()
        filled: set[tuple[int, int]] = set()
        counts = [state.bag[0], state.bag[1], state.bag[2]]
        for n, t in enumerate(tiles):
            f = f"tiles[{n}]"
            cells = t.cavities
            if (t.first == EMPTY) != (t.second == EMPTY):
                add(FieldViolation(f, "a tile is either empty or holds a pair"))
            if any(p not in (EMPTY, LIGHT, DARK, JOKER) for p in (t.first, t.second)):
                add(FieldViolation(f, "holds an unknown piece"))
                continue
            if t.upright and state.options.tiles is Tiles.HORIZONTAL_ONLY:
                add(FieldViolation(f, "is upright, which this game's options do not allow"))
            if not all(on_grid(x, y) for x, y in cells):
                add(FieldViolation(f, f"lies off the grid (x {X_MIN} to {X_MAX}, y 0 to {Y_MAX})"))
                continue
            if any(c in seen for c in cells):
                add(FieldViolation(f, "covers a cavity of another tile"))
            seen.update(cells)
            if t.filled:
                filled.update(cells)
                counts[t.first] += 1
                counts[t.second] += 1
        if problems:
            return problems
        for n, t in enumerate(tiles):
            lower, upper = t.cavities
            for x, y in (lower,) if t.upright else (lower, upper):
                if y > 0 and (x, y - 1) not in filled:
                    add(FieldViolation(f"tiles[{n}]", f"cavity ({x}, {y}) does not rest on a filled cavity"))
            below = t.y - 2 if t.upright else t.y - 1
            if (
                state.options.alignment is Alignment.TILES
                and t.y > 0
                and not _tile_at(tiles, t.x, below, t.upright)
            ):
                add(
                    FieldViolation(
                        f"tiles[{n}]",
                        "does not sit exactly on one tile of its own orientation, as alignment TILES "
                        "requires",
                    )
                )
        base = sorted(x for x, y in seen if y == 0)
        if base != list(range(base[0], base[0] + len(base))):
            add(FieldViolation("tiles", "the cavities on the base line must form one unbroken row"))
        xs = [x for x, _ in seen]
        if max(xs) - min(xs) + 1 > MAX_WIDTH:
            add(FieldViolation("tiles", f"the play area is wider than {MAX_WIDTH} cavities"))
        for hand in state.hands:
            for k, n in enumerate(hand):
                a, b = PAIR_KINDS[k]
                counts[a] += n
                counts[b] += n
        if tuple(counts) != PIECES:
            add(
                FieldViolation(
                    "bag",
                    f"the bag, the hands and the tiles must hold {PIECES[0]} light, {PIECES[1]} dark and "
                    f"{PIECES[2]} joker pieces in all",
                )
            )
        if problems:
            return problems
        drawn = sum(state.hands[0]) + sum(state.hands[1])
        if state.phase is Phase.DRAW:
            if len(tiles) != 1 or filled:
                add(FieldViolation("tiles", "only the empty starting tile lies out during the setup"))
            if state.turn != drawn % 2 or sum(state.hands[0]) - sum(state.hands[1]) not in (0, 1):
                add(FieldViolation("turn", "the players draw alternately, seat 0 first"))
            if state.options.setup is Setup.RANDOM_PAIRS and drawn:
                add(FieldViolation("hands", "with the random-pairs setup every pair is dealt at once"))
        elif sum(state.bag):
            add(FieldViolation("bag", "must be empty once the setup is over"))
        if state.winner not in (-1, 0, 1):
            add(FieldViolation("winner", "must be -1, 0 or 1"))
        grid = state.layout.grid
        rows = {
            colour
            for xy in filled
            for colour in (LIGHT, DARK)
            if grid[cell_index(*xy)] in (colour + 2, CELL_JOKER)
            and row_through(grid, cell_index(*xy), colour) is not None
        }
        if state.phase is Phase.OVER:
            if state.winner >= 0 and state.winner not in rows:
                add(FieldViolation("winner", "the winner must have an unbroken row of five"))
            if state.winner < 0 and rows:
                add(FieldViolation("winner", "a row of five is on the board, so the game is not a draw"))
            elif state.winner < 0 and not problems:
                skip = state.options.stuck is Stuck.SKIP_TURN
                if skip and (_has_move(state, 0) or _has_move(state, 1)):
                    add(FieldViolation("winner", "a player can still move, so the game is not a draw"))
                elif not skip and _has_move(state):
                    add(FieldViolation("winner", "the player on turn can move, so the game is not a draw"))
        else:
            if state.winner != -1:
                add(FieldViolation("winner", "must be -1 while the game goes on"))
            if rows:
                add(FieldViolation("phase", "must be OVER once a row of five is on the board"))
        empty_left = len(filled) < len(seen)
        if state.phase is Phase.CONNECT and (empty_left or len(tiles) >= TILES):
            add(
                FieldViolation(
                    "phase", "CONNECT only follows filling the last free cavities, with tiles left"
                )
            )
        if state.phase is Phase.PLAY:
            if not empty_left and len(tiles) < TILES:
                add(
                    FieldViolation(
                        "phase", "with every cavity filled the player must connect a tile (CONNECT)"
                    )
                )
            elif not problems and not _has_move(state):
                skipped = state.options.stuck is Stuck.SKIP_TURN and _has_move(state, 1 - state.turn)
                then = "the turn should have been skipped" if skipped else "the game should be over"
                add(FieldViolation("phase", f"the player on turn has no legal move: {then}"))
        ply_problem = check_ply(state.ply)
        if ply_problem is not None:
            add(ply_problem)
        return problems

    # -- description ----------------------------------------------------------------

    def describe(self) -> Description:
        grid = {"x_min": X_MIN, "x_max": X_MAX, "y_min": 0, "y_max": Y_MAX}
        return Description(
            OPTIONS, {**COMPONENTS, "grid": grid, "pair_kinds": [list(p) for p in PAIR_KINDS]}, ASSUMPTIONS
        )


OPTIONS = (
    OptionInfo(
        "setup",
        "Draw the pieces two at a time as pairs, or (if both players agree) shuffle the whole bag and "
        "deal the pairs at random in one step.",
        "PENKI_SETUP_PAIR_BY_PAIR",
        ("PENKI_SETUP_PAIR_BY_PAIR", "PENKI_SETUP_RANDOM_PAIRS"),
    ),
    OptionInfo(
        "tiles",
        "Whether a tile may stand upright (one cavity wide, two high) as well as lie horizontally.",
        "PENKI_TILES_UPRIGHT_ALLOWED",
        ("PENKI_TILES_HORIZONTAL_ONLY", "PENKI_TILES_UPRIGHT_ALLOWED"),
    ),
    OptionInfo(
        "alignment",
        "Whether a tile above the base line may sit one cavity off the tile below (brick-wise) or must "
        "sit exactly on top of one tile.",
        "PENKI_ALIGNMENT_CAVITIES",
        ("PENKI_ALIGNMENT_CAVITIES", "PENKI_ALIGNMENT_TILES"),
    ),
    OptionInfo(
        "stuck",
        "When the player on turn cannot move: skip their turn while the opponent can still move (a draw "
        "only when neither can), or declare the game drawn at once.",
        "PENKI_STUCK_SKIP_TURN",
        ("PENKI_STUCK_SKIP_TURN", "PENKI_STUCK_DRAW"),
    ),
)

ASSUMPTIONS = (
    Assumption(
        "GRID",
        "The player must connect the wooden tile horizontally or vertically, so that the cavities are "
        "perfectly aligned.",
        "All cavities lie on one square grid: x grows to the right, y = 0 is the row resting on the base "
        "line. The starting tile covers (0, 0) and (1, 0). A tile is named by its first cavity (left, or "
        "lower when upright). 'Horizontally or vertically' is read as the two directions a tile is "
        "connected: beside the play area or on top of it.",
    ),
    Assumption(
        "TILE_ORIENTATION",
        "The player must connect the wooden tile horizontally or vertically",
        "A tile may lie flat (two cavities side by side, like the starting tile) or stand upright (one "
        "cavity wide, two high). Only with upright tiles can the play area reach an odd width, so only "
        "this reading gives the rulebook's limit of 9 cavities a meaning (flat tiles alone stop at 8).",
        "tiles=PENKI_TILES_HORIZONTAL_ONLY (every tile lies flat like the starting tile; the play area "
        "then never exceeds 8 cavities)",
    ),
    Assumption(
        "BRICK_OFFSET",
        "so that the cavities are perfectly aligned",
        "Alignment is of cavities: a horizontal tile may sit one cavity off the tile below (brick-wise, on "
        "two tiles) as long as each of its cavities is exactly over a filled cavity.",
        "alignment=PENKI_ALIGNMENT_TILES (a tile above the base line must sit exactly on top of one tile "
        "of the same orientation; one cavity off is NOT_IN_STRAIGHT_LINE)",
    ),
    Assumption(
        "CONNECTED",
        "New tiles must always be connected to the existing play area.",
        "A new tile shares at least one cavity edge with a cavity of the play area (NOT_CONNECTED).",
    ),
    Assumption(
        "STRAIGHT_LINE",
        "The tiles have to be connected to one another in a straight line.",
        "Moves name grid cavities, so a tile can never be turned at an angle or shifted by part of a "
        "cavity. A tile touching the play area only at a corner (diagonally) is refused with "
        "NOT_IN_STRAIGHT_LINE, as is a tile one cavity off the tile below under alignment=TILES.",
    ),
    Assumption(
        "REST_ON_FILLED",
        "There must never be a gap or an empty tile between the new tile and the base line.",
        "Every cavity of a new tile above the base line must lie directly over a cavity (else "
        "GAP_BELOW_TILE) that holds a piece (else TILE_BELOW_NOT_FILLED); an upright tile's upper cavity "
        "rests on its own lower one. Columns are therefore unbroken from the base line up.",
    ),
    Assumption(
        "WIDTH",
        "The maximum width of the play area may not exceed 9 cavities.",
        "Width is max x - min x + 1 over every cavity of the play area, the new tile included.",
    ),
    Assumption(
        "SEATS",
        "Assign a colour to each player.",
        "Seat 0 plays light and seat 1 dark. Seat 0 draws first and makes the first move of play.",
    ),
    Assumption(
        "DRAWING",
        "Taking turns, each player draws 2 pieces from the bag and places them immediately in front of "
        "them as a pair.",
        "Each draw is a chance step of two pieces (unordered) with hypergeometric probabilities; seats "
        "alternate until each holds 14 pairs. Only the counts of the bag are kept: the RNG draws.",
    ),
    Assumption(
        "RANDOM_PAIRS",
        "If both players agree, they may also draw more than 2 pieces from the bag at a time and place "
        "them in pairs at random.",
        "One chance step shuffles the whole bag with the server RNG and deals consecutive pieces as "
        "pairs, alternately, starting with seat 0. There are too many deals to list as explicit "
        "outcomes, so this step is drawn by the server only (an explicit pair is DEAL_DRAWN_BY_SERVER).",
        "setup=PENKI_SETUP_RANDOM_PAIRS",
    ),
    Assumption(
        "PAIR_IDENTITY",
        "The player takes one of the pairs of playing pieces in front of them and places these two "
        "pieces into the cavities of one of the wooden tiles",
        "A pair is named by its two pieces, not by a position in the hand; a placement names the piece "
        "for each cavity, so the two orders of a mixed pair are distinct moves. Pairs may go into any "
        "empty tile of the play area.",
    ),
    Assumption(
        "FORCED_CONNECTION",
        "If, with this move, the player fills the last two free cavities in the entire play area, they "
        "must immediately connect a new wooden tile, observing the placement rules.",
        "The turn continues in phase CONNECT, where the same player's only moves are tile connections. "
        "If the supply is empty then, every piece has been placed and the game ends (a draw unless the "
        "placement made a row).",
    ),
    Assumption(
        "ROW",
        "Form an unbroken row of at least 5 of your own playing pieces ... The row may be vertical, "
        "horizontal or diagonal. Joker pieces may be included in the row.",
        "A row runs along grid cavities that are next to each other horizontally, vertically or "
        "diagonally; a missing or empty cavity breaks it. Jokers count for both players. Only rows "
        "through the two cavities just filled are new. A placement that makes a row only for the "
        "opponent hands the opponent the win (the author's tactical tip).",
    ),
    Assumption(
        "DRAW_GAME",
        "The game may also end in a draw.",
        "A player with no legal move (no pair to place or no empty tile, and no tile can be connected) is "
        "not passing by choice, so their turn is skipped while the opponent can still move; the game is a "
        "draw when neither player can move, which comes to every piece placed without a row of five. "
        "The ban on passing is about avoiding placing pieces (the author's tip): skipping keeps every held "
        "pair in play, where a draw at once would let the opponent's pairs go unplaced.",
        "stuck=PENKI_STUCK_DRAW (the game is a draw as soon as the player on turn has no legal move, even "
        "with the opponent still holding pairs and empty tiles left)",
    ),
    Assumption(
        "NO_PASS",
        "It is not permitted to pass your turn.",
        "A pass move exists only to be refused with PASS_NOT_ALLOWED.",
    ),
)

GAME = Penki()
