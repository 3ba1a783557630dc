"""The gRPC transport: RulesService (and SessionService) on a ``grpc.aio`` server, with health
checking and reflection (v1 and v1alpha, ``lawspeaker.grpc.reflection``).

The servicers are thin: they call :class:`~lawspeaker.api.rules.RulesApi` or
:class:`~lawspeaker.sessions.service.SessionApi` and map a
:class:`~lawspeaker.games.core.LawspeakerError` to a rich status (``lawspeaker.api.errors``) once.

Their methods are registered without a request deserializer: each handler reads its request from
the bytes grpc received (``_parser``: the same ``FromString`` grpc's deserializer ran), so bytes
that are not the request fail INVALID_ARGUMENT with the MALFORMED_PROTOBUF reason REST gives,
where grpc would end the call UNKNOWN, naming the exception's Python class, and log a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, NoReturn, cast

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_status import rpc_status

from lawspeaker.api import errors
from lawspeaker.api.access import CALLER, RATE_LIMIT, Access, RateLimitNote
from lawspeaker.api.rules import RulesApi
from lawspeaker.games.core import LawspeakerError
from lawspeaker.grpc.guard import RulesKeyInterceptor, grpc_caller
from lawspeaker.grpc.reflection import enable_reflection
from lawspeaker.observe import calls
from lawspeaker.sessions.service import SessionApi, bearer
from lawspeaker.v1 import rules_service_pb2, session_service_pb2
from lawspeaker.wire import inbound

log = logging.getLogger(__name__)

RULES_SERVICE: ServiceDescriptor = rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"]
SESSION_SERVICE: ServiceDescriptor = session_service_pb2.DESCRIPTOR.services_by_name["SessionService"]
SERVICE_NAME: str = RULES_SERVICE.full_name
SESSION_SERVICE_NAME: str = SESSION_SERVICE.full_name
MAX_MESSAGE_BYTES = 4 * 1024 * 1024

Handler = Callable[[bytes, grpc.aio.ServicerContext[Any, Any]], Awaitable[Message]]
StreamHandler = Callable[[bytes, grpc.aio.ServicerContext[Any, Any]], AsyncIterator[Message]]
Parse = Callable[[bytes], Message]


def _parser(service: ServiceDescriptor, method: str) -> Parse:
    """How ``method`` reads its request message from the bytes grpc received: a MALFORMED_PROTOBUF
    LawspeakerError, mapped like any other, for bytes that are not one. On the hot path this costs
    what grpc's deserializer did: the same ``FromString``, in a ``try``."""
    cls: type[Message] = GetMessageClass(service.methods_by_name[method].input_type)
    from_string = cls.FromString

    def parse(data: bytes) -> Message:
        try:
            return from_string(data)
        except DecodeError as err:
            raise inbound.malformed_protobuf(cls, err) from None

    return parse


async def _abort(
    context: grpc.aio.ServicerContext[Any, Any], status: Any, trailers: Sequence[tuple[str, str]] = ()
) -> NoReturn:
    # abort_with_status is missing from grpc-stubs' aio ServicerContext.
    grpc_status = rpc_status.to_status(status)
    if trailers:  # abort_with_status sends the status's trailers only: add the call's own
        grpc_status = cast(Any, grpc_status)._replace(
            trailing_metadata=(*grpc_status.trailing_metadata, *trailers)
        )
    await cast(Any, context).abort_with_status(grpc_status)
    raise AssertionError("abort_with_status returned")  # pragma: no cover


async def _fail(
    context: grpc.aio.ServicerContext[Any, Any],
    method: str,
    err: Exception,
    trailers: Sequence[tuple[str, str]] = (),
) -> NoReturn:
    """End the call with the error's rich status (and ``trailers``); an unexpected error is logged and
    becomes a bare INTERNAL with nothing leaked."""
    if isinstance(err, LawspeakerError):
        calls.note_refusal(errors.code_name(err), err.reason)
        await _abort(context, errors.to_rpc_status(err), trailers)
    log.error("unexpected error in %s", method, exc_info=err)
    calls.note_refusal("INTERNAL", "")
    await _abort(context, errors.internal_rpc_status())


def _open_call(service: str, method: str, context: grpc.aio.ServicerContext[Any, Any]) -> calls.Call:
    """The record of a gRPC call (``lawspeaker.observe.calls``); with the access log on it carries the
    caller's ``x-request-id`` and the trace id of its ``traceparent``."""
    call = calls.Call("grpc", service, method)
    if calls.logging_calls():
        request_id = traceparent = None
        for key, value in context.invocation_metadata() or ():
            if key == calls.REQUEST_ID_HEADER and request_id is None:
                request_id = value if isinstance(value, str) else value.decode("latin-1")
            elif key == "traceparent" and traceparent is None:
                traceparent = value if isinstance(value, str) else value.decode("latin-1")
        call.request_id = calls.request_id_of(request_id)
        call.trace_id = calls.trace_id_of(traceparent)
    tracing = calls.tracing()
    if tracing is not None:
        call.span = tracing.current_span()
    return call


