"""The engine-level bots (lawspeaker.bots): legal suggestions for every game, determinism by seed, the
budget cap, chance steps left to the server, and no use of what the seat cannot see."""

from __future__ import annotations

import random
from typing import Any

import pytest

from lawspeaker.bots import Level, Suggestion, suggest
from lawspeaker.bots import core as bots
from lawspeaker.games import birka, pax_penning, pax_viking_junior, penki, valhalla
from lawspeaker.games.core import Game, LawspeakerError, Rng, is_legal
from lawspeaker.wire.registry import REGISTRY

AnyGame = Game[Any, Any, Any]


def _chance_move(game: AnyGame, state: Any, rng: random.Random) -> Any:
    chance = game.chance(state)
    assert chance is not None
    outcomes = chance.outcomes
    return rng.choices([o.move for o in outcomes], [o.probability for o in outcomes])[0]


def _positions(game: AnyGame, players: int, seed: int, plies: int, every: int) -> list[Any]:
    """Every ``every``-th decision position (nobody throws) of the first ``plies`` of a random game."""
    rng = random.Random(seed)
    state = game.new_game(players, game.default_options(), Rng.from_seed(seed))
    found: list[Any] = []
    decisions = 0
    for _ in range(plies):
        if game.outcome(state) is not None:
            break
        if game.chance(state) is not None:
            move = _chance_move(game, state, rng)
        else:
            if decisions % every == 0:
                found.append(state)
            decisions += 1
            move = rng.choice(list(game.legal_moves(state)))
        state, _ = game.apply(state, move)
    return found


def _seat(game: AnyGame, state: Any) -> int:
    return game.to_act(state).players[0]


GAMES = sorted(REGISTRY)


@pytest.mark.parametrize("level", ["random", "greedy", "search"])
@pytest.mark.parametrize("game_id", GAMES)
def test_suggestions_are_legal_over_random_play(game_id: str, level: str) -> None:
    game = REGISTRY[game_id].game
    budget = 4 if game_id in ("birka", "valhalla", "pax_penning") else 8
    for players in sorted({game.min_players, game.max_players}):
        positions = _positions(game, players, seed=players, plies=240, every=37)
        assert positions
        for i, state in enumerate(positions[:5]):
            seat = _seat(game, state)
            found = suggest(game, state, seat, level, playouts=budget, seed=i)
            assert found.move in game.legal_moves(state), (game_id, players, found)
            assert 0.0 <= found.value <= 1.0
            if level == "search" and len(game.legal_moves(state)) > 1:
                assert found.playouts == budget


@pytest.mark.parametrize("game_id", ["penki", "birka", "pax_penning"])
def test_the_same_seed_gives_the_same_suggestion(game_id: str) -> None:
    game = REGISTRY[game_id].game
    state = _positions(game, game.min_players, seed=7, plies=80, every=29)[-1]
    seat = _seat(game, state)
    first = suggest(game, state, seat, Level.SEARCH, playouts=20, seed=42)
    assert suggest(game, state, seat, Level.SEARCH, playouts=20, seed=42) == first
    assert suggest(game, state, seat, "random", seed=5) == suggest(game, state, seat, "random", seed=5)
    assert suggest(game, state, seat, "greedy", seed=5) == suggest(game, state, seat, "greedy", seed=5)


def test_the_playout_cap_is_enforced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bots, "MAX_PLAYOUTS", 6)
    game = penki.GAME
    state = _positions(game, 2, seed=3, plies=60, every=7)[-1]
    found = suggest(game, state, _seat(game, state), "search", playouts=1_000, seed=1)
    assert found.playouts == 6
    # A time budget alone is capped by the playout cap too.
    assert suggest(game, state, _seat(game, state), "search", millis=60_000, seed=1).playouts == 6


@pytest.mark.parametrize("game", [valhalla.GAME, penki.GAME], ids=lambda g: g.id)
def test_a_chance_step_root_gets_the_draw_move(game: AnyGame) -> None:
    """Chance steps are the server's: the bot never picks an outcome to its own advantage."""
    state = game.new_game(2, game.default_options(), Rng.from_seed(1))
    assert game.chance(state) is not None
    for level in Level:
        found = suggest(game, state, 0, level, playouts=50, seed=3)
        assert found == Suggestion(game.legal_moves(state)[0], 0.5, 0)


