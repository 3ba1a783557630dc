"""The ``lawspeaker`` command: ``serve``, ``api-key``, ``gen-proto``, ``openapi`` and ``errors-doc``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import uvicorn

from lawspeaker.games.core import LawspeakerError
from lawspeaker.http.compression import DEFAULT_MIN_BYTES as DEFAULT_COMPRESS_MIN_BYTES
from lawspeaker.server import listen
from lawspeaker.sessions.store import REQUEST_ID_BYTES, StoreConfigError

if TYPE_CHECKING:
    from lawspeaker.server.tls import ServerTLS
    from lawspeaker.sessions.service import Limits, SessionApi
    from lawspeaker.sessions.webhooks import Config as WebhookConfig

log = logging.getLogger("lawspeaker")

GRACE_SECONDS = 5.0
METRICS_READ_SECONDS = 15.0
DEFAULT_SESSION_TTL = 86400
DEFAULT_BOT_PROCESSES = 1  # lawspeaker.api.botpool's defaults, repeated so --help imports no games
DEFAULT_BOT_QUEUE = 16


class _EmbeddedServer(uvicorn.Server):
    """A uvicorn server that leaves signal handling to the caller (we run gRPC alongside)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve(
    host: str,
    grpc_port: int,
    http_port: int,
    access_log: bool = False,
    redis_url: str | None = None,
    session_ttl: int = DEFAULT_SESSION_TTL,
    cors_origins: Sequence[str] = (),
    limits: Limits | None = None,
    store_options: Mapping[str, Any] | None = None,
    tls: ServerTLS | None = None,
    reuse_port: bool = False,
    metrics_on: bool = True,
    metrics_port: int = 0,
    bot_processes: int = DEFAULT_BOT_PROCESSES,
    bot_queue: int = DEFAULT_BOT_QUEUE,
    public_url: str = "",
    compress_min_bytes: int = DEFAULT_COMPRESS_MIN_BYTES,
    webhook_config: WebhookConfig | None = None,
) -> None:
    """Serve gRPC and HTTP in this event loop until SIGTERM or SIGINT, then shut down gracefully.

    Game sessions live in Redis when ``redis_url`` is given, else in this process (one replica).
    ``limits`` are the session quotas; ``store_options`` go to the store (request id retention and,
    for Redis, ``wait_replicas`` and ``wait_timeout``). With ``tls`` both ports speak only TLS.
    ``reuse_port``: a ``--workers`` worker, sharing the ports its supervisor holds
    (``lawspeaker.server.workers``).
    ``metrics_on``: record metrics and serve ``/metrics``, on the HTTP port or, given
    ``metrics_port``, there (a worker's supervisor serves that port for every worker).
    ``bot_processes`` and ``bot_queue``: the bot pool (``lawspeaker.api.botpool``).
    ``public_url``: the base URL clients reach the HTTP port at, which the OpenAPI document names as
    its server and every link an answer carries starts with, a refused move's ``rule`` and a problem's
    ``type`` (``lawspeaker.api.links``; empty: the address each HTTP request was sent to, and for
    gRPC, which has none, the link's path alone).
    ``compress_min_bytes``: HTTP responses (and Connect stream messages) at least this long are
    compressed when the client asks (``lawspeaker.http.compression``).
    ``webhook_config``: the server's webhook target, allowlist and retry bound (``--webhook-*``).
    """
    from lawspeaker.api.rules import RulesApi
    from lawspeaker.grpc.server import create_server
    from lawspeaker.http.app import create_app, observed
    from lawspeaker.http.limits import http_protocol
    from lawspeaker.sessions.service import SessionApi
    from lawspeaker.sessions.store import MemoryStore, RedisStore, SessionStore

    http_sockets = listen.http_sockets(host, http_port, reuse_port)  # busy: PortUnavailable, nothing started
    try:
        if not reuse_port:  # a worker's supervisor checked it and holds it
            listen.check_free(host, grpc_port)
    except listen.PortUnavailable:
        listen.close(http_sockets)
        raise
    from lawspeaker.observe import calls, metrics
    from lawspeaker.server import logs, tracing

    telemetry = tracing.from_environment()
    calls.configure(metrics_on, logs.access_line if access_log else None, telemetry)
    if metrics_on:
        if not reuse_port:
            metrics.forget_ended_processes()
        metrics.watch_gc()
        if metrics_port and not reuse_port:  # a worker's supervisor serves the port for all
            try:
                bound = metrics.serve_port(host, metrics_port)
            except OSError as err:
                listen.close(http_sockets)
                raise listen.metrics_unavailable(host, metrics_port, err) from None
            log.info("metrics on http://%s:%d/metrics", host, bound)
    from lawspeaker.api import links
    from lawspeaker.api.botpool import BotPool

    links.configure(public_url)  # the base of gRPC's links (HTTP's are each request's)
    api = RulesApi(bot_pool=BotPool(bot_processes, bot_queue))
    api.bot_pool.start()
    store: SessionStore
    options = dict(store_options or {})
    if redis_url:
        try:
            store = RedisStore(redis_url, ttl=session_ttl, **options)
        except StoreConfigError:  # a malformed URL: one line (``main``), nothing left open
            listen.close(http_sockets)
            api.bot_pool.close(wait=True)
            raise
        log.info("game sessions in Redis at %s (idle TTL %d s)", store.where(), session_ttl)
    else:
        options.pop("wait_replicas", None)
        options.pop("wait_timeout", None)
        options.pop("prefix", None)
        store = MemoryStore(ttl=session_ttl, **options)
        log.info("game sessions in this process (no --redis-url; idle TTL %d s)", session_ttl)
    sessions = SessionApi(store, api, limits, webhook_config)
    if webhook_config is not None and webhook_config.url:
        log.info(
            "webhooks: every session's events to %s, retried for %g s",
            webhook_config.url,
            webhook_config.retry_seconds,
        )
    try:
        await store.check()  # e.g. a plain redis:// URL naming a Redis Cluster node
    except StoreConfigError:
        listen.close(http_sockets)
        await sessions.close()
        api.bot_pool.close(wait=True)
        raise
    except LawspeakerError as err:  # not answering yet: serve anyway, 503 until it does
        log.warning(
            "session store not answering at start (%s): serving anyway; session calls answer 503 %s "
            "until it does",
            err.message.split("(", 1)[-1].split(")", 1)[0],
            err.reason,
        )
    await _report_sessions(sessions)
    if metrics_on:
        metrics.build_info(
            _version(), ",".join(f"{k}={e.game.rules_version}" for k, e in sorted(api.registry.items()))
        )
        metrics.watch_limit(store.max_watchers)
    try:
        grpc_server, bound_grpc = await create_server(
            f"{host}:{grpc_port}",
            api,
            sessions,
            credentials=tls.grpc_credentials() if tls is not None else None,
            reuse_port=reuse_port,
            interceptors=telemetry.grpc_interceptors() if telemetry is not None else (),
        )
    except OSError as err:  # taken since check_free
        listen.close(http_sockets)
        await sessions.close()
        raise listen.grpc_unavailable(host, grpc_port, err) from None
    app: Any = observed(
        create_app(
            api,
            sessions,
            cors_origins,
            metrics_route=metrics_on and not metrics_port,
            public_url=public_url,
            compress_min_bytes=compress_min_bytes,
        )
    )
    if telemetry is not None:
        app = telemetry.asgi(app)
    http = _EmbeddedServer(
        uvicorn.Config(
            app,
            host=host,
            port=http_port,
            log_level="info",
            log_config=None,  # our handlers (``lawspeaker.server.logs``) format uvicorn's lines too
            lifespan="on",
            access_log=False,  # ``--access-log`` is ours: every transport, one format
            proxy_headers=False,  # X-Forwarded-For is trusted by --trusted-proxies only (access.py)
            timeout_graceful_shutdown=int(GRACE_SECONDS),
            http=http_protocol(),  # httptools (else h11) with per-connection send limits
            **(tls.uvicorn_options() if tls is not None else {}),
        )
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    await grpc_server.start()
    gauges = asyncio.create_task(_read_metrics(sessions)) if metrics_on else None
    sessions.start()  # this replica's timers (turn clocks) and presence writes
    http_task = asyncio.create_task(http.serve(sockets=http_sockets))
    while not http.started and not http_task.done():
        await asyncio.sleep(0.01)
    if http_task.done():  # uvicorn failed to start (e.g. port in use)
        await grpc_server.stop(0)
        await sessions.close()
        await http_task
        raise SystemExit(1)
    bound_http = http.servers[0].sockets[0].getsockname()[1] if http.servers else http_port
    log.info(
        "lawspeaker serving gRPC on %s:%d and HTTP%s on %s:%d%s",
        host,
        bound_grpc,
        "S" if tls is not None else "",
        host,
        bound_http,
        f", both over {tls.describe()}" if tls is not None else "",
    )
    print(f"lawspeaker grpc_port={bound_grpc} http_port={bound_http}", flush=True)

    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({stopped, http_task}, return_when=asyncio.FIRST_COMPLETED)
    log.info("lawspeaker shutting down")
    if gauges is not None:
        gauges.cancel()
    sessions.shutdown()  # ends watch streams
    http.should_exit = True
    await asyncio.gather(grpc_server.stop(GRACE_SECONDS), http_task, return_exceptions=True)
    await sessions.close()
    api.bot_pool.close(wait=True)
    if metrics_on:
        metrics.flush()  # the last calls count too (a worker's files outlive it)
    stopped.cancel()
    log.info("lawspeaker stopped")


async def _read_metrics(sessions: SessionApi) -> None:
    """Keep the metrics fresh between scrapes: the calls counted since the last flush, every
    second, and the store's gauges (live sessions, its availability) every METRICS_READ_SECONDS."""
    from lawspeaker.observe import metrics

    loop = asyncio.get_running_loop()
    read_at = loop.time()
    while True:
        try:
            metrics.flush()
            if loop.time() >= read_at:
                read_at = loop.time() + METRICS_READ_SECONDS
                await sessions.read_metrics()
        except Exception:  # a bug here must not stop the metrics for the life of the process
            log.exception("updating the metrics failed")
        await asyncio.sleep(metrics.FLUSH_SECONDS)


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("lawspeaker")
    except metadata.PackageNotFoundError:
        return "unknown"


async def _report_sessions(sessions: SessionApi) -> None:
    """One line on the quotas and one on durability: what an acknowledged move survives, read from
    the store's own settings, as a warning when a restart of the store would lose moves."""
    limits = sessions.limits
    keys = "off"
    if limits.access.keys_required:
        keys = "required to create sessions"
        if limits.access.keys_for_rules:
            keys += " and for the stateless RPCs"
    elif limits.access.api_keys:
        keys = "optional (a key brings its own quota)"
    log.info(
        "session quotas: %s new sessions a minute per client (burst %d), at most %s live sessions, "
        "API keys %s",
        f"{limits.create_per_minute:g}" if limits.create_per_minute else "unlimited",
        limits.create_burst,
        limits.max_sessions or "unlimited",
        keys,
    )
    try:
        durability = await sessions.store.durability()
    except LawspeakerError as err:
        log.warning("session store durability unknown: the store is unavailable (%s)", err.reason)
        return
    if durability.warning:
        log.warning("session store durability: %s (%s)", durability.warning, durability.persistence)
    else:
        log.info("session store durability: %s (%s)", durability.survives, durability.persistence)
    wanted = getattr(sessions.store, "wait_replicas", 0)
    if wanted and (durability.connected_replicas or 0) < wanted:
        log.warning(
            "--redis-wait-replicas %d but Redis has %s connected replica(s): moves will be refused "
            "with UNAVAILABLE until enough replicas are connected",
            wanted,
            durability.connected_replicas,
        )


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value else default


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0", "false", "no")


DEFAULT_CREATE_RATE = 30.0  # new sessions a minute per client
DEFAULT_CREATE_BURST = 10  # new sessions at once per client
DEFAULT_LOBBY_RATE = 120.0  # lobby listings and seat claims a minute per client
DEFAULT_LOBBY_BURST = 20  # lobby listings and seat claims at once per client
DEFAULT_MAX_SESSIONS = 10_000  # live sessions per store


def _worker_count(value: str) -> int:
    from lawspeaker.server.workers import worker_count

    return worker_count(value)


def _origins(value: str) -> tuple[str, ...]:
    return tuple(o.strip() for o in value.split(",") if o.strip())


def _compress_min_bytes(value: str) -> int:
    """A byte count as --compress-min-bytes takes it: a whole number, at least 1."""
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of bytes, at least 1")
    return count


def _public_url(value: str) -> str:
    """A base URL as --public-url takes it: http(s), a host, perhaps a port and a path; no query."""
    value = value.strip()
    if not value:
        return ""
    parts = urllib.parse.urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a base URL such as https://rules.example or http://10.0.0.5:8080/lawspeaker"
        )
    return value.rstrip("/")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lawspeaker", description="Rules as a service, over gRPC and REST.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="serve gRPC and HTTP")
    s.add_argument("--host", default=os.environ.get("LAWSPEAKER_HOST", "0.0.0.0"))
    s.add_argument("--grpc-port", type=int, default=_env_int("LAWSPEAKER_GRPC_PORT", 50051))
    s.add_argument("--http-port", type=int, default=_env_int("LAWSPEAKER_HTTP_PORT", 8080))
    obs = s.add_argument_group(
        "metrics, traces and logs",
        "the README's 'Metrics, traces and logs' section lists the metrics; traces need the "
        "lawspeaker[otel] extra and the standard OTEL_* variables",
    )
    obs.add_argument(
        "--access-log",
        action="store_true",
        default=_env_flag("LAWSPEAKER_ACCESS_LOG"),
        help="log every call, over gRPC, REST and Connect (env LAWSPEAKER_ACCESS_LOG=1)",
    )
    obs.add_argument(
        "--log-format",
        choices=("text", "json"),
        default=os.environ.get("LAWSPEAKER_LOG_FORMAT") or "text",
        help="text (default) or json: one JSON object per line (env LAWSPEAKER_LOG_FORMAT)",
    )
    obs.add_argument(
        "--no-metrics",
        dest="metrics",
        action="store_false",
        default=os.environ.get("LAWSPEAKER_METRICS", "1").lower() not in ("0", "false", "no", "off"),
        help="record no metrics and serve no /metrics (env LAWSPEAKER_METRICS=0)",
    )
    obs.add_argument(
        "--metrics-port",
        type=int,
        default=_env_int("LAWSPEAKER_METRICS_PORT", 0),
        help="serve /metrics on this port (plain HTTP, every path) instead of the HTTP port (env "
        "LAWSPEAKER_METRICS_PORT; default 0: on the HTTP port)",
    )
    s.add_argument(
        "--redis-url",
        default=os.environ.get("LAWSPEAKER_REDIS_URL") or None,
        help="keep game sessions in this Redis, shared by every replica, e.g. redis://127.0.0.1:6379/0, "
        "a Redis Cluster: redis+cluster://host:port[,host:port...], or Redis Sentinel: "
        "redis+sentinel://host:port[,host:port...]/<master-name> (env LAWSPEAKER_REDIS_URL); "
        "without it sessions live in this process",
    )
    s.add_argument(
        "--redis-prefix",
        default=os.environ.get("LAWSPEAKER_REDIS_PREFIX") or "lawspeaker",
        help="the prefix of this service's keys in Redis (env LAWSPEAKER_REDIS_PREFIX, default "
        "lawspeaker): replicas of one service share it; a test run takes one of its own",
    )
    s.add_argument(
        "--session-ttl",
        type=int,
        default=_env_int("LAWSPEAKER_SESSION_TTL", DEFAULT_SESSION_TTL),
        help="seconds a game session lives without being used (env LAWSPEAKER_SESSION_TTL)",
    )
    s.add_argument(
        "--cors-origins",
        type=_origins,
        default=_origins(os.environ.get("LAWSPEAKER_CORS_ORIGINS", "")),
        help="comma-separated origins browsers may call from, e.g. https://app.example or * "
        "(env LAWSPEAKER_CORS_ORIGINS); empty: CORS off",
    )
    s.add_argument(
        "--public-url",
        type=_public_url,
        default=os.environ.get("LAWSPEAKER_PUBLIC_URL", ""),  # argparse checks it with the type
        help="the base URL clients reach the HTTP port at, e.g. https://rules.example (env "
        "LAWSPEAKER_PUBLIC_URL): the OpenAPI document names it as its server, so that generated "
        "clients call it, and every rule and problem type link starts with it; empty: the address "
        "each HTTP request was sent to (gRPC's links are then paths)",
    )
    s.add_argument(
        "--compress-min-bytes",
        type=_compress_min_bytes,
        default=os.environ.get("LAWSPEAKER_COMPRESS_MIN_BYTES") or str(DEFAULT_COMPRESS_MIN_BYTES),
        help="HTTP responses at least this many bytes long are compressed (gzip or br) when the "
        "client's Accept-Encoding asks, Connect stream messages too (env LAWSPEAKER_COMPRESS_MIN_BYTES, "
        f"default {DEFAULT_COMPRESS_MIN_BYTES}: above the hot path's answers, docs/benchmarks.md)",
    )
    t = s.add_argument_group(
        "TLS",
        "both ports speak TLS with one certificate (mobile apps and browsers refuse cleartext); "
        "the README's 'TLS' section says when to leave TLS to a proxy instead",
    )
    t.add_argument(
        "--tls-cert",
        metavar="FILE",
        default=os.environ.get("LAWSPEAKER_TLS_CERT") or None,
        help="PEM file of the server's certificate chain, leaf first (env LAWSPEAKER_TLS_CERT); "
        "with --tls-key, gRPC and HTTP are served over TLS only",
    )
    t.add_argument(
        "--tls-key",
        metavar="FILE",
        default=os.environ.get("LAWSPEAKER_TLS_KEY") or None,
        help="PEM file of that certificate's private key (env LAWSPEAKER_TLS_KEY)",
    )
    t.add_argument(
        "--tls-client-ca",
        metavar="FILE",
        default=os.environ.get("LAWSPEAKER_TLS_CLIENT_CA") or None,
        help="PEM file of the CA certificates that sign client certificates (env "
        "LAWSPEAKER_TLS_CLIENT_CA): mutual TLS, a client without such a certificate is refused",
    )
    s.add_argument(
        "--workers",
        type=_worker_count,
        default=os.environ.get("LAWSPEAKER_WORKERS") or "1",
        help="serving processes sharing both ports, replaced when one dies (env LAWSPEAKER_WORKERS, "
        "default 1; auto: one per core); more than one needs --redis-url",
    )
    s.add_argument("--worker-of", type=int, default=None, help=argparse.SUPPRESS)  # set by the supervisor
    b = s.add_argument_group(
        "bots",
        "where SuggestMove and the sessions' bot seats think: worker processes at a lower CPU priority",
    )
    b.add_argument(
        "--bot-processes",
        type=int,
        default=_env_int("LAWSPEAKER_BOT_PROCESSES", DEFAULT_BOT_PROCESSES),
        help="bot worker processes per serving process (env LAWSPEAKER_BOT_PROCESSES, default "
        f"{DEFAULT_BOT_PROCESSES}; 0: think on a thread of the serving process)",
    )
    b.add_argument(
        "--bot-queue",
        type=int,
        default=_env_int("LAWSPEAKER_BOT_QUEUE", DEFAULT_BOT_QUEUE),
        help="SuggestMove calls that may wait for a bot worker; more are refused with BOTS_BUSY (env "
        f"LAWSPEAKER_BOT_QUEUE, default {DEFAULT_BOT_QUEUE}); session bots always wait their turn",
    )
    q = s.add_argument_group(
        "quotas and access",
        "on by default; the README's 'Quotas' section says why these numbers. 0 turns a limit off.",
    )
    q.add_argument(
        "--create-rate",
        type=float,
        default=_env_float("LAWSPEAKER_CREATE_RATE", DEFAULT_CREATE_RATE),
        help="new sessions a minute per client: its API key, else its address (env "
        f"LAWSPEAKER_CREATE_RATE, default {DEFAULT_CREATE_RATE:g}; 0: no limit)",
    )
    q.add_argument(
        "--lobby-rate",
        type=float,
        default=_env_float("LAWSPEAKER_LOBBY_RATE", DEFAULT_LOBBY_RATE),
        help="lobby listings (ListSessions) and seat claims (ClaimSeat) a minute per client (env "
        f"LAWSPEAKER_LOBBY_RATE, default {DEFAULT_LOBBY_RATE:g}; 0: no limit)",
    )
    q.add_argument(
        "--lobby-burst",
        type=int,
        default=_env_int("LAWSPEAKER_LOBBY_BURST", DEFAULT_LOBBY_BURST),
        help="lobby calls a client may make at once (env LAWSPEAKER_LOBBY_BURST, default "
        f"{DEFAULT_LOBBY_BURST})",
    )
    q.add_argument(
        "--create-burst",
        type=int,
        default=_env_int("LAWSPEAKER_CREATE_BURST", DEFAULT_CREATE_BURST),
        help=f"new sessions a client may create at once (env LAWSPEAKER_CREATE_BURST, default "
        f"{DEFAULT_CREATE_BURST})",
    )
    q.add_argument(
        "--max-sessions",
        type=int,
        default=_env_int("LAWSPEAKER_MAX_SESSIONS", DEFAULT_MAX_SESSIONS),
        help=f"live sessions in the store, across replicas (env LAWSPEAKER_MAX_SESSIONS, default "
        f"{DEFAULT_MAX_SESSIONS}; 0: no cap)",
    )
    q.add_argument(
        "--api-keys",
        default=os.environ.get("LAWSPEAKER_API_KEYS", ""),
        help="comma-separated 'name=sha256:<hex digest>' of the API keys that may create sessions "
        "(env LAWSPEAKER_API_KEYS; `lawspeaker api-key` makes one); empty: no key needed. An entry may "
        "add the key's own quota: 'name=sha256:<hex>;rate=6000;burst=200' (per minute, at once; "
        "what it omits is --create-rate/--create-burst; rate=0: no limit)",
    )
    q.add_argument(
        "--api-keys-optional",
        action="store_true",
        default=_env_flag("LAWSPEAKER_API_KEYS_OPTIONAL"),
        help="with --api-keys: a client without a key may create sessions too, counted by its address "
        "with --create-rate/--create-burst; a key sent must be valid and brings its own quota (env "
        "LAWSPEAKER_API_KEYS_OPTIONAL=1)",
    )
    q.add_argument(
        "--api-keys-for-rules",
        action="store_true",
        default=_env_flag("LAWSPEAKER_API_KEYS_FOR_RULES"),
        help="the stateless RulesService RPCs need an API key too (env LAWSPEAKER_API_KEYS_FOR_RULES=1)",
    )
    q.add_argument(
        "--trusted-proxies",
        default=os.environ.get("LAWSPEAKER_TRUSTED_PROXIES", ""),
        help="comma-separated addresses or networks of proxies whose X-Forwarded-For names the client "
        "(env LAWSPEAKER_TRUSTED_PROXIES), e.g. 10.0.0.0/8; empty: the peer address is the client",
    )
    d = s.add_argument_group("request ids and durability")
    d.add_argument(
        "--request-id-ttl",
        type=int,
        default=_env_int("LAWSPEAKER_REQUEST_ID_TTL", 0),
        help="seconds a request_id is remembered for a retry (env LAWSPEAKER_REQUEST_ID_TTL; default: "
        "the session TTL)",
    )
    d.add_argument(
        "--request-id-bytes",
        type=int,
        default=_env_int("LAWSPEAKER_REQUEST_ID_BYTES", REQUEST_ID_BYTES),
        help="bytes of remembered request ids per session (30 bytes each: a retry's answer is rebuilt "
        "from the move log), the oldest forgotten first (env "
        f"LAWSPEAKER_REQUEST_ID_BYTES, default {REQUEST_ID_BYTES})",
    )
    d.add_argument(
        "--redis-wait-replicas",
        type=int,
        default=_env_int("LAWSPEAKER_REDIS_WAIT_REPLICAS", 0),
        help="acknowledge a write only once this many Redis replicas have it (WAIT); otherwise the "
        "call fails with UNAVAILABLE (env LAWSPEAKER_REDIS_WAIT_REPLICAS, default 0)",
    )
    d.add_argument(
        "--redis-wait-timeout",
        type=float,
        default=_env_float("LAWSPEAKER_REDIS_WAIT_TIMEOUT", 1.0),
        help="seconds to wait for those replicas (env LAWSPEAKER_REDIS_WAIT_TIMEOUT, default 1)",
    )
    w = s.add_argument_group(
        "webhooks",
        "sessions' events (a seat is to act, a clock runs out, a seat is claimed, the game ends) POSTed "
        "as Standard Webhooks, retried with backoff, from whichever replica is alive; a session may name "
        "its own endpoint too (CreateSession's webhook). docs/sessions.md#webhooks",
    )
    w.add_argument(
        "--webhook-url",
        default=os.environ.get("LAWSPEAKER_WEBHOOK_URL", ""),
        help="notify every session's events to this https:// endpoint (env LAWSPEAKER_WEBHOOK_URL), "
        "signed with --webhook-secret",
    )
    w.add_argument(
        "--webhook-secret",
        default=os.environ.get("LAWSPEAKER_WEBHOOK_SECRET", ""),
        help="the secret --webhook-url's deliveries are signed with, whsec_<base64> as Standard "
        "Webhooks libraries take it (env LAWSPEAKER_WEBHOOK_SECRET, which keeps it out of the process list)",
    )
    w.add_argument(
        "--webhook-allow",
        default=os.environ.get("LAWSPEAKER_WEBHOOK_ALLOW", ""),
        help="comma-separated hosts, addresses or networks (CIDR) webhooks may reach although they are "
        "not public, plain http:// allowed for the hosts named (env LAWSPEAKER_WEBHOOK_ALLOW); by "
        "default loopback, private, link-local and other non-public addresses are refused, after DNS",
    )
    w.add_argument(
        "--webhook-retry-seconds",
        type=float,
        default=_env_float("LAWSPEAKER_WEBHOOK_RETRY_SECONDS", 3600.0),
        help="how long an event is retried (exponential backoff, 1 s doubling to 5 min) before it is "
        "dropped (env LAWSPEAKER_WEBHOOK_RETRY_SECONDS, default 3600)",
    )
    k = sub.add_parser("api-key", help="make a new API key and print it with its configuration entry")
    k.add_argument("--name", default="", help="a name for the key (quotas and logs show it)")
    g = sub.add_parser("gen-proto", help="regenerate service/lawspeaker/v1 from proto/")
    g.add_argument("--check", action="store_true", help="fail if the generated code is stale")
    o = sub.add_parser("openapi", help="write clients/openapi.json")
    o.add_argument("--check", action="store_true", help="fail if clients/openapi.json is stale")
    e = sub.add_parser("errors-doc", help="write docs/errors.md, the catalogue of every reason code")
    e.add_argument("--check", action="store_true", help="fail if docs/errors.md is stale")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    if args.command == "serve":
        several = args.workers > 1 or args.worker_of is not None  # log lines name their process
        from lawspeaker.server import logs

        logs.configure(args.log_format, several)
        if args.session_ttl <= 0:
            raise SystemExit("--session-ttl must be a positive number of seconds")
        limits, store_options = _quotas(args)
        tls = _tls(args)
        webhook_config = _webhooks(args)
        if args.workers > 1 and args.worker_of is None:
            if not args.redis_url:
                raise SystemExit(
                    f"--workers {args.workers} needs --redis-url (or LAWSPEAKER_REDIS_URL): with sessions "
                    "kept in each process, a game's moves would split between the workers"
                )
            from lawspeaker.server import workers

            return workers.supervise(
                argv,
                args.host,
                args.grpc_port,
                args.http_port,
                args.workers,
                metrics_port=args.metrics_port if args.metrics else None,
            )
        coro = serve(
            args.host,
            args.grpc_port,
            args.http_port,
            args.access_log,
            args.redis_url,
            args.session_ttl,
            args.cors_origins,
            limits,
            store_options,
            tls=tls,
            reuse_port=args.worker_of is not None,
            metrics_on=args.metrics,
            metrics_port=args.metrics_port,
            bot_processes=args.bot_processes,
            bot_queue=args.bot_queue,
            public_url=args.public_url,
            compress_min_bytes=args.compress_min_bytes,
            webhook_config=webhook_config,
        )
        if args.worker_of is not None:
            from lawspeaker.server import workers

            coro = workers.as_worker(coro, args.worker_of)
        try:
            if _has("uvloop"):
                import uvloop

                uvloop.run(coro)
            else:
                asyncio.run(coro)
        except listen.PortUnavailable as err:
            log.error("%s", err)  # one line naming the port, no traceback
            return 1
        except StoreConfigError as err:  # e.g. a redis:// URL naming a Redis Cluster node
            log.error("--redis-url: %s", err)  # one line naming the URL to use, no traceback
            return 1
        return 0
    if args.command == "api-key":
        from lawspeaker.api.access import new_api_key

        key, entry = new_api_key(args.name)
        print(f"API key (give it to the client; it is not stored anywhere): {key}")
        print(f"configuration entry (LAWSPEAKER_API_KEYS or --api-keys; comma-separate several): {entry}")
        return 0
    from lawspeaker.server import devtools

    if args.command == "gen-proto":
        return devtools.gen_proto(check=args.check)
    if args.command == "errors-doc":
        return devtools.errors_doc(check=args.check)
    return devtools.openapi(check=args.check)


