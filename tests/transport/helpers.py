"""Calls the same RPC over gRPC and over REST and checks both transports agree."""

from __future__ import annotations

from typing import Any, TypeVar

import httpx
from google.protobuf import json_format
from google.protobuf.message import Message

from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.v1 import rules_service_pb2_grpc

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
    assert over_rest == over_grpc, f"{method}: gRPC and REST disagree"
    return over_grpc


__all__ = ["PROTOBUF", "body_json", "both", "pb", "rest"]
