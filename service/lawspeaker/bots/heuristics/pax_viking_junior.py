"""What the greedy bot values in Pax Viking Junior (``docs/rules/pax-viking-junior.md``, "Greedy bot:
what it values").

Every seat's distance to a win is estimated in *turns*: for each victory card laid out, the turns
still needed to fulfil it (missing Silfr or Scrolls at about 1.5 a turn, 2 with Huginn or Munin;
missing animals as a collection of draws, where the last missing kind is the slowest to draw), and
the seat's distance is a soft minimum over the cards (the nearest counts most, a second card near
too counts a little), less a little for the Big Cats and Kittens still on its cat board, plus its
place in the turn order. The seats' distances become shares of a win through
``exp(-turns / TAU)``. Animals a rival can steal next turn count only in part.

While the seat is on turn and its Longship has arrived (drawing, choosing a tile, placing Cats), the
value is that of the best way to finish the turn: the expected best tile of the draw (over the
tiles left in the box lid) and the best Cats to place, so that one look ahead at any decision of
the turn sees where the turn leads. Everything read is public (the view only hides the RNG).
"""

from __future__ import annotations

import math
from functools import lru_cache

from lawspeaker.games.pax_viking_junior import KittenTie, Phase, State
from lawspeaker.games.pax_viking_junior.components import Components, components_for

TAU = 1.5  # turns: a seat one turn nearer its win than another is worth about 2:1 to 3:1
SECURE_SHARE = 0.3  # the part of an animal's worth lost when a rival can steal it next turn
COIN_RATE = 1.5  # Silfr (or Scrolls) gained a turn when playing for them: the better of 2 tiles
BONUS_RATE = 2.0  # ... with Huginn (Silfr) or Munin (Scrolls), which double gains of 1
BIG_CAT_WORTH = 0.15  # turns: a Big Cat kept makes a friendship safe later
KITTEN_WORTH = 0.02  # turns: a Kitten kept (10 of them last about 5 turns)
ANIMAL_PACE = 0.75  # two-animal tiles and steals make animals come faster than draws alone
CARD_SOFTNESS = 1.0  # turns: how sharply the nearest victory card outweighs the others
NO_CARD_TURNS = 10.0  # before the victory cards are laid out every seat is equally far
WON = -math.inf  # the turns of a seat that fulfils a victory card
WON_TURNS = -2.0  # ... as counted for a seat whose victory check is still to come (nearly sure)
_TURN_PHASES = frozenset({Phase.DRAW_OFFER, Phase.DRAWING, Phase.CHOOSE_TILE, Phase.PLACE_CATS})


def value(state: State, seat: int) -> float:
    """The seat's prospects in ``state`` (as the seat sees it): 1.0 won and 0.0 lost when the game is
    over (it always has one winner); otherwise its share of ``exp(-turns to win / TAU)``."""
    if state.phase is Phase.OVER:
        return 1.0 if state.winner == seat else 0.0
    ctx = _Context(state, components_for(state.options.components))
    if seat == state.turn and state.phase in _TURN_PHASES and state.ships[seat] >= 0:
        return ctx.turn_value(seat)
    return ctx.share(seat, ctx.turns, state.turn)


@lru_cache(maxsize=4096)
def _collect(missing: tuple[int, ...], kinds: int, draws: int) -> float:
    """Expected turns to draw the missing animals (how many of each kind, most first): each turn
    draws ``draws`` tiles and keeps one, which helps with probability 1 - (1 - k/kinds)^draws for k
    kinds missing; the kind missing most is taken first, so the last single kinds are the slow ones."""
    left = list(missing)
    turns = 0.0
    while left:
        k = len(left)
        turns += 1.0 / (1.0 - (1.0 - min(k, kinds) / kinds) ** draws)
        left[0] -= 1
        left = sorted((m for m in left if m > 0), reverse=True)
    return turns


_Needs = tuple[tuple[tuple[int, int], ...], ...]


