"""Every reason in the catalogue, provoked on REST, gRPC and Connect against real servers on loopback.

General reasons (``lawspeaker.api.catalogue.GENERAL``) are provoked by the requests below, each on every
transport the catalogue lists for it; a reason with no provocation here fails the test, unless it is
one of the few in ``ELSEWHERE`` (a refusal nobody can receive, or one that only a hand-written store
record reaches), each naming the test that provokes it. Rule reasons are played from
``reason_examples.json`` (a position and a move from the rule scenarios, recorded by
``record_reason_examples.py``): ValidateMove must answer ``valid: false`` with the reason and its rule
anchor, and ApplyMove must refuse with the same reason, on each transport.

Every link an answer carries is followed on the server that sent it (issue 35): each problem's
``type`` (``<base>/problems/<slug>``) and each ``rule`` (ValidateMove's violation, the error metadata
of REST, gRPC and Connect: ``<base>/rules/<game>#<anchor>``, a path over gRPC, which knows no URL of
the HTTP port without --public-url) must answer 200 with an HTML page holding the anchor's id.
"""

from __future__ import annotations

import base64
import contextlib
import json
import pathlib
import re
import struct
import urllib.parse
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import httpx
import pytest
import redis
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from lawspeaker.api import links
from lawspeaker.api.access import Access, digest
from lawspeaker.api.catalogue import CONNECT, GENERAL, GRPC, REST
from lawspeaker.api.rules import RulesApi
from lawspeaker.http.routes import RPCS, SESSION_RPCS, Rpc
from lawspeaker.sessions.service import Limits, SessionApi
from lawspeaker.sessions.store import MemoryStore, RedisStore
from lawspeaker.v1 import game_pb2, rules_service_pb2, session_service_pb2
from lawspeaker.wire import inbound
from lawspeaker.wire.registry import REGISTRY

from .conftest import Servers, run_servers

pytestmark = pytest.mark.transport

EXAMPLES = json.loads((pathlib.Path(__file__).parent / "reason_examples.json").read_text())
TRANSPORTS = (REST, GRPC, CONNECT)
BY_NAME: dict[str, Rpc] = {r.name: r for r in (*RPCS, *SESSION_RPCS)}
API_KEY = "lsk_test_key_for_the_catalogue"
REDIS = "redis://127.0.0.1:6379/0"

# Reasons this file cannot provoke, with the test that does.
ELSEWHERE = {
    "WATCH_STREAM_BEHIND": "tests/sessions/test_slow_clients.py (a stream whose reader stops reading)",
    "PHYSICAL_DICE_NO_OUTCOME": "tests/sessions/test_session_api.py::"
    "test_physical_dice_never_let_the_server_draw (only a session record written by hand reaches "
    "it: creation refuses such a session)",
    "CLIENT_DISCONNECTED": "none: the client that went away cannot read the answer",
    "BAD_REQUEST": "none: the fallback for a 4xx Litestar raises itself, which no route of ours does",
    "BOTS_BUSY": "tests/transport/test_suggest_move.py::"
    "test_a_full_bot_queue_answers_bots_busy_with_when_to_retry (a search must be thinking while the "
    "call is made)",
    "BOT_FAILED": "tests/api/test_botpool.py::test_a_worker_killed_while_thinking_answers_bot_failed (a "
    "worker process is killed)",
}


# --------------------------------------------------------------------------- following the links

LINKS: list[str] = []
"""The rules and problem types the answers of the call being made carried (``Env.reason`` follows them)."""
PAGES: dict[str, tuple[int, str, str]] = {}
"""Each page followed: its status, Content-Type and text, fetched once per test process."""


def follow(base: str, link: str, relative: bool = False) -> None:
    """GET a link an answer carried from the server at ``base``: an absolute URL on that server (a path,
    resolved against it, when ``relative``: gRPC's); 200 with an HTML page holding the fragment's id."""
    if relative:
        assert link.startswith("/"), link
    else:
        assert link.startswith(base + "/"), (base, link)
    page, _, anchor = urllib.parse.urljoin(base + "/", link).partition("#")
    if page not in PAGES:
        r = httpx.get(page, timeout=30)
        PAGES[page] = (r.status_code, r.headers.get("content-type", ""), r.text)
    status, media_type, text = PAGES[page]
    assert (status, media_type) == (200, "text/html; charset=utf-8"), (link, status, text[:300])
    if anchor:
        assert f'id="{anchor}"' in text, f"{link}: the page has no id {anchor!r}"


# --------------------------------------------------------------------------- calling each transport


@dataclass
class Call:
    """One RPC as a message, sent alike over every transport."""

    method: str
    request: Message
    token: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Raw:
    """Bytes that are not a well-formed request: REST and Connect take them as the body."""

    method: str
    body: bytes
    content_type: str = "application/json"
    path: dict[str, str] = field(default_factory=dict)


def _rest_path(rpc: Rpc, values: dict[str, str]) -> str:
    path = rpc.template
    for name in rpc.path_params:
        path = path.replace("{" + name + "}", values.get(name, ""))
    return path


PYTHON_WORDS = re.compile(r"Traceback|<class |object is not|invalid literal|NoneType|\bNone\b|\[\]|\{'")


def readable(message: str) -> str:
    """The words of a refusal, checked to be written for people: no doubled period, no Python
    value or error wording, no stray blanks."""
    assert message and message.strip() == message, message
    assert not re.search(r"(?<!\.)\.\.(?!\.)", message), message
    assert not PYTHON_WORDS.search(message), message
    return message


def _reason_of_answer(answer: dict[str, Any]) -> str | None:
    violation = answer.get("violation")
    if not answer.get("valid", False) and isinstance(violation, dict):  # false is left out of JSON
        readable(str(violation.get("message")))
        if violation.get("rule"):
            LINKS.append(str(violation["rule"]))
        return str(violation.get("reason"))
    return None


