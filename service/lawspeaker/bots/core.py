"""Computer opponents: pure engine-level bots that suggest a move for one seat.

:func:`suggest` is the whole interface; it knows nothing of transports or sessions. Three levels:

- ``random``: a uniformly random legal move, drawn from the bot's own ``random.Random(seed)``.
- ``greedy``: one move ahead: every legal move scored by the game's heuristic
  (:mod:`lawspeaker.bots.heuristics`, what each values is in ``docs/rules/<game>.md``) on the seat's view
  of the result, averaged over determinizations where the game hides information.
- ``search``: single-observer information-set Monte Carlo tree search (ISMCTS, UCT with UCB1 and a
  reward vector per seat, so it plays 2-6 players; each node's acting seat maximises its own reward).
  Every iteration samples a *determinization*, a full state consistent with ``view(state, seat)``,
  and descends one shared tree whose edges are moves as the seat sees them (``view_move``: another
  player's secret card draw is one edge, whatever the card). For a perfect-information game the
  determinization is the position itself and this is plain UCT. A playout runs
  :data:`PLAYOUT_DEPTH` random plies (fewer for some games: :data:`PLAYOUT_DEPTHS`) past the tree,
  then the greedy level's heuristic judges it.

The bot never reads the state's RNG, so it cannot foresee a draw: it starts from the seat's view,
every determinization carries a fresh RNG seeded from the bot's own generator, and every chance step
inside the tree and in playouts is sampled from the outcomes' probabilities (``game.chance``) with
the bot's generator and applied as the explicit outcome move. A root that is itself a chance step
gets the single draw move ``legal_moves`` lists.

Determinizing needs each game's knowledge of what is hidden: :data:`DETERMINIZERS` holds one per
game. A game without one is searched on ``view(state, seat)`` (with a fresh RNG) when that view
hides nothing but the RNG, so that it is a whole, playable position, and refused otherwise; the
true state is never searched.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import random
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, cast

from lawspeaker.bots.heuristics import VALUE, VALUES
from lawspeaker.games import birka, pax_penning
from lawspeaker.games.birka.data import data_for as birka_data_for
from lawspeaker.games.core import (
    ErrorCode,
    FieldViolation,
    Game,
    LawspeakerError,
    Outcome,
    Result,
    Rng,
)
from lawspeaker.games.pax_penning.board import board_for as pax_penning_board_for

S = TypeVar("S")
M = TypeVar("M")
O = TypeVar("O")  # noqa: E741 - options type

MAX_PLAYOUTS = 20_000
"""The most playouts one suggestion may run, whatever is asked (the cap a server enforces)."""

MAX_MILLIS = 10_000.0
"""The longest one suggestion may think, in milliseconds, whatever is asked."""

DEFAULT_PLAYOUTS = 1_000
"""The budget of a search asked for with neither playouts nor milliseconds."""

PLAYOUT_DEPTH = 30
"""Random plies a playout runs past the tree before the game's heuristic (``lawspeaker.bots.heuristics``)
judges the position: a long game (some 600 plies of Valhalla) is not played out to the end, and a
game whose random playouts rarely score (Birka) still tells good moves from bad."""

PLAYOUT_DEPTHS: dict[str, int] = {"pax_penning": 5}
"""Games whose playouts stop sooner than :data:`PLAYOUT_DEPTH`. Pax Penning: thirty random plies
shuffle coins, Hierarchy places and Houses until the heuristic's reading of the end says little
more than chance; five plies (about one decision of every kind in a turn) let the search see the
turn it plans and keep the heuristic's view of the end (``docs/benchmarks.md``, "Bots: search
against random seats with more players", has the measurements at 0, 5 and 30 plies)."""

ROOT_PRIOR: dict[str, int] = {"pax_penning": 10}
"""Games whose search starts every root move with this many virtual playouts at its greedy value
(one move ahead, :func:`_one_ply`), so that a budget of a hundred playouts refines the greedy
judgement instead of starting from nothing. Pax Penning: a root often has twenty moves or more
(stones to send, feast favours), which a hundred playouts among five seats try a few times each,
each time through a different sampled House and roll; the greedy value, averaged over
:data:`GREEDY_SAMPLES` determinizations, is the steadier first reading (``docs/benchmarks.md``,
"Bots: Pax Penning at 5 players")."""

