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
from lawspeaker.api.rules import RulesApi, bot_budget, bot_level, game_not_found
from lawspeaker.games import core
from lawspeaker.games.core import ErrorCode, FieldViolation, LawspeakerError
from lawspeaker.observe import calls, metrics
from lawspeaker.sessions import clocks, delivery, seats, webhooks
from lawspeaker.sessions.clocks import ClockRule, ResultRecord, SeatClock
from lawspeaker.sessions.store import (
    CLOSED,
    DELETED,
    FINGERPRINT_BYTES,
    PRESENCE,
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
DEFAULT_LOBBY_PAGE = 20
MAX_LOBBY_PAGE = 100
LOBBY_LOOK_FACTOR = 4  # a listing reads at most this many entries per session it shows (stale ones)
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
BOT_RETRY_SECONDS = 0.25
"""A bot whose move the store failed to read or write tries again this often (Redis restarting, a
failover), for at most BOT_STALL_SECONDS: then the next read of the session moves it."""
BOT_PACE_SECONDS = 0.02
"""The least time between two moves of one session's bots: a session of bots plays at most 50 moves
a second, so that watch streams (and the screens behind them) follow every version, and one game
cannot hold a replica's event loop. A person's reply to a bot, and a bot's to a person, are not
delayed."""
BOT_TAKEOVER_SECONDS = 2.0
"""In a session with a clock the timers keep the game going too: where the server is to move (a bot
seat, a chance step it draws) and the version is this old, the replica whose timer fires moves it,
should the replica that wrote the version have died (the etag lets one write win if both try)."""
TIMER_POLL_SECONDS = 0.1
"""How often each replica looks for deadlines that have passed (one ZRANGEBYSCORE): a timeout fires
at most this long after its deadline, plus the bot's thinking (at most clocks.TIMEOUT_BOT_MILLIS)."""
TIMER_LEASE_MS = 10_000
"""A replica firing a timeout holds the session's lease this long at most (it gives it back when done):
should it stop meanwhile, another replica fires the timeout once the lease lapses, or at once when
it already wrote the version (the etag then refuses the second)."""
TIMER_BATCH = 64  # deadlines taken per look
PRESENCE_CACHE_SECONDS = 1.0
"""A replica reads a session's presence (one HGETALL) at most this often for the views it builds; a
seat connecting or leaving is also published to the session's watchers at once."""
PRESENCE_FLUSH_SECONDS = 0.25  # how often a replica writes what changed in its seats' presence
PRESENCE_SEEN_SECONDS = 1.0  # the seats' requests are written as last seen at most this often
PRESENCE_GRACE_SECONDS = 0.75
"""A seat whose last watch on a replica closed is written as gone after this long, unless a watch of
it opens again meanwhile (a long poll's next request, an EventSource reconnecting)."""
PRESENCE_OPEN_SECONDS = 30.0
PRESENCE_REFRESH_SECONDS = 10.0
"""A replica's open watch counts as connected until ``PRESENCE_OPEN_SECONDS`` after the replica last
wrote it, which it does every ``PRESENCE_REFRESH_SECONDS``: a replica that dies without closing its
watches leaves them connected for at most that long."""
K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True)
class Limits:
    """Quotas on sessions (all off by default for a library user; ``lawspeaker serve`` turns them
    on, see its ``--create-rate``, ``--create-burst``, ``--max-sessions`` and ``--api-keys``).

    ``create_per_minute``/``create_burst``: new sessions per client (its API key, else its address),
    as a GCRA rate limit counted in the store, so it holds across replicas; 0 turns it off.
    ``lobby_per_minute``/``lobby_burst``: listings of the lobby and claims of open seats per client,
    the same way. ``max_sessions``: live sessions per store; 0 turns the cap off. ``access``: the API keys
    creating a session needs (none configured: none needed) and the trusted proxies.
    """

    create_per_minute: float = 0.0
    create_burst: int = 1
    lobby_per_minute: float = 0.0
    lobby_burst: int = 1
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
    clock: ClockRule | None = None  # the turn clock chosen at creation
    seat_clocks: list[SeatClock] = msgspec.field(default_factory=list)  # one per seat, with a clock
    out: list[int] = msgspec.field(default_factory=list)  # seats that resigned or forfeited, in order
    result: ResultRecord | None = None  # how the session ended before its rules ended it
    host_hash: bytes = b""  # the host token's SHA-256 (b"": a session made before hosts, no host)
    names: list[str] = msgspec.field(default_factory=list)  # display names by seat ("": none)
    open: list[int] = msgspec.field(default_factory=list)  # seats in the lobby, waiting for a claim
    listed: float = 0.0  # when the session entered the lobby (its index entry's time); 0: not listed
    public: bool = False  # a seat of it was ever open in the lobby: only its host deletes it
    options: bytes = b""  # the GameOptions it was created with (a rematch takes them)
    rematch: str = ""  # the session a rematch made
    rematch_votes: list[int] = msgspec.field(default_factory=list)  # seats that asked for one
    webhook: WebhookRecord | None = None  # where this session's events are notified


class WebhookRecord(msgspec.Struct, array_like=True):
    """A session's webhook: its endpoint and the secret its deliveries are signed with."""

    url: str
    secret: str


class BotRecord(msgspec.Struct, array_like=True):
    """A seat the server plays: its level (``lawspeaker.bots.Level``) and budget (0: no limit)."""

    seat: int
    level: str
    playouts: int = 0
    millis: int = 0


class LogExtra(msgspec.Struct, array_like=True):
    """What a log entry has only in a session with a clock or for a seat's departure: kept apart so
    that an ordinary move's entry grows by one byte (its ``extra`` of None), not by these fields."""

    event: int = 0  # not a move but a seat event: its SeatEventKind (``clocks.RESIGNED``, ...)
    note: str = ""  # the event's sentence
    on_timeout: bool = False  # the bot made this move for the seat when its time ran out
    # With a clock: when the move was written and the clocks it left, so that a replay of its
    # request id answers the same time and clocks.
    written: float = 0.0
    clocks: list[SeatClock] | None = None
    name: str = ""  # a seat event's display name (the claimant's, for a claim)


_NO_EXTRA = LogExtra()


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
    extra: LogExtra | None = None  # a departure, a timeout's move, a clocked session's time

    @property
    def event(self) -> int:
        return (self.extra or _NO_EXTRA).event

    @property
    def note(self) -> str:
        return (self.extra or _NO_EXTRA).note

    @property
    def on_timeout(self) -> bool:
        return (self.extra or _NO_EXTRA).on_timeout

    @property
    def written(self) -> float:
        return (self.extra or _NO_EXTRA).written

    @property
    def clocks(self) -> list[SeatClock] | None:
        return (self.extra or _NO_EXTRA).clocks


_RECORD = msgspec.msgpack.Decoder(Record)
_LOG = msgspec.msgpack.Decoder(LogEntry)
_ENCODE = msgspec.msgpack.Encoder()


