"""The Birka components as data: loaded from JSON, validated once, indexed for the engine.

The rulebook names the components but lost the numbers printed on them; the five JSON files beside
this module are the Lawspeaker reference set (every number is an assumption recorded in
``docs/rules/birka.md``): ``resources.json`` (resources, die faces, supply), ``byn.json`` (Visthus,
Skepp, Resource Plots, upgrades, rations), ``birka.json`` (buildings, Market, Outlaw Trader),
``calendar.json`` (the Calendar Round and the ten Calendar Cards) and ``runestones.json`` (the
Runestone Cards and scoring). A game may replace any of them with the ``data`` option: JSON text of
an object whose keys are file names without ``.json`` ("byn", "calendar", ...) and whose values
replace those files; the merged set is validated by :func:`load_data` exactly like the reference.

Indices used by the engine: resources are numbered raw first, then crafted, in file order;
buildings, plots, upgrade goods, calendar cards and runestone cards in file order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources as _files
from typing import Any

from lawspeaker.games.core import option_cache

FILES = ("resources", "byn", "birka", "calendar", "runestones")
MAX_PLAYERS = 4  # the most players a data set must serve (the engine's max_players)
DIE_FACES = 6
RAW, CRAFTED, ANY = 0, 1, 2
CLASS_NAMES = {"RAW": RAW, "CRAFTED": CRAFTED, "ANY": ANY}
RUNESTONE = -2  # ``Data.sells`` of the building selling Runestone Cards (Tinget)
NOTHING = -1

# runestone condition kinds
BUILD, BUILDINGS, SKEPP, EXTENSION, UPGRADES, FULL_PLOT, STORE = range(7)
CONDITION_KINDS = {
    "BUILD": BUILD,
    "BUILDINGS": BUILDINGS,
    "SKEPP": SKEPP,
    "EXTENSION": EXTENSION,
    "UPGRADES": UPGRADES,
    "FULL_PLOT": FULL_PLOT,
    "STORE": STORE,
}
EFFECT_KINDS = (
    "COLLECT_BONUS",
    "COLLECT_BLOCKED",
    "MARKET_STOCK",
    "MARKET_CLOSED",
    "OUTLAW_CLOSED",
    "PRICE",
    "RATION",
    "GIFT",
    "LEVY",
)
MAX_COUNT = 1000  # no number in the data set is larger: keeps every total far from overflow

Price = tuple[tuple[int, int], ...]  # (resource, count) pairs, by resource


class BirkaDataError(ValueError):
    """A data set that is not a playable Birka game."""


@dataclass(frozen=True, slots=True)
class Condition:
    """What completes a Runestone Card (see ``runestones.json``)."""

    kind: int
    building: int = NOTHING  # BUILD
    count: int = 0  # BUILDINGS, SKEPP, UPGRADES, FULL_PLOT
    good: int = NOTHING  # UPGRADES (NOTHING = any good)
    resources: Price = ()  # STORE


@dataclass(frozen=True, slots=True)
class Card:
    """A Calendar Card's effects, indexed for the engine."""

    collect_bonus: tuple[int, ...]  # per resource: extra collected at every collection
    collect_blocked: tuple[bool, ...]  # per resource: nobody collects it
    market_closed: bool
    outlaw_closed: bool
    price_changes: tuple[tuple[str, int, int], ...]  # (item, resource, amount)
    ration: tuple[int, int] | None  # (food_count, bread_count) for this round's Rations
    stock: tuple[int, int] | None  # (raw, crafted) per Market row, when revealed
    gift: Price
    levy: tuple[int, int] | None  # (class, amount)


@dataclass(frozen=True, slots=True)
class Prices:
    """Every price while a given Calendar Card is in effect."""

    skepp: Price
    extension: Price
    build: tuple[Price, ...]  # per building: construction (owned buildings)
    use: tuple[Price, ...]  # per building: what it sells (a good or a Runestone Card)


