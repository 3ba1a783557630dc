"""Errors, health, reflection and the OpenAPI document, over both transports."""

from __future__ import annotations

import json
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status

from lawspeaker.api.rules import RulesApi
from lawspeaker.http.openapi import openapi_document
from lawspeaker.http.problems import MAX_BODY_BYTES
from lawspeaker.server import devtools
from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc, valhalla_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire import fieldpaths

from .conftest import run_servers
from .helpers import body_json

pytestmark = pytest.mark.transport

PROBLEM = "application/problem+json"


def rich(err: grpc.RpcError) -> tuple[error_details_pb2.ErrorInfo, error_details_pb2.BadRequest | None]:
    """The ErrorInfo and BadRequest details of a failed call."""
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None, "the error carries a google.rpc.Status"
    info, bad = None, None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
    assert info is not None, "the status carries an ErrorInfo"
    assert info.domain == "lawspeaker.dev"
    return info, bad


def base_of(http: httpx.Client) -> str:
    """The base URL the server's links start with for this client: its own scheme and host."""
    return str(http.base_url).rstrip("/")


def problem(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    doc: dict[str, Any] = r.json()
    assert doc["status"] == status
    assert {"type", "title", "status", "detail", "code", "reason"} <= doc.keys()
    assert "Traceback" not in r.text
    return doc


def new_state(stub: rules_service_pb2_grpc.RulesServiceStub) -> game_pb2.GameState:
    state: game_pb2.GameState = stub.NewGame(pb.NewGameRequest(game="valhalla", players=2, seed=7)).state
    return state


SHIP_MOVE = game_pb2.Move(
    valhalla=valhalla_pb2.ValhallaMove(move_ship=valhalla_pb2.ValhallaShipMove(ship=6, to=13))
)


# --------------------------------------------------------------------------- unknown game


def test_unknown_game(stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        stub.DescribeGame(pb.DescribeGameRequest(game="hnefatafl-9000"))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    info, bad = rich(caught.value)
    assert info.reason == "GAME_NOT_FOUND"
    assert info.metadata["kind"] == "NOT_FOUND"
    assert bad is not None and bad.field_violations[0].field == "game"

    doc = problem(http.get("/v1/games/hnefatafl-9000"), 404)
    assert doc["reason"] == "GAME_NOT_FOUND"
    assert doc["code"] == "NOT_FOUND"
    doc = problem(http.post("/v1/games/hnefatafl-9000:new", json={"players": 2}), 404)
    assert doc["reason"] == "GAME_NOT_FOUND"


# --------------------------------------------------------------------------- malformed bodies


def test_malformed_json(http: httpx.Client) -> None:
    r = http.post(
        "/v1/games/valhalla:new", content=b'{"players": 2,}', headers={"content-type": "application/json"}
    )
    doc = problem(r, 400)
    assert doc["reason"] == "MALFORMED_JSON"
    assert "JSON" in doc["detail"] and "byte" in doc["detail"]
    doc = problem(http.post("/v1/games/valhalla:new", json=[1, 2]), 400)
    assert doc["reason"] == "MALFORMED_JSON"


def test_unknown_json_field(http: httpx.Client) -> None:
    doc = problem(http.post("/v1/games/valhalla:new", json={"players": 2, "colour": "red"}), 400)
    assert doc["reason"] == "UNKNOWN_FIELD"
    assert "colour" in doc["detail"]
    assert doc["fieldViolations"][0]["field"] == "colour"


def test_json_wrong_type(http: httpx.Client) -> None:
    doc = problem(http.post("/v1/games/valhalla:new", json={"players": "two"}), 400)
    assert doc["reason"] == "INVALID_FIELD_VALUE"
    assert doc["fieldViolations"][0]["field"] == "players"
    doc = problem(http.post("/v1/games/valhalla:new", json={"players": 2, "options": 3}), 400)
    assert doc["code"] == "INVALID_ARGUMENT"


def test_every_proto3_json_spelling_gets_the_same_answer(
    stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client
) -> None:
    """Canonical JSON takes the msgspec path (lawspeaker.wire.structs); other valid spellings take the general
    one. Both answer alike: over REST, proto field names and nulls (the spellings the OpenAPI document
    leaves to the proto3 JSON mapping), over Connect every proto3 JSON spelling (enum numbers,
    numbers as strings, 64-bit integers as numbers too)."""
    state = json_format.MessageToDict(new_state(stub))
    canonical = {"state": state, "move": {"valhalla": {"cast": {}}}}
    spelled = json.loads(json.dumps(canonical).replace('"rulesVersion"', '"rules_version"'))
    spelled["state"]["valhalla"]["options"]["doubles"] = None  # null: its default, false
    answers = [http.post("/v1/games/valhalla:applyMove", json=body) for body in (canonical, spelled)]
    assert [r.status_code for r in answers] == [200, 200]
    assert answers[0].json() == answers[1].json()
    json_format.ParseDict(answers[0].json(), pb.ApplyMoveResponse())  # proto3 JSON, nothing unknown
    lenient = json.loads(json.dumps(spelled))
    phase = lenient["state"]["valhalla"]["phase"]
    lenient["state"]["valhalla"]["phase"] = valhalla_pb2.ValhallaPhase.Value(phase)  # by number
    lenient["state"]["valhalla"]["ships"][0]["number"] = "1"
    lenient["state"]["rng"]["counter"] = int(lenient["state"]["rng"].get("counter", "0"))
    connect = http.post(
        "/lawspeaker.v1.RulesService/ApplyMove",
        json={"game": "valhalla", **lenient},
        headers={"connect-protocol-version": "1"},
    )
    assert connect.status_code == 200 and connect.json() == answers[0].json()
    refused = problem(http.post("/v1/games/valhalla:applyMove", json=lenient), 400)  # not REST's spelling
    assert refused["reason"] == "INVALID_FIELD_VALUE"

    both_members = {"state": state, "move": {"valhalla": {"cast": {}, "moveShip": {"ship": 1, "to": 2}}}}
    doc = problem(http.post("/v1/games/valhalla:applyMove", json=both_members), 400)
    assert doc["reason"] == "INVALID_FIELD_VALUE" and "oneof" in doc["detail"]


def test_malformed_binary_protobuf(http: httpx.Client) -> None:
    r = http.post(
        "/v1/games/valhalla:new", content=b"\xff\xff\xff", headers={"content-type": "application/x-protobuf"}
    )
    assert problem(r, 400)["reason"] == "MALFORMED_PROTOBUF"


def test_body_game_must_match_path(http: httpx.Client) -> None:
    doc = problem(http.post("/v1/games/valhalla:new", json={"game": "chess", "players": 2}), 400)
    assert doc["reason"] == "GAME_MISMATCH"
    r = http.post("/v1/games/valhalla:new", json={"game": "valhalla", "players": 2})
    assert r.status_code == 200


def test_player_count(stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        stub.NewGame(pb.NewGameRequest(game="valhalla", players=5))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert rich(caught.value)[0].reason == "PLAYER_COUNT"
    assert problem(http.post("/v1/games/valhalla:new", json={"players": 5}), 400)["reason"] == "PLAYER_COUNT"


@pytest.mark.parametrize(
    ("game", "options", "reason", "field"),
    [
        ("birka", {"calendarRounds": 7}, "INVALID_OPTIONS", "calendar_rounds"),
        ("birka", {"data": "{"}, "INVALID_DATA", "data"),
        ("birka", {"data": '{"byn": {"visthus_slots": 0}}'}, "INVALID_DATA", "data"),
    ]
    + [
        ("pax_viking_junior", *case)
        for case in [
            ({"seatBoards": ["bygul", "munin"]}, "INVALID_OPTIONS", "seat_boards"),
            ({"seatBoards": ["bygul", "garm", "munin"]}, "INVALID_OPTIONS", "seat_boards"),
            ({"startingSeat": 3}, "INVALID_OPTIONS", "starting_seat"),
            ({"components": '{"map": {"grid": []}}'}, "INVALID_COMPONENTS", "components"),
            ({"components": "[" * 100_000}, "INVALID_COMPONENTS", "components"),
        ]
    ],
)
def test_options_that_do_not_fit_the_game(
    stub: rules_service_pb2_grpc.RulesServiceStub,
    http: httpx.Client,
    game: str,
    options: dict[str, Any],
    reason: str,
    field: str,
) -> None:
    """Options a game cannot play with (Pax Viking Junior's cat boards for another number of players,
    a starting seat beyond the players, components that are no game; a Birka game length that is
    neither reading, a data set that is no game) are a client error naming the option, over both
    transports."""
    key = "paxVikingJunior" if game == "pax_viking_junior" else game
    request = pb.NewGameRequest(game=game, players=3)
    json_format.ParseDict({key: options}, request.options)
    with pytest.raises(grpc.RpcError) as caught:
        stub.NewGame(request)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info, bad = rich(caught.value)
    assert info.reason == reason
    assert bad is not None and bad.field_violations[0].field == f"options.{game}.{field}"
    body = {"players": 3, "options": {key: options}}
    doc = problem(http.post(f"/v1/games/{game}:new", json=body), 400)
    assert doc["reason"] == reason
    assert doc["fieldViolations"][0]["field"] == fieldpaths.to_json(f"options.{game}.{field}")  # JSON names


# --------------------------------------------------------------------------- rules errors


def test_illegal_move(stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client) -> None:
    state = new_state(stub)
    validate = pb.ValidateMoveRequest(game="valhalla", state=state, move=SHIP_MOVE)
    verdict = stub.ValidateMove(validate)
    assert not verdict.valid
    assert verdict.violation.reason == "CAST_FIRST"
    assert verdict.violation.field == "move.valhalla.move_ship"  # gRPC: proto field names
    assert verdict.violation.rule == "/rules/valhalla#cast-first"  # gRPC, no --public-url: the path
    r = http.post("/v1/games/valhalla:validateMove", json=body_json(validate))
    assert r.status_code == 200
    over_json = json_format.Parse(r.text, pb.ValidateMoveResponse(), ignore_unknown_fields=False)
    assert over_json.violation.field == "move.valhalla.moveShip"  # a JSON body: JSON names
    assert over_json.violation.rule == f"{base_of(http)}/rules/valhalla#cast-first"  # REST: a URL
    over_json.violation.field, over_json.violation.rule = verdict.violation.field, verdict.violation.rule
    assert over_json == verdict

    apply = pb.ApplyMoveRequest(game="valhalla", state=state, move=SHIP_MOVE)
    with pytest.raises(grpc.RpcError) as caught:
        stub.ApplyMove(apply)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    info, bad = rich(caught.value)
    assert info.reason == verdict.violation.reason
    assert bad is not None and bad.field_violations[0].field == verdict.violation.field

    doc = problem(http.post("/v1/games/valhalla:applyMove", json=body_json(apply)), 409)
    assert doc["reason"] == verdict.violation.reason
    assert doc["code"] == "FAILED_PRECONDITION"
    assert doc["fieldViolations"][0]["field"] == "move.valhalla.moveShip"
    assert doc["metadata"] == {"kind": "ILLEGAL_MOVE", "rule": f"{base_of(http)}/rules/valhalla#cast-first"}
    assert doc["type"] == f"{base_of(http)}/problems/cast-first"


def test_invalid_state(stub: rules_service_pb2_grpc.RulesServiceStub, http: httpx.Client) -> None:
    state = new_state(stub)
    state.valhalla.ships[1].position = state.valhalla.ships[0].position
    request = pb.LegalMovesRequest(game="valhalla", state=state)
    with pytest.raises(grpc.RpcError) as caught:
        stub.LegalMoves(request)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info, bad = rich(caught.value)
    assert bad is not None
    fields = [v.field for v in bad.field_violations]
    assert all(f.startswith("state.valhalla.") for f in fields), fields

    doc = problem(http.post("/v1/games/valhalla:legalMoves", json=body_json(request)), 400)
    assert doc["reason"] == info.reason
    assert [v["field"] for v in doc["fieldViolations"]] == fields
    assert "state.valhalla." in doc["detail"]


# --------------------------------------------------------------------------- HTTP-level errors


def test_oversize_body(http: httpx.Client) -> None:
    big = b'{"players": 2, "game": "' + b"x" * (MAX_BODY_BYTES + 10) + b'"}'
    r = http.post("/v1/games/valhalla:new", content=big, headers={"content-type": "application/json"})
    assert problem(r, 413)["code"] == "RESOURCE_EXHAUSTED"


def test_oversize_grpc_message(stub: rules_service_pb2_grpc.RulesServiceStub) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        stub.DescribeGame(pb.DescribeGameRequest(game="x" * (5 * 1024 * 1024)))
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_wrong_content_type(http: httpx.Client) -> None:
    r = http.post("/v1/games/valhalla:new", content=b"players=2", headers={"content-type": "text/plain"})
    assert problem(r, 415)["reason"] == "UNSUPPORTED_MEDIA_TYPE"


def test_unknown_routes_and_methods(http: httpx.Client) -> None:
    assert problem(http.get("/v2/anything"), 404)["reason"] == "ROUTE_NOT_FOUND"
    assert problem(http.post("/v1/games/valhalla:fly", json={}), 404)["reason"] == "ROUTE_NOT_FOUND"
    r = http.post("/v1/games/valhalla", json={})
    assert problem(r, 405)["reason"] == "METHOD_NOT_ALLOWED"
    assert r.headers["allow"] == "GET, OPTIONS"
    assert problem(http.delete("/v1/games"), 405)["reason"] == "METHOD_NOT_ALLOWED"


class Broken(RulesApi):
    def list_games(self, request: pb.ListGamesRequest) -> pb.ListGamesResponse:
        raise RuntimeError("secret internals /etc/passwd")


def test_unexpected_errors_leak_nothing() -> None:
    with run_servers(Broken()) as servers:
        r = httpx.get(f"{servers.base_url}/v1/games")
        doc = problem(r, 500)
        assert doc["code"] == "INTERNAL"
        assert "secret" not in r.text
        with grpc.insecure_channel(f"127.0.0.1:{servers.grpc_port}") as channel:
            stub = rules_service_pb2_grpc.RulesServiceStub(channel)
            with pytest.raises(grpc.RpcError) as caught:
                stub.ListGames(pb.ListGamesRequest(), timeout=10)
            assert caught.value.code() == grpc.StatusCode.INTERNAL
            assert "secret" not in (caught.value.details() or "")


# --------------------------------------------------------------------------- health, reflection, schema


def test_health(channel: grpc.Channel, http: httpx.Client) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "lawspeaker.v1.RulesService"):
        answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    r = http.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "SERVING"}


def test_reflection(channel: grpc.Channel) -> None:
    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    responses = list(reflection.ServerReflectionInfo(iter([request]), timeout=10))
    names = {s.name for s in responses[0].list_services_response.service}
    assert "lawspeaker.v1.RulesService" in names
    file_request = reflection_pb2.ServerReflectionRequest(file_containing_symbol="lawspeaker.v1.RulesService")
    responses = list(reflection.ServerReflectionInfo(iter([file_request]), timeout=10))
    assert responses[0].file_descriptor_response.file_descriptor_proto


def test_schema(http: httpx.Client) -> None:
    doc = openapi_document()
    assert doc["openapi"].startswith("3.1")
    for path in ("/schema", "/schema/openapi.json"):
        r = http.get(path)
        assert r.status_code == 200
        served = r.json()  # naming where it was asked for as its server
        assert served.pop("servers") == [
            {"description": "This service", "url": str(http.base_url).rstrip("/")}
        ]
        assert served == {k: v for k, v in doc.items() if k != "servers"}
    ops = {op["operationId"] for item in doc["paths"].values() for op in item.values()}
    # the POSTs once per game (their bodies are that game's): tests/transport/test_openapi_exact.py
    assert {"ListGames", "DescribeGame", "NewGame_valhalla", "LegalMoves_valhalla", "ApplyMove_penki"} <= ops
    new = doc["paths"]["/v1/games/valhalla:new"]["post"]
    schemas = doc["components"]["schemas"]
    assert new["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/NewGameRequestValhalla"
    }
    body = schemas["NewGameRequestValhalla"]
    assert "game" not in body["properties"] and "players" in body["properties"]
    assert body["properties"]["seed"]["type"] == ["string", "null"]  # 64-bit: a decimal string; null: unset
    ship = schemas["ValhallaShip"]["properties"]
    assert "underRepair" in ship
    assert schemas["RngState"]["properties"]["seed"]["pattern"]  # base64 of 32 bytes
    assert "VALHALLA_COLOUR_DARK" in schemas["ValhallaColour"]["enum"]
    assert "Problem" in schemas
    assert openapi_document() == doc  # deterministic


def test_openapi_file_is_current() -> None:
    text = devtools.OPENAPI_PATH.read_text()
    assert json.loads(text) == openapi_document()
    assert devtools.openapi(check=True) == 0


def test_openapi_document_passes_a_standard_openapi_validator() -> None:
    from openapi_spec_validator import validate

    validate(json.loads(devtools.OPENAPI_PATH.read_text()))
