"""What the greedy bot values in Pax Penning: the chance that the seat ends up holding the victory.

The estimate follows the end of the game as the rules define it (``docs/rules/pax-penning.md``,
"Greedy bot: what it values"): which victory it will be (Thegn's or Jarl's), who holds it under
each, and whether an Heir steals it. Who holds each victory is read from odds counted over random
games (:func:`odds_table`) when the game is played with the options they were counted under, and
from a written model of the rules otherwise. Everything is read from the seat's own view: the
seat's own House is known; the other Houses are not, so the seat's chance of being their Heir is
judged only from how many of its stones are outside its House, Sigtuna, the runestones and the
Hierarchy (a number the view gives without showing where they are).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from lawspeaker.games.pax_penning import COIN, GAME, ROOK, Options, Phase, State, dice_on_roads, silvers
from lawspeaker.games.pax_penning.board import board_for

# The weights below are decisions of this project (see the rules document); they were tuned so
# that a one-ply greedy player clearly beats uniformly random players.
SUPPORTERS_SHARE = 0.5
"""The share of the players expected to support royalty at a future Thing."""
DICE_PER_THING = 1
"""The dice expected to be added to the roads before each Thing still to come."""
UNDECIDED_SUPPORT = 0.5
"""The chance that a player yet to vote at the current Thing supports royalty."""
COIN_AT_TOP = (0.85, 0.25, 0.08, 0.03)
"""The chance that the Hierarchy coin is at the top at the last Thing, by its current slot, were the
game to end now; the further the end, the more it is blended with a uniform guess."""
TIE_BREAK = 0.4
"""The Thegn's tie-break in Pennings: a place higher in the Hierarchy is worth this much of a Penning
between the top and the bottom (under 1, so a Penning always counts more)."""
HIERARCHY_BLUR = 1.5
"""How fast the Hierarchy order stops telling the Jarl: with w King's walks left, its reading is
blended towards a uniform guess by w / (w + this)."""
PENNING_BLUR = 0.5
"""How uncertain Penning counts are per King's walk left (the temperature is 0.5 + this x walks)."""
PAIR_WORTH = 0.03
"""What a feast pair still to come adds, as a share of the distance to a sure win."""
PAIRS_CAP = 0.2
"""The most that pairs to come can add."""
GRANT_CHANCE = 0.5
"""The chance that another player asked for their blessing grants it (their answer is their own
decision: half is the guess), counted in the dice a gathering may still bring."""
HAZARD_DICE = 4
"""The last die becomes a worry once the roads hold all but this many dice."""
HAZARD_PER_DIE = 0.02
"""The chance of everyone losing grows with the square of the dice beyond that point."""
HEIR_SHARPNESS = 1.5
"""How fast keeping the victory from one's own Heir grows with the lead of one's own colour."""
HEIR_OUTSIDE = 0.45
"""The greatest chance of being the Heir of a House one cannot see, reached with many stones outside."""
KEEP_UNTIL = 2.0
"""The King's walks left (:func:`_time_left`) above which a seat's own stones in Sigtuna are kept
for later (:data:`KEEP_WORTH`) rather than gathered: pairs grow faster than the dice rolled (two dice
give 0.17 pairs, four 0.80, six 1.63) and a place won in the Hierarchy late is more likely to last,
so one large roll near the end is worth more than several small ones before it."""
KEEP_WORTH = 0.02
"""What each of the seat's own stones in Sigtuna adds while more than :data:`KEEP_UNTIL` walks are
left, as a share of the distance to a sure win: more than one more die adds to a roll now (at most
0.46 pairs, times :data:`PAIR_WORTH`), so the seat keeps them."""
KEEP_LATE = 0.001
"""What each such stone adds once the end is near: less than the first die it would add to a roll
(so the seat gathers them), but not nothing (so it does not give another player its blessing to
take them)."""


ODDS_PATH = Path(__file__).with_name("pax_penning_odds.json")
"""The odds tables (written by ``benchmarks/pax_penning_odds.py``): per player count, how often a
seat went on to win random games that ended in a Thegn's Victory, and those that ended in a Jarl's
Victory, by its situation (:func:`situations`) at the start of a turn."""
COUNTED_OPTIONS = Options()
"""The options the tables were counted under (the reference map, every option at its default): a
game with other options is judged by the written model."""
LEAD_CLIP = 3
"""A lead (or deficit) in Pennings beyond this counts as this much in the odds tables."""
ODDS_PRIOR = 10.0
"""A situation seen n times in a table counts its own record with weight n against this weight for
the record of its place in the Hierarchy at the same time left (all leads together)."""

