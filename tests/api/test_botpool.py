"""The bot pool (lawspeaker.api.botpool): bots think in worker processes at a lower CPU priority, give
there what they give in this process, keep the event loop free, are bounded, and survive a worker's
death."""

from __future__ import annotations

import asyncio
import os
import random
import signal
from typing import Any

import pytest

from lawspeaker import bots
from lawspeaker.api.botpool import BotPool
from lawspeaker.bots import Level, worker
from lawspeaker.games.core import ErrorCode, LawspeakerError, Rng
from lawspeaker.wire.registry import REGISTRY


def _decision(game_id: str, players: int = 2, plies: int = 12) -> Any:
    """A position of a random game where a seat has several moves and nothing is drawn."""
    game = REGISTRY[game_id].game
    rng = random.Random(3)
    state = game.new_game(players, game.default_options(), Rng.from_seed(3))
    for ply in range(400):
        drawn = bots.sample_chance(game, state, rng)
        if drawn is None and ply >= plies and len(game.legal_moves(state)) > 1:
            return state
        state, _ = game.apply(
            state, drawn if drawn is not None else rng.choice(list(game.legal_moves(state)))
        )
    raise AssertionError("no decision position")


@pytest.fixture
def pool() -> Any:
    made = BotPool(processes=1, queue=0)
    yield made
    made.close()


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_a_worker_suggests_what_this_process_would(pool: BotPool, game_id: str) -> None:
    players = 3 if game_id == "pax_penning" else 2
    game, state = REGISTRY[game_id].game, _decision(game_id, players)
    seat = game.to_act(state).players[0]

    async def both() -> list[Any]:
        return [
            await pool.suggest(game_id, state, seat, level, playouts=40, seed=9)
            for level in (Level.RANDOM, Level.GREEDY, Level.SEARCH)
        ]

    there = asyncio.run(both())
    here = [bots.suggest(game, state, seat, level, playouts=40, seed=9) for level in Level]
    assert there == here


def test_the_workers_think_at_a_lower_priority_than_the_server(pool: BotPool) -> None:
    async def worker_niceness() -> int:
        return await asyncio.wrap_future(pool._pool().submit(os.nice, 0))

    assert asyncio.run(worker_niceness()) >= os.nice(0) + 10


def test_the_event_loop_answers_while_a_bot_thinks(pool: BotPool) -> None:
    """A search of a second runs elsewhere: this loop goes on answering (here, ten engine calls and
    sleeps), and the search is still thinking when they are done."""
    state = _decision("valhalla")
    game = REGISTRY["valhalla"].game
    seat = game.to_act(state).players[0]

    async def run() -> tuple[bool, int]:
        pool.start()
        await pool.suggest("valhalla", state, seat, Level.SEARCH, playouts=1, seed=1)  # the worker is up
        thinking = asyncio.create_task(
            pool.suggest("valhalla", state, seat, Level.SEARCH, playouts=1_000_000, millis=1500, seed=1)
        )
        await asyncio.sleep(0)
        answered = 0
        for _ in range(10):
            game.legal_moves(state)
            await asyncio.sleep(0.01)
            answered += 1
        still = not thinking.done()
        found = await thinking
        assert found.playouts >= 1
        return still, answered

    still_thinking, answered = asyncio.run(run())
    assert answered == 10 and still_thinking


def test_a_full_queue_refuses_at_once_and_a_waiting_bot_waits(pool: BotPool) -> None:
    state = _decision("penki")
    seat = REGISTRY["penki"].game.to_act(state).players[0]

    async def run() -> None:
        thinking = asyncio.create_task(
            pool.suggest("penki", state, seat, Level.SEARCH, playouts=1_000_000, millis=800, seed=1)
        )
        await asyncio.sleep(0.05)
        assert pool.thinking == 1
        with pytest.raises(LawspeakerError) as refused:
            await pool.suggest("penki", state, seat, Level.GREEDY, seed=1)
        assert refused.value.reason == "BOTS_BUSY"
        assert refused.value.code is ErrorCode.RESOURCE_EXHAUSTED and refused.value.retry_after
        # random needs no worker; a session's bot (wait=True) waits its turn instead of being refused
        await pool.suggest("penki", state, seat, Level.RANDOM, seed=1)
        waited = await pool.suggest("penki", state, seat, Level.GREEDY, seed=1, wait=True)
        assert thinking.done()  # it came after the one thinking
        assert waited == bots.suggest(REGISTRY["penki"].game, state, seat, Level.GREEDY, seed=1)

    asyncio.run(run())


def test_refusals_come_before_any_thinking(pool: BotPool) -> None:
    state = _decision("valhalla")
    game = REGISTRY["valhalla"].game
    other = 1 - game.to_act(state).players[0]

    async def run() -> None:
        with pytest.raises(LawspeakerError) as caught:
            await pool.suggest("valhalla", state, other, Level.SEARCH, seed=1)
        assert caught.value.reason == "NOT_YOUR_TURN"
        assert pool._executor is None  # nothing was handed to a worker

    asyncio.run(run())


