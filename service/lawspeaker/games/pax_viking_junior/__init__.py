"""Pax Viking Junior: a pure rules engine over a frozen state, played as a chain of small decisions.

Rulebook: ``shared/rulebooks/pax-viking-junior.txt``; every reading of it is recorded in
``ASSUMPTIONS`` and in ``docs/rules/pax-viking-junior.md``. The components (map, Animal tiles, victory
cards, cat boards and the rules' numbers) are data, see :mod:`.components`.

Seats are 0..N-1 in turn order. A turn is a chain of decisions by the player on turn: the journey,
whether to draw Animal tiles, which drawn tile to place, then the Cats. Chance steps (dealing a
victory card, drawing the starting player, drawing an Animal tile) draw one card, seat or tile at a
time: the listed move is ``Draw()`` (the server draws from the state's RNG) and every explicit
``Draw(outcome)`` is listed by :meth:`PaxVikingJunior.chance` with its probability.

Hidden information: the box lid is face down and the green and yellow decks are shuffled. The state
keeps how many tiles of each kind lie in the lid (what every player can work out: every tile that is
not on the map) and which victory cards are face up; each draw is uniform over what is left. The order
of the lid and of the decks is therefore nothing but the RNG, and a player's view removes the RNG.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

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
)
from lawspeaker.games.core import player as _who
from lawspeaker.games.core import replaced as _set
from lawspeaker.games.pax_viking_junior.components import (
    MAX_PLAYERS,
    REFERENCE,
    REFERENCE_DATA,
    SECTIONS,
    UNREACHABLE,
    Components,
    ComponentsError,
    amounts,
    components_for,
    load_components,
)
from lawspeaker.games.pax_viking_junior.reasons import REASONS

__all__ = ["REFERENCE", "Components", "ComponentsError", "load_components"]

NONE, SILFR, SCROLLS = 0, 1, 2  # how a Buff is paid
RETURN_STEPS = 2  # a journey back to where it began goes out and back (option return_journeys)
CURRENCY_NAMES = {SILFR: "Silfr", SCROLLS: "Scrolls"}
HIDDEN_RNG = Rng(bytes(32), 0)


class Phase(enum.Enum):
    """What the game waits for."""

    SETUP_DEAL = "SETUP_DEAL"  # chance: the next victory card is dealt face up
    SETUP_START = "SETUP_START"  # chance: the starting player is drawn
    SETUP_BOARD = "SETUP_BOARD"  # a player chooses their colour and cat board
    SETUP_TILE = "SETUP_TILE"  # chance: the face-up Animal tile placed with a player's Longship
    SETUP_CAT = "SETUP_CAT"  # the player places one Kitten or one Big Cat with their Longship
    JOURNEY = "JOURNEY"  # the player on turn journeys with their Longship
    DRAW_OFFER = "DRAW_OFFER"  # ... draws Animal tiles from the box lid, or not
    DRAWING = "DRAWING"  # chance: the next Animal tile drawn
    CHOOSE_TILE = "CHOOSE_TILE"  # ... places one drawn tile next to the Longship, or returns them
    PLACE_CATS = "PLACE_CATS"  # ... places Cats or picks up their Cats in the region
    OVER = "OVER"


CHANCE_PHASES = frozenset({Phase.SETUP_DEAL, Phase.SETUP_START, Phase.SETUP_TILE, Phase.DRAWING})
TURN_PHASES = frozenset({Phase.JOURNEY, Phase.DRAW_OFFER, Phase.DRAWING, Phase.CHOOSE_TILE, Phase.PLACE_CATS})
SETUP_PHASES = frozenset(
    {Phase.SETUP_DEAL, Phase.SETUP_START, Phase.SETUP_BOARD, Phase.SETUP_TILE, Phase.SETUP_CAT}
)


class VictoryCards(enum.Enum):
    """Which victory cards are laid out: the rulebook's setup, or its "Victory Cards Variant"."""

    STANDARD = "standard"  # the 2 red cards, 2 green and 1 yellow
    LONGER = "longer"  # no red cards, 2 green and 2 yellow


class KittenTie(enum.Enum):
    """Who is Friends with a region's animals when players tie for the most Kittens there."""

    FRIEND_KEEPS = "FRIEND_KEEPS"  # the Friend keeps the friendship (stealing takes more Kittens)
    NOBODY = "NOBODY"  # nobody is Friends with them


@dataclass(frozen=True, slots=True)
class Options:
    """Options of a game (see ``OPTIONS`` for each)."""

    victory_cards: VictoryCards = VictoryCards.STANDARD
    buff: bool = False
    starting_seat: int = -1  # -1: a chance step draws the starting player
    seat_boards: tuple[str, ...] = ()  # the cat board of each seat; empty: each player chooses
    kitten_tie: KittenTie = KittenTie.FRIEND_KEEPS
    components: str = ""  # JSON text replacing sections of the reference components
    return_journeys: bool = False  # a journey may come back to where it began (2 steps)


# --------------------------------------------------------------------------- moves


@dataclass(frozen=True, slots=True)
class Draw:
    """A chance step. ``outcome=None`` asks the server to draw from the state's RNG; otherwise the
    victory card (its index), the starting seat, or the kind of Animal tile drawn."""

    outcome: int | None = None


@dataclass(frozen=True, slots=True)
class ChooseBoard:
    """Setup: take the colour and cat board ``board`` (index into the cat boards)."""

    board: int


@dataclass(frozen=True, slots=True)
class Journey:
    """Journey with your Longship to land region ``region``; ``buff`` (SILFR or SCROLLS) pays a Buff
    for 1 more step."""

    region: int
    buff: int = NONE


@dataclass(frozen=True, slots=True)
class DrawTiles:
    """Draw ``count`` Animal tiles from the box lid; ``buff`` pays a Buff for 1 more tile."""

    count: int
    buff: int = NONE


@dataclass(frozen=True, slots=True)
class SkipDraw:
    """Do not draw Animal tiles this turn."""


@dataclass(frozen=True, slots=True)
class PlaceTile:
    """Place one drawn tile of kind ``tile`` next to your Longship; the others go back to the lid."""

    tile: int


@dataclass(frozen=True, slots=True)
class ReturnTiles:
    """Put every drawn tile back into the box lid."""


@dataclass(frozen=True, slots=True)
class PlaceKittens:
    """Place ``count`` Kittens next to your Longship (0 places nothing); ``buff`` pays a Buff for 1
    more Kitten."""

    count: int
    buff: int = NONE


@dataclass(frozen=True, slots=True)
class PlaceBigCat:
    """Place a Big Cat next to your Longship."""


@dataclass(frozen=True, slots=True)
class PickUpCats:
    """Pick up all your Kittens in the region instead of placing Cats."""


Move = (
    Draw
    | ChooseBoard
    | Journey
    | DrawTiles
    | SkipDraw
    | PlaceTile
    | ReturnTiles
    | PlaceKittens
    | PlaceBigCat
    | PickUpCats
)

_DRAW = Draw()
_BOTH = (SILFR, SCROLLS)
_SKIP = SkipDraw()
_RETURN = ReturnTiles()
_BIG_CAT = PlaceBigCat()
_PICK_UP = PickUpCats()
_KITTENS = tuple(PlaceKittens(k) for k in range(8))


# --------------------------------------------------------------------------- state


class State(NamedTuple):
    """A position. Per-seat tuples are indexed by seat, per-region tuples by region (the order of
    the map's regions), tile kinds and cards by their order in the components."""

    options: Options
    players: int
    phase: Phase
    actor: int  # the seat who decides (or draws) now; -1 for a draw nobody makes
    turn: int  # the seat on turn (during setup: the seat being set up, else the starting seat)
    start: int  # the starting seat (-1 until known)
    step: int  # setup: the number of seats whose Longship is set up
    boards: tuple[int, ...]  # each seat's cat board (-1 until chosen)
    ships: tuple[int, ...]  # the region of each seat's Longship (-1 until placed)
    cards: tuple[int, ...]  # the victory cards face up, in the order laid out
    lid: tuple[int, ...]  # the Animal tiles of each kind face down in the box lid
    drawn: tuple[int, ...]  # tiles drawn (face up) this turn and not yet placed or returned
    to_draw: int  # tiles still to draw in this draw
    tiles: tuple[tuple[int, ...], ...]  # per region: the Animal tiles placed there, in order
    kittens: tuple[tuple[int, ...], ...]  # per region: the Kittens of each seat there
    big_cats: tuple[int, ...]  # per region: the seat whose Big Cat is there (-1 = none)
    friends: tuple[int, ...]  # per region: the seat with the most Kittens or a Big Cat there (-1)
    silfr: tuple[int, ...]
    scrolls: tuple[int, ...]
    kittens_left: tuple[int, ...]  # Kittens on each seat's cat board
    big_cats_left: tuple[int, ...]  # Big Cats on each seat's cat board
    buffed: bool  # the player on turn has Buffed this turn
    placed: int  # the kind of tile placed this turn (-1 = none)
    winner: int  # -1 until the game ends
    won_card: int  # the victory card the winner fulfilled (-1)
    ply: int
    rng: Rng


@dataclass(frozen=True, slots=True)
class EventDetail:
    """Structured details of an event for a frontend."""

    region: int = -1
    tiles: tuple[int, ...] = ()
    card: int = -1
    silfr: int = 0
    scrolls: int = 0
    count: int = 0
    seats: tuple[int, ...] = ()


def _comp(state: State) -> Components:
    return components_for(state.options.components)


def _add(t: tuple[int, ...], i: int, v: int) -> tuple[int, ...]:
    return (*t[:i], t[i] + v, *t[i + 1 :])


def _tiles_word(k: int, which: str = "") -> str:
    """E.g. "1 Animal tile", "both drawn Animal tiles", "3 other Animal tiles"."""
    if k == 1:
        return f"the {which}Animal tile" if which else "1 Animal tile"
    if k == 2 and which:
        return f"both {which}Animal tiles" if which == "drawn " else f"the 2 {which}Animal tiles"
    return f"the {k} {which}Animal tiles" if which else f"{k} Animal tiles"


