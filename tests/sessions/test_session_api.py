"""SessionService semantics over the SessionApi, against the in-process store and a real Redis."""

from __future__ import annotations

import asyncio
import hashlib
import random
from typing import Any

import msgspec
import pytest
from redis.crc import key_slot

from lawspeaker.api.rules import RulesApi
from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions.service import _ENCODE, SessionApi
from lawspeaker.sessions.store import IDEM_RECORD_BYTES, RedisStore, SessionKey, Write
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import rules_service_pb2 as rpb
from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.wire.codec import Entry
from lawspeaker.wire.registry import REGISTRY

from .conftest import REDIS_UP, REDIS_URL, StoreFactory
from .helpers import assert_no_rng, create, play, run

pytestmark = pytest.mark.sessions

CAST = game_pb2.Move(valhalla={"cast": {}})


def explicit_cast() -> game_pb2.Move:
    return game_pb2.Move(valhalla={"cast": {"sticks": {"sowulo": True}}})


async def error_of(call: Any) -> LawspeakerError:
    with pytest.raises(LawspeakerError) as caught:
        await call
    return caught.value


class ViewSpy:
    """Valhalla, recording which seat every view was asked for (Valhalla itself hides nothing)."""

    def __init__(self, game: Any) -> None:
        self._game = game
        self.seats: list[int | None] = []

    def view(self, state: Any, seat: int | None) -> Any:
        self.seats.append(seat)
        return self._game.view(state, seat)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)


def test_create_gives_one_strong_token_per_seat_and_the_public_view(make_store: StoreFactory) -> None:
    """Tokens are at least 128 random bits, one per seat; the creation response is the public view."""

    async def body(api: SessionApi) -> None:
        made = await api.create_session(spb.CreateSessionRequest(game="valhalla", players=2, seed=1), None)
        assert [t.seat for t in made.seat_tokens] == [0, 1]
        tokens = [t.token for t in made.seat_tokens]
        assert len(set(tokens)) == 2 and all(len(t) >= 32 for t in tokens)  # 24 bytes = 192 bits
        assert made.session.session.startswith("valhalla.")
        assert not made.session.HasField("seat")
        assert made.session.etag and made.session.move_count == 0 and list(made.session.to_act) == [0]
        assert_no_rng(made)
        # stored hashed: the record holds the SHA-256 of each token, never the token
        _, key = api._key(made.session.session)
        loaded = await api.store.load(key)
        assert loaded is not None
        for token in tokens:
            assert token.encode() not in loaded.data
            assert hashlib.sha256(token.encode()).digest() in loaded.data

    run(make_store, body)


def test_get_shows_the_seats_own_view_with_its_token_and_the_public_view_without(
    make_store: StoreFactory,
) -> None:
    spy = ViewSpy(REGISTRY["valhalla"].game)
    rules = RulesApi({"valhalla": Entry(spy, REGISTRY["valhalla"].codec)})

    async def body(api: SessionApi) -> None:
        session, tokens, _ = await create(api)
        spy.seats.clear()
        public = await api.get_session(spb.GetSessionRequest(session=session), None)
        assert spy.seats == [None] and not public.session.HasField("seat")
        spy.seats.clear()
        own = await api.get_session(spb.GetSessionRequest(session=session), tokens[1])
        assert spy.seats == [1] and own.session.seat == 1
        assert_no_rng(public)
        assert_no_rng(own)
        wrong = await error_of(api.get_session(spb.GetSessionRequest(session=session), "not-a-token"))
        assert wrong.code is ErrorCode.PERMISSION_DENIED and wrong.reason == "SEAT_TOKEN_INVALID"
        missing = await error_of(api.get_session(spb.GetSessionRequest(session="valhalla.nope"), None))
        assert missing.code is ErrorCode.NOT_FOUND

    run(make_store, body, rules=rules)


def test_apply_needs_the_seats_token_and_its_turn(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api)
        request = spb.SessionApplyMoveRequest(session=session, move=CAST, etag=etag)
        none = await error_of(api.session_apply_move(request, None))
        assert none.code is ErrorCode.PERMISSION_DENIED and none.reason == "SEAT_TOKEN_REQUIRED"
        wrong = await error_of(api.session_apply_move(request, tokens[0] + "x"))
        assert wrong.code is ErrorCode.PERMISSION_DENIED
        other = await error_of(api.session_apply_move(request, tokens[1]))  # seat 0 is to act
        assert other.code is ErrorCode.NOT_YOUR_TURN and other.reason == "NOT_YOUR_TURN"
        validated = await api.session_validate_move(
            spb.SessionValidateMoveRequest(session=session, move=CAST), tokens[1]
        )
        assert not validated.valid and validated.violation.reason == "NOT_YOUR_TURN"
        theirs = await api.session_legal_moves(spb.SessionLegalMovesRequest(session=session), tokens[1])
        assert list(theirs.moves) == [] and list(theirs.to_act) == [0]
        after = await api.get_session(spb.GetSessionRequest(session=session), None)
        assert after.session.etag == etag and after.session.move_count == 0  # nothing written

    run(make_store, body)


