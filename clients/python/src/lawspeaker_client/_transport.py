"""The two transports behind :class:`~lawspeaker_client.Client`: gRPC (the generated stubs) and
REST (httpx, routes read from the contract's ``google.api.http`` annotations)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Protocol, TypeVar
from urllib.parse import quote

import grpc
import httpx
from google.api import annotations_pb2
from google.protobuf import descriptor, json_format
from google.protobuf.message import Message

from . import errors
from .v1 import rules_service_pb2, rules_service_pb2_grpc, session_service_pb2, session_service_pb2_grpc

M = TypeVar("M", bound=Message)

SERVICES: dict[str, descriptor.ServiceDescriptor] = {
    "RulesService": rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"],
    "SessionService": session_service_pb2.DESCRIPTOR.services_by_name["SessionService"],
}


def _metadata(token: str | None, extra: tuple[tuple[str, str], ...] = ()) -> tuple[tuple[str, str], ...]:
    return ((("authorization", f"Bearer {token}"),) if token else ()) + extra


class Transport(Protocol):
    """Calls one RPC of the contract: ``service`` is ``RulesService`` or ``SessionService``."""

    name: str

    def unary(
        self, service: str, method: str, request: Message, response_type: type[M], token: str | None
    ) -> M:
        """The response of a unary RPC."""
        ...

    def stream(
        self, service: str, method: str, request: Message, response_type: type[M], token: str | None
    ) -> Iterator[M]:
        """The responses of a server-streaming RPC, until the server ends it or the iterator is closed."""
        ...

    def close(self) -> None:
        """Releases the connection (unless it was passed in)."""
        ...


class GrpcTransport:
    """gRPC through the generated stubs; the seat token travels as ``authorization`` metadata."""

    name = "grpc"

    def __init__(
        self, channel: grpc.Channel, timeout: float | None, owned: bool, api_key: str | None = None
    ) -> None:
        self.channel = channel
        self._extra: tuple[tuple[str, str], ...] = (("x-api-key", api_key),) if api_key else ()
        self.timeout = timeout
        self._owned = owned
        stubs: dict[str, Any] = {  # the generated stub classes are untyped
            "RulesService": rules_service_pb2_grpc.RulesServiceStub,
            "SessionService": session_service_pb2_grpc.SessionServiceStub,
        }
        self._stubs: dict[str, Any] = {name: make(channel) for name, make in stubs.items()}

    def unary(
        self, service: str, method: str, request: Message, response_type: type[M], token: str | None
    ) -> M:
        call = getattr(self._stubs[service], method)
        try:
            response = call(request, timeout=self.timeout, metadata=_metadata(token, self._extra))
        except grpc.RpcError as err:
            raise errors.from_grpc(err) from None
        if not isinstance(response, response_type):  # pragma: no cover - the stubs are generated
            raise TypeError(f"{method} returned {type(response).__name__}")
        return response

    def stream(
        self, service: str, method: str, request: Message, response_type: type[M], token: str | None
    ) -> Iterator[M]:
        call = getattr(self._stubs[service], method)(request, metadata=_metadata(token, self._extra))
        try:
            yield from call
        except grpc.RpcError as err:
            if call.code() != grpc.StatusCode.CANCELLED:
                raise errors.from_grpc(err) from None
        finally:
            call.cancel()

    def close(self) -> None:
        if self._owned:
            self.channel.close()


class _Route:
    def __init__(self, method: descriptor.MethodDescriptor) -> None:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        kind = rule.WhichOneof("pattern")
        self.http_method = str(kind).upper()
        self.template: str = getattr(rule, str(kind))
        self.body = str(rule.body)
        self.path_params = [p.split("}")[0] for p in self.template.split("{")[1:]]


class RestTransport:
    """REST/JSON through httpx: proto3 JSON bodies, problem+json errors, Server-Sent Events for
    streams; the seat token travels in the ``Authorization`` header."""

    name = "rest"

    def __init__(self, http: httpx.Client, owned: bool, api_key: str | None = None) -> None:
        self.http = http
        self._owned = owned
        self._api_key = api_key
        self._routes: dict[tuple[str, str], _Route] = {
            (name, m.name): _Route(m) for name, svc in SERVICES.items() for m in svc.methods
        }

    def _request(self, service: str, method: str, request: Message, token: str | None) -> httpx.Request:
        route = self._routes[(service, method)]
        data: dict[str, Any] = json_format.MessageToDict(request)
        path = route.template
        for param in route.path_params:
            value = str(getattr(request, param))
            path = path.replace("{" + param + "}", quote(value, safe=""))
            data.pop(request.DESCRIPTOR.fields_by_name[param].json_name, None)
        headers = {"accept": "application/json"}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        if token:
            headers["authorization"] = f"Bearer {token}"
        if route.body == "*":
            return self.http.build_request(route.http_method, path, json=data, headers=headers)
        params = {k: v if isinstance(v, str) else json.dumps(v) for k, v in data.items()}
        return self.http.build_request(route.http_method, path, params=params, headers=headers)

    def unary(
        self, service: str, method: str, request: Message, response_type: type[M], token: str | None
    ) -> M:
        try:
            response = self.http.send(self._request(service, method, request, token))
        except httpx.HTTPError as err:
            raise errors.from_transport(err) from None
        if response.status_code >= 400:
            raise errors.from_response(response)
        if response.status_code == 304 and isinstance(request, session_service_pb2.GetSessionRequest):
            # a long poll that ended with no change: the session as it is, as gRPC answers it
            again = type(request)()
            again.CopyFrom(request)
            again.ClearField("wait_for_change")
            return self.unary(service, method, again, response_type, token)
        return _parse(response.content, response_type)

    def stream(
        self, service: str, method: str, request: Message, response_type: type[M], token: str | None
    ) -> Iterator[M]:
        req = self._request(service, method, request, token)
        req.headers["accept"] = "text/event-stream"
        try:
            response = self.http.send(req, stream=True)
        except httpx.HTTPError as err:
            raise errors.from_transport(err) from None
        try:
            if response.status_code >= 400:
                response.read()
                raise errors.from_response(response)
            for event, data in _sse(response.iter_lines()):
                if event == "error":
                    raise _sse_error(data)
                if event == "message":
                    yield _parse(data.encode(), response_type)
        except httpx.HTTPError as err:
            raise errors.from_transport(err) from None
        finally:
            response.close()

    def close(self) -> None:
        if self._owned:
            self.http.close()


def _parse(content: bytes, response_type: type[M]) -> M:
    out = response_type()
    json_format.Parse(content, out, ignore_unknown_fields=True)  # newer servers may add fields
    return out


def _sse(lines: Iterator[str]) -> Iterator[tuple[str, str]]:
    """(event, data) of each Server-Sent Event (comments and ids skipped)."""
    event, data = "message", list[str]()
    for line in lines:
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "message", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if data:
        yield event, "\n".join(data)


def _sse_error(data: str) -> errors.LawspeakerClientError:
    try:
        doc: Mapping[str, Any] = json.loads(data)
    except ValueError:
        doc = {}
    status = int(doc.get("status") or 500)
    return errors.LawspeakerClientError(
        str(doc.get("code") or errors.HTTP_CODES.get(status, "UNKNOWN")),
        str(doc.get("reason") or ""),
        str(doc.get("detail") or data),
        http_status=status,
    )
