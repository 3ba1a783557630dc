"""A browser's own ``EventSource`` watching a session (issue 35): no library of ours in the page.

It authenticates with a watch ticket (an ``EventSource`` cannot send an Authorization header), gets the
session etag as each event's ``lastEventId``, and when the stream ends under it (the replica's
watch connection to Redis is killed) it reconnects by itself with ``Last-Event-ID`` and is not sent
the version it had again. Its own module-scoped server and browser (some 3 s): the page is a blank
page of the service's origin, not the web app.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import redis

from .conftest import REDIS_URL, Server

pytestmark = pytest.mark.transport

WATCH = """
({path, into}) => {
  window[into] = {events: [], errors: 0, states: []};
  const source = new EventSource(path);
  window[into].source = source;
  source.onmessage = (e) => window[into].events.push({id: e.lastEventId, data: JSON.parse(e.data)});
  source.onerror = () => { window[into].errors += 1; window[into].states.push(source.readyState); };
}
"""


def _session(server: Server) -> tuple[str, list[str], str]:
    r = httpx.post(f"{server.base_url}/v1/sessions", json={"game": "valhalla", "players": 2, "seed": "5"})
    assert r.status_code == 200, r.text
    body = r.json()
    return body["session"]["session"], [t["token"] for t in body["seatTokens"]], body["session"]["etag"]


def _move(server: Server, session: str, tokens: list[str]) -> str:
    got = httpx.get(f"{server.base_url}/v1/sessions/{session}").json()["session"]
    seat = got["toAct"][0]
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    listed = httpx.post(f"{server.base_url}/v1/sessions/{session}:legalMoves", json={}, headers=auth).json()
    r = httpx.post(
        f"{server.base_url}/v1/sessions/{session}:applyMove",
        json={"move": listed["moves"][0], "etag": got["etag"]},
        headers=auth,
    )
    assert r.status_code == 200, r.text
    etag: str = r.json()["session"]["etag"]
    return etag


def _events(page: Any, into: str, count: int) -> list[dict[str, Any]]:
    page.wait_for_function(f"window.{into}.events.length >= {count}", timeout=10_000)
    events: list[dict[str, Any]] = page.evaluate(f"window.{into}.events")
    return events


def test_an_event_source_watches_with_a_ticket_and_resumes_with_last_event_id(
    server: Server, browser: Any
) -> None:
    session, tokens, first = _session(server)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{server.base_url}/healthz")  # the service's origin: same-origin requests
        ticket = page.evaluate(
            """async ({session, token}) => {
                const r = await fetch(`/v1/sessions/${session}:watchTicket`, {
                  method: "POST", body: "{}",
                  headers: {Authorization: `Bearer ${token}`, "Content-Type": "application/json"}});
                return await r.json();
            }""",
            {"session": session, "token": tokens[1]},
        )
        assert ticket["seat"] == 1
        page.evaluate(
            WATCH, {"path": f"/v1/sessions/{session}:watch?ticket={ticket['ticket']}", "into": "seat"}
        )
        page.evaluate(WATCH, {"path": f"/v1/sessions/{session}:watch", "into": "public"})
        [seen] = _events(page, "seat", 1)
        assert seen["id"] == first and seen["data"]["session"]["seat"] == 1
        [seen] = _events(page, "public", 1)
        assert seen["id"] == first and "seat" not in seen["data"]["session"]
        second = _move(server, session, tokens)
        assert [e["id"] for e in _events(page, "public", 2)] == [first, second]
        assert _events(page, "seat", 2)[1]["id"] == second

        # the stream ends under both (the replica's pub/sub connection to Redis is lost): each
        # EventSource reconnects to the same URL by itself, sending Last-Event-ID
        client = redis.Redis.from_url(REDIS_URL)
        killed = [c for c in client.client_list() if c.get("name") == f"{server.prefix}-watchers"]
        assert killed, "the replica's watch connection is not in CLIENT LIST"
        for c in killed:
            client.client_kill_filter(_id=c["id"])
        client.close()
        page.wait_for_function(
            "window.public.errors >= 1 && window.public.source.readyState === 1", timeout=15_000
        )
        third = _move(server, session, tokens)
        events = _events(page, "public", 3)
        # resumed after `second`: not sent again; the next version came with its id
        assert [e["id"] for e in events] == [first, second, third]
        assert "versionsSkipped" not in events[2]["data"]

        # the seat's ticket worked once: its reconnection is refused and the EventSource stays closed;
        # the page watches again with a new ticket, resuming after the last id it had
        page.wait_for_function("window.seat.source.readyState === 2", timeout=15_000)
        fourth = _move(server, session, tokens)
        page.evaluate(
            """async ({session, token, after}) => {
                const r = await fetch(`/v1/sessions/${session}:watchTicket`, {
                  method: "POST", body: "{}",
                  headers: {Authorization: `Bearer ${token}`, "Content-Type": "application/json"}});
                const {ticket} = await r.json();
                window.again = {events: [], errors: 0, states: []};
                const source = new EventSource(
                  `/v1/sessions/${session}:watch?ticket=${ticket}&resumeAfterEtag=${after}`);
                window.again.source = source;
                source.onmessage = (e) =>
                  window.again.events.push({id: e.lastEventId, data: JSON.parse(e.data)});
            }""",
            {"session": session, "token": tokens[1], "after": second},
        )
        [resumed] = _events(page, "again", 1)
        assert resumed["id"] == fourth and resumed["data"]["session"]["seat"] == 1
        assert resumed["data"]["versionsSkipped"] == int(fourth) - int(second) - 1
        page.evaluate("window.again.source.close(); window.public.source.close()")
    finally:
        context.close()
