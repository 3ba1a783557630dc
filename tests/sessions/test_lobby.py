"""The host, the lobby and rematches (issue 38) over every store: host tokens, open seats and claims,
display names, the host's seat controls and rematches. Real processes (two replicas, racing claims
across them): test_lobby_replicas.py."""

from __future__ import annotations

import asyncio

import pytest

from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions import seats
from lawspeaker.sessions.service import Limits, SessionApi
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import StoreFactory
from .helpers import play, run

pytestmark = pytest.mark.sessions


def _open(
    game: str = "valhalla", players: int = 2, open_seats: tuple[int, ...] = (1,), **kw: object
) -> spb.CreateSessionRequest:
    return spb.CreateSessionRequest(game=game, players=players, seed=5, open_seats=open_seats, **kw)  # type: ignore[arg-type]


async def _refused(call: object) -> LawspeakerError:
    with pytest.raises(LawspeakerError) as err:
        await call  # type: ignore[misc]
    return err.value


def test_a_display_name_is_normalised_and_never_cut() -> None:
    assert seats.display_name("  Astrid \t the\n\nBold  ", "n", True) == "Astrid the Bold"
    assert seats.display_name("Ra\u202egnar\u2066\u0007", "n", True) == "Ragnar"  # overrides, controls
    assert seats.display_name("<b>Ivar</b>", "n", True) == "<b>Ivar</b>"  # text, never markup
    assert seats.display_name("Bjo\u0308rn", "n", True) == "Bj\u00f6rn"  # NFC
    for raw, reason in (("x" * 33, "DISPLAY_NAME_TOO_LONG"), ("x" * 10_000, "DISPLAY_NAME_TOO_LONG")):
        with pytest.raises(LawspeakerError) as err:
            seats.display_name(raw, "display_name", True)
        assert err.value.reason == reason and err.value.field_violations[0].field == "display_name"
    with pytest.raises(LawspeakerError) as err:
        seats.display_name(" \u200b\u0000 ", "display_name", True)
    assert err.value.reason == "DISPLAY_NAME_REQUIRED"


