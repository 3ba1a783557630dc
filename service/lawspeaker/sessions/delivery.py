"""Webhook delivery (issue 38): every replica's worker that sends the outbox's events, signed as
Standard Webhooks, retried with backoff, over a connection pinned to the addresses it checked.

**Who delivers.** A write that appends events to a session's outbox first hints the session in
the store's pending index (due a grace period later, :data:`GRACE_SECONDS`), and the replica that
wrote it delivers at once (:meth:`Courier.kick`). Every replica also looks for due sessions in the
index (:data:`POLL_SECONDS`): so when the writer dies, another replica delivers its events once the
grace has passed. A session's deliveries run under its lease (one replica at a time); the outbox is
rewritten only if its first entry is still the one read, so a replica whose lease lapsed writes
nothing back. Sending comes first and recording it second: a replica that dies between the two
leaves the event to be sent again, under the same id (at-least-once; once for a receiver that
dedupes by ``webhook-id``).

**Order.** One target's events of one session go out in the order they were written: the first
undelivered one is retried before any later one is sent. Targets do not wait for each other.

**No SSRF.** Every connection resolves the host itself and connects only to addresses
``webhooks.vet`` accepted (:class:`PinnedBackend`, inside httpx's own connection pool): TLS's server
name and the Host header stay the URL's, and a name whose DNS answer changes between a check and
the connection (rebinding) cannot reach an address that was not checked. Redirects are not
followed; the environment's proxies are not used.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import random
import socket
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpcore
import httpx
import msgspec

from lawspeaker.games.core import LawspeakerError
from lawspeaker.observe import metrics
from lawspeaker.sessions import webhooks
from lawspeaker.sessions.store import OUTBOX_GRACE_SECONDS, SessionStore
from lawspeaker.sessions.webhooks import Allowlist, Config, Item, WebhookRefused

log = logging.getLogger("lawspeaker.webhooks")

GRACE_SECONDS = OUTBOX_GRACE_SECONDS
"""How long after a write another replica waits before delivering its events: the writer delivers
them at once, so this only delays a delivery when the writer died (or its delivery is still on)."""
POLL_SECONDS = 0.25  # how often each replica looks for sessions whose events are due
LEASE_MS = 10_000
"""A replica delivering a session's events holds its lease this long at most; it starts no attempt
after LOOK_SECONDS, so that one attempt (at most ATTEMPT_SECONDS) ends within the lease. A replica
that dies mid-look holds up that session's events until the lease lapses (the outbox's first entry
guards the write-back should a look outlast it)."""
LOOK_SECONDS = 4.0
ATTEMPT_SECONDS = 5.0  # one delivery at most: resolving, connecting, sending, the receiver's answer
BATCH = 64  # due sessions taken per look at the index
MAX_SESSIONS = 32  # sessions this replica delivers for at once
READ_ENTRIES = 256  # outbox entries (versions) read per look at a session
BUSY_SECONDS = 1.0  # a session whose lease another replica holds is not tried again for this long
USER_AGENT = "lawspeaker-webhooks/1"

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""``(host, port)`` -> the addresses the host resolves to (a test injects its own)."""


async def system_resolver(host: str, port: int) -> list[str]:
    """The host's addresses, as the system resolves them (getaddrinfo, off the event loop)."""
    try:
        found = await asyncio.get_running_loop().getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
    except OSError as err:
        raise WebhookRefused(webhooks.URL_INVALID, f"its host {host!r} does not resolve ({err})") from None
    seen: dict[str, None] = {}
    for *_, sockaddr in found:
        seen[str(sockaddr[0])] = None
    return list(seen)


