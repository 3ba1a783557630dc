"""The webhook worker (issue 38, ``lawspeaker.sessions.delivery.Courier``) over each store, with a
clock the test moves and an httpx mock transport as the receiver: events go out in order per
target and a failing target holds only its own; a retry keeps the id and the body and signs with the
attempt's time; an event is given up after its retry bound; a clock reminder goes out only while its
version is current; a server event this replica cannot sign is refused. The pinned connection is
tested against a real socket on loopback, with a resolver the test hands in (never real DNS)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
import pytest
from prometheus_client import REGISTRY
from standardwebhooks import Webhook, WebhookVerificationError

from lawspeaker.sessions import delivery, webhooks
from lawspeaker.sessions.delivery import Courier, PinnedBackend, PinnedTransport
from lawspeaker.sessions.store import SessionKey, SessionStore, Write
from lawspeaker.sessions.webhooks import Allowlist, Change, Config, WebhookRefused

from .conftest import StoreFactory
from .webhook_receiver import Receiver

pytestmark = pytest.mark.sessions
T = TypeVar("T")
KEY = SessionKey("valhalla.courier-test", "valhalla-1")
SESSION_SECRET = webhooks.new_secret()
SERVER_SECRET = webhooks.new_secret()
HOOK = "https://hooks.example/session"
SERVER = "https://server.example/all"


@dataclass
class Hook:
    url: str
    secret: str


@dataclass
class Fake:
    """The receiver: each request kept; ``failing`` URLs answer 500."""

    sent: list[httpx.Request] = field(default_factory=list)
    failing: set[str] = field(default_factory=set)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        return httpx.Response(500 if str(request.url) in self.failing else 204)

    def ids(self, url: str) -> list[str]:
        return [r.headers["webhook-id"] for r in self.sent if str(r.url) == url]


class Clock:
    def __init__(self) -> None:
        self.shift = 0.0

    def __call__(self) -> float:
        return time.time() + self.shift


def counted(outcome: str) -> float:
    return REGISTRY.get_sample_value("lawspeaker_webhook_deliveries_total", {"outcome": outcome}) or 0.0


def change(rev: int, **fields: Any) -> Change:
    base: dict[str, Any] = {"session": KEY.session, "game": "valhalla", "rev": rev, "at": time.time()}
    base["webhook"] = Hook(HOOK, SESSION_SECRET)
    return Change(**{**base, **fields})


def run(
    make_store: StoreFactory,
    body: Callable[[SessionStore, Courier, Fake, Clock], Awaitable[T]],
    config: Config | None = None,
    rev: Callable[[str], Awaitable[int | None]] | None = None,
) -> T:
    async def current(session: str) -> int | None:
        return 1

    async def main() -> T:
        store, fake, clock = make_store(), Fake(), Clock()
        courier = Courier(
            store,
            config or Config(url=SERVER, secret=SERVER_SECRET, retry_seconds=60),
            rev or current,
            "replica-a",
            clock=clock,
            transport=httpx.MockTransport(fake.handle),
        )
        try:
            return await body(store, courier, fake, clock)
        finally:
            await courier.close()
            await store.close()

    return asyncio.run(main())


async def two_versions(store: SessionStore, config: Config) -> tuple[str, str]:
    """Versions 1 and 2: seat 0 to act, then seat 1; their seat.to_act ids."""
    first = change(1, to_act=(0,), before_to_act=None)
    await store.create(KEY, b"v1", webhooks.outbox(first, config))
    second = change(2, to_act=(1,), before_to_act=(0,))
    await store.write(KEY, Write(expected_rev=1, data=b"v2", outbox=webhooks.outbox(second, config)))
    return webhooks.events(first)[0].id, webhooks.events(second)[0].id


def test_a_failing_target_is_retried_in_order_while_the_other_gets_everything(
    make_store: StoreFactory,
) -> None:
    config = Config(url=SERVER, secret=SERVER_SECRET, retry_seconds=60)

    async def body(store: SessionStore, courier: Courier, fake: Fake, clock: Clock) -> None:
        one, two = await two_versions(store, config)
        fake.failing.add(HOOK)
        await courier.deliver(KEY.session)
        assert fake.ids(SERVER) == [one, two]
        assert fake.ids(HOOK) == [one]  # the second waits behind the first
        clock.shift += 1.0  # the first retry is due within a second
        await courier.deliver(KEY.session)
        assert fake.ids(HOOK) == [one, one]
        fake.failing.clear()
        clock.shift += 2.0
        await courier.deliver(KEY.session)
        assert fake.ids(HOOK) == [one, one, one, two] and fake.ids(SERVER) == [one, two]
        firsts = [r for r in fake.sent if r.headers["webhook-id"] == one and str(r.url) == HOOK]
        assert len({r.content for r in firsts}) == 1  # a redelivery: the same body
        stamps = [int(r.headers["webhook-timestamp"]) for r in firsts]
        assert stamps == sorted(stamps) and stamps[-1] - stamps[0] >= 3  # each attempt's own time
        for request in fake.sent:  # each signed with its target's secret, at its attempt's time
            secret = SERVER_SECRET if str(request.url) == SERVER else SESSION_SECRET
            Webhook(secret).verify(request.content, dict(request.headers))
            other = SESSION_SECRET if secret == SERVER_SECRET else SERVER_SECRET
            with pytest.raises(WebhookVerificationError):
                Webhook(other).verify(request.content, dict(request.headers))
        assert await store.read_outbox(KEY.session, 10) == []

    run(make_store, body, config)


def test_an_event_is_given_up_after_its_retry_bound(make_store: StoreFactory) -> None:
    config = Config(url="", retry_seconds=5)
    before = counted("expired"), counted("failed")

    async def body(store: SessionStore, courier: Courier, fake: Fake, clock: Clock) -> None:
        one, two = await two_versions(store, config)
        fake.failing.add(HOOK)
        for _ in range(12):
            await courier.deliver(KEY.session)
            clock.shift += 1.0
        # the second, held behind the first until that was given up, is tried once then
        assert fake.ids(HOOK)[0] == one and fake.ids(HOOK)[-1] == two and fake.ids(HOOK).count(two) == 1
        assert await store.read_outbox(KEY.session, 10) == []
        assert counted("expired") - before[0] == 2
        assert counted("failed") - before[1] == len(fake.ids(HOOK))

    run(make_store, body, config)


def test_a_clock_reminder_goes_out_only_while_its_version_is_current(make_store: StoreFactory) -> None:
    config = Config(retry_seconds=60)
    revs = {"now": 1}

    async def current(session: str) -> int | None:
        return revs["now"]

    async def body(store: SessionStore, courier: Courier, fake: Fake, clock: Clock) -> None:
        at = time.time() + 20
        first = change(1, to_act=(0,), before_to_act=None, deadline=(0, at, 20.0))  # due at +15 s
        await store.create(KEY, b"v1", webhooks.outbox(first, config))
        await courier.deliver(KEY.session)
        assert [r.headers["webhook-id"] for r in fake.sent] == [webhooks.events(first)[0].id]
        clock.shift = 16
        await courier.deliver(KEY.session)
        reminder = webhooks.events(first)[1]
        assert reminder.type == "clock.running_out" and fake.ids(HOOK)[-1] == reminder.id
        # the next version's reminder, once the session moved on without a write here: dropped
        second = change(2, to_act=(0,), before_to_act=(0,), deadline=(0, time.time() + 20, 20.0))
        await store.write(KEY, Write(expected_rev=1, data=b"v2", outbox=webhooks.outbox(second, config)))
        revs["now"] = 3
        clock.shift = 32
        await courier.deliver(KEY.session)
        # and one whose version a later entry follows: dropped at once
        third = change(3, to_act=(0,), before_to_act=(0,), deadline=(0, time.time() + 20, 20.0))
        await store.write(KEY, Write(expected_rev=2, data=b"v3", outbox=webhooks.outbox(third, config)))
        fourth = change(4, to_act=(1,), before_to_act=(0,))
        await store.write(KEY, Write(expected_rev=3, data=b"v4", outbox=webhooks.outbox(fourth, config)))
        await courier.deliver(KEY.session)
        assert fake.ids(HOOK) == [webhooks.events(first)[0].id, reminder.id, webhooks.events(fourth)[0].id]
        assert await store.read_outbox(KEY.session, 10) == []

    run(make_store, body, config, current)


def test_a_server_event_this_replica_cannot_sign_or_a_url_no_longer_allowed_is_refused(
    make_store: StoreFactory,
) -> None:
    writer = Config(url=SERVER, secret=SERVER_SECRET)
    before = counted("refused")

    async def body(store: SessionStore, courier: Courier, fake: Fake, clock: Clock) -> None:
        first = change(1, to_act=(0,), webhook=Hook("http://127.0.0.1:9/x", SESSION_SECRET))
        await store.create(KEY, b"v1", webhooks.outbox(first, writer))
        await courier.deliver(KEY.session)  # this replica has no --webhook-url, nor an allowlist
        assert fake.sent == []
        assert counted("refused") - before == 2
        assert await store.read_outbox(KEY.session, 10) == []

    run(make_store, body, Config())


def test_a_session_another_replica_delivers_for_is_left_to_it(make_store: StoreFactory) -> None:
    config = Config(retry_seconds=60)

    async def body(store: SessionStore, courier: Courier, fake: Fake, clock: Clock) -> None:
        await two_versions(store, config)
        assert await store.take_lease("webhook:" + KEY.session, "replica-b", 10_000)
        await courier.deliver(KEY.session)
        assert fake.sent == [] and len(await store.read_outbox(KEY.session, 10)) == 2
        await store.drop_lease("webhook:" + KEY.session, "replica-b")
        await courier.deliver(KEY.session)
        assert len(fake.sent) == 2

    run(make_store, body, config)


# --------------------------------------------------------------------------- the pinned connection


def resolving(*addresses: str) -> delivery.Resolver:
    async def resolve(host: str, port: int) -> list[str]:
        return list(addresses)

    return resolve


def test_a_connection_goes_only_to_the_addresses_it_checked_with_the_url_s_host() -> None:
    async def main(receiver: Receiver) -> None:
        url = f"http://hooks.test:{receiver.port}/pinned"
        refused = PinnedBackend(Allowlist(), resolving("127.0.0.1"))
        with pytest.raises(WebhookRefused) as caught:
            await refused.connect_tcp("hooks.test", receiver.port)
        assert caught.value.reason == webhooks.HOST_NOT_ALLOWED
        # a name resolving to a public and a private address: refused before connecting
        with pytest.raises(WebhookRefused):
            await PinnedBackend(Allowlist(), resolving("93.184.216.34", "10.0.0.1")).connect_tcp(
                "h.test", 443
            )
        allowed = Allowlist.parse("127.0.0.0/8")
        async with httpx.AsyncClient(transport=PinnedTransport(allowed, resolving("127.0.0.1"))) as client:
            answer = await client.post(url, content=b"{}")
        assert answer.status_code == 204
        got = receiver.accepted("/pinned")
        assert got and got[0].headers["host"] == f"hooks.test:{receiver.port}"
        # a DNS answer that changes to loopback after the check (rebinding) reaches nothing
        async with httpx.AsyncClient(
            transport=PinnedTransport(Allowlist(), resolving("127.0.0.1"))
        ) as client:
            with pytest.raises(WebhookRefused):
                await client.post(f"https://rebind.test:{receiver.port}/pinned", content=b"{}")
        assert len(receiver.accepted("/pinned")) == 1

    with Receiver() as receiver:
        asyncio.run(main(receiver))
