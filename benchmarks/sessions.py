"""Game sessions: session ApplyMove next to stateless ApplyMove, and Redis memory per session.

One ``lawspeaker serve --redis-url`` process pinned to CPU 0; the load generators pinned to CPU 1:
wrk for REST (16 threads with one keep-alive connection each, so each thread owns one session; a
Lua script carries the etag from each response into the next request), a grpc.aio client with 16
concurrent calls for gRPC; the same generator for the stateless and the session request. Redis
runs wherever the system put it. Each session worker owns one session and plays a precomputed
seeded Valhalla game in it, one SessionApplyMove after another with the etag of the previous
response (a new session when the game ends: over REST that CreateSession is among the timed
requests, about one in 600). The stateless request is the Valhalla ship move in the middle of a
seeded game that ``e2e`` uses.

Memory: for every registered game, a session created in Redis, played to the middle of a random
game (with a request id on every move, as a careful client sends), then ``MEMORY USAGE`` of each
of its keys: the record, the log (moves only, store format 2) and idem (one fixed-width record per
remembered request id, within ``REQUEST_ID_BYTES``).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import httpx
from e2e import ROUNDS, Load, Server, alternate, combine, mid_game_request, wrk
from google.protobuf import json_format

from lawspeaker.api.rules import RulesApi
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import REQUEST_ID_BYTES, RedisStore, SessionKey
from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc, session_service_pb2_grpc
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.wire.registry import REGISTRY

__all__ = ["REDIS_URL", "REQUEST_ID_BYTES", "measure", "memory", "memory_of_tree", "redis_up"]
REDIS_URL = os.environ.get("LAWSPEAKER_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
CONCURRENCY = 16
SEED = 42


@dataclass
class Memory:
    game: str
    players: int
    plies: int
    record: int
    log: int
    idem: int  # the request ids' records

    @property
    def total(self) -> int:
        return self.record + self.log + self.idem


def redis_up() -> bool:
    """Whether the benchmark's Redis answers."""
    import redis

    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except redis.exceptions.RedisError:
        return False


def seeded_game(seed: int = SEED) -> list[game_pb2.Move]:
    """The moves of a whole random Valhalla game from ``seed`` (the server's draws are the same)."""
    api = RulesApi()
    state = api.new_game(pb.NewGameRequest(game="valhalla", players=2, seed=seed)).state
    chooser = random.Random(seed)
    moves: list[game_pb2.Move] = []
    while True:
        listed = api.legal_moves(pb.LegalMovesRequest(game="valhalla", state=state))
        if listed.game_over:
            return moves
        move = chooser.choice(list(listed.moves))
        moves.append(move)
        state = api.apply_move(pb.ApplyMoveRequest(game="valhalla", state=state, move=move)).state


def seat_to_act(api: RulesApi, moves: list[game_pb2.Move], seed: int = SEED) -> list[int]:
    """The seat making each move of the game."""
    state = api.new_game(pb.NewGameRequest(game="valhalla", players=2, seed=seed)).state
    seats = []
    for move in moves:
        seats.append(api.legal_moves(pb.LegalMovesRequest(game="valhalla", state=state)).to_act[0])
        state = api.apply_move(pb.ApplyMoveRequest(game="valhalla", state=state, move=move)).state
    return seats


