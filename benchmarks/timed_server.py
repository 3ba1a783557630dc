"""``lawspeaker serve`` with RulesApi.apply_move timed inside the server (benchmarks only).

Each call's CPU time on the serving thread (``time.thread_time``) and wall time are summed; on
SIGUSR1 the sums since the last signal are written to the file named by ``LAWSPEAKER_TIMES`` as
``calls cpu_seconds wall_seconds`` and reset.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from lawspeaker.api import rules
from lawspeaker.server import cli

_totals = [0, 0.0, 0.0]
_apply = rules.RulesApi.apply_move


def _timed(self: rules.RulesApi, request: Any) -> Any:
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        return _apply(self, request)
    finally:
        _totals[0] += 1
        _totals[1] += time.thread_time() - cpu
        _totals[2] += time.perf_counter() - wall


def _report(*_: object) -> None:
    Path(os.environ["LAWSPEAKER_TIMES"]).write_text(f"{_totals[0]} {_totals[1]} {_totals[2]}\n")
    _totals[:] = [0, 0.0, 0.0]


if __name__ == "__main__":
    rules.RulesApi.apply_move = _timed  # type: ignore[method-assign]
    signal.signal(signal.SIGUSR1, _report)
    sys.exit(cli.main(sys.argv[1:]))
