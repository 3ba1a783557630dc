"""``GET /metrics`` of the real servers (as ``lawspeaker serve`` wraps them): every transport's calls
counted by service, method, game and code, the latency histogram, rejected moves, the session
counters and gauges, the store's round trips and availability, and labels that never carry a
session id, a token or a request id.

Metrics are process-global (and the suite runs other servers in the same process), so every
assertion is on the difference between two scrapes, or on a gauge set just before its scrape.
"""

from __future__ import annotations

import contextlib
import gc
import json
import re
import secrets
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import httpx
import pytest
import redis
from google.protobuf import json_format
from prometheus_client.parser import text_string_to_metric_families

from lawspeaker.observe import metrics
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import MemoryStore, RedisStore
from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc, session_service_pb2_grpc, valhalla_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import REDIS_URL, Servers, redis_up, run_servers

REDIS_UP = redis_up()
pytestmark = pytest.mark.transport

RULES = "RulesService"  # the service label: the service's name in the contract
SESSIONS = "SessionService"
CONNECT_RULES = "/lawspeaker.v1.RulesService"
CONNECT_SESSIONS = "/lawspeaker.v1.SessionService"
CONNECT_JSON = {"content-type": "application/json", "connect-protocol-version": "1"}
SHIP_MOVE = game_pb2.Move(
    valhalla=valhalla_pb2.ValhallaMove(move_ship=valhalla_pb2.ValhallaShipMove(ship=6, to=13))
)
CAST: dict[str, Any] = {"valhalla": {"cast": {}}}
UNKNOWN_GAME = "no-such-game-" + secrets.token_hex(3)

Labels = tuple[tuple[str, str], ...]
Samples = dict[str, dict[Labels, float]]


# --------------------------------------------------------------------------- scraping


def parse(text: str) -> Samples:
    """Every sample of an exposition: sample name -> sorted labels -> value."""
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return out