def test_refusals() -> None:
    game = penki.GAME
    state = _positions(game, 2, seed=3, plies=60, every=7)[-1]
    seat = _seat(game, state)
    with pytest.raises(LawspeakerError) as caught:
        suggest(game, state, 1 - seat, "search", playouts=5, seed=1)
    assert caught.value.reason == "NOT_YOUR_TURN"
    with pytest.raises(LawspeakerError) as caught:
        suggest(game, state, seat, "greedy-ish", seed=1)
    assert caught.value.reason == "UNKNOWN_LEVEL"
    with pytest.raises(LawspeakerError) as caught:
        suggest(game, state, seat, "search", playouts=0, seed=1)
    assert caught.value.reason == "INVALID_BUDGET"


# --------------------------------------------------------------------------- hidden information


def _birka_twin(state: birka.State, seat: int) -> birka.State | None:
    """The state with another seat's hand swapped for cards of its deck, when that stays valid."""
    other = next(s for s in range(state.players) if s != seat)
    hand, deck = state.hands[other], state.decks[other]
    if state.completed[other] or not hand or len(deck) < len(hand):
        return None
    data = birka.data.data_for(state.options.data)
    twin = state._replace(
        hands=tuple(deck[: len(hand)] if s == other else h for s, h in enumerate(state.hands)),
        decks=tuple(
            tuple(sorted(deck[len(hand) :] + hand)) if s == other else d for s, d in enumerate(state.decks)
        ),
        rng=Rng.from_seed(99),
    )
    if any(birka.fulfilled(twin, other, c, data) for c in twin.hands[other]) or birka.GAME.check_state(twin):
        return None
    return twin


def _pax_penning_twin(state: pax_penning.State, seat: int) -> pax_penning.State | None:
    """The state with one stone moved between two Houses the seat cannot see."""
    hidden = [h for h in range(state.players) if h != seat]
    a, b = hidden[0], hidden[1]
    colour = next((c for c, k in enumerate(state.houses[a]) if k), None)
    if colour is None:
        return None
    houses = list(state.houses)
    houses[a] = tuple(k - (c == colour) for c, k in enumerate(houses[a]))
    houses[b] = tuple(k + (c == colour) for c, k in enumerate(houses[b]))
    twin = state._replace(houses=tuple(houses), sizes=tuple(map(sum, houses)), rng=Rng.from_seed(99))
    return None if pax_penning.GAME.check_state(twin) else twin


def _pvj_twin(state: pax_viking_junior.State, seat: int) -> pax_viking_junior.State | None:
    """The state with another RNG: the draws to come are all it hides."""
    return state._replace(rng=Rng.from_seed(12345))


@pytest.mark.parametrize(
    ("game", "twin"),
    [(birka.GAME, _birka_twin), (pax_penning.GAME, _pax_penning_twin), (pax_viking_junior.GAME, _pvj_twin)],
    ids=["birka", "pax_penning", "pax_viking_junior"],
)
def test_hidden_data_does_not_change_the_suggestion(game: AnyGame, twin: Any) -> None:
    """Two states the seat cannot tell apart (the same view) get the same suggestion."""
    checked = 0
    for state in _positions(game, game.min_players, seed=11, plies=200, every=9):
        seat = _seat(game, state)
        other = twin(state, seat)
        if other is None or len(game.legal_moves(state)) < 2:
            continue
        assert other != state
        assert game.view(other, seat) == game.view(state, seat)
        for level in Level:
            assert suggest(game, state, seat, level, playouts=6, seed=8) == suggest(
                game, other, seat, level, playouts=6, seed=8
            )
        checked += 1
        if checked == 3:
            break
    assert checked


# --------------------------------------------------------------------------- strength


def _bot_wins(game: AnyGame, level: Level, first_seed: int, playouts: int | None = None) -> int:
    """How many of four two-player games a bot at ``level`` wins against random, from either seat."""
    wins = 0
    for k in range(4):
        bot = k % 2
        rng = random.Random(k)
        state = game.new_game(2, game.default_options(), Rng.from_seed(first_seed + k))
        ply = 0
        while (outcome := game.outcome(state)) is None:
            if game.chance(state) is not None:
                move = _chance_move(game, state, rng)
            else:
                seat = _seat(game, state)
                chosen = level if seat == bot else Level.RANDOM
                move = suggest(game, state, seat, chosen, playouts=playouts, seed=1000 * k + ply).move
            assert is_legal(game, state, move)
            state, _ = game.apply(state, move)
            ply += 1
        wins += bot in outcome.winners
    return wins


def test_search_beats_random_at_penki() -> None:
    """A sanity check, not a benchmark: 30 playouts a move win most of four short games."""
    assert _bot_wins(penki.GAME, Level.SEARCH, 100, playouts=30) >= 3


