"""OpenTelemetry traces of the real servers (as ``lawspeaker serve`` instruments them) on a real
Redis: one session move over REST, gRPC and Connect, each continuing the caller's ``traceparent``,
is a server span whose descendants are the rules call and every Redis round trip, all carrying the
game and the RPC. Spans go to the SDK's in-memory exporter.

And without ``OTEL_*`` variables nothing of OpenTelemetry is imported (checked in a subprocess),
while the variables that ask for traces give a Tracing configured as they say.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import httpx
import pytest
import redis
from google.protobuf import json_format
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from lawspeaker.observe import calls
from lawspeaker.server import tracing
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import RedisStore
from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc, session_service_pb2_grpc
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import REDIS_URL, redis_up, run_servers

pytestmark = pytest.mark.transport
CAST = {"valhalla": {"cast": {}}}  # the first move of a fresh two-player Valhalla game (seed 42)
APPLY = "SessionApplyMove"


REDIS_UP = redis_up()


@dataclass
class Traced:
    exporter: InMemorySpanExporter
    http: httpx.Client
    sessions: session_service_pb2_grpc.SessionServiceStub
    rules: rules_service_pb2_grpc.RulesServiceStub
    logged: list[calls.Call]  # the calls the access log was handed

    def create(self) -> tuple[str, list[str], str]:
        r = self.http.post("/v1/sessions", json={"game": "valhalla", "players": 2, "seed": "42"})
        assert r.status_code == 200, r.text
        body = r.json()
        return body["session"]["session"], [t["token"] for t in body["seatTokens"]], body["session"]["etag"]

    def trace(self, trace_id: int, server_name: str) -> tuple[ReadableSpan, list[ReadableSpan]]:
        """The server span named ``server_name`` of trace ``trace_id`` and all the trace's spans,
        once it has ended (a server span ends after its answer is sent, so shortly after the client
        has it)."""
        for _ in range(500):
            spans = [s for s in self.exporter.get_finished_spans() if _context(s).trace_id == trace_id]
            servers = [s for s in spans if s.kind is SpanKind.SERVER and s.name == server_name]
            if servers:
                assert len(servers) == 1, [s.name for s in spans]
                return servers[0], spans
            time.sleep(0.01)
        names = [(s.name, s.kind) for s in self.exporter.get_finished_spans()]
        raise AssertionError(f"no server span {server_name!r} in trace {trace_id:032x}: {names}")


def _context(span: ReadableSpan) -> Any:
    context = span.context
    assert context is not None
    return context


@pytest.fixture(scope="module")
def traced() -> Iterator[Traced]:
    """Both servers, instrumented as ``lawspeaker serve`` does with the otel extra configured,
    serving sessions from Redis under a key prefix of their own."""
    if not REDIS_UP:
        pytest.skip(f"needs Redis at {REDIS_URL}")
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    traces = tracing.Tracing(provider)
    logged: list[calls.Call] = []
    saved = (calls._metrics, calls._access_log, calls._tracing)  # process-wide: put back after
    calls.configure(saved[0], lambda call, _seconds: logged.append(call), traces)
    prefix = f"lawspeaker-test-tracing-{secrets.token_hex(6)}"
    try:
        with (
            run_servers(
                sessions=lambda: SessionApi(RedisStore(REDIS_URL, prefix=prefix)), tracing=traces
            ) as s,
            httpx.Client(base_url=s.base_url, timeout=30) as http,
            grpc.insecure_channel(f"127.0.0.1:{s.grpc_port}") as channel,
        ):
            yield Traced(
                exporter,
                http,
                session_service_pb2_grpc.SessionServiceStub(channel),
                rules_service_pb2_grpc.RulesServiceStub(channel),
                logged,
            )
    finally:
        calls.configure(*saved)
        provider.shutdown()
        client = redis.Redis.from_url(REDIS_URL)
        names = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if names:
            client.delete(*names)
        client.close()


def _traceparent() -> tuple[int, int, str]:
    trace_id, span_id = secrets.randbits(128) | 1, secrets.randbits(64) | 1
    return trace_id, span_id, f"00-{trace_id:032x}-{span_id:016x}-01"


def _check_tree(
    server: ReadableSpan,
    spans: Sequence[ReadableSpan],
    parent_id: int,
    system: str,
    session: str,
) -> None:
    """The span tree of one session move: ``server`` continues the caller's span ``parent_id``;
    the rules call and every Redis round trip are its descendants, with the game and the RPC."""
    assert server.parent is not None and server.parent.is_remote
    assert server.parent.span_id == parent_id
    attributes = dict(server.attributes or {})
    assert attributes["rpc.system"] == system
    assert attributes["rpc.service"] == "lawspeaker.v1.SessionService"
    assert attributes["rpc.method"] == APPLY
    assert attributes["lawspeaker.game"] == "valhalla"
    assert attributes["lawspeaker.code"] == "OK"

    by_id = {_context(s).span_id: s for s in spans}

    def under_server(span: ReadableSpan) -> bool:
        while span.parent is not None and span.parent.span_id in by_id:
            span = by_id[span.parent.span_id]
            if span is server:
                return True
        return False

    others = [s for s in spans if s is not server]
    assert all(under_server(s) for s in others), [(s.name, s.parent) for s in others]
    rules = [s for s in others if s.name == "rules ApplyMove"]
    trips = [s for s in others if s.name.startswith("redis ")]
    assert len(rules) == 1
    assert any(s.name == "redis write" for s in trips), [s.name for s in trips]
    for span in (*rules, *trips):
        attributes = dict(span.attributes or {})
        assert attributes["lawspeaker.game"] == "valhalla", span.name
        assert attributes["rpc.method"] == APPLY, span.name
        assert attributes["rpc.service"] == "lawspeaker.v1.SessionService", span.name
    for span in trips:
        attributes = dict(span.attributes or {})
        assert span.kind is SpanKind.CLIENT
        assert attributes["db.system"] == "redis"
        assert attributes["db.operation"] == span.name.removeprefix("redis ")
        assert attributes["lawspeaker.store"] == "redis"
        assert span.status.is_ok
    for span in spans:  # names stay bounded: never a session id
        assert session not in span.name and session.split(".", 1)[1] not in span.name


def test_a_rest_session_move_is_a_server_span_continuing_the_callers_trace(traced: Traced) -> None:
    session, tokens, etag = traced.create()
    trace_id, parent_id, traceparent = _traceparent()
    r = traced.http.post(
        f"/v1/sessions/{session}:applyMove",
        json={"move": CAST, "etag": etag},
        headers={"authorization": f"Bearer {tokens[0]}", "traceparent": traceparent},
    )
    assert r.status_code == 200, r.text
    server, spans = traced.trace(trace_id, "POST /v1/sessions/{session}:applyMove")
    _check_tree(server, spans, parent_id, "http", session)
    assert dict(server.attributes or {})["http.route"] == "/v1/sessions/{session}:applyMove"


def test_a_grpc_session_move_is_a_server_span_continuing_the_callers_trace(traced: Traced) -> None:
    session, tokens, etag = traced.create()
    trace_id, parent_id, traceparent = _traceparent()
    traced.sessions.SessionApplyMove(
        spb.SessionApplyMoveRequest(
            session=session, etag=etag, move=json_format.ParseDict(CAST, game_pb2.Move())
        ),
        metadata=(("authorization", f"Bearer {tokens[0]}"), ("traceparent", traceparent)),
    )
    server, spans = traced.trace(trace_id, f"lawspeaker.v1.SessionService/{APPLY}")
    _check_tree(server, spans, parent_id, "grpc", session)
    assert dict(server.attributes or {})["rpc.grpc.status_code"] == grpc.StatusCode.OK.value[0]


def test_a_connect_session_move_is_a_server_span_continuing_the_callers_trace(traced: Traced) -> None:
    session, tokens, etag = traced.create()
    trace_id, parent_id, traceparent = _traceparent()
    r = traced.http.post(
        f"/lawspeaker.v1.SessionService/{APPLY}",
        json={"session": session, "etag": etag, "move": CAST},
        headers={
            "authorization": f"Bearer {tokens[0]}",
            "traceparent": traceparent,
            "connect-protocol-version": "1",
        },
    )
    assert r.status_code == 200, r.text
    server, spans = traced.trace(trace_id, f"lawspeaker.v1.SessionService/{APPLY}")
    _check_tree(server, spans, parent_id, "connect_rpc", session)


def test_a_stateless_call_has_a_rules_span_and_a_refusal_is_no_server_error(traced: Traced) -> None:
    trace_id, parent_id, traceparent = _traceparent()
    r = traced.http.post(
        "/v1/games/valhalla:new", json={"players": 2, "seed": "7"}, headers={"traceparent": traceparent}
    )
    assert r.status_code == 200, r.text
    server, spans = traced.trace(trace_id, "POST /v1/games/{game}:new")
    assert server.parent is not None and server.parent.span_id == parent_id
    (rules,) = [s for s in spans if s.name == "rules NewGame"]
    assert rules.parent is not None and rules.parent.span_id == _context(server).span_id
    assert dict(rules.attributes or {})["lawspeaker.game"] == "valhalla"
    assert dict(rules.attributes or {})["rpc.method"] == "NewGame"

    trace_id, _, traceparent = _traceparent()
    r = traced.http.post("/v1/games/valhalla:new", json={"players": 99}, headers={"traceparent": traceparent})
    assert r.status_code == 400, r.text
    server, spans = traced.trace(trace_id, "POST /v1/games/{game}:new")
    attributes = dict(server.attributes or {})
    assert attributes["lawspeaker.code"] == "INVALID_ARGUMENT" and attributes["lawspeaker.reason"]
    assert server.status.is_unset  # the client's fault: no server error
    (rules,) = [s for s in spans if s.name == "rules NewGame"]
    assert dict(rules.attributes or {})["lawspeaker.reason"] == attributes["lawspeaker.reason"]


def test_a_stateless_grpc_call_has_a_rules_span(traced: Traced) -> None:
    trace_id, parent_id, traceparent = _traceparent()
    traced.rules.NewGame(
        pb.NewGameRequest(game="valhalla", players=2), metadata=(("traceparent", traceparent),)
    )
    server, spans = traced.trace(trace_id, "lawspeaker.v1.RulesService/NewGame")
    assert server.parent is not None and server.parent.span_id == parent_id
    assert dict(server.attributes or {})["lawspeaker.game"] == "valhalla"
    (rules,) = [s for s in spans if s.name == "rules NewGame"]
    assert rules.parent is not None and rules.parent.span_id == _context(server).span_id
    assert dict(rules.attributes or {})["lawspeaker.game"] == "valhalla"
    assert dict(rules.attributes or {})["rpc.service"] == "lawspeaker.v1.RulesService"


def test_the_access_log_carries_the_trace_id_of_a_call_that_came_without_one(traced: Traced) -> None:
    traced.logged.clear()
    r = traced.http.get("/v1/games")
    assert r.status_code == 200, r.text
    for _ in range(500):
        if traced.logged:
            break
        time.sleep(0.01)
    (call,) = [c for c in traced.logged if c.method == "ListGames"]
    assert len(call.trace_id) == 32
    server, _ = traced.trace(int(call.trace_id, 16), "GET /v1/games")
    assert server.parent is None  # a new trace: the server span is its root


def test_probes_are_not_traced(traced: Traced) -> None:
    traced.exporter.clear()
    trace_id, _, traceparent = _traceparent()
    assert traced.http.get("/healthz", headers={"traceparent": traceparent}).status_code == 200
    traced.http.get("/v1/games")  # traced, and ends after the probe's call
    traced.trace(next(iter(_ids_of(traced, "GET /v1/games"))), "GET /v1/games")
    assert not [s for s in traced.exporter.get_finished_spans() if _context(s).trace_id == trace_id]


def _ids_of(traced: Traced, name: str) -> set[int]:
    for _ in range(500):
        found = {_context(s).trace_id for s in traced.exporter.get_finished_spans() if s.name == name}
        if found:
            return found
        time.sleep(0.01)
    raise AssertionError(f"no span {name!r}")


# --------------------------------------------------------------------------- without the variables

# Starts both servers as `lawspeaker serve` does (tracing from the environment) and makes one call.
# Two dependencies import parts of OpenTelemetry themselves when they are installed: redis-py (8),
# on import, for its own metrics (off unless initialised), and Litestar, making any app, for its
# optional middleware (unused). What Lawspeaker adds to that is counted. With BLOCK set,
# OpenTelemetry is not importable, as without the extra.
_STARTS = """
import asyncio, importlib.abc, json, os, sys

