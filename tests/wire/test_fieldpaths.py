"""Field paths in JSON names: the conversion, and the contract fact it relies on."""

from __future__ import annotations

from google.protobuf import descriptor

from lawspeaker.games.core import ErrorCode, FieldViolation, LawspeakerError
from lawspeaker.v1 import rules_service_pb2, session_service_pb2
from lawspeaker.wire import fieldpaths


def _messages(desc: descriptor.Descriptor, seen: set[str]) -> None:
    if desc.full_name in seen:
        return
    seen.add(desc.full_name)
    for f in desc.fields:
        if f.message_type is not None:
            _messages(f.message_type, seen)
        if f.message_type is None or not f.message_type.full_name.startswith("google."):
            assert f.json_name == fieldpaths.to_json(f.name), f.full_name


def test_every_field_of_the_contract_has_the_json_name_the_conversion_gives() -> None:
    seen: set[str] = set()
    for module in (rules_service_pb2, session_service_pb2):
        for message in module.DESCRIPTOR.message_types_by_name.values():
            _messages(message, seen)
    assert len(seen) > 50


def test_paths_take_json_names_and_keep_indexes_headers_and_json_spellings() -> None:
    assert fieldpaths.to_json("move.valhalla.move_ship.ship") == "move.valhalla.moveShip.ship"
    assert fieldpaths.to_json("state.pax_penning.players[2].coins") == "state.paxPenning.players[2].coins"
    assert fieldpaths.to_json("state.rules_version") == "state.rulesVersion"
    assert fieldpaths.to_json("move.valhalla.moveShip") == "move.valhalla.moveShip"
    assert fieldpaths.to_json("If-Match") == "If-Match"
    assert fieldpaths.to_json("body") == "body"


def test_an_error_for_json_renames_its_fields_and_the_path_its_message_starts_with() -> None:
    err = LawspeakerError(
        ErrorCode.MALFORMED,
        "INVALID_BOARD",
        "options.pax_penning.board: is not valid",
        (FieldViolation("options.pax_penning.board", "is not valid"),),
        {"kind": "x"},
        2.0,
    )
    got = fieldpaths.for_json(err)
    assert got.message == "options.paxPenning.board: is not valid"
    assert got.field_violations == (FieldViolation("options.paxPenning.board", "is not valid"),)
    assert (got.code, got.reason, got.metadata, got.retry_after) == (err.code, err.reason, err.metadata, 2.0)
    plain = LawspeakerError(
        ErrorCode.MALFORMED, "GAME_REQUIRED", "game: is required", (FieldViolation("game", "x"),)
    )
    assert fieldpaths.for_json(plain) is plain


def test_a_json_answer_names_its_violation_field_in_json_names() -> None:
    answer = {"valid": False, "violation": {"reason": "X", "field": "move.valhalla.move_ship"}}
    assert fieldpaths.json_answer(answer)["violation"]["field"] == "move.valhalla.moveShip"
    assert fieldpaths.json_answer({"valid": True}) == {"valid": True}
