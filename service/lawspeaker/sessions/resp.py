"""One multiplexed Redis connection for the session store's scripts (its hot path).

redis-py takes a connection from its pool for each command, wraps it in retries and timeouts and
packs the command in Python: about 250 us of CPU per script call on the benchmark machine, as much
as the rules work of a move. Here every call of a replica shares one connection: a call writes its
command (packed by hiredis) and waits for its reply, replies come back in order (a FIFO of
futures), and hiredis parses them. Under load, many calls share one read: about 20 us each.

Only what the store's scripts need: EVALSHA (EVAL when Redis does not know the script yet), WAIT
right behind one (a Redis Cluster's writes with ``--redis-wait-replicas``), AUTH and SELECT when
the URL asks for them. ``redis://``, ``rediss://`` (TLS, verified as redis-py
verifies it: :func:`tls_context`) and ``unix://`` URLs; the store keeps using redis-py for its
other, rarer commands and pub/sub.

Failures: a call that gets no reply within ``timeout`` fails with TimeoutError and closes the
connection (its order of replies is lost), so every call waiting on it fails with ConnectionError;
the next call connects again. Nothing is retried here: a write is a compare-and-set the caller may
repeat with its request id. An error reply raises :class:`ReplyError`.

Behind Redis Sentinel (``sessions.sentinel``) the address is not the URL's: ``locate`` asks the
Sentinels for the primary's on every (re)connect, and the node found must answer ``ROLE`` as a
master, or the connect fails with ConnectionError (a Sentinel's stale answer, a demoted primary:
nothing is written there, and the next call asks again). An ACL that refuses ROLE (NOPERM) lets the
connection be used unchecked: a replica refuses writes anyway, and a READONLY reply (a node demoted
while connected, too) closes the connection so that the next call asks the Sentinels again.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast

import hiredis
from redis import exceptions
from redis.asyncio.connection import RedisSSLContext, SSLConnection, UnixDomainSocketConnection, parse_url

# Error replies that mean "not now" (full, read-only after a failover, busy running a script,
# loading its data, a cluster reconfiguring): the store answers UNAVAILABLE, nothing was written.
TRANSIENT_PREFIXES = (
    "OOM",
    "READONLY",
    "BUSY",
    "LOADING",
    "TRYAGAIN",
    "CLUSTERDOWN",
    "MASTERDOWN",
    "EXECABORT",
)
# The same replies as redis-py raises them where it knows the code (it then cuts the code from
# the text); a code it does not know stays at the start of a plain ResponseError's text.
_TRANSIENT_CLASSES = (
    exceptions.OutOfMemoryError,
    exceptions.ReadOnlyError,
    exceptions.BusyLoadingError,
    exceptions.TryAgainError,
    exceptions.ClusterDownError,
    exceptions.ExecAbortError,
)


def is_transient(err: Exception) -> bool:
    """Whether an error reply (ours or redis-py's) means "not now" rather than a bug."""
    return isinstance(err, _TRANSIENT_CLASSES) or str(err).startswith(TRANSIENT_PREFIXES)


class ReplyError(Exception):
    """Redis answered a call with an error reply."""

    @property
    def transient(self) -> bool:
        return is_transient(self)


class _Protocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.reader = hiredis.Reader()
        self.waiters: collections.deque[asyncio.Future[Any]] = collections.deque()
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.retiring = False  # takes no new calls; closed once the waiting ones have their replies

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        try:
            while (reply := self.reader.gets()) is not False:
                if not self.waiters:  # a reply nobody asked for: the order is lost
                    raise hiredis.ProtocolError("unexpected reply")
                waiter = self.waiters.popleft()
                if not waiter.done():  # a cancelled caller's reply is dropped, in its turn
                    waiter.set_result(reply)
            if self.retiring and not self.waiters:
                self.retire()
        except hiredis.ProtocolError:
            self.fail(ConnectionError("Redis sent a reply that cannot be read"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(ConnectionError("the Redis connection was closed"))

    def fail(self, error: Exception) -> None:
        """Closes the connection and fails every call waiting on it with ``error``."""
        self.closed = True
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_exception(error)
        if self.transport is not None:
            self.transport.abort()

    def retire(self) -> None:
        """Takes no more calls; closed (gracefully) once the calls waiting on it have their replies."""
        self.retiring = True
        if not self.waiters and not self.closed:
            self.closed = True
            if self.transport is not None:
                self.transport.close()

    def write(self, data: bytes) -> None:
        """Writes ``data``, or raises ConnectionError when the connection is closed or closing: uvloop's
        transport raises RuntimeError ("unable to perform operation on <TCPTransport closed=True>")
        when it was closed under a call, asyncio's drops the data, and either would leave the call
        waiting for a reply that never comes."""
        transport = self.transport
        if transport is None or self.closed or transport.is_closing():
            raise ConnectionError("the Redis connection is closed")
        try:
            transport.write(data)
        except RuntimeError as err:
            self.fail(ConnectionError("the Redis connection was closed"))
            raise ConnectionError(f"the Redis connection was closed ({err})") from None


# Where the primary is now, as (host, port): asked on every connect (Sentinel's discovery).
Locate = Callable[[], Awaitable[tuple[str, int]]]


class Multiplexed:
    """The shared connection of one store, opened on first use in the running event loop.

    ``locate``: the primary's address is asked of it on every connect (the URL's host and port are
    not used) and the node must answer ``ROLE`` as a master (see the module's docstring).
    """

    def __init__(self, url: str, timeout: float, locate: Locate | None = None) -> None:
        kwargs: dict[str, Any] = dict(parse_url(url))
        self.locate = locate
        self.timeout = timeout
        self.path: str | None = kwargs.get("path")
        self.host: str = kwargs.get("host", "localhost")
        self.port: int = int(kwargs.get("port", 6379))
        self.db = int(kwargs.get("db", 0))
        self.username: str | None = kwargs.get("username")
        self.password: str | None = kwargs.get("password")
        self.tls = tls_context(kwargs)
        self._proto: _Protocol | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connecting: asyncio.Future[_Protocol] | None = None

    @staticmethod
    def serves(url: str) -> bool:
        """Whether this client can open ``url`` (plain TCP, TLS or a Unix socket)."""
        connection_class = parse_url(url).get("connection_class")
        return connection_class in (None, SSLConnection, UnixDomainSocketConnection)

    async def _connection(self) -> _Protocol:
        loop = asyncio.get_running_loop()
        proto = self._proto
        if proto is not None and not proto.closed and self._loop is loop:
            return proto
        if self._connecting is not None and self._loop is loop and not self._connecting.done():
            return await asyncio.shield(self._connecting)  # one connect for every waiting call
        self._drop()
        self._loop = loop
        self._connecting = loop.create_future()
        try:
            proto = await asyncio.wait_for(self._open(loop), self.timeout)
        except BaseException as err:
            self._connecting.set_exception(err if isinstance(err, Exception) else ConnectionError())
            self._connecting.exception()  # retrieved: waiting calls re-raise it
            raise
        self._proto = proto
        self._connecting.set_result(proto)
        return proto

    async def _open(self, loop: asyncio.AbstractEventLoop) -> _Protocol:
        if self.path is not None:
            _, proto = await loop.create_unix_connection(_Protocol, self.path)
        else:
            if self.locate is not None:
                self.host, self.port = await self.locate()
            tls = self.tls.get() if self.tls is not None else None  # an SSLError is an OSError
            _, proto = await loop.create_connection(_Protocol, self.host, self.port, ssl=tls)
        try:
            if self.password is not None:
                auth = (self.username, self.password) if self.username else (self.password,)
                await self._send(proto, ("AUTH", *auth))
            if self.db:
                await self._send(proto, ("SELECT", self.db))
            if self.locate is not None:
                await self._check_role(proto)
        except ReplyError as err:  # a wrong password or database: the service is misconfigured
            proto.fail(ConnectionError("the Redis connection could not be set up"))
            raise ConnectionError(f"Redis refused the connection's setup: {err}") from None
        except BaseException:
            proto.fail(ConnectionError("the Redis connection could not be set up"))
            raise
        return proto

    async def _check_role(self, proto: _Protocol) -> None:
        """ConnectionError unless the node located says it is a master (see the module's docstring)."""
        try:
            role = await self._send(proto, ("ROLE",))
        except ReplyError as err:
            if str(err).startswith("NOPERM"):
                return  # not allowed to ask: READONLY replies tell instead
            raise
        said = role[0].decode() if isinstance(role, list) and role else repr(role)
        if said != "master":
            raise ConnectionError(
                f"Redis at {self.host}:{self.port} is not the primary (ROLE: {said}); the Sentinels "
                "are asked again on the next connect"
            )

    def _drop(self) -> None:
        proto, self._proto = self._proto, None
        if proto is not None and not proto.closed:
            with contextlib.suppress(RuntimeError):  # its event loop is closed
                proto.fail(ConnectionError("the Redis connection was replaced"))

    def retire(self) -> None:
        """The next call connects again (through DNS or a proxy: to wherever the address points now),
        while the calls waiting on the current connection still get their replies on it, which is
        then closed. For a node that stopped being the primary (``READONLY`` after a failover)."""
        proto, self._proto = self._proto, None
        if proto is not None and not proto.closed:
            with contextlib.suppress(RuntimeError):  # its event loop is closed
                proto.retire()

    async def _send(self, proto: _Protocol, args: tuple[Any, ...], asking: bool = False) -> Any:
        if proto.transport is None:
            raise ConnectionError("the Redis connection is not open")
        loop = asyncio.get_running_loop()
        if asking:
            # ASKING holds for the next command on the connection only: written right before it,
            # with no await between, no other call's command can come in between. Its reply (OK)
            # is nobody's.
            ask: asyncio.Future[Any] = loop.create_future()
            ask.add_done_callback(_ignore)
            proto.write(hiredis.pack_command(("ASKING",)))
            proto.waiters.append(ask)
        waiter: asyncio.Future[Any] = loop.create_future()
        proto.write(hiredis.pack_command(args))  # ConnectionError when closed: no waiter left behind
        proto.waiters.append(waiter)
        timer = loop.call_later(self.timeout, _time_out, proto, waiter)
        try:
            reply = await waiter
        finally:
            timer.cancel()
        if isinstance(reply, hiredis.ReplyError):
            if self.locate is not None and str(reply).startswith("READONLY"):
                proto.fail(ConnectionError("the Redis primary was demoted to a replica"))  # ask again
            raise ReplyError(str(reply))
        return reply

    async def call(self, *args: Any) -> Any:
        """The reply to one command; raises ReplyError, TimeoutError or ConnectionError (OSError)."""
        return await self._send(await self._connection(), args)

    async def asking(self, *args: Any) -> Any:
        """The reply to one command sent right after ASKING (a Redis Cluster node importing a slot
        serves a key of it only then: what an ``ASK`` redirection asks for)."""
        return await self._send(await self._connection(), args, asking=True)

    async def script(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """The reply of a Lua script, sent by its SHA-1 (in full the first time Redis lacks it)."""
        try:
            return await self.call("EVALSHA", script.sha, len(keys), *keys, *args)
        except ReplyError as err:
            if not str(err).startswith("NOSCRIPT"):
                raise
        return await self.call("EVAL", script.body, len(keys), *keys, *args)

    async def open(self) -> None:
        """Connects unless connected. A call made right after it (no await between) goes out on this
        connection, so a failure here (raised as a call's would be) means no command was sent: a
        Redis Cluster client may send it to another node (``cluster.NodeConnections``)."""
        await self._connection()

    async def script_and_wait(
        self,
        script: Script,
        keys: list[str],
        args: list[Any],
        replicas: int,
        wait_ms: int,
        asking: bool = False,
        full: bool = False,
    ) -> tuple[Any, int]:
        """A Lua script's reply and how many replicas have its writes: ``WAIT replicas wait_ms`` is
        written right behind the script, with no await between, because WAIT counts the writes of
        its own connection (no other call's command may come between them). WAIT's reply is given
        ``wait_ms`` more than ``timeout``. NOSCRIPT: the full script, and WAIT again (the first WAIT
        may have waited in vain: ``full`` sends the full script at once, for a node that may not know
        it); so does ``asking`` (an ASK redirection: the importing node may not know its SHA-1),
        behind ASKING. The script's error reply raises ReplyError.

        A WAIT holds up every command behind it on the connection (up to ``wait_ms`` when replicas
        lag), and the calls behind would time out: a connection that carries these should carry one
        at a time."""
        wait = (("WAIT", replicas, wait_ms), self.timeout + wait_ms / 1000)
        if not (asking or full):
            sha = (("EVALSHA", script.sha, len(keys), *keys, *args), self.timeout)
            got, acked = await self._send_all(await self._connection(), [sha, wait])
            if not (isinstance(got, ReplyError) and str(got).startswith("NOSCRIPT")):
                return _waited(got, acked)
        body = (("EVAL", script.body, len(keys), *keys, *args), self.timeout)
        got, acked = await self._send_all(await self._connection(), [body, wait], asking)
        return _waited(got, acked)

    async def _send_all(
        self, proto: _Protocol, commands: list[tuple[tuple[Any, ...], float]], asking: bool = False
    ) -> list[Any]:
        """Writes ``commands`` back to back (no other call's command between them; behind ASKING when
        ``asking``), each with its own seconds to be answered in; their replies in order, an error
        reply as a ReplyError in its place (returned, not raised)."""
        if proto.transport is None:
            raise ConnectionError("the Redis connection is not open")
        loop = asyncio.get_running_loop()
        packed: list[bytes] = []
        if asking:
            ask: asyncio.Future[Any] = loop.create_future()
            ask.add_done_callback(_ignore)
            proto.waiters.append(ask)
            packed.append(hiredis.pack_command(("ASKING",)))
        waiters: list[asyncio.Future[Any]] = []
        for args, _ in commands:
            waiter: asyncio.Future[Any] = loop.create_future()
            waiter.add_done_callback(_ignore)  # retrieved when an earlier reply's failure raised first
            proto.waiters.append(waiter)
            waiters.append(waiter)
            packed.append(hiredis.pack_command(args))
        proto.write(b"".join(packed))
        timers = [
            loop.call_later(seconds, _time_out, proto, waiter)
            for (_, seconds), waiter in zip(commands, waiters, strict=True)
        ]
        try:
            replies = [await waiter for waiter in waiters]
        finally:
            for timer in timers:
                timer.cancel()
        return [ReplyError(str(got)) if isinstance(got, hiredis.ReplyError) else got for got in replies]

    async def close(self) -> None:
        self._drop()


# The query parameters of a ``rediss://`` URL that redis-py's SSLConnection takes, without their
# ``ssl_`` prefix: the names of RedisSSLContext's arguments.
TLS_OPTIONS = (
    "cert_reqs",
    "ca_certs",
    "ca_path",
    "ca_data",
    "check_hostname",
    "certfile",
    "keyfile",
    "password",
    "min_version",
    "ciphers",
    "include_verify_flags",
    "exclude_verify_flags",
)


def tls_context(options: Mapping[str, Any]) -> RedisSSLContext | None:
    """The TLS settings of a URL's parsed ``options`` (``parse_url``), None unless it is ``rediss://``.

    They are redis-py's own RedisSSLContext with SSLConnection's defaults (Redis's certificate
    required and its host name checked, against the system's CAs unless ``ssl_ca_certs`` names
    others), so this connection verifies Redis exactly as the store's redis-py pools do: a URL
    that one of them accepts, the other does too.
    """
    if options.get("connection_class") is not SSLConnection:
        return None
    chosen: dict[str, Any] = {"cert_reqs": "required", "check_hostname": True}
    chosen.update({name: options[f"ssl_{name}"] for name in TLS_OPTIONS if f"ssl_{name}" in options})
    return RedisSSLContext(**chosen)


class Script:
    """A Lua script and its SHA-1, the name EVALSHA calls it by."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.sha = hashlib.sha1(body.encode(), usedforsecurity=False).hexdigest()


def _waited(got: Any, acked: Any) -> tuple[Any, int]:
    """A script's reply and WAIT's (``Multiplexed.script_and_wait``), an error reply raised."""
    for reply in (got, acked):
        if isinstance(reply, ReplyError):
            raise reply
    return got, int(acked)


def _ignore(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved, so a failed connection's error is not logged for it


def _time_out(proto: _Protocol, waiter: asyncio.Future[Any]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError("Redis did not answer in time"))
    proto.fail(ConnectionError("the Redis connection was closed after a call timed out"))
