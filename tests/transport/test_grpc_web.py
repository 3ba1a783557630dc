"""gRPC-Web on the HTTP port (``lawspeaker.http.grpcweb``) and gRPC reflection v1 on the gRPC port,
over real servers on loopback: calls framed by hand (binary, JSON and base64 text), the errors the
gRPC port gives for the same calls, malformed bodies, a WatchSession stream, and buf's own client
(``buf curl --protocol grpcweb``, ``--reflect-protocol grpc-v1``)."""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import shutil
import struct
import subprocess
import time
import urllib.parse
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

import grpc
import httpx
import pytest
from google.protobuf import descriptor_pb2, json_format
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_reflection.v1alpha import reflection_pb2
from litestar.testing import TestClient
from prometheus_client.parser import text_string_to_metric_families

from lawspeaker.api.access import Access, digest
from lawspeaker.http.app import create_app
from lawspeaker.sessions.service import Limits, SessionApi
from lawspeaker.sessions.store import MemoryStore
from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc, valhalla_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import Servers, run_servers

pytestmark = pytest.mark.transport

ROOT = Path(__file__).resolve().parents[2]
RULES = "/lawspeaker.v1.RulesService"
SESSIONS = "/lawspeaker.v1.SessionService"
GRPC_WEB = "application/grpc-web+proto"
SHIP_MOVE = game_pb2.Move(
    valhalla=valhalla_pb2.ValhallaMove(move_ship=valhalla_pb2.ValhallaShipMove(ship=6, to=13))
)
CAST = game_pb2.Move(valhalla=valhalla_pb2.ValhallaMove(cast=valhalla_pb2.ValhallaCast()))
API_KEY = "grpc-web-test-key"
R = TypeVar("R", bound=Message)


@pytest.fixture(scope="module")
def web_servers() -> Iterator[Servers]:
    with run_servers(sessions=lambda: SessionApi(MemoryStore())) as running:
        yield running


@pytest.fixture(scope="module")
def client(web_servers: Servers) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web_servers.base_url, timeout=30) as c:
        yield c


# --------------------------------------------------------------------------- the framing, by hand


def framed(data: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(data)) + data


def frames(chunks: Iterable[bytes], text: bool = False) -> Iterator[tuple[int, bytes]]:
    """The (flags, payload) frames of a response body read as it arrives (base64 in text form)."""
    buffer = b""
    pending = b""
    for chunk in chunks:
        if text:
            pending += chunk
            usable = len(pending) - len(pending) % 4
            buffer += base64.b64decode(pending[:usable])
            pending = pending[usable:]
        else:
            buffer += chunk
        while len(buffer) >= 5:
            flags, size = struct.unpack(">BI", buffer[:5])
            if len(buffer) < 5 + size:
                break
            yield flags, buffer[5 : 5 + size]
            buffer = buffer[5 + size :]
    assert not buffer and not pending, "the body ended inside a frame"


def trailers(block: bytes) -> dict[str, str]:
    out = {}
    for line in block.decode("ascii").split("\r\n"):
        if line:
            name, _, value = line.partition(":")
            out[name.strip().lower()] = value.strip()
    return out


