"""The ``lawspeaker`` command: ``serve``, ``gen-proto`` and ``openapi``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Iterator, Sequence

import uvicorn

log = logging.getLogger("lawspeaker")

GRACE_SECONDS = 5.0
DEFAULT_SESSION_TTL = 86400


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
) -> None:
    """Serve gRPC and HTTP in this event loop until SIGTERM or SIGINT, then shut down gracefully.

    Game sessions live in Redis when ``redis_url`` is given, else in this process (one replica).
    """
    from lawspeaker.api import RulesApi
    from lawspeaker.grpc_server import create_server
    from lawspeaker.rest import create_app
    from lawspeaker.sessions.service import SessionApi
    from lawspeaker.sessions.store import MemoryStore, RedisStore, SessionStore

    api = RulesApi()
    store: SessionStore
    if redis_url:
        store = RedisStore(redis_url, ttl=session_ttl)
        log.info("game sessions in Redis at %s (idle TTL %d s)", store.where(), session_ttl)
    else:
        store = MemoryStore(ttl=session_ttl)
        log.info("game sessions in this process (no --redis-url; idle TTL %d s)", session_ttl)
    sessions = SessionApi(store, api)
    grpc_server, bound_grpc = await create_server(f"{host}:{grpc_port}", api, sessions)
    http = _EmbeddedServer(
        uvicorn.Config(
            create_app(api, sessions, cors_origins),
            host=host,
            port=http_port,
            log_level="info",
            lifespan="on",
            access_log=access_log,
            timeout_graceful_shutdown=int(GRACE_SECONDS),
            http="httptools" if _has("httptools") else "h11",
        )
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    await grpc_server.start()
    http_task = asyncio.create_task(http.serve())
    while not http.started and not http_task.done():
        await asyncio.sleep(0.01)
    if http_task.done():  # uvicorn failed to start (e.g. port in use)
        await grpc_server.stop(0)
        await sessions.close()
        await http_task
        raise SystemExit(1)
    bound_http = http.servers[0].sockets[0].getsockname()[1] if http.servers else http_port
    log.info("lawspeaker serving gRPC on %s:%d and HTTP on %s:%d", host, bound_grpc, host, bound_http)
    print(f"lawspeaker grpc_port={bound_grpc} http_port={bound_http}", flush=True)

    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({stopped, http_task}, return_when=asyncio.FIRST_COMPLETED)
    log.info("lawspeaker shutting down")
    sessions.shutdown()  # ends watch streams
    http.should_exit = True
    await asyncio.gather(grpc_server.stop(GRACE_SECONDS), http_task, return_exceptions=True)
    await sessions.close()
    stopped.cancel()
    log.info("lawspeaker stopped")


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def _origins(value: str) -> tuple[str, ...]:
    return tuple(o.strip() for o in value.split(",") if o.strip())


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lawspeaker", description="Rules as a service, over gRPC and REST.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="serve gRPC and HTTP")
    s.add_argument("--host", default=os.environ.get("LAWSPEAKER_HOST", "0.0.0.0"))
    s.add_argument("--grpc-port", type=int, default=_env_int("LAWSPEAKER_GRPC_PORT", 50051))
    s.add_argument("--http-port", type=int, default=_env_int("LAWSPEAKER_HTTP_PORT", 8080))
    s.add_argument(
        "--access-log",
        action="store_true",
        default=os.environ.get("LAWSPEAKER_ACCESS_LOG", "") not in ("", "0", "false"),
        help="log every HTTP request (env LAWSPEAKER_ACCESS_LOG=1)",
    )
    s.add_argument(
        "--redis-url",
        default=os.environ.get("LAWSPEAKER_REDIS_URL") or None,
        help="keep game sessions in this Redis, shared by every replica, e.g. redis://127.0.0.1:6379/0 "
        "(env LAWSPEAKER_REDIS_URL); without it sessions live in this process",
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
    g = sub.add_parser("gen-proto", help="regenerate service/lawspeaker/v1 from proto/")
    g.add_argument("--check", action="store_true", help="fail if the generated code is stale")
    o = sub.add_parser("openapi", help="write clients/openapi.json")
    o.add_argument("--check", action="store_true", help="fail if clients/openapi.json is stale")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "serve":
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        if args.session_ttl <= 0:
            raise SystemExit("--session-ttl must be a positive number of seconds")
        coro = serve(
            args.host,
            args.grpc_port,
            args.http_port,
            args.access_log,
            args.redis_url,
            args.session_ttl,
            args.cors_origins,
        )
        if _has("uvloop"):
            import uvloop

            uvloop.run(coro)
        else:
            asyncio.run(coro)
        return 0
    from lawspeaker import devtools

    if args.command == "gen-proto":
        return devtools.gen_proto(check=args.check)
    return devtools.openapi(check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
