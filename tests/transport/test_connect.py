"""The Connect protocol on the HTTP server: unary calls in JSON and binary protobuf for RulesService
and SessionService, Connect's error format with decodable details, agreement with REST, and CORS."""

from __future__ import annotations

import base64
import gzip
import json
import struct
from collections.abc import Iterator
from typing import Any, TypeVar

import grpc
import httpx
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from litestar.testing import TestClient

from lawspeaker.api import errors
from lawspeaker.http.app import create_app
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import MemoryStore
from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc, valhalla_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import Servers, run_servers
from .helpers import body_json

pytestmark = pytest.mark.transport

RULES = "/lawspeaker.v1.RulesService"
SESSIONS = "/lawspeaker.v1.SessionService"
CONNECT_JSON = {"content-type": "application/json", "connect-protocol-version": "1"}
CONNECT_PROTO = {"content-type": "application/proto", "connect-protocol-version": "1"}
CAST = game_pb2.Move(valhalla=valhalla_pb2.ValhallaMove(cast=valhalla_pb2.ValhallaCast()))
SHIP_MOVE = game_pb2.Move(
    valhalla=valhalla_pb2.ValhallaMove(move_ship=valhalla_pb2.ValhallaShipMove(ship=6, to=13))
)
R = TypeVar("R", bound=Message)


@pytest.fixture(scope="module")
def connect_servers() -> Iterator[Servers]:
    with run_servers(sessions=lambda: SessionApi(MemoryStore())) as running:
        yield running


@pytest.fixture(scope="module")
def client(connect_servers: Servers) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=connect_servers.base_url, timeout=30) as c:
        yield c


def unpadded(data: str) -> bytes:
    return base64.b64decode(data + "=" * (-len(data) % 4))