def _ended(call: calls.Call, err: BaseException | None) -> None:
    """The code of a call ended by ``err`` (None: answered), unless a refusal noted it already."""
    if err is not None and not call.code:
        call.code = "CANCELLED" if isinstance(err, asyncio.CancelledError) else "INTERNAL"
    calls.finish(call)


def _observed(service: str, method: str, handle: Handler) -> Handler:
    """``handle`` with its call recorded (``lawspeaker.observe.calls``); ``handle`` itself when nothing
    observes calls."""
    if not calls.observing():
        return handle

    async def observed(data: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> Message:
        call = _open_call(service, method, context)
        token = calls.CURRENT.set(call)
        try:
            answer = await handle(data, context)
        except BaseException as err:
            _ended(call, err)
            raise
        finally:
            calls.CURRENT.reset(token)
        _ended(call, None)
        return answer

    observed.__name__ = method
    return observed


def _observed_stream(service: str, method: str, handle: StreamHandler) -> StreamHandler:
    if not calls.observing():
        return handle

    async def observed(data: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Message]:
        call = _open_call(service, method, context)
        call.streaming = True
        token = calls.CURRENT.set(call)
        try:
            async for item in handle(data, context):
                yield item
        except BaseException as err:
            _ended(call, err)
            raise
        finally:
            with contextlib.suppress(ValueError):  # closed from another context (at GC)
                calls.CURRENT.reset(token)
        _ended(call, None)

    observed.__name__ = method
    return observed


def _unary(method: str, call: Callable[[Any], Message] | Callable[[Any], Awaitable[Message]]) -> Handler:
    parse = _parser(RULES_SERVICE, method)
    thinks = asyncio.iscoroutinefunction(call)  # SuggestMove: awaited, the bots think elsewhere

    async def handle(data: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> Message:
        try:
            request = parse(data)
            with calls.rules_span(method):
                if thinks:
                    return await cast(Callable[[Any], Awaitable[Message]], call)(request)
                return cast(Callable[[Any], Message], call)(request)
        except Exception as err:  # every failure is mapped once, in _fail
            await _fail(context, method, err)

    handle.__name__ = method
    return _observed("RulesService", method, handle)


def _token(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    """The seat token of ``authorization: Bearer <token>`` metadata, None when absent."""
    for key, value in context.invocation_metadata() or ():
        if key.lower() == "authorization":
            return bearer(value if isinstance(value, str) else value.decode())
    return None


def _session_unary(method: str, call: Callable[[Any, str | None], Awaitable[Message]]) -> Handler:
    parse = _parser(SESSION_SERVICE, method)

    async def handle(data: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> Message:
        try:
            return await call(parse(data), _token(context))
        except Exception as err:  # every failure is mapped once, in _fail
            await _fail(context, method, err)

    handle.__name__ = method
    return _observed("SessionService", method, handle)


def _identified(
    method: str, call: Callable[[Any, str | None], Awaitable[Message]], access: Access
) -> Handler:
    """A session handler that knows its caller (``lawspeaker.api.access.CALLER``): CreateSession, whose
    quotas count per client and which needs an API key when keys are configured. The state of the
    quota it took from goes out as ``ratelimit-policy`` and ``ratelimit`` trailing metadata, on the
    answer and on a refusal alike (the values of the HTTP headers)."""
    parse = _parser(SESSION_SERVICE, method)

    async def handle(data: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> Message:
        note = RateLimitNote()
        try:
            caller, noting = CALLER.set(grpc_caller(access, context)), RATE_LIMIT.set(note)
            try:
                answer = await call(parse(data), _token(context))
            finally:
                RATE_LIMIT.reset(noting)
                CALLER.reset(caller)
            if note.value is not None:
                context.set_trailing_metadata(_rate_limit_trailers(note))
            return answer
        except Exception as err:  # every failure is mapped once, in _fail
            await _fail(context, method, err, _rate_limit_trailers(note))

    handle.__name__ = method
    return _observed("SessionService", method, handle)


def _rate_limit_trailers(note: RateLimitNote) -> tuple[tuple[str, str], ...]:
    if note.value is None:
        return ()
    return tuple((name.lower(), value) for name, value in note.value.headers().items())


def _session_stream(method: str, call: Callable[[Any, str | None], AsyncIterator[Message]]) -> StreamHandler:
    parse = _parser(SESSION_SERVICE, method)

    async def handle(data: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Message]:
        try:
            async for item in call(parse(data), _token(context)):
                yield item
        except Exception as err:  # every failure is mapped once, in _fail
            await _fail(context, method, err)

    handle.__name__ = method
    return _observed_stream("SessionService", method, handle)


class SessionServicer:
    """SessionService over a :class:`SessionApi`; the seat token comes from the metadata."""

    def __init__(self, api: SessionApi, access: Access | None = None) -> None:
        access = access if access is not None else api.limits.access
        self.CreateSession = _identified("CreateSession", api.create_session, access)
        self.GetSession = _session_unary("GetSession", api.get_session)
        self.ListSessionMoves = _session_unary("ListSessionMoves", api.list_session_moves)
        self.SessionLegalMoves = _session_unary("SessionLegalMoves", api.session_legal_moves)
        self.SessionValidateMove = _session_unary("SessionValidateMove", api.session_validate_move)
        self.SessionApplyMove = _session_unary("SessionApplyMove", api.session_apply_move)
        self.UndoMove = _session_unary("UndoMove", api.undo_move)
        self.DeleteSession = _session_unary("DeleteSession", api.delete_session)
        self.WatchSession = _session_stream("WatchSession", api.watch_session)
        self.CreateWatchTicket = _session_unary("CreateWatchTicket", api.create_watch_ticket)
        self.ResignSeat = _session_unary("ResignSeat", api.resign_seat)
        self.ListSessions = _identified("ListSessions", api.list_sessions, access)
        self.ClaimSeat = _identified("ClaimSeat", api.claim_seat, access)
        self.ManageSeat = _session_unary("ManageSeat", api.manage_seat)
        self.Rematch = _identified("Rematch", api.rematch, access)


class RulesServicer:
    """RulesService over a :class:`RulesApi`: one thin handler per RPC."""

    def __init__(self, api: RulesApi) -> None:
        self.ListGames = _unary("ListGames", api.list_games)
        self.DescribeGame = _unary("DescribeGame", api.describe_game)
        self.NewGame = _unary("NewGame", api.new_game)
        self.LegalMoves = _unary("LegalMoves", api.legal_moves)
        self.ValidateMove = _unary("ValidateMove", api.validate_move)
        self.ApplyMove = _unary("ApplyMove", api.apply_move)
        self.SuggestMove = _unary("SuggestMove", api.suggest_move)


def _add_servicer(server: grpc.aio.Server, service: ServiceDescriptor, servicer: object) -> None:
    """Serve ``service`` with the servicer's methods of the same names, as the generated
    ``add_*Servicer_to_server`` does but with no request deserializer: the handlers get the
    request's bytes and parse them themselves (``_parser``)."""
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for method in service.methods:
        make = (
            grpc.unary_stream_rpc_method_handler
            if method.server_streaming
            else grpc.unary_unary_rpc_method_handler
        )
        handlers[method.name] = make(
            getattr(servicer, method.name),
            request_deserializer=None,
            response_serializer=GetMessageClass(method.output_type).SerializeToString,
        )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service.full_name, handlers),))
    # grpc's faster lookup for methods known at start (what the generated code registers too).
    cast(Any, server).add_registered_method_handlers(service.full_name, handlers)


async def create_server(
    address: str,
    api: RulesApi | None = None,
    sessions: SessionApi | None = None,
    access: Access | None = None,
    credentials: grpc.ServerCredentials | None = None,
    reuse_port: bool = False,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),  # type: ignore[type-arg]
) -> tuple[grpc.aio.Server, int]:
    """A server bound to ``address`` (``host:port``; port 0 picks a free port) and its port.

    With ``sessions``, the server also serves SessionService. ``access`` (default: the sessions'
    ``limits.access``) says which calls need an API key (``lawspeaker.grpc.guard``). With ``credentials``
    (``lawspeaker.server.tls`` makes them) the port speaks only TLS (and with a client CA, only
    to clients that present a certificate).

    ``reuse_port``: a ``--workers`` worker, sharing the port with the other workers (``listen``).

    The server is not started yet: call ``await server.start()``.
    """
    if access is None:
        access = sessions.limits.access if sessions is not None else Access()
    server = grpc.aio.server(
        interceptors=[*interceptors, *([RulesKeyInterceptor(access)] if access.keys_for_rules else [])],
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            # a busy port fails the bind, not shared with its owner; only workers share theirs
            ("grpc.so_reuseport", 1 if reuse_port else 0),
        ],
    )
    _add_servicer(server, RULES_SERVICE, RulesServicer(api if api is not None else RulesApi()))
    names = [SERVICE_NAME]
    if sessions is not None:
        _add_servicer(server, SESSION_SERVICE, SessionServicer(sessions, access))
        names.append(SESSION_SERVICE_NAME)
    health = HealthServicer()
    for name in ("", *names):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    enable_reflection((*names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name), server)
    try:
        if credentials is None:
            port = server.add_insecure_port(address)
        else:
            port = server.add_secure_port(address, credentials)
    except RuntimeError as err:  # grpc's "Failed to bind to address ..."
        raise OSError(f"cannot bind gRPC server to {address}: {err}") from None
    if port == 0:
        raise OSError(f"cannot bind gRPC server to {address}")
    return server, port
