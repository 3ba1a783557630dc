"""The webhook outbox and pending index in each store (issue 38): on the in-process store, a real
Redis and a Redis Cluster. An event is appended in the same atomic step as its version, so a write
that fails (stale, missing) adds nothing; deleting a session leaves its outbox; a look at the outbox
writes back only while its first entry is the one it read; the index keeps a session a write hinted
within the grace, however its look ended."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from lawspeaker.sessions.store import SessionKey, SessionStore, Write, WriteStatus

from .conftest import StoreFactory

pytestmark = pytest.mark.sessions
T = TypeVar("T")
KEY = SessionKey("valhalla.outbox-test", "valhalla-1")


def run(make_store: StoreFactory, body: Callable[[SessionStore], Awaitable[T]]) -> T:
    async def main() -> T:
        store = make_store()
        try:
            return await body(store)
        finally:
            await store.close()

    return asyncio.run(main())


def test_events_are_appended_with_their_version_and_a_failed_write_adds_none(
    make_store: StoreFactory,
) -> None:
    async def body(store: SessionStore) -> None:
        assert await store.create(KEY, b"v1", outbox=b"e1") == 1
        assert await store.read_outbox(KEY.session, 10) == [b"e1"]
        written = await store.write(KEY, Write(expected_rev=1, data=b"v2", push=b"m", outbox=b"e2"))
        assert written.status is WriteStatus.WRITTEN
        stale = await store.write(KEY, Write(expected_rev=1, data=b"v2'", push=b"m", outbox=b"e2'"))
        assert stale.status is WriteStatus.STALE
        plain = await store.write(KEY, Write(expected_rev=2, data=b"v3", push=b"m"))  # no events
        assert plain.status is WriteStatus.WRITTEN
        missing = SessionKey("valhalla.none", "valhalla-1")
        gone = await store.write(missing, Write(expected_rev=1, data=b"x", outbox=b"lost"))
        assert gone.status is WriteStatus.MISSING
        assert await store.read_outbox(KEY.session, 10) == [b"e1", b"e2"]
        assert await store.read_outbox(missing.session, 10) == []
        assert await store.read_outbox(KEY.session, 1) == [b"e1"]
        # deleting the session leaves its events to be delivered
        assert await store.delete(KEY)
        assert await store.read_outbox(KEY.session, 10) == [b"e1", b"e2"]

    run(make_store, body)


def test_a_write_with_events_hints_its_session_due_after_the_grace(make_store: StoreFactory) -> None:
    async def body(store: SessionStore) -> None:
        before = time.time()
        await store.create(KEY, b"v1")
        assert await store.webhooks_due(before + 3600, 10) == []  # no events, no hint
        await store.write(KEY, Write(expected_rev=1, data=b"v2", outbox=b"e"))
        assert await store.webhooks_pending() == 1
        assert await store.webhooks_due(before, 10) == []  # the writer's own turn first
        assert await store.webhooks_due(time.time() + 3.5, 10) == [KEY.session]
        # a hint only moves the due time earlier
        await store.webhook_hint(KEY.session, before + 100, before)
        assert await store.webhooks_due(time.time() + 3.5, 10) == [KEY.session]

    run(make_store, body)


def test_a_look_writes_back_only_while_the_outbox_starts_as_it_read_it(make_store: StoreFactory) -> None:
    async def body(store: SessionStore) -> None:
        await store.create(KEY, b"v1", outbox=b"e1")
        await store.write(KEY, Write(expected_rev=1, data=b"v2", outbox=b"e2"))
        read = await store.read_outbox(KEY.session, 10)
        # a version written during the look stays behind what the look writes back
        await store.write(KEY, Write(expected_rev=2, data=b"v3", outbox=b"e3"))
        assert await store.settle_outbox(KEY.session, len(read), read[0], b"rest") == 2
        assert await store.read_outbox(KEY.session, 10) == [b"rest", b"e3"]
        # a replica whose look began before that one's write-back changes nothing
        assert await store.settle_outbox(KEY.session, 2, b"e1", b"") == -1
        assert await store.read_outbox(KEY.session, 10) == [b"rest", b"e3"]
        assert await store.settle_outbox(KEY.session, 2, b"rest", b"") == 0
        assert await store.read_outbox(KEY.session, 10) == []
        assert await store.settle_outbox(KEY.session, 1, b"rest", b"") == -1  # nothing left to match

    run(make_store, body)


def test_the_index_keeps_a_session_a_write_hinted_within_the_grace_of_the_look(
    make_store: StoreFactory,
) -> None:
    """A look that found nothing must not drop a session whose writer hinted it just before writing:
    its entry may have come after the read. The session stays due until the grace after the hint."""

    async def body(store: SessionStore) -> None:
        now = time.time()
        session = KEY.session
        await store.webhook_hint(session, now + 3, now)
        await store.webhook_settle(session, now + 0.1, None, 3.0)  # read 0.1 s after the hint
        assert await store.webhooks_due(now + 2.9, 10) == []
        assert await store.webhooks_due(now + 3.0, 10) == [session]
        await store.webhook_settle(session, now + 3.5, None, 3.0)  # read past the grace: gone
        assert await store.webhooks_pending() == 0
        # a retry due later, kept at its time; an earlier one when a hint came meanwhile
        await store.webhook_hint(session, now + 3, now)
        await store.webhook_settle(session, now + 10, now + 60, 3.0)
        assert await store.webhooks_due(now + 59, 10) == []
        assert await store.webhooks_due(now + 60, 10) == [session]
        await store.webhook_hint(session, now + 13, now + 10)
        await store.webhook_settle(session, now + 10.5, now + 60, 3.0)
        assert await store.webhooks_due(now + 13, 10) == [session]

    run(make_store, body)
