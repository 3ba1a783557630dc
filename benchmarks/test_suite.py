"""How long the test suite takes: the README's test command and the quick loop, on this machine.

    .venv/bin/python benchmarks/test_suite.py [--write]

Runs ``pytest -m "not transport and not sessions"`` (the quick loop) and ``pytest`` (the README's
command, with the browser tests required when Chromium is installed, as CI runs it) one after the
other, each once the load average has settled (below 1 or after 3 minutes), each with
``--durations=0``, and prints their wall times, test counts and where the time goes
by layer (the tests/ folder: the sum of every test's setup, call and teardown over all workers).
``--write`` replaces the "The test suite" section of docs/benchmarks.md (``benchmarks/run.py`` keeps
it). The goals (issue 34) are absolute: 6 min and 60 s on this 2-core machine with nothing else
running, so the load average when each run starts is recorded beside it.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "benchmarks.md"
HEADING = "## The test suite"
PYTEST = str(ROOT / ".venv" / "bin" / "pytest")
GOALS = {"full": 360.0, "quick": 60.0}
QUICK = ["-m", "not transport and not sessions"]


@dataclass
class Run:
    name: str
    wall: float
    summary: str
    load: float
    by_layer: dict[str, float]


def settle(below: float = 1.0, at_most: float = 180.0) -> None:
    """Wait until the 1-minute load average is below ``below`` (the run before, or anything else,
    has finished working), for at most ``at_most`` seconds."""
    waited = 0.0
    while os.getloadavg()[0] >= below and waited < at_most:
        time.sleep(5)
        waited += 5


def run(name: str, extra: list[str]) -> Run:
    settle()
    env = dict(os.environ)
    if shutil.which("chromium") and name == "full":
        env["LAWSPEAKER_REQUIRE_BROWSER"] = "1"
    load = os.getloadavg()[0]
    started = time.monotonic()
    done = subprocess.run(
        [PYTEST, "-q", "-p", "no:cacheprovider", "--durations=0", *extra],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"{name}: pytest exited {done.returncode}\n{done.stdout[-4000:]}")
    summary = re.findall(r"^=*\s*(\d+ passed.*?) in [\d.]+s", done.stdout, re.MULTILINE)[-1]
    layers: collections.Counter[str] = collections.Counter()
    for seconds, node in re.findall(r"^([\d.]+)s (?:call|setup|teardown)\s+(\S+)", done.stdout, re.MULTILINE):
        layers[node.split("/")[1] if node.startswith("tests/") else node.split("::")[0]] += float(seconds)
    return Run(name, wall, summary, load, dict(layers.most_common()))


def section(runs: list[Run]) -> list[str]:
    cores = os.cpu_count()
    lines = [
        HEADING,
        "",
        f"Measured by `benchmarks/test_suite.py` on {time.strftime('%Y-%m-%d')}, {cores} cores, one run of "
        "each, the quick loop first, each started once the load average had settled (below 1, or after 3 "
        "minutes; the load average when each started is given), with nothing else running. The "
        "full suite is the README's test command (`pytest`: pytest-xdist, one worker per core, worksteal) "
        "with the browser tests required, as `.ci/run` runs it; the quick loop is "
        '`pytest -m "not transport and not sessions"`. Goals (issue 34): at most 6 min and 60 s.',
        "",
        "| loop | tests | wall time | goal | ratio to goal | load average at start |",
        "|---|---|---|---|---|---|",
    ]
    for r in runs:
        goal = GOALS[r.name]
        lines.append(
            f"| {'full suite' if r.name == 'full' else 'quick loop'} | {r.summary} | {r.wall:.0f} s | "
            f"{goal:.0f} s | {r.wall / goal:.2f}x | {r.load:.2f} |"
        )
    full = next(r for r in runs if r.name == "full")
    total = sum(full.by_layer.values())
    lines += [
        "",
        "Where the full suite's time goes, by layer (tests/ folder): the sum over both workers of every "
        f"test's setup, call and teardown, {total:.0f} s in all (the wall time is about half of it, "
        "plus start-up).",
        "",
        "| tests/ | seconds | share |",
        "|---|---|---|",
        *(f"| `{name}` | {seconds:.1f} | {seconds / total:.0%} |" for name, seconds in full.by_layer.items()),
        "",
        "Before issue 34 the full suite took 402 s on this machine, quiet (2,449 tests): one browser test, "
        "two pages tapping a whole Valhalla session (some 600 plies), took 151 s of it and ran last, alone. "
        "It now taps 40 plies in each page and follows the rest, played over REST, to the end (about 12 s). "
        "The quick loop once ran tests/sessions/test_cluster.py (a Redis Cluster, about 10 s), whose file "
        "had no `sessions` marker: tests/conftest.py now marks every test under tests/sessions.",
        "",
    ]
    return lines


def write(lines: list[str]) -> None:
    text = OUT.read_text()
    start = text.find(f"\n{HEADING}\n")
    if start == -1:
        text = text.rstrip("\n") + "\n\n" + "\n".join(lines)
    else:
        end = text.find("\n## ", start + 1)
        text = text[: start + 1] + "\n".join(lines) + ("\n" + text[end + 1 :] if end != -1 else "")
    OUT.write_text(text.rstrip("\n") + "\n")


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--write", action="store_true", help="replace the section of docs/benchmarks.md")
    args = parser.parse_args()
    runs = [run("quick", QUICK), run("full", [])]
    lines = section(runs)
    print("\n".join(lines))
    if args.write:
        write(lines)


if __name__ == "__main__":
    main()
