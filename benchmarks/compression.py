"""Compression: REST ApplyMove with and without ``Accept-Encoding`` on the same servers, in one run.

    .venv/bin/python benchmarks/compression.py            # measure and print the section
    .venv/bin/python benchmarks/compression.py --write    # and put it in docs/benchmarks.md

Two ``lawspeaker serve`` processes pinned to CPU 0 (one at a time under load), wrk pinned to CPU 1 as
in ``e2e.py``: one with the default ``--compress-min-bytes`` (``lawspeaker.http.compression``), one
with ``--compress-min-bytes 1``, which compresses ApplyMove's answer too. Each sends the benchmark's
ApplyMove with no ``Accept-Encoding``, with ``gzip`` and with ``br``, in alternating rounds, so that
a slow spell of the shared machine falls on every load alike. Next to the rates: the bytes of each
answer, what compressing one costs in this process, the sizes of the hot path's answers across the
games (which the threshold must stay above), and the large reads compression is for.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec
from google.protobuf import json_format

sys.path.insert(0, str(Path(__file__).parent))

from e2e import Load, Server, combine, mid_game_request, wrk

from lawspeaker.api.rules import RulesApi
from lawspeaker.http import compression
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire import protojson
from lawspeaker.wire.registry import REGISTRY

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
HEADING = "## Compression: REST ApplyMove with and without Accept-Encoding"
ROUNDS = 30
CODINGS = {"none": None, "gzip": "gzip", "br": "br"}
LARGE_READS = ("/v1/games/pax_viking_junior", "/schema")


def lua(body: bytes, accept: str | None) -> str:
    """A wrk script POSTing ``body`` as JSON, asking for ``accept`` (None: no Accept-Encoding)."""
    escaped = body.decode().replace("\\", "\\\\").replace('"', '\\"')
    lines = [
        'wrk.method = "POST"',
        f'wrk.body = "{escaped}"',
        'wrk.headers["Content-Type"] = "application/json"',
    ]
    if accept is not None:
        lines.append(f'wrk.headers["Accept-Encoding"] = "{accept}"')
    return "\n".join(lines) + "\n"


def answer_bytes(url: str, body: bytes, accept: str | None) -> tuple[int, str]:
    """The bytes of one answer as sent, and its Content-Encoding ("" for none)."""
    headers = {"content-type": "application/json", "accept-encoding": accept or "identity"}
    with httpx.Client(timeout=30) as client:
        request = client.build_request("POST", url, content=body, headers=headers)
        if accept is None:
            del request.headers["accept-encoding"]
        response = client.send(request, stream=True)
        raw = b"".join(response.iter_raw())
        response.close()
    assert response.status_code == 200, response.status_code
    return len(raw), response.headers.get("content-encoding", "")


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system, every thread) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def per_call_us(f: Callable[[], object], n: int = 2000) -> float:
    """Microseconds per call, best of five rounds."""
    for _ in range(n // 4):
        f()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, (time.perf_counter() - start) / n)
    return best * 1e6


def middleware_us(size: int) -> dict[str, float]:
    """Microseconds the compression middleware adds to a request whose answer has ``size`` bytes
    (under the threshold), by its Accept-Encoding, over an ASGI app that only answers."""
    body = b"x" * size
    headers = [(b"content-type", b"application/json"), (b"content-length", str(size).encode())]

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": list(headers)})
        await send({"type": "http.response.body", "body": body})

    async def send(message: Any) -> None:
        return None

    async def receive() -> dict[str, Any]:
        return {}

    wrapped = compression.http_middleware()(app)

    def scope(accept: bytes | None) -> dict[str, Any]:
        headers = [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")]
        headers += [(b"accept-encoding", accept)] if accept is not None else []
        return {"type": "http", "method": "POST", "headers": headers}

    async def per_call(asgi: Any, sc: dict[str, Any], n: int = 20000) -> float:
        best = float("inf")
        for _ in range(5):
            began = time.perf_counter()
            for _ in range(n):
                await asgi(sc, receive, send)
            best = min(best, (time.perf_counter() - began) / n)
        return best * 1e6

    async def run() -> dict[str, float]:
        asking = {"none": None, "gzip": b"gzip", "a browser's": b"gzip, deflate, br, zstd"}
        best = dict.fromkeys(asking, float("inf"))
        for _ in range(3):  # interleaved, the best of each: the machine is shared
            bare = await per_call(app, scope(None))
            for label, accept in asking.items():
                best[label] = min(best[label], await per_call(wrapped, scope(accept)) - bare)
        return best

    return asyncio.run(run())


def hot_path_sizes(plies: int = 300, seed: int = 7) -> dict[str, tuple[int, int]]:
    """Per game, the largest and the median JSON answer of ApplyMove over ``plies`` random plies of
    a seeded game (each answer carries the new state, which is most of it)."""
    api = RulesApi()
    out: dict[str, tuple[int, int]] = {}
    for game_id, entry in sorted(REGISTRY.items()):
        players = int(entry.game.min_players)
        chooser = random.Random(seed)
        state = api.new_game(pb.NewGameRequest(game=game_id, players=players, seed=seed)).state
        sizes = []
        for _ in range(plies):
            moves = list(api.legal_moves(pb.LegalMovesRequest(game=game_id, state=state)).moves)
            if not moves:
                break
            answer = api.apply_move(
                pb.ApplyMoveRequest(game=game_id, state=state, move=chooser.choice(moves))
            )
            sizes.append(len(msgspec.json.encode(protojson.to_dict(answer))))
            if answer.game_over:
                break
            state = answer.state
        sizes.sort()
        out[game_id] = (sizes[-1], sizes[len(sizes) // 2])
    return out


def large_reads(base: str) -> list[tuple[str, int, int, int]]:
    """(path, identity bytes, gzip bytes, br bytes) of the reads compression is for."""
    out = []
    with httpx.Client(base_url=base, timeout=30) as client:
        paths = [*LARGE_READS]
        page = client.get("/play")
        script = re.search(r'src="([^"]+\.js)"', page.text) if page.status_code == 200 else None
        if script is not None:
            src = script.group(1)
            paths.append(src if src.startswith("/") else f"/play/{src}")
        for path in paths:
            sizes: list[int] = []
            for accept in ("identity", "gzip", "br"):
                response = client.send(
                    client.build_request("GET", path, headers={"accept-encoding": accept}), stream=True
                )
                sizes.append(len(b"".join(response.iter_raw())))
                response.close()
            out.append((path, sizes[0], sizes[1], sizes[2]))
    return out


def measure(seconds: int, rounds: int) -> dict[str, object]:
    request = mid_game_request()
    body = json_format.MessageToJson(request, indent=None).encode()
    each = max(1, round(seconds / rounds))
    servers = {"default": Server(), "all": Server(["--compress-min-bytes", "1"])}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            runs: dict[str, Callable[[], Load]] = {}
            pids: dict[str, int] = {}
            sizes: dict[str, tuple[int, str]] = {}
            for which, server in servers.items():
                url = f"http://127.0.0.1:{server.http_port}/v1/games/valhalla:applyMove"
                for label, accept in CODINGS.items():
                    script = Path(tmp) / f"{which}-{label}.lua"
                    script.write_text(lua(body, accept))
                    name = f"{which} {label}"
                    sizes[name] = answer_bytes(url, body, accept)
                    runs[name] = functools.partial(wrk, "", url, each, None, script=script)
                    pids[name] = server.proc.pid
                    wrk("warm-up", url, 1, None, script=script)
            names = list(runs)
            per_round: dict[str, list[Load]] = {name: [] for name in names}
            cpu: dict[str, list[float]] = {name: [] for name in names}  # server CPU us per request
            for i in range(rounds):  # each round starts with the next load (observability.rotate)
                for name in names[i % len(names) :] + names[: i % len(names)]:
                    before = cpu_seconds(pids[name])
                    load = runs[name]()
                    per_round[name].append(load)
                    cpu[name].append((cpu_seconds(pids[name]) - before) / (load.rps * each) * 1e6)
            loads = {name: combine(name, got) for name, got in per_round.items()}
        reads = large_reads(f"http://127.0.0.1:{servers['default'].http_port}")
    finally:
        for server in servers.values():
            server.stop()
    ratios = {  # each load's requests/s over the same server's "none" in the same round
        name: sorted(r.rps / n.rps for r, n in zip(got, per_round[f"{name.split()[0]} none"], strict=True))
        for name, got in per_round.items()
    }
    answer = msgspec.json.encode(protojson.to_dict(RulesApi().apply_move(request)))
    cost = {
        coding: per_call_us(functools.partial(compression.compress, answer, coding))
        for coding in ("gzip", "br")
    }
    return {
        "loads": loads,
        "ratios": ratios,
        "cpu": {name: sorted(got)[len(got) // 2] for name, got in cpu.items()},
        "cpu_more": {  # per round, each load's CPU per request over the same server's "none" in that round
            name: sorted(c - n for c, n in zip(got, cpu[f"{name.split()[0]} none"], strict=True))
            for name, got in cpu.items()
        },
        "middleware": middleware_us(len(answer)),
        "sizes": sizes,
        "answer": len(answer),
        "cost": cost,
        "hot": hot_path_sizes(),
        "reads": reads,
        "rounds": rounds,
        "each": each,
    }


def section(got: dict[str, object]) -> str:
    loads: dict[str, Load] = got["loads"]  # type: ignore[assignment]
    ratios: dict[str, list[float]] = got["ratios"]  # type: ignore[assignment]
    cpu: dict[str, float] = got["cpu"]  # type: ignore[assignment]
    paired: dict[str, list[float]] = got["cpu_more"]  # type: ignore[assignment]
    added: dict[str, float] = got["middleware"]  # type: ignore[assignment]
    sizes: dict[str, tuple[int, str]] = got["sizes"]  # type: ignore[assignment]
    cost: dict[str, float] = got["cost"]  # type: ignore[assignment]
    hot: dict[str, tuple[int, int]] = got["hot"]  # type: ignore[assignment]
    reads: list[tuple[str, int, int, int]] = got["reads"]  # type: ignore[assignment]
    threshold = compression.DEFAULT_MIN_BYTES
    lines = [
        HEADING,
        "",
        f"`benchmarks/compression.py`: two `lawspeaker serve` processes pinned to CPU 0 (one under load at "
        f"a time), wrk on CPU 1 (16 connections, keep-alive), the end-to-end benchmark's Valhalla "
        f"ApplyMove; {got['rounds']} alternating rounds of {got['each']} s per load, each round starting "
        f"with the next load. One server has the default `--compress-min-bytes {threshold}`, the other "
        "`--compress-min-bytes 1`, so that it compresses ApplyMove's answer as well. The server's CPU time "
        "per request (from /proc, every thread, the median of the rounds) is the figure to read: it does "
        "not move when other work on the shared machine slows a round down, as requests/s does. Requests/s "
        "are the mean over the rounds, next to the median over the rounds of each load's rate divided by "
        "the same server's rate without Accept-Encoding in that round (its range in brackets). Bytes are "
        "one answer as sent.",
        "",
        "| server | Accept-Encoding | server CPU us / request | requests/s | vs none, per round: "
        "median (range) | p50 ms | p99 ms | answer bytes (coding) | errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, load in loads.items():
        which, label = name.split(" ", 1)
        server = f"--compress-min-bytes {threshold}" if which == "default" else "--compress-min-bytes 1"
        size, coding = sizes[name]
        r = ratios[name]
        lines.append(
            f"| {server} | {label} | {cpu[name]:.0f} | {load.rps:,.0f} | {r[len(r) // 2]:.2f}x "
            f"({r[0]:.2f}-{r[-1]:.2f}) | {load.p50_ms:.2f} | {load.p99_ms:.2f} | {size:,} "
            f"({coding or 'identity'}) | {load.errors} |"
        )

    def more(name: str) -> str:
        """The CPU per request ``name`` costs over the same server's request without Accept-Encoding
        in the same round: the median over the rounds, and the middle half of them."""
        got = paired[name]
        n = len(got)
        base = cpu[f"{name.split()[0]} none"]
        return (
            f"{got[n // 2]:+.0f} us ({got[n // 2] / base:+.0%}; half the rounds between "
            f"{got[n // 4]:+.0f} and {got[(3 * n) // 4]:+.0f} us)"
        )

    lines += [
        "",
        f"ApplyMove answers with {got['answer']:,} bytes. With the default threshold it stays uncompressed: "
        f"asking for gzip costs the server {more('default gzip')} of CPU per request, asking for br "
        f"{more('default br')}, against asking for nothing in the same round; what the middleware adds "
        "to such a request, "
        "timed in this process over an ASGI app that only answers, is "
        + ", ".join(
            f"{us:.1f} us "
            + ("without Accept-Encoding" if label == "none" else f"with {label} Accept-Encoding")
            for label, us in added.items()
        )
        + " (it reads the header, finds the answer short and adds `Vary`), the same whatever the client "
        "asks: differences of a few us between the rows of one server are the noise of the shared machine "
        "(the two servers' rows without Accept-Encoding run the same code). Compressing the answer every "
        f"time (`--compress-min-bytes 1`) costs {more('all gzip')} "
        f"with gzip (level {compression.GZIP_LEVEL}) and {more('all br')} with br (quality "
        f"{compression.BROTLI_QUALITY}) to save {sizes['all none'][0] - sizes['all gzip'][0]:,} and "
        f"{sizes['all none'][0] - sizes['all br'][0]:,} bytes; compressing it alone takes "
        f"{cost['gzip']:.0f} us and {cost['br']:.0f} us in this process.",
        "",
        f"**The threshold, {threshold} bytes.** It must stay above the hot path's answers, which carry the "
        "new state: the largest and the median ApplyMove answer over 300 random plies (or to the end) "
        "of a seeded game (a session move's answer is the same state with the session's few fields):",
        "",
        "| game | largest ApplyMove answer, bytes | median |",
        "|---|---:|---:|",
        *(f"| {game} | {largest:,} | {median:,} |" for game, (largest, median) in hot.items()),
        "",
        "Above it are the reads compression is for, each once per client: a game's description, "
        "`/schema`, the web app's bundle (those three compressed once per process and kept), and long "
        "answers such as a session's move list, compressed per request:",
        "",
        "| GET | identity bytes | gzip | br |",
        "|---|---:|---:|---:|",
        *(f"| `{path}` | {plain:,} | {g:,} | {b:,} |" for path, plain, g, b in reads),
        "",
        "Over a real network these pay back at once (58 KB sent as 12 KB saves about 4 ms at 100 Mbit/s, "
        "and they are compressed once); a 1-3 KB answer saves under 2 KB, a fraction of one packet, for "
        "the CPU the table shows on every request. `--compress-min-bytes` (env "
        "`LAWSPEAKER_COMPRESS_MIN_BYTES`) moves the threshold.",
    ]
    return "\n".join(lines) + "\n"


def write_section(text: str) -> None:
    """Put the section in docs/benchmarks.md in place of the last one, else before the bots' sections
    (``benchmarks/run.py`` keeps it: its heading starts with one of run.py's ``OTHERS``)."""
    doc = DOC.read_text()
    if HEADING in doc:
        doc = re.sub(re.escape(HEADING) + r".*?(?=\n## |\Z)", text.rstrip("\n") + "\n", doc, flags=re.S)
    elif "\n## Bots" in doc:
        at = doc.index("\n## Bots") + 1
        doc = doc[:at] + text.rstrip("\n") + "\n\n" + doc[at:]
    else:
        doc = doc.rstrip("\n") + "\n\n" + text
    DOC.write_text(doc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=60, help="seconds of load per load, over all rounds")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--write", action="store_true", help=f"write the section to {DOC}")
    args = parser.parse_args()
    text = section(measure(args.seconds, args.rounds))
    print(text)
    if args.write:
        write_section(text)


if __name__ == "__main__":
    main()