LOWER_CAMEL = re.compile(r"[a-z][a-zA-Z0-9]*")
"""A key of a problem's metadata (ErrorInfo.metadata): lowerCamelCase, as every JSON name is (AIP-193)."""


def _problem_reason(r: httpx.Response) -> str:
    doc = r.json()
    readable(str(doc["detail"]))
    origin = f"{r.request.url.scheme}://{r.request.url.netloc.decode()}"  # the server's own address
    assert doc["type"] == f"{origin}/problems/{links.slug(doc['reason'])}", doc
    LINKS.append(doc["type"])
    if "rule" in doc.get("metadata", {}):
        LINKS.append(doc["metadata"]["rule"])
    for violation in doc.get("fieldViolations", ()):
        readable(str(violation["description"]))
    for key in doc.get("metadata", {}):
        assert LOWER_CAMEL.fullmatch(key), f"{doc['reason']}: metadata key {key!r} is not lowerCamelCase"
    return str(doc["reason"])


def rest_reason(http: httpx.Client, call: Call | Raw) -> str | None:
    rpc = BY_NAME[call.method]
    if isinstance(call, Raw):
        r = http.request(
            rpc.http_method,
            _rest_path(rpc, call.path),
            content=call.body,
            headers={"content-type": call.content_type},
        )
    else:
        data = json_format.MessageToDict(call.request)
        values = {name: str(getattr(call.request, name)) for name in rpc.path_params}
        for name in rpc.path_params:
            data.pop(name, None)
        headers = dict(call.headers)
        if call.token is not None:
            headers["authorization"] = call.token
        if rpc.streaming:
            params = {k: str(v) for k, v in data.items()}  # e.g. a watch ticket
            with http.stream("GET", _rest_path(rpc, values), params=params, headers=headers) as r:
                if r.status_code != 200:
                    r.read()
                    return _problem_reason(r)
                for line in r.iter_lines():  # the first event is an update; an error event ends it
                    if line.startswith("event: error"):
                        data_line = next(r.iter_lines())
                        return str(json.loads(data_line.removeprefix("data: "))["reason"])
                return None
        kwargs: dict[str, Any] = {"headers": headers}
        if rpc.body == "*" and inbound.json_kind_mismatch(data, rpc.method.input_type, strict=True):
            # a value REST JSON cannot spell (an enum number the enum does not name, which proto3
            # JSON writes as a number): the same request as REST's binary protobuf
            kwargs["content"] = call.request.SerializeToString()
            kwargs["headers"] = {
                **headers,
                "content-type": "application/x-protobuf",
                "accept": "application/json",
            }
        elif rpc.body == "*":
            kwargs["json"] = data
        else:
            kwargs["params"] = {k: str(v) for k, v in data.items()}
        r = http.request(rpc.http_method, _rest_path(rpc, values), **kwargs)
    if r.status_code == 200:
        return _reason_of_answer(r.json())
    return _problem_reason(r)


def _info(status: status_pb2.Status) -> str | None:
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            if "rule" in info.metadata:
                LINKS.append(info.metadata["rule"])
            return str(info.reason)
    return None


def grpc_reason(channel: grpc.Channel, call: Call | Raw) -> str | None:
    rpc = BY_NAME[call.method]
    path = f"/{rpc.service.full_name}/{rpc.name}"
    identity: Callable[[bytes], bytes] = lambda b: b  # noqa: E731
    if isinstance(call, Raw):
        payload, metadata = call.body, ()
    else:
        payload = call.request.SerializeToString()
        metadata = tuple((k.lower(), v) for k, v in call.headers.items())
        if call.token is not None:
            metadata += (("authorization", call.token),)
    try:
        if rpc.streaming:
            stream = channel.unary_stream(path, request_serializer=identity, response_deserializer=identity)
            for _ in stream(payload, metadata=metadata, timeout=60):
                pass
            return None
        answer = channel.unary_unary(path, request_serializer=identity, response_deserializer=identity)(
            payload, metadata=metadata, timeout=60
        )
    except grpc.RpcError as err:
        for key, value in err.trailing_metadata() or ():  # type: ignore[attr-defined]
            if key == "grpc-status-details-bin":
                return _info(status_pb2.Status.FromString(value))
        raise
    response = rpc.module.__dict__[rpc.method.output_type.name].FromString(answer)
    return _reason_of_answer(json_format.MessageToDict(response))


def _connect_info(doc: dict[str, Any]) -> str | None:
    for d in doc.get("details", []):
        if d["type"] == "google.rpc.ErrorInfo":
            raw = d["value"]
            info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4)))
            if "rule" in info.metadata:
                LINKS.append(info.metadata["rule"])
            return str(info.reason)
    return None


def connect_reason(http: httpx.Client, call: Call | Raw) -> str | None:
    rpc = BY_NAME[call.method]
    url = f"/{rpc.service.full_name}/{rpc.name}"
    if isinstance(call, Raw):
        media = "application/proto" if "protobuf" in call.content_type else call.content_type
        r = http.post(url, content=call.body, headers={"content-type": media})
        return _connect_info(r.json()) if r.status_code != 200 else _reason_of_answer(r.json())
    headers = dict(call.headers)
    if call.token is not None:
        headers["authorization"] = call.token
    body = json.dumps(json_format.MessageToDict(call.request)).encode()
    if rpc.streaming:
        headers["content-type"] = "application/connect+json"
        r = http.post(url, content=struct.pack(">BI", 0, len(body)) + body, headers=headers)
        data, at = r.content, 0
        while at < len(data):
            flags, size = struct.unpack(">BI", data[at : at + 5])
            chunk = data[at + 5 : at + 5 + size]
            at += 5 + size
            if flags & 0x02:
                end = json.loads(chunk)
                return _connect_info(end["error"]) if "error" in end else None
        return None
    headers["content-type"] = "application/json"
    r = http.post(url, content=body, headers=headers)
    if r.status_code == 200:
        return _reason_of_answer(r.json())
    return _connect_info(r.json())


