"""`lawspeaker serve --workers N`: N processes on both ports, sessions shared through Redis, a killed
worker replaced while the others answer, SIGTERM draining every worker, and the refusals (sessions
kept in each process, a busy port) as one line each."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import grpc
import httpx
import pytest
import redis
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lawspeaker.v1 import game_pb2, session_service_pb2_grpc
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import REDIS_URL, redis_up
from .test_serve_command import start

pytestmark = [
    pytest.mark.transport,
    pytest.mark.skipif(not redis_up(), reason=f"needs Redis at {REDIS_URL}"),
]

LOOPBACK = ["--host", "127.0.0.1"]


# --------------------------------------------------------------------------- processes and their sockets


def children(pid: int) -> set[int]:
    """The live (not zombie) processes whose parent is ``pid``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            # "pid (comm) state ppid ...": comm may hold spaces, so split after its closing parenthesis
            state, ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            if int(ppid) == pid and state != "Z":
                found.add(int(entry.name))
    return found


def gone(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie has: the kernel closed its sockets)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def listening_ports(pid: int) -> set[int]:
    """The TCP ports on which process ``pid`` holds a listening socket (from /proc)."""
    listening: dict[str, int] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A":  # TCP_LISTEN
                    listening[fields[9]] = int(fields[1].rsplit(":", 1)[1], 16)
    ports = set()
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                found = re.fullmatch(r"socket:\[(\d+)\]", os.readlink(fd))
                if found and found.group(1) in listening:
                    ports.add(listening[found.group(1)])
    return ports


def wait_until(check: Callable[[], bool], seconds: float = 30, what: str = "") -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.05)
    pytest.fail(f"not within {seconds} s: {what}")


@dataclass
class Group:
    proc: subprocess.Popen[str]
    grpc_port: int
    http_port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def workers(self) -> set[int]:
        return children(self.proc.pid)

    def serving(self, pid: int) -> bool:
        return {self.grpc_port, self.http_port} <= listening_ports(pid)


def stop(proc: subprocess.Popen[str]) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=40)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
        pytest.fail("lawspeaker serve --workers did not stop within 40 s of SIGTERM")
    finally:
        if proc.stdout is not None:
            proc.stdout.close()


@contextlib.contextmanager
def workers(count: int = 2, *args: str) -> Iterator[Group]:
    """``lawspeaker serve --workers count`` on Redis (a key prefix of its own) and free loopback ports."""
    prefix = f"test-workers-{uuid.uuid4().hex[:8]}"
    proc, grpc_port, http_port = start(
        [
            *LOOPBACK,
            "--grpc-port",
            "0",
            "--http-port",
            "0",
            "--workers",
            str(count),
            "--redis-url",
            REDIS_URL,
            "--redis-prefix",
            prefix,
            *args,
        ],
        {},
    )
    group = Group(proc, grpc_port, http_port)
    try:
        yield group
    finally:
        if proc.poll() is None:
            stop(proc)
        elif proc.stdout is not None:
            proc.stdout.close()
        client = redis.Redis.from_url(REDIS_URL)
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            client.delete(key)
        client.close()


@pytest.fixture(scope="module")
def group() -> Iterator[Group]:
    with workers(2) as running:
        yield running


# --------------------------------------------------------------------------- calls over both transports


def rest_new_game(url: str) -> str:
    """A stateless call over a new connection (so over any worker); the new game's state."""
    with httpx.Client(base_url=url, timeout=10) as client:
        r = client.post("/v1/games/valhalla:new", json={"players": 2, "seed": "1"})
    assert r.status_code == 200, r.text
    return str(r.json()["state"])


