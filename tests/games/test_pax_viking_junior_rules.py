"""Rule-scenario tests for the Pax Viking Junior engine: one test per rule of the rulebook.

Every test quotes, in its docstring, the rulebook sentence it enforces
(``shared/rulebooks/pax-viking-junior.txt``); a test of a reading the rulebook leaves open also names
the engine's assumption id (``lawspeaker.games.pax_viking_junior.ASSUMPTIONS``).
``docs/rules/pax-viking-junior.md`` maps each rule to these tests.

Positions start from a seeded game set up with fixed cat boards (:func:`started`) whose map is then
cleared (:func:`cleared`) and filled with the helpers below, which keep every tile and Cat accounted
for; every position is checked with ``check_state``.

Reference map regions used below (see ``map.json``): Northwind Point (Bygul's shield), Birch Hills
and Seal Meadows 1 step from it, Elk Forest 2 steps, Eagle Cliffs 3, Smith's Vale 4; Amber Shore is 3
steps over the Troll Bridge ridge (a black line) and 4 around it; Elk Forest and Frost Fells touch
across a black line (2 steps apart, around by the Northern Sea).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lawspeaker.api.rules import RulesApi
from lawspeaker.games import core
from lawspeaker.games.core import Event, LawspeakerError, Rng
from lawspeaker.games.pax_viking_junior import (
    ASSUMPTIONS,
    GAME,
    NONE,
    OPTIONS,
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
    friend_of,
)
from lawspeaker.games.pax_viking_junior.components import (
    REFERENCE,
    REFERENCE_DATA,
    ComponentsError,
    components_for,
    load_components,
)
from lawspeaker.v1 import rules_service_pb2 as pb

R = REFERENCE
IDS = {a.id for a in ASSUMPTIONS}
REGION = {rid: i for i, rid in enumerate(R.region_ids)}
NORTHWIND, BIRCH, SEAL_MEADOWS = REGION["northwind-point"], REGION["birch-hills"], REGION["seal-meadows"]
ELK, FROST, EAGLE, AMBER = (
    REGION["elk-forest"],
    REGION["frost-fells"],
    REGION["eagle-cliffs"],
    REGION["amber-shore"],
)
THING, SMITHS, HONEY = REGION["thing-mound"], REGION["smiths-vale"], REGION["honey-meadows"]
WHALE_SEA = REGION["whale-sea"]
BOARD = {b: i for i, b in enumerate(R.board_ids)}
CARD = {c: i for i, c in enumerate(R.card_ids)}


def tile(animal: str, animals: int, silfr: int, scrolls: int) -> int:
    """The kind of Animal tile that shows ``animals`` x ``animal`` and pays ``silfr``/``scrolls``."""
    a = R.animal_ids.index(animal)
    for t in range(R.tiles):
        if (R.tile_animal[t], R.tile_count[t], R.tile_silfr[t], R.tile_scrolls[t]) == (
            a,
            animals,
            silfr,
            scrolls,
        ):
            return t
    raise KeyError((animal, animals, silfr, scrolls))


PIG2 = tile("pig", 2, 1, 0)
SHEEP2 = tile("sheep", 2, 1, 0)
COW_1_1 = tile("cow", 1, 1, 1)
COW_2_0 = tile("cow", 1, 2, 0)
GOAT_0_2 = tile("goat", 1, 0, 2)
HEN_1_1 = tile("hen", 1, 1, 1)
HORSE_2_2 = tile("horse", 1, 2, 2)

# --------------------------------------------------------------------------- helpers


def started(boards: tuple[str, ...] = ("bygul", "huginn"), seed: int = 1, **options: Any) -> State:
    """A game with these cat boards (seat order), seat 0 starting, set up (first listed move each
    time) up to seat 0's first journey."""
    opts = Options(seat_boards=boards, starting_seat=0, **options)
    state = GAME.new_game(len(boards), opts, Rng.from_seed(seed))
    while state.phase is not Phase.JOURNEY:
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    return state


def check(state: State) -> State:
    assert GAME.check_state(state) == [], GAME.check_state(state)
    return state


def cleared(state: State) -> State:
    """The same game with every tile back in the lid and every Cat back on its cat board."""
    n, comp = state.players, components_for(state.options.components)
    big_left = tuple(comp.board_big_cats[b] for b in state.boards)
    kit_left = tuple(comp.board_kittens[b] for b in state.boards)
    return check(
        state._replace(
            lid=comp.tile_copies,
            tiles=((),) * comp.regions,
            kittens=((0,) * n,) * comp.regions,
            big_cats=(-1,) * comp.regions,
            friends=(-1,) * comp.regions,
            kittens_left=kit_left,
            big_cats_left=big_left,
        )
    )


def with_tile(state: State, region: int, kind: int) -> State:
    lid = list(state.lid)
    lid[kind] -= 1
    tiles = list(state.tiles)
    tiles[region] = (*tiles[region], kind)
    return check(state._replace(lid=tuple(lid), tiles=tuple(tiles)))


def with_kittens(state: State, region: int, seat: int, k: int) -> State:
    """``seat`` places ``k`` Kittens in ``region`` (friendship follows, as after a placement)."""
    rows = list(state.kittens)
    row = list(rows[region])
    row[seat] += k
    rows[region] = tuple(row)
    left = list(state.kittens_left)
    left[seat] -= k
    state = state._replace(kittens=tuple(rows), kittens_left=tuple(left))
    friends = list(state.friends)
    friends[region] = friend_of(state, region, state.friends[region])
    return check(state._replace(friends=tuple(friends)))


def with_big_cat(state: State, region: int, seat: int) -> State:
    big = list(state.big_cats)
    big[region] = seat
    left = list(state.big_cats_left)
    left[seat] -= 1
    friends = list(state.friends)
    friends[region] = seat
    return check(state._replace(big_cats=tuple(big), big_cats_left=tuple(left), friends=tuple(friends)))


def with_coins(state: State, seat: int, silfr: int = 0, scrolls: int = 0) -> State:
    s = list(state.silfr)
    c = list(state.scrolls)
    s[seat], c[seat] = silfr, scrolls
    return check(state._replace(silfr=tuple(s), scrolls=tuple(c)))


def turn_of(state: State, seat: int, region: int) -> State:
    """``seat`` on turn, about to journey from ``region``."""
    ships = list(state.ships)
    ships[seat] = region
    return check(state._replace(turn=seat, actor=seat, ships=tuple(ships)))


def play(state: State, *moves: Any) -> tuple[State, list[Event]]:
    """Apply legal moves through the shared core; every state on the way must be valid."""
    events: list[Event] = []
    for move in moves:
        assert core.validate(GAME, state, move) is None, (move, core.validate(GAME, state, move))
        state, more = core.apply(GAME, state, move)
        check(state)
        events += more
    return state, events


def refused(state: State, move: Any, reason: str) -> str:
    """The move is not listed and is refused for ``reason``; returns the sentence."""
    assert move not in GAME.legal_moves(state)
    violation = core.validate(GAME, state, move)
    assert violation is not None and violation.reason == reason, violation
    assert violation.message[0].isupper() and violation.message.endswith((".", "!"))
    with pytest.raises(core.IllegalMove):
        core.apply(GAME, state, move)
    return violation.message


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def arrive(state: State, region: int) -> State:
    """The player on turn journeys to ``region`` (which must be a listed journey)."""
    return play(state, Journey(region))[0]


