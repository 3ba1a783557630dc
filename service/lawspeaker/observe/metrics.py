"""Prometheus metrics (prometheus-client): what the service exports on ``GET /metrics``.

Every metric is defined here, once, and recorded through the small functions below, which do
nothing while metrics are off (``lawspeaker serve --no-metrics``). Labels stay bounded: a game id
only once the registry knows it, an RPC name only from the contract, a reason only from the
catalogue; never a session id, a token or a request id.

**Several processes.** ``lawspeaker serve --workers N`` runs N processes behind one port, so a
scrape reaches one of them. The supervisor sets ``PROMETHEUS_MULTIPROC_DIR`` before it starts them
(prometheus-client's multiprocess mode: each process writes its values to memory-mapped files in
that directory) and any worker's ``/metrics`` answers for all of them: counters and histograms
summed, gauges as each says (:data:`GAUGE_MODES`), process metrics per worker (``pid`` label).
The environment variable must be set before this module is first imported (prometheus-client
chooses where values live at import), which ``lawspeaker.server.workers`` does.

Several replicas each export their own series; Prometheus adds the ``instance`` label, and the
dashboard and alerts in ``deploy/observability/`` sum over it.
"""

from __future__ import annotations

import bisect
import gc
import glob
import os
import re
import time
from collections.abc import Iterable, Iterator
from typing import Any, cast

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
    multiprocess,
    start_http_server,
)
from prometheus_client.core import Metric
from prometheus_client.registry import Collector

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = CONTENT_TYPE_LATEST

# Buckets that resolve a sub-millisecond call: a stateless rules call takes 50-500 us here.
LATENCY_BUCKETS = (
    0.0001,
    0.00025,
    0.0005,
    0.00075,
    0.001,
    0.0025,
    0.005,
    0.0075,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)
STORE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0)

_on = True
cast(Any, disable_created_metrics)()  # the *_created series double a scrape's size and nobody graphs them


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


