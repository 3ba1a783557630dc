"""Locust users that play real Lawspeaker games through the Python client (clients/python).

``RestPlayer`` goes over REST/JSON, ``GrpcPlayer`` over gRPC. Each task plays three games:

- a Valhalla game found in the lobby. Every other user (whatever its transport) hosts it: it creates
  the session with seat 1 open under its display name and waits (``HOST_WAIT_SECONDS`` at most) for
  a guest to claim the seat, else gives the seat a token itself (``manage_seat``, reissue, on the
  version it saw) and plays both seats. The others are guests: they list the lobby and claim the
  oldest open seat of this run's hosts (a claim that lost the race to another guest is
  SEAT_NOT_OPEN: they try the next, for ``GUEST_WAIT_SECONDS`` at most). Each plays its own seat,
  waiting for the other's moves with long polls, and at ``LOBBY_PLIES`` the seat to act resigns;
  the guest then asks for a rematch (its last call) and the host, once it sees the vote, deletes
  the session with the host token. A lobby call the server's lobby rate refuses
  (LOBBY_RATE_LIMITED) waits its ``retry_after`` and is made again;
- one whole stateless game of a random registered game and player count (new game, then legal
  moves, validate and apply until the game is over);
- one whole Valhalla session with both seat tokens (create, get, legal moves, validate, apply with
  etag and request id, list moves, delete).

Every client call is one Locust request named after the client method ("legal_moves",
"sessions.apply_move"...); a failed call is reported with its gRPC code and reason
("FAILED_PRECONDITION CAST_FIRST"). The refusals a lobby expects (a lost claim, a host's reissue
that a claim overtook, the lobby rate) count as successes, named with their reason
("sessions.claim_seat SEAT_NOT_OPEN").

Run it through ``python clients/loadtest/run.py`` (which starts a server and prints the summary),
or against a running server: ``LAWSPEAKER_GRPC_TARGET=localhost:50051
LAWSPEAKER_REST_URL=http://localhost:8080 LAWSPEAKER_API_KEY=lsk_... locust -f
clients/loadtest/locustfile.py`` (the API key, optional, is sent with every call: the server's
load-test key, with its own quota on creating sessions).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import secrets
import time
from collections.abc import Callable
from typing import Any

# Locust runs users as gevent greenlets: grpcio must cooperate with gevent before any channel is made.
import grpc.experimental.gevent as grpc_gevent  # type: ignore[import-not-found]
from locust import User, events, task
from locust.env import Environment

from lawspeaker_client import Client, LawspeakerClientError
from lawspeaker_client.v1 import session_service_pb2 as spb

grpc_gevent.init_gevent()

GRPC_TARGET = os.environ.get("LAWSPEAKER_GRPC_TARGET", "127.0.0.1:50051")
REST_URL = os.environ.get("LAWSPEAKER_REST_URL", "http://127.0.0.1:8080")
API_KEY = os.environ.get("LAWSPEAKER_API_KEY") or None  # the load-test key, sent on CreateSession
REPORT = os.environ.get("LAWSPEAKER_LOADTEST_REPORT")  # where run.py wants the final stats
MAX_STEPS = 3000  # every registered game ends far sooner under random play
TIMEOUT = 60.0  # seconds a call may take: more than a long poll's 30 s wait for a change
LOBBY_PLIES = 200  # moves of a lobby game before the seat to act resigns
HOST_WAIT_SECONDS = 3.0  # how long a host waits for a guest before it plays both seats
GUEST_WAIT_SECONDS = 4.0  # how long a guest looks for an open seat (listing every 0.1 s)
# This run's name, in every display name its hosts give: its guests claim only its own hosts' seats
# (a server under load may have other lobbies, and people in them).
RUN = secrets.token_hex(4)
_numbers = itertools.count()  # the users, in the order they start: even ones host, odd ones are guests


class CallFailed(Exception):
    """What Locust records for a failed call: its code and reason, so failures group by them."""

    def __init__(self, err: LawspeakerClientError) -> None:
        super().__init__(err.code, err.reason)
        self.text = f"{err.code} {err.reason}".strip()

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


class Timed:
    """Wraps a client (or its ``sessions``) so that every method call fires one Locust request. A
    refusal whose reason is ``expected`` is the call's answer, not a failure: it is recorded as a
    success named with its reason (and still raised, for the caller to act on)."""

    def __init__(
        self,
        target: Any,
        environment: Environment,
        request_type: str,
        prefix: str = "",
        expected: frozenset[str] = frozenset(),
    ) -> None:
        self._target = target
        self._environment = environment
        self._type = request_type
        self._prefix = prefix
        self._expected = expected

    def expecting(self, *reasons: str) -> Timed:
        """The same, with these refusals expected."""
        return Timed(self._target, self._environment, self._type, self._prefix, frozenset(reasons))

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self._target, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            response: Any = None
            failure: Exception | None = None
            named = self._prefix + name
            try:
                response = method(*args, **kwargs)
                return response
            except LawspeakerClientError as err:
                if err.reason in self._expected:
                    named += f" {err.reason}"
                else:
                    failure = CallFailed(err)
                raise
            finally:
                self._environment.events.request.fire(  # type: ignore[no-untyped-call]
                    request_type=self._type,
                    name=named,
                    response_time=(time.perf_counter() - started) * 1000,
                    response_length=response.ByteSize() if response is not None else 0,
                    exception=failure,
                    context={},
                )

        return call


class Player(User):
    """Plays whole games, stateless and in sessions, through one Client."""

    abstract = True
    transport = ""

    def make_client(self) -> Client:
        raise NotImplementedError

    def on_start(self) -> None:
        self.client_ = self.make_client()
        self.api = Timed(self.client_, self.environment, self.transport)
        self.sessions = Timed(self.client_.sessions, self.environment, self.transport, "sessions.")
        self.rng = random.Random()
        self.games: list[tuple[str, int, int]] = []
        self.number = next(_numbers)

    def on_stop(self) -> None:
        self.client_.close()

    @task
    def play(self) -> None:
        try:
            if not self.games:
                self.games = [(g.id, g.min_players, g.max_players) for g in self.api.list_games().games]
            if self.number % 2 == 0:
                self.host_lobby_game()
            else:
                self.join_lobby_game()
            self.play_stateless()
            self.play_session()
        except LawspeakerClientError:
            pass  # already recorded as the failure of its request; start a new game

    def play_stateless(self) -> None:
        game, low, high = self.rng.choice(self.games)
        self.api.describe_game(game)
        state = self.api.new_game(game, self.rng.randint(low, high)).state
        for _ in range(MAX_STEPS):
            legal = self.api.legal_moves(game, state)
            if legal.game_over:
                return
            move = self.rng.choice(list(legal.moves))
            if not self.api.validate_move(game, state, move).valid:
                raise AssertionError(f"{game}: a listed move is not valid")
            state = self.api.apply_move(game, state, move).state
        raise AssertionError(f"{game}: no end after {MAX_STEPS} moves")

    def play_session(self) -> None:
        made = self.sessions.create_session("valhalla", 2)
        session = made.session.session
        tokens = {t.seat: t.token for t in made.seat_tokens}
        to_act = list(self.sessions.get_session(session, token=tokens[0]).session.to_act)
        for step in range(MAX_STEPS):
            if not to_act:
                break
            token = tokens[to_act[0]]
            listed = self.sessions.legal_moves(session, token=token)
            move = self.rng.choice(list(listed.moves))
            if step % 10 == 0:
                self.sessions.validate_move(session, move, token=token)
            applied = self.sessions.apply_move(session, move, listed.etag, f"r{step}", token=token)
            if applied.session.game_over:
                break
            to_act = list(applied.session.to_act)
        else:
            raise AssertionError(f"session {session}: no end after {MAX_STEPS} moves")
        self.sessions.list_moves(session, page_size=50, token=tokens[1])
        self.sessions.delete_session(session, token=tokens[0])

    # -------------------------------------------------------------------------- the lobby

    def host_lobby_game(self) -> None:
        """Hosts a game with an open seat; plays seat 0 against the guest who claims seat 1 (or both
        seats, when nobody comes in time); deletes it once the guest is done."""
        name = f"locust {RUN} host {self.number}"
        made = self.sessions.create_session("valhalla", 2, open_seats=[1], display_names=[name])
        session, host = made.session.session, made.host_token
        tokens = {0: made.seat_tokens[0].token}
        view = made.session
        until = time.monotonic() + HOST_WAIT_SECONDS
        while view.waiting_for_players and time.monotonic() < until:
            time.sleep(0.05)  # gevent's, under Locust
            view = self.sessions.get_session(session, token=host).session
        guest = not view.waiting_for_players
        if not guest:
            try:  # nobody came: the host gives the seat a token itself, on the version it saw
                reissued = self.sessions.expecting("SESSION_ETAG_MISMATCH").manage_seat(
                    session,
                    1,
                    spb.SEAT_ACTION_REISSUE_TOKEN,
                    display_name=f"{name} too",
                    etag=view.etag,
                    token=host,
                )
                tokens[1] = reissued.seat_token.token
            except LawspeakerClientError as err:
                if err.reason != "SESSION_ETAG_MISMATCH":
                    raise
                guest = True  # a claim came first: the guest plays
        view = self.play_seats(session, tokens, self.sessions.get_session(session, token=tokens[0]).session)
        for _ in range(20):  # the guest's rematch vote is its last call: then nobody reads the session
            if not guest or 1 in view.rematch_requested:
                break
            view = self.sessions.get_session(session, token=host, wait_for_change=view.etag).session
        self.sessions.delete_session(session, token=host)

    def join_lobby_game(self) -> None:
        """Claims an open seat of this run's hosts from the lobby, plays it, and asks for a rematch."""
        name = f"locust {RUN} guest {self.number}"
        claimed = self.claim_seat(name)
        if claimed is None:
            return  # no host of this run listed a game meanwhile
        session, token = claimed.session.session, claimed.seat_token.token
        self.play_seats(session, {1: token}, claimed.session)
        voted = self.sessions.rematch(session, token=token)
        if 1 not in voted.session.rematch_requested or voted.HasField("rematch"):
            raise AssertionError(f"session {session}: the guest's rematch vote was not recorded alone")

    def claim_seat(self, name: str) -> spb.ClaimSeatResponse | None:
        """The oldest open seat of this run's hosts, claimed; None when none came in time."""
        until = time.monotonic() + GUEST_WAIT_SECONDS
        while time.monotonic() < until:
            page = self.lobby("list_sessions", "valhalla", 2, page_size=50)
            for listed in page.sessions:
                seats = listed.seats
                if seats[1].role != spb.SEAT_ROLE_OPEN or not seats[0].display_name.startswith(
                    f"locust {RUN} "
                ):
                    continue
                try:
                    answer: spb.ClaimSeatResponse = self.lobby(
                        "claim_seat", listed.session, name, seat=1, expected=("SEAT_NOT_OPEN",)
                    )
                    return answer
                except LawspeakerClientError as err:
                    if err.reason != "SEAT_NOT_OPEN":
                        raise  # else another guest came first: the next one
            time.sleep(0.1)
        return None

    def lobby(self, method: str, *args: Any, expected: tuple[str, ...] = (), **kwargs: Any) -> Any:
        """A lobby call (``list_sessions``, ``claim_seat``), made again after the ``retry_after`` of
        each refusal by the lobby rate."""
        call = getattr(self.sessions.expecting("LOBBY_RATE_LIMITED", *expected), method)
        while True:
            try:
                return call(*args, **kwargs)
            except LawspeakerClientError as err:
                if err.reason != "LOBBY_RATE_LIMITED":
                    raise
                time.sleep(min(err.retry_after or 1.0, 10.0))

    def play_seats(self, session: str, tokens: dict[int, str], view: spb.Session) -> spb.Session:
        """Plays the seats of ``tokens`` (seat: token) from ``view`` until the game is over: a seat
        of theirs to act moves (at ``LOBBY_PLIES``, resigns); else the other player's move is
        awaited with a long poll."""
        watcher = next(iter(tokens.values()))
        for step in range(4 * LOBBY_PLIES + 20):
            if view.game_over:
                return view
            mine = next((seat for seat in view.to_act if seat in tokens), None)
            if mine is None:
                view = self.sessions.get_session(session, token=watcher, wait_for_change=view.etag).session
                continue
            token = tokens[mine]
            if view.move_count >= LOBBY_PLIES:
                resigned: spb.Session = self.sessions.resign_seat(
                    session, etag=view.etag, token=token
                ).session
                return resigned
            listed = self.sessions.legal_moves(session, token=token)
            move = self.rng.choice(list(listed.moves))
            view = self.sessions.apply_move(session, move, listed.etag, f"l{step}", token=token).session
        raise AssertionError(f"session {session}: not over after {LOBBY_PLIES} plies and a resignation")


