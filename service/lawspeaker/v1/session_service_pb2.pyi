from google.api import annotations_pb2 as _annotations_pb2
from lawspeaker.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TimeoutAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIMEOUT_ACTION_UNSPECIFIED: _ClassVar[TimeoutAction]
    TIMEOUT_ACTION_NOTHING: _ClassVar[TimeoutAction]
    TIMEOUT_ACTION_BOT: _ClassVar[TimeoutAction]
    TIMEOUT_ACTION_FORFEIT: _ClassVar[TimeoutAction]

class ResignAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESIGN_ACTION_UNSPECIFIED: _ClassVar[ResignAction]
    RESIGN_ACTION_FORFEIT: _ClassVar[ResignAction]
    RESIGN_ACTION_BOT: _ClassVar[ResignAction]

class SeatRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_ROLE_UNSPECIFIED: _ClassVar[SeatRole]
    SEAT_ROLE_PERSON: _ClassVar[SeatRole]
    SEAT_ROLE_BOT: _ClassVar[SeatRole]
    SEAT_ROLE_OPEN: _ClassVar[SeatRole]
    SEAT_ROLE_RESERVED: _ClassVar[SeatRole]

class ResultReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESULT_REASON_UNSPECIFIED: _ClassVar[ResultReason]
    RESULT_REASON_RULES: _ClassVar[ResultReason]
    RESULT_REASON_RESIGNATION: _ClassVar[ResultReason]
    RESULT_REASON_TIMEOUT: _ClassVar[ResultReason]

class SeatEventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_EVENT_KIND_UNSPECIFIED: _ClassVar[SeatEventKind]
    SEAT_EVENT_KIND_RESIGNED: _ClassVar[SeatEventKind]
    SEAT_EVENT_KIND_LEFT_TO_BOT: _ClassVar[SeatEventKind]
    SEAT_EVENT_KIND_FORFEITED_ON_TIME: _ClassVar[SeatEventKind]
    SEAT_EVENT_KIND_CLAIMED: _ClassVar[SeatEventKind]
    SEAT_EVENT_KIND_TOKEN_REISSUED: _ClassVar[SeatEventKind]
    SEAT_EVENT_KIND_HANDED_TO_BOT: _ClassVar[SeatEventKind]
    SEAT_EVENT_KIND_OPENED: _ClassVar[SeatEventKind]
    SEAT_EVENT_KIND_CLOSED: _ClassVar[SeatEventKind]

class SeatAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_ACTION_UNSPECIFIED: _ClassVar[SeatAction]
    SEAT_ACTION_REISSUE_TOKEN: _ClassVar[SeatAction]
    SEAT_ACTION_BOT: _ClassVar[SeatAction]
    SEAT_ACTION_OPEN: _ClassVar[SeatAction]
    SEAT_ACTION_CLOSE: _ClassVar[SeatAction]
TIMEOUT_ACTION_UNSPECIFIED: TimeoutAction
TIMEOUT_ACTION_NOTHING: TimeoutAction
TIMEOUT_ACTION_BOT: TimeoutAction
TIMEOUT_ACTION_FORFEIT: TimeoutAction
RESIGN_ACTION_UNSPECIFIED: ResignAction
RESIGN_ACTION_FORFEIT: ResignAction
RESIGN_ACTION_BOT: ResignAction
SEAT_ROLE_UNSPECIFIED: SeatRole
SEAT_ROLE_PERSON: SeatRole
SEAT_ROLE_BOT: SeatRole
SEAT_ROLE_OPEN: SeatRole
SEAT_ROLE_RESERVED: SeatRole
RESULT_REASON_UNSPECIFIED: ResultReason
RESULT_REASON_RULES: ResultReason
RESULT_REASON_RESIGNATION: ResultReason
RESULT_REASON_TIMEOUT: ResultReason
SEAT_EVENT_KIND_UNSPECIFIED: SeatEventKind
SEAT_EVENT_KIND_RESIGNED: SeatEventKind
SEAT_EVENT_KIND_LEFT_TO_BOT: SeatEventKind
SEAT_EVENT_KIND_FORFEITED_ON_TIME: SeatEventKind
SEAT_EVENT_KIND_CLAIMED: SeatEventKind
SEAT_EVENT_KIND_TOKEN_REISSUED: SeatEventKind
SEAT_EVENT_KIND_HANDED_TO_BOT: SeatEventKind
SEAT_EVENT_KIND_OPENED: SeatEventKind
SEAT_EVENT_KIND_CLOSED: SeatEventKind
SEAT_ACTION_UNSPECIFIED: SeatAction
SEAT_ACTION_REISSUE_TOKEN: SeatAction
SEAT_ACTION_BOT: SeatAction
SEAT_ACTION_OPEN: SeatAction
SEAT_ACTION_CLOSE: SeatAction

