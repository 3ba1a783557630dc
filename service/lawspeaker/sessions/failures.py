"""What a failure of the Redis client or its transport means for a session call (issue 36).

Every exception the store's Redis calls can raise is one of: an exception class redis-py defines
(:data:`REDIS_ERRORS`, enumerated from ``redis.exceptions`` so that a class a new redis-py adds is
covered too), an error reply of the store's own pipelined connection (``resp.ReplyError``), or a
failure of the network under either (OSError, TimeoutError, ``asyncio.IncompleteReadError``,
hiredis's ProtocolError, and the RuntimeError uvloop raises when a closed transport is written to).
:func:`classify` tells the store what each means; the store answers every one of them as
UNAVAILABLE ``SESSION_STORE_UNAVAILABLE``, never as INTERNAL, and:

* ``expected`` ones (the network, a timeout, Redis saying "not now": full, read-only after a
  failover, loading, busy, a cluster reconfiguring) are the store being unavailable for a while;
* the others mean a bug or a misconfiguration (an ACL refusing a command, a server that became a
  Redis Cluster node, a reply that cannot be read): they are logged, once, with Redis's text;
* ``demoted``: the node reached no longer serves as the primary (``READONLY``, ``MASTERDOWN``,
  ``LOADING``): the store reconnects (``RedisStore._reconnect``);
* ``writes_refused``: Redis refuses writes for now (``OOM`` when full, ``READONLY``): the store
  is degraded (``RedisStore.write_health``);
* ``outcome_unknown``: a write the call carried may have been applied, in whole or in part (a Lua
  script that fails half-way is not rolled back; a reply that cannot be read came after the
  command ran), so the answer must not say that nothing was written.

One more kind is the client's own: an exception of another class (KeyError, AttributeError...)
raised *inside redis-py's code* (:func:`raised_in_client`), such as its cluster client's slot cache
read while a failover rebuilds it (a CI run answered one ListSessionMoves and one CreateWatchTicket
500 INTERNAL that way, during primaries' SIGKILLs). It is the store failing, not the service: it is
answered UNAVAILABLE too, logged once with its traceback, and its outcome is unknown.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

import hiredis
import redis
from redis import exceptions

from lawspeaker.sessions.resp import ReplyError, is_transient

# Every exception class redis-py defines, new ones included.
REDIS_ERRORS: tuple[type[Exception], ...] = tuple(
    value
    for value in vars(exceptions).values()
    if isinstance(value, type) and issubclass(value, Exception) and value.__module__ == exceptions.__name__
)
TRANSPORT_ERRORS: tuple[type[Exception], ...] = (
    OSError,  # ConnectionError, ConnectionResetError, ssl.SSLError, socket errors...
    TimeoutError,
    asyncio.IncompleteReadError,
    EOFError,
    hiredis.HiredisError,
    ReplyError,
)
DEMOTED_CODES = ("READONLY", "MASTERDOWN", "LOADING")
WRITES_REFUSED_CODES = ("OOM", "READONLY", "MASTERDOWN")
# What redis-py raises for those codes (it cuts the code from the text).
_DEMOTED_CLASSES = (exceptions.ReadOnlyError, exceptions.MasterDownError, exceptions.BusyLoadingError)
_WRITES_REFUSED_CLASSES = (exceptions.OutOfMemoryError, exceptions.ReadOnlyError, exceptions.MasterDownError)
# Raised before anything reached Redis, or error replies with which Redis refused to run a command
# at all: an unexpected failure of these wrote nothing.
_NOT_RUN_CLASSES: tuple[type[Exception], ...] = (
    exceptions.DataError,  # a value redis-py cannot encode
    exceptions.ChildDeadlockedError,
    exceptions.AuthenticationError,
    exceptions.AuthorizationError,
    exceptions.NoPermissionError,
    exceptions.NoScriptError,
    exceptions.AskError,  # MovedError too
    exceptions.ClusterCrossSlotError,
    exceptions.CrossSlotTransactionError,
    exceptions.InvalidPipelineStack,
    exceptions.AuthenticationWrongNumberOfArgsError,
    exceptions.ExternalAuthProviderError,
    exceptions.IncorrectPolicyType,
)
_NOT_RUN_CODES = ("MOVED", "ASK", "NOSCRIPT", "NOPERM", "NOAUTH", "WRONGPASS", "CROSSSLOT")
# The failures of the network or of Redis's availability under redis-py.
_EXPECTED_CLASSES: tuple[type[Exception], ...] = (
    OSError,
    TimeoutError,
    EOFError,  # asyncio.IncompleteReadError: the connection closed mid-reply
    exceptions.ConnectionError,
    exceptions.TimeoutError,
    exceptions.ClusterError,  # a cluster client that followed MOVED/ASK/TRYAGAIN as often as it may
    exceptions.RedisClusterException,  # no seed reachable, a slot unserved (not the two below)
)
_BUG_CLASSES: tuple[type[Exception], ...] = (
    exceptions.CrossSlotTransactionError,
    exceptions.InvalidPipelineStack,
)
_MISCONFIGURED_CLASSES: tuple[type[Exception], ...] = (
    exceptions.AuthenticationError,
    exceptions.AuthorizationError,
    exceptions.AuthenticationWrongNumberOfArgsError,
    exceptions.ExternalAuthProviderError,
)


@dataclass(frozen=True, slots=True)
class Failure:
    """What one failed Redis call means (see the module's docstring)."""

    code: str  # what the client's message names: Redis's error code, else the exception's class
    expected: bool
    demoted: bool
    writes_refused: bool
    outcome_unknown: bool
    in_client: bool = False  # an exception of redis-py's own code (:func:`raised_in_client`)


def closed_transport(err: BaseException) -> bool:
    """uvloop's RuntimeError on writing to a transport closed under the call."""
    return isinstance(err, RuntimeError) and "unable to perform operation on" in str(err)


def reply_code(err: BaseException) -> str:
    """The error code an error reply starts with ("READONLY"), or "" when it has none."""
    first = str(err).split(" ", 1)[0]
    return first if first.isalpha() and first.isupper() else ""


_CLIENT_DIR = os.path.dirname(os.path.abspath(redis.__file__)) + os.sep


def raised_in_client(err: BaseException) -> bool:
    """Whether ``err`` was raised by redis-py's own code: the innermost frame of its traceback is in
    the ``redis`` package (not in a callback of the service that redis-py called)."""
    tb = err.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(_CLIENT_DIR)


def classify(err: BaseException) -> Failure | None:
    """What ``err`` means, None when it is not a failure of Redis or its transport (a bug of the
    service, or a LawspeakerError the call raised itself)."""
    closed = closed_transport(err)
    if not closed and not isinstance(err, REDIS_ERRORS + TRANSPORT_ERRORS):
        if isinstance(err, Exception) and raised_in_client(err):  # redis-py's own bug
            return Failure(f"redis-py {type(err).__name__}", False, False, False, True, in_client=True)
        return None
    is_reply = isinstance(err, (ReplyError, exceptions.ResponseError))
    code = reply_code(err) if is_reply else ""
    shown = code if isinstance(err, ReplyError) and code else type(err).__name__
    if closed:
        shown = "ConnectionError"
    demoted = isinstance(err, _DEMOTED_CLASSES) or (is_reply and code in DEMOTED_CODES)
    refused = isinstance(err, _WRITES_REFUSED_CLASSES) or (is_reply and code in WRITES_REFUSED_CODES)
    transient = is_reply and isinstance(err, Exception) and is_transient(err)
    expected = (
        closed
        or demoted
        or transient
        or (
            isinstance(err, _EXPECTED_CLASSES)
            and not isinstance(err, _MISCONFIGURED_CLASSES + _BUG_CLASSES)
            and not is_reply
        )
    )
    if isinstance(err, exceptions.BusyLoadingError):
        expected = True  # a ConnectionError and a reply at once: Redis loading its data
    not_run = isinstance(err, _NOT_RUN_CLASSES) or code in _NOT_RUN_CODES
    return Failure(shown, expected, demoted, refused, not expected and not not_run)
