"""Mutation testing of the engine modules: how many small wrong changes to a rule the tests notice.

    .venv/bin/python tests/mutation/mutate.py games/valhalla [--sample 360] [--seed 1]
        [--budget 1800] [--jobs 2] [--write] [--fail-under 0.9]
    .venv/bin/python tests/mutation/mutate.py --changed-since HEAD~1 --sample 12 --fail-under ...

A small driver rather than mutmut or cosmic-ray: mutmut 3 runs the tests from a copy of the tree in
``mutants/``, which the editable install (``pip install -e .`` puts ``service/`` on ``sys.path``)
bypasses, so no test ever reached a mutant (tried: "could not find any test case for any
mutant"); cosmic-ray writes each mutant into the working tree and keeps a session database. This
one never touches a file:

- **Mutants** come from the module's syntax tree (:func:`mutants`): a comparison flipped (``<`` to
  ``<=``, ``==`` to ``!=``, ``in`` to ``not in`` ...), an arithmetic operator swapped, ``and`` for
  ``or``, a ``not`` dropped, an integer constant off by one, ``True`` for ``False``, a string
  constant changed (a reason code, a sentence a player reads, an event text), a statement removed
  (an assignment, a call, a ``raise``). Annotations, docstrings and ``TYPE_CHECKING`` blocks are
  left alone. A mutant's id names its function, the kind of change and its place among that
  function's changes, so ids survive edits elsewhere in the file.
- **Each mutant runs** in a process forked from this one (pytest and the libraries already
  imported, nothing of ``lawspeaker``): an import hook serves the mutated source under the module's
  own name and file, then the module's tests run with ``-x``. A failure or error kills the mutant;
  so does running past ``TIMEOUT_FACTOR`` times the unmutated run (an endless loop).
- **Which tests**: the module's rule scenarios, golden playthroughs, the property tests over every
  game and the reason tests, only those naming the game (:data:`TESTS`).
- **Sampling**: ``--sample`` mutants drawn with ``--seed`` from all of the module's, run until
  ``--budget`` seconds have passed; ``--write`` records the result in ``docs/test-strength.md``.
- **Equivalent mutants** (no test can tell them apart from the original: a change to dead code, to
  a value every caller ignores) are listed in ``tests/mutation/equivalent.json`` by id, each with a
  one-line reason; they do not count against the score.
- **Rechecking** (``--recheck``): after tests are written for the survivors of a recorded run,
  only those survivors, and the sampled mutants the budget never reached, run again (the same
  sample: the module must not have changed since); the record is updated, saying so, and the
  mutants it counted as killed stay killed (tests are only added; a weakened test shows in CI's
  ``--below-recorded`` check).
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "service"
DOC = ROOT / "docs" / "test-strength.md"
EQUIVALENT = Path(__file__).with_name("equivalent.json")
SCORES = Path(__file__).with_name("scores.json")
TIMEOUT_FACTOR = 4.0
ENGINES = (
    "games/core.py",
    "games/valhalla",
    "games/penki",
    "games/pax_penning",
    "games/pax_viking_junior",
    "games/birka",
)

COMPARE_SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
BINOP_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv,
}


def module_name(target: str) -> tuple[str, Path]:
    """``games/valhalla`` -> (``lawspeaker.games.valhalla``, its ``__init__.py``)."""
    path = SERVICE / "lawspeaker" / target
    if path.is_dir():
        path = path / "__init__.py"
        name = "lawspeaker." + target.strip("/").replace("/", ".")
    else:
        name = "lawspeaker." + target.removesuffix(".py").replace("/", ".")
    if not path.exists():
        raise SystemExit(f"no engine module {target!r} ({path})")
    return name, path


def tests_for(target: str) -> list[str]:
    """The tests a module's mutants run against."""
    if target == "games/core.py":
        return ["tests/games", "tests/golden", "tests/properties/test_every_game.py"]
    game = target.split("/")[1]
    rules = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "games").glob(f"test_{game}_*.py"))
    return [
        *rules,
        "tests/golden/test_playthroughs.py",
        "tests/properties/test_every_game.py",
        "tests/games/test_reasons.py",
        "tests/games/test_refusals_in_play.py",
        "-k",
        f"{game} or {game.replace('_', '-')}",
    ]


