"""Birka: a pure rules engine over a frozen state, played as a chain of small decisions.

Rulebook: ``shared/rulebooks/birka.txt``; every reading of it is recorded in ``ASSUMPTIONS`` and in
``docs/rules/birka.md``. The numbers the rulebook lost (prices, slots, cards) are data: the JSON files
beside this module, loaded and validated by :mod:`.data`, replaceable with the ``data`` option.

Seats are 0..N-1 clockwise. A Turn is one roll of the die by the Starting Player, the collection by
every player, then every player's actions in clockwise order from the Starting Player; then the next
player clockwise becomes the Starting Player. Every decision is one move; who decides is
``State.actor`` (also for decisions of a player who is not the Starting Player: collecting, paying
the Mjödhallen owner, the owner taking a resource, a levy, rations). Chance steps draw one thing at a
time: the listed move is ``Draw()`` (a die, the starting player, a Calendar Card) or ``DrawCard()``
(a secret Runestone Card from the drawer's own deck); :meth:`Birka.chance` lists every explicit
outcome with its probability.

Hidden information: every player's Runestone Cards (hand, cards drawn at Tinget, which are completed)
and the decks. :meth:`Birka.view` shows another seat's cards as ``HIDDEN`` (-1) entries (the number of
cards stays public) and drops the RNG; :meth:`Birka.view_event` and :meth:`Birka.view_move` redact the
cards drawn, kept and completed for everyone but their holder; no event text names a secret card.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from lawspeaker.games.birka.data import (
    ANY,
    BUILD,
    BUILDINGS,
    CRAFTED,
    EXTENSION,
    FULL_PLOT,
    MAX_PLAYERS,
    NOTHING,
    REFERENCE,
    SKEPP,
    STORE,
    UPGRADES,
    BirkaDataError,
    Data,
    Price,
    data_for,
    load_data,
)
from lawspeaker.games.birka.reasons import REASONS
from lawspeaker.games.core import (
    Assumption,
    Chance,
    ChanceOutcome,
    Description,
    ErrorCode,
    Event,
    FieldViolation,
    LawspeakerError,
    OptionInfo,
    Outcome,
    Result,
    Rng,
    ToAct,
    Violation,
    check_ply,
    option_cache,
)
from lawspeaker.games.core import player as _who
from lawspeaker.games.core import replaced as _set

__all__ = [
    "ASSUMPTIONS",
    "FED",
    "GAME",
    "HIDDEN",
    "OPTIONS",
    "RECOVERED",
    "REFERENCE",
    "STARVING",
    "AcquireRunestone",
    "Birka",
    "BirkaDataError",
    "Build",
    "BuildExtension",
    "BuySkepp",
    "Collect",
    "Craft",
    "Data",
    "Discard",
    "Draw",
    "DrawCard",
    "EndActions",
    "EventDetail",
    "KeepCard",
    "MarketTrade",
    "Move",
    "Options",
    "OutlawTrade",
    "PayLevy",
    "PayRation",
    "PayTribute",
    "Phase",
    "PlaceToken",
    "State",
    "StopCollecting",
    "TakeTribute",
    "Upgrade",
    "capacity",
    "free_slots",
    "fulfilled",
    "load_data",
    "possible",
    "ration_cost",
    "ration_options",
    "supplies",
    "view_event",
]

MIN_PLAYERS = 2
GAME_LENGTHS = (5, 10)  # calendar_rounds: the two readings of the rulebook (assumption GAME_LENGTH)
HIDDEN = -1  # a Runestone Card another seat may not see
HIDDEN_RNG = Rng(bytes(32), 0)
FED, STARVING, RECOVERED = 0, 1, 2  # RECOVERED: paid this Turn, restricted until the next Turn
DIE_FACES = 6
ALL_KINDS = (1 << 7) - 1
STORE_KIND = 1 << STORE


class Phase(enum.Enum):
    """What the game waits for."""

    SETUP_DEAL = "SETUP_DEAL"  # chance (secret): the next Runestone Card dealt to a player
    SETUP_START = "SETUP_START"  # chance: the dice determine the Starting Player
    CALENDAR = "CALENDAR"  # chance: the next Calendar Card is revealed
    LEVY = "LEVY"  # a player chooses the resource a Calendar Card's levy takes
    ROLL = "ROLL"  # chance: the Starting Player rolls the yellow (first Turn) or grey die
    COLLECT = "COLLECT"  # a player chooses what to collect into too few empty Visthus slots
    TRIBUTE_PAY = "TRIBUTE_PAY"  # the roller chooses the Raw Resource paid to the Mjödhallen owner
    TRIBUTE_TAKE = "TRIBUTE_TAKE"  # the Mjödhallen owner rolled: takes a Raw Resource from a player
    ACTIONS = "ACTIONS"  # a player's actions (up to their Skepp), discards, then the end of them
    UPGRADE_TOKEN = "UPGRADE_TOKEN"  # the dice token placed in the slot just upgraded
    MJOD_TOKEN = "MJOD_TOKEN"  # the Mjödhallen's new owner places its permanent dice token
    TINGET_DRAW = "TINGET_DRAW"  # chance (secret): a card drawn at Tinget
    TINGET_KEEP = "TINGET_KEEP"  # keep one of the two cards drawn at Tinget
    RECOVER = "RECOVER"  # a starving player who can pay the Ration chooses how
    RATIONS = "RATIONS"  # end of round: a player chooses how to pay the Ration
    OVER = "OVER"


CHANCE_PHASES = frozenset(
    {Phase.SETUP_DEAL, Phase.SETUP_START, Phase.CALENDAR, Phase.ROLL, Phase.TINGET_DRAW}
)
CARD_PHASES = frozenset({Phase.SETUP_DEAL, Phase.TINGET_DRAW})  # secret draws: DrawCard
ACTION_PHASES = frozenset(
    {
        Phase.ACTIONS,
        Phase.UPGRADE_TOKEN,
        Phase.MJOD_TOKEN,
        Phase.TINGET_DRAW,
        Phase.TINGET_KEEP,
        Phase.RECOVER,
    }
)
ORDER_PHASES = frozenset({Phase.COLLECT, Phase.LEVY, Phase.RATIONS, *ACTION_PHASES})


@dataclass(frozen=True, slots=True)
class Options:
    """Options of a game. ``calendar_rounds``: 5 (the rulebook's "maximum of 5 Calendar Rounds (the 10
    cards)") or 10 (its "The 10th Calendar Round ends"). ``data``: JSON text replacing reference data
    files (see :mod:`lawspeaker.games.birka.data`); empty = the reference data set."""

    calendar_rounds: int = 5
    data: str = ""
    tokens_only: bool = False  # collect only from the dice tokens matching the roll (assumption DIE_FACES)


# --------------------------------------------------------------------------- moves


@dataclass(frozen=True, slots=True)
class Draw:
    """A public chance step. ``outcome=None`` asks the server to draw from the state's RNG; otherwise
    the die value (1-6), the starting seat, or the Calendar Card (index in the data's cards)."""

    outcome: int | None = None


@dataclass(frozen=True, slots=True)
class DrawCard:
    """A secret chance step: a Runestone Card from the drawer's own deck. ``index=None`` asks the
    server to draw; otherwise the index of the card in the deck's cards sorted by card number.
    ``HIDDEN`` (-1) is what other seats see of a drawn card in a session's move log."""

    index: int | None = None


@dataclass(frozen=True, slots=True)
class Collect:
    """Collection with too few empty Visthus slots: take 1 of ``resource`` (still due) now."""

    resource: int


@dataclass(frozen=True, slots=True)
class StopCollecting:
    """The Mjödhallen owner leaves the rest of their collection, to keep room for the payment."""


@dataclass(frozen=True, slots=True)
class PayTribute:
    """The roller pays the Mjödhallen owner 1 Raw ``resource``."""

    resource: int


@dataclass(frozen=True, slots=True)
class TakeTribute:
    """The Mjödhallen owner, having rolled its number, takes 1 Raw ``resource`` from ``seat``."""

    seat: int
    resource: int


@dataclass(frozen=True, slots=True)
class MarketTrade:
    """Action: trade at the Birka Köpingen Market: ``give`` goes into its row, 1 ``take`` comes out."""

    give: int
    take: int


@dataclass(frozen=True, slots=True)
class OutlawTrade:
    """Action: trade with the Outlaw Trader: pay with ``give`` for 1 ``take`` from the supply."""

    give: int
    take: int


@dataclass(frozen=True, slots=True)
class Craft:
    """Action: craft 1 Crafted Resource in crafting building ``building``."""

    building: int


@dataclass(frozen=True, slots=True)
class BuySkepp:
    """Action: purchase a Skepp (it brings a new action this Turn)."""


@dataclass(frozen=True, slots=True)
class Upgrade:
    """Action: purchase upgrade good ``good`` (Träl, Verktyg, Häst) for Resource Plot ``plot``; the
    dice token for the slot is placed next (:class:`PlaceToken`)."""

    plot: int
    good: int


@dataclass(frozen=True, slots=True)
class PlaceToken:
    """Place a dice token showing ``value`` (1-6): in the slot just upgraded, or the Mjödhallen's."""

    value: int


@dataclass(frozen=True, slots=True)
class Build:
    """Action: construct building ``building`` and become its owner."""

    building: int


@dataclass(frozen=True, slots=True)
class BuildExtension:
    """Action: buy the Visthus extension."""


@dataclass(frozen=True, slots=True)
class AcquireRunestone:
    """Action: purchase Runestone Cards at Tinget: draw two, keep one."""


@dataclass(frozen=True, slots=True)
class KeepCard:
    """Keep card ``index`` (0 = the first drawn) of the two drawn at Tinget; discard the other."""

    index: int


@dataclass(frozen=True, slots=True)
class Discard:
    """Return 1 ``resource`` from your Visthus to the supply (not an action)."""

    resource: int


@dataclass(frozen=True, slots=True)
class EndActions:
    """End your actions for this Turn."""


@dataclass(frozen=True, slots=True)
class PayRation:
    """Pay the Ration: ``food`` holds the count of each food resource (data order: Korn, Fisk) paid,
    or is empty when ``bread`` (the Bröd) pays it."""

    food: tuple[int, ...] = ()
    bread: bool = False


@dataclass(frozen=True, slots=True)
class PayLevy:
    """A Calendar Card's levy: return 1 ``resource`` of the levied kind to the supply."""

    resource: int


Move = (
    Draw
    | DrawCard
    | Collect
    | StopCollecting
    | PayTribute
    | TakeTribute
    | MarketTrade
    | OutlawTrade
    | Craft
    | BuySkepp
    | Upgrade
    | PlaceToken
    | Build
    | BuildExtension
    | AcquireRunestone
    | KeepCard
    | Discard
    | EndActions
    | PayRation
    | PayLevy
)

_DRAW = Draw()
_DRAW_CARD = DrawCard()
_STOP = StopCollecting()
_BUY_SKEPP = BuySkepp()
_EXTENSION = BuildExtension()
_ACQUIRE = AcquireRunestone()
_END = EndActions()
_KEEP = (KeepCard(0), KeepCard(1))
_TOKENS = tuple(PlaceToken(v) for v in range(1, DIE_FACES + 1))

# --------------------------------------------------------------------------- state


class State(NamedTuple):
    """A position. Per-seat tuples are indexed by seat; resources, buildings, plots and cards by their
    index in the data set (see :mod:`lawspeaker.games.birka.data`)."""

    options: Options
    players: int
    phase: Phase
    actor: int  # the seat who decides or draws now; -1 for a draw nobody makes, or once over
    starter: int  # the Starting Player of this Turn (-1 until the dice choose one)
    round: int  # the Calendar Round, from 1
    turn: int  # the Turn within the round, 1..turns_per_round
    step: int  # cards dealt (SETUP_DEAL), or the position clockwise from the Starting Player
    die: int  # this Turn's roll (0 until rolled)
    yellow: int  # the yellow die on the Calendar Board's first Dice Slot this round (0 until rolled)
    actions_left: int  # actions the acting player may still take this Turn
    visthus: tuple[tuple[int, ...], ...]  # per seat: count of each resource
    extension: tuple[bool, ...]  # per seat: owns the Visthus extension
    skepp: tuple[int, ...]
    plots: tuple[tuple[int, ...], ...]  # per seat: plot * slots_per_plot + slot -> dice token (0 = empty)
    owners: tuple[int, ...]  # per building: owner seat, -1 = nobody
    mjod_token: int  # the Mjödhallen's permanent dice token (0 = none)
    market: tuple[int, ...]  # per resource: tokens in its Market row
    calendar: tuple[int, ...]  # Calendar Cards not yet revealed (sorted; their order is the RNG's)
    card: int  # the Calendar Card in effect (-1 = none yet)
    round_cards: tuple[int, ...]  # the Calendar Cards revealed this round, in order
    starving: tuple[int, ...]  # per seat: FED, STARVING or RECOVERED
    hands: tuple[tuple[int, ...], ...]  # per seat: Runestone Cards held (sorted); HIDDEN in a view
    completed: tuple[tuple[int, ...], ...]  # per seat: the completed cards of the hand (empty in a view)
    decks: tuple[tuple[int, ...], ...]  # per seat: the cards left in the deck (sorted); HIDDEN in a view
    drawn: tuple[int, ...]  # cards drawn at Tinget, not yet kept (in draw order)
    hidden: int  # bit s: seat s's cards are hidden (a view)
    due: tuple[int, ...]  # COLLECT: per resource, what the collecting player may still collect
    pending: int  # UPGRADE_TOKEN: the plot slot (plot * slots_per_plot + slot) waiting for a token
    left: int  # LEVY: resources the paying player still owes
    finisher: int  # the player who completed the Runestones that ended the game (-1)
    scores: tuple[int, ...]  # per seat, once the game is over
    winners: tuple[int, ...]
    ply: int
    rng: Rng


@dataclass(frozen=True, slots=True)
class EventDetail:
    """Structured details of an event. ``cards`` are Runestone Cards, shown only to the seats in
    ``viewers`` when ``secret``; a ``private`` event is shown to nobody else at all."""

    value: int = 0
    resources: tuple[int, ...] = ()  # a multiset of resources (sorted indices)
    seats: tuple[int, ...] = ()
    cards: tuple[int, ...] = ()
    secret: bool = False
    private: bool = False
    viewers: tuple[int, ...] = ()


def view_event(event: Event, seat: int | None) -> Event | None:
    """The event as ``seat`` may see it: secret cards are dropped and private events vanish for
    everyone but their viewers."""
    detail = event.detail
    if isinstance(detail, EventDetail) and (detail.secret or detail.private) and seat not in detail.viewers:
        if detail.private:
            return None
        return Event(
            event.kind,
            event.text,
            event.player,
            EventDetail(detail.value, detail.resources, detail.seats, (), True, False, ()),
        )
    return event


def _afford(row: tuple[int, ...], cost: Price) -> bool:
    for r, n in cost:  # noqa: SIM110 - a loop is faster than all() over a generator here
        if row[r] < n:
            return False
    return True


def _pay(row: tuple[int, ...], cost: Price) -> tuple[int, ...]:
    out = list(row)
    for r, n in cost:
        out[r] -= n
    return tuple(out)


def _merge(a: Price, b: Price) -> Price:
    counts = dict(a)
    for r, n in b:
        counts[r] = counts.get(r, 0) + n
    return tuple(sorted(counts.items()))


def _multiset(counts: Sequence[int]) -> tuple[int, ...]:
    return tuple(r for r, n in enumerate(counts) for _ in range(n))


class _Ctx:
    """Per data set: the move objects (built once) and the prices with the owner's payment added."""

    def __init__(self, data: Data) -> None:
        n = data.resources
        self.data = data
        self.raw = tuple(r for r in range(n) if data.is_raw[r])
        self.crafted = tuple(r for r in range(n) if not data.is_raw[r])
        self.market_trade = [[MarketTrade(g, t) for t in range(n)] for g in range(n)]
        self.outlaw_trade = [[OutlawTrade(g, t) for t in range(n)] for g in range(n)]
        self.collect = [Collect(r) for r in range(n)]
        self.discard = [Discard(r) for r in range(n)]
        self.pay_tribute = [PayTribute(r) for r in range(n)]
        self.levy = [PayLevy(r) for r in range(n)]
        self.take = [[TakeTribute(s, r) for r in range(n)] for s in range(MAX_PLAYERS)]
        buildings = len(data.building_ids)
        self.craft = [Craft(b) for b in range(buildings)]
        self.build = [Build(b) for b in range(buildings)]
        self.upgrade = [
            [Upgrade(p, g) for g in range(len(data.good_ids))] for p in range(len(data.plot_resources))
        ]
        self.crafters = tuple(b for b in range(buildings) if data.craft_output[b] >= 0)
        self.craft_total = tuple(_merge(data.craft_input[b], data.payment[b]) for b in range(buildings))
        self.use_total = tuple(
            tuple(_merge(p.use[b], data.payment[b]) for b in range(buildings)) for p in data.prices
        )
        self.ownable = tuple(b for b in range(buildings) if data.ownable[b])
        self.slots = data.slots_per_plot
        self.kind_bit = tuple(1 << c.kind for c in data.conditions)


_contexts = option_cache(lambda text: _Ctx(data_for(text)), _Ctx(REFERENCE))


def _ctx(options: Options) -> _Ctx:
    """The move objects and prices of the game's data set, built once per data option."""
    return _contexts(options.data)


def capacity(state: State, seat: int, data: Data) -> int:
    """The seat's Visthus slots (with the extension)."""
    return data.visthus_slots + (data.extension_slots if state.extension[seat] else 0)


def free_slots(state: State, seat: int, data: Data) -> int:
    """The empty slots of the seat's Visthus."""
    return capacity(state, seat, data) - sum(state.visthus[seat])


def supplies(state: State, data: Data) -> list[int]:
    """Tokens of each resource left in the supply piles (the game's tokens minus those in Visthus and
    Market)."""
    return [
        s - m - sum(col)
        for s, m, col in zip(data.supply, state.market, zip(*state.visthus, strict=True), strict=True)
    ]


def _supply_of(state: State, data: Data, r: int) -> int:
    return data.supply[r] - state.market[r] - sum(v[r] for v in state.visthus)


def ration_cost(state: State, data: Data) -> tuple[int, int]:
    """(Korn/Fisk, Bröd) the Rations at the end of this round cost (a card revealed this round may
    change it)."""
    cost = (data.food_count, data.bread_count)
    for c in state.round_cards:
        ration = data.cards[c].ration
        if ration is not None:
            cost = ration
    return cost


def ration_options(row: tuple[int, ...], data: Data, food_count: int, bread_count: int) -> list[PayRation]:
    """Every way ``row`` can pay a Ration of ``food_count`` food or ``bread_count`` Bröd."""
    out: list[PayRation] = []
    food = data.food
    if sum(row[f] for f in food) >= food_count:

        def fill(i: int, rest: int, acc: tuple[int, ...]) -> None:
            if i == len(food) - 1:
                if row[food[i]] >= rest:
                    out.append(PayRation((*acc, rest), False))
                return
            for k in range(min(rest, row[food[i]]), -1, -1):
                fill(i + 1, rest - k, (*acc, k))

        fill(0, food_count, ())
    if row[data.bread] >= bread_count:
        out.append(PayRation((), True))
    return out


def fulfilled(state: State, seat: int, card: int, data: Data) -> bool:
    """True when the seat fulfils Runestone Card ``card``'s condition now."""
    cond = data.conditions[card]
    kind = cond.kind
    if kind == BUILD:
        return state.owners[cond.building] == seat
    if kind == SKEPP:
        return state.skepp[seat] >= cond.count
    if kind == STORE:
        return _afford(state.visthus[seat], cond.resources)
    if kind == EXTENSION:
        return state.extension[seat]
    if kind == BUILDINGS:
        return sum(1 for o in state.owners if o == seat) >= cond.count
    plots = state.plots[seat]
    size = data.slots_per_plot
    if kind == UPGRADES:
        if cond.good == NOTHING:
            n = sum(1 for i, t in enumerate(plots) if t and i % size)
        else:
            n = sum(1 for i in range(1 + cond.good, len(plots), size) if plots[i])
        return n >= cond.count
    # FULL_PLOT
    full = sum(1 for p in range(0, len(plots), size) if all(plots[p : p + size]))
    return full >= cond.count


def possible(state: State, seat: int, card: int, data: Data) -> bool:
    """False when Runestone Card ``card`` can no longer be completed by the seat (a building it
    needs belongs to another player, or too few buildings are left)."""
    cond = data.conditions[card]
    if cond.kind == BUILD:
        return state.owners[cond.building] in (-1, seat)
    if cond.kind == BUILDINGS:
        mine_or_free = sum(1 for b, o in enumerate(state.owners) if data.ownable[b] and o in (-1, seat))
        return mine_or_free >= cond.count
    return True


# --------------------------------------------------------------------------- the game


class Birka:
    """The Birka rules engine (implements :class:`lawspeaker.games.core.Game`)."""

    id = "birka"
    title = "Birka"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    rules_version = "birka-1"
    reasons = REASONS

    def default_options(self) -> Options:
        return Options()

    def new_game(self, players: int, options: Options, rng: Rng) -> State:
        problem = options_problem(options)
        if problem is not None:
            field = "data" if problem.startswith("data") else "calendar_rounds"
            raise LawspeakerError(
                ErrorCode.MALFORMED,
                "INVALID_DATA" if field == "data" else "INVALID_OPTIONS",
                problem,
                (FieldViolation(field, problem),),
            )
        data = _ctx(options).data
        n = players
        plots = tuple(
            v
            for token in data.plot_start_tokens
            for v in (token, *(0 for _ in range(data.slots_per_plot - 1)))
        )
        return State(
            options=options,
            players=n,
            phase=Phase.SETUP_DEAL,
            actor=0,
            starter=-1,
            round=1,
            turn=1,
            step=0,
            die=0,
            yellow=0,
            actions_left=0,
            visthus=(data.start_resources,) * n,
            extension=(False,) * n,
            skepp=(data.skepp_start,) * n,
            plots=(plots,) * n,
            owners=(-1,) * len(data.building_ids),
            mjod_token=0,
            market=(0,) * data.resources,
            calendar=tuple(range(len(data.card_ids))),
            card=-1,
            round_cards=(),
            starving=(FED,) * n,
            hands=((),) * n,
            completed=((),) * n,
            decks=(tuple(range(len(data.runestone_ids))),) * n,
            drawn=(),
            hidden=0,
            due=(),
            pending=-1,
            left=0,
            finisher=-1,
            scores=(),
            winners=(),
            ply=0,
            rng=rng,
        )

    # -- questions ----------------------------------------------------------------

    def to_act(self, state: State) -> ToAct:
        phase = state.phase
        if phase is Phase.OVER:
            return ToAct(())
        players = (state.actor,) if state.actor >= 0 else ()
        return ToAct(players, phase in CHANCE_PHASES)

    def legal_moves(self, state: State) -> Sequence[Move]:
        phase = state.phase
        if phase is Phase.ACTIONS:
            return self._action_moves(state, _ctx(state.options))
        if phase in CHANCE_PHASES:
            return (_DRAW_CARD,) if phase in CARD_PHASES else (_DRAW,)
        if phase is Phase.OVER:
            return ()
        ctx = _ctx(state.options)
        data = ctx.data
        seat = state.actor
        row = state.visthus[seat]
        if phase is Phase.COLLECT:
            out: list[Move] = [ctx.collect[r] for r, k in enumerate(state.due) if k]
            if self._may_stop(state, data):
                out.append(_STOP)
            return out
        if phase is Phase.UPGRADE_TOKEN or phase is Phase.MJOD_TOKEN:
            return _TOKENS
        if phase is Phase.TINGET_KEEP:
            return _KEEP
        if phase is Phase.RECOVER:
            return ration_options(row, data, data.food_count, data.bread_count)
        if phase is Phase.RATIONS:
            food, bread = ration_cost(state, data)
            return ration_options(row, data, food, bread)
        if phase is Phase.TRIBUTE_PAY:
            return [ctx.pay_tribute[r] for r in ctx.raw if row[r]]
        if phase is Phase.TRIBUTE_TAKE:
            return [
                ctx.take[s][r]
                for s in range(state.players)
                if s != seat
                for r in ctx.raw
                if state.visthus[s][r]
            ]
        if phase is Phase.LEVY:
            return [ctx.levy[r] for r in self._levy_kinds(state, data, seat)]
        return ()

    def _action_moves(self, state: State, ctx: _Ctx) -> list[Move]:
        data = ctx.data
        seat = state.actor
        row = state.visthus[seat]
        out: list[Move] = []
        if state.actions_left > 0:
            card = data.cards[state.card] if state.card >= 0 else None
            starving = state.starving[seat] != FED
            if card is None or not card.market_closed:
                market = state.market
                slots = data.market_slots
                for members, give_n in ((ctx.raw, data.market_give[0]), (ctx.crafted, data.market_give[1])):
                    takes = [t for t in members if market[t]]
                    if not takes:
                        continue
                    for g in members:
                        if row[g] >= give_n and market[g] + give_n <= slots[g]:
                            table = ctx.market_trade[g]
                            out.extend(table[t] for t in takes if t != g)
            supply = supplies(state, data)
            if card is None or not card.outlaw_closed:
                unit, price = data.outlaw_unit, data.outlaw_price
                takes_raw = [t for t in ctx.raw if supply[t] > 0]
                takes_crafted = [t for t in ctx.crafted if supply[t] > 0]
                for g, k in enumerate(row):
                    if not k:
                        continue
                    u = unit[0] if data.is_raw[g] else unit[1]
                    outlaw = ctx.outlaw_trade[g]
                    if k >= u * price[0]:
                        out.extend(outlaw[t] for t in takes_raw if t != g)
                    if k >= u * price[1]:
                        out.extend(outlaw[t] for t in takes_crafted if t != g)
            owners = state.owners
            for b in ctx.crafters:
                owner = owners[b]
                if owner < 0 or supply[data.craft_output[b]] <= 0:
                    continue
                if starving and data.craft_output[b] != data.bread:
                    continue
                if _afford(row, data.craft_input[b] if owner == seat else ctx.craft_total[b]):
                    out.append(ctx.craft[b])
            if not starving:
                prices = data.prices[state.card + 1]
                if state.skepp[seat] < data.skepp_max and _afford(row, prices.skepp):
                    out.append(_BUY_SKEPP)
                plots = state.plots[seat]
                size = ctx.slots
                use_total = ctx.use_total[state.card + 1]
                for g, b in enumerate(data.good_building):
                    owner = owners[b]
                    if data.ownable[b] and owner < 0:
                        continue
                    if not _afford(row, prices.use[b] if owner in (-1, seat) else use_total[b]):
                        continue
                    ups = ctx.upgrade
                    out.extend(ups[p][g] for p in range(len(ups)) if not plots[p * size + 1 + g])
                if sum(1 for o in owners if o == seat) < data.icon_tokens:
                    out.extend(
                        ctx.build[b] for b in ctx.ownable if owners[b] < 0 and _afford(row, prices.build[b])
                    )
                if not state.extension[seat] and _afford(row, prices.extension):
                    out.append(_EXTENSION)
                t = data.tinget
                if t >= 0 and state.decks[seat] and _afford(row, prices.use[t]):
                    out.append(_ACQUIRE)
        discard = ctx.discard
        out.extend(discard[r] for r, k in enumerate(row) if k)
        out.append(_END)
        return out

    def _may_stop(self, state: State, data: Data) -> bool:
        """The Mjödhallen owner may leave part of the collection when its number was rolled."""
        m = data.mjodhallen
        return m >= 0 and state.owners[m] == state.actor and state.mjod_token == state.die

    def _levy_kinds(self, state: State, data: Data, seat: int) -> list[int]:
        card = data.cards[state.card] if state.card >= 0 else None
        if card is None or card.levy is None:
            return []
        cls = card.levy[0]
        row = state.visthus[seat]
        return [r for r, k in enumerate(row) if k and (cls == ANY or (cls == CRAFTED) != data.is_raw[r])]

    def chance(self, state: State) -> Chance[Move] | None:
        phase = state.phase
        if phase not in CHANCE_PHASES:
            return None
        data = _ctx(state.options).data
        if phase in CARD_PHASES:
            k = len(state.decks[state.actor])
            what = "is dealt" if phase is Phase.SETUP_DEAL else "draws at Tinget"
            return Chance(
                f"{_who(state.actor)} {what} a Runestone Card from their own deck ({k} cards)",
                tuple(ChanceOutcome(DrawCard(i), 1 / k, f"card {i + 1} of {k}") for i in range(k)),
            )
        if phase is Phase.SETUP_START:
            n = state.players
            return Chance(
                "The dice determine the Starting Player",
                tuple(ChanceOutcome(Draw(s), 1 / n, f"{_who(s)} starts") for s in range(n)),
            )
        if phase is Phase.CALENDAR:
            left = state.calendar or tuple(range(len(data.card_ids)))
            return Chance(
                "The next Calendar Card is revealed",
                tuple(ChanceOutcome(Draw(c), 1 / len(left), data.card_names[c]) for c in left),
            )
        colour = "yellow" if state.turn == 1 else "grey"
        return Chance(
            f"{_who(state.actor)} rolls the {colour} die",
            tuple(
                ChanceOutcome(Draw(v), 1 / DIE_FACES, f"{v}: {data.resource_names[data.die_faces[v - 1]]}")
                for v in range(1, DIE_FACES + 1)
            ),
        )

    def drawn_outcome(self, state: State) -> Move:
        """The explicit outcome the server's draw in ``state`` comes to (the session's shortcut)."""
        phase = state.phase
        if phase in CARD_PHASES:
            i, _ = state.rng.below(len(state.decks[state.actor]))
            return DrawCard(i)
        if phase is Phase.SETUP_START:
            s, _ = state.rng.below(state.players)
            return Draw(s)
        if phase is Phase.CALENDAR:
            left = state.calendar or tuple(range(len(_ctx(state.options).data.card_ids)))
            i, _ = state.rng.below(len(left))
            return Draw(left[i])
        v, _ = state.rng.below(DIE_FACES)
        return Draw(v + 1)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase is not Phase.OVER:
            return None
        points = ", ".join(f"{_who(s)} {p}" for s, p in enumerate(state.scores))
        names = ", ".join(_who(s) for s in state.winners)
        if len(state.winners) == state.players and state.players > 1:
            return Outcome(
                Result.DRAW, state.winners, f"Every player ties and shares the victory ({points})."
            )
        verb = "wins" if len(state.winners) == 1 else "share the victory"
        return Outcome(Result.WIN, state.winners, f"{names} {verb} ({points}).")

    # -- hidden information -----------------------------------------------------------

    def view_event(self, event: Event, seat: int | None) -> Event | None:
        """An event as ``seat`` may see it (see :func:`view_event`)."""
        return view_event(event, seat)

    def view_move(self, move: Move, by_seat: int | None, seat: int | None) -> Move:
        """A move as ``seat`` may see it in a session's move log: the card a player drew (dealt or at
        Tinget) is known only to them (``DrawCard(HIDDEN)`` for everyone else)."""
        if isinstance(move, DrawCard) and move.index is not None and seat != by_seat:
            return DrawCard(HIDDEN)
        return move

    def reveals(self, before: State, move: Move, after: State) -> bool:
        """True when the move showed someone hidden information, so that it cannot be taken back: a
        card drawn (to its drawer) and the end of the game (every hand)."""
        return isinstance(move, DrawCard) or after.phase is Phase.OVER

    def view(self, state: State, seat: int | None) -> State:
        """What ``seat`` may see: every other seat's cards (hand, deck, cards drawn) become HIDDEN
        entries (their number stays), their completed cards are dropped, the RNG is removed. Once the
        game is over every hand is shown."""
        if state.phase is Phase.OVER:
            return state._replace(rng=HIDDEN_RNG)
        n = state.players
        hide = state.hidden | (((1 << n) - 1) & ~(0 if seat is None or not 0 <= seat < n else 1 << seat))
        hands = tuple((HIDDEN,) * len(h) if hide >> s & 1 else h for s, h in enumerate(state.hands))
        decks = tuple((HIDDEN,) * len(d) if hide >> s & 1 else d for s, d in enumerate(state.decks))
        completed = tuple(() if hide >> s & 1 else c for s, c in enumerate(state.completed))
        drawn = state.drawn
        if drawn and 0 <= state.actor < n and hide >> state.actor & 1:
            drawn = (HIDDEN,) * len(drawn)
        return state._replace(
            hands=hands, decks=decks, completed=completed, drawn=drawn, hidden=hide, rng=HIDDEN_RNG
        )

    # -- validation ---------------------------------------------------------------

    def explain(self, state: State, move: Move) -> Violation:
        phase = state.phase
        expected = _EXPECTED.get(phase, ())
        if not isinstance(move, expected):
            if isinstance(move, Discard) and phase is not Phase.OVER:
                return Violation(
                    "DISCARD_ONLY_IN_ACTIONS",
                    "You discard only during your own actions: you cannot discard Resources during the "
                    "collection phase or another step.",
                    "discard",
                )
            if isinstance(move, Draw | DrawCard) and phase in CHANCE_PHASES:
                kind = "DrawCard (a secret Runestone Card)" if phase in CARD_PHASES else "Draw"
                return Violation(
                    "WRONG_DRAW", f"This chance step is drawn with {kind}: {_WAITING[phase]}.", "draw"
                )
            if isinstance(move, Draw | DrawCard):
                return Violation("NOT_A_CHANCE_STEP", f"Nothing is drawn now: {_WAITING[phase]}.", "draw")
            return Violation("WRONG_STEP", f"That move is not part of this step: {_WAITING[phase]}.", "move")
        ctx = _ctx(state.options)
        data = ctx.data
        if isinstance(move, Draw | DrawCard):
            what = move.outcome if isinstance(move, Draw) else move.index
            field = "draw.outcome" if isinstance(move, Draw) else "draw_card.index"
            chance = self.chance(state)
            known = len(chance.outcomes) if chance is not None else 0
            hint = {
                Phase.SETUP_START: f"the starting player is a seat from 0 to {state.players - 1} "
                f"(Player 1 to Player {state.players})",
                Phase.ROLL: f"the die shows 1 to {DIE_FACES}",
            }.get(
                state.phase,
                f"this draw has {known} possible {'outcome' if known == 1 else 'outcomes'}, listed with the "
                "legal moves",
            )
            return Violation("NO_SUCH_OUTCOME", f"That is not a possible outcome ({what}): {hint}.", field)
        seat = state.actor
        row = state.visthus[seat]
        n_res = data.resources
        if isinstance(move, Collect):
            if not 0 <= move.resource < n_res or not state.due[move.resource]:
                return Violation(
                    "NOT_DUE",
                    "Collect only the Raw Resources the roll gives you this Turn.",
                    "collect.resource",
                )
            return Violation(
                "NO_EMPTY_SLOT", "Items can only be collected if there is an empty Slot.", "collect"
            )
        if isinstance(move, StopCollecting):
            return Violation(
                "MUST_COLLECT",
                "All Players collect; only the Mjödhallen owner may leave part of the collection, when its "
                "number was rolled, to have room for the payment.",
                "stop_collecting",
            )
        if isinstance(move, PayTribute):
            return Violation(
                "NO_SUCH_RAW_RESOURCE",
                "The Mjödhallen owner is paid 1 Raw Resource you hold.",
                "pay_tribute.resource",
            )
        if isinstance(move, TakeTribute):
            if move.seat == seat or not 0 <= move.seat < state.players:
                return Violation(
                    "NOT_ANOTHER_PLAYER",
                    "The Mjödhallen owner takes from another player.",
                    "take_tribute.seat",
                )
            return Violation(
                "NO_SUCH_RAW_RESOURCE", "That player holds no such Raw Resource.", "take_tribute.resource"
            )
        if isinstance(move, PlaceToken):
            return Violation("NO_SUCH_TOKEN", "Dice tokens show 1 to 6.", "place_token.value")
        if isinstance(move, KeepCard):
            return Violation("NO_SUCH_CARD", "Keep card 0 or 1 of the two drawn.", "keep_card.index")
        if isinstance(move, PayRation):
            food, bread = (data.food_count, data.bread_count)
            if phase is Phase.RATIONS:
                food, bread = ration_cost(state, data)
            names = " / ".join(data.resource_names[f] for f in data.food)
            if move.bread and move.food:
                return Violation(
                    "BAD_RATION", "Pay the Ration with food or with Bröd, not both.", "pay_ration.food"
                )
            if move.bread:
                return Violation(
                    "CANNOT_PAY_RATION",
                    f"The Ration costs {bread} {data.resource_names[data.bread]}, and you hold "
                    f"{row[data.bread]}.",
                    "pay_ration.bread",
                )
            if len(move.food) != len(data.food) or sum(move.food) != food or min(move.food) < 0:
                return Violation(
                    "BAD_RATION",
                    f"The Ration costs {food} {names} (any combination, one count per food resource) "
                    f"or {bread} {data.resource_names[data.bread]}.",
                    "pay_ration.food",
                )
            held = ", ".join(f"{row[f]} {data.resource_names[f]}" for f in data.food)
            return Violation(
                "CANNOT_PAY_RATION",
                f"The Ration costs {food} {names} in any combination, and you hold {held}: pay with what "
                "you hold.",
                "pay_ration.food",
            )
        if isinstance(move, PayLevy):
            return Violation(
                "NO_SUCH_RESOURCE",
                "The levy takes a resource of the kind the card names that you hold.",
                "pay_levy",
            )
        return self._explain_action(state, move, ctx, seat, row)

    def _explain_action(
        self, state: State, move: Move, ctx: _Ctx, seat: int, row: tuple[int, ...]
    ) -> Violation:
        data = ctx.data
        n_res = data.resources
        if isinstance(move, Discard):
            if not 0 <= move.resource < n_res:
                return Violation("NO_SUCH_RESOURCE", "There is no such resource.", "discard.resource")
            if not row[move.resource]:
                return Violation(
                    "NOTHING_TO_DISCARD",
                    f"Your Visthus holds no {data.resource_names[move.resource]} to discard.",
                    "discard.resource",
                )
            return Violation("NOT_A_LEGAL_MOVE", "That move is not legal now.", "move")
        if isinstance(move, EndActions):
            return Violation("NOT_A_LEGAL_MOVE", "That move is not legal now.", "move")
        if state.actions_left <= 0:
            return Violation(
                "NO_ACTIONS_LEFT",
                "You can perform as many actions as you own Skepp: you have none left this Turn.",
                "move",
            )
        starving = state.starving[seat] != FED
        card = data.cards[state.card] if state.card >= 0 else None
        prices = data.prices[state.card + 1]
        owners = state.owners
        if isinstance(move, MarketTrade | OutlawTrade):
            market = isinstance(move, MarketTrade)
            name = "market_trade" if market else "outlaw_trade"
            g, t = move.give, move.take
            if not 0 <= g < n_res:
                return Violation("NO_SUCH_RESOURCE", "There is no such resource.", f"{name}.give")
            if not 0 <= t < n_res:
                return Violation("NO_SUCH_RESOURCE", "There is no such resource.", f"{name}.take")
            if g == t:
                return Violation(
                    "SAME_RESOURCE", "A trade exchanges one resource for another.", f"{name}.take"
                )
            if market:
                if card is not None and card.market_closed:
                    return Violation(
                        "MARKET_CLOSED", "The Calendar Card in effect closes the Market.", "market_trade"
                    )
                if data.is_raw[g] != data.is_raw[t]:
                    return Violation(
                        "DIFFERENT_MARKETS",
                        "The Raw Market trades Raw Resources and the Crafted Market Crafted Resources.",
                        "market_trade.take",
                    )
                give_n = data.market_give[0 if data.is_raw[g] else 1]
                if row[g] < give_n:
                    return Violation(
                        "CANNOT_AFFORD",
                        f"This trade gives {give_n} {data.resource_names[g]} from your Visthus to the "
                        f"Market, and you hold {row[g]}.",
                        "market_trade.give",
                    )
                if state.market[g] + give_n > data.market_slots[g]:
                    return Violation(
                        "MARKET_ROW_FULL",
                        f"You may not exceed available Slots: the {data.resource_names[g]} row is full.",
                        "market_trade.give",
                    )
                return Violation(
                    "NOT_IN_MARKET",
                    f"You may not trade for a Resource that is not present: no {data.resource_names[t]} "
                    "at the Market.",
                    "market_trade.take",
                )
            if card is not None and card.outlaw_closed:
                return Violation(
                    "OUTLAW_CLOSED", "The Calendar Card in effect closes the Outlaw Trader.", "outlaw_trade"
                )
            units = data.outlaw_price[0 if data.is_raw[t] else 1]
            give_n = units * data.outlaw_unit[0 if data.is_raw[g] else 1]
            if row[g] < give_n:
                return Violation(
                    "CANNOT_AFFORD",
                    f"The Outlaw Trader wants {give_n} {data.resource_names[g]} for "
                    f"1 {data.resource_names[t]}; you hold {row[g]}.",
                    "outlaw_trade.give",
                )
            return Violation(
                "SUPPLY_EMPTY",
                f"The supply has no {data.resource_names[t]} left and it cannot be replaced.",
                "outlaw_trade.take",
            )
        if isinstance(move, Craft):
            b = move.building
            if not 0 <= b < len(data.building_ids):
                return Violation("NO_SUCH_BUILDING", "There is no such building.", "craft.building")
            if data.craft_output[b] < 0:
                return Violation(
                    "NOT_A_CRAFTING_BUILDING",
                    f"The {data.building_names[b]} is not a crafting building.",
                    "craft.building",
                )
            if owners[b] < 0:
                return Violation(
                    "NOT_BUILT",
                    f"A Building cannot be used until purchased by any Player in Birka: nobody owns the "
                    f"{data.building_names[b]} yet.",
                    "craft.building",
                )
            if starving and data.craft_output[b] != data.bread:
                return _starving(data)
            cost = data.craft_input[b] if owners[b] == seat else ctx.craft_total[b]
            if not _afford(row, cost):
                return _cannot_afford(data, cost, "craft.building")
            return _supply_empty(data, data.craft_output[b], "craft.building")
        if starving and isinstance(move, BuySkepp | Upgrade | Build | BuildExtension | AcquireRunestone):
            return _starving(data)
        if isinstance(move, BuySkepp):
            if state.skepp[seat] >= data.skepp_max:
                return Violation("SKEPP_LIMIT", f"A Byn holds at most {data.skepp_max} Skepp.", "buy_skepp")
            return _cannot_afford(data, prices.skepp, "buy_skepp")
        if isinstance(move, Upgrade):
            p, g = move.plot, move.good
            if not 0 <= p < len(data.plot_resources):
                return Violation("NO_SUCH_PLOT", "There is no such Resource Plot.", "upgrade.plot")
            if not 0 <= g < len(data.good_ids):
                return Violation("NO_SUCH_GOOD", "The upgrades are Träl, Verktyg and Häst.", "upgrade.good")
            b = data.good_building[g]
            if data.ownable[b] and owners[b] < 0:
                return Violation(
                    "NOT_BUILT",
                    f"A Building cannot be used until purchased by any Player in Birka: nobody owns the "
                    f"{data.building_names[b]} yet.",
                    "upgrade.good",
                )
            if state.plots[seat][p * ctx.slots + 1 + g]:
                return Violation(
                    "SLOT_TAKEN",
                    f"Once placed, dice cannot be changed: the {data.good_names[g]} slot of your "
                    f"{data.resource_names[data.plot_resources[p]]} plot is already upgraded.",
                    "upgrade.plot",
                )
            cost = prices.use[b] if owners[b] in (-1, seat) else ctx.use_total[state.card + 1][b]
            return _cannot_afford(data, cost, "upgrade")
        if isinstance(move, Build):
            b = move.building
            if not 0 <= b < len(data.building_ids):
                return Violation("NO_SUCH_BUILDING", "There is no such building.", "build.building")
            if not data.ownable[b]:
                return Violation(
                    "NOT_FOR_SALE",
                    f"The {data.building_names[b]} cannot be built: nobody owns it and it is always "
                    "available.",
                    "build.building",
                )
            if owners[b] >= 0:
                return Violation(
                    "BUILDING_OWNED",
                    f"The {data.building_names[b]} already belongs to {_who(owners[b])}.",
                    "build.building",
                )
            if sum(1 for o in owners if o == seat) >= data.icon_tokens:
                return Violation(
                    "NO_ICON_TOKENS", "You have no Player icon left to mark ownership.", "build.building"
                )
            return _cannot_afford(data, prices.build[b], "build.building")
        if isinstance(move, BuildExtension):
            if state.extension[seat]:
                return Violation(
                    "EXTENSION_OWNED", "Your Visthus already has its extension.", "build_extension"
                )
            return _cannot_afford(data, prices.extension, "build_extension")
        if isinstance(move, AcquireRunestone):
            if data.tinget < 0:
                return Violation("NO_TINGET", "No building sells Runestone Cards.", "acquire_runestone")
            if not state.decks[seat]:
                return Violation(
                    "DECK_EMPTY", "Your Runestone deck has no card left to draw.", "acquire_runestone"
                )
            return _cannot_afford(data, prices.use[data.tinget], "acquire_runestone")
        return Violation("NOT_A_LEGAL_MOVE", "That move is not legal now.", "move")

    # -- applying -----------------------------------------------------------------

    def apply(self, state: State, move: Move) -> tuple[State, list[Event]]:
        events: list[Event] = []
        state = state._replace(ply=state.ply + 1)
        ctx = _ctx(state.options)
        phase = state.phase
        if phase is Phase.ACTIONS:
            return self._act(state, move, ctx, events), events
        if isinstance(move, Draw | DrawCard):
            return self._draw(state, move, ctx, events), events
        data = ctx.data
        seat = state.actor
        if isinstance(move, Collect | StopCollecting):
            return self._collect_choice(state, move, ctx, events), events
        if isinstance(move, PayTribute):
            return self._tribute(state, state.starter, move.resource, ctx, events), events
        if isinstance(move, TakeTribute):
            return self._tribute(state, move.seat, move.resource, ctx, events), events
        if isinstance(move, PlaceToken):
            return self._place_token(state, move.value, ctx, events), events
        if isinstance(move, KeepCard):
            return self._keep(state, move.index, ctx, events), events
        if isinstance(move, PayRation):
            state = self._pay_ration(state, seat, move, data, events)
            if phase is Phase.RECOVER:
                return self._after_action(state, ctx, events, 0), events
            return self._rations_at(state, state.step + 1, ctx, events), events
        if isinstance(move, PayLevy):
            row = state.visthus[seat]
            state = state._replace(
                visthus=_set(state.visthus, seat, _set(row, move.resource, row[move.resource] - 1)),
                left=state.left - 1,
            )
            events.append(
                Event(
                    "LEVY_PAID",
                    f"{_who(seat)} returns 1 {data.resource_names[move.resource]} to the supply.",
                    seat,
                    EventDetail(1, (move.resource,)),
                )
            )
            return self._levy_at(state, state.step, ctx, events), events
        raise AssertionError(f"unknown move {move!r}")

    # -- chance -----------------------------------------------------------------------

    def _draw(self, state: State, move: Draw | DrawCard, ctx: _Ctx, events: list[Event]) -> State:
        phase = state.phase
        data = ctx.data
        rng = state.rng
        if isinstance(move, DrawCard):
            seat = state.actor
            deck = state.decks[seat]
            i = move.index
            if i is None:
                i, rng = rng.below(len(deck))
            card = deck[i]
            decks = _set(state.decks, seat, deck[:i] + deck[i + 1 :])
            state = state._replace(decks=decks, rng=rng)
            if phase is Phase.SETUP_DEAL:
                hand = tuple(sorted((*state.hands[seat], card)))
                events.append(
                    Event(
                        "CARD_DEALT",
                        f"{_who(seat)} is dealt a Runestone Card.",
                        seat,
                        EventDetail(len(hand), (), (seat,), (card,), True, False, (seat,)),
                    )
                )
                step = state.step + 1
                state = state._replace(hands=_set(state.hands, seat, hand), step=step)
                state, _ = self._mark(state, seat, ctx, events, ALL_KINDS)
                if step < data.dealt * state.players:
                    return state._replace(actor=step // data.dealt)
                return state._replace(phase=Phase.SETUP_START, actor=-1, step=0)
            drawn = (*state.drawn, card)
            events.append(
                Event(
                    "CARD_DRAWN",
                    f"{_who(seat)} draws a Runestone Card at Tinget.",
                    seat,
                    EventDetail(len(drawn), (), (seat,), (card,), True, False, (seat,)),
                )
            )
            state = state._replace(drawn=drawn)
            if len(drawn) >= 2:
                return state._replace(phase=Phase.TINGET_KEEP)
            if decks[seat]:
                return state
            return self._keep(state._replace(phase=Phase.TINGET_KEEP), 0, ctx, events)
        value = move.outcome
        if phase is Phase.ROLL:
            if value is None:
                value, rng = rng.below(DIE_FACES)
                value += 1
            colour = "yellow" if state.turn == 1 else "grey"
            events.append(
                Event(
                    "DIE_ROLLED",
                    f"{_who(state.starter)} rolls the {colour} die: {value} "
                    f"({data.resource_names[data.die_faces[value - 1]]}).",
                    state.starter,
                    EventDetail(value, (data.die_faces[value - 1],)),
                )
            )
            state = state._replace(rng=rng, die=value, yellow=value if state.turn == 1 else state.yellow)
            return self._collect_at(state, 0, ctx, events)
        if phase is Phase.SETUP_START:
            if value is None:
                value, rng = rng.below(state.players)
            events.append(
                Event("STARTING_PLAYER", f"The dice make {_who(value)} the Starting Player.", value)
            )
            state = state._replace(rng=rng, starter=value, phase=Phase.CALENDAR, actor=-1)
            for pos in range(state.players):  # only a data set of very easy cards ends the game here
                seat = (value + pos) % state.players
                if len(state.completed[seat]) >= data.finish_count:
                    return self._finish(state, seat, ctx, events)
            return state
        # CALENDAR
        left = state.calendar
        if not left:
            left = tuple(range(len(data.card_ids)))
            events.append(
                Event(
                    "CALENDAR_RESHUFFLED", "Every Calendar Card was revealed: they are shuffled again.", None
                )
            )
        if value is None:
            i, rng = rng.below(len(left))
            value = left[i]
        return self._reveal(state._replace(rng=rng), value, left, ctx, events)

    # -- the calendar -------------------------------------------------------------------

    def _reveal(self, state: State, c: int, left: tuple[int, ...], ctx: _Ctx, events: list[Event]) -> State:
        data = ctx.data
        card = data.cards[c]
        round_start = state.turn == 1
        when = "the start of the Calendar Round" if round_start else "halfway through the Calendar Round"
        events.append(
            Event(
                "CALENDAR_CARD",
                f"{data.card_names[c]} is revealed at {when}.",
                None,
                EventDetail(c),
            )
        )
        state = state._replace(
            calendar=tuple(x for x in left if x != c), card=c, round_cards=(*state.round_cards, c)
        )
        if round_start or card.stock is not None:
            raw, crafted = card.stock if card.stock is not None else (data.market_reset, data.market_reset)
            state = self._restock(state, raw, crafted, data, events)
        if card.gift:
            state = self._gift(state, card.gift, ctx, events)
            if state.phase is Phase.OVER:
                return state
        if card.levy is not None:
            return self._levy_at(state._replace(left=card.levy[1]), 0, ctx, events)
        return self._begin_turn(state, events)

    def _restock(self, state: State, raw: int, crafted: int, data: Data, events: list[Event]) -> State:
        held = [sum(col) for col in zip(*state.visthus, strict=True)]
        market = tuple(
            max(0, min(raw if data.is_raw[r] else crafted, data.market_slots[r], data.supply[r] - held[r]))
            for r in range(data.resources)
        )
        events.append(
            Event(
                "MARKET_RESET",
                f"The Market is reset: {raw} in every Raw row, {crafted} in every Crafted row.",
                None,
                EventDetail(0, _multiset(market)),
            )
        )
        return state._replace(market=market)

    def _gift(self, state: State, gift: Price, ctx: _Ctx, events: list[Event]) -> State:
        data = ctx.data
        n = state.players
        for pos in range(n):
            seat = (state.starter + pos) % n
            got: list[int] = []
            for r, amount in gift:
                k = min(amount, free_slots(state, seat, data), _supply_of(state, data, r))
                if k > 0:
                    row = state.visthus[seat]
                    state = state._replace(visthus=_set(state.visthus, seat, _set(row, r, row[r] + k)))
                    got.extend([r] * k)
            words = ", ".join(data.resource_names[r] for r in got) or "nothing (no empty slot)"
            events.append(
                Event("GIFT_RECEIVED", f"{_who(seat)} receives {words}.", seat, EventDetail(0, tuple(got)))
            )
        for pos in range(n):
            state = self._check_runestones(state, (state.starter + pos) % n, ctx, events, STORE_KIND)
            if state.phase is Phase.OVER:
                return state
        return state

    def _levy_at(self, state: State, pos: int, ctx: _Ctx, events: list[Event]) -> State:
        data = ctx.data
        n = state.players
        card = data.cards[state.card]
        amount = card.levy[1] if card.levy is not None else 0
        left = state.left
        while pos < n:
            seat = (state.starter + pos) % n
            while left > 0:
                kinds = self._levy_kinds(state, data, seat)
                if not kinds:
                    events.append(Event("LEVY_NOTHING", f"{_who(seat)} has nothing the levy takes.", seat))
                    break
                if len(kinds) > 1:
                    return state._replace(phase=Phase.LEVY, actor=seat, step=pos, left=left)
                r = kinds[0]
                row = state.visthus[seat]
                state = state._replace(visthus=_set(state.visthus, seat, _set(row, r, row[r] - 1)))
                events.append(
                    Event(
                        "LEVY_PAID",
                        f"{_who(seat)} returns 1 {data.resource_names[r]} to the supply.",
                        seat,
                        EventDetail(1, (r,)),
                    )
                )
                left -= 1
            pos += 1
            left = amount
        return self._begin_turn(state._replace(left=0), events)

    # -- the turn ---------------------------------------------------------------------

    def _begin_turn(self, state: State, events: list[Event]) -> State:
        starving = state.starving
        if RECOVERED in starving:
            starving = tuple(FED if s == RECOVERED else s for s in starving)
        return state._replace(
            phase=Phase.ROLL,
            actor=state.starter,
            step=0,
            die=0,
            yellow=0 if state.turn == 1 else state.yellow,
            actions_left=0,
            starving=starving,
            left=0,
        )

    def _due(self, state: State, seat: int, data: Data) -> list[int]:
        """What the roll gives ``seat``: the die face's Raw Resource and every plot whose dice token
        matches, with the Calendar Card's bonus and blocks; a starving player collects only food."""
        die = state.die
        due = [0] * data.resources
        if not state.options.tokens_only:
            due[data.die_faces[die - 1]] += 1
        plots = state.plots[seat]
        size = data.slots_per_plot
        for p, r in enumerate(data.plot_resources):
            base = p * size
            for token in plots[base : base + size]:
                if token == die:
                    due[r] += 1
        if state.card >= 0:
            card = data.cards[state.card]
            for r, (bonus, blocked) in enumerate(zip(card.collect_bonus, card.collect_blocked, strict=True)):
                due[r] = 0 if blocked else due[r] + bonus
        if state.starving[seat] == STARVING:
            food = data.food
            due = [k if r in food else 0 for r, k in enumerate(due)]
        return due

    def _collect_at(self, state: State, pos: int, ctx: _Ctx, events: list[Event]) -> State:
        data = ctx.data
        n = state.players
        mjod = data.mjodhallen
        mjod_rolled = mjod >= 0 and state.owners[mjod] >= 0 and state.mjod_token == state.die
        owner = state.owners[mjod] if mjod_rolled else -1
        while pos < n:
            seat = (state.starter + pos) % n
            due = self._due(state, seat, data)
            supply = supplies(state, data)
            due = [min(k, s) for k, s in zip(due, supply, strict=True)]
            total = sum(due)
            free = free_slots(state, seat, data)
            if total and free:
                kinds = sum(1 for k in due if k)
                if (seat == owner and total >= free) or (total > free and kinds > 1):
                    return state._replace(phase=Phase.COLLECT, actor=seat, step=pos, due=tuple(due))
                if total > free:
                    due = [min(k, free) for k in due]
                state = self._gain(state, seat, due, events)
            elif total:
                events.append(
                    Event(
                        "VISTHUS_FULL",
                        f"{_who(seat)} has no empty Visthus slot and collects nothing.",
                        seat,
                    )
                )
            state = self._check_runestones(state, seat, ctx, events, STORE_KIND)
            if state.phase is Phase.OVER:
                return state
            pos += 1
        return self._tribute_step(state._replace(due=()), ctx, events)

    def _gain(self, state: State, seat: int, due: Sequence[int], events: list[Event]) -> State:
        row = tuple(a + b for a, b in zip(state.visthus[seat], due, strict=True))
        got = _multiset(due)
        data = _ctx(state.options).data
        words = ", ".join(data.resource_names[r] for r in got)
        events.append(Event("COLLECTED", f"{_who(seat)} collects {words}.", seat, EventDetail(0, got)))
        return state._replace(visthus=_set(state.visthus, seat, row))

    def _collect_choice(
        self, state: State, move: Collect | StopCollecting, ctx: _Ctx, events: list[Event]
    ) -> State:
        data = ctx.data
        seat = state.actor
        if isinstance(move, StopCollecting):
            events.append(
                Event("COLLECTION_STOPPED", f"{_who(seat)} leaves the rest of the collection.", seat)
            )
            state = self._check_runestones(state, seat, ctx, events, STORE_KIND)
            if state.phase is Phase.OVER:
                return state
            return self._collect_at(state._replace(due=()), state.step + 1, ctx, events)
        r = move.resource
        one = [0] * data.resources
        one[r] = 1
        state = self._check_runestones(self._gain(state, seat, one, events), seat, ctx, events, STORE_KIND)
        if state.phase is Phase.OVER:
            return state
        due = list(state.due)
        due[r] -= 1
        total = sum(due)
        free = free_slots(state, seat, data)
        if total and free:
            kinds = sum(1 for k in due if k)
            if (self._may_stop(state, data) and total >= free) or (total > free and kinds > 1):
                return state._replace(due=tuple(due))
            state = self._gain(state, seat, [min(k, free) for k in due], events)
        state = self._check_runestones(state, seat, ctx, events, STORE_KIND)
        if state.phase is Phase.OVER:
            return state
        return self._collect_at(state._replace(due=()), state.step + 1, ctx, events)

    def _tribute_step(self, state: State, ctx: _Ctx, events: list[Event]) -> State:
        """The Mjödhallen after the collection: the roller pays its owner, or the owner takes."""
        data = ctx.data
        m = data.mjodhallen
        if m < 0 or state.owners[m] < 0 or state.mjod_token != state.die:
            return self._actions_at(state, 0, ctx, events)
        owner, roller = state.owners[m], state.starter
        if free_slots(state, owner, data) <= 0:
            events.append(
                Event(
                    "NO_TRIBUTE",
                    f"The Mjödhallen's number was rolled, but {_who(owner)} has no empty Visthus slot.",
                    owner,
                )
            )
            return self._actions_at(state, 0, ctx, events)
        if roller != owner:
            kinds = [r for r in ctx.raw if state.visthus[roller][r]]
            if not kinds:
                events.append(
                    Event(
                        "NO_TRIBUTE",
                        f"The Mjödhallen's number was rolled, but {_who(roller)} has no Raw Resource: "
                        f"{_who(owner)} receives nothing.",
                        owner,
                    )
                )
                return self._actions_at(state, 0, ctx, events)
            if len(kinds) == 1:
                return self._tribute(state, roller, kinds[0], ctx, events)
            return state._replace(phase=Phase.TRIBUTE_PAY, actor=roller, step=0)
        targets = [(s, r) for s in range(state.players) if s != owner for r in ctx.raw if state.visthus[s][r]]
        if not targets:
            events.append(
                Event(
                    "NO_TRIBUTE",
                    f"{_who(owner)} rolled the Mjödhallen's number, but no player has a Raw Resource.",
                    owner,
                )
            )
            return self._actions_at(state, 0, ctx, events)
        if len(targets) == 1:
            return self._tribute(state, targets[0][0], targets[0][1], ctx, events)
        return state._replace(phase=Phase.TRIBUTE_TAKE, actor=owner, step=0)

    def _tribute(self, state: State, payer: int, r: int, ctx: _Ctx, events: list[Event]) -> State:
        data = ctx.data
        owner = state.owners[data.mjodhallen]
        visthus = state.visthus
        prow, orow = visthus[payer], visthus[owner]
        visthus = _set(visthus, payer, _set(prow, r, prow[r] - 1))
        visthus = _set(visthus, owner, _set(orow, r, orow[r] + 1))
        verb = "pays" if payer == state.starter and payer != owner else "gives up"
        events.append(
            Event(
                "TRIBUTE",
                f"{_who(payer)} {verb} 1 {data.resource_names[r]} to {_who(owner)}, the Mjödhallen's owner.",
                owner,
                EventDetail(1, (r,), (payer, owner)),
            )
        )
        state = self._check_runestones(state._replace(visthus=visthus), owner, ctx, events, STORE_KIND)
        if state.phase is Phase.OVER:
            return state
        return self._actions_at(state, 0, ctx, events)

    def _actions_at(self, state: State, pos: int, ctx: _Ctx, events: list[Event]) -> State:
        n = state.players
        if pos >= n:
            return self._end_turn(state, ctx, events)
        seat = (state.starter + pos) % n
        state = state._replace(
            phase=Phase.ACTIONS, actor=seat, step=pos, actions_left=state.skepp[seat], due=()
        )
        return self._recovery(state, ctx, events)

    def _recovery(self, state: State, ctx: _Ctx, events: list[Event]) -> State:
        """A starving player pays the Ration as soon as they can (it is not an action)."""
        seat = state.actor
        if state.starving[seat] != STARVING:
            return state
        data = ctx.data
        options = ration_options(state.visthus[seat], data, data.food_count, data.bread_count)
        if not options:
            return state
        if len(options) == 1:
            return self._pay_ration(state, seat, options[0], data, events)
        return state._replace(phase=Phase.RECOVER)

    def _pay_ration(self, state: State, seat: int, move: PayRation, data: Data, events: list[Event]) -> State:
        row = list(state.visthus[seat])
        paid: list[int] = []
        if move.bread:
            bread = data.bread_count
            if state.phase is Phase.RATIONS:
                bread = ration_cost(state, data)[1]
            row[data.bread] -= bread
            paid = [data.bread] * bread
        else:
            for f, k in zip(data.food, move.food, strict=True):
                row[f] -= k
                paid.extend([f] * k)
        words = ", ".join(data.resource_names[r] for r in sorted(paid))
        was = state.starving[seat]
        recovering = state.phase is not Phase.RATIONS
        status = RECOVERED if recovering else FED
        if recovering:
            text = f"{_who(seat)} pays the Ration ({words}) and recovers from the next Turn."
            kind = "RECOVERED"
        else:
            text = f"{_who(seat)} pays the Ration ({words})."
            kind = "RATION_PAID"
        events.append(Event(kind, text, seat, EventDetail(was, tuple(sorted(paid)))))
        return state._replace(
            visthus=_set(state.visthus, seat, tuple(row)),
            starving=_set(state.starving, seat, status),
            phase=Phase.ACTIONS if recovering else state.phase,
        )

    def _after_action(self, state: State, ctx: _Ctx, events: list[Event], kinds: int = ALL_KINDS) -> State:
        """After a move of the acting player: completed Runestones (of the condition kinds in ``kinds``,
        those the move can affect), then recovery."""
        state = self._check_runestones(state, state.actor, ctx, events, kinds)
        if state.phase is Phase.OVER:
            return state
        return self._recovery(state._replace(phase=Phase.ACTIONS), ctx, events)

    def _act(self, state: State, move: Move, ctx: _Ctx, events: list[Event]) -> State:
        data = ctx.data
        seat = state.actor
        row = state.visthus[seat]
        names = data.resource_names
        if isinstance(move, EndActions):
            events.append(Event("ACTIONS_ENDED", f"{_who(seat)} ends their actions.", seat))
            return self._actions_at(state, state.step + 1, ctx, events)
        if isinstance(move, Discard):
            r = move.resource
            events.append(
                Event("DISCARDED", f"{_who(seat)} discards 1 {names[r]}.", seat, EventDetail(1, (r,)))
            )
            return state._replace(visthus=_set(state.visthus, seat, _set(row, r, row[r] - 1)))
        left = state.actions_left - 1
        if isinstance(move, MarketTrade):
            g, t = move.give, move.take
            k = data.market_give[0 if data.is_raw[g] else 1]
            market = list(state.market)
            market[g] += k
            market[t] -= 1
            new = list(row)
            new[g] -= k
            new[t] += 1
            events.append(
                Event(
                    "MARKET_TRADE",
                    f"{_who(seat)} trades {k} {names[g]} for 1 {names[t]} at the Market.",
                    seat,
                    EventDetail(k, (g, t)),
                )
            )
            state = state._replace(
                visthus=_set(state.visthus, seat, tuple(new)), market=tuple(market), actions_left=left
            )
            return self._after_action(state, ctx, events, STORE_KIND)
        if isinstance(move, OutlawTrade):
            g, t = move.give, move.take
            k = data.outlaw_price[0 if data.is_raw[t] else 1] * data.outlaw_unit[0 if data.is_raw[g] else 1]
            new = list(row)
            new[g] -= k
            new[t] += 1
            events.append(
                Event(
                    "OUTLAW_TRADE",
                    f"{_who(seat)} trades {k} {names[g]} for 1 {names[t]} with the Outlaw Trader.",
                    seat,
                    EventDetail(k, (g, t)),
                )
            )
            state = state._replace(visthus=_set(state.visthus, seat, tuple(new)), actions_left=left)
            return self._after_action(state, ctx, events, STORE_KIND)
        if isinstance(move, Craft):
            b = move.building
            owner = state.owners[b]
            new = list(_pay(row, data.craft_input[b]))
            out = data.craft_output[b]
            new[out] += 1
            events.append(
                Event(
                    "CRAFTED",
                    f"{_who(seat)} crafts 1 {names[out]} in the {data.building_names[b]}.",
                    seat,
                    EventDetail(b, (out,)),
                )
            )
            state = state._replace(visthus=_set(state.visthus, seat, tuple(new)), actions_left=left)
            state = self._owner_paid(state, seat, b, data, events)
            if owner == seat:
                return self._after_action(state, ctx, events, STORE_KIND)
            return self._paid(state, owner, ctx, events)
        if isinstance(move, BuySkepp):
            cost = data.prices[state.card + 1].skepp
            skepp = state.skepp[seat] + 1
            events.append(
                Event(
                    "SKEPP_BOUGHT",
                    f"{_who(seat)} purchases a Skepp ({skepp} now) and may perform a new action.",
                    seat,
                    EventDetail(skepp),
                )
            )
            state = state._replace(
                visthus=_set(state.visthus, seat, _pay(row, cost)),
                skepp=_set(state.skepp, seat, skepp),
                actions_left=left + 1,
            )
            return self._after_action(state, ctx, events, 1 << SKEPP)
        if isinstance(move, Upgrade):
            b = data.good_building[move.good]
            owner = state.owners[b]
            cost = data.prices[state.card + 1].use[b]
            events.append(
                Event(
                    "GOOD_BOUGHT",
                    f"{_who(seat)} purchases a {data.good_names[move.good]} in the {data.building_names[b]} "
                    f"for plot {move.plot + 1} ({names[data.plot_resources[move.plot]]}).",
                    seat,
                    EventDetail(move.good, (data.plot_resources[move.plot],)),
                )
            )
            state = state._replace(
                visthus=_set(state.visthus, seat, _pay(row, cost)),
                actions_left=left,
                phase=Phase.UPGRADE_TOKEN,
                pending=move.plot * ctx.slots + 1 + move.good,
            )
            if owner >= 0 and owner != seat:
                state = self._owner_paid(state, seat, b, data, events)
                return self._paid(state, owner, ctx, events, then_actions=False)
            return state
        if isinstance(move, Build):
            b = move.building
            cost = data.prices[state.card + 1].build[b]
            events.append(
                Event(
                    "BUILT",
                    f"{_who(seat)} builds the {data.building_names[b]} and places their Player icon on it.",
                    seat,
                    EventDetail(b),
                )
            )
            owners = _set(state.owners, b, seat)
            state = state._replace(
                visthus=_set(state.visthus, seat, _pay(row, cost)), owners=owners, actions_left=left
            )
            self._blocked(state, seat, b, data, events)
            kinds = 1 << BUILD | 1 << BUILDINGS
            if b == data.mjodhallen:
                state = self._check_runestones(state, seat, ctx, events, kinds)
                if state.phase is Phase.OVER:
                    return state
                return state._replace(phase=Phase.MJOD_TOKEN)
            return self._after_action(state, ctx, events, kinds)
        if isinstance(move, BuildExtension):
            cost = data.prices[state.card + 1].extension
            events.append(
                Event(
                    "EXTENSION_BUILT",
                    f"{_who(seat)} builds the Visthus extension (+{data.extension_slots} slots).",
                    seat,
                )
            )
            state = state._replace(
                visthus=_set(state.visthus, seat, _pay(row, cost)),
                extension=(*state.extension[:seat], True, *state.extension[seat + 1 :]),
                actions_left=left,
            )
            return self._after_action(state, ctx, events, 1 << EXTENSION)
        if isinstance(move, AcquireRunestone):
            cost = data.prices[state.card + 1].use[data.tinget]
            events.append(
                Event(
                    "RUNESTONE_PURCHASED",
                    f"{_who(seat)} purchases Runestone Cards at Tinget: draws two, keeps one.",
                    seat,
                )
            )
            return state._replace(
                visthus=_set(state.visthus, seat, _pay(row, cost)),
                actions_left=left,
                phase=Phase.TINGET_DRAW,
                drawn=(),
            )
        raise AssertionError(f"unknown move {move!r}")

    def _owner_paid(self, state: State, seat: int, b: int, data: Data, events: list[Event]) -> State:
        """The user pays the owner's payment: into the owner's empty slots, the rest to the supply."""
        owner = state.owners[b]
        payment = data.payment[b]
        if owner < 0 or owner == seat or not payment:
            return state
        visthus = state.visthus
        visthus = _set(visthus, seat, _pay(visthus[seat], payment))
        orow = list(visthus[owner])
        room = capacity(state, owner, data) - sum(orow)
        received: list[int] = []
        for r, k in payment:
            take = min(k, room)
            orow[r] += take
            room -= take
            received.extend([r] * take)
        visthus = _set(visthus, owner, tuple(orow))
        everything = [r for r, k in payment for _ in range(k)]
        words = ", ".join(data.resource_names[r] for r in everything)
        lost = len(everything) - len(received)
        tail = f" ({lost} to the supply: no empty Visthus slot)" if lost else ""
        events.append(
            Event(
                "OWNER_PAID",
                f"{_who(seat)} pays {words} to {_who(owner)} for using the {data.building_names[b]}{tail}.",
                owner,
                EventDetail(b, tuple(received), (seat, owner)),
            )
        )
        return state._replace(visthus=visthus)

    def _paid(
        self, state: State, owner: int, ctx: _Ctx, events: list[Event], then_actions: bool = True
    ) -> State:
        """After a payment to ``owner``: their Runestones may be completed; then the user goes on."""
        state = self._check_runestones(state, owner, ctx, events, STORE_KIND)
        if state.phase is Phase.OVER:
            return state
        if then_actions:
            return self._after_action(state, ctx, events, STORE_KIND)
        return state

    def _blocked(self, state: State, builder: int, b: int, data: Data, events: list[Event]) -> None:
        """Tell every other holder of a Runestone Card that building ``b`` just made impossible
        (privately: only the holder sees the event)."""
        before = state._replace(owners=_set(state.owners, b, -1))
        for s in range(state.players):
            if s == builder or state.hidden >> s & 1:
                continue
            done = state.completed[s]
            for c in state.hands[s]:
                if c not in done and possible(before, s, c, data) and not possible(state, s, c, data):
                    events.append(
                        Event(
                            "RUNESTONE_BLOCKED",
                            f"{_who(s)} can no longer complete one of their Runestone Cards.",
                            s,
                            EventDetail(0, (), (s,), (c,), True, True, (s,)),
                        )
                    )

    def _place_token(self, state: State, value: int, ctx: _Ctx, events: list[Event]) -> State:
        data = ctx.data
        seat = state.actor
        if state.phase is Phase.MJOD_TOKEN:
            events.append(
                Event(
                    "MJODHALLEN_TOKEN",
                    f"{_who(seat)} places a permanent {value} in the Mjödhallen's white box.",
                    seat,
                    EventDetail(value),
                )
            )
            state = state._replace(mjod_token=value, phase=Phase.ACTIONS)
            return self._after_action(state, ctx, events, 0)
        slot = state.pending
        plot, good = divmod(slot, ctx.slots)
        events.append(
            Event(
                "PLOT_UPGRADED",
                f"{_who(seat)} places a {value} dice token with the {data.good_names[good - 1]} on plot "
                f"{plot + 1} ({data.resource_names[data.plot_resources[plot]]}).",
                seat,
                EventDetail(value, (data.plot_resources[plot],)),
            )
        )
        plots = _set(state.plots, seat, _set(state.plots[seat], slot, value))
        state = state._replace(plots=plots, pending=-1, phase=Phase.ACTIONS)
        return self._after_action(state, ctx, events, 1 << UPGRADES | 1 << FULL_PLOT)

    def _keep(self, state: State, index: int, ctx: _Ctx, events: list[Event]) -> State:
        seat = state.actor
        drawn = state.drawn
        kept = drawn[index]
        others = drawn[:index] + drawn[index + 1 :]
        hand = tuple(sorted((*state.hands[seat], kept)))
        text = f"{_who(seat)} keeps a Runestone Card"
        text += " and discards the other." if others else " (the deck had only one)."
        events.append(
            Event(
                "CARD_KEPT",
                text,
                seat,
                EventDetail(index, (), (seat,), (kept, *others), True, False, (seat,)),
            )
        )
        state = state._replace(hands=_set(state.hands, seat, hand), drawn=(), phase=Phase.ACTIONS)
        return self._after_action(state, ctx, events)

    def _end_turn(self, state: State, ctx: _Ctx, events: list[Event]) -> State:
        data = ctx.data
        n = state.players
        if state.turn >= data.turns_per_round:
            if state.round >= state.options.calendar_rounds:
                events.append(
                    Event(
                        "LAST_ROUND_ENDED",
                        f"Calendar Round {state.round} ends: the game ends (no Rations are required).",
                        None,
                    )
                )
                return self._finish(state, -1, ctx, events)
            return self._rations_at(state, 0, ctx, events)
        turn = state.turn + 1
        state = state._replace(turn=turn, starter=(state.starter + 1) % n, actions_left=0)
        if state.turn - 1 == data.halfway_after:
            return state._replace(phase=Phase.CALENDAR, actor=-1, step=0)
        return self._begin_turn(state, events)

    def _rations_at(self, state: State, pos: int, ctx: _Ctx, events: list[Event]) -> State:
        data = ctx.data
        n = state.players
        food, bread = ration_cost(state, data)
        while pos < n:
            seat = (state.starter + pos) % n
            options = ration_options(state.visthus[seat], data, food, bread)
            if not options:
                events.append(
                    Event(
                        "STARVING",
                        f"{_who(seat)} cannot pay the Ration and starves next Calendar Round.",
                        seat,
                    )
                )
                state = state._replace(starving=_set(state.starving, seat, STARVING))
            elif len(options) == 1:
                state = state._replace(phase=Phase.RATIONS)
                state = self._pay_ration(state, seat, options[0], data, events)
            else:
                return state._replace(phase=Phase.RATIONS, actor=seat, step=pos, actions_left=0)
            pos += 1
        events.append(Event("ROUND_ENDED", f"Calendar Round {state.round} ends.", None))
        return state._replace(
            phase=Phase.CALENDAR,
            actor=-1,
            step=0,
            round=state.round + 1,
            turn=1,
            starter=(state.starter + 1) % n,
            round_cards=(),
            actions_left=0,
        )

    # -- runestones and the end ---------------------------------------------------------

    def _check_runestones(
        self, state: State, seat: int, ctx: _Ctx, events: list[Event], kinds: int = ALL_KINDS
    ) -> State:
        """Mark the seat's newly fulfilled Runestone Cards completed; 5 completed end the game. Only
        cards whose condition kind is in the bit set ``kinds`` (what the last change can affect) are
        looked at."""
        state, completed = self._mark(state, seat, ctx, events, kinds)
        if len(completed) >= ctx.data.finish_count:
            return self._finish(state, seat, ctx, events)
        return state

    def _mark(
        self, state: State, seat: int, ctx: _Ctx, events: list[Event], kinds: int
    ) -> tuple[State, tuple[int, ...]]:
        """The state with the seat's newly fulfilled cards (of the kinds in ``kinds``) completed."""
        done = state.completed[seat]
        if state.hidden >> seat & 1:
            return state, done
        hand = state.hands[seat]
        if len(done) == len(hand):
            return state, done
        data = ctx.data
        bits = ctx.kind_bit
        new = [c for c in hand if bits[c] & kinds and c not in done and fulfilled(state, seat, c, data)]
        if not new:
            return state, done
        completed = tuple(sorted((*done, *new)))
        for c in new:
            events.append(
                Event(
                    "RUNESTONE_COMPLETED",
                    f"{_who(seat)} completes a Runestone Card.",
                    seat,
                    EventDetail(len(completed), (), (seat,), (c,), True, True, (seat,)),
                )
            )
        return state._replace(completed=_set(state.completed, seat, completed)), completed

    def _finish(self, state: State, finisher: int, ctx: _Ctx, events: list[Event]) -> State:
        data = ctx.data
        n = state.players
        first = finisher if finisher >= 0 else max(state.starter, 0)
        for pos in range(n):  # cards fulfilled at the same moment as the finisher's count too
            state, _ = self._mark(state, (first + pos) % n, ctx, events, ALL_KINDS)
        scores = [0] * n
        if finisher >= 0:
            events.append(
                Event(
                    "GAME_ENDS",
                    f"{_who(finisher)} has completed {data.finish_count} Runestones: the game ends.",
                    finisher,
                )
            )
        for pos in range(n):
            seat = (first + pos) % n
            best = sorted((data.runestone_points[c] for c in state.completed[seat] if c >= 0), reverse=True)
            scores[seat] = sum(best[: data.best_cards])
            events.append(
                Event(
                    "RUNESTONES_REVEALED",
                    f"{_who(seat)} reveals their Runestone Cards: {scores[seat]} points.",
                    seat,
                    EventDetail(scores[seat], (), (seat,), state.hands[seat] + state.completed[seat]),
                )
            )
        if finisher >= 0:
            bonus = data.finisher_bonus * (n - 1)
            scores[finisher] += bonus
            events.append(
                Event(
                    "FINISHER_BONUS",
                    f"{_who(finisher)} gains {bonus} points, {data.finisher_bonus} for each opponent.",
                    finisher,
                    EventDetail(bonus),
                )
            )
        top = max(scores)
        tied = tuple(s for s in range(n) if scores[s] == top)
        winners = (finisher,) if finisher in tied else tied
        words = ", ".join(_who(s) for s in winners)
        if len(tied) > 1 and finisher in tied:
            text = f"{words} wins: the tie is broken for the Player who triggered the end."
        elif len(winners) > 1:
            text = f"{words} share the victory with {top} points."
        else:
            text = f"{words} wins with {top} points."
        events.append(Event("GAME_WON", text, winners[0], EventDetail(top, (), winners)))
        return state._replace(
            phase=Phase.OVER,
            actor=-1,
            step=0,
            finisher=finisher,
            scores=tuple(scores),
            winners=winners,
            due=(),
            drawn=(),
            pending=-1,
            left=0,
            actions_left=0,
        )

    # -- invariants ------------------------------------------------------------------

    def check_state(self, state: State) -> list[FieldViolation]:
        problem = options_problem(state.options)
        if problem is not None:
            return [FieldViolation("options", problem)]
        data = _ctx(state.options).data
        n = state.players
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            return [FieldViolation("players", f"must be {MIN_PLAYERS} to {MAX_PLAYERS}")]
        problems: list[FieldViolation] = []
        add = problems.append
        n_res = data.resources
        n_b = len(data.building_ids)
        n_cards = len(data.runestone_ids)
        plot_len = len(data.plot_resources) * data.slots_per_plot
        per_seat = (
            state.visthus,
            state.extension,
            state.skepp,
            state.plots,
            state.starving,
            state.hands,
            state.completed,
            state.decks,
        )
        if any(len(t) != n for t in per_seat):
            return [FieldViolation("visthus", f"every per-player field must describe exactly {n} players")]
        if any(len(row) != n_res for row in state.visthus) or len(state.market) != n_res:
            return [FieldViolation("visthus", f"every Visthus and the Market count {n_res} resources")]
        if any(len(p) != plot_len for p in state.plots):
            return [FieldViolation("plots", f"every Byn has {plot_len} plot slots")]
        if len(state.owners) != n_b:
            return [FieldViolation("owners", f"there are {n_b} buildings")]
        if state.phase is Phase.COLLECT and len(state.due) != n_res:
            return [FieldViolation("due", f"the collection due counts {n_res} resources")]
        if state.phase is not Phase.COLLECT and state.due:
            return [FieldViolation("due", "is set only while a player chooses what to collect")]
        if not 0 <= state.hidden < 1 << n:
            return [FieldViolation("hidden", "is a bit set of seats")]
        ply_problem = check_ply(state.ply)
        if ply_problem is not None:
            add(ply_problem)
        if not -1 <= state.actor < n or not -1 <= state.starter < n:
            add(FieldViolation("actor", "actor and starter are seats or -1"))
        if not 1 <= state.round <= state.options.calendar_rounds:
            add(FieldViolation("round", f"runs from 1 to {state.options.calendar_rounds}"))
        if not 1 <= state.turn <= data.turns_per_round:
            add(FieldViolation("turn", f"runs from 1 to {data.turns_per_round}"))
        if not (0 <= state.die <= DIE_FACES and 0 <= state.yellow <= DIE_FACES):
            add(FieldViolation("die", "dice show 1 to 6 (0 before the roll)"))
        if not 0 <= state.actions_left <= data.skepp_max:
            add(FieldViolation("actions_left", f"is 0 to {data.skepp_max}"))
        for s in range(n):
            row = state.visthus[s]
            if min(row) < 0:
                add(FieldViolation(f"visthus[{s}]", "counts cannot be negative"))
            elif sum(row) > capacity(state, s, data):
                add(FieldViolation(f"visthus[{s}]", "holds more than its slots"))
            if not data.skepp_start <= state.skepp[s] <= data.skepp_max:
                add(FieldViolation(f"skepp[{s}]", f"is {data.skepp_start} to {data.skepp_max}"))
            if state.starving[s] not in (FED, STARVING, RECOVERED):
                add(FieldViolation(f"starving[{s}]", "is 0 (fed), 1 (starving) or 2 (recovered this Turn)"))
            plots = state.plots[s]
            size = data.slots_per_plot
            for p, token in enumerate(data.plot_start_tokens):
                if plots[p * size] != token:
                    add(FieldViolation(f"plots[{s}]", f"plot {p + 1} keeps its starting dice token {token}"))
            if any(not 0 <= t <= DIE_FACES for t in plots):
                add(FieldViolation(f"plots[{s}]", "dice tokens show 1 to 6 (0 = empty slot)"))
        if any(not -1 <= o < n for o in state.owners):
            add(FieldViolation("owners", "hold a seat or -1"))
        elif any(o >= 0 and not data.ownable[b] for b, o in enumerate(state.owners)):
            add(FieldViolation("owners", "Trältorget and Tinget are not owned"))
        elif any(sum(1 for o in state.owners if o == s) > data.icon_tokens for s in range(n)):
            add(FieldViolation("owners", f"a player owns at most {data.icon_tokens} buildings"))
        m = data.mjodhallen
        mjod_owned = m >= 0 and 0 <= state.owners[m] < n
        if not 0 <= state.mjod_token <= DIE_FACES or (state.mjod_token and not mjod_owned):
            add(FieldViolation("mjod_token", "the Mjödhallen's owner places a token of 1 to 6"))
        elif mjod_owned and not state.mjod_token and state.phase is not Phase.MJOD_TOKEN:
            add(FieldViolation("mjod_token", "the Mjödhallen's owner has placed its token"))
        if any(not 0 <= k <= data.market_slots[r] for r, k in enumerate(state.market)):
            add(FieldViolation("market", "a Market row holds 0 up to its slots"))
        if not problems and any(s < 0 for s in supplies(state, data)):
            add(FieldViolation("visthus", "more tokens of a resource are in play than the game has"))
        n_cal = len(data.card_ids)
        if any(not 0 <= c < n_cal for c in state.calendar + state.round_cards) or list(
            state.calendar
        ) != sorted(set(state.calendar)):
            add(FieldViolation("calendar", "holds distinct Calendar Cards, sorted"))
        elif not -1 <= state.card < n_cal or (state.round_cards and state.card != state.round_cards[-1]):
            add(FieldViolation("card", "the card in effect is the last revealed"))
        elif len(state.round_cards) > 2 or (state.card >= 0 and state.card in state.calendar and n_cal > 1):
            add(FieldViolation("round_cards", "at most two cards a round, each revealed once per deck"))
        problems.extend(self._card_problems(state, data, n, n_cards))
        if state.phase is Phase.OVER:
            if len(state.scores) != n or not state.winners or any(not 0 <= w < n for w in state.winners):
                add(FieldViolation("winners", "a finished game has scores and winners"))
            if not -1 <= state.finisher < n:
                add(FieldViolation("finisher", "is a seat or -1"))
        elif state.scores or state.winners or state.finisher != -1:
            add(FieldViolation("scores", "scores, winners and finisher are set once the game is over"))
        if not problems:
            problems.extend(self._phase_problems(state, data))
        return problems

    def _card_problems(self, state: State, data: Data, n: int, n_cards: int) -> list[FieldViolation]:
        out: list[FieldViolation] = []
        add = out.append
        phase = state.phase
        drawer_phase = phase in (Phase.TINGET_DRAW, Phase.TINGET_KEEP)
        if state.drawn and not drawer_phase:
            add(FieldViolation("drawn", "cards wait to be kept only at Tinget"))
        for s in range(n):
            hand, done, deck = state.hands[s], state.completed[s], state.decks[s]
            drawn = state.drawn if drawer_phase and s == state.actor else ()
            if state.hidden >> s & 1:
                if any(c != HIDDEN for c in hand + deck + drawn) or done:
                    add(FieldViolation(f"hands[{s}]", "a hidden player's cards are all HIDDEN (-1)"))
            else:
                cards = hand + deck + drawn
                if any(not 0 <= c < n_cards for c in cards) or len(set(cards)) != len(cards):
                    add(
                        FieldViolation(
                            f"hands[{s}]", "hand, deck and drawn cards are distinct cards of the set"
                        )
                    )
                elif list(hand) != sorted(hand) or list(deck) != sorted(deck):
                    add(FieldViolation(f"hands[{s}]", "hands and decks are sorted"))
                elif not set(done) <= set(hand) or list(done) != sorted(set(done)):
                    add(FieldViolation(f"completed[{s}]", "completed cards are cards of the hand, sorted"))
                elif (
                    phase not in (Phase.OVER, Phase.SETUP_DEAL, Phase.SETUP_START)
                    and len(done) >= data.finish_count
                ):
                    add(
                        FieldViolation(
                            f"completed[{s}]", f"{data.finish_count} completed Runestones end the game"
                        )
                    )
                elif any(c not in done and fulfilled(state, s, c, data) for c in hand):
                    add(FieldViolation(f"completed[{s}]", "a card whose condition is fulfilled is completed"))
            dealing = phase is Phase.SETUP_DEAL
            if dealing:
                want = min(data.dealt, max(0, state.step - s * data.dealt))
                if len(hand) != want:
                    add(FieldViolation(f"hands[{s}]", f"holds {want} cards while {state.step} are dealt"))
            elif len(hand) < data.dealt:
                add(FieldViolation(f"hands[{s}]", f"holds at least the {data.dealt} cards dealt"))
            if len(hand) + len(deck) + len(drawn) > n_cards:
                add(FieldViolation(f"decks[{s}]", f"a player has {n_cards} Runestone Cards in all"))
        return out

    def _phase_problems(self, state: State, data: Data) -> list[FieldViolation]:
        """The invariants each phase needs, so that no decoded state can trip the engine."""
        out: list[FieldViolation] = []
        add = out.append
        n, phase, actor, step = state.players, state.phase, state.actor, state.step
        setup = phase in (Phase.SETUP_DEAL, Phase.SETUP_START)
        if setup and (state.starter != -1 or state.round != 1 or state.turn != 1 or state.card != -1):
            add(FieldViolation("phase", f"{phase.value}: setup comes before the first round"))
            return out
        if not setup and state.starter < 0:
            add(FieldViolation("starter", "the dice have chosen a Starting Player"))
            return out
        if phase is not Phase.UPGRADE_TOKEN and state.pending != -1:
            add(FieldViolation("pending", "names a plot slot only while its token is placed"))
        if phase is not Phase.LEVY and state.left != 0:
            add(FieldViolation("left", "counts a levy only while it is paid"))
        if phase in ORDER_PHASES and not 0 <= step < n:
            add(FieldViolation("step", "is a position in the clockwise order"))
            return out
        if phase not in ORDER_PHASES and phase is not Phase.SETUP_DEAL and step != 0:
            add(FieldViolation("step", f"is 0 in {phase.value}"))
            return out
        if phase not in ACTION_PHASES and state.actions_left != 0:
            add(FieldViolation("actions_left", "counts actions only during a player's actions"))
        in_turn = phase not in (Phase.SETUP_DEAL, Phase.SETUP_START, Phase.CALENDAR, Phase.LEVY, Phase.ROLL)
        if in_turn and phase is not Phase.OVER and not state.die:
            add(FieldViolation("die", "the die was rolled this Turn"))
        elif in_turn and phase is not Phase.OVER and state.turn == 1 and state.yellow != state.die:
            add(FieldViolation("yellow", "the first Turn of a round is rolled with the yellow die"))
        if state.card < 0 and not setup and phase is not Phase.CALENDAR:
            add(FieldViolation("card", "a Calendar Card is revealed at the start of the first round"))
        if not setup and phase is not Phase.CALENDAR and phase is not Phase.OVER:
            revealed = 1 if state.turn <= data.halfway_after else 2
            if len(state.round_cards) != revealed:
                add(
                    FieldViolation(
                        "round_cards", f"{revealed} Calendar Card(s) are revealed by Turn {state.turn}"
                    )
                )
        if state.turn > 1 and not state.yellow and phase is not Phase.OVER and not setup:
            add(FieldViolation("yellow", "the yellow die was rolled on the first Turn of the round"))
        if RECOVERED in state.starving and phase in _FRESH_TURN_PHASES:
            add(FieldViolation("starving", "a recovered player plays normally from the next Turn"))
        want_actor = (state.starter + step) % n if phase in ORDER_PHASES else -1
        why = ""
        seat = want_actor
        if phase is Phase.SETUP_DEAL:
            want_actor = step // data.dealt
            if not 0 <= step < data.dealt * n:
                why = f"{data.dealt} cards are dealt to each player"
            elif not state.decks[want_actor]:
                why = "the deck has a card to deal"
        elif phase is Phase.ROLL:
            want_actor = state.starter
            if state.die or (state.turn == 1 and state.yellow):
                why = "the die is not rolled yet"
        elif phase is Phase.CALENDAR:
            want_actor = -1
            revealed = {1: 0, data.halfway_after + 1: 1}.get(state.turn, -1)
            if len(state.round_cards) != revealed:
                why = "a card is revealed at the start of a round and after the halfway Turn"
        elif phase is Phase.LEVY:
            kinds = self._levy_kinds(state, data, seat)
            card = data.cards[state.card] if state.card >= 0 else None
            if card is None or card.levy is None or not 1 <= state.left <= card.levy[1] or len(kinds) < 2:
                why = "a levy is paid from two or more kinds of resource"
        elif phase is Phase.COLLECT:
            total = sum(state.due)
            free = free_slots(state, seat, data)
            n_kinds = sum(1 for k in state.due if k)
            if min(state.due) < 0 or any(k and not data.is_raw[r] for r, k in enumerate(state.due)):
                why = "only Raw Resources are due"
            elif not (
                total
                and free
                and ((self._may_stop(state, data) and total >= free) or (total > free and n_kinds > 1))
            ):
                why = "a choice is needed: more is due than the empty slots hold"
        elif phase is Phase.TRIBUTE_PAY or phase is Phase.TRIBUTE_TAKE:
            m = data.mjodhallen
            owner = state.owners[m] if m >= 0 else -1
            want_actor = state.starter if phase is Phase.TRIBUTE_PAY else owner
            if owner < 0 or state.mjod_token != state.die or free_slots(state, owner, data) <= 0:
                why = "the Mjödhallen's number was rolled and its owner has an empty slot"
            elif phase is Phase.TRIBUTE_PAY and (owner == state.starter or len(self.legal_moves(state)) < 2):
                why = "the roller chooses among their Raw Resources"
            elif phase is Phase.TRIBUTE_TAKE and (owner != state.starter or len(self.legal_moves(state)) < 2):
                why = "the owner, having rolled, chooses what to take"
        elif phase is Phase.UPGRADE_TOKEN:
            size = data.slots_per_plot
            if not 0 <= state.pending < len(state.plots[seat]) or state.pending % size == 0:
                why = "an upgraded slot waits for its token"
            elif state.plots[seat][state.pending]:
                why = "the upgraded slot is empty until its token is placed"
        elif phase is Phase.MJOD_TOKEN:
            m = data.mjodhallen
            if m < 0 or state.owners[m] != seat or state.mjod_token:
                why = "the Mjödhallen's new owner places its token"
        elif phase is Phase.TINGET_DRAW:
            if len(state.drawn) >= 2 or not state.decks[seat] or data.tinget < 0:
                why = "a card is left to draw at Tinget"
        elif phase is Phase.TINGET_KEEP:
            if len(state.drawn) != 2:
                why = "two cards drawn at Tinget wait for the choice"
        elif phase is Phase.RECOVER:
            options = ration_options(state.visthus[seat], data, data.food_count, data.bread_count)
            if state.starving[seat] != STARVING or len(options) < 2:
                why = "a starving player chooses how to pay the Ration"
        elif phase is Phase.RATIONS:
            if state.turn != data.turns_per_round or state.round >= state.options.calendar_rounds:
                why = "Rations are paid after the last Turn of a round (not the last round)"
            else:
                food, bread = ration_cost(state, data)
                if len(ration_options(state.visthus[seat], data, food, bread)) < 2:
                    why = "the player chooses how to pay the Ration"
        elif (
            phase is Phase.ACTIONS
            and state.starving[seat] == STARVING
            and ration_options(state.visthus[seat], data, data.food_count, data.bread_count)
        ):
            why = "a starving player who can pay the Ration pays it at once"
        if not why and phase in CARD_PHASES and 0 <= want_actor < n and not state.decks[want_actor]:
            why = "the deck has a card to draw"
        if why:
            add(FieldViolation("phase", f"{phase.value}: {why}"))
        if actor != want_actor:
            add(FieldViolation("actor", f"must be {want_actor} in {phase.value}"))
        return out

    # -- description -------------------------------------------------------------------

    def describe(self) -> Description:
        d = REFERENCE
        indices = {
            "resources": list(d.resource_ids),
            "buildings": list(d.building_ids),
            "plots": [d.resource_ids[r] for r in d.plot_resources],
            "upgrades": list(d.good_ids),
            "calendar_cards": list(d.card_ids),
            "runestone_cards": list(d.runestone_ids),
            "plot_slots": "BirkaState plots hold, per player, plot * slots_per_plot + slot: slot 0 is the "
            "starting dice token, slot 1 + g the slot upgraded with upgrade good g.",
            "slots_per_plot": d.slots_per_plot,
        }
        return Description(OPTIONS, {**d.data, "indices": indices}, ASSUMPTIONS)


def options_problem(options: Options) -> str | None:
    """What is wrong with the options, or None."""
    if options.calendar_rounds not in GAME_LENGTHS:
        return "calendar_rounds must be 5 or 10"
    try:
        data_for(options.data)
    except BirkaDataError as err:
        return f"data: {err}"
    return None


def _starving(data: Data) -> Violation:
    food = " or ".join(data.resource_names[f] for f in data.food)
    return Violation(
        "STARVING",
        f"You are starving: until the Ration is paid you may only collect food ({food}), craft "
        f"{data.resource_names[data.bread]}, trade and receive payments.",
        "move",
    )


def _cannot_afford(data: Data, cost: Price, field: str) -> Violation:
    return Violation(
        "CANNOT_AFFORD", f"That costs {data.price_text(cost)}, more than your Visthus holds.", field
    )


def _supply_empty(data: Data, r: int, field: str) -> Violation:
    return Violation(
        "SUPPLY_EMPTY", f"The supply has no {data.resource_names[r]} left and it cannot be replaced.", field
    )


_FRESH_TURN_PHASES = frozenset(
    {Phase.SETUP_DEAL, Phase.SETUP_START, Phase.ROLL, Phase.COLLECT, Phase.TRIBUTE_PAY, Phase.TRIBUTE_TAKE}
)

_EXPECTED: dict[Phase, tuple[type, ...]] = {
    Phase.SETUP_DEAL: (DrawCard,),
    Phase.SETUP_START: (Draw,),
    Phase.CALENDAR: (Draw,),
    Phase.ROLL: (Draw,),
    Phase.TINGET_DRAW: (DrawCard,),
    Phase.LEVY: (PayLevy,),
    Phase.COLLECT: (Collect, StopCollecting),
    Phase.TRIBUTE_PAY: (PayTribute,),
    Phase.TRIBUTE_TAKE: (TakeTribute,),
    Phase.ACTIONS: (
        MarketTrade,
        OutlawTrade,
        Craft,
        BuySkepp,
        Upgrade,
        Build,
        BuildExtension,
        AcquireRunestone,
        Discard,
        EndActions,
    ),
    Phase.UPGRADE_TOKEN: (PlaceToken,),
    Phase.MJOD_TOKEN: (PlaceToken,),
    Phase.TINGET_KEEP: (KeepCard,),
    Phase.RECOVER: (PayRation,),
    Phase.RATIONS: (PayRation,),
}

_WAITING: dict[Phase, str] = {
    Phase.SETUP_DEAL: "Runestone Cards are being dealt",
    Phase.SETUP_START: "the dice determine the Starting Player",
    Phase.CALENDAR: "the next Calendar Card is being revealed",
    Phase.LEVY: "a player chooses the resource the levy takes",
    Phase.ROLL: "the Starting Player rolls the die",
    Phase.COLLECT: "a player chooses what to collect into their empty Visthus slots",
    Phase.TRIBUTE_PAY: "the roller chooses the Raw Resource paid to the Mjödhallen's owner",
    Phase.TRIBUTE_TAKE: "the Mjödhallen's owner chooses a Raw Resource to take from a player",
    Phase.ACTIONS: "a player performs actions, discards, or ends their actions",
    Phase.UPGRADE_TOKEN: "the dice token for the upgraded slot is placed",
    Phase.MJOD_TOKEN: "the Mjödhallen's owner places its permanent dice token",
    Phase.TINGET_DRAW: "a Runestone Card is being drawn at Tinget",
    Phase.TINGET_KEEP: "the player keeps one of the two Runestone Cards drawn",
    Phase.RECOVER: "a starving player pays the Ration",
    Phase.RATIONS: "a player pays the Ration",
    Phase.OVER: "the game is over",
}


OPTIONS = (
    OptionInfo(
        "calendar_rounds",
        "How many Calendar Rounds of 12 Turns the game lasts at most: 5 (the rulebook's 'maximum of 5 "
        "Calendar Rounds (the 10 cards)', two cards a round) or 10 (its 'The 10th Calendar Round ends'; the "
        "ten Calendar Cards are shuffled again once all were revealed).",
        "5",
        ("5", "10"),
    ),
    OptionInfo(
        "tokens_only",
        "Collection reads 'the Raw Resource matching the Dice result plus any Dice Tokens' as the plots "
        "whose dice tokens (starting or upgraded) match the roll, without the die face's own resource "
        "(by default every player also collects the die face's Raw Resource).",
        "false",
        ("true", "false"),
    ),
    OptionInfo(
        "data",
        "Replacement data files as JSON text: an object whose keys are resources, byn, birka, calendar or "
        "runestones (the files served under data) and whose values replace those files; empty = the "
        "reference data set. It is validated like the reference.",
        "",
    ),
)

ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        "REFERENCE_DATA",
        "See Resources & Building for details.",
        "The numbers printed on the boards and cards were lost; the reference data set is five JSON files "
        "(resources, byn, birka, calendar, runestones; served by DescribeGame under data, with the engine's "
        "indices under data.indices). Every number in them is one of the assumptions below. The data option "
        "replaces any of the files without code changes and is validated like the reference.",
        "data",
    ),
    Assumption(
        "PLAYER_COUNT",
        "Each Player selects a Player icon , and picks up:",
        "2 to 4 players. A Calendar Round of 12 Turns then makes every player the Starting Player (who "
        "rolls, and who pays the Mjödhallen's owner) equally often (12 is divisible by 2, 3 and 4, not by "
        "5); the 9 buildings that can be owned give every player two or more to aim for, and the Market's 5 "
        "slots a row serve up to four traders a Turn.",
    ),
    Assumption(
        "GAME_LENGTH",
        "The game is played over a maximum of 5 Calendar Rounds (the 10 cards), or until a Player has "
        "completed 5 Runestones . ... The 10th Calendar Round ends ... No Rations are required if the game "
        "ends in Calendar Round 10.",
        "By default 5 Calendar Rounds of 12 Turns: two cards a round reveal the 10 cards exactly once. With "
        "calendar_rounds=10 the game lasts ten such rounds and the ten Calendar Cards are shuffled again "
        "once all were revealed. Either way no Rations are paid after the last round.",
        "calendar_rounds (5 or 10)",
    ),
    Assumption(
        "SETUP_ORDER",
        "5 random Runestone Cards (keep hidden from other players) ... Place 1 resource of each type in the "
        "first Slot of both Raw Market and Crafted Market, unless the revealed Calendar Card states "
        "otherwise. ... Starting Player: Let the Dice determine the Starting Player.",
        "Setup: every player is dealt 5 cards from their own deck, one chance step per card (seat 0 first); "
        "then one chance step, uniform over the seats, makes a player the Starting Player; then the first "
        "Calendar Card is revealed and applied and the Market is set up; then the first Turn begins. Every "
        "player starts with 1 Bröd and 1 Lera and 1 Skepp.",
    ),
    Assumption(
        "DIE_FACES",
        "All Players collect the Raw Resource matching the Dice result plus any Dice Tokens \u2013 on their "
        "Resource Plot .",
        "Die faces 1 to 6 show Fisk, Korn, Lera, Malm, Ull and Virke. Every player collects 1 of the face's "
        "Raw Resource, plus 1 of a plot's Raw Resource for every dice token on that plot showing the number "
        "rolled. The other reading, 'the Raw Resource matching the Dice result' as the plot whose starting "
        "token matches, collects only from the dice tokens showing the number (half as much at the start) "
        "and is the option.",
        "tokens_only",
    ),
    Assumption(
        "RESOURCE_PLOTS",
        "Each Resource Plot have one starting Dice token, and the remaining three Slots can be upgraded to "
        "increase collection chances.",
        "Every Byn has six Resource Plots, one per Raw Resource, with starting tokens Fisk 4, Korn 5, Lera "
        "6, Malm 1, Ull 2, Virke 3 (the face's number + 3): every roll gives every player two different Raw "
        "Resources, each resource equally likely (1 in 3 per Turn), and every Byn is the same, so no seat "
        "starts luckier.",
    ),
    Assumption(
        "YELLOW_AND_GREY_DIE",
        "The Starting Player rolls the yellow Dice and places it on the Calendar Board in the first Dice "
        "Slot . ... The next player in clockwise order becomes the Starting Player and starts a new Turn "
        "with the grey Dice .",
        "The first Turn of every Calendar Round is rolled with the yellow die, which stays on the first "
        "Dice Slot for the round (State.yellow); every later Turn is rolled with the grey die. Either roll "
        "is the Turn's roll for the collection and the Mjödhallen.",
    ),
    Assumption(
        "TURN_ORDER",
        "Player Actions: In clockwise order, you can perform as many actions as you own Skepp (each player "
        "starts with 1):",
        "A Turn is one roll and one collection, then every player's actions in clockwise order starting "
        "with the Starting Player; then the next player clockwise becomes the Starting Player (also from "
        "one round to the next).",
    ),
    Assumption(
        "COLLECTION",
        "Items can only be collected if there is an empty Slot.",
        "Players collect in clockwise order from the Starting Player. When everything due fits, or only one "
        "kind is due, it is collected at once (what does not fit is lost); when more is due than the empty "
        "slots hold and of several kinds, the player chooses one resource at a time (Collect). Collecting "
        "is not optional (except the Mjödhallen owner's, see MJODHALLEN). Only what the supply holds is "
        "collected.",
    ),
    Assumption(
        "VISTHUS",
        "You can buy a Visthus extension to increase available Slots.",
        "A Visthus has 8 slots, one resource each; the extension adds 4 and costs 2 Virke and 2 Lera, as an "
        "action, once per Byn. With 2 resources at the start and about 2 collected a Turn, a Visthus fills "
        "in about three Turns unless spent: storage forces choices, which crafting (2 slots into 1) and the "
        "extension relieve.",
    ),
    Assumption(
        "DISCARD",
        "Discard Resources: Remove Resources from your Visthus to free up Slots. ... You cannot discard "
        "Resources during the collection phase; this must be done during your previous Action phase.",
        "A player discards one resource at a time (Discard), at any point of their own actions, as often as "
        "they like; it is not an action and is allowed while starving. Nobody discards during the "
        "collection or another player's actions.",
    ),
    Assumption(
        "SKEPP",
        "Purchase Skepp: Purchase a Skepp to increase the number of Actions. After a Skepp purchase you may "
        "perform a new action in the same Turn.",
        "A Byn holds at most 4 Skepp; a Skepp costs 2 Virke and 1 Vadmal (a sail). Buying one uses an "
        "action and at once gives one more (the purchase leaves the actions left unchanged). Four keeps a "
        "Turn short and bounds every Turn.",
    ),
    Assumption(
        "MARKET",
        "Limited Slots: 5 Raw and 3 Crafted per Resource type. \u2013 You may not exceed available Slots. "
        "\u2013 You may not trade for a Resource that is not present. ... The trading ratio is stated on "
        "the Birka Köpingen Board, in the information box at the Raw and Crafted Market",
        "One trade is one action. The Raw Market exchanges 1 Raw Resource for 1 other Raw Resource, the "
        "Crafted Market 1 Crafted for 1 other Crafted (data: raw_give, crafted_give): what is given goes "
        "into its row, which must have a free slot, and what is taken must be in its row. The Market is the "
        "better rate, limited by what other players left there.",
    ),
    Assumption(
        "OUTLAW_TRADER",
        "Any Price stated is paid with 2 Raw Resouces or 1 Crafted Resource.",
        "The Outlaw Trader's prices are in units: 1 unit for a Raw Resource, 2 for a Crafted one; each unit "
        "is paid with 2 Raw Resources or 1 Crafted Resource, all of one kind per trade. So a Raw Resource "
        "costs 2 Raw (twice the Market's) or 1 Crafted, a Crafted one 4 Raw or 2 Crafted. He trades any "
        "resource for any other from the supply piles, with no slots.",
    ),
    Assumption(
        "SUPPLY",
        "In rare cases, if the Supply pile runs out of a Resource, the Resource cannot be replaced by "
        "another Resource.",
        "There are 30 tokens of each Raw and 20 of each Crafted Resource; the supply holds what is in no "
        "Visthus and not at the Market. Collecting, crafting, the Outlaw Trader, gifts and the Market reset "
        "take only what it holds (with four full Visthus this can happen, rarely).",
    ),
    Assumption(
        "CRAFTING",
        "Craft: Convert Raw Resources into Crafted Resources . See each Building for crafting price.",
        "One craft is one action: 2 of the building's Raw Resource become 1 of its Crafted Resource (Fisk "
        "to Tran in the Trankokeri, Korn to Bröd in the Eldhus, Lera to Keramik in the Krukmakeri, Malm to "
        "Järn in the Blästerugn, Ull to Vadmal in the Vävstuga, Virke to Träkol in the Kolmila). A crafted "
        "resource takes one slot instead of two.",
    ),
    Assumption(
        "BUILDING_PRICES",
        "Constructing: Spend Resources matching the price at the top of the Building icon, e.g. the Kolmila "
        "costs 2 Lera and 1 Malm .",
        "Trankokeri 2 Virke 1 Ull; Eldhus 2 Lera 1 Virke; Krukmakeri 2 Virke 1 Malm; Blästerugn 3 Lera 1 "
        "Virke; Vävstuga 2 Virke 1 Korn; Kolmila 2 Lera 1 Malm (the rulebook's); Smedjan 2 Virke 2 Malm; "
        "Stallet 3 Virke 1 Korn; Mjödhallen 2 Virke 1 Keramik 1 Korn. Crafting buildings cost 3 Raw "
        "Resources like the Kolmila, never their own input; the Blästerugn (whose Järn makes Verktyg), the "
        "Smedjan and the Stallet cost 4, the Mjödhallen needs a crafted Keramik.",
    ),
    Assumption(
        "OWNER_PAYMENTS",
        "Payments: If another Player uses your Building, you receive the payment marked with a red border "
        "on the Building. If you use your own Building, no payment is made. • As an example, the payment "
        "received from crafting in Blästerugn is a Malm .",
        "Every crafting building's payment is 1 of its Raw input; the Smedjan's 1 Malm, the Stallet's 1 "
        "Korn. The user pays it on top of the price; it goes into the owner's empty slots, or to the supply "
        "when the owner has none. The owner using their own building pays no payment. Payments need no "
        "decision.",
    ),
    Assumption(
        "UPGRADES",
        "Upgrade Plot: Purchase Träl , Verktyg or Häst , and place any Dice Token \u2013 in the upgraded "
        "Slot. ... Once placed, dice cannot be changed.",
        "The three upgradable slots of each plot are a Träl slot, a Verktyg slot and a Häst slot. An "
        "upgrade is one action (Upgrade(plot, good): the good is bought where it is sold), then the player "
        "places a dice token of any value 1-6 in that slot (PlaceToken; a value already on the plot is "
        "allowed and then gives 2). A filled slot never changes.",
    ),
    Assumption(
        "UPGRADE_PRICES",
        "In Birka Tunet a Player can use Trältorget (Träl ), Smedjan (Verktyg ) and Stallet (Häst ) to "
        "upgrade Resource Plots in the Byn.",
        "Träl 1 Bröd 1 Fisk at Trältorget; Verktyg 1 Järn 1 Träkol at the Smedjan (payment 1 Malm); Häst 2 "
        "Korn 1 Vadmal at the Stallet (payment 1 Korn): a cheap first upgrade from food, two later ones "
        "that need crafted goods and another player's building.",
    ),
    Assumption(
        "ALWAYS_AVAILABLE",
        "Trältorget (purchase Träl ) and Tinget (purchase Runestone ) are not owned always available.",
        "Trältorget and Tinget cannot be built or owned; they can be used from the first Turn and take no "
        "payment. Every other building can be used only once someone built it.",
    ),
    Assumption(
        "ICON_TOKENS",
        "10 Icon Tokens",
        "A player marks every building they own with an icon token, so a player owns at most 10 buildings "
        "(with 9 buildings that can be owned this never binds).",
    ),
    Assumption(
        "MJODHALLEN",
        "The owner places a permanent Dice token in the white box. \u2013 If the rolled Dice matches this, "
        "the roller must pay the owner 1 Raw Resource. \u2013 If the owner rolls it, they take 1 Raw "
        "Resource from any Player. ... In case the Owner has limited empty Slots, the Owner can choose to "
        "collect only parts of the regular collection to have room for the payment. \u2013 If no Raw "
        "Resources are available, the Owner receives nothing.",
        "Right after building it the owner places a token of any value 1-6 (PlaceToken). When the roll "
        "matches it, the payment follows everyone's collection: the roller (the Starting Player) pays a Raw "
        "Resource of their choice (PayTribute; automatic with one kind); if the owner rolled, they take a "
        "Raw Resource of their choice from any other player (TakeTribute; automatic with one choice). "
        "Nothing is paid when there is no Raw Resource or the owner has no empty slot. When the number is "
        "rolled and the collection would fill the owner's Visthus, the owner collects one resource at a "
        "time and may stop (StopCollecting). A starving owner still receives it.",
    ),
    Assumption(
        "TINGET",
        "When purchasing a Runestone Card, the Player acquires two new cards, and keeps one, and discards "
        "the other.",
        "A purchase at Tinget costs 1 Vadmal and 1 Keramik and is one action; two cards are drawn from the "
        "player's own deck (a secret chance step each), then the player keeps one (KeepCard 0 or 1); the "
        "other leaves the game unseen. With one card left in the deck it is drawn and kept; with none, "
        "Tinget sells nothing to that player.",
    ),
    Assumption(
        "RUNESTONE_DECKS",
        "All Byn have the same set of Runestone Cards.",
        "Every player has their own deck of the same 24 cards: dealt and drawn at Tinget from it, so "
        "several players may hold the same card. A deck's order is nothing but the RNG (it is kept as the "
        "set of cards left, drawn uniformly).",
    ),
    Assumption(
        "RUNESTONE_CARDS",
        "A Runestone is completed when its conditions are fulfilled.",
        "24 cards (runestones.json): 9 Birka runestones (build a given building, 3-5 points) and 15 Byn "
        "runestones (own 2/3/4 Skepp, the extension, 2 or 3 buildings, upgrades, a full plot, hold given "
        "crafted goods), 2 to 6 points by difficulty. A card is completed when its condition is first "
        "fulfilled, checked after every change to its holder's Byn or buildings (also when the card is "
        "kept), and stays completed.",
    ),
    Assumption(
        "RUNESTONE_SECRECY",
        "Each Player begins with 5 Runestones, hidden for other players. \u2013 Runestones remain hidden "
        "until the end of the game.",
        "A player's hand, the cards they draw and keep, which are completed, and their deck are secret: "
        "other seats' views show HIDDEN cards (only their number), events name cards only to their holder "
        "(the completion of a card is told to its holder alone), and no event text names a card. At the end "
        "every hand is shown.",
    ),
    Assumption(
        "IMPOSSIBLE_RUNESTONES",
        "Since multiple Players can have the same Runestone (Birka based Runestone), some Runestone will "
        "not be possible to complete, e.g. Player Bear and Raven both need to build the Kolmila, and if "
        "Bear builds it first, Raven will not be able to complete the Runestone. ... You can purchase "
        "Runestone Cards, even though your other Runestone Cards are not blocked.",
        "A building has one owner for the whole game; a BUILD card of a building another player owns (or a "
        "card needing more buildings than remain) can never be completed, and its holder is told privately "
        "(RUNESTONE_BLOCKED). Tinget sells cards whatever the hand holds.",
    ),
    Assumption(
        "CALENDAR_CARDS",
        "A Calendar Card is revealed at the start of each Calendar Round and halfway, after six Turns. "
        "\u2013 Its effect applies until a new Calendar Card is revealed unless otherwise stated. \u2013 "
        "Effects are mandatory unless otherwise stated.",
        "Ten cards (calendar.json), revealed by a chance step, uniform among the cards not yet revealed: "
        "Sillstim (every collection +1 Fisk), Torka (no Korn collected), Marknadsdag (Market reset with 2 a "
        "Raw row, 1 a Crafted row), Stormflod (Market closed), Fredlös (Outlaw Trader closed), "
        "Skeppsbyggare (a Skepp costs 1 Virke less), Hård vinter (this round's Rations cost 4 Korn/Fisk or "
        "2 Bröd), Gästabud (every player receives 1 Bröd), Kungens skatt (every player returns 1 Raw "
        "Resource of their choice), Midsommarblot (a Runestone purchase costs 1 Keramik less). Gifts and "
        "levies go in clockwise order from the next Turn's Starting Player; a levy choice is a decision "
        "(PayLevy).",
    ),
    Assumption(
        "MARKET_CARDS",
        "Any Calendar Card affecting the Market is only applied to the Market, and not at The Outlaw Trader "
        "unless otherwise stated. ... Not affected by ”Market” rules on cards.",
        "Stormflod and Marknadsdag change only the Market; Fredlös names the Outlaw Trader and closes him.",
    ),
    Assumption(
        "MARKET_RESET",
        "Market Reset: Reset the Market by placing 1 Resource in the first Slot of each row, unless the "
        "revealed Calendar Card states otherwise.",
        "At setup and at the start of every round, after the Calendar Card is revealed, every row is set to "
        "1 token (what was left returns to the supply), or to the card's numbers (Marknadsdag). A market "
        "card revealed halfway restocks at once.",
    ),
    Assumption(
        "RATIONS",
        "After the 12th Turn, feed your By: • Cost: • 3 Korn / Fisk (any combination) or • 1 Bröd ... "
        "Players are not allowed to deliberately skip Rations or postpone Recovery.",
        "After the last Turn of every round but the last, each player in clockwise order from that Turn's "
        "Starting Player pays if they can (PayRation; the way is their choice, automatic when there is only "
        "one); who cannot, starves. Hård vinter changes the cost of the Rations of the round it is revealed "
        "in.",
    ),
    Assumption(
        "STARVATION",
        "Starvation: If you cannot pay the Ration cost, you are restricted next Calendar Round to only: • "
        "Collect food (Korn or Fisk ) • Craft Bröd • Trade • Receive Payment (also non-food Resources) from "
        "Birka Buildings • All other actions are unavailable until the Ration cost is paid",
        "A starving player collects only Korn and Fisk, crafts only Bröd, trades at the Market and with the "
        "Outlaw Trader, receives payments, tribute and gifts and may discard; they cannot buy a Skepp, "
        "upgrade, build, buy the extension or go to Tinget. They still pay the Mjödhallen and levies.",
    ),
    Assumption(
        "RECOVERY",
        "Recovery: As soon as the Ration is paid, the Player resumes normal play from the next Turn. "
        "Starvation does not stack. The Recovery step does not count as an Action.",
        "A starving player pays the usual Ration (3 Korn/Fisk or 1 Bröd) as soon as they hold it: at the "
        "start of their actions and after each of their moves (RECOVER, PayRation; automatic when only one "
        "way). It is not an action; the restrictions last until the next Turn. A player still starving at "
        "the end of a round pays that round's Ration once, which also ends the starvation.",
    ),
    Assumption(
        "GAME_END",
        "End of Game is triggered immediately when: • A Player completes 5 Runestone Cards or • The 10th "
        "Calendar Round ends",
        "The game ends right after the move, collection or payment that completes a player's fifth card; if "
        "a collection completes the fifth card of several players, the first of them clockwise from the "
        "Starting Player is the one who completed them.",
    ),
    Assumption(
        "SCORING",
        "In rare cases where a Player completes more than 5 Runestones, the Player counts the 5 highest "
        "rewarded Cards. ... The Finisher Bonus: The Player who completed 5 Runestone gains 1 point for "
        "each opponent. 4. Tiebreaker: The Player who triggered the end wins. If not among tied Players, "
        "victory is shared.",
        "A player scores the points of their 5 best completed cards (cards not completed score nothing). "
        "Cards are revealed from the finisher clockwise (without a finisher: from the last Starting "
        "Player). Tied players share the victory unless the finisher is among them (Result WIN with several "
        "winners; DRAW when every player ties).",
    ),
    Assumption(
        "NO_TRADES_BETWEEN_PLAYERS",
        "Trades between Players are not allowed.",
        "No move exchanges resources between players: resources pass between Byns only as building payments "
        "and the Mjödhallen's tribute.",
    ),
)

GAME = Birka()
