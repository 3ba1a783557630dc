"""The lobby against real processes (issue 38): two `lawspeaker serve` replicas on one Redis (a prefix
of this module's own). Claims of one open seat race across both replicas over REST and gRPC at
once, and exactly one wins; a reissued token stops working on the other replica at once; a hostile
display name is stored normalised and answered as the same text over both transports; the host
deletes a session of bots. The replicas start once for the module (about 3 s)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import secrets
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest

from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.v1 import session_service_pb2_grpc as spb_grpc

from .conftest import delete_prefix, redis_available
from .faults import Service, serve
from .test_session_transport import reason_of

pytestmark = [
    pytest.mark.sessions,
    pytest.mark.transport,
    pytest.mark.skipif(not redis_available(), reason="needs the Redis at 127.0.0.1:6379"),
]

ROUNDS = 12  # sessions whose one open seat is raced for
CLAIMS = 8  # claims racing for it, over both replicas and both transports
HOSTILE = "\u202e<img src=x\u0007 \t onerror=alert(1)>\u2066"
SHOWN = "<img src=x onerror=alert(1)>"  # controls and overrides gone, spaces made one, markup kept as text


@pytest.fixture(scope="module")
def replicas() -> Iterator[list[Service]]:
    prefix = f"lawspeaker-lobby-{secrets.token_hex(4)}"
    url = "redis://127.0.0.1:6379/0"
    with contextlib.ExitStack() as stack:
        stack.callback(delete_prefix, prefix)
        args = ("--redis-prefix", prefix, "--lobby-rate", "0")
        yield [stack.enter_context(serve(url, *args)), stack.enter_context(serve(url, *args))]


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def create(service: Service, **body: Any) -> dict[str, Any]:
    made = httpx.post(
        service.base_url + "/v1/sessions", json={"game": "valhalla", "players": 2, **body}, timeout=30
    )
    assert made.status_code == 200, made.text
    created: dict[str, Any] = made.json()
    return created


def claim_rest(service: Service, session: str, name: str) -> tuple[str, str]:
    """A claim over REST: ("won", token) or ("lost", reason)."""
    got = httpx.post(
        f"{service.base_url}/v1/sessions/{session}:claimSeat", json={"displayName": name}, timeout=30
    )
    if got.status_code == 200:
        return "won", got.json()["seatToken"]["token"]
    assert got.status_code == 409, got.text
    return "lost", got.json()["reason"]


def claim_grpc(service: Service, session: str, name: str) -> tuple[str, str]:
    with grpc.insecure_channel(service.target) as channel:
        stub = spb_grpc.SessionServiceStub(channel)
        try:
            got = stub.ClaimSeat(spb.ClaimSeatRequest(session=session, display_name=name), timeout=30)
        except grpc.RpcError as err:
            assert err.code() is grpc.StatusCode.FAILED_PRECONDITION, err
            return "lost", reason_of(err)
        return "won", got.seat_token.token


def test_of_racing_claims_across_replicas_and_transports_exactly_one_wins(replicas: list[Service]) -> None:
    outcomes: list[list[tuple[str, str]]] = []
    with concurrent.futures.ThreadPoolExecutor(CLAIMS) as pool:
        for round_ in range(ROUNDS):
            session = create(replicas[round_ % 2], openSeats=[1])["session"]["session"]
            start = threading.Barrier(CLAIMS)

            def one(i: int, session: str = session, start: threading.Barrier = start) -> tuple[str, str]:
                service, claim = replicas[i % 2], (claim_rest, claim_grpc)[(i // 2) % 2]
                start.wait()
                return claim(service, session, f"Player {i}")

            got = list(pool.map(one, range(CLAIMS)))
            outcomes.append(got)
            won = [token for kind, token in got if kind == "won"]
            assert len(won) == 1, got
            assert {reason for kind, reason in got if kind == "lost"} == {"SEAT_NOT_OPEN"}
            for service in replicas:  # the winner's token is the seat's on both replicas
                seen = httpx.get(
                    f"{service.base_url}/v1/sessions/{session}", headers=auth(won[0]), timeout=30
                )
                assert seen.json()["session"]["seat"] == 1
    print(f"\n{ROUNDS} open seats, {CLAIMS} claims each over 2 replicas and REST+gRPC: one winner every time")


def test_a_reissued_token_stops_at_once_on_the_other_replica(replicas: list[Service]) -> None:
    made = create(replicas[0])
    session, host, old = made["session"]["session"], made["hostToken"], made["seatTokens"][1]["token"]
    url = f"{replicas[0].base_url}/v1/sessions/{session}"
    assert (
        httpx.get(f"{replicas[1].base_url}/v1/sessions/{session}", headers=auth(old), timeout=30).status_code
        == 200
    )
    new = httpx.post(
        f"{url}:manageSeat",
        json={"seat": 1, "action": "SEAT_ACTION_REISSUE_TOKEN"},
        headers=auth(host),
        timeout=30,
    )
    assert new.status_code == 200, new.text
    token = new.json()["seatToken"]["token"]
    other = f"{replicas[1].base_url}/v1/sessions/{session}"
    refused = httpx.get(other, headers=auth(old), timeout=30)
    assert refused.status_code == 403 and refused.json()["reason"] == "SEAT_TOKEN_INVALID"
    with grpc.insecure_channel(replicas[1].target) as channel:
        stub = spb_grpc.SessionServiceStub(channel)
        with pytest.raises(grpc.RpcError) as err:
            stub.GetSession(
                spb.GetSessionRequest(session=session), metadata=[("authorization", f"Bearer {old}")]
            )
        assert err.value.code() is grpc.StatusCode.PERMISSION_DENIED
        seen = stub.GetSession(
            spb.GetSessionRequest(session=session), metadata=[("authorization", f"Bearer {token}")]
        )
        assert seen.session.seat == 1


def test_a_hostile_display_name_is_stored_normalised_and_answered_as_text(replicas: list[Service]) -> None:
    session = create(replicas[0], openSeats=[1])["session"]["session"]
    long = httpx.post(
        f"{replicas[1].base_url}/v1/sessions/{session}:claimSeat",
        json={"displayName": "x" * 10_240},
        timeout=30,
    )
    assert long.status_code == 400 and long.json()["reason"] == "DISPLAY_NAME_TOO_LONG"
    assert long.json()["fieldViolations"][0]["field"] == "displayName"
    kind, _ = claim_grpc(replicas[1], session, HOSTILE)
    assert kind == "won"
    rest = httpx.get(f"{replicas[0].base_url}/v1/sessions/{session}", timeout=30).json()["session"]
    assert rest["seats"][1]["displayName"] == SHOWN
    with grpc.insecure_channel(replicas[0].target) as channel:
        view = spb_grpc.SessionServiceStub(channel).GetSession(spb.GetSessionRequest(session=session))
        assert view.session.seats[1].display_name == SHOWN
        log = spb_grpc.SessionServiceStub(channel).ListSessionMoves(
            spb.ListSessionMovesRequest(session=session)
        )
        assert log.moves[-1].seat_event.display_name == SHOWN


def test_the_host_deletes_a_session_of_bots(replicas: list[Service]) -> None:
    bots = [{"seat": s, "level": "BOT_LEVEL_RANDOM"} for s in range(2)]
    made = create(replicas[0], bots=bots)
    session, host = made["session"]["session"], made["hostToken"]
    assert not made.get("seatTokens")
    gone = httpx.delete(f"{replicas[1].base_url}/v1/sessions/{session}", headers=auth(host), timeout=30)
    assert gone.status_code == 200, gone.text
    assert httpx.get(f"{replicas[0].base_url}/v1/sessions/{session}", timeout=30).status_code == 404
