"""Every reason the service can return, defined once: the general ones here, each game's rule reasons in
its ``reasons`` table (``games/<game>/reasons.py``).

An error carries two codes, each with one meaning:

- ``code`` (the REST problem's ``code``, the gRPC status, the Connect error's ``code``): the gRPC status
  code name, the class of failure every gRPC and Connect client already switches on
  (``INVALID_ARGUMENT``, ``FAILED_PRECONDITION``, ...);
- ``reason`` (the problem's ``reason``, ``google.rpc.ErrorInfo.reason``): what exactly went wrong, the
  stable code a client switches on to react (``STATE_REQUIRED``, ``LANDS_ON_OWN_SHIP``, ...).

Between the two sits the error *kind* (:class:`~lawspeaker.games.core.ErrorCode`), which maps to the
status codes once (:mod:`lawspeaker.api.errors`) and travels as ``ErrorInfo.metadata["kind"]``: it tells
apart refusals that share a status (a malformed request and an invalid game state are both
``INVALID_ARGUMENT``; an illegal move, a move out of turn and a move after the end are all
``FAILED_PRECONDITION``).

``docs/errors.md`` is generated from this module (``lawspeaker errors-doc``; CI fails when it is stale),
and the OpenAPI document's ``Problem.reason`` is the enum of :func:`all_reasons`.
``tests/transport/test_reason_catalogue.py`` provokes every reason on each transport it is listed for,
and ``tests/api/test_catalogue.py`` checks that every reason the source can raise is listed here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from lawspeaker.games.core import ErrorCode

REST = "rest"
GRPC = "grpc"
CONNECT = "connect"
ALL = frozenset({REST, GRPC, CONNECT})
JSON_BODIES = frozenset({REST, CONNECT})  # only a JSON body can be wrong in these ways
ONLY_REST = frozenset({REST})


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason the service refuses a request for.

    ``kind`` is the error kind (its gRPC code and HTTP status follow from it, ``lawspeaker.api.errors``),
    or None for a refusal of the HTTP edge itself, whose status is ``http_status``. ``transports`` are
    where the reason can occur (a JSON syntax error cannot happen over gRPC, a 404 route only over
    REST).
    """

    reason: str
    kind: ErrorCode | None
    meaning: str
    transports: frozenset[str] = ALL
    http_status: int | None = None
    group: str = ""


def _group(name: str, *reasons: Reason) -> tuple[Reason, ...]:
    return tuple(Reason(r.reason, r.kind, r.meaning, r.transports, r.http_status, name) for r in reasons)


M = ErrorCode.MALFORMED