PLAYOUT_PLY_CAP = 1_000
"""Plies one iteration (tree descent plus random playout) may play before it is scored as a draw.
Random Valhalla games run about 600 plies, so most of its playouts still reach an end."""

EXPLORATION = 1.0
"""UCB1's exploration constant; rewards lie in [0, 1]."""

DETERMINIZE_ATTEMPTS = 64
"""Samples a determinizer draws before it gives up finding one the game accepts as valid."""

HOME_WEIGHT = 8
"""Pax Penning: how much likelier a hidden stone is to lie in its owner's House than in another."""


class Level(enum.Enum):
    """How hard a bot thinks."""

    RANDOM = "random"
    GREEDY = "greedy"
    SEARCH = "search"


GREEDY_SAMPLES = 8
"""``greedy`` in a game with hidden information: determinizations each move is scored over (the mean
counts; a perfect-information game needs one)."""


@dataclass(frozen=True, slots=True)
class Suggestion(Generic[M]):
    """A suggested move, its estimated reward for the seat (0..1: 1 = a sure sole win) and the
    playouts run to find it. Without a search (``random``, a chance step, a single legal move) the
    value is the neutral 1/players and the playouts 0."""

    move: M
    value: float
    playouts: int


class Determinizer(Protocol):
    """Samples a full state consistent with a seat's view: the same for everything the seat can see,
    hidden data drawn from ``rng``, and a fresh RNG (so the state's own RNG is never used)."""

    def __call__(self, view: Any, seat: int, rng: random.Random) -> Any: ...


def _error(
    reason: str, message: str, code: ErrorCode = ErrorCode.MALFORMED, field: str = "level"
) -> LawspeakerError:
    return LawspeakerError(code, reason, message, (FieldViolation(field, message),))


# --------------------------------------------------------------------------- determinizers


def reseeded(state: S, rng: random.Random) -> S:
    """The state with its ``rng`` field replaced by one seeded from ``rng`` (unchanged without one)."""
    fresh = Rng.from_seed(rng.getrandbits(64))
    if not isinstance(getattr(state, "rng", None), Rng):
        return state
    if isinstance(state, tuple):  # a NamedTuple state
        return cast(S, cast(Any, state)._replace(rng=fresh))
    if dataclasses.is_dataclass(state) and not isinstance(state, type):
        return cast(S, dataclasses.replace(cast(Any, state), rng=fresh))
    return state


def open_determinizer(view: Any, seat: int, rng: random.Random) -> Any:
    """For a game whose views hide nothing but the RNG: the view with a fresh RNG."""
    return reseeded(view, rng)


def pax_penning_determinizer(view: Any, seat: int, rng: random.Random) -> Any:
    """Pax Penning hides the stones (how many, which colours) in every other House. The stones of a
    colour not in Sigtuna, on a runestone, in the Hierarchy or in a visible House are in the hidden
    Houses; each is placed in one of them at random, its owner's House weighted HOME_WEIGHT times
    (every House starts with its owner's stones, and the setup takes stones from it). Samples the
    game refuses (a payer with an empty House) are drawn again. The sizes a player could count from
    the public moves are not in the view, so they are sampled too."""
    state = cast(pax_penning.State, view)
    n = state.players
    hidden = [h for h in range(n) if not state.houses[h]]
    if not hidden:
        return reseeded(state, rng)
    board = pax_penning_board_for(state.options.board)
    in_hierarchy = {s for s in state.hierarchy if s != pax_penning.COIN}
    rest = [
        board.stones_per_player
        - state.sigtuna[c]
        - state.runestones.count(c)
        - (c in in_hierarchy)
        - sum(row[c] for row in state.houses if row)
        for c in range(n)
    ]
    if any(k < 0 for k in rest):
        raise _error(
            "INVALID_VIEW", "The view holds more stones than the game has.", ErrorCode.INVALID_STATE, "state"
        )
    for _ in range(DETERMINIZE_ATTEMPTS):
        rows = {h: [0] * n for h in hidden}
        for c in range(n):
            weights = [HOME_WEIGHT if h == c else 1 for h in hidden]
            for h in rng.choices(hidden, weights, k=rest[c]):
                rows[h][c] += 1
        houses = tuple(tuple(rows[h]) if h in rows else row for h, row in enumerate(state.houses))
        sizes = tuple(sum(row) for row in houses)
        sample = reseeded(state._replace(houses=houses, sizes=sizes), rng)
        if not pax_penning.GAME.check_state(sample):
            return sample
    raise _error("NO_DETERMINIZATION", "No hidden stones fit this view.", ErrorCode.INVALID_STATE, "state")


