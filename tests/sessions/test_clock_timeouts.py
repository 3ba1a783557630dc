"""Turn clocks against real processes (issue 37): two `lawspeaker serve` replicas on one Redis of
this test's own (AOF, fsync always), a per-move clock of 2 s, and a seat whose person never moves.

Every deadline must be met by the bot within 1 s, exactly once, on whichever replica is alive: the
replica that fired the last timeout is SIGKILLed between two deadlines, Redis is SIGKILLed and
restarted from its AOF between two others, and a move sent 100 ms after a deadline is either
accepted (then no timeout move follows for it) or refused for its etag (then the timeout move is in
the log): the etag decides. A Fischer clock is checked to its increment, and resignations end a
2-player game over gRPC and take a seat out of a 4-player one over REST.

The figures (how late each timeout came, as seen by a poller every 50 ms) print under
``pytest -n 0 -s``. The main test takes about 45 s (ten 2-second deadlines in a row, as the issue
asks, the bot seat's moves between them, and the SIGKILLs): its length is the issue's own scenario. The
replica killed is the one that fired the last timeout, so the bot seat's move after it is left undone
with it: the other replica's timer makes it BOT_TAKEOVER_SECONDS (2 s) after that version was written.
"""

from __future__ import annotations

import contextlib
import datetime
import re
import shutil
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.v1 import session_service_pb2_grpc as spb_grpc

from .faults import Service, serve
from .ports import free_port
from .test_redis_restarts import PrivateRedis

pytestmark = [
    pytest.mark.sessions,
    pytest.mark.transport,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs a redis-server of its own"),
]

PER_MOVE = 2
DEADLINES = 10  # met by the bot, in a row
POLL = 0.05


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(free_port(), tmp_path, fsync="always")  # a SIGKILL loses nothing
    server.start(persist=True)
    server.answering()
    try:
        yield server
    finally:
        server.kill()


def when(rfc3339: str) -> float:
    return datetime.datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).timestamp()


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def timeouts_fired(service: Service) -> float:
    """The replica's ``lawspeaker_timeouts_total`` (every game and action)."""
    text = httpx.get(service.base_url + "/metrics", timeout=10).text
    return sum(float(v) for v in re.findall(r"^lawspeaker_timeouts_total\{[^}]*\} (\S+)$", text, re.M))


def moves(client: httpx.Client, session: str) -> list[dict[str, Any]]:
    got = client.get(f"/v1/sessions/{session}/moves", params={"pageSize": 1000})
    assert got.status_code == 200, got.text
    listed: list[dict[str, Any]] = got.json().get("moves", [])
    return listed


