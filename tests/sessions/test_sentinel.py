"""The session store behind Redis Sentinel (issue 36 item 2).

``redis+sentinel://host:port,.../<master-name>[/<db>]``: the URL form and its refusals; discovery
(the newest configuration believed, a node that is not the primary never used); the start-up checks
of ``lawspeaker serve`` against real Sentinels; and the primary SIGKILLed under load, three times,
while six players play over REST and gRPC. The processes (a primary, a replica of it and three
Sentinels, on loopback ports from :mod:`ports`) are started once for the module.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.asyncio.sentinel import MasterNotFoundError

from lawspeaker.api.rules import RulesApi
from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions.resp import Multiplexed
from lawspeaker.sessions.sentinel import (
    NewestSentinel,
    is_sentinel_url,
    master_client,
    node_options,
    parse_sentinel_url,
    sentinel_for,
    sentinel_options,
    sentinel_url,
)
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import RedisStore, StoreConfigError, check_url
from lawspeaker.v1 import session_service_pb2 as spb

from . import faults
from .helpers import create, play
from .ports import free_port

pytestmark = [
    pytest.mark.sessions,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]

MASTER = "lawspeaker-test"
# A Sentinel sees the primary down after this long without an answer. Not 1000 or less: a Sentinel
# reconnects to an instance at most once per ping period (1 s, or down-after when lower), so one that
# learns of a failover from the others may reach the new primary only ~1 s after, and would then see
# it down at once: a second failover, back to the old primary if it is up again (measured with 1000:
# 19 failovers for 15 kills, and two primaries for ~10 s; with 1500: 40 for 40).
DOWN_AFTER_MS = 1500
FAILOVER_TIMEOUT_MS = 3000


# --------------------------------------------------------------------------- the processes


def _client(port: int) -> Any:  # redis-py types execute_command as untyped
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=2, socket_connect_timeout=2)


@dataclass
class LocalSentinels:
    """Two data nodes (a primary and its replica) and three Sentinels monitoring them as MASTER."""

    tmp: Path
    nodes: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)  # port -> redis-server
    sentinels: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)

    def start_node(self, port: int, replica_of: int | None = None) -> None:
        server = shutil.which("redis-server")
        assert server is not None
        data = self.tmp / f"node-{port}"
        data.mkdir(exist_ok=True)
        args = [server, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data)]
        args += ["--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"]
        if replica_of is not None:
            args += ["--replicaof", "127.0.0.1", str(replica_of)]
        self.nodes[port] = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _answering(port)

    def start_sentinel(self, port: int, primary: int) -> None:
        server = shutil.which("redis-server")
        assert server is not None
        config = self.tmp / f"sentinel-{port}.conf"  # each Sentinel rewrites its own
        config.write_text(
            f"port {port}\nbind 127.0.0.1\ndir {self.tmp}\nlogfile {self.tmp / f'sentinel-{port}.log'}\n"
            "sentinel resolve-hostnames no\n"
            f"sentinel monitor {MASTER} 127.0.0.1 {primary} 2\n"
            f"sentinel down-after-milliseconds {MASTER} {DOWN_AFTER_MS}\n"
            f"sentinel failover-timeout {MASTER} {FAILOVER_TIMEOUT_MS}\n"
            f"sentinel parallel-syncs {MASTER} 1\n"
        )
        self.sentinels[port] = subprocess.Popen(
            [server, str(config), "--sentinel"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _answering(port)

    @property
    def addresses(self) -> list[tuple[str, int]]:
        return [("127.0.0.1", port) for port in self.sentinels]

    def url(self, master: str = MASTER, db: int = 0, query: str = "") -> str:
        hosts = ",".join(f"{h}:{p}" for h, p in self.addresses)
        return (
            f"redis+sentinel://{hosts}/{master}" + (f"/{db}" if db else "") + (f"?{query}" if query else "")
        )

    def named(self) -> set[int]:
        """The primary's port as each Sentinel that answers names it now."""
        found = set()
        for port in self.sentinels:
            with contextlib.suppress(redis.RedisError):
                got = _client(port).execute_command("SENTINEL GET-MASTER-ADDR-BY-NAME", MASTER)
                if got:
                    found.add(int(got[1]))
        return found

    def primary(self) -> int:
        named = self.named()
        assert len(named) == 1, f"the Sentinels disagree: {named}"
        return named.pop()

    def replica(self) -> int:
        return next(port for port in self.nodes if port != self.primary())

    def settled(self, timeout: float = 30) -> None:
        """Waits until every Sentinel names one primary, sees the other two Sentinels and the
        replica up and in sync (so that the next kill is failed over at once)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(redis.RedisError, AssertionError, StopIteration):
                primary = self.primary()
                ready = True
                for port in self.sentinels:
                    state = _client(port).sentinel_master(MASTER)
                    replicas = _client(port).sentinel_slaves(MASTER)
                    up = [r for r in replicas if not r["is_sdown"] and r["master-link-status"] == "ok"]
                    ready &= (
                        state["num-other-sentinels"] == len(self.sentinels) - 1
                        and not state["is_sdown"]
                        and not state["is_odown"]
                        and len(up) == len(self.nodes) - 1
                        and "failover_in_progress" not in state["flags"]
                    )
                info = _client(primary).info("replication")
                ready &= info["role"] == "master" and info["connected_slaves"] == len(self.nodes) - 1
                if ready:
                    return
            time.sleep(0.05)
        raise AssertionError("the Sentinels did not settle")

    def kill(self, port: int) -> None:
        proc = self.nodes.pop(port)
        proc.kill()
        proc.wait(10)

    def promoted(self, old: int, timeout: float = 30) -> tuple[int, float]:
        """Polls the Sentinels until one names another primary than ``old``: its port and the
        time.monotonic() it was first named."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            now = time.monotonic()
            named = self.named() - {old}
            if named:
                return named.pop(), now
            time.sleep(0.01)
        raise AssertionError("no Sentinel promoted a replica")

    def stop(self) -> None:
        for proc in [*self.nodes.values(), *self.sentinels.values()]:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)