def _needs(comp: Components, cards: tuple[int, ...]) -> _Needs:
    """Per card laid out: the (animal kind, how many) it asks for (kept in the components' cache,
    which lives as long as the component set)."""
    key = ("greedy-needs", cards)
    found: _Needs | None = comp.cache.get(key)
    if found is None:
        found = tuple(tuple((a, w) for a, w in enumerate(comp.card_animals[c]) if w) for c in cards)
        comp.cache[key] = found
    return found


@lru_cache(maxsize=1 << 16)
def _animal_turns(
    needs: _Needs, have: tuple[int, ...], safe: tuple[int, ...], kinds: int, draws: int
) -> tuple[tuple[float, bool], ...]:
    """Per card: the turns to befriend its missing animals, counting animals a rival can steal next
    turn as only partly held, and whether none is missing (cached: the same tallies recur across a
    turn's candidate moves)."""
    out: list[tuple[float, bool]] = []
    for need in needs:
        if not need:
            out.append((0.0, True))
            continue
        held = tuple(sorted((w - have[a] for a, w in need if w > have[a]), reverse=True))
        kept = tuple(sorted((w - safe[a] for a, w in need if w > safe[a]), reverse=True))
        turns = (1 - SECURE_SHARE) * _collect(held, kinds, draws) + SECURE_SHARE * _collect(
            kept, kinds, draws
        )
        out.append((turns, not held))
    return tuple(out)