def rich_status(trailer: dict[str, str]) -> status_pb2.Status:
    data = trailer["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(base64.b64decode(data + "=" * (-len(data) % 4)))
    assert status.code == int(trailer["grpc-status"])
    assert status.message == urllib.parse.unquote(trailer.get("grpc-message", ""))
    return status


def error_info(status: status_pb2.Status) -> error_details_pb2.ErrorInfo:
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info
    raise AssertionError(f"no ErrorInfo in {status}")


def call(
    client: httpx.Client,
    path: str,
    body: bytes,
    media: str = GRPC_WEB,
    headers: dict[str, str] | None = None,
) -> tuple[list[bytes], dict[str, str]]:
    """A unary gRPC-Web call: HTTP 200, its message payloads, then its trailers (the last frame)."""
    r = client.post(path, content=body, headers={"content-type": media, "x-grpc-web": "1", **(headers or {})})
    assert r.status_code == 200, r.text
    text = "grpc-web-text" in media
    assert r.headers["content-type"] == ("application/grpc-web-text+proto" if text else media)
    got = list(frames([r.content], text))
    assert got and got[-1][0] == 0x80, "a gRPC-Web response ends with its trailers frame"
    assert all(flags == 0 for flags, _ in got[:-1])
    return [data for _, data in got[:-1]], trailers(got[-1][1])


def unary(client: httpx.Client, path: str, request: Message, response_type: type[R], token: str = "") -> R:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    [data], trailer = call(client, path, framed(request.SerializeToString()), headers=headers)
    assert trailer == {"grpc-status": "0"}
    return response_type.FromString(data)


# --------------------------------------------------------------------------- unary calls


def test_a_whole_game_over_grpc_web_agrees_with_grpc(client: httpx.Client, web_servers: Servers) -> None:
    """NewGame, LegalMoves and ApplyMove over gRPC-Web give the bytes the gRPC port gives."""
    with grpc.insecure_channel(f"127.0.0.1:{web_servers.grpc_port}") as channel:
        stub = rules_service_pb2_grpc.RulesServiceStub(channel)
        new = pb.NewGameRequest(game="valhalla", players=2, seed=5)
        state = unary(client, f"{RULES}/NewGame", new, pb.NewGameResponse).state
        assert state == stub.NewGame(new).state
        for _ in range(6):
            legal = pb.LegalMovesRequest(game="valhalla", state=state)
            listed = unary(client, f"{RULES}/LegalMoves", legal, pb.LegalMovesResponse)
            assert listed == stub.LegalMoves(legal)
            apply = pb.ApplyMoveRequest(game="valhalla", state=state, move=listed.moves[0])
            applied = unary(client, f"{RULES}/ApplyMove", apply, pb.ApplyMoveResponse)
            assert applied == stub.ApplyMove(apply)
            state = applied.state


def test_text_and_json_forms(client: httpx.Client) -> None:
    [data], trailer = call(
        client, f"{RULES}/ListGames", base64.b64encode(framed(b"")), media="application/grpc-web-text"
    )
    assert trailer == {"grpc-status": "0"}
    games = {g.id for g in pb.ListGamesResponse.FromString(data).games}
    assert "valhalla" in games
    body = json_format.MessageToJson(pb.NewGameRequest(game="birka", players=3, seed=1)).encode()
    [data], trailer = call(client, f"{RULES}/NewGame", framed(body), media="application/grpc-web+json")
    assert trailer == {"grpc-status": "0"}
    answer = json_format.Parse(data, pb.NewGameResponse())
    assert answer.state.HasField("birka")
    # A bare application/grpc-web is binary protobuf, answered as application/grpc-web+proto.
    r = client.post(
        f"{RULES}/ListGames", content=framed(b""), headers={"content-type": "application/grpc-web"}
    )
    assert r.status_code == 200 and r.headers["content-type"] == GRPC_WEB


def test_a_refusal_carries_the_grpc_ports_rich_status(client: httpx.Client, web_servers: Servers) -> None:
    state = unary(
        client, f"{RULES}/NewGame", pb.NewGameRequest(game="valhalla", players=2, seed=7), pb.NewGameResponse
    ).state
    apply = pb.ApplyMoveRequest(game="valhalla", state=state, move=SHIP_MOVE)
    messages, trailer = call(client, f"{RULES}/ApplyMove", framed(apply.SerializeToString()))
    assert messages == []  # a response of the trailers alone
    assert trailer["grpc-status"] == str(code_pb2.FAILED_PRECONDITION)
    status = rich_status(trailer)
    info = error_info(status)
    assert info.domain == "lawspeaker.dev"
    with grpc.insecure_channel(f"127.0.0.1:{web_servers.grpc_port}") as channel:
        with pytest.raises(grpc.RpcError) as raised:
            rules_service_pb2_grpc.RulesServiceStub(channel).ApplyMove(apply)
        err = raised.value
        assert isinstance(err, grpc.Call)
        grpc_status = dict(err.trailing_metadata() or ())["grpc-status-details-bin"]
    over_grpc = status_pb2.Status.FromString(grpc_status)
    grpc_info = error_info(over_grpc)
    # The same status, details and all; a rule's link is a URL on the HTTP port, a path on gRPC.
    assert info.metadata["rule"].endswith(grpc_info.metadata.pop("rule")) and info.metadata.pop("rule")
    assert info == grpc_info
    assert (status.code, status.message) == (over_grpc.code, over_grpc.message)
    assert [d.type_url for d in status.details] == [d.type_url for d in over_grpc.details]
    assert status.details[1:] == over_grpc.details[1:]
    validated = unary(
        client,
        f"{RULES}/ValidateMove",
        pb.ValidateMoveRequest(game="valhalla", state=state, move=SHIP_MOVE),
        pb.ValidateMoveResponse,
    )
    assert info.reason == validated.violation.reason
    # A message outside printable ASCII is percent-encoded; an unknown game is NOT_FOUND.
    messages, trailer = call(
        client, f"{RULES}/NewGame", framed(pb.NewGameRequest(game="échecs", players=2).SerializeToString())
    )
    assert trailer["grpc-status"] == str(code_pb2.NOT_FOUND)
    assert "%C3%A9" in trailer["grpc-message"]
    assert error_info(rich_status(trailer)).reason == "GAME_NOT_FOUND"


@pytest.mark.parametrize(
    ("body", "media", "says"),
    [
        (b"\x00\x00", GRPC_WEB, "is one frame"),
        (framed(b"\x08\x01") + b"extra", GRPC_WEB, "exactly one frame"),
        (framed(b"\x08\x01")[:-1], GRPC_WEB, "exactly one frame"),
        (framed(b"", flags=0x80), GRPC_WEB, "flags are 0x80"),
        (framed(b"\x1f\x8b", flags=0x01), GRPC_WEB, "no grpc-encoding"),
        (b"not base64!", "application/grpc-web-text", "not base64"),
        (framed(b"{not json"), "application/grpc-web+json", "not valid JSON"),
    ],
    ids=["short", "trailing-bytes", "truncated", "trailer-flag", "compressed-no-encoding", "base64", "json"],
)
def test_a_malformed_body_is_invalid_argument(
    client: httpx.Client, body: bytes, media: str, says: str
) -> None:
    messages, trailer = call(client, f"{RULES}/NewGame", body, media=media)
    assert messages == []
    assert trailer["grpc-status"] == str(code_pb2.INVALID_ARGUMENT)
    assert says in urllib.parse.unquote(trailer["grpc-message"])


def test_bytes_that_are_not_the_request_are_malformed_protobuf(client: httpx.Client) -> None:
    messages, trailer = call(client, f"{RULES}/NewGame", framed(b"\xff\xff\xff"))
    assert messages == [] and trailer["grpc-status"] == str(code_pb2.INVALID_ARGUMENT)
    assert error_info(rich_status(trailer)).reason == "MALFORMED_PROTOBUF"


def test_gzip_frames_timeouts_and_unknown_methods(client: httpx.Client) -> None:
    body = framed(gzip.compress(pb.NewGameRequest(game="valhalla", players=2).SerializeToString()), flags=1)
    [data], trailer = call(client, f"{RULES}/NewGame", body, headers={"grpc-encoding": "gzip"})
    assert trailer == {"grpc-status": "0"} and pb.NewGameResponse.FromString(data).state.HasField("valhalla")
    _, trailer = call(client, f"{RULES}/NewGame", body, headers={"grpc-encoding": "snappy"})
    assert trailer["grpc-status"] == str(code_pb2.UNIMPLEMENTED)
    _, trailer = call(client, f"{RULES}/ListGames", framed(b""), headers={"grpc-timeout": "soon"})
    assert trailer["grpc-status"] == str(code_pb2.INVALID_ARGUMENT)
    assert "grpc-timeout" in urllib.parse.unquote(trailer["grpc-message"])
    _, trailer = call(client, f"{RULES}/ListGames", framed(b""), headers={"grpc-timeout": "5S"})
    assert trailer == {"grpc-status": "0"}
    _, trailer = call(client, f"{RULES}/Resign", framed(b""))
    assert trailer["grpc-status"] == str(code_pb2.UNIMPLEMENTED)
    r = client.post(
        f"{RULES}/ListGames", content=framed(b""), headers={"content-type": "application/grpc-web+thrift"}
    )
    assert r.status_code == 415 and r.headers["grpc-status"] == str(code_pb2.INVALID_ARGUMENT)


# --------------------------------------------------------------------------- sessions


def test_watch_session_streams_each_update_as_it_comes(client: httpx.Client) -> None:
    """The stream's frames arrive while it is open: each move's update is read before the next
    move is made (no buffering to the end), in the text form too."""
    for media, text in ((GRPC_WEB, False), ("application/grpc-web-text+proto", True)):
        created = unary(
            client,
            f"{SESSIONS}/CreateSession",
            spb.CreateSessionRequest(game="valhalla", players=2),
            spb.CreateSessionResponse,
        )
        sid = created.session.session
        seat = created.session.to_act[0]
        token = next(t.token for t in created.seat_tokens if t.seat == seat)
        body = framed(spb.WatchSessionRequest(session=sid).SerializeToString())
        headers = {"content-type": media, "authorization": f"Bearer {token}", "x-grpc-web": "1"}
        with client.stream(
            "POST",
            f"{SESSIONS}/WatchSession",
            content=base64.b64encode(body) if text else body,
            headers=headers,
        ) as r:
            assert r.status_code == 200 and r.headers["content-type"] == media
            stream = frames(r.iter_raw(), text)
            flags, data = next(stream)
            first = spb.WatchSessionResponse.FromString(data)
            assert flags == 0 and first.session.etag == created.session.etag and first.session.seat == seat
            apply = spb.SessionApplyMoveRequest(session=sid, move=CAST, etag=created.session.etag)
            unary(client, f"{SESSIONS}/SessionApplyMove", apply, spb.SessionApplyMoveResponse, token)
            flags, data = next(stream)
            assert flags == 0 and spb.WatchSessionResponse.FromString(data).session.move_count == 1
            unary(
                client,
                f"{SESSIONS}/DeleteSession",
                spb.DeleteSessionRequest(session=sid),
                spb.DeleteSessionResponse,
                token,
            )
            flags, data = next(stream)
            assert spb.WatchSessionResponse.FromString(data).deleted
            flags, data = next(stream)
            assert flags == 0x80 and trailers(data) == {"grpc-status": "0"}
            assert next(stream, None) is None


def test_a_watch_ends_at_its_grpc_timeout(client: httpx.Client) -> None:
    """``grpc-timeout: 300m``: the session's first update, then DEADLINE_EXCEEDED in the trailers
    about 0.3 s later, with the stream open until then."""
    created = unary(
        client,
        f"{SESSIONS}/CreateSession",
        spb.CreateSessionRequest(game="valhalla", players=2),
        spb.CreateSessionResponse,
    )
    body = framed(spb.WatchSessionRequest(session=created.session.session).SerializeToString())
    headers = {"content-type": GRPC_WEB, "grpc-timeout": "300m"}
    started = time.monotonic()
    with client.stream("POST", f"{SESSIONS}/WatchSession", content=body, headers=headers) as r:
        got = list(frames(r.iter_raw()))
    assert 0.25 < time.monotonic() - started < 10
    [(flags, data), (end, block)] = got
    assert flags == 0 and spb.WatchSessionResponse.FromString(data).session.etag == created.session.etag
    assert end == 0x80 and trailers(block)["grpc-status"] == str(code_pb2.DEADLINE_EXCEEDED)


def test_watch_of_a_missing_session_and_a_seat_refusal(client: httpx.Client) -> None:
    body = framed(spb.WatchSessionRequest(session="valhalla.nope").SerializeToString())
    messages, trailer = call(client, f"{SESSIONS}/WatchSession", body)
    assert messages == [] and trailer["grpc-status"] == str(code_pb2.NOT_FOUND)
    assert error_info(rich_status(trailer)).reason == "SESSION_NOT_FOUND"
    created = unary(
        client,
        f"{SESSIONS}/CreateSession",
        spb.CreateSessionRequest(game="valhalla", players=2),
        spb.CreateSessionResponse,
    )
    apply = spb.SessionApplyMoveRequest(session=created.session.session, move=CAST, etag=created.session.etag)
    _, trailer = call(client, f"{SESSIONS}/SessionApplyMove", framed(apply.SerializeToString()))
    assert trailer["grpc-status"] == str(code_pb2.PERMISSION_DENIED)
    _, trailer = call(
        client,
        f"{SESSIONS}/SessionApplyMove",
        framed(apply.SerializeToString()),
        headers={"authorization": "Basic x"},
    )
    assert error_info(rich_status(trailer)).reason == "SEAT_TOKEN_MALFORMED"


def test_the_api_key_guard_refuses_in_trailers() -> None:
    keys = Access(api_keys={digest(API_KEY): "web"})
    body = framed(spb.CreateSessionRequest(game="valhalla", players=2).SerializeToString())
    with (
        run_servers(sessions=lambda: SessionApi(MemoryStore(), limits=Limits(access=keys))) as servers,
        httpx.Client(base_url=servers.base_url, timeout=30) as client,
    ):
        messages, trailer = call(client, f"{SESSIONS}/CreateSession", body)
        assert messages == [] and trailer["grpc-status"] == str(code_pb2.UNAUTHENTICATED)
        assert error_info(rich_status(trailer)).reason
        [data], trailer = call(client, f"{SESSIONS}/CreateSession", body, headers={"x-api-key": API_KEY})
        assert trailer == {"grpc-status": "0"}
        assert len(spb.CreateSessionResponse.FromString(data).seat_tokens) == 2


def test_cors_lets_a_browser_send_and_read_grpc_web() -> None:
    with TestClient(create_app(cors_origins=["https://app.example"])) as tc:
        r = tc.options(
            f"{RULES}/NewGame",
            headers={
                "origin": "https://app.example",
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type,x-grpc-web,x-user-agent,grpc-timeout",
            },
        )
        assert r.status_code in (200, 204), r.text
        allowed = r.headers["access-control-allow-headers"].lower()
        assert all(h in allowed for h in ("x-grpc-web", "x-user-agent", "grpc-timeout"))
        r = tc.post(
            f"{RULES}/ListGames",
            content=framed(b""),
            headers={"content-type": GRPC_WEB, "origin": "https://app.example"},
        )
        assert r.status_code == 200
        exposed = r.headers["access-control-expose-headers"].lower()
        assert all(h in exposed for h in ("grpc-status", "grpc-message", "grpc-status-details-bin"))


def requests_counted(url: str, **labels: str) -> float:
    """The sum of ``lawspeaker_requests_total`` samples with ``labels``, from ``GET /metrics``."""
    r = httpx.get(f"{url}/metrics", timeout=30)
    assert r.status_code == 200, r.text
    return sum(
        sample.value
        for family in text_string_to_metric_families(r.text)
        for sample in family.samples
        if sample.name == "lawspeaker_requests_total" and set(labels.items()) <= set(sample.labels.items())
    )


def test_calls_are_counted_as_grpc_web(client: httpx.Client, web_servers: Servers) -> None:
    labels = {"transport": "grpc-web", "service": "RulesService", "method": "NewGame"}
    before = requests_counted(web_servers.base_url, **labels, code="NOT_FOUND")
    answered = requests_counted(web_servers.base_url, **labels, code="OK")
    call(client, f"{RULES}/NewGame", framed(pb.NewGameRequest(game="nope", players=2).SerializeToString()))
    unary(client, f"{RULES}/NewGame", pb.NewGameRequest(game="valhalla", players=2), pb.NewGameResponse)
    assert requests_counted(web_servers.base_url, **labels, code="NOT_FOUND") == before + 1
    assert requests_counted(web_servers.base_url, **labels, code="OK") == answered + 1


# --------------------------------------------------------------------------- reflection v1


def test_reflection_v1_lists_and_describes_the_services(web_servers: Servers) -> None:
    """A reflection v1 client (the v1 messages have v1alpha's fields and numbers: the same bytes)."""
    with grpc.insecure_channel(f"127.0.0.1:{web_servers.grpc_port}") as channel:
        info = channel.stream_stream(
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )
        asks = [
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol="lawspeaker.v1.SessionService"),
            reflection_pb2.ServerReflectionRequest(
                file_containing_symbol="grpc.reflection.v1.ServerReflection"
            ),
        ]
        listed, session, itself = list(info(iter(asks), timeout=10))
    names = {s.name for s in listed.list_services_response.service}
    assert names == {
        "lawspeaker.v1.RulesService",
        "lawspeaker.v1.SessionService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
    }
    files = [
        descriptor_pb2.FileDescriptorProto.FromString(f)
        for f in session.file_descriptor_response.file_descriptor_proto
    ]
    assert any(any(s.name == "SessionService" for s in f.service) for f in files)
    [v1] = [
        descriptor_pb2.FileDescriptorProto.FromString(f)
        for f in itself.file_descriptor_response.file_descriptor_proto
    ]
    assert v1.name == "grpc/reflection/v1/reflection.proto" and v1.package == "grpc.reflection.v1"
    method = v1.service[0].method[0]
    assert (method.input_type, method.output_type) == (
        ".grpc.reflection.v1.ServerReflectionRequest",
        ".grpc.reflection.v1.ServerReflectionResponse",
    )


