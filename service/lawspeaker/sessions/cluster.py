"""The session store on a Redis Cluster: URL form, the cluster client, watch streams per node.

``--redis-url redis+cluster://[user:password@]host:port[,host:port...][?options]`` (``rediss+cluster``
for TLS, with the same ``ssl_*`` options as ``rediss://``) names seed nodes of a cluster; any one
that answers tells the client the rest. Every key of a session carries one hash tag, so each
session lives in one slot and each of the store's scripts touches one slot.

The two scripts every session call runs (load and write) go over the pipelined connection of
the single-node store (``resp.Multiplexed``), one per primary (:class:`NodeConnections`): the
slot of the session's hash tag picks the node from redis-py's slot map; ``MOVED`` sends the call
to the node named (and remembers it for that slot), ``ASK`` (a slot being migrated) sends it there
once behind ``ASKING``; ``TRYAGAIN`` (a script over keys on both sides of a migration) is
UNAVAILABLE, and the client retries. The rarer commands go through redis-py's ``RedisCluster``,
which routes by slot and follows ``MOVED``/``ASK`` itself, with a connection pool per node.

Watch streams use sharded pub/sub (``SSUBSCRIBE``; the write script publishes with
``SPUBLISH``), so a session's updates travel only inside the shard that holds it. This replica
keeps one pub/sub connection per primary (a :class:`Watchers` each, ``sharded``). When a slot
moves, Redis ends its shard channels' subscriptions (``sunsubscribe``): those streams end with
UNAVAILABLE and their clients watch again (on the slot's new owner), so nothing is skipped silently.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from redis.crc import key_slot

from lawspeaker.games.core import LawspeakerError
from lawspeaker.sessions.resp import Multiplexed, ReplyError, Script
from lawspeaker.sessions.watchers import Watchers, watch_limit

SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def is_cluster_url(url: str) -> bool:
    return urlsplit(url).scheme in SCHEMES


def seeds(url: str) -> tuple[str, list[tuple[str, int]]]:
    """A plain ``redis://`` URL of the first seed node (credentials and options kept) and the
    (host, port) of every seed."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"not a cluster URL: {url!r}")
    userinfo, _, hosts = parts.netloc.rpartition("@")
    found: list[tuple[str, int]] = []
    for item in hosts.split(","):
        host, _, port = item.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"a cluster URL names its seeds as host:port (got {item!r})")
        found.append((host.strip("[]"), int(port)))
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

    first, nodes = seeds(url)
    extra = [ClusterNode(host, port) for host, port in nodes[1:]]
    return RedisCluster.from_url(first, startup_nodes=extra or None, **options)


def node_url(url: str, host: str, port: int) -> str:
    """``url``'s first seed swapped for the node ``host:port`` (same credentials and TLS)."""
    first = urlsplit(seeds(url)[0])
    userinfo = first.netloc.rpartition("@")[0]
    netloc = f"{userinfo}@{host}:{port}" if userinfo else f"{host}:{port}"
    return urlunsplit((first.scheme, netloc, "", first.query, ""))


REDIRECTIONS = 5  # MOVED/ASK followed per call at most (a slot moves once at a time)


