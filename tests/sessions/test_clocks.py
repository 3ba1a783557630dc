"""Turn clocks, timeouts and departures: the arithmetic (``sessions.clocks``, pure) and the session API
over every store (in-process, Redis, Redis Cluster). Real processes: test_clock_timeouts.py.

The timeout tests wait for 1-second deadlines (about 1.5 s each, per store)."""

from __future__ import annotations

import asyncio
import time

import pytest

from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions import clocks
from lawspeaker.sessions.clocks import ClockRule, SeatClock
from lawspeaker.sessions.service import SessionApi
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import StoreFactory
from .helpers import run

pytestmark = pytest.mark.sessions

FISCHER = ClockRule(per_move=0, bank=60, increment=5)


def test_a_fischer_move_costs_its_time_and_earns_the_increment() -> None:
    started = clocks.start(FISCHER, 2, [0], now=100.0)
    assert started == [SeatClock(60.0, 100.0), SeatClock(60.0, 0.0)]
    assert clocks.deadline(FISCHER, started[0]) == 160.0
    after = clocks.advance(FISCHER, started, [1], now=112.5, mover=0)
    assert after == [SeatClock(52.5, 0.0), SeatClock(60.0, 112.5)]
    assert clocks.next_deadline(FISCHER, after) == (172.5, 1)


def test_a_per_move_limit_starts_afresh_each_move_even_for_the_same_seat() -> None:
    rule = ClockRule(per_move=30, bank=0, increment=0)
    now = clocks.start(rule, 2, [0], now=1000.0)
    again = clocks.advance(rule, now, [0], now=1010.0, mover=0)
    assert again[0].since == 1010.0 and clocks.deadline(rule, again[0]) == 1040.0
    assert clocks.time_left(rule, again[0]) == 30.0


def test_a_bank_and_a_per_move_limit_end_at_whichever_comes_first() -> None:
    rule = ClockRule(per_move=30, bank=20, increment=0)
    assert clocks.deadline(rule, SeatClock(20.0, 5.0)) == 25.0
    assert clocks.deadline(rule, SeatClock(45.0, 5.0)) == 35.0


def test_a_timed_out_seat_gets_its_bank_back_on_its_own_next_move() -> None:
    running = clocks.start(FISCHER, 2, [0], now=1000.0)
    timed_out = clocks.advance(FISCHER, running, [1], now=1060.0, mover=0, own=False)
    assert timed_out[0] == SeatClock(5.0, 0.0, timed_out=True)  # spent, plus the increment
    again = clocks.advance(FISCHER, timed_out, [0], now=1070.0, mover=1)
    back = clocks.advance(FISCHER, again, [1], now=1071.0, mover=0)
    assert back[0] == SeatClock(60.0, 0.0, timed_out=False)


def test_undo_takes_back_the_increment_so_move_and_undo_banks_nothing() -> None:
    running = clocks.start(FISCHER, 2, [0], now=1000.0)
    moved = clocks.advance(FISCHER, running, [1], now=1001.0, mover=0)
    undone = clocks.advance(FISCHER, moved, [0], now=1001.5, undoer=0)
    assert undone[0].left == pytest.approx(59.0) and undone[0].since == 1001.5


def test_a_chance_step_and_a_finished_game_stop_every_clock() -> None:
    running = clocks.start(FISCHER, 2, [1], now=1000.0)
    stopped = clocks.advance(FISCHER, running, [], now=1003.0)
    assert stopped == [SeatClock(60.0), SeatClock(57.0)]
    assert clocks.next_deadline(FISCHER, stopped) is None


def test_ranking_puts_the_winners_first_and_the_leavers_last_latest_first() -> None:
    places = [(p.seat, p.place) for p in clocks.ranking(5, winners=[3], out=[1, 4])]
    assert places == [(3, 1), (0, 2), (2, 2), (4, 3), (1, 4)]
    draw = [(p.seat, p.place) for p in clocks.ranking(2, winners=[], out=[])]
    assert draw == [(0, 1), (1, 1)]
    leaver_won = [(p.seat, p.place) for p in clocks.ranking(3, winners=[2], out=[2])]
    assert leaver_won == [(0, 1), (1, 1), (2, 2)]


def _clocked(action: int, **clock: int) -> spb.CreateSessionRequest:
    return spb.CreateSessionRequest(
        game="valhalla", players=2, seed=11, clock=spb.Clock(on_timeout=action, **clock)
    )


async def _until(api: SessionApi, session: str, done: object, seconds: float = 5.0) -> spb.Session:
    ends = time.monotonic() + seconds
    while True:
        got = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
        if done(got) or time.monotonic() > ends:  # type: ignore[operator]
            return got
        await asyncio.sleep(0.05)


