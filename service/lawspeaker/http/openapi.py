"""The OpenAPI 3.1 document of the REST API, built from the protobuf descriptors so that it cannot
drift from the contract.

It says what the server accepts, so that a request its schemas allow is answered: the oneofs (one
game's state, one action per move), the fields a request needs, each game's player counts and option
values (from the game registry, as DescribeGame gives them), and the bounds the server keeps. The
RulesService POSTs are documented once per game (``/v1/games/valhalla:new``), since what their body
may hold depends on the game the path names. The tables below hold what the descriptors cannot say;
``tests/transport/test_openapi_exact.py`` holds each to the server, and ``.ci/schemathesis.sh`` fuzzes
the whole document against a live server. What JSON Schema cannot express is listed, by operation, in
its 400 response (``INEXPRESSIBLE``).

Its first readers are code generators (openapi-generator, openapi-python-client, openapi-typescript;
``clients/generated/check.sh`` plays games through each): every message is a named object schema,
what the types cannot say lives in keywords generators do not type (``dependentSchemas``,
``minProperties``), each body and answer has one media type (JSON; protobuf is named by each
operation's ``x-protobuf``), and each value one spelling (``clients/README.md`` says what that
promises)."""

from __future__ import annotations

import copy
import functools
import logging
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

import msgspec
from google.protobuf import descriptor

from lawspeaker.games import core
from lawspeaker.http.media import JSON, PROBLEM_JSON
from lawspeaker.http.routes import (
    API_VERSION,
    IF_MATCH_RPCS,
    RPCS,
    SERVICE,
    SESSION_RPCS,
    SESSION_SERVICE,
    Rpc,
    etag_getter,
)
from lawspeaker.http.session_routes import CONDITIONAL_GETS, EVENT_STREAM
from lawspeaker.sessions.clocks import MAX_CLOCK_SECONDS
from lawspeaker.sessions.seats import MAX_RAW_NAME
from lawspeaker.sessions.service import MAX_REQUEST_ID, MAX_SESSION_ID
from lawspeaker.sessions.webhooks import MAX_URL_LENGTH
from lawspeaker.v1 import game_pb2
from lawspeaker.wire import proto_comments, protojson
from lawspeaker.wire.codec import Entry
from lawspeaker.wire.registry import REGISTRY

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- OpenAPI 3.1

FD = descriptor.FieldDescriptor
REF = "#/components/schemas/"
SEAT_TOKEN = "seatToken"
API_KEY = "apiKey"

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
UINT64 = (0, 2**64 - 1)


def _numerals_up_to(n: int) -> str:
    """A regular expression of the decimal numerals of 0 to ``n`` (no sign, no leading zeros), so
    that a 64-bit integer sent as a JSON string is bounded as exactly as one sent as a number."""
    s = str(n)
    parts = ["0"]
    if len(s) > 1:
        parts.append(f"[1-9][0-9]{{0,{len(s) - 2}}}")
    for i, digit in enumerate(s):
        low = 1 if i == 0 else 0
        if int(digit) > low:
            rest = f"[0-9]{{{len(s) - i - 1}}}" if i < len(s) - 1 else ""
            parts.append(f"{s[:i]}[{low}-{int(digit) - 1}]{rest}")
    parts.append(s)
    return "(?:" + "|".join(parts) + ")"


def _integer(low: int, high: int, fmt: str) -> dict[str, Any]:
    """An integer field between ``low`` and ``high``. A 64-bit one is a decimal string, as proto3
    JSON writes it (a JavaScript number cannot hold every 64-bit value), bounded by its pattern: a
    JSON number there is refused over REST (``lawspeaker.wire.inbound``), so that a generated client has
    one type for it, ``string``."""
    if fmt not in ("int64", "uint64"):
        return {"type": "integer", "format": fmt, "minimum": low, "maximum": high}
    numeral = _numerals_up_to(high) if low >= 0 else f"-?{_numerals_up_to(-low)}"
    if low < 0 and high != -low:
        numeral = f"(?:-{_numerals_up_to(-low)}|{_numerals_up_to(high)})"
    return {"type": "string", "format": fmt, "pattern": f"^{numeral}$"}


BASE64 = f"^{protojson.CANONICAL_BASE64.pattern}$"
"""Standard base64 with its padding, as proto3 JSON writes bytes."""

_SCALARS: dict[int, dict[str, Any]] = {
    FD.TYPE_DOUBLE: {"type": "number", "format": "double"},
    FD.TYPE_FLOAT: {"type": "number", "format": "float"},
    FD.TYPE_INT32: _integer(*INT32, "int32"),
    FD.TYPE_SINT32: _integer(*INT32, "int32"),
    FD.TYPE_SFIXED32: _integer(*INT32, "int32"),
    FD.TYPE_UINT32: {"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295},
    FD.TYPE_FIXED32: {"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295},
    FD.TYPE_INT64: _integer(*INT64, "int64"),
    FD.TYPE_SINT64: _integer(*INT64, "int64"),
    FD.TYPE_SFIXED64: _integer(*INT64, "int64"),
    FD.TYPE_UINT64: _integer(*UINT64, "uint64"),
    FD.TYPE_FIXED64: _integer(*UINT64, "uint64"),
    FD.TYPE_BOOL: {"type": "boolean"},
    FD.TYPE_STRING: {"type": "string"},
    FD.TYPE_BYTES: {"type": "string", "format": "byte", "contentEncoding": "base64", "pattern": BASE64},
}

_WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array", "items": {}},
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": r"^-?\d+(\.\d+)?s$"},
    "google.protobuf.Empty": {"type": "object", "additionalProperties": False},
}

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "An RFC 9457 problem document; every error of the REST API is one.",
    "required": ["type", "title", "status", "detail", "code", "reason"],
    "properties": {
        "type": {
            "type": "string",
            "format": "uri",
            "description": "The problem type: the URL of its page on this service (GET "
            "/problems/{problem}; the reason in lower case with hyphens, e.g. .../problems/cast-first), "
            "which says what it means.",
        },
        "title": {"type": "string", "description": "The HTTP status phrase."},
        "status": {"type": "integer", "description": "The HTTP status code."},
        "detail": {"type": "string", "description": "What went wrong, in words."},
        "code": {
            "type": "string",
            "description": "The class of failure: the gRPC status code name (the same as gRPC's status and "
            "the Connect error's code, in upper case), e.g. FAILED_PRECONDITION.",
        },
        "reason": {
            "type": "string",
            "description": "What exactly went wrong: a stable UPPER_SNAKE reason, as in the gRPC ErrorInfo, "
            "e.g. CAST_FIRST. Every reason, general and per game, with its status and meaning, is listed "
            "in docs/errors.md; DescribeGame lists a game's rule reasons.",
        },
        "fieldViolations": {
            "type": "array",
            "description": "The request fields at fault.",
            "items": {"$ref": REF + "FieldViolation"},
        },
        "metadata": {
            "type": "object",
            "properties": {
                "retryAfterSeconds": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "description": "On a refusal that may be retried: the seconds to wait, as a number "
                    "(Retry-After rounds them up to whole seconds).",
                }
            },
            "additionalProperties": {"type": "string"},
            "description": "The ErrorInfo metadata, keys in lowerCamelCase: the error kind under 'kind' "
            "(MALFORMED, INVALID_STATE, ILLEGAL_MOVE, ...), and by reason: 'rule' (the URL of the rule a "
            "refused move breaks, on this service's page of the game's rules: "
            ".../rules/valhalla#cast-first), 'etag' (a session's current version), 'perMinute' and "
            "'burst' (a rate limit), ...; every value is a string but retryAfterSeconds, a number.",
        },
    },
}


def _reason_schema() -> dict[str, Any]:
    """Every reason a problem may give (``lawspeaker.api.catalogue``), as one enum."""
    from lawspeaker.api.catalogue import all_reasons

    return {
        "type": "string",
        "enum": all_reasons(),
        "description": "A stable UPPER_SNAKE reason for a refusal (google.rpc.ErrorInfo.reason); "
        "docs/errors.md gives each one's status and meaning.",
    }


def _problem_schema() -> dict[str, Any]:
    """PROBLEM_SCHEMA with ``reason`` one of every reason (the ``Reason`` schema)."""
    schema = copy.deepcopy(PROBLEM_SCHEMA)
    schema["properties"]["reason"] = {"$ref": REF + "Reason", **schema["properties"]["reason"]}
    del schema["properties"]["reason"]["type"]
    return schema


