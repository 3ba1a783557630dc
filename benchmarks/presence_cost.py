"""What presence and turn clocks cost Redis: the commands a real ``lawspeaker serve`` sends while many
seats watch their sessions, counted by Redis itself (``INFO commandstats``), per second.

    .venv/bin/python benchmarks/presence_cost.py                  # 1,000 watchers on 500 sessions
    .venv/bin/python benchmarks/presence_cost.py --watchers 2000 --seconds 60

It starts one server on the Redis at ``--redis-url`` (a prefix of its own), creates ``--watchers / 2``
two-player sessions (half with a per-move clock of a day, so their deadlines are recorded), opens one
gRPC watch per seat, waits for every watch to be announced, then counts Redis's commands over
``--seconds`` of idle watching (the control: the same time before any watch opened, with the
sessions made). The difference per second, per 1,000 watchers, is what presence costs; the control is
what an idle replica costs (its timer's look for passed deadlines, the metrics' reads). Figures go to
stdout (docs/sessions.md quotes a run). Not run by CI.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import secrets
import subprocess
import sys
import time
from collections import Counter
from typing import Any

import grpc
import httpx
import redis

from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.v1 import session_service_pb2_grpc as spb_grpc


def commandstats(client: redis.Redis) -> Counter[str]:
    info: dict[str, Any] = client.info("commandstats")
    return Counter({k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in info.items()})


def start(url: str, prefix: str) -> tuple[subprocess.Popen[str], str, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lawspeaker",
            "serve",
            "--host",
            "127.0.0.1",
            "--http-port",
            "0",
            "--grpc-port",
            "0",
            "--redis-url",
            url,
            "--redis-prefix",
            prefix,
            "--create-rate",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"grpc_port=(\d+) http_port=(\d+)", line)
        if found:
            return proc, f"127.0.0.1:{found.group(1)}", f"http://127.0.0.1:{found.group(2)}"
    raise SystemExit("the server did not start")


async def watch_all(
    target: str, seats: list[tuple[str, str]], opened: asyncio.Event, stop: asyncio.Event
) -> None:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = spb_grpc.SessionServiceStub(channel)
        count = 0

        async def one(session: str, token: str) -> None:
            nonlocal count
            call = stub.WatchSession(
                spb.WatchSessionRequest(session=session), metadata=[("authorization", f"Bearer {token}")]
            )
            await call.read()
            count += 1
            if count == len(seats):
                opened.set()
            await stop.wait()
            call.cancel()

        await asyncio.gather(*(one(s, t) for s, t in seats))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379")
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    prefix = "presence-bench-" + secrets.token_hex(4)
    client = redis.Redis.from_url(args.redis_url)
    proc, target, base = start(args.redis_url, prefix)
    try:
        seats: list[tuple[str, str]] = []
        with httpx.Client(base_url=base, timeout=30) as http:
            for i in range(args.watchers // 2):
                body: dict[str, Any] = {"game": "valhalla", "players": 2}
                if i % 2:
                    body["clock"] = {"perMoveSeconds": 86400}
                made = http.post("/v1/sessions", json=body).json()
                seats += [(made["session"]["session"], t["token"]) for t in made["seatTokens"]]
        time.sleep(2.0)
        before = commandstats(client)
        time.sleep(args.seconds)
        idle = commandstats(client) - before

        async def watching() -> Counter[str]:
            opened, stop = asyncio.Event(), asyncio.Event()
            task = asyncio.create_task(watch_all(target, seats, opened, stop))
            await asyncio.wait_for(opened.wait(), 120)
            await asyncio.sleep(12.0)  # past a refresh of every open watch
            start_stats = await asyncio.to_thread(commandstats, client)
            await asyncio.sleep(args.seconds)
            counted = await asyncio.to_thread(commandstats, client) - start_stats
            stop.set()
            with contextlib.suppress(Exception):
                await task
            return counted

        watched = asyncio.run(watching())
    finally:
        proc.terminate()
        proc.wait(20)
        for key in client.scan_iter(f"{prefix}:*", count=1000):
            client.delete(key)
    per_1000 = 1000 / len(seats)
    print(f"{len(seats)} watchers on {len(seats) // 2} sessions, {args.seconds:g} s each way")
    print("| command | idle replica /s | with the watchers /s | presence per 1,000 watchers /s |")
    print("|---|---:|---:|---:|")
    for name in sorted(set(idle) | set(watched)):
        a, b = idle[name] / args.seconds, watched[name] / args.seconds
        if a or b:
            print(f"| {name} | {a:.1f} | {b:.1f} | {(b - a) * per_1000:.1f} |")
    total_idle, total = sum(idle.values()) / args.seconds, sum(watched.values()) / args.seconds
    print(f"| all | {total_idle:.1f} | {total:.1f} | {(total - total_idle) * per_1000:.1f} |")


if __name__ == "__main__":
    main()
