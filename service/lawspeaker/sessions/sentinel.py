"""The session store behind Redis Sentinel: URL form, discovery of the primary, start-up checks.

``--redis-url redis+sentinel://[user:password@]host:port[,host:port...]/<master-name>[/<db>][?options]``
names the Sentinels (each as host:port; any one that answers will do) and the name they monitor
the primary under (``sentinel monitor <master-name> ...``); a database number may follow the name
(``/mymaster/2``, default 0). That is the database's only spelling: a ``db=`` option is refused, so
that two spellings cannot disagree.

- The credentials before ``@`` are the data nodes' (primary and replicas: AUTH on every connection
  to them), as in a ``redis://`` URL. The Sentinels often have none, or their own
  (``requirepass`` in sentinel.conf): the options ``sentinel_username=`` and ``sentinel_password=``
  give those; without them the Sentinels are reached with no credentials.
- ``rediss+sentinel://`` speaks TLS to the data nodes, verified as ``rediss://`` is, with the same
  ``ssl_*`` options (``resp.tls_context``), and to the Sentinels too, with the same options (a
  deployment that turns on TLS turns it on for its Sentinels, which share the nodes' ``tls-*``
  settings); ``sentinel_ssl=no`` reaches the Sentinels in clear when only the data nodes speak TLS.
  The data nodes' certificates must name the address the Sentinels announce (an IP address unless
  ``sentinel announce-hostnames yes``), since that is the host name checked.
- Every other option is the data nodes' own, as in a ``redis://`` URL.

Discovery: the store's redis-py clients are ``Sentinel(...).master_for(name)`` clients of
redis-py's ``redis.asyncio.sentinel``, whose pools ask the Sentinels for the primary's address on
every new connection; the pipelined connection of the hot path (``resp.Multiplexed``) asks the same
on each (re)connect (:func:`locator`). The asking is :class:`NewestSentinel`'s: every Sentinel at
once, the answer of the newest configuration epoch believed (redis-py's own would believe the first
Sentinel that looks sure, which may not have heard of the last failover yet). Every connection, both
kinds, checks ``ROLE`` before it is used (:func:`primary_only`, ``resp``): a stale answer, or a
primary demoted since, fails the connect with a ConnectionError, and a READONLY reply later closes
it, so nothing is read from a replica (which may be empty, just restarted) or written to one. A
pooled connection whose primary died fails its next use and reconnects through discovery.

Nothing retries behind the caller's back: while the primary is down every call answers UNAVAILABLE
at once (connection refused, then no primary while the Sentinels fail over), and the first connect
after the promotion goes to the new primary. The Sentinel clients are built with no retries either,
so a Sentinel that is down costs one refused connection, not redis-py's default of ten tries with
backoff. Watch streams on the dead primary end with UNAVAILABLE (``Watchers``); watching again
subscribes on the new one.

The start-up check (:func:`misconfigured`) refuses, in one line, Sentinels that do not know the
master name and hosts that answer but are not Sentinels (or refuse the Sentinel credentials); when
no Sentinel answers at all, the service starts and answers UNAVAILABLE until one does, as with a
``redis://`` URL whose Redis is down. The ACL user of the data nodes needs ``ROLE`` besides what a
``redis://`` URL's needs (without it the pipelined connection cannot check the node it found, and
relies on READONLY replies alone).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from redis.asyncio.sentinel import MasterNotFoundError, Sentinel

from lawspeaker.sessions.addresses import host_ports
from lawspeaker.sessions.resp import Locate

log = logging.getLogger("lawspeaker.sessions")

SCHEMES = {"redis+sentinel": "redis", "rediss+sentinel": "rediss"}
# The options that are the Sentinels' own (every other option is the data nodes').
SENTINEL_OPTIONS = ("sentinel_username", "sentinel_password", "sentinel_ssl")
_YES, _NO = ("1", "yes", "true", "on"), ("0", "no", "false", "off")


def is_sentinel_url(url: str) -> bool:
    return urlsplit(url).scheme in SCHEMES


@dataclass(frozen=True, slots=True)
class SentinelUrl:
    """A parsed ``redis+sentinel://`` URL."""

    sentinels: tuple[tuple[str, int], ...]  # (host, port) of each Sentinel, in the URL's order
    master: str  # the name the Sentinels monitor the primary under
    db: int
    # The data nodes as a plain URL (credentials, database and their options), its host and port
    # the first Sentinel's: a placeholder, replaced by the primary's address on each connect.
    node_url: str
    sentinel_username: str | None = None
    sentinel_password: str | None = None
    sentinel_tls: bool = False

    @property
    def tls(self) -> bool:
        """TLS to the data nodes."""
        return self.node_url.startswith("rediss:")

    def where(self) -> str:
        """The master name and the Sentinels, for the service's own logs."""
        hosts = ",".join(hostport(h, p) for h, p in self.sentinels)
        db = f" (database {self.db})" if self.db else ""
        if self.tls:
            tls = " over TLS" if self.sentinel_tls else " over TLS (to the Sentinels in clear)"
        else:
            tls = ""
        return f"Redis Sentinel master {self.master!r}{db} via Sentinels {hosts}{tls}"