def grpc_health(port: int) -> None:
    """The health check over a new channel (a new connection, so over any worker)."""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def play_across_connections(group: Group, plies: int = 12) -> None:
    """A session made over REST, then moves alternating REST and gRPC, each over a new connection:
    with the kernel spreading connections over the workers, each move may land on either one, and
    each sees the version the other wrote (Redis)."""
    with httpx.Client(base_url=group.base_url, timeout=10) as client:
        made = client.post("/v1/sessions", json={"game": "valhalla", "players": 2, "seed": "77"}).json()
    current = made["session"]
    name = current["session"]
    tokens = [t["token"] for t in made["seatTokens"]]
    for ply in range(plies):
        assert not current.get("gameOver")
        auth = {"authorization": f"Bearer {tokens[current['toAct'][0]]}"}
        with httpx.Client(base_url=group.base_url, timeout=10) as client:
            listed = client.post(f"/v1/sessions/{name}:legalMoves", json={}, headers=auth).json()
        assert listed["etag"] == current["etag"]
        move = listed["moves"][0]
        if ply % 2 == 0:
            with httpx.Client(base_url=group.base_url, timeout=10) as client:
                r = client.post(
                    f"/v1/sessions/{name}:applyMove",
                    json={"move": move, "etag": current["etag"]},
                    headers=auth,
                )
            assert r.status_code == 200, r.text
            current = r.json()["session"]
            continue
        request = spb.SessionApplyMoveRequest(
            session=name, etag=current["etag"], move=json_format.ParseDict(move, game_pb2.Move())
        )
        with grpc.insecure_channel(f"127.0.0.1:{group.grpc_port}") as channel:
            stub = session_service_pb2_grpc.SessionServiceStub(channel)
            reply = stub.SessionApplyMove(request, metadata=list(auth.items()), timeout=10)
        with httpx.Client(base_url=group.base_url, timeout=10) as client:
            got = client.get(f"/v1/sessions/{name}")
        assert got.status_code == 200 and got.json()["session"]["etag"] == reply.session.etag, got.text
        current = got.json()["session"]


# --------------------------------------------------------------------------- the tests


def test_two_workers_share_both_ports_and_serve_sessions_over_both_transports(group: Group) -> None:
    pids = group.workers()
    assert len(pids) == 2
    for pid in pids:  # each worker listens on both ports itself: the kernel spreads connections
        wait_until(partial(group.serving, pid), what=f"worker {pid} listening on both ports")
    assert not listening_ports(group.proc.pid)  # the supervisor holds the ports without listening
    for _ in range(6):
        rest_new_game(group.base_url)
        grpc_health(group.grpc_port)
    play_across_connections(group)


@pytest.mark.parametrize("busy", ["grpc", "http"])
@pytest.mark.parametrize("second", ["one process", "workers"])
def test_a_serve_on_a_port_the_workers_hold_exits_with_one_line_naming_it(
    group: Group, busy: str, second: str
) -> None:
    port = group.grpc_port if busy == "grpc" else group.http_port
    ports = ["--grpc-port", str(port), "--http-port", "0"]
    if busy == "http":
        ports = ["--grpc-port", "0", "--http-port", str(port)]
    more = ["--workers", "2", "--redis-url", REDIS_URL] if second == "workers" else []
    code, out, err = run_to_end([*LOOPBACK, *ports, *more])
    lines = [line for line in err.splitlines() if line.strip()]
    assert code != 0
    assert len(lines) == 1, err
    assert re.search(rf"\b{port}\b", lines[0]) and busy in lines[0].lower() and "in use" in lines[0], lines[0]
    assert not out.strip() and "Traceback" not in err
    rest_new_game(group.base_url)  # the group is unharmed
    grpc_health(group.grpc_port)


@pytest.mark.parametrize("busy", ["grpc", "http"])
def test_workers_on_a_port_a_lone_serve_holds_exit_with_one_line_naming_it(busy: str) -> None:
    first, grpc_port, http_port = start([*LOOPBACK, "--grpc-port", "0", "--http-port", "0"], {})
    try:
        port = grpc_port if busy == "grpc" else http_port
        ports = ["--grpc-port", str(port), "--http-port", "0"]
        if busy == "http":
            ports = ["--grpc-port", "0", "--http-port", str(port)]
        code, out, err = run_to_end([*LOOPBACK, *ports, "--workers", "2", "--redis-url", REDIS_URL])
        lines = [line for line in err.splitlines() if line.strip()]
        assert code != 0 and len(lines) == 1, err
        assert re.search(rf"\b{port}\b", lines[0]) and busy in lines[0].lower(), lines[0]
        assert not out.strip()
        rest_new_game(f"http://127.0.0.1:{http_port}")
    finally:
        assert stop(first) == 0


