"""Misconfiguration of the session store refused at start in one line (issue 36 item 4).

``lawspeaker serve`` as a user runs it: a malformed ``--redis-url`` of any kind, a plain ``redis://``
URL that names a Redis Cluster node, a ``redis+cluster://`` URL whose seeds are not cluster nodes:
exit code 1, one line that names the problem (and the URL to use), no traceback. A Redis that does
not answer at start is no misconfiguration: the service starts and answers 503 until it does. At
runtime, a server that became a cluster node (MOVED on a plain URL) is UNAVAILABLE, with a logged
explanation, never a 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
from transport.test_hostile_input import SERVE
from transport.test_serve_command import start

from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions.store import RedisStore, SessionKey, StoreConfigError, check_url

from .cluster import LocalCluster
from .ports import free_port

pytestmark = [pytest.mark.sessions, pytest.mark.transport]
HAVE_REDIS = shutil.which("redis-server") is not None
REDIS = ["redis-server", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--port"]
MALFORMED = [
    "redis://:x",
    "foo://h",
    "redis://h:99999",
    "redis://h:0",
    "redis://h:-1",
    "redis+cluster://",
    "redis+cluster://h",
    "redis+cluster://h:70000",
    "unix://",
    "redis://",
    "rediss://",
    "redis://[::1",
    "redis://h/abc",
    "redis://h?socket_timeout=abc",
    "redis://h?db=x",
    "redis://h?protocol=7",
    "redis://h?no_such_option=1",
    "rediss://h?ssl_cert_reqs=bogus",
    "rediss://h?ssl_ca_certs=/no/such/ca.pem",
    "redis+cluster://h:7000?socket_timeout=abc",
    "http://h:6379",
]


def serve_refusal(url: str, timeout: float = 30) -> tuple[int, list[str]]:
    """``lawspeaker serve --redis-url url``'s exit code and stderr lines (it must not start)."""
    done = subprocess.run(
        [*SERVE, "--redis-url", url],
        env={**os.environ, "LAWSPEAKER_LOG_FORMAT": "text"},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert "grpc_port=" not in done.stdout, f"{url}: it started"
    return done.returncode, [line for line in done.stderr.splitlines() if line.strip()]


def _refusal_line(lines: list[str]) -> str:
    """The one line that refuses, and nothing that looks like a traceback."""
    assert not [line for line in lines if "Traceback" in line or line.startswith("  File ")], lines
    refusing = [
        line for line in lines if "--redis-url" in line and ("ERROR" in line or line.startswith("--"))
    ]
    assert len(refusing) == 1, lines
    return refusing[0]


@pytest.mark.parametrize("url", MALFORMED)
def test_a_malformed_redis_url_is_refused_in_one_line_before_anything_starts(url: str) -> None:
    with pytest.raises(StoreConfigError):
        check_url(url)
    code, lines = serve_refusal(url)
    assert code == 1, (url, lines)
    assert lines == [_refusal_line(lines)], lines  # that line alone: nothing started
    assert lines[0].startswith("--redis-url: "), lines


def test_a_password_in_a_refused_url_is_not_shown() -> None:
    code, lines = serve_refusal("redis://user:s3cret@h/abc?password=s3cret")
    assert code == 1 and "s3cret" not in "\n".join(lines), lines


@contextlib.contextmanager
def cluster_node() -> Iterator[int]:
    """A redis-server with cluster mode on (not yet in a cluster): its port."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [
                *REDIS,
                str(port),
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                str(Path(tmp) / "nodes.conf"),
                "--cluster-port",
                str(free_port()),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            client = redis.Redis(port=port, socket_connect_timeout=0.2)
            deadline = time.monotonic() + 10
            while True:
                with contextlib.suppress(redis.RedisError):
                    if client.ping():
                        break
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.02)
            yield port
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)


@pytest.mark.skipif(not HAVE_REDIS, reason="needs redis-server")
def test_a_plain_url_naming_a_cluster_node_is_refused_naming_the_url_to_use() -> None:
    with cluster_node() as port:
        code, lines = serve_refusal(f"redis://127.0.0.1:{port}")
    assert code == 1, lines
    line = _refusal_line(lines)
    assert f"redis://127.0.0.1:{port} is a Redis Cluster node" in line, line
    assert f"use --redis-url redis+cluster://127.0.0.1:{port}" in line, line


@pytest.mark.skipif(not HAVE_REDIS, reason="needs redis-server")
def test_a_cluster_url_whose_seeds_are_not_cluster_nodes_is_refused_naming_the_url_to_use() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [*REDIS, str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(redis.RedisError):
                if redis.Redis(port=port, socket_connect_timeout=0.2).ping():
                    break
            assert time.monotonic() < deadline
            time.sleep(0.02)
        code, lines = serve_refusal(f"redis+cluster://127.0.0.1:{port}")
    finally:
        proc.kill()
        proc.wait(10)
    assert code == 1, lines
    line = _refusal_line(lines)
    assert f"seed 127.0.0.1:{port} is not a Redis Cluster node" in line, line
    assert f"use --redis-url redis://127.0.0.1:{port}" in line, line


def test_a_redis_that_does_not_answer_at_start_is_no_refusal_the_service_answers_503() -> None:
    url = f"redis://127.0.0.1:{free_port()}"  # nothing listens there
    env = {"LAWSPEAKER_CREATE_RATE": "0"}
    proc, _, http_port = start(
        ["--host", "127.0.0.1", "--grpc-port", "0", "--http-port", "0", "--redis-url", url], env
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{http_port}", timeout=30) as http:
            made = http.post("/v1/sessions", json={"game": "valhalla", "players": 2})
            assert made.status_code == 503 and made.json()["reason"] == "SESSION_STORE_UNAVAILABLE", made.text
            details = http.get("/healthz/details").json()["sessions"]
            assert details["available"] is False and details["degraded"] is True, details
    finally:
        proc.terminate()
        proc.wait(20)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.mark.skipif(not HAVE_REDIS, reason="needs redis-server")
def test_moved_on_a_plain_url_is_unavailable_with_a_logged_explanation(
    redis_cluster: LocalCluster, caplog: pytest.LogCaptureFixture
) -> None:
    """A server that became a Redis Cluster node after the service started: the keys of another
    node's slots answer MOVED, over the pipelined connection (load) and redis-py (the log)."""

    async def body() -> None:
        store = RedisStore(f"redis://127.0.0.1:{redis_cluster.ports[0]}", prefix=f"t{secrets.token_hex(4)}")
        try:
            calls = {"load": 0, "read_log": 0}
            for i in range(200):  # some of these sessions' slots are on the other two nodes
                key = SessionKey(f"valhalla.{i}", "test")
                for name in calls:
                    try:
                        if name == "load":
                            await store.load(key)
                        else:
                            await store.read_log(key, 0, 1)
                    except LawspeakerError as err:
                        assert err.code is ErrorCode.UNAVAILABLE and err.reason == "SESSION_STORE_UNAVAILABLE"
                        assert "Redis: MOVED" in err.message or "Redis: MovedError" in err.message, (
                            err.message
                        )
                        calls[name] += 1
            assert calls["load"] > 0 and calls["read_log"] > 0, calls
        finally:
            await store.close()

    with caplog.at_level(logging.ERROR, logger="lawspeaker.sessions"):
        asyncio.run(body())
    explained = [
        r.getMessage() for r in caplog.records if "answers as a Redis Cluster node" in r.getMessage()
    ]
    assert len(explained) == 2, [r.getMessage() for r in caplog.records]  # once per call site
    assert "--redis-url redis+cluster://" in explained[0]
