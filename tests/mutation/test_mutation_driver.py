"""The mutation driver (tests/mutation/mutate.py) makes mutants that compile, each changing one
place, with ids unique within a module and stable under edits elsewhere in it."""

from __future__ import annotations

import ast
import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mutation"))

import mutate


@pytest.mark.parametrize("target", mutate.ENGINES)
def test_every_engine_module_has_mutants_with_unique_ids_that_compile(target: str) -> None:
    _, path = mutate.module_name(target)
    places = mutate.places(path)
    assert len(places) > 100
    assert len({p.id for p in places}) == len(places)
    assert {p.kind for p in places} >= {"compare", "int", "str", "delete"}
    original = ast.dump(ast.parse(path.read_text()))
    for place in random.Random(0).sample(places, 12):
        mutant = mutate.build(path, place)
        compile(mutant.source, str(path), "exec")
        assert ast.dump(ast.parse(mutant.source)) != original, place


def test_ids_do_not_move_when_another_function_changes(tmp_path: Path) -> None:
    source = "def a(x):\n    return x < 1\n\n\ndef b(y):\n    return y + 2\n"
    first = tmp_path / "m.py"
    first.write_text(source)
    edited = tmp_path / "n.py"
    edited.write_text("def a(x):\n    z = 3\n    return x < 1 and z\n\n\n" + source.split("\n\n\n")[1])
    ids_b = {p.id for p in mutate.places(first) if p.id.startswith("b:")}
    assert ids_b == {p.id for p in mutate.places(edited) if p.id.startswith("b:")} == {"b:binop:0", "b:int:0"}


def test_the_kinds_of_change(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        'def f(x, y):\n    """Docstring."""\n    if not x and y >= 2:\n        raise ValueError("no")\n'
        "    x += 1\n    return True\n"
    )
    whats = {mutate.build(path, p).what for p in mutate.places(path)}
    assert whats == {
        "not dropped",
        "and -> or",
        "GtE -> Gt",
        "2 -> 3",
        "statement removed: raise ValueError('no')",
        "string 'no' changed",
        "Add -> Sub",
        "statement removed: x += 1",
        "1 -> 2",
        "True -> False",
    }


def test_the_import_hook_serves_the_mutant_with_the_package_s_own_files(tmp_path: Path) -> None:
    """A mutated package still reads its data files (importlib.resources): the hook loads it as its
    own file would be, only from the mutated source."""
    package = tmp_path / "mutated_pkg_probe"
    package.mkdir()
    (package / "data.json").write_text('{"n": 5}')
    init = package / "__init__.py"
    init.write_text(
        "import json\nimport importlib.resources\n"
        "DATA = json.loads(importlib.resources.files(__package__).joinpath('data.json').read_text())\n"
        "LIMIT = 3\n"
    )
    finder = mutate._Mutated("mutated_pkg_probe", init, init.read_text().replace("LIMIT = 3", "LIMIT = 4"))
    sys.meta_path.insert(0, finder)
    try:
        import mutated_pkg_probe  # type: ignore[import-not-found]

        assert mutated_pkg_probe.DATA == {"n": 5} and mutated_pkg_probe.LIMIT == 4
        assert mutated_pkg_probe.__file__ == str(init)
    finally:
        sys.meta_path.remove(finder)
        sys.modules.pop("mutated_pkg_probe", None)


def test_a_recheck_runs_the_recorded_survivors_and_the_unreached_mutants_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "def a(x):\n    return x < 1 and x > -5 and x != 3\n\n\ndef b(y):\n    return y + 2 - 7\n"
    )
    every = mutate.places(module)
    sample = random.Random(1).sample(every, 6)
    first, second = sample[0].id, sample[2].id  # survivors of a run that reached 4 of the 6
    scores = tmp_path / "scores.json"
    recorded = {
        "total": len(every), "sampled": 6, "run": 4, "killed": 2, "survived": 2, "equivalent": 0,
        "score": 0.5, "seed": 1, "tests_seconds": 1.0, "seconds": 10.0, "equivalents": [],
        "survivors": [{"id": i, "line": 1, "what": "?"} for i in (first, second)],
    }  # fmt: skip
    scores.write_text(json.dumps({"games/m": recorded}))
    ran: list[str] = []
    fates = {first: "killed", second: "survived", sample[4].id: "killed", sample[5].id: "survived"}

    def fake_run(mutants: list[mutate.Mutant], *_: object) -> list[tuple[mutate.Mutant, str]]:
        ran.extend(m.id for m in mutants)
        return [(m, fates[m.id]) for m in mutants]

    monkeypatch.setattr(mutate, "SCORES", scores)
    monkeypatch.setattr(mutate, "module_name", lambda target: ("m", module))
    monkeypatch.setattr(mutate, "tests_for", lambda target: [])
    monkeypatch.setattr(mutate, "baseline", lambda *a: 2.0)
    monkeypatch.setattr(mutate, "run", fake_run)
    monkeypatch.setattr(mutate, "_equivalent", lambda: {"games/m": {second: "dead code"}})
    result = mutate.recheck("games/m", 1, 100.0)
    assert ran == [first, second, sample[4].id, sample[5].id]
    assert (result["run"], result["killed"], result["survived"], result["equivalent"]) == (6, 4, 1, 1)
    assert [s["id"] for s in result["survivors"]] == [sample[5].id]
    assert result["equivalents"] == [{"id": second, "why": "dead code"}]
    assert result["score"] == 4 / 5 and result["rechecked"]["mutants"] == 4

    module.write_text(module.read_text() + "\n\ndef c(z):\n    return z * 3\n")
    with pytest.raises(SystemExit, match="changed since"):
        mutate.recheck("games/m", 1, 100.0)