def drawing(state: State, *drawn: int) -> State:
    """The player on turn, in DRAW_OFFER, draws the tiles ``drawn`` (explicit outcomes)."""
    state, _ = play(state, DrawTiles(len(drawn)), *(Draw(t) for t in drawn))
    assert state.phase is Phase.CHOOSE_TILE
    return state


# --------------------------------------------------------------------------- components


def test_the_components_are_complete() -> None:
    """Components - 1 Map - 6 Cat Boards - Scrolls - Silfr - 13 Big Cats in 6 different colors - 60
    Kittens in 6 different colors - 54 Animal tiles - 26 Victory cards - 6 Longships
    (assumptions ANIMAL_TILES, VICTORY_CARDS, CAT_BOARDS)"""
    assert R.boards == 6 and len(set(R.board_colours)) == 6
    assert sum(R.board_big_cats) == 13 and sum(R.board_kittens) == 60
    assert R.board_big_cats[BOARD["trjegul"]] == 3
    assert sum(R.tile_copies) == 54
    assert R.cards == 26
    assert [R.card_colour.count(c) for c in ("red", "green", "yellow")] == [2, 12, 12]
    assert len(R.shield_ids) == 6
    assert {"ANIMAL_TILES", "VICTORY_CARDS", "CAT_BOARDS", "REFERENCE_MAP"} <= IDS


def test_the_rulebook_example_card_exists() -> None:
    """Example 2: ... Therefore you have fulfilled the Victory card "2 Pigs, 2 Sheep, 2 Cows"."""
    assert "2 Pigs, 2 Sheep, 2 Cows" in R.card_names
    assert R.card_colour[R.card_names.index("2 Pigs, 2 Sheep, 2 Cows")] == "yellow"
    assert R.card_names[:2] == ("12 Silfr", "12 Scrolls")
    assert R.card_colour[:2] == ("red", "red")


def test_the_map_has_land_regions_sea_white_and_black_lines_rivers_and_six_shields() -> None:
    """Land surrounded by white/black lines are called Land Regions. The blue lines are Rivers and
    does not effect your Journey. (assumptions REFERENCE_MAP, SEA_AND_STEPS)"""
    drawing = GAME.describe().data["map"]
    assert sum(1 for r in drawing["regions"] if r["land"]) == 23
    assert sum(1 for r in drawing["regions"] if not r["land"]) == 8
    lines = {b["line"] for b in drawing["borders"]}
    assert lines == {"white", "black"}
    assert len(drawing["rivers"]) == 2
    for region in drawing["regions"]:
        assert len(region["outline"]) >= 4  # a closed polygon a frontend can draw
        x, y = region["centre"]
        assert 0 < x < drawing["width"] and 0 < y < drawing["height"]
    assert {s["region"] for s in drawing["shields"]} == {
        R.region_ids[R.board_shield[b]] for b in range(R.boards)
    }


def test_the_components_option_replaces_a_section_and_is_validated() -> None:
    """The rulebook's numbers live in data: a game may replace a section with the ``components``
    option, validated like the reference set (assumption REFERENCE_MAP)."""
    rules = dict(REFERENCE_DATA["rules"], kittens_per_turn=3)
    state = started(components=json.dumps({"rules": rules}))
    state = arrive(state, BIRCH)
    state, _ = play(state, SkipDraw())
    assert PlaceKittens(3) in GAME.legal_moves(state)
    with pytest.raises(ComponentsError, match="unknown components section"):
        load_components(json.dumps({"board": {}}))
    with pytest.raises(ComponentsError, match="must be one piece"):
        grid = list(REFERENCE_DATA["map"]["grid"])
        grid[0] = "A" + grid[0][1:]  # a cell of Northwind Point far from the rest
        load_components(json.dumps({"map": dict(REFERENCE_DATA["map"], grid=grid)}))
    with pytest.raises(ComponentsError, match=r"names a cat board|shield"):
        boards = [dict(b, shield="shield-nowhere") for b in REFERENCE_DATA["cat_boards"]["boards"]]
        load_components(json.dumps({"cat_boards": {"boards": boards}}))
    api = RulesApi()
    request = pb.NewGameRequest(game="pax_viking_junior", players=2)
    request.options.pax_viking_junior.components = '{"tiles": {"animals": []}}'
    with pytest.raises(LawspeakerError) as err:
        api.new_game(request)
    assert err.value.reason == "INVALID_COMPONENTS"
    assert err.value.field_violations[0].field == "options.pax_viking_junior.components"


# --------------------------------------------------------------------------- setup


def test_setup_puts_every_animal_tile_face_down_in_the_box_lid() -> None:
    """Put all the Animal tiles into the lid of the box, face down. (assumption HIDDEN_LID_AND_DECKS)"""
    state = GAME.new_game(3, Options(), Rng.from_seed(4))
    assert state.lid == R.tile_copies and state.phase is Phase.SETUP_DEAL
    set_up = started(("bygul", "huginn", "munin"))
    assert sum(set_up.lid) == 54 - 3  # one face-up tile with each Longship


def test_setup_each_player_chooses_a_colour_and_takes_that_cat_board() -> None:
    """Each player chooses a player color and takes the Cat board, Longship, Kittens and Big Cats of
    that color. Place your Kittens and Big Cats on your Cat boards. (assumption SETUP_ORDER)"""
    state = GAME.new_game(3, Options(starting_seat=1), Rng.from_seed(2))
    while state.phase is not Phase.SETUP_BOARD:
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    assert state.actor == 1  # the starting player chooses first
    assert GAME.legal_moves(state) == [ChooseBoard(b) for b in range(6)]
    state, events = play(state, ChooseBoard(BOARD["trjegul"]))
    assert "white" in events[0].text and "Trjegul" in events[0].text
    assert state.kittens_left[1] == 10 and state.big_cats_left[1] == 3
    assert state.actor == 2
    message = refused(state, ChooseBoard(BOARD["trjegul"]), "BOARD_TAKEN")
    assert "Trjegul" in message
    refused(state, ChooseBoard(9), "NO_SUCH_BOARD")


def test_setup_boards_given_by_the_options_must_fit_the_players() -> None:
    """Each player chooses a player color and takes the Cat board ... (option seat_boards)"""
    with pytest.raises(LawspeakerError) as err:
        GAME.new_game(3, Options(seat_boards=("bygul", "munin")), Rng.from_seed(1))
    assert err.value.reason == "INVALID_OPTIONS"
    assert err.value.field_violations[0].field == "seat_boards"
    with pytest.raises(LawspeakerError, match="not a cat board"):
        GAME.new_game(2, Options(seat_boards=("bygul", "garm")), Rng.from_seed(1))
    with pytest.raises(LawspeakerError, match="of their own"):
        GAME.new_game(2, Options(seat_boards=("bygul", "bygul")), Rng.from_seed(1))
    api = RulesApi()
    request = pb.NewGameRequest(game="pax_viking_junior", players=2)
    request.options.pax_viking_junior.starting_seat = 5
    with pytest.raises(LawspeakerError) as err:
        api.new_game(request)
    assert err.value.field_violations[0].field == "options.pax_viking_junior.starting_seat"


