"""Every failure of the Redis client or its transport is a documented error (issue 36 item 5):
UNAVAILABLE with reason SESSION_STORE_UNAVAILABLE, never INTERNAL.

For every exception class redis-py defines (enumerated from ``redis.exceptions``, so a class a new
redis-py adds is covered too), plus the network's (OSError, TimeoutError, ConnectionResetError,
``asyncio.IncompleteReadError``) and uvloop's RuntimeError on writing to a closed transport, the
failure is injected at the transport layer, at every store method that makes a round trip, before
the command goes out ("send") and after its reply was read ("read"), against the real Redis at
127.0.0.1:6379 under a fresh prefix: redis-py's ``AbstractConnection.send_packed_command`` and
``read_response``, and the pipelined connection's ``Multiplexed._send`` (the closed transport: its
asyncio transport's ``write``, which ``resp`` turns into ConnectionError). Then once end to end,
through the real HTTP and gRPC servers: 503 / UNAVAILABLE with that reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import secrets
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, cast

import grpc
import pytest
import redis.backoff
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from redis import exceptions
from redis.asyncio.connection import AbstractConnection
from transport.conftest import run_servers

from lawspeaker.games.core import ErrorCode, LawspeakerError
from lawspeaker.sessions import resp
from lawspeaker.sessions.failures import REDIS_ERRORS, classify
from lawspeaker.sessions.resp import Multiplexed, ReplyError
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import Durability, RedisStore, SessionKey, Write, WriteHealth
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import REDIS_UP, REDIS_URL, Running, delete_prefix

pytestmark = [
    pytest.mark.sessions,
    pytest.mark.skipif(not REDIS_UP, reason=f"no Redis at {REDIS_URL}"),
]
CLOSED_TRANSPORT = (
    "unable to perform operation on <TCPTransport closed=True reading=False 0x7f00>; the handler is closed"
)


def _instance(cls: type[Exception]) -> Exception:
    """One instance of ``cls``, built as redis-py builds it."""
    if issubclass(cls, exceptions.AskError):  # MOVED/ASK: "<slot> <host>:<port>"
        return cls("3999 127.0.0.1:7001")
    try:
        return cls("injected by the test")
    except TypeError:
        wanted = [
            p
            for p in inspect.signature(cls).parameters.values()
            if p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD
        ]
        return cls(*(["injected"] * len(wanted)))


def _in_redis_py() -> Exception:
    """An exception of no Redis class raised by redis-py's own code (a real one: ``key_slot`` given
    what it cannot read), as its cluster client raised a KeyError or AttributeError of its slot
    cache during a failover in CI; re-raised, its traceback still ends inside redis-py."""
    from redis.crc import key_slot

    try:
        key_slot(3999)  # type: ignore[arg-type]
    except AttributeError as err:
        return err
    raise AssertionError("key_slot took an int")


def _errors() -> list[tuple[str, Callable[[], Exception]]]:
    found: list[tuple[str, Callable[[], Exception]]] = [
        (f"redis.{cls.__name__}", functools.partial(_instance, cls)) for cls in REDIS_ERRORS
    ]
    found += [
        ("OSError", lambda: OSError(113, "No route to host")),
        ("TimeoutError", lambda: TimeoutError("Redis did not answer in time")),
        ("ConnectionResetError", lambda: ConnectionResetError(104, "Connection reset by peer")),
        ("IncompleteReadError", lambda: asyncio.IncompleteReadError(b"$12\r\nhal", 17)),
        (
            "ReplyError-WRONGTYPE",
            lambda: ReplyError("WRONGTYPE Operation against a key holding the wrong kind"),
        ),
        ("ReplyError-READONLY", lambda: ReplyError("READONLY You can't write against a read only replica.")),
        ("RuntimeError-closed-transport", lambda: RuntimeError(CLOSED_TRANSPORT)),
        ("AttributeError-in-redis-py", _in_redis_py),
    ]
    return found


ERRORS = _errors()


def test_every_exception_class_of_redis_py_is_covered() -> None:
    """The list above is redis-py's own, not a copy: a class a new redis-py adds is in it."""
    defined = {
        name
        for name, value in vars(exceptions).items()
        if isinstance(value, type) and issubclass(value, Exception) and value.__module__ == "redis.exceptions"
    }
    assert {f"redis.{name}" for name in defined} <= {name for name, _ in ERRORS}
    assert len(defined) >= 30  # redis-py 8.1 defines 37


