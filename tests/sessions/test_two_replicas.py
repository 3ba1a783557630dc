"""Two `lawspeaker serve` processes on one Redis: a whole game with its moves alternating between them,
watched through the other replica."""

from __future__ import annotations

import contextlib
import json
import queue
import random
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from transport.test_serve_command import serving

from .conftest import REDIS_UP, REDIS_URL

pytestmark = [
    pytest.mark.sessions,
    pytest.mark.transport,
    pytest.mark.skipif(not REDIS_UP, reason="needs Redis"),
]


@pytest.fixture
def replicas() -> Iterator[list[str]]:
    # one replica told by flag, the other by environment
    with serving([(["--redis-url", REDIS_URL], {}), ([], {"LAWSPEAKER_REDIS_URL": REDIS_URL})]) as urls:
        yield urls


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def test_a_whole_game_alternating_between_two_replicas(replicas: list[str]) -> None:
    a, b = (httpx.Client(base_url=u, timeout=30) for u in replicas)
    made = a.post("/v1/sessions", json={"game": "valhalla", "players": 2, "seed": "2024"}).json()
    session = made["session"]["session"]
    tokens = [t["token"] for t in made["seatTokens"]]
    current = made["session"]
    watched: queue.Queue[dict[str, Any]] = queue.Queue()

    def watch() -> None:  # on replica A; every move below that replica B makes must reach it
        with (
            contextlib.suppress(httpx.HTTPError),
            httpx.Client(base_url=replicas[0], timeout=60) as client,
            client.stream("GET", f"/v1/sessions/{session}:watch", headers=auth(tokens[1])) as response,
        ):
            for line in response.iter_lines():
                if line.startswith("data:"):
                    watched.put(json.loads(line[5:]))

    threading.Thread(target=watch, daemon=True).start()
    assert watched.get(timeout=10)["session"]["etag"] == current["etag"]
    chooser = random.Random(5)
    plies = 0
    while not current.get("gameOver"):
        client = (a, b)[plies % 2]
        seat = current["toAct"][0]
        listed = client.post(f"/v1/sessions/{session}:legalMoves", json={}, headers=auth(tokens[seat])).json()
        assert listed["etag"] == current["etag"], "the other replica's write is visible"
        r = client.post(
            f"/v1/sessions/{session}:applyMove",
            json={
                "move": chooser.choice(listed["moves"]),
                "etag": current["etag"],
                "requestId": f"ply-{plies}",
            },
            headers=auth(tokens[seat]),
        )
        assert r.status_code == 200, r.text
        current = r.json()["session"]
        plies += 1
        if plies <= 20:  # the watcher on A sees B's moves too (pub/sub through Redis)
            update = watched.get(timeout=10)
            while update["session"]["etag"] != current["etag"]:
                update = watched.get(timeout=10)
        assert plies < 5000
    assert current["outcome"]["result"] == "GAME_RESULT_WIN"
    log = b.get(f"/v1/sessions/{session}/moves", params={"pageSize": 1000}).json()
    assert int(log["totalSize"]) == plies
    assert b.delete(f"/v1/sessions/{session}", headers=auth(tokens[0])).status_code == 200
    assert a.get(f"/v1/sessions/{session}").status_code == 404
    a.close()
    b.close()
