"""The session store on a Redis Cluster: URL form, the cluster client, watch streams per node.

``--redis-url redis+cluster://[user:password@]host:port[,host:port...][?options]`` (``rediss+cluster``
for TLS, with the same ``ssl_*`` options as ``rediss://``) names seed nodes of a cluster; any one
that answers tells the client the rest. Every key of a session carries one hash tag, so each
session lives in one slot and each of the store's scripts touches one slot.

The two scripts every session call runs (load and write) go over the pipelined connection of
the single-node store (``resp.Multiplexed``), one per primary (:class:`NodeConnections`): the
slot of the session's hash tag picks the node from redis-py's slot map (:class:`SlotMap`);
``MOVED`` sends the call to the node named (and remembers it for that slot), ``ASK`` (a slot being
migrated) sends it there once behind ``ASKING``; ``TRYAGAIN`` (a script over keys on both sides of a
migration) is UNAVAILABLE, and the client retries. The rarer commands go through redis-py's
``RedisCluster``, which routes by slot and follows ``MOVED``/``ASK`` itself, with a connection pool
per node.

A primary that dies sends no ``MOVED``: its replica is promoted, and nothing would tell the map.
So a call that fails on a node (it cannot connect, the connection is lost or times out, or the node
answers ``CLUSTERDOWN``, ``TRYAGAIN`` or ``MASTERDOWN``) has the map learnt again (one refresh at a
time, at most every REFRESH_EVERY seconds, shared by every call that fails meanwhile), and the calls
after it go to the slot's new owner. The failed call itself is sent again to that owner only when it
surely did not run (its connection could not be opened, or the node refused it) or runs harmlessly
twice (a load, a creation); a write that may have run raises (UNAVAILABLE), and its client retries
with its request id, which the write script remembers. With ``--redis-wait-replicas`` a write and a
creation are sent with ``WAIT`` right behind them, each on a connection of its own for the time of
the call (``Multiplexed.script_and_wait``): a WAIT holds up the commands behind it.

Watch streams use sharded pub/sub (``SSUBSCRIBE``; the write script publishes with
``SPUBLISH``), so a session's updates travel only inside the shard that holds it. This replica
keeps one pub/sub connection per primary (a :class:`Watchers` each, ``sharded``). When a slot
moves, Redis ends its shard channels' subscriptions (``sunsubscribe``): those streams end with
UNAVAILABLE and their clients watch again (on the slot's new owner), so nothing is skipped silently.
When a node's pub/sub connection fails (the node died), or a refreshed map no longer counts the
node as a primary (one that vanished without closing its connections tells nothing), its streams
end the same way, its pub/sub client is let go, and the map is learnt again before the next
subscription.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable, Collection
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from redis.crc import key_slot

from lawspeaker.games.core import LawspeakerError
from lawspeaker.sessions.addresses import host_ports
from lawspeaker.sessions.resp import Multiplexed, ReplyError, Script
from lawspeaker.sessions.watchers import Watchers, watch_limit

log = logging.getLogger("lawspeaker.sessions")
T = TypeVar("T")

SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
# How often redis-py's cluster client tries a command again after a connection error, a timeout or
# CLUSTERDOWN (learning the slot map again before each try). Its default, 10, tries at once, so more
# tries do not outlast a failover (which takes the cluster's node timeout and an election), while
# each try of a node that does not answer at all costs up to the socket timeout: ten of them would
# hold a call for ten seconds. And a try after a lost connection sends again a command that may
# have run: the fewer the better.
CLUSTER_RETRIES = 1
REFRESH_EVERY = 0.1  # seconds between two refreshes of the slot map at least (see SlotMap)
# Error replies after which the slot map is learnt again: a node refused the call (nothing ran).
REFRESH_ON = ("CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN")


def is_cluster_url(url: str) -> bool:
    return urlsplit(url).scheme in SCHEMES


def seeds(url: str) -> tuple[str, list[tuple[str, int]]]:
    """A plain ``redis://`` URL of the first seed node (credentials and options kept) and the
    (host, port) of every seed."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"not a cluster URL: {url!r}")
    userinfo, _, hosts = parts.netloc.rpartition("@")
    found = host_ports(hosts, "a cluster URL names its seeds")
    if not found:
        raise ValueError("a cluster URL names at least one seed node")
    if parts.path not in ("", "/", "/0"):
        raise ValueError("a Redis Cluster has only database 0")
    first = f"{found[0][0]}:{found[0][1]}"
    netloc = f"{userinfo}@{first}" if userinfo else first
    return urlunsplit((SCHEMES[parts.scheme], netloc, "", parts.query, "")), found