def test_the_host_token_deletes_an_all_bot_session(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        bots = [game_pb2.BotSeat(seat=s, level=game_pb2.BOT_LEVEL_RANDOM) for s in range(2)]
        made = await api.create_session(spb.CreateSessionRequest(game="valhalla", players=2, bots=bots), None)
        assert made.host_token and not made.seat_tokens and made.session.has_host
        session = made.session.session
        seen = await api.get_session(spb.GetSessionRequest(session=session), made.host_token)
        assert not seen.session.HasField("seat")  # the host looks on as a spectator
        err = await _refused(api.delete_session(spb.DeleteSessionRequest(session=session), None))
        assert err.reason == "HOST_TOKEN_REQUIRED"
        await api.delete_session(spb.DeleteSessionRequest(session=session), made.host_token)
        err = await _refused(api.get_session(spb.GetSessionRequest(session=session), None))
        assert err.code is ErrorCode.NOT_FOUND

    run(make_store, body)


def test_a_seat_of_a_lobby_session_may_not_delete_it_nor_act_as_host(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        made = await api.create_session(_open(), None)
        session, token = made.session.session, made.seat_tokens[0].token
        claimed = await api.claim_seat(spb.ClaimSeatRequest(session=session, display_name="Ulf"), None)
        for who in (token, claimed.seat_token.token):
            err = await _refused(api.delete_session(spb.DeleteSessionRequest(session=session), who))
            assert err.reason == "HOST_TOKEN_INVALID" and err.code is ErrorCode.PERMISSION_DENIED
        manage = spb.ManageSeatRequest(session=session, seat=1, action=spb.SEAT_ACTION_OPEN)
        assert (await _refused(api.manage_seat(manage, token))).reason == "HOST_TOKEN_INVALID"
        legal = spb.SessionLegalMovesRequest(session=session)
        moves = (await api.session_legal_moves(legal, made.seat_tokens[0].token)).moves
        move = spb.SessionApplyMoveRequest(session=session, move=moves[0], etag=claimed.session.etag)
        assert (
            await _refused(api.session_apply_move(move, made.host_token))
        ).reason == "HOST_TOKEN_NOT_A_SEAT"

    run(make_store, body)


def test_an_open_seat_is_listed_claimed_once_and_then_the_game_starts(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        made = await api.create_session(_open(display_names=["Astrid"]), None)
        session = made.session.session
        assert [t.seat for t in made.seat_tokens] == [0]
        view = made.session
        assert view.waiting_for_players and view.seats[1].role == spb.SEAT_ROLE_OPEN
        assert view.seats[0].role == spb.SEAT_ROLE_PERSON and view.seats[0].display_name == "Astrid"
        listed = await api.list_sessions(spb.ListSessionsRequest(game="valhalla", players=2), None)
        assert session in [s.session for s in listed.sessions]
        assert all(not s.HasField("seat") for s in listed.sessions)
        # nothing is played while a seat waits
        moves = await api.session_legal_moves(
            spb.SessionLegalMovesRequest(session=session), made.seat_tokens[0].token
        )
        assert not moves.moves
        claims = await asyncio.gather(
            api.claim_seat(spb.ClaimSeatRequest(session=session, display_name="Björn"), None),
            api.claim_seat(spb.ClaimSeatRequest(session=session, display_name="Ivar"), None),
            return_exceptions=True,
        )
        won = [c for c in claims if isinstance(c, spb.ClaimSeatResponse)]
        lost = [c for c in claims if isinstance(c, LawspeakerError)]
        assert len(won) == 1 and len(lost) == 1 and lost[0].reason == "SEAT_NOT_OPEN"
        claimed = won[0]
        assert claimed.seat_token.seat == 1 and claimed.session.seat == 1
        assert not claimed.session.waiting_for_players
        assert claimed.session.seats[1].role == spb.SEAT_ROLE_PERSON
        listed = await api.list_sessions(spb.ListSessionsRequest(game="valhalla"), None)
        assert session not in [s.session for s in listed.sessions]
        log = (await api.list_session_moves(spb.ListSessionMovesRequest(session=session), None)).moves
        assert log[-1].seat_event.kind == spb.SEAT_EVENT_KIND_CLAIMED
        assert log[-1].seat_event.display_name == claimed.session.seats[1].display_name
        tokens = [made.seat_tokens[0].token, claimed.seat_token.token]
        after = await play(api, session, tokens, 4)
        assert after.move_count == 4

    run(make_store, body)


def test_the_lobby_filters_pages_and_forgets_what_is_gone(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        made = [await api.create_session(_open(), None) for _ in range(5)]
        four = await api.create_session(_open("pax_penning", 4, (1, 3)), None)
        await api.create_session(spb.CreateSessionRequest(game="valhalla", players=2), None)  # full: unlisted
        seen: list[str] = []
        page = spb.ListSessionsResponse(next_page_token="start")
        while page.next_page_token:
            token = "" if page.next_page_token == "start" else page.next_page_token
            page = await api.list_sessions(
                spb.ListSessionsRequest(game="valhalla", page_size=2, page_token=token), None
            )
            assert len(page.sessions) <= 2
            seen += [s.session for s in page.sessions]
        assert seen == [m.session.session for m in made]  # oldest first
        by_players = await api.list_sessions(spb.ListSessionsRequest(players=4), None)
        assert [s.session for s in by_players.sessions] == [four.session.session]
        everything = await api.list_sessions(spb.ListSessionsRequest(), None)
        assert {s.session for s in everything.sessions} == {*seen, four.session.session}
        await api.delete_session(spb.DeleteSessionRequest(session=seen[0]), made[0].host_token)
        again = await api.list_sessions(spb.ListSessionsRequest(game="valhalla"), None)
        assert seen[0] not in [s.session for s in again.sessions]
        bad = spb.ListSessionsRequest(game="valhalla", players=3, page_token=page.next_page_token or "eA")
        assert (await _refused(api.list_sessions(bad, None))).reason == "INVALID_PAGE_TOKEN"
        err = await _refused(api.list_sessions(spb.ListSessionsRequest(game="chess"), None))
        assert err.reason == "GAME_NOT_FOUND" and err.field_violations[0].field == "game"
        text = str(everything)
        for m in made:
            assert m.host_token not in text and all(t.token not in text for t in m.seat_tokens)

    run(make_store, body)


def test_the_host_reissues_hands_to_a_bot_takes_back_opens_and_closes(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        made = await api.create_session(spb.CreateSessionRequest(game="valhalla", players=2, seed=3), None)
        session, host, old = made.session.session, made.host_token, made.seat_tokens[1].token

        def manage(action: int, **kw: object) -> spb.ManageSeatRequest:
            return spb.ManageSeatRequest(session=session, seat=1, action=action, **kw)  # type: ignore[arg-type]

        new = await api.manage_seat(manage(spb.SEAT_ACTION_REISSUE_TOKEN, display_name="Sigrid"), host)
        assert new.seat_token.seat == 1 and new.seat_token.token != old
        assert new.session.seats[1].display_name == "Sigrid"
        err = await _refused(api.get_session(spb.GetSessionRequest(session=session), old))
        assert err.reason == "SEAT_TOKEN_INVALID"  # the old token stopped at once
        assert (
            await api.get_session(spb.GetSessionRequest(session=session), new.seat_token.token)
        ).session.seat == 1
        botted = await api.manage_seat(manage(spb.SEAT_ACTION_BOT, bot_level=game_pb2.BOT_LEVEL_RANDOM), host)
        assert botted.session.seats[1].role == spb.SEAT_ROLE_BOT and [
            b.seat for b in botted.session.bots
        ] == [1]
        back = await api.manage_seat(manage(spb.SEAT_ACTION_REISSUE_TOKEN), host)
        assert back.session.seats[1].role == spb.SEAT_ROLE_PERSON and not back.session.bots
        opened = await api.manage_seat(manage(spb.SEAT_ACTION_OPEN), host)
        assert opened.session.seats[1].role == spb.SEAT_ROLE_OPEN and opened.session.waiting_for_players
        listed = await api.list_sessions(spb.ListSessionsRequest(game="valhalla"), None)
        assert session in [s.session for s in listed.sessions]
        closed = await api.manage_seat(manage(spb.SEAT_ACTION_CLOSE), host)
        assert closed.session.seats[1].role == spb.SEAT_ROLE_RESERVED
        listed = await api.list_sessions(spb.ListSessionsRequest(game="valhalla"), None)
        assert session not in [s.session for s in listed.sessions]
        err = await _refused(api.claim_seat(spb.ClaimSeatRequest(session=session, display_name="Ulf"), None))
        assert err.reason == "SEAT_NOT_OPEN"
        assert (
            await _refused(api.manage_seat(manage(spb.SEAT_ACTION_CLOSE), host))
        ).reason == "SEAT_NOT_OPEN"
        assert (await _refused(api.manage_seat(manage(0), host))).reason == "SEAT_ACTION_INVALID"
        log = (await api.list_session_moves(spb.ListSessionMovesRequest(session=session), None)).moves
        assert [m.seat_event.kind for m in log] == [
            spb.SEAT_EVENT_KIND_TOKEN_REISSUED,
            spb.SEAT_EVENT_KIND_HANDED_TO_BOT,
            spb.SEAT_EVENT_KIND_TOKEN_REISSUED,
            spb.SEAT_EVENT_KIND_OPENED,
            spb.SEAT_EVENT_KIND_CLOSED,
        ]

    run(make_store, body)


def test_a_rematch_rotates_the_seats_and_keeps_the_tokens(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        made = await api.create_session(
            spb.CreateSessionRequest(game="valhalla", players=2, display_names=["Astrid", "Björn"]), None
        )
        session, tokens = made.session.session, [t.token for t in made.seat_tokens]
        err = await _refused(api.rematch(spb.RematchRequest(session=session), tokens[0]))
        assert err.reason == "GAME_NOT_OVER"
        await api.resign_seat(spb.ResignSeatRequest(session=session), tokens[1])
        asked = await api.rematch(spb.RematchRequest(session=session), tokens[0])
        assert list(asked.session.rematch_requested) == [0] and not asked.HasField("rematch")
        watch = api.watch_session(
            spb.WatchSessionRequest(session=session, resume_after_etag=asked.session.etag), tokens[0]
        )
        both = await api.rematch(spb.RematchRequest(session=session), tokens[1])
        new = both.rematch
        told = await asyncio.wait_for(anext(watch), 10)
        assert told.session.rematch == new.session  # a watcher of the old session learns where it went
        await watch.aclose()
        assert new.session and new.seat == 0  # seat 1's player plays seat 0 now
        assert [s.display_name for s in new.seats] == ["Björn", "Astrid"]
        old = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
        assert old.rematch == new.session
        mine = (await api.get_session(spb.GetSessionRequest(session=new.session), tokens[0])).session
        assert mine.seat == 1
        again = await api.rematch(spb.RematchRequest(session=session), made.host_token)
        assert again.rematch.session == new.session  # asking again answers the same rematch

    run(make_store, body)


def test_lobby_calls_count_against_the_lobby_rate(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        for _ in range(2):
            await api.list_sessions(spb.ListSessionsRequest(), None)
        err = await _refused(api.list_sessions(spb.ListSessionsRequest(), None))
        assert err.reason == "LOBBY_RATE_LIMITED" and err.code is ErrorCode.RESOURCE_EXHAUSTED

    run(make_store, body, limits=Limits(lobby_per_minute=1, lobby_burst=2))


def test_a_watch_ends_when_the_host_takes_its_token_away(make_store: StoreFactory) -> None:
    """A watch opened with a seat's token sees that seat's view only while the token is the seat's:
    once the host reissues it (or hands the seat over), the watch ends with SEAT_TOKEN_INVALID."""

    async def body(api: SessionApi) -> None:
        made = await api.create_session(spb.CreateSessionRequest(game="pax_penning", players=3, seed=2), None)
        session, old = made.session.session, made.seat_tokens[1].token
        watch = api.watch_session(spb.WatchSessionRequest(session=session), old)
        first = await anext(watch)
        assert first.session.seat == 1
        manage = spb.ManageSeatRequest(session=session, seat=1, action=spb.SEAT_ACTION_REISSUE_TOKEN)
        await api.manage_seat(manage, made.host_token)
        with pytest.raises(LawspeakerError) as err:
            await asyncio.wait_for(anext(watch), 10)
        assert err.value.reason == "SEAT_TOKEN_INVALID"

    run(make_store, body)


def test_the_last_page_of_the_lobby_has_no_next_page_token(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        for _ in range(2):
            await api.create_session(_open("birka", 3, (2,)), None)
        first = await api.list_sessions(spb.ListSessionsRequest(players=3, page_size=1), None)
        assert len(first.sessions) == 1 and first.next_page_token
        last = await api.list_sessions(
            spb.ListSessionsRequest(players=3, page_size=1, page_token=first.next_page_token), None
        )
        assert len(last.sessions) == 1 and not last.next_page_token

    run(make_store, body)