def _answering(port: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(redis.RedisError):
            if _client(port).ping():
                return
        time.sleep(0.01)
    raise AssertionError(f"nothing answers PING on port {port}")


def start_sentinels(tmp: Path) -> LocalSentinels:
    setup = LocalSentinels(tmp)
    primary, replica = free_port(), free_port()
    try:
        setup.start_node(primary)
        setup.start_node(replica, replica_of=primary)
        for _ in range(3):
            setup.start_sentinel(free_port(), primary)
        setup.settled()
    except BaseException:
        setup.stop()
        raise
    return setup


@pytest.fixture(scope="module")
def sentinels(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSentinels]:
    setup = start_sentinels(Path(tmp_path_factory.mktemp("sentinel")))
    try:
        yield setup
    finally:
        setup.stop()


# --------------------------------------------------------------------------- the URL


def test_the_sentinel_url_names_the_sentinels_the_master_and_perhaps_a_database() -> None:
    url = "redis+sentinel://10.0.0.1:26379,[::1]:26380/mymaster/2?socket_keepalive=true"
    assert is_sentinel_url(url) and is_sentinel_url("rediss+sentinel://h:1/m")
    assert not is_sentinel_url("redis://10.0.0.1:6379") and not is_sentinel_url("redis+cluster://h:1")
    parsed = parse_sentinel_url(url)
    assert parsed.sentinels == (("10.0.0.1", 26379), ("::1", 26380))
    assert (parsed.master, parsed.db, parsed.tls, parsed.sentinel_tls) == ("mymaster", 2, False, False)
    assert parsed.node_url == "redis://10.0.0.1:26379/2?socket_keepalive=true"
    assert parse_sentinel_url("redis+sentinel://h:1/mymaster/").db == 0  # a trailing slash
    assert parse_sentinel_url(sentinel_url([("h", 1), ("::1", 2)], "my master", 3)).master == "my master"
    assert sentinel_url([("h", 1), ("::1", 2)], "m", 3) == "redis+sentinel://h:1,[::1]:2/m/3"
    assert RedisStore(url).where() == (
        "Redis Sentinel master 'mymaster' (database 2) via Sentinels 10.0.0.1:26379,[::1]:26380"
    )
    assert RedisStore(url, wait_replicas=1).wait_replicas == 1  # WAIT works behind Sentinel
    assert RedisStore(url).kind == "redis"  # one primary, as redis://: the same metrics label


def test_the_credentials_are_the_data_nodes_and_the_sentinels_have_options_of_their_own() -> None:
    url = (
        "rediss+sentinel://app:s%40cret@10.0.0.1:26379/mymaster?ssl_ca_certs=/ca.pem"
        "&sentinel_username=watcher&sentinel_password=p%2Bw"
    )
    parsed = parse_sentinel_url(url)
    nodes = node_options(parsed)
    assert (nodes["username"], nodes["password"], nodes["db"], nodes["ssl"]) == ("app", "s@cret", 0, True)
    assert nodes["ssl_ca_certs"] == "/ca.pem" and "host" not in nodes and "connection_class" not in nodes
    own = sentinel_options(parsed, 0.5)
    assert (own["username"], own["password"], own["socket_timeout"]) == ("watcher", "p+w", 0.5)
    assert own["ssl"] is True and own["ssl_ca_certs"] == "/ca.pem"  # TLS to the Sentinels too, same CA
    assert own["retry"].get_retries() == 0  # a Sentinel down is skipped at once, not retried ten times
    assert "sentinel" not in parsed.node_url
    clear = parse_sentinel_url(url + "&sentinel_ssl=no")
    assert clear.tls and not clear.sentinel_tls and "ssl" not in sentinel_options(clear, 0.5)
    assert "(to the Sentinels in clear)" in clear.where()
    plain = sentinel_options(parse_sentinel_url("redis+sentinel://h:1/m"), 0.5)
    assert "password" not in plain and "username" not in plain and "ssl" not in plain
    store = RedisStore(url.replace("ssl_ca_certs=/ca.pem&", ""))
    assert store.where().endswith(" over TLS")
    kwargs = store.client.connection_pool.connection_kwargs
    assert (kwargs["username"], kwargs["password"]) == ("app", "s@cret")  # AUTH on the primary
    assert store.client.connection_pool.connection_class.__name__ == "SentinelManagedSSLConnection"
    assert store._sentinels.sentinels[0].connection_pool.connection_kwargs["password"] == "p+w"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("redis+sentinel://10.0.0.1:26379", "names the master after the Sentinels"),
        ("redis+sentinel://10.0.0.1:26379/", "names the master after the Sentinels"),
        ("redis+sentinel://10.0.0.1/mymaster", "host:port"),
        ("redis+sentinel://10.0.0.1:26379,,10.0.0.2:26379/mymaster", "host:port"),
        ("redis+sentinel://10.0.0.1:99999/mymaster", "host:port"),
        ("redis+sentinel:///mymaster", "host:port"),
        ("redis+sentinel://10.0.0.1:26379/mymaster/two", "the database number only"),
        ("redis+sentinel://10.0.0.1:26379/mymaster/2/3", "the database number only"),
        ("redis+sentinel://10.0.0.1:26379/mymaster?db=2", "after the master name"),
        ("redis+sentinel://10.0.0.1:26379/mymaster?sentinel_pasword=x", "unknown option 'sentinel_pasword'"),
        ("redis+sentinel://10.0.0.1:26379/mymaster?sentinel_ssl=yes", "needs rediss+sentinel"),
        ("rediss+sentinel://10.0.0.1:26379/mymaster?sentinel_ssl=maybe", "yes or no"),
        ("redis+sentinel://10.0.0.1:26379/mymaster?nonsense=1", "unknown option"),
        ("rediss+sentinel://10.0.0.1:26379/m?ssl_ca_certs=/no/such/ca.pem", "No such file"),
    ],
)
def test_a_malformed_sentinel_url_is_refused_in_one_line(url: str, why: str) -> None:
    """``check_url`` is what ``serve`` runs at start (the store itself reads no TLS files)."""
    with pytest.raises(StoreConfigError) as refused:
        check_url(url)
    assert why in str(refused.value) and "\n" not in str(refused.value)


