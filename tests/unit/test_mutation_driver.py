"""The mutation driver (tests/mutation/mutate.py) makes mutants that compile, each changing one
place, with ids unique within a module and stable under edits elsewhere in it."""

from __future__ import annotations

import ast
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