def hostport(host: str, port: int) -> str:
    """``host:port``, an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parse_sentinel_url(url: str) -> SentinelUrl:
    """The parts of a ``redis+sentinel://`` or ``rediss+sentinel://`` URL; ValueError (one line,
    saying what is wrong) when it is malformed."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"not a Sentinel URL: {url!r}")
    userinfo, _, hosts = parts.netloc.rpartition("@")
    sentinels = host_ports(hosts, "a Sentinel URL names its Sentinels")
    names = [unquote(p) for p in parts.path.split("/")[1:]]
    if names and not names[-1] and len(names) > 1:
        names.pop()  # a trailing slash
    if not names or not names[0]:
        raise ValueError(
            f"a Sentinel URL names the master after the Sentinels: {parts.scheme}://host:port/<master-name>"
        )
    if len(names) > 2 or (len(names) == 2 and not names[1].isdigit()):
        raise ValueError(
            f"after the master name comes the database number only: /{names[0]}/<db> (got {parts.path!r})"
        )
    master, db = names[0], int(names[1]) if len(names) == 2 else 0
    own: dict[str, str] = {}
    kept: list[str] = []
    for pair in parts.query.split("&") if parts.query else []:
        name, _, value = pair.partition("=")
        name = unquote(name)
        if name == "db":
            raise ValueError(f"a Sentinel URL gives the database after the master name: /{master}/<db>")
        if name.startswith("sentinel_"):
            if name not in SENTINEL_OPTIONS:
                raise ValueError(
                    f"unknown option {name!r} (the Sentinels' own: {', '.join(SENTINEL_OPTIONS)})"
                )
            own[name] = unquote(value)
        else:
            kept.append(pair)
    tls = SCHEMES[parts.scheme] == "rediss"
    sentinel_tls = tls
    if "sentinel_ssl" in own:
        flag = own["sentinel_ssl"].lower()
        if flag not in _YES + _NO:
            raise ValueError(f"sentinel_ssl is yes or no (got {own['sentinel_ssl']!r})")
        sentinel_tls = flag in _YES
        if sentinel_tls and not tls:
            raise ValueError(
                "sentinel_ssl=yes needs rediss+sentinel:// (its ssl_* options verify the Sentinels)"
            )
    netloc = hostport(*sentinels[0])
    if userinfo:
        netloc = f"{userinfo}@{netloc}"
    node_url = f"{SCHEMES[parts.scheme]}://{netloc}/{db}"
    if kept:
        node_url += "?" + "&".join(kept)
    return SentinelUrl(
        tuple(sentinels),
        master,
        db,
        node_url,
        own.get("sentinel_username") or None,
        own.get("sentinel_password") or None,
        sentinel_tls,
    )


def sentinel_url(
    sentinels: list[tuple[str, int]], master: str, db: int = 0, tls: bool = False, **options: str
) -> str:
    """The URL of ``sentinels`` and ``master`` (for tests and tools): :func:`parse_sentinel_url`'s
    inverse."""
    scheme = "rediss+sentinel" if tls else "redis+sentinel"
    hosts = ",".join(hostport(h, p) for h, p in sentinels)
    path = f"/{quote(master, safe='')}" + (f"/{db}" if db else "")
    query = "&".join(f"{k}={quote(v, safe='')}" for k, v in options.items())
    return f"{scheme}://{hosts}{path}" + (f"?{query}" if query else "")


def node_options(parsed: SentinelUrl) -> dict[str, Any]:
    """The data nodes' connection options from the URL (credentials, database, TLS, the rest of
    its options) as ``master_for`` takes them: no host or port (the Sentinels say), TLS as
    ``ssl=True`` (its pool then makes TLS connections) with the ``ssl_*`` options."""
    from redis.asyncio.connection import SSLConnection, parse_url

    options: dict[str, Any] = dict(parse_url(parsed.node_url))
    options.pop("host", None)
    options.pop("port", None)
    if options.pop("connection_class", None) is SSLConnection:
        options["ssl"] = True
    return options


