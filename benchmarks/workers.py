"""Stateless ApplyMove requests/s with one and with two ``lawspeaker serve`` workers, in the same run.

    .venv/bin/python benchmarks/workers.py [--seconds 3] [--rounds 3]   # prints the section

Both servers run at once, on Redis (``--workers 1`` is one process, ``--workers 2`` a supervisor and
two workers), and are not pinned: their processes may use both cores. The load generators are
pinned to CPU 1, as in ``e2e.py``: wrk with 16 keep-alive connections for REST, h2load (nghttp2's,
a C client) with 16 HTTP/2 connections of one call at a time for gRPC, posting the same
length-prefixed ApplyMove message. Several connections matter: the kernel spreads connections, not
calls, over the workers, and one gRPC channel is one connection. Loads alternate between the two
servers in rounds, so that a slow spell of the machine falls on both alike.

On a machine with two cores the load generator takes a share of the cores the second worker would
use: the ratio here is a floor, not what two workers give on a machine with cores to spare.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import grpc
from e2e import ROUNDS, Load, alternate, mid_game_request, wrk
from google.protobuf import json_format

from lawspeaker.v1 import rules_service_pb2_grpc

REDIS_URL = os.environ.get("LAWSPEAKER_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
GRPC_PATH = "/lawspeaker.v1.RulesService/ApplyMove"
CONNECTIONS = 16


class Workers:
    """``lawspeaker serve --workers count`` on free loopback ports and Redis, not pinned."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.prefix = f"bench-workers-{uuid.uuid4().hex[:8]}"
        cmd = [sys.executable, "-m", "lawspeaker", "serve", "--host", "127.0.0.1", "--grpc-port", "0"]
        cmd += ["--http-port", "0", "--workers", str(count), "--redis-url", REDIS_URL]
        cmd += ["--redis-prefix", self.prefix]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.proc.stdout is not None
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            found = re.search(r"grpc_port=(\d+) http_port=(\d+)", line)
            if found:
                self.grpc_port, self.http_port = int(found.group(1)), int(found.group(2))
                return
            if not line and self.proc.poll() is not None:
                break
        self.stop()
        raise RuntimeError(f"lawspeaker serve --workers {count} did not start")

    def processes(self) -> list[int]:
        """The serving processes: the workers under a supervisor, else the one process."""
        if self.count == 1:
            return [self.proc.pid]
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                if ppid == self.proc.pid:
                    found.append(int(entry.name))
        return sorted(found)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(40)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def h2load(url: str, seconds: int, data: Path) -> Load:
    """h2load posting ``data`` (a length-prefixed gRPC message) as gRPC calls, pinned to CPU 1.
    h2load counts HTTP statuses, and a failed gRPC call is an HTTP 200 too: :func:`measure` checks
    the call once with a gRPC client first."""
    args = ["h2load", "-c", str(CONNECTIONS), "-m", "1", "-t", "1", "-D", str(seconds), "-d", str(data)]
    args += ["-H", "content-type: application/grpc", "-H", "te: trailers", url]
    if shutil.which("taskset"):
        args = ["taskset", "-c", "1", *args]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"finished in [\d.]+m?s, ([\d.]+) req/s", out).group(1))  # type: ignore[union-attr]
    done = re.search(
        r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored", out
    )
    errors = int(done.group(2)) + int(done.group(3)) if done else 0
    mean = re.search(r"time for request:\s+\S+\s+\S+\s+(\S+)", out)
    mean_ms = _ms(mean.group(1)) if mean else float("nan")
    return Load("", rps, mean_ms, float("nan"), errors)


def _ms(text: str) -> float:
    m = re.match(r"([\d.]+)(us|ms|s)", text)
    if not m:
        return float("nan")
    value, unit = float(m.group(1)), m.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


@dataclass
class Result:
    loads: dict[str, Load]  # "REST 1", "REST 2", "gRPC 1", "gRPC 2"
    cpu_share: list[float]  # each of the two workers' share of their CPU seconds over the run
    seconds: int
    rounds: int
    grpc_client: str


