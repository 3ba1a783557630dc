"""The Python client (clients/python, installed as lawspeaker-client) against real servers on
loopback, over gRPC and over REST: whole games, sessions with seat tokens and a watch, and errors
parsed from the gRPC rich status and the REST problem document."""

from __future__ import annotations

import json
import random
import threading
import time
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


# --------------------------------------------------------------------------- clocks and resignation

A_CLOCK = session_service_pb2.Clock(per_move_seconds=60, bank_seconds=300, increment_seconds=10)


def wait_for(
    client: Client, session: str, done: Callable[[session_service_pb2.Session], bool]
) -> session_service_pb2.Session:
    """The session once ``done`` holds for it, read every 0.1 s for at most 10 s (a timeout fires
    within 1 s of its deadline, on whichever replica sees it first)."""
    deadline = time.monotonic() + 10
    view = client.sessions.get_session(session).session
    while not done(view):
        assert time.monotonic() < deadline, f"not reached: {view}"
        time.sleep(0.1)
        view = client.sessions.get_session(session).session
    return view


def test_a_session_with_a_clock_shows_each_seats_time_and_the_deadline(client: Client) -> None:
    made = client.sessions.create_session("valhalla", 2, seed=5, clock=A_CLOCK)
    assert made.session.clock.bank_seconds == 300 and made.session.clock.increment_seconds == 10
    assert made.session.clock.on_timeout == session_service_pb2.TIMEOUT_ACTION_BOT  # unset: a bot moves
    view = wait_for(client, made.session.session, lambda s: bool(s.deadline))  # past the opening casts
    assert view.clock == made.session.clock
    assert [s.seat for s in view.seats] == [0, 1]
    assert all(s.HasField("time_left_seconds") and 0 < s.time_left_seconds <= 300 for s in view.seats)
    assert view.deadline and view.update_time  # the seat to act has a running clock
    assert view.deadline > view.update_time  # RFC 3339 in UTC: the strings sort as the times do
    (to_act,) = view.to_act
    assert view.seats[to_act].deadline == view.deadline
    assert not view.HasField("result") and not any(s.out or s.timed_out for s in view.seats)
    # a session without a clock has none of it, but the seats
    plain = client.sessions.create_session("valhalla", 2, seed=5).session
    assert not plain.HasField("clock") and not plain.deadline and not plain.update_time
    assert [s.seat for s in plain.seats] == [0, 1]
    assert not any(s.HasField("time_left_seconds") or s.deadline for s in plain.seats)


def test_a_bad_clock_is_refused_naming_its_field(client: Client) -> None:
    without_bank = session_service_pb2.Clock(per_move_seconds=60, increment_seconds=5)
    with pytest.raises(LawspeakerClientError) as caught:
        client.sessions.create_session("valhalla", 2, clock=without_bank)
    err = caught.value
    assert (err.code, err.reason) == ("INVALID_ARGUMENT", "CLOCK_INVALID")
    assert [v.field for v in err.field_violations] in (
        ["clock.increment_seconds"],  # gRPC: proto field names
        ["clock.incrementSeconds"],  # a JSON body: JSON names
    )


def test_resigning_a_two_player_game_makes_the_other_seat_the_winner(client: Client) -> None:
    made = client.sessions.create_session("valhalla", 2, seed=8)
    session = made.session.session
    tokens = {t.seat: t.token for t in made.seat_tokens}
    with pytest.raises(LawspeakerClientError) as stale:  # an etag names the version it is meant for
        client.sessions.resign_seat(session, etag=str(int(made.session.etag) + 1), token=tokens[1])
    assert stale.value.code == "ABORTED"
    with pytest.raises(LawspeakerClientError) as spectator:  # a seat resigns with its own token
        client.sessions.resign_seat(session)
    assert spectator.value.code in ("PERMISSION_DENIED", "UNAUTHENTICATED")

    resigned = client.sessions.resign_seat(session, etag=made.session.etag, token=tokens[1]).session
    assert resigned.seat == 1 and resigned.etag != made.session.etag
    result = resigned.result
    assert result.reason == session_service_pb2.RESULT_REASON_RESIGNATION
    assert list(result.winners) == [0] and result.summary
    assert [(p.seat, p.place) for p in result.ranking] == [(0, 1), (1, 2)]
    assert resigned.seats[1].out and not resigned.seats[0].out
    assert not resigned.deadline

    # the log shows the resignation as an event; the session is over for every seat
    logged = client.sessions.list_moves(session, token=tokens[0]).moves[-1]
    assert logged.seat_event.seat == 1
    assert logged.seat_event.kind == session_service_pb2.SEAT_EVENT_KIND_RESIGNED
    assert not logged.HasField("move") and not logged.events
    listed = client.sessions.legal_moves(session, token=tokens[0])
    assert not listed.moves
    for token in tokens.values():
        with pytest.raises(LawspeakerClientError) as over:
            client.sessions.apply_move(session, CAST, resigned.etag, token=token)
        assert over.value.reason in ("SESSION_OVER", "SEAT_RESIGNED")
    assert client.sessions.get_session(session, token=tokens[1]).session.result == result  # still watches


