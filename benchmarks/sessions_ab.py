"""Session ApplyMove against stateless ApplyMove (the ratio the sessions goal sets), for another
tree and this one in alternating rounds of the same run, on one Redis.

    .venv/bin/python benchmarks/sessions_ab.py /path/to/other/checkout [--rounds 2] [--seconds 6]

The other tree runs with its own ``service`` directory first on PYTHONPATH (a ``git worktree`` of
an older commit, for example). This tree's server runs without the per-client rate limit on
creating sessions (one load generator creates them all), and so does the other's (``--other-flags``
gives its flags: none for a tree older than the quotas). Prints
one line per round and transport; nothing is written and nothing fails on a number.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import subprocess
import sys
from pathlib import Path

import sessions
from e2e import Server


def measure(label: str, extra: list[str], env: dict[str, str], seconds: int) -> None:
    server = Server(["--redis-url", sessions.REDIS_URL, "--session-ttl", "600", *extra], env=env)
    try:
        if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
            os.sched_setaffinity(0, {1})
        pairs = asyncio.run(sessions._loads(server, seconds))
    finally:
        server.stop()
    for stateless, session in pairs:
        transport = stateless.name.split()[0]
        print(
            f"{label:<6} {transport:<5} stateless {stateless.rps:8,.0f}/s  session {session.rps:8,.0f}/s  "
            f"ratio {session.rps / stateless.rps:.2f}x",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="the other checkout (its service/ is used)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=int, default=6)
    parser.add_argument(
        "--other-flags",
        default="--create-rate 0",
        help="serve flags of the other tree, as one string (default '--create-rate 0'; '' for a tree "
        "older than the quotas)",
    )
    parser.add_argument("--one", choices=("other", "this"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:  # one measurement, in a process whose lawspeaker is that tree's
        flags = shlex.split(args.other_flags) if args.one == "other" else ["--create-rate", "0"]
        measure(args.one, flags, {}, args.seconds)
        return
    trees = {
        "other": args.other.resolve() / "service",
        "this": Path(__file__).resolve().parents[1] / "service",
    }
    for _ in range(args.rounds):
        for label, service in trees.items():
            # The whole measurement runs on that tree's package, the requests it builds included
            # (a state of one rules version is refused by a server of another).
            env = dict(os.environ, PYTHONPATH=str(service))
            cmd = [sys.executable, __file__, str(args.other), "--one", label, "--seconds", str(args.seconds)]
            cmd.append(f"--other-flags={args.other_flags}")
            subprocess.run(cmd, env=env, check=True)


if __name__ == "__main__":
    main()
