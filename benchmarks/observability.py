"""What metrics and tracing cost: REST and gRPC ApplyMove with metrics on and off, in one run.

Three ``lawspeaker serve`` processes, each pinned to CPU 0 (only the one under load works), with
the load generators on CPU 1 as in ``e2e.py``:

- **metrics off**: ``--no-metrics`` (no call record is opened, no ``/metrics``);
- **metrics on**: the default, with the ``lawspeaker[otel]`` extra installed and no ``OTEL_*``
  variable set (tracing not asked for);
- **metrics on, extra absent**: the same, in a process where ``import opentelemetry`` fails, as it
  does where the extra is not installed.

Each load runs in alternating rounds on the three servers, so that a slow spell of the machine
falls on all of them alike. The issue's goals: metrics cost at most 5% of requests/s; the extra
installed but unconfigured costs nothing measurable (on vs. extra absent within the noise).

    .venv/bin/python benchmarks/observability.py [seconds]
"""

from __future__ import annotations

import http.client
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import grpc
from e2e import ROUNDS, Load, Server, combine, free_port, grpc_load, mid_game_request, wait_for, wrk
from google.protobuf import json_format

from lawspeaker.v1 import rules_service_pb2_grpc

METRICS_COST_GOAL = 0.05  # metrics may cost at most 5% of requests/s
# A process in which the otel extra cannot be imported, as where it is not installed.
WITHOUT_OTEL = [
    sys.executable,
    "-c",
    "import sys; sys.modules['opentelemetry'] = None; from lawspeaker.server.cli import main; "
    "sys.exit(main(sys.argv[1:]))",
]
CONFIGS = ("metrics off", "metrics on", "metrics on, otel extra absent")


@dataclass
class Result:
    rest: dict[str, Load]
    grpc: dict[str, Load]
    instructions: dict[str, dict[str, int]] | None = None  # per config, per load: per call
    rounds: int = ROUNDS
    each: int = 1  # seconds of each round


CALLS_COUNTED = 200  # calls per load whose instructions are counted (after 50 to warm up)