def test_a_seat_left_to_a_bot_plays_on_and_its_token_only_watches(client: Client) -> None:
    made = client.sessions.create_session("valhalla", 2, seed=9)
    session = made.session.session
    tokens = {t.seat: t.token for t in made.seat_tokens}
    assert list(made.session.to_act) == [0]
    left = client.sessions.resign_seat(
        session,
        session_service_pb2.RESIGN_ACTION_BOT,
        bot_level=game_pb2.BOT_LEVEL_RANDOM,
        token=tokens[0],
    ).session
    assert [(b.seat, b.level) for b in left.bots] == [(0, game_pb2.BOT_LEVEL_RANDOM)]
    assert not left.HasField("result") and not left.seats[0].out  # the bot's result will be the seat's
    event = client.sessions.list_moves(session, token=tokens[1]).moves
    assert any(m.seat_event.kind == session_service_pb2.SEAT_EVENT_KIND_LEFT_TO_BOT for m in event)
    with pytest.raises(LawspeakerClientError) as again:
        client.sessions.resign_seat(session, token=tokens[0])
    assert again.value.reason == "SEAT_RESIGNED"
    now = wait_for(client, session, lambda s: list(s.to_act) == [1])  # the bot has played seat 0's turn
    assert any(m.seat == 0 and m.HasField("move") for m in client.sessions.list_moves(session).moves)
    with pytest.raises(LawspeakerClientError) as moving:
        client.sessions.apply_move(session, CAST, now.etag, token=tokens[0])
    assert moving.value.reason == "SEAT_RESIGNED"
    assert client.sessions.get_session(session, token=tokens[0]).session.seat == 0  # it may watch


def test_with_more_players_a_forfeited_seat_is_out_and_ranked_last(client: Client) -> None:
    made = client.sessions.create_session("pax_viking_junior", 3, seed=4)
    session = made.session.session
    tokens = {t.seat: t.token for t in made.seat_tokens}
    first = client.sessions.resign_seat(session, token=tokens[2]).session
    assert not first.HasField("result")  # two seats play on
    assert first.seats[2].out and 2 in [b.seat for b in first.bots]  # a bot plays its pieces
    with pytest.raises(LawspeakerClientError) as again:
        client.sessions.resign_seat(session, token=tokens[2])
    assert again.value.reason == "SEAT_RESIGNED"
    last = client.sessions.resign_seat(session, token=tokens[0]).session
    assert last.result.reason == session_service_pb2.RESULT_REASON_RESIGNATION
    assert list(last.result.winners) == [1]
    # the later to leave ranks above the earlier
    assert [(p.seat, p.place) for p in last.result.ranking] == [(1, 1), (0, 2), (2, 3)]


def test_a_timeout_forfeits_the_seat_to_act(client: Client) -> None:
    clock = session_service_pb2.Clock(
        per_move_seconds=1, on_timeout=session_service_pb2.TIMEOUT_ACTION_FORFEIT
    )
    made = client.sessions.create_session("valhalla", 2, seed=12, clock=clock)
    running = wait_for(client, made.session.session, lambda s: bool(s.deadline) or s.HasField("result"))
    late = running.to_act[0] if running.deadline else next(s.seat for s in running.seats if s.out)
    over = wait_for(client, made.session.session, lambda s: s.HasField("result"))
    assert over.result.reason == session_service_pb2.RESULT_REASON_TIMEOUT
    assert list(over.result.winners) == [1 - late] and over.seats[late].out
    logged = client.sessions.list_moves(over.session).moves[-1]
    assert logged.seat_event.seat == late
    assert logged.seat_event.kind == session_service_pb2.SEAT_EVENT_KIND_FORFEITED_ON_TIME


def test_a_timeout_lets_a_bot_move_for_the_seat(client: Client) -> None:
    clock = session_service_pb2.Clock(per_move_seconds=1)  # TIMEOUT_ACTION_BOT when unset
    made = client.sessions.create_session("valhalla", 2, seed=13, clock=clock)
    session = made.session.session
    moved = wait_for(client, session, lambda s: any(seat.timed_out for seat in s.seats))
    late = next(seat.seat for seat in moved.seats if seat.timed_out)
    assert not moved.HasField("result") and not moved.seats[late].out
    by_bot = [m for m in client.sessions.list_moves(session).moves if m.on_timeout]
    assert by_bot and by_bot[0].seat == late and by_bot[0].HasField("move")


