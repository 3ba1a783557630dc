"""Plays Lawspeaker through the Python client openapi-python-client generates from
clients/openapi.json (configured by openapi-python-client.yaml), against a real ``lawspeaker serve``.

Run by ``check.sh`` as ``python play_openapi_python_client.py BASE_URL API_KEY`` (the server requires
the key for every call but the session ones, which take a seat's token): a whole game of Valhalla
and a few moves of every other game over the stateless routes, a refusal read from the typed
problem, a session (create, legal moves with a seat's token, a move with the etag, a stale
etag refused), and the lobby (a session with an open seat found in ListSessions, claimed, a second
claim refused, the seat's token reissued by the host, the host deleting it). Only the generated
client's own types and calls (mypy --strict holds them); it exits non-zero on any surprise. An
operation with a security scheme takes an AuthenticatedClient in this generator: the API key is one,
sent as X-Api-Key, and a seat's or the host's token another.
"""

from __future__ import annotations

import importlib
import random
import sys
from typing import Any, TypeVar

from lawspeaker_opc import AuthenticatedClient
from lawspeaker_opc import models as m
from lawspeaker_opc.api.rules_service import (
    apply_move_valhalla,
    describe_game,
    legal_moves_valhalla,
    list_games,
    new_game_valhalla,
    validate_move_valhalla,
)
from lawspeaker_opc.api.session_service import (
    claim_seat,
    create_session,
    delete_session,
    get_session,
    list_sessions,
    manage_seat,
    session_apply_move,
    session_legal_moves,
)
from lawspeaker_opc.types import UNSET, Response, Unset

OTHER_GAMES = ("penki", "pax_penning", "pax_viking_junior", "birka")
MAX_PLIES = 3000


T = TypeVar("T")


def answer(found: object, kind: type[T]) -> T:
    """``found`` if it is the answer type ``kind``; a problem or nothing fails, with its reason."""
    if isinstance(found, m.Problem):
        raise AssertionError(f"refused: {found.status} {found.reason}: {found.detail}")
    assert isinstance(found, kind), found
    return found


def play_valhalla(client: AuthenticatedClient, pick: random.Random) -> int:
    """A whole game of Valhalla, each move one of the legal ones: the number of moves played."""
    new = answer(
        new_game_valhalla.sync(client=client, body=m.NewGameRequestValhalla(players=2, seed="42")),
        m.NewGameResponseValhalla,
    )
    state = new.state
    for ply in range(MAX_PLIES):
        legal = answer(
            legal_moves_valhalla.sync(client=client, body=m.LegalMovesRequestValhalla(state=state)),
            m.LegalMovesResponseValhalla,
        )
        if legal.game_over is True:
            assert isinstance(legal.outcome, m.GameOutcome), "a finished game has an outcome"
            return ply
        assert isinstance(legal.moves, list) and legal.moves, "a game that is not over has legal moves"
        move = pick.choice(legal.moves)
        checked = answer(
            validate_move_valhalla.sync(
                client=client, body=m.ValidateMoveRequestValhalla(state=state, move=move)
            ),
            m.ValidateMoveResponse,
        )
        assert checked.valid is True, checked
        applied = answer(
            apply_move_valhalla.sync(client=client, body=m.ApplyMoveRequestValhalla(state=state, move=move)),
            m.ApplyMoveResponseValhalla,
        )
        state = applied.state
    raise AssertionError(f"Valhalla did not end in {MAX_PLIES} moves")


def play_a_few(client: AuthenticatedClient, game: str, pick: random.Random, moves: int = 6) -> None:
    """A few moves of ``game`` over its own typed operations (one module per game and RPC)."""
    suffix = "".join(part.capitalize() for part in game.split("_"))
    rules = "lawspeaker_opc.api.rules_service."
    new = importlib.import_module(f"{rules}new_game_{game}")
    legal_moves = importlib.import_module(f"{rules}legal_moves_{game}")
    apply_move = importlib.import_module(f"{rules}apply_move_{game}")
    described = answer(describe_game.sync(m.GameId(game), client=client), m.DescribeGameResponse).info
    assert described.id == game
    made = new.sync(
        client=client, body=getattr(m, f"NewGameRequest{suffix}")(players=described.min_players, seed="7")
    )
    state = answer(made, getattr(m, f"NewGameResponse{suffix}")).state
    for _ in range(moves):
        body = getattr(m, f"LegalMovesRequest{suffix}")(state=state)
        legal = answer(legal_moves.sync(client=client, body=body), getattr(m, f"LegalMovesResponse{suffix}"))
        assert isinstance(legal.moves, list) and legal.moves, f"{game}: no legal moves"
        body = getattr(m, f"ApplyMoveRequest{suffix}")(state=state, move=pick.choice(legal.moves))
        state = answer(
            apply_move.sync(client=client, body=body), getattr(m, f"ApplyMoveResponse{suffix}")
        ).state
    assert state.rules_version == described.rules_version