REQUESTS = Counter(
    "lawspeaker_requests",
    "Calls answered, by transport (grpc, rest, connect, grpc-web), service, method, game and outcome code "
    "(the gRPC status code name, also for REST and Connect). Non-RPC HTTP routes (health, schema, "
    "docs, metrics, unmatched paths) count as service and method 'other'.",
    ("transport", "service", "method", "game", "code"),
)
DURATION = Histogram(
    "lawspeaker_request_duration_seconds",
    "Time from a unary call's request to its answer in the service (streams are not observed).",
    ("transport", "service", "method", "game"),
    buckets=LATENCY_BUCKETS,
)
MOVES_REJECTED = Counter(
    "lawspeaker_moves_rejected",
    "Moves refused by a rule (ApplyMove and SessionApplyMove) or found illegal (ValidateMove and "
    "SessionValidateMove), by game, method and the rule's reason code.",
    ("game", "method", "reason"),
)
SESSIONS_CREATED = Counter("lawspeaker_sessions_created", "Game sessions created, by game.", ("game",))
SESSIONS_LIVE = Gauge(
    "lawspeaker_sessions_live",
    "Live game sessions in the store (all replicas share it), read when scraped; the store is "
    "'redis', 'cluster' or 'memory'.",
    ("store",),
    multiprocess_mode="mostrecent",
)
SESSIONS_LIMIT = Gauge(
    "lawspeaker_sessions_limit",
    "The cap on live sessions (--max-sessions).",
    multiprocess_mode="mostrecent",
)
WATCH_STREAMS = Gauge(
    "lawspeaker_watch_streams_open",
    "WatchSession streams open in this replica, by transport.",
    ("transport",),
    multiprocess_mode="livesum",
)
WATCH_LIMIT = Gauge(
    "lawspeaker_watch_streams_limit",
    "The watch streams this replica serves at most (its worker processes' limits, summed).",
    multiprocess_mode="livesum",
)
WRITE_CONFLICTS = Counter(
    "lawspeaker_session_write_conflicts",
    "Session writes refused because the etag sent is not the session's version (another write "
    "came first), by game.",
    ("game",),
)
REPLAYS = Counter(
    "lawspeaker_idempotent_replays",
    "SessionApplyMove retries answered from their request id's record instead of moving again.",
    ("game",),
)
TIMEOUTS = Counter(
    "lawspeaker_timeouts",
    "Turn clocks that ran out and what the session's clock did about it (action: bot, forfeit), by game.",
    ("game", "action"),
)
SEATS_LEFT = Counter(
    "lawspeaker_seats_left",
    "Seats whose person left the game (kind: resigned, left_to_bot, forfeited_on_time), by game.",
    ("game", "kind"),
)
SEATS_CLAIMED = Counter(
    "lawspeaker_seats_claimed",
    "Open seats claimed from the lobby (ClaimSeat), by game.",
    ("game",),
)
REMATCHES = Counter(
    "lawspeaker_rematches",
    "Rematches made (Rematch), by game.",
    ("game",),
)
WEBHOOK_DELIVERIES = Counter(
    "lawspeaker_webhook_deliveries",
    "Webhook delivery attempts and their outcome: delivered (a 2xx answer), failed (anything else; "
    "retried), expired (given up after --webhook-retry-seconds), refused (an address or URL the "
    "service may not call).",
    ("outcome",),
)
WEBHOOKS_PENDING = Gauge(
    "lawspeaker_webhook_pending_sessions",
    "Sessions with webhook events not yet delivered (or looked at once more), in the store's pending "
    "index (all replicas share it), read when scraped.",
    multiprocess_mode="mostrecent",
)
BOT_MOVES = Counter(
    "lawspeaker_bot_moves",
    "Moves the bots chose (SuggestMove answers and bot seats' moves in sessions), by game and level.",
    ("game", "level"),
)
BOT_SECONDS = Histogram(
    "lawspeaker_bot_think_seconds",
    "Time from a bot move's request to its answer, waiting for a worker included, by game and level.",
    ("game", "level"),
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
BOT_PLAYOUTS = Counter(
    "lawspeaker_bot_playouts",
    "Playouts the search bots ran, by game.",
    ("game",),
)
BOTS_BUSY = Counter(
    "lawspeaker_bots_busy",
    "SuggestMove calls refused (BOTS_BUSY) because every bot worker was thinking and the queue was "
    "full, by game.",
    ("game",),
)
BOTS_WAITING = Gauge(
    "lawspeaker_bots_waiting",
    "Bot moves waiting for a worker process in this replica.",
    multiprocess_mode="livesum",
)
STORE_CALLS = Counter(
    "lawspeaker_store_round_trips",
    "Round trips to the session store (Redis), by store and operation.",
    ("store", "operation"),
)
STORE_ERRORS = Counter(
    "lawspeaker_store_errors",
    "Round trips to the session store that failed (unreachable, timed out, or refusing for now).",
    ("store", "operation"),
)
STORE_DURATION = Histogram(
    "lawspeaker_store_round_trip_seconds",
    "Time of a round trip to the session store, by store and operation.",
    ("store", "operation"),
    buckets=STORE_BUCKETS,
)
STORE_UP = Gauge(
    "lawspeaker_store_up",
    "1 while the session store answered the last round trip (or the last scrape's read), 0 after a failure.",
    ("store",),
    multiprocess_mode="mostrecent",
)
STORE_WRITABLE = Gauge(
    "lawspeaker_store_writable",
    "1 while the session store took the last write (or write probe), 0 while Redis refuses writes "
    "(OOM when full with maxmemory-policy noeviction, READONLY): sessions can be read, not created or "
    "moved.",
    ("store",),
    multiprocess_mode="mostrecent",
)
GC_COLLECTIONS = Counter(
    "lawspeaker_gc_collections",
    "Garbage collections, by generation (counted as they happen, in every worker process).",
    ("generation",),
)
GC_COLLECTED = Counter(
    "lawspeaker_gc_collected_objects",
    "Objects freed by the garbage collector, by generation.",
    ("generation",),
)
GC_SECONDS = Counter("lawspeaker_gc_seconds", "Time spent in garbage collection.")
BUILD = Gauge(
    "lawspeaker_build_info",
    "1, labelled with the service's version and each game's rules version.",
    ("version", "rules"),
    multiprocess_mode="max",
)

MOVE_METHODS = frozenset({"ValidateMove", "ApplyMove", "SessionValidateMove", "SessionApplyMove"})


def enabled() -> bool:
    return _on


def set_enabled(on: bool) -> None:
    global _on
    _on = on


# --------------------------------------------------------------------------- recording

# The calls answered since the last flush, counted in plain Python: what every call records, so its
# cost is two dict lookups and a bisect, not prometheus-client's locks and checks (about a third of
# what metrics cost a REST call). ``flush`` hands them to the metrics: on every scrape of the HTTP
# port, and every FLUSH_SECONDS from ``lawspeaker serve`` (the other workers' share of a scrape, and
# a ``--metrics-port`` served from another thread). Only the event loop's thread records and flushes.
FLUSH_SECONDS = 1.0
_counts: dict[tuple[str, str, str, str, str], int] = {}
_timings: dict[tuple[str, str, str, str], list[float]] = {}  # sum, then one count per bucket (+Inf last)
_BOUNDS = LATENCY_BUCKETS


def request(transport: str, service: str, method: str, game: str, code: str, seconds: float | None) -> None:
    """One call answered; ``seconds`` is None for a stream (not observed in the histogram). Counted
    here until the next :func:`flush`."""
    key = (transport, service, method, game, code)
    _counts[key] = _counts.get(key, 0) + 1
    if seconds is not None:
        timing = _timings.get((transport, service, method, game))
        if timing is None:
            timing = _timings[(transport, service, method, game)] = [0.0] * (len(_BOUNDS) + 2)
        timing[0] += seconds
        timing[1 + bisect.bisect_left(_BOUNDS, seconds)] += 1  # the first bucket it fits, as observe


def flush() -> None:
    """Add the calls counted since the last flush to REQUESTS and DURATION."""
    global _counts, _timings
    if not _counts and not _timings:
        return
    counts, _counts = _counts, {}
    timings, _timings = _timings, {}
    for key, n in counts.items():
        REQUESTS.labels(*key).inc(n)
    for dkey, timing in timings.items():
        _add_observations(DURATION.labels(*dkey), timing)


def _add_observations(child: Any, timing: list[float]) -> None:
    """What ``observe`` would have done for each call of ``timing``, in one step per bucket: the
    histogram's own values (non-cumulative buckets, the sum), which prometheus-client keeps in
    ``_buckets`` and ``_sum`` (its API observes one value at a time). ``test_metrics_flush`` holds
    the exposition equal to observing each value, so a change of those internals fails a test."""
    buckets, total = getattr(child, "_buckets", None), getattr(child, "_sum", None)
    if buckets is None or total is None or len(buckets) != len(timing) - 1:  # internals changed
        for bound, count in zip((*_BOUNDS, _BOUNDS[-1] * 2), timing[1:], strict=True):
            for _ in range(int(count)):
                child.observe(bound)  # each call at its bucket's bound: the sum is then approximate
        return
    total.inc(timing[0])
    for value, count in zip(buckets, timing[1:], strict=True):
        if count:
            value.inc(count)


def rejected(game: str, method: str, reason: str) -> None:
    if _on:
        MOVES_REJECTED.labels(game, method, reason).inc()


def session_created(game: str) -> None:
    if _on:
        SESSIONS_CREATED.labels(game).inc()


def write_conflict(game: str) -> None:
    if _on:
        WRITE_CONFLICTS.labels(game).inc()


def timeout_fired(game: str, action: str) -> None:
    if _on:
        TIMEOUTS.labels(game, action).inc()


def webhook_delivery(outcome: str) -> None:
    if _on:
        WEBHOOK_DELIVERIES.labels(outcome).inc()


def webhooks_pending(pending: int) -> None:
    if _on:
        WEBHOOKS_PENDING.set(pending)


def seat_left(game: str, kind: str) -> None:
    if _on:
        SEATS_LEFT.labels(game, kind).inc()


def seat_claimed(game: str) -> None:
    if _on:
        SEATS_CLAIMED.labels(game).inc()


def rematch_made(game: str) -> None:
    if _on:
        REMATCHES.labels(game).inc()


def replayed(game: str) -> None:
    if _on:
        REPLAYS.labels(game).inc()


def watch_opened(transport: str) -> None:
    if _on:
        WATCH_STREAMS.labels(transport).inc()


def watch_closed(transport: str) -> None:
    if _on:
        WATCH_STREAMS.labels(transport).dec()


def bot_move(game: str, level: str, seconds: float, playouts: int) -> None:
    if _on:
        BOT_MOVES.labels(game, level).inc()
        BOT_SECONDS.labels(game, level).observe(seconds)
        if playouts:
            BOT_PLAYOUTS.labels(game).inc(playouts)


def bot_refused(game: str) -> None:
    if _on:
        BOTS_BUSY.labels(game).inc()


def bots_waiting(waiting: int) -> None:
    if _on:
        BOTS_WAITING.set(waiting)


class StoreMeter:
    """The round trips of one session store: ``with meter.trip("load"):`` around each."""

    def __init__(self, store: str) -> None:
        self.store = store
        self._children: dict[str, tuple[Any, Any, Any]] = {}
        self._up = STORE_UP.labels(store)
        self._was_up: bool | None = None
        self._writable = STORE_WRITABLE.labels(store)
        self._was_writable: bool | None = None

    def _of(self, operation: str) -> tuple[Any, Any, Any]:
        found = self._children.get(operation)
        if found is None:
            found = self._children[operation] = (
                STORE_CALLS.labels(self.store, operation),
                STORE_DURATION.labels(self.store, operation),
                STORE_ERRORS.labels(self.store, operation),
            )
        return found

    def record(self, operation: str, seconds: float, ok: bool) -> None:
        if not _on:
            return
        calls, duration, failures = self._of(operation)
        calls.inc()
        duration.observe(seconds)
        if not ok:
            failures.inc()
        self.up(ok)

    def up(self, ok: bool) -> None:
        if _on and ok is not self._was_up:  # a gauge write only when it changes
            self._was_up = ok
            self._up.set(1 if ok else 0)

    def writable(self, ok: bool) -> None:
        """Whether the store took the last write (or write probe)."""
        if _on and ok is not self._was_writable:
            self._was_writable = ok
            self._writable.set(1 if ok else 0)


def sessions_read(store: str, live: int | None, cap: int) -> None:
    """What a scrape read of the store: its live sessions (None: it did not answer)."""
    if not _on:
        return
    SESSIONS_LIMIT.set(cap)
    if live is not None:
        SESSIONS_LIVE.labels(store).set(live)


def watch_limit(limit: int) -> None:
    """This process's watch stream limit (summed over a replica's worker processes)."""
    if _on:
        WATCH_LIMIT.set(limit)


def build_info(version: str, rules: str) -> None:
    if _on:
        BUILD.labels(version, rules).set(1)


# --------------------------------------------------------------------------- garbage collection

_gc_started: float | None = None


def _gc_callback(phase: str, info: dict[str, int]) -> None:
    global _gc_started
    if phase == "start":
        _gc_started = time.perf_counter()
        return
    generation = str(info.get("generation", 0))
    GC_COLLECTIONS.labels(generation).inc()
    collected = info.get("collected", 0)
    if collected:
        GC_COLLECTED.labels(generation).inc(collected)
    if _gc_started is not None:
        GC_SECONDS.inc(time.perf_counter() - _gc_started)
        _gc_started = None


def watch_gc() -> None:
    """Count this process's garbage collections (every worker's, summed, in multiprocess mode)."""
    if _on and _gc_callback not in gc.callbacks:
        gc.callbacks.append(_gc_callback)


# --------------------------------------------------------------------------- exposition


class WorkerProcesses(Collector):
    """Process metrics (CPU, memory, open files, start time) of every worker process writing to
    the multiprocess directory, each with its ``pid``; prometheus-client's ProcessCollector reads
    them from ``/proc``. A worker that has exited is left out."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def pids(self) -> list[int]:
        found = set()
        for path in glob.glob(os.path.join(self.directory, "*.db")):
            match = re.search(r"_(\d+)\.db$", path)
            if match and os.path.exists(f"/proc/{match[1]}"):
                found.add(int(match[1]))
        return sorted(found)

    def collect(self) -> Iterator[Metric]:
        merged: dict[str, Metric] = {}
        for pid in self.pids():
            collector = ProcessCollector(pid=lambda pid=pid: pid, registry=None)  # type: ignore[misc]
            for metric in collector.collect():
                out = merged.get(metric.name)
                if out is None:
                    out = merged[metric.name] = Metric(metric.name, metric.documentation, metric.type)
                for sample in metric.samples:
                    out.add_sample(sample.name, {**sample.labels, "pid": str(pid)}, sample.value)
        yield from merged.values()


def exposition_registry() -> CollectorRegistry:
    """What a scrape shows: this process's registry, or in multiprocess mode one reading every
    worker's files (the supervisor's ``--metrics-port`` serves it too, recording nothing itself)."""
    directory = multiprocess_dir()
    if directory is None:
        return REGISTRY
    registry = CollectorRegistry()
    cast(Any, multiprocess.MultiProcessCollector)(registry, path=directory)
    registry.register(WorkerProcesses(directory))
    return registry


def render() -> bytes:
    """The Prometheus text exposition of this process, or of every worker in multiprocess mode
    (this process's calls flushed first; the others' within FLUSH_SECONDS)."""
    flush()
    return generate_latest(exposition_registry())


def serve_port(host: str, port: int) -> int:
    """Serve the exposition on its own port (``--metrics-port``), in a thread; the bound port."""
    server, _ = start_http_server(port, addr=host, registry=exposition_registry())
    return int(server.server_port)


def prepare_directory(directory: str) -> None:
    """An empty multiprocess directory (values left by an earlier run would be added to this one's)."""
    os.makedirs(directory, exist_ok=True)
    for path in glob.glob(os.path.join(directory, "*.db")):
        os.remove(path)


def forget_ended_processes() -> None:
    """In multiprocess mode without a supervisor (one process started with
    ``PROMETHEUS_MULTIPROC_DIR`` set): drop the files of processes that no longer run, values of an
    earlier run that would otherwise be added to this one's. (A supervisor empties the directory
    before its workers start and keeps an ended worker's counts: they are part of the totals.)"""
    directory = multiprocess_dir()
    if directory is None:
        return
    for path in glob.glob(os.path.join(directory, "*.db")):
        match = re.search(r"_(\d+)\.db$", path)
        if match and not os.path.exists(f"/proc/{match[1]}"):
            os.remove(path)


def process_exited(pid: int) -> None:
    """A worker has exited: its live gauges (watch streams, its share of the limit) no longer count."""
    directory = multiprocess_dir()
    if directory is not None:
        cast(Any, multiprocess.mark_process_dead)(pid, directory)


def defined() -> list[Any]:
    """Every metric this module defines."""
    return [m for m in globals().values() if isinstance(m, (Counter, Gauge, Histogram))]


def exported_names() -> set[str]:
    """The name of every sample the service can export (``_total``, ``_bucket`` ... included)."""
    names: set[str] = set()
    for metric in defined():
        names.update(_sample_names(metric))
    for family in ProcessCollector(registry=None).collect():
        names.update(s.name for s in family.samples)
        names.add(family.name)
    return names


def exported_labels() -> dict[str, frozenset[str]]:
    """The labels each sample name of :func:`exported_names` carries (``le`` on buckets; ``pid`` on
    process metrics, which only ``--workers`` adds). Prometheus adds ``job`` and ``instance``."""
    out: dict[str, frozenset[str]] = {}
    for metric in defined():
        labels = frozenset(metric._labelnames)
        for name in _sample_names(metric):
            out[name] = labels | ({"le"} if name.endswith("_bucket") else set())
    for family in ProcessCollector(registry=None).collect():
        for name in {family.name, *(s.name for s in family.samples)}:
            out[name] = frozenset({"pid"})
    return out


def _sample_names(metric: Any) -> Iterable[str]:
    name: str = metric._name
    kind: str = metric._type
    if kind == "counter":
        return (name, name + "_total")
    if kind == "histogram":
        return (name, name + "_bucket", name + "_count", name + "_sum")
    return (name,)