def test_an_illegal_move_gets_the_same_violation_as_the_stateless_rpcs(make_store: StoreFactory) -> None:
    rules = RulesApi()
    ship = game_pb2.Move(valhalla={"move_ship": {"ship": 1, "to": 3}})
    state = rules.new_game(rpb.NewGameRequest(game="valhalla", players=2, seed=42)).state
    with pytest.raises(LawspeakerError) as stateless:
        rules.apply_move(rpb.ApplyMoveRequest(game="valhalla", state=state, move=ship))
    said = rules.validate_move(rpb.ValidateMoveRequest(game="valhalla", state=state, move=ship))

    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api, seed=42)
        err = await error_of(
            api.session_apply_move(
                spb.SessionApplyMoveRequest(session=session, move=ship, etag=etag), tokens[0]
            )
        )
        expected = stateless.value
        assert (err.code, err.reason, err.message, err.field_violations) == (
            expected.code,
            expected.reason,
            expected.message,
            expected.field_violations,
        )
        validated = await api.session_validate_move(
            spb.SessionValidateMoveRequest(session=session, move=ship), tokens[0]
        )
        assert validated == spb.SessionValidateMoveResponse(valid=said.valid, violation=said.violation)

    run(make_store, body)


def test_a_stale_etag_is_aborted_and_nothing_is_written(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        session, tokens, first = await create(api)
        now = await play(api, session, tokens, 3)
        seat = now.to_act[0]
        listed = await api.session_legal_moves(spb.SessionLegalMovesRequest(session=session), tokens[seat])
        err = await error_of(
            api.session_apply_move(
                spb.SessionApplyMoveRequest(session=session, move=listed.moves[0], etag=first), tokens[seat]
            )
        )
        assert err.code is ErrorCode.STALE_STATE and err.reason == "SESSION_ETAG_MISMATCH"
        assert err.metadata["etag"] == now.etag
        after = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
        now.ClearField("seat")
        for view in (after, now):  # a read shows who is connected, and when it was read
            view.ClearField("update_time")
            del view.seats[:]
        assert after == now
        log = await api.list_session_moves(spb.ListSessionMovesRequest(session=session), None)
        assert log.total_size == 3
        missing = await error_of(
            api.session_apply_move(
                spb.SessionApplyMoveRequest(session=session, move=listed.moves[0]), tokens[seat]
            )
        )
        assert missing.code is ErrorCode.MALFORMED and missing.reason == "ETAG_REQUIRED"

    run(make_store, body)


def test_of_concurrent_applies_on_one_version_exactly_one_wins(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api)
        request = spb.SessionApplyMoveRequest(session=session, move=CAST, etag=etag)
        results = await asyncio.gather(
            *(
                api.session_apply_move(
                    spb.SessionApplyMoveRequest(
                        session=request.session, move=request.move, etag=etag, request_id=f"r{i}"
                    ),
                    tokens[0],
                )
                for i in range(12)
            ),
            return_exceptions=True,
        )
        wins = [r for r in results if isinstance(r, spb.SessionApplyMoveResponse)]
        losses = [r for r in results if isinstance(r, LawspeakerError)]
        assert len(wins) == 1 and len(losses) == 11
        assert all(e.code is ErrorCode.STALE_STATE for e in losses)
        log = await api.list_session_moves(spb.ListSessionMovesRequest(session=session), None)
        assert log.total_size == 1

    run(make_store, body)


def test_a_retried_request_id_returns_the_first_result_without_moving_twice(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api)
        request = spb.SessionApplyMoveRequest(session=session, move=CAST, etag=etag, request_id="retry-1")
        first = await api.session_apply_move(request, tokens[0])
        again = await api.session_apply_move(request, tokens[0])
        assert again == first
        after = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
        assert after.move_count == 1 and after.etag == first.session.etag
        # the same id from another seat is another request (and here not that seat's turn to cast)
        other = spb.SessionApplyMoveRequest(session=session, move=CAST, etag=etag, request_id="retry-1")
        err = await error_of(api.session_apply_move(other, tokens[1]))
        assert err.code in (ErrorCode.STALE_STATE, ErrorCode.NOT_YOUR_TURN)

    run(make_store, body)


async def _moves_with_ids(
    api: SessionApi, session: str, tokens: list[str], current: spb.Session, count: int, seed: int = 1
) -> spb.Session:
    """Makes ``count`` random moves, each with a request id ``m<i>``; the session after them."""
    chooser = random.Random(seed)
    for i in range(count):
        if current.game_over:
            break
        seat = current.to_act[0] if current.to_act else 0
        listed = await api.session_legal_moves(spb.SessionLegalMovesRequest(session=session), tokens[seat])
        request = spb.SessionApplyMoveRequest(
            session=session, move=chooser.choice(list(listed.moves)), etag=current.etag, request_id=f"m{i}"
        )
        current = (await api.session_apply_move(request, tokens[seat])).session
    return current


def test_request_ids_are_remembered_long_after_the_last_64_requests(make_store: StoreFactory) -> None:
    """AIP-155: a request id is remembered for the stated time (default: the session's TTL) within
    the per-session budget, not only for the latest 64 requests: a retry of the first move after 150
    more gets the first answer."""

    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api)
        first = spb.SessionApplyMoveRequest(session=session, move=CAST, etag=etag, request_id="first")
        answer = await api.session_apply_move(first, tokens[0])
        await _moves_with_ids(api, session, tokens, answer.session, 150)
        again = await api.session_apply_move(first, tokens[0])
        assert again == answer

    run(make_store, body)


