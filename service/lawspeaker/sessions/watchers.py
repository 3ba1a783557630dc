"""Every watch stream of a replica on one Redis pub/sub connection.

A watcher gets a queue; the first watcher of a session subscribes its channel and the last one to
leave unsubscribes it. One reader task takes each message off the connection and puts it on the
queue of every watcher of that channel, so a thousand watchers cost one connection and one task,
not a thousand of each.

Nothing is skipped silently. The connection does not reconnect behind the watchers' backs (a
message published while it was away would be lost): when it fails, every watcher's stream ends
with UNAVAILABLE and a client that watches again starts from the current version. A watcher that
falls ``backlog`` messages or ``budget`` bytes behind (a client that stopped reading) ends the same
way, so that a slow client cannot make the replica buffer without bound (:class:`WatchQueue`, which
the in-process store uses too). A stream counts against ``limit`` from ``add`` to ``remove``, also
after it ended, while its client has not yet taken the end: so ``limit`` times the per-stream bound
caps what unread streams hold.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from lawspeaker.games.core import ErrorCode, LawspeakerError

log = logging.getLogger("lawspeaker.sessions")

Item = bytes | LawspeakerError  # a message, or the error that ends the stream
WATCH_BYTES = 64 * 1024  # bytes of messages a watcher may have waiting before its stream is ended
ITEM_BYTES = 64  # what a waiting message costs besides its bytes (object header, queue slot), rounded up
RETRY_AFTER = 0.05  # seconds new watchers are refused at least after connecting failed (see Watchers)


class WatchQueue:
    """One watcher's messages not yet taken: at most ``backlog`` of them and ``budget`` bytes (each
    message charged its length plus ITEM_BYTES, though one published message is the same bytes
    object for every watcher of its session), then the item that ends the stream.

    A message that alone exceeds the budget is let in when nothing waits, so a large version is
    delivered rather than refused; the bound is then that one message.
    """

    def __init__(self, backlog: int, budget: int) -> None:
        self.backlog = backlog
        self.budget = budget
        self.bytes = 0  # charged for the messages waiting
        self._items: asyncio.Queue[tuple[Item, int]] = asyncio.Queue()

    def __len__(self) -> int:
        """Items waiting."""
        return self._items.qsize()

    def offer(self, data: bytes) -> bool:
        """Queues ``data``, or returns False when the watcher is too far behind to take it (the
        caller then ends the stream with :meth:`end` and sends it nothing more)."""
        cost = len(data) + ITEM_BYTES
        waiting = self._items.qsize()
        if waiting and (waiting >= self.backlog or self.bytes + cost > self.budget):
            return False
        self.bytes += cost
        self._items.put_nowait((data, cost))
        return True

    def end(self, item: Item) -> None:
        """The last item: the stream ends after what waits (an error, or the shutdown message)."""
        self._items.put_nowait((item, 0))

    async def get(self) -> Item:
        item, cost = await self._items.get()
        self.bytes -= cost
        return item

    def behind(self) -> LawspeakerError:
        """The error that ends this watcher's stream when a message did not fit."""
        return LawspeakerError(
            ErrorCode.UNAVAILABLE,
            "WATCH_STREAM_BEHIND",
            f"The watch stream fell {len(self)} versions behind ({self.bytes} bytes waiting; its client "
            "stopped reading), so it was ended. Watch again to resume from the current version.",
        )


def watch_limit(limit: int) -> LawspeakerError:
    return LawspeakerError(
        ErrorCode.UNAVAILABLE,
        "WATCH_LIMIT",
        f"This replica serves {limit} watch streams at most, and all are in use. "
        "Watch again later; the other session calls keep working.",
    )