def test_setup_each_longship_starts_on_its_shield_with_a_face_up_tile_and_one_cat() -> None:
    """On the Cat board you find a shield in the top right corner. Each player finds their shield on
    the map and places their Longhip [sic] there together with one face up Animal tile and one Kitten
    or if they prefer one Big Cat. (assumption SETUP_ORDER)"""
    state = GAME.new_game(2, Options(seat_boards=("sleipnir", "bygul"), starting_seat=1), Rng.from_seed(3))
    while state.phase is not Phase.SETUP_TILE:
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    assert state.actor == 1 and state.ships == (-1, R.board_shield[BOARD["bygul"]])
    assert GAME.to_act(state).chance
    state, _ = play(state, Draw(PIG2))
    assert state.tiles[NORTHWIND] == (PIG2,)
    assert GAME.legal_moves(state) == [PlaceKittens(1), PlaceBigCat()]
    assert "one Kitten or one Big Cat" in refused(state, PlaceKittens(2), "SETUP_ONE_CAT")
    refused(state, PickUpCats(), "WRONG_STEP")
    state, _ = play(state, PlaceBigCat())
    assert state.big_cats[NORTHWIND] == 1 and state.friends[NORTHWIND] == 1
    sandy = R.board_shield[BOARD["sleipnir"]]
    assert state.ships[0] == sandy and state.phase is Phase.SETUP_TILE and state.actor == 0
    state, _ = play(state, Draw(COW_1_1), PlaceKittens(1))
    assert state.kittens[sandy] == (1, 0) and state.friends[sandy] == 0
    assert state.phase is Phase.JOURNEY and state.turn == 1  # the starting player begins


def test_setup_deals_no_coins_and_ignores_special_abilities() -> None:
    """(No coins are dealt out and Special abilities are ignored during the Setup)."""
    state = GAME.new_game(2, Options(seat_boards=("huginn", "munin"), starting_seat=0), Rng.from_seed(3))
    while state.phase is not Phase.SETUP_TILE:
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    state, _ = play(state, Draw(HEN_1_1), PlaceKittens(1), Draw(HEN_1_1), PlaceKittens(1))
    assert state.phase is Phase.JOURNEY
    assert state.silfr == (0, 0) and state.scrolls == (0, 0)


def test_setup_lays_out_the_red_cards_and_deals_two_green_and_one_yellow() -> None:
    """Find the 2 red Victory cards and place them face up next to the map board. Shuffle the green
    and yellow Victory cards separately and place 2 green and 1 yellow face up next to each other
    (assumption HIDDEN_LID_AND_DECKS)"""
    state = GAME.new_game(2, Options(), Rng.from_seed(5))
    assert state.cards == (CARD["red-silfr"], CARD["red-scrolls"]) and state.phase is Phase.SETUP_DEAL
    chance = GAME.chance(state)
    assert chance is not None and len(chance.outcomes) == 12
    assert all(abs(o.probability - 1 / 12) < 1e-12 for o in chance.outcomes)
    assert {R.card_colour[o.move.outcome] for o in chance.outcomes} == {"green"}  # type: ignore[attr-defined]
    state, events = play(state, Draw(CARD["green-4"]))
    assert events[0].kind == "VICTORY_CARD" and "2 Sheep, 1 Horse, 1 Hen" in events[0].text
    assert len(GAME.chance(state).outcomes) == 11  # type: ignore[union-attr]
    refused(state, Draw(CARD["green-4"]), "NO_SUCH_OUTCOME")
    state, _ = play(state, Draw())
    chance = GAME.chance(state)
    assert chance is not None and {R.card_colour[o.move.outcome] for o in chance.outcomes} == {"yellow"}  # type: ignore[attr-defined]
    state, _ = play(state, Draw(CARD["yellow-1"]))
    assert [R.card_colour[c] for c in state.cards] == ["red", "red", "green", "green", "yellow"]
    assert state.phase is Phase.SETUP_START


def test_the_longer_variant_lays_out_two_green_and_two_yellow_and_no_red() -> None:
    """Victory Cards Variant: For a longer game with an increased tension on the map, play without
    the red Scroll/Silfr cards. Instead during setup reveal 2 green and 2 yellow Victory cards."""
    state = started(victory_cards=VictoryCards.LONGER)
    assert [R.card_colour[c] for c in state.cards] == ["green", "green", "yellow", "yellow"]
    state = with_coins(cleared(state), 0, silfr=30, scrolls=30)
    state, events = play(arrive(state, BIRCH), SkipDraw(), PlaceKittens(0))
    assert state.phase is Phase.JOURNEY and "VICTORY" not in kinds(events)  # no red card to fulfil


def test_the_starting_player_is_an_option_or_drawn_at_random() -> None:
    """The player who most recently petted a cat is the starting player. If you play multiple games
    in a row, the previous winner starts. (option starting_seat)"""
    state = GAME.new_game(4, Options(), Rng.from_seed(8))
    while state.phase is Phase.SETUP_DEAL:
        state, _ = play(state, Draw())
    assert state.phase is Phase.SETUP_START and GAME.to_act(state).chance
    chance = GAME.chance(state)
    assert chance is not None and [o.move for o in chance.outcomes] == [Draw(s) for s in range(4)]
    assert all(o.probability == 0.25 for o in chance.outcomes)
    state, _ = play(state, Draw(2))
    assert state.start == 2 and state.phase is Phase.SETUP_BOARD and state.actor == 2
    fixed = started(("bygul", "huginn", "munin"))
    assert fixed.turn == 0
    state = GAME.new_game(3, Options(starting_seat=2), Rng.from_seed(8))
    while state.phase is Phase.SETUP_DEAL:
        state, _ = play(state, Draw())
    assert state.phase is Phase.SETUP_BOARD and state.start == 2


# --------------------------------------------------------------------------- 1. journey


def test_journey_one_to_three_steps_each_white_line_one_step() -> None:
    """At the start of your turn, Journey your Longship 1, 2 or 3 steps. Crossing a white line counts
    as 1 step. (assumption SEA_AND_STEPS)"""
    state = turn_of(cleared(started(("munin", "huginn"))), 0, NORTHWIND)
    listed = {m.region for m in GAME.legal_moves(state)}  # type: ignore[union-attr]
    assert listed == {r for r in R.land_regions if r != NORTHWIND and R.dist[NORTHWIND][r] <= 3}
    assert {BIRCH, SEAL_MEADOWS, ELK, EAGLE} <= listed and SMITHS not in listed and AMBER not in listed
    message = refused(state, Journey(SMITHS), "TOO_FAR")
    assert "4 steps away" in message and "white line" in message
    state, events = play(state, Journey(EAGLE))
    assert state.ships[0] == EAGLE and events[0].kind == "JOURNEY" and "(3 steps)" in events[0].text


