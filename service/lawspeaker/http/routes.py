"""The contract's HTTP routes: each RPC and its ``google.api.http`` binding, read from the
descriptors, and the session etag each response carries."""

from __future__ import annotations

import logging
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.api import annotations_pb2
from google.protobuf import descriptor
from google.protobuf.message import Message
from litestar import Response

from lawspeaker.v1 import rules_service_pb2, session_service_pb2

log = logging.getLogger(__name__)


API_VERSION = "v1"

SERVICE: descriptor.ServiceDescriptor = rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"]
SESSION_SERVICE: descriptor.ServiceDescriptor = session_service_pb2.DESCRIPTOR.services_by_name[
    "SessionService"
]
EVENT_STREAM = "text/event-stream"
SSE_KEEPALIVE_SECONDS = 15.0


# --------------------------------------------------------------------------- the contract's routes


@dataclass(frozen=True, slots=True)
class Rpc:
    """One RPC and its HTTP binding, read from the ``google.api.http`` option."""

    method: descriptor.MethodDescriptor
    http_method: str  # "GET", "POST" or "DELETE"
    template: str  # e.g. "/v1/games/{game}:new"
    body: str  # "" or "*"
    path_params: tuple[str, ...]
    verb: str  # the ":verb" suffix, or ""
    module: Any  # the generated _pb2 module holding the messages
    api_method: str  # the name of the API method serving it, e.g. "apply_move"
    input_name: str  # the request message's name, e.g. "ApplyMoveRequest"

    @property
    def service(self) -> descriptor.ServiceDescriptor:
        return self.method.containing_service

    @property
    def streaming(self) -> bool:
        return bool(self.method.server_streaming)

    @property
    def query_params(self) -> tuple[str, ...]:
        """The request fields a body-less RPC takes from the query string."""
        if self.body:
            return ()
        return tuple(f.name for f in self.method.input_type.fields if f.name not in self.path_params)

    @property
    def name(self) -> str:
        return str(self.method.name)

    @property
    def request_type(self) -> type[Message]:
        cls: type[Message] = getattr(self.module, self.method.input_type.name)
        return cls


def _rpcs(service: descriptor.ServiceDescriptor, module: Any) -> tuple[Rpc, ...]:
    out = []
    for method in service.methods:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        kind = rule.WhichOneof("pattern")
        if kind not in ("get", "post", "delete"):
            raise ValueError(f"{method.name}: unsupported http pattern {kind!r}")
        template: str = getattr(rule, kind)
        last = template.rsplit("/", 1)[-1]
        verb = last.rsplit(":", 1)[1] if ":" in last else ""
        params = tuple(re.findall(r"{(\w+)}", template))
        api_method = re.sub(r"(?<!^)(?=[A-Z])", "_", method.name).lower()
        out.append(
            Rpc(
                method,
                kind.upper(),
                template,
                rule.body,
                params,
                verb,
                module,
                api_method,
                method.input_type.name,
            )
        )
    return tuple(out)


RPCS = _rpcs(SERVICE, rules_service_pb2)
SESSION_RPCS = _rpcs(SESSION_SERVICE, session_service_pb2)
COLLECTION = "/v1/games"
RESOURCE = "/v1/games/{game}"
RESOURCE_ROUTE = "/v1/games/{game:str}"  # Litestar syntax; POST gets "valhalla:new" whole
GET_RPCS = {r.template: r for r in RPCS if r.http_method == "GET"}
VERB_RPCS = {r.verb: r for r in RPCS if r.http_method == "POST"}
for _rpc in RPCS:  # the routes below are written for exactly these shapes
    if _rpc.http_method == "GET" and _rpc.template not in (COLLECTION, RESOURCE):
        raise ValueError(f"{_rpc.name}: unexpected GET route {_rpc.template}")
    if _rpc.http_method == "POST" and _rpc.template != f"{RESOURCE}:{_rpc.verb}":
        raise ValueError(f"{_rpc.name}: unexpected POST route {_rpc.template}")


# --------------------------------------------------------------------------- generic bindings


def route_path(template: str) -> str:
    """The Litestar path of a template: the ``:verb`` is left to the handler, ``{x}`` is ``{x:str}``."""
    last = template.rsplit("/", 1)[-1]
    if ":" in last:
        template = template[: template.rindex(":")]
    return re.sub(r"{(\w+)}", r"{\1:str}", template)


IF_MATCH_RPCS = frozenset({"SessionApplyMove", "UndoMove"})
"""The RPCs whose ``If-Match`` header is a precondition on the version they write (the body's
``etag`` works as before; README "Game sessions" gives the rules)."""
GET_SESSION = next(r for r in SESSION_RPCS if r.name == "GetSession")
EtagOf = Callable[[Any], str]


def etag_getter(rpc: Rpc) -> EtagOf | None:
    """How to read the session etag a response of ``rpc`` carries; None when it carries none."""
    fields = rpc.method.output_type.fields_by_name
    session = fields.get("session")
    if session is not None and "etag" in getattr(session.message_type, "fields_by_name", ()):
        return operator.attrgetter("session.etag")
    return operator.attrgetter("etag") if "etag" in fields else None


def with_etag(response: Response[Any], etag_of: EtagOf | None, answer: Any) -> Response[Any]:
    """``response`` with the ``ETag`` header of the session version ``answer`` carries, if any."""
    if etag_of is not None:
        etag = etag_of(answer)
        if etag:
            response.headers["ETag"] = f'"{etag}"'
    return response
