"""Hostile input on every transport of a real ``lawspeaker serve`` process.

Random bytes and mutated valid requests go to every method of RulesService and SessionService
(WatchSession included) over gRPC, REST (JSON and binary bodies, path and query), Connect unary
(JSON and binary), Connect's GET form and Connect's server-stream protocol. Every answer must be a
success or a client error: never gRPC UNKNOWN or INTERNAL, never HTTP 500. Bytes that are not the
request message are INVALID_ARGUMENT with the ErrorInfo reason MALFORMED_PROTOBUF everywhere. No
status message, problem document, Connect error or error detail carries a Python class name, a
module or file path or a traceback, and the server logs nothing for any of it (it logs one access
line per call, on every transport, when access logging is on).

JSON nested 1,000 and 100,000 levels deep (objects and arrays) is refused with 400 /
invalid_argument and the reason JSON_TOO_DEEP naming the limit, on every JSON entry point.
"""

from __future__ import annotations

import base64
import copy
import gzip
import json
import os
import random
import re
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import grpc
import httpx
import pytest
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from lawspeaker.api.rules import RulesApi
from lawspeaker.http.routes import RPCS, SESSION_RPCS, Rpc
from lawspeaker.v1 import game_pb2, valhalla_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import session_service_pb2 as spb

pytestmark = pytest.mark.transport

GAME = "valhalla"
CAST = game_pb2.Move(valhalla=valhalla_pb2.ValhallaMove(cast=valhalla_pb2.ValhallaCast()))
PROTOBUF = "application/x-protobuf"
CONNECT_JSON = {"content-type": "application/json", "connect-protocol-version": "1"}
CONNECT_PROTO = {"content-type": "application/proto", "connect-protocol-version": "1"}
STREAM_TYPES = {"json": "application/connect+json", "proto": "application/connect+proto"}
END_STREAM = 0x02
ALL_RPCS: tuple[Rpc, ...] = (*RPCS, *SESSION_RPCS)
CASES_PER_KIND = 8  # random, and mutated valid, requests per method, transport and codec

# A client's answer, whatever the input: success or a client error.
GRPC_ALLOWED = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}
HTTP_ALLOWED = {200, 400, 401, 403, 404, 405, 409, 412, 413, 428, 429}
CONNECT_ALLOWED = {
    "invalid_argument",
    "not_found",
    "failed_precondition",
    "aborted",
    "permission_denied",
    "unauthenticated",
    "resource_exhausted",
}

# What must never reach a client: Python's own words for its internals.
_LEAKS = re.compile(
    r"<class|<module|Traceback|File \"|\.pyx?\b|site-packages|/work/|/usr/|\bat 0x[0-9a-f]+"
    r"|\b[A-Z]\w*(?:Error|Exception)\b|object is not|object has no|has no len|unhashable"
    r"|bytes-like|NoneType|\w+\(\) argument|invalid literal for|unsupported operand"
    r"|'(?:int|float|str|bool|dict|list|tuple|bytes)'"
)
_DOTTED = re.compile(
    r"\b(?:lawspeaker|google|grpc|msgspec|litestar|uvicorn|asyncio|builtins)(?:\.[a-z_]\w*)+"
)
_DOTTED_OK = {"lawspeaker.v1", "lawspeaker.dev", "google.protobuf", "google.rpc"}  # proto packages, domain


def assert_clean(text: str, where: str) -> None:
    """No class name, module or file path, or traceback in what a client reads."""
    leak = _LEAKS.search(text)
    assert leak is None, f"{where}: {leak.group(0)!r} leaks in {text[:300]!r}"
    for dotted in _DOTTED.findall(text):
        assert dotted in _DOTTED_OK, f"{where}: module path {dotted!r} leaks in {text[:300]!r}"


def details_text(status: status_pb2.Status) -> str:
    """The message and every string of the ErrorInfo and BadRequest details of a status."""
    parts = [status.message]
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(info):
            parts += [info.reason, *info.metadata.keys(), *info.metadata.values()]
        elif detail.Unpack(bad):
            parts += [p for v in bad.field_violations for p in (v.field, v.description)]
    return "\n".join(parts)


