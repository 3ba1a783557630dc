"""Exact-value tests of the Penki engine that close gaps found by mutation testing.

The scenarios of ``test_penki_rules.py`` check which reason a move is refused for and that its
sentence names a few words; these pin what a player or a client reads word for word (every refusal
sentence and event text, with its field and player), the heights the engine keeps after connecting
a tile, upright tiles stacked under ``alignment=PENKI_ALIGNMENT_TILES``, and the invariants
``check_state`` enforces on finished games and on the width of the play area. Positions are built
with the helpers of ``test_penki_rules.py``.
"""

from __future__ import annotations

import random
from dataclasses import replace

from test_penki_rules import FLAT, UPRIGHT, TileSpec, _tactical_board, connects, play, position, refused

from lawspeaker.games import core
from lawspeaker.games.core import Event, FieldViolation, Rng, Violation
from lawspeaker.games.penki import (
    DARK,
    GAME,
    JOKER,
    LIGHT,
    PAIR_KINDS,
    XOFF,
    Alignment,
    ConnectTile,
    Draw,
    EventDetail,
    Move,
    Options,
    Pass,
    Phase,
    PlacePair,
    Setup,
    State,
    Stuck,
    Tile,
    Tiles,
    build_layout,
    make_state,
)

L, D, J = LIGHT, DARK, JOKER
STACKED_UPRIGHT = Options(tiles=Tiles.UPRIGHT_ALLOWED, alignment=Alignment.TILES)


def heights(state: State) -> dict[int, int]:
    """The height the layout keeps for every column x that holds a cavity."""
    return {c - XOFF: h for c, h in enumerate(state.layout.heights) if h}


def span(state: State) -> tuple[int, int]:
    """The leftmost and rightmost x the layout keeps."""
    return state.layout.lo - XOFF, state.layout.hi - XOFF


def assert_layout_derived(state: State) -> None:
    """The incrementally kept layout equals the one rebuilt from the tiles, and so do the moves."""
    assert state.layout == build_layout(state.tiles)
    rebuilt = make_state(
        state.options,
        state.phase,
        state.turn,
        state.bag,
        state.hands,
        state.tiles,
        state.winner,
        state.ply,
        state.rng,
    )
    assert list(GAME.legal_moves(state)) == list(GAME.legal_moves(rebuilt))


def refusal(state: State, move: Move) -> Violation:
    """The violation of a move the engine refuses (it is no legal move)."""
    violation = core.validate(GAME, state, move)
    assert violation is not None, move
    return violation


def with_tiles(state: State, tiles: tuple[Tile, ...], **changes: object) -> State:
    """``state`` with other tiles (the layout rebuilt) and other fields, unchecked."""
    fields: dict[str, object] = {
        "options": state.options,
        "phase": state.phase,
        "turn": state.turn,
        "bag": state.bag,
        "hands": state.hands,
        "tiles": tiles,
        "winner": state.winner,
        "ply": state.ply,
        "rng": state.rng,
    }
    fields.update(changes)
    return make_state(**fields)  # type: ignore[arg-type]


#: Four storeys of filler, 8 cavities wide, and three empty tiles on top: with every piece left
#: in dark's hand, light can only connect the fourth top tile (as in ``test_penki_rules``).
STUCK_BOARD: list[TileSpec] = [
    *((x, y, "??") for y in range(4) for x in range(0, 8, 2)),
    *((x, 4, "") for x in range(0, 6, 2)),
]

#: Six storeys of 24 light, 24 dark and 8 jokers with no row of four for either colour, bottom
#: storey first; the seventh storey (light+light, dark+dark, light+light, dark+dark) is in the hands.
FULL_STOREYS = ("JLDDLLDJ", "DDLJDDLL", "LLDDLLJD", "DJLLDDLL", "LLDDJLDD", "DDJLDJLL")


def full_board() -> State:
    """All 28 tiles connected: the six storeys of :data:`FULL_STOREYS` and four empty tiles on top;
    light holds two light pairs, dark two dark pairs, light is on turn. The supply is empty."""
    tiles: list[TileSpec] = [
        (x, y, row[x : x + 2]) for y, row in enumerate(FULL_STOREYS) for x in range(0, 8, 2)
    ]
    tiles += [(x, 6, "") for x in range(0, 8, 2)]
    return position(tiles, hands={0: "LL LL", 1: "DD DD"})


# --------------------------------------------------------------------------- gap 1: upright on upright


def test_with_tiles_alignment_an_upright_tile_stacks_exactly_on_an_upright_tile() -> None:
    """ "The player must connect the wooden tile horizontally or vertically, so that the cavities are
    perfectly aligned." (assumption BRICK_OFFSET, option alignment=PENKI_ALIGNMENT_TILES: a tile above
    the base line sits exactly on one tile of its own orientation, so an upright tile goes on an
    upright tile, and not on a flat one)"""
    tiles = [(0, 0, "??"), (2, 0, "??", "U")]
    state = position(tiles, options=STACKED_UPRIGHT)  # type: ignore[arg-type]
    assert connects(state) == {
        (-2, 0, False),
        (3, 0, False),
        (0, 1, False),
        (-1, 0, True),
        (3, 0, True),
        (2, 2, True),
    }
    # Under the default alignment the upright tiles may also stand on the flat starting tile.
    cavities = position(tiles, options=UPRIGHT)  # type: ignore[arg-type]
    assert connects(cavities) == connects(state) | {(0, 1, True), (1, 1, True)}
    for x in (0, 1):
        assert refusal(state, ConnectTile(x, 1, True)) == Violation(
            "NOT_IN_STRAIGHT_LINE",
            f"An upright tile at ({x}, 1) would not rest on an upright tile: in this game tiles are "
            "connected in a straight line, each exactly on top of one tile of its own orientation.",
            "connect_tile",
        )
    after, events = play(state, ConnectTile(2, 2, True))
    assert after.tiles[-1] == Tile(2, 2, True)
    assert after.tiles[-1].cavities == ((2, 2), (2, 3))
    assert events == [
        Event(
            "TILE_CONNECTED",
            "Light (player 1) connected an upright tile at (2, 2); 25 left in the supply.",
            0,
            EventDetail(tile=Tile(2, 2, True)),
        )
    ]
    assert heights(after) == {0: 1, 1: 1, 2: 4}
    assert_layout_derived(after)
    # The new upright tile is empty: nothing goes on it yet, and nothing overlaps it.
    assert (2, 4, True) not in connects(after)
    refused(after, ConnectTile(2, 4, True), "TILE_BELOW_NOT_FILLED")
    refused(after, ConnectTile(2, 3, True), "SPACE_TAKEN")
    filled, _ = play(after, PlacePair(2, 2, *_held(after, 1)[0]))
    assert (2, 4, True) in connects(filled)
    on_top, _ = play(filled, ConnectTile(2, 4, True))
    assert heights(on_top) == {0: 1, 1: 1, 2: 6}
    assert_layout_derived(on_top)


