"""Slow and stuck clients: watch streams that are opened and never read.

What an unread stream may make the server hold is bounded (README, "Game sessions"): its watcher
queue (WATCH_BACKLOG versions or WATCH_BYTES bytes, in either store), a version or two on their way,
the HTTP transport's buffer and the socket's send buffer (``lawspeaker.http.limits``). Past that its
stream ends with WATCH_STREAM_BEHIND after the versions it has (none skipped), a stream counts
against the watch limit until its client lets it go, and an HTTP connection whose client takes
nothing for ``stall_seconds`` is closed. Meanwhile the other calls keep answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import secrets
import socket
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import httpx
import pytest
from transport.conftest import Servers, run_servers

from lawspeaker.api.rules import RulesApi
from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.http.limits import STALL_SECONDS, http_protocol
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import (
    WATCH_BYTES,
    MemoryStore,
    RedisStore,
    SessionKey,
    SessionStore,
    Write,
    WriteStatus,
)
from lawspeaker.v1 import game_pb2, session_service_pb2_grpc
from lawspeaker.v1 import rules_service_pb2 as rpb
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import REDIS_UP, REDIS_URL, delete_prefix

pytestmark = [pytest.mark.sessions]

SEED = 42
RECORD = b"r" * 1000  # a version's record as the tests below write it


def store_of(kind: str, prefix: str, **kw: Any) -> SessionStore:
    if kind == "memory":
        return MemoryStore(**kw)
    return RedisStore(REDIS_URL, prefix=prefix, **kw)


async def write_versions(store: SessionStore, key: SessionKey, rev: int, count: int) -> int:
    """``count`` new versions of RECORD after revision ``rev``; the last revision."""
    for _ in range(count):
        written = await store.write(key, Write(expected_rev=rev, data=RECORD))
        assert written.status is WriteStatus.WRITTEN
        rev += 1
        await asyncio.sleep(0)  # a watcher that reads gets its turn
    return rev


async def keep_up(updates: Any, last: int) -> None:
    """Reads a subscription until revision ``last``: then every watcher of the session has had every
    message published before it (the Redis watchers get each message in one go)."""
    async for note in updates:
        if int(note.partition(b":")[0]) == last:
            return


async def drain(updates: Any) -> tuple[list[bytes], LawspeakerError | None]:
    """What an unread subscription had waiting, and the error that ended it (None: it did not end)."""
    got: list[bytes] = []
    try:
        while True:
            got.append(await asyncio.wait_for(anext(updates), 2))
    except LawspeakerError as err:
        return got, err
    except TimeoutError:
        return got, None


def test_an_unread_watcher_holds_at_most_its_byte_budget_then_ends_behind(
    store_kind: str, redis_prefix: str
) -> None:
    """400 versions of a 1 KB record are written while a watcher reads nothing: it holds at most
    WATCH_BYTES of them (counting versions would let it hold 256 KB), then the end of its stream;
    the versions it has are consecutive, and a watcher that reads gets every one."""

    async def main() -> None:
        store = store_of(store_kind, redis_prefix)
        key = SessionKey(f"valhalla.{secrets.token_hex(4)}", "test")
        try:
            await store.create(key, RECORD)
            async with store.subscribe(key) as unread, store.subscribe(key) as reading:
                reader = asyncio.create_task(keep_up(reading, 401))
                await write_versions(store, key, 1, 400)
                await asyncio.wait_for(reader, 10)
                got, ended = await drain(unread)
            assert ended is not None, f"the unread watcher held all {len(got)} versions"
            assert ended.code is ErrorCode.UNAVAILABLE and ended.reason == "WATCH_STREAM_BEHIND"
            assert [int(m.partition(b":")[0]) for m in got] == list(range(2, 2 + len(got)))
            held = sum(len(m) for m in got)
            assert held <= WATCH_BYTES, f"{len(got)} versions, {held} bytes"
            assert held >= WATCH_BYTES // 2  # the budget, not some far smaller limit
            assert f"fell {len(got)} versions behind" in ended.message
        finally:
            await store.close()

    asyncio.run(main())


def test_a_stream_that_fell_behind_counts_against_the_watch_limit_until_it_leaves(
    store_kind: str, redis_prefix: str
) -> None:
    """A stuck client's stream, ended but not yet let go, still holds what it buffered: it keeps its
    place under the limit (so the limit caps what unread streams hold) until its client leaves."""

    async def main() -> None:
        store = store_of(store_kind, redis_prefix, max_watchers=2, watch_bytes=4096)
        key = SessionKey(f"valhalla.{secrets.token_hex(4)}", "test")
        try:
            await store.create(key, RECORD)
            async with store.subscribe(key) as stuck:
                async with store.subscribe(key) as reading:
                    await asyncio.gather(keep_up(reading, 21), write_versions(store, key, 1, 20))
                got, ended = await drain(stuck)
                assert ended is not None and ended.reason == "WATCH_STREAM_BEHIND"
                assert 0 < len(got) < 20
                async with store.subscribe(key):  # the reader's place is free again
                    with pytest.raises(LawspeakerError) as refused:
                        async with store.subscribe(key):
                            pass
                    assert refused.value.reason == "WATCH_LIMIT"
            async with store.subscribe(key), store.subscribe(key):  # the stuck one left
                pass
        finally:
            await store.close()

    asyncio.run(main())


# --------------------------------------------------------------------------- over real servers


def seeded_game(moves: int) -> list[tuple[game_pb2.Move, int]]:
    """The first ``moves`` moves of a random Valhalla game from SEED, each with the seat making it
    (a session created with the same seed draws the same)."""
    api = RulesApi()
    state = api.new_game(rpb.NewGameRequest(game="valhalla", players=2, seed=SEED)).state
    chooser = random.Random(SEED)
    out = []
    for _ in range(moves):
        listed = api.legal_moves(rpb.LegalMovesRequest(game="valhalla", state=state))
        assert not listed.game_over
        move = chooser.choice(list(listed.moves))
        out.append((move, listed.to_act[0] if listed.to_act else 0))
        state = api.apply_move(rpb.ApplyMoveRequest(game="valhalla", state=state, move=move)).state
    return out


class UnreadSse:
    """A watch stream over SSE, on a socket with a small receive buffer, that reads the response
    head and the current version and then nothing until ``read_to_end``."""

    def __init__(self, port: int, session: str, token: str | None = None) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.settimeout(10)
        self.sock.connect(("127.0.0.1", port))
        auth = f"authorization: Bearer {token}\r\n" if token else ""
        self.sock.sendall(f"GET /v1/sessions/{session}:watch HTTP/1.1\r\nhost: test\r\n{auth}\r\n".encode())
        self.buf = b""
        self.received = 0  # bytes
        while b"\r\n\r\n" not in self.buf:
            self._recv()
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head
        kind, data = self.next_event()
        assert kind == "message" and data is not None
        self.etag = int(data["session"]["etag"])
        self.opened = self.received  # bytes read when it stopped reading

    def _recv(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise EOFError
        self.buf += data
        self.received += len(data)

    def _chunk(self) -> bytes | None:
        while b"\r\n" not in self.buf:
            self._recv()
        size_line, _, self.buf = self.buf.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            return None
        while len(self.buf) < size + 2:
            self._recv()
        chunk, self.buf = self.buf[:size], self.buf[size + 2 :]
        return chunk

    def next_event(self) -> tuple[str, dict[str, Any] | None]:
        kind, text = "", ""
        while not (kind and text):
            chunk = self._chunk()
            if chunk is None:
                return "", None
            for line in chunk.decode().splitlines():
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:"):
                    text += line[5:].strip()
        return kind, json.loads(text)

    def read_to_end(self) -> tuple[list[int], dict[str, Any] | None]:
        """The etags of the versions it had waiting, and the error event that ended it (None when
        the stream went quiet for 3 s without one)."""
        self.sock.settimeout(3)
        etags = []
        try:
            while True:
                kind, data = self.next_event()
                if data is None or kind == "error":
                    return etags, data
                etags.append(int(data["session"]["etag"]))
        except TimeoutError:
            return etags, None

    def close(self) -> None:
        self.sock.close()


class Running:
    def __init__(self, servers: Servers, api: Callable[[], SessionApi]) -> None:
        self.servers = servers
        self.api = api
        self.channel = grpc.insecure_channel(f"127.0.0.1:{servers.grpc_port}")
        self.sessions = session_service_pb2_grpc.SessionServiceStub(self.channel)
        self.http = httpx.Client(base_url=servers.base_url, timeout=30)

    def create(self) -> tuple[str, list[str]]:
        made = self.sessions.CreateSession(spb.CreateSessionRequest(game="valhalla", players=2, seed=SEED))
        return made.session.session, [t.token for t in made.seat_tokens]

    def play(self, sessions: list[tuple[str, list[str]]], moves: list[tuple[game_pb2.Move, int]]) -> None:
        """Every session makes ``moves``, one round at a time."""
        etags = dict.fromkeys((s for s, _ in sessions), "1")
        for move, seat in moves:
            for session, tokens in sessions:
                done = self.sessions.SessionApplyMove(
                    spb.SessionApplyMoveRequest(session=session, move=move, etag=etags[session]),
                    metadata=(("authorization", f"Bearer {tokens[seat]}"),),
                )
                etags[session] = done.session.etag

    def close(self) -> None:
        self.http.close()
        self.channel.close()


@contextlib.contextmanager
def serving(kind: str, **kw: Any) -> Iterator[Running]:
    """Both servers on loopback with SessionService over a store of ``kind``; ``kw`` goes to the
    store, or to the HTTP send limits for ``stall_seconds``."""
    if kind == "redis" and not REDIS_UP:
        pytest.skip(f"no Redis at {REDIS_URL}")
    prefix = f"lawspeaker-test-{secrets.token_hex(6)}"
    limits = {k: kw.pop(k) for k in ("stall_seconds",) if k in kw}
    made: list[SessionApi] = []

    def make() -> SessionApi:
        made.append(SessionApi(store_of(kind, prefix, **kw)))
        return made[0]

    with run_servers(sessions=make, **limits) as servers:
        running = Running(servers, lambda: made[0])
        try:
            yield running
        finally:
            running.close()
    if kind == "redis":
        delete_prefix(prefix)


@pytest.mark.transport
@pytest.mark.parametrize("kind", ["memory", "redis"])
def test_200_unread_sse_streams_are_bounded_and_the_other_calls_keep_answering(kind: str) -> None:
    """200 SSE watch streams over 5 sessions read nothing past the current version while every
    session makes 250 moves. The other calls keep answering (every one, p50 under a second), and
    each stream holds a bounded number of versions: read at last, it gives consecutive versions,
    then the WATCH_STREAM_BEHIND error event, within a few hundred KB (what the client's and
    server's sockets, the transport and the watcher queue hold), rather than every version."""
    moves = seeded_game(250)
    with serving(kind) as running:
        sessions = [running.create() for _ in range(5)]
        streams = [  # per session: its two seats and 38 spectators
            UnreadSse(running.servers.http_port, session, tokens[i // 5] if i < 10 else None)
            for i, (session, tokens) in enumerate(sessions * 40)
        ]
        latencies: list[float] = []
        failures: list[str] = []
        done = threading.Event()

        def other_calls() -> None:
            session, _ = sessions[0]
            while not done.is_set():
                started = time.perf_counter()
                try:
                    r = running.http.get("/v1/games")
                    assert r.status_code == 200, r.text
                    r = running.http.get(f"/v1/sessions/{session}")
                    assert r.status_code == 200, r.text
                    running.sessions.GetSession(spb.GetSessionRequest(session=session), timeout=30)
                except Exception as err:  # every failure is reported below
                    failures.append(repr(err))
                latencies.append(time.perf_counter() - started)
                time.sleep(0.05)

        caller = threading.Thread(target=other_calls)
        caller.start()
        try:
            running.play(sessions, moves)
        finally:
            done.set()
            caller.join(60)
        assert not failures, failures[:3]
        assert len(latencies) >= 5 and statistics.median(latencies) < 1.0, latencies
        for stream in streams[::7]:  # seats and spectators of every session
            etags, ended = stream.read_to_end()
            held = stream.received - stream.opened
            assert etags == list(range(stream.etag + 1, stream.etag + 1 + len(etags)))  # none skipped
            assert ended is not None, f"the stream had all {len(etags)} versions ({held} bytes)"
            assert ended["reason"] == "WATCH_STREAM_BEHIND" and ended["status"] == 503
            # the client's socket, the server's (64 KiB), the transport's 16 KiB, a version or two on
            # the way and the watcher's 64 KiB of records, written as SSE events (twice as large)
            assert held < 400_000, f"{len(etags)} versions, {held} bytes"
        for stream in streams:
            stream.close()
        # every stream's place is let go once its client is
        deadline = time.monotonic() + 10
        while watching(running.api().store) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert watching(running.api().store) == 0


def watching(store: SessionStore) -> int:
    """Watch streams the store counts now."""
    if isinstance(store, RedisStore):
        return len(store.watchers)
    assert isinstance(store, MemoryStore)
    return store.watching


@pytest.mark.transport
def test_an_http_connection_whose_client_takes_nothing_is_closed_and_its_watch_let_go() -> None:
    """With the sending stalled (the client's socket and the server's buffers full) for
    ``stall_seconds``, the server closes the connection: the stuck stream stops holding its buffers
    and its place under the watch limit (here one stream), so a new watch is served."""
    moves = seeded_game(250)
    with serving("memory", max_watchers=1, stall_seconds=1.0) as running:
        session, tokens = running.create()
        stuck = UnreadSse(running.servers.http_port, session)
        with running.http.stream("GET", f"/v1/sessions/{session}:watch", timeout=5) as refused:
            assert refused.status_code == 503
            assert json.loads(refused.read())["reason"] == "WATCH_LIMIT"
        running.play([(session, tokens)], moves)
        deadline = time.monotonic() + 10
        while watching(running.api().store) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert watching(running.api().store) == 0
        with pytest.raises((ConnectionError, EOFError)):
            stuck.read_to_end()  # buffered versions, then the connection is gone
            stuck.sock.settimeout(3)
            stuck._recv()
        stuck.close()
        again = UnreadSse(running.servers.http_port, session)  # the place is free
        assert again.etag == len(moves) + 1
        again.close()


def test_the_stall_time_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """LAWSPEAKER_HTTP_STALL_SECONDS sets when a stalled connection is closed (0: never); anything
    but a number stops the server at start with a message naming the variable."""
    assert http_protocol().stall_seconds == STALL_SECONDS
    monkeypatch.setenv("LAWSPEAKER_HTTP_STALL_SECONDS", "0")
    assert http_protocol().stall_seconds == 0.0
    assert http_protocol(stall_seconds=2.0).stall_seconds == 2.0
    monkeypatch.setenv("LAWSPEAKER_HTTP_STALL_SECONDS", "a minute")
    with pytest.raises(SystemExit, match="LAWSPEAKER_HTTP_STALL_SECONDS must be a number of seconds"):
        http_protocol()
