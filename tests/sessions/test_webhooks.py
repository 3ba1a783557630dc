"""Webhooks end to end (issue 38) on both servers, over REST and gRPC, with sessions in the process
(MemoryStore) and in Redis: a receiver on loopback (allowed by the servers' configuration) gets each
version's events at the session's own endpoint and the server's, in order, signed with each one's
secret (checked with ``standardwebhooks``), with no token in any body; a running clock's reminder
arrives before its deadline; and a CreateSession naming an endpoint in the deployment's own networks
is refused, naming the field, by servers that allow none."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from transport.conftest import run_servers

from lawspeaker.sessions import webhooks
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import MemoryStore, RedisStore, SessionStore
from lawspeaker.sessions.webhooks import Allowlist, Config
from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.v1 import session_service_pb2_grpc as spb_grpc

from .conftest import REDIS_UP, REDIS_URL, delete_prefix
from .webhook_receiver import Delivery, Receiver, verify

pytestmark = [pytest.mark.sessions, pytest.mark.transport]
SERVER_SECRET = webhooks.new_secret()
WAIT = 30.0  # seconds a delivery may take at most here (it takes milliseconds)


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        yield r


class Both:
    """Both servers of one store, their clients, and the receiver they notify."""

    def __init__(self, base_url: str, grpc_port: int, receiver: Receiver) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=30)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
        self.stub = spb_grpc.SessionServiceStub(self.channel)
        self.receiver = receiver
        self.server_path = ""

    def close(self) -> None:
        self.http.close()
        self.channel.close()


@pytest.fixture(scope="module", params=["memory", "redis"])
def both(request: pytest.FixtureRequest, receiver: Receiver) -> Iterator[Both]:
    if request.param == "redis" and not REDIS_UP:
        pytest.skip(f"no Redis at {REDIS_URL}")
    prefix = f"lawspeaker-test-{secrets.token_hex(6)}"
    server_path = f"/server/{request.param}"
    config = Config(
        url=receiver.url(server_path),
        secret=SERVER_SECRET,
        allow=Allowlist.parse("127.0.0.1"),
        retry_seconds=60,
    )

    def make() -> SessionApi:
        store: SessionStore = (
            MemoryStore() if request.param == "memory" else RedisStore(REDIS_URL, prefix=prefix)
        )
        return SessionApi(store, webhook_config=config)

    with run_servers(sessions=make) as servers:
        pair = Both(servers.base_url, servers.grpc_port, receiver)
        pair.server_path = server_path
        yield pair
        pair.close()
    if request.param == "redis":
        delete_prefix(prefix)


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def expected(session: str, versions: list[tuple[int, list[int]]], ended_at: int | None) -> list[str]:
    """The ids the versions (revision, seats to act) imply, in order: each seat that becomes to act,
    then the end. (No bot, no clock: the seats to act are the people the server waits on.)"""
    ids, before = [], None
    for rev, to_act in versions:
        for seat in to_act:
            if before is None or seat not in before:
                ids.append(webhooks.event_id(session, rev, "seat.to_act", seat))
        before = to_act
    if ended_at is not None:
        ids.append(webhooks.event_id(session, ended_at, "game.ended"))
    return ids


def for_session(deliveries: list[Delivery], session: str) -> list[Delivery]:
    return [d for d in deliveries if d.status < 300 and d.event["data"]["session"] == session]


def test_each_version_s_events_reach_both_endpoints_in_order_signed_over_rest_and_grpc(both: Both) -> None:
    receiver = both.receiver
    path = f"/session/{secrets.token_hex(4)}"
    made = both.http.post(
        "/v1/sessions",
        json={"game": "valhalla", "players": 2, "seed": "38", "webhook": {"url": receiver.url(path)}},
    )
    assert made.status_code == 200, made.text
    body = made.json()
    secret = body["webhookSecret"]
    assert webhooks.valid_secret(secret)
    session = body["session"]["session"]
    tokens = [t["token"] for t in body["seatTokens"]]
    assert "webhook" not in body["session"]  # the endpoint and its secret are never shown again
    view = both.http.get(f"/v1/sessions/{session}").json()["session"]
    assert "webhook" not in view and secret not in str(view)
    versions = [(int(body["session"]["etag"]), body["session"]["toAct"])]
    current = body["session"]
    grpc_metadata = [(("authorization", f"Bearer {t}"),) for t in tokens]
    for ply in range(10):  # seat 0 plays over REST, seat 1 over gRPC
        seat = current["toAct"][0]
        if seat == 0:
            legal = both.http.post(f"/v1/sessions/{session}:legalMoves", json={}, headers=auth(tokens[0]))
            answer = both.http.post(
                f"/v1/sessions/{session}:applyMove",
                json={"move": legal.json()["moves"][0], "etag": current["etag"], "requestId": f"m{ply}"},
                headers=auth(tokens[0]),
            )
            assert answer.status_code == 200, answer.text
            current = answer.json()["session"]
        else:
            moves = both.stub.SessionLegalMoves(
                spb.SessionLegalMovesRequest(session=session), metadata=grpc_metadata[1]
            ).moves
            applied = both.stub.SessionApplyMove(
                spb.SessionApplyMoveRequest(session=session, move=moves[0], etag=current["etag"]),
                metadata=grpc_metadata[1],
            ).session
            current = {"etag": applied.etag, "toAct": list(applied.to_act)}
        versions.append((int(current["etag"]), list(current["toAct"])))
    resigned = both.stub.ResignSeat(spb.ResignSeatRequest(session=session), metadata=grpc_metadata[1]).session
    ended = int(resigned.etag)
    want = expected(session, versions, ended)

    def arrived(deliveries: list[Delivery]) -> bool:
        at = {d.id for d in deliveries if d.status < 300 and d.path in (path, both.server_path)}
        return all(i in at for i in want) and len(for_session(deliveries, session)) >= 2 * len(want)

    receiver.wait_for(arrived, WAIT)
    own = [d for d in receiver.accepted(path)]
    server = for_session(receiver.accepted(both.server_path), session)
    assert [d.id for d in own] == want  # in order, each once
    assert [d.id for d in server] == want
    assert verify(own, secret) == len(want)
    assert verify(server, SERVER_SECRET) == len(want)
    ended_event = own[-1].event
    assert ended_event["type"] == "game.ended" and ended_event["data"]["etag"] == str(ended)
    assert ended_event["data"]["winners"] == [{"seat": 0, "displayName": ""}]
    for d in own:
        assert d.headers["content-type"] == "application/json"
        assert not any(token in d.body.decode() for token in tokens)
        assert d.event["data"]["game"] == "valhalla"


def test_a_session_created_over_grpc_gets_its_secret_and_its_first_event(both: Both) -> None:
    receiver = both.receiver
    path = f"/session/{secrets.token_hex(4)}"
    made = both.stub.CreateSession(
        spb.CreateSessionRequest(
            game="penki",
            players=2,
            seed=4,
            display_names=["Astrid", "Bjorn"],
            webhook=spb.Webhook(url=receiver.url(path)),
        )
    )
    assert made.webhook_secret.startswith("whsec_")
    session = made.session.session
    first = webhooks.event_id(session, 1, "seat.to_act", made.session.to_act[0])
    got = receiver.wait_for(lambda ds: any(d.id == first and d.status < 300 for d in ds), WAIT)
    mine = [d for d in got if d.path == path]
    assert verify(mine, made.webhook_secret) == 1
    assert mine[0].event["data"]["displayName"] == ["Astrid", "Bjorn"][made.session.to_act[0]]


def test_a_running_clock_s_reminder_arrives_before_its_deadline(both: Both) -> None:
    """A 4-second move: the reminder is due a quarter of it, 1 s, before the deadline, and the seat
    never moves (the clock's timeout does nothing). The test waits those 3 s for it: that is the
    event's own schedule."""
    receiver = both.receiver
    path = f"/session/{secrets.token_hex(4)}"
    made = both.http.post(
        "/v1/sessions",
        json={
            "game": "valhalla",
            "players": 2,
            "seed": "7",
            "clock": {"perMoveSeconds": 4, "onTimeout": "TIMEOUT_ACTION_NOTHING"},
            "webhook": {"url": receiver.url(path)},
        },
    ).json()
    session, secret = made["session"]["session"], made["webhookSecret"]

    def reminded(deliveries: list[Delivery]) -> bool:
        return any(
            d.path == path and d.status < 300 and d.event["type"] == "clock.running_out" for d in deliveries
        )

    got = receiver.wait_for(reminded, WAIT)
    reminder = next(d for d in got if d.path == path and d.event["type"] == "clock.running_out")
    verify([reminder], secret)
    view = both.http.get(f"/v1/sessions/{session}").json()["session"]
    seat = reminder.event["data"]["seat"]
    assert reminder.event["data"]["etag"] == view["etag"]  # the version it reminds of is current
    assert reminder.event["data"]["deadline"] == view["seats"][seat]["deadline"]
    assert reminder.event["data"]["secondsLeft"] == 1
    to_act = [d for d in got if d.path == path and d.event["type"] == "seat.to_act"]
    assert to_act and to_act[0].event["data"]["deadline"] == view["seats"][seat]["deadline"]


# --------------------------------------------------------------------------- refusals


@pytest.fixture(scope="module")
def strict() -> Iterator[Both]:
    """Servers with the default webhook settings: no allowlist."""
    with Receiver() as nobody, run_servers(sessions=lambda: SessionApi(MemoryStore())) as servers:
        pair = Both(servers.base_url, servers.grpc_port, nobody)
        yield pair
        pair.close()
        assert nobody.snapshot() == []


def grpc_refusal(err: grpc.RpcError) -> tuple[str, str]:
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None
    reason = field = ""
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = info.reason
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            field = bad.field_violations[0].field
    return reason, field


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://127.0.0.1/hook", "WEBHOOK_HOST_NOT_ALLOWED"),
        ("https://10.20.30.40/hook", "WEBHOOK_HOST_NOT_ALLOWED"),
        ("https://169.254.169.254/latest/meta-data/", "WEBHOOK_HOST_NOT_ALLOWED"),
        ("https://localhost:8443/hook", "WEBHOOK_HOST_NOT_ALLOWED"),  # a name resolving to loopback
        ("https://[::ffff:127.0.0.1]/hook", "WEBHOOK_HOST_NOT_ALLOWED"),
        ("http://127.0.0.1:9/hook", "WEBHOOK_URL_INVALID"),  # plain http, not allowed
        ("file:///etc/passwd", "WEBHOOK_URL_INVALID"),
    ],
)
def test_a_webhook_in_the_deployment_s_own_networks_is_refused_naming_the_field(
    strict: Both, url: str, reason: str
) -> None:
    r = strict.http.post("/v1/sessions", json={"game": "valhalla", "players": 2, "webhook": {"url": url}})
    assert r.status_code == 400, r.text
    problem: dict[str, Any] = r.json()
    assert problem["reason"] == reason and problem["fieldViolations"][0]["field"] == "webhook.url", problem
    with pytest.raises(grpc.RpcError) as refused:
        strict.stub.CreateSession(
            spb.CreateSessionRequest(game="valhalla", players=2, webhook=spb.Webhook(url=url))
        )
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert grpc_refusal(refused.value) == (reason, "webhook.url")
