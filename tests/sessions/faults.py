"""Load for fault injection: players on a real `lawspeaker serve` while a test breaks its Redis.

``serve(url, ...)`` starts one `lawspeaker serve` process on free loopback ports. ``Load`` plays on
it: each player (REST and gRPC alternately, one thread each) plays sessions of one game, one after
another, every move with a request id and the etag it was decided on, retrying a failure of the
path (connection error, timeout, 503/504, UNAVAILABLE, DEADLINE_EXCEEDED) with the same request id
and etag every 20 ms, as the README's retry policy says (a short fixed pause, so the recovery time
measured is the service's, not a client's backoff). A watcher per player follows its session over
gRPC WatchSession; when a stream ends it watches again, resuming after the last etag it received.

``Load.stop()`` audits every session's move log against what its player was answered
(:class:`Figures`): acknowledged moves lost (not in the log at their number, or another move
there), moves applied twice or behind the client's back (in the log, never acknowledged), and the
failures by kind. ``Load.recovery(since)`` is how long after ``since`` (say, the promotion of a
replica) every player had an acknowledged move again.
"""

from __future__ import annotations

import contextlib
import functools
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc

from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.v1 import session_service_pb2_grpc

from .helpers import stop
from .ports import free_port
from .test_topology import Aborted, Acked, GrpcPlayer, Player, RestPlayer, Retry, _reason, _same

T = TypeVar("T")
PAUSE = 0.02  # seconds between two attempts of a call that failed on the path
MOVE_PAUSE = 0.002  # seconds between a player's moves: a steady load that leaves the faults their turns
GIVE_UP = 30.0  # seconds a call may keep failing before the player gives up (the test then fails)


@dataclass
class Service:
    """One `lawspeaker serve` process; its log lines (stdout, read as they come) in ``lines``."""

    proc: subprocess.Popen[str]
    http_port: int
    grpc_port: int
    lines: list[str] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def log(self) -> list[str]:
        return list(self.lines)


@contextlib.contextmanager
def serve(redis_url: str, *extra_args: str, keep_log: bool = False) -> Iterator[Service]:
    """`lawspeaker serve --redis-url redis_url *extra_args` on free loopback ports, until the block
    ends (then SIGTERM). ``--create-rate 0``: every player comes from one address. ``keep_log``: the
    service's log (stderr) is read into ``Service.lines`` too, for a test that reports what a 500
    hid; otherwise it is dropped."""
    from transport.test_serve_command import start

    http_port, grpc_port = free_port(), free_port()
    args = ["--host", "127.0.0.1", "--http-port", str(http_port), "--grpc-port", str(grpc_port)]
    args += ["--redis-url", redis_url, "--create-rate", "0", *extra_args]
    proc, _, _ = start(args, {}, stderr=subprocess.STDOUT if keep_log else subprocess.DEVNULL)
    service = Service(proc, http_port, grpc_port)
    reader = threading.Thread(target=_drain, args=(proc, service.lines), daemon=True)
    reader.start()
    try:
        yield service
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(20)
        reader.join(5)  # the log read to its end before the pipe is closed
        stop(proc, signal_first=False)


def _drain(proc: subprocess.Popen[str], lines: list[str]) -> None:
    """Reads the service's log as it comes, so that a full pipe never blocks it."""
    assert proc.stdout is not None
    with contextlib.suppress(ValueError, OSError):
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))


@dataclass
class Played:
    """One session a player played: its id, seat tokens and the moves it was answered for."""

    session: str
    tokens: list[str]
    acked: list[Acked] = field(default_factory=list)


@dataclass
class Figures:
    """What a fault cost, as the clients saw it and as the move logs show it."""

    acknowledged: int
    lost: int
    doubled: int
    errors: Counter[str]
    sessions: int
    watch_ends: Counter[str]
    resumed_watches: int

    def show(self, title: str, **extra: Any) -> None:
        """Prints the figures (``pytest -s`` shows them)."""
        print(f"\n{title}")
        print(
            f"  acknowledged {self.acknowledged} moves in {self.sessions} sessions; "
            f"lost {self.lost}; applied twice or unacknowledged {self.doubled}"
        )
        for kind, count in sorted(self.errors.items()):
            print(f"  failed attempts: {count:5d} {kind}")
        for kind, count in sorted(self.watch_ends.items()):
            print(f"  watch streams ended: {count:5d} {kind}")
        print(f"  watches resumed after an end and delivered again: {self.resumed_watches}")
        for name, value in extra.items():
            print(f"  {name}: {value}")