class NodeConnections:
    """A pipelined connection per primary for the session scripts, chosen by the keys' slot."""

    def __init__(self, cluster: Any, url: str, timeout: float) -> None:
        self._cluster = cluster  # its slot map tells where a slot lives (refreshed by its own MOVEDs)
        self._url = url
        self._timeout = timeout
        self._nodes: dict[tuple[str, int], Multiplexed] = {}
        # Slots a MOVED reply placed elsewhere than redis-py's map says (until it learns it too).
        self._moved: dict[int, tuple[str, int]] = {}

    def _node(self, where: tuple[str, int]) -> Multiplexed:
        if where not in self._nodes:
            self._nodes[where] = Multiplexed(node_url(self._url, *where), self._timeout)
        return self._nodes[where]

    async def _owner(self, slot: int) -> tuple[str, int]:
        if slot in self._moved:
            return self._moved[slot]
        await self._cluster.initialize()  # a no-op once the slot map is known
        node = self._cluster.nodes_manager.get_node_from_slot(slot)
        return str(node.host), int(node.port)

    async def script(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """The script's reply from the primary of its keys' slot (all in one slot: one hash tag)."""
        slot = key_slot(keys[0].encode())
        where, asking = await self._owner(slot), False
        for _ in range(REDIRECTIONS):
            connection = self._node(where)
            try:
                if asking:  # the full script: the importing node may not know its SHA-1 yet
                    return await connection.asking("EVAL", script.body, len(keys), *keys, *args)
                return await connection.script(script, keys, args)
            except ReplyError as err:
                kind, _, address = str(err).partition(" ")
                if kind not in ("MOVED", "ASK"):
                    raise
                host, _, port = address.split(" ")[-1].rpartition(":")
                where = (host or where[0], int(port))
                asking = kind == "ASK"
                if not asking:
                    self._moved[slot] = where
        raise ReplyError(f"TRYAGAIN slot {slot} redirected {REDIRECTIONS} times")

    async def close(self) -> None:
        nodes, self._nodes = self._nodes, {}
        for connection in nodes.values():
            await connection.close()


class ClusterWatchers:
    """Watch streams on a cluster: a sharded :class:`Watchers` per primary, chosen by the channel's
    slot in the cluster client's map; ``limit`` counts the streams of every node together."""

    def __init__(
        self,
        cluster: Any,
        url: str,
        connect: Callable[[str], Any],
        unavailable: Callable[[str], LawspeakerError],
        limit: int,
        backlog: int,
        timeout: float,
        budget: int,
    ) -> None:
        self._cluster = cluster
        self._url = url
        self._connect = connect  # a node's URL -> a redis-py client for its pub/sub connection
        self._unavailable = unavailable
        self.limit = limit
        self._backlog = backlog
        self._timeout = timeout
        self._budget = budget
        self._nodes: dict[str, tuple[Any, Watchers]] = {}
        self._owner: dict[Any, Watchers] = {}  # each open stream's queue -> its node's Watchers
        # A slot moved away from a node (Redis ended its shard subscriptions there): the slot map is
        # refreshed before the next subscription, so the streams watching again go to the new owner
        # rather than to the old one (whose MOVED reply would end every stream on its connection).
        self._stale = False

    def __len__(self) -> int:
        return sum(len(watchers) for _, watchers in self._nodes.values())

    async def _for_channel(self, channel: bytes) -> Watchers:
        try:
            await self._cluster.initialize()  # a no-op once the slot map is known
            if self._stale:
                self._stale = False
                await self._cluster.nodes_manager.initialize()
            node = self._cluster.get_node_from_key(channel)
        except Exception as err:
            raise self._unavailable(f"Redis: {type(err).__name__}") from None
        if node.name not in self._nodes:
            client = self._connect(node_url(self._url, node.host, node.port))
            watchers = Watchers(
                client,
                self._unavailable,
                limit=self.limit,
                backlog=self._backlog,
                timeout=self._timeout,
                budget=self._budget,
                sharded=True,
                on_moved=self._moved,
            )
            self._nodes[node.name] = (client, watchers)
        return self._nodes[node.name][1]

    def _moved(self, channel: bytes) -> None:
        self._stale = True

    async def add(self, channel: bytes) -> Any:
        if len(self) >= self.limit:
            raise watch_limit(self.limit)
        watchers = await self._for_channel(channel)
        try:
            queue = await watchers.add(channel)
        except LawspeakerError:
            # Perhaps the slot moved (SSUBSCRIBE answered MOVED): learn the new map for the next try.
            with contextlib.suppress(Exception):
                await self._cluster.nodes_manager.initialize()
            raise
        self._owner[queue] = watchers
        return queue

    async def remove(self, queue: Any) -> None:
        watchers = self._owner.pop(queue, None)
        if watchers is not None:
            await watchers.remove(queue)

    def stop(self, closed: bytes) -> None:
        for _, watchers in self._nodes.values():
            watchers.stop(closed)

    async def close(self) -> None:
        nodes, self._nodes = self._nodes, {}
        for client, watchers in nodes.values():
            await watchers.close()
            with contextlib.suppress(Exception):
                await client.aclose()
        await asyncio.sleep(0)
