"""The pages the links of an answer open (``lawspeaker.api.links``): each game's rules document and a
page per problem type, as HTML.

- ``GET /rules``: the games, each linking its rules page.
- ``GET /rules/{game}``: ``docs/rules/<doc>.md`` of the game, rendered by markdown-it-py (CommonMark
  with GitHub's tables and strikethrough). Every heading gets the id GitHub gives it
  (``mdit_py_plugins.anchors``: lower case, punctuation dropped, spaces as hyphens, ``-1``, ``-2``
  for repeats), and the documents' own ``<a id="...">`` anchors are kept, so
  ``/rules/valhalla#cast-first`` lands where ``docs/rules/valhalla.md#cast-first`` does on GitHub.
- ``GET /problems``: every problem type; ``GET /problems/{type}``: one, from the reason catalogue
  (``lawspeaker.api.catalogue`` and each game's ``reasons``): its reason code, kind, HTTP status,
  gRPC and Connect codes, what it means and, for a game's rule, the rulebook sentence and a link to
  the rule.

The documents are package data (``rulebooks/`` beside this module is ``docs/rules`` of the
repository, copied into the wheel), rendered once on first request and shared by every app of the
process. Raw HTML in a document is written out only when it is one of the empty ``<a id="...">``
anchors the documents hold; anything else is escaped, and each page's Content-Security-Policy lets
it run no script at all. Each page has a strong ETag (``If-None-Match`` answers 304) and may be
cached for five minutes. An unknown game is a 404 ``GAME_NOT_FOUND``, an unknown problem type a 404
``ROUTE_NOT_FOUND`` naming it, both as problem documents.

The links inside a page are relative (``../rules/valhalla#cast-first``), so a page is the same for
every base URL the service is reached at, a ``--public-url`` with a path included; a page asked for
with a trailing slash (``/rules/``), where they would resolve a level too deep, is redirected (308,
relative ``Location``) to its path without it.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from litestar import Request, Response, get
from litestar.enums import MediaType, ScopeType
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath
from litestar.types import ASGIApp, Receive, Scope, Send
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.anchors import anchors_plugin

from lawspeaker.api import catalogue, errors, links
from lawspeaker.api.rules import game_not_found
from lawspeaker.games.core import ErrorCode, RuleReason
from lawspeaker.http import semantics
from lawspeaker.http.compression import STATIC_OPT
from lawspeaker.http.problems import Problem, request_base
from lawspeaker.wire.registry import REGISTRY

RULEBOOKS = "rulebooks"
"""The directory beside this module holding ``docs/rules/*.md`` (a link to it in the repository)."""

CACHE_CONTROL = "public, max-age=300"
_ANCHOR_HTML = re.compile(r'(?:\s*(?:<a id="[a-z0-9-]+">|</a>)\s*)+')
"""The only raw HTML a rules document may carry through: empty anchors, ``<a id="cast-first"></a>``."""
_CSS = (
    "body{font-family:system-ui,sans-serif;line-height:1.5;max-width:52rem;margin:0 auto;padding:1rem}"
    "nav{font-size:.9rem;margin-bottom:1rem}table{border-collapse:collapse}"
    "th,td{border:1px solid #ccc;padding:.25rem .5rem;vertical-align:top}"
    "code{background:#f3f3f3;padding:0 .2rem}pre code{display:block;padding:.5rem;overflow-x:auto}"
    "blockquote{border-left:.25rem solid #ccc;margin-left:0;padding-left:1rem;color:#444}"
    ":target{background:#fff3b0}"
)
_ALIGNMENTS = tuple(f"text-align:{side}" for side in ("left", "center", "right"))
"""The style attributes markdown-it gives the cells of an aligned table column."""


def _style_hash(css: str) -> str:
    return f"'sha256-{base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()}'"


_CSP = (
    f"default-src 'none'; style-src {_style_hash(_CSS)} 'unsafe-hashes' "
    f"{' '.join(_style_hash(a) for a in _ALIGNMENTS)}; img-src 'self' data:; base-uri 'none'; "
    "form-action 'none'"
)
"""The page's own stylesheet and the table alignments, by their hashes; no script at all."""


# --------------------------------------------------------------------------- Markdown


def _raw_html(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Raw HTML of a document: kept when it is only empty anchors, else shown as text."""
    content = tokens[idx].content
    return content if _ANCHOR_HTML.fullmatch(content) else html.escape(content, quote=False)


@functools.cache
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.use(anchors_plugin, min_level=1, max_level=6)
    md.add_render_rule("html_inline", _raw_html)
    md.add_render_rule("html_block", _raw_html)
    return md


@functools.cache
def _inline() -> MarkdownIt:
    """For the catalogue's sentences (backticks for code): no raw HTML at all."""
    return MarkdownIt("commonmark", {"html": False})


def render_markdown(text: str) -> str:
    """A rules document as HTML, with GitHub's heading ids and the document's own anchors."""
    rendered: str = _markdown().render(text)
    return rendered


def _text(sentence: str) -> str:
    rendered: str = _inline().renderInline(sentence)
    return rendered


def rulebook_text(game_id: str) -> str:
    """The Markdown source of a game's rules document, read from the package."""
    doc = links.documents()[game_id]
    return resources.files(__package__).joinpath(RULEBOOKS, doc).read_text(encoding="utf-8")


# --------------------------------------------------------------------------- pages


@dataclass(frozen=True)
class Page:
    """One rendered page and its entity tag."""

    content: bytes
    etag: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "etag", hashlib.sha256(self.content).hexdigest()[:32])


def _page(title: str, body: str, nav: str) -> Page:
    return Page(
        (
            '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<title>{html.escape(title)}</title>\n<link rel="icon" href="data:,">\n'
            f"<style>{_CSS}</style>\n</head>\n<body>\n"
            f"<nav>{nav}</nav>\n<main>\n{body}</main>\n</body>\n</html>\n"
        ).encode()
    )


def _nav(up: str) -> str:
    """Links to both indexes, relative to a page ``up`` levels below the base (``""`` or ``"../"``)."""
    return f'<a href="{up}rules">Rules of every game</a> · <a href="{up}problems">Every problem type</a>'


@functools.cache
def rules_page(game_id: str) -> Page:
    """A game's rules document as a page (rendered once)."""
    game = REGISTRY[game_id].game
    return _page(f"{game.title}: rules", render_markdown(rulebook_text(game_id)), _nav("../"))


@functools.cache
def rules_index() -> Page:
    rows = "".join(
        f'<li><a href="rules/{html.escape(game_id)}">{html.escape(REGISTRY[game_id].game.title)}</a> '
        f"(<code>{html.escape(game_id)}</code>)</li>\n"
        for game_id in sorted(links.documents())
    )
    body = (
        "<h1>Rules of every game</h1>\n<p>The rules as the engine enforces them. A refused move's "
        "<code>rule</code> links a rule on one of these pages.</p>\n"
        f"<ul>\n{rows}</ul>\n"
    )
    return _page("Rules of every game", body, _nav(""))


@dataclass(frozen=True)
class ProblemType:
    """Every reason one problem type page describes: a general one and the games' rule reasons of
    that code (several games may refuse for ``NOT_A_LEGAL_MOVE``)."""

    code: str
    general: catalogue.Reason | None
    rules: tuple[tuple[str, RuleReason], ...]


@functools.cache
def problem_types() -> dict[str, ProblemType]:
    """Every problem type by its slug, from the reason catalogue."""
    codes = catalogue.all_reasons()
    by_game: dict[str, list[tuple[str, RuleReason]]] = {}
    for game_id, code in catalogue.game_reasons():
        by_game.setdefault(code, []).append((game_id, REGISTRY[game_id].game.reasons[code]))
    return {
        links.slug(code): ProblemType(
            code, catalogue.GENERAL_BY_REASON.get(code), tuple(by_game.get(code, ()))
        )
        for code in codes
    }


def _codes(kind: ErrorCode | None, http_status: int | None) -> str:
    """The status codes of a reason's kind (or, for the HTTP edge's own, its status) as a list."""
    if kind is None:
        return f"<dt>HTTP status</dt><dd>{http_status}</dd>\n"
    m = errors.MAPPING[kind]
    connect = m.grpc_code.name.lower()
    return (
        f"<dt>Kind</dt><dd><code>{kind.value}</code></dd>\n"
        f"<dt>gRPC code</dt><dd><code>{m.grpc_code.name}</code></dd>\n"
        f"<dt>HTTP status</dt><dd>{m.http_status}</dd>\n"
        f"<dt>Connect code</dt><dd><code>{connect}</code> (HTTP {errors.CONNECT_HTTP_STATUS[connect]})</dd>\n"
    )


_TRANSPORT_NAMES = {catalogue.REST: "REST", catalogue.GRPC: "gRPC", catalogue.CONNECT: "Connect"}


@functools.cache
def problem_page(slug: str) -> Page:
    """The page of one problem type (rendered once)."""
    t = problem_types()[slug]
    parts = [f'<h1 id="{slug}"><code>{t.code}</code></h1>\n']
    if t.general is not None:
        r = t.general
        where = ", ".join(name for key, name in _TRANSPORT_NAMES.items() if key in r.transports)
        parts.append(f"<p>{_text(r.meaning)}</p>\n<dl>\n{_codes(r.kind, r.http_status)}")
        parts.append(f"<dt>Group</dt><dd>{html.escape(r.group)}</dd>\n<dt>Sent over</dt><dd>{where}</dd>\n")
        parts.append("</dl>\n")
    if t.rules:
        parts.append(
            "<p>A move the rules forbid: refused on ApplyMove and in a session, and answered "
            "<code>valid: false</code> with this reason on ValidateMove.</p>\n"
            f"<dl>\n{_codes(ErrorCode.ILLEGAL_MOVE, None)}</dl>\n"
        )
    for game_id, rr in t.rules:
        title = html.escape(REGISTRY[game_id].game.title)
        anchor = rr.rule.partition("#")[2]
        href = f"../rules/{game_id}#{anchor}"
        parts.append(
            f'<h2 id="{game_id}">{title}</h2>\n<p>{_text(rr.meaning)}</p>\n'
            f"<blockquote><p>{html.escape(rr.rulebook)}</p></blockquote>\n"
            f'<p>The rule: <a href="{href}">{title} rules, <code>#{anchor}</code></a></p>\n'
        )
    return _page(f"{t.code}: Lawspeaker problem type", "".join(parts), _nav("../"))


@functools.cache
def problems_index() -> Page:
    rows = []
    for slug, t in problem_types().items():
        meaning = t.general.meaning if t.general is not None else t.rules[0][1].meaning
        games = ", ".join(REGISTRY[g].game.title for g, _ in t.rules)
        also = f" ({html.escape(games)})" if games and t.general is None else ""
        link = f'<a href="problems/{slug}"><code>{t.code}</code></a>{also}'
        rows.append(f"<tr><td>{link}</td><td>{_text(meaning)}</td></tr>\n")
    body = (
        "<h1>Every problem type</h1>\n<p>The <code>type</code> of every problem document the service "
        "answers, by the reason it carries.</p>\n"
        f"<table>\n<thead><tr><th>reason</th><th>meaning</th></tr></thead>\n<tbody>\n{''.join(rows)}"
        "</tbody>\n</table>\n"
    )
    return _page("Every problem type", body, _nav(""))


# --------------------------------------------------------------------------- routes


def _answer(request: Request[Any, Any, Any], page: Page) -> Response[bytes]:
    raw = request.scope.get("raw_path")  # Litestar's own path has lost the trailing slash
    path = raw.decode("latin-1").partition("?")[0] if raw else str(request.scope["path"])
    if path.endswith("/"):  # /rules/ would resolve the page's relative links one level too deep
        last = path.rstrip("/").rsplit("/", 1)[-1]
        return Response(b"", status_code=308, headers={"Location": f"../{last}"})  # relative: any base
    tag = semantics.quoted(page.etag)
    headers = {"ETag": tag, "Cache-Control": CACHE_CONTROL}
    none_match = request.headers.get("if-none-match")
    if none_match is not None and semantics.none_match(none_match, page.etag):
        return Response(b"", status_code=304, headers=headers)
    headers.update(
        {
            "Content-Security-Policy": _CSP,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
        }
    )
    return Response(page.content, media_type=MediaType.HTML, headers=headers)


def page_handlers() -> list[HTTPRouteHandler]:
    """The four routes, for ``create_app`` to include."""

    @get(links.RULES_PATH, name="pages:rules", opt=STATIC_OPT)  # each page compressed once
    async def rules(request: Request[Any, Any, Any]) -> Response[bytes]:
        return _answer(request, rules_index())

    @get(f"{links.RULES_PATH}/{{game:str}}", name="pages:rules-game", opt=STATIC_OPT)
    async def rules_of(request: Request[Any, Any, Any], game: FromPath[str]) -> Response[bytes]:
        if game not in links.documents():
            raise game_not_found(game)
        return _answer(request, rules_page(game))

    @get(links.PROBLEMS_PATH, name="pages:problems", opt=STATIC_OPT)
    async def problems(request: Request[Any, Any, Any]) -> Response[bytes]:
        return _answer(request, problems_index())

    @get(f"{links.PROBLEMS_PATH}/{{problem:str}}", name="pages:problem", opt=STATIC_OPT)
    async def problem_of(request: Request[Any, Any, Any], problem: FromPath[str]) -> Response[bytes]:
        if problem not in problem_types():
            raise Problem(
                404,
                "ROUTE_NOT_FOUND",
                f"Unknown problem type {problem!r}: no reason of the service has it; "
                f"GET {links.PROBLEMS_PATH} lists every one.",
            )
        return _answer(request, problem_page(problem))

    return [rules, rules_of, problems, problem_of]


def links_middleware(app: ASGIApp) -> ASGIApp:
    """The Litestar middleware making the links of each answer (``lawspeaker.api.links``) from the
    request's base: --public-url, else the request's own scheme, host and root path."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        # made once, and only when the answer links something (most do not)
        with links.using(functools.cache(lambda: request_base(Request(scope)))):
            await app(scope, receive, send)

    return middleware
