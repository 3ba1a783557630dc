"""The ``greedy`` bot's value of a Penki position for one seat (see ``docs/rules/penki.md``, "Greedy bot:
what it values"; the weights are a decision of this project, not a rule).

Every line of five cavities that could still become a row for a colour (no piece of the other colour
in it, every cell an empty cavity or a place a tile could still reach) counts for that colour, more
the more of its pieces (jokers count for both) it already holds. The two colours' totals give a
smooth share around one half. On top of that the next placement is looked at tactically: a player to
place who holds a pair that completes its row is nearly won, and a player facing a completion it cannot
stop (in two tiles, or in one it holds no pair to fill without finishing the row) is nearly lost.

Penki has no hidden information (pairs lie open), so the viewed state is the state.
"""

from __future__ import annotations

from typing import NamedTuple

from lawspeaker.games.core import Result
from lawspeaker.games.penki import (
    EMPTY,
    GAME,
    JOKER,
    MAX_WIDTH,
    PAIR_KINDS,
    ROW_TO_WIN,
    XOFF,
    Y_MAX,
    Phase,
    State,
    W,
)

__all__ = ["value"]

# What a line of five still open for a colour is worth, by how many of its cells that colour holds:
# each piece more roughly triples it (a four is one placement from winning, a one is barely a start).
WEIGHT = (0.0, 1.0, 3.0, 9.0, 27.0, 0.0)
SOFTNESS = 30.0  # line points that make a lead count: the smooth share is lead / (total + SOFTNESS)
SMOOTH_SPAN = 0.35  # the smooth share stays within 0.5 +- this, below every tactical verdict
WIN_NOW = 0.97  # the player to place holds a pair that completes its row
CANNOT_STOP = 0.9  # the other player's row cannot be stopped by the player to place
FORCING = 0.04  # an open four the player to place must answer (it can): a tempo for its owner

# Cell codes of the local rectangle the lines are read from.
_BLOCKED, _HOLE, _FUTURE = 0, 1, 2  # no cavity and none can come / an empty cavity / a cavity to come
_PIECE = 3  # a piece p is coded 3 + p (light 3, dark 4, joker 5)

_WINDOW = (1 << ROW_TO_WIN) - 1  # the bits of one window of a line

_LINES: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}


def value(state: State, seat: int) -> float:
    """``seat``'s prospects in ``state``, from 0.0 (lost) to 1.0 (won)."""
    outcome = GAME.outcome(state)
    if outcome is not None:
        if outcome.result is Result.DRAW:
            return 0.5  # a draw is shared, as the search bot scores it (1/n each)
        return 1.0 / len(outcome.winners) if seat in outcome.winners else 0.0
    if state.phase is Phase.DRAW:
        return 0.5  # nothing is on the board yet and the pairs still to come are the bag's
    score, threats = _read_lines(state)
    mine = score[seat] - score[1 - seat]
    smooth = 0.5 + SMOOTH_SPAN * mine / (score[0] + score[1] + SOFTNESS)
    # The player who places next: in CONNECT the mover only adds a tile, then the other places.
    placer = 1 - state.turn if state.phase is Phase.CONNECT else state.turn
    verdict = _tactics(state, placer, threats)
    if verdict is None:
        return smooth
    winner, strength = verdict
    v = strength + (1.0 - strength) * smooth if winner == seat else (1.0 - strength) * smooth
    return min(1.0, max(0.0, v))


class _Threats(NamedTuple):
    """Per colour, the empty cavities (grid indices) that finish a row of it: one alone (an open
    four), or two neighbouring ones together (an open three whose gaps one tile may hold)."""

    fours: tuple[set[int], set[int]]
    pairs: tuple[set[tuple[int, int]], set[tuple[int, int]]]

    def wins(self, colour: int, i: int, j: int, a: int, b: int) -> bool:
        """Whether the placement makes a row of ``colour`` and none of the other colour."""
        return self.completes(colour, i, j, a, b) and not self.completes(1 - colour, i, j, a, b)

    def completes(self, colour: int, i: int, j: int, a: int, b: int) -> bool:
        """Whether piece ``a`` in cavity ``i`` and ``b`` in ``j`` (one tile) make a row of ``colour``."""
        fa, fb = a in (colour, JOKER), b in (colour, JOKER)
        fours = self.fours[colour]
        return (fa and i in fours) or (fb and j in fours) or (fa and fb and (i, j) in self.pairs[colour])


def _tactics(state: State, placer: int, threats: _Threats) -> tuple[int, float] | None:
    """Who the next placement decides for, and how surely: (seat, share of the value it is owed).

    A placement wins for the placer when it makes the placer's row and not the other's (a row for
    both goes to the player who did not play). The other's open fours and threes are a threat only
    if the other holds a pair that finishes them; the placer stops one per turn by filling its tile
    with a pair that does not finish it."""
    other = 1 - placer
    if not any(threats.fours) and not any(threats.pairs):
        return None  # no row is one placement away: nothing to decide
    mine = _ordered_pairs(state.hands[placer])
    theirs = _ordered_pairs(state.hands[other])
    wins = threats.wins
    blockable = 0
    threatened = 0
    for i, j in _empty_tiles(state):
        if any(wins(placer, i, j, a, b) for a, b in mine):
            return placer, WIN_NOW
        if any(wins(other, i, j, a, b) for a, b in theirs):
            threatened += 1
            blockable += any(not threats.completes(other, i, j, a, b) for a, b in mine)
    if not threatened:
        return None
    if threatened >= 2 or not blockable:
        return other, CANNOT_STOP
    return other, FORCING