Situation = tuple[int, int, int]
Odds = dict[Situation, float]


def situations(state: State) -> list[Situation]:
    """What the odds tables tell apart, for every seat (all public): the seat's place in the
    Hierarchy (0: the top, the coin left out), its Pennings less the most among the other seats
    (clipped to :data:`LEAD_CLIP`), and the King's walks left to the last Thing in halves (0 to 6)."""
    order = [s for s in state.hierarchy if s != COIN]
    counts = [sum(coins) for coins in state.coins]
    walks = round(2 * _time_left(state))
    out: list[Situation] = []
    for seat, own in enumerate(counts):
        others = max(k for s, k in enumerate(counts) if s != seat)
        out.append((order.index(seat), max(-LEAD_CLIP, min(LEAD_CLIP, own - others)), walks))
    return out


@cache
def odds_table(players: int) -> tuple[Odds, Odds] | None:
    """The smoothed share of a Thegn's Victory, and of a Jarl's Victory, by situation at ``players``
    players (None when the file has no table for that count): each situation's record in games that
    ended in that victory, weighted by how often it was seen there, against its place's record at
    the same time left (weight :data:`ODDS_PRIOR`)."""
    table = json.loads(ODDS_PATH.read_text(encoding="utf-8"))["players"].get(str(players))
    if table is None:
        return None
    cells = table["cells"]
    return _smoothed(cells, 3, players), _smoothed(cells, 5, players)


def _smoothed(cells: list[list[float]], won_at: int, players: int) -> Odds:
    """One victory's odds from the cells' columns ``won_at`` (shares won) and ``won_at + 1`` (seen)."""
    by_place: dict[tuple[int, int], list[float]] = {}
    for cell in cells:
        total = by_place.setdefault((int(cell[0]), int(cell[2])), [0.0, 0.0])
        total[0] += cell[won_at]
        total[1] += cell[won_at + 1]
    out: Odds = {}
    for (place, walks), (won, seen) in by_place.items():
        prior = won / seen if seen else 1.0 / players
        for lead in range(-LEAD_CLIP, LEAD_CLIP + 1):
            out[place, lead, walks] = prior
    for cell in cells:
        place, lead, walks = int(cell[0]), int(cell[1]), int(cell[2])
        prior = out[place, lead, walks]
        out[place, lead, walks] = (cell[won_at] + ODDS_PRIOR * prior) / (cell[won_at + 1] + ODDS_PRIOR)
    return out


def _odds_shares(where: list[Situation], odds: Odds) -> list[float]:
    """Every seat's share of a victory by an odds table: its odds in its situation over all seats'."""
    n = len(where)
    shares = [odds.get(w, 1.0 / n) for w in where]
    total = sum(shares)
    return [x / total for x in shares] if total > 0 else [1.0 / n] * n


def _table_shares(state: State, odds: tuple[Odds, Odds]) -> list[float]:
    """Every seat's share of the victory by the odds tables (public: the same in every seat's view):
    which victory it will be by the written model, who holds each by its table."""
    p_thegn = _thegn_chance(state, _time_left(state))
    where = situations(state)
    thegn, jarl = _odds_shares(where, odds[0]), _odds_shares(where, odds[1])
    return [p_thegn * t + (1.0 - p_thegn) * j for t, j in zip(thegn, jarl, strict=True)]


def _judged_by_tables(state: State) -> tuple[Odds, Odds] | None:
    """The odds tables that judge ``state`` (see :func:`value`), or None when another branch does:
    a finished game, the last die bound to fall, the setup, the Heirs' phase, other options."""
    n = state.players
    if (
        state.phase is Phase.HEIR
        or len(state.hierarchy) != n + 1
        or state.options != COUNTED_OPTIONS
        or GAME.outcome(state) is not None
        or _everyone_loses_now(state)
    ):
        return None
    return odds_table(n)