def _held(state: State, seat: int) -> list[tuple[int, int]]:
    return [PAIR_KINDS[k] for k, n in enumerate(state.hands[seat]) if n]


def test_with_tiles_alignment_an_upright_tile_does_not_stand_on_a_flat_column() -> None:
    """ "so that the cavities are perfectly aligned" (option alignment=PENKI_ALIGNMENT_TILES): on a
    column of two flat tiles only a flat tile stacks; under the default alignment an upright one
    may stand on either of its cavities."""
    tiles = [(0, 0, "??"), (0, 1, "??")]
    state = position(tiles, options=STACKED_UPRIGHT)
    assert connects(state) == {(-2, 0, False), (2, 0, False), (0, 2, False), (-1, 0, True), (2, 0, True)}
    assert refusal(state, ConnectTile(0, 2, True)).reason == "NOT_IN_STRAIGHT_LINE"
    assert refusal(state, ConnectTile(1, 2, True)).reason == "NOT_IN_STRAIGHT_LINE"
    cavities = position(tiles, options=UPRIGHT)
    assert connects(cavities) == connects(state) | {(0, 2, True), (1, 2, True)}


def test_with_tiles_alignment_a_flat_tile_does_not_rest_on_two_upright_tiles() -> None:
    """ "so that the cavities are perfectly aligned" (option alignment=PENKI_ALIGNMENT_TILES): a flat
    tile over two upright tiles sits on no single tile of its own orientation; under the default
    alignment its cavities rest on filled cavities, so it is legal."""
    tiles = [(0, 0, "??"), (2, 0, "??", "U"), (3, 0, "??", "U")]
    state = position(tiles, options=STACKED_UPRIGHT)  # type: ignore[arg-type]
    assert (2, 2, False) not in connects(state)
    assert {(2, 2, True), (3, 2, True)} <= connects(state)
    assert refusal(state, ConnectTile(2, 2)) == Violation(
        "NOT_IN_STRAIGHT_LINE",
        "A flat tile at (2, 2) would not rest on a flat tile: in this game tiles are connected in "
        "a straight line, each exactly on top of one tile of its own orientation.",
        "connect_tile",
    )
    cavities = position(tiles, options=UPRIGHT)  # type: ignore[arg-type]
    assert (2, 2, False) in connects(cavities)
    after, _ = play(cavities, ConnectTile(2, 2))
    assert heights(after) == {0: 1, 1: 1, 2: 3, 3: 3}
    assert_layout_derived(after)


# --------------------------------------------------------------------------- gap 2: check_state


def test_check_state_refuses_a_tile_off_the_tile_below_under_tiles_alignment() -> None:
    """ "so that the cavities are perfectly aligned" (option alignment=PENKI_ALIGNMENT_TILES): a
    position whose tile sits brick-wise, or upright on a flat tile, is no position of that game."""
    sentence = "does not sit exactly on one tile of its own orientation, as alignment TILES requires"
    flat = replace(position([(0, 0, "??"), (2, 0, "??")]), phase=Phase.PLAY)
    tiles = (*flat.tiles, Tile(1, 1))
    assert GAME.check_state(with_tiles(flat, tiles)) == []
    stacked = Options(tiles=Tiles.HORIZONTAL_ONLY, alignment=Alignment.TILES)
    assert GAME.check_state(with_tiles(flat, tiles, options=stacked)) == [
        FieldViolation("tiles[2]", sentence)
    ]
    assert GAME.check_state(with_tiles(flat, (*flat.tiles, Tile(2, 1)), options=stacked)) == []
    upright = replace(position([(0, 0, "??"), (2, 0, "??", "U")], options=STACKED_UPRIGHT), phase=Phase.PLAY)
    on_flat = with_tiles(upright, (*upright.tiles, Tile(1, 1, True)))
    assert GAME.check_state(on_flat) == [FieldViolation("tiles[2]", sentence)]
    assert GAME.check_state(with_tiles(upright, (*upright.tiles, Tile(2, 2, True)))) == []
    assert GAME.check_state(with_tiles(upright, (*upright.tiles, Tile(2, 2, True)), options=UPRIGHT)) == []


def _won_game() -> State:
    state = position([(0, 0, "LL"), (2, 0, "LL"), (4, 0, "")], hands={0: "LD"})
    won, _ = play(state, PlacePair(4, 0, L, D))
    assert won.phase is Phase.OVER and won.winner == 0 and GAME.check_state(won) == []
    return won


