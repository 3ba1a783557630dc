"""The Python client (clients/python, installed as lawspeaker-client) against real servers on
loopback, over gRPC and over REST: whole games, sessions with seat tokens and a watch, and errors
parsed from the gRPC rich status and the REST problem document."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator

import httpx
import pytest
from transport.conftest import Servers, run_servers

from lawspeaker.api.access import Access, digest
from lawspeaker.sessions.service import Limits, SessionApi
from lawspeaker.sessions.store import MemoryStore
from lawspeaker_client import Client, LawspeakerClientError
from lawspeaker_client.v1 import game_pb2, session_service_pb2, valhalla_pb2

pytestmark = [pytest.mark.transport, pytest.mark.sessions]

CAST = game_pb2.Move(valhalla=valhalla_pb2.ValhallaMove(cast=valhalla_pb2.ValhallaCast()))
MAX_STEPS = 5000


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    with run_servers(sessions=lambda: SessionApi(MemoryStore())) as running:
        yield running


def make(servers: Servers, transport: str) -> Client:
    if transport == "grpc":
        return Client.grpc(f"127.0.0.1:{servers.grpc_port}")
    return Client.rest(servers.base_url)


@pytest.fixture(params=["grpc", "rest"])
def client(request: pytest.FixtureRequest, servers: Servers) -> Iterator[Client]:
    with make(servers, request.param) as c:
        assert c.transport == request.param
        yield c


def test_list_and_describe_games(client: Client) -> None:
    games = {g.id for g in client.list_games().games}
    assert {"valhalla", "penki", "pax_penning"} <= games
    described = client.describe_game("valhalla")
    assert described.info.id == "valhalla" and described.info.max_players == 2
    assert described.options and described.assumptions
    assert described.data.fields  # the board data, as a google.protobuf.Struct


def play_valhalla(client: Client, seed: int) -> tuple[int, game_pb2.GameOutcome]:
    rng = random.Random(seed)
    state = client.new_game("valhalla", players=2, seed=seed).state
    for step in range(MAX_STEPS):
        legal = client.legal_moves("valhalla", state)
        if legal.game_over:
            assert not legal.moves
            return step, legal.outcome
        move = rng.choice(list(legal.moves))
        verdict = client.validate_move("valhalla", state, move)
        assert verdict.valid, verdict.violation
        applied = client.apply_move("valhalla", state, move)
        assert applied.events
        state = applied.state
    raise AssertionError("the game did not end")


def test_a_whole_valhalla_game_is_the_same_over_grpc_and_rest(servers: Servers) -> None:
    with make(servers, "grpc") as over_grpc, make(servers, "rest") as over_rest:
        steps, outcome = play_valhalla(over_grpc, seed=7)
        assert steps > 10 and outcome.result == game_pb2.GAME_RESULT_WIN
        assert play_valhalla(over_rest, seed=7) == (steps, outcome)


def test_every_game_plays_a_few_moves(client: Client) -> None:
    for info in client.list_games().games:
        state = client.new_game(info.id, players=info.min_players, seed=3).state
        for _ in range(20):
            legal = client.legal_moves(info.id, state)
            if legal.game_over:
                break
            state = client.apply_move(info.id, state, legal.moves[0]).state


def test_an_illegal_move_raises_its_rule_as_the_reason(client: Client, servers: Servers) -> None:
    state = client.new_game("valhalla", players=2, seed=42).state
    ship_move = game_pb2.Move(
        valhalla=valhalla_pb2.ValhallaMove(move_ship=valhalla_pb2.ValhallaShipMove(ship=1, to=3))
    )
    verdict = client.validate_move("valhalla", state, ship_move)
    assert not verdict.valid and verdict.violation.reason == "CAST_FIRST"
    with pytest.raises(LawspeakerClientError) as caught:
        client.apply_move("valhalla", state, ship_move)
    err = caught.value
    assert err.code == "FAILED_PRECONDITION"
    assert err.reason == "CAST_FIRST"
    assert err.message == verdict.violation.message
    assert [v.field for v in err.field_violations] == [verdict.violation.field]
    assert err.metadata.get("kind") == "ILLEGAL_MOVE" and err.kind == "ILLEGAL_MOVE"
    # the rule's page on the service: a URL over REST, its path over gRPC (no --public-url here)
    base = "" if client.transport == "grpc" else servers.base_url
    assert err.rule == f"{base}/rules/valhalla#cast-first"
    assert err.http_status == (409 if client.transport == "rest" else None)
    assert "CAST_FIRST" in str(err)


def test_an_unknown_game_is_not_found(client: Client) -> None:
    for call in (
        lambda: client.describe_game("chess"),
        lambda: client.new_game("chess", players=2),
        lambda: client.sessions.create_session("chess", players=2),
    ):
        with pytest.raises(LawspeakerClientError) as caught:
            call()
        assert caught.value.code == "NOT_FOUND"
        assert caught.value.reason == "GAME_NOT_FOUND"


def test_a_bad_request_names_the_field(client: Client) -> None:
    with pytest.raises(LawspeakerClientError) as caught:
        client.new_game("valhalla", players=7)
    assert caught.value.code == "INVALID_ARGUMENT"
    assert caught.value.reason
    assert "players" in [v.field for v in caught.value.field_violations]


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_no_server_is_unavailable(transport: str) -> None:
    client = (
        Client.grpc("127.0.0.1:1", timeout=5)
        if transport == "grpc"
        else Client.rest("http://127.0.0.1:1", timeout=5)
    )
    with client, pytest.raises(LawspeakerClientError) as caught:
        client.list_games()
    assert caught.value.code == "UNAVAILABLE"


def test_a_whole_session_game_with_seat_tokens_and_a_watch(client: Client) -> None:
    sessions = client.sessions
    made = sessions.create_session("valhalla", players=2, seed=11)
    session = made.session.session
    tokens = {t.seat: t.token for t in made.seat_tokens}
    assert sorted(tokens) == [0, 1] and not made.session.state.HasField("rng")

    seen: list[session_service_pb2.WatchSessionResponse] = []
    watching = threading.Event()

    def watch() -> None:
        for update in sessions.watch(session, token=tokens[1]):
            seen.append(update)
            watching.set()
            if update.deleted:
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    assert watching.wait(10), "the watch sent nothing"

    # without a token: the public view, and no writes
    public = sessions.get_session(session)
    assert not public.session.HasField("seat")
    with pytest.raises(LawspeakerClientError) as denied:
        sessions.apply_move(session, CAST, public.session.etag)
    assert denied.value.code == "PERMISSION_DENIED"

    rng = random.Random(11)
    undone = retried = stale = False
    moves = 0
    for step in range(MAX_STEPS):
        got = sessions.get_session(session, token=tokens[0])
        if got.session.game_over:
            break
        seat = got.session.to_act[0]
        token = tokens[seat]
        listed = sessions.legal_moves(session, token=token)
        assert listed.moves and listed.etag
        move = rng.choice(list(listed.moves))
        assert sessions.validate_move(session, move, token=token).valid
        request_id = f"m{step}"  # unique per write
        applied = sessions.apply_move(session, move, listed.etag, request_id, token=token)
        moves += 1
        assert applied.session.seat == seat and applied.session.move_count == moves
        if not retried:  # a retry with the same request id returns the first result
            again = sessions.apply_move(session, move, listed.etag, request_id, token=token)
            assert again.session.etag == applied.session.etag
            retried = True
        if not stale and not applied.session.game_over:  # a write on an outdated etag is ABORTED
            with pytest.raises(LawspeakerClientError) as aborted:
                sessions.apply_move(session, move, listed.etag, token=token)
            assert aborted.value.code == "ABORTED"
            stale = True
        if not undone and move.valhalla.HasField("move_ship") and not applied.session.game_over:
            back = sessions.undo(session, applied.session.etag, token=token)
            assert back.undone.move == move and back.session.move_count == moves - 1
            moves -= 1
            undone = True
    final = sessions.get_session(session, token=tokens[1])
    assert final.session.game_over and final.session.outcome.result == game_pb2.GAME_RESULT_WIN
    assert undone and retried and stale

    first = sessions.list_moves(session, page_size=10, token=tokens[0])
    assert first.total_size == final.session.move_count == moves and len(first.moves) == 10
    second = sessions.list_moves(session, page_size=10, page_token=first.next_page_token, token=tokens[0])
    assert second.moves[0].number == 11

    sessions.delete_session(session, token=tokens[0])
    watcher.join(10)
    assert not watcher.is_alive(), "the watch did not end after the delete"
    assert seen[-1].deleted
    assert all(u.session.seat == 1 for u in seen[:-1])
    assert len(seen) > moves // 2
    with pytest.raises(LawspeakerClientError) as gone:
        sessions.get_session(session)
    assert gone.value.code == "NOT_FOUND"


def test_a_watch_can_be_closed_early(client: Client) -> None:
    made = client.sessions.create_session("valhalla", players=2)
    updates = client.sessions.watch(made.session.session)
    first = next(updates)
    assert first.session.session == made.session.session
    close = getattr(updates, "close", None)
    assert close is not None
    close()
    token = made.seat_tokens[0].token
    client.sessions.delete_session(made.session.session, token=token)


def test_a_resumed_watch_a_watch_ticket_and_a_long_poll(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lawspeaker.sessions import service

    made = client.sessions.create_session("valhalla", players=2, seed=3)
    session, token = made.session.session, made.seat_tokens[0].token
    etag = made.session.etag
    moved = client.sessions.apply_move(session, CAST, etag, token=token).session.etag
    updates = client.sessions.watch(session, token=token, resume_after_etag=etag)
    first = next(updates)
    assert first.session.etag == moved and first.versions_skipped == 0
    getattr(updates, "close")()  # noqa: B009
    ticket = client.sessions.create_watch_ticket(session, token=token)
    assert ticket.seat == 0 and ticket.expires_in_seconds == service.WATCH_TICKET_SECONDS and ticket.ticket
    assert client.sessions.get_session(session, wait_for_change=etag).session.etag == moved  # at once
    monkeypatch.setattr(service, "LONG_POLL_SECONDS", 0.2)  # the servers run in this process
    still = client.sessions.get_session(session, token=token, wait_for_change=moved)  # REST: a 304
    assert still.session.etag == moved and still.session.seat == 0


def rest_client_answering(handler: Callable[[httpx.Request], httpx.Response]) -> Client:
    http = httpx.Client(base_url="http://lawspeaker.test", transport=httpx.MockTransport(handler))
    return Client.rest("http://lawspeaker.test", http=http)


def test_an_error_without_a_problem_document_still_has_a_code() -> None:
    client = rest_client_answering(lambda _: httpx.Response(502, text="<html>Bad Gateway</html>"))
    with pytest.raises(LawspeakerClientError) as caught:
        client.list_games()
    err = caught.value
    assert (err.code, err.reason, err.http_status) == ("UNAVAILABLE", "", 502)
    assert "Bad Gateway" in err.message


def test_rest_requests_follow_the_http_annotations() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"totalSize": "3", "unknownNewField": 1})

    client = rest_client_answering(handler)
    moves = client.sessions.list_moves("valhalla.a/b", page_size=2, page_token="t", token="secret")
    assert moves.total_size == 3  # unknown fields of a newer server are ignored
    request = seen[0]
    assert request.method == "GET"
    assert request.url.raw_path == b"/v1/sessions/valhalla.a%2Fb/moves?pageSize=2&pageToken=t"
    assert request.headers["authorization"] == "Bearer secret"


def test_an_sse_error_event_raises() -> None:
    body = (
        ": keep-alive\n\n"
        'event: message\ndata: {"session": {"session": "s", "moveCount": "1"}}\n\n'
        'event: error\ndata: {"status": 503, "reason": "STORE_UNAVAILABLE", "detail": "Redis is down."}\n\n'
    )
    client = rest_client_answering(
        lambda _: httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})
    )
    updates = client.sessions.watch("s")
    assert next(updates).session.move_count == 1
    with pytest.raises(LawspeakerClientError) as caught:
        next(updates)
    assert (caught.value.code, caught.value.reason) == ("UNAVAILABLE", "STORE_UNAVAILABLE")


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_the_client_sends_its_api_key_and_reports_when_to_retry(transport: str) -> None:
    key = "lsk_client-test-key"
    limits = Limits(create_per_minute=6, create_burst=1, access=Access({digest(key): "client-test"}))
    with run_servers(sessions=lambda: SessionApi(MemoryStore(), limits=limits)) as running:
        with make(running, transport) as anonymous:
            with pytest.raises(LawspeakerClientError) as caught:
                anonymous.sessions.create_session("valhalla", players=2)
            assert (caught.value.code, caught.value.reason) == ("UNAUTHENTICATED", "API_KEY_REQUIRED")
        keyed = (
            Client.grpc(f"127.0.0.1:{running.grpc_port}", api_key=key)
            if transport == "grpc"
            else Client.rest(running.base_url, api_key=key)
        )
        with keyed:
            assert keyed.sessions.create_session("valhalla", players=2).session.session
            with pytest.raises(LawspeakerClientError) as caught:
                keyed.sessions.create_session("valhalla", players=2)
            err = caught.value
            assert (err.code, err.reason) == ("RESOURCE_EXHAUSTED", "SESSION_CREATE_RATE_LIMITED")
            assert err.retry_after is not None and 0 < err.retry_after <= 10


def test_a_rest_refusal_gives_its_wait_to_the_millisecond_from_the_problem_document() -> None:
    """The Retry-After header has whole seconds only: the problem's ``metadata.retryAfterSeconds``
    is the exact wait, and the header the fallback when a document has none."""
    from lawspeaker_client.errors import from_response

    problem = {"code": "RESOURCE_EXHAUSTED", "reason": "SESSION_CREATE_RATE_LIMITED", "detail": "wait"}
    exact = httpx.Response(
        429, json={**problem, "metadata": {"retryAfterSeconds": 1.234}}, headers={"retry-after": "2"}
    )
    assert from_response(exact).retry_after == 1.234
    header_only = httpx.Response(429, json=problem, headers={"retry-after": "2"})
    assert from_response(header_only).retry_after == 2.0
    assert from_response(httpx.Response(429, json=problem)).retry_after is None


def test_a_suggested_move_is_legal_and_comes_again_with_its_seed(client: Client) -> None:
    state = client.new_game("penki", 2, seed=4).state
    for _ in range(30):  # past the opening draws, to a position with a choice
        listed = client.legal_moves("penki", state)
        if len(listed.moves) > 1 and not listed.HasField("chance"):
            break
        state = client.apply_move("penki", state, listed.moves[0]).state
    first = client.suggest_move("penki", state, game_pb2.BOT_LEVEL_SEARCH, playouts=30)
    assert first.playouts == 30
    assert client.validate_move("penki", state, first.move).valid
    again = client.suggest_move("penki", state, game_pb2.BOT_LEVEL_SEARCH, playouts=30, seed=first.seed)
    assert again == first


def test_a_session_with_a_bot_seat_moves_for_it(client: Client) -> None:
    made = client.sessions.create_session(
        "valhalla", 2, seed=6, bots=[game_pb2.BotSeat(seat=1, level=game_pb2.BOT_LEVEL_RANDOM)]
    )
    assert [t.seat for t in made.seat_tokens] == [0]
    assert [b.seat for b in made.session.bots] == [1]
