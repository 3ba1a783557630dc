"""Run every benchmark in one go and write docs/benchmarks.md.

    .venv/bin/python benchmarks/run.py            # full run (about two minutes)
    .venv/bin/python benchmarks/run.py --quick    # a short smoke run
    .venv/bin/python benchmarks/run.py --against REV   # also the end-to-end ratios of git revision REV

Benchmarks are not tests: nothing here fails on a number. Each result is reported as a ratio to a
baseline measured in the same run, next to the goal the issues set. Sections other scripts write
(``benchmarks/bots*.py``: "Bots: ..."; ``benchmarks/test_suite.py``: "The test suite";
``benchmarks/compression.py``: "Compression: ...") are kept as they are, after the sections this
script writes.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import e2e
import engine
import observability
import sessions
import workers

from lawspeaker.sessions.store import IDEM_RECORD_BYTES

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "benchmarks.md"

# Goals from the issues: plies/s as a multiple of python-chess random playouts.
ENGINE_GOALS = {"valhalla": 2.0, "penki": 2.0, "pax_penning": 1.0, "pax_viking_junior": 2.0, "birka": 1.0}
# The foundation issue's end-to-end goal (ApplyMove at 0.70x of an empty request) is retired: for a
# call that carries a body the floor is an echo of the same bytes. What stays is that today's ratios to
# the empty-request floor do not regress: REST about 0.45x, gRPC about 0.7x. The guards below leave
# room for the run-to-run noise seen on this machine (gRPC 0.66x to 0.79x on one day).
E2E_KEEP = {"REST": 0.40, "gRPC": 0.65}  # ApplyMove requests/s as a fraction of the empty-request floor
SESSION_GOAL = 0.50  # session ApplyMove requests/s as a fraction of stateless ApplyMove
SESSION_BYTES_GOAL = 16 * 1024  # Redis bytes of one mid-game session (issue 16)
# headings of the sections other scripts own (the web app on a phone: tests/web/figures.py)
OTHERS = ("## Bots", "## The test suite", "## Compression", "## The web app on a phone")


def kept_sections(text: str) -> list[str]:
    """The sections of ``text`` (each from its ``## `` heading to the next) that other scripts write,
    in their order, as lines: this script rewrites the rest of the document."""
    kept: list[str] = []
    keeping = False
    for line in text.splitlines():
        if line.startswith("## "):
            keeping = line.startswith(OTHERS)
            if keeping and kept and kept[-1] != "":
                kept.append("")
        if keeping:
            kept.append(line)
    while kept and kept[-1] == "":
        kept.pop()
    return kept


def notes(cost: Any) -> list[str]:
    """How each transport serves the request, with this run's in-process costs (``e2e.in_process``)."""
    return [
        "## Reading the end-to-end numbers",
        "",
        "- REST: a canonical proto3 JSON body is decoded by msgspec straight into Structs compiled from "
        "the contract's descriptors (`lawspeaker.wire.structs`), the rules run on them through the same "
        "codecs, and msgspec writes the answer; no protobuf message is built (other spellings take the "
        "general path; `tests/wire/test_structs.py` holds the two to the same answers). Measured in this "
        f"run, in the benchmark's own process, for this request: decoding {cost.json_decode:.1f} us, the API "
        f"call {cost.json_call:.1f} us, writing {cost.json_encode:.1f} us. Before this path (protobuf "
        "messages and `lawspeaker.wire.protojson`) REST ApplyMove ran at 0.20x of the floor.",
        "- gRPC: the floor is the grpc.aio server's own per-call cost (the health check). Measured the "
        f"same way: parsing the request {cost.proto_parse:.1f} us, the API call over protobuf messages "
        f"{cost.proto_call:.1f} us (most of it reading the state's fields and building the new state's "
        "message, which is joined from serialized parts and parsed once), serializing the answer "
        f"{cost.proto_serialize:.1f} us.",
        "- In-process figures are the best of several rounds, with warm caches. In the server the HTTP "
        "or gRPC machinery runs on the same core between two calls, and the same Python code takes "
        "longer: see the in-server timings above.",
        "- Requests/s are for one server process on one core; the service is stateless, so it scales by "
        "running one process per core behind a load balancer.",
    ]


def rest_budget(floor: Any, echo: Any, apply_ratio: float, cost: Any) -> list[str]:
    """ApplyMove next to the echo, the floor of a call that carries a body, in microseconds of one core."""
    f = 1e6 / floor.rps  # the floor
    e = 1e6 / echo.rps  # carrying bodies of ApplyMove's sizes, and nothing else
    a = f / apply_ratio  # ApplyMove, at this server's floor
    echo_ratio = echo.rps / floor.rps
    alone = cost.json_decode + cost.json_call + cost.json_encode
    return [
        f"For a call that carries a body the floor is an echo of the same bytes: here the echo runs at "
        f"{echo_ratio:.2f}x of `GET /healthz` and REST ApplyMove at {apply_ratio:.2f}x, so ApplyMove runs "
        f"at {apply_ratio / echo_ratio:.2f}x of the echo. At this floor ({f:.0f} us of one core per "
        f"request) carrying the two bodies costs {e - f:.0f} us more; everything ApplyMove does beyond "
        f"that (decoding, checking the state, validating and applying the move, writing the new state) "
        f"takes {a - e:.0f} us under this load, and {alone:.0f} us in the benchmark's own process "
        f"(decoding {cost.json_decode:.1f} us, the API call {cost.json_call:.1f} us, writing "
        f"{cost.json_encode:.1f} us).",
    ]


def in_server_lines(inside: Any, cost: Any) -> list[str]:
    """The API call timed inside the server under load, next to its in-process cost."""
    return [
        "The API call (`RulesApi.apply_move`, decoding the state to writing the new one) timed inside "
        "the server under the same loads (`benchmarks/timed_server.py`, a separate short run; "
        "`time.thread_time` on the serving thread, so CPU time, not waiting):",
        "",
        "| transport | in-process us | in the server under load, CPU us | wall us | CPU / in-process |",
        "|---|---:|---:|---:|---:|",
        row(
            "REST",
            f"{cost.json_call:.1f}",
            f"{inside.rest_cpu:.1f}",
            f"{inside.rest_wall:.1f}",
            f"{inside.rest_cpu / cost.json_call:.1f}x",
        ),
        row(
            "gRPC",
            f"{cost.proto_call:.1f}",
            f"{inside.grpc_cpu:.1f}",
            f"{inside.grpc_wall:.1f}",
            f"{inside.grpc_cpu / cost.proto_call:.1f}x",
        ),
    ]


def grpc_budget(floor: Any, apply: Any, cost: Any) -> list[str]:
    """What gRPC ApplyMove costs beyond the health check, in microseconds of one core per call."""
    f = 1e6 / floor.rps
    a = 1e6 / apply.rps
    alone = cost.proto_parse + cost.proto_call + cost.proto_serialize
    return [
        f"gRPC: the floor is {f:.0f} us of one core per call; ApplyMove costs {a - f:.0f} us more, of "
        f"which parsing, the API call and serializing take {alone:.0f} us in the benchmark's own process.",
    ]


def versus_lines(v: Any) -> list[str]:
    """The loads of another revision and of this tree, measured alternately in this run."""
    lines = [
        "",
        f"The same loads for revision `{v.base}` and for this tree, measured in this run in "
        f"{len(v.rounds) // 2} alternating rounds each with the same benchmark code (only the service "
        "differs), to tell a ratio below its guard that this tree caused from one the machine caused "
        "(requests/s are means over the rounds):",
        "",
        "| transport | base ApplyMove/s | base floor/s | base ratio | this tree ApplyMove/s | "
        "this tree floor/s | this tree ratio |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for transport in ("REST", "gRPC"):
        cells = []
        for which in ("base", "this tree"):
            cells += [
                f"{v.mean(which, transport, 0):,.0f}",
                f"{v.mean(which, transport, 1):,.0f}",
                f"{v.ratio(which, transport):.2f}x",
            ]
        lines.append(row(transport, *cells))
    return lines


def row(*cells: str) -> str:
    """One markdown table row."""
    return "| " + " | ".join(cells) + " |"


def ratio_rows(pairs: list[tuple[Any, Any]], goal: float | dict[str, float]) -> list[str]:
    """Two table rows per (baseline, measured) pair of loads: the baseline, then the measured load
    with its ratio to the baseline and whether it meets ``goal`` (one for all, or per transport)."""
    out = []
    for base, measured in pairs:
        ratio = measured.rps / base.rps
        transport = base.name.split()[0]
        want = goal[transport] if isinstance(goal, dict) else goal
        met = "yes" if ratio >= want else "NO"
        for load, rel, target, verdict in (
            (base, "1.00x", "", ""),
            (measured, f"{ratio:.2f}x", f"{want:.2f}x", met),
        ):
            out.append(
                row(
                    transport,
                    load.name,
                    f"{load.rps:,.0f}",
                    f"{load.p50_ms:.2f}",
                    f"{load.p99_ms:.2f}",
                    str(load.errors),
                    rel,
                    target,
                    verdict,
                )
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short run for a smoke check")
    parser.add_argument("--skip-e2e", action="store_true", help="engine benchmarks only")
    parser.add_argument(
        "--skip-sessions", action="store_true", help="no session benchmarks (they need Redis)"
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also measure the end-to-end ratios of git revision REV against this tree, alternating",
    )
    args = parser.parse_args()
    rounds, budget, seconds = (2, 0.5, 3) if args.quick else (6, 1.5, 10)

    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(0, {1})
    games = sorted(ENGINE_GOALS)
    baseline, rates = engine.measure(games, rounds, budget)
    lines = [
        "# Benchmarks",
        "",
        f"Written by `benchmarks/run.py{' --quick' if args.quick else ''}"
        f"{' --against ' + args.against if args.against else ''}` on "
        f"{datetime.date.today().isoformat()}: Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores. Every ratio is against a baseline measured "
        "in the same run. Tests never assert on these numbers.",
        "",
        "## Engine: random playouts on one core",
        "",
        "One ply = list the legal moves + apply one chosen at random (python-chess: "
        "`list(board.legal_moves)` + `push`). Rounds of each are interleaved "
        f"({rounds} rounds x {budget:g} s each).",
        "",
        "| engine | plies/s | ratio to python-chess | goal | met |",
        "|---|---:|---:|---:|:---:|",
        f"| python-chess (baseline) | {baseline.per_second:,.0f} | 1.00x | | |",
    ]
    for g in games:
        ratio = rates[g].per_second / baseline.per_second
        goal = ENGINE_GOALS[g]
        met = "yes" if ratio >= goal else "NO"
        lines.append(row(g, f"{rates[g].per_second:,.0f}", f"{ratio:.2f}x", f"{goal:.1f}x", met))
    if not args.skip_e2e:
        pairs = e2e.measure(seconds)
        lines += [
            "",
            "## End to end: ApplyMove next to the stack's floor",
            "",
            "One `lawspeaker serve` process pinned to CPU 0; the load generator pinned to CPU 1 (wrk with "
            "16 keep-alive connections for REST, a grpc.aio client with 16 concurrent calls for gRPC). "
            "The request is a Valhalla ship move in the middle of a seeded game (the whole state travels "
            "in the request). The floor is the same server answering an empty request. Each load runs "
            f"in {e2e.ROUNDS} rounds alternating with its floor, {seconds} s in all; requests/s and p50 "
            "are the mean of the rounds, p99 the worst round. The foundation issue's goal (0.70x of the "
            "empty request) is retired; what is kept is that these ratios do not regress (REST about "
            "0.45x, gRPC about 0.7x: the guard leaves room for run-to-run noise).",
            "",
            "| transport | request | requests/s | p50 ms | p99 ms | errors | ratio to floor | keep at least "
            "| held |",
            "|---|---|---:|---:|---:|---:|---:|---:|:---:|",
        ]
        lines += ratio_rows(pairs, E2E_KEEP)
        if args.against:
            lines += versus_lines(e2e.against(args.against, seconds))
        floor, echo, request_bytes, response_bytes = e2e.measure_ceiling(seconds)
        lines += [
            "",
            "What the REST stack itself allows: the same HTTP server and framework (uvicorn with httptools "
            "and uvloop, Litestar; `benchmarks/echo_app.py`, one process pinned to CPU 0, the same wrk "
            f"load) answering `GET /healthz` and a POST that reads a {request_bytes:,}-byte body and "
            f"answers with {response_bytes:,} bytes (the sizes of the ApplyMove request and response "
            "above) and does nothing else.",
            "",
            "| transport | request | requests/s | p50 ms | p99 ms | errors | ratio to floor |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for load in (floor, echo):
            lines.append(
                row(
                    "REST",
                    load.name,
                    f"{load.rps:,.0f}",
                    f"{load.p50_ms:.2f}",
                    f"{load.p99_ms:.2f}",
                    str(load.errors),
                    f"{load.rps / floor.rps:.2f}x",
                )
            )
        cost = e2e.in_process()
        lines += [
            "",
            *rest_budget(floor, echo, pairs[0][1].rps / pairs[0][0].rps, cost),
            "",
            *grpc_budget(*pairs[1], cost),
            "",
            *in_server_lines(e2e.in_server(), cost),
            "",
            *notes(cost),
        ]
        lines += observability.section(
            observability.measure(8, 2, count=False) if args.quick else observability.measure()
        )
    if not args.skip_sessions:
        lines += session_section(seconds, args.against)
    if not args.skip_e2e and not args.skip_sessions and sessions.redis_up():  # workers need Redis
        lines += workers.section(workers.measure(max(1, round(seconds / e2e.ROUNDS)), e2e.ROUNDS))
    print("\n".join(lines))
    kept = kept_sections(OUT.read_text()) if OUT.exists() else []
    OUT.write_text("\n".join([*lines, *(["", *kept] if kept else [])]) + "\n")


def session_section(seconds: int, against: str | None = None) -> list[str]:
    """Session ApplyMove next to stateless ApplyMove, and Redis memory per mid-game session."""
    if not sessions.redis_up():
        return ["", "## Game sessions", "", f"Skipped: no Redis at {sessions.REDIS_URL}."]
    pairs = sessions.measure(seconds)
    lines = [
        "",
        "## Game sessions: session ApplyMove next to stateless ApplyMove (Redis)",
        "",
        "One `lawspeaker serve --redis-url` process pinned to CPU 0, Redis on the same machine (it "
        "shares the two cores); the load generators pinned to CPU 1, the same one for the stateless "
        f"and the session request: wrk with {sessions.CONCURRENCY} threads of one keep-alive connection "
        "each for REST (a Lua script carries each response's etag into the next request), a grpc.aio "
        f"client with {sessions.CONCURRENCY} concurrent calls for gRPC. Each session worker plays a "
        "seeded Valhalla game in its own session (a new one when the game ends; over REST that "
        "CreateSession counts among the requests, once per game). A session move costs one Lua "
        "compare-and-set (state, log entry, TTLs, publish) and, when another replica wrote the version "
        "the request names, one read before it. The stateless request is the mid-game ship move above "
        f"(the whole state travels both ways). Each load runs in {e2e.ROUNDS} rounds alternating with "
        f"the stateless one, {seconds} s in all.",
        "",
        "| transport | request | requests/s | p50 ms | p99 ms | errors | ratio to stateless | goal | met |",
        "|---|---|---:|---:|---:|---:|---:|---:|:---:|",
    ]
    lines += ratio_rows(pairs, SESSION_GOAL)
    lines += [
        "",
        "How a session move is served: the replica that wrote a session's current version keeps it "
        "decoded, so a move on that etag reads nothing from Redis and decodes and checks no state; "
        "over REST and Connect JSON the SessionApplyMove answer is built over `lawspeaker.wire.structs` "
        "messages and written by msgspec, as the stateless call's is; the store's two Lua scripts "
        "run over one pipelined Redis connection per process (`lawspeaker/sessions/resp.py`: on this "
        "machine redis-py's pooled client spent about 250 us of CPU per script call, the pipelined "
        "connection about 20 us under this load). The record kept in Redis holds the state as "
        "protobuf, so a move still encodes the new state twice, for Redis and for the answer.",
    ]
    lines += [
        "",
        "Redis memory of one session in the middle of a seeded random game (half its plies, a "
        "request id on every move), `MEMORY USAGE` of each key in bytes. The log holds every move, "
        "not its events (they are replayed from the moves when the log is read); idem keeps one "
        f"{IDEM_RECORD_BYTES}-byte record per request id of the last day (not its answer: a retry's "
        "answer is rebuilt from the log), within "
        f"{sessions.REQUEST_ID_BYTES // 1024} KiB per session (`--request-id-bytes`). Goal: at most "
        f"{SESSION_BYTES_GOAL // 1024} KB per mid-game session"
        + (
            f"; the total of revision {against}, measured by its own code in the same run on the same "
            "Redis, is shown before this tree's."
            if against
            else "."
        ),
        "",
        "| game | players | moves made | record | log | idem | "
        + (f"total at {against} | " if against else "")
        + "total | goal met |",
        "|---|---:|---:|---:|---:|---:|" + ("---:|" if against else "") + "---:|:---:|",
    ]
    before: dict[str, int] = {}
    if against:
        with e2e.worktree(against) as tree:
            before = sessions.memory_of_tree(tree)
    for m in sessions.memory():
        cells = [m.game, str(m.players), str(m.plies), f"{m.record:,}", f"{m.log:,}", f"{m.idem:,}"]
        if against:
            cells.append(f"{before[m.game]:,}" if m.game in before else "-")
        cells += [f"{m.total:,}", "yes" if m.total <= SESSION_BYTES_GOAL else "no"]
        lines.append(row(*cells))
    return lines


if __name__ == "__main__":
    main()
