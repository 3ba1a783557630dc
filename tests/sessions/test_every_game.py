"""Every registered game plays as a session: each seat sees its own view, nobody sees the RNG, and
the move log replayed with the stateless RPCs gives the session's state."""

from __future__ import annotations

import asyncio
import random

import msgspec
import pytest
from google.protobuf import json_format

from lawspeaker.api.rules import RulesApi
from lawspeaker.sessions.service import LogEntry, Record, SessionApi
from lawspeaker.sessions.store import SessionKey, Write, WriteStatus
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import rules_service_pb2 as rpb
from lawspeaker.v1 import session_service_pb2 as spb
from lawspeaker.wire import structs
from lawspeaker.wire.registry import REGISTRY

from .conftest import StoreFactory
from .helpers import assert_no_rng, play, run, without_presence

pytestmark = pytest.mark.sessions
LOG_ENTRY = msgspec.msgpack.Decoder(LogEntry)
RECORD = msgspec.msgpack.Decoder(Record)
PLIES = 40


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_a_session_of_every_game_matches_the_stateless_replay_in_every_view(
    game: str, make_store: StoreFactory
) -> None:
    entry = REGISTRY[game]
    players = entry.game.min_players

    async def body(api: SessionApi) -> None:
        made = await api.create_session(spb.CreateSessionRequest(game=game, players=players, seed=8), None)
        assert_no_rng(made)
        session, tokens = made.session.session, [t.token for t in made.seat_tokens]
        current = made.session
        chooser = random.Random(8)
        for _ in range(PLIES):
            if current.game_over:
                break
            seat = current.to_act[0] if current.to_act else 0
            listed = await api.session_legal_moves(
                spb.SessionLegalMovesRequest(session=session), tokens[seat]
            )
            assert listed.moves, f"seat {seat} may act but has no moves"
            applied = await api.session_apply_move(
                spb.SessionApplyMoveRequest(
                    session=session, move=chooser.choice(list(listed.moves)), etag=current.etag
                ),
                tokens[seat],
            )
            assert_no_rng(applied)
            current = applied.session
        # The log as the server keeps it replays to the session's state; each seat's (and the
        # public) log shows every move as the game's view_move lets that seat see it.
        key = SessionKey(session, entry.game.rules_version)
        kept = [LOG_ENTRY.decode(b) for b in await api.store.read_log(key, 0, 10_000)]
        rules = RulesApi()
        view_move = getattr(entry.game, "view_move", None)
        for seat in (None, *range(players)):
            log = await api.list_session_moves(
                spb.ListSessionMovesRequest(session=session, page_size=1000),
                None if seat is None else tokens[seat],
            )
            assert_no_rng(log)
            assert len(log.moves) == len(kept)
            for shown, full in zip(log.moves, kept, strict=True):
                move = game_pb2.Move.FromString(full.resolved if full.resolved is not None else full.move)
                if view_move is not None and full.seat != seat:
                    engine_move = rules.decode_move(entry, move, True)
                    move = rules.encode_move(entry, view_move(engine_move, full.seat, seat))
                assert shown.move == move

        state = rules.new_game(rpb.NewGameRequest(game=game, players=players, seed=8)).state
        for full in kept:
            move = game_pb2.Move.FromString(full.move)
            state = rules.apply_move(rpb.ApplyMoveRequest(game=game, state=state, move=move)).state
        full = rules.decode_state(entry, state)
        for seat in (None, *range(players)):
            got = await api.get_session(
                spb.GetSessionRequest(session=session), None if seat is None else tokens[seat]
            )
            assert_no_rng(got)
            expected = rules.encode_state(entry, entry.game.view(full, seat))
            expected.ClearField("rng")
            assert got.session.state == expected, f"the view of seat {seat}"

    run(make_store, body)