def sentinel_options(parsed: SentinelUrl, timeout: float, **extra: Any) -> dict[str, Any]:
    """How the Sentinels are reached (redis-py's ``sentinel_kwargs``): ``timeout`` to connect and
    to answer, no retries (a Sentinel down is skipped at once), their own credentials, and TLS with
    the data nodes' ``ssl_*`` options when the URL says so."""
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    options: dict[str, Any] = {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "retry": Retry(NoBackoff(), 0),
        **extra,
    }
    if parsed.sentinel_username:
        options["username"] = parsed.sentinel_username
    if parsed.sentinel_password:
        options["password"] = parsed.sentinel_password
    if parsed.sentinel_tls:
        options["ssl"] = True
        options.update({k: v for k, v in node_options(parsed).items() if k.startswith("ssl_")})
    return options


def sentinel_for(parsed: SentinelUrl, timeout: float, **extra: Any) -> Any:
    """A redis-py asyncio ``Sentinel`` over the URL's Sentinels (connected on first use) that
    believes the newest configuration (:class:`NewestSentinel`); ``extra`` goes to each Sentinel's
    client (e.g. maintenance notifications off)."""
    make: Any = NewestSentinel  # redis-py's Sentinel is untyped
    return make(list(parsed.sentinels), sentinel_kwargs=sentinel_options(parsed, timeout, **extra))


# Once most Sentinels have answered and one named a primary, the rest get this long to answer too.
ANSWER_GRACE = 0.05