def test_journey_cannot_cross_a_black_line() -> None:
    """You can not cross a black line (assumption SEA_AND_STEPS)"""
    assert (min(ELK, FROST), max(ELK, FROST)) in {
        (min(REGION[a], REGION[b]), max(REGION[a], REGION[b]))
        for a, b in REFERENCE_DATA["map"]["black_lines"]
    }
    assert R.dist[ELK][FROST] == 2  # around the ridge by the Northern Sea, not 1 across it
    # one step a turn, on the map without its two islands (which lie 2 steps from any land)
    boards = [dict(b, journey_steps=1) for b in REFERENCE_DATA["cat_boards"]["boards"]]
    islands = {"V": "c", "W": "g"}
    grid = ["".join(islands.get(ch, ch) for ch in row) for row in REFERENCE_DATA["map"]["grid"]]
    regions = [r for r in REFERENCE_DATA["map"]["regions"] if r["code"] not in islands]
    small = dict(REFERENCE_DATA["map"], grid=grid, regions=regions)
    custom = json.dumps({"cat_boards": {"boards": boards}, "map": small})
    state = started(("munin", "huginn"), components=custom)
    ids = load_components(custom).region_ids
    elk, frost = ids.index("elk-forest"), ids.index("frost-fells")
    state = turn_of(cleared(state), 0, elk)
    assert Journey(frost) not in GAME.legal_moves(state)
    assert "black line" in refused(state, Journey(frost), "BLACK_LINE")
    # on the reference map: Amber Shore is 3 steps from Northwind Point over the Troll Bridge ridge
    state = turn_of(cleared(started(("munin", "huginn"))), 0, NORTHWIND)
    assert (R.dist_open[NORTHWIND][AMBER], R.dist[NORTHWIND][AMBER]) == (3, 4)
    message = refused(state, Journey(AMBER), "BLACK_LINE")
    assert "over the black line would be 3 steps, and the way around it is 4 steps" in message


def test_journey_must_end_on_a_land_region() -> None:
    """you must end your Journey on a Land Region. (assumption SEA_AND_STEPS)"""
    state = turn_of(cleared(started()), 0, NORTHWIND)
    assert all(R.land[m.region] for m in GAME.legal_moves(state))  # type: ignore[union-attr]
    assert R.dist[NORTHWIND][WHALE_SEA] == 1
    assert "Land Region" in refused(state, Journey(WHALE_SEA), "NOT_LAND")
    refused(state, Journey(99), "NO_SUCH_REGION")
    # the sea is sailed through: Seal Skerry is an island, reached over the Sunset Sea
    skerry = REGION["seal-skerry"]
    assert all(R.dist[skerry][r] >= 2 for r in R.land_regions if r != skerry)


def test_journey_must_move_the_longship() -> None:
    """Journey your Longship 1, 2 or 3 steps. (assumption SEA_AND_STEPS: it ends elsewhere)"""
    state = turn_of(cleared(started()), 0, BIRCH)
    assert "journey 1 to 4 steps" in refused(state, Journey(BIRCH), "MUST_JOURNEY")


def test_a_journey_out_and_back_with_the_option() -> None:
    """Journey your Longship 1, 2 or 3 steps. (assumption SEA_AND_STEPS, option return_journeys: the
    other reading, where 2 steps out and back leave the Longship where it was)"""
    state = turn_of(cleared(started(return_journeys=True)), 0, BIRCH)
    assert Journey(BIRCH) in GAME.legal_moves(state)
    state, events = play(state, Journey(BIRCH))
    assert state.ships[0] == BIRCH and "out from Birch Hills and back (2 steps)" in events[0].text
    assert state.phase is Phase.DRAW_OFFER  # an empty region: the player may draw there again


def test_rivers_do_not_affect_the_journey() -> None:
    """The blue lines are Rivers and does not effect your Journey."""
    no_rivers = load_components(json.dumps({"map": dict(REFERENCE_DATA["map"], rivers=[])}))
    assert no_rivers.dist == R.dist
    assert R.drawing["rivers"] and not no_rivers.drawing["rivers"]


# --------------------------------------------------------------------------- 2. draw and place a tile


def test_draw_two_tiles_in_an_empty_region_and_place_one() -> None:
    """If your Longship is in an empty Region or in a Region where you have a Friend and you want to,
    draw and reveal 2 Animal tiles. Place one of them face up next to your Longship in the Region.
    Return the unused one(s) back face down into the box lid. (assumption EMPTY_REGION)"""
    state = arrive(turn_of(cleared(started()), 0, NORTHWIND), BIRCH)
    assert state.phase is Phase.DRAW_OFFER
    assert GAME.legal_moves(state) == [DrawTiles(2), SkipDraw()]
    state, events = play(state, DrawTiles(2))
    assert state.phase is Phase.DRAWING and GAME.to_act(state).chance and state.actor == 0
    state, events = play(state, Draw(PIG2), Draw(COW_1_1))
    assert state.drawn == (PIG2, COW_1_1) and kinds(events) == ["TILE_DRAWN", "TILE_DRAWN"]
    assert "2 Pigs" in events[0].text  # drawn tiles are revealed to everyone
    before = state.lid
    state, events = play(state, PlaceTile(COW_1_1))
    assert state.tiles[BIRCH] == (COW_1_1,) and state.drawn == ()
    assert state.lid[PIG2] == before[PIG2] + 1 and state.lid[COW_1_1] == before[COW_1_1]
    assert kinds(events) == ["TILE_PLACED", "TILES_RETURNED"] and state.phase is Phase.PLACE_CATS


def test_draw_or_put_both_back() -> None:
    """If you want, draw 2 Animal tiles from the box lid, choose 1 to place next to your Longship or
    put both back to the box."""
    state = drawing(arrive(turn_of(cleared(started()), 0, NORTHWIND), BIRCH), PIG2, SHEEP2)
    assert GAME.legal_moves(state) == [PlaceTile(PIG2), PlaceTile(SHEEP2), ReturnTiles()]
    assert "you drew" in refused(state, PlaceTile(COW_1_1), "TILE_NOT_DRAWN")
    state, events = play(state, ReturnTiles())
    assert state.tiles[BIRCH] == () and state.lid == R.tile_copies and kinds(events) == ["TILES_RETURNED"]
    state = arrive(turn_of(cleared(started()), 0, NORTHWIND), BIRCH)
    state, events = play(state, SkipDraw())
    assert state.phase is Phase.PLACE_CATS and kinds(events) == ["DRAW_SKIPPED"]


def test_draws_are_uniform_over_the_tiles_in_the_lid() -> None:
    """Put all the Animal tiles into the lid of the box, face down. ... draw and reveal 2 Animal
    tiles. (assumption HIDDEN_LID_AND_DECKS)"""
    state, _ = play(arrive(turn_of(cleared(started()), 0, NORTHWIND), BIRCH), DrawTiles(2))
    chance = GAME.chance(state)
    assert chance is not None
    probabilities = {o.move.outcome: o.probability for o in chance.outcomes}  # type: ignore[attr-defined]
    assert probabilities[COW_1_1] == pytest.approx(2 / 54) and probabilities[PIG2] == pytest.approx(1 / 54)
    state, _ = play(state, Draw(HORSE_2_2))
    chance = GAME.chance(state)
    assert chance is not None and HORSE_2_2 not in [o.move.outcome for o in chance.outcomes]  # type: ignore[attr-defined]
    assert "tile 2 of 2" in chance.description


