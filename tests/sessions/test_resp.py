"""The multiplexed Redis connection the session store runs its scripts on (``sessions.resp``)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions.resp import Multiplexed, ReplyError, Script
from lawspeaker.sessions.store import RedisStore, SessionKey, Write, WriteStatus

from .conftest import REDIS_UP, REDIS_URL
from .test_session_transport import free_port, start_redis

pytestmark = pytest.mark.sessions
needs_redis = pytest.mark.skipif(not REDIS_UP, reason=f"no Redis at {REDIS_URL}")
needs_redis_server = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")


@needs_redis
def test_replies_reach_their_callers_in_order_even_when_one_caller_gave_up() -> None:
    async def body() -> None:
        conn = Multiplexed(REDIS_URL, timeout=2)
        calls = [asyncio.ensure_future(conn.call("ECHO", f"reply {i}")) for i in range(50)]
        calls[10].cancel()  # its reply still comes, in its turn, and is dropped
        calls[30].cancel()
        done = await asyncio.gather(*calls, return_exceptions=True)
        for i, got in enumerate(done):
            if i in (10, 30):
                assert isinstance(got, asyncio.CancelledError)
            else:
                assert got == f"reply {i}".encode()
        assert await conn.call("ECHO", "after") == b"after"
        await conn.close()

    asyncio.run(body())


@needs_redis
def test_a_script_redis_does_not_know_yet_is_sent_in_full_once() -> None:
    async def body() -> None:
        conn = Multiplexed(REDIS_URL, timeout=2)
        script = Script(f"return {{ARGV[1], KEYS[1], '{time.time_ns()}'}}")  # new to this Redis
        assert (await conn.call("SCRIPT", "EXISTS", script.sha)) == [0]
        got = await conn.script(script, ["k"], ["v"])
        assert got[:2] == [b"v", b"k"]
        assert (await conn.call("SCRIPT", "EXISTS", script.sha)) == [1]  # EVAL cached it
        assert (await conn.script(script, ["k2"], ["v2"]))[:2] == [b"v2", b"k2"]
        await conn.close()

    asyncio.run(body())


@needs_redis
def test_an_error_reply_is_raised_and_the_connection_keeps_serving(redis_prefix: str) -> None:
    async def body() -> None:
        conn = Multiplexed(REDIS_URL, timeout=2)
        await conn.call("SET", f"{redis_prefix}:text", "not a number")
        with pytest.raises(ReplyError) as err:
            await conn.call("INCR", f"{redis_prefix}:text")
        assert "not an integer" in str(err.value) and not err.value.transient
        assert await conn.call("GET", f"{redis_prefix}:text") == b"not a number"
        await conn.close()

    asyncio.run(body())


def test_transient_error_replies_are_unavailable_and_other_errors_stay_bugs() -> None:
    async def body() -> None:
        store = RedisStore(REDIS_URL)
        for reply in (
            "OOM command not allowed when used memory > 'maxmemory'.",
            "READONLY You can't write against a read only replica.",
            "BUSY Redis is busy running a script.",
            "LOADING Redis is loading the dataset in memory",
            "MASTERDOWN Link with MASTER is down",
        ):

            async def fail(reply: str = reply) -> None:
                raise ReplyError(reply)

            with pytest.raises(LawspeakerError) as caught:
                await store._guard("test", fail)
            assert caught.value.code is ErrorCode.UNAVAILABLE
            assert caught.value.reason == "SESSION_STORE_UNAVAILABLE"

        async def bug() -> None:
            raise ReplyError("WRONGTYPE Operation against a key holding the wrong kind of value")

        # Any other error reply is a bug or a misconfiguration (issue 36): UNAVAILABLE too (logged),
        # whose message does not claim that nothing was written (a script may fail half-way).
        with pytest.raises(LawspeakerError) as caught:
            await store._guard("test", bug)
        assert caught.value.code is ErrorCode.UNAVAILABLE
        assert "WRONGTYPE" in caught.value.message and "is not known" in caught.value.message
        await store.close()

    asyncio.run(body())


@pytest.fixture
def private_redis() -> Iterator[tuple[int, Path]]:
    """A redis-server of the test's own with a password, listening on TCP and a Unix socket."""
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server")
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        sock = Path(tmp) / "redis.sock"
        proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--unixsocket",
                str(sock),
                "--requirepass",
                "s3cret",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.time() + 10
            while not sock.exists() and time.time() < deadline:
                time.sleep(0.05)
            yield port, sock
        finally:
            proc.kill()
            proc.wait(10)


def test_the_url_password_and_database_are_used_over_tcp_and_unix_sockets(
    private_redis: tuple[int, Path],
) -> None:
    port, sock = private_redis

    async def body() -> None:
        db3 = redis.Redis(host="127.0.0.1", port=port, password="s3cret", db=3)
        db0 = redis.Redis(host="127.0.0.1", port=port, password="s3cret", db=0)
        key = SessionKey("valhalla.url-test", "valhalla-1")
        for url in (f"redis://:s3cret@127.0.0.1:{port}/3", f"unix://:s3cret@{sock}?db=3"):
            store = RedisStore(url, timeout=2)
            assert store._fast is not None
            assert await store.create(key, b"one") == 1  # redis-py
            written = await store.write(key, Write(expected_rev=1, data=b"two"))  # the shared connection
            assert written.status is WriteStatus.WRITTEN
            loaded = await store.load(key)
            assert loaded is not None and loaded.data == b"two" and loaded.rev == 2
            record = store.keys(key)[0]
            assert db3.hget(record, "data") == b"two" and not db0.exists(record)
            await store.delete(key)
            await store.close()

        wrong = RedisStore(f"redis://:wrong@127.0.0.1:{port}/3", timeout=2)
        with pytest.raises(LawspeakerError) as refused:  # as redis-py's AuthenticationError is
            await wrong.load(key)
        assert refused.value.code is ErrorCode.UNAVAILABLE
        await wrong.close()

    asyncio.run(body())


def test_every_url_scheme_has_the_multiplexed_connection_tls_only_for_rediss() -> None:
    """rediss:// gets it too, over TLS (tests/sessions/test_redis_tls.py plays over it)."""
    for url in ("redis://127.0.0.1:6379/0", "unix:///tmp/redis.sock", "rediss://127.0.0.1:6380/0"):
        assert Multiplexed.serves(url)
    assert Multiplexed("redis://127.0.0.1:6379/0", 1).tls is None
    fast = RedisStore("rediss://127.0.0.1:6380/0")._fast
    assert fast is not None and fast.tls is not None


@needs_redis_server
def test_a_restarted_redis_is_reconnected_and_calls_in_flight_fail_as_unavailable() -> None:
    port = free_port()
    proc = start_redis(port)

    async def body() -> subprocess.Popen[bytes]:
        store = RedisStore(f"redis://127.0.0.1:{port}/0", timeout=0.5)
        key = SessionKey("valhalla.restart", "valhalla-1")
        await store.create(key, b"one")
        assert await store.load(key) is not None
        proc.kill()
        proc.wait(10)
        with pytest.raises(LawspeakerError) as down:
            await store.load(key)
        assert down.value.code is ErrorCode.UNAVAILABLE
        again = start_redis(port)  # empty: the session is gone, but the store serves again
        assert await store.load(key) is None
        await store.close()
        return again

    again = asyncio.run(body())
    again.kill()
    again.wait(10)