BUDGET = 10 * IDEM_RECORD_BYTES + IDEM_RECORD_BYTES // 2  # room for ten request ids, not eleven


def test_request_ids_are_forgotten_oldest_first_past_the_byte_budget(make_store: StoreFactory) -> None:
    """The stated memory bound: at most ``request_id_bytes`` of remembered request ids per session
    (fixed-width records); the oldest go first, the newest is always kept."""

    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api)
        first = spb.SessionApplyMoveRequest(session=session, move=CAST, etag=etag, request_id="first")
        answer = await api.session_apply_move(first, tokens[0])
        current = await _moves_with_ids(api, session, tokens, answer.session, 40)
        forgotten = await error_of(api.session_apply_move(first, tokens[0]))
        assert forgotten.code in (ErrorCode.STALE_STATE, ErrorCode.NOT_YOUR_TURN)
        key = SessionKey(session, api.rules.registry["valhalla"].game.rules_version)
        if isinstance(api.store, RedisStore):
            remembered = int(await api.store.client.strlen(api.store.keys(key)[2]))
        else:
            remembered = api.store._sessions[key].idem_bytes  # type: ignore[attr-defined]
        assert remembered == 10 * IDEM_RECORD_BYTES  # the budget is full, and never passed
        listed = await api.list_session_moves(spb.ListSessionMovesRequest(session=session), None)
        assert listed.total_size == current.move_count

    run(make_store, body, request_id_bytes=BUDGET)


@pytest.mark.parametrize("game", ["pax_penning", "valhalla"])
def test_a_replayed_request_id_answers_the_same_bytes_long_after(game: str, make_store: StoreFactory) -> None:
    """AIP-155: a retry gets the first answer, byte for byte. The store keeps no answer, only the
    revision and log length a request id's write made: the answer is rebuilt by replaying the log,
    so this checks, for every move of a game with hidden information (Pax Penning's per-seat events)
    and one with server draws (Valhalla), that the rebuilt answer is the same bytes, later in the
    game, after other seats moved."""

    async def body(api: SessionApi) -> None:
        players = REGISTRY[game].game.min_players
        made = await api.create_session(spb.CreateSessionRequest(game=game, players=players, seed=5), None)
        session, tokens, current = made.session.session, [t.token for t in made.seat_tokens], made.session
        chooser = random.Random(3)
        sent: list[tuple[spb.SessionApplyMoveRequest, str, bytes]] = []
        for i in range(60):
            if current.game_over:
                break
            seat = current.to_act[0] if current.to_act else 0
            listed = await api.session_legal_moves(
                spb.SessionLegalMovesRequest(session=session), tokens[seat]
            )
            request = spb.SessionApplyMoveRequest(
                session=session,
                move=chooser.choice(list(listed.moves)),
                etag=current.etag,
                request_id=f"r{i}",
            )
            answer = await api.session_apply_move(request, tokens[seat])
            sent.append((request, tokens[seat], answer.SerializeToString()))
            current = answer.session
        assert len(sent) > 20
        for request, token, first in sent:
            again = await api.session_apply_move(request, token)
            assert again.SerializeToString() == first, request.request_id
        after = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
        assert after.move_count == len(sent) and after.etag == current.etag

    run(make_store, body)


