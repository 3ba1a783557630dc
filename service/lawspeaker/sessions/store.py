"""Where sessions live: one :class:`SessionStore` protocol, an in-process store and a Redis store.

A session is three keys plus a pub/sub channel, all named after the session id, the rules version
and the store's format (``lawspeaker:{<session id>}:<rules version>:f<format>:record|log|idem|updates``).
The braces are a Redis Cluster hash tag: every key of one session hashes to one slot, so one Lua
script may touch them all. The record holds the revision and the serialized session (states as
protobuf bytes); the log is a list of serialized moves (the moves only: the service derives their
events by replaying them); idem is one string of fixed-width records, oldest first, one per request
id: its digest, when it may be forgotten, the revision and log length its write made, and the
request's fingerprint (:data:`IDEM_RECORD_BYTES` in all, not the response: the service rebuilds
that from the log). An id is remembered for ``request_id_ttl`` seconds (default: the session TTL),
within ``request_id_bytes`` per session (the newest is always kept); undoing a move forgets the ids
that made it.

Quotas: ``<prefix>:live`` is a sorted set of the live sessions (score: when each would expire if not
used again, refreshed by :meth:`touch`), so the number of live sessions is one count shared by every
replica; ``<prefix>:rate:<bucket>`` holds one rate limit's theoretical arrival time (GCRA). Both
scripts read Redis's clock (``TIME``), so replicas need not agree on the time.

Every write is a compare-and-set on the revision, done by one Lua script that writes the record,
the log entry and the idempotency record together, resets the sliding TTL and publishes the new
revision with its record (so that every watcher gets every version, none skipped), or writes
nothing. Reads slide the TTL too. The stores know nothing of games or protobuf: they move bytes.

Webhooks: a write's ``outbox`` (the version's events) is appended to ``<prefix>:{<session id>}:outbox``
by the same script, so an event exists exactly when its version does; ``<prefix>:{webhooks}:due`` is
the sorted set of sessions with events to deliver (``sessions.delivery``). Deleting a session leaves
its outbox to be delivered; it expires with the session's TTL.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import contextlib
import enum
import logging
import math
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.observe import calls, metrics
from lawspeaker.sessions.cluster import (
    ClusterWatchers,
    NodeConnections,
    SlotMap,
    cluster_client,
    is_cluster_url,
    seeds,
)
from lawspeaker.sessions.failures import Failure, classify
from lawspeaker.sessions.resp import Multiplexed, Script, is_transient
from lawspeaker.sessions.sentinel import (
    SentinelUrl,
    is_sentinel_url,
    locator,
    master_client,
    misconfigured,
    parse_sentinel_url,
    sentinel_for,
)
from lawspeaker.sessions.watchers import WATCH_BYTES, Watchers, WatchQueue, watch_limit

DELETED = b"deleted"  # the pub/sub message announcing a deletion; any other is b"<revision>:<record>"
CLOSED = b"closed"  # what subscribers get when the service shuts down
PRESENCE = b"presence"  # published when a seat connects or leaves: watchers send the session again
DEFAULT_TTL_SECONDS = 86400
MAX_WATCHERS = 10_000  # watch streams per replica (on Redis all on one pub/sub connection)
WATCH_BACKLOG = 256  # versions a watch stream may fall behind before it is ended (or WATCH_BYTES)
# Remembered request ids per session, the newest kept: 204 records, in one 6 KiB allocation.
REQUEST_ID_BYTES = 6 * 1024
# The store's format, in every key's name: sessions written in another format (the log with its
# events and idem holding whole responses, before format 2) are not found, as after new rules.
STORE_FORMAT = "2"
REQUEST_DIGEST_BYTES = 8  # a request id (with its seat token) as the store keys it: a digest
FINGERPRINT_BYTES = 8  # what else identifies the request (its move and etag): a digest
# One idem record: digest, forget-at (ms, 6 bytes), revision (4), log length (4), fingerprint.
IDEM_RECORD_BYTES = REQUEST_DIGEST_BYTES + 6 + 4 + 4 + FINGERPRINT_BYTES
LIVE_SLACK_FRACTION = 8  # a live session's count entry outlives its TTL by ttl/8 (see ``live_slack``)
# A demoted primary's connections are dropped at most this often (``RedisStore._reconnect``).
RECONNECT_SECONDS = 0.1
PROBE_MS = 60_000  # the write probe's key (``RedisStore.write_health``) expires after this
OUTBOX_GRACE_SECONDS = 3.0
"""A write with webhook events hints its session due this long after it (``webhook_hint``): the
writer delivers them at once, another replica once this has passed (``sessions.delivery``)."""
T = TypeVar("T")
log = logging.getLogger("lawspeaker.sessions")


@dataclass(frozen=True, slots=True)
class SessionKey:
    """Names one session's keys: its id and the rules version its states were made by."""

    session: str
    rules_version: str

    def name(self, prefix: str, part: str) -> str:
        return f"{prefix}:{{{self.session}}}:{self.rules_version}:f{STORE_FORMAT}:{part}"


@dataclass(frozen=True, slots=True)
class Remembered:
    """What a request id's write made: enough for the service to rebuild its answer from the log."""

    rev: int  # the revision written
    log_length: int  # the log's length after it: the move is entry ``log_length - 1``
    fingerprint: bytes  # the request's fingerprint, to refuse another request under the same id


@dataclass(frozen=True, slots=True)
class Loaded:
    """A session as read: its revision, its serialized record and the log length."""

    rev: int
    data: bytes
    log_length: int
    replay: Remembered | None = None  # the idempotency record asked for, when there is one


class WriteStatus(enum.Enum):
    WRITTEN = "WRITTEN"
    STALE = "STALE"  # the revision moved on: nothing was written
    MISSING = "MISSING"  # the session does not exist (expired or deleted)
    REPLAY = "REPLAY"  # the request id was already used: nothing was written


@dataclass(frozen=True, slots=True)
class WriteResult:
    status: WriteStatus
    replay: Remembered | None = None


@dataclass(frozen=True, slots=True)
class Write:
    """One atomic compare-and-set: the new record, the log change and the idempotency record."""

    expected_rev: int
    data: bytes
    push: bytes | None = None  # append this entry to the log
    pop: bool = False  # remove the last log entry (and forget the request ids that wrote it)
    idem_field: bytes = b""  # the request id's digest (REQUEST_DIGEST_BYTES), b"" for none
    fingerprint: bytes = b""  # the request's fingerprint (FINGERPRINT_BYTES)
    # Webhook events of this version (``sessions.webhooks``), appended to the session's outbox in the
    # same atomic step: an event exists exactly when its version was written. b"" for none.
    outbox: bytes = b""

    def __post_init__(self) -> None:
        if self.idem_field and (
            len(self.idem_field) != REQUEST_DIGEST_BYTES or len(self.fingerprint) != FINGERPRINT_BYTES
        ):
            raise ValueError("an idempotency record takes a fixed-width digest and fingerprint")


