"""A primary demoted behind a stable address (issue 36 item 3), as on managed Redis or behind a proxy.

Two private redis-servers, A (the primary) and B (its replica), behind HAProxy on one port with the
classic Redis health check (PING, then ``role:master`` in INFO replication, every 100 ms): new
connections go to whichever is the primary now, established ones stay where they are (no
``on-marked-down shutdown-sessions``, so they stay on the demoted node, as on managed Redis). A
``lawspeaker serve`` on HAProxy's port plays games under load (every apply with a request id,
retried with it on 503) while A is demoted gracefully with Redis's own ``FAILOVER`` (writes paused,
B caught up, B the primary, A its replica).

The store answers the demoted node's READONLY (a write) as 503 SESSION_STORE_UNAVAILABLE and
reconnects (``RedisStore._reconnect``): writes resume within 2 s of the FAILOVER, no acknowledged
move is lost or doubled, and every error is that 503.

Without the reconnect (tried by running this test with ``RedisStore._reconnect`` made a no-op, from
a sitecustomize.py on PYTHONPATH): Redis keeps the connections of a primary it turns into a replica,
and HAProxy keeps them too, so the pipelined connection and redis-py's pooled ones stay on A and
every call gets READONLY (the load script slides the TTL: reads are writes too) for as long as the
test waits: none of 925 calls in the 5 s after the FAILOVER succeeded, against writes back 0.1 s
after A turned replica with it (the FAILOVER itself takes 0.8-1.0 s here, writes paused meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from transport.test_serve_command import start

from .helpers import stop
from .ports import free_port

HAPROXY = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
pytestmark = [
    pytest.mark.sessions,
    pytest.mark.transport,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
    pytest.mark.skipif(HAPROXY is None, reason="needs haproxy"),
]
RECOVERY = 2.0  # seconds after the FAILOVER by which writes work again (the bound)
CLIENTS = 8  # games played at once
HAPROXY_CONFIG = """
global
    maxconn 2000
defaults
    mode tcp
    timeout connect 1s
    timeout client 1h
    timeout server 1h
frontend redis
    bind 127.0.0.1:{port}
    default_backend primary
backend primary
    option tcp-check
    tcp-check send PING\\r\\n
    tcp-check expect string +PONG
    tcp-check send info\\ replication\\r\\n
    tcp-check expect string role:master
    tcp-check send QUIT\\r\\n
    tcp-check expect string +OK
    server a 127.0.0.1:{a} check inter 100ms fall 1 rise 1
    server b 127.0.0.1:{b} check inter 100ms fall 1 rise 1
