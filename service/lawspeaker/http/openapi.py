"""The OpenAPI 3.1 document of the REST API, built from the protobuf descriptors so that it cannot
drift from the contract."""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

import msgspec
from google.protobuf import descriptor

from lawspeaker import proto_comments
from lawspeaker.http.bodies import JSON, PROTOBUF_TYPES
from lawspeaker.http.problems import PROBLEM_JSON
from lawspeaker.http.routes import (
    API_VERSION,
    IF_MATCH_RPCS,
    RPCS,
    SERVICE,
    SESSION_RPCS,
    SESSION_SERVICE,
    Rpc,
    etag_getter,
)
from lawspeaker.http.session_routes import EVENT_STREAM

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- OpenAPI 3.1

FD = descriptor.FieldDescriptor
REF = "#/components/schemas/"
SEAT_TOKEN = "seatToken"
API_KEY = "apiKey"

_SCALARS: dict[int, dict[str, Any]] = {
    FD.TYPE_DOUBLE: {"type": "number", "format": "double"},
    FD.TYPE_FLOAT: {"type": "number", "format": "float"},
    FD.TYPE_INT32: {"type": "integer", "format": "int32"},
    FD.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FD.TYPE_SFIXED32: {"type": "integer", "format": "int32"},
    FD.TYPE_UINT32: {"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295},
    FD.TYPE_FIXED32: {"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295},
    FD.TYPE_INT64: {"type": ["string", "integer"], "format": "int64"},
    FD.TYPE_SINT64: {"type": ["string", "integer"], "format": "int64"},
    FD.TYPE_SFIXED64: {"type": ["string", "integer"], "format": "int64"},
    FD.TYPE_UINT64: {"type": ["string", "integer"], "format": "uint64"},
    FD.TYPE_FIXED64: {"type": ["string", "integer"], "format": "uint64"},
    FD.TYPE_BOOL: {"type": "boolean"},
    FD.TYPE_STRING: {"type": "string"},
    FD.TYPE_BYTES: {"type": "string", "format": "byte", "contentEncoding": "base64"},
}

_WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array", "items": {}},
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": r"^-?\d+(\.\d+)?s$"},
    "google.protobuf.Empty": {"type": "object", "additionalProperties": False},
}

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "An RFC 9457 problem document; every error of the REST API is one.",
    "required": ["type", "title", "status", "detail", "code", "reason"],
    "properties": {
        "type": {"type": "string", "format": "uri", "description": "Identifies the kind of problem."},
        "title": {"type": "string", "description": "The HTTP status phrase."},
        "status": {"type": "integer", "description": "The HTTP status code."},
        "detail": {"type": "string", "description": "What went wrong, in words."},
        "code": {"type": "string", "description": "The gRPC status code name, e.g. FAILED_PRECONDITION."},
        "reason": {
            "type": "string",
            "description": "A stable UPPER_SNAKE reason, as in the gRPC ErrorInfo, e.g. CAST_FIRST.",
        },
        "fieldViolations": {
            "type": "array",
            "description": "The request fields at fault.",
            "items": {
                "type": "object",
                "required": ["field", "description"],
                "properties": {
                    "field": {"type": "string", "description": "The path of the field."},
                    "description": {"type": "string", "description": "What is wrong with it."},
                },
            },
        },
        "metadata": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "The ErrorInfo metadata, including the error kind under 'code'.",
        },
    },
}


def _doc(full_name: str) -> str:
    """The .proto comment of an element, or its name when it has none."""
    return proto_comments.comments().get(full_name) or f"Protobuf {full_name}."


class _SchemaBuilder:
    def __init__(self) -> None:
        self.schemas: dict[str, dict[str, Any]] = {}

    def message(self, desc: descriptor.Descriptor) -> dict[str, Any]:
        if desc.full_name in _WELL_KNOWN:
            return dict(_WELL_KNOWN[desc.full_name])
        if desc.full_name not in self.schemas:
            self.schemas[desc.full_name] = {}  # placeholder against recursion
            self.schemas[desc.full_name] = self.object_schema(desc, ())
        return {"$ref": REF + desc.full_name}

    def object_schema(self, desc: descriptor.Descriptor, skip: Sequence[str]) -> dict[str, Any]:
        props = {f.json_name: self.field(f) for f in desc.fields if f.name not in skip}
        schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
        oneofs = [o for o in desc.oneofs if not o.name.startswith("_")]
        if oneofs:
            parts = [f"{o.name}: at most one of " + ", ".join(f.json_name for f in o.fields) for o in oneofs]
            schema["description"] = _doc(desc.full_name) + " Oneofs: " + "; ".join(parts) + "."
        else:
            schema["description"] = _doc(desc.full_name)
        return schema

    def enum(self, desc: descriptor.EnumDescriptor) -> dict[str, Any]:
        if desc.full_name not in self.schemas:
            self.schemas[desc.full_name] = {
                "type": "string",
                "enum": [v.name for v in desc.values],
                "description": _doc(desc.full_name)
                + " Values: "
                + "; ".join(f"{v.name}: {_doc(f'{desc.full_name}.{v.name}')}" for v in desc.values),
            }
        return {"$ref": REF + desc.full_name}

    def single(self, f: descriptor.FieldDescriptor) -> dict[str, Any]:
        if f.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
            assert f.message_type is not None
            return self.message(f.message_type)
        if f.type == FD.TYPE_ENUM:
            assert f.enum_type is not None
            return self.enum(f.enum_type)
        return dict(_SCALARS[f.type])

    def field(self, f: descriptor.FieldDescriptor) -> dict[str, Any]:
        schema: dict[str, Any]
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            value = f.message_type.fields_by_name["value"]
            schema = {"type": "object", "additionalProperties": self.single(value)}
        elif f.is_repeated:
            schema = {"type": "array", "items": self.single(f)}
        else:
            schema = self.single(f)
        comment = proto_comments.comments().get(f.full_name)
        if comment:
            schema["description"] = comment
        return schema