def test_check_state_refuses_a_drawn_game_with_a_row_of_five_on_the_board() -> None:
    """ "Form an unbroken row of at least 5 of your own playing pieces" — a row of five ends the game
    with a winner, so a finished game holding one is no draw (invariant of rule 12)."""
    won = _won_game()
    assert GAME.check_state(replace(won, winner=-1)) == [
        FieldViolation("winner", "a row of five is on the board, so the game is not a draw")
    ]
    assert GAME.check_state(replace(won, winner=1)) == [
        FieldViolation("winner", "the winner must have an unbroken row of five")
    ]
    assert GAME.check_state(replace(won, phase=Phase.PLAY, winner=-1)) == [
        FieldViolation("phase", "must be OVER once a row of five is on the board"),
        FieldViolation("phase", "with every cavity filled the player must connect a tile (CONNECT)"),
    ]
    assert GAME.check_state(replace(won, phase=Phase.PLAY)) == [
        FieldViolation("winner", "must be -1 while the game goes on"),
        FieldViolation("phase", "must be OVER once a row of five is on the board"),
        FieldViolation("phase", "with every cavity filled the player must connect a tile (CONNECT)"),
    ]


def test_check_state_refuses_a_play_area_wider_than_9_cavities() -> None:
    """ "The maximum width of the play area may not exceed 9 cavities." (assumption WIDTH)"""
    nine = position(
        [(0, 0, "??"), (2, 0, "??"), (4, 0, "??"), (6, 0, "??"), (8, 0, "??", "U")], options=UPRIGHT
    )
    assert GAME.check_state(nine) == []
    ten = with_tiles(nine, (*nine.tiles, Tile(-1, 0, True)))
    assert GAME.check_state(ten) == [FieldViolation("tiles", "the play area is wider than 9 cavities")]
    # Wider by way of a flat tile, and wider higher up: the width counts every cavity.
    flat = with_tiles(nine, (*nine.tiles, Tile(-2, 0)))
    assert GAME.check_state(flat) == [FieldViolation("tiles", "the play area is wider than 9 cavities")]


def test_check_state_refuses_tiles_the_options_or_the_grid_do_not_allow() -> None:
    """The other shape invariants of the play area, word for word."""
    state = position([(0, 0, "??"), (2, 0, "")], options=UPRIGHT)
    assert GAME.check_state(with_tiles(state, (*state.tiles, Tile(4, 0, True)), options=FLAT)) == [
        FieldViolation("tiles[2]", "is upright, which this game's options do not allow")
    ]
    assert GAME.check_state(with_tiles(state, (*state.tiles, Tile(3, 0)))) == [
        FieldViolation("tiles[2]", "covers a cavity of another tile")
    ]
    assert GAME.check_state(with_tiles(state, (*state.tiles, Tile(2, 1)))) == [
        FieldViolation("tiles[2]", "cavity (2, 1) does not rest on a filled cavity"),
        FieldViolation("tiles[2]", "cavity (3, 1) does not rest on a filled cavity"),
    ]
    assert GAME.check_state(with_tiles(state, (*state.tiles, Tile(5, 0)))) == [
        FieldViolation("tiles", "the cavities on the base line must form one unbroken row")
    ]
    assert GAME.check_state(with_tiles(state, (Tile(2, 0), Tile(0, 0)))) == [
        FieldViolation("tiles[0]", "the starting tile lies horizontally at (0, 0)")
    ]


# --------------------------------------------------------------------------- gap 3: heights kept


def test_connecting_a_tile_raises_exactly_the_heights_of_the_columns_it_covers() -> None:
    """ "There must never be a gap or an empty tile between the new tile and the base line." — the
    engine keeps the height of every column (the layout) and generates connections from it; after
    each connection it holds exactly the heights of the tiles."""
    state = position([(0, 0, "??"), (2, 0, "??")], options=UPRIGHT)
    assert heights(state) == {0: 1, 1: 1, 2: 1, 3: 1} and span(state) == (0, 3)
    right, _ = play(state, ConnectTile(4, 0))
    assert heights(right) == {0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1} and span(right) == (0, 5)
    assert_layout_derived(right)
    left, _ = play(state, ConnectTile(-2, 0))
    assert heights(left) == {-2: 1, -1: 1, 0: 1, 1: 1, 2: 1, 3: 1} and span(left) == (-2, 3)
    assert_layout_derived(left)
    brick, _ = play(state, ConnectTile(1, 1))
    assert heights(brick) == {0: 1, 1: 2, 2: 2, 3: 1} and span(brick) == (0, 3)
    assert_layout_derived(brick)
    upright, _ = play(state, ConnectTile(-1, 0, True))
    assert heights(upright) == {-1: 2, 0: 1, 1: 1, 2: 1, 3: 1} and span(upright) == (-1, 3)
    assert_layout_derived(upright)
    upright_right, _ = play(state, ConnectTile(4, 0, True))
    assert heights(upright_right) == {0: 1, 1: 1, 2: 1, 3: 1, 4: 2} and span(upright_right) == (0, 4)
    assert_layout_derived(upright_right)
    on_top, _ = play(state, ConnectTile(3, 1, True))
    assert heights(on_top) == {0: 1, 1: 1, 2: 1, 3: 3} and span(on_top) == (0, 3)
    assert_layout_derived(on_top)
    # Placing a pair changes no height; the connections follow the filled cavities.
    placed, _ = play(on_top, PlacePair(3, 1, *_held(on_top, 1)[0]))
    assert heights(placed) == heights(on_top) and span(placed) == (0, 3)
    assert_layout_derived(placed)
    assert (3, 3, True) in connects(placed)


def test_the_heights_after_a_whole_random_game_match_the_tiles() -> None:
    """The kept layout stays equal to the one rebuilt from the tiles over a whole game."""
    pick = random.Random(3)
    state = GAME.new_game(2, Options(), Rng.from_seed(3))
    while GAME.outcome(state) is None:
        state, _ = GAME.apply(state, pick.choice(list(GAME.legal_moves(state))))
        assert state.layout == build_layout(state.tiles)


