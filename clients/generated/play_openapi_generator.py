"""Plays Lawspeaker through the Python client openapi-generator generates from clients/openapi.json
(``-g python``, configured by openapi-generator-python.yaml), against a real ``lawspeaker serve``.

Run by ``check.sh`` as ``python play_openapi_generator.py BASE_URL API_KEY`` (the server requires
the key for every call but the session ones, which take a seat's token): a whole game of Valhalla
and a few moves of every other game over the stateless routes, a refusal read from the typed
problem, a session (create, legal moves with a seat's token, a move with the etag, a stale etag
refused), and the lobby (a session with an open seat found in ListSessions, claimed, a second claim
refused, the seat's token reissued by the host, the host deleting it). Only the generated client's
own types and calls (mypy --strict holds them); it exits non-zero on any surprise.
"""

from __future__ import annotations

import random
import sys
from typing import Any

import lawspeaker_openapi as m

OTHER_GAMES = ("penki", "pax_penning", "pax_viking_junior", "birka")
MAX_PLIES = 3000


def play_valhalla(rules: m.RulesServiceApi, pick: random.Random) -> int:
    """A whole game of Valhalla, each move one of the legal ones: the number of moves played."""
    state = rules.new_game_valhalla(m.NewGameRequestValhalla(players=2, seed="42")).state
    for ply in range(MAX_PLIES):
        legal = rules.legal_moves_valhalla(m.LegalMovesRequestValhalla(state=state))
        if legal.game_over:
            assert legal.outcome is not None, "a finished game has an outcome"
            return ply
        assert legal.moves, "a game that is not over has legal moves"
        move = pick.choice(legal.moves)
        checked = rules.validate_move_valhalla(m.ValidateMoveRequestValhalla(state=state, move=move))
        assert checked.valid, checked
        state = rules.apply_move_valhalla(m.ApplyMoveRequestValhalla(state=state, move=move)).state
    raise AssertionError(f"Valhalla did not end in {MAX_PLIES} moves")


def play_a_few(rules: m.RulesServiceApi, game: str, pick: random.Random, moves: int = 6) -> None:
    """A few moves of ``game`` over its own typed operations (one set per game, found by name)."""
    new: Any = getattr(rules, f"new_game_{game}")
    legal_moves: Any = getattr(rules, f"legal_moves_{game}")
    apply_move: Any = getattr(rules, f"apply_move_{game}")
    suffix = "".join(part.capitalize() for part in game.split("_"))
    described = rules.describe_game(m.GameId(game)).info
    assert described is not None and described.id == game
    players = described.min_players
    state = new(getattr(m, f"NewGameRequest{suffix}")(players=players, seed="7")).state
    for _ in range(moves):
        legal = legal_moves(getattr(m, f"LegalMovesRequest{suffix}")(state=state))
        assert legal.moves, f"{game}: no legal moves at the start of the game"
        move = pick.choice(legal.moves)
        state = apply_move(getattr(m, f"ApplyMoveRequest{suffix}")(state=state, move=move)).state
    assert state.rules_version == described.rules_version


def refusal(rules: m.RulesServiceApi) -> None:
    """A ship moved before the sticks are cast: 409 with the rule's reason, read from the Problem."""
    state = rules.new_game_valhalla(m.NewGameRequestValhalla(players=2, seed="1")).state
    early = m.MoveValhalla(valhalla=m.ValhallaMove(moveShip=m.ValhallaShipMove(ship=1, to=5)))
    try:
        rules.apply_move_valhalla(m.ApplyMoveRequestValhalla(state=state, move=early))
    except m.ApiException as err:
        problem = err.data
        assert isinstance(problem, m.Problem), err
        assert err.status == 409 and problem.reason == m.Reason.CAST_FIRST, problem
        assert problem.field_violations and problem.field_violations[0].var_field.startswith("move.valhalla")
        return
    raise AssertionError("a ship moved before the cast was accepted")


def session(base: str, key: str, pick: random.Random) -> None:
    """A session of Valhalla: create it (with the API key), list a seat's legal moves with its token,
    move with the etag, and see a move on a stale etag refused."""
    with m.ApiClient(m.Configuration(host=base, api_key={"apiKey": key})) as keyed:
        created = m.SessionServiceApi(keyed).create_session(
            m.CreateSessionRequest(game=m.GameId.VALHALLA, players=2, seed="5")
        )
    # seat_tokens is None when no person plays a seat (every seat a bot's or open)
    sid, tokens = created.session.session, {t.seat or 0: t.token for t in created.seat_tokens or []}
    assert set(tokens) == {0, 1}, tokens
    assert created.host_token and created.session.has_host, created
    seat = (created.session.to_act or [0])[0]
    with m.ApiClient(m.Configuration(host=base, access_token=tokens[seat])) as client:
        sessions = m.SessionServiceApi(client)
        legal = sessions.session_legal_moves(sid)
        assert legal.moves and legal.etag, legal
        first_etag = legal.etag
        move = pick.choice(legal.moves)
        applied = sessions.session_apply_move(
            sid, m.SessionApplyMoveRequest(move=move, etag=first_etag, requestId="play-1")
        )
        assert applied.session.etag != first_etag and applied.session.move_count == "1", applied.session
        try:
            sessions.session_apply_move(
                sid, m.SessionApplyMoveRequest(move=move, etag=first_etag, requestId="play-2")
            )
        except m.ApiException as err:
            assert isinstance(err.data, m.Problem) and err.status == 409, err
            assert err.data.reason == m.Reason.SESSION_ETAG_MISMATCH, err.data
            # the problem names the current etag; metadata is a model, its string values are its
            # additional properties (retryAfterSeconds, a number, is a field of its own)
            metadata = err.data.metadata
            assert metadata is not None, err.data
            assert metadata.additional_properties.get("etag") == applied.session.etag, err.data
        else:
            raise AssertionError("a move on a stale etag was accepted")
        sessions.delete_session(sid)