def _error_responses(statuses: Sequence[int]) -> dict[str, Any]:
    return {
        str(s): {
            "description": HTTPStatus(s).phrase,
            "content": {PROBLEM_JSON: {"schema": {"$ref": REF + "Problem"}}},
        }
        for s in statuses
    }


def _binary(full_name: str) -> dict[str, Any]:
    return {"schema": {"type": "string", "format": "binary", "description": f"Binary protobuf {full_name}."}}


def _operation(rpc: Rpc, builder: _SchemaBuilder) -> dict[str, Any]:
    out_desc = rpc.method.output_type
    in_desc = rpc.method.input_type
    op: dict[str, Any] = {
        "operationId": rpc.name,
        "summary": rpc.name,
        "tags": [rpc.service.name],
        "description": f"{_doc(rpc.method.full_name)} (gRPC {rpc.service.full_name}/{rpc.name}.)",
    }
    params = []
    for name in rpc.path_params:
        f = in_desc.fields_by_name[name]
        params.append({"name": name, "in": "path", "required": True, "schema": builder.single(f)})
    for name in rpc.query_params:
        f = in_desc.fields_by_name[name]
        query = {"name": f.json_name, "in": "query", "required": False, "schema": builder.single(f)}
        comment = proto_comments.comments().get(f.full_name)
        if comment:
            query["description"] = comment
        params.append(query)
    if rpc.name == "CreateSession":
        op["security"] = [{}, {API_KEY: []}]
    elif rpc.service is SESSION_SERVICE:
        op["security"] = [{}, {SEAT_TOKEN: []}]
    else:
        op["security"] = [{}, {API_KEY: []}]
    if rpc.name in IF_MATCH_RPCS:
        params.append(IF_MATCH_PARAMETER)
    if params:
        op["parameters"] = params
    if rpc.body == "*":
        op["requestBody"] = {
            "required": True,
            "content": {
                JSON: {"schema": builder.object_schema(in_desc, rpc.path_params)},
                **{t: _binary(in_desc.full_name) for t in PROTOBUF_TYPES},
            },
        }
    statuses = [400, 404, 409, 413, 415, 500] if rpc.body else [400, 404, 500]
    if rpc.service is SESSION_SERVICE:
        statuses = sorted({*statuses, 403, 409, 503})
    if rpc.name == "CreateSession" or rpc.service is SERVICE:
        statuses = sorted({*statuses, 401})
    if rpc.name == "CreateSession":
        statuses = sorted({*statuses, 429})
    ok: dict[str, Any] = {
        JSON: {"schema": builder.message(out_desc)},
        **{t: _binary(out_desc.full_name) for t in PROTOBUF_TYPES},
    }
    if rpc.streaming:
        ok = {
            EVENT_STREAM: {
                "schema": {
                    "type": "string",
                    "description": "Server-Sent Events: each 'message' event's data is the proto3 JSON of "
                    f"one {out_desc.full_name} (see components.schemas); an 'error' event carries "
                    "a problem summary before the stream ends.",
                },
                "x-sse-data": builder.message(out_desc),
            }
        }
    ok_response: dict[str, Any] = {"description": "OK", "content": ok}
    if rpc.service is SESSION_SERVICE and etag_getter(rpc) is not None:
        ok_response["headers"] = {"ETag": ETAG_HEADER}
    op["responses"] = {"200": ok_response, **_error_responses(statuses)}
    if 401 in statuses:
        op["responses"]["401"]["description"] = (
            "An API key is needed (X-Api-Key) and was missing or not valid: reason API_KEY_REQUIRED or "
            "API_KEY_INVALID. "
            + (
                "Only when the service is configured with API keys."
                if rpc.name == "CreateSession"
                else "Only when the service runs with --api-keys-for-rules."
            )
        )
    if 429 in statuses:
        op["responses"]["429"]["description"] = (
            "A quota: this client's rate of new sessions (reason SESSION_CREATE_RATE_LIMITED) or the "
            "service's cap on live sessions (SESSION_LIMIT_REACHED). Retry-After says when to try again."
        )
        op["responses"]["429"]["headers"] = {
            "Retry-After": {
                "description": "Seconds to wait before trying again.",
                "schema": {"type": "integer", "minimum": 1},
            }
        }
    if rpc.name in IF_MATCH_RPCS:
        failed = _error_responses([412])["412"]
        failed["description"] = (
            "If-Match names no entity tag that is the session's current version (reason "
            "SESSION_ETAG_MISMATCH; the current etag is in the problem's metadata and the ETag header)."
        )
        op["responses"]["412"] = {**failed, "headers": {"ETag": ETAG_HEADER}}
    return op


