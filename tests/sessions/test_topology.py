"""The production topology on loopback, with real components: Redis with AOF (`appendfsync always`), two
`lawspeaker serve` replicas on it, and HAProxy in front of both with deploy/proxy/haproxy.cfg (the file
deploy/compose.yaml mounts) routing HTTP and gRPC (h2c). Clients play a whole session game of every
game through the proxy, over REST and over gRPC at the same time, every move with a request id; one
replica is killed with SIGKILL mid-game and started again on its ports a second later.

The clients recover by the README's retry policy ("Retrying calls"): a failure of the path (a
connection error, a timeout, 502/503/504, gRPC UNAVAILABLE or DEADLINE_EXCEEDED) retries the same
request, with the same request id and etag; ABORTED (a stale etag) re-reads the session and decides
again. The test holds that no acknowledged move is lost or applied twice (each session's move log is
exactly the moves its client was answered for, in order) and that every game finishes, and prints the
figures: failed requests by kind and how each was recovered (`pytest -n 0 -s` shows them). HAProxy's
own retries and which replica answered are read from its request log.
"""

from __future__ import annotations

import abc
import contextlib
import functools
import os
import random
import re
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
import httpx
import pytest
import redis
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from transport.test_serve_command import start

from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.v1 import session_service_pb2_grpc

from .ports import free_port

HAPROXY = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
REDIS_SERVER = shutil.which("redis-server")
PROXY_CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "proxy" / "haproxy.cfg"

pytestmark = [
    pytest.mark.sessions,
    pytest.mark.transport,
    pytest.mark.skipif(HAPROXY is None, reason="needs haproxy (.ci/run installs it)"),
    pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server"),
]

# One seed per game (and its fewest players), picked for games of a few dozen to a few hundred plies
# so that the whole test stays within a minute; every one is longer than the moves made before the kill.
SEEDS = {"birka": 1, "pax_penning": 24, "pax_viking_junior": 12, "penki": 18, "valhalla": 7}
PLAYERS = {"birka": 2, "pax_penning": 3, "pax_viking_junior": 2, "penki": 2, "valhalla": 2}
BEFORE_KILL = 8  # moves each client has acknowledged before any replica is killed
KILL_AFTER = 10  # then moves acknowledged by all clients together, with requests in flight, until the kill
ATTEMPTS = 12  # a call is given up after this many failures of the path in a row
T = TypeVar("T")
SERVING = health_pb2.HealthCheckResponse.SERVING


class Retry(Exception):
    """A failure of the path, not of the request: the same request may be sent again (``kind`` names
    it in the figures)."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class Aborted(Exception):
    """ABORTED (409, SESSION_ETAG_MISMATCH): the session moved; re-read and decide again."""


@dataclass
class Tally:
    """What one client saw."""

    failures: Counter[str] = field(default_factory=Counter)  # "<call> <kind>" -> failed attempts
    retried_moves: int = 0  # ApplyMoves sent again after a failure of the path
    answered_by_request_id: int = 0  # of those, moves the first attempt had made (peeked at)
    redecided: int = 0  # ABORTED: re-read and decided again
    most_attempts: int = 1  # the most attempts one call took


@dataclass
class Acked:
    """A move the client was answered for: the session's move count after it, the seat, the move."""

    number: int
    seat: int
    move: dict[str, Any]