# --------------------------------------------------------------------------- gap 4: refusals word for word


def test_every_setup_refusal_word_for_word() -> None:
    """Each refusal of the setup (rules 2, 3 and 5), with its reason, sentence and field."""
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    assert refusal(state, Pass()) == Violation(
        "PASS_NOT_ALLOWED", "It is not permitted to pass your turn.", "pass"
    )
    not_finished = (
        "The setup is not finished: Light (player 1) must draw from the bag until each player holds 14 pairs."
    )
    assert refusal(state, ConnectTile(2, 0)) == Violation("SETUP_NOT_FINISHED", not_finished, "connect_tile")
    assert refusal(state, PlacePair(0, 0, L, L)) == Violation(
        "SETUP_NOT_FINISHED", not_finished, "place_pair"
    )
    second, _ = play(state, Draw((J, J)))
    assert refusal(second, ConnectTile(2, 0)).message == not_finished.replace(
        "Light (player 1)", "Dark (player 2)"
    )
    no_piece = Violation("NO_SUCH_PIECE", "A pair is two pieces: light, dark or joker.", "draw.pair")
    for pair in ((L, 9), (9, L), (-1, D)):
        assert refusal(state, Draw(pair)) == no_piece
    assert refusal(state, Draw((L, D, J))) == no_piece  # type: ignore[arg-type]
    assert refusal(state, Draw((L,))) == no_piece  # type: ignore[arg-type]
    assert refusal(state, Draw((J, D))) == Violation(
        "PAIR_NOT_SORTED", "Name the drawn pair in the order light, dark, joker: dark+joker.", "draw.pair"
    )
    no_jokers = second
    for _ in range(3):
        no_jokers, _ = play(no_jokers, Draw((J, J)))
    assert no_jokers.bag == (24, 24, 0)
    assert refusal(no_jokers, Draw((L, J))) == Violation(
        "NOT_IN_BAG",
        "The bag does not hold light+joker: it holds 24 light, 24 dark and 0 joker pieces.",
        "draw.pair",
    )
    dealt = GAME.new_game(2, Options(setup=Setup.RANDOM_PAIRS), Rng.from_seed(1))
    assert refusal(dealt, Draw((L, L))) == Violation(
        "DEAL_DRAWN_BY_SERVER",
        "With the random-pairs setup the server deals every pair: send a draw without pieces.",
        "draw.pair",
    )
    played = position([(0, 0, "??"), (2, 0, "")], hands={0: "LL"})
    assert refusal(played, Draw()) == Violation(
        "SETUP_FINISHED", "The setup is over: every pair has been drawn from the bag.", "draw"
    )
    assert refusal(played, Draw((L, L))).reason == "SETUP_FINISHED"


def test_every_placement_refusal_word_for_word() -> None:
    """Each refusal of a pair placement (rules 6 and 9), with its reason, sentence and field."""
    state = position([(0, 0, "LD"), (2, 0, "")], hands={0: "LL LL DJ"})
    assert refusal(state, PlacePair(2, 0, D, L)) == Violation(
        "PAIR_NOT_HELD",
        "Light (player 1) holds no light+dark pair (holds: 2 light+light, 6 dark+dark, 2 dark+joker, 3 "
        "joker+joker).",
        "place_pair",
    )
    assert refusal(state, PlacePair(2, 0, J, L)).message == (
        "Light (player 1) holds no light+joker pair (holds: 2 light+light, 6 dark+dark, 2 dark+joker, 3 "
        "joker+joker)."
    )
    no_piece = Violation("NO_SUCH_PIECE", "A pair is two pieces: light, dark or joker.", "place_pair")
    assert refusal(state, PlacePair(2, 0, L, 7)) == no_piece
    assert refusal(state, PlacePair(2, 0, 7, L)) == no_piece
    assert refusal(state, PlacePair(2, 0, -1, L)) == no_piece
    assert refusal(state, PlacePair(1, 0, L, L)) == Violation(
        "NO_SUCH_TILE",
        "No tile of the play area has its first cavity at (1, 0): name a tile by its left (or, upright, "
        "lower) cavity.",
        "place_pair",
    )
    assert refusal(state, PlacePair(2, 1, L, L)).reason == "NO_SUCH_TILE"
    assert refusal(state, PlacePair(0, 0, L, L)) == Violation(
        "TILE_ALREADY_FILLED", "The tile at (0, 0) already holds a pair: choose an empty tile.", "place_pair"
    )
    empty_handed = position(STUCK_BOARD, hands={0: ""})
    assert not any(empty_handed.hands[0])
    assert refusal(empty_handed, PlacePair(0, 4, L, L)) == Violation(
        "PAIR_NOT_HELD", "Light (player 1) holds no light+light pair (holds: no pairs).", "place_pair"
    )
    dark = position([(0, 0, "??"), (2, 0, "")], hands={1: "DD"}, turn=1)
    assert refusal(dark, PlacePair(2, 0, L, L)).message.startswith("Dark (player 2) holds no light+light")
    forced, _ = play(state, PlacePair(2, 0, L, L))
    assert forced.phase is Phase.CONNECT
    assert refusal(forced, PlacePair(0, 0, L, L)) == Violation(
        "MUST_CONNECT_TILE",
        "Light (player 1) filled the last two free cavities and must now connect a new tile, not place "
        "another pair.",
        "place_pair",
    )
    assert refusal(forced, Pass()).reason == "PASS_NOT_ALLOWED"
    # The fallback sentence, which no refused placement reaches (explain asked of a legal move).
    assert GAME.explain(state, PlacePair(2, 0, L, L)) == Violation(
        "NOT_A_LEGAL_MOVE", "That pair cannot be placed at (2, 0).", "place_pair"
    )


