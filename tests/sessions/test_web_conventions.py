"""The session routes as a web or mobile client uses them with the platform's own tools (issue 35):
watch streams an ``EventSource`` resumes (each event's ``id`` is the session etag, ``Last-Event-ID``
resumes after it) and authenticates (a one-use watch ticket, never the seat token in the URL),
``If-None-Match`` answering 304, and GetSession's long poll. Against the in-process store and a real
Redis, over REST (``curl -N`` too), Connect and gRPC. The browser's own ``EventSource`` is in
tests/web/test_event_source.py."""

from __future__ import annotations

import contextlib
import json
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import httpx
import pytest
from transport.conftest import run_servers

from lawspeaker.sessions import service as session_service
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import MemoryStore
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import Running
from .test_session_transport import auth, create_rest, meta, reason_of

pytestmark = [pytest.mark.sessions, pytest.mark.transport]


@dataclass
class Event:
    """One Server-Sent Event as a browser's EventSource parses it (the ``id``, ``event`` and
    ``data`` fields), or a comment line."""

    event: str = "message"
    id: str | None = None
    data: str = ""
    comment: str = ""
    lines: list[str] = field(default_factory=list)

    @property
    def json(self) -> Any:
        return json.loads(self.data)


def read_events(response: httpx.Response, into: queue.Queue[Event]) -> None:
    """Each event (and comment) of an SSE response, as the text/event-stream format defines them."""
    current = Event()
    with contextlib.suppress(httpx.HTTPError):  # the test closes the stream when it is done
        for line in response.iter_lines():
            if line.startswith(":"):
                into.put(Event(event="", comment=line[1:].strip()))
                continue
            if not line:
                if current.data:  # an event with no data is not dispatched (a retry: field alone)
                    into.put(current)
                current = Event()
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            current.lines.append(line)
            if name == "id":
                current.id = value
            elif name == "event":
                current.event = value
            elif name == "data":
                current.data = f"{current.data}\n{value}" if current.data else value


@contextlib.contextmanager
def watching(
    running: Running, path: str, headers: dict[str, str] | None = None
) -> Iterator[queue.Queue[Event]]:
    events: queue.Queue[Event] = queue.Queue()
    with (
        httpx.Client(base_url=running.servers.base_url, timeout=30) as client,
        client.stream("GET", path, headers=headers or {}) as response,
    ):
        assert response.status_code == 200, response.read()
        threading.Thread(target=read_events, args=(response, events), daemon=True).start()
        yield events


def next_message(events: queue.Queue[Event]) -> Event:
    while True:
        event = events.get(timeout=10)
        if event.event == "message":
            return event


def move(running: Running, session: str, tokens: list[str]) -> str:
    """The seat to act plays its first legal move; the new etag."""
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
    assert r.status_code == 200, r.text
    etag: str = r.json()["session"]["etag"]
    return etag


# --------------------------------------------------------------------------- event ids and Last-Event-ID


def test_every_sse_event_carries_the_session_etag_as_its_id(running: Running) -> None:
    session, tokens, etag = create_rest(running.http)
    with watching(running, f"/v1/sessions/{session}:watch", auth(tokens[0])) as events:
        first = next_message(events)
        assert first.id == etag == first.json["session"]["etag"]
        for _ in range(2):
            new = move(running, session, tokens)
            got = next_message(events)
            assert got.id == new == got.json["session"]["etag"]
            assert "versionsSkipped" not in got.json
        running.http.delete(f"/v1/sessions/{session}", headers=auth(tokens[0]))
        deleted = next_message(events)
        assert deleted.json == {"deleted": True} and deleted.id is None


