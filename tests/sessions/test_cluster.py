"""The session store on a Redis Cluster (issue 16 part 5).

``conftest`` runs every ``make_store`` session test on a local 3-primary cluster too. Here: the
``redis+cluster://`` URL form, where a session's keys and its watch channel live (one slot; sharded
pub/sub), and a slot that holds a live session moved to another primary while games are played:
no acknowledged move is lost, and the only errors clients see are retryable (UNAVAILABLE).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
from redis.crc import key_slot

from lawspeaker.api.rules import RulesApi
from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions.cluster import REFRESH_EVERY, NodeConnections, is_cluster_url, node_url, seeds
from lawspeaker.sessions.resp import Multiplexed, ReplyError
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import RedisStore, SessionKey
from lawspeaker.v1 import session_service_pb2 as spb

from .cluster import LocalCluster
from .helpers import create

T = TypeVar("T")


def test_the_cluster_url_names_seed_nodes_and_keeps_credentials_and_options() -> None:
    url = "rediss+cluster://app:secret@10.0.0.1:7000,10.0.0.2:7001/?ssl_ca_certs=/ca.pem"
    assert is_cluster_url(url) and not is_cluster_url("redis://10.0.0.1:7000")
    first, nodes = seeds(url)
    assert first == "rediss://app:secret@10.0.0.1:7000?ssl_ca_certs=/ca.pem"
    assert nodes == [("10.0.0.1", 7000), ("10.0.0.2", 7001)]
    assert node_url(url, "10.0.0.3", 7002) == "rediss://app:secret@10.0.0.3:7002?ssl_ca_certs=/ca.pem"
    with pytest.raises(ValueError, match="database 0"):
        seeds("redis+cluster://10.0.0.1:7000/3")
    with pytest.raises(ValueError, match="host:port"):
        seeds("redis+cluster://10.0.0.1")
    assert RedisStore(url).where() == "Redis Cluster seeds 10.0.0.1:7000,10.0.0.2:7001 over TLS"
    # --redis-wait-replicas works on a cluster too (test_cluster_failover.py): WAIT on each node.
    assert RedisStore("redis+cluster://127.0.0.1:7000", wait_replicas=1).wait_replicas == 1


def session_key_names(cluster: LocalCluster, prefix: str, session: str) -> dict[int, list[bytes]]:
    """The keys of ``session`` on each primary that holds any of them."""
    found: dict[int, list[bytes]] = {}
    for port in cluster.ports:
        names = list(cluster.node(port).scan_iter(match=f"{prefix}:{{{session}}}:*"))
        if names:
            found[port] = sorted(names)
    return found


def test_a_sessions_keys_live_on_its_slots_primary_and_updates_go_over_sharded_pub_sub(
    redis_cluster: LocalCluster, redis_prefix: str
) -> None:
    async def main() -> None:
        store = RedisStore(redis_cluster.url, prefix=redis_prefix)
        api = SessionApi(store, RulesApi(), None)
        try:
            sessions = [await create(api, seed=i) for i in range(12)]
            owners = set()
            for session, _, _ in sessions:
                where = session_key_names(redis_cluster, redis_prefix, session)
                owner = redis_cluster.owner(key_slot(session.encode()))
                assert list(where) == [owner]  # one slot, so one primary
                owners.add(owner)
            assert len(owners) > 1, "twelve random sessions all on one primary"
            # A watcher's subscription is a shard channel on the session's primary, not a global one.
            session, tokens, _ = sessions[0]
            stream = api.watch_session(spb.WatchSessionRequest(session=session), tokens[1])
            await anext(stream)
            owner = redis_cluster.node(redis_cluster.owner(key_slot(session.encode())))
            channels = owner.execute_command("PUBSUB SHARDCHANNELS", f"{redis_prefix}:*")
            assert [c.decode() for c in channels] == [store.channel(api._key(session)[1])]
            assert owner.execute_command("PUBSUB CHANNELS", f"{redis_prefix}:*") == []
            await stream.aclose()  # type: ignore[attr-defined]
        finally:
            await api.close()

    asyncio.run(main())


async def retrying(call: Callable[[], Awaitable[T]], errors: list[str]) -> T:
    """``call()`` again while it fails with a retryable error (UNAVAILABLE), as clients do; each such
    error's reason is noted in ``errors``. Any other error fails the test."""
    for _ in range(500):
        try:
            return await call()
        except LawspeakerError as err:
            if err.code is not ErrorCode.UNAVAILABLE:
                raise
            errors.append(err.reason)
            await asyncio.sleep(0.01)
    raise AssertionError(f"still unavailable after 500 tries: {errors[-3:]}")


