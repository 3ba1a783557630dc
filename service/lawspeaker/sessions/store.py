"""Where sessions live: one :class:`SessionStore` protocol, an in-process store and a Redis store.

A session is three keys plus a pub/sub channel, all named after the session id and the rules
version (``lawspeaker:{<session id>}:<rules version>:record|log|idem|idemq|updates``). The braces are a
Redis Cluster hash tag: every key of one session hashes to one slot, so one Lua script may touch
them all. The record holds the revision and the serialized session (states as protobuf bytes); the
log is a list of serialized moves; idem maps request ids to the response they produced (the latest
IDEMPOTENCY_WINDOW of them, oldest first in the list idemq).

Every write is a compare-and-set on the revision, done by one Lua script that writes the record,
the log entry and the idempotency record together, resets the sliding TTL and publishes the new
revision with its record (so that every watcher gets every version, none skipped), or writes
nothing. Reads slide the TTL too. The stores know nothing of games or protobuf: they move bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions.resp import Multiplexed, ReplyError, Script, is_transient
from lawspeaker.sessions.watchers import Watchers

DELETED = b"deleted"  # the pub/sub message announcing a deletion; any other is b"<revision>:<record>"
CLOSED = b"closed"  # what subscribers get when the service shuts down
DEFAULT_TTL_SECONDS = 86400
MAX_WATCHERS = 10_000  # watch streams per replica on Redis (all on one pub/sub connection)
WATCH_BACKLOG = 256  # versions a watch stream may fall behind before it is ended
IDEMPOTENCY_WINDOW = 64  # request ids remembered per session: a retry comes soon after its request
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SessionKey:
    """Names one session's keys: its id and the rules version its states were made by."""

    session: str
    rules_version: str

    def name(self, prefix: str, part: str) -> str:
        return f"{prefix}:{{{self.session}}}:{self.rules_version}:{part}"


@dataclass(frozen=True, slots=True)
class Loaded:
    """A session as read: its revision, its serialized record and the log length."""

    rev: int
    data: bytes
    log_length: int
    replay: bytes | None = None  # the idempotency record asked for, when there is one


class WriteStatus(enum.Enum):
    WRITTEN = "WRITTEN"
    STALE = "STALE"  # the revision moved on: nothing was written
    MISSING = "MISSING"  # the session does not exist (expired or deleted)
    REPLAY = "REPLAY"  # the request id was already used: nothing was written


@dataclass(frozen=True, slots=True)
class WriteResult:
    status: WriteStatus
    replay: bytes | None = None


@dataclass(frozen=True, slots=True)
class Write:
    """One atomic compare-and-set: the new record, the log change and the idempotency record."""

    expected_rev: int
    data: bytes
    push: bytes | None = None  # append this entry to the log
    pop: bool = False  # remove the last log entry
    idem_field: str = ""
    idem_value: bytes = b""


class SessionStore(Protocol):
    """Keeps sessions. Every method raises LawspeakerError(UNAVAILABLE) when the backend is down."""

    ttl: int

    async def create(self, key: SessionKey, data: bytes) -> int:
        """Stores a new session at revision 1 and returns the revision."""
        ...

    async def load(self, key: SessionKey, idem_field: str = "") -> Loaded | None:
        """The session (and the idempotency record ``idem_field``), sliding its TTL; None if absent."""
        ...

    async def write(self, key: SessionKey, write: Write) -> WriteResult:
        """Applies ``write`` atomically if the revision is still ``write.expected_rev``."""
        ...

    async def read_log(self, key: SessionKey, start: int, stop: int) -> list[bytes]:
        """Log entries ``start`` (0-based, inclusive) to ``stop`` (exclusive)."""
        ...

    async def delete(self, key: SessionKey) -> bool:
        """Deletes the session; False when it did not exist."""
        ...

    def subscribe(self, key: SessionKey) -> contextlib.AbstractAsyncContextManager[AsyncIterator[bytes]]:
        """Subscribed on entry: yields each new version (``b"<revision>:<record>"``) or DELETED."""
        ...

    def stop_watchers(self) -> None:
        """Ends every subscription (with CLOSED) so streams finish before a shutdown."""
        ...

    async def close(self) -> None:
        """Releases connections."""
        ...


def unavailable(detail: str) -> LawspeakerError:
    return LawspeakerError(
        ErrorCode.UNAVAILABLE,
        "SESSION_STORE_UNAVAILABLE",
        f"The session store is unavailable ({detail}). A write is all or nothing: if it did not "
        "reach the store, nothing changed; retry with the same request_id (and etag) to apply it at "
        "most once. Sessions resume when the store is back; the stateless RPCs keep working.",
    )


# --------------------------------------------------------------------------- in process


@dataclass
class _MemorySession:
    rev: int
    data: bytes
    expires: float
    log: list[bytes] = field(default_factory=list)
    idem: dict[str, bytes] = field(default_factory=dict)


