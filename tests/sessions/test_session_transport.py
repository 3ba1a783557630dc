"""SessionService over real gRPC and HTTP servers on loopback, against both stores."""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import secrets
import shutil
import socket
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import httpx
import pytest
import redis
from google.protobuf import json_format
from grpc_status import rpc_status
from transport.conftest import run_servers

from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.http import session_routes
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import RedisStore
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import rules_service_pb2 as rpb
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import REDIS_UP, REDIS_URL, Running, delete_prefix
from .helpers import assert_no_rng
from .ports import free_port

pytestmark = [pytest.mark.sessions, pytest.mark.transport]

CAST = {"valhalla": {"cast": {}}}
JSON = {"content-type": "application/json"}


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def meta(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


def create_rest(http: httpx.Client, **extra: Any) -> tuple[str, list[str], str]:
    r = http.post("/v1/sessions", json={"game": "valhalla", "players": 2, "seed": "42", **extra})
    assert r.status_code == 200, r.text
    body = r.json()
    assert "rng" not in body["session"]["state"]
    return body["session"]["session"], [t["token"] for t in body["seatTokens"]], body["session"]["etag"]


def reason_of(err: grpc.RpcError) -> str:
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None
    from google.rpc import error_details_pb2

    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return str(info.reason)
    raise AssertionError("no ErrorInfo")


def test_a_session_played_over_grpc_and_rest_with_seat_tokens(running: Running) -> None:
    made = running.sessions.CreateSession(spb.CreateSessionRequest(game="valhalla", players=2, seed=3))
    session, tokens = made.session.session, [t.token for t in made.seat_tokens]
    assert_no_rng(made)
    # over REST with seat 1's token: its own view
    r = running.http.get(f"/v1/sessions/{session}", headers=auth(tokens[1]))
    assert r.status_code == 200 and r.json()["session"]["seat"] == 1
    # and binary protobuf works as for the stateless routes
    r = running.http.get(f"/v1/sessions/{session}", headers={"accept": "application/x-protobuf"})
    assert spb.GetSessionResponse.FromString(r.content).session.session == session
    etag = made.session.etag
    for turn in range(10):
        got = running.sessions.GetSession(spb.GetSessionRequest(session=session), metadata=meta(tokens[0]))
        seat = got.session.to_act[0]
        etag = got.session.etag
        listed = running.sessions.SessionLegalMoves(
            spb.SessionLegalMovesRequest(session=session), metadata=meta(tokens[seat])
        )
        move = listed.moves[0]
        if turn % 2:  # over gRPC
            applied = running.sessions.SessionApplyMove(
                spb.SessionApplyMoveRequest(session=session, move=move, etag=etag),
                metadata=meta(tokens[seat]),
            )
            assert_no_rng(applied)
        else:  # over REST
            body = {"move": json_format.MessageToDict(move), "etag": etag}
            r = running.http.post(f"/v1/sessions/{session}:applyMove", json=body, headers=auth(tokens[seat]))
            assert r.status_code == 200, r.text
            assert "rng" not in r.json()["session"]["state"]
    r = running.http.get(f"/v1/sessions/{session}/moves", params={"pageSize": 4})
    assert r.status_code == 200
    page = r.json()
    assert len(page["moves"]) == 4 and page["totalSize"] == "10" and page["nextPageToken"]
    r = running.http.get(
        f"/v1/sessions/{session}/moves", params={"page_size": 4, "pageToken": page["nextPageToken"]}
    )
    assert [m["number"] for m in r.json()["moves"]] == ["5", "6", "7", "8"]
    r = running.http.get(f"/v1/sessions/{session}/moves", params={"pageSize": "many"})
    assert r.status_code == 400


def test_tokens_turns_and_etags_map_to_the_right_statuses(running: Running) -> None:
    session, tokens, etag = create_rest(running.http)
    url = f"/v1/sessions/{session}:applyMove"
    body = {"move": CAST, "etag": etag}
    # no token / wrong token: 403 and PERMISSION_DENIED
    r = running.http.post(url, json=body)
    assert r.status_code == 403 and r.json()["reason"] == "SEAT_TOKEN_REQUIRED"
    r = running.http.post(url, json=body, headers=auth("wrong"))
    assert r.status_code == 403 and r.json()["code"] == "PERMISSION_DENIED"
    r = running.http.post(url, json=body, headers={"authorization": "Basic abc"})
    assert r.status_code == 403
    request = spb.SessionApplyMoveRequest(
        session=session, move=game_pb2.Move(valhalla={"cast": {}}), etag=etag
    )
    with pytest.raises(grpc.RpcError) as denied:
        running.sessions.SessionApplyMove(request)
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert reason_of(denied.value) == "SEAT_TOKEN_REQUIRED"
    # another seat's move: NOT_YOUR_TURN, FAILED_PRECONDITION / 409
    r = running.http.post(url, json=body, headers=auth(tokens[1]))
    assert r.status_code == 409 and r.json()["reason"] == "NOT_YOUR_TURN"
    with pytest.raises(grpc.RpcError) as turn:
        running.sessions.SessionApplyMove(request, metadata=meta(tokens[1]))
    assert turn.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    # the move, then the same etag again: ABORTED / 409
    r = running.http.post(url, json=body, headers=auth(tokens[0]))
    assert r.status_code == 200
    r = running.http.post(url, json=body, headers=auth(tokens[0]))
    assert (
        r.status_code == 409
        and r.json()["code"] == "ABORTED"
        and r.json()["reason"] == "SESSION_ETAG_MISMATCH"
    )
    with pytest.raises(grpc.RpcError) as stale:
        running.sessions.SessionApplyMove(request, metadata=meta(tokens[0]))
    assert stale.value.code() == grpc.StatusCode.ABORTED
    # an illegal move: the rule, as the stateless route says it
    stateless = running.http.post(
        "/v1/games/valhalla:validateMove",
        json={
            "state": json_format.MessageToDict(
                running.rules.NewGame(rpb.NewGameRequest(game="valhalla", players=2, seed=42)).state
            ),
            "move": {"valhalla": {"moveShip": {"ship": 1, "to": 3}}},
        },
    ).json()
    fresh, fresh_tokens, fresh_etag = create_rest(running.http)
    r = running.http.post(
        f"/v1/sessions/{fresh}:applyMove",
        json={"move": {"valhalla": {"moveShip": {"ship": 1, "to": 3}}}, "etag": fresh_etag},
        headers=auth(fresh_tokens[0]),
    )
    assert r.status_code == 409 and r.json()["reason"] == stateless["violation"]["reason"]
    assert r.json()["detail"] == stateless["violation"]["message"]
    # delete needs a token; then 404
    assert running.http.delete(f"/v1/sessions/{fresh}").status_code == 403
    assert running.http.delete(f"/v1/sessions/{fresh}", headers=auth(fresh_tokens[1])).status_code == 200
    assert running.http.get(f"/v1/sessions/{fresh}").status_code == 404


def test_racing_clients_on_one_version_exactly_one_wins(running: Running) -> None:
    session, tokens, etag = create_rest(running.http)
    url = f"{running.servers.base_url}/v1/sessions/{session}:applyMove"

    def attempt(i: int) -> int:
        with httpx.Client(timeout=30) as client:
            body = {"move": CAST, "etag": etag, "requestId": f"race-{i}"}
            return client.post(url, json=body, headers=auth(tokens[0])).status_code

    with ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(attempt, range(16)))
    assert sorted(statuses) == [200] + [409] * 15
    r = running.http.get(f"/v1/sessions/{session}")
    assert r.json()["session"]["moveCount"] == "1"