@dataclass(frozen=True, slots=True)
class Data:
    """A validated data set (see the module docstring for indices)."""

    data: dict[str, Any]
    resource_ids: tuple[str, ...]
    resource_names: tuple[str, ...]
    raw_count: int
    is_raw: tuple[bool, ...]
    die_faces: tuple[int, ...]  # face 1..6 -> resource
    supply: tuple[int, ...]  # tokens of each resource in the game
    visthus_slots: int
    extension_slots: int
    start_resources: tuple[int, ...]
    skepp_start: int
    skepp_max: int
    plot_resources: tuple[int, ...]
    plot_start_tokens: tuple[int, ...]
    good_ids: tuple[str, ...]
    good_names: tuple[str, ...]
    icon_tokens: int
    food: tuple[int, ...]
    food_count: int
    bread: int
    bread_count: int
    building_ids: tuple[str, ...]
    building_names: tuple[str, ...]
    ownable: tuple[bool, ...]
    craft_input: tuple[Price, ...]  # () when the building does not craft
    craft_output: tuple[int, ...]  # resource or NOTHING
    sells: tuple[int, ...]  # good index, RUNESTONE or NOTHING
    payment: tuple[Price, ...]
    mjodhallen: int  # the Mjödhallen's building index or NOTHING
    good_building: tuple[int, ...]  # per good: the building that sells it
    tinget: int  # the building that sells Runestone Cards or NOTHING
    market_slots: tuple[int, ...]  # per resource
    market_reset: int
    market_give: tuple[int, int]  # per class: how many are given for 1
    outlaw_unit: tuple[int, int]  # per class of what is given: resources per unit
    outlaw_price: tuple[int, int]  # per class of what is taken: units
    turns_per_round: int
    halfway_after: int
    card_ids: tuple[str, ...]
    card_names: tuple[str, ...]
    cards: tuple[Card, ...]
    runestone_ids: tuple[str, ...]
    runestone_names: tuple[str, ...]
    runestone_points: tuple[int, ...]
    conditions: tuple[Condition, ...]
    dealt: int
    finish_count: int
    best_cards: int
    finisher_bonus: int
    prices: tuple[Prices, ...]  # index card + 1 (index 0: no card in effect)

    @property
    def resources(self) -> int:
        return len(self.resource_ids)

    @property
    def slots_per_plot(self) -> int:
        return 1 + len(self.good_ids)

    def prices_for(self, card: int) -> Prices:
        """The prices while calendar card ``card`` (-1: none) is in effect."""
        return self.prices[card + 1]

    def price_text(self, price: Price) -> str:
        """A price in words: "2 Lera and 1 Malm" ("nothing" when empty)."""
        parts = [f"{n} {self.resource_names[r]}" for r, n in price]
        if not parts:
            return "nothing"
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


# --------------------------------------------------------------------------- validation helpers


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise BirkaDataError(message)


def _obj(value: Any, where: str) -> dict[str, Any]:
    _need(isinstance(value, dict), f"{where} must be a JSON object")
    assert isinstance(value, dict)
    return value


def _list(value: Any, where: str, low: int = 1) -> list[Any]:
    _need(isinstance(value, list) and len(value) >= low, f"{where} must be a list of at least {low}")
    assert isinstance(value, list)
    return value


def _int(value: Any, where: str, low: int, high: int = MAX_COUNT) -> int:
    _need(
        isinstance(value, int) and not isinstance(value, bool) and low <= value <= high,
        f"{where} must be an integer from {low} to {high}",
    )
    assert isinstance(value, int)
    return value


def _str(value: Any, where: str) -> str:
    _need(isinstance(value, str) and value != "", f"{where} must be a non-empty string")
    assert isinstance(value, str)
    return value


def _bool(value: Any, where: str) -> bool:
    _need(isinstance(value, bool), f"{where} must be true or false")
    assert isinstance(value, bool)
    return value


class _Ids:
    """Resolves ids to indices, naming the place of an unknown id."""

    def __init__(self, what: str, ids: list[str]) -> None:
        self.what = what
        self.index = {name: i for i, name in enumerate(ids)}

    def __call__(self, value: Any, where: str) -> int:
        _need(isinstance(value, str) and value in self.index, f"{where}: {value!r} is not a {self.what} id")
        return self.index[value]


