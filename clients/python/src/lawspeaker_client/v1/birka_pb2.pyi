from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BirkaPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BIRKA_PHASE_UNSPECIFIED: _ClassVar[BirkaPhase]
    BIRKA_PHASE_SETUP_DEAL: _ClassVar[BirkaPhase]
    BIRKA_PHASE_SETUP_START: _ClassVar[BirkaPhase]
    BIRKA_PHASE_CALENDAR: _ClassVar[BirkaPhase]
    BIRKA_PHASE_LEVY: _ClassVar[BirkaPhase]
    BIRKA_PHASE_ROLL: _ClassVar[BirkaPhase]
    BIRKA_PHASE_COLLECT: _ClassVar[BirkaPhase]
    BIRKA_PHASE_TRIBUTE_PAY: _ClassVar[BirkaPhase]
    BIRKA_PHASE_TRIBUTE_TAKE: _ClassVar[BirkaPhase]
    BIRKA_PHASE_ACTIONS: _ClassVar[BirkaPhase]
    BIRKA_PHASE_UPGRADE_TOKEN: _ClassVar[BirkaPhase]
    BIRKA_PHASE_MJOD_TOKEN: _ClassVar[BirkaPhase]
    BIRKA_PHASE_TINGET_DRAW: _ClassVar[BirkaPhase]
    BIRKA_PHASE_TINGET_KEEP: _ClassVar[BirkaPhase]
    BIRKA_PHASE_RECOVER: _ClassVar[BirkaPhase]
    BIRKA_PHASE_RATIONS: _ClassVar[BirkaPhase]
    BIRKA_PHASE_OVER: _ClassVar[BirkaPhase]

class BirkaFeeding(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BIRKA_FEEDING_UNSPECIFIED: _ClassVar[BirkaFeeding]
    BIRKA_FEEDING_STARVING: _ClassVar[BirkaFeeding]
    BIRKA_FEEDING_RECOVERED: _ClassVar[BirkaFeeding]
BIRKA_PHASE_UNSPECIFIED: BirkaPhase
BIRKA_PHASE_SETUP_DEAL: BirkaPhase
BIRKA_PHASE_SETUP_START: BirkaPhase
BIRKA_PHASE_CALENDAR: BirkaPhase
BIRKA_PHASE_LEVY: BirkaPhase
BIRKA_PHASE_ROLL: BirkaPhase
BIRKA_PHASE_COLLECT: BirkaPhase
BIRKA_PHASE_TRIBUTE_PAY: BirkaPhase
BIRKA_PHASE_TRIBUTE_TAKE: BirkaPhase
BIRKA_PHASE_ACTIONS: BirkaPhase
BIRKA_PHASE_UPGRADE_TOKEN: BirkaPhase
BIRKA_PHASE_MJOD_TOKEN: BirkaPhase
BIRKA_PHASE_TINGET_DRAW: BirkaPhase
BIRKA_PHASE_TINGET_KEEP: BirkaPhase
BIRKA_PHASE_RECOVER: BirkaPhase
BIRKA_PHASE_RATIONS: BirkaPhase
BIRKA_PHASE_OVER: BirkaPhase
BIRKA_FEEDING_UNSPECIFIED: BirkaFeeding
BIRKA_FEEDING_STARVING: BirkaFeeding
BIRKA_FEEDING_RECOVERED: BirkaFeeding

class BirkaOptions(_message.Message):
    __slots__ = ("calendar_rounds", "data", "tokens_only")
    CALENDAR_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    TOKENS_ONLY_FIELD_NUMBER: _ClassVar[int]
    calendar_rounds: int
    data: str
    tokens_only: bool
    def __init__(self, calendar_rounds: _Optional[int] = ..., data: _Optional[str] = ..., tokens_only: _Optional[bool] = ...) -> None: ...

class BirkaSeat(_message.Message):
    __slots__ = ("visthus", "extension", "skepp", "plots", "feeding", "hand", "completed", "deck")
    VISTHUS_FIELD_NUMBER: _ClassVar[int]
    EXTENSION_FIELD_NUMBER: _ClassVar[int]
    SKEPP_FIELD_NUMBER: _ClassVar[int]
    PLOTS_FIELD_NUMBER: _ClassVar[int]
    FEEDING_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    visthus: _containers.RepeatedScalarFieldContainer[int]
    extension: bool
    skepp: int
    plots: _containers.RepeatedScalarFieldContainer[int]
    feeding: BirkaFeeding
    hand: _containers.RepeatedScalarFieldContainer[int]
    completed: _containers.RepeatedScalarFieldContainer[int]
    deck: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, visthus: _Optional[_Iterable[int]] = ..., extension: _Optional[bool] = ..., skepp: _Optional[int] = ..., plots: _Optional[_Iterable[int]] = ..., feeding: _Optional[_Union[BirkaFeeding, str]] = ..., hand: _Optional[_Iterable[int]] = ..., completed: _Optional[_Iterable[int]] = ..., deck: _Optional[_Iterable[int]] = ...) -> None: ...

