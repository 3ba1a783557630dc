"""Session fixtures: every session test runs against the in-process store, a real Redis and a
Redis Cluster.

The Redis store uses a fresh key prefix per test on 127.0.0.1:6379 and deletes its keys afterwards.
Only an absent Redis skips the Redis half (CI starts one). The cluster is a local 3-primary one
(``tests.sessions.cluster``), started once per test process on first use and stopped at its end;
only tests that make their store with ``make_store`` run on it (others would not reach it).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import redis
from transport.conftest import Servers, run_servers

from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import DEFAULT_TTL_SECONDS, MemoryStore, RedisStore, SessionStore
from lawspeaker.v1 import rules_service_pb2_grpc, session_service_pb2_grpc

from .cluster import HAVE_CLUSTER_TOOLS, LocalCluster, start_cluster

REDIS_URL = "redis://127.0.0.1:6379/0"
StoreFactory = Callable[..., SessionStore]


def redis_available() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5).ping())
    except redis.exceptions.RedisError:
        return False


REDIS_UP = redis_available()


def delete_prefix(prefix: str) -> None:
    client = redis.Redis.from_url(REDIS_URL)
    names = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if names:
        client.delete(*names)


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A local 3-primary Redis Cluster for this test process."""
    if not HAVE_CLUSTER_TOOLS:
        pytest.skip("no redis-server and redis-cli to start a cluster with")
    cluster = start_cluster(Path(tmp_path_factory.mktemp("redis-cluster")))
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["memory", "redis", "cluster"])
def store_kind(request: pytest.FixtureRequest) -> str:
    kind: str = request.param
    if kind == "redis" and not REDIS_UP:
        pytest.skip(f"no Redis at {REDIS_URL}")
    if kind == "cluster" and "make_store" not in request.fixturenames:
        pytest.skip("this test makes its store itself, on one Redis")
    return kind


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    prefix = f"lawspeaker-test-{secrets.token_hex(6)}"
    yield prefix
    if REDIS_UP:
        delete_prefix(prefix)


@pytest.fixture
def make_store(store_kind: str, redis_prefix: str, request: pytest.FixtureRequest) -> StoreFactory:
    """Makes a store of the test's kind; call it inside the event loop that will use it."""
    url = REDIS_URL
    if store_kind == "cluster":
        url = request.getfixturevalue("redis_cluster").url

    def make(ttl: int = DEFAULT_TTL_SECONDS, **kw: Any) -> SessionStore:
        if store_kind == "memory":
            return MemoryStore(ttl=ttl, **kw)
        return RedisStore(url, ttl=ttl, prefix=redis_prefix, **kw)

    return make


# --------------------------------------------------------------------------- both servers, per store


class Running:
    """Both servers of one store, with a gRPC channel and an HTTP client to them."""

    def __init__(self, servers: Servers) -> None:
        self.servers = servers
        self.channel = grpc.insecure_channel(f"127.0.0.1:{servers.grpc_port}")
        self.sessions = session_service_pb2_grpc.SessionServiceStub(self.channel)
        self.rules = rules_service_pb2_grpc.RulesServiceStub(self.channel)
        self.http = httpx.Client(base_url=servers.base_url, timeout=30)

    def close(self) -> None:
        self.http.close()
        self.channel.close()


@pytest.fixture(scope="module", params=["memory", "redis"])
def running(request: pytest.FixtureRequest) -> Iterator[Running]:
    """Both servers on each store (the in-process one, then Redis under a prefix of its own), for
    the test module that asks (one pair of servers per module and store)."""
    prefix = f"lawspeaker-test-{secrets.token_hex(6)}"
    if request.param == "redis" and not REDIS_UP:
        pytest.skip(f"no Redis at {REDIS_URL}")

    def make() -> SessionApi:
        store: SessionStore = (
            MemoryStore() if request.param == "memory" else RedisStore(REDIS_URL, prefix=prefix)
        )
        return SessionApi(store)

    with run_servers(sessions=make) as servers:
        r = Running(servers)
        yield r
        r.close()
    if request.param == "redis":
        delete_prefix(prefix)
