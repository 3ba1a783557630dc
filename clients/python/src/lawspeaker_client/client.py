"""The typed wrapper: one :class:`Client` over gRPC or REST, returning the contract's messages."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import TypeVar

import grpc
import httpx
from google.protobuf.message import Message

from ._transport import GrpcTransport, RestTransport, Transport
from .v1 import game_pb2
from .v1 import rules_service_pb2 as rpb
from .v1 import session_service_pb2 as spb

DEFAULT_TIMEOUT = 30.0
_R = TypeVar("_R", bound=Message)


class Client:
    """A Lawspeaker client. Make one with :meth:`grpc` or :meth:`rest`; every method returns the
    response message of its RPC and raises :class:`~lawspeaker_client.LawspeakerClientError`.

    ``client.sessions`` holds the server-held game sessions (:class:`Sessions`).
    """

    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        self.sessions = Sessions(transport)

    @classmethod
    def grpc(
        cls,
        target: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        credentials: grpc.ChannelCredentials | None = None,
        channel: grpc.Channel | None = None,
        api_key: str | None = None,
    ) -> Client:
        """A client over gRPC to ``target`` ("host:port"); TLS when ``credentials`` are given, or
        over an existing ``channel`` (left open by :meth:`close`). ``api_key`` is sent with every
        call (``x-api-key`` metadata) for a service that requires one."""
        if channel is not None:
            return cls(GrpcTransport(channel, timeout, owned=False, api_key=api_key))
        made = (
            grpc.secure_channel(target, credentials)
            if credentials is not None
            else grpc.insecure_channel(target)
        )
        return cls(GrpcTransport(made, timeout, owned=True, api_key=api_key))

    @classmethod
    def rest(
        cls,
        base_url: str,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        http: httpx.Client | None = None,
        api_key: str | None = None,
    ) -> Client:
        """A client over REST/JSON to ``base_url`` ("http://host:port"), or through an existing
        ``httpx.Client`` whose base_url is the service (left open by :meth:`close`). ``api_key`` is
        sent with every call (the ``X-Api-Key`` header) for a service that requires one."""
        if http is not None:
            return cls(RestTransport(http, owned=False, api_key=api_key))
        made = httpx.Client(base_url=base_url, timeout=timeout)
        return cls(RestTransport(made, owned=True, api_key=api_key))

    @property
    def transport(self) -> str:
        """``"grpc"`` or ``"rest"``."""
        return self._transport.name

    def close(self) -> None:
        """Closes the channel or HTTP connection pool this client made."""
        self._transport.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ RulesService (stateless)

    def list_games(self) -> rpb.ListGamesResponse:
        """Every game the service knows."""
        return self._transport.unary(
            "RulesService", "ListGames", rpb.ListGamesRequest(), rpb.ListGamesResponse, None
        )

    def describe_game(self, game: str) -> rpb.DescribeGameResponse:
        """A game's options, board data and rules assumptions."""
        request = rpb.DescribeGameRequest(game=game)
        return self._transport.unary("RulesService", "DescribeGame", request, rpb.DescribeGameResponse, None)

    def new_game(
        self, game: str, players: int, seed: int | None = None, options: game_pb2.GameOptions | None = None
    ) -> rpb.NewGameResponse:
        """The initial state of a new game (reproducible with ``seed``)."""
        request = rpb.NewGameRequest(game=game, players=players, seed=seed, options=options)
        return self._transport.unary("RulesService", "NewGame", request, rpb.NewGameResponse, None)

    def legal_moves(self, game: str, state: game_pb2.GameState) -> rpb.LegalMovesResponse:
        """The legal moves in ``state``, who is to act, and any chance step."""
        request = rpb.LegalMovesRequest(game=game, state=state)
        return self._transport.unary("RulesService", "LegalMoves", request, rpb.LegalMovesResponse, None)

    def validate_move(
        self, game: str, state: game_pb2.GameState, move: game_pb2.Move
    ) -> rpb.ValidateMoveResponse:
        """Whether ``move`` is legal in ``state`` and, if not, the violation (not an error)."""
        request = rpb.ValidateMoveRequest(game=game, state=state, move=move)
        return self._transport.unary("RulesService", "ValidateMove", request, rpb.ValidateMoveResponse, None)

    def apply_move(self, game: str, state: game_pb2.GameState, move: game_pb2.Move) -> rpb.ApplyMoveResponse:
        """The state after ``move`` and what happened; an illegal move raises FAILED_PRECONDITION."""
        request = rpb.ApplyMoveRequest(game=game, state=state, move=move)
        return self._transport.unary("RulesService", "ApplyMove", request, rpb.ApplyMoveResponse, None)

    def suggest_move(
        self,
        game: str,
        state: game_pb2.GameState,
        level: game_pb2.BotLevel | str,
        *,
        seat: int | None = None,
        playouts: int = 0,
        millis: int = 0,
        seed: int | None = None,
    ) -> rpb.SuggestMoveResponse:
        """A legal move for ``seat`` (default: the seat to act) from a computer opponent of ``level``
        (``game_pb2.BOT_LEVEL_RANDOM``, ``_GREEDY`` or ``_SEARCH``); a search stops after
        ``playouts`` or ``millis``, whichever comes first (neither: 1000 playouts). The same
        ``seed`` and playouts give the same move; the answer names the seed used."""
        request = rpb.SuggestMoveRequest(
            game=game,
            state=state,
            seat=seat,
            level=level,
            budget=game_pb2.BotBudget(playouts=playouts, millis=millis),
            seed=seed,
        )
        return self._transport.unary("RulesService", "SuggestMove", request, rpb.SuggestMoveResponse, None)