def birka_determinizer(view: Any, seat: int, rng: random.Random) -> Any:
    """Birka hides other seats' Runestone Cards: hand, deck, cards drawn at Tinget (their numbers are
    public) and which are completed. A hidden seat's cards are dealt at random from its own full set
    (cards in none of them were discarded); its completed cards are the hand's cards it fulfils now.
    Samples the game refuses (as many completed as end the game) are drawn again."""
    state = cast(birka.State, view)
    if not state.hidden:
        return reseeded(state, rng)
    data = birka_data_for(state.options.data)
    cards = list(range(len(data.runestone_ids)))
    drawer = state.actor if state.phase in (birka.Phase.TINGET_DRAW, birka.Phase.TINGET_KEEP) else -1
    seats = [s for s in range(state.players) if state.hidden >> s & 1]
    for _ in range(DETERMINIZE_ATTEMPTS):
        hands, decks, drawn = list(state.hands), list(state.decks), state.drawn
        for s in seats:
            rng.shuffle(cards)
            k, d = len(state.hands[s]), len(state.decks[s])
            hands[s] = tuple(sorted(cards[:k]))
            decks[s] = tuple(sorted(cards[k : k + d]))
            if s == drawer:
                drawn = tuple(cards[k + d : k + d + len(state.drawn)])
        sample = state._replace(hands=tuple(hands), decks=tuple(decks), drawn=drawn, hidden=0)
        completed = list(sample.completed)
        for s in seats:
            completed[s] = tuple(c for c in hands[s] if birka.fulfilled(sample, s, c, data))
        sample = reseeded(sample._replace(completed=tuple(completed)), rng)
        if not birka.GAME.check_state(sample):
            return sample
    raise _error("NO_DETERMINIZATION", "No hidden cards fit this view.", ErrorCode.INVALID_STATE, "state")


DETERMINIZERS: dict[str, Determinizer] = {
    "valhalla": open_determinizer,
    "penki": open_determinizer,
    "pax_viking_junior": open_determinizer,
    "pax_penning": pax_penning_determinizer,
    "birka": birka_determinizer,
}
"""The determinizer of every game the bots know, by game id."""


# --------------------------------------------------------------------------- the search tree


class _Edge:
    """A move as the observer sees it, from one information set: its statistics and its child."""

    __slots__ = ("available", "child", "rewards", "visits")

    def __init__(self, players: int) -> None:
        self.visits = 0
        self.available = 0  # iterations in which the move was legal (ISMCTS's UCB1 parent count)
        self.rewards = [0.0] * players
        self.child: dict[Hashable, _Edge] = {}


def _rewards(outcome: Outcome, players: int) -> list[float]:
    """What each seat earns: a win is 1 shared among the winners, a draw 1/n each, all losing 0."""
    if outcome.result is Result.WIN and outcome.winners:
        share = 1 / len(outcome.winners)
        out = [0.0] * players
        for s in outcome.winners:
            out[s] = share
        return out
    if outcome.result is Result.ALL_LOSE:
        return [0.0] * players
    return [1 / players] * players


def player_count(game: Game[Any, Any, Any], state: Any) -> int:
    if game.min_players == game.max_players:
        return game.min_players
    return int(state.players)


def sample_chance(game: Game[S, M, Any], state: S, rng: random.Random) -> M | None:
    """The outcome move of the chance step ``state`` waits for, drawn from the outcomes'
    probabilities with ``rng`` (never the state's RNG); None when it is no chance step."""
    chance = game.chance(state)
    if chance is None:
        return None
    r = rng.random()
    for o in chance.outcomes:
        r -= o.probability
        if r < 0:
            return o.move
    return chance.outcomes[-1].move


