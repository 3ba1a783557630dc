"""``GET /metrics`` of ``lawspeaker serve`` as a process: with ``--workers 2`` (prometheus-client's
multiprocess mode) any worker's scrape shows every worker's calls, each worker's process metrics
under its ``pid``, and a killed worker's live gauges gone; ``--metrics-port`` on the supervisor or
on a single process; ``--no-metrics``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import httpx
import pytest
import redis
from prometheus_client import CollectorRegistry, generate_latest, multiprocess
from sessions.ports import free_port

from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import rules_service_pb2_grpc

from .conftest import REDIS_URL, redis_up
from .test_metrics import Samples, parse, raw_watch, scrape, value
from .test_serve_command import serving, start
from .test_workers import LOOPBACK, Group, gone, run_to_end, stop, wait_until, workers

pytestmark = pytest.mark.transport
needs_redis = pytest.mark.skipif(not redis_up(), reason=f"needs Redis at {REDIS_URL}")

REQUESTS = "lawspeaker_requests_total"
RULES = "RulesService"


# --------------------------------------------------------------------------- calls and counts


def rest_call(url: str) -> None:
    """A REST NewGame over a new connection (so over either worker)."""
    r = httpx.post(f"{url}/v1/games/valhalla:new", json={"players": 2, "seed": "1"}, timeout=10)
    assert r.status_code == 200, r.text


def grpc_call(port: int) -> None:
    """A gRPC ListGames over a new channel (a new connection, so over either worker)."""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        assert (
            rules_service_pb2_grpc.RulesServiceStub(channel)
            .ListGames(pb.ListGamesRequest(), timeout=10)
            .games
        )


def rules_calls(samples: Samples) -> dict[str, float]:
    """The RulesService calls a scrape counts, by transport."""
    return {t: value(samples, REQUESTS, transport=t, service=RULES) for t in ("rest", "grpc", "connect")}


def multiproc_dir(pid: int) -> Path:
    """The multiprocess directory a worker writes its metrics to (from its environment)."""
    for item in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
        name, _, found = item.partition(b"=")
        if name == b"PROMETHEUS_MULTIPROC_DIR":
            return Path(found.decode())
    pytest.fail(f"worker {pid} has no PROMETHEUS_MULTIPROC_DIR")


def own_calls(directory: Path, pid: int) -> float:
    """The RulesService calls worker ``pid`` itself counted: its counter file alone, read as the
    exposition reads every worker's."""
    with tempfile.TemporaryDirectory() as alone:
        source = directory / f"counter_{pid}.db"
        if not source.exists():
            return 0
        shutil.copy(source, alone)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=alone)  # type: ignore[no-untyped-call]
        return value(parse(generate_latest(registry).decode()), REQUESTS, service=RULES)


def spread_calls(group: Group, directory: Path) -> dict[str, int]:
    """REST and gRPC calls over new connections until each worker answered some (the kernel picks the
    worker of each connection); how many of each were made."""
    made = {"rest": 0, "grpc": 0}
    deadline = time.monotonic() + 30  # a worker writes its counts to its files every second
    while time.monotonic() < deadline:
        rest_call(group.base_url)
        grpc_call(group.grpc_port)
        made["rest"] += 1
        made["grpc"] += 1
        if made["rest"] >= 4 and all(own_calls(directory, pid) for pid in group.workers()):
            return made
        time.sleep(0.02)
    pytest.fail(f"{made['rest'] + made['grpc']} connections in 30 s all went to one worker")


def settled(url: str, made: dict[str, int]) -> None:
    """Wait until a scrape of ``url`` counts the calls ``made``: each worker adds its calls to the
    metrics within a second (``metrics.FLUSH_SECONDS``), the one answering a scrape at once."""
    wait_until(lambda: rules_calls(scrape(url)) == made, seconds=10, what=f"{made} counted at {url}")


def serving_workers(group: Group) -> set[int]:
    wait_until(lambda: len(group.workers()) == 2, what="two workers")
    pids = group.workers()
    for pid in pids:
        wait_until(lambda pid=pid: group.serving(pid), what=f"worker {pid} serving")  # type: ignore[misc]
    return pids