def _ordered_pairs(hand: tuple[int, ...]) -> list[tuple[int, int]]:
    """The pairs a hand can place, in both orders when they differ."""
    out: list[tuple[int, int]] = []
    for n, (a, b) in zip(hand, PAIR_KINDS, strict=True):
        if n:
            out.append((a, b))
            if a != b:
                out.append((b, a))
    return out


def _empty_tiles(state: State) -> list[tuple[int, int]]:
    """The grid indices of the two cavities (first, second) of every empty tile."""
    out: list[tuple[int, int]] = []
    for t in state.tiles:
        if t.first == EMPTY:
            i = (t.y + 1) * W + t.x + XOFF
            out.append((i, i + W if t.upright else i + 1))
    return out


_Pairs = set[tuple[int, int]]


def _read_lines(state: State) -> tuple[tuple[float, float], _Threats]:
    """Per colour: the worth of its open lines of five, and the empty cavities (grid indices) that finish
    a row of it, alone or as a neighbouring pair."""
    lay = state.layout
    grid, heights = lay.grid, lay.heights
    # Columns a line with a piece in it can use, within the maximum width around the play area.
    left = max(1, lay.lo - (ROW_TO_WIN - 1), lay.hi - (MAX_WIDTH - 1))
    right = min(W - 2, lay.hi + (ROW_TO_WIN - 1), lay.lo + (MAX_WIDTH - 1))
    top = min(Y_MAX, max(heights) + ROW_TO_WIN - 2)
    cols, rows = right - left + 1, top + 1
    reach = 2 * state.supply  # cavities the supply can still add on top of one column
    cells: list[int] = []
    where: list[int] = []
    for y in range(rows):
        base = (y + 1) * W
        for c in range(left, right + 1):
            g = grid[base + c]
            if g >= 2:
                cells.append(_PIECE + g - 2)
            elif g == 1:
                cells.append(_HOLE)
            else:
                cells.append(_FUTURE if y - heights[c] < reach else _BLOCKED)
            where.append(base + c)
    score = [0.0, 0.0]
    fours: tuple[set[int], set[int]] = (set(), set())
    pair_fours: tuple[_Pairs, _Pairs] = (set(), set())
    for line in _lines(cols, rows):
        # Bit n of each mask is the line's n-th cell: pieces counting for each colour, pieces of each
        # colour alone (they stop the other), and cells no cavity can ever fill.
        for_light = for_dark = light = dark = never = 0
        for n, i in enumerate(line):
            v = cells[i]
            if v == _PIECE:
                light |= 1 << n
            elif v == _PIECE + 1:
                dark |= 1 << n
            elif v == _PIECE + JOKER:
                for_light |= 1 << n
                for_dark |= 1 << n
            elif v == _BLOCKED:
                never |= 1 << n
        for colour, mine, stop in ((0, for_light | light, never | dark), (1, for_dark | dark, never | light)):
            if not mine:
                continue
            for start in range(len(line) - ROW_TO_WIN + 1):
                window = _WINDOW << start
                if stop & window:
                    continue
                k = (mine & window).bit_count()
                score[colour] += WEIGHT[k]
                if k >= ROW_TO_WIN - 2:
                    gaps = [line[n] for n in range(start, start + ROW_TO_WIN) if not mine >> n & 1]
                    _note_threat(gaps, cells, where, fours[colour], pair_fours[colour])
    return (score[0], score[1]), _Threats(fours, pair_fours)


def _note_threat(
    gaps: list[int], cells: list[int], where: list[int], fours: set[int], pair_fours: set[tuple[int, int]]
) -> None:
    """Record the empty cavities that would finish a window, given its missing cells ``gaps``: one (an
    open four) or two side by side that one tile may hold (an open three; upright or flat, along the
    tile). Threats are kept as grid indices."""
    if any(cells[i] != _HOLE for i in gaps):
        return  # a cell still needs a tile first: the lines' worth counts it, no threat yet
    if len(gaps) == 1:
        fours.add(where[gaps[0]])
    else:
        a, b = sorted(where[i] for i in gaps)
        if b - a in (1, W):  # the two gaps are neighbours: if one empty tile holds both, a pair fills it
            pair_fours.add((a, b))


def _lines(cols: int, rows: int) -> tuple[tuple[int, ...], ...]:
    """Every line of the rectangle (rows, columns, both diagonals) at least five cells long, as indices."""
    key = (cols, rows)
    lines = _LINES.get(key)
    if lines is None:
        found: list[tuple[int, ...]] = []
        starts = {
            (1, 0): [(0, y) for y in range(rows)],
            (0, 1): [(x, 0) for x in range(cols)],
            (1, 1): [(x, 0) for x in range(cols)] + [(0, y) for y in range(1, rows)],
            (-1, 1): [(x, 0) for x in range(cols)] + [(cols - 1, y) for y in range(1, rows)],
        }
        for (dx, dy), points in starts.items():
            for x, y in points:
                line = []
                while 0 <= x < cols and 0 <= y < rows:
                    line.append(y * cols + x)
                    x, y = x + dx, y + dy
                if len(line) >= ROW_TO_WIN:
                    found.append(tuple(line))
        lines = _LINES[key] = tuple(found)
    return lines
