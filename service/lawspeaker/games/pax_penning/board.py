"""The Pax Penning map as data: loaded from JSON, validated once, indexed for the engine.

The rulebook's map was a picture; ``board.json`` beside this module is the Lawspeaker reference
map. A different map can be passed as the ``board`` option (JSON text of the same shape); it is
validated by :func:`load_board` exactly like the reference map.

Nodes are numbered for the engine: road spaces ``0..S-1`` (in file order), crossroads
``S..S+C-1``, starting stars ``S+C..S+C+T-1`` and Sigtuna ``S+C+T``. Every node but Sigtuna has
exactly one ``next`` node towards Sigtuna, so the roads form a tree rooted in Sigtuna.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from lawspeaker.games.core import option_cache

KNIGHT, BISHOP, ROOK, PAWN, KING = 1, 2, 3, 4, 5
PIECE_NAMES = {KNIGHT: "Knight", BISHOP: "Bishop", ROOK: "Rook", PAWN: "Pawn", KING: "King"}
PIECE_CODES = {"KNIGHT": KNIGHT, "BISHOP": BISHOP, "ROOK": ROOK, "PAWN": PAWN, "KING": KING}

MAX_PLAYERS = 5


class BoardError(ValueError):
    """A board file that is not a playable Pax Penning map."""


@dataclass(frozen=True, slots=True)
class Board:
    """A validated map, indexed for the engine (see the module docstring for node numbers)."""

    name: str
    data: dict[str, Any]
    space_ids: tuple[str, ...]
    crossroads_ids: tuple[str, ...]
    star_ids: tuple[str, ...]
    difficult: tuple[bool, ...]
    next_node: tuple[int, ...]
    #: for every space and star: (crossroads passed on the way, the next space or Sigtuna)
    advance: tuple[tuple[tuple[int, ...], int], ...]
    sigtuna: int
    royal_stars: tuple[int, ...]  # star indices (0-based among stars) where the pawns start
    bowl_values: tuple[int, ...]  # top bowl first
    bowl_printed: tuple[int, ...]  # the printed piece of each bowl (0 = none)
    market_pieces: tuple[int, ...]
    hierarchy_slots: int
    stones_per_player: int
    coins_total: int
    coins_per_player: int
    coins_per_player_at_3: int
    dice: int
    things_to_end: int

    @property
    def spaces(self) -> int:
        return len(self.space_ids)

    @property
    def crossroads(self) -> int:
        return len(self.crossroads_ids)

    def star_node(self, star: int) -> int:
        return len(self.space_ids) + len(self.crossroads_ids) + star

    def road_from(self, node: int) -> list[str]:
        """The ids of the nodes from ``node`` (exclusive) to Sigtuna (inclusive)."""
        ids = (*self.space_ids, *self.crossroads_ids, *self.star_ids, str(self.data["sigtuna"].get("id")))
        out = []
        while node != self.sigtuna:
            node = self.next_node[node]
            out.append(ids[node])
        return out

    def is_star(self, node: int) -> bool:
        return len(self.space_ids) + len(self.crossroads_ids) <= node < self.sigtuna

    def node_name(self, node: int) -> str:
        s, c = len(self.space_ids), len(self.crossroads_ids)
        if node < s:
            return f"road space {self.space_ids[node]}"
        if node < s + c:
            return f"crossroads {self.crossroads_ids[node - s]}"
        if node < self.sigtuna:
            return f"starting star {self.star_ids[node - s - c]}"
        return "Sigtuna"


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise BoardError(message)


def _int(data: dict[str, Any], key: str, low: int) -> int:
    value = data.get(key)
    _need(
        isinstance(value, int) and not isinstance(value, bool) and value >= low,
        f"{key} must be an integer >= {low}",
    )
    assert isinstance(value, int)
    return value


def load_board(text: str) -> Board:
    """Parse and validate a board file; raises :class:`BoardError` naming the first problem."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise BoardError(f"the board is not valid JSON: {err}") from None
    _need(isinstance(data, dict), "the board must be a JSON object")
    for key in (
        "sigtuna",
        "stars",
        "crossroads",
        "spaces",
        "bowls",
        "market_pieces",
        "royal_stars",
        "hierarchy",
    ):
        _need(key in data, f"the board has no {key!r}")
    spaces, crossroads, stars = data["spaces"], data["crossroads"], data["stars"]
    for key, items in (("spaces", spaces), ("crossroads", crossroads), ("stars", stars)):
        _need(isinstance(items, list) and items != [], f"{key} must be a non-empty list")
        for item in items:
            _need(
                isinstance(item, dict) and isinstance(item.get("id"), str),
                f"every entry of {key} needs an id",
            )
            for coord in ("x", "y"):
                _need(isinstance(item.get(coord), int | float), f"{key} {item.get('id')} needs {coord}")
            _need(isinstance(item.get("next"), str), f"{key} {item['id']} needs a next node towards Sigtuna")
    sigtuna_id = data["sigtuna"].get("id", "sigtuna") if isinstance(data["sigtuna"], dict) else None
    _need(isinstance(sigtuna_id, str), "sigtuna must be an object with an id")
    ids = [x["id"] for x in spaces] + [x["id"] for x in crossroads] + [x["id"] for x in stars] + [sigtuna_id]
    _need(len(set(ids)) == len(ids), "node ids must be unique")
    index = {name: i for i, name in enumerate(ids)}
    sigtuna = len(ids) - 1
    s, c = len(spaces), len(crossroads)
    next_node: list[int] = []
    for item in spaces + crossroads + stars:
        target = item["next"]
        _need(target in index, f"{item['id']} leads to unknown node {target!r}")
        _need(not (s + c <= index[target] < sigtuna), f"{item['id']} leads into a starting star")
        next_node.append(index[target])
    next_node.append(-1)
    for item in spaces:
        _need(
            isinstance(item.get("difficult", False), bool), f"space {item['id']}: difficult must be a boolean"
        )
    for start in range(sigtuna):
        seen = {start}
        node = next_node[start]
        while node != sigtuna:
            _need(node not in seen, f"the road from {ids[start]} runs in a circle")
            seen.add(node)
            node = next_node[node]
    for i in range(s + c, sigtuna):
        node, count = next_node[i], 0
        while node != sigtuna:
            count += node < s
            node = next_node[node]
        _need(count >= 1, f"the road from star {ids[i]} has no road space")
    advance: list[tuple[tuple[int, ...], int]] = []
    for start in range(sigtuna):
        passed: list[int] = []
        node = next_node[start]
        while s <= node < s + c:
            passed.append(node - s)
            node = next_node[node]
        advance.append((tuple(passed), node))
    royal = data["royal_stars"]
    star_index = {x["id"]: i for i, x in enumerate(stars)}
    _need(isinstance(royal, list) and royal != [], "royal_stars must list the stars the pawns start on")
    _need(
        all(r in star_index for r in royal) and len(set(royal)) == len(royal),
        "royal_stars must be distinct stars",
    )
    bowls = data["bowls"]
    _need(isinstance(bowls, list) and len(bowls) >= 3, "there must be at least three market bowls")
    values, printed = [], []
    for b in bowls:
        _need(isinstance(b, dict), "every bowl must be an object")
        _need(isinstance(b.get("value"), int) and b["value"] >= 0, "every bowl needs a value >= 0")
        p = b.get("printed")
        _need(p is None or p in ("KING", "PAWN"), "a bowl's printed piece is KING, PAWN or null")
        _need(p is None or b["value"] == 0, "only zero-value bowls have a printed piece")
        values.append(b["value"])
        printed.append(PIECE_CODES[p] if p else 0)
    _need(values == sorted(values, reverse=True), "bowls are listed from the top (highest value) down")
    _need(printed[-1] == KING, "the bottom bowl is the zero-value King bowl")
    _need(PAWN in printed, "a zero-value bowl must print the Pawn")
    market = data["market_pieces"]
    _need(
        isinstance(market, list) and all(m in ("KNIGHT", "BISHOP", "ROOK", "PAWN") for m in market),
        "bad market_pieces",
    )
    _need(len(market) <= len(bowls) - 2, "the market pieces must fit in the top bowls")
    _need(all(p == 0 for p in printed[: len(market)]), "the top bowls where the pieces start print no piece")
    hierarchy = data["hierarchy"]
    _need(
        isinstance(hierarchy, list) and len(hierarchy) >= MAX_PLAYERS + 1,
        "the hierarchy needs a slot per player and the coin",
    )
    stones = _int(data, "stones_per_player", 1)
    per3 = _int(data, "coins_per_player_at_3", 1)
    per = _int(data, "coins_per_player", 1)
    coins = _int(data, "coins_total", 1)
    dice = _int(data, "dice", 2)
    things = _int(data, "things_to_end", 1)
    _need(
        stones >= 1 + 4 + 4 * 2 + 2 and stones >= 1 + 4 + 2 * (MAX_PLAYERS - 1) + 1,
        "too few stones for the setup",
    )
    _need(coins >= max(3 * per3, MAX_PLAYERS * per) + 1, "too few coins for the setup")
    _need(
        c >= 2 * 3 and c >= MAX_PLAYERS,
        "there must be a crossroads for every setup runestone (6 at 3 players)",
    )
    _need(s >= dice + len(royal), "there must be room on the roads for every die and pawn")
    _need(len(stars) >= len(royal), "every pawn needs a starting star")
    return Board(
        name=str(data.get("name", "custom")),
        data=data,
        space_ids=tuple(x["id"] for x in spaces),
        crossroads_ids=tuple(x["id"] for x in crossroads),
        star_ids=tuple(x["id"] for x in stars),
        difficult=tuple(bool(x.get("difficult", False)) for x in spaces),
        next_node=tuple(next_node),
        advance=tuple(advance),
        sigtuna=sigtuna,
        royal_stars=tuple(star_index[r] for r in royal),
        bowl_values=tuple(values),
        bowl_printed=tuple(printed),
        market_pieces=tuple(sorted(PIECE_CODES[m] for m in market)),
        hierarchy_slots=len(hierarchy),
        stones_per_player=stones,
        coins_total=coins,
        coins_per_player=per,
        coins_per_player_at_3=per3,
        dice=dice,
        things_to_end=things,
    )


REFERENCE_TEXT = resources.files(__package__).joinpath("board.json").read_text(encoding="utf-8")
REFERENCE = load_board(REFERENCE_TEXT)
board_for = option_cache(load_board, REFERENCE)
"""The validated board for an option value ("" = the reference map), loaded once."""
