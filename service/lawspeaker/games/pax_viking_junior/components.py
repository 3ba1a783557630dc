"""Pax Viking Junior's components as data: loaded from JSON, validated once, indexed for the engine.

The rulebook lost its pictures and card lists; the files beside this module are the Lawspeaker
reference set (every number in them is an assumption recorded in ``docs/rules/pax-viking-junior.md``):

- ``map.json``: the map as a grid of cells, one character per cell naming its region (upper case:
  land, lower case: sea), the black lines that cannot be crossed, the rivers and the six shields.
  Region outlines, borders and centres are derived from the grid, so the drawing and the journeys
  always agree: two regions whose cells share an edge are separated by a white line (one step to
  cross) unless the pair is listed under ``black_lines``.
- ``tiles.json``: the animals and the 54 animal tiles (animal, how many of it, Silfr, Scrolls, copies).
- ``victory_cards.json``: the 26 victory cards and what each asks for.
- ``cat_boards.json``: the six cat boards: colour, shield, Big Cats, Kittens and the special ability
  as the numbers the engine reads.
- ``rules.json``: the numbers the rulebook states in words (steps, Kittens per turn, the Buff's cost,
  the victory cards dealt in each variant).

A game can replace any of these sections with the ``components`` option: JSON text of an object with
any of the keys ``map``, ``tiles``, ``victory_cards``, ``cat_boards`` and ``rules``; the rest comes
from the reference set. It is validated exactly like the reference set by :func:`load_components`.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from lawspeaker.games.core import option_cache

MAX_PLAYERS = 6
SECTIONS = ("map", "tiles", "victory_cards", "cat_boards", "rules")
VARIANTS = ("standard", "longer")
UNREACHABLE = 1 << 20


class ComponentsError(ValueError):
    """Component data that does not make a playable game of Pax Viking Junior."""


@dataclass(frozen=True, slots=True)
class Components:
    """A validated component set, indexed for the engine. Regions, tiles, cards and boards are
    numbered in file order."""

    data: dict[str, Any]  # the five sections as given
    drawing: dict[str, Any]  # outlines, borders and centres derived from the grid
    region_ids: tuple[str, ...]
    region_names: tuple[str, ...]
    land: tuple[bool, ...]
    land_regions: tuple[int, ...]
    dist: tuple[tuple[int, ...], ...]  # steps between two regions (UNREACHABLE when blocked)
    dist_open: tuple[tuple[int, ...], ...]  # the same if black lines could be crossed (for refusals)
    #: reach[start][k]: the land regions other than ``start`` at most k steps away
    reach: tuple[tuple[tuple[int, ...], ...], ...]
    #: ring[start][k]: the land regions exactly k steps away
    ring: tuple[tuple[tuple[int, ...], ...], ...]
    shield_ids: tuple[str, ...]
    shield_region: tuple[int, ...]
    animal_ids: tuple[str, ...]
    animal_names: tuple[str, ...]
    animal_plurals: tuple[str, ...]
    tile_animal: tuple[int, ...]
    tile_count: tuple[int, ...]  # how many animals the tile shows
    tile_silfr: tuple[int, ...]
    tile_scrolls: tuple[int, ...]
    tile_copies: tuple[int, ...]
    card_ids: tuple[str, ...]
    card_names: tuple[str, ...]
    card_colour: tuple[str, ...]
    card_silfr: tuple[int, ...]
    card_scrolls: tuple[int, ...]
    card_animals: tuple[tuple[int, ...], ...]  # per card: animals wanted, indexed like animal_ids
    #: per variant: the (colour, number) deals, in order; a colour dealt whole is laid out face up
    deal: dict[str, tuple[tuple[str, int], ...]]
    board_ids: tuple[str, ...]
    board_names: tuple[str, ...]
    board_colours: tuple[str, ...]
    board_shield: tuple[int, ...]  # the region of the board's shield
    board_big_cats: tuple[int, ...]
    board_kittens: tuple[int, ...]
    board_steps: tuple[int, ...]
    board_draws: tuple[tuple[int, ...], ...]  # the numbers of tiles the board may draw
    board_silfr_bonus: tuple[bool, ...]
    board_scrolls_bonus: tuple[bool, ...]
    board_steal_gain: tuple[bool, ...]
    kittens_per_turn: int
    setup_kittens: int
    buff_cost: int
    buff_steps: int
    buff_tiles: int
    buff_kittens: int
    max_steps: int  # the most steps any journey can take (with a Buff)
    #: move lists the engine builds once per component set (journeys from a region, ...)
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def regions(self) -> int:
        return len(self.region_ids)

    @property
    def tiles(self) -> int:
        return len(self.tile_animal)

    @property
    def cards(self) -> int:
        return len(self.card_ids)

    @property
    def boards(self) -> int:
        return len(self.board_ids)

    def tile_name(self, tile: int) -> str:
        """E.g. "2 Pigs (1 Silfr and 0 Scrolls)"."""
        n, a = self.tile_count[tile], self.tile_animal[tile]
        animal = self.animal_names[a] if n == 1 else self.animal_plurals[a]
        return f"{n} {animal} ({amounts(self.tile_silfr[tile], self.tile_scrolls[tile])})"


def amounts(silfr: int, scrolls: int) -> str:
    """E.g. "2 Silfr and 1 Scroll", "0 Silfr and 0 Scrolls"."""
    return f"{silfr} Silfr and {scrolls} {'Scroll' if scrolls == 1 else 'Scrolls'}"


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise ComponentsError(message)


def _is_int(value: Any, low: int, high: int = 1 << 30) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _obj(value: Any, what: str) -> dict[str, Any]:
    _need(isinstance(value, dict), f"{what} must be a JSON object")
    assert isinstance(value, dict)
    return value


def _list(value: Any, what: str, at_least: int = 1) -> list[Any]:
    _need(isinstance(value, list) and len(value) >= at_least, f"{what} must be a list of at least {at_least}")
    assert isinstance(value, list)
    return value


def _text(item: dict[str, Any], key: str, what: str) -> str:
    value = item.get(key)
    _need(isinstance(value, str) and value != "", f"{what} needs a non-empty {key!r}")
    assert isinstance(value, str)
    return value


def _unique(ids: list[str], what: str) -> None:
    seen: set[str] = set()
    for x in ids:
        _need(x not in seen, f"{what} id {x!r} is used twice")
        seen.add(x)


# --------------------------------------------------------------------------- the map grid


def _outline(cells: set[tuple[int, int]]) -> list[list[list[int]]]:
    """The closed outlines of a set of unit cells, as loops of corner points (clockwise on screen,
    y downwards), collinear corners removed. Where two cells of the set touch only at a corner, the
    outline keeps them apart (it turns right there), so a region without holes has one loop."""
    out: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for x, y in cells:
        if (x, y - 1) not in cells:
            out.setdefault((x, y), []).append((x + 1, y))
        if (x + 1, y) not in cells:
            out.setdefault((x + 1, y), []).append((x + 1, y + 1))
        if (x, y + 1) not in cells:
            out.setdefault((x + 1, y + 1), []).append((x, y + 1))
        if (x - 1, y) not in cells:
            out.setdefault((x, y + 1), []).append((x, y))
    loops: list[list[list[int]]] = []
    while out:
        start = min(out)
        loop = [start]
        point, prev = start, (start[0] - 1, start[1])
        while True:
            choices = out[point]
            if len(choices) == 1:
                nxt = choices.pop()
            else:  # a pinch: take the right turn, which keeps the two cells apart
                dx, dy = point[0] - prev[0], point[1] - prev[1]
                right = (point[0] - dy, point[1] + dx)
                nxt = right if right in choices else choices[0]
                choices.remove(nxt)
            if not choices:
                del out[point]
            prev, point = point, nxt
            if point == start:
                break
            loop.append(point)
        corners = []
        k = len(loop)
        for i, p in enumerate(loop):
            a, c = loop[i - 1], loop[(i + 1) % k]
            if (p[0] - a[0]) * (c[1] - p[1]) - (p[1] - a[1]) * (c[0] - p[0]) != 0:
                corners.append([p[0], p[1]])
        loops.append(corners)
    return loops


def _chains(segments: list[tuple[tuple[int, int], tuple[int, int]]]) -> list[list[list[int]]]:
    """Unit segments joined into polylines (for drawing the lines between two regions)."""
    ends: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for a, b in segments:
        ends.setdefault(a, []).append(b)
        ends.setdefault(b, []).append(a)
    lines: list[list[list[int]]] = []
    while ends:
        start = next((p for p in sorted(ends) if len(ends[p]) == 1), min(ends))
        line = [start]
        point = start
        while ends.get(point):
            nxt = ends[point].pop()
            ends[nxt].remove(point)
            if not ends[point]:
                del ends[point]
            if not ends[nxt]:
                del ends[nxt]
            line.append(nxt)
            point = nxt
        pts = [line[0]]
        for i in range(1, len(line) - 1):
            a, p, c = line[i - 1], line[i], line[i + 1]
            if (p[0] - a[0]) * (c[1] - p[1]) - (p[1] - a[1]) * (c[0] - p[0]) != 0:
                pts.append(p)
        pts.append(line[-1])
        lines.append([[x, y] for x, y in pts])
    return lines


def _distances(neighbours: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    """Steps between every two regions over these edges (breadth-first; UNREACHABLE if none)."""
    n = len(neighbours)
    out: list[tuple[int, ...]] = []
    for start in range(n):
        row = [UNREACHABLE] * n
        row[start] = 0
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for there in neighbours[here]:
                if row[there] == UNREACHABLE:
                    row[there] = row[here] + 1
                    queue.append(there)
        out.append(tuple(row))
    return tuple(out)


def _load_map(m: dict[str, Any]) -> dict[str, Any]:
    """Parse the map section; returns the derived indices and drawing (raises ComponentsError)."""
    grid = _list(m.get("grid"), "map.grid", 2)
    _need(all(isinstance(row, str) for row in grid), "map.grid rows must be strings")
    width = len(grid[0])
    _need(
        width >= 2 and all(len(row) == width for row in grid), "map.grid rows must all have the same length"
    )
    regions = _list(m.get("regions"), "map.regions", 2)
    codes: dict[str, int] = {}
    ids: list[str] = []
    names: list[str] = []
    land: list[bool] = []
    for item in regions:
        item = _obj(item, "every map region")
        code = _text(item, "code", "every map region")
        rid = _text(item, "id", f"map region {code!r}")
        _need(len(code) == 1 and code.isalpha(), f"map region {rid!r}: code must be one letter")
        _need(code not in codes, f"map region code {code!r} is used twice")
        codes[code] = len(ids)
        ids.append(rid)
        names.append(_text(item, "name", f"map region {rid!r}"))
        land.append(code.isupper())
    _unique(ids, "map region")
    cells: list[set[tuple[int, int]]] = [set() for _ in ids]
    for y, row in enumerate(grid):
        for x, ch in enumerate(row):
            _need(ch in codes, f"map.grid cell ({x}, {y}) names no region ({ch!r})")
            cells[codes[ch]].add((x, y))
    height = len(grid)
    outlines: list[list[list[int]]] = []
    centres: list[list[float]] = []
    for r, own in enumerate(cells):
        _need(bool(own), f"map region {ids[r]!r} has no cell in the grid")
        first = min(own)
        seen, todo = {first}, deque([first])
        while todo:
            x, y = todo.popleft()
            for nb in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if nb in own and nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
        _need(len(seen) == len(own), f"map region {ids[r]!r} must be one piece (its cells are not joined)")
        loops = _outline(own)
        _need(len(loops) == 1, f"map region {ids[r]!r} must have no holes (it surrounds another region)")
        outlines.append(loops[0])
        cx = sum(x + 0.5 for x, _ in own) / len(own)
        cy = sum(y + 0.5 for _, y in own) / len(own)
        bx, by = min(own, key=lambda c: ((c[0] + 0.5 - cx) ** 2 + (c[1] + 0.5 - cy) ** 2, c))
        centres.append([bx + 0.5, by + 0.5])
    segments: dict[tuple[int, int], list[tuple[tuple[int, int], tuple[int, int]]]] = {}
    for y in range(height):
        for x in range(width):
            a = codes[grid[y][x]]
            if x + 1 < width and (b := codes[grid[y][x + 1]]) != a:
                segments.setdefault((min(a, b), max(a, b)), []).append(((x + 1, y), (x + 1, y + 1)))
            if y + 1 < height and (b := codes[grid[y + 1][x]]) != a:
                segments.setdefault((min(a, b), max(a, b)), []).append(((x, y + 1), (x + 1, y + 1)))
    index = {rid: i for i, rid in enumerate(ids)}
    black: set[tuple[int, int]] = set()
    for pair in _list(m.get("black_lines", []), "map.black_lines", 0):
        _need(
            isinstance(pair, list) and len(pair) == 2 and all(p in index for p in pair),
            f"map.black_lines: {pair!r} must name two regions",
        )
        a, b = index[pair[0]], index[pair[1]]
        key = (min(a, b), max(a, b))
        _need(key in segments, f"map.black_lines: {pair[0]} and {pair[1]} do not share a line")
        _need(key not in black, f"map.black_lines: {pair[0]} and {pair[1]} are listed twice")
        black.add(key)
    neighbours: list[list[int]] = [[] for _ in ids]
    borders = []
    for (a, b), segs in sorted(segments.items()):
        kind = "black" if (a, b) in black else "white"
        if kind == "white":
            neighbours[a].append(b)
            neighbours[b].append(a)
        borders.append({"between": [ids[a], ids[b]], "line": kind, "paths": _chains(segs)})
    rivers = []
    for river in _list(m.get("rivers", []), "map.rivers", 0):
        river = _obj(river, "every river")
        points = _list(river.get("points"), f"river {river.get('id')!r} points", 2)
        for p in points:
            _need(
                isinstance(p, list)
                and len(p) == 2
                and all(isinstance(v, int | float) and not isinstance(v, bool) for v in p)
                and 0 <= p[0] <= width
                and 0 <= p[1] <= height,
                f"river {river.get('id')!r}: every point is [x, y] inside the grid",
            )
        rivers.append(
            {"id": _text(river, "id", "every river"), "name": river.get("name", ""), "points": points}
        )
    shields = _list(m.get("shields"), "map.shields", MAX_PLAYERS)
    shield_ids: list[str] = []
    shield_region: list[int] = []
    for s in shields:
        s = _obj(s, "every shield")
        sid = _text(s, "id", "every shield")
        where = str(s.get("region"))
        _need(where in index and land[index[where]], f"shield {sid!r} must stand in a land region")
        shield_ids.append(sid)
        shield_region.append(index[where])
    _unique(shield_ids, "shield")
    _need(len(set(shield_region)) == len(shield_region), "every shield stands in a region of its own")
    n = len(ids)
    every = [list(nbs) for nbs in neighbours]
    for a, b in black:
        every[a].append(b)
        every[b].append(a)
    dist = _distances(neighbours)
    dist_open = _distances(every)
    land_regions = tuple(i for i in range(n) if land[i])
    _need(len(land_regions) >= 2, "the map needs land regions")
    for r in land_regions:
        _need(
            all(dist[r][o] < UNREACHABLE for o in land_regions),
            f"every land region must be reachable from {ids[r]!r} without crossing a black line",
        )
    drawing = {
        "width": width,
        "height": height,
        "description": "Coordinates are grid units (one cell = 1 x 1), x to the right and y downwards. "
        "Each region's outline is a closed polygon; each border lists the polylines between two regions "
        "and whether the line is white (1 step to cross) or black (cannot be crossed); rivers do not "
        "affect journeys.",
        "regions": [
            {"id": ids[i], "name": names[i], "land": land[i], "outline": outlines[i], "centre": centres[i]}
            for i in range(n)
        ],
        "borders": borders,
        "rivers": rivers,
        "shields": [{"id": s, "region": ids[r]} for s, r in zip(shield_ids, shield_region, strict=True)],
    }
    return {
        "ids": ids,
        "names": names,
        "land": land,
        "land_regions": land_regions,
        "dist": dist,
        "dist_open": dist_open,
        "index": index,
        "shield_ids": shield_ids,
        "shield_region": shield_region,
        "drawing": drawing,
    }


# --------------------------------------------------------------------------- the whole set


def load_components(text: str) -> Components:
    """Parse and validate a component set: ``text`` is the ``components`` option (JSON text of an
    object with any of the sections; empty: the reference set). Raises :class:`ComponentsError`
    naming the first problem."""
    data = dict(REFERENCE_DATA)
    if text:
        try:
            custom = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as err:
            raise ComponentsError(f"the components are not valid JSON: {err}") from None
        custom = _obj(custom, "the components")
        for key in custom:
            _need(key in SECTIONS, f"unknown components section {key!r}; sections are {', '.join(SECTIONS)}")
        data.update(custom)
    return _build(data)


def _build(data: dict[str, Any]) -> Components:
    m = _load_map(_obj(data["map"], "map"))
    index = m["index"]
    land = m["land"]

    tiles_part = _obj(data["tiles"], "tiles")
    animals = _list(tiles_part.get("animals"), "tiles.animals")
    animal_ids = [_text(_obj(a, "every animal"), "id", "every animal") for a in animals]
    _unique(animal_ids, "animal")
    animal_names = [_text(a, "name", f"animal {a['id']!r}") for a in animals]
    animal_plurals = [_text(a, "plural", f"animal {a['id']!r}") for a in animals]
    a_index = {a: i for i, a in enumerate(animal_ids)}
    tile_animal, tile_count, tile_silfr, tile_scrolls, tile_copies = [], [], [], [], []
    for t in _list(tiles_part.get("tiles"), "tiles.tiles"):
        t = _obj(t, "every animal tile")
        _need(t.get("animal") in a_index, f"animal tile {t!r} names an unknown animal")
        for key, low in (("animals", 1), ("silfr", 0), ("scrolls", 0), ("copies", 1)):
            _need(_is_int(t.get(key), low, 99), f"animal tile {t!r}: {key} must be a whole number >= {low}")
        tile_animal.append(a_index[t["animal"]])
        tile_count.append(t["animals"])
        tile_silfr.append(t["silfr"])
        tile_scrolls.append(t["scrolls"])
        tile_copies.append(t["copies"])
    kinds = list(zip(tile_animal, tile_count, tile_silfr, tile_scrolls, strict=True))
    _need(len(set(kinds)) == len(kinds), "two animal tile entries print the same: join them with copies")
    _need(sum(tile_copies) >= MAX_PLAYERS, f"there must be at least {MAX_PLAYERS} animal tiles for the setup")

    cards_part = _obj(data["victory_cards"], "victory_cards")
    card_ids, card_names, card_colour, card_silfr, card_scrolls, card_animals = [], [], [], [], [], []
    for c in _list(cards_part.get("cards"), "victory_cards.cards"):
        c = _obj(c, "every victory card")
        cid = _text(c, "id", "every victory card")
        colour = _text(c, "colour", f"victory card {cid!r}")
        silfr, scrolls = c.get("silfr", 0), c.get("scrolls", 0)
        _need(_is_int(silfr, 0, 999) and _is_int(scrolls, 0, 999), f"victory card {cid!r}: bad Silfr/Scrolls")
        wanted = [0] * len(animal_ids)
        for animal, k in _obj(c.get("animals", {}), f"victory card {cid!r} animals").items():
            _need(animal in a_index, f"victory card {cid!r} names an unknown animal {animal!r}")
            _need(_is_int(k, 1, 99), f"victory card {cid!r}: animal counts are whole numbers >= 1")
            wanted[a_index[animal]] = k
        _need(silfr or scrolls or any(wanted), f"victory card {cid!r} asks for nothing")
        card_ids.append(cid)
        card_names.append(_card_name(silfr, scrolls, wanted, animal_names, animal_plurals))
        card_colour.append(colour)
        card_silfr.append(silfr)
        card_scrolls.append(scrolls)
        card_animals.append(tuple(wanted))
    _unique(card_ids, "victory card")

    rules = _obj(data["rules"], "rules")
    numbers = {}
    for key, low in (
        ("kittens_per_turn", 1),
        ("setup_kittens", 1),
        ("buff_cost", 1),
        ("buff_steps", 1),
        ("buff_tiles", 1),
        ("buff_kittens", 1),
    ):
        _need(_is_int(rules.get(key), low, 99), f"rules.{key} must be a whole number >= {low}")
        numbers[key] = rules[key]
    deals = _obj(rules.get("deal"), "rules.deal")
    deal: dict[str, tuple[tuple[str, int], ...]] = {}
    for variant in VARIANTS:
        steps = []
        for part in _list(deals.get(variant), f"rules.deal.{variant}"):
            _need(
                isinstance(part, dict)
                and isinstance(part.get("colour"), str)
                and _is_int(part.get("cards"), 1),
                f"rules.deal.{variant}: every deal is {{'colour': ..., 'cards': n >= 1}}",
            )
            size = card_colour.count(part["colour"])
            _need(
                part["cards"] <= size,
                f"rules.deal.{variant}: {part['cards']} {part['colour']} card(s) dealt, {size} in the deck",
            )
            steps.append((part["colour"], int(part["cards"])))
        colours = [c for c, _ in steps]
        _need(len(set(colours)) == len(colours), f"rules.deal.{variant}: each colour is dealt once")
        deal[variant] = tuple(steps)

    boards = _list(_obj(data["cat_boards"], "cat_boards").get("boards"), "cat_boards.boards", MAX_PLAYERS)
    shield_index = {s: i for i, s in enumerate(m["shield_ids"])}
    b_ids, b_names, b_colours, b_shield, b_big, b_kit, b_steps, b_draws = [], [], [], [], [], [], [], []
    b_silfr: list[bool] = []
    b_scrolls: list[bool] = []
    b_steal: list[bool] = []
    for b in boards:
        b = _obj(b, "every cat board")
        bid = _text(b, "id", "every cat board")
        b_ids.append(bid)
        b_names.append(_text(b, "name", f"cat board {bid!r}"))
        b_colours.append(_text(b, "colour", f"cat board {bid!r}"))
        _text(b, "ability", f"cat board {bid!r}")
        _need(b.get("shield") in shield_index, f"cat board {bid!r} must name a shield of the map")
        b_shield.append(m["shield_region"][shield_index[b["shield"]]])
        for key, low in (("big_cats", 0), ("kittens", 1), ("journey_steps", 1)):
            _need(_is_int(b.get(key), low, 99), f"cat board {bid!r}: {key} must be a whole number >= {low}")
        _need(b["big_cats"] + b["kittens"] >= numbers["setup_kittens"], f"cat board {bid!r}: too few cats")
        b_big.append(b["big_cats"])
        b_kit.append(b["kittens"])
        b_steps.append(b["journey_steps"])
        draws = b.get("tile_draws")
        _need(
            isinstance(draws, list)
            and draws != []
            and all(_is_int(d, 1, 20) for d in draws)
            and draws == sorted(set(draws)),
            f"cat board {bid!r}: tile_draws lists the numbers of tiles it may draw, smallest first",
        )
        assert isinstance(draws, list)
        b_draws.append(tuple(draws))
        for key, out in (("silfr_bonus", b_silfr), ("scrolls_bonus", b_scrolls), ("steal_gain", b_steal)):
            _need(isinstance(b.get(key), bool), f"cat board {bid!r}: {key} must be true or false")
            out.append(b[key])
    _unique(b_ids, "cat board")
    _need(len(set(b_shield)) == len(b_shield), "every cat board has a shield of its own")
    _need(len(set(b_colours)) == len(b_colours), "every cat board has a colour of its own")

    ids, land_regions, dist = m["ids"], m["land_regions"], m["dist"]
    max_steps = max(b_steps) + numbers["buff_steps"]
    n = len(ids)
    reach = tuple(
        tuple(tuple(r for r in land_regions if r != s and dist[s][r] <= k) for k in range(max_steps + 1))
        for s in range(n)
    )
    ring = tuple(
        tuple(tuple(r for r in land_regions if r != s and dist[s][r] == k) for k in range(max_steps + 1))
        for s in range(n)
    )
    for r in land_regions:
        _need(
            bool(reach[r][min(b_steps)]),
            f"from {ids[r]!r} no other land region is within {min(b_steps)} steps: a journey must be "
            "possible",
        )
    del index, land
    return Components(
        data=data,
        drawing=m["drawing"],
        region_ids=tuple(ids),
        region_names=tuple(m["names"]),
        land=tuple(m["land"]),
        land_regions=land_regions,
        dist=dist,
        dist_open=m["dist_open"],
        reach=reach,
        ring=ring,
        shield_ids=tuple(m["shield_ids"]),
        shield_region=tuple(m["shield_region"]),
        animal_ids=tuple(animal_ids),
        animal_names=tuple(animal_names),
        animal_plurals=tuple(animal_plurals),
        tile_animal=tuple(tile_animal),
        tile_count=tuple(tile_count),
        tile_silfr=tuple(tile_silfr),
        tile_scrolls=tuple(tile_scrolls),
        tile_copies=tuple(tile_copies),
        card_ids=tuple(card_ids),
        card_names=tuple(card_names),
        card_colour=tuple(card_colour),
        card_silfr=tuple(card_silfr),
        card_scrolls=tuple(card_scrolls),
        card_animals=tuple(card_animals),
        deal=deal,
        board_ids=tuple(b_ids),
        board_names=tuple(b_names),
        board_colours=tuple(b_colours),
        board_shield=tuple(b_shield),
        board_big_cats=tuple(b_big),
        board_kittens=tuple(b_kit),
        board_steps=tuple(b_steps),
        board_draws=tuple(b_draws),
        board_silfr_bonus=tuple(b_silfr),
        board_scrolls_bonus=tuple(b_scrolls),
        board_steal_gain=tuple(b_steal),
        kittens_per_turn=numbers["kittens_per_turn"],
        setup_kittens=numbers["setup_kittens"],
        buff_cost=numbers["buff_cost"],
        buff_steps=numbers["buff_steps"],
        buff_tiles=numbers["buff_tiles"],
        buff_kittens=numbers["buff_kittens"],
        max_steps=max_steps,
    )


def _card_name(silfr: int, scrolls: int, wanted: list[int], names: list[str], plurals: list[str]) -> str:
    parts = []
    if silfr:
        parts.append(f"{silfr} Silfr")
    if scrolls:
        parts.append(f"{scrolls} Scrolls")
    parts.extend(f"{k} {names[a] if k == 1 else plurals[a]}" for a, k in enumerate(wanted) if k)
    return ", ".join(parts)


def _read(name: str) -> Any:
    return json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


REFERENCE_DATA: dict[str, Any] = {
    "map": _read("map.json"),
    "tiles": _read("tiles.json"),
    "victory_cards": _read("victory_cards.json"),
    "cat_boards": _read("cat_boards.json"),
    "rules": _read("rules.json"),
}
REFERENCE = _build(REFERENCE_DATA)
components_for = option_cache(load_components, REFERENCE)
"""The validated components for an option value ("" = the reference set), loaded once."""