def value(state: State, seat: int) -> float:
    """The seat's prospects in ``state`` (as the seat sees it): 1.0 a sure win, 0.0 a sure loss."""
    odds = _judged_by_tables(state)
    if odds is not None:
        return _held_by_shares(state, seat, _table_shares(state, odds), _last_die_hazard(state))
    outcome = GAME.outcome(state)
    if outcome is not None:
        if seat in outcome.winners:
            return 1.0 / len(outcome.winners)
        return 0.0
    if _everyone_loses_now(state):
        return 0.0
    n = state.players
    if len(state.hierarchy) != n + 1:
        # Setup before the Hierarchy is filled: nothing tells the seats apart yet.
        return 1.0 / n
    if state.phase is Phase.HEIR:
        # The victory is decided and stands with the last of the chain; only Heirs can move it.
        holder = [0.0] * n
        holder[state.chain[-1]] = 1.0
        held = _after_heirs(state, seat, holder)
    else:
        remaining = _time_left(state)
        p_thegn = _thegn_chance(state, remaining)
        thegn = _thegn_holder(state, remaining)
        jarl = _jarl_holder(state, remaining)
        holder = [p_thegn * t + (1.0 - p_thegn) * j for t, j in zip(thegn, jarl, strict=True)]
        held = _after_heirs(state, seat, holder)
    return _with_turn(state, seat, held, _last_die_hazard(state))


def values(views: Sequence[State]) -> list[float]:
    """Every seat's :func:`value` at once, ``views[s]`` the state as seat ``s`` sees it: the same
    numbers, but what every view shows alike (which victory, the odds of every seat's situation,
    the last die) is computed once, which is most of the work (a search judges every seat at the
    end of each playout)."""
    first = views[0]
    odds = _judged_by_tables(first)
    if odds is None:
        return [value(view, s) for s, view in enumerate(views)]
    shares = _table_shares(first, odds)
    hazard = _last_die_hazard(first)
    return [_held_by_shares(view, s, shares, hazard) for s, view in enumerate(views)]


def _held_by_shares(state: State, seat: int, shares: list[float], hazard: float) -> float:
    """The seat's value when the odds tables judge: which victory it will be by the written model,
    who holds it by the tables (``shares``, :func:`_table_shares`). Their odds already hold the
    Heirs of random games: only the seat's own House counts besides."""
    held = shares[seat] * _keep(state, seat)
    led = _led_houses(state, seat)
    if led:  # a state that shows every House (never a player's view: see _led_houses) shows its Heirs
        held = min(1.0, held + sum(shares[h] for h in led))
    return _with_turn(state, seat, held, hazard)


def _with_turn(state: State, seat: int, held: float, hazard: float) -> float:
    """The chance of holding the victory at the end, less the last die's ``hazard``, plus what the
    feast pairs still to come this turn and the stones kept in Sigtuna for a later roll add."""
    won = held * (1.0 - hazard)
    bonus = min(PAIRS_CAP, PAIR_WORTH * _pairs_to_come(state, seat)) + _kept(state, seat)
    return won + (1.0 - won) * min(1.0, bonus)


def _kept(state: State, seat: int) -> float:
    """What the seat's own stones in Sigtuna are worth as dice for a later roll: :data:`KEEP_WORTH`
    each while the end is far (:data:`KEEP_UNTIL`), :data:`KEEP_LATE` each after. Stones another
    player has the seat's blessing to take count as taken."""
    if state.blessing == seat and state.turn != seat and state.phase is Phase.GATHER_BLESSED:
        return 0.0
    stones = state.sigtuna[seat]
    if not stones:
        return 0.0
    return stones * (KEEP_WORTH if _time_left(state) > KEEP_UNTIL else KEEP_LATE)


def _last_die_hazard(state: State) -> float:
    """The chance that a Rook places the last die before the end: it grows with each die the roads
    hold beyond all but the last few (a chosen Rook not yet resolved counts as placed)."""
    board = board_for(state.options.board)
    rooks = sum(1 for _, piece in state.chosen if piece == ROOK)
    ahead = dice_on_roads(state) + rooks - (board.dice - HAZARD_DICE)
    return min(1.0, HAZARD_PER_DIE * max(0, ahead) ** 2)


def _pairs_to_come(state: State, seat: int) -> float:
    """The feast pairs the seat still gets this turn: those left to resolve, or those expected from
    the dice it is about to roll (one die per Silver and per stone moved from Sigtuna). While it
    gathers, the stones of other colours it may still ask for count at :data:`GRANT_CHANCE` each (a
    blessing granted and not yet used counts in full), so that asking is worth a move."""
    if state.turn != seat:
        return 0.0
    phase = state.phase
    if phase is Phase.FEAST_SEND or phase is Phase.FEAST_FAVOUR:
        return float(state.pairs)
    if phase is Phase.ROLL:
        return _expected_pairs(len(state.dice) + state.to_roll)
    if phase in (Phase.GATHER, Phase.GATHER_BLESSED, Phase.BLESSING):
        board = board_for(state.options.board)
        supply = board.dice - dice_on_roads(state)
        dice = silvers(state, seat) + state.moved
        hoped = 0.0
        for c in range(state.players):
            if c == seat or not state.sigtuna[c] or state.gathered >> c & 1:
                continue
            if c == state.blessing and phase is not Phase.GATHER:
                share = GRANT_CHANCE if phase is Phase.BLESSING else 1.0
            elif state.asked >> c & 1:
                continue  # asked this turn and refused
            else:
                share = GRANT_CHANCE
            hoped += share * state.sigtuna[c]
        return _expected_pairs_between(min(float(supply), max(1.0, dice + hoped)))
    return 0.0


