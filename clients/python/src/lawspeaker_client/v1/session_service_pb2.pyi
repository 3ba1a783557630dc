from google.api import annotations_pb2 as _annotations_pb2
from lawspeaker_client.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Session(_message.Message):
    __slots__ = ("session", "game", "players", "etag", "move_count", "state", "seat", "to_act", "physical_dice", "game_over", "outcome", "bots")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    MOVE_COUNT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    PHYSICAL_DICE_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    session: str
    game: str
    players: int
    etag: str
    move_count: int
    state: _game_pb2.GameState
    seat: int
    to_act: _containers.RepeatedScalarFieldContainer[int]
    physical_dice: bool
    game_over: bool
    outcome: _game_pb2.GameOutcome
    bots: _containers.RepeatedCompositeFieldContainer[_game_pb2.BotSeat]
    def __init__(self, session: _Optional[str] = ..., game: _Optional[str] = ..., players: _Optional[int] = ..., etag: _Optional[str] = ..., move_count: _Optional[int] = ..., state: _Optional[_Union[_game_pb2.GameState, _Mapping]] = ..., seat: _Optional[int] = ..., to_act: _Optional[_Iterable[int]] = ..., physical_dice: _Optional[bool] = ..., game_over: _Optional[bool] = ..., outcome: _Optional[_Union[_game_pb2.GameOutcome, _Mapping]] = ..., bots: _Optional[_Iterable[_Union[_game_pb2.BotSeat, _Mapping]]] = ...) -> None: ...

class SeatToken(_message.Message):
    __slots__ = ("seat", "token")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    token: str
    def __init__(self, seat: _Optional[int] = ..., token: _Optional[str] = ...) -> None: ...

class SessionMove(_message.Message):
    __slots__ = ("number", "seat", "move", "events", "chance")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    CHANCE_FIELD_NUMBER: _ClassVar[int]
    number: int
    seat: int
    move: _game_pb2.Move
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.GameEvent]
    chance: bool
    def __init__(self, number: _Optional[int] = ..., seat: _Optional[int] = ..., move: _Optional[_Union[_game_pb2.Move, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_game_pb2.GameEvent, _Mapping]]] = ..., chance: _Optional[bool] = ...) -> None: ...

class CreateSessionRequest(_message.Message):
    __slots__ = ("game", "players", "seed", "options", "physical_dice", "bots")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PHYSICAL_DICE_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    game: str
    players: int
    seed: int
    options: _game_pb2.GameOptions
    physical_dice: bool
    bots: _containers.RepeatedCompositeFieldContainer[_game_pb2.BotSeat]
    def __init__(self, game: _Optional[str] = ..., players: _Optional[int] = ..., seed: _Optional[int] = ..., options: _Optional[_Union[_game_pb2.GameOptions, _Mapping]] = ..., physical_dice: _Optional[bool] = ..., bots: _Optional[_Iterable[_Union[_game_pb2.BotSeat, _Mapping]]] = ...) -> None: ...

class CreateSessionResponse(_message.Message):
    __slots__ = ("session", "seat_tokens")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    session: Session
    seat_tokens: _containers.RepeatedCompositeFieldContainer[SeatToken]
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., seat_tokens: _Optional[_Iterable[_Union[SeatToken, _Mapping]]] = ...) -> None: ...

class GetSessionRequest(_message.Message):
    __slots__ = ("session", "wait_for_change")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    WAIT_FOR_CHANGE_FIELD_NUMBER: _ClassVar[int]
    session: str
    wait_for_change: str
    def __init__(self, session: _Optional[str] = ..., wait_for_change: _Optional[str] = ...) -> None: ...

class GetSessionResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class ListSessionMovesRequest(_message.Message):
    __slots__ = ("session", "page_size", "page_token")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    session: str
    page_size: int
    page_token: str
    def __init__(self, session: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListSessionMovesResponse(_message.Message):
    __slots__ = ("moves", "next_page_token", "total_size", "etag")
    MOVES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SIZE_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    moves: _containers.RepeatedCompositeFieldContainer[SessionMove]
    next_page_token: str
    total_size: int
    etag: str
    def __init__(self, moves: _Optional[_Iterable[_Union[SessionMove, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_size: _Optional[int] = ..., etag: _Optional[str] = ...) -> None: ...

class SessionLegalMovesRequest(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: str
    def __init__(self, session: _Optional[str] = ...) -> None: ...

class SessionLegalMovesResponse(_message.Message):
    __slots__ = ("moves", "to_act", "chance", "game_over", "outcome", "etag")
    MOVES_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    CHANCE_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    moves: _containers.RepeatedCompositeFieldContainer[_game_pb2.Move]
    to_act: _containers.RepeatedScalarFieldContainer[int]
    chance: _game_pb2.ChanceEvent
    game_over: bool
    outcome: _game_pb2.GameOutcome
    etag: str
    def __init__(self, moves: _Optional[_Iterable[_Union[_game_pb2.Move, _Mapping]]] = ..., to_act: _Optional[_Iterable[int]] = ..., chance: _Optional[_Union[_game_pb2.ChanceEvent, _Mapping]] = ..., game_over: _Optional[bool] = ..., outcome: _Optional[_Union[_game_pb2.GameOutcome, _Mapping]] = ..., etag: _Optional[str] = ...) -> None: ...

class SessionValidateMoveRequest(_message.Message):
    __slots__ = ("session", "move")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    session: str
    move: _game_pb2.Move
    def __init__(self, session: _Optional[str] = ..., move: _Optional[_Union[_game_pb2.Move, _Mapping]] = ...) -> None: ...

class SessionValidateMoveResponse(_message.Message):
    __slots__ = ("valid", "violation")
    VALID_FIELD_NUMBER: _ClassVar[int]
    VIOLATION_FIELD_NUMBER: _ClassVar[int]
    valid: bool
    violation: _game_pb2.Violation
    def __init__(self, valid: _Optional[bool] = ..., violation: _Optional[_Union[_game_pb2.Violation, _Mapping]] = ...) -> None: ...

class SessionApplyMoveRequest(_message.Message):
    __slots__ = ("session", "move", "etag", "request_id")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    session: str
    move: _game_pb2.Move
    etag: str
    request_id: str
    def __init__(self, session: _Optional[str] = ..., move: _Optional[_Union[_game_pb2.Move, _Mapping]] = ..., etag: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class SessionApplyMoveResponse(_message.Message):
    __slots__ = ("session", "events")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    session: Session
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.GameEvent]
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_game_pb2.GameEvent, _Mapping]]] = ...) -> None: ...

class UndoMoveRequest(_message.Message):
    __slots__ = ("session", "etag")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    session: str
    etag: str
    def __init__(self, session: _Optional[str] = ..., etag: _Optional[str] = ...) -> None: ...

class UndoMoveResponse(_message.Message):
    __slots__ = ("session", "undone")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    UNDONE_FIELD_NUMBER: _ClassVar[int]
    session: Session
    undone: SessionMove
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., undone: _Optional[_Union[SessionMove, _Mapping]] = ...) -> None: ...

class DeleteSessionRequest(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: str
    def __init__(self, session: _Optional[str] = ...) -> None: ...

class DeleteSessionResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WatchSessionRequest(_message.Message):
    __slots__ = ("session", "resume_after_etag", "ticket")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    RESUME_AFTER_ETAG_FIELD_NUMBER: _ClassVar[int]
    TICKET_FIELD_NUMBER: _ClassVar[int]
    session: str
    resume_after_etag: str
    ticket: str
    def __init__(self, session: _Optional[str] = ..., resume_after_etag: _Optional[str] = ..., ticket: _Optional[str] = ...) -> None: ...

class WatchSessionResponse(_message.Message):
    __slots__ = ("session", "deleted", "versions_skipped")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    session: Session
    deleted: bool
    versions_skipped: int
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., deleted: _Optional[bool] = ..., versions_skipped: _Optional[int] = ...) -> None: ...

class CreateWatchTicketRequest(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: str
    def __init__(self, session: _Optional[str] = ...) -> None: ...

class CreateWatchTicketResponse(_message.Message):
    __slots__ = ("ticket", "expires_in_seconds", "seat")
    TICKET_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ticket: str
    expires_in_seconds: int
    seat: int
    def __init__(self, ticket: _Optional[str] = ..., expires_in_seconds: _Optional[int] = ..., seat: _Optional[int] = ...) -> None: ...