class _Seat:
    """One player: a thread playing sessions one after another over one transport."""

    def __init__(self, via: Player, seed: int, stop: threading.Event) -> None:
        self.via = via
        self.seed = seed
        self.stop = stop
        self.played: list[Played] = []
        self.errors: Counter[str] = Counter()
        self.unexpected: list[str] = []  # anything the retry policy does not cover: fails the test
        self.acks: list[tuple[float, float]] = []  # (last attempt started, answered) of each acked move
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, name=f"player-{seed}", daemon=True)

    def call(self, name: str, send: Callable[[], T]) -> tuple[T, float]:
        """``send()`` until it answers, again after each failure of the path; the answer and when
        its last attempt started."""
        first = time.monotonic()
        while True:
            started = time.monotonic()
            try:
                return send(), started
            except Retry as failed:
                with self.lock:
                    self.errors[f"{self.via.transport} {failed.kind}"] += 1
                if time.monotonic() - first > GIVE_UP:
                    raise AssertionError(f"{name} kept failing for {GIVE_UP} s: {failed.kind}") from None
                time.sleep(PAUSE)

    def _run(self) -> None:
        try:
            while not self.stop.is_set():
                self._play()
        except Exception as err:  # reported by the test (check), not lost in a thread
            self.unexpected.append(f"{type(err).__name__}: {err}")

    def _play(self) -> None:
        import random

        (current, tokens), _ = self.call("CreateSession", self.via.create)
        played = Played(current["session"], tokens)
        with self.lock:
            self.played.append(played)
        self.via.session, self.via.tokens = played.session, tokens
        chooser = random.Random(f"{self.seed}-{len(self.played)}")
        ply = 0
        while not current.get("gameOver") and not self.stop.is_set():
            seat = current["toAct"][0] if current.get("toAct") else 0
            (moves, etag), _ = self.call("SessionLegalMoves", functools.partial(self.via.legal_moves, seat))
            move = chooser.choice(moves)
            request_id = f"{played.session}-{ply}"
            ply += 1
            try:
                current, started = self.call(
                    "SessionApplyMove", functools.partial(self.via.apply, seat, move, etag, request_id)
                )
            except Aborted:  # the session moved behind this player's back: counted by the audit
                with self.lock:
                    self.errors[f"{self.via.transport} ABORTED (re-read)"] += 1
                continue
            with self.lock:
                played.acked.append(Acked(int(current.get("moveCount", 0)), seat, move))
                self.acks.append((started, time.monotonic()))
            time.sleep(MOVE_PAUSE)

    def audit(self) -> tuple[int, int, int]:
        """Acknowledged, lost and unacknowledged-but-logged moves over every session played."""
        acknowledged = lost = doubled = 0
        for played in self.played:
            self.via.session, self.via.tokens = played.session, played.tokens
            logs = [
                {
                    int(m["number"]): m
                    for m in self.call("ListSessionMoves", functools.partial(self.via.log, s))[0]
                }
                for s in range(len(played.tokens))
            ]
            missing = 0
            for acked in played.acked:
                entry = logs[acked.seat].get(acked.number)
                if (
                    entry is None
                    or entry.get("seat", acked.seat) != acked.seat
                    or not _same(entry, acked.move)
                ):
                    missing += 1
            acknowledged += len(played.acked)
            lost += missing
            doubled += len(logs[0]) - (len(played.acked) - missing)
        return acknowledged, lost, doubled


class _Watcher:
    """Watches one player's current session over gRPC; watches again after each end."""

    def __init__(self, seat: _Seat, target: str, stop: threading.Event) -> None:
        self.seat = seat
        self.stop = stop
        self.channel = grpc.insecure_channel(target)
        self.stub = session_service_pb2_grpc.SessionServiceStub(self.channel)
        self.ends: Counter[str] = Counter()
        self.resumed = 0  # streams that delivered a version after an earlier stream had ended
        self.unexpected: list[str] = []
        self.call: Any = None
        self.thread = threading.Thread(target=self._run, name="watcher", daemon=True)

    def _run(self) -> None:
        etag, ended_before = "", False
        while not self.stop.is_set():
            with self.seat.lock:
                played = self.seat.played[-1] if self.seat.played else None
            if played is None:
                time.sleep(PAUSE)
                continue
            request = spb.WatchSessionRequest(session=played.session, resume_after_etag=etag)
            metadata = (("authorization", f"Bearer {played.tokens[0]}"),)
            self.call = self.stub.WatchSession(request, metadata=metadata)
            delivered = False
            try:
                for update in self.call:
                    etag = update.session.etag
                    if ended_before and not delivered:
                        self.resumed += 1
                    delivered = True
                    if update.session.game_over or update.deleted:
                        break
                    if self.seat.played[-1] is not played:
                        break
                etag = ""  # the next session
            except grpc.RpcError as err:
                if self.stop.is_set() and err.code() is grpc.StatusCode.CANCELLED:
                    return
                kind = f"{err.code().name} {_reason(err)}"
                self.ends[kind] += 1
                if err.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                    self.unexpected.append(kind)
                ended_before = True
                time.sleep(PAUSE)

    def close(self) -> None:
        if self.call is not None:
            self.call.cancel()
        self.thread.join(10)
        self.channel.close()


