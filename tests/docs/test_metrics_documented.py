"""docs/observability.md lists every metric the service defines (issue 17: "The README lists the
metrics"; the README's section moved there)."""

from __future__ import annotations

import re
from pathlib import Path

from lawspeaker.observe import metrics

PAGE = Path(__file__).resolve().parents[2] / "docs" / "observability.md"


def _section() -> str:
    return PAGE.read_text().split("\n## Metrics, traces and logs\n", 1)[1].split("\n## ", 1)[0]


def test_every_defined_metric_is_in_the_metrics_table_with_its_type() -> None:
    section = _section()
    rows = {
        name: line
        for line in section.splitlines()
        if line.startswith("| `")
        for name in re.findall(r"`([a-z_]+)`", line.split("|")[1])
    }
    missing = []
    for metric in metrics.defined():
        kind = metric._type
        shown = metric._name + ("_total" if kind == "counter" else "")
        row = rows.get(shown)
        if row is None or kind not in row.split("|")[2]:
            missing.append(f"{shown} ({kind})")
    assert not missing, f"not in docs/observability.md's metrics table with their type: {missing}"


def test_the_page_names_no_metric_the_service_does_not_export() -> None:
    named = set(re.findall(r"`((?:lawspeaker|process)_[a-z_]+)`", _section()))
    assert named <= metrics.exported_names(), named - metrics.exported_names()