@pytest.mark.parametrize("game_id", ["penki", "valhalla"])
def test_greedy_beats_random(game_id: str) -> None:
    """Through ``suggest``, one move ahead on the game's heuristic wins most of four games."""
    assert _bot_wins(REGISTRY[game_id].game, Level.GREEDY, 200) >= 3


def test_a_game_without_a_determinizer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a determinizer, search plays on the seat's view only when it hides nothing but the RNG."""
    monkeypatch.setattr(bots, "DETERMINIZERS", {})
    game: AnyGame = penki.GAME
    state = _positions(game, 2, seed=3, plies=60, every=7)[-1]
    assert suggest(game, state, _seat(game, state), "search", playouts=10, seed=1).playouts == 10
    game = birka.GAME
    state = _positions(game, 2, seed=3, plies=60, every=7)[-1]
    with pytest.raises(LawspeakerError) as caught:
        suggest(game, state, _seat(game, state), "search", playouts=10, seed=1)
    assert caught.value.reason == "SEARCH_UNSUPPORTED"
    assert suggest(game, state, _seat(game, state), "random", seed=1).move in game.legal_moves(state)


@pytest.mark.parametrize("game", [pax_penning.GAME, valhalla.GAME], ids=lambda g: g.id)
def test_playouts_stop_at_the_games_depth(game: AnyGame, monkeypatch: pytest.MonkeyPatch) -> None:
    """A playout runs at most the game's ``PLAYOUT_DEPTHS`` (else ``PLAYOUT_DEPTH``) plies past the
    tree before the heuristic judges it: 5 in Pax Penning, 30 elsewhere."""
    depth = bots.PLAYOUT_DEPTHS.get(game.id, bots.PLAYOUT_DEPTH)
    assert depth == (5 if game.id == "pax_penning" else 30)
    lengths: list[int] = []
    playout = bots._Search.playout

    def counted(search: Any, state: Any, plies: int) -> list[float]:
        real = search.game
        applied = 0

        class Counting:
            def __getattr__(self, name: str) -> Any:
                return getattr(real, name)

            def apply(self, state: Any, move: Any) -> Any:
                nonlocal applied
                applied += 1
                return real.apply(state, move)

        search.game = Counting()
        try:
            return playout(search, state, plies)
        finally:
            search.game = real
            lengths.append(applied)

    monkeypatch.setattr(bots._Search, "playout", counted)
    players = 4 if game.id == "pax_penning" else 2
    state = _positions(game, players, seed=5, plies=120, every=9)[-1]
    suggest(game, state, _seat(game, state), "search", playouts=60, seed=2)
    assert lengths and max(lengths) == depth


def test_pax_pennings_search_starts_from_the_greedy_values() -> None:
    """``ROOT_PRIOR``: each root move of a Pax Penning search starts with virtual playouts at its greedy
    value, so a search of one playout plays greedy's move wherever greedy's best is unique; a game
    without a prior starts from nothing."""
    assert bots.ROOT_PRIOR == {"pax_penning": 10}
    game = REGISTRY["pax_penning"].game
    compared = 0
    for state in _positions(game, 5, seed=31, plies=1200, every=5):
        seat = _seat(game, state)
        legal = list(game.legal_moves(state))
        if len(legal) < 2:
            continue
        values = bots._one_ply(game, state, seat, legal, random.Random(4))
        assert values is not None
        best = max(values)
        if sum(v >= best - 1e-12 for v in values) > 1:
            continue
        greedy = legal[values.index(best)]
        assert suggest(game, state, seat, "search", playouts=1, seed=4).move == greedy
        compared += 1
    assert compared >= 10


def test_a_seeded_root_counts_the_virtual_playouts_as_the_greedy_value() -> None:
    game = REGISTRY["pax_penning"].game
    state = _positions(game, 5, seed=32, plies=200, every=11)[-1]
    seat = _seat(game, state)
    legal = list(game.legal_moves(state))
    search = bots._Search(
        game,
        game.view(state, seat),
        seat,
        bots._determinizer(game, state, game.view(state, seat)),
        random.Random(1),
    )
    values = [0.5] + [0.1] * (len(legal) - 1)
    search.seed_root(legal, values, 10)
    edge = search.root[legal[0]]
    assert edge.visits == 10 and edge.rewards[seat] == pytest.approx(5.0)
    assert sum(edge.rewards) == pytest.approx(10.0)  # the rest of a win, shared by the other seats