class Load:
    """``players`` players (REST, gRPC, REST, ...) on ``service``, each with a watcher."""

    def __init__(
        self, service: Service, players: int = 6, game: str = "valhalla", watch: bool = True
    ) -> None:
        self._stop = threading.Event()
        self.seats = [
            _Seat(
                RestPlayer(game, _no_peek, service.base_url)
                if n % 2 == 0
                else GrpcPlayer(game, _no_peek, service.target),
                n,
                self._stop,
            )
            for n in range(players)
        ]
        self.watchers = [_Watcher(seat, service.target, self._stop) for seat in self.seats] if watch else []

    def start(self) -> Load:
        for seat in self.seats:
            seat.thread.start()
        for watcher in self.watchers:
            watcher.thread.start()
        return self

    def acknowledged(self) -> int:
        return sum(len(seat.acks) for seat in self.seats)

    def wait_for_moves(self, count: int, timeout: float = 30.0) -> None:
        """Until the players together have ``count`` more acknowledged moves than now."""
        target = self.acknowledged() + count
        deadline = time.monotonic() + timeout
        while self.acknowledged() < target:
            self.check()
            assert time.monotonic() < deadline, f"fewer than {count} moves in {timeout} s"
            time.sleep(0.01)

    def check(self) -> None:
        """Fails at once if a player met anything the retry policy does not cover."""
        for seat in self.seats:
            assert not seat.unexpected, seat.unexpected
        for watcher in self.watchers:
            assert not watcher.unexpected, watcher.unexpected

    def sessions(self) -> list[str]:
        """Every session played so far."""
        return [p.session for seat in self.seats for p in list(seat.played)]

    def recovery(self, since: float, timeout: float = 30.0) -> float:
        """Waits until every player has had an acknowledged move whose answered attempt started at or
        after ``since`` (a ``time.monotonic()``); the seconds from ``since`` to the last of those."""
        deadline = time.monotonic() + timeout
        while True:
            self.check()
            answered = []
            for seat in self.seats:
                with seat.lock:
                    later = [done for started, done in seat.acks if started >= since]
                answered.append(min(later) if later else None)
            if all(a is not None for a in answered):
                return max(a for a in answered if a is not None) - since
            assert time.monotonic() < deadline, f"a player had no move within {timeout} s of the fault"
            time.sleep(0.01)

    def errors(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for seat in self.seats:
            with seat.lock:
                total.update(seat.errors)
        return total

    def stop(self) -> Figures:
        """Stops the players and watchers; audits every session's log."""
        self._stop.set()
        for seat in self.seats:
            seat.thread.join(GIVE_UP + 10)
        for watcher in self.watchers:
            watcher.close()
        self.check()
        acknowledged = lost = doubled = 0
        for seat in self.seats:
            counts = seat.audit()
            acknowledged, lost, doubled = acknowledged + counts[0], lost + counts[1], doubled + counts[2]
        ends: Counter[str] = Counter()
        for watcher in self.watchers:
            ends.update(watcher.ends)
        return Figures(
            acknowledged,
            lost,
            doubled,
            self.errors(),
            len(self.sessions()),
            ends,
            sum(w.resumed for w in self.watchers),
        )


def _no_peek(session: str) -> int:
    return 0


RETRYABLE_REASONS = {"SESSION_STORE_UNAVAILABLE", "SESSION_WRITE_NOT_REPLICATED"}


def only_retryable(errors: Counter[str]) -> list[str]:
    """The kinds of failure among ``errors`` that are not the documented retryable ones (a 503 or
    UNAVAILABLE with a store reason, a timeout or a connection error of the path)."""
    odd = []
    for kind in errors:
        words = kind.split()
        if words[-1] in RETRYABLE_REASONS and ("503" in words or "UNAVAILABLE" in words):
            continue
        if words[1:] in (["timeout"], ["connection", "error"]) or words[1] == "DEADLINE_EXCEEDED":
            continue
        odd.append(kind)
    return odd