def test_a_bot_moves_for_a_seat_whose_time_ran_out(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        made = await api.create_session(_clocked(spb.TIMEOUT_ACTION_BOT, per_move_seconds=1), None)
        session = made.session.session
        api.start()
        first = await _until(api, session, lambda s: bool(s.deadline))
        to_act = first.to_act[0]
        assert first.seats[to_act].time_left_seconds == 1.0
        assert first.clock.on_timeout == spb.TIMEOUT_ACTION_BOT
        moved = await _until(api, session, lambda s: s.seats[to_act].timed_out)
        assert moved.seats[to_act].timed_out
        log = (await api.list_session_moves(spb.ListSessionMovesRequest(session=session), None)).moves
        bot_moves = [m for m in log if m.on_timeout]
        assert bot_moves and all(m.seat == to_act and not m.chance for m in bot_moves)

    run(make_store, body)


def test_a_forfeit_on_time_ends_a_two_player_game(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        made = await api.create_session(_clocked(spb.TIMEOUT_ACTION_FORFEIT, bank_seconds=1), None)
        session = made.session.session
        api.start()
        first = await _until(api, session, lambda s: bool(s.deadline))
        loser = first.to_act[0]
        ended = await _until(api, session, lambda s: s.game_over)
        assert ended.result.reason == spb.RESULT_REASON_TIMEOUT
        assert list(ended.result.winners) == [1 - loser] and ended.seats[loser].out
        assert not ended.deadline
        log = (await api.list_session_moves(spb.ListSessionMovesRequest(session=session), None)).moves
        assert log[-1].seat_event.kind == spb.SEAT_EVENT_KIND_FORFEITED_ON_TIME

    run(make_store, body)


def test_a_timeout_that_does_nothing_is_only_shown(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        made = await api.create_session(_clocked(spb.TIMEOUT_ACTION_NOTHING, per_move_seconds=1), None)
        session = made.session.session
        api.start()
        first = await _until(api, session, lambda s: bool(s.deadline))
        seat = first.to_act[0]
        late = await _until(api, session, lambda s: s.seats[seat].timed_out, 3.0)
        assert late.seats[seat].timed_out and late.etag == first.etag  # nothing was written

    run(make_store, body)


@pytest.mark.parametrize(
    ("clock", "field"),
    [
        (spb.Clock(), "clock"),
        (spb.Clock(per_move_seconds=10, increment_seconds=2), "clock.increment_seconds"),
        (spb.Clock(bank_seconds=400 * 86400), "clock.bank_seconds"),
        (spb.Clock(per_move_seconds=10, on_timeout=9), "clock.on_timeout"),  # type: ignore[arg-type]
    ],
)
def test_a_clock_that_cannot_work_is_refused_naming_its_field(
    make_store: StoreFactory, clock: spb.Clock, field: str
) -> None:
    async def body(api: SessionApi) -> None:
        request = spb.CreateSessionRequest(game="valhalla", players=2, clock=clock)
        with pytest.raises(LawspeakerError) as refused:
            await api.create_session(request, None)
        assert refused.value.reason == "CLOCK_INVALID"
        assert refused.value.field_violations[0].field == field

    run(make_store, body)


def test_a_resigned_seat_watches_but_no_longer_moves(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        made = await api.create_session(spb.CreateSessionRequest(game="pax_penning", players=3, seed=2), None)
        session, tokens = made.session.session, [t.token for t in made.seat_tokens]
        left = await api.resign_seat(
            spb.ResignSeatRequest(
                session=session, action=spb.RESIGN_ACTION_BOT, bot_level=game_pb2.BOT_LEVEL_RANDOM
            ),
            tokens[1],
        )
        assert [b.seat for b in left.session.bots] == [1] and not left.session.seats[1].out
        seen = await api.get_session(spb.GetSessionRequest(session=session), tokens[1])
        assert seen.session.seat == 1
        legal = await api.session_legal_moves(spb.SessionLegalMovesRequest(session=session), tokens[1])
        assert not legal.moves
        with pytest.raises(LawspeakerError) as refused:
            await api.resign_seat(spb.ResignSeatRequest(session=session), tokens[1])
        assert refused.value.reason == "SEAT_RESIGNED" and refused.value.code is ErrorCode.ILLEGAL_MOVE

    run(make_store, body)


def test_presence_follows_a_seats_watch_and_requests(make_store: StoreFactory) -> None:
    """A watch makes its seat connected; once closed (and its grace passed: about 1 s) the store
    holds the seat as gone and last seen; a request alone marks the seat seen, never connected."""

    async def body(api: SessionApi) -> None:
        made = await api.create_session(spb.CreateSessionRequest(game="valhalla", players=2, seed=4), None)
        session, tokens = made.session.session, [t.token for t in made.seat_tokens]
        await api.get_session(spb.GetSessionRequest(session=session), tokens[1])
        updates = api.watch_session(spb.WatchSessionRequest(session=session), tokens[0])
        first = (await anext(updates)).session
        assert first.seats[0].connected and first.seats[0].last_seen
        assert not first.seats[1].connected and first.seats[1].last_seen  # its request, just now
        _, key = api._key(session)
        stored = await api.store.read_presence(key)
        assert any(name.startswith("open:0:") for name in stored)
        await updates.aclose()
        ends = time.monotonic() + 5
        while any(name.startswith("open:0:") for name in await api.store.read_presence(key)):
            assert time.monotonic() < ends, "the closed watch was not written as gone"
            await asyncio.sleep(0.05)
        stored = await api.store.read_presence(key)
        assert stored["seen:0"] > time.time() - 5 and stored["seen:1"] > time.time() - 5
        await asyncio.sleep(1.1)  # past the cache of what this replica read
        view = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
        assert not view.seats[0].connected and view.seats[0].last_seen

    run(make_store, body)
