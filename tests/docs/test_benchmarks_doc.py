"""docs/benchmarks.md is written by several scripts: ``benchmarks/run.py`` rewrites its own sections
and keeps the ones the bot and test-suite benchmarks own."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _run_module() -> ModuleType:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location("benchmarks_run", ROOT / "benchmarks" / "run.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def test_run_keeps_the_sections_other_scripts_write() -> None:
    run = _run_module()
    text = "\n".join(
        [
            "# Benchmarks",
            "",
            "## Engine: random playouts on one core",
            "old engine table",
            "",
            "## Bots: win rates against other levels",
            "bots table",
            "",
            "## Game sessions: old",
            "old sessions",
            "## The test suite",
            "",
            "suite table",
            "",
        ]
    )
    assert run.kept_sections(text) == [
        "## Bots: win rates against other levels",
        "bots table",
        "",
        "## The test suite",
        "",
        "suite table",
    ]


def test_every_section_of_the_document_has_an_owner() -> None:
    """A section nobody rewrites goes stale: each heading is run.py's own or one it keeps."""
    run = _run_module()
    source = (ROOT / "benchmarks" / "run.py").read_text() + "".join(
        p.read_text() for p in (ROOT / "benchmarks").glob("*.py") if p.name != "run.py"
    )
    for line in (ROOT / "docs" / "benchmarks.md").read_text().splitlines():
        if line.startswith("## ") and not line.startswith(run.OTHERS):
            assert line.split(":")[0] in source, f"{line!r}: no benchmark script writes this section"