def test_every_connection_refusal_word_for_word() -> None:
    """Each refusal of a tile connection (rules 7 and 8), with its reason, sentence and field."""
    f = "connect_tile"
    state = position([(0, 0, "??"), (0, 1, "??"), (0, 2, "??"), (2, 0, "??"), (4, 0, "")])
    assert refusal(state, ConnectTile(6, 0, True)) == Violation(
        "UPRIGHT_NOT_ALLOWED",
        "Tiles lie horizontally in this game (two cavities side by side): its options do not allow upright "
        "tiles.",
        f,
    )
    assert refusal(state, ConnectTile(0, -1)) == Violation(
        "BELOW_BASE_LINE",
        "A tile at (0, -1) protrudes below the base line: no tile may be placed below it.",
        f,
    )
    assert refusal(state, ConnectTile(1, 0)) == Violation(
        "SPACE_TAKEN", "A tile at (1, 0) would cover a cavity of another tile.", f
    )
    assert refusal(state, ConnectTile(7, 0)) == Violation(
        "NOT_CONNECTED",
        "A tile at (7, 0) would not touch the play area: new tiles must always be connected to it.",
        f,
    )
    assert refusal(state, ConnectTile(2, 4)).reason == "NOT_CONNECTED"
    assert refusal(state, ConnectTile(2, 3)) == Violation(
        "NOT_IN_STRAIGHT_LINE",
        "A tile at (2, 3) would touch the play area only at a corner: tiles have to be connected to one "
        "another in a straight line.",
        f,
    )
    assert refusal(state, ConnectTile(-2, 3)).reason == "NOT_IN_STRAIGHT_LINE"
    assert refusal(state, ConnectTile(2, 2)) == Violation(
        "GAP_BELOW_TILE",
        "There would be a gap between a tile at (2, 2) and the base line: the space at (2, 1) must be "
        "filled first.",
        f,
    )
    assert refusal(state, ConnectTile(-2, 1)).message.endswith("the space at (-2, 0) must be filled first.")
    assert refusal(state, ConnectTile(4, 1)) == Violation(
        "TILE_BELOW_NOT_FILLED",
        "The tile holding cavity (4, 0) has not yet been filled with playing pieces, so no tile may be "
        "connected at (4, 1).",
        f,
    )
    assert refusal(state, ConnectTile(3, 1)).message.startswith("The tile holding cavity (4, 0) has not")
    wide = position(
        [(0, 0, "??"), (2, 0, "??"), (4, 0, "??"), (6, 0, "??"), (8, 0, "??", "U")], options=UPRIGHT
    )
    assert refusal(wide, ConnectTile(-1, 0, True)) == Violation(
        "MAX_WIDTH_EXCEEDED",
        "A tile at (-1, 0) would make the play area 10 cavities wide: the maximum is 9.",
        f,
    )
    assert refusal(wide, ConnectTile(-2, 0)).message == (
        "A tile at (-2, 0) would make the play area 11 cavities wide: the maximum is 9."
    )
    assert refusal(wide, ConnectTile(9, 0, True)).reason == "MAX_WIDTH_EXCEEDED"
    # Width is checked last: a tile both too wide and unconnected is NOT_CONNECTED.
    assert refusal(wide, ConnectTile(11, 0)).reason == "NOT_CONNECTED"
    full = full_board()
    assert full.supply == 0
    assert refusal(full, ConnectTile(0, 7)) == Violation(
        "NO_TILES_LEFT", "The supply is empty: every tile is in the play area.", f
    )
    assert refusal(full, ConnectTile(0, 7, True)).reason == "NO_TILES_LEFT"
    # The fallback sentence, which no refused connection reaches (explain asked of a legal move).
    assert GAME.explain(state, ConnectTile(-2, 0)) == Violation(
        "NOT_A_LEGAL_MOVE", "No tile can be connected at (-2, 0).", f
    )


# --------------------------------------------------------------------------- gap 4: events word for word


def test_the_setup_events_and_chance_steps_word_for_word() -> None:
    """The events and chance descriptions of the drawing setup (rules 2 and 3)."""
    state = GAME.new_game(2, Options(), Rng.from_seed(1))
    chance = GAME.chance(state)
    assert chance is not None and chance.description == "Light (player 1) draws two pieces from the bag"
    assert [o.label for o in chance.outcomes] == [
        "light+light",
        "light+dark",
        "light+joker",
        "dark+dark",
        "dark+joker",
        "joker+joker",
    ]
    after, events = play(state, Draw((L, J)))
    assert events == [
        Event("PAIR_DRAWN", "Light (player 1) drew a light+joker pair.", 0, EventDetail(pair=(L, J)))
    ]
    described = GAME.chance(after)
    assert described is not None and described.description == "Dark (player 2) draws two pieces from the bag"
    _, events = play(after, Draw((D, D)))
    assert events == [
        Event("PAIR_DRAWN", "Dark (player 2) drew a dark+dark pair.", 1, EventDetail(pair=(D, D)))
    ]
    for _ in range(27):
        state, events = play(state, Draw())
    assert state.phase is Phase.DRAW and len(events) == 1
    state, events = play(state, Draw())
    assert events[1:] == [Event("SETUP_FINISHED", "Each player holds 14 pairs; play begins.", 0)]
    assert events[0].kind == "PAIR_DRAWN" and events[0].player == 1
    dealt = GAME.new_game(2, Options(setup=Setup.RANDOM_PAIRS), Rng.from_seed(1))
    chance = GAME.chance(dealt)
    assert chance is not None
    assert (
        chance.description
        == "Light (player 1) shuffles the bag and deals all 28 pairs at random, alternately"
    )
    assert [(o.move, o.probability, o.label) for o in chance.outcomes] == [
        (Draw(), 1.0, "the server deals every pair from the RNG")
    ]
    after, events = play(dealt, Draw())
    assert events == [
        Event(
            "PAIRS_DEALT",
            "The bag was shuffled and 28 pairs dealt at random; each player holds 14 pairs and play begins.",
            0,
            EventDetail(hands=after.hands),
        )
    ]


