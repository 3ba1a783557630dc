"""Calls the same RPC over gRPC and over REST and checks both transports agree."""

from __future__ import annotations

import random
from typing import Any, TypeVar

import httpx
from google.protobuf import json_format
from google.protobuf.message import Message

from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire import fieldpaths

PROTOBUF = "application/x-protobuf"
VERBS = {
    "NewGame": "new",
    "LegalMoves": "legalMoves",
    "ValidateMove": "validateMove",
    "ApplyMove": "applyMove",
}
R = TypeVar("R", bound=Message)


def body_json(request: Message) -> dict[str, Any]:
    """The proto3 JSON body of a request, with the game left to the path."""
    data = json_format.MessageToDict(request, preserving_proto_field_name=False)
    data.pop("game", None)
    return data


def rest(
    http: httpx.Client, method: str, request: Message, response_type: type[R], protobuf: bool = False
) -> R:
    game = getattr(request, "game")  # noqa: B009
    url = f"/v1/games/{game}:{VERBS[method]}"
    if protobuf:
        r = http.post(
            url,
            content=request.SerializeToString(),
            headers={"content-type": PROTOBUF, "accept": PROTOBUF},
        )
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == PROTOBUF
        out = response_type()
        out.ParseFromString(r.content)
        return out
    r = http.post(url, json=body_json(request))
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    out = json_format.Parse(r.text, response_type(), ignore_unknown_fields=False)
    # The JSON is exactly the canonical proto3 JSON of the message.
    assert r.json() == json_format.MessageToDict(out, preserving_proto_field_name=False)
    return out


def both(
    stub: rules_service_pb2_grpc.RulesServiceStub,
    http: httpx.Client,
    method: str,
    request: Message,
    response_type: type[R],
    protobuf: bool = False,
) -> R:
    """The response over gRPC, after checking REST answers exactly the same message."""
    over_grpc: R = getattr(stub, method)(request, timeout=30)
    over_rest = rest(http, method, request, response_type, protobuf)
    has_violation = "violation" in over_grpc.DESCRIPTOR.fields_by_name and over_grpc.HasField("violation")
    if not protobuf and has_violation:
        # a JSON answer names the field at fault by its JSON names (lawspeaker.wire.fieldpaths)
        field = over_grpc.violation.field  # type: ignore[attr-defined]
        assert over_rest.violation.field == fieldpaths.to_json(field)  # type: ignore[attr-defined]
        over_rest.violation.field = field  # type: ignore[attr-defined]
    if has_violation and over_grpc.violation.rule:  # type: ignore[attr-defined]
        # REST links the rule from the request's base; gRPC, with no --public-url, by its path
        base = str(http.base_url).rstrip("/")
        assert over_rest.violation.rule == base + over_grpc.violation.rule  # type: ignore[attr-defined]
        over_rest.violation.rule = over_grpc.violation.rule  # type: ignore[attr-defined]
    assert over_rest == over_grpc, f"{method}: gRPC and REST disagree"
    return over_grpc


def play(
    stub: rules_service_pb2_grpc.RulesServiceStub,
    http: httpx.Client,
    game: str,
    seed: int,
    players: int = 2,
    options: game_pb2.GameOptions | None = None,
    protobuf: bool = False,
    explicit_outcomes: float = 0.0,
    max_steps: int = 5000,
) -> tuple[int, game_pb2.GameState, pb.LegalMovesResponse]:
    """Play a whole game over both transports at once (every answer compared by :func:`both`):
    LegalMoves, ValidateMove of a random listed move (or, with probability ``explicit_outcomes``, an
    explicit chance outcome), ApplyMove. Returns the moves applied, the final state and the final
    LegalMoves answer."""
    chooser = random.Random(seed)
    new = pb.NewGameRequest(game=game, players=players, seed=seed)
    if options is not None:
        new.options.CopyFrom(options)
    state = both(stub, http, "NewGame", new, pb.NewGameResponse, protobuf).state
    assert state.WhichOneof("game") == game
    for step in range(max_steps):
        listed = both(
            stub,
            http,
            "LegalMoves",
            pb.LegalMovesRequest(game=game, state=state),
            pb.LegalMovesResponse,
            protobuf,
        )
        if listed.game_over:
            assert not listed.moves and listed.outcome.summary
            return step, state, listed
        assert listed.moves, f"no legal moves at step {step} but the game is not over"
        assert listed.to_act or listed.HasField("chance")
        move = chooser.choice(list(listed.moves))
        if listed.HasField("chance") and chooser.random() < explicit_outcomes:
            move = chooser.choice(list(listed.chance.outcomes)).move
        request = pb.ValidateMoveRequest(game=game, state=state, move=move)
        verdict = both(stub, http, "ValidateMove", request, pb.ValidateMoveResponse, protobuf)
        assert verdict.valid, verdict.violation
        apply = pb.ApplyMoveRequest(game=game, state=state, move=move)
        applied = both(stub, http, "ApplyMove", apply, pb.ApplyMoveResponse, protobuf)
        assert applied.events, "every move reports what happened"
        state = applied.state
    raise AssertionError(f"{game} with seed {seed} did not end in {max_steps} moves")


__all__ = ["PROTOBUF", "body_json", "both", "pb", "play", "rest"]