# --------------------------------------------------------------------------- what the server requires
#
# The descriptors say what a message may hold; these say what the server refuses a request without,
# or outside of, where the contract's types cannot say it. tests/transport/test_openapi_exact.py
# provokes each refusal, so an entry cannot outlive the server's rule.

GAME_STATE: descriptor.Descriptor = game_pb2.DESCRIPTOR.message_types_by_name["GameState"]
MOVE: descriptor.Descriptor = game_pb2.DESCRIPTOR.message_types_by_name["Move"]
GAMES: dict[str, Entry[Any, Any, Any]] = {entry.codec.field: entry for entry in REGISTRY.values()}
"""Every game by the name of its member in the contract's game oneofs (``GameState.valhalla``)."""
GAME_IDS: list[str] = sorted(entry.game.id for entry in REGISTRY.values())

REQUIRED: dict[str, tuple[str, ...]] = {
    "lawspeaker.v1.NewGameRequest": ("players",),  # 0 players is outside every game's bounds
    "lawspeaker.v1.LegalMovesRequest": ("state",),  # STATE_REQUIRED
    "lawspeaker.v1.ValidateMoveRequest": ("state", "move"),  # STATE_REQUIRED, MOVE_REQUIRED
    "lawspeaker.v1.ApplyMoveRequest": ("state", "move"),
    "lawspeaker.v1.SuggestMoveRequest": ("state",),  # STATE_REQUIRED
    "lawspeaker.v1.CreateSessionRequest": ("game", "players"),  # GAME_REQUIRED, PLAYER_COUNT
    "lawspeaker.v1.SessionValidateMoveRequest": ("move",),  # MOVE_REQUIRED
    "lawspeaker.v1.SessionApplyMoveRequest": ("move",),
    "lawspeaker.v1.ClaimSeatRequest": ("display_name",),  # DISPLAY_NAME_REQUIRED
    "lawspeaker.v1.ManageSeatRequest": ("action",),  # SEAT_ACTION_INVALID
    "lawspeaker.v1.RngState": ("seed",),  # a state's RNG seed is 32 bytes (INVALID_STATE)
}
"""Request fields the server refuses to go without: proto3 has no required fields (an absent field
is its zero value), and these cannot be their zero value. A session write's ``etag`` is not here:
If-Match may name the version instead, and JSON Schema cannot relate a header to the body."""

SENT: dict[str, tuple[str, ...]] = {
    "lawspeaker.v1.NewGameResponse": ("state",),
    "lawspeaker.v1.ApplyMoveResponse": ("state",),
    "lawspeaker.v1.CreateSessionResponse": ("session", "host_token"),
    "lawspeaker.v1.GetSessionResponse": ("session",),
    "lawspeaker.v1.SessionApplyMoveResponse": ("session",),
    "lawspeaker.v1.UndoMoveResponse": ("session", "undone"),
    "lawspeaker.v1.ResignSeatResponse": ("session",),
    "lawspeaker.v1.ClaimSeatResponse": ("session", "seat_token"),
    "lawspeaker.v1.ManageSeatResponse": ("session",),
    "lawspeaker.v1.RematchResponse": ("session",),
    "lawspeaker.v1.SeatStatus": ("role",),  # never SEAT_ROLE_UNSPECIFIED
    "lawspeaker.v1.SessionResult": ("reason",),  # never RESULT_REASON_UNSPECIFIED
    "lawspeaker.v1.SeatPlace": ("place",),  # from 1
    "lawspeaker.v1.SeatEvent": ("kind",),  # never SEAT_EVENT_KIND_UNSPECIFIED
    "lawspeaker.v1.DescribeGameResponse": ("info",),
    "lawspeaker.v1.GameInfo": ("id", "title", "min_players", "max_players", "rules_version"),
    "lawspeaker.v1.Session": ("session", "game", "players", "etag"),  # an etag is never empty
    "lawspeaker.v1.SeatToken": ("token",),
    "lawspeaker.v1.SessionLegalMovesResponse": ("etag",),
}
"""Response fields the server always sends (proto3 JSON leaves out only fields at their zero value),
so that a typed client need not check for them."""

PLAYERS = frozenset({"lawspeaker.v1.NewGameRequest.players", "lawspeaker.v1.CreateSessionRequest.players"})
"""Player counts, bounded by each game's min_players and max_players (DescribeGame)."""

BOUNDS: dict[str, tuple[int, int]] = {
    "lawspeaker.v1.RngState.counter": (0, core.RNG_COUNTER_LIMIT - 1),
    "lawspeaker.v1.ListSessionMovesRequest.page_size": (0, INT32[1]),  # INVALID_PAGE_SIZE
    "lawspeaker.v1.ListSessionsRequest.page_size": (0, INT32[1]),  # INVALID_PAGE_SIZE
    "lawspeaker.v1.ListSessionsRequest.players": (0, 99),  # PLAYERS_OUT_OF_RANGE
    "lawspeaker.v1.ClaimSeatRequest.seat": (0, INT32[1]),  # below the session's players: SEAT_OUT_OF_RANGE
    "lawspeaker.v1.ManageSeatRequest.seat": (0, INT32[1]),
    "lawspeaker.v1.CreateSessionRequest.open_seats": (0, INT32[1]),
    "lawspeaker.v1.PaxVikingJuniorOptions.starting_seat": (-1, INT32[1]),  # -1: as unset, drawn at random
    "lawspeaker.v1.SuggestMoveRequest.seat": (0, INT32[1]),  # below the state's players: SEAT_OUT_OF_RANGE
    "lawspeaker.v1.BotSeat.seat": (0, INT32[1]),  # below the session's players: SEAT_OUT_OF_RANGE
    **{  # CLOCK_INVALID: 0 (none) to a year
        f"lawspeaker.v1.Clock.{name}": (0, MAX_CLOCK_SECONDS)
        for name in ("per_move_seconds", "bank_seconds", "increment_seconds")
    },
}
"""Integer fields the server bounds more narrowly than their type."""

SEAT_OPTIONS = frozenset({"lawspeaker.v1.PaxVikingJuniorOptions.starting_seat"})
"""Options naming a seat: below the number of players (INVALID_OPTIONS)."""
PER_SEAT_OPTIONS = frozenset({"lawspeaker.v1.PaxVikingJuniorOptions.seat_boards"})
"""Options listing one value per seat, each a different one: as many as players, or none."""

NO_PHYSICAL_DICE: dict[str, str] = {"lawspeaker.v1.PenkiOptions.setup": "PENKI_SETUP_RANDOM_PAIRS"}
"""Option values with which a game's first chance step has no outcome a player can enter (the whole
bag shuffled at once): a session with physical dice cannot start (PHYSICAL_DICE_UNSUPPORTED)."""

NONZERO_ENUMS = frozenset(
    {
        *(
            f"lawspeaker.v1.{name}State.phase"
            for name in ("Valhalla", "Penki", "PaxPenning", "PaxVikingJunior", "Birka")
        ),
        "lawspeaker.v1.ValhallaShip.colour",  # a ship is light or dark
        "lawspeaker.v1.PenkiTile.orientation",
        "lawspeaker.v1.PenkiPair.first",  # a drawn pair is two pieces
        "lawspeaker.v1.PenkiPair.second",
        "lawspeaker.v1.PenkiPlacePair.first",
        "lawspeaker.v1.PenkiPlacePair.second",
        "lawspeaker.v1.SuggestMoveRequest.level",  # BOT_LEVEL_REQUIRED
        "lawspeaker.v1.BotSeat.level",
        "lawspeaker.v1.ManageSeatRequest.action",  # SEAT_ACTION_INVALID
    }
)
"""Enum fields whose zero value (unset) the codecs refuse (INVALID_ENUM, INVALID_STATE): they are
required and never their ``*_UNSPECIFIED`` value."""

