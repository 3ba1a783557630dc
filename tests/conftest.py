"""Shared pytest configuration: make tests/golden importable for its recorder module."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "golden"))
