"""Record, for every rule reason of every game, a position and a move the game refuses for it.

Runs the rule scenarios (``tests/games``) with every game's ``explain`` watched: each refusal they
provoke is a candidate. For each (game, reason) the first candidate that survives the service's own
checks is kept: its state encodes and decodes through the game's codec, breaks no invariant, and
``core.validate`` refuses the move with that reason. The result, the proto3 JSON of each state and
move, is ``tests/transport/reason_examples.json``, which ``test_reason_catalogue.py`` plays over REST,
gRPC and Connect. Rerun after adding a reason or changing a rule:

    .venv/bin/python tests/transport/record_reason_examples.py
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf import json_format

from lawspeaker.api.rules import RulesApi
from lawspeaker.games import core
from lawspeaker.v1 import game_pb2, rules_service_pb2
from lawspeaker.wire.registry import REGISTRY

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "reason_examples.json"
PER_REASON = 40  # candidates kept per reason before the checks choose one


class Recorder:
    """A pytest plugin: while the session runs, every game's ``explain`` is recorded."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], list[tuple[Any, Any]]] = {}
        self.originals: dict[type, Any] = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self) -> None:
        for game_id, entry in REGISTRY.items():
            cls = type(entry.game)
            original = cls.explain
            self.originals[cls] = original

            def watched(self_: Any, state: Any, move: Any, _o: Any = original, _g: str = game_id) -> Any:
                violation = _o(self_, state, move)
                found = self.seen.setdefault((_g, violation.reason), [])
                if len(found) < PER_REASON:
                    found.append((state, move))
                return violation

            cls.explain = watched  # type: ignore[method-assign]

    def pytest_sessionfinish(self) -> None:
        for cls, original in self.originals.items():
            cls.explain = original  # type: ignore[method-assign]


def _accepted(game_id: str, reason: str, candidates: list[tuple[Any, Any]]) -> Iterator[dict[str, Any]]:
    api = RulesApi()
    entry = REGISTRY[game_id]
    for state, move in candidates:
        try:
            state_msg = api.encode_state(entry, state)
            if len(state_msg.rng.seed) != 32:  # a scenario's short test seed: any 32 bytes will do
                state_msg.rng.seed = hashlib.sha256(state_msg.rng.seed).digest()
            move_msg = api.encode_move(entry, move)
            decoded = api.decode_state(entry, state_msg)
            again = api.decode_move(entry, move_msg, True)
            if entry.game.check_state(decoded):
                continue
            violation = core.validate(entry.game, decoded, again)
        except (core.LawspeakerError, KeyError, ValueError, TypeError):
            continue  # a scenario's move or state the contract cannot carry (a piece that does not exist)
        if violation is None or violation.reason != reason:
            continue
        yield {
            "state": json_format.MessageToDict(state_msg),
            "move": json_format.MessageToDict(move_msg),
        }


def _first_decision(game: str, players: int) -> Any:
    """A new game played by its first listed moves until it waits for a player's decision."""
    api = RulesApi()
    state = api.new_game(rules_service_pb2.NewGameRequest(game=game, players=players, seed=11)).state
    for _ in range(500):
        listed = api.legal_moves(rules_service_pb2.LegalMovesRequest(game=game, state=state))
        if not listed.HasField("chance"):
            return state
        move = listed.moves[0]
        state = api.apply_move(rules_service_pb2.ApplyMoveRequest(game=game, state=state, move=move)).state
    raise AssertionError(f"{game}: no decision step")


# Refusals the rule scenarios reach only with engine values, sent here as the contract carries them.
BY_HAND: dict[tuple[str, str], Any] = {
    ("pax_viking_junior", "NOT_A_CHANCE_STEP"): lambda: (
        _first_decision("pax_viking_junior", 2),
        game_pb2.Move(pax_viking_junior={"draw": {}}),
    ),
}


def _by_hand(game_id: str, reason: str) -> dict[str, Any] | None:
    make = BY_HAND.get((game_id, reason))
    if make is None:
        return None
    state, move = make()
    answer = RulesApi().validate_move(
        rules_service_pb2.ValidateMoveRequest(game=game_id, state=state, move=move)
    )
    if answer.valid or answer.violation.reason != reason:
        raise AssertionError(f"{game_id}.{reason}: the hand-made example gives {answer.violation.reason}")
    return {"state": json_format.MessageToDict(state), "move": json_format.MessageToDict(move)}


def main() -> int:
    recorder = Recorder()
    code = pytest.main(
        ["-q", "-o", "addopts=", "-p", "no:cacheprovider", str(HERE.parent / "games")], [recorder]
    )
    if code != 0:
        print("the rule scenarios failed; nothing recorded", file=sys.stderr)
        return int(code)
    examples: dict[str, dict[str, Any]] = {}
    missing = []
    for game_id, entry in sorted(REGISTRY.items()):
        for reason in sorted(entry.game.reasons):
            found = next(_accepted(game_id, reason, recorder.seen.get((game_id, reason), [])), None)
            found = found if found is not None else _by_hand(game_id, reason)
            if found is None:
                missing.append(f"{game_id}.{reason}")
                continue
            examples.setdefault(game_id, {})[reason] = found
    OUT.write_text(json.dumps(examples, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT.relative_to(HERE.parents[1])}: {sum(len(v) for v in examples.values())} examples")
    if missing:
        print("no rule scenario provokes:", *missing, sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
