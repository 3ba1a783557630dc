"""Schemathesis hooks for the second run of ``.ci/schemathesis.sh``: the few answers to a
schema-valid request that may be a refusal, and seat tokens for the sessions the run creates.

The first run takes no hooks: every check but ``positive_data_acceptance`` passes on the document
as it is (a request it forbids is refused; every answer is one it describes). This run checks
``positive_data_acceptance``, which fails a schema-valid request answered 400 or 422: the
``filter_failure`` hook below drops such a failure only when it is one of these, each told apart
by the problem's ``reason`` and the field it names, never by status alone:

- refusals JSON Schema cannot express (``INEXPRESSIBLE``): a game's invariants over a whole state,
  game data given as JSON text, a header that must agree with the body, a session's game (named
  by the path) that the move in the body must be of, what an earlier request did;
- a "positive" case of which schemathesis made a part negative (it does so when it cannot build a
  valid body for a boundary value elsewhere): the request is not schema-valid.

``tests/transport/test_openapi_exact.py`` checks these rules on example problems.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import schemathesis
from schemathesis.openapi.checks import RejectedPositiveData

STATE_RPCS = ("LegalMoves", "ValidateMove", "ApplyMove")

INEXPRESSIBLE: dict[str, dict[str, str]] = {
    # A state must be a position the game can reach: ship numbers unique per fleet, the phase one a
    # game is ever in, card counts that add up... The game's check_state says it; JSON Schema can
    # only give each field its type and range. Only for fields inside the game's own state message
    # (state.<game>.*): the state's rulesVersion, rng and game member are in the schema.
    **{
        rpc: {
            "INVALID_STATE": "state.{game}.",
            "INVALID_ENUM": "state.{game}.",  # a zero enum value the state cannot be in (phase unset)
            # the state's options hold their data files as JSON text (see NewGame)
            "INVALID_DATA": "state.{game}.",
            "INVALID_BOARD": "state.{game}.",
            "INVALID_COMPONENTS": "state.{game}.",
        }
        for rpc in STATE_RPCS
    },
    "SuggestMove": {
        "INVALID_STATE": "state.{game}.",
        "INVALID_ENUM": "state.{game}.",
        "INVALID_DATA": "state.{game}.",
        "INVALID_BOARD": "state.{game}.",
        "INVALID_COMPONENTS": "state.{game}.",
        "SEAT_OUT_OF_RANGE": "seat",  # below the number of players the state holds
    },
    # Birka's data, Pax Penning's board and Pax Viking Junior's components are JSON text that must
    # validate as the game's data files (a JSON document inside a string: contentSchema is only an
    # annotation in JSON Schema 2020-12, and the validation goes beyond a schema: a connected map,
    # known ids).
    "NewGame": {
        "INVALID_DATA": "options.",
        "INVALID_BOARD": "options.",
        "INVALID_COMPONENTS": "options.",
    },
    "CreateSession": {
        "INVALID_DATA": "options.",
        "INVALID_BOARD": "options.",
        "INVALID_COMPONENTS": "options.",
        # a bot seat must be below the players, named once, and not with physical dice: relations
        # between fields JSON Schema does not draw
        "SEAT_OUT_OF_RANGE": "bots|openSeats",
        "BOT_SEAT_DUPLICATE": "bots",
        "BOTS_WITH_PHYSICAL_DICE": "bots",
        # open seats likewise (below the players, once, not a bot's, not with physical dice), and
        # display names: one per seat at most, none for an open seat, 32 characters once normalised
        # (NFC, controls dropped, spaces made one: no pattern says it)
        "OPEN_SEAT_DUPLICATE": "openSeats",
        "OPEN_SEAT_IS_BOT": "openSeats",
        "OPEN_SEATS_WITH_PHYSICAL_DICE": "openSeats",
        "DISPLAY_NAMES_TOO_MANY": "displayNames",
        "DISPLAY_NAME_TOO_LONG": "displayNames",
        "DISPLAY_NAME_FOR_OPEN_SEAT": "displayNames",
        # a webhook URL the document allows (http(s)://, not too long) the server may still refuse:
        # no valid host, credentials, a fragment, http:// for a host the allowlist does not name, an
        # address of the deployment's own networks (which only the server's configuration knows)
        "WEBHOOK_URL_INVALID": "webhook.url",
        "WEBHOOK_HOST_NOT_ALLOWED": "webhook.url",
    },
    # A move whose actions are all null sets none: "at least one" is said with minProperties, which
    # counts nulls (a generator turns the exact keywords into wrapper types). And the session's game
    # is in its id, in the path; JSON Schema cannot make the body's move of the same game (the
    # stateless RPCs can: one path per game). Checked below (_move_required).
    "SessionValidateMove": {"MOVE_REQUIRED": "move."},
    "SessionApplyMove": {
        "MOVE_REQUIRED": "move.",
        # the version may come in the body's etag or in If-Match: a header and the body together
        "ETAG_REQUIRED": "etag",
        "IF_MATCH_CONFLICT": "etag",
        # the same requestId with another request: what an earlier request did
        "REQUEST_ID_REUSED": "requestId",
    },
    "UndoMove": {"ETAG_REQUIRED": "etag", "IF_MATCH_CONFLICT": "etag"},
    # a pageToken is opaque: only the previous page of this session's list makes a valid one
    "ListSessionMoves": {"INVALID_PAGE_TOKEN": "pageToken"},
    "ListSessions": {"INVALID_PAGE_TOKEN": "pageToken"},
    # a display name is normalised before it is measured; a seat must be below the session's players
    "ClaimSeat": {
        "DISPLAY_NAME_TOO_LONG": "displayName",
        "DISPLAY_NAME_REQUIRED": "displayName",
        "SEAT_OUT_OF_RANGE": "seat",
    },
    "ManageSeat": {
        "DISPLAY_NAME_TOO_LONG": "displayName",
        "DISPLAY_NAME_UNEXPECTED": "displayName",
        "SEAT_OUT_OF_RANGE": "seat",
    },
    # a ticket stands for a seat token: the two together (a header and a query parameter) are refused
    "WatchSession": {"WATCH_TICKET_WITH_TOKEN": "ticket"},
}
"""By RPC, the 400 reasons a schema-valid JSON request may get, each with the field path its
violations must start with (``{game}``: the game's member, ``paxPenning``; ``a|b``: either)."""
for _rpc in ("ValidateMove", "ApplyMove"):  # a move whose actions are all null (see above)
    INEXPRESSIBLE[_rpc]["MOVE_REQUIRED"] = "move.{game}"

PRECONDITIONS = {"SessionApplyMove", "UndoMove"}
"""RPCs whose 412 (If-Match names another version, SESSION_ETAG_MISMATCH) is allowed: like a stale
body etag's 409, it depends on the session's current version, not on the request's shape."""


def camel(name: str) -> str:
    """A proto field name as proto3 JSON spells it: ``pax_penning`` -> ``paxPenning``."""
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def inexpressible(
    operation_id: str, problem: Mapping[str, Any], body: Any, session: str | None = None
) -> str | None:
    """Why a 400 ``problem`` to a schema-valid JSON request of ``operation_id`` is one JSON Schema
    cannot express, or None when the document should have refused the request itself."""
    rpc, _, game = operation_id.partition("_")
    expected = INEXPRESSIBLE.get(rpc, {}).get(str(problem.get("reason")))
    if expected is None:
        return None
    prefixes = expected.format(game=camel(game)).split("|")
    fields = [str(v.get("field", "")) for v in problem.get("fieldViolations") or ()]
    if not fields or not all(any(f == p.rstrip(".") or f.startswith(p) for p in prefixes) for f in fields):
        return None
    if problem.get("reason") == "MOVE_REQUIRED" and not _move_required(body, game, session):
        return None
    return f"{rpc} {problem.get('reason')} at {', '.join(fields)}"


def _all_null(value: Any) -> bool:
    """A JSON object whose members are all null: it sets none of them (null is unset), though the
    document's ``minProperties`` counts them (the generator-friendly way it says "at least one")."""
    return isinstance(value, Mapping) and bool(value) and all(v is None for v in value.values())


def _move_required(body: Any, game: str, session: str | None) -> bool:
    """Whether a MOVE_REQUIRED refusal is one the document allows a request for: a move whose
    members are all null (of a stateless operation's game, or a session's), or, on a session, a
    move of another game than the session's (its id names the game, which no schema can see)."""
    moves = body.get("move") if isinstance(body, Mapping) else None
    if not isinstance(moves, Mapping):
        return False
    of_game = camel(game) if game else camel((session or "").partition(".")[0])
    mine = moves.get(of_game)
    if mine is not None:
        return _all_null(mine)
    return session is not None or _all_null(moves)


def _json(response: Any) -> Any:
    try:
        return json.loads(response.content)
    except ValueError:
        return None


def allowance(failure: Any, case: Any, response: Any) -> str | None:
    """Which of the module docstring's allowances ``failure`` is, in words; None for a failure."""
    operation_id = str(case.operation.definition.raw.get("operationId", ""))
    meta = case.meta.components if case.meta is not None else {}
    negative = [str(loc) for loc, info in meta.items() if info.mode.is_negative]
    if isinstance(failure, RejectedPositiveData):
        if negative:
            return f"{operation_id}: a case with a negative {', '.join(negative)}"
        problem = _json(response)
        if not isinstance(problem, dict):
            return None
        if response.status_code == 412:
            rpc = operation_id.partition("_")[0]
            if rpc in PRECONDITIONS and problem.get("reason") == "SESSION_ETAG_MISMATCH":
                return f"{rpc}: 412 SESSION_ETAG_MISMATCH"
            return None
        session = (case.path_parameters or {}).get("session")
        return (
            inexpressible(operation_id, problem, case.body, session) if response.status_code == 400 else None
        )
    return None


@schemathesis.hook
def filter_failure(ctx: Any, failure: Any, case: Any, response: Any) -> bool:
    """Keep every failure but the ones this module's docstring lists. With LAWSPEAKER_ALLOWED set,
    append each one dropped, in words, to the file it names (``.ci/schemathesis.sh`` sums them up)."""
    why = allowance(failure, case, response)
    record = os.environ.get("LAWSPEAKER_ALLOWED")
    if why is not None and record:
        with open(record, "a", encoding="utf-8") as out:
            out.write(f"{failure.code} {why}\n")
    return why is None


SEAT_TOKENS: dict[str, list[str]] = {}
"""The seat tokens of every session this run created, by session id."""


@schemathesis.hook
def after_call(ctx: Any, case: Any, response: Any) -> None:
    """Remember the seat tokens CreateSession returns, so that later calls on the session act for a
    seat (``before_call``) and reach the rules, not only the 403 of a missing token."""
    if case.operation.definition.raw.get("operationId") != "CreateSession" or response.status_code != 200:
        return
    answer = _json(response)
    if isinstance(answer, dict):
        session = answer.get("session", {}).get("session")
        tokens = [t.get("token", "") for t in answer.get("seatTokens", [])]
        if session and tokens:
            SEAT_TOKENS[session] = tokens


@schemathesis.hook
def before_call(ctx: Any, case: Any, kwargs: dict[str, Any]) -> None:
    """Act for seat 0 on a session this run created, unless the case sends its own Authorization."""
    session = (case.path_parameters or {}).get("session")
    tokens = SEAT_TOKENS.get(session or "")
    headers = case.headers if case.headers is not None else {}
    if tokens and not any(k.lower() == "authorization" for k in headers):
        case.headers = {**headers, "Authorization": f"Bearer {tokens[0]}"}