class BirkaState(_message.Message):
    __slots__ = ("options", "players", "phase", "actor", "starter", "round", "turn", "step", "die", "yellow", "actions_left", "seats", "owners", "mjod_token", "market", "calendar", "card", "round_cards", "drawn", "hidden", "due", "pending", "left", "finisher", "scores", "winners", "ply")
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    DIE_FIELD_NUMBER: _ClassVar[int]
    YELLOW_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_LEFT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    OWNERS_FIELD_NUMBER: _ClassVar[int]
    MJOD_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MARKET_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    ROUND_CARDS_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    DUE_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    FINISHER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    options: BirkaOptions
    players: int
    phase: BirkaPhase
    actor: int
    starter: int
    round: int
    turn: int
    step: int
    die: int
    yellow: int
    actions_left: int
    seats: _containers.RepeatedCompositeFieldContainer[BirkaSeat]
    owners: _containers.RepeatedScalarFieldContainer[int]
    mjod_token: int
    market: _containers.RepeatedScalarFieldContainer[int]
    calendar: _containers.RepeatedScalarFieldContainer[int]
    card: int
    round_cards: _containers.RepeatedScalarFieldContainer[int]
    drawn: _containers.RepeatedScalarFieldContainer[int]
    hidden: int
    due: _containers.RepeatedScalarFieldContainer[int]
    pending: int
    left: int
    finisher: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    ply: int
    def __init__(self, options: _Optional[_Union[BirkaOptions, _Mapping]] = ..., players: _Optional[int] = ..., phase: _Optional[_Union[BirkaPhase, str]] = ..., actor: _Optional[int] = ..., starter: _Optional[int] = ..., round: _Optional[int] = ..., turn: _Optional[int] = ..., step: _Optional[int] = ..., die: _Optional[int] = ..., yellow: _Optional[int] = ..., actions_left: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[BirkaSeat, _Mapping]]] = ..., owners: _Optional[_Iterable[int]] = ..., mjod_token: _Optional[int] = ..., market: _Optional[_Iterable[int]] = ..., calendar: _Optional[_Iterable[int]] = ..., card: _Optional[int] = ..., round_cards: _Optional[_Iterable[int]] = ..., drawn: _Optional[_Iterable[int]] = ..., hidden: _Optional[int] = ..., due: _Optional[_Iterable[int]] = ..., pending: _Optional[int] = ..., left: _Optional[int] = ..., finisher: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ..., ply: _Optional[int] = ...) -> None: ...