class _Search(Generic[S, M]):
    """One ISMCTS run for ``seat`` from ``view``."""

    def __init__(
        self,
        game: Game[S, M, Any],
        view: S,
        seat: int,
        determinize: Callable[[S, int, random.Random], S],
        rng: random.Random,
    ) -> None:
        self.game = game
        self.view = view
        self.seat = seat
        self.determinize = determinize
        self.rng = rng
        self.players = player_count(game, view)
        self.draw = [1 / self.players] * self.players
        self.view_move: Callable[[M, int | None, int | None], Hashable] | None = getattr(
            game, "view_move", None
        )
        self.root: dict[Hashable, _Edge] = {}
        self.value: Callable[[Any, int], float] | None = VALUE.get(game.id)
        self.values: Callable[[Sequence[Any]], list[float]] | None = VALUES.get(game.id)
        self.depth = PLAYOUT_DEPTHS.get(game.id, PLAYOUT_DEPTH)

    def seed_root(self, legal: Sequence[M], values: Sequence[float], visits: int) -> None:
        """Start each root move with ``visits`` virtual playouts worth its one-move-ahead value to
        the seat (the rest of a win shared by the other seats), so that few playouts refine the
        greedy judgement rather than start from nothing."""
        rest = 1.0 / max(self.players - 1, 1)
        for move, v in zip(legal, values, strict=True):
            edge = self.root.setdefault(self.key(move, self.seat), _Edge(self.players))
            edge.visits = edge.available = visits
            edge.rewards = [visits * (1.0 - v) * rest] * self.players
            edge.rewards[self.seat] = visits * v

    def key(self, move: M, by: int | None) -> Hashable:
        """The move as the observer sees it (another seat's secrets redacted)."""
        if self.view_move is None or by == self.seat:
            return cast(Hashable, move)
        return self.view_move(move, by, self.seat)

    def sample_chance(self, state: S) -> M | None:
        return sample_chance(self.game, state, self.rng)

    def iterate(self) -> None:
        game, rng = self.game, self.rng
        state = self.determinize(self.view, self.seat, rng)
        node = self.root
        path: list[_Edge] = []
        plies = 0
        expanded = False
        rewards: list[float] | None = None
        while not expanded:
            outcome = game.outcome(state)
            if outcome is not None:
                rewards = _rewards(outcome, self.players)
                break
            if plies >= PLAYOUT_PLY_CAP:
                rewards = self.draw
                break
            acting = game.to_act(state).players
            by = acting[0] if acting else None
            move = self.sample_chance(state)
            if move is not None:
                key = self.key(move, by)
                edge = node.get(key)
                if edge is None:
                    edge = node[key] = _Edge(self.players)
                    expanded = True
                edge.available += 1
            else:
                moves = game.legal_moves(state)
                if not moves:  # a dead end a determinization slipped into: no result to learn from
                    rewards = self.draw
                    break
                edge, move, expanded = self.select(node, moves, by if by is not None else -1)
            path.append(edge)
            state, _ = game.apply(state, move)
            plies += 1
            node = edge.child
        if rewards is None:
            rewards = self.playout(state, plies)
        for edge in path:
            edge.visits += 1
            for s, r in enumerate(rewards):
                edge.rewards[s] += r

    def select(self, node: dict[Hashable, _Edge], moves: Sequence[M], actor: int) -> tuple[_Edge, M, bool]:
        """The edge UCB1 picks for ``actor`` (an untried one first), a move it stands for, and whether
        it was just added."""
        groups: dict[Hashable, list[M]] = {}
        for m in moves:
            groups.setdefault(self.key(m, actor), []).append(m)
        untried: list[Hashable] = []
        best: _Edge | None = None
        best_key: Hashable = None
        best_score = -math.inf
        log = math.log
        for key in groups:
            edge = node.get(key)
            if edge is None:
                untried.append(key)
                continue
            edge.available += 1  # counted from the edge's first try: untried moves are tried first
            score = edge.rewards[actor] / edge.visits + EXPLORATION * math.sqrt(
                log(edge.available) / edge.visits
            )
            if score > best_score:
                best, best_key, best_score = edge, key, score
        if untried:
            key = untried[self.rng.randrange(len(untried))]
            edge = node[key] = _Edge(self.players)
            edge.available = 1
            return edge, self.pick(groups[key]), True
        assert best is not None
        return best, self.pick(groups[best_key]), False

    def pick(self, group: list[M]) -> M:
        """One of the moves an edge stands for (several when another seat's secret is redacted)."""
        return group[0] if len(group) == 1 else group[self.rng.randrange(len(group))]

    def judge(self, state: S) -> list[float]:
        """Each seat's prospects in a position the playout stopped in, by the game's heuristic on
        that seat's view (every seat in one call where the game has one, ``VALUES``: the same
        numbers, sooner), as shares of one win (so they add up like a finished game's rewards)."""
        assert self.value is not None
        views = [self.game.view(state, s) for s in range(self.players)]
        if self.values is not None:
            shares = [max(v, 0.0) for v in self.values(views)]
        else:
            shares = [max(self.value(view, s), 0.0) for s, view in enumerate(views)]
        total = sum(shares)
        return [x / total for x in shares] if total > 0 else self.draw

    def playout(self, state: S, plies: int) -> list[float]:
        """Random legal moves (and sampled chance) for :data:`PLAYOUT_DEPTH` plies (or the game's
        :data:`PLAYOUT_DEPTHS`), then the game's
        heuristic judges the position (to the end, or a draw at the ply cap, for a game without one)."""
        game, rng = self.game, self.rng
        stop = PLAYOUT_PLY_CAP if self.value is None else min(PLAYOUT_PLY_CAP, plies + self.depth)
        while plies < stop:
            outcome = game.outcome(state)
            if outcome is not None:
                return _rewards(outcome, self.players)
            move = self.sample_chance(state)
            if move is None:
                moves = game.legal_moves(state)
                if not moves:
                    return self.draw
                move = moves[rng.randrange(len(moves))]
            state, _ = game.apply(state, move)
            plies += 1
        outcome = game.outcome(state)
        if outcome is not None:
            return _rewards(outcome, self.players)
        return self.judge(state) if self.value is not None else self.draw


