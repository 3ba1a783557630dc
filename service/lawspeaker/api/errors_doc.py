"""docs/errors.md, rendered from the reason catalogue (``lawspeaker errors-doc``; CI fails when stale)."""

from __future__ import annotations

from lawspeaker.api import errors
from lawspeaker.api.catalogue import CONNECT, GENERAL, GRPC, REST, Reason
from lawspeaker.games.core import ErrorCode

_TRANSPORTS = ((REST, "R"), (GRPC, "G"), (CONNECT, "C"))

INTRO = """\
# Every error reason

Generated from `service/lawspeaker/api/catalogue.py` and each game's `games/<game>/reasons.py` by
`lawspeaker errors-doc`; CI fails when this file is stale. `tests/transport/test_reason_catalogue.py`
provokes every reason below on each transport it is listed for.

## The codes an error carries

Every error carries two codes, each with one meaning:

- **`code`**, the class of failure: the gRPC status code. gRPC sends it as the call's status; a REST
  problem document has it as `code` (`INVALID_ARGUMENT`); a Connect error as `code` in Connect's lower
  case (`invalid_argument`). Generic clients and proxies switch on it (retry `UNAVAILABLE`, re-read on
  `ABORTED`; [Retrying calls](durability.md#retrying-calls) says which calls may be sent
  again and why a retried move with its request id is made once).
- **`reason`**, what exactly went wrong: a stable UPPER_SNAKE code (`STATE_REQUIRED`,
  `LANDS_ON_OWN_SHIP`). REST has it as the problem's `reason`; gRPC and Connect in the
  `google.rpc.ErrorInfo` detail (domain `lawspeaker.dev`). An app switches on it to react, and shows
  the error's message, which is written for the player.

The ErrorInfo metadata (the problem's `metadata`) adds the error **kind** under `kind`, which sits
between the two: it tells apart refusals that share a status (a malformed request and a game state
that breaks the rules are both `INVALID_ARGUMENT`: kinds `MALFORMED` and `INVALID_STATE`). A refused
move's metadata also carries `rule`, the link of the rule it breaks (`https://rules.example/rules/valhalla#cast-first`,
[Links](#links-the-rules-and-the-problem-types) below), as does a `Violation` from ValidateMove (its
`rule` field); a session's version conflict carries the current `etag`; a refusal that may be
retried says when (`Retry-After`, gRPC `RetryInfo`).

## Links: the rules and the problem types

The service serves the pages an answer links, so an app can open them:

- `GET /rules`: the games, each linking its rules page;
- `GET /rules/{{game}}`: the game's rules document (in `docs/rules/`, linked below) as HTML, with the
  anchors it has on GitHub: each reason's `<a id>` (`#cast-first`) and each heading's id;
- `GET /problems`: every problem type;
- `GET /problems/{{slug}}`: one reason, from this catalogue: its code, kind, HTTP status, gRPC and
  Connect codes and meaning; for a game's rule, the rulebook sentence and a link to the rule. The
  slug is the reason in lower case with hyphens (`CAST_FIRST`: `cast-first`).

A REST problem's `type` is `<base>/problems/<slug>`; a refused move's `rule` (in the error metadata
of REST, gRPC and Connect, in ValidateMove's `Violation` and in DescribeGame's `reasons`) is
`<base>/rules/<game>#<anchor>`. The base is `--public-url` (env `LAWSPEAKER_PUBLIC_URL`; it may hold
a path, `https://example.net/lawspeaker`) or, without it, the address each HTTP request was sent
to (its scheme, its `Host` and the root path). gRPC calls come with no URL of the HTTP port, so
without `--public-url` a gRPC answer's `rule` is the path alone (`/rules/valhalla#cast-first`), a
relative reference to resolve against the HTTP address the app already uses for REST or Connect;
a service behind a proxy sets `--public-url` and every link is absolute. The pages are rendered
once per process, carry a strong `ETag` (`If-None-Match` answers 304) and `Cache-Control: public,
max-age=300`, and run no script (their Content-Security-Policy allows none). An unknown game answers
404 `GAME_NOT_FOUND`, an unknown problem type 404 `ROUTE_NOT_FOUND`, both naming what is unknown.
The repository's documents keep their own links (the rule column below links the Markdown file).

| kind | gRPC `code` | REST status | Connect `code` (HTTP status) |
|---|---|---|---|
{kinds}

## Field paths

Field violations (`google.rpc.BadRequest`; the problem's `fieldViolations`) name the field at fault by
its path from the request message: dot-separated field names with `[i]` for an element of a repeated
field. A JSON body (REST or Connect with JSON) gets the **JSON names** it was written with
(`move.valhalla.moveShip.ship`, `state.paxPenning.players[2].coins`); a binary protobuf request
(gRPC, `application/x-protobuf` on REST, `application/proto` on Connect) gets the **proto field
names** (`move.valhalla.move_ship.ship`). A header is named as the header (`If-Match`), a query
parameter by its JSON name (`pageSize`), and a body that cannot be read at all as `body`.

## General reasons

Where a reason can occur: R = REST, G = gRPC, C = Connect. Status columns follow the kind (table
above) except for the HTTP edge's own refusals, which have no gRPC form.
"""


