"""Bot seats in sessions: the server moves a bot seat when its turn comes, as a person's move is
made (etag, request id, log, watchers), once per version, off the event loop; a session of bots
plays itself to the end; a stalled bot is moved by the next replica that reads the session."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import pytest
from transport.test_serve_command import serving

from lawspeaker.api.botpool import BotPool
from lawspeaker.api.rules import RulesApi
from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions import service
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import RedisStore, SessionStore, WriteStatus
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import REDIS_UP, REDIS_URL, StoreFactory
from .helpers import assert_no_rng

pytestmark = pytest.mark.sessions
T = TypeVar("T")
RANDOM, GREEDY, SEARCH = game_pb2.BOT_LEVEL_RANDOM, game_pb2.BOT_LEVEL_GREEDY, game_pb2.BOT_LEVEL_SEARCH


@pytest.fixture(autouse=True)
def quick_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots here move every 2 ms at most (50 moves a second as served): whole games stay quick and
    the watchers of this event loop still see every version."""
    monkeypatch.setattr(service, "BOT_PACE_SECONDS", 0.002)


def bot(seat: int, level: int, playouts: int = 0, millis: int = 0) -> game_pb2.BotSeat:
    return game_pb2.BotSeat(
        seat=seat, level=level, budget=game_pb2.BotBudget(playouts=playouts, millis=millis)
    )


def run_bots(make_store: Callable[..., SessionStore], body: Callable[[SessionApi], Awaitable[T]]) -> T:
    """``body(api)`` in a fresh event loop, over a SessionApi whose bots think in a worker process."""

    async def main() -> T:
        pool = BotPool(processes=1)
        api = SessionApi(make_store(), RulesApi(bot_pool=pool))
        try:
            return await body(api)
        finally:
            api.shutdown()
            await api.close()
            pool.close()

    return asyncio.run(main())


async def watch_to_the_end(api: SessionApi, session: str, token: str | None = None) -> list[spb.Session]:
    """Every version the watch stream shows until one says the game is over."""
    seen: list[spb.Session] = []
    async with asyncio.timeout(240):
        async for update in api.watch_session(spb.WatchSessionRequest(session=session), token):
            seen.append(update.session)
            if update.session.game_over:
                return seen
    raise AssertionError("the stream ended before the game")


async def all_moves(api: SessionApi, session: str) -> list[spb.SessionMove]:
    listed = await api.list_session_moves(spb.ListSessionMovesRequest(session=session, page_size=1000), None)
    moves = list(listed.moves)
    while listed.next_page_token:
        listed = await api.list_session_moves(
            spb.ListSessionMovesRequest(session=session, page_size=1000, page_token=listed.next_page_token),
            None,
        )
        moves.extend(listed.moves)
    return moves


@pytest.mark.parametrize(
    ("game", "players", "bots"),
    [
        ("valhalla", 2, [bot(0, RANDOM), bot(1, RANDOM)]),
        ("penki", 2, [bot(0, GREEDY), bot(1, SEARCH, playouts=8)]),
        ("pax_penning", 3, [bot(0, RANDOM), bot(1, GREEDY), bot(2, RANDOM)]),
    ],
    ids=["valhalla-random", "penki-greedy-search", "pax_penning-3"],
)
def test_a_session_of_bots_plays_itself_to_the_end(
    make_store: StoreFactory, game: str, players: int, bots: list[game_pb2.BotSeat]
) -> None:
    async def body(api: SessionApi) -> None:
        made = await api.create_session(
            spb.CreateSessionRequest(game=game, players=players, seed=5, bots=bots), None
        )
        assert list(made.seat_tokens) == []  # nobody is a person here
        assert list(made.session.bots) == bots
        seen = await watch_to_the_end(api, made.session.session)
        for update in seen:
            assert_no_rng(update)
        versions = [int(s.etag) for s in seen]
        assert versions == list(range(versions[0], versions[0] + len(versions)))  # every version, in order
        last = seen[-1]
        assert last.game_over and last.outcome.summary
        moves = await all_moves(api, made.session.session)
        assert len(moves) == last.move_count == int(last.etag) - int(made.session.etag)
        assert {m.seat for m in moves if m.HasField("seat")} <= set(range(players))

    run_bots(make_store, body)