def create_rate_limit(
    per_minute: float, burst: int, remaining: int, full_in: float, policy: str = "create"
) -> access.RateLimit:
    """The ``"create"`` (or ``policy``) policy of a GCRA of ``per_minute`` on average and ``burst`` at
    once, as the RateLimit headers state it (docs/quotas.md, a decision): ``q`` is the burst, ``w``
    the seconds the whole burst takes to refill (``burst * 60 / per_minute``, rounded up), ``r`` the
    requests allowed at once now, ``t`` the seconds until the burst is full again (rounded up)."""
    return access.RateLimit(
        policy,
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
        self,
        store: SessionStore,
        rules: RulesApi | None = None,
        limits: Limits | None = None,
        webhook_config: webhooks.Config | None = None,
    ) -> None:
        self.store = store
        self.rules = rules if rules is not None else RulesApi()
        self.limits = limits if limits is not None else Limits()
        # Webhooks (``sessions.webhooks``): the server's target and allowlist; this replica's worker
        # delivers what its writes queue at once, and what other replicas left due.
        self.webhook_config = webhook_config if webhook_config is not None else webhooks.Config()
        # When this replica last kept each session counted as live (``SessionStore.touch``): at most
        # once per ``live_slack(ttl)`` seconds per session, so the count costs the hot path nothing.
        self._touched: OrderedDict[str, float] = OrderedDict()
        self._touch_every = float(live_slack(store.ttl))
        # The version this replica wrote last, per session. A revision names one immutable record
        # (revisions are never reused), so an apply on that etag needs no read: the compare-and-set
        # of the write still checks the revision, the request id and that the session exists.
        # It keeps that version's engine state too, so such an apply decodes and checks nothing.
        self._recent: OrderedDict[str, tuple[int, Record, int, Any]] = OrderedDict()
        # each with the token hash its seat has in that version (a watch ends when its seat's changed)
        self._watch_views: OrderedDict[
            tuple[SessionKey, int, int | None, float], tuple[pb.WatchSessionResponse, bytes]
        ] = OrderedDict()
        # The last replay of each session's log (the log keeps moves, not events): a later read
        # replays only the moves made since, so paging through a long game's log, or a retry of
        # its last request id, costs an apply per new move, not per move of the game.
        self._replays: OrderedDict[SessionKey, _Replay] = OrderedDict()
        # The sessions whose bot seats this replica is moving now (one task per session), and those
        # written again while their task ran (it looks once more before it ends).
        self._driving: dict[str, asyncio.Task[None]] = {}
        self._woken: set[str] = set()
        # Timeouts: every replica looks for passed deadlines (``_run_timers``) and fires each under
        # the session's lease; presence: what this replica's watches and requests show of the seats,
        # written in batches (``_run_presence``), and what it last read of each session's.
        self.replica = secrets.token_hex(6)
        self._background: list[asyncio.Task[None]] = []
        self._stop_background: asyncio.Event | None = None
        self._firing: dict[str, asyncio.Task[None]] = {}
        self._watching: collections.Counter[tuple[SessionKey, int]] = collections.Counter()
        self._closing: dict[tuple[SessionKey, int], float] = {}  # monotonic time the last watch closed
        self._announced: dict[tuple[SessionKey, int], float] = {}  # monotonic time its open was written
        self._seen: dict[tuple[SessionKey, int], float] = {}  # last requests, not yet written
        self._seen_at = 0.0
        self._presence_read: OrderedDict[str, _Presence] = OrderedDict()
        self._presence_reading: dict[str, asyncio.Future[_Presence]] = {}
        self._courier = delivery.Courier(store, self.webhook_config, self._webhook_rev, self.replica)

    def start(self) -> None:
        """Starts this replica's timer and presence tasks (``serve`` calls it; a session call starts
        them too, so a library user gets them without asking)."""
        if self._background:
            return
        loop = asyncio.get_running_loop()
        self._stop_background = asyncio.Event()
        self._background = [
            loop.create_task(self._run_timers()),
            loop.create_task(self._run_presence()),
            loop.create_task(self._courier.run(self._stop_background)),
        ]

    async def _pause(self, seconds: float) -> bool:
        """Waits ``seconds`` between two rounds of a background task; False once it is to stop."""
        stop = self._stop_background
        if stop is None or stop.is_set():
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), seconds)
        return not stop.is_set()

    async def _stop_tasks(self) -> None:
        """Stops the timer and presence tasks between two store calls (a call cancelled midway can
        leave a client's connection unusable), cancelling only what does not stop within 2 s."""
        if self._stop_background is not None:
            self._stop_background.set()
        tasks = [*self._background, *self._firing.values()]
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=2.0)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        self._background = []

    def shutdown(self) -> None:
        """Ends every watch stream, so a graceful shutdown does not wait for them, and stops the bots
        (a bot whose move was not written is moved by the next replica that reads its session) and
        the timers (another replica fires their deadlines)."""
        self.store.stop_watchers()
        for task in list(self._driving.values()):
            task.cancel()
        if self._stop_background is not None:
            self._stop_background.set()  # ``close`` waits for them

    async def close(self) -> None:
        await self._stop_tasks()
        await self._courier.close()
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
            if record.host_hash and hmac.compare_digest(digest, record.host_hash):
                if required:
                    raise denied(
                        "HOST_TOKEN_NOT_A_SEAT",
                        "The host token does not act for a seat: send the seat's own token (the host "
                        "may reissue it with ManageSeat).",
                    )
                return None  # the host looks on as a spectator
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
        seat = self._seat(record, token, True)
        if seat is not None:
            self._seen[(key, seat)] = time.time()
        return _Opened(entry, key, Loaded(rev, b"", log_length), record, seat, state)

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
        if seat is not None:
            self._seen[(key, seat)] = time.time()
            if not self._background:
                self.start()
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
                metrics.webhooks_pending(await self.store.webhooks_pending())

    async def _admit(self, key: SessionKey) -> _Taken | None:
        """The quotas a new session must pass: an API key if any is configured, the caller's rate
        of creation (its API key's own allowance, else the service's), and the cap on live sessions
        (which counts it when admitted). The state of the rate it took from is left for the
        transport (``access.note_rate_limit``: the RateLimit headers, on the answer or the refusal).
        The request taken from the rate limit, if one was: given back (``_undo_admission``) when
        the creation is refused after all, here by the cap or later by the store."""
        limits = self.limits
        caller = self._caller()
        per_minute, burst = limits.create_per_minute, limits.create_burst
        own = caller.allowance
        if own is not None:
            per_minute = per_minute if own.per_minute is None else own.per_minute
            burst = burst if own.burst is None else own.burst
        token: _Taken | None = None
        if per_minute > 0:
            bucket = "create:" + caller.quota_key
            taken = await self._take_rate(
                bucket, per_minute, burst, "create", "SESSION_CREATE_RATE_LIMITED", "new sessions"
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

    def _caller(self) -> access.Caller:
        """Who calls, for the per-client quotas: the transports identify callers; without one (a
        library call) only API keys are enforced. UNAUTHENTICATED when a key is required and none
        came."""
        limits = self.limits
        caller = access.CALLER.get()
        if caller is None or (limits.access.keys_required and caller.api_key is None):
            limits.access.key_name(None, required=True)
            caller = access.UNKNOWN_CALLER
        return caller

    async def _take_rate(
        self, bucket: str, per_minute: float, burst: int, policy: str, reason: str, what: str
    ) -> Taken:
        """One request taken from the rate limit ``bucket`` (its state noted for the RateLimit
        headers under ``policy``), or RESOURCE_EXHAUSTED ``reason`` saying when to try again."""
        taken = await self.store.take(bucket, per_minute, burst)
        access.note_rate_limit(create_rate_limit(per_minute, burst, taken.remaining, taken.full_in, policy))
        wait = taken.wait
        if wait > 0:
            raise LawspeakerError(
                ErrorCode.RESOURCE_EXHAUSTED,
                reason,
                f"Too many {what} from this client: at most {burst} at once and {per_minute:g} a "
                f"minute. Try again in {max(wait, 0.001):.3g} s.",
                metadata={"perMinute": f"{per_minute:g}", "burst": str(burst)},
                retry_after=wait,
            )
        return taken

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
        presence: _Presence | None = None,
    ) -> Any:
        """The session as the caller's seat sees it: a protobuf ``Session``, or one over the messages
        of ``api`` (the wire ones) when given. ``full`` is ``state`` already encoded, if it is;
        ``presence`` what this replica knows of who is connected (``_presence``).

        A write's answer (and its request id's replay) is the version as written, the same bytes
        every time: it has no presence."""
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
        now = time.time()
        if record.clock is not None:  # part of the version: a retried write answers the same time
            fields["update_time"] = _rfc3339(record.written)
        fields["seats"] = self._seat_statuses(messages, o.key, record, now, presence)
        rule = record.clock
        if rule is not None:
            fields["clock"] = _clock_message(messages, rules.m, rule)
            due = clocks.next_deadline(rule, record.seat_clocks)
            if due is not None:
                fields["deadline"] = _rfc3339(due[0])
        if record.result is not None or outcome is not None:
            fields["game_over"] = True
            fields["result"] = _result_message(messages, record, outcome)
        if _unclaimed(record):
            fields["waiting_for_players"] = True
        if record.rematch:
            fields["rematch"] = record.rematch
        if record.rematch_votes:
            fields["rematch_requested"] = list(record.rematch_votes)
        if record.host_hash:
            fields["has_host"] = True
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

    def _seat_statuses(
        self, messages: Any, key: SessionKey, record: Record, now: float, presence: _Presence | None
    ) -> list[Any]:
        """Every seat's clock, presence and standing, for a view."""
        rule, out = record.clock, record.out
        statuses = []
        for seat in range(record.players):
            fields: dict[str, Any] = {"seat": seat}
            if presence is not None:
                connected, seen = presence.seat(seat, now)
                if self._watching.get((key, seat)):
                    connected, seen = True, now
                seen = max(seen, self._seen.get((key, seat), 0.0))
                if connected:
                    fields["connected"] = True
                if seen:
                    fields["last_seen"] = _rfc3339(float(int(seen)))
            if seat in out:
                fields["out"] = True
            fields["role"] = getattr(messages, _role_name(record, seat))
            if seat < len(record.names) and record.names[seat]:
                fields["display_name"] = record.names[seat]
            if rule is not None and seat < len(record.seat_clocks):
                clock = record.seat_clocks[seat]
                fields["time_left_seconds"] = round(clocks.time_left(rule, clock), 3)
                at = clocks.deadline(rule, clock)
                if at is not None:
                    fields["deadline"] = _rfc3339(at)
                passed = at is not None and at <= (now if presence is not None else record.written)
                if clock.timed_out or (rule.on_timeout == clocks.NOTHING and passed):
                    fields["timed_out"] = True
            statuses.append(messages.SeatStatus(**fields))
        return statuses

    def _connected(self, key: SessionKey, players: int, presence: _Presence) -> list[bool]:
        """Which seats a view would show connected (what a presence change re-sends a watch for)."""
        now = time.time()
        return [bool(self._watching.get((key, s))) or presence.seat(s, now)[0] for s in range(players)]

    async def _presence(self, key: SessionKey, newer_than: float = 0.0) -> _Presence:
        """The session's presence as last read, read again when older than PRESENCE_CACHE_SECONDS
        (or than ``newer_than``, monotonic: a watch told of a change). Calls that need it at once
        share one read; a failing read shows nobody connected rather than failing the call."""
        found = self._presence_read.get(key.session)
        now = time.monotonic()
        if found is not None and now - found.read_at < PRESENCE_CACHE_SECONDS and found.read_at >= newer_than:
            return found
        reading = self._presence_reading.get(key.session)
        if reading is None:
            reading = asyncio.get_running_loop().create_future()
            self._presence_reading[key.session] = reading
            got = found if found is not None else _NO_PRESENCE
            try:
                got = _Presence(await self.store.read_presence(key), time.monotonic())
                _keep(self._presence_read, key.session, got, RECENT_SESSIONS)
            except LawspeakerError:
                pass
            finally:
                del self._presence_reading[key.session]
                reading.set_result(got)
            return got
        return await asyncio.shield(reading)

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

    @staticmethod
    def _seat_rule(o: _Opened, token: str | None) -> None:
        """A session ended by a resignation or a timeout takes no more moves; a seat whose person left
        (resigned, forfeited, or handed it to a bot) acts no more through its token."""
        record = o.record
        if record.result is not None:
            raise refused(
                "SESSION_OVER",
                f"The session is over: {record.result.summary} No more moves are taken.",
                "session",
            )
        if o.seat is None or _is_bot_token(token):
            return
        if o.seat in record.out or any(b.seat == o.seat for b in record.bots):
            how = "resigned and is out of the game" if o.seat in record.out else "was handed to a bot"
            raise refused(
                "SEAT_RESIGNED",
                f"Seat {o.seat} {how}: a bot plays it now. Its token still watches the game, but no "
                "longer acts.",
                "session",
            )

    def _turn_rule(self, o: _Opened, state: Any) -> None:
        g = o.entry.game
        if g.outcome(state) is not None:
            return  # core.validate reports GAME_OVER
        waiting = _unclaimed(o.record)
        if waiting:
            raise refused(
                "WAITING_FOR_PLAYERS",
                f"The game has not started: seat(s) {', '.join(map(str, waiting))} have no player yet. "
                "Nothing is played until every seat has one (ClaimSeat, or the host's ManageSeat).",
                "session",
            )
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
                # the seats as numbers, for a client that names them in its own words (the web app)
                metadata={"seat": str(o.seat), "toAct": ",".join(str(s) for s in to_act.players)},
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
            if past.event:  # a seat's departure: nothing moved
                yield state, []
                continue
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
        if entry.event:
            seat = entry.seat if entry.seat is not None else 0
            happened = pb.SeatEvent(
                seat=seat,
                kind=getattr(pb, _SEAT_EVENTS[entry.event]),
                summary=entry.note,
                display_name=(entry.extra or _NO_EXTRA).name,
            )
            return pb.SessionMove(number=number, seat=seat, seat_event=happened)
        move = game_pb2.Move.FromString(entry.resolved if entry.resolved is not None else entry.move)
        view_move = _hook(o.entry.game, "view_move")
        if view_move is not None and entry.seat != o.seat:
            engine_move = self.rules.decode_move(o.entry, move, True)
            move = self.rules.encode_move(o.entry, view_move(engine_move, entry.seat, o.seat))
        out = pb.SessionMove(
            number=number,
            move=move,
            events=self._events_for(o, events),
            chance=entry.chance,
            on_timeout=entry.on_timeout,
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
        if (not record.bots and record.clock is None) or record.result is not None or _unclaimed(record):
            return None
        g = entry.game
        if g.outcome(state) is not None:
            return None
        to_act = g.to_act(state)
        for bot in record.bots:
            if bot.seat in to_act.players:
                return bot
        if to_act.chance and not to_act.players and record.bots:
            return record.bots[0]
        if to_act.chance and record.clock is not None and not record.physical_dice:
            # a clocked session's server draws every chance step at once: it runs nobody's clock
            return BotRecord(to_act.players[0] if to_act.players else 0, bots.Level.RANDOM.value)
        return None

    def _wake_bots(self, entry: Entry[Any, Any, Any], key: SessionKey, record: Record, state: Any) -> None:
        """After this replica wrote a version: if a bot seat is to move in it, this replica moves it
        (a task per session, which goes on while bots are to move)."""
        if self._bot_due(entry, record, state) is None:
            return
        if key.session in self._driving:
            self._woken.add(key.session)  # its task looks again before it ends
            return
        self._driving[key.session] = asyncio.get_running_loop().create_task(self._drive_bots(entry, key))

    def _wake_stalled_bots(self, o: _Opened, state: Any) -> None:
        """A read of a version where a bot has been due for :data:`BOT_STALL_SECONDS` (its replica
        stopped): this replica moves the bot. The etag decides if two try: one write wins."""
        if (
            time.time() - o.record.written > BOT_STALL_SECONDS
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
        failing: float | None = None  # since when the store has failed (monotonic)
        try:
            while True:
                try:
                    if await self._bot_turn(entry, key, last):
                        last = time.monotonic()
                        failing = None
                        continue
                    return
                except LawspeakerError as err:
                    # the store failed (Redis restarting, a failover): try again for a while, from a
                    # fresh read (the write may have gone through: its request id then answers)
                    if err.code is not ErrorCode.UNAVAILABLE:
                        raise
                    failing = time.monotonic() if failing is None else failing
                    if time.monotonic() - failing > BOT_STALL_SECONDS:
                        raise
                    self._recent.pop(session, None)
                    await asyncio.sleep(BOT_RETRY_SECONDS)
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

    async def _bot_turn(self, entry: Entry[Any, Any, Any], key: SessionKey, last: float) -> bool:
        """One bot move of ``_drive_bots`` (``last``: when the task last wrote one): True when it
        wrote one and should look again, False when it is done."""
        session = key.session
        while True:
            self._woken.discard(session)
            opened = await self._bot_version(entry, key)
            due = self._bot_due(entry, opened.record, opened.state) if opened is not None else None
            if opened is None or due is None:
                if session in self._woken and opened is not None:
                    continue
                return False
            request = await self._bot_move(opened, due, f"bot.{opened.etag}")
            bot = dataclasses.replace(opened, seat=due.seat)
            await asyncio.sleep(max(0.0, last + BOT_PACE_SECONDS - time.monotonic()))
            try:
                await self._apply(bot, request, _bot_token(due.seat), False)
                written = self._recent.get(session)
                # False: another replica wrote this move first (its request id's answer came back)
                return written is not None and written[0] == opened.loaded.rev + 1
            except LawspeakerError as err:
                if err.code is ErrorCode.UNAVAILABLE:
                    raise
                if err.code is ErrorCode.STALE_STATE and session in self._woken:
                    continue  # this replica wrote the newer version: a bot may be due there
                if err.code not in (ErrorCode.STALE_STATE, ErrorCode.NOT_FOUND):
                    log.warning("bot seat %d of %s did not move: %s", due.seat, session, err.reason)
                return False

    async def _bot_move(self, o: _Opened, bot: BotRecord, request_id: str) -> pb.SessionApplyMoveRequest:
        """The move ``bot`` makes on the version ``o`` (its state decoded), thought in the bot pool (a
        busy pool makes it wait, never refuses it), as a request on that etag under ``request_id``."""
        entry = o.entry
        found = await self.rules.bot_pool.suggest(
            entry.game.id,
            o.state,
            bot.seat,
            bots.Level(bot.level),
            playouts=bot.playouts or None,
            millis=float(bot.millis) or None,
            seed=_bot_seed(entry, o, bot.seat),
            wait=True,
        )
        return pb.SessionApplyMoveRequest(
            session=o.key.session,
            move=self.rules.encode_move(entry, found.move),
            etag=o.etag,
            request_id=request_id,
        )

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

    # ------------------------------------------------------------------ timeouts and departures

    async def _run_timers(self) -> None:
        """Every TIMER_POLL_SECONDS: the deadlines that have passed, each fired under its session's
        lease (``_fire``). Every replica runs this, so the timeouts go on while any replica does."""
        pause = TIMER_POLL_SECONDS
        while await self._pause(pause):
            pause = TIMER_POLL_SECONDS
            try:
                for session in await self.store.due_deadlines(time.time(), TIMER_BATCH):
                    if session not in self._firing:
                        self._firing[session] = asyncio.get_running_loop().create_task(self._fire(session))
            except LawspeakerError as err:
                log.debug("no deadlines read: %s", err.reason)
                pause = 1.0
            except Exception:  # a bug must not stop the timers for the life of the process
                log.exception("reading the deadlines failed")
                pause = 1.0

    async def _fire(self, session: str) -> None:
        """The timeout of a session whose recorded deadline passed: under the session's lease, the
        session is read, its true deadline computed from the record (the recorded one may be a hint),
        and if it has passed the timeout's action is written on that version (the etag lets one
        write win: a late move, or another replica's timeout, and this one is then refused)."""
        lease = "timeout:" + session
        try:
            if not await self.store.take_lease(lease, self.replica, TIMER_LEASE_MS):
                return
            try:
                await self._time_out(session)
            finally:
                await self.store.drop_lease(lease, self.replica)
        except LawspeakerError as err:
            if err.code is not ErrorCode.STALE_STATE:
                log.warning("the timeout of %s did not fire: %s (%s)", session, err.reason, err)
        except Exception:
            log.exception("the timeout of %s failed", session)
        finally:
            self._firing.pop(session, None)

    async def _time_out(self, session: str) -> None:
        try:
            entry, key = self._key(session)
        except LawspeakerError:  # a game this replica no longer knows (new rules): never fires
            await self.store.forget_deadline(session)
            return
        loaded = await self.store.load(key, b"")
        if loaded is None:
            await self.store.forget_deadline(session)
            return
        record = _RECORD.decode(loaded.data)
        state = self._state(entry, record.state)
        due = self._timeout_due(record)
        if due is None or due[0] > time.time():
            at = self._timer_at(entry, record, state)
            if due is None and at is not None and at <= time.time():
                # the server is to move and the replica that wrote this version has not: this one does
                log.info(
                    "%s: the server's move is overdue by %.3f s; this replica makes it",
                    session,
                    time.time() - at,
                )
                self._remember(session, loaded.rev, record, loaded.log_length, state)  # move on this
                self._wake_bots(entry, key, record, state)
                await self.store.set_deadline(session, loaded.rev, time.time() + BOT_TAKEOVER_SECONDS)
                return
            await self.store.set_deadline(session, loaded.rev, at)  # a hint: the version's own time
            return
        at, seat = due
        o = _Opened(entry, key, loaded, record, seat, state)
        rule = record.clock
        assert rule is not None
        late = time.time() - at
        if rule.on_timeout == clocks.FORFEIT:
            await self._depart(o, state, seat, clocks.FORFEITED_ON_TIME, rule.bot_level)
        else:
            request = await self._bot_move(o, _timeout_bot(seat, rule.bot_level), f"timeout.{o.etag}.{seat}")
            await self._apply(o, request, _bot_token(seat), False, on_timeout=True)
            written = self._recent.get(session)
            if written is None or written[0] != loaded.rev + 1:
                return  # another replica wrote this timeout (its request id's answer came back)
        metrics.timeout_fired(entry.game.id, rule.on_timeout)
        log.info(
            "seat %d of %s timed out (%s), %.3f s after its deadline", seat, session, rule.on_timeout, late
        )

    async def _depart(self, o: _Opened, state: Any, seat: int, kind: int, level: str) -> tuple[Record, int]:
        """Writes a seat's departure on the version ``o``: ``clocks.LEFT_TO_BOT`` hands the seat to a
        bot; ``RESIGNED`` and ``FORFEITED_ON_TIME`` put it out of the game, which ends when at most one
        seat is left in it (that one wins), else a bot plays its pieces by the rules. The log shows
        it as an event. Returns the new record and its revision; STALE_STATE when another write came
        first."""
        record = o.record
        bot = _timeout_bot(seat, level)
        out, robots, result = list(record.out), list(record.bots), record.result
        if kind == clocks.LEFT_TO_BOT:
            robots.append(bot)
            note = f"Seat {seat} left; a bot plays the seat from now on."
        else:
            out.append(seat)
            staying = [s for s in range(record.players) if s not in out]
            verb = "resigned" if kind == clocks.RESIGNED else "ran out of time and forfeits"
            reason = clocks.RESIGNATION if kind == clocks.RESIGNED else clocks.TIMEOUT
            if len(staying) <= 1:
                won = f"seat {staying[0]} wins." if staying else "nobody is left in the game."
                note = f"Seat {seat} {verb}: {won}"
                result = ResultRecord(reason, staying, note)
            else:
                robots.append(bot)
                note = f"Seat {seat} {verb} and is out of the game; a bot plays its pieces by the rules."
        new = msgspec.structs.replace(record, out=out, bots=robots, result=result)
        new, rev = await self._write_seat_event(o, state, new, seat, kind, note)
        metrics.seat_left(o.entry.game.id, _SEAT_EVENTS[kind].removeprefix("SEAT_EVENT_KIND_").lower())
        return new, rev

    async def _write_seat_event(
        self, o: _Opened, state: Any, new: Record, seat: int, kind: int, note: str, name: str = ""
    ) -> tuple[Record, int]:
        """Writes ``new`` (the record of ``o`` with its seats changed) on the version ``o``, with a seat
        event in the log (``kind``, its sentence and display name): the clocks follow (a session
        whose last seat is claimed starts its clock; one that waits for a player stops it), and a
        bot now due moves. Returns the record as written and its revision; STALE_STATE when another
        write came first."""
        now = time.time()
        new = msgspec.structs.replace(new, written=now)
        if new.clock is not None:
            new = msgspec.structs.replace(new, seat_clocks=self._clocks_after(o.entry, new, state, now))
            await self._hint_deadline(o.key.session, o.entry, new, state)
        logged = LogEntry(
            seat=seat, move=b"", chance=False, reveal=True, extra=LogExtra(event=kind, note=note, name=name)
        )
        claimed = (seat, name) if kind == seats.CLAIMED else None
        rev = o.loaded.rev + 1
        outbox = self._outbox_for(o.entry, o.key.session, rev, new, state, o.record, state, claimed)
        written = await self.store.write(
            o.key,
            Write(
                expected_rev=o.loaded.rev,
                data=_ENCODE.encode(new),
                push=_ENCODE.encode(logged),
                outbox=outbox,
            ),
        )
        self._recent.pop(o.key.session, None)
        if written.status is WriteStatus.MISSING:
            raise session_not_found(o.key.session)
        if written.status is not WriteStatus.WRITTEN:
            raise _stale(o.key.session, o.etag, "newer")
        self._queued(o.key.session, outbox)
        self._remember(o.key.session, rev, new, o.loaded.log_length + 1, state)
        self._wake_bots(o.entry, o.key, new, state)
        await self._deadline_written(o.key.session, rev, o.entry, new, state)
        return new, rev

    async def resign_seat(self, request: pb.ResignSeatRequest, token: str | None) -> pb.ResignSeatResponse:
        actions = {
            pb.RESIGN_ACTION_UNSPECIFIED: clocks.RESIGNED,
            pb.RESIGN_ACTION_FORFEIT: clocks.RESIGNED,
            pb.RESIGN_ACTION_BOT: clocks.LEFT_TO_BOT,
        }
        kind = actions.get(request.action)
        if kind is None:
            raise malformed(
                "action",
                f"has no action numbered {request.action}: RESIGN_ACTION_FORFEIT or RESIGN_ACTION_BOT",
                "RESIGN_ACTION_INVALID",
            )
        _etag_of("etag", request.etag)
        for _ in range(8):  # without an etag: on whatever version is current, however busy
            self._recent.pop(request.session, None)
            o = await self._open(request.session, token, required=True)
            if request.etag:
                self._check_etag(o, request.etag)
            self._seat_rule(o, token)
            state = self._state(o.entry, o.record.state)
            outcome = o.entry.game.outcome(state)
            if outcome is not None:
                raise refused(
                    "SESSION_OVER",
                    f"The game is over: {outcome.summary} There is nothing to resign.",
                    "session",
                )
            level = bot_level(request.bot_level, "bot_level").value if request.bot_level else None
            if level is None:
                level = o.record.clock.bot_level if o.record.clock is not None else clocks.DEFAULT_BOT_LEVEL
            seat = o.seat if o.seat is not None else 0  # required: a seat token was checked
            try:
                record, rev = await self._depart(o, state, seat, kind, level)
            except LawspeakerError as err:
                if err.code is ErrorCode.STALE_STATE and not request.etag:
                    continue
                raise
            presence = await self._presence(o.key)
            return pb.ResignSeatResponse(session=self._session(o, record, state, rev, presence=presence))
        raise _stale(request.session, request.etag, "newer")

    # ------------------------------------------------------------------ presence

    async def _watch_began(self, key: SessionKey, seat: int) -> None:
        """A watch of ``seat`` opened on this replica: the first one is written (and announced) at
        once, unless the seat's last watch here closed within PRESENCE_GRACE_SECONDS."""
        self.start()
        slot = (key, seat)
        self._watching[slot] += 1
        if self._watching[slot] > 1 or self._closing.pop(slot, None) is not None:
            return
        now = time.time()
        self._announced[slot] = time.monotonic()
        with contextlib.suppress(LawspeakerError):  # best effort: the refresh writes it again
            await self.store.write_presence(
                key,
                {f"open:{seat}:{self.replica}": now + PRESENCE_OPEN_SECONDS, f"seen:{seat}": now},
                (),
                True,
            )

    def _watch_ended(self, key: SessionKey, seat: int) -> None:
        slot = (key, seat)
        self._watching[slot] -= 1
        if self._watching[slot] <= 0:
            del self._watching[slot]
            self._closing[slot] = time.monotonic()

    async def _run_presence(self) -> None:
        """Every PRESENCE_FLUSH_SECONDS: writes the seats whose watches here closed (announced), the
        open watches due a refresh, and, every PRESENCE_SEEN_SECONDS, the seats' last requests: one
        script per session, whatever the number of requests."""
        while await self._pause(PRESENCE_FLUSH_SECONDS):
            try:
                await self._flush_presence()
            except Exception:
                log.exception("writing presence failed")

    async def _flush_presence(self) -> None:
        mono, now = time.monotonic(), time.time()
        writes: dict[SessionKey, tuple[dict[str, float], list[str], list[bool]]] = {}

        def at(key: SessionKey) -> tuple[dict[str, float], list[str], list[bool]]:
            return writes.setdefault(key, ({}, [], [False]))

        for (key, seat), closed in list(self._closing.items()):
            if mono - closed >= PRESENCE_GRACE_SECONDS:
                del self._closing[(key, seat)]
                self._announced.pop((key, seat), None)
                put, drop, announce = at(key)
                put[f"seen:{seat}"] = now
                drop.append(f"open:{seat}:{self.replica}")
                announce[0] = True
        for (key, seat), written in list(self._announced.items()):
            if mono - written >= PRESENCE_REFRESH_SECONDS and self._watching.get((key, seat)):
                self._announced[(key, seat)] = mono
                at(key)[0].update(
                    {f"open:{seat}:{self.replica}": now + PRESENCE_OPEN_SECONDS, f"seen:{seat}": now}
                )
        if mono - self._seen_at >= PRESENCE_SEEN_SECONDS:
            self._seen_at = mono
            seen, self._seen = self._seen, {}
            for (key, seat), when in seen.items():
                put = at(key)[0]
                put[f"seen:{seat}"] = max(put.get(f"seen:{seat}", 0.0), when)
        if writes:
            results = await asyncio.gather(
                *(self.store.write_presence(k, put, drop, a[0]) for k, (put, drop, a) in writes.items()),
                return_exceptions=True,
            )
            for failed in results:
                if isinstance(failed, LawspeakerError):
                    log.debug("presence not written: %s", failed.reason)
                elif isinstance(failed, BaseException):
                    raise failed

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
        rule = _clock_rule(request.clock) if request.HasField("clock") else None
        played = {b.seat for b in robots}
        unclaimed = _open_seats(request, played)
        names = seats.display_names(list(request.display_names), request.players)
        for seat in unclaimed:
            if names[seat]:
                raise malformed(
                    f"display_names[{seat}]",
                    f"names open seat {seat}: its player names it as they claim it",
                    "DISPLAY_NAME_FOR_OPEN_SEAT",
                )
        tokens = {
            seat: secrets.token_urlsafe(24)
            for seat in range(request.players)
            if seat not in played and seat not in unclaimed
        }
        host = secrets.token_urlsafe(24)
        webhook = await self._webhook(request)
        data = self.rules.encode_state(entry, state).SerializeToString()
        record = Record(
            game=entry.game.id,
            players=request.players,
            physical_dice=request.physical_dice,
            # a bot seat, an open seat have no token: an empty hash matches none (hash_token: 32 bytes)
            token_hashes=[hash_token(tokens[i]) if i in tokens else b"" for i in range(request.players)],
            initial=data,
            state=data,
            move_count=0,
            bots=robots,
            written=time.time(),
            clock=rule,
            host_hash=hash_token(host),
            names=names if any(names) else [],
            open=sorted(unclaimed),
            public=bool(unclaimed),
            options=request.options.SerializeToString() if request.HasField("options") else b"",
            webhook=webhook,
        )
        opened, record = await self._store_new(entry, state, record)
        return pb.CreateSessionResponse(
            session=self._session(opened, record, state),
            seat_tokens=[pb.SeatToken(seat=i, token=t) for i, t in tokens.items()],
            host_token=host,
            webhook_secret=webhook.secret if webhook is not None else "",
        )

    async def _store_new(
        self, entry: Entry[Any, Any, Any], state: Any, record: Record
    ) -> tuple[_Opened, Record]:
        """Stores a new session (``record``, holding ``state``) under a new id, past the quotas:
        its clocks started, listed in the lobby when a seat is open, its first bot move begun."""
        if record.clock is not None:
            running = self._running(entry, record, state)
            record = msgspec.structs.replace(
                record, seat_clocks=clocks.start(record.clock, record.players, running, record.written)
            )
        session = f"{entry.game.id}.{secrets.token_urlsafe(16)}"
        if record.open:
            record = msgspec.structs.replace(record, listed=record.written)
        key = SessionKey(session, entry.game.rules_version)
        took = await self._admit(key)
        try:
            if record.open:  # listed before it exists: a listing skips (and drops) an entry of nothing
                await self.store.lobby_add(_lobby_entry(session, record))
            await self._hint_deadline(session, entry, record, state)
            outbox = self._outbox_for(entry, session, 1, record, state)
            rev = await self.store.create(key, _ENCODE.encode(record), outbox)
        except LawspeakerError:  # e.g. Redis full (OOM): the refused creation must not count
            await self._undo_admission(key, took)
            raise
        self._queued(session, outbox)
        await self._deadline_written(session, rev, entry, record, state)
        metrics.session_created(entry.game.id)
        _keep(self._touched, session, time.monotonic(), RECENT_SESSIONS)
        self._wake_bots(entry, key, record, state)
        return _Opened(entry, key, Loaded(rev, b"", 0), record, None), record

    def _running(self, entry: Entry[Any, Any, Any], record: Record, state: Any) -> list[int]:
        """The seats whose clocks run in ``state``: the people's seats to act, unless the session is
        over or waits for a chance step (drawn at once by the server, or thrown with physical dice)."""
        g = entry.game
        if record.clock is None or record.result is not None or g.outcome(state) is not None:
            return []
        to_act = g.to_act(state)
        if to_act.chance or _unclaimed(record):
            return []
        played = {b.seat for b in record.bots}
        return [s for s in to_act.players if s not in played]

    def _clocks_after(
        self,
        entry: Entry[Any, Any, Any],
        record: Record,
        state: Any,
        now: float,
        mover: int | None = None,
        own: bool = True,
        undoer: int | None = None,
    ) -> list[SeatClock]:
        """``record``'s clocks once it holds ``state`` (see ``clocks.advance``)."""
        if record.clock is None:
            return record.seat_clocks
        running = self._running(entry, record, state)
        return clocks.advance(record.clock, record.seat_clocks, running, now, mover, own, undoer)

    @staticmethod
    def _timeout_due(record: Record) -> tuple[float, int] | None:
        """The deadline a timer must act on (and its seat): none when the clock's timeout does nothing."""
        rule = record.clock
        if rule is None or rule.on_timeout == clocks.NOTHING or record.result is not None:
            return None
        return clocks.next_deadline(rule, record.seat_clocks)

    def _timer_at(self, entry: Entry[Any, Any, Any], record: Record, state: Any) -> float | None:
        """When a replica's timer must look at a clocked session's version: its timeout deadline, or,
        where the server is to move (a bot seat, a chance step it draws), BOT_TAKEOVER_SECONDS after
        the version was written, in case the replica that wrote it (and moves the bot) died."""
        due = self._timeout_due(record)
        if due is not None:
            return due[0]
        bot = self._bot_due(entry, record, state) if record.clock is not None else None
        if bot is not None:  # a bot that thinks long is given its time besides
            return record.written + BOT_TAKEOVER_SECONDS + bot.millis / 1000
        return None

    async def _hint_deadline(
        self, session: str, entry: Entry[Any, Any, Any], after: Record, state: Any
    ) -> None:
        """Before writing ``after`` (holding ``state``): when its timer is due recorded, if earlier
        than the one recorded (see ``SessionStore.hint_deadline``), so that a replica that dies
        between the write and ``_deadline_written`` leaves a timer that fires."""
        at = self._timer_at(entry, after, state)
        if at is not None:
            await self.store.hint_deadline(session, at)

    async def _deadline_written(
        self, session: str, rev: int, entry: Entry[Any, Any, Any], after: Record, state: Any
    ) -> None:
        """After writing version ``rev``: when its timer is due recorded for the timers (best effort:
        the hint made before the write fires early should this fail, and the timer corrects it)."""
        if after.clock is None:
            return
        self.start()
        try:
            await self.store.set_deadline(session, rev, self._timer_at(entry, after, state))
        except LawspeakerError as err:
            log.warning(
                "the deadline of %s was not recorded (%s): its timer corrects it", session, err.reason
            )

    # ------------------------------------------------------------------ webhooks

    def _awaited(self, entry: Entry[Any, Any, Any], record: Record, state: Any) -> tuple[int, ...]:
        """The seats the server waits on a person for in ``state`` (``seat.to_act``): a person's seats
        to act, a chance step's thrower included when the server does not draw it itself; none while
        the server is to move (a bot, a draw it makes at once), the game is over or waits for players."""
        g = entry.game
        if record.result is not None or g.outcome(state) is not None or _unclaimed(record):
            return ()
        if self._bot_due(entry, record, state) is not None:
            return ()
        played = {b.seat for b in record.bots}
        return tuple(s for s in g.to_act(state).players if s not in played)

    @staticmethod
    def _ending(
        entry: Entry[Any, Any, Any], record: Record, state: Any
    ) -> tuple[str, tuple[int, ...]] | None:
        """How the session has ended by ``record`` and ``state`` (summary, winners); None while it goes on."""
        if record.result is not None:
            return record.result.summary, tuple(record.result.winners)
        outcome = entry.game.outcome(state)
        return None if outcome is None else (outcome.summary, tuple(outcome.winners))

    def _change(
        self,
        entry: Entry[Any, Any, Any],
        session: str,
        rev: int,
        record: Record,
        state: Any,
        before: tuple[Record, Any] | None = None,
        claimed: tuple[int, str] | None = None,
        rematch: str = "",
    ) -> webhooks.Change:
        """Version ``rev`` of ``session`` (``record`` holding ``state``), written on ``before`` (the
        record and state it replaced; None for a creation), as its webhook events see it."""
        deadline = None
        rule = record.clock
        if rule is not None and record.result is None:
            due = clocks.next_deadline(rule, record.seat_clocks)
            if due is not None:
                at, seat = due
                deadline = (seat, at, at - record.seat_clocks[seat].since)
        ended = self._ending(entry, record, state)
        if ended is not None and before is not None and self._ending(entry, *before) is not None:
            ended = None  # it ended earlier
        return webhooks.Change(
            session=session,
            game=entry.game.id,
            rev=rev,
            at=record.written,
            to_act=self._awaited(entry, record, state),
            before_to_act=None if before is None else self._awaited(entry, *before),
            claimed=claimed,
            ended=ended,
            names=tuple(record.names),
            deadline=deadline,
            webhook=record.webhook,
            rematch=rematch,
        )

    def _outbox(self, change: webhooks.Change) -> bytes:
        """What the write of ``change`` appends to the session's outbox (``Write.outbox``): b"" when
        the session has no webhook and the server none either, or the version makes no event."""
        return webhooks.outbox(change, self.webhook_config)

    def _notifies(self, record: Record) -> bool:
        """Whether a version of this session has anyone to notify (else no event is even derived)."""
        return record.webhook is not None or bool(self.webhook_config.url)

    def _outbox_for(
        self,
        entry: Entry[Any, Any, Any],
        session: str,
        rev: int,
        record: Record,
        state: Any,
        before: Record | None = None,
        before_state: Any = None,
        claimed: tuple[int, str] | None = None,
        rematch: str = "",
    ) -> bytes:
        """``_outbox`` of the version written on ``before`` (``before_state`` decoded from it when not
        given), or b"" at once when nobody is notified. ``claimed`` and ``rematch`` as ``_change``'s."""
        if not self._notifies(record):
            return b""
        prior = None
        if before is not None:
            prior = (before, before_state if before_state is not None else self._state(entry, before.state))
        return self._outbox(self._change(entry, session, rev, record, state, prior, claimed, rematch))

    def _queued(self, session: str, outbox: bytes) -> None:
        """After a write that appended ``outbox``: this replica delivers its events now (off the move's
        path: the worker's task)."""
        if outbox:
            self.start()
            self._courier.kick(session)

    async def _webhook_rev(self, session: str) -> int | None:
        """The session's revision now (None when it is gone), for a ``clock.running_out`` due."""
        try:
            _, key = self._key(session)
        except LawspeakerError:
            return None
        loaded = await self.store.load(key)
        return None if loaded is None else loaded.rev

    async def _webhook(self, request: pb.CreateSessionRequest) -> WebhookRecord | None:
        """CreateSession's webhook, checked (its host resolved), with a new secret; None without one."""
        if not request.HasField("webhook"):
            return None
        try:
            await delivery.check(request.webhook.url, self.webhook_config.allow)
        except webhooks.WebhookRefused as err:
            if err.reason == webhooks.HOST_NOT_ALLOWED:
                raise malformed("webhook.url", err.message, "WEBHOOK_HOST_NOT_ALLOWED") from None
            raise malformed("webhook.url", err.message, "WEBHOOK_URL_INVALID") from None
        return WebhookRecord(request.webhook.url, webhooks.new_secret())

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
        presence = await self._presence(o.key)
        return pb.GetSessionResponse(session=self._session(o, o.record, state, presence=presence))

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
        acts = (
            o.record.result is None
            and not any(b.seat == o.seat for b in o.record.bots)
            and not _unclaimed(o.record)
        )
        if (
            o.seat is not None
            and acts
            and (o.seat in to_act.players or (to_act.chance and not to_act.players))
        ):
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
            self._seat_rule(o, token)
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
        logged = [_LOG.decode(b) for b in raw]
        moves = sum(1 for e in logged if not e.event)  # a departure is logged, not a move
        made_by = logged[-1]  # the move the request made: its time and clocks, as answered then
        record = msgspec.structs.replace(
            o.record,
            move_count=moves,
            written=made_by.written or o.record.written,
            seat_clocks=made_by.clocks if made_by.clocks is not None else o.record.seat_clocks,
        )
        full = self.rules.encode_state(o.entry, state)
        return pb.SessionApplyMoveResponse(
            session=self._session(o, record, state, made.rev, full), events=self._events_for(o, events)
        )

    async def _apply(
        self,
        o: _Opened,
        request: pb.SessionApplyMoveRequest,
        token: str | None,
        as_wire: bool,
        on_timeout: bool = False,
    ) -> Any:
        """Checks and makes the move on the version ``o``; one compare-and-set writes it. The answer
        is a protobuf message, or a wire one when ``as_wire``. ``on_timeout``: the bot's move for a
        seat whose time ran out (its clock is then marked timed out)."""
        entry, g = o.entry, o.entry.game
        self._check_etag(o, request.etag)
        state = o.state if o.state is not None else self._state(entry, o.record.state)
        move = self.rules.decode_move(entry, request.move, request.HasField("move"))
        self._seat_rule(o, token)
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
            extra=LogExtra(on_timeout=True) if on_timeout else None,
        )
        full = self.rules.encode_state(entry, new_state)
        now = time.time()
        record = msgspec.structs.replace(
            o.record, state=full.SerializeToString(), move_count=o.record.move_count + 1, written=now
        )
        if record.clock is not None:
            # a person's move stops their clock; the server's (a bot seat's, a draw) charges nobody
            mover = None if _is_bot_token(token) and not on_timeout else o.seat
            clocked = self._clocks_after(entry, record, new_state, now, mover, not on_timeout)
            record = msgspec.structs.replace(record, seat_clocks=clocked)
            log_entry.extra = LogExtra(on_timeout=on_timeout, written=now, clocks=clocked)
            await self._hint_deadline(request.session, entry, record, new_state)
        idem = _idem_field(token, request.request_id) if request.request_id and token else b""
        outbox = self._outbox_for(
            entry, request.session, o.loaded.rev + 1, record, new_state, o.record, state
        )
        written = await self.store.write(
            o.key,
            Write(
                expected_rev=o.loaded.rev,
                data=_ENCODE.encode(record),
                push=_ENCODE.encode(log_entry),
                idem_field=idem,
                fingerprint=_fingerprint(request) if idem else b"",
                outbox=outbox,
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
        self._queued(request.session, outbox)
        self._wake_bots(entry, o.key, record, new_state)
        await self._deadline_written(request.session, o.loaded.rev + 1, entry, record, new_state)
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
        self._seat_rule(o, token)
        if last.event:
            raise refused(
                "UNDO_AFTER_SEAT_EVENT",
                f"The last entry of the log is not a move: {last.note} It cannot be taken back.",
                "session",
            )
        if last.on_timeout:
            raise refused(
                "UNDO_NOT_YOURS",
                f"The last move was the bot's, made for seat {last.seat} when its time ran out: it "
                "cannot be taken back.",
                "session",
            )
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
        if record.clock is not None:
            clocked = self._clocks_after(entry, record, state, record.written, undoer=o.seat)
            record = msgspec.structs.replace(record, seat_clocks=clocked)
            await self._hint_deadline(request.session, entry, record, state)
        outbox = self._outbox_for(entry, request.session, o.loaded.rev + 1, record, state, o.record)
        written = await self.store.write(
            o.key, Write(expected_rev=o.loaded.rev, data=_ENCODE.encode(record), pop=True, outbox=outbox)
        )
        if written.status is WriteStatus.MISSING:
            raise session_not_found(request.session)
        if written.status is not WriteStatus.WRITTEN:
            raise _stale(request.session, request.etag, "newer")
        self._queued(request.session, outbox)
        self._wake_bots(entry, o.key, record, state)
        await self._deadline_written(request.session, o.loaded.rev + 1, entry, record, state)
        return pb.UndoMoveResponse(
            session=self._session(o, record, state, o.loaded.rev + 1),
            undone=self._log_move(o, count, last, undone_events),
        )

    async def delete_session(
        self, request: pb.DeleteSessionRequest, token: str | None
    ) -> pb.DeleteSessionResponse:
        """The host deletes a session, and so does any seat's token unless a seat of the session was
        ever open in the lobby: whoever claims an open seat is a stranger to the others, who must
        not end their game."""
        o = await self._open(request.session, token)
        if not self._is_host(o.record, token):
            if o.record.public or (token is None and o.record.host_hash):
                self._host_rule(o, token, "delete a session whose seats were open in the lobby")
            if o.seat is None:
                self._seat(o.record, token, True)  # no token: SEAT_TOKEN_REQUIRED
        self._recent.pop(request.session, None)
        await self.store.delete(o.key)
        if o.record.listed:
            await self.store.lobby_remove([_lobby_entry(o.key.session, o.record)])
        return pb.DeleteSessionResponse()

    # ------------------------------------------------------------------ host, lobby, rematch

    @staticmethod
    def _is_host(record: Record, token: str | None) -> bool:
        return bool(token and record.host_hash) and hmac.compare_digest(
            hash_token(token or ""), record.host_hash
        )

    def _host_rule(self, o: _Opened, token: str | None, what: str) -> None:
        if token is None:
            raise denied(
                "HOST_TOKEN_REQUIRED",
                f"Only the session's host may {what}: send the host token CreateSession returned as "
                "'authorization: Bearer <token>'.",
            )
        if not self._is_host(o.record, token):
            why = "" if o.record.host_hash else " (this session has none: it was made before hosts)"
            raise denied(
                "HOST_TOKEN_INVALID", f"Only the session's host may {what}, with the host token{why}."
            )

    async def _lobby_quota(self) -> None:
        """A listing or a claim counts against the caller's lobby rate (``Limits.lobby_per_minute``)
        and needs an API key where creating a session does."""
        caller = self._caller()
        per_minute, burst = self.limits.lobby_per_minute, self.limits.lobby_burst
        if per_minute > 0:
            await self._take_rate(
                "lobby:" + caller.quota_key,
                per_minute,
                burst,
                "lobby",
                "LOBBY_RATE_LIMITED",
                "lobby requests (listings and claims)",
            )

    async def list_sessions(
        self, request: pb.ListSessionsRequest, token: str | None
    ) -> pb.ListSessionsResponse:
        """The lobby: sessions with an open seat, in their public views, by game, players and the time
        they were listed. The index is a hint kept beside the sessions (on a cluster it lives in
        another slot): an entry whose session is gone or no longer open is skipped and dropped."""
        if request.game and request.game not in self.rules.registry:
            raise game_not_found(request.game)
        if not 0 <= request.players <= 99:
            raise malformed("players", "must be a number of players, or 0 for any", "PLAYERS_OUT_OF_RANGE")
        if request.page_size < 0:
            raise malformed("page_size", "must not be negative", "INVALID_PAGE_SIZE")
        size = min(request.page_size or DEFAULT_LOBBY_PAGE, MAX_LOBBY_PAGE)
        after = _lobby_after(request) if request.page_token else ""
        await self._lobby_quota()
        games = sorted(self.rules.registry) if request.players and not request.game else [request.game]
        shown: list[pb.Session] = []
        looked, budget, more = 0, size * LOBBY_LOOK_FACTOR, False
        for i, game in enumerate(games):
            low, high = seats.lobby_bounds(game, request.players)
            if after and after >= high:
                continue
            while len(shown) < size and looked < budget:
                want = size - len(shown)
                batch = await self.store.lobby_range(low, high, after, want)
                if not batch:
                    break
                looked += len(batch)
                await self._lobby_views(batch, shown)
                after = batch[-1]
                if len(batch) < want:
                    break  # this range ran out
            if len(shown) >= size or looked >= budget:
                more = await self._lobby_more(games[i:], request.players, after)
                break
        return pb.ListSessionsResponse(
            sessions=shown, next_page_token=_lobby_token(request, after) if more else ""
        )

    async def _lobby_more(self, games: list[str], players: int, after: str) -> bool:
        """Whether the lobby holds an entry after ``after`` in the ranges of ``games``: a full page
        gets a next page token only then, so the last page says it is the last."""
        for game in games:
            low, high = seats.lobby_bounds(game, players)
            if after < high and await self.store.lobby_range(low, high, after, 1):
                return True
        return False

    async def _lobby_views(self, batch: list[str], shown: list[pb.Session]) -> None:
        """The public views of the sessions of ``batch`` (lobby entries) that still wait for players,
        appended to ``shown``; the entries of the others are dropped from the index."""
        keys: list[tuple[Entry[Any, Any, Any], SessionKey] | None] = []
        for item in batch:
            try:
                keys.append(self._key(seats.entry_session(item)))
            except (LawspeakerError, IndexError):
                keys.append(None)  # a game this replica no longer knows
        found = await self.store.peek([k[1] for k in keys if k is not None])
        got = iter(found)
        stale: list[str] = []
        for item, key in zip(batch, keys, strict=True):
            held = next(got) if key is not None else None
            if key is None or held is None:
                stale.append(item)
                continue
            record = _RECORD.decode(held[1])
            if not record.open or _lobby_entry(key[1].session, record) != item or record.result is not None:
                stale.append(item)
                continue
            state = self._state(key[0], record.state)
            if key[0].game.outcome(state) is not None:
                stale.append(item)
                continue
            shown.append(
                self._session(_Opened(key[0], key[1], Loaded(held[0], b"", 0), record, None), record, state)
            )
        if stale:
            with contextlib.suppress(LawspeakerError):  # the next listing tries again
                await self.store.lobby_remove(stale)

    async def claim_seat(self, request: pb.ClaimSeatRequest, token: str | None) -> pb.ClaimSeatResponse:
        """Claims an open seat: first come, first served. Each try writes on the version it read, so of
        two claims of the last open seat one writes and the other, trying again, finds it taken."""
        name = seats.display_name(request.display_name, "display_name", True)
        await self._lobby_quota()
        for _ in range(8):
            self._recent.pop(request.session, None)
            o = await self._open(request.session, None)
            record = o.record
            state = self._state(o.entry, record.state)
            self._not_over(o, state, "claim a seat in")
            if request.HasField("seat"):
                seat = seats.seat_in("seat", request.seat, record.players)
                if seat not in record.open:
                    raise refused(
                        "SEAT_NOT_OPEN", f"Seat {seat} is not open: {_seat_taken(record, seat)}", "seat"
                    )
            elif record.open:
                seat = record.open[0]
            else:
                raise refused(
                    "SEAT_NOT_OPEN", "No seat of this session is open: every seat has its player.", "session"
                )
            issued = secrets.token_urlsafe(24)
            hashes = list(record.token_hashes)
            hashes[seat] = hash_token(issued)
            names = _names(record)
            names[seat] = name
            still = [s for s in record.open if s != seat]
            new = msgspec.structs.replace(
                record, token_hashes=hashes, names=names, open=still, listed=record.listed if still else 0.0
            )
            note = f"{name} took seat {seat}."
            try:
                new, rev = await self._write_seat_event(o, state, new, seat, seats.CLAIMED, note, name)
            except LawspeakerError as err:
                if err.code is ErrorCode.STALE_STATE:
                    continue
                raise
            if not still:
                await self._unlist(o.key.session, record)
            metrics.seat_claimed(o.entry.game.id)
            mine = _Opened(o.entry, o.key, Loaded(rev, b"", 0), new, seat)
            return pb.ClaimSeatResponse(
                session=self._session(mine, new, state, rev), seat_token=pb.SeatToken(seat=seat, token=issued)
            )
        raise _stale(request.session, "", "newer")

    async def _unlist(self, session: str, record: Record) -> None:
        """Takes a session that no longer waits for players out of the lobby (best effort: a listing
        drops an entry it finds stale)."""
        if record.listed:
            with contextlib.suppress(LawspeakerError):
                await self.store.lobby_remove([_lobby_entry(session, record)])

    @staticmethod
    def _not_over(o: _Opened, state: Any, what: str) -> None:
        summary = o.record.result.summary if o.record.result is not None else None
        outcome = o.entry.game.outcome(state)
        if outcome is not None:
            summary = outcome.summary
        if summary is not None:
            raise refused(
                "SESSION_OVER", f"The game is over: {summary} There is no seat to {what} it.", "session"
            )

    async def manage_seat(self, request: pb.ManageSeatRequest, token: str | None) -> pb.ManageSeatResponse:
        kinds = {
            pb.SEAT_ACTION_REISSUE_TOKEN: seats.TOKEN_REISSUED,
            pb.SEAT_ACTION_BOT: seats.HANDED_TO_BOT,
            pb.SEAT_ACTION_OPEN: seats.OPENED,
            pb.SEAT_ACTION_CLOSE: seats.CLOSED,
        }
        kind = kinds.get(request.action)
        if kind is None:
            raise malformed(
                "action",
                "must say what to do: SEAT_ACTION_REISSUE_TOKEN, SEAT_ACTION_BOT, SEAT_ACTION_OPEN or "
                "SEAT_ACTION_CLOSE",
                "SEAT_ACTION_INVALID",
            )
        name = None
        if request.HasField("display_name"):
            if kind != seats.TOKEN_REISSUED:
                raise malformed(
                    "display_name", "is only set with SEAT_ACTION_REISSUE_TOKEN", "DISPLAY_NAME_UNEXPECTED"
                )
            name = seats.display_name(request.display_name, "display_name", False)
        level = (
            bot_level(request.bot_level, "bot_level").value if request.bot_level else clocks.DEFAULT_BOT_LEVEL
        )
        _etag_of("etag", request.etag)
        for _ in range(8):
            self._recent.pop(request.session, None)
            o = await self._open(request.session, token)
            self._host_rule(o, token, "manage its seats")
            if request.etag:
                self._check_etag(o, request.etag)
            record = o.record
            seat = seats.seat_in("seat", request.seat, record.players)
            state = self._state(o.entry, record.state)
            self._not_over(o, state, "change in")
            new, issued, note = _seat_change(record, seat, kind, name, level)
            listing = bool(new.open) and not record.listed
            if listing:
                new = msgspec.structs.replace(new, listed=time.time(), public=True)
                await self.store.lobby_add(_lobby_entry(o.key.session, new))
            try:
                new, rev = await self._write_seat_event(o, state, new, seat, kind, note, _names(new)[seat])
            except LawspeakerError as err:
                if err.code is ErrorCode.STALE_STATE and not request.etag:
                    continue
                raise
            if record.listed and not new.listed:
                await self._unlist(o.key.session, record)
            view = _Opened(o.entry, o.key, Loaded(rev, b"", 0), new, None)
            out = pb.ManageSeatResponse(session=self._session(view, new, state, rev))
            if issued:
                out.seat_token.CopyFrom(pb.SeatToken(seat=seat, token=issued))
            return out
        raise _stale(request.session, request.etag, "newer")

    async def rematch(self, request: pb.RematchRequest, token: str | None) -> pb.RematchResponse:
        """A rematch of a finished game: made at once when the host asks, else once every seat a
        person plays has asked. It is made (stored) before the old session names it, so a replica
        that dies between the two leaves an unused session that expires, never a name of nothing;
        of two rematches made at once, the one the old session names is kept, the other deleted."""
        for _ in range(8):
            self._recent.pop(request.session, None)
            o = await self._open(request.session, token)
            record = o.record
            host = self._is_host(record, token)
            if o.seat is None and not host:
                # no token at all (a wrong one is SEAT_TOKEN_INVALID already): 401, as for a
                # missing API key, since the call cannot be made without credentials
                raise access.unauthenticated(
                    "REMATCH_TOKEN_REQUIRED",
                    "A rematch is asked for by the host (its token) or by the players (their seat "
                    "tokens): send one as 'authorization: Bearer <token>'.",
                    "authorization",
                )
            state = self._state(o.entry, record.state)
            if record.result is None and o.entry.game.outcome(state) is None:
                raise refused(
                    "GAME_NOT_OVER",
                    "The game is not over: a rematch is asked for once it has ended.",
                    "session",
                )
            if record.rematch:
                return await self._rematch_answer(o, record, state, token)
            voters = _rematch_voters(record)
            votes = sorted(set(record.rematch_votes) | ({o.seat} if o.seat is not None else set()))
            if not host and not set(voters) <= set(votes):
                if votes == record.rematch_votes:
                    return pb.RematchResponse(session=self._session(o, record, state))
                new = msgspec.structs.replace(record, rematch_votes=votes)
                written = await self.store.write(
                    o.key, Write(expected_rev=o.loaded.rev, data=_ENCODE.encode(new))
                )
                if written.status is WriteStatus.MISSING:
                    raise session_not_found(request.session)
                if written.status is not WriteStatus.WRITTEN:
                    continue
                return pb.RematchResponse(session=self._session(o, new, state, o.loaded.rev + 1))
            made, _ = await self._store_new(*self._rematch_record(o.entry, record))
            new = msgspec.structs.replace(record, rematch=made.key.session, rematch_votes=votes)
            written = await self.store.write(
                o.key, Write(expected_rev=o.loaded.rev, data=_ENCODE.encode(new))
            )
            if written.status is not WriteStatus.WRITTEN:
                with contextlib.suppress(LawspeakerError):  # expires anyway
                    await self.store.delete(made.key)
                if written.status is WriteStatus.MISSING:
                    raise session_not_found(request.session)
                continue
            metrics.rematch_made(o.entry.game.id)
            old = _Opened(o.entry, o.key, Loaded(o.loaded.rev + 1, b"", 0), new, o.seat)
            return await self._rematch_answer(old, new, state, token)
        raise _stale(request.session, "", "newer")

    def _rematch_record(
        self, entry: Entry[Any, Any, Any], record: Record
    ) -> tuple[Entry[Any, Any, Any], Any, Record]:
        """The new session of a rematch: seat i's player (token, name) or bot plays seat i + 1."""
        new_game = rules_service_pb2.NewGameRequest(game=record.game, players=record.players)
        if record.options:
            new_game.options.ParseFromString(record.options)
        with calls.rules_span("NewGame"):
            entry, state = self.rules.initial_state(new_game)
        n, names = record.players, _names(record)
        hashes, moved_names, robots = [b""] * n, [""] * n, []
        playing = {b.seat: b for b in record.bots}
        for seat in range(n):
            to = (seat + 1) % n
            if seat in playing:
                robots.append(msgspec.structs.replace(playing[seat], seat=to))
            else:
                hashes[to] = record.token_hashes[seat]
                moved_names[to] = names[seat]
        data = self.rules.encode_state(entry, state).SerializeToString()
        made = Record(
            game=record.game,
            players=n,
            physical_dice=record.physical_dice,
            token_hashes=hashes,
            initial=data,
            state=data,
            move_count=0,
            bots=sorted(robots, key=lambda b: b.seat),
            written=time.time(),
            clock=record.clock,
            host_hash=record.host_hash,
            names=moved_names if any(moved_names) else [],
            open=[s for s in range(n) if not hashes[s] and s not in {b.seat for b in robots}],
            public=record.public,
            options=record.options,
            webhook=record.webhook,
        )
        return entry, state, made

    async def _rematch_answer(
        self, o: _Opened, record: Record, state: Any, token: str | None
    ) -> pb.RematchResponse:
        """The old session and the rematch it names, each as the caller sees it."""
        out = pb.RematchResponse(session=self._session(o, record, state))
        try:
            made = await self._open(record.rematch, token)
        except LawspeakerError as err:
            if err.code is not ErrorCode.NOT_FOUND:
                raise
            return out  # the rematch was played out and deleted: the old session still says which
        out.rematch.CopyFrom(self._session(made, made.record, self._state(made.entry, made.record.state)))
        return out

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
        resumed at the current version yields None first (open, nothing to send yet).

        While it is open the seat counts as connected. With ``request.presence``, when a seat
        connects or leaves the current version is sent again with the new presence (same etag)."""
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
            o: _Opened | None = None
            try:
                seat = await self._redeem(key, request.ticket) if request.ticket else None
                o = await self._open(request.session, token, as_seat=seat)
                if o.seat is not None:
                    await self._watch_began(key, o.seat)
                state = self._state(o.entry, o.record.state)
                self._wake_stalled_bots(o, state)
                last, last_data = o.loaded.rev, o.loaded.data
                presence = await self._presence(key)
                shown = self._connected(key, o.record.players, presence)
                if resume == last:
                    yield None
                else:
                    skipped = last - resume - 1 if resume is not None and resume < last else 0
                    yield pb.WatchSessionResponse(
                        session=self._session(o, o.record, state, presence=presence),
                        versions_skipped=skipped,
                    )
                async for note in updates:
                    if note == CLOSED:
                        return
                    if note == DELETED:
                        yield pb.WatchSessionResponse(deleted=True)
                        return
                    if note == PRESENCE:
                        if request.presence:
                            # watchers told of one change at once share one read
                            presence = await self._presence(key, newer_than=time.monotonic() - 0.05)
                            now_connected = self._connected(key, o.record.players, presence)
                            if now_connected != shown:  # not this watch's own arrival, seen already
                                shown = now_connected
                                yield self._watched(o, last, last_data, presence)
                        continue
                    rev_text, _, data = note.partition(b":")  # the version as written: none is skipped
                    rev = int(rev_text)
                    if rev <= last:
                        continue
                    last, last_data = rev, data
                    presence = await self._presence(key)
                    yield self._watched(o, rev, data, presence)
            finally:
                metrics.watch_closed(transport)
                if o is not None and o.seat is not None:
                    self._watch_ended(key, o.seat)

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

    def _watched(self, o: _Opened, rev: int, data: bytes, presence: _Presence) -> pb.WatchSessionResponse:
        """Version ``rev`` (its record as published) as ``o.seat`` sees it.

        Built once per version and seat: every watcher of this replica with that seat gets the same
        message (messages are not changed once built), so a game with many spectators costs one
        decode and one view per version, not one per watcher. A seat's watch whose token no longer
        is the seat's in that version (the host reissued it, handed the seat to a bot or opened it)
        ends with SEAT_TOKEN_INVALID: a watch sees what its token may see now, not what it once could.
        """
        cache_key = (o.key, rev, o.seat, presence.read_at)
        found = self._watch_views.get(cache_key)
        if found is None:
            record = _RECORD.decode(data)
            now = _Opened(o.entry, o.key, Loaded(rev, b"", record.move_count), record, o.seat)
            view = pb.WatchSessionResponse(
                session=self._session(now, record, self._state(o.entry, record.state), presence=presence)
            )
            found = (view, record.token_hashes[o.seat] if o.seat is not None else b"")
            _keep(self._watch_views, cache_key, found, WATCH_VIEWS)
        view, seat_hash = found
        if o.seat is not None and seat_hash != o.record.token_hashes[o.seat]:
            raise denied(
                "SEAT_TOKEN_INVALID",
                f"Seat {o.seat}'s token stopped working while this watch was open (the host gave the "
                "seat a new token, or handed it over): the watch ends.",
            )
        return view


def _names(record: Record) -> list[str]:
    """The record's display names, one per seat."""
    return list(record.names) + [""] * (record.players - len(record.names))


def _seat_taken(record: Record, seat: int) -> str:
    """Why a seat cannot be claimed, in a player's words."""
    if any(b.seat == seat for b in record.bots):
        return "a bot plays it."
    if record.token_hashes[seat]:
        name = _names(record)[seat]
        return f"{name} plays it." if name else "a player has it."
    return "the host keeps it for someone."


def _seat_change(
    record: Record, seat: int, kind: int, name: str | None, level: str
) -> tuple[Record, str, str]:
    """The record once the host has done ``kind`` to ``seat``, the token issued (if any) and the
    log's sentence; FAILED_PRECONDITION where the seat cannot be so changed."""
    if seat in record.out:
        raise refused(
            "SEAT_OUT",
            f"Seat {seat} is out of the game (it resigned or forfeited): nobody can be given its place.",
            "seat",
        )
    robots = [b for b in record.bots if b.seat != seat]
    hashes, names = list(record.token_hashes), _names(record)
    still = [s for s in record.open if s != seat]
    issued = ""
    if kind == seats.TOKEN_REISSUED:
        issued = secrets.token_urlsafe(24)
        hashes[seat] = hash_token(issued)
        if name is not None:
            names[seat] = name
        was = (
            "a bot's"
            if len(robots) < len(record.bots)
            else "open"
            if seat in record.open
            else "a player's"
            if record.token_hashes[seat]
            else "reserved"
        )
        note = f"The host gave seat {seat} a new token (it was {was}): a person plays it."
    elif kind == seats.HANDED_TO_BOT:
        if record.physical_dice:
            raise malformed(
                "action",
                "cannot hand a seat to a bot with physical_dice: a bot cannot throw them",
                "BOTS_WITH_PHYSICAL_DICE",
            )
        robots.append(_timeout_bot(seat, level))
        hashes[seat], names[seat] = b"", ""
        note = f"The host handed seat {seat} to a bot."
    elif kind == seats.OPENED:
        hashes[seat], names[seat] = b"", ""
        still = sorted([*still, seat])
        note = f"The host opened seat {seat} in the lobby: it waits for a player."
    else:
        if seat not in record.open:
            raise refused("SEAT_NOT_OPEN", f"Seat {seat} is not open: {_seat_taken(record, seat)}", "seat")
        note = f"The host closed seat {seat}: it waits, out of the lobby, for the player the host invites."
    new = msgspec.structs.replace(
        record,
        bots=sorted(robots, key=lambda b: b.seat),
        token_hashes=hashes,
        names=names if any(names) else [],
        open=still,
        listed=record.listed if still else 0.0,
    )
    return new, issued, note


def _rematch_voters(record: Record) -> list[int]:
    """The seats whose players must ask for a rematch (without the host): a person's (not a bot's)."""
    played = {b.seat for b in record.bots}
    return [s for s, h in enumerate(record.token_hashes) if h and s not in played]


def _lobby_token(request: pb.ListSessionsRequest, after: str) -> str:
    raw = f"{request.game}\n{request.players}\n{after}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _lobby_after(request: pb.ListSessionsRequest) -> str:
    """The lobby entry a page token continues after; INVALID_PAGE_TOKEN when it is not one of a
    listing with the same filters."""
    token = request.page_token
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        game, players, after = raw.split("\n", 2)
        if game != request.game or int(players) != request.players or not after:
            raise ValueError(raw)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise malformed(
            "page_token", "is not a next_page_token of a listing with these filters", "INVALID_PAGE_TOKEN"
        ) from None
    return after


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


@dataclass(frozen=True, slots=True)
class _Presence:
    """A session's presence fields as this replica last read them (``SessionStore.read_presence``),
    and when (monotonic): a view's stamp, so a watch view is rebuilt when they change."""

    fields: dict[str, float]
    read_at: float

    def seat(self, seat: int, now: float) -> tuple[bool, float]:
        """Whether a watch of ``seat`` is open on some replica, and when the seat was last seen (0:
        never)."""
        connected, seen = False, self.fields.get(f"seen:{seat}", 0.0)
        prefix = f"open:{seat}:"
        for name, until in self.fields.items():
            if name.startswith(prefix) and until > now:
                connected = True
        return connected, seen


_NO_PRESENCE = _Presence({}, 0.0)


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


_REASONS = {
    clocks.RULES: "RESULT_REASON_RULES",
    clocks.RESIGNATION: "RESULT_REASON_RESIGNATION",
    clocks.TIMEOUT: "RESULT_REASON_TIMEOUT",
}
_SEAT_EVENTS = {
    clocks.RESIGNED: "SEAT_EVENT_KIND_RESIGNED",
    clocks.LEFT_TO_BOT: "SEAT_EVENT_KIND_LEFT_TO_BOT",
    clocks.FORFEITED_ON_TIME: "SEAT_EVENT_KIND_FORFEITED_ON_TIME",
    seats.CLAIMED: "SEAT_EVENT_KIND_CLAIMED",
    seats.TOKEN_REISSUED: "SEAT_EVENT_KIND_TOKEN_REISSUED",
    seats.HANDED_TO_BOT: "SEAT_EVENT_KIND_HANDED_TO_BOT",
    seats.OPENED: "SEAT_EVENT_KIND_OPENED",
    seats.CLOSED: "SEAT_EVENT_KIND_CLOSED",
}


def _unclaimed(record: Record) -> list[int]:
    """The seats nobody plays yet (open in the lobby, or reserved): no token and no bot."""
    if not record.open and all(record.token_hashes):
        return []  # the common case, without building a set
    played = {b.seat for b in record.bots}
    return [s for s, h in enumerate(record.token_hashes) if not h and s not in played]


def _role_name(record: Record, seat: int) -> str:
    if any(b.seat == seat for b in record.bots):
        return "SEAT_ROLE_BOT"
    if record.token_hashes[seat]:
        return "SEAT_ROLE_PERSON"
    return "SEAT_ROLE_OPEN" if seat in record.open else "SEAT_ROLE_RESERVED"


def _open_seats(request: pb.CreateSessionRequest, played: set[int]) -> list[int]:
    """CreateSession's open seats, checked."""
    out: list[int] = []
    for i, seat in enumerate(request.open_seats):
        where = f"open_seats[{i}]"
        seats.seat_in(where, seat, request.players)
        if seat in played:
            raise malformed(where, f"names seat {seat}, which a bot plays", "OPEN_SEAT_IS_BOT")
        if seat in out:
            raise malformed(where, f"names seat {seat} a second time", "OPEN_SEAT_DUPLICATE")
        out.append(seat)
    if out and request.physical_dice:
        raise malformed(
            "open_seats",
            "cannot be set with physical_dice: players who meet in the lobby have no dice in common",
            "OPEN_SEATS_WITH_PHYSICAL_DICE",
        )
    return out


def _lobby_entry(session: str, record: Record) -> str:
    return seats.lobby_entry(record.game, record.players, int(record.listed * 1_000_000), session)


_TIMEOUT_ACTIONS = {
    pb.TIMEOUT_ACTION_UNSPECIFIED: clocks.DEFAULT_TIMEOUT_ACTION,
    pb.TIMEOUT_ACTION_NOTHING: clocks.NOTHING,
    pb.TIMEOUT_ACTION_BOT: clocks.BOT,
    pb.TIMEOUT_ACTION_FORFEIT: clocks.FORFEIT,
}


def _clock_rule(clock: pb.Clock) -> ClockRule:
    """CreateSession's clock, checked: INVALID_ARGUMENT CLOCK_INVALID naming the field."""
    for name in ("per_move_seconds", "bank_seconds", "increment_seconds"):
        value = getattr(clock, name)
        if not 0 <= value <= clocks.MAX_CLOCK_SECONDS:
            raise malformed(
                f"clock.{name}",
                f"must be 0 to {clocks.MAX_CLOCK_SECONDS} seconds (a year); got {value}",
                "CLOCK_INVALID",
            )
    if not clock.per_move_seconds and not clock.bank_seconds:
        raise malformed(
            "clock",
            "needs per_move_seconds (a limit per move; days in seconds for correspondence play) or "
            "bank_seconds (a time bank, with increment_seconds for Fischer); leave clock unset for none",
            "CLOCK_INVALID",
        )
    if clock.increment_seconds and not clock.bank_seconds:
        raise malformed(
            "clock.increment_seconds",
            "is added to a time bank after each move: it needs bank_seconds",
            "CLOCK_INVALID",
        )
    action = _TIMEOUT_ACTIONS.get(clock.on_timeout)
    if action is None:
        raise malformed(
            "clock.on_timeout",
            f"has no action numbered {clock.on_timeout}: TIMEOUT_ACTION_BOT, TIMEOUT_ACTION_FORFEIT or "
            "TIMEOUT_ACTION_NOTHING",
            "CLOCK_INVALID",
        )
    level = clocks.DEFAULT_BOT_LEVEL
    if clock.timeout_bot_level:
        level = bot_level(clock.timeout_bot_level, "clock.timeout_bot_level").value
    return ClockRule(clock.per_move_seconds, clock.bank_seconds, clock.increment_seconds, action, level)


def _rfc3339(at: float) -> str:
    """A Unix time as RFC 3339 in UTC to the millisecond (``2026-12-02T21:15:21.123Z``)."""
    whole = int(at)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{int((at - whole) * 1000):03d}Z"


def _clock_message(messages: Any, game_messages: Any, rule: ClockRule) -> Any:
    return messages.Clock(
        per_move_seconds=rule.per_move,
        bank_seconds=rule.bank,
        increment_seconds=rule.increment,
        on_timeout=getattr(messages, "TIMEOUT_ACTION_" + rule.on_timeout.upper()),
        timeout_bot_level=getattr(game_messages, "BOT_LEVEL_" + rule.bot_level.upper()),
    )


def _result_message(messages: Any, record: Record, outcome: core.Outcome | None) -> Any:
    """How the session ended: its stored result (a resignation, a timeout), else the rules' outcome
    with the seats that left ranked last and never among the winners."""
    if record.result is not None:
        reason, winners, summary = record.result.reason, record.result.winners, record.result.summary
    else:
        assert outcome is not None
        reason, summary = clocks.RULES, outcome.summary
        winners = [w for w in outcome.winners if w not in record.out]
    return messages.SessionResult(
        reason=getattr(messages, _REASONS[reason]),
        winners=winners,
        ranking=[
            messages.SeatPlace(seat=p.seat, place=p.place)
            for p in clocks.ranking(record.players, winners, record.out)
        ],
        summary=summary,
    )


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


def _timeout_bot(seat: int, level: str) -> BotRecord:
    """The bot that moves for a timed-out seat or plays a departed one: a search thinks at most
    ``clocks.TIMEOUT_BOT_MILLIS``."""
    return BotRecord(seat, level, 0, clocks.TIMEOUT_BOT_MILLIS if level == bots.Level.SEARCH.value else 0)


def _is_bot_token(token: str | None) -> bool:
    """The server acting (a bot seat, a draw, a timeout), not a person through a seat token."""
    return token is not None and token.startswith("bot:")


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
