"""Shared pytest configuration: make tests/golden importable for its recorder module, and the
hypothesis profile every property test runs under."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent / "golden"))

# The suite runs one pytest-xdist worker per core beside real servers, so how long an example takes
# says nothing about the code under test: no property may fail on a timing (the 200 ms deadline or
# the too-slow health check). Each property keeps its own max_examples; the profile fills in what
# its settings leave out. HYPOTHESIS_PROFILE=default restores hypothesis's own defaults.
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