def scrape(url: str) -> Samples:
    """``GET url/metrics`` over a connection of its own, parsed."""
    r = httpx.get(f"{url}/metrics", timeout=30)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return parse(r.text)


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels`` (0 when there is none)."""
    wanted = set(labels.items())
    return sum(v for k, v in samples.get(name, {}).items() if wanted <= set(k))


def delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def label_values(samples: Samples) -> set[str]:
    return {v for series in samples.values() for labels in series for _, v in labels}


def requests_delta(before: Samples, after: Samples, **labels: str) -> float:
    return delta(before, after, "lawspeaker_requests_total", **labels)


def wait_for(check: Callable[[], bool], what: str, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    pytest.fail(f"not within {seconds} s: {what}")


# --------------------------------------------------------------------------- servers on a real Redis


def redis_sessions(url: str, prefix: str) -> Callable[[], SessionApi]:
    return lambda: SessionApi(RedisStore(url, prefix=prefix))


def delete_prefix(prefix: str) -> None:
    client = redis.Redis.from_url(REDIS_URL)
    names = list(client.scan_iter(match=f"{prefix}*", count=1000))
    if names:
        client.delete(*names)
    client.close()


@contextlib.contextmanager
def redis_servers() -> Iterator[Servers]:
    """Both servers serving sessions from Redis under a key prefix of their own (a fresh store)."""
    if not REDIS_UP:
        pytest.skip(f"needs Redis at {REDIS_URL}")
    prefix = f"lawspeaker-test-metrics-{secrets.token_hex(6)}"
    try:
        with run_servers(sessions=redis_sessions(REDIS_URL, prefix)) as running:
            yield running
    finally:
        delete_prefix(prefix)


class Clients:
    def __init__(self, servers: Servers) -> None:
        self.servers = servers
        self.url = servers.base_url
        self.channel = grpc.insecure_channel(f"127.0.0.1:{servers.grpc_port}")
        self.rules = rules_service_pb2_grpc.RulesServiceStub(self.channel)
        self.sessions = session_service_pb2_grpc.SessionServiceStub(self.channel)
        self.http = httpx.Client(base_url=servers.base_url, timeout=30)

    def scrape(self) -> Samples:
        return scrape(self.url)

    def create(self) -> tuple[str, list[str], str]:
        r = self.http.post("/v1/sessions", json={"game": "valhalla", "players": 2, "seed": "42"})
        assert r.status_code == 200, r.text
        body = r.json()
        return body["session"]["session"], [t["token"] for t in body["seatTokens"]], body["session"]["etag"]

    def close(self) -> None:
        self.http.close()
        self.channel.close()


@pytest.fixture(scope="module")
def clients() -> Iterator[Clients]:
    """Servers on a real Redis (the in-process store when there is none: only the store's own
    tests then skip)."""
    with redis_servers() if REDIS_UP else run_servers(sessions=lambda: SessionApi(MemoryStore())) as servers:
        c = Clients(servers)
        yield c
        c.close()


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


# --------------------------------------------------------------------------- requests


def test_each_transport_counts_its_calls_by_service_method_game_and_code(clients: Clients) -> None:
    before = clients.scrape()
    # OK
    clients.rules.NewGame(pb.NewGameRequest(game="valhalla", players=2, seed=1), timeout=30)
    assert clients.http.post("/v1/games/valhalla:new", json={"players": 2, "seed": "1"}).status_code == 200
    r = clients.http.post(
        f"{CONNECT_RULES}/NewGame", json={"game": "valhalla", "players": 2, "seed": "1"}, headers=CONNECT_JSON
    )
    assert r.status_code == 200, r.text
    # INVALID_ARGUMENT (a known game: it is labelled)
    with pytest.raises(grpc.RpcError) as caught:
        clients.rules.NewGame(pb.NewGameRequest(game="valhalla", players=5), timeout=30)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert clients.http.post("/v1/games/valhalla:new", json={"players": 5}).status_code == 400
    r = clients.http.post(
        f"{CONNECT_RULES}/NewGame", json={"game": "valhalla", "players": 5}, headers=CONNECT_JSON
    )
    assert r.status_code == 400, r.text
    # NOT_FOUND for a game nobody registered: never a label
    with pytest.raises(grpc.RpcError) as caught:
        clients.rules.NewGame(pb.NewGameRequest(game=UNKNOWN_GAME, players=2), timeout=30)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert clients.http.post(f"/v1/games/{UNKNOWN_GAME}:new", json={"players": 2}).status_code == 404
    r = clients.http.post(
        f"{CONNECT_RULES}/NewGame", json={"game": UNKNOWN_GAME, "players": 2}, headers=CONNECT_JSON
    )
    assert r.status_code == 404, r.text
    after = clients.scrape()

    for transport in ("grpc", "rest", "connect"):
        rpc = {"transport": transport, "service": RULES, "method": "NewGame"}
        assert requests_delta(before, after, **rpc, game="valhalla", code="OK") == 1, transport
        assert requests_delta(before, after, **rpc, game="valhalla", code="INVALID_ARGUMENT") == 1, transport
        assert requests_delta(before, after, **rpc, game="", code="NOT_FOUND") == 1, transport
        assert requests_delta(before, after, **rpc) == 3, transport
    assert UNKNOWN_GAME not in label_values(after)
    assert not any(UNKNOWN_GAME in v for v in label_values(after))


def test_paths_that_are_no_rpc_count_as_other(clients: Clients) -> None:
    before = clients.scrape()
    assert clients.http.get("/no/such/path").status_code == 404
    assert clients.http.get("/v1/no-such-thing/at/all").status_code == 404
    assert clients.http.get("/healthz").status_code == 200
    assert (
        clients.http.post(f"{CONNECT_RULES}/NoSuchMethod", json={}, headers=CONNECT_JSON).status_code == 404
    )
    after = clients.scrape()
    other = {"service": "other", "method": "other", "game": ""}
    assert requests_delta(before, after, transport="rest", **other, code="NOT_FOUND") == 2
    assert requests_delta(before, after, transport="rest", **other, code="OK") == 2  # /healthz, the scrape
    # an unknown method of a known service: gRPC's code for it (its name is never a label)
    assert requests_delta(before, after, transport="connect", **other, code="UNIMPLEMENTED") == 1
    assert not any("such" in v.lower() for v in label_values(after))


def test_the_latency_histogram_has_sub_millisecond_buckets_and_observes_every_unary_call(
    clients: Clients,
) -> None:
    before = clients.scrape()
    for seed in range(5):
        clients.rules.NewGame(pb.NewGameRequest(game="valhalla", players=2, seed=seed), timeout=30)
    after = clients.scrape()
    series = {"transport": "grpc", "service": RULES, "method": "NewGame", "game": "valhalla"}
    name = "lawspeaker_request_duration_seconds"
    assert delta(before, after, f"{name}_count", **series) == 5
    assert delta(before, after, f"{name}_sum", **series) > 0
    bounds = sorted(
        float(dict(labels)["le"]) for labels in after[f"{name}_bucket"] if set(series.items()) <= set(labels)
    )
    sub_ms = [b for b in bounds if b < 0.001]
    assert len(sub_ms) >= 3, bounds  # a call of 100 us and one of 700 us land in different buckets
    assert sub_ms[0] <= 0.0001
    assert delta(before, after, f"{name}_bucket", **series, le="+Inf") == 5


# --------------------------------------------------------------------------- rejected moves


def test_rejected_moves_are_counted_by_game_method_and_rule_reason(clients: Clients) -> None:
    state = clients.rules.NewGame(pb.NewGameRequest(game="valhalla", players=2, seed=7), timeout=30).state
    before = clients.scrape()
    verdict = clients.rules.ValidateMove(pb.ValidateMoveRequest(game="valhalla", state=state, move=SHIP_MOVE))
    assert not verdict.valid
    reason = verdict.violation.reason
    assert reason == "CAST_FIRST"
    with pytest.raises(grpc.RpcError) as caught:
        clients.rules.ApplyMove(pb.ApplyMoveRequest(game="valhalla", state=state, move=SHIP_MOVE))
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    body = json_format.MessageToDict(pb.ApplyMoveRequest(state=state, move=SHIP_MOVE))
    assert clients.http.post("/v1/games/valhalla:applyMove", json=body).status_code == 409
    r = clients.http.post(
        f"{CONNECT_RULES}/ApplyMove", json={"game": "valhalla", **body}, headers=CONNECT_JSON
    )
    assert r.status_code == 400 and r.json()["code"] == "failed_precondition", r.text  # Connect's mapping
    # ValidateMove over REST and Connect (JSON: their fast path over wire messages) finds it illegal too
    r = clients.http.post("/v1/games/valhalla:validateMove", json=body)
    assert r.status_code == 200 and r.json()["violation"]["reason"] == reason, r.text
    r = clients.http.post(
        f"{CONNECT_RULES}/ValidateMove", json={"game": "valhalla", **body}, headers=CONNECT_JSON
    )
    assert r.status_code == 200 and r.json()["violation"]["reason"] == reason, r.text
    # a legal move is no rejection
    legal = clients.rules.LegalMoves(pb.LegalMovesRequest(game="valhalla", state=state)).moves[0]
    assert clients.rules.ValidateMove(pb.ValidateMoveRequest(game="valhalla", state=state, move=legal)).valid
    after = clients.scrape()

    name = "lawspeaker_moves_rejected_total"
    assert delta(before, after, name, game="valhalla", method="ValidateMove", reason=reason) == 3
    assert delta(before, after, name, game="valhalla", method="ValidateMove") == 3
    assert delta(before, after, name, game="valhalla", method="ApplyMove", reason=reason) == 3
    assert delta(before, after, name) == 6
    apply = {"service": RULES, "method": "ApplyMove", "game": "valhalla", "code": "FAILED_PRECONDITION"}
    for transport in ("grpc", "rest", "connect"):
        assert requests_delta(before, after, transport=transport, **apply) == 1


def test_a_session_move_found_illegal_is_a_rejected_move(clients: Clients) -> None:
    session, tokens, etag = clients.create()
    before = clients.scrape()
    r = clients.http.post(
        f"/v1/sessions/{session}:validateMove",
        json={"move": json_format.MessageToDict(SHIP_MOVE)},
        headers=auth(tokens[0]),
    )
    assert r.status_code == 200 and r.json().get("valid") is not True, r.text
    r = clients.http.post(
        f"/v1/sessions/{session}:applyMove",
        json={"move": json_format.MessageToDict(SHIP_MOVE), "etag": etag},
        headers=auth(tokens[0]),
    )
    assert r.status_code == 409, r.text
    after = clients.scrape()
    name = "lawspeaker_moves_rejected_total"
    assert delta(before, after, name, game="valhalla", method="SessionValidateMove", reason="CAST_FIRST") == 1
    assert delta(before, after, name, game="valhalla", method="SessionApplyMove", reason="CAST_FIRST") == 1


# --------------------------------------------------------------------------- sessions


def test_sessions_created_write_conflicts_and_idempotent_replays(clients: Clients) -> None:
    before = clients.scrape()
    session, tokens, etag = clients.create()
    after_create = clients.scrape()
    assert delta(before, after_create, "lawspeaker_sessions_created_total", game="valhalla") == 1
    store = "redis" if REDIS_UP else "memory"
    assert delta(before, after_create, "lawspeaker_sessions_live", store=store) == 1

    request_id = "metrics-" + secrets.token_hex(8)
    move = {"move": CAST, "etag": etag, "requestId": request_id}
    first = clients.http.post(f"/v1/sessions/{session}:applyMove", json=move, headers=auth(tokens[0]))
    assert first.status_code == 200, first.text
    before_replay = clients.scrape()
    again = clients.http.post(f"/v1/sessions/{session}:applyMove", json=move, headers=auth(tokens[0]))
    assert again.status_code == 200 and again.json() == first.json(), again.text
    reply = clients.sessions.SessionApplyMove(  # the same request over gRPC: one more replay
        spb.SessionApplyMoveRequest(
            session=session,
            etag=etag,
            request_id=request_id,
            move=json_format.ParseDict(CAST, game_pb2.Move()),
        ),
        metadata=[("authorization", f"Bearer {tokens[0]}")],
        timeout=30,
    )
    assert reply.session.etag == first.json()["session"]["etag"]
    after_replay = clients.scrape()
    assert delta(before_replay, after_replay, "lawspeaker_idempotent_replays_total", game="valhalla") == 2
    # a replay is no conflict: the etag it repeats is the one its first answer moved on from
    assert delta(before_replay, after_replay, "lawspeaker_session_write_conflicts_total") == 0

    stale = {"move": CAST, "etag": etag}  # the version before the first move: refused
    r = clients.http.post(f"/v1/sessions/{session}:applyMove", json=stale, headers=auth(tokens[0]))
    assert r.status_code == 409 and r.json()["reason"] == "SESSION_ETAG_MISMATCH", r.text
    after_conflict = clients.scrape()
    assert (
        delta(after_replay, after_conflict, "lawspeaker_session_write_conflicts_total", game="valhalla") == 1
    )
    apply = {"transport": "rest", "service": SESSIONS, "method": "SessionApplyMove", "game": "valhalla"}
    assert requests_delta(after_replay, after_conflict, **apply, code="ABORTED") == 1
    # If-Match naming other versions (one strong tag; weak or several ones, which the current
    # version is read to decide): 412, a conflict each
    for if_match in (f'"{etag}"', f'W/"{etag}"', f'"{etag}", "{etag}0"'):
        r = clients.http.post(
            f"/v1/sessions/{session}:applyMove",
            json={"move": CAST},
            headers={**auth(tokens[1]), "if-match": if_match},
        )
        assert r.status_code == 412 and r.json()["reason"] == "SESSION_ETAG_MISMATCH", r.text
    after_if_match = clients.scrape()
    conflicts = "lawspeaker_session_write_conflicts_total"
    assert delta(after_conflict, after_if_match, conflicts, game="valhalla") == 3

    secrets_used = {session, *tokens, request_id}
    for text in label_values(after_if_match):
        assert not any(s in text for s in secrets_used), text


@contextlib.contextmanager
def raw_watch(port: int, session: str, token: str, connect: bool = False) -> Iterator[socket.socket]:
    """A watch stream over a connection of its own (REST's Server-Sent Events, or Connect's server
    stream), open once its first update (the current version) arrived, and closed at the block's
    end. A raw socket, because a streaming HTTP client closes the connection when its reader stops
    before the end."""
    host = "127.0.0.1"
    if connect:
        body = json.dumps({"session": session}).encode()
        body = b"\x00" + len(body).to_bytes(4, "big") + body
        head = (
            f"POST {CONNECT_SESSIONS}/WatchSession HTTP/1.1\r\nContent-Type: application/connect+json\r\n"
            f"Content-Length: {len(body)}\r\n"
        )
        first = session.encode()  # the first frame carries the session's name
    else:
        body = b""
        head = f"GET /v1/sessions/{session}:watch HTTP/1.1\r\nAccept: text/event-stream\r\n"
        first = b"data:"
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(f"{head}Host: {host}\r\nAuthorization: Bearer {token}\r\n\r\n".encode() + body)
        got = b""
        while first not in got.partition(b"\r\n\r\n")[2]:
            chunk = sock.recv(65536)
            assert chunk, f"the watch ended early: {got!r}"
            got += chunk
        assert got.startswith(b"HTTP/1.1 200"), got
        yield sock


def test_watch_streams_open_go_up_while_open_and_down_after(clients: Clients) -> None:
    session, tokens, _ = clients.create()
    port = clients.servers.http_port
    before = clients.scrape()
    open_rest = value(before, "lawspeaker_watch_streams_open", transport="rest")
    open_grpc = value(before, "lawspeaker_watch_streams_open", transport="grpc")

    with raw_watch(port, session, tokens[0]):
        stream = clients.sessions.WatchSession(
            spb.WatchSessionRequest(session=session), metadata=[("authorization", f"Bearer {tokens[1]}")]
        )
        first = next(stream)
        assert first.session.session == session
        during = clients.scrape()
        assert value(during, "lawspeaker_watch_streams_open", transport="rest") == open_rest + 1
        assert value(during, "lawspeaker_watch_streams_open", transport="grpc") == open_grpc + 1
        stream.cancel()
    wait_for(
        lambda: (
            value(s := clients.scrape(), "lawspeaker_watch_streams_open", transport="rest") == open_rest
            and value(s, "lawspeaker_watch_streams_open", transport="grpc") == open_grpc
        ),
        "both watch streams closed",
    )
    # a stream is counted when it ends, never observed in the latency histogram
    after = clients.scrape()
    watch = {"service": SESSIONS, "method": "WatchSession", "game": "valhalla"}
    assert requests_delta(before, after, transport="rest", **watch) == 1
    assert requests_delta(before, after, transport="grpc", **watch) == 1
    assert delta(before, after, "lawspeaker_request_duration_seconds_count", method="WatchSession") == 0


def test_a_connect_watch_stream_is_counted_while_open(clients: Clients) -> None:
    session, tokens, _ = clients.create()
    before = clients.scrape()
    baseline = value(before, "lawspeaker_watch_streams_open", transport="connect")
    with raw_watch(clients.servers.http_port, session, tokens[0], connect=True):
        during = clients.scrape()
        assert value(during, "lawspeaker_watch_streams_open", transport="connect") == baseline + 1
    wait_for(
        lambda: value(clients.scrape(), "lawspeaker_watch_streams_open", transport="connect") == baseline,
        "the Connect watch stream closed",
    )


# --------------------------------------------------------------------------- the store


def test_redis_round_trips_are_counted_by_operation_and_the_store_is_up() -> None:
    with redis_servers() as servers:
        c = Clients(servers)
        try:
            before = c.scrape()
            session, tokens, etag = c.create()
            r = c.http.get(f"/v1/sessions/{session}", headers=auth(tokens[0]))
            assert r.status_code == 200
            r = c.http.post(
                f"/v1/sessions/{session}:applyMove",
                json={"move": CAST, "etag": etag},
                headers=auth(tokens[0]),
            )
            assert r.status_code == 200, r.text
            after = c.scrape()
        finally:
            c.close()
    trips = {
        dict(labels)["operation"]: n
        for labels, n in after["lawspeaker_store_round_trips_total"].items()
        if dict(labels)["store"] == "redis"
    }
    operations = {
        op for op in trips if delta(before, after, "lawspeaker_store_round_trips_total", operation=op)
    }
    assert len(operations) >= 2, trips  # a create, a read and a write are different operations
    for op in operations:
        assert re.fullmatch(r"[a-z_]+", op), op
        assert delta(
            before, after, "lawspeaker_store_round_trip_seconds_count", store="redis", operation=op
        ) == (delta(before, after, "lawspeaker_store_round_trips_total", store="redis", operation=op))
    assert delta(before, after, "lawspeaker_store_errors_total", store="redis") == 0
    assert value(after, "lawspeaker_store_up", store="redis") == 1


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens on it once closed


def test_an_unreachable_redis_counts_errors_and_the_store_is_down() -> None:
    url = f"redis://127.0.0.1:{closed_port()}/0"
    with run_servers(
        sessions=redis_sessions(url, f"lawspeaker-test-metrics-{secrets.token_hex(6)}")
    ) as servers:
        c = Clients(servers)
        try:
            before = c.scrape()
            r = c.http.post("/v1/sessions", json={"game": "valhalla", "players": 2, "seed": "42"})
            assert r.status_code == 503, r.text
            after = c.scrape()
        finally:
            c.close()
    assert delta(before, after, "lawspeaker_store_errors_total", store="redis") >= 1
    failed = {
        dict(labels)["operation"]
        for labels in after["lawspeaker_store_errors_total"]
        if delta(before, after, "lawspeaker_store_errors_total", **dict(labels))
    }
    for op in failed:  # every failure is a round trip of its operation too
        assert delta(
            before, after, "lawspeaker_store_round_trips_total", store="redis", operation=op
        ) >= delta(before, after, "lawspeaker_store_errors_total", store="redis", operation=op)
    assert value(after, "lawspeaker_store_up", store="redis") == 0
    assert requests_delta(before, after, transport="rest", method="CreateSession", code="UNAVAILABLE") == 1


# --------------------------------------------------------------------------- process metrics


def test_process_and_garbage_collection_metrics_are_exported(clients: Clients) -> None:
    metrics.watch_gc()  # as `lawspeaker serve` does once metrics are on
    before = clients.scrape()
    gc.collect()
    after = clients.scrape()
    for name in ("process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds"):
        assert value(after, name) > 0, name
    assert delta(before, after, "lawspeaker_gc_collections_total", generation="2") >= 1
    assert delta(before, after, "lawspeaker_gc_seconds_total") > 0


def test_no_label_value_is_a_session_id_token_or_request_id(clients: Clients) -> None:
    session, tokens, _ = clients.create()
    request_id = "label-" + secrets.token_hex(8)
    clients.http.get(f"/v1/sessions/{session}", headers={**auth(tokens[1]), "x-request-id": request_id})
    clients.http.get(f"/v1/sessions/{session}x", headers=auth(tokens[1]))
    clients.http.post(f"/v1/sessions/{session}:nosuchverb", json={}, headers=auth(tokens[0]))
    made_up = f"{UNKNOWN_GAME}.{session.partition('.')[2]}"  # a session id naming no game
    assert clients.http.get(f"/v1/sessions/{made_up}", headers=auth(tokens[0])).status_code == 404
    with pytest.raises(grpc.RpcError) as caught:
        clients.sessions.GetSession(spb.GetSessionRequest(session=made_up), timeout=30)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    samples = clients.scrape()
    for text in label_values(samples):
        for secret in (session, session.partition(".")[2], *tokens, request_id, UNKNOWN_GAME):
            assert secret not in text, (secret, text)
