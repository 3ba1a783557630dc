"""Where a multi-player bot's results come from (issue 19): a bot against random seats, its games
grouped by the place the setup dealt it in the Hierarchy (Pax Penning) and by how they ended. Not a
test: the table goes to ``docs/benchmarks.md`` ("Bots: Pax Penning at 5 players, greedy by
starting place", one section per level and player count).

``--set NAME=VALUE`` plays with a weight of ``lawspeaker.bots.heuristics.pax_penning`` changed (a number
or JSON), to measure how much the heuristic's weights move the result; each ``--set`` group is a
separate run over the same seeds.

    .venv/bin/python benchmarks/bots_by_rank.py --level greedy --games 400 --write
    .venv/bin/python benchmarks/bots_by_rank.py --level greedy --games 400 --set TIE_BREAK=0.1
    .venv/bin/python benchmarks/bots_by_rank.py --level search --games 400 --first 401  # fresh seeds
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from lawspeaker.bots import Level, sample_chance, suggest
from lawspeaker.bots.heuristics import pax_penning as heuristic
from lawspeaker.games.core import Rng
from lawspeaker.games.pax_penning import COIN, HIDDEN_RNG, JARL, THEGN, PaxPenning, Phase, State
from lawspeaker.wire.registry import REGISTRY

sys.path.insert(0, str(Path(__file__).parent))
from bots import write_section  # the benchmark next to this one

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
SECTION = "## Bots: Pax Penning at {players} players, {level} by starting place"
OPEN_SECTION = SECTION + ", every House seen (a diagnostic)"


class OpenHouses(PaxPenning):
    """Pax Penning whose views show every House: with ``--open-houses`` the bot thinks with this game,
    so it knows where every stone is (and the heuristic counts the Heirs it sees, ``_led_houses``).
    Not a way to play: it measures what the hidden Houses cost the bot, an upper bound on what a
    player's memory of the stones it sent could give back."""

    def view(self, state: State, seat: int | None) -> State:
        return state._replace(rng=HIDDEN_RNG)


OPEN_GAME = OpenHouses()


@dataclass(frozen=True)
class Game:
    players: int
    level: Level
    seed: int
    playouts: int
    weights: tuple[tuple[str, float], ...]
    open_houses: bool = False


@dataclass(frozen=True)
class Ending:
    start: int  # the bot's place in the Hierarchy once the setup filled it (0: top), the coin left out
    end: int  # its place at the end
    won: float  # its share of first place
    victory: int
    most: bool  # it held the most Pennings (ties included) at the end
    rolls: int  # the bot's feast rolls
    dice: int  # the dice in them
    pairs: int  # the pairs they gave
    moves: int  # the bot's decisions with more than one legal move
    thought: float  # seconds the bot spent choosing them


def play(game_: Game) -> Ending:
    """One game, the bot in seat ``seed % players``, every other seat random."""
    for name, value in game_.weights:
        setattr(heuristic, name, value)
    game = REGISTRY["pax_penning"].game
    bot = game_.seed % game_.players
    rng = random.Random(game_.seed)
    state: State = game.new_game(game_.players, game.default_options(), Rng.from_seed(game_.seed))
    start = -1
    plies = rolls = dice = pairs = moves = 0
    thought = 0.0
    while (outcome := game.outcome(state)) is None:
        if start < 0 and len(state.hierarchy) == game_.players + 1:
            start = [s for s in state.hierarchy if s != COIN].index(bot)
        move = sample_chance(game, state, rng)
        if move is None:
            seat = game.to_act(state).players[0]
            level = game_.level if seat == bot else Level.RANDOM
            thinks = OPEN_GAME if game_.open_houses and seat == bot else game
            started = time.perf_counter()
            move = suggest(
                thinks, state, seat, level, playouts=game_.playouts, seed=game_.seed * 1000 + plies
            ).move
            if seat == bot and len(game.legal_moves(state)) > 1:
                moves, thought = moves + 1, thought + time.perf_counter() - started
        before = state
        state, _ = game.apply(state, move)
        plies += 1
        if before.phase is Phase.ROLL and state.phase is not Phase.ROLL and before.turn == bot:
            rolls, dice, pairs = rolls + 1, dice + len(state.dice), pairs + state.pairs
    pennings = [sum(coins) for coins in state.coins]
    won = 1 / len(outcome.winners) if bot in outcome.winners else 0.0
    end = [s for s in state.hierarchy if s != COIN].index(bot)
    most = pennings[bot] == max(pennings)
    return Ending(start, end, won, state.victory, most, rolls, dice, pairs, moves, thought)