def test_a_refusal_raised_in_a_worker_comes_back_whole() -> None:
    refused = worker.think("valhalla", _decision("valhalla"), 0, "nonsense", None, None, 1)
    assert isinstance(refused, worker.Refused)
    err = refused.error()
    assert (err.code, err.reason) == (ErrorCode.MALFORMED, "UNKNOWN_LEVEL")
    assert err.field_violations and err.field_violations[0].field == "level"


def test_a_worker_killed_while_thinking_answers_bot_failed(pool: BotPool) -> None:
    state = _decision("valhalla")
    seat = REGISTRY["valhalla"].game.to_act(state).players[0]

    async def run() -> None:
        await pool.suggest("valhalla", state, seat, Level.SEARCH, playouts=1, seed=1)
        pids = list(getattr(pool._pool(), "_processes", {}))
        assert pids
        thinking = asyncio.create_task(
            pool.suggest("valhalla", state, seat, Level.SEARCH, playouts=1_000_000, millis=5000, seed=1)
        )
        await asyncio.sleep(0.2)
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        with pytest.raises(LawspeakerError) as failed:
            await thinking
        assert (failed.value.code, failed.value.reason) == (ErrorCode.UNAVAILABLE, "BOT_FAILED")
        again = await pool.suggest("valhalla", state, seat, Level.SEARCH, playouts=5, seed=1)  # new workers
        assert again.playouts == 5

    asyncio.run(run())


def test_a_thread_pool_of_no_processes_thinks_too() -> None:
    pool = BotPool(processes=0)
    state = _decision("penki")
    seat = REGISTRY["penki"].game.to_act(state).players[0]
    try:
        found = asyncio.run(pool.suggest("penki", state, seat, Level.SEARCH, playouts=20, seed=4))
    finally:
        pool.close()
    assert found == bots.suggest(REGISTRY["penki"].game, state, seat, Level.SEARCH, playouts=20, seed=4)


def test_closing_to_stop_ends_the_workers_and_the_pools_thread_even_while_one_thinks() -> None:
    """``close(wait=True)``, as the server stops: a thinking worker is terminated rather than
    waited for, and the pool's manager thread has ended when it returns, so the interpreter's exit
    does not race that thread (CPython 3.11 printed an EBADF traceback now and then)."""
    pool = BotPool(processes=1, queue=0)
    state = _decision("valhalla")
    seat = REGISTRY["valhalla"].game.to_act(state).players[0]

    async def run() -> None:
        await pool.suggest("valhalla", state, seat, Level.SEARCH, playouts=1, seed=1)
        executor = pool._pool()
        workers = list(getattr(executor, "_processes", {}).values())
        assert workers
        thinking = asyncio.create_task(
            pool.suggest("valhalla", state, seat, Level.SEARCH, playouts=1_000_000, millis=10_000, seed=1)
        )
        await asyncio.sleep(0.3)
        manager = executor._executor_manager_thread  # type: ignore[attr-defined]
        assert manager is not None and manager.is_alive()
        pool.close(wait=True)
        assert not manager.is_alive()
        assert not any(worker.is_alive() for worker in workers)
        with pytest.raises(LawspeakerError) as failed:
            await thinking
        assert failed.value.reason == "BOT_FAILED"

    asyncio.run(run())


SIGKILLED_SERVER = """
import os, sys
from lawspeaker.api.botpool import BotPool
from lawspeaker.bots import worker
pool = BotPool(processes=1)
with worker.set_aside():
    task = pool._pool().submit(os.getpid)
print(task.result(), flush=True)
sys.stdin.read()
"""


def _alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]  # noqa: SIM115
    except OSError:
        return False
    return state != "Z"


def test_a_sigkilled_serving_process_leaves_no_bot_worker_or_fork_server_behind() -> None:
    """A serving process killed with SIGKILL closes nothing; its bot worker follows it out within a
    second (a pidfd), and the fork server it came from then exits too. Starts a Python process and a
    fork server: about 1 s."""
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-c", SIGKILLED_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    worker_pid = int(proc.stdout.readline().split()[0])
    forkserver = int(open(f"/proc/{worker_pid}/stat").read().rsplit(")", 1)[1].split()[1])  # noqa: SIM115
    assert _alive(worker_pid) and _alive(forkserver) and forkserver != proc.pid
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    deadline = time.monotonic() + 10
    while (_alive(worker_pid) or _alive(forkserver)) and time.monotonic() < deadline:
        time.sleep(0.05)  # neither is a child of this process: nothing to wait on
    assert not _alive(worker_pid), "the bot worker outlived its server"
    assert not _alive(forkserver), "the fork server outlived its server"
