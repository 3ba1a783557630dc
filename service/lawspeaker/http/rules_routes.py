"""The RulesService routes: ``GET /v1/games``, ``GET /v1/games/{game}`` and the ``:verb`` POSTs,
with canonical JSON bodies answered over ``lawspeaker.wire.structs`` messages (the hot path)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from google.protobuf.message import Message
from litestar import Request, Response, get, post
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath

from lawspeaker.api import links
from lawspeaker.api.rules import RulesApi
from lawspeaker.games.core import ErrorCode, FieldViolation, LawspeakerError
from lawspeaker.http.bodies import (
    accepts_protobuf,
    decode_request,
    encode_answer,
    read_body,
    wants_protobuf,
    wire_decode,
)
from lawspeaker.http.compression import STATIC_OPT
from lawspeaker.http.media import JSON, PROTOBUF_TYPES, first_header
from lawspeaker.http.problems import Problem
from lawspeaker.http.routes import COLLECTION, GET_RPCS, RESOURCE, RESOURCE_ROUTE, VERB_RPCS, Rpc
from lawspeaker.observe import calls
from lawspeaker.wire import fieldpaths, protojson, structs

log = logging.getLogger(__name__)

SERVICE_NAME = "RulesService"


def answer_post(
    rules: RulesApi,
    fast: RulesApi | None,
    rpc: Rpc,
    game_id: str,
    body: bytes,
    content_type: str,
    accept: str,
) -> tuple[bytes, str]:
    """The response body and media type of a RulesService POST RPC on ``game_id``, or the
    LawspeakerError / Problem refusing it.

    A canonical proto3 JSON body that asks for a JSON answer goes through ``fast`` (a RulesApi over
    ``lawspeaker.wire.structs`` messages); anything else, or everything when ``fast`` is None, through
    ``rules`` over protobuf. Both give the same answer (``tests/wire/test_structs.py``).
    """
    if fast is not None and not accepts_protobuf(accept, False):
        wired = wire_decode(rpc, body, content_type)
        if wired is not None:
            check_game(wired.game, game_id)
            answer = wire_answer(fast, rpc, msgspec.structs.replace(wired, game=game_id))
            if answer is not None:
                return answer, JSON
    msg, was_protobuf = _request_of(rpc, game_id, body, content_type)
    return _answer_of(call_rpc(rules, rpc, msg), accept, was_protobuf)


def _request_of(rpc: Rpc, game_id: str, body: bytes, content_type: str) -> tuple[Any, bool]:
    """The request message of a POST body (and whether it came as protobuf), its game the path's."""
    msg, was_protobuf = decode_request(rpc.request_type, body, content_type, strict=True)
    check_game(getattr(msg, "game"), game_id)  # noqa: B009
    setattr(msg, "game", game_id)  # noqa: B010
    return msg, was_protobuf


def _answer_of(response: Message, accept: str, was_protobuf: bool) -> tuple[bytes, str]:
    """A protobuf response's body and media type, as the request's Accept (or its own codec) asks."""
    if accepts_protobuf(accept, was_protobuf):
        return response.SerializeToString(), PROTOBUF_TYPES[0]
    return msgspec.json.encode(fieldpaths.json_answer(protojson.to_dict(response))), JSON


THINKING_RPCS = frozenset({"SuggestMove"})
"""The RulesService RPCs that are awaited (the bots think in another process): ``answer_thinking``."""

WIRE_RPCS = frozenset(r.name for r in VERB_RPCS.values()) - THINKING_RPCS
"""The RulesService RPCs served over ``lawspeaker.wire.structs`` messages for JSON: the POST ones but
SuggestMove (the GET ones are cheap, DescribeGame's answer holds a google.protobuf.Struct, and a
suggestion's time is the bot's thinking)."""


async def answer_thinking(
    rules: RulesApi, rpc: Rpc, game_id: str, body: bytes, content_type: str, accept: str
) -> tuple[bytes, str]:
    """``answer_post`` for an RPC of ``THINKING_RPCS``, over protobuf, awaited."""
    msg, was_protobuf = _request_of(rpc, game_id, body, content_type)
    return _answer_of(await call_thinking(rules, rpc, msg), accept, was_protobuf)


async def call_thinking(api: RulesApi, rpc: Rpc, msg: Any) -> Any:
    """The answer of an RPC of ``THINKING_RPCS`` (a rules span of its own when tracing is on)."""
    method: Callable[[Message], Awaitable[Message]] = getattr(api, rpc.api_method)
    with calls.rules_span(rpc.name):
        return await method(msg)