EXTRA: dict[str, dict[str, Any]] = {
    # the seed NewGame made: 32 bytes, which base64 writes in 43 characters and one '='
    "lawspeaker.v1.RngState.seed": {"pattern": r"^[A-Za-z0-9+/]{43}=$", "minLength": 44, "maxLength": 44},
    "lawspeaker.v1.SessionApplyMoveRequest.request_id": {"maxLength": MAX_REQUEST_ID},  # REQUEST_ID_TOO_LONG
    # a session etag: the digits of a version (ETAG_MALFORMED)
    # (empty is the field unset, as proto3 JSON reads it: no long poll, no resumption)
    "lawspeaker.v1.GetSessionRequest.wait_for_change": {"pattern": "^[0-9]{0,19}$"},
    "lawspeaker.v1.WatchSessionRequest.resume_after_etag": {"pattern": "^[0-9]{0,19}$"},
    "lawspeaker.v1.ResignSeatRequest.etag": {"pattern": "^[0-9]{0,19}$"},  # optional: empty is unset
    "lawspeaker.v1.ManageSeatRequest.etag": {"pattern": "^[0-9]{0,19}$"},
    # a display name as sent: longer is refused before it is read (DISPLAY_NAME_TOO_LONG); what it
    # is once normalised (at most 32 characters, not only spaces) JSON Schema cannot say
    "lawspeaker.v1.ClaimSeatRequest.display_name": {"maxLength": MAX_RAW_NAME},
    "lawspeaker.v1.ManageSeatRequest.display_name": {"maxLength": MAX_RAW_NAME},
    "lawspeaker.v1.CreateSessionRequest.display_names": {"maxLength": MAX_RAW_NAME},
    # a webhook's endpoint: an http(s) URL of at most MAX_URL_LENGTH (WEBHOOK_URL_INVALID); which
    # hosts it may name (public addresses, the allowlist, http:// only for an allowed one) the
    # server decides (sessions/webhooks.parse_url)
    "lawspeaker.v1.Webhook.url": {
        "minLength": 1,
        "maxLength": MAX_URL_LENGTH,
        "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://",
    },
}
"""Further keywords of single fields."""


def _at_least_one(*names: str) -> dict[str, Any]:
    """An object in which one of the integer fields ``names`` (JSON names) is set and not 0 (one name:
    that field, without an anyOf of one branch, which linters call illogical)."""
    branches = [{"required": [n], "properties": {n: {"type": "integer", "minimum": 1}}} for n in names]
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


DEPENDENT: dict[str, dict[str, Any]] = {
    # CLOCK_INVALID: an increment is added to a bank ...
    "lawspeaker.v1.Clock": {
        "incrementSeconds": {
            "anyOf": [{"properties": {"incrementSeconds": {"enum": [0, None]}}}, _at_least_one("bankSeconds")]
        }
    },
    # ... and a clock set (even to {}) has a limit per move or a bank; null is no clock
    "lawspeaker.v1.CreateSessionRequest": {
        "clock": {
            "anyOf": [
                {"properties": {"clock": {"type": "null"}}},
                {"properties": {"clock": _at_least_one("perMoveSeconds", "bankSeconds")}},
            ]
        }
    },
}
"""Relations between the fields of a message the server refuses to go without (its
``dependentSchemas``, by the JSON name of the field that brings them in)."""


def _exactly_one() -> frozenset[str]:
    """The oneofs a request must set: a state is of one game and a move is of one game and is one
    action (the codecs refuse a move without one, MOVE_REQUIRED). Every other oneof is at most one."""
    names = {GAME_STATE.oneofs_by_name["game"].full_name, MOVE.oneofs_by_name["game"].full_name}
    for member in MOVE.oneofs_by_name["game"].fields:
        move = member.message_type
        assert move is not None
        names.update(o.full_name for o in move.oneofs if not o.name.startswith("_"))
    return frozenset(names)


EXACTLY_ONE = _exactly_one()


def _game_oneof(desc: descriptor.Descriptor) -> descriptor.OneofDescriptor | None:
    """The oneof of ``desc`` with one member per game (``GameState.game``, ``GameEvent.detail``)."""
    for o in desc.oneofs:
        if {f.name for f in o.fields} == set(GAMES):
            return o
    return None


@functools.cache
def _reference_ids() -> dict[str, list[str]]:
    """The values a per-seat option may take with the game's reference data (an option replacing
    the data, Pax Viking Junior's components, may bring others): the cat boards DescribeGame lists."""
    data = REGISTRY["pax_viking_junior"].game.describe().data
    return {"lawspeaker.v1.PaxVikingJuniorOptions.seat_boards": [b["id"] for b in data["cat_boards"]]}


@functools.cache
def _option_values() -> dict[str, list[Any]]:
    """The values each game's DescribeGame allows for its options (enums and numbers), by field:
    the listed ones and the zero value, which means the option's default."""
    out: dict[str, list[Any]] = {}
    options: descriptor.Descriptor = game_pb2.DESCRIPTOR.message_types_by_name["GameOptions"]
    for member, entry in GAMES.items():
        desc = options.fields_by_name[member].message_type
        assert desc is not None
        for option in entry.game.describe().options:
            f = desc.fields_by_name.get(option.name)
            if f is None or not option.allowed or f.type == FD.TYPE_BOOL or f.is_repeated:
                continue
            if f.type == FD.TYPE_ENUM:
                values = f.enum_type
                assert values is not None
                zero = values.values_by_number[0].name
                out[f.full_name] = [zero, *(v for v in option.allowed if v != zero)]
            elif f.type in (FD.TYPE_INT32, FD.TYPE_UINT32):
                out[f.full_name] = [0, *(int(v) for v in option.allowed if int(v) != 0)]
    return out


def _doc(full_name: str) -> str:
    """The .proto comment of an element, or its name when it has none."""
    return proto_comments.comments().get(full_name) or f"Protobuf {full_name}."


def pascal(member: str) -> str:
    """A game's member name as it ends a per-game schema name: ``pax_penning`` -> ``PaxPenning``."""
    return "".join(part.capitalize() for part in member.split("_"))


