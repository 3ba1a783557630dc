"""What ``lawspeaker serve`` reads from its environment, for the checks of deploy/ (check_compose.py,
check_kubernetes.py): a file there may name only variables the command reads, with values it accepts.

The names are not listed here by hand, where they would drift from the command: they are recorded
while the command builds its parser (each option reads its variable for its default), together with
every LAWSPEAKER_* name its ``serve --help`` mentions. Values are checked by the command's own
parsing and flag checks, in an environment that holds only the variables given.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any
from unittest import mock

from lawspeaker.server import cli

PREFIX = "LAWSPEAKER_"


class _RecordingEnviron(dict[str, str]):
    """A stand-in for ``os.environ`` that remembers every name looked up in it."""

    def __init__(self, values: Mapping[str, str]) -> None:
        super().__init__(values)
        self.read: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> str:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.read.add(key)
        return super().__contains__(key)


@contextlib.contextmanager
def _environ(values: Mapping[str, str]) -> Iterator[_RecordingEnviron]:
    """Run the block with ``os.environ`` (which ``os.getenv`` reads too) holding ``values`` only."""
    recording = _RecordingEnviron(values)
    with mock.patch.object(os, "environ", recording):
        yield recording


def serve_env_names() -> frozenset[str]:
    """Every LAWSPEAKER_* variable of ``lawspeaker serve``: read for a default, or named in its help."""
    with _environ({}) as env:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            cli.parser().parse_args(["serve", "--help"])
    named = set(re.findall(PREFIX + r"[A-Z0-9_]+", out.getvalue()))
    return frozenset({n for n in env.read if n.startswith(PREFIX)} | named)


def serve_settings(env: Mapping[str, str]) -> argparse.Namespace:
    """The settings ``lawspeaker serve`` would run with under ``env`` and no flags.

    ValueError, with the command's own message, when it would refuse to start on them.
    """
    err = io.StringIO()
    try:
        with _environ(env), contextlib.redirect_stderr(err):
            args = cli.parser().parse_args(["serve"])
            cli._quotas(args)  # the flag checks `serve` makes before it starts
    except SystemExit as exit_:
        message = str(exit_.code) if isinstance(exit_.code, str) else err.getvalue().strip()
        raise ValueError(message) from None
    except ValueError as bad:  # a number that is not one, met while the parser reads its defaults
        raise ValueError(f"a value the command cannot read: {bad}") from None
    return args


def unknown(names: Iterator[str] | set[str] | frozenset[str] | list[str]) -> list[str]:
    """The LAWSPEAKER_* names among ``names`` that ``lawspeaker serve`` does not read, sorted."""
    known = serve_env_names()
    return sorted(n for n in names if n.startswith(PREFIX) and n not in known)
