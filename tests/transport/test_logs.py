"""The log of ``lawspeaker serve`` (``--log-format``, ``--access-log``), read from a real server run as
a subprocess: in JSON, every line on stderr is one object with its time, level, logger and message
(uvicorn's lines too); with the access log on, each call over gRPC, REST and Connect leaves exactly
one access line naming its transport, RPC, game, outcome, HTTP status, duration, request id and
trace id; the caller's request id is logged and echoed; and a whole session game (seat tokens,
states, moves, refusals, watches) leaves no token, no state and no move in any line.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import json_format

from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc, session_service_pb2_grpc
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import session_service_pb2 as spb

pytestmark = pytest.mark.transport

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"
LINE = {"time", "level", "logger", "message"}
ACCESS = {"transport", "service", "method", "game", "code", "duration_ms", "request_id", "trace_id"}
HTTP = {"status", "http_method", "path"}
# Every field an access line may carry: nothing else may appear (a field that is not here could
# carry a token, a state or a move).
ACCESS_MAY = LINE | ACCESS | HTTP | {"reason", "pid"}
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:?\d\d)$")
TEXT_LINE = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+: \S"
)
CONNECT_RULES = "/lawspeaker.v1.RulesService"
CONNECT_SESSIONS = "/lawspeaker.v1.SessionService"
CONNECT_JSON = {"content-type": "application/json", "connect-protocol-version": "1"}
_ids = itertools.count()


def request_id(what: str) -> str:
    """A request id no other call of the run uses."""
    return f"test-{what}-{os.getpid()}-{next(_ids)}"


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    grpc_port: int
    http_port: int
    log: Path  # its stderr: the log

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def offset(self) -> int:
        return self.log.stat().st_size

    def text_since(self, offset: int = 0) -> str:
        with self.log.open("rb") as f:
            f.seek(offset)
            return f.read().decode()

    def json_since(self, offset: int = 0) -> list[dict[str, Any]]:
        """Every whole line written since ``offset``, each of which must be one JSON object."""
        lines = []
        text = self.text_since(offset)
        for line in text[: text.rfind("\n") + 1].splitlines():  # not one being written
            try:
                parsed = json.loads(line)
            except ValueError:
                pytest.fail(f"a log line that is no JSON: {line!r}")
            assert isinstance(parsed, dict), line
            lines.append(parsed)
        return lines

    def access_lines(self, offset: int, request_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        """The access lines of the calls with ``request_ids`` (waiting until each has one: a line is
        written once the answer is sent), by request id."""
        deadline = time.monotonic() + 30
        while True:
            found: dict[str, list[dict[str, Any]]] = {rid: [] for rid in request_ids}
            for line in self.json_since(offset):
                if line.get("logger") == "lawspeaker.access" and line.get("request_id") in found:
                    found[line["request_id"]].append(line)
            if all(found.values()) or time.monotonic() > deadline:
                return found
            time.sleep(0.05)


def start(workdir: Path, *flags: str, env: dict[str, str] | None = None) -> Server:
    """``lawspeaker serve`` on free loopback ports, sessions in memory, with only ``env``'s
    LAWSPEAKER_* variables; its stdout (the line naming its ports) and stderr (its log) in files."""
    out, err = workdir / "stdout.log", workdir / "stderr.log"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("LAWSPEAKER_")} | (env or {})
    command = [sys.executable, "-m", "lawspeaker", "serve", "--host", "127.0.0.1"]
    command += ["--grpc-port", "0", "--http-port", "0", *flags]
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=environ)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = re.search(rb"grpc_port=(\d+) http_port=(\d+)\n", out.read_bytes())
        if found:
            return Server(proc, int(found[1]), int(found[2]), err)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    pytest.fail(f"lawspeaker serve did not report its ports: {err.read_text()[-2000:]}")


def stop(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start(tmp_path_factory.mktemp("logs"), "--log-format", "json", "--access-log")
    try:
        yield running
    finally:
        stop(running)


@pytest.fixture(scope="module")
def http(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def channel(server: Server) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as ch:
        yield ch


def the_line(found: dict[str, list[dict[str, Any]]], rid: str) -> dict[str, Any]:
    lines = found[rid]
    assert len(lines) == 1, f"{rid}: {len(lines)} access lines: {lines}"
    return lines[0]


def assert_line_shape(line: dict[str, Any]) -> None:
    assert set(line) >= LINE, line
    assert TIME.match(line["time"]), line["time"]
    assert line["level"] in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"), line
    assert isinstance(line["message"], str) and line["message"], line
    assert "color_message" not in line, line


# --------------------------------------------------------------------------- the JSON format


def test_every_line_is_one_json_object_uvicorn_s_too(server: Server, http: httpx.Client) -> None:
    rid = request_id("shape")
    assert http.get("/v1/games", headers={"x-request-id": rid}).status_code == 200
    server.access_lines(0, [rid])
    lines = server.json_since(0)
    for line in lines:
        assert_line_shape(line)
    loggers = {line["logger"] for line in lines}
    assert {"lawspeaker", "uvicorn.error", "lawspeaker.access"} <= loggers, loggers
    started = [line for line in lines if line["message"].startswith("Started server process")]
    assert started and started[0]["logger"] == "uvicorn.error", lines


def test_one_access_line_per_call_on_every_transport(
    server: Server, http: httpx.Client, channel: grpc.Channel
) -> None:
    offset = server.offset()
    rules = rules_service_pb2_grpc.RulesServiceStub(channel)
    ids = {t: request_id(t) for t in ("grpc", "rest", "connect", "connect-get", "grpc-404", "rest-404")}
    traced = {"grpc", "rest", "connect"}

    def headers(t: str) -> dict[str, str]:
        return {"x-request-id": ids[t], **({"traceparent": TRACEPARENT} if t in traced else {})}

    rules.DescribeGame(
        pb.DescribeGameRequest(game="valhalla"), metadata=tuple(headers("grpc").items()), timeout=30
    )
    with pytest.raises(grpc.RpcError) as err:
        rules.DescribeGame(
            pb.DescribeGameRequest(game="no-such-game"),
            metadata=tuple(headers("grpc-404").items()),
            timeout=30,
        )
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    answers = {
        "rest": http.get("/v1/games/valhalla", headers=headers("rest")),
        "connect": http.post(
            f"{CONNECT_RULES}/DescribeGame",
            json={"game": "valhalla"},
            headers={**CONNECT_JSON, **headers("connect")},
        ),
        "connect-get": http.get(
            f"{CONNECT_RULES}/DescribeGame",
            params={"connect": "v1", "encoding": "json", "message": json.dumps({"game": "valhalla"})},
            headers=headers("connect-get"),
        ),
        "rest-404": http.get("/v1/games/no-such-game", headers=headers("rest-404")),
    }
    for t, r in answers.items():
        assert r.status_code == (404 if t == "rest-404" else 200), r.text
        assert r.headers["x-request-id"] == ids[t], "the request id is echoed"
    found = server.access_lines(offset, list(ids.values()))
    paths = {
        "rest": "/v1/games/valhalla",
        "connect": f"{CONNECT_RULES}/DescribeGame",
        "connect-get": f"{CONNECT_RULES}/DescribeGame",  # without its query (the message)
        "rest-404": "/v1/games/no-such-game",
    }
    for t, rid in ids.items():
        line = the_line(found, rid)
        assert_line_shape(line)
        assert ACCESS <= set(line) <= ACCESS_MAY, line
        assert line["level"] == "INFO", line
        assert line["transport"] == t.split("-")[0], line
        assert (line["service"], line["method"]) == ("RulesService", "DescribeGame"), line
        assert isinstance(line["duration_ms"], (int, float)) and line["duration_ms"] >= 0, line
        assert line["trace_id"] == (TRACE_ID if t in traced else ""), line
        if t.endswith("404"):  # a refusal: its code and reason, and no game a client made up
            assert (line["code"], line["game"]) == ("NOT_FOUND", ""), line
            assert line["reason"], line
        else:
            assert (line["code"], line["game"]) == ("OK", "valhalla"), line
            assert "reason" not in line, line
        if t.startswith("grpc"):
            assert not HTTP & set(line), line
        else:
            assert line["status"] == answers[t].status_code, line
            assert line["http_method"] == ("POST" if t == "connect" else "GET"), line
            assert line["path"] == paths[t], line


def test_a_request_id_is_made_when_missing_or_implausible(
    server: Server, http: httpx.Client, channel: grpc.Channel
) -> None:
    offset = server.offset()
    implausible = ['has spaces and "quotes"', "x" * 129, 'id", "level": "CRITICAL']
    made = []
    for sent in [None, *implausible]:
        r = http.get("/v1/games", headers={"x-request-id": sent} if sent is not None else {})
        assert r.status_code == 200
        echoed = r.headers["x-request-id"]
        assert re.fullmatch(r"[0-9a-f]{16}", echoed), echoed
        made.append(echoed)
    rules = rules_service_pb2_grpc.RulesServiceStub(channel)
    traced = request_id("grpc-traceparent")
    rules.ListGames(pb.ListGamesRequest(), metadata=(("x-request-id", traced), ("traceparent", "junk")))
    found = server.access_lines(offset, [*made, traced])
    for rid in made:
        assert the_line(found, rid)["transport"] == "rest"
    assert the_line(found, traced)["trace_id"] == "", "a malformed traceparent names no trace"
    logged = server.text_since(offset)
    for sent in implausible:
        assert json.dumps(sent)[1:-1] not in logged and sent not in logged
    assert len(set(made)) == len(made)


# --------------------------------------------------------------------------- what is never logged


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def fragments(state: dict[str, Any], state_bytes: bytes) -> list[str]:
    """What would show that a state was logged: its JSON (as a client or the server spells it),
    every long enough JSON value inside it, and its protobuf bytes in base64."""
    out = [json.dumps(state), json.dumps(state, separators=(",", ":"))]

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)
        else:
            return
        for spelled in (json.dumps(value), json.dumps(value, separators=(",", ":"))):
            if len(spelled) >= 16:
                out.append(spelled)

    walk(state)
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        out.append(encode(state_bytes).decode().rstrip("="))
    return out


def move_fragments(move: dict[str, Any]) -> list[str]:
    """What would show that a move was logged: its JSON and the names of its fields."""
    ((_, body),) = move.items()
    ((kind, _),) = body.items()
    return [json.dumps(move), json.dumps(move, separators=(",", ":")), json.dumps(body), f'"{kind}"']


def test_a_session_game_leaves_no_token_state_or_move_in_the_log(
    server: Server, http: httpx.Client, channel: grpc.Channel
) -> None:
    offset = server.offset()
    sessions = session_service_pb2_grpc.SessionServiceStub(channel)
    rules = rules_service_pb2_grpc.RulesServiceStub(channel)
    ids: list[str] = []
    secrets: list[str] = []

    def rid(what: str) -> dict[str, str]:
        ids.append(request_id(what))
        return {"x-request-id": ids[-1]}

    def meta(token: str, what: str) -> tuple[tuple[str, str], ...]:
        return ("authorization", f"Bearer {token}"), *rid(what).items()

    # two sessions: one made over REST, one over gRPC
    r = http.post(
        "/v1/sessions", json={"game": "valhalla", "players": 2, "seed": "11"}, headers=rid("create")
    )
    assert r.status_code == 200, r.text
    made = r.json()
    session, tokens = made["session"]["session"], [t["token"] for t in made["seatTokens"]]
    other = sessions.CreateSession(
        spb.CreateSessionRequest(game="valhalla", players=2, seed=5),
        metadata=tuple(rid("create-grpc").items()),
    )
    secrets += tokens + [t.token for t in other.seat_tokens]
    r = http.get(
        f"/v1/sessions/{session}",
        headers={"accept": "application/x-protobuf", **auth(tokens[0]), **rid("get")},
    )
    state = spb.GetSessionResponse.FromString(r.content).session.state
    secrets += fragments(made["session"]["state"], state.SerializeToString())

    # watches, over gRPC and SSE, each with a seat token
    watch = sessions.WatchSession(
        spb.WatchSessionRequest(session=session), metadata=meta(tokens[1], "watch-grpc")
    )
    assert next(watch).session.session == session
    sse = httpx.Client(base_url=server.base_url, timeout=30)
    seen: list[str] = []
    with sse.stream(
        "GET", f"/v1/sessions/{session}:watch", headers={**auth(tokens[0]), **rid("watch-sse")}
    ) as stream:
        assert stream.status_code == 200
        lines = stream.iter_lines()
        seen.append(next(line for line in lines if line.startswith("data:")))

        # moves over REST, gRPC and Connect, each seat with its token
        applied: list[dict[str, Any]] = []
        etag = made["session"]["etag"]
        for turn, transport in enumerate(["rest", "grpc", "connect", "rest"]):
            got = http.get(f"/v1/sessions/{session}", headers=rid("get")).json()["session"]
            seat, etag = got["toAct"][0], got["etag"]
            secrets += fragments(got["state"], b"")[:2]
            listed = http.post(
                f"/v1/sessions/{session}:legalMoves", json={}, headers={**auth(tokens[seat]), **rid("legal")}
            ).json()
            move = listed["moves"][turn % len(listed["moves"])]
            applied.append(move)
            body = {"move": move, "etag": etag}
            if transport == "rest":
                r = http.post(
                    f"/v1/sessions/{session}:applyMove",
                    json=body,
                    headers={**auth(tokens[seat]), **rid("apply")},
                )
                assert r.status_code == 200, r.text
            elif transport == "connect":
                r = http.post(
                    f"{CONNECT_SESSIONS}/SessionApplyMove",
                    json={"session": session, **body},
                    headers={**CONNECT_JSON, **auth(tokens[seat]), **rid("apply-connect")},
                )
                assert r.status_code == 200, r.text
            else:
                sessions.SessionApplyMove(
                    spb.SessionApplyMoveRequest(
                        session=session, move=json_format.ParseDict(move, game_pb2.Move()), etag=etag
                    ),
                    metadata=meta(tokens[seat], "apply-grpc"),
                )
        # refused moves: on a stale version, and by the seat that is not to act
        got = http.get(f"/v1/sessions/{session}", headers=rid("get")).json()["session"]
        waiting = 1 - got["toAct"][0]
        stale = http.post(
            f"/v1/sessions/{session}:applyMove",
            json={"move": applied[-1], "etag": etag},
            headers={**auth(tokens[waiting]), **rid("refused-stale")},
        )
        assert stale.status_code in (403, 409, 412), stale.text
        with pytest.raises(grpc.RpcError) as refused:
            sessions.SessionApplyMove(
                spb.SessionApplyMoveRequest(
                    session=session,
                    move=json_format.ParseDict(applied[-1], game_pb2.Move()),
                    etag=got["etag"],
                ),
                metadata=meta(tokens[waiting], "refused-grpc"),
            )
        assert refused.value.code() != grpc.StatusCode.OK
        seen.append(next(line for line in lines if line.startswith("data:")))
    # a watch ticket in a URL, and a seat token put in one by mistake (refused): neither is logged
    ticket = http.post(
        f"/v1/sessions/{session}:watchTicket", json={}, headers={**auth(tokens[1]), **rid("ticket")}
    ).json()["ticket"]
    secrets.append(ticket)
    with sse.stream(
        "GET", f"/v1/sessions/{session}:watch?ticket={ticket}", headers=rid("sse-ticket")
    ) as stream:
        assert stream.status_code == 200
        next(line for line in stream.iter_lines() if line.startswith("data:"))
    r = http.get(f"/v1/sessions/{session}:watch?token={tokens[0]}", headers=rid("token-in-url"))
    assert r.status_code == 400 and r.json()["reason"] == "SEAT_TOKEN_IN_URL"
    sse.close()
    watch.cancel()

    # a stateless move and a Connect GET whose query carries a whole state
    new = rules.NewGame(
        pb.NewGameRequest(game="valhalla", players=2, seed=3), metadata=tuple(rid("new").items())
    )
    listed_moves = rules.LegalMoves(pb.LegalMovesRequest(game="valhalla", state=new.state), timeout=30)
    stateless = json_format.MessageToDict(listed_moves.moves[0])
    applied.append(stateless)
    secrets += fragments(json_format.MessageToDict(new.state), new.state.SerializeToString())
    r = http.post(
        "/v1/games/valhalla:applyMove",
        json={"state": json_format.MessageToDict(new.state), "move": stateless},
        headers=rid("apply-stateless"),
    )
    assert r.status_code == 200, r.text
    message = pb.LegalMovesRequest(game="valhalla", state=new.state).SerializeToString()
    r = http.get(
        f"{CONNECT_RULES}/LegalMoves",
        params={
            "connect": "v1",
            "encoding": "proto",
            "base64": "1",
            "message": base64.urlsafe_b64encode(message).decode(),
        },
        headers=rid("connect-get"),
    )
    assert r.status_code == 200, r.text
    secrets.append(base64.urlsafe_b64encode(message).decode().rstrip("="))
    for move in applied:
        secrets += move_fragments(move)

    found = server.access_lines(offset, ids)
    missing = [k for k, v in found.items() if len(v) != 1]
    assert not missing, f"calls without exactly one access line: {missing}"
    for line in server.json_since(offset):
        assert_line_shape(line)
        if line["logger"] == "lawspeaker.access":
            assert set(line) <= ACCESS_MAY, line
    refusals = [lines[0] for rid, lines in found.items() if "-refused-" in rid]
    assert len(refusals) == 2
    for line in refusals:
        assert line["code"] not in ("OK", "INTERNAL", "UNKNOWN") and line["reason"], line
    watches = [lines[0] for rid, lines in found.items() if "-watch-" in rid]
    assert [line["method"] for line in watches] == ["WatchSession"] * 2, watches
    logged = server.text_since(offset)
    assert len(secrets) > 20
    for secret in secrets:
        assert secret not in logged, f"logged: {secret[:80]}"


# --------------------------------------------------------------------------- the other ways to ask


def test_the_text_format_is_lines_for_a_person(tmp_path: Path) -> None:
    running = start(tmp_path, "--log-format", "text", "--access-log")
    try:
        rid = request_id("text")
        with httpx.Client(base_url=running.base_url, timeout=30) as http:
            assert http.get("/v1/games", headers={"x-request-id": rid}).status_code == 200
        deadline = time.monotonic() + 30
        while f"request_id={rid}\n" not in running.text_since() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop(running)
    lines = running.text_since().splitlines()
    for line in lines:
        assert TEXT_LINE.match(line), line
        with pytest.raises(ValueError):
            json.loads(line)
    (access,) = [line for line in lines if f"request_id={rid}" in line]
    assert re.search(
        r" INFO lawspeaker\.access: rest GET /v1/games 200 RulesService/ListGames OK in [\d.]+ ms "
        rf"request_id={rid}$",
        access,
    ), access
    assert any(" INFO uvicorn.error: Finished server process" in line for line in lines), lines


def test_the_environment_asks_for_json_and_the_access_log(tmp_path: Path) -> None:
    """``LAWSPEAKER_LOG_FORMAT=json`` and ``LAWSPEAKER_ACCESS_LOG=1`` without a flag; the whole log,
    from start to stop, is JSON lines."""
    running = start(tmp_path, env={"LAWSPEAKER_LOG_FORMAT": "json", "LAWSPEAKER_ACCESS_LOG": "1"})
    try:
        rid = request_id("env")
        with grpc.insecure_channel(f"127.0.0.1:{running.grpc_port}") as channel:
            rules = rules_service_pb2_grpc.RulesServiceStub(channel)
            rules.ListGames(pb.ListGamesRequest(), metadata=(("x-request-id", rid),), timeout=30)
        found = running.access_lines(0, [rid])
    finally:
        stop(running)
    line = the_line(found, rid)
    assert (line["transport"], line["method"], line["code"]) == ("grpc", "ListGames", "OK"), line
    lines = running.json_since(0)
    for logged in lines:
        assert_line_shape(logged)
    assert lines[-1]["message"] == "lawspeaker stopped", lines[-3:]
    assert any(logged["message"].startswith("Finished server process") for logged in lines)