class _Context:
    """The per-seat tallies of one state, with every region but one (``skip``) counted, so that a
    hypothetical tile or Cats in that region can be added back cheaply."""

    def __init__(self, state: State, comp: Components) -> None:
        self.state, self.comp = state, comp
        n = state.players
        self.n = n
        kinds = len(comp.animal_ids)
        self.kinds = kinds
        self.skip = state.ships[state.turn] if state.phase in _TURN_PHASES else -1
        self.have: list[list[int]] = [[0] * kinds for _ in range(n)]
        self.safe: list[list[int]] = [[0] * kinds for _ in range(n)]
        for r, f in enumerate(state.friends):
            if f >= 0 and r != self.skip and state.tiles[r]:
                self._add_region(
                    f, state.tiles[r], self._vulnerable(r, f, state.kittens[r], state.big_cats[r])
                )
        self.turns = [
            self._seat_turns(i, self.have[i], self.safe[i], state.silfr[i], state.scrolls[i], 0, 0)
            for i in range(n)
        ]
        if self.skip >= 0:
            r = self.skip
            f = state.friends[r]
            if f >= 0 and state.tiles[r]:
                self.turns[f] = self._with_region(f, state.tiles[r], state.kittens[r], state.big_cats[r], r)

    # -- tallies ------------------------------------------------------------------

    def _add_region(self, seat: int, tiles: tuple[int, ...], vulnerable: bool) -> None:
        animal, count = self.comp.tile_animal, self.comp.tile_count
        for t in tiles:
            self.have[seat][animal[t]] += count[t]
            if not vulnerable:
                self.safe[seat][animal[t]] += count[t]

    def _region_animals(
        self, seat: int, tiles: tuple[int, ...], vulnerable: bool
    ) -> tuple[list[int], list[int]]:
        """The seat's tallies with one more region's animals (copies; the context is unchanged)."""
        have, safe = list(self.have[seat]), list(self.safe[seat])
        animal, count = self.comp.tile_animal, self.comp.tile_count
        for t in tiles:
            have[animal[t]] += count[t]
            if not vulnerable:
                safe[animal[t]] += count[t]
        return have, safe

    def _with_region(
        self, seat: int, tiles: tuple[int, ...], row: tuple[int, ...], big: int, region: int
    ) -> float:
        have, safe = self._region_animals(seat, tiles, self._vulnerable(region, seat, row, big))
        s = self.state
        return self._seat_turns(seat, have, safe, s.silfr[seat], s.scrolls[seat], 0, 0)

    def _vulnerable(self, region: int, friend: int, row: tuple[int, ...], big: int) -> bool:
        """Whether a rival can take the region's friendship on their next turn: a Longship within
        reach with a Big Cat left, or with enough Kittens to outnumber the Friend's."""
        if big >= 0:
            return False
        s, comp = self.state, self.comp
        keeps = s.options.kitten_tie is KittenTie.FRIEND_KEEPS
        for o in range(self.n):
            ship = s.ships[o]
            if o == friend or ship < 0 or (ship == region and not s.options.return_journeys):
                continue
            board = s.boards[o]
            steps = comp.board_steps[board] if board >= 0 else 3
            if comp.dist[ship][region] > steps:
                continue
            if s.big_cats_left[o]:
                return True
            most = row[o] + min(comp.kittens_per_turn, s.kittens_left[o])
            if most > row[friend] or (most == row[friend] and not keeps):
                return True
        return False

    def _seat_turns(
        self,
        seat: int,
        have: list[int],
        safe: list[int],
        silfr: int,
        scrolls: int,
        big_used: int,
        kittens_used: int,
    ) -> float:
        """The seat's estimated turns to its nearest victory card, less what its Cats left are worth
        (``WON`` when the seat fulfils a card already)."""
        s, comp = self.state, self.comp
        board = s.boards[seat]
        draws = max(comp.board_draws[board]) if board >= 0 else 2
        s_rate = BONUS_RATE if board >= 0 and comp.board_silfr_bonus[board] else COIN_RATE
        c_rate = BONUS_RATE if board >= 0 and comp.board_scrolls_bonus[board] else COIN_RATE
        animals = _animal_turns(_needs(comp, s.cards), tuple(have), tuple(safe), self.kinds, draws)
        if not s.cards:
            best = NO_CARD_TURNS
        else:
            weight = 0.0  # a soft minimum over the cards: progress towards a second card counts a little
            for card, (part, complete) in zip(s.cards, animals, strict=True):
                short_silfr = comp.card_silfr[card] - silfr
                short_scrolls = comp.card_scrolls[card] - scrolls
                if complete and short_silfr <= 0 and short_scrolls <= 0:
                    return WON
                turns = part + max(0, short_silfr) / s_rate + max(0, short_scrolls) / c_rate
                weight += math.exp(-turns / CARD_SOFTNESS)
            best = -CARD_SOFTNESS * math.log(weight)
        left_big = s.big_cats_left[seat] - big_used
        left_kittens = s.kittens_left[seat] - kittens_used
        return best - BIG_CAT_WORTH * left_big - KITTEN_WORTH * left_kittens

    def share(self, seat: int, turns: list[float], first: int) -> float:
        """The seat's share of exp(-turns / TAU), each seat's turns counted from its place in the turn
        order starting at ``first``."""
        n = self.n
        eff = [max(turns[i], WON_TURNS) + ((i - first) % n) / n for i in range(n)]
        low = min(eff)
        weights = [math.exp(-(e - low) / TAU) for e in eff]
        return weights[seat] / sum(weights)

    # -- the turn in progress ---------------------------------------------------------------

    def turn_value(self, seat: int) -> float:
        """The value of finishing the seat's turn in the best way (expected over draws to come)."""
        s = self.state
        phase = s.phase
        if phase is Phase.PLACE_CATS:
            return self.cats_value(seat, s.tiles[s.ships[seat]], s.placed)
        keep = self.cats_value(seat, s.tiles[s.ships[seat]], -1)  # return the tiles / draw none
        if phase is Phase.CHOOSE_TILE:
            return max([keep, *(self.tile_value(seat, t) for t in set(s.drawn))])
        if phase is Phase.DRAWING:
            floor = max([keep, *(self.tile_value(seat, t) for t in set(s.drawn))])
            return self.expected_best(seat, floor, s.to_draw)
        # DRAW_OFFER: drawing costs nothing (the tiles can go back), so the most tiles are drawn
        board = s.boards[seat]
        draws = max(self.comp.board_draws[board]) if board >= 0 else 2
        return max(keep, self.expected_best(seat, keep, min(draws, sum(s.lid))))

    def tile_value(self, seat: int, tile: int) -> float:
        region = self.state.ships[seat]
        return self.cats_value(seat, (*self.state.tiles[region], tile), tile)

    def expected_best(self, seat: int, floor: float, draws: int) -> float:
        """E[max(floor, value of the best of ``draws`` tiles from the lid)], drawing with replacement
        (close enough for 2 or 3 tiles of 54)."""
        lid = self.state.lid
        total = sum(lid)
        if not total or draws <= 0:
            return floor
        outcomes = sorted((max(floor, self.tile_value(seat, t)), k / total) for t, k in enumerate(lid) if k)
        expected, below = 0.0, 0.0
        for v, p in outcomes:
            before = below**draws
            below += p
            expected += v * (min(below, 1.0) ** draws - before)
        return expected

    def cats_value(self, seat: int, tiles: tuple[int, ...], placed: int) -> float:
        """The best value over the Cats the seat may place in its region (``tiles`` there, ``placed``
        the tile placed this turn or -1), the turn then ending: 1.0 if that fulfils a card."""
        s, comp = self.state, self.comp
        region = s.ships[seat]
        row, big = s.kittens[region], s.big_cats[region]
        options: list[tuple[tuple[int, ...], int, int, int]] = [
            (row, big, 0, 0)
        ]  # (row, big, Big Cats, Kittens)
        if big < 0:
            for k in range(1, min(comp.kittens_per_turn, s.kittens_left[seat]) + 1):
                options.append(((*row[:seat], row[seat] + k, *row[seat + 1 :]), big, 0, k))
            if s.big_cats_left[seat]:
                options.append(((0,) * self.n, seat, 1, 0))
        return max(self._option_value(seat, region, tiles, placed, *o) for o in options)

    def _option_value(
        self,
        seat: int,
        region: int,
        tiles: tuple[int, ...],
        placed: int,
        row: tuple[int, ...],
        big: int,
        big_used: int,
        kittens_used: int,
    ) -> float:
        s, comp = self.state, self.comp
        before = s.friends[region]
        after = _friend(row, big, before, s.options.kitten_tie is KittenTie.FRIEND_KEEPS)
        silfr, scrolls = s.silfr[seat], s.scrolls[seat]
        board = s.boards[seat]
        gains: list[int] = []
        if placed >= 0 and (big_used or kittens_used):
            gains.append(placed)
        if after == seat and 0 <= before != seat and board >= 0 and comp.board_steal_gain[board]:
            gains.extend(tiles[:-1] if placed >= 0 else tiles)
        for t in gains:
            gs, gc = comp.tile_silfr[t], comp.tile_scrolls[t]
            if board >= 0 and gs == 1 and comp.board_silfr_bonus[board]:
                gs = 2
            if board >= 0 and gc == 1 and comp.board_scrolls_bonus[board]:
                gc = 2
            silfr, scrolls = silfr + gs, scrolls + gc
        turns = list(self.turns)
        # the seats whose tallies change: the Friend before (if any) loses the region, after gains it
        for i in {seat, before, after} - {-1}:
            have, safe = list(self.have[i]), list(self.safe[i])
            if i == after and tiles:
                have, safe = self._region_animals(i, tiles, self._vulnerable(region, i, row, big))
            if i == seat:
                turns[i] = self._seat_turns(i, have, safe, silfr, scrolls, big_used, kittens_used)
                if turns[i] == WON:  # the victory check at the end of this turn
                    return 1.0
            else:
                turns[i] = self._seat_turns(i, have, safe, s.silfr[i], s.scrolls[i], 0, 0)
        return self.share(seat, turns, (seat + 1) % self.n)


def _friend(row: tuple[int, ...], big: int, current: int, keeps: bool) -> int:
    """Who is Friends in a region with these Cats (the engine's ``friend_of`` without a state)."""
    if big >= 0:
        return big
    most = max(row)
    if most == 0:
        return -1
    if current >= 0 and row[current] == most and keeps:
        return current
    return row.index(most) if row.count(most) == 1 else -1
