"""Exact-value tests of the Pax Viking Junior engine that close gaps found by mutation testing.

The scenarios of ``test_pax_viking_junior_rules.py`` check which reason a move is refused for and
that the game goes on as the rulebook says; these pin what a player or a client reads word for word
(every refusal sentence with its field, every event text with its player and details, the chance
steps' descriptions) and every invariant ``check_state`` enforces, one crafted impossible state per
violation. Positions are built with the helpers of ``test_pax_viking_junior_rules.py``: seat 0 plays
the first board named, seat 1 the second, and seat 0 is about to journey.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_pax_viking_junior_rules import (
    AMBER,
    BIRCH,
    COW_1_1,
    ELK,
    NORTHWIND,
    PIG2,
    REGION,
    SMITHS,
    WHALE_SEA,
    R,
    check,
    cleared,
    play,
    started,
    turn_of,
    with_big_cat,
    with_coins,
    with_kittens,
    with_tile,
)

from lawspeaker.games import core
from lawspeaker.games.core import Event, FieldViolation, Result, Rng, Violation
from lawspeaker.games.pax_viking_junior import (
    GAME,
    SCROLLS,
    SILFR,
    ChooseBoard,
    Draw,
    DrawTiles,
    EventDetail,
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
)
from lawspeaker.games.pax_viking_junior.components import REFERENCE_DATA

HARBOUR, FROST = REGION["harbour-ness"], REGION["frost-fells"]


def _set(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return (*t[:i], v, *t[i + 1 :])


def refusal(state: State, move: Any) -> Violation:
    """The violation of a move the engine refuses (it is no legal move)."""
    assert move not in GAME.legal_moves(state)
    violation = core.validate(GAME, state, move)
    assert violation is not None, move
    return violation


def texts(events: list[Event]) -> list[tuple[str, str, int | None]]:
    return [(e.kind, e.text, e.player) for e in events]


def base() -> State:
    """Bygul (seat 0, 4 steps) at Northwind Point and Huginn (seat 1) at Eagle Cliffs, the map
    cleared, seat 0 about to journey."""
    return cleared(started())


def huginn_first(**options: Any) -> State:
    """Huginn (seat 0, 3 steps) at Eagle Cliffs and Sleipnir (seat 1) at Sandy Bay, the map cleared."""
    return cleared(started(("huginn", "sleipnir"), **options))


# --------------------------------------------------------------------------- refusals


def test_every_journey_refusal_word_for_word() -> None:
    state = base()
    assert refusal(state, Draw(3)) == Violation(
        "NOT_A_CHANCE_STEP", "Nothing is drawn now: journey with your Longship.", "draw"
    )
    assert refusal(state, SkipDraw()) == Violation(
        "WRONG_STEP", "That move is not part of this step: journey with your Longship.", "move"
    )
    assert refusal(state, Journey(99)) == Violation(
        "NO_SUCH_REGION", "There is no region 99; the regions are numbered 0 to 30.", "journey.region"
    )
    assert refusal(state, Journey(-1)).reason == "NO_SUCH_REGION"
    assert refusal(state, Journey(31)).reason == "NO_SUCH_REGION"
    assert refusal(state, Journey(WHALE_SEA)) == Violation(
        "NOT_LAND", "Whale Sea is sea: you must end your Journey on a Land Region.", "journey.region"
    )
    assert refusal(state, Journey(NORTHWIND)) == Violation(
        "MUST_JOURNEY",
        "Your Longship is in Northwind Point: journey 1 to 4 steps to another Land Region.",
        "journey.region",
    )
    assert refusal(state, Journey(ELK, SILFR)) == Violation(
        "BUFFS_OFF", "This game is played without the optional Buff rules.", "journey.buff"
    )
    assert refusal(state, Journey(ELK, 7)) == Violation(
        "NO_SUCH_PAYMENT", "A Buff is paid with Silfr or with Scrolls.", "journey.buff"
    )
    huginn = turn_of(huginn_first(), 0, NORTHWIND)  # 3 steps from Northwind Point
    assert refusal(huginn, Journey(SMITHS)) == Violation(
        "TOO_FAR",
        "Smith's Vale is 4 steps away (crossing a white line counts as 1 step); you may journey up to 3 "
        "steps.",
        "journey.region",
    )
    assert refusal(huginn, Journey(AMBER)) == Violation(
        "BLACK_LINE",
        "You can not cross a black line: the way to Amber Shore over the black line would be 3 steps, and "
        "the way around it is 4 steps, more than your 3.",
        "journey.region",
    )


def test_every_buffed_journey_refusal_word_for_word() -> None:
    state = with_coins(turn_of(huginn_first(buff=True), 0, NORTHWIND), 0, silfr=1, scrolls=2)
    assert refusal(state, Journey(ELK, SILFR)) == Violation(
        "CANNOT_AFFORD_BUFF",
        "A Buff costs 2 Silfr (never one of each) and you have 1 Silfr.",
        "journey.buff",
    )
    assert refusal(state, Journey(ELK, SCROLLS)) == Violation(
        "BUFF_NOT_NEEDED",
        "Elk Forest is 2 steps away, within your 3 steps: no Buff is needed.",
        "journey.buff",
    )
    assert refusal(state, Journey(BIRCH, SCROLLS)) == Violation(
        "BUFF_NOT_NEEDED",
        "Birch Hills is 1 step away, within your 3 steps: no Buff is needed.",
        "journey.buff",
    )
    hint = " A Buff (2 Silfr or 2 Scrolls) would give you 1 step more."
    far = refusal(state, Journey(HARBOUR))
    assert far.reason == "TOO_FAR" and not far.message.endswith(hint)
    assert refusal(state, Journey(SMITHS)) == Violation(
        "TOO_FAR",
        "Smith's Vale is 4 steps away (crossing a white line counts as 1 step); you may journey up to 3 "
        "steps." + hint,
        "journey.region",
    )
    assert refusal(state, Journey(AMBER)) == Violation(
        "BLACK_LINE",
        "You can not cross a black line: the way to Amber Shore over the black line would be 3 steps, and "
        "the way around it is 4 steps, more than your 3." + hint,
        "journey.region",
    )
    assert Journey(SMITHS, SCROLLS) in GAME.legal_moves(state)
    assert Journey(AMBER, SCROLLS) in GAME.legal_moves(state)
    five = refusal(state, Journey(HARBOUR, SCROLLS))
    assert five.reason == "TOO_FAR" and "you may journey up to 4 steps." in five.message
    used = state._replace(buffed=True)
    assert refusal(used, Journey(SMITHS, SCROLLS)) == Violation(
        "BUFF_USED", "You may Buff only once during your turn.", "journey.buff"
    )


def test_a_buffed_journey_and_draw_and_their_events_word_for_word() -> None:
    state = with_coins(huginn_first(buff=True), 0, silfr=3, scrolls=2)
    state, events = play(state, Journey(AMBER))
    assert texts(events) == [("JOURNEY", "Player 1 journeyed from Eagle Cliffs to Amber Shore (1 step).", 0)]
    assert events[0].detail == EventDetail(AMBER, count=1)
    assert GAME.legal_moves(state) == [DrawTiles(2), DrawTiles(3, SILFR), DrawTiles(3, SCROLLS), SkipDraw()]
    assert refusal(state, DrawTiles(5)) == Violation(
        "WRONG_NUMBER_OF_TILES",
        "You draw 2 Animal tiles (3 with a Buff), not 5 (Sleipnir may draw 2 or 3), then choose 1 to place "
        "or put them all back.",
        "draw_tiles.count",
    )
    assert refusal(state, DrawTiles(3)) == Violation(
        "WRONG_NUMBER_OF_TILES",
        "You draw 2 Animal tiles (3 with a Buff) (Sleipnir may draw 2 or 3), then choose 1 to place or put "
        "them all back.",
        "draw_tiles.count",
    )
    assert refusal(state, DrawTiles(3, 9)) == Violation(
        "NO_SUCH_PAYMENT", "A Buff is paid with Silfr or with Scrolls.", "draw_tiles.buff"
    )
    assert refusal(state, DrawTiles(2, SILFR)) == Violation(
        "BUFF_NOT_NEEDED",
        "You may draw 2 Animal tiles without a Buff: keep your Silfr and Scrolls.",
        "draw_tiles.buff",
    )
    assert refusal(state, PlaceTile(0)) == Violation(
        "WRONG_STEP",
        "That move is not part of this step: draw Animal tiles from the box lid, or do not.",
        "move",
    )
    assert refusal(state, Draw()) == Violation(
        "NOT_A_CHANCE_STEP", "Nothing is drawn now: draw Animal tiles from the box lid, or do not.", "draw"
    )
    state, events = play(state, DrawTiles(3, SILFR))
    assert texts(events) == [
        ("BUFF", "Player 1 spent 2 Silfr on a Buff to draw 1 more Animal tile.", 0),
        ("DRAWING_TILES", "Player 1 draws 3 Animal tiles from the box lid.", 0),
    ]
    assert [e.detail for e in events] == [EventDetail(silfr=2), EventDetail(AMBER, count=3)]
    assert (state.silfr[0], state.scrolls[0], state.buffed, state.to_draw) == (1, 2, True, 3)
    chance = GAME.chance(state)
    assert chance is not None
    assert chance.description == "Player 1 draws Animal tile 1 of 3 from the box lid"
    assert chance.outcomes[0] == core.ChanceOutcome(Draw(0), 2 / 54, "1 Pig (2 Silfr and 0 Scrolls)")
    assert chance.outcomes[4].label == "2 Pigs (1 Silfr and 0 Scrolls)"
    assert sum(o.probability for o in chance.outcomes) == pytest.approx(1)
    state, events = play(state, Draw(PIG2), Draw(COW_1_1))
    assert texts(events) == [
        ("TILE_DRAWN", "Player 1 drew 2 Pigs (1 Silfr and 0 Scrolls).", 0),
        ("TILE_DRAWN", "Player 1 drew 1 Cow (1 Silfr and 1 Scroll).", 0),
    ]
    assert [e.detail for e in events] == [EventDetail(AMBER, (PIG2,)), EventDetail(AMBER, (COW_1_1,))]
    chance = GAME.chance(state)
    assert chance is not None and chance.description == "Player 1 draws Animal tile 3 of 3 from the box lid"
    state, _ = play(state, Draw(COW_1_1))
    assert state.phase is Phase.CHOOSE_TILE and state.drawn == (PIG2, COW_1_1, COW_1_1)
    assert GAME.legal_moves(state) == [PlaceTile(PIG2), PlaceTile(COW_1_1), ReturnTiles()]
    assert refusal(state, PlaceTile(HIGHER := PIG2 + 1)) == Violation(
        "TILE_NOT_DRAWN",
        f"Place one of the Animal tiles you drew: {PIG2} (2 Pigs (1 Silfr and 0 Scrolls)), {COW_1_1} (1 Cow "
        "(1 Silfr and 1 Scroll)); or put them all back.",
        "place_tile.tile",
    )
    assert HIGHER not in state.drawn
    assert refusal(state, Draw(0)) == Violation(
        "NOT_A_CHANCE_STEP",
        "Nothing is drawn now: place one of the drawn Animal tiles or put them back.",
        "draw",
    )
    lid = state.lid
    state, events = play(state, PlaceTile(COW_1_1))
    assert texts(events) == [
        ("TILE_PLACED", "Player 1 placed 1 Cow (1 Silfr and 1 Scroll) face up in Amber Shore.", 0),
        ("TILES_RETURNED", "Player 1 put the 2 other Animal tiles back face down into the box lid.", 0),
    ]
    assert [e.detail for e in events] == [EventDetail(AMBER, (COW_1_1,)), EventDetail(AMBER, (PIG2, COW_1_1))]
    assert state.lid == _set(_set(lid, PIG2, lid[PIG2] + 1), COW_1_1, lid[COW_1_1] + 1)
    assert (state.placed, state.tiles[AMBER], state.drawn) == (COW_1_1, (COW_1_1,), ())
    # the Cats step: the Buff is used
    assert refusal(state, PlaceKittens(3, SCROLLS)) == Violation(
        "BUFF_USED", "You may Buff only once during your turn.", "place_kittens.buff"
    )
    assert refusal(state, PlaceKittens(3)) == Violation(
        "TOO_MANY_KITTENS",
        "You can place 0, 1 or 2 of your Kittens (3 with a Buff) or 1 Big Cat.",
        "place_kittens.count",
    )
    assert refusal(state, PlaceKittens(-1)) == refusal(state, PlaceKittens(3))
    assert refusal(state, PickUpCats()) == Violation(
        "NO_CATS_TO_PICK_UP", "You have no Kittens in this Region to pick up.", "pick_up_cats"
    )
    assert refusal(state, SkipDraw()) == Violation(
        "WRONG_STEP",
        "That move is not part of this step: place Cats or pick up your Cats in the Region.",
        "move",
    )
    state, events = play(state, PlaceKittens(2))
    assert texts(events) == [
        ("KITTENS_PLACED", "Player 1 placed 2 Kittens in Amber Shore.", 0),
        ("FRIENDS", "Player 1 is now Friends with the animals in Amber Shore.", 0),
        (
            "GAINED",
            "Player 1 gains 2 Silfr and 1 Scroll from the Animal tile placed (Huginn adds 1 Silfr).",
            0,
        ),
        ("TURN_STARTED", "Player 2's turn.", 1),
    ]
    assert [e.detail for e in events] == [
        EventDetail(AMBER, count=2),
        EventDetail(AMBER, (COW_1_1,), seats=(0,)),
        EventDetail(tiles=(COW_1_1,), silfr=2, scrolls=1),
        None,
    ]
    assert (state.silfr[0], state.scrolls[0], state.buffed, state.placed) == (3, 3, False, -1)


def test_drawing_fewer_or_returning_tiles_word_for_word() -> None:
    state = huginn_first()
    state, _ = play(state, Journey(AMBER), DrawTiles(2), Draw(PIG2), Draw(COW_1_1))
    returned, events = play(state, ReturnTiles())
    assert texts(events) == [
        ("TILES_RETURNED", "Player 1 put both drawn Animal tiles back face down into the box lid.", 0)
    ]
    assert events[0].detail == EventDetail(AMBER, (PIG2, COW_1_1))
    assert returned.lid == R.tile_copies and returned.phase is Phase.PLACE_CATS and returned.placed == -1
    _, events = play(state, PlaceTile(PIG2))
    assert texts(events) == [
        ("TILE_PLACED", "Player 1 placed 2 Pigs (1 Silfr and 0 Scrolls) face up in Amber Shore.", 0),
        ("TILES_RETURNED", "Player 1 put the other Animal tile back face down into the box lid.", 0),
    ]
    assert events[1].detail == EventDetail(AMBER, (COW_1_1,))
    # Sleipnir draws 2 or 3, and with a Buff 4
    sleipnir = turn_of(huginn_first(buff=True), 1, R.board_shield[R.board_ids.index("sleipnir")])
    sleipnir, events = play(sleipnir, Journey(HARBOUR))
    assert GAME.legal_moves(sleipnir) == [DrawTiles(2), DrawTiles(3), SkipDraw()]
    assert refusal(sleipnir, DrawTiles(5)) == Violation(
        "WRONG_NUMBER_OF_TILES",
        "You draw 2 or 3 Animal tiles (4 with a Buff), not 5 (Bygul may draw 2; Huginn may draw 2; Munin may "
        "draw 2; Sæhrímnir may draw 2; Trjegul may draw 2), then choose 1 to place or put them all back.",
        "draw_tiles.count",
    )
    assert refusal(sleipnir, DrawTiles(4, SILFR)) == Violation(
        "CANNOT_AFFORD_BUFF",
        "A Buff costs 2 Silfr (never one of each) and you have 0 Silfr.",
        "draw_tiles.buff",
    )
    assert refusal(sleipnir, DrawTiles(4, SCROLLS)).message == (
        "A Buff costs 2 Scrolls (never one of each) and you have 0 Scrolls."
    )
    one = with_coins(sleipnir, 1, scrolls=1)
    assert refusal(one, DrawTiles(4, SCROLLS)).message == (
        "A Buff costs 2 Scrolls (never one of each) and you have 1 Scroll."
    )
    rich = with_coins(sleipnir, 1, silfr=2, scrolls=2)
    assert GAME.legal_moves(rich) == [
        DrawTiles(2),
        DrawTiles(3),
        DrawTiles(4, SILFR),
        DrawTiles(4, SCROLLS),
        SkipDraw(),
    ]
    only_scrolls = with_coins(sleipnir, 1, silfr=1, scrolls=2)
    assert GAME.legal_moves(only_scrolls) == [DrawTiles(2), DrawTiles(3), DrawTiles(4, SCROLLS), SkipDraw()]
    assert refusal(rich, DrawTiles(3, SILFR)).reason == "BUFF_NOT_NEEDED"
    assert refusal(rich, DrawTiles(5, SILFR)) == Violation(
        "WRONG_NUMBER_OF_TILES",
        "You draw 2 or 3 Animal tiles (4 with a Buff), not 5 (Bygul may draw 2; Huginn may draw 2; Munin may "
        "draw 2; Sæhrímnir may draw 2; Trjegul may draw 2), then choose 1 to place or put them all back.",
        "draw_tiles.count",
    )


def test_a_short_lid_is_refused_word_for_word() -> None:
    """A draw larger than the lid names what is left; the offered draws shrink to it."""
    state = huginn_first()
    rest = [t for t in range(R.tiles) for _ in range(R.tile_copies[t])]
    keep, *away = rest
    lid = tuple(1 if t == keep else 0 for t in range(R.tiles))
    state = check(state._replace(lid=lid, tiles=_set(state.tiles, SMITHS, tuple(away))))
    state, _ = play(state, Journey(AMBER))
    assert GAME.legal_moves(state) == [DrawTiles(1), SkipDraw()]
    assert refusal(state, DrawTiles(2)) == Violation(
        "LID_TOO_SMALL", "Only 1 Animal tile is left in the box lid.", "draw_tiles.count"
    )
    state, events = play(state, DrawTiles(1))
    assert texts(events) == [("DRAWING_TILES", "Player 1 draws 1 Animal tile from the box lid.", 0)]
    chance = GAME.chance(state)
    assert chance is not None and chance.description == "Player 1 draws Animal tile 1 of 1 from the box lid"
    assert chance.outcomes == (core.ChanceOutcome(Draw(keep), 1.0, R.tile_name(keep)),)
    assert GAME.drawn_outcome(state) == Draw(keep)
    state, events = play(state, Draw(), PlaceTile(keep), PlaceKittens(1))
    # the next player journeys to a region with no tile: the empty lid skips the draw
    state, events = play(state, Journey(HARBOUR))
    assert texts(events)[-1] == ("NO_DRAW", "The box lid is empty: no Animal tiles can be drawn.", 1)
    assert events[-1].detail == EventDetail(HARBOUR)
    assert state.phase is Phase.PLACE_CATS
    assert refusal(state, DrawTiles(2)) == Violation(
        "LID_EMPTY", "The box lid is empty: there are no Animal tiles to draw."
    )
    two = state._replace(lid=_set(state.lid, keep, 0))
    assert refusal(check(two), SkipDraw()).reason == "LID_EMPTY"


def test_a_lid_of_two_is_refused_in_the_plural() -> None:
    state = huginn_first()
    rest = [t for t in range(R.tiles) for _ in range(R.tile_copies[t])]
    away = rest[2:]
    lid = tuple(sum(1 for t in rest[:2] if t == k) for k in range(R.tiles))
    state = check(state._replace(lid=lid, tiles=_set(state.tiles, SMITHS, tuple(away))))
    sleipnir, _ = play(turn_of(state, 1, HARBOUR), Journey(AMBER))
    assert GAME.legal_moves(sleipnir) == [DrawTiles(2), SkipDraw()]
    assert refusal(sleipnir, DrawTiles(3)) == Violation(
        "LID_TOO_SMALL", "Only 2 Animal tiles are left in the box lid.", "draw_tiles.count"
    )


def test_no_draw_where_another_player_is_friends_word_for_word() -> None:
    state = with_kittens(with_tile(base(), BIRCH, PIG2), BIRCH, 1, 1)
    state, events = play(state, Journey(BIRCH))
    text = (
        "You can draw Animal tiles only in an empty Region or in a Region where you have a Friend: Birch "
        "Hills has an Animal tile and Player 2 is Friends with its animals."
    )
    assert texts(events)[-1] == ("NO_DRAW", text, 0)
    assert events[-1].detail == EventDetail(BIRCH)
    assert refusal(state, DrawTiles(2)) == Violation("CANNOT_DRAW_HERE", text, "draw_tiles")
    assert refusal(state, SkipDraw()) == Violation("CANNOT_DRAW_HERE", text, "draw_tiles")
    nobody = with_tile(base(), BIRCH, PIG2)
    nobody, events = play(nobody, Journey(BIRCH))
    assert events[-1].text.endswith("Birch Hills has an Animal tile and nobody is Friends with its animals.")
    # once a tile is placed this turn, a draw is simply the wrong step
    assert refusal(nobody._replace(placed=PIG2), DrawTiles(2)).reason == "WRONG_STEP"


def test_every_cat_refusal_word_for_word() -> None:
    state = with_kittens(base(), BIRCH, 1, 1)
    at_birch, _ = play(state, Journey(BIRCH), SkipDraw())
    assert refusal(at_birch, PlaceKittens(1, SILFR)).reason == "BUFFS_OFF"
    assert refusal(at_birch, PlaceKittens(3)) == Violation(
        "TOO_MANY_KITTENS", "You can place 0, 1 or 2 of your Kittens or 1 Big Cat.", "place_kittens.count"
    )
    mine, _ = play(with_big_cat(state, ELK, 0), Journey(ELK), SkipDraw())
    assert refusal(mine, PlaceKittens(1)) == Violation(
        "BIG_CAT_IN_REGION",
        "No new Kittens or Big Cats can be added to a Region with a Big Cat in it.",
        "place_kittens.count",
    )
    assert refusal(mine, PlaceBigCat()) == refusal(mine, PlaceKittens(2))
    assert GAME.legal_moves(mine) == [PlaceKittens(0)]
    assert refusal(mine, PickUpCats()) == Violation(
        "NO_CATS_TO_PICK_UP",
        "You have no Kittens in this Region to pick up: a placed Big Cat cannot be moved again.",
        "pick_up_cats",
    )
    theirs, _ = play(with_big_cat(state, ELK, 1), Journey(ELK), SkipDraw())
    assert refusal(theirs, PickUpCats()).message == "You have no Kittens in this Region to pick up."
    short = at_birch._replace(kittens_left=(1, 9))
    short = short._replace(kittens=_set(short.kittens, SMITHS, (9, 0)))
    short = check(short._replace(friends=_set(short.friends, SMITHS, 0)))
    assert refusal(short, PlaceKittens(2)) == Violation(
        "NOT_ENOUGH_KITTENS", "Only 1 Kitten is left on your Cat board.", "place_kittens.count"
    )
    none = check(short._replace(kittens_left=(0, 9), kittens=_set(short.kittens, SMITHS, (10, 0))))
    assert refusal(none, PlaceKittens(1)) == Violation(
        "NOT_ENOUGH_KITTENS", "You have no Kittens left on your Cat board.", "place_kittens.count"
    )
    assert GAME.legal_moves(none) == [PlaceKittens(0), PlaceBigCat()]
    no_big = check(
        none._replace(
            big_cats_left=(0, 2),
            big_cats=_set(_set(none.big_cats, ELK, 0), HARBOUR, 0),
            friends=_set(_set(none.friends, ELK, 0), HARBOUR, 0),
        )
    )
    assert refusal(no_big, PlaceBigCat()) == Violation(
        "NO_BIG_CAT_LEFT", "You have no Big Cat left on your Cat board.", "place_big_cat"
    )
    assert GAME.legal_moves(no_big) == [PlaceKittens(0)]
    two = check(short._replace(kittens_left=(2, 9), kittens=_set(short.kittens, SMITHS, (8, 0))))
    assert refusal(two, PlaceKittens(3)).reason == "TOO_MANY_KITTENS"
    assert GAME.legal_moves(two) == [PlaceKittens(0), PlaceKittens(1), PlaceKittens(2), PlaceBigCat()]
    assert refusal(state._replace(phase=Phase.OVER), Journey(BIRCH)).reason in ("WRONG_STEP", "GAME_OVER")


def test_every_buffed_cat_refusal_word_for_word() -> None:
    state = with_coins(huginn_first(buff=True), 0, silfr=2)
    state, _ = play(state, Journey(AMBER), SkipDraw())
    assert GAME.legal_moves(state) == [
        PlaceKittens(0),
        PlaceKittens(1),
        PlaceKittens(2),
        PlaceKittens(3, SILFR),
        PlaceBigCat(),
    ]
    assert refusal(state, PlaceKittens(1, SILFR)) == Violation(
        "BUFF_NOT_NEEDED", "You may place 1 Kitten without a Buff: a Buff places 3.", "place_kittens.buff"
    )
    assert refusal(state, PlaceKittens(2, SILFR)).message == (
        "You may place 2 Kittens without a Buff: a Buff places 3."
    )
    assert refusal(state, PlaceKittens(-2, SILFR)).message == (
        "You may place 0 Kittens without a Buff: a Buff places 3."
    )
    assert refusal(state, PlaceKittens(4, SILFR)) == Violation(
        "TOO_MANY_KITTENS", "With a Buff you place 3 Kittens.", "place_kittens.count"
    )
    assert refusal(state, PlaceKittens(3, SCROLLS)).reason == "CANNOT_AFFORD_BUFF"
    assert refusal(state, PlaceKittens(4)) == Violation(
        "TOO_MANY_KITTENS",
        "You can place 0, 1 or 2 of your Kittens (3 with a Buff) or 1 Big Cat.",
        "place_kittens.count",
    )
    few = check(
        state._replace(kittens_left=(2, 10), kittens=_set(state.kittens, SMITHS, (8, 0)))._replace(
            friends=_set(state.friends, SMITHS, 0)
        )
    )
    assert PlaceKittens(3, SILFR) not in GAME.legal_moves(few)
    assert refusal(few, PlaceKittens(3, SILFR)) == Violation(
        "NOT_ENOUGH_KITTENS", "Only 2 Kittens are left on your Cat board.", "place_kittens.count"
    )
    three = check(few._replace(kittens_left=(3, 10), kittens=_set(few.kittens, SMITHS, (7, 0))))
    assert PlaceKittens(3, SILFR) in GAME.legal_moves(three)
    after, events = play(state, PlaceKittens(3, SILFR))
    assert texts(events)[:2] == [
        ("BUFF", "Player 1 spent 2 Silfr on a Buff to place 1 more Kitten.", 0),
        ("KITTENS_PLACED", "Player 1 placed 3 Kittens in Amber Shore.", 0),
    ]
    assert after.kittens[AMBER] == (3, 0) and after.kittens_left[0] == 7 and after.silfr[0] == 0


def test_every_setup_refusal_and_chance_step_word_for_word() -> None:
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    assert state.phase is Phase.SETUP_DEAL and state.cards == (0, 1)
    chance = GAME.chance(state)
    assert chance is not None
    assert chance.description == "A green victory card is dealt face up from the shuffled green deck"
    assert len(chance.outcomes) == 12
    assert chance.outcomes[0] == core.ChanceOutcome(Draw(2), 1 / 12, "2 Pigs, 1 Sheep, 1 Cow (green-1)")
    assert refusal(state, Draw(0)) == Violation(
        "NO_SUCH_OUTCOME",
        "That is not a possible outcome (0): no such card is left in the deck being dealt.",
        "draw.outcome",
    )
    assert refusal(state, ChooseBoard(0)) == Violation(
        "WRONG_STEP", "That move is not part of this step: a victory card is being dealt.", "move"
    )
    state, events = play(state, Draw(5), Draw(6))
    chance = GAME.chance(state)
    assert chance is not None
    assert chance.description == "A yellow victory card is dealt face up from the shuffled yellow deck"
    assert [o.move for o in chance.outcomes] == [Draw(c) for c in range(14, 26)]
    state, events = play(state, Draw(20))
    assert texts(events) == [
        (
            "VICTORY_CARD",
            "The yellow victory card \u201c2 Pigs, 2 Sheep, 2 Goats\u201d is dealt face up.",
            None,
        )
    ]
    assert events[0].detail == EventDetail(card=20)
    assert state.phase is Phase.SETUP_START
    chance = GAME.chance(state)
    assert chance is not None and chance.description == "The starting player is drawn at random"
    assert chance.outcomes == (
        core.ChanceOutcome(Draw(0), 0.5, "Player 1"),
        core.ChanceOutcome(Draw(1), 0.5, "Player 2"),
    )
    assert refusal(state, Draw(2)) == Violation(
        "NO_SUCH_OUTCOME",
        "That is not a possible outcome (2): the starting player is a seat from 0 to 1.",
        "draw.outcome",
    )
    assert refusal(state, PlaceKittens(1)).message == (
        "That move is not part of this step: the starting player is being drawn."
    )
    state, events = play(state, Draw(1))
    assert texts(events) == [("STARTING_PLAYER", "Player 2 is the starting player.", 1)]
    assert refusal(state, ChooseBoard(6)) == Violation(
        "NO_SUCH_BOARD", "There is no cat board 6; they are numbered 0 to 5.", "choose_board.board"
    )
    assert refusal(state, ChooseBoard(-1)).reason == "NO_SUCH_BOARD"
    assert (
        refusal(state, Draw()).message == "Nothing is drawn now: a player chooses their colour and cat board."
    )
    state, events = play(state, ChooseBoard(3))
    assert texts(events) == [
        (
            "BOARD_CHOSEN",
            "Player 2 plays green with the cat board Sleipnir (SLEIPNIR: You may draw 3 Animal tiles instead "
            "of 2. You may only choose one to place on the map. Return the unused face down to the box lid.)",
            1,
        )
    ]
    assert events[0].detail == EventDetail(count=3)
    assert refusal(state, ChooseBoard(3)) == Violation(
        "BOARD_TAKEN",
        "Sleipnir is already another player's cat board: choose another colour.",
        "choose_board.board",
    )
    state, events = play(state, ChooseBoard(5))
    assert texts(events) == [
        (
            "BOARD_CHOSEN",
            "Player 1 plays white with the cat board Trjegul (TRJEGUL: You have 3 Big Cats.)",
            0,
        ),
        ("LONGSHIP_PLACED", "Player 2's Longship starts on their shield in Sandy Bay.", 1),
    ]
    assert events[1].detail == EventDetail(REGION["sandy-bay"])
    assert (state.kittens_left, state.big_cats_left) == ((10, 10), (3, 2))
    chance = GAME.chance(state)
    assert chance is not None
    assert chance.description == "Player 2 draws the face-up Animal tile placed with their Longship"
    assert refusal(state, PlaceBigCat()).message == (
        "That move is not part of this step: the face-up Animal tile for a Longship is being drawn."
    )
    state, events = play(state, Draw(PIG2))
    assert texts(events) == [
        ("SETUP_TILE", "Player 2 drew 2 Pigs (1 Silfr and 0 Scrolls) and placed it face up in Sandy Bay.", 1)
    ]
    assert events[0].detail == EventDetail(REGION["sandy-bay"], (PIG2,))
    assert GAME.legal_moves(state) == [PlaceKittens(1), PlaceBigCat()]
    assert refusal(state, PlaceKittens(2)) == Violation(
        "SETUP_ONE_CAT",
        "At setup you place one Kitten or one Big Cat with your Longship, not 2 Kittens.",
        "place_kittens.count",
    )
    assert refusal(state, PlaceKittens(1, SILFR)).message == (
        "At setup you place one Kitten or one Big Cat with your Longship, not 1 Kitten with a Buff."
    )
    assert refusal(state, PickUpCats()) == Violation(
        "WRONG_STEP",
        "That move is not part of this step: a player places one Kitten or one Big Cat with their Longship.",
        "move",
    )
    no_kittens = state._replace(kittens_left=(10, 0))
    assert GAME.legal_moves(no_kittens) == [PlaceBigCat()]
    no_big = state._replace(big_cats_left=(3, 0))
    assert GAME.legal_moves(no_big) == [PlaceKittens(1)]
    assert refusal(no_big, PlaceBigCat()) == Violation(
        "SETUP_ONE_CAT",
        "At setup you place one Kitten or one Big Cat with your Longship, not that.",
        "place_big_cat",
    )
    state, events = play(state, PlaceBigCat())
    sandy = REGION["sandy-bay"]
    assert texts(events) == [
        (
            "BIG_CAT_PLACED",
            "Player 2 placed a Big Cat in Sandy Bay: no new Cats can be added there for the rest of the "
            "game.",
            1,
        ),
        ("FRIENDS", "Player 2 is now Friends with the animals in Sandy Bay.", 1),
        ("LONGSHIP_PLACED", "Player 1's Longship starts on their shield in Western Dunes.", 0),
    ]
    assert events[0].detail == EventDetail(sandy, count=1)
    assert (state.silfr, state.scrolls, state.step) == ((0, 0), (0, 0), 1)
    state, _ = play(state, Draw(COW_1_1))
    state, events = play(state, PlaceKittens(1))
    assert texts(events)[-1] == ("TURN_STARTED", "Player 2's turn.", 1)
    assert (state.phase, state.actor, state.turn, state.step) == (Phase.JOURNEY, 1, 1, 0)
    over = state._replace(phase=Phase.OVER)
    assert core.validate(GAME, over, Journey(0)) is not None


def test_the_red_cards_and_a_given_starting_player_are_laid_out_word_for_word() -> None:
    state = GAME.new_game(3, Options(starting_seat=2), Rng.from_seed(2))
    assert state.cards == (0, 1) and state.phase is Phase.SETUP_DEAL
    state, events = play(state, Draw(2), Draw(3), Draw(14))
    assert texts(events)[-2:] == [
        (
            "VICTORY_CARD",
            "The yellow victory card \u201c2 Pigs, 2 Sheep, 2 Cows\u201d is dealt face up.",
            None,
        ),
        ("STARTING_PLAYER", "Player 3 is the starting player.", 2),
    ]
    assert (state.phase, state.actor, state.turn, state.start) == (Phase.SETUP_BOARD, 2, 2, 2)
    assert GAME.legal_moves(state) == [ChooseBoard(b) for b in range(6)]
    state, _ = play(state, ChooseBoard(0))
    assert (state.actor, state.turn) == (0, 0)
    assert GAME.legal_moves(state) == [ChooseBoard(b) for b in range(1, 6)]
    longer = GAME.new_game(2, Options(victory_cards=GAME.default_options().victory_cards), Rng.from_seed(2))
    assert longer.cards == (0, 1)


def test_the_server_draws_from_the_rng_and_an_explicit_draw_leaves_it() -> None:
    state = GAME.new_game(2, Options(), Rng.from_seed(5))
    outcome = GAME.drawn_outcome(state)
    assert isinstance(outcome, Draw) and outcome.outcome is not None
    by_rng, _ = GAME.apply(state, Draw())
    explicit, _ = GAME.apply(state, outcome)
    assert by_rng.cards == explicit.cards and explicit.rng == state.rng and by_rng.rng != state.rng
    assert by_rng.ply == state.ply + 1
    while state.phase is not Phase.SETUP_START:
        state, _ = GAME.apply(state, Draw())
    outcome = GAME.drawn_outcome(state)
    by_rng, _ = GAME.apply(state, Draw())
    assert Draw(by_rng.start) == outcome
    state = by_rng
    while state.phase is not Phase.SETUP_TILE:
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    outcome = GAME.drawn_outcome(state)
    by_rng, _ = GAME.apply(state, Draw())
    assert isinstance(outcome, Draw) and outcome.outcome is not None
    assert by_rng.tiles[by_rng.ships[by_rng.turn]] == (outcome.outcome,)
    assert by_rng.rng != state.rng


# --------------------------------------------------------------------------- friendships


def test_stealing_losing_and_big_cats_word_for_word() -> None:
    state = with_kittens(with_tile(base(), BIRCH, COW_1_1), BIRCH, 1, 1)
    state, _ = play(state, Journey(BIRCH))
    _, events = play(state, PlaceKittens(2))
    assert texts(events)[:2] == [
        ("KITTENS_PLACED", "Player 1 placed 2 Kittens in Birch Hills.", 0),
        ("FRIEND_STOLEN", "Player 1 stole the friendship of the animals in Birch Hills from Player 2.", 0),
    ]
    assert events[1].detail == EventDetail(BIRCH, (COW_1_1,), seats=(1,))
    assert texts(events)[2] == ("TURN_STARTED", "Player 2's turn.", 1)  # Bygul gains nothing by stealing
    tie, events = play(state, PlaceKittens(1))
    assert tie.friends[BIRCH] == 1 and kinds_of(events) == ["KITTENS_PLACED", "TURN_STARTED"]
    big, events = play(state, PlaceBigCat())
    assert texts(events)[:3] == [
        (
            "BIG_CAT_PLACED",
            "Player 1 placed a Big Cat in Birch Hills: no new Cats can be added there for the rest of the "
            "game.",
            0,
        ),
        ("KITTENS_SENT_HOME", "The Big Cat sends 1 Kitten in Birch Hills back to their Cat boards.", 0),
        ("FRIEND_STOLEN", "Player 1 stole the friendship of the animals in Birch Hills from Player 2.", 0),
    ]
    assert events[1].detail == EventDetail(BIRCH, count=1, seats=(1,))
    assert big.kittens[BIRCH] == (0, 0) and big.kittens_left == (10, 10) and big.big_cats_left == (1, 2)
    assert big.big_cats[BIRCH] == 0 and big.friends[BIRCH] == 0
    # both players' Kittens go home
    both = with_kittens(with_kittens(base(), BIRCH, 0, 2), BIRCH, 1, 3)
    both, _ = play(both, Journey(BIRCH), SkipDraw())
    both, events = play(both, PlaceBigCat())
    assert texts(events)[1] == (
        "KITTENS_SENT_HOME",
        "The Big Cat sends 5 Kittens in Birch Hills back to their Cat boards.",
        0,
    )
    assert events[1].detail == EventDetail(BIRCH, count=5, seats=(0, 1))
    assert texts(events)[2] == ("FRIENDS", "Player 1 now has the most Cats in Birch Hills.", 0)
    assert events[2].detail == EventDetail(BIRCH, (), seats=(0,))
    assert both.kittens_left == (10, 10)


def kinds_of(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def test_picking_up_and_losing_a_friendship_word_for_word() -> None:
    state = with_kittens(with_kittens(with_tile(base(), BIRCH, PIG2), BIRCH, 0, 2), BIRCH, 1, 1)
    state, _ = play(state, Journey(BIRCH))
    assert state.phase is Phase.DRAW_OFFER  # seat 0 is Friends there
    state, _ = play(state, SkipDraw())
    after, events = play(state, PickUpCats())
    assert texts(events) == [
        ("CATS_PICKED_UP", "Player 1 picked up 2 Kittens from Birch Hills.", 0),
        ("FRIENDS", "Player 2 is now Friends with the animals in Birch Hills.", 1),
        ("TURN_STARTED", "Player 2's turn.", 1),
    ]
    assert events[0].detail == EventDetail(BIRCH, count=2)
    assert events[1].detail == EventDetail(BIRCH, (PIG2,), seats=(1,))
    assert after.kittens[BIRCH] == (0, 1) and after.kittens_left[0] == 10 and after.friends[BIRCH] == 1
    alone = with_kittens(with_tile(base(), BIRCH, PIG2), BIRCH, 0, 1)
    alone, _ = play(alone, Journey(BIRCH), SkipDraw())
    after, events = play(alone, PickUpCats())
    assert texts(events)[:2] == [
        ("CATS_PICKED_UP", "Player 1 picked up 1 Kitten from Birch Hills.", 0),
        ("FRIENDSHIP_LOST", "Nobody is Friends with the animals in Birch Hills now.", 0),
    ]
    assert events[1].detail == EventDetail(BIRCH, (PIG2,), seats=(0,))
    no_tile = with_kittens(base(), BIRCH, 0, 1)
    no_tile, _ = play(no_tile, Journey(BIRCH), SkipDraw())
    after, events = play(no_tile, PickUpCats())
    assert kinds_of(events) == ["CATS_PICKED_UP", "TURN_STARTED"]
    assert after.friends[BIRCH] == -1
    _, events = play(no_tile, PlaceKittens(0))
    assert texts(events)[0] == ("NO_CATS_PLACED", "Player 1 placed no Cats.", 0)
    assert events[0].detail == EventDetail(BIRCH)


def test_a_tie_under_the_nobody_option_loses_the_friendship() -> None:
    state = cleared(started(kitten_tie=KittenTie.NOBODY))
    state = with_kittens(with_tile(state, BIRCH, PIG2), BIRCH, 1, 1)
    state, _ = play(state, Journey(BIRCH))
    assert state.phase is Phase.PLACE_CATS
    after, events = play(state, PlaceKittens(1))
    assert texts(events)[:2] == [
        ("KITTENS_PLACED", "Player 1 placed 1 Kitten in Birch Hills.", 0),
        ("FRIENDSHIP_LOST", "Nobody is Friends with the animals in Birch Hills now.", 1),
    ]
    assert after.friends[BIRCH] == -1


def test_saehrimnir_gains_every_stolen_tile_word_for_word() -> None:
    state = cleared(started(("saehrimnir", "huginn")))
    state = with_tile(with_tile(state, SMITHS, PIG2), SMITHS, COW_1_1)
    state = with_kittens(state, SMITHS, 1, 1)
    state, _ = play(state, Journey(SMITHS))
    after, events = play(state, PlaceKittens(2))
    assert texts(events)[1:4] == [
        ("FRIEND_STOLEN", "Player 1 stole the friendship of the animals in Smith's Vale from Player 2.", 0),
        ("GAINED", "Player 1 gains 1 Silfr and 0 Scrolls for the stolen Friend.", 0),
        ("GAINED", "Player 1 gains 1 Silfr and 1 Scroll for the stolen Friend.", 0),
    ]
    assert events[2].detail == EventDetail(tiles=(PIG2,), silfr=1)
    assert (after.silfr[0], after.scrolls[0]) == (2, 1)


def test_victory_and_outcome_word_for_word() -> None:
    state = with_coins(huginn_first(), 0, silfr=10)
    state, _ = play(state, Journey(AMBER), DrawTiles(2), Draw(COW_1_1), Draw(PIG2), PlaceTile(COW_1_1))
    won, events = play(state, PlaceKittens(1))
    assert texts(events)[-1] == (
        "VICTORY",
        "Player 1 fulfilled the red victory card \u201c12 Silfr\u201d and wins!",
        0,
    )
    assert events[-1].detail == EventDetail(card=0)
    assert (won.phase, won.actor, won.winner, won.won_card, won.placed, won.buffed) == (
        Phase.OVER,
        -1,
        0,
        0,
        -1,
        False,
    )
    assert GAME.outcome(won) == core.Outcome(
        Result.WIN, (0,), "Player 1 fulfilled the red victory card \u201c12 Silfr\u201d and wins."
    )
    assert GAME.outcome(state) is None
    assert GAME.to_act(won) == core.ToAct(())
    assert GAME.legal_moves(won) == ()
    assert GAME.chance(won) is None
    assert GAME.to_act(state) == core.ToAct((0,), False)
    assert refusal(won, Journey(BIRCH)) == core.GAME_OVER


# --------------------------------------------------------------------------- journeys


def test_return_journeys_go_out_and_back_word_for_word() -> None:
    state = base()._replace(
        options=Options(seat_boards=("bygul", "huginn"), starting_seat=0, return_journeys=True)
    )
    state = check(state)
    assert Journey(NORTHWIND) in GAME.legal_moves(state)
    after, events = play(state, Journey(NORTHWIND))
    assert texts(events)[0] == (
        "JOURNEY",
        "Player 1 journeyed out from Northwind Point and back (2 steps).",
        0,
    )
    assert events[0].detail == EventDetail(NORTHWIND, count=2)
    assert after.ships[0] == NORTHWIND
    assert Journey(NORTHWIND) not in GAME.legal_moves(base())


# --------------------------------------------------------------------------- check_state


def _broken() -> dict[str, tuple[State, list[FieldViolation]]]:
    """One crafted impossible state per invariant, with what ``check_state`` says about it."""
    s = base()
    opts = s.options
    lid = s.lid
    cases: dict[str, tuple[State, list[FieldViolation]]] = {}

    def case(name: str, state: State, field: str, description: str) -> None:
        cases[name] = (state, [FieldViolation(field, description)])

    bad_json = "{"
    case(
        "components",
        s._replace(options=Options(components=bad_json, seat_boards=opts.seat_boards, starting_seat=0)),
        "options.components",
        "the components are not valid JSON: Expecting property name enclosed in double quotes: line 1 "
        "column 2 (char 1)",
    )
    case("players", s._replace(players=7), "players", "must be 2 to 6")
    case("one player", s._replace(players=1), "players", "must be 2 to 6")
    case(
        "starting seat",
        s._replace(options=Options(seat_boards=opts.seat_boards, starting_seat=2)),
        "options.starting_seat",
        "must be a seat from 0 to 1 (unset: drawn at random)",
    )
    case("per seat", s._replace(silfr=(0, 0, 0)), "silfr", "every per-player list needs 2 entries")
    case("per seat ships", s._replace(ships=(0,)), "ships", "every per-player list needs 2 entries")
    case("lid kinds", s._replace(lid=lid[:-1]), "lid", "counts each of the 36 kinds of Animal tile")
    for field in ("tiles", "kittens", "big_cats", "friends"):
        case(
            f"regions {field}",
            s._replace(**{field: getattr(s, field)[:-1]}),
            "regions",
            "describe each of the 31 regions of the map",
        )
    case(
        "kitten row",
        s._replace(kittens=_set(s.kittens, 3, (0, 0, 0))),
        "regions",
        "count the Kittens of each of the 2 players",
    )
    mine = "each player has a cat board of their own (-1 until chosen)"
    case("same board", s._replace(boards=(0, 0)), "boards", mine)
    case("no board", s._replace(boards=(0, 6)), "boards", mine)
    case("board below -1", s._replace(boards=(0, -2)), "boards", mine)
    swapped = s._replace(boards=(1, 0), ships=(R.board_shield[1], R.board_shield[0]))
    case("boards of the options", swapped, "boards", "must be the cat boards the options give the seats")
    case(
        "ship at sea",
        s._replace(ships=(WHALE_SEA, s.ships[1])),
        "players[0].ship",
        "stands in a land region (or -1 before setup)",
    )
    case(
        "ship off the map",
        s._replace(ships=(s.ships[0], 31)),
        "players[1].ship",
        "stands in a land region (or -1 before setup)",
    )
    kinds = "Animal tiles are kinds 0 to 35, counts are not negative"
    case("drawn kind", s._replace(drawn=(36,)), "drawn", kinds)
    case("placed kind", s._replace(tiles=_set(s.tiles, BIRCH, (-1,))), "tiles", kinds)
    case("negative lid", s._replace(lid=_set(lid, 0, -1)), "lid", kinds)
    once = "every Animal tile is in the box lid, drawn, or on the map exactly once"
    case("too many tiles", s._replace(lid=_set(lid, 0, 3)), "lid", once)
    case("a tile missing", s._replace(lid=_set(lid, 0, 1)), "lid", once)
    case(
        "tile at sea",
        s._replace(tiles=_set(s.tiles, WHALE_SEA, (0,)), lid=_set(lid, 0, 1)),
        "regions[23]",
        "Animal tiles and Cats are placed on land only",
    )
    sea_kitten = s._replace(kittens=_set(s.kittens, WHALE_SEA, (1, 0)), kittens_left=(9, 10))
    case(
        "kitten at sea",
        sea_kitten._replace(friends=_set(s.friends, WHALE_SEA, 0)),
        "regions[23]",
        "Animal tiles and Cats are placed on land only",
    )
    case(
        "big cat at sea",
        s._replace(
            big_cats=_set(s.big_cats, WHALE_SEA, 0),
            big_cats_left=(1, 2),
            friends=_set(s.friends, WHALE_SEA, 0),
        ),
        "regions[23]",
        "Animal tiles and Cats are placed on land only",
    )
    case(
        "negative kittens left",
        s._replace(kittens_left=(-1, 10)),
        "kittens_left[0]",
        "Kitten counts cannot be negative",
    )
    case(
        "negative kittens",
        s._replace(kittens=_set(s.kittens, BIRCH, (0, -1)), kittens_left=(10, 11)),
        f"kittens[{BIRCH}]",
        "Kitten counts cannot be negative",
    )
    owner = "a region's Big Cat belongs to a seat (-1 = none)"
    case("big cat of nobody", s._replace(big_cats=_set(s.big_cats, 3, 2)), "big_cats[3]", owner)
    case("big cat below -1", s._replace(big_cats=_set(s.big_cats, 3, -2)), "big_cats[3]", owner)
    left = "Big Cat counts cannot be negative"
    case("negative big cats left", s._replace(big_cats_left=(-1, 2)), "big_cats_left[0]", left)
    friend = "a region's Friend is a seat (-1 = none)"
    case("friend of nobody", s._replace(friends=_set(s.friends, 3, 2)), "friends[3]", friend)
    case("friend below -1", s._replace(friends=_set(s.friends, 3, -2)), "friends[3]", friend)
    coins = "Silfr and Scrolls cannot be negative"
    case("negative silfr", s._replace(silfr=(-1, 0)), "silfr[0]", coins)
    case("negative scrolls", s._replace(scrolls=(0, -1)), "scrolls[1]", coins)
    case(
        "a kitten lost",
        s._replace(kittens_left=(9, 10)),
        "players[0]",
        "has 10 Kittens and 2 Big Cats, on the map or on the cat board",
    )
    case(
        "a big cat lost",
        s._replace(big_cats_left=(2, 1)),
        "players[1]",
        "has 10 Kittens and 2 Big Cats, on the map or on the cat board",
    )
    k = with_kittens(s, BIRCH, 1, 1)
    case(
        "big cat and kittens",
        k._replace(
            big_cats=_set(k.big_cats, BIRCH, 0), big_cats_left=(1, 2), friends=_set(k.friends, BIRCH, 0)
        ),
        "regions[3]",
        "a Big Cat sends every Kitten home: none share its region",
    )
    case(
        "wrong friend",
        k._replace(friends=_set(k.friends, BIRCH, 0)),
        "friends[3]",
        "must be the player with a Big Cat or the most Kittens there (on a tie, per the kitten_tie option)",
    )
    b = with_big_cat(s, BIRCH, 1)
    case(
        "big cat's owner not friend",
        b._replace(friends=_set(b.friends, BIRCH, 0)),
        "friends[3]",
        "must be the player with a Big Cat or the most Kittens there (on a tie, per the kitten_tie option)",
    )
    distinct = "the face-up victory cards are distinct cards 0 to 25"
    case("card off the deck", s._replace(cards=(0, 1, 5, 10, 26)), "cards", distinct)
    case("negative card", s._replace(cards=(0, 1, 5, 10, -1)), "cards", distinct)
    case("card twice", s._replace(cards=(0, 1, 5, 5, 22)), "cards", distinct)
    layout = "the variant lays out 2 red, 2 green, 1 yellow"
    case(
        "yellow for green", s._replace(cards=(0, 1, 5, 22, 23)), "cards[3]", f"must be a green card: {layout}"
    )
    case(
        "reds out of order", s._replace(cards=(1, 0, 5, 10, 22)), "cards[0]", f"must be a red card: {layout}"
    )
    case("green for red", s._replace(cards=(2, 1, 5, 10, 22)), "cards[0]", f"must be a red card: {layout}")
    case(
        "six cards", s._replace(cards=(0, 1, 5, 10, 22, 23)), "cards", "the variant lays out 5 victory cards"
    )
    case("negative ply", s._replace(ply=-1), "ply", "must not be negative")
    # the phases
    seats = "actor, turn and the starting seat are seats"
    case("actor", s._replace(actor=2), "actor", seats)
    case("actor below -1", s._replace(actor=-2), "actor", seats)
    case("turn", s._replace(turn=-1), "actor", seats)
    case("turn past the seats", s._replace(turn=2), "actor", seats)
    case("start", s._replace(start=2), "actor", seats)
    case("start below -1", s._replace(start=-2), "actor", seats)
    counts = "placed is a kind of tile or -1; to_draw and step are not negative"
    case("placed kind", s._replace(placed=36), "placed", counts)
    case("placed below -1", s._replace(placed=-2), "placed", counts)
    case("to_draw", s._replace(to_draw=-1), "placed", counts)
    case("step", s._replace(step=-1), "placed", counts)
    over = "is set only when the game is over"
    case("winner", s._replace(winner=0), "winner", over)
    case("won card", s._replace(won_card=0), "winner", over)
    drawn = "tiles are drawn only while a draw is made and chosen from"
    case("drawn", s._replace(drawn=(0,), lid=_set(lid, 0, 1)), "drawn", drawn)
    case("to draw", s._replace(to_draw=1), "drawn", drawn)
    case(
        "placed before the cats",
        with_tile(s, NORTHWIND, 0)._replace(placed=0),
        "placed",
        "names the tile placed this turn until the Cats are placed",
    )
    buff = "a Buff is used during a turn, with the Buff option"
    case("buffed at the journey", s._replace(buffed=True), "buffed", buff)
    buffs_on = cleared(started(buff=True))
    case("buffed before the turn", buffs_on._replace(buffed=True), "buffed", buff)
    offer, _ = play(s, Journey(BIRCH))
    case("buffed without the option", offer._replace(buffed=True), "buffed", buff)
    case("step in a turn", s._replace(step=1), "phase", "JOURNEY: turns begin once every Longship is set up")
    case(
        "ship not set up",
        s._replace(ships=(-1, s.ships[1])),
        "phase",
        "JOURNEY: turns begin once every Longship is set up",
    )
    case("actor not on turn", s._replace(actor=1), "actor", "must be 0 in JOURNEY")
    everything = tuple(t for t in range(R.tiles) for _ in range(R.tile_copies[t]))
    case(
        "offer from an empty lid",
        offer._replace(lid=(0,) * R.tiles, tiles=_set(offer.tiles, SMITHS, everything)),
        "phase",
        "DRAW_OFFER: tiles are drawn from a non-empty lid in an empty Region or where you have a Friend",
    )
    theirs = with_kittens(with_tile(s, BIRCH, 0), BIRCH, 1, 1)
    case(
        "offer where another is Friends",
        theirs._replace(ships=(BIRCH, s.ships[1]), phase=Phase.DRAW_OFFER),
        "phase",
        "DRAW_OFFER: tiles are drawn from a non-empty lid in an empty Region or where you have a Friend",
    )
    drawing, _ = play(offer, DrawTiles(2))
    case(
        "nothing to draw",
        drawing._replace(to_draw=0),
        "phase",
        "DRAWING: a tile is left to draw from the box lid",
    )
    short = drawing._replace(
        lid=_set((0,) * R.tiles, 0, 1), tiles=_set(drawing.tiles, SMITHS, everything[1:])
    )
    case("lid shorter than the draw", short, "phase", "DRAWING: a tile is left to draw from the box lid")
    case(
        "drawing where another is Friends",
        theirs._replace(ships=(BIRCH, s.ships[1]), phase=Phase.DRAWING, to_draw=2),
        "phase",
        "DRAWING: a tile is left to draw from the box lid",
    )
    case("drawing too many", drawing._replace(to_draw=4), "phase", "DRAWING: no player draws that many tiles")
    chosen, _ = play(drawing, Draw(0), Draw(1))
    case(
        "choosing from nothing",
        chosen._replace(drawn=(), lid=_set(_set(chosen.lid, 0, 2), 1, 2)),
        "phase",
        "CHOOSE_TILE: drawn tiles wait to be placed or returned",
    )
    case(
        "choosing from too many",
        chosen._replace(drawn=(0, 1, 2, 3), lid=_set(_set(chosen.lid, 2, 1), 3, 0)),
        "phase",
        "CHOOSE_TILE: no player draws that many tiles",
    )
    cats, _ = play(chosen, PlaceTile(0))
    case(
        "placed tile elsewhere",
        cats._replace(placed=1),
        "phase",
        "PLACE_CATS: the tile placed this turn lies next to the Longship",
    )
    case(
        "placed tile gone",
        cats._replace(tiles=_set(cats.tiles, BIRCH, ()), lid=_set(cats.lid, 0, 2)),
        "phase",
        "PLACE_CATS: the tile placed this turn lies next to the Longship",
    )
    finished = s._replace(phase=Phase.OVER, actor=-1, winner=0, won_card=0)
    unearned = "OVER: a finished game names its winner and the victory card they fulfilled"
    case("winner without the card", finished, "phase", unearned)
    case("winner of no seat", finished._replace(winner=2, silfr=(12, 12)), "phase", unearned)
    case("card not laid out", finished._replace(won_card=3, silfr=(12, 0)), "phase", unearned)
    case("over actor", finished._replace(actor=0, silfr=(12, 0)), "actor", "must be -1 in OVER")
    return cases


@pytest.mark.parametrize("name", list(_broken()))
def test_check_state_names_each_broken_invariant_word_for_word(name: str) -> None:
    state, expected = _broken()[name]
    assert GAME.check_state(state) == expected


def test_check_state_accepts_the_states_next_to_the_broken_ones() -> None:
    s = base()
    check(s._replace(phase=Phase.OVER, actor=-1, winner=0, won_card=0, silfr=(12, 0)))
    check(s._replace(phase=Phase.OVER, actor=-1, winner=1, won_card=1, scrolls=(0, 12)))
    offer, _ = play(cleared(started(buff=True)), Journey(BIRCH))
    check(offer._replace(buffed=True))
    check(with_big_cat(s, BIRCH, 1))
    tie = with_kittens(with_kittens(s, BIRCH, 0, 1), BIRCH, 1, 1)
    assert tie.friends[BIRCH] == 0  # the Friend keeps a tie
    check(tie._replace(friends=_set(tie.friends, BIRCH, 0)))


def _setup_broken() -> dict[str, tuple[State, list[FieldViolation]]]:
    g = GAME.new_game(2, Options(), Rng.from_seed(1))
    cases: dict[str, tuple[State, list[FieldViolation]]] = {}

    def case(name: str, state: State, *violations: tuple[str, str]) -> None:
        cases[name] = (state, [FieldViolation(f, d) for f, d in violations])

    case(
        "deal with a step",
        g._replace(step=1),
        ("phase", "SETUP_DEAL: the setup of the Longships goes seat by seat"),
        ("actor", "must be 0 in SETUP_DEAL"),
    )
    case(
        "coins at setup",
        g._replace(silfr=(1, 0)),
        ("phase", "SETUP_DEAL: no coins are dealt out during the setup"),
        ("actor", "must be 0 in SETUP_DEAL"),
    )
    case(
        "scrolls at setup",
        g._replace(scrolls=(0, 1)),
        ("phase", "SETUP_DEAL: no coins are dealt out during the setup"),
        ("actor", "must be 0 in SETUP_DEAL"),
    )
    case(
        "deal after the start",
        g._replace(start=0),
        ("phase", "SETUP_DEAL: the victory cards are dealt first"),
    )
    case(
        "deal on the map",
        g._replace(tiles=_set(g.tiles, 0, (0,)), lid=_set(g.lid, 0, 1)),
        ("phase", "SETUP_DEAL: the victory cards are dealt first"),
    )
    case(
        "deal with a ship",
        g._replace(ships=(0, -1)),
        ("phase", "SETUP_DEAL: the victory cards are dealt first"),
    )
    case("deal the reds", g._replace(cards=()), ("phase", "SETUP_DEAL: a colour laid out whole is not dealt"))
    case("deal by a player", g._replace(actor=0), ("actor", "must be -1 in SETUP_DEAL"))
    g2, _ = play(g, Draw(5), Draw(6))
    case(
        "deal done",
        g2._replace(cards=(*g2.cards, 20)),
        ("phase", "SETUP_DEAL: the victory cards are dealt first"),
    )
    g2, _ = play(g2, Draw(20))
    drawn_start = "SETUP_START: the starting player is drawn after the cards are laid out"
    case("start before the deal", g2._replace(cards=g2.cards[:-1]), ("phase", drawn_start))
    case("start known", g2._replace(start=0), ("phase", drawn_start))
    case(
        "start given",
        g2._replace(options=Options(starting_seat=0)),
        ("phase", drawn_start),
    )
    case(
        "start on the map",
        g2._replace(tiles=_set(g2.tiles, 0, (0,)), lid=_set(g2.lid, 0, 1)),
        ("phase", drawn_start),
    )
    case("start by a player", g2._replace(actor=1), ("actor", "must be -1 in SETUP_START"))
    g3, _ = play(g2, Draw(1))
    known = "the Longships are set up once the cards and the starting player are known"
    case("boards before the start", g3._replace(start=-1), ("phase", f"SETUP_BOARD: {known}"))
    case("boards before the deal", g3._replace(cards=g3.cards[:-1]), ("phase", f"SETUP_BOARD: {known}"))
    before = "SETUP_BOARD: the cat boards are chosen before the Longships are set up"
    case(
        "boards out of turn",
        g3._replace(turn=0, actor=0),
        ("phase", before),
        ("actor", "must be 1 in SETUP_BOARD"),
    )
    case("boards with a ship", g3._replace(ships=(-1, 0)), ("phase", before))
    case(
        "boards on the map",
        g3._replace(tiles=_set(g3.tiles, 0, (0,)), lid=_set(g3.lid, 0, 1)),
        ("phase", before),
    )
    g4, _ = play(g3, ChooseBoard(0), ChooseBoard(1))
    case(
        "tile past the seats",
        g4._replace(step=2),
        ("phase", "SETUP_TILE: the Longships are set up once every cat board is chosen"),
    )
    case("tile out of turn", g4._replace(turn=0), ("phase", "SETUP_TILE: the seat being set up is on turn"))
    shield = "SETUP_TILE: each Longship starts on its shield, seat by seat"
    case("tile without a ship", g4._replace(ships=(-1, -1)), ("phase", shield))
    case("tile with an early ship", g4._replace(ships=(2, 0)), ("phase", shield))
    case(
        "tile with an early tile",
        g4._replace(tiles=_set(g4.tiles, 0, (0,)), lid=_set(g4.lid, 0, 1)),
        (
            "phase",
            "SETUP_TILE: each Longship is set up with one face-up Animal tile",
        ),
    )
    g5, _ = play(g4, Draw(0))
    case(
        "cat without its tile",
        g5._replace(tiles=_set(g5.tiles, 0, ()), lid=_set(g5.lid, 0, 2)),
        ("phase", "SETUP_CAT: each Longship is set up with one face-up Animal tile"),
    )
    early = g5._replace(
        kittens=_set(g5.kittens, 0, (0, 1)), kittens_left=(10, 9), friends=_set(g5.friends, 0, 1)
    )
    case(
        "cat already placed",
        early,
        ("phase", "SETUP_CAT: each Longship is set up with one Kitten or one Big Cat"),
    )
    case("cat by the other seat", g5._replace(actor=0), ("actor", "must be 1 in SETUP_CAT"))
    g6, _ = play(g5, PlaceKittens(1))
    one_cat = "SETUP_TILE: each Longship is set up with one Kitten or one Big Cat"
    case(
        "set up without a cat",
        g6._replace(
            kittens=_set(g6.kittens, 0, (0, 0)), kittens_left=(10, 10), friends=_set(g6.friends, 0, -1)
        ),
        ("phase", one_cat),
    )
    case(
        "set up with two kittens",
        g6._replace(kittens=_set(g6.kittens, 0, (0, 2)), kittens_left=(10, 8)),
        ("phase", one_cat),
    )
    extra = "SETUP_TILE: nothing but the setup tiles and Cats is on the map"
    case(
        "a tile elsewhere",
        g6._replace(tiles=_set(g6.tiles, 5, (1,)), lid=_set(g6.lid, 1, 1)),
        ("phase", extra),
    )
    case(
        "a kitten elsewhere",
        g6._replace(kittens=_set(g6.kittens, 5, (1, 0)), kittens_left=(9, 9), friends=_set(g6.friends, 5, 0)),
        ("phase", extra),
    )
    case(
        "a big cat elsewhere",
        g6._replace(big_cats=_set(g6.big_cats, 5, 0), big_cats_left=(1, 2), friends=_set(g6.friends, 5, 0)),
        ("phase", extra),
    )
    return cases


@pytest.mark.parametrize("name", list(_setup_broken()))
def test_check_state_keeps_the_setup_in_order_word_for_word(name: str) -> None:
    state, expected = _setup_broken()[name]
    assert GAME.check_state(state) == expected


def test_check_state_accepts_every_setup_step() -> None:
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    while state.phase is not Phase.JOURNEY:
        check(state)
        state, _ = GAME.apply(state, GAME.legal_moves(state)[-1])
    big = GAME.new_game(2, Options(), Rng.from_seed(1))
    while big.phase is not Phase.JOURNEY:
        moves = GAME.legal_moves(big)
        big, _ = GAME.apply(big, PlaceBigCat() if PlaceBigCat() in moves else moves[0])
        check(big)
    assert sum(1 for b in big.big_cats if b >= 0) == 2


# --------------------------------------------------------------------------- options and small boards


def test_every_option_problem_word_for_word() -> None:
    assert GAME.option_problems(Options(seat_boards=("bygul", "nope", "bygul")), 2) == [
        FieldViolation(
            "seat_boards",
            "names a cat board for each of the 2 players (or none: each player chooses at setup), not 3",
        ),
        FieldViolation(
            "seat_boards",
            "'nope' is not a cat board; they are bygul, huginn, munin, sleipnir, saehrimnir, trjegul",
        ),
        FieldViolation("seat_boards", "each player takes a cat board of their own"),
    ]
    assert GAME.option_problems(Options(starting_seat=-2), 2) == [
        FieldViolation("starting_seat", "must be a seat from 0 to 1 (unset: drawn at random)")
    ]
    assert GAME.option_problems(Options(starting_seat=-1, seat_boards=("munin", "bygul")), 2) == []
    assert GAME.option_problems(Options(starting_seat=1), 2) == []
    with pytest.raises(core.LawspeakerError) as err:
        GAME.new_game(2, Options(seat_boards=("bygul",)), Rng.from_seed(1))
    assert err.value.reason == "INVALID_OPTIONS"
    assert str(err.value) == (
        "seat_boards: names a cat board for each of the 2 players (or none: each player chooses at setup), "
        "not 1"
    )
    assert err.value.field_violations == (
        FieldViolation(
            "seat_boards",
            "names a cat board for each of the 2 players (or none: each player chooses at setup), not 1",
        ),
    )
    given = GAME.new_game(2, Options(seat_boards=("munin", "bygul")), Rng.from_seed(1))
    assert given.boards == (2, 0) and given.kittens_left == (10, 10) and given.big_cats_left == (2, 2)


def _short_boards(steps: int) -> str:
    """Components whose cat boards journey only ``steps`` steps, on the reference map without its two
    small islands (sea instead), so that every land region has a land neighbour 1 step away."""
    boards = [dict(b, journey_steps=steps) for b in REFERENCE_DATA["cat_boards"]["boards"]]
    drawing = dict(REFERENCE_DATA["map"])
    drawing["grid"] = [row.replace("V", "c").replace("W", "g") for row in drawing["grid"]]
    drawing["regions"] = [r for r in drawing["regions"] if r["code"] not in "VW"]
    return json.dumps({"map": drawing, "cat_boards": {"boards": boards}})


def test_a_journey_out_and_back_takes_two_steps_and_a_buff_where_the_board_has_one() -> None:
    """SEA_AND_STEPS, option return_journeys: out and back is 2 steps, so a board of 1 step needs the
    Buff's extra step for it, and without return journeys it is never listed."""
    opts: dict[str, Any] = {"components": _short_boards(1), "return_journeys": True, "buff": True}
    state = with_coins(cleared(started(**opts)), 0, silfr=2)
    moves = GAME.legal_moves(state)
    assert Journey(NORTHWIND) not in moves
    assert Journey(NORTHWIND, SILFR) in moves
    assert refusal(state, Journey(NORTHWIND)) == Violation(
        "TOO_FAR",
        "Northwind Point is 2 steps away (crossing a white line counts as 1 step); you may journey up to 1 "
        "steps. A Buff (2 Silfr or 2 Scrolls) would give you 1 step more.",
        "journey.region",
    )
    _, events = play(state, Journey(NORTHWIND, SILFR))
    assert texts(events) == [
        ("BUFF", "Player 1 spent 2 Silfr on a Buff to journey 1 more step.", 0),
        ("JOURNEY", "Player 1 journeyed out from Northwind Point and back (2 steps).", 0),
    ]
    two = with_coins(cleared(started(**{**opts, "components": _short_boards(2)})), 0, silfr=2)
    assert Journey(NORTHWIND) in GAME.legal_moves(two)
    assert Journey(NORTHWIND, SILFR) not in GAME.legal_moves(two)
    assert refusal(two, Journey(NORTHWIND, SILFR)).message == (
        "Northwind Point is 2 steps away, within your 2 steps: no Buff is needed."
    )
    plain = with_coins(cleared(started(components=_short_boards(1), buff=True)), 0, silfr=2)
    assert Journey(NORTHWIND, SILFR) not in GAME.legal_moves(plain)
    assert refusal(plain, Journey(NORTHWIND, SILFR)).reason == "MUST_JOURNEY"