ETAG_HEADER: dict[str, Any] = {
    "description": 'The session\'s version as a strong entity tag: its etag quoted, e.g. "7" for '
    "etag 7. Send it back in If-Match on SessionApplyMove or UndoMove.",
    "schema": {"type": "string", "pattern": '^"[0-9]+"$'},
}
IF_MATCH_PARAMETER: dict[str, Any] = {
    "name": "If-Match",
    "in": "header",
    "required": False,
    "description": 'The version the write is made on, as the ETag header sent it ("7"), instead of '
    "or as well as the body's etag (then the body's etag must be one of the entity tags). Several "
    "tags: the write is made on whichever is current; weak tags (W/) never match; * adds nothing "
    "(the body's etag is still needed). A version If-Match does not name answers 412, not 409.",
    "schema": {"type": "string"},
}


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


@functools.cache
def _openapi() -> dict[str, Any]:
    builder = _SchemaBuilder()
    paths: dict[str, dict[str, Any]] = {}
    for rpc in (*RPCS, *SESSION_RPCS):
        paths.setdefault(rpc.template, {})[rpc.http_method.lower()] = _operation(rpc, builder)
    paths["/healthz"] = {
        "get": {
            "operationId": "Healthz",
            "summary": "Liveness and readiness",
            "tags": ["Health"],
            "responses": {
                "200": {
                    "description": "The service is serving.",
                    "content": {
                        JSON: {
                            "schema": {
                                "type": "object",
                                "required": ["status"],
                                "properties": {"status": {"type": "string", "enum": ["SERVING"]}},
                            }
                        }
                    },
                }
            },
        }
    }
    paths["/healthz/details"] = {
        "get": {
            "operationId": "HealthDetails",
            "summary": "Health details for operators",
            "description": "The session store: whether it answers, its live sessions against the cap "
            "(maxSessions, 0: none), the quotas on creating sessions, how long request ids are "
            "remembered, and what an acknowledged move survives (read from the store's own settings).",
            "tags": ["Health"],
            "responses": {
                "200": {
                    "description": "The service is serving; 'sessions' is there when it serves them.",
                    "content": {
                        JSON: {
                            "schema": {
                                "type": "object",
                                "required": ["status"],
                                "properties": {
                                    "status": {"type": "string", "enum": ["SERVING"]},
                                    "sessions": {"type": "object", "additionalProperties": True},
                                },
                            }
                        }
                    },
                }
            },
        }
    }
    schemas = dict(builder.schemas)
    schemas["Problem"] = PROBLEM_SCHEMA
    doc = {
        "openapi": "3.1.0",
        "info": {
            "title": "Lawspeaker",
            "version": API_VERSION,
            "description": (
                "Rules as a service for Viking-era board games. Stateless: every request carries the "
                "game state. Bodies are the proto3 JSON mapping of the request messages of "
                f"{SERVICE.full_name}, or binary protobuf with Content-Type application/x-protobuf. "
                f"Server-held game sessions ({SESSION_SERVICE.full_name}, under /v1/sessions) keep the "
                "state and its RNG on the server; a seat acts with its token in the Authorization header. "
                "A method a path does not list answers 405 with an Allow header naming the methods it "
                "does; OPTIONS on any path answers 204 with that Allow."
            ),
        },
        "tags": [{"name": SERVICE.name}, {"name": SESSION_SERVICE.name}, {"name": "Health"}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                API_KEY: {
                    "type": "apiKey",
                    "in": "header",
                    "name": "X-Api-Key",
                    "description": "An API key, needed to create sessions when the service is configured "
                    "with keys (and for the stateless RPCs with --api-keys-for-rules).",
                },
                SEAT_TOKEN: {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The secret token of one seat, as CreateSession returned it. Without "
                    "it a session is seen as a spectator sees it.",
                },
            },
        },
    }
    result: dict[str, Any] = _sorted(doc)
    return result


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the REST API, built from the protobuf descriptors."""
    copy: dict[str, Any] = msgspec.json.decode(openapi_bytes())
    return copy


@functools.cache
def openapi_bytes() -> bytes:
    return msgspec.json.encode(_openapi())
