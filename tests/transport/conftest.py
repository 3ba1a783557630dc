"""Fixtures that run the real gRPC and HTTP servers on loopback, in one event loop in a thread."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import httpx
import pytest
import redis
import uvicorn

from lawspeaker.api.rules import RulesApi
from lawspeaker.grpc.server import create_server
from lawspeaker.http.app import create_app, observed
from lawspeaker.http.limits import http_protocol
from lawspeaker.server.cli import _EmbeddedServer
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import MemoryStore
from lawspeaker.v1 import rules_service_pb2_grpc

REDIS_URL = "redis://127.0.0.1:6379/0"  # the machine's Redis, which the tests that need one use


@functools.cache
def redis_up() -> bool:
    """Whether Redis answers at REDIS_URL (asked once per test process)."""
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5).ping())
    except redis.RedisError:
        return False


@dataclass
class Servers:
    grpc_port: int
    http_port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"


@contextlib.contextmanager
def run_servers(
    api: RulesApi | None = None,
    sessions: Callable[[], SessionApi] | None = None,
    tracing: Any = None,
    compress_min_bytes: int | None = None,
    **http_limits: Any,
) -> Iterator[Servers]:
    """Both servers on loopback ports, sharing one event loop in a thread, for the block's duration.

    ``sessions`` makes the SessionApi (inside the servers' event loop) to serve SessionService too;
    ``tracing`` (a ``lawspeaker.server.tracing.Tracing``) instruments both as ``lawspeaker serve`` does;
    ``http_limits`` overrides the HTTP connections' send limits (``lawspeaker.http.limits``);
    ``compress_min_bytes`` the size from which responses are compressed (``--compress-min-bytes``).
    """
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    found: dict[str, Any] = {}
    stop: asyncio.Event | None = None

    async def run() -> None:
        nonlocal stop
        stop = asyncio.Event()
        rules = api if api is not None else RulesApi()
        session_api = sessions() if sessions is not None else None
        interceptors = tracing.grpc_interceptors() if tracing is not None else ()
        grpc_server, grpc_port = await create_server(
            "127.0.0.1:0", rules, session_api, interceptors=interceptors
        )
        await grpc_server.start()
        compress = {} if compress_min_bytes is None else {"compress_min_bytes": compress_min_bytes}
        app = observed(create_app(rules, session_api, **compress))  # as `lawspeaker serve` serves it
        http = _EmbeddedServer(
            uvicorn.Config(
                tracing.asgi(app) if tracing is not None else app,
                host="127.0.0.1",
                port=0,
                log_level="warning",
                lifespan="on",
                timeout_graceful_shutdown=2,
                proxy_headers=False,  # as `lawspeaker serve` runs it
                http=http_protocol(**http_limits),  # as `lawspeaker serve` has it
            )
        )
        task = asyncio.create_task(http.serve())
        while not http.started:
            if task.done():
                found["error"] = task.exception()
                ready.set()
                return
            await asyncio.sleep(0.01)
        found["ports"] = (grpc_port, http.servers[0].sockets[0].getsockname()[1])
        ready.set()
        await stop.wait()
        if session_api is not None:
            session_api.shutdown()
        http.should_exit = True
        await asyncio.gather(grpc_server.stop(1), task)
        if session_api is not None:
            await session_api.close()
        rules.bot_pool.close()

    thread = threading.Thread(target=lambda: loop.run_until_complete(run()), daemon=True)
    thread.start()
    assert ready.wait(30), "servers did not start"
    if "error" in found:
        raise RuntimeError(f"HTTP server failed to start: {found['error']!r}")
    grpc_port, http_port = found["ports"]
    yield Servers(grpc_port, http_port)
    assert stop is not None
    loop.call_soon_threadsafe(stop.set)
    thread.join(30)
    loop.close()


@pytest.fixture(scope="session")
def servers() -> Iterator[Servers]:
    with run_servers() as running:
        yield running


@pytest.fixture(scope="session")
def channel(servers: Servers) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(f"127.0.0.1:{servers.grpc_port}") as ch:
        yield ch


@pytest.fixture(scope="session")
def stub(channel: grpc.Channel) -> rules_service_pb2_grpc.RulesServiceStub:
    return rules_service_pb2_grpc.RulesServiceStub(channel)


@pytest.fixture(scope="session")
def http(servers: Servers) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=servers.base_url, timeout=30) as client:
        yield client


@contextlib.contextmanager
def memory_sessions_client() -> Iterator[httpx.Client]:
    """An HTTP client of servers that serve sessions from the in-process store."""
    with (
        run_servers(sessions=lambda: SessionApi(MemoryStore())) as servers,
        httpx.Client(base_url=servers.base_url, timeout=30) as client,
    ):
        yield client