def _kittens_word(k: int) -> str:
    return f"{k} Kitten" if k == 1 else f"{k} Kittens"


def deal_plan(comp: Components, options: Options) -> tuple[tuple[str, bool, int], ...]:
    """The victory card deals of the variant, in order: (colour, dealt whole, number of cards). A
    colour whose whole deck is laid out (the 2 red cards) needs no shuffle and no chance step."""
    return tuple(
        (colour, k == comp.card_colour.count(colour), k)
        for colour, k in comp.deal[options.victory_cards.value]
    )


def friend_of(state: State, region: int, current: int) -> int:
    """Who is Friends with the region's animals, given the current Friend: the Big Cat's owner, else
    the player with the most Kittens; on a tie the current Friend keeps it (option kitten_tie)."""
    big = state.big_cats[region]
    if big >= 0:
        return big
    row = state.kittens[region]
    most = max(row)
    if most == 0:
        return -1
    if current >= 0 and row[current] == most and state.options.kitten_tie is KittenTie.FRIEND_KEEPS:
        return current
    if row.count(most) == 1:
        return row.index(most)
    return -1


def friend_animals(state: State, comp: Components, seat: int) -> list[int]:
    """How many animals of each kind ``seat`` is Friends with on the map."""
    counts = [0] * len(comp.animal_ids)
    animal, count = comp.tile_animal, comp.tile_count
    for region, friend in enumerate(state.friends):
        if friend == seat:
            for t in state.tiles[region]:
                counts[animal[t]] += count[t]
    return counts


def fulfils(state: State, comp: Components, seat: int, card: int, have: list[int] | None = None) -> bool:
    """True when ``seat`` fulfils victory card ``card``: enough Silfr and Scrolls by the cat board and
    Friends with at least the animals it shows (``have``: :func:`friend_animals`, when known)."""
    if state.silfr[seat] < comp.card_silfr[card] or state.scrolls[seat] < comp.card_scrolls[card]:
        return False
    wanted = comp.card_animals[card]
    if not any(wanted):
        return True
    if have is None:
        have = friend_animals(state, comp, seat)
    return all(h >= w for h, w in zip(have, wanted, strict=True))


def may_draw(state: State, region: int, seat: int) -> bool:
    """The region is empty (no Animal tile) or ``seat`` is Friends with its animals."""
    return not state.tiles[region] or state.friends[region] == seat


# --------------------------------------------------------------------------- the game