@pytest.mark.parametrize("via", ["flag", "environment"])
def test_several_workers_without_redis_refuse_to_start_with_one_line(via: str) -> None:
    args = [*LOOPBACK, "--grpc-port", "0", "--http-port", "0"]
    env = {"LAWSPEAKER_WORKERS": "2"} if via == "environment" else {}
    if via == "flag":
        args += ["--workers", "2"]
    code, out, err = run_to_end(args, env)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code != 0
    assert len(lines) == 1 and "--redis-url" in lines[0] and "--workers 2" in lines[0], err
    assert not out.strip()


def test_a_killed_worker_is_replaced_and_the_others_keep_answering() -> None:
    with workers(2) as group:
        before = group.workers()
        victim = min(before)
        os.kill(victim, signal.SIGKILL)
        wait_until(lambda: gone(victim), what="the killed worker to exit")
        # its sockets are closed: every new connection goes to the worker left, until the new one
        for _ in range(8):
            rest_new_game(group.base_url)
            grpc_health(group.grpc_port)
        wait_until(
            lambda: len(group.workers()) == 2 and victim not in group.workers(),
            what="a replacement worker",
        )
        (replacement,) = group.workers() - before
        wait_until(lambda: group.serving(replacement), what="the replacement listening on both ports")
        play_across_connections(group)
        assert group.proc.poll() is None


def test_sigterm_drains_every_worker_and_an_in_flight_request_completes() -> None:
    with workers(2) as group:
        pids = group.workers()
        body = b'{"players": 2, "seed": "9"}'
        with socket.create_connection(("127.0.0.1", group.http_port), timeout=20) as conn:
            # a first request on this connection shows that a worker has accepted it
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            assert read_response(conn).startswith(b"HTTP/1.1 200")
            # the second is in flight: its headers and half its body are sent before SIGTERM
            head = (
                b"POST /v1/games/valhalla:new HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body)
            )
            conn.sendall(head + body[:10])
            time.sleep(0.3)  # for the worker to read the headers (ordering only, nothing is timed)
            group.proc.send_signal(signal.SIGTERM)
            # draining: every worker has closed its listening sockets, so new connections are refused
            wait_until(lambda: refused(group.http_port), what="the workers to stop listening")
            conn.sendall(body[10:])
            answer = read_response(conn)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
        assert b"valhalla" in answer
        assert group.proc.wait(timeout=40) == 0
        for pid in pids:
            wait_until(partial(gone, pid), what=f"worker {pid} to exit")


def test_workers_of_a_killed_supervisor_stop_and_free_the_ports() -> None:
    with workers(2) as group:
        pids = group.workers()
        group.proc.kill()  # SIGKILL: nothing is passed on to the workers
        group.proc.wait(10)
        for pid in pids:
            wait_until(partial(gone, pid), what=f"orphaned worker {pid} to exit")
        assert refused(group.http_port) and refused(group.grpc_port)


def test_workers_that_keep_failing_to_start_make_the_supervisor_exit_non_zero(tmp_path: Path) -> None:
    # every worker (a process with --worker-of) exits at once, before serving
    (tmp_path / "sitecustomize.py").write_text(
        'import os, sys\nif "--worker-of" in sys.argv:\n    os._exit(3)\n'
    )
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH", "")) if p)
    args = [*LOOPBACK, "--grpc-port", "0", "--http-port", "0", "--workers", "2", "--redis-url", REDIS_URL]
    code, out, err = run_to_end(args, {"PYTHONPATH": path}, timeout=120)
    assert code != 0
    assert "grpc_port=" not in out
    assert re.search(r"worker \d failed to start 5 times in a row \(last: exited with 3\): giving up", err), (
        err
    )


# --------------------------------------------------------------------------- helpers


def run_to_end(
    args: list[str], env: dict[str, str] | None = None, timeout: float = 60
) -> tuple[int, str, str]:
    """``lawspeaker serve args`` expected to exit by itself: its exit code, stdout and stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "lawspeaker", "serve", *args],
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=40)
        pytest.fail(f"lawspeaker serve {args} kept running: {out!r} {err!r}")
    return proc.returncode, out, err


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        return True
    return False


def read_response(conn: socket.socket) -> bytes:
    """One whole HTTP/1.1 response with a Content-Length body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = re.search(rb"(?i)content-length:\s*(\d+)", head)
    want = int(length.group(1)) if length else 0
    while len(rest) < want:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    return head + b"\r\n\r\n" + rest