def instructions(calls: int = CALLS_COUNTED) -> dict[str, dict[str, int]] | None:
    """Instructions the server executes per call, metrics off and on (valgrind's callgrind, switched
    on for the measured calls only): exact and repeatable, whatever else the machine does, where
    requests/s move by several percent from round to round. None without valgrind."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        return None
    request = mid_game_request()
    body = json_format.MessageToJson(request, indent=None)
    out: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, extra, program in (
            ("metrics off", ["--no-metrics"], None),
            ("metrics on", [], None),
            ("metrics on, otel extra absent", [], WITHOUT_OTEL[1:]),
        ):
            out[name] = _counted(extra, calls, Path(tmp), request, body, program)
    return out


def _counted(
    extra: list[str], calls: int, tmp: Path, request: Any, body: str, program: list[str] | None = None
) -> dict[str, int]:
    grpc_port, http_port = free_port(), free_port()
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={tmp}/callgrind.%p",
        sys.executable,
        *(program or ["-m", "lawspeaker"]),
        "serve",
        "--host",
        "127.0.0.1",
        "--grpc-port",
        str(grpc_port),
        "--http-port",
        str(http_port),
        *extra,
    ]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not wait_for(http_port, grpc_port, seconds=300):
            raise RuntimeError("the server did not start under valgrind")
        connection = http.client.HTTPConnection("127.0.0.1", http_port)
        channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
        stub = rules_service_pb2_grpc.RulesServiceStub(channel)

        def rest(path: str, data: str | None) -> None:
            if data is None:
                connection.request("GET", path)
            else:
                connection.request("POST", path, body=data, headers={"content-type": "application/json"})
            answer = connection.getresponse()
            answer.read()
            assert answer.status == 200, answer.status

        loads: dict[str, Callable[[], object]] = {
            "REST GET /healthz": lambda: rest("/healthz", None),
            "REST POST :applyMove": lambda: rest("/v1/games/valhalla:applyMove", body),
            "gRPC ApplyMove": lambda: stub.ApplyMove(request),
        }
        got = {}
        for name, call in loads.items():
            for _ in range(50):
                call()
            control = ["callgrind_control"]
            subprocess.run([*control, "--zero", str(proc.pid)], capture_output=True, check=True)
            subprocess.run([*control, "--instr=on", str(proc.pid)], capture_output=True, check=True)
            for _ in range(calls):
                call()
            before = set(tmp.glob(f"callgrind.{proc.pid}*"))
            subprocess.run([*control, "--dump", str(proc.pid)], capture_output=True, check=True)
            subprocess.run([*control, "--instr=off", str(proc.pid)], capture_output=True, check=True)
            total = 0
            for path in set(tmp.glob(f"callgrind.{proc.pid}*")) - before:
                for line in path.read_text().splitlines():
                    if line.startswith(("summary:", "totals:")):
                        total += int(line.split()[1])
                        break
            got[name] = total // calls
        channel.close()
        connection.close()
        return got
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()


OBSERVABILITY_ROUNDS = 20  # more than e2e's: the cost measured is as small as the noise of a round


def rotate(rounds: int, runs: dict[str, Callable[[], Load]]) -> dict[str, Load]:
    """``e2e.alternate``, but each round starts with the next load, so that no load always runs
    first (or last) in its round."""
    names = list(runs)
    got: dict[str, list[Load]] = {name: [] for name in names}
    for i in range(rounds):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            got[name].append(runs[name]())
    return {name: combine(name, loads) for name, loads in got.items()}


def measure(seconds: int = 60, rounds: int = OBSERVABILITY_ROUNDS, count: bool = True) -> Result:
    request = mid_game_request()
    body = json_format.MessageToJson(request, indent=None).encode()
    each = max(1, round(seconds / rounds))
    servers = {
        "metrics off": Server(["--no-metrics"]),
        "metrics on": Server(),
        "metrics on, otel extra absent": Server(program=WITHOUT_OTEL),
    }
    try:
        urls = {
            name: f"http://127.0.0.1:{s.http_port}/v1/games/valhalla:applyMove" for name, s in servers.items()
        }
        for url in urls.values():
            wrk("warm-up", url, 2, body)
        rest = rotate(
            rounds, {name: (lambda url=url: wrk("", url, each, body)) for name, url in urls.items()}
        )
        grpc = rotate(
            rounds,
            {name: (lambda s=s: grpc_load("", s.grpc_port, each, request)) for name, s in servers.items()},
        )
    finally:
        for server in servers.values():
            server.stop()
    return Result(rest, grpc, instructions() if count else None, rounds, each)


def section(result: Result) -> list[str]:
    lines = [
        "",
        "## Metrics and tracing: ApplyMove with metrics on and off",
        "",
        "Three `lawspeaker serve` processes, each pinned to CPU 0, the load on CPU 1 as above (wrk, 16 "
        "connections; a grpc.aio client, 16 concurrent calls), the same mid-game Valhalla ApplyMove. "
        "*metrics off*: `--no-metrics`. *metrics on*: the default, with the `lawspeaker[otel]` extra "
        "installed and no `OTEL_*` variable set. *otel extra absent*: the same in a process where "
        f"`import opentelemetry` fails. {result.rounds} rounds of {result.each} s, each round running the "
        "three in turn, starting with the next one each time; "
        "requests/s and p50 are the mean "
        "of the rounds, p99 the worst round. Goal (issue 17): metrics cost at most 5% of requests/s; "
        "the extra installed but unconfigured costs nothing measurable.",
        "",
        "| transport | server | requests/s | p50 ms | p99 ms | errors | ratio to metrics off | goal | met |",
        "|---|---|---:|---:|---:|---:|---:|---:|:---:|",
    ]
    for transport, loads in (("REST", result.rest), ("gRPC", result.grpc)):
        off = loads["metrics off"]
        for name in CONFIGS:
            load = loads[name]
            ratio = load.rps / off.rps
            goal, met = "", ""
            if name == "metrics on":
                goal = f">= {1 - METRICS_COST_GOAL:.2f}x"
                met = "yes" if ratio >= 1 - METRICS_COST_GOAL else "NO"
            lines.append(
                f"| {transport} | {name} | {load.rps:,.0f} | {load.p50_ms:.2f} | {load.p99_ms:.2f} | "
                f"{load.errors} | {ratio:.3f}x | {goal} | {met} |"
            )
    for transport, loads in (("REST", result.rest), ("gRPC", result.grpc)):
        same = loads["metrics on"].rps / loads["metrics on, otel extra absent"].rps
        lines.append(
            f"\n{transport}: the two *metrics on* servers run the same code (lawspeaker imports nothing of "
            f"OpenTelemetry in either); they land {abs(same - 1) * 100:.1f}% apart, the noise of this "
            "measurement."
        )
    if result.instructions is not None:
        off, on = result.instructions["metrics off"], result.instructions["metrics on"]
        absent = result.instructions["metrics on, otel extra absent"]
        lines += [
            "",
            "Requests/s of one configuration move by several percent from round to round on this "
            "machine, as much as the cost measured. The instructions the server executes per call do "
            f"not: counted by valgrind's callgrind over {CALLS_COUNTED} calls of each load (after 50 "
            "to warm up), one at a time, in a server started under valgrind with `--no-metrics` and "
            "one without (`benchmarks/observability.py`, `instructions`):",
            "",
            "| call | instructions, metrics off | metrics on | ratio | goal | met | metrics on, otel extra "
            "absent | extra installed against absent |",
            "|---|---:|---:|---:|---:|:---:|---:|---:|",
        ]
        for name in off:
            ratio = on[name] / off[name]
            goal = name != "REST GET /healthz"
            lines.append(
                f"| {name} | {off[name]:,} | {on[name]:,} | {ratio:.3f}x | "
                f"{f'<= {1 + METRICS_COST_GOAL:.2f}x' if goal else ''} | "
                f"{('yes' if ratio <= 1 + METRICS_COST_GOAL else 'NO') if goal else ''} | "
                f"{absent[name]:,} | {on[name] / absent[name]:.3f}x |"
            )
        lines.append(
            "\n`GET /healthz` does nothing but answer: what metrics add to it is their whole cost per "
            "call, the same on a call that does work."
        )
    return lines


def main() -> None:
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    print("\n".join(section(measure(seconds))))


if __name__ == "__main__":
    main()
