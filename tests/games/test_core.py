"""The engine core (lawspeaker.games.core) itself: frozen values, the error kinds and their codes,
the RNG every replica and language must draw alike, the ply bound, and the cache of option data."""

from __future__ import annotations

import dataclasses

import pytest

from lawspeaker.games import core
from lawspeaker.games.core import (
    GAME_OVER,
    ErrorCode,
    FieldViolation,
    IllegalMove,
    InvalidState,
    Result,
    Rng,
    Violation,
)

VALUES = [
    core.FieldViolation,
    core.Violation,
    core.RuleReason,
    core.Event,
    core.ChanceOutcome,
    core.Chance,
    core.Outcome,
    core.ToAct,
    core.OptionInfo,
    core.Assumption,
    core.Description,
    core.Rng,
]


@pytest.mark.parametrize("cls", VALUES, ids=lambda c: c.__name__)
def test_every_core_value_is_frozen_and_slotted(cls: type) -> None:
    """States and what they hold are values: they cannot be changed in place, and carry no dict."""
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    assert params.frozen
    assert "__slots__" in cls.__dict__
    fields = dataclasses.fields(cls)
    assert tuple(f.name for f in fields) == cls.__slots__  # type: ignore[attr-defined]


def test_a_frozen_value_refuses_a_change() -> None:
    violation = Violation("R", "m")
    with pytest.raises(dataclasses.FrozenInstanceError):
        violation.reason = "S"  # type: ignore[misc]
    assert violation.field == "move"  # a move's violation names the move unless told otherwise


def test_error_kinds_are_their_own_names() -> None:
    """The kind travels in ErrorInfo.metadata["kind"] as its value: the value is the name."""
    assert [(k.name, k.value) for k in ErrorCode] == [(k.name, k.name) for k in ErrorCode]
    assert [k.value for k in ErrorCode] == [
        "MALFORMED",
        "INVALID_STATE",
        "ILLEGAL_MOVE",
        "NOT_YOUR_TURN",
        "GAME_OVER",
        "STALE_STATE",
        "NOT_FOUND",
        "UNAVAILABLE",
        "PERMISSION_DENIED",
        "UNAUTHENTICATED",
        "RESOURCE_EXHAUSTED",
    ]
    assert [r.value for r in Result] == ["WIN", "DRAW", "ALL_LOSE"]


def test_an_illegal_move_carries_its_violation_and_rule() -> None:
    violation = Violation("LANDS_ON_OWN_SHIP", "You cannot land on your own ship.", "move.to")
    err = IllegalMove(violation, rule="docs/rules/valhalla.md#own-ship")
    assert err.violation is violation and err.rule == "docs/rules/valhalla.md#own-ship"
    assert (err.code, err.reason, err.message) == (
        ErrorCode.ILLEGAL_MOVE,
        "LANDS_ON_OWN_SHIP",
        "You cannot land on your own ship.",
    )
    assert err.field_violations == (FieldViolation("move.to", "You cannot land on your own ship."),)
    assert err.metadata == {"rule": "docs/rules/valhalla.md#own-ship"}
    assert IllegalMove(violation).metadata == {}
    assert Violation("GAME_OVER", "The game is over: no more moves can be made.", "move") == GAME_OVER


def test_an_invalid_state_names_its_first_broken_invariant() -> None:
    err = InvalidState([FieldViolation("ships[3].space", "must be 0 to 30"), FieldViolation("ply", "x")])
    assert (err.code, err.reason) == (ErrorCode.INVALID_STATE, "INVALID_STATE")
    assert err.message == "The state is not a valid position: ships[3].space: must be 0 to 30"
    assert len(err.field_violations) == 2
    bare = InvalidState([])
    assert bare.message == "The state is not a valid position: state: invalid"


def test_the_rng_draws_the_same_numbers_everywhere() -> None:
    """Draw n is SHA-256(seed || n); a seed is SHA-256 of a fixed prefix and the seed value. Pinned
    here, since every replica and every client that replays a state must draw alike."""
    rng = Rng.from_seed(42)
    assert rng.counter == 0
    assert rng.seed.hex() == "35e17cbc2d0643ea4d64a82ab994e9a5e1e2a01ee97c1a480c5becb4964deb93"
    assert rng.below(6) == (2, Rng(rng.seed, 1))
    assert rng.below(1000)[0] == 702
    assert Rng.from_seed(42) == Rng.from_seed(42) != Rng.from_seed(43)
    assert Rng.from_seed(b"\x00" * 7 + b"\x2a") == rng  # an int seed is its 8 big-endian bytes
    with pytest.raises(ValueError, match=r"^n must be positive$"):
        rng.below(0)
    with pytest.raises(ValueError, match=r"^n must be positive$"):
        rng.below(-1)
    assert rng.below(1) == (0, Rng(rng.seed, 1))


