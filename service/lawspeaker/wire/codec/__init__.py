"""Codecs: the edge where engine values meet protobuf messages. One codec per game.

A codec turns a game's protobuf messages into engine values and back. Decoding checks types and
ranges and raises :class:`~lawspeaker.games.core.LawspeakerError` naming the field; the game's own
``check_state`` then checks the invariants of the decoded state.

A codec is built over a namespace of message classes and enum constants: the game's ``_pb2``
module, or a :class:`lawspeaker.wire.structs.Wire` of the same messages (msgspec Structs, for the REST JSON
path). So codecs use only what both kinds of message share: construction by keyword arguments
(never ``CopyFrom``, ``setattr``, ``append`` or ``add``; repeated fields given as lists, enum
fields as the namespace's constants), attribute reads, ``HasField``, ``WhichOneof``, and ``len``
and iteration of repeated fields. Enum values compare and hash as ints; ``int()`` gives the number.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable
from typing import Any, Generic, Protocol, TypeVar

from lawspeaker.games.core import ErrorCode, FieldViolation, Game, LawspeakerError, Rng

S = TypeVar("S")
M = TypeVar("M")
O = TypeVar("O")  # noqa: E741
T = TypeVar("T")


def malformed(field: str, description: str, reason: str) -> LawspeakerError:
    """A client error naming the bad field, with its reason (``lawspeaker.api.catalogue``); ``field``
    "" names the message being decoded itself (the API layer gives its path)."""
    message = f"{field}: {description}" if field else description
    return LawspeakerError(ErrorCode.MALFORMED, reason, message, (FieldViolation(field, description),))


def by_name(members: Iterable[enum.Enum], pb: Any, prefix: str) -> dict[Any, Any]:
    """Engine enum member -> the constant of ``pb`` named ``prefix`` + the member's name (the
    engine and the contract spell their values alike: ``Phase.CAST`` is ``VALHALLA_PHASE_CAST``).
    A member the contract lacks raises AttributeError when the codec is built."""
    return {member: getattr(pb, prefix + member.name) for member in members}


def inverse(mapping: dict[Any, Any]) -> dict[int, Any]:
    """The inverse of an engine value -> protobuf enum number table."""
    return {value: key for key, value in mapping.items()}


def enum_value(value: int, table: dict[int, Any], field: str, default: Any = None) -> Any:
    """The engine value of a protobuf enum number; 0 (unset) means ``default`` when one is given.
    An unknown number is a client error naming the field."""
    if value == 0 and default is not None:
        return default
    found = table.get(value)
    if found is None:
        raise malformed(field, f"has no valid value (got {value})", "INVALID_ENUM")
    return found


class StatePaths:
    """How the paths a game's ``check_state`` names, in its engine State's own fields, read in the
    game's state message, where the codec lays the engine's fields out another way (per-seat
    tuples as fields of a repeated ``seats`` message, ...): so that an error names a real field of
    the request. Each rule is a regular expression matched at the start of a path and its
    replacement (``re.sub`` syntax); the first rule that matches rewrites the path, and a path no
    rule matches is one the engine and the contract spell alike."""

    def __init__(self, *rules: tuple[str, str]) -> None:
        self._rules = [(re.compile(pattern), replacement) for pattern, replacement in rules]

    def __call__(self, path: str) -> str:
        for pattern, replacement in self._rules:
            if pattern.match(path):
                return pattern.sub(replacement, path, count=1)
        return path


SAME_PATHS = StatePaths()
"""The path table of a game whose engine State and state message spell their fields alike."""


def per_seat(fields: dict[str, str], into: str = "seats") -> tuple[tuple[str, str], ...]:
    """Rules for engine tuples indexed by seat (or region, ...) whose values the contract keeps in
    a repeated message, one per seat: ``hands[2]...`` is ``seats[2].hand...``; ``hands`` alone is
    ``seats``. ``fields`` maps each engine tuple to its field in that message; ``into`` names the
    repeated field."""
    names = "|".join(sorted(fields, key=len, reverse=True))
    out: list[tuple[str, str]] = []
    for engine, contract in fields.items():
        out.append((rf"^{engine}\[(\d+)\]", rf"{into}[\1].{contract}"))
    out.append((rf"^(?:{names})$", into))
    return tuple(out)


def nested(prefix: str, call: Callable[[], T]) -> T:
    """``call()``, its refusal's field paths under ``prefix`` (an options message read inside a
    state: ``calendar_rounds`` is ``options.calendar_rounds`` there)."""
    try:
        return call()
    except LawspeakerError as err:
        violations = tuple(FieldViolation(prefix + v.field, v.description) for v in err.field_violations)
        message = err.message
        if err.field_violations and message.startswith(err.field_violations[0].field + ":"):
            message = prefix + message
        raise LawspeakerError(
            err.code, err.reason, message, violations, err.metadata, err.retry_after
        ) from None


class GameCodec(Protocol, Generic[S, M, O]):
    """Maps one game's engine values to and from its protobuf messages.

    ``field`` is the name of the game's field in the ``GameState``/``Move``/``GameOptions`` oneofs.
    Field paths in errors are relative to the game's message (``ships[3].position``); the API layer
    prefixes them with the request path (``state.valhalla.``). ``state_paths`` rewrites the paths
    the engine's ``check_state`` names into the state message's (:class:`StatePaths`).
    """

    field: str
    state_paths: StatePaths

    def __init__(self, pb: Any = ...) -> None: ...

    def state_to_proto(self, state: S) -> Any: ...

    def state_from_proto(self, msg: Any, rng: Rng) -> S: ...

    def rng_of(self, state: S) -> Rng: ...

    def move_to_proto(self, move: M) -> Any: ...

    def move_from_proto(self, msg: Any) -> M: ...

    def options_to_proto(self, options: O) -> Any: ...

    def options_from_proto(self, msg: Any | None) -> O: ...

    def event_detail_to_proto(self, detail: Any) -> Any | None: ...


class Entry(Generic[S, M, O]):
    """A registered game: the pure engine and its codec."""

    def __init__(self, game: Game[S, M, O], codec: GameCodec[S, M, O]) -> None:
        self.game = game
        self.codec = codec

    def over(self, messages: Any) -> Entry[S, M, O]:
        """The same game with its codec built over another namespace of messages."""
        return Entry(self.game, type(self.codec)(messages))
