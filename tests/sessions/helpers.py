"""Helpers for session tests: run a body against a fresh SessionApi, play moves, look for the RNG."""

from __future__ import annotations

import asyncio
import random
import subprocess
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from google.protobuf.message import Message

from lawspeaker.api.access import CALLER, Caller
from lawspeaker.api.rules import RulesApi
from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.store import SessionStore
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import session_service_pb2 as spb

T = TypeVar("T")


def run(make_store: Callable[..., SessionStore], body: Callable[[SessionApi], Awaitable[T]], **kw: Any) -> T:
    """``body(api)`` in a fresh event loop, the store made and closed inside it."""
    rules = kw.pop("rules", None)
    limits = kw.pop("limits", None)

    async def main() -> T:
        api = SessionApi(make_store(**kw), rules if rules is not None else RulesApi(), limits)
        try:
            return await body(api)
        finally:
            await api.close()

    return asyncio.run(main())


async def create(api: SessionApi, seed: int = 42, physical_dice: bool = False) -> tuple[str, list[str], str]:
    """A new two-player Valhalla session: its id, the seat tokens, its etag."""
    made = await api.create_session(
        spb.CreateSessionRequest(game="valhalla", players=2, seed=seed, physical_dice=physical_dice), None
    )
    assert_no_rng(made)
    return made.session.session, [t.token for t in made.seat_tokens], made.session.etag


async def play(
    api: SessionApi, session: str, tokens: list[str], plies: int, chooser: random.Random | None = None
) -> spb.Session:
    """Makes ``plies`` random legal moves, each by the seat to act (seat 0 asks for a draw that no
    seat is to act on); the session after them."""
    chooser = chooser or random.Random(7)
    current = (await api.get_session(spb.GetSessionRequest(session=session), None)).session
    for _ in range(plies):
        if current.game_over:
            break
        seat = current.to_act[0] if current.to_act else 0
        listed = await api.session_legal_moves(spb.SessionLegalMovesRequest(session=session), tokens[seat])
        move = chooser.choice(list(listed.moves))
        applied = await api.session_apply_move(
            spb.SessionApplyMoveRequest(session=session, move=move, etag=current.etag), tokens[seat]
        )
        assert_no_rng(applied)
        current = applied.session
    return current


def assert_no_rng(msg: Message) -> None:
    """No GameState anywhere in ``msg`` carries the RNG (its seed above all)."""
    if isinstance(msg, game_pb2.GameState):
        assert not msg.HasField("rng"), "a response carries the RNG"
        assert msg.rng.seed == b""
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        if field.is_repeated:
            if field.message_type.GetOptions().map_entry:
                continue
            for item in value:
                assert_no_rng(item)
        else:
            assert_no_rng(value)


async def create_as(
    api: SessionApi, caller: Caller, request: spb.CreateSessionRequest
) -> spb.CreateSessionResponse:
    """CreateSession as ``caller`` (who the transports would say sent it: the quotas count by it)."""
    token = CALLER.set(caller)
    try:
        return await api.create_session(request, None)
    finally:
        CALLER.reset(token)


def stop(proc: subprocess.Popen[Any], signal_first: bool = True) -> None:
    """Stops a server process the test started: SIGTERM, then SIGKILL if it has not exited within
    20 s; closes its stdout pipe."""
    if signal_first and proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
    if proc.stdout is not None:
        proc.stdout.close()


def without_presence(session: Any) -> Any:
    """A copy of a ``Session`` without who is connected and when each seat was last seen: what two
    reads of one version may tell apart (presence is not part of the version)."""
    copy = type(session)()
    copy.CopyFrom(session)
    for seat in copy.seats:
        seat.ClearField("connected")
        seat.ClearField("last_seen")
    return copy