def test_a_person_plays_against_a_bot(make_store: StoreFactory) -> None:
    """Penki, seat 0 a person, seat 1 a greedy bot: after each of the person's moves the bot's reply
    arrives on the watch stream like any move; the person cannot move for the bot."""

    async def body(api: SessionApi) -> None:
        made = await api.create_session(
            spb.CreateSessionRequest(game="penki", players=2, seed=9, bots=[bot(1, GREEDY)]), None
        )
        assert [(t.seat) for t in made.seat_tokens] == [0]
        token = made.seat_tokens[0].token
        session = made.session.session
        chooser = random.Random(4)
        refused_once = False
        updates = api.watch_session(spb.WatchSessionRequest(session=session), token)
        current = (await anext(updates)).session
        async with asyncio.timeout(240):
            while not current.game_over:
                if 0 in current.to_act:
                    listed = await api.session_legal_moves(
                        spb.SessionLegalMovesRequest(session=session), token
                    )
                    move = chooser.choice(list(listed.moves))
                    request = spb.SessionApplyMoveRequest(session=session, move=move, etag=current.etag)
                    current = (await api.session_apply_move(request, token)).session
                    continue
                if not refused_once:  # the bot's turn: the person may not move for it
                    listed = await api.session_legal_moves(
                        spb.SessionLegalMovesRequest(session=session), token
                    )
                    assert list(listed.moves) == []
                    refused_once = True
                nxt = (await anext(updates)).session
                if int(nxt.etag) > int(current.etag):
                    current = nxt
        await updates.aclose()
        assert refused_once
        moves = await all_moves(api, session)
        bot_moves = [m for m in moves if m.seat == 1]
        assert bot_moves and len(bot_moves) + sum(m.seat == 0 for m in moves) == len(moves)

    run_bots(make_store, body)


def test_a_bot_move_is_written_once_when_two_replicas_try(make_store: StoreFactory, store_kind: str) -> None:
    """Two replicas on one store both set out to move the bot on the same version (as after a stall):
    both think the same move (its seed comes from the session's secret and the version), one writes
    it, the other's write is the replay of the bot's request id for that version, and it stops."""
    if store_kind == "memory":
        pytest.skip("two replicas need a shared store")

    async def body(a: SessionApi) -> None:
        pool = BotPool(processes=1)
        b = SessionApi(make_store(), RulesApi(bot_pool=pool))
        try:
            made = await a.create_session(
                spb.CreateSessionRequest(
                    game="penki", players=2, seed=3, bots=[bot(0, SEARCH, millis=400), bot(1, RANDOM)]
                ),
                None,
            )
            session = made.session.session
            entry, key = b._key(session)
            for _ in range(500):  # until A's search bot thinks (400 ms) on a version B can read
                loaded = await b.store.load(key, b"")
                assert loaded is not None
                record = service._RECORD.decode(loaded.data)
                state = b._state(entry, record.state)
                if entry.game.chance(state) is None and entry.game.to_act(state).players == (0,):
                    break
                await asyncio.sleep(0.005)
            statuses: list[WriteStatus] = []
            for replica in (a, b):
                replica.store.write = _recording(replica.store.write, statuses)  # type: ignore[method-assign]
            b._wake_bots(entry, key, record, state)  # B thinks on the same version
            seen = await watch_to_the_end(a, session)
            assert seen[-1].game_over
            # one write lost the race, as the replay of the request id the winner used; none was stale
            assert statuses.count(WriteStatus.REPLAY) == 1 and WriteStatus.STALE not in statuses
            moves = await all_moves(a, session)
            assert len(moves) == seen[-1].move_count
        finally:
            b.shutdown()
            await b.close()
            pool.close()

    run_bots(make_store, body)


async def _thinking(pool: BotPool) -> None:
    """Until a bot of ``pool`` thinks."""
    async with asyncio.timeout(30):
        while not pool.thinking:
            await asyncio.sleep(0.005)


def _recording(write: Any, statuses: list[WriteStatus]) -> Any:
    """``write`` noting the status of every write it makes."""

    async def recorded(key: Any, change: Any) -> Any:
        result = await write(key, change)
        statuses.append(result.status)
        return result

    return recorded