def test_an_undone_move_takes_its_request_id_with_it(make_store: StoreFactory) -> None:
    """The log no longer holds an undone move, so its request id cannot be answered from it: the id
    is forgotten with the move, and its retry is refused as stale (its etag is long gone), while the
    ids of the moves before it still replay."""

    async def body(api: SessionApi) -> None:
        session, tokens, _ = await create(api, seed=5)
        current = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
        earlier: list[tuple[spb.SessionApplyMoveRequest, str, bytes]] = []
        while True:  # casts (with their request ids) until a seat makes a ship move, which it may undo
            seat = current.to_act[0]
            listed = await api.session_legal_moves(
                spb.SessionLegalMovesRequest(session=session), tokens[seat]
            )
            request = spb.SessionApplyMoveRequest(
                session=session, move=listed.moves[0], etag=current.etag, request_id=f"r{len(earlier)}"
            )
            answer = await api.session_apply_move(request, tokens[seat])
            if not listed.HasField("chance"):
                break
            earlier.append((request, tokens[seat], answer.SerializeToString()))
            current = answer.session
        assert earlier and await api.session_apply_move(request, tokens[seat]) == answer
        await api.undo_move(spb.UndoMoveRequest(session=session, etag=answer.session.etag), tokens[seat])
        err = await error_of(api.session_apply_move(request, tokens[seat]))
        assert err.code is ErrorCode.STALE_STATE
        for before, token, first in earlier:
            assert (await api.session_apply_move(before, token)).SerializeToString() == first

    run(make_store, body)


def test_request_ids_are_forgotten_after_their_time(make_store: StoreFactory) -> None:
    """Past ``request_id_ttl`` a request id is forgotten (at the session's next write)."""

    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api)
        first = spb.SessionApplyMoveRequest(session=session, move=CAST, etag=etag, request_id="first")
        answer = await api.session_apply_move(first, tokens[0])
        kept = await api.session_apply_move(first, tokens[0])
        assert kept == answer
        await asyncio.sleep(1.2)
        await _moves_with_ids(api, session, tokens, answer.session, 1)
        forgotten = await error_of(api.session_apply_move(first, tokens[0]))
        assert forgotten.code in (ErrorCode.STALE_STATE, ErrorCode.NOT_YOUR_TURN)

    run(make_store, body, request_id_ttl=1)


def test_the_rng_is_in_no_response(make_store: StoreFactory) -> None:
    """The seed and counter stay on the server: every state in every response is without them."""

    async def body(api: SessionApi) -> None:
        session, tokens, _ = await create(api)
        await play(api, session, tokens, 30)  # play() checks every apply response
        for token in (None, *tokens):
            assert_no_rng(await api.get_session(spb.GetSessionRequest(session=session), token))
            assert_no_rng(await api.list_session_moves(spb.ListSessionMovesRequest(session=session), token))
            assert_no_rng(await api.session_legal_moves(spb.SessionLegalMovesRequest(session=session), token))

    run(make_store, body)


def test_physical_dice_take_explicit_outcomes_only(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api, physical_dice=True)
        listed = await api.session_legal_moves(spb.SessionLegalMovesRequest(session=session), tokens[0])
        assert len(listed.moves) == 16 and CAST not in listed.moves
        drawn = await error_of(
            api.session_apply_move(
                spb.SessionApplyMoveRequest(session=session, move=CAST, etag=etag), tokens[0]
            )
        )
        assert drawn.reason == "PHYSICAL_DICE_OUTCOME_REQUIRED" and drawn.code is ErrorCode.ILLEGAL_MOVE
        applied = await api.session_apply_move(
            spb.SessionApplyMoveRequest(session=session, move=explicit_cast(), etag=etag), tokens[0]
        )
        assert applied.events[0].valhalla.sticks.sowulo
        assert applied.session.physical_dice

        normal, normal_tokens, normal_etag = await create(api)
        refused = await error_of(
            api.session_apply_move(
                spb.SessionApplyMoveRequest(session=normal, move=explicit_cast(), etag=normal_etag),
                normal_tokens[0],
            )
        )
        assert refused.reason == "EXPLICIT_OUTCOME_NOT_ALLOWED"

    run(make_store, body)


