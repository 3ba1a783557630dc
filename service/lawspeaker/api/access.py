"""Who is calling: optional API keys and the client address quotas are counted by.

- **API keys** are configured as SHA-256 digests only (``LAWSPEAKER_API_KEYS`` or ``--api-keys``:
  comma-separated ``name=sha256:<64 hex>`` entries, the name optional), so the configuration holds
  nothing a caller could present. ``lawspeaker api-key`` makes a key and its entry. A client sends
  its key as the ``X-Api-Key`` header (HTTP) or ``x-api-key`` metadata (gRPC). When keys are
  configured, creating a session needs one; with ``--api-keys-for-rules`` the stateless
  RulesService RPCs do too. Seat tokens (``Authorization: Bearer``) are unrelated: they say which
  seat of a session acts.
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

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class Caller:
    """One client, as quotas count it: ``quota_key`` is ``key:<name>`` or ``ip:<address>``."""

    quota_key: str
    api_key: str | None = None  # the name of the API key it presented, if any


UNKNOWN_CALLER = Caller("ip:unknown")
CALLER: contextvars.ContextVar[Caller | None] = contextvars.ContextVar("lawspeaker_caller", default=None)


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_api_key(name: str = "") -> tuple[str, str]:
    """A new random API key (192 bits) and the entry that configures it (its digest only)."""
    key = "lsk_" + secrets.token_urlsafe(24)
    return key, (f"{name}=" if name else "") + f"sha256:{digest(key)}"


def parse_api_keys(text: str) -> dict[str, str]:
    """The configured keys, digest (hex) -> name, from ``name=sha256:<hex>,...``; ValueError names
    the first entry that is not one (a plain key is refused: the configuration keeps digests)."""
    keys: dict[str, str] = {}
    for number, raw in enumerate((p.strip() for p in text.split(",")), start=1):
        if not raw:
            continue
        found = _ENTRY.match(raw)
        if found is None:
            raise ValueError(
                f"API key entry {number} is not 'name=sha256:<64 hex digits>' (configure the digest, "
                "never the key: `lawspeaker api-key` prints both)"
            )
        hexdigest = found["digest"].lower()
        keys[hexdigest] = found["name"] or f"key-{hexdigest[:8]}"
    return keys


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

    @property
    def keys_required(self) -> bool:
        return bool(self.api_keys)

    def key_name(self, presented: str | None, required: bool) -> str | None:
        """The name of a presented API key; UNAUTHENTICATED when it is unknown, or absent and
        ``required`` while keys are configured."""
        if presented:
            if not self.api_keys:
                return None  # keys are off: a key is neither needed nor checked
            wanted = digest(presented)
            for known, name in self.api_keys.items():  # compare every digest: constant time
                if hmac.compare_digest(wanted, known):
                    return name
            raise unauthenticated(
                "API_KEY_INVALID", "The API key is not valid for this service.", API_KEY_HEADER
            )
        if required and self.api_keys:
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
        """Who is calling (raising UNAUTHENTICATED as :meth:`key_name` does)."""
        name = self.key_name(api_key, key_required)
        if name is not None:
            return Caller(f"key:{name}", name)
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