def test_last_event_id_resumes_after_the_version_the_client_had(running: Running) -> None:
    session, tokens, first = create_rest(running.http)
    path = f"/v1/sessions/{session}:watch"
    # resumed at the current version: nothing is sent again, the next change is
    with watching(running, path, {**auth(tokens[0]), "Last-Event-ID": first}) as events:
        opened = events.get(timeout=10)
        assert opened.comment and opened.event == ""
        second = move(running, session, tokens)
        got = next_message(events)
        assert got.id == second and "versionsSkipped" not in got.json
    third = move(running, session, tokens)
    fourth = move(running, session, tokens)
    # resumed at an older version: the current one, saying how many versions it skips
    with watching(running, path, {**auth(tokens[0]), "Last-Event-ID": first}) as events:
        got = next_message(events)
        assert got.id == fourth and got.json["session"]["etag"] == fourth
        assert got.json["versionsSkipped"] == int(fourth) - int(first) - 1 == 2
        assert int(third) < int(fourth)
    # the query parameter does the same for a client that reconnects by hand
    with watching(running, f"{path}?resumeAfterEtag={fourth}", auth(tokens[0])) as events:
        assert events.get(timeout=10).comment
    # gRPC and Connect resume alike
    stream = running.sessions.WatchSession(
        spb.WatchSessionRequest(session=session, resume_after_etag=third), metadata=meta(tokens[1])
    )
    update = next(iter(stream))
    assert update.session.etag == fourth and update.versions_skipped == 0
    stream.cancel()
    r = running.http.get(path, headers={"Last-Event-ID": "not-an-etag"})
    assert r.status_code == 400 and r.json()["reason"] == "ETAG_MALFORMED"
    assert r.json()["fieldViolations"][0]["field"] == "resumeAfterEtag"


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_n_follows_a_watch_with_event_ids(running: Running) -> None:
    """``curl -N`` (no buffering), as docs/sessions.md shows it: the events and their ids as sent."""
    session, tokens, etag = create_rest(running.http)
    url = f"{running.servers.base_url}/v1/sessions/{session}:watch"
    curl = subprocess.Popen(
        ["curl", "-sN", "-H", f"Authorization: Bearer {tokens[0]}", url], stdout=subprocess.PIPE, text=True
    )
    try:
        assert curl.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=lambda: [lines.put(x.rstrip("\n")) for x in curl.stdout or ()], daemon=True
        ).start()

        def next_id() -> str:
            while True:
                line = lines.get(timeout=10)
                if line.startswith("id:"):
                    return line.split(":", 1)[1].strip()

        assert next_id() == etag
        new = move(running, session, tokens)
        assert next_id() == new
    finally:
        curl.terminate()
        curl.wait(5)


# --------------------------------------------------------------------------- watch tickets


def test_a_watch_ticket_watches_as_its_seat_once(running: Running) -> None:
    session, tokens, etag = create_rest(running.http)
    ticket_path = f"/v1/sessions/{session}:watchTicket"
    r = running.http.post(ticket_path, json={})
    assert r.status_code == 403 and r.json()["reason"] == "SEAT_TOKEN_REQUIRED"
    r = running.http.post(ticket_path, json={}, headers=auth(tokens[1]))
    assert r.status_code == 200, r.text
    made = r.json()
    assert made["seat"] == 1 and made["expiresInSeconds"] == session_service.WATCH_TICKET_SECONDS
    ticket = made["ticket"]
    assert tokens[1] not in ticket
    with watching(running, f"/v1/sessions/{session}:watch?ticket={ticket}") as events:
        first = next_message(events)
        assert first.json["session"]["seat"] == 1 and first.id == etag
    r = running.http.get(f"/v1/sessions/{session}:watch?ticket={ticket}")
    assert r.status_code == 403 and r.json()["reason"] == "WATCH_TICKET_INVALID"
    # a ticket is for its session only
    other, other_tokens, _ = create_rest(running.http)
    ticket = running.http.post(ticket_path, json={}, headers=auth(tokens[0])).json()["ticket"]
    r = running.http.get(f"/v1/sessions/{other}:watch?ticket={ticket}")
    assert r.status_code == 403 and r.json()["reason"] == "WATCH_TICKET_INVALID"
    # never both, and never the seat token itself in the URL
    ticket = running.http.post(ticket_path, json={}, headers=auth(tokens[0])).json()["ticket"]
    r = running.http.get(f"/v1/sessions/{session}:watch?ticket={ticket}", headers=auth(tokens[0]))
    assert r.status_code == 400 and r.json()["reason"] == "WATCH_TICKET_WITH_TOKEN"
    for name in ("token", "access_token"):
        r = running.http.get(f"/v1/sessions/{session}:watch?{name}={tokens[0]}")
        assert r.status_code == 400 and r.json()["reason"] == "SEAT_TOKEN_IN_URL", r.text
        assert tokens[0] not in r.text
    # gRPC: the same tickets
    made_grpc = running.sessions.CreateWatchTicket(
        spb.CreateWatchTicketRequest(session=other), metadata=meta(other_tokens[0])
    )
    stream = running.sessions.WatchSession(spb.WatchSessionRequest(session=other, ticket=made_grpc.ticket))
    assert next(iter(stream)).session.seat == 0
    stream.cancel()
    again = running.sessions.WatchSession(spb.WatchSessionRequest(session=other, ticket=made_grpc.ticket))
    with pytest.raises(grpc.RpcError) as refused:
        next(iter(again))
    assert reason_of(refused.value) == "WATCH_TICKET_INVALID"


def test_an_expired_watch_ticket_is_refused() -> None:
    now = [1000.0]
    api = SessionApi(MemoryStore(clock=lambda: now[0]))
    with run_servers(sessions=lambda: api) as servers, httpx.Client(base_url=servers.base_url) as http:
        session, tokens, _ = create_rest(http)
        ticket = http.post(f"/v1/sessions/{session}:watchTicket", json={}, headers=auth(tokens[0])).json()
        now[0] += session_service.WATCH_TICKET_SECONDS + 0.5
        r = http.get(f"/v1/sessions/{session}:watch?ticket={ticket['ticket']}")
        assert r.status_code == 403 and r.json()["reason"] == "WATCH_TICKET_INVALID"