async def logged_moves(api: SessionApi, session: str) -> list[int]:
    """The numbers of every move in the session's log, page by page."""
    numbers: list[int] = []
    token = ""
    while True:
        page = await api.list_session_moves(
            spb.ListSessionMovesRequest(session=session, page_size=100, page_token=token), None
        )
        numbers.extend(m.number for m in page.moves)
        token = page.next_page_token
        if not token:
            return numbers


async def player(
    api: SessionApi, session: str, tokens: list[str], until: asyncio.Event, errors: list[str], seed: int
) -> tuple[int, int]:
    """Plays random legal moves (each with its own request id) until ``until`` is set or the game
    ends; returns (acknowledged moves, the move count the last acknowledgement showed)."""
    chooser = random.Random(seed)
    current = await retrying(lambda: api.get_session(spb.GetSessionRequest(session=session), None), errors)
    current_session = current.session
    acked, shown = 0, current_session.move_count
    ply = 0
    while not until.is_set() and not current_session.game_over:
        seat = current_session.to_act[0] if current_session.to_act else 0
        token = tokens[seat]
        listing = spb.SessionLegalMovesRequest(session=session)
        listed = await retrying(functools.partial(api.session_legal_moves, listing, token), errors)
        request = spb.SessionApplyMoveRequest(
            session=session,
            move=chooser.choice(list(listed.moves)),
            etag=current_session.etag,
            request_id=f"{session}-{ply}",
        )
        applied = await retrying(functools.partial(api.session_apply_move, request, token), errors)
        assert applied.session.move_count > shown, "an acknowledged move did not advance the session"
        current_session, shown, acked, ply = applied.session, applied.session.move_count, acked + 1, ply + 1
        await asyncio.sleep(0.002)  # a steady stream of moves, leaving the migration its turns
    return acked, shown


def test_moving_a_live_sessions_slot_loses_no_move_and_shows_clients_only_retryable_errors(
    redis_cluster: LocalCluster, redis_prefix: str
) -> None:
    async def main() -> None:
        store = RedisStore(redis_cluster.url, prefix=redis_prefix)
        api = SessionApi(store, RulesApi(), None)
        errors: list[str] = []
        try:
            sessions = [await create(api, seed=100 + i) for i in range(6)]
            target, target_tokens, _ = sessions[0]
            slot = key_slot(target.encode())
            source = redis_cluster.owner(slot)
            destination = next(p for p in redis_cluster.ports if p != source)
            stop = asyncio.Event()
            players = [
                asyncio.create_task(player(api, s, tokens, stop, errors, seed=i))
                for i, (s, tokens, _) in enumerate(sessions)
            ]
            # A watcher of the moved session: its stream delivers versions, or ends UNAVAILABLE when
            # the slot leaves its node (then it watches again), never anything else.
            watched: list[int] = []
            watch_errors: list[str] = []

            async def watch() -> None:
                while not stop.is_set():
                    stream = api.watch_session(spb.WatchSessionRequest(session=target), target_tokens[1])
                    try:
                        async for update in stream:
                            watched.append(update.session.move_count)
                    except LawspeakerError as err:
                        assert err.code is ErrorCode.UNAVAILABLE, err
                        watch_errors.append(err.reason)
                        await asyncio.sleep(0.01)
                    finally:
                        await stream.aclose()  # type: ignore[attr-defined]

            watcher = asyncio.create_task(watch())
            await asyncio.sleep(0.3)  # games under way
            before = len(watched)
            steps = redis_cluster.moving_slot(slot, destination)
            moved = 0
            while (step := await asyncio.to_thread(next, steps, None)) is not None:
                moved = step
                await asyncio.sleep(0.1)  # clients play against the slot in this state (ASK, TRYAGAIN)
            assert moved == 4, "the session's record, log, request ids and presence were migrated"
            assert redis_cluster.owner(slot) == destination
            connections = store._fast
            assert isinstance(connections, NodeConnections)  # the pipelined connection per primary
            assert await connections._owner(slot) == ("127.0.0.1", destination)
            assert list(session_key_names(redis_cluster, redis_prefix, target)) == [destination]
            await asyncio.sleep(0.5)  # and play on, on the new owner
            stop.set()
            results = await asyncio.gather(*players)
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            # No acknowledged move lost: each session holds as many moves as it last acknowledged.
            for (session, _, _), (_, shown) in zip(sessions, results, strict=True):
                final = await api.get_session(spb.GetSessionRequest(session=session), None)
                assert final.session.move_count == shown
                assert await logged_moves(api, session) == list(range(1, shown + 1))
            assert results[0][0] > 0 and len(watched) > before, "the moved session was played and watched"
            # Only retryable errors, and those only while the slot moved.
            assert all(reason == "SESSION_STORE_UNAVAILABLE" for reason in errors), set(errors)
            assert set(watch_errors) <= {"SESSION_STORE_UNAVAILABLE"}, set(watch_errors)
        finally:
            await api.close()

    asyncio.run(main())