@pytest.mark.skipif(not REDIS_UP, reason="needs Redis")
def test_a_stalled_bot_is_moved_by_the_next_replica_that_reads_the_session(
    redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replica A stops while its bot thinks; replica B, reading the session after the stall delay,
    moves the bot."""

    async def body() -> None:
        pools = [BotPool(processes=1), BotPool(processes=1)]
        a, b = (SessionApi(RedisStore(REDIS_URL, prefix=redis_prefix), RulesApi(bot_pool=p)) for p in pools)
        try:
            thinks = [bot(0, SEARCH, millis=1500), bot(1, SEARCH, millis=1500)]
            made = await a.create_session(
                spb.CreateSessionRequest(game="penki", players=2, seed=3, bots=thinks), None
            )
            session = made.session.session
            await _thinking(pools[0])
            a.shutdown()  # A stops before its bot has moved
            got = (await b.get_session(spb.GetSessionRequest(session=session), None)).session
            assert not got.game_over and session not in b._driving  # B wrote nothing: it waits
            monkeypatch.setattr(service, "BOT_STALL_SECONDS", 0.0)
            await b.get_session(spb.GetSessionRequest(session=session), None)  # a read after the stall
            async with asyncio.timeout(30):
                while (
                    await b.get_session(spb.GetSessionRequest(session=session), None)
                ).session.move_count == got.move_count:
                    await asyncio.sleep(0.05)
            moves = await all_moves(b, session)
            assert len(moves) > got.move_count
        finally:
            for api in (a, b):
                api.shutdown()
                await api.close()
            for pool in pools:
                pool.close()

    asyncio.run(body())


def test_deleting_a_session_while_its_bot_thinks_stops_the_bot_quietly(
    make_store: StoreFactory, caplog: pytest.LogCaptureFixture
) -> None:
    async def body(api: SessionApi) -> None:
        made = await api.create_session(
            spb.CreateSessionRequest(game="valhalla", players=2, seed=2, bots=[bot(0, SEARCH, millis=600)]),
            None,
        )
        session = made.session.session
        token = made.seat_tokens[0].token
        async with asyncio.timeout(60):
            while not api.rules.bot_pool.thinking:  # the person (seat 1) moves until the bot thinks
                current = (await api.get_session(spb.GetSessionRequest(session=session), token)).session
                if 1 in current.to_act:
                    listed = await api.session_legal_moves(
                        spb.SessionLegalMovesRequest(session=session), token
                    )
                    move = listed.moves[0]
                    request = spb.SessionApplyMoveRequest(session=session, move=move, etag=current.etag)
                    with contextlib.suppress(LawspeakerError):  # the bot moved meanwhile
                        await api.session_apply_move(request, token)
                await asyncio.sleep(0.005)
        assert session in api._driving
        await api.delete_session(spb.DeleteSessionRequest(session=session), token)
        async with asyncio.timeout(30):
            while session in api._driving:
                await asyncio.sleep(0.05)

    with caplog.at_level(logging.WARNING):
        run_bots(make_store, body)
    assert [r for r in caplog.records if r.name.startswith("lawspeaker")] == []


def test_an_undo_hands_the_turn_back_and_the_bot_moves_again(make_store: StoreFactory) -> None:
    """Valhalla, seat 1 a bot: the person's own move (no chance since) can be undone while the bot
    has not answered yet; the bot still answers once the person moves."""

    async def body(api: SessionApi) -> None:
        made = await api.create_session(
            spb.CreateSessionRequest(game="valhalla", players=2, seed=1, bots=[bot(1, RANDOM)]), None
        )
        session, token = made.session.session, made.seat_tokens[0].token
        updates = api.watch_session(spb.WatchSessionRequest(session=session), token)
        current = (await anext(updates)).session
        async with asyncio.timeout(60):
            while 0 not in current.to_act:  # the bot may cast first
                current = (await anext(updates)).session
            for _ in range(3):  # the person's turn comes round, the bot answers each time
                listed = await api.session_legal_moves(spb.SessionLegalMovesRequest(session=session), token)
                request = spb.SessionApplyMoveRequest(
                    session=session, move=listed.moves[0], etag=current.etag
                )
                current = (await api.session_apply_move(request, token)).session
                while 0 not in current.to_act and not current.game_over:
                    current = (await anext(updates)).session
        await updates.aclose()
        moves = await all_moves(api, session)
        assert any(m.seat == 1 for m in moves) and any(m.seat == 0 for m in moves)

    run_bots(make_store, body)


def test_bot_seats_are_checked_at_creation(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        cases = {
            "SEAT_OUT_OF_RANGE": ("bots[0].seat", [bot(2, RANDOM)], False),
            "BOT_SEAT_DUPLICATE": ("bots[1].seat", [bot(1, RANDOM), bot(1, GREEDY)], False),
            "BOT_LEVEL_REQUIRED": ("bots[0].level", [game_pb2.BotSeat(seat=1)], False),
            "BOTS_WITH_PHYSICAL_DICE": ("bots", [bot(1, RANDOM)], True),
        }
        for reason, (field, seats, dice) in cases.items():
            request = spb.CreateSessionRequest(game="valhalla", players=2, bots=seats, physical_dice=dice)
            with pytest.raises(LawspeakerError) as caught:
                await api.create_session(request, None)
            assert (caught.value.code, caught.value.reason) == (ErrorCode.MALFORMED, reason)
            assert caught.value.field_violations[0].field == field

    run_bots(make_store, body)


@pytest.mark.transport
@pytest.mark.skipif(not REDIS_UP, reason="needs Redis")
def test_a_bot_session_over_redis_played_on_one_replica_and_watched_on_another() -> None:
    """Two `lawspeaker serve` processes on one Redis: a session of two bots created on A plays itself
    to the end; B's watch stream shows every version; a person-vs-bot game goes on over REST on B."""
    with (
        serving([(["--redis-url", REDIS_URL], {}), (["--redis-url", REDIS_URL], {})]) as (a, b),
        httpx.Client(base_url=a, timeout=60) as ca,
        httpx.Client(base_url=b, timeout=60) as cb,
    ):
        made = ca.post(
            "/v1/sessions",
            json={
                "game": "valhalla",
                "players": 2,
                "seed": "12",
                "bots": [
                    {"seat": 0, "level": "BOT_LEVEL_RANDOM"},
                    {"seat": 1, "level": "BOT_LEVEL_GREEDY"},
                ],
            },
        )
        assert made.status_code == 200, made.text
        session = made.json()["session"]["session"]
        etags: list[int] = []
        done = threading.Event()
        with cb.stream("GET", f"/v1/sessions/{session}:watch") as stream:
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    shown: dict[str, Any] = json.loads(line[5:])["session"]
                    etags.append(int(shown["etag"]))
                    if shown.get("gameOver"):
                        done.set()
                        break
        assert done.is_set()
        assert etags == list(range(etags[0], etags[0] + len(etags)))
        listed = cb.get(f"/v1/sessions/{session}/moves", params={"pageSize": 1000}).json()
        assert int(listed["totalSize"]) == int(shown["moveCount"]) > 0

        # a person (seat 0) against a search bot, over REST on B
        vs = cb.post(
            "/v1/sessions",
            json={
                "game": "penki",
                "players": 2,
                "bots": [{"seat": 1, "level": "BOT_LEVEL_SEARCH", "budget": {"playouts": 20}}],
            },
        ).json()
        token = {"authorization": f"Bearer {vs['seatTokens'][0]['token']}"}
        session = vs["session"]["session"]
        for _ in range(3):
            current = _wait_for_turn(cb, session, token)
            if current.get("gameOver"):
                break
            moves = cb.post(f"/v1/sessions/{session}:legalMoves", json={}, headers=token).json()["moves"]
            moved = cb.post(
                f"/v1/sessions/{session}:applyMove",
                json={"move": moves[0], "etag": current["etag"]},
                headers=token,
            )
            assert moved.status_code == 200, moved.text
        log = cb.get(f"/v1/sessions/{session}/moves").json()["moves"]
        assert any(m.get("seat") == 1 for m in log)


def _wait_for_turn(client: httpx.Client, session: str, token: dict[str, str]) -> dict[str, Any]:
    for _ in range(600):
        current: dict[str, Any] = client.get(f"/v1/sessions/{session}", headers=token).json()["session"]
        if current.get("gameOver") or 0 in current.get("toAct", []):
            return current
        threading.Event().wait(0.05)
    raise AssertionError("the bot did not move")