# --------------------------------------------------------------------------- mutants


@dataclass(frozen=True)
class Mutant:
    id: str  # "<function>:<kind>:<n>": the n-th change of that kind in that function
    line: int
    what: str  # the change, in words
    source: str  # the whole mutated module


class _Places(ast.NodeVisitor):
    """Every place a mutation can be made, in source order, with the function it lies in."""

    def __init__(self) -> None:
        self.found: list[tuple[str, ast.AST, str, str]] = []  # (function, node, kind, detail)
        self._scope: list[str] = []
        self._functions = 0  # how many of the enclosing scopes are functions

    def _in(self, node: ast.AST, name: str, function: bool) -> None:
        self._scope.append(name)
        self._functions += function
        self.generic_visit(node)
        self._functions -= function
        self._scope.pop()

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in ("TypeVar", "NewType", "ParamSpec"):
            return  # its name string is for type checkers only
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        node.returns = None  # annotations are not behaviour
        for arg in (*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs):
            arg.annotation = None
        if node.body and _docstring(node.body[0]):
            node.body[0]._skip = True  # type: ignore[attr-defined]
        self._in(node, node.name, True)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if node.body and _docstring(node.body[0]):
            node.body[0]._skip = True  # type: ignore[attr-defined]
        self._in(node, node.name, False)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_If(self, node: ast.If) -> None:
        if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return
        self.generic_visit(node)

    def _add(self, node: ast.AST, kind: str, detail: str) -> None:
        self.found.append((".".join(self._scope) or "<module>", node, kind, detail))

    def visit_Compare(self, node: ast.Compare) -> None:
        for i, op in enumerate(node.ops):
            if type(op) in COMPARE_SWAPS:
                self._add(node, "compare", str(i))
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if type(node.op) in BINOP_SWAPS and not isinstance(node.left, ast.Constant | ast.JoinedStr):
            self._add(node, "binop", "")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if type(node.op) in BINOP_SWAPS:
            self._add(node, "augop", "")
        self._add(node, "delete", "")
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        self._add(node, "boolop", "")
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self._add(node, "not", "")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if getattr(node, "_skip", False):
            return
        value = node.value
        if isinstance(value, bool):
            self._add(node, "bool", "")
        elif isinstance(value, int):
            self._add(node, "int", "")
        elif isinstance(value, str) and value.strip():
            self._add(node, "str", "")

    def visit_Expr(self, node: ast.Expr) -> None:
        if getattr(node, "_skip", False) or _docstring(node):
            return
        if isinstance(node.value, ast.Call):
            self._add(node, "delete", "")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if self._functions:  # a module or class name removed only breaks the import
            self._add(node, "delete", "")
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        self._add(node, "delete", "")
        self.generic_visit(node)