# --------------------------------------------------------------------------- discovery


class _Answering:
    """A Sentinel's client as NewestSentinel asks it (get-master-addr-by-name and MASTER, pipelined):
    its state of the master at ``port`` in configuration ``epoch``, the address it advertises (the
    promoted replica's while a failover reconfigures the others), after ``delay`` seconds."""

    def __init__(
        self,
        port: int | None,
        epoch: int = 0,
        down: bool = False,
        advertised: int | None = None,
        delay: float = 0.0,
        refuse: bool = False,
    ) -> None:
        self.port, self.epoch, self.down, self.advertised = port, epoch, down, advertised or port
        self.delay, self.refuse = delay, refuse

    def pipeline(self, transaction: bool = True) -> _Answering:
        return self

    async def __aenter__(self) -> _Answering:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def sentinel_get_master_addr_by_name(self, name: str) -> None:
        assert name == MASTER

    def sentinel_master(self, name: str) -> None:
        assert name == MASTER

    async def execute(self) -> tuple[Any, Any]:
        await asyncio.sleep(self.delay)
        if self.refuse:
            raise redis.ConnectionError("Connection refused")
        if self.port is None:
            raise redis.ResponseError("No such master with that name")
        state = {"ip": "127.0.0.1", "port": self.port, "config-epoch": self.epoch, "num-other-sentinels": 2}
        state |= {"is_master": True, "is_sdown": self.down, "is_odown": self.down}
        return ("127.0.0.1", self.advertised), state