def problem_of(err: m.ApiException) -> tuple[int, m.Problem]:
    """The status and the typed problem of a refused call."""
    assert isinstance(err.data, m.Problem), err
    return err.status, err.data


def lobby(base: str, key: str) -> None:
    """The lobby: a Valhalla session with seat 1 open, found in ListSessions (page by page), claimed
    under a display name; a second claim refused (SEAT_NOT_OPEN); the host reissues seat 1's token,
    and the old one is refused; a seat may not delete the session, the host does."""
    with m.ApiClient(m.Configuration(host=base, api_key={"apiKey": key})) as client:
        keyed = m.SessionServiceApi(client)
        created = keyed.create_session(
            m.CreateSessionRequest(game=m.GameId.VALHALLA, players=2, openSeats=[1], displayNames=["Astrid"])
        )
        sid = created.session.session
        assert [t.seat or 0 for t in created.seat_tokens or []] == [0], created.seat_tokens
        assert created.session.waiting_for_players, created.session
        assert created.session.seats and created.session.seats[1].role == m.SeatRole.SEAT_ROLE_OPEN

        found: m.Session | None = None
        page_token: str | None = None
        for _ in range(100):
            listed = keyed.list_sessions(game="valhalla", players=2, page_size=10, page_token=page_token)
            for s in listed.sessions or []:
                assert s.game == "valhalla" and s.players == 2 and s.waiting_for_players, s
            found = next((s for s in listed.sessions or [] if s.session == sid), None)
            page_token = listed.next_page_token
            if found is not None or not page_token:
                break
        assert found is not None and found.seats, "the session is in the lobby"
        assert found.seats[0].display_name == "Astrid", found.seats

        claimed = keyed.claim_seat(sid, m.ClaimSeatRequest(displayName="Bjorn", seat=1))
        assert claimed.seat_token.seat == 1, claimed.seat_token
        old_token = claimed.seat_token.token
        try:
            keyed.claim_seat(sid, m.ClaimSeatRequest(displayName="Cnut"))
        except m.ApiException as err:
            status, problem = problem_of(err)
            assert status == 409 and problem.reason == m.Reason.SEAT_NOT_OPEN, problem
        else:
            raise AssertionError("a second claim of the one open seat was accepted")

    with m.ApiClient(m.Configuration(host=base, access_token=old_token)) as client:
        seat1 = m.SessionServiceApi(client)
        view = seat1.get_session(sid).session
        names = [s.display_name or "" for s in view.seats or []]
        assert view.seat == 1 and names == ["Astrid", "Bjorn"], names
        assert not view.waiting_for_players, view

        with m.ApiClient(m.Configuration(host=base, access_token=created.host_token)) as hosting:
            host = m.SessionServiceApi(hosting)
            # action is a str: openapi-generator types an enum written in place as its base type
            reissued = host.manage_seat(sid, m.ManageSeatRequest(seat=1, action="SEAT_ACTION_REISSUE_TOKEN"))
            assert reissued.seat_token is not None and reissued.seat_token.seat == 1, reissued
            new_token = reissued.seat_token.token
            assert new_token != old_token
            try:
                seat1.get_session(sid)
            except m.ApiException as err:
                status, problem = problem_of(err)
                assert status == 403 and problem.reason == m.Reason.SEAT_TOKEN_INVALID, problem
            else:
                raise AssertionError("the reissued seat's old token still reads the session")

            with m.ApiClient(m.Configuration(host=base, access_token=new_token)) as again:
                seat1_again = m.SessionServiceApi(again)
                assert seat1_again.get_session(sid).session.seat == 1
                try:
                    seat1_again.delete_session(sid)
                except m.ApiException as err:
                    status, problem = problem_of(err)
                    assert status == 403 and problem.reason == m.Reason.HOST_TOKEN_INVALID, problem
                else:
                    raise AssertionError("a seat deleted a session that had an open seat")
            host.delete_session(sid)
            try:
                host.get_session(sid)
            except m.ApiException as err:
                assert err.status == 404, err
            else:
                raise AssertionError("the deleted session is still there")


def main(base: str, key: str) -> None:
    pick = random.Random(7)
    with m.ApiClient(m.Configuration(host=base, api_key={"apiKey": key})) as client:
        rules = m.RulesServiceApi(client)
        listed = rules.list_games().games or []
        assert {g.id for g in listed} == {"valhalla", *OTHER_GAMES}, listed
        print(f"openapi-generator python: Valhalla played to the end in {play_valhalla(rules, pick)} moves")
        for game in OTHER_GAMES:
            play_a_few(rules, game, pick)
        print(f"openapi-generator python: a few moves of {', '.join(OTHER_GAMES)}")
        refusal(rules)
        print("openapi-generator python: a refused move's reason read from the problem (CAST_FIRST)")
    session(base, key, pick)
    print("openapi-generator python: a session played with a seat token, the etag and a stale etag refused")
    lobby(base, key)
    print(
        "openapi-generator python: a lobby seat listed, claimed (a second claim SEAT_NOT_OPEN), "
        "reissued by the host, deleted"
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
