"""Every reason Valhalla refuses a move for, with the rule it enforces (DescribeGame's ``reasons``).

One row per reason code that ``Valhalla.explain`` can return, in the order of
``docs/rules/valhalla.md``: what the refusal means for a client, and the rulebook sentence the rule
enforces as that document quotes it, or the engine's reading where the rulebook is silent. Each
reason's anchor in the document (``cast-first`` for ``CAST_FIRST``) is served with a refused move,
so a frontend can link "see the rule". ``tests/games/test_reasons.py`` keeps this table, the
engine's refusals and the document in step.
"""

from __future__ import annotations

from lawspeaker.games.core import rule_reasons

REASONS = rule_reasons(
    "valhalla",
    (
        "NOT_A_LEGAL_MOVE",
        "A ship move is not among the legal moves for a reason no other code names; no known position "
        "reaches this fallback.",
        "Not in the rulebook: a fallback of the engine, which refuses every move not among the legal "
        "moves and names the rule it breaks with one of the other codes wherever it can.",
    ),
    (
        "SHIP_IN_VALHALLA",
        "The move names a ship that has already passed into Valhalla and left the board.",
        '"Once past the serpent\u2019s jaws, your ships pass into Valhalla, at which point they leave the '
        'board."',
    ),
    (
        "CAST_FIRST",
        "A ship move is sent while the sticks are to be cast: before the turn's cast, or while the "
        "colours are still being chosen.",
        '"Players take turns casting and moving their ships"',
    ),
    (
        "MOVE_BEFORE_CASTING",
        "A cast is sent while the points of the last cast, or those left over after a ship entered "
        "Valhalla, are still to be moved.",
        '"Players take turns casting and moving their ships"',
    ),
    (
        "WRONG_DISTANCE",
        "A ship is not moved exactly the points to be played: forward by them (to 36 when that reaches "
        "or passes Valhalla), or back by them when no ship can move forward.",
        '"In most ancient games, sticks are used instead of dice to determine the number of spaces the '
        'player may move."',
    ),
    (
        "NO_SUCH_SHIP",
        "The move names a ship number outside 1-6.",
        "Not in the rulebook: the engine numbers each fleet's six ships 1-6 from the back (assumption "
        "SHIPS_PER_FLEET), so any other number names no ship.",
    ),
    (
        "ENTRY_SPACE_PROTECTED",
        "With the enter start, a ship would land on an opposing ship on one of the spaces 1-5, which "
        "cannot be hit at any time in the game.",
        "\"An opponents pieces may not be 'hit' on any of these five positions.\"",
    ),
    (
        "ROW_ONE_NOT_CLEAR",
        "A ship would pass into Valhalla while a ship of its fleet is still on spaces 1-12 or waiting "
        "to enter the board.",
        '"A player must move all of their pieces from row one before exiting the board."',
    ),
    (
        "LANDS_ON_OWN_SHIP",
        "A ship would land on a space taken by a ship of its own fleet.",
        '"A player cannot land on a space occupied by one of their own ships."',
    ),
    (
        "MUST_MOVE_FORWARD",
        "A ship is moved backward although a ship of the same player can move forward.",
        '"Players must move their ships forward unless no forward moves are possible - in that case, '
        'they must move backward."',
    ),
    (
        "BLOCKADE",
        "A ship would land on an opposing ship in row three that is part of an even run (2, 4 or 6) "
        "of adjacent ships of its colour.",
        '"In other words, any two or four adjacent pieces of the same colour cannot be attacked or moved '
        'by opposing ships."',
    ),
    (
        "SAFE_HARBOUR",
        "A ship would land on an opposing ship docked in a safe harbour (29, 32 or 34).",
        '"Positions 29, 32 and 34 are safe harbours. Any ship docked in one of these spaces is protected '
        'and cannot be attacked by an opponent."',
    ),
    (
        "IN_REPAIR_YARD",
        "A ship under repair in the repair yard (19) is moved on a cast that is not a natural one, or "
        "with points left over from a ship entering Valhalla.",
        '"After being forced here by running aground on the rocky shoal, a player may only exit by '
        'throwing a natural one (this does not apply unless they are actually there for repairs)."',
    ),
)