def test_a_seat_with_an_open_watch_is_connected(client: Client) -> None:
    made = client.sessions.create_session("valhalla", 2, seed=14)
    session = made.session.session
    tokens = {t.seat: t.token for t in made.seat_tokens}
    assert not any(s.connected for s in made.session.seats)
    told = client.sessions.watch(session, token=tokens[0], presence=True)  # told who comes and goes
    first = next(told)
    assert first.session.seats[0].connected and not first.session.seats[1].connected
    updates = client.sessions.watch(session, token=tokens[1])
    next(updates)
    try:
        view = client.sessions.get_session(session).session
        assert view.seats[1].connected and view.seats[0].connected
        assert view.seats[1].last_seen
        again = next(told)  # seat 1 connected: the same version again, as it is now
        assert again.session.etag == first.session.etag and again.session.seats[1].connected
    finally:
        getattr(updates, "close")()  # noqa: B009
        getattr(told, "close")()  # noqa: B009
    client.sessions.delete_session(session, token=tokens[1])


def test_rest_resign_follows_its_http_annotation() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"session": {"session": "valhalla.a", "seat": 1, "etag": "4"}})

    client = rest_client_answering(handler)
    answer = client.sessions.resign_seat(
        "valhalla.a", session_service_pb2.RESIGN_ACTION_BOT, etag="3", token="secret"
    )
    assert answer.session.seat == 1
    (request,) = seen
    assert (request.method, request.url.raw_path) == ("POST", b"/v1/sessions/valhalla.a:resign")
    assert json.loads(request.content) == {"action": "RESIGN_ACTION_BOT", "etag": "3"}
    assert request.headers["authorization"] == "Bearer secret"


# --------------------------------------------------------------------------- the host, the lobby, rematches

PERSON, BOT, OPEN, RESERVED = (
    session_service_pb2.SEAT_ROLE_PERSON,
    session_service_pb2.SEAT_ROLE_BOT,
    session_service_pb2.SEAT_ROLE_OPEN,
    session_service_pb2.SEAT_ROLE_RESERVED,
)


def roles(view: session_service_pb2.Session) -> list[int]:
    return [s.role for s in view.seats]


def names(view: session_service_pb2.Session) -> list[str]:
    return [s.display_name for s in view.seats]


def seat_events(client: Client, session: str) -> list[tuple[int, int, str]]:
    """(seat, kind, display name) of each seat event of the move log, in order."""
    logged = client.sessions.list_moves(session, page_size=1000).moves
    return [
        (m.seat_event.seat, m.seat_event.kind, m.seat_event.display_name)
        for m in logged
        if m.HasField("seat_event")
    ]


def listed(client: Client, game: str = "", players: int = 0) -> list[str]:
    """The ids the lobby lists for ``game`` and ``players``, every page of it."""
    return [s.session for s in client.sessions.iter_sessions(game, players)]


def refusal(call: Callable[[], object]) -> LawspeakerClientError:
    with pytest.raises(LawspeakerClientError) as caught:
        call()
    return caught.value