def test_the_play_events_word_for_word() -> None:
    """The events of a connection, a placement and a forced connection (rules 5, 6, 7 and 9)."""
    state = position([(0, 0, "LD"), (2, 0, "")], hands={0: "LD"})
    after, events = play(state, ConnectTile(-2, 0))
    assert events == [
        Event(
            "TILE_CONNECTED",
            "Light (player 1) connected a tile at (-2, 0); 25 left in the supply.",
            0,
            EventDetail(tile=Tile(-2, 0)),
        )
    ]
    after, events = play(state, PlacePair(2, 0, D, L))
    assert events == [
        Event(
            "PAIR_PLACED",
            "Light (player 1) placed dark and light into the tile at (2, 0).",
            0,
            EventDetail(pair=(L, D), tile=Tile(2, 0, False, D, L)),
        ),
        Event(
            "MUST_CONNECT_TILE",
            "Light (player 1) filled the last two free cavities and must immediately connect a new tile.",
            0,
        ),
    ]
    _, events = play(after, ConnectTile(0, 1))
    assert events == [
        Event(
            "TILE_CONNECTED",
            "Light (player 1) connected a tile at (0, 1); 25 left in the supply.",
            0,
            EventDetail(tile=Tile(0, 1)),
        )
    ]
    dark = position([(0, 0, "??")], hands={1: "JJ"}, turn=1, options=UPRIGHT)
    _, events = play(dark, ConnectTile(2, 0, True))
    assert events == [
        Event(
            "TILE_CONNECTED",
            "Dark (player 2) connected an upright tile at (2, 0); 26 left in the supply.",
            1,
            EventDetail(tile=Tile(2, 0, True)),
        )
    ]


def test_the_end_of_game_events_and_outcomes_word_for_word() -> None:
    """The events and outcome summaries of a win, a win for the player who did not play, a skipped
    turn and both kinds of draw (rules 10 and 12)."""
    state = position([(0, 0, "LL"), (2, 0, "LL"), (4, 0, "")], hands={0: "LD"})
    won, events = play(state, PlacePair(4, 0, L, D))
    assert events[1:] == [
        Event(
            "GAME_WON",
            "Light (player 1) has an unbroken row of 5 and wins.",
            0,
            EventDetail(row=((0, 0), (1, 0), (2, 0), (3, 0), (4, 0))),
        )
    ]
    assert GAME.outcome(won) == core.Outcome(
        core.Result.WIN, (0,), "Light (player 1) has an unbroken row of 5 and wins."
    )
    assert won.turn == 0 and won.ply == state.ply + 1
    six = position([(0, 0, "DD"), (2, 0, "DD"), (4, 0, "")], hands={1: "DD"}, turn=1)
    _, events = play(six, PlacePair(4, 0, D, D))
    assert events[-1] == Event(
        "GAME_WON",
        "Dark (player 2) has an unbroken row of 6 and wins.",
        1,
        EventDetail(row=tuple((x, 0) for x in range(6))),
    )
    both = position(_tactical_board(), hands={1: "DJ"}, turn=1)
    after, events = play(both, PlacePair(2, 4, D, J))
    assert after.winner == 0 and after.turn == 1
    assert events[-1] == Event(
        "GAME_WON",
        "The pair completed a row for both players: Light (player 1), who did not play it, wins.",
        0,
        EventDetail(row=tuple((3, y) for y in range(5))),
    )
    assert GAME.outcome(after) == core.Outcome(
        core.Result.WIN, (0,), "Light (player 1) has an unbroken row of 5 and wins."
    )
    skip = position(STUCK_BOARD, hands={0: ""}, turn=1)
    skipped, events = play(skip, ConnectTile(6, 4))
    assert events[1:] == [
        Event(
            "TURN_SKIPPED",
            "Light (player 1) can neither place a pair nor connect a tile, so the turn is skipped: Dark "
            "(player 2) plays again.",
            0,
        )
    ]
    assert skipped.turn == 1 and skipped.ply == skip.ply + 1
    draw_at_once = position(STUCK_BOARD, hands={0: ""}, turn=1, options=replace(FLAT, stuck=Stuck.DRAW))
    drawn, events = play(draw_at_once, ConnectTile(6, 4))
    assert events[1:] == [
        Event(
            "GAME_DRAWN",
            "Light (player 1) can neither place a pair nor connect a tile: the game is a draw.",
            0,
        )
    ]
    assert drawn.phase is Phase.OVER and drawn.turn == 0 and drawn.ply == draw_at_once.ply + 1
    assert GAME.outcome(drawn) == core.Outcome(
        core.Result.DRAW, (), "No legal move remains and nobody formed a row of five: the game is a draw."
    )


def test_the_last_placement_of_a_full_board_without_a_row_is_a_draw_word_for_word() -> None:
    """ "The game may also end in a draw." — with the supply empty, filling the last cavities ends the
    game (assumptions FORCED_CONNECTION, DRAW_GAME)."""
    state = full_board()
    for move in (PlacePair(0, 6, L, L), PlacePair(2, 6, D, D), PlacePair(4, 6, L, L)):
        state, events = play(state, move)
        assert [e.kind for e in events] == ["PAIR_PLACED"]
    assert state.turn == 1 and not any(state.hands[0])
    last, events = play(state, PlacePair(6, 6, D, D))
    assert events[1:] == [
        Event("GAME_DRAWN", "Neither player can place a pair or connect a tile: the game is a draw.", 0)
    ]
    assert last.phase is Phase.OVER and last.winner == -1 and last.turn == 0 and last.ply == state.ply + 1
    assert GAME.check_state(last) == []


# --------------------------------------------------------------------------- check_state, field by field