def test_a_seat_that_never_moves_is_moved_by_the_bot_at_each_deadline_on_whichever_replica_lives(
    redis: PrivateRedis,
) -> None:
    url = f"redis://127.0.0.1:{redis.port}"
    with contextlib.ExitStack() as stack:
        replicas = [stack.enter_context(serve(url)), stack.enter_context(serve(url))]
        clients = [stack.enter_context(httpx.Client(base_url=r.base_url, timeout=30)) for r in replicas]
        made = clients[0].post(
            "/v1/sessions",
            json={
                "game": "valhalla",
                "players": 2,
                "seed": "37",
                "bots": [{"seat": 1, "level": "BOT_LEVEL_GREEDY"}],
                "clock": {"perMoveSeconds": PER_MOVE, "onTimeout": "TIMEOUT_ACTION_BOT"},
            },
        )
        assert made.status_code == 200, made.text
        session = made.json()["session"]["session"]
        token = made.json()["seatTokens"][0]["token"]
        alive = [0, 1]
        late: list[float] = []  # seconds after each deadline its timeout was seen
        seen: dict[str, dict[str, Any]] = {}  # seat 0's deadlines -> the view that showed it
        fired: list[str] = []
        killed_replica = restarted_redis = False
        late_move: tuple[str, int] | None = None  # the deadline a move was sent after, its status
        before = [timeouts_fired(r) for r in replicas]
        stop_at = time.monotonic() + 90
        while len(fired) < DEADLINES + 1 and time.monotonic() < stop_at:
            client = clients[alive[-1]]
            try:
                view = client.get(f"/v1/sessions/{session}").json()["session"]
            except httpx.HTTPError:
                time.sleep(POLL)
                continue
            now = time.time()
            deadline = view["seats"][0].get("deadline", "")
            if deadline and deadline not in seen:
                seen[deadline] = view
                # a move 100 ms after the first deadline seen once 7 have fired (">=": a poll that
                # sees no deadline, on the bot's turn, fires the last one early, so the count at a
                # first sight can step over any one number, as it did in CI)
                if len(fired) >= 7 and late_move is None:
                    legal = client.post(f"/v1/sessions/{session}:legalMoves", json={}, headers=auth(token))
                    assert legal.json()["etag"] == view["etag"]
                    time.sleep(max(0.0, when(deadline) + 0.1 - time.time()))
                    sent = client.post(
                        f"/v1/sessions/{session}:applyMove",
                        json={"move": legal.json()["moves"][0], "etag": view["etag"], "requestId": "late"},
                        headers=auth(token),
                    )
                    assert sent.status_code in (200, 409, 412), sent.text
                    if sent.status_code != 200:
                        assert sent.json()["reason"] == "SESSION_ETAG_MISMATCH", sent.text
                    late_move = (deadline, sent.status_code)
            for pending in [d for d in seen if d not in fired and d != deadline]:
                fired.append(pending)
                if late_move is None or late_move[0] != pending or late_move[1] != 200:
                    late.append(now - when(pending))
                if len(fired) == 3 and not killed_replica:
                    # SIGKILL the replica that fired that timeout, before the next deadline
                    counts = [timeouts_fired(r) for r in replicas]
                    holder = max((0, 1), key=lambda i: counts[i] - before[i])
                    replicas[holder].proc.kill()
                    replicas[holder].proc.wait(10)
                    alive = [i for i in alive if i != holder]
                    killed_replica = True
                elif len(fired) == 6 and not restarted_redis:
                    redis.stop("SIGKILL")
                    redis.start(persist=True)
                    redis.answering()
                    restarted_redis = True
            time.sleep(POLL)

        assert killed_replica and restarted_redis and late_move is not None, (len(fired), late_move)
        assert len(fired) >= DEADLINES + 1, f"only {len(fired)} deadlines met: {fired}"
        log = moves(clients[alive[-1]], session)
        on_timeout = [m for m in log if m.get("onTimeout")]
        own = [m for m in log if m.get("seat", 0) == 0 and not m.get("chance") and not m.get("onTimeout")]
        accepted = late_move[1] == 200
        # exactly one move per deadline: the bot's, or the late one when the etag let it through
        assert len(on_timeout) + len(own) == len(seen) or len(on_timeout) + len(own) == len(fired), (
            len(on_timeout),
            len(own),
            len(seen),
            len(fired),
        )
        assert len(own) == (1 if accepted else 0)
        assert all(m.get("seat", 0) == 0 for m in on_timeout)
        assert max(late) < 1.0, late
        print(
            f"\n{len(late)} timeouts, seen by a {POLL * 1000:.0f} ms poller: median "
            f"{statistics.median(late):.3f} s, worst {max(late):.3f} s after the deadline; the late move "
            f"was {'accepted' if accepted else 'refused (etag)'}; deadlines at +"
            + ", +".join(f"{when(d) - when(fired[0]):.1f}" for d in fired)
            + " s"
        )


def test_a_fischer_clock_adds_its_increment_to_what_is_left() -> None:
    with serve("redis://127.0.0.1:6379") as replica, httpx.Client(base_url=replica.base_url) as client:
        made = client.post(
            "/v1/sessions",
            json={
                "game": "penki",
                "players": 2,
                "seed": "5",
                "clock": {"bankSeconds": 60, "incrementSeconds": 7, "onTimeout": "TIMEOUT_ACTION_NOTHING"},
            },
        ).json()
        session, tokens = made["session"]["session"], [t["token"] for t in made["seatTokens"]]
        view = client.get(f"/v1/sessions/{session}").json()["session"]
        for _ in range(6):
            if not view["toAct"] or not view.get("deadline"):
                break
            seat = view["toAct"][0]
            status = view["seats"][seat]
            assert status["timeLeftSeconds"] <= 60 + 7 * 6
            deadline = when(status["deadline"])
            legal = client.post(
                f"/v1/sessions/{session}:legalMoves", json={}, headers=auth(tokens[seat])
            ).json()
            time.sleep(0.3)
            answer = client.post(
                f"/v1/sessions/{session}:applyMove",
                json={"move": legal["moves"][0], "etag": view["etag"]},
                headers=auth(tokens[seat]),
            ).json()["session"]
            left_after = answer["seats"][seat]["timeLeftSeconds"]
            moved_at = when(answer["updateTime"])
            # what was left at the move (deadline - the move's time) plus the increment, to 50 ms
            assert abs(left_after - (deadline - moved_at + 7)) < 0.05, (left_after, deadline - moved_at + 7)
            assert left_after > status["timeLeftSeconds"] + 7 - 1.0  # 0.3 s spent, 7 s gained
            if seat in answer["toAct"]:  # the same seat again: its clock started afresh
                assert answer["seats"][seat]["deadline"]
            view = answer


def _rest_resign(client: httpx.Client, session: str, token: str, action: str = "") -> httpx.Response:
    return client.post(
        f"/v1/sessions/{session}:resign", json={"action": action} if action else {}, headers=auth(token)
    )


