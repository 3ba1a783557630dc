"""Every reason Penki refuses a move for, with the rule it enforces (DescribeGame's ``reasons``).

One row per reason code that ``Penki.explain`` can return, in the order of ``docs/rules/penki.md``:
what the refusal means for a client, and the rulebook sentence the rule enforces as that document
quotes it, or the engine's reading where the rulebook is silent. Each reason's anchor in the
document (``pass-not-allowed`` for ``PASS_NOT_ALLOWED``) is served with a refused move, so a
frontend can link "see the rule". ``tests/games/test_reasons.py`` keeps this table, the engine's
refusals and the document in step.
"""

from __future__ import annotations

from lawspeaker.games.core import rule_reasons

#: The rule every pair placement follows; three refusals enforce parts of it.
_PLACING = (
    '"The player takes one of the pairs of playing pieces in front of them and places these two pieces '
    'into the cavities of one of the wooden tiles within the play area."'
)
#: The end of the drawing setup.
_FOURTEEN_PAIRS = (
    '"Players continue drawing and placing pieces in this way until each player has 14 pairs in front '
    'of them."'
)

REASONS = rule_reasons(
    "penki",
    (
        "NOT_A_LEGAL_MOVE",
        "A pair placement or tile connection is not among the legal moves for a reason no other code "
        "names; no known position reaches this fallback.",
        "Not in the rulebook: a fallback of the engine, which refuses every move not among the legal "
        "moves and names the rule it breaks with one of the other codes wherever it can.",
    ),
    (
        "SETUP_NOT_FINISHED",
        "A tile or a pair is played while the pairs are still being drawn from the bag.",
        _FOURTEEN_PAIRS,
    ),
    (
        "SETUP_FINISHED",
        "A draw is sent after the setup, when every pair has already been drawn.",
        _FOURTEEN_PAIRS,
    ),
    (
        "NO_SUCH_PIECE",
        "A drawn or placed pair names a piece other than light, dark or joker, or a drawn pair does not "
        "name exactly two pieces.",
        "Not in the rulebook: the pieces come in the rulebook's three kinds, light, dark and joker, so a "
        "move naming anything else names no piece.",
    ),
    (
        "PAIR_NOT_SORTED",
        "An explicit drawn pair names its two pieces out of the order light, dark, joker.",
        "Not in the rulebook: a drawn pair has no order, so the engine names each pair one way only, "
        "light before dark before joker (assumption DRAWING).",
    ),
    (
        "NOT_IN_BAG",
        "An explicit drawn pair names pieces the bag does not hold.",
        '"Taking turns, each player draws 2 pieces from the bag and places them immediately in front of '
        'them as a pair."',
    ),
    (
        "DEAL_DRAWN_BY_SERVER",
        "With the random-pairs setup, a draw names a pair instead of letting the server deal every pair.",
        "Not in the rulebook: the random deal has too many outcomes to list, so the engine lets only the "
        "server deal it, in one step (assumption RANDOM_PAIRS).",
    ),
    (
        "PASS_NOT_ALLOWED",
        "A pass is sent: a turn is always a tile connection or a pair placement.",
        '"It is not permitted to pass your turn."',
    ),
    (
        "PAIR_NOT_HELD",
        "A placement names a pair the player does not hold.",
        _PLACING,
    ),
    (
        "NO_SUCH_TILE",
        "A placement names a position where no tile of the play area has its first cavity (its left "
        "one, or its lower one when upright).",
        _PLACING,
    ),
    (
        "TILE_ALREADY_FILLED",
        "A placement names a tile that already holds a pair.",
        _PLACING,
    ),
    (
        "NO_TILES_LEFT",
        "A tile is connected while the supply is empty.",
        '"The remaining 27 wooden tiles form the common supply."',
    ),
    (
        "UPRIGHT_NOT_ALLOWED",
        "An upright tile is connected in a game whose options allow only horizontal tiles.",
        'Not in the rulebook: the engine reads "horizontally or vertically" as allowing upright tiles, '
        "and the option tiles=PENKI_TILES_HORIZONTAL_ONLY takes the other reading (assumption "
        "TILE_ORIENTATION).",
    ),
    (
        "BELOW_BASE_LINE",
        "A tile would have a cavity below the base line.",
        '"Always watch the base line: no tile may be placed below it, or protrude beyond it."',
    ),
    (
        "SPACE_TAKEN",
        "A tile would cover a cavity of a tile already in the play area.",
        "Not in the rulebook: two tiles cannot lie in the same place, which the rulebook takes for granted.",
    ),
    (
        "NOT_CONNECTED",
        "A tile would not touch the play area at all.",
        '"New tiles must always be connected to the existing play area."',
    ),
    (
        "NOT_IN_STRAIGHT_LINE",
        "A tile would touch the play area only at a corner, or, with alignment=PENKI_ALIGNMENT_TILES, not "
        "sit exactly on top of one tile of its own orientation.",
        '"The tiles have to be connected to one another in a straight line."',
    ),
    (
        "GAP_BELOW_TILE",
        "A cavity of the tile above the base line would have an empty space, not a cavity, directly "
        "below it.",
        '"There must never be a gap or an empty tile between the new tile and the base line."',
    ),
    (
        "TILE_BELOW_NOT_FILLED",
        "A cavity of the tile would rest on a tile that holds no pieces yet.",
        '"The tile below this tile has not yet been filled with playing pieces; therefore, you may not '
        'connect any tile here."',
    ),
    (
        "MAX_WIDTH_EXCEEDED",
        "A tile would make the play area wider than 9 cavities.",
        '"The maximum width of the play area may not exceed 9 cavities."',
    ),
    (
        "MUST_CONNECT_TILE",
        "A pair is placed after the player filled the last two free cavities, when they must connect a "
        "new tile in the same turn.",
        '"If, with this move, the player fills the last two free cavities in the entire play area, they '
        'must immediately connect a new wooden tile, observing the placement rules."',
    ),
)
