"""Re-check the recorded golden playthroughs move by move."""

from __future__ import annotations

import json

import pytest
from google.protobuf import json_format
from playthrough import API, CASES, HERE, compact, digest, new_state

from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import rules_service_pb2 as pb


@pytest.mark.parametrize("name", [case[0] for case in CASES])
def test_recorded_game_replays_identically(name: str) -> None:
    data = json.loads((HERE / name).read_text())
    game = data["game"]
    state = new_state(game, data["players"], data["seed"], data["options"])
    for number, step in enumerate(data["steps"]):
        assert digest(state) == step["digest"], f"state drifted at step {number}"
        listed = API.legal_moves(pb.LegalMovesRequest(game=game, state=state))
        assert [compact(m) for m in listed.moves] == step["legal"], f"legal moves drifted at step {number}"
        move = json_format.Parse(step["move"], game_pb2.Move())
        state = API.apply_move(pb.ApplyMoveRequest(game=game, state=state, move=move)).state
    assert digest(state) == data["final_digest"]
    final = API.legal_moves(pb.LegalMovesRequest(game=game, state=state))
    assert final.game_over and not final.moves
    assert json_format.MessageToDict(final.outcome) == data["outcome"]