def test_resignation_ends_a_two_player_game_over_grpc_and_takes_a_seat_out_of_four_over_rest() -> None:
    with serve("redis://127.0.0.1:6379") as replica, httpx.Client(base_url=replica.base_url) as client:
        with grpc.insecure_channel(replica.target) as channel:
            stub = spb_grpc.SessionServiceStub(channel)
            made = stub.CreateSession(spb.CreateSessionRequest(game="valhalla", players=2, seed=3))
            session = made.session.session
            tokens = [("authorization", f"Bearer {t.token}") for t in made.seat_tokens]
            resigned = stub.ResignSeat(spb.ResignSeatRequest(session=session), metadata=[tokens[1]]).session
            assert resigned.game_over and resigned.result.reason == spb.RESULT_REASON_RESIGNATION
            assert list(resigned.result.winners) == [0]
            assert [(p.seat, p.place) for p in resigned.result.ranking] == [(0, 1), (1, 2)]
            assert resigned.seats[1].out
            log = stub.ListSessionMoves(spb.ListSessionMovesRequest(session=session)).moves
            assert log[-1].seat_event.kind == spb.SEAT_EVENT_KIND_RESIGNED and log[-1].seat_event.seat == 1
            with pytest.raises(grpc.RpcError) as refused:
                stub.ResignSeat(spb.ResignSeatRequest(session=session), metadata=[tokens[0]])
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "SESSION_OVER" in str(refused.value.trailing_metadata())

        made4 = client.post("/v1/sessions", json={"game": "pax_penning", "players": 4, "seed": "9"}).json()
        session, tokens4 = made4["session"]["session"], [t["token"] for t in made4["seatTokens"]]
        out = _rest_resign(client, session, tokens4[2])
        assert out.status_code == 200, out.text
        view = out.json()["session"]
        assert not view.get("gameOver") and view["seats"][2]["out"]
        assert {"seat": 2, "level": "BOT_LEVEL_GREEDY"}.items() <= next(
            b for b in view["bots"] if b["seat"] == 2
        ).items()
        again = _rest_resign(client, session, tokens4[2])
        assert again.status_code == 409 and again.json()["reason"] == "SEAT_RESIGNED", again.text
        handed = _rest_resign(client, session, tokens4[0], "RESIGN_ACTION_BOT")
        assert handed.status_code == 200 and not handed.json()["session"]["seats"][0].get("out")
        last = _rest_resign(client, session, tokens4[1])
        assert last.status_code == 200, last.text
        view = last.json()["session"]
        # seat 0 is a bot now, still in the game: two seats are in, so the game goes on
        assert not view.get("gameOver"), view.get("result")
        final = _rest_resign(client, session, tokens4[3])
        ended = final.json()["session"]
        assert ended["gameOver"] and ended["result"]["reason"] == "RESULT_REASON_RESIGNATION"
        assert ended["result"]["winners"] == [0]
        assert [(p.get("seat", 0), p["place"]) for p in ended["result"]["ranking"]] == [
            (0, 1),
            (3, 2),
            (1, 3),
            (2, 4),
        ]
        kinds = [m["seatEvent"]["kind"] for m in moves(client, session) if "seatEvent" in m]
        assert kinds == [
            "SEAT_EVENT_KIND_RESIGNED",
            "SEAT_EVENT_KIND_LEFT_TO_BOT",
            "SEAT_EVENT_KIND_RESIGNED",
            "SEAT_EVENT_KIND_RESIGNED",
        ]


def test_a_watch_makes_its_seat_connected_on_the_other_replica_within_two_seconds() -> None:
    """A gRPC watch of seat 1 on replica A: replica B shows the seat connected within 2 s of the watch
    opening, and not connected (last seen set) within 2 s of it closing."""
    with serve("redis://127.0.0.1:6379") as a, serve("redis://127.0.0.1:6379") as b:
        made = httpx.post(a.base_url + "/v1/sessions", json={"game": "valhalla", "players": 2}).json()
        session, token = made["session"]["session"], made["seatTokens"][1]["token"]

        def seat_on_b() -> dict[str, Any]:
            got = httpx.get(b.base_url + f"/v1/sessions/{session}").json()["session"]["seats"][1]
            status: dict[str, Any] = got
            return status

        assert not seat_on_b().get("connected")
        with grpc.insecure_channel(a.target) as channel:
            stub = spb_grpc.SessionServiceStub(channel)
            call = stub.WatchSession(
                spb.WatchSessionRequest(session=session), metadata=[("authorization", f"Bearer {token}")]
            )
            first = next(call)
            assert first.session.seats[1].connected  # its own replica knows at once
            opened = time.monotonic()
            while not seat_on_b().get("connected"):
                assert time.monotonic() - opened < 2.0, "B did not see the watch on A within 2 s"
                time.sleep(0.05)
            connected_after = time.monotonic() - opened
            call.cancel()
            closed = time.monotonic()
            status = seat_on_b()
            while status.get("connected"):
                assert time.monotonic() - closed < 2.0, "B still shows the seat connected 2 s after it left"
                time.sleep(0.05)
                status = seat_on_b()
            gone_after = time.monotonic() - closed
        assert status.get("lastSeen")
        print(f"\nconnected seen on B after {connected_after:.2f} s, gone after {gone_after:.2f} s")