class RestPlayer(Player):
    transport = "rest"

    def make_client(self) -> Client:
        return Client.rest(REST_URL, api_key=API_KEY, timeout=TIMEOUT)


class GrpcPlayer(Player):
    transport = "grpc"

    def make_client(self) -> Client:
        return Client.grpc(GRPC_TARGET, api_key=API_KEY, timeout=TIMEOUT)


def _entry(entry: Any) -> dict[str, Any]:
    return {
        "type": entry.method,
        "name": entry.name,
        "requests": entry.num_requests,
        "failures": entry.num_failures,
        "rps": entry.total_rps,
        "p50": entry.get_response_time_percentile(0.5),
        "p95": entry.get_response_time_percentile(0.95),
        "p99": entry.get_response_time_percentile(0.99),
    }


@events.quitting.add_listener  # type: ignore[untyped-decorator]
def _write_report(environment: Environment, **_: Any) -> None:
    """The final stats, failures and exceptions, as JSON for run.py."""
    if not REPORT:
        return
    stats = environment.stats
    runner = environment.runner
    report = {
        "entries": [
            _entry(e) for e in sorted(stats.entries.values(), key=lambda e: (e.name, e.method or ""))
        ],
        "total": _entry(stats.total),
        "failures": [
            {"type": e.method, "name": e.name, "error": e.parse_error(e.error), "count": e.occurrences}
            for e in stats.errors.values()
        ],
        "exceptions": [
            {"message": e["msg"], "count": e["count"], "traceback": e["traceback"]}
            for e in (runner.exceptions.values() if runner is not None else ())
        ],
    }
    with open(REPORT, "w") as f:
        json.dump(report, f, indent=2)