def _tls(args: argparse.Namespace) -> ServerTLS | None:
    """The TLS configuration of ``serve``'s flags, its files read and checked (SystemExit: one line)."""
    from lawspeaker.server.tls import ServerTLS, TLSConfigError

    try:
        return ServerTLS.from_flags(args.tls_cert, args.tls_key, args.tls_client_ca)
    except TLSConfigError as err:
        raise SystemExit(str(err)) from None


def _webhooks(args: argparse.Namespace) -> WebhookConfig:
    """The webhook settings of ``serve``'s flags (SystemExit naming a bad flag)."""
    from lawspeaker.sessions import webhooks

    try:
        allow = webhooks.Allowlist.parse(args.webhook_allow)
    except ValueError as err:
        raise SystemExit(f"--webhook-allow / LAWSPEAKER_WEBHOOK_ALLOW: {err}") from None
    if args.webhook_retry_seconds < 0:
        raise SystemExit("--webhook-retry-seconds must not be negative")
    url, secret = args.webhook_url, args.webhook_secret
    if url:
        try:
            webhooks.parse_url(url, allow)  # its host's addresses are checked at every delivery
        except webhooks.WebhookRefused as err:
            raise SystemExit(f"--webhook-url / LAWSPEAKER_WEBHOOK_URL: {err.message}") from None
        if not secret:
            raise SystemExit(
                "--webhook-url needs --webhook-secret (or LAWSPEAKER_WEBHOOK_SECRET): whsec_<base64>"
            )
    if secret and not webhooks.valid_secret(secret):
        raise SystemExit(
            "--webhook-secret / LAWSPEAKER_WEBHOOK_SECRET must be whsec_ and the base64 of at least 16 "
            "random bytes"
        )
    return webhooks.Config(url=url, secret=secret, allow=allow, retry_seconds=args.webhook_retry_seconds)