class Watchers:
    """The fan-out of one pub/sub connection (redis-py asyncio ``PubSub``) to per-watcher queues.

    ``client`` is the redis-py client whose pool gives the connection (built with no retries: see
    the module's docstring); ``unavailable(detail)`` makes the error that ends the streams.
    """

    def __init__(
        self,
        client: Any,
        unavailable: Callable[[str], LawspeakerError],
        limit: int,
        backlog: int,
        timeout: float,
        poll: float = 5.0,
        budget: int = WATCH_BYTES,
        sharded: bool = False,
        on_moved: Callable[[bytes], None] | None = None,
        on_failed: Callable[[], None] | None = None,
    ) -> None:
        self._client = client
        # Sharded pub/sub (a Redis Cluster node: SSUBSCRIBE, smessage). Redis ends a shard channel's
        # subscription itself when its slot moves to another node: that channel's streams then end
        # with UNAVAILABLE (their clients watch again, on the new owner).
        self._sharded = sharded
        self._on_moved = on_moved  # told of each channel whose slot moved (to refresh a slot map)
        self._on_failed = on_failed  # told when the connection failed (its node may be gone)
        self._leaving: dict[bytes, int] = {}  # channels let go whose sunsubscribe is still to come
        self._unavailable = unavailable
        self.limit = limit
        self.backlog = backlog
        self.budget = budget  # bytes a watcher may have waiting (see WatchQueue)
        self._timeout = timeout  # for a subscription to be confirmed
        self._poll = poll  # the reader wakes this often when idle (redis-py's health check runs then)
        # When connecting fails, new watchers are refused at once for as long as the failed attempt
        # took (at least RETRY_AFTER) instead of each waiting its turn to try again (they subscribe
        # one at a time): a connection that hangs is tried at most every other ``timeout``, while one
        # refused outright (Redis restarting) is tried again soon, so watching resumes within
        # RETRY_AFTER of Redis being back (not up to ``timeout`` later).
        self._retry_at = 0.0
        self._failure = "Redis: the connection was lost"  # what the last failure was
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._channels: dict[bytes, set[WatchQueue]] = {}  # the watchers each message goes to
        # Every watcher not yet removed, with its channel: what ``limit`` counts. A watcher that
        # ended (fell behind, or the connection failed) stays here until its stream lets it go.
        self._queues: dict[WatchQueue, bytes] = {}
        self._confirming: dict[bytes, asyncio.Future[None]] = {}
        self._lock = asyncio.Lock()
        self._closing: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        """Watch streams open now (what ``limit`` counts)."""
        return len(self._queues)

    async def add(self, channel: bytes) -> WatchQueue:
        """A new watcher's queue, once ``channel`` is subscribed (so no later message is missed)."""
        async with self._lock:
            if len(self._queues) >= self.limit:
                raise watch_limit(self.limit)
            if channel not in self._channels:
                if self._pubsub is None and asyncio.get_running_loop().time() < self._retry_at:
                    raise self._unavailable(self._failure)
                await self._subscribe(channel)
            queues = self._channels.get(channel)
            if queues is None:  # the connection failed just after confirming the subscription
                raise self._unavailable(self._failure)
            queue = WatchQueue(self.backlog, self.budget)
            queues.add(queue)
            self._queues[queue] = channel
            return queue

    async def _subscribe(self, channel: bytes) -> None:
        if self._pubsub is None:
            self._pubsub = self._client.pubsub()
        pubsub = self._pubsub
        confirmed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._confirming[channel] = confirmed
        self._channels[channel] = set()
        started = asyncio.get_running_loop().time()
        try:
            await (pubsub.ssubscribe if self._sharded else pubsub.subscribe)(channel)
            if self._reader is None:
                self._reader = asyncio.create_task(self._read(pubsub), name="lawspeaker-watchers")
        except Exception as err:  # the command did not go out: the connection is gone
            self._confirming.pop(channel, None)
            self._channels.pop(channel, None)
            detail = f"Redis: {type(err).__name__}"
            _log_unexpected("subscribing a watch channel", err)
            now = asyncio.get_running_loop().time()
            self._retry_at = now + max(RETRY_AFTER, now - started)
            if self._pubsub is pubsub:
                self._fail(detail)
            self._failure = detail
            raise self._unavailable(detail) from None
        try:
            await asyncio.wait_for(asyncio.shield(confirmed), self._timeout)
        except TimeoutError:
            # Slow, not known to be broken: this watcher gives up; the channel is let go.
            self._confirming.pop(channel, None)
            if self._channels.get(channel) == set():
                await self._let_go(channel)
            raise self._unavailable("Redis: the subscription was not confirmed in time") from None

    async def remove(self, queue: WatchQueue) -> None:
        """The watcher is gone: the last one of a channel unsubscribes it."""
        async with self._lock:
            channel = self._queues.pop(queue, None)
            if channel is None:
                return  # removed already
            queues = self._channels.get(channel)
            if queues is None:
                return  # every stream ended when the connection failed (or at shutdown)
            queues.discard(queue)  # (gone already if it fell behind)
            if not queues:
                await self._let_go(channel)

    async def _let_go(self, channel: bytes) -> None:
        """Nobody watches ``channel`` any more: unsubscribe it."""
        del self._channels[channel]
        if self._pubsub is None:
            return
        try:
            if self._sharded:
                self._leaving[channel] = self._leaving.get(channel, 0) + 1
                await self._pubsub.sunsubscribe(channel)
            else:
                await self._pubsub.unsubscribe(channel)
        except Exception as err:  # the reader sees the same failure and ends all
            log.warning("unsubscribing a watch channel failed: %s", type(err).__name__)

    async def _read(self, pubsub: Any) -> None:
        """Hand each message to its channel's watchers until the connection fails or is closed."""
        try:
            while True:
                message = await pubsub.get_message(timeout=self._poll)
                if message is None:
                    continue
                kind, channel = message["type"], message["channel"]
                if kind in ("message", "smessage"):
                    self._deliver(channel, message["data"])
                elif kind in ("subscribe", "ssubscribe"):
                    confirmed = self._confirming.pop(channel, None)
                    if confirmed is not None and not confirmed.done():
                        confirmed.set_result(None)
                elif kind == "sunsubscribe":
                    self._unsubscribed(channel)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # the connection is gone: every stream ends
            _log_unexpected("reading the watch channels", err)
            if self._pubsub is pubsub:
                self._fail(f"Redis: {type(err).__name__}")

    def _unsubscribed(self, channel: bytes) -> None:
        """A shard channel's subscription ended: as asked (``_let_go``), or because its slot moved."""
        leaving = self._leaving.get(channel, 0)
        if leaving:
            if leaving == 1:
                del self._leaving[channel]
            else:
                self._leaving[channel] = leaving - 1
            return
        queues = self._channels.pop(channel, None)
        if self._on_moved is not None:
            self._on_moved(channel)
        if queues is None:
            return
        error = self._unavailable("Redis: the session's hash slot moved to another node")
        for queue in queues:
            queue.end(error)
        confirmed = self._confirming.pop(channel, None)
        if confirmed is not None and not confirmed.done():
            confirmed.set_exception(error)

    def _deliver(self, channel: bytes, data: bytes) -> None:
        for queue in list(self._channels.get(channel, ())):
            if queue.offer(data):
                continue
            # This watcher stopped reading: end its stream after what it has. Its channel stays
            # subscribed until the stream lets it go (``remove``).
            self._channels[channel].discard(queue)
            queue.end(queue.behind())

    def fail(self, detail: str) -> None:
        """Ends every stream with UNAVAILABLE (``detail``) and drops the connection, as if it had
        failed: for a cluster node that is no longer a primary (a node that vanished may never close
        its connection, so the reader would not notice)."""
        self._fail(detail)

    def _fail(self, detail: str) -> None:
        """End every stream with UNAVAILABLE and drop the connection; the next watcher reconnects."""
        self._failure = detail
        error = self._unavailable(detail)
        self._end_all(error)
        self._leaving.clear()
        for confirmed in self._confirming.values():
            if not confirmed.done():
                confirmed.set_exception(error)
        self._confirming.clear()
        pubsub, self._pubsub = self._pubsub, None
        reader, self._reader = self._reader, None
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
        if pubsub is not None:
            task = asyncio.create_task(_close(pubsub))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        if self._on_failed is not None:
            self._on_failed()

    def _end_all(self, item: Item) -> None:
        for queues in self._channels.values():
            for queue in queues:
                queue.end(item)
        self._channels.clear()

    def stop(self, closed: bytes) -> None:
        """Shutting down: every stream gets ``closed`` and ends."""
        self._end_all(closed)

    async def close(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            await _close(pubsub)


async def _close(pubsub: Any) -> None:
    with contextlib.suppress(Exception):
        await pubsub.aclose()


_LOGGED: set[str] = set()  # the unexpected pub/sub failures logged already, by class


def _log_unexpected(what: str, err: Exception) -> None:
    """A pub/sub failure that is no failure of the network or of Redis's availability (an ACL that
    refuses SUBSCRIBE, a reply that cannot be read, a bug): logged once per class at error level,
    with its text. The streams end with UNAVAILABLE all the same."""
    from lawspeaker.sessions.failures import classify

    failure = classify(err)
    name = type(err).__name__
    if (failure is None or not failure.expected) and name not in _LOGGED and len(_LOGGED) < 100:
        _LOGGED.add(name)
        log.error("%s failed with %s, which the service does not expect: %s", what, name, str(err)[:300])