def _kind_row(kind: ErrorCode) -> str:
    m = errors.MAPPING[kind]
    connect = m.grpc_code.name.lower()
    return (
        f"| `{kind.value}` | `{m.grpc_code.name}` | {m.http_status} | "
        f"`{connect}` ({errors.CONNECT_HTTP_STATUS[connect]}) |"
    )


def _statuses(r: Reason) -> tuple[str, str, str]:
    if r.kind is None:
        return "", str(r.http_status), ""
    m = errors.MAPPING[r.kind]
    connect = m.grpc_code.name.lower()
    rest = str(m.http_status)
    if r.reason == "SESSION_ETAG_MISMATCH":
        rest = "409 (412 under If-Match)"
    return f"`{m.grpc_code.name}`", rest, f"`{connect}` ({errors.CONNECT_HTTP_STATUS[connect]})"


def _where(r: Reason) -> str:
    return "".join(letter for transport, letter in _TRANSPORTS if transport in r.transports)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render() -> str:
    """The whole document."""
    from lawspeaker.wire.registry import REGISTRY

    kinds = "\n".join(_kind_row(k) for k in ErrorCode)
    out = [INTRO.format(kinds=kinds)]
    group = None
    for r in GENERAL:
        if r.group != group:
            group = r.group
            out.append(f"\n### {group}\n")
            out.append("| reason | kind | where | gRPC | REST | Connect | meaning |")
            out.append("|---|---|---|---|---|---|---|")
        grpc_code, rest, connect = _statuses(r)
        kind = f"`{r.kind.value}`" if r.kind is not None else "HTTP"
        out.append(
            f'| <a id="{r.reason.lower().replace("_", "-")}"></a>`{r.reason}` | {kind} | {_where(r)} | '
            f"{grpc_code} | {rest} | {connect} | {_cell(r.meaning)} |"
        )
    out.append(
        "\n## Rule reasons, per game\n\n"
        "A move a game's rules forbid is refused with one of the game's reasons below: kind `ILLEGAL_MOVE`"
        " (gRPC `FAILED_PRECONDITION`, REST 409, Connect `failed_precondition` (400)) on ApplyMove and in a"
        " session, and as `valid: false` with the `Violation` on ValidateMove. Each links the rule it"
        " enforces in the game's rules document; DescribeGame serves the same list (`reasons`) with the"
        " rulebook sentence of each."
    )
    for game_id, entry in sorted(REGISTRY.items()):
        game = entry.game
        out.append(f"\n### {game.title} (`{game_id}`)\n")
        out.append("| reason | meaning | rule |")
        out.append("|---|---|---|")
        for code in sorted(game.reasons):
            rr = game.reasons[code]
            link = rr.rule.removeprefix("docs/")  # docs/errors.md sits beside docs/rules/
            out.append(f"| `{code}` | {_cell(rr.meaning)} | [{rr.rule.rsplit('#', 1)[1]}]({link}) |")
    return "\n".join(out) + "\n"