def test_the_move_log_pages_and_replays_to_the_same_state(make_store: StoreFactory) -> None:
    """Replaying the log with the stateless RPCs from the creation parameters gives the same state."""

    async def body(api: SessionApi) -> None:
        session, tokens, _ = await create(api, seed=99)
        final = await play(api, session, tokens, 41, random.Random(3))
        moves: list[spb.SessionMove] = []
        token = ""
        pages = 0
        while True:
            page = await api.list_session_moves(
                spb.ListSessionMovesRequest(session=session, page_size=7, page_token=token), tokens[0]
            )
            moves.extend(page.moves)
            pages += 1
            token = page.next_page_token
            if not token:
                break
        assert pages == 6 and [m.number for m in moves] == list(range(1, 42))
        bad = await error_of(
            api.list_session_moves(spb.ListSessionMovesRequest(session=session, page_token="xyz"), None)
        )
        assert bad.code is ErrorCode.MALFORMED and bad.reason == "INVALID_PAGE_TOKEN"

        rules = RulesApi()
        state = rules.new_game(rpb.NewGameRequest(game="valhalla", players=2, seed=99)).state
        for m in moves:
            applied = rules.apply_move(rpb.ApplyMoveRequest(game="valhalla", state=state, move=m.move))
            assert list(applied.events) == list(m.events)
            state = applied.state
        state.ClearField("rng")
        assert state == final.state

    run(make_store, body)


def test_undo_takes_back_your_own_last_move_until_chance_or_another_player_acts(
    make_store: StoreFactory,
) -> None:
    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api, seed=5)
        nothing = await error_of(api.undo_move(spb.UndoMoveRequest(session=session, etag=etag), tokens[0]))
        assert nothing.reason == "NOTHING_TO_UNDO"
        chooser = random.Random(11)
        current = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
        # play until a seat is to make a ship move (not a chance step)
        while True:
            seat = current.to_act[0]
            listed = await api.session_legal_moves(
                spb.SessionLegalMovesRequest(session=session), tokens[seat]
            )
            if not listed.HasField("chance"):
                break
            current = (
                await api.session_apply_move(
                    spb.SessionApplyMoveRequest(session=session, move=listed.moves[0], etag=current.etag),
                    tokens[seat],
                )
            ).session
        # right after a cast: the cast cannot be undone
        after_cast = await error_of(
            api.undo_move(spb.UndoMoveRequest(session=session, etag=current.etag), tokens[seat])
        )
        assert after_cast.reason == "UNDO_AFTER_CHANCE" and after_cast.code is ErrorCode.ILLEGAL_MOVE
        before = current
        moved = await api.session_apply_move(
            spb.SessionApplyMoveRequest(
                session=session, move=chooser.choice(list(listed.moves)), etag=before.etag
            ),
            tokens[seat],
        )
        not_yours = await error_of(
            api.undo_move(spb.UndoMoveRequest(session=session, etag=moved.session.etag), tokens[1 - seat])
        )
        assert not_yours.reason == "UNDO_NOT_YOURS"
        stale = await error_of(
            api.undo_move(spb.UndoMoveRequest(session=session, etag=before.etag), tokens[seat])
        )
        assert stale.code is ErrorCode.STALE_STATE
        undone = await api.undo_move(
            spb.UndoMoveRequest(session=session, etag=moved.session.etag), tokens[seat]
        )
        assert undone.session.state == before.state and undone.session.move_count == before.move_count
        assert undone.session.etag not in (before.etag, moved.session.etag)  # etags are never reused
        assert undone.undone.move == listed.moves[0] or undone.undone.seat == seat
        assert_no_rng(undone)

    run(make_store, body)


def test_watch_delivers_each_new_version_and_the_deletion(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api)
        stream = api.watch_session(spb.WatchSessionRequest(session=session), tokens[1])
        first = await anext(stream)
        assert first.session.etag == etag and first.session.seat == 1
        await api.session_apply_move(
            spb.SessionApplyMoveRequest(session=session, move=CAST, etag=etag), tokens[0]
        )
        second = await asyncio.wait_for(anext(stream), 5)
        assert second.session.move_count == 1 and second.session.seat == 1
        assert_no_rng(second)
        await api.delete_session(spb.DeleteSessionRequest(session=session), tokens[0])
        last = await asyncio.wait_for(anext(stream), 5)
        assert last.deleted
        await stream.aclose()

    run(make_store, body)


