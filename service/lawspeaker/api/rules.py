"""The stateless rules API over protobuf messages, shared by every transport.

Each method takes a request message and returns a response message, or raises
:class:`~lawspeaker.games.core.LawspeakerError`. Transports only decode, call and encode; they map
errors to their own status codes once (``lawspeaker.grpc.server`` and ``lawspeaker.http``).
"""

from __future__ import annotations

import functools
import os
import types
from typing import Any

from google.protobuf import json_format, struct_pb2

from lawspeaker import bots
from lawspeaker.api import links
from lawspeaker.api.botpool import BotPool
from lawspeaker.games import core
from lawspeaker.games.core import ErrorCode, FieldViolation, LawspeakerError, Rng
from lawspeaker.observe import calls
from lawspeaker.v1 import game_pb2, rules_service_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire import fieldpaths, structs
from lawspeaker.wire.codec import Entry, malformed
from lawspeaker.wire.registry import REGISTRY

PROTOBUF = types.SimpleNamespace(
    **{k: v for mod in (game_pb2, rules_service_pb2) for k, v in vars(mod).items() if not k.startswith("_")},
    uint64=int,
    int64=int,
)
"""The protobuf messages of the stateless contract as one namespace: what ``RulesApi`` builds and
reads by default. ``lawspeaker.wire.structs.default_wire()`` is the other one (msgspec Structs)."""


def game_not_found(game_id: str) -> LawspeakerError:
    known = ", ".join(sorted(REGISTRY))
    return LawspeakerError(
        ErrorCode.NOT_FOUND,
        "GAME_NOT_FOUND",
        f"Unknown game {game_id!r}; known games: {known}.",
        (FieldViolation("game", f"must be one of: {known}"),),
        {"game": game_id},
    )


