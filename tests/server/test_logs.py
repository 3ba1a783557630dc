"""``lawspeaker.server.logs``: the JSON and text formatters, the filter that gives a line written during a
call that call's fields, the access line built from a call record, ``configure`` (warnings and, in
JSON, an uncaught exception go through the same handler), and the HTTP middleware's part in the
access line (request id, trace id, HTTP method and path without the query string)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import re
import sys
import warnings
from collections.abc import Iterator, MutableMapping
from typing import Any

import pytest

from lawspeaker.observe import calls
from lawspeaker.server import logs

TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


class Captured:
    """``lawspeaker.test`` and the access logger, formatted as ``lawspeaker serve`` formats its log,
    written to a string."""

    def __init__(self, fmt: str, several: bool = False) -> None:
        self.stream = io.StringIO()
        self.handler = logging.StreamHandler(self.stream)
        self.handler.setFormatter(logs.formatter(fmt, several))
        self.handler.addFilter(logs.CallFields())
        self.log = logging.getLogger("lawspeaker.test")

    def __enter__(self) -> Captured:
        self.saved = [(lg, lg.level, lg.propagate) for lg in (self.log, logs.ACCESS)]
        for lg in (self.log, logs.ACCESS):
            lg.addHandler(self.handler)
            lg.setLevel(logging.DEBUG)
            lg.propagate = False
        return self

    def __exit__(self, *_: object) -> None:
        for lg, level, propagate in self.saved:
            lg.removeHandler(self.handler)
            lg.setLevel(level)
            lg.propagate = propagate

    def lines(self) -> list[str]:
        return self.stream.getvalue().splitlines()

    def objects(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines()]


@pytest.fixture
def in_a_call() -> Iterator[calls.Call]:
    """A gRPC LegalMoves call of Valhalla being served, with the access log's ids."""
    call = calls.Call("grpc", "RulesService", "LegalMoves")
    call.game = "valhalla"
    call.request_id = "req-1"
    call.trace_id = TRACE_ID
    token = calls.CURRENT.set(call)
    yield call
    calls.CURRENT.reset(token)


# --------------------------------------------------------------------------- JSON lines


def test_a_json_line_has_time_level_logger_and_message_first() -> None:
    with Captured("json") as out:
        out.log.warning("hello %s", "there")
    (line,) = out.lines()
    obj = json.loads(line)
    assert list(obj) == ["time", "level", "logger", "message"], obj
    assert TIME.match(obj["time"]), obj["time"]
    assert (obj["level"], obj["logger"], obj["message"]) == ("WARNING", "lawspeaker.test", "hello there")


def test_extra_fields_are_kept_but_uvicorns_color_message_is_not() -> None:
    with Captured("json") as out:
        out.log.info(
            "Started server process [%d]", 7, extra={"color_message": "\x1b[36m%d\x1b[0m", "port": 5}
        )
    (obj,) = out.objects()
    assert obj["message"] == "Started server process [7]"
    assert obj["port"] == 5
    assert "color_message" not in obj and "\x1b" not in out.stream.getvalue()


def test_an_exception_is_one_json_object_with_its_traceback() -> None:
    with Captured("json") as out:
        try:
            raise ValueError("boom")
        except ValueError:
            out.log.exception("unexpected error in %s", "LegalMoves")
    (line,) = out.lines()
    obj = json.loads(line)
    assert (obj["level"], obj["message"]) == ("ERROR", "unexpected error in LegalMoves")
    assert obj["exc_info"].startswith("Traceback (most recent call last):")
    assert obj["exc_info"].rstrip().endswith("ValueError: boom")


def test_a_line_written_during_a_call_carries_the_call(in_a_call: calls.Call) -> None:
    async def deeper() -> None:  # a task started while serving the call copies its context
        logging.getLogger("lawspeaker.test").info("in a task")

    with Captured("json") as out:
        out.log.info("while serving")
        asyncio.run(deeper())
        token = calls.CURRENT.set(None)
        out.log.info("between calls")
        calls.CURRENT.reset(token)
    during, in_task, between = out.objects()
    for obj in (during, in_task):
        assert {k: obj[k] for k in ("transport", "service", "method", "game", "request_id", "trace_id")} == {
            "transport": "grpc",
            "service": "RulesService",
            "method": "LegalMoves",
            "game": "valhalla",
            "request_id": "req-1",
            "trace_id": TRACE_ID,
        }
    assert list(between) == ["time", "level", "logger", "message"], between


