"""Quotas on sessions: a rate limit on creation per client, a cap on live sessions, optional API
keys, against both stores, over every transport, and across two `lawspeaker serve` replicas."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from transport.conftest import run_servers
from transport.test_serve_command import serving

from lawspeaker.api.access import (
    CALLER,
    Access,
    Caller,
    digest,
    grpc_peer_address,
    parse_api_keys,
    parse_networks,
)
from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions.service import Limits, SessionApi
from lawspeaker.sessions.store import MemoryStore
from lawspeaker.v1 import rules_service_pb2, rules_service_pb2_grpc, session_service_pb2_grpc
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import StoreFactory
from .helpers import run
from .test_session_transport import free_port, start_redis

pytestmark = pytest.mark.sessions

NEW = spb.CreateSessionRequest(game="valhalla", players=2)
KEY = "lsk_test-key-for-quotas"
KEYS = {digest(KEY): "tests"}


async def _create(api: SessionApi, caller: Caller | None = None) -> spb.CreateSessionResponse:
    token = CALLER.set(caller)
    try:
        return await api.create_session(NEW, None)
    finally:
        CALLER.reset(token)


async def _refusal(api: SessionApi, caller: Caller | None = None) -> LawspeakerError:
    with pytest.raises(LawspeakerError) as caught:
        await _create(api, caller)
    return caught.value


# --------------------------------------------------------------------------- the session API


def test_creation_is_rate_limited_per_client_with_a_retry_delay(make_store: StoreFactory) -> None:
    limits = Limits(create_per_minute=60, create_burst=3)

    async def body(api: SessionApi) -> None:
        alice, bob = Caller("ip:192.0.2.1"), Caller("ip:192.0.2.2")
        for _ in range(3):  # the burst
            await _create(api, alice)
        err = await _refusal(api, alice)
        assert err.code is ErrorCode.RESOURCE_EXHAUSTED
        assert err.reason == "SESSION_CREATE_RATE_LIMITED"
        assert err.retry_after is not None and 0 < err.retry_after <= 1.01  # one a second refills
        assert "at most 3 at once and 60 a minute" in err.message
        await _create(api, bob)  # another client has its own allowance
        await asyncio.sleep(err.retry_after + 0.05)
        await _create(api, alice)  # after the delay it says, one more

    run(make_store, body, limits=limits)


def test_live_sessions_are_capped_and_counted_in_health_details(make_store: StoreFactory) -> None:
    limits = Limits(max_sessions=3)

    async def body(api: SessionApi) -> None:
        made = [await _create(api, Caller(f"ip:198.51.100.{i}")) for i in range(3)]
        err = await _refusal(api, Caller("ip:198.51.100.9"))
        assert err.code is ErrorCode.RESOURCE_EXHAUSTED
        assert err.reason == "SESSION_LIMIT_REACHED"
        assert err.retry_after is not None and 0 < err.retry_after <= 60
        health = await api.health()
        assert health["liveSessions"] == 3 and health["maxSessions"] == 3 and health["available"]
        first = made[0]
        await api.delete_session(
            spb.DeleteSessionRequest(session=first.session.session), first.seat_tokens[0].token
        )
        assert (await api.health())["liveSessions"] == 2
        await _create(api, Caller("ip:198.51.100.9"))  # room again

    run(make_store, body, limits=limits)


def test_expired_sessions_leave_room_and_used_ones_keep_counting(make_store: StoreFactory) -> None:
    """The count follows the sessions: one in use keeps its place past its first TTL; an expired one
    frees it (in Redis at most ``live_slack(ttl)`` = 1 s after it expired)."""

    async def body(api: SessionApi) -> None:
        used = await _create(api)
        await _create(api, Caller("ip:192.0.2.77"))  # left alone: expires after 2 s
        for _ in range(8):  # 4 s of play, past the TTL and its slack
            await asyncio.sleep(0.5)
            await api.get_session(spb.GetSessionRequest(session=used.session.session), None)
        assert (await api.health())["liveSessions"] == 1
        await _create(api, Caller("ip:192.0.2.78"))
        err = await _refusal(api, Caller("ip:192.0.2.79"))
        assert err.reason == "SESSION_LIMIT_REACHED"
        await asyncio.sleep(3.1)  # nobody uses them now: the TTL and the slack pass
        assert (await api.health())["liveSessions"] == 0
        await _create(api, Caller("ip:192.0.2.79"))

    run(make_store, body, ttl=2, limits=Limits(max_sessions=2))


def test_api_keys_are_needed_to_create_when_configured(make_store: StoreFactory) -> None:
    limits = Limits(access=Access(KEYS))

    async def body(api: SessionApi) -> None:
        err = await _refusal(api, None)
        assert (err.code, err.reason) == (ErrorCode.UNAUTHENTICATED, "API_KEY_REQUIRED")
        err = await _refusal(api, Caller("ip:192.0.2.1"))  # identified, but with no key
        assert (err.code, err.reason) == (ErrorCode.UNAUTHENTICATED, "API_KEY_REQUIRED")
        await _create(api, Caller("key:tests", "tests"))

    run(make_store, body, limits=limits)


def test_the_memory_store_forgets_full_rate_buckets() -> None:
    async def body() -> None:
        clock = [0.0]
        store = MemoryStore(clock=lambda: clock[0])
        assert (await store.take("a", 60, 1)).wait == 0.0
        assert (await store.take("a", 60, 1)).wait == pytest.approx(1.0)
        clock[0] = 1.0
        assert (await store.take("a", 60, 1)).wait == 0.0
        clock[0] = 100.0
        store._sweep()
        assert store._rates == {}

    asyncio.run(body())


def test_the_memory_store_never_refuses_a_first_request_by_rounding() -> None:
    # At this clock reading (now + 60000) - now exceeds 60000 in floating point: a burst of 1 at
    # 0.001 a minute used to refuse the bucket's very first request, and let the next one through.
    now = 510882.982
    assert (now + 60_000.0) - now > 60_000.0

    async def body() -> None:
        store = MemoryStore(clock=lambda: now)
        assert (await store.take("a", 0.001, 1)).wait == 0.0
        assert (await store.take("a", 0.001, 1)).wait == pytest.approx(60_000.0)
        assert (await store.take("b", 0.001, 2)).wait == 0.0
        assert (await store.take("b", 0.001, 2)).wait == 0.0
        assert (await store.take("b", 0.001, 2)).wait == pytest.approx(60_000.0)

    asyncio.run(body())


# --------------------------------------------------------------------------- who is calling


def test_the_client_address_trusts_forwarded_for_only_from_trusted_proxies() -> None:
    plain = Access()
    assert plain.client_address("10.0.0.5", "203.0.113.7") == "10.0.0.5"
    behind = Access(trusted_proxies=parse_networks("10.0.0.0/8, ::1"))
    assert behind.client_address("10.0.0.5", "203.0.113.7") == "203.0.113.7"
    # the right-most address that is not a trusted proxy: a client cannot spoof by prepending
    assert behind.client_address("10.0.0.5", "198.51.100.1, 203.0.113.7, 10.1.1.1") == "203.0.113.7"
    assert behind.client_address("192.0.2.9", "203.0.113.7") == "192.0.2.9"  # not a trusted peer
    assert behind.client_address("::1", "2001:db8::1") == "2001:db8::1"
    assert grpc_peer_address("ipv4:127.0.0.1:5555") == "127.0.0.1"
    assert grpc_peer_address("ipv6:[::1]:5555") == "::1"


def test_api_key_configuration_holds_digests_only() -> None:
    entry = f"app=sha256:{digest(KEY)}, sha256:{'a' * 64}"
    assert parse_api_keys(entry) == {digest(KEY): "app", "a" * 64: "key-aaaaaaaa"}
    with pytest.raises(ValueError, match="entry 1 is not"):
        parse_api_keys(KEY)  # a key in the clear is refused
    access = Access(parse_api_keys(entry))
    assert access.key_name(KEY, required=True) == "app"
    with pytest.raises(LawspeakerError) as caught:
        access.key_name("lsk_wrong", required=False)
    assert caught.value.reason == "API_KEY_INVALID"


# --------------------------------------------------------------------------- over every transport


def _memory_sessions(limits: Limits) -> SessionApi:
    return SessionApi(MemoryStore(), limits=limits)


def test_every_transport_answers_429_resource_exhausted_with_when_to_retry() -> None:
    limits = Limits(create_per_minute=6, create_burst=1)
    with run_servers(sessions=lambda: _memory_sessions(limits)) as servers:
        with httpx.Client(base_url=servers.base_url) as http:
            body = {"game": "valhalla", "players": 2}
            assert http.post("/v1/sessions", json=body).status_code == 200
            refused = http.post("/v1/sessions", json=body)
            assert refused.status_code == 429
            assert 1 <= int(refused.headers["retry-after"]) <= 10
            problem = refused.json()
            assert (
                problem["reason"] == "SESSION_CREATE_RATE_LIMITED" and problem["code"] == "RESOURCE_EXHAUSTED"
            )
            connect = http.post("/lawspeaker.v1.SessionService/CreateSession", json=body)
            assert connect.status_code == 429 and connect.json()["code"] == "resource_exhausted"
            assert 1 <= int(connect.headers["retry-after"]) <= 10
        with grpc.insecure_channel(f"127.0.0.1:{servers.grpc_port}") as channel:
            stub = session_service_pb2_grpc.SessionServiceStub(channel)
            with pytest.raises(grpc.RpcError) as caught:
                stub.CreateSession(NEW)
            status = rpc_status.from_call(caught.value)
            assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED and status is not None
            retry = [d for d in status.details if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
            info = error_details_pb2.RetryInfo()
            retry[0].Unpack(info)
            assert 0 < info.retry_delay.ToNanoseconds() <= 10e9


def test_every_transport_asks_for_an_api_key_when_keys_are_configured() -> None:
    limits = Limits(access=Access(KEYS, keys_for_rules=True))
    with run_servers(sessions=lambda: _memory_sessions(limits)) as servers:
        with httpx.Client(base_url=servers.base_url) as http:
            body = {"game": "valhalla", "players": 2}
            missing = http.post("/v1/sessions", json=body)
            assert missing.status_code == 401 and missing.json()["reason"] == "API_KEY_REQUIRED"
            assert "x-api-key" in missing.headers["www-authenticate"].lower()
            wrong = http.post("/v1/sessions", json=body, headers={"x-api-key": "lsk_wrong"})
            assert wrong.status_code == 401 and wrong.json()["reason"] == "API_KEY_INVALID"
            made = http.post("/v1/sessions", json=body, headers={"x-api-key": KEY})
            assert made.status_code == 200
            token = made.json()["seatTokens"][0]["token"]
            session = made.json()["session"]["session"]
            # a seat acts with its seat token; the API key is for creating sessions only
            listed = http.post(
                f"/v1/sessions/{session}:legalMoves", json={}, headers={"authorization": f"Bearer {token}"}
            )
            assert listed.status_code == 200
            rules = http.post("/v1/games/valhalla:new", json={"players": 2})
            assert rules.status_code == 401  # --api-keys-for-rules
            assert http.post(
                "/v1/games/valhalla:new", json={"players": 2}, headers={"x-api-key": KEY}
            ).is_success
            assert http.get("/healthz").status_code == 200  # health needs no key
            connect = http.post("/lawspeaker.v1.RulesService/ListGames", json={})
            assert connect.status_code == 401 and connect.json()["code"] == "unauthenticated"
            connect = http.post(
                "/lawspeaker.v1.SessionService/CreateSession", json=body, headers={"x-api-key": KEY}
            )
            assert connect.status_code == 200
        with grpc.insecure_channel(f"127.0.0.1:{servers.grpc_port}") as channel:
            sessions = session_service_pb2_grpc.SessionServiceStub(channel)
            rules_stub = rules_service_pb2_grpc.RulesServiceStub(channel)
            with pytest.raises(grpc.RpcError) as caught:
                sessions.CreateSession(NEW)
            assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.RpcError) as caught:
                rules_stub.ListGames(rules_service_pb2.ListGamesRequest())
            assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED
            assert sessions.CreateSession(NEW, metadata=[("x-api-key", KEY)]).session.session
            assert rules_stub.ListGames(
                rules_service_pb2.ListGamesRequest(), metadata=[("x-api-key", KEY)]
            ).games


def test_quotas_count_the_forwarded_client_only_behind_a_trusted_proxy() -> None:
    for trusted, separate in ((("127.0.0.1/32",), True), ((), False)):
        limits = Limits(
            create_per_minute=1, create_burst=1, access=Access(trusted_proxies=parse_networks(trusted))
        )
        with (
            run_servers(sessions=lambda limits=limits: _memory_sessions(limits)) as servers,
            httpx.Client(base_url=servers.base_url) as http,
        ):
            body = {"game": "valhalla", "players": 2}
            first = http.post("/v1/sessions", json=body, headers={"x-forwarded-for": "203.0.113.1"})
            other = http.post("/v1/sessions", json=body, headers={"x-forwarded-for": "203.0.113.2"})
            assert first.status_code == 200
            assert other.status_code == (200 if separate else 429)


# --------------------------------------------------------------------------- two replicas, one Redis


def _replicas(redis_url: str, *flags: str) -> contextlib.AbstractContextManager[list[str]]:
    """Two `lawspeaker serve` processes on one Redis; their HTTP base URLs."""
    return serving([(["--redis-url", redis_url, *flags], {})] * 2)


@pytest.fixture
def private_redis() -> Iterator[str]:
    port = free_port()
    proc = start_redis(port)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.kill()
        proc.wait(10)


def test_the_limits_hold_across_two_replicas_sharing_redis(private_redis: str) -> None:
    """One client alternating between two replicas gets one allowance, not one per replica; health
    details on either replica show the shared count of live sessions."""
    flags = ("--create-rate", "6", "--create-burst", "3", "--max-sessions", "5")
    with _replicas(private_redis, *flags) as urls:
        body = {"game": "valhalla", "players": 2}
        answers = [httpx.post(urls[i % 2] + "/v1/sessions", json=body).status_code for i in range(6)]
        assert answers == [200, 200, 200, 429, 429, 429]
        details = [httpx.get(url + "/healthz/details").json()["sessions"] for url in urls]
        assert [d["liveSessions"] for d in details] == [3, 3]
        assert details[0]["maxSessions"] == 5 and details[0]["createPerMinute"] == 6


def test_the_cap_holds_across_two_replicas(private_redis: str) -> None:
    flags = ("--create-rate", "0", "--max-sessions", "4")
    with _replicas(private_redis, *flags) as urls:
        body = {"game": "valhalla", "players": 2}
        answers = [httpx.post(urls[i % 2] + "/v1/sessions", json=body) for i in range(6)]
        assert [a.status_code for a in answers] == [200, 200, 200, 200, 429, 429]
        assert answers[4].json()["reason"] == "SESSION_LIMIT_REACHED"
        assert int(answers[4].headers["retry-after"]) >= 1
        made = answers[0].json()
        deleted = httpx.delete(
            urls[1] + "/v1/sessions/" + made["session"]["session"],
            headers={"authorization": "Bearer " + made["seatTokens"][0]["token"]},
        )
        assert deleted.status_code == 200
        assert httpx.post(urls[0] + "/v1/sessions", json=body).status_code == 200
