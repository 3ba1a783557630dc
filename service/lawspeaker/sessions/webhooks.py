"""Webhooks (issue 38), the pure part: which events a written version makes, what the outbox holds,
when a delivery is retried, and which endpoints may be called. No I/O here: the delivery worker,
the signing and the pinned connection are in :mod:`lawspeaker.sessions.delivery`.

A write that makes events carries them in its ``Write.outbox`` (``SessionStore``): the store appends
them to the session's outbox in the same atomic step as the version, so an event exists exactly
when its version was written. Each outbox entry is one version's :class:`Item` list (msgpack), one
item per event and target (the session's own webhook, the server's ``--webhook-url``).

An event's id (``webhook-id``) is a digest of the session, the version, the event type and the
seat: whoever derives it again or delivers it again uses the same id, so a receiver that keeps the
ids it has seen gets each event once. The body is fixed when the version is written (its
``timestamp`` is the version's time); a redelivery signs the same body with the attempt's time.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit

import msgspec

TO_ACT = "seat.to_act"
RUNNING_OUT = "clock.running_out"
CLAIMED = "seat.claimed"
ENDED = "game.ended"
REMATCH = "session.rematch"
EVENT_TYPES = (TO_ACT, RUNNING_OUT, CLAIMED, ENDED, REMATCH)

RUNNING_OUT_SECONDS = 60.0
"""``clock.running_out`` is due this long before a deadline, or a quarter of the move's time when
that is shorter: a reminder that leaves time to move, whatever the clock."""
DEFAULT_RETRY_SECONDS = 3600.0  # --webhook-retry-seconds: how long an event is retried at most
BACKOFF_FIRST_SECONDS = 1.0
BACKOFF_CAP_SECONDS = 300.0
MAX_URL_LENGTH = 2048
SECRET_PREFIX = "whsec_"
SECRET_BYTES = 24

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class Endpoint(Protocol):
    """A session's webhook as its record keeps it (``service.WebhookRecord``)."""

    @property
    def url(self) -> str: ...

    @property
    def secret(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Change:
    """One written version, as the events see it: ``SessionApi`` builds one per write.

    ``to_act``: the seats the server now waits on a person for (empty while the server itself is to
    move: a bot's turn, a chance step it draws; and when the game is over or waits for players);
    ``before_to_act`` the same of the version before (None for a creation). ``claimed``: (seat,
    display name) when this version is a claim; ``ended``: (summary, winners) when it ends the
    game; ``deadline``: (seat, deadline, seconds that move was given) of the clock running after
    it; ``rematch``: the session a rematch of this one made, when this version records it."""

    session: str
    game: str
    rev: int
    at: float  # when the version was written (Unix time): the events' timestamp
    to_act: tuple[int, ...] = ()
    before_to_act: tuple[int, ...] | None = None
    claimed: tuple[int, str] | None = None
    ended: tuple[str, tuple[int, ...]] | None = None
    names: tuple[str, ...] = ()
    deadline: tuple[int, float, float] | None = None
    webhook: Endpoint | None = None
    rematch: str = ""

    def name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else ""


@dataclass(frozen=True, slots=True)
class Event:
    """One event of a version: its id, type, when it is due, and its JSON body."""

    id: str
    type: str
    due: float
    payload: bytes
    rev: int
    only_at_rev: bool = False  # sent only while the session is still at ``rev`` (clock.running_out)


class Item(msgspec.Struct, array_like=True):
    """One delivery in the outbox: an event for one target, and how far its delivery got.

    ``secret`` is the session's webhook secret; a server item (``server``) has none stored: it is
    signed with the delivering replica's ``--webhook-secret``."""

    id: str
    type: str
    payload: bytes
    url: str
    secret: str
    server: bool
    rev: int
    due: float  # the next attempt (Unix time)
    first_due: float  # when it was first due: the retry bound counts from here
    attempts: int = 0
    only_at_rev: bool = False

    @property
    def target(self) -> tuple[str, bool]:
        """What orders deliveries: one target's events go out in the order they were written."""
        return self.url, self.server


_ITEMS = msgspec.msgpack.Decoder(list[Item])
_ENCODE = msgspec.msgpack.Encoder()
_JSON = msgspec.json.Encoder()


# --------------------------------------------------------------------------- configuration


class WebhookRefused(ValueError):
    """A webhook URL the service will not call: ``reason`` is WEBHOOK_URL_INVALID (it cannot be an
    endpoint) or WEBHOOK_HOST_NOT_ALLOWED (its host is, or resolves to, an address of the
    deployment's own networks)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


URL_INVALID = "WEBHOOK_URL_INVALID"
HOST_NOT_ALLOWED = "WEBHOOK_HOST_NOT_ALLOWED"


@dataclass(frozen=True, slots=True)
class Allowlist:
    """``--webhook-allow``: hosts exempt from the address check (by name, or an IP literal) and
    networks whose addresses are (``10.1.2.0/24``; an address alone is its own network). An
    allowed host may also be called over plain ``http://``."""

    names: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()

    @staticmethod
    def parse(text: str) -> Allowlist:
        """``HOST[,HOST...]``; ValueError naming an entry that is neither a host name nor an address."""
        names: set[str] = set()
        networks: list[IPNetwork] = []
        for raw in text.split(","):
            entry = raw.strip().lower()
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
                continue
            except ValueError:
                pass
            host = _hostname(entry)
            if host is None:
                raise ValueError(f"{raw.strip()!r} is neither a host name, an address nor a network")
            names.add(host)
        return Allowlist(frozenset(names), tuple(networks))

    def allows_host(self, host: str) -> bool:
        """Whether ``host`` (a URL's, lower case, an IPv6 literal without brackets) is allowed."""
        host = host.rstrip(".")
        if host in self.names:
            return True
        address = _literal(host)
        return address is not None and self.allows_address(address)

    def allows_address(self, address: IPAddress) -> bool:
        return any(address.version == n.version and address in n for n in self.networks)

    def __bool__(self) -> bool:
        return bool(self.names or self.networks)


@dataclass(frozen=True, slots=True)
class Config:
    """The server's webhook settings (``lawspeaker serve --webhook-*``): its own target (``url``,
    signed with ``secret``) that every session's events go to, the allowlist, how long an event is
    retried, and the time to leave the replica that wrote an event before another delivers it."""

    url: str = ""
    secret: str = ""
    allow: Allowlist = field(default_factory=Allowlist)
    retry_seconds: float = DEFAULT_RETRY_SECONDS


@dataclass(frozen=True, slots=True)
class Target:
    """Where a URL points: its scheme, host (lower case; an IPv6 literal without brackets) and port."""

    scheme: str
    host: str
    port: int


def parse_url(url: str, allow: Allowlist) -> Target:
    """The endpoint of a webhook ``url``, or WebhookRefused: https:// only (http:// for a host the
    allowlist names), a host, no credentials, no fragment; an IP literal must be a public address
    unless allowed. A host name is checked once resolved (:func:`vet`)."""
    if not url:
        raise WebhookRefused(URL_INVALID, "is required: the https:// URL to notify")
    if len(url) > MAX_URL_LENGTH:
        raise WebhookRefused(URL_INVALID, f"is {len(url)} characters long: at most {MAX_URL_LENGTH}")
    if not url.isascii() or any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        raise WebhookRefused(URL_INVALID, "must be an ASCII URL without spaces (IDNA-encode the host)")
    try:
        parts = urlsplit(url)
        port = parts.port
        host = parts.hostname
    except ValueError as err:
        raise WebhookRefused(URL_INVALID, f"is not a URL ({err})") from None
    scheme = parts.scheme.lower()
    if scheme not in ("https", "http"):
        raise WebhookRefused(
            URL_INVALID, f"must be https:// (got {scheme + '://' if scheme else 'no scheme'})"
        )
    if not host:
        raise WebhookRefused(URL_INVALID, "has no host")
    if parts.username is not None or parts.password is not None:
        raise WebhookRefused(
            URL_INVALID, "must not carry credentials: the signature authenticates a delivery"
        )
    if parts.fragment or url.endswith("#"):
        raise WebhookRefused(URL_INVALID, "must not have a fragment")
    if port == 0:
        raise WebhookRefused(URL_INVALID, "has port 0")
    address = _literal(host)
    if address is None and _hostname(host) is None:
        raise WebhookRefused(URL_INVALID, f"has no valid host name ({host!r})")
    allowed = allow.allows_host(host)
    if scheme == "http" and not allowed:
        raise WebhookRefused(
            URL_INVALID, "must be https://: plain http:// only for a host --webhook-allow names"
        )
    if address is not None and not allowed:
        why = forbidden(address)
        if why is not None:
            raise WebhookRefused(HOST_NOT_ALLOWED, f"names a {why} address ({address}), which is refused")
    return Target(scheme, host, port if port is not None else (443 if scheme == "https" else 80))


def vet(host: str, addresses: Sequence[str], allow: Allowlist) -> list[str]:
    """The addresses ``host`` resolved to, once checked: WebhookRefused if there are none or if any is
    not a public address (loopback, private, link-local, multicast, reserved, unspecified, shared,
    documentation, or an IPv4 address inside IPv6 that is one of these), unless the allowlist names
    the host or the address's network. One refused address refuses the host: a name that resolves
    to a public and a private address could be pointed at either."""
    if not addresses:
        raise WebhookRefused(URL_INVALID, f"its host {host!r} resolves to no address")
    out: list[str] = []
    exempt = allow.allows_host(host)
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        if not exempt and not allow.allows_address(address):
            why = forbidden(address)
            if why is not None:
                raise WebhookRefused(
                    HOST_NOT_ALLOWED,
                    f"its host {host!r} resolves to a {why} address ({address}), which is refused "
                    "(the deployment's own networks are not reachable through webhooks)",
                )
        out.append(str(address))
    return out


# Prefixes that carry an IPv4 address in an IPv6 one: checked as that IPv4 address.
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def forbidden(address: IPAddress) -> str | None:
    """Why ``address`` may not be called (``"loopback"``, ``"private"``, ...), None when it is global."""
    if isinstance(address, ipaddress.IPv6Address):
        inner: ipaddress.IPv4Address | None = address.ipv4_mapped or address.sixtofour
        if inner is None and any(address in n for n in _NAT64):
            inner = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if inner is None and address.teredo is not None:
            inner = address.teredo[1]  # the client's address
        if inner is not None:
            why = forbidden(inner)
            return None if why is None else f"{why} (inside IPv6)"
    for why, test in (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
    ):
        if test:
            return why
    return None if address.is_global else "non-global"


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def _hostname(host: str) -> str | None:
    """``host`` if it is a valid DNS name (letters, digits, hyphens, dots; labels of 1-63), else None."""
    name = host.rstrip(".").lower()
    if not name or len(name) > 253:
        return None
    for label in name.split("."):
        if not 0 < len(label) <= 63 or label[0] == "-" or label[-1] == "-":
            return None
        if not all(c.isalnum() or c in "-_" for c in label):
            return None
    return name


def valid_secret(secret: str) -> bool:
    """Whether ``secret`` is ``whsec_`` and the base64 of at least 16 bytes (a signing key)."""
    import base64
    import binascii

    if not secret.startswith(SECRET_PREFIX):
        return False
    text = secret[len(SECRET_PREFIX) :]
    try:
        key = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return len(key) >= 16


def new_secret() -> str:
    """A webhook secret as Standard Webhooks libraries take it: ``whsec_`` and base64 of 24 random bytes."""
    import base64
    import secrets

    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


# --------------------------------------------------------------------------- events


def event_id(session: str, rev: int, kind: str, seat: int | None = None) -> str:
    """The ``webhook-id`` of an event: the same for whoever derives it again (``msg_`` + 32 hex)."""
    text = f"{session}\n{rev}\n{kind}\n{'' if seat is None else seat}"
    return "msg_" + hashlib.sha256(text.encode()).hexdigest()[:32]


def running_out_lead(given: float) -> float:
    """How long before a deadline ``clock.running_out`` is due, for a move given ``given`` seconds."""
    return min(RUNNING_OUT_SECONDS, given / 4)


def events(change: Change) -> list[Event]:
    """The events version ``change.rev`` makes, in the order they are delivered."""
    base = {"session": change.session, "game": change.game, "etag": str(change.rev)}
    out: list[Event] = []

    def add(kind: str, data: dict[str, object], seat: int | None = None, due: float | None = None) -> None:
        payload = {"type": kind, "timestamp": _rfc3339(change.at), "data": {**base, **data}}
        out.append(
            Event(
                event_id(change.session, change.rev, kind, seat),
                kind,
                change.at if due is None else due,
                _JSON.encode(payload),
                change.rev,
                only_at_rev=kind == RUNNING_OUT,
            )
        )

    if change.claimed is not None:
        seat, name = change.claimed
        add(CLAIMED, {"seat": seat, "displayName": name}, seat)
    before = set(change.before_to_act or ())
    for seat in change.to_act:
        if seat in before:
            continue  # still to act: notified when it became so
        data: dict[str, object] = {"seat": seat, "displayName": change.name(seat)}
        if change.deadline is not None and change.deadline[0] == seat:
            data["deadline"] = _rfc3339(change.deadline[1])
        add(TO_ACT, data, seat)
    if change.ended is not None:
        summary, winners = change.ended
        add(
            ENDED,
            {"summary": summary, "winners": [{"seat": s, "displayName": change.name(s)} for s in winners]},
        )
    if change.rematch:
        add(REMATCH, {"rematch": change.rematch})
    if change.deadline is not None and change.ended is None:
        seat, at, given = change.deadline
        lead = running_out_lead(given)
        data = {
            "seat": seat,
            "displayName": change.name(seat),
            "deadline": _rfc3339(at),
            "secondsLeft": round(lead, 3),
        }
        add(RUNNING_OUT, data, seat, due=at - lead)
    return out


def outbox(change: Change, config: Config) -> bytes:
    """What a write of ``change`` appends to the session's outbox: one item per event and target,
    msgpack; b"" when the session has no target or the version makes no event."""
    targets: list[tuple[str, str, bool]] = []
    if change.webhook is not None:
        targets.append((change.webhook.url, change.webhook.secret, False))
    if config.url:
        targets.append((config.url, "", True))
    if not targets:
        return b""
    made = events(change)
    if not made:
        return b""
    items = [
        Item(e.id, e.type, e.payload, url, secret, server, e.rev, e.due, e.due, only_at_rev=e.only_at_rev)
        for e in made
        for url, secret, server in targets
    ]
    return encode(items)


def encode(items: Sequence[Item]) -> bytes:
    return _ENCODE.encode(list(items)) if items else b""


def decode(entry: bytes) -> list[Item]:
    return _ITEMS.decode(entry)


def _rfc3339(at: float) -> str:
    whole = math.floor(at)
    millis = min(999, int((at - whole) * 1000))
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{millis:03d}Z"


# --------------------------------------------------------------------------- retries


def backoff(attempts: int, rng: random.Random | None = None) -> float:
    """Seconds before the next attempt after ``attempts`` failed ones: 1, 2, 4 ... up to 5 minutes,
    each drawn from its upper half (jitter), so that a receiver that comes back is not hit by every
    session's retries at one instant."""
    base = min(BACKOFF_CAP_SECONDS, BACKOFF_FIRST_SECONDS * 2.0 ** max(0, attempts - 1))
    draw = rng.random() if rng is not None else random.random()
    return base / 2 + draw * base / 2


def expires_at(item: Item, retry_seconds: float) -> float:
    """When ``item`` is given up on: its first attempt that fails this late (``retry_seconds`` after
    it was first due) is its last. Every event is tried at least once, one that waited behind an
    earlier event of its target (or for a replica to be up) too."""
    return item.first_due + retry_seconds


def retried(item: Item, now: float, retry_seconds: float, rng: random.Random | None = None) -> Item:
    """``item`` after a failed attempt at ``now``: its next attempt, at the latest when it expires
    (one last try then), the attempt counted."""
    attempts = item.attempts + 1
    due = min(now + backoff(attempts, rng), max(now, expires_at(item, retry_seconds)))
    return msgspec.structs.replace(item, attempts=attempts, due=due)


def obsolete(item: Item, latest_rev: int) -> bool:
    """A ``clock.running_out`` of a version the session has moved on from (a later version is in
    the outbox, or ``latest_rev`` is the session's current one): dropped unsent."""
    return item.only_at_rev and latest_rev > item.rev
