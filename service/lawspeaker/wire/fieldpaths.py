"""Field paths in the names a client wrote its request with.

Errors name the field at fault by its path from the request message (``move.valhalla.move_ship.ship``,
``state.pax_penning.players[2].coins``), as ``google.rpc.BadRequest`` describes: the engine, the codecs
and gRPC use the proto field names. A JSON body (REST or Connect with JSON) was written with the
proto3 JSON names, so its errors name the fields that way (``move.valhalla.moveShip.ship``): the
transports convert the path with :func:`to_json` when they answer a JSON request. The JSON name of a
field is its lowerCamelCase name (no field of the contract sets another ``json_name``;
``tests/wire/test_fieldpaths.py`` holds that), so the conversion needs no descriptor.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from lawspeaker.games.core import FieldViolation, LawspeakerError

_SNAKE = re.compile(r"_([a-z0-9])")


@functools.lru_cache(maxsize=4096)
def to_json(path: str) -> str:
    """``path`` with each proto field name in its JSON (lowerCamelCase) spelling; indexes, header
    names (``If-Match``) and names already in JSON spelling are kept."""
    return _SNAKE.sub(lambda m: m.group(1).upper(), path)


def json_violations(err: LawspeakerError) -> tuple[FieldViolation, ...]:
    """The error's field violations with their paths in JSON names."""
    return tuple(FieldViolation(to_json(v.field), v.description) for v in err.field_violations)


def for_json(err: LawspeakerError) -> LawspeakerError:
    """The same error, naming its fields as a JSON request wrote them: in the field violations, and
    wherever the message names one of their paths (``malformed`` starts with it, an invalid state
    names its first violation after a sentence)."""
    violations = json_violations(err)
    if violations == err.field_violations:
        return err
    message = err.message
    pairs = zip(err.field_violations, violations, strict=True)
    renamed = {v.field: j.field for v, j in pairs if v.field != j.field}
    for path in sorted(renamed, key=len, reverse=True):  # a path before any path it starts with
        message = re.sub(rf"(?<![\w.]){re.escape(path)}(?!\w)", renamed[path], message)
    return LawspeakerError(err.code, err.reason, message, violations, err.metadata, err.retry_after)


def json_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """A JSON answer (proto3 JSON of a response) whose ``violation`` names its field in JSON names."""
    violation = answer.get("violation")
    if isinstance(violation, dict) and "field" in violation:
        violation["field"] = to_json(violation["field"])
    return answer