def test_a_ply_is_bounded_by_the_contract_s_int32() -> None:
    assert core.PLY_LIMIT == 2**31 - 1
    assert core.check_ply(0) is None and core.check_ply(2**31 - 2) is None
    assert core.check_ply(-1) == FieldViolation("ply", "must not be negative")
    assert core.check_ply(2**31 - 1) == FieldViolation(
        "ply", "must be below 2147483647: no game runs this long"
    )
    assert core.RNG_COUNTER_LIMIT == 2**63


def test_option_data_is_loaded_once_per_text_up_to_the_cache_limit() -> None:
    loads: list[str] = []

    def load(text: str) -> str:
        loads.append(text)
        return text.upper()

    data_for = core.option_cache(load, "reference")
    assert data_for("") == "reference" and loads == []
    texts = [f"t{i}" for i in range(core.OPTION_CACHE_LIMIT + 2)]
    for text in texts:
        assert data_for(text) == text.upper()
    assert core.OPTION_CACHE_LIMIT == 64
    loads.clear()
    for text in texts:
        data_for(text)
    # the reference and the first 63 texts are kept; the later ones are loaded on every call
    assert loads == texts[core.OPTION_CACHE_LIMIT - 1 :]


def test_a_game_s_reasons_are_listed_once_each_with_their_rule_s_anchor() -> None:
    table = core.rule_reasons("valhalla", ("CAST_FIRST", "Cast first.", "Cast the sticks."))
    assert table == {
        "CAST_FIRST": core.RuleReason(
            "CAST_FIRST", "Cast first.", "docs/rules/valhalla.md#cast-first", "Cast the sticks."
        )
    }
    with pytest.raises(ValueError, match=r"^reason CAST_FIRST is listed twice$"):
        core.rule_reasons("valhalla", ("CAST_FIRST", "a", "b"), ("CAST_FIRST", "c", "d"))


def test_a_draw_past_the_last_whole_multiple_is_drawn_again() -> None:
    """Rejection sampling: below(n) keeps only values under the largest multiple of n that fits in
    64 bits, so every result is equally likely. For n = 2**63 + 1 that multiple is n itself, and half
    the draws are drawn again: seed 0's first is, so its result is its second draw."""
    rng = Rng.from_seed(0)
    value, after = rng.below(2**63 + 1)
    assert (value, after.counter) == (8416215515346256030, 2)
    assert rng.below(2**64)[1].counter == 1  # a power of two rejects nothing


class _Refusing:
    """A game with no legal move that refuses every move for ``reason`` (core's mapping only)."""

    reasons = core.rule_reasons("stub", ("OUT_OF_PLACE", "Not there.", "-"))

    def __init__(self, reason: str, over: bool = False) -> None:
        self.reason, self.over = reason, over

    def legal_moves(self, state: object) -> list[object]:
        return []

    def chance(self, state: object) -> None:
        return None

    def outcome(self, state: object) -> core.Outcome | None:
        return core.Outcome(Result.WIN, (0,), "Player 1 wins.") if self.over else None

    def explain(self, state: object, move: object) -> Violation:
        return Violation(self.reason, "No.")


@pytest.mark.parametrize(
    ("reason", "over", "code", "rule"),
    [
        ("NOT_YOUR_TURN", False, ErrorCode.NOT_YOUR_TURN, ""),
        ("OUT_OF_PLACE", False, ErrorCode.ILLEGAL_MOVE, "docs/rules/stub.md#out-of-place"),
        ("OUT_OF_PLACE", True, ErrorCode.GAME_OVER, ""),
    ],
)
def test_a_refused_move_raises_the_kind_its_reason_is(
    reason: str, over: bool, code: ErrorCode, rule: str
) -> None:
    game: object = _Refusing(reason, over)
    with pytest.raises(IllegalMove) as caught:
        core.apply(game, "state", "move")  # type: ignore[arg-type]
    assert caught.value.code is code and caught.value.rule == rule
    assert caught.value.reason == ("GAME_OVER" if over else reason)


def test_an_error_reads_as_its_message_and_keeps_when_to_retry() -> None:
    err = core.LawspeakerError(ErrorCode.RESOURCE_EXHAUSTED, "BUSY", "Try later.", retry_after=2.5)
    assert str(err) == "Try later." and err.retry_after == 2.5
    assert core.LawspeakerError(ErrorCode.MALFORMED, "X", "x").retry_after is None
    assert Rng(b"seed").counter == 0  # a new RNG has drawn nothing