class PaxVikingJunior:
    """The Pax Viking Junior rules engine (implements :class:`lawspeaker.games.core.Game`)."""

    id = "pax_viking_junior"
    title = "Pax Viking Junior"
    min_players = 2
    max_players = MAX_PLAYERS
    rules_version = "pax_viking_junior-1"
    reasons = REASONS

    def default_options(self) -> Options:
        return Options()

    def option_problems(self, options: Options, players: int) -> list[FieldViolation]:
        """Every way the options do not fit a game of ``players`` (fields relative to the options)."""
        try:
            comp = components_for(options.components)
        except ComponentsError as err:
            return [FieldViolation("components", str(err))]
        out: list[FieldViolation] = []
        if options.seat_boards:
            known = ", ".join(comp.board_ids)
            if len(options.seat_boards) != players:
                out.append(
                    FieldViolation(
                        "seat_boards",
                        f"names a cat board for each of the {players} players (or none: each player "
                        f"chooses at setup), not {len(options.seat_boards)}",
                    )
                )
            for board in options.seat_boards:
                if board not in comp.board_ids:
                    out.append(
                        FieldViolation("seat_boards", f"{board!r} is not a cat board; they are {known}")
                    )
            if len(set(options.seat_boards)) != len(options.seat_boards):
                out.append(FieldViolation("seat_boards", "each player takes a cat board of their own"))
        if not -1 <= options.starting_seat < players:
            out.append(
                FieldViolation(
                    "starting_seat", f"must be a seat from 0 to {players - 1} (unset: drawn at random)"
                )
            )
        return out

    def new_game(self, players: int, options: Options, rng: Rng) -> State:
        problems = self.option_problems(options, players)
        if problems:
            first = problems[0]
            raise LawspeakerError(
                ErrorCode.MALFORMED, "INVALID_OPTIONS", f"{first.field}: {first.description}", problems
            )
        comp = components_for(options.components)
        n, regions = players, comp.regions
        boards = (
            tuple(comp.board_ids.index(b) for b in options.seat_boards) if options.seat_boards else (-1,) * n
        )
        state = State(
            options=options,
            players=n,
            phase=Phase.SETUP_DEAL,
            actor=-1,
            turn=0,
            start=-1,
            step=0,
            boards=boards,
            ships=(-1,) * n,
            cards=(),
            lid=comp.tile_copies,
            drawn=(),
            to_draw=0,
            tiles=((),) * regions,
            kittens=((0,) * n,) * regions,
            big_cats=(-1,) * regions,
            friends=(-1,) * regions,
            silfr=(0,) * n,
            scrolls=(0,) * n,
            kittens_left=tuple(comp.board_kittens[b] if b >= 0 else 0 for b in boards),
            big_cats_left=tuple(comp.board_big_cats[b] if b >= 0 else 0 for b in boards),
            buffed=False,
            placed=-1,
            winner=-1,
            won_card=-1,
            ply=0,
            rng=rng,
        )
        return self._setup(state, comp, [])

    # -- questions ----------------------------------------------------------------

    def to_act(self, state: State) -> ToAct:
        phase = state.phase
        if phase is Phase.OVER:
            return ToAct(())
        return ToAct((state.actor,) if state.actor >= 0 else (), phase in CHANCE_PHASES)

    def legal_moves(self, state: State) -> Sequence[Move]:
        phase = state.phase
        if phase in CHANCE_PHASES:
            return (_DRAW,)
        if phase is Phase.OVER:
            return ()
        comp = _comp(state)
        if phase is Phase.JOURNEY:
            return self._journeys(state, comp)
        if phase is Phase.PLACE_CATS:
            return self._cat_moves(state, comp)
        if phase is Phase.DRAW_OFFER:
            plain, extra = self._draw_counts(state, comp)
            out: list[Move] = [DrawTiles(c) for c in plain]
            out.extend(DrawTiles(c, b) for b in self._buffs(state, comp) for c in extra)
            out.append(_SKIP)
            return out
        if phase is Phase.CHOOSE_TILE:
            return [*(PlaceTile(t) for t in sorted(set(state.drawn))), _RETURN]
        if phase is Phase.SETUP_BOARD:
            return [ChooseBoard(b) for b in range(comp.boards) if b not in state.boards]
        # SETUP_CAT
        seat = state.actor
        out = []
        if state.kittens_left[seat] >= comp.setup_kittens:
            out.append(PlaceKittens(comp.setup_kittens))
        if state.big_cats_left[seat]:
            out.append(_BIG_CAT)
        return out

    def _buffs(self, state: State, comp: Components) -> tuple[int, ...]:
        """The ways the player on turn can pay a Buff now (none when Buffs are off or used)."""
        if not state.options.buff or state.buffed:
            return ()
        seat, cost = state.turn, comp.buff_cost
        silfr, scrolls = state.silfr[seat] >= cost, state.scrolls[seat] >= cost
        if silfr and scrolls:
            return _BOTH
        return (SILFR,) if silfr else (SCROLLS,) if scrolls else ()

    def _journeys(self, state: State, comp: Components) -> tuple[Journey, ...]:
        seat = state.turn
        here = state.ships[seat]
        steps = comp.board_steps[state.boards[seat]]
        buffs = self._buffs(state, comp)
        back = state.options.return_journeys
        key = ("journey", here, steps, buffs, back)
        found: tuple[Journey, ...] | None = comp.cache.get(key)
        if found is None:
            near = list(comp.reach[here][steps])
            far = [r for k in range(steps + 1, steps + comp.buff_steps + 1) for r in comp.ring[here][k]]
            if back and steps >= RETURN_STEPS:  # out and back: 2 steps at least
                near.append(here)
            elif back and steps + comp.buff_steps >= RETURN_STEPS:
                far.append(here)
            moves = [Journey(r) for r in sorted(near)]
            if buffs:
                moves.extend(Journey(r, b) for b in buffs for r in sorted(far))
            found = tuple(moves)
            comp.cache[key] = found
        return found

    def _draw_counts(self, state: State, comp: Components) -> tuple[list[int], list[int]]:
        """The numbers of tiles the player may draw without a Buff, and those only a Buff allows
        (never more than the lid holds)."""
        lid = sum(state.lid)
        base = comp.board_draws[state.boards[state.turn]]
        plain = sorted({min(c, lid) for c in base})
        extra = sorted({min(c + comp.buff_tiles, lid) for c in base} - set(plain))
        return plain, extra

    def _cat_moves(self, state: State, comp: Components) -> list[Move]:
        seat = state.turn
        region = state.ships[seat]
        out: list[Move] = [_KITTENS[0]]
        if state.big_cats[region] < 0:
            left, per = state.kittens_left[seat], comp.kittens_per_turn
            out.extend(
                _KITTENS[k] if k < len(_KITTENS) else PlaceKittens(k) for k in range(1, min(per, left) + 1)
            )
            more = per + comp.buff_kittens
            if left >= more:
                out.extend(PlaceKittens(more, b) for b in self._buffs(state, comp))
            if state.big_cats_left[seat]:
                out.append(_BIG_CAT)
        if state.kittens[region][seat]:
            out.append(_PICK_UP)
        return out

    def chance(self, state: State) -> Chance[Move] | None:
        phase = state.phase
        if phase not in CHANCE_PHASES:
            return None
        comp = _comp(state)
        if phase is Phase.SETUP_DEAL:
            rest = self._deck_rest(state, comp)
            p = 1 / len(rest)
            colour = comp.card_colour[rest[0]]
            return Chance(
                f"A {colour} victory card is dealt face up from the shuffled {colour} deck",
                tuple(ChanceOutcome(Draw(c), p, f"{comp.card_names[c]} ({comp.card_ids[c]})") for c in rest),
            )
        if phase is Phase.SETUP_START:
            p = 1 / state.players
            return Chance(
                "The starting player is drawn at random",
                tuple(ChanceOutcome(Draw(s), p, _who(s)) for s in range(state.players)),
            )
        total = sum(state.lid)
        what = (
            f"{_who(state.actor)} draws the face-up Animal tile placed with their Longship"
            if phase is Phase.SETUP_TILE
            else f"{_who(state.actor)} draws Animal tile {len(state.drawn) + 1} of "
            f"{len(state.drawn) + state.to_draw} from the box lid"
        )
        return Chance(
            what,
            tuple(ChanceOutcome(Draw(t), k / total, comp.tile_name(t)) for t, k in enumerate(state.lid) if k),
        )

    def drawn_outcome(self, state: State) -> Move:
        """The explicit outcome the server's draw in ``state`` comes to (the session service's hook)."""
        comp = _comp(state)
        phase = state.phase
        if phase is Phase.SETUP_DEAL:
            rest = self._deck_rest(state, comp)
            return Draw(rest[state.rng.below(len(rest))[0]])
        if phase is Phase.SETUP_START:
            return Draw(state.rng.below(state.players)[0])
        return Draw(_pick_tile(state.lid, state.rng)[0])

    def _deck_rest(self, state: State, comp: Components) -> list[int]:
        """The cards left in the deck dealt from now (in the order of the components)."""
        colour = self._slot(state, comp)[0]
        return [c for c in range(comp.cards) if comp.card_colour[c] == colour and c not in state.cards]

    def _slot(self, state: State, comp: Components) -> tuple[str, bool, int]:
        """The deal the next card laid out belongs to."""
        at = len(state.cards)
        for colour, whole, k in deal_plan(comp, state.options):
            if at < k:
                return colour, whole, k
            at -= k
        raise ValueError("every victory card is laid out")

    def outcome(self, state: State) -> Outcome | None:
        if state.phase is not Phase.OVER:
            return None
        comp = _comp(state)
        card = state.won_card
        return Outcome(
            Result.WIN,
            (state.winner,),
            f"{_who(state.winner)} fulfilled the {comp.card_colour[card]} victory card "
            f"\u201c{comp.card_names[card]}\u201d and wins.",
        )

    def view(self, state: State, seat: int | None) -> State:
        """What ``seat`` may see: everything but the RNG (the tiles in the box lid and the undealt cards
        are known only as the counts every player can work out)."""
        return state._replace(rng=HIDDEN_RNG)

    # -- validation ---------------------------------------------------------------

    def explain(self, state: State, move: Move) -> Violation:
        phase = state.phase
        expected = _EXPECTED.get(phase, ())
        comp = _comp(state)
        if isinstance(move, DrawTiles | SkipDraw) and phase is Phase.PLACE_CATS and state.placed < 0:
            region = state.ships[state.turn]
            if not may_draw(state, region, state.turn):
                return Violation("CANNOT_DRAW_HERE", self._no_draw_reason(state, comp, region), "draw_tiles")
            if not sum(state.lid):
                return Violation("LID_EMPTY", "The box lid is empty: there are no Animal tiles to draw.")
        if not isinstance(move, expected):
            if isinstance(move, Draw):
                return Violation("NOT_A_CHANCE_STEP", f"Nothing is drawn now: {_WAITING[phase]}.", "draw")
            return Violation("WRONG_STEP", f"That move is not part of this step: {_WAITING[phase]}.", "move")
        seat = state.actor
        if isinstance(move, Draw):
            what = {
                Phase.SETUP_DEAL: "no such card is left in the deck being dealt",
                Phase.SETUP_START: f"the starting player is a seat from 0 to {state.players - 1}",
            }.get(phase, "no Animal tile of that kind is left in the box lid")
            return Violation(
                "NO_SUCH_OUTCOME", f"That is not a possible outcome ({move.outcome}): {what}.", "draw.outcome"
            )
        if isinstance(move, ChooseBoard):
            if not 0 <= move.board < comp.boards:
                return Violation(
                    "NO_SUCH_BOARD",
                    f"There is no cat board {move.board}; they are numbered 0 to {comp.boards - 1}.",
                    "choose_board.board",
                )
            return Violation(
                "BOARD_TAKEN",
                f"{comp.board_names[move.board]} is already another player's cat board: "
                "choose another colour.",
                "choose_board.board",
            )
        buff_problem = self._buff_problem(state, comp, move)
        if isinstance(move, Journey):
            return self._explain_journey(state, comp, move, buff_problem)
        if isinstance(move, DrawTiles):
            if buff_problem is not None and move.buff != NONE:
                return buff_problem
            plain, extra = self._draw_counts(state, comp)
            if move.buff != NONE and move.count in plain:
                return Violation(
                    "BUFF_NOT_NEEDED",
                    f"You may draw {move.count} Animal tiles without a Buff: keep your Silfr and Scrolls.",
                    "draw_tiles.buff",
                )
            allowed = plain + (extra if self._buffs(state, comp) else [])
            lid = sum(state.lid)
            if move.count > lid:
                return Violation(
                    "LID_TOO_SMALL",
                    f"Only {_tiles_word(lid)} {'is' if lid == 1 else 'are'} left in the box lid.",
                    "draw_tiles.count",
                )
            return Violation(
                "WRONG_NUMBER_OF_TILES",
                f"You draw {_or(plain)} Animal tiles"
                + (f" ({_or(extra)} with a Buff)" if extra and state.options.buff else "")
                + (f", not {move.count}" if move.count not in allowed else "")
                + _other_draws(comp, state.boards[state.turn])
                + ", then choose 1 to place or put them all back.",
                "draw_tiles.count",
            )
        if isinstance(move, PlaceTile):
            drawn = ", ".join(f"{t} ({comp.tile_name(t)})" for t in sorted(set(state.drawn)))
            return Violation(
                "TILE_NOT_DRAWN",
                f"Place one of the Animal tiles you drew: {drawn}; or put them all back.",
                "place_tile.tile",
            )
        region = state.ships[seat] if seat >= 0 else -1
        if phase is Phase.SETUP_CAT:
            return Violation(
                "SETUP_ONE_CAT",
                f"At setup you place one Kitten or one Big Cat with your Longship, not "
                f"{_describe_cats(move)}.",
                "place_kittens.count" if isinstance(move, PlaceKittens) else "place_big_cat",
            )
        if isinstance(move, PlaceKittens):
            if move.buff != NONE and buff_problem is not None:
                return buff_problem
            if move.count > 0 and state.big_cats[region] >= 0:
                return _BIG_CAT_THERE
            per, left = comp.kittens_per_turn, state.kittens_left[seat]
            more = per + comp.buff_kittens
            if move.buff != NONE and move.count != more:
                if move.count <= per:
                    return Violation(
                        "BUFF_NOT_NEEDED",
                        f"You may place {_kittens_word(max(move.count, 0))} without a Buff: a Buff places "
                        f"{more}.",
                        "place_kittens.buff",
                    )
                return Violation(
                    "TOO_MANY_KITTENS", f"With a Buff you place {more} Kittens.", "place_kittens.count"
                )
            if move.count < 0 or move.count > more or (move.count > per and move.buff == NONE):
                with_buff = f" ({more} with a Buff)" if state.options.buff else ""
                return Violation(
                    "TOO_MANY_KITTENS",
                    f"You can place 0, 1 or {per} of your Kittens{with_buff} or 1 Big Cat.",
                    "place_kittens.count",
                )
            return Violation(
                "NOT_ENOUGH_KITTENS",
                f"Only {_kittens_word(left)} {'is' if left == 1 else 'are'} left on your Cat board."
                if left
                else "You have no Kittens left on your Cat board.",
                "place_kittens.count",
            )
        if isinstance(move, PlaceBigCat):
            if state.big_cats[region] >= 0:
                return _BIG_CAT_THERE
            return Violation(
                "NO_BIG_CAT_LEFT", "You have no Big Cat left on your Cat board.", "place_big_cat"
            )
        if isinstance(move, PickUpCats):
            mine = state.big_cats[region] == seat
            return Violation(
                "NO_CATS_TO_PICK_UP",
                "You have no Kittens in this Region to pick up"
                + (": a placed Big Cat cannot be moved again." if mine else "."),
                "pick_up_cats",
            )
        return Violation("NOT_A_LEGAL_MOVE", "That move is not legal now.", "move")

    def _buff_problem(self, state: State, comp: Components, move: Move) -> Violation | None:
        """Why the Buff a move pays for cannot be paid, or None."""
        buff = getattr(move, "buff", NONE)
        if buff == NONE:
            return None
        field = {Journey: "journey", DrawTiles: "draw_tiles", PlaceKittens: "place_kittens"}[type(move)]
        if buff not in CURRENCY_NAMES:
            return Violation("NO_SUCH_PAYMENT", "A Buff is paid with Silfr or with Scrolls.", f"{field}.buff")
        if not state.options.buff:
            return Violation(
                "BUFFS_OFF",
                "This game is played without the optional Buff rules.",
                f"{field}.buff",
            )
        if state.buffed:
            return Violation("BUFF_USED", "You may Buff only once during your turn.", f"{field}.buff")
        have = (state.silfr if buff == SILFR else state.scrolls)[state.turn]
        if have < comp.buff_cost:
            return Violation(
                "CANNOT_AFFORD_BUFF",
                f"A Buff costs {amount(comp.buff_cost, buff)} (never one of each) and you have "
                f"{amount(have, buff)}.",
                f"{field}.buff",
            )
        return None

    def _explain_journey(
        self, state: State, comp: Components, move: Journey, buff_problem: Violation | None
    ) -> Violation:
        seat = state.turn
        here, to = state.ships[seat], move.region
        if not 0 <= to < comp.regions:
            return Violation(
                "NO_SUCH_REGION",
                f"There is no region {to}; the regions are numbered 0 to {comp.regions - 1}.",
                "journey.region",
            )
        name = comp.region_names[to]
        if not comp.land[to]:
            return Violation(
                "NOT_LAND", f"{name} is sea: you must end your Journey on a Land Region.", "journey.region"
            )
        if to == here and not state.options.return_journeys:
            return Violation(
                "MUST_JOURNEY",
                f"Your Longship is in {name}: journey 1 to {comp.board_steps[state.boards[seat]]} steps to "
                "another Land Region.",
                "journey.region",
            )
        if move.buff != NONE and buff_problem is not None:
            return buff_problem
        steps = comp.board_steps[state.boards[seat]]
        far = comp.dist[here][to] if to != here else RETURN_STEPS
        if move.buff != NONE and far <= steps:
            return Violation(
                "BUFF_NOT_NEEDED",
                f"{name} is {_steps_word(far)} away, within your {steps} steps: no Buff is needed.",
                "journey.buff",
            )
        limit = steps + (comp.buff_steps if move.buff != NONE else 0)
        hint = ""
        if move.buff == NONE and state.options.buff and far <= steps + comp.buff_steps:
            hint = (
                f" A Buff ({comp.buff_cost} Silfr or {comp.buff_cost} Scrolls) would give you "
                f"{_steps_word(comp.buff_steps)} more."
            )
        if far >= UNREACHABLE:
            return Violation(
                "BLACK_LINE",
                f"You can not cross a black line, and black lines close every way to {name}.",
                "journey.region",
            )
        over = comp.dist_open[here][to] if to != here else RETURN_STEPS
        if over <= limit:
            return Violation(
                "BLACK_LINE",
                f"You can not cross a black line: the way to {name} over the black line would be "
                f"{_steps_word(over)}, and the way around it is {_steps_word(far)}, more than your "
                f"{limit}.{hint}",
                "journey.region",
            )
        return Violation(
            "TOO_FAR",
            f"{name} is {_steps_word(far)} away (crossing a white line counts as 1 step); you may journey "
            f"up to {limit} steps.{hint}",
            "journey.region",
        )

    def _no_draw_reason(self, state: State, comp: Components, region: int) -> str:
        friend = state.friends[region]
        who = "nobody" if friend < 0 else _who(friend)
        return (
            f"You can draw Animal tiles only in an empty Region or in a Region where you have a Friend: "
            f"{comp.region_names[region]} has an Animal tile and {who} is Friends with its animals."
        )

    # -- applying -----------------------------------------------------------------

    def apply(self, state: State, move: Move) -> tuple[State, list[Event]]:
        events: list[Event] = []
        state = state._replace(ply=state.ply + 1)
        comp = _comp(state)
        if isinstance(move, Draw):
            return self._draw(state, move, comp, events), events
        seat = state.actor
        if isinstance(move, Journey):
            return self._journey(state, move, comp, events), events
        if isinstance(move, PlaceKittens | PlaceBigCat | PickUpCats):
            return self._cats(state, move, comp, events), events
        if isinstance(move, DrawTiles):
            if move.buff != NONE:
                state = self._pay(state, comp, move.buff, f"draw {comp.buff_tiles} more Animal tile", events)
            events.append(
                Event(
                    "DRAWING_TILES",
                    f"{_who(seat)} draws {_tiles_word(move.count)} from the box lid.",
                    seat,
                    EventDetail(state.ships[seat], count=move.count),
                )
            )
            return state._replace(phase=Phase.DRAWING, to_draw=move.count), events
        if isinstance(move, SkipDraw):
            events.append(Event("DRAW_SKIPPED", f"{_who(seat)} draws no Animal tiles.", seat))
            return state._replace(phase=Phase.PLACE_CATS), events
        if isinstance(move, PlaceTile):
            region = state.ships[seat]
            rest = list(state.drawn)
            rest.remove(move.tile)
            lid = state.lid
            for t in rest:
                lid = _add(lid, t, 1)
            events.append(
                Event(
                    "TILE_PLACED",
                    f"{_who(seat)} placed {comp.tile_name(move.tile)} face up in "
                    f"{comp.region_names[region]}.",
                    seat,
                    EventDetail(region, (move.tile,)),
                )
            )
            if rest:
                events.append(
                    Event(
                        "TILES_RETURNED",
                        f"{_who(seat)} put {_tiles_word(len(rest), 'other ')} back face down into the "
                        "box lid.",
                        seat,
                        EventDetail(region, tuple(rest)),
                    )
                )
            tiles = _set(state.tiles, region, (*state.tiles[region], move.tile))
            return state._replace(
                phase=Phase.PLACE_CATS, tiles=tiles, lid=lid, drawn=(), placed=move.tile
            ), events
        if isinstance(move, ReturnTiles):
            lid = state.lid
            for t in state.drawn:
                lid = _add(lid, t, 1)
            events.append(
                Event(
                    "TILES_RETURNED",
                    f"{_who(seat)} put {_tiles_word(len(state.drawn), 'drawn ')} back face down into the "
                    "box lid.",
                    seat,
                    EventDetail(state.ships[seat], state.drawn),
                )
            )
            return state._replace(phase=Phase.PLACE_CATS, lid=lid, drawn=()), events
        if isinstance(move, ChooseBoard):
            b = move.board
            events.append(
                Event(
                    "BOARD_CHOSEN",
                    f"{_who(seat)} plays {comp.board_colours[b]} with the cat board {comp.board_names[b]} "
                    f"({comp.data['cat_boards']['boards'][b]['ability']})",
                    seat,
                    EventDetail(count=b),
                )
            )
            state = state._replace(
                boards=_set(state.boards, seat, b),
                kittens_left=_set(state.kittens_left, seat, comp.board_kittens[b]),
                big_cats_left=_set(state.big_cats_left, seat, comp.board_big_cats[b]),
            )
            return self._setup(state, comp, events), events
        raise AssertionError(f"unknown move {move!r}")

    def _pay(self, state: State, comp: Components, buff: int, what: str, events: list[Event]) -> State:
        seat, cost = state.turn, comp.buff_cost
        if buff == SILFR:
            state = state._replace(silfr=_add(state.silfr, seat, -cost))
        else:
            state = state._replace(scrolls=_add(state.scrolls, seat, -cost))
        events.append(
            Event(
                "BUFF",
                f"{_who(seat)} spent {cost} {CURRENCY_NAMES[buff]} on a Buff to {what}.",
                seat,
                EventDetail(silfr=cost if buff == SILFR else 0, scrolls=cost if buff == SCROLLS else 0),
            )
        )
        return state._replace(buffed=True)

    # -- chance ---------------------------------------------------------------------

    def _draw(self, state: State, move: Draw, comp: Components, events: list[Event]) -> State:
        phase = state.phase
        value = move.outcome
        rng = state.rng
        if phase is Phase.DRAWING or phase is Phase.SETUP_TILE:
            if value is None:
                value, rng = _pick_tile(state.lid, rng)
            seat = state.actor
            lid = _add(state.lid, value, -1)
            if phase is Phase.SETUP_TILE:
                region = state.ships[seat]
                events.append(
                    Event(
                        "SETUP_TILE",
                        f"{_who(seat)} drew {comp.tile_name(value)} and placed it face up in "
                        f"{comp.region_names[region]}.",
                        seat,
                        EventDetail(region, (value,)),
                    )
                )
                tiles = _set(state.tiles, region, (*state.tiles[region], value))
                return state._replace(rng=rng, lid=lid, tiles=tiles, phase=Phase.SETUP_CAT)
            events.append(
                Event(
                    "TILE_DRAWN",
                    f"{_who(seat)} drew {comp.tile_name(value)}.",
                    seat,
                    EventDetail(state.ships[seat], (value,)),
                )
            )
            left = state.to_draw - 1
            return state._replace(
                rng=rng,
                lid=lid,
                drawn=(*state.drawn, value),
                to_draw=left,
                phase=Phase.DRAWING if left else Phase.CHOOSE_TILE,
            )
        if phase is Phase.SETUP_DEAL:
            if value is None:
                rest = self._deck_rest(state, comp)
                i, rng = rng.below(len(rest))
                value = rest[i]
            events.append(_card_event(comp, value, "dealt face up"))
            return self._setup(state._replace(cards=(*state.cards, value), rng=rng), comp, events)
        # SETUP_START
        if value is None:
            value, rng = rng.below(state.players)
        events.append(Event("STARTING_PLAYER", f"{_who(value)} is the starting player.", value))
        return self._setup(state._replace(start=value, rng=rng), comp, events)

    # -- setup -------------------------------------------------------------------------

    def _setup(self, state: State, comp: Components, events: list[Event]) -> State:
        """Lay out what needs no decision and no draw, up to the next setup step (or the first turn)."""
        plan = deal_plan(comp, state.options)
        total = sum(k for _, _, k in plan)
        while len(state.cards) < total:
            colour, whole, _ = self._slot(state, comp)
            if not whole:
                return state._replace(phase=Phase.SETUP_DEAL, actor=-1)
            for c in range(comp.cards):
                if comp.card_colour[c] == colour:
                    events.append(_card_event(comp, c, "placed face up"))
                    state = state._replace(cards=(*state.cards, c))
        n = state.players
        if state.start < 0:
            if state.options.starting_seat < 0:
                return state._replace(phase=Phase.SETUP_START, actor=-1)
            s = state.options.starting_seat
            events.append(Event("STARTING_PLAYER", f"{_who(s)} is the starting player.", s))
            state = state._replace(start=s)
        start = state.start
        for k in range(n):
            seat = (start + k) % n
            if state.boards[seat] < 0:
                return state._replace(phase=Phase.SETUP_BOARD, actor=seat, turn=seat)
        if state.step < n:
            seat = (start + state.step) % n
            region = comp.board_shield[state.boards[seat]]
            events.append(
                Event(
                    "LONGSHIP_PLACED",
                    f"{_who(seat)}'s Longship starts on their shield in {comp.region_names[region]}.",
                    seat,
                    EventDetail(region),
                )
            )
            return state._replace(
                phase=Phase.SETUP_TILE, actor=seat, turn=seat, ships=_set(state.ships, seat, region)
            )
        return self._start_turn(state._replace(step=0), start, events)

    def _start_turn(self, state: State, seat: int, events: list[Event]) -> State:
        events.append(Event("TURN_STARTED", f"{_who(seat)}'s turn.", seat))
        return state._replace(
            phase=Phase.JOURNEY, actor=seat, turn=seat, drawn=(), to_draw=0, buffed=False, placed=-1
        )

    # -- the turn --------------------------------------------------------------------

    def _journey(self, state: State, move: Journey, comp: Components, events: list[Event]) -> State:
        seat = state.turn
        here, to = state.ships[seat], move.region
        if move.buff != NONE:
            state = self._pay(state, comp, move.buff, f"journey {comp.buff_steps} more step", events)
        steps = comp.dist[here][to] if to != here else RETURN_STEPS
        route = (
            f"from {comp.region_names[here]} to {comp.region_names[to]}"
            if to != here
            else f"out from {comp.region_names[here]} and back"
        )
        events.append(
            Event(
                "JOURNEY",
                f"{_who(seat)} journeyed {route} ({_steps_word(steps)}).",
                seat,
                EventDetail(to, count=steps),
            )
        )
        state = state._replace(ships=_set(state.ships, seat, to))
        if not sum(state.lid):
            events.append(
                Event("NO_DRAW", "The box lid is empty: no Animal tiles can be drawn.", seat, EventDetail(to))
            )
            return state._replace(phase=Phase.PLACE_CATS)
        if not may_draw(state, to, seat):
            events.append(Event("NO_DRAW", self._no_draw_reason(state, comp, to), seat, EventDetail(to)))
            return state._replace(phase=Phase.PLACE_CATS)
        return state._replace(phase=Phase.DRAW_OFFER)

    def _cats(
        self,
        state: State,
        move: PlaceKittens | PlaceBigCat | PickUpCats,
        comp: Components,
        events: list[Event],
    ) -> State:
        seat = state.actor
        region = state.ships[seat]
        name = comp.region_names[region]
        before = state.friends[region]
        placed_cat = True
        if isinstance(move, PlaceKittens):
            if move.buff != NONE:
                state = self._pay(state, comp, move.buff, f"place {comp.buff_kittens} more Kitten", events)
            k = move.count
            placed_cat = k > 0
            if k:
                row = _add(state.kittens[region], seat, k)
                state = state._replace(
                    kittens=_set(state.kittens, region, row),
                    kittens_left=_add(state.kittens_left, seat, -k),
                )
                events.append(
                    Event(
                        "KITTENS_PLACED",
                        f"{_who(seat)} placed {_kittens_word(k)} in {name}.",
                        seat,
                        EventDetail(region, count=k),
                    )
                )
            else:
                events.append(
                    Event("NO_CATS_PLACED", f"{_who(seat)} placed no Cats.", seat, EventDetail(region))
                )
        elif isinstance(move, PlaceBigCat):
            row = state.kittens[region]
            home = tuple(s for s, k in enumerate(row) if k)
            events.append(
                Event(
                    "BIG_CAT_PLACED",
                    f"{_who(seat)} placed a Big Cat in {name}: no new Cats can be added there for the rest "
                    "of the game.",
                    seat,
                    EventDetail(region, count=1),
                )
            )
            if home:
                events.append(
                    Event(
                        "KITTENS_SENT_HOME",
                        f"The Big Cat sends {_kittens_word(sum(row))} in {name} back to their Cat boards.",
                        seat,
                        EventDetail(region, count=sum(row), seats=home),
                    )
                )
            left = tuple(a + b for a, b in zip(state.kittens_left, row, strict=True))
            state = state._replace(
                kittens=_set(state.kittens, region, (0,) * state.players),
                kittens_left=left,
                big_cats=_set(state.big_cats, region, seat),
                big_cats_left=_add(state.big_cats_left, seat, -1),
            )
        else:
            k = state.kittens[region][seat]
            placed_cat = False
            state = state._replace(
                kittens=_set(state.kittens, region, _set(state.kittens[region], seat, 0)),
                kittens_left=_add(state.kittens_left, seat, k),
            )
            events.append(
                Event(
                    "CATS_PICKED_UP",
                    f"{_who(seat)} picked up {_kittens_word(k)} from {name}.",
                    seat,
                    EventDetail(region, count=k),
                )
            )
        after = friend_of(state, region, before)
        state = state._replace(friends=_set(state.friends, region, after))
        if state.phase is Phase.SETUP_CAT:
            if after >= 0:
                events.append(_friends_event(comp, state, region, after))
            state = state._replace(step=state.step + 1)
            return self._setup(state, comp, events)
        # the animals another player was Friends with: the tiles there before this turn's tile
        befriended = state.tiles[region][:-1] if state.placed >= 0 else state.tiles[region]
        if after != before:
            if after == seat and before >= 0 and befriended:
                events.append(
                    Event(
                        "FRIEND_STOLEN",
                        f"{_who(seat)} stole the friendship of the animals in {name} from {_who(before)}.",
                        seat,
                        EventDetail(region, befriended, seats=(before,)),
                    )
                )
                if comp.board_steal_gain[state.boards[seat]]:
                    for t in befriended:
                        state = self._gain(state, comp, seat, t, "for the stolen Friend", events)
            elif after >= 0:
                events.append(_friends_event(comp, state, region, after))
            elif state.tiles[region]:
                events.append(
                    Event(
                        "FRIENDSHIP_LOST",
                        f"Nobody is Friends with the animals in {name} now.",
                        before,
                        EventDetail(region, state.tiles[region], seats=(before,)),
                    )
                )
        if state.placed >= 0 and placed_cat:
            state = self._gain(state, comp, seat, state.placed, "from the Animal tile placed", events)
        return self._end_of_turn(state, comp, seat, events)

    def _gain(
        self, state: State, comp: Components, seat: int, tile: int, why: str, events: list[Event]
    ) -> State:
        """``seat`` gains the Silfr and Scrolls on ``tile`` (Huginn and Munin add 1 to a gain of 1)."""
        board = state.boards[seat]
        silfr, scrolls = comp.tile_silfr[tile], comp.tile_scrolls[tile]
        bonus = []
        if silfr == 1 and comp.board_silfr_bonus[board]:
            silfr += 1
            bonus.append(f"{comp.board_names[board]} adds 1 Silfr")
        if scrolls == 1 and comp.board_scrolls_bonus[board]:
            scrolls += 1
            bonus.append(f"{comp.board_names[board]} adds 1 Scroll")
        if not silfr and not scrolls:
            return state
        events.append(
            Event(
                "GAINED",
                f"{_who(seat)} gains {amounts(silfr, scrolls)} {why}"
                + (f" ({'; '.join(bonus)})" if bonus else "")
                + ".",
                seat,
                EventDetail(tiles=(tile,), silfr=silfr, scrolls=scrolls),
            )
        )
        return state._replace(
            silfr=_add(state.silfr, seat, silfr), scrolls=_add(state.scrolls, seat, scrolls)
        )

    def _end_of_turn(self, state: State, comp: Components, seat: int, events: list[Event]) -> State:
        """The victory check of the player whose turn ends, then the next player's turn."""
        have = friend_animals(state, comp, seat)
        for card in state.cards:
            if fulfils(state, comp, seat, card, have):
                events.append(
                    Event(
                        "VICTORY",
                        f"{_who(seat)} fulfilled the {comp.card_colour[card]} victory card "
                        f"\u201c{comp.card_names[card]}\u201d and wins!",
                        seat,
                        EventDetail(card=card),
                    )
                )
                return state._replace(
                    phase=Phase.OVER, actor=-1, winner=seat, won_card=card, placed=-1, buffed=False
                )
        return self._start_turn(state, (seat + 1) % state.players, events)

    # -- invariants ------------------------------------------------------------------

    def check_state(self, state: State) -> list[FieldViolation]:
        try:
            comp = _comp(state)
        except ComponentsError as err:
            return [FieldViolation("options.components", str(err))]
        n = state.players
        if not self.min_players <= n <= self.max_players:
            return [FieldViolation("players", f"must be {self.min_players} to {self.max_players}")]
        problems = [
            FieldViolation(f"options.{v.field}", v.description)
            for v in self.option_problems(state.options, n)
        ]
        if problems:
            return problems
        add = problems.append
        per_seat = {
            "boards": state.boards,
            "ships": state.ships,
            "silfr": state.silfr,
            "scrolls": state.scrolls,
            "kittens_left": state.kittens_left,
            "big_cats_left": state.big_cats_left,
        }
        short = next((name for name, t in per_seat.items() if len(t) != n), None)
        if short is not None:
            return [FieldViolation(short, f"every per-player list needs {n} entries")]
        if len(state.lid) != comp.tiles:
            return [FieldViolation("lid", f"counts each of the {comp.tiles} kinds of Animal tile")]
        regions = comp.regions
        if (
            len(state.tiles) != regions
            or len(state.kittens) != regions
            or len(state.big_cats) != regions
            or len(state.friends) != regions
        ):
            return [FieldViolation("regions", f"describe each of the {regions} regions of the map")]
        if any(len(row) != n for row in state.kittens):
            return [FieldViolation("regions", f"count the Kittens of each of the {n} players")]
        chosen = [b for b in state.boards if b >= 0]
        if any(not -1 <= b < comp.boards for b in state.boards) or len(set(chosen)) != len(chosen):
            return [FieldViolation("boards", "each player has a cat board of their own (-1 until chosen)")]
        if state.options.seat_boards and state.boards != tuple(
            comp.board_ids.index(b) for b in state.options.seat_boards
        ):
            add(FieldViolation("boards", "must be the cat boards the options give the seats"))
        for s, r in enumerate(state.ships):
            if r != -1 and not (0 <= r < regions and comp.land[r]):
                add(FieldViolation(f"players[{s}].ship", "stands in a land region (or -1 before setup)"))
        kinds = comp.tiles
        all_tiles = [t for row in state.tiles for t in row] + list(state.drawn)
        kinds_wrong = [
            name
            for name, bad in (
                ("tiles", any(not 0 <= t < kinds for row in state.tiles for t in row)),
                ("drawn", any(not 0 <= t < kinds for t in state.drawn)),
                ("lid", any(k < 0 for k in state.lid)),
            )
            if bad
        ]
        if kinds_wrong:
            words = f"Animal tiles are kinds 0 to {kinds - 1}, counts are not negative"
            return [FieldViolation(name, words) for name in kinds_wrong]
        counts = list(state.lid)
        for t in all_tiles:
            counts[t] += 1
        if counts != list(comp.tile_copies):
            add(
                FieldViolation(
                    "lid", "every Animal tile is in the box lid, drawn, or on the map exactly once"
                )
            )
        for r in range(regions):
            if comp.land[r]:
                continue
            if state.tiles[r] or any(state.kittens[r]) or state.big_cats[r] != -1:
                add(FieldViolation(f"regions[{r}]", "Animal tiles and Cats are placed on land only"))
        for r, row in enumerate(state.kittens):
            if any(k < 0 for k in row):
                add(FieldViolation(f"kittens[{r}]", "Kitten counts cannot be negative"))
        for seat, k in enumerate(state.kittens_left):
            if k < 0:
                add(FieldViolation(f"kittens_left[{seat}]", "Kitten counts cannot be negative"))
        for r, owner in enumerate(state.big_cats):
            if not -1 <= owner < n:
                add(FieldViolation(f"big_cats[{r}]", "a region's Big Cat belongs to a seat (-1 = none)"))
        for seat, k in enumerate(state.big_cats_left):
            if k < 0:
                add(FieldViolation(f"big_cats_left[{seat}]", "Big Cat counts cannot be negative"))
        for r, friend in enumerate(state.friends):
            if not -1 <= friend < n:
                add(FieldViolation(f"friends[{r}]", "a region's Friend is a seat (-1 = none)"))
        for name, coins in (("silfr", state.silfr), ("scrolls", state.scrolls)):
            for seat, v in enumerate(coins):
                if v < 0:
                    add(FieldViolation(f"{name}[{seat}]", "Silfr and Scrolls cannot be negative"))
        if problems:
            return problems
        for s in range(n):
            b = state.boards[s]
            on_map = sum(row[s] for row in state.kittens)
            big_on_map = state.big_cats.count(s)
            kittens = comp.board_kittens[b] if b >= 0 else 0
            bigs = comp.board_big_cats[b] if b >= 0 else 0
            if on_map + state.kittens_left[s] != kittens or big_on_map + state.big_cats_left[s] != bigs:
                add(
                    FieldViolation(
                        f"players[{s}]",
                        f"has {kittens} Kittens and {bigs} Big Cats, on the map or on the cat board",
                    )
                )
        for r in range(regions):
            if state.big_cats[r] >= 0 and any(state.kittens[r]):
                add(
                    FieldViolation(
                        f"regions[{r}]", "a Big Cat sends every Kitten home: none share its region"
                    )
                )
            elif friend_of(state, r, state.friends[r]) != state.friends[r]:
                add(
                    FieldViolation(
                        f"friends[{r}]",
                        "must be the player with a Big Cat or the most Kittens there (on a tie, per the "
                        "kitten_tie option)",
                    )
                )
        problems.extend(self._card_problems(state, comp))
        if not problems:
            problems.extend(self._phase_problems(state, comp))
        ply_problem = check_ply(state.ply)
        if ply_problem is not None:
            add(ply_problem)
        return problems

    def _card_problems(self, state: State, comp: Components) -> list[FieldViolation]:
        cards = state.cards
        if any(not 0 <= c < comp.cards for c in cards) or len(set(cards)) != len(cards):
            return [
                FieldViolation("cards", f"the face-up victory cards are distinct cards 0 to {comp.cards - 1}")
            ]
        at = 0
        for colour, whole, k in deal_plan(comp, state.options):
            deck = [c for c in range(comp.cards) if comp.card_colour[c] == colour]
            for i in range(k):
                if at >= len(cards):
                    return []
                c = cards[at]
                if comp.card_colour[c] != colour or (whole and c != deck[i]):
                    return [
                        FieldViolation(
                            f"cards[{at}]",
                            f"must be a {colour} card: the variant lays out "
                            + ", ".join(f"{kk} {cc}" for cc, _, kk in deal_plan(comp, state.options)),
                        )
                    ]
                at += 1
        if at < len(cards):
            return [FieldViolation("cards", f"the variant lays out {at} victory cards")]
        return []

    def _phase_problems(self, state: State, comp: Components) -> list[FieldViolation]:
        """The invariants each phase needs, so that no decoded state can trip the engine."""
        n, phase = state.players, state.phase
        out: list[FieldViolation] = []
        add = out.append
        total = sum(k for _, _, k in deal_plan(comp, state.options))
        dealt = len(state.cards) == total
        map_empty = (
            not any(state.tiles) and not any(any(row) for row in state.kittens) and max(state.big_cats) < 0
        )
        if not (-1 <= state.actor < n and 0 <= state.turn < n and -1 <= state.start < n):
            return [FieldViolation("actor", "actor, turn and the starting seat are seats")]
        if not -1 <= state.placed < comp.tiles or state.to_draw < 0 or state.step < 0:
            return [
                FieldViolation("placed", "placed is a kind of tile or -1; to_draw and step are not negative")
            ]
        if phase is not Phase.OVER and (state.winner != -1 or state.won_card != -1):
            add(FieldViolation("winner", "is set only when the game is over"))
        if phase not in (Phase.DRAWING, Phase.CHOOSE_TILE) and (state.drawn or state.to_draw):
            add(FieldViolation("drawn", "tiles are drawn only while a draw is made and chosen from"))
        if state.placed >= 0 and phase is not Phase.PLACE_CATS:
            add(FieldViolation("placed", "names the tile placed this turn until the Cats are placed"))
        if state.buffed and (not state.options.buff or phase not in TURN_PHASES or phase is Phase.JOURNEY):
            add(FieldViolation("buffed", "a Buff is used during a turn, with the Buff option"))
        if out:
            return out
        why = ""
        want_actor = state.turn
        if phase in SETUP_PHASES:
            if state.step > n or (state.step and phase not in (Phase.SETUP_TILE, Phase.SETUP_CAT)):
                why = "the setup of the Longships goes seat by seat"
            elif any(state.silfr) or any(state.scrolls):
                why = "no coins are dealt out during the setup"
            elif phase is Phase.SETUP_DEAL:
                want_actor = -1
                if dealt or state.start != -1 or not map_empty or max(state.ships) != -1:
                    why = "the victory cards are dealt first"
                elif self._slot(state, comp)[1]:
                    why = "a colour laid out whole is not dealt"
            elif phase is Phase.SETUP_START:
                want_actor = -1
                if not dealt or state.start != -1 or state.options.starting_seat != -1 or not map_empty:
                    why = "the starting player is drawn after the cards are laid out"
            elif not dealt or state.start < 0:
                why = "the Longships are set up once the cards and the starting player are known"
            elif phase is Phase.SETUP_BOARD:
                order = [(state.start + k) % n for k in range(n)]
                want_actor = next((s for s in order if state.boards[s] < 0), -2)
                if not map_empty or max(state.ships) != -1 or state.turn != want_actor:
                    why = "the cat boards are chosen before the Longships are set up"
            else:  # SETUP_TILE, SETUP_CAT
                why = self._setup_problem(state, comp)
                want_actor = (state.start + state.step) % n
        elif phase in TURN_PHASES:
            if not dealt or state.start < 0 or min(state.boards) < 0 or min(state.ships) < 0 or state.step:
                why = "turns begin once every Longship is set up"
            elif phase is Phase.JOURNEY:
                if state.buffed or state.placed >= 0:
                    why = "a turn begins with the journey"
            else:
                region = state.ships[state.turn]
                lid = sum(state.lid)
                if phase is Phase.DRAW_OFFER and (not lid or not may_draw(state, region, state.turn)):
                    why = "tiles are drawn from a non-empty lid in an empty Region or where you have a Friend"
                elif phase is Phase.DRAWING and (
                    not state.to_draw or lid < state.to_draw or not may_draw(state, region, state.turn)
                ):
                    why = "a tile is left to draw from the box lid"
                elif phase is Phase.CHOOSE_TILE and not state.drawn:
                    why = "drawn tiles wait to be placed or returned"
                elif (
                    phase is Phase.PLACE_CATS
                    and state.placed >= 0
                    and (not state.tiles[region] or state.tiles[region][-1] != state.placed)
                ):
                    why = "the tile placed this turn lies next to the Longship"
                if (
                    phase in (Phase.DRAWING, Phase.CHOOSE_TILE)
                    and len(state.drawn) + state.to_draw
                    > max(comp.board_draws[state.boards[state.turn]]) + comp.buff_tiles
                ):
                    why = "no player draws that many tiles"
        else:  # OVER
            want_actor = -1
            if not (
                0 <= state.winner < n
                and state.won_card in state.cards
                and dealt
                and min(state.ships) >= 0
                and fulfils(state, comp, state.winner, state.won_card)
            ):
                why = "a finished game names its winner and the victory card they fulfilled"
        if why:
            add(FieldViolation("phase", f"{phase.value}: {why}"))
        if state.actor != want_actor:
            add(FieldViolation("actor", f"must be {want_actor} in {phase.value}"))
        return out

    def _setup_problem(self, state: State, comp: Components) -> str:
        """What is wrong with a state while the Longships are set up (SETUP_TILE, SETUP_CAT), or ""."""
        n, step, start = state.players, state.step, state.start
        if min(state.boards) < 0 or step >= n:
            return "the Longships are set up once every cat board is chosen"
        seat = (start + step) % n
        if state.turn != seat:
            return "the seat being set up is on turn"
        cat_phase = state.phase is Phase.SETUP_CAT
        for k in range(n):
            s = (start + k) % n
            shield = comp.board_shield[state.boards[s]]
            done = k < step
            if state.ships[s] != (shield if k <= step else -1):
                return "each Longship starts on its shield, seat by seat"
            want_tiles = 1 if done or (k == step and cat_phase) else 0
            if len(state.tiles[shield]) != want_tiles:
                return "each Longship is set up with one face-up Animal tile"
            cats = state.kittens[shield][s] + (1 if state.big_cats[shield] == s else 0)
            if cats != (1 if done else 0) or (
                done and state.big_cats[shield] != s and state.kittens[shield][s] != comp.setup_kittens
            ):
                return "each Longship is set up with one Kitten or one Big Cat"
        placed = sum(len(row) for row in state.tiles)
        cats = sum(sum(row) for row in state.kittens) + sum(1 for b in state.big_cats if b >= 0)
        if placed != step + cat_phase or cats > step * comp.setup_kittens:
            return "nothing but the setup tiles and Cats is on the map"
        return ""

    # -- description -------------------------------------------------------------------

    def describe(self) -> Description:
        comp = REFERENCE
        data = {
            "map": comp.drawing,
            "animals": comp.data["tiles"]["animals"],
            "tiles": [
                {
                    "index": t,
                    "name": comp.tile_name(t),
                    "animal": comp.animal_ids[comp.tile_animal[t]],
                    "animals": comp.tile_count[t],
                    "silfr": comp.tile_silfr[t],
                    "scrolls": comp.tile_scrolls[t],
                    "copies": comp.tile_copies[t],
                }
                for t in range(comp.tiles)
            ],
            "victory_cards": [
                {"index": c, "name": comp.card_names[c], **comp.data["victory_cards"]["cards"][c]}
                for c in range(comp.cards)
            ],
            "cat_boards": [
                {
                    "index": b,
                    "region": comp.region_ids[comp.board_shield[b]],
                    **comp.data["cat_boards"]["boards"][b],
                }
                for b in range(comp.boards)
            ],
            "rules": comp.data["rules"],
            "indices": "Moves and states name regions, Animal tile kinds, victory cards and cat boards by "
            "their index in map.regions, tiles, victory_cards and cat_boards (0-based).",
            "components": REFERENCE_DATA,
        }
        return Description(OPTIONS, data, ASSUMPTIONS)


