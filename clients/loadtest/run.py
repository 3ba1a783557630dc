"""Load-test Lawspeaker in one command: start a server on free ports, run Locust headless for a
bounded time with the REST and gRPC players of locustfile.py, print requests/s, p50/p95/p99 per
request type and the errors by code, and exit non-zero on any error.

    python clients/loadtest/run.py                         # 10 users for 20 s
    python clients/loadtest/run.py --users 20 --run-time 60s --redis-url redis://127.0.0.1:6379/0
    python clients/loadtest/run.py --grpc-target host:50051 --rest-url http://host:8080 --api-key lsk_...

The server it starts has one API key, ``loadtest``, with an allowance of its own for creating sessions
(``--api-keys 'loadtest=sha256:<hex>;rate=6000;burst=200'``, docs/quotas.md): the players send it, so
the server's quotas for creating sessions stay as they are. A key brings no allowance for the lobby
(ListSessions and ClaimSeat count per client against ``--lobby-rate``, 120 a minute by default, which
every player of the load test shares as one client), so that server's lobby rate is raised to the
same 6000 a minute, burst 200 (``LOBBY_ALLOWANCE``): nobody else uses it. Against a running server,
``--api-key`` (or LAWSPEAKER_API_KEY) is the key its players send, and its lobby rate holds: a lobby
call it refuses waits the Retry-After it names.

Needs the dev environment plus the client and Locust:
``pip install -e '.[dev]' -e clients/python -r clients/loadtest/requirements.txt``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PORTS = re.compile(r"grpc_port=(\d+) http_port=(\d+)")
LOAD_TEST_ALLOWANCE = "rate=6000;burst=200"  # new sessions a minute and at once, for the load-test key
# Lobby calls a minute and at once, for the server a runner starts (a key has no lobby allowance)
LOBBY_ALLOWANCE = ["--lobby-rate", "6000", "--lobby-burst", "200"]


def load_test_key() -> tuple[str, str]:
    """A new random API key and its ``--api-keys`` entry: named ``loadtest``, with its own allowance.

    Every simulated player creates sessions from this one machine: the server's quota for a client
    (30 a minute, 10 at once) would refuse them. The key's allowance raises it for the load test only;
    everyone else keeps the server's quota."""
    key = "lsk_" + secrets.token_urlsafe(24)
    return key, f"loadtest=sha256:{hashlib.sha256(key.encode()).hexdigest()};{LOAD_TEST_ALLOWANCE}"


def start_server(
    redis_url: str | None, api_keys: str, extra: list[str] | None = None
) -> tuple[subprocess.Popen[str], str, str]:
    """``lawspeaker serve`` on free loopback ports with these API keys and the load test's lobby rate;
    it and its gRPC and REST addresses."""
    args = [sys.executable, "-m", "lawspeaker", "serve", "--host", "127.0.0.1", "--grpc-port", "0"]
    args += ["--http-port", "0", "--api-keys", api_keys, *LOBBY_ALLOWANCE, *(extra or [])]
    if redis_url:
        args += ["--redis-url", redis_url]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        found = PORTS.search(line)
        if found:
            return proc, f"127.0.0.1:{found.group(1)}", f"http://127.0.0.1:{found.group(2)}"
        if not line and proc.poll() is not None:
            break
    proc.kill()
    sys.exit("lawspeaker serve did not report its ports")


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def report(path: Path) -> int:
    """Print the summary of the JSON report the locustfile wrote; returns the number of errors."""
    data = json.loads(path.read_text())
    head = f"{'type':<5} {'request':<36} {'count':>7} {'fails':>6} {'req/s':>8} "
    head += f"{'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7}"
    rule = "-" * len(head)

    def line(e: dict[str, Any], kind: str, name: str) -> str:
        return (
            f"{kind:<5} {name:<36} {e['requests']:>7} {e['failures']:>6} {e['rps']:>8.1f} "
            f"{e['p50']:>7.0f} {e['p95']:>7.0f} {e['p99']:>7.0f}"
        )

    print(head, rule, sep="\n")
    for e in sorted(data["entries"], key=lambda e: (e["type"], e["name"])):
        print(line(e, e["type"], e["name"]))
    print(rule, line(data["total"], "", "all"), sep="\n")
    errors: Counter[str] = Counter()
    for f in data["failures"]:
        code = str(f["error"]).split(" ", 1)[0] or "UNKNOWN"
        errors[f"{code}: {f['type']} {f['name']}: {f['error']}"] += f["count"]
    for e in data["exceptions"]:
        errors[f"EXCEPTION: {e['message']}"] += e["count"]
    print("\nerrors by code:" + ("" if errors else " none"))
    for what, count in errors.most_common():
        print(f"  {count:>7}  {what}")
    for e in data["exceptions"][:3]:
        print(e["traceback"])
    if data["total"]["requests"] == 0:
        print("no requests were made")
        return 1
    return sum(errors.values())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--users", "-u", type=int, default=10, help="concurrent users, half REST, half gRPC")
    p.add_argument("--spawn-rate", "-r", type=float, default=None, help="users started per second")
    p.add_argument("--run-time", "-t", default="20s", help="how long to run, e.g. 15s, 2m")
    p.add_argument("--redis-url", default=None, help="keep the server's sessions in this Redis")
    p.add_argument("--grpc-target", default=None, help="load-test this server instead of starting one")
    p.add_argument("--rest-url", default=None, help="with --grpc-target: its REST base URL")
    p.add_argument(
        "--api-key",
        default=os.environ.get("LAWSPEAKER_API_KEY"),
        help="with --grpc-target: the API key the players send (env LAWSPEAKER_API_KEY)",
    )
    args = p.parse_args(argv)
    proc = None
    if args.grpc_target or args.rest_url:
        if not (args.grpc_target and args.rest_url):
            p.error("--grpc-target and --rest-url go together")
        grpc_target, rest_url, api_key = args.grpc_target, args.rest_url, args.api_key or ""
    else:
        api_key, entry = load_test_key()
        proc, grpc_target, rest_url = start_server(args.redis_url, entry)
        print(f"lawspeaker serve: gRPC {grpc_target}, REST {rest_url}", flush=True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "report.json"
            env = {
                **os.environ,
                "LAWSPEAKER_GRPC_TARGET": grpc_target,
                "LAWSPEAKER_REST_URL": rest_url,
                "LAWSPEAKER_API_KEY": api_key,
                "LAWSPEAKER_LOADTEST_REPORT": str(out),
            }
            command = [
                sys.executable, "-m", "locust", "-f", str(HERE / "locustfile.py"), "--headless",
                "--users", str(args.users), "--spawn-rate", str(args.spawn_rate or args.users),
                "--run-time", args.run_time, "--stop-timeout", "5", "--only-summary", "--loglevel", "WARNING",
            ]  # fmt: skip
            print(f"locust: {args.users} users for {args.run_time}", flush=True)
            log = Path(tmp) / "locust.log"
            with log.open("w") as sink:
                locust = subprocess.run(command, env=env, stdout=sink, stderr=subprocess.STDOUT, check=False)
            print()
            if not out.exists():
                print(log.read_text()[-5000:])
                print("FAILED: locust wrote no report")
                return 1
            errors = report(out)
    finally:
        if proc is not None:
            stop_server(proc)
    if errors or locust.returncode != 0:
        print(f"\nFAILED: {errors} errors, locust exit code {locust.returncode}")
        return 1
    print("\nOK: no errors")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