def test_discovery_believes_the_newest_configuration_and_waits_for_no_straggler() -> None:
    async def discover(*answers: _Answering) -> int:
        manager = sentinel_for(parse_sentinel_url("redis+sentinel://h:1/m"), 0.5)
        assert isinstance(manager, NewestSentinel)
        fakes: Any = list(answers)
        manager.sentinels = fakes
        host, port = await manager.discover_master(MASTER)
        assert host == "127.0.0.1"
        return int(port)

    async def main() -> None:
        # The first Sentinel has not heard of the failover (epoch 1, the old primary back up as a
        # replica, so it looks valid); redis-py would believe it, as the first valid answer.
        stale, fresh = _Answering(7001, 1), _Answering(7002, 2)
        assert await discover(stale, fresh, _Answering(None, refuse=True)) == 7002
        assert await discover(fresh, stale) == 7002
        # The leader of a failover advertises the promoted replica before the switch (the master's
        # own address is down); a Sentinel that sees the master down and no promotion names none.
        failing_over = _Answering(7001, 2, down=True, advertised=7002)
        assert await discover(_Answering(7001, 1, down=True), failing_over) == 7002
        with pytest.raises(MasterNotFoundError):
            await discover(_Answering(7001, 1, down=True), _Answering(None, refuse=True), _Answering(None))
        started = time.monotonic()  # one that does not answer holds discovery up only briefly
        assert await discover(stale, _Answering(7003, 3, delay=30), stale) == 7001
        assert time.monotonic() - started < 0.5

    asyncio.run(main())


def test_a_node_that_is_not_the_primary_is_never_used(sentinels: LocalSentinels) -> None:
    """A Sentinel's stale answer (or a primary demoted since): ROLE is checked on every connection,
    the pipelined one and redis-py's, so nothing is read from or written to a replica; a node whose
    ACL refuses ROLE is used, and its READONLY reply closes the connection for the next to ask again."""
    replica = sentinels.replica()
    parsed = parse_sentinel_url(sentinels.url())

    async def replica_address() -> tuple[str, int]:
        return "127.0.0.1", replica

    async def main() -> None:
        fast = Multiplexed(parsed.node_url, 1.0, locate=replica_address)
        with pytest.raises(ConnectionError, match="not the primary"):
            await fast.call("GET", "x")
        await fast.close()
        manager = sentinel_for(parsed, 1.0)
        manager.discover_master = lambda name: replica_address()
        client = master_client(manager, parsed, socket_timeout=1.0)
        with pytest.raises(redis.ConnectionError, match="not the primary"):
            await client.get("x")
        await client.aclose()
        await manager.aclose()
        # An ACL user that may not ask ROLE: written to, the replica answers READONLY, and the
        # connection is closed, so that the next call locates the primary again.
        _client(replica).execute_command("ACL SETUSER", "norole", "on", "nopass", "~*", "+@all", "-role")
        try:
            located: list[int] = []

            async def counted() -> tuple[str, int]:
                located.append(replica)
                return await replica_address()

            url = parsed.node_url.replace("redis://", "redis://norole:x@")
            fast = Multiplexed(url, 1.0, locate=counted)
            assert await fast.call("GET", "x") is None
            with pytest.raises(Exception, match="READONLY"):
                await fast.call("SET", "x", "1")
            await fast.call("GET", "x")
            assert len(located) == 2
            await fast.close()
        finally:
            _client(replica).execute_command("ACL DELUSER", "norole")

    asyncio.run(main())