def test_asking_goes_right_before_its_command_even_among_concurrent_calls(
    redis_cluster: LocalCluster,
) -> None:
    """``Multiplexed.asking`` writes ASKING and its command together on the shared connection: on a
    node importing a slot, the command is served (ASKING applies to it), and the replies of the
    calls around it stay in order."""
    port = redis_cluster.ports[0]
    slot = next(s for s in range(16384) if redis_cluster.owner(s) != port)
    key = next(f"k{i}" for i in range(100_000) if key_slot(f"k{i}".encode()) == slot)
    importing = redis_cluster.node(port)
    importing.execute_command(
        "CLUSTER SETSLOT", slot, "IMPORTING", redis_cluster.node_id(redis_cluster.owner(slot))
    )

    async def body() -> None:
        conn = Multiplexed(f"redis://127.0.0.1:{port}", timeout=2)
        try:
            with pytest.raises(ReplyError, match=r"^MOVED"):
                await conn.call("SET", key, "x")
            calls = [conn.call("ECHO", f"before {i}") for i in range(10)]
            calls.append(conn.asking("SET", key, "here"))
            calls += [conn.call("ECHO", f"after {i}") for i in range(10)]
            got = await asyncio.gather(*calls)
            assert got == [
                *(f"before {i}".encode() for i in range(10)),
                b"OK",
                *(f"after {i}".encode() for i in range(10)),
            ]
            assert await conn.asking("GET", key) == b"here"
            assert await conn.asking("DEL", key) == 1
        finally:
            await conn.close()

    try:
        asyncio.run(body())
    finally:
        importing.execute_command("CLUSTER SETSLOT", slot, "STABLE")