"""


def _redis(port: int, data: Path, *args: str) -> subprocess.Popen[bytes]:
    """A redis-server whose files (the RDB a replica's full sync writes) go to ``data``."""
    server = shutil.which("redis-server")
    assert server is not None
    data.mkdir(exist_ok=True)
    where = ["--port", str(port), "--bind", "127.0.0.1", "--dir", str(data)]
    return subprocess.Popen(
        [server, *where, "--save", "", "--appendonly", "no", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _role(port: int) -> str:
    with contextlib.suppress(redis.RedisError):
        return str(redis.Redis(port=port, socket_timeout=0.5).role()[0].decode())
    return "?"


def _wait(check: Any, what: str, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


@dataclass
class Pair:
    a: int
    b: int
    proxy: int
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)


@pytest.fixture
def pair() -> Iterator[Pair]:
    """A (primary), B (its replica) and HAProxy in front of both, on one port."""
    ports = Pair(free_port(), free_port(), free_port())
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "haproxy.cfg"
        config.write_text(HAPROXY_CONFIG.format(port=ports.proxy, a=ports.a, b=ports.b))
        try:
            ports.processes.append(_redis(ports.a, Path(tmp) / "a"))
            _wait(lambda: _role(ports.a) == "master", "A did not start")
            ports.processes.append(_redis(ports.b, Path(tmp) / "b", "--replicaof", "127.0.0.1", str(ports.a)))
            _wait(
                lambda: redis.Redis(port=ports.b).info("replication").get("master_link_status") == "up",
                "B did not sync with A",
            )
            assert HAPROXY is not None
            ports.processes.append(
                subprocess.Popen(
                    [HAPROXY, "-db", "-f", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
            )
            _wait(lambda: _role(ports.proxy) == "master", "HAProxy does not forward to A")
            yield ports
        finally:
            for process in reversed(ports.processes):
                process.kill()
                process.wait(10)


@dataclass
class Attempt:
    started: float
    ended: float
    status: int
    reason: str


@dataclass
class Game:
    id: str
    tokens: list[str]
    acknowledged: int = 0  # moves answered 200
    unanswered: int = 0  # 1 when the load stopped while an apply was still refused


class Stopped(Exception):
    """A call still refused when the load stopped."""


class Load:
    """Games played over REST; every apply has a request id and is retried with it after a 503."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self.attempts: list[Attempt] = []
        self.games: list[Game] = []
        self.stop = asyncio.Event()

    async def _call(self, method: str, url: str, token: str = "", body: Any = None) -> httpx.Response | None:
        started = time.monotonic()
        headers = {"authorization": f"Bearer {token}"} if token else {}
        try:
            r = await self.http.request(method, url, json=body, headers=headers)
        except httpx.HTTPError as err:
            self.attempts.append(Attempt(started, time.monotonic(), 0, type(err).__name__))
            return None
        reason = "" if r.status_code == 200 else str(r.json().get("reason", r.text[:80]))
        self.attempts.append(Attempt(started, time.monotonic(), r.status_code, reason))
        return r

    async def _until_ok(
        self, method: str, url: str, token: str = "", body: Any = None, deadline: float = 0.0
    ) -> dict[str, Any]:
        """The call, repeated after a 503 until answered; given up (Stopped) once the load stops
        (or past ``deadline``, a time.monotonic())."""
        while True:
            r = await self._call(method, url, token, body)
            if r is not None and r.status_code == 200:
                return dict(r.json())
            if r is not None and r.status_code != 503:
                raise AssertionError(f"{method} {url}: {r.status_code} {r.text[:300]}")
            if (deadline and time.monotonic() > deadline) or (not deadline and self.stop.is_set()):
                raise Stopped(f"{method} {url}: still {r.status_code if r is not None else 'no answer'}")
            await asyncio.sleep(0.01)

    async def play(self) -> None:
        with contextlib.suppress(Stopped):
            await self._play()

    async def _play(self) -> None:
        while not self.stop.is_set():
            made = await self._until_ok("POST", "/v1/sessions", body={"game": "valhalla", "players": 2})
            game = Game(made["session"]["session"], [t["token"] for t in made["seatTokens"]])
            self.games.append(game)
            session = made["session"]
            while not self.stop.is_set() and not session.get("gameOver"):
                seat = (session.get("toAct") or [0])[0]
                legal = await self._until_ok(
                    "POST", f"/v1/sessions/{game.id}:legalMoves", game.tokens[seat], {}
                )
                body = {"move": legal["moves"][0], "etag": legal["etag"], "requestId": str(uuid.uuid4())}
                # the same request id and etag until answered: applied at most once
                try:
                    applied = await self._until_ok(
                        "POST", f"/v1/sessions/{game.id}:applyMove", game.tokens[seat], body
                    )
                except Stopped:
                    game.unanswered = 1  # it may have been applied: the log may hold it
                    raise
                game.acknowledged += 1
                session = applied["session"]

    async def logged(self, game: Game) -> int:
        """The moves the session's log holds."""
        count, token = 0, ""
        while True:
            url = f"/v1/sessions/{game.id}/moves?pageSize=1000&pageToken={token}"
            got = await self._until_ok("GET", url, deadline=time.monotonic() + 10)
            count += len(got.get("moves", []))
            token = got.get("nextPageToken", "")
            if not token:
                return count


def test_writes_resume_within_two_seconds_of_a_failover_behind_a_stable_address(pair: Pair) -> None:
    env = {"LAWSPEAKER_CREATE_RATE": "0", "LAWSPEAKER_MAX_SESSIONS": "0"}
    args = ["--host", "127.0.0.1", "--grpc-port", "0", "--http-port", "0"]
    proc, _, http_port = start([*args, "--redis-url", f"redis://127.0.0.1:{pair.proxy}"], env)

    async def body() -> tuple[dict[str, Any], list[Attempt]]:
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
        http = httpx.AsyncClient(base_url=f"http://127.0.0.1:{http_port}", timeout=10, limits=limits)
        load = Load(http)
        players = [asyncio.create_task(load.play()) for _ in range(CLIENTS)]
        try:
            await asyncio.sleep(1.0)
            assert sum(g.acknowledged for g in load.games) > 0
            assert not [a for a in load.attempts if a.status != 200], load.attempts
            failover = time.monotonic()
            watching = asyncio.create_task(asyncio.to_thread(_roles, pair, failover, 3.0))
            primary: Any = redis.Redis(port=pair.a, socket_timeout=10)  # execute_command is untyped
            reply = await asyncio.to_thread(primary.execute_command, "FAILOVER", "TIMEOUT", "5000")
            assert reply in (b"OK", "OK", True), reply
            await asyncio.to_thread(
                _wait,
                lambda: _role(pair.a) == "slave" and _role(pair.b) == "master",
                "FAILOVER did not finish",
            )
            await asyncio.sleep(RECOVERY + 2.0)  # the load goes on past the bound
            roles = await watching
        finally:
            load.stop.set()
            outcome = await asyncio.gather(*players, return_exceptions=True)
        problems = [repr(o) for o in outcome if isinstance(o, BaseException)]
        assert not problems, problems
        failed = [a for a in load.attempts if a.status != 200]
        after = [a for a in load.attempts if a.started >= failover]
        ok_after = [a for a in after if a.status == 200]
        # recovered: the end of the last failed call, from when every call succeeded
        last_failure = max((a.ended for a in failed), default=failover)
        figures: dict[str, Any] = {
            "recovered": max(last_failure, failover) - failover,
            "first_ok": (min(a.ended for a in ok_after) - failover) if ok_after else None,
            "calls_after": len(after),
            "ok_after": len(ok_after),
            "moves": sum(g.acknowledged for g in load.games),
            "games": len(load.games),
            "roles": roles,
        }
        _report(figures, failed)
        logged = [await load.logged(g) for g in load.games]
        figures["lost"] = sum(max(0, g.acknowledged - n) for g, n in zip(load.games, logged, strict=True))
        figures["doubled"] = sum(
            max(0, n - g.acknowledged - g.unanswered) for g, n in zip(load.games, logged, strict=True)
        )
        await http.aclose()
        return figures, failed

    try:
        got, failed = asyncio.run(body())
    finally:
        stop(proc)
    print(f"  {got['lost']} acknowledged moves lost, {got['doubled']} doubled", file=sys.stderr)
    assert got["lost"] == 0 and got["doubled"] == 0, got
    assert {(a.status, a.reason) for a in failed} <= {(503, "SESSION_STORE_UNAVAILABLE")}, _kinds(failed)
    assert got["recovered"] <= RECOVERY, got


def _kinds(failed: list[Attempt]) -> dict[str, int]:
    kinds: dict[str, int] = {}
    for a in failed:
        name = f"{a.status} {a.reason}"
        kinds[name] = kinds.get(name, 0) + 1
    return kinds


def _report(figures: dict[str, Any], failed: list[Attempt]) -> None:
    first = figures["first_ok"]
    print(
        f"\nFAILOVER behind HAProxy: every call succeeded from {figures['recovered']:.3f} s after it "
        f"(first success {'never' if first is None else f'{first:.3f} s'}); {figures['ok_after']} of "
        f"{figures['calls_after']} calls after it succeeded; {figures['moves']} moves acknowledged in "
        f"{figures['games']} games; failed calls: {_kinds(failed)}; {figures['roles']}",
        file=sys.stderr,
    )


def _roles(pair: Pair, since: float, seconds: float) -> str:
    """When A said it is a replica, B a primary, and a new connection through HAProxy reached B."""
    seen: dict[str, float] = {}
    deadline = since + seconds
    while time.monotonic() < deadline and len(seen) < 3:
        for name, port, wanted in (("A replica", pair.a, "slave"), ("B primary", pair.b, "master")):
            if name not in seen and _role(port) == wanted:
                seen[name] = time.monotonic() - since
        if "proxy to B" not in seen:
            with contextlib.suppress(redis.RedisError):
                if redis.Redis(port=pair.proxy, socket_timeout=0.2).info("server")["tcp_port"] == pair.b:
                    seen["proxy to B"] = time.monotonic() - since
        time.sleep(0.01)
    return ", ".join(f"{name} at {at:.3f} s" for name, at in sorted(seen.items(), key=lambda kv: kv[1]))
