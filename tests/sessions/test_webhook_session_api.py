"""Which writes of a SessionApi make which webhook events (issue 38), on each store, delivered to a
receiver on loopback: an undo tells the undoer it is to act again, a claim tells the lobby's newcomer
and then the first seat to act, a bot's turn tells nobody, and a session without any webhook (nor a
server one) writes no outbox at all. (A refused write appends nothing: ``test_webhook_store``.)"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable, Iterator
from typing import TypeVar

import pytest

from lawspeaker.sessions.service import SessionApi
from lawspeaker.sessions.webhooks import Allowlist, Config
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import session_service_pb2 as spb

from .conftest import StoreFactory
from .webhook_receiver import Delivery, Receiver, verify

pytestmark = pytest.mark.sessions
T = TypeVar("T")
WAIT = 30.0


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        yield r


def run(
    make_store: StoreFactory, body: Callable[[SessionApi], Awaitable[T]], config: Config | None = None
) -> T:
    async def main() -> T:
        api = SessionApi(make_store(), webhook_config=config or Config(allow=Allowlist.parse("127.0.0.1")))
        try:
            return await body(api)
        finally:
            await api.close()

    return asyncio.run(main())


async def my_turn(api: SessionApi, session: str, token: str) -> spb.Session:
    """The next version where seat 0 is to act, as its watch delivers it."""
    updates = api.watch_session(spb.WatchSessionRequest(session=session), token)
    try:
        async for update in updates:
            if 0 in update.session.to_act:
                return update.session
    finally:
        await updates.aclose()  # type: ignore[attr-defined]
    raise AssertionError("the watch ended")


async def arrived(receiver: Receiver, ready: Callable[[list[Delivery]], bool]) -> list[Delivery]:
    return await asyncio.to_thread(receiver.wait_for, ready, WAIT)


def events_of(deliveries: list[Delivery], session: str) -> list[tuple[str, str, int | None]]:
    return [
        (d.event["type"], d.event["data"]["etag"], d.event["data"].get("seat"))
        for d in deliveries
        if d.status < 300 and d.event["data"]["session"] == session
    ]


def test_an_undo_tells_the_undoer_it_is_to_act_again(make_store: StoreFactory, receiver: Receiver) -> None:
    path = f"/undo/{secrets.token_hex(4)}"

    async def body(api: SessionApi) -> None:
        made = await api.create_session(
            spb.CreateSessionRequest(
                game="valhalla", players=2, seed=3, webhook=spb.Webhook(url=receiver.url(path))
            ),
            None,
        )
        session, tokens = made.session.session, [t.token for t in made.seat_tokens]
        current = made.session
        undone = None
        for _ in range(40):  # play until a seat's own last move may be taken back
            seat = current.to_act[0]
            listed = await api.session_legal_moves(
                spb.SessionLegalMovesRequest(session=session), tokens[seat]
            )
            applied = await api.session_apply_move(
                spb.SessionApplyMoveRequest(session=session, move=listed.moves[0], etag=current.etag),
                tokens[seat],
            )
            if listed.HasField("chance") or seat in applied.session.to_act:
                current = applied.session
                continue
            undone = (
                await api.undo_move(
                    spb.UndoMoveRequest(session=session, etag=applied.session.etag), tokens[seat]
                )
            ).session
            break
        assert undone is not None, "no move could be undone"
        seat = undone.to_act[0]
        want = ("seat.to_act", undone.etag, seat)
        got = await arrived(receiver, lambda ds: want in events_of(ds, session))
        mine = events_of(got, session)
        assert mine[-1] == want and len(mine) == len(set(mine))
        verify([d for d in got if d.path == path], made.webhook_secret)

    run(make_store, body)


def test_a_claim_tells_its_seat_and_the_game_s_start_tells_the_first_to_act(
    make_store: StoreFactory, receiver: Receiver
) -> None:
    path = f"/claim/{secrets.token_hex(4)}"

    async def body(api: SessionApi) -> None:
        made = await api.create_session(
            spb.CreateSessionRequest(
                game="valhalla",
                players=2,
                seed=5,
                open_seats=[1],
                display_names=["Bjorn", ""],
                webhook=spb.Webhook(url=receiver.url(path)),
            ),
            None,
        )
        session = made.session.session
        claimed = await api.claim_seat(spb.ClaimSeatRequest(session=session, display_name="Astrid"), None)
        etag = claimed.session.etag
        first = claimed.session.to_act[0]
        want = [("seat.claimed", etag, 1), ("seat.to_act", etag, first)]
        got = await arrived(receiver, lambda ds: all(w in events_of(ds, session) for w in want))
        assert events_of(got, session) == want  # nothing while the seat waited for its player
        claim = next(d for d in got if d.path == path and d.event["type"] == "seat.claimed")
        assert claim.event["data"]["displayName"] == "Astrid"
        assert claimed.seat_token.token not in claim.body.decode()
        verify([d for d in got if d.path == path], made.webhook_secret)

    run(make_store, body)


def test_a_bot_s_turn_tells_nobody_and_a_session_without_a_webhook_writes_no_outbox(
    make_store: StoreFactory, receiver: Receiver
) -> None:
    path = f"/bots/{secrets.token_hex(4)}"

    async def body(api: SessionApi) -> None:
        bot = game_pb2.BotSeat(seat=1, level=game_pb2.BOT_LEVEL_RANDOM)
        made = await api.create_session(
            spb.CreateSessionRequest(
                game="penki", players=2, seed=2, bots=[bot], webhook=spb.Webhook(url=receiver.url(path))
            ),
            None,
        )
        session, token = made.session.session, made.seat_tokens[0].token
        current = made.session
        for _ in range(3):
            if 0 not in current.to_act:  # the bot's turn: its own task moves it
                current = await my_turn(api, session, token)
            listed = await api.session_legal_moves(spb.SessionLegalMovesRequest(session=session), token)
            current = (
                await api.session_apply_move(
                    spb.SessionApplyMoveRequest(session=session, move=listed.moves[0], etag=current.etag),
                    token,
                )
            ).session
        await arrived(receiver, lambda ds: len(events_of(ds, session)) >= 3)
        assert {seat for _, _, seat in events_of(receiver.snapshot(), session)} == {0}
        plain = await api.create_session(spb.CreateSessionRequest(game="penki", players=2, seed=2), None)
        listed = await api.session_legal_moves(
            spb.SessionLegalMovesRequest(session=plain.session.session), plain.seat_tokens[0].token
        )
        await api.session_apply_move(
            spb.SessionApplyMoveRequest(session=plain.session.session, move=listed.moves[0], etag="1"),
            plain.seat_tokens[0].token,
        )
        assert await api.store.read_outbox(plain.session.session, 10) == []

    run(make_store, body)
