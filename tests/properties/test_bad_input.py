"""Bad input never breaks the service: any mutation of a valid state or move is either a valid
request or a clear client error (LawspeakerError naming a field), for every registered game."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lawspeaker.api.rules import RulesApi
from lawspeaker.games import core
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire.registry import REGISTRY

API = RulesApi()
FD = FieldDescriptor


def samples(game_id: str) -> list[tuple[game_pb2.GameState, list[game_pb2.Move]]]:
    """States along a seeded playout, each with its legal moves, as protobuf."""
    entry = REGISTRY[game_id]
    game = entry.game
    rng = random.Random(5)
    state = game.new_game(game.min_players, game.default_options(), core.Rng.from_seed(5))
    out = []
    for ply in range(4000):
        moves = list(game.legal_moves(state))
        if ply % 37 == 0 or not moves:
            out.append((API.encode_state(entry, state), [API.encode_move(entry, m) for m in moves]))
        if not moves:
            break
        state, _ = game.apply(state, rng.choice(moves))
    return out


def setters(msg: Message) -> list[Callable[[Any], None]]:
    """One setter per scalar field (and repeated element) anywhere inside ``msg``."""
    out: list[Callable[[Any], None]] = []
    for f in msg.DESCRIPTOR.fields:
        if f.type == FD.TYPE_MESSAGE:
            if f.is_repeated:
                for item in getattr(msg, f.name):
                    out += setters(item)
            elif msg.HasField(f.name):
                out += setters(getattr(msg, f.name))
            continue
        if f.is_repeated:
            continue

        def put(value: Any, msg: Message = msg, f: Any = f) -> None:
            if f.type == FD.TYPE_BOOL:
                setattr(msg, f.name, bool(value % 2))
            elif f.type == FD.TYPE_BYTES:
                setattr(msg, f.name, value.to_bytes(8, "big", signed=True)[: value % 40])
            elif f.type == FD.TYPE_STRING:
                setattr(msg, f.name, str(value))
            elif f.type in (FD.TYPE_UINT32, FD.TYPE_UINT64, FD.TYPE_FIXED32, FD.TYPE_FIXED64):
                setattr(msg, f.name, abs(value))
            else:
                setattr(msg, f.name, value)

        out.append(put)
    return out


VALUES = st.one_of(st.integers(-3, 40), st.integers(-(2**31), 2**31 - 1))
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_mutated_states_and_moves_get_a_clear_client_error_or_an_answer(game_id: str) -> None:
    cases = samples(game_id)

    @SETTINGS
    @given(st.data())
    def check(data: st.DataObject) -> None:
        state, moves = data.draw(st.sampled_from(cases))
        state = game_pb2.GameState.FromString(state.SerializeToString())
        move = (
            game_pb2.Move.FromString(data.draw(st.sampled_from(moves)).SerializeToString()) if moves else None
        )
        move_targets = setters(move) if move is not None else []
        only_the_move = bool(move_targets) and data.draw(st.booleans())
        targets = move_targets if only_the_move else setters(state) + move_targets
        for _ in range(data.draw(st.integers(1, 3))):
            data.draw(st.sampled_from(targets))(data.draw(VALUES))
        calls: list[Callable[[], Any]] = [
            lambda: API.legal_moves(pb.LegalMovesRequest(game=game_id, state=state)),
        ]
        if move is not None:
            calls += [
                lambda: API.validate_move(pb.ValidateMoveRequest(game=game_id, state=state, move=move)),
                lambda: API.apply_move(pb.ApplyMoveRequest(game=game_id, state=state, move=move)),
            ]
        for call in calls:
            try:
                call()
            except core.LawspeakerError as err:
                assert err.reason and err.message
                if err.code in (core.ErrorCode.MALFORMED, core.ErrorCode.INVALID_STATE):
                    assert err.field_violations, f"{err.reason} names no field"

    check()


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_counters_at_the_end_of_their_range_are_refused_before_they_overflow(game_id: str) -> None:
    """A ply or RNG counter so large that the next move could not be written back is an invalid
    state naming the field, never an internal error (found by the mutation test above)."""
    state, moves = samples(game_id)[1]
    move = moves[0]
    field = REGISTRY[game_id].codec.field
    last = game_pb2.GameState.FromString(state.SerializeToString())
    getattr(last, field).ply = core.PLY_LIMIT - 1
    API.apply_move(pb.ApplyMoveRequest(game=game_id, state=last, move=move))  # the last ply that fits
    for breaker, path in (
        (lambda s: setattr(getattr(s, field), "ply", core.PLY_LIMIT), f"state.{field}.ply"),
        (lambda s: setattr(s.rng, "counter", 2**64 - 1), "state.rng.counter"),
    ):
        broken = game_pb2.GameState.FromString(state.SerializeToString())
        breaker(broken)
        for method, request in (
            ("legal_moves", pb.LegalMovesRequest(game=game_id, state=broken)),
            ("apply_move", pb.ApplyMoveRequest(game=game_id, state=broken, move=move)),
        ):
            with pytest.raises(core.LawspeakerError) as caught:
                getattr(API, method)(request)
            assert caught.value.code is core.ErrorCode.INVALID_STATE
            assert caught.value.field_violations[0].field == path