class RulesApi:
    """The six RPCs of RulesService, transport-agnostic.

    ``messages`` is the namespace of message classes requests arrive as and responses are built
    from: protobuf (the default, ``PROTOBUF``) or a ``lawspeaker.wire.structs.Wire`` (whose messages write
    themselves as proto3 JSON); the games' codecs are rebuilt over it.
    """

    def __init__(
        self,
        registry: dict[str, Entry[Any, Any, Any]] | None = None,
        messages: Any = None,
        bot_pool: BotPool | None = None,
    ) -> None:
        registry = REGISTRY if registry is None else registry
        self._bot_pool = bot_pool
        self.m: Any = PROTOBUF if messages is None else messages
        self.protobuf = messages is None
        self.registry = registry if messages is None else {k: e.over(messages) for k, e in registry.items()}
        self.results = {
            core.Result.WIN: self.m.GAME_RESULT_WIN,
            core.Result.DRAW: self.m.GAME_RESULT_DRAW,
            core.Result.ALL_LOSE: self.m.GAME_RESULT_ALL_LOSE,
        }

    @property
    def bot_pool(self) -> BotPool:
        """Where SuggestMove and the sessions' bot seats think (``lawspeaker.api.botpool``); a default
        pool, started on first use, unless one was given."""
        if self._bot_pool is None:
            self._bot_pool = BotPool()
        return self._bot_pool

    @functools.cached_property
    def on_wire(self) -> RulesApi:
        """These games over ``lawspeaker.wire.structs`` messages, for JSON callers; built once and shared
        by every transport and SessionService."""
        return RulesApi(self.registry, messages=structs.default_wire())

    # ------------------------------------------------------------------ helpers

    def entry(self, game_id: str) -> Entry[Any, Any, Any]:
        if not game_id:
            raise malformed("game", "is required: the id of a game, e.g. 'valhalla'", "GAME_REQUIRED")
        found = self.registry.get(game_id)
        if found is not None:
            calls.note_game(game_id)
        if found is None:
            raise game_not_found(game_id)
        return found

    def decode_state(self, entry: Entry[Any, Any, Any], msg: game_pb2.GameState) -> Any:
        field = entry.codec.field
        which = msg.WhichOneof("game")
        if which != field:
            got = f"a {which} state" if which else "no game state"
            raise malformed(
                f"state.{field}", f"is required for game {entry.game.id!r} (got {got})", "STATE_REQUIRED"
            )
        if msg.rules_version != entry.game.rules_version:
            raise LawspeakerError(
                ErrorCode.INVALID_STATE,
                "RULES_VERSION_MISMATCH",
                f"The state was made by rules version {msg.rules_version!r}; this service plays "
                f"{entry.game.id} by rules version {entry.game.rules_version!r}. Start a new game.",
                (FieldViolation("state.rules_version", f"must be {entry.game.rules_version!r}"),),
            )
        if len(msg.rng.seed) != 32:
            raise LawspeakerError(
                ErrorCode.INVALID_STATE,
                "INVALID_STATE",
                "The state's RNG seed must be 32 bytes, as NewGame made it.",
                (FieldViolation("state.rng.seed", "must be 32 bytes"),),
            )
        if msg.rng.counter >= core.RNG_COUNTER_LIMIT:
            raise LawspeakerError(
                ErrorCode.INVALID_STATE,
                "INVALID_STATE",
                f"The state's RNG counter must be below {core.RNG_COUNTER_LIMIT}: no game draws that often.",
                (FieldViolation("state.rng.counter", f"must be below {core.RNG_COUNTER_LIMIT}"),),
            )
        rng = Rng(msg.rng.seed, int(msg.rng.counter))
        try:
            state = entry.codec.state_from_proto(getattr(msg, field), rng)
            problems = entry.game.check_state(state)
        except LawspeakerError as err:
            raise _prefixed(err, f"state.{field}.") from None
        if problems:
            paths = entry.codec.state_paths  # the engine's fields, as the state message lays them out
            named = [FieldViolation(paths(v.field), v.description) for v in problems]
            raise _prefixed(core.InvalidState(named), f"state.{field}.")
        return state

    def encode_state(
        self, entry: Entry[Any, Any, Any], state: Any, with_rng: bool = True
    ) -> game_pb2.GameState:
        """The state's message; without its RNG when ``with_rng`` is False (what a session shows)."""
        m = self.m
        if self.protobuf:
            msg = m.GameState()
            self.fill_state(entry, state, msg, with_rng)
            return msg  # type: ignore[no-any-return]
        fields: dict[str, Any] = {entry.codec.field: entry.codec.state_to_proto(state)}
        if with_rng:
            rng = entry.codec.rng_of(state)
            fields["rng"] = m.RngState(seed=rng.seed, counter=m.uint64(rng.counter))
        return m.GameState(rules_version=entry.game.rules_version, **fields)  # type: ignore[no-any-return]

    def fill_state(
        self, entry: Entry[Any, Any, Any], state: Any, target: game_pb2.GameState, with_rng: bool = True
    ) -> None:
        """Write the state into an empty protobuf ``GameState`` in place.

        A protobuf constructor copies every sub-message it is given, so a response built as
        ``Response(state=GameState(valhalla=...))`` copies the game's state twice; filling the
        response's own ``state`` copies it once.
        """
        target.rules_version = entry.game.rules_version
        getattr(target, entry.codec.field).CopyFrom(entry.codec.state_to_proto(state))
        if with_rng:
            rng = entry.codec.rng_of(state)
            target.rng.seed = rng.seed
            target.rng.counter = rng.counter

    def with_state(self, cls: Any, entry: Entry[Any, Any, Any], state: Any, **fields: Any) -> Any:
        """``cls(state=<the state's GameState>, **fields)``; a protobuf one is filled in place."""
        if not self.protobuf:
            return cls(state=self.encode_state(entry, state), **fields)
        msg = cls(**fields)
        self.fill_state(entry, state, msg.state)
        return msg

    def decode_move(self, entry: Entry[Any, Any, Any], msg: game_pb2.Move, present: bool) -> Any:
        field = entry.codec.field
        if not present:
            raise malformed("move", "is required", "MOVE_REQUIRED")
        which = msg.WhichOneof("game")
        if which != field:
            got = f"a {which} move" if which else "no game move"
            raise malformed(
                f"move.{field}", f"is required for game {entry.game.id!r} (got {got})", "MOVE_REQUIRED"
            )
        try:
            return entry.codec.move_from_proto(getattr(msg, field))
        except LawspeakerError as err:
            raise _prefixed(err, f"move.{field}.") from None

    def encode_move(self, entry: Entry[Any, Any, Any], move: Any) -> game_pb2.Move:
        return self.m.Move(**{entry.codec.field: entry.codec.move_to_proto(move)})  # type: ignore[no-any-return]

    def encode_event(self, entry: Entry[Any, Any, Any], event: core.Event) -> game_pb2.GameEvent:
        fields: dict[str, Any] = {}
        if event.player is not None:
            fields["player"] = event.player
        detail = entry.codec.event_detail_to_proto(event.detail) if event.detail is not None else None
        if detail is not None:
            fields[entry.codec.field] = detail
        return self.m.GameEvent(kind=event.kind, text=event.text, **fields)  # type: ignore[no-any-return]

    def encode_outcome(self, outcome: core.Outcome) -> game_pb2.GameOutcome:
        return self.m.GameOutcome(  # type: ignore[no-any-return]
            result=self.results[outcome.result], winners=list(outcome.winners), summary=outcome.summary
        )

    def encode_chance(self, entry: Entry[Any, Any, Any], chance: core.Chance[Any]) -> game_pb2.ChanceEvent:
        m = self.m
        return m.ChanceEvent(  # type: ignore[no-any-return]
            description=chance.description,
            outcomes=[
                m.ChanceOutcome(
                    move=self.encode_move(entry, o.move), probability=float(o.probability), label=o.label
                )
                for o in chance.outcomes
            ],
        )

    def encode_violation(self, entry: Entry[Any, Any, Any], v: core.Violation) -> game_pb2.Violation:
        field = _move_field(entry, v.field)
        return self.m.Violation(  # type: ignore[no-any-return]
            reason=v.reason,
            message=v.message,
            field=field if self.protobuf else fieldpaths.to_json(field),  # wire messages are JSON's
            rule=links.rule_url(core.rule_of(entry.game, v.reason)),
        )

    def apply_checked(
        self, entry: Entry[Any, Any, Any], state: Any, move: Any
    ) -> tuple[Any, list[core.Event]]:
        """``core.apply``; an illegal move raises IllegalMove naming the request field at fault."""
        try:
            return core.apply(entry.game, state, move)
        except core.IllegalMove as err:
            raise core.IllegalMove(
                core.Violation(
                    err.violation.reason, err.violation.message, _move_field(entry, err.violation.field)
                ),
                err.code,
                err.rule,
            ) from None

    # ------------------------------------------------------------------ the RPCs

    def list_games(self, request: pb.ListGamesRequest) -> pb.ListGamesResponse:
        return pb.ListGamesResponse(games=[self.info(e) for _, e in sorted(self.registry.items())])

    @staticmethod
    def info(entry: Entry[Any, Any, Any]) -> game_pb2.GameInfo:
        g = entry.game
        return game_pb2.GameInfo(
            id=g.id,
            title=g.title,
            min_players=g.min_players,
            max_players=g.max_players,
            rules_version=g.rules_version,
        )

    def describe_game(self, request: pb.DescribeGameRequest) -> pb.DescribeGameResponse:
        entry = self.entry(request.game)
        return pb.DescribeGameResponse.FromString(_described(entry, links.base()))

    @staticmethod
    def describe_entry(entry: Entry[Any, Any, Any]) -> pb.DescribeGameResponse:
        """The DescribeGame answer for a game, built from its engine's description (each reason's
        ``rule`` as its URL from the call's base, ``lawspeaker.api.links``)."""
        d = entry.game.describe()
        data = struct_pb2.Struct()
        json_format.ParseDict(dict(d.data), data)
        return pb.DescribeGameResponse(
            info=RulesApi.info(entry),
            options=[
                game_pb2.GameOptionInfo(
                    name=o.name,
                    description=o.description,
                    default_value=o.default,
                    allowed_values=o.allowed,
                )
                for o in d.options
            ],
            data=data,
            assumptions=[
                game_pb2.RulesAssumption(id=a.id, rulebook=a.rulebook, decision=a.decision, option=a.option)
                for a in d.assumptions
            ],
            reasons=[
                game_pb2.RuleReason(
                    reason=r.reason, meaning=r.meaning, rule=links.rule_url(r.rule), rulebook=r.rulebook
                )
                for r in entry.game.reasons.values()  # in the order of the rulebook
            ],
        )

    def new_game(self, request: pb.NewGameRequest) -> pb.NewGameResponse:
        entry, state = self.initial_state(request)
        return self.with_state(self.m.NewGameResponse, entry, state)  # type: ignore[no-any-return]

    def initial_state(self, request: pb.NewGameRequest) -> tuple[Entry[Any, Any, Any], Any]:
        """The game's entry and the initial engine state a NewGame request asks for (checked)."""
        entry = self.entry(request.game)
        g = entry.game
        players = request.players
        if not g.min_players <= players <= g.max_players:
            span = (
                f"{g.min_players}"
                if g.min_players == g.max_players
                else f"{g.min_players} to {g.max_players}"
            )
            if players == 0:  # proto3 cannot tell 0 from unset: nobody asks for a game of nobody
                message, description = (
                    f"players is required: {g.title} is played by {span} players.",
                    (f"is required: {span}"),
                )
            else:
                message = f"{g.title} is played by {span} players, not {players}."
                description = f"must be {span}"
            raise LawspeakerError(
                ErrorCode.MALFORMED, "PLAYER_COUNT", message, (FieldViolation("players", description),)
            )
        options_msg = None
        if request.HasField("options"):
            which = request.options.WhichOneof("game")
            if which is not None and which != entry.codec.field:
                raise malformed(
                    f"options.{which}", f"are not options of game {g.id!r}", "OPTIONS_FOR_OTHER_GAME"
                )
            if which is not None:
                options_msg = getattr(request.options, which)
        try:
            options = entry.codec.options_from_proto(options_msg)
        except LawspeakerError as err:
            raise _prefixed(err, f"options.{entry.codec.field}.") from None
        seed = request.seed if request.HasField("seed") else os.urandom(16)
        try:  # a game may refuse options that do not fit the number of players
            return entry, g.new_game(players, options, Rng.from_seed(seed))
        except LawspeakerError as err:
            raise _prefixed(err, f"options.{entry.codec.field}.") from None

    def legal_moves(self, request: pb.LegalMovesRequest) -> pb.LegalMovesResponse:
        entry = self.entry(request.game)
        state = self.decode_state(entry, request.state)
        g = entry.game
        fields: dict[str, Any] = {}
        chance = g.chance(state)
        if chance is not None:
            fields["chance"] = self.encode_chance(entry, chance)
        outcome = g.outcome(state)
        if outcome is not None:
            fields["game_over"] = True
            fields["outcome"] = self.encode_outcome(outcome)
        return self.m.LegalMovesResponse(  # type: ignore[no-any-return]
            moves=[self.encode_move(entry, m) for m in g.legal_moves(state)],
            to_act=list(g.to_act(state).players),
            **fields,
        )

    def validate_move(self, request: pb.ValidateMoveRequest) -> pb.ValidateMoveResponse:
        entry = self.entry(request.game)
        state = self.decode_state(entry, request.state)
        move = self.decode_move(entry, request.move, request.HasField("move"))
        violation = core.validate(entry.game, state, move)
        if violation is None:
            return self.m.ValidateMoveResponse(valid=True)  # type: ignore[no-any-return]
        calls.note_violation(violation.reason)
        return self.m.ValidateMoveResponse(  # type: ignore[no-any-return]
            valid=False, violation=self.encode_violation(entry, violation)
        )

    def apply_move(self, request: pb.ApplyMoveRequest) -> pb.ApplyMoveResponse:
        entry = self.entry(request.game)
        state = self.decode_state(entry, request.state)
        move = self.decode_move(entry, request.move, request.HasField("move"))
        new_state, events = self.apply_checked(entry, state, move)
        fields: dict[str, Any] = {}
        outcome = entry.game.outcome(new_state)
        if outcome is not None:
            fields["game_over"] = True
            fields["outcome"] = self.encode_outcome(outcome)
        return self.with_state(  # type: ignore[no-any-return]
            self.m.ApplyMoveResponse,
            entry,
            new_state,
            events=[self.encode_event(entry, e) for e in events],
            **fields,
        )

    async def suggest_move(self, request: pb.SuggestMoveRequest) -> pb.SuggestMoveResponse:
        """A legal move for the seat, from a bot of the level asked for (``lawspeaker.bots``),
        thought in the bot pool, off the event loop."""
        entry = self.entry(request.game)
        state = self.decode_state(entry, request.state)
        g = entry.game
        players = bots.player_count(g, state)
        if request.HasField("seat"):
            seat = request.seat
            if not 0 <= seat < players:
                raise malformed(
                    "seat", f"must be a seat of this game: 0 to {players - 1}", "SEAT_OUT_OF_RANGE"
                )
        else:
            acting = g.to_act(state).players
            seat = acting[0] if acting else 0  # nobody acts: a chance step anyone may ask to draw
        level = bot_level(request.level)
        playouts, millis = bot_budget(request.budget if request.HasField("budget") else None)
        seed = request.seed if request.HasField("seed") else int.from_bytes(os.urandom(8)) >> 1
        found = await self.bot_pool.suggest(
            g.id, state, seat, level, playouts=playouts, millis=millis, seed=seed
        )
        return pb.SuggestMoveResponse(
            move=self.encode_move(entry, found.move),
            value=found.value,
            playouts=found.playouts,
            seed=seed,
            seat=seat,
        )