def cluster_client(url: str, **options: Any) -> Any:
    """A redis-py asyncio ``RedisCluster`` over the seeds of ``url`` (connected on first use)."""
    from redis.asyncio.cluster import ClusterNode, RedisCluster
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    first, nodes = seeds(url)
    extra = [ClusterNode(host, port) for host, port in nodes[1:]]
    options.setdefault("retry", Retry(NoBackoff(), CLUSTER_RETRIES))  # its backoff is not used
    return RedisCluster.from_url(first, startup_nodes=extra or None, **options)


def node_url(url: str, host: str, port: int) -> str:
    """``url``'s first seed swapped for the node ``host:port`` (same credentials and TLS)."""
    first = urlsplit(seeds(url)[0])
    userinfo = first.netloc.rpartition("@")[0]
    netloc = f"{userinfo}@{host}:{port}" if userinfo else f"{host}:{port}"
    return urlunsplit((first.scheme, netloc, "", first.query, ""))


Node = tuple[str, int]  # a node's (host, port)
REDIRECTIONS = 5  # MOVED/ASK followed per call at most (a slot moves once at a time)


class SlotMap:
    """Which primary serves each slot: redis-py's map, shared with its cluster client (which also
    learns it again after its own failures), learnt again here when a node fails a call.

    One refresh runs at a time, and one starts at most ``every`` seconds after the last ended: the
    calls that fail meanwhile wait for the same one, so that a dead node's calls (hundreds a second)
    cost one ``CLUSTER SLOTS`` per ``every``, not one each. A refresh asks the nodes redis-py knows
    (the node that just failed last), then the URL's seeds if none of those answers: redis-py
    forgets the nodes a map no longer names (a dead one, until a later map names it again), and on
    its own it would never find the cluster again once every node it knows has gone or moved.
    """

    def __init__(self, cluster: Any, seed_nodes: list[Node], every: float = REFRESH_EVERY) -> None:
        self._cluster = cluster
        self._seeds = list(seed_nodes)
        self._every = every
        self._task: asyncio.Task[None] | None = None
        self._ended = float("-inf")  # when the last refresh ended (the event loop's clock)
        self._failed: str | None = None  # the node that failed last, "host:port": asked last
        self._listeners: list[Callable[[frozenset[Node]], Awaitable[None]]] = []
        self.refreshes = 0  # refreshes done (for tests)

    @property
    def _nodes(self) -> Any:
        return self._cluster.nodes_manager

    def listen(self, listener: Callable[[frozenset[Node]], Awaitable[None]]) -> None:
        """``listener(primaries)`` after each refresh, with the primaries the map names."""
        self._listeners.append(listener)

    async def owner(self, slot: int) -> Node:
        """The primary of ``slot`` as the map says (learnt first if it never was)."""
        if not self._nodes.slots_cache:
            await self.refresh()
        node = self._nodes.get_node_from_slot(slot)  # SlotNotCoveredError when nobody serves it
        return str(node.host), int(node.port)

    def primaries(self) -> frozenset[Node]:
        return frozenset(
            (str(node.host), int(node.port))
            for node in self._nodes.nodes_cache.values()
            if node.server_type == "primary"
        )

    async def refresh(self, failed: Node | None = None) -> None:
        """Learns the map again (``failed``: the node a call just failed on), or waits for the refresh
        under way; it never raises (a call that fails meanwhile says why)."""
        await asyncio.shield(self._start(failed))

    def refresh_soon(self) -> None:
        """A refresh, not waited for (after a failure of redis-py's own client)."""
        self._start(None)

    def _start(self, failed: Node | None) -> asyncio.Task[None]:
        loop = asyncio.get_running_loop()
        if failed is not None:
            self._failed = f"{failed[0]}:{failed[1]}"
        task = self._task
        if task is None or task.done() or task.get_loop() is not loop:
            delay = max(0.0, self._ended + self._every - loop.time())
            task = self._task = loop.create_task(self._run(delay), name="lawspeaker-slot-map")
        return task

    async def _learn(self, failed: str | None) -> None:
        """CLUSTER SLOTS of a node redis-py knows, or else of one of the URL's seeds, made startup
        nodes for that (redis-py lets go of those the map does not name once it is learnt)."""
        from redis.asyncio.cluster import ClusterNode

        try:
            await self._nodes.initialize(last_failed_node_name=failed)
            return
        except Exception:
            known = self._nodes.startup_nodes
            for host, port in self._seeds:
                node = ClusterNode(host, port, **self._nodes.connection_kwargs)
                known.setdefault(node.name, node)
        await self._nodes.initialize(last_failed_node_name=failed)

    async def close(self) -> None:
        """Stops a refresh under way (the store is closing)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def _run(self, delay: float) -> None:
        loop = asyncio.get_running_loop()
        if delay:
            await asyncio.sleep(delay)
        failed, self._failed = self._failed, None
        before = self.primaries()
        try:
            await self._learn(failed)
        except Exception as err:  # no node answered: the calls say UNAVAILABLE, the next one tries again
            log.warning("the Redis Cluster's slot map could not be learnt: %s", err)
            return
        finally:
            self._ended = loop.time()
            self.refreshes += 1
        now = self.primaries()
        if now != before and before:
            log.warning(
                "Redis Cluster primaries now %s (were %s)",
                ", ".join(sorted(f"{h}:{p}" for h, p in now)),
                ", ".join(sorted(f"{h}:{p}" for h, p in before)),
            )
        for listener in self._listeners:
            try:
                await listener(now)
            except Exception:  # one listener's bug must not keep the others stale
                log.exception("after a refresh of the Redis Cluster's slot map")


class _Unsent(Exception):
    """A connection to a node could not be opened: the call's command was never sent."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