def test_without_the_access_log_a_call_has_no_ids_to_add(in_a_call: calls.Call) -> None:
    in_a_call.request_id = in_a_call.trace_id = ""
    with Captured("json") as out:
        out.log.info("while serving")
    (obj,) = out.objects()
    assert obj["transport"] == "grpc" and "request_id" not in obj and "trace_id" not in obj


def test_with_several_processes_each_line_names_its_own() -> None:
    with Captured("json", several=True) as out:
        out.log.info("one")
    assert out.objects()[0]["pid"] == os.getpid()
    with Captured("text", several=True) as out:
        out.log.info("one")
    assert f" lawspeaker.test[{os.getpid()}]: one" in out.lines()[0]


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown log format 'xml'"):
        logs.formatter("xml")


# --------------------------------------------------------------------------- text lines


def test_a_text_line_is_time_level_logger_and_message(in_a_call: calls.Call) -> None:
    with Captured("text") as out:
        token = calls.CURRENT.set(None)
        out.log.info("plain")
        calls.CURRENT.reset(token)
        out.log.warning("during the call")
    plain, during = out.lines()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO lawspeaker\.test: plain", plain), plain
    assert during.endswith(
        " WARNING lawspeaker.test: during the call [grpc RulesService/LegalMoves valhalla request_id=req-1]"
    )


# --------------------------------------------------------------------------- access lines


def test_the_access_line_of_an_http_call() -> None:
    call = calls.Call("rest", "RulesService", "DescribeGame")
    call.game, call.code, call.status = "valhalla", "OK", 200
    call.http_method, call.path = "GET", "/v1/games/valhalla"
    call.request_id, call.trace_id = "req-2", TRACE_ID
    with Captured("json") as out:
        logs.access_line(call, 0.0123)
    (obj,) = out.objects()
    assert obj["logger"] == "lawspeaker.access" and obj["level"] == "INFO"
    assert obj["message"] == (
        f"rest GET /v1/games/valhalla 200 RulesService/DescribeGame valhalla OK in 12.30 ms request_id=req-2 "
        f"trace_id={TRACE_ID}"
    )
    del obj["time"], obj["message"]
    assert obj == {
        "level": "INFO",
        "logger": "lawspeaker.access",
        "transport": "rest",
        "service": "RulesService",
        "method": "DescribeGame",
        "game": "valhalla",
        "code": "OK",
        "duration_ms": 12.3,
        "request_id": "req-2",
        "trace_id": TRACE_ID,
        "status": 200,
        "http_method": "GET",
        "path": "/v1/games/valhalla",
    }


def test_the_access_line_of_a_refused_grpc_call_written_inside_another(in_a_call: calls.Call) -> None:
    call = calls.Call("grpc", "SessionService", "SessionApplyMove")
    call.game, call.code, call.reason, call.request_id = (
        "valhalla",
        "FAILED_PRECONDITION",
        "NOT_YOUR_TURN",
        "r3",
    )
    with Captured("json") as out:
        logs.access_line(call, 0.001)
    (obj,) = out.objects()
    assert obj["method"] == "SessionApplyMove", "the line's own call, not the current one"
    assert (obj["code"], obj["reason"], obj["trace_id"]) == ("FAILED_PRECONDITION", "NOT_YOUR_TURN", "")
    assert not {"status", "http_method", "path"} & set(obj), obj
    assert obj["message"].startswith(
        "grpc SessionService/SessionApplyMove valhalla FAILED_PRECONDITION (NOT_YOUR_TURN) in 1.00 ms"
    )


# --------------------------------------------------------------------------- configure