def test_draw_in_a_region_where_you_have_a_friend() -> None:
    """... or in a Region where you have a Friend ... (assumption EMPTY_REGION)"""
    base = with_kittens(with_tile(cleared(started()), BIRCH, PIG2), BIRCH, 0, 1)
    state = arrive(turn_of(base, 0, NORTHWIND), BIRCH)
    assert state.phase is Phase.DRAW_OFFER
    state = drawing(state, SHEEP2, COW_1_1)
    state, _ = play(state, PlaceTile(SHEEP2))
    assert state.tiles[BIRCH] == (PIG2, SHEEP2)  # a region may hold several tiles


def test_no_draw_where_another_player_is_friends() -> None:
    """If your Longship is in an empty Region or in a Region where you have a Friend ... draw
    (assumption EMPTY_REGION)"""
    base = with_kittens(with_tile(cleared(started()), BIRCH, PIG2), BIRCH, 1, 1)
    state, events = play(turn_of(base, 0, NORTHWIND), Journey(BIRCH))
    assert state.phase is Phase.PLACE_CATS and "NO_DRAW" in kinds(events)
    assert "Player 2 is Friends" in events[-1].text
    assert "empty Region" in refused(state, DrawTiles(2), "CANNOT_DRAW_HERE")
    nobody = with_tile(cleared(started()), BIRCH, PIG2)  # a tile with no Cats: not empty, no Friend
    state, events = play(turn_of(nobody, 0, NORTHWIND), Journey(BIRCH))
    assert state.phase is Phase.PLACE_CATS and "nobody is Friends" in events[-1].text


def test_a_short_lid_draws_what_is_left_and_an_empty_lid_none() -> None:
    """draw and reveal 2 Animal tiles (assumption SHORT_LID)"""
    base = cleared(started())
    full = base.lid
    for kind in range(R.tiles):  # every tile but one Pig to Amber Shore
        for _ in range(full[kind] - (1 if kind == PIG2 else 0)):
            base = with_tile(base, AMBER, kind)
    state = arrive(turn_of(base, 0, NORTHWIND), BIRCH)
    assert GAME.legal_moves(state) == [DrawTiles(1), SkipDraw()]
    refused(state, DrawTiles(2), "LID_TOO_SMALL")
    empty = with_tile(base, AMBER, PIG2)
    state, events = play(turn_of(empty, 0, NORTHWIND), Journey(BIRCH))
    assert state.phase is Phase.PLACE_CATS and "box lid is empty" in events[-1].text
    assert "empty" in refused(state, DrawTiles(2), "LID_EMPTY")


# --------------------------------------------------------------------------- 3. place cats


def test_place_zero_one_or_two_kittens_or_one_big_cat() -> None:
    """Place Cats next to your Longship. You can place 0, 1 or 2 of your Kittens or 1 Big Cat.
    (assumption CATS_WITHOUT_TILE)"""
    state, _ = play(arrive(turn_of(cleared(started()), 0, NORTHWIND), BIRCH), SkipDraw())
    assert GAME.legal_moves(state) == [PlaceKittens(0), PlaceKittens(1), PlaceKittens(2), PlaceBigCat()]
    assert "0, 1 or 2" in refused(state, PlaceKittens(3), "TOO_MANY_KITTENS")
    refused(state, PlaceKittens(-1), "TOO_MANY_KITTENS")
    after, events = play(state, PlaceKittens(2))
    assert after.kittens[BIRCH][0] == 2 and after.kittens_left[0] == 8
    assert "2 Kittens" in events[0].text
    after, _ = play(state, PlaceKittens(0))
    assert after.kittens[BIRCH] == (0, 0) and after.phase is Phase.JOURNEY and after.turn == 1


def test_kittens_come_from_the_cat_board() -> None:
    """Place your Kittens and Big Cats on your Cat boards. ... You can place 0, 1 or 2 of your Kittens"""
    base = cleared(started())
    base = with_kittens(base, AMBER, 0, 9)
    state, _ = play(arrive(turn_of(base, 0, NORTHWIND), BIRCH), SkipDraw())
    assert PlaceKittens(1) in GAME.legal_moves(state) and PlaceKittens(2) not in GAME.legal_moves(state)
    assert "Only 1 Kitten" in refused(state, PlaceKittens(2), "NOT_ENOUGH_KITTENS")
    no_big = with_big_cat(with_big_cat(cleared(started()), AMBER, 0), EAGLE, 0)
    state, _ = play(arrive(turn_of(no_big, 0, NORTHWIND), BIRCH), SkipDraw())
    refused(state, PlaceBigCat(), "NO_BIG_CAT_LEFT")


def test_pick_up_all_your_cats_instead_of_placing() -> None:
    """You may if you want to, pick up all your Cats in the Region instead of placing any Cats.
    (assumption CATS_WITHOUT_TILE)"""
    base = with_kittens(with_kittens(with_tile(cleared(started()), BIRCH, PIG2), BIRCH, 0, 3), BIRCH, 1, 2)
    state = arrive(turn_of(base, 0, NORTHWIND), BIRCH)
    state, _ = play(state, SkipDraw())
    assert PickUpCats() in GAME.legal_moves(state)
    state, events = play(state, PickUpCats())
    assert state.kittens[BIRCH] == (0, 2) and state.kittens_left[0] == 10
    assert kinds(events)[:2] == ["CATS_PICKED_UP", "FRIENDS"] and state.friends[BIRCH] == 1
    empty, _ = play(arrive(turn_of(cleared(started()), 0, NORTHWIND), BIRCH), SkipDraw())
    refused(empty, PickUpCats(), "NO_CATS_TO_PICK_UP")


def test_a_big_cat_sends_every_kitten_in_the_region_home() -> None:
    """Big Cats: If you place a Big Cat, return all Kittens from that Region back to each player's Cat
    board. (assumption BIG_CAT_HOME)"""
    base = with_kittens(with_kittens(with_tile(cleared(started()), BIRCH, PIG2), BIRCH, 1, 2), BIRCH, 0, 1)
    state, _ = play(arrive(turn_of(base, 0, NORTHWIND), BIRCH), PlaceBigCat())
    assert state.kittens[BIRCH] == (0, 0) and state.big_cats[BIRCH] == 0
    assert state.kittens_left == (10, 10) and state.big_cats_left[0] == 1
    assert state.friends[BIRCH] == 0


def test_a_big_cat_is_never_moved_and_closes_the_region() -> None:
    """A placed Big Cat cannot be moved again during the game. No new Kittens or Big Cats can be added
    to a Region with a Big Cat in it."""
    base = with_big_cat(with_tile(cleared(started()), BIRCH, PIG2), BIRCH, 0)
    state = arrive(turn_of(base, 0, NORTHWIND), BIRCH)
    state, _ = play(state, SkipDraw())
    assert GAME.legal_moves(state) == [PlaceKittens(0)]
    assert "Big Cat cannot be moved" in refused(state, PickUpCats(), "NO_CATS_TO_PICK_UP")
    assert "Region with a Big Cat" in refused(state, PlaceKittens(1), "BIG_CAT_IN_REGION")
    refused(state, PlaceBigCat(), "BIG_CAT_IN_REGION")
    other = with_big_cat(with_tile(cleared(started()), BIRCH, PIG2), BIRCH, 1)
    state = arrive(turn_of(other, 0, NORTHWIND), BIRCH)
    assert state.phase is Phase.PLACE_CATS  # Player 2 is Friends there: no draw
    assert GAME.legal_moves(state) == [PlaceKittens(0)]