class Session(_message.Message):
    __slots__ = ("session", "game", "players", "etag", "move_count", "state", "seat", "to_act", "physical_dice", "game_over", "outcome", "bots", "clock", "seats", "deadline", "result", "update_time", "waiting_for_players", "rematch", "rematch_requested", "has_host")
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
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    WAITING_FOR_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    REMATCH_FIELD_NUMBER: _ClassVar[int]
    REMATCH_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    HAS_HOST_FIELD_NUMBER: _ClassVar[int]
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
    clock: Clock
    seats: _containers.RepeatedCompositeFieldContainer[SeatStatus]
    deadline: str
    result: SessionResult
    update_time: str
    waiting_for_players: bool
    rematch: str
    rematch_requested: _containers.RepeatedScalarFieldContainer[int]
    has_host: bool
    def __init__(self, session: _Optional[str] = ..., game: _Optional[str] = ..., players: _Optional[int] = ..., etag: _Optional[str] = ..., move_count: _Optional[int] = ..., state: _Optional[_Union[_game_pb2.GameState, _Mapping]] = ..., seat: _Optional[int] = ..., to_act: _Optional[_Iterable[int]] = ..., physical_dice: _Optional[bool] = ..., game_over: _Optional[bool] = ..., outcome: _Optional[_Union[_game_pb2.GameOutcome, _Mapping]] = ..., bots: _Optional[_Iterable[_Union[_game_pb2.BotSeat, _Mapping]]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatStatus, _Mapping]]] = ..., deadline: _Optional[str] = ..., result: _Optional[_Union[SessionResult, _Mapping]] = ..., update_time: _Optional[str] = ..., waiting_for_players: _Optional[bool] = ..., rematch: _Optional[str] = ..., rematch_requested: _Optional[_Iterable[int]] = ..., has_host: _Optional[bool] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("per_move_seconds", "bank_seconds", "increment_seconds", "on_timeout", "timeout_bot_level")
    PER_MOVE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    BANK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ON_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    per_move_seconds: int
    bank_seconds: int
    increment_seconds: int
    on_timeout: TimeoutAction
    timeout_bot_level: _game_pb2.BotLevel
    def __init__(self, per_move_seconds: _Optional[int] = ..., bank_seconds: _Optional[int] = ..., increment_seconds: _Optional[int] = ..., on_timeout: _Optional[_Union[TimeoutAction, str]] = ..., timeout_bot_level: _Optional[_Union[_game_pb2.BotLevel, str]] = ...) -> None: ...

class SeatStatus(_message.Message):
    __slots__ = ("seat", "time_left_seconds", "deadline", "connected", "last_seen", "out", "timed_out", "role", "display_name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    time_left_seconds: float
    deadline: str
    connected: bool
    last_seen: str
    out: bool
    timed_out: bool
    role: SeatRole
    display_name: str
    def __init__(self, seat: _Optional[int] = ..., time_left_seconds: _Optional[float] = ..., deadline: _Optional[str] = ..., connected: _Optional[bool] = ..., last_seen: _Optional[str] = ..., out: _Optional[bool] = ..., timed_out: _Optional[bool] = ..., role: _Optional[_Union[SeatRole, str]] = ..., display_name: _Optional[str] = ...) -> None: ...

class SessionResult(_message.Message):
    __slots__ = ("reason", "winners", "ranking", "summary")
    REASON_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    RANKING_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    reason: ResultReason
    winners: _containers.RepeatedScalarFieldContainer[int]
    ranking: _containers.RepeatedCompositeFieldContainer[SeatPlace]
    summary: str
    def __init__(self, reason: _Optional[_Union[ResultReason, str]] = ..., winners: _Optional[_Iterable[int]] = ..., ranking: _Optional[_Iterable[_Union[SeatPlace, _Mapping]]] = ..., summary: _Optional[str] = ...) -> None: ...

class SeatPlace(_message.Message):
    __slots__ = ("seat", "place")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    place: int
    def __init__(self, seat: _Optional[int] = ..., place: _Optional[int] = ...) -> None: ...

class SeatToken(_message.Message):
    __slots__ = ("seat", "token")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    token: str
    def __init__(self, seat: _Optional[int] = ..., token: _Optional[str] = ...) -> None: ...

class SessionMove(_message.Message):
    __slots__ = ("number", "seat", "move", "events", "chance", "seat_event", "on_timeout")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    CHANCE_FIELD_NUMBER: _ClassVar[int]
    SEAT_EVENT_FIELD_NUMBER: _ClassVar[int]
    ON_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    number: int
    seat: int
    move: _game_pb2.Move
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.GameEvent]
    chance: bool
    seat_event: SeatEvent
    on_timeout: bool
    def __init__(self, number: _Optional[int] = ..., seat: _Optional[int] = ..., move: _Optional[_Union[_game_pb2.Move, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_game_pb2.GameEvent, _Mapping]]] = ..., chance: _Optional[bool] = ..., seat_event: _Optional[_Union[SeatEvent, _Mapping]] = ..., on_timeout: _Optional[bool] = ...) -> None: ...

class SeatEvent(_message.Message):
    __slots__ = ("seat", "kind", "summary", "display_name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: SeatEventKind
    summary: str
    display_name: str
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[SeatEventKind, str]] = ..., summary: _Optional[str] = ..., display_name: _Optional[str] = ...) -> None: ...