def _pick_tile(lid: tuple[int, ...], rng: Rng) -> tuple[int, Rng]:
    """A tile drawn uniformly from the box lid: its kind and the advanced RNG."""
    r, rng = rng.below(sum(lid))
    for kind, k in enumerate(lid):
        if r < k:
            return kind, rng
        r -= k
    raise AssertionError("the box lid is empty")


def _black_pairs(comp: Components) -> frozenset[tuple[int, int]]:
    """The pairs of regions (lower index first) separated by a black line."""
    found: frozenset[tuple[int, int]] | None = comp.cache.get("black")
    if found is None:
        index = {rid: i for i, rid in enumerate(comp.region_ids)}
        pairs = (x["between"] for x in comp.drawing["borders"] if x["line"] == "black")
        found = frozenset((min(index[a], index[b]), max(index[a], index[b])) for a, b in pairs)
        comp.cache["black"] = found
    return found


def _card_event(comp: Components, card: int, how: str) -> Event:
    return Event(
        "VICTORY_CARD",
        f"The {comp.card_colour[card]} victory card \u201c{comp.card_names[card]}\u201d is {how}.",
        None,
        EventDetail(card=card),
    )


def _friends_event(comp: Components, state: State, region: int, seat: int) -> Event:
    name = comp.region_names[region]
    text = (
        f"{_who(seat)} is now Friends with the animals in {name}."
        if state.tiles[region]
        else f"{_who(seat)} now has the most Cats in {name}."
    )
    return Event("FRIENDS", text, seat, EventDetail(region, state.tiles[region], seats=(seat,)))