def reason_of(status: status_pb2.Status) -> str:
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return str(info.reason)
    return ""


def decodes(cls: type[Message], data: bytes) -> bool:
    try:
        cls.FromString(data)
    except DecodeError:
        return False
    return True


def valid_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------- the server


@dataclass
class Served:
    proc: subprocess.Popen[bytes]
    grpc_port: int
    http_port: int
    logs: tuple[Path, Path]  # its stdout (the line naming its ports) and stderr (its log)
    requests: dict[str, Message] = field(default_factory=dict)  # a valid request per method
    token: str = ""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def log_size(self) -> tuple[int, int]:
        out, err = self.logs
        return out.stat().st_size, err.stat().st_size

    def log_since(self, offsets: tuple[int, int]) -> str:
        """What the server wrote, on stdout then on stderr, since ``offsets``."""
        time.sleep(0.2)  # let a late line land
        text = ""
        for path, offset in zip(self.logs, offsets, strict=True):
            with path.open("rb") as f:
                f.seek(offset)
                text += f.read().decode(errors="replace")
        return text


SERVE = (
    sys.executable,
    "-m",
    "lawspeaker",
    "serve",
    "--host",
    "127.0.0.1",
    "--grpc-port",
    "0",
    "--http-port",
    "0",
)


def serve(workdir: Path, *flags: str) -> Served:
    """``lawspeaker serve`` on free loopback ports, its stdout and stderr in files."""
    logs = workdir / "stdout.log", workdir / "stderr.log"
    with logs[0].open("wb") as out, logs[1].open("wb") as err:
        proc = subprocess.Popen([*SERVE, *flags], stdout=out, stderr=err, env=dict(os.environ))
    deadline = time.time() + 30
    while time.time() < deadline:
        found = re.search(rb"grpc_port=(\d+) http_port=(\d+)\n", logs[0].read_bytes())
        if found:
            return Served(proc, int(found.group(1)), int(found.group(2)), logs)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    pytest.fail(f"lawspeaker serve did not report its ports: {logs[1].read_text()[-2000:]}")


def stop(served: Served) -> None:
    served.proc.terminate()
    try:
        served.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        served.proc.kill()
        served.proc.wait()


def create_session(http: httpx.Client) -> spb.CreateSessionResponse:
    r = http.post("/v1/sessions", json={"game": GAME, "players": 2, "seed": "7"})
    assert r.status_code == 200, r.text
    return json_format.Parse(r.text, spb.CreateSessionResponse(), ignore_unknown_fields=True)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    running = serve(tmp_path_factory.mktemp("serve"))
    try:
        with httpx.Client(base_url=running.base_url, timeout=30) as http:
            played = create_session(http)
            doomed = create_session(http)  # the one DeleteSession is fuzzed on
        sid, etag = played.session.session, played.session.etag
        running.token = played.seat_tokens[0].token
        state = RulesApi().new_game(pb.NewGameRequest(game=GAME, players=2, seed=7)).state
        running.requests = {
            "ListGames": pb.ListGamesRequest(),
            "DescribeGame": pb.DescribeGameRequest(game=GAME),
            "NewGame": pb.NewGameRequest(game=GAME, players=2, seed=7),
            "LegalMoves": pb.LegalMovesRequest(game=GAME, state=state),
            "ValidateMove": pb.ValidateMoveRequest(game=GAME, state=state, move=CAST),
            "ApplyMove": pb.ApplyMoveRequest(game=GAME, state=state, move=CAST),
            "SuggestMove": pb.SuggestMoveRequest(game=GAME, state=state, level=game_pb2.BOT_LEVEL_GREEDY),
            "CreateSession": spb.CreateSessionRequest(game=GAME, players=2, seed=7),
            "GetSession": spb.GetSessionRequest(session=sid),
            "ListSessionMoves": spb.ListSessionMovesRequest(session=sid, page_size=5),
            "SessionLegalMoves": spb.SessionLegalMovesRequest(session=sid),
            "SessionValidateMove": spb.SessionValidateMoveRequest(session=sid, move=CAST),
            "SessionApplyMove": spb.SessionApplyMoveRequest(session=sid, move=CAST, etag=etag),
            "UndoMove": spb.UndoMoveRequest(session=sid, etag=etag),
            "DeleteSession": spb.DeleteSessionRequest(session=doomed.session.session),
            "WatchSession": spb.WatchSessionRequest(session=sid),
            "CreateWatchTicket": spb.CreateWatchTicketRequest(session=sid),
            # on a version long gone: refused (ABORTED), so the session stays in play for the others
            "ResignSeat": spb.ResignSeatRequest(session=sid, etag="999999"),
            "ListSessions": spb.ListSessionsRequest(game=GAME, page_size=5),
            # refused without changing the session: no seat of it is open, the seat token is no host's,
            # the game is not over
            "ClaimSeat": spb.ClaimSeatRequest(session=sid, display_name="Ulf"),
            "ManageSeat": spb.ManageSeatRequest(session=sid, seat=1, action=spb.SEAT_ACTION_CLOSE),
            "Rematch": spb.RematchRequest(session=sid),
        }
        assert set(running.requests) == {r.name for r in ALL_RPCS}, "a method has no valid request here"
        yield running
    finally:
        stop(running)


