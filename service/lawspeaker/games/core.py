"""The shared engine core: what every game needs, and nothing game-specific.

A game is a pure object implementing :class:`Game` over a frozen state and hashable moves. The
functions at the bottom of this module (:func:`legal_moves`, :func:`validate`, :func:`apply`) are
the only way the service asks a game anything; they hold the checks every game shares (the game is
over, the state breaks an invariant, the move is not among the legal moves) so that no game repeats
them. Validation *is* membership in the legal moves (or in the outcomes of a chance step); a game
only has to explain, in words, why a move that is not there is refused.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

S = TypeVar("S")
T = TypeVar("T")
M = TypeVar("M")
O = TypeVar("O")  # noqa: E741 - options type


class ErrorCode(enum.Enum):
    """The small set of error kinds every transport maps once."""

    MALFORMED = "MALFORMED"  # the request cannot be decoded, or names a bad field
    INVALID_STATE = "INVALID_STATE"  # the state breaks the game's invariants
    ILLEGAL_MOVE = "ILLEGAL_MOVE"  # the move breaks a rule
    NOT_YOUR_TURN = "NOT_YOUR_TURN"  # the move is for a player who may not act now
    GAME_OVER = "GAME_OVER"  # the game has ended
    STALE_STATE = "STALE_STATE"  # a write based on an outdated version
    NOT_FOUND = "NOT_FOUND"  # unknown game, session, ...
    UNAVAILABLE = "UNAVAILABLE"  # a backing service is down
    PERMISSION_DENIED = "PERMISSION_DENIED"  # wrong credentials for what is asked (a seat token)
    UNAUTHENTICATED = "UNAUTHENTICATED"  # no valid API key where the service requires one
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"  # a quota or rate limit: try again later


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One bad field of a request: its path and what is wrong with it."""

    field: str
    description: str


