"""The odds tables behind the Pax Penning heuristic (issue 19): how often a seat goes on to win a
game that ends in a Thegn's Victory, and one that ends in a Jarl's Victory, by its place in the
Hierarchy, its lead in Pennings and the King's walks left, counted over random games. Not a test:
it writes ``service/lawspeaker/bots/heuristics/pax_penning_odds.json``, which
``lawspeaker.bots.heuristics.pax_penning`` reads (``docs/rules/pax-penning.md``, "Greedy bot: what it
values").

Every seat of every game plays uniformly random legal moves, chance is drawn from its probabilities
with the game's own seeded RNG, and at the start of every turn each seat's situation is counted
against its share of the win at the end (1/k of a k-seat Coalition), under the kind of victory
the game ended in (a game where everyone loses counts under neither). The same arguments give the
same tables.

    .venv/bin/python benchmarks/pax_penning_odds.py --players 3 4 5 --games 6000 --write
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import random
import re
import time
from collections import defaultdict

from lawspeaker.bots import sample_chance
from lawspeaker.bots.heuristics import pax_penning as heuristic
from lawspeaker.games.core import Rng
from lawspeaker.games.pax_penning import GAME, JARL, THEGN, Phase

TABLE = heuristic.ODDS_PATH
FIRST_SEED = 200_000
"""Seeds of the counted games start here (away from the seeds the tests and benchmarks play)."""

Cell = tuple[int, int, int]  # place, lead, half walks


def tally(players: int, seeds: range) -> dict[Cell, list[float]]:
    """Per situation: in games that ended in a Thegn's Victory, the share of the win its seats went
    on to take and how often it was seen; then the same two for a Jarl's Victory."""
    counts: dict[Cell, list[float]] = defaultdict(lambda: [0.0, 0, 0.0, 0])
    for seed in seeds:
        rng = random.Random(seed)
        state = GAME.new_game(players, GAME.default_options(), Rng.from_seed(seed))
        seen: list[tuple[int, Cell]] = []
        turn = -1
        while (outcome := GAME.outcome(state)) is None:
            if state.phase is Phase.GATHER and state.turn != turn and len(state.hierarchy) == players + 1:
                turn = state.turn
                seen.extend(enumerate(heuristic.situations(state)))
            move = sample_chance(GAME, state, rng)
            if move is None:
                moves = GAME.legal_moves(state)
                move = moves[rng.randrange(len(moves))]
            state, _ = GAME.apply(state, move)
        if state.victory not in (THEGN, JARL):
            continue  # everyone lost: the heuristic's last-die hazard counts that
        kind = 0 if state.victory == THEGN else 2
        for s, cell in seen:
            counts[cell][kind] += 1 / len(outcome.winners) if s in outcome.winners else 0.0
            counts[cell][kind + 1] += 1
    return counts


def _tally_chunk(args: tuple[int, int, int]) -> dict[Cell, list[float]]:
    players, start, stop = args
    return dict(tally(players, range(start, stop)))


def _format(table: dict[str, object]) -> str:
    """JSON with one cell a line (a diff then shows which situations changed)."""
    text = json.dumps(table, indent=1)
    return re.sub(r"\[\s+(-?[0-9.]+(?:,\s+-?[0-9.]+)*)\s+\]", _one_line, text) + "\n"


def _one_line(match: re.Match[str]) -> str:
    return "[" + ", ".join(re.split(r",\s+", match.group(1))) + "]"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--games", type=int, default=6000, help="random games per player count")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--write", action="store_true", help=f"write the table to {TABLE}")
    args = parser.parse_args()
    out: dict[str, object] = {
        "about": "Pax Penning: the share of the win a seat went on to take in uniformly random games, by"
        " its situation at the start of a turn and the kind of victory the game ended in: [place in the"
        f" Hierarchy (0: top, the coin left out), lead in Pennings over the most among the others (clipped"
        f" to +-{heuristic.LEAD_CLIP}), King's walks left in halves (0-6), share of the win taken in games"
        " ending in a Thegn's Victory, times seen in them, share taken in games ending in a Jarl's"
        " Victory, times seen in them]. Written by benchmarks/pax_penning_odds.py; read by"
        " lawspeaker.bots.heuristics.pax_penning.",
        "command": "benchmarks/pax_penning_odds.py --players "
        + " ".join(str(p) for p in args.players)
        + f" --games {args.games}",
        "players": {},
    }
    tables: dict[str, object] = {}
    started = time.perf_counter()
    for players in args.players:
        chunk = max(1, args.games // (8 * args.jobs))
        first = FIRST_SEED + 10_000 * players
        jobs = [
            (players, s, min(s + chunk, first + args.games)) for s in range(first, first + args.games, chunk)
        ]
        total: dict[Cell, list[float]] = defaultdict(lambda: [0.0, 0, 0.0, 0])
        with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
            for part in pool.map(_tally_chunk, jobs):
                for cell, counts in part.items():
                    total[cell] = [a + b for a, b in zip(total[cell], counts, strict=True)]
        tables[str(players)] = {
            "games": args.games,
            "first_seed": first,
            "cells": [
                [*cell, round(won_t, 3), int(n_t), round(won_j, 3), int(n_j)]
                for cell, (won_t, n_t, won_j, n_j) in sorted(total.items())
            ],
        }
    out["players"] = tables
    text = _format(out)
    print(f"{sum(args.games for _ in args.players)} games in {time.perf_counter() - started:.0f} s")
    if args.write:
        TABLE.write_text(text)
    else:
        print(text[:2000])


if __name__ == "__main__":
    main()
