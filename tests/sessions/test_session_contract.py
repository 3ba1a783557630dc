"""The REST routes and the OpenAPI document of SessionService come from its google.api.http options."""

from __future__ import annotations

import pytest
from google.api import annotations_pb2

from lawspeaker.http.openapi import openapi_document
from lawspeaker.http.routes import SESSION_RPCS, SESSION_SERVICE
from lawspeaker.http.session_routes import EVENT_STREAM

pytestmark = pytest.mark.sessions


def test_every_session_rpc_is_documented_where_its_annotation_binds_it() -> None:
    doc = openapi_document()
    bound = set()
    for method in SESSION_SERVICE.methods:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        kind = rule.WhichOneof("pattern")
        template = getattr(rule, kind)
        operation = doc["paths"][template][kind]
        assert operation["operationId"] == method.name
        # a seat (or the host) acts with its token; creating a session and the lobby's calls need an
        # API key when keys are configured; a rematch both (it makes a session)
        if method.name == "Rematch":
            assert operation["security"] == [{"seatToken": []}, {"seatToken": [], "apiKey": []}]
        else:
            scheme = (
                "apiKey" if method.name in ("CreateSession", "ListSessions", "ClaimSeat") else "seatToken"
            )
            assert operation["security"] == [{}, {scheme: []}]
        bound.add(method.name)
    assert bound == {r.name for r in SESSION_RPCS} and len(bound) == 15
    assert {"seatToken", "apiKey"} <= set(doc["components"]["securitySchemes"])
    watch = doc["paths"]["/v1/sessions/{session}:watch"]["get"]
    assert EVENT_STREAM in watch["responses"]["200"]["content"]
    moves = doc["paths"]["/v1/sessions/{session}/moves"]["get"]
    assert {p["name"] for p in moves["parameters"]} == {"session", "pageSize", "pageToken", "If-None-Match"}
    assert "delete" in doc["paths"]["/v1/sessions/{session}"]
    assert {"403", "409", "503"} <= set(doc["paths"]["/v1/sessions/{session}:applyMove"]["post"]["responses"])