# --------------------------------------------------------------------------- 4. gains and friends


def test_gain_the_tile_when_a_tile_and_a_cat_were_placed() -> None:
    """When you have placed an Animal tile and at least 1 Cat in a Region you gain the Silfr and
    Scrolls shown on the bottom of the Animal tile. (assumption GAIN)"""
    start = arrive(turn_of(cleared(started(("bygul", "huginn"))), 0, NORTHWIND), BIRCH)
    chosen, _ = play(drawing(start, HORSE_2_2, PIG2), PlaceTile(HORSE_2_2))
    state, events = play(chosen, PlaceKittens(1))
    assert (state.silfr[0], state.scrolls[0]) == (2, 2)
    assert "gains 2 Silfr and 2 Scrolls" in next(e.text for e in events if e.kind == "GAINED")
    state, _ = play(chosen, PlaceBigCat())
    assert (state.silfr[0], state.scrolls[0]) == (2, 2)
    state, events = play(chosen, PlaceKittens(0))  # a tile but no Cat: nothing
    assert (state.silfr[0], state.scrolls[0]) == (0, 0) and "GAINED" not in kinds(events)
    # Cats but no tile this turn: nothing either
    state, _ = play(start, SkipDraw(), PlaceKittens(2))
    assert (state.silfr[0], state.scrolls[0]) == (0, 0)


def test_picking_up_gains_nothing() -> None:
    """When you have placed an Animal tile and at least 1 Cat ... you gain (assumption GAIN)"""
    base = with_kittens(with_tile(cleared(started()), BIRCH, PIG2), BIRCH, 0, 1)
    state = drawing(arrive(turn_of(base, 0, NORTHWIND), BIRCH), HORSE_2_2, COW_1_1)
    state, events = play(state, PlaceTile(HORSE_2_2), PickUpCats())
    assert (state.silfr[0], state.scrolls[0]) == (0, 0) and "GAINED" not in kinds(events)


def test_friends_with_the_animals_of_the_region_by_most_kittens() -> None:
    """The Animal on the tile is now your Friend as long as you have the most Kittens or a Big Cat in
    that Region. ... Why place Kittens? The player with the most Kittens becomes Friends with the
    Animal(s) on the Animal tile in the Region. (assumption FRIENDS)"""
    base = with_kittens(with_tile(cleared(started()), BIRCH, PIG2), BIRCH, 1, 1)
    assert base.friends[BIRCH] == 1
    state, _ = play(turn_of(base, 0, NORTHWIND), Journey(BIRCH), PlaceKittens(2))
    assert state.friends[BIRCH] == 0  # 2 Kittens beat 1
    # the friendship covers every tile in the region, also one placed later
    later = with_tile(state, BIRCH, SHEEP2)
    assert later.friends[BIRCH] == 0


def test_stealing_a_friend() -> None:
    """Stealing: You place more Kittens or a Big Cat to befriend an Animal that is already a Friend of
    another player. You gain its friendship, and the other player loses it. (assumption STEAL)"""
    base = with_kittens(with_tile(cleared(started()), BIRCH, PIG2), BIRCH, 1, 1)
    state, events = play(turn_of(base, 0, NORTHWIND), Journey(BIRCH), PlaceKittens(2))
    stolen = next(e for e in events if e.kind == "FRIEND_STOLEN")
    assert "stole the friendship of the animals in Birch Hills from Player 2" in stolen.text
    assert state.friends[BIRCH] == 0
    base = with_kittens(with_tile(cleared(started()), BIRCH, PIG2), BIRCH, 1, 2)
    state, events = play(turn_of(base, 0, NORTHWIND), Journey(BIRCH), PlaceBigCat())
    assert state.friends[BIRCH] == 0 and "FRIEND_STOLEN" in kinds(events)


def test_a_tie_of_kittens_leaves_the_friend_in_place() -> None:
    """Stealing: You place more Kittens or a Big Cat to befriend an Animal that is already a Friend of
    another player. (assumption KITTEN_TIE, default FRIEND_KEEPS)"""
    base = with_kittens(with_tile(cleared(started()), BIRCH, PIG2), BIRCH, 1, 2)
    state, events = play(turn_of(base, 0, NORTHWIND), Journey(BIRCH), PlaceKittens(2))
    assert state.kittens[BIRCH] == (2, 2) and state.friends[BIRCH] == 1
    assert "FRIEND_STOLEN" not in kinds(events)
    # the tied players without the Friend: nobody (the Friend picked up)
    three = with_kittens(
        with_kittens(with_tile(cleared(started(("bygul", "huginn", "munin"))), BIRCH, PIG2), BIRCH, 1, 2),
        BIRCH,
        2,
        1,
    )
    three = with_kittens(three, BIRCH, 0, 3)
    assert three.friends[BIRCH] == 0
    state, _ = play(turn_of(three, 0, NORTHWIND), Journey(BIRCH), SkipDraw(), PickUpCats())
    assert state.friends[BIRCH] == 1  # 2 Kittens against 1: Player 2 becomes Friends without acting


def test_a_tie_of_kittens_means_nobody_with_the_option() -> None:
    """The player with the most Kittens becomes Friends ... (assumption KITTEN_TIE, option
    kitten_tie=NOBODY)"""
    base = cleared(started(kitten_tie=KittenTie.NOBODY))
    base = with_kittens(with_tile(base, BIRCH, PIG2), BIRCH, 1, 2)
    state, events = play(turn_of(base, 0, NORTHWIND), Journey(BIRCH), PlaceKittens(2))
    assert state.friends[BIRCH] == -1 and "FRIENDSHIP_LOST" in kinds(events)
    assert "kitten_tie" in {o.name for o in OPTIONS}


# --------------------------------------------------------------------------- 5. victory check


def test_twelve_silfr_at_the_end_of_your_turn_wins() -> None:
    """Example 1: You have collected 12 Silfr at the end of your turn, therefore you have fulfilled
    the Victory card "12 Silfr". (assumption VICTORY_CHECK)"""
    base = with_coins(cleared(started()), 0, silfr=10)
    state = drawing(arrive(turn_of(base, 0, NORTHWIND), BIRCH), COW_2_0, PIG2)
    state, events = play(state, PlaceTile(COW_2_0), PlaceKittens(1))
    assert state.phase is Phase.OVER and state.winner == 0 and state.won_card == CARD["red-silfr"]
    assert events[-1].kind == "VICTORY" and "12 Silfr" in events[-1].text
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0,) and "12 Silfr" in outcome.summary
    assert GAME.legal_moves(state) == ()
    assert core.validate(GAME, state, Journey(BIRCH)) == core.GAME_OVER


def test_twelve_scrolls_fulfil_the_other_red_card() -> None:
    """If you have for example collected 12 Scrolls or 12 Silfr at the end of your turn, you win by
    fulfilling one of the red Victory cards."""
    base = with_coins(cleared(started()), 0, scrolls=12)
    state, _ = play(turn_of(base, 0, NORTHWIND), Journey(BIRCH), SkipDraw(), PlaceKittens(0))
    assert state.winner == 0 and state.won_card == CARD["red-scrolls"]


