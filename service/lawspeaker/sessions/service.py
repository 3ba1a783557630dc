"""SessionService over protobuf messages, shared by every transport (like :class:`RulesApi`).

Each RPC takes the request message and the caller's bearer token (None when absent) and returns the
response message, or raises :class:`~lawspeaker.games.core.LawspeakerError`. The engine, the codecs
and the encode/decode helpers are the stateless API's; this layer adds who may see and do what,
the secret RNG, versions (etags), idempotency, the move log and undo.

- A session id is ``<game>.<random>``: the game names the rules version in the store's keys, so a
  deployment with new rules simply stops finding the old sessions.
- Seat tokens carry 192 random bits (``secrets.token_urlsafe(24)``); only their SHA-256 is stored
  and a presented token is compared with ``hmac.compare_digest``.
- Responses carry ``game.view(state, seat)`` encoded with the ``rng`` field cleared.
- A chance step is resolved by the seat to act sending the draw move; the server draws from the
  session's RNG. With physical dice only explicit outcomes are accepted, and the server never draws.
- SessionApplyMove, the call a game makes most, can answer over ``lawspeaker.wire.structs`` messages
  instead (``session_apply_move_wire``, for JSON callers); what is stored stays protobuf.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import collections
import contextlib
import dataclasses
import functools
import hashlib
import hmac
import logging
import math
import secrets
import sys
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

from lawspeaker import bots
from lawspeaker.api import access
from lawspeaker.api.rules import RulesApi, bot_budget, bot_level
from lawspeaker.games import core
from lawspeaker.games.core import ErrorCode, FieldViolation, LawspeakerError
from lawspeaker.observe import calls, metrics
from lawspeaker.sessions.store import (
    CLOSED,
    DELETED,
    FINGERPRINT_BYTES,
    REQUEST_DIGEST_BYTES,
    Loaded,
    Remembered,
    SessionKey,
    SessionStore,
    Taken,
    Write,
    WriteStatus,
    live_slack,
)
from lawspeaker.v1 import game_pb2, rules_service_pb2
from lawspeaker.v1 import session_service_pb2 as pb
from lawspeaker.wire.codec import Entry, malformed

log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
MAX_REQUEST_ID = 128
MAX_SESSION_ID = 200
RECENT_SESSIONS = 10_000  # sessions whose last written version this replica remembers
WATCH_VIEWS = 256  # (version, seat) updates kept built for the watch streams of this replica
REPLAYS = 64  # sessions whose replayed move log (events per move, last state) this replica keeps
WATCH_TICKET_SECONDS = 30  # how long a watch ticket (CreateWatchTicket) stays valid; it works once
LONG_POLL_SECONDS = 30.0  # the most GetSession's wait_for_change waits for a change
MAX_CAP_RETRY_SECONDS = 60.0  # a full store says "retry in at most a minute": games end and free room
BOT_STALL_SECONDS = 30.0
"""A bot seat's move is made by the replica that wrote the version where its turn came. Should that
replica stop before it moves, the next replica that reads the session (GetSession,
SessionLegalMoves, WatchSession) this long after that version was written makes the move instead:
longer than a bot thinks (``lawspeaker.bots.MAX_MILLIS``) plus a wait for a worker."""
BOT_PACE_SECONDS = 0.02
"""The least time between two moves of one session's bots: a session of bots plays at most 50 moves
a second, so that watch streams (and the screens behind them) follow every version, and one game
cannot hold a replica's event loop. A person's reply to a bot, and a bot's to a person, are not
delayed."""
K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True)
class Limits:
    """Quotas on sessions (all off by default for a library user; ``lawspeaker serve`` turns them
    on, see its ``--create-rate``, ``--create-burst``, ``--max-sessions`` and ``--api-keys``).

    ``create_per_minute``/``create_burst``: new sessions per client (its API key, else its address),
    as a GCRA rate limit counted in the store, so it holds across replicas; 0 turns it off.
    ``max_sessions``: live sessions per store; 0 turns the cap off. ``access``: the API keys
    creating a session needs (none configured: none needed) and the trusted proxies.
    """

    create_per_minute: float = 0.0
    create_burst: int = 1
    max_sessions: int = 0
    access: access.Access = dataclasses.field(default_factory=access.Access)


class Record(msgspec.Struct, array_like=True):
    """A session as stored: creation parameters, token hashes and states (GameState protobuf bytes)."""

    game: str
    players: int
    physical_dice: bool
    token_hashes: list[bytes]
    initial: bytes  # the state at creation, RNG included: undo replays the log from here
    state: bytes  # the current state, RNG included
    move_count: int
    bots: list[BotRecord] = msgspec.field(default_factory=list)  # the seats the server plays
    written: float = 0.0  # when this version was written (Unix time): a stalled bot's turn is seen


class BotRecord(msgspec.Struct, array_like=True):
    """A seat the server plays: its level (``lawspeaker.bots.Level``) and budget (0: no limit)."""

    seat: int
    level: str
    playouts: int = 0
    millis: int = 0


class LogEntry(msgspec.Struct, array_like=True):
    """One move of the log, with what undo needs to know about it.

    Its events are not kept: they are what applying the move made, so replaying the log from the
    record's ``initial`` state gives them again, for every seat's view
    (:meth:`SessionApi._replay_log`). A move is ~6 bytes, its events 70-300 (store format 2)."""

    seat: int | None
    move: bytes  # Move protobuf, as sent
    chance: bool  # the move resolved a chance step
    reveal: bool  # the move drew from the RNG or revealed hidden information
    resolved: bytes | None = None  # for a server draw: the explicit outcome it came to (shown in logs)


_RECORD = msgspec.msgpack.Decoder(Record)
_LOG = msgspec.msgpack.Decoder(LogEntry)
_ENCODE = msgspec.msgpack.Encoder()


def create_rate_limit(per_minute: float, burst: int, remaining: int, full_in: float) -> access.RateLimit:
    """The ``"create"`` policy of a GCRA of ``per_minute`` on average and ``burst`` at once, as the
    RateLimit headers state it (docs/quotas.md, a decision): ``q`` is the burst, ``w`` the seconds
    the whole burst takes to refill (``burst * 60 / per_minute``, rounded up), ``r`` the creations
    allowed at once now, ``t`` the seconds until the burst is full again (rounded up)."""
    return access.RateLimit(
        "create",
        limit=burst,
        window=max(1, math.ceil(round(burst * 60 / per_minute, 3))),
        remaining=remaining,
        reset=max(0, math.ceil(round(full_in, 3))),
    )


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (None when absent or empty)."""
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise denied("SEAT_TOKEN_MALFORMED", "The Authorization header must be 'Bearer <seat token>'.")
    return token.strip()


def _ticket_digest(ticket: str) -> bytes:
    """What the store keeps of a watch ticket: its hash, as of a seat token."""
    return hashlib.sha256(b"watch-ticket:" + ticket.encode()).digest()


def _etag_of(field: str, value: str) -> int | None:
    """A session etag a caller sends in ``field`` (None when empty), or INVALID_ARGUMENT naming it."""
    if not value:
        return None
    if not (value.isascii() and value.isdigit()) or len(value) > 19:
        raise malformed(
            field,
            "must be a session etag: the version's digits as the session's etag field (or the ETag "
            f"header, without its quotes) gives it; got {value[:40]!r}",
            "ETAG_MALFORMED",
        )
    return int(value)


def denied(reason: str, message: str) -> LawspeakerError:
    return LawspeakerError(ErrorCode.PERMISSION_DENIED, reason, message)