def _row(label: str, rows: list[Ending]) -> str:
    n = len(rows)
    first = sum(e.won for e in rows) / n
    top = sum(e.end == 0 for e in rows) / n
    jarl = sum(e.won for e in rows if e.victory == JARL)
    thegn = [e for e in rows if e.victory == THEGN]
    thegn_won = sum(e.won for e in thegn)
    rolls = sum(e.rolls for e in rows) or 1
    dice, pairs = sum(e.dice for e in rows) / rolls, sum(e.pairs for e in rows) / rolls
    return (
        f"| {label} | {n} | {first:.0%} | {top:.0%} | {jarl:.0f} | {len(thegn)} ({thegn_won:.0f}) |"
        f" {sum(e.most for e in rows)} | {dice:.1f} | {pairs:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--level", default="greedy", choices=[level.value for level in Level])
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--first", type=int, default=1, help="the first seed (games use consecutive seeds)")
    parser.add_argument("--playouts", type=int, default=100, help="search playouts per move")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a heuristic weight")
    parser.add_argument(
        "--open-houses", action="store_true", help="a diagnostic: the bot sees every House (OpenHouses)"
    )
    parser.add_argument("--write", action="store_true", help=f"write the table to {DOC}")
    args = parser.parse_args()
    weights = []
    for item in args.set:
        name, _, value = item.partition("=")
        if not hasattr(heuristic, name):
            parser.error(f"lawspeaker.bots.heuristics.pax_penning has no weight {name!r}")
        weights.append((name, json.loads(value)))
    games = [
        Game(args.players, Level(args.level), seed, args.playouts, tuple(weights), args.open_houses)
        for seed in range(args.first, args.first + args.games)
    ]
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        endings = list(pool.map(play, games, chunksize=4))
    elapsed = time.perf_counter() - started
    changed = " ".join(f"--set {item}" for item in args.set)
    thought_ms = 1000 * sum(e.thought for e in endings) / max(1, sum(e.moves for e in endings))
    section = (OPEN_SECTION if args.open_houses else SECTION).format(players=args.players, level=args.level)
    lines = [
        section,
        "",
        f"`benchmarks/bots_by_rank.py --level {args.level} --players {args.players} --games {args.games}"
        + (f" --first {args.first}" if args.first != 1 else "")
        + (f" --playouts {args.playouts}" if args.level == "search" else "")
        + (f" {changed}" if changed else "")
        + (" --open-houses" if args.open_houses else "")
        + f"`: {len(games)} games in {elapsed:.0f} s ({args.jobs} at a time), the bot in each seat in turn"
        f" against random seats, thinking {thought_ms:.0f} ms a decision on average (those with more than"
        " one legal move), grouped by the bot's place in the Hierarchy when the setup had filled it (0: the"
        " top).",
        "",
        "| starting place | games | bot first | ends at the top | Jarl's Victories won | Thegn's Victories"
        " (won) | bot ends with the most Pennings | bot's dice a roll | bot's pairs a roll |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for start in sorted({e.start for e in endings}):
        lines.append(_row(str(start), [e for e in endings if e.start == start]))
    lines.append(_row("all", endings))
    table = "\n".join(lines) + "\n"
    print(table)
    if args.write:
        write_section(DOC, section, table)


if __name__ == "__main__":
    main()