def test_an_open_seat_waits_in_the_lobby_until_it_is_claimed(client: Client) -> None:
    """An open seat gets no token; nothing is played until it has a player; a claim gives the seat
    its token (once) and takes the session out of the lobby; a seat's token does not delete a
    session that was in the lobby, the host's does."""
    sessions = client.sessions
    made = sessions.create_session("valhalla", 2, seed=21, open_seats=[1], display_names=["Astrid"])
    session, host = made.session.session, made.host_token
    assert host and [t.seat for t in made.seat_tokens] == [0]
    token0 = made.seat_tokens[0].token
    assert host != token0
    view = made.session
    assert view.waiting_for_players and view.has_host and not view.rematch
    assert roles(view) == [PERSON, OPEN] and names(view) == ["Astrid", ""]
    assert session in listed(client, "valhalla", 2)

    waiting = refusal(lambda: sessions.apply_move(session, CAST, view.etag, token=token0))
    assert (waiting.code, waiting.reason) == ("FAILED_PRECONDITION", "WAITING_FOR_PLAYERS")
    assert not sessions.legal_moves(session, token=token0).moves

    claimed = sessions.claim_seat(session, "Bjorn")
    assert claimed.seat_token.seat == 1 and claimed.seat_token.token not in (token0, host)
    mine = claimed.session
    assert mine.seat == 1 and not mine.waiting_for_players
    assert roles(mine) == [PERSON, PERSON] and names(mine) == ["Astrid", "Bjorn"]
    assert session not in listed(client, "valhalla", 2)
    assert seat_events(client, session) == [(1, session_service_pb2.SEAT_EVENT_KIND_CLAIMED, "Bjorn")]
    again = refusal(lambda: sessions.claim_seat(session, "Late"))
    assert (again.code, again.reason) == ("FAILED_PRECONDITION", "SEAT_NOT_OPEN")
    taken = refusal(lambda: sessions.claim_seat(session, "Late", seat=0))
    assert taken.reason == "SEAT_NOT_OPEN" and [v.field for v in taken.field_violations] == ["seat"]

    moved = sessions.apply_move(session, CAST, mine.etag, token=token0).session  # the game is on
    assert moved.move_count == 1
    token1 = claimed.seat_token.token
    assert sessions.get_session(session, token=token1).session.seat == 1

    for seat_token in (token0, token1):
        denied = refusal(lambda t=seat_token: sessions.delete_session(session, token=t))  # type: ignore[misc]
        assert (denied.code, denied.reason) == ("PERMISSION_DENIED", "HOST_TOKEN_INVALID")
    sessions.delete_session(session, token=host)
    assert refusal(lambda: sessions.get_session(session)).code == "NOT_FOUND"


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_the_lobby_lists_by_game_and_players_oldest_first_in_pages(transport: str) -> None:
    """A lobby of its own (a fresh server): which sessions each filter lists, in which order, and
    that paging gives each exactly once; a full or deleted session is no longer listed."""
    with run_servers(sessions=lambda: SessionApi(MemoryStore())) as running, make(running, transport) as c:
        s = c.sessions

        def opened(game: str, players: int, open_seats: list[int]) -> str:
            return s.create_session(game, players, open_seats=open_seats).session.session

        v1, v2, v3 = (opened("valhalla", 2, [1]) for _ in range(3))
        penki = opened("penki", 2, [0])
        pax = opened("pax_penning", 3, [1, 2])
        s.create_session("valhalla", 2)  # every seat has a player: never listed
        full = opened("valhalla", 2, [1])
        s.claim_seat(full, "Hild")
        gone = s.create_session("penki", 2, open_seats=[1])
        s.delete_session(gone.session.session, token=gone.host_token)

        assert listed(c, "valhalla") == [v1, v2, v3]  # oldest first
        assert listed(c, "valhalla", 2) == [v1, v2, v3]
        assert listed(c, "valhalla", 3) == []
        assert listed(c, "penki") == [penki]
        assert listed(c, players=3) == [pax]
        assert sorted(listed(c, players=2)) == sorted([v1, v2, v3, penki])
        assert sorted(listed(c)) == sorted([v1, v2, v3, penki, pax])
        shown = next(v for v in s.list_sessions("pax_penning").sessions)
        assert roles(shown) == [PERSON, OPEN, OPEN] and not shown.HasField("seat")  # a public view

        first = s.list_sessions("valhalla", page_size=2)
        assert [v.session for v in first.sessions] == [v1, v2] and first.next_page_token
        second = s.list_sessions("valhalla", page_size=2, page_token=first.next_page_token)
        assert [v.session for v in second.sessions] == [v3] and not second.next_page_token
        one_by_one = [v.session for v in s.iter_sessions(page_size=1)]
        assert sorted(one_by_one) == sorted([v1, v2, v3, penki, pax])  # each once, across the games
        assert sorted(v.session for v in s.iter_sessions(players=2, page_size=1)) == sorted(
            [v1, v2, v3, penki]
        )

        other = refusal(lambda: s.list_sessions("penki", page_size=2, page_token=first.next_page_token))
        assert (other.code, other.reason) == ("INVALID_ARGUMENT", "INVALID_PAGE_TOKEN")
        unknown = refusal(lambda: s.list_sessions("chess"))
        assert (unknown.code, unknown.reason) == ("NOT_FOUND", "GAME_NOT_FOUND")

        s.claim_seat(v2, "Ulf")
        assert listed(c, "valhalla") == [v1, v3]


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_lobby_calls_count_against_the_lobby_rate(transport: str) -> None:
    limits = Limits(lobby_per_minute=6, lobby_burst=2)
    serving = run_servers(sessions=lambda: SessionApi(MemoryStore(), limits=limits))
    with serving as running, make(running, transport) as c:
        made = c.sessions.create_session("valhalla", 2, open_seats=[1])
        c.sessions.list_sessions()
        c.sessions.claim_seat(made.session.session, "Ivar")
        limited = refusal(lambda: c.sessions.list_sessions())
        assert (limited.code, limited.reason) == ("RESOURCE_EXHAUSTED", "LOBBY_RATE_LIMITED")
        assert limited.retry_after is not None and 0 < limited.retry_after <= 10
        assert c.sessions.get_session(made.session.session).session.session  # other calls are not counted