class CreateSessionRequest(_message.Message):
    __slots__ = ("game", "players", "seed", "options", "physical_dice", "bots", "clock", "open_seats", "display_names", "webhook")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PHYSICAL_DICE_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    OPEN_SEATS_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAMES_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    game: str
    players: int
    seed: int
    options: _game_pb2.GameOptions
    physical_dice: bool
    bots: _containers.RepeatedCompositeFieldContainer[_game_pb2.BotSeat]
    clock: Clock
    open_seats: _containers.RepeatedScalarFieldContainer[int]
    display_names: _containers.RepeatedScalarFieldContainer[str]
    webhook: Webhook
    def __init__(self, game: _Optional[str] = ..., players: _Optional[int] = ..., seed: _Optional[int] = ..., options: _Optional[_Union[_game_pb2.GameOptions, _Mapping]] = ..., physical_dice: _Optional[bool] = ..., bots: _Optional[_Iterable[_Union[_game_pb2.BotSeat, _Mapping]]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., open_seats: _Optional[_Iterable[int]] = ..., display_names: _Optional[_Iterable[str]] = ..., webhook: _Optional[_Union[Webhook, _Mapping]] = ...) -> None: ...

class Webhook(_message.Message):
    __slots__ = ("url",)
    URL_FIELD_NUMBER: _ClassVar[int]
    url: str
    def __init__(self, url: _Optional[str] = ...) -> None: ...

class CreateSessionResponse(_message.Message):
    __slots__ = ("session", "seat_tokens", "host_token", "webhook_secret")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    HOST_TOKEN_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_SECRET_FIELD_NUMBER: _ClassVar[int]
    session: Session
    seat_tokens: _containers.RepeatedCompositeFieldContainer[SeatToken]
    host_token: str
    webhook_secret: str
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., seat_tokens: _Optional[_Iterable[_Union[SeatToken, _Mapping]]] = ..., host_token: _Optional[str] = ..., webhook_secret: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("session", "resume_after_etag", "ticket", "presence")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    RESUME_AFTER_ETAG_FIELD_NUMBER: _ClassVar[int]
    TICKET_FIELD_NUMBER: _ClassVar[int]
    PRESENCE_FIELD_NUMBER: _ClassVar[int]
    session: str
    resume_after_etag: str
    ticket: str
    presence: bool
    def __init__(self, session: _Optional[str] = ..., resume_after_etag: _Optional[str] = ..., ticket: _Optional[str] = ..., presence: _Optional[bool] = ...) -> None: ...

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

class ResignSeatRequest(_message.Message):
    __slots__ = ("session", "action", "bot_level", "etag")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    session: str
    action: ResignAction
    bot_level: _game_pb2.BotLevel
    etag: str
    def __init__(self, session: _Optional[str] = ..., action: _Optional[_Union[ResignAction, str]] = ..., bot_level: _Optional[_Union[_game_pb2.BotLevel, str]] = ..., etag: _Optional[str] = ...) -> None: ...

class ResignSeatResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class ListSessionsRequest(_message.Message):
    __slots__ = ("game", "players", "page_size", "page_token")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game: str
    players: int
    page_size: int
    page_token: str
    def __init__(self, game: _Optional[str] = ..., players: _Optional[int] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListSessionsResponse(_message.Message):
    __slots__ = ("sessions", "next_page_token")
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    sessions: _containers.RepeatedCompositeFieldContainer[Session]
    next_page_token: str
    def __init__(self, sessions: _Optional[_Iterable[_Union[Session, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ClaimSeatRequest(_message.Message):
    __slots__ = ("session", "display_name", "seat")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    session: str
    display_name: str
    seat: int
    def __init__(self, session: _Optional[str] = ..., display_name: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class ClaimSeatResponse(_message.Message):
    __slots__ = ("session", "seat_token")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    session: Session
    seat_token: SeatToken
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., seat_token: _Optional[_Union[SeatToken, _Mapping]] = ...) -> None: ...

class ManageSeatRequest(_message.Message):
    __slots__ = ("session", "seat", "action", "bot_level", "display_name", "etag")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    session: str
    seat: int
    action: SeatAction
    bot_level: _game_pb2.BotLevel
    display_name: str
    etag: str
    def __init__(self, session: _Optional[str] = ..., seat: _Optional[int] = ..., action: _Optional[_Union[SeatAction, str]] = ..., bot_level: _Optional[_Union[_game_pb2.BotLevel, str]] = ..., display_name: _Optional[str] = ..., etag: _Optional[str] = ...) -> None: ...

class ManageSeatResponse(_message.Message):
    __slots__ = ("session", "seat_token")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    session: Session
    seat_token: SeatToken
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., seat_token: _Optional[_Union[SeatToken, _Mapping]] = ...) -> None: ...

class RematchRequest(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: str
    def __init__(self, session: _Optional[str] = ...) -> None: ...

class RematchResponse(_message.Message):
    __slots__ = ("session", "rematch")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    REMATCH_FIELD_NUMBER: _ClassVar[int]
    session: Session
    rematch: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., rematch: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...
