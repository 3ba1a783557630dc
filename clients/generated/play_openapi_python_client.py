"""Plays Lawspeaker through the Python client openapi-python-client generates from
clients/openapi.json (configured by openapi-python-client.yaml), against a real ``lawspeaker serve``.

Run by ``check.sh`` as ``python play_openapi_python_client.py BASE_URL API_KEY`` (the server requires
the key for every call but the session ones, which take a seat's token): a whole game of Valhalla
and a few moves of every other game over the stateless routes, a refusal read from the typed
problem, and a session (create, legal moves with a seat's token, a move with the etag, a stale
etag refused). Only the generated client's own types and calls (mypy --strict holds them); it
exits non-zero on any surprise. An operation with a security scheme takes an AuthenticatedClient
in this generator: the API key is one, sent as X-Api-Key.
"""

from __future__ import annotations

import importlib
import random
import sys
from typing import Any

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
    create_session,
    delete_session,
    session_apply_move,
    session_legal_moves,
)

OTHER_GAMES = ("penki", "pax_penning", "pax_viking_junior", "birka")
MAX_PLIES = 3000


def answer(found: Any, kind: type[Any]) -> Any:
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
    tokens = {t.seat if isinstance(t.seat, int) else 0: t.token for t in created.seat_tokens}
    assert set(tokens) == {0, 1}, tokens
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


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
