"""Turn clocks, departures and results of a session: pure functions over the stored records (no I/O,
no protobuf), so the service, its timers and the tests share one arithmetic.

A clock runs for a seat while the seat is to act, its person plays it, and the state is not a chance
step (a clocked session's server draws chance steps at once; with physical dice the clock waits for
the throw). A *move* is one SessionApplyMove: in a game whose turn is several moves each gets the
per-move limit, and a bank gets the increment after each (docs/sessions.md, a decision).

Times are Unix seconds from the replicas' clocks (``time.time()``): a deadline written by one replica
is fired by another, so replicas keep their clocks synchronised (NTP), as any deployment does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import msgspec

NOTHING = "nothing"
BOT = "bot"
FORFEIT = "forfeit"
TIMEOUT_ACTIONS = (NOTHING, BOT, FORFEIT)
DEFAULT_TIMEOUT_ACTION = BOT
DEFAULT_BOT_LEVEL = "greedy"
TIMEOUT_BOT_MILLIS = 500
"""A search bot moving for a timed-out seat thinks at most this long, so the move lands well within
a second of the deadline."""
MAX_CLOCK_SECONDS = 366 * 86400  # a year a move: past correspondence play's longest

# Why a session ended (the proto's ResultReason numbers, which the stored record keeps).
RULES = 1
RESIGNATION = 2
TIMEOUT = 3

# What happened to a seat (the proto's SeatEventKind numbers).
RESIGNED = 1
LEFT_TO_BOT = 2
FORFEITED_ON_TIME = 3


class ClockRule(msgspec.Struct, array_like=True, frozen=True):
    """A session's clock as chosen at creation (seconds; 0: that part is off)."""

    per_move: int
    bank: int
    increment: int
    on_timeout: str = DEFAULT_TIMEOUT_ACTION
    bot_level: str = DEFAULT_BOT_LEVEL


class SeatClock(msgspec.Struct, array_like=True, frozen=True):
    """One seat's clock: ``left`` is its bank when it last started or stopped (the per-move limit
    without a bank), ``since`` when it started running (a Unix time; 0: stopped), ``timed_out``
    that its last turn ran out of time (cleared by its person's next own move)."""

    left: float
    since: float = 0.0
    timed_out: bool = False


class ResultRecord(msgspec.Struct, array_like=True, frozen=True):
    """How a session ended before its rules ended it (a resignation, a forfeit on time)."""

    reason: int
    winners: list[int]
    summary: str


@dataclass(frozen=True, slots=True)
class Place:
    seat: int
    place: int


def limit_of(rule: ClockRule) -> float:
    """The time a seat starts with: its bank, else the per-move limit."""
    return float(rule.bank or rule.per_move)


def start(rule: ClockRule, players: int, running: Iterable[int], now: float) -> list[SeatClock]:
    """Every seat's clock at creation: full, and running for the seats to act."""
    on = set(running)
    return [SeatClock(limit_of(rule), now if seat in on else 0.0) for seat in range(players)]


def deadline(rule: ClockRule, clock: SeatClock) -> float | None:
    """When a running clock runs out (None when it is stopped)."""
    if not clock.since:
        return None
    limits = [float(rule.per_move)] if rule.per_move else []
    if rule.bank:
        limits.append(clock.left)
    return clock.since + min(limits)


def next_deadline(rule: ClockRule, clocks: Sequence[SeatClock]) -> tuple[float, int] | None:
    """The earliest deadline among the running clocks, and its seat."""
    found: tuple[float, int] | None = None
    for seat, clock in enumerate(clocks):
        at = deadline(rule, clock)
        if at is not None and (found is None or at < found[0]):
            found = (at, seat)
    return found


def time_left(rule: ClockRule, clock: SeatClock) -> float:
    """The seconds shown for a seat: its bank (at its last start or stop), else the per-move limit."""
    if rule.bank:
        return clock.left if not rule.per_move else min(clock.left, float(rule.per_move))
    return float(rule.per_move)


def advance(
    rule: ClockRule,
    clocks: Sequence[SeatClock],
    running: Iterable[int],
    now: float,
    mover: int | None = None,
    own: bool = True,
    undoer: int | None = None,
) -> list[SeatClock]:
    """The clocks after a write at ``now``: ``mover``'s clock (if it ran) is charged and stopped, with
    the increment added; a clock that no longer runs is charged and stopped; every seat in
    ``running`` (after the write) whose clock was stopped, or that just moved, starts afresh.

    ``own`` is false for the bot's move at a timeout: the seat is then marked timed out (its bank is
    spent). Its person's next own move gives the clock back: the bank is full again. ``undoer`` takes
    back the increment its undone move earned (so move-and-undo cannot bank time)."""
    on = set(running)
    out: list[SeatClock] = []
    for seat, clock in enumerate(clocks):
        left, since, timed_out = clock.left, clock.since, clock.timed_out
        moved = seat == mover
        if since and (moved or seat not in on):
            if rule.bank:
                left = max(0.0, left - (now - since))
                if moved:
                    left += rule.increment
            since = 0.0
        if moved and not own:
            timed_out = True
        elif moved and timed_out:
            timed_out = False
            left = limit_of(rule)
        if seat == undoer and rule.bank:
            left = max(0.0, left - rule.increment)
        if seat in on and not since:
            since = now
        out.append(SeatClock(left, since, timed_out))
    return out


def ranking(players: int, winners: Iterable[int], out: Sequence[int]) -> list[Place]:
    """Every seat's place: the winners still in the game first, then the other seats still in (tied;
    first when nobody still in won), then the seats that left, the later to leave the better."""
    gone = set(out)
    won = {s for s in winners if s not in gone}
    staying = [s for s in range(players) if s not in gone]
    places = [Place(s, 1) for s in staying if s in won]
    place = 2 if won else 1
    rest = [Place(s, place) for s in staying if s not in won]
    places.extend(rest)
    place += 1 if rest else 0
    for seat in reversed(out):
        places.append(Place(seat, place))
        place += 1
    return places