def test_sessions_are_played_and_watched_behind_sentinel_in_the_urls_database(
    sentinels: LocalSentinels,
) -> None:
    prefix = f"lawspeaker-test-{secrets.token_hex(4)}"

    async def main() -> None:
        store = RedisStore(sentinels.url(db=3), prefix=prefix, wait_replicas=1)
        await store.check()
        api = SessionApi(store, RulesApi(), None)
        try:
            session, tokens, _ = await create(api, seed=3)
            stream = api.watch_session(spb.WatchSessionRequest(session=session), tokens[1])
            first = await anext(stream)
            after = await play(api, session, tokens, 6)
            seen = first.session.move_count
            while seen < after.move_count:
                seen = (await anext(stream)).session.move_count
            await stream.aclose()  # type: ignore[attr-defined]
            durability = await store.durability()
            assert durability.connected_replicas == 1 and durability.wait_replicas == 1
        finally:
            await api.close()
        primary = _client(sentinels.primary())
        primary.select(3)
        assert primary.keys(f"{prefix}:*"), "the session's keys are in database 3"
        primary.select(0)
        assert not primary.keys(f"{prefix}:*")

    asyncio.run(main())


def test_rediss_sentinel_speaks_tls_to_the_sentinels_and_the_data_nodes(tmp_path: Path) -> None:
    """A primary and a Sentinel that speak only TLS (certificates of this run): the Sentinel is asked
    over TLS, and both ways to the primary (redis-py's pools, the pipelined connection) go over TLS
    to the address it names, verified with the URL's CA; with ``sentinel_ssl=no`` no Sentinel
    answers (it speaks TLS only), so the session calls answer UNAVAILABLE."""
    import trustme

    ca, files = trustme.CA(), {name: tmp_path / f"{name}.pem" for name in ("ca", "cert", "key")}
    issued = ca.issue_cert("127.0.0.1")  # both servers' certificate: it names 127.0.0.1
    ca.cert_pem.write_to_path(str(files["ca"]))
    issued.cert_chain_pems[0].write_to_path(str(files["cert"]))
    issued.private_key_pem.write_to_path(str(files["key"]))
    tls = f"tls-cert-file {files['cert']}\ntls-key-file {files['key']}\ntls-ca-cert-file {files['ca']}\n"
    tls += "tls-auth-clients no\ntls-replication yes\nport 0\nbind 127.0.0.1\n"
    server = shutil.which("redis-server")
    assert server is not None
    primary, port = free_port(), free_port()
    (tmp_path / "node.conf").write_text(f'{tls}tls-port {primary}\nsave ""\nappendonly no\ndir {tmp_path}\n')
    (tmp_path / "sentinel.conf").write_text(
        f"{tls}tls-port {port}\ndir {tmp_path}\nsentinel resolve-hostnames no\n"
        f"sentinel monitor {MASTER} 127.0.0.1 {primary} 1\n"
    )
    procs = [
        subprocess.Popen([server, str(tmp_path / "node.conf")], stdout=subprocess.DEVNULL),
        subprocess.Popen([server, str(tmp_path / "sentinel.conf"), "--sentinel"], stdout=subprocess.DEVNULL),
    ]
    url = f"rediss+sentinel://127.0.0.1:{port}/{MASTER}?ssl_ca_certs={files['ca']}"
    try:

        async def main() -> None:
            store = RedisStore(url, prefix="lawspeaker-sentinel-tls")
            deadline = time.monotonic() + 20
            while True:  # until the Sentinel has connected to the primary
                try:
                    await store.check()
                    break
                except LawspeakerError:
                    assert time.monotonic() < deadline, "the TLS Sentinel never named the primary"
                    await asyncio.sleep(0.1)
            api = SessionApi(store, RulesApi(), None)
            try:
                session, tokens, _ = await create(api, seed=8)
                assert (await play(api, session, tokens, 4)).move_count == 4
                assert isinstance(store._fast, Multiplexed) and store._fast.tls is not None
                assert store._fast.port == primary
                assert store.where().endswith(" over TLS")
            finally:
                await api.close()
            clear = RedisStore(url + "&sentinel_ssl=no", prefix="lawspeaker-sentinel-tls")
            api = SessionApi(clear, RulesApi(), None)
            try:
                with pytest.raises(LawspeakerError) as refused:
                    await api.get_session(spb.GetSessionRequest(session=session), None)
                assert refused.value.code is ErrorCode.UNAVAILABLE
            finally:
                await api.close()

        asyncio.run(main())
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(10)


# --------------------------------------------------------------------------- refused at start