def test_a_retried_apply_with_the_same_request_id_returns_the_first_result(running: Running) -> None:
    session, tokens, etag = create_rest(running.http)
    body = {"move": CAST, "etag": etag, "requestId": "once"}
    first = running.http.post(f"/v1/sessions/{session}:applyMove", json=body, headers=auth(tokens[0]))
    again = running.http.post(f"/v1/sessions/{session}:applyMove", json=body, headers=auth(tokens[0]))
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    assert running.http.get(f"/v1/sessions/{session}").json()["session"]["moveCount"] == "1"


def read_sse(response: httpx.Response, into: queue.Queue[dict[str, Any]]) -> None:
    event = ""
    with contextlib.suppress(httpx.HTTPError):  # the test closes the stream when it is done
        for line in response.iter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event == "message":
                into.put(json.loads(line.split(":", 1)[1]))


def test_watch_delivers_new_versions_over_grpc_and_sse(running: Running) -> None:
    session, tokens, etag = create_rest(running.http)
    over_grpc: queue.Queue[spb.WatchSessionResponse] = queue.Queue()
    over_sse: queue.Queue[dict[str, Any]] = queue.Queue()
    stream = running.sessions.WatchSession(spb.WatchSessionRequest(session=session), metadata=meta(tokens[1]))

    def pump() -> None:
        with contextlib.suppress(grpc.RpcError):
            for update in stream:
                over_grpc.put(update)

    threading.Thread(target=pump, daemon=True).start()
    sse_client = httpx.Client(base_url=running.servers.base_url, timeout=30)
    with sse_client.stream("GET", f"/v1/sessions/{session}:watch", headers=auth(tokens[0])) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        threading.Thread(target=read_sse, args=(response, over_sse), daemon=True).start()
        assert over_grpc.get(timeout=10).session.etag == etag
        assert over_sse.get(timeout=10)["session"]["etag"] == etag
        seen = [etag]
        for _ in range(3):
            got = running.http.get(f"/v1/sessions/{session}").json()["session"]
            seat = got["toAct"][0]
            listed = running.http.post(
                f"/v1/sessions/{session}:legalMoves", json={}, headers=auth(tokens[seat])
            ).json()
            r = running.http.post(
                f"/v1/sessions/{session}:applyMove",
                json={"move": listed["moves"][0], "etag": got["etag"]},
                headers=auth(tokens[seat]),
            )
            assert r.status_code == 200
            new = r.json()["session"]["etag"]
            seen.append(new)
            update = over_grpc.get(timeout=10)
            assert update.session.etag == new and update.session.seat == 1
            assert_no_rng(update)
            sse = over_sse.get(timeout=10)
            assert sse["session"]["etag"] == new and sse["session"]["seat"] == 0
            assert "rng" not in sse["session"]["state"]
        running.http.delete(f"/v1/sessions/{session}", headers=auth(tokens[0]))
        assert over_grpc.get(timeout=10).deleted
    sse_client.close()
    # an unknown session is a plain 404, not an empty stream
    assert running.http.get("/v1/sessions/valhalla.nothing:watch").status_code == 404


