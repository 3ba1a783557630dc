"""Engine speed: random playouts (legal moves + apply per ply) on one core, next to python-chess.

The python-chess baseline is measured in the same run, interleaved in rounds with the games, so the
ratio holds even when the machine's speed drifts.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import chess

from lawspeaker.games import core
from lawspeaker.wire.registry import REGISTRY


@dataclass
class Rate:
    name: str
    plies: int = 0
    seconds: float = 0.0

    @property
    def per_second(self) -> float:
        return self.plies / self.seconds if self.seconds else 0.0


def chess_playouts(budget: float, rng: random.Random) -> tuple[int, float]:
    """python-chess random playouts: ``list(board.legal_moves)`` + ``push`` per ply."""
    board = chess.Board()
    plies = 0
    start = time.perf_counter()
    deadline = start + budget
    while True:
        for _ in range(64):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over(claim_draw=False) or board.fullmove_number > 200:
                board = chess.Board()
                continue
            board.push(rng.choice(moves))
            plies += 1
        if time.perf_counter() >= deadline:
            return plies, time.perf_counter() - start


def game_playouts(game_id: str) -> Callable[[float, random.Random], tuple[int, float]]:
    """Random playouts of a registered game: ``game.legal_moves`` + ``game.apply`` per ply."""
    game = REGISTRY[game_id].game

    def run(budget: float, rng: random.Random) -> tuple[int, float]:
        seed = rng.getrandbits(64)
        state: Any = game.new_game(game.min_players, game.default_options(), core.Rng.from_seed(seed))
        plies = 0
        start = time.perf_counter()
        deadline = start + budget
        while True:
            for _ in range(64):
                moves = game.legal_moves(state)
                if not moves:
                    seed += 1
                    state = game.new_game(game.min_players, game.default_options(), core.Rng.from_seed(seed))
                    continue
                state, _ = game.apply(state, moves[rng.randrange(len(moves))])
                plies += 1
            if time.perf_counter() >= deadline:
                return plies, time.perf_counter() - start

    return run


def measure(games: list[str], rounds: int = 5, budget: float = 1.0) -> tuple[Rate, dict[str, Rate]]:
    """Interleave rounds of the chess baseline and each game; returns the totals."""
    rng = random.Random(2026)
    baseline = Rate("python-chess")
    rates = {g: Rate(g) for g in games}
    runners = {g: game_playouts(g) for g in games}
    for _ in range(rounds):
        p, s = chess_playouts(budget, rng)
        baseline.plies += p
        baseline.seconds += s
        for g in games:
            p, s = runners[g](budget, rng)
            rates[g].plies += p
            rates[g].seconds += s
    return baseline, rates
