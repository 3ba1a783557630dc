"""Who is calling: optional API keys and the client address quotas are counted by.

- **API keys** are configured as SHA-256 digests only (``LAWSPEAKER_API_KEYS`` or ``--api-keys``:
  comma-separated ``name=sha256:<64 hex>`` entries, the name optional), so the configuration holds
  nothing a caller could present. ``lawspeaker api-key`` makes a key and its entry. An entry may
  give its key an allowance of its own for creating sessions, ``;rate=<per minute>`` and/or
  ``;burst=<at once>`` (``loadtest=sha256:<hex>;rate=6000;burst=200``): what it leaves out is the
  server's ``--create-rate``/``--create-burst``, and ``rate=0`` is no limit. A client sends its key
  as the ``X-Api-Key`` header (HTTP) or ``x-api-key`` metadata (gRPC). When keys are configured,
  creating a session needs one (unless ``--api-keys-optional``: then a key is checked when sent and
  brings its allowance, and a client without one is counted by its address); with
  ``--api-keys-for-rules`` the stateless RulesService RPCs need one too. Seat tokens
  (``Authorization: Bearer``) are unrelated: they say which seat of a session acts.
- **The client** a quota is counted for is its API key when it sent one, else its address: the
  peer address, or, when the peer is one of ``--trusted-proxies``, the address that proxy says it
  forwarded for (the right-most ``X-Forwarded-For`` entry that is not itself a trusted proxy).

The transports identify the caller of CreateSession and put it in :data:`CALLER` for the call;
the session API reads it there. Nothing here does I/O.
"""

from __future__ import annotations

import contextvars
import hashlib
import hmac
import ipaddress
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from lawspeaker.games.core import ErrorCode, FieldViolation, LawspeakerError

API_KEY_HEADER = "x-api-key"
FORWARDED_FOR = "x-forwarded-for"
RULES_RPC = "/lawspeaker.v1.RulesService/"  # the path prefix of every RulesService call (gRPC, Connect)
_ENTRY = re.compile(r"^(?:(?P<name>[A-Za-z0-9_.@-]{1,64})=)?sha256:(?P<digest>[0-9a-fA-F]{64})$")
_OPTION = re.compile(r"^(?P<option>[a-z]+)=(?P<value>\S*)$")
MAX_KEY_RATE = 1_000_000.0  # new sessions a minute: more is a typo, not an allowance
MAX_KEY_BURST = 1_000_000

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class Allowance:
    """An API key's own quota on creating sessions; None takes the server's (``--create-rate``,
    ``--create-burst``). ``per_minute`` 0 is no limit, as for the flag."""

    per_minute: float | None = None
    burst: int | None = None


@dataclass(frozen=True, slots=True)
class Caller:
    """One client, as quotas count it: ``quota_key`` is ``key:<name>`` or ``ip:<address>``."""

    quota_key: str
    api_key: str | None = None  # the name of the API key it presented, if any
    allowance: Allowance | None = None  # that key's own quota, if its entry gives one


@dataclass(frozen=True, slots=True)
class RateLimit:
    """One quota policy's state after a call took from it (the IETF RateLimit header fields):
    ``limit`` requests a ``window`` of seconds, ``remaining`` of them now, and the seconds until all
    are available again (``reset``). ``docs/quotas.md`` says how a GCRA maps to these."""

    policy: str
    limit: int
    window: int
    remaining: int
    reset: int

    def headers(self) -> dict[str, str]:
        """``RateLimit-Policy`` and ``RateLimit`` (draft-ietf-httpapi-ratelimit-headers, as structured
        fields: a string item with integer parameters)."""
        return {
            "RateLimit-Policy": f'"{self.policy}";q={self.limit};w={self.window}',
            "RateLimit": f'"{self.policy}";r={self.remaining};t={self.reset}',
        }