# --------------------------------------------------------------------------- buf curl


@pytest.fixture(scope="module")
def buf() -> str:
    """The buf CLI (npm @bufbuild/buf): $BUF, the TypeScript client's, .ci/run's, else installed
    into .ci/run's tools directory with npm (once; seconds)."""
    tools = Path(os.environ.get("TMPDIR", "/tmp")) / "lawspeaker-ci-tools"
    for found in (
        os.environ.get("BUF"),
        ROOT / "clients" / "typescript" / "node_modules" / ".bin" / "buf",
        tools / "node_modules" / ".bin" / "buf",
        shutil.which("buf"),
    ):
        if found and Path(found).is_file():
            return str(found)
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("needs the buf CLI, or npm to install it")
    tools.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [npm, "install", "--silent", "--prefix", str(tools), "@bufbuild/buf@1"], check=True, timeout=300
    )
    return str(tools / "node_modules" / ".bin" / "buf")


def buf_curl(buf: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([buf, "curl", *args], capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_buf_curl_over_grpc_web(buf: str, web_servers: Servers) -> None:
    """buf's gRPC-Web client (connect-go's) against the HTTP port: an answer, then a refusal with
    its ErrorInfo, and a server stream. About a second: buf compiles the schema from proto/."""
    url = web_servers.base_url
    done = buf_curl(
        buf,
        "--protocol",
        "grpcweb",
        "--schema",
        "proto",
        "-d",
        '{"game": "valhalla", "players": 2, "seed": 3}',
        f"{url}/lawspeaker.v1.RulesService/NewGame",
    )
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout)["state"]
    assert "valhalla" in state
    move = {"valhalla": {"moveShip": {"ship": 6, "to": 13}}}
    done = buf_curl(
        buf,
        "--protocol",
        "grpcweb",
        "--schema",
        "proto",
        "-d",
        json.dumps({"game": "valhalla", "state": state, "move": move}),
        f"{url}/lawspeaker.v1.RulesService/ApplyMove",
    )
    assert done.returncode != 0
    error = json.loads(done.stderr)
    assert error["code"] == "failed_precondition"
    [info] = [d for d in error["details"] if d["type"] == "google.rpc.ErrorInfo"]
    value = info["value"]
    reason = error_details_pb2.ErrorInfo.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))
    with grpc.insecure_channel(f"127.0.0.1:{web_servers.grpc_port}") as channel:
        request = json_format.ParseDict(
            {"game": "valhalla", "state": state, "move": move}, pb.ValidateMoveRequest()
        )
        verdict = rules_service_pb2_grpc.RulesServiceStub(channel).ValidateMove(request)
    assert reason.domain == "lawspeaker.dev" and reason.reason == verdict.violation.reason != ""
    done = buf_curl(
        buf,
        "--protocol",
        "grpcweb",
        "--schema",
        "proto",
        "-d",
        '{"session": "valhalla.nope"}',
        f"{url}/lawspeaker.v1.SessionService/WatchSession",
    )
    assert done.returncode != 0 and json.loads(done.stderr)["code"] == "not_found"


