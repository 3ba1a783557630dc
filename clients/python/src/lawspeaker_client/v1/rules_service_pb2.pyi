from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from lawspeaker_client.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[_game_pb2.GameInfo]
    def __init__(self, games: _Optional[_Iterable[_Union[_game_pb2.GameInfo, _Mapping]]] = ...) -> None: ...

class DescribeGameRequest(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: str
    def __init__(self, game: _Optional[str] = ...) -> None: ...

class DescribeGameResponse(_message.Message):
    __slots__ = ("info", "options", "data", "assumptions", "reasons")
    INFO_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    ASSUMPTIONS_FIELD_NUMBER: _ClassVar[int]
    REASONS_FIELD_NUMBER: _ClassVar[int]
    info: _game_pb2.GameInfo
    options: _containers.RepeatedCompositeFieldContainer[_game_pb2.GameOptionInfo]
    data: _struct_pb2.Struct
    assumptions: _containers.RepeatedCompositeFieldContainer[_game_pb2.RulesAssumption]
    reasons: _containers.RepeatedCompositeFieldContainer[_game_pb2.RuleReason]
    def __init__(self, info: _Optional[_Union[_game_pb2.GameInfo, _Mapping]] = ..., options: _Optional[_Iterable[_Union[_game_pb2.GameOptionInfo, _Mapping]]] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., assumptions: _Optional[_Iterable[_Union[_game_pb2.RulesAssumption, _Mapping]]] = ..., reasons: _Optional[_Iterable[_Union[_game_pb2.RuleReason, _Mapping]]] = ...) -> None: ...

class NewGameRequest(_message.Message):
    __slots__ = ("game", "players", "seed", "options")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    game: str
    players: int
    seed: int
    options: _game_pb2.GameOptions
    def __init__(self, game: _Optional[str] = ..., players: _Optional[int] = ..., seed: _Optional[int] = ..., options: _Optional[_Union[_game_pb2.GameOptions, _Mapping]] = ...) -> None: ...

class NewGameResponse(_message.Message):
    __slots__ = ("state",)
    STATE_FIELD_NUMBER: _ClassVar[int]
    state: _game_pb2.GameState
    def __init__(self, state: _Optional[_Union[_game_pb2.GameState, _Mapping]] = ...) -> None: ...

class LegalMovesRequest(_message.Message):
    __slots__ = ("game", "state")
    GAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    game: str
    state: _game_pb2.GameState
    def __init__(self, game: _Optional[str] = ..., state: _Optional[_Union[_game_pb2.GameState, _Mapping]] = ...) -> None: ...

class LegalMovesResponse(_message.Message):
    __slots__ = ("moves", "to_act", "chance", "game_over", "outcome")
    MOVES_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    CHANCE_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    moves: _containers.RepeatedCompositeFieldContainer[_game_pb2.Move]
    to_act: _containers.RepeatedScalarFieldContainer[int]
    chance: _game_pb2.ChanceEvent
    game_over: bool
    outcome: _game_pb2.GameOutcome
    def __init__(self, moves: _Optional[_Iterable[_Union[_game_pb2.Move, _Mapping]]] = ..., to_act: _Optional[_Iterable[int]] = ..., chance: _Optional[_Union[_game_pb2.ChanceEvent, _Mapping]] = ..., game_over: _Optional[bool] = ..., outcome: _Optional[_Union[_game_pb2.GameOutcome, _Mapping]] = ...) -> None: ...

class ValidateMoveRequest(_message.Message):
    __slots__ = ("game", "state", "move")
    GAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    game: str
    state: _game_pb2.GameState
    move: _game_pb2.Move
    def __init__(self, game: _Optional[str] = ..., state: _Optional[_Union[_game_pb2.GameState, _Mapping]] = ..., move: _Optional[_Union[_game_pb2.Move, _Mapping]] = ...) -> None: ...

class ValidateMoveResponse(_message.Message):
    __slots__ = ("valid", "violation")
    VALID_FIELD_NUMBER: _ClassVar[int]
    VIOLATION_FIELD_NUMBER: _ClassVar[int]
    valid: bool
    violation: _game_pb2.Violation
    def __init__(self, valid: _Optional[bool] = ..., violation: _Optional[_Union[_game_pb2.Violation, _Mapping]] = ...) -> None: ...

class ApplyMoveRequest(_message.Message):
    __slots__ = ("game", "state", "move")
    GAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    game: str
    state: _game_pb2.GameState
    move: _game_pb2.Move
    def __init__(self, game: _Optional[str] = ..., state: _Optional[_Union[_game_pb2.GameState, _Mapping]] = ..., move: _Optional[_Union[_game_pb2.Move, _Mapping]] = ...) -> None: ...

class ApplyMoveResponse(_message.Message):
    __slots__ = ("state", "events", "game_over", "outcome")
    STATE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    state: _game_pb2.GameState
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.GameEvent]
    game_over: bool
    outcome: _game_pb2.GameOutcome
    def __init__(self, state: _Optional[_Union[_game_pb2.GameState, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_game_pb2.GameEvent, _Mapping]]] = ..., game_over: _Optional[bool] = ..., outcome: _Optional[_Union[_game_pb2.GameOutcome, _Mapping]] = ...) -> None: ...

class SuggestMoveRequest(_message.Message):
    __slots__ = ("game", "state", "seat", "level", "budget", "seed")
    GAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    game: str
    state: _game_pb2.GameState
    seat: int
    level: _game_pb2.BotLevel
    budget: _game_pb2.BotBudget
    seed: int
    def __init__(self, game: _Optional[str] = ..., state: _Optional[_Union[_game_pb2.GameState, _Mapping]] = ..., seat: _Optional[int] = ..., level: _Optional[_Union[_game_pb2.BotLevel, str]] = ..., budget: _Optional[_Union[_game_pb2.BotBudget, _Mapping]] = ..., seed: _Optional[int] = ...) -> None: ...

class SuggestMoveResponse(_message.Message):
    __slots__ = ("move", "value", "playouts", "seed", "seat")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    move: _game_pb2.Move
    value: float
    playouts: int
    seed: int
    seat: int
    def __init__(self, move: _Optional[_Union[_game_pb2.Move, _Mapping]] = ..., value: _Optional[float] = ..., playouts: _Optional[int] = ..., seed: _Optional[int] = ..., seat: _Optional[int] = ...) -> None: ...