async def _run(seconds: float, one: Callable[[int], Awaitable[None]], name: str) -> Load:
    """CONCURRENCY workers calling ``one(worker)`` until the deadline; latency of every call."""
    latencies: list[float] = []
    errors = 0
    for w in range(CONCURRENCY):  # warm up
        for _ in range(10):
            await one(w)
    deadline = time.perf_counter() + seconds

    async def worker(w: int) -> None:
        nonlocal errors
        while time.perf_counter() < deadline:
            t = time.perf_counter()
            try:
                await one(w)
            except (grpc.aio.AioRpcError, httpx.HTTPError, AssertionError):
                errors += 1
            latencies.append(time.perf_counter() - t)

    start = time.perf_counter()
    await asyncio.gather(*(worker(w) for w in range(CONCURRENCY)))
    elapsed = time.perf_counter() - start
    latencies.sort()
    n = len(latencies)
    return Load(
        name, n / elapsed, latencies[n // 2] * 1000, latencies[min(n - 1, int(n * 0.99))] * 1000, errors
    )


class Player:
    """One worker's session: applies the precomputed game's next move, untimed restarts at its end."""

    def __init__(self, moves: list[game_pb2.Move], seats: list[int]) -> None:
        self.moves, self.seats = moves, seats
        self.session = ""
        self.tokens: list[str] = []
        self.next = 0
        self.etag = ""


async def _loads(server: Server, seconds: float) -> list[tuple[Load, Load]]:
    moves = seeded_game()
    seats = seat_to_act(RulesApi(), moves)
    stateless = mid_game_request()
    stateless_json = json_format.MessageToDict(stateless)
    stateless_json.pop("game")
    move_json = [json_format.MessageToDict(m) for m in moves]
    base = f"http://127.0.0.1:{server.http_port}"
    out: list[tuple[Load, Load]] = []

    body = json.dumps(stateless_json, separators=(",", ":")).encode()
    each = max(1, round(seconds / ROUNDS))
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "session.lua"
        script.write_text(_session_script(move_json, seats))
        stateless_url = f"{base}/v1/games/valhalla:applyMove"
        rest = alternate(
            ROUNDS,
            {
                "REST POST /v1/games/valhalla:applyMove (stateless)": lambda: wrk(
                    "", stateless_url, each, body, CONCURRENCY, threads=CONCURRENCY
                ),
                "REST POST /v1/sessions/{id}:applyMove": lambda: wrk(
                    "", base, each, None, CONCURRENCY, threads=CONCURRENCY, script=script
                ),
            },
        )
    out.append(
        (
            rest["REST POST /v1/games/valhalla:applyMove (stateless)"],
            rest["REST POST /v1/sessions/{id}:applyMove"],
        )
    )

    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
        rules = rules_service_pb2_grpc.RulesServiceStub(channel)
        sessions = session_service_pb2_grpc.SessionServiceStub(channel)
        players = [Player(moves, seats) for _ in range(CONCURRENCY)]

        async def grpc_stateless(_: int) -> None:
            await rules.ApplyMove(stateless)

        async def grpc_session(w: int) -> None:
            p = players[w]
            if not p.session or p.next >= len(p.moves):
                made = await sessions.CreateSession(
                    spb.CreateSessionRequest(game="valhalla", players=2, seed=SEED)
                )
                p.session, p.etag, p.next = made.session.session, made.session.etag, 0
                p.tokens = [t.token for t in made.seat_tokens]
            applied = await sessions.SessionApplyMove(
                spb.SessionApplyMoveRequest(session=p.session, move=p.moves[p.next], etag=p.etag),
                metadata=(("authorization", f"Bearer {p.tokens[p.seats[p.next]]}"),),
            )
            p.etag = applied.session.etag
            p.next += 1

        grpc_rounds: dict[str, list[Load]] = {"stateless": [], "session": []}
        for _ in range(ROUNDS):
            grpc_rounds["stateless"].append(await _run(each, grpc_stateless, ""))
            grpc_rounds["session"].append(await _run(each, grpc_session, ""))
        out.append(
            (
                combine("gRPC RulesService/ApplyMove (stateless)", grpc_rounds["stateless"]),
                combine("gRPC SessionService/SessionApplyMove", grpc_rounds["session"]),
            )
        )
    return out


def _session_script(moves: list[dict[str, Any]], seats: list[int]) -> str:
    """A wrk script: each thread (one connection) creates a seeded session, then applies the game's
    moves in order, taking the etag of each response into the next request; a new session at the end
    of the game or after any error."""
    bodies = ",\n".join("[==[" + json.dumps(m, separators=(",", ":")) + "]==]" for m in moves)
    seat_list = ",".join(str(seat + 1) for seat in seats)
    create = '{"game":"valhalla","players":2,"seed":"' + str(SEED) + '"}'
    return LUA.replace("@MOVES@", bodies).replace("@SEATS@", seat_list).replace("@CREATE@", create)


LUA = """
local moves = {@MOVES@}
local seats = {@SEATS@}
local session, etag, tokens, nextmove = nil, nil, {}, 1
local create = [==[@CREATE@]==]

request = function()
  if session == nil or nextmove > #moves then
    session = nil
    return wrk.format("POST", "/v1/sessions", {["Content-Type"] = "application/json"}, create)
  end
  local body = '{"move":' .. moves[nextmove] .. ',"etag":"' .. etag .. '"}'
  local headers = {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. tokens[seats[nextmove]],
  }
  return wrk.format("POST", "/v1/sessions/" .. session .. ":applyMove", headers, body)
end

response = function(status, headers, body)
  if status ~= 200 then
    session = nil
    return
  end
  if session == nil then
    session = body:match('"session":"([^"]+)"')
    tokens = {}
    for t in body:gmatch('"token":"([^"]+)"') do tokens[#tokens + 1] = t end
    nextmove = 1
  else
    nextmove = nextmove + 1
  end
  etag = body:match('"etag":"([^"]+)"')
end
"""


def measure(seconds: int = 8) -> list[tuple[Load, Load]]:
    """(stateless, session) ApplyMove pairs for REST and gRPC against one server on Redis."""
    # its sessions expire soon; one load generator creates them all, so no per-client rate limit
    # (the cap on live sessions, counted in Redis, stays on: its cost is part of CreateSession's)
    server = Server(["--redis-url", REDIS_URL, "--session-ttl", "600", "--create-rate", "0"])
    try:
        if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
            os.sched_setaffinity(0, {1})
        return asyncio.run(_loads(server, seconds))
    finally:
        server.stop()


async def _memory() -> list[Memory]:
    prefix = f"lawspeaker-bench-{secrets.token_hex(4)}"
    store = RedisStore(REDIS_URL, prefix=prefix)
    api = SessionApi(store)
    out = []
    try:
        for game_id, entry in sorted(REGISTRY.items()):
            players = entry.game.min_players
            plies = _half_game(game_id, players)
            made = await api.create_session(
                spb.CreateSessionRequest(game=game_id, players=players, seed=SEED), None
            )
            session, tokens = made.session.session, [t.token for t in made.seat_tokens]
            current = made.session
            chooser = random.Random(SEED)
            for i in range(plies):
                seat = current.to_act[0] if current.to_act else 0
                listed = await api.session_legal_moves(
                    spb.SessionLegalMovesRequest(session=session), tokens[seat]
                )
                current = (
                    await api.session_apply_move(
                        spb.SessionApplyMoveRequest(
                            session=session,
                            move=chooser.choice(list(listed.moves)),
                            etag=current.etag,
                            request_id=f"{secrets.token_hex(8)}-{i}",
                        ),
                        tokens[seat],
                    )
                ).session
            key = SessionKey(session, entry.game.rules_version)
            sizes = []
            for name in store.keys(key):
                used: Any = await store.client.memory_usage(name, samples=0)
                sizes.append(int(used or 0))
            out.append(Memory(game_id, players, plies, *sizes))
            await store.delete(key)
    finally:
        await api.close()
    return out


def _half_game(game_id: str, players: int) -> int:
    """Half the plies of a seeded random game (at most 2,000 looked at)."""
    api = RulesApi()
    state = api.new_game(pb.NewGameRequest(game=game_id, players=players, seed=SEED)).state
    chooser = random.Random(SEED)
    plies = 0
    while plies < 2000:
        listed = api.legal_moves(pb.LegalMovesRequest(game=game_id, state=state))
        if listed.game_over or not listed.moves:
            break
        state = api.apply_move(
            pb.ApplyMoveRequest(game=game_id, state=state, move=chooser.choice(list(listed.moves)))
        ).state
        plies += 1
    return plies // 2


def memory() -> list[Memory]:
    """Redis memory of one mid-game session of every registered game."""
    return asyncio.run(_memory())


def memory_of_tree(tree: Path) -> dict[str, int]:
    """Total bytes per game of the same measurement made by another checkout's code (its own
    ``benchmarks/sessions.py`` and service package, so its own store format): the "before" of the
    memory table, measured in the same run on the same Redis."""
    code = "import json, sessions; print(json.dumps({m.game: m.total for m in sessions.memory()}))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tree / "benchmarks",
        env=dict(os.environ, PYTHONPATH=str(tree / "service")),
        check=True,
        capture_output=True,
        text=True,
    )
    totals: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return totals