def _steps_word(k: int) -> str:
    return "1 step" if k == 1 else f"{k} steps"


def amount(k: int, currency: int) -> str:
    """E.g. "1 Scroll", "3 Silfr"."""
    if currency == SCROLLS:
        return "1 Scroll" if k == 1 else f"{k} Scrolls"
    return f"{k} Silfr"


def _other_draws(comp: Components, board: int) -> str:
    """What other cat boards may draw, e.g. " (Sleipnir may draw 2 or 3)"."""
    mine = comp.board_draws[board]
    others = [f"{comp.board_names[b]} may draw {_or(d)}" for b, d in enumerate(comp.board_draws) if d != mine]
    return f" ({'; '.join(others)})" if others else ""


def _or(values: Sequence[int]) -> str:
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _describe_cats(move: Move) -> str:
    if isinstance(move, PlaceKittens):
        return _kittens_word(move.count) + (" with a Buff" if move.buff else "")
    return "that"


_BIG_CAT_THERE = Violation(
    "BIG_CAT_IN_REGION",
    "No new Kittens or Big Cats can be added to a Region with a Big Cat in it.",
    "place_kittens.count",
)

_EXPECTED: dict[Phase, tuple[type, ...]] = {
    Phase.SETUP_DEAL: (Draw,),
    Phase.SETUP_START: (Draw,),
    Phase.SETUP_BOARD: (ChooseBoard,),
    Phase.SETUP_TILE: (Draw,),
    Phase.SETUP_CAT: (PlaceKittens, PlaceBigCat),
    Phase.JOURNEY: (Journey,),
    Phase.DRAW_OFFER: (DrawTiles, SkipDraw),
    Phase.DRAWING: (Draw,),
    Phase.CHOOSE_TILE: (PlaceTile, ReturnTiles),
    Phase.PLACE_CATS: (PlaceKittens, PlaceBigCat, PickUpCats),
}