def _price(value: Any, where: str, resource: _Ids, low: int = 1) -> Price:
    obj = _obj(value, where)
    out = sorted((resource(k, where), _int(v, f"{where}.{k}", low)) for k, v in obj.items())
    return tuple((r, n) for r, n in out if n)


def _named_list(value: Any, where: str) -> tuple[list[str], list[str]]:
    ids, names = [], []
    for i, item in enumerate(_list(value, where)):
        obj = _obj(item, f"{where}[{i}]")
        ids.append(_str(obj.get("id"), f"{where}[{i}].id"))
        names.append(_str(obj.get("name"), f"{where}[{i}].name"))
    _need(len(set(ids)) == len(ids), f"{where}: ids must be unique")
    return ids, names


def _change(price: Price, resource: int, amount: int) -> Price:
    counts = dict(price)
    counts[resource] = max(0, counts.get(resource, 0) + amount)
    return tuple(sorted((r, n) for r, n in counts.items() if n))


# --------------------------------------------------------------------------- the loader


def load_data(text: str) -> Data:
    """Parse and validate a data set: "" is the reference, otherwise JSON text of an object whose keys
    ("resources", "byn", "birka", "calendar", "runestones") replace those reference files. Raises
    :class:`BirkaDataError` naming the first problem."""
    merged = dict(_REFERENCE_FILES)
    if text:
        try:
            custom = json.loads(text)
        except json.JSONDecodeError as err:
            raise BirkaDataError(f"the data is not valid JSON: {err}") from None
        _need(isinstance(custom, dict), "the data must be a JSON object keyed by file name")
        for key, value in custom.items():
            _need(key in FILES, f"unknown data file {key!r}: the files are {', '.join(FILES)}")
            merged[key] = value
    return _validate(merged)


