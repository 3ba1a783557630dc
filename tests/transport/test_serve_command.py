"""`lawspeaker serve` as a user runs it: ports from flags or environment, both transports up,
graceful shutdown on SIGTERM."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

pytestmark = pytest.mark.transport


def start(
    args: list[str], env: dict[str, str], stderr: int = subprocess.DEVNULL
) -> tuple[subprocess.Popen[str], int, int]:
    """``lawspeaker serve *args`` and its ports; its log (stderr) is dropped unless ``stderr`` says
    where (``subprocess.STDOUT``: read with stdout, after the ports' line)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "lawspeaker", "serve", *args],
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.time() + 30
    while time.time() < deadline:
        line = proc.stdout.readline()
        found = re.search(r"grpc_port=(\d+) http_port=(\d+)", line)
        if found:
            return proc, int(found.group(1)), int(found.group(2))
        if not line and proc.poll() is not None:
            break
    proc.kill()
    pytest.fail("lawspeaker serve did not report its ports")


@contextlib.contextmanager
def serving(launches: list[tuple[list[str], dict[str, str]]]) -> Iterator[list[str]]:
    """One `lawspeaker serve` per (arguments, environment), on free loopback ports; their HTTP base
    URLs. Each is stopped with SIGTERM at the end (killed if it does not stop within 20 s)."""
    procs: list[subprocess.Popen[str]] = []
    urls = []
    try:
        for args, env in launches:
            proc, _, http_port = start(
                ["--host", "127.0.0.1", "--grpc-port", "0", "--http-port", "0", *args], env
            )
            procs.append(proc)
            urls.append(f"http://127.0.0.1:{http_port}")
        yield urls
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
            if proc.stdout is not None:
                proc.stdout.close()


@pytest.mark.parametrize("via", ["flags", "environment"])
def test_serve_answers_on_both_ports_and_stops_gracefully_on_sigterm(via: str) -> None:
    if via == "flags":
        proc, grpc_port, http_port = start(
            ["--host", "127.0.0.1", "--grpc-port", "0", "--http-port", "0"], {}
        )
    else:
        env = {"LAWSPEAKER_HOST": "127.0.0.1", "LAWSPEAKER_GRPC_PORT": "0", "LAWSPEAKER_HTTP_PORT": "0"}
        proc, grpc_port, http_port = start([], env)
    try:
        r = httpx.post(
            f"http://127.0.0.1:{http_port}/v1/games/valhalla:new",
            json={"players": 2, "seed": "1"},
            timeout=10,
        )
        assert r.status_code == 200 and "valhalla" in r.json()["state"]
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail("lawspeaker serve did not stop within 20 s of SIGTERM")
    assert code == 0
