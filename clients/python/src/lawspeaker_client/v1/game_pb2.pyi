from lawspeaker_client.v1 import birka_pb2 as _birka_pb2
from lawspeaker_client.v1 import pax_penning_pb2 as _pax_penning_pb2
from lawspeaker_client.v1 import pax_viking_junior_pb2 as _pax_viking_junior_pb2
from lawspeaker_client.v1 import penki_pb2 as _penki_pb2
from lawspeaker_client.v1 import valhalla_pb2 as _valhalla_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GameResult(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_RESULT_UNSPECIFIED: _ClassVar[GameResult]
    GAME_RESULT_WIN: _ClassVar[GameResult]
    GAME_RESULT_DRAW: _ClassVar[GameResult]
    GAME_RESULT_ALL_LOSE: _ClassVar[GameResult]

class BotLevel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_LEVEL_UNSPECIFIED: _ClassVar[BotLevel]
    BOT_LEVEL_RANDOM: _ClassVar[BotLevel]
    BOT_LEVEL_GREEDY: _ClassVar[BotLevel]
    BOT_LEVEL_SEARCH: _ClassVar[BotLevel]
GAME_RESULT_UNSPECIFIED: GameResult
GAME_RESULT_WIN: GameResult
GAME_RESULT_DRAW: GameResult
GAME_RESULT_ALL_LOSE: GameResult
BOT_LEVEL_UNSPECIFIED: BotLevel
BOT_LEVEL_RANDOM: BotLevel
BOT_LEVEL_GREEDY: BotLevel
BOT_LEVEL_SEARCH: BotLevel

class GameState(_message.Message):
    __slots__ = ("rules_version", "rng", "valhalla", "penki", "pax_penning", "pax_viking_junior", "birka")
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    RNG_FIELD_NUMBER: _ClassVar[int]
    VALHALLA_FIELD_NUMBER: _ClassVar[int]
    PENKI_FIELD_NUMBER: _ClassVar[int]
    PAX_PENNING_FIELD_NUMBER: _ClassVar[int]
    PAX_VIKING_JUNIOR_FIELD_NUMBER: _ClassVar[int]
    BIRKA_FIELD_NUMBER: _ClassVar[int]
    rules_version: str
    rng: RngState
    valhalla: _valhalla_pb2.ValhallaState
    penki: _penki_pb2.PenkiState
    pax_penning: _pax_penning_pb2.PaxPenningState
    pax_viking_junior: _pax_viking_junior_pb2.PaxVikingJuniorState
    birka: _birka_pb2.BirkaState
    def __init__(self, rules_version: _Optional[str] = ..., rng: _Optional[_Union[RngState, _Mapping]] = ..., valhalla: _Optional[_Union[_valhalla_pb2.ValhallaState, _Mapping]] = ..., penki: _Optional[_Union[_penki_pb2.PenkiState, _Mapping]] = ..., pax_penning: _Optional[_Union[_pax_penning_pb2.PaxPenningState, _Mapping]] = ..., pax_viking_junior: _Optional[_Union[_pax_viking_junior_pb2.PaxVikingJuniorState, _Mapping]] = ..., birka: _Optional[_Union[_birka_pb2.BirkaState, _Mapping]] = ...) -> None: ...

class RngState(_message.Message):
    __slots__ = ("seed", "counter")
    SEED_FIELD_NUMBER: _ClassVar[int]
    COUNTER_FIELD_NUMBER: _ClassVar[int]
    seed: bytes
    counter: int
    def __init__(self, seed: _Optional[bytes] = ..., counter: _Optional[int] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("valhalla", "penki", "pax_penning", "pax_viking_junior", "birka")
    VALHALLA_FIELD_NUMBER: _ClassVar[int]
    PENKI_FIELD_NUMBER: _ClassVar[int]
    PAX_PENNING_FIELD_NUMBER: _ClassVar[int]
    PAX_VIKING_JUNIOR_FIELD_NUMBER: _ClassVar[int]
    BIRKA_FIELD_NUMBER: _ClassVar[int]
    valhalla: _valhalla_pb2.ValhallaMove
    penki: _penki_pb2.PenkiMove
    pax_penning: _pax_penning_pb2.PaxPenningMove
    pax_viking_junior: _pax_viking_junior_pb2.PaxVikingJuniorMove
    birka: _birka_pb2.BirkaMove
    def __init__(self, valhalla: _Optional[_Union[_valhalla_pb2.ValhallaMove, _Mapping]] = ..., penki: _Optional[_Union[_penki_pb2.PenkiMove, _Mapping]] = ..., pax_penning: _Optional[_Union[_pax_penning_pb2.PaxPenningMove, _Mapping]] = ..., pax_viking_junior: _Optional[_Union[_pax_viking_junior_pb2.PaxVikingJuniorMove, _Mapping]] = ..., birka: _Optional[_Union[_birka_pb2.BirkaMove, _Mapping]] = ...) -> None: ...

class GameOptions(_message.Message):
    __slots__ = ("valhalla", "penki", "pax_penning", "pax_viking_junior", "birka")
    VALHALLA_FIELD_NUMBER: _ClassVar[int]
    PENKI_FIELD_NUMBER: _ClassVar[int]
    PAX_PENNING_FIELD_NUMBER: _ClassVar[int]
    PAX_VIKING_JUNIOR_FIELD_NUMBER: _ClassVar[int]
    BIRKA_FIELD_NUMBER: _ClassVar[int]
    valhalla: _valhalla_pb2.ValhallaOptions
    penki: _penki_pb2.PenkiOptions
    pax_penning: _pax_penning_pb2.PaxPenningOptions
    pax_viking_junior: _pax_viking_junior_pb2.PaxVikingJuniorOptions
    birka: _birka_pb2.BirkaOptions
    def __init__(self, valhalla: _Optional[_Union[_valhalla_pb2.ValhallaOptions, _Mapping]] = ..., penki: _Optional[_Union[_penki_pb2.PenkiOptions, _Mapping]] = ..., pax_penning: _Optional[_Union[_pax_penning_pb2.PaxPenningOptions, _Mapping]] = ..., pax_viking_junior: _Optional[_Union[_pax_viking_junior_pb2.PaxVikingJuniorOptions, _Mapping]] = ..., birka: _Optional[_Union[_birka_pb2.BirkaOptions, _Mapping]] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ("kind", "text", "player", "valhalla", "penki", "pax_penning", "pax_viking_junior", "birka")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    VALHALLA_FIELD_NUMBER: _ClassVar[int]
    PENKI_FIELD_NUMBER: _ClassVar[int]
    PAX_PENNING_FIELD_NUMBER: _ClassVar[int]
    PAX_VIKING_JUNIOR_FIELD_NUMBER: _ClassVar[int]
    BIRKA_FIELD_NUMBER: _ClassVar[int]
    kind: str
    text: str
    player: int
    valhalla: _valhalla_pb2.ValhallaEvent
    penki: _penki_pb2.PenkiEvent
    pax_penning: _pax_penning_pb2.PaxPenningEvent
    pax_viking_junior: _pax_viking_junior_pb2.PaxVikingJuniorEvent
    birka: _birka_pb2.BirkaEvent
    def __init__(self, kind: _Optional[str] = ..., text: _Optional[str] = ..., player: _Optional[int] = ..., valhalla: _Optional[_Union[_valhalla_pb2.ValhallaEvent, _Mapping]] = ..., penki: _Optional[_Union[_penki_pb2.PenkiEvent, _Mapping]] = ..., pax_penning: _Optional[_Union[_pax_penning_pb2.PaxPenningEvent, _Mapping]] = ..., pax_viking_junior: _Optional[_Union[_pax_viking_junior_pb2.PaxVikingJuniorEvent, _Mapping]] = ..., birka: _Optional[_Union[_birka_pb2.BirkaEvent, _Mapping]] = ...) -> None: ...

class Violation(_message.Message):
    __slots__ = ("reason", "message", "field", "rule")
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    reason: str
    message: str
    field: str
    rule: str
    def __init__(self, reason: _Optional[str] = ..., message: _Optional[str] = ..., field: _Optional[str] = ..., rule: _Optional[str] = ...) -> None: ...

class RuleReason(_message.Message):
    __slots__ = ("reason", "meaning", "rule", "rulebook")
    REASON_FIELD_NUMBER: _ClassVar[int]
    MEANING_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    RULEBOOK_FIELD_NUMBER: _ClassVar[int]
    reason: str
    meaning: str
    rule: str
    rulebook: str
    def __init__(self, reason: _Optional[str] = ..., meaning: _Optional[str] = ..., rule: _Optional[str] = ..., rulebook: _Optional[str] = ...) -> None: ...

class ChanceOutcome(_message.Message):
    __slots__ = ("move", "probability", "label")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    move: Move
    probability: float
    label: str
    def __init__(self, move: _Optional[_Union[Move, _Mapping]] = ..., probability: _Optional[float] = ..., label: _Optional[str] = ...) -> None: ...

class ChanceEvent(_message.Message):
    __slots__ = ("description", "outcomes")
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OUTCOMES_FIELD_NUMBER: _ClassVar[int]
    description: str
    outcomes: _containers.RepeatedCompositeFieldContainer[ChanceOutcome]
    def __init__(self, description: _Optional[str] = ..., outcomes: _Optional[_Iterable[_Union[ChanceOutcome, _Mapping]]] = ...) -> None: ...

class GameOutcome(_message.Message):
    __slots__ = ("result", "winners", "summary")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    result: GameResult
    winners: _containers.RepeatedScalarFieldContainer[int]
    summary: str
    def __init__(self, result: _Optional[_Union[GameResult, str]] = ..., winners: _Optional[_Iterable[int]] = ..., summary: _Optional[str] = ...) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("id", "title", "min_players", "max_players", "rules_version")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    min_players: int
    max_players: int
    rules_version: str
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., min_players: _Optional[int] = ..., max_players: _Optional[int] = ..., rules_version: _Optional[str] = ...) -> None: ...

class GameOptionInfo(_message.Message):
    __slots__ = ("name", "description", "default_value", "allowed_values")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_VALUES_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    default_value: str
    allowed_values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., default_value: _Optional[str] = ..., allowed_values: _Optional[_Iterable[str]] = ...) -> None: ...

class RulesAssumption(_message.Message):
    __slots__ = ("id", "rulebook", "decision", "option")
    ID_FIELD_NUMBER: _ClassVar[int]
    RULEBOOK_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    OPTION_FIELD_NUMBER: _ClassVar[int]
    id: str
    rulebook: str
    decision: str
    option: str
    def __init__(self, id: _Optional[str] = ..., rulebook: _Optional[str] = ..., decision: _Optional[str] = ..., option: _Optional[str] = ...) -> None: ...

class BotBudget(_message.Message):
    __slots__ = ("playouts", "millis")
    PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    MILLIS_FIELD_NUMBER: _ClassVar[int]
    playouts: int
    millis: int
    def __init__(self, playouts: _Optional[int] = ..., millis: _Optional[int] = ...) -> None: ...

class BotSeat(_message.Message):
    __slots__ = ("seat", "level", "budget")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    seat: int
    level: BotLevel
    budget: BotBudget
    def __init__(self, seat: _Optional[int] = ..., level: _Optional[_Union[BotLevel, str]] = ..., budget: _Optional[_Union[BotBudget, _Mapping]] = ...) -> None: ...
