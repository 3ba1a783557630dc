"""OpenTelemetry traces: the optional ``lawspeaker[otel]`` extra, switched on by the standard
``OTEL_*`` environment variables.

:func:`from_environment` gives a :class:`Tracing` only when the environment asks for traces (an
exporter named in ``OTEL_TRACES_EXPORTER``, or an OTLP endpoint) and the SDK is installed; otherwise
None, and nothing of OpenTelemetry is imported: this module imports it only inside functions, and
the hooks in the layers cost a ``calls.tracing() is None`` check.

With a Tracing, ``lawspeaker serve`` wraps the ASGI app in the ASGI instrumentation's middleware
(REST and Connect) and gives the gRPC server the gRPC instrumentation's interceptor: each call is a
server span continuing the caller's W3C ``traceparent`` (the SDK's propagators, ``OTEL_PROPAGATORS``).
Under it, the rules call (:meth:`Tracing.rules`) and each Redis round trip (:meth:`Tracing.redis`)
are child spans carrying the game and the RPC; when the call ends, :meth:`Tracing.finished` (from
``calls.finish``) names the server span after the RPC and sets its outcome.

Span names stay bounded like metric labels: an RPC's name or route template, never a session id.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from lawspeaker.games.core import LawspeakerError
from lawspeaker.observe import calls

if TYPE_CHECKING:
    import grpc
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Span
    from opentelemetry.util.types import AttributeValue

log = logging.getLogger(__name__)

PACKAGE = "lawspeaker.v1."  # the proto package: rpc.service is the full service name, as gRPC's
DEFAULT_SERVICE_NAME = "lawspeaker"
# Probes and scrapes, every few seconds, are not traced unless OTEL_PYTHON_(ASGI_)EXCLUDED_URLS says
# otherwise (the instrumentation matches these regular expressions against the URL without query).
DEFAULT_EXCLUDED_URLS = r"^[a-z]+://[^/]+/(healthz(/details)?|metrics)$"
DEFAULT_EXCLUDED_SERVICES = "grpc.health.v1.Health"  # its probes, likewise

_SYSTEMS = {"grpc": "grpc", "connect": "connect_rpc", "rest": "http"}  # rpc.system per transport
# The codes a server is at fault for: the span's status is ERROR (the gRPC semantic conventions);
# a refusal of the client's request (INVALID_ARGUMENT, NOT_FOUND, ...) leaves it unset.
_SERVER_FAULTS = frozenset(
    {"UNKNOWN", "DEADLINE_EXCEEDED", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS"}
)
_OTLP_BY_PROTOCOL = {"http/protobuf": "otlp_proto_http", "grpc": "otlp_proto_grpc"}


def _true(value: str | None) -> bool:
    return (value or "").strip().lower() == "true"


def requested() -> list[str]:
    """The trace exporters the environment asks for ([] for none), read as the SDK reads them:
    ``OTEL_TRACES_EXPORTER`` (comma-separated; ``none`` for none), ``otlp`` when it is unset but an
    OTLP endpoint is, nothing when ``OTEL_SDK_DISABLED`` is true."""
    env = os.environ
    if _true(env.get("OTEL_SDK_DISABLED")):
        return []
    names = [n.strip().lower() for n in env.get("OTEL_TRACES_EXPORTER", "").split(",") if n.strip()]
    if names:
        return [] if "none" in names else names
    if env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        return ["otlp"]
    return []


def from_environment() -> Tracing | None:
    """A Tracing exporting as ``OTEL_*`` says, or None when it asks for no traces (then nothing of
    OpenTelemetry is imported) or when the SDK is not installed (a warning says so).

    The SDK and the exporters read the rest of their configuration themselves: the resource
    (``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``; "lawspeaker" when neither names the
    service), the sampler (``OTEL_TRACES_SAMPLER``), the batching (``OTEL_BSP_*``), the endpoint,
    headers, timeout and TLS of OTLP (``OTEL_EXPORTER_OTLP_*``)."""
    names = requested()
    if not names:
        return None
    try:
        from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        log.warning(
            "OTEL_* asks for traces (%s) but OpenTelemetry is not installed: no traces "
            "(install lawspeaker[otel])",
            ",".join(names),
        )
        return None
    exporters = [e for e in (_exporter(name) for name in names) if e is not None]
    if not exporters:
        return None
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE_NAME}))
    if SERVICE_VERSION not in resource.attributes:
        resource = resource.merge(Resource({SERVICE_VERSION: _version()}))
    provider = TracerProvider(resource=resource)  # the sampler: OTEL_TRACES_SAMPLER(_ARG)
    for exporter in exporters:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    log.info(
        "traces to %s (service %s)",
        ",".join(type(e).__name__ for e in exporters),
        resource.attributes.get(SERVICE_NAME),
    )
    return Tracing(provider, exporters)


def _exporter(name: str) -> SpanExporter | None:
    """The span exporter registered under ``name`` (the ``opentelemetry_traces_exporter`` entry
    points the SDK's own auto-configuration loads: ``console``, ``otlp_proto_http``, ...), or None,
    logged, when none is installed. ``otlp`` is the OTLP exporter of the protocol
    ``OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`` names, http/protobuf by default as the specification
    says (the SDK's auto-configuration would take gRPC)."""
    from importlib.metadata import entry_points

    if name == "otlp":
        protocol = (
            os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
            or "http/protobuf"
        ).strip()
        if protocol not in _OTLP_BY_PROTOCOL:
            log.error("OTLP protocol %r is not supported (http/protobuf or grpc): no OTLP traces", protocol)
            return None
        name = _OTLP_BY_PROTOCOL[protocol]
    found = entry_points(group="opentelemetry_traces_exporter", name=name)
    if not found:
        log.error("no trace exporter %r is installed: OTEL_TRACES_EXPORTER names it", name)
        return None
    exporter: SpanExporter = next(iter(found)).load()()
    return exporter


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("lawspeaker")
    except metadata.PackageNotFoundError:
        return "unknown"


def _span_details(scope: Any) -> tuple[str, dict[str, Any]]:
    """The name an HTTP server span starts with: the request's method only (unknown ones as
    "HTTP"), never its path, which holds session ids; :meth:`Tracing.finished` renames the span of
    an RPC after it."""
    from opentelemetry.util.http import sanitize_method

    method = sanitize_method(str(scope.get("method", "")).strip())
    return ("HTTP" if not method or method == "_OTHER" else method), {}


class Tracing:
    """Tracing into one SDK TracerProvider (``from_environment``'s, or a test's). ``exporters``
    names where its spans go (the ones ``from_environment`` chose), for the record only."""

    def __init__(self, provider: TracerProvider, exporters: Sequence[SpanExporter] = ()) -> None:
        from opentelemetry import trace
        from opentelemetry.trace import SpanKind, Status, StatusCode

        from lawspeaker.http.routes import RPCS, SESSION_RPCS

        self.provider = provider
        self.exporters = tuple(exporters)
        self.tracer = provider.get_tracer("lawspeaker", _version())
        self._current = trace.get_current_span
        self._client = SpanKind.CLIENT
        self._error = Status(StatusCode.ERROR)
        self._status = Status
        self._error_code = StatusCode.ERROR
        # REST spans are named after their route template: "POST /v1/sessions/{session}:applyMove"
        self._routes = {
            (r.service.name, r.name): f"{r.http_method} {r.template}" for r in (*RPCS, *SESSION_RPCS)
        }
        self._templates = {(r.service.name, r.name): r.template for r in (*RPCS, *SESSION_RPCS)}

    # ------------------------------------------------------------------ the edges

    def asgi(self, app: Any) -> Any:
        """``app`` under the ASGI instrumentation's middleware: a server span per HTTP request, the
        caller's ``traceparent`` continued. Probes and scrapes are left out (``DEFAULT_EXCLUDED_URLS``)
        unless ``OTEL_PYTHON_ASGI_EXCLUDED_URLS`` or ``OTEL_PYTHON_EXCLUDED_URLS`` is set; the
        middleware's per-message "receive"/"send" spans are left out too (noise, and a quarter of
        its cost)."""
        from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
        from opentelemetry.util.http import parse_excluded_urls

        excluded = os.environ.get(
            "OTEL_PYTHON_ASGI_EXCLUDED_URLS", os.environ.get("OTEL_PYTHON_EXCLUDED_URLS")
        )
        return OpenTelemetryMiddleware(
            app,
            excluded_urls=parse_excluded_urls(DEFAULT_EXCLUDED_URLS if excluded is None else excluded),
            default_span_details=_span_details,
            tracer_provider=self.provider,
            exclude_spans=["receive", "send"],
        )

    def grpc_interceptors(self) -> list[grpc.aio.ServerInterceptor]:  # type: ignore[type-arg]
        """The gRPC instrumentation's server interceptor: a server span per call, the caller's
        ``traceparent`` metadata continued. Health checks are left out (``DEFAULT_EXCLUDED_SERVICES``)
        unless ``OTEL_PYTHON_GRPC_EXCLUDED_SERVICES`` is set."""
        from opentelemetry.instrumentation.grpc import aio_server_interceptor, filters

        listed = os.environ.get("OTEL_PYTHON_GRPC_EXCLUDED_SERVICES", DEFAULT_EXCLUDED_SERVICES)
        excluded = [s.strip() for s in listed.split(",") if s.strip()]
        filter_ = None
        if excluded:
            filter_ = filters.negate(filters.any_of(*(filters.service_name(s) for s in excluded)))
        interceptor: grpc.aio.ServerInterceptor = aio_server_interceptor(  # type: ignore[type-arg,no-untyped-call]
            tracer_provider=self.provider, filter_=filter_
        )
        return [interceptor]

    def current_span(self) -> Span:
        """The current span: at the edges, the call's server span."""
        return self._current()

    # ------------------------------------------------------------------ children of a call

    @contextlib.contextmanager
    def rules(self, method: str) -> Iterator[None]:
        """A span around the rules' work for ``method`` ("rules ApplyMove"), with the call's game
        and RPC. A refusal of the move or request is an attribute (its reason), not an error."""
        with self.tracer.start_as_current_span(
            "rules " + method, record_exception=False, set_status_on_exception=False
        ) as span:
            try:
                yield
            except LawspeakerError as err:
                span.set_attribute("lawspeaker.reason", err.reason)
                raise
            except Exception as err:
                span.record_exception(err)
                span.set_status(self._status(self._error_code, type(err).__name__))
                raise
            finally:
                if span.is_recording():
                    span.set_attributes(_call_attributes(calls.CURRENT.get(), method))

    def redis(self, operation: str, store: str) -> Span | None:
        """A client span for one Redis round trip of the current call ("redis load"), ended by
        :meth:`ended`; None outside a call (a background round trip starts no trace of its own)."""
        call = calls.CURRENT.get()
        if call is None:
            return None
        attributes = _call_attributes(call, "")
        attributes.update(
            {
                "db.system": "redis",
                "db.system.name": "redis",
                "db.operation": operation,
                "db.operation.name": operation,
                "lawspeaker.store": store,
            }
        )
        return self.tracer.start_span("redis " + operation, kind=self._client, attributes=attributes)

    def ended(self, span: Span, ok: bool) -> None:
        """End a :meth:`redis` span; a failed round trip (Redis unavailable) is an error."""
        if not ok:
            span.set_status(self._error)
        span.end()

    # ------------------------------------------------------------------ the end of a call

    def finished(self, call: calls.Call) -> None:
        """The server span of a finished call: named after its RPC, with the RPC's system, service
        and method, the game, the outcome code (and the reason of a refusal or a rejected move),
        status ERROR for the codes a server is at fault for. Also the call's trace id, for its
        access-log line.

        Called when the call ends (``calls.finish``) and, over HTTP, when its answer starts: the
        ASGI middleware ends the span with the answer's last message, before the call's end. A span
        already ended is left alone."""
        span = call.span
        if span is None:
            return
        context = span.get_span_context()
        if context.is_valid:
            call.trace_id = format(context.trace_id, "032x")
        if not span.is_recording():  # not sampled, or ended
            return
        code = call.code or (
            "OK" if 200 <= call.status < 400 or call.status == 0 else calls.http_code(call.status)
        )
        attributes: dict[str, AttributeValue] = {
            "rpc.system": _SYSTEMS.get(call.transport, call.transport),
            "lawspeaker.code": code,
        }
        if call.service != calls.OTHER:
            attributes["rpc.service"] = PACKAGE + call.service
            attributes["rpc.method"] = call.method
            key = (call.service, call.method)
            if call.transport == "rest" and key in self._routes:
                span.update_name(self._routes[key])
                attributes["http.route"] = self._templates[key]
            else:  # the RPC semantic conventions' name, the same for gRPC and Connect
                span.update_name(f"{PACKAGE}{call.service}/{call.method}")
        if call.game:
            attributes["lawspeaker.game"] = call.game
        if call.reason:
            attributes["lawspeaker.reason"] = call.reason
        if call.violation:
            attributes["lawspeaker.violation"] = call.violation
        if call.transport == "grpc":
            attributes["rpc.grpc.status_code"] = _grpc_code(code)
        elif call.transport == "connect" and code != "OK":
            attributes["rpc.connect_rpc.error_code"] = code.lower()
        span.set_attributes(attributes)
        if code in _SERVER_FAULTS:
            span.set_status(self._status(self._error_code, code))


def _call_attributes(call: calls.Call | None, method: str) -> dict[str, AttributeValue]:
    """The game and RPC of ``call`` as span attributes (``method`` when outside a call)."""
    if call is None:
        return {"rpc.method": method} if method else {}
    out: dict[str, AttributeValue] = {}
    if call.service != calls.OTHER:
        out["rpc.service"] = PACKAGE + call.service
        out["rpc.method"] = call.method
    elif method:
        out["rpc.method"] = method
    if call.game:
        out["lawspeaker.game"] = call.game
    return out


def _grpc_code(name: str) -> int:
    import grpc

    found = grpc.StatusCode.__members__.get(name)
    return int(found.value[0]) if found is not None else 2  # UNKNOWN