# --------------------------------------------------------------------------- If-None-Match and the long poll


def test_if_none_match_answers_304_with_the_etag_on_get_session_and_moves(running: Running) -> None:
    session, tokens, etag = create_rest(running.http)
    for path in (f"/v1/sessions/{session}", f"/v1/sessions/{session}/moves"):
        r = running.http.get(path)
        assert r.status_code == 200 and r.headers["etag"] == f'"{etag}"'
        for value in (f'"{etag}"', f'W/"{etag}"', f'"0", "{etag}"', "*"):
            r = running.http.get(path, headers={"If-None-Match": value})
            assert r.status_code == 304 and r.content == b"", (path, value)
            assert r.headers["etag"] == f'"{etag}"'
        assert running.http.get(path, headers={"If-None-Match": '"0"'}).status_code == 200
    new = move(running, session, tokens)
    for path in (f"/v1/sessions/{session}", f"/v1/sessions/{session}/moves"):
        r = running.http.get(path, headers={"If-None-Match": f'"{etag}"'})
        assert r.status_code == 200 and r.headers["etag"] == f'"{new}"'
    assert running.http.get(f"/v1/sessions/{session}/moves").json()["etag"] == new


def test_a_long_poll_answers_when_the_version_changes(running: Running) -> None:
    session, tokens, etag = create_rest(running.http)
    answered: queue.Queue[httpx.Response] = queue.Queue()

    def poll() -> None:
        with httpx.Client(base_url=running.servers.base_url, timeout=60) as client:
            answered.put(client.get(f"/v1/sessions/{session}?waitForChange={etag}", headers=auth(tokens[0])))

    threading.Thread(target=poll, daemon=True).start()
    with pytest.raises(queue.Empty):
        answered.get(timeout=0.3)  # it waits: nothing changed
    new = move(running, session, tokens)
    r = answered.get(timeout=10)
    assert r.status_code == 200 and r.headers["etag"] == f'"{new}"'
    assert r.json()["session"]["etag"] == new and r.json()["session"]["seat"] == 0
    # a version the session is already past answers at once
    started = time.monotonic()
    r = running.http.get(f"/v1/sessions/{session}?waitForChange={etag}")
    assert r.status_code == 200 and r.json()["session"]["etag"] == new
    assert time.monotonic() - started < 5
    r = running.http.get(f"/v1/sessions/{session}?waitForChange=seven")
    assert r.status_code == 400 and r.json()["reason"] == "ETAG_MALFORMED"
    assert r.json()["fieldViolations"][0]["field"] == "waitForChange"
    # over gRPC the same call waits alike
    got = running.sessions.GetSession(spb.GetSessionRequest(session=session, wait_for_change=etag))
    assert got.session.etag == new


def test_a_long_poll_answers_304_at_its_bound_and_counts_as_a_watch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_service, "LONG_POLL_SECONDS", 0.3)
    with (
        run_servers(sessions=lambda: SessionApi(MemoryStore(max_watchers=1))) as servers,
        httpx.Client(base_url=servers.base_url, timeout=30) as http,
    ):
        session, _tokens, etag = create_rest(http)
        r = http.get(f"/v1/sessions/{session}?waitForChange={etag}")
        assert r.status_code == 304 and r.headers["etag"] == f'"{etag}"' and r.content == b""
        with http.stream("GET", f"/v1/sessions/{session}:watch") as held:  # the one watch allowed
            assert held.status_code == 200
            r = http.get(f"/v1/sessions/{session}?waitForChange={etag}")
            assert r.status_code == 503 and r.json()["reason"] == "WATCH_LIMIT"
        # the watch was left (once the server has seen the connection close): the long poll may watch
        deadline = time.monotonic() + 10
        while (r := http.get(f"/v1/sessions/{session}?waitForChange={etag}")).status_code == 503:
            assert time.monotonic() < deadline, "the closed watch still counts"
            time.sleep(0.05)
        assert r.status_code == 304


# --------------------------------------------------------------------------- request ids


def test_every_answer_carries_a_request_id(running: Running) -> None:
    for path in ("/healthz", "/v1/games", "/v1/sessions/valhalla.none", "/nowhere"):
        r = running.http.get(path)
        assert len(r.headers["x-request-id"]) >= 16, path
    r = running.http.get("/v1/games", headers={"X-Request-Id": "my-call-7"})
    assert r.headers["x-request-id"] == "my-call-7"
    r = running.http.get("/v1/games", headers={"X-Request-Id": "bad id with spaces"})
    assert r.headers["x-request-id"] != "bad id with spaces"
