"""Independent rule scenarios for the Pax Viking Junior engine, written from the rulebook.

Every test quotes, in its docstring, the rulebook sentence it checks
(``shared/rulebooks/pax-viking-junior.txt``); where the rulebook is silent the test names the recorded
decision it relies on (``lawspeaker.games.pax_viking_junior.ASSUMPTIONS``).

The expectations are worked out here, not taken from the engine: the map distances come from this
module's own breadth-first search over the grid of ``map.json`` (two regions whose cells share an edge
are 1 step apart unless the pair is a black line), and tiles, cards and boards are looked up by their
printed contents in the JSON files. Positions are reached by playing the engine from ``new_game`` with
explicit chance outcomes, and by ``State._replace`` edits that keep every tile, Kitten and Big Cat
accounted for (each edit is checked with ``check_state``).
"""

from __future__ import annotations

import json
import re
from collections import deque
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from lawspeaker.games import core
from lawspeaker.games.core import IllegalMove, Result, Rng
from lawspeaker.games.pax_viking_junior import (
    GAME,
    NONE,
    REFERENCE,
    SCROLLS,
    SILFR,
    ChooseBoard,
    Draw,
    DrawTiles,
    Journey,
    KittenTie,
    Options,
    Phase,
    PickUpCats,
    PlaceBigCat,
    PlaceKittens,
    PlaceTile,
    ReturnTiles,
    SkipDraw,
    State,
    VictoryCards,
)

# --------------------------------------------------------------------------- the printed components

DATA = Path(__file__).resolve().parents[2] / "service" / "lawspeaker" / "games" / "pax_viking_junior"