class Env:
    """One running server and clients for each transport."""

    def __init__(self, servers: Servers) -> None:
        self.servers = servers
        self.http = httpx.Client(base_url=servers.base_url, timeout=30)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{servers.grpc_port}")

    def reason(self, transport: str, call: Call | Raw) -> str | None:
        """The reason a call is refused for over ``transport``; the links its answer carried are
        followed on this server."""
        start = len(LINKS)
        try:
            if transport == REST:
                return rest_reason(self.http, call)
            if transport == GRPC:
                return grpc_reason(self.channel, call)
            return connect_reason(self.http, call)
        finally:
            carried = LINKS[start:]
            del LINKS[start:]
            for link in carried:
                follow(self.base, link, relative=transport == GRPC)

    @property
    def base(self) -> str:
        return str(self.http.base_url).rstrip("/")

    def ok(self, call: Call) -> Any:
        """An RPC that must succeed (over gRPC), for the steps before a provocation."""
        rpc = BY_NAME[call.method]
        out_type = rpc.module.__dict__[rpc.method.output_type.name]
        metadata = (("authorization", call.token),) if call.token else ()
        metadata += tuple((k.lower(), v) for k, v in call.headers.items())
        path = f"/{rpc.service.full_name}/{rpc.name}"
        method = self.channel.unary_unary(
            path,
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=out_type.FromString,
        )
        return method(call.request, metadata=metadata, timeout=60)

    def close(self) -> None:
        self.http.close()
        self.channel.close()


@contextlib.contextmanager
def serving(api: RulesApi | None = None, sessions: Callable[[], SessionApi] | None = None) -> Iterator[Env]:
    with run_servers(api, sessions) as servers:
        env = Env(servers)
        try:
            yield env
        finally:
            env.close()


# --------------------------------------------------------------------------- the servers


class BrokenRules(RulesApi):
    """Rules whose ListGames fails unexpectedly: the one way to see INTERNAL."""

    def list_games(self, request: rules_service_pb2.ListGamesRequest) -> rules_service_pb2.ListGamesResponse:
        raise RuntimeError("a bug")


def _memory(limits: Limits | None = None, **store: Any) -> Callable[[], SessionApi]:
    return lambda: SessionApi(MemoryStore(**store), limits=limits)


@pytest.fixture(scope="module")
def envs() -> Iterator[dict[str, Env]]:
    keys = Access(api_keys={digest(API_KEY): "catalogue"}, keys_for_rules=True)
    prefix = f"lawspeaker-test-catalogue-{uuid.uuid4().hex}"  # a Redis with no replica to wait for
    configs: dict[str, tuple[RulesApi | None, Callable[[], SessionApi] | None]] = {
        "main": (None, _memory()),
        "keys": (None, _memory(Limits(access=keys))),
        "rate": (
            None,
            _memory(Limits(create_per_minute=0.001, create_burst=1, lobby_per_minute=0.001, lobby_burst=1)),
        ),
        "cap": (None, _memory(Limits(max_sessions=1))),
        "watch": (None, _memory(max_watchers=1)),
        "down": (None, lambda: SessionApi(RedisStore("redis://127.0.0.1:1/0", timeout=0.2))),
        "broken": (BrokenRules(), None),
        "wait": (
            None,
            lambda: SessionApi(RedisStore(REDIS, prefix=prefix, wait_replicas=1, wait_timeout=0.05)),
        ),
    }
    with contextlib.ExitStack() as stack:
        stack.callback(_delete_keys, prefix)
        yield {name: stack.enter_context(serving(api, sessions)) for name, (api, sessions) in configs.items()}


def _delete_keys(prefix: str) -> None:
    client = redis.Redis.from_url(REDIS)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


# --------------------------------------------------------------------------- provocations


def _state(game: str = "valhalla", players: int = 2) -> game_pb2.GameState:
    return RulesApi().new_game(rules_service_pb2.NewGameRequest(game=game, players=players, seed=7)).state


def _session(env: Env, game: str = "valhalla", **fields: Any) -> tuple[str, list[str], str]:
    made = env.ok(
        Call(
            "CreateSession", session_service_pb2.CreateSessionRequest(game=game, players=2, seed=7, **fields)
        )
    )
    return made.session.session, [f"Bearer {t.token}" for t in made.seat_tokens], made.session.etag


def _hosted(env: Env, game: str = "valhalla", players: int = 2, **fields: Any) -> tuple[str, list[str], str]:
    """A new session with its host token: its id, the seat tokens (bearer headers) and the host's."""
    request = session_service_pb2.CreateSessionRequest(game=game, players=players, seed=7, **fields)
    made = env.ok(Call("CreateSession", request))
    return made.session.session, [f"Bearer {t.token}" for t in made.seat_tokens], f"Bearer {made.host_token}"


def _lobby_call(
    method: str, who: str | None = "host", players: int = 2, **fields: Any
) -> Callable[[Env, str], Call]:
    """A call on a new Valhalla session whose last seat is open, as ``who``: "host", "seat" (seat 0) or
    None (no token)."""

    def make(env: Env, _: str) -> Call:
        session, tokens, host = _hosted(env, open_seats=[players - 1], players=players)
        bearer = {"host": host, "seat": tokens[0], None: None}[who]
        return Call(method, BY_NAME[method].request_type(session=session, **fields), bearer)

    return make


