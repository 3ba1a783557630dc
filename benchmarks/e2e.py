"""End-to-end speed: ApplyMove over gRPC and REST next to an empty request on the same servers.

The server runs in its own process pinned to CPU 0 (``lawspeaker serve``); the load generators run
pinned to CPU 1: wrk for REST (HTTP/1.1 keep-alive), a grpc.aio client for gRPC. The floor is the
same server answering an empty request: the gRPC health check and ``GET /healthz``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import msgspec
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lawspeaker.api.rules import RulesApi
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import rules_service_pb2_grpc
from lawspeaker.wire import protojson, structs

ROUNDS = 4  # alternating rounds of each load and its floor


@dataclass
class Load:
    name: str
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int


def wait_for(*ports: int, seconds: float = 30) -> bool:
    """Whether every port on 127.0.0.1 accepts a connection within ``seconds``."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            for port in ports:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def mid_game_request(plies: int = 120) -> pb.ApplyMoveRequest:
    """A Valhalla ApplyMove request for a ship move in the middle of a seeded game."""
    api = RulesApi()
    state = api.new_game(pb.NewGameRequest(game="valhalla", players=2, seed=42)).state
    chooser = random.Random(42)
    done = 0
    while True:
        listed = api.legal_moves(pb.LegalMovesRequest(game="valhalla", state=state))
        move = chooser.choice(list(listed.moves))
        if done >= plies and move.valhalla.HasField("move_ship"):
            return pb.ApplyMoveRequest(game="valhalla", state=state, move=move)
        state = api.apply_move(pb.ApplyMoveRequest(game="valhalla", state=state, move=move)).state
        done += 1


class Server:
    def __init__(
        self,
        extra: list[str] | None = None,
        program: list[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        """``lawspeaker serve`` (or ``program`` taking its arguments) on free ports, pinned to CPU 0."""
        self.grpc_port = free_port()
        self.http_port = free_port()
        cmd = [
            *(program or [sys.executable, "-m", "lawspeaker"]),
            "serve",
            "--host",
            "127.0.0.1",
            "--grpc-port",
            str(self.grpc_port),
            "--http-port",
            str(self.http_port),
            *(extra or ()),
        ]
        if shutil.which("taskset"):
            cmd = ["taskset", "-c", "0", *cmd]
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})}
        )
        if wait_for(self.http_port, self.grpc_port):
            return
        self.stop()
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _ms(text: str) -> float:
    m = re.match(r"([\d.]+)(us|ms|s)", text)
    if not m:
        return float("nan")
    value, unit = float(m.group(1)), m.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


def wrk(
    name: str,
    url: str,
    seconds: int,
    body: bytes | None,
    connections: int = 16,
    threads: int = 1,
    script: Path | None = None,
) -> Load:
    """Run wrk against a URL (POST with a JSON body when given, or driven by a Lua script)."""
    with tempfile.TemporaryDirectory() as tmp:
        args = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", url]
        if script is not None:
            args[1:1] = ["-s", str(script)]
        elif body is not None:
            script = Path(tmp) / "post.lua"
            lua_body = body.decode().replace("\\", "\\\\").replace('"', '\\"')
            script.write_text(
                'wrk.method = "POST"\n'
                f'wrk.body = "{lua_body}"\n'
                'wrk.headers["Content-Type"] = "application/json"\n'
            )
            args[1:1] = ["-s", str(script)]
        if shutil.which("taskset"):
            args = ["taskset", "-c", "1", *args]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    # The latency distribution's own lines ("     50%    2.72ms"), not a percentage such as
    # "71.50%" in the thread stats above them.
    p50 = _ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))  # type: ignore[union-attr]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = (int(bad.group(1)) if bad else 0) + (sum(int(g) for g in sock.groups()) if sock else 0)
    return Load(name, rps, p50, p99, errors)