def test_check_state_names_each_broken_count_word_for_word() -> None:
    """Each invariant on the turn, the bag, the hands and the tiles, broken alone in an otherwise
    valid position, is reported with its field and sentence and nothing else."""
    state = position([(0, 0, "??"), (2, 0, "")])
    assert GAME.check_state(state) == []
    light, dark = state.hands
    assert sum(light) == 14 and light[0] == 11  # light holds eleven light pairs
    more = (light[0] + 1, *light[1:])
    fewer_dark = tuple(n - 1 if k == dark.index(max(dark)) else n for k, n in enumerate(dark))
    broken: list[tuple[State, FieldViolation]] = [
        (replace(state, turn=2), FieldViolation("turn", "must be 0 or 1")),
        (
            with_tiles(state, state.tiles, bag=(-1, 0, 0)),
            FieldViolation("bag", "must count light, dark and joker pieces, none negative"),
        ),
        (
            with_tiles(state, state.tiles, hands=(light,)),
            FieldViolation("hands", "must hold the pairs of exactly two players"),
        ),
        (
            with_tiles(state, state.tiles, hands=((-1, *light[1:]), dark)),
            FieldViolation("hands", "must hold the pairs of exactly two players"),
        ),
        (
            with_tiles(state, state.tiles, hands=((*light, 0), dark)),
            FieldViolation("hands", "must hold the pairs of exactly two players"),
        ),
        (
            with_tiles(state, state.tiles, hands=(more, fewer_dark)),
            FieldViolation("hands[0]", "holds more than 14 pairs"),
        ),
        (with_tiles(state, ()), FieldViolation("tiles", "must hold 1 to 28 tiles")),
        (
            with_tiles(state, (state.tiles[0], Tile(2, 0, False, L, -1))),
            FieldViolation("tiles[1]", "a tile is either empty or holds a pair"),
        ),
        (
            with_tiles(state, (state.tiles[0], Tile(2, 0, False, 5, 5))),
            FieldViolation("tiles[1]", "holds an unknown piece"),
        ),
        (
            with_tiles(state, (*state.tiles, Tile(9, 0))),
            FieldViolation("tiles[2]", "lies off the grid (x -7 to 8, y 0 to 55)"),
        ),
        (
            with_tiles(state, state.tiles, bag=(1, 0, 0)),
            FieldViolation(
                "bag",
                "the bag, the hands and the tiles must hold 24 light, 24 dark and 8 joker pieces in all",
            ),
        ),
        (
            with_tiles(state, state.tiles, bag=(2, 0, 0), hands=((light[0] - 1, *light[1:]), dark)),
            FieldViolation("bag", "must be empty once the setup is over"),
        ),
    ]
    for bad, violation in broken:
        assert GAME.check_state(bad) == [violation]


def test_check_state_keeps_the_setup_in_order() -> None:
    """ "Taking turns, each player draws 2 pieces from the bag ..." (assumptions SEATS, DRAWING,
    RANDOM_PAIRS): during the setup only the empty starting tile lies out, the seats alternate
    starting with seat 0, and a random-pairs deal hands out every pair at once."""
    new = GAME.new_game(2, Options(), Rng.from_seed(1))
    ll = (1, 0, 0, 0, 0, 0)
    one_each = with_tiles(new, new.tiles, bag=(20, 24, 8), hands=(ll, ll))
    assert GAME.check_state(new) == [] and GAME.check_state(one_each) == []
    setup_tiles = FieldViolation("tiles", "only the empty starting tile lies out during the setup")
    alternately = FieldViolation("turn", "the players draw alternately, seat 0 first")
    assert GAME.check_state(with_tiles(new, (*new.tiles, Tile(2, 0)))) == [setup_tiles]
    assert GAME.check_state(with_tiles(new, (Tile(0, 0, False, L, L),), bag=(22, 24, 8))) == [setup_tiles]
    assert GAME.check_state(replace(new, turn=1)) == [alternately]
    assert GAME.check_state(replace(one_each, turn=1)) == [alternately]
    # Seat 0 on turn with an even number of pairs drawn, but both drawn by seat 0.
    assert GAME.check_state(
        with_tiles(new, new.tiles, bag=(20, 24, 8), hands=((2, 0, 0, 0, 0, 0), (0,) * 6))
    ) == [alternately]
    random_pairs = Options(setup=Setup.RANDOM_PAIRS)
    assert GAME.check_state(with_tiles(new, new.tiles, options=random_pairs)) == []
    assert GAME.check_state(with_tiles(one_each, one_each.tiles, options=random_pairs)) == [
        FieldViolation("hands", "with the random-pairs setup every pair is dealt at once")
    ]


def test_check_state_refuses_an_ending_the_position_does_not_bear_out() -> None:
    """A winner needs a row of five (light, seat 0, as much as dark); a draw declared while the
    player on turn can move is refused under ``stuck=PENKI_STUCK_DRAW`` as under the default; and
    phase CONNECT only follows filling the last free cavities."""
    state = position([(0, 0, "??"), (2, 0, "")])
    for winner in (0, 1):
        assert GAME.check_state(replace(state, phase=Phase.OVER, winner=winner)) == [
            FieldViolation("winner", "the winner must have an unbroken row of five")
        ]
    assert GAME.check_state(replace(state, phase=Phase.OVER)) == [
        FieldViolation("winner", "a player can still move, so the game is not a draw")
    ]
    at_once = replace(state.options, stuck=Stuck.DRAW)
    assert GAME.check_state(with_tiles(state, state.tiles, phase=Phase.OVER, options=at_once)) == [
        FieldViolation("winner", "the player on turn can move, so the game is not a draw")
    ]
    assert GAME.check_state(replace(state, phase=Phase.CONNECT)) == [
        FieldViolation("phase", "CONNECT only follows filling the last free cavities, with tiles left")
    ]


