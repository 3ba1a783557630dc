"""Every reason Pax Viking Junior refuses a move for, with the rule it enforces (DescribeGame's ``reasons``).

One row per reason code that ``PaxVikingJunior.explain`` can return, in the order of
``docs/rules/pax-viking-junior.md``: what the refusal means for a client, and the rulebook sentence
the rule enforces as that document quotes it, or the engine's reading where the rulebook is silent
(the chance steps, the numbering of regions and boards, the assumptions that fill its gaps). Each
reason's anchor in the document (``too-far`` for ``TOO_FAR``) is served with a refused move, so a
frontend can link "see the rule". ``tests/games/test_reasons.py`` keeps this table, the engine's
refusals and the document in step.
"""

from __future__ import annotations

from lawspeaker.games.core import rule_reasons

REASONS = rule_reasons(
    "pax-viking-junior",
    (
        "NOT_A_CHANCE_STEP",
        "A Draw is sent while the game waits for a player's decision, not for a card, seat or Animal "
        "tile to be drawn.",
        "Not in the rulebook: the engine makes every shuffle and draw a chance step of its own (a "
        "victory card dealt, the starting player, each Animal tile), the only steps that take a Draw.",
    ),
    (
        "NO_SUCH_OUTCOME",
        "An explicit Draw names an outcome the chance step cannot have: an Animal tile of a kind not in "
        "the box lid, a victory card not left in the deck being dealt, or a seat that does not exist.",
        "Not in the rulebook: each draw is uniform over the tiles in the box lid or the cards not yet "
        "face up, and the engine keeps no order of them (assumption HIDDEN_LID_AND_DECKS).",
    ),
    (
        "NO_SUCH_REGION",
        "A Journey names a region number that is not on the map (DescribeGame data.map.regions).",
        "Not in the rulebook: the map was a picture; the engine numbers the regions of its reference "
        "map, or of the components option's map (assumption REFERENCE_MAP).",
    ),
    (
        "NO_SUCH_BOARD",
        "ChooseBoard names a cat board number that does not exist (DescribeGame data.cat_boards).",
        "Not in the rulebook: the engine numbers the 6 cat boards of its reference components, or those "
        "of the components option (assumption CAT_BOARDS).",
    ),
    (
        "NOT_A_LEGAL_MOVE",
        "A move of the step the game waits for is not among the legal moves for a reason no other code "
        "names; no known position reaches this fallback.",
        "Not in the rulebook: a fallback of the engine, which refuses every move not among the legal "
        "moves and names the rule it breaks with one of the other codes wherever it can.",
    ),
    (
        "BOARD_TAKEN",
        "ChooseBoard names a cat board another player has already taken at setup.",
        '"Each player chooses a player color and takes the Cat board, Longship, Kittens and Big Cats of '
        'that color."',
    ),
    (
        "SETUP_ONE_CAT",
        "At setup a player places anything but exactly one Kitten or one Big Cat with their Longship.",
        '"Each player finds their shield on the map and places their Longhip [sic] there together with '
        'one face up Animal tile and one Kitten or if they prefer one Big Cat."',
    ),
    (
        "WRONG_STEP",
        "A move of another kind than the step waits for is sent, e.g. placing Cats before the journey "
        "or journeying during setup; the message names the step.",
        '"During your turn you do the following in order:"',
    ),
    (
        "NOT_LAND",
        "A Journey names a sea area as its destination.",
        '"You can not cross a black line and you must end your Journey on a Land Region."',
    ),
    (
        "MUST_JOURNEY",
        "A Journey names the region the Longship is already in (allowed only with the option "
        "return_journeys).",
        '"At the start of your turn, Journey your Longship 1, 2 or 3 steps."',
    ),
    (
        "BLACK_LINE",
        "A Journey's destination is within the player's steps only over a black line, or black lines "
        "close every way to it.",
        '"You can not cross a black line and you must end your Journey on a Land Region."',
    ),
    (
        "TOO_FAR",
        "A Journey's destination is more white lines away than the player's cat board allows (3, Bygul "
        "4, one more with a Buff).",
        '"At the start of your turn, Journey your Longship 1, 2 or 3 steps. Crossing a white line counts '
        'as 1 step."',
    ),
    (
        "CANNOT_DRAW_HERE",
        "A DrawTiles or SkipDraw is sent after the draw step was skipped because the Longship's region "
        "has an Animal tile whose animals another player, or nobody, is Friends with.",
        '"If your Longship is in an empty Region or in a Region where you have a Friend and you want to, '
        'draw and reveal 2 Animal tiles."',
    ),
    (
        "LID_EMPTY",
        "A DrawTiles or SkipDraw is sent after the draw step was skipped because the box lid holds no "
        "Animal tile.",
        "Not in the rulebook: the engine assumes that with an empty box lid the draw step is skipped "
        "(assumption SHORT_LID).",
    ),
    (
        "LID_TOO_SMALL",
        "DrawTiles asks for more Animal tiles than the box lid holds; the player draws what is left.",
        "Not in the rulebook: the engine assumes that a player draws what is left when the box lid "
        "holds fewer tiles than the draw (assumption SHORT_LID).",
    ),
    (
        "WRONG_NUMBER_OF_TILES",
        "DrawTiles asks for a number of Animal tiles the player's cat board does not draw (2, Sleipnir 2 "
        "or 3, one more with a Buff).",
        '"If your Longship is in an empty Region or in a Region where you have a Friend and you want to, '
        'draw and reveal 2 Animal tiles."',
    ),
    (
        "TILE_NOT_DRAWN",
        "PlaceTile names an Animal tile kind that is not among the tiles the player just drew.",
        '"Place one of them face up next to your Longship in the Region. Return the unused one(s) back '
        'face down into the box lid."',
    ),
    (
        "TOO_MANY_KITTENS",
        "PlaceKittens asks for more Kittens than a turn allows (0, 1 or 2, or exactly 3 with a Buff), "
        "or for a negative number.",
        '"You can place 0, 1 or 2 of your Kittens or 1 Big Cat."',
    ),
    (
        "NOT_ENOUGH_KITTENS",
        "PlaceKittens asks for more Kittens than are left on the player's cat board.",
        '"You can place 0, 1 or 2 of your Kittens or 1 Big Cat."',
    ),
    (
        "NO_BIG_CAT_LEFT",
        "PlaceBigCat is sent by a player whose Big Cats (2, Trjegul 3) are all placed.",
        '"You can place 0, 1 or 2 of your Kittens or 1 Big Cat."',
    ),
    (
        "NO_CATS_TO_PICK_UP",
        "PickUpCats is sent by a player who has no Kittens in the Longship's region (a placed Big Cat "
        "is never picked up).",
        '"You may if you want to, pick up all your Cats in the Region instead of placing any Cats."',
    ),
    (
        "BIG_CAT_IN_REGION",
        "Kittens or a Big Cat are placed in a region that already has a Big Cat.",
        '"No new Kittens or Big Cats can be added to a Region with a Big Cat in it."',
    ),
    (
        "BUFFS_OFF",
        "A move pays a Buff in a game created without the optional Buff rules (option buff off).",
        '"Once during your turn you may Buff."',
    ),
    (
        "BUFF_USED",
        "A move pays a Buff when the player has already used a Buff this turn.",
        '"Once during your turn you may Buff."',
    ),
    (
        "CANNOT_AFFORD_BUFF",
        "A move pays a Buff with Silfr or Scrolls and the player holds fewer than 2 of that coin.",
        '"A Buff is when you spend 2 Scrolls or 2 Silfr (not one of each) to make an action a bit stronger."',
    ),
    (
        "BUFF_NOT_NEEDED",
        "A move pays a Buff for something the player may do without one: a journey within the cat "
        "board's steps, a draw of the usual number of tiles, or 0 to 2 Kittens.",
        "Not in the rulebook: the engine assumes a Buff is paid with the move it strengthens and only "
        "where it allows what the player could not do without it: 1 more step, 1 more tile or a third "
        "Kitten (assumption BUFF).",
    ),
    (
        "NO_SUCH_PAYMENT",
        "A move's buff field names neither Silfr nor Scrolls.",
        "Not in the rulebook: the engine's buff field names the coin a Buff is paid with, Silfr or "
        "Scrolls; any other value names no payment.",
    ),
)
