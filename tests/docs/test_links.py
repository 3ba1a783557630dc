"""Every relative link of the README and the documentation pages leads somewhere: the file exists,
and an ``#anchor`` names a heading of the page it points to (as GitHub makes anchors). The README
was split into ``docs/`` pages (issue 34); a link left pointing at a section that moved fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    [
        ROOT / "README.md",
        *ROOT.glob("docs/**/*.md"),
        ROOT / "clients" / "README.md",
        *ROOT.glob("clients/*/README.md"),
        ROOT / "deploy" / "README.md",
        ROOT / "deploy" / "observability" / "README.md",
    ]
)
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the headings of ``page`` (repeated ones get -1, -2, ...), and the
    ``<a id="...">`` anchors a page sets itself (the rules documents' one per reason code)."""
    seen: dict[str, int] = {}
    found = set(re.findall(r'<a id="([^"]+)"', page.read_text()))
    for line in FENCE.sub("", page.read_text()).splitlines():
        heading = re.match(r"^#{1,6} (.*)$", line)
        if not heading:
            continue
        text = re.sub(r"[`*_]|\[([^]]*)\]\([^)]*\)", lambda m: m[1] or "", heading[1].strip())
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def links(page: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", page.read_text()))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(
                f"{target}: no {resolved.relative_to(ROOT) if resolved.is_relative_to(ROOT) else resolved}"
            )
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading #{anchor} in {resolved.relative_to(ROOT)}")
    assert not broken, broken


def test_the_readme_is_an_entry_point() -> None:
    """Issue 34: at most about 250 lines, linking to the pages that hold the rest."""
    readme = ROOT / "README.md"
    assert len(readme.read_text().splitlines()) <= 250
    linked = {(readme.parent / t.partition("#")[0]).resolve() for t in links(readme)}
    for page in (
        "architecture",
        "sessions",
        "bots",
        "quotas",
        "durability",
        "tls",
        "observability",
        "deployment",
        "clients",
        "load-tests",
        "testing",
    ):
        assert (ROOT / "docs" / f"{page}.md").resolve() in linked, page
