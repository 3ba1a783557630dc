"""Media types and request headers, as every module of the HTTP edge reads them (from the raw ASGI
header list: Litestar's parsed headers cost more per call on the hot RPCs)."""

from __future__ import annotations

from typing import Any

from litestar import Request

JSON = "application/json"
PROBLEM_JSON = "application/problem+json"
PROTOBUF_TYPES = ("application/x-protobuf", "application/protobuf")


def bare_media_type(header: str) -> str:
    """A Content-Type or Accept entry without its parameters, in lower case."""
    return header.split(";", 1)[0].strip().lower()


def is_json(media: str) -> bool:
    return media == JSON or (media.startswith("application/") and media.endswith("+json"))


def first_header(request: Request[Any, Any, Any], name: bytes) -> str:
    """One request header (the first), from the raw ASGI list: ``name`` in lower case."""
    for key, value in request.scope["headers"]:
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


def header_values(request: Request[Any, Any, Any], name: bytes) -> str:
    """Every line of a request header, joined as one list (RFC 9110 section 5.3)."""
    return ", ".join(bytes(v).decode("latin-1") for k, v in request.scope["headers"] if k.lower() == name)