if os.environ.get("BLOCK"):
    class Absent(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "opentelemetry":
                raise ImportError(f"no module named {name!r}")
            return None

    sys.meta_path.insert(0, Absent())


def otel() -> set:
    return {m for m in sys.modules if m.split(".")[0] == "opentelemetry"}


import litestar
import redis

litestar.Litestar(route_handlers=[])
by_dependencies = otel()

import httpx

import lawspeaker.server.cli  # what `lawspeaker serve` imports
from lawspeaker.observe import calls
from lawspeaker.server import tracing
from lawspeaker.api.rules import RulesApi
from lawspeaker.grpc.server import create_server
from lawspeaker.http.app import create_app, observed
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import MemoryStore


async def main() -> dict:
    telemetry = tracing.from_environment()
    calls.configure(True, None, telemetry)  # as `lawspeaker serve` does
    rules = RulesApi()
    sessions = SessionApi(MemoryStore(), rules)
    server, _ = await create_server(
        "127.0.0.1:0", rules, sessions, interceptors=telemetry.grpc_interceptors() if telemetry else ()
    )
    await server.start()
    app = observed(create_app(rules, sessions))
    app = telemetry.asgi(app) if telemetry else app
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
        status = (await http.post("/v1/games/valhalla:new", json={"players": 2})).status_code
    await server.stop(None)
    return {
        "tracing": telemetry is not None,
        "status": status,
        "added": sorted(otel() - by_dependencies),
        "any": bool(otel()),
    }


print("FOUND", json.dumps(asyncio.run(main())), flush=True)  # the console exporter prints too
"""


def _run(env: dict[str, str]) -> dict[str, Any]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", _STARTS], env={**clean, **env}, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("FOUND ")]
    found: dict[str, Any] = json.loads(line.removeprefix("FOUND "))
    found["printed"] = done.stdout
    found["log"] = done.stderr
    return found


def test_without_otel_variables_lawspeaker_imports_nothing_of_opentelemetry() -> None:
    found = _run({})
    assert (found["tracing"], found["status"], found["added"]) == (False, 200, [])
    found = _run({"OTEL_TRACES_EXPORTER": "console", "OTEL_SDK_DISABLED": "true"})
    assert (found["tracing"], found["status"], found["added"]) == (False, 200, [])
    found = _run({"OTEL_TRACES_EXPORTER": "console"})  # the contrast: asked for, it is there
    assert found["tracing"] and found["status"] == 200
    assert {"opentelemetry.sdk.trace", "opentelemetry.instrumentation.grpc"} <= set(found["added"])
    assert '"name": "POST /v1/games/{game}:new"' in found["printed"]  # exported at exit


def test_without_the_extra_variables_asking_for_traces_are_warned_about_and_it_serves() -> None:
    found = _run({"BLOCK": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"})
    assert (found["tracing"], found["status"], found["any"]) == (False, 200, False)
    assert "OpenTelemetry is not installed" in found["log"]


# --------------------------------------------------------------------------- from the variables


@pytest.fixture
def otel_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in list(os.environ):
        if name.startswith("OTEL_"):
            monkeypatch.delenv(name)
    return monkeypatch


def _made(exporters: Sequence[str] | None = None) -> tracing.Tracing | None:
    made = tracing.from_environment()
    if made is not None:
        made.provider.shutdown()
        if exporters is not None:
            assert [f"{type(e).__module__}.{type(e).__name__}" for e in made.exporters] == list(exporters)
    return made


HTTP_OTLP = "opentelemetry.exporter.otlp.proto.http.trace_exporter.OTLPSpanExporter"
GRPC_OTLP = "opentelemetry.exporter.otlp.proto.grpc.trace_exporter.OTLPSpanExporter"
CONSOLE = "opentelemetry.sdk.trace.export.ConsoleSpanExporter"


def test_no_variables_or_none_asked_for_is_no_tracing(otel_env: pytest.MonkeyPatch) -> None:
    assert _made() is None
    otel_env.setenv("OTEL_SERVICE_NAME", "x")  # configures traces, asks for none
    assert _made() is None
    otel_env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
    otel_env.setenv("OTEL_TRACES_EXPORTER", "none")
    assert _made() is None
    otel_env.setenv("OTEL_TRACES_EXPORTER", "console")
    otel_env.setenv("OTEL_SDK_DISABLED", "true")
    assert _made() is None


def test_the_variables_choose_the_exporter_and_the_resource(otel_env: pytest.MonkeyPatch) -> None:
    otel_env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
    made = _made([HTTP_OTLP])  # OTLP over http/protobuf unless a protocol is named
    assert made is not None and made.provider.resource.attributes["service.name"] == "lawspeaker"
    otel_env.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    _made([GRPC_OTLP])
    otel_env.setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf")  # the traces' own wins
    _made([HTTP_OTLP])
    otel_env.delenv("OTEL_EXPORTER_OTLP_ENDPOINT")
    otel_env.setenv("OTEL_TRACES_EXPORTER", "console,otlp")
    otel_env.setenv("OTEL_SERVICE_NAME", "rules-eu")
    made = _made([CONSOLE, HTTP_OTLP])
    assert made is not None and made.provider.resource.attributes["service.name"] == "rules-eu"
    otel_env.setenv("OTEL_TRACES_EXPORTER", "no-such-exporter")  # logged, and no tracing
    assert _made() is None