@pytest.fixture(scope="module")
def http(served: Served) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.base_url, timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def channel(served: Served) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(f"127.0.0.1:{served.grpc_port}") as ch:
        yield ch


@pytest.fixture()
def no_log_lines(served: Served) -> Iterator[None]:
    """The test's requests are clients' mistakes: the server must log nothing for them."""
    offset = served.log_size()
    yield
    logged = served.log_since(offset)
    assert logged == "", f"the server logged for clients' mistakes:\n{logged[:3000]}"


# --------------------------------------------------------------------------- hostile inputs

_JUNK_VALUES: list[Any] = [
    None, True, False, 0, -1, 1.5, 2**70, "", "x", "NaN", "1e5", "-", "\u2603", [], {}, [1], [[]],
    {"a": 1}, [None], [{}], {"valhalla": {}}, "VALHALLA_PHASE_X",
]  # fmt: skip
_TEXT = "azAZ09-_.~:/?#[]@!$&'()*+,;=%\"\\{}<> \t\n\u00e9\u2603\U0001f600"


def random_bytes(rng: random.Random) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.choice((1, 2, 3, 7, 20, 64, 300))))


def random_text(rng: random.Random) -> str:
    return "".join(rng.choice(_TEXT) for _ in range(rng.choice((1, 3, 10, 40))))


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """A valid binary request with bytes flipped, cut short, or junk inserted or appended."""
    out = bytearray(data or b"\x00")
    kind = rng.randrange(4)
    if kind == 0:
        for _ in range(rng.randint(1, 4)):
            out[rng.randrange(len(out))] = rng.randrange(256)
    elif kind == 1:
        del out[rng.randrange(len(out)) :]
    elif kind == 2:
        at = rng.randrange(len(out) + 1)
        out[at:at] = random_bytes(rng)
    else:
        out += bytes(rng.randrange(256) for _ in range(rng.randint(1, 6)))
    return bytes(out)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from _paths(item, (*path, key))


def mutate_json(rng: random.Random, msg: Message) -> bytes:
    """A valid JSON request with a value swapped for one of another kind, a key renamed or dropped,
    a value wrapped, or the text cut short or spliced with junk."""
    data = json_format.MessageToDict(msg)
    kind = rng.randrange(6)
    if kind >= 4:
        text = json.dumps(data)
        at = rng.randrange(len(text) + 1)
        return (text[:at] if kind == 4 else text[:at] + random_text(rng) + text[at:]).encode()
    path = rng.choice([p for p in _paths(data) if p] or [()])
    if not path:
        return json.dumps(rng.choice(_JUNK_VALUES)).encode()
    data = copy.deepcopy(data)
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if kind == 0:
        parent[last] = rng.choice(_JUNK_VALUES)
    elif kind == 1 and isinstance(parent, dict):
        value = parent.pop(last)
        if rng.random() < 0.5:
            parent[last + rng.choice(("_", "X", "s", "\u00e9"))] = value
    else:
        parent[last] = [parent[last]] if rng.random() < 0.5 else {"value": parent[last]}
    return json.dumps(data).encode()


