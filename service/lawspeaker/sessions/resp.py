"""One multiplexed Redis connection for the session store's scripts (its hot path).

redis-py takes a connection from its pool for each command, wraps it in retries and timeouts and
packs the command in Python: about 250 us of CPU per script call on the benchmark machine, as much
as the rules work of a move. Here every call of a replica shares one connection: a call writes its
command (packed by hiredis) and waits for its reply, replies come back in order (a FIFO of
futures), and hiredis parses them. Under load, many calls share one read: about 20 us each.

Only what the store's scripts need: EVALSHA (EVAL when Redis does not know the script yet), AUTH
and SELECT when the URL asks for them. ``redis://``, ``rediss://`` (TLS, verified as redis-py
verifies it: :func:`tls_context`) and ``unix://`` URLs; the store keeps using redis-py for its
other, rarer commands and pub/sub.

Failures: a call that gets no reply within ``timeout`` fails with TimeoutError and closes the
connection (its order of replies is lost), so every call waiting on it fails with ConnectionError;
the next call connects again. Nothing is retried here: a write is a compare-and-set the caller may
repeat with its request id. An error reply raises :class:`ReplyError`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
from collections.abc import Mapping
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


class Multiplexed:
    """The shared connection of one store, opened on first use in the running event loop."""

    def __init__(self, url: str, timeout: float) -> None:
        kwargs: dict[str, Any] = dict(parse_url(url))
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
            tls = self.tls.get() if self.tls is not None else None  # an SSLError is an OSError
            _, proto = await loop.create_connection(_Protocol, self.host, self.port, ssl=tls)
        try:
            if self.password is not None:
                auth = (self.username, self.password) if self.username else (self.password,)
                await self._send(proto, ("AUTH", *auth))
            if self.db:
                await self._send(proto, ("SELECT", self.db))
        except ReplyError as err:  # a wrong password or database: the service is misconfigured
            proto.fail(ConnectionError("the Redis connection could not be set up"))
            raise ConnectionError(f"Redis refused the connection's setup: {err}") from None
        except BaseException:
            proto.fail(ConnectionError("the Redis connection could not be set up"))
            raise
        return proto

    def _drop(self) -> None:
        proto, self._proto = self._proto, None
        if proto is not None and not proto.closed:
            with contextlib.suppress(RuntimeError):  # its event loop is closed
                proto.fail(ConnectionError("the Redis connection was replaced"))

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
            proto.waiters.append(ask)
            proto.transport.write(hiredis.pack_command(("ASKING",)))
        waiter: asyncio.Future[Any] = loop.create_future()
        proto.waiters.append(waiter)
        proto.transport.write(hiredis.pack_command(args))
        timer = loop.call_later(self.timeout, _time_out, proto, waiter)
        try:
            reply = await waiter
        finally:
            timer.cancel()
        if isinstance(reply, hiredis.ReplyError):
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


def _ignore(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved, so a failed connection's error is not logged for it


def _time_out(proto: _Protocol, waiter: asyncio.Future[Any]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError("Redis did not answer in time"))
    proto.fail(ConnectionError("the Redis connection was closed after a call timed out"))