NULL: dict[str, Any] = {"type": "null"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also takes ``null``, which proto3 JSON reads as the field's default.

    A reference becomes ``anyOf: [ref, null]``, the form every generator reads as an optional type
    (``X | null``, ``Optional[X]``); a scalar or array type gains ``"null"`` in its type list."""
    if "$ref" in schema:
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return {"anyOf": [{"$ref": schema["$ref"]}, NULL], **rest}
    kind = schema.get("type")
    if kind is None:  # google.protobuf.Value: anything, null included
        return schema
    out = dict(schema)
    out["type"] = [*kind, "null"] if isinstance(kind, list) else [kind, "null"]
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    return out


@functools.cache
def request_messages() -> frozenset[str]:
    """The messages a request can hold (every RPC's input type and what its fields reach): their
    fields take ``null``. A message found only in answers does not: the service never writes null."""
    found: set[str] = set()

    def walk(desc: descriptor.Descriptor) -> None:
        if desc.full_name in found or desc.full_name in _WELL_KNOWN:
            return
        found.add(desc.full_name)
        for f in desc.fields:
            if f.message_type is not None:
                walk(f.message_type)

    for rpc in (*RPCS, *SESSION_RPCS):
        walk(rpc.method.input_type)
    return frozenset(found)


def _real_oneofs(desc: descriptor.Descriptor) -> list[descriptor.OneofDescriptor]:
    """The oneofs of ``desc`` that are oneofs (not the synthetic one of a proto3 ``optional``)."""
    return [o for o in desc.oneofs if not o.name.startswith("_")]


class _SchemaBuilder:
    """The JSON Schemas of the contract's messages, as components named for what they are.

    A message's schema is named as the message (``ValhallaMove``, ``GameState``). A message that
    holds a game oneof (directly or below) has, besides that schema, one per game named with the
    game's name after it (``GameStateValhalla``, ``NewGameRequestValhalla``): the oneof then has that
    game's member only, so an operation on one game takes and gives that game's states, moves and
    options and no other, and a generated client has a type that says so.

    Generators are the first readers (openapi-generator, openapi-python-client, openapi-typescript):
    every schema of a message is a plain object whose properties are its fields, and what JSON
    Schema says beyond the types (at most one member of a oneof, bounds that depend on the number
    of players, ...) is said in keywords generators do not turn into types: ``dependentSchemas``,
    ``minProperties`` and ``if``/``then`` inside them, never ``oneOf``/``allOf`` over a message or a
    boolean schema."""

    def __init__(self) -> None:
        self.schemas: dict[str, dict[str, Any]] = {}
        self._per_game: dict[str, bool] = {}
        self._names: dict[str, str] = {}  # generated class name (folded) -> schema name

    def per_game(self, desc: descriptor.Descriptor) -> bool:
        """Whether ``desc`` holds a game oneof, directly or below."""
        found = self._per_game.get(desc.full_name)
        if found is None:
            self._per_game[desc.full_name] = False  # against recursion (google.protobuf.Value)
            found = _game_oneof(desc) is not None or any(
                f.message_type is not None and self.per_game(f.message_type) for f in desc.fields
            )
            self._per_game[desc.full_name] = found
        return found

    def add(self, name: str, schema: dict[str, Any]) -> dict[str, str]:
        """Register a component; names that a generator would fold into one class are refused."""
        folded = "".join(c for c in name if c.isalnum()).lower()
        other = self._names.setdefault(folded, name)
        if other != name:
            raise ValueError(f"schemas {other!r} and {name!r} would be one class in a generated client")
        self.schemas[name] = schema
        return {"$ref": REF + name}

    def message(self, desc: descriptor.Descriptor, game: str | None = None) -> dict[str, Any]:
        """A reference to the schema of ``desc`` (as ``game`` uses it, when given and it matters)."""
        if desc.full_name in _WELL_KNOWN:
            return dict(_WELL_KNOWN[desc.full_name])
        if game is not None and not self.per_game(desc):
            game = None
        name = desc.name if game is None else desc.name + pascal(game)
        if name not in self.schemas:
            self.add(name, {})  # placeholder against recursion
            self.schemas[name] = self.object_schema(desc, (), game)
        return {"$ref": REF + name}

    def body(self, desc: descriptor.Descriptor, skip: Sequence[str], game: str | None) -> dict[str, Any]:
        """A reference to the schema of a request body: ``desc`` without the path's fields."""
        if game is not None and not self.per_game(desc):
            game = None
        name = desc.name if game is None else desc.name + pascal(game)
        if name not in self.schemas:
            self.add(name, {})
            schema = self.object_schema(desc, skip, game)
            if skip:
                schema["description"] += " (" + ", ".join(skip) + ": in the path.)"
            self.schemas[name] = schema
        return {"$ref": REF + name}

    def object_schema(
        self, desc: descriptor.Descriptor, skip: Sequence[str], game: str | None = None
    ) -> dict[str, Any]:
        """The schema of ``desc`` without the fields ``skip`` (path parameters), for ``game`` if given."""
        game_oneof = _game_oneof(desc)
        fields = [
            f
            for f in desc.fields
            if f.name not in skip
            and not (
                game is not None and game_oneof is not None and f in game_oneof.fields and f.name != game
            )
        ]
        names = [f.json_name for f in fields]
        required = [
            desc.fields_by_name[n].json_name
            for n in (*REQUIRED.get(desc.full_name, ()), *SENT.get(desc.full_name, ()))
            if n not in skip
        ]
        required += [f.json_name for f in fields if f.full_name in NONZERO_ENUMS]
        if desc.full_name == GAME_STATE.full_name and game is not None:
            required += ["rulesVersion", "rng"]
        oneofs = []
        for o in _real_oneofs(desc):
            members = [f.json_name for f in fields if f.containing_oneof is o]
            if not members:
                continue
            exactly = o.full_name in EXACTLY_ONE
            oneofs.append((o, members, exactly))
            if exactly and len(members) == 1:
                required += members
        required = list(dict.fromkeys(required))
        nullable = desc.full_name in request_messages()
        props: dict[str, Any] = {}
        for f in fields:
            props[f.json_name] = self.field(f, game, nullable and f.json_name not in required)
        if desc.full_name == GAME_STATE.full_name and game is not None:
            props["rulesVersion"] = {**props["rulesVersion"], "const": GAMES[game].game.rules_version}
        schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
        dependent: dict[str, Any] = {}
        notes = []
        for o, members, exactly in oneofs:
            notes.append(f"{o.name}: {'exactly' if exactly else 'at most'} one of {', '.join(members)}")
            if len(members) < 2:
                continue
            for m in members:  # a member set (not null): the others are absent or null
                others = {x: NULL for x in members if x != m}
                dependent[m] = {"anyOf": [{"properties": {m: NULL}}, {"properties": others}]}
            if exactly and len(members) == len(names):
                schema["minProperties"] = 1  # the message is the oneof: an empty one is refused
        if game is not None and f"{desc.full_name}.players" in PLAYERS:
            seats = _seat_alternatives(game)
            if seats:
                dependent["players"] = {"anyOf": seats}
        for f in fields:
            ids = _reference_ids().get(f.full_name)
            if ids is not None:  # the reference data's ids, unless an option replaces the data
                data = next(d.json_name for d in fields if d.name in ("components", "data", "board"))
                replaced = {"required": [data], "properties": {data: {"type": "string", "minLength": 1}}}
                reference = {"properties": {f.json_name: {"items": {"enum": ids}}}}
                dependent[f.json_name] = {"anyOf": [replaced, reference]}
        dependent.update(DEPENDENT.get(desc.full_name, {}))
        if dependent:
            schema["dependentSchemas"] = dependent
        if required:
            schema["required"] = required
        description = _doc(desc.full_name)
        if game is not None:
            description += f" ({desc.full_name} in a game of {GAMES[game].game.title}.)"
        if notes:
            description += " Oneofs: " + "; ".join(notes) + "."
        schema["description"] = description
        return schema

    def game_id(self) -> dict[str, Any]:
        """A reference to the schema of a game id: one of the games the service plays."""
        if GAME_ID not in self.schemas:
            self.add(
                GAME_ID, {"type": "string", "enum": GAME_IDS, "description": "A game the service plays."}
            )
        return {"$ref": REF + GAME_ID}

    def enum(self, desc: descriptor.EnumDescriptor) -> dict[str, Any]:
        if desc.name not in self.schemas:
            self.add(
                desc.name,
                {
                    "type": "string",
                    "enum": [v.name for v in desc.values],
                    "description": _doc(desc.full_name)
                    + " Values: "
                    + "; ".join(f"{v.name}: {_doc(f'{desc.full_name}.{v.name}')}" for v in desc.values),
                },
            )
        return {"$ref": REF + desc.name}

    def single(self, f: descriptor.FieldDescriptor, game: str | None = None) -> dict[str, Any]:
        """The schema of one value of ``f`` (an element, for a repeated field)."""
        if f.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
            assert f.message_type is not None
            return self.message(f.message_type, game)
        allowed = _option_values().get(f.full_name)
        if f.type == FD.TYPE_ENUM:
            assert f.enum_type is not None
            every = [v.name for v in f.enum_type.values]
            if f.full_name in NONZERO_ENUMS:
                allowed = [v.name for v in f.enum_type.values if v.number != 0]
            if allowed is None or allowed == every:
                return self.enum(f.enum_type)
            return {"type": "string", "enum": allowed, "description": _doc(f.enum_type.full_name)}
        if f.full_name in PLAYERS:
            games = [GAMES[game].game] if game is not None else [e.game for e in GAMES.values()]
            return _integer(min(g.min_players for g in games), max(g.max_players for g in games), "int32")
        if f.name == "game" and f.type == FD.TYPE_STRING:
            if game is not None:
                return {"type": "string", "const": GAMES[game].game.id}
            if f.containing_type is not None and f.containing_type.full_name in REQUIRED_GAME:
                return self.game_id()
        bounds = BOUNDS.get(f.full_name)
        schema = _integer(*bounds, _SCALARS[f.type]["format"]) if bounds else dict(_SCALARS[f.type])
        if allowed is not None:
            schema["enum"] = allowed
        extra = EXTRA.get(f.full_name, {})
        if "pattern" in extra:
            schema.pop("format", None)  # the pattern says it all (and a generator need not filter)
        schema.update(extra)
        return schema

    def field(self, f: descriptor.FieldDescriptor, game: str | None, nullable: bool) -> dict[str, Any]:
        """The schema of field ``f``: with ``nullable``, null too (not for a list's or map's entries,
        which proto3 JSON refuses as null)."""
        schema: dict[str, Any]
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            value = f.message_type.fields_by_name["value"]
            schema = {"type": "object", "additionalProperties": self.single(value, game)}
        elif f.is_repeated:
            schema = {"type": "array", "items": self.single(f, game)}
            if f.full_name in PER_SEAT_OPTIONS:
                schema["uniqueItems"] = True
        else:
            schema = self.single(f, game)
        if nullable:
            schema = _nullable(schema)
        comment = proto_comments.comments().get(f.full_name)
        if comment:
            schema["description"] = comment
        return schema


GAME_ID = "GameId"
REQUIRED_GAME = frozenset({"lawspeaker.v1.CreateSessionRequest"})
"""Requests whose ``game`` field names the game (one of the service's, GAME_NOT_FOUND otherwise)."""


def _physical_dice(member: str) -> dict[str, Any]:
    """For a request creating a session of ``member``: physicalDice false (or null) with the options
    values ``NO_PHYSICAL_DICE`` names (an ``if``/``then``), or nothing when the game has none."""
    options = game_pb2.DESCRIPTOR.message_types_by_name["GameOptions"].fields_by_name[member]
    assert options.message_type is not None
    for f in options.message_type.fields:
        value = NO_PHYSICAL_DICE.get(f.full_name)
        if value is not None:
            chosen = {"required": [f.json_name], "properties": {f.json_name: {"const": value}}}
            return {
                "if": {
                    "required": ["options"],
                    "properties": {
                        "options": {
                            "required": [options.json_name],
                            "properties": {options.json_name: chosen},
                        }
                    },
                },
                "then": {"properties": {"physicalDice": {"enum": [False, None]}}},
            }
    return {}


def _seat_alternatives(member: str) -> list[dict[str, Any]]:
    """For a request creating a game of ``member`` with options that name seats: one alternative per
    number of players, bounding those options by it; none when the game's options name no seat."""
    options = game_pb2.DESCRIPTOR.message_types_by_name["GameOptions"].fields_by_name[member]
    assert options.message_type is not None
    fields = options.message_type.fields
    seat = [f.json_name for f in fields if f.full_name in SEAT_OPTIONS]
    per_seat = [f.json_name for f in fields if f.full_name in PER_SEAT_OPTIONS]
    if not seat and not per_seat:
        return []
    game = GAMES[member].game
    alternatives = []
    for n in range(game.min_players, game.max_players + 1):
        bounded: dict[str, Any] = {s: {"maximum": n - 1} for s in seat}
        bounded.update({p: {"anyOf": [{"maxItems": 0}, {"minItems": n, "maxItems": n}]} for p in per_seat})
        inner = {"properties": {options.json_name: {"properties": bounded}}}
        alternatives.append({"properties": {"players": {"const": n}, "options": inner}})
    return alternatives


def _session_of_game(member: str, builder: _SchemaBuilder) -> dict[str, Any]:
    """What a CreateSession body of ``member``'s game must be beyond the general schema: its number
    of players, options of that game only (as its per-game GameOptions says), seats those options
    name below the players, and no physical dice where the game's first chance step has none."""
    game = GAMES[member].game
    options = game_pb2.DESCRIPTOR.message_types_by_name["GameOptions"]
    branch: dict[str, Any] = {
        "properties": {
            "game": {"const": game.id},
            "players": {"minimum": game.min_players, "maximum": game.max_players},
            "options": _nullable(builder.message(options, member)),
        },
        **_physical_dice(member),
    }
    seats = _seat_alternatives(member)
    if seats:
        branch["dependentSchemas"] = {"players": {"anyOf": seats}}
    return branch


FIELD_VIOLATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "One request field at fault (google.rpc.BadRequest.FieldViolation).",
    "required": ["field", "description"],
    "properties": {
        "field": {
            "type": "string",
            "description": "The path of the field, with the JSON field names of a JSON body "
            "(move.valhalla.moveShip.ship, state.paxPenning.players[2].coins) and the proto field names "
            "of a binary protobuf one (move.valhalla.move_ship.ship); a header by its name (If-Match).",
        },
        "description": {"type": "string", "description": "What is wrong with it."},
    },
}


def _error_responses(statuses: Sequence[int]) -> dict[str, Any]:
    return {
        str(s): {
            "description": HTTPStatus(s).phrase,
            "content": {PROBLEM_JSON: {"schema": {"$ref": REF + "Problem"}}},
        }
        for s in statuses
    }


SSE_PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["status", "reason", "detail"],
    "properties": {
        "status": {"type": "integer"},
        "reason": {"type": "string"},
        "detail": {"type": "string"},
    },
}