def race_claims(
    session: str, claimants: dict[str, Client]
) -> tuple[dict[str, session_service_pb2.ClaimSeatResponse], dict[str, LawspeakerClientError]]:
    """Each claimant (its name: its client) claims seat 1 of ``session`` in a thread of its own, all
    released at once by a barrier: the answers of those that won, the errors of those that lost."""
    start = threading.Barrier(len(claimants))
    won: dict[str, session_service_pb2.ClaimSeatResponse] = {}
    lost: dict[str, LawspeakerClientError] = {}

    def claim(who: str, c: Client) -> None:
        start.wait(10)
        try:
            won[who] = c.sessions.claim_seat(session, who, seat=1)
        except LawspeakerClientError as err:
            lost[who] = err

    threads = [threading.Thread(target=claim, args=item) for item in claimants.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return won, lost


def test_of_two_claims_racing_for_the_last_seat_exactly_one_wins(servers: Servers) -> None:
    """Two threads (one over gRPC, one over REST) claim the last open seat of each of ten sessions
    at once: one claim wins, the other is SEAT_NOT_OPEN, and the seat is the winner's."""
    claimed = session_service_pb2.SEAT_EVENT_KIND_CLAIMED
    with make(servers, "grpc") as over_grpc, make(servers, "rest") as over_rest:
        for round_ in range(10):
            made = over_rest.sessions.create_session("valhalla", 2, open_seats=[1])
            session = made.session.session
            won, lost = race_claims(session, {f"grpc{round_}": over_grpc, f"rest{round_}": over_rest})
            assert len(won) == 1 and len(lost) == 1, (won, lost)
            ((winner, answer),) = won.items()
            ((_, err),) = lost.items()
            assert (err.code, err.reason) == ("FAILED_PRECONDITION", "SEAT_NOT_OPEN")
            view = over_grpc.sessions.get_session(session, token=answer.seat_token.token).session
            assert view.seat == 1 and names(view) == ["", winner] and not view.waiting_for_players
            assert [e for e in seat_events(over_grpc, session) if e[1] == claimed] == [(1, claimed, winner)]
            over_grpc.sessions.delete_session(session, token=made.host_token)


def test_the_host_reissues_a_token_and_the_old_one_is_refused_at_once(client: Client) -> None:
    sessions = client.sessions
    made = sessions.create_session("valhalla", 2, seed=22, display_names=["Astrid", "Bjorn"])
    session, host = made.session.session, made.host_token
    tokens = {t.seat: t.token for t in made.seat_tokens}
    REISSUE = session_service_pb2.SEAT_ACTION_REISSUE_TOKEN

    nobody = refusal(lambda: sessions.manage_seat(session, 1, REISSUE))
    assert (nobody.code, nobody.reason) == ("PERMISSION_DENIED", "HOST_TOKEN_REQUIRED")
    seat = refusal(lambda: sessions.manage_seat(session, 1, REISSUE, token=tokens[0]))
    assert (seat.code, seat.reason) == ("PERMISSION_DENIED", "HOST_TOKEN_INVALID")
    stale = refusal(lambda: sessions.manage_seat(session, 1, REISSUE, etag="9", token=host))
    assert stale.code == "ABORTED"

    reissued = sessions.manage_seat(session, 1, REISSUE, display_name="Sigrid", token=host)
    fresh = reissued.seat_token
    assert fresh.seat == 1 and fresh.token not in (tokens[1], host)
    assert names(reissued.session) == ["Astrid", "Sigrid"] and not reissued.session.HasField("seat")
    old = refusal(lambda: sessions.get_session(session, token=tokens[1]))
    assert (old.code, old.reason) == ("PERMISSION_DENIED", "SEAT_TOKEN_INVALID")
    assert sessions.get_session(session, token=fresh.token).session.seat == 1
    assert seat_events(client, session) == [(1, session_service_pb2.SEAT_EVENT_KIND_TOKEN_REISSUED, "Sigrid")]

    as_seat = refusal(lambda: sessions.apply_move(session, CAST, reissued.session.etag, token=host))
    assert (as_seat.code, as_seat.reason) == ("PERMISSION_DENIED", "HOST_TOKEN_NOT_A_SEAT")
    assert not sessions.get_session(session, token=host).session.HasField("seat")  # the host looks on
    bad = refusal(
        lambda: sessions.manage_seat(session, 1, session_service_pb2.SEAT_ACTION_UNSPECIFIED, token=host)
    )
    assert (bad.code, bad.reason) == ("INVALID_ARGUMENT", "SEAT_ACTION_INVALID")
    sessions.delete_session(session, token=host)


def test_the_host_hands_a_seat_to_a_bot_and_gives_it_back_to_a_person(client: Client) -> None:
    sessions = client.sessions
    made = sessions.create_session("valhalla", 2, seed=23)
    session, host = made.session.session, made.host_token
    tokens = {t.seat: t.token for t in made.seat_tokens}
    assert list(made.session.to_act) == [0]

    botted = sessions.manage_seat(
        session, 0, session_service_pb2.SEAT_ACTION_BOT, bot_level=game_pb2.BOT_LEVEL_RANDOM, token=host
    ).session
    assert roles(botted) == [BOT, PERSON]
    assert [(b.seat, b.level) for b in botted.bots] == [(0, game_pb2.BOT_LEVEL_RANDOM)]
    assert refusal(lambda: sessions.get_session(session, token=tokens[0])).reason == "SEAT_TOKEN_INVALID"
    now = wait_for(client, session, lambda s: list(s.to_act) == [1])  # the bot has played seat 0's turn
    assert any(m.seat == 0 and m.HasField("move") for m in sessions.list_moves(session).moves)

    back = sessions.manage_seat(
        session,
        0,
        session_service_pb2.SEAT_ACTION_REISSUE_TOKEN,
        display_name="Astrid",
        etag=now.etag,
        token=host,
    )
    assert roles(back.session) == [PERSON, PERSON] and not back.session.bots
    token0 = back.seat_token.token
    assert [e[1] for e in seat_events(client, session)] == [
        session_service_pb2.SEAT_EVENT_KIND_HANDED_TO_BOT,
        session_service_pb2.SEAT_EVENT_KIND_TOKEN_REISSUED,
    ]
    # seat 1 plays on until seat 0 is to act: then the person moves it, with the new token
    view = back.session
    for step in range(200):
        if view.game_over or list(view.to_act) == [0]:
            break
        listed_moves = sessions.legal_moves(session, token=tokens[1])
        view = sessions.apply_move(
            session, listed_moves.moves[0], listed_moves.etag, f"b{step}", token=tokens[1]
        ).session
    assert list(view.to_act) == [0]
    mine = sessions.legal_moves(session, token=token0)
    assert mine.moves
    moved = sessions.apply_move(session, mine.moves[0], mine.etag, token=token0).session
    assert moved.seat == 0 and moved.move_count == view.move_count + 1
    sessions.delete_session(session, token=host)


def test_the_host_opens_a_seat_in_the_lobby_and_closes_it(client: Client) -> None:
    sessions = client.sessions
    made = sessions.create_session("valhalla", 2, seed=24, display_names=["Astrid", "Bjorn"])
    session, host = made.session.session, made.host_token
    tokens = {t.seat: t.token for t in made.seat_tokens}
    assert session not in listed(client, "valhalla", 2)

    opened = sessions.manage_seat(session, 1, session_service_pb2.SEAT_ACTION_OPEN, token=host).session
    assert roles(opened) == [PERSON, OPEN] and names(opened) == ["Astrid", ""]
    assert opened.waiting_for_players and session in listed(client, "valhalla", 2)
    assert refusal(lambda: sessions.get_session(session, token=tokens[1])).reason == "SEAT_TOKEN_INVALID"

    closed = sessions.manage_seat(session, 1, session_service_pb2.SEAT_ACTION_CLOSE, token=host).session
    assert roles(closed) == [PERSON, RESERVED] and closed.waiting_for_players
    assert session not in listed(client, "valhalla", 2)
    assert refusal(lambda: sessions.claim_seat(session, "Late")).reason == "SEAT_NOT_OPEN"
    twice = refusal(
        lambda: sessions.manage_seat(session, 1, session_service_pb2.SEAT_ACTION_CLOSE, token=host)
    )
    assert twice.reason == "SEAT_NOT_OPEN"
    waiting = refusal(lambda: sessions.apply_move(session, CAST, closed.etag, token=tokens[0]))
    assert waiting.reason == "WAITING_FOR_PLAYERS"

    given = sessions.manage_seat(
        session, 1, session_service_pb2.SEAT_ACTION_REISSUE_TOKEN, display_name="Hild", token=host
    )
    assert roles(given.session) == [PERSON, PERSON] and not given.session.waiting_for_players
    assert names(given.session) == ["Astrid", "Hild"]
    assert [e[1] for e in seat_events(client, session)] == [
        session_service_pb2.SEAT_EVENT_KIND_OPENED,
        session_service_pb2.SEAT_EVENT_KIND_CLOSED,
        session_service_pb2.SEAT_EVENT_KIND_TOKEN_REISSUED,
    ]
    # its seat was open in the lobby once: from now on only the host deletes it
    assert refusal(lambda: sessions.delete_session(session, token=tokens[0])).reason == "HOST_TOKEN_INVALID"
    sessions.delete_session(session, token=host)


def finished(
    client: Client, game: str, players: int, **kw: object
) -> session_service_pb2.CreateSessionResponse:
    """A session whose game is over: the last seat a person plays resigned (with two players, the
    other wins)."""
    made = client.sessions.create_session(game, players, **kw)  # type: ignore[arg-type]
    last = made.seat_tokens[-1].token
    over = client.sessions.resign_seat(made.session.session, token=last).session
    assert over.HasField("result")
    return made


def test_the_host_makes_a_rematch_at_once_with_the_seats_rotated_and_the_same_tokens(client: Client) -> None:
    sessions = client.sessions
    playing = sessions.create_session("valhalla", 2, display_names=["Astrid", "Bjorn"])
    early = refusal(lambda: sessions.rematch(playing.session.session, token=playing.host_token))
    assert (early.code, early.reason) == ("FAILED_PRECONDITION", "GAME_NOT_OVER")

    made = finished(client, "valhalla", 2, display_names=["Astrid", "Bjorn"])
    session, host = made.session.session, made.host_token
    tokens = {t.seat: t.token for t in made.seat_tokens}
    nobody = refusal(lambda: sessions.rematch(session))
    assert (nobody.code, nobody.reason) == ("UNAUTHENTICATED", "REMATCH_TOKEN_REQUIRED")

    answer = sessions.rematch(session, token=host)
    new = answer.rematch
    assert new.session and new.session != session and answer.session.rematch == new.session
    assert new.has_host and new.move_count == 0 and not new.HasField("result")
    assert names(new) == ["Bjorn", "Astrid"]  # old seat i plays new seat i + 1 (mod 2)
    assert sessions.get_session(session).session.rematch == new.session  # the old session names it
    assert sessions.rematch(session, token=tokens[0]).rematch.session == new.session  # asked again: the same

    # the same tokens act in the new session, each for its player's new seat
    assert sessions.get_session(new.session, token=tokens[0]).session.seat == 1
    assert sessions.get_session(new.session, token=tokens[1]).session.seat == 0
    (to_act,) = new.to_act
    listed_moves = sessions.legal_moves(new.session, token=tokens[1 - to_act])
    moved = sessions.apply_move(
        new.session, listed_moves.moves[0], listed_moves.etag, token=tokens[1 - to_act]
    )
    assert moved.session.seat == to_act
    sessions.delete_session(new.session, token=host)  # the host token is the new session's host's too
    sessions.delete_session(session, token=host)


def test_a_rematch_is_made_once_every_seat_a_person_plays_has_asked(client: Client) -> None:
    sessions = client.sessions
    made = finished(client, "valhalla", 2, display_names=["Astrid", "Bjorn"])
    session = made.session.session
    tokens = {t.seat: t.token for t in made.seat_tokens}

    asked = sessions.rematch(session, token=tokens[0])
    assert not asked.HasField("rematch") and not asked.session.rematch
    assert list(asked.session.rematch_requested) == [0] and asked.session.seat == 0
    assert list(sessions.rematch(session, token=tokens[0]).session.rematch_requested) == [
        0
    ]  # one vote a seat
    assert list(sessions.get_session(session).session.rematch_requested) == [0]

    both = sessions.rematch(session, token=tokens[1])
    new = both.rematch
    assert new.session and both.session.rematch == new.session and new.seat == 0  # seat 1 plays seat 0 now
    assert names(new) == ["Bjorn", "Astrid"]
    assert sessions.get_session(new.session, token=tokens[0]).session.seat == 1
    sessions.delete_session(new.session, token=made.host_token)


def test_in_a_rematch_a_seat_a_bot_played_stays_a_bot_and_moves_on_a_seat_too(client: Client) -> None:
    """Three seats: seat 2 a bot from the start, seat 0 forfeits (a bot plays its pieces), seat 1
    resigns last. Only seat 1 was a person's at the end: its vote makes the rematch, where the bots
    play seats 0 and 1 and seat 1's token plays seat 2."""
    sessions = client.sessions
    bots = [game_pb2.BotSeat(seat=2, level=game_pb2.BOT_LEVEL_RANDOM)]
    made = sessions.create_session(
        "pax_viking_junior", 3, seed=25, bots=bots, display_names=["Astrid", "Bjorn"]
    )
    session = made.session.session
    tokens = {t.seat: t.token for t in made.seat_tokens}
    assert sorted(tokens) == [0, 1]
    sessions.resign_seat(session, token=tokens[0])
    over = sessions.resign_seat(session, token=tokens[1]).session
    assert over.HasField("result")

    answer = sessions.rematch(session, token=tokens[1])
    new = answer.rematch
    assert new.session, "seat 1's vote alone makes it: the other seats are bots' at the end"
    assert roles(new) == [BOT, BOT, PERSON] and sorted(b.seat for b in new.bots) == [0, 1]
    assert new.seat == 2 and names(new) == ["", "", "Bjorn"]
    assert refusal(lambda: sessions.get_session(new.session, token=tokens[0])).reason == "SEAT_TOKEN_INVALID"
    sessions.delete_session(new.session, token=made.host_token)


def test_the_host_deletes_an_all_bot_session(client: Client) -> None:
    bots = [game_pb2.BotSeat(seat=s, level=game_pb2.BOT_LEVEL_RANDOM) for s in range(2)]
    made = client.sessions.create_session("valhalla", 2, seed=26, bots=bots)
    session = made.session.session
    assert made.host_token and not made.seat_tokens and roles(made.session) == [BOT, BOT]
    nobody = refusal(lambda: client.sessions.delete_session(session))
    assert (nobody.code, nobody.reason) == ("PERMISSION_DENIED", "HOST_TOKEN_REQUIRED")
    wrong = refusal(lambda: client.sessions.delete_session(session, token="not-the-host-token"))
    assert wrong.code == "PERMISSION_DENIED"
    client.sessions.delete_session(session, token=made.host_token)
    assert refusal(lambda: client.sessions.get_session(session)).code == "NOT_FOUND"


HOSTILE_NAMES = [
    # (as sent, as stored and shown: the exact text)
    ('<img src=x onerror="alert(1)">', '<img src=x onerror="alert(1)">'),  # markup is text
    ("Ulf\x00\x07\x1b[31m\x7f", "Ulf[31m"),  # control characters removed
    ("\u202egnaR\u202c Lod\u2067brok\u2069", "gnaR Lodbrok"),  # bidirectional overrides and isolates
    ("  Bjo\u0308rn \t\n the\u00a0\u2028 Bold  ", "Bj\u00f6rn the Bold"),  # NFC; runs of space one; trimmed
]


def test_hostile_display_names_are_stored_normalised_or_refused_naming_the_field(client: Client) -> None:
    sessions = client.sessions
    sent, shown = zip(*HOSTILE_NAMES, strict=True)
    made = sessions.create_session("pax_viking_junior", 5, seed=27, open_seats=[4], display_names=list(sent))
    session, host = made.session.session, made.host_token
    assert names(made.session) == [*shown, ""]
    assert names(sessions.get_session(session).session) == [*shown, ""]
    (in_lobby,) = [v for v in sessions.iter_sessions("pax_viking_junior", 5) if v.session == session]
    assert names(in_lobby) == [*shown, ""]

    over_grpc = client.transport == "grpc"  # gRPC names the proto field; a JSON body its JSON name
    big = "A" * 10_240
    long = refusal(lambda: sessions.create_session("valhalla", 2, display_names=[big]))
    assert (long.code, long.reason) == ("INVALID_ARGUMENT", "DISPLAY_NAME_TOO_LONG")
    assert [v.field for v in long.field_violations] == [
        "display_names[0]" if over_grpc else "displayNames[0]"
    ]
    too_long = refusal(lambda: sessions.claim_seat(session, big))
    assert (too_long.code, too_long.reason) == ("INVALID_ARGUMENT", "DISPLAY_NAME_TOO_LONG")
    assert [v.field for v in too_long.field_violations] == ["display_name" if over_grpc else "displayName"]
    just_over = refusal(lambda: sessions.claim_seat(session, "x" * 33))  # refused, never cut
    assert just_over.reason == "DISPLAY_NAME_TOO_LONG"
    blank = refusal(lambda: sessions.claim_seat(session, " \u200b\x00\u202e "))
    assert blank.reason == "DISPLAY_NAME_REQUIRED"

    claimed = sessions.claim_seat(session, HOSTILE_NAMES[2][0])
    assert names(claimed.session)[4] == HOSTILE_NAMES[2][1]
    assert seat_events(client, session)[-1] == (
        4,
        session_service_pb2.SEAT_EVENT_KIND_CLAIMED,
        HOSTILE_NAMES[2][1],
    )
    renamed = sessions.manage_seat(
        session,
        0,
        session_service_pb2.SEAT_ACTION_REISSUE_TOKEN,
        display_name=HOSTILE_NAMES[1][0],
        token=host,
    )
    assert names(renamed.session)[0] == HOSTILE_NAMES[1][1]
    sessions.delete_session(session, token=host)


def test_rest_lobby_and_host_calls_follow_their_http_annotations() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    client = rest_client_answering(handler)
    client.sessions.list_sessions("penki", 2, page_size=5, page_token="t")
    client.sessions.claim_seat("penki.a", "Astrid", seat=0)
    client.sessions.claim_seat("penki.a", "Astrid")
    client.sessions.manage_seat(
        "penki.a", 1, session_service_pb2.SEAT_ACTION_BOT, bot_level=game_pb2.BOT_LEVEL_RANDOM, token="host"
    )
    client.sessions.manage_seat("penki.a", 0, "SEAT_ACTION_REISSUE_TOKEN", display_name="", token="host")
    client.sessions.rematch("penki.a", token="seat")
    client.sessions.create_session("penki", 2, open_seats=[1], display_names=["Astrid"])
    got = [
        (
            r.method,
            r.url.raw_path,
            json.loads(r.content) if r.content else None,
            r.headers.get("authorization"),
        )
        for r in seen
    ]
    assert got == [
        ("GET", b"/v1/sessions?game=penki&players=2&pageSize=5&pageToken=t", None, None),
        (
            "POST",
            b"/v1/sessions/penki.a:claimSeat",
            {"displayName": "Astrid", "seat": 0},
            None,
        ),  # seat 0, set
        ("POST", b"/v1/sessions/penki.a:claimSeat", {"displayName": "Astrid"}, None),  # unset: the lowest
        (
            "POST",
            b"/v1/sessions/penki.a:manageSeat",
            {"seat": 1, "action": "SEAT_ACTION_BOT", "botLevel": "BOT_LEVEL_RANDOM"},
            "Bearer host",
        ),
        (
            "POST",
            b"/v1/sessions/penki.a:manageSeat",
            {"action": "SEAT_ACTION_REISSUE_TOKEN", "displayName": ""},  # "" set: clears the name
            "Bearer host",
        ),
        ("POST", b"/v1/sessions/penki.a:rematch", {}, "Bearer seat"),
        (
            "POST",
            b"/v1/sessions",
            {"game": "penki", "players": 2, "openSeats": [1], "displayNames": ["Astrid"]},
            None,
        ),
    ]