GENERAL: tuple[Reason, ...] = (
    *_group(
        "Reading the request",
        Reason(
            "MALFORMED_JSON",
            M,
            "The body is not JSON, or not a JSON object (a request message is always an object).",
            JSON_BODIES,
        ),
        Reason(
            "JSON_TOO_DEEP",
            M,
            "The JSON body nests objects and arrays more than 64 levels deep; it is refused before "
            "being decoded.",
            JSON_BODIES,
        ),
        Reason(
            "MALFORMED_PROTOBUF",
            M,
            "The bytes are not the binary protobuf of the method's request message.",
        ),
        Reason(
            "UNKNOWN_FIELD",
            M,
            "The JSON body names a field the request message does not have (the field violation names it).",
            JSON_BODIES,
        ),
        Reason(
            "INVALID_FIELD_VALUE",
            M,
            "A JSON value has the wrong kind or is out of range for its field (a string where a "
            "number goes, a number above the field's maximum), or a query parameter is not an "
            "integer.",
            JSON_BODIES,
        ),
        Reason(
            "INVALID_ENUM",
            M,
            "An enum field holds a number that is none of its values.",
        ),
        Reason("GAME_REQUIRED", M, "The request names no game."),
        Reason(
            "GAME_MISMATCH",
            M,
            "The body names another game than the path; leave the body's `game` unset or the same.",
            ONLY_REST,
        ),
        Reason(
            "SESSION_MISMATCH",
            M,
            "The body names another session than the path; leave the body's `session` unset or the same.",
            ONLY_REST,
        ),
    ),
    *_group(
        "Games and states",
        Reason(
            "GAME_NOT_FOUND", ErrorCode.NOT_FOUND, "No game with this id is served (ListGames lists them)."
        ),
        Reason(
            "PLAYER_COUNT",
            M,
            "NewGame (or CreateSession) asks for a number of players the game is not played by; "
            "DescribeGame gives its minimum and maximum. `players` is required.",
        ),
        Reason("INVALID_OPTIONS", M, "A game option has a value the game does not accept."),
        Reason(
            "OPTIONS_FOR_OTHER_GAME",
            M,
            "The options are those of another game than the one named.",
        ),
        Reason(
            "INVALID_BOARD",
            M,
            "A Pax Penning board given as an option (JSON text) is not a valid board.",
        ),
        Reason(
            "INVALID_COMPONENTS",
            M,
            "Pax Viking Junior components given as an option (JSON text) are not a valid map and card set.",
        ),
        Reason(
            "INVALID_DATA",
            M,
            "Birka game data given as an option (JSON text) is not a valid board and card set.",
        ),
        Reason(
            "STATE_REQUIRED",
            M,
            "The request carries no game state, or the state of another game.",
        ),
        Reason(
            "MOVE_REQUIRED",
            M,
            "The request carries no move, a move of another game, or a game move with no action set.",
        ),
        Reason(
            "RULES_VERSION_MISMATCH",
            ErrorCode.INVALID_STATE,
            "The state was made under another rules version of the game (ListGames gives the current "
            "one); start a new game.",
        ),
        Reason(
            "INVALID_STATE",
            ErrorCode.INVALID_STATE,
            "The state breaks the game's invariants (a position no play can reach); every broken "
            "invariant is a field violation.",
        ),
    ),
    *_group(
        "Moves",
        Reason(
            "GAME_OVER",
            ErrorCode.GAME_OVER,
            "The game has ended: no move can be made (every game).",
        ),
        Reason(
            "NOT_YOUR_TURN",
            ErrorCode.NOT_YOUR_TURN,
            "In a session: the seat whose token made the call is not the one to act now.",
        ),
    ),
    *_group(
        "Sessions",
        Reason("SESSION_REQUIRED", M, "The request names no session."),
        Reason(
            "SESSION_NOT_FOUND",
            ErrorCode.NOT_FOUND,
            "No such session: it never existed, was deleted, expired after being idle, or was made by "
            "an older rules version.",
        ),
        Reason(
            "SEAT_TOKEN_MALFORMED",
            ErrorCode.PERMISSION_DENIED,
            "The Authorization header (gRPC: authorization metadata) is not `Bearer <seat token>`.",
        ),
        Reason(
            "SEAT_TOKEN_REQUIRED",
            ErrorCode.PERMISSION_DENIED,
            "The call acts for a seat (a move, an undo) and carries no seat token.",
        ),
        Reason(
            "SEAT_TOKEN_INVALID",
            ErrorCode.PERMISSION_DENIED,
            "The seat token is not one of this session's.",
        ),
        Reason(
            "SEAT_TOKEN_IN_URL",
            M,
            "A seat token was sent in the URL (`?token=`), where logs and proxies keep it: send it as "
            "`Authorization: Bearer <token>`, or, for a browser's EventSource, make a watch ticket "
            "(`POST /v1/sessions/{session}:watchTicket`) and watch with `?ticket=`.",
            ONLY_REST,
        ),
        Reason(
            "WATCH_TICKET_INVALID",
            ErrorCode.PERMISSION_DENIED,
            "The watch ticket is unknown, was used already (a ticket works once) or has expired (after "
            "30 s): make a new one with CreateWatchTicket.",
        ),
        Reason(
            "WATCH_TICKET_WITH_TOKEN",
            M,
            "A watch names both a ticket and a seat token: send one of them.",
        ),
        Reason(
            "ETAG_MALFORMED",
            M,
            "A watch's resume_after_etag (REST: Last-Event-ID) or GetSession's wait_for_change is not a "
            "session etag (the digits of a version).",
        ),
        Reason(
            "ETAG_REQUIRED",
            M,
            "A move or undo names no etag: send the etag of the version it is made on.",
        ),
        Reason(
            "SESSION_ETAG_MISMATCH",
            ErrorCode.STALE_STATE,
            "The etag is not the session's current version: someone moved since. Fetch the session "
            "(its etag is in the error's metadata) and decide again. Under If-Match REST answers 412.",
        ),
        Reason(
            "REQUEST_ID_TOO_LONG",
            M,
            "The request id is longer than the service accepts.",
        ),
        Reason(
            "REQUEST_ID_REUSED",
            M,
            "The request id was already used for a different request in this session.",
        ),
        Reason(
            "PHYSICAL_DICE_UNSUPPORTED",
            M,
            "The session asks for physical dice in a game whose chance steps have no outcomes to "
            "choose from.",
        ),
        Reason(
            "PHYSICAL_DICE_OUTCOME_REQUIRED",
            ErrorCode.ILLEGAL_MOVE,
            "With physical dice, a chance step must be played with the outcome the table rolled.",
        ),
        Reason(
            "PHYSICAL_DICE_NO_OUTCOME",
            ErrorCode.ILLEGAL_MOVE,
            "With physical dice, the move names no outcome of the chance step.",
        ),
        Reason(
            "EXPLICIT_OUTCOME_NOT_ALLOWED",
            ErrorCode.ILLEGAL_MOVE,
            "The server draws chance steps in this session: a client cannot choose their outcome.",
        ),
        Reason("NOTHING_TO_UNDO", ErrorCode.ILLEGAL_MOVE, "No move has been made in this session."),
        Reason(
            "UNDO_NOT_YOURS",
            ErrorCode.ILLEGAL_MOVE,
            "Only the seat that made the last move may undo it.",
        ),
        Reason(
            "UNDO_AFTER_CHANCE",
            ErrorCode.ILLEGAL_MOVE,
            "The last move drew chance (or revealed hidden information): it cannot be undone.",
        ),
        Reason(
            "UNDO_AFTER_SEAT_EVENT",
            ErrorCode.ILLEGAL_MOVE,
            "The last entry of the move log is a seat's resignation or forfeit, not a move: it cannot be "
            "undone.",
        ),
        Reason(
            "CLOCK_INVALID",
            M,
            "CreateSession's `clock` cannot work: no per-move limit and no bank, a value past a year, an "
            "increment without a bank, or an unknown timeout action (the field is named).",
        ),
        Reason(
            "RESIGN_ACTION_INVALID",
            M,
            "ResignSeat's `action` is not RESIGN_ACTION_FORFEIT or RESIGN_ACTION_BOT.",
        ),
        Reason(
            "WEBHOOK_URL_INVALID",
            M,
            "CreateSession's `webhook.url` cannot be an endpoint: not https:// (plain http:// only for a "
            "host --webhook-allow names), no host, credentials or a fragment in it, or a host that does "
            "not resolve.",
        ),
        Reason(
            "WEBHOOK_HOST_NOT_ALLOWED",
            M,
            "CreateSession's `webhook.url` names, or resolves to, an address the service does not call: "
            "loopback, private, link-local, multicast, reserved or otherwise not public (an IPv4 address "
            "inside IPv6 included), unless --webhook-allow names the host or its network.",
        ),
        Reason(
            "SESSION_OVER",
            ErrorCode.ILLEGAL_MOVE,
            "The session has ended (a resignation, a timeout, or its rules): it takes no more moves, "
            "undos or resignations. Its `result` says how it ended.",
        ),
        Reason(
            "SEAT_RESIGNED",
            ErrorCode.ILLEGAL_MOVE,
            "The seat's person resigned, forfeited on time or handed the seat to a bot: its token still "
            "watches the game, but no longer moves for the seat.",
        ),
        Reason("INVALID_PAGE_SIZE", M, "`pageSize` is negative."),
        Reason(
            "INVALID_PAGE_TOKEN",
            M,
            "`pageToken` is not a `nextPageToken` this session's move list gave.",
        ),
        Reason(
            "SESSION_CREATE_RATE_LIMITED",
            ErrorCode.RESOURCE_EXHAUSTED,
            "This client creates sessions faster than the service allows; Retry-After (gRPC: RetryInfo) "
            "says when to try again.",
        ),
        Reason(
            "SESSION_LIMIT_REACHED",
            ErrorCode.RESOURCE_EXHAUSTED,
            "The service holds as many live sessions as it is configured for; try again later.",
        ),
        Reason(
            "SESSION_STORE_UNAVAILABLE",
            ErrorCode.UNAVAILABLE,
            "The session store (Redis) does not answer, not in time, or refuses for now (full, a "
            "primary demoted or failing over, a cluster reconfiguring; an unexpected reply is logged). "
            "A read changed nothing; a write whose answer was lost may have been made: retry it with the "
            "same request id and etag, which makes a move at most once.",
        ),
        Reason(
            "SESSION_WRITE_NOT_REPLICATED",
            ErrorCode.UNAVAILABLE,
            "The move was written but not confirmed by the configured number of Redis replicas in "
            "time (--redis-wait-replicas); it may or may not survive a failover. Retry with the same "
            "request id.",
        ),
        Reason(
            "WATCH_LIMIT",
            ErrorCode.UNAVAILABLE,
            "The replica holds as many watch streams as it allows; watch again later or poll.",
        ),
        Reason(
            "WATCH_STREAM_BEHIND",
            ErrorCode.UNAVAILABLE,
            "The watcher read too slowly and the stream was ended rather than skip a version; watch "
            "again from the session's current version.",
        ),
    ),
    *_group(
        "Host, lobby and rematch",
        Reason(
            "HOST_TOKEN_REQUIRED",
            ErrorCode.PERMISSION_DENIED,
            "The call is the host's (DeleteSession of a session with a host, ManageSeat) and carries no "
            "token: send the host token CreateSession returned.",
        ),
        Reason(
            "HOST_TOKEN_INVALID",
            ErrorCode.PERMISSION_DENIED,
            "The call is the host's and the token sent is not the session's host token (a seat's token "
            "does not delete a session with a host, nor manage its seats).",
        ),
        Reason(
            "HOST_TOKEN_NOT_A_SEAT",
            ErrorCode.PERMISSION_DENIED,
            "The host token was sent to act for a seat (a move, an undo, a resignation): the host "
            "looks on as a spectator; a seat acts with its own token.",
        ),
        Reason(
            "WAITING_FOR_PLAYERS",
            ErrorCode.ILLEGAL_MOVE,
            "A seat has no player yet (open in the lobby, or reserved by the host): nothing is played "
            "until every seat has one.",
        ),
        Reason(
            "SEAT_NOT_OPEN",
            ErrorCode.ILLEGAL_MOVE,
            "ClaimSeat names a seat that is not open (a player, a bot or the host has it), or no seat is "
            "open any more: of two claims of the last open seat, this one came second. ManageSeat's "
            "SEAT_ACTION_CLOSE names a seat that is not open.",
        ),
        Reason(
            "SEAT_OUT",
            ErrorCode.ILLEGAL_MOVE,
            "ManageSeat names a seat that resigned or forfeited: it is out of the game for good.",
        ),
        Reason(
            "SEAT_ACTION_INVALID",
            M,
            "ManageSeat's `action` is unset or unknown: SEAT_ACTION_REISSUE_TOKEN, SEAT_ACTION_BOT, "
            "SEAT_ACTION_OPEN or SEAT_ACTION_CLOSE.",
        ),
        Reason(
            "DISPLAY_NAME_REQUIRED",
            M,
            "ClaimSeat's `displayName` is empty once normalised (only spaces, controls or invisible "
            "characters).",
        ),
        Reason(
            "DISPLAY_NAME_TOO_LONG",
            M,
            "A display name is longer than 32 characters once normalised: it is refused, never cut.",
        ),
        Reason("DISPLAY_NAMES_TOO_MANY", M, "CreateSession's `displayNames` has more names than seats."),
        Reason(
            "DISPLAY_NAME_FOR_OPEN_SEAT",
            M,
            "CreateSession names an open seat's player: whoever claims the seat gives its name.",
        ),
        Reason(
            "DISPLAY_NAME_UNEXPECTED",
            M,
            "ManageSeat's `displayName` is set with an action other than SEAT_ACTION_REISSUE_TOKEN.",
        ),
        Reason("OPEN_SEAT_IS_BOT", M, "CreateSession's `openSeats` names a seat a bot plays."),
        Reason("OPEN_SEAT_DUPLICATE", M, "CreateSession's `openSeats` names a seat twice."),
        Reason(
            "OPEN_SEATS_WITH_PHYSICAL_DICE",
            M,
            "CreateSession asks for open seats and physical dice at once: players who meet in the "
            "lobby share no dice.",
        ),
        Reason(
            "PLAYERS_OUT_OF_RANGE",
            M,
            "ListSessions' `players` is negative or past 99 (0 lists every number of players).",
        ),
        Reason(
            "LOBBY_RATE_LIMITED",
            ErrorCode.RESOURCE_EXHAUSTED,
            "Too many lobby calls (ListSessions, ClaimSeat) from this client (--lobby-rate, "
            "--lobby-burst): Retry-After says when to try again.",
        ),
        Reason(
            "GAME_NOT_OVER",
            ErrorCode.ILLEGAL_MOVE,
            "Rematch asks for a rematch of a game that has not ended.",
        ),
        Reason(
            "REMATCH_TOKEN_REQUIRED",
            ErrorCode.UNAUTHENTICATED,
            "Rematch carries no token: the host asks with the host token, each player with their "
            "seat's token.",
        ),
    ),
    *_group(
        "Bots",
        Reason(
            "BOT_LEVEL_REQUIRED",
            M,
            "SuggestMove, or a bot seat of CreateSession, names no level (or a level number this "
            "service does not know): BOT_LEVEL_RANDOM, BOT_LEVEL_GREEDY or BOT_LEVEL_SEARCH.",
        ),
        Reason(
            "SEAT_OUT_OF_RANGE",
            M,
            "SuggestMove's seat, or a bot seat of CreateSession, is not a seat of the game (seats "
            "count from 0).",
        ),
        Reason("BOT_SEAT_DUPLICATE", M, "CreateSession names one seat as a bot twice."),
        Reason(
            "BOTS_WITH_PHYSICAL_DICE",
            M,
            "CreateSession asks for bot seats and physical dice at once: a bot cannot throw physical dice.",
        ),
        Reason(
            "BOTS_BUSY",
            ErrorCode.RESOURCE_EXHAUSTED,
            "Every bot worker of the replica is thinking and its queue is full (--bot-queue): "
            "Retry-After (gRPC: RetryInfo) says when to try again. A session's bot seats wait "
            "instead of being refused.",
        ),
        Reason(
            "BOT_FAILED",
            ErrorCode.UNAVAILABLE,
            "The bot's worker process stopped while it was thinking (it was killed, or ran out of "
            "memory); a new one starts for the next call, so try again.",
        ),
    ),
    *_group(
        "Access",
        Reason(
            "API_KEY_REQUIRED",
            ErrorCode.UNAUTHENTICATED,
            "The service is configured with API keys and the call (CreateSession; every rules call "
            "with --api-keys-for-rules) carries none in X-Api-Key.",
        ),
        Reason("API_KEY_INVALID", ErrorCode.UNAUTHENTICATED, "The X-Api-Key is not one of the service's."),
    ),
    *_group(
        "HTTP",
        Reason(
            "INVALID_IF_MATCH",
            M,
            "The If-Match header is not a list of entity tags (or *).",
            ONLY_REST,
        ),
        Reason(
            "IF_MATCH_CONFLICT",
            M,
            "If-Match and the body's etag name different versions.",
            ONLY_REST,
        ),
        Reason(
            "UNSUPPORTED_MEDIA_TYPE",
            None,
            "The Content-Type is neither JSON nor binary protobuf.",
            ONLY_REST,
            415,
        ),
        Reason(
            "BODY_TOO_LARGE",
            None,
            "The body is larger than the service accepts (1 MiB).",
            ONLY_REST,
            413,
        ),
        Reason("ROUTE_NOT_FOUND", None, "No route matches the path (or its :verb).", ONLY_REST, 404),
        Reason(
            "METHOD_NOT_ALLOWED",
            None,
            "The path exists but not for this HTTP method; the Allow header lists those it takes.",
            ONLY_REST,
            405,
        ),
        Reason(
            "BAD_REQUEST",
            None,
            "Another request the HTTP server cannot read (a malformed request line or header).",
            ONLY_REST,
            400,
        ),
        Reason(
            "CLIENT_DISCONNECTED",
            None,
            "The client went away before sending the whole body (logged; nobody is left to read it).",
            ONLY_REST,
            400,
        ),
        Reason("INTERNAL", None, "A failure of the service itself; nothing was changed.", ONLY_REST, 500),
    ),
)

GENERAL_BY_REASON = {r.reason: r for r in GENERAL}
if len(GENERAL_BY_REASON) != len(GENERAL):  # pragma: no cover - a programming error
    raise ValueError("a general reason is listed twice")


def game_reasons() -> Iterator[tuple[str, str]]:
    """Every (game id, rule reason) of the registered games."""
    from lawspeaker.wire.registry import REGISTRY

    for game_id, entry in sorted(REGISTRY.items()):
        for reason in sorted(entry.game.reasons):
            yield game_id, reason


def all_reasons() -> list[str]:
    """Every reason code the service can return, general and per game, sorted and unique."""
    return sorted({*GENERAL_BY_REASON, *(r for _, r in game_reasons())})