def test_sessions_expire_after_the_idle_time_and_access_slides_it(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        kept, _, _ = await create(api)
        dropped, _, _ = await create(api)
        for _ in range(3):
            await asyncio.sleep(0.6)
            await api.get_session(spb.GetSessionRequest(session=kept), None)  # slides the TTL
        err = await error_of(api.get_session(spb.GetSessionRequest(session=dropped), None))
        assert err.code is ErrorCode.NOT_FOUND and err.reason == "SESSION_NOT_FOUND"
        await api.get_session(spb.GetSessionRequest(session=kept), None)

    run(make_store, body, ttl=1)


def test_delete_needs_a_seat_token_and_removes_the_session(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        session, tokens, _ = await create(api)
        await play(api, session, tokens, 2)
        denied = await error_of(api.delete_session(spb.DeleteSessionRequest(session=session), None))
        assert denied.code is ErrorCode.PERMISSION_DENIED
        await api.delete_session(spb.DeleteSessionRequest(session=session), tokens[1])
        gone = await error_of(api.get_session(spb.GetSessionRequest(session=session), None))
        assert gone.code is ErrorCode.NOT_FOUND
        if isinstance(api.store, RedisStore):
            left = await api.store.client.keys(f"{api.store.prefix}:{{{session}}}*")
            assert left == []

    run(make_store, body)


@pytest.mark.skipif(not REDIS_UP, reason=f"no Redis at {REDIS_URL}")
def test_redis_keys_are_hash_tagged_and_carry_the_rules_version(redis_prefix: str) -> None:
    def make_store(**kw: Any) -> RedisStore:
        return RedisStore(REDIS_URL, prefix=redis_prefix, **kw)

    async def body(api: SessionApi) -> None:
        session, tokens, _ = await create(api)
        await play(api, session, tokens, 2)
        assert isinstance(api.store, RedisStore)
        names = sorted(k.decode() for k in await api.store.client.keys(f"{api.store.prefix}:*"))
        names.remove(api.store.live_key)  # the one count of live sessions, shared by all of them
        version = api.rules.registry["valhalla"].game.rules_version
        expected = api.store.keys(SessionKey(session, version))
        assert expected[0] in names and expected[1] in names and set(names) <= set(expected)
        assert all(f":{{{session}}}:{version}:" in n for n in names)
        slots = {key_slot(n.encode()) for n in [*names, api.store.channel(SessionKey(session, version))]}
        assert len(slots) == 1

    run(make_store, body)


def test_redis_down_is_unavailable_and_the_stateless_rpcs_still_work() -> None:
    async def body() -> None:
        api = SessionApi(RedisStore("redis://127.0.0.1:1/0", timeout=0.3))
        err = await error_of(api.create_session(spb.CreateSessionRequest(game="valhalla", players=2), None))
        assert err.code is ErrorCode.UNAVAILABLE and err.reason == "SESSION_STORE_UNAVAILABLE"
        assert "all or nothing" in err.message and "request_id" in err.message
        assert "127.0.0.1" not in err.message  # no internal addresses in client errors
        err = await error_of(api.get_session(spb.GetSessionRequest(session="valhalla.abc"), None))
        assert err.code is ErrorCode.UNAVAILABLE
        stateless = api.rules.new_game(rpb.NewGameRequest(game="valhalla", players=2, seed=1))
        assert stateless.state.HasField("valhalla")
        await api.close()

    asyncio.run(body())


def test_two_replicas_on_one_store_never_act_on_an_outdated_version(make_store: StoreFactory) -> None:
    """A replica remembers the version it wrote last; a write elsewhere makes that version stale."""

    async def body(a: SessionApi) -> None:
        b = SessionApi(a.store)  # a second replica on the same store
        session, tokens, etag = await create(a)
        first = await a.session_apply_move(
            spb.SessionApplyMoveRequest(session=session, move=CAST, etag=etag), tokens[0]
        )
        current = first.session
        seat = current.to_act[0]
        listed = await b.session_legal_moves(spb.SessionLegalMovesRequest(session=session), tokens[seat])
        on_b = await b.session_apply_move(
            spb.SessionApplyMoveRequest(session=session, move=listed.moves[0], etag=current.etag),
            tokens[seat],
        )
        # A still remembers the version it wrote; a client sending that etag to A is refused
        stale = await error_of(
            a.session_apply_move(
                spb.SessionApplyMoveRequest(session=session, move=listed.moves[0], etag=current.etag),
                tokens[seat],
            )
        )
        assert stale.code is ErrorCode.STALE_STATE
        # and the current version plays on A
        now = on_b.session
        listed = await a.session_legal_moves(
            spb.SessionLegalMovesRequest(session=session), tokens[now.to_act[0]]
        )
        moved = await a.session_apply_move(
            spb.SessionApplyMoveRequest(session=session, move=listed.moves[0], etag=now.etag),
            tokens[now.to_act[0]],
        )
        assert moved.session.move_count == 3

    run(make_store, body)


class SecretCasts(ViewSpy):
    """Valhalla where only the caster may read a cast's text: exercises the view_event hook."""

    def view_event(self, event: Any, seat: int | None) -> Any:
        if event.kind == "STICKS_CAST" and seat != event.player:
            return type(event)(event.kind, "Someone cast the sticks.", event.player, None)
        return event


def test_events_in_responses_and_the_log_are_as_the_callers_seat_may_see_them(
    make_store: StoreFactory,
) -> None:
    game = SecretCasts(REGISTRY["valhalla"].game)
    rules = RulesApi({"valhalla": Entry(game, REGISTRY["valhalla"].codec)})

    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api)
        applied = await api.session_apply_move(
            spb.SessionApplyMoveRequest(session=session, move=CAST, etag=etag), tokens[0]
        )
        assert applied.events[0].text.startswith("Player 1 cast")
        texts = {}
        for who, token in (("caster", tokens[0]), ("other", tokens[1]), ("public", None)):
            log = await api.list_session_moves(spb.ListSessionMovesRequest(session=session), token)
            texts[who] = log.moves[0].events[0]
        assert texts["caster"].text.startswith("Player 1 cast") and texts["caster"].HasField("valhalla")
        for who in ("other", "public"):
            assert texts[who].text == "Someone cast the sticks." and not texts[who].HasField("valhalla")

    run(make_store, body, rules=rules)


def test_physical_dice_never_let_the_server_draw(make_store: StoreFactory) -> None:
    """A step with no outcome a player can enter (Penki's random deal) is refused with physical
    dice: at creation when it is the first step, at validate and apply otherwise; nothing is written."""
    penki_random = game_pb2.GameOptions(penki={"setup": "PENKI_SETUP_RANDOM_PAIRS"})

    async def body(api: SessionApi) -> None:
        refused = await error_of(
            api.create_session(
                spb.CreateSessionRequest(game="penki", players=2, options=penki_random, physical_dice=True),
                None,
            )
        )
        assert refused.code is ErrorCode.MALFORMED and refused.reason == "PHYSICAL_DICE_UNSUPPORTED"
        # a physical-dice session that reaches such a step anyway (its record says physical dice)
        made = await api.create_session(
            spb.CreateSessionRequest(game="penki", players=2, options=penki_random), None
        )
        session, token = made.session.session, made.seat_tokens[0].token
        opened = await api._open(session, None)
        record = msgspec.structs.replace(opened.record, physical_dice=True)
        await api.store.write(opened.key, Write(expected_rev=opened.loaded.rev, data=_ENCODE.encode(record)))
        etag = str(opened.loaded.rev + 1)
        listed = await api.session_legal_moves(spb.SessionLegalMovesRequest(session=session), token)
        validated = await api.session_validate_move(
            spb.SessionValidateMoveRequest(session=session, move=listed.moves[0]), token
        )
        assert not validated.valid and validated.violation.reason == "PHYSICAL_DICE_NO_OUTCOME"
        err = await error_of(
            api.session_apply_move(
                spb.SessionApplyMoveRequest(session=session, move=listed.moves[0], etag=etag), token
            )
        )
        assert err.reason == "PHYSICAL_DICE_NO_OUTCOME"
        after = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
        assert after.etag == etag and after.move_count == 0

    run(make_store, body)


def test_redis_refusing_to_serve_is_unavailable_too() -> None:
    """Full (OOM), read-only after a failover, busy with a script, an aborted MULTI: UNAVAILABLE;
    any other Redis error is a bug (or a misconfiguration), logged, and UNAVAILABLE too."""
    from redis import exceptions

    async def body() -> None:
        store = RedisStore(REDIS_URL)
        for err in (
            exceptions.OutOfMemoryError("command not allowed when used memory > 'maxmemory'"),
            exceptions.ReadOnlyError("You can't write against a read only replica."),
            exceptions.ResponseError("BUSY Redis is busy running a script."),
            exceptions.ExecAbortError("Transaction discarded because of previous errors."),
            exceptions.ClusterDownError("The cluster is down"),
        ):

            async def fail(err: Exception = err) -> None:
                raise err

            caught = await error_of(store._guard("test", fail))
            assert caught.code is ErrorCode.UNAVAILABLE and caught.reason == "SESSION_STORE_UNAVAILABLE"

        async def bug() -> None:
            raise exceptions.ResponseError("WRONGTYPE Operation against a key holding the wrong kind")

        # Any other Redis error is a bug or a misconfiguration (issue 36): UNAVAILABLE too, logged,
        # and not claiming that nothing was written (tests/sessions/test_store_failures.py).
        caught = await error_of(store._guard("test", bug))
        assert caught.code is ErrorCode.UNAVAILABLE and "is not known" in caught.message
        await store.close()

    asyncio.run(body())


@pytest.mark.skipif(not REDIS_UP, reason=f"no Redis at {REDIS_URL}")
def test_watch_streams_cannot_take_the_connections_of_the_other_rpcs(redis_prefix: str) -> None:
    """Watchers need no token; they share one pub/sub connection, from a client of their own."""

    def make_store(**kw: Any) -> RedisStore:
        store = RedisStore(REDIS_URL, prefix=redis_prefix, **kw)
        store.client.connection_pool.max_connections = 4
        return store

    async def body(api: SessionApi) -> None:
        session, _, _ = await create(api)
        streams = [api.watch_session(spb.WatchSessionRequest(session=session), None) for _ in range(8)]
        for stream in streams:
            assert (await anext(stream)).session.session == session
        got = await asyncio.gather(
            *(api.get_session(spb.GetSessionRequest(session=session), None) for _ in range(4))
        )
        assert all(g.session.session == session for g in got)
        for stream in streams:
            await stream.aclose()

    run(make_store, body)


def test_a_request_id_reused_for_another_request_is_refused_not_replayed(make_store: StoreFactory) -> None:
    """A retry repeats its request exactly; the same id with another move or etag is a client bug
    (answered INVALID_ARGUMENT), never silently given the first request's result."""

    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api, physical_dice=True)
        first = spb.SessionApplyMoveRequest(session=session, move=explicit_cast(), etag=etag, request_id="r")
        answer = await api.session_apply_move(first, tokens[0])
        assert await api.session_apply_move(first, tokens[0]) == answer
        other_move = spb.SessionApplyMoveRequest(session=session, move=CAST, etag=etag, request_id="r")
        other_etag = spb.SessionApplyMoveRequest(
            session=session, move=explicit_cast(), etag=answer.session.etag, request_id="r"
        )
        for request in (other_move, other_etag):
            err = await error_of(api.session_apply_move(request, tokens[0]))
            assert err.code is ErrorCode.MALFORMED and err.reason == "REQUEST_ID_REUSED"
        after = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
        assert after.move_count == 1 and after.etag == answer.session.etag

    run(make_store, body)