def test_rulebook_example_two_fulfils_two_pigs_two_sheep_two_cows() -> None:
    """Example 2: You have the most Kittens or a Big Cat in a Region with 2 Pigs, one with 2 Sheep and
    2 different Regions with 1 Cow in each. Therefore you have fulfilled the Victory card "2 Pigs, 2
    Sheep, 2 Cows". ... The green and yellow Victory cards show a number of Animal icons. Be Friends
    with all the Animals on one card to fulfill that Victory card."""
    base = started(victory_cards=VictoryCards.LONGER)
    yellow = CARD["yellow-1"]
    cards = (CARD["green-5"], CARD["green-7"], yellow, CARD["yellow-3"])  # none of the others is near
    base = check(cleared(base)._replace(cards=cards))
    base = with_big_cat(with_tile(base, ELK, PIG2), ELK, 0)
    base = with_kittens(with_tile(base, BIRCH, SHEEP2), BIRCH, 0, 1)
    base = with_kittens(with_tile(base, THING, COW_1_1), THING, 0, 2)
    one_cow_short = turn_of(base, 0, NORTHWIND)
    state, _ = play(one_cow_short, Journey(SEAL_MEADOWS), SkipDraw(), PlaceKittens(0))
    assert state.phase is Phase.JOURNEY  # Friends with 2 Pigs, 2 Sheep and 1 Cow: not yet
    state = drawing(arrive(one_cow_short, SEAL_MEADOWS), COW_2_0, HEN_1_1)
    state, events = play(state, PlaceTile(COW_2_0), PlaceKittens(1))
    assert state.winner == 0 and state.won_card == yellow
    assert "2 Pigs, 2 Sheep, 2 Cows" in events[-1].text


def test_only_the_player_whose_turn_ends_checks() -> None:
    """At the end of each player's turn you check if you have fulfilled any of the Victory cards.
    (assumption VICTORY_CHECK)"""
    base = with_coins(cleared(started()), 1, silfr=12)  # Player 2 has 12 Silfr
    state, _ = play(turn_of(base, 0, NORTHWIND), Journey(BIRCH), SkipDraw(), PlaceKittens(0))
    assert state.phase is Phase.JOURNEY and state.turn == 1  # not Player 1's win, not yet Player 2's
    state, _ = play(state, GAME.legal_moves(state)[0])
    while state.phase is not Phase.PLACE_CATS:
        state, _ = play(state, SkipDraw() if state.phase is Phase.DRAW_OFFER else GAME.legal_moves(state)[0])
    state, _ = play(state, PlaceKittens(0))
    assert state.winner == 1


def test_friends_lost_by_others_count_at_the_end_of_your_turn() -> None:
    """The Animals that you are Friends with on the map and the Silfr/Scrolls you have by your Cat
    board is what you count towards fulfilling any of the Victory cards"""
    cards = (CARD["red-silfr"], CARD["red-scrolls"], CARD["green-1"], CARD["green-2"], CARD["yellow-1"])
    base = check(cleared(started())._replace(cards=cards))
    base = with_kittens(with_tile(base, ELK, PIG2), ELK, 0, 1)
    base = with_kittens(with_tile(base, BIRCH, tile("sheep", 1, 1, 1)), BIRCH, 0, 1)
    base = with_kittens(base, SEAL_MEADOWS, 1, 1)
    base = with_kittens(with_tile(base, SEAL_MEADOWS, COW_1_1), SEAL_MEADOWS, 0, 2)
    # Player 1 is Friends with 2 Pigs, 1 Sheep, 1 Cow: "2 Pigs, 1 Sheep, 1 Cow"
    state, _ = play(turn_of(base, 0, NORTHWIND), Journey(SEAL_MEADOWS), SkipDraw(), PlaceKittens(0))
    assert state.winner == 0 and state.won_card == CARD["green-1"]
    # picking up the Cow's Kittens gives that friendship to Player 2 first
    state, _ = play(turn_of(base, 0, NORTHWIND), Journey(SEAL_MEADOWS), SkipDraw(), PickUpCats())
    assert state.phase is Phase.JOURNEY and state.friends[SEAL_MEADOWS] == 1


# --------------------------------------------------------------------------- special abilities


def test_bygul_steps_up_to_four() -> None:
    """BYGUL: Step up to 4 steps each turn."""
    bygul = turn_of(cleared(started(("bygul", "huginn"))), 0, NORTHWIND)
    assert Journey(AMBER) in GAME.legal_moves(bygul)  # 4 steps
    assert REGION["whale-rocks"] not in {m.region for m in GAME.legal_moves(bygul)}  # type: ignore[union-attr]
    other = turn_of(cleared(started(("huginn", "bygul"))), 0, NORTHWIND)
    assert "more than your 3" in refused(other, Journey(AMBER), "BLACK_LINE")
    assert "up to 3 steps" in refused(other, Journey(SMITHS), "TOO_FAR")


@pytest.mark.parametrize(
    ("kind", "silfr"),
    [(COW_1_1, 2), (COW_2_0, 2), (GOAT_0_2, 0), (PIG2, 2)],
)
def test_huginn_gains_one_more_silfr_on_a_gain_of_one(kind: int, silfr: int) -> None:
    """HUGINN: When you gain 1 Silfr, gain 1 more. If you gain 2 Silfr, you gain no additional.
    (assumption HUGINN_MUNIN)"""
    state = drawing(arrive(turn_of(cleared(started(("huginn", "bygul"))), 0, EAGLE), THING), kind, HEN_1_1)
    state, events = play(state, PlaceTile(kind), PlaceKittens(1))
    assert state.silfr[0] == silfr and state.scrolls[0] == R.tile_scrolls[kind]
    if R.tile_silfr[kind] == 1:
        assert "Huginn adds 1 Silfr" in next(e.text for e in events if e.kind == "GAINED")


@pytest.mark.parametrize(("kind", "scrolls"), [(COW_1_1, 2), (GOAT_0_2, 2), (COW_2_0, 0)])
def test_munin_gains_one_more_scroll_on_a_gain_of_one(kind: int, scrolls: int) -> None:
    """MUNIN: When you gain 1 Scroll, gain 1 more. If you gain 2 Scrolls, you gain no additional.
    (assumption HUGINN_MUNIN)"""
    state = drawing(arrive(turn_of(cleared(started(("munin", "bygul"))), 0, EAGLE), THING), kind, HEN_1_1)
    state, _ = play(state, PlaceTile(kind), PlaceKittens(1))
    assert state.scrolls[0] == scrolls and state.silfr[0] == R.tile_silfr[kind]


def test_sleipnir_may_draw_three_and_place_only_one() -> None:
    """SLEIPNIR: You may draw 3 Animal tiles instead of 2. You may only choose one to place on the map.
    Return the unused face down to the box lid."""
    state = arrive(turn_of(cleared(started(("sleipnir", "bygul"))), 0, EAGLE), THING)
    assert GAME.legal_moves(state) == [DrawTiles(2), DrawTiles(3), SkipDraw()]
    state = drawing(state, PIG2, SHEEP2, COW_1_1)
    assert GAME.legal_moves(state) == [PlaceTile(PIG2), PlaceTile(SHEEP2), PlaceTile(COW_1_1), ReturnTiles()]
    state, _ = play(state, PlaceTile(SHEEP2))
    assert state.tiles[THING] == (SHEEP2,) and sum(state.lid) == 53
    other = arrive(turn_of(cleared(started(("bygul", "sleipnir"))), 0, NORTHWIND), BIRCH)
    assert "Sleipnir may draw 2 or 3" in refused(other, DrawTiles(3), "WRONG_NUMBER_OF_TILES")