def _sse_event(data: dict[str, Any], full_name: str) -> dict[str, Any]:
    """The schema of one Server-Sent Event of a stream. OpenAPI 3.1 has no keyword for the events of
    a stream (3.2 adds itemSchema), so ``schema`` describes each event, as tools that check streams
    (schemathesis) read it; the data's own schema is its ``contentSchema``, by event type."""
    return {
        "type": "object",
        "description": "One Server-Sent Event: a 'message' event's data is the proto3 JSON of one "
        f"{full_name}; an 'error' event's data is a problem summary (status, reason, detail), after "
        "which the stream ends. Comment lines keep an idle stream open.",
        "required": ["event", "data"],
        "properties": {
            "event": {"type": "string", "enum": ["message", "error"]},
            "data": {"type": "string", "contentMediaType": JSON},
            "id": {"type": "string"},
            "retry": {"type": "integer", "minimum": 0},
        },
        "dependentSchemas": {
            "event": {
                "if": {"properties": {"event": {"const": "message"}}},
                "then": {"properties": {"data": {"contentSchema": data}}},
                "else": {"properties": {"data": {"contentSchema": SSE_PROBLEM_SCHEMA}}},
            }
        },
    }


def _state_links(game: str) -> dict[str, Any]:
    """Links from NewGame's answer, which is the body the RPCs asking about a state take
    (``{"state": ...}``), to those RPCs: how a client goes on, and how a tool walking the links
    (schemathesis) sends real states. Each link's body is the whole answer, a runtime expression, as
    OpenAPI defines it (a literal object with expressions inside is no OpenAPI, and generators'
    validators refuse it)."""
    return {
        name: {
            "operationId": f"{name}_{game}",
            "description": f"{name} in the state of the new game (NewGame's answer is its body).",
            "requestBody": "$response.body",
        }
        for name in ("LegalMoves", "SuggestMove")
    }


SESSION_LINKS = ("GetSession", "SessionLegalMoves", "ListSessionMoves", "WatchSession")
"""The RPCs a new session's answer links to, by its id (more need a seat's token, which no link sets)."""


def _session_links() -> dict[str, Any]:
    return {
        name: {
            "operationId": name,
            "description": f"{name} on the session just created.",
            "parameters": {"session": "$response.body#/session/session"},
        }
        for name in SESSION_LINKS
    }


def _per_game(rpc: Rpc) -> bool:
    """Whether ``rpc`` is documented once per game: the RulesService POSTs, whose body (the state,
    the move, the options, the number of players) must be of the game the path names, which one
    schema per path can say and one path for every game cannot."""
    return rpc.service is SERVICE and bool(rpc.body) and "game" in rpc.path_params


def _path_parameter(name: str, f: descriptor.FieldDescriptor, builder: _SchemaBuilder) -> dict[str, Any]:
    schema = builder.single(f)
    if name == "game":
        schema = {**builder.game_id(), "description": "A game id; any other is 404."}
    elif name == "session":
        ids = "|".join(GAME_IDS)
        schema = {
            "type": "string",
            "pattern": rf"^(?:{ids})\.[A-Za-z0-9_-]+$",
            "maxLength": MAX_SESSION_ID,
            "description": "A session id as CreateSession returned it: the game id, a dot and a random part.",
        }
    return {"name": name, "in": "path", "required": True, "schema": schema}


IDENTIFIED = frozenset({"CreateSession", "ListSessions", "ClaimSeat", "Rematch"})
"""The calls whose quotas count per client (``lawspeaker.http.guard.IDENTIFIED_CONNECT``): 401 with
API keys configured, 429 past a quota."""

