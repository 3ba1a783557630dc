"""The greedy bot's value function for Pax Penning (lawspeaker.bots.heuristics.pax_penning): finished games
score 1 / 1/k / 0, every position scores in [0, 1], clearly better positions score higher, and a
one-ply greedy player using it beats uniformly random players from every seat."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

from lawspeaker.bots import Level
from lawspeaker.bots.heuristics import pax_penning as heuristic
from lawspeaker.bots.heuristics.pax_penning import value
from lawspeaker.games.core import Rng
from lawspeaker.games.pax_penning import (
    COIN,
    EVERYONE_LOSES,
    GAME,
    PAWN,
    ROOK,
    THEGN,
    AskBlessing,
    Bless,
    Draw,
    Gather,
    Options,
    Phase,
    Roll,
    State,
    dice_on_roads,
    silvers,
)

COUNTED = Options()
"""The options the odds tables were counted under (the defaults)."""
WRITTEN = Options(gathering_limited_by_dice=True)
"""Options the odds tables were not counted under: states with them are judged by the written model."""
MODELS = pytest.mark.parametrize("options", [COUNTED, WRITTEN], ids=["tables", "written-model"])
"""The hand-checked orderings hold for both ways of judging a state."""
SPACES = 23  # road spaces on the reference map
DICE = 12  # the dice of the reference game


def _random_game(players: int, seed: int, until: Phase | None = None) -> list[State]:
    """The states of a seeded random game (to its end, or to the first ``until`` after setup)."""
    rng = random.Random(seed)
    state = GAME.new_game(players, GAME.default_options(), Rng.from_seed(seed))
    seen = [state]
    while GAME.outcome(state) is None:
        if until is not None and state.phase is until and len(state.hierarchy) == players + 1:
            break
        move = Draw() if GAME.to_act(state).chance else rng.choice(list(GAME.legal_moves(state)))
        state, _ = GAME.apply(state, move)
        seen.append(state)
    return seen


def _seen(state: State, seat: int) -> float:
    return value(GAME.view(state, seat), seat)


# -- finished games ------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_finished_game_scores_one_for_the_winner_and_zero_for_the_others(players: int) -> None:
    for seed in range(3):
        end = _random_game(players, seed)[-1]
        outcome = GAME.outcome(end)
        assert outcome is not None
        for seat in range(players):
            want = 1.0 / len(outcome.winners) if seat in outcome.winners else 0.0
            assert _seen(end, seat) == pytest.approx(want)


def test_a_coalition_shares_the_win_and_everyone_losing_scores_zero() -> None:
    end = _random_game(4, 0)[-1]
    coalition = end._replace(victory=THEGN, chain=(1, 3, 1), winners=(1, 3))
    assert [_seen(coalition, s) for s in range(4)] == pytest.approx([0.0, 0.5, 0.0, 0.5])
    three = end._replace(victory=THEGN, chain=(0, 1, 2, 0), winners=(0, 1, 2))
    assert [_seen(three, s) for s in range(4)] == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0.0])
    lost = end._replace(victory=EVERYONE_LOSES, chain=(), winners=())
    assert [_seen(lost, s) for s in range(4)] == [0.0] * 4


# -- every position ------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
def test_values_lie_between_zero_and_one_over_random_games(players: int) -> None:
    for seed in range(2):
        for state in _random_game(players, 100 + seed)[::3]:
            for seat in range(players):
                v = _seen(state, seat)
                assert 0.0 <= v <= 1.0, (state.phase, seat, v)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_seat_judged_at_once_scores_as_each_seat_judged_alone(players: int) -> None:
    # heuristic.values is what a search calls at the end of each playout; it must be value itself.
    checked = set()
    for options in (COUNTED, WRITTEN):
        for seed in range(3):
            states = _random_game(players, 300 + seed)
            if options != COUNTED:
                states = [s._replace(options=options) for s in states]
            for state in states[::2] + states[-1:]:
                views = [GAME.view(state, seat) for seat in range(players)]
                assert heuristic.values(views) == [value(v, seat) for seat, v in enumerate(views)]
                shown = [state] * players  # a state showing every House (the --open-houses diagnostic)
                assert heuristic.values(shown) == [value(state, seat) for seat in range(players)]
                checked.add((options == COUNTED, heuristic._judged_by_tables(state) is not None, state.phase))
    # Both branches ran: the tables' shared work, and every other state judged seat by seat.
    assert {tables for _, tables, _ in checked} == {True, False}
    assert (True, True, Phase.GATHER) in checked and Phase.OVER in {phase for *_, phase in checked}


def test_the_value_does_not_change_with_another_house() -> None:
    state = _random_game(3, 7, until=Phase.GATHER)[-1]
    other = state.houses[1]
    moved = (other[0] + other[1], 0, other[2])  # the same stones, now all of colour 0
    changed = state._replace(houses=(state.houses[0], moved, state.houses[2]))
    assert _seen(changed, 0) == _seen(state, 0)


# -- hand-checked orderings ----------------------------------------------------------------------


def _near_the_end(state: State) -> State:
    """The same position in the last King's walk, the King halfway round."""
    return state._replace(things=2, king=sum(len(row) for row in state.coins) // 2)


def _late(
    seed: int, *, hierarchy: tuple[int, ...], penning: bool, dice: int, options: Options = COUNTED
) -> State:
    """A seeded random game's first gathering after setup, moved to the last walk before the last
    Thing, the King halfway round (the players are the Hierarchy's pieces less the coin)."""
    state = _near_the_end(_random_game(len(hierarchy) - 1, seed, until=Phase.GATHER)[-1])
    roads = (3,) * dice + (0,) * (SPACES - dice)
    return state._replace(
        hierarchy=hierarchy,
        hierarchy_penning=penning,
        roads=roads,
        options=options,
    )


def _coins(players: int, pennings: dict[int, int]) -> tuple[tuple[bool, ...], ...]:
    """Three coins each; ``pennings[seat]`` of them Penning side up (none for the others)."""
    return tuple(tuple(k < pennings.get(s, 0) for k in range(3)) for s in range(players))


def _with_house(state: State, house: int, stones: tuple[int, ...]) -> State:
    """The state with House ``house`` holding ``stones`` (a count per colour) and its size to match."""
    houses = list(state.houses)
    sizes = list(state.sizes)
    houses[house], sizes[house] = stones, sum(stones)
    return state._replace(houses=tuple(houses), sizes=tuple(sizes))


@MODELS
def test_more_pennings_score_higher_when_a_thegns_victory_is_near(options: Options) -> None:
    base = _late(11, hierarchy=(COIN, 1, 2, 0), penning=True, dice=2, options=options)
    rich = base._replace(coins=_coins(3, {0: 3, 1: 1, 2: 1}))
    poor = base._replace(coins=_coins(3, {0: 0, 1: 3, 2: 1}))
    assert _seen(rich, 0) > _seen(poor, 0) + 0.2
    assert _seen(rich, 1) < _seen(poor, 1)


@MODELS
def test_a_higher_place_in_the_hierarchy_scores_higher_when_a_jarls_victory_is_near(options: Options) -> None:
    base = _late(12, hierarchy=(0, 1, 2, COIN), penning=False, dice=8, options=options)
    base = base._replace(coins=_coins(3, {0: 1, 1: 1, 2: 3}))
    top = base
    bottom = base._replace(hierarchy=(1, 2, 0, COIN))
    assert _seen(top, 0) > _seen(bottom, 0) + 0.2
    assert _seen(top, 1) < _seen(bottom, 1)
    # Under a Jarl's Victory the most Pennings exclude a player from the victory.
    richest = base._replace(coins=_coins(3, {0: 3, 1: 1, 2: 1}))
    assert _seen(richest, 0) < _seen(top, 0)


@MODELS
def test_the_coin_at_the_top_helps_the_player_with_the_most_pennings(options: Options) -> None:
    base = _late(13, hierarchy=(1, 2, 0, COIN), penning=False, dice=8, options=options)
    base = base._replace(coins=_coins(3, {0: 3, 1: 1, 2: 1}))
    coin_top = base._replace(hierarchy=(COIN, 1, 2, 0))
    assert _seen(coin_top, 0) > _seen(base, 0) + 0.2


@MODELS
def test_a_house_led_by_ones_own_colour_keeps_the_victory_from_an_heir(options: Options) -> None:
    base = _late(14, hierarchy=(COIN, 0, 1, 2), penning=True, dice=2, options=options)
    base = base._replace(coins=_coins(3, {0: 3, 1: 1, 2: 1}))
    own = _with_house(base, 0, (8, 2, 2))
    foreign = _with_house(base, 0, (2, 8, 2))
    assert _seen(own, 0) > _seen(foreign, 0) + 0.2


@MODELS
def test_a_state_showing_every_house_counts_the_heirs_it_shows(options: Options) -> None:
    # Seat 1 is about to take a Thegn's Victory; seat 0 is its Heir when colour 0 leads House 1.
    base = _late(14, hierarchy=(COIN, 1, 0, 2), penning=True, dice=2, options=options)
    base = base._replace(coins=_coins(3, {0: 1, 1: 3, 2: 1}))
    heir = _with_house(base, 1, (8, 2, 2))
    none = _with_house(base, 1, (2, 8, 2))
    # A player's view hides House 1: it cannot tell the two apart.
    assert heuristic._led_houses(GAME.view(heir, 0), 0) is None
    assert _seen(heir, 0) == _seen(none, 0)
    # A state showing every House (the benchmark's diagnostic) shows the Heir.
    assert heuristic._led_houses(heir, 0) == [1]
    assert heuristic._led_houses(none, 0) == []
    assert value(heir, 0) > value(none, 0) + 0.2
    assert value(heir, 0) <= 1.0


def test_the_open_houses_diagnostic_shows_the_bot_every_house_and_plays_whole_games() -> None:
    module = _benchmark("bots_by_rank")
    state = _random_game(4, 3, until=Phase.GATHER)[-1]
    shown = module.OPEN_GAME.view(state, 0)
    assert shown.houses == state.houses and shown.sizes == state.sizes
    assert heuristic._led_houses(shown, 0) is not None
    for seed in (7, 8):
        ending = module.play(module.Game(4, Level.GREEDY, seed, 1, (), open_houses=True))
        assert ending.won in (0.0, 0.5, 1.0 / 3, 0.25, 1.0)
        assert 0 <= ending.start < 4 and 0 <= ending.end < 4


@pytest.mark.parametrize("players", [3, 5])
def test_asking_for_a_blessing_scores_higher_than_rolling_without(players: int) -> None:
    """Stones of another colour in Sigtuna count as dice hoped for while the seat gathers."""
    checked = 0
    for seed in range(30, 40):
        for state in _random_game(players, seed):
            if state.phase is not Phase.GATHER or len(state.hierarchy) != players + 1:
                continue
            asks = [m for m in GAME.legal_moves(state) if isinstance(m, AskBlessing)]
            pool = silvers(state, state.turn) + state.moved
            if not asks or pool >= DICE - dice_on_roads(state):
                continue  # no blessing to ask for, or the dice it could bring are not in the supply
            seat = state.turn
            rolled = _seen(GAME.apply(state, Roll())[0], seat)
            assert _seen(GAME.apply(state, asks[0])[0], seat) > rolled
            checked += 1
            break
    assert checked >= 5


def _first_gathering(players: int, seed: int, own: int, options: Options) -> State:
    """A seeded random game's first gathering after setup (three King's walks from the end), the seat
    on turn with ``own`` of its stones in Sigtuna and every other colour with two."""
    state = _random_game(players, seed, until=Phase.GATHER)[-1]
    sigtuna = tuple(own if c == state.turn else 2 for c in range(players))
    return state._replace(sigtuna=sigtuna, options=options)


@MODELS
@pytest.mark.parametrize("players", [3, 5])
def test_own_stones_in_sigtuna_are_kept_while_the_end_is_far_and_gathered_near_it(
    options: Options, players: int
) -> None:
    """Pairs grow faster than the dice rolled, so the seat keeps its stones for a later, larger roll
    while more than KEEP_UNTIL walks remain, and gathers them after."""
    for seed in (41, 42, 43):
        far = _first_gathering(players, seed, 4, options)
        seat = far.turn
        assert heuristic._time_left(far) > heuristic.KEEP_UNTIL >= heuristic._time_left(_near_the_end(far))
        for state, keeps in ((far, True), (_near_the_end(far), False)):
            assert Gather(seat, 4) in GAME.legal_moves(state)
            gathered = _seen(GAME.apply(state, Gather(seat, 4))[0], seat)
            rolled = _seen(GAME.apply(state, Roll())[0], seat)
            assert (rolled > gathered) is keeps, (seed, keeps, rolled, gathered)


@MODELS
@pytest.mark.parametrize("players", [3, 5])
def test_a_seat_refuses_another_player_its_blessing_to_take_its_stones(
    options: Options, players: int
) -> None:
    """A blessing lets the asker take stones the seat would roll later, as dice of its own: refused,
    far from the end and near it."""
    for seed in (44, 45):
        far = _first_gathering(players, seed, 2, options)
        asked = (far.turn + 1) % players
        for state in (far, _near_the_end(far)):
            asking, _ = GAME.apply(state, AskBlessing(asked))
            assert asking.phase is Phase.BLESSING and asking.actor == asked
            granted = _seen(GAME.apply(asking, Bless(True))[0], asked)
            refused = _seen(GAME.apply(asking, Bless(False))[0], asked)
            assert refused > granted, (seed, refused, granted)


# -- the odds tables ----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_odds_tables_hold_shares_of_each_victory_at_every_player_count(players: int) -> None:
    odds = heuristic.odds_table(players)
    assert odds is not None
    thegn, jarl = odds
    for table in (thegn, jarl):
        assert all(0.0 <= x <= 1.0 for x in table.values())
        # Every situation a game can reach has odds: each place, 7 leads, 7 halves of walks.
        assert len(table) == players * (2 * heuristic.LEAD_CLIP + 1) * 7
    for walks in (0, 1, 2):
        # Read from random games near the end: under a Thegn's Victory leading in Pennings wins more
        # than trailing from every place; under a Jarl's the top of the Hierarchy wins more than the
        # bottom, and more one Penning short of the most than one ahead.
        for place in range(players):
            assert thegn[place, 1, walks] > thegn[place, -1, walks], (place, walks)
        assert jarl[0, -1, walks] > jarl[players - 1, -1, walks]
        assert jarl[0, -1, walks] > jarl[0, 1, walks]
    assert heuristic.odds_table(2) is None


def test_the_odds_table_file_is_well_formed() -> None:
    data = json.loads(heuristic.ODDS_PATH.read_text(encoding="utf-8"))
    assert sorted(data["players"]) == ["3", "4", "5"]
    for players, table in data["players"].items():
        assert table["games"] >= 1000
        for place, lead, walks, won_thegn, seen_thegn, won_jarl, seen_jarl in table["cells"]:
            assert 0 <= place < int(players) and abs(lead) <= heuristic.LEAD_CLIP and 0 <= walks <= 6
            assert 0 <= won_thegn <= seen_thegn and 0 <= won_jarl <= seen_jarl


def test_the_odds_tally_is_repeatable_and_counts_every_seat_at_every_turn() -> None:
    odds = _odds_script()
    first = odds.tally(5, range(1, 5))  # both victories among these seeds
    assert first == odds.tally(5, range(1, 5))
    thegn = sum(counts[1] for counts in first.values())
    jarl = sum(counts[3] for counts in first.values())
    assert thegn % 5 == 0 and jarl % 5 == 0 and thegn > 0 and jarl > 0
    # Each turn's five seats share at most one win (a Coalition splits it; everyone losing: none).
    assert sum(counts[0] for counts in first.values()) <= thegn / 5 + 1e-9
    assert sum(counts[2] for counts in first.values()) <= jarl / 5 + 1e-9


def test_the_tables_judge_only_the_options_they_were_counted_under(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _late(16, hierarchy=(0, 1, 2, 3, COIN), penning=False, dice=8)
    other = state._replace(options=WRITTEN)
    with_table = [_seen(state, s) for s in range(4)]
    written = [_seen(other, s) for s in range(4)]
    assert with_table != written
    # With no table for the count, the written model judges the counted options too.
    monkeypatch.setattr(heuristic, "odds_table", lambda players: None)
    assert [_seen(state, s) for s in range(4)] == written


def _odds_script() -> ModuleType:
    return _benchmark("pax_penning_odds")


def _benchmark(name: str) -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the script loads
    spec.loader.exec_module(module)
    return module


def _five(seed: int) -> State:
    """A five-player game's state at a gathering mid-game (one King's walk done)."""
    for state in _random_game(5, seed):
        if state.phase is Phase.GATHER and state.things == 1 and len(state.hierarchy) == 6:
            return state
    raise AssertionError("no such state")


def test_at_five_players_a_higher_place_scores_higher() -> None:
    state = _five(21)
    order = [s for s in state.hierarchy if s != COIN]
    # (Lower down the table's differences are a few hundredths, within what random games measure.)
    for place in (1, 2):
        seat, above = order[place], order[place - 1]
        h = list(state.hierarchy)
        i, j = h.index(seat), h.index(above)
        h[i], h[j] = h[j], h[i]
        climbed = state._replace(hierarchy=tuple(h))
        assert _seen(climbed, seat) > _seen(state, seat), place


def test_at_five_players_the_top_place_wants_fewer_pennings_than_another_seat() -> None:
    state = _five(22)
    order = [s for s in state.hierarchy if s != COIN]
    top, other = order[0], order[3]
    fewer = state._replace(coins=_coins(5, {top: 1, other: 3}), hierarchy_penning=False)
    most = state._replace(coins=_coins(5, {top: 3, other: 1}), hierarchy_penning=False)
    assert _seen(fewer, top) > _seen(most, top)


def test_a_rook_about_to_place_the_last_die_scores_zero_for_everyone() -> None:
    base = _random_game(3, 15, until=Phase.GATHER)[-1]
    doomed = base._replace(
        phase=Phase.LEVERAGE_ASSIGN, roads=(3,) * 11 + (0,) * (SPACES - 11), chosen=((2, ROOK),), dice=(4,)
    )
    assert [_seen(doomed, s) for s in range(3)] == [0.0, 0.0, 0.0]
    assert _seen(doomed._replace(chosen=((2, PAWN),)), 0) > 0.0


# -- greedy against random -----------------------------------------------------------------------


def _greedy_move(state: State, seat: int, rng: random.Random) -> object:
    """One ply: the legal move whose result the seat values most (ties by ``rng``)."""
    moves = list(GAME.legal_moves(state))
    scores = [_seen(GAME.apply(state, move)[0], seat) for move in moves]
    best = max(scores)
    return rng.choice([m for m, s in zip(moves, scores, strict=True) if s == best])


def _greedy_share(players: int, greedy: int, seed: int) -> float:
    """The greedy seat's share of the win (1/k of a k-winner Coalition) against random seats."""
    rng = random.Random(seed)
    state = GAME.new_game(players, GAME.default_options(), Rng.from_seed(seed))
    while (outcome := GAME.outcome(state)) is None:
        if GAME.to_act(state).chance:
            move: object = Draw()
        elif state.actor == greedy:
            move = _greedy_move(state, greedy, rng)
        else:
            move = rng.choice(list(GAME.legal_moves(state)))
        state, _ = GAME.apply(state, move)  # type: ignore[arg-type]
    return 1.0 / len(outcome.winners) if greedy in outcome.winners else 0.0


# (players, games per seat, least mean share, least share from each seat). A fair share is 1/players;
# with the odds tables and the stones kept in Sigtuna these seeds measure 0.77 (seats 0.90, 0.73,
# 0.67), 0.74 (0.70, 0.75, 0.80, 0.70) and 0.65 (0.63, 0.63, 0.67, 0.63, 0.67); without the stones
# kept, 0.69, 0.60 and 0.47. The bounds leave two or three games of margin.
GREEDY_CASES = [(3, 30, 0.70, 0.60), (4, 20, 0.68, 0.60), (5, 30, 0.58, 0.53)]


@pytest.mark.parametrize(("players", "games", "overall", "each"), GREEDY_CASES)
def test_a_one_ply_greedy_player_beats_random_players_from_every_seat(
    players: int, games: int, overall: float, each: float
) -> None:
    shares = [
        sum(_greedy_share(players, seat, 1000 * players + 100 * seat + g) for g in range(games)) / games
        for seat in range(players)
    ]
    assert sum(shares) / players >= overall, shares
    assert min(shares) >= each, shares
