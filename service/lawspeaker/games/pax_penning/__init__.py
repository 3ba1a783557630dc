"""Pax Penning: a pure rules engine over a frozen state, played as a chain of small decisions.

Rulebook: ``shared/rulebooks/pax-penning.txt``; every reading of it is recorded in ``ASSUMPTIONS``
and in ``docs/rules/pax-penning.md``. The map is data (``board.json``, see :mod:`.board`).

Seats are 0..N-1 clockwise, seat 0 sitting to the left of Sigtuna; seat ``s`` plays stone colour
``s``. Every decision is one move; who decides is ``State.actor`` (also for decisions taken by a
player who is not on turn: a blessing, paying for a passed runestone, a vote, an heir tie-break).
Chance steps (dice, coin sides, bowl and hierarchy placement) draw one die, coin or piece at a
time: the listed move is ``Draw()`` (the server draws from the state's RNG) and every explicit
``Draw(outcome)`` is listed by :meth:`PaxPenning.chance` with its probability.
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
    Event,
    FieldViolation,
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
from lawspeaker.games.pax_penning.board import (
    BISHOP,
    KING,
    KNIGHT,
    PAWN,
    PIECE_NAMES,
    REFERENCE,
    ROOK,
    Board,
    BoardError,
    board_for,
    load_board,
)
from lawspeaker.games.pax_penning.reasons import REASONS

__all__ = ["BISHOP", "KING", "KNIGHT", "PAWN", "REFERENCE", "ROOK", "Board", "BoardError", "load_board"]

COIN = -1  # the Hierarchy coin's entry in ``State.hierarchy``
NO_VICTORY, THEGN, JARL, EVERYONE_LOSES = 0, 1, 2, 3
VICTORY_NAMES = {THEGN: "Thegn's Victory", JARL: "Jarl's Victory", EVERYONE_LOSES: "everyone loses"}
HIDDEN_RNG = Rng(bytes(32), 0)
TOTAL_STONES_CAP = 1 << 30  # no limit on the stones moved in gathering (assumption DICE_SUPPLY)


class Phase(enum.Enum):
    """What the game waits for."""

    SETUP_MARKET = "SETUP_MARKET"  # chance: which piece goes in the next top bowl
    SETUP_COINS = "SETUP_COINS"  # chance: the side of the next starting coin
    SETUP_HIERARCHY = "SETUP_HIERARCHY"  # chance: whose stone takes the next hierarchy slot
    SETUP_ROADBLOCK_ROLL = "SETUP_ROADBLOCK_ROLL"  # chance: the last in the hierarchy rolls 1 die
    SETUP_ROADBLOCK_PLACE = "SETUP_ROADBLOCK_PLACE"  # ... and places it on an empty road space
    SETUP_SIGTUNA = "SETUP_SIGTUNA"  # a player places the next of 4 setup stones in Sigtuna
    SETUP_SEND = "SETUP_SEND"  # ... then the next stone for another player's House
    SETUP_RUNESTONE = "SETUP_RUNESTONE"  # ... then a setup runestone
    SETUP_DIE_ROLL = "SETUP_DIE_ROLL"  # chance: that player rolls 1 die
    SETUP_DIE_PLACE = "SETUP_DIE_PLACE"  # ... and places it on an empty road space
    GATHER = "GATHER"  # gathering: move stones from Sigtuna, ask blessings, roll
    BLESSING = "BLESSING"  # another player answers a request for their blessing
    GATHER_BLESSED = "GATHER_BLESSED"  # the player takes the blessed player's stones
    ROLL = "ROLL"  # chance: the next die of the pool
    FEAST_SEND = "FEAST_SEND"  # a pair: move 1 stone to another House
    FEAST_FAVOUR = "FEAST_FAVOUR"  # a pair: Change Standing or Announce Loyalty
    LEVERAGE_CHOOSE = "LEVERAGE_CHOOSE"  # choose a market bowl and the piece taken from it
    LEVERAGE_ASSIGN = "LEVERAGE_ASSIGN"  # assign a die to a chosen piece and resolve it
    KING_RUNESTONE = "KING_RUNESTONE"  # King: place a runestone
    ROOK_PLACE = "ROOK_PLACE"  # Rook: place the die on an empty road space
    KNIGHT_REMOVE = "KNIGHT_REMOVE"  # Knight: remove a die of value X or less
    BISHOP_SEND = "BISHOP_SEND"  # Bishop: move the next of X stones to another House
    PAWN_CHOOSE = "PAWN_CHOOSE"  # Pawn: choose the pawn that walks X
    PAY_STONE = "PAY_STONE"  # a player places 1 stone from their House in Sigtuna
    PAWN_RETURN = "PAWN_RETURN"  # the pawn returns to a starting star of the player's choice
    THING_VOTE = "THING_VOTE"  # the Thing: a player decides whether to support royalty
    THING_ROLL = "THING_ROLL"  # chance: a supporter rolls 1 die
    THING_COINS = "THING_COINS"  # chance: the side of a coin taken when the Vikings come home
    HEIR = "HEIR"  # a House owner breaks a tie for the most stones in their House
    OVER = "OVER"


CHANCE_PHASES = frozenset(
    {
        Phase.SETUP_MARKET,
        Phase.SETUP_COINS,
        Phase.SETUP_HIERARCHY,
        Phase.SETUP_ROADBLOCK_ROLL,
        Phase.SETUP_DIE_ROLL,
        Phase.ROLL,
        Phase.THING_ROLL,
        Phase.THING_COINS,
    }
)
DIE_PHASES = frozenset({Phase.SETUP_ROADBLOCK_ROLL, Phase.SETUP_DIE_ROLL, Phase.ROLL, Phase.THING_ROLL})


@dataclass(frozen=True, slots=True)
class Options:
    """Options of a game. ``board`` is the JSON text of a map; empty means the reference map.
    ``gathering_limited_by_dice``: a player may move only as many stones as there are dice left for
    them (the other reading of assumption DICE_SUPPLY). ``pawns_stop_at_pawns``: a walking pawn stops
    on the first pawn it steps onto (the other reading of assumption PAWN_ARRIVES)."""

    board: str = ""
    gathering_limited_by_dice: bool = False
    pawns_stop_at_pawns: bool = False


# --------------------------------------------------------------------------- moves


@dataclass(frozen=True, slots=True)
class Draw:
    """A chance step. ``outcome=None`` asks the server to draw from the state's RNG; otherwise a die
    value (1-6), a coin side (1 = Penning, 0 = Silver) or the index of the piece/player drawn."""

    outcome: int | None = None


@dataclass(frozen=True, slots=True)
class Gather:
    """Gathering: move ``count`` stones of ``colour`` from Sigtuna to your House (1 die each)."""

    colour: int
    count: int


@dataclass(frozen=True, slots=True)
class AskBlessing:
    """Gathering: ask the player of ``colour`` for the blessing to move their stones."""

    colour: int


@dataclass(frozen=True, slots=True)
class Bless:
    """The asked player's answer."""

    grant: bool


@dataclass(frozen=True, slots=True)
class Roll:
    """End the gathering and roll the dice pool."""


@dataclass(frozen=True, slots=True)
class SendStone:
    """Move 1 stone of ``colour`` from your House to the House of seat ``house`` (feast, Bishop)."""

    colour: int
    house: int


@dataclass(frozen=True, slots=True)
class ChangeStanding:
    """Feast: swap the hierarchy pieces in slots ``position`` and ``position + 1`` (0 = top)."""

    position: int


@dataclass(frozen=True, slots=True)
class AnnounceLoyalty:
    """Feast: flip coin ``coin`` (0-based, in the order taken) of seat ``seat``."""

    seat: int
    coin: int


@dataclass(frozen=True, slots=True)
class ChooseBowl:
    """Leverage: choose market bowl ``bowl`` (0 = top) and the piece taken from it (the printed
    piece when the bowl is empty)."""

    bowl: int
    piece: int


@dataclass(frozen=True, slots=True)
class Resolve:
    """Leverage: assign a rolled die of value ``die`` to chosen piece ``slot`` and resolve it."""

    slot: int
    die: int


@dataclass(frozen=True, slots=True)
class PlaceRunestone:
    """Place a stone of ``colour`` from your House on empty crossroads ``crossroads`` (index)."""

    crossroads: int
    colour: int


@dataclass(frozen=True, slots=True)
class PlaceDie:
    """Place the die in hand on empty road space ``space`` (index): a roadblock."""

    space: int


@dataclass(frozen=True, slots=True)
class RemoveDie:
    """Knight: remove the die on road space ``space``."""

    space: int


@dataclass(frozen=True, slots=True)
class MovePawn:
    """Pawn: walk pawn ``pawn`` (0-based) X road spaces towards Sigtuna."""

    pawn: int


@dataclass(frozen=True, slots=True)
class PlaceStone:
    """Place 1 stone of ``colour`` from your House in Sigtuna."""

    colour: int


@dataclass(frozen=True, slots=True)
class ReturnPawn:
    """Return the pawn that reached Sigtuna or landed on a pawn to starting star ``star``."""

    star: int


@dataclass(frozen=True, slots=True)
class Vote:
    """The Thing: support Olof Skötkonung (then roll 1 die) or not."""

    support: bool


@dataclass(frozen=True, slots=True)
class ChooseHeir:
    """Break a tie for the most stones in your House: ``seat`` becomes your Heir (yourself: none)."""

    seat: int


Move = (
    Draw
    | Gather
    | AskBlessing
    | Bless
    | Roll
    | SendStone
    | ChangeStanding
    | AnnounceLoyalty
    | ChooseBowl
    | Resolve
    | PlaceRunestone
    | PlaceDie
    | RemoveDie
    | MovePawn
    | PlaceStone
    | ReturnPawn
    | Vote
    | ChooseHeir
)

_DRAW = Draw()
_ROLL = Roll()
_BLESS = (Bless(True), Bless(False))
_VOTE = (Vote(True), Vote(False))

# --------------------------------------------------------------------------- state


class State(NamedTuple):
    """A position. Tuples indexed by seat/colour; ``houses[h][c]`` is the number of stones of colour
    ``c`` in House ``h``; a view hides another player's House as an empty tuple with size -1)."""

    options: Options
    players: int
    phase: Phase
    actor: int  # the seat who decides (or rolls) now; -1 for a draw nobody makes
    turn: int  # the seat on turn (during setup: the player setting up)
    step: int  # progress inside the phase (setup slot, coin, voter index, ...)
    sigtuna: tuple[int, ...]  # stones in Sigtuna by colour
    houses: tuple[tuple[int, ...], ...]
    sizes: tuple[int, ...]  # stones in each House (-1 when a view hides it)
    hierarchy: tuple[int, ...]  # top first: seats and COIN
    hierarchy_penning: bool  # the Hierarchy coin shows its Penning side
    coins: tuple[tuple[bool, ...], ...]  # per seat, in the order taken: True = Penning side up
    king: int  # 0 = Sigtuna, k = the k-th coin of the King's Path
    bowls: tuple[tuple[int, ...], ...]  # the pieces in each market bowl, top bowl first
    pawns: tuple[int, ...]  # node of each pawn (a road space or starting star)
    roads: tuple[int, ...]  # the die on each road space (0 = none)
    runestones: tuple[int, ...]  # the colour of the runestone on each crossroads (-1 = none)
    things: int  # Things held so far
    dice: tuple[int, ...]  # rolled dice not yet assigned (sorted)
    to_roll: int  # dice of the pool still to roll
    moved: int  # stones moved from Sigtuna this gathering
    gathered: int  # bit c: stones of colour c already moved this turn
    asked: int  # bit c: the player of colour c already asked for a blessing this turn
    blessing: int  # the colour asked / blessed (-1)
    pairs: int  # feast pairs left
    chosen: tuple[tuple[int, int], ...]  # chosen (bowl, piece) not yet resolved
    taken: tuple[int, ...]  # pieces taken from the market this turn (they go to the top bowl)
    king_used: bool  # the King's action was taken this turn
    piece: int  # the piece being resolved (0 = none)
    x: int  # the value being resolved (the die; for a Bishop the stones still to move)
    target: int  # the House the Bishop's stones go to (-1 until the first)
    payers: tuple[int, ...]  # seats still to place 1 stone in Sigtuna, in order
    pawn: int  # the pawn waiting to return to a starting star (-1)
    thing_pending: bool  # the King returned to Sigtuna this turn
    best_vote: int  # the highest die rolled at this Thing (0 = none)
    victory: int  # NO_VICTORY, THEGN, JARL or EVERYONE_LOSES once the game ends
    chain: tuple[int, ...]  # the victory's holders: the first winner, then each Heir
    winners: tuple[int, ...]
    ply: int
    rng: Rng