class Player(abc.ABC):
    """One client playing one session through the proxy over one transport, by the retry policy."""

    transport: str

    def __init__(self, game: str, peek: Callable[[str], int]) -> None:
        self.game = game
        self.tally = Tally()
        self.acked: list[Acked] = []
        self.session = ""
        self.tokens: list[str] = []
        self._peek = peek  # the session's move count read straight from the replica never killed

    # One transport's calls; each raises Retry or Aborted as the policy sorts its failures.
    @abc.abstractmethod
    def create(self) -> tuple[dict[str, Any], list[str]]:
        raise NotImplementedError

    @abc.abstractmethod
    def legal_moves(self, seat: int) -> tuple[list[dict[str, Any]], str]:
        raise NotImplementedError

    @abc.abstractmethod
    def apply(self, seat: int, move: dict[str, Any], etag: str, request_id: str) -> dict[str, Any]:
        raise NotImplementedError

    @abc.abstractmethod
    def log(self, seat: int) -> list[dict[str, Any]]:
        raise NotImplementedError

    def call(self, name: str, send: Callable[[], T], before_retry: Callable[[], None] | None = None) -> T:
        """``send()`` until it answers, again after each failure of the path (with a growing, jittered
        pause); anything else is raised."""
        for attempt in range(ATTEMPTS):
            try:
                answer = send()
            except Retry as failed:
                self.tally.failures[f"{name} {failed.kind}"] += 1
                time.sleep(min(1.0, 0.05 * 2**attempt) * random.uniform(0.5, 1.0))
                if before_retry is not None:
                    before_retry()
            else:
                self.tally.most_attempts = max(self.tally.most_attempts, attempt + 1)
                return answer
        raise AssertionError(f"{name} failed {ATTEMPTS} times in a row")

    def play(self, seed: int, on_ack: Callable[[int], None]) -> dict[str, Any]:
        """A whole game; the session at its end."""
        current, self.tokens = self.call("CreateSession", self.create)
        self.session = current["session"]
        chooser = random.Random(seed)
        ply = 0
        while not current.get("gameOver"):
            seat = current["toAct"][0] if current.get("toAct") else 0
            moves, etag = self.call("SessionLegalMoves", functools.partial(self.legal_moves, seat))
            request_id = f"{self.session}-{ply}"
            ply += 1
            apply = functools.partial(self.apply, seat, chooser.choice(moves), etag, request_id)
            try:
                current = self.call("SessionApplyMove", apply, before_retry=self._count_retried_move)
            except Aborted:
                self.tally.redecided += 1
                continue
            self.acked.append(Acked(int(current.get("moveCount", 0)), seat, apply.args[1]))
            on_ack(len(self.acked))
            assert ply < 3000, "the game does not end"
        return current

    def _count_retried_move(self) -> None:
        """Counts a move about to be sent again, and whether its first attempt had made it (then the
        retry is answered from the request id)."""
        self.tally.retried_moves += 1
        with contextlib.suppress(httpx.HTTPError):  # a figure only: the test does not hang on it
            if self._peek(self.session) > len(self.acked):
                self.tally.answered_by_request_id += 1

    def audit(self) -> tuple[int, int]:
        """Acknowledged moves lost (not in the session's move log at their number, as their own seat
        sees it) and moves in the log that no answer acknowledged (applied twice, or behind the
        client's back)."""
        logs = [
            {int(m["number"]): m for m in self.call("ListSessionMoves", functools.partial(self.log, seat))}
            for seat in range(len(self.tokens))
        ]
        lost = 0
        for acked in self.acked:
            entry = logs[acked.seat].get(acked.number)
            if entry is None or entry.get("seat", acked.seat) != acked.seat or not _same(entry, acked.move):
                lost += 1
        return lost, len(logs[0]) - (len(self.acked) - lost)


def _same(entry: dict[str, Any], sent: dict[str, Any]) -> bool:
    """Whether a logged move is the one sent: the same move, or for a draw the server made, the same
    kind of move (the log shows the outcome drawn where the client sent an empty draw)."""
    if not entry.get("chance"):
        return bool(entry["move"] == sent)
    ((game, logged),) = entry["move"].items()
    return list(sent) == [game] and list(logged) == list(sent[game])


def _http_failure(name: str, response: httpx.Response) -> None:
    if response.status_code in (502, 503, 504):  # the service's own say why; the proxy's are not JSON
        json = response.headers.get("content-type", "").endswith("json")
        raise Retry(f"HTTP {response.status_code} {response.json()['reason'] if json else '(proxy)'}")
    if response.status_code == 409 and response.json().get("reason") == "SESSION_ETAG_MISMATCH":
        raise Aborted(response.text)
    raise AssertionError(f"{name}: {response.status_code} {response.text}")


