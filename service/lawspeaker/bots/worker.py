"""What runs in a bot worker process (``lawspeaker.api.botpool``), and how one is started: kept apart from
the server's modules, so a worker imports the games and the bots only (no metrics files, no
transports)."""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading
import time
import types
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.context import ForkServerContext, ForkServerProcess
from typing import Any

from lawspeaker.bots import Suggestion, suggest
from lawspeaker.games.core import ErrorCode, FieldViolation, LawspeakerError
from lawspeaker.games.registry import GAMES


def start(nice: int, server: int | None = None) -> None:
    """A worker's first act: step back in CPU priority, load the games, and, given the serving
    process's pid, follow it out (:func:`exit_with`)."""
    if nice:
        with contextlib.suppress(OSError):  # a platform without nice: think at the same priority
            os.nice(nice)
    if server is not None:
        exit_with(server)
    assert GAMES


def exit_with(server: int) -> None:
    """End this worker when the process ``server`` ends, however it ends. A serving process that is
    SIGKILLed never closes its pool, and a worker waits on its task queue forever (the queue's pipe
    has a writer in the worker itself); the fork server it came from then lives on too, since every
    worker holds a copy of its "alive" pipe. A daemon thread waits on a pidfd (Linux), or asks once
    a second where there is none."""

    def watch() -> None:
        try:
            fd = os.pidfd_open(server)
        except (AttributeError, OSError):  # no pidfd here, or the server is already gone
            fd = None
        if fd is not None:
            select.select([fd], [], [])  # readable once the process has ended
        else:
            while True:
                try:
                    os.kill(server, 0)
                except ProcessLookupError:
                    break
                except PermissionError:  # alive, another user's (cannot be ours, but be safe)
                    pass
                time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="lawspeaker-bot-exit-with-server", daemon=True).start()


@dataclass(frozen=True)
class Refused:
    """A refusal raised while thinking, as plain data: an exception travels back from a worker by
    pickle, which rebuilds it from its message alone (a ``LawspeakerError`` needs more)."""

    code: str
    reason: str
    message: str
    field_violations: tuple[tuple[str, str], ...]

    def error(self) -> LawspeakerError:
        return LawspeakerError(
            ErrorCode(self.code),
            self.reason,
            self.message,
            tuple(FieldViolation(f, d) for f, d in self.field_violations),
        )


def think(
    game_id: str,
    state: Any,
    seat: int,
    level: str,
    playouts: int | None,
    millis: float | None,
    seed: int,
) -> Suggestion[Any] | Refused:
    """One suggestion (a module-level function, so it pickles by name)."""
    try:
        game = GAMES[game_id]
        return suggest(game, state, seat, level, playouts=playouts, millis=millis, seed=seed)
    except LawspeakerError as err:
        violations = tuple((v.field, v.description) for v in err.field_violations)
        return Refused(err.code.value, err.reason, err.message, violations)


@contextlib.contextmanager
def set_aside() -> Iterator[None]:
    """What a process started now must not inherit from the serving process, set aside meanwhile:
    the program's ``__main__`` module, which multiprocessing would have each worker import again
    (a script's whole top level: for a script without an ``if __name__ == "__main__"`` guard,
    another server), and its standard output, which a ``--workers`` supervisor reads until it
    closes (a fork server or resource tracker holding it open would outlive the worker in the
    supervisor's eyes). Wraps every call that may start a process: making the pool (its queues
    start multiprocessing's resource tracker) and handing it work (which starts the fork server and
    the workers)."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
        sys.modules["__main__"] = main


class WorkerProcess(ForkServerProcess):
    """A bot worker, forked from the fork server of :data:`CONTEXT`, launched with what it must not
    inherit set aside (:func:`set_aside`)."""

    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        with set_aside():
            return ForkServerProcess._Popen(process_obj)


class WorkerContext(ForkServerContext):
    Process = WorkerProcess


CONTEXT = WorkerContext()
"""Workers forked from a fork server (a fresh interpreter: no worker inherits the server's sockets,
threads or event loop) that has the games and bots loaded, so a worker starts in milliseconds."""
CONTEXT.set_forkserver_preload([__name__])
