"""Property tests over every registered game (hypothesis).

They hold the engine together for any game that joins the registry: playouts end, the legal-move
list and validation agree, codecs round-trip, and the same seed and moves give the same game.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lawspeaker.api.rules import RulesApi
from lawspeaker.games import core
from lawspeaker.v1 import game_pb2
from lawspeaker.wire.codec import Entry
from lawspeaker.wire.registry import REGISTRY

GAMES = sorted(REGISTRY)
PLY_BOUND = 20_000  # no random playout of any game may run longer
API = RulesApi()


def options_strategy(entry: Entry[Any, Any, Any]) -> st.SearchStrategy[Any]:
    """Any combination of the game's documented option values, decoded by its own codec."""
    described = entry.game.describe().options
    fields = {o.name: st.sampled_from(o.allowed) for o in described if o.allowed}

    def build(values: dict[str, str]) -> Any:
        body = {k: (v == "true" if v in ("true", "false") else v) for k, v in values.items()}
        msg = game_pb2.GameOptions()
        json_format.ParseDict({entry.codec.field: body}, msg)
        return entry.codec.options_from_proto(getattr(msg, entry.codec.field))

    return st.fixed_dictionaries(fields).map(build)


def playout(entry: Entry[Any, Any, Any], players: int, options: Any, seed: int, pick: int) -> list[Any]:
    """A random playout; returns the states visited (first to last)."""
    game = entry.game
    rng = random.Random(pick)
    state = game.new_game(players, options, core.Rng.from_seed(seed))
    states = [state]
    for _ in range(PLY_BOUND):
        if game.outcome(state) is not None:
            return states
        moves = game.legal_moves(state)
        assert moves, "a game that is not over must list a move"
        state, _ = game.apply(state, rng.choice(list(moves)))
        states.append(state)
    pytest.fail(f"{game.id}: a random playout did not end within {PLY_BOUND} plies")


def game_case(game_id: str) -> st.SearchStrategy[tuple[Any, ...]]:
    entry = REGISTRY[game_id]
    return st.tuples(
        st.just(entry),
        st.integers(entry.game.min_players, entry.game.max_players),
        options_strategy(entry),
        st.integers(0, 2**64 - 1),
        st.integers(0, 2**32),
    )


SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("game_id", GAMES)
def test_random_playouts_end_within_a_bound_and_keep_every_invariant(game_id: str) -> None:
    @SETTINGS
    @given(game_case(game_id))
    def check(case: tuple[Any, ...]) -> None:
        entry, players, options, seed, pick = case
        states = playout(entry, players, options, seed, pick)
        for state in states:
            assert entry.game.check_state(state) == []
        assert entry.game.outcome(states[-1]) is not None
        assert list(entry.game.legal_moves(states[-1])) == []

    check()


@pytest.mark.parametrize("game_id", GAMES)
def test_listed_moves_validate_and_apply_and_unlisted_moves_are_refused_with_a_reason(
    game_id: str,
) -> None:
    @SETTINGS
    @given(game_case(game_id))
    def check(case: tuple[Any, ...]) -> None:
        entry, players, options, seed, pick = case
        game = entry.game
        states = playout(entry, players, options, seed, pick)
        seen: set[Any] = set()
        for state in states[:: max(1, len(states) // 60)]:
            legal = list(game.legal_moves(state))
            seen.update(legal)
            chance = game.chance(state)
            explicit = [o.move for o in chance.outcomes] if chance else []
            for move in legal + explicit:
                assert core.validate(game, state, move) is None
                after, _ = core.apply(game, state, move)
                assert game.check_state(after) == []
            if chance:
                assert abs(sum(o.probability for o in chance.outcomes) - 1) < 1e-9
            for move in seen - set(legal) - set(explicit):
                violation = core.validate(game, state, move)
                assert violation is not None, f"{move} is not listed but validates"
                assert violation.reason.isupper() and violation.reason.replace("_", "").isalpha()
                assert len(violation.message) > 10 and violation.message[0].isupper()
                with pytest.raises(core.IllegalMove) as err:
                    core.apply(game, state, move)
                assert err.value.reason == violation.reason

    check()


@pytest.mark.parametrize("game_id", GAMES)
def test_states_moves_and_options_survive_codec_round_trips(game_id: str) -> None:
    @SETTINGS
    @given(game_case(game_id))
    def check(case: tuple[Any, ...]) -> None:
        entry, players, options, seed, pick = case
        game, codec = entry.game, entry.codec
        states = playout(entry, players, options, seed, pick)
        assert codec.options_from_proto(codec.options_to_proto(options)) == options
        for state in states[:: max(1, len(states) // 40)]:
            msg = API.encode_state(entry, state)
            wire = game_pb2.GameState.FromString(msg.SerializeToString())
            assert API.decode_state(entry, wire) == state
            via_json = json_format.Parse(json_format.MessageToJson(msg), game_pb2.GameState())
            assert API.decode_state(entry, via_json) == state
            chance = game.chance(state)
            moves = list(game.legal_moves(state)) + ([o.move for o in chance.outcomes] if chance else [])
            for move in moves:
                encoded = API.encode_move(entry, move)
                again = game_pb2.Move.FromString(encoded.SerializeToString())
                assert API.decode_move(entry, again, True) == move

    check()


@pytest.mark.parametrize("game_id", GAMES)
def test_the_same_seed_and_moves_give_the_same_game(game_id: str) -> None:
    @SETTINGS
    @given(game_case(game_id))
    def check(case: tuple[Any, ...]) -> None:
        entry, players, options, seed, pick = case
        first = playout(entry, players, options, seed, pick)
        second = playout(entry, players, options, seed, pick)
        assert first == second

    check()


@pytest.mark.parametrize("game_id", GAMES)
def test_views_hide_nothing_a_seat_may_see_and_keep_the_state_valid(game_id: str) -> None:
    entry = REGISTRY[game_id]
    game = entry.game
    states = playout(entry, game.min_players, game.default_options(), 3, 3)
    for state in states[::50]:
        for seat in [None, *range(game.min_players)]:
            assert game.check_state(game.view(state, seat)) == []


@pytest.mark.parametrize("game_id", [g for g in GAMES if hasattr(REGISTRY[g].game, "drawn_outcome")])
def test_drawn_outcome_names_the_outcome_the_server_draw_comes_to(game_id: str) -> None:
    """A game's ``drawn_outcome`` (used to log server draws as explicit outcomes) agrees with its draw."""
    entry = REGISTRY[game_id]
    game: Any = entry.game
    for state in playout(entry, game.min_players, game.default_options(), 11, 11):
        chance = game.chance(state)
        if chance is None:
            continue
        drawn, events = game.apply(state, game.legal_moves(state)[0])
        explicit = game.drawn_outcome(state)
        assert explicit in [o.move for o in chance.outcomes]
        forced, forced_events = game.apply(state, explicit)
        assert forced_events == events
        a, b = API.encode_state(entry, forced), API.encode_state(entry, drawn)
        a.ClearField("rng")
        b.ClearField("rng")
        assert a == b  # the same position; only the RNG counter differs