@dataclass(frozen=True, slots=True)
class EventDetail:
    """Structured details of an event. ``colours`` are secret when ``secret`` is set: only the
    seats in ``viewers`` may see them (see :func:`view_event`)."""

    value: int = 0
    colours: tuple[int, ...] = ()
    seats: tuple[int, ...] = ()
    secret: bool = False
    viewers: tuple[int, ...] = ()


def view_event(event: Event, seat: int | None) -> Event:
    """The event as ``seat`` may see it: secret stone colours are dropped for everyone else."""
    detail = event.detail
    if isinstance(detail, EventDetail) and detail.secret and seat not in detail.viewers:
        return Event(
            event.kind, event.text, event.player, EventDetail(detail.value, (), detail.seats, True, ())
        )
    return event


def _board(state: State) -> Board:
    return board_for(state.options.board)


def _add_house(houses: tuple[tuple[int, ...], ...], h: int, c: int, n: int) -> tuple[tuple[int, ...], ...]:
    row = houses[h]
    return (*houses[:h], (*row[:c], row[c] + n, *row[c + 1 :]), *houses[h + 1 :])


def _hier_seats(state: State) -> tuple[int, ...]:
    return tuple(s for s in state.hierarchy if s != COIN)


def blocked_coin(state: State) -> tuple[int, int] | None:
    """The (seat, coin) the King stands on, or None while he is in Sigtuna."""
    k = state.king
    if k == 0:
        return None
    for seat, row in enumerate(state.coins):
        if k <= len(row):
            return seat, k - 1
        k -= len(row)
    return None


def pennings(state: State, seat: int, *, blocked: bool = True) -> int:
    """Coins Penning side up; the coin under the King counts only with ``blocked=False``."""
    n = sum(state.coins[seat])
    if blocked:
        b = blocked_coin(state)
        if b is not None and b[0] == seat and state.coins[seat][b[1]]:
            n -= 1
    return n


def silvers(state: State, seat: int) -> int:
    """Coins Silver side up, not counting the coin the King stands on."""
    row = state.coins[seat]
    n = len(row) - sum(row)
    b = blocked_coin(state)
    if b is not None and b[0] == seat and not row[b[1]]:
        n -= 1
    return n


def dice_on_roads(state: State) -> int:
    return sum(1 for v in state.roads if v)


def _supply(state: State, board: Board) -> int:
    return board.dice - dice_on_roads(state) - len(state.dice)


def _coin_supply(state: State, board: Board) -> int:
    return board.coins_total - sum(len(r) for r in state.coins) - (1 if COIN in state.hierarchy else 0)


def _gather_cap(state: State, board: Board) -> int:
    """How many more stones may be moved from Sigtuna: any number (the dice pool is then capped by
    the supply), or, with ``gathering_limited_by_dice``, one die each as long as dice remain."""
    if not state.options.gathering_limited_by_dice:
        return TOTAL_STONES_CAP
    return _supply(state, board) - silvers(state, state.turn) - state.moved


