"""The links an answer carries, as URLs of this service: a refused move's ``rule`` and a problem
document's ``type``.

The service serves each game's rules document at ``/rules/<game>`` (the anchors of
``docs/rules/<doc>.md`` intact) and a page per problem type at ``/problems/<slug>``
(``lawspeaker.http.pages``). The engines name a rule by its place in the repository
(``docs/rules/valhalla.md#cast-first``, :attr:`~lawspeaker.games.core.RuleReason.rule`); every answer
that leaves the service names it by its URL instead, ``<base>/rules/valhalla#cast-first``, in the
error metadata of every transport (``lawspeaker.api.errors``), ValidateMove's ``Violation.rule`` and
DescribeGame's ``reasons``.

``<base>`` is the call's: the HTTP transport sets it for each request (``--public-url``, else the
request's own scheme, host and root path), and :func:`configure` sets the one for calls that come
with no URL (gRPC): ``--public-url``, else empty, which leaves the link a path
(``/rules/valhalla#cast-first``), a relative reference to resolve against the HTTP port's address.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator

RULES_PATH = "/rules"
PROBLEMS_PATH = "/problems"
_REPOSITORY_DOCS = "docs/rules/"

_default = ""
BASE: contextvars.ContextVar[str | Callable[[], str] | None] = contextvars.ContextVar(
    "lawspeaker_public_base", default=None
)
"""The base URL of the call being answered (no trailing slash), set by a transport that knows it; or
what makes it, called when a link is made (most answers link nothing)."""


def configure(public_url: str) -> None:
    """The base of calls that come with no URL of their own (gRPC): ``--public-url`` or empty."""
    global _default
    _default = public_url.rstrip("/")


def base() -> str:
    """The base URL links are made from in this call: the transport's, else the configured one."""
    found = BASE.get()
    if found is None:
        return _default
    return found if isinstance(found, str) else found().rstrip("/")


@contextlib.contextmanager
def using(url: str | Callable[[], str]) -> Iterator[None]:
    """Links made inside the block start with ``url`` (a base URL, its trailing slash dropped), or
    with what ``url()`` returns when it is a function."""
    token = BASE.set(url.rstrip("/") if isinstance(url, str) else url)
    try:
        yield
    finally:
        BASE.reset(token)


def slug(reason: str) -> str:
    """The problem type slug of a reason code: ``CAST_FIRST`` is ``cast-first``."""
    return reason.lower().replace("_", "-")


def problem_type(reason: str) -> str:
    """The URL of a reason's problem type page (a problem document's ``type``)."""
    return f"{base()}{PROBLEMS_PATH}/{slug(reason)}"


def rules_page(game_id: str) -> str:
    """The path of a game's rules page, from the base."""
    return f"{RULES_PATH}/{game_id}"


@functools.cache
def documents() -> dict[str, str]:
    """Each game's rules document, by game id: the file name in ``docs/rules/`` its reasons link."""
    from lawspeaker.wire.registry import REGISTRY

    found: dict[str, str] = {}
    for game_id, entry in REGISTRY.items():
        docs = {r.rule.split("#", 1)[0] for r in entry.game.reasons.values()}
        if len(docs) == 1:
            (doc,) = docs
            if doc.startswith(_REPOSITORY_DOCS):
                found[game_id] = doc.removeprefix(_REPOSITORY_DOCS)
    return found


@functools.cache
def _games_by_document() -> dict[str, str]:
    return {f"{_REPOSITORY_DOCS}{doc}": game_id for game_id, doc in documents().items()}


def rule_url(rule: str) -> str:
    """The URL of a rule named by its place in the repository
    (``docs/rules/valhalla.md#cast-first``: ``<base>/rules/valhalla#cast-first``); empty stays
    empty, and a rule of no served document is left as it is."""
    doc, hash_, anchor = rule.partition("#")
    game_id = _games_by_document().get(doc)
    if game_id is None:
        return rule
    return f"{base()}{rules_page(game_id)}{hash_}{anchor}"