INEXPRESSIBLE: dict[str, str] = {
    "NewGame": "an option holding game data as JSON text (Birka's data, Pax Penning's board, Pax Viking "
    "Junior's components) that does not validate as that data (INVALID_DATA, INVALID_BOARD, "
    "INVALID_COMPONENTS)",
    "LegalMoves": "a state that is not a position of the game (INVALID_STATE, INVALID_ENUM, or its "
    "options' game data: INVALID_DATA, INVALID_BOARD, INVALID_COMPONENTS): its invariants are the "
    "game's rules",
    **dict.fromkeys(
        ("ValidateMove", "ApplyMove"),
        "a state that is not a position of the game (INVALID_STATE, INVALID_ENUM, or its options' game "
        "data: INVALID_DATA, INVALID_BOARD, INVALID_COMPONENTS): its invariants are the game's rules; a "
        "move whose actions are all null, which sets none (MOVE_REQUIRED)",
    ),
    "SuggestMove": "a state that is not a position of the game (INVALID_STATE, INVALID_ENUM, or its "
    "options' game data: INVALID_DATA, INVALID_BOARD, INVALID_COMPONENTS), or a seat the state's players "
    "do not reach (SEAT_OUT_OF_RANGE)",
    "CreateSession": "an option holding game data as JSON text that does not validate as that data "
    "(INVALID_DATA, INVALID_BOARD, INVALID_COMPONENTS), a bot seat beyond the players or named twice "
    "(SEAT_OUT_OF_RANGE, BOT_SEAT_DUPLICATE), bot seats with physical dice (BOTS_WITH_PHYSICAL_DICE), an "
    "open seat beyond the players, named twice, a bot's, or with physical dice (SEAT_OUT_OF_RANGE, "
    "OPEN_SEAT_DUPLICATE, OPEN_SEAT_IS_BOT, OPEN_SEATS_WITH_PHYSICAL_DICE), more display names than seats, "
    "one longer than 32 characters once normalised, or one for an open seat (DISPLAY_NAMES_TOO_MANY, "
    "DISPLAY_NAME_TOO_LONG, DISPLAY_NAME_FOR_OPEN_SEAT), a webhook URL without a valid host, with "
    "credentials or a fragment, http:// for a host the server's allowlist does not name "
    "(WEBHOOK_URL_INVALID), or one naming an address of the deployment's own networks "
    "(WEBHOOK_HOST_NOT_ALLOWED)",
    "SessionValidateMove": "a move of another game than the session's, which its id names, or one whose "
    "members are all null (MOVE_REQUIRED)",
    "SessionApplyMove": "a move of another game than the session's, or one whose members are all null "
    "(MOVE_REQUIRED), no etag in the body "
    "and none in If-Match (ETAG_REQUIRED), a body etag that If-Match does not name (IF_MATCH_CONFLICT), "
    "a requestId reused for another request (REQUEST_ID_REUSED)",
    "UndoMove": "no etag in the body and none in If-Match (ETAG_REQUIRED), a body etag that If-Match "
    "does not name (IF_MATCH_CONFLICT)",
    "ListSessionMoves": "a pageToken that is not a nextPageToken of this session (INVALID_PAGE_TOKEN)",
    "ListSessions": "a pageToken that is not a nextPageToken of a listing with the same filters "
    "(INVALID_PAGE_TOKEN)",
    "ClaimSeat": "a displayName longer than 32 characters, or empty, once normalised (DISPLAY_NAME_TOO_LONG, "
    "DISPLAY_NAME_REQUIRED), a seat beyond the session's players (SEAT_OUT_OF_RANGE)",
    "ManageSeat": "a displayName longer than 32 characters once normalised (DISPLAY_NAME_TOO_LONG), or "
    "set with another action than SEAT_ACTION_REISSUE_TOKEN (DISPLAY_NAME_UNEXPECTED), a seat beyond "
    "the session's players (SEAT_OUT_OF_RANGE)",
    "WatchSession": "a watch ticket sent with a seat token in the Authorization header: one of them "
    "(WATCH_TICKET_WITH_TOKEN)",
}
"""The 400 refusals of a request this document's schemas allow, by RPC: what JSON Schema cannot
say (a game's invariants, data given as JSON text, a header that must agree with the body, what an
earlier request did). Everything else a schema-valid request gets is an answer, or a refusal that
depends on the session (403, 404, 409, 412). ``.ci/schemathesis_hooks.py`` allows exactly these."""


def _operation(rpc: Rpc, builder: _SchemaBuilder, game: str | None = None) -> dict[str, Any]:
    out_desc = rpc.method.output_type
    in_desc = rpc.method.input_type
    title = f" ({GAMES[game].game.title})" if game is not None else ""
    op: dict[str, Any] = {
        "operationId": rpc.name if game is None else f"{rpc.name}_{game}",
        "summary": rpc.name + title,
        "tags": [rpc.service.name],
        "description": f"{_doc(rpc.method.full_name)} (gRPC {rpc.service.full_name}/{rpc.name}"
        + (f" with game {GAMES[game].game.id!r}" if game is not None else "")
        + "."
        + (
            ""
            if rpc.streaming
            else f" Binary protobuf: {in_desc.full_name} in, {out_desc.full_name} out, with "
            "Content-Type or Accept application/x-protobuf."
        )
        + ")",
        "x-protobuf": {"request": in_desc.full_name, "response": out_desc.full_name},
    }
    params = []
    for name in rpc.path_params:
        if game is None:
            params.append(_path_parameter(name, in_desc.fields_by_name[name], builder))
    for name in rpc.query_params:
        f = in_desc.fields_by_name[name]
        query = {"name": f.json_name, "in": "query", "required": False, "schema": builder.single(f)}
        comment = proto_comments.comments().get(f.full_name)
        if comment:
            query["description"] = comment
        params.append(query)
    if rpc.name in ("CreateSession", "ListSessions", "ClaimSeat"):
        op["security"] = [{}, {API_KEY: []}]
    elif rpc.name == "Rematch":  # a host or seat token, and the API key where keys are configured
        op["security"] = [{SEAT_TOKEN: []}, {SEAT_TOKEN: [], API_KEY: []}]
    elif rpc.service is SESSION_SERVICE:
        op["security"] = [{}, {SEAT_TOKEN: []}]
    else:
        op["security"] = [{}, {API_KEY: []}]
    if rpc.name in IF_MATCH_RPCS:
        params.append(IF_MATCH_PARAMETER)
    if rpc.name in CONDITIONAL_GETS:
        params.append(IF_NONE_MATCH_PARAMETER)
    if rpc.name == "WatchSession":
        params.append(LAST_EVENT_ID_PARAMETER)
    if params:
        op["parameters"] = params
    if rpc.body == "*":
        body = builder.body(in_desc, rpc.path_params, game)
        if rpc.name == "CreateSession":  # the game is in the body: what each game asks, told by it
            schema = builder.schemas[body["$ref"].removeprefix(REF)]
            branches = [_session_of_game(member, builder) for member in GAMES]
            schema.setdefault("dependentSchemas", {})["game"] = {"anyOf": branches}
            schema["description"] += (
                " The game named decides the number of players and the options it takes (as its "
                "NewGame does)."
            )
        op["requestBody"] = {
            # an empty body is the message with every field unset: refused only when one is required
            "required": any(n not in rpc.path_params for n in REQUIRED.get(in_desc.full_name, ())),
            "content": {JSON: {"schema": body}},
        }
    statuses = [400, 404, 409, 413, 415, 500] if rpc.body else [400, 404, 500]
    if game is not None:
        statuses.remove(404)  # the path names a game the service plays
    if rpc.service is SESSION_SERVICE:
        statuses = sorted({*statuses, 403, 409, 503})
    if rpc.name in IDENTIFIED or rpc.service is SERVICE:
        statuses = sorted({*statuses, 401})
    if rpc.name in IDENTIFIED:
        statuses = sorted({*statuses, 429})
    ok: dict[str, Any] = {JSON: {"schema": builder.message(out_desc, game)}}
    if rpc.streaming:
        event = builder.add("WatchSessionEvent", _sse_event(builder.message(out_desc), out_desc.full_name))
        ok = {EVENT_STREAM: {"schema": event}}
    ok_response: dict[str, Any] = {"description": "OK", "content": ok}
    if rpc.service is SESSION_SERVICE and etag_getter(rpc) is not None:
        ok_response["headers"] = {"ETag": ETAG_HEADER}
    if game is not None and rpc.name == "NewGame":
        ok_response["links"] = _state_links(game)
    lobby = rpc.name in ("ListSessions", "ClaimSeat")
    rate_headers = LOBBY_RATE_LIMIT_HEADERS if lobby else RATE_LIMIT_HEADERS
    if rpc.name == "CreateSession":
        ok_response["links"] = _session_links()
    if rpc.name in IDENTIFIED:
        ok_response["headers"] = {**ok_response.get("headers", {}), **rate_headers}
    op["responses"] = {"200": ok_response, **_error_responses(statuses)}
    inexpressible = INEXPRESSIBLE.get(rpc.name)
    if inexpressible:
        op["responses"]["400"]["description"] = (
            "Bad Request: a request the schema refuses, or one it allows but the service refuses for "
            f"what JSON Schema cannot say: {inexpressible}."
        )
    if rpc.name == "DescribeGame":
        op["responses"]["404"]["description"] = "The game is not one the service plays (GAME_NOT_FOUND)."
    if 401 in statuses:
        op["responses"]["401"]["description"] = (
            "An API key is needed (X-Api-Key) and was missing or not valid: reason API_KEY_REQUIRED or "
            "API_KEY_INVALID. "
            + (
                "Only when the service is configured with API keys."
                if rpc.name in IDENTIFIED
                else "Only when the service runs with --api-keys-for-rules."
            )
        )
    if 429 in statuses:
        op["responses"]["429"]["description"] = (
            (
                "A quota: this client's rate of lobby calls, listings and claims (reason "
                "LOBBY_RATE_LIMITED). "
                if lobby
                else "A quota: this client's rate of new sessions (reason SESSION_CREATE_RATE_LIMITED) or "
                "the service's cap on live sessions (SESSION_LIMIT_REACHED). "
            )
            + "Retry-After says when to try again; the problem's metadata has the wait as a number "
            "(retryAfterSeconds)."
        )
        op["responses"]["429"]["headers"] = {
            "Retry-After": {
                "description": "Seconds to wait before trying again.",
                "schema": {"type": "integer", "minimum": 1},
            },
            **rate_headers,
        }
    if rpc.name in CONDITIONAL_GETS:
        op["responses"]["304"] = {
            "description": "Not Modified: If-None-Match names the session's current version"
            + (
                ", or the long poll (waitForChange) ended after 30 s with no change"
                if rpc.name == "GetSession"
                else ""
            )
            + ". No body; the ETag header names the version.",
            "headers": {"ETag": ETAG_HEADER},
        }
    if rpc.name in IF_MATCH_RPCS:
        failed = _error_responses([412])["412"]
        failed["description"] = (
            "If-Match names no entity tag that is the session's current version (reason "
            "SESSION_ETAG_MISMATCH; the current etag is in the problem's metadata and the ETag header)."
        )
        op["responses"]["412"] = {**failed, "headers": {"ETag": ETAG_HEADER}}
    return op