class BirkaDraw(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: int
    def __init__(self, outcome: _Optional[int] = ...) -> None: ...

class BirkaDrawCard(_message.Message):
    __slots__ = ("index",)
    INDEX_FIELD_NUMBER: _ClassVar[int]
    index: int
    def __init__(self, index: _Optional[int] = ...) -> None: ...

class BirkaCollect(_message.Message):
    __slots__ = ("resource",)
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    resource: int
    def __init__(self, resource: _Optional[int] = ...) -> None: ...

class BirkaStopCollecting(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BirkaPayTribute(_message.Message):
    __slots__ = ("resource",)
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    resource: int
    def __init__(self, resource: _Optional[int] = ...) -> None: ...

class BirkaTakeTribute(_message.Message):
    __slots__ = ("seat", "resource")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    resource: int
    def __init__(self, seat: _Optional[int] = ..., resource: _Optional[int] = ...) -> None: ...

class BirkaMarketTrade(_message.Message):
    __slots__ = ("give", "take")
    GIVE_FIELD_NUMBER: _ClassVar[int]
    TAKE_FIELD_NUMBER: _ClassVar[int]
    give: int
    take: int
    def __init__(self, give: _Optional[int] = ..., take: _Optional[int] = ...) -> None: ...

class BirkaOutlawTrade(_message.Message):
    __slots__ = ("give", "take")
    GIVE_FIELD_NUMBER: _ClassVar[int]
    TAKE_FIELD_NUMBER: _ClassVar[int]
    give: int
    take: int
    def __init__(self, give: _Optional[int] = ..., take: _Optional[int] = ...) -> None: ...

class BirkaCraft(_message.Message):
    __slots__ = ("building",)
    BUILDING_FIELD_NUMBER: _ClassVar[int]
    building: int
    def __init__(self, building: _Optional[int] = ...) -> None: ...

class BirkaBuySkepp(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BirkaUpgrade(_message.Message):
    __slots__ = ("plot", "good")
    PLOT_FIELD_NUMBER: _ClassVar[int]
    GOOD_FIELD_NUMBER: _ClassVar[int]
    plot: int
    good: int
    def __init__(self, plot: _Optional[int] = ..., good: _Optional[int] = ...) -> None: ...

class BirkaPlaceToken(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: int
    def __init__(self, value: _Optional[int] = ...) -> None: ...

class BirkaBuild(_message.Message):
    __slots__ = ("building",)
    BUILDING_FIELD_NUMBER: _ClassVar[int]
    building: int
    def __init__(self, building: _Optional[int] = ...) -> None: ...

class BirkaBuildExtension(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BirkaAcquireRunestone(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BirkaKeepCard(_message.Message):
    __slots__ = ("index",)
    INDEX_FIELD_NUMBER: _ClassVar[int]
    index: int
    def __init__(self, index: _Optional[int] = ...) -> None: ...

class BirkaDiscard(_message.Message):
    __slots__ = ("resource",)
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    resource: int
    def __init__(self, resource: _Optional[int] = ...) -> None: ...

class BirkaEndActions(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BirkaPayRation(_message.Message):
    __slots__ = ("food", "bread")
    FOOD_FIELD_NUMBER: _ClassVar[int]
    BREAD_FIELD_NUMBER: _ClassVar[int]
    food: _containers.RepeatedScalarFieldContainer[int]
    bread: bool
    def __init__(self, food: _Optional[_Iterable[int]] = ..., bread: _Optional[bool] = ...) -> None: ...

class BirkaPayLevy(_message.Message):
    __slots__ = ("resource",)
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    resource: int
    def __init__(self, resource: _Optional[int] = ...) -> None: ...

class BirkaMove(_message.Message):
    __slots__ = ("draw", "draw_card", "collect", "stop_collecting", "pay_tribute", "take_tribute", "market_trade", "outlaw_trade", "craft", "buy_skepp", "upgrade", "place_token", "build", "build_extension", "acquire_runestone", "keep_card", "discard", "end_actions", "pay_ration", "pay_levy")
    DRAW_FIELD_NUMBER: _ClassVar[int]
    DRAW_CARD_FIELD_NUMBER: _ClassVar[int]
    COLLECT_FIELD_NUMBER: _ClassVar[int]
    STOP_COLLECTING_FIELD_NUMBER: _ClassVar[int]
    PAY_TRIBUTE_FIELD_NUMBER: _ClassVar[int]
    TAKE_TRIBUTE_FIELD_NUMBER: _ClassVar[int]
    MARKET_TRADE_FIELD_NUMBER: _ClassVar[int]
    OUTLAW_TRADE_FIELD_NUMBER: _ClassVar[int]
    CRAFT_FIELD_NUMBER: _ClassVar[int]
    BUY_SKEPP_FIELD_NUMBER: _ClassVar[int]
    UPGRADE_FIELD_NUMBER: _ClassVar[int]
    PLACE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    BUILD_FIELD_NUMBER: _ClassVar[int]
    BUILD_EXTENSION_FIELD_NUMBER: _ClassVar[int]
    ACQUIRE_RUNESTONE_FIELD_NUMBER: _ClassVar[int]
    KEEP_CARD_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    END_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    PAY_RATION_FIELD_NUMBER: _ClassVar[int]
    PAY_LEVY_FIELD_NUMBER: _ClassVar[int]
    draw: BirkaDraw
    draw_card: BirkaDrawCard
    collect: BirkaCollect
    stop_collecting: BirkaStopCollecting
    pay_tribute: BirkaPayTribute
    take_tribute: BirkaTakeTribute
    market_trade: BirkaMarketTrade
    outlaw_trade: BirkaOutlawTrade
    craft: BirkaCraft
    buy_skepp: BirkaBuySkepp
    upgrade: BirkaUpgrade
    place_token: BirkaPlaceToken
    build: BirkaBuild
    build_extension: BirkaBuildExtension
    acquire_runestone: BirkaAcquireRunestone
    keep_card: BirkaKeepCard
    discard: BirkaDiscard
    end_actions: BirkaEndActions
    pay_ration: BirkaPayRation
    pay_levy: BirkaPayLevy
    def __init__(self, draw: _Optional[_Union[BirkaDraw, _Mapping]] = ..., draw_card: _Optional[_Union[BirkaDrawCard, _Mapping]] = ..., collect: _Optional[_Union[BirkaCollect, _Mapping]] = ..., stop_collecting: _Optional[_Union[BirkaStopCollecting, _Mapping]] = ..., pay_tribute: _Optional[_Union[BirkaPayTribute, _Mapping]] = ..., take_tribute: _Optional[_Union[BirkaTakeTribute, _Mapping]] = ..., market_trade: _Optional[_Union[BirkaMarketTrade, _Mapping]] = ..., outlaw_trade: _Optional[_Union[BirkaOutlawTrade, _Mapping]] = ..., craft: _Optional[_Union[BirkaCraft, _Mapping]] = ..., buy_skepp: _Optional[_Union[BirkaBuySkepp, _Mapping]] = ..., upgrade: _Optional[_Union[BirkaUpgrade, _Mapping]] = ..., place_token: _Optional[_Union[BirkaPlaceToken, _Mapping]] = ..., build: _Optional[_Union[BirkaBuild, _Mapping]] = ..., build_extension: _Optional[_Union[BirkaBuildExtension, _Mapping]] = ..., acquire_runestone: _Optional[_Union[BirkaAcquireRunestone, _Mapping]] = ..., keep_card: _Optional[_Union[BirkaKeepCard, _Mapping]] = ..., discard: _Optional[_Union[BirkaDiscard, _Mapping]] = ..., end_actions: _Optional[_Union[BirkaEndActions, _Mapping]] = ..., pay_ration: _Optional[_Union[BirkaPayRation, _Mapping]] = ..., pay_levy: _Optional[_Union[BirkaPayLevy, _Mapping]] = ...) -> None: ...

class BirkaEvent(_message.Message):
    __slots__ = ("value", "resources", "seats", "cards", "secret", "private_event", "viewers")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_EVENT_FIELD_NUMBER: _ClassVar[int]
    VIEWERS_FIELD_NUMBER: _ClassVar[int]
    value: int
    resources: _containers.RepeatedScalarFieldContainer[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    cards: _containers.RepeatedScalarFieldContainer[int]
    secret: bool
    private_event: bool
    viewers: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, value: _Optional[int] = ..., resources: _Optional[_Iterable[int]] = ..., seats: _Optional[_Iterable[int]] = ..., cards: _Optional[_Iterable[int]] = ..., secret: _Optional[bool] = ..., private_event: _Optional[bool] = ..., viewers: _Optional[_Iterable[int]] = ...) -> None: ...