class NewestSentinel(Sentinel):
    """redis-py's ``Sentinel``, but ``discover_master`` asks every Sentinel at once, each for the
    address it advertises (``SENTINEL get-master-addr-by-name``) and its state of the master
    (``SENTINEL MASTER``), and believes the answer with the highest configuration epoch, rather than
    the first Sentinel's that looks valid (redis-py asks ``SENTINEL MASTERS`` one Sentinel after
    another).

    A Sentinel that has not yet heard of a failover (they learn it from each other's hello messages,
    every 2 s) still names the old primary, and redis-py would keep asking it first; once the old
    primary is back as a replica, or cut off from the others with a Sentinel beside it, that answer
    looks valid (up, not down). The failover's epoch is higher: whoever knows of it wins. The
    advertised address is the promoted replica's as soon as it has taken the promotion, while the
    failover still reconfigures the other replicas (up to seconds before the switch), and the new
    epoch is already the master's then. An address that is the master's own counts only while the
    master is not seen down (redis-py's ``check_master_state``). A Sentinel that does not answer
    holds discovery up only until most have answered and ANSWER_GRACE more.
    """

    async def discover_master(self, service_name: str) -> tuple[str, int]:
        loop = asyncio.get_running_loop()
        asked = [asyncio.ensure_future(self._ask(one, service_name)) for one in self.sentinels]
        pending: set[asyncio.Future[Any]] = set(asked)
        majority, grace_until = len(asked) // 2 + 1, None
        try:
            while pending:
                wait = None if grace_until is None else max(0.0, grace_until - loop.time())
                _, pending = await asyncio.wait(pending, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
                if grace_until is not None and loop.time() >= grace_until:
                    break
                answered = len(asked) - len(pending)
                if grace_until is None and answered >= majority and any(map(_named, asked)):
                    grace_until = loop.time() + ANSWER_GRACE
        finally:
            for task in pending:
                task.cancel()
        best: tuple[int, int, str, int] | None = None  # (epoch, -place, host, port)
        errors = []
        for place, task in enumerate(asked):
            named = _named(task)
            if named is None:
                if task.done() and not task.cancelled() and task.exception() is not None:
                    errors.append(f"{self.sentinels[place]} - {task.exception()!r}")
                continue
            found = (named[0], -place, named[1], named[2])
            if best is None or found[:2] > best[:2]:
                best = found
        if best is None:
            why = f" : {', '.join(errors)}" if errors else ""
            raise MasterNotFoundError(f"No master found for {service_name!r}{why}")
        return best[2], best[3]

    async def _ask(self, one: Any, service_name: str) -> tuple[int, str, int] | None:
        """What one Sentinel says: (configuration epoch, host, port) of the primary, or None when it
        names none it stands by (unknown master name, or the master seen down and no promotion yet)."""
        from redis import exceptions

        async with one.pipeline(transaction=False) as pipe:
            pipe.sentinel_get_master_addr_by_name(service_name)
            pipe.sentinel_master(service_name)
            try:
                address, state = await pipe.execute()
            except exceptions.ResponseError:  # "No such master with that name"
                return None
        if not address or not state:
            return None
        host, port = str_of(address[0]), int(address[1])
        own = (host, port) == (str_of(state["ip"]), int(state["port"]))
        if own and not self.check_master_state(state, service_name):
            return None
        return int(state.get("config-epoch", 0)), host, port


def _named(task: asyncio.Future[Any]) -> tuple[int, str, int] | None:
    """A finished ``NewestSentinel._ask``'s answer; None while pending, or if it failed."""
    if not task.done() or task.cancelled() or task.exception() is not None:
        return None
    answer: tuple[int, str, int] | None = task.result()
    return answer


def master_client(sentinel: Any, parsed: SentinelUrl, **options: Any) -> Any:
    """A redis-py client of the primary, found through ``sentinel`` on each new connection and
    checked with ``ROLE`` (:func:`primary_only`); ``options`` as ``Redis.from_url`` takes them, the
    URL's own options winning as there."""
    return sentinel.master_for(
        parsed.master, **{**options, **node_options(parsed), "redis_connect_func": primary_only}
    )


async def primary_only(connection: Any) -> None:
    """A redis-py connection's set-up (AUTH, SELECT, ...) and then ``ROLE``: redis-py's
    ConnectionError (the pool drops the connection, the call answers UNAVAILABLE) unless the node
    is a master. Without it, a Sentinel's stale answer (one that has not yet heard of a failover,
    while the old primary is back as a replica) would have reads served by a replica that may be
    still empty, answering "no such session" for a live one. An ACL that refuses ROLE (NOPERM)
    passes: a replica still refuses writes (READONLY, which disconnects)."""
    from redis import exceptions

    await connection.on_connect()
    await connection.send_command("ROLE")
    try:
        role = await connection.read_response()
    except exceptions.NoPermissionError:
        return
    said = str_of(role[0]) if isinstance(role, list) and role else repr(role)
    if said != "master":
        raise exceptions.ConnectionError(
            f"Redis at {connection.host}:{connection.port} is not the primary (ROLE: {said}); the "
            "Sentinels are asked again on the next connect"
        )


def str_of(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def locator(sentinel: Any, master: str) -> Locate:
    """``resp.Multiplexed``'s ``locate``: the primary's (host, port) as the Sentinels say now
    (redis-py's ``MasterNotFoundError``, a ConnectionError, when none names one)."""

    async def locate() -> tuple[str, int]:
        host, port = await sentinel.discover_master(master)
        return str_of(host), int(port)

    return locate


async def misconfigured(sentinel: Any, parsed: SentinelUrl, timeout: float) -> str | None:
    """What makes the URL unworkable, in one line, or None: asks every Sentinel
    ``SENTINEL get-master-addr-by-name``. Refused: a host that answers with an error (not a
    Sentinel, or it refuses the credentials), or a master name that every Sentinel that answers
    does not know. No Sentinel answering is not refused: the service starts and answers
    UNAVAILABLE until one does (the store's own check says so)."""
    from redis import exceptions

    async def ask(client: Any) -> Any:
        try:
            return await asyncio.wait_for(client.sentinel_get_master_addr_by_name(parsed.master), timeout)
        except (exceptions.AuthenticationError, exceptions.AuthorizationError) as err:
            return exceptions.ResponseError(str(err) or type(err).__name__)
        except (exceptions.ConnectionError, exceptions.TimeoutError, TimeoutError, OSError) as err:
            return err  # not answering
        except exceptions.ResponseError as err:
            return err

    answers = await asyncio.gather(*(ask(client) for client in sentinel.sentinels))
    named = [hostport(h, p) for h, p in parsed.sentinels]
    known: list[str] = []
    unknown: list[str] = []
    for where, answer in zip(named, answers, strict=True):
        if isinstance(answer, exceptions.ResponseError):
            text = (
                str(answer).splitlines()[0].split(", with args")[0] if str(answer) else type(answer).__name__
            )
            if "unknown command" in text.lower():
                return f"{where} is not a Redis Sentinel (SENTINEL: {text}): list the Sentinels' host:port"
            return (
                f"Sentinel {where} refused SENTINEL get-master-addr-by-name ({text}): check "
                "sentinel_username= and sentinel_password= in the URL"
            )
        if isinstance(answer, BaseException):
            continue  # not answering
        if answer:
            known.append(where)
        else:
            unknown.append(where)
    if not known and unknown:
        return (
            f"the Sentinels know no master named {parsed.master!r} (SENTINEL get-master-addr-by-name "
            f"answered nil on {', '.join(unknown)}): the name is the one in 'sentinel monitor <name> ...'"
        )
    if unknown:
        log.warning(
            "Sentinels %s know no master named %r (the others do): they take no part in its failovers",
            ", ".join(unknown),
            parsed.master,
        )
    return None