def measure(seconds: int = 3, rounds: int = ROUNDS) -> Result:
    """REST and gRPC ApplyMove against one worker and two, each load ``seconds`` a round."""
    request = mid_game_request()
    body = json_format.MessageToJson(request, indent=None).encode()
    message = request.SerializeToString()
    one, two = Workers(1), Workers(2)
    try:
        for server in (one, two):  # the call works over gRPC (h2load would not tell)
            with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
                rules_service_pb2_grpc.RulesServiceStub(channel).ApplyMove(request, timeout=10)
        workers = two.processes()
        before = [cpu_seconds(pid) for pid in workers]
        runs: dict[str, Callable[[], Load]] = {}
        for name, server in (("1", one), ("2", two)):
            url = f"http://127.0.0.1:{server.http_port}/v1/games/valhalla:applyMove"
            wrk("warm-up", url, 1, body)
            runs[f"REST {name}"] = partial(wrk, "", url, seconds, body)
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "apply.grpc"
            data.write_bytes(b"\x00" + len(message).to_bytes(4, "big") + message)
            client = "h2load" if shutil.which("h2load") else ""
            if client:
                for name, server in (("1", one), ("2", two)):
                    url = f"http://127.0.0.1:{server.grpc_port}{GRPC_PATH}"
                    h2load(url, 1, data)
                    runs[f"gRPC {name}"] = partial(h2load, url, seconds, data)
            got = alternate(rounds, runs)
        used = [cpu_seconds(pid) - b for pid, b in zip(workers, before, strict=True)]
    finally:
        one.stop()
        two.stop()
    total = sum(used) or 1.0
    return Result(got, [u / total for u in used], seconds, rounds, client)


def section(result: Result) -> list[str]:
    """The section of docs/benchmarks.md."""
    lines = [
        "",
        "## Workers: one process and two on this machine's two cores",
        "",
        "`lawspeaker serve --workers 1` and `--workers 2` (on Redis; a stateless ApplyMove does not "
        "touch it) run side by side, not pinned; the load generators are pinned to CPU 1: wrk with "
        f"{CONNECTIONS} keep-alive connections for REST, h2load with {CONNECTIONS} HTTP/2 connections "
        "(one call at a time on each) for gRPC, with the mid-game Valhalla request above. Each load "
        f"runs {result.rounds} rounds of {result.seconds} s, alternating between the two servers; "
        "requests/s and the mean latency are the means of the rounds.",
        "",
        "| transport | workers | requests/s | mean ms | errors | ratio to one worker |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for transport in ("REST", "gRPC"):
        if f"{transport} 1" not in result.loads:
            lines.append(f"| {transport} | | not measured: h2load is not installed (nghttp2-client) | | | |")
            continue
        first = result.loads[f"{transport} 1"]
        for count in ("1", "2"):
            load = result.loads[f"{transport} {count}"]
            lines.append(
                f"| {transport} | {count} | {load.rps:,.0f} | {load.p50_ms:.2f} | {load.errors} | "
                f"{load.rps / first.rps:.2f}x |"
            )
    shares = ", ".join(f"{s:.0%}" for s in result.cpu_share)
    lines += [
        "",
        f"The two workers' shares of the CPU time they used over the run: {shares} (the kernel spreads "
        "connections over them by a hash of each connection's addresses). This machine has two "
        "cores and the load generator runs on one of them: with one worker the server has a core to "
        "itself and the load generator the other; with two, the second worker shares CPU 1 with the "
        "load generator. So the ratio is what this machine shows, a floor, not the gain on a "
        "machine with a core free for each worker, and it moves with whatever else the machine runs.",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=int, default=3, help="seconds of each load in each round")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="rounds of each load")
    args = parser.parse_args()
    print("\n".join(section(measure(args.seconds, args.rounds))))


if __name__ == "__main__":
    main()