def test_saehrimnir_gains_the_stolen_friends_tile() -> None:
    """SÆHRÍMNIR: When you steal a Friend, gain the Siflr [sic] and Scroll on that Friend's tile.
    Stealing: You place more Kittens or a Big Cat to befriend an Animal that is already a Friend of
    another player. (assumption STEAL)"""
    base = cleared(started(("saehrimnir", "bygul")))
    base = with_kittens(with_tile(with_tile(base, THING, HORSE_2_2), THING, COW_1_1), THING, 1, 1)
    state, events = play(turn_of(base, 0, EAGLE), Journey(THING), PlaceKittens(2))
    assert (state.silfr[0], state.scrolls[0]) == (3, 3)  # both tiles of the stolen Friend
    assert kinds(events).count("GAINED") == 2
    plain = cleared(started(("huginn", "bygul")))
    plain = with_kittens(with_tile(plain, THING, HORSE_2_2), THING, 1, 1)
    state, _ = play(turn_of(plain, 0, EAGLE), Journey(THING), PlaceKittens(2))
    assert (state.silfr[0], state.scrolls[0]) == (0, 0)  # a steal pays only Sæhrímnir


def test_trjegul_has_three_big_cats() -> None:
    """TRJEGUL: You have 3 Big Cats."""
    state = started(("trjegul", "bygul"))
    assert state.big_cats_left[0] + state.big_cats.count(0) == 3
    assert state.big_cats_left[1] + state.big_cats.count(1) == 2


# --------------------------------------------------------------------------- buff


def test_buffs_are_optional_rules() -> None:
    """Buff - Optional Rules (option buff, off by default)"""
    base = with_coins(cleared(started()), 0, silfr=4)
    state = turn_of(base, 0, NORTHWIND)
    assert all(m.buff == NONE for m in GAME.legal_moves(state))  # type: ignore[union-attr]
    assert "without the optional Buff" in refused(state, Journey(REGION["whale-rocks"], SILFR), "BUFFS_OFF")


def test_buff_one_more_step() -> None:
    """Once during your turn you may Buff. A Buff is when you spend 2 Scrolls or 2 Silfr (not one of
    each) to make an action a bit stronger. ... When you Journey, move 1 more step. (assumption BUFF)"""
    base = with_coins(cleared(started(("huginn", "bygul"), buff=True)), 0, silfr=2, scrolls=3)
    state = turn_of(base, 0, NORTHWIND)
    listed = GAME.legal_moves(state)
    assert (
        Journey(AMBER, SILFR) in listed and Journey(AMBER, SCROLLS) in listed and Journey(AMBER) not in listed
    )
    assert Journey(BIRCH, SILFR) not in listed
    assert "no Buff is needed" in refused(state, Journey(BIRCH, SILFR), "BUFF_NOT_NEEDED")
    assert "A Buff" in refused(state, Journey(AMBER), "BLACK_LINE")
    assert "A Buff" in refused(state, Journey(SMITHS), "TOO_FAR")
    state, events = play(state, Journey(AMBER, SCROLLS))
    assert state.scrolls[0] == 1 and state.silfr[0] == 2 and state.buffed
    assert kinds(events)[0] == "BUFF" and "spent 2 Scrolls" in events[0].text
    state, _ = play(state, SkipDraw())
    assert "only once during your turn" in refused(state, PlaceKittens(3, SILFR), "BUFF_USED")
    poor = turn_of(with_coins(base, 0, silfr=1, scrolls=1), 0, NORTHWIND)
    assert all(m.buff == NONE for m in GAME.legal_moves(poor))  # type: ignore[union-attr]
    assert "never one of each" in refused(poor, Journey(AMBER, SILFR), "CANNOT_AFFORD_BUFF")
    refused(poor, Journey(AMBER, 7), "NO_SUCH_PAYMENT")


def test_buff_one_more_tile_drawn() -> None:
    """When drawing Animal tiles, draw 1 additional. (You still choose 0-1, put the others back into the
    lid). (assumption BUFF)"""
    base = with_coins(cleared(started(("huginn", "bygul"), buff=True)), 0, silfr=2)
    state = arrive(turn_of(base, 0, EAGLE), THING)
    assert GAME.legal_moves(state) == [DrawTiles(2), DrawTiles(3, SILFR), SkipDraw()]
    state, _ = play(state, DrawTiles(3, SILFR), Draw(PIG2), Draw(SHEEP2), Draw(COW_1_1))
    assert state.silfr[0] == 0 and len(GAME.legal_moves(state)) == 4
    state, _ = play(state, PlaceTile(COW_1_1))
    assert sum(state.lid) == 54 - 1
    sleipnir = with_coins(cleared(started(("sleipnir", "bygul"), buff=True)), 0, scrolls=2)
    state = arrive(turn_of(sleipnir, 0, EAGLE), THING)
    assert DrawTiles(4, SCROLLS) in GAME.legal_moves(state) and DrawTiles(3, SCROLLS) not in GAME.legal_moves(
        state
    )


def test_buff_one_more_kitten() -> None:
    """When you place Kittens, place 1 more Kitten. (assumption BUFF)"""
    base = with_coins(cleared(started(buff=True)), 0, silfr=2)
    state, _ = play(arrive(turn_of(base, 0, NORTHWIND), BIRCH), SkipDraw())
    assert PlaceKittens(3, SILFR) in GAME.legal_moves(state)
    state, _ = play(state, PlaceKittens(3, SILFR))
    assert state.kittens[BIRCH][0] == 3 and state.silfr[0] == 0


# --------------------------------------------------------------------------- hidden information


def test_the_lid_order_and_undealt_cards_are_only_the_rng_which_no_view_shows() -> None:
    """Put all the Animal tiles into the lid of the box, face down. ... Shuffle the green and yellow
    Victory cards separately (assumption HIDDEN_LID_AND_DECKS)"""
    state = started(("bygul", "huginn", "munin"))
    other = state._replace(rng=Rng.from_seed(999))  # only the hidden data differs
    for seat in (None, 0, 1, 2):
        assert GAME.view(state, seat) == GAME.view(other, seat)
        assert GAME.view(state, seat).rng.seed == bytes(32)
    assert GAME.legal_moves(state) == GAME.legal_moves(other)
    drawing_state, _ = play(arrive(turn_of(cleared(state), 0, NORTHWIND), BIRCH), DrawTiles(2))
    changed = drawing_state._replace(rng=Rng.from_seed(5))
    assert GAME.chance(drawing_state) == GAME.chance(changed)
    assert GAME.view(drawing_state, 1) == GAME.view(changed, 1)


def test_every_assumption_is_documented() -> None:
    """Every reading of the rulebook is recorded in docs/rules/pax-viking-junior.md."""
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "rules" / "pax-viking-junior.md").read_text()
    for a in ASSUMPTIONS:
        assert f"`{a.id}`" in doc, a.id