def _seat_out(env: Env, _: str) -> Call:
    """The host gives a seat that resigned (and is out) to someone else."""
    session, tokens, host = _hosted(env, "pax_penning", 3)
    env.ok(Call("ResignSeat", session_service_pb2.ResignSeatRequest(session=session), tokens[1]))
    request = session_service_pb2.ManageSeatRequest(
        session=session, seat=1, action=session_service_pb2.SEAT_ACTION_REISSUE_TOKEN
    )
    return Call("ManageSeat", request, host)


def _lobby_twice(env: Env, transport: str) -> Call:
    """A listing after one that used the lobby allowance up (as _create_twice does for creations)."""
    first = env.reason(transport, Call("ListSessions", session_service_pb2.ListSessionsRequest()))
    assert first in (None, "LOBBY_RATE_LIMITED"), first
    return Call("ListSessions", session_service_pb2.ListSessionsRequest())


def _creating(**fields: Any) -> Callable[[Env, str], Call]:
    def make(_: Env, __: str) -> Call:
        request = session_service_pb2.CreateSessionRequest(game="valhalla", players=2, **fields)
        return Call("CreateSession", request)

    return make


def _legal(env: Env, session: str, token: str) -> session_service_pb2.SessionLegalMovesResponse:
    return env.ok(
        Call("SessionLegalMoves", session_service_pb2.SessionLegalMovesRequest(session=session), token)
    )


def _apply(env: Env, session: str, token: str, move: game_pb2.Move, etag: str, request_id: str = "") -> Any:
    request = session_service_pb2.SessionApplyMoveRequest(
        session=session, move=move, etag=etag, request_id=request_id
    )
    return env.ok(Call("SessionApplyMove", request, token))