class RateLimitNote:
    """Where the session API leaves the :class:`RateLimit` of a call for its transport to send
    (:data:`RATE_LIMIT`): a transport sets a fresh note before the call and reads it after, whether
    the call answered or failed."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: RateLimit | None = None


UNKNOWN_CALLER = Caller("ip:unknown")
CALLER: contextvars.ContextVar[Caller | None] = contextvars.ContextVar("lawspeaker_caller", default=None)
RATE_LIMIT: contextvars.ContextVar[RateLimitNote | None] = contextvars.ContextVar(
    "lawspeaker_rate_limit", default=None
)


def note_rate_limit(rate_limit: RateLimit) -> None:
    """Tells the transport of this call (if it listens) the state of the quota the call took from."""
    note = RATE_LIMIT.get()
    if note is not None:
        note.value = rate_limit


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_api_key(name: str = "") -> tuple[str, str]:
    """A new random API key (192 bits) and the entry that configures it (its digest only)."""
    key = "lsk_" + secrets.token_urlsafe(24)
    return key, (f"{name}=" if name else "") + f"sha256:{digest(key)}"


def parse_api_keys(text: str) -> dict[str, str]:
    """The configured keys, digest (hex) -> name, from ``name=sha256:<hex>,...``; ValueError names
    the first entry that is not one (a plain key is refused: the configuration keeps digests)."""
    return parse_api_key_entries(text)[0]


def parse_api_key_entries(text: str) -> tuple[dict[str, str], dict[str, Allowance]]:
    """The configured keys (digest -> name) and the allowances their entries give (digest ->
    :class:`Allowance`), from ``name=sha256:<hex>[;rate=<per minute>][;burst=<n>],...``. ValueError
    names the entry and what is wrong with it."""
    keys: dict[str, str] = {}
    allowances: dict[str, Allowance] = {}
    for number, raw in enumerate((p.strip() for p in text.split(",")), start=1):
        if not raw:
            continue
        head, *options = (part.strip() for part in raw.split(";"))
        found = _ENTRY.match(head)
        if found is None:
            raise ValueError(
                f"API key entry {number} is not 'name=sha256:<64 hex digits>' (configure the digest, "
                "never the key: `lawspeaker api-key` prints both)"
            )
        hexdigest = found["digest"].lower()
        if hexdigest in keys:
            raise ValueError(f"API key entry {number} repeats the digest of an earlier entry")
        keys[hexdigest] = found["name"] or f"key-{hexdigest[:8]}"
        if options:
            allowances[hexdigest] = _allowance(number, options)
    return keys, allowances


def _allowance(number: int, options: Sequence[str]) -> Allowance:
    """The allowance of entry ``number`` from its ``rate=...``/``burst=...`` options."""
    rate: float | None = None
    burst: int | None = None
    where = f"API key entry {number}"
    for option in options:
        found = _OPTION.match(option)
        if found is None or found["option"] not in ("rate", "burst"):
            raise ValueError(
                f"{where}: {option!r} is not an option; after the digest an entry takes "
                "';rate=<new sessions a minute>' and ';burst=<new sessions at once>'"
            )
        name, value = found["option"], found["value"]
        if (rate if name == "rate" else burst) is not None:
            raise ValueError(f"{where}: {name} is given twice")
        if name == "rate":
            try:
                rate = float(value)
            except ValueError:
                rate = -1.0
            if not 0 <= rate <= MAX_KEY_RATE:  # NaN fails this too
                raise ValueError(
                    f"{where}: rate={value!r} must be a number of new sessions a minute from 0 (no "
                    f"limit) to {MAX_KEY_RATE:g}"
                )
        else:
            if not value.isdigit() or not 1 <= int(value) <= MAX_KEY_BURST:
                raise ValueError(
                    f"{where}: burst={value!r} must be a whole number of sessions from 1 to {MAX_KEY_BURST}"
                )
            burst = int(value)
    return Allowance(rate, burst)


def parse_networks(text: str | Iterable[str]) -> tuple[Network, ...]:
    """Trusted proxies: comma-separated addresses or CIDR networks (ValueError on a bad one)."""
    parts = text.split(",") if isinstance(text, str) else text
    return tuple(ipaddress.ip_network(p.strip(), strict=False) for p in parts if p.strip())


@dataclass(frozen=True)
class Access:
    """The service's access policy: its API keys (digests) and the proxies it trusts."""

    api_keys: Mapping[str, str] = field(default_factory=dict)  # sha256 hex -> name
    keys_for_rules: bool = False  # the stateless RulesService RPCs need a key too
    trusted_proxies: Sequence[Network] = ()
    allowances: Mapping[str, Allowance] = field(default_factory=dict)  # sha256 hex -> its own quota
    keys_optional: bool = False  # a client without a key may create too, counted by its address

    @property
    def keys_required(self) -> bool:
        return bool(self.api_keys) and not self.keys_optional

    def key_name(self, presented: str | None, required: bool) -> str | None:
        """The name of a presented API key; UNAUTHENTICATED when it is unknown, or absent and
        ``required`` while keys are configured."""
        known = self._known(presented, required)
        return None if known is None else self.api_keys[known]

    def _known(self, presented: str | None, required: bool) -> str | None:
        """The configured digest of a presented API key (raising as :meth:`key_name` does)."""
        if presented:
            if not self.api_keys:
                return None  # keys are off: a key is neither needed nor checked
            wanted = digest(presented)
            match = None
            for known in self.api_keys:  # compare every digest: constant time
                if hmac.compare_digest(wanted, known):
                    match = known
            if match is not None:
                return match
            raise unauthenticated(
                "API_KEY_INVALID", "The API key is not valid for this service.", API_KEY_HEADER
            )
        if required and self.keys_required:
            raise unauthenticated(
                "API_KEY_REQUIRED",
                "This call needs an API key: send it as the X-Api-Key header (gRPC: x-api-key metadata).",
                API_KEY_HEADER,
            )
        return None

    def client_address(self, peer: str | None, forwarded_for: str | None) -> str:
        """The client's address: the peer, or what trusted proxies say they forwarded for."""
        address = _address(peer)
        if address is None:
            return peer or "unknown"
        if not forwarded_for or not self._trusted(address):
            return str(address)
        for hop in reversed([h.strip() for h in forwarded_for.split(",")]):
            hop_address = _address(hop)
            if hop_address is None:
                return hop or str(address)  # an unparseable hop: count by what it says, no further
            if not self._trusted(hop_address):
                return str(hop_address)
            address = hop_address
        return str(address)

    def caller(
        self, api_key: str | None, peer: str | None, forwarded_for: str | None, key_required: bool
    ) -> Caller:
        """Who is calling (raising UNAUTHENTICATED as :meth:`key_name` does), with its key's own
        allowance when the key's entry gives one."""
        known = self._known(api_key, key_required)
        if known is not None:
            name = self.api_keys[known]
            return Caller(f"key:{name}", name, self.allowances.get(known))
        return Caller("ip:" + self.client_address(peer, forwarded_for))

    def _trusted(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return any(address in network for network in self.trusted_proxies)


def _address(text: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not text:
        return None
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def grpc_peer_address(peer: str) -> str:
    """The address of a gRPC peer string (``ipv4:1.2.3.4:5``, ``ipv6:[::1]:5``, ``unix:...``)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        rest = rest.replace("%5B", "[").replace("%5D", "]")
        return rest[1 : rest.index("]")] if rest.startswith("[") and "]" in rest else rest
    return peer


def unauthenticated(reason: str, message: str, field_name: str) -> LawspeakerError:
    return LawspeakerError(ErrorCode.UNAUTHENTICATED, reason, message, (FieldViolation(field_name, message),))