def test_watch_delivers_every_version_of_a_burst_none_skipped(make_store: StoreFactory) -> None:
    async def body(api: SessionApi) -> None:
        session, tokens, etag = await create(api, physical_dice=True)
        stream = api.watch_session(spb.WatchSessionRequest(session=session), tokens[1])
        assert (await anext(stream)).session.etag == etag
        written = [(await play(api, session, tokens, 1)).etag for _ in range(4)]  # before any read
        seen = [(await asyncio.wait_for(anext(stream), 5)).session for _ in written]
        assert [s.etag for s in seen] == written and all(s.seat == 1 for s in seen)
        for s in seen:
            assert_no_rng(s)
        await stream.aclose()

    run(make_store, body)


def test_the_log_read_after_an_undo_and_another_move_is_the_log_replayed_afresh(
    make_store: StoreFactory,
) -> None:
    """The log keeps moves, and a replica keeps its last replay of a session's log to answer the next
    read from the moves made since: after a move is undone and another made in its place, every page
    it answers (as every seat sees it) is the one a replica that never read the log answers."""

    async def body(api: SessionApi) -> None:
        session, tokens, _ = await create(api, seed=5)
        chooser = random.Random(11)
        current = await play(api, session, tokens, 12, chooser)
        while True:  # up to a ship move, which its seat may undo
            seat = current.to_act[0]
            listed = await api.session_legal_moves(
                spb.SessionLegalMovesRequest(session=session), tokens[seat]
            )
            if not listed.HasField("chance") and len(listed.moves) > 1:
                break
            current = await play(api, session, tokens, 1, chooser)

        async def pages(reader: SessionApi) -> list[bytes]:
            out = []
            for token in (None, *tokens):
                for size in (1000, 5):  # the whole log, then a first page shorter than it
                    request = spb.ListSessionMovesRequest(session=session, page_size=size)
                    out.append((await reader.list_session_moves(request, token)).SerializeToString())
            return out

        first = spb.SessionApplyMoveRequest(session=session, move=listed.moves[0], etag=current.etag)
        moved = await api.session_apply_move(first, tokens[seat])
        before = await pages(api)
        await api.undo_move(spb.UndoMoveRequest(session=session, etag=moved.session.etag), tokens[seat])
        undone = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
        other = spb.SessionApplyMoveRequest(session=session, move=listed.moves[1], etag=undone.etag)
        await api.session_apply_move(other, tokens[seat])
        after = await pages(api)
        assert after != before
        assert after == await pages(SessionApi(api.store, RulesApi()))

    run(make_store, body)