_TAG = r'(?:W/)?"[\x21\x23-\x7e]*"'
IF_MATCH_PATTERN = rf"^[ \t]*(?:\*|[ \t,]*{_TAG}(?:[ \t]*,[ \t,]*{_TAG})*[ \t,]*)[ \t]*$"
"""If-Match as ``http_semantics.parse_if_match`` reads it: ``*`` or a list of entity tags (RFC 9110)."""


def _rate_limit_headers(policy: str, what: str) -> dict[str, Any]:
    """The RateLimit headers of the answers of a call that takes from the quota ``policy`` ("create":
    new sessions; "lobby": listings and claims), each a ``lawspeaker.api.access.RateLimit``."""
    return {
        "RateLimit-Policy": {
            "description": f"This client's quota on {what} (draft-ietf-httpapi-ratelimit-headers, "
            f"a structured field): '\"{policy}\";q=<burst>;w=<seconds the burst takes to refill>'. Sent "
            "when the call took from that quota (it is on unless the service or the API key's allowance "
            "turns it off); docs/quotas.md says how the rate limit maps to q and w.",
            "schema": {"type": "string", "pattern": f'^"{policy}";q=[0-9]+;w=[0-9]+$'},
        },
        "RateLimit": {
            "description": f"What is left of that quota after this call: 'r' {what} allowed at once "
            "now, 't' seconds until all of the burst is allowed again.",
            "schema": {"type": "string", "pattern": f'^"{policy}";r=[0-9]+;t=[0-9]+$'},
        },
    }


RATE_LIMIT_HEADERS = _rate_limit_headers("create", "new sessions")
"""The RateLimit headers of CreateSession's (and Rematch's) answers."""
LOBBY_RATE_LIMIT_HEADERS = _rate_limit_headers("lobby", "lobby calls (listings and claims)")
"""The RateLimit headers of ListSessions' and ClaimSeat's answers."""

ETAG_HEADER: dict[str, Any] = {
    "description": 'The session\'s version as a strong entity tag: its etag quoted, e.g. "7" for '
    'etag 7 ("7-gzip" or "7-br" when the answer is compressed, a representation of its own). Send it '
    "back in If-Match on SessionApplyMove or UndoMove.",
    "schema": {"type": "string", "pattern": '^"[0-9]+(-(gzip|br))?"$'},
}
IF_NONE_MATCH_PARAMETER: dict[str, Any] = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "description": 'The version the caller has, as the ETag header sent it ("7"; W/"7" too, or a list, '
    "or *): answered 304 Not Modified, with no body, while it is the session's current version.",
    "schema": {"type": "string"},
}
LAST_EVENT_ID_PARAMETER: dict[str, Any] = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "description": "The id of the last event received (an EventSource sends it by itself when it "
    "reconnects): the watch resumes after that version, as resumeAfterEtag does (empty: it does not).",
    "schema": {"type": "string", "pattern": "^[0-9]{0,19}$"},
}
IF_MATCH_PARAMETER: dict[str, Any] = {
    "name": "If-Match",
    "in": "header",
    "required": False,
    "description": 'The version the write is made on, as the ETag header sent it ("7"), instead of '
    "or as well as the body's etag (then the body's etag must be one of the entity tags). Several "
    "tags: the write is made on whichever is current; weak tags (W/) never match; * adds nothing "
    "(the body's etag is still needed). A version If-Match does not name answers 412, not 409.",
    "schema": {"type": "string", "pattern": IF_MATCH_PATTERN},
}


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


DEFAULT_SERVERS: tuple[str, ...] = ("http://localhost:8080",)
"""The servers the committed document (``clients/openapi.json``) names: ``lawspeaker serve`` on the
machine it runs on, at its default --http-port. A running service names its --public-url, or the
address the request for the document was sent to."""

HEALTH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The service's liveness.",
    "required": ["status"],
    "properties": {"status": {"type": "string", "enum": ["SERVING"]}},
}
HEALTH_DETAILS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The service's liveness and, when it serves sessions, its session store's health.",
    "required": ["status"],
    "properties": {
        "status": {"type": "string", "enum": ["SERVING"]},
        "sessions": {
            "type": "object",
            "additionalProperties": True,
            "description": "The session store: whether it answers, its live sessions against the cap "
            "(maxSessions, 0: none), the quotas on creating sessions, how long request ids are "
            "remembered, and what an acknowledged move survives. Absent when the service serves no "
            "sessions.",
            "properties": {
                "store": {"type": "string", "description": "Where sessions live: memory or redis."},
                "available": {
                    "type": "boolean",
                    "description": "Whether the store answers (false: every session call is answered "
                    "503 SESSION_STORE_UNAVAILABLE; the stateless RPCs keep working).",
                },
                "writable": {
                    "type": "boolean",
                    "description": "Whether the store takes writes now, by a write probe: false while "
                    "Redis refuses them, e.g. at its maxmemory with the noeviction policy (OOM) or "
                    "read-only, or when it does not answer.",
                },
                "degraded": {
                    "type": "boolean",
                    "description": "True while sessions are not fully served: the store does not answer, "
                    "or answers (sessions can be read) but refuses writes, so creating sessions and "
                    "moves are answered 503 SESSION_STORE_UNAVAILABLE.",
                },
                "error": {
                    "type": "string",
                    "description": "While degraded: the reason session calls are answered with "
                    "(SESSION_STORE_UNAVAILABLE).",
                },
                "writeError": {
                    "type": "string",
                    "description": "While the store answers but refuses writes: Redis's refusal, e.g. "
                    "\"OutOfMemoryError: command not allowed when used memory > 'maxmemory'.\".",
                },
                "memory": {
                    "type": "object",
                    "description": "Redis's memory, when it has a maxmemory (INFO memory).",
                    "properties": {
                        "usedBytes": {"type": "integer"},
                        "maxBytes": {"type": "integer"},
                        "policy": {"type": "string", "description": "maxmemory-policy, e.g. noeviction."},
                    },
                },
                "liveSessions": {"type": "integer", "description": "Sessions live now (all replicas)."},
                "maxSessions": {"type": "integer", "description": "The cap on live sessions (0: none)."},
                "createPerMinute": {"type": "number"},
                "createBurst": {"type": "integer"},
                "apiKeys": {"type": "boolean", "description": "Whether creating a session needs an API key."},
                "ttlSeconds": {"type": "integer", "description": "How long an unused session is kept."},
                "requestIdTtlSeconds": {"type": "integer"},
                "requestIdBytes": {"type": "integer"},
                "durability": {
                    "type": "object",
                    "additionalProperties": True,
                    "description": "What an acknowledged move survives, from the store's own settings.",
                },
            },
        },
    },
}


