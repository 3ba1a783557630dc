"""The reason catalogue (``lawspeaker.api.catalogue``) lists every reason the service's source can raise,
and nothing the source never raises; ``docs/errors.md`` is current.

The source is read, not run: every call that makes an error (``LawspeakerError``, ``malformed``,
``denied``, ``refused``, ``Problem``, ``problem_response``, a ``Violation`` outside a game's own
package) is found with its reason. A reason held in a variable is resolved when it is a module
constant; a parameter (``reason`` in a helper) is checked at the helper's call sites instead.
"""

from __future__ import annotations

import ast
import pathlib

from lawspeaker.api.catalogue import ALL, GENERAL, GENERAL_BY_REASON, all_reasons
from lawspeaker.http.openapi import openapi_document
from lawspeaker.http.routes import RPCS, SESSION_RPCS
from lawspeaker.server import devtools
from lawspeaker.wire.registry import REGISTRY

ROOT = pathlib.Path(__file__).resolve().parents[2]
SERVICE = ROOT / "service" / "lawspeaker"
GAME_PACKAGES = {SERVICE / "games" / game_id for game_id in REGISTRY}
# callee name -> the position (and keyword) of its reason argument, and its default when left out
MAKERS: dict[str, tuple[int, str, str | None]] = {
    "LawspeakerError": (1, "reason", None),
    "malformed": (2, "reason", None),
    "denied": (0, "reason", None),
    "unauthenticated": (0, "reason", None),
    "refused": (0, "reason", None),
    "Problem": (1, "reason", None),
    "problem_response": (1, "reason", None),
    "Violation": (0, "reason", None),
    "_take_rate": (4, "reason", None),  # the sessions' rate limits: bucket, rate, burst, policy, reason
}
PATH_PARAMS = {p for rpc in (*RPCS, *SESSION_RPCS) for p in rpc.path_params}


def _sources() -> list[pathlib.Path]:
    return [p for p in sorted(SERVICE.rglob("*.py")) if "v1" not in p.relative_to(SERVICE).parts]


def _constants(tree: ast.Module) -> dict[str, str]:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                    out[target.id] = node.value.value
    return out


def raised_reasons() -> dict[str, set[str]]:
    """Every general reason the source can raise, with the files raising it."""
    found: dict[str, set[str]] = {}

    def add(reason: str, path: pathlib.Path) -> None:
        found.setdefault(reason, set()).add(str(path.relative_to(SERVICE)))

    for path in _sources():
        in_game = any(package in path.parents for package in GAME_PACKAGES)
        tree = ast.parse(path.read_text())
        constants = _constants(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple):
                # reason, description = "UNKNOWN_FIELD", "..." (the reason a helper raises next)
                for target in node.targets:
                    if isinstance(target, ast.Tuple):
                        for name, value in zip(target.elts, node.value.elts, strict=False):
                            is_reason = isinstance(name, ast.Name) and name.id == "reason"
                            if is_reason and isinstance(value, ast.Constant) and isinstance(value.value, str):
                                add(value.value, path)
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name not in MAKERS or (name == "Violation" and in_game):
                continue  # a game's own Violations are its rule reasons (tests/games/test_reasons.py)
            index, keyword, default = MAKERS[name]
            arg: ast.expr | None = node.args[index] if len(node.args) > index else None
            arg = next((k.value for k in node.keywords if k.arg == keyword), arg)
            if arg is None:
                if default is not None:
                    add(default, path)
                continue
            if isinstance(arg, ast.Starred):  # Problem(413, *HTTP_REASONS[413])
                continue
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                add(arg.value, path)
            elif isinstance(arg, ast.Name) and arg.id in constants:
                add(constants[arg.id], path)
            elif isinstance(arg, ast.JoinedStr):  # f"{name.upper()}_MISMATCH" for a path parameter
                suffix = "".join(str(v.value) for v in arg.values if isinstance(v, ast.Constant))
                for param in PATH_PARAMS:
                    add(param.upper() + suffix, path)
    http_reasons = _http_reasons()
    for reason in http_reasons:
        add(reason, SERVICE / "http" / "problems.py")
    return found


def _http_reasons() -> set[str]:
    """The reasons of the HTTP edge's status table (HTTP_REASONS) and its fallback."""
    tree = ast.parse((SERVICE / "http" / "problems.py").read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and node.elts:
            first = node.elts[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.isupper():
                out.add(first.value)
    return out


def test_every_reason_the_source_raises_is_in_the_catalogue() -> None:
    raised = raised_reasons()
    missing = {r: sorted(files) for r, files in raised.items() if r not in GENERAL_BY_REASON}
    assert missing == {}, "reasons raised but not in lawspeaker.api.catalogue.GENERAL"


def test_the_catalogue_lists_no_reason_the_source_never_raises() -> None:
    raised = raised_reasons()
    assert {r.reason for r in GENERAL} - set(raised) == set()


def test_every_general_reason_has_a_kind_or_a_status_and_a_meaning() -> None:
    for r in GENERAL:
        assert (r.kind is None) != (r.http_status is None), r.reason
        assert r.transports and r.transports <= ALL, r.reason
        assert r.meaning.endswith(".") and ".." not in r.meaning, r.reason
        assert r.group, r.reason


def test_no_game_reason_reuses_a_general_reason_with_another_meaning() -> None:
    for entry in REGISTRY.values():
        shared = set(entry.game.reasons) & set(GENERAL_BY_REASON)
        assert shared == set(), f"{entry.game.id}: {sorted(shared)} are general reasons"


def test_the_openapi_problem_reason_is_the_enum_of_every_reason() -> None:
    schemas = openapi_document()["components"]["schemas"]
    assert schemas["Problem"]["properties"]["reason"]["$ref"] == "#/components/schemas/Reason"
    assert schemas["Reason"]["enum"] == all_reasons()


def test_docs_errors_md_is_current() -> None:
    from lawspeaker.api.errors_doc import render

    assert devtools.ERRORS_DOC_PATH.read_text() == render(), "run `lawspeaker errors-doc`"
