"""The phone figures tests/web/test_phone.py measures (the smallest board text and tap area, by
game and screen, and how long another seat's screen takes to show a move), written to
``artifacts/phone-figures.json`` on every run and, when asked (``LAWSPEAKER_WRITE_FIGURES=1``), into
docs/benchmarks.md's section "The web app on a phone", between its markers. Figures are recorded,
never asserted on as timings."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARTIFACT = ROOT / "artifacts" / "phone-figures.json"
DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- phone-figures:begin -->", "<!-- phone-figures:end -->"


def table(found: dict[str, dict[str, float]]) -> str:
    """The figures as a Markdown table, by game and screen."""
    rows = [
        "| game, screen | smallest board text | smallest tap area "
        "| another screen shows a move: median, worst |",
        "|---|---:|---:|---:|",
    ]

    def px(f: dict[str, float], k: str) -> str:
        return f"{f[k]:.1f} px" if k in f else "-"

    for key in sorted(found):
        f = found[key]
        delay = "-"
        if "delay_median_ms" in f:
            delay = f"{f['delay_median_ms']:.0f} ms, {f['delay_worst_ms']:.0f} ms"
            delay += f" ({f['delay_moves']:.0f} screens' moves)"
        rows.append(f"| {key} | {px(f, 'text')} | {px(f, 'target')} | {delay} |")
    return "\n".join(rows)


def write(found: dict[str, dict[str, float]], *, into_docs: bool) -> None:
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text(json.dumps(found, indent=2, sort_keys=True) + "\n")
    if not into_docs:
        return
    text = DOCS.read_text()
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    block = (
        f"{BEGIN}\nMeasured {stamp} by tests/web/test_phone.py (Chromium, touch):\n\n{table(found)}\n{END}"
    )
    if BEGIN in text:
        text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    else:
        text += f"\n## The web app on a phone\n\n{block}\n"
    DOCS.write_text(text)