LEVELS = {
    game_pb2.BOT_LEVEL_RANDOM: bots.Level.RANDOM,
    game_pb2.BOT_LEVEL_GREEDY: bots.Level.GREEDY,
    game_pb2.BOT_LEVEL_SEARCH: bots.Level.SEARCH,
}


def bot_level(level: int, field: str = "level") -> bots.Level:
    """The bot level of a ``BotLevel`` value; unset or unknown values are refused."""
    found: bots.Level | None = LEVELS.get(level)  # type: ignore[call-overload]
    if found is None:
        names = ", ".join(game_pb2.BotLevel.Name(v) for v in LEVELS)
        what = "is required" if level == game_pb2.BOT_LEVEL_UNSPECIFIED else f"has no level numbered {level}"
        raise malformed(field, f"{what}: one of {names}", "BOT_LEVEL_REQUIRED")
    return found


def bot_budget(budget: game_pb2.BotBudget | None) -> tuple[int | None, float | None]:
    """The playouts and milliseconds of a ``BotBudget`` (0 or unset: no such limit; both: the
    default); values past the caps of ``lawspeaker.bots`` are taken as the caps."""
    if budget is None:
        return None, None
    return (budget.playouts or None), (float(budget.millis) if budget.millis else None)


@functools.lru_cache(maxsize=64)  # fixed for the life of the process (and large): per game and base
def _described(entry: Entry[Any, Any, Any], base: str) -> bytes:
    with links.using(base):
        return RulesApi.describe_entry(entry).SerializeToString()


def _move_field(entry: Entry[Any, Any, Any], field: str) -> str:
    if field == "move" or field.startswith("move."):
        return field
    return f"move.{entry.codec.field}.{field}" if field else f"move.{entry.codec.field}"


def _prefixed(err: LawspeakerError, prefix: str) -> LawspeakerError:
    """The same error with its field paths made absolute within the request."""

    root = prefix.split(".", 1)[0]  # "state", "move" or "options": a path from there is absolute

    def fix(path: str) -> str:
        if not path:  # the message the prefix names itself (a move with no action)
            return prefix.rstrip(".")
        return path if path == root or path.startswith(root + ".") else prefix + path

    violations = tuple(FieldViolation(fix(v.field), v.description) for v in err.field_violations)
    message = err.message
    if err.field_violations and not err.field_violations[0].field:
        message = f"{violations[0].field}: {message}"
    elif err.field_violations and message.startswith(err.field_violations[0].field):
        message = fix(err.field_violations[0].field) + message[len(err.field_violations[0].field) :]
    elif isinstance(err, core.InvalidState) and violations:
        message = f"The state is not a valid position: {violations[0].field}: {violations[0].description}"
    return LawspeakerError(err.code, err.reason, message, violations, err.metadata)