def test_an_exception_of_the_services_own_code_is_not_a_store_failure() -> None:
    """Only redis-py's own code makes a KeyError a failure of the store: one the service raises
    (through a callback redis-py called, too) is its bug, answered INTERNAL and logged."""
    from lawspeaker.sessions.failures import raised_in_client

    try:
        {}["record"]
    except KeyError as err:
        assert classify(err) is None and not raised_in_client(err)
    got = classify(_in_redis_py())
    assert got is not None and got.in_client and got.outcome_unknown and not got.expected
    assert got.code == "redis-py AttributeError"


class _ClosedTransport:
    """A transport as uvloop's is once closed under a call: ``write`` raises RuntimeError."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def write(self, data: bytes) -> None:
        raise RuntimeError(CLOSED_TRANSPORT)

    def is_closing(self) -> bool:
        return False  # closed under the call: not yet seen as closing

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


@contextlib.contextmanager
def injected(
    monkeypatch: pytest.MonkeyPatch, make: Callable[[], Exception], phase: str
) -> Iterator[list[str]]:
    """``make()`` raised by every Redis round trip: before sending ("send") or after the reply was
    read ("read", so the connection is left in order, as after a real error reply). Yields the
    layers it was raised at, to check that each call site met it."""
    raised: list[str] = []
    with monkeypatch.context() as patch:
        original_read = AbstractConnection.read_response
        original_send = Multiplexed._send

        async def send_packed(self: Any, *args: Any, **kwargs: Any) -> None:
            raised.append("redis-py")
            raise make()

        async def read(self: Any, *args: Any, **kwargs: Any) -> Any:
            await original_read(self, *args, **kwargs)
            raised.append("redis-py")
            raise make()

        async def multiplexed(self: Any, proto: Any, args: Any, asking: bool = False) -> Any:
            raised.append("resp")
            if str(make()) == CLOSED_TRANSPORT:  # the real path: resp turns it into ConnectionError
                if not isinstance(proto.transport, _ClosedTransport):
                    proto.transport = _ClosedTransport(proto.transport)
                return await original_send(self, proto, args, asking)
            if phase == "read":
                await original_send(self, proto, args, asking)
            raise make()

        if phase == "send":
            patch.setattr(AbstractConnection, "send_packed_command", send_packed)
        else:
            patch.setattr(AbstractConnection, "read_response", read)
        patch.setattr(Multiplexed, "_send", multiplexed)
        yield raised


Call = Callable[[RedisStore, RedisStore, SessionKey], Awaitable[Any]]


async def _subscribe(store: RedisStore, waiting: RedisStore, key: SessionKey) -> None:
    async with store.subscribe(key) as updates:
        await asyncio.wait_for(anext(updates), 0.2)


SITES: dict[str, Call] = {
    "take": lambda s, w, k: s.take("create:test", 60, 5),
    "admit": lambda s, w, k: s.admit(k, 0),
    "unadmit": lambda s, w, k: s.unadmit(k),
    "give_back": lambda s, w, k: s.give_back("create:test", 60),
    "live_sessions": lambda s, w, k: s.live_sessions(),
    "touch": lambda s, w, k: s.touch([k]),
    "durability": lambda s, w, k: s.durability(),
    "write_health": lambda s, w, k: s.write_health(),
    "create": lambda s, w, k: s.create(k, b"record"),
    "create-wait": lambda s, w, k: w.create(k, b"record"),
    "load": lambda s, w, k: s.load(k, b"12345678"),
    "write": lambda s, w, k: s.write(k, Write(expected_rev=1, data=b"next", push=b"move")),
    "write-wait": lambda s, w, k: w.write(k, Write(expected_rev=1, data=b"next", push=b"move")),
    "confirm_replicated": lambda s, w, k: w.confirm_replicated(k),
    "read_log": lambda s, w, k: s.read_log(k, 0, 10),
    "put_ticket": lambda s, w, k: s.put_ticket(k, b"t" * 32, 0, 30),
    "take_ticket": lambda s, w, k: s.take_ticket(k, b"t" * 32),
    "delete": lambda s, w, k: s.delete(k),
    "subscribe": _subscribe,
}


def _allowed(site: str, got: Any, err: Exception) -> bool:
    """The documented answers that are not an error: durability unknown when Redis refuses CONFIG
    (renamed or refused on managed Redis), and the write probe saying writes are refused."""
    failure = classify(err)
    assert failure is not None, err
    reply = isinstance(err, (exceptions.ResponseError, ReplyError))
    if site == "durability" and isinstance(got, Durability):
        return reply and not failure.expected and got.persistence == "unknown"
    if site == "write_health" and isinstance(got, WriteHealth):
        return reply and failure.writes_refused and not got.writable
    return False


@pytest.mark.parametrize("phase", ["send", "read"])
@pytest.mark.parametrize(("error", "make"), ERRORS, ids=[name for name, _ in ERRORS])
def test_every_failure_at_every_call_site_is_unavailable(
    error: str, make: Callable[[], Exception], phase: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # redis-py retries a lost connection (three times, with a random backoff of up to seconds): at once here
    monkeypatch.setattr(redis.backoff.ExponentialWithJitterBackoff, "compute", lambda self, failures: 0.0)
    prefix = f"lawspeaker-test-{secrets.token_hex(6)}"

    async def body() -> None:
        store = RedisStore(REDIS_URL, prefix=prefix, timeout=0.5)
        # The WAIT path (--redis-wait-replicas): this Redis has no replica, so its writes are refused
        # as not replicated; failing earlier, they must be UNAVAILABLE like the rest.
        waiting = RedisStore(REDIS_URL, prefix=prefix, timeout=0.5, wait_replicas=1, wait_timeout=0.01)
        key = SessionKey(f"valhalla.{secrets.token_hex(6)}", "test")
        try:
            await store.create(key, b"record")  # what the calls below find, connections warmed up
            await store.load(key)
            await store.read_log(key, 0, 1)
            wrong: list[str] = []
            for site, call in SITES.items():
                with injected(monkeypatch, make, phase) as raised:
                    try:
                        got: Any = await asyncio.wait_for(call(store, waiting, key), 5)
                    except Exception as caught:  # what the test looks at
                        got = caught
                if not raised:
                    wrong.append(f"{site}: made no round trip that met the failure")
                ok = (
                    isinstance(got, LawspeakerError)
                    and got.code is ErrorCode.UNAVAILABLE
                    and got.reason == "SESSION_STORE_UNAVAILABLE"
                ) or _allowed(site, got, make())
                if not ok:
                    wrong.append(f"{site}: {type(got).__name__}: {str(got)[:160]}")
            assert not wrong, f"{error} ({phase}) was not UNAVAILABLE at: " + "; ".join(wrong)
            # The store works again once Redis does.
            again = SessionKey(f"valhalla.{secrets.token_hex(6)}", "test")
            assert await store.create(again, b"record") == 1
            loaded = await store.load(again)
            assert loaded is not None and loaded.data == b"record"
        finally:
            await store.close()
            await waiting.close()

    try:
        asyncio.run(body())
    finally:
        delete_prefix(prefix)


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("InvalidResponse", lambda: exceptions.InvalidResponse("Protocol Error: b'?'")),
        ("ReplyError-ERR", lambda: ReplyError("ERR Error running script (call to f_1234): @user_script:7")),
        ("RuntimeError-closed-transport", lambda: RuntimeError(CLOSED_TRANSPORT)),
        ("ConnectionResetError", lambda: ConnectionResetError(104, "Connection reset by peer")),
        ("AttributeError-in-redis-py", _in_redis_py),
    ],
)
def test_through_the_servers_a_store_failure_is_503_and_grpc_unavailable_never_500(
    name: str, make: Callable[[], Exception], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis.backoff.ExponentialWithJitterBackoff, "compute", lambda self, failures: 0.0)
    prefix = f"lawspeaker-test-{secrets.token_hex(6)}"
    try:
        with run_servers(sessions=lambda: SessionApi(RedisStore(REDIS_URL, prefix=prefix))) as servers:
            r = Running(servers)
            try:
                made = r.http.post("/v1/sessions", json={"game": "valhalla", "players": 2})
                assert made.status_code == 200, made.text
                session = made.json()["session"]["session"]
                with injected(monkeypatch, make, "send"):
                    got = r.http.get(f"/v1/sessions/{session}")
                    assert got.status_code == 503, got.text
                    problem = json.loads(got.text)
                    assert problem["reason"] == "SESSION_STORE_UNAVAILABLE", problem
                    created = r.http.post("/v1/sessions", json={"game": "valhalla", "players": 2})
                    assert created.status_code == 503, created.text
                    with pytest.raises(grpc.RpcError) as caught:
                        r.sessions.GetSession(spb.GetSessionRequest(session=session), timeout=10)
                    assert caught.value.code() is grpc.StatusCode.UNAVAILABLE, caught.value
                    status = rpc_status.from_call(cast(grpc.Call, caught.value))
                    assert status is not None
                    reasons = []
                    for detail in status.details:
                        info = error_details_pb2.ErrorInfo()
                        if detail.Unpack(info):
                            reasons.append(info.reason)
                    assert reasons == ["SESSION_STORE_UNAVAILABLE"]
                assert r.http.get(f"/v1/sessions/{session}").status_code == 200  # and back
            finally:
                r.close()
    finally:
        delete_prefix(prefix)


def test_resp_turns_a_write_to_a_closed_transport_into_connection_error() -> None:
    """The known hole: ``RuntimeError: unable to perform operation on <TCPTransport closed=True>``
    from ``Multiplexed._send`` when the transport was closed under the call (uvloop)."""

    async def body() -> None:
        connection = Multiplexed(REDIS_URL, 1.0)
        assert await connection.call("PING") == b"PONG"
        proto = connection._proto
        assert proto is not None
        proto.transport = _ClosedTransport(proto.transport)  # type: ignore[assignment]
        with pytest.raises(ConnectionError):
            await connection.call("PING")
        assert proto.closed and not proto.waiters  # no call left waiting for a reply
        assert await connection.call("PING") == b"PONG"  # the next call connects again
        await connection.close()

    asyncio.run(body())


def test_retired_connection_answers_its_calls_then_closes() -> None:
    """``Multiplexed.retire`` (a demoted primary): the calls in flight get their replies, the next
    call goes over a new connection."""

    async def body() -> None:
        connection = Multiplexed(REDIS_URL, 1.0)
        assert await connection.call("PING") == b"PONG"
        old = connection._proto
        assert old is not None
        pending = [asyncio.ensure_future(connection.call("ECHO", str(i))) for i in range(20)]
        await asyncio.sleep(0)  # written on the old connection
        connection.retire()
        assert await connection.call("PING") == b"PONG"
        assert [await p for p in pending] == [str(i).encode() for i in range(20)]
        assert connection._proto is not old and old.closed
        await connection.close()

    asyncio.run(body())


assert resp.TRANSIENT_PREFIXES  # the replies that mean "not now" (is_transient)
