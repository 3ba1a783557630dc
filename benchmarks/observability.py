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

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from e2e import ROUNDS, Load, Server, alternate, grpc_load, mid_game_request, wrk
from google.protobuf import json_format

METRICS_COST_GOAL = 0.05  # metrics may cost at most 5% of requests/s
# A process in which the otel extra cannot be imported, as where it is not installed.
WITHOUT_OTEL = [
    sys.executable,
    "-c",
    "import sys; sys.modules['opentelemetry'] = None; from lawspeaker.cli import main; "
    "sys.exit(main(sys.argv[1:]))",
]
CONFIGS = ("metrics off", "metrics on", "metrics on, otel extra absent")


@dataclass
class Result:
    rest: dict[str, Load]
    grpc: dict[str, Load]


def measure(seconds: int = 8, rounds: int = ROUNDS) -> Result:
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
        rest = alternate(
            rounds, {name: (lambda url=url: wrk("", url, each, body)) for name, url in urls.items()}
        )
        grpc = alternate(
            rounds,
            {name: (lambda s=s: grpc_load("", s.grpc_port, each, request)) for name, s in servers.items()},
        )
    finally:
        for server in servers.values():
            server.stop()
    return Result(rest, grpc)


def section(result: Result) -> list[str]:
    lines = [
        "",
        "## Metrics and tracing: ApplyMove with metrics on and off",
        "",
        "Three `lawspeaker serve` processes, each pinned to CPU 0, the load on CPU 1 as above (wrk, 16 "
        "connections; a grpc.aio client, 16 concurrent calls), the same mid-game Valhalla ApplyMove. "
        "*metrics off*: `--no-metrics`. *metrics on*: the default, with the `lawspeaker[otel]` extra "
        "installed and no `OTEL_*` variable set. *otel extra absent*: the same in a process where "
        f"`import opentelemetry` fails. {ROUNDS} alternating rounds; requests/s and p50 are the mean "
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
        on, absent = loads["metrics on"], loads["metrics on, otel extra absent"]
        lines.append(
            f"\n{transport}: the otel extra installed but unconfigured, against the extra absent: "
            f"{on.rps / absent.rps:.3f}x."
        )
    return lines


def main() -> None:
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    print("\n".join(section(measure(seconds))))


if __name__ == "__main__":
    main()