class RestPlayer(Player):
    transport = "REST"

    def __init__(self, game: str, peek: Callable[[str], int], base_url: str) -> None:
        super().__init__(game, peek)
        self.http = httpx.Client(base_url=base_url, timeout=15)

    def _send(self, name: str, method: str, path: str, seat: int | None, **kw: Any) -> dict[str, Any]:
        headers = {} if seat is None else {"authorization": f"Bearer {self.tokens[seat]}"}
        try:
            response = self.http.request(method, path, headers=headers, **kw)
        except httpx.TimeoutException as err:
            raise Retry("timeout") from err
        except httpx.TransportError as err:
            raise Retry("connection error") from err
        if response.status_code != 200:
            _http_failure(name, response)
        body: dict[str, Any] = response.json()
        return body

    def create(self) -> tuple[dict[str, Any], list[str]]:
        body = self._send(
            "CreateSession",
            "POST",
            "/v1/sessions",
            None,
            json={"game": self.game, "players": PLAYERS[self.game], "seed": str(SEEDS[self.game])},
        )
        return body["session"], [t["token"] for t in body["seatTokens"]]

    def legal_moves(self, seat: int) -> tuple[list[dict[str, Any]], str]:
        body = self._send(
            "SessionLegalMoves", "POST", f"/v1/sessions/{self.session}:legalMoves", seat, json={}
        )
        return body["moves"], body["etag"]

    def apply(self, seat: int, move: dict[str, Any], etag: str, request_id: str) -> dict[str, Any]:
        body = self._send(
            "SessionApplyMove",
            "POST",
            f"/v1/sessions/{self.session}:applyMove",
            seat,
            json={"move": move, "etag": etag, "requestId": request_id},
        )
        session: dict[str, Any] = body["session"]
        return session

    def log(self, seat: int) -> list[dict[str, Any]]:
        moves: list[dict[str, Any]] = []
        token = ""
        while True:
            params = {"pageSize": 1000, **({"pageToken": token} if token else {})}
            page = self._send(
                "ListSessionMoves", "GET", f"/v1/sessions/{self.session}/moves", seat, params=params
            )
            moves += page.get("moves", [])
            token = page.get("nextPageToken", "")
            if not token:
                return moves


RETRIED_CODES = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}


def _reason(err: grpc.RpcError) -> str:
    """The ErrorInfo reason of a status from the service; the message of one from elsewhere (the
    proxy, the client library)."""
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return str(info.reason)
    return f"({err.details()})"


class GrpcPlayer(Player):
    transport = "gRPC"

    def __init__(self, game: str, peek: Callable[[str], int], target: str) -> None:
        super().__init__(game, peek)
        self.channel = grpc.insecure_channel(target)
        self.stub = session_service_pb2_grpc.SessionServiceStub(self.channel)

    def _send(self, rpc: Callable[..., Any], request: Any, seat: int | None) -> Any:
        metadata = () if seat is None else (("authorization", f"Bearer {self.tokens[seat]}"),)
        try:
            return rpc(request, metadata=metadata, timeout=15)
        except grpc.RpcError as err:
            code = err.code()
            if code in RETRIED_CODES:
                raise Retry(f"{code.name} {_reason(err)}") from err
            if code == grpc.StatusCode.ABORTED:
                raise Aborted(err.details()) from err
            raise

    def create(self) -> tuple[dict[str, Any], list[str]]:
        request = spb.CreateSessionRequest(game=self.game, players=PLAYERS[self.game], seed=SEEDS[self.game])
        made = self._send(self.stub.CreateSession, request, None)
        return json_format.MessageToDict(made.session), [t.token for t in made.seat_tokens]

    def legal_moves(self, seat: int) -> tuple[list[dict[str, Any]], str]:
        listed = self._send(
            self.stub.SessionLegalMoves, spb.SessionLegalMovesRequest(session=self.session), seat
        )
        return [json_format.MessageToDict(m) for m in listed.moves], listed.etag

    def apply(self, seat: int, move: dict[str, Any], etag: str, request_id: str) -> dict[str, Any]:
        request = spb.SessionApplyMoveRequest(session=self.session, etag=etag, request_id=request_id)
        json_format.ParseDict(move, request.move)
        applied = self._send(self.stub.SessionApplyMove, request, seat)
        return json_format.MessageToDict(applied.session)

    def log(self, seat: int) -> list[dict[str, Any]]:
        moves: list[dict[str, Any]] = []
        token = ""
        while True:
            request = spb.ListSessionMovesRequest(session=self.session, page_size=1000, page_token=token)
            page = self._send(self.stub.ListSessionMoves, request, seat)
            moves += [json_format.MessageToDict(m) for m in page.moves]
            token = page.next_page_token
            if not token:
                return moves