def wire_answer(fast: RulesApi, rpc: Rpc, wired: Any) -> bytes | None:
    """The JSON answer of ``rpc`` to a wire request, or None when the request turns out not to be
    canonical (two members of a oneof): the API is pure, so the caller starts over on the general
    path. Errors are raised as on that path."""
    with contextlib.suppress(structs.NotCanonical):
        return structs.encode(call_rpc(fast, rpc, wired))
    return None


def check_game(body_game: str, game_id: str) -> None:
    if body_game and body_game != game_id:
        raise LawspeakerError(
            ErrorCode.MALFORMED,
            "GAME_MISMATCH",
            f"The body names game {body_game!r} but the path names {game_id!r}.",
            (FieldViolation("game", f"must be {game_id!r}, as in the path, or unset"),),
        )


def call_rpc(api: RulesApi, rpc: Rpc, msg: Any) -> Any:
    """The rules' answer to ``rpc`` (a span of its own when tracing is on)."""
    method: Callable[[Message], Message] = getattr(api, rpc.api_method)
    with calls.rules_span(rpc.name):
        return method(msg)


def rules_handlers(rules: RulesApi, fast: RulesApi | None) -> list[HTTPRouteHandler]:
    """The RulesService routes. ``fast``, the same rules over ``lawspeaker.wire.structs`` messages, answers
    canonical JSON bodies of the POST RPCs (``answer_post``)."""

    @get(COLLECTION)
    async def list_games(request: Request[Any, Any, Any]) -> Response[bytes]:
        rpc = GET_RPCS[COLLECTION]
        calls.note_rpc(rpc.service.name, rpc.name)
        return encode_answer(call_rpc(rules, rpc, rpc.request_type()), wants_protobuf(request, False))

    # fixed per game and base (its reasons link their rules, ``lawspeaker.api.links``): encoded once
    described: dict[tuple[str, bool, str], Response[bytes]] = {}

    @get(RESOURCE_ROUTE, opt=STATIC_OPT)  # a game's description is fixed: compressed once
    async def describe_game(request: Request[Any, Any, Any], game: FromPath[str]) -> Response[bytes]:
        protobuf = wants_protobuf(request, False)
        key = (game, protobuf, links.base())
        found = described.get(key)
        calls.note_rpc(SERVICE_NAME, "DescribeGame")
        if found is not None:
            calls.note_game(game)  # only known games are kept
            return Response(found.content, media_type=found.media_type)
        if ":" in game:  # "valhalla:new" is a POST route (or, with an unknown verb, none)
            raise Problem(405, "METHOD_NOT_ALLOWED", f"Method GET is not allowed for {request.url.path}.")
        rpc = GET_RPCS[RESOURCE]
        msg = rpc.request_type()
        setattr(msg, "game", game)  # noqa: B010 - the field named by the path template
        answer = encode_answer(call_rpc(rules, rpc, msg), protobuf)
        if len(described) >= 64:  # a Host header chooses the base: keep a few
            described.pop(next(iter(described)))
        described[key] = answer  # only known games get here: an unknown one raised
        return Response(answer.content, media_type=answer.media_type)

    @post(RESOURCE_ROUTE, status_code=200)
    async def custom_method(request: Request[Any, Any, Any], game: FromPath[str]) -> Response[bytes]:
        game_id, sep, verb = game.rpartition(":")
        if not sep:
            raise Problem(405, "METHOD_NOT_ALLOWED", f"Method POST is not allowed for {request.url.path}.")
        rpc = VERB_RPCS.get(verb)
        if rpc is None:
            known = ", ".join(f":{v}" for v in sorted(VERB_RPCS))
            raise Problem(
                404, "ROUTE_NOT_FOUND", f"Unknown method ':{verb}' on {RESOURCE}; known methods: {known}."
            )
        calls.note_rpc(SERVICE_NAME, rpc.name)
        body = await read_body(request)
        content_type, accept = first_header(request, b"content-type"), first_header(request, b"accept")
        if rpc.name in THINKING_RPCS:
            content, media_type = await answer_thinking(rules, rpc, game_id, body, content_type, accept)
        else:
            content, media_type = answer_post(rules, fast, rpc, game_id, body, content_type, accept)
        return Response(content, media_type=media_type)

    return [list_games, describe_game, custom_method]
