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
    (``seat_tokens``) or :meth:`claim_seat`; without it a call sees the public (spectator) view and
    cannot write. The host's calls (:meth:`manage_seat`, :meth:`rematch`, :meth:`delete_session`)
    take the session's host token (``host_token``) as ``token`` instead: it acts for no seat."""

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
        clock: spb.Clock | None = None,
        *,
        open_seats: Sequence[int] = (),
        display_names: Sequence[str] = (),
    ) -> spb.CreateSessionResponse:
        """A new session (public view), one secret token per seat a person plays and the host token
        (``host_token``), each shown only this once: keep the host token, it alone deletes a session
        that was in the lobby, manages its seats and makes a rematch at once. The seats in ``bots``
        are played by the server (they get no token). ``open_seats`` get no token either: they are
        listed in the lobby (:meth:`list_sessions`) until someone claims them (:meth:`claim_seat`),
        and nothing is played until every seat has a player. ``display_names``: the players' names
        by seat ("" for none, none for an open seat), normalised by the server (a name longer than
        32 characters once normalised raises INVALID_ARGUMENT, DISPLAY_NAME_TOO_LONG). ``clock`` is
        a turn clock (``spb.Clock(per_move_seconds=60, bank_seconds=300, increment_seconds=10)``)
        and what its timeout does; every view then has ``clock``, each seat's
        ``seats[i].time_left_seconds`` and ``deadline``, and ``update_time`` (when the version was
        written, by the server's clock) to correct a local countdown by."""
        request = spb.CreateSessionRequest(
            game=game,
            players=players,
            seed=seed,
            options=options,
            physical_dice=physical_dice,
            bots=bots,
            clock=clock,
            open_seats=open_seats,
            display_names=display_names,
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

    def resign_seat(
        self,
        session: str,
        action: spb.ResignAction | str = spb.RESIGN_ACTION_UNSPECIFIED,
        *,
        bot_level: game_pb2.BotLevel | str = game_pb2.BOT_LEVEL_UNSPECIFIED,
        etag: str = "",
        token: str | None = None,
    ) -> spb.ResignSeatResponse:
        """Resigns the token's seat, on its turn or not. ``action``: ``spb.RESIGN_ACTION_FORFEIT``
        (the default) loses (with two players the other seat wins; with more, the seat is out, ranked
        last, and a bot of ``bot_level`` plays its pieces), ``spb.RESIGN_ACTION_BOT`` hands the seat
        to such a bot. ``etag``: refuse (ABORTED) unless the session is still at that version. The
        answer is the session after it (its ``result`` says how it ended, when it did); the token
        still watches but no longer moves (SEAT_RESIGNED)."""
        request = spb.ResignSeatRequest(session=session, action=action, bot_level=bot_level, etag=etag)
        return self._unary("ResignSeat", request, spb.ResignSeatResponse, token)

    def delete_session(self, session: str, *, token: str | None = None) -> spb.DeleteSessionResponse:
        """Deletes the session: with the host token, or with any seat's token when no seat of the
        session was ever open in the lobby (players who met there do not end each other's game:
        HOST_TOKEN_INVALID)."""
        request = spb.DeleteSessionRequest(session=session)
        return self._unary("DeleteSession", request, spb.DeleteSessionResponse, token)

    # ------------------------------------------------------------------ the lobby and the host

    def list_sessions(
        self, game: str = "", players: int = 0, *, page_size: int = 0, page_token: str = ""
    ) -> spb.ListSessionsResponse:
        """One page of the lobby: the sessions with an open seat, each in its public view, of
        ``game`` ("": every game) for ``players`` (0: any number); ``page_size`` 0 is the server's
        20, at most 100; ``next_page_token`` continues. No token is needed (none is ever shown); a
        listing counts against the server's lobby rate (LOBBY_RATE_LIMITED, ``retry_after``)."""
        request = spb.ListSessionsRequest(
            game=game, players=players, page_size=page_size, page_token=page_token
        )
        return self._unary("ListSessions", request, spb.ListSessionsResponse, None)

    def iter_sessions(self, game: str = "", players: int = 0, *, page_size: int = 0) -> Iterator[spb.Session]:
        """Every session of the lobby :meth:`list_sessions` lists, page after page, until the last
        page. Each page is one call, fetched when the one before is used up: a long lobby is not
        read ahead of the caller, and each page counts against the lobby rate."""
        page_token = ""
        while True:
            page = self.list_sessions(game, players, page_size=page_size, page_token=page_token)
            yield from page.sessions
            if not page.next_page_token:
                return
            page_token = page.next_page_token

    def claim_seat(self, session: str, display_name: str, seat: int | None = None) -> spb.ClaimSeatResponse:
        """Claims an open seat (``seat``, else the lowest open one) under ``display_name``: the
        answer has the seat's token (``seat_token``, shown only this once) and the session as that
        seat sees it. First come, first served: a seat already taken, or no open seat left, raises
        FAILED_PRECONDITION, SEAT_NOT_OPEN. No token is needed; a claim counts against the lobby
        rate."""
        request = spb.ClaimSeatRequest(session=session, display_name=display_name, seat=seat)
        return self._unary("ClaimSeat", request, spb.ClaimSeatResponse, None)

    def manage_seat(
        self,
        session: str,
        seat: int,
        action: spb.SeatAction | str,
        *,
        bot_level: game_pb2.BotLevel | str = game_pb2.BOT_LEVEL_UNSPECIFIED,
        display_name: str | None = None,
        etag: str = "",
        token: str | None = None,
    ) -> spb.ManageSeatResponse:
        """The host's seat controls (``token``: the host token). ``action``:
        ``spb.SEAT_ACTION_REISSUE_TOKEN`` gives ``seat`` a new token (``seat_token`` in the answer;
        the old one is refused from now on), with ``display_name`` as its player's name if given,
        and gives a bot's, open or reserved seat back to a person; ``spb.SEAT_ACTION_BOT`` hands the
        seat to a bot of ``bot_level`` (greedy when unset); ``spb.SEAT_ACTION_OPEN`` lists it in the
        lobby for anyone to claim; ``spb.SEAT_ACTION_CLOSE`` takes an open seat out of the lobby
        (it waits, reserved, for a reissued token). ``etag``: refuse (ABORTED) unless the session is
        still at that version. The answer is the session after it, in its public view."""
        request = spb.ManageSeatRequest(
            session=session,
            seat=seat,
            action=action,
            bot_level=bot_level,
            display_name=display_name,
            etag=etag,
        )
        return self._unary("ManageSeat", request, spb.ManageSeatResponse, token)

    def rematch(self, session: str, *, token: str | None = None) -> spb.RematchResponse:
        """Asks for a rematch of a finished game. With the host token it is made at once; with a
        seat's token it is this seat's vote, and it is made once every seat a person plays has
        asked (until then ``rematch`` is unset and ``session.rematch_requested`` lists the votes).
        The new session (``rematch``, and the old session's ``session.rematch`` names it) seats
        every player one seat on, seat i's player at seat (i + 1) mod players, bots too, and takes
        the same tokens: each token, the host's too, acts there for its player's new seat. Asking
        again answers the same rematch."""
        request = spb.RematchRequest(session=session)
        return self._unary("Rematch", request, spb.RematchResponse, token)

    def watch(
        self,
        session: str,
        *,
        token: str | None = None,
        resume_after_etag: str = "",
        presence: bool = False,
    ) -> Iterator[spb.WatchSessionResponse]:
        """The session now and after every change, as the token's seat sees it (a gRPC stream or
        Server-Sent Events). It does not end with the game, only when the session is deleted (a last
        response with ``deleted``) or the server stops: close the iterator (or leave the loop, e.g. on
        ``game_over``, and drop it) to end the watch. ``resume_after_etag``: the last etag received,
        to watch again after a stream ended (the first response is then the next change, or the
        current version with ``versions_skipped``). ``presence``: also the current version again (the
        same etag) when a seat connects or leaves, with ``seats[i].connected`` as it is now."""
        request = spb.WatchSessionRequest(
            session=session, resume_after_etag=resume_after_etag, presence=presence
        )
        return self._transport.stream(
            "SessionService", "WatchSession", request, spb.WatchSessionResponse, token
        )

    def create_watch_ticket(self, session: str, *, token: str | None = None) -> spb.CreateWatchTicketResponse:
        """A one-use watch ticket for the token's seat, valid ``expires_in_seconds``: what a browser's
        EventSource (which cannot send the token) watches with, ``...:watch?ticket=<ticket>``."""
        request = spb.CreateWatchTicketRequest(session=session)
        return self._unary("CreateWatchTicket", request, spb.CreateWatchTicketResponse, token)
