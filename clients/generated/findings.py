"""The findings of the linters and generators check.sh runs, held to lint_expected.json: any
finding not listed there (clients/README.md says why each listed one stays) fails the check.

    python findings.py redocly REPORT.json       # redocly lint --format=json
    python findings.py spectral REPORT.json      # spectral lint -f json
    python findings.py openapi-generator LOG...  # openapi-generator-cli generate's output
    python findings.py openapi-typescript LOG    # openapi-typescript's output (it lints with redocly)
    python findings.py quiet LOG...              # a tool that must print no warning at all
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

EXPECTED = json.loads((Path(__file__).parent / "lint_expected.json").read_text())


def redocly(report: str) -> list[str]:
    problems = json.loads(Path(report).read_text())["problems"]
    return [f"{p['ruleId']} {p['location'][0]['pointer']}" for p in problems]


def spectral(report: str) -> list[str]:
    text = Path(report).read_text().strip()
    results = json.loads(text) if text.startswith("[") else []
    return [f"{r['code']} #/{'/'.join(str(p) for p in r['path'])}" for r in results]


def openapi_generator(*logs: str) -> list[str]:
    found = []
    for log in logs:
        for line in Path(log).read_text().splitlines():
            match = re.search(r"\b(WARN|ERROR)\b\s+\S+ - (.*)", line)
            if match:
                message = match.group(2)
                if not any(message.startswith(known) for known in EXPECTED["openapi-generator"]):
                    found.append(f"{Path(log).name}: {message}")
    return found


def quiet(*logs: str, allowed: tuple[str, ...] = ()) -> list[str]:
    words = re.compile(r"warn|error|⚠", re.IGNORECASE)
    return [
        f"{Path(log).name}: {line}"
        for log in logs
        for line in Path(log).read_text().splitlines()
        if words.search(line) and not any(line.strip().endswith(known) for known in allowed)
    ]


def main(tool: str, *paths: str) -> int:
    if tool in ("redocly", "spectral"):
        found = redocly(*paths) if tool == "redocly" else spectral(*paths)
        unexpected = sorted(set(found) - set(EXPECTED[tool]))
        gone = sorted(set(EXPECTED[tool]) - set(found))
        for finding in found:
            print(
                f"  {tool}: {finding}{'' if finding in EXPECTED[tool] else '   <- not in lint_expected.json'}"
            )
        if gone:
            print(f"  {tool}: listed but no longer found (drop them from lint_expected.json): {gone}")
        return 1 if unexpected or gone else 0
    if tool == "openapi-generator":
        found = openapi_generator(*paths)
    else:
        found = quiet(*paths, allowed=tuple(EXPECTED.get(tool, ())))
    for finding in found:
        print(f"  unexpected: {finding}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