def test_three_other_tiles_go_back_after_a_buffed_sleipnir_draw() -> None:
    state = with_coins(cleared(started(("sleipnir", "huginn"), buff=True)), 0, scrolls=2)
    state, _ = play(state, Journey(SMITHS), DrawTiles(4, SCROLLS), Draw(0), Draw(1), Draw(2), Draw(6))
    assert state.to_draw == 0 and state.drawn == (0, 1, 2, 6)
    _, events = play(state, PlaceTile(6))
    assert texts(events)[1] == (
        "TILES_RETURNED",
        "Player 1 put the 3 other Animal tiles back face down into the box lid.",
        0,
    )
    _, events = play(state, ReturnTiles())
    assert texts(events) == [
        ("TILES_RETURNED", "Player 1 put the 4 drawn Animal tiles back face down into the box lid.", 0)
    ]


def test_a_view_replaces_the_rng_by_the_all_zero_placeholder() -> None:
    """HIDDEN_LID_AND_DECKS: the order of the lid and the decks is only the RNG, which no view shows:
    every seat and the public see the same all-zero RNG, and nothing else changes."""
    state = GAME.new_game(2, Options(), Rng.from_seed(9))
    hidden = Rng(bytes(32), 0)
    for seat in (0, 1, None):
        view = GAME.view(state, seat)
        assert view.rng == hidden
        assert view._replace(rng=state.rng) == state


def test_the_kittens_per_turn_are_data_however_many() -> None:
    """The rules' numbers are data: with 8 Kittens a turn every count from 0 to 8 is listed."""
    rules = dict(REFERENCE_DATA["rules"], kittens_per_turn=8)
    state = cleared(started(components=json.dumps({"rules": rules})))
    state, _ = play(state, Journey(BIRCH), SkipDraw())
    assert GAME.legal_moves(state) == [*(PlaceKittens(k) for k in range(9)), PlaceBigCat()]
    state, events = play(state, PlaceKittens(8))
    assert texts(events)[0] == ("KITTENS_PLACED", "Player 1 placed 8 Kittens in Birch Hills.", 0)
    assert state.kittens_left[0] == 2
