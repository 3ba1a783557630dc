"""Sessions in a Redis that speaks only TLS (``rediss://``), on redis-server processes of this test.

The store reaches Redis two ways, redis-py's pools and its own multiplexed connection for the
scripts of every session call (``lawspeaker.sessions.resp``): both must speak TLS and verify Redis
the same way, so that a URL one of them accepts the other accepts too. Certificates are made for
each run (``trustme``); the Redis certificate names 127.0.0.1 only, so ``localhost`` is a name it
does not prove. Skipped only when redis-server is missing or built without TLS.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
import redis.asyncio as aioredis
import trustme
from transport.test_serve_command import start

from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions.resp import Multiplexed
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import RedisStore
from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.v1 import session_service_pb2_grpc

from .helpers import create, play, run
from .ports import free_port

pytestmark = [
    pytest.mark.sessions,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs a redis-server with TLS"),
]


@dataclass(frozen=True)
class TlsRedis:
    port: int  # its TLS port (it has no other)
    ca: Path  # signed its certificate and the client's
    client_cert: Path
    client_key: Path

    def url(self, host: str = "127.0.0.1", query: str = "") -> str:
        return f"rediss://{host}:{self.port}/0{query}"

    @property
    def trusted(self) -> str:
        """The query that makes a client trust this run's CA."""
        return f"?ssl_ca_certs={self.ca}"

    @property
    def with_client_cert(self) -> str:
        return f"{self.trusted}&ssl_certfile={self.client_cert}&ssl_keyfile={self.client_key}"