def hostile_binary(rng: random.Random, msg: Message) -> Iterator[bytes]:
    """Random bytes (the issue's own example first), then mutated valid requests."""
    yield b"\xff\xff\xff"
    for _ in range(CASES_PER_KIND):
        yield random_bytes(rng)
    valid = msg.SerializeToString()
    for _ in range(CASES_PER_KIND):
        yield mutate_bytes(rng, valid)


def hostile_json(rng: random.Random, msg: Message) -> Iterator[bytes]:
    for _ in range(CASES_PER_KIND // 2):
        yield random_bytes(rng)
    for _ in range(CASES_PER_KIND // 2):
        yield random_text(rng).encode()
    for _ in range(CASES_PER_KIND):
        yield mutate_json(rng, msg)


def request_type(rpc: Rpc) -> type[Message]:
    return rpc.request_type


def auth(rpc: Rpc, token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"} if rpc.service.name == "SessionService" else {}


def ids(rpcs: tuple[Rpc, ...]) -> list[str]:
    return [r.name for r in rpcs]


# --------------------------------------------------------------------------- gRPC


def grpc_call(
    channel: grpc.Channel, rpc: Rpc, data: bytes, token: str
) -> tuple[grpc.StatusCode, str, status_pb2.Status | None]:
    """The code, status message and rich status of a call of raw ``data`` (a stream: its first
    message, then cancelled)."""
    path = f"/{rpc.service.full_name}/{rpc.name}"
    metadata = tuple(auth(rpc, token).items())

    def same(b: bytes) -> bytes:
        return b

    try:
        if rpc.streaming:
            call: Any = channel.unary_stream(path, request_serializer=same, response_deserializer=same)(
                data, metadata=metadata, timeout=20
            )
            next(call, None)
            call.cancel()
        else:
            channel.unary_unary(path, request_serializer=same, response_deserializer=same)(
                data, metadata=metadata, timeout=20
            )
    except grpc.RpcError as err:
        call_err: Any = err
        return call_err.code(), call_err.details() or "", rpc_status.from_call(call_err)
    return grpc.StatusCode.OK, "", None


@pytest.mark.parametrize("rpc", ALL_RPCS, ids=ids(ALL_RPCS))
def test_grpc_answers_hostile_bytes_with_client_errors(
    served: Served, channel: grpc.Channel, rpc: Rpc, no_log_lines: None
) -> None:
    rng = random.Random(f"grpc {rpc.name}")
    for data in hostile_binary(rng, served.requests[rpc.name]):
        where = f"gRPC {rpc.name} {data[:40]!r}"
        code, message, status = grpc_call(channel, rpc, data, served.token)
        assert code in GRPC_ALLOWED, f"{where}: {code.name} {message!r}"
        assert_clean(message, where)
        if status is not None:
            assert_clean(details_text(status), where)
        if not decodes(request_type(rpc), data):
            assert code == grpc.StatusCode.INVALID_ARGUMENT, f"{where}: {code.name} {message!r}"
            assert status is not None and reason_of(status) == "MALFORMED_PROTOBUF", where


# --------------------------------------------------------------------------- REST


def rest_url(rpc: Rpc, values: dict[str, str]) -> str:
    url = rpc.template
    for name in rpc.path_params:
        url = url.replace(f"{{{name}}}", quote(values[name], safe=""))
    return url


def problem_of(r: httpx.Response, where: str) -> dict[str, Any]:
    assert r.status_code in HTTP_ALLOWED, f"{where}: {r.status_code} {r.text[:300]}"
    assert_clean(r.text, where)
    if r.status_code == 200:
        return {}
    assert r.headers["content-type"].startswith("application/problem+json"), where
    doc: dict[str, Any] = r.json()
    return doc


def rest_send(
    http: httpx.Client,
    rpc: Rpc,
    url: str,
    token: str,
    body: bytes | None = None,
    content_type: str = "",
    query: dict[str, str] | None = None,
) -> httpx.Response:
    headers = auth(rpc, token)
    if content_type:
        headers["content-type"] = content_type
    if rpc.streaming:  # Server-Sent Events: the status and headers tell; the stream is left
        with http.stream(rpc.http_method, url, headers=headers, params=query) as r:
            if r.status_code != 200:
                r.read()
            return r
    return http.request(rpc.http_method, url, content=body, headers=headers, params=query)


BODY_RPCS = tuple(r for r in ALL_RPCS if r.body)
BODYLESS_RPCS = tuple(r for r in ALL_RPCS if not r.body)


@pytest.mark.parametrize("rpc", BODY_RPCS, ids=ids(BODY_RPCS))
def test_rest_answers_hostile_bodies_with_client_errors(
    served: Served, http: httpx.Client, rpc: Rpc, no_log_lines: None
) -> None:
    rng = random.Random(f"rest {rpc.name}")
    msg = served.requests[rpc.name]
    url = rest_url(rpc, {name: getattr(msg, name) for name in rpc.path_params})
    cases = [(d, PROTOBUF) for d in hostile_binary(rng, msg)]
    cases += [(d, "application/json") for d in hostile_json(rng, msg)]
    cases += [(d, "") for d in hostile_json(rng, msg)]  # no Content-Type: JSON
    for body, content_type in cases:
        where = f"REST {rpc.name} {content_type or 'no content type'} {body[:40]!r}"
        doc = problem_of(rest_send(http, rpc, url, served.token, body, content_type), where)
        if content_type == PROTOBUF and not decodes(request_type(rpc), body):
            assert doc.get("reason") == "MALFORMED_PROTOBUF", f"{where}: {doc}"
        elif content_type != PROTOBUF and body.strip() and not valid_json(body):
            assert doc.get("reason") == "MALFORMED_JSON", f"{where}: {doc}"


@pytest.mark.parametrize("rpc", BODYLESS_RPCS, ids=ids(BODYLESS_RPCS))
def test_rest_answers_hostile_paths_and_queries_with_client_errors(
    served: Served, http: httpx.Client, rpc: Rpc, no_log_lines: None
) -> None:
    rng = random.Random(f"rest path {rpc.name}")
    msg = served.requests[rpc.name]
    valid = {name: str(getattr(msg, name)) for name in rpc.path_params}
    for _ in range(2 * CASES_PER_KIND):
        values = {
            k: (random_text(rng) if rng.random() < 0.5 else v + random_text(rng)) for k, v in valid.items()
        }
        query = {name: random_text(rng) for name in rpc.query_params}
        url = rest_url(rpc, values)
        where = f"REST {rpc.http_method} {url} {query}"
        problem_of(rest_send(http, rpc, url, served.token, query=query), where)


# --------------------------------------------------------------------------- Connect


def connect_error(r: httpx.Response, where: str) -> tuple[str, str]:
    """The code and ErrorInfo reason of a Connect error (after checking every word is clean)."""
    assert r.status_code != 500, f"{where}: {r.text[:300]}"
    body: dict[str, Any] = r.json()
    return error_body(body, where)


def error_body(body: dict[str, Any], where: str) -> tuple[str, str]:
    code = body.get("code", "")
    assert code in CONNECT_ALLOWED, f"{where}: {body}"
    status = status_pb2.Status(message=body.get("message", ""))
    for detail in body.get("details", ()):
        value = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
        status.details.add(type_url=f"type.googleapis.com/{detail['type']}", value=value)
    assert_clean(details_text(status), where)
    return code, reason_of(status)


UNARY_RPCS = tuple(r for r in ALL_RPCS if not r.streaming)
GET_RPCS = tuple(r for r in UNARY_RPCS if r.method.GetOptions().idempotency_level == 1)  # NO_SIDE_EFFECTS


def connect_path(rpc: Rpc) -> str:
    return f"/{rpc.service.full_name}/{rpc.name}"


@pytest.mark.parametrize("rpc", UNARY_RPCS, ids=ids(UNARY_RPCS))
def test_connect_answers_hostile_bodies_with_client_errors(
    served: Served, http: httpx.Client, rpc: Rpc, no_log_lines: None
) -> None:
    rng = random.Random(f"connect {rpc.name}")
    msg = served.requests[rpc.name]
    cases = [(d, CONNECT_PROTO) for d in hostile_binary(rng, msg)]
    cases += [(d, CONNECT_JSON) for d in hostile_json(rng, msg)]
    gzipped = {**CONNECT_JSON, "content-encoding": "gzip"}  # a corrupt or truncated gzip body
    valid_gzip = gzip.compress(json_format.MessageToJson(msg).encode())
    cases += [(rng.choice((random_bytes(rng), mutate_bytes(rng, valid_gzip))), gzipped) for _ in range(4)]
    for body, headers in cases:
        where = f"Connect {rpc.name} {headers['content-type']} {body[:40]!r}"
        r = http.post(connect_path(rpc), content=body, headers={**headers, **auth(rpc, served.token)})
        if r.status_code == 200:
            continue
        code, reason = connect_error(r, where)
        if headers is CONNECT_PROTO and not decodes(request_type(rpc), body):
            assert (code, reason) == ("invalid_argument", "MALFORMED_PROTOBUF"), where
        elif headers is CONNECT_JSON and body.strip() and not valid_json(body):
            assert (code, reason) == ("invalid_argument", "MALFORMED_JSON"), where


@pytest.mark.parametrize("rpc", GET_RPCS, ids=ids(GET_RPCS))
def test_connect_get_answers_hostile_messages_with_client_errors(
    served: Served, http: httpx.Client, rpc: Rpc, no_log_lines: None
) -> None:
    rng = random.Random(f"connect get {rpc.name}")
    msg = served.requests[rpc.name]
    cases: list[dict[str, str]] = []
    for data in hostile_binary(rng, msg):
        cases.append({"encoding": "proto", "base64": "1", "message": base64.urlsafe_b64encode(data).decode()})
    for data in hostile_json(rng, msg):
        cases.append({"encoding": "json", "message": data.decode("utf-8", "replace")})
    for _ in range(CASES_PER_KIND):
        cases.append({"encoding": rng.choice(("json", "proto")), "base64": "1", "message": random_text(rng)})
        junk = base64.urlsafe_b64encode(random_bytes(rng)).decode()
        cases.append({"encoding": "json", "base64": "1", "compression": "gzip", "message": junk})
    for query in cases:
        where = f"Connect GET {rpc.name} {query}"
        r = http.get(connect_path(rpc), params=query, headers=auth(rpc, served.token))
        if r.status_code == 200:
            continue
        code, reason = connect_error(r, where)
        if query["encoding"] == "proto" and "base64" in query:
            try:
                data = base64.urlsafe_b64decode(query["message"] + "=" * (-len(query["message"]) % 4))
            except ValueError:
                continue
            if not decodes(request_type(rpc), data):
                assert (code, reason) == ("invalid_argument", "MALFORMED_PROTOBUF"), where


def envelope(data: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(data)) + data


def stream_end(http: httpx.Client, rpc: Rpc, body: bytes, codec: str, token: str) -> dict[str, Any] | None:
    """The end-of-stream message of a Connect server-stream call, or None once it streams a
    message (a valid request: the stream is then left)."""
    headers = {"content-type": STREAM_TYPES[codec], "connect-protocol-version": "1", **auth(rpc, token)}
    with http.stream("POST", connect_path(rpc), content=body, headers=headers) as r:
        if r.status_code != 200:
            r.read()
            assert r.status_code != 500, r.text
            return {"error": r.json()}
        buffer = b""
        for chunk in r.iter_bytes():
            buffer += chunk
            while len(buffer) >= 5:
                flags, size = struct.unpack(">BI", buffer[:5])
                if len(buffer) < 5 + size:
                    break
                if not flags & END_STREAM:
                    return None
                end: dict[str, Any] = json.loads(buffer[5 : 5 + size])
                return end
    raise AssertionError("the stream ended without an end-of-stream message")


STREAM_RPCS = tuple(r for r in ALL_RPCS if r.streaming)


@pytest.mark.parametrize("rpc", STREAM_RPCS, ids=ids(STREAM_RPCS))
def test_connect_stream_answers_hostile_envelopes_with_client_errors(
    served: Served, http: httpx.Client, rpc: Rpc, no_log_lines: None
) -> None:
    rng = random.Random(f"connect stream {rpc.name}")
    msg = served.requests[rpc.name]
    cases: list[tuple[bytes, str, bytes | None]] = [
        (envelope(d), "proto", d) for d in hostile_binary(rng, msg)
    ]
    cases += [(envelope(d), "json", d) for d in hostile_json(rng, msg)]
    cases += [(random_bytes(rng), rng.choice(("json", "proto")), None) for _ in range(CASES_PER_KIND)]
    for body, codec, data in cases:
        where = f"Connect stream {rpc.name} {codec} {body[:40]!r}"
        end = stream_end(http, rpc, body, codec, served.token)
        if end is None or "error" not in end:
            continue
        code, reason = error_body(end["error"], where)
        if codec == "proto" and data is not None and not decodes(request_type(rpc), data):
            assert (code, reason) == ("invalid_argument", "MALFORMED_PROTOBUF"), where


# --------------------------------------------------------------------------- deeply nested JSON

DEPTHS = (1000, 100_000)


def deep(shape: str, depth: int) -> str:
    if shape == "objects":
        return '{"a":' * depth + "1" + "}" * depth
    return "[" * depth + "]" * depth


@dataclass(frozen=True)
class Entry:
    """One JSON entry point: how to send a body to it and read (status, code, reason, message)."""

    name: str
    field: str  # the request field the nested value is sent as
    send: Callable[[httpx.Client, Served, bytes], tuple[int, str, str, str, dict[str, str]]]


def _rest(path: str, session: bool = False) -> Callable[..., tuple[int, str, str, str, dict[str, str]]]:
    def send(http: httpx.Client, served: Served, body: bytes) -> tuple[int, str, str, str, dict[str, str]]:
        url = path.format(session=getattr(served.requests["GetSession"], "session"))  # noqa: B009
        headers = {"content-type": "application/json"}
        if session:
            headers["authorization"] = f"Bearer {served.token}"
        r = http.post(url, content=body, headers=headers)
        doc = problem_of(r, f"REST {url}")
        return (
            r.status_code,
            doc.get("code", ""),
            doc.get("reason", ""),
            doc.get("detail", ""),
            doc.get("metadata", {}),
        )

    return send


def _connect_result(r: httpx.Response, where: str) -> tuple[int, str, str, str, dict[str, str]]:
    assert r.status_code != 500, f"{where}: {r.text[:300]}"
    body = r.json()
    return (r.status_code, *_connect_fields(body, where))


def _connect_fields(body: dict[str, Any], where: str) -> tuple[str, str, str, dict[str, str]]:
    code, reason = error_body(body, where)
    metadata: dict[str, str] = {}
    for detail in body.get("details", ()):
        if detail["type"] == "google.rpc.ErrorInfo":
            info = error_details_pb2.ErrorInfo.FromString(
                base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
            )
            metadata = dict(info.metadata)
    return code, reason, body.get("message", ""), metadata


def _connect(method: str, session: bool = False) -> Callable[..., tuple[int, str, str, str, dict[str, str]]]:
    def send(http: httpx.Client, served: Served, body: bytes) -> tuple[int, str, str, str, dict[str, str]]:
        headers = dict(CONNECT_JSON)
        if session:
            headers["authorization"] = f"Bearer {served.token}"
        return _connect_result(http.post(f"/lawspeaker.v1.{method}", content=body, headers=headers), method)

    return send


def _connect_get(
    http: httpx.Client, served: Served, body: bytes
) -> tuple[int, str, str, str, dict[str, str]]:
    if len(body) > 8000:  # a long URL: sent compressed, as Connect's GET form allows
        query = {
            "encoding": "json",
            "compression": "gzip",
            "base64": "1",
            "message": base64.urlsafe_b64encode(gzip.compress(body)).decode(),
        }
    else:
        query = {"encoding": "json", "message": body.decode()}
    r = http.get("/lawspeaker.v1.RulesService/LegalMoves", params=query)
    return _connect_result(r, "Connect GET LegalMoves")


def _connect_stream(
    http: httpx.Client, served: Served, body: bytes
) -> tuple[int, str, str, str, dict[str, str]]:
    rpc = next(r for r in STREAM_RPCS if r.name == "WatchSession")
    end = stream_end(http, rpc, envelope(body), "json", served.token)
    assert end is not None and "error" in end, f"WatchSession streamed for a refused request: {end}"
    return (200, *_connect_fields(end["error"], "Connect stream WatchSession"))


ENTRIES = (
    Entry("rest-rules", "state", _rest("/v1/games/valhalla:legalMoves")),
    Entry("rest-create-session", "options", _rest("/v1/sessions")),
    Entry("rest-session", "move", _rest("/v1/sessions/{session}:validateMove", session=True)),
    Entry("connect-rules", "move", _connect("RulesService/ApplyMove")),
    Entry("connect-session", "move", _connect("SessionService/SessionValidateMove", session=True)),
    Entry("connect-get", "state", _connect_get),
    Entry("connect-stream", "session", _connect_stream),
)


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("shape", ["objects", "arrays", "bare-array"])
@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_deeply_nested_json_is_refused_naming_the_limit(
    served: Served, http: httpx.Client, entry: Entry, shape: str, depth: int, no_log_lines: None
) -> None:
    if shape == "bare-array":
        body = deep("arrays", depth).encode()
    else:
        body = f'{{"{entry.field}":{deep(shape, depth)}}}'.encode()
    status, code, reason, message, metadata = entry.send(http, served, body)
    expected_status = 200 if entry.name == "connect-stream" else 400  # a stream's error ends it
    assert status == expected_status and code.lower() == "invalid_argument", (status, code, message)
    assert reason == "JSON_TOO_DEEP", (reason, message)
    limit = metadata.get("maxDepth", "")
    assert limit.isdigit() and 8 <= int(limit) < 1000, metadata
    assert f"at most {limit}" in message, message
    levels = re.search(r"(\d+) levels deep", message)
    assert levels is not None and int(levels.group(1)) >= depth, message


# --------------------------------------------------------------------------- logging


def test_with_access_logging_a_bad_request_logs_one_line_at_most(tmp_path: Path) -> None:
    """``--access-log``: one access line per call, bad or not, over gRPC, REST and Connect alike,
    naming the refusal; nothing else (no traceback, no error line)."""
    running = serve(tmp_path, "--access-log")
    try:
        offset = running.log_size()
        rpc = next(r for r in RPCS if r.name == "ListGames")
        with grpc.insecure_channel(f"127.0.0.1:{running.grpc_port}") as channel:
            for data in (b"\xff\xff\xff", b"\x0a\xff", b"\x08"):
                code, _, _ = grpc_call(channel, rpc, data, "")
                assert code == grpc.StatusCode.INVALID_ARGUMENT
        http_requests = [
            ("/v1/games/valhalla:legalMoves", b"\xff\xff\xff", PROTOBUF),
            ("/v1/games/valhalla:legalMoves", b"{not json", "application/json"),
            (
                "/v1/games/valhalla:legalMoves",
                ('{"state":' + deep("arrays", 1000) + "}").encode(),
                "application/json",
            ),
            ("/lawspeaker.v1.RulesService/LegalMoves", b"\xff\xff\xff", "application/proto"),
            ("/lawspeaker.v1.RulesService/LegalMoves", deep("objects", 1000).encode(), "application/json"),
        ]
        with httpx.Client(base_url=running.base_url, timeout=30) as http:
            for path, body, content_type in http_requests:
                r = http.post(path, content=body, headers={"content-type": content_type})
                assert r.status_code == 400, r.text
        logged = running.log_since(offset).splitlines()
    finally:
        stop(running)
    # One access line for each call (INVALID_ARGUMENT, HTTP status 400), and nothing else: no
    # traceback, no error.
    shown = "\n".join(logged)
    assert len(logged) == 3 + len(http_requests), shown
    access = [
        re.search(r" INFO lawspeaker\.access: (\w+) (.*) INVALID_ARGUMENT \(\w+\) in ", line)
        for line in logged
    ]
    assert all(access), shown
    said = [(found[1], found[2]) for found in access if found]
    assert said[:3] == [("grpc", "RulesService/ListGames")] * 3, shown
    assert said[3:] == [
        (
            "rest" if path.startswith("/v1/") else "connect",
            f"POST {path} 400 RulesService/LegalMoves",  # the game is unread: the body is not parsed
        )
        for path, _, _ in http_requests
    ], shown