def refused(reason: str, message: str, field: str = "move") -> LawspeakerError:
    """A move or undo the session refuses (FAILED_PRECONDITION / 409) with a stable reason."""
    return core.IllegalMove(core.Violation(reason, message, field))


def session_not_found(session: str) -> LawspeakerError:
    if len(session) > MAX_SESSION_ID:  # echoed whole, a huge id would overflow gRPC's trailers
        session = session[:MAX_SESSION_ID] + "..."
    return LawspeakerError(
        ErrorCode.NOT_FOUND,
        "SESSION_NOT_FOUND",
        f"No session {session!r}: it never existed, was deleted, expired after being idle, or was "
        "made by an older rules version.",
        (FieldViolation("session", "no such session"),),
        {"session": session},
    )


@dataclass(frozen=True, slots=True)
class _Opened:
    """A loaded session with its decoded parts."""

    entry: Entry[Any, Any, Any]
    key: SessionKey
    loaded: Loaded
    record: Record
    seat: int | None
    state: Any = None  # the engine state of ``record.state`` when this replica already has it

    @property
    def etag(self) -> str:
        return str(self.loaded.rev)


class SessionApi:
    """The RPCs of SessionService, transport-agnostic, over a :class:`SessionStore`."""

    def __init__(
        self, store: SessionStore, rules: RulesApi | None = None, limits: Limits | None = None
    ) -> None:
        self.store = store
        self.rules = rules if rules is not None else RulesApi()
        self.limits = limits if limits is not None else Limits()
        # When this replica last kept each session counted as live (``SessionStore.touch``): at most
        # once per ``live_slack(ttl)`` seconds per session, so the count costs the hot path nothing.
        self._touched: OrderedDict[str, float] = OrderedDict()
        self._touch_every = float(live_slack(store.ttl))
        # The version this replica wrote last, per session. A revision names one immutable record
        # (revisions are never reused), so an apply on that etag needs no read: the compare-and-set
        # of the write still checks the revision, the request id and that the session exists.
        # It keeps that version's engine state too, so such an apply decodes and checks nothing.
        self._recent: OrderedDict[str, tuple[int, Record, int, Any]] = OrderedDict()
        self._watch_views: OrderedDict[tuple[SessionKey, int, int | None], pb.WatchSessionResponse] = (
            OrderedDict()
        )
        # The last replay of each session's log (the log keeps moves, not events): a later read
        # replays only the moves made since, so paging through a long game's log, or a retry of
        # its last request id, costs an apply per new move, not per move of the game.
        self._replays: OrderedDict[SessionKey, _Replay] = OrderedDict()
        # The sessions whose bot seats this replica is moving now (one task per session), and those
        # written again while their task ran (it looks once more before it ends).
        self._driving: dict[str, asyncio.Task[None]] = {}
        self._woken: set[str] = set()

    def shutdown(self) -> None:
        """Ends every watch stream, so a graceful shutdown does not wait for them, and stops the bots
        (a bot whose move was not written is moved by the next replica that reads its session)."""
        self.store.stop_watchers()
        for task in list(self._driving.values()):
            task.cancel()

    async def close(self) -> None:
        await self.store.close()

    # ------------------------------------------------------------------ helpers

    def _key(self, session: str) -> tuple[Entry[Any, Any, Any], SessionKey]:
        if not session:
            raise malformed("session", "is required: the id CreateSession returned", "SESSION_REQUIRED")
        game, dot, rest = session.partition(".")
        entry = self.rules.registry.get(game)
        if not dot or entry is None or not rest or len(session) > MAX_SESSION_ID:
            raise session_not_found(session)
        calls.note_game(game)
        return entry, SessionKey(session, entry.game.rules_version)

    @staticmethod
    def _seat(record: Record, token: str | None, required: bool) -> int | None:
        if token is None:
            if required:
                raise denied(
                    "SEAT_TOKEN_REQUIRED",
                    "This call acts for a seat: send its token as 'authorization: Bearer <token>'.",
                )
            return None
        digest = hash_token(token)
        seat = None
        for i, stored in enumerate(record.token_hashes):  # no early exit: constant time per seat
            if hmac.compare_digest(digest, stored):
                seat = i
        if seat is None:
            raise denied("SEAT_TOKEN_INVALID", "The seat token is not valid for this session.")
        return seat

    def _remember(self, session: str, rev: int, record: Record, log_length: int, state: Any) -> None:
        _keep(self._recent, session, (rev, record, log_length, state), RECENT_SESSIONS)

    def _from_recent(self, session: str, token: str | None, etag: str) -> _Opened | None:
        """The session at ``etag`` when this replica wrote that version last, without a read."""
        found = self._recent.get(session)
        if found is None or etag != str(found[0]):
            return None
        entry, key = self._key(session)
        rev, record, log_length, state = found
        return _Opened(
            entry, key, Loaded(rev, b"", log_length), record, self._seat(record, token, True), state
        )

    async def _open(
        self,
        session: str,
        token: str | None,
        required: bool = False,
        request_id: str = "",
        as_seat: int | None = None,
    ) -> _Opened:
        """The session, and the seat ``token`` is for (or ``as_seat``: a redeemed watch ticket's)."""
        entry, key = self._key(session)
        idem = _idem_field(token, request_id) if request_id and token else b""
        loaded = await self.store.load(key, idem)
        if loaded is None:
            raise session_not_found(session)
        await self._used(key)
        record = _RECORD.decode(loaded.data)
        seat = self._seat(record, token, required) if as_seat is None else as_seat
        return _Opened(entry, key, loaded, record, seat)

    async def _used(self, key: SessionKey) -> None:
        """Keeps a used session counted as live (once in a while; a failure only delays it)."""
        now = time.monotonic()
        last = self._touched.get(key.session)
        if last is not None and now - last < self._touch_every:
            return
        _keep(self._touched, key.session, now, RECENT_SESSIONS)
        try:
            await self.store.touch([key])
        except LawspeakerError:
            self._touched.pop(key.session, None)  # the next call tries again

    async def health(self) -> dict[str, Any]:
        """Health details of the sessions: the store, its live count, quotas and durability."""
        limits = self.limits
        out: dict[str, Any] = {
            "store": type(self.store).__name__.removesuffix("Store").lower(),
            "ttlSeconds": self.store.ttl,
            "maxSessions": limits.max_sessions,
            "createPerMinute": limits.create_per_minute,
            "createBurst": limits.create_burst,
            "apiKeys": limits.access.keys_required,
            "requestIdTtlSeconds": self.store.request_id_ttl,
            "requestIdBytes": self.store.request_id_bytes,
        }
        try:
            out["liveSessions"] = await self.store.live_sessions()
            out["durability"] = (await self.store.durability()).as_dict()
            writes = await self.store.write_health()  # a write probe: Redis full or read-only refuses it
            out["available"] = True
        except LawspeakerError as err:
            out["available"] = False
            out["writable"] = False
            out["degraded"] = True
            out["error"] = err.reason
            return out
        # Degraded: the store answers, so sessions can be read, but refuses writes (creations, moves),
        # e.g. Redis at its maxmemory with the noeviction policy.
        out["writable"] = writes.writable
        out["degraded"] = not writes.writable
        if writes.memory is not None:
            out["memory"] = writes.memory
        if not writes.writable:
            out["error"] = "SESSION_STORE_UNAVAILABLE"  # what creations and moves are answered
            out["writeError"] = writes.error
        return out

    async def read_metrics(self) -> None:
        """Read what the metrics show of the store now: its live sessions (and the cap), and whether
        it takes writes (a write probe sets ``lawspeaker_store_writable``)."""
        try:
            live: int | None = await self.store.live_sessions()
        except LawspeakerError:
            live = None  # the store's round trip metrics say why
        metrics.sessions_read(self.store.kind, live, self.limits.max_sessions)
        if live is not None:
            with contextlib.suppress(LawspeakerError):
                await self.store.write_health()

    async def _admit(self, key: SessionKey) -> _Taken | None:
        """The quotas a new session must pass: an API key if any is configured, the caller's rate
        of creation (its API key's own allowance, else the service's), and the cap on live sessions
        (which counts it when admitted). The state of the rate it took from is left for the
        transport (``access.note_rate_limit``: the RateLimit headers, on the answer or the refusal).
        The request taken from the rate limit, if one was: given back (``_undo_admission``) when
        the creation is refused after all, here by the cap or later by the store."""
        limits = self.limits
        caller = access.CALLER.get()
        if caller is None or (limits.access.keys_required and caller.api_key is None):
            # the transports identify callers; without one (a library call) only keys are enforced
            limits.access.key_name(None, required=True)
            caller = access.UNKNOWN_CALLER
        per_minute, burst = limits.create_per_minute, limits.create_burst
        own = caller.allowance
        if own is not None:
            per_minute = per_minute if own.per_minute is None else own.per_minute
            burst = burst if own.burst is None else own.burst
        token: _Taken | None = None
        if per_minute > 0:
            bucket = "create:" + caller.quota_key
            taken = await self.store.take(bucket, per_minute, burst)
            access.note_rate_limit(create_rate_limit(per_minute, burst, taken.remaining, taken.full_in))
            wait = taken.wait
            if wait > 0:
                raise LawspeakerError(
                    ErrorCode.RESOURCE_EXHAUSTED,
                    "SESSION_CREATE_RATE_LIMITED",
                    f"Too many new sessions from this client: at most {burst} at once and "
                    f"{per_minute:g} a minute. Try again in {max(wait, 0.001):.3g} s.",
                    metadata={"perMinute": f"{per_minute:g}", "burst": str(burst)},
                    retry_after=wait,
                )
            token = _Taken(bucket, per_minute, burst, taken)
        try:
            admitted = await self.store.admit(key, limits.max_sessions)
        except LawspeakerError:
            await self._give_back(token)
            raise
        # Refused by the cap, the request stays taken: the rate limit counts a client's attempts on
        # a full service too (only a failure of the store, not the client's doing, is given back).
        if not admitted.admitted:
            wait = min(admitted.retry_after, MAX_CAP_RETRY_SECONDS)
            raise LawspeakerError(
                ErrorCode.RESOURCE_EXHAUSTED,
                "SESSION_LIMIT_REACHED",
                f"The service holds its maximum of {limits.max_sessions} live sessions: no new one can "
                "start until a game is deleted or a session expires. Try again later.",
                metadata={"maxSessions": str(limits.max_sessions)},
                retry_after=wait,
            )
        return token

    async def _undo_admission(self, key: SessionKey, token: _Taken | None) -> None:
        """A creation ``_admit`` let through failed in the store (full with noeviction: OOM; or
        down): it must not count. Its place in the live count is removed (ZREM, which a full Redis
        takes) and its request given back to the rate limit. Best effort: should the store refuse
        these too, what bounds the error is the live entry's score (it leaves the count one TTL and
        its slack after the admission, as an unused session would) and the rate limit's refill."""
        try:
            await self.store.unadmit(key)
        except LawspeakerError as err:
            log.warning("a refused creation stays counted as live until its entry expires (%s)", err.reason)
        await self._give_back(token)

    async def _give_back(self, token: _Taken | None) -> None:
        """Gives the request ``token`` took back to its rate limit (best effort), and says so in the
        RateLimit headers."""
        if token is None:
            return
        try:
            await self.store.give_back(token.bucket, token.per_minute)
        except LawspeakerError as err:
            log.warning("a refused creation's request stays taken from its rate limit (%s)", err.reason)
            return
        taken = token.taken
        access.note_rate_limit(
            create_rate_limit(
                token.per_minute,
                token.burst,
                min(taken.remaining + 1, token.burst),
                max(taken.full_in - 60.0 / token.per_minute, 0.0),
            )
        )

    def _state(self, entry: Entry[Any, Any, Any], data: bytes) -> Any:
        return self.rules.decode_state(entry, game_pb2.GameState.FromString(data))

    def _encode_view(
        self, entry: Entry[Any, Any, Any], state: Any, seat: int | None, full: game_pb2.GameState | None
    ) -> game_pb2.GameState:
        view = entry.game.view(state, seat)
        if view is state and full is not None:  # nothing hidden: reuse the encoded state
            out = game_pb2.GameState()
            out.CopyFrom(full)
        else:
            out = self.rules.encode_state(entry, view)
        out.ClearField("rng")  # the RNG never leaves the server
        return out

    def _session(
        self,
        o: _Opened,
        record: Record,
        state: Any,
        rev: int | None = None,
        full: game_pb2.GameState | None = None,
        api: RulesApi | None = None,
    ) -> Any:
        """The session as the caller's seat sees it: a protobuf ``Session``, or one over the messages
        of ``api`` (the wire ones) when given. ``full`` is ``state`` already encoded, if it is."""
        entry, g = o.entry, o.entry.game
        if api is None:
            messages: Any = pb
            shown = self._encode_view(entry, state, o.seat, full)
        else:
            messages = api.m
            shown = api.encode_state(api.registry[g.id], g.view(state, o.seat), with_rng=False)
        rules = api if api is not None else self.rules
        fields: dict[str, Any] = {}
        if o.seat is not None:
            fields["seat"] = o.seat
        outcome = g.outcome(state)
        if outcome is not None:
            fields["game_over"] = True
            fields["outcome"] = rules.encode_outcome(outcome)
        if record.bots:
            fields["bots"] = [_bot_seat(rules.m, b) for b in record.bots]
        return messages.Session(
            session=o.key.session,
            game=g.id,
            players=record.players,
            etag=str(o.loaded.rev if rev is None else rev),
            move_count=rules.m.int64(record.move_count),
            state=shown,
            to_act=list(g.to_act(state).players),
            physical_dice=record.physical_dice,
            **fields,
        )

    def _check_etag(self, o: _Opened, etag: str) -> None:
        if not etag:
            raise malformed(
                "etag", f"is required: the etag of the version you saw (now {o.etag})", "ETAG_REQUIRED"
            )
        if etag != o.etag:
            raise _stale(o.key.session, etag, o.etag)

    def _chance_rule(self, o: _Opened, state: Any, move: Any) -> None:
        """Physical dice take explicit outcomes only; otherwise the server draws, never the client."""
        g = o.entry.game
        chance = g.chance(state)
        if chance is None:
            return
        explicit = any(c.move == move for c in chance.outcomes)
        if o.record.physical_dice and not explicit and move in g.legal_moves(state):
            raise refused(
                "PHYSICAL_DICE_OUTCOME_REQUIRED",
                "This session plays with physical dice: send the outcome you threw (one of the chance "
                "step's outcomes), the server does not draw.",
            )
        if not o.record.physical_dice and explicit and move not in g.legal_moves(state):
            raise refused(
                "EXPLICIT_OUTCOME_NOT_ALLOWED",
                "In this session the server draws chance steps from its secret RNG: send the draw move "
                "listed by SessionLegalMoves, not an outcome (create the session with physical_dice to "
                "enter outcomes yourself).",
            )

    @staticmethod
    def _draws(entry: Entry[Any, Any, Any], state: Any, new_state: Any) -> bool:
        """True when going from ``state`` to ``new_state`` drew from the RNG."""
        return bool(entry.codec.rng_of(new_state).counter != entry.codec.rng_of(state).counter)

    def _physical_rule(self, o: _Opened, state: Any, new_state: Any) -> None:
        """With physical dice the server never draws: a move that would draw is refused."""
        if o.record.physical_dice and self._draws(o.entry, state, new_state):
            raise refused(
                "PHYSICAL_DICE_NO_OUTCOME",
                "This session plays with physical dice, but this step has no outcome you can enter: "
                "the server would have to draw it from its RNG. Nothing was written.",
            )

    def _turn_rule(self, o: _Opened, state: Any) -> None:
        g = o.entry.game
        if g.outcome(state) is not None:
            return  # core.validate reports GAME_OVER
        to_act = g.to_act(state)
        if to_act.chance and not to_act.players:
            return  # a draw nobody in particular makes: any seat may ask for it
        if o.seat not in to_act.players:
            seats = ", ".join(str(s) for s in to_act.players) or "nobody"
            raise LawspeakerError(
                ErrorCode.NOT_YOUR_TURN,
                "NOT_YOUR_TURN",
                f"Seat {o.seat} may not act now; seat(s) to act: {seats}.",
                (FieldViolation("move", f"seat {o.seat} is not to act"),),
            )

    def _events_for(self, o: _Opened, events: Sequence[core.Event]) -> list[game_pb2.GameEvent]:
        """A move's events as protobuf, as the caller's seat sees them: what an apply answers, what
        its replay answers and what the log shows, built by this one function."""
        return [self.rules.encode_event(o.entry, e) for e in self._seen_events(o, events)]

    @staticmethod
    def _seen_events(o: _Opened, events: Sequence[core.Event]) -> list[core.Event]:
        """The events as the caller's seat sees them (``view_event`` hides other seats' secrets)."""
        view_event = _hook(o.entry.game, "view_event")
        if view_event is None:
            return list(events)
        return [seen for seen in (view_event(e, o.seat) for e in events) if seen is not None]

    def _replay_log(
        self, entry: Entry[Any, Any, Any], state: Any, log: Sequence[LogEntry]
    ) -> Iterator[tuple[Any, list[core.Event]]]:
        """The state after each move of ``log`` and the events it made, replayed from ``state``
        (the record's ``initial`` for a whole log).

        The log keeps moves only; the engine is deterministic and the states carry the RNG, so
        replaying gives what each move made when it was played. A server draw is replayed as the
        explicit outcome it came to (``resolved``, which gives the same state and events), with the
        RNG carried forward as the draw moved it: so the log's draws are the ones logged even if the
        RNG were not the one they were drawn from. It costs one apply per move (two per draw), on the
        calls that read the log (ListSessionMoves, UndoMove, a replayed request id), never on an
        apply."""
        game, rules = entry.game, self.rules
        for past in log:
            move = rules.decode_move(entry, game_pb2.Move.FromString(past.move), True)
            drawn, events = core.apply(game, state, move)
            if past.resolved is not None:
                outcome = rules.decode_move(entry, game_pb2.Move.FromString(past.resolved), True)
                after, happened = core.apply(game, state, outcome)
                grafted = _with_rng(after, entry.codec.rng_of(drawn))
                if grafted is not None:
                    drawn, events = grafted, happened
            state = drawn
            yield state, events

    def _resolved(self, entry: Entry[Any, Any, Any], state: Any, new_state: Any, events: Any) -> bytes | None:
        """For a server draw, the explicit chance outcome that gives the same state and events, so
        that a client can replay the log without the secret RNG; None when no listed outcome does
        (a draw too large to list)."""
        chance = entry.game.chance(state)
        if chance is None:
            return None

        def same_state(after: Any) -> bool:
            """``after`` equals ``new_state`` but for the RNG (an explicit outcome draws nothing)."""
            rng = entry.codec.rng_of(new_state)
            if dataclasses.is_dataclass(after) and not isinstance(after, type):
                return bool(dataclasses.replace(after, rng=rng) == new_state)
            if hasattr(after, "_replace"):
                return bool(after._replace(rng=rng) == new_state)
            a, b = self.rules.encode_state(entry, after), self.rules.encode_state(entry, new_state)
            a.ClearField("rng")
            b.ClearField("rng")
            return a.SerializeToString(deterministic=True) == b.SerializeToString(deterministic=True)

        drawn_outcome = _hook(entry.game, "drawn_outcome")
        candidates = [o.move for o in chance.outcomes]
        if drawn_outcome is not None:  # the game can name the outcome its draw comes to: try it first
            candidates.insert(0, drawn_outcome(state))
        for move in candidates:
            after, happened = entry.game.apply(state, move)
            # the events name what was drawn (a cheap first filter); then the whole state must agree
            if happened == events and not self._draws(entry, state, after) and same_state(after):
                return bytes(self.rules.encode_move(entry, move).SerializeToString())
        return None

    def _replayed_log(self, o: _Opened, raw: list[bytes]) -> _Replay:
        """The session's log ``raw`` (as read, from its first entry) replayed: from this replica's
        last replay of it when the log only grew since (or ``raw`` is part of it), else from the
        initial state. Entries are compared as stored bytes, so an undone and replaced move is seen."""
        cached = self._replays.get(o.key)
        if cached is not None and raw == cached.raw[: len(raw)]:
            return cached if len(raw) == len(cached.raw) else _Replay(raw, cached.events[: len(raw)], None)
        if cached is not None and cached.state is not None and cached.raw == raw[: len(cached.raw)]:
            done, start, events = len(cached.raw), cached.state, list(cached.events)
        else:
            done, start, events = 0, self._state(o.entry, o.record.initial), []
        last = start
        for after, happened in self._replay_log(o.entry, start, [_LOG.decode(b) for b in raw[done:]]):
            last = after
            events.append(happened)
        out = _Replay(list(raw), events, last)
        _keep(self._replays, o.key, out, REPLAYS)
        return out

    def _log_move(
        self, o: _Opened, number: int, entry: LogEntry, events: Sequence[core.Event]
    ) -> pb.SessionMove:
        move = game_pb2.Move.FromString(entry.resolved if entry.resolved is not None else entry.move)
        view_move = _hook(o.entry.game, "view_move")
        if view_move is not None and entry.seat != o.seat:
            engine_move = self.rules.decode_move(o.entry, move, True)
            move = self.rules.encode_move(o.entry, view_move(engine_move, entry.seat, o.seat))
        out = pb.SessionMove(
            number=number, move=move, events=self._events_for(o, events), chance=entry.chance
        )
        if entry.seat is not None:
            out.seat = entry.seat
        return out

    # ------------------------------------------------------------------ bot seats

    @staticmethod
    def _bot_due(entry: Entry[Any, Any, Any], record: Record, state: Any) -> BotRecord | None:
        """The bot seat that is to move in ``state``, if any. In a session with bots, a chance step
        nobody in particular draws (a deal, a refill) is drawn by the server at once, as a bot's
        move: nobody waits for it, and the draw comes from the secret RNG whoever asks for it."""
        if not record.bots:
            return None
        g = entry.game
        if g.outcome(state) is not None:
            return None
        to_act = g.to_act(state)
        for bot in record.bots:
            if bot.seat in to_act.players:
                return bot
        if to_act.chance and not to_act.players:
            return record.bots[0]
        return None

    def _wake_bots(self, entry: Entry[Any, Any, Any], key: SessionKey, record: Record, state: Any) -> None:
        """After this replica wrote a version: if a bot seat is to move in it, this replica moves it
        (a task per session, which goes on while bots are to move)."""
        if not record.bots or self._bot_due(entry, record, state) is None:
            return
        if key.session in self._driving:
            self._woken.add(key.session)  # its task looks again before it ends
            return
        self._driving[key.session] = asyncio.get_running_loop().create_task(self._drive_bots(entry, key))

    def _wake_stalled_bots(self, o: _Opened, state: Any) -> None:
        """A read of a version where a bot has been due for :data:`BOT_STALL_SECONDS` (its replica
        stopped): this replica moves the bot. The etag decides if two try: one write wins."""
        if (
            o.record.bots
            and time.time() - o.record.written > BOT_STALL_SECONDS
            and self._bot_due(o.entry, o.record, state) is not None
        ):
            self._wake_bots(o.entry, o.key, o.record, state)

    async def _drive_bots(self, entry: Entry[Any, Any, Any], key: SessionKey) -> None:
        """Moves the session's bot seats while one is to move: each move thought in the bot pool
        (off the event loop; a busy pool makes it wait, never refuses it) and written as a person's
        is, on the etag it was thought on and under a request id of its own. It stops when no bot is
        to move, when another write came first (its writer moves any bot due then) and when the
        session is gone."""
        session = key.session
        last = -BOT_PACE_SECONDS  # when this task last wrote a bot move
        try:
            while True:
                self._woken.discard(session)
                opened = await self._bot_version(entry, key)
                due = self._bot_due(entry, opened.record, opened.state) if opened is not None else None
                if opened is None or due is None:
                    if session in self._woken and opened is not None:
                        continue
                    return
                found = await self.rules.bot_pool.suggest(
                    entry.game.id,
                    opened.state,
                    due.seat,
                    bots.Level(due.level),
                    playouts=due.playouts or None,
                    millis=float(due.millis) or None,
                    seed=_bot_seed(entry, opened, due.seat),
                    wait=True,
                )
                request = pb.SessionApplyMoveRequest(
                    session=session,
                    move=self.rules.encode_move(entry, found.move),
                    etag=opened.etag,
                    request_id=f"bot.{opened.etag}",
                )
                bot = dataclasses.replace(opened, seat=due.seat)
                await asyncio.sleep(max(0.0, last + BOT_PACE_SECONDS - time.monotonic()))
                try:
                    await self._apply(bot, request, _bot_token(due.seat), False)
                    last = time.monotonic()
                    written = self._recent.get(session)
                    if written is None or written[0] != opened.loaded.rev + 1:
                        return  # another replica wrote this move first (its request id's answer came back)
                except LawspeakerError as err:
                    if err.code is ErrorCode.STALE_STATE and session in self._woken:
                        continue  # this replica wrote the newer version: a bot may be due there
                    if err.code not in (ErrorCode.STALE_STATE, ErrorCode.NOT_FOUND):
                        log.warning("bot seat %d of %s did not move: %s", due.seat, session, err.reason)
                    return
        except asyncio.CancelledError:
            raise
        except LawspeakerError as err:  # the store is down, or no worker could think
            log.warning("the bots of %s stopped: %s (%s)", session, err.reason, err)
        except Exception:
            log.exception("the bots of %s stopped", session)
        finally:
            # at once, with no await since the last look: a write from now on starts a new task
            if self._driving.get(session) is asyncio.current_task():
                del self._driving[session]
            self._woken.discard(session)

    async def _bot_version(self, entry: Entry[Any, Any, Any], key: SessionKey) -> _Opened | None:
        """The session's newest version as this replica knows it: the one it wrote last, without a
        read, else read from the store (None when the session is gone)."""
        found = self._recent.get(key.session)
        if found is not None:
            rev, record, log_length, state = found
            return _Opened(entry, key, Loaded(rev, b"", log_length), record, None, state)
        loaded = await self.store.load(key, b"")
        if loaded is None:
            return None
        record = _RECORD.decode(loaded.data)
        return _Opened(entry, key, loaded, record, None, self._state(entry, record.state))

    # ------------------------------------------------------------------ the RPCs

    async def create_session(
        self, request: pb.CreateSessionRequest, token: str | None
    ) -> pb.CreateSessionResponse:
        new = rules_service_pb2.NewGameRequest(game=request.game, players=request.players)
        if request.HasField("seed"):
            new.seed = request.seed
        if request.HasField("options"):
            new.options.CopyFrom(request.options)
        with calls.rules_span("NewGame"):
            entry, state = self.rules.initial_state(new)
        chance = entry.game.chance(state) if request.physical_dice else None
        if chance is not None and any(
            self._draws(entry, state, entry.game.apply(state, c.move)[0]) for c in chance.outcomes
        ):
            raise malformed(
                "physical_dice",
                f"cannot be set for this {entry.game.id} setup: its first chance step has no outcome "
                "a player can enter (the server would draw it)",
                "PHYSICAL_DICE_UNSUPPORTED",
            )
        robots = self._bot_seats(request)
        played = {b.seat for b in robots}
        tokens = {seat: secrets.token_urlsafe(24) for seat in range(request.players) if seat not in played}
        data = self.rules.encode_state(entry, state).SerializeToString()
        record = Record(
            game=entry.game.id,
            players=request.players,
            physical_dice=request.physical_dice,
            # a bot seat has no token: an empty hash matches none (hash_token gives 32 bytes)
            token_hashes=[hash_token(tokens[i]) if i in tokens else b"" for i in range(request.players)],
            initial=data,
            state=data,
            move_count=0,
            bots=robots,
            written=time.time(),
        )
        session = f"{entry.game.id}.{secrets.token_urlsafe(16)}"
        key = SessionKey(session, entry.game.rules_version)
        took = await self._admit(key)
        try:
            rev = await self.store.create(key, _ENCODE.encode(record))
        except LawspeakerError:  # e.g. Redis full (OOM): the refused creation must not count
            await self._undo_admission(key, took)
            raise
        metrics.session_created(entry.game.id)
        _keep(self._touched, session, time.monotonic(), RECENT_SESSIONS)
        opened = _Opened(entry, key, Loaded(rev, b"", 0), record, None)
        self._wake_bots(entry, key, record, state)
        return pb.CreateSessionResponse(
            session=self._session(opened, record, state),
            seat_tokens=[pb.SeatToken(seat=i, token=t) for i, t in tokens.items()],
        )

    @staticmethod
    def _bot_seats(request: pb.CreateSessionRequest) -> list[BotRecord]:
        """The bot seats a CreateSession asks for, checked."""
        out: list[BotRecord] = []
        for i, bot in enumerate(request.bots):
            where = f"bots[{i}]"
            if not 0 <= bot.seat < request.players:
                raise malformed(
                    f"{where}.seat",
                    f"must be a seat of this session: 0 to {request.players - 1}",
                    "SEAT_OUT_OF_RANGE",
                )
            if any(b.seat == bot.seat for b in out):
                raise malformed(f"{where}.seat", f"names seat {bot.seat} a second time", "BOT_SEAT_DUPLICATE")
            level = bot_level(bot.level, f"{where}.level")
            playouts, millis = bot_budget(bot.budget if bot.HasField("budget") else None)
            out.append(BotRecord(bot.seat, level.value, playouts or 0, int(millis or 0)))
        if out and request.physical_dice:
            raise malformed(
                "bots",
                "cannot be set with physical_dice: a bot cannot throw physical dice, and the server "
                "would have to enter its throws",
                "BOTS_WITH_PHYSICAL_DICE",
            )
        return out

    async def get_session(self, request: pb.GetSessionRequest, token: str | None) -> pb.GetSessionResponse:
        if request.wait_for_change:
            return await self._long_poll(request, token)
        o = await self._open(request.session, token)
        state = self._state(o.entry, o.record.state)
        self._wake_stalled_bots(o, state)
        return pb.GetSessionResponse(session=self._session(o, o.record, state))

    async def list_session_moves(
        self, request: pb.ListSessionMovesRequest, token: str | None
    ) -> pb.ListSessionMovesResponse:
        if request.page_size < 0:
            raise malformed("page_size", "must not be negative", "INVALID_PAGE_SIZE")
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        o = await self._open(request.session, token)
        start = _page_offset(request.session, request.page_token) if request.page_token else 0
        total = o.loaded.log_length
        # the log keeps moves, not events: they come from replaying it from the start
        raw = await self.store.read_log(o.key, 0, min(start + size, total))
        replayed = self._replayed_log(o, raw)
        moves = [
            self._log_move(o, start + i + 1, _LOG.decode(b), events)
            for i, (b, events) in enumerate(zip(raw[start:], replayed.events[start:], strict=True))
        ]
        end = start + len(moves)
        return pb.ListSessionMovesResponse(
            moves=moves,
            next_page_token=_page_token(request.session, end) if end < total else "",
            total_size=total,
            etag=o.etag,
        )

    async def session_legal_moves(
        self, request: pb.SessionLegalMovesRequest, token: str | None
    ) -> pb.SessionLegalMovesResponse:
        o = await self._open(request.session, token)
        entry, g = o.entry, o.entry.game
        state = self._state(entry, o.record.state)
        self._wake_stalled_bots(o, state)
        to_act = g.to_act(state)
        out = pb.SessionLegalMovesResponse(to_act=to_act.players, etag=o.etag)
        chance = g.chance(state)
        if chance is not None:
            out.chance.CopyFrom(self.rules.encode_chance(entry, chance))
        if o.seat is not None and (o.seat in to_act.players or (to_act.chance and not to_act.players)):
            if chance is not None and o.record.physical_dice:
                moves: Sequence[Any] = [c.move for c in chance.outcomes]
            else:
                with calls.rules_span("LegalMoves"):
                    moves = g.legal_moves(state)
            out.moves.extend(self.rules.encode_move(entry, m) for m in moves)
        outcome = g.outcome(state)
        if outcome is not None:
            out.game_over = True
            out.outcome.CopyFrom(self.rules.encode_outcome(outcome))
        return out

    async def session_validate_move(
        self, request: pb.SessionValidateMoveRequest, token: str | None
    ) -> pb.SessionValidateMoveResponse:
        o = await self._open(request.session, token, required=True)
        state = self._state(o.entry, o.record.state)
        move = self.rules.decode_move(o.entry, request.move, request.HasField("move"))
        try:
            self._turn_rule(o, state)
            self._chance_rule(o, state, move)
        except core.IllegalMove as err:
            calls.note_violation(err.violation.reason)
            return pb.SessionValidateMoveResponse(
                valid=False, violation=self.rules.encode_violation(o.entry, err.violation)
            )
        except LawspeakerError as err:
            calls.note_violation(err.reason)
            refusal = game_pb2.Violation(reason=err.reason, message=err.message, field="move")
            return pb.SessionValidateMoveResponse(valid=False, violation=refusal)
        with calls.rules_span("ValidateMove"):
            violation = core.validate(o.entry.game, state, move)
        if violation is None and o.record.physical_dice and o.entry.game.chance(state) is not None:
            try:
                self._physical_rule(o, state, o.entry.game.apply(state, move)[0])
            except core.IllegalMove as err:
                violation = err.violation
        if violation is None:
            return pb.SessionValidateMoveResponse(valid=True)
        calls.note_violation(violation.reason)
        return pb.SessionValidateMoveResponse(
            valid=False, violation=self.rules.encode_violation(o.entry, violation)
        )

    async def session_apply_move(
        self, request: pb.SessionApplyMoveRequest, token: str | None
    ) -> pb.SessionApplyMoveResponse:
        answer: pb.SessionApplyMoveResponse = await self._apply_move(request, token, False)
        return answer

    async def session_apply_move_wire(self, request: pb.SessionApplyMoveRequest, token: str | None) -> Any:
        """SessionApplyMove answered with ``lawspeaker.wire.structs`` messages (for JSON callers): the same
        answer, but that a replayed request id gets its stored protobuf answer."""
        return await self._apply_move(request, token, True)

    async def _apply_move(self, request: pb.SessionApplyMoveRequest, token: str | None, as_wire: bool) -> Any:
        if len(request.request_id) > MAX_REQUEST_ID:
            raise malformed(
                "request_id", f"must be at most {MAX_REQUEST_ID} characters", "REQUEST_ID_TOO_LONG"
            )
        cached = self._from_recent(request.session, token, request.etag)
        if cached is not None:
            await self._used(cached.key)
            try:
                return await self._apply(cached, request, token, as_wire)
            except LawspeakerError as err:
                if not request.request_id or err.code is ErrorCode.UNAVAILABLE:
                    raise
                # the request id may name an earlier request: answer as the read below decides
        o = await self._open(request.session, token, required=True, request_id=request.request_id)
        if o.loaded.replay is not None:
            return await self._replayed(o, request, o.loaded.replay)
        return await self._apply(o, request, token, as_wire)

    async def _replayed(
        self, o: _Opened, request: pb.SessionApplyMoveRequest, made: Remembered
    ) -> pb.SessionApplyMoveResponse:
        """The first response to a retried request id, rebuilt byte for byte: the idempotency record
        keeps the revision and log length its write made, and the log replays to that move's state
        and events (records of undone moves are forgotten with them, so the log still holds it). A
        different request under the same id is refused."""
        if made.fingerprint != _fingerprint(request):
            raise malformed(
                "request_id",
                "was already used by this seat for a different move or etag: a retry must repeat its "
                "request exactly, a new request needs a new request_id",
                "REQUEST_ID_REUSED",
            )
        # the first attempt may have been refused SESSION_WRITE_NOT_REPLICATED: this answer is an
        # acknowledgement too, so it waits for replicas as the write would have
        await self.store.confirm_replicated(o.key)
        metrics.replayed(o.entry.game.id)
        raw = await self.store.read_log(o.key, 0, made.log_length)
        if len(raw) != made.log_length:  # deleted or expired since it was read
            raise session_not_found(request.session)
        replayed = self._replayed_log(o, raw)
        state, events = replayed.state, replayed.events[-1]  # the move's: the log's last
        if state is None:  # an older request than this replica's last replay: from the start
            log = [_LOG.decode(b) for b in raw]
            initial = self._state(o.entry, o.record.initial)
            state, events = collections.deque(self._replay_log(o.entry, initial, log), maxlen=1)[0]
        record = msgspec.structs.replace(o.record, move_count=made.log_length)
        full = self.rules.encode_state(o.entry, state)
        return pb.SessionApplyMoveResponse(
            session=self._session(o, record, state, made.rev, full), events=self._events_for(o, events)
        )

    async def _apply(
        self, o: _Opened, request: pb.SessionApplyMoveRequest, token: str | None, as_wire: bool
    ) -> Any:
        """Checks and makes the move on the version ``o``; one compare-and-set writes it. The answer
        is a protobuf message, or a wire one when ``as_wire``."""
        entry, g = o.entry, o.entry.game
        self._check_etag(o, request.etag)
        state = o.state if o.state is not None else self._state(entry, o.record.state)
        move = self.rules.decode_move(entry, request.move, request.HasField("move"))
        self._turn_rule(o, state)
        self._chance_rule(o, state, move)
        was_chance = g.chance(state) is not None
        with calls.rules_span("ApplyMove"):
            new_state, events = self.rules.apply_checked(entry, state, move)
        self._physical_rule(o, state, new_state)
        drew = self._draws(entry, state, new_state)
        reveals = _hook(g, "reveals")
        revealed = bool(reveals(state, move, new_state)) if reveals is not None else False
        resolved = self._resolved(entry, state, new_state, events) if drew else None
        log_entry = LogEntry(
            seat=o.seat,
            move=request.move.SerializeToString(),
            chance=was_chance,
            reveal=was_chance or drew or revealed,
            resolved=resolved,
        )
        full = self.rules.encode_state(entry, new_state)
        record = msgspec.structs.replace(
            o.record, state=full.SerializeToString(), move_count=o.record.move_count + 1, written=time.time()
        )
        idem = _idem_field(token, request.request_id) if request.request_id and token else b""
        written = await self.store.write(
            o.key,
            Write(
                expected_rev=o.loaded.rev,
                data=_ENCODE.encode(record),
                push=_ENCODE.encode(log_entry),
                idem_field=idem,
                fingerprint=_fingerprint(request) if idem else b"",
            ),
        )
        if written.status is not WriteStatus.WRITTEN:
            self._recent.pop(request.session, None)
        if written.status is WriteStatus.REPLAY and written.replay is not None:
            return await self._replayed(o, request, written.replay)
        if written.status is WriteStatus.MISSING:
            raise session_not_found(request.session)
        if written.status is WriteStatus.STALE:
            raise _stale(request.session, request.etag, "newer")
        self._remember(request.session, o.loaded.rev + 1, record, o.loaded.log_length + 1, new_state)
        self._wake_bots(entry, o.key, record, new_state)
        if as_wire:
            api = self.rules.on_wire
            over = api.registry[g.id]  # the game's codec over wire messages
            return api.m.SessionApplyMoveResponse(
                session=self._session(o, record, new_state, o.loaded.rev + 1, api=api),
                events=[api.encode_event(over, e) for e in self._seen_events(o, events)],
            )
        # a replay of its request id rebuilds this answer the same way (``_replayed``)
        return pb.SessionApplyMoveResponse(
            session=self._session(o, record, new_state, o.loaded.rev + 1, full),
            events=self._events_for(o, events),
        )

    async def undo_move(self, request: pb.UndoMoveRequest, token: str | None) -> pb.UndoMoveResponse:
        self._recent.pop(request.session, None)
        o = await self._open(request.session, token, required=True)
        self._check_etag(o, request.etag)
        count = o.loaded.log_length
        if count == 0:
            raise refused("NOTHING_TO_UNDO", "No move has been made in this session.", "session")
        raw = await self.store.read_log(o.key, 0, count)
        log = [_LOG.decode(b) for b in raw]
        last = log[-1]
        if last.seat != o.seat:
            who = "a chance step nobody made" if last.seat is None else f"seat {last.seat}"
            raise refused(
                "UNDO_NOT_YOURS",
                f"The last move was made by {who}: you may only undo your own last move.",
                "session",
            )
        if last.chance or last.reveal:
            raise refused(
                "UNDO_AFTER_CHANCE",
                "The last move resolved a chance step or revealed hidden information: it cannot be "
                "taken back.",
                "session",
            )
        entry = o.entry
        initial = self._state(entry, o.record.initial)
        before = collections.deque(self._replay_log(entry, initial, log[:-1]), maxlen=1)
        state = before[0][0] if before else initial
        undone_move = self.rules.decode_move(entry, game_pb2.Move.FromString(last.move), True)
        _, undone_events = core.apply(entry.game, state, undone_move)
        record = msgspec.structs.replace(
            o.record,
            state=self.rules.encode_state(entry, state).SerializeToString(),
            move_count=o.record.move_count - 1,
            written=time.time(),
        )
        written = await self.store.write(
            o.key, Write(expected_rev=o.loaded.rev, data=_ENCODE.encode(record), pop=True)
        )
        if written.status is WriteStatus.MISSING:
            raise session_not_found(request.session)
        if written.status is not WriteStatus.WRITTEN:
            raise _stale(request.session, request.etag, "newer")
        self._wake_bots(entry, o.key, record, state)
        return pb.UndoMoveResponse(
            session=self._session(o, record, state, o.loaded.rev + 1),
            undone=self._log_move(o, count, last, undone_events),
        )

    async def delete_session(
        self, request: pb.DeleteSessionRequest, token: str | None
    ) -> pb.DeleteSessionResponse:
        o = await self._open(request.session, token, required=True)
        self._recent.pop(request.session, None)
        await self.store.delete(o.key)
        return pb.DeleteSessionResponse()

    async def create_watch_ticket(
        self, request: pb.CreateWatchTicketRequest, token: str | None
    ) -> pb.CreateWatchTicketResponse:
        """A one-use ticket that watches as the caller's seat for WATCH_TICKET_SECONDS (for clients
        that cannot send Authorization with the watch, such as a browser's EventSource)."""
        o = await self._open(request.session, token, required=True)
        seat = o.seat if o.seat is not None else 0  # required: a seat token was checked
        ticket = "wt_" + secrets.token_urlsafe(24)
        await self.store.put_ticket(o.key, _ticket_digest(ticket), seat, WATCH_TICKET_SECONDS)
        return pb.CreateWatchTicketResponse(ticket=ticket, expires_in_seconds=WATCH_TICKET_SECONDS, seat=seat)

    async def watch_session(
        self, request: pb.WatchSessionRequest, token: str | None
    ) -> AsyncIterator[pb.WatchSessionResponse]:
        """The current version, then every new one, as the caller's seat sees it; ends on deletion.
        Resumed (``resume_after_etag``) at the current version, it starts with the next change."""
        updates = self.watch_session_updates(request, token)
        try:
            async for update in updates:
                if update is not None:
                    yield update
        finally:
            await updates.aclose()  # leave the watch (its subscription) now, not when collected

    async def watch_session_updates(
        self, request: pb.WatchSessionRequest, token: str | None
    ) -> AsyncGenerator[pb.WatchSessionResponse | None, None]:
        """:meth:`watch_session` for a transport that answers once the watch is open: a watch
        resumed at the current version yields None first (open, nothing to send yet)."""
        _, key = self._key(request.session)
        resume = _etag_of("resume_after_etag", request.resume_after_etag)
        if request.ticket and token is not None:
            raise malformed(
                "ticket",
                "send a watch ticket or the seat token (Authorization), not both",
                "WATCH_TICKET_WITH_TOKEN",
            )
        async with self.store.subscribe(key) as updates:
            transport = calls.transport()
            metrics.watch_opened(transport)
            try:
                seat = await self._redeem(key, request.ticket) if request.ticket else None
                o = await self._open(request.session, token, as_seat=seat)
                state = self._state(o.entry, o.record.state)
                self._wake_stalled_bots(o, state)
                last = o.loaded.rev
                if resume == last:
                    yield None
                else:
                    skipped = last - resume - 1 if resume is not None and resume < last else 0
                    yield pb.WatchSessionResponse(
                        session=self._session(o, o.record, state), versions_skipped=skipped
                    )
                async for note in updates:
                    if note == CLOSED:
                        return
                    if note == DELETED:
                        yield pb.WatchSessionResponse(deleted=True)
                        return
                    rev_text, _, data = note.partition(b":")  # the version as written: none is skipped
                    rev = int(rev_text)
                    if rev <= last:
                        continue
                    last = rev
                    yield self._watched(o, rev, data)
            finally:
                metrics.watch_closed(transport)

    async def _redeem(self, key: SessionKey, ticket: str) -> int:
        """The seat of a watch ticket, which is used up; PERMISSION_DENIED when it is not valid."""
        seat = await self.store.take_ticket(key, _ticket_digest(ticket)) if len(ticket) <= 100 else None
        if seat is None:
            raise denied(
                "WATCH_TICKET_INVALID",
                "The watch ticket is not valid for this session: it is unknown, was used already (a "
                f"ticket works once) or is older than {WATCH_TICKET_SECONDS} s. Make a new one with "
                "CreateWatchTicket.",
            )
        return seat

    async def _long_poll(self, request: pb.GetSessionRequest, token: str | None) -> pb.GetSessionResponse:
        """GetSession with ``wait_for_change``: the session once its etag differs from that one (at
        once when it already does), else after LONG_POLL_SECONDS as it is. It watches meanwhile, so
        it counts against the watch limits and holds no thread."""
        _etag_of("wait_for_change", request.wait_for_change)
        watch = self.watch_session_updates(
            pb.WatchSessionRequest(session=request.session, resume_after_etag=request.wait_for_change), token
        )
        try:
            update = await anext(watch)
            if update is None:  # still that version: wait for the next
                async with asyncio.timeout(LONG_POLL_SECONDS):
                    update = await anext(watch)
        except (TimeoutError, StopAsyncIteration):  # no change in time, or the server stops watching
            update = None
        finally:
            await watch.aclose()
        if update is None:
            return await self.get_session(pb.GetSessionRequest(session=request.session), token)
        if update.deleted:
            raise session_not_found(request.session)
        return pb.GetSessionResponse(session=update.session)

    def _watched(self, o: _Opened, rev: int, data: bytes) -> pb.WatchSessionResponse:
        """Version ``rev`` (its record as published) as ``o.seat`` sees it.

        Built once per version and seat: every watcher of this replica with that seat gets the same
        message (messages are not changed once built), so a game with many spectators costs one
        decode and one view per version, not one per watcher.
        """
        cache_key = (o.key, rev, o.seat)
        found = self._watch_views.get(cache_key)
        if found is None:
            record = _RECORD.decode(data)
            now = _Opened(o.entry, o.key, Loaded(rev, b"", record.move_count), record, o.seat)
            found = pb.WatchSessionResponse(
                session=self._session(now, record, self._state(o.entry, record.state))
            )
            _keep(self._watch_views, cache_key, found, WATCH_VIEWS)
        return found