def _health_operation(operation_id: str, summary: str, schema: str, description: str) -> dict[str, Any]:
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "description": description,
            "tags": ["Health"],
            "security": [],  # health checks never need a key
            "responses": {
                "200": {
                    "description": "The service is serving.",
                    "content": {JSON: {"schema": {"$ref": REF + schema}}},
                }
            },
        }
    }


def _page_operation(
    operation_id: str, name: str, values: list[str], summary: str, what: str
) -> dict[str, Any]:
    """A GET of one HTML page the links of an answer open (``lawspeaker.http.pages``), chosen by the
    path parameter ``name`` (one of ``values``)."""
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "description": what,
            "tags": ["Pages"],
            "security": [],  # the pages are public, like the documents they are made from
            "parameters": [
                {
                    "name": name,
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string", "enum": values},
                },
                {
                    "name": "If-None-Match",
                    "in": "header",
                    "required": False,
                    "description": "The ETag of a copy already held: answered 304 while it is current.",
                    "schema": {"type": "string"},
                },
            ],
            "responses": {
                "200": {
                    "description": "The page (rendered once; it may be cached for five minutes).",
                    "headers": {
                        "ETag": {"description": "The page's entity tag.", "schema": {"type": "string"}},
                        "Cache-Control": {"schema": {"type": "string"}},
                    },
                    "content": {"text/html": {"schema": {"type": "string"}}},
                },
                "304": {"description": "The copy whose ETag If-None-Match names is current."},
                "404": {
                    "description": f"No such {name} (the problem names it).",
                    "content": {PROBLEM_JSON: {"schema": {"$ref": REF + "Problem"}}},
                },
            },
        }
    }


def _page_operations() -> dict[str, dict[str, Any]]:
    """The pages a refused move's ``rule`` and a problem's ``type`` link (``lawspeaker.api.links``)."""
    from lawspeaker.api import catalogue, links

    return {
        f"{links.RULES_PATH}/{{game}}": _page_operation(
            "RulesPage",
            "game",
            GAME_IDS,
            "A game's rules, as HTML",
            "The game's rules document (docs/rules in the repository) as the engine enforces them, "
            "with the anchors a refused move's rule links (`#cast-first`). GET /rules lists the games.",
        ),
        f"{links.PROBLEMS_PATH}/{{problem}}": _page_operation(
            "ProblemPage",
            "problem",
            sorted(links.slug(r) for r in catalogue.all_reasons()),
            "A problem type, as HTML",
            "What a problem's type means (a problem document's `type` links it): its reason, kind, "
            "HTTP status, gRPC and Connect codes, and for a rule of a game the rulebook sentence and "
            "a link to the rule. The slug is the reason in lower case with hyphens (CAST_FIRST: "
            "cast-first). GET /problems lists them all.",
        ),
    }


INFO_DESCRIPTION = (
    "Rules as a service for Viking-era board games. Stateless: every request carries the game state. "
    f"Bodies are JSON: the proto3 JSON mapping of the request and response messages of "
    f"{SERVICE.full_name} and {SESSION_SERVICE.full_name} (proto/lawspeaker/v1), spelled as this "
    "document's schemas say: lowerCamel field names, enum values by name, 64-bit integers as decimal "
    "strings. A field may be null in a request, which stands for its default; answers leave a field "
    "at its default out and never write null. Every operation also speaks binary protobuf: send "
    "Content-Type application/x-protobuf (or application/protobuf) with the request message its "
    "x-protobuf names, and Accept the same for the response message. Server-held game sessions "
    f"({SESSION_SERVICE.full_name}, under /v1/sessions) keep the state and its RNG on the server; a "
    "seat acts with its token in the Authorization header. Every error is an RFC 9457 problem "
    "(application/problem+json) whose reason says what went wrong. A method a path does not list "
    "answers 405 with an Allow header naming the methods it does; OPTIONS on any path answers 204 "
    "with that Allow."
)


@functools.cache
def _openapi() -> dict[str, Any]:
    """The document without its servers (built once: a few hundred kilobytes of schemas)."""
    builder = _SchemaBuilder()
    paths: dict[str, dict[str, Any]] = {}
    for rpc in (*RPCS, *SESSION_RPCS):
        if not _per_game(rpc):
            paths.setdefault(rpc.template, {})[rpc.http_method.lower()] = _operation(rpc, builder)
            continue
        for member, entry in GAMES.items():
            path = rpc.template.replace("{game}", entry.game.id)
            paths.setdefault(path, {})[rpc.http_method.lower()] = _operation(rpc, builder, member)
    paths["/healthz"] = _health_operation(
        "Healthz", "Liveness and readiness", "Health", "Whether the service is serving (200) or not."
    )
    paths["/healthz/details"] = _health_operation(
        "HealthDetails",
        "Health details for operators",
        "HealthDetails",
        "The session store: whether it answers, whether it takes writes (degraded while it answers but "
        "refuses them, as Redis does when full with maxmemory-policy noeviction), its live sessions "
        "against the cap (maxSessions, 0: none), the quotas on creating sessions, how long request ids "
        "are remembered, and what an acknowledged move survives (read from the store's own settings).",
    )
    paths.update(_page_operations())
    builder.add("Problem", _problem_schema())
    builder.add("Reason", _reason_schema())
    builder.add("FieldViolation", FIELD_VIOLATION_SCHEMA)
    builder.add("Health", HEALTH_SCHEMA)
    builder.add("HealthDetails", HEALTH_DETAILS_SCHEMA)
    doc = {
        "openapi": "3.1.0",
        "info": {
            "title": "Lawspeaker",
            "version": API_VERSION,
            "summary": "Rules as a service for five Viking-era board games.",
            "description": INFO_DESCRIPTION,
            "license": {"name": "Proprietary", "identifier": "LicenseRef-Proprietary"},
            "contact": {"name": "Lawspeaker", "url": "https://lawspeaker.dev/"},
        },
        "tags": [
            {
                "name": SERVICE.name,
                "description": "The rules, stateless: a game's legal moves, whether a move is legal "
                "and why not, and the state after it. One set of operations per game.",
            },
            {
                "name": SESSION_SERVICE.name,
                "description": "Games the server holds: the state and its dice stay on the server; "
                "each seat acts with its own token.",
            },
            {"name": "Health", "description": "Liveness for load balancers and operators."},
            {
                "name": "Pages",
                "description": "The HTML pages the links of an answer open: a refused move's rule "
                "and a problem's type.",
            },
        ],
        "paths": paths,
        "components": {
            "schemas": builder.schemas,
            "securitySchemes": {
                API_KEY: {
                    "type": "apiKey",
                    "in": "header",
                    "name": "X-Api-Key",
                    "description": "An API key, needed to create sessions when the service is configured "
                    "with keys (and for the stateless RPCs with --api-keys-for-rules).",
                },
                SEAT_TOKEN: {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The secret token of one seat, as CreateSession or ClaimSeat returned "
                    "it, or the host token (CreateSession's hostToken) for the host's calls: DeleteSession, "
                    "ManageSeat, Rematch. Without one a session is seen as a spectator sees it.",
                },
            },
        },
    }
    result: dict[str, Any] = _sorted(doc)
    return result


def _server_description(url: str) -> str:
    if url in DEFAULT_SERVERS:
        return "lawspeaker serve on this machine, at its default --http-port"
    return "This service"


def openapi_document(servers: Sequence[str] = DEFAULT_SERVERS) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the REST API, built from the protobuf descriptors, naming
    ``servers`` (base URLs) as where the API is served."""
    copy: dict[str, Any] = msgspec.json.decode(openapi_bytes(tuple(servers)))
    return copy


@functools.lru_cache(maxsize=8)
def openapi_bytes(servers: tuple[str, ...] = DEFAULT_SERVERS) -> bytes:
    """The document as JSON naming ``servers``; the last few sets asked for are kept (a service
    names its --public-url, or the address a request came to, which a Host header chooses)."""
    named = [{"description": _server_description(url), "url": url} for url in servers]
    return msgspec.json.encode(_sorted({**_openapi(), "servers": named}))
