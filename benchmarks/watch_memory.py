"""What unread watch streams cost: the RSS of a real ``lawspeaker serve`` with many watch streams that
are opened and never read while their sessions keep moving.

    .venv/bin/python benchmarks/watch_memory.py            # 10,000 SSE streams, both stores
    .venv/bin/python benchmarks/watch_memory.py --transport connect,grpc --store memory --append
    .venv/bin/python benchmarks/watch_memory.py --tree /tmp/lawspeaker-base --streams 1000 --append

For each store (in-process, and Redis: a ``redis-server`` of its own on a free port) it runs the
server once with no stream (the control), then once per ``--transport`` with ``--streams`` unread
streams spread over ``--sessions`` sessions (the first two streams of a session watch as its two
seats, the others as spectators), with the same sessions and moves. A stream's cost is the
difference of the RSS figures, taken after every move was made and the server had a moment to
catch up, divided by the streams. Each stream reads the response head and the current version,
then stops reading: an SSE or Connect stream's socket gets a small receive buffer (``--rcvbuf``),
so the server's buffers fill after fewer versions (the worst case for the server, and kind to the
machine's TCP memory). The moves are the same seeded Valhalla game in every session, made over gRPC
one round at a time (every session's next move, then the next round).

The server runs with LAWSPEAKER_HTTP_STALL_SECONDS=0: it keeps the HTTP connections whose client
takes nothing (by default it closes them after a minute), so every stream holds all it may when
the RSS is taken. At the end, ``--check`` streams (the first ones) are read to their end: each must
give consecutive versions from the one it started at, then either go on (it never fell behind) or
end with an error whose reason is WATCH_STREAM_BEHIND; a skipped version is reported. Figures go to
``--out`` (Markdown, default docs/watch-memory.md; ``--append`` adds a section) and to stdout. Not
run by CI.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import datetime
import json
import os
import platform
import random
import re
import resource
import shutil
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2

from lawspeaker.api.rules import RulesApi
from lawspeaker.v1 import game_pb2, session_service_pb2_grpc
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import session_service_pb2 as spb

ROOT = Path(__file__).resolve().parents[1]
# A connection of its own per channel, and HTTP/2 stream windows that stay at 64 KiB (no BDP probe
# growing them), so that an unread gRPC stream's server side fills as soon as it would in practice.
GRPC_CLIENT = [("grpc.use_local_subchannel_pool", 1), ("grpc.http2.bdp_probe", 0)]
SEED = 42
MiB = 1024 * 1024


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def rss(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process, in bytes."""
    found = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M))
    return int(found["VmRSS"]) * 1024, int(found["VmHWM"]) * 1024


