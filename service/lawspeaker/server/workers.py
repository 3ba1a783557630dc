"""``lawspeaker serve --workers N``: N serving processes on the same two ports, under a supervisor.

The supervisor is a small process that serves nothing itself. It claims both ports first
(``listen.reserve``: refused with one line when anything is bound there, else held with
``SO_REUSEPORT`` by sockets that never listen, which also picks a port 0 once for all workers). It then
starts each worker as ``lawspeaker serve`` with the same arguments, the chosen ports and ``--worker-of
<its pid>``; a worker binds its own listening sockets with ``SO_REUSEPORT``, so the kernel spreads new
connections over the workers' accept queues. The worker prints its ports line to the supervisor (a
pipe); once every worker has, the supervisor prints ``lawspeaker grpc_port=... http_port=... workers=N``
on its own stdout, the line a caller waits for, as with one process.

Why not one listening socket inherited by every worker (gunicorn's way)? grpc's Python server can
only bind an address itself, not serve a socket it is given; and with a socket of its own each worker
gets its own share of the connections instead of every event loop waking for each one. The kernel
balances connections, not requests: a client that sends everything over one HTTP/2 connection (one
gRPC channel) is served by one worker.

A worker that exits is replaced after a backoff that doubles from a quarter second to ten seconds and
starts again once a worker has served for half a minute (one log line per replacement). A worker
that fails to start five times in a row (it exits, or reports no ports within a minute) means
something that a restart will not mend: the supervisor stops the others and exits with 1. SIGTERM or
SIGINT is passed to every worker as SIGTERM; each drains as a lone ``lawspeaker serve`` does, and the
supervisor exits when all have (0, or 1 if one had to be killed after the drain's time). A worker
whose supervisor has gone (killed with SIGKILL) drains and exits by itself within a second, so that
no orphan keeps serving the ports.

Connections still waiting in the accept queue of a worker that dies are reset (Linux moves them to
another worker only with ``net.ipv4.tcp_migrate_req = 1``): clients retry as for any dropped
connection.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Sequence
from typing import TypeVar

from lawspeaker.server import listen

MULTIPROC_ENV = (
    "PROMETHEUS_MULTIPROC_DIR"  # lawspeaker.observe.metrics.MULTIPROC_ENV (not imported before it is set)
)

log = logging.getLogger("lawspeaker.workers")

READY = re.compile(rb"grpc_port=(\d+) http_port=(\d+)")
STARTUP_SECONDS = 60.0  # a worker that has not printed its ports by then is killed: a failed start
FIRST_BACKOFF = 0.25  # seconds before the first replacement
MAX_BACKOFF = 10.0
STABLE_SECONDS = 30.0  # a worker that served this long resets the backoff of its place
START_ATTEMPTS = 5  # failed starts in a row of one worker place before the supervisor gives up
DRAIN_SECONDS = 20.0  # after SIGTERM (a worker's own drain takes up to cli.GRACE_SECONDS), then SIGKILL
ORPHAN_CHECK_SECONDS = 1.0

T = TypeVar("T")


def cores() -> int:
    """The cores this process may run on (``--workers auto``): its CPU affinity where the platform
    has one, else every core. A container's CPU quota (Kubernetes ``limits.cpu``) is not an
    affinity: there, give the number."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def worker_count(value: str) -> int:
    """``--workers``: a positive number, or ``auto`` for :func:`cores` (an argparse ``type``)."""
    if value.strip().lower() == "auto":
        return cores()
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(
            f"expected a number of processes (1 or more) or 'auto', not {value!r}"
        )
    return count


def supervise(
    argv: Sequence[str],
    host: str,
    grpc_port: int,
    http_port: int,
    count: int,
    metrics_port: int | None = 0,
) -> int:
    """Run ``count`` workers of ``lawspeaker <argv>`` (a ``serve`` command line) until SIGTERM or
    SIGINT; the exit code. A port that is taken is one logged line and 1, before any worker starts.

    ``metrics_port``: None when metrics are off; else the workers write their metrics to one
    directory (prometheus-client's multiprocess mode: ``PROMETHEUS_MULTIPROC_DIR``, set here before
    any of them starts, or the operator's own, emptied first) so that any worker's ``/metrics``
    answers for all of them; a port other than 0 is served by this process, from that directory."""
    try:
        ports = listen.reserve(host, grpc_port, http_port)
    except listen.PortUnavailable as err:
        log.error("%s", err)
        return 1
    own_directory = None
    if metrics_port is not None:
        directory = os.environ.get(MULTIPROC_ENV)
        if not directory:
            directory = own_directory = tempfile.mkdtemp(prefix="lawspeaker-metrics-")
            os.environ[MULTIPROC_ENV] = directory
        from lawspeaker.observe import metrics  # after the variable is set: prometheus-client reads it once

        # Emptied after that import, which made this process's own files for the metrics without
        # labels: the supervisor records nothing, and so it is neither counted nor listed.
        metrics.prepare_directory(directory)
        if metrics_port:
            try:
                bound = metrics.serve_port(host, metrics_port)
            except OSError as err:
                log.error("%s", listen.metrics_unavailable(host, metrics_port, err))
                ports.close()
                if own_directory is not None:
                    shutil.rmtree(own_directory, ignore_errors=True)
                return 1
            log.info("metrics of every worker on http://%s:%d/metrics", host, bound)
    command = [
        sys.executable,
        "-m",
        "lawspeaker",
        *argv,
        "--grpc-port",
        str(ports.grpc_port),
        "--http-port",
        str(ports.http_port),
        "--workers",
        "1",
        "--worker-of",
        str(os.getpid()),
    ]
    try:
        return asyncio.run(Supervisor(command, count, ports).run())
    finally:
        ports.close()
        if own_directory is not None:
            shutil.rmtree(own_directory, ignore_errors=True)


