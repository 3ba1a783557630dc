"""Does a thinking bot slow the stateless calls? (issue 19: "a replica under load answers a bot move
late rather than slowing stateless calls".)

One ``lawspeaker serve`` with one bot worker process, both pinned to CPU 0 (the worker inherits the
server's affinity), so they share one core, which is what a busy replica is; wrk drives REST
ApplyMove from CPU 1, as in ``e2e.py``. Three loads, in alternating rounds:

- **no bot**: ApplyMove alone;
- **bot thinking, nice 10**: the same while a gRPC client keeps one SuggestMove search (a fixed
  number of playouts) in flight all the time, the worker at the priority the service gives it;
- **bot thinking, nice 0**: the same with the worker reniced to the server's own priority, which
  is what a bot thinking in the serving process's own priority class would cost.

Reported: ApplyMove requests/s and p99 as a ratio of "no bot", and how long a search of that many
playouts took meanwhile (the bot answers late instead).

    .venv/bin/python benchmarks/bots_load.py [seconds-per-round] [--write]
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import grpc
from e2e import ROUNDS, Load, Server, combine, mid_game_request, wrk
from google.protobuf import json_format

from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc
from lawspeaker.v1 import rules_service_pb2 as pb

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
SECTION = "## Bots: stateless calls while a bot thinks"
PLAYOUTS = 1500


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (the fork server and the bot workers of a server)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [p for p, pp in parents.items() if pp == parent]
        found.extend(children)
        frontier.extend(children)
    return found


class Thinker:
    """Keeps one SuggestMove search in flight until stopped; records how long each took."""

    def __init__(self, port: int, request: pb.SuggestMoveRequest) -> None:
        self.port, self.request = port, request
        self.took: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with grpc.insecure_channel(f"127.0.0.1:{self.port}") as channel:
            stub = rules_service_pb2_grpc.RulesServiceStub(channel)
            while not self._stop.is_set():
                started = time.perf_counter()
                answer = stub.SuggestMove(self.request, timeout=120)
                assert answer.playouts == PLAYOUTS, answer
                self.took.append(time.perf_counter() - started)

    def __enter__(self) -> Thinker:
        self._thread.start()
        time.sleep(0.3)  # the first search is under way
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(180)


def main() -> None:
    seconds = int(next((a for a in sys.argv[1:] if a.isdigit()), "4"))
    apply = mid_game_request()
    body = json_format.MessageToJson(apply, indent=None).encode()
    search = pb.SuggestMoveRequest(
        game="valhalla",
        state=apply.state,
        level=game_pb2.BOT_LEVEL_SEARCH,
        budget=game_pb2.BotBudget(playouts=PLAYOUTS),
        seed=1,
    )
    server = Server(["--bot-processes", "1", "--no-metrics"])
    url = f"http://127.0.0.1:{server.http_port}/v1/games/valhalla:applyMove"
    try:
        with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
            stub = rules_service_pb2_grpc.RulesServiceStub(channel)
            started = time.perf_counter()
            stub.SuggestMove(search, timeout=120)  # the worker is up, and alone
            alone = time.perf_counter() - started
        pid = server.proc.pid
        bots = [p for p in descendants(pid) if p != pid]
        assert bots, "no bot worker process"
        rounds: dict[str, list[Load]] = {
            "no bot": [],
            "bot thinking, nice 10": [],
            "bot thinking, nice 0": [],
        }
        took: dict[str, list[float]] = {name: [] for name in rounds}
        wrk("warm-up", url, 2, body)
        for _ in range(ROUNDS):
            rounds["no bot"].append(wrk("no bot", url, seconds, body))
            for name, nice in (("bot thinking, nice 10", 10), ("bot thinking, nice 0", 0)):
                for bot in bots:
                    os.setpriority(os.PRIO_PROCESS, bot, nice)
                with Thinker(server.grpc_port, search) as thinker:
                    rounds[name].append(wrk(name, url, seconds, body))
                took[name].extend(thinker.took)
    finally:
        server.stop()
    loads = {name: combine(name, got) for name, got in rounds.items()}
    base = loads["no bot"]
    lines = [
        SECTION,
        "",
        f"`benchmarks/bots_load.py {seconds}`: one `lawspeaker serve --bot-processes 1` and its bot",
        "worker sharing CPU 0, wrk on CPU 1 driving REST ApplyMove (16 connections), in",
        f"{ROUNDS} alternating rounds of {seconds} s. While a bot thinks, a gRPC client keeps one",
        f"SuggestMove search of {PLAYOUTS} playouts (Valhalla, mid-game) in flight all the time. A",
        f"search of that size takes {alone:.2f} s on an idle core.",
        "",
        "| load | ApplyMove req/s | vs no bot | p99 ms | vs no bot | searches done | s per search |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, load in loads.items():
        searches = took[name]
        per = f"{sum(searches) / len(searches):.2f}" if searches else "—"
        lines.append(
            f"| {name} | {load.rps:.0f} | {load.rps / base.rps:.2f} | {load.p99_ms:.1f} |"
            f" {load.p99_ms / base.p99_ms:.2f} | {len(searches)} | {per} |"
        )
        assert load.errors == 0, load
    table = "\n".join(lines) + "\n"
    print(table)
    if "--write" in sys.argv:
        text = DOC.read_text()
        if SECTION in text:
            text = re.sub(
                re.escape(SECTION) + r".*?(?=\n## |\Z)", table.rstrip("\n") + "\n", text, flags=re.S
            )
        else:
            text = text.rstrip("\n") + "\n\n" + table
        DOC.write_text(text)


if __name__ == "__main__":
    main()
