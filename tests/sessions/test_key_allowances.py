"""API keys with their own allowance for creating sessions (``name=sha256:<hex>;rate=...;burst=...``,
what a load test uses instead of turning the server's quota off), and the state of the creation
quota in every answer: the RateLimit headers (draft-ietf-httpapi-ratelimit-headers) over REST and
Connect, the same as gRPC trailing metadata, and the wait as a number in a 429 problem's metadata."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import grpc
import httpx
import pytest
from transport.conftest import Servers, run_servers

from lawspeaker.api.access import (
    RATE_LIMIT,
    Access,
    Allowance,
    Caller,
    RateLimitNote,
    digest,
    parse_api_key_entries,
)
from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.server import cli
from lawspeaker.sessions.service import Limits, SessionApi
from lawspeaker.sessions.store import MemoryStore
from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.v1 import session_service_pb2_grpc

from .conftest import StoreFactory
from .helpers import create_as, run

pytestmark = pytest.mark.sessions

NEW = spb.CreateSessionRequest(game="valhalla", players=2)
LOAD_KEY = "lsk_load-test-key-for-allowances"
APP_KEY = "lsk_app-key-without-allowance"
ENTRIES = f"loadtest=sha256:{digest(LOAD_KEY)};rate=6000;burst=200, app=sha256:{digest(APP_KEY)}"
POLICY = re.compile(r'^"create";q=(\d+);w=(\d+)$')
STATE = re.compile(r'^"create";r=(\d+);t=(\d+)$')


# --------------------------------------------------------------------------- the configuration


def test_an_entry_may_give_its_key_a_rate_and_a_burst_of_its_own() -> None:
    keys, allowances = parse_api_key_entries(
        ENTRIES + f", sha256:{'b' * 64};burst=50, c=sha256:{'c' * 64};rate=0"
    )
    assert keys == {
        digest(LOAD_KEY): "loadtest",
        digest(APP_KEY): "app",
        "b" * 64: "key-bbbbbbbb",
        "c" * 64: "c",
    }
    assert allowances == {
        digest(LOAD_KEY): Allowance(6000.0, 200),
        "b" * 64: Allowance(None, 50),  # the rate is the server's --create-rate
        "c" * 64: Allowance(0.0, None),  # no limit for this key
    }


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("a=sha256:{hex};rate=fast", "entry 1: rate='fast' must be a number of new sessions a minute"),
        ("a=sha256:{hex};rate=-5", "entry 1: rate='-5' must be a number"),
        ("a=sha256:{hex};rate=nan", "entry 1: rate='nan' must be a number"),
        ("a=sha256:{hex};burst=0", "entry 1: burst='0' must be a whole number of sessions from 1"),
        ("a=sha256:{hex};burst=2.5", "entry 1: burst='2.5' must be a whole number"),
        ("a=sha256:{hex};burst=3;burst=4", "entry 1: burst is given twice"),
        ("a=sha256:{hex};quota=9", "entry 1: 'quota=9' is not an option; after the digest an entry takes"),
        ("a=sha256:{hex};", "entry 1: '' is not an option"),
        ("a=sha256:{hex}, b=sha256:{hex}", "entry 2 repeats the digest of an earlier entry"),
        ("a=lsk_plainkey;rate=5", "entry 1 is not 'name=sha256:<64 hex digits>'"),
    ],
)
def test_a_bad_entry_is_refused_naming_the_entry_and_the_rule(entry: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_api_key_entries(entry.format(hex="d" * 64))
    assert message in str(caught.value)


def _serve_flags(*flags: str) -> str:
    """The message ``lawspeaker serve`` stops with at start-up on these flags."""
    with pytest.raises(SystemExit) as caught:
        cli._quotas(cli.parser().parse_args(["serve", *flags]))
    return str(caught.value.code)


def test_serve_stops_at_start_up_on_a_bad_allowance_with_a_clear_message() -> None:
    assert _serve_flags("--api-keys", f"lt=sha256:{'e' * 64};rate=lots") == (
        "--api-keys / LAWSPEAKER_API_KEYS: API key entry 1: rate='lots' must be a number of new sessions "
        "a minute from 0 (no limit) to 1e+06"
    )
    assert "key 'lt' has a rate but no burst, and --create-burst is 0" in _serve_flags(
        "--create-rate", "0", "--create-burst", "0", "--api-keys", f"lt=sha256:{'e' * 64};rate=60"
    )
    assert (
        _serve_flags("--api-keys-optional") == "--api-keys-optional needs --api-keys (or LAWSPEAKER_API_KEYS)"
    )
    limits, _ = cli._quotas(cli.parser().parse_args(["serve", "--api-keys", ENTRIES, "--api-keys-optional"]))
    assert limits.access.allowances[digest(LOAD_KEY)] == Allowance(6000.0, 200)
    assert limits.access.keys_optional and not limits.access.keys_required


# --------------------------------------------------------------------------- the quota applied per key


def _limits(optional: bool) -> Limits:
    keys, allowances = parse_api_key_entries(ENTRIES)
    access = Access(keys, allowances=allowances, keys_optional=optional)
    return Limits(create_per_minute=30, create_burst=10, access=access)


async def _create(api: SessionApi, caller: Caller) -> spb.CreateSessionResponse:
    return await create_as(api, caller, NEW)


async def _count_created(api: SessionApi, caller: Caller, tries: int) -> int:
    made = 0
    for _ in range(tries):
        try:
            await _create(api, caller)
        except LawspeakerError as err:
            assert err.reason == "SESSION_CREATE_RATE_LIMITED", err.reason
            continue
        made += 1
    return made


def test_a_key_with_a_big_allowance_creates_many_while_others_keep_the_default(
    make_store: StoreFactory,
) -> None:
    """On both stores: the load-test key creates 150 sessions at once (its burst is 200), a key whose
    entry gives no allowance and a client without a key (keys optional) each get the default 10."""
    access = _limits(optional=True).access

    async def body(api: SessionApi) -> None:
        load = access.caller(LOAD_KEY, "192.0.2.1", None, key_required=True)
        app = access.caller(APP_KEY, "192.0.2.1", None, key_required=True)
        anonymous = access.caller(None, "192.0.2.1", None, key_required=True)
        assert (load.quota_key, load.allowance) == ("key:loadtest", Allowance(6000.0, 200))
        assert (app.quota_key, app.allowance) == ("key:app", None)
        assert anonymous.quota_key == "ip:192.0.2.1"
        assert await _count_created(api, load, 150) == 150
        assert await _count_created(api, app, 15) == 10
        assert await _count_created(api, anonymous, 15) == 10

    run(make_store, body, limits=_limits(optional=True))


def test_without_keys_optional_a_client_without_a_key_may_not_create(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        with pytest.raises(LawspeakerError) as caught:
            await _create(api, Caller("ip:192.0.2.9"))
        assert (caught.value.code, caught.value.reason) == (ErrorCode.UNAUTHENTICATED, "API_KEY_REQUIRED")
        load = api.limits.access.caller(LOAD_KEY, "192.0.2.9", None, key_required=True)
        assert await _count_created(api, load, 30) == 30

    run(make_store, body, limits=_limits(optional=False))


def test_a_key_with_rate_zero_is_not_limited_and_says_no_rate_limit(make_store: StoreFactory) -> None:
    keys, allowances = parse_api_key_entries(f"free=sha256:{digest(LOAD_KEY)};rate=0")
    limits = Limits(create_per_minute=6, create_burst=1, access=Access(keys, allowances=allowances))

    async def body(api: SessionApi) -> None:
        free = limits.access.caller(LOAD_KEY, "192.0.2.3", None, key_required=True)
        note = RateLimitNote()
        noting = RATE_LIMIT.set(note)
        try:
            assert await _count_created(api, free, 12) == 12
        finally:
            RATE_LIMIT.reset(noting)
        assert note.value is None  # no quota was taken from: no RateLimit headers

    run(make_store, body, limits=limits)


# --------------------------------------------------------------------------- what a take tells


def test_a_take_tells_what_remains_and_when_the_burst_is_full_again(make_store: StoreFactory) -> None:
    """GCRA at 60 a minute, burst 3: each take leaves one fewer and the bucket one second further from
    full; the refusal leaves none, says the wait (one interval) and keeps the time to full."""

    async def body(api: SessionApi) -> None:
        store = api.store
        takes = [await store.take("create:t", 60, 3) for _ in range(4)]
        assert [t.wait for t in takes[:3]] == [0.0, 0.0, 0.0]
        assert [t.remaining for t in takes] == [2, 1, 0, 0]
        assert [round(t.full_in) for t in takes] == [1, 2, 3, 3]
        assert 0.9 <= takes[3].wait <= 1.0
        assert all(t.full_in <= full + 0.001 for t, full in zip(takes, [1, 2, 3, 3], strict=True))

    run(make_store, body)


def test_the_memory_store_counts_remaining_exactly_on_a_fixed_clock() -> None:
    async def body() -> None:
        clock = [100.0]
        store = MemoryStore(clock=lambda: clock[0])
        first = await store.take("a", 30, 10)  # one every 2 s, 10 at once
        assert (first.wait, first.remaining, first.full_in) == (0.0, 9, pytest.approx(2.0))
        for _ in range(9):
            last = await store.take("a", 30, 10)
        assert (last.remaining, last.full_in) == (0, pytest.approx(20.0))
        refused = await store.take("a", 30, 10)
        assert (refused.wait, refused.remaining, refused.full_in) == (
            pytest.approx(2.0),
            0,
            pytest.approx(20.0),
        )
        clock[0] += 5.0  # two intervals and a half refill two
        again = await store.take("a", 30, 10)
        assert (again.wait, again.remaining, again.full_in) == (0.0, 1, pytest.approx(17.0))

    asyncio.run(body())


# --------------------------------------------------------------------------- over the transports


def _sessions() -> SessionApi:
    return SessionApi(MemoryStore(), limits=_limits(optional=True))


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    """Both servers with the default quota (30 a minute, burst 10) and the two keys, keys optional."""
    with run_servers(sessions=_sessions) as running:
        yield running


def _rate_limit(headers: httpx.Headers) -> tuple[int, int, int, int]:
    policy, state = POLICY.match(headers["ratelimit-policy"]), STATE.match(headers["ratelimit"])
    assert policy and state, (headers.get("ratelimit-policy"), headers.get("ratelimit"))
    return int(policy[1]), int(policy[2]), int(state[1]), int(state[2])


def test_create_session_and_its_429_carry_the_rate_limit_headers_over_rest(servers: Servers) -> None:
    body = {"game": "valhalla", "players": 2}
    with httpx.Client(base_url=servers.base_url) as http:
        answers = [http.post("/v1/sessions", json=body) for _ in range(11)]
    assert [a.status_code for a in answers] == [200] * 10 + [429]
    # q is the burst, w the seconds it takes to refill (10 * 60 / 30); r counts down, t counts up by
    # the 2 s interval each creation adds (rounded up: a little of it passed since)
    states = [_rate_limit(a.headers) for a in answers]
    assert {s[:2] for s in states} == {(10, 20)}
    assert [s[2] for s in states] == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]
    for n, (_, _, _, reset) in enumerate(states[:10], start=1):
        assert 2 * n - 1 <= reset <= 2 * n
    assert 19 <= states[10][3] <= 20
    refused = answers[10]
    problem = refused.json()
    assert problem["reason"] == "SESSION_CREATE_RATE_LIMITED"
    wait = problem["metadata"]["retryAfterSeconds"]
    assert isinstance(wait, float) and 0 < wait <= 2.0
    assert int(refused.headers["retry-after"]) == max(1, -(-wait // 1))
    assert problem["metadata"]["perMinute"] == "30" and problem["metadata"]["burst"] == "10"  # strings


def test_a_key_s_own_allowance_shows_in_its_headers_over_rest_and_connect(servers: Servers) -> None:
    body = {"game": "valhalla", "players": 2}
    with httpx.Client(base_url=servers.base_url, headers={"x-api-key": LOAD_KEY}) as http:
        rest = http.post("/v1/sessions", json=body)
        connect = http.post("/lawspeaker.v1.SessionService/CreateSession", json=body)
    assert rest.status_code == connect.status_code == 200
    # 200 at once, refilled in 2 s at 6000 a minute; the second call has one fewer left, or as many
    # when more than the 10 ms interval passed between the two (a loaded machine)
    assert _rate_limit(rest.headers) == (200, 2, 199, 1)
    limit, window, remaining, reset = _rate_limit(connect.headers)
    assert (limit, window, reset) == (200, 2, 1) and remaining in (198, 199)


def test_grpc_sends_the_same_as_trailing_metadata_on_the_answer_and_the_refusal(servers: Servers) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{servers.grpc_port}") as channel:
        stub = session_service_pb2_grpc.SessionServiceStub(channel)
        _, call = stub.CreateSession.with_call(NEW, metadata=[("x-api-key", APP_KEY)])
        trailers = dict(call.trailing_metadata() or ())
        assert trailers["ratelimit-policy"] == '"create";q=10;w=20'
        assert trailers["ratelimit"] == '"create";r=9;t=2'
        for _ in range(9):
            stub.CreateSession(NEW, metadata=[("x-api-key", APP_KEY)])
        with pytest.raises(grpc.RpcError) as caught:
            stub.CreateSession(NEW, metadata=[("x-api-key", APP_KEY)])
        refused = caught.value
        assert refused.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        trailers = dict(refused.trailing_metadata() or ())
        assert trailers["ratelimit-policy"] == '"create";q=10;w=20'
        assert STATE.match(trailers["ratelimit"]) and trailers["ratelimit"].startswith('"create";r=0;')
        assert "grpc-status-details-bin" in trailers  # the rich status is still there


def test_a_refusal_by_the_cap_on_live_sessions_carries_the_headers_too() -> None:
    """The creation took from the client's quota before the cap refused it: the headers say so."""
    limits = Limits(create_per_minute=30, create_burst=10, max_sessions=1)
    with (
        run_servers(sessions=lambda: SessionApi(MemoryStore(), limits=limits)) as running,
        httpx.Client(base_url=running.base_url) as http,
    ):
        body = {"game": "valhalla", "players": 2}
        first, second = http.post("/v1/sessions", json=body), http.post("/v1/sessions", json=body)
    assert first.status_code == 200 and second.status_code == 429
    problem = second.json()
    assert problem["reason"] == "SESSION_LIMIT_REACHED"
    assert isinstance(problem["metadata"]["retryAfterSeconds"], float | int)
    assert _rate_limit(first.headers)[:3] == (10, 20, 9)
    assert _rate_limit(second.headers)[:3] == (10, 20, 8)
