"""Watch streams on Redis share one pub/sub connection per replica (``lawspeaker.sessions.watchers``):
it subscribes a session's channel for its first watcher and lets it go after the last, ends a
stream that falls too far behind, ends every stream when the connection fails (never skipping
versions silently) and serves new watchers on a new connection afterwards."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
import redis

from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import RedisStore, unavailable
from lawspeaker.sessions.watchers import Watchers
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import REDIS_UP, REDIS_URL
from .helpers import create, play, run

pytestmark = [pytest.mark.sessions, pytest.mark.skipif(not REDIS_UP, reason=f"no Redis at {REDIS_URL}")]


def redis_store(prefix: str, **kw: Any) -> Callable[[], RedisStore]:
    return lambda: RedisStore(REDIS_URL, prefix=prefix, **kw)


def watcher_connections(prefix: str) -> list[dict[str, Any]]:
    """The Redis connections of a store's watchers (named ``<prefix>-watchers``)."""
    client = redis.Redis.from_url(REDIS_URL)
    return [c for c in client.client_list() if c.get("name") == f"{prefix}-watchers"]


def subscribers(store: RedisStore, session: str, api: SessionApi) -> int:
    _, key = api._key(session)
    counts = redis.Redis.from_url(REDIS_URL).pubsub_numsub(store.channel(key))
    return int(counts[0][1])


def watch(api: SessionApi, session: str) -> Any:
    return api.watch_session(spb.WatchSessionRequest(session=session), None)


async def watching(api: SessionApi, session: str, n: int) -> list[Any]:
    """``n`` watch streams of the session, each past its first answer (the current version)."""
    streams = [watch(api, session) for _ in range(n)]
    for stream in streams:
        assert (await anext(stream)).session.session == session
    return streams


async def error_of(awaitable: Any) -> LawspeakerError:
    with pytest.raises(LawspeakerError) as caught:
        await awaitable
    return caught.value


def test_many_watchers_share_one_connection_and_a_channel_lives_while_it_is_watched(
    redis_prefix: str,
) -> None:
    async def body(api: SessionApi) -> None:
        store = api.store
        assert isinstance(store, RedisStore)
        sessions = [(await create(api, seed=s))[:2] for s in range(6)]
        streams = [watch(api, session) for session, _ in sessions for _ in range(5)]
        for stream in streams:
            await anext(stream)
        assert len(store.watchers) == 30
        assert len(watcher_connections(redis_prefix)) == 1
        assert [subscribers(store, s, api) for s, _ in sessions] == [1] * 6
        # every watcher of a session gets its next version
        session, tokens = sessions[2]
        moved = await play(api, session, tokens, 1)
        mine = streams[10:15]
        got = await asyncio.gather(*(asyncio.wait_for(anext(s), 5) for s in mine))
        assert {g.session.etag for g in got} == {moved.etag}
        for stream in streams[:29]:
            await stream.aclose()
        assert len(store.watchers) == 1
        assert [subscribers(store, s, api) for s, _ in sessions] == [0] * 5 + [1]
        await streams[29].aclose()
        assert subscribers(store, sessions[5][0], api) == 0

    run(redis_store(redis_prefix), body)


def test_a_watcher_that_stops_reading_is_ended_and_the_others_get_every_version(redis_prefix: str) -> None:
    async def body(api: SessionApi) -> None:
        session, tokens, _ = await create(api, physical_dice=True)
        slow, reader = await watching(api, session, 2)
        written = []
        for _ in range(5):
            written.append((await play(api, session, tokens, 1)).etag)
            seen = await asyncio.wait_for(anext(reader), 5)  # keeps up
            assert seen.session.etag == written[-1]
        # the slow one has three versions waiting, then the end of its stream
        caught = [(await asyncio.wait_for(anext(slow), 5)).session.etag for _ in range(3)]
        assert caught == written[:3]
        err = await error_of(asyncio.wait_for(anext(slow), 5))
        assert err.code is ErrorCode.UNAVAILABLE and err.reason == "WATCH_STREAM_BEHIND"
        assert "fell 3 versions behind" in err.message
        await reader.aclose()
        await slow.aclose()

    run(redis_store(redis_prefix, watch_backlog=3), body)


def test_a_lost_connection_ends_every_stream_and_the_next_watcher_reconnects(redis_prefix: str) -> None:
    async def body(api: SessionApi) -> None:
        session, tokens, _ = await create(api, physical_dice=True)
        streams = await watching(api, session, 3)
        (connection,) = watcher_connections(redis_prefix)
        redis.Redis.from_url(REDIS_URL).client_kill_filter(_id=connection["id"])
        for stream in streams:
            err = await error_of(asyncio.wait_for(anext(stream), 5))
            assert err.code is ErrorCode.UNAVAILABLE and err.reason == "SESSION_STORE_UNAVAILABLE"
        # a client that watches again starts from the current version and gets the next ones
        again = watch(api, session)
        assert (await anext(again)).session.move_count == 0
        moved = await play(api, session, tokens, 1)
        assert (await asyncio.wait_for(anext(again), 5)).session.etag == moved.etag
        assert len(watcher_connections(redis_prefix)) == 1
        await again.aclose()

    run(redis_store(redis_prefix), body)


def test_watchers_beyond_the_limit_are_refused_until_one_leaves(redis_prefix: str) -> None:
    async def body(api: SessionApi) -> None:
        session, _, _ = await create(api)
        first, second = await watching(api, session, 2)
        err = await error_of(anext(watch(api, session)))
        assert err.code is ErrorCode.UNAVAILABLE and err.reason == "WATCH_LIMIT"
        assert "2 watch streams at most" in err.message
        await first.aclose()
        third = watch(api, session)
        assert (await anext(third)).session.session == session
        await second.aclose()
        await third.aclose()

    run(redis_store(redis_prefix, max_watchers=2), body)


def test_shutdown_ends_every_stream(redis_prefix: str) -> None:
    async def body(api: SessionApi) -> None:
        session, _, _ = await create(api)
        streams = await watching(api, session, 3)
        api.shutdown()
        for stream in streams:
            with pytest.raises(StopAsyncIteration):
                await asyncio.wait_for(anext(stream), 5)
        late = watch(api, session)  # a watch that starts now ends after the current version
        assert (await anext(late)).session.session == session
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(anext(late), 5)

    run(redis_store(redis_prefix), body)


def test_when_connecting_fails_new_watchers_are_refused_at_once_for_a_while() -> None:
    """Watchers subscribe one at a time: after a failed connection attempt the next ones are
    refused without trying, for as long as that attempt took (at least ``RETRY_AFTER``), instead of
    each waiting for its own attempt."""

    class Refusing:
        """A redis-py client stand-in whose pub/sub connection cannot be made."""

        def __init__(self) -> None:
            self.attempts = 0

        def pubsub(self) -> Refusing:
            return self

        async def subscribe(self, channel: bytes) -> None:
            self.attempts += 1
            raise redis.exceptions.ConnectionError("refused")

        async def aclose(self) -> None:
            pass

    async def body() -> None:
        client = Refusing()
        watchers = Watchers(client, unavailable, limit=10, backlog=10, timeout=0.2)
        for _ in range(3):
            err = await error_of(watchers.add(b"channel"))
            assert err.code is ErrorCode.UNAVAILABLE and "ConnectionError" in err.message
        assert client.attempts == 1
        await asyncio.sleep(0.25)
        await error_of(watchers.add(b"channel"))
        assert client.attempts == 2 and len(watchers) == 0
        await watchers.close()

    asyncio.run(body())
