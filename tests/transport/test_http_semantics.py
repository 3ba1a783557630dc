"""HTTP semantics a generic client library expects, over real servers on loopback: the ``ETag``
header and ``If-Match`` preconditions on sessions (412, RFC 9110 section 13.1.1, AIP-154), the
``Allow`` of every route on OPTIONS and on every 405 (RFC 9110 sections 9.3.7 and 15.5.6), CORS
for both, the OpenAPI document saying so, and a second ``lawspeaker serve`` on a busy port."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from google.protobuf import json_format
from litestar.testing import TestClient

from lawspeaker.http.app import create_app
from lawspeaker.http.openapi import openapi_document
from lawspeaker.http.semantics import AllowTable, allow_header, parse_if_match
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import MemoryStore
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import memory_sessions_client
from .test_serve_command import start

pytestmark = pytest.mark.transport

PROBLEM = "application/problem+json"
PROTOBUF = "application/x-protobuf"
RULES = "/lawspeaker.v1.RulesService"
SESSIONS = "/lawspeaker.v1.SessionService"


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    """Servers with sessions in memory."""
    with memory_sessions_client() as client:
        yield client


def problem(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    doc: dict[str, Any] = r.json()
    assert doc["status"] == status and "Traceback" not in r.text
    return doc


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def quoted(etag: str) -> str:
    return f'"{etag}"'


class Game:
    """A two-seat Valhalla session played over REST."""

    def __init__(self, http: httpx.Client, seed: int = 42) -> None:
        self.http = http
        r = http.post("/v1/sessions", json={"game": "valhalla", "players": 2, "seed": str(seed)})
        assert r.status_code == 200, r.text
        body = r.json()
        assert r.headers["etag"] == quoted(body["session"]["etag"])
        self.id: str = body["session"]["session"]
        self.tokens = [t["token"] for t in body["seatTokens"]]

    def get(self) -> dict[str, Any]:
        r = self.http.get(f"/v1/sessions/{self.id}")
        assert r.status_code == 200, r.text
        session: dict[str, Any] = r.json()["session"]
        assert r.headers["etag"] == quoted(session["etag"])
        return session

    def seat(self) -> int:
        to_act = self.get()["toAct"]
        return int(to_act[0]) if to_act else 0

    def legal(self, seat: int) -> dict[str, Any]:
        r = self.http.post(f"/v1/sessions/{self.id}:legalMoves", json={}, headers=auth(self.tokens[seat]))
        assert r.status_code == 200, r.text
        listed: dict[str, Any] = r.json()
        assert r.headers["etag"] == quoted(listed["etag"])
        return listed

    def apply(
        self, headers: dict[str, str] | None = None, etag: str | None = None, seat: int | None = None
    ) -> httpx.Response:
        """SessionApplyMove of the first legal move of the seat to act, with these headers and
        body etag (none when None)."""
        seat = self.seat() if seat is None else seat
        body: dict[str, Any] = {"move": self.legal(seat)["moves"][0]}
        if etag is not None:
            body["etag"] = etag
        return self.http.post(
            f"/v1/sessions/{self.id}:applyMove",
            json=body,
            headers={**auth(self.tokens[seat]), **(headers or {})},
        )


# --------------------------------------------------------------------------- ETag


def test_every_response_carrying_a_session_has_its_version_as_a_strong_etag(http: httpx.Client) -> None:
    game = Game(http)  # CreateSession: checked in Game
    etag = game.get()["etag"]  # GetSession (JSON): checked in get
    r = http.get(f"/v1/sessions/{game.id}", headers={"accept": PROTOBUF})
    assert (
        r.headers["etag"] == quoted(spb.GetSessionResponse.FromString(r.content).session.etag) == quoted(etag)
    )
    assert game.legal(game.seat())["etag"] == etag  # SessionLegalMoves: checked in legal
    r = game.apply(etag=etag)  # SessionApplyMove over JSON (the wire-message path)
    assert r.status_code == 200, r.text
    assert r.headers["etag"] == quoted(r.json()["session"]["etag"]) != quoted(etag)
    seat = game.seat()  # SessionApplyMove over binary protobuf
    move = spb.SessionApplyMoveRequest(etag=game.get()["etag"])
    json_format.ParseDict(game.legal(seat)["moves"][0], move.move)
    r = http.post(
        f"/v1/sessions/{game.id}:applyMove",
        content=move.SerializeToString(),
        headers={**auth(game.tokens[seat]), "content-type": PROTOBUF, "accept": PROTOBUF},
    )
    assert r.status_code == 200, r.text
    assert r.headers["etag"] == quoted(spb.SessionApplyMoveResponse.FromString(r.content).session.etag)
    # WatchSession over Server-Sent Events: the headers carry the version the stream starts at
    current = game.get()["etag"]
    with http.stream("GET", f"/v1/sessions/{game.id}:watch") as stream:
        assert stream.status_code == 200 and stream.headers["etag"] == quoted(current)
    # the move log: the version its page was read at (If-None-Match answers 304 on it)
    assert http.get(f"/v1/sessions/{game.id}/moves").headers["etag"] == quoted(game.get()["etag"])
    # responses without a session version carry none
    r = http.post(f"/v1/sessions/{game.id}:validateMove", json={"move": {}}, headers=auth(game.tokens[0]))
    assert "etag" not in r.headers
    assert "etag" not in http.get("/v1/games/valhalla").headers


def test_if_match_alone_names_the_version_and_a_stale_one_is_412(http: httpx.Client) -> None:
    game = Game(http)
    etag = game.get()["etag"]
    r = game.apply({"if-match": quoted(etag)})  # no body etag: If-Match names the version
    assert r.status_code == 200, r.text
    moved = r.json()["session"]["etag"]
    assert r.headers["etag"] == quoted(moved) and moved != etag
    r = game.apply({"if-match": quoted(etag)})  # the version it names is gone
    doc = problem(r, 412)
    assert doc["reason"] == "SESSION_ETAG_MISMATCH" and doc["code"] == "ABORTED"
    assert doc["metadata"]["etag"] == moved and doc["metadata"]["session"] == game.id
    assert r.headers["etag"] == quoted(moved)
    assert doc["fieldViolations"][0]["field"] == "If-Match"
    assert game.get()["etag"] == moved  # nothing was written


def test_the_body_etag_works_as_before(http: httpx.Client) -> None:
    game = Game(http)
    etag = game.get()["etag"]
    r = game.apply(etag=etag)
    assert r.status_code == 200, r.text
    doc = problem(game.apply(etag=etag), 409)  # no If-Match: AIP-154's ABORTED/409, as before
    assert doc["reason"] == "SESSION_ETAG_MISMATCH"
    assert problem(game.apply(), 400)["reason"] == "ETAG_REQUIRED"


def test_if_match_lists_star_and_weak_tags(http: httpx.Client) -> None:
    game = Game(http)
    etag = game.get()["etag"]
    # several entity tags: the move is made on whichever is the current version
    r = game.apply({"if-match": f'"999", {quoted(etag)}'})
    assert r.status_code == 200, r.text
    etag = r.json()["session"]["etag"]
    doc = problem(game.apply({"if-match": '"998", "999"'}), 412)
    assert doc["metadata"]["etag"] == etag
    # several header lines are one list
    seat = game.seat()
    r = http.post(
        f"/v1/sessions/{game.id}:applyMove",
        json={"move": game.legal(seat)["moves"][0]},
        headers=[*auth(game.tokens[seat]).items(), ("if-match", '"998"'), ("if-match", quoted(etag))],
    )
    assert r.status_code == 200, r.text
    etag = r.json()["session"]["etag"]
    # a weak entity tag never matches, not even the current version (strong comparison)
    doc = problem(game.apply({"if-match": f"W/{quoted(etag)}"}), 412)
    assert doc["reason"] == "SESSION_ETAG_MISMATCH" and "weak" in doc["detail"]
    assert game.get()["etag"] == etag
    # "*" holds for any existing session and names no version: the body etag is still needed
    assert problem(game.apply({"if-match": "*"}), 400)["reason"] == "ETAG_REQUIRED"
    r = game.apply({"if-match": "*"}, etag=etag)
    assert r.status_code == 200, r.text
    etag = r.json()["session"]["etag"]
    # an If-Match that is not entity tags is a client error naming the header and the rule
    doc = problem(game.apply({"if-match": etag}), 400)  # unquoted
    assert doc["reason"] == "INVALID_IF_MATCH" and doc["fieldViolations"][0]["field"] == "If-Match"
    assert 'If-Match: "7"' in doc["detail"]


def test_if_match_and_body_etag_together(http: httpx.Client) -> None:
    game = Game(http)
    etag = game.get()["etag"]
    # they must agree: the body's etag is one of If-Match's tags
    doc = problem(game.apply({"if-match": '"999"'}, etag=etag), 400)
    assert doc["reason"] == "IF_MATCH_CONFLICT" and doc["fieldViolations"][0]["field"] == "etag"
    r = game.apply({"if-match": quoted(etag)}, etag=etag)
    assert r.status_code == 200, r.text
    moved = r.json()["session"]["etag"]
    # If-Match holds (it names the current version) but the body's etag is stale: 409, as without it
    doc = problem(game.apply({"if-match": f"{quoted(etag)}, {quoted(moved)}"}, etag=etag), 409)
    assert doc["reason"] == "SESSION_ETAG_MISMATCH"
    # neither is current: If-Match fails, 412
    doc = problem(game.apply({"if-match": quoted(etag)}, etag=etag), 412)
    assert r.status_code == 200 and doc["metadata"]["etag"] == moved


def test_if_match_on_undo(http: httpx.Client) -> None:
    game = Game(http, seed=5)
    while True:  # play until the seat to act makes a move that is no chance step
        seat = game.seat()
        listed = game.legal(seat)
        if "chance" not in listed:
            break
        assert game.apply(etag=listed["etag"], seat=seat).status_code == 200
    r = game.apply(etag=listed["etag"], seat=seat)
    assert r.status_code == 200, r.text
    moved = r.json()["session"]["etag"]
    url = f"/v1/sessions/{game.id}:undo"
    doc = problem(
        http.post(url, json={}, headers={**auth(game.tokens[seat]), "if-match": listed["etag"]}), 400
    )
    assert doc["reason"] == "INVALID_IF_MATCH"
    r = http.post(url, json={}, headers={**auth(game.tokens[seat]), "if-match": quoted(listed["etag"])})
    assert problem(r, 412)["metadata"]["etag"] == moved and r.headers["etag"] == quoted(moved)
    r = http.post(url, json={}, headers={**auth(game.tokens[seat]), "if-match": quoted(moved)})
    assert r.status_code == 200, r.text
    assert r.headers["etag"] == quoted(r.json()["session"]["etag"]) and r.json()["session"]["etag"] != moved


def test_if_match_does_not_hide_a_missing_session_or_a_bad_token(http: httpx.Client) -> None:
    game = Game(http)
    body: dict[str, Any] = {"move": {"valhalla": {"cast": {}}}}
    for if_match in ('"1"', '"1", "2"', 'W/"1"'):
        r = http.post("/v1/sessions/valhalla.nope:applyMove", json=body, headers={"if-match": if_match})
        assert problem(r, 404)["reason"] == "SESSION_NOT_FOUND"
        r = http.post(
            f"/v1/sessions/{game.id}:applyMove",
            json=body,
            headers={**auth("not-a-token"), "if-match": if_match},
        )
        assert problem(r, 403)["reason"] == "SEAT_TOKEN_INVALID"


# --------------------------------------------------------------------------- Allow

ROUTES: dict[str, set[str]] = {
    "/v1/games": {"GET"},
    "/v1/games/valhalla": {"GET"},
    "/v1/games/valhalla:new": {"POST"},
    "/v1/games/valhalla:legalMoves": {"POST"},
    "/v1/games/valhalla:validateMove": {"POST"},
    "/v1/games/valhalla:applyMove": {"POST"},
    "/v1/sessions": {"GET", "POST"},  # ListSessions (the lobby), CreateSession
    "/v1/sessions/valhalla.nope": {"GET", "DELETE"},
    "/v1/sessions/valhalla.nope/moves": {"GET"},
    "/v1/sessions/valhalla.nope:legalMoves": {"POST"},
    "/v1/sessions/valhalla.nope:validateMove": {"POST"},
    "/v1/sessions/valhalla.nope:applyMove": {"POST"},
    "/v1/sessions/valhalla.nope:undo": {"POST"},
    "/v1/sessions/valhalla.nope:watch": {"GET"},
    f"{RULES}/NewGame": {"POST"},
    f"{RULES}/ListGames": {"GET", "POST"},
    f"{SESSIONS}/SessionApplyMove": {"POST"},
    f"{SESSIONS}/GetSession": {"GET", "POST"},
    f"{SESSIONS}/WatchSession": {"POST"},
    "/healthz": {"GET"},
    "/schema/openapi.json": {"GET"},
}


def allowed(r: httpx.Response) -> set[str]:
    return {m.strip() for m in r.headers["allow"].split(",")}


@pytest.mark.parametrize("path", sorted(ROUTES))
def test_options_answers_the_methods_the_route_has(http: httpx.Client, path: str) -> None:
    r = http.options(path)
    assert r.status_code == 204, r.text
    assert allowed(r) == ROUTES[path] | {"OPTIONS"}


@pytest.mark.parametrize("path", sorted(ROUTES))
def test_every_method_a_route_lacks_is_405_with_its_allow_and_no_other_is(
    http: httpx.Client, path: str
) -> None:
    """Each method OPTIONS lists is served (whatever the answer, not 405); each other is a 405
    problem whose Allow is the same list."""
    for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
        r = http.request(method, path, headers={"content-type": "application/json"}, content=b"{}")
        if method in ROUTES[path]:
            assert r.status_code != 405, (method, path, r.text)
            continue
        assert r.status_code == 405, (method, path, r.text)
        assert allowed(r) == ROUTES[path] | {"OPTIONS"}, (method, path)
        if path.startswith("/lawspeaker.") and method == "GET":  # Connect's GET form: its own error
            assert r.json()["code"] == "unimplemented"
        else:
            assert problem(r, 405)["reason"] == "METHOD_NOT_ALLOWED"


def test_the_issues_examples(http: httpx.Client) -> None:
    r = http.get("/v1/games/valhalla:new")
    assert problem(r, 405)["reason"] == "METHOD_NOT_ALLOWED" and r.headers["allow"] == "POST, OPTIONS"
    r = http.delete("/v1/games")
    assert problem(r, 405)["reason"] == "METHOD_NOT_ALLOWED" and r.headers["allow"] == "GET, OPTIONS"
    r = http.options("/v1/sessions/valhalla.x:applyMove")
    assert r.status_code == 204 and r.headers["allow"] == "POST, OPTIONS"
    # Connect's GET form of a method with side effects
    r = http.get(f"{RULES}/NewGame", params={"encoding": "json", "message": "{}"})
    assert r.status_code == 405 and r.json()["code"] == "unimplemented"
    assert r.headers["allow"] == "POST, OPTIONS"


@pytest.mark.parametrize("method", ["OPTIONS", "GET", "POST", "PUT", "DELETE"])
def test_an_unknown_verb_is_not_found_for_every_method(http: httpx.Client, method: str) -> None:
    for path in ("/v1/games/valhalla:fly", "/v1/sessions/valhalla.nope:fly", f"{RULES}/Fly"):
        r = http.request(method, path, json={})
        if path.startswith(RULES) and method in ("GET", "POST"):
            assert r.status_code == 404 and r.json()["code"] == "unimplemented"  # Connect's own error
            continue
        doc = problem(r, 404)
        assert doc["reason"] == "ROUTE_NOT_FOUND" and "allow" not in r.headers
        if path.startswith("/v1/sessions") and method != "POST":
            assert ":applyMove" in doc["detail"] and ":watch" in doc["detail"]


def test_cors_preflight_allows_if_match_and_browsers_may_read_etag_and_allow() -> None:
    app = create_app(sessions=SessionApi(MemoryStore()), cors_origins=["https://app.example"])
    with TestClient(app) as tc:
        r = tc.options(
            "/v1/sessions/valhalla.x:applyMove",
            headers={
                "origin": "https://app.example",
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type,authorization,if-match",
            },
        )
        assert r.status_code == 204, r.text
        assert r.headers["access-control-allow-origin"] == "https://app.example"
        assert "if-match" in r.headers["access-control-allow-headers"].lower()
        r = tc.post(
            "/v1/sessions", json={"game": "valhalla", "players": 2}, headers={"origin": "https://app.example"}
        )
        assert r.status_code == 200 and r.headers["etag"] == quoted(r.json()["session"]["etag"])
        assert "etag" in r.headers["access-control-expose-headers"].lower()
        r = tc.options("/v1/sessions/valhalla.x:applyMove")  # not a preflight: the route's Allow
        assert r.status_code == 204 and r.headers["allow"] == "POST, OPTIONS"


def test_allow_table_and_if_match_parsing() -> None:
    table = AllowTable()
    table.add("/v1/things/{thing}", ["GET"])
    table.add("/v1/things/{thing}:poke", ["POST"])
    table.add("/v1/things/{thing:str}", ["delete"])
    assert table.lookup("/v1/things/a") == frozenset({"GET", "DELETE"})
    assert table.lookup("/v1/things/a/") == frozenset({"GET", "DELETE"})
    assert table.lookup("/v1/things/a:poke") == frozenset({"POST"})
    assert table.lookup("/v1/things/a:prod") == frozenset()
    assert table.lookup("/v1/other") is None
    assert allow_header({"DELETE", "GET"}) == "GET, DELETE, OPTIONS"
    assert parse_if_match(' "5" ,, W/"6", "a,b"').tags == ("5", "a,b")
    assert parse_if_match('W/"6"').weak and not parse_if_match('W/"6"').tags
    assert parse_if_match("*").any
    for bad in ("7", '"7" "8"', '*, "7"', '"7', ", ,"):
        with pytest.raises(Exception, match="If-Match"):
            parse_if_match(bad)


def test_openapi_describes_etag_if_match_and_412() -> None:
    paths = openapi_document()["paths"]
    for path in ("/v1/sessions/{session}:applyMove", "/v1/sessions/{session}:undo"):
        op = paths[path]["post"]
        assert any(p["in"] == "header" and p["name"] == "If-Match" for p in op["parameters"])
        assert "ETag" in op["responses"]["412"]["headers"]
        assert "ETag" in op["responses"]["200"]["headers"]
    for path, method in (
        ("/v1/sessions", "post"),
        ("/v1/sessions/{session}", "get"),
        ("/v1/sessions/{session}:legalMoves", "post"),
        ("/v1/sessions/{session}:watch", "get"),
        ("/v1/sessions/{session}/moves", "get"),
    ):
        assert "ETag" in paths[path][method]["responses"]["200"]["headers"], path
    assert "412" not in paths["/v1/sessions/{session}"]["get"]["responses"]
    for path in ("/v1/sessions/{session}", "/v1/sessions/{session}/moves"):
        op = paths[path]["get"]
        assert any(p["in"] == "header" and p["name"] == "If-None-Match" for p in op["parameters"]), path
        assert "ETag" in op["responses"]["304"]["headers"], path


# --------------------------------------------------------------------------- a busy port


@pytest.mark.parametrize("busy", ["grpc", "http"])
def test_a_second_serve_on_a_busy_port_exits_with_one_line_naming_it(busy: str) -> None:
    first, grpc_port, http_port = start(["--host", "127.0.0.1", "--grpc-port", "0", "--http-port", "0"], {})
    try:
        port = grpc_port if busy == "grpc" else http_port
        args = ["--grpc-port", str(grpc_port), "--http-port", "0"]
        if busy == "http":
            args = ["--grpc-port", "0", "--http-port", str(http_port)]
        second = subprocess.Popen(
            [sys.executable, "-m", "lawspeaker", "serve", "--host", "127.0.0.1", *args],
            env=os.environ.copy(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            out, err = second.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            second.send_signal(signal.SIGTERM)
            out, err = second.communicate(timeout=30)
            pytest.fail(f"a second serve on the busy {busy} port kept running: {out!r} {err!r}")
        lines = [line for line in err.splitlines() if line.strip()]
        assert second.returncode != 0
        assert len(lines) == 1, err
        assert re.search(rf"\b{port}\b", lines[0]) and busy in lines[0].lower(), lines[0]
        assert "Traceback" not in err and "Event loop is closed" not in err and not out.strip()
        # the first server is unharmed
        r = httpx.get(f"http://127.0.0.1:{http_port}/healthz", timeout=10)
        assert r.status_code == 200
    finally:
        first.send_signal(signal.SIGTERM)
        deadline = time.time() + 20
        while first.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        if first.poll() is None:
            first.kill()