@pytest.mark.skipif(not REDIS_UP, reason=f"no Redis at {REDIS_URL}")
def test_a_lost_watch_connection_ends_grpc_and_sse_streams_as_unavailable_and_watching_again_works() -> None:
    """Every watch stream of a replica shares one pub/sub connection; when it is lost, each stream
    ends with UNAVAILABLE (a gRPC status with its reason; an SSE ``error`` event with status 503)
    rather than going quiet, and a new watch starts from the current version."""
    prefix = f"lawspeaker-test-{secrets.token_hex(6)}"
    try:
        with run_servers(sessions=lambda: SessionApi(RedisStore(REDIS_URL, prefix=prefix))) as servers:
            r = Running(servers)
            try:
                session, tokens, etag = create_rest(r.http)
                stream = r.sessions.WatchSession(spb.WatchSessionRequest(session=session))
                assert next(stream).session.etag == etag
                sse_client = httpx.Client(base_url=servers.base_url, timeout=30)
                with sse_client.stream("GET", f"/v1/sessions/{session}:watch") as response:
                    lines = response.iter_lines()
                    assert next(line for line in lines if line.startswith("data:"))
                    killer = redis.Redis.from_url(REDIS_URL)
                    (connection,) = [c for c in killer.client_list() if c.get("name") == f"{prefix}-watchers"]
                    killer.client_kill_filter(_id=connection["id"])
                    with pytest.raises(grpc.RpcError) as err:
                        next(stream)
                    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
                    assert reason_of(err.value) == "SESSION_STORE_UNAVAILABLE"
                    event = next(line for line in lines if line.startswith("event:"))
                    assert event == "event: error"
                    problem = json.loads(next(lines).split(":", 1)[1])
                    assert problem["status"] == 503 and problem["reason"] == "SESSION_STORE_UNAVAILABLE"
                sse_client.close()
                again = r.sessions.WatchSession(spb.WatchSessionRequest(session=session))
                assert next(again).session.etag == etag
                moved = r.http.post(
                    f"/v1/sessions/{session}:applyMove",
                    json={"move": CAST, "etag": etag},
                    headers=auth(tokens[0]),
                )
                assert moved.status_code == 200, moved.text
                assert next(again).session.etag == moved.json()["session"]["etag"]
                again.cancel()
            finally:
                r.close()
    finally:
        delete_prefix(prefix)


# --------------------------------------------------------------------------- Redis down and back