_WAITING = {
    Phase.SETUP_DEAL: "a victory card is being dealt",
    Phase.SETUP_START: "the starting player is being drawn",
    Phase.SETUP_BOARD: "a player chooses their colour and cat board",
    Phase.SETUP_TILE: "the face-up Animal tile for a Longship is being drawn",
    Phase.SETUP_CAT: "a player places one Kitten or one Big Cat with their Longship",
    Phase.JOURNEY: "journey with your Longship",
    Phase.DRAW_OFFER: "draw Animal tiles from the box lid, or do not",
    Phase.DRAWING: "an Animal tile is being drawn",
    Phase.CHOOSE_TILE: "place one of the drawn Animal tiles or put them back",
    Phase.PLACE_CATS: "place Cats or pick up your Cats in the Region",
    Phase.OVER: "the game is over",
}

OPTIONS = (
    OptionInfo(
        "victory_cards",
        "Which victory cards are laid out: STANDARD, the 2 red cards (12 Silfr, 12 Scrolls) with 2 green "
        "and 1 yellow; LONGER, the rulebook's Victory Cards Variant for a longer game: no red cards, 2 "
        "green and 2 yellow.",
        "PAX_VIKING_JUNIOR_VICTORY_CARDS_STANDARD",
        ("PAX_VIKING_JUNIOR_VICTORY_CARDS_STANDARD", "PAX_VIKING_JUNIOR_VICTORY_CARDS_LONGER"),
    ),
    OptionInfo(
        "buff",
        "Play with the optional Buff rules: once during a turn a player may spend 2 Silfr or 2 Scrolls for "
        "1 more step, 1 more Animal tile drawn or 1 more Kitten placed.",
        "false",
        ("true", "false"),
    ),
    OptionInfo(
        "starting_seat",
        "The seat (0-based) of the starting player, e.g. the player who most recently petted a cat or "
        "the previous winner; unset: the starting player is drawn at random (a chance step).",
        "",
    ),
    OptionInfo(
        "seat_boards",
        'The cat board id of each seat (e.g. ["bygul", "trjegul"]); empty: each player chooses a '
        "colour and cat board at setup, the starting player first.",
        "[]",
    ),
    OptionInfo(
        "kitten_tie",
        "Who is Friends with a region's animals when players tie for the most Kittens there: "
        "FRIEND_KEEPS, the current Friend keeps them (stealing takes more Kittens); NOBODY, nobody is.",
        "PAX_VIKING_JUNIOR_KITTEN_TIE_FRIEND_KEEPS",
        ("PAX_VIKING_JUNIOR_KITTEN_TIE_FRIEND_KEEPS", "PAX_VIKING_JUNIOR_KITTEN_TIE_NOBODY"),
    ),
    OptionInfo(
        "return_journeys",
        "A journey may end where it began, going out and back (2 steps): the Longship stays. By default "
        "a journey must end on another land region.",
        "false",
        ("true", "false"),
    ),
    OptionInfo(
        "components",
        "JSON text of an object replacing any of the reference components' sections ("
        + ", ".join(SECTIONS)
        + ") in the shape served under data.components; empty: the reference set. It is validated like "
        "the reference set.",
        "",
    ),
)

ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        "REFERENCE_MAP",
        "Components - 1 Map ... Land surrounded by white/black lines are called Land Regions. The blue lines "
        "are Rivers and does not effect your Journey.",
        "The map was a picture; the reference map (map.json, served as data.map) is an island of 21 land "
        "regions with 2 small islands (Puffin Isle, Seal Skerry), ringed by 8 sea areas, drawn on a 24 x 16 "
        "grid. Three mountain ridges are black lines (Elk Forest-Frost Fells, Mead Hall Fields-Loom Valley, "
        "Troll Bridge-Amber Shore); two rivers are drawn. The six shields stand on coastal regions spread "
        "around the island (Northwind Point, Eagle Cliffs, Whale Rocks, Sandy Bay, Fisher Cove, Western "
        "Dunes), 2 to 3 steps from their neighbours, so any 2 to 6 of them give every player a home coast "
        "of their own and a shared middle (Thing Mound, Smith's Vale, Honey Meadows border 6 land regions "
        "each). "
        "From each shield 12 to 17 land regions lie within 3 steps; the least central shield "
        "(Northwind Point, 12) belongs to Bygul, whose 4 steps reach 20.",
        "components",
    ),
    Assumption(
        "SEA_AND_STEPS",
        "Crossing a white line counts as 1 step. You can not cross a black line and you must end your "
        "Journey on a Land Region.",
        "Land regions and sea areas are all regions; every line between two of them is white (1 step) "
        "unless the map lists it as black. A Longship sails through sea areas and over land regions alike "
        "(each crossing is a step) and ends on a land region. A journey is named by its destination and "
        "costs the fewest steps it needs; the destination must be another land region: a journey takes the "
        "Longship somewhere (the other reading, a journey out and back in 2 steps that leaves the Longship "
        "where it was, is the option). Longships may share a region.",
        "return_journeys",
    ),
    Assumption(
        "ANIMAL_TILES",
        "54 Animal tiles ... Gain Silfr/Scrolls stated on the Animal tile.",
        "6 animals (Pig, Sheep, Cow, Goat, Horse, Hen), 9 tiles each (tiles.json): 1 animal with 2 Silfr "
        "(2 copies), with 2 Scrolls (2), with 1 Silfr and 1 Scroll (2), with 2 Silfr and 2 Scrolls (1); 2 "
        "animals with 1 Silfr (1), with 1 Scroll (1). That is 9 Silfr, 9 Scrolls and 11 animals per kind: "
        "tiles with two animals help towards the animal cards but pay less, and no tile prints more than 2 "
        "of a coin (the Huginn and Munin texts speak of gains of 1 and 2). Between simple greedy players a "
        "game lasts a median 7 to 10 rounds; red cards end about a sixth of the games, green cards most "
        "(benchmarks/pax_viking_junior_balance.py).",
        "components",
    ),
    Assumption(
        "VICTORY_CARDS",
        "26 Victory cards ... Find the 2 red Victory cards ... The green and yellow Victory cards show a "
        "number of Animal icons.",
        "2 red cards (12 Silfr; 12 Scrolls), 12 green and 12 yellow (victory_cards.json). A green card shows "
        "4 animals of 3 kinds (2 of one, 1 each of two others), a yellow card 6 animals (2 each of 3 kinds); "
        "each animal appears equally often. yellow-1 is the rulebook's example, 2 Pigs, 2 Sheep, 2 Cows.",
        "components",
    ),
    Assumption(
        "CAT_BOARDS",
        "6 Cat Boards ... 13 Big Cats in 6 different colors - 60 Kittens in 6 different colors ... "
        "TRJEGUL: You have 3 Big Cats.",
        "Bygul yellow, Huginn blue, Munin purple, Sleipnir green, Sæhrímnir red, Trjegul white "
        "(cat_boards.json), each with 10 Kittens; Trjegul has 3 Big Cats and the others 2 (13 in all). "
        "Each ability is kept as numbers the engine reads (journey_steps, tile_draws, silfr_bonus, "
        "scrolls_bonus, steal_gain, big_cats).",
        "components",
    ),
    Assumption(
        "SETUP_ORDER",
        "Each player chooses a player color ... places their Longhip [sic] there together with one face up "
        "Animal tile and one Kitten or if they prefer one Big Cat. ... Shuffle the green and yellow Victory "
        "cards separately and place 2 green and 1 yellow face up",
        "Setup runs: the red cards are laid out, the green and yellow cards are dealt one at a time (a "
        "chance step each), the starting player is known (option starting_seat) or drawn, then from the "
        "starting player on, each player chooses a colour and cat board (unless the option seat_boards "
        "gives them), then each player in turn order sets up their Longship on their shield with an Animal "
        "tile drawn at random from the box lid (a chance step) and places one Kitten or one Big Cat there. "
        "No Silfr or Scrolls are gained and no ability applies; the player is Friends with that tile.",
        "seat_boards, starting_seat",
    ),
    Assumption(
        "HIDDEN_LID_AND_DECKS",
        "Put all the Animal tiles into the lid of the box, face down. ... Return the unused one(s) back face "
        "down into the box lid. ... Shuffle the green and yellow Victory cards separately",
        "The lid is unordered: the state keeps how many tiles of each kind are in it (what every player "
        "can count) and each draw is uniform over them. The undealt cards are the cards not face up; each "
        "deal is uniform over them. Their order is therefore only the RNG, which no player's view or move "
        "log shows. Drawn tiles are shown to everyone (draw and reveal).",
    ),
    Assumption(
        "EMPTY_REGION",
        "If your Longship is in an empty Region or in a Region where you have a Friend and you want to, "
        "draw and reveal 2 Animal tiles.",
        "An empty Region is one without an Animal tile (Cats may be there). Where the player may not draw, "
        "the draw step is skipped with a NO_DRAW event, and a draw move is refused with CANNOT_DRAW_HERE.",
    ),
    Assumption(
        "SHORT_LID",
        "draw and reveal 2 Animal tiles",
        "When the box lid holds fewer tiles than the draw, the player draws what is left; an empty lid "
        "skips the draw step.",
    ),
    Assumption(
        "CATS_WITHOUT_TILE",
        "Place Cats next to your Longship. You can place 0, 1 or 2 of your Kittens or 1 Big Cat. You may if "
        "you want to, pick up all your Cats in the Region instead of placing any Cats.",
        "Cats may be placed whether or not a tile was placed this turn, only from the player's cat board. "
        "Picking up takes back the player's Kittens only: a placed Big Cat cannot be moved again.",
    ),
    Assumption(
        "BIG_CAT_HOME",
        "If you place a Big Cat, return all Kittens from that Region back to each player's Cat board.",
        "The placer's own Kittens there go home too.",
    ),
    Assumption(
        "GAIN",
        "When you have placed an Animal tile and at least 1 Cat in a Region you gain the Silfr and Scrolls "
        "shown on the bottom of the Animal tile.",
        "Both this turn: the tile placed this turn pays once the player places at least 1 Kitten or a Big "
        "Cat in the same turn; picking up Cats pays nothing. Silfr and Scrolls are unlimited.",
    ),
    Assumption(
        "FRIENDS",
        "The Animal on the tile is now your Friend as long as you have the most Kittens or a Big Cat in "
        "that Region. ... The player with the most Kittens becomes Friends with the Animal(s) on the Animal "
        "tile in the Region.",
        "Friendship belongs to a region and covers every Animal tile in it, including tiles placed later. It "
        "is decided after every placement or pick-up: the Big Cat's owner, else the player with the most "
        "Kittens there; a player may lose it or gain it without acting (another player picks up). The "
        "state records who holds a region even while it has no tile (Cats placed without one): that player "
        "becomes Friends with the first tile placed there.",
    ),
    Assumption(
        "KITTEN_TIE",
        "The player with the most Kittens becomes Friends with the Animal(s) ... Stealing: You place more "
        "Kittens or a Big Cat to befriend an Animal that is already a Friend of another player.",
        "On a tie for the most Kittens the current Friend keeps the friendship (stealing takes more "
        "Kittens); when the tied players do not include the current Friend, nobody is Friends.",
        "kitten_tie=PAX_VIKING_JUNIOR_KITTEN_TIE_NOBODY (a tie always means nobody is Friends)",
    ),
    Assumption(
        "STEAL",
        "SÆHRÍMNIR: When you steal a Friend, gain the Siflr [sic] and Scroll on that Friend's tile.",
        "A steal is the player on turn becoming Friends, by placing Cats, with animals another player was "
        "Friends with before this turn: the tiles that were in the region before the tile placed this turn "
        "(that one was nobody's Friend yet, and pays its placer as usual). Friendship covers every tile of "
        "a region, so the stolen Friend's tiles are all of them: Sæhrímnir gains the Silfr and Scrolls of "
        "each.",
    ),
    Assumption(
        "HUGINN_MUNIN",
        "HUGINN: When you gain 1 Silfr, gain 1 more. If you gain 2 Silfr, you gain no additional.",
        "Applied to each gain from one tile: a tile paying 1 Silfr pays Huginn 2, a tile paying 2 pays 2 "
        "(Munin alike for Scrolls).",
    ),
    Assumption(
        "VICTORY_CHECK",
        "At the end of each player's turn you check if you have fulfilled any of the Victory cards.",
        "Only the player whose turn ends checks, after their Cats (other players check at the end of their "
        "own turns). A card is fulfilled by at least its Silfr or Scrolls by the cat board, or by being "
        "Friends with at least the animals it shows, counted over all regions (a tile with 2 Pigs counts 2). "
        "The game has no other end.",
    ),
    Assumption(
        "BUFF",
        "Once during your turn you may Buff. A Buff is when you spend 2 Scrolls or 2 Silfr (not one of "
        "each) to make an action a bit stronger.",
        "A Buff is paid with the action it strengthens: a journey 1 step longer than the cat board allows, "
        "a draw of 1 more tile than the board allows (Sleipnir: 4), or 3 Kittens. It is listed only where "
        "it allows something the player could not do without it (BUFF_NOT_NEEDED otherwise).",
        "buff",
    ),
)

GAME = PaxVikingJunior()
