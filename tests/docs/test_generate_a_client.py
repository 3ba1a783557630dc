"""The "Generate a client" commands of docs/clients.md and of clients/README.md are the ones CI runs
(issue 33: "each command verbatim as CI runs it"): every line of their shell blocks is a line of
clients/generated/check.sh, after its ``logged LOG`` prefix where it has one; and the lint findings
check.sh lets pass are the ones clients/README.md justifies."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
CHECK = ROOT / "clients" / "generated" / "check.sh"


def commands_of(markdown: Path, heading: str) -> list[str]:
    """The lines of the ```sh blocks under ``heading`` (up to the next heading of its level)."""
    text = markdown.read_text(encoding="utf-8")
    level = heading.split(" ", 1)[0]
    section = text.split(f"\n{heading}\n", 1)[1]
    section = re.split(rf"\n{level} ", section, maxsplit=1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def ran_by_check() -> set[str]:
    lines = set()
    for line in CHECK.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        lines.add(line)
        match = re.match(r"logged \S+ (.*)", line)
        if match:
            lines.add(match.group(1))
    return lines


def test_the_readmes_commands_are_the_ones_check_sh_runs() -> None:
    ran = ran_by_check()
    for markdown, heading in (
        (ROOT / "docs" / "clients.md", "## Generate a client"),
        (ROOT / "clients" / "README.md", "## Generate a client"),
    ):
        commands = commands_of(markdown, heading)
        assert len(commands) >= 8, (markdown, commands)  # the setup and the four generators
        missing = [c for c in commands if c not in ran]
        assert not missing, f"{markdown.name}: commands check.sh does not run: {missing}"


def test_every_lint_finding_let_pass_is_justified_in_clients_readme() -> None:
    expected = json.loads((ROOT / "clients" / "generated" / "lint_expected.json").read_text())
    lint = (ROOT / "clients" / "README.md").read_text().split("\n## Lint\n", 1)[1].split("\n## ", 1)[0]
    for finding in expected["redocly"]:
        rule, pointer = finding.split(" ", 1)
        path = pointer.removeprefix("#/paths/").split("/")[0].replace("~1", "/")
        assert rule in lint and (path in lint or pointer.startswith("#/servers")), finding
    for message in expected["openapi-generator"]:
        assert message.split(" (")[0].rstrip(".") in lint.replace("\n", " "), message
    assert not expected["spectral"]