def test_buf_curl_with_reflection_v1(buf: str, web_servers: Servers) -> None:
    """``buf curl --reflect-protocol grpc-v1`` needs reflection v1 (v1alpha alone: unimplemented)."""
    done = buf_curl(
        buf,
        "--reflect-protocol",
        "grpc-v1",
        "--protocol",
        "grpc",
        "--http2-prior-knowledge",
        f"http://127.0.0.1:{web_servers.grpc_port}/lawspeaker.v1.RulesService/ListGames",
    )
    assert done.returncode == 0, done.stderr
    assert "valhalla" in {g["id"] for g in json.loads(done.stdout)["games"]}


def api_md_grpc_web_commands() -> list[tuple[str, list[str]]]:
    """Each command of docs/api.md's "gRPC-Web, and reflection v1" ```sh block with the output its
    ``# `` lines right after it say."""
    text = (ROOT / "docs" / "api.md").read_text()
    section = text.split("\n## gRPC-Web, and reflection v1\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "docs/api.md's gRPC-Web section has no ```sh block"
    commands: list[tuple[str, list[str]]] = []
    for line in block.group(1).splitlines():
        if line.startswith("# "):
            assert commands, "the block opens with a comment, not a command"
            commands[-1][1].append(line[2:])
        elif line.strip():
            commands.append((line, []))
    return commands


@pytest.mark.skipif(shutil.which("jq") is None, reason="needs jq")
def test_the_api_md_buf_curl_examples_run_verbatim(buf: str, web_servers: Servers) -> None:
    """docs/api.md's commands, run from the repository's root with buf on the PATH and the servers'
    ports for the default ones; each prints what the page says. About 2 s (three buf runs)."""
    commands = api_md_grpc_web_commands()
    assert len(commands) == 3 and all(c.startswith("buf curl ") for c, _ in commands)
    assert any("--protocol grpcweb" in c for c, _ in commands)
    assert any("--reflect-protocol grpc-v1" in c for c, _ in commands)
    env = dict(os.environ, PATH=f"{Path(buf).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    for command, expected in commands:
        ran = command.replace("localhost:8080", f"127.0.0.1:{web_servers.http_port}").replace(
            "localhost:50051", f"127.0.0.1:{web_servers.grpc_port}"
        )
        assert ran != command, "each command names a default port"
        done = subprocess.run(
            ["bash", "-c", ran], capture_output=True, text=True, timeout=60, cwd=ROOT, env=env
        )
        assert [line.rstrip("\r") for line in done.stdout.splitlines()] == expected, (command, done.stderr)