def _validate(files: dict[str, Any]) -> Data:
    res = _obj(files["resources"], "resources")
    raw_ids, raw_names = _named_list(res.get("raw"), "resources.raw")
    crafted_ids, crafted_names = _named_list(res.get("crafted"), "resources.crafted")
    ids = raw_ids + crafted_ids
    names = raw_names + crafted_names
    _need(len(set(ids)) == len(ids), "resources: raw and crafted ids must differ")
    _need(len(ids) <= 64, "resources: at most 64 resources")
    resource = _Ids("resource", ids)
    n_raw = len(raw_ids)
    is_raw = tuple(i < n_raw for i in range(len(ids)))
    faces = _list(res.get("die_faces"), "resources.die_faces")
    _need(len(faces) == DIE_FACES, "resources.die_faces must name the raw resource of each of the 6 faces")
    die_faces = tuple(resource(f, "resources.die_faces") for f in faces)
    _need(all(is_raw[f] for f in die_faces), "resources.die_faces must be raw resources")
    supply_obj = _obj(res.get("supply"), "resources.supply")
    supply = tuple(
        _int(supply_obj.get("raw" if is_raw[r] else "crafted"), "resources.supply", 1)
        for r in range(len(ids))
    )

    byn = _obj(files["byn"], "byn")
    slots = _int(byn.get("visthus_slots"), "byn.visthus_slots", 1, 64)
    ext = _obj(byn.get("extension"), "byn.extension")
    ext_slots = _int(ext.get("slots"), "byn.extension.slots", 1, 64)
    ext_price = _price(ext.get("price"), "byn.extension.price", resource)
    start = [0] * len(ids)
    for r, n in _price(byn.get("start_resources"), "byn.start_resources", resource, 0):
        start[r] = n
    _need(sum(start) <= slots, "byn.start_resources must fit in the Visthus")
    _need(
        all(MAX_PLAYERS * start[r] <= supply[r] for r in range(len(ids))),
        f"resources.supply must hold the starting resources of {MAX_PLAYERS} players",
    )
    skepp = _obj(byn.get("skepp"), "byn.skepp")
    skepp_start = _int(skepp.get("start"), "byn.skepp.start", 1, 16)
    skepp_max = _int(skepp.get("max"), "byn.skepp.max", skepp_start, 16)
    skepp_price = _price(skepp.get("price"), "byn.skepp.price", resource)
    plot_res, plot_tokens = [], []
    for i, p in enumerate(_list(byn.get("plots"), "byn.plots")):
        obj = _obj(p, f"byn.plots[{i}]")
        r = resource(obj.get("resource"), f"byn.plots[{i}].resource")
        _need(is_raw[r], f"byn.plots[{i}].resource must be a raw resource")
        plot_res.append(r)
        plot_tokens.append(_int(obj.get("start_token"), f"byn.plots[{i}].start_token", 1, DIE_FACES))
    _need(len(plot_res) <= 16, "byn.plots: at most 16 plots")
    good_ids, good_names = _named_list(byn.get("upgrades"), "byn.upgrades")
    _need(len(good_ids) <= 8, "byn.upgrades: at most 8 upgrade goods")
    good = _Ids("upgrade good", good_ids)
    icons = _int(byn.get("icon_tokens"), "byn.icon_tokens", 1, 64)
    rations = _obj(byn.get("rations"), "byn.rations")
    food_list = _list(rations.get("food"), "byn.rations.food")
    food = tuple(resource(f, "byn.rations.food") for f in food_list)
    _need(len(set(food)) == len(food) and len(food) <= 4, "byn.rations.food: up to 4 different resources")
    food_count = _int(rations.get("food_count"), "byn.rations.food_count", 1, 16)
    bread = resource(rations.get("bread"), "byn.rations.bread")
    _need(bread not in food, "byn.rations.bread must not be one of the food resources")
    bread_count = _int(rations.get("bread_count"), "byn.rations.bread_count", 1, 16)

    birka = _obj(files["birka"], "birka")
    b_ids, b_names = _named_list(birka.get("buildings"), "birka.buildings")
    _need(len(b_ids) <= 32, "birka.buildings: at most 32 buildings")
    ownable: list[bool] = []
    build_price: list[Price] = []
    craft_in: list[Price] = []
    craft_out: list[int] = []
    sells: list[int] = []
    use_price: list[Price] = []
    payment: list[Price] = []
    mjod = NOTHING
    for i, b in enumerate(birka["buildings"]):
        where = f"birka.buildings[{i}] ({b_ids[i]})"
        _need(
            _str(b.get("board"), f"{where}.board") in ("GARDET", "TUNET"), f"{where}.board is GARDET or TUNET"
        )
        owned = _bool(b.get("owned"), f"{where}.owned")
        ownable.append(owned)
        build_price.append(_price(b.get("price"), f"{where}.price", resource) if owned else ())
        _need(owned or "price" not in b, f"{where}: a building nobody owns has no price")
        craft = b.get("craft")
        if craft is None:
            craft_in.append(())
            craft_out.append(NOTHING)
        else:
            c = _obj(craft, f"{where}.craft")
            inp = _price(c.get("input"), f"{where}.craft.input", resource)
            _need(inp != () and all(is_raw[r] for r, _ in inp), f"{where}.craft.input must be raw resources")
            out = resource(c.get("output"), f"{where}.craft.output")
            _need(not is_raw[out], f"{where}.craft.output must be a crafted resource")
            craft_in.append(inp)
            craft_out.append(out)
        sold = b.get("sells")
        if sold is None:
            sells.append(NOTHING)
            use_price.append(())
            _need("use_price" not in b, f"{where}: use_price belongs to a building that sells something")
        else:
            sells.append(RUNESTONE if sold == "RUNESTONE" else good(sold, f"{where}.sells"))
            use_price.append(_price(b.get("use_price"), f"{where}.use_price", resource))
        is_mjod = _bool(b.get("mjodhallen", False), f"{where}.mjodhallen")
        if is_mjod:
            _need(mjod == NOTHING, "birka.buildings: only one Mjödhallen")
            _need(owned, f"{where}: the Mjödhallen is owned")
            mjod = i
        _need(
            (craft is not None) + (sold is not None) + is_mjod <= 1,
            f"{where}: a building crafts, sells or is the Mjödhallen, one of them",
        )
        pay = b.get("payment")
        payment.append(_price(pay, f"{where}.payment", resource) if pay is not None else ())
        _need(pay is None or owned, f"{where}: only an owned building takes a payment")
        _need(pay is None or not is_mjod, f"{where}: the Mjödhallen's payment is the roller's raw resource")
    good_building = []
    for g, gid in enumerate(good_ids):
        where_sold = [i for i, s in enumerate(sells) if s == g]
        _need(len(where_sold) == 1, f"upgrade good {gid} must be sold by exactly one building")
        good_building.append(where_sold[0])
    tinget = [i for i, s in enumerate(sells) if s == RUNESTONE]
    _need(len(tinget) <= 1, "birka.buildings: only one building sells Runestone Cards")
    market = _obj(birka.get("market"), "birka.market")
    raw_slots = _int(market.get("raw_slots"), "birka.market.raw_slots", 1, 64)
    crafted_slots = _int(market.get("crafted_slots"), "birka.market.crafted_slots", 1, 64)
    market_slots = tuple(raw_slots if is_raw[r] else crafted_slots for r in range(len(ids)))
    reset = _int(market.get("reset"), "birka.market.reset", 0, min(raw_slots, crafted_slots))
    give = (
        _int(market.get("raw_give"), "birka.market.raw_give", 1, raw_slots),
        _int(market.get("crafted_give"), "birka.market.crafted_give", 1, crafted_slots),
    )
    outlaw = _obj(birka.get("outlaw"), "birka.outlaw")
    unit_obj = _obj(outlaw.get("unit"), "birka.outlaw.unit")
    price_obj = _obj(outlaw.get("price"), "birka.outlaw.price")
    unit = (
        _int(unit_obj.get("raw"), "birka.outlaw.unit.raw", 1, 16),
        _int(unit_obj.get("crafted"), "birka.outlaw.unit.crafted", 1, 16),
    )
    o_price = (
        _int(price_obj.get("raw"), "birka.outlaw.price.raw", 1, 16),
        _int(price_obj.get("crafted"), "birka.outlaw.price.crafted", 1, 16),
    )

    cal = _obj(files["calendar"], "calendar")
    turns = _int(cal.get("turns_per_round"), "calendar.turns_per_round", 2, 100)
    half = _int(cal.get("halfway_after"), "calendar.halfway_after", 1, turns - 1)
    card_ids, card_names = _named_list(cal.get("cards"), "calendar.cards")
    _need(len(card_ids) <= 64, "calendar.cards: at most 64 cards")
    cards = tuple(
        _card(c, f"calendar.cards[{i}] ({card_ids[i]})", resource, len(ids), is_raw, b_ids, good_ids, sells)
        for i, c in enumerate(cal["cards"])
    )
    for i, c in enumerate(cal["cards"]):
        _str(c.get("text"), f"calendar.cards[{i}].text")

    rs = _obj(files["runestones"], "runestones")
    r_ids, r_names = _named_list(rs.get("cards"), "runestones.cards")
    _need(len(r_ids) <= 64, "runestones.cards: at most 64 cards")
    building = _Ids("building", b_ids)
    points, conditions = [], []
    for i, c in enumerate(rs["cards"]):
        where = f"runestones.cards[{i}] ({r_ids[i]})"
        points.append(_int(c.get("points"), f"{where}.points", 0, 100))
        _str(c.get("text"), f"{where}.text")
        cond = _obj(c.get("condition"), f"{where}.condition")
        kind = cond.get("kind")
        _need(
            isinstance(kind, str) and kind in CONDITION_KINDS,
            f"{where}.condition.kind must be one of {', '.join(CONDITION_KINDS)}",
        )
        k = CONDITION_KINDS[str(kind)]
        if k == BUILD:
            b = building(cond.get("building"), f"{where}.condition.building")
            _need(ownable[b], f"{where}: only an owned building can be built")
            conditions.append(Condition(k, building=b))
        elif k == BUILDINGS:
            n = _int(cond.get("count"), f"{where}.condition.count", 1, sum(ownable))
            conditions.append(Condition(k, count=n))
        elif k == SKEPP:
            conditions.append(
                Condition(k, count=_int(cond.get("count"), f"{where}.condition.count", 1, skepp_max))
            )
        elif k == EXTENSION:
            conditions.append(Condition(k))
        elif k == UPGRADES:
            named = cond.get("good")
            gi = NOTHING if named is None else good(named, f"{where}.condition.good")
            most = len(plot_res) * (len(good_ids) if gi == NOTHING else 1)
            conditions.append(
                Condition(k, count=_int(cond.get("count"), f"{where}.condition.count", 1, most), good=gi)
            )
        elif k == FULL_PLOT:
            n = _int(cond.get("count"), f"{where}.condition.count", 1, len(plot_res))
            conditions.append(Condition(k, count=n))
        else:
            store = _price(cond.get("resources"), f"{where}.condition.resources", resource)
            _need(store != (), f"{where}.condition.resources must name something")
            _need(
                sum(n for _, n in store) <= slots + ext_slots, f"{where}: the resources must fit in a Visthus"
            )
            conditions.append(Condition(k, resources=store))
    dealt = _int(rs.get("dealt"), "runestones.dealt", 1, 16)
    _need(len(r_ids) >= dealt, "runestones.cards: a deck must hold at least the cards dealt")
    finish = _int(rs.get("finish_count"), "runestones.finish_count", 1, 64)
    best = _int(rs.get("best_cards"), "runestones.best_cards", 1, 64)
    bonus = _int(rs.get("finisher_bonus_per_opponent"), "runestones.finisher_bonus_per_opponent", 0, 100)

    prices = []
    for card in (None, *cards):
        skepp_p, ext_p = skepp_price, ext_price
        build_p, use_p = list(build_price), list(use_price)
        for item, r, amount in card.price_changes if card else ():
            if item == "SKEPP":
                skepp_p = _change(skepp_p, r, amount)
            elif item == "EXTENSION":
                ext_p = _change(ext_p, r, amount)
            elif item in b_ids:
                build_p[b_ids.index(item)] = _change(build_p[b_ids.index(item)], r, amount)
            else:
                sold_code = RUNESTONE if item == "RUNESTONE" else good_ids.index(item)
                i = sells.index(sold_code)
                use_p[i] = _change(use_p[i], r, amount)
        prices.append(Prices(skepp_p, ext_p, tuple(build_p), tuple(use_p)))

    public = {name: files[name] for name in FILES}
    return Data(
        data=public,
        resource_ids=tuple(ids),
        resource_names=tuple(names),
        raw_count=n_raw,
        is_raw=is_raw,
        die_faces=die_faces,
        supply=supply,
        visthus_slots=slots,
        extension_slots=ext_slots,
        start_resources=tuple(start),
        skepp_start=skepp_start,
        skepp_max=skepp_max,
        plot_resources=tuple(plot_res),
        plot_start_tokens=tuple(plot_tokens),
        good_ids=tuple(good_ids),
        good_names=tuple(good_names),
        icon_tokens=icons,
        food=food,
        food_count=food_count,
        bread=bread,
        bread_count=bread_count,
        building_ids=tuple(b_ids),
        building_names=tuple(b_names),
        ownable=tuple(ownable),
        craft_input=tuple(craft_in),
        craft_output=tuple(craft_out),
        sells=tuple(sells),
        payment=tuple(payment),
        mjodhallen=mjod,
        good_building=tuple(good_building),
        tinget=tinget[0] if tinget else NOTHING,
        market_slots=market_slots,
        market_reset=reset,
        market_give=give,
        outlaw_unit=unit,
        outlaw_price=o_price,
        turns_per_round=turns,
        halfway_after=half,
        card_ids=tuple(card_ids),
        card_names=tuple(card_names),
        cards=cards,
        runestone_ids=tuple(r_ids),
        runestone_names=tuple(r_names),
        runestone_points=tuple(points),
        conditions=tuple(conditions),
        dealt=dealt,
        finish_count=finish,
        best_cards=best,
        finisher_bonus=bonus,
        prices=tuple(prices),
    )