def test_serve_refuses_a_sentinel_url_that_cannot_work_in_one_line(sentinels: LocalSentinels) -> None:
    """Each at once (a `lawspeaker serve` apiece): exit code 1, one line naming the problem, no
    traceback."""
    hosts = ",".join(f"{h}:{p}" for h, p in sentinels.addresses)
    data_node = next(iter(sentinels.nodes))
    cases = {
        f"redis+sentinel://{hosts}": "names the master after the Sentinels",
        f"redis+sentinel://{hosts}/no-such-master": "know no master named 'no-such-master'",
        f"redis+sentinel://{hosts.replace(':', '=', 1)}/{MASTER}": "host:port",
        f"redis+sentinel://127.0.0.1:{data_node},{hosts}/{MASTER}": f"{data_node} is not a Redis Sentinel",
    }
    command = [sys.executable, "-m", "lawspeaker", "serve", "--host", "127.0.0.1"]
    command += ["--grpc-port", "0", "--http-port", "0", "--bot-processes", "0"]
    runs = {
        url: subprocess.Popen(
            [*command, "--redis-url", url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "LAWSPEAKER_LOG_FORMAT": "text"},
        )
        for url in cases
    }
    for url, proc in runs.items():
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise AssertionError(f"serve did not refuse {url}") from None
        assert proc.returncode == 1, (url, out, err)
        assert "Traceback" not in out + err
        naming = [line for line in (out + err).splitlines() if cases[url] in line]
        assert len(naming) == 1 and naming[0].count("\n") == 0, (url, out, err)
        assert "--redis-url: " in naming[0] and "grpc_port=" not in out


# --------------------------------------------------------------------------- failover under load

KILLS = 3


def test_the_primary_killed_under_load_loses_no_move_and_play_resumes_within_2_s_of_the_promotion(
    sentinels: LocalSentinels,
) -> None:
    """Six players (REST and gRPC, every move with a request id and its etag, each watched over
    gRPC) on a `lawspeaker serve --redis-wait-replicas 1` behind the Sentinels, while the primary is
    SIGKILLed three times; after each promotion the killed node comes back as a replica of the new
    primary (so that WAIT can be met again). No acknowledged move is lost or applied twice, the
    clients see only retryable failures, and every player has a move acknowledged within 2 s of the
    promotion (the first time a Sentinel names the new primary). Most recover in 0.1-0.3 s; some in
    about 1 s, every move waiting in WAIT: the new primary's one replica is the node just restarted,
    and a replica connects to its primary once a second (Redis's replication cron).

    Its seconds are the Sentinels': each kill takes 2-3 s to be failed over (DOWN_AFTER_MS without an
    answer before a Sentinel sees the primary down, then their agreement and the promotion; when they
    split their votes, 2 x FAILOVER_TIMEOUT_MS more), and a fraction of a second for the node to come
    back and the Sentinels to see it, plus the moves played between kills: some 12-20 s in all."""
    sentinels.settled()
    recoveries: list[float] = []
    failed_over: list[float] = []
    with faults.serve(sentinels.url(), "--redis-wait-replicas", "1", "--bot-processes", "0") as service:
        load = faults.Load(service, players=6).start()
        load.wait_for_moves(60)
        promoted_to = sentinels.primary()
        for _ in range(KILLS):
            old = sentinels.primary()
            assert old == promoted_to, "the Sentinels failed over without a kill"
            killed = time.monotonic()
            sentinels.kill(old)
            new, promoted = sentinels.promoted(old)
            promoted_to = new
            failed_over.append(promoted - killed)
            sentinels.start_node(old, replica_of=new)
            recoveries.append(load.recovery(promoted))
            load.wait_for_moves(60)
            sentinels.settled()
        figures = load.stop()
    figures.show(
        f"behind Sentinel, the primary SIGKILLed {KILLS} times (--redis-wait-replicas 1)",
        **{
            "promoted after the kill (s)": ", ".join(f"{t:.2f}" for t in failed_over),
            "every player acknowledged again after the promotion (s)": ", ".join(
                f"{t:.3f}" for t in recoveries
            ),
        },
    )
    assert sentinels.primary() == promoted_to, "the Sentinels failed over without a kill"
    assert figures.lost == 0, "an acknowledged move was lost"
    assert figures.doubled == 0, "a move was applied twice (or without its client being answered)"
    assert not faults.only_retryable(figures.errors), figures.errors
    assert figures.resumed_watches >= 1, "no watch stream resumed after the primary died"
    assert max(recoveries) < 2.0, recoveries