def _count(n: int, noun: str) -> str:
    """``n`` of ``noun`` as a player reads it: "1 Penning", "2 Pennings"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _empty_spaces(state: State) -> list[int]:
    pawns = state.pawns
    return [i for i, v in enumerate(state.roads) if not v and i not in pawns]


# --------------------------------------------------------------------------- the game


class PaxPenning:
    """The Pax Penning rules engine (implements :class:`lawspeaker.games.core.Game`)."""

    id = "pax_penning"
    title = "Pax Penning"
    min_players = 3
    max_players = 5
    rules_version = "pax_penning-2"
    reasons = REASONS

    def default_options(self) -> Options:
        return Options()

    def new_game(self, players: int, options: Options, rng: Rng) -> State:
        board = board_for(options.board)
        n = players
        return State(
            options=options,
            players=n,
            phase=Phase.SETUP_MARKET,
            actor=-1,
            turn=0,
            step=0,
            sigtuna=(0,) * n,
            houses=tuple(tuple(board.stones_per_player if c == h else 0 for c in range(n)) for h in range(n)),
            sizes=(board.stones_per_player,) * n,
            hierarchy=(),
            hierarchy_penning=False,
            coins=((),) * n,
            king=0,
            bowls=((),) * len(board.bowl_values),
            pawns=tuple(board.star_node(s) for s in board.royal_stars),
            roads=(0,) * board.spaces,
            runestones=(-1,) * board.crossroads,
            things=0,
            dice=(),
            to_roll=0,
            moved=0,
            gathered=0,
            asked=0,
            blessing=-1,
            pairs=0,
            chosen=(),
            taken=(),
            king_used=False,
            piece=0,
            x=0,
            target=-1,
            payers=(),
            pawn=-1,
            thing_pending=False,
            best_vote=0,
            victory=NO_VICTORY,
            chain=(),
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
        if phase in CHANCE_PHASES:
            return (_DRAW,)
        if phase is Phase.OVER:
            return ()
        board = _board(state)
        seat = state.actor
        n = state.players
        if phase is Phase.GATHER:
            out: list[Move] = []
            cap = _gather_cap(state, board)
            if cap > 0:
                for c in range(n):
                    if not state.sigtuna[c] or state.gathered >> c & 1:
                        continue
                    if c == seat:
                        out.extend(Gather(c, k) for k in range(1, min(cap, state.sigtuna[c]) + 1))
                    elif not state.asked >> c & 1:
                        out.append(AskBlessing(c))
            out.append(_ROLL)
            return out
        if phase is Phase.BLESSING:
            return _BLESS
        if phase is Phase.GATHER_BLESSED:
            c = state.blessing
            cap = min(_gather_cap(state, board), state.sigtuna[c])
            return [Gather(c, k) for k in range(1, cap + 1)]
        if phase is Phase.FEAST_SEND or phase is Phase.BISHOP_SEND or phase is Phase.SETUP_SEND:
            row = state.houses[seat]
            houses = (state.target,) if state.target >= 0 else tuple(h for h in range(n) if h != seat)
            return [SendStone(c, h) for c in range(n) if row[c] for h in houses]
        if phase is Phase.FEAST_FAVOUR:
            out = [ChangeStanding(i) for i in range(len(state.hierarchy) - 1)]
            out.extend(AnnounceLoyalty(s, k) for s in range(n) for k in range(len(state.coins[s])))
            return out
        if phase is Phase.LEVERAGE_CHOOSE:
            return self._bowl_choices(state, board)
        if phase is Phase.LEVERAGE_ASSIGN:
            values = sorted(set(state.dice))
            return [Resolve(i, v) for i in range(len(state.chosen)) for v in values]
        if phase is Phase.KING_RUNESTONE or phase is Phase.SETUP_RUNESTONE:
            row = state.houses[seat]
            colours = tuple(c for c in range(n) if row[c])
            return [PlaceRunestone(x, c) for x, r in enumerate(state.runestones) if r < 0 for c in colours]
        if phase in (Phase.ROOK_PLACE, Phase.SETUP_ROADBLOCK_PLACE, Phase.SETUP_DIE_PLACE):
            return [PlaceDie(s) for s in _empty_spaces(state)]
        if phase is Phase.KNIGHT_REMOVE:
            return [RemoveDie(s) for s, v in enumerate(state.roads) if v and v <= state.x]
        if phase is Phase.PAWN_CHOOSE:
            return [MovePawn(p) for p in range(len(state.pawns))]
        if phase is Phase.PAY_STONE or phase is Phase.SETUP_SIGTUNA:
            row = state.houses[seat]
            return [PlaceStone(c) for c in range(n) if row[c]]
        if phase is Phase.PAWN_RETURN:
            return [ReturnPawn(s) for s in range(len(board.star_ids))]
        if phase is Phase.THING_VOTE:
            return _VOTE
        if phase is Phase.HEIR:
            return [ChooseHeir(s) for s in self._heir_candidates(state)]
        return ()

    def _bowl_choices(self, state: State, board: Board) -> list[Move]:
        reach = pennings(state, state.turn)
        taken_bowls = {b for b, _ in state.chosen}
        king_chosen = state.king_used or any(p == KING for _, p in state.chosen)
        out: list[Move] = []
        for b, value in enumerate(board.bowl_values):
            if value > reach or b in taken_bowls:
                continue
            pieces = state.bowls[b]
            if pieces:
                out.extend(ChooseBowl(b, p) for p in sorted(set(pieces)))
            elif board.bowl_printed[b] and not (board.bowl_printed[b] == KING and king_chosen):
                out.append(ChooseBowl(b, board.bowl_printed[b]))
        return out

    def _heir_candidates(self, state: State) -> list[int]:
        row = state.houses[state.chain[-1]]
        most = max(row)
        return [c for c, k in enumerate(row) if k == most]

    def chance(self, state: State) -> Chance[Move] | None:
        phase = state.phase
        if phase not in CHANCE_PHASES:
            return None
        who = _who(state.actor) if state.actor >= 0 else "The setup"
        if phase in DIE_PHASES:
            what = {
                Phase.ROLL: f"{who} rolls die {len(state.dice) + 1} of {len(state.dice) + state.to_roll}",
                Phase.THING_ROLL: f"{who} supports royalty and rolls 1 die",
                Phase.SETUP_ROADBLOCK_ROLL: f"{who}, last in the Hierarchy, rolls the first roadblock die",
                Phase.SETUP_DIE_ROLL: f"{who} rolls a die to place on a road",
            }[phase]
            return _die_chance(what)
        if phase is Phase.SETUP_COINS or phase is Phase.THING_COINS:
            return _coin_chance(f"{who} places a coin with a random side up")
        if phase is Phase.SETUP_MARKET:
            rest = _market_rest(state, _board(state))
            p = 1 / len(rest)
            return Chance(
                f"A market piece is placed at random in top bowl {state.step + 1}",
                tuple(ChanceOutcome(Draw(i), p, PIECE_NAMES[piece]) for i, piece in enumerate(rest)),
            )
        rest = _hierarchy_rest(state)
        p = 1 / len(rest)
        return Chance(
            f"A player's stone is placed at random in hierarchy slot {len(state.hierarchy) + 1}",
            tuple(ChanceOutcome(Draw(i), p, _who(s)) for i, s in enumerate(rest)),
        )

    def outcome(self, state: State) -> Outcome | None:
        if state.phase is not Phase.OVER:
            return None
        if state.victory == EVERYONE_LOSES:
            return Outcome(Result.ALL_LOSE, (), "The last die was placed on the roads: everyone loses.")
        names = ", ".join(_who(s) for s in state.winners)
        verb = "wins" if len(state.winners) == 1 else "win as a Coalition"
        text = f"{VICTORY_NAMES[state.victory]}: {names} {verb}"
        if len(state.chain) > 1:
            text += " (the victory passed " + " -> ".join(_who(s) for s in state.chain) + ")"
        return Outcome(Result.WIN, state.winners, text + ".")

    def view_event(self, event: Event, seat: int | None) -> Event:
        """An event as ``seat`` may see it (see :func:`view_event`)."""
        return view_event(event, seat)

    def view_move(self, move: Move, by_seat: int | None, seat: int | None) -> Move:
        """A move as ``seat`` may see it in a session's move log (the session service's hook): the
        colour of a stone sent to another House is known only to the sender and the receiver (colour
        -1 for everyone else). The server keeps the full log, which replays to the exact state."""
        if isinstance(move, SendStone) and seat != by_seat and seat != move.house:
            return SendStone(-1, move.house)
        return move

    def reveals(self, before: State, move: Move, after: State) -> bool:
        """True when the move showed someone hidden information, so that it cannot be taken back: a
        stone leaving a House shows its colour (to the receiver, or to all in Sigtuna or as a
        runestone), and the end of the game shows whose stones fill the Houses."""
        return isinstance(move, SendStone | PlaceStone | PlaceRunestone | ChooseHeir) or (
            after.phase is Phase.OVER or after.phase is Phase.HEIR
        )

    def view(self, state: State, seat: int | None) -> State:
        """What ``seat`` may see: the number and colours of the stones in every other House are
        hidden (an empty tuple and size -1), and the RNG is removed."""
        houses = tuple(row if h == seat else () for h, row in enumerate(state.houses))
        sizes = tuple(k if h == seat else -1 for h, k in enumerate(state.sizes))
        return state._replace(houses=houses, sizes=sizes, rng=HIDDEN_RNG)

    # -- validation ---------------------------------------------------------------

    def explain(self, state: State, move: Move) -> Violation:
        phase = state.phase
        expected = _EXPECTED.get(phase, ())
        if not isinstance(move, expected):
            if isinstance(move, Draw):
                return Violation("NOT_A_CHANCE_STEP", f"Nothing is drawn now: {_WAITING[phase]}.", "draw")
            return Violation("WRONG_STEP", f"That move is not part of this step: {_WAITING[phase]}.", "move")
        if isinstance(move, Draw):
            chance = self.chance(state)
            listed = [o.move.outcome for o in chance.outcomes if isinstance(o.move, Draw)] if chance else []
            return Violation(
                "NO_SUCH_OUTCOME",
                f"Outcome {move.outcome} is not possible in this draw; the possible outcomes are "
                f"{', '.join(str(o) for o in listed)}.",
                "draw.outcome",
            )
        n = state.players
        seat = state.actor
        board = _board(state)
        if isinstance(move, Gather):
            if not 0 <= move.colour < n or not state.sigtuna[move.colour]:
                return Violation(
                    "NO_STONES_IN_SIGTUNA", "There are no stones of that colour in Sigtuna.", "gather.colour"
                )
            if phase is Phase.GATHER_BLESSED and move.colour != state.blessing:
                return Violation(
                    "NOT_BLESSED", "Only the blessed player's stones may be moved now.", "gather.colour"
                )
            if move.colour != seat and phase is Phase.GATHER:
                return Violation(
                    "BLESSING_NEEDED",
                    "Another player's stones move only with that player's blessing.",
                    "gather.colour",
                )
            if state.gathered >> move.colour & 1:
                return Violation(
                    "ALREADY_GATHERED", "Stones of that colour were already moved this turn.", "gather.colour"
                )
            cap, held = _gather_cap(state, board), state.sigtuna[move.colour]
            if cap <= 0:
                why = "No more stones can be moved from Sigtuna: each needs a die, and none is left."
            elif cap < held:
                left = "1 die is" if cap == 1 else f"{cap} dice are"
                why = f"Between 1 and {cap} stones can be moved: one die per stone, and {left} left."
            else:
                why = f"Between 1 and {held} stones of that colour can be moved: Sigtuna holds {held}."
            return Violation("TOO_MANY_STONES", why, "gather.count")
        if isinstance(move, AskBlessing):
            return Violation(
                "CANNOT_ASK",
                "A blessing can be asked only of another player with stones in Sigtuna, once a turn.",
                "ask_blessing",
            )
        if isinstance(move, SendStone):
            if not 0 <= move.colour < n or not state.houses[seat][move.colour]:
                return Violation(
                    "NO_SUCH_STONE", "Your House has no stone of that colour.", "send_stone.colour"
                )
            if state.target >= 0 and move.house != state.target:
                return Violation(
                    "SAME_HOUSE",
                    f"These stones go to {_who(state.target)}'s House.",
                    "send_stone.house",
                )
            return Violation("NOT_ANOTHER_HOUSE", "Stones go to another player's House.", "send_stone.house")
        if isinstance(move, ChangeStanding):
            h = len(state.hierarchy)
            return Violation(
                "NO_SUCH_PAIR",
                f"There are no adjacent hierarchy slots {move.position} and {move.position + 1}: Change "
                f"Standing swaps slots 0 and 1 up to {h - 2} and {h - 1}.",
                "change_standing.position",
            )
        if isinstance(move, AnnounceLoyalty):
            if not 0 <= move.seat < n:
                why = f"There is no seat {move.seat}: the seats are 0 to {n - 1}."
            else:
                k = len(state.coins[move.seat])
                why = f"{_who(move.seat)} has no coin {move.coin}: their coins are numbered 0 to {k - 1}."
            return Violation("NO_SUCH_COIN", why, "announce_loyalty")
        if isinstance(move, ChooseBowl):
            if not 0 <= move.bowl < len(board.bowl_values):
                return Violation(
                    "NO_SUCH_BOWL",
                    f"There is no market bowl {move.bowl}: the bowls are numbered 0 (the top) to "
                    f"{len(board.bowl_values) - 1}.",
                    "choose_bowl.bowl",
                )
            if board.bowl_values[move.bowl] > pennings(state, state.turn):
                return Violation(
                    "BOWL_TOO_EXPENSIVE",
                    f"The bowl's value {board.bowl_values[move.bowl]} exceeds your "
                    f"{_count(pennings(state, state.turn), 'Penning')}.",
                    "choose_bowl.bowl",
                )
            if any(b == move.bowl for b, _ in state.chosen):
                return Violation(
                    "BOWL_ALREADY_CHOSEN", "Choose 2 different market bowls.", "choose_bowl.bowl"
                )
            if move.piece == KING and (state.king_used or any(p == KING for _, p in state.chosen)):
                return Violation(
                    "KING_ONCE", "You can only take the King's action once per turn.", "choose_bowl.piece"
                )
            return Violation(
                "NO_SUCH_PIECE",
                "That piece is not in the bowl (nor printed in it when empty).",
                "choose_bowl.piece",
            )
        if isinstance(move, Resolve):
            if not 0 <= move.slot < len(state.chosen):
                return Violation(
                    "NO_SUCH_PIECE", "There is no chosen piece with that number.", "resolve.slot"
                )
            return Violation(
                "NO_SUCH_DIE", "No die you rolled and have not assigned shows that value.", "resolve.die"
            )
        if isinstance(move, PlaceRunestone):
            if not 0 <= move.crossroads < board.crossroads or state.runestones[move.crossroads] >= 0:
                return Violation(
                    "CROSSROADS_TAKEN", "Runestones go on an empty crossroads.", "place_runestone.crossroads"
                )
            return Violation(
                "NO_SUCH_STONE",
                "Your House has no stone of that colour for a runestone.",
                "place_runestone.colour",
            )
        if isinstance(move, PlaceDie):
            return Violation(
                "SPACE_NOT_EMPTY", "Dice go on an empty road space (no die, no pawn).", "place_die.space"
            )
        if isinstance(move, RemoveDie):
            return Violation(
                "NO_SUCH_DIE",
                f"The Knight removes a die of value {state.x} or less from a road space.",
                "remove_die.space",
            )
        if isinstance(move, MovePawn):
            return Violation(
                "NO_SUCH_PAWN", f"The pawns are numbered 0 to {len(state.pawns) - 1}.", "move_pawn.pawn"
            )
        if isinstance(move, PlaceStone):
            return Violation("NO_SUCH_STONE", "Your House has no stone of that colour.", "place_stone.colour")
        if isinstance(move, ReturnPawn):
            return Violation(
                "NO_SUCH_STAR",
                f"The starting stars are numbered 0 to {len(board.star_ids) - 1}.",
                "return_pawn.star",
            )
        if isinstance(move, ChooseHeir):
            return Violation(
                "NOT_TIED",
                "The Heir is one of the players tied for the most stones in your House.",
                "choose_heir.seat",
            )
        return Violation("NOT_A_LEGAL_MOVE", "That move is not legal now.", "move")

    # -- applying -----------------------------------------------------------------

    def apply(self, state: State, move: Move) -> tuple[State, list[Event]]:
        events: list[Event] = []
        state = state._replace(ply=state.ply + 1)
        if isinstance(move, Draw):
            return self._draw(state, move, events), events
        board = _board(state)
        seat = state.actor
        phase = state.phase
        if isinstance(move, Gather):
            c, k = move.colour, move.count
            houses = _add_house(state.houses, seat, c, k)
            events.append(
                Event(
                    "STONES_GATHERED",
                    f"{_who(seat)} moved {_count(k, 'stone')} of {_who(c)} from Sigtuna.",
                    seat,
                    EventDetail(k, (c,)),
                )
            )
            return (
                state._replace(
                    phase=Phase.GATHER,
                    sigtuna=_set(state.sigtuna, c, state.sigtuna[c] - k),
                    houses=houses,
                    sizes=_set(state.sizes, seat, state.sizes[seat] + k),
                    moved=state.moved + k,
                    gathered=state.gathered | 1 << c,
                    blessing=-1,
                ),
                events,
            )
        if isinstance(move, AskBlessing):
            events.append(
                Event("BLESSING_ASKED", f"{_who(seat)} asks {_who(move.colour)} for their blessing.", seat)
            )
            return (
                state._replace(
                    phase=Phase.BLESSING,
                    actor=move.colour,
                    asked=state.asked | 1 << move.colour,
                    blessing=move.colour,
                ),
                events,
            )
        if isinstance(move, Bless):
            word = "gives" if move.grant else "refuses"
            events.append(
                Event(
                    "BLESSING_GIVEN" if move.grant else "BLESSING_REFUSED",
                    f"{_who(seat)} {word} the blessing.",
                    seat,
                )
            )
            if move.grant and min(_gather_cap(state, board), state.sigtuna[seat]) > 0:
                return state._replace(phase=Phase.GATHER_BLESSED, actor=state.turn), events
            return state._replace(phase=Phase.GATHER, actor=state.turn, blessing=-1), events
        if isinstance(move, Roll):
            count = min(_supply(state, board), max(1, silvers(state, seat) + state.moved))
            events.append(Event("POOL_ROLLED", f"{_who(seat)} rolls {count} dice.", seat, EventDetail(count)))
            return state._replace(phase=Phase.ROLL, to_roll=count), events
        if isinstance(move, SendStone):
            return self._send(state, move, events), events
        if isinstance(move, ChangeStanding):
            i = move.position
            h = state.hierarchy
            h = (*h[:i], h[i + 1], h[i], *h[i + 2 :])
            events.append(
                Event(
                    "STANDING_CHANGED",
                    f"{_who(seat)} swapped hierarchy slots {i + 1} and {i + 2}.",
                    seat,
                    EventDetail(i),
                )
            )
            return self._after_pair(state._replace(hierarchy=h), board, events), events
        if isinstance(move, AnnounceLoyalty):
            row = state.coins[move.seat]
            row = (*row[: move.coin], not row[move.coin], *row[move.coin + 1 :])
            coins = (*state.coins[: move.seat], row, *state.coins[move.seat + 1 :])
            side = "Penning" if row[move.coin] else "Silver"
            events.append(
                Event(
                    "LOYALTY_ANNOUNCED",
                    f"{_who(seat)} flipped {_who(move.seat)}'s coin {move.coin + 1} to {side}.",
                    seat,
                    EventDetail(move.coin, (), (move.seat,)),
                )
            )
            return self._after_pair(state._replace(coins=coins), board, events), events
        if isinstance(move, ChooseBowl):
            return self._choose_bowl(state, move, board, events), events
        if isinstance(move, Resolve):
            return self._resolve(state, move, board, events), events
        if isinstance(move, PlaceRunestone):
            c = move.crossroads
            state = state._replace(
                runestones=_set(state.runestones, c, move.colour),
                houses=_add_house(state.houses, seat, move.colour, -1),
                sizes=_set(state.sizes, seat, state.sizes[seat] - 1),
            )
            events.append(
                Event(
                    "RUNESTONE_RAISED",
                    f"{_who(seat)} raised a runestone of {_who(move.colour)} at {board.crossroads_ids[c]}.",
                    seat,
                    EventDetail(c, (move.colour,)),
                )
            )
            if phase is Phase.SETUP_RUNESTONE:
                if state.x > 1:
                    return state._replace(x=state.x - 1), events
                return state._replace(phase=Phase.SETUP_DIE_ROLL, x=0), events
            return self._king_walk(state, board, events), events
        if isinstance(move, PlaceDie):
            return self._place_die(state, move, board, events), events
        if isinstance(move, RemoveDie):
            value = state.roads[move.space]
            events.append(
                Event(
                    "DIE_REMOVED",
                    f"The Knight removed the {value} from {board.space_ids[move.space]}.",
                    seat,
                    EventDetail(move.space),
                )
            )
            return self._after_piece(
                state._replace(roads=_set(state.roads, move.space, 0)), board, events
            ), events
        if isinstance(move, MovePawn):
            return self._move_pawn(state, move.pawn, board, events), events
        if isinstance(move, PlaceStone):
            c = move.colour
            events.append(
                Event(
                    "STONE_TO_SIGTUNA",
                    f"{_who(seat)} placed a stone of {_who(c)} in Sigtuna.",
                    seat,
                    EventDetail(1, (c,)),
                )
            )
            state = state._replace(
                sigtuna=_set(state.sigtuna, c, state.sigtuna[c] + 1),
                houses=_add_house(state.houses, seat, c, -1),
                sizes=_set(state.sizes, seat, state.sizes[seat] - 1),
            )
            if phase is Phase.SETUP_SIGTUNA:
                if state.x > 1:
                    return state._replace(x=state.x - 1), events
                n = state.players
                return state._replace(
                    phase=Phase.SETUP_SEND, x=4 if n == 3 else 2, target=(seat + 1) % n
                ), events
            state = state._replace(
                payers=state.payers[1:],
            )
            return self._next_payer(state, board, events), events
        if isinstance(move, ReturnPawn):
            p = state.pawn
            events.append(
                Event(
                    "PAWN_RETURNED",
                    f"The pawn returns to {board.star_ids[move.star]}.",
                    seat,
                    EventDetail(move.star),
                )
            )
            state = state._replace(pawns=_set(state.pawns, p, board.star_node(move.star)), pawn=-1)
            return self._after_piece(state, board, events), events
        if isinstance(move, Vote):
            if move.support:
                events.append(
                    Event("ROYALTY_SUPPORTED", f"{_who(seat)} supports Olof Skötkonung and rolls.", seat)
                )
                return state._replace(phase=Phase.THING_ROLL), events
            events.append(
                Event("ROYALTY_NOT_SUPPORTED", f"{_who(seat)} does not support Olof Skötkonung.", seat)
            )
            return self._next_voter(state._replace(step=state.step + 1), board, events), events
        if isinstance(move, ChooseHeir):
            return self._heir_chosen(state, move.seat, board, events), events
        raise AssertionError(f"unknown move {move!r}")

    # -- chance ---------------------------------------------------------------------

    def _draw(self, state: State, move: Draw, events: list[Event]) -> State:
        phase = state.phase
        board = _board(state)
        rng = state.rng
        value = move.outcome
        if phase in DIE_PHASES:
            if value is None:
                r, rng = rng.below(6)
                value = r + 1
            state = state._replace(rng=rng)
            events.append(
                Event("DIE_ROLLED", f"{_who(state.actor)} rolled a {value}.", state.actor, EventDetail(value))
            )
            if phase is Phase.ROLL:
                dice = tuple(sorted((*state.dice, value)))
                state = state._replace(dice=dice, to_roll=state.to_roll - 1)
                if state.to_roll:
                    return state
                return self._feast(state, board, events)
            if phase is Phase.THING_ROLL:
                state = state._replace(best_vote=max(state.best_vote, value), step=state.step + 1)
                return self._next_voter(state, board, events)
            nxt = (
                Phase.SETUP_ROADBLOCK_PLACE if phase is Phase.SETUP_ROADBLOCK_ROLL else Phase.SETUP_DIE_PLACE
            )
            return state._replace(phase=nxt, x=value)
        if phase is Phase.SETUP_COINS or phase is Phase.THING_COINS:
            if value is None:
                value, rng = rng.below(2)
            seat = state.actor
            coins = (*state.coins[:seat], (*state.coins[seat], value == 1), *state.coins[seat + 1 :])
            state = state._replace(coins=coins, rng=rng, step=state.step + 1)
            side = "Penning" if value else "Silver"
            events.append(
                Event("COIN_TAKEN", f"{_who(seat)} took a coin, {side} side up.", seat, EventDetail(value))
            )
            if phase is Phase.THING_COINS:
                return self._next_coin(state, board, events)
            per = board.coins_per_player_at_3 if state.players == 3 else board.coins_per_player
            if state.step < per * state.players:
                return state._replace(actor=state.step // per)
            return state._replace(phase=Phase.SETUP_HIERARCHY, actor=-1, step=0)
        if phase is Phase.SETUP_MARKET:
            rest = _market_rest(state, board)
            if value is None:
                value, rng = rng.below(len(rest))
            piece = rest[value]
            b = state.step
            bowls = (*state.bowls[:b], (piece,), *state.bowls[b + 1 :])
            events.append(
                Event(
                    "PIECE_PLACED",
                    f"The {PIECE_NAMES[piece]} is placed in bowl {b + 1}.",
                    None,
                    EventDetail(piece),
                )
            )
            state = state._replace(bowls=bowls, rng=rng, step=b + 1)
            if b + 1 < len(board.market_pieces):
                return state
            return state._replace(phase=Phase.SETUP_COINS, step=0, actor=0)
        # SETUP_HIERARCHY
        rest = _hierarchy_rest(state)
        if value is None:
            value, rng = rng.below(len(rest))
        s = rest[value]
        state = state._replace(
            hierarchy=(*state.hierarchy, s),
            houses=_add_house(state.houses, s, s, -1),
            sizes=_set(state.sizes, s, state.sizes[s] - 1),
            rng=rng,
        )
        events.append(Event("HIERARCHY_FILLED", f"{_who(s)} takes hierarchy slot {len(state.hierarchy)}.", s))
        if len(state.hierarchy) < state.players:
            return state
        last = state.hierarchy[-1]
        events.append(
            Event("HIERARCHY_COIN", "The Hierarchy coin is placed at the bottom, Silver side up.", None)
        )
        return state._replace(
            hierarchy=(*state.hierarchy, COIN), phase=Phase.SETUP_ROADBLOCK_ROLL, actor=last, turn=last
        )

    # -- setup -----------------------------------------------------------------------

    def _place_die(self, state: State, move: PlaceDie, board: Board, events: list[Event]) -> State:
        seat = state.actor
        roads = _set(state.roads, move.space, state.x)
        events.append(
            Event(
                "ROADBLOCK_PLACED",
                f"{_who(seat)} placed a {state.x} on {board.space_ids[move.space]}.",
                seat,
                EventDetail(move.space),
            )
        )
        state = state._replace(roads=roads, x=0)
        phase = state.phase
        if phase is Phase.ROOK_PLACE:
            if dice_on_roads(state) >= board.dice:
                events.append(
                    Event(
                        "LAST_DIE_PLACED",
                        "The last die is on the roads: the game ends and everyone loses.",
                        seat,
                    )
                )
                return state._replace(phase=Phase.OVER, actor=-1, victory=EVERYONE_LOSES, chosen=(), dice=())
            return self._after_piece(state, board, events)
        step = 0 if phase is Phase.SETUP_ROADBLOCK_PLACE else state.step + 1
        return self._setup_player(state, step, board, events)

    def _setup_player(self, state: State, step: int, board: Board, events: list[Event]) -> State:
        """The next player in hierarchy order places stones, runestone(s) and a die."""
        order = _hier_seats(state)
        if step >= len(order):
            return self._start_turn(state._replace(step=0), order[0], events)
        s = order[step]
        events.append(Event("SETUP_PLAYER", f"{_who(s)} sets up.", s))
        return state._replace(phase=Phase.SETUP_SIGTUNA, actor=s, turn=s, step=step, x=4, target=-1)

    # -- the turn --------------------------------------------------------------------

    def _start_turn(self, state: State, seat: int, events: list[Event]) -> State:
        events.append(Event("TURN_STARTED", f"{_who(seat)}'s turn.", seat))
        return state._replace(
            phase=Phase.GATHER,
            actor=seat,
            turn=seat,
            dice=(),
            to_roll=0,
            moved=0,
            gathered=0,
            asked=0,
            blessing=-1,
            pairs=0,
            chosen=(),
            taken=(),
            king_used=False,
            piece=0,
            x=0,
            target=-1,
            payers=(),
            pawn=-1,
            thing_pending=False,
            best_vote=0,
        )

    def _feast(self, state: State, board: Board, events: list[Event]) -> State:
        counts = [0] * 7
        for v in state.dice:
            counts[v] += 1
        pairs = sum(k // 2 for k in counts)
        events.append(
            Event(
                "FEAST",
                f"{_who(state.turn)} rolled {', '.join(map(str, state.dice))}: {_count(pairs, 'pair')}.",
                state.turn,
                EventDetail(pairs),
            )
        )
        if pairs:
            return self._pair(state._replace(pairs=pairs), board)
        return self._leverage(state, board, events)

    def _pair(self, state: State, board: Board) -> State:
        phase = Phase.FEAST_SEND if state.sizes[state.turn] else Phase.FEAST_FAVOUR
        return state._replace(phase=phase)

    def _send(self, state: State, move: SendStone, events: list[Event]) -> State:
        seat, c, h = state.actor, move.colour, move.house
        houses = _add_house(_add_house(state.houses, seat, c, -1), h, c, 1)
        sizes = _set(_set(state.sizes, seat, state.sizes[seat] - 1), h, state.sizes[h] + 1)
        events.append(
            Event(
                "STONE_SENT",
                f"{_who(seat)} sent a stone to {_who(h)}'s House.",
                seat,
                EventDetail(1, (c,), (h,), True, (seat, h)),
            )
        )
        state = state._replace(houses=houses, sizes=sizes)
        if state.phase is Phase.FEAST_SEND:
            return state._replace(phase=Phase.FEAST_FAVOUR)
        if state.phase is Phase.SETUP_SEND:
            if state.x > 1:
                return state._replace(x=state.x - 1)
            nxt = (h + 1) % state.players
            if nxt != seat:
                return state._replace(x=4 if state.players == 3 else 2, target=nxt)
            return state._replace(phase=Phase.SETUP_RUNESTONE, x=2 if state.players == 3 else 1, target=-1)
        left = state.x - 1
        if left and sizes[seat]:
            return state._replace(x=left, target=h)
        return self._after_piece(state._replace(x=0, target=-1), _board(state), events)

    def _after_pair(self, state: State, board: Board, events: list[Event]) -> State:
        pairs = state.pairs - 1
        state = state._replace(pairs=pairs)
        if pairs:
            return self._pair(state, board)
        return self._leverage(state, board, events)

    def _leverage(self, state: State, board: Board, events: list[Event]) -> State:
        state = state._replace(phase=Phase.LEVERAGE_CHOOSE, pairs=0)
        if not self._bowl_choices(state, board):
            return self._cleanup(state, board, events)
        return state

    def _choose_bowl(self, state: State, move: ChooseBowl, board: Board, events: list[Event]) -> State:
        b, piece = move.bowl, move.piece
        bowls, taken = state.bowls, state.taken
        if bowls[b]:
            row = list(bowls[b])
            row.remove(piece)
            bowls = (*bowls[:b], tuple(row), *bowls[b + 1 :])
            taken = tuple(sorted((*taken, piece)))
            where = "taken from"
        else:
            where = "printed on"
        events.append(
            Event(
                "PIECE_CHOSEN",
                f"{_who(state.turn)} chose the {PIECE_NAMES[piece]} {where} bowl {b + 1}.",
                state.turn,
                EventDetail(piece, (), (b,)),
            )
        )
        chosen = (*state.chosen, (b, piece))
        state = state._replace(bowls=bowls, taken=taken, chosen=chosen)
        if len(chosen) >= min(2, len(state.dice)) or not self._bowl_choices(state, board):
            return state._replace(phase=Phase.LEVERAGE_ASSIGN)
        return state

    def _resolve(self, state: State, move: Resolve, board: Board, events: list[Event]) -> State:
        _, piece = state.chosen[move.slot]
        dice = list(state.dice)
        dice.remove(move.die)
        chosen = state.chosen[: move.slot] + state.chosen[move.slot + 1 :]
        x = move.die
        seat = state.turn
        events.append(
            Event(
                "PIECE_RESOLVED",
                f"{_who(seat)} assigned a {x} to the {PIECE_NAMES[piece]}.",
                seat,
                EventDetail(x, (), (piece,)),
            )
        )
        state = state._replace(dice=tuple(dice), chosen=chosen, piece=piece, x=x)
        if piece == KING:
            if state.sizes[seat] and -1 in state.runestones:
                return state._replace(phase=Phase.KING_RUNESTONE)
            return self._king_walk(state, board, events)
        if piece == ROOK:
            if _empty_spaces(state):
                return state._replace(phase=Phase.ROOK_PLACE)
        elif piece == KNIGHT:
            if any(v and v <= x for v in state.roads):
                return state._replace(phase=Phase.KNIGHT_REMOVE)
        elif piece == BISHOP:
            if state.sizes[seat]:
                return state._replace(phase=Phase.BISHOP_SEND, target=-1)
        else:
            return state._replace(phase=Phase.PAWN_CHOOSE)
        events.append(Event("NOTHING_TO_DO", f"The {PIECE_NAMES[piece]} has nothing to act on.", seat))
        return self._after_piece(state, board, events)

    def _king_walk(self, state: State, board: Board, events: list[Event]) -> State:
        total = sum(len(r) for r in state.coins)
        pos = state.king + state.x
        if pos > total:
            events.append(
                Event(
                    "KING_HOME",
                    "The King returns to Sigtuna: the Thing is held at the end of the turn.",
                    state.turn,
                    EventDetail(0),
                )
            )
            state = state._replace(king=0, thing_pending=True)
        else:
            events.append(
                Event(
                    "KING_MOVED",
                    f"The King walks {_count(state.x, 'coin')} clockwise.",
                    state.turn,
                    EventDetail(pos),
                )
            )
            state = state._replace(king=pos)
        return self._after_piece(state._replace(king_used=True), board, events)

    def _move_pawn(self, state: State, p: int, board: Board, events: list[Event]) -> State:
        node = state.pawns[p]
        steps = state.x
        sigtuna = board.sigtuna
        roads, difficult, advance = state.roads, board.difficult, board.advance
        others = state.pawns[:p] + state.pawns[p + 1 :]
        stops_at_pawns = state.options.pawns_stop_at_pawns
        owners: list[int] = []
        start = node
        stop = ""
        while True:
            crossed, nxt = advance[node]
            if nxt == sigtuna:
                cost = 1
            else:
                if roads[nxt]:
                    break
                cost = 2 if difficult[nxt] else 1
            if cost > steps:
                break
            steps -= cost
            for cr in crossed:
                owner = state.runestones[cr]
                if owner >= 0:
                    owners.append(owner)
            node = nxt
            if node == sigtuna:
                stop = "reached Sigtuna"
                break
            if stops_at_pawns and node in others:
                stop = "landed on another pawn"
                break
        # "lands on another pawn" (assumption PAWN_ARRIVES): the pawn ends its move on that pawn's
        # space, having walked at least one step; it passes over pawns on the way.
        if not stop and node != start and node in others:
            stop = "landed on another pawn"
        seat = state.turn
        events.append(
            Event(
                "PAWN_MOVED",
                f"The pawn walked from {board.node_name(start)} to {board.node_name(node)}.",
                seat,
                EventDetail(node, (), (p,)),
            )
        )
        payers = tuple(owners)
        if stop:
            events.append(
                Event(
                    "PAWN_ARRIVED", f"The pawn {stop}: it returns to a starting star.", seat, EventDetail(p)
                )
            )
            payers = (*payers, seat)
        state = state._replace(pawns=_set(state.pawns, p, node), payers=payers, pawn=p if stop else -1)
        return self._next_payer(state, board, events)

    def _next_payer(self, state: State, board: Board, events: list[Event]) -> State:
        payers = state.payers
        while payers and not state.sizes[payers[0]]:
            events.append(
                Event(
                    "NO_STONE_TO_PLACE",
                    f"{_who(payers[0])} has no stone in their House to place.",
                    payers[0],
                )
            )
            payers = payers[1:]
        if payers:
            return state._replace(phase=Phase.PAY_STONE, actor=payers[0], payers=payers)
        state = state._replace(payers=(), actor=state.turn)
        if state.pawn >= 0:
            return state._replace(phase=Phase.PAWN_RETURN)
        return self._after_piece(state, board, events)

    def _after_piece(self, state: State, board: Board, events: list[Event]) -> State:
        state = state._replace(piece=0, x=0, target=-1, actor=state.turn)
        if state.chosen:
            return state._replace(phase=Phase.LEVERAGE_ASSIGN)
        return self._cleanup(state, board, events)

    def _cleanup(self, state: State, board: Board, events: list[Event]) -> State:
        bowls = state.bowls
        last = tuple(sorted(bowls[-2] + bowls[-1]))
        bowls = (tuple(sorted(state.taken)), *state.bowls[:-2], last)
        events.append(
            Event("CLEAN_UP", "The market shifts down; the used pieces go to the top bowl.", state.turn)
        )
        state = state._replace(bowls=bowls, taken=(), dice=(), chosen=())
        if state.thing_pending:
            events.append(Event("THING_HELD", "The Thing is held.", None))
            return self._next_voter(state._replace(step=0, best_vote=0), board, events)
        return self._start_turn(state, (state.turn + 1) % state.players, events)

    # -- the Thing -------------------------------------------------------------------

    def _next_voter(self, state: State, board: Board, events: list[Event]) -> State:
        order = _hier_seats(state)
        if state.step < len(order):
            return state._replace(phase=Phase.THING_VOTE, actor=order[state.step])
        on_roads = dice_on_roads(state)
        best = state.best_vote
        if best and best >= on_roads:
            if state.hierarchy_penning:
                events.append(
                    Event(
                        "THEGN_VOTE",
                        f"The highest die {best} is at least the {on_roads} dice on roads, "
                        "and the coin already shows Penning.",
                        None,
                    )
                )
                return self._finish(state, THEGN, board, events)
            events.append(
                Event(
                    "HIERARCHY_COIN_FLIPPED",
                    f"The highest die {best} is at least the {on_roads} dice on roads: "
                    "the Hierarchy coin turns to Penning.",
                    None,
                )
            )
            state = state._replace(hierarchy_penning=True)
        else:
            events.append(Event("THING_UNMOVED", "Royalty did not find enough support.", None))
        return self._next_coin(state._replace(step=0), board, events)

    def _next_coin(self, state: State, board: Board, events: list[Event]) -> State:
        order = _hier_seats(state)
        if state.step < len(order) and _coin_supply(state, board) > 0:
            return state._replace(phase=Phase.THING_COINS, actor=order[state.step])
        things = state.things + 1
        state = state._replace(things=things, thing_pending=False, step=0)
        if things >= board.things_to_end:
            kind = THEGN if state.hierarchy[0] == COIN else JARL
            return self._finish(state, kind, board, events)
        return self._start_turn(state, (state.turn + 1) % state.players, events)

    # -- the end ---------------------------------------------------------------------

    def _finish(self, state: State, kind: int, board: Board, events: list[Event]) -> State:
        order = _hier_seats(state)
        counts = [pennings(state, s, blocked=False) for s in range(state.players)]
        most = max(counts)
        if kind == THEGN:
            first = next(s for s in order if counts[s] == most)
        else:
            rest = [s for s in order if counts[s] != most] or list(order)
            first = rest[0]
        events.append(
            Event(
                "GAME_ENDS",
                f"The game ends in the {VICTORY_NAMES[kind]}: {_who(first)} holds the victory.",
                first,
            )
        )
        state = state._replace(
            victory=kind, chain=(first,), dice=(), chosen=(), pairs=0, piece=0, x=0, payers=(), pawn=-1
        )
        return self._heir_step(state, board, events)

    def _heir_step(self, state: State, board: Board, events: list[Event]) -> State:
        current = state.chain[-1]
        row = state.houses[current]
        most = max(row)
        if most == 0:
            return self._won(state, (current,), events)
        candidates = [c for c, k in enumerate(row) if k == most]
        if len(candidates) > 1:
            return state._replace(phase=Phase.HEIR, actor=current)
        return self._heir_chosen(state, candidates[0], board, events)

    def _heir_chosen(self, state: State, heir: int, board: Board, events: list[Event]) -> State:
        chain = state.chain
        current = chain[-1]
        if heir == current:
            return self._won(state, (current,), events)
        if heir in chain:
            circle = chain[chain.index(heir) :]
            events.append(
                Event(
                    "COALITION",
                    "A complete circle of Heirs forms a Coalition: "
                    + ", ".join(_who(s) for s in circle)
                    + ".",
                    heir,
                    EventDetail(0, (), circle),
                )
            )
            if state.victory == THEGN:
                return self._won(state, tuple(sorted(circle)), events)
            order = _hier_seats(state)
            best = max(circle, key=lambda s: (state.sizes[s], -order.index(s)))
            return self._won(state, (best,), events)
        events.append(
            Event(
                "HEIR",
                f"{_who(heir)} has the most stones in {_who(current)}'s House "
                "and steals the victory as Heir.",
                heir,
            )
        )
        return self._heir_step(state._replace(chain=(*chain, heir)), board, events)

    def _won(self, state: State, winners: tuple[int, ...], events: list[Event]) -> State:
        events.append(
            Event(
                "GAME_WON",
                ", ".join(_who(s) for s in winners) + " won.",
                winners[0],
                EventDetail(0, (), winners),
            )
        )
        return state._replace(phase=Phase.OVER, actor=-1, winners=winners)

    # -- invariants ------------------------------------------------------------------

    def check_state(self, state: State) -> list[FieldViolation]:
        problems: list[FieldViolation] = []
        add = problems.append
        try:
            board = _board(state)
        except BoardError as err:
            return [FieldViolation("options.board", str(err))]
        n = state.players
        if not 3 <= n <= 5:
            return [FieldViolation("players", "must be 3 to 5")]
        if (
            len(state.sigtuna) != n
            or len(state.houses) != n
            or len(state.sizes) != n
            or len(state.coins) != n
        ):
            return [FieldViolation("houses", f"must describe exactly {n} Houses")]
        unfit = [
            name
            for name, found, wanted in (
                ("bowls", len(state.bowls), len(board.bowl_values)),
                ("roads", len(state.roads), board.spaces),
                ("runestones", len(state.runestones), board.crossroads),
                ("pawns", len(state.pawns), len(board.royal_stars)),
            )
            if found != wanted
        ]
        if unfit:
            return [FieldViolation(name, "the state does not fit the board") for name in unfit]
        if any(k < 0 for k in state.sigtuna):
            add(FieldViolation("sigtuna", "stone counts cannot be negative"))
        hidden = False
        for h, row in enumerate(state.houses):
            if not row:
                hidden = True
                if state.sizes[h] != -1:
                    add(FieldViolation(f"houses[{h}]", "a hidden House has size -1"))
            elif state.sizes[h] < 0:
                add(FieldViolation(f"sizes[{h}]", "cannot be negative"))
            elif len(row) != n or any(k < 0 for k in row) or sum(row) != state.sizes[h]:
                add(
                    FieldViolation(
                        f"houses[{h}]", "must count the stones of every colour, adding up to its size"
                    )
                )
        seats = [s for s in state.hierarchy if s != COIN]
        if (
            len(set(seats)) != len(seats)
            or any(not 0 <= s < n for s in seats)
            or state.hierarchy.count(COIN) > 1
        ):
            add(FieldViolation("hierarchy", "holds each player's stone once and the coin once"))
        setup_hierarchy = state.phase in (Phase.SETUP_MARKET, Phase.SETUP_COINS, Phase.SETUP_HIERARCHY)
        if not setup_hierarchy and len(state.hierarchy) != n + 1:
            add(FieldViolation("hierarchy", "must hold every player's stone and the coin"))
        if not problems and not hidden:
            for c in range(n):
                total = (
                    state.sigtuna[c]
                    + sum(row[c] for row in state.houses)
                    + state.runestones.count(c)
                    + (c in seats)
                )
                if total != board.stones_per_player:
                    add(
                        FieldViolation(
                            "houses",
                            f"{_who(c)} must have {board.stones_per_player} stones in play, not {total}",
                        )
                    )
        if (
            not problems
            and not hidden
            and sum(state.sigtuna)
            + sum(state.sizes)
            + sum(1 for r in state.runestones if r >= 0)
            + len(seats)
            != n * board.stones_per_player
        ):
            add(FieldViolation("sizes", "the House sizes do not add up"))
        if any(not -1 <= r < n for r in state.runestones):
            add(FieldViolation("runestones", "hold a player's colour or -1"))
        if any(not 0 <= v <= 6 for v in state.roads) or any(not 1 <= v <= 6 for v in state.dice):
            add(FieldViolation("roads", "dice show 1 to 6"))
        in_hand = 1 if state.phase in _DIE_IN_HAND_PHASES else 0  # the die waiting to be placed (x)
        if dice_on_roads(state) + len(state.dice) + state.to_roll + in_hand > board.dice:
            add(FieldViolation("roads", f"there are only {board.dice} dice"))
        if _coin_supply(state, board) < 0:
            add(FieldViolation("coins", f"there are only {board.coins_total} coins"))
        total_coins = sum(len(r) for r in state.coins)
        if not 0 <= state.king <= total_coins:
            add(FieldViolation("king", "stands in Sigtuna (0) or on a coin of the King's Path"))
        for p, node in enumerate(state.pawns):
            on_space = 0 <= node < board.spaces
            if not (on_space or board.is_star(node) or (node == board.sigtuna and state.pawn == p)):
                add(FieldViolation(f"pawns[{p}]", "stands on a road space or a starting star"))
            elif on_space and state.roads[node]:
                add(FieldViolation(f"pawns[{p}]", "cannot share a road space with a die"))
        # Under either reading of PAWN_ARRIVES a pawn that ends its move on another pawn returns to a
        # starting star: two pawns share a road space only while one of them waits to return, and that
        # one stands in Sigtuna or on another pawn.
        resting = [node for p, node in enumerate(state.pawns) if p != state.pawn and 0 <= node < board.spaces]
        if len(set(resting)) != len(resting):
            add(FieldViolation("pawns", "two pawns share a road space: a pawn landing on another returns"))
        if 0 <= state.pawn < len(state.pawns):
            node = state.pawns[state.pawn]
            others = state.pawns[: state.pawn] + state.pawns[state.pawn + 1 :]
            if node != board.sigtuna and node not in others:
                add(FieldViolation("pawn", "the pawn waiting to return reached Sigtuna or landed on a pawn"))
        pieces = sorted([p for row in state.bowls for p in row] + list(state.taken))
        if state.phase is not Phase.SETUP_MARKET and pieces != list(board.market_pieces):
            add(FieldViolation("bowls", "every market piece is in one bowl or in use"))
        if not -1 <= state.actor < n or not 0 <= state.turn < n:
            add(FieldViolation("actor", "must be a seat"))
        if state.phase is Phase.OVER:
            if state.victory == NO_VICTORY or (state.victory != EVERYONE_LOSES and not state.winners):
                add(FieldViolation("winners", "a finished game names its victory"))
        elif state.victory != NO_VICTORY and state.phase is not Phase.HEIR:
            add(FieldViolation("victory", "is set only once the game ends"))
        if not problems:
            problems.extend(self._phase_problems(state, board))
        ply_problem = check_ply(state.ply)
        if ply_problem is not None:
            add(ply_problem)
        return problems

    def _phase_problems(self, state: State, board: Board) -> list[FieldViolation]:
        """The invariants each phase needs, so that no decoded state can trip the engine."""
        n, phase = state.players, state.phase
        out: list[FieldViolation] = []
        add = out.append
        if not all(0 <= x < n for x in state.chain + state.winners + state.payers):
            add(FieldViolation("chain", "chain, winners and payers hold seats"))
        if not (
            0 <= state.x <= 6 and 0 <= state.best_vote <= 6 and 0 <= state.pairs <= 6 and state.to_roll >= 0
        ):
            add(FieldViolation("x", "x, best_vote and pairs are die-sized, to_roll is not negative"))
        if not (0 <= state.gathered < 1 << n and 0 <= state.asked < 1 << n and 0 <= state.moved <= 100):
            add(FieldViolation("gathered", "gathered and asked are bit sets of seats; moved is a count"))
        if not (-1 <= state.blessing < n and -1 <= state.target < n and -1 <= state.pawn < len(state.pawns)):
            add(FieldViolation("blessing", "blessing and target are seats or -1, pawn a pawn or -1"))
        if not 0 <= state.piece <= KING or state.step < 0:
            add(FieldViolation("piece", "must be a chess piece or 0"))
        if any(not 0 <= b < len(board.bowl_values) or not KNIGHT <= p <= KING for b, p in state.chosen):
            add(FieldViolation("chosen", "chosen pieces name a bowl and a piece"))
        if len(state.chosen) > 2 or len({b for b, _ in state.chosen}) != len(state.chosen):
            add(FieldViolation("chosen", "at most 2 different bowls are chosen"))
        if state.target >= 0 and phase not in (Phase.BISHOP_SEND, Phase.SETUP_SEND):
            add(FieldViolation("target", "names a House only while the Bishop or the setup sends stones"))
        if state.pawn >= 0 and phase not in (Phase.PAY_STONE, Phase.PAWN_RETURN):
            add(FieldViolation("pawn", "a pawn waits to return only while stones are placed or it returns"))
        over = phase is Phase.OVER or phase is Phase.HEIR
        if not over and not 0 <= state.things < board.things_to_end:
            add(FieldViolation("things", f"the game ends at Thing {board.things_to_end}"))
        if out:
            return out
        actor, turn, step = state.actor, state.turn, state.step
        order = _hier_seats(state) if len(state.hierarchy) == n + 1 else ()
        per = board.coins_per_player_at_3 if n == 3 else board.coins_per_player
        want_actor = turn
        why = ""
        if phase is Phase.SETUP_MARKET:
            want_actor = -1
            if (
                step != sum(len(b) for b in state.bowls)
                or step >= len(board.market_pieces)
                or state.hierarchy
            ):
                why = "the market is filled bowl by bowl from the top before anything else"
        elif phase is Phase.SETUP_COINS:
            want_actor = step // per
            if step != sum(len(r) for r in state.coins) or step >= per * n or state.hierarchy:
                why = "the starting coins are placed one by one, seat by seat"
        elif phase is Phase.SETUP_HIERARCHY:
            want_actor = -1
            if (
                len(state.hierarchy) >= n
                or COIN in state.hierarchy
                or sum(len(r) for r in state.coins) != per * n
            ):
                why = "the Hierarchy is filled after the coins, one stone at a time"
        elif phase is Phase.SETUP_ROADBLOCK_ROLL or phase is Phase.SETUP_ROADBLOCK_PLACE:
            want_actor = order[n - 1] if order else -2
            if dice_on_roads(state) or (
                phase is Phase.SETUP_ROADBLOCK_PLACE and not (state.x >= 1 and _empty_spaces(state))
            ):
                why = "the first roadblock is rolled and placed on an empty road space"
        elif phase in _SETUP_PLAYER_PHASES:
            want_actor = order[step] if order and step < n else -2
            if phase is Phase.SETUP_RUNESTONE and not (1 <= state.x <= 2 and -1 in state.runestones):
                why = "a setup runestone needs an empty crossroads"
            if phase is Phase.SETUP_SIGTUNA and not 1 <= state.x <= 4:
                why = "4 stones are placed in Sigtuna"
            if phase is Phase.SETUP_SEND and not (1 <= state.x <= 4 and state.target not in (-1, turn)):
                why = "setup stones go to every other House"
            if (
                phase in (Phase.SETUP_RUNESTONE, Phase.SETUP_SIGTUNA, Phase.SETUP_SEND)
                and not state.sizes[turn]
            ):
                why = "setup stones come from the House"
            if phase is Phase.SETUP_DIE_PLACE and not (state.x >= 1 and _empty_spaces(state)):
                why = "a rolled die is placed on an empty road space"
            if actor != turn:
                why = "the player setting up is on turn"
        elif phase is Phase.BLESSING:
            want_actor = state.blessing
            if state.blessing in (-1, turn) or not state.asked >> state.blessing & 1:
                why = "a blessing is asked of another player"
        elif phase is Phase.GATHER_BLESSED:
            c = state.blessing
            if (
                c in (-1, turn)
                or state.gathered >> c & 1
                or min(_gather_cap(state, board), state.sigtuna[c]) <= 0
            ):
                why = "the blessed player's stones wait in Sigtuna"
        elif phase is Phase.GATHER:
            if state.dice or state.to_roll or state.blessing != -1 or _supply(state, board) < 1:
                why = "gathering comes before the roll"
        elif phase is Phase.ROLL:
            if not state.to_roll >= 1 or _supply(state, board) < state.to_roll:
                why = "a die of the pool is left to roll"
        elif phase is Phase.FEAST_SEND or phase is Phase.FEAST_FAVOUR:
            if not state.dice or not state.pairs or (phase is Phase.FEAST_SEND and not state.sizes[turn]):
                why = "a feast pair is being resolved"
        elif phase is Phase.LEVERAGE_CHOOSE:
            if (
                not state.dice
                or len(state.chosen) >= min(2, len(state.dice))
                or not self._bowl_choices(state, board)
            ):
                why = "a market bowl is left to choose"
        elif phase is Phase.LEVERAGE_ASSIGN:
            if not state.chosen or len(state.dice) < len(state.chosen):
                why = "a chosen piece waits for a die"
        elif phase in _PIECE_PHASES:
            piece, x = _PIECE_PHASES[phase], state.x
            if state.piece != piece or not x >= 1:
                why = "the piece being resolved matches the step"
            elif phase is Phase.KING_RUNESTONE and not (state.sizes[turn] and -1 in state.runestones):
                why = "the King's runestone needs a stone and an empty crossroads"
            elif phase is Phase.ROOK_PLACE and not _empty_spaces(state):
                why = "the Rook needs an empty road space"
            elif phase is Phase.KNIGHT_REMOVE and not any(v and v <= x for v in state.roads):
                why = "the Knight needs a die of value X or less"
            elif phase is Phase.BISHOP_SEND and (not state.sizes[turn] or state.target == turn):
                why = "the Bishop sends stones from a House that has some to another House"
        elif phase is Phase.PAY_STONE:
            want_actor = state.payers[0] if state.payers else -2
            if not state.payers or not state.sizes[state.payers[0]]:
                why = "the player placing a stone has one"
        elif phase is Phase.PAWN_RETURN:
            if state.pawn < 0:
                why = "a pawn waits to return"
        elif phase in (Phase.THING_VOTE, Phase.THING_ROLL, Phase.THING_COINS):
            want_actor = order[step] if order and step < n else -2
            if phase is not Phase.THING_COINS and not state.thing_pending:
                why = "the Thing is held when the King returns to Sigtuna"
            if phase is Phase.THING_COINS and _coin_supply(state, board) <= 0:
                why = "coins are left in the supply"
        elif phase is Phase.HEIR:
            want_actor = state.chain[-1] if state.chain else -2
            if state.victory not in (THEGN, JARL) or not state.chain or len(self._heir_candidates(state)) < 2:
                why = "an Heir tie is broken after a victory"
        elif phase is Phase.OVER:
            want_actor = -1
        if phase in _TURN_PHASES and (step != 0 or not order):
            why = why or "during a turn the step counter is 0"
        if why:
            add(FieldViolation("phase", f"{phase.value}: {why}"))
        if actor != want_actor:
            add(FieldViolation("actor", f"must be {want_actor} in {phase.value}"))
        if (
            not out
            and phase not in CHANCE_PHASES
            and phase is not Phase.OVER
            and not any(row == () for row in state.houses)
        ) and not self.legal_moves(state):
            add(FieldViolation("phase", "the player to act has no move"))
        return out

    # -- description -------------------------------------------------------------------

    def describe(self) -> Description:
        b = REFERENCE
        nodes = {
            "road_spaces": [0, b.spaces - 1],
            "crossroads": [b.spaces, b.spaces + b.crossroads - 1],
            "starting_stars": [b.spaces + b.crossroads, b.sigtuna - 1],
            "sigtuna": b.sigtuna,
            "description": "PaxPenningState.pawns holds node numbers: road spaces, crossroads and stars "
            "are numbered in the order listed in board, then Sigtuna. Moves and roads/runestones use "
            "the index within their own list.",
        }
        roads = [{"star": b.star_ids[i], "path": b.road_from(b.star_node(i))} for i in range(len(b.star_ids))]
        data = {"board": b.data, "pieces": PIECE_NAMES_BY_CODE, "nodes": nodes, "roads": roads}
        return Description(OPTIONS, data, ASSUMPTIONS)


PIECE_NAMES_BY_CODE = {str(k): v for k, v in PIECE_NAMES.items()}


def _market_rest(state: State, board: Board) -> list[int]:
    rest = list(board.market_pieces)
    for row in state.bowls:
        for p in row:
            rest.remove(p)
    return rest


def _hierarchy_rest(state: State) -> list[int]:
    return [s for s in range(state.players) if s not in state.hierarchy]


_PIECE_PHASES = {
    Phase.KING_RUNESTONE: KING,
    Phase.ROOK_PLACE: ROOK,
    Phase.KNIGHT_REMOVE: KNIGHT,
    Phase.BISHOP_SEND: BISHOP,
    Phase.PAWN_CHOOSE: PAWN,
}
_TURN_PHASES = frozenset(
    {
        Phase.GATHER,
        Phase.BLESSING,
        Phase.GATHER_BLESSED,
        Phase.ROLL,
        Phase.FEAST_SEND,
        Phase.FEAST_FAVOUR,
        Phase.LEVERAGE_CHOOSE,
        Phase.LEVERAGE_ASSIGN,
        Phase.PAY_STONE,
        Phase.PAWN_RETURN,
        *_PIECE_PHASES,
    }
)
_DIE_IN_HAND_PHASES = frozenset({Phase.ROOK_PLACE, Phase.SETUP_ROADBLOCK_PLACE, Phase.SETUP_DIE_PLACE})
_SETUP_PLAYER_PHASES = frozenset(
    {
        Phase.SETUP_SIGTUNA,
        Phase.SETUP_SEND,
        Phase.SETUP_RUNESTONE,
        Phase.SETUP_DIE_ROLL,
        Phase.SETUP_DIE_PLACE,
    }
)
_DIE_CHANCES: dict[str, Chance[Move]] = {}


def _die_chance(description: str) -> Chance[Move]:
    found = _DIE_CHANCES.get(description)
    if found is None:
        found = Chance(description, tuple(ChanceOutcome(Draw(v), 1 / 6, f"a {v}") for v in range(1, 7)))
        if len(_DIE_CHANCES) < 4096:
            _DIE_CHANCES[description] = found
    return found


def _coin_chance(description: str) -> Chance[Move]:
    return Chance(
        description,
        (ChanceOutcome(Draw(1), 0.5, "Penning side up"), ChanceOutcome(Draw(0), 0.5, "Silver side up")),
    )


_EXPECTED: dict[Phase, tuple[type, ...]] = {
    Phase.GATHER: (Gather, AskBlessing, Roll),
    Phase.BLESSING: (Bless,),
    Phase.GATHER_BLESSED: (Gather,),
    Phase.FEAST_SEND: (SendStone,),
    Phase.FEAST_FAVOUR: (ChangeStanding, AnnounceLoyalty),
    Phase.LEVERAGE_CHOOSE: (ChooseBowl,),
    Phase.LEVERAGE_ASSIGN: (Resolve,),
    Phase.KING_RUNESTONE: (PlaceRunestone,),
    Phase.SETUP_RUNESTONE: (PlaceRunestone,),
    Phase.SETUP_SIGTUNA: (PlaceStone,),
    Phase.SETUP_SEND: (SendStone,),
    Phase.ROOK_PLACE: (PlaceDie,),
    Phase.SETUP_ROADBLOCK_PLACE: (PlaceDie,),
    Phase.SETUP_DIE_PLACE: (PlaceDie,),
    Phase.KNIGHT_REMOVE: (RemoveDie,),
    Phase.BISHOP_SEND: (SendStone,),
    Phase.PAWN_CHOOSE: (MovePawn,),
    Phase.PAY_STONE: (PlaceStone,),
    Phase.PAWN_RETURN: (ReturnPawn,),
    Phase.THING_VOTE: (Vote,),
    Phase.HEIR: (ChooseHeir,),
    **{p: (Draw,) for p in CHANCE_PHASES},
}

_WAITING: dict[Phase, str] = {
    Phase.SETUP_MARKET: "the market pieces are being placed at random",
    Phase.SETUP_COINS: "the starting coins are being placed with a random side up",
    Phase.SETUP_HIERARCHY: "the Hierarchy is being filled in a random order",
    Phase.SETUP_ROADBLOCK_ROLL: "the last player in the Hierarchy rolls the first roadblock die",
    Phase.SETUP_ROADBLOCK_PLACE: "the first roadblock die is placed on an empty road space",
    Phase.SETUP_RUNESTONE: "a setup runestone is placed on an empty crossroads",
    Phase.SETUP_SIGTUNA: "a setup stone is placed in Sigtuna",
    Phase.SETUP_SEND: "a setup stone is placed in another player's House",
    Phase.SETUP_DIE_ROLL: "a player rolls a die to place on a road",
    Phase.SETUP_DIE_PLACE: "the rolled die is placed on an empty road space",
    Phase.GATHER: "the player on turn gathers, moving stones from Sigtuna, asking for a blessing or rolling",
    Phase.BLESSING: "the asked player gives or refuses their blessing",
    Phase.GATHER_BLESSED: "the blessed player's stones are moved",
    Phase.ROLL: "the dice pool is being rolled",
    Phase.FEAST_SEND: "a pair moves 1 stone from your House to another player's House",
    Phase.FEAST_FAVOUR: "a pair gives a Change Standing or an Announce Loyalty",
    Phase.LEVERAGE_CHOOSE: "choose a market bowl",
    Phase.LEVERAGE_ASSIGN: "assign a die to a chosen piece",
    Phase.KING_RUNESTONE: "the King places a runestone",
    Phase.ROOK_PLACE: "the Rook places its die on an empty road space",
    Phase.KNIGHT_REMOVE: "the Knight removes a die from a road space",
    Phase.BISHOP_SEND: "the Bishop moves stones to another player's House",
    Phase.PAWN_CHOOSE: "choose the pawn that walks",
    Phase.PAY_STONE: "a player places 1 stone from their House in Sigtuna",
    Phase.PAWN_RETURN: "the pawn returns to a starting star",
    Phase.THING_VOTE: "the Thing votes on supporting royalty",
    Phase.THING_ROLL: "a supporter rolls 1 die",
    Phase.THING_COINS: "the Vikings come home with coins",
    Phase.HEIR: "a House owner breaks a tie for their Heir",
    Phase.OVER: "the game is over",
}


OPTIONS = (
    OptionInfo(
        "board",
        "The map as JSON text in the shape of the reference board served under data.board; empty = the "
        "reference map. It is validated like the reference map.",
        "",
    ),
    OptionInfo(
        "gathering_limited_by_dice",
        "Gathering: a player may move only as many stones from Sigtuna as there are dice left for them "
        "(by default any number may be moved; the pool is capped by the dice in the supply).",
        "false",
        ("true", "false"),
    ),
    OptionInfo(
        "pawns_stop_at_pawns",
        "Pawn: a walking pawn stops on the first pawn it steps onto, so pawns never pass each other (by "
        "default it passes over pawns and lands on one only when it ends its move on that pawn's space).",
        "false",
        ("true", "false"),
    ),
)

ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        "REFERENCE_BOARD",
        "Map Legend - A. Printed chess piece - B. Market Bowl value - C. Starting Star - D. Road space - "
        "E. Difficult Road space - F. Top of the Hierarchy - G. Bottom of the Hierarchy - H. Sigtuna - "
        "I. The King's Path",
        "The map was a picture; the reference map (board.json, served as data.board) has 5 starting stars, "
        "23 road spaces (5 difficult) on roads of 5 spaces each that join at 8 crossroads on the way to "
        "Sigtuna, 6 market "
        "bowls valued 4, 3, 2, 1, 0 (printed Pawn), 0 (printed King) from the top, and 6 hierarchy slots. "
        "Every road space and crossroads has exactly one next node towards Sigtuna.",
        "board",
    ),
    Assumption(
        "SEATING",
        "The King's Path starts in Sigtuna and continues clockwise along the player coins (starting with "
        "the player sitting to the left of Sigtuna).",
        "Seat 0 sits to the left of Sigtuna and seats follow clockwise (turn order is seat + 1). The King's "
        "Path is Sigtuna, then every coin of seat 0 in the order taken, then seat 1, ..., then Sigtuna. "
        "State.king = 0 in Sigtuna, k on the k-th coin.",
    ),
    Assumption(
        "RANDOM_SETUP_STEPS",
        "Place the Knight, Bishop, Rook, and last Pawn randomly in the top 4 market bowls (1 per bowl). ... "
        "coins in front of your screen with a random side up ... Fill the Hierarchy with 1 stone from each "
        "player in a random order.",
        "Each random part is a chance step of its own, one item at a time: the piece for the next top "
        "bowl (uniform among those left), the side of each coin (1/2 each, seat by seat), the player for "
        "the next hierarchy slot (uniform among those left), every die (1/6 each).",
    ),
    Assumption(
        "THREE_PLAYER_EXTRAS",
        "At 3 players: Start with 1 more coin. Place 2 more stones in the other players' Houses and 1 "
        "more stone at an empty Crossroads.",
        "Each player starts with 3 coins, places 2 more stones in each other player's House (4 to each, "
        "so every House receives 8 stones as at 5 players) and raises 2 setup runestones.",
    ),
    Assumption(
        "SETUP_STONES",
        "In Hierarchy Order (top to bottom), each player places 4 stones in Sigtuna, 2 stones in every "
        "other player's House, 1 stone at an empty Crossroads as a Runestone, and rolls and places 1 die "
        "on an empty Road. ... You can always place and give stones of any color from your House.",
        "Each setup stone is a decision of its own: the colour of each of the 4 Sigtuna stones, of each "
        "stone for the other Houses (filled clockwise from the player's left, the sent colours secret as "
        "when sending), the runestone's crossroads and colour, then the die's road space. The hierarchy "
        "stone, placed before anyone has sent a stone, is the player's own colour.",
    ),
    Assumption(
        "EMPTY_ROAD",
        "rolls and places 1 die on an empty Road.",
        "Read as an empty road space (no die and no pawn on it), like the first roadblock: at 5 players "
        "six setup dice would not fit on five roads otherwise.",
    ),
    Assumption(
        "HIDDEN_HOUSES",
        "Place the stones behind your screen ... When sending stones to another House, keep them secret!",
        "The number and the colours of the stones in a House are secret to everyone but its owner, as "
        "behind a real screen (a player who follows every public move can still count them). "
        "view(state, seat) replaces every other House by an empty colour count with size -1 "
        "(PaxPenningHouse.hidden); STONE_SENT events carry the colour with secret=true and "
        "viewers=(sender, receiver), and view_event drops it for everyone else; no event text names a "
        "secret colour; view_move shows another seat's SendStone with colour -1 to everyone but the "
        "receiver (the session service applies it to every move log); moves that show a House's stone "
        "to anyone cannot be undone (reveals).",
    ),
    Assumption(
        "DICE_SUPPLY",
        "Roll 1 die per Silver you have plus 1 die per stone you choose to move from Sigtuna to your "
        "House. ... If you cannot get any dice, you still roll 1 die.",
        "The pool is min(dice in the supply, max(1, Silvers + stones moved)); the supply is the 12 dice "
        "minus those on roads. Moving stones is never limited by the dice: a player may move any number "
        "of their stones (or a blessing player's) from Sigtuna and rolls as many dice as the supply "
        "allows.",
        "gathering_limited_by_dice=true (a player may move at most as many stones as there are dice left "
        "for them: supply - Silvers - stones already moved)",
    ),
    Assumption(
        "BLESSING",
        "With another player's blessing, you may move their stones to your House.",
        "During gathering the player may ask each other player with stones in Sigtuna once per turn; the "
        "asked player answers (a decision of theirs, not on turn). After a blessing the player moves 1 or "
        "more of that colour. Own-colour stones need no blessing; each colour is moved in one go.",
    ),
    Assumption(
        "PAIRS",
        "3 of a kind counts as 1 pair. 4 of a kind counts as 2 pairs.",
        "Each value rolled k times gives floor(k / 2) pairs (so 5 of a kind = 2, 6 of a kind = 3); "
        "different values add up (1-1-4-4 = 2 pairs).",
    ),
    Assumption(
        "FEAST_ORDER",
        "For each set of pairs rolled, move 1 stone from your House to another player's House and choose one",
        "Pairs are resolved one at a time: first the stone (colour and House), then Change Standing or "
        "Announce Loyalty. With an empty House no stone moves but the choice is still made.",
    ),
    Assumption(
        "CHANGE_STANDING",
        "Change Standing — Swap 2 adjacent pieces in the Hierarchy.",
        "The Hierarchy coin is one of the pieces: it can be swapped with an adjacent stone.",
    ),
    Assumption(
        "ANNOUNCE_LOYALTY",
        "Announce Loyalty — Flip any player coin to its other side.",
        "Any coin in front of any screen, the player's own included; the Hierarchy coin is not a player "
        "coin.",
    ),
    Assumption(
        "LEVERAGE_ORDER",
        "Choose 2 market bowls. ... Take 1 chess piece from each, assign them 1 die you rolled, and "
        "resolve them (if you only have 1 die, choose 1).",
        "Both bowls are chosen first (each against the Pennings at that moment, the piece named when a "
        "bowl holds several kinds), then the player assigns a die to either chosen piece and resolves it, "
        "then the other. An empty bowl without a printed piece cannot be chosen. Leveraging is not "
        "optional.",
    ),
    Assumption(
        "KING_ONCE",
        "You can only take the King's action once per turn.",
        "The printed King can be chosen only when the King's action was not taken this turn and is not "
        "already chosen (this matters for maps with more than one printed King).",
    ),
    Assumption(
        "KING_RUNESTONE",
        "Place a stone from your House on an empty Crossroads as a Runestone, then move the King X player "
        "coins clockwise.",
        "Any colour from the House may be raised. With an empty House or no empty crossroads the King "
        "only walks. The walk's full value is X; the King stops in Sigtuna, which holds the Thing at the "
        "end of the turn.",
    ),
    Assumption(
        "BLOCKED_COIN",
        "the coin that the King is standing on is blocked (it gives no bonus dice nor does it increase "
        "your market reach).",
        "The blocked coin counts neither as a Silver for the dice nor as a Penning for market reach; it "
        "still counts for the Thegn's and Jarl's Victories (the King stands in Sigtuna at every end "
        "anyway).",
    ),
    Assumption(
        "RUNESTONE_OWNER",
        "For each runestone you pass, its owner places 1 stone from their House in Sigtuna.",
        "A runestone's owner is the player of its stone's colour (the map only shows the colour). The "
        "mover pays for their own runestones too. Owners pay in the order passed, each choosing the "
        "colour (a decision, not on turn); an owner with an empty House pays nothing.",
    ),
    Assumption(
        "ROOK_LAST_DIE",
        "If you place the last die, the game ends and everyone loses.",
        "The last die is placed when, after the Rook's placement, all 12 dice stand on roads. With no "
        "empty road space the Rook does nothing.",
    ),
    Assumption(
        "KNIGHT",
        "Remove a die with value X or less from a Road space.",
        "The removed die returns to the supply. With no such die the Knight does nothing.",
    ),
    Assumption(
        "BISHOP_ONE_HOUSE",
        "Move X stones from your House to another player's House.",
        "All X stones go to one House, chosen with the first stone; each stone's colour is chosen one at "
        "a time. The Bishop stops early only when the House is empty.",
    ),
    Assumption(
        "PAWN_WALK",
        "Move a pawn X Road spaces towards Sigtuna. Difficult Road spaces count as 2 steps and dice "
        "cannot be passed.",
        "Any of the pawns may be chosen; it walks along the single road to Sigtuna as far as X allows "
        "(full value unless it cannot walk further). Entering a difficult space costs 2, a space with a "
        "die cannot be entered, crossroads cost nothing, entering Sigtuna costs 1 step.",
    ),
    Assumption(
        "PAWN_ARRIVES",
        "If the pawn reaches Sigtuna or lands on another pawn, place 1 stone in Sigtuna, return the pawn "
        "to a starting star of your choice and stop moving.",
        "A pawn lands on another pawn when it ends its move on that pawn's road space (after walking X, or "
        "earlier when a die or a difficult space stops it); it passes over pawns on the way. The mover "
        "places the stone (any colour, after the runestone owners pay) and then picks any starting star; "
        "several pawns may share a star.",
        "pawns_stop_at_pawns=true (stepping onto a pawn's space is landing on it: the pawn stops on the "
        "first pawn it reaches and pawns never pass each other)",
    ),
    Assumption(
        "CLEAN_UP",
        "Move all chess pieces 1 bowl down (they gather in the zero value King bowl), then place the chess "
        "pieces you used in the top bowl.",
        "Every bowl's pieces move to the bowl below; the bottom King bowl keeps its pieces and receives "
        "those above; pieces taken from bowls this turn go to the top bowl. Printed pieces stay printed.",
    ),
    Assumption(
        "THING_VOTE",
        "In Hierarchy order, each player decides if they want to support Olof Skötkonung. If they do, they "
        "roll 1 die. If the highest rolled die is equal to or greater than the number of dice on roads, "
        "flip the Hierarchy Coin to the Penning side.",
        "The Thing starts after clean up. Players vote one by one, each seeing the earlier dice. Without a "
        "supporter nothing flips. The check is made after the last vote.",
    ),
    Assumption(
        "VIKINGS_HOME",
        "Each player takes 1 coin from the supply and places it in front of their screen with a random "
        "side up.",
        "Coins are taken in hierarchy order while the 21-coin supply lasts (at 5 players it is empty by "
        "the third Thing). A new coin joins the end of its owner's coins on the King's Path.",
    ),
    Assumption(
        "THEGN_TIES",
        "The player with the most Pennings wins. Ties are broken in Hierarchy Order.",
        "Pennings are coins Penning side up; the tied player highest in the Hierarchy wins.",
    ),
    Assumption(
        "JARL_ALL_TIED",
        "The player highest in Hierarchy Order wins, excluding the player(s) with the most Pennings.",
        "If every player has the most Pennings, nobody is excluded.",
    ),
    Assumption(
        "HEIRS",
        "If you have the most stones in the winner's House, you steal their victory as their Heir. ... You "
        "break ties in your House as you wish.",
        "The stones of each colour in the holder's House are counted, the holder's own colour included; "
        "a unique most is the Heir (the holder themself: no Heir). A tie is broken by the House owner "
        "(ChooseHeir, possibly themself). An empty House has no Heir.",
    ),
    Assumption(
        "COALITIONS",
        "If there's a complete circle of Heirs, those players form a Coalition. ... If the Thegn is in a "
        "Coalition, the entire Coalition wins. ... If the Jarl is in a Coalition, the player with the most "
        "stones in their House wins.",
        "When the chain of Heirs returns to a player already in it, the players of that circle form the "
        "Coalition that holds the victory: for a Thegn's Victory all of them win; for a Jarl's Victory the "
        "member with the most stones in their House wins (ties: higher in the Hierarchy), with no further "
        "Heir.",
    ),
    Assumption(
        "THIRD_THING",
        "If this is the third Thing, the game ends in the Thegn's Victory if the Coin is at the top of the "
        "Hierarchy, or the Jarl's Victory otherwise.",
        "Checked after the coins of the third Thing are taken; the number of Things is the map's "
        "things_to_end (3).",
    ),
    Assumption(
        "DIE_VALUES_IN_MOVES",
        "assign them 1 die you rolled",
        "Dice of the same value are interchangeable: Resolve names a die by its value.",
    ),
)

GAME = PaxPenning()