@pytest.mark.parametrize("game", [g for g, e in sorted(REGISTRY.items()) if not hasattr(e.game, "view_move")])
def test_a_client_replays_the_public_log_of_an_unseeded_session(game: str, make_store: StoreFactory) -> None:
    """Server draws are logged as the explicit outcome they came to, so anyone holding the public
    log of a game without hidden moves can replay it, without the secret seed."""
    entry = REGISTRY[game]
    players = entry.game.min_players

    async def body(api: SessionApi) -> None:
        made = await api.create_session(spb.CreateSessionRequest(game=game, players=players), None)
        session, tokens = made.session.session, [t.token for t in made.seat_tokens]
        current = made.session
        chooser = random.Random(3)
        for _ in range(PLIES):
            if current.game_over:
                break
            seat = current.to_act[0] if current.to_act else 0
            listed = await api.session_legal_moves(
                spb.SessionLegalMovesRequest(session=session), tokens[seat]
            )
            applied = await api.session_apply_move(
                spb.SessionApplyMoveRequest(
                    session=session, move=chooser.choice(list(listed.moves)), etag=current.etag
                ),
                tokens[seat],
            )
            current = applied.session
        log = await api.list_session_moves(spb.ListSessionMovesRequest(session=session, page_size=1000), None)
        assert any(m.chance for m in log.moves)
        rules = RulesApi()
        state = rules.new_game(rpb.NewGameRequest(game=game, players=players, seed=12345)).state
        for m in log.moves:
            state = rules.apply_move(rpb.ApplyMoveRequest(game=game, state=state, move=m.move)).state
        state.ClearField("rng")
        public = await api.get_session(spb.GetSessionRequest(session=session), None)
        assert public.session.state == state

    run(make_store, body)


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_session_apply_move_answers_the_same_over_wire_and_protobuf(
    game: str, make_store: StoreFactory
) -> None:
    """JSON callers get SessionApplyMove built over ``lawspeaker.wire.structs`` messages: two sessions of
    one seed, one answered each way, give the same JSON at every move (each seat's own view, events
    and outcome), at the fewest and the most players, and with a request id (whose stored answer is
    protobuf either way)."""
    entry = REGISTRY[game]

    async def body(api: SessionApi) -> None:
        for players in sorted({entry.game.min_players, entry.game.max_players}):
            made = [
                await api.create_session(spb.CreateSessionRequest(game=game, players=players, seed=3), None)
                for _ in range(2)
            ]
            sessions = [m.session.session for m in made]
            tokens = [[t.token for t in m.seat_tokens] for m in made]
            etags = [m.session.etag for m in made]
            current = made[0].session
            chooser = random.Random(3)
            for ply in range(PLIES * 3):
                if current.game_over:
                    break
                seat = current.to_act[0] if current.to_act else 0
                listed = await api.session_legal_moves(
                    spb.SessionLegalMovesRequest(session=sessions[0]), tokens[0][seat]
                )
                move = chooser.choice(list(listed.moves))
                request_id = f"r{ply}" if ply % 3 == 0 else ""
                requests = [
                    spb.SessionApplyMoveRequest(session=s, move=move, etag=e, request_id=request_id)
                    for s, e in zip(sessions, etags, strict=True)
                ]
                by_protobuf = await api.session_apply_move(requests[0], tokens[0][seat])
                by_wire = await api.session_apply_move_wire(requests[1], tokens[1][seat])
                assert isinstance(by_wire, structs.Message)
                expected = json_format.MessageToDict(by_protobuf)
                got = msgspec.json.decode(structs.encode(by_wire))
                got["session"]["session"] = expected["session"]["session"]
                assert got == expected, f"ply {ply}"
                if request_id:  # a retry gets the first answer, the same on either path
                    again = await api.session_apply_move_wire(requests[1], tokens[1][seat])
                    assert json_format.MessageToDict(again) == msgspec.json.decode(structs.encode(by_wire))
                current = by_protobuf.session
                etags = [by_protobuf.session.etag, by_wire.session.etag]

    run(make_store, body)


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_every_watcher_gets_each_version_as_its_own_seat_sees_it(game: str, make_store: StoreFactory) -> None:
    """Watch updates are built once per version and seat and shared by the watchers of that seat:
    two watchers of every seat and of the public view each get, at every move, exactly what
    GetSession shows that seat."""
    entry = REGISTRY[game]
    players = entry.game.max_players

    async def body(api: SessionApi) -> None:
        made = await api.create_session(spb.CreateSessionRequest(game=game, players=players, seed=5), None)
        session, tokens = made.session.session, [t.token for t in made.seat_tokens]
        seats: list[int | None] = [None, *range(players)] * 2
        streams = [
            api.watch_session(
                spb.WatchSessionRequest(session=session), None if seat is None else tokens[seat]
            )
            for seat in seats
        ]
        for stream in streams:
            await anext(stream)
        chooser = random.Random(5)
        for _ in range(12):
            after = await play(api, session, tokens, 1, chooser)
            for watcher, stream in zip(seats, streams, strict=True):
                update = await asyncio.wait_for(anext(stream), 5)
                shown = await api.get_session(
                    spb.GetSessionRequest(session=session), None if watcher is None else tokens[watcher]
                )
                seen = without_presence(update.session)
                assert seen == without_presence(shown.session), f"the view of seat {watcher}"
                assert_no_rng(update)
            if after.game_over:
                break
        for stream in streams:
            await stream.aclose()

    run(make_store, body)


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_a_session_views_do_not_change_with_hidden_data(game: str, make_store: StoreFactory) -> None:
    """Changing only what no seat may see — the RNG of the stored state, which holds the order of every
    deck, bag and box lid still to be drawn from — changes no seat's view of the session, its legal
    moves, its chance step or its move log, at any point of a game."""
    entry = REGISTRY[game]
    players = entry.game.min_players

    async def body(api: SessionApi) -> None:
        made = await api.create_session(spb.CreateSessionRequest(game=game, players=players, seed=8), None)
        session, tokens = made.session.session, [t.token for t in made.seat_tokens]
        key = SessionKey(session, entry.game.rules_version)
        chooser = random.Random(8)

        async def views(reader: SessionApi) -> list[bytes]:
            seen = []
            for seat in (None, *range(players)):
                token = None if seat is None else tokens[seat]
                got = await reader.get_session(spb.GetSessionRequest(session=session), token)
                got.session.CopyFrom(without_presence(got.session))
                got.session.ClearField("etag")
                listed = await reader.session_legal_moves(
                    spb.SessionLegalMovesRequest(session=session), token
                )
                listed.ClearField("etag")
                log = await reader.list_session_moves(
                    spb.ListSessionMovesRequest(session=session, page_size=1000), token
                )
                log.ClearField("etag")
                seen += [m.SerializeToString(deterministic=True) for m in (got, listed, log)]
            return seen

        for ply in range(PLIES):
            before = await views(SessionApi(api.store, RulesApi()))
            loaded = await api.store.load(key)
            assert loaded is not None
            record = RECORD.decode(loaded.data)
            state = game_pb2.GameState.FromString(record.state)
            state.rng.seed = bytes(reversed(state.rng.seed))
            state.rng.counter += 1000
            changed = msgspec.structs.replace(record, state=state.SerializeToString())
            written = await api.store.write(
                key, Write(expected_rev=loaded.rev, data=msgspec.msgpack.encode(changed))
            )
            assert written.status is WriteStatus.WRITTEN
            fresh = SessionApi(api.store, RulesApi())  # nothing cached from before the change
            assert await views(fresh) == before, f"a view changed with the hidden data at ply {ply}"
            if (await play(fresh, session, tokens, 1, chooser)).game_over:
                break

    run(make_store, body)
