"""Redis restarts under load: every kind of session call works again within 1 s of Redis answering.

A private redis-server (on a free port, with and without persistence) is stopped 20 times, by
SIGKILL or by SHUTDOWN NOSAVE, and started again on the same port after a short random pause, while
a ``lawspeaker serve`` process on it answers a steady load of every kind of session call over REST
and gRPC. One second after Redis answers PING again a burst of every kind at once joins in: it needs
more of redis-py's pooled connections than the steady load, so it reaches the ones the pool held
before the restart. From that second until the next stop every call must be answered (any answer
but UNAVAILABLE/503, another 5xx or a broken connection).

Two slow recoveries this guards against: redis-py 8.1 hands out pooled connections that Redis has
closed (each failed one call with a 503, seconds after the restart, whenever a burst reached it),
and after a failed pub/sub connection new watchers were refused for the whole timeout (1 s) even
when Redis came back at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import shutil
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc
import httpx
import pytest
from transport.test_serve_command import start

from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions.store import RedisStore, SessionKey, unavailable
from lawspeaker.sessions.watchers import Watchers
from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.v1 import session_service_pb2_grpc

from .helpers import stop
from .ports import free_port

pytestmark = [
    pytest.mark.sessions,
    pytest.mark.transport,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs a redis-server to restart"),
]

RESTARTS = 20
RECOVERY = 1.0  # seconds after Redis answers PING by which every kind of call works (the bound)
BURST = 1  # sequences of each kind over each transport at once, RECOVERY after each restart
RPCS = (
    "CreateSession",
    "GetSession",
    "ListSessionMoves",
    "SessionLegalMoves",
    "SessionValidateMove",
    "SessionApplyMove",
    "UndoMove",
    "DeleteSession",
    "WatchSession",
)
# gRPC codes that are an answer (the session store was reached and said something), not a failure.
ANSWERS = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.OUT_OF_RANGE,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}
T = TypeVar("T")


# --------------------------------------------------------------------------- a Redis of our own


def _command(port: int, *args: str, timeout: float = 0.2) -> bytes:
    """One command to Redis on a fresh connection: its raw reply, b"" when the connection closed."""
    packed = b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a.encode()) for a in args)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(packed)
        return conn.recv(256)


class PrivateRedis:
    """A redis-server of this test's own, stopped and started again on the same port."""

    def __init__(self, port: int, data: Path, fsync: str = "everysec") -> None:
        self.port = port
        self.data = data
        self.fsync = fsync  # the AOF's appendfsync when it persists ("always": a SIGKILL loses nothing)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, persist: bool) -> None:
        server = shutil.which("redis-server")
        assert server is not None
        aof = ["--appendonly", "yes", "--appendfsync", self.fsync] if persist else ["--appendonly", "no"]
        where = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data)]
        self.proc = subprocess.Popen(
            [server, *where, "--save", "", *aof],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def answering(self) -> float:
        """Waits until Redis answers PING (not LOADING, not refused): the time.monotonic() it did."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if _command(self.port, "PING").startswith(b"+PONG"):
                    return time.monotonic()
            time.sleep(0.002)
        raise AssertionError("redis-server did not answer PING")

    def stop(self, how: str) -> None:
        assert self.proc is not None
        if how == "SIGKILL":
            self.proc.kill()
        else:
            with contextlib.suppress(OSError):
                _command(self.port, "SHUTDOWN", "NOSAVE", timeout=5)
        self.proc.wait(10)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(free_port(), tmp_path)
    server.start(persist=False)
    server.answering()
    try:
        yield server
    finally:
        server.kill()


# --------------------------------------------------------------------------- the load


@dataclass(frozen=True)
class Call:
    rpc: str  # e.g. "SessionApplyMove over REST"
    started: float
    ended: float
    failure: str  # what went wrong; "" when it was answered


class Gone(Exception):
    """The session is not there (Redis restarted empty): the next sequence makes a new one."""


class Down(Exception):
    """The call failed (recorded): this sequence stops here."""


@dataclass
class Session:
    id: str
    tokens: list[str]


class Transport:
    """Session calls over one transport, each recorded in ``calls``."""

    name = ""

    def __init__(self, calls: list[Call]) -> None:
        self.calls = calls

    async def timed(self, rpc: str, call: Callable[[], Awaitable[tuple[str, T]]]) -> T:
        """Runs ``call`` (which says how it went: "" answered, "gone" not found, else the failure)."""
        started = time.monotonic()
        result: Any = None
        try:
            failure, result = await asyncio.wait_for(call(), 15)
        except (httpx.HTTPError, TimeoutError) as err:
            failure = f"{type(err).__name__}: {err}"
        self.calls.append(
            Call(f"{rpc} over {self.name}", started, time.monotonic(), "" if failure == "gone" else failure)
        )
        if failure == "gone":
            raise Gone
        if failure:
            raise Down
        return result


class Rest(Transport):
    name = "REST"

    def __init__(self, calls: list[Call], http: httpx.AsyncClient) -> None:
        super().__init__(calls)
        self.http = http

    async def send(self, rpc: str, method: str, url: str, token: str = "", body: Any = None) -> Any:
        async def call() -> tuple[str, Any]:
            headers = {"authorization": f"Bearer {token}"} if token else {}
            r = await self.http.request(method, url, json=body, headers=headers)
            return _status(r.status_code), (r.json() if r.status_code == 200 else None)

        return await self.timed(rpc, call)

    async def create(self) -> Session:
        made = await self.send(
            "CreateSession", "POST", "/v1/sessions", body={"game": "valhalla", "players": 2}
        )
        if made is None:
            raise Down
        return Session(made["session"]["session"], [t["token"] for t in made["seatTokens"]])

    async def to_act(self, s: Session) -> tuple[int, bool]:
        got = await self.send("GetSession", "GET", f"/v1/sessions/{s.id}")
        if got is None:
            raise Down
        seats = got["session"].get("toAct", [])
        return (seats[0] if seats else 0), bool(got["session"].get("gameOver"))

    async def legal(self, s: Session, seat: int) -> tuple[list[Any], str]:
        got = await self.send(
            "SessionLegalMoves", "POST", f"/v1/sessions/{s.id}:legalMoves", s.tokens[seat], {}
        )
        if got is None or not got.get("moves"):
            raise Down
        return list(got["moves"]), str(got["etag"])

    async def validate(self, s: Session, seat: int, move: Any) -> None:
        url = f"/v1/sessions/{s.id}:validateMove"
        await self.send("SessionValidateMove", "POST", url, s.tokens[seat], {"move": move})

    async def apply(self, s: Session, seat: int, move: Any, etag: str) -> str:
        url = f"/v1/sessions/{s.id}:applyMove"
        got = await self.send("SessionApplyMove", "POST", url, s.tokens[seat], {"move": move, "etag": etag})
        return str(got["session"]["etag"]) if got else ""

    async def undo(self, s: Session, seat: int, etag: str) -> None:
        await self.send("UndoMove", "POST", f"/v1/sessions/{s.id}:undo", s.tokens[seat], {"etag": etag})

    async def moves(self, s: Session) -> None:
        await self.send("ListSessionMoves", "GET", f"/v1/sessions/{s.id}/moves")

    async def delete(self, s: Session) -> None:
        await self.send("DeleteSession", "DELETE", f"/v1/sessions/{s.id}", s.tokens[0])

    async def watch(self, s: Session) -> None:
        async def call() -> tuple[str, None]:
            headers = {"authorization": f"Bearer {s.tokens[0]}"}
            async with self.http.stream("GET", f"/v1/sessions/{s.id}:watch", headers=headers) as r:
                if r.status_code != 200:
                    return _status(r.status_code), None
                async for line in r.aiter_lines():
                    if line.startswith("event: error"):
                        return "the stream began with an error event", None
                    if line.startswith("data:"):
                        return "", None  # the current version: watching works
            return "the stream ended before the first version", None

        await self.timed("WatchSession", call)


class Grpc(Transport):
    name = "gRPC"

    def __init__(self, calls: list[Call], stub: session_service_pb2_grpc.SessionServiceStub) -> None:
        super().__init__(calls)
        self.stub = stub

    async def send(self, rpc: str, request: Any, token: str = "") -> Any:
        metadata = (("authorization", f"Bearer {token}"),) if token else ()

        async def call() -> tuple[str, Any]:
            try:
                return "", await getattr(self.stub, rpc)(request, metadata=metadata, timeout=10)
            except grpc.aio.AioRpcError as err:
                return _code(err.code()), None

        return await self.timed(rpc, call)

    async def create(self) -> Session:
        made = await self.send("CreateSession", spb.CreateSessionRequest(game="valhalla", players=2))
        if made is None:
            raise Down
        return Session(made.session.session, [t.token for t in made.seat_tokens])

    async def to_act(self, s: Session) -> tuple[int, bool]:
        got = await self.send("GetSession", spb.GetSessionRequest(session=s.id))
        if got is None:
            raise Down
        seats = list(got.session.to_act)
        return (seats[0] if seats else 0), got.session.game_over

    async def legal(self, s: Session, seat: int) -> tuple[list[Any], str]:
        got = await self.send("SessionLegalMoves", spb.SessionLegalMovesRequest(session=s.id), s.tokens[seat])
        if got is None or not got.moves:
            raise Down
        return list(got.moves), str(got.etag)

    async def validate(self, s: Session, seat: int, move: Any) -> None:
        request = spb.SessionValidateMoveRequest(session=s.id, move=move)
        await self.send("SessionValidateMove", request, s.tokens[seat])

    async def apply(self, s: Session, seat: int, move: Any, etag: str) -> str:
        request = spb.SessionApplyMoveRequest(session=s.id, move=move, etag=etag)
        got = await self.send("SessionApplyMove", request, s.tokens[seat])
        return str(got.session.etag) if got is not None else ""

    async def undo(self, s: Session, seat: int, etag: str) -> None:
        await self.send("UndoMove", spb.UndoMoveRequest(session=s.id, etag=etag), s.tokens[seat])

    async def moves(self, s: Session) -> None:
        await self.send("ListSessionMoves", spb.ListSessionMovesRequest(session=s.id))

    async def delete(self, s: Session) -> None:
        await self.send("DeleteSession", spb.DeleteSessionRequest(session=s.id), s.tokens[0])

    async def watch(self, s: Session) -> None:
        async def call() -> tuple[str, None]:
            metadata = (("authorization", f"Bearer {s.tokens[0]}"),)
            stream = self.stub.WatchSession(
                spb.WatchSessionRequest(session=s.id), metadata=metadata, timeout=10
            )
            try:
                first = await stream.read()
            except grpc.aio.AioRpcError as err:
                return _code(err.code()), None
            finally:
                stream.cancel()
            return (
                ("", None)
                if first is not grpc.aio.EOF
                else ("the stream ended before the first version", None)
            )

        await self.timed("WatchSession", call)


def _status(status: int) -> str:
    if status == 404:
        return "gone"
    return "" if status < 500 else f"HTTP {status}"


def _code(code: grpc.StatusCode) -> str:
    if code == grpc.StatusCode.NOT_FOUND:
        return "gone"
    return "" if code in ANSWERS else code.name


async def sequence(via: Transport, rpc: str, s: Session | None, chooser: random.Random) -> Session | None:
    """The calls that lead to one ``rpc`` call (a session, the seat to act, a legal move) and that
    call; the session to go on with, or None to make a new one."""
    try:
        if s is None or rpc == "CreateSession":
            s = await via.create()
        if rpc == "DeleteSession":
            await via.delete(s)
            return None
        if rpc == "WatchSession":
            await via.watch(s)
            return s
        seat, over = await via.to_act(s)  # GetSession
        if over:
            return None
        if rpc in ("CreateSession", "GetSession"):
            return s
        moves, etag = await via.legal(s, seat)
        move = chooser.choice(moves)
        if rpc == "SessionValidateMove":
            await via.validate(s, seat, move)
        elif rpc != "SessionLegalMoves":
            etag = await via.apply(s, seat, move, etag)  # the log has a move to list or undo
            if rpc == "ListSessionMoves":
                await via.moves(s)
            elif rpc == "UndoMove" and etag:
                await via.undo(s, seat, etag)
        return s
    except Gone:
        return None
    except Down:
        return s


async def steady(via: Transport, rpc: str, stop: asyncio.Event, seed: int) -> None:
    """One client calling ``rpc`` (and what leads to it) again and again until ``stop``."""
    chooser = random.Random(seed)
    s: Session | None = None
    while not stop.is_set():
        s = await sequence(via, rpc, s, chooser)
        await asyncio.sleep(0.05)


def _shown(calls: list[Call], since: float) -> str:
    return "; ".join(f"{c.rpc} at +{c.started - since:.2f} s: {c.failure}" for c in calls[:8])


# --------------------------------------------------------------------------- the tests


def test_every_kind_of_session_call_works_within_a_second_of_each_redis_restart_under_load(
    private_redis: PrivateRedis,
) -> None:
    env = {"LAWSPEAKER_CREATE_RATE": "0", "LAWSPEAKER_MAX_SESSIONS": "0"}  # no quota in the way
    args = ["--host", "127.0.0.1", "--grpc-port", "0", "--http-port", "0"]
    url = f"redis://127.0.0.1:{private_redis.port}/0"
    proc, grpc_port, http_port = start([*args, "--redis-url", url], env)
    chooser = random.Random(2024)

    async def body() -> list[str]:
        calls: list[Call] = []
        limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
        http = httpx.AsyncClient(base_url=f"http://127.0.0.1:{http_port}", timeout=10, limits=limits)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}")
        vias: list[Transport] = [
            Rest(calls, http),
            Grpc(calls, session_service_pb2_grpc.SessionServiceStub(channel)),
        ]

        async def burst() -> None:  # every kind at once over both transports, on new sessions
            await asyncio.gather(
                *(sequence(via, rpc, None, chooser) for via in vias for rpc in RPCS for _ in range(BURST))
            )

        stop = asyncio.Event()
        clients = [
            asyncio.create_task(steady(via, rpc, stop, i))
            for i, (via, rpc) in enumerate((via, rpc) for via in vias for rpc in RPCS)
        ]
        problems: list[str] = []
        try:
            await asyncio.sleep(0.5)
            await burst()  # the pools grow to what a burst needs before the first restart
            assert not [c for c in calls if c.failure], _shown([c for c in calls if c.failure], 0)
            for restart in range(RESTARTS):
                how = ("SIGKILL", "SHUTDOWN NOSAVE")[restart % 2]
                persist = restart % 4 >= 2  # each way of stopping with and without persistence
                await asyncio.to_thread(private_redis.stop, how)
                await asyncio.sleep(chooser.uniform(0.02, 0.2))
                private_redis.start(persist)
                answered = await asyncio.to_thread(private_redis.answering)
                recovered = answered + RECOVERY
                await asyncio.sleep(recovered - time.monotonic())
                await burst()
                stopping = time.monotonic()
                judged = [c for c in calls if recovered <= c.started and c.ended <= stopping]
                failed = [c for c in judged if c.failure]
                if failed:
                    problems.append(
                        f"restart {restart + 1} ({how}, persistence {'on' if persist else 'off'}): "
                        f"{len(failed)} of {len(judged)} calls failed from {RECOVERY} s after Redis "
                        f"answered PING: {_shown(failed, answered)}"
                    )
                answered_rpcs = {c.rpc for c in judged if not c.failure}
                missing = [
                    f"{r} over {v.name}"
                    for v in vias
                    for r in RPCS
                    if f"{r} over {v.name}" not in answered_rpcs
                ]
                if missing:
                    problems.append(f"restart {restart + 1}: no answered call of {', '.join(missing)}")
        finally:
            stop.set()
            await asyncio.gather(*clients, return_exceptions=True)
            await http.aclose()
            await channel.close()
        return problems

    try:
        problems = asyncio.run(body())
    finally:
        stop(proc)
    assert not problems, "\n".join(problems)


def test_connections_a_pool_held_before_a_restart_serve_after_it(private_redis: PrivateRedis) -> None:
    """redis-py 8.1 skips its check that a pooled connection is still open when maintenance
    notifications are on, as they are by default: each connection the pool held when Redis went
    away then failed its next call, whenever that came."""

    async def body() -> list[BaseException | int]:
        store = RedisStore(f"redis://127.0.0.1:{private_redis.port}/0", prefix="restarts")
        try:
            keys = [SessionKey(f"before-{i}", "v1") for i in range(30)]
            await asyncio.gather(*(store.create(k, b"x") for k in keys))  # 30 connections in the pool
            await asyncio.to_thread(private_redis.stop, "SIGKILL")
            private_redis.start(persist=False)
            await asyncio.to_thread(private_redis.answering)
            keys = [SessionKey(f"after-{i}", "v1") for i in range(30)]
            return await asyncio.gather(*(store.create(k, b"x") for k in keys), return_exceptions=True)
        finally:
            await store.close()

    created = asyncio.run(body())
    failed = [c for c in created if isinstance(c, BaseException)]
    assert not failed, f"{len(failed)} of 30 calls failed after the restart: {failed[0]}"


def test_a_watcher_after_a_refused_connection_tries_again_well_within_a_second() -> None:
    """After a failed pub/sub connection new watchers are refused without trying for a while; when
    the connection was refused outright (Redis restarting), that while is short, so watching works
    again soon after Redis is back, not up to the whole timeout later."""

    class Refusing:
        """A redis-py client stand-in whose pub/sub connection is refused at once."""

        def __init__(self) -> None:
            self.attempts = 0

        def pubsub(self) -> Refusing:
            return self

        async def subscribe(self, channel: bytes) -> None:
            self.attempts += 1
            raise ConnectionRefusedError("refused")

        async def aclose(self) -> None:
            pass

    async def body() -> None:
        client = Refusing()
        watchers = Watchers(client, unavailable, limit=10, backlog=10, timeout=1.0)
        for _ in range(3):  # one attempt; the watchers right after it are refused without one
            with pytest.raises(LawspeakerError) as err:
                await watchers.add(b"channel")
            assert err.value.code is ErrorCode.UNAVAILABLE
        assert client.attempts == 1
        await asyncio.sleep(RECOVERY / 2)
        with pytest.raises(LawspeakerError):
            await watchers.add(b"channel")
        assert client.attempts == 2, "a watcher half a second later was refused without trying"
        await watchers.close()

    asyncio.run(body())
