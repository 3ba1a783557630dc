"""Locust users that play real Lawspeaker games through the Python client (clients/python).

``RestPlayer`` goes over REST/JSON, ``GrpcPlayer`` over gRPC. Each task plays one whole stateless
game of a random registered game and player count (new game, then legal moves, validate and apply
until the game is over) and then one whole Valhalla session with both seat tokens (create, get,
legal moves, validate, apply with etag and request id, list moves, delete). Every client call is one
Locust request named after the client method ("legal_moves", "sessions.apply_move"...); a failed
call is reported with its gRPC code and reason ("FAILED_PRECONDITION CAST_FIRST").

Run it through ``python clients/loadtest/run.py`` (which starts a server and prints the summary),
or against a running server: ``LAWSPEAKER_GRPC_TARGET=localhost:50051
LAWSPEAKER_REST_URL=http://localhost:8080 LAWSPEAKER_API_KEY=lsk_... locust -f
clients/loadtest/locustfile.py`` (the API key, optional, is sent with every call: the server's
load-test key, with its own quota on creating sessions).
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from typing import Any

# Locust runs users as gevent greenlets: grpcio must cooperate with gevent before any channel is made.
import grpc.experimental.gevent as grpc_gevent  # type: ignore[import-not-found]
from locust import User, events, task
from locust.env import Environment

from lawspeaker_client import Client, LawspeakerClientError

grpc_gevent.init_gevent()

GRPC_TARGET = os.environ.get("LAWSPEAKER_GRPC_TARGET", "127.0.0.1:50051")
REST_URL = os.environ.get("LAWSPEAKER_REST_URL", "http://127.0.0.1:8080")
API_KEY = os.environ.get("LAWSPEAKER_API_KEY") or None  # the load-test key, sent on CreateSession
REPORT = os.environ.get("LAWSPEAKER_LOADTEST_REPORT")  # where run.py wants the final stats
MAX_STEPS = 3000  # every registered game ends far sooner under random play


class CallFailed(Exception):
    """What Locust records for a failed call: its code and reason, so failures group by them."""

    def __init__(self, err: LawspeakerClientError) -> None:
        super().__init__(err.code, err.reason)
        self.text = f"{err.code} {err.reason}".strip()

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


class Timed:
    """Wraps a client (or its ``sessions``) so that every method call fires one Locust request."""

    def __init__(self, target: Any, environment: Environment, request_type: str, prefix: str = "") -> None:
        self._target = target
        self._environment = environment
        self._type = request_type
        self._prefix = prefix

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self._target, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            response: Any = None
            failure: Exception | None = None
            try:
                response = method(*args, **kwargs)
                return response
            except LawspeakerClientError as err:
                failure = CallFailed(err)
                raise
            finally:
                self._environment.events.request.fire(  # type: ignore[no-untyped-call]
                    request_type=self._type,
                    name=self._prefix + name,
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

    def on_stop(self) -> None:
        self.client_.close()

    @task
    def play(self) -> None:
        try:
            if not self.games:
                self.games = [(g.id, g.min_players, g.max_players) for g in self.api.list_games().games]
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


class RestPlayer(Player):
    transport = "rest"

    def make_client(self) -> Client:
        return Client.rest(REST_URL, api_key=API_KEY)


class GrpcPlayer(Player):
    transport = "grpc"

    def make_client(self) -> Client:
        return Client.grpc(GRPC_TARGET, api_key=API_KEY)


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
