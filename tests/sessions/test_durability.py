"""Durability that is stated and checked: the store reads Redis's persistence settings and says what
an acknowledged move survives (at start and in health details), and ``--redis-wait-replicas``
acknowledges a move only once WAIT says replicas have it, on private Redis servers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import redis

from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import Durability, RedisStore
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import session_service_pb2 as spb

from .test_session_transport import free_port

pytestmark = [
    pytest.mark.sessions,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]
CAST = game_pb2.Move(valhalla={"cast": {}})


@contextlib.contextmanager
def redis_server(*args: str) -> Iterator[int]:
    """A private redis-server with these settings; its port."""
    port = free_port()
    server = shutil.which("redis-server")
    assert server is not None
    proc = subprocess.Popen(
        [
            server,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            "/tmp",
            "--dbfilename",
            f"lawspeaker-test-{port}.rdb",
            "--appendfilename",
            f"lawspeaker-test-{port}.aof",
            *args,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port, socket_connect_timeout=0.2)
    try:
        deadline = time.time() + 10
        while True:
            with contextlib.suppress(redis.RedisError):
                if client.ping():
                    break
            assert time.time() < deadline, "redis-server did not start"
            time.sleep(0.05)
        yield port
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.kill()
        proc.wait(10)
        client.close()
        for name in os.listdir("/tmp"):
            if name.startswith(f"lawspeaker-test-{port}"):
                path = os.path.join("/tmp", name)
                (shutil.rmtree if os.path.isdir(path) else os.remove)(path)


def test_what_each_redis_setting_lets_an_acknowledged_move_survive() -> None:
    off = Durability.of({"appendonly": "no", "appendfsync": "everysec", "save": ""}, 0, 0)
    assert off.persistence == "none" and not off.safe and "every session is lost" in (off.warning or "")
    rdb = Durability.of({"appendonly": "no", "appendfsync": "everysec", "save": "3600 1"}, 0, 0)
    assert rdb.persistence == "rdb save=3600 1" and not rdb.safe and "last snapshot" in rdb.survives
    everysec = Durability.of({"appendonly": "yes", "appendfsync": "everysec", "save": ""}, 0, 0)
    assert not everysec.safe and "the last second" in everysec.survives
    always = Durability.of({"appendonly": "yes", "appendfsync": "always", "save": ""}, 0, 0)
    assert always.safe and always.warning is None
    replicated = Durability.of({"appendonly": "no", "appendfsync": "everysec", "save": ""}, 1, 1)
    assert replicated.safe and "1 replica(s)" in replicated.survives
    assert Durability.unknown("CONFIG GET refused", 0).warning is not None


@pytest.mark.parametrize(
    ("settings", "safe"),
    [
        (("--save", "", "--appendonly", "no"), False),
        (("--appendonly", "yes", "--appendfsync", "always"), True),
    ],
)
def test_the_store_reads_the_settings_and_health_details_show_them(
    settings: tuple[str, ...], safe: bool
) -> None:
    with redis_server(*settings) as port:

        async def body() -> None:
            api = SessionApi(RedisStore(f"redis://127.0.0.1:{port}/0"))
            try:
                health = await api.health()
            finally:
                await api.close()
            durability = health["durability"]
            assert durability["safe"] is safe
            assert durability["settings"]["appendonly"] == ("yes" if safe else "no")
            assert ("warning" in durability) is not safe
            assert health["liveSessions"] == 0 and health["available"] is True

        asyncio.run(body())


def test_serve_warns_at_start_when_moves_would_not_survive_a_restart() -> None:
    with redis_server("--save", "", "--appendonly", "no") as port:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lawspeaker",
                "serve",
                "--host",
                "127.0.0.1",
                "--grpc-port",
                "0",
                "--http-port",
                "0",
                "--redis-url",
                f"redis://127.0.0.1:{port}/0",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None
            assert re.search(r"grpc_port=\d+", proc.stdout.readline() or "")
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=20)
        warnings = [line for line in err.splitlines() if "WARNING" in line and "durability" in line]
        assert len(warnings) == 1
        assert "nothing survives a restart of Redis" in warnings[0]


def test_wait_replicas_acknowledges_a_move_only_once_a_replica_has_it() -> None:
    """With a replica that stops answering, the move is refused with UNAVAILABLE although the primary
    has it, and so is its retry while the replica is away; once it is back, a retry with the same
    request id tells its outcome (here: it was kept)."""
    with (
        redis_server("--save", "", "--appendonly", "no") as primary,
        redis_server("--save", "", "--appendonly", "no", "--replicaof", "127.0.0.1", str(primary)) as replica,
    ):
        admin = redis.Redis(port=primary)
        deadline = time.time() + 10
        while admin.info("replication").get("slave0", {}).get("state") != "online":
            assert time.time() < deadline, "the replica did not connect"
            time.sleep(0.05)
        replica_pid = int(redis.Redis(port=replica).info("server")["process_id"])

        async def body() -> None:
            store = RedisStore(f"redis://127.0.0.1:{primary}/0", wait_replicas=1, wait_timeout=1.0)
            api = SessionApi(store)
            try:
                made = await api.create_session(spb.CreateSessionRequest(game="valhalla", players=2), None)
                session, token = made.session.session, made.seat_tokens[0].token
                assert (await api.health())["durability"]["safe"] is True
                os.kill(replica_pid, signal.SIGSTOP)
                try:
                    request = spb.SessionApplyMoveRequest(
                        session=session, move=CAST, etag=made.session.etag, request_id="cast-1"
                    )
                    with pytest.raises(LawspeakerError) as caught:
                        await api.session_apply_move(request, token)
                    err = caught.value
                    assert (err.code, err.reason) == (
                        ErrorCode.UNAVAILABLE,
                        "SESSION_WRITE_NOT_REPLICATED",
                    )
                    assert err.metadata == {"ackedReplicas": "0", "wantedReplicas": "1"}
                    with pytest.raises(LawspeakerError) as created:
                        await api.create_session(spb.CreateSessionRequest(game="valhalla", players=2), None)
                    assert created.value.reason == "SESSION_WRITE_NOT_REPLICATED"
                    # Its retry, answered from the request id, is an acknowledgement too: still
                    # refused while no replica has confirmed the move.
                    with pytest.raises(LawspeakerError) as replayed:
                        await api.session_apply_move(request, token)
                    assert replayed.value.reason == "SESSION_WRITE_NOT_REPLICATED"
                finally:
                    os.kill(replica_pid, signal.SIGCONT)
                seen = await api.get_session(spb.GetSessionRequest(session=session), None)
                assert seen.session.move_count == 1  # the primary kept it
                retried = await api.session_apply_move(request, token)  # the outcome, by request id
                assert retried.session.move_count == 1 and retried.events
                current = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
                assert current.move_count == 1  # applied once
            finally:
                await api.close()

        asyncio.run(body())