async def check(url: str, allow: Allowlist, resolver: Resolver = system_resolver) -> webhooks.Target:
    """A webhook URL as CreateSession takes it: well formed, and its host resolving only to addresses
    the service may call (WebhookRefused otherwise). Delivery checks again, at every connection."""
    target = webhooks.parse_url(url, allow)
    if webhooks._literal(target.host) is None:
        try:
            async with asyncio.timeout(ATTEMPT_SECONDS):
                found = await resolver(target.host, target.port)
        except TimeoutError:
            raise WebhookRefused(
                webhooks.URL_INVALID, f"its host {target.host!r} did not resolve within {ATTEMPT_SECONDS:g} s"
            ) from None
        webhooks.vet(target.host, found, allow)
    return target


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, connecting only to addresses :func:`webhooks.vet` accepted for
    the host being connected to (an allowed host's addresses are not checked)."""

    def __init__(self, allow: Allowlist, resolver: Resolver) -> None:
        self.allow = allow
        self.resolver = resolver
        self.inner: httpcore.AsyncNetworkBackend = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        literal = webhooks._literal(host)
        if literal is not None:
            addresses = webhooks.vet(host, [str(literal)], self.allow)
        else:
            async with asyncio.timeout(timeout or ATTEMPT_SECONDS):
                found = await self.resolver(host, port)
            addresses = webhooks.vet(host, found, self.allow)
        failed: Exception | None = None
        for address in addresses:  # the checked addresses only, never a fresh resolution
            try:
                return await self.inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as err:
                failed = err
        assert failed is not None
        raise failed

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("webhooks are not sent over Unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport over httpcore's connection pool, with :class:`PinnedBackend` as its network."""

    def __init__(self, allow: Allowlist, resolver: Resolver) -> None:
        super().__init__(trust_env=False)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=64,
            max_keepalive_connections=16,
            keepalive_expiry=5.0,
            network_backend=PinnedBackend(allow, resolver),
        )


class Signer:
    """Standard Webhooks signatures (``standardwebhooks``), one signing key per secret."""

    def __init__(self) -> None:
        self._keys: dict[str, Any] = {}

    def sign(self, secret: str, msg_id: str, at: float, payload: bytes) -> str:
        from standardwebhooks import Webhook

        key = self._keys.get(secret)
        if key is None:
            if len(self._keys) > 4096:
                self._keys.clear()
            key = self._keys[secret] = Webhook(secret)
        when = datetime.datetime.fromtimestamp(int(at), tz=datetime.UTC)
        signature: str = key.sign(msg_id, when, payload.decode())
        return signature


class Courier:
    """This replica's webhook worker over ``store``: ``kick`` after a write with events, ``run``
    (until ``stop`` is set) for what other replicas left due. ``current_rev(session)`` is the
    session's revision now (None when it is gone): a ``clock.running_out`` is sent only while the
    session is still at its version."""

    def __init__(
        self,
        store: SessionStore,
        config: Config,
        current_rev: Callable[[str], Awaitable[int | None]],
        replica: str,
        resolver: Resolver = system_resolver,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.current_rev = current_rev
        self.replica = replica
        self.resolver = resolver
        self.clock = clock
        self.rng = rng or random.Random()
        self.signer = Signer()
        self._transport = transport  # a test's; else the pinned one
        self._client: httpx.AsyncClient | None = None
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._busy: dict[str, float] = {}  # session -> monotonic time until which its lease is elsewhere
        self._closing = False

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                transport=self._transport or PinnedTransport(self.config.allow, self.resolver),
                timeout=ATTEMPT_SECONDS,
                follow_redirects=False,
                trust_env=False,
            )
        return self._client

    def kick(self, session: str) -> None:
        """A write of this replica appended events to ``session``'s outbox: deliver them now."""
        if self._closing:
            return
        if session in self._tasks:
            self._again.add(session)  # its task looks once more before it ends
            return
        self._busy.pop(session, None)
        self._tasks[session] = asyncio.get_running_loop().create_task(self.deliver(session))

    async def run(self, stop: asyncio.Event) -> None:
        """Every POLL_SECONDS until ``stop``: the sessions whose events are due, each delivered in a
        task of its own (MAX_SESSIONS at once)."""
        pause = POLL_SECONDS
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), pause)
            if stop.is_set():
                break
            pause = POLL_SECONDS
            try:
                await self._poll()
            except LawspeakerError as err:
                log.debug("no due webhooks read: %s", err.reason)
                pause = 1.0
            except Exception:  # a bug must not stop the deliveries for the life of the process
                log.exception("reading the due webhooks failed")
                pause = 1.0
        await self.drain(2.0)

    async def _poll(self) -> None:
        room = MAX_SESSIONS - len(self._tasks)
        if room <= 0:
            return
        mono = time.monotonic()
        for session, until in list(self._busy.items()):
            if until <= mono:
                del self._busy[session]
        for session in await self.store.webhooks_due(self.clock(), BATCH):
            if room <= 0:
                break
            if session in self._tasks or session in self._busy:
                continue
            self._tasks[session] = asyncio.get_running_loop().create_task(self.deliver(session))
            room -= 1

    async def drain(self, seconds: float) -> None:
        """Waits for the deliveries under way, at most ``seconds``; cancels what is left (its events
        are delivered again, under the same ids, once its lease lapses)."""
        self._closing = True
        tasks = list(self._tasks.values())
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=seconds)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    async def close(self) -> None:
        await self.drain(2.0)
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.aclose()
            self._client = None

    async def deliver(self, session: str) -> None:
        """Delivers the session's due events now, under its lease (``kick`` and ``run`` call it in a
        task of their own); nothing when another replica holds the lease."""
        lease = "webhook:" + session
        try:
            if not await self.store.take_lease(lease, self.replica, LEASE_MS):
                self._busy[session] = time.monotonic() + BUSY_SECONDS
                return
            try:
                started = time.monotonic()
                while True:
                    self._again.discard(session)
                    more = await self._look(session, started)
                    if not (more or session in self._again) or self._closing:
                        break
                    if time.monotonic() - started > LOOK_SECONDS:
                        break  # the index has it due now: a later look goes on
            finally:
                await self.store.drop_lease(lease, self.replica)
        except LawspeakerError as err:
            log.debug("webhooks of %s not delivered now: %s", session, err.reason)
        except Exception:
            log.exception("delivering the webhooks of %s failed", session)
        finally:
            mine = self._tasks.get(session) is asyncio.current_task()
            if mine:
                del self._tasks[session]
            again = session in self._again
            self._again.discard(session)
            if mine and again and not self._closing:
                self.kick(session)  # a write came in as this task was ending (or out of time): anew

    async def _look(self, session: str, started: float) -> bool:
        """One pass over the session's outbox: what is due is sent, in order per target; the rest is
        written back with its next attempt, and the session is due again then. True when entries came
        in meanwhile (look again)."""
        looked = self.clock()
        raw = await self.store.read_outbox(session, READ_ENTRIES)
        if not raw:
            await self.store.webhook_settle(session, looked, None, GRACE_SECONDS)
            return False
        items: list[Item] = []
        for entry in raw:
            try:
                items += webhooks.decode(entry)
            except msgspec.DecodeError:  # not this version's format: it would fail every look
                log.error("an outbox entry of %s that this replica cannot read was dropped", session)
        latest = max((item.rev for item in items), default=0)
        kept: list[Item] = []
        blocked: set[tuple[str, bool]] = set()  # targets whose first undelivered event waits
        current: int | None = None
        retry = self.config.retry_seconds
        for item in items:
            if webhooks.obsolete(item, latest):
                continue
            if item.target in blocked:
                kept.append(item)
                continue
            now = self.clock()
            if item.due > now or time.monotonic() - started > LOOK_SECONDS:
                kept.append(item)
                blocked.add(item.target)
                continue
            if item.only_at_rev:
                if current is None:
                    current = await self.current_rev(session) or 0
                if webhooks.obsolete(item, current) or current == 0:
                    continue
            outcome = await self._send(item)
            metrics.webhook_delivery(outcome)
            if outcome == "failed":
                now = self.clock()
                if now >= webhooks.expires_at(item, retry):
                    self._expired(session, msgspec.structs.replace(item, attempts=item.attempts + 1))
                    continue
                kept.append(webhooks.retried(item, now, retry, self.rng))
                blocked.add(item.target)
        rest = webhooks.encode(kept)
        left = await self.store.settle_outbox(session, len(raw), raw[0], rest)
        if left < 0:
            return False  # another replica took the session over: its pass counts
        arrived = left - (1 if rest else 0)
        due = min((item.due for item in kept), default=None)
        if arrived > 0:
            due = self.clock()
        await self.store.webhook_settle(session, looked, due, GRACE_SECONDS)
        return arrived > 0

    def _expired(self, session: str, item: Item) -> None:
        metrics.webhook_delivery("expired")
        log.info(
            "webhook %s (%s) of %s given up after %d attempts in %g s",
            item.id,
            item.type,
            session,
            item.attempts,
            self.config.retry_seconds,
        )

    async def _send(self, item: Item) -> str:
        """One attempt: ``delivered`` (a 2xx answer), ``failed`` (anything else, retried) or
        ``refused`` (the URL or its addresses may not be called: dropped)."""
        secret = item.secret if not item.server else self.config.secret
        url = item.url
        if item.server and not (secret and self.config.url):
            log.warning(
                "webhook %s for the server's --webhook-url, which this replica lacks: dropped", item.id
            )
            return "refused"
        try:
            webhooks.parse_url(url, self.config.allow)
        except WebhookRefused as err:
            log.warning("webhook %s not sent: its URL %s", item.id, err.message)
            return "refused"
        now = self.clock()
        headers = {
            "webhook-id": item.id,
            "webhook-timestamp": str(int(now)),
            "webhook-signature": self.signer.sign(secret, item.id, now, item.payload),
            "content-type": "application/json",
            "user-agent": USER_AGENT,
        }
        try:
            async with asyncio.timeout(ATTEMPT_SECONDS):
                response = await self.client.post(url, content=item.payload, headers=headers)
        except WebhookRefused as err:
            log.warning("webhook %s not sent: its URL's host %s", item.id, err.message)
            return "refused"
        except (httpx.HTTPError, OSError, TimeoutError) as err:
            log.debug("webhook %s to %s failed: %s", item.id, url, type(err).__name__)
            return "failed"
        except Exception:  # a bug of ours or a library's: retried like a failure, never a stuck outbox
            log.exception("webhook %s to %s failed unexpectedly", item.id, url)
            return "failed"
        if 200 <= response.status_code < 300:
            return "delivered"
        log.debug("webhook %s to %s answered %d", item.id, url, response.status_code)
        return "failed"