async def _opened(connection: Multiplexed) -> None:
    try:
        await connection.open()
    except OSError as err:  # refused, unreachable, timed out (a TimeoutError is an OSError)
        raise _Unsent(err) from None


MAX_LANES = 256  # connections to one node for calls that WAIT, at once (redis-py's pool's size)
IDLE_LANES = 16  # of which are kept open between calls


class _Lanes:
    """Connections to one primary for the calls that WAIT: one call on each at a time (a WAIT holds
    up the commands behind it; ``Multiplexed.script_and_wait``), the idle ones kept for the next."""

    def __init__(self, url: str, timeout: float) -> None:
        self._url = url
        self._timeout = timeout
        self._idle: list[Multiplexed] = []
        self._busy = 0
        self.closed = False

    def take(self) -> Multiplexed:
        if self._idle:
            lane = self._idle.pop()
        elif self._busy >= MAX_LANES:
            raise _Unsent(ConnectionError(f"{MAX_LANES} calls already wait for replicas on this node"))
        else:
            lane = Multiplexed(self._url, self._timeout)
        self._busy += 1
        return lane

    async def give(self, lane: Multiplexed, healthy: bool) -> None:
        self._busy -= 1
        if healthy and not self.closed and len(self._idle) < IDLE_LANES:
            self._idle.append(lane)
        else:
            await lane.close()

    async def close(self) -> None:
        self.closed = True
        idle, self._idle = self._idle, []
        for lane in idle:
            await lane.close()