def call_json(
    client: httpx.Client, path: str, request: Message, response_type: type[R], token: str | None = None
) -> R:
    headers = dict(CONNECT_JSON, **({"authorization": f"Bearer {token}"} if token else {}))
    r = client.post(path, content=json_format.MessageToJson(request), headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    out = json_format.Parse(r.text, response_type(), ignore_unknown_fields=False)
    assert r.json() == json_format.MessageToDict(out)  # canonical proto3 JSON
    return out


def call_proto(
    client: httpx.Client, path: str, request: Message, response_type: type[R], token: str | None = None
) -> R:
    headers = dict(CONNECT_PROTO, **({"authorization": f"Bearer {token}"} if token else {}))
    r = client.post(path, content=request.SerializeToString(), headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/proto"
    out = response_type()
    out.ParseFromString(r.content)
    return out


def connect_error(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    doc: dict[str, Any] = r.json()
    assert doc["code"] == code, doc
    assert isinstance(doc["message"], str) and doc["message"]
    return doc


def error_info(doc: dict[str, Any]) -> error_details_pb2.ErrorInfo:
    infos = [d for d in doc.get("details", []) if d["type"] == "google.rpc.ErrorInfo"]
    assert len(infos) == 1, doc
    assert not infos[0]["value"].endswith("=")  # Connect: base64 without padding
    info = error_details_pb2.ErrorInfo()
    info.ParseFromString(unpadded(infos[0]["value"]))
    return info


# --------------------------------------------------------------------------- RulesService


@pytest.mark.parametrize("call", [call_json, call_proto], ids=["json", "proto"])
def test_whole_valhalla_game(client: httpx.Client, call: Any) -> None:
    state = call(
        client, f"{RULES}/NewGame", pb.NewGameRequest(game="valhalla", players=2, seed=5), pb.NewGameResponse
    ).state
    for _ in range(2000):
        listed = call(
            client,
            f"{RULES}/LegalMoves",
            pb.LegalMovesRequest(game="valhalla", state=state),
            pb.LegalMovesResponse,
        )
        if listed.game_over:
            break
        move = listed.moves[0]
        verdict = call(
            client,
            f"{RULES}/ValidateMove",
            pb.ValidateMoveRequest(game="valhalla", state=state, move=move),
            pb.ValidateMoveResponse,
        )
        assert verdict.valid, verdict
        applied = call(
            client,
            f"{RULES}/ApplyMove",
            pb.ApplyMoveRequest(game="valhalla", state=state, move=move),
            pb.ApplyMoveResponse,
        )
        state = applied.state
    else:
        pytest.fail("the game did not end")
    assert listed.outcome.result == game_pb2.GAME_RESULT_WIN


def test_agrees_with_rest(client: httpx.Client) -> None:
    new = pb.NewGameRequest(game="valhalla", players=2, seed=11)
    over_connect = call_json(client, f"{RULES}/NewGame", new, pb.NewGameResponse)
    r = client.post("/v1/games/valhalla:new", json=body_json(new))
    assert r.status_code == 200
    assert r.json() == json_format.MessageToDict(over_connect)
    legal = pb.LegalMovesRequest(game="valhalla", state=over_connect.state)
    over_connect_moves = call_proto(client, f"{RULES}/LegalMoves", legal, pb.LegalMovesResponse)
    r = client.post("/v1/games/valhalla:legalMoves", json=body_json(legal))
    assert r.json() == json_format.MessageToDict(over_connect_moves)
    games = call_json(client, f"{RULES}/ListGames", pb.ListGamesRequest(), pb.ListGamesResponse)
    assert client.get("/v1/games").json() == json_format.MessageToDict(games)


def test_every_json_spelling_gets_the_same_answer(client: httpx.Client) -> None:
    """Canonical JSON takes the msgspec path (lawspeaker.wire.structs), other spellings the general one."""
    state = call_json(
        client, f"{RULES}/NewGame", pb.NewGameRequest(game="valhalla", players=2, seed=5), pb.NewGameResponse
    ).state
    canonical = json_format.MessageToDict(pb.ApplyMoveRequest(game="valhalla", state=state, move=CAST))
    spelled = json_format.MessageToDict(
        pb.ApplyMoveRequest(game="valhalla", state=state, move=CAST), preserving_proto_field_name=True
    )
    answers = [
        client.post(f"{RULES}/ApplyMove", content=json.dumps(body), headers=CONNECT_JSON)
        for body in (canonical, spelled)
    ]
    assert [r.status_code for r in answers] == [200, 200]
    assert answers[0].json() == answers[1].json()
    both = json.loads(json.dumps(canonical))
    both["move"]["valhalla"]["moveShip"] = {"ship": 1, "to": 2}
    r = client.post(f"{RULES}/ApplyMove", content=json.dumps(both), headers=CONNECT_JSON)
    assert connect_error(r, 400, "invalid_argument")["message"]


def test_get_for_methods_without_side_effects(client: httpx.Client) -> None:
    message = json.dumps({"game": "valhalla"})
    r = client.get(f"{RULES}/DescribeGame", params={"connect": "v1", "encoding": "json", "message": message})
    assert r.status_code == 200, r.text
    assert r.json()["info"]["id"] == "valhalla"
    raw = base64.urlsafe_b64encode(pb.DescribeGameRequest(game="penki").SerializeToString()).decode()
    r = client.get(
        f"{RULES}/DescribeGame",
        params={"connect": "v1", "encoding": "proto", "base64": "1", "message": raw.rstrip("=")},
    )
    assert r.status_code == 200, r.text
    out = pb.DescribeGameResponse()
    out.ParseFromString(r.content)
    assert out.info.id == "penki"
    r = client.get(f"{RULES}/NewGame", params={"encoding": "json", "message": "{}"})
    connect_error(r, 405, "unimplemented")


def test_gzip_and_size_limits(client: httpx.Client) -> None:
    body = gzip.compress(json_format.MessageToJson(pb.NewGameRequest(game="penki", players=2)).encode())
    r = client.post(
        f"{RULES}/NewGame", content=body, headers=dict(CONNECT_JSON, **{"content-encoding": "gzip"})
    )
    assert r.status_code == 200, r.text
    assert "penki" in r.json()["state"]
    huge = b"{" + b" " * (2 * 1024 * 1024) + b"}"
    connect_error(
        client.post(f"{RULES}/NewGame", content=huge, headers=CONNECT_JSON), 429, "resource_exhausted"
    )
    bomb = gzip.compress(b" " * (2 * 1024 * 1024))
    r = client.post(
        f"{RULES}/NewGame", content=bomb, headers=dict(CONNECT_JSON, **{"content-encoding": "gzip"})
    )
    connect_error(r, 429, "resource_exhausted")
    r = client.post(
        f"{RULES}/NewGame", content=body[:-8], headers=dict(CONNECT_JSON, **{"content-encoding": "gzip"})
    )
    connect_error(r, 400, "invalid_argument")


# --------------------------------------------------------------------------- errors


def test_illegal_move_error_has_the_rule(client: httpx.Client) -> None:
    state = call_json(
        client, f"{RULES}/NewGame", pb.NewGameRequest(game="valhalla", players=2, seed=7), pb.NewGameResponse
    ).state
    verdict = call_json(
        client,
        f"{RULES}/ValidateMove",
        pb.ValidateMoveRequest(game="valhalla", state=state, move=SHIP_MOVE),
        pb.ValidateMoveResponse,
    )
    assert not verdict.valid
    apply = pb.ApplyMoveRequest(game="valhalla", state=state, move=SHIP_MOVE)
    for headers, content in (
        (CONNECT_JSON, json_format.MessageToJson(apply).encode()),
        (CONNECT_PROTO, apply.SerializeToString()),
    ):
        doc = connect_error(
            client.post(f"{RULES}/ApplyMove", content=content, headers=headers), 400, "failed_precondition"
        )
        info = error_info(doc)
        assert info.reason == verdict.violation.reason  # the same rule as ValidateMove and REST
        assert info.domain == "lawspeaker.dev"
        assert info.metadata["kind"] == "ILLEGAL_MOVE"
        bad = [d for d in doc["details"] if d["type"] == "google.rpc.BadRequest"]
        assert bad
        violations = error_details_pb2.BadRequest()
        violations.ParseFromString(unpadded(bad[0]["value"]))
        assert violations.field_violations[0].field.startswith("move.valhalla")
    problem = client.post("/v1/games/valhalla:applyMove", json=body_json(apply)).json()
    assert problem["reason"] == info.reason


CONNECT_SPEC_STATUS = {
    "canceled": 499,
    "unknown": 500,
    "invalid_argument": 400,
    "deadline_exceeded": 504,
    "not_found": 404,
    "already_exists": 409,
    "permission_denied": 403,
    "resource_exhausted": 429,
    "failed_precondition": 400,
    "aborted": 409,
    "out_of_range": 400,
    "unimplemented": 501,
    "internal": 500,
    "unavailable": 503,
    "data_loss": 500,
    "unauthenticated": 401,
}
"""The Connect protocol's "Error Codes" table (https://connectrpc.com/docs/protocol/#error-codes, as
revised by connectrpc/connectrpc.com#130: failed_precondition is 400, not 412), copied by hand."""


def test_the_connect_http_statuses_are_the_protocol_s() -> None:
    """A refusal is 409 over REST (our HTTP mapping: the state conflicts with the move) but 400 over
    Connect, whose protocol fixes each code's status: a Connect client switches on the code."""
    assert dict(errors.CONNECT_HTTP_STATUS) == CONNECT_SPEC_STATUS


def test_a_refusal_reads_the_same_over_rest_connect_json_connect_proto_and_grpc(
    client: httpx.Client, connect_servers: Servers
) -> None:
    """What a curl or React Native ``fetch`` user reads: each Connect error detail carries ``debug``,
    the detail as proto3 JSON (the reason without decoding protobuf), beside its base64 ``value``."""
    state = call_json(
        client, f"{RULES}/NewGame", pb.NewGameRequest(game="valhalla", players=2, seed=7), pb.NewGameResponse
    ).state
    apply = pb.ApplyMoveRequest(game="valhalla", state=state, move=SHIP_MOVE)
    problem = client.post("/v1/games/valhalla:applyMove", json=body_json(apply))
    assert problem.status_code == 409
    reason = problem.json()["reason"]
    for headers, content in (
        (CONNECT_JSON, json_format.MessageToJson(apply).encode()),
        (CONNECT_PROTO, apply.SerializeToString()),
    ):
        doc = connect_error(
            client.post(f"{RULES}/ApplyMove", content=content, headers=headers), 400, "failed_precondition"
        )
        by_type = {d["type"]: d for d in doc["details"]}
        info = by_type["google.rpc.ErrorInfo"]
        assert info["debug"]["reason"] == reason == error_info(doc).reason
        assert info["debug"]["domain"] == "lawspeaker.dev"
        assert info["debug"]["metadata"]["kind"] == "ILLEGAL_MOVE"
        assert info["debug"]["metadata"]["rule"] == problem.json()["metadata"]["rule"]
        assert info["debug"] == json_format.MessageToDict(error_info(doc))
        violations = by_type["google.rpc.BadRequest"]["debug"]["fieldViolations"]
        assert violations[0]["field"].startswith("move.valhalla")
    with (
        grpc.insecure_channel(f"127.0.0.1:{connect_servers.grpc_port}") as channel,
        pytest.raises(grpc.RpcError) as refused,
    ):
        rules_service_pb2_grpc.RulesServiceStub(channel).ApplyMove(apply)
    status = rpc_status.from_call(refused.value)  # type: ignore[arg-type]
    assert status is not None and refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    grpc_info = error_details_pb2.ErrorInfo()
    assert any(d.Unpack(grpc_info) for d in status.details)
    assert grpc_info.reason == reason


def test_error_codes(client: httpx.Client) -> None:
    doc = connect_error(
        client.post(f"{RULES}/NewGame", json={"game": "chess", "players": 2}, headers=CONNECT_JSON),
        404,
        "not_found",
    )
    assert error_info(doc).reason == "GAME_NOT_FOUND"
    doc = connect_error(
        client.post(f"{RULES}/NewGame", json={"game": "valhalla", "players": 5}, headers=CONNECT_JSON),
        400,
        "invalid_argument",
    )
    assert error_info(doc).reason == "PLAYER_COUNT"
    doc = connect_error(
        client.post(f"{RULES}/NewGame", content=b'{"players": 2,}', headers=CONNECT_JSON),
        400,
        "invalid_argument",
    )
    assert error_info(doc).reason == "MALFORMED_JSON"
    doc = connect_error(
        client.post(f"{RULES}/NewGame", content=b"\xff\xff\xff", headers=CONNECT_PROTO),
        400,
        "invalid_argument",
    )
    assert error_info(doc).reason == "MALFORMED_PROTOBUF"
    connect_error(client.post(f"{RULES}/Nope", json={}, headers=CONNECT_JSON), 404, "unimplemented")
    r = client.post(f"{RULES}/NewGame", content=b"x", headers={"content-type": "text/plain"})
    assert r.status_code == 415
    connect_error(
        client.post(
            f"{RULES}/ListGames", json={}, headers=dict(CONNECT_JSON, **{"connect-protocol-version": "2"})
        ),
        400,
        "invalid_argument",
    )
    connect_error(
        client.post(f"{SESSIONS}/WatchSession", json={"session": "x"}, headers=CONNECT_JSON),
        415,
        "unimplemented",
    )


# --------------------------------------------------------------------------- SessionService


@pytest.mark.parametrize("call", [call_json, call_proto], ids=["json", "proto"])
def test_whole_session_game(client: httpx.Client, call: Any) -> None:
    created = call(
        client,
        f"{SESSIONS}/CreateSession",
        spb.CreateSessionRequest(game="valhalla", players=2, seed=3),
        spb.CreateSessionResponse,
    )
    sid = created.session.session
    tokens = {t.seat: t.token for t in created.seat_tokens}
    session = created.session
    for n in range(2000):
        if session.game_over:
            break
        seat = session.to_act[0]
        listed = call(
            client,
            f"{SESSIONS}/SessionLegalMoves",
            spb.SessionLegalMovesRequest(session=sid),
            spb.SessionLegalMovesResponse,
            tokens[seat],
        )
        assert listed.moves, listed
        applied = call(
            client,
            f"{SESSIONS}/SessionApplyMove",
            spb.SessionApplyMoveRequest(
                session=sid, move=listed.moves[0], etag=listed.etag, request_id=f"m{n}"
            ),
            spb.SessionApplyMoveResponse,
            tokens[seat],
        )
        session = applied.session
        assert session.seat == seat
    else:
        pytest.fail("the session game did not end")
    got = call(client, f"{SESSIONS}/GetSession", spb.GetSessionRequest(session=sid), spb.GetSessionResponse)
    assert got.session.game_over
    assert not got.session.HasField("seat")  # no token: the public view
    r = client.get(f"/v1/sessions/{sid}")
    assert r.json() == json_format.MessageToDict(got)  # the same answer as REST


def test_session_errors(client: httpx.Client) -> None:
    created = call_json(
        client,
        f"{SESSIONS}/CreateSession",
        spb.CreateSessionRequest(game="valhalla", players=2),
        spb.CreateSessionResponse,
    )
    sid = created.session.session
    to_act = created.session.to_act[0]
    other = next(t.token for t in created.seat_tokens if t.seat != to_act)
    mine = next(t.token for t in created.seat_tokens if t.seat == to_act)
    apply = spb.SessionApplyMoveRequest(session=sid, move=CAST, etag=created.session.etag)
    body = json_format.MessageToJson(apply)
    connect_error(
        client.post(f"{SESSIONS}/SessionApplyMove", content=body, headers=CONNECT_JSON),
        403,
        "permission_denied",
    )
    doc = connect_error(
        client.post(
            f"{SESSIONS}/SessionApplyMove",
            content=body,
            headers=dict(CONNECT_JSON, authorization=f"Bearer {other}"),
        ),
        400,
        "failed_precondition",
    )
    assert error_info(doc).reason == "NOT_YOUR_TURN"
    stale = json_format.MessageToJson(spb.SessionApplyMoveRequest(session=sid, move=CAST, etag="nope"))
    connect_error(
        client.post(
            f"{SESSIONS}/SessionApplyMove",
            content=stale,
            headers=dict(CONNECT_JSON, authorization=f"Bearer {mine}"),
        ),
        409,
        "aborted",
    )
    doc = connect_error(
        client.post(f"{SESSIONS}/GetSession", json={"session": "valhalla.nope"}, headers=CONNECT_JSON),
        404,
        "not_found",
    )
    assert error_info(doc).reason


# --------------------------------------------------------------------------- WatchSession


def envelopes(chunks: Iterator[bytes]) -> Iterator[tuple[int, bytes]]:
    """The (flags, data) envelopes of a Connect streaming response."""
    buffer = b""
    for chunk in chunks:
        buffer += chunk
        while len(buffer) >= 5:
            flags, size = struct.unpack(">BI", buffer[:5])
            if len(buffer) < 5 + size:
                break
            yield flags, buffer[5 : 5 + size]
            buffer = buffer[5 + size :]


def enveloped(msg: Message, proto: bool) -> bytes:
    data = msg.SerializeToString() if proto else json_format.MessageToJson(msg).encode()
    return struct.pack(">BI", 0, len(data)) + data


@pytest.mark.parametrize("proto", [False, True], ids=["json", "proto"])
def test_watch_session_stream(client: httpx.Client, proto: bool) -> None:
    created = call_json(
        client,
        f"{SESSIONS}/CreateSession",
        spb.CreateSessionRequest(game="valhalla", players=2),
        spb.CreateSessionResponse,
    )
    sid = created.session.session
    seat = created.session.to_act[0]
    token = next(t.token for t in created.seat_tokens if t.seat == seat)
    media = "application/connect+proto" if proto else "application/connect+json"

    def decode(data: bytes) -> spb.WatchSessionResponse:
        if proto:
            return spb.WatchSessionResponse.FromString(data)
        return json_format.Parse(data, spb.WatchSessionResponse())

    headers = {"content-type": media, "authorization": f"Bearer {token}"}
    body = enveloped(spb.WatchSessionRequest(session=sid), proto)
    with client.stream("POST", f"{SESSIONS}/WatchSession", content=body, headers=headers) as r:
        assert r.status_code == 200
        assert r.headers["content-type"] == media
        frames = envelopes(r.iter_raw())
        flags, data = next(frames)
        assert flags == 0
        first = decode(data)
        assert first.session.etag == created.session.etag
        assert first.session.seat == seat
        apply = spb.SessionApplyMoveRequest(session=sid, move=CAST, etag=created.session.etag)
        call_json(client, f"{SESSIONS}/SessionApplyMove", apply, spb.SessionApplyMoveResponse, token)
        flags, data = next(frames)
        assert decode(data).session.move_count == 1
        call_json(
            client,
            f"{SESSIONS}/DeleteSession",
            spb.DeleteSessionRequest(session=sid),
            spb.DeleteSessionResponse,
            token,
        )
        flags, data = next(frames)
        assert decode(data).deleted
        flags, data = next(frames)
        assert flags == 2 and json.loads(data) == {}


def test_watch_session_stream_error(client: httpx.Client) -> None:
    body = enveloped(spb.WatchSessionRequest(session="valhalla.nope"), False)
    r = client.post(
        f"{SESSIONS}/WatchSession", content=body, headers={"content-type": "application/connect+json"}
    )
    assert r.status_code == 200  # a streaming call reports errors in its end-of-stream message
    [(flags, data)] = list(envelopes(iter([r.content])))
    assert flags == 2
    error = json.loads(data)["error"]
    assert error["code"] == "not_found"
    assert error_info(error).reason == "SESSION_NOT_FOUND"
    r = client.post(f"{RULES}/NewGame", content=body, headers={"content-type": "application/connect+json"})
    [(flags, data)] = list(envelopes(iter([r.content])))
    assert json.loads(data)["error"]["code"] == "unimplemented"


# --------------------------------------------------------------------------- CORS


def test_cors_preflight_when_configured() -> None:
    with TestClient(create_app(cors_origins=["https://app.example"])) as tc:
        r = tc.options(
            f"{RULES}/NewGame",
            headers={
                "origin": "https://app.example",
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type,connect-protocol-version,authorization",
            },
        )
        assert r.status_code in (200, 204), r.text
        assert r.headers["access-control-allow-origin"] == "https://app.example"
        allowed = r.headers["access-control-allow-headers"].lower()
        for header in ("content-type", "connect-protocol-version", "connect-timeout-ms", "authorization"):
            assert header in allowed
        r = tc.post(f"{RULES}/ListGames", json={}, headers=dict(CONNECT_JSON, origin="https://app.example"))
        assert r.status_code == 200
        assert r.headers["access-control-allow-origin"] == "https://app.example"
        assert "grpc-status" in r.headers["access-control-expose-headers"].lower()
        exposed = {h.strip() for h in r.headers["access-control-expose-headers"].lower().split(",")}
        assert {"retry-after", "x-request-id", "ratelimit", "ratelimit-policy", "etag"} <= exposed
        r = tc.post(f"{RULES}/ListGames", json={}, headers=dict(CONNECT_JSON, origin="https://evil.example"))
        assert "access-control-allow-origin" not in r.headers


def test_cors_off_by_default() -> None:
    with TestClient(create_app()) as tc:
        r = tc.post(f"{RULES}/ListGames", json={}, headers=dict(CONNECT_JSON, origin="https://app.example"))
        assert r.status_code == 200
        assert "access-control-allow-origin" not in r.headers


def test_cors_origins_flag_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from lawspeaker.server import cli

    args = cli.parser().parse_args(["serve", "--cors-origins", "https://a.example, https://b.example"])
    assert args.cors_origins == ("https://a.example", "https://b.example")
    monkeypatch.setenv("LAWSPEAKER_CORS_ORIGINS", "*")
    assert cli.parser().parse_args(["serve"]).cors_origins == ("*",)
    monkeypatch.setenv("LAWSPEAKER_CORS_ORIGINS", "")
    assert cli.parser().parse_args(["serve"]).cors_origins == ()


def test_session_service_unimplemented_without_sessions() -> None:
    with TestClient(create_app()) as tc:
        r = tc.post(f"{SESSIONS}/GetSession", json={"session": "valhalla.x"}, headers=CONNECT_JSON)
        assert r.status_code == 501
        assert r.json()["code"] == "unimplemented"