@pytest.fixture
def configured() -> Iterator[io.StringIO]:
    """``logs.configure("json")`` on the root logger, undone afterwards."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level, sys.excepthook
    stream = io.StringIO()
    logs.configure("json", stream=stream)
    try:
        yield stream
    finally:
        logging.captureWarnings(False)
        for handler in root.handlers[:]:
            root.removeHandler(handler)
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
        sys.excepthook = saved[2]


def test_warnings_and_an_uncaught_exception_are_json_lines_too(configured: io.StringIO) -> None:
    logging.getLogger("grpc._cython.cygrpc").error("a line of grpc's")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn("something is deprecated", DeprecationWarning, stacklevel=1)
    try:
        raise RuntimeError("nobody caught me")
    except RuntimeError as err:
        sys.excepthook(type(err), err, err.__traceback__)
    grpc_line, warned, uncaught = (json.loads(line) for line in configured.getvalue().splitlines())
    assert (grpc_line["logger"], grpc_line["level"]) == ("grpc._cython.cygrpc", "ERROR")
    assert warned["logger"] == "py.warnings" and "something is deprecated" in warned["message"]
    assert uncaught["level"] == "CRITICAL" and "RuntimeError: nobody caught me" in uncaught["exc_info"]


# --------------------------------------------------------------------------- the HTTP edge

Message = MutableMapping[str, Any]


def run_middleware(headers: list[tuple[bytes, bytes]], path: str, query: bytes) -> tuple[calls.Call, Message]:
    """One GET through :func:`calls.http_middleware`: the call it finished and its answer's start."""
    seen: dict[str, Any] = {}

    async def app(scope: Message, receive: Any, send: Any) -> None:
        seen["call"] = calls.CURRENT.get()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            seen["start"] = message

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "method": "GET", "path": path, "query_string": query, "headers": headers}

    async def main() -> None:
        await calls.http_middleware(app)(scope, receive, send)

    asyncio.run(main())
    return seen["call"], seen["start"]


@pytest.fixture
def access_log(monkeypatch: pytest.MonkeyPatch) -> list[calls.Call]:
    """The access log on (and metrics off), recording the finished calls."""
    finished: list[calls.Call] = []
    monkeypatch.setattr(calls, "_metrics", False)
    monkeypatch.setattr(calls, "_access_log", lambda call, seconds: finished.append(call))
    return finished


def test_the_middleware_gives_the_access_line_its_ids_method_and_path(access_log: list[calls.Call]) -> None:
    headers = [(b"X-Request-Id", b"abc-1"), (b"traceparent", TRACEPARENT.encode())]
    call, start = run_middleware(
        headers, "/lawspeaker.v1.RulesService/DescribeGame", b"message=%7B%22x%22%7D"
    )
    assert access_log == [call]
    assert (call.transport, call.status, call.code) == ("connect", 200, "OK")
    assert (call.http_method, call.path) == ("GET", "/lawspeaker.v1.RulesService/DescribeGame")
    assert (call.request_id, call.trace_id) == ("abc-1", TRACE_ID)
    assert (b"x-request-id", b"abc-1") in start["headers"]


def test_the_middleware_makes_a_request_id_for_an_implausible_one(access_log: list[calls.Call]) -> None:
    call, start = run_middleware([(b"x-request-id", b"has space")], "/v1/games", b"")
    assert re.fullmatch(r"[0-9a-f]{16}", call.request_id)
    assert (b"x-request-id", call.request_id.encode()) in start["headers"]
    assert call.trace_id == "" and call.transport == "rest"


def test_without_the_access_log_the_middleware_only_echoes_the_request_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every answer carries X-Request-Id (issue 35), access log or not; the rest of what a line
    needs (method, path, trace id) is read only for the access log."""
    monkeypatch.setattr(calls, "_metrics", False)
    monkeypatch.setattr(calls, "_access_log", None)
    headers = [(b"x-request-id", b"abc-1"), (b"traceparent", TRACEPARENT.encode())]
    call, start = run_middleware(headers, "/v1/games", b"q=1")
    assert (call.http_method, call.path, call.trace_id) == ("", "", "")
    assert start["headers"] == [(b"x-request-id", b"abc-1")]