def test_check_state_says_what_should_have_happened_to_a_stuck_player() -> None:
    """Assumption DRAW_GAME: light on turn with no pair and the supply empty cannot move; dark can.
    By default light's turn should have been skipped; with ``stuck=PENKI_STUCK_DRAW`` the game should
    be over."""
    board = full_board()
    dark_holds_all = ((0,) * 6, tuple(a + b for a, b in zip(board.hands[0], board.hands[1], strict=True)))
    skip = with_tiles(board, board.tiles, hands=dark_holds_all)
    at_once = with_tiles(skip, skip.tiles, options=replace(skip.options, stuck=Stuck.DRAW))
    assert GAME.check_state(skip) == [
        FieldViolation("phase", "the player on turn has no legal move: the turn should have been skipped")
    ]
    assert GAME.check_state(at_once) == [
        FieldViolation("phase", "the player on turn has no legal move: the game should be over")
    ]
    assert GAME.check_state(replace(skip, turn=1)) == [] and GAME.check_state(replace(at_once, turn=1)) == []


# --------------------------------------------------------------------------- connections at the edges


def test_a_tile_can_be_connected_in_the_rightmost_column_a_9_wide_play_area_reaches() -> None:
    """ "The maximum width of the play area may not exceed 9 cavities." With cavities from x = 0 to
    6, a tile lying at x = 7 (reaching x = 8, the ninth column) is allowed, as is one at x = -2."""
    state = position([(0, 0, "??"), (2, 0, "??"), (4, 0, "??"), (6, 0, "??", "U")], options=UPRIGHT)
    on_base = {c for c in connects(state) if c[1] == 0}
    assert on_base == {(-2, 0, False), (-1, 0, True), (7, 0, False), (7, 0, True)}
    after, events = play(state, ConnectTile(7, 0))
    assert span(after) == (0, 8)
    assert events[0].text == "Light (player 1) connected a tile at (7, 0); 23 left in the supply."


def test_the_last_tile_of_the_supply_is_refused_for_what_is_wrong_with_it() -> None:
    """With one tile left in the supply a misplaced tile is refused for its placement, not for an
    empty supply."""
    board = full_board()
    state = with_tiles(board, board.tiles[:-1])
    assert state.supply == 1 and GAME.check_state(state) == []
    assert (6, 6, False) in connects(state)
    assert refusal(state, ConnectTile(0, 0)) == Violation(
        "SPACE_TAKEN", "A tile at (0, 0) would cover a cavity of another tile.", "connect_tile"
    )


def test_a_tile_touching_only_the_lower_corner_of_an_upright_tile_is_not_in_a_straight_line() -> None:
    """ "The tiles have to be connected to one another in a straight line." (assumption
    STRAIGHT_LINE): an upright tile whose lowest cavity touches the top of an upright tile only
    diagonally, to its lower left or to its lower right, is NOT_IN_STRAIGHT_LINE."""
    corner = (
        "would touch the play area only at a corner: tiles have to be connected to one another in a "
        "straight line."
    )
    right = position([(0, 0, ""), (2, 0, "", "U")], options=UPRIGHT)
    assert refusal(right, ConnectTile(3, 2, True)) == Violation(
        "NOT_IN_STRAIGHT_LINE", f"A tile at (3, 2) {corner}", "connect_tile"
    )
    left = position([(0, 0, ""), (-1, 0, "", "U")], options=UPRIGHT)
    assert refusal(left, ConnectTile(-2, 2, True)) == Violation(
        "NOT_IN_STRAIGHT_LINE", f"A tile at (-2, 2) {corner}", "connect_tile"
    )


def test_a_tile_one_cavity_off_the_tile_below_is_told_so_word_for_word() -> None:
    """Under alignment=TILES a flat tile over two flat tiles sits one cavity off each: the refusal says
    so, where a tile over tiles of the other orientation is told it rests on none of its own."""
    stacked = position(
        [(0, 0, "??"), (2, 0, "??")], options=Options(tiles=Tiles.HORIZONTAL_ONLY, alignment=Alignment.TILES)
    )
    assert refusal(stacked, ConnectTile(1, 1)) == Violation(
        "NOT_IN_STRAIGHT_LINE",
        "A tile at (1, 1) would sit one cavity off the tile below: in this game tiles are connected in "
        "a straight line, each exactly on top of one tile of its own orientation.",
        "connect_tile",
    )


def test_check_state_names_a_winner_who_is_no_player() -> None:
    """A finished game's winner is a seat (0 or 1) or -1 for a draw; any other number is refused, as
    well as what it implies about the row of five on the board."""
    won = _won_game()
    assert GAME.check_state(replace(won, winner=2)) == [
        FieldViolation("winner", "must be -1, 0 or 1"),
        FieldViolation("winner", "the winner must have an unbroken row of five"),
    ]
    assert GAME.check_state(replace(won, winner=-2)) == [
        FieldViolation("winner", "must be -1, 0 or 1"),
        FieldViolation("winner", "a row of five is on the board, so the game is not a draw"),
    ]


def test_check_state_sends_a_full_board_with_no_tile_left_to_the_end_not_to_connect() -> None:
    """With every cavity filled and all 28 tiles connected no tile is left to connect, so a game still
    in PLAY is told it should be over (assumption DRAW_GAME), not that a tile must be connected."""
    state = full_board()
    for move in (PlacePair(0, 6, L, L), PlacePair(2, 6, D, D), PlacePair(4, 6, L, L), PlacePair(6, 6, D, D)):
        state, _ = play(state, move)
    assert state.phase is Phase.OVER and len(state.tiles) == 28 and GAME.check_state(state) == []
    assert GAME.check_state(replace(state, phase=Phase.PLAY)) == [
        FieldViolation("phase", "the player on turn has no legal move: the game should be over")
    ]
