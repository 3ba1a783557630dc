"""How long a game of Pax Viking Junior lasts and which victory cards end it, with the reference
components: 200 games per player count and variant between simple greedy players (every player draws
when allowed, places the drawn tile printing the most Silfr and Scrolls, puts 1 or 2 Kittens on it,
otherwise journeys at random and sometimes picks up). ``docs/rules/pax-viking-junior.md`` quotes the
numbers as a check on the component numbers; it measures no speed.

    .venv/bin/python benchmarks/pax_viking_junior_balance.py
"""

from __future__ import annotations

import collections
import random
from typing import Any

from lawspeaker.games import core
from lawspeaker.games.pax_viking_junior import (
    GAME,
    REFERENCE,
    DrawTiles,
    Options,
    Phase,
    PickUpCats,
    PlaceKittens,
    PlaceTile,
    State,
    VictoryCards,
)


def greedy(state: State, rng: random.Random) -> Any:
    moves = list(GAME.legal_moves(state))
    if state.phase is Phase.DRAW_OFFER:
        draws = [m for m in moves if isinstance(m, DrawTiles)]
        return max(draws, key=lambda m: m.count) if draws else moves[-1]
    if state.phase is Phase.CHOOSE_TILE:
        tiles = [m for m in moves if isinstance(m, PlaceTile)]
        return max(
            tiles, key=lambda m: REFERENCE.tile_silfr[m.tile] + REFERENCE.tile_scrolls[m.tile] + rng.random()
        )
    if state.phase is Phase.PLACE_CATS:
        kittens = [m for m in moves if isinstance(m, PlaceKittens) and m.count > 0]
        if state.placed >= 0 and kittens:
            return rng.choice(kittens)
        if PickUpCats() in moves and rng.random() < 0.3:
            return PickUpCats()
        return moves[0]
    return rng.choice(moves)


def main() -> None:
    print("| players | victory cards | median rounds | 90th percentile | won by red | green | yellow |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for players in (2, 4, 6):
        for variant in VictoryCards:
            rounds: list[float] = []
            won: collections.Counter[str] = collections.Counter()
            for seed in range(200):
                rng = random.Random(seed)
                state = GAME.new_game(players, Options(victory_cards=variant), core.Rng.from_seed(seed))
                turns = 0
                while GAME.outcome(state) is None:
                    state, events = GAME.apply(state, greedy(state, rng))
                    turns += any(e.kind == "TURN_STARTED" for e in events)
                rounds.append(turns / players)
                won[REFERENCE.card_colour[state.won_card]] += 1
            rounds.sort()
            shares = " | ".join(f"{won[c] / len(rounds):.0%}" for c in ("red", "green", "yellow"))
            median, p90 = rounds[len(rounds) // 2], rounds[int(len(rounds) * 0.9)]
            print(f"| {players} | {variant.name} | {median:.1f} | {p90:.1f} | {shares} |")


if __name__ == "__main__":
    main()