def socket_memory(port: int) -> int:
    """Bytes queued in the kernel by the server's sockets on ``port`` (``ss -m``: send and receive)."""
    if shutil.which("ss") is None:
        return -1
    out = subprocess.run(
        ["ss", "-tmnH", "state", "established", f"( sport = :{port} )"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    total = 0
    for mem in re.findall(r"skmem:\(([^)]*)\)", out):
        parts = dict(re.findall(r"([a-z]+)(\d+)", mem))
        total += int(parts.get("r", 0)) + int(parts.get("w", 0))
    return total


def seeded_game(moves: int) -> tuple[list[game_pb2.Move], list[int]]:
    """The first ``moves`` moves of a random Valhalla game from SEED (the server draws the same) and
    the seat making each."""
    api = RulesApi()
    state = api.new_game(pb.NewGameRequest(game="valhalla", players=2, seed=SEED)).state
    chooser = random.Random(SEED)
    out: list[game_pb2.Move] = []
    seats: list[int] = []
    while len(out) < moves:
        listed = api.legal_moves(pb.LegalMovesRequest(game="valhalla", state=state))
        if listed.game_over:
            raise SystemExit(f"the seeded game ends after {len(out)} moves: ask for fewer --moves")
        move = chooser.choice(list(listed.moves))
        out.append(move)
        seats.append(listed.to_act[0] if listed.to_act else 0)
        state = api.apply_move(pb.ApplyMoveRequest(game="valhalla", state=state, move=move)).state
    return out, seats


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A redis-server of this run's own on a free port (no persistence), stopped afterwards."""
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no", "--bind", "127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


class Server:
    """``lawspeaker serve`` from ``tree`` (its ``service`` directory) on free ports."""

    def __init__(self, tree: Path, redis_url: str | None) -> None:
        cmd = [sys.executable, "-m", "lawspeaker", "serve", "--host", "127.0.0.1"]
        cmd += ["--grpc-port", "0", "--http-port", "0"]
        if redis_url:
            cmd += ["--redis-url", redis_url]
        if shutil.which("taskset"):
            cmd = ["taskset", "-c", "0", *cmd]
        # no quota on creating sessions (a tree without quotas ignores these)
        quotas = {"LAWSPEAKER_CREATE_RATE": "0", "LAWSPEAKER_MAX_SESSIONS": "0"}
        # and stalled connections are kept, so that every stream holds all it may at the end
        quotas["LAWSPEAKER_HTTP_STALL_SECONDS"] = "0"
        env = {**os.environ, **quotas, "PYTHONPATH": str(tree / "service")}
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"grpc_port=(\d+) http_port=(\d+)", line)
        if found is None:
            self.stop()
            raise RuntimeError(f"the server did not start: {line!r}")
        self.grpc_port, self.http_port = int(found[1]), int(found[2])

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@dataclass
class Checked:
    read: int = 0  # streams read to their end
    behind: int = 0  # of those, ended with WATCH_STREAM_BEHIND
    going: int = 0  # still open with every version (never fell behind)
    closed: int = 0  # the server closed the connection (or reset it)
    skipped: int = 0  # a version missing, or an unexpected end: must stay 0
    problems: list[str] = field(default_factory=list)


class Stream:
    """One unread watch stream: it has read the current version (``first_etag``) and reads nothing
    more until ``check`` reads it to its end."""

    session = ""
    first_etag = 0

    async def next(self) -> tuple[str, dict[str, Any] | None]:
        """("message", the update as JSON), ("error", the error with its reason), or ("", None)."""
        raise NotImplementedError

    def resume(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    async def check(self, seconds: float) -> tuple[str, str]:
        """Reads the stream to its end: ("behind"|"going"|"skipped", detail)."""
        self.resume()
        expected = self.first_etag + 1
        try:
            while True:
                kind, data = await asyncio.wait_for(self.next(), seconds)
                if data is None:
                    return "skipped", f"{self.session}: ended after etag {expected - 1} with no error"
                if kind == "error":
                    if data.get("reason") == "WATCH_STREAM_BEHIND":
                        return "behind", ""
                    return "skipped", f"{self.session}: error {data}"
                etag = int(data["session"]["etag"])
                if etag != expected:
                    return "skipped", f"{self.session}: etag {etag} after {expected - 1}"
                expected += 1
        except TimeoutError:
            return "going", ""
        except (ConnectionError, asyncio.IncompleteReadError, grpc.aio.AioRpcError):
            return "closed", ""


class Refused(Exception):
    """The server refused a watch (its problem document)."""


class HttpStream(Stream):
    """SSE (``GET /v1/sessions/{id}:watch``) or Connect (``POST .../WatchSession``, JSON envelopes)
    over a raw socket with a small receive buffer, whose reading is paused after the first update."""

    def __init__(self, session: str, connect: bool) -> None:
        self.session, self.connect = session, connect

    async def open(self, port: int, token: str | None, rcvbuf: int) -> HttpStream:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
        self.reader, self.writer = await asyncio.open_connection(sock=sock, limit=1 << 20)
        auth = f"authorization: Bearer {token}\r\n" if token else ""
        if self.connect:
            body = json.dumps({"session": self.session}).encode()
            body = struct.pack(">BI", 0, len(body)) + body
            head = (
                "POST /lawspeaker.v1.SessionService/WatchSession HTTP/1.1\r\nhost: bench\r\n"
                f"content-type: application/connect+json\r\ncontent-length: {len(body)}\r\n{auth}\r\n"
            )
            self.writer.write(head.encode() + body)
        else:
            self.writer.write(
                f"GET /v1/sessions/{self.session}:watch HTTP/1.1\r\nhost: bench\r\n{auth}\r\n".encode()
            )
        await self.writer.drain()
        head_bytes = await self.reader.readuntil(b"\r\n\r\n")
        if b" 200 " not in head_bytes.split(b"\r\n", 1)[0]:
            length = re.search(rb"content-length: (\d+)", head_bytes, re.I)
            body = await self.reader.readexactly(int(length[1])) if length else b""
            self.writer.transport.abort()
            raise Refused(body.decode(errors="replace"))
        kind, data = await self.next()
        assert kind == "message" and data is not None, (kind, data)
        self.first_etag = int(data["session"]["etag"])
        self.writer.transport.pause_reading()  # from here on, this client reads nothing
        return self

    async def _chunk(self) -> bytes | None:
        size_line = await self.reader.readline()
        size = int(size_line.strip() or b"0", 16) if size_line else 0
        if size == 0:
            return None
        return (await self.reader.readexactly(size + 2))[:-2]

    async def next(self) -> tuple[str, dict[str, Any] | None]:
        if self.connect:
            chunk = await self._chunk()
            if chunk is None:
                return "", None
            flags, size = struct.unpack(">BI", chunk[:5])
            assert len(chunk) == 5 + size, "one envelope per chunk"
            data = json.loads(chunk[5:])
            if flags & 2:  # end of stream
                if "error" not in data:
                    return "", None
                reason = ""
                for detail in data["error"].get("details", []):
                    if detail.get("type") == "google.rpc.ErrorInfo":
                        raw = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
                        reason = error_details_pb2.ErrorInfo.FromString(raw).reason
                return "error", {"reason": reason, **data["error"]}
            return "message", data
        kind, text = "", ""
        while True:
            chunk = await self._chunk()
            if chunk is None:
                return "", None
            for line in chunk.decode().split("\n"):
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:"):
                    text += line[5:].strip()
            if kind and text:
                return kind, json.loads(text)

    def resume(self) -> None:
        self.writer.transport.resume_reading()

    def close(self) -> None:
        self.writer.transport.abort()


class GrpcStream(Stream):
    """WatchSession over a grpc.aio channel shared with other streams; after the first update the
    call is not read (its messages wait in the client's gRPC buffers up to the stream's window)."""

    def __init__(self, session: str) -> None:
        self.session = session

    async def open(self, channel: grpc.aio.Channel, token: str | None) -> GrpcStream:
        stub = session_service_pb2_grpc.SessionServiceStub(channel)
        metadata = (("authorization", f"Bearer {token}"),) if token else None
        self.call = stub.WatchSession(spb.WatchSessionRequest(session=self.session), metadata=metadata)
        kind, data = await self.next()
        if kind == "error":
            self.call.cancel()
            raise Refused(json.dumps(data))
        assert kind == "message" and data is not None, (kind, data)
        self.first_etag = int(data["session"]["etag"])
        return self

    async def next(self) -> tuple[str, dict[str, Any] | None]:
        try:
            got = await self.call.read()
        except grpc.aio.AioRpcError as err:
            reason = ""
            for key, value in err.trailing_metadata() or ():
                if key == "grpc-status-details-bin":
                    for detail in status_pb2.Status.FromString(value).details:
                        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                            info = error_details_pb2.ErrorInfo()
                            detail.Unpack(info)
                            reason = info.reason
            return "error", {"reason": reason, "code": err.code().name, "details": err.details()}
        if got is grpc.aio.EOF:
            return "", None
        assert isinstance(got, spb.WatchSessionResponse)
        return "message", {"session": {"etag": got.session.etag}}

    def resume(self) -> None:
        pass

    def close(self) -> None:
        self.call.cancel()


async def play(grpc_port: int, sessions: list[tuple[str, list[str]]], moves: int, concurrency: int) -> float:
    """Every session makes the seeded game's moves, one round at a time; the seconds it took."""
    game, seats = seeded_game(moves)
    etags = {s: "1" for s, _ in sessions}
    started = time.perf_counter()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
        stub = session_service_pb2_grpc.SessionServiceStub(channel)
        gate = asyncio.Semaphore(concurrency)

        async def one(session: str, tokens: list[str], i: int) -> None:
            async with gate:
                done = await stub.SessionApplyMove(
                    spb.SessionApplyMoveRequest(session=session, move=game[i], etag=etags[session]),
                    metadata=(("authorization", f"Bearer {tokens[seats[i]]}"),),
                )
                etags[session] = done.session.etag

        for i in range(moves):
            await asyncio.gather(*(one(s, t, i) for s, t in sessions))
    return time.perf_counter() - started


@dataclass
class Run:
    store: str
    transport: str
    refusals: list[str] = field(repr=False)  # watches refused (and tried again) while opening
    streams: int
    rss_idle: int
    rss_sessions: int
    rss_streams: int
    rss_end: int
    hwm: int
    kernel: int
    seconds: float
    checked: Checked


async def run_once(
    tree: Path,
    redis_url: str | None,
    transport: str,
    streams: int,
    n_sessions: int,
    moves: int,
    args: argparse.Namespace,
) -> Run:
    server = Server(tree, redis_url)
    pid = server.proc.pid
    opened: list[Stream] = []
    channels: list[grpc.aio.Channel] = []
    try:
        await asyncio.sleep(1)
        idle = rss(pid)[0]
        sessions: list[tuple[str, list[str]]] = []
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
            stub = session_service_pb2_grpc.SessionServiceStub(channel)
            for _ in range(n_sessions):
                made = await stub.CreateSession(
                    spb.CreateSessionRequest(game="valhalla", players=2, seed=SEED)
                )
                sessions.append((made.session.session, [t.token for t in made.seat_tokens]))
        after_sessions = rss(pid)[0]
        gate = asyncio.Semaphore(64)

        if transport == "grpc":
            target = f"127.0.0.1:{server.grpc_port}"
            count = -(-streams // args.per_channel)
            channels = [grpc.aio.insecure_channel(target, options=GRPC_CLIENT) for _ in range(count)]

        refusals: list[str] = []

        async def open_one(i: int) -> Stream:
            session, tokens = sessions[i % n_sessions]
            seat = i // n_sessions
            token = tokens[seat] if seat < 2 else None
            async with gate:
                for attempt in range(5):
                    try:
                        return await open_stream(session, token, i)
                    except Refused as err:  # as a client would, watch again a little later
                        refusals.append(str(err))
                        await asyncio.sleep(0.5 * (attempt + 1))
                return await open_stream(session, token, i)

        async def open_stream(session: str, token: str | None, i: int) -> Stream:
            if transport == "grpc":
                return await GrpcStream(session).open(channels[i // args.per_channel], token)
            http = HttpStream(session, connect=transport == "connect")
            return await http.open(server.http_port, token, args.rcvbuf)

        opened = list(await asyncio.gather(*(open_one(i) for i in range(streams))))
        await asyncio.sleep(1)
        after_streams = rss(pid)[0]
        seconds = await play(server.grpc_port, sessions, moves, args.concurrency)
        await asyncio.sleep(args.settle)
        end, hwm = rss(pid)
        kernel = socket_memory(server.grpc_port if transport == "grpc" else server.http_port)
        if args.hold:
            print(f"holding: server pid {pid}, http port {server.http_port}", flush=True)
            await asyncio.sleep(args.hold)
        checked = Checked()
        results = await asyncio.gather(*(stream.check(5.0) for stream in opened[: args.check]))
        for outcome, detail in results:
            checked.read += 1
            if outcome == "behind":
                checked.behind += 1
            elif outcome == "going":
                checked.going += 1
            elif outcome == "closed":
                checked.closed += 1
            else:
                checked.skipped += 1
                checked.problems.append(detail)
        store = "redis" if redis_url else "memory"
        return Run(
            store,
            transport,
            refusals,
            streams,
            idle,
            after_sessions,
            after_streams,
            end,
            hwm,
            kernel,
            seconds,
            checked,
        )
    finally:
        for stream in opened:
            stream.close()
        for channel in channels:
            await channel.close()
        server.stop()


def mib(n: int) -> str:
    return f"{n / MiB:,.1f}"


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--streams", type=int, default=10_000)
    p.add_argument("--sessions", type=int, default=1_000)
    p.add_argument("--moves", type=int, default=200, help="moves made in every session")
    p.add_argument("--store", choices=["memory", "redis", "both"], default="both")
    p.add_argument("--transport", default="sse", help="sse, connect, grpc or several, comma-separated")
    p.add_argument("--per-channel", type=int, default=100, help="gRPC streams per client connection")
    p.add_argument("--tree", type=Path, default=ROOT, help="the source tree to serve (its service/)")
    p.add_argument("--rcvbuf", type=int, default=4096, help="SO_RCVBUF of each unread stream's socket")
    p.add_argument("--concurrency", type=int, default=32, help="moves in flight")
    p.add_argument("--settle", type=float, default=5.0, help="seconds between the last move and the RSS")
    p.add_argument("--check", type=int, default=500, help="streams read to their end afterwards")
    p.add_argument("--hold", type=float, default=0.0, help="seconds to wait before reading (to look)")
    p.add_argument("--no-control", action="store_true", help="skip the run without streams")
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "watch-memory.md")
    p.add_argument("--append", action="store_true", help="add this run's section to --out")
    args = p.parse_args()
    transports = [t.strip() for t in args.transport.split(",") if t.strip()]
    if not transports or set(transports) - {"sse", "connect", "grpc"}:
        p.error("--transport: sse, connect or grpc, comma-separated")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.streams + 1000)), hard))
    kinds = ["memory", "redis"] if args.store == "both" else [args.store]
    rows: list[tuple[Run, Run | None]] = []
    for kind in kinds:
        control = None
        if not args.no_control:
            with contextlib.ExitStack() as stack:
                url = stack.enter_context(redis_server()) if kind == "redis" else None
                control = await run_once(args.tree, url, "none", 0, args.sessions, args.moves, args)
                print(control, flush=True)
        for transport in transports:
            with contextlib.ExitStack() as stack:
                url = stack.enter_context(redis_server()) if kind == "redis" else None
                measured = await run_once(
                    args.tree, url, transport, args.streams, args.sessions, args.moves, args
                )
                print(measured, flush=True)
            rows.append((measured, control))
    lines = report(rows, args)
    print("\n".join(lines))
    if args.append and args.out.exists():
        lines = [args.out.read_text().rstrip("\n"), "", *lines[2:]]
    args.out.write_text("\n".join(lines) + "\n")


