"""Golden playthroughs: record a game once, re-check it forever.

A playthrough file holds the creation parameters and, for every step, a digest of the state, the
legal-move list and the move made. Re-playing it through the API must give the same lists and the
same digests, so any drift in the rules shows. Record new files with::

    .venv/bin/python tests/golden/playthrough.py record
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from lawspeaker.api.rules import RulesApi
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import rules_service_pb2 as pb

HERE = Path(__file__).parent
API = RulesApi()

# (file name, game, players, seed, options as proto3 JSON)
CASES: list[tuple[str, str, int, int, dict[str, Any]]] = [
    ("valhalla-layout-runes.json", "valhalla", 2, 11, {}),
    (
        "valhalla-enter-doubles.json",
        "valhalla",
        2,
        12,
        {"valhalla": {"start": "VALHALLA_START_ENTER", "doubles": True}},
    ),
    (
        "valhalla-enter-doubles-move-another.json",
        "valhalla",
        2,
        12,
        {
            "valhalla": {
                "start": "VALHALLA_START_ENTER",
                "doubles": True,
                "entryBlocked": "VALHALLA_ENTRY_BLOCKED_MOVE_ANOTHER",
            }
        },
    ),
    (
        "valhalla-traditional-own.json",
        "valhalla",
        2,
        13,
        {"valhalla": {"scoring": "VALHALLA_SCORING_TRADITIONAL", "hagalaz": "VALHALLA_HAGALAZ_CANCELS_OWN"}},
    ),
    ("pax-penning-3-players.json", "pax_penning", 3, 31, {}),
    ("pax-penning-4-players.json", "pax_penning", 4, 32, {}),
    ("pax-penning-5-players.json", "pax_penning", 5, 33, {}),
    ("pax-viking-junior-2-players.json", "pax_viking_junior", 2, 41, {}),
    ("pax-viking-junior-6-players.json", "pax_viking_junior", 6, 42, {}),
    (
        "pax-viking-junior-3-players-buff.json",
        "pax_viking_junior",
        3,
        43,
        {"pax_viking_junior": {"buff": True}},
    ),
    (
        "pax-viking-junior-4-players-longer-game.json",
        "pax_viking_junior",
        4,
        44,
        {"pax_viking_junior": {"victory_cards": "PAX_VIKING_JUNIOR_VICTORY_CARDS_LONGER"}},
    ),
    (
        "pax-viking-junior-5-players-chosen-boards-tie-nobody.json",
        "pax_viking_junior",
        5,
        45,
        {
            "pax_viking_junior": {
                "seat_boards": ["trjegul", "saehrimnir", "sleipnir", "munin", "huginn"],
                "starting_seat": 2,
                "kitten_tie": "PAX_VIKING_JUNIOR_KITTEN_TIE_NOBODY",
                "buff": True,
            }
        },
    ),
    ("birka-2-players.json", "birka", 2, 51, {}),
    ("birka-3-players.json", "birka", 3, 52, {}),
    ("birka-4-players.json", "birka", 4, 53, {}),
    ("birka-2-players-ten-rounds.json", "birka", 2, 54, {"birka": {"calendar_rounds": 10}}),
    ("penki-pair-by-pair.json", "penki", 2, 21, {}),
    ("penki-pair-by-pair-stuck-draw.json", "penki", 2, 21, {"penki": {"stuck": "PENKI_STUCK_DRAW"}}),
    (
        "penki-random-pairs-flat-stacked.json",
        "penki",
        2,
        22,
        {
            "penki": {
                "setup": "PENKI_SETUP_RANDOM_PAIRS",
                "tiles": "PENKI_TILES_HORIZONTAL_ONLY",
                "alignment": "PENKI_ALIGNMENT_TILES",
            }
        },
    ),
]


def compact(message: Any) -> str:
    return json.dumps(json_format.MessageToDict(message), sort_keys=True, separators=(",", ":"))


def digest(state: game_pb2.GameState) -> str:
    return hashlib.sha256(state.SerializeToString(deterministic=True)).hexdigest()[:20]


def new_state(game: str, players: int, seed: int, options: dict[str, Any]) -> game_pb2.GameState:
    request = pb.NewGameRequest(game=game, players=players, seed=seed)
    json_format.ParseDict(options, request.options)
    return API.new_game(request).state


def record(game: str, players: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    chooser = random.Random(seed)
    state = new_state(game, players, seed, options)
    steps = []
    while True:
        listed = API.legal_moves(pb.LegalMovesRequest(game=game, state=state))
        if listed.game_over:
            break
        moves = list(listed.moves)
        if listed.HasField("chance") and chooser.random() < 0.2:
            move = chooser.choice(list(listed.chance.outcomes)).move
        else:
            move = chooser.choice(moves)
        steps.append({"digest": digest(state), "legal": [compact(m) for m in moves], "move": compact(move)})
        state = API.apply_move(pb.ApplyMoveRequest(game=game, state=state, move=move)).state
    return {
        "game": game,
        "players": players,
        "seed": seed,
        "options": options,
        "steps": steps,
        "final_digest": digest(state),
        "outcome": json_format.MessageToDict(listed.outcome),
    }


def main() -> None:
    if sys.argv[1:] != ["record"]:
        sys.exit("usage: playthrough.py record")
    for name, game, players, seed, options in CASES:
        data = record(game, players, seed, options)
        (HERE / name).write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
        print(f"wrote {name}: {len(data['steps'])} steps")


if __name__ == "__main__":
    main()