class Sessions:
    """Server-held game sessions. ``token`` is a seat's secret token from :meth:`create_session`
    (``seat_tokens``); without it a call sees the public (spectator) view and cannot write."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def _unary(self, method: str, request: Message, response_type: type[_R], token: str | None) -> _R:
        return self._transport.unary("SessionService", method, request, response_type, token)

    def create_session(
        self,
        game: str,
        players: int,
        seed: int | None = None,
        options: game_pb2.GameOptions | None = None,
        physical_dice: bool = False,
        bots: Sequence[game_pb2.BotSeat] = (),
    ) -> spb.CreateSessionResponse:
        """A new session (public view) and one secret token per seat, shown only this once. The
        seats in ``bots`` are played by the server (they get no token)."""
        request = spb.CreateSessionRequest(
            game=game, players=players, seed=seed, options=options, physical_dice=physical_dice, bots=bots
        )
        return self._unary("CreateSession", request, spb.CreateSessionResponse, None)

    def get_session(
        self, session: str, *, token: str | None = None, wait_for_change: str = ""
    ) -> spb.GetSessionResponse:
        """The session as the token's seat sees it. ``wait_for_change`` (an etag) makes it a long
        poll: it answers once the session is at another version, or after at most 30 s as it is."""
        request = spb.GetSessionRequest(session=session, wait_for_change=wait_for_change)
        return self._unary("GetSession", request, spb.GetSessionResponse, token)

    def list_moves(
        self, session: str, *, page_size: int = 0, page_token: str = "", token: str | None = None
    ) -> spb.ListSessionMovesResponse:
        """One page of the move log, oldest first (``next_page_token`` continues)."""
        request = spb.ListSessionMovesRequest(session=session, page_size=page_size, page_token=page_token)
        return self._unary("ListSessionMoves", request, spb.ListSessionMovesResponse, token)

    def legal_moves(self, session: str, *, token: str | None = None) -> spb.SessionLegalMovesResponse:
        """The moves the token's seat may make now, and the etag they were listed for."""
        request = spb.SessionLegalMovesRequest(session=session)
        return self._unary("SessionLegalMoves", request, spb.SessionLegalMovesResponse, token)

    def validate_move(
        self, session: str, move: game_pb2.Move, *, token: str | None = None
    ) -> spb.SessionValidateMoveResponse:
        """Whether the token's seat may make ``move`` now and, if not, the violation."""
        request = spb.SessionValidateMoveRequest(session=session, move=move)
        return self._unary("SessionValidateMove", request, spb.SessionValidateMoveResponse, token)

    def apply_move(
        self,
        session: str,
        move: game_pb2.Move,
        etag: str,
        request_id: str | None = None,
        *,
        token: str | None = None,
    ) -> spb.SessionApplyMoveResponse:
        """Makes ``move`` for the token's seat on version ``etag`` (a stale etag raises ABORTED); a
        retry with the same ``request_id`` returns the first result."""
        request = spb.SessionApplyMoveRequest(session=session, move=move, etag=etag, request_id=request_id)
        return self._unary("SessionApplyMove", request, spb.SessionApplyMoveResponse, token)

    def undo(self, session: str, etag: str, *, token: str | None = None) -> spb.UndoMoveResponse:
        """Takes back the token's seat's own last move on version ``etag``."""
        return self._unary(
            "UndoMove", spb.UndoMoveRequest(session=session, etag=etag), spb.UndoMoveResponse, token
        )

    def delete_session(self, session: str, *, token: str | None = None) -> spb.DeleteSessionResponse:
        """Deletes the session (any seat's token)."""
        request = spb.DeleteSessionRequest(session=session)
        return self._unary("DeleteSession", request, spb.DeleteSessionResponse, token)

    def watch(
        self, session: str, *, token: str | None = None, resume_after_etag: str = ""
    ) -> Iterator[spb.WatchSessionResponse]:
        """The session now and after every change, as the token's seat sees it (a gRPC stream or
        Server-Sent Events). It does not end with the game, only when the session is deleted (a last
        response with ``deleted``) or the server stops: close the iterator (or leave the loop, e.g. on
        ``game_over``, and drop it) to end the watch. ``resume_after_etag``: the last etag received,
        to watch again after a stream ended (the first response is then the next change, or the
        current version with ``versions_skipped``)."""
        return self._transport.stream(
            "SessionService",
            "WatchSession",
            spb.WatchSessionRequest(session=session, resume_after_etag=resume_after_etag),
            spb.WatchSessionResponse,
            token,
        )

    def create_watch_ticket(self, session: str, *, token: str | None = None) -> spb.CreateWatchTicketResponse:
        """A one-use watch ticket for the token's seat, valid ``expires_in_seconds``: what a browser's
        EventSource (which cannot send the token) watches with, ``...:watch?ticket=<ticket>``."""
        request = spb.CreateWatchTicketRequest(session=session)
        return self._unary("CreateWatchTicket", request, spb.CreateWatchTicketResponse, token)