def _card(
    value: Any,
    where: str,
    resource: _Ids,
    n: int,
    is_raw: tuple[bool, ...],
    building_ids: list[str],
    good_ids: list[str],
    sells: list[int],
) -> Card:
    obj = _obj(value, where)
    bonus = [0] * n
    blocked = [False] * n
    market_closed = outlaw_closed = False
    changes: list[tuple[str, int, int]] = []
    ration: tuple[int, int] | None = None
    stock: tuple[int, int] | None = None
    gift: dict[int, int] = {}
    levy: tuple[int, int] | None = None
    for j, e in enumerate(_list(obj.get("effects"), f"{where}.effects", 0)):
        at = f"{where}.effects[{j}]"
        eff = _obj(e, at)
        kind = eff.get("kind")
        _need(kind in EFFECT_KINDS, f"{at}.kind must be one of {', '.join(EFFECT_KINDS)}")
        if kind == "COLLECT_BONUS":
            r = resource(eff.get("resource"), f"{at}.resource")
            _need(is_raw[r], f"{at}.resource: only raw resources are collected")
            bonus[r] += _int(eff.get("amount"), f"{at}.amount", 1, 16)
        elif kind == "COLLECT_BLOCKED":
            r = resource(eff.get("resource"), f"{at}.resource")
            _need(is_raw[r], f"{at}.resource: only raw resources are collected")
            blocked[r] = True
        elif kind == "MARKET_STOCK":
            _need(stock is None, f"{at}: one MARKET_STOCK per card")
            stock = (
                _int(eff.get("raw"), f"{at}.raw", 0, 64),
                _int(eff.get("crafted"), f"{at}.crafted", 0, 64),
            )
        elif kind == "MARKET_CLOSED":
            market_closed = True
        elif kind == "OUTLAW_CLOSED":
            outlaw_closed = True
        elif kind == "PRICE":
            item = _str(eff.get("item"), f"{at}.item")
            sold_ok = (item == "RUNESTONE" and RUNESTONE in sells) or item in good_ids
            _need(
                item in ("SKEPP", "EXTENSION") or item in building_ids or sold_ok,
                f"{at}.item must be SKEPP, EXTENSION, a building id, a good id or RUNESTONE (when sold)",
            )
            r = resource(eff.get("resource"), f"{at}.resource")
            amount = eff.get("amount")
            _need(
                isinstance(amount, int)
                and not isinstance(amount, bool)
                and -16 <= amount <= 16
                and amount != 0,
                f"{at}.amount must be a non-zero integer from -16 to 16",
            )
            assert isinstance(amount, int)
            changes.append((item, r, amount))
        elif kind == "RATION":
            _need(ration is None, f"{at}: one RATION per card")
            ration = (
                _int(eff.get("food_count"), f"{at}.food_count", 1, 16),
                _int(eff.get("bread_count"), f"{at}.bread_count", 1, 16),
            )
        elif kind == "GIFT":
            r = resource(eff.get("resource"), f"{at}.resource")
            gift[r] = gift.get(r, 0) + _int(eff.get("amount"), f"{at}.amount", 1, 16)
        else:
            _need(levy is None, f"{at}: one LEVY per card")
            cls = eff.get("class")
            _need(isinstance(cls, str) and cls in CLASS_NAMES, f"{at}.class must be RAW, CRAFTED or ANY")
            levy = (CLASS_NAMES[str(cls)], _int(eff.get("amount"), f"{at}.amount", 1, 16))
    return Card(
        collect_bonus=tuple(bonus),
        collect_blocked=tuple(blocked),
        market_closed=market_closed,
        outlaw_closed=outlaw_closed,
        price_changes=tuple(changes),
        ration=ration,
        stock=stock,
        gift=tuple(sorted(gift.items())),
        levy=levy,
    )


_REFERENCE_FILES: dict[str, Any] = {
    name: json.loads(_files.files(__package__).joinpath(f"{name}.json").read_text(encoding="utf-8"))
    for name in FILES
}
REFERENCE = load_data("")
data_for = option_cache(load_data, REFERENCE)
"""The validated data set for an option value ("" = the reference), loaded once."""
