"""Every reason Pax Penning refuses a move for, with the rule it enforces (DescribeGame's ``reasons``).

One row per reason code that ``PaxPenning.explain`` can return, in the order of
``docs/rules/pax-penning.md``: what the refusal means for a client, and the rulebook sentence the
rule enforces as that document quotes it, or the engine's reading where the rulebook is silent
(the game is a machine of small steps, and moves name map items by number). Each reason's anchor in
the document (``king-once`` for ``KING_ONCE``) is served with a refused move, so a frontend can link
"see the rule". ``tests/games/test_reasons.py`` keeps this table, the engine's refusals and the
document in step.
"""

from __future__ import annotations

from lawspeaker.games.core import rule_reasons

#: The gathering rule: stones move from Sigtuna, another player's only with their blessing.
_FROM_SIGTUNA = (
    '"Roll 1 die per Silver you have plus 1 die per stone you choose to move from Sigtuna to your House."'
)
_BLESSING = '"With another player\'s blessing, you may move their stones to your House."'
#: The leverage rule: a chosen piece is resolved with a die the player rolled.
_ASSIGN = (
    '"Take 1 chess piece from each, assign them 1 die you rolled, and resolve them (if you only have 1 '
    'die, choose 1)."'
)

REASONS = rule_reasons(
    "pax-penning",
    (
        "NOT_A_LEGAL_MOVE",
        "A move of the kind the step waits for is not among the legal moves for a reason no other code "
        "names; no known position reaches this fallback.",
        "Not in the rulebook: a fallback of the engine, which refuses every move not among the legal "
        "moves and names the rule it breaks with one of the other codes wherever it can.",
    ),
    (
        "WRONG_STEP",
        "The move is of another kind than the current step (State.phase) waits for, for example a "
        "pawn move while the Feast's stone is to be sent.",
        "Not in the rulebook: the engine plays the game as a sequence of small steps, each waiting for "
        "one kind of decision by one player, and refuses any other kind of move.",
    ),
    (
        "NOT_A_CHANCE_STEP",
        "A draw is sent while the step waits for a player's decision, not for chance.",
        "Not in the rulebook: every random part of the game (each die, coin side, market piece and "
        "hierarchy slot) is a chance step of its own, and only a chance step takes a draw (assumption "
        "RANDOM_SETUP_STEPS).",
    ),
    (
        "NO_SUCH_OUTCOME",
        "An explicit draw names an outcome the chance step does not list: a die value outside 1-6, a "
        "coin side other than 0 (Silver) or 1 (Penning), or an index past the pieces or players left.",
        "Not in the rulebook: an explicit outcome (physical dice, a replay) must be one the chance step "
        "lists (assumption RANDOM_SETUP_STEPS).",
    ),
    (
        "NO_STONES_IN_SIGTUNA",
        "Stones are gathered of a colour that has no stone in Sigtuna, or of no player's colour.",
        _FROM_SIGTUNA,
    ),
    (
        "NOT_BLESSED",
        "After a blessing, stones of another colour than the blessing player's are gathered.",
        _BLESSING,
    ),
    (
        "BLESSING_NEEDED",
        "Another player's stones are gathered without that player's blessing.",
        _BLESSING,
    ),
    (
        "ALREADY_GATHERED",
        "Stones of a colour already moved from Sigtuna this turn are gathered again.",
        "Not in the rulebook: the engine moves each colour's stones in one go, once a turn (assumption "
        "BLESSING).",
    ),
    (
        "TOO_MANY_STONES",
        "The number of stones gathered is below 1 or above the stones of that colour in Sigtuna (with "
        "gathering_limited_by_dice, also above the dice left).",
        _FROM_SIGTUNA,
    ),
    (
        "CANNOT_ASK",
        "A blessing is asked of the player themself, of a player with no stone in Sigtuna, or of a "
        "player already asked this turn.",
        "Not in the rulebook: it does not say how a blessing is sought; the engine lets the player ask "
        "each other player with stones in Sigtuna once a turn (assumption BLESSING).",
    ),
    (
        "NOT_ANOTHER_HOUSE",
        "A stone is sent to the sender's own House or to a House no player has.",
        '"For each set of pairs rolled, move 1 stone from your House to another player\'s House"',
    ),
    (
        "NO_SUCH_PAIR",
        "Change Standing names a position i for which the Hierarchy has no slots i and i+1 to swap.",
        '"Change Standing \u2014 Swap 2 adjacent pieces in the Hierarchy."',
    ),
    (
        "NO_SUCH_COIN",
        "Announce Loyalty names a player or a coin of that player that does not exist.",
        '"Announce Loyalty \u2014 Flip any player coin to its other side."',
    ),
    (
        "NO_SUCH_BOWL",
        "A market bowl is chosen that the map does not have.",
        "Not in the rulebook: the bowls are numbered from the top in the board data (assumption "
        "REFERENCE_BOARD), so another number names no bowl.",
    ),
    (
        "BOWL_TOO_EXPENSIVE",
        "A market bowl is chosen whose value exceeds the player's Pennings (the coin under the King "
        "does not count).",
        '"You cannot choose market bowls whose value exceeds the amount of Pennings you have."',
    ),
    (
        "BOWL_ALREADY_CHOSEN",
        "A market bowl already chosen this turn is chosen again.",
        '"Choose 2 market bowls."',
    ),
    (
        "NO_SUCH_PIECE",
        "A bowl is chosen with a piece it neither holds nor (when empty) prints, or a die is assigned to "
        "a chosen piece that does not exist.",
        '"Take 1 chess piece from each, assign them 1 die you rolled, and resolve them (if you only have 1 '
        'die, choose 1). If a bowl is empty, resolve the printed chess piece instead (King or Pawn)."',
    ),
    (
        "NO_SUCH_DIE",
        "A die value is assigned that no rolled and unassigned die shows, or the Knight removes a die from "
        "a road space that holds no die of value X or less.",
        _ASSIGN,
    ),
    (
        "KING_ONCE",
        "The King is chosen again in a turn in which the King's action was already taken or chosen.",
        '"You can only take the King\'s action once per turn."',
    ),
    (
        "CROSSROADS_TAKEN",
        "A runestone is placed on a crossroads that already holds one or that the map does not have.",
        '"Place a stone from your House on an empty Crossroads as a Runestone, then move the King X '
        'player coins clockwise."',
    ),
    (
        "SPACE_NOT_EMPTY",
        "A die (the Rook's or a setup roadblock) is placed on a road space that holds a die or a pawn, or "
        "that the map does not have.",
        '"Place the die on an empty Road space."',
    ),
    (
        "SAME_HOUSE",
        "A stone is sent to another House than the one this series of stones goes to: the Bishop's "
        "House, chosen with the first stone, or the House the setup is filling.",
        '"Move X stones from your House to another player\'s House."',
    ),
    (
        "NO_SUCH_PAWN",
        "The pawn to walk is a number no pawn has.",
        "Not in the rulebook: the pawns are numbered from 0 in the state (State.pawns), so another number "
        "names no pawn.",
    ),
    (
        "NO_SUCH_STAR",
        "A pawn is returned to a starting star number the map does not have.",
        "Not in the rulebook: the starting stars are numbered from 0 in the board data (assumption "
        "REFERENCE_BOARD), so another number names no star.",
    ),
    (
        "NO_SUCH_STONE",
        "A stone is sent, placed in Sigtuna or raised as a runestone in a colour the player's House does "
        "not hold.",
        '"You can always place and give stones of any color from your House."',
    ),
    (
        "NOT_TIED",
        "The House owner breaking a tie names as Heir a player not tied for the most stones in their House.",
        '"You break ties in your House as you wish."',
    ),
)
