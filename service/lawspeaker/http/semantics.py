"""HTTP semantics a generic client expects of the REST routes: ``Allow`` and ``If-Match``.

- :class:`AllowTable` knows which methods each route allows. Litestar routes by path, but the REST
  binding tells RPCs apart by a ``:verb`` suffix on the last path segment (``/v1/games/{game}`` is
  GET, ``/v1/games/{game}:new`` is POST), so its own ``Allow`` (on OPTIONS and on a 405) names the
  methods of every verb at once. The table answers per verb: the ``OPTIONS`` handler and every 405
  take ``Allow`` from it (RFC 9110 sections 9.3.7 and 15.5.6).
- :func:`parse_if_match` reads an ``If-Match`` header (RFC 9110 section 13.1.1): ``*`` or a list of
  entity tags, of which only the strong ones can match (If-Match uses strong comparison).
- :func:`quoted` writes a session etag as the strong entity tag of the ``ETag`` header.

Nothing here is on a hot path: the table is read for OPTIONS and 405s, If-Match only when sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from lawspeaker.games.core import ErrorCode, FieldViolation, LawspeakerError
from lawspeaker.wire.codec import malformed

METHOD_ORDER = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
_PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")  # "{game}" (google.api.http) or "{game:str}" (Litestar)


def _split_verb(path: str) -> tuple[str, str]:
    """A path without its ``:verb`` suffix, and the verb ("" when none)."""
    slash = path.rfind("/")
    colon = path.rfind(":")
    if colon > slash:
        return path[:colon], path[colon + 1 :]
    return path, ""


def allow_header(methods: Iterable[str]) -> str:
    """The ``Allow`` value of a route allowing ``methods``: in a fixed order, OPTIONS last."""
    chosen = set(methods)
    return ", ".join([m for m in METHOD_ORDER if m in chosen] + ["OPTIONS"])


class AllowTable:
    """The methods each route allows, per ``:verb``.

    A template is a path whose segments may be parameters (``{session}`` or Litestar's
    ``{session:str}``, matching one segment) and whose last segment may end in ``:verb``.
    """

    def __init__(self) -> None:
        self._exact: dict[tuple[str, str], set[str]] = {}
        self._patterns: dict[str, tuple[re.Pattern[str], dict[str, set[str]]]] = {}

    def add(self, template: str, methods: Iterable[str]) -> None:
        """Route ``methods`` on ``template`` (``/v1/sessions/{session}:applyMove``, ``/healthz``).
        A template added with no methods is known but allows nothing (a request path it alone
        matches is not found)."""
        base, verb = _split_verb(_PARAM.sub(r"{\1}", template))
        if "{" not in base:
            self._exact.setdefault((base, verb), set()).update(m.upper() for m in methods)
            return
        if base not in self._patterns:
            parts = re.split(r"\{\w+\}", base)
            regex = re.compile("[^/]*".join(re.escape(p) for p in parts))
            self._patterns[base] = (regex, {})
        self._patterns[base][1].setdefault(verb, set()).update(m.upper() for m in methods)

    def covers(self, template: str) -> bool:
        """Whether some route of the table has this template (any verb)."""
        base, verb = _split_verb(_PARAM.sub(r"{\1}", template))
        return base in self._patterns or (base, verb) in self._exact

    def lookup(self, path: str) -> frozenset[str] | None:
        """The methods a request path allows; an empty set when a route of the table has the path
        but not its ``:verb`` (no such resource); None when the table has no route for it."""
        if len(path) > 1:
            path = path.rstrip("/") or "/"
        base, verb = _split_verb(path)
        found = self._exact.get((base, verb))
        if found is not None:
            return frozenset(found)
        for regex, verbs in self._patterns.values():
            if regex.fullmatch(base):
                return frozenset(verbs.get(verb, ()))
        if any(b == base for b, _ in self._exact):
            return frozenset()
        return None

    def verbs(self, path: str) -> list[str]:
        """The ``:verb`` suffixes the route of ``path`` knows (for an error message)."""
        base, _ = _split_verb(path.rstrip("/") or "/")
        for regex, verbs in self._patterns.values():
            if regex.fullmatch(base):
                return sorted(v for v in verbs if v)
        return sorted(v for b, v in self._exact if b == base and v)


# --------------------------------------------------------------------------- entity tags

# RFC 9110: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text. The
# list separator: OWS "," OWS (empty elements allowed, section 5.6.1).
_ENTITY_TAG = re.compile(r'(W/)?"([\x21\x23-\x7e\x80-\xff]*)"')
IF_MATCH_RULE = (
    'must be "*" or a comma-separated list of entity tags, each quoted as the ETag header '
    'sends it (e.g. If-Match: "7"; RFC 9110)'
)


@dataclass(frozen=True, slots=True)
class IfMatch:
    """A parsed ``If-Match``: ``*``, or the opaque values of its strong entity tags (weak ones
    never match under If-Match's strong comparison, so only their presence is kept)."""

    any: bool
    tags: tuple[str, ...]
    weak: bool


def _separators(value: str, pos: int) -> tuple[int, bool]:
    """The position after the list separators (spaces, tabs, commas) at ``pos``, and whether
    there was a comma among them."""
    comma = False
    while pos < len(value) and value[pos] in " \t,":
        comma = comma or value[pos] == ","
        pos += 1
    return pos, comma


def parse_if_match(value: str) -> IfMatch:
    """``If-Match`` as sent (several header lines joined by commas), or a MALFORMED error naming
    the header and the rule."""
    if value.strip(" \t") == "*":
        return IfMatch(True, (), False)
    tags: list[str] = []
    weak = False
    pos, _ = _separators(value, 0)
    while pos < len(value):
        found = _ENTITY_TAG.match(value, pos)
        if found is None:
            got = value[pos : pos + 40]
            raise malformed("If-Match", f"{IF_MATCH_RULE}; got {got!r}", "INVALID_IF_MATCH")
        if found.group(1):
            weak = True
        else:
            tags.append(found.group(2))
        pos, commas = _separators(value, found.end())
        if pos < len(value) and not commas:
            got = value[found.end() : found.end() + 40]
            raise malformed("If-Match", f"{IF_MATCH_RULE}; got {got!r} after a tag", "INVALID_IF_MATCH")
    if not tags and not weak:
        raise malformed("If-Match", f"{IF_MATCH_RULE}; got an empty list", "INVALID_IF_MATCH")
    return IfMatch(False, tuple(tags), weak)


def none_match(value: str, etag: str) -> bool:
    """Whether ``If-None-Match`` (as sent) matches the current ``etag``: ``*``, or a listed entity
    tag of that opaque value, weak or strong (If-None-Match compares weakly, RFC 9110 section
    13.1.2). A malformed header matches nothing: the full answer is sent, as for no header."""
    if value.strip(" \t") == "*":
        return True
    # (a compressed answer's tag, "7-gzip", reaches here as "7": the compression middleware maps it)
    return any(found.group(2) == etag for found in _ENTITY_TAG.finditer(value))


def quoted(etag: str) -> str:
    """A session etag (its version, e.g. ``7``) as a strong entity tag: ``"7"``."""
    return f'"{etag}"'


ETAG_MISMATCH = "SESSION_ETAG_MISMATCH"


def etag_for(conditions: IfMatch, body_etag: str) -> str | None:
    """The etag a write is made on, given ``If-Match`` (not ``*``) and the body's ``etag``: the
    body's, which must then be one of If-Match's strong tags (else INVALID_ARGUMENT naming
    ``etag``), or If-Match's one strong tag; None when it depends on the session's current version
    (If-Match lists several tags, or only weak ones, and the body names none)."""
    tags = conditions.tags
    if body_etag and tags:
        if body_etag not in tags:
            listed = ", ".join(quoted(t) for t in tags)
            raise malformed(
                "etag",
                f"must be one of the entity tags If-Match names ({listed}) when both are sent: the "
                f"body names {body_etag!r}",
                "IF_MATCH_CONFLICT",
            )
        return body_etag
    if not body_etag and len(tags) == 1:
        return tags[0]
    return None


def not_current(session: str, current: str, conditions: IfMatch) -> LawspeakerError:
    """The error of an If-Match none of whose entity tags is the session's ``current`` version."""
    if conditions.tags:
        why = f"If-Match names {', '.join(quoted(t) for t in conditions.tags)}"
    else:
        why = "If-Match names only weak entity tags, which never match (If-Match compares strongly)"
    return LawspeakerError(
        ErrorCode.STALE_STATE,
        ETAG_MISMATCH,
        f"{why}, but the session is at etag {quoted(current)}: nothing was written. Get the session "
        "again and decide on the current version.",
        (FieldViolation("If-Match", "names no entity tag that is the session's current version"),),
        {"session": session, "etag": current},
    )