NAMES = {"sse": "SSE", "connect": "Connect (JSON)", "grpc": "gRPC"}


def report(rows: list[tuple[Run, Run | None]], args: argparse.Namespace) -> list[str]:
    """The Markdown: a title, then this run's section (what ``--append`` adds)."""
    tree = "this tree" if args.tree.resolve() == ROOT else f"`{args.tree}`"
    kinds = sorted({run.store for run, _ in rows}, reverse=True)  # memory, redis
    lines = [
        "# Unread watch streams: memory",
        "",
        f"## {args.streams:,} streams, {args.moves} moves: {', '.join(kinds)}, "
        f"{', '.join(NAMES[r.transport] for r, _ in rows[: len(rows) // len(kinds)])}; serving {tree}",
        "",
        f"Written by `benchmarks/watch_memory.py` on {datetime.date.today()} ({platform.machine()}, "
        f"Python {platform.python_version()}). {args.streams:,} watch streams over "
        f"{args.sessions:,} Valhalla sessions (two seats and "
        f"{max(0, args.streams // args.sessions - 2)} spectators each), opened and never read past the "
        f"current version; then {args.moves} moves in every session. SSE and Connect streams have a "
        f"connection each (client SO_RCVBUF {args.rcvbuf:,} bytes); gRPC streams share a connection "
        f"per {args.per_channel} (HTTP/2 windows of 64 KiB). RSS of the `lawspeaker serve` process in "
        "MiB; the control run makes the same sessions and moves with no stream; the streams' cost is "
        "the RSS after the moves less the control's. Kernel: the bytes queued in the server's sockets "
        "of that transport (`ss -m`), which RSS does not count.",
        "",
        "| store | transport | RSS idle | + sessions | + streams opened | after the moves | peak "
        "| control after the moves | streams' cost | per stream (KiB) | kernel queues (MiB) "
        "| moves/s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run, control in rows:
        base = control.rss_end if control is not None else run.rss_streams
        cost = run.rss_end - base
        per = cost / run.streams / 1024 if run.streams else 0.0
        rate = args.sessions * args.moves / run.seconds
        lines.append(
            f"| {run.store} | {NAMES[run.transport]} | {mib(run.rss_idle)} | {mib(run.rss_sessions)} | "
            f"{mib(run.rss_streams)} | {mib(run.rss_end)} | {mib(run.hwm)} | "
            f"{mib(control.rss_end) if control else '-'} | {mib(cost)} | {per:,.1f} | "
            f"{mib(run.kernel) if run.kernel >= 0 else '-'} | {rate:,.0f} |"
        )
    lines += ["", "Streams read to their end afterwards (the first ones opened):", ""]
    lines += [
        "| store | transport | read | ended WATCH_STREAM_BEHIND | still going, every version "
        "| connection closed | skipped a version |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for run, _ in rows:
        c = run.checked
        lines.append(
            f"| {run.store} | {NAMES[run.transport]} | {c.read} | {c.behind} | {c.going} | {c.closed} "
            f"| {c.skipped} |"
        )
        lines += [f"  - {problem}" for problem in c.problems[:5]]
    for run, _ in rows:
        if run.refusals:
            reasons = sorted(
                {json.loads(r).get("reason", r) if r.startswith("{") else r for r in run.refusals}
            )
            lines += [
                "",
                f"{run.store}, {NAMES[run.transport]}: {len(run.refusals)} watches were refused while "
                f"the streams were being opened, and watched again ({', '.join(reasons)}).",
            ]
    return lines


if __name__ == "__main__":
    asyncio.run(main())