def live_slack(ttl: int) -> int:
    """Seconds a session's place in the live count outlives its TTL, and the longest a replica waits
    between two ``touch`` calls for a session it serves: so a used session is never dropped from the
    count while Redis still holds it (its count entry is refreshed before that), and a forgotten one
    leaves it at most this long after it expired."""
    return max(1, -(-ttl // LIVE_SLACK_FRACTION))


@dataclass(frozen=True, slots=True)
class Taken:
    """The answer of taking one request from a rate limit (GCRA)."""

    wait: float  # 0.0 when allowed (and counted), else the seconds until one would be
    remaining: int  # the requests allowed right after this one, at once
    full_in: float  # the seconds until the whole burst is allowed again


@dataclass(frozen=True, slots=True)
class Admission:
    """The answer to registering a new session under the cap of live sessions."""

    admitted: bool
    live: int  # live sessions, counting this one when admitted
    retry_after: float = 0.0  # when refused: seconds until the oldest live session would expire


@dataclass(frozen=True, slots=True)
class WriteHealth:
    """Whether the store takes writes now (a write probe), for health details and the metrics."""

    writable: bool
    error: str = ""  # Redis's refusal when it refuses writes ("OutOfMemoryError: OOM command ...")
    # Redis's memory when it has a maxmemory: usedBytes, maxBytes, policy (INFO memory)
    memory: dict[str, Any] | None = None


class SessionStore(Protocol):
    """Keeps sessions. Every method raises LawspeakerError(UNAVAILABLE) when the backend is down."""

    ttl: int
    request_id_ttl: int
    request_id_bytes: int
    kind: str  # "memory", "redis" or "cluster": the store label of its metrics
    max_watchers: int

    async def take(self, bucket: str, per_minute: float, burst: int) -> Taken:
        """Takes one request from a rate limit (GCRA: ``per_minute`` on average, ``burst`` at once):
        its wait is 0.0 when allowed, else the seconds until one would be; with what remains."""
        ...

    async def admit(self, key: SessionKey, cap: int) -> Admission:
        """Counts a new session as live unless ``cap`` (0: none) sessions already are."""
        ...

    async def unadmit(self, key: SessionKey) -> None:
        """Stops counting a session ``admit`` counted whose creation then failed (best effort)."""
        ...

    async def confirm_replicated(self, key: SessionKey) -> None:
        """Before a retried write is answered from its request id: with ``--redis-wait-replicas``,
        raises SESSION_WRITE_NOT_REPLICATED unless enough replicas have everything written to the
        session so far (the first attempt may have been refused for that very reason)."""
        ...

    async def give_back(self, bucket: str, per_minute: float) -> None:
        """Gives back one request ``take`` took from a rate limit (a creation then refused)."""
        ...

    async def write_health(self) -> WriteHealth:
        """Whether a write goes through now (a probe), and the store's memory when it has a cap."""
        ...

    async def live_sessions(self) -> int:
        """How many sessions are live (for health details)."""
        ...

    async def touch(self, keys: Sequence[SessionKey]) -> None:
        """Keeps used sessions counted as live for another TTL (a replica calls it now and then)."""
        ...

    async def durability(self) -> Durability:
        """What an acknowledged write survives."""
        ...

    async def check(self) -> None:
        """The start-up check of the store's configuration: StoreConfigError (one line) when it
        cannot work, LawspeakerError(UNAVAILABLE) when the backend does not answer yet."""
        ...

    async def create(self, key: SessionKey, data: bytes, outbox: bytes = b"") -> int:
        """Stores a new session at revision 1 and returns the revision; ``outbox`` as a write's."""
        ...

    async def load(self, key: SessionKey, idem_field: bytes = b"") -> Loaded | None:
        """The session (and the idempotency record ``idem_field``), sliding its TTL; None if absent."""
        ...

    async def write(self, key: SessionKey, write: Write) -> WriteResult:
        """Applies ``write`` atomically if the revision is still ``write.expected_rev``. With an
        outbox, the session is first hinted in the pending webhooks (``webhook_hint``, best effort),
        so that another replica delivers the events should this one stop right after the write."""
        ...

    async def webhook_hint(self, session: str, at: float, now: float) -> None:
        """Makes the session due in the pending webhooks at ``at`` if that is earlier, and records
        ``now`` as its last hint (``webhook_settle`` keeps a session hinted within the grace)."""
        ...

    async def webhooks_due(self, now: float, limit: int) -> list[str]:
        """Sessions whose webhook events are due at ``now`` or earlier, the earliest first."""
        ...

    async def webhooks_pending(self) -> int:
        """Sessions in the pending webhooks index (the metrics' queue length)."""
        ...

    async def read_outbox(self, session: str, limit: int) -> list[bytes]:
        """The session's first ``limit`` outbox entries (oldest first), even after it was deleted:
        the outbox expires on its own, so a game that just ended still has its events delivered."""
        ...

    async def settle_outbox(self, session: str, consumed: int, head: bytes, rest: bytes) -> int:
        """Replaces the first ``consumed`` outbox entries with ``rest`` (one entry; b"": none) if the
        first is still ``head`` (else -1: another replica took the outbox over); the entries then left."""
        ...

    async def webhook_settle(self, session: str, looked: float, due: float | None, grace: float) -> None:
        """After a look at the outbox read at ``looked``: the session due again at ``due``, or out of
        the index when None; but while a write hinted it less than ``grace`` before that read (its
        entry may have come after it), due at the latest ``grace`` after that hint."""
        ...

    async def read_log(self, key: SessionKey, start: int, stop: int) -> list[bytes]:
        """Log entries ``start`` (0-based, inclusive) to ``stop`` (exclusive)."""
        ...

    async def delete(self, key: SessionKey) -> bool:
        """Deletes the session; False when it did not exist."""
        ...

    async def put_ticket(self, key: SessionKey, digest: bytes, seat: int, seconds: int) -> None:
        """Keeps a watch ticket (its ``digest``) for ``seat`` of the session, for ``seconds``."""
        ...

    async def take_ticket(self, key: SessionKey, digest: bytes) -> int | None:
        """The seat of a watch ticket, forgotten as it is read (one use); None when unknown or expired."""
        ...

    def subscribe(self, key: SessionKey) -> contextlib.AbstractAsyncContextManager[AsyncIterator[bytes]]:
        """Subscribed on entry: yields each new version (``b"<revision>:<record>"``) or DELETED."""
        ...

    async def set_deadline(self, session: str, rev: int, at: float | None) -> None:
        """Records when version ``rev`` of a session times out (Unix time; None: it does not),
        unless a newer version's deadline is recorded already (replicas may write out of order)."""
        ...

    async def hint_deadline(self, session: str, at: float) -> None:
        """Before a write: makes the session's recorded deadline ``at`` if that is earlier (a replica
        that stops between its write and ``set_deadline`` leaves a deadline that fires early, which
        the timer corrects, never one that fires late)."""
        ...

    async def due_deadlines(self, now: float, limit: int) -> list[str]:
        """Sessions whose recorded deadline is ``now`` or earlier, the earliest first."""
        ...

    async def forget_deadline(self, session: str) -> None:
        """Forgets a session's deadline (the session is gone)."""
        ...

    async def take_lease(self, name: str, holder: str, ms: int) -> bool:
        """Takes the lease ``name`` for ``ms`` unless another holder has it."""
        ...

    async def peek(self, keys: Sequence[SessionKey]) -> list[tuple[int, bytes] | None]:
        """Each session's revision and record (None when absent), read without sliding its TTL: a
        lobby that shows a session does not keep it alive."""
        ...

    async def lobby_add(self, entry: str) -> None:
        """Lists a session in the lobby: ``entry`` is its index entry (``sessions.seats.lobby_entry``),
        whose lexicographic order is the lobby's (game, players, when listed)."""
        ...

    async def lobby_remove(self, entries: Sequence[str]) -> None:
        """Takes index entries out of the lobby (the session is full, closed or gone)."""
        ...

    async def lobby_range(self, low: str, high: str, after: str, limit: int) -> list[str]:
        """At most ``limit`` lobby entries from ``low`` to ``high`` (inclusive, lexicographic), those
        after ``after`` only when it is given, in order."""
        ...

    async def drop_lease(self, name: str, holder: str) -> None:
        """Gives the lease back, if ``holder`` still has it."""
        ...

    async def read_presence(self, key: SessionKey) -> dict[str, float]:
        """The session's presence fields (``seen:<seat>``: last seen; ``open:<seat>:<replica>``: a
        replica's watch of the seat counts as open until then), Unix times."""
        ...

    async def write_presence(
        self, key: SessionKey, put: dict[str, float], drop: Sequence[str], announce: bool
    ) -> None:
        """Sets and removes presence fields; ``announce`` publishes PRESENCE to the session's watchers."""
        ...

    def stop_watchers(self) -> None:
        """Ends every subscription (with CLOSED) so streams finish before a shutdown."""
        ...

    async def close(self) -> None:
        """Releases connections."""
        ...


def unavailable(detail: str, outcome_unknown: bool = False) -> LawspeakerError:
    """``outcome_unknown``: the failure (an error the service does not expect, ``failures``) may have
    come after a write the call carried was applied, in whole or in part: the message says so."""
    if outcome_unknown:
        return LawspeakerError(
            ErrorCode.UNAVAILABLE,
            "SESSION_STORE_UNAVAILABLE",
            f"The session store is unavailable ({detail}, an error the service does not expect; it is "
            "logged for the operators). Whether a write this call carried was applied is not known: "
            "retry with the same request_id (and etag) to get the first result if it was kept, or to "
            "apply it once if it was lost. Sessions resume when the store is back; the stateless RPCs "
            "keep working.",
        )
    return LawspeakerError(
        ErrorCode.UNAVAILABLE,
        "SESSION_STORE_UNAVAILABLE",
        f"The session store is unavailable ({detail}). A write is all or nothing: if it did not "
        "reach the store, nothing changed; retry with the same request_id (and etag) to apply it at "
        "most once. Sessions resume when the store is back; the stateless RPCs keep working.",
    )


class StoreConfigError(ValueError):
    """The store cannot work as configured (a malformed ``--redis-url``, or one naming the wrong kind
    of Redis): the service refuses to start, with this one line."""


def shown(url: str) -> str:
    """``url`` with its password masked, for logs and refusals."""
    masked = re.sub(r"^([a-z+]*://[^/@:]*:)[^/@]*@", r"\1***@", url)
    return re.sub(r"([?&](?:ssl_|sentinel_)?password=)[^&]*", r"\1***", masked)


def check_url(url: str, files: bool = True) -> None:
    """Refuses a ``--redis-url`` that cannot work with StoreConfigError (one line, no traceback),
    before anything connects: an unknown scheme, no host (or socket path), a port out of range, a
    database that is not a number, options redis-py would refuse only on the first call (an
    unknown name, a value of the wrong type) and, with ``files``, TLS files it cannot read."""
    from urllib.parse import urlsplit

    from redis.asyncio.connection import ConnectionPool, parse_url
    from redis.exceptions import RedisError

    from lawspeaker.sessions.cluster import SCHEMES
    from lawspeaker.sessions.resp import tls_context
    from lawspeaker.sessions.sentinel import SCHEMES as SENTINEL_SCHEMES

    def refuse(why: str) -> StoreConfigError:
        return StoreConfigError(f"{shown(url)}: {why}")

    try:
        parts = urlsplit(url)
        scheme = parts.scheme
        if scheme in SCHEMES:
            first, nodes = seeds(url)
            for host, port in nodes:
                if not 0 < port < 65536:
                    raise refuse(f"seed {host}:{port}: the port must be 1-65535")
            plain = [first]
        elif scheme in SENTINEL_SCHEMES:  # sessions.sentinel: the data nodes' URL carries the options
            plain = [parse_sentinel_url(url).node_url]
        else:
            if scheme not in ("redis", "rediss", "unix"):
                raise refuse(
                    "the scheme must be redis://, rediss:// (TLS), unix://, redis+cluster://, "
                    "rediss+cluster://, redis+sentinel:// or rediss+sentinel://"
                )
            if scheme == "unix":
                if not parts.path:
                    raise refuse("a unix:// URL names the socket's path: unix:///path/to/redis.sock")
            else:
                if not parts.hostname:
                    raise refuse(f"no host: {scheme}://host[:port][/db]")
                if parts.port is not None and not 0 < parts.port < 65536:
                    raise refuse("the port must be 1-65535")
                if parts.path not in ("", "/") and not parts.path.strip("/").isdigit():
                    raise refuse(f"the database must be a number ({scheme}://host:port/0), not {parts.path}")
            plain = [url]
        for one in plain:
            pool: Any = ConnectionPool.from_url(one)
            pool.make_connection()  # checks the options' names and values
            tls = tls_context(parse_url(one))
            if tls is not None and files:
                tls.get()  # reads the CA, certificate and key files
    except StoreConfigError:
        raise
    except (ValueError, TypeError, OSError, RedisError) as err:  # ssl.SSLError is an OSError
        why = str(err) or type(err).__name__
        if isinstance(err, TypeError) and "unexpected keyword argument" in why:
            why = "unknown option " + why.rsplit(" ", 1)[-1]
        raise refuse(why) from None


MOVE_OUTCOME = (
    "Its outcome is knowable: retry with the same request_id (and etag) to get the first result if it "
    "was kept, or to apply it once if it was lost."
)
CREATE_OUTCOME = "Create the session again: this one, whose id you did not get, expires unused."


def not_replicated(what: str, acked: int, wanted: int, timeout_ms: int, then: str) -> LawspeakerError:
    return LawspeakerError(
        ErrorCode.UNAVAILABLE,
        "SESSION_WRITE_NOT_REPLICATED",
        f"{what} on the Redis primary, but only {acked} of the {wanted} replica(s) this service waits "
        f"for confirmed it within {timeout_ms} ms: it would be lost if the primary failed now. {then}",
        metadata={"ackedReplicas": str(acked), "wantedReplicas": str(wanted)},
    )


@dataclass(frozen=True, slots=True)
class Durability:
    """What an acknowledged session write survives, as read from the store's settings."""

    persistence: str  # e.g. "aof appendfsync=always", "rdb save=3600 1", "none", "unknown"
    survives: str  # in words
    safe: bool  # an acknowledged move survives a restart or crash of the store
    connected_replicas: int | None = None
    wait_replicas: int = 0
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def warning(self) -> str | None:
        if self.safe:
            return None
        return f"acknowledged moves would not all survive a restart of the session store: {self.survives}"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "persistence": self.persistence,
            "survives": self.survives,
            "safe": self.safe,
            "waitReplicas": self.wait_replicas,
            "settings": dict(self.settings),
        }
        if self.connected_replicas is not None:
            out["connectedReplicas"] = self.connected_replicas
        if self.warning:
            out["warning"] = self.warning
        return out

    @staticmethod
    def unknown(why: str, wait_replicas: int) -> Durability:
        return Durability(
            "unknown", f"unknown ({why}): check the Redis persistence settings", False, None, wait_replicas
        )

    @staticmethod
    def of(config: dict[str, str], replicas: int, wait_replicas: int) -> Durability:
        aof = config.get("appendonly", "no") == "yes"
        fsync = config.get("appendfsync", "everysec")
        save = config.get("save", "").strip()
        if aof:
            persistence = f"aof appendfsync={fsync}"
            if fsync == "always":
                survives, safe = "every acknowledged move survives a restart or a crash of Redis", True
            else:
                lost = "the last second" if fsync == "everysec" else "the last ~30 seconds (the OS decides)"
                survives = (
                    "acknowledged moves survive a clean restart; a crash of Redis or its machine may "
                    f"lose {lost} of them"
                )
                safe = False
        elif save:
            persistence = f"rdb save={save}"
            survives = (
                "only the last snapshot survives a crash: moves acknowledged since it are lost "
                f"(snapshot rule 'save {save}'); a clean SHUTDOWN saves them"
            )
            safe = False
        else:
            persistence = "none"
            survives = "nothing survives a restart of Redis: every session is lost"
            safe = False
        if wait_replicas:
            survives += (
                f"; every acknowledged write is also on {wait_replicas} replica(s) (WAIT), so it survives "
                "the loss of the primary when one of them is promoted"
            )
            safe = True
        settings: dict[str, str] = {
            k: config[k] for k in ("appendonly", "appendfsync", "save") if k in config
        }
        return Durability(persistence, survives, safe, replicas, wait_replicas, settings)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


# --------------------------------------------------------------------------- in process


@dataclass
class _MemorySession:
    rev: int
    data: bytes
    expires: float
    log: list[bytes] = field(default_factory=list)
    # Oldest first: (digest, forget at, what the write made), as Redis's fixed-width records.
    idem: collections.deque[tuple[bytes, float, Remembered]] = field(default_factory=collections.deque)

    @property
    def idem_bytes(self) -> int:
        return len(self.idem) * IDEM_RECORD_BYTES

    def remembered(self, idem_field: bytes) -> Remembered | None:
        return next((made for name, _, made in self.idem if name == idem_field), None)


CLOCK_SLACK = 1e-6
"""Seconds a rate limit's wait may be over zero and still count as on time: ``(now + interval) - now``
in floating point can exceed ``interval`` by a rounding error, which would refuse a client's very
first request when the burst is 1 (the Redis store counts in whole milliseconds and needs none)."""


class MemoryStore:
    """The embedded default: sessions in this process, for a single replica. Same semantics as Redis."""

    def __init__(
        self,
        ttl: int = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        request_id_ttl: int | None = None,
        request_id_bytes: int = REQUEST_ID_BYTES,
        max_watchers: int = MAX_WATCHERS,
        watch_backlog: int = WATCH_BACKLOG,
        watch_bytes: int = WATCH_BYTES,
    ) -> None:
        self.ttl = ttl
        self.request_id_ttl = ttl if request_id_ttl is None else request_id_ttl
        self.request_id_bytes = request_id_bytes
        self._clock = clock
        self.kind = "memory"
        self._sessions: dict[SessionKey, _MemorySession] = {}
        # Watch streams, bounded as on Redis (``watchers.WatchQueue``): per session, the ones that
        # still get each version; ``_watching`` counts every stream not yet left, ended or not.
        self._watchers: dict[SessionKey, set[WatchQueue]] = {}
        self._watching = 0
        self.max_watchers, self.watch_backlog, self.watch_bytes = max_watchers, watch_backlog, watch_bytes
        self._swept = clock()
        self._rates: dict[str, float] = {}  # bucket -> theoretical arrival time (GCRA)
        self._tickets: dict[bytes, tuple[SessionKey, int, float]] = {}  # digest -> key, seat, expiry
        self._deadlines: dict[str, tuple[int, float | None]] = {}  # session -> version, deadline
        self._leases: dict[str, tuple[str, float]] = {}  # name -> holder, until (monotonic)
        self._presence: dict[SessionKey, dict[str, float]] = {}
        # Webhooks: each session's outbox (entries, expiry, monotonic) outlives the session until it
        # expires; the pending index (session -> due, Unix time) and each session's last hint.
        self._outboxes: dict[str, tuple[list[bytes], float]] = {}
        self._webhooks_due: dict[str, float] = {}
        self._webhooks_hinted: dict[str, float] = {}
        self._lobby: list[str] = []  # sorted index entries

    def _sweep(self) -> None:
        """Forgets the sessions nobody came back to, the rate limits that are full again and the
        webhook outboxes past their TTL."""
        now = self._clock()
        self._swept = now
        for old in [k for k, v in self._sessions.items() if v.expires <= now]:
            del self._sessions[old]
        for bucket in [b for b, tat in self._rates.items() if tat <= now]:
            del self._rates[bucket]
        for session in [s for s, (_, expires) in self._outboxes.items() if expires <= now]:
            del self._outboxes[session]

    async def take(self, bucket: str, per_minute: float, burst: int) -> Taken:
        now = self._clock()
        if len(self._rates) > 100_000:
            self._sweep()
        interval = 60.0 / per_minute
        held = max(self._rates.get(bucket, now), now)
        tat = held + interval
        wait = tat - now - burst * interval
        if wait > CLOCK_SLACK:
            return Taken(wait, 0, held - now)
        self._rates[bucket] = tat
        remaining = int((burst * interval - (tat - now) + CLOCK_SLACK) // interval)
        return Taken(0.0, min(max(remaining, 0), burst - 1), tat - now)

    async def admit(self, key: SessionKey, cap: int) -> Admission:
        if cap and len(self._sessions) >= cap:
            self._sweep()
            if len(self._sessions) >= cap:
                soonest = min(v.expires for v in self._sessions.values())
                return Admission(False, len(self._sessions), max(soonest - self._clock(), 0.0))
        return Admission(True, len(self._sessions) + 1)

    async def unadmit(self, key: SessionKey) -> None:
        return None  # the count is the sessions held: a creation that failed holds none

    async def confirm_replicated(self, key: SessionKey) -> None:
        return None  # no replicas

    async def give_back(self, bucket: str, per_minute: float) -> None:
        tat = self._rates.get(bucket)
        if tat is None:
            return
        tat -= 60.0 / per_minute
        if tat <= self._clock():
            del self._rates[bucket]
        else:
            self._rates[bucket] = tat

    async def write_health(self) -> WriteHealth:
        return WriteHealth(True)  # this process's memory: a write fails only with the process

    async def live_sessions(self) -> int:
        self._sweep()
        return len(self._sessions)

    async def touch(self, keys: Sequence[SessionKey]) -> None:
        return None  # the count is exact here: it is the sessions held

    async def durability(self) -> Durability:
        return Durability(
            "in-process",
            "sessions live in this process: none survives its restart (use --redis-url)",
            False,
        )

    async def check(self) -> None:
        return None  # nothing to configure

    def _live(self, key: SessionKey) -> _MemorySession | None:
        found = self._sessions.get(key)
        if found is not None and found.expires <= self._clock():
            del self._sessions[key]
            return None
        if found is not None:
            found.expires = self._clock() + self.ttl
        return found

    def _publish(self, key: SessionKey, message: bytes) -> None:
        queues = self._watchers.get(key, set())
        for queue in list(queues):
            if not queue.offer(message):  # its client stopped reading: end it after what it has
                queues.discard(queue)
                queue.end(queue.behind())

    async def create(self, key: SessionKey, data: bytes, outbox: bytes = b"") -> int:
        now = self._clock()
        if now - self._swept > 60:
            self._sweep()
        if outbox:
            await self.webhook_hint(key.session, time.time() + OUTBOX_GRACE_SECONDS, time.time())
        self._sessions[key] = _MemorySession(1, data, now + self.ttl)
        self._append_outbox(key.session, outbox)
        return 1

    def _append_outbox(self, session: str, entry: bytes) -> None:
        if not entry:
            return
        now = self._clock()
        held = self._outbox(session)
        held.append(entry)
        self._outboxes[session] = (held, now + self.ttl)

    def _outbox(self, session: str) -> list[bytes]:
        found = self._outboxes.get(session)
        if found is None or found[1] <= self._clock():
            self._outboxes.pop(session, None)
            return []
        return found[0]

    async def load(self, key: SessionKey, idem_field: bytes = b"") -> Loaded | None:
        found = self._live(key)
        if found is None:
            return None
        replay = found.remembered(idem_field) if idem_field else None
        return Loaded(found.rev, found.data, len(found.log), replay)

    async def write(self, key: SessionKey, write: Write) -> WriteResult:
        if write.outbox:
            await self.webhook_hint(key.session, time.time() + OUTBOX_GRACE_SECONDS, time.time())
        found = self._live(key)
        if found is None:
            return WriteResult(WriteStatus.MISSING)
        if write.idem_field:
            made = found.remembered(write.idem_field)
            if made is not None:
                return WriteResult(WriteStatus.REPLAY, made)
        if found.rev != write.expected_rev:
            return WriteResult(WriteStatus.STALE)
        found.rev += 1
        found.data = write.data
        if write.push is not None:
            found.log.append(write.push)
        if write.pop and found.log:
            found.log.pop()
            while found.idem and found.idem[-1][2].log_length > len(found.log):
                found.idem.pop()  # the undone move's request ids go with it
        now = self._clock()
        if write.idem_field:
            made = Remembered(found.rev, len(found.log), write.fingerprint)
            found.idem.append((write.idem_field, now + self.request_id_ttl, made))
        while len(found.idem) > 1 and (
            found.idem[0][1] <= now or found.idem_bytes > self.request_id_bytes
        ):  # forget the oldest ids: expired, or past the budget (never the newest)
            found.idem.popleft()
        self._append_outbox(key.session, write.outbox)
        self._publish(key, b"%d:%s" % (found.rev, found.data))
        return WriteResult(WriteStatus.WRITTEN)

    async def read_log(self, key: SessionKey, start: int, stop: int) -> list[bytes]:
        found = self._live(key)
        return [] if found is None else found.log[start:stop]

    async def delete(self, key: SessionKey) -> bool:
        existed = self._live(key) is not None
        self._sessions.pop(key, None)
        if existed:
            self._publish(key, DELETED)
        return existed

    async def put_ticket(self, key: SessionKey, digest: bytes, seat: int, seconds: int) -> None:
        now = self._clock()
        if len(self._tickets) > 100_000:  # forget the expired ones before holding more
            for old in [t for t, (_, _, expires) in self._tickets.items() if expires <= now]:
                del self._tickets[old]
        self._tickets[digest] = (key, seat, now + seconds)

    async def take_ticket(self, key: SessionKey, digest: bytes) -> int | None:
        found = self._tickets.pop(digest, None)
        if found is None or found[0] != key or found[2] <= self._clock():
            return None
        return found[1]

    @contextlib.asynccontextmanager
    async def subscribe(self, key: SessionKey) -> AsyncIterator[AsyncIterator[bytes]]:
        if self._watching >= self.max_watchers:
            raise watch_limit(self.max_watchers)
        queue = WatchQueue(self.watch_backlog, self.watch_bytes)
        self._watchers.setdefault(key, set()).add(queue)
        self._watching += 1

        async def updates() -> AsyncIterator[bytes]:
            while True:
                item = await queue.get()
                if isinstance(item, LawspeakerError):
                    raise item
                yield item

        try:
            yield updates()
        finally:
            self._watching -= 1
            watchers = self._watchers.get(key)
            if watchers is not None:
                watchers.discard(queue)
                if not watchers:
                    del self._watchers[key]

    async def set_deadline(self, session: str, rev: int, at: float | None) -> None:
        found = self._deadlines.get(session)
        if found is None or found[0] <= rev:
            self._deadlines[session] = (rev, at)

    async def hint_deadline(self, session: str, at: float) -> None:
        rev, held = self._deadlines.get(session, (0, None))
        if held is None or at < held:
            self._deadlines[session] = (rev, at)

    async def due_deadlines(self, now: float, limit: int) -> list[str]:
        due = sorted((at, s) for s, (_, at) in self._deadlines.items() if at is not None and at <= now)
        return [s for _, s in due[:limit]]

    async def forget_deadline(self, session: str) -> None:
        self._deadlines.pop(session, None)

    async def webhook_hint(self, session: str, at: float, now: float) -> None:
        held = self._webhooks_due.get(session)
        if held is None or at < held:
            self._webhooks_due[session] = at
        self._webhooks_hinted[session] = now

    async def webhooks_due(self, now: float, limit: int) -> list[str]:
        due = sorted((at, s) for s, at in self._webhooks_due.items() if at <= now)
        return [s for _, s in due[:limit]]

    async def webhooks_pending(self) -> int:
        return len(self._webhooks_due)

    async def read_outbox(self, session: str, limit: int) -> list[bytes]:
        return list(self._outbox(session)[:limit])

    async def settle_outbox(self, session: str, consumed: int, head: bytes, rest: bytes) -> int:
        held = self._outbox(session)
        if consumed and (not held or held[0] != head):
            return -1
        left = ([rest] if rest else []) + held[consumed:]
        if left:
            self._outboxes[session] = (left, self._outboxes.get(session, ([], self._clock() + self.ttl))[1])
        else:
            self._outboxes.pop(session, None)
        return len(left)

    async def webhook_settle(self, session: str, looked: float, due: float | None, grace: float) -> None:
        hinted = self._webhooks_hinted.get(session, 0.0)
        if hinted > looked - grace:
            self._webhooks_due[session] = min(hinted + grace, due if due is not None else math.inf)
        elif due is None:
            self._webhooks_due.pop(session, None)
            self._webhooks_hinted.pop(session, None)
        else:
            self._webhooks_due[session] = due

    async def take_lease(self, name: str, holder: str, ms: int) -> bool:
        now = self._clock()
        found = self._leases.get(name)
        if found is not None and found[1] > now and found[0] != holder:
            return False
        self._leases[name] = (holder, now + ms / 1000)
        return True

    async def drop_lease(self, name: str, holder: str) -> None:
        found = self._leases.get(name)
        if found is not None and found[0] == holder:
            del self._leases[name]

    async def peek(self, keys: Sequence[SessionKey]) -> list[tuple[int, bytes] | None]:
        now, out = self._clock(), []
        for key in keys:
            found = self._sessions.get(key)
            out.append(None if found is None or found.expires <= now else (found.rev, found.data))
        return out

    async def lobby_add(self, entry: str) -> None:
        at = bisect.bisect_left(self._lobby, entry)
        if at == len(self._lobby) or self._lobby[at] != entry:
            self._lobby.insert(at, entry)

    async def lobby_remove(self, entries: Sequence[str]) -> None:
        for entry in entries:
            at = bisect.bisect_left(self._lobby, entry)
            if at < len(self._lobby) and self._lobby[at] == entry:
                del self._lobby[at]

    async def lobby_range(self, low: str, high: str, after: str, limit: int) -> list[str]:
        start = bisect.bisect_right(self._lobby, after) if after else bisect.bisect_left(self._lobby, low)
        start = max(start, bisect.bisect_left(self._lobby, low))
        stop = bisect.bisect_right(self._lobby, high)
        return self._lobby[start : min(stop, start + limit)]

    async def read_presence(self, key: SessionKey) -> dict[str, float]:
        if self._live(key) is None:
            self._presence.pop(key, None)
            return {}
        return dict(self._presence.get(key, {}))

    async def write_presence(
        self, key: SessionKey, put: dict[str, float], drop: Sequence[str], announce: bool
    ) -> None:
        if key not in self._sessions:
            return
        fields = self._presence.setdefault(key, {})
        fields.update(put)
        for name in drop:
            fields.pop(name, None)
        if announce:
            self._publish(key, PRESENCE)

    @property
    def watching(self) -> int:
        """Watch streams open now (what ``max_watchers`` counts)."""
        return self._watching

    def stop_watchers(self) -> None:
        for queues in self._watchers.values():
            for queue in queues:
                queue.end(CLOSED)

    async def close(self) -> None:
        self.stop_watchers()


# --------------------------------------------------------------------------- Redis

# ``find``: the idem record of a request digest in the string ``held`` of IDEM_RECORD_BYTES-wide
# records, as its first byte's position or nil (a plain search; only a hit on a record's start
# counts). ``made``: what the record at ``at`` remembers: revision, log length, fingerprint.
_FIND = f"""
local function find(held, digest)
  local from = 1
  while true do
    local at = string.find(held, digest, from, true)
    if not at or (at - 1) % {IDEM_RECORD_BYTES} == 0 then return at end
    from = at + 1
  end
end
local function made(held, at)
  local rev, length = struct.unpack('>I4I4', held, at + {REQUEST_DIGEST_BYTES + 6})
  local fingerprint = at + {IDEM_RECORD_BYTES - FINGERPRINT_BYTES}
  return rev, length, string.sub(held, fingerprint, fingerprint + {FINGERPRINT_BYTES - 1})
end
"""

# KEYS: record, log, idem, outbox. ARGV: expected rev, data, push entry ("" for none), pop ("1"/"0"),
# request digest ("" for none), its fingerprint, ttl seconds, channel, request id bytes, request id
# ttl (ms), outbox entry ("" for none: the webhook events of the version, ``sessions.webhooks``).
# Returns {1} written, {0} missing, {-1} stale, {2, rev, log length, fingerprint} replay.
# An idem record is digest .. struct '>I6I4I4' (forget at ms, revision, log length) .. fingerprint.
_WRITE = (
    _FIND
    + f"""
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return {{0}} end
local held = redis.call('GET', KEYS[3]) or ''
if ARGV[5] ~= '' then
  local at = find(held, ARGV[5])
  if at then
    local rev_made, length, fingerprint = made(held, at)
    return {{2, rev_made, length, fingerprint}}
  end
end
if rev ~= ARGV[1] then return {{-1}} end
local new_rev = tonumber(rev) + 1
redis.call('HSET', KEYS[1], 'rev', new_rev, 'data', ARGV[2])
if ARGV[3] ~= '' then redis.call('RPUSH', KEYS[2], ARGV[3]) end
local length = redis.call('LLEN', KEYS[2])
local kept = held
if ARGV[4] == '1' then
  if length > 0 then length = length - 1; redis.call('RPOP', KEYS[2]) end
  -- the request ids that wrote the undone move go with it (they are the newest records)
  while #kept > 0 and struct.unpack('>I4', kept, #kept - {FINGERPRINT_BYTES + 3}) > length do
    kept = string.sub(kept, 1, #kept - {IDEM_RECORD_BYTES})
  end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[5] ~= '' then
  kept = kept .. ARGV[5] .. struct.pack('>I6I4I4', now + tonumber(ARGV[10]), new_rev, length) .. ARGV[6]
end
local first = 1
while #kept - first + 1 > {IDEM_RECORD_BYTES} do  -- forget the oldest: expired or past the budget
  local forget_at = struct.unpack('>I6', kept, first + {REQUEST_DIGEST_BYTES})
  if forget_at > now and #kept - first + 1 <= tonumber(ARGV[9]) then break end
  first = first + {IDEM_RECORD_BYTES}
end
if first > 1 then kept = string.sub(kept, first) end
if kept ~= held then
  if kept == '' then redis.call('DEL', KEYS[3]) else redis.call('SET', KEYS[3], kept) end
end
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[7]) end
if ARGV[11] ~= '' then
  redis.call('RPUSH', KEYS[4], ARGV[11])
  redis.call('EXPIRE', KEYS[4], ARGV[7])
end
redis.call('PUBLISH', ARGV[8], new_rev .. ':' .. ARGV[2])
return {{1}}
"""
)

# KEYS: record, log, idem. ARGV: ttl seconds, request digest ("" for none).
# Returns {} when missing, else {rev, data, log length} and, when the digest is remembered, its
# {rev, log length, fingerprint}.
_LOAD = (
    _FIND
    + """
local got = redis.call('HMGET', KEYS[1], 'rev', 'data')
if not got[1] then return {} end
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[1]) end
local length = redis.call('LLEN', KEYS[2])
if ARGV[2] ~= '' then
  local held = redis.call('GET', KEYS[3]) or ''
  local at = find(held, ARGV[2])
  if at then
    local rev_made, logged, fingerprint = made(held, at)
    return {got[1], got[2], length, rev_made, logged, fingerprint}
  end
end
return {got[1], got[2], length}
"""
)

# KEYS: the rate limit's key. ARGV: emission interval (ms), burst. GCRA: returns {ms to wait, requests
# remaining at once, ms until the burst is full again}; the wait is 0 when the request is allowed (and
# counted).
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local held = tat
tat = tat + interval
local over = tat - now - burst * interval
if over > 0 then return {over, 0, held - now} end
redis.call('SET', KEYS[1], tat, 'PX', math.max(1, tat - now))
local remaining = math.floor((burst * interval - (tat - now)) / interval)
return {0, math.max(0, math.min(remaining, burst - 1)), tat - now}
"""

# KEYS: the live set. ARGV: session id, ms it counts as live, cap (0: none).
# Returns {1, live} admitted, {0, live, ms until the oldest expires} refused.
_ADMIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local live = redis.call('ZCARD', KEYS[1])
local cap = tonumber(ARGV[3])
if cap > 0 and live >= cap then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, live, tonumber(first[2]) - now}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return {1, live + 1}
"""

# KEYS: the rate limit's key. ARGV: emission interval (ms). Gives back one request ``_TAKE`` took (for
# a creation then refused): the theoretical arrival time moves back one interval. Returns the ms
# until the burst is full again. Under maxmemory with noeviction Redis refuses a script's first write
# when it may grow memory (SET) but not PEXPIRE, and lets a script that has written go on (so as not
# to break it half-way): PEXPIRE comes first, so a full Redis takes this too.
_GIVE_BACK = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local back = tonumber(redis.call('GET', KEYS[1]) or '0') - tonumber(ARGV[1])
if back <= now then
  redis.call('DEL', KEYS[1])
  return 0
end
redis.call('PEXPIRE', KEYS[1], back - now)
redis.call('SET', KEYS[1], back, 'PX', back - now)
return back - now
"""

# KEYS: the live set. ARGV: ms to count as live, then session ids. Only ids still counted are kept.
_TOUCH = """
local t = redis.call('TIME')
local until_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', 'GT', until_ms, ARGV[i]) end
return 0
"""

# KEYS: the live set. Returns the number of live sessions.
_COUNT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
"""

_WRITE_SCRIPT, _LOAD_SCRIPT = Script(_WRITE), Script(_LOAD)

# On a Redis Cluster (``sessions.cluster``) the write publishes to the session's shard channel (its
# hash tag, so its slot), and creation and deletion are scripts too: a cluster pipeline sends no
# MULTI with a PUBLISH, and a script runs on the slot's node as one step, MOVED/ASK and all.
_CLUSTER_WRITE = Script(_WRITE.replace("redis.call('PUBLISH'", "redis.call('SPUBLISH'"))
# KEYS: record, outbox. ARGV: data, ttl seconds, outbox entry ("" for none).
_CLUSTER_CREATE = """
redis.call('HSET', KEYS[1], 'rev', '1', 'data', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
if ARGV[3] ~= '' then
  redis.call('RPUSH', KEYS[2], ARGV[3])
  redis.call('EXPIRE', KEYS[2], ARGV[2])
end
return 1
"""
_CLUSTER_CREATE_SCRIPT = Script(_CLUSTER_CREATE)  # with --redis-wait-replicas: WAIT on its connection
# KEYS: record. ARGV: ttl seconds. A write (the TTL set again) for WAIT to count: ``confirm_replicated``.
_CONFIRM_SCRIPT = Script("redis.call('EXPIRE', KEYS[1], ARGV[1])\nreturn 1\n")
# KEYS: record, log, idem. ARGV: channel, message. Returns how many keys it deleted.
_CLUSTER_DELETE = """
local deleted = redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SPUBLISH', ARGV[1], ARGV[2])
return deleted
"""


# Deadlines (``RedisStore.set_deadline``): KEYS due (sorted set: session -> deadline), rev (hash:
# session -> the version the deadline is of); ARGV session, version, deadline ("" for none). An older
# version's deadline, written late by a slower replica, changes nothing.
_SET_DEADLINE = """
local held = redis.call('HGET', KEYS[2], ARGV[1])
if held and tonumber(held) > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
"""
_FORGET_DEADLINE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""
_DROP_LEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# Webhooks (``sessions.delivery``). The pending index: KEYS due (sorted set: session -> when its
# events are due), hinted (hash: session -> its last write's hint time), one hash tag. A hint:
# ARGV session, due, now; the due time only moves earlier.
_WEBHOOK_HINT = """
redis.call('ZADD', KEYS[1], 'LT', ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 1
"""
_WEBHOOK_HINT_SCRIPT = Script(_WEBHOOK_HINT)
# After a look at the outbox, read at ARGV[2]: due again at ARGV[3] ("": nothing left), unless a
# write hinted within ARGV[4] (the grace) of that read: then at the latest the grace after its hint,
# as its entry may have come in after the read. ARGV[1] the session.
_WEBHOOK_SETTLE = """
local hinted = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local grace = tonumber(ARGV[4])
if hinted > tonumber(ARGV[2]) - grace then
  local at = hinted + grace
  if ARGV[3] ~= '' and tonumber(ARGV[3]) < at then at = tonumber(ARGV[3]) end
  redis.call('ZADD', KEYS[1], at, ARGV[1])
  return 1
end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
"""
# KEYS the session's outbox; ARGV entries consumed, the first as read, the entry that replaces them
# ("": none), ttl seconds. -1 (nothing changed) when the first entry is no longer the one read:
# another replica's look came between. Returns the entries left.
_SETTLE_OUTBOX = """
local n = tonumber(ARGV[1])
if n > 0 then
  if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[2] then return -1 end
  redis.call('LTRIM', KEYS[1], n, -1)
end
if ARGV[3] ~= '' then
  redis.call('LPUSH', KEYS[1], ARGV[3])
  if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[4]) end
end
return redis.call('LLEN', KEYS[1])
"""
# Presence (``RedisStore.write_presence``): KEYS record, presence hash, channel; ARGV ttl (ms), the
# message to publish ("" for none), the number of fields to set, then name/value pairs, then the
# names to remove. Only for a session that exists; the hash expires with the session's TTL.
_PRESENCE_BODY = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = tonumber(ARGV[3])
for i = 0, n - 1 do redis.call('HSET', KEYS[2], ARGV[4 + 2 * i], ARGV[5 + 2 * i]) end
for i = 4 + 2 * n, #ARGV do redis.call('HDEL', KEYS[2], ARGV[i]) end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
"""
_PRESENCE = (
    _PRESENCE_BODY
    + """
if ARGV[2] ~= '' then redis.call('PUBLISH', KEYS[3], ARGV[2]) end
return 1
"""
)
_CLUSTER_PRESENCE = (
    _PRESENCE_BODY
    + """
if ARGV[2] ~= '' then redis.call('SPUBLISH', KEYS[3], ARGV[2]) end
return 1
"""
)


class RedisStore:
    """Sessions in Redis (redis-py asyncio with hiredis), shared by every replica."""

    def __init__(
        self,
        url: str,
        ttl: int = DEFAULT_TTL_SECONDS,
        prefix: str = "lawspeaker",
        timeout: float = 1.0,
        max_watchers: int = MAX_WATCHERS,
        watch_backlog: int = WATCH_BACKLOG,
        watch_bytes: int = WATCH_BYTES,
        request_id_ttl: int | None = None,
        request_id_bytes: int = REQUEST_ID_BYTES,
        wait_replicas: int = 0,
        wait_timeout: float = 1.0,
    ) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        # StoreConfigError: a URL that cannot work, refused before anything connects (its TLS files
        # are read on connecting; ``serve`` checks them at start: ``check_url`` in ``cli._quotas``)
        check_url(url, files=False)
        self.timeout = timeout
        self.ttl = ttl
        self.request_id_ttl = ttl if request_id_ttl is None else request_id_ttl
        self.request_id_bytes = request_id_bytes
        # With wait_replicas, a write is acknowledged only when WAIT says that many replicas have it.
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = max(1, round(wait_timeout * 1000))
        self.prefix = prefix
        self.url = url
        # A pool hands out a connection only after checking that Redis has not closed it, except in
        # redis-py 8.1 when maintenance notifications (a RESP3 feature of managed Redis) are on, and
        # its default, "auto", counts as on (redis/redis-py#4252). Then every connection the pool
        # held when Redis restarted fails its next call with a 503, however long after: seconds
        # later, when a burst of calls reaches the idle ones. Off, the pool checks (and reconnects).
        checked: dict[str, Any] = {}
        if hasattr(aioredis.ConnectionPool, "maint_notifications_enabled"):
            from redis.maint_notifications import MaintNotificationsConfig

            checked["maint_notifications_config"] = MaintNotificationsConfig(enabled=False)
        # ``redis+cluster://`` (sessions.cluster): redis-py's cluster client routes every command by
        # slot (MOVED/ASK followed); watch streams use sharded pub/sub, a connection per primary.
        self.cluster = is_cluster_url(url)
        # ``redis+sentinel://`` (sessions.sentinel): the clients below are of the primary the Sentinels
        # name (asked on each new connection); one Redis to the rest of the store, so kind "redis".
        self.sentinel: SentinelUrl | None = parse_sentinel_url(url) if is_sentinel_url(url) else None
        self._sentinels: Any = None  # redis-py's Sentinel, its clients of the Sentinels
        self.kind = "cluster" if self.cluster else "redis"  # the store label of its metrics
        self.max_watchers = max_watchers
        self.meter = metrics.StoreMeter(self.kind)
        self.watchers: Watchers | ClusterWatchers
        self.client: Any
        self.wait_client: Any
        self.watch_client: Any
        self.slots: SlotMap | None = None  # a cluster's slot map (``cluster.SlotMap``)
        if self.cluster:
            self.client = cluster_client(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                health_check_interval=30,
                max_connections=256,
            )
            # With wait_replicas, writes and creations WAIT over the store's own connections
            # (``cluster.NodeConnections``), each right behind its script on the connection that wrote.
            self.wait_client = self.client
            self.watch_client = None
            self.slots = SlotMap(self.client, seeds(url)[1])
            self.watchers = ClusterWatchers(
                self.slots,
                url,
                lambda node: aioredis.Redis.from_url(
                    node,
                    socket_timeout=timeout,
                    socket_connect_timeout=timeout,
                    health_check_interval=30,
                    retry=Retry(NoBackoff(), 0),
                    client_name=f"{prefix}-watchers",
                    **checked,
                ),
                unavailable,
                limit=max_watchers,
                backlog=watch_backlog,
                timeout=timeout,
                budget=watch_bytes,
            )
        else:
            if self.sentinel is not None:
                self._sentinels = sentinel_for(self.sentinel, timeout, **checked)

            def connect(**options: Any) -> Any:  # a client of the URL's Redis, or of the Sentinels' primary
                if self.sentinel is None:
                    return aioredis.Redis.from_url(url, **options)
                return master_client(self._sentinels, self.sentinel, **options)

            self.client = connect(
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                health_check_interval=30,
                max_connections=256,
                **checked,
            )
            # Writes that wait for replicas (WAIT blocks up to wait_timeout) get a pool whose read
            # timeout leaves room for it, so a slow acknowledgement is SESSION_WRITE_NOT_REPLICATED, not
            # a lost connection.
            self.wait_client = (
                connect(
                    socket_timeout=timeout + wait_timeout,
                    socket_connect_timeout=timeout,
                    health_check_interval=30,
                    max_connections=256,
                    **checked,
                )
                if wait_replicas
                else self.client
            )
            # Every watch stream of this replica shares one pub/sub connection (``Watchers``), from a
            # client of its own, so watchers (which need no seat token) cannot take the connections the
            # other session RPCs need. It never retries: a reconnection would lose the messages published
            # meanwhile, so a failure ends the streams instead (clients watch again).
            self.watch_client = connect(
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                health_check_interval=30,
                retry=Retry(NoBackoff(), 0),
                client_name=f"{prefix}-watchers",
                **checked,
            )
            self.watchers = Watchers(
                self.watch_client,
                unavailable,
                limit=max_watchers,
                backlog=watch_backlog,
                timeout=timeout,
                budget=watch_bytes,
            )
        self._stopping = False
        self._reconnected = -RECONNECT_SECONDS  # when ``_reconnect`` last dropped the connections
        # A cluster client is initialized (its slot map, then the COMMAND table it routes by) before
        # the first command: redis-py's own first use lets a concurrent command read the table while
        # it is being fetched (AttributeError 'AsyncCommandsParser' object has no attribute 'node').
        self._cluster_ready = not self.cluster
        self._logged: set[tuple[str, str]] = set()  # unexpected failures logged: (operation, code)
        self._writable: bool | None = None  # whether the last write (or probe) went through
        self._write_error = ""  # Redis's refusal of the last write, when it refused
        # The two scripts every session RPC runs go over one multiplexed connection (``resp``);
        # redis-py serves the rest (creation, deletion, the log, pub/sub).
        # On a cluster: one such connection per primary (``cluster.NodeConnections``).
        self._fast: Multiplexed | NodeConnections | None = None
        if self.slots is not None:  # a load, a creation and a confirmation may safely run twice
            repeatable = (_LOAD_SCRIPT, _CLUSTER_CREATE_SCRIPT, _CONFIRM_SCRIPT)
            self._fast = NodeConnections(self.slots, url, timeout, repeatable)
        elif self.sentinel is not None:  # its address asked of the Sentinels on each (re)connect
            locate = locator(self._sentinels, self.sentinel.master)
            self._fast = Multiplexed(self.sentinel.node_url, timeout, locate=locate)
        elif Multiplexed.serves(url):
            self._fast = Multiplexed(url, timeout)
        self._write_script = _CLUSTER_WRITE if self.cluster else _WRITE_SCRIPT
        self._scripts = {
            script: self.client.register_script(script.body) for script in (self._write_script, _LOAD_SCRIPT)
        }
        self._cluster_scripts = {
            name: self.client.register_script(body)
            for name, body in (("create", _CLUSTER_CREATE), ("delete", _CLUSTER_DELETE))
        }
        self._timer_scripts = {
            name: self.client.register_script(body)
            for name, body in (
                ("set", _SET_DEADLINE),
                ("forget", _FORGET_DEADLINE),
                ("drop", _DROP_LEASE),
                ("webhook_hint", _WEBHOOK_HINT),
                ("webhook_settle", _WEBHOOK_SETTLE),
                ("settle_outbox", _SETTLE_OUTBOX),
                ("presence", _CLUSTER_PRESENCE if self.cluster else _PRESENCE),
            )
        }
        self._quota_scripts = {
            name: self.client.register_script(body)
            for name, body in (
                ("take", _TAKE),
                ("give_back", _GIVE_BACK),
                ("admit", _ADMIT),
                ("touch", _TOUCH),
                ("count", _COUNT),
            )
        }

    @property
    def live_key(self) -> str:
        return f"{self.prefix}:live"

    def _live_ms(self) -> int:
        """How long a session counts as live after creation or a touch: its TTL and some slack, so
        that the count never drops a session Redis still holds (see ``touch``)."""
        return (self.ttl + live_slack(self.ttl)) * 1000

    async def check(self) -> None:
        """The start-up check that the URL names the kind of Redis it says (``serve`` calls it once):
        StoreConfigError (one line, naming the URL to use) when a plain URL names a Redis Cluster
        node, a ``redis+cluster://`` one a seed that is not a cluster node, or Redis refuses the URL's
        password or database; LawspeakerError(UNAVAILABLE) when Redis does not answer (the service
        starts anyway and answers 503 until it does). INFO refused (renamed, or an ACL on managed
        Redis) passes: it cannot tell. Behind Sentinel, first ``sentinel.misconfigured``: hosts that
        are not Sentinels, a master name they do not know."""
        if self.cluster:
            await self._check_seeds()
            return
        if self.sentinel is not None:
            problem = await misconfigured(self._sentinels, self.sentinel, self.timeout)
            if problem is not None:
                raise StoreConfigError(f"{shown(self.url)}: {problem}")
        await self._check_node(self.client, self.url, cluster=False)

    async def _check_node(self, client: Any, url: str, cluster: bool) -> None:
        """Whether the server behind ``client`` (reached through ``url``) is a cluster node as
        ``cluster`` says it should be (StoreConfigError if not)."""
        from urllib.parse import urlsplit

        from redis import exceptions

        try:
            info = await client.info("cluster")
        except (exceptions.AuthenticationError, exceptions.AuthorizationError) as err:
            raise StoreConfigError(f"{shown(url)}: Redis refused the credentials ({err})") from None
        except exceptions.ResponseError as err:
            if "DB index" in str(err):  # SELECT refused as the connection was set up
                raise StoreConfigError(f"{shown(url)}: Redis has no such database ({err})") from None
            return
        except exceptions.ConnectionError as err:
            if "Invalid Database" in str(err):
                raise StoreConfigError(f"{shown(url)}: Redis has no such database ({err})") from None
            raise unavailable(f"Redis: {type(err).__name__}") from None
        except (OSError, TimeoutError, exceptions.RedisError) as err:
            raise unavailable(f"Redis: {type(err).__name__}") from None
        enabled = str(info.get("cluster_enabled", "0")) == "1"
        if enabled == cluster:
            return
        parts = urlsplit(url)
        host, port = parts.hostname or "?", parts.port or 6379
        tls = parts.scheme.startswith("rediss")
        if enabled:
            use = f"{'rediss' if tls else 'redis'}+cluster://{host}:{port}[,host:port...]"
            raise StoreConfigError(f"{shown(url)} is a Redis Cluster node: use --redis-url {use}")
        use = f"{'rediss' if tls else 'redis'}://{host}:{port}"
        raise StoreConfigError(
            f"{shown(self.url)}: seed {host}:{port} is not a Redis Cluster node (cluster_enabled:0): "
            f"use --redis-url {use} for a single Redis server"
        )

    async def _check_seeds(self) -> None:
        """Every seed of a ``redis+cluster://`` URL that answers must be a cluster node."""
        import asyncio

        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        from lawspeaker.sessions.cluster import node_url

        async def one(host: str, port: int) -> None:
            url = node_url(self.url, host, port)
            client = aioredis.Redis.from_url(
                url,
                socket_timeout=self.timeout,
                socket_connect_timeout=self.timeout,
                retry=Retry(NoBackoff(), 0),
            )
            try:
                await self._check_node(client, url, cluster=True)
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()

        got = await asyncio.gather(*(one(h, p) for h, p in seeds(self.url)[1]), return_exceptions=True)
        for err in got:
            if isinstance(err, StoreConfigError):
                raise err
        errors = [err for err in got if isinstance(err, BaseException)]
        if len(errors) == len(got):  # no seed answered
            raise errors[0]

    async def take(self, bucket: str, per_minute: float, burst: int) -> Taken:
        script = self._quota_scripts["take"]
        interval = max(1, round(60_000 / per_minute))
        key = f"{self.prefix}:rate:{bucket}"
        got = await self._guard("take", lambda: script(keys=[key], args=[interval, burst]))
        wait, remaining, full_in = got
        return Taken(float(wait) / 1000, int(remaining), max(float(full_in), 0.0) / 1000)

    async def admit(self, key: SessionKey, cap: int) -> Admission:
        script = self._quota_scripts["admit"]
        got = await self._guard(
            "admit", lambda: script(keys=[self.live_key], args=[key.session, self._live_ms(), cap])
        )
        if int(got[0]) == 1:
            return Admission(True, int(got[1]))
        return Admission(False, int(got[1]), max(float(got[2]), 0.0) / 1000)

    async def unadmit(self, key: SessionKey) -> None:
        # ZREM: Redis takes it even when full (noeviction refuses only writes that may grow memory).
        await self._guard("unadmit", lambda: self.client.zrem(self.live_key, key.session))

    async def give_back(self, bucket: str, per_minute: float) -> None:
        script = self._quota_scripts["give_back"]
        interval = max(1, round(60_000 / per_minute))  # as ``take`` counts it
        key = f"{self.prefix}:rate:{bucket}"
        await self._guard("give_back", lambda: script(keys=[key], args=[interval]))

    async def write_health(self) -> WriteHealth:
        """A write probe (``SET <prefix>:health``, expiring): Redis refuses it, as every session write,
        when full (OOM under maxmemory-policy noeviction) or read-only; with INFO memory (not on a
        cluster, whose nodes each have their own), when Redis has a maxmemory."""
        from redis import exceptions

        probe = f"{self.prefix}:health"

        async def run() -> tuple[str, dict[str, Any] | None]:
            refused = ""
            try:
                await self.client.set(probe, b"1", px=PROBE_MS)
            except exceptions.ResponseError as err:
                failure = classify(err)
                if failure is None or not failure.writes_refused:
                    raise
                refused = f"{failure.code}: {str(err)[:200]}"
            memory: dict[str, Any] | None = None
            if not self.cluster:
                try:
                    info = await self.client.info("memory")
                except exceptions.ResponseError:  # INFO refused (an ACL, a renamed command)
                    info = {}
                if int(info.get("maxmemory", 0) or 0) > 0:
                    memory = {
                        "usedBytes": int(info.get("used_memory", 0)),
                        "maxBytes": int(info["maxmemory"]),
                        "policy": _text(info.get("maxmemory_policy", "unknown")),
                    }
            return refused, memory

        refused, memory = await self._guard("probe", run)
        self._note_writable(not refused, refused)
        return WriteHealth(not refused, refused, memory)

    async def live_sessions(self) -> int:
        script = self._quota_scripts["count"]
        return int(await self._guard("live_sessions", lambda: script(keys=[self.live_key], args=[])))

    async def touch(self, keys: Sequence[SessionKey]) -> None:
        if keys:
            script = self._quota_scripts["touch"]
            args: list[str | int] = [self._live_ms(), *(k.session for k in keys)]
            await self._guard("touch", lambda: script(keys=[self.live_key], args=args))

    async def _script(
        self, operation: str, script: Script, key: SessionKey, args: list[Any], keys: list[str] | None = None
    ) -> Any:
        keys, fast = keys if keys is not None else self.keys(key), self._fast
        if fast is not None:
            return await self._guard(operation, lambda: fast.script(script, keys, args))
        return await self._guard(operation, lambda: self._scripts[script](keys=keys, args=args))

    def keys(self, key: SessionKey) -> list[str]:
        return [key.name(self.prefix, part) for part in ("record", "log", "idem")]

    def channel(self, key: SessionKey) -> str:
        return key.name(self.prefix, "updates")

    async def _guard(self, operation: str, call: Callable[[], Awaitable[T]]) -> T:
        """One round trip (``operation`` names it in metrics and traces), its failures mapped to
        UNAVAILABLE where nothing was written."""
        started = time.perf_counter()
        ok = False
        tracing = calls.tracing()
        span = tracing.redis(operation, self.kind) if tracing is not None else None
        try:
            got = await self._trip(operation, call)
            ok = True
            return got
        finally:
            self.meter.record(operation, time.perf_counter() - started, ok)
            if span is not None:
                tracing.ended(span, ok)

    async def _trip(self, operation: str, call: Callable[[], Awaitable[T]]) -> T:
        """``call``, every failure of Redis or its transport raised as UNAVAILABLE (``failures``):
        the network, a timeout, Redis refusing to serve for now (full, a read-only replica after a
        failover, a cluster reconfiguring, a long script running: a refused script or an aborted
        MULTI writes nothing), and the errors that mean a bug or a misconfiguration (logged once).
        Anything else is the service's own bug (or a LawspeakerError of ``call``) and passes."""
        from redis import exceptions

        try:
            if not self._cluster_ready:
                await self.client.initialize()  # once; concurrent first calls wait on its lock
                self._cluster_ready = True
            return await call()
        except Exception as err:
            failure = classify(err)
            if failure is None:
                raise
            # A cluster client that followed MOVED, ASK or TRYAGAIN as often as it may (a slot
            # moving, a node failing over) or finds a slot unserved: not now, and nothing was
            # written. The slot map is learnt again (``cluster.SlotMap``: from the URL's seeds
            # too, should redis-py have lost every node it knew); after an exception of redis-py's
            # own code too (its slot cache read while being rebuilt, ``failures``).
            cluster_error = isinstance(err, (exceptions.ClusterError, exceptions.RedisClusterException))
            if self.slots is not None and (failure.in_client or cluster_error):
                self.slots.refresh_soon()
            await self._failed(operation, failure, err)
            raise unavailable(f"Redis: {failure.code}", failure.outcome_unknown) from None

    async def _failed(self, operation: str, failure: Failure, err: Exception) -> None:
        """What a failed round trip tells: writes refused (the store is degraded), a node demoted
        (reconnect), or an error the service does not expect (logged once per operation and code)."""
        if failure.writes_refused:
            self._note_writable(False, f"{failure.code}: {str(err)[:200]}")
        if not failure.expected:
            seen = (operation, failure.code)
            if seen not in self._logged and len(self._logged) < 1000:
                self._logged.add(seen)
                explained = ""
                if failure.code in ("MOVED", "ASK", "MovedError", "AskError") and not self.cluster:
                    explained = (
                        f" ({self.where()} answers as a Redis Cluster node: a cluster formed after the "
                        "service started? Restart it with --redis-url redis+cluster://host:port[,host:port...])"
                    )
                log.error(
                    "session store: Redis call %r failed with %s, which the service does not expect (a bug "
                    "or a misconfiguration; answered UNAVAILABLE, logged once): %s%s",
                    operation,
                    type(err).__name__,
                    str(err)[:300] or "(no text)",
                    explained,
                    exc_info=err if failure.in_client else None,  # where in redis-py
                )
        if failure.demoted:
            await self._reconnect(failure.code)

    async def _reconnect(self, code: str) -> None:
        """The node this store's connections reached answered as no longer the primary (demoted by a
        failover: READONLY; or MASTERDOWN, LOADING). New connections reach whatever the URL's
        address points at now (DNS, or a proxy such as HAProxy that checks ``role:master``, or a
        managed Redis's endpoint), but the open ones stay on the old node (a proxy does not move
        established connections): so the pipelined connection is retired (the calls on it get their
        replies, the next one connects anew) and redis-py's pools drop their idle connections and the
        busy ones as they come back. At most once per RECONNECT_SECONDS: every call in flight on
        the old connections fails the same way at once. A cluster's clients follow its slot map."""
        now = time.monotonic()
        if self.cluster or now - self._reconnected < RECONNECT_SECONDS:
            return
        self._reconnected = now
        log.warning(
            "session store: Redis at %s answered %s (a failover demoted it?): reconnecting",
            self.where(),
            code,
        )
        if isinstance(self._fast, Multiplexed):
            self._fast.retire()
        for client in {id(c): c for c in (self.client, self.wait_client)}.values():
            pool = client.connection_pool
            with contextlib.suppress(Exception):
                if hasattr(pool, "update_active_connections_for_reconnect"):  # redis-py 8
                    await pool.update_active_connections_for_reconnect()  # disconnected when released
                await pool.disconnect(inuse_connections=False)

    def _note_writable(self, writable: bool, error: str = "") -> None:
        """What the last write (or write probe) told: whether Redis takes writes (the metric)."""
        self._write_error = "" if writable else error
        if writable is not self._writable:
            self._writable = writable
            if not writable:
                log.warning("session store: Redis refuses writes (%s)", error)
            else:
                log.info("session store: Redis takes writes again")
        self.meter.writable(writable)

    async def create(self, key: SessionKey, data: bytes, outbox: bytes = b"") -> int:
        record, box = self.keys(key)[0], self.outbox_key(key.session)
        if outbox:
            await self._hint_outbox(key.session)

        def creating(pipe: Any) -> None:
            pipe.hset(record, mapping={"rev": "1", "data": data})
            pipe.expire(record, self.ttl)
            if outbox:  # the events of the first version, in the same MULTI
                pipe.rpush(box, outbox)
                pipe.expire(box, self.ttl)

        async def run() -> int:
            if self.cluster:
                created = self._cluster_scripts["create"](keys=[record, box], args=[data, self.ttl, outbox])
                return int(await created)
            async with self.client.pipeline(transaction=True) as pipe:
                creating(pipe)
                await pipe.execute()
            return 1

        async def run_and_wait() -> int:
            if isinstance(self._fast, NodeConnections):  # WAIT right behind the script that wrote
                wait = self.wait_replicas, self.wait_timeout_ms
                fields = [data, self.ttl, outbox]
                _, acked = await self._fast.script_and_wait(
                    _CLUSTER_CREATE_SCRIPT, [record, box], fields, *wait
                )
                self._check_replicated(acked, "The session was created", CREATE_OUTCOME)
                return 1
            async with self.wait_client.client() as one:  # WAIT counts this connection's writes
                async with one.pipeline(transaction=True) as pipe:
                    creating(pipe)
                    await pipe.execute()
                acked = int(await one.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms))
            self._check_replicated(acked, "The session was created", CREATE_OUTCOME)
            return 1

        rev = await self._guard("create", run_and_wait if self.wait_replicas else run)
        if self._writable is not True:  # Redis took a write: no longer degraded
            self._note_writable(True)
        return rev

    def _check_replicated(self, acked: int, what: str, then: str) -> None:
        if acked < self.wait_replicas:
            raise not_replicated(what, acked, self.wait_replicas, self.wait_timeout_ms, then)

    async def confirm_replicated(self, key: SessionKey) -> None:
        """WAIT counts the writes of the connection it is sent on, and a request id's replay writes
        nothing: so this sets the session's TTL again (a write, which follows the first attempt's
        in the replication stream) and WAITs for that. A replica that has it has the move too."""
        if not self.wait_replicas:
            return
        record = self.keys(key)[0]
        fast = self._fast

        async def run() -> int:
            if isinstance(fast, NodeConnections):
                wait = self.wait_replicas, self.wait_timeout_ms
                _, acked = await fast.script_and_wait(_CONFIRM_SCRIPT, [record], [self.ttl], *wait)
                return int(acked)
            async with self.wait_client.pipeline(transaction=False) as pipe:
                pipe.expire(record, self.ttl)
                pipe.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms)
                _, acked = await pipe.execute()
            return int(acked)

        acked = await self._guard("confirm", run)
        self._check_replicated(acked, "The move was written", MOVE_OUTCOME)

    async def _write_and_wait(self, key: SessionKey, args: list[Any]) -> Any:
        """The write script, then WAIT on the same connection (``--redis-wait-replicas``)."""
        script = self._scripts[self._write_script]
        fast = self._fast
        keys = [*self.keys(key), self.outbox_key(key.session)]

        async def run() -> Any:
            if isinstance(fast, NodeConnections):  # a cluster: WAIT right behind the script that wrote
                got, acked = await fast.script_and_wait(
                    self._write_script, keys, args, self.wait_replicas, self.wait_timeout_ms
                )
                if int(got[0]) == 1:
                    self._check_replicated(acked, "The move was written", MOVE_OUTCOME)
                return got
            async with self.wait_client.pipeline(transaction=False) as pipe:
                await script(keys=keys, args=args, client=pipe)
                pipe.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms)
                got, acked = await pipe.execute()
            if int(got[0]) == 1:
                self._check_replicated(int(acked), "The move was written", MOVE_OUTCOME)
            return got

        return await self._guard("write", run)

    async def durability(self) -> Durability:
        """What an acknowledged write survives, from the server's own settings (CONFIG GET, INFO)."""

        from redis import exceptions

        async def read() -> tuple[dict[str, str], int] | str:
            config: dict[Any, Any] = {}
            try:
                for name in ("appendonly", "appendfsync", "save"):
                    config.update(await self.client.config_get(name))
                info = await self.client.info("replication")
            except exceptions.ResponseError as err:  # CONFIG is often renamed or refused on managed Redis
                if is_transient(err):
                    raise
                return f"CONFIG GET refused: {str(err)[:80]}"
            return {_text(k): _text(v) for k, v in config.items()}, int(info.get("connected_slaves", 0))

        got = await self._guard("durability", read)
        if isinstance(got, str):
            return Durability.unknown(got, self.wait_replicas)
        config, replicas = got
        return Durability.of(config, replicas, self.wait_replicas)

    async def load(self, key: SessionKey, idem_field: bytes = b"") -> Loaded | None:
        got: Sequence[Any] = await self._script("load", _LOAD_SCRIPT, key, [self.ttl, idem_field])
        if not got:
            return None
        replay = Remembered(int(got[3]), int(got[4]), bytes(got[5])) if len(got) > 3 else None
        return Loaded(int(got[0]), bytes(got[1]), int(got[2]), replay)

    async def write(self, key: SessionKey, write: Write) -> WriteResult:
        args: list[bytes | str | int] = [
            str(write.expected_rev),
            write.data,
            write.push if write.push is not None else b"",
            "1" if write.pop else "0",
            write.idem_field,
            write.fingerprint,
            self.ttl,
            self.channel(key),
            self.request_id_bytes,
            self.request_id_ttl * 1000,
            write.outbox,
        ]
        keys = [*self.keys(key), self.outbox_key(key.session)]

        async def send() -> Sequence[Any]:
            if self.wait_replicas:
                waited: Sequence[Any] = await self._write_and_wait(key, args)
                return waited
            written: Sequence[Any] = await self._script("write", self._write_script, key, args, keys)
            return written

        if write.outbox:
            # The hint is sent first, then the write, without waiting in between: on the pipelined
            # connection Redis runs them in that order, and the write costs no extra round trip.
            _, got = await asyncio.gather(self._hint_outbox(key.session), send())
        else:
            got = await send()
        status = int(got[0])
        if status == 1:
            if self._writable is not True:  # Redis took a write: no longer degraded
                self._note_writable(True)
            return WriteResult(WriteStatus.WRITTEN)
        if status == 0:
            return WriteResult(WriteStatus.MISSING)
        if status == 2:
            return WriteResult(WriteStatus.REPLAY, Remembered(int(got[1]), int(got[2]), bytes(got[3])))
        return WriteResult(WriteStatus.STALE)

    async def read_log(self, key: SessionKey, start: int, stop: int) -> list[bytes]:
        if stop <= start:
            return []
        log_key = self.keys(key)[1]
        got: list[bytes] = await self._guard("read_log", lambda: self.client.lrange(log_key, start, stop - 1))
        return got

    async def put_ticket(self, key: SessionKey, digest: bytes, seat: int, seconds: int) -> None:
        name = key.name(self.prefix, "ticket:" + digest.hex())  # in the session's slot on a cluster
        await self._guard("ticket", lambda: self.client.set(name, str(seat), ex=seconds))

    async def take_ticket(self, key: SessionKey, digest: bytes) -> int | None:
        name = key.name(self.prefix, "ticket:" + digest.hex())
        got = await self._guard("ticket", lambda: self.client.getdel(name))
        return None if got is None else int(got)

    @property
    def _deadline_keys(self) -> list[str]:
        # one hash tag: the sorted set of deadlines and the versions they are of share a slot
        return [f"{self.prefix}:{{deadlines}}:due", f"{self.prefix}:{{deadlines}}:rev"]

    async def set_deadline(self, session: str, rev: int, at: float | None) -> None:
        script = self._timer_scripts["set"]
        when = "" if at is None else repr(at)
        await self._guard("deadline", lambda: script(keys=self._deadline_keys, args=[session, rev, when]))

    async def hint_deadline(self, session: str, at: float) -> None:
        due = self._deadline_keys[0]
        await self._guard("deadline", lambda: self.client.zadd(due, {session: at}, lt=True))

    async def due_deadlines(self, now: float, limit: int) -> list[str]:
        due = self._deadline_keys[0]
        got = await self._guard(
            "deadlines_due", lambda: self.client.zrangebyscore(due, "-inf", now, start=0, num=limit)
        )
        return [_text(s) for s in got]

    async def forget_deadline(self, session: str) -> None:
        script = self._timer_scripts["forget"]
        await self._guard("deadline", lambda: script(keys=self._deadline_keys, args=[session]))

    def outbox_key(self, session: str) -> str:
        """The session's webhook outbox: its hash tag (its slot on a cluster), not its rules version,
        so events of a session made by older rules are still delivered."""
        return f"{self.prefix}:{{{session}}}:outbox"

    @property
    def _webhook_keys(self) -> list[str]:
        return [f"{self.prefix}:{{webhooks}}:due", f"{self.prefix}:{{webhooks}}:hinted"]

    async def _hint_outbox(self, session: str) -> None:
        """Before a write with webhook events: best effort, as the writer delivers them itself; should
        this fail and the writer stop right after its write, its events wait for its next write."""
        now = time.time()
        try:
            await self.webhook_hint(session, now + OUTBOX_GRACE_SECONDS, now)
        except LawspeakerError as err:
            log.warning("session store: webhooks of %s not hinted (%s)", session, err.reason)

    async def webhook_hint(self, session: str, at: float, now: float) -> None:
        args, keys, fast = [session, repr(at), repr(now)], self._webhook_keys, self._fast
        if fast is not None:  # on a write's path: over the pipelined connection, as the write itself
            await self._guard("webhook_hint", lambda: fast.script(_WEBHOOK_HINT_SCRIPT, keys, args))
            return
        script = self._timer_scripts["webhook_hint"]
        await self._guard("webhook_hint", lambda: script(keys=keys, args=args))

    async def webhooks_due(self, now: float, limit: int) -> list[str]:
        due = self._webhook_keys[0]
        got = await self._guard(
            "webhooks_due", lambda: self.client.zrangebyscore(due, "-inf", now, start=0, num=limit)
        )
        return [_text(s) for s in got]

    async def webhooks_pending(self) -> int:
        due = self._webhook_keys[0]
        return int(await self._guard("webhooks_pending", lambda: self.client.zcard(due)))

    async def read_outbox(self, session: str, limit: int) -> list[bytes]:
        box = self.outbox_key(session)
        got: list[bytes] = await self._guard("read_outbox", lambda: self.client.lrange(box, 0, limit - 1))
        return [bytes(e) for e in got]

    async def settle_outbox(self, session: str, consumed: int, head: bytes, rest: bytes) -> int:
        script = self._timer_scripts["settle_outbox"]
        args: list[Any] = [consumed, head, rest, self.ttl]
        keys = [self.outbox_key(session)]
        return int(await self._guard("settle_outbox", lambda: script(keys=keys, args=args)))

    async def webhook_settle(self, session: str, looked: float, due: float | None, grace: float) -> None:
        script = self._timer_scripts["webhook_settle"]
        args = [session, repr(looked), "" if due is None else repr(due), repr(grace)]
        await self._guard("webhook_settle", lambda: script(keys=self._webhook_keys, args=args))

    async def take_lease(self, name: str, holder: str, ms: int) -> bool:
        lease = f"{self.prefix}:lease:{name}"
        got = await self._guard("lease", lambda: self.client.set(lease, holder, nx=True, px=ms))
        return bool(got)

    async def drop_lease(self, name: str, holder: str) -> None:
        script = self._timer_scripts["drop"]
        await self._guard("lease", lambda: script(keys=[f"{self.prefix}:lease:{name}"], args=[holder]))

    @property
    def _lobby_key(self) -> str:
        return f"{self.prefix}:lobby"  # one sorted set (one slot on a cluster), every score 0

    async def peek(self, keys: Sequence[SessionKey]) -> list[tuple[int, bytes] | None]:
        async def one(key: SessionKey) -> tuple[int, bytes] | None:
            rev, data = await self.client.hmget(self.keys(key)[0], ["rev", "data"])
            return None if rev is None or data is None else (int(rev), bytes(data))

        return await self._guard("peek", lambda: asyncio.gather(*(one(k) for k in keys)))

    async def lobby_add(self, entry: str) -> None:
        await self._guard("lobby", lambda: self.client.zadd(self._lobby_key, {entry: 0}))

    async def lobby_remove(self, entries: Sequence[str]) -> None:
        if entries:
            await self._guard("lobby", lambda: self.client.zrem(self._lobby_key, *entries))

    async def lobby_range(self, low: str, high: str, after: str, limit: int) -> list[str]:
        start = "(" + after if after and after >= low else "[" + low
        got = await self._guard(
            "lobby", lambda: self.client.zrangebylex(self._lobby_key, start, "[" + high, start=0, num=limit)
        )
        return [_text(e) for e in got]

    async def read_presence(self, key: SessionKey) -> dict[str, float]:
        name = key.name(self.prefix, "presence")
        got = await self._guard("presence", lambda: self.client.hgetall(name))
        return {_text(k): float(v) for k, v in got.items()}

    async def write_presence(
        self, key: SessionKey, put: dict[str, float], drop: Sequence[str], announce: bool
    ) -> None:
        script = self._timer_scripts["presence"]
        args: list[Any] = [self.ttl * 1000, PRESENCE if announce else b"", len(put)]
        for name, at in put.items():
            args += [name, repr(at)]
        args += list(drop)
        keys = [self.keys(key)[0], key.name(self.prefix, "presence"), self.channel(key)]
        await self._guard("presence", lambda: script(keys=keys, args=args))

    async def delete(self, key: SessionKey) -> bool:
        async def run() -> int:
            if self.cluster:
                script = self._cluster_scripts["delete"]
                deleted = int(await script(keys=self.keys(key), args=[self.channel(key), DELETED]))
                await self.client.zrem(self.live_key, key.session)
                return deleted
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.delete(*self.keys(key))
                pipe.publish(self.channel(key), DELETED)
                deleted, _ = await pipe.execute()
            await self.client.zrem(self.live_key, key.session)  # another slot in a cluster: apart
            return int(deleted)

        return await self._guard("delete", run) > 0

    @contextlib.asynccontextmanager
    async def subscribe(self, key: SessionKey) -> AsyncIterator[AsyncIterator[bytes]]:
        if self._stopping:
            yield _closed()
            return
        queue = await self.watchers.add(self.channel(key).encode())

        async def updates() -> AsyncIterator[bytes]:
            while True:
                item = await queue.get()
                if isinstance(item, LawspeakerError):
                    raise item
                yield item

        try:
            yield updates()
        finally:
            await self.watchers.remove(queue)

    async def memory_usage(self, key: SessionKey) -> int:
        """Bytes Redis uses for the session's keys (MEMORY USAGE), for the benchmark."""
        total = 0
        for name in self.keys(key):
            used: int | None = await self.client.memory_usage(name, samples=0)
            total += int(used or 0)
        return total

    def stop_watchers(self) -> None:
        self._stopping = True
        self.watchers.stop(CLOSED)

    def where(self) -> str:
        """host:port of the Redis server, for the service's own logs (never for clients)."""
        if self.cluster:
            tls = " over TLS" if self.url.startswith("rediss") else ""
            return "Redis Cluster seeds " + ",".join(f"{h}:{p}" for h, p in seeds(self.url)[1]) + tls
        if self.sentinel is not None:
            return self.sentinel.where()
        kwargs = self.client.connection_pool.connection_kwargs
        tls = " over TLS" if self.url.startswith("rediss:") else ""
        return f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}{tls}"

    async def close(self) -> None:
        self._stopping = True
        if self.slots is not None:
            await self.slots.close()
        if self._fast is not None:
            await self._fast.close()
        await self.watchers.close()
        with contextlib.suppress(Exception):
            await self.client.aclose()
        if self.wait_client is not self.client:
            with contextlib.suppress(Exception):
                await self.wait_client.aclose()
        if self.watch_client is not None:
            with contextlib.suppress(Exception):
                await self.watch_client.aclose()
        if self._sentinels is not None:
            with contextlib.suppress(Exception):
                await self._sentinels.aclose()


async def _closed() -> AsyncIterator[bytes]:
    yield CLOSED