def _json(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


MAP = _json("map.json")
TILES = _json("tiles.json")
CARDS = _json("victory_cards.json")["cards"]
BOARDS = [b["id"] for b in _json("cat_boards.json")["boards"]]

REGION_IDS = [r["id"] for r in MAP["regions"]]
CODE = {r["code"]: i for i, r in enumerate(MAP["regions"])}
LAND = [r["code"].isupper() for r in MAP["regions"]]
SEA_REGIONS = [i for i, land in enumerate(LAND) if not land]
LAND_REGIONS = [i for i, land in enumerate(LAND) if land]
SHIELD = {s["id"]: REGION_IDS.index(s["region"]) for s in MAP["shields"]}
BOARD_SHIELD = {b["id"]: SHIELD[b["shield"]] for b in _json("cat_boards.json")["boards"]}


def R(region_id: str) -> int:
    return REGION_IDS.index(region_id)


def _adjacency() -> list[set[int]]:
    adj: list[set[int]] = [set() for _ in REGION_IDS]
    grid = MAP["grid"]
    for y, row in enumerate(grid):
        for x, c in enumerate(row):
            for dx, dy in ((1, 0), (0, 1)):
                if y + dy < len(grid) and x + dx < len(row):
                    d = grid[y + dy][x + dx]
                    if d != c:
                        adj[CODE[c]].add(CODE[d])
                        adj[CODE[d]].add(CODE[c])
    return adj


ADJ = _adjacency()
BLACK = {frozenset((R(a), R(b))) for a, b in MAP["black_lines"]}


def bfs(start: int, blocked: set[frozenset[int]] = BLACK) -> list[int]:
    """Steps from ``start`` to every region, crossing any shared edge except the ``blocked`` pairs."""
    dist = [10**6] * len(REGION_IDS)
    dist[start] = 0
    queue = deque([start])
    while queue:
        u = queue.popleft()
        for v in ADJ[u]:
            if frozenset((u, v)) not in blocked and dist[v] > dist[u] + 1:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


DIST = [bfs(r) for r in range(len(REGION_IDS))]
DIST_NO_BLACK = [bfs(r, set()) for r in range(len(REGION_IDS))]


def reach(start: int, steps: int) -> set[int]:
    """The land regions other than ``start`` at most ``steps`` steps away."""
    return {t for t in LAND_REGIONS if t != start and DIST[start][t] <= steps}


def kind(animal: str, count: int, silfr: int, scrolls: int) -> int:
    """The index of the tile showing ``count`` of ``animal`` with ``silfr`` Silfr and ``scrolls`` Scrolls."""
    for i, t in enumerate(TILES["tiles"]):
        if (t["animal"], t["animals"], t["silfr"], t["scrolls"]) == (animal, count, silfr, scrolls):
            return i
    raise KeyError((animal, count, silfr, scrolls))


def card(card_id: str) -> int:
    return [c["id"] for c in CARDS].index(card_id)


def colour(c: int) -> str:
    return CARDS[c]["colour"]


PIG2 = kind("pig", 2, 1, 0)  # 2 Pigs, 1 Silfr
SHEEP2 = kind("sheep", 2, 1, 0)  # 2 Sheep, 1 Silfr
COW_S = kind("cow", 1, 2, 0)  # 1 Cow, 2 Silfr
COW_C = kind("cow", 1, 0, 2)  # 1 Cow, 2 Scrolls
GOAT_S = kind("goat", 1, 2, 0)
GOAT_C = kind("goat", 1, 0, 2)
HORSE_S = kind("horse", 1, 2, 0)
HORSE_C = kind("horse", 1, 0, 2)
HEN_SC = kind("hen", 1, 1, 1)  # 1 Hen, 1 Silfr and 1 Scroll
HEN_BIG = kind("hen", 1, 2, 2)  # 1 Hen, 2 Silfr and 2 Scrolls
PIG_BIG = kind("pig", 1, 2, 2)
FILLER = kind("horse", 1, 1, 1)  # drawn alongside, never placed

# green cards that none of the scenarios below can fulfil by accident (they want 2 Goats or 2 Hens)
SAFE_GREENS = (card("green-7"), card("green-12"))
YELLOW_1 = card("yellow-1")
RED_SILFR, RED_SCROLLS = card("red-silfr"), card("red-scrolls")
STANDARD_CARDS = (*SAFE_GREENS, YELLOW_1)


# --------------------------------------------------------------------------- playing helpers


def check(state: State) -> State:
    assert GAME.check_state(state) == []
    return state


def start(
    boards: tuple[str, ...] = ("trjegul", "bygul"),
    *,
    tiles: tuple[int, ...] | None = None,
    cats: str = "",
    cards: tuple[int, ...] = STANDARD_CARDS,
    **options: Any,
) -> State:
    """A game set up with the given cat boards (seat 0 starts), the victory cards dealt in the order
    ``cards``, the setup tiles ``tiles`` and, per seat, ``k`` (one Kitten) or ``b`` (one Big Cat)."""
    opts = Options(seat_boards=boards, starting_seat=0, **options)
    s = GAME.new_game(len(boards), opts, Rng.from_seed(7))
    deal = iter(cards)
    setup_tiles = iter(tiles or (GOAT_C, HORSE_C, HEN_SC, GOAT_S, HORSE_S, HEN_BIG)[: len(boards)])
    setup_cats = iter(cats or "k" * len(boards))
    while s.phase is not Phase.JOURNEY:
        if s.phase is Phase.SETUP_DEAL:
            move: Any = Draw(next(deal))
        elif s.phase is Phase.SETUP_TILE:
            move = Draw(next(setup_tiles))
        elif s.phase is Phase.SETUP_CAT:
            move = PlaceKittens(1) if next(setup_cats) == "k" else PlaceBigCat()
        else:
            raise AssertionError(s.phase)
        s, _ = core.apply(GAME, s, move)
        check(s)
    return s


def play(state: State, *moves: Any) -> tuple[State, list[core.Event]]:
    events: list[core.Event] = []
    for move in moves:
        state, more = core.apply(GAME, state, move)
        events += more
        check(state)
    return state, events


def edit(state: State, **changes: Any) -> State:
    return check(state._replace(**changes))


def _set(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return (*t[:i], v, *t[i + 1 :])


def region(
    state: State,
    r: int,
    *,
    tiles: tuple[int, ...] = (),
    kittens: dict[int, int] | None = None,
    big: int = -1,
    friend: int | None = None,
) -> State:
    """Put tiles (taken from the lid), Kittens and a Big Cat (taken from the cat boards) into an empty
    region ``r``. ``friend`` defaults to the Big Cat's owner, else the single player with most Kittens."""
    assert not state.tiles[r] and not any(state.kittens[r]) and state.big_cats[r] < 0
    lid = list(state.lid)
    for t in tiles:
        lid[t] -= 1
    row = [0] * state.players
    left = list(state.kittens_left)
    for seat, k in (kittens or {}).items():
        row[seat] = k
        left[seat] -= k
    big_left = list(state.big_cats_left)
    if big >= 0:
        big_left[big] -= 1
    if friend is None:
        most = max(row)
        friend = big if big >= 0 else (row.index(most) if most and row.count(most) == 1 else -1)
    return edit(
        state,
        lid=tuple(lid),
        tiles=_set(state.tiles, r, tuple(tiles)),
        kittens=_set(state.kittens, r, tuple(row)),
        big_cats=_set(state.big_cats, r, big),
        friends=_set(state.friends, r, friend),
        kittens_left=tuple(left),
        big_cats_left=tuple(big_left),
    )


def finish_draw(state: State, draws: tuple[int, ...], place: int | None) -> State:
    """Draw the tiles ``draws`` (explicit chance outcomes), then place ``place`` or return them all."""
    state, _ = play(state, DrawTiles(len(draws)), *(Draw(t) for t in draws))
    state, _ = play(state, PlaceTile(place) if place is not None else ReturnTiles())
    return state


def turn(
    state: State,
    dest: int,
    *,
    draws: tuple[int, ...] = (),
    place: int | None = None,
    cats: Any = None,
) -> tuple[State, list[core.Event]]:
    """One whole turn: journey to ``dest``, draw ``draws`` (or skip drawing when allowed) and place
    ``place``, then the Cats (1 Kitten unless told)."""
    state, events = play(state, Journey(dest))
    if draws:
        state = finish_draw(state, draws, place)
    elif state.phase is Phase.DRAW_OFFER:
        state, _ = play(state, SkipDraw())
    assert state.phase is Phase.PLACE_CATS
    state, more = play(state, cats if cats is not None else PlaceKittens(1))
    return state, events + more


def journeys(state: State) -> set[int]:
    return {m.region for m in GAME.legal_moves(state) if isinstance(m, Journey) and m.buff == NONE}


REASON = re.compile(r"[A-Z]+(_[A-Z]+)*")


def refused(state: State, move: Any, *words: str) -> core.Violation:
    """The move is not listed, is explained by an UPPER_SNAKE reason and a sentence naming the rule
    (every one of ``words``, case-insensitive), and ``apply`` refuses it."""
    assert move not in GAME.legal_moves(state)
    violation = core.validate(GAME, state, move)
    assert violation is not None
    assert REASON.fullmatch(violation.reason), violation.reason
    assert len(violation.message) > 20, violation.message
    for word in words:
        assert word.lower() in violation.message.lower(), (word, violation.message)
    with pytest.raises(IllegalMove):
        core.apply(GAME, state, move)
    return violation


def at_cats(state: State, dest: int) -> State:
    """Journey to ``dest`` and skip the draw (if offered): the Cats step of the turn."""
    state, _ = play(state, Journey(dest))
    if state.phase is Phase.DRAW_OFFER:
        state, _ = play(state, SkipDraw())
    assert state.phase is Phase.PLACE_CATS
    return state


# --------------------------------------------------------------------------- the map itself


def test_component_data_as_printed() -> None:
    """ "Example 2: ... You have the most Kittens or a Big Cat in a Region with 2 Pigs, one with 2 Sheep
    and 2 different Regions with 1 Cow in each. Therefore you have fulfilled the Victory card "2 Pigs, 2
    Sheep, 2 Cows"." / "TRJEGUL: You have 3 Big Cats." / "Find the 2 red Victory cards"

    The data the scenarios rely on, and the engine's distances against this module's own search."""
    assert CARDS[YELLOW_1]["animals"] == {"pig": 2, "sheep": 2, "cow": 2}
    assert [c["id"] for c in CARDS if c["colour"] == "red"] == ["red-silfr", "red-scrolls"]
    assert CARDS[RED_SILFR]["silfr"] == 12 and CARDS[RED_SCROLLS]["scrolls"] == 12
    boards = {b["id"]: b for b in _json("cat_boards.json")["boards"]}
    assert boards["trjegul"]["big_cats"] == 3
    assert all(b["big_cats"] == 2 for i, b in boards.items() if i != "trjegul")
    assert sum(b["big_cats"] for b in boards.values()) == 13
    assert sum(b["kittens"] for b in boards.values()) == 60
    assert sum(t["copies"] for t in TILES["tiles"]) == 54
    assert len(CARDS) == 26
    # the engine's distance table agrees with the grid read by hand here
    assert [list(row) for row in REFERENCE.dist] == DIST


# --------------------------------------------------------------------------- setup


def test_setup_standard_cards() -> None:
    """ "Find the 2 red Victory cards and place them face up next to the map board. Shuffle the green and
    yellow Victory cards separately and place 2 green and 1 yellow face up next to each other.\""""
    s = GAME.new_game(2, Options(starting_seat=0), Rng.from_seed(3))
    assert s.phase is Phase.SETUP_DEAL
    # the first chance deals from the green deck only, every green card equally likely
    outcomes = GAME.chance(s).outcomes
    assert {colour(o.move.outcome) for o in outcomes} == {"green"}
    assert len(outcomes) == 12
    assert sum(o.probability for o in outcomes) == pytest.approx(1)
    while s.phase is Phase.SETUP_DEAL:
        s, _ = play(s, Draw())
    assert sorted(colour(c) for c in s.cards) == ["green", "green", "red", "red", "yellow"]
    assert {RED_SILFR, RED_SCROLLS} <= set(s.cards)


def test_setup_longer_variant_cards() -> None:
    """ "Victory Cards Variant: For a longer game ... play without the red Scroll/Silfr cards. Instead
    during setup reveal 2 green and 2 yellow Victory cards.\""""
    s = GAME.new_game(3, Options(victory_cards=VictoryCards.LONGER, starting_seat=1), Rng.from_seed(4))
    dealt = 0
    while s.phase is Phase.SETUP_DEAL:
        chance = GAME.chance(s)
        assert {colour(o.move.outcome) for o in chance.outcomes} <= {"green", "yellow"}
        s, _ = play(s, chance.outcomes[-1].move)
        dealt += 1
    assert dealt == 4
    assert sorted(colour(c) for c in s.cards) == ["green", "green", "yellow", "yellow"]
    assert RED_SILFR not in s.cards and RED_SCROLLS not in s.cards


def test_setup_longships_tiles_and_cats_on_shields() -> None:
    """ "Each player finds their shield on the map and places their Longhip [sic] there together with
    one face up Animal tile and one Kitten or if they prefer one Big Cat. (No coins are dealt out and
    Special abilities are ignored during the Setup).\""""
    s = GAME.new_game(3, Options(starting_seat=0), Rng.from_seed(5))
    while s.phase is Phase.SETUP_DEAL:
        s, _ = play(s, Draw())
    chosen = {0: "sleipnir", 1: "trjegul", 2: "saehrimnir"}
    while s.phase is Phase.SETUP_BOARD:
        s, _ = play(s, ChooseBoard(BOARDS.index(chosen[s.actor])))
    setup_tile = {0: PIG_BIG, 1: HEN_SC, 2: GOAT_S}
    setup_cat = {0: PlaceKittens(1), 1: PlaceBigCat(), 2: PlaceKittens(1)}
    while s.phase is not Phase.JOURNEY:
        if s.phase is Phase.SETUP_TILE:
            in_lid = {k for k, n in enumerate(s.lid) if n}
            assert {o.move.outcome for o in GAME.chance(s).outcomes} == in_lid
            s, _ = play(s, Draw(setup_tile[s.actor]))
        else:
            assert s.phase is Phase.SETUP_CAT
            assert set(GAME.legal_moves(s)) == {PlaceKittens(1), PlaceBigCat()}
            refused(s, PlaceKittens(2), "one Kitten or one Big Cat")
            refused(s, PlaceKittens(0), "one Kitten or one Big Cat")
            s, _ = play(s, setup_cat[s.actor])
    assert s.turn == 0 and s.actor == 0
    for seat, board in chosen.items():
        home = BOARD_SHIELD[board]
        assert s.ships[seat] == home
        assert s.tiles[home] == (setup_tile[seat],)
        assert s.friends[home] == seat
    assert s.kittens[BOARD_SHIELD["sleipnir"]] == (1, 0, 0)
    assert s.big_cats[BOARD_SHIELD["trjegul"]] == 1
    assert s.kittens_left == (9, 10, 9)
    assert s.big_cats_left == (2, 2, 2)  # Trjegul had 3
    # no coins at setup (Sæhrímnir, Sleipnir and Trjegul all placed a paying tile with a Cat)
    assert s.silfr == (0, 0, 0) and s.scrolls == (0, 0, 0)
    assert sum(s.lid) == 54 - 3


def test_setup_huginn_and_munin_gain_nothing() -> None:
    """ "(No coins are dealt out and Special abilities are ignored during the Setup)." - a Huginn player
    whose setup tile prints 1 Silfr (HUGINN: When you gain 1 Silfr, gain 1 more) gets nothing."""
    s = start(("huginn", "munin"), tiles=(kind("pig", 2, 1, 0), kind("sheep", 2, 0, 1)))
    assert s.silfr == (0, 0) and s.scrolls == (0, 0)
    assert s.friends[BOARD_SHIELD["huginn"]] == 0 and s.friends[BOARD_SHIELD["munin"]] == 1


def test_setup_and_turns_start_with_the_starting_player() -> None:
    """ "The player who most recently petted a cat is the starting player." - SETUP_ORDER: from the
    starting player on, each player chooses a cat board, then sets up their Longship; the starting
    player takes the first turn and play goes on in seat order."""
    s = GAME.new_game(3, Options(starting_seat=1), Rng.from_seed(9))
    while s.phase is Phase.SETUP_DEAL:
        s, _ = play(s, Draw())
    order = []
    while s.phase is Phase.SETUP_BOARD:
        order.append(s.actor)
        s, _ = play(s, GAME.legal_moves(s)[0])
    assert order == [1, 2, 0]
    order = []
    while s.phase is not Phase.JOURNEY:
        if s.phase is Phase.SETUP_TILE:
            order.append(s.actor)
            s, _ = play(s, Draw())
        else:
            s, _ = play(s, PlaceKittens(1))
    assert order == [1, 2, 0]
    assert s.turn == 1 and s.actor == 1
    s, _ = turn(s, sorted(reach(s.ships[1], 1))[0], cats=PlaceKittens(0))
    assert s.turn == 2 and s.actor == 2 and s.phase is Phase.JOURNEY


# --------------------------------------------------------------------------- journeys


@pytest.mark.parametrize(("board", "steps"), [("trjegul", 3), ("bygul", 4)])
def test_journey_reaches_exactly_land_within_steps(board: str, steps: int) -> None:
    """ "Journey your Longship 1, 2 or 3 steps. Crossing a white line counts as 1 step. You can not cross
    a black line and you must end your Journey on a Land Region." / "BYGUL: Step up to 4 steps each
    turn.\""""
    s = start((board, "sleipnir"))
    for here in LAND_REGIONS:
        moved = edit(s, ships=(here, s.ships[1]))
        assert journeys(moved) == reach(here, steps), REGION_IDS[here]


def test_journey_never_ends_at_sea_or_where_it_began() -> None:
    """ "you must end your Journey on a Land Region" / "At the start of your turn, Journey your Longship
    1, 2 or 3 steps." (the Longship must move: SEA_AND_STEPS)"""
    s = start(("trjegul", "bygul"))
    here = s.ships[0]
    for sea in SEA_REGIONS:
        if DIST[here][sea] <= 3:
            refused(s, Journey(sea), "land")
    refused(s, Journey(here), "journey", "another")
    # the first turn cannot be skipped: every listed move is a journey
    assert all(isinstance(m, Journey) for m in GAME.legal_moves(s))


def test_journey_black_line_blocks() -> None:
    """ "You can not cross a black line" - Amber Shore is 3 steps from Northwind Point over the Troll
    Bridge ridge, 4 around it; Whale Rocks 4 over it, 5 around."""
    np_, amber, whale = R("northwind-point"), R("amber-shore"), R("whale-rocks")
    assert DIST_NO_BLACK[np_][amber] == 3 and DIST[np_][amber] == 4
    assert DIST_NO_BLACK[np_][whale] == 4 and DIST[np_][whale] == 5
    trjegul = start(("trjegul", "bygul"))
    trjegul = edit(trjegul, ships=(np_, trjegul.ships[1]))  # Longships may share a region
    assert amber not in journeys(trjegul)
    refused(trjegul, Journey(amber), "steps")
    bygul = start(("bygul", "trjegul"))
    assert bygul.ships[0] == np_  # Bygul's shield
    assert amber in journeys(bygul)
    refused(bygul, Journey(whale), "4 steps")


def test_journey_black_line_refusal_names_the_black_line() -> None:
    """ "You can not cross a black line" - the refusal of a destination 3 steps away over a black line
    (Northwind Point to Amber Shore, over the Troll Bridge ridge) should tell the player why."""
    trjegul = start(("trjegul", "bygul"))
    trjegul = edit(trjegul, ships=(R("northwind-point"), trjegul.ships[1]))
    refused(trjegul, Journey(R("amber-shore")), "black line")


def test_journey_too_far_names_the_steps() -> None:
    """ "Journey your Longship 1, 2 or 3 steps.\""""
    s = start(("trjegul", "bygul"))
    here = s.ships[0]
    far = next(t for t in LAND_REGIONS if DIST[here][t] == 4 and DIST_NO_BLACK[here][t] == 4)
    refused(s, Journey(far), "3 steps")


def test_rivers_do_not_affect_journeys() -> None:
    """ "The blue lines are Rivers and does not effect your Journey." - the journeys whose shortest way
    crosses a border a river runs over are still 3 steps."""
    grid = MAP["grid"]
    river: set[frozenset[int]] = set()
    for r in MAP["rivers"]:
        cells = [
            CODE[grid[min(int(y), len(grid) - 1)][min(int(x), len(grid[0]) - 1)]] for x, y in r["points"]
        ]
        for a, b in pairwise(cells):
            if a != b and b in ADJ[a] and frozenset((a, b)) not in BLACK:
                river.add(frozenset((a, b)))
    assert river
    s = start(("trjegul", "bygul"))
    found = 0
    for here in LAND_REGIONS:
        with_rivers = bfs(here, BLACK | river)
        moved = edit(s, ships=(here, s.ships[1]))
        listed = journeys(moved)
        for t in reach(here, 3):
            if with_rivers[t] > 3:
                found += 1
                assert t in listed
    assert found > 0


# --------------------------------------------------------------------------- drawing Animal tiles


def test_draw_in_empty_region_two_tiles_place_one_return_rest() -> None:
    """ "If your Longship is in an empty Region ... draw and reveal 2 Animal tiles. Place one of them face
    up next to your Longship in the Region. Return the unused one(s) back face down into the box lid.\""""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s, _ = play(s, Journey(dest))
    assert s.phase is Phase.DRAW_OFFER
    assert {m for m in GAME.legal_moves(s) if isinstance(m, DrawTiles)} == {DrawTiles(2)}
    assert SkipDraw() in GAME.legal_moves(s)
    refused(s, DrawTiles(3), "2 Animal tiles")
    refused(s, DrawTiles(1), "2 Animal tiles")
    lid = s.lid
    s, _ = play(s, DrawTiles(2))
    # each draw is uniform over the tiles face down in the lid (HIDDEN_LID_AND_DECKS)
    first = {o.move.outcome: o.probability for o in GAME.chance(s).outcomes}
    assert first == {k: pytest.approx(n / sum(lid)) for k, n in enumerate(lid) if n}
    s, _ = play(s, Draw(COW_S))
    second = {o.move.outcome: o.probability for o in GAME.chance(s).outcomes}
    assert second[COW_S] == pytest.approx((lid[COW_S] - 1) / (sum(lid) - 1))
    s, _ = play(s, Draw(PIG2))
    assert s.phase is Phase.CHOOSE_TILE
    assert set(GAME.legal_moves(s)) == {PlaceTile(COW_S), PlaceTile(PIG2), ReturnTiles()}
    refused(s, PlaceTile(SHEEP2), "drew")
    s, _ = play(s, PlaceTile(PIG2))
    assert s.tiles[dest] == (PIG2,)
    assert s.lid == _set(lid, PIG2, lid[PIG2] - 1)  # the Cow went back
    assert s.phase is Phase.PLACE_CATS


def test_draw_return_both_tiles() -> None:
    """ "choose 1 to place next to your Longship or put both back to the box.\""""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s, _ = play(s, Journey(dest))
    lid = s.lid
    s, _ = play(s, DrawTiles(2), Draw(COW_S), Draw(COW_S), ReturnTiles())
    assert s.lid == lid and s.tiles[dest] == ()
    assert s.phase is Phase.PLACE_CATS
    s, _ = play(s, PlaceKittens(2))
    assert s.silfr[0] == 0 and s.scrolls[0] == 0  # no tile placed: nothing gained


def test_draw_where_friends() -> None:
    """ "If your Longship is in an empty Region or in a Region where you have a Friend and you want to,
    draw and reveal 2 Animal tiles.\""""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s = region(s, dest, tiles=(GOAT_S,), kittens={0: 1, 1: 0})
    s, _ = play(s, Journey(dest))
    assert s.phase is Phase.DRAW_OFFER
    s = finish_draw(s, (PIG2, SHEEP2), SHEEP2)
    assert s.tiles[dest] == (GOAT_S, SHEEP2)


def test_no_draw_where_another_player_is_friends_or_nobody_is() -> None:
    """ "If your Longship is in an empty Region or in a Region where you have a Friend ... draw" - not in
    a region whose animals are another player's Friends, nor in one with a tile but no Friend
    (EMPTY_REGION: the draw step is skipped with NO_DRAW, a draw is refused with CANNOT_DRAW_HERE)."""
    s = start(("trjegul", "bygul"))
    theirs, nobodys = R("thing-mound"), R("smiths-vale")
    s = region(s, theirs, tiles=(GOAT_S,), kittens={1: 1})
    s = region(s, nobodys, tiles=(HORSE_S,))
    for dest in (theirs, nobodys):
        after, events = play(s, Journey(dest))
        assert after.phase is Phase.PLACE_CATS
        assert "NO_DRAW" in [e.kind for e in events]
        v = refused(after, DrawTiles(2), "friend")
        assert v.reason == "CANNOT_DRAW_HERE"


def test_empty_region_means_no_tile_even_with_cats() -> None:
    """ "If your Longship is in an empty Region ... draw" (EMPTY_REGION: an empty Region is one without an
    Animal tile, Cats may be there) - a region with only the other player's Kittens."""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s = region(s, dest, kittens={1: 2})
    s, _ = play(s, Journey(dest))
    assert s.phase is Phase.DRAW_OFFER


def test_sleipnir_draws_two_or_three() -> None:
    """ "SLEIPNIR: You may draw 3 Animal tiles instead of 2. You may only choose one to place on the map.
    Return the unused face down to the box lid.\""""
    s = start(("sleipnir", "trjegul"))
    dest = next(iter(sorted(reach(s.ships[0], 1))))
    s, _ = play(s, Journey(dest))
    assert {m for m in GAME.legal_moves(s) if isinstance(m, DrawTiles)} == {DrawTiles(2), DrawTiles(3)}
    refused(s, DrawTiles(4), "3")
    lid = s.lid
    s, _ = play(s, DrawTiles(3), Draw(PIG2), Draw(SHEEP2), Draw(COW_S))
    assert set(GAME.legal_moves(s)) == {PlaceTile(PIG2), PlaceTile(SHEEP2), PlaceTile(COW_S), ReturnTiles()}
    s, _ = play(s, PlaceTile(SHEEP2))
    assert s.tiles[dest] == (SHEEP2,)
    assert s.lid == _set(lid, SHEEP2, lid[SHEEP2] - 1)


def test_short_lid_draws_what_is_left_and_empty_lid_skips() -> None:
    """ "draw and reveal 2 Animal tiles" - SHORT_LID: when the box lid holds fewer tiles than the draw,
    the player draws what is left; an empty lid skips the draw step."""
    s = start(("trjegul", "bygul"))
    everything = tuple(k for k, n in enumerate(s.lid) for _ in range(n))
    dest, dump = R("thing-mound"), R("puffin-isle")
    one_left = region(s, dump, tiles=everything[1:])
    assert sum(one_left.lid) == 1
    one_left, _ = play(one_left, Journey(dest))
    assert {m for m in GAME.legal_moves(one_left) if isinstance(m, DrawTiles)} == {DrawTiles(1)}
    one_left = finish_draw(one_left, (everything[0],), everything[0])
    assert one_left.tiles[dest] == (everything[0],) and sum(one_left.lid) == 0
    empty = region(s, dump, tiles=everything)
    empty, _ = play(empty, Journey(dest))
    assert empty.phase is Phase.PLACE_CATS


def test_view_hides_only_the_lid_order() -> None:
    """ "Put all the Animal tiles into the lid of the box, face down." - HIDDEN_LID_AND_DECKS: a player's
    view removes the RNG (the order of the lid and decks) and nothing else."""
    s = start(("trjegul", "bygul"))
    v = GAME.view(s, 1)
    assert v.rng != s.rng
    assert v._replace(rng=s.rng) == s


# --------------------------------------------------------------------------- Cats


def test_cat_choices() -> None:
    """ "You can place 0, 1 or 2 of your Kittens or 1 Big Cat. You may if you want to, pick up all your
    Cats in the Region instead of placing any Cats.\""""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s = region(s, dest, kittens={0: 1})
    s = at_cats(s, dest)
    legal = set(GAME.legal_moves(s))
    assert {PlaceKittens(0), PlaceKittens(1), PlaceKittens(2), PlaceBigCat(), PickUpCats()} <= legal
    assert not any(isinstance(m, PlaceKittens) and m.count > 2 for m in legal)
    refused(s, PlaceKittens(3), "2")


def test_place_two_kittens_and_nothing() -> None:
    """ "Place Cats next to your Longship. You can place 0, 1 or 2 of your Kittens\""""
    s = start(("trjegul", "bygul"))
    a, b = R("thing-mound"), R("smiths-vale")
    s, _ = turn(s, a, cats=PlaceKittens(2))
    assert s.kittens[a] == (2, 0) and s.kittens_left[0] == 7 and s.friends[a] == 0  # 10 - 1 - 2
    assert s.turn == 1 and s.phase is Phase.JOURNEY
    s, _ = turn(s, b, cats=PlaceKittens(0))
    assert s.kittens[b] == (0, 0) and s.kittens_left[1] == 9 and s.friends[b] == -1


def test_pick_up_all_kittens() -> None:
    """ "You may if you want to, pick up all your Cats in the Region instead of placing any Cats." - the
    other player's Kittens stay, and they become Friends (FRIENDS: a player may gain it without acting)."""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s = region(s, dest, tiles=(GOAT_S,), kittens={0: 3, 1: 1})
    assert s.friends[dest] == 0
    left = s.kittens_left
    s, _ = turn(s, dest, cats=PickUpCats())
    assert s.kittens[dest] == (0, 1)
    assert s.kittens_left == (left[0] + 3, left[1])
    assert s.friends[dest] == 1
    assert s.silfr == (0, 0) and s.scrolls == (0, 0)
    assert s.turn == 1 and s.phase is Phase.JOURNEY


def test_big_cat_sends_every_kitten_home() -> None:
    """ "If you place a Big Cat, return all Kittens from that Region back to each player's Cat board."
    (BIG_CAT_HOME: the placer's own Kittens go home too)"""
    s = start(("trjegul", "bygul", "sleipnir"))
    dest = R("thing-mound")
    s = region(s, dest, tiles=(GOAT_S,), kittens={0: 1, 1: 3, 2: 2})
    left = s.kittens_left
    s, _ = turn(s, dest, cats=PlaceBigCat())
    assert s.kittens[dest] == (0, 0, 0)
    assert s.kittens_left == (left[0] + 1, left[1] + 3, left[2] + 2)
    assert s.big_cats[dest] == 0 and s.big_cats_left[0] == 2  # Trjegul: 3 - 1
    assert s.friends[dest] == 0


def test_big_cat_closes_region_and_never_moves() -> None:
    """ "A placed Big Cat cannot be moved again during the game. No new Kittens or Big Cats can be added
    to a Region with a Big Cat in it.\""""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s = region(s, dest, tiles=(GOAT_S,), big=1)
    # the other player arrives: no Kittens, no Big Cat
    theirs = at_cats(s, dest)
    for move in (PlaceKittens(1), PlaceKittens(2), PlaceBigCat()):
        v = refused(theirs, move, "Big Cat")
        assert v.reason == "BIG_CAT_IN_REGION"
    assert PlaceKittens(0) in GAME.legal_moves(theirs)
    # the owner arrives: may draw (Friends), but adds no Cat either, and cannot take the Big Cat away
    s = edit(s, turn=1, actor=1, ships=(s.ships[0], R("smiths-vale")))
    s, _ = play(s, Journey(dest))
    assert s.phase is Phase.DRAW_OFFER
    s = finish_draw(s, (PIG2, SHEEP2), PIG2)
    for move in (PlaceKittens(1), PlaceBigCat()):
        refused(s, move, "Big Cat")
    if PickUpCats() in GAME.legal_moves(s):
        picked, _ = play(s, PickUpCats())
        assert picked.big_cats[dest] == 1 and picked.big_cats_left == s.big_cats_left
    s, _ = play(s, PlaceKittens(0))
    assert s.big_cats[dest] == 1 and s.friends[dest] == 1
    # no Cat placed this turn: the new tile pays nothing
    assert s.silfr[1] == 0 and s.scrolls[1] == 0


def test_big_cats_run_out_trjegul_has_three() -> None:
    """ "TRJEGUL: You have 3 Big Cats." (the other boards have 2: CAT_BOARDS)"""
    s = start(("trjegul", "bygul"), cats="bb")
    assert s.big_cats_left == (2, 1)
    s = region(s, R("thing-mound"), big=1)
    s, _ = turn(s, R("smiths-vale"), cats=PlaceBigCat())
    assert s.big_cats_left == (1, 0)
    s = at_cats(s, R("loom-valley"))
    refused(s, PlaceBigCat(), "Big Cat")  # Bygul: both Big Cats placed
    s, _ = play(s, PlaceKittens(0))
    s, _ = turn(s, R("willow-marsh"), cats=PlaceBigCat())  # Trjegul's third Big Cat
    assert s.big_cats_left == (0, 0)
    assert [s.big_cats.count(seat) for seat in (0, 1)] == [3, 2]
    s, _ = turn(s, R("birch-hills"), cats=PlaceKittens(0))
    s = at_cats(s, R("seal-meadows"))
    refused(s, PlaceBigCat(), "Big Cat")


def test_kittens_run_out() -> None:
    """ "Each player ... takes the Cat board, Longship, Kittens and Big Cats of that color." - only the
    Kittens on your Cat board can be placed (CATS_WITHOUT_TILE)."""
    s = start(("trjegul", "bygul"))
    s = region(s, R("loom-valley"), kittens={0: 8})
    assert s.kittens_left[0] == 1
    s = at_cats(s, R("thing-mound"))
    assert PlaceKittens(1) in GAME.legal_moves(s)
    refused(s, PlaceKittens(2), "Kitten", "Cat board")


# --------------------------------------------------------------------------- gains and friends


@pytest.mark.parametrize("cats", [PlaceKittens(1), PlaceKittens(2), PlaceBigCat()])
def test_gain_with_tile_and_cat(cats: Any) -> None:
    """ "When you have placed an Animal tile and at least 1 Cat in a Region you gain the Silfr and Scrolls
    shown on the bottom of the Animal tile. ... The Animal on the tile is now your Friend\""""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s, _ = turn(s, dest, draws=(HEN_BIG, PIG2), place=HEN_BIG, cats=cats)
    assert (s.silfr, s.scrolls) == ((2, 0), (2, 0))
    assert s.friends[dest] == 0


@pytest.mark.parametrize("cats", ["none", "pick_up"])
def test_no_gain_without_cat(cats: str) -> None:
    """ "When you have placed an Animal tile and at least 1 Cat in a Region you gain the Silfr and Scrolls"
    - a tile with no Cat (or picking up instead) gains nothing (GAIN)."""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s = region(s, dest, kittens={0: 1})  # Friends-less region, but with my Kitten
    move = PlaceKittens(0) if cats == "none" else PickUpCats()
    s, _ = turn(s, dest, draws=(HEN_BIG, PIG2), place=HEN_BIG, cats=move)
    assert (s.silfr, s.scrolls) == ((0, 0), (0, 0))
    assert s.tiles[dest] == (HEN_BIG,)


def test_gain_without_becoming_friends() -> None:
    """ "When you have placed an Animal tile and at least 1 Cat in a Region you gain the Silfr and Scrolls
    shown on the bottom of the Animal tile." - even when another player keeps the most Kittens there."""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s = region(s, dest, kittens={1: 3})
    s, _ = turn(s, dest, draws=(HEN_BIG, FILLER), place=HEN_BIG, cats=PlaceKittens(2))
    assert (s.silfr[0], s.scrolls[0]) == (2, 2)
    assert s.friends[dest] == 1 and s.kittens[dest] == (2, 3)


def test_no_gain_without_tile() -> None:
    """ "When you have placed an Animal tile and at least 1 Cat in a Region you gain" - Kittens placed
    with a tile already there, but no new tile, gain nothing."""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s = region(s, dest, tiles=(HEN_BIG,), kittens={1: 1})
    s, _ = turn(s, dest, cats=PlaceKittens(2))
    assert (s.silfr, s.scrolls) == ((0, 0), (0, 0))
    assert s.friends[dest] == 0  # stolen, but Trjegul has no steal gain


def test_steal_with_more_kittens() -> None:
    """ "Stealing: You place more Kittens or a Big Cat to befriend an Animal that is already a Friend of
    another player. You gain its friendship, and the other player loses it.\""""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s = region(s, dest, tiles=(PIG2,), kittens={1: 1})
    s, _ = turn(s, dest, cats=PlaceKittens(2))
    assert s.friends[dest] == 0 and s.kittens[dest] == (2, 1)
    # Bygul now has no Friend there: they may not draw in it
    s = edit(s, ships=(s.ships[0], R("smiths-vale")))
    s, events = play(s, Journey(dest))
    assert s.phase is Phase.PLACE_CATS and "NO_DRAW" in [e.kind for e in events]


def test_steal_with_big_cat() -> None:
    """ "Stealing: You place more Kittens or a Big Cat to befriend an Animal that is already a Friend of
    another player.\""""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s = region(s, dest, tiles=(PIG2,), kittens={1: 2})
    s, _ = turn(s, dest, cats=PlaceBigCat())
    assert s.friends[dest] == 0 and s.kittens[dest] == (0, 0)


def test_tie_friend_keeps() -> None:
    """ "The player with the most Kittens becomes Friends" / "Stealing: You place more Kittens" -
    KITTEN_TIE (default FRIEND_KEEPS): on a tie the current Friend keeps the friendship."""
    s = start(("trjegul", "bygul"))
    dest = R("thing-mound")
    s = region(s, dest, tiles=(PIG2,), kittens={1: 2})
    s, _ = turn(s, dest, cats=PlaceKittens(2))
    assert s.kittens[dest] == (2, 2) and s.friends[dest] == 1


def test_tie_nobody_option() -> None:
    """ "The player with the most Kittens becomes Friends" - KITTEN_TIE with kitten_tie=NOBODY: a tie
    always means nobody is Friends; more Kittens later wins it."""
    s = start(("trjegul", "bygul"), kitten_tie=KittenTie.NOBODY)
    dest = R("thing-mound")
    s = region(s, dest, tiles=(PIG2,), kittens={1: 2})
    s, _ = turn(s, dest, cats=PlaceKittens(2))
    assert s.kittens[dest] == (2, 2) and s.friends[dest] == -1
    # Bygul is no longer Friends: no draw there; one more Kitten makes them Friends again
    s = edit(s, ships=(s.ships[0], R("smiths-vale")))
    s, _ = play(s, Journey(dest))
    assert s.phase is Phase.PLACE_CATS
    s, _ = play(s, PlaceKittens(1))
    assert s.friends[dest] == 1


def test_tie_without_the_friend_is_nobody() -> None:
    """ "The Animal on the tile is now your Friend as long as you have the most Kittens" - KITTEN_TIE:
    when the tied players do not include the current Friend, nobody is Friends."""
    s = start(("trjegul", "bygul", "sleipnir"))
    dest = R("thing-mound")
    s = region(s, dest, tiles=(PIG2,), kittens={0: 3, 1: 1, 2: 1})
    assert s.friends[dest] == 0
    s, _ = turn(s, dest, cats=PickUpCats())
    assert s.kittens[dest] == (0, 1, 1) and s.friends[dest] == -1


# --------------------------------------------------------------------------- victory


def _near_regions(state: State, here: int, k: int, steps: int = 3) -> list[int]:
    """``k`` empty land regions other than ``here`` within ``steps`` of it (my own distances)."""
    empty = [t for t in reach(here, steps) if not state.tiles[t] and not any(state.kittens[t])]
    out = sorted(empty, key=lambda t: (DIST[here][t], t))
    assert len(out) >= k
    return out[:k]


def test_twelve_silfr_wins_at_end_of_turn() -> None:
    """ "Example 1: You have collected 12 Silfr at the end of your turn, therefore you have fulfilled the
    Victory card "12 Silfr".\""""
    s = start(("trjegul", "bygul"))
    s = edit(s, silfr=(10, 0))
    dest = R("thing-mound")
    s, _ = play(s, Journey(dest))
    s = finish_draw(s, (COW_S, PIG2), COW_S)
    assert GAME.outcome(s) is None  # not before the Cats and the end of the turn
    s, _ = play(s, PlaceKittens(1))
    assert s.silfr[0] == 12
    assert s.winner == 0 and s.won_card == RED_SILFR and s.phase is Phase.OVER
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.result is Result.WIN and outcome.winners == (0,)
    assert not GAME.legal_moves(s)
    assert core.validate(GAME, s, Journey(dest)).reason == "GAME_OVER"


def test_twelve_scrolls_wins() -> None:
    """ "If you have for example collected 12 Scrolls or 12 Silfr at the end of your turn, you win by
    fulfilling one of the red Victory cards.\""""
    s = start(("trjegul", "bygul"))
    s = edit(s, scrolls=(10, 0))
    s, _ = turn(s, R("thing-mound"), draws=(COW_C, PIG2), place=COW_C)
    assert s.scrolls[0] == 12 and s.winner == 0 and s.won_card == RED_SCROLLS


def test_eleven_silfr_does_not_win_and_longer_variant_has_no_red_cards() -> None:
    """ "12 Silfr" / "play without the red Scroll/Silfr cards" (Victory Cards Variant)"""
    s = start(("trjegul", "bygul"))
    s = edit(s, silfr=(9, 0))
    s, _ = turn(s, R("thing-mound"), draws=(COW_S, PIG2), place=COW_S)
    assert s.silfr[0] == 11 and GAME.outcome(s) is None and s.turn == 1
    longer = start(
        ("trjegul", "bygul"),
        victory_cards=VictoryCards.LONGER,
        cards=(*SAFE_GREENS, card("yellow-4"), card("yellow-11")),
    )
    longer = edit(longer, silfr=(12, 0), scrolls=(12, 0))
    longer, _ = turn(longer, R("thing-mound"), draws=(COW_S, PIG2), place=COW_S)
    assert longer.silfr[0] == 14 and GAME.outcome(longer) is None


def test_coins_spent_before_the_end_of_the_turn_do_not_count() -> None:
    """ "Example 1: You have collected 12 Silfr at the end of your turn, therefore you have fulfilled the
    Victory card "12 Silfr"." - 12 Silfr at the start of the turn, 2 spent on a Buff: 10 at the end."""
    s = start(("trjegul", "bygul"), buff=True)
    s = edit(s, silfr=(12, 0))
    s, _ = play(s, Journey(_far(s.ships[0], 4), buff=SILFR))
    if s.phase is Phase.DRAW_OFFER:
        s, _ = play(s, SkipDraw())
    s, _ = play(s, PlaceKittens(1))
    assert s.silfr[0] == 10 and GAME.outcome(s) is None and s.turn == 1


def _example_two(last_tile: int) -> State:
    """Trjegul is Friends with a region of 2 Pigs, one of 2 Sheep and one of 1 Cow, then places
    ``last_tile`` with a Kitten in a fourth region."""
    s = start(("trjegul", "bygul"))
    here = s.ships[0]
    pigs, sheep, cow, dest = _near_regions(s, here, 4)
    s = region(s, pigs, tiles=(PIG2,), kittens={0: 1})
    s = region(s, sheep, tiles=(SHEEP2,), big=0)
    s = region(s, cow, tiles=(COW_C,), kittens={0: 2, 1: 1})
    s, _ = turn(s, dest, draws=(last_tile, FILLER), place=last_tile)
    return s


def test_example_two_animals_win() -> None:
    """ "Example 2: You have the most Kittens or a Big Cat in a Region with 2 Pigs, one with 2 Sheep and 2
    different Regions with 1 Cow in each. Therefore you have fulfilled the Victory card "2 Pigs, 2 Sheep,
    2 Cows".\""""
    s = _example_two(COW_S)
    assert s.winner == 0 and s.won_card == YELLOW_1
    assert GAME.outcome(s).winners == (0,)


def test_example_two_one_animal_missing() -> None:
    """ "Be Friends with all the Animals on one card to fulfill that Victory card." - the second Cow
    missing (a Goat instead), no win."""
    s = _example_two(GOAT_S)
    assert s.winner == -1 and GAME.outcome(s) is None
    assert s.phase is Phase.JOURNEY and s.turn == 1


def test_friends_with_every_tile_of_a_region_green_card() -> None:
    """ "The green and yellow Victory cards show a number of Animal icons. Be Friends with all the Animals
    on one card to fulfill that Victory card." - green-7 (2 Goats, 1 Horse, 1 Hen); FRIENDS: friendship
    covers every tile in the region, so one region holding 2 Goat tiles counts 2 Goats."""
    assert CARDS[SAFE_GREENS[0]]["animals"] == {"goat": 2, "horse": 1, "hen": 1}
    s = start(("trjegul", "bygul"), tiles=(PIG_BIG, kind("sheep", 1, 2, 2)))
    goats, horse, dest = _near_regions(s, s.ships[0], 3)
    s = region(s, goats, tiles=(GOAT_S, GOAT_C), kittens={0: 1})
    s = region(s, horse, tiles=(HORSE_S,), big=0)
    s, _ = turn(s, dest, draws=(FILLER, HEN_SC), place=HEN_SC)
    assert s.winner == 0 and s.won_card == SAFE_GREENS[0]


def test_victory_check_only_for_the_player_whose_turn_ends() -> None:
    """ "At the end of each player's turn you check if you have fulfilled any of the Victory cards." -
    (VICTORY_CHECK) Bygul becomes Friends of the last Cow when Trjegul picks up; Bygul wins only at the
    end of Bygul's own turn."""
    s = start(("trjegul", "bygul"))
    here = s.ships[0]
    pigs, sheep, cow1, cow2, elsewhere = _near_regions(s, here, 5)
    s = region(s, pigs, tiles=(PIG2,), kittens={1: 1})
    s = region(s, sheep, tiles=(SHEEP2,), kittens={1: 1})
    s = region(s, cow1, tiles=(COW_C,), kittens={1: 1})
    s = region(s, cow2, tiles=(COW_S,), kittens={0: 2, 1: 1})
    s, _ = turn(s, cow2, cats=PickUpCats())
    assert s.friends[cow2] == 1
    assert GAME.outcome(s) is None and s.turn == 1 and s.phase is Phase.JOURNEY
    # Bygul's turn: anything at all, then the check
    dest = next(t for t in reach(s.ships[1], 4) if not s.tiles[t] and t != cow2)
    s, _ = turn(s, dest, cats=PlaceKittens(0))
    assert s.winner == 1 and s.won_card == YELLOW_1
    del elsewhere


def test_victory_does_not_go_to_the_other_player_at_end_of_my_turn() -> None:
    """ "Example 1: You have collected 12 Silfr at the end of your turn" - the other player's 12 Silfr
    are not checked at the end of my turn (VICTORY_CHECK)."""
    s = start(("trjegul", "bygul"))
    s = edit(s, silfr=(0, 12))
    s, _ = turn(s, R("thing-mound"), cats=PlaceKittens(0))
    assert GAME.outcome(s) is None and s.turn == 1
    s, _ = turn(s, R("smiths-vale"), cats=PlaceKittens(0))
    assert s.winner == 1 and s.won_card == RED_SILFR


# --------------------------------------------------------------------------- special abilities


@pytest.mark.parametrize(
    ("tile", "gain"),
    [
        (kind("pig", 2, 1, 0), (2, 0)),
        (kind("pig", 1, 2, 0), (2, 0)),
        (kind("pig", 1, 1, 1), (2, 1)),
        (kind("pig", 1, 0, 2), (0, 2)),
        (kind("pig", 2, 0, 1), (0, 1)),
    ],
)
def test_huginn(tile: int, gain: tuple[int, int]) -> None:
    """ "HUGINN: When you gain 1 Silfr, gain 1 more. If you gain 2 Silfr, you gain no additional.\""""
    s = start(("huginn", "trjegul"))
    s, _ = turn(s, R("frost-fells"), draws=(tile, HEN_BIG), place=tile)
    assert (s.silfr[0], s.scrolls[0]) == gain


@pytest.mark.parametrize(
    ("tile", "gain"),
    [
        (kind("pig", 2, 0, 1), (0, 2)),
        (kind("pig", 1, 0, 2), (0, 2)),
        (kind("pig", 1, 1, 1), (1, 2)),
        (kind("pig", 1, 2, 2), (2, 2)),
        (kind("pig", 2, 1, 0), (1, 0)),
    ],
)
def test_munin(tile: int, gain: tuple[int, int]) -> None:
    """ "MUNIN: When you gain 1 Scroll, gain 1 more. If you gain 2 Scrolls, you gain no additional.\""""
    s = start(("munin", "trjegul"))
    s, _ = turn(s, R("harbour-ness"), draws=(tile, HEN_BIG), place=tile)
    assert (s.silfr[0], s.scrolls[0]) == gain


def test_saehrimnir_steal_gains_the_tile() -> None:
    """ "SÆHRÍMNIR: When you steal a Friend, gain the Siflr [sic] and Scroll on that Friend's tile.
    Stealing: You place more Kittens or a Big Cat to befriend an Animal that is already a Friend of another
    player.\""""
    s = start(("saehrimnir", "trjegul"))
    dest = R("longhouse-green")
    s = region(s, dest, tiles=(HEN_SC,), kittens={1: 1})
    s, _ = turn(s, dest, cats=PlaceKittens(2))
    assert s.friends[dest] == 0
    assert (s.silfr[0], s.scrolls[0]) == (1, 1)


def test_saehrimnir_steal_with_big_cat_gains_every_tile() -> None:
    """ "SÆHRÍMNIR: When you steal a Friend, gain the Siflr [sic] and Scroll on that Friend's tile." -
    with a Big Cat; STEAL: every tile in the region pays."""
    s = start(("saehrimnir", "trjegul"))
    dest = R("longhouse-green")
    s = region(s, dest, tiles=(HEN_SC, PIG_BIG), kittens={1: 2})
    s, _ = turn(s, dest, cats=PlaceBigCat())
    assert s.friends[dest] == 0
    assert (s.silfr[0], s.scrolls[0]) == (3, 3)


def test_saehrimnir_no_gain_without_steal() -> None:
    """ "Stealing: You place more Kittens or a Big Cat to befriend an Animal that is already a Friend of
    another player." - a tie (the Friend keeps it) or a region nobody was Friends with is no steal."""
    s = start(("saehrimnir", "trjegul"))
    tie, free = R("longhouse-green"), R("smiths-vale")
    s = region(s, tie, tiles=(HEN_SC,), kittens={1: 2})
    s = region(s, free, tiles=(PIG_BIG,))
    s, _ = turn(s, tie, cats=PlaceKittens(2))
    assert s.friends[tie] == 1 and (s.silfr[0], s.scrolls[0]) == (0, 0)
    s = edit(s, turn=0, actor=0)
    s, _ = turn(s, free, cats=PlaceKittens(1))
    assert s.friends[free] == 0 and (s.silfr[0], s.scrolls[0]) == (0, 0)


def test_saehrimnir_no_steal_where_a_tie_left_nobody_friends() -> None:
    """ "Stealing: You place more Kittens or a Big Cat to befriend an Animal that is already a Friend of
    another player." - with kitten_tie=NOBODY a tied region has no Friend: winning it is no steal."""
    s = start(("saehrimnir", "trjegul"), kitten_tie=KittenTie.NOBODY)
    dest = R("longhouse-green")
    s = region(s, dest, tiles=(HEN_SC,), kittens={0: 1, 1: 1})
    assert s.friends[dest] == -1
    s, _ = turn(s, dest, cats=PlaceKittens(1))
    assert s.friends[dest] == 0 and (s.silfr[0], s.scrolls[0]) == (0, 0)


def test_saehrimnir_no_gain_when_friendship_falls_to_them() -> None:
    """ "Stealing: You place more Kittens or a Big Cat to befriend an Animal" - Sæhrímnir becoming Friends
    because the other player picks up their Kittens has placed nothing: no steal (STEAL: "by placing
    Cats")."""
    s = start(("trjegul", "saehrimnir"))
    dest = R("thing-mound")
    s = region(s, dest, tiles=(HEN_SC,), kittens={0: 2, 1: 1})
    s, _ = turn(s, dest, cats=PickUpCats())
    assert s.friends[dest] == 1 and (s.silfr[1], s.scrolls[1]) == (0, 0)


def test_other_boards_gain_nothing_by_stealing() -> None:
    """ "Each Cat board has a special ability that only the player with that Cat board can gain the
    benefits from.\""""
    s = start(("trjegul", "saehrimnir"))
    dest = R("thing-mound")
    s = region(s, dest, tiles=(HEN_SC,), kittens={1: 1})
    s, _ = turn(s, dest, cats=PlaceKittens(2))
    assert s.friends[dest] == 0 and (s.silfr, s.scrolls) == ((0, 0), (0, 0))


def test_saehrimnir_cats_without_animals_is_no_steal() -> None:
    """ "Stealing: You place more Kittens or a Big Cat to befriend an Animal that is already a Friend of
    another player." (STEAL: "with animals another player was Friends with") - in a region with only the
    other player's Kittens and no tile, Sæhrímnir places a tile and 2 Kittens: the tile pays once; nobody
    was Friends with that animal before ("4. Gain Silfr, Scrolls and Friends ... You are now Friends with
    that Animal" comes after the Cats). The engine pays the tile twice (1+1 Silfr, 1+1 Scrolls): a
    literal reading of FRIENDS ("decided after every placement ... including tiles placed later") makes
    the other player Friends with the Hen between the tile and the Cats."""
    s = start(("saehrimnir", "trjegul"))
    dest = R("longhouse-green")
    s = region(s, dest, kittens={1: 1})
    s, _ = turn(s, dest, draws=(HEN_SC, PIG2), place=HEN_SC, cats=PlaceKittens(2))
    assert s.friends[dest] == 0
    assert (s.silfr[0], s.scrolls[0]) == (1, 1)


# --------------------------------------------------------------------------- Buff (optional rules)


def _far(here: int, steps: int) -> int:
    """A land region exactly ``steps`` steps from ``here`` (no black line on the way)."""
    return next(t for t in LAND_REGIONS if DIST[here][t] == steps and DIST_NO_BLACK[here][t] == steps)


def test_buff_refused_when_option_off() -> None:
    """ "Buff - Optional Rules: Once during your turn you may Buff." - only with the option."""
    s = start(("trjegul", "bygul"))
    s = edit(s, silfr=(4, 0), scrolls=(4, 0))
    here = s.ships[0]
    assert not any(getattr(m, "buff", NONE) != NONE for m in GAME.legal_moves(s))
    refused(s, Journey(_far(here, 4), buff=SILFR), "Buff")
    s, _ = play(s, Journey(R("thing-mound")))
    refused(s, DrawTiles(3, buff=SCROLLS), "Buff")
    s, _ = play(s, SkipDraw())
    refused(s, PlaceKittens(3, buff=SILFR), "Buff")


def test_buff_journey_one_more_step() -> None:
    """ "A Buff is when you spend 2 Scrolls or 2 Silfr (not one of each) ... When you Journey, move 1 more
    step.\""""
    s = start(("trjegul", "bygul"), buff=True)
    s = edit(s, silfr=(2, 0), scrolls=(3, 0))
    here = s.ships[0]
    far = _far(here, 4)
    assert far not in journeys(s)
    assert Journey(far, buff=SILFR) in GAME.legal_moves(s)
    assert Journey(far, buff=SCROLLS) in GAME.legal_moves(s)
    assert not any(isinstance(m, Journey) and DIST[here][m.region] > 4 for m in GAME.legal_moves(s))
    s, _ = play(s, Journey(far, buff=SILFR))
    assert s.ships[0] == far and s.silfr[0] == 0 and s.scrolls[0] == 3


def test_buff_bygul_five_steps() -> None:
    """ "BYGUL: Step up to 4 steps each turn." with "When you Journey, move 1 more step.\""""
    s = start(("bygul", "trjegul"), buff=True)
    s = edit(s, scrolls=(2, 0))
    here = s.ships[0]
    five = {t for t in LAND_REGIONS if DIST[here][t] == 5}
    assert five
    listed = {m.region for m in GAME.legal_moves(s) if isinstance(m, Journey) and m.buff == SCROLLS}
    assert listed == five


def test_buff_not_one_of_each() -> None:
    """ "A Buff is when you spend 2 Scrolls or 2 Silfr (not one of each)\""""
    s = start(("trjegul", "bygul"), buff=True)
    s = edit(s, silfr=(1, 0), scrolls=(1, 0))
    far = _far(s.ships[0], 4)
    assert not any(getattr(m, "buff", NONE) != NONE for m in GAME.legal_moves(s))
    refused(s, Journey(far, buff=SILFR), "2 Silfr")
    refused(s, Journey(far, buff=SCROLLS), "2 Scrolls")


def test_buff_draw_one_more_tile() -> None:
    """ "When drawing Animal tiles, draw 1 additional. (You still choose 0-1, put the others back into the
    lid).\""""
    s = start(("trjegul", "bygul"), buff=True)
    s = edit(s, scrolls=(2, 0))
    dest = R("thing-mound")
    s, _ = play(s, Journey(dest))
    assert DrawTiles(3, buff=SCROLLS) in GAME.legal_moves(s)
    refused(s, DrawTiles(4, buff=SCROLLS), "Buff")
    lid = s.lid
    s, _ = play(s, DrawTiles(3, buff=SCROLLS), Draw(PIG2), Draw(SHEEP2), Draw(COW_S))
    assert s.scrolls[0] == 0
    s, _ = play(s, PlaceTile(COW_S))
    assert s.lid == _set(lid, COW_S, lid[COW_S] - 1)


def test_buff_sleipnir_draws_four() -> None:
    """ "SLEIPNIR: You may draw 3 Animal tiles instead of 2." with "When drawing Animal tiles, draw 1
    additional.\""""
    s = start(("sleipnir", "trjegul"), buff=True)
    s = edit(s, silfr=(2, 0))
    s, _ = play(s, Journey(sorted(reach(s.ships[0], 1))[0]))
    assert DrawTiles(4, buff=SILFR) in GAME.legal_moves(s)
    s, _ = play(s, DrawTiles(4, buff=SILFR), Draw(PIG2), Draw(SHEEP2), Draw(COW_S), Draw(GOAT_S))
    assert s.silfr[0] == 0 and len(s.drawn) == 4


def test_buff_one_more_kitten() -> None:
    """ "When you place Kittens, place 1 more Kitten.\""""
    s = start(("trjegul", "bygul"), buff=True)
    s = edit(s, silfr=(3, 0))
    dest = R("thing-mound")
    s = at_cats(s, dest)
    assert PlaceKittens(3, buff=SILFR) in GAME.legal_moves(s)
    refused(s, PlaceKittens(4, buff=SILFR), "Buff", "3 Kittens")
    s, _ = play(s, PlaceKittens(3, buff=SILFR))
    assert s.kittens[dest] == (3, 0) and s.silfr[0] == 1


def test_buff_once_per_turn() -> None:
    """ "Once during your turn you may Buff.\""""
    s = start(("trjegul", "bygul"), buff=True)
    s = edit(s, silfr=(4, 0), scrolls=(4, 0))
    far = _far(s.ships[0], 4)
    s, _ = play(s, Journey(far, buff=SILFR))
    assert s.buffed
    assert not any(getattr(m, "buff", NONE) != NONE for m in GAME.legal_moves(s))
    refused(s, DrawTiles(3, buff=SCROLLS), "once")
    s, _ = play(s, SkipDraw())
    refused(s, PlaceKittens(3, buff=SILFR), "once")
    s, _ = play(s, PlaceKittens(1))
    # the next turn of this player may Buff again
    assert not s.buffed


def test_buff_not_needed() -> None:
    """ "to make an action a bit stronger" - BUFF: a Buff is listed only where it allows something the
    player could not do without it (BUFF_NOT_NEEDED otherwise)."""
    s = start(("trjegul", "bygul"), buff=True)
    s = edit(s, silfr=(4, 0))
    near = sorted(reach(s.ships[0], 1))[0]
    v = refused(s, Journey(near, buff=SILFR), "Buff")
    assert v.reason == "BUFF_NOT_NEEDED"