async def _grpc_load(name: str, port: int, seconds: float, apply: pb.ApplyMoveRequest | None) -> Load:
    concurrency = 16
    latencies: list[float] = []
    errors = 0
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        rules = rules_service_pb2_grpc.RulesServiceStub(channel)
        health = health_pb2_grpc.HealthStub(channel)
        empty = health_pb2.HealthCheckRequest()

        async def one() -> None:
            if apply is not None:
                await rules.ApplyMove(apply)
            else:
                await health.Check(empty)

        for _ in range(200):  # warm up
            await one()
        deadline = time.perf_counter() + seconds

        async def worker() -> None:
            nonlocal errors
            while time.perf_counter() < deadline:
                t = time.perf_counter()
                try:
                    await one()
                except grpc.aio.AioRpcError:
                    errors += 1
                latencies.append(time.perf_counter() - t)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - start
    latencies.sort()
    n = len(latencies)
    return Load(
        name, n / elapsed, latencies[n // 2] * 1000, latencies[min(n - 1, int(n * 0.99))] * 1000, errors
    )


def grpc_load(name: str, port: int, seconds: float, apply: pb.ApplyMoveRequest | None) -> Load:
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(0, {1})
    return asyncio.run(_grpc_load(name, port, seconds, apply))


def combine(name: str, rounds: list[Load]) -> Load:
    """One load from interleaved rounds: mean requests/s and p50, worst p99, every error."""
    n = len(rounds)
    return Load(
        name,
        sum(r.rps for r in rounds) / n,
        sum(r.p50_ms for r in rounds) / n,
        max(r.p99_ms for r in rounds),
        sum(r.errors for r in rounds),
    )


def alternate(rounds: int, runs: dict[str, Callable[[], Load]]) -> dict[str, Load]:
    """Run each load once per round, in turn, so that a slow spell of a shared machine falls on
    all of them alike; combine each load's rounds."""
    got: dict[str, list[Load]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            got[name].append(run())
    return {name: combine(name, loads) for name, loads in got.items()}


def measure(seconds: int = 8, rounds: int = ROUNDS) -> list[tuple[Load, Load]]:
    """(floor, ApplyMove) pairs for REST and gRPC, measured against one server process, in
    ``rounds`` alternating rounds of ``seconds / rounds`` each."""
    request = mid_game_request()
    body = json_format.MessageToJson(request, indent=None).encode()
    each = max(1, round(seconds / rounds))
    server = Server()
    try:
        base = f"http://127.0.0.1:{server.http_port}"
        wrk("warm-up", f"{base}/healthz", 2, None)
        wrk("warm-up", f"{base}/v1/games/valhalla:applyMove", 2, body)
        rest = alternate(
            rounds,
            {
                "REST GET /healthz (floor)": lambda: wrk("", f"{base}/healthz", each, None),
                "REST POST :applyMove": lambda: wrk("", f"{base}/v1/games/valhalla:applyMove", each, body),
            },
        )
        grpc_runs = alternate(
            rounds,
            {
                "gRPC Health/Check (floor)": lambda: grpc_load("", server.grpc_port, each, None),
                "gRPC ApplyMove": lambda: grpc_load("", server.grpc_port, each, request),
            },
        )
    finally:
        server.stop()
    floor, apply = rest.values()
    grpc_floor, grpc_apply = grpc_runs.values()
    return [(floor, apply), (grpc_floor, grpc_apply)]


def measure_ceiling(seconds: int = 8, rounds: int = ROUNDS) -> tuple[Load, Load, int, int]:
    """What the REST stack alone allows: the same HTTP server and framework (uvicorn with httptools
    and uvloop, Litestar, one process on CPU 0) answering ``GET /healthz`` and a POST that reads a
    body as large as the ApplyMove request and answers with one as large as its response, doing no
    other work. Returns the floor, the echo, and the two body sizes."""
    request = mid_game_request()
    body = json_format.MessageToJson(request, indent=None).encode()
    answer = msgspec.json.encode(protojson.to_dict(RulesApi().apply_move(request)))
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        reply = Path(tmp) / "reply.json"
        reply.write_bytes(answer)
        cmd = [sys.executable, str(Path(__file__).with_name("echo_app.py")), str(port), str(reply)]
        if shutil.which("taskset"):
            cmd = ["taskset", "-c", "0", *cmd]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(port)
            base = f"http://127.0.0.1:{port}"
            each = max(1, round(seconds / rounds))
            wrk("warm-up", f"{base}/healthz", 2, None)
            got = alternate(
                rounds,
                {
                    "REST GET /healthz (floor)": lambda: wrk("", f"{base}/healthz", each, None),
                    "REST POST echo (no work)": lambda: wrk("", f"{base}/v1/games/valhalla:echo", each, body),
                },
            )
        finally:
            proc.terminate()
            proc.wait(10)
    floor, echo = got.values()
    return floor, echo, len(body), len(answer)


@dataclass
class InProcess:
    """Microseconds per call of each step of the benchmark's ApplyMove, in this process (best of
    several rounds, so with warm caches: the figures under load are higher)."""

    json_decode: float  # the REST body into wire messages (msgspec)
    json_call: float  # RulesApi.apply_move over wire messages
    json_encode: float  # the wire answer as JSON (msgspec)
    proto_parse: float  # the gRPC request bytes into a protobuf message
    proto_call: float  # RulesApi.apply_move over protobuf messages
    proto_serialize: float  # the protobuf answer as bytes


def _per_call(f: Callable[[], object], rounds: int = 7, n: int = 2000) -> float:
    for _ in range(n // 4):
        f()
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, (time.perf_counter() - start) / n)
    return best * 1e6


def in_process() -> InProcess:
    """What each step of the benchmark's ApplyMove costs on its own, on the calling thread. Each
    call gets a freshly decoded request, as in a server."""
    request = mid_game_request()
    api = RulesApi()
    fast = api.on_wire
    messages = structs.default_wire()
    body = json_format.MessageToJson(request, indent=None).encode()
    data = request.SerializeToString()
    answer: Any = fast.apply_move(messages.decode(messages.ApplyMoveRequest, body))
    response = api.apply_move(request)
    assert structs.encode(answer) == msgspec.json.encode(protojson.to_dict(response)), "the paths disagree"
    json_decode = _per_call(lambda: messages.decode(messages.ApplyMoveRequest, body))
    proto_parse = _per_call(lambda: pb.ApplyMoveRequest.FromString(data))
    return InProcess(
        json_decode=json_decode,
        json_call=_per_call(lambda: fast.apply_move(messages.decode(messages.ApplyMoveRequest, body)))
        - json_decode,
        json_encode=_per_call(lambda: structs.encode(answer)),
        proto_parse=proto_parse,
        proto_call=_per_call(lambda: api.apply_move(pb.ApplyMoveRequest.FromString(data))) - proto_parse,
        proto_serialize=_per_call(response.SerializeToString),
    )


@dataclass
class InServer:
    """Microseconds per RulesApi.apply_move call inside a server under the benchmark's load."""

    rest_cpu: float
    rest_wall: float
    grpc_cpu: float
    grpc_wall: float


def in_server(seconds: int = 2) -> InServer:
    """The API call timed inside the server (``timed_server.py``) under each transport's load."""
    request = mid_game_request()
    body = json_format.MessageToJson(request, indent=None).encode()
    with tempfile.TemporaryDirectory() as tmp:
        times = Path(tmp) / "times"
        server = Server(
            program=[sys.executable, str(Path(__file__).with_name("timed_server.py"))],
            env={"LAWSPEAKER_TIMES": str(times)},
        )

        def sums() -> tuple[float, float]:
            """CPU and wall microseconds per call since the last reading."""
            times.unlink(missing_ok=True)
            server.proc.send_signal(signal.SIGUSR1)
            deadline = time.time() + 10
            while not times.exists() or not times.read_text().endswith("\n"):
                if time.time() > deadline:
                    raise RuntimeError("the timed server did not report")
                time.sleep(0.05)
            calls, cpu, wall = times.read_text().split()
            n = max(1, int(calls))
            return float(cpu) / n * 1e6, float(wall) / n * 1e6

        try:
            url = f"http://127.0.0.1:{server.http_port}/v1/games/valhalla:applyMove"
            wrk("warm-up", url, 1, body)
            sums()
            wrk("", url, seconds, body)
            rest_cpu, rest_wall = sums()
            grpc_load("", server.grpc_port, 1, request)
            sums()
            grpc_load("", server.grpc_port, seconds, request)
            grpc_cpu, grpc_wall = sums()
        finally:
            server.stop()
    return InServer(rest_cpu, rest_wall, grpc_cpu, grpc_wall)


@dataclass
class Versus:
    """The end-to-end ratios of another revision and of this tree, measured in alternating rounds."""

    base: str
    #: ("base" | "this tree", {transport: (ApplyMove requests/s, floor requests/s)}) per round
    rounds: list[tuple[str, dict[str, list[float]]]]

    def mean(self, which: str, transport: str, index: int) -> float:
        """The mean over the rounds of ``which`` of ApplyMove's requests/s (0), the floor's (1)."""
        got = [r[transport][index] for w, r in self.rounds if w == which]
        return sum(got) / len(got)

    def ratio(self, which: str, transport: str) -> float:
        """ApplyMove's requests/s over the floor's, each the mean of ``which``'s rounds."""
        return self.mean(which, transport, 0) / self.mean(which, transport, 1)


def against(base: str, seconds: int = 8, rounds: int = 2) -> Versus:
    """Measure ApplyMove's ratio to its floor for revision ``base`` and for this tree, alternating
    ``rounds`` times, with this benchmark code (only the service package differs): a check that this
    tree's end-to-end path is not slower than the base's on the same machine, in the same run."""
    root = Path(__file__).resolve().parents[1]
    out: list[tuple[str, dict[str, list[float]]]] = []
    with worktree(base) as tree:
        for _ in range(rounds):
            for which, service in (("base", tree / "service"), ("this tree", root / "service")):
                code = (
                    f"import json, e2e; pairs = e2e.measure({seconds}, 2); "
                    "print(json.dumps({b.name.split()[0]: [m.rps, b.rps] for b, m in pairs}))"
                )
                env = dict(os.environ, PYTHONPATH=str(service))
                done = subprocess.run(
                    [sys.executable, "-c", code],
                    cwd=Path(__file__).parent,
                    env=env,
                    check=True,
                    capture_output=True,
                    text=True,
                )
                out.append((which, msgspec.json.decode(done.stdout.strip().splitlines()[-1])))
    return Versus(base, out)


@contextlib.contextmanager
def worktree(base: str) -> Iterator[Path]:
    """A temporary checkout of git revision ``base`` (a detached worktree, removed afterwards)."""
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "base"
        subprocess.run(
            ["git", "-C", str(root), "worktree", "add", "--detach", str(tree), base],
            check=True,
            capture_output=True,
        )
        try:
            yield tree
        finally:
            subprocess.run(
                ["git", "-C", str(root), "worktree", "remove", "--force", str(tree)], capture_output=True
            )
