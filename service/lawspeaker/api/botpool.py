"""Where the bots think: off the event loop, in a bounded pool of worker processes.

A search may think for seconds of CPU (:data:`lawspeaker.bots.MAX_MILLIS`); in the serving process
it would hold the event loop (and the GIL) and every other call would wait. So ``greedy`` and
``search`` run in :class:`BotPool`'s worker processes (forked from a clean fork server, so
nothing of the server's sockets or threads is inherited), which run at a lower CPU priority
(``nice``): on a busy machine the kernel gives the serving process the CPU first, and a bot move
comes late rather than stateless calls slowly. ``random`` costs a microsecond and is answered in
the calling process.

The pool is bounded twice: ``processes`` think at once, and at most ``queue`` requests wait for one.
A SuggestMove past that is refused at once (RESOURCE_EXHAUSTED, reason BOTS_BUSY, with a retry
delay); a session's bot move waits its turn instead (``wait=True``), since it was already promised.

Everything :func:`lawspeaker.bots.suggest` refuses is checked in the calling process first
(:func:`lawspeaker.bots.check`), so a worker only thinks; what it sends back is a plain
:class:`~lawspeaker.bots.Suggestion`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import time
import weakref
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from lawspeaker.bots import Level, Suggestion, check, suggest, worker
from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.observe import metrics
from lawspeaker.wire.registry import REGISTRY

log = logging.getLogger(__name__)

DEFAULT_PROCESSES = 1
"""Worker processes per serving process (``lawspeaker serve --bot-processes``)."""

DEFAULT_QUEUE = 16
"""SuggestMove requests that may wait for a worker before more are refused (``--bot-queue``)."""

NICE = 10
"""How much lower the workers' CPU priority is than the server's (``os.nice``): at 10 a busy core
gives a worker about a tenth of the time the serving process gets."""

BUSY_RETRY_SECONDS = 1.0


def busy(limit: int) -> LawspeakerError:
    return LawspeakerError(
        ErrorCode.RESOURCE_EXHAUSTED,
        "BOTS_BUSY",
        f"The bots of this server are all thinking and {limit} requests already wait for one: try "
        f"again in {BUSY_RETRY_SECONDS:g} s, or ask for a smaller budget.",
        metadata={"queue": str(limit)},
        retry_after=BUSY_RETRY_SECONDS,
    )


_OPEN: weakref.WeakSet[BotPool] = weakref.WeakSet()
"""Every pool of this process whose workers may be running (for :func:`close_all`)."""


def close_all() -> None:
    """Stop the workers of every pool of this process, as ``close(wait=True)`` does for one: for a
    process that ends without exit handlers (``os._exit``, as a pytest-xdist worker does), whose
    workers would otherwise wait forever on their queues, keeping the fork server alive."""
    for pool in list(_OPEN):
        pool.close(wait=True)


class BotPool:
    """Runs bot suggestions in ``processes`` worker processes (0: on a thread of this process, which
    keeps the event loop free but shares its CPU; for a library user or a tiny deployment), with at
    most ``queue`` SuggestMove requests waiting. The workers start on the first suggestion that
    needs one, or at :meth:`start`."""

    def __init__(
        self, processes: int = DEFAULT_PROCESSES, queue: int = DEFAULT_QUEUE, nice: int = NICE
    ) -> None:
        if processes < 0 or queue < 0:
            raise ValueError("processes and queue must not be negative")
        self.processes = processes
        self.queue = queue
        self.nice = nice
        self._executor: concurrent.futures.Executor | None = None
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.waiting = 0  # requests waiting for a worker
        self.thinking = 0  # suggestions being thought now

    def _pool(self) -> concurrent.futures.Executor:
        if self._executor is None:
            if self.processes == 0:
                self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="lawspeaker-bot")
            else:
                with worker.set_aside():  # its queues start multiprocessing's resource tracker
                    self._executor = concurrent.futures.ProcessPoolExecutor(
                        self.processes,
                        mp_context=worker.CONTEXT,
                        initializer=worker.start,
                        initargs=(self.nice, os.getpid()),  # workers end with this process
                    )
                _OPEN.add(self)
        return self._executor

    def start(self) -> None:
        """Start the workers now (the fork server takes a fraction of a second to start), so the
        first bot move does not wait for them."""
        pool = self._pool()
        if isinstance(pool, concurrent.futures.ProcessPoolExecutor):
            with worker.set_aside():
                pool.submit(int)  # the fork server and a worker start with the first task

    def close(self, wait: bool = False) -> None:
        """Stop the workers: queued suggestions are cancelled, a thinking one is abandoned.

        ``wait`` (the server stopping): the worker processes are terminated and the pool's manager
        thread is waited for, so nothing of the pool is left running when the interpreter exits.
        Left running, its exit handler races the manager thread closing its wake-up pipe (CPython
        3.11's ``concurrent.futures.process._python_exit`` writes to it unlocked) and now and then
        prints an "Exception ignored" traceback (EBADF) on stderr after the last log line."""
        pool, self._executor = self._executor, None
        _OPEN.discard(self)
        if pool is None:
            return
        if wait and isinstance(pool, concurrent.futures.ProcessPoolExecutor):
            workers = getattr(pool, "_processes", None) or {}  # the pool names no public handle
            for process in list(workers.values()):
                process.terminate()
        pool.shutdown(wait=wait, cancel_futures=True)

    async def suggest(
        self,
        game_id: str,
        state: Any,
        seat: int,
        level: Level,
        *,
        playouts: int | None = None,
        millis: float | None = None,
        seed: int,
        wait: bool = False,
    ) -> Suggestion[Any]:
        """The bot's move, thought off the event loop. Raises what :func:`lawspeaker.bots.check`
        raises, BOTS_BUSY (unless ``wait``) when ``queue`` requests already wait, and UNAVAILABLE
        (BOT_FAILED) when a worker died while thinking."""
        game = REGISTRY[game_id].game
        level = check(game, state, seat, level, playouts=playouts, millis=millis)
        started = time.perf_counter()
        if level is Level.RANDOM or game.chance(state) is not None:  # no thinking to hand off
            answer = suggest(game, state, seat, level, playouts=playouts, millis=millis, seed=seed)
            metrics.bot_move(game_id, level.value, time.perf_counter() - started, answer.playouts)
            return answer
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:  # a semaphore serves one event loop
            self._slots, self._loop = asyncio.Semaphore(max(self.processes, 1)), loop
        if not wait and self._slots.locked() and self.waiting >= self.queue:
            metrics.bot_refused(game_id)
            raise busy(self.queue)
        self.waiting += 1
        metrics.bots_waiting(self.waiting)
        try:
            await self._slots.acquire()
        finally:
            self.waiting -= 1
            metrics.bots_waiting(self.waiting)
        try:
            self.thinking += 1
            args = (game_id, state, seat, level.value, playouts, millis, seed)
            try:
                pool = self._pool()
                with worker.set_aside():  # a first task, or one after a worker died, starts one
                    future = pool.submit(worker.think, *args)
                thought = await asyncio.wrap_future(future)
            except BrokenProcessPool:
                self.close()  # the next suggestion starts new workers
                log.error("a bot worker process died while thinking (%s, %s)", game_id, level.value)
                raise LawspeakerError(
                    ErrorCode.UNAVAILABLE,
                    "BOT_FAILED",
                    "The bot's worker process stopped while it was thinking: try again.",
                    retry_after=BUSY_RETRY_SECONDS,
                ) from None
        finally:
            self.thinking -= 1
            self._slots.release()
        if isinstance(thought, worker.Refused):
            raise thought.error()
        answer = thought
        metrics.bot_move(game_id, level.value, time.perf_counter() - started, answer.playouts)
        return answer