# --------------------------------------------------------------------------- greedy


def _one_ply(
    game: Game[S, M, Any],
    state: S,
    seat: int,
    legal: Sequence[M],
    rng: random.Random,
) -> list[float] | None:
    """Each legal move's mean value for ``seat`` one move ahead: applied to determinizations of the
    seat's view (one when the view hides nothing but the RNG), scored by the game's heuristic
    (``lawspeaker.bots.heuristics``) on the view of the result, or as a finished game scores. None for a
    game without a heuristic."""
    value = VALUE.get(game.id)
    if value is None:
        return None
    view = game.view(state, seat)
    determinize = _determinizer(game, state, view)
    samples = GREEDY_SAMPLES if game.id in DETERMINIZERS else 1
    players = player_count(game, state)
    totals = [0.0] * len(legal)
    for _ in range(samples):
        full = determinize(view, seat, rng)
        for i, move in enumerate(legal):
            after, _events = game.apply(full, move)
            ended = game.outcome(after)  # an end scores as search scores it (a draw: 1/players)
            totals[i] += (
                _rewards(ended, players)[seat] if ended is not None else value(game.view(after, seat), seat)
            )
    return [total / samples for total in totals]


def _greedy(
    game: Game[S, M, Any],
    state: S,
    seat: int,
    legal: Sequence[M],
    rng: random.Random,
) -> Suggestion[M]:
    """One move ahead (:func:`_one_ply`): the best mean wins, ties broken by ``rng``."""
    values = _one_ply(game, state, seat, legal, rng)
    if values is None:
        raise _error("UNKNOWN_LEVEL", f"{game.title} has no greedy heuristic: use random or search.")
    best = max(values)
    tied = [i for i, v in enumerate(values) if v >= best - 1e-12]
    return Suggestion(legal[tied[rng.randrange(len(tied))]], best, 0)


# --------------------------------------------------------------------------- the interface


def _budget(playouts: int | None, millis: float | None) -> tuple[int, float | None]:
    if playouts is not None and playouts < 1:
        raise _error("INVALID_BUDGET", "playouts must be at least 1.", field="playouts")
    if millis is not None and not millis > 0:
        raise _error("INVALID_BUDGET", "millis must be positive.", field="millis")
    if playouts is None and millis is None:
        playouts = DEFAULT_PLAYOUTS
    limit = min(playouts, MAX_PLAYOUTS) if playouts is not None else MAX_PLAYOUTS
    return limit, min(millis, MAX_MILLIS) if millis is not None else None


def _determinizer(game: Game[S, M, Any], state: S, view: S) -> Callable[[S, int, random.Random], S]:
    """The game's determinizer; for a game without one, the view with a fresh RNG, allowed only when
    the view hides nothing else (so the position is whole and playable). Whether a view hides
    anything is public (the rules say what each seat sees), so refusing tells the bot nothing."""
    found = DETERMINIZERS.get(game.id)
    if found is not None:
        return cast(Callable[[S, int, random.Random], S], found)
    probe = random.Random(0).getrandbits(64)
    if reseeded(view, random.Random(probe)) != reseeded(state, random.Random(probe)):
        raise _error(
            "SEARCH_UNSUPPORTED",
            f"{game.title} hides information the search bot cannot sample yet: use the random level.",
        )
    return cast(Callable[[S, int, random.Random], S], open_determinizer)