def test_wait_replicas_on_a_cluster_waits_on_the_connection_that_wrote(
    redis_cluster: LocalCluster, redis_prefix: str
) -> None:
    """``--redis-wait-replicas`` on a cluster: WAIT goes right behind the script on the connection
    that ran it (WAIT counts that connection's writes). This cluster's primaries have no replica, so
    a creation and a move are refused with SESSION_WRITE_NOT_REPLICATED, once WAIT has waited its
    timeout, though the primary has them, and so is a retry of the move; without waiting they are
    kept, and a retry with the same request id tells its outcome."""

    async def main() -> None:
        plain = RedisStore(redis_cluster.url, prefix=redis_prefix)
        waiting = RedisStore(redis_cluster.url, prefix=redis_prefix, wait_replicas=1, wait_timeout=0.05)
        api, waiting_api = SessionApi(plain, RulesApi(), None), SessionApi(waiting, RulesApi(), None)
        try:
            with pytest.raises(LawspeakerError) as refused:
                await waiting_api.create_session(spb.CreateSessionRequest(game="valhalla", players=2), None)
            assert refused.value.reason == "SESSION_WRITE_NOT_REPLICATED"
            assert refused.value.metadata == {"ackedReplicas": "0", "wantedReplicas": "1"}
            session, tokens, etag = await create(api, seed=7)
            listed = await api.session_legal_moves(spb.SessionLegalMovesRequest(session=session), tokens[0])
            request = spb.SessionApplyMoveRequest(
                session=session, move=listed.moves[0], etag=etag, request_id="w-1"
            )
            started = time.monotonic()
            with pytest.raises(LawspeakerError) as not_replicated:
                await waiting_api.session_apply_move(request, tokens[0])
            assert not_replicated.value.reason == "SESSION_WRITE_NOT_REPLICATED"
            assert time.monotonic() - started >= 0.05  # WAIT waited: it followed the write it counts
            seen = await api.get_session(spb.GetSessionRequest(session=session), None)
            assert seen.session.move_count == 1  # the primary kept it
            # A retry answered from its request id is an acknowledgement too: still not replicated
            # (confirm_replicated WAITs for a write behind the move's), and it applies nothing again.
            with pytest.raises(LawspeakerError) as still:
                await waiting_api.session_apply_move(request, tokens[0])
            assert still.value.reason == "SESSION_WRITE_NOT_REPLICATED"
            retried = await api.session_apply_move(request, tokens[0])  # its outcome, by its id
            assert retried.session.move_count == 1
        finally:
            await api.close()
            await waiting_api.close()

    asyncio.run(main())


def test_the_slot_map_is_learnt_again_once_for_the_calls_that_fail_together(
    redis_cluster: LocalCluster,
) -> None:
    """Every call that fails on a node asks for a refresh of the slot map; those that ask while one
    runs wait for it, and the next one starts no sooner than REFRESH_EVERY after it: a dead node's
    hundreds of failing calls a second cost one CLUSTER SLOTS per REFRESH_EVERY."""

    async def main() -> None:
        store = RedisStore(redis_cluster.url)
        slots = store.slots
        assert slots is not None
        try:
            await slots.owner(0)  # learnt once, on first use
            first = slots.refreshes
            await asyncio.gather(*(slots.refresh(("127.0.0.1", redis_cluster.ports[0])) for _ in range(50)))
            assert slots.refreshes == first + 1
            started = time.monotonic()
            await asyncio.gather(*(slots.refresh() for _ in range(50)))
            assert slots.refreshes == first + 2
            assert time.monotonic() - started >= REFRESH_EVERY * 0.9
            assert slots.primaries() == {("127.0.0.1", port) for port in redis_cluster.ports}
        finally:
            await store.close()

    asyncio.run(main())


def test_a_new_cluster_stores_first_concurrent_calls_all_answer(
    redis_cluster: LocalCluster, redis_prefix: str
) -> None:
    """A store's first calls on a cluster, 60 at once (a replica starting under load): each answers.
    redis-py's cluster client, on its first use, let a command look up its COMMAND table while the
    table was still being fetched (AttributeError 'AsyncCommandsParser' object has no attribute
    'node', seen in CI); the store initializes the client once before any command."""

    async def body() -> None:
        store = RedisStore(redis_cluster.url, prefix=redis_prefix, timeout=2)
        try:
            keys = [SessionKey(f"valhalla.{n:04d}", "test") for n in range(20)]
            calls: list[Awaitable[object]] = []
            for key in keys:
                calls += [store.read_log(key, 0, 5), store.take_ticket(key, b"t" * 32), store.load(key)]
            got = await asyncio.gather(*calls, return_exceptions=True)
            failed = [g for g in got if isinstance(g, BaseException)]
            assert failed == [], failed[:3]
        finally:
            await store.close()

    asyncio.run(body())
