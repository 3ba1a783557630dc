"""OpenTelemetry traces (the optional ``lawspeaker[otel]`` extra). Being written: see issue 17."""

from __future__ import annotations

from typing import Any


def from_environment() -> Any:
    return None
