"""A Redis that is full (issue 36 item 6): with ``maxmemory`` and the ``noeviction`` policy Redis refuses
every write that may grow its memory (OOM). A creation it refuses is 503 SESSION_STORE_UNAVAILABLE and
leaves every count as it was (the live count, the caller's rate limit), health details say the store
is degraded (it answers, so sessions can be read, but takes no writes), ``lawspeaker_store_writable``
is 0; once memory is freed all is as before. On a private redis-server with a small maxmemory."""

from __future__ import annotations

import asyncio
import secrets
import shutil
import time

import pytest
import redis
from prometheus_client import REGISTRY

from lawspeaker.api.access import Caller
from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions.service import Limits, SessionApi
from lawspeaker.sessions.store import RedisStore, SessionKey, unavailable
from lawspeaker.v1 import session_service_pb2 as spb

from .helpers import create_as
from .test_durability import redis_server

pytestmark = [
    pytest.mark.sessions,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]
NEW = spb.CreateSessionRequest(game="valhalla", players=2)
BIG = 1024 * 1024  # bytes per filler key


def _writable_metric(store: str) -> float | None:
    return REGISTRY.get_sample_value("lawspeaker_store_writable", {"store": store})


async def _create(api: SessionApi, caller: Caller) -> spb.CreateSessionResponse:
    return await create_as(api, caller, NEW)


def _int(value: object) -> int:
    return int(value) if isinstance(value, bytes) else 0


def _fill(client: redis.Redis) -> int:
    """Writes filler keys, big then smaller (a refused command's own bytes count while it is read),
    until Redis refuses even a tiny write (OOM); how many it took."""
    made = 0
    for size in (BIG, 64 * 1024, 4096, 256, 16):
        while True:
            try:
                client.set(f"filler:{made}", b"x" * size)
            except redis.exceptions.OutOfMemoryError:
                break
            made += 1
            assert made < 10_000, "Redis took it all under a 4 MiB maxmemory"
    # Redis's memory moves a little between commands (its buffers): full is when a tiny write is
    # refused three times in a row; a tiny write that still fits is kept, and the check goes on.
    refused = 0
    while refused < 3:
        try:
            client.set(f"filler:{made}", b"x")
        except redis.exceptions.OutOfMemoryError:
            refused += 1
        else:
            made, refused = made + 1, 0
        assert made < 20_000, "Redis took it all under a 4 MiB maxmemory"
    return made