def _docstring(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _mutate(node: ast.AST, kind: str, detail: str) -> tuple[ast.AST | None, str]:
    """The mutated node (None: the statement is removed) and the change in words."""
    new = copy.copy(node)
    if kind == "compare":
        assert isinstance(new, ast.Compare)
        i = int(detail)
        ops = list(new.ops)
        old = type(ops[i])
        ops[i] = COMPARE_SWAPS[old]()
        new.ops = ops
        return new, f"{old.__name__} -> {type(ops[i]).__name__}"
    if kind in ("binop", "augop"):
        assert isinstance(new, ast.BinOp | ast.AugAssign)
        old_op = type(new.op)
        new.op = BINOP_SWAPS[old_op]()
        return new, f"{old_op.__name__} -> {type(new.op).__name__}"
    if kind == "boolop":
        assert isinstance(new, ast.BoolOp)
        new.op = ast.Or() if isinstance(new.op, ast.And) else ast.And()
        return new, f"{'and -> or' if isinstance(new.op, ast.Or) else 'or -> and'}"
    if kind == "not":
        assert isinstance(new, ast.UnaryOp)
        return new.operand, "not dropped"
    if kind == "bool":
        assert isinstance(new, ast.Constant)
        new.value = not node.value  # type: ignore[attr-defined]
        return new, f"{node.value} -> {new.value}"  # type: ignore[attr-defined]
    if kind == "int":
        assert isinstance(new, ast.Constant)
        new.value = node.value + 1  # type: ignore[attr-defined]
        return new, f"{node.value} -> {new.value}"  # type: ignore[attr-defined]
    if kind == "str":
        assert isinstance(new, ast.Constant)
        new.value = "XX" + node.value  # type: ignore[attr-defined]
        shown = node.value if len(node.value) <= 40 else node.value[:37] + "..."  # type: ignore[attr-defined]
        return new, f"string {shown!r} changed"
    if kind == "delete":
        return None, f"statement removed: {ast.unparse(node).splitlines()[0][:60]}"
    raise ValueError(kind)


class _Replace(ast.NodeTransformer):
    def __init__(self, target: ast.AST, replacement: ast.AST | None) -> None:
        self.target, self.replacement = target, replacement

    def visit(self, node: ast.AST) -> Any:
        if node is self.target:
            if self.replacement is None:
                return ast.Pass()
            return self.replacement
        return super().visit(node)


@dataclass(frozen=True)
class Place:
    """Where one mutant changes the module: the ``index``-th place :class:`_Places` finds."""

    index: int
    id: str
    line: int
    kind: str
    detail: str


def places(path: Path) -> list[Place]:
    """Every place of the module at ``path`` a mutant changes, in source order, each with its id."""
    finder = _Places()
    finder.visit(ast.parse(path.read_text()))
    counts: dict[tuple[str, str], int] = {}
    out = []
    for index, (function, node, kind, detail) in enumerate(finder.found):
        n = counts.get((function, kind), 0)
        counts[(function, kind)] = n + 1
        out.append(Place(index, f"{function}:{kind}:{n}", getattr(node, "lineno", 0), kind, detail))
    return out


def build(path: Path, place: Place) -> Mutant:
    """The mutant that changes ``place`` (the module parsed afresh: each mutant changes one place)."""
    tree = ast.parse(path.read_text())
    finder = _Places()
    finder.visit(tree)
    _, node, kind, detail = finder.found[place.index]
    replacement, what = _mutate(node, kind, detail)
    ast.fix_missing_locations(_Replace(node, replacement).visit(tree))
    return Mutant(place.id, place.line, what, ast.unparse(tree))


# --------------------------------------------------------------------------- running


class _MutatedLoader(importlib.machinery.SourceFileLoader):
    """The module's own file loader (so its data files and ``importlib.resources`` work as ever),
    compiling the mutated source instead of the file's (and never a cached bytecode file)."""

    def __init__(self, name: str, path: Path, source: str) -> None:
        super().__init__(name, str(path))
        self.mutated = source

    def get_code(self, fullname: str) -> Any:
        return compile(self.mutated, self.path, "exec", dont_inherit=True)


class _Mutated(importlib.abc.MetaPathFinder):
    """Serves one module's mutated source under its own name and file."""

    def __init__(self, name: str, path: Path, source: str) -> None:
        self.name, self.path = name, path
        self.loader = _MutatedLoader(name, path, source)

    def find_spec(
        self, fullname: str, path: Any, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        package = self.path.name == "__init__.py"
        return importlib.util.spec_from_file_location(
            fullname,
            self.path,
            loader=self.loader,
            submodule_search_locations=[str(self.path.parent)] if package else None,
        )


PYTEST_ARGS = [
    "-x",
    "-q",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:xdist",
    "--hypothesis-seed=0",
    "-o",
    "addopts=",
]


def _run_in_child(name: str, path: Path, source: str | None, tests: Sequence[str]) -> int:
    """Fork; in the child, serve the mutant (when given) and run the tests; the child's pid."""
    pid = os.fork()
    if pid:
        return pid
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        if source is not None:
            sys.meta_path.insert(0, _Mutated(name, path, source))
        import pytest

        code = pytest.main([*PYTEST_ARGS, *tests])
        os._exit(int(code))
    except BaseException:
        os._exit(99)


def baseline(name: str, path: Path, tests: Sequence[str]) -> float:
    """Seconds the tests take with the unmutated source served the way mutants are (they must
    pass: so the import hook itself is checked on every run)."""
    started = time.perf_counter()
    pid = _run_in_child(name, path, ast.unparse(ast.parse(path.read_text())), tests)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the tests of {name} fail unmutated, served by the import hook: {' '.join(tests)}")
    return time.perf_counter() - started


def run(
    mutants_: Sequence[Mutant],
    name: str,
    path: Path,
    tests: Sequence[str],
    jobs: int,
    budget: float,
    timeout: float,
) -> Iterator[tuple[Mutant, str]]:
    """Each mutant with its fate, ``killed``, ``survived`` or ``timeout`` (counted as killed), until
    the budget is spent."""
    pending = list(mutants_)
    running: dict[int, tuple[Mutant, float]] = {}
    deadline = time.perf_counter() + budget
    while pending or running:
        while pending and len(running) < jobs and time.perf_counter() < deadline:
            mutant = pending.pop(0)
            running[_run_in_child(name, path, mutant.source, tests)] = (mutant, time.perf_counter())
        if not running:
            break
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            now = time.perf_counter()
            for child, (mutant, started) in list(running.items()):
                if now - started > timeout:
                    os.kill(child, signal.SIGKILL)
                    os.waitpid(child, 0)
                    del running[child]
                    yield mutant, "timeout"
            time.sleep(0.02)
            continue
        mutant, _ = running.pop(pid)
        yield mutant, "survived" if os.waitstatus_to_exitcode(status) == 0 else "killed"


# --------------------------------------------------------------------------- the report


def _equivalent() -> dict[str, dict[str, str]]:
    return json.loads(EQUIVALENT.read_text()) if EQUIVALENT.exists() else {}


def _write(target: str, result: dict[str, Any]) -> None:
    scores = json.loads(SCORES.read_text()) if SCORES.exists() else {}
    scores[target] = result
    SCORES.write_text(json.dumps(scores, indent=2, sort_keys=True) + "\n")
    lines = [
        "# Test strength: mutation scores of the engines",
        "",
        "Written by `tests/mutation/mutate.py <module> --write` (the module docstring says how it",
        "works). A mutant is a small wrong change to an engine; a good test suite fails on it",
        "(*killed*). The score is killed / (run - equivalent): equivalent mutants, listed in",
        "`tests/mutation/equivalent.json` with why, are changes no test can tell from the original.",
        "CI runs a small sample on the engine modules a commit touches (`.ci/run`). After tests are",
        "written for a run's survivors, `--recheck` runs those survivors (and any sampled mutant the",
        "run's budget did not reach) again and updates the record; its section says so.",
        "",
        "| module | mutants | sampled | run | killed | survived | equivalent | score | tests | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for name, r in sorted(scores.items()):
        lines.append(
            f"| `{name}` | {r['total']} | {r['sampled']} | {r['run']} | {r['killed']} | {r['survived']} |"
            f" {r['equivalent']} | {r['score']:.0%} | {r['tests_seconds']:.1f} s a run | {r['seconds']:.0f} |"
        )
    for name, r in sorted(scores.items()):
        lines += ["", f"## `{name}`: surviving mutants", ""]
        if "rechecked" in r:
            lines += [
                f"Rechecked on {r['rechecked']['on']} (`--recheck`): the recorded run's survivors and the "
                f"sampled mutants its budget had not reached, {r['rechecked']['mutants']} in all, ran again.",
                "",
            ]
        if not r["survivors"]:
            lines.append("None.")
        for s in r["survivors"]:
            lines.append(f"- `{s['id']}` (line {s['line']}): {s['what']}")
        if r["equivalents"]:
            lines += ["", "Equivalent:", ""]
            lines += [f"- `{e['id']}`: {e['why']}" for e in r["equivalents"]]
    DOC.write_text("\n".join(lines) + "\n")


def measure(target: str, sample: int, seed: int, budget: float, jobs: int) -> dict[str, Any]:
    name, path = module_name(target)
    tests = tests_for(target)
    everything = places(path)
    chosen = [build(path, p) for p in random.Random(seed).sample(everything, min(sample, len(everything)))]
    took = baseline(name, path, tests)
    print(
        f"{target}: {len(everything)} mutants, {len(chosen)} sampled; the tests take {took:.1f} s", flush=True
    )
    equivalent = _equivalent().get(target, {})
    started = time.perf_counter()
    fates: dict[str, str] = {}
    survivors: list[dict[str, Any]] = []
    equivalents: list[dict[str, str]] = []
    for mutant, fate in run(chosen, name, path, tests, jobs, budget, took * TIMEOUT_FACTOR + 10):
        fates[mutant.id] = fate
        if fate == "survived":
            if mutant.id in equivalent:
                equivalents.append({"id": mutant.id, "why": equivalent[mutant.id]})
            else:
                survivors.append({"id": mutant.id, "line": mutant.line, "what": mutant.what})
                print(f"  survived {mutant.id} (line {mutant.line}): {mutant.what}", flush=True)
    killed = sum(f != "survived" for f in fates.values())
    counted = len(fates) - len(equivalents)
    return {
        "total": len(everything),
        "sampled": len(chosen),
        "run": len(fates),
        "killed": killed,
        "survived": len(survivors),
        "equivalent": len(equivalents),
        "score": killed / counted if counted else 1.0,
        "seed": seed,
        "tests_seconds": took,
        "seconds": time.perf_counter() - started,
        "survivors": sorted(survivors, key=lambda s: s["line"]),
        "equivalents": equivalents,
    }


def recheck(target: str, jobs: int, budget: float) -> dict[str, Any]:
    """The recorded run of ``target`` brought up to date: its survivors, and the sampled mutants
    its budget never reached, run against today's tests and equivalents list."""
    recorded = json.loads(SCORES.read_text()).get(target) if SCORES.exists() else None
    if recorded is None:
        raise SystemExit(f"{target}: no recorded run to recheck (run it with --write first)")
    name, path = module_name(target)
    everything = places(path)
    if len(everything) != recorded["total"]:
        raise SystemExit(
            f"{target} has {len(everything)} mutants, the recorded run {recorded['total']}: the module "
            "changed since, so its sample did too; run it afresh"
        )
    sample = random.Random(recorded["seed"]).sample(everything, min(recorded["sampled"], len(everything)))
    ran = {p.id for p in sample[: recorded["run"]]}  # run() starts them in sample order
    survived = {s["id"] for s in recorded["survivors"]} | {e["id"] for e in recorded["equivalents"]}
    if not survived <= ran:
        raise SystemExit(f"{target}: the recorded survivors are not in its sample: run it afresh")
    again = [p for p in sample if p.id in survived] + sample[recorded["run"] :]
    tests = tests_for(target)
    took = baseline(name, path, tests)
    print(f"{target}: rechecking {len(again)} of {len(sample)} sampled mutants", flush=True)
    equivalent = _equivalent().get(target, {})
    started = time.perf_counter()
    fates: dict[str, str] = {}
    survivors: list[dict[str, Any]] = []
    equivalents: list[dict[str, str]] = []
    for mutant, fate in run(
        [build(path, p) for p in again], name, path, tests, jobs, budget, took * TIMEOUT_FACTOR + 10
    ):
        fates[mutant.id] = fate
        if fate == "survived":
            if mutant.id in equivalent:
                equivalents.append({"id": mutant.id, "why": equivalent[mutant.id]})
            else:
                survivors.append({"id": mutant.id, "line": mutant.line, "what": mutant.what})
                print(f"  survived {mutant.id} (line {mutant.line}): {mutant.what}", flush=True)
    recorded_killed = recorded["run"] - len(survived)
    unrun = [p.id for p in again if p.id not in fates]
    done = len(ran) + sum(1 for p in sample[recorded["run"] :] if p.id in fates)
    left = [i for i in unrun if i in survived]  # survivors the budget did not reach stay as recorded
    survivors += [s for s in recorded["survivors"] if s["id"] in left]
    equivalents += [e for e in recorded["equivalents"] if e["id"] in left]
    killed = recorded_killed + sum(f != "survived" for f in fates.values())
    counted = done - len(equivalents)
    return {
        **recorded,
        "run": done,
        "killed": killed,
        "survived": len(survivors),
        "equivalent": len(equivalents),
        "score": killed / counted if counted else 1.0,
        "tests_seconds": took,
        "seconds": recorded["seconds"] + time.perf_counter() - started,
        "survivors": sorted(survivors, key=lambda s: s["line"]),
        "equivalents": equivalents,
        "rechecked": {"mutants": len(fates), "on": time.strftime("%Y-%m-%d")},
    }


def changed_engines(since: str) -> list[str]:
    """The engine modules a change since ``since`` touched (all of them when git cannot tell)."""
    try:
        out = subprocess.run(
            ["git", "diff", "--name-only", since, "--", "service/lawspeaker/games"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (subprocess.CalledProcessError, FileNotFoundError):
        return list(ENGINES)
    touched = []
    for engine in ENGINES:
        prefix = "service/lawspeaker/" + engine
        if any(line == prefix or line.startswith(prefix.rstrip("/") + "/") for line in out.splitlines()):
            touched.append(engine)
    return touched


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "modules", nargs="*", help=f"engine modules, e.g. games/valhalla (of {', '.join(ENGINES)})"
    )
    parser.add_argument(
        "--changed-since", metavar="REV", help="the engine modules changed since a git revision"
    )
    parser.add_argument("--sample", type=int, default=360, help="mutants drawn per module")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=3600, help="seconds per module at most")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--write", action="store_true", help=f"record the result in {DOC.relative_to(ROOT)}")
    parser.add_argument("--fail-under", type=float, default=None, help="exit 1 if a module scores below")
    parser.add_argument(
        "--below-recorded",
        type=float,
        default=None,
        metavar="MARGIN",
        help="exit 1 if a module scores more than MARGIN below its recorded full run (scores.json)",
    )
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument(
        "--recheck",
        action="store_true",
        help="run only the recorded run's survivors and unreached sampled mutants again, update the record",
    )
    args = parser.parse_args(argv)
    modules = list(args.modules)
    if args.changed_since:
        modules += [m for m in changed_engines(args.changed_since) if m not in modules]
    if not modules:
        print("no engine module to mutate")
        return 0
    if args.list:
        for target in modules:
            path = module_name(target)[1]
            for p in places(path):
                print(f"{target} {p.id} (line {p.line}): {build(path, p).what}")
        return 0
    failed = False
    for target in modules:
        if args.recheck:
            result = recheck(target, args.jobs, args.budget)
        else:
            result = measure(target, args.sample, args.seed, args.budget, args.jobs)
        print(
            f"{target}: {result['run']} run, {result['killed']} killed, {result['survived']} survived, "
            f"{result['equivalent']} equivalent: score {result['score']:.0%} in {result['seconds']:.0f} s",
            flush=True,
        )
        if args.write:
            _write(target, result)
        if args.fail_under is not None and result["score"] < args.fail_under:
            failed = True
        recorded = json.loads(SCORES.read_text()).get(target) if SCORES.exists() else None
        if args.below_recorded is not None and recorded is not None:
            floor = recorded["score"] - args.below_recorded
            if result["score"] < floor:
                print(
                    f"{target}: {result['score']:.0%} is below {floor:.0%}: the recorded "
                    f"{recorded['score']:.0%} less the margin"
                )
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    import google.protobuf  # noqa: F401
    import hypothesis  # noqa: F401
    import pytest  # noqa: F401 - imported once here, so each forked run starts warm

    raise SystemExit(main())