@contextlib.contextmanager
def tls_redis(where: Path, auth_clients: str) -> Iterator[TlsRedis]:
    """A redis-server listening on a TLS port only (``--tls-auth-clients auth_clients``)."""
    ca = trustme.CA()
    server, client = ca.issue_cert("127.0.0.1"), ca.issue_cert("lawspeaker@example.test")
    files = {name: where / f"{name}.pem" for name in ("ca", "cert", "key", "client-cert", "client-key")}
    ca.cert_pem.write_to_path(str(files["ca"]))
    server.cert_chain_pems[0].write_to_path(str(files["cert"]))
    server.private_key_pem.write_to_path(str(files["key"]))
    client.cert_chain_pems[0].write_to_path(str(files["client-cert"]))
    client.private_key_pem.write_to_path(str(files["client-key"]))
    running = TlsRedis(free_port(), files["ca"], files["client-cert"], files["client-key"])
    output = where / "redis.log"
    with output.open("wb") as log:
        proc = subprocess.Popen(
            [
                *("redis-server", "--port", "0", "--tls-port", str(running.port), "--bind", "127.0.0.1"),
                *("--tls-cert-file", str(files["cert"]), "--tls-key-file", str(files["key"])),
                *("--tls-ca-cert-file", str(files["ca"]), "--tls-auth-clients", auth_clients),
                *("--save", "", "--appendonly", "no", "--dir", str(where)),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_until_answering(proc, running, output)
        yield running
    finally:
        proc.kill()
        proc.wait(10)


def _wait_until_answering(proc: subprocess.Popen[bytes], running: TlsRedis, output: Path) -> None:
    client = redis.Redis.from_url(running.url(query=running.with_client_cert), socket_timeout=1)
    deadline = time.monotonic() + 20
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                said = output.read_text(errors="replace")
                if "tls" in said.lower():  # e.g. "Bad directive" on tls-port, "TLS not supported"
                    pytest.skip(f"redis-server cannot serve TLS here: {said.strip()[-200:]}")
                raise AssertionError(f"redis-server exited: {said}")
            with contextlib.suppress(redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                if client.ping():
                    return
            time.sleep(0.05)
    finally:
        client.close()
    raise AssertionError("redis-server did not answer PING over TLS")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsRedis]:
    with tls_redis(tmp_path_factory.mktemp("rediss"), auth_clients="no") as running:
        yield running


@pytest.fixture(scope="module")
def mutual_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsRedis]:
    with tls_redis(tmp_path_factory.mktemp("rediss-mutual"), auth_clients="yes") as running:
        yield running


async def _whole_game(api: SessionApi) -> tuple[spb.Session, int]:
    """A two-player Valhalla session played to its end; the last session and its logged moves."""
    session, tokens, _ = await create(api, seed=21)
    last = await play(api, session, tokens, plies=5000)
    listed = await api.list_session_moves(spb.ListSessionMovesRequest(session=session, page_size=1), None)
    return last, listed.total_size


def test_a_whole_session_game_over_rediss(server: TlsRedis) -> None:
    made: list[RedisStore] = []

    def store(**kw: Any) -> RedisStore:
        made.append(RedisStore(server.url(query=server.trusted), prefix="lawspeaker-tls", **kw))
        return made[0]

    last, logged = run(store, _whole_game)
    assert last.game_over and last.move_count > 10
    assert logged == last.move_count  # the log (read by redis-py) has every move the scripts wrote
    fast = made[0]._fast  # the session calls' own connection served the moves, over TLS
    assert fast is not None and fast.tls is not None


@pytest.mark.parametrize(
    ("host", "query", "accepted"),
    [
        ("127.0.0.1", "trusted", True),
        ("127.0.0.1", "", False),  # the system's CAs do not know this run's CA
        ("127.0.0.1", "?ssl_cert_reqs=none", True),  # no verification at all: redis-py's opt-out
        ("localhost", "trusted", False),  # the certificate names 127.0.0.1, not localhost
        ("localhost", "trusted&ssl_check_hostname=false", True),
    ],
)
def test_redis_is_verified_as_redis_py_verifies_it(
    server: TlsRedis, host: str, query: str, accepted: bool
) -> None:
    url = server.url(host, query.replace("trusted", server.trusted))

    async def both() -> tuple[str, str]:
        fast = Multiplexed(url, timeout=5)
        pooled = aioredis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        try:
            return await _outcome(fast.call("PING")), await _outcome(pooled.ping())
        finally:
            await fast.close()
            await pooled.aclose()

    ours, redis_pys = asyncio.run(both())
    assert ours == redis_pys == ("answered" if accepted else "certificate refused")


async def _outcome(call: Any) -> str:
    try:
        await call
    except (OSError, redis.exceptions.ConnectionError) as err:
        if isinstance(err, ssl.SSLCertVerificationError) or "certificate verify failed" in str(err):
            return "certificate refused"
        raise
    return "answered"


def test_a_redis_that_wants_client_certificates(mutual_server: TlsRedis) -> None:
    """With ``tls-auth-clients yes``, ``ssl_certfile`` and ``ssl_keyfile`` give the store a client
    certificate; without one every session call is UNAVAILABLE (nothing half-works)."""

    def without(**kw: Any) -> RedisStore:
        return RedisStore(mutual_server.url(query=mutual_server.trusted), prefix="lawspeaker-tls", **kw)

    with pytest.raises(LawspeakerError) as refused:
        run(without, _whole_game)
    assert refused.value.code == ErrorCode.UNAVAILABLE

    def with_cert(**kw: Any) -> RedisStore:
        url = mutual_server.url(query=mutual_server.with_client_cert)
        return RedisStore(url, prefix="lawspeaker-tls", **kw)

    last, logged = run(with_cert, _whole_game)
    assert last.game_over and logged == last.move_count


@pytest.mark.transport
def test_serve_over_tls_with_sessions_in_rediss(server: TlsRedis) -> None:
    """TLS on every hop, as a production deployment runs it: `lawspeaker serve` with --tls-cert and
    a rediss:// --redis-url (the Redis certificate names 127.0.0.1, so it serves here too); a whole
    session game over gRPC with TLS."""
    certs = server.ca.parent
    args = ["--host", "127.0.0.1", "--grpc-port", "0", "--http-port", "0"]
    args += ["--tls-cert", str(certs / "cert.pem"), "--tls-key", str(certs / "key.pem")]
    args += ["--redis-url", server.url(query=server.trusted), "--redis-prefix", "lawspeaker-tls-serve"]
    proc, grpc_port, _ = start(args, {})
    credentials = grpc.ssl_channel_credentials(server.ca.read_bytes())
    try:
        with grpc.secure_channel(f"127.0.0.1:{grpc_port}", credentials) as channel:
            stub = session_service_pb2_grpc.SessionServiceStub(channel)
            created = stub.CreateSession(
                spb.CreateSessionRequest(game="valhalla", players=2, seed=5), timeout=10
            )
            sid, session = created.session.session, created.session
            tokens = {t.seat: (("authorization", f"Bearer {t.token}"),) for t in created.seat_tokens}
            for n in range(5000):
                if session.game_over:
                    break
                seat = session.to_act[0]
                listed = stub.SessionLegalMoves(
                    spb.SessionLegalMovesRequest(session=sid), metadata=tokens[seat], timeout=10
                )
                apply = spb.SessionApplyMoveRequest(
                    session=sid, move=listed.moves[0], etag=listed.etag, request_id=f"m{n}"
                )
                session = stub.SessionApplyMove(apply, metadata=tokens[seat], timeout=10).session
            assert session.game_over and session.move_count > 10
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
            if proc.stdout is not None:
                proc.stdout.close()
    assert proc.returncode == 0