@dataclass(frozen=True, slots=True)
class _Taken:
    """A request a creation took from its rate limit (``SessionApi._admit``): to give it back."""

    bucket: str
    per_minute: float
    burst: int
    taken: Taken


@dataclass(frozen=True, slots=True)
class _Replay:
    """A session's move log replayed: the entries as stored, the events each move made, and the
    state after the last (None when only part of a longer replay is known)."""

    raw: list[bytes]
    events: list[list[core.Event]]
    state: Any


def _keep(cache: OrderedDict[K, V], key: K, value: V, limit: int) -> None:
    """Put ``key`` in a bounded cache as its newest entry, dropping the oldest past ``limit``."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > limit:
        cache.popitem(last=False)


def _hook(game: Any, name: str) -> Any:
    """An optional per-game function: a method of the game, else a function of the game's module.

    ``view_event(event, seat) -> Event | None`` hides an event's secrets from a seat (None drops
    it), ``view_move(move, by_seat, seat) -> Move`` hides a move's, ``reveals(before, move, after)
    -> bool`` marks a move that revealed hidden information (it then cannot be undone), and
    ``drawn_outcome(state) -> Move`` names the explicit outcome a server draw in ``state`` comes to
    (a shortcut; the session checks it by applying it).
    """
    return _find_hook(game, name)


@functools.cache  # a game is registered once: each of its hooks is looked up once
def _find_hook(game: Any, name: str) -> Any:
    found = getattr(game, name, None)
    if found is None:
        found = getattr(sys.modules.get(type(game).__module__), name, None)
    return found if callable(found) else None


def _with_rng(state: Any, rng: Any) -> Any:
    """``state`` with its RNG replaced (None for a state that is neither a dataclass nor a
    NamedTuple: every registered game's is one)."""
    if dataclasses.is_dataclass(state) and not isinstance(state, type):
        return dataclasses.replace(state, rng=rng)
    if hasattr(state, "_replace"):
        return state._replace(rng=rng)
    return None


def _bot_seat(messages: Any, bot: BotRecord) -> Any:
    """A stored bot seat as a ``BotSeat`` message of ``messages`` (protobuf's or the wire's)."""
    budget = messages.BotBudget(playouts=bot.playouts, millis=bot.millis)
    level = getattr(messages, "BOT_LEVEL_" + bot.level.upper())
    return messages.BotSeat(seat=bot.seat, level=level, budget=budget)


def _bot_seed(entry: Entry[Any, Any, Any], opened: _Opened, seat: int) -> int:
    """The seed of a bot's move: drawn from the session's secret RNG seed, the version and the seat,
    so nobody can foresee it, and two replicas that think for the same version think the same move
    (the second's write is then its request id's replay, not another move)."""
    secret = entry.codec.rng_of(opened.state).seed
    digest = hashlib.sha256(b"bot\n" + secret + f"\n{opened.etag}\n{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _bot_token(seat: int) -> str:
    """What a bot seat's request ids are kept under (``_idem_field``): no seat token is shaped so."""
    return f"bot:{seat}"


def _stale(session: str, sent: str, current: str) -> LawspeakerError:
    metrics.write_conflict(session.partition(".")[0])  # a session id _key has checked
    return LawspeakerError(
        ErrorCode.STALE_STATE,
        "SESSION_ETAG_MISMATCH",
        f"The session has moved on since etag {sent!r} (now {current}): nothing was written. Get the "
        "session again and decide on the current version.",
        (FieldViolation("etag", "is not the session's current etag"),),
        {"session": session, "etag": current},
    )


def _idem_field(token: str | None, request_id: str) -> bytes:
    """Idempotency records are per seat token, so one seat cannot replay another's request. The
    store keys them by a 64-bit digest of both: two ids of one session collide with odds of about
    n^2/2^65 (1e-15 for the 204 ids remembered by default); a collision would answer the newer
    request REQUEST_ID_REUSED (its fingerprint differs), never with another request's answer."""
    body = hash_token(token or "") + b"\n" + request_id.encode()
    return hashlib.sha256(body).digest()[:REQUEST_DIGEST_BYTES]


def _fingerprint(request: pb.SessionApplyMoveRequest) -> bytes:
    """What identifies an apply besides its request id: the move and the etag it was based on."""
    body = request.move.SerializeToString(deterministic=True) + b"\n" + request.etag.encode()
    return hashlib.sha256(body).digest()[:FINGERPRINT_BYTES]


def _page_token(session: str, offset: int) -> str:
    return base64.urlsafe_b64encode(f"{session}\n{offset}".encode()).decode().rstrip("=")


def _page_offset(session: str, token: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        owner, _, offset = raw.partition("\n")
        value = int(offset)
        if owner != session or value < 0:
            raise ValueError(owner)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise malformed(
            "page_token", "is not a next_page_token of this session's move list", "INVALID_PAGE_TOKEN"
        ) from None
    return value