def _finished_valhalla() -> game_pb2.GameState:
    """A Valhalla game played by the engine's first legal move until it ends."""
    api = RulesApi()
    state = _state()
    for _ in range(5000):
        listed = api.legal_moves(rules_service_pb2.LegalMovesRequest(game="valhalla", state=state))
        if listed.HasField("outcome"):
            return state
        moves = list(listed.moves)
        state = api.apply_move(
            rules_service_pb2.ApplyMoveRequest(game="valhalla", state=state, move=moves[len(moves) // 2])
        ).state
    raise AssertionError("the game did not end")


Provocation = Callable[[dict[str, Env], str], tuple[Env, Call | Raw]]


def on(name: str, make: Callable[[Env, str], Call | Raw]) -> Provocation:
    def provoke(envs: dict[str, Env], transport: str) -> tuple[Env, Call | Raw]:
        env = envs[name]
        return env, make(env, transport)

    return provoke


def main(make: Callable[[Env, str], Call | Raw]) -> Provocation:
    return on("main", make)


def _new(game: str, players: int = 2, **options: Any) -> Call:
    opts = game_pb2.GameOptions(**options) if options else None
    return Call("NewGame", rules_service_pb2.NewGameRequest(game=game, players=players, options=opts))


def _created() -> session_service_pb2.CreateSessionRequest:
    return session_service_pb2.CreateSessionRequest(game="valhalla", players=2)


def _with_webhook(url: str) -> Call:
    """A CreateSession naming a webhook URL (refused before any DNS: a scheme, an address literal)."""
    request = session_service_pb2.CreateSessionRequest(
        game="valhalla", players=2, webhook=session_service_pb2.Webhook(url=url)
    )
    return Call("CreateSession", request)


def _version_mismatch(_: Env, __: str) -> Call:
    state = _state()
    state.rules_version = "valhalla-0"
    return Call("LegalMoves", rules_service_pb2.LegalMovesRequest(game="valhalla", state=state))


def _bad_seed(_: Env, __: str) -> Call:
    state = _state()
    state.rng.seed = b"short"
    return Call("LegalMoves", rules_service_pb2.LegalMovesRequest(game="valhalla", state=state))


def _bad_enum(_: Env, __: str) -> Call:
    state = _state("pax_penning", 3)
    state.pax_penning.phase = 999  # type: ignore[assignment]
    return Call("LegalMoves", rules_service_pb2.LegalMovesRequest(game="pax_penning", state=state))


def _game_over(_: Env, __: str) -> Call:
    state = _finished_valhalla()
    move = game_pb2.Move(valhalla={"cast": {}})
    return Call("ApplyMove", rules_service_pb2.ApplyMoveRequest(game="valhalla", state=state, move=move))


def _out_of_turn(env: Env, _: str) -> Call:
    session, tokens, etag = _session(env)
    to_act = _legal(env, session, tokens[0]).to_act[0]
    move = _legal(env, session, tokens[to_act]).moves[0]
    request = session_service_pb2.SessionApplyMoveRequest(session=session, move=move, etag=etag)
    return Call("SessionApplyMove", request, tokens[1 - to_act])


def _session_call(method: str, token: int | str | None = 0, **fields: Any) -> Callable[[Env, str], Call]:
    """A SessionService call on a new session (its etag filled in when ``etag=True``)."""

    def make(env: Env, _: str) -> Call:
        session, tokens, etag = _session(env)
        fields_ = {**fields, "etag": etag} if fields.get("etag") is True else dict(fields)
        seat = token
        if "move" in fields_ and fields_["move"] is None:  # the move of the seat to act
            to_act = _legal(env, session, tokens[0]).to_act[0]
            fields_["move"] = _legal(env, session, tokens[to_act]).moves[0]
            seat = to_act if isinstance(token, int) else token
        request = BY_NAME[method].request_type(session=session, **fields_)
        bearer = tokens[seat] if isinstance(seat, int) else seat
        return Call(method, request, bearer)

    return make


def _reused_request_id(env: Env, _: str) -> Call:
    """A seat's request id used again for another request (the same move on the next version)."""
    session, tokens, etag = _session(env)
    to_act = _legal(env, session, tokens[0]).to_act[0]
    first = _legal(env, session, tokens[to_act]).moves[0]
    now = _apply(env, session, tokens[to_act], first, etag, request_id="once").session
    request = session_service_pb2.SessionApplyMoveRequest(
        session=session, move=first, etag=now.etag, request_id="once"
    )
    return Call("SessionApplyMove", request, tokens[to_act])


def _chance_then(env: Env, then: str) -> Call:
    """A Valhalla session whose first cast is made; ``then`` is what is asked next."""
    session, tokens, etag = _session(env)
    seat = _legal(env, session, tokens[0]).to_act[0]
    cast = _legal(env, session, tokens[seat]).moves[0]
    now = _apply(env, session, tokens[seat], cast, etag).session
    if then == "undo":
        return Call(
            "UndoMove", session_service_pb2.UndoMoveRequest(session=session, etag=now.etag), tokens[seat]
        )
    for _ in range(40):  # on until a move that draws nothing, then the other seat undoes it
        seat = now.to_act[0]
        move = _legal(env, session, tokens[seat]).moves[0]
        now = _apply(env, session, tokens[seat], move, now.etag).session
        moves = env.ok(
            Call(
                "ListSessionMoves",
                session_service_pb2.ListSessionMovesRequest(session=session, page_size=1000),
            )
        ).moves
        if not moves[-1].chance:
            request = session_service_pb2.UndoMoveRequest(session=session, etag=now.etag)
            return Call("UndoMove", request, tokens[1 - seat])
    raise AssertionError("no move without chance")


def _explicit_outcome(env: Env, _: str) -> Call:
    session, tokens, etag = _session(env)
    seat = _legal(env, session, tokens[0]).to_act[0]
    outcome = _legal(env, session, tokens[seat]).chance.outcomes[0].move
    request = session_service_pb2.SessionApplyMoveRequest(session=session, move=outcome, etag=etag)
    return Call("SessionApplyMove", request, tokens[seat])


def _physical_generic_draw(env: Env, _: str) -> Call:
    session, tokens, etag = _session(env, physical_dice=True)
    seat = _legal(env, session, tokens[0]).to_act[0]
    cast = game_pb2.Move(valhalla={"cast": {}})
    return Call(
        "SessionApplyMove",
        session_service_pb2.SessionApplyMoveRequest(session=session, move=cast, etag=etag),
        tokens[seat],
    )


def _physical_unsupported(_: Env, __: str) -> Call:
    options = game_pb2.GameOptions(penki={"setup": "PENKI_SETUP_RANDOM_PAIRS"})
    request = session_service_pb2.CreateSessionRequest(
        game="penki", players=2, options=options, physical_dice=True
    )
    return Call("CreateSession", request)


def _create_twice(env: Env, transport: str) -> Call:
    """A CreateSession after one that used the allowance up (or was refused already: another
    transport's case on this server came first). The first one goes over the same transport, so
    the case does not rest on the transports sharing one quota (which
    tests/sessions/test_quotas.py::test_every_transport_answers_429_resource_exhausted_with_when_to_retry
    checks). This case used to fail now and then with a 200: the memory store's rate limit refused
    a bucket's first request by a floating-point rounding at some clock readings and let the second
    through (fixed with ``CLOCK_SLACK``; test_quotas.py has the clock reading that showed it)."""
    request = session_service_pb2.CreateSessionRequest(game="valhalla", players=2)
    first = env.reason(transport, Call("CreateSession", request))
    assert first in (None, "SESSION_CREATE_RATE_LIMITED", "SESSION_LIMIT_REACHED"), first
    return Call("CreateSession", request)


def _second_watch(env: Env, _: str) -> Call:
    return Call("WatchSession", session_service_pb2.WatchSessionRequest(session=env.watched))  # type: ignore[attr-defined]


def _if_match(value: str, body_etag: bool) -> Callable[[Env, str], Call]:
    def make(env: Env, _: str) -> Call:
        session, tokens, etag = _session(env)
        seat = _legal(env, session, tokens[0]).to_act[0]
        move = _legal(env, session, tokens[seat]).moves[0]
        request = session_service_pb2.SessionApplyMoveRequest(
            session=session, move=move, etag=etag if body_etag else ""
        )
        return Call("SessionApplyMove", request, tokens[seat], {"If-Match": value})

    return make


def _suggest(level: int = game_pb2.BOT_LEVEL_RANDOM, **fields: Any) -> Callable[[Env, str], Call]:
    def make(_: Env, __: str) -> Call:
        state = _state()
        request = rules_service_pb2.SuggestMoveRequest(game="valhalla", state=state, level=level, **fields)
        return Call("SuggestMove", request)

    return make


def _resigned(then: str) -> Callable[[Env, str], Call]:
    """A Valhalla session where the seat not to act resigns (``over``: and loses, then the other
    tries to resign; else it hands its seat to a bot, then ``again`` resigns once more, ``undo`` has
    the other seat undo the resignation)."""
    spb = session_service_pb2

    def make(env: Env, _: str) -> Call:
        session, tokens, _etag = _session(env)
        to_act = _legal(env, session, tokens[0]).to_act[0]
        other = 1 - to_act
        if then == "over":
            env.ok(Call("ResignSeat", spb.ResignSeatRequest(session=session), tokens[other]))
            return Call("ResignSeat", spb.ResignSeatRequest(session=session), tokens[to_act])
        left = env.ok(
            Call(
                "ResignSeat",
                spb.ResignSeatRequest(session=session, action=spb.RESIGN_ACTION_BOT),
                tokens[other],
            )
        )
        if then == "again":
            return Call("ResignSeat", spb.ResignSeatRequest(session=session), tokens[other])
        undo = spb.UndoMoveRequest(session=session, etag=left.session.etag)
        return Call("UndoMove", undo, tokens[to_act])

    return make


def _bot_seats(*bots: tuple[int, int], **fields: Any) -> Callable[[Env, str], Call]:
    def make(_: Env, __: str) -> Call:
        seats = [game_pb2.BotSeat(seat=s, level=level) for s, level in bots]
        request = session_service_pb2.CreateSessionRequest(game="valhalla", players=2, bots=seats, **fields)
        return Call("CreateSession", request)

    return make


def _rest_raw(
    method: str, verb: str, path: str, body: bytes = b"", content_type: str = "application/json"
) -> Callable[[Env, str], Raw]:
    """A REST request outside the contract's shapes, as a Raw whose method names the HTTP method."""

    def make(_: Env, __: str) -> Raw:
        return Raw(f"{verb} {path}", body, content_type)

    return make


PROVOKE: dict[str, Provocation] = {
    "MALFORMED_JSON": main(lambda e, t: Raw("NewGame", b'{"players": 2', path={"game": "valhalla"})),
    "JSON_TOO_DEEP": main(
        lambda e, t: Raw("NewGame", b'{"a":' * 70 + b"1" + b"}" * 70, path={"game": "valhalla"})
    ),
    "MALFORMED_PROTOBUF": main(
        lambda e, t: Raw("NewGame", b"\xff\xff\xff\xff", "application/x-protobuf", path={"game": "valhalla"})
    ),
    "UNKNOWN_FIELD": main(
        lambda e, t: Raw("NewGame", b'{"players": 2, "bogus": 1}', path={"game": "valhalla"})
    ),
    "INVALID_FIELD_VALUE": main(
        lambda e, t: Raw("NewGame", b'{"players": "two"}', path={"game": "valhalla"})
    ),
    "INVALID_ENUM": main(_bad_enum),
    "GAME_REQUIRED": main(lambda e, t: _new("")),
    "GAME_MISMATCH": main(
        lambda e, t: Raw("NewGame", b'{"game": "penki", "players": 2}', path={"game": "valhalla"})
    ),
    "SESSION_MISMATCH": main(
        lambda e, t: Raw("SessionLegalMoves", b'{"session": "other"}', path={"session": "one"})
    ),
    "GAME_NOT_FOUND": main(lambda e, t: _new("chess")),
    "PLAYER_COUNT": main(lambda e, t: _new("valhalla", 0)),
    "INVALID_OPTIONS": main(lambda e, t: _new("birka", 2, birka={"calendar_rounds": 7})),
    "OPTIONS_FOR_OTHER_GAME": main(lambda e, t: _new("valhalla", 2, penki={})),
    "INVALID_BOARD": main(lambda e, t: _new("pax_penning", 3, pax_penning={"board": "{"})),
    "INVALID_COMPONENTS": main(
        lambda e, t: _new("pax_viking_junior", 2, pax_viking_junior={"components": "{"})
    ),
    "INVALID_DATA": main(lambda e, t: _new("birka", 2, birka={"data": "{"})),
    "STATE_REQUIRED": main(
        lambda e, t: Call("LegalMoves", rules_service_pb2.LegalMovesRequest(game="valhalla"))
    ),
    "MOVE_REQUIRED": main(
        lambda e, t: Call("ApplyMove", rules_service_pb2.ApplyMoveRequest(game="valhalla", state=_state()))
    ),
    "RULES_VERSION_MISMATCH": main(_version_mismatch),
    "INVALID_STATE": main(_bad_seed),
    "GAME_OVER": main(_game_over),
    "NOT_YOUR_TURN": main(_out_of_turn),
    "SESSION_REQUIRED": main(
        lambda e, t: Call("SessionLegalMoves", session_service_pb2.SessionLegalMovesRequest())
    ),
    "SESSION_NOT_FOUND": main(
        lambda e, t: Call("GetSession", session_service_pb2.GetSessionRequest(session="no-such-session"))
    ),
    "SEAT_TOKEN_MALFORMED": main(_session_call("SessionLegalMoves", token="Basic abc")),
    "SEAT_TOKEN_REQUIRED": main(_session_call("SessionApplyMove", token=None, move=None, etag=True)),
    "SEAT_TOKEN_INVALID": main(_session_call("SessionLegalMoves", token="Bearer not-a-token")),
    "WATCH_TICKET_INVALID": main(_session_call("WatchSession", token=None, ticket="wt_not-a-ticket")),
    "WATCH_TICKET_WITH_TOKEN": main(_session_call("WatchSession", ticket="wt_not-a-ticket")),
    "ETAG_MALFORMED": main(_session_call("GetSession", token=None, wait_for_change="seven")),
    "ETAG_REQUIRED": main(_session_call("SessionApplyMove", move=None)),
    "SESSION_ETAG_MISMATCH": main(_session_call("SessionApplyMove", move=None, etag="999")),
    "REQUEST_ID_TOO_LONG": main(
        _session_call("SessionApplyMove", move=None, etag=True, request_id="r" * 500)
    ),
    "REQUEST_ID_REUSED": main(_reused_request_id),
    "PHYSICAL_DICE_UNSUPPORTED": main(_physical_unsupported),
    "PHYSICAL_DICE_OUTCOME_REQUIRED": main(_physical_generic_draw),
    "EXPLICIT_OUTCOME_NOT_ALLOWED": main(_explicit_outcome),
    "NOTHING_TO_UNDO": main(_session_call("UndoMove", etag=True)),
    "UNDO_NOT_YOURS": main(lambda e, t: _chance_then(e, "other")),
    "UNDO_AFTER_CHANCE": main(lambda e, t: _chance_then(e, "undo")),
    "UNDO_AFTER_SEAT_EVENT": main(_resigned("undo")),
    "SESSION_OVER": main(_resigned("over")),
    "SEAT_RESIGNED": main(_resigned("again")),
    "RESIGN_ACTION_INVALID": main(_session_call("ResignSeat", action=7)),
    "CLOCK_INVALID": main(
        lambda e, t: Call(
            "CreateSession",
            session_service_pb2.CreateSessionRequest(
                game="valhalla", players=2, clock=session_service_pb2.Clock(per_move_seconds=-1)
            ),
        )
    ),
    "WEBHOOK_URL_INVALID": main(lambda e, t: _with_webhook("ftp://hooks.example/lawspeaker")),
    "WEBHOOK_HOST_NOT_ALLOWED": main(lambda e, t: _with_webhook("https://169.254.169.254/latest")),
    "INVALID_PAGE_SIZE": main(_session_call("ListSessionMoves", token=None, page_size=-1)),
    "INVALID_PAGE_TOKEN": main(_session_call("ListSessionMoves", token=None, page_token="nonsense")),
    "SESSION_CREATE_RATE_LIMITED": on("rate", _create_twice),
    "LOBBY_RATE_LIMITED": on("rate", _lobby_twice),
    "HOST_TOKEN_REQUIRED": main(_lobby_call("DeleteSession", None)),
    "HOST_TOKEN_INVALID": main(
        _lobby_call("ManageSeat", "seat", seat=1, action=session_service_pb2.SEAT_ACTION_CLOSE)
    ),
    "HOST_TOKEN_NOT_A_SEAT": main(
        _lobby_call(
            "SessionApplyMove", "host", players=2, move=game_pb2.Move(valhalla={"cast": {}}), etag="1"
        )
    ),
    "WAITING_FOR_PLAYERS": main(
        _lobby_call("SessionApplyMove", "seat", move=game_pb2.Move(valhalla={"cast": {}}), etag="1")
    ),
    "SEAT_NOT_OPEN": main(_session_call("ClaimSeat", token=None, display_name="Ulf")),
    "SEAT_OUT": main(_seat_out),
    "SEAT_ACTION_INVALID": main(_lobby_call("ManageSeat", seat=1)),
    "DISPLAY_NAME_REQUIRED": main(_lobby_call("ClaimSeat", None, display_name=" ")),
    "DISPLAY_NAME_TOO_LONG": main(_lobby_call("ClaimSeat", None, display_name="Ragnar" * 10)),
    "DISPLAY_NAMES_TOO_MANY": main(_creating(display_names=["a", "b", "c"])),
    "DISPLAY_NAME_FOR_OPEN_SEAT": main(_creating(open_seats=[1], display_names=["a", "b"])),
    "DISPLAY_NAME_UNEXPECTED": main(
        _lobby_call("ManageSeat", seat=1, action=session_service_pb2.SEAT_ACTION_CLOSE, display_name="x")
    ),
    "OPEN_SEAT_IS_BOT": main(
        _creating(open_seats=[1], bots=[game_pb2.BotSeat(seat=1, level=game_pb2.BOT_LEVEL_RANDOM)])
    ),
    "OPEN_SEAT_DUPLICATE": main(_creating(open_seats=[1, 1])),
    "OPEN_SEATS_WITH_PHYSICAL_DICE": main(_creating(open_seats=[1], physical_dice=True)),
    "PLAYERS_OUT_OF_RANGE": main(
        lambda e, t: Call("ListSessions", session_service_pb2.ListSessionsRequest(players=-1))
    ),
    "GAME_NOT_OVER": main(_session_call("Rematch")),
    "REMATCH_TOKEN_REQUIRED": main(_session_call("Rematch", token=None)),
    "SESSION_LIMIT_REACHED": on("cap", _create_twice),
    "SESSION_STORE_UNAVAILABLE": on(
        "down", lambda e, t: Call("GetSession", session_service_pb2.GetSessionRequest(session="valhalla.x1"))
    ),
    "SESSION_WRITE_NOT_REPLICATED": on("wait", lambda e, t: Call("CreateSession", _created())),
    "WATCH_LIMIT": on("watch", _second_watch),
    "API_KEY_REQUIRED": on("keys", lambda e, t: _new("valhalla")),
    "API_KEY_INVALID": on(
        "keys", lambda e, t: Call("NewGame", _new("valhalla").request, headers={"X-Api-Key": "lsk_wrong"})
    ),
    "BOT_LEVEL_REQUIRED": main(_suggest(game_pb2.BOT_LEVEL_UNSPECIFIED)),
    "SEAT_OUT_OF_RANGE": main(_suggest(seat=2)),
    "BOT_SEAT_DUPLICATE": main(_bot_seats((1, game_pb2.BOT_LEVEL_RANDOM), (1, game_pb2.BOT_LEVEL_GREEDY))),
    "BOTS_WITH_PHYSICAL_DICE": main(_bot_seats((1, game_pb2.BOT_LEVEL_RANDOM), physical_dice=True)),
    "INVALID_IF_MATCH": main(_if_match("not-an-etag", body_etag=True)),
    "IF_MATCH_CONFLICT": main(_if_match('"12345"', body_etag=True)),
}


def _http_only(envs: dict[str, Env], reason: str) -> str | None:
    """The HTTP edge's own refusals, which no RPC message can express: sent by hand over REST."""
    http = envs["main"].http
    if reason == "UNSUPPORTED_MEDIA_TYPE":
        r = http.post("/v1/games/valhalla:new", content=b"players=2", headers={"content-type": "text/plain"})
    elif reason == "BODY_TOO_LARGE":
        r = http.post(
            "/v1/games/valhalla:new",
            content=b" " * (1024 * 1024 + 1),
            headers={"content-type": "application/json"},
        )
    elif reason == "SEAT_TOKEN_IN_URL":
        r = http.get("/v1/sessions/valhalla.any:watch?token=a-seat-token")
    elif reason == "ROUTE_NOT_FOUND":
        r = http.get("/v1/no-such-route")
    elif reason == "METHOD_NOT_ALLOWED":
        r = http.put("/v1/games", content=b"{}")
    elif reason == "INTERNAL":
        r = envs["broken"].http.get("/v1/games")
    else:
        return None
    assert r.headers["content-type"] == "application/problem+json", r.text
    return _problem_reason(r)


@pytest.fixture(scope="module")
def watched(envs: dict[str, Env]) -> Iterator[str]:
    """A session on the "watch" server with its one allowed watch stream open."""
    env = envs["watch"]
    session, _, _ = _session(env)
    stub = env.channel.unary_stream(
        "/lawspeaker.v1.SessionService/WatchSession",
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=session_service_pb2.WatchSessionResponse.FromString,
    )
    stream = stub(session_service_pb2.WatchSessionRequest(session=session), timeout=600)
    next(stream)  # the session as it is: the stream is open
    env.watched = session  # type: ignore[attr-defined]
    yield session
    stream.cancel()


GENERAL_CASES = [
    (r.reason, t) for r in GENERAL if r.reason not in ELSEWHERE for t in TRANSPORTS if t in r.transports
]


@pytest.mark.parametrize(("reason", "transport"), GENERAL_CASES)
def test_every_general_reason_is_provoked_on_each_of_its_transports(
    envs: dict[str, Env], watched: str, reason: str, transport: str
) -> None:
    if reason in PROVOKE:
        env, call = PROVOKE[reason](envs, transport)
        got = env.reason(transport, call)
        # what the server held when it answered otherwise
        assert got == reason, f"{got} from {env.servers}: {env.http.get('/healthz/details').text}"
    else:
        assert transport == REST, f"{reason}: no provocation over {transport}"
        got = _http_only(envs, reason)
        assert got is not None, f"{reason}: no provocation"
        carried, LINKS[:] = list(LINKS), []
        assert carried, f"{reason}: the problem carried no type"
        for link in carried:
            follow(envs["broken" if reason == "INTERNAL" else "main"].base, link)
    assert got == reason


def test_a_reason_not_provoked_here_says_which_test_provokes_it() -> None:
    general = {r.reason for r in GENERAL}
    assert set(ELSEWHERE) <= general
    root = pathlib.Path(__file__).resolve().parents[2]
    for reason, where in ELSEWHERE.items():
        path = where.split(" ", 1)[0].split("::", 1)[0]
        if path != "none:":
            assert reason in (root / path).read_text(), (reason, where)


RULE_CASES = [(g, r) for g, reasons in sorted(EXAMPLES.items()) for r in sorted(reasons)]


FALLBACK = "the engine's fallback for a move no other reason explains: no known position reaches it"
# Rule reasons with no recorded example, each with why no request over the contract provokes it.
NO_EXAMPLE = {
    **{(game_id, "NOT_A_LEGAL_MOVE"): FALLBACK for game_id in REGISTRY},
    ("birka", "NO_EMPTY_SLOT"): "a safeguard: the collection step ends once the Visthus is full",
    ("birka", "NO_TINGET"): "only a `data` option whose buildings sell no Runestone Card reaches it",
    ("penki", "NO_SUCH_PIECE"): "the codec refuses a piece that is not light, dark or joker first "
    "(INVALID_ENUM): only engine values reach it (tests/games/test_refusals_in_play.py)",
}


def test_every_rule_reason_has_a_recorded_example_or_says_why_none_can_exist() -> None:
    without = {
        (game_id, reason)
        for game_id, entry in REGISTRY.items()
        for reason in entry.game.reasons
        if reason not in EXAMPLES.get(game_id, {})
    }
    assert without == set(NO_EXAMPLE), (
        "rerun tests/transport/record_reason_examples.py, or add a rule scenario"
    )


@pytest.mark.parametrize(("game_id", "reason"), RULE_CASES)
def test_every_rule_reason_is_refused_with_its_rule_on_every_transport(
    envs: dict[str, Env], game_id: str, reason: str
) -> None:
    example = EXAMPLES[game_id][reason]
    state = json_format.ParseDict(example["state"], game_pb2.GameState())
    move = json_format.ParseDict(example["move"], game_pb2.Move())
    env = envs["main"]
    anchor = REGISTRY[game_id].game.reasons[reason].rule.partition("#")[2]
    rule = f"/rules/{game_id}#{anchor}"  # the page of the game's rules on the service, its anchor
    for transport in TRANSPORTS:
        validate = Call(
            "ValidateMove", rules_service_pb2.ValidateMoveRequest(game=game_id, state=state, move=move)
        )
        assert env.reason(transport, validate) == reason, transport
        apply = Call("ApplyMove", rules_service_pb2.ApplyMoveRequest(game=game_id, state=state, move=move))
        assert env.reason(transport, apply) == reason, transport
    validated = RulesApi().validate_move(
        rules_service_pb2.ValidateMoveRequest(game=game_id, state=state, move=move)
    )
    assert validated.violation.rule == rule  # a call with no URL, and no --public-url: the path
    request = rules_service_pb2.ApplyMoveRequest(state=state, move=move)
    answered = env.http.post(  # binary protobuf: the example may hold an enum number REST JSON cannot spell
        f"/v1/games/{game_id}:applyMove",
        content=request.SerializeToString(),
        headers={"content-type": "application/x-protobuf", "accept": "application/problem+json"},
    ).json()
    assert answered["metadata"]["rule"] == env.base + rule and answered["metadata"]["kind"] == "ILLEGAL_MOVE"
    follow(env.base, answered["metadata"]["rule"])