def refusal(client: AuthenticatedClient) -> None:
    """A ship moved before the sticks are cast: 409 with the rule's reason, read from the Problem."""
    new = new_game_valhalla.sync(client=client, body=m.NewGameRequestValhalla(players=2, seed="1"))
    state = answer(new, m.NewGameResponseValhalla).state
    early = m.MoveValhalla(valhalla=m.ValhallaMove(move_ship=m.ValhallaShipMove(ship=1, to=5)))
    response = apply_move_valhalla.sync_detailed(
        client=client, body=m.ApplyMoveRequestValhalla(state=state, move=early)
    )
    problem = response.parsed
    assert response.status_code == 409 and isinstance(problem, m.Problem), response
    assert problem.reason == m.Reason.CAST_FIRST, problem
    assert isinstance(problem.field_violations, list) and problem.field_violations[0].field.startswith(
        "move.valhalla"
    )


def keyed(base: str, key: str) -> AuthenticatedClient:
    """A client sending the API key, as the service's apiKey scheme names it."""
    return AuthenticatedClient(
        base_url=base, token=key, prefix="", auth_header_name="X-Api-Key", raise_on_unexpected_status=True
    )


def session(base: str, key: str, pick: random.Random) -> None:
    """A session of Valhalla: create it (with the API key), list a seat's legal moves with its token,
    move with the etag, and see a move on a stale etag refused."""
    with keyed(base, key) as client:
        body = m.CreateSessionRequest(game=m.GameId.VALHALLA, players=2, seed="5")
        created = answer(create_session.sync(client=client, body=body), m.CreateSessionResponse)
    sid = created.session.session
    # seat_tokens is UNSET when no person plays a seat (every seat a bot's or open)
    seat_tokens = created.seat_tokens if isinstance(created.seat_tokens, list) else []
    tokens = {t.seat if isinstance(t.seat, int) else 0: t.token for t in seat_tokens}
    assert set(tokens) == {0, 1}, tokens
    assert created.host_token and created.session.has_host is True, created
    to_act = created.session.to_act if isinstance(created.session.to_act, list) else [0]
    with AuthenticatedClient(base_url=base, token=tokens[to_act[0]]) as seat:
        legal = answer(session_legal_moves.sync(sid, client=seat), m.SessionLegalMovesResponse)
        assert isinstance(legal.moves, list) and legal.moves, legal
        first_etag = legal.etag
        move = pick.choice(legal.moves)
        write = m.SessionApplyMoveRequest(move=move, etag=first_etag, request_id="play-1")
        applied = answer(session_apply_move.sync(sid, client=seat, body=write), m.SessionApplyMoveResponse)
        assert applied.session.etag != first_etag and applied.session.move_count == "1", applied.session
        stale = m.SessionApplyMoveRequest(move=move, etag=first_etag, request_id="play-2")
        refused = session_apply_move.sync_detailed(sid, client=seat, body=stale)
        problem = refused.parsed
        assert refused.status_code == 409 and isinstance(problem, m.Problem), refused
        assert problem.reason == m.Reason.SESSION_ETAG_MISMATCH, problem
        assert (
            isinstance(problem.metadata, m.ProblemMetadata)
            and problem.metadata["etag"] == applied.session.etag
        )
        assert delete_session.sync_detailed(sid, client=seat).status_code == 200


def refused(response: Response[Any]) -> tuple[int, m.Problem]:
    """The status and the typed problem of a refused call."""
    assert isinstance(response.parsed, m.Problem), response
    return response.status_code, response.parsed


def names(session: m.Session) -> list[str]:
    """The players' display names, seat by seat ("" for none)."""
    seats = session.seats if isinstance(session.seats, list) else []
    return [s.display_name if isinstance(s.display_name, str) else "" for s in seats]