@contextlib.contextmanager
def redis_with_aof(directory: Path) -> Iterator[int]:
    """A private redis-server that fsyncs every write to its append-only file; its port."""
    assert REDIS_SERVER is not None
    port = free_port()
    args = ["--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory), "--save", ""]
    args += ["--appendonly", "yes", "--appendfsync", "always"]
    proc = subprocess.Popen([REDIS_SERVER, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port, socket_connect_timeout=0.2)
    try:
        deadline = time.time() + 10
        while True:
            with contextlib.suppress(redis.RedisError):
                if client.ping():
                    break
            assert proc.poll() is None and time.time() < deadline, "redis-server did not start"
            time.sleep(0.05)
        yield port
    finally:
        client.close()
        proc.terminate()
        proc.wait(10)


class Replica:
    """One `lawspeaker serve` on fixed ports, so that it can be killed and started again on them."""

    def __init__(self, redis_port: int) -> None:
        self.http_port, self.grpc_port = free_port(), free_port()
        self.args = [
            "--host",
            "127.0.0.1",
            "--http-port",
            str(self.http_port),
            "--grpc-port",
            str(self.grpc_port),
        ]
        # --create-rate 0: every client of this test reaches the replicas from the proxy's one address
        self.args += ["--redis-url", f"redis://127.0.0.1:{redis_port}/0", "--create-rate", "0"]
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.proc, grpc_port, http_port = start(self.args, {})
        assert (grpc_port, http_port) == (self.grpc_port, self.http_port)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.close_pipe()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.close_pipe()

    def close_pipe(self) -> None:
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()


@contextlib.contextmanager
def haproxy(replicas: list[Replica], log: Path) -> Iterator[tuple[int, int]]:
    """HAProxy with deploy/proxy/haproxy.cfg in front of the replicas; its HTTP and gRPC ports, once
    both answer through it."""
    assert HAPROXY is not None
    http_port, grpc_port = free_port(), free_port()
    env = {
        **os.environ,
        "LAWSPEAKER_PROXY_HTTP_BIND": f"127.0.0.1:{http_port}",
        "LAWSPEAKER_PROXY_GRPC_BIND": f"127.0.0.1:{grpc_port}",
    }
    for n, replica in enumerate(replicas, 1):
        env[f"LAWSPEAKER_REPLICA_{n}_HOST"] = "127.0.0.1"
        env[f"LAWSPEAKER_REPLICA_{n}_HTTP_PORT"] = str(replica.http_port)
        env[f"LAWSPEAKER_REPLICA_{n}_GRPC_PORT"] = str(replica.grpc_port)
    with log.open("w") as out:
        proc = subprocess.Popen([HAPROXY, "-db", "-f", str(PROXY_CONFIG)], env=env, stdout=out, stderr=out)
    try:
        deadline = time.time() + 20
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            while True:
                assert proc.poll() is None, f"haproxy exited: {log.read_text()}"
                with contextlib.suppress(httpx.HTTPError, grpc.RpcError):
                    http_up = httpx.get(f"http://127.0.0.1:{http_port}/healthz", timeout=2).status_code == 200
                    grpc_up = health.Check(health_pb2.HealthCheckRequest(), timeout=2).status == SERVING
                    if http_up and grpc_up:
                        break
                assert time.time() < deadline, f"the proxy did not answer: {log.read_text()}"
                time.sleep(0.1)
        yield http_port, grpc_port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


# HAProxy's httplog line: client [date] frontend backend/server timers status bytes cookies flags
# actconn/feconn/beconn/srv_conn/retries (retries prefixed by + when the request was redispatched).
LOG_LINE = re.compile(r"\] \S+ (\S+)/(\S+) \S+ (\d+) \d+ \S+ \S+ \S+ \d+/\d+/\d+/\d+/(\+?)(\d+) ")


def proxy_log(lines: list[str]) -> tuple[Counter[str], Counter[str], int, int]:
    """Requests by backend/server, by backend and status, the proxy's retries and redispatches."""
    servers: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    retries = redispatched = 0
    for line in lines:
        found = LOG_LINE.search(line)
        if found:
            backend, server, status, plus, tries = found.groups()
            servers[f"{backend}/{server}"] += 1
            statuses[f"{backend} {status}"] += 1
            retries += int(tries)
            redispatched += bool(plus)
    return servers, statuses, retries, redispatched


def test_clients_play_every_game_through_haproxy_while_a_replica_is_killed(tmp_path: Path) -> None:
    with redis_with_aof(tmp_path) as redis_port:
        replicas = [Replica(redis_port), Replica(redis_port)]
        try:
            for replica in replicas:
                replica.start()
            log = tmp_path / "haproxy.log"
            with haproxy(replicas, log) as (http_port, grpc_port):
                run_games(replicas, http_port, grpc_port, log)
        finally:
            for replica in replicas:
                replica.stop()


def run_games(replicas: list[Replica], http_port: int, grpc_port: int, log: Path) -> None:
    details = httpx.get(f"http://127.0.0.1:{http_port}/healthz/details", timeout=10).json()
    assert details["sessions"]["durability"]["safe"] is True, details  # AOF, fsync always
    survivor = httpx.Client(base_url=f"http://127.0.0.1:{replicas[1].http_port}", timeout=15)

    def peek(session: str) -> int:  # for the figures only: straight to the replica that is never killed
        return int(survivor.get(f"/v1/sessions/{session}").json()["session"].get("moveCount", 0))

    players: list[Player] = []
    for game in sorted(SEEDS):
        players.append(RestPlayer(game, peek, f"http://127.0.0.1:{http_port}"))
        players.append(GrpcPlayer(game, peek, f"127.0.0.1:{grpc_port}"))
    ready = threading.Barrier(len(players) + 1)
    acked = threading.Condition()
    progress = [0]

    def on_ack(count: int) -> None:
        if count == BEFORE_KILL:
            ready.wait(120)  # every game is under way before the kill
        elif count > BEFORE_KILL:
            with acked:
                progress[0] += 1
                acked.notify_all()

    def play(player: Player) -> dict[str, Any]:
        try:
            return player.play(SEEDS[player.game], on_ack)
        except BaseException:
            ready.abort()
            raise

    with ThreadPoolExecutor(len(players)) as pool:
        futures = [pool.submit(play, p) for p in players]
        ready.wait(120)
        with acked:  # some moves in flight on both replicas, then the kill
            assert acked.wait_for(lambda: progress[0] >= KILL_AFTER, 120)
        replicas[0].kill()
        at_kill = [len(p.acked) for p in players]
        lines_before_restart = len(log.read_text().splitlines())
        time.sleep(1)
        replicas[0].start()
        finals = [f.result(timeout=240) for f in futures]

    for player, final, before in zip(players, finals, at_kill, strict=True):
        assert len(player.acked) > before, f"the {player.game} game went on after the kill"
        assert final["gameOver"] and final.get("outcome", {}).get("result"), player.game
        assert int(final["moveCount"]) == len(player.acked)
    lost, unacknowledged = (sum(counts) for counts in zip(*(p.audit() for p in players), strict=True))

    # The restarted replica takes requests through the proxy again, on both transports.
    deadline = time.time() + 30
    while True:
        servers, _, _, _ = proxy_log(log.read_text().splitlines()[lines_before_restart:])
        if servers["lawspeaker_http/lawspeaker-1"] and servers["lawspeaker_grpc/lawspeaker-1"]:
            break
        assert time.time() < deadline, f"the restarted replica gets no requests: {servers}"
        for other in players[:2]:
            other.call("ListSessionMoves", functools.partial(other.log, 0))
        time.sleep(0.2)

    servers, statuses, proxy_retries, redispatched = proxy_log(log.read_text().splitlines())
    failures: Counter[str] = Counter()
    for player in players:
        failures.update({f"{player.transport} {k}": v for k, v in player.tally.failures.items()})
    figures = {
        "acknowledged moves": sum(len(p.acked) for p in players),
        "acknowledged moves lost": lost,
        "moves in a log that no answer acknowledged": unacknowledged,
        "moves acknowledged before the kill": sum(at_kill),
        "failed requests (retried by the client), by kind": dict(sorted(failures.items())),
        "moves retried": sum(p.tally.retried_moves for p in players),
        "of which the first attempt had been applied (answered from the request id)": sum(
            p.tally.answered_by_request_id for p in players
        ),
        "ABORTED, re-read and decided again": sum(p.tally.redecided for p in players),
        "the most attempts one call took": max(p.tally.most_attempts for p in players),
        "proxy retries (redispatched to the other replica)": f"{proxy_retries} ({redispatched})",
        "requests by replica": dict(sorted(servers.items())),
        "proxy answers by status": dict(sorted(statuses.items())),
    }
    print("\ntopology figures:")
    for name, value in figures.items():
        print(f"  {name}: {value}")
    for player in players:
        if isinstance(player, RestPlayer):
            player.http.close()
        elif isinstance(player, GrpcPlayer):
            player.channel.close()
    survivor.close()
    assert (lost, unacknowledged) == (0, 0)