def _expected_pairs(dice: int) -> float:
    """The expected pairs in a roll of ``dice`` dice: six values, each giving floor(k / 2) pairs for
    the k dice showing it, k binomial(dice, 1/6)."""
    if dice < len(_EXPECTED_PAIRS):
        return _EXPECTED_PAIRS[dice]
    return dice / 2.0


def _expected_pairs_between(dice: float) -> float:
    """:func:`_expected_pairs` of a pool whose size is a mean: linear between the whole sizes."""
    whole = int(dice)
    low = _expected_pairs(whole)
    return low + (dice - whole) * (_expected_pairs(whole + 1) - low)


def _pairs_table(limit: int) -> tuple[float, ...]:
    out = []
    for dice in range(limit):
        expected = 0.0
        for k in range(dice + 1):
            expected += math.comb(dice, k) * (1 / 6) ** k * (5 / 6) ** (dice - k) * (k // 2)
        out.append(6.0 * expected)
    return tuple(out)


_EXPECTED_PAIRS = _pairs_table(31)


def _everyone_loses_now(state: State) -> bool:
    """The Rook is bound to place the last die: a Rook waiting to place it, or a chosen Rook not yet
    resolved, when one more die on the roads is the last (there is always an empty road space)."""
    board = board_for(state.options.board)
    rooks = sum(1 for _, piece in state.chosen if piece == ROOK)
    if state.phase is Phase.ROOK_PLACE:
        rooks += 1
    return rooks > 0 and dice_on_roads(state) + rooks >= board.dice


def _time_left(state: State) -> float:
    """Roughly how many King's walks remain before the last Thing (0 to 3 on the reference map): the
    Things still to hold, less the part of the current walk already done."""
    board = board_for(state.options.board)
    left = board.things_to_end - state.things
    if state.thing_pending:
        return max(0.0, left - 1.0)
    if state.king == 0:
        return float(left)
    total = sum(len(row) for row in state.coins)
    return max(0.0, left - state.king / (total + 1))


def _thing_success(dice_on_road: int, supporters: float) -> float:
    """The chance that the highest of ``supporters`` dice is at least the dice on the roads."""
    if dice_on_road > 6:
        return 0.0
    miss = max(dice_on_road - 1, 0) / 6.0
    return 1.0 - math.pow(miss, supporters)


def _thegn_chance(state: State, remaining: float) -> float:
    """The chance of a Thegn's Victory: two successful votes (one once the Hierarchy coin shows
    Penning) at the Things left, or the coin at the top of the Hierarchy at the last Thing."""
    board = board_for(state.options.board)
    n = state.players
    on_roads = dice_on_roads(state)
    chances: list[float] = []
    left = board.things_to_end - state.things
    if state.phase is Phase.THING_VOTE or state.phase is Phase.THING_ROLL:
        chances.append(_current_vote(state, on_roads))
        left -= 1
    elif state.phase is Phase.THING_COINS:
        left -= 1  # this Thing has voted
    # Rooks add dice between Things faster than Knights remove them: one more die per Thing ahead.
    for ahead in range(max(left, 0)):
        chances.append(
            _thing_success(on_roads + DICE_PER_THING * (ahead + 1), max(1.0, SUPPORTERS_SHARE * n))
        )
    needed = 1 if state.hierarchy_penning else 2
    # dist[k]: the chance of k successes so far (k < needed); the rest has ended the game.
    dist = [1.0] + [0.0] * needed
    for p in chances:
        for k in range(needed - 1, -1, -1):
            dist[k + 1] += dist[k] * p
            dist[k] *= 1.0 - p
    early = dist[needed]
    slot = state.hierarchy.index(COIN)
    by_slot = COIN_AT_TOP[slot] if slot < len(COIN_AT_TOP) else 0.0
    blend = min(1.0, remaining / 3.0)
    at_top = (1.0 - blend) * by_slot + blend / (n + 1)
    return early + (1.0 - early) * at_top


def _current_vote(state: State, on_roads: int) -> float:
    """The chance that the Thing being held flips the coin (or ends the game): a die already high
    enough, the die being rolled, and each player yet to vote supporting half the time."""
    if state.best_vote and state.best_vote >= on_roads:
        return 1.0
    order = [s for s in state.hierarchy if s != COIN]
    miss_die = max(on_roads - 1, 0) / 6.0 if on_roads <= 6 else 1.0
    miss = 1.0
    undecided = len(order) - state.step
    if state.phase is Phase.THING_ROLL:
        miss *= miss_die
        undecided -= 1
    miss *= (1.0 - UNDECIDED_SUPPORT + UNDECIDED_SUPPORT * miss_die) ** max(undecided, 0)
    return 1.0 - miss


def _temperature(remaining: float) -> float:
    """How uncertain Penning counts are: coins still flip at every feast and new coins come home."""
    return 0.5 + PENNING_BLUR * remaining


def _thegn_holder(state: State, remaining: float) -> list[float]:
    """Who would hold a Thegn's Victory: the most Pennings, ties to the higher in the Hierarchy."""
    n = state.players
    order = [s for s in state.hierarchy if s != COIN]
    tau = _temperature(remaining)
    score = [0.0] * n
    for rank, s in enumerate(order):
        score[s] = sum(state.coins[s]) + TIE_BREAK * (n - 1 - rank) / (n - 1)
    return _softmax(score, tau)


def _jarl_holder(state: State, remaining: float) -> list[float]:
    """Who would hold a Jarl's Victory: the highest in the Hierarchy without the most Pennings. A
    player "has the most" with a chance falling off with how far behind the leader they are."""
    n = state.players
    order = [s for s in state.hierarchy if s != COIN]
    tau = _temperature(remaining)
    counts = [sum(state.coins[s]) for s in range(n)]
    top = max(counts)
    out = [0.0] * n
    rest = 1.0
    for s in order:
        most = math.exp(-(top - counts[s]) / tau)
        out[s] = rest * (1.0 - most)
        rest *= most
    out[order[0]] += rest  # everyone has the most: nobody is excluded (assumption JARL_ALL_TIED)
    # Feasts swap places in the Hierarchy: the further the end, the less the order says.
    mix = remaining / (remaining + HIERARCHY_BLUR)
    return [(1.0 - mix) * p + mix / n for p in out]


def _after_heirs(state: State, seat: int, holder: list[float]) -> float:
    """The seat's chance of winning once Heirs are counted: it keeps a victory it holds unless
    another colour leads its own House, and it may steal another holder's victory as their Heir."""
    board = board_for(state.options.board)
    n = state.players
    keep = _keep(state, seat)
    # The seat's stones in the other Houses: all its stones less those it can see elsewhere.
    in_hierarchy = 1 if seat in state.hierarchy else 0
    outside = (
        board.stones_per_player
        - state.sigtuna[seat]
        - state.houses[seat][seat]
        - state.runestones.count(seat)
        - in_hierarchy
    )
    per_house = max(outside, 0) / (n - 1)
    steal = HEIR_OUTSIDE * per_house / (per_house + 3.0)
    led = _led_houses(state, seat)
    total = holder[seat] * keep
    for h in range(n):
        if h != seat:
            total += holder[h] * (steal if led is None else float(h in led))
    return min(1.0, max(0.0, total))


def _led_houses(state: State, seat: int) -> list[int] | None:
    """The other Houses where the seat's colour outnumbers every other colour (the seat is their
    Heir; a tie is the owner's to break, counted against the seat), or None when the state hides a
    House. A player's view always hides the other Houses; a state showing them all is judged only by
    the diagnostic in ``benchmarks/bots_by_rank.py --open-houses``, which measures what knowing where
    the stones are would be worth."""
    if min(state.sizes) < 0:
        return None
    return [
        h
        for h, row in enumerate(state.houses)
        if h != seat and row[seat] > max(k for c, k in enumerate(row) if c != seat)
    ]


def _keep(state: State, seat: int) -> float:
    """The chance that no Heir takes a victory the seat holds: its own colour's lead in its House."""
    own = state.houses[seat]
    others = max((k for c, k in enumerate(own) if c != seat), default=0)
    return 1.0 / (1.0 + math.exp(-HEIR_SHARPNESS * (own[seat] - others + 0.5)))


def _softmax(score: list[float], tau: float) -> list[float]:
    top = max(score)
    weights = [math.exp((x - top) / tau) for x in score]
    total = sum(weights)
    return [w / total for w in weights]