def lobby(base: str, key: str) -> None:
    """The lobby: a Valhalla session with seat 1 open, found in ListSessions (page by page), claimed
    under a display name; a second claim refused (SEAT_NOT_OPEN); the host reissues seat 1's token,
    and the old one is refused; a seat may not delete the session, the host does. Listing and
    claiming need no token, but take the API key (an AuthenticatedClient, as creating does)."""
    with keyed(base, key) as client:
        body = m.CreateSessionRequest(
            game=m.GameId.VALHALLA, players=2, open_seats=[1], display_names=["Astrid"]
        )
        created = answer(create_session.sync(client=client, body=body), m.CreateSessionResponse)
        sid = created.session.session
        seat_tokens = created.seat_tokens if isinstance(created.seat_tokens, list) else []
        assert [t.seat if isinstance(t.seat, int) else 0 for t in seat_tokens] == [0], seat_tokens
        assert created.session.waiting_for_players is True, created.session
        seats = created.session.seats
        assert isinstance(seats, list) and seats[1].role == m.SeatRole.SEAT_ROLE_OPEN, seats

        found: m.Session | None = None
        page_token: str | Unset = UNSET
        for _ in range(100):
            listed = answer(
                list_sessions.sync(
                    client=client, game="valhalla", players=2, page_size=10, page_token=page_token
                ),
                m.ListSessionsResponse,
            )
            page = listed.sessions if isinstance(listed.sessions, list) else []
            for s in page:
                assert s.game == "valhalla" and s.players == 2 and s.waiting_for_players is True, s
            found = next((s for s in page if s.session == sid), None)
            if found is not None or not listed.next_page_token:
                break
            page_token = listed.next_page_token
        assert found is not None, "the session is in the lobby"
        assert names(found)[0] == "Astrid", names(found)

        claim = m.ClaimSeatRequest(display_name="Bjorn", seat=1)
        claimed = answer(claim_seat.sync(sid, client=client, body=claim), m.ClaimSeatResponse)
        assert claimed.seat_token.seat == 1, claimed.seat_token
        old_token = claimed.seat_token.token
        second = claim_seat.sync_detailed(sid, client=client, body=m.ClaimSeatRequest(display_name="Cnut"))
        status, problem = refused(second)
        assert status == 409 and problem.reason == m.Reason.SEAT_NOT_OPEN, problem

    with (
        AuthenticatedClient(base_url=base, token=old_token) as seat1,
        AuthenticatedClient(base_url=base, token=created.host_token) as host,
    ):
        view = answer(get_session.sync(sid, client=seat1), m.GetSessionResponse).session
        assert view.seat == 1 and names(view) == ["Astrid", "Bjorn"], names(view)
        assert view.waiting_for_players is not True, view

        reissue = m.ManageSeatRequest(seat=1, action=m.ManageSeatRequestAction.SEAT_ACTION_REISSUE_TOKEN)
        reissued = answer(manage_seat.sync(sid, client=host, body=reissue), m.ManageSeatResponse)
        assert isinstance(reissued.seat_token, m.SeatToken) and reissued.seat_token.seat == 1, reissued
        new_token = reissued.seat_token.token
        assert new_token != old_token
        status, problem = refused(get_session.sync_detailed(sid, client=seat1))
        assert status == 403 and problem.reason == m.Reason.SEAT_TOKEN_INVALID, problem

        with AuthenticatedClient(base_url=base, token=new_token) as seat1_again:
            again = answer(get_session.sync(sid, client=seat1_again), m.GetSessionResponse)
            assert again.session.seat == 1, again.session
            status, problem = refused(delete_session.sync_detailed(sid, client=seat1_again))
            assert status == 403 and problem.reason == m.Reason.HOST_TOKEN_INVALID, problem
        answer(delete_session.sync(sid, client=host), m.DeleteSessionResponse)
        status, problem = refused(get_session.sync_detailed(sid, client=host))
        assert status == 404, problem


def main(base: str, key: str) -> None:
    pick = random.Random(7)
    with keyed(base, key) as client:
        listed = answer(list_games.sync(client=client), m.ListGamesResponse)
        assert isinstance(listed.games, list) and {g.id for g in listed.games} == {"valhalla", *OTHER_GAMES}
        print(f"openapi-python-client: Valhalla played to the end in {play_valhalla(client, pick)} moves")
        for game in OTHER_GAMES:
            play_a_few(client, game, pick)
        print(f"openapi-python-client: a few moves of {', '.join(OTHER_GAMES)}")
        refusal(client)
        print("openapi-python-client: a refused move's reason read from the problem (CAST_FIRST)")
    session(base, key, pick)
    print("openapi-python-client: a session played with a seat token, the etag and a stale etag refused")
    lobby(base, key)
    print(
        "openapi-python-client: a lobby seat listed, claimed (a second claim SEAT_NOT_OPEN), "
        "reissued by the host, deleted"
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