class LawspeakerError(Exception):
    """An error a client caused or must know about; transports map it to a status once."""

    def __init__(
        self,
        code: ErrorCode,
        reason: str,
        message: str,
        field_violations: Sequence[FieldViolation] = (),
        metadata: Mapping[str, str] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.field_violations = tuple(field_violations)
        self.metadata = dict(metadata or {})
        self.retry_after = retry_after  # seconds a client should wait before trying again, if known


class InvalidState(LawspeakerError):
    """The state breaks the game's invariants (seven ships, two on one space, ...)."""

    def __init__(self, violations: Sequence[FieldViolation]) -> None:
        first = violations[0] if violations else FieldViolation("state", "invalid")
        super().__init__(
            ErrorCode.INVALID_STATE,
            "INVALID_STATE",
            f"The state is not a valid position: {first.field}: {first.description}",
            violations,
        )


@dataclass(frozen=True, slots=True)
class Violation:
    """Why a move is not legal: a stable reason code and a sentence a player understands."""

    reason: str
    message: str
    field: str = "move"


class IllegalMove(LawspeakerError):
    """Raised by :func:`apply` for a move that is not legal. ``rule`` (the anchor of the rule it
    breaks, :attr:`RuleReason.rule`) travels in the error's metadata."""

    def __init__(
        self, violation: Violation, code: ErrorCode = ErrorCode.ILLEGAL_MOVE, rule: str = ""
    ) -> None:
        super().__init__(
            code,
            violation.reason,
            violation.message,
            (FieldViolation(violation.field, violation.message),),
            {"rule": rule} if rule else None,
        )
        self.violation = violation
        self.rule = rule


@dataclass(frozen=True, slots=True)
class RuleReason:
    """One reason a game refuses a move for: what it means and the rule it enforces.

    ``rule`` is a stable anchor in the game's rules document (``docs/rules/valhalla.md#cast-first``),
    served with every violation of this reason; ``rulebook`` quotes the rulebook sentence the rule
    enforces or, where the rulebook is silent, names the assumption taken instead. Every reason a
    game's ``explain`` can return is listed in its ``reasons`` (``tests/games/test_reasons.py``).
    """

    reason: str
    meaning: str
    rule: str
    rulebook: str


def rule_reasons(doc: str, *rows: tuple[str, str, str]) -> Mapping[str, RuleReason]:
    """A game's reasons from ``(reason, meaning, rulebook)`` rows; each rule's anchor in
    ``docs/rules/<doc>.md`` is the reason in lower case with hyphens (``CAST_FIRST``: ``cast-first``)."""
    table: dict[str, RuleReason] = {}
    for reason, meaning, rulebook in rows:
        if reason in table:
            raise ValueError(f"reason {reason} is listed twice")
        anchor = reason.lower().replace("_", "-")
        table[reason] = RuleReason(reason, meaning, f"docs/rules/{doc}.md#{anchor}", rulebook)
    return table


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened while a move was applied."""

    kind: str
    text: str
    player: int | None = None
    detail: Any = None


@dataclass(frozen=True, slots=True)
class ChanceOutcome(Generic[M]):
    """One outcome of a chance step, as the explicit move that forces it."""

    move: M
    probability: float
    label: str


@dataclass(frozen=True, slots=True)
class Chance(Generic[M]):
    """A chance step: what is drawn and every outcome with its probability."""

    description: str
    outcomes: tuple[ChanceOutcome[M], ...]


class Result(enum.Enum):
    """How a finished game ended."""

    WIN = "WIN"
    DRAW = "DRAW"
    ALL_LOSE = "ALL_LOSE"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game."""

    result: Result
    winners: tuple[int, ...]
    summary: str


@dataclass(frozen=True, slots=True)
class ToAct:
    """Who may act now. ``chance`` is true when the state waits for dice, sticks or a draw;
    ``players`` then holds the player who throws (or is empty for a draw nobody makes)."""

    players: tuple[int, ...]
    chance: bool = False


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One option a game accepts, described for DescribeGame."""

    name: str
    description: str
    default: str
    allowed: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Assumption:
    """A decision taken where the rulebook is silent or ambiguous."""

    id: str
    rulebook: str
    decision: str
    option: str = ""


@dataclass(frozen=True, slots=True)
class Description:
    """Everything DescribeGame tells about a game besides its summary."""

    options: tuple[OptionInfo, ...]
    data: Mapping[str, Any]
    assumptions: tuple[Assumption, ...] = field(default=())


# --------------------------------------------------------------------------- randomness


PLY_LIMIT = 2**31 - 1
"""A state's ply must stay below this, so that the plies after it still fit the contract's int32."""

RNG_COUNTER_LIMIT = 2**63
"""An RNG counter must stay below this, so that the draws after it still fit the contract's uint64."""


def check_ply(ply: int) -> FieldViolation | None:
    """The violation of the ``ply`` field's range, or None (every game's ``check_state`` asks)."""
    if ply < 0:
        return FieldViolation("ply", "must not be negative")
    if ply >= PLY_LIMIT:
        return FieldViolation("ply", f"must be below {PLY_LIMIT}: no game runs this long")
    return None


@dataclass(frozen=True, slots=True)
class Rng:
    """A counter-based RNG carried in the state: draw n is derived from SHA-256(seed || n).

    Any replica, in any language, draws the same numbers from the same state. Whoever holds the
    state can therefore foresee the draws; server-held sessions keep the RNG out of players' hands.
    """

    seed: bytes
    counter: int = 0

    @staticmethod
    def from_seed(seed: int | bytes) -> Rng:
        raw = seed if isinstance(seed, bytes) else int(seed).to_bytes(8, "big", signed=False)
        return Rng(hashlib.sha256(b"lawspeaker-rng-v1" + raw).digest(), 0)

    def below(self, n: int) -> tuple[int, Rng]:
        """A uniform integer in [0, n) and the advanced RNG (rejection sampling, no bias)."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 64) - ((1 << 64) % n)
        counter = self.counter
        while True:
            digest = hashlib.sha256(self.seed + counter.to_bytes(8, "big")).digest()
            counter += 1
            value = int.from_bytes(digest[:8], "big")
            if value < limit:
                return value % n, Rng(self.seed, counter)


# --------------------------------------------------------------------------- frozen-state helpers


def player(seat: int) -> str:
    """How events and refusals name a seat: "Player 1" for seat 0."""
    return f"Player {seat + 1}"


def replaced(t: tuple[T, ...], i: int, v: T) -> tuple[T, ...]:
    """The tuple with item ``i`` replaced by ``v`` (states are frozen)."""
    return (*t[:i], v, *t[i + 1 :])


# --------------------------------------------------------------------------- data options

OPTION_CACHE_LIMIT = 64
"""Distinct option texts (a custom map or card set) a process keeps loaded; later ones are loaded for
each call, so that no client can make the process grow without bound."""


def option_cache(load: Callable[[str], T], reference: T) -> Callable[[str], T]:
    """For a game whose map, cards or numbers can be replaced by an option of JSON text: the function
    giving the validated data for an option value ("" = ``reference``), each text loaded (and
    validated) once while fewer than OPTION_CACHE_LIMIT are kept."""
    cache: dict[str, T] = {"": reference}

    def data_for(text: str) -> T:
        found = cache.get(text)
        if found is None:
            found = load(text)
            if len(cache) < OPTION_CACHE_LIMIT:
                cache[text] = found
        return found

    return data_for


# --------------------------------------------------------------------------- the game protocol


class Game(Protocol[S, M, O]):
    """What a game module provides. States are frozen; moves are hashable values."""

    id: str
    title: str
    min_players: int
    max_players: int
    rules_version: str
    reasons: Mapping[str, RuleReason]  # every reason ``explain`` gives, with the rule it enforces

    def default_options(self) -> O:
        """The options used when a client sets none."""
        ...

    def new_game(self, players: int, options: O, rng: Rng) -> S:
        """The initial state (players already checked against min/max)."""
        ...

    def check_state(self, state: S) -> list[FieldViolation]:
        """Every way the state breaks the game's invariants; empty when it is a valid position."""
        ...

    def to_act(self, state: S) -> ToAct:
        """Who may act now."""
        ...

    def legal_moves(self, state: S) -> Sequence[M]:
        """Every legal move, the single source of truth; in a chance step, the draw move."""
        ...

    def chance(self, state: S) -> Chance[M] | None:
        """The chance step the state waits for, or None."""
        ...

    def explain(self, state: S, move: M) -> Violation:
        """Why a move that is not legal is refused, naming the rule."""
        ...

    def apply(self, state: S, move: M) -> tuple[S, list[Event]]:
        """The state after a legal move and what happened (the move is already validated)."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        ...

    def view(self, state: S, seat: int | None) -> S:
        """The state as ``seat`` may see it (None: a spectator); hidden data is removed."""
        ...

    def describe(self) -> Description:
        """Options, board data and assumptions for DescribeGame."""
        ...


# --------------------------------------------------------------------------- shared checks

GAME_OVER = Violation("GAME_OVER", "The game is over: no more moves can be made.", "move")


def ensure_valid_state(game: Game[S, M, O], state: S) -> None:
    """Raise :class:`InvalidState` naming every broken invariant."""
    problems = game.check_state(state)
    if problems:
        raise InvalidState(problems)


def is_legal(game: Game[S, M, O], state: S, move: M) -> bool:
    """True when ``move`` is a listed legal move or an explicit outcome of the chance step."""
    if move in game.legal_moves(state):
        return True
    chance = game.chance(state)
    return chance is not None and any(o.move == move for o in chance.outcomes)


def validate(game: Game[S, M, O], state: S, move: M) -> Violation | None:
    """None when the move is legal, else the rule it breaks (a state already checked)."""
    if is_legal(game, state, move):
        return None
    if game.outcome(state) is not None:
        return GAME_OVER
    return game.explain(state, move)


def rule_of(game: Game[S, M, O], reason: str) -> str:
    """The anchor of the rule a reason of ``game`` enforces; "" for a reason that is no rule."""
    found = game.reasons.get(reason)
    return found.rule if found is not None else ""


def apply(game: Game[S, M, O], state: S, move: M) -> tuple[S, list[Event]]:
    """Apply a move after validating it; raises :class:`IllegalMove` with the rule it breaks."""
    violation = validate(game, state, move)
    if violation is not None:
        code = ErrorCode.GAME_OVER if violation.reason == "GAME_OVER" else ErrorCode.ILLEGAL_MOVE
        if violation.reason == "NOT_YOUR_TURN":
            code = ErrorCode.NOT_YOUR_TURN
        raise IllegalMove(violation, code, rule_of(game, violation.reason))
    return game.apply(state, move)