@pytest.mark.parametrize("rate", [0, 600], ids=["no-rate-limit", "rate-limited"])
def test_a_full_redis_refuses_creations_without_counting_them_and_health_says_degraded(rate: int) -> None:
    """Without a rate limit, the admission (a script Redis lets write under OOM: its first write, a
    ZREMRANGEBYSCORE, does not grow memory) counts the session before the creation fails: it is
    undone. With one, the rate limit's script fails first and nothing is counted at all."""
    prefix = f"lawspeaker-test-{secrets.token_hex(6)}"
    with redis_server(
        "--save", "", "--appendonly", "no", "--maxmemory", "4mb", "--maxmemory-policy", "noeviction"
    ) as port:
        client = redis.Redis(port=port)
        url = f"redis://127.0.0.1:{port}"
        live_key = f"{prefix}:live"

        def in_redis() -> int:
            return int(client.zcard(live_key))

        async def body() -> None:
            api = SessionApi(
                RedisStore(url, prefix=prefix),
                limits=Limits(max_sessions=100, create_per_minute=rate, create_burst=50),
            )
            alice = Caller("ip:192.0.2.10")
            made = [await _create(api, alice) for _ in range(3)]
            health = await api.health()
            assert health["available"] and health["writable"] and not health["degraded"], health
            assert (
                health["memory"]["policy"] == "noeviction" and health["memory"]["maxBytes"] == 4 * 1024 * 1024
            )
            assert _writable_metric("redis") == 1.0
            rate_before = client.get(f"{prefix}:rate:create:{alice.quota_key}")

            filled = _fill(client)
            assert filled > 0
            for _ in range(5):
                with pytest.raises(LawspeakerError) as caught:
                    await _create(api, alice)
                assert caught.value.code is ErrorCode.UNAVAILABLE, caught.value
                assert caught.value.reason == "SESSION_STORE_UNAVAILABLE"
            # Every count as it was: the live count equals the sessions Redis holds, and the refused
            # creations took nothing from the rate limit.
            assert in_redis() == len(made) == (await api.health())["liveSessions"]
            records = list(client.scan_iter(match=f"{prefix}:*:record"))
            assert len(records) == len(made)
            if rate:
                assert _int(client.get(f"{prefix}:rate:create:{alice.quota_key}")) == _int(rate_before)
            health = await api.health()
            assert health["available"] is True  # it answers: sessions can be read
            assert health["writable"] is False and health["degraded"] is True, health
            assert health["error"] == "SESSION_STORE_UNAVAILABLE", health
            assert health["writeError"].startswith("OutOfMemoryError: "), health
            assert health["memory"]["usedBytes"] > health["memory"]["maxBytes"]
            assert _writable_metric("redis") == 0.0
            got = await api.get_session(spb.GetSessionRequest(session=made[0].session.session), None)
            assert got.session.session == made[0].session.session  # reads still work
            # A move is refused too, and nothing of it is written: the session is as it was.
            first, token = made[0].session, made[0].seat_tokens[0].token
            listed = await api.session_legal_moves(spb.SessionLegalMovesRequest(session=first.session), token)
            move = spb.SessionApplyMoveRequest(
                session=first.session, move=listed.moves[0], etag=first.etag, request_id="full-1"
            )
            with pytest.raises(LawspeakerError) as refused_move:
                await api.session_apply_move(move, token)
            assert refused_move.value.reason == "SESSION_STORE_UNAVAILABLE"
            after = (await api.get_session(spb.GetSessionRequest(session=first.session), None)).session
            assert (after.move_count, after.etag) == (first.move_count, first.etag)

            client.delete(*(f"filler:{i}" for i in range(filled)))
            freed = time.monotonic()
            applied = await api.session_apply_move(move, token)  # the same request, now made once
            recovered = time.monotonic() - freed
            assert applied.session.move_count == first.move_count + 1
            health = await api.health()
            assert health["writable"] is True and health["degraded"] is False and "error" not in health, (
                health
            )
            assert _writable_metric("redis") == 1.0
            await _create(api, alice)
            assert in_redis() == len(made) + 1 == (await api.health())["liveSessions"]
            print(
                f"\nfull Redis (rate limit {rate}/min): 5 creations and 1 move refused 503, live count "
                f"{in_redis() - 1} = records {len(records)}, health degraded; memory freed: the move "
                f"made {recovered * 1000:.1f} ms later"
            )
            await api.close()

        asyncio.run(body())


def test_a_creation_the_store_refuses_gives_back_its_rate_limit_request_and_its_place() -> None:
    """The creation fails after the admission passed (here the write itself fails as a lost
    connection would make it): the live count and the rate limit are as before it."""
    prefix = f"lawspeaker-test-{secrets.token_hex(6)}"
    with redis_server("--save", "", "--appendonly", "no") as port:
        client = redis.Redis(port=port)

        async def body() -> None:
            store = RedisStore(f"redis://127.0.0.1:{port}", prefix=prefix)
            api = SessionApi(store, limits=Limits(max_sessions=10, create_per_minute=60, create_burst=3))
            bob = Caller("ip:192.0.2.20")
            await _create(api, bob)
            rate_key = f"{prefix}:rate:create:{bob.quota_key}"
            tat = int(client.get(rate_key) or 0)

            async def refuse(key: SessionKey, data: bytes, outbox: bytes = b"") -> int:
                raise unavailable("Redis: ConnectionError")

            store.create = refuse  # type: ignore[method-assign]
            for _ in range(3):
                with pytest.raises(LawspeakerError):
                    await _create(api, bob)
            assert int(client.zcard(f"{prefix}:live")) == 1
            assert int(client.get(rate_key) or 0) == tat  # every request given back
            del store.create
            for _ in range(2):  # the rest of the burst of 3 is still there
                await _create(api, bob)
            with pytest.raises(LawspeakerError) as caught:
                await _create(api, bob)
            assert caught.value.reason == "SESSION_CREATE_RATE_LIMITED"
            await api.close()

        asyncio.run(body())