class NodeConnections:
    """A pipelined connection per primary for the session scripts, chosen by the keys' slot.

    ``repeatable``: the scripts that may run twice harmlessly (a load; a creation, whose session
    nobody knows yet), sent again to a slot's new owner after a failure that may have let them run.
    """

    def __init__(self, slots: SlotMap, url: str, timeout: float, repeatable: Collection[Script] = ()) -> None:
        self._slots = slots
        self._url = url
        self._timeout = timeout
        self._repeatable = frozenset(repeatable)
        self._nodes: dict[Node, Multiplexed] = {}
        self._lanes: dict[Node, _Lanes] = {}
        # Slots a MOVED reply placed elsewhere than the map says (until a refresh of the map).
        self._moved: dict[int, Node] = {}
        # The scripts each node ran for a call that WAITs: the first one on a node (a promoted
        # replica, say, whose script cache is empty) is sent in full, as an EVALSHA answered NOSCRIPT
        # would be followed by a WAIT that holds the call up to its timeout when no replica is in
        # sync yet (the first one there wrote nothing for replicas to confirm).
        self._known: set[tuple[Node, str]] = set()
        slots.listen(self._refreshed)

    def _node(self, where: Node) -> Multiplexed:
        if where not in self._nodes:
            self._nodes[where] = Multiplexed(node_url(self._url, *where), self._timeout)
        return self._nodes[where]

    async def _owner(self, slot: int) -> Node:
        if slot in self._moved:
            return self._moved[slot]
        return await self._slots.owner(slot)

    async def script(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """The script's reply from the primary of its keys' slot (all in one slot: one hash tag)."""

        async def send(where: Node, asking: bool) -> Any:
            connection = self._node(where)
            await _opened(connection)
            if asking:  # the full script: the importing node may not know its SHA-1 yet
                return await connection.asking("EVAL", script.body, len(keys), *keys, *args)
            return await connection.script(script, keys, args)

        return await self._call(keys, send, script in self._repeatable)

    async def script_and_wait(
        self, script: Script, keys: list[str], args: list[Any], replicas: int, wait_ms: int
    ) -> tuple[Any, int]:
        """The script's reply and how many replicas have its writes (``WAIT replicas wait_ms`` on the
        connection that wrote them, right behind the script: ``Multiplexed.script_and_wait``)."""

        async def send(where: Node, asking: bool) -> tuple[Any, int]:
            lanes = self._lanes.get(where)
            if lanes is None:
                lanes = self._lanes[where] = _Lanes(node_url(self._url, *where), self._timeout)
            lane = lanes.take()
            healthy = False
            full = (where, script.sha) not in self._known
            try:
                await _opened(lane)
                try:
                    got = await lane.script_and_wait(script, keys, args, replicas, wait_ms, asking, full)
                except ReplyError:
                    healthy = True  # an error reply: the connection is fine
                    raise
                healthy = True
                self._known.add((where, script.sha))
                return got
            finally:
                await lanes.give(lane, healthy)

        return await self._call(keys, send, script in self._repeatable)

    async def _call(self, keys: list[str], send: Callable[[Node, bool], Awaitable[T]], repeatable: bool) -> T:
        """``send(node, asking)`` to the slot's primary, following MOVED and ASK; after a failure the
        map is learnt again and the call sent once more to the new owner if that is safe."""
        slot = key_slot(keys[0].encode())
        where, asking, may_resend = await self._owner(slot), False, True
        for _ in range(REDIRECTIONS):
            failure: Exception
            try:
                return await send(where, asking)
            except ReplyError as err:
                kind, _, address = str(err).partition(" ")
                if kind in ("MOVED", "ASK"):
                    host, _, port = address.split(" ")[-1].rpartition(":")
                    where = (host or where[0], int(port))
                    asking = kind == "ASK"
                    if not asking:
                        self._moved[slot] = where
                    continue
                if kind not in REFRESH_ON:
                    raise
                failure, ran = err, False  # the node refused it
            except _Unsent as err:
                failure, ran = err.error, False
            except OSError as err:  # the connection was lost or timed out: it may have run
                failure, ran = err, True
            owner = await self._failed(slot, where)
            if not may_resend or owner == where or (ran and not repeatable):
                raise failure
            where, asking, may_resend = owner, False, False
        raise ReplyError(f"TRYAGAIN slot {slot} redirected {REDIRECTIONS} times")

    async def _failed(self, slot: int, where: Node) -> Node:
        """A call failed on ``where``: the slot's owner after the map is learnt again (unless it
        already names another node)."""
        if self._moved.get(slot) == where:
            del self._moved[slot]
        owner = await self._owner(slot)
        if owner == where:
            await self._slots.refresh(failed=where)
            owner = await self._owner(slot)
        return owner

    async def _refreshed(self, primaries: frozenset[Node]) -> None:
        """After a refresh: the map knows better than the MOVED replies seen before it, and the
        connections to nodes that are no longer primaries (dead or demoted) are closed."""
        self._moved.clear()
        self._known = {known for known in self._known if known[0] in primaries}
        for where in [w for w in self._nodes if w not in primaries]:
            await self._nodes.pop(where).close()
        for where in [w for w in self._lanes if w not in primaries]:
            await self._lanes.pop(where).close()

    async def close(self) -> None:
        nodes, self._nodes = self._nodes, {}
        for connection in nodes.values():
            await connection.close()
        lanes, self._lanes = self._lanes, {}
        for pool in lanes.values():
            await pool.close()


class ClusterWatchers:
    """Watch streams on a cluster: a sharded :class:`Watchers` per primary, chosen by the channel's
    slot in the slot map; ``limit`` counts the streams of every node together."""

    def __init__(
        self,
        slots: SlotMap,
        url: str,
        connect: Callable[[str], Any],
        unavailable: Callable[[str], LawspeakerError],
        limit: int,
        backlog: int,
        timeout: float,
        budget: int,
    ) -> None:
        self._slots = slots
        self._url = url
        self._connect = connect  # a node's URL -> a redis-py client for its pub/sub connection
        self._unavailable = unavailable
        self.limit = limit
        self._backlog = backlog
        self._timeout = timeout
        self._budget = budget
        self._nodes: dict[Node, tuple[Any, Watchers]] = {}
        # A failed node's Watchers with its client, until its last stream (ended) leaves.
        self._retired: dict[Watchers, Any] = {}
        self._owner: dict[Any, Watchers] = {}  # each open stream's queue -> its node's Watchers
        self._closing: set[asyncio.Task[None]] = set()
        # A slot moved away from a node (Redis ended its shard subscriptions there), or a node's
        # connection failed: the slot map is refreshed before the next subscription, so the streams
        # watching again go to the new owner rather than to the old one (whose MOVED reply would end
        # every stream on its connection, and a dead one answers nothing).
        self._stale = False
        slots.listen(self._refreshed)

    def __len__(self) -> int:
        return sum(len(watchers) for _, watchers in self._nodes.values()) + sum(map(len, self._retired))

    async def _for_channel(self, channel: bytes) -> Watchers:
        try:
            if self._stale:
                self._stale = False
                await self._slots.refresh()
            where = await self._slots.owner(key_slot(channel))
        except Exception as err:
            raise self._unavailable(f"Redis: {type(err).__name__}") from None
        if where not in self._nodes:
            client = self._connect(node_url(self._url, *where))
            watchers = Watchers(
                client,
                self._unavailable,
                limit=self.limit,
                backlog=self._backlog,
                timeout=self._timeout,
                budget=self._budget,
                sharded=True,
                on_moved=self._moved,
                on_failed=functools.partial(self._failed, where),
            )
            self._nodes[where] = (client, watchers)
        return self._nodes[where][1]

    def _moved(self, channel: bytes) -> None:
        self._stale = True

    def _failed(self, where: Node) -> None:
        """The pub/sub connection to ``where`` failed (every stream on it ended): perhaps the node
        died, so the map is learnt again before the next subscription, and its Watchers and client
        are let go (closed once the streams that ended have left)."""
        self._stale = True
        found = self._nodes.pop(where, None)
        if found is None:
            return
        client, watchers = found
        if len(watchers):
            self._retired[watchers] = client
        else:
            self._close_later(client, watchers)

    async def _refreshed(self, primaries: frozenset[Node]) -> None:
        """After a refresh: the streams on nodes that are no longer primaries end with UNAVAILABLE
        (a node that vanished may never close its connection) and their clients watch again."""
        for where in [w for w in self._nodes if w not in primaries]:
            self._nodes[where][1].fail("Redis: the node is no longer a primary of the cluster")
        self._stale = False  # the map was just learnt

    def _close_later(self, client: Any, watchers: Watchers) -> None:
        task = asyncio.get_running_loop().create_task(_close_node(client, watchers))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def add(self, channel: bytes) -> Any:
        if len(self) >= self.limit:
            raise watch_limit(self.limit)
        watchers = await self._for_channel(channel)
        try:
            queue = await watchers.add(channel)
        except LawspeakerError:
            # Perhaps the slot moved (SSUBSCRIBE answered MOVED) or the node is gone: learn the map
            # again before the next try.
            self._stale = True
            raise
        self._owner[queue] = watchers
        return queue

    async def remove(self, queue: Any) -> None:
        watchers = self._owner.pop(queue, None)
        if watchers is None:
            return
        await watchers.remove(queue)
        if watchers in self._retired and not len(watchers):
            await _close_node(self._retired.pop(watchers), watchers)

    def stop(self, closed: bytes) -> None:
        for _, watchers in self._nodes.values():
            watchers.stop(closed)
        for watchers in self._retired:
            watchers.stop(closed)

    async def close(self) -> None:
        nodes, self._nodes = self._nodes, {}
        retired, self._retired = self._retired, {}
        for client, watchers in [*nodes.values(), *((c, w) for w, c in retired.items())]:
            await _close_node(client, watchers)
        for task in list(self._closing):
            with contextlib.suppress(BaseException):
                await task
        await asyncio.sleep(0)


async def _close_node(client: Any, watchers: Watchers) -> None:
    await watchers.close()
    with contextlib.suppress(Exception):
        await client.aclose()