def _quotas(args: argparse.Namespace) -> tuple[Limits, dict[str, Any]]:
    """The session quotas and store options of ``serve``'s flags (SystemExit naming a bad flag)."""
    from lawspeaker.api.access import Access, parse_api_key_entries, parse_networks
    from lawspeaker.sessions.service import Limits

    for flag in (
        "create_rate",
        "create_burst",
        "lobby_rate",
        "lobby_burst",
        "max_sessions",
        "request_id_ttl",
        "redis_wait_replicas",
        "bot_processes",
        "bot_queue",
    ):
        if getattr(args, flag) < 0:
            raise SystemExit(f"--{flag.replace('_', '-')} must not be negative")
    if args.create_rate and args.create_burst < 1:
        raise SystemExit("--create-burst must be at least 1 while --create-rate is set")
    if args.lobby_rate and args.lobby_burst < 1:
        raise SystemExit("--lobby-burst must be at least 1 while --lobby-rate is set")
    if args.request_id_bytes < 1024:
        raise SystemExit("--request-id-bytes must be at least 1024")
    if args.redis_wait_timeout <= 0:
        raise SystemExit("--redis-wait-timeout must be a positive number of seconds")
    from lawspeaker.sessions.store import check_url

    if args.redis_url:
        try:
            check_url(args.redis_url)  # malformed: one line, before any worker starts
        except StoreConfigError as err:
            raise SystemExit(f"--redis-url: {err}") from None
    try:
        keys, allowances = parse_api_key_entries(args.api_keys)
    except ValueError as err:
        raise SystemExit(f"--api-keys / LAWSPEAKER_API_KEYS: {err}") from None
    for hexdigest, allowance in allowances.items():
        rate = args.create_rate if allowance.per_minute is None else allowance.per_minute
        if rate and allowance.burst is None and args.create_burst < 1:
            raise SystemExit(
                f"--api-keys / LAWSPEAKER_API_KEYS: key {keys[hexdigest]!r} has a rate but no burst, and "
                "--create-burst is 0: give it ';burst=<n>'"
            )
    try:
        proxies = parse_networks(args.trusted_proxies)
    except ValueError as err:
        raise SystemExit(f"--trusted-proxies / LAWSPEAKER_TRUSTED_PROXIES: {err}") from None
    if args.api_keys_for_rules and not keys:
        raise SystemExit("--api-keys-for-rules needs --api-keys (or LAWSPEAKER_API_KEYS)")
    if args.api_keys_optional and not keys:
        raise SystemExit("--api-keys-optional needs --api-keys (or LAWSPEAKER_API_KEYS)")
    if args.api_keys_optional and args.api_keys_for_rules:
        raise SystemExit("--api-keys-optional and --api-keys-for-rules contradict each other: choose one")
    limits = Limits(
        create_per_minute=args.create_rate,
        create_burst=args.create_burst,
        lobby_per_minute=args.lobby_rate,
        lobby_burst=args.lobby_burst,
        max_sessions=args.max_sessions,
        access=Access(keys, args.api_keys_for_rules, proxies, allowances, args.api_keys_optional),
    )
    options: dict[str, Any] = {"request_id_bytes": args.request_id_bytes, "prefix": args.redis_prefix}
    if args.request_id_ttl:
        options["request_id_ttl"] = args.request_id_ttl
    if args.redis_wait_replicas:
        options["wait_replicas"] = args.redis_wait_replicas
        options["wait_timeout"] = args.redis_wait_timeout
    return limits, options


if __name__ == "__main__":
    raise SystemExit(main())