class Supervisor:
    """Keeps ``count`` worker processes of ``command`` running on the ports of ``ports``."""

    def __init__(self, command: list[str], count: int, ports: listen.Reservation) -> None:
        self.command = command
        self.count = count
        self.ports = ports
        self.procs: list[asyncio.subprocess.Process | None] = [None] * count
        self.up = [asyncio.Event() for _ in range(count)]  # each place's first worker reported its ports
        self.stopping = asyncio.Event()
        self.gave_up = False

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        places = [asyncio.create_task(self._place(i)) for i in range(self.count)]
        announce = asyncio.create_task(self._announce())
        await self.stopping.wait()
        announce.cancel()
        log.info("lawspeaker workers draining")
        for proc in self.procs:
            _signal(proc, signal.SIGTERM)
        _, late = await asyncio.wait(places, timeout=DRAIN_SECONDS)
        killed = bool(late)
        if late:
            log.error("%d worker(s) still running %g s after SIGTERM: killed", len(late), DRAIN_SECONDS)
            for proc in self.procs:
                _signal(proc, signal.SIGKILL)
            await asyncio.wait(late)
        log.info("lawspeaker workers stopped")
        return 1 if self.gave_up or killed else 0

    async def _announce(self) -> None:
        """The ports line, once every place's first worker serves."""
        await asyncio.gather(*(event.wait() for event in self.up))
        g, h = self.ports.grpc_port, self.ports.http_port
        log.info("lawspeaker serving gRPC on port %d and HTTP on port %d with %d workers", g, h, self.count)
        print(f"lawspeaker grpc_port={g} http_port={h} workers={self.count}", flush=True)

    async def _place(self, index: int) -> None:
        """Keep worker place ``index`` filled until the supervisor stops."""
        try:
            await self._keep(index)
        except Exception:  # a bug here must not leave the supervisor serving with a place empty
            log.exception("worker %d: supervision failed", index + 1)
            self.gave_up = True
            self.stopping.set()

    async def _keep(self, index: int) -> None:
        loop = asyncio.get_running_loop()
        backoff = FIRST_BACKOFF
        failed_starts = 0
        while not self.stopping.is_set():
            proc = await asyncio.create_subprocess_exec(
                *self.command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE
            )
            self.procs[index] = proc
            if self.stopping.is_set():  # the signal came while it was being started
                _signal(proc, signal.SIGTERM)
            started = loop.time()
            ready = await self._ready(index, proc)
            if ready:
                self.up[index].set()
                failed_starts = 0
            assert proc.stdout is not None
            while await proc.stdout.read(65536):  # nothing more is expected; never let it block
                pass
            code = await proc.wait()
            self.procs[index] = None
            _exited(proc.pid)
            if self.stopping.is_set():
                return
            lived = loop.time() - started
            if not ready:
                failed_starts += 1
                if failed_starts >= START_ATTEMPTS:
                    log.error(
                        "worker %d failed to start %d times in a row (last: %s): giving up",
                        index + 1,
                        failed_starts,
                        _how(code),
                    )
                    self.gave_up = True
                    self.stopping.set()
                    return
            elif lived >= STABLE_SECONDS:
                backoff = FIRST_BACKOFF
            log.warning(
                "worker %d (pid %d) %s after %.1f s%s; starting another in %.2f s",
                index + 1,
                proc.pid,
                _how(code),
                lived,
                "" if ready else " without serving",
                backoff,
            )
            if await _within(self.stopping.wait(), backoff):
                return
            backoff = min(MAX_BACKOFF, backoff * 2)

    async def _ready(self, index: int, proc: asyncio.subprocess.Process) -> bool:
        """Whether the worker printed its ports line (it serves) before exiting or timing out."""
        assert proc.stdout is not None
        try:
            async with asyncio.timeout(STARTUP_SECONDS):
                while line := await proc.stdout.readline():
                    if READY.search(line):
                        return True
        except TimeoutError:
            log.error(
                "worker %d (pid %d) did not start within %g s: killed", index + 1, proc.pid, STARTUP_SECONDS
            )
            _signal(proc, signal.SIGKILL)
        return False


def _exited(pid: int) -> None:
    """A worker has exited: in multiprocess metrics its live gauges stop counting."""
    if os.environ.get(MULTIPROC_ENV):
        from lawspeaker.observe import metrics

        metrics.process_exited(pid)


def _signal(proc: asyncio.subprocess.Process | None, sig: signal.Signals) -> None:
    if proc is not None and proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)


def _how(code: int) -> str:
    """How a process ended, from its exit code (negative: the signal that ended it)."""
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
        return f"was killed by signal {-code}"
    return f"exited with {code}"


async def _within(waiting: Awaitable[T], seconds: float) -> bool:
    """Whether ``waiting`` finished within ``seconds``."""
    try:
        await asyncio.wait_for(waiting, seconds)
    except TimeoutError:
        return False
    return True


async def as_worker(serving: Awaitable[None], supervisor: int) -> None:
    """Run ``serving`` (a worker's ``cli.serve``), draining it as on SIGTERM once its supervisor is
    gone (its parent is no longer ``supervisor``), so that no orphan keeps serving the ports."""
    task = asyncio.ensure_future(serving)
    told = False
    while True:
        done, _ = await asyncio.wait({task}, timeout=ORPHAN_CHECK_SECONDS)
        if done:
            return task.result()
        if not told and os.getppid() != supervisor:
            log.warning("the supervisor (pid %d) is gone: this worker drains and stops", supervisor)
            os.kill(os.getpid(), signal.SIGTERM)
            told = True