def connection_owner(group: Group, client: socket.socket) -> int:
    """The worker holding the server end of ``client``'s connection to the HTTP port (from /proc)."""
    local = client.getsockname()[1]
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                mine = int(fields[1].rsplit(":", 1)[1], 16) == group.http_port
                if mine and int(fields[2].rsplit(":", 1)[1], 16) == local:
                    inodes.add(fields[9])
    for pid in group.workers():
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:[") and target[8:-1] in inodes:
                        return pid
    pytest.fail("no worker holds the watch connection")


def create_session(url: str) -> tuple[str, str]:
    r = httpx.post(f"{url}/v1/sessions", json={"game": "valhalla", "players": 2, "seed": "5"}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["session"]["session"], r.json()["seatTokens"][0]["token"]


# --------------------------------------------------------------------------- the tests


@needs_redis
def test_any_worker_s_scrape_shows_every_worker_and_a_killed_worker_s_live_gauges_go() -> None:
    with workers(2) as group:
        pids = serving_workers(group)
        directory = multiproc_dir(next(iter(pids)))
        made = spread_calls(group, directory)
        settled(group.base_url, {**made, "connect": 0})
        for _ in range(6):  # each scrape over a new connection: either worker answers it
            samples = scrape(group.base_url)
            assert rules_calls(samples) == {**made, "connect": 0}
            for name in ("process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds"):
                assert {dict(labels)["pid"] for labels in samples[name]} == {str(p) for p in pids}, name
            assert value(samples, "lawspeaker_gc_collections_total") > 0
            assert value(samples, "lawspeaker_build_info") == 1
            assert value(samples, "lawspeaker_store_up", store="redis") == 1
            limits = value(samples, "lawspeaker_watch_streams_limit")
            assert limits > 0 and limits % 2 == 0  # two workers' limits, summed

        # a watch stream open on one worker; that worker killed
        session, token = create_session(group.base_url)
        with raw_watch(group.http_port, session, token) as watch:
            assert value(scrape(group.base_url), "lawspeaker_watch_streams_open", transport="rest") == 1
            victim = connection_owner(group, watch)
            assert (directory / f"gauge_livesum_{victim}.db").exists()
            os.kill(victim, signal.SIGKILL)
            wait_until(lambda: gone(victim), what="the killed worker to exit")
        wait_until(
            lambda: len(group.workers() - {victim}) == 2, what="a new worker in the killed one's place"
        )
        replaced = serving_workers(group)
        wait_until(
            lambda: not (directory / f"gauge_livesum_{victim}.db").exists(),
            what="the killed worker's live gauges to be dropped",
        )
        for _ in range(4):
            samples = scrape(group.base_url)
            assert value(samples, "lawspeaker_watch_streams_open") == 0
            assert value(samples, "lawspeaker_watch_streams_limit") == limits  # the new worker's share
            # the killed worker's counts stay: counters never go down
            assert rules_calls(samples) == {**made, "connect": 0}
            assert {dict(labels)["pid"] for labels in samples["process_resident_memory_bytes"]} == {
                str(p) for p in replaced
            }
        assert (directory / f"counter_{victim}.db").exists()
    assert not directory.exists()  # the supervisor's own directory goes with it


@needs_redis
def test_the_supervisor_s_metrics_port_serves_every_worker_and_the_http_port_does_not() -> None:
    port = free_port()
    with workers(2, "--metrics-port", str(port)) as group:
        pids = serving_workers(group)
        made = spread_calls(group, multiproc_dir(next(iter(pids))))
        settled(f"http://127.0.0.1:{port}", {**made, "connect": 0})
        for _ in range(4):
            samples = scrape(f"http://127.0.0.1:{port}")
            assert rules_calls(samples) == {**made, "connect": 0}
            assert value(samples, REQUESTS, service="other") == 0  # its scrapes are no calls of a worker
            assert {dict(labels)["pid"] for labels in samples["process_resident_memory_bytes"]} == {
                str(p) for p in pids
            }
        assert httpx.get(f"{group.base_url}/metrics", timeout=10).status_code == 404


@needs_redis
def test_an_operator_s_multiprocess_directory_is_emptied_of_an_earlier_run_s_values(tmp_path: Path) -> None:
    """Values left in ``PROMETHEUS_MULTIPROC_DIR`` by an earlier run would be added to this one's."""
    directory = tmp_path / "metrics"
    directory.mkdir()
    left = subprocess.run(
        [
            sys.executable,
            "-c",
            "from lawspeaker.observe import metrics; "
            "metrics.request('rest', 'RulesService', 'NewGame', 'valhalla', 'OK', 0.001); metrics.flush()",
        ],
        env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)},
        check=True,
    )
    assert left.returncode == 0 and list(directory.glob("counter_*.db"))
    prefix = f"test-metrics-{os.getpid()}-{tmp_path.name}"
    redis_args = ["--redis-url", REDIS_URL, "--redis-prefix", prefix]
    proc, grpc_port, http_port = start(
        [*LOOPBACK, "--grpc-port", "0", "--http-port", "0", "--workers", "2", *redis_args],
        {"PROMETHEUS_MULTIPROC_DIR": str(directory)},
    )
    group = Group(proc, grpc_port, http_port)
    try:
        serving_workers(group)
        rest_call(group.base_url)
        settled(group.base_url, {"rest": 1, "grpc": 0, "connect": 0})
    finally:
        stop(proc)
        client = redis.Redis.from_url(REDIS_URL)
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            client.delete(key)
        client.close()
    assert directory.exists()  # the operator's directory is left in place


def test_no_metrics_serves_no_metrics_and_a_metrics_port_serves_them_in_one_process() -> None:
    port = free_port()
    with serving([(["--no-metrics"], {}), (["--metrics-port", str(port)], {})]) as (off, elsewhere):
        assert httpx.get(f"{off}/metrics", timeout=10).status_code == 404
        rest_call(off)  # calls still work
        before = scrape(f"http://127.0.0.1:{port}")
        rest_call(elsewhere)
        assert httpx.get(f"{elsewhere}/metrics", timeout=10).status_code == 404
        settled(f"http://127.0.0.1:{port}", {**rules_calls(before), "rest": rules_calls(before)["rest"] + 1})
        after = scrape(f"http://127.0.0.1:{port}")
        assert rules_calls(after)["rest"] - rules_calls(before)["rest"] == 1
        assert value(after, "process_resident_memory_bytes") > 0
        assert value(after, "lawspeaker_gc_collections_total") > 0


@pytest.mark.parametrize("processes", ["one", "workers"])
def test_a_metrics_port_in_use_is_one_line_naming_it_and_exit_1(processes: str) -> None:
    """As for the other two ports: a metrics port that cannot be listened on stops the command
    before it serves, with one line naming the port and the flag, no traceback."""
    if processes == "workers" and not redis_up():
        pytest.skip(f"needs Redis at {REDIS_URL}")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        more = ["--workers", "2", "--redis-url", REDIS_URL] if processes == "workers" else []
        code, out, err = run_to_end(
            [*LOOPBACK, "--grpc-port", "0", "--http-port", "0", "--metrics-port", str(port), *more]
        )
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 1 and len(lines) == 1, err
    assert str(port) in lines[0] and "in use" in lines[0] and "--metrics-port" in lines[0], lines[0]
    assert not out.strip() and "Traceback" not in err