def check(
    game: Game[S, M, O],
    state: S,
    seat: int,
    level: Level | str,
    *,
    playouts: int | None = None,
    millis: float | None = None,
) -> Level:
    """The level, once everything :func:`suggest` refuses is ruled out (the same errors): so a
    server can refuse a request before it hands the thinking to another process."""
    try:
        level = Level(level)
    except ValueError:
        raise _error("UNKNOWN_LEVEL", f"Unknown bot level {level!r}: use random, greedy or search.") from None
    if game.outcome(state) is not None:
        raise _error(
            "GAME_OVER", "The game is over: there is no move to suggest.", ErrorCode.GAME_OVER, "state"
        )
    _budget(playouts, millis)
    if game.chance(state) is not None:
        return level  # the draw move, whoever asks
    if seat not in game.to_act(state).players:
        acting = ", ".join(str(s) for s in game.to_act(state).players) or "nobody"
        raise _error(
            "NOT_YOUR_TURN",
            f"Seat {seat} does not act now (seat(s) to act: {acting}): there is no move to suggest for it.",
            ErrorCode.NOT_YOUR_TURN,
            "seat",
        )
    if level is Level.SEARCH:
        _determinizer(game, state, game.view(state, seat))
    return level


def suggest(
    game: Game[S, M, O],
    state: S,
    seat: int,
    level: Level | str,
    *,
    playouts: int | None = None,
    millis: float | None = None,
    seed: int,
) -> Suggestion[M]:
    """A legal move for ``seat`` in ``state`` at ``level``.

    ``search`` stops after ``playouts`` iterations or ``millis`` milliseconds, whichever comes first
    (both capped by :data:`MAX_PLAYOUTS` and :data:`MAX_MILLIS`; neither means
    :data:`DEFAULT_PLAYOUTS`). The same seed gives the same suggestion when the budget is playouts
    alone; a ``millis`` budget stops on the clock, so its result depends on the machine's speed.
    Raises :class:`LawspeakerError`: GAME_OVER, NOT_YOUR_TURN (``seat`` does not act now and it is
    not a chance step), MALFORMED (an unknown level, a bad budget, or ``search`` for a game with
    hidden information the bot cannot sample).
    """
    level = check(game, state, seat, level, playouts=playouts, millis=millis)
    limit, millis_limit = _budget(playouts, millis)
    players = player_count(game, state)
    if game.chance(state) is not None:
        # A chance step is the server's draw: the bot never picks an outcome to its own advantage.
        return Suggestion(game.legal_moves(state)[0], 1 / players, 0)
    # The seat's own legal moves are its knowledge; they are the same in every state it cannot tell apart.
    legal: Sequence[M] = game.legal_moves(state)
    rng = random.Random(seed)
    if level is Level.RANDOM:
        return Suggestion(legal[rng.randrange(len(legal))], 1 / players, 0)
    if level is Level.GREEDY:
        return _greedy(game, state, seat, legal, rng)
    if len(legal) == 1:
        return Suggestion(legal[0], 1 / players, 0)
    view = game.view(state, seat)
    search = _Search(game, view, seat, _determinizer(game, state, view), rng)
    prior = ROOT_PRIOR.get(game.id, 0)
    if prior:
        values = _one_ply(game, state, seat, legal, rng)
        if values is not None:
            search.seed_root(legal, values, prior)
    deadline = None if millis_limit is None else time.perf_counter() + millis_limit / 1000
    done = 0
    while done < limit:
        search.iterate()
        done += 1
        if deadline is not None and time.perf_counter() >= deadline:
            break
    best: M | None = None
    best_edge: _Edge | None = None
    for move in legal:
        edge = search.root.get(cast(Hashable, move))
        if edge is None or edge.visits == 0:
            continue
        if best_edge is None or (edge.visits, edge.rewards[seat] / edge.visits) > (
            best_edge.visits,
            best_edge.rewards[seat] / best_edge.visits,
        ):
            best, best_edge = move, edge
    if best is None or best_edge is None:
        return Suggestion(legal[0], 1 / players, done)
    return Suggestion(best, best_edge.rewards[seat] / best_edge.visits, done)
