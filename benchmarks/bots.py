"""How strong the computer opponents are (issue 19): ``search`` against ``random`` and against
``greedy``, and ``greedy`` against ``random``, in every game, the bot in every seat in turn, with a
fixed budget per move. Not a test: the numbers go to ``docs/benchmarks.md`` ("Bots: win rates").

Each game is played to the end with the engine directly (no server): chance steps are drawn from
their probabilities with the match's own RNG, as the server would draw them, and the bot under test
sits in one seat while the opponent level takes every other seat. A two-player result is the bot's
share of wins (a draw counts half); a multi-player one is how often the bot comes first (a shared
first place counts as a share). The budget is playouts per move by default, so that a run is
repeatable; ``--millis`` gives a time budget instead (the issue's example is 100 ms).

    .venv/bin/python benchmarks/bots.py --games 6 --playouts 40 --write
"""

from __future__ import annotations

import argparse
import concurrent.futures
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lawspeaker.bots import Level, sample_chance, suggest
from lawspeaker.games.core import Rng
from lawspeaker.wire.registry import REGISTRY

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
SECTION = "## Bots: win rates against other levels"
PAIRINGS = ((Level.SEARCH, Level.RANDOM), (Level.SEARCH, Level.GREEDY), (Level.GREEDY, Level.RANDOM))


@dataclass(frozen=True)
class Match:
    game: str
    players: int
    bot: Level
    opponent: Level
    bot_seat: int
    seed: int
    playouts: int | None
    millis: float | None


def write_section(doc: Path, section: str, table: str) -> None:
    """Put ``table`` (which starts with the ``section`` heading) in ``doc`` in place of that
    section (up to the next ``## `` heading), or at the end when the document has none yet."""
    text = doc.read_text()
    if section in text:
        text = re.sub(re.escape(section) + r".*?(?=\n## |\Z)", table.rstrip("\n") + "\n", text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + table
    doc.write_text(text)


def play(match: Match) -> tuple[Match, float, int, float]:
    """The bot's share of first place, the plies played and the bot's seconds per move."""
    game: Any = REGISTRY[match.game].game
    rng = random.Random(match.seed)
    state = game.new_game(match.players, game.default_options(), Rng.from_seed(match.seed))
    plies = 0
    thinking = 0.0
    thought = 0
    while (outcome := game.outcome(state)) is None:
        move = sample_chance(game, state, rng)  # drawn as the server would, not by a bot
        if move is None:
            seat = game.to_act(state).players[0]
            level = match.bot if seat == match.bot_seat else match.opponent
            started = time.perf_counter()
            move = suggest(
                game,
                state,
                seat,
                level,
                playouts=match.playouts,
                millis=match.millis,
                seed=match.seed * 1000 + plies,
            ).move
            if seat == match.bot_seat:
                thinking += time.perf_counter() - started
                thought += 1
        state, _ = game.apply(state, move)
        plies += 1
    share = 1 / len(outcome.winners) if match.bot_seat in outcome.winners else 0.0
    if not outcome.winners:  # a draw (or everyone lost): an equal share
        share = 1 / match.players
    return match, share, plies, thinking / max(thought, 1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=6, help="games per pairing, game and player count")
    parser.add_argument("--playouts", type=int, default=40, help="search playouts per move")
    parser.add_argument("--millis", type=float, default=None, help="a time budget per move instead")
    parser.add_argument("--only", nargs="*", default=None, help="game ids (default: all)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--write", action="store_true", help=f"write the table to {DOC}")
    parser.add_argument(
        "--players", type=int, nargs="*", default=None, help="player counts (default: the least, and 3)"
    )
    parser.add_argument(
        "--pairings", nargs="*", default=None, help="bot:opponent levels, e.g. search:random (default: all)"
    )
    parser.add_argument("--section", default=SECTION, help="the heading of the section written")
    args = parser.parse_args()
    playouts = None if args.millis else args.playouts
    matches = []
    pairings = (
        [tuple(Level(level) for level in p.split(":")) for p in args.pairings] if args.pairings else PAIRINGS
    )
    for game_id in args.only or sorted(REGISTRY):
        game: Any = REGISTRY[game_id].game
        counts = args.players or [game.min_players, max(game.min_players, 3)]
        for players in sorted({n for n in counts if game.min_players <= n <= game.max_players}):
            for bot, opponent in pairings:
                for k in range(args.games):
                    matches.append(
                        Match(game_id, players, bot, opponent, k % players, 1 + k, playouts, args.millis)
                    )
    results: dict[tuple[str, int, Level, Level], list[tuple[float, int, float]]] = {}
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for match, share, plies, per_move in pool.map(play, matches):
            key = (match.game, match.players, match.bot, match.opponent)
            results.setdefault(key, []).append((share, plies, per_move))
    elapsed = time.perf_counter() - started
    budget = f"{args.millis:g} ms" if args.millis else f"{args.playouts} playouts"
    section = args.section
    lines = [
        section,
        "",
        f"`benchmarks/bots.py --games {args.games} "
        + (f"--only {' '.join(args.only)} " if args.only else "")
        + (f"--players {' '.join(map(str, args.players))} " if args.players else "")
        + (f"--pairings {' '.join(args.pairings)} " if args.pairings else "")
        + f"{f'--millis {args.millis:g}' if args.millis else f'--playouts {args.playouts}'}`:"
        f" {len(matches)} games in {elapsed:.0f} s"
        f" on this machine's cores, search with {budget} a move. The bot sits in each seat in turn;",
        "every other seat plays the opponent level. Two players: the bot's share of wins (a draw: half).",
        "More players: how often it comes first (a shared first place counts as a share); a random seat's",
        "expectation is 1/players.",
        "",
        "| game | players | bot | against | games | bot first | plies a game | bot s/move |",
        "|---|---:|---|---|---:|---:|---:|---:|",
    ]
    for (game_id, players, bot, opponent), rows in sorted(
        results.items(), key=lambda kv: (kv[0][0], kv[0][1])
    ):
        share = sum(r[0] for r in rows) / len(rows)
        plies = sum(r[1] for r in rows) / len(rows)
        per_move = sum(r[2] for r in rows) / len(rows)
        lines.append(
            f"| {game_id} | {players} | {bot.value} | {opponent.value} | {len(rows)} | {share:.0%} |"
            f" {plies:.0f} | {per_move:.3f} |"
        )
    table = "\n".join(lines) + "\n"
    print(table)
    if args.write:
        write_section(DOC, section, table)


if __name__ == "__main__":
    main()