class MemoryStore:
    """The embedded default: sessions in this process, for a single replica. Same semantics as Redis."""

    def __init__(self, ttl: int = DEFAULT_TTL_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self._clock = clock
        self._sessions: dict[SessionKey, _MemorySession] = {}
        self._watchers: dict[SessionKey, set[asyncio.Queue[bytes]]] = {}
        self._swept = clock()

    def _live(self, key: SessionKey) -> _MemorySession | None:
        found = self._sessions.get(key)
        if found is not None and found.expires <= self._clock():
            del self._sessions[key]
            return None
        if found is not None:
            found.expires = self._clock() + self.ttl
        return found

    def _publish(self, key: SessionKey, message: bytes) -> None:
        for queue in self._watchers.get(key, ()):
            queue.put_nowait(message)

    async def create(self, key: SessionKey, data: bytes) -> int:
        now = self._clock()
        if now - self._swept > 60:  # forget the sessions nobody came back to
            self._swept = now
            for old in [k for k, v in self._sessions.items() if v.expires <= now]:
                del self._sessions[old]
        self._sessions[key] = _MemorySession(1, data, now + self.ttl)
        return 1

    async def load(self, key: SessionKey, idem_field: str = "") -> Loaded | None:
        found = self._live(key)
        if found is None:
            return None
        replay = found.idem.get(idem_field) if idem_field else None
        return Loaded(found.rev, found.data, len(found.log), replay)

    async def write(self, key: SessionKey, write: Write) -> WriteResult:
        found = self._live(key)
        if found is None:
            return WriteResult(WriteStatus.MISSING)
        if write.idem_field and write.idem_field in found.idem:
            return WriteResult(WriteStatus.REPLAY, found.idem[write.idem_field])
        if found.rev != write.expected_rev:
            return WriteResult(WriteStatus.STALE)
        found.rev += 1
        found.data = write.data
        if write.push is not None:
            found.log.append(write.push)
        if write.pop and found.log:
            found.log.pop()
        if write.idem_field:
            found.idem[write.idem_field] = write.idem_value
            while len(found.idem) > IDEMPOTENCY_WINDOW:
                del found.idem[next(iter(found.idem))]
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

    @contextlib.asynccontextmanager
    async def subscribe(self, key: SessionKey) -> AsyncIterator[AsyncIterator[bytes]]:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._watchers.setdefault(key, set()).add(queue)

        async def updates() -> AsyncIterator[bytes]:
            while True:
                yield await queue.get()

        try:
            yield updates()
        finally:
            watchers = self._watchers.get(key)
            if watchers is not None:
                watchers.discard(queue)
                if not watchers:
                    del self._watchers[key]

    def stop_watchers(self) -> None:
        for queues in self._watchers.values():
            for queue in queues:
                queue.put_nowait(CLOSED)

    async def close(self) -> None:
        self.stop_watchers()


# --------------------------------------------------------------------------- Redis

# KEYS: record, log, idem, idemq. ARGV: expected rev, data, push entry ("" for none), pop ("1"/"0"),
# idem field ("" for none), idem value, ttl seconds, channel, idempotency window.
# Returns {1} written, {0} missing, {-1} stale, {2, value} replay.
_WRITE = """
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return {0} end
if ARGV[5] ~= '' then
  local seen = redis.call('HGET', KEYS[3], ARGV[5])
  if seen then return {2, seen} end
end
if rev ~= ARGV[1] then return {-1} end
local new_rev = tostring(tonumber(rev) + 1)
redis.call('HSET', KEYS[1], 'rev', new_rev, 'data', ARGV[2])
if ARGV[3] ~= '' then redis.call('RPUSH', KEYS[2], ARGV[3]) end
if ARGV[4] == '1' then redis.call('RPOP', KEYS[2]) end
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[5], ARGV[6])
  if redis.call('RPUSH', KEYS[4], ARGV[5]) > tonumber(ARGV[9]) then
    redis.call('HDEL', KEYS[3], redis.call('LPOP', KEYS[4]))
  end
end
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[7]) end
redis.call('PUBLISH', ARGV[8], new_rev .. ':' .. ARGV[2])
return {1}
"""

# KEYS: record, log, idem, idemq. ARGV: ttl seconds, idem field ("" for none).
# Returns {} when missing, else {rev, data, log length, idem value or false}.
_LOAD = """
local got = redis.call('HMGET', KEYS[1], 'rev', 'data')
if not got[1] then return {} end
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[1]) end
local replay = false
if ARGV[2] ~= '' then replay = redis.call('HGET', KEYS[3], ARGV[2]) end
return {got[1], got[2], redis.call('LLEN', KEYS[2]), replay}
"""

_WRITE_SCRIPT, _LOAD_SCRIPT = Script(_WRITE), Script(_LOAD)


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
    ) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        self.ttl = ttl
        self.prefix = prefix
        self.url = url
        self.client: Any = aioredis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=30,
            max_connections=256,
        )
        # Every watch stream of this replica shares one pub/sub connection (``Watchers``), from a
        # client of its own, so watchers (which need no seat token) cannot take the connections the
        # other session RPCs need. It never retries: a reconnection would lose the messages published
        # meanwhile, so a failure ends the streams instead (clients watch again).
        self.watch_client: Any = aioredis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=30,
            retry=Retry(NoBackoff(), 0),
            client_name=f"{prefix}-watchers",
        )
        self.watchers = Watchers(
            self.watch_client, unavailable, limit=max_watchers, backlog=watch_backlog, timeout=timeout
        )
        self._stopping = False
        # The two scripts every session RPC runs go over one multiplexed connection (``resp``);
        # redis-py serves the rest (creation, deletion, the log, pub/sub) and TLS URLs.
        self._fast = Multiplexed(url, timeout) if Multiplexed.serves(url) else None
        self._scripts = {
            script: self.client.register_script(script.body) for script in (_WRITE_SCRIPT, _LOAD_SCRIPT)
        }

    async def _script(self, script: Script, key: SessionKey, args: list[Any]) -> Any:
        keys, fast = self.keys(key), self._fast
        if fast is not None:
            return await self._guard(lambda: fast.script(script, keys, args))
        return await self._guard(lambda: self._scripts[script](keys=keys, args=args))

    def keys(self, key: SessionKey) -> list[str]:
        return [key.name(self.prefix, part) for part in ("record", "log", "idem", "idemq")]

    def channel(self, key: SessionKey) -> str:
        return key.name(self.prefix, "updates")

    async def _guard(self, call: Callable[[], Awaitable[T]]) -> T:
        from redis import exceptions

        try:
            return await call()
        except (TimeoutError, exceptions.ConnectionError, exceptions.TimeoutError, OSError) as err:
            raise unavailable(f"Redis: {type(err).__name__}") from None
        except (ReplyError, exceptions.ResponseError) as err:
            # Redis is up but refuses to serve for now (full, a read-only replica after a failover,
            # a cluster reconfiguring, a long script running): unavailable too, and nothing was
            # written (a refused script or an aborted MULTI writes nothing). Any other error reply
            # is a bug. The multiplexed connection's errors start with Redis's code.
            if is_transient(err):
                code = str(err).split(" ", 1)[0] if isinstance(err, ReplyError) else type(err).__name__
                raise unavailable(f"Redis: {code}") from None
            raise

    async def create(self, key: SessionKey, data: bytes) -> int:
        record = self.keys(key)[0]

        async def run() -> int:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.hset(record, mapping={"rev": "1", "data": data})
                pipe.expire(record, self.ttl)
                await pipe.execute()
            return 1

        return await self._guard(run)

    async def load(self, key: SessionKey, idem_field: str = "") -> Loaded | None:
        got: Sequence[Any] = await self._script(_LOAD_SCRIPT, key, [self.ttl, idem_field])
        if not got:
            return None
        replay = got[3] if isinstance(got[3], bytes) else None
        return Loaded(int(got[0]), bytes(got[1]), int(got[2]), replay)

    async def write(self, key: SessionKey, write: Write) -> WriteResult:
        args: list[bytes | str | int] = [
            str(write.expected_rev),
            write.data,
            write.push if write.push is not None else b"",
            "1" if write.pop else "0",
            write.idem_field,
            write.idem_value,
            self.ttl,
            self.channel(key),
            IDEMPOTENCY_WINDOW,
        ]
        got: Sequence[Any] = await self._script(_WRITE_SCRIPT, key, args)
        status = int(got[0])
        if status == 1:
            return WriteResult(WriteStatus.WRITTEN)
        if status == 0:
            return WriteResult(WriteStatus.MISSING)
        if status == 2:
            return WriteResult(WriteStatus.REPLAY, bytes(got[1]))
        return WriteResult(WriteStatus.STALE)

    async def read_log(self, key: SessionKey, start: int, stop: int) -> list[bytes]:
        if stop <= start:
            return []
        got: list[bytes] = await self._guard(lambda: self.client.lrange(self.keys(key)[1], start, stop - 1))
        return got

    async def delete(self, key: SessionKey) -> bool:
        async def run() -> int:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.delete(*self.keys(key))
                pipe.publish(self.channel(key), DELETED)
                deleted, _ = await pipe.execute()
            return int(deleted)

        return await self._guard(run) > 0

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
        kwargs = self.client.connection_pool.connection_kwargs
        return f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}"

    async def close(self) -> None:
        self._stopping = True
        if self._fast is not None:
            await self._fast.close()
        await self.watchers.close()
        with contextlib.suppress(Exception):
            await self.client.aclose()
        with contextlib.suppress(Exception):
            await self.watch_client.aclose()


async def _closed() -> AsyncIterator[bytes]:
    yield CLOSED