def start_redis(port: int) -> subprocess.Popen[bytes]:
    server = shutil.which("redis-server")
    assert server is not None
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 10
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("redis-server did not start")


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server to stop and restart")
def test_redis_down_is_503_unavailable_stateless_keeps_working_and_it_recovers() -> None:
    port = free_port()
    redis_proc = start_redis(port)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        with run_servers(sessions=lambda: SessionApi(RedisStore(url, timeout=0.5))) as servers:
            r = Running(servers)
            try:
                session, tokens, etag = create_rest(r.http)
                redis_proc.terminate()
                redis_proc.wait(10)
                down = r.http.post("/v1/sessions", json={"game": "valhalla", "players": 2})
                assert down.status_code == 503, down.text
                assert down.json()["code"] == "UNAVAILABLE" and "unavailable" in down.json()["detail"]
                applied = r.http.post(
                    f"/v1/sessions/{session}:applyMove",
                    json={"move": CAST, "etag": etag},
                    headers=auth(tokens[0]),
                )
                assert applied.status_code == 503
                with pytest.raises(grpc.RpcError) as err:
                    r.sessions.GetSession(spb.GetSessionRequest(session=session))
                assert err.value.code() == grpc.StatusCode.UNAVAILABLE
                # the stateless RPCs never touch Redis
                assert r.http.post("/v1/games/valhalla:new", json={"players": 2}).status_code == 200
                assert r.rules.NewGame(rpb.NewGameRequest(game="valhalla", players=2)).HasField("state")
                # Redis is back (empty: it kept nothing): the service recovers by itself
                redis_proc = start_redis(port)
                deadline = time.time() + 10
                while True:
                    again = r.http.post("/v1/sessions", json={"game": "valhalla", "players": 2})
                    if again.status_code == 200 or time.time() > deadline:
                        break
                    time.sleep(0.2)
                assert again.status_code == 200, again.text
            finally:
                r.close()
    finally:
        redis_proc.kill()
        redis_proc.wait(10)


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs a private redis-server to pause")
def test_a_slow_redis_is_unavailable_within_the_timeout_and_then_serves_again() -> None:
    port = free_port()
    redis_proc = start_redis(port)

    async def body() -> None:
        api = SessionApi(RedisStore(f"redis://127.0.0.1:{port}/0", timeout=0.3))
        made = await api.create_session(spb.CreateSessionRequest(game="valhalla", players=2), None)
        session, token = made.session.session, made.seat_tokens[0].token
        pauser = RedisStore(f"redis://127.0.0.1:{port}/0")
        await pauser.client.execute_command("CLIENT", "PAUSE", "1500", "ALL")
        started = time.perf_counter()
        with pytest.raises(LawspeakerError) as slow:
            await api.session_apply_move(
                spb.SessionApplyMoveRequest(
                    session=session, move=game_pb2.Move(valhalla={"cast": {}}), etag=made.session.etag
                ),
                token,
            )
        assert slow.value.code is ErrorCode.UNAVAILABLE
        assert time.perf_counter() - started < 1.2
        await asyncio.sleep(1.5)  # the pause is over
        got = await api.get_session(spb.GetSessionRequest(session=session), None)
        assert got.session.move_count in (0, 1)  # the write was whole or not at all
        await pauser.close()
        await api.close()

    try:
        asyncio.run(body())
    finally:
        redis_proc.kill()
        redis_proc.wait(10)


def test_a_quiet_sse_stream_sends_keep_alive_comments(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session_routes, "SSE_KEEPALIVE_SECONDS", 0.2)
    session, tokens, _ = create_rest(running.http)
    lines: list[str] = []
    with (
        httpx.Client(base_url=running.servers.base_url, timeout=10) as client,
        client.stream("GET", f"/v1/sessions/{session}:watch") as response,
    ):
        for line in response.iter_lines():
            lines.append(line)
            if line.startswith(":"):
                break
    assert any(line.startswith("data:") for line in lines) and lines[-1].startswith(": keep-alive")
    running.http.delete(f"/v1/sessions/{session}", headers=auth(tokens[0]))


def test_an_overlong_session_id_is_a_clean_not_found_on_both_transports(running: Running) -> None:
    """The id is echoed in the error, cut short: a huge one must not overflow gRPC's trailers."""
    huge = "valhalla." + "x" * 20_000
    with pytest.raises(grpc.RpcError) as caught:
        running.sessions.GetSession(spb.GetSessionRequest(session=huge))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert reason_of(caught.value) == "SESSION_NOT_FOUND"
    assert len(caught.value.details() or "") < 1000
    r = running.http.get(f"/v1/sessions/{huge[:6000]}")
    assert r.status_code == 404 and r.json()["reason"] == "SESSION_NOT_FOUND"
