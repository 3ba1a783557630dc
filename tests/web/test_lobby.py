"""The lobby, the host and rematches at /play, in headless Chromium against a real server with Redis:
a game started with its seats open is listed on the open games page and joined under a name from
another browser, whose name then shows on the first page live; the open games filter and page; a
hostile display name reads as text everywhere and runs nothing; the host menu gives a seat a new
link (the old one is refused), hands it to the computer, opens and closes it, and deletes the game;
and a rematch both players ask for takes both pages to the new session, each at its new seat."""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from .conftest import AXE, Server, need
from .test_play import _SMALL_CONTROLS, DESKTOP, PHONE, Seat, _context, _screenshot

pytestmark = pytest.mark.transport

WAITING_FOR_PLAYERS = "document.querySelector('#status')?.dataset.state === 'players'"


def _fragment(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).fragment, keep_blank_values=True).items()}


def _create(base_url: str, **body: Any) -> dict[str, Any]:
    answer = httpx.post(f"{base_url}/v1/sessions", json=body, timeout=10)
    assert answer.status_code == 200, answer.text
    created: dict[str, Any] = answer.json()
    return created


def _claim(base_url: str, session: str, name: str, seat: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"displayName": name}
    if seat is not None:
        body["seat"] = seat
    answer = httpx.post(f"{base_url}/v1/sessions/{session}:claimSeat", json=body, timeout=10)
    assert answer.status_code == 200, answer.text
    claimed: dict[str, Any] = answer.json()
    return claimed


def _session(base_url: str, session: str, token: str | None = None) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return httpx.get(f"{base_url}/v1/sessions/{session}", headers=headers, timeout=10)


def _listed(base_url: str, **query: Any) -> list[str]:
    """The ids of every session the lobby lists under ``query``, page by page."""
    ids: list[str] = []
    token = ""
    while True:
        answer = httpx.get(f"{base_url}/v1/sessions", params={**query, "pageToken": token}, timeout=10)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        ids += [s["session"] for s in page.get("sessions", [])]
        token = page.get("nextPageToken", "")
        if not token:
            return ids


def _start_open(seat: Seat, base_url: str, game: str, name: str, opponents: str = "lobby") -> str:
    """Starts a session from the new-game form under ``name`` with the other seats as
    ``opponents`` ("lobby": open for anyone to join; "": a link each); returns its id."""
    seat.page.goto(f"{base_url}/play")
    seat.page.select_option("#game", game)
    seat.page.wait_for_selector(f".details[data-game='{game}'] #opponents")
    seat.page.fill("#your-name", name)
    seat.page.select_option("#opponents", opponents)
    seat.page.click("#start-session")
    seat.page.wait_for_selector("#board svg")
    seat.idle()
    return _fragment(seat.page.url)["session"]


@pytest.mark.timeout(120)
def test_a_game_with_an_open_seat_is_listed_and_joined_from_another_browser(
    server: Server, browser: Any
) -> None:
    """Ann starts Valhalla with the other seat open: her page waits for players. Bob's browser finds
    the game on the open games page, joins under his name and plays the seat; Ann's page shows
    Bob's name at once and the game starts. A third page that listed the game before Bob took the
    seat is told the seat is taken, and no longer lists the game."""
    first, second = (_context(browser, viewport=PHONE) for _ in range(2))
    try:
        ann = Seat(first.new_page())
        session = _start_open(ann, server.base_url, "valhalla", "Ann")
        ann.page.wait_for_function(WAITING_FOR_PLAYERS)
        assert str(ann.page.text_content("#status")).startswith("You are Player 1. Waiting for players")
        assert ann.page.text_content("#seat-0 .name") == "Ann"
        assert ann.page.text_content("#seat-1 .presence") == "waiting for a player"
        assert ann.page.text_content("#seat-1 .mark.open") == "open in the lobby"
        assert ann.page.locator("button.move").count() == 0  # nothing is played while a seat is open
        assert session in _listed(server.base_url, game="valhalla")

        late = Seat(second.new_page())  # lists the game now, tries to join after Bob took the seat
        late.page.goto(f"{server.base_url}/play#lobby&game=valhalla")
        late.page.wait_for_selector(f"#open-games li[data-session='{session}']")

        bob = Seat(second.new_page())
        bob.page.goto(f"{server.base_url}/play#lobby")
        listed = bob.page.locator(f"#open-games li[data-session='{session}']")
        listed.wait_for()
        assert listed.locator("[data-seat='0'] .name").text_content() == "Ann"
        assert listed.locator("button.join").all_inner_texts() == ["Join as Player 2"]
        _screenshot(bob, "open-games-390x844")
        listed.locator("button.join").click()
        assert bob.page.is_visible("#join-dialog")
        bob.page.fill("#join-name", "Bob")
        bob.page.click("#join-confirm")
        bob.page.wait_for_selector("#board svg")
        bob.idle()
        own = _fragment(bob.page.url)
        assert own["session"] == session and own["seat"] == "1"
        assert _session(server.base_url, session, own["token"]).json()["session"]["seat"] == 1
        assert bob.page.text_content("#seat-1 .name") == "Bob"
        assert bob.page.text_content("#seat-1 .you") == "(you)"
        assert bob.page.text_content("#seat-0 .name") == "Ann"

        # Ann's page learns of Bob live: his name, the log's claim, and the game starts with her turn
        ann.page.wait_for_function("document.querySelector('#seat-1 .name')?.textContent === 'Bob'")
        ann.page.wait_for_function("document.querySelector('#status')?.dataset.state === 'turn'")
        assert ann.page.locator("#log li").last.inner_text() == "Player 2 was taken by Bob from the lobby."
        ann.play_random(random.Random(4))
        bob.wait_log(ann.log_length(), 15_000)

        late.page.locator(f"#open-games li[data-session='{session}'] button.join").click()
        late.page.fill("#join-name", "Cy")
        late.page.click("#join-confirm")
        late.page.wait_for_function("(document.querySelector('#join-refusal')?.textContent ?? '') !== ''")
        assert "SEAT_NOT_OPEN" in str(late.page.text_content("#join-refusal"))
        assert late.page.url.endswith("#lobby&game=valhalla")  # it stayed on the open games
        late.page.wait_for_selector(f"#open-games li[data-session='{session}']", state="detached")
        assert session not in _listed(server.base_url, game="valhalla")
        assert ann.errors == [] and bob.errors == [] and late.errors == []
    finally:
        first.close()
        second.close()


def test_the_open_games_filter_by_game_and_players_and_page_oldest_first(
    server: Server, browser: Any
) -> None:
    """Three five-player Pax Viking Junior games with an open seat and one for six: filtered to five
    players, two a page, the first page shows the two oldest, the next the third, and back; the
    filter is kept in the fragment, and choosing six players shows the other game."""
    five = [
        _create(server.base_url, game="pax_viking_junior", players=5, openSeats=[4], displayNames=[f"P{i}"])
        for i in range(3)
    ]
    six = _create(server.base_url, game="pax_viking_junior", players=6, openSeats=[5])
    ids = [c["session"]["session"] for c in five]
    context = _context(browser, viewport=DESKTOP)
    try:
        seat = Seat(context.new_page())
        shown = "[...document.querySelectorAll('#open-games li.open-game')].map(li => li.dataset.session)"
        seat.page.goto(f"{server.base_url}/play#lobby&game=pax_viking_junior&players=5&size=2")
        seat.page.wait_for_function(f"{shown}.length === 2")
        assert seat.page.evaluate(shown) == ids[:2]
        assert seat.page.input_value("#lobby-game") == "pax_viking_junior"
        assert seat.page.input_value("#lobby-players") == "5"
        assert seat.page.is_disabled("#lobby-prev") and seat.page.is_enabled("#lobby-next")
        first_names = seat.page.locator("#open-games li.open-game [data-seat='0'] .name").all_inner_texts()
        assert first_names == ["P0", "P1"]
        seat.page.click("#lobby-next")
        seat.page.wait_for_function(f"JSON.stringify({shown}) === JSON.stringify({[ids[2]]!r})")
        assert seat.page.is_enabled("#lobby-prev")
        seat.page.click("#lobby-prev")
        seat.page.wait_for_function(f"JSON.stringify({shown}) === JSON.stringify({ids[:2]!r})")
        seat.page.select_option("#lobby-players", "6")
        seat.page.wait_for_function(
            f"JSON.stringify({shown}) === JSON.stringify({[six['session']['session']]!r})"
        )
        assert _fragment(seat.page.url) == {
            "lobby": "",
            "game": "pax_viking_junior",
            "players": "6",
            "size": "2",
        }
        assert seat.errors == []
    finally:
        context.close()
        for created in [*five, six]:
            httpx.delete(
                f"{server.base_url}/v1/sessions/{created['session']['session']}",
                headers={"authorization": f"Bearer {created['hostToken']}"},
                timeout=10,
            )


HOSTILE = "<img src=x onerror=pwned=1>\u202eevil"
"""Markup (an image whose error handler would run) and a right-to-left override, which the server
removes: the image's error handler would set the global ``pwned``."""
LONG = "W" * 32
"""The longest name, with nowhere to break."""
HEBREW = "שלום עולם"
"""A right-to-left name, kept as it is."""


@pytest.mark.timeout(120)
def test_a_hostile_display_name_is_shown_as_text_and_runs_nothing(server: Server, browser: Any) -> None:
    """Names claimed over the API: one is HTML with an error handler and an RTL override, one 32
    letters with no space, one Hebrew. On the open games page and on the game screen (seat list,
    log) each is the text the server keeps, in a <bdi>; no element is made from it, no dialog opens,
    nothing runs, and at 360 px the page is no wider than the screen. The contexts bypass the page's
    Content-Security-Policy, so it is the page's own handling of the names that is tested, not the
    policy (which would block an inline handler as well)."""
    created = _create(server.base_url, game="birka", players=4, openSeats=[1, 2, 3], displayNames=["Ann"])
    session = created["session"]["session"]
    hostile = _claim(server.base_url, session, HOSTILE, seat=1)
    shown = hostile["session"]["seats"][1]["displayName"]
    assert shown == "<img src=x onerror=pwned=1>evil" and "\u202e" not in shown
    _claim(server.base_url, session, LONG, seat=2)
    context = _context(browser, viewport={"width": 360, "height": 740})
    dialogs: list[str] = []

    def opened(dialog: Any) -> None:  # an alert, a confirm: what markup in a name could open
        dialogs.append(dialog.message)
        dialog.dismiss()

    try:
        page = context.new_page()
        seat = Seat(page)
        page.on("dialog", opened)
        page.goto(f"{server.base_url}/play#lobby&game=birka")
        listed = page.locator(f"#open-games li[data-session='{session}']")
        listed.wait_for()
        names = listed.locator(".name")
        assert names.all_text_contents() == ["Ann", shown, LONG]
        assert names.evaluate_all("els => els.map(e => e.tagName)") == ["BDI", "BDI", "BDI"]
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        _screenshot(seat, "open-games-hostile-names-360x740")

        _claim(server.base_url, session, HEBREW, seat=3)
        page.goto(
            f"{server.base_url}/play#session={session}&seat=0&token={created['seatTokens'][0]['token']}"
        )
        page.wait_for_selector("#board svg")
        seat.idle()
        for n, name in enumerate(["Ann", shown, LONG, HEBREW]):
            assert page.text_content(f"#seat-{n} .name") == name
        claims = page.locator("#log li").all_inner_texts()
        assert claims[-3:] == [
            f"Player 2 was taken by {shown} from the lobby.",
            f"Player 3 was taken by {LONG} from the lobby.",
            f"Player 4 was taken by {HEBREW} from the lobby.",
        ]
        assert page.locator("#log li .name").all_text_contents()[-3:] == [shown, LONG, HEBREW]
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        assert page.locator("img").count() == 0
        assert page.evaluate("window.pwned") is None
        assert dialogs == []
        _screenshot(seat, "birka-hostile-names-360x740")
        assert seat.errors == []
    finally:
        context.close()


@pytest.mark.timeout(120)
def test_the_host_menu_reissues_a_link_hands_a_seat_over_opens_closes_and_deletes(
    server: Server, browser: Any
) -> None:
    """Ann starts a Valhalla session with seat links and gives seat 1 a new link from the host menu:
    the new link is shown, the old one is refused (a page opened with it says so) and the new one
    plays the seat. Then seat 1 goes to the computer, is opened in the lobby (listed), taken out of
    it again (reserved, not listed), and the game is deleted."""
    first, second = (_context(browser, viewport=DESKTOP) for _ in range(2))
    try:
        ann = Seat(first.new_page())
        session = _start_open(ann, server.base_url, "valhalla", "Ann", opponents="")
        old = str(ann.page.input_value("#seat-link-1"))
        dark = Seat(second.new_page())
        dark.page.goto(old)
        dark.page.wait_for_selector("#board svg")
        dark.idle()
        assert dark.page.locator("#host-menu").count() == 0  # only the host's tab has the menu

        ann.page.click("#host-menu summary")
        ann.page.click("#host-seat-1 button[data-action='reissue']")
        assert ann.page.is_visible("#host-confirm")
        assert str(ann.page.text_content("#host-confirm-text")).startswith("Give Player 2 a new link?")
        ann.page.click("#host-confirm-yes")
        ann.page.wait_for_selector("#host-link-1")
        new = str(ann.page.input_value("#host-link-1"))
        assert new != old and _fragment(new)["seat"] == "1" and _fragment(new)["session"] == session
        ann.page.wait_for_function(f"document.querySelector('#seat-link-1')?.value === {new!r}")
        refused = _session(server.base_url, session, _fragment(old)["token"])
        assert refused.status_code == 403 and refused.json()["reason"] == "SEAT_TOKEN_INVALID"
        dark.page.reload()
        dark.page.wait_for_function("(document.querySelector('#refusal')?.textContent ?? '') !== ''")
        assert "SEAT_TOKEN_INVALID" in str(dark.page.text_content("#refusal"))
        dark.page.goto(new)
        dark.page.wait_for_selector("#board svg")
        dark.idle()
        assert str(dark.page.text_content("#status")).startswith("You are Player 2.")
        assert ann.page.locator("#log li").last.inner_text() == "Player 2 got a new link from the host."

        ann.page.click("#host-seat-1 button[data-action='bot']")
        ann.page.click("#host-confirm-yes")
        ann.page.wait_for_function(
            "document.querySelector('#seat-1 .presence')?.textContent === 'played by the computer'"
        )
        assert ann.page.text_content("#host-seat-1 .hint") == "played by the computer"
        # the seat's page learns its link no longer works, and stops; it goes on as a spectator
        dark.page.wait_for_function("document.querySelector('#status')?.dataset.state === 'revoked'")
        assert dark.page.text_content("#follow-mode") == "Link revoked"
        dark.page.goto(f"{server.base_url}/play#session={session}")
        dark.page.wait_for_selector("#board svg")
        dark.idle()
        ann.page.click("#host-seat-1 button[data-action='open']")  # the computer's seat: no question
        ann.page.wait_for_function("document.querySelector('#seat-1 .mark.open') !== null")
        assert ann.page.text_content("#seat-1 .presence") == "waiting for a player"
        assert session in _listed(server.base_url, game="valhalla")
        ann.page.click("#host-seat-1 button[data-action='close']")
        ann.page.wait_for_function("document.querySelector('#seat-1 .mark.reserved') !== null")
        assert session not in _listed(server.base_url, game="valhalla")
        seats = _session(server.base_url, session).json()["session"]["seats"]
        assert seats[1]["role"] == "SEAT_ROLE_RESERVED"
        _screenshot(ann, "valhalla-host-menu-1280x800")

        ann.page.click("#host-delete")
        ann.page.click("#host-confirm-yes")
        ann.page.wait_for_selector("#open-games-link")  # back on the new-game page
        assert _session(server.base_url, session).status_code == 404
        dark.page.wait_for_function("document.querySelector('#status')?.dataset.state === 'deleted'")
        assert ann.errors == [] and dark.errors == []
    finally:
        first.close()
        second.close()


@pytest.mark.timeout(120)
def test_a_rematch_both_players_ask_for_takes_both_pages_to_the_new_session(
    server: Server, browser: Any
) -> None:
    """Ann (the host) and Bob (from the lobby) finish a Valhalla game by Bob's resignation; Ann asks
    for a rematch and Bob's page shows it; Bob asks, and both pages go to the new session by
    themselves, each at its new seat (Ann's seat 0 is now 1, Bob's 1 is now 0), with the names moved
    along; Ann keeps her host menu and a seat link of her own there."""
    first, second = (_context(browser, viewport=PHONE) for _ in range(2))
    try:
        ann = Seat(first.new_page())
        session = _start_open(ann, server.base_url, "valhalla", "Ann")
        claimed = _claim(server.base_url, session, "Bob")
        bob = Seat(second.new_page())
        bob_token = claimed["seatToken"]["token"]
        bob.page.goto(f"{server.base_url}/play#session={session}&seat=1&token={bob_token}")
        bob.page.wait_for_selector("#board svg")
        bob.idle()
        ann.page.wait_for_function("document.querySelector('#seat-1 .name')?.textContent === 'Bob'")
        assert ann.page.is_hidden("#rematch") and bob.page.is_hidden("#rematch")  # not before the end

        bob.page.click("#resign")
        bob.page.click("#resign-forfeit")
        for s in (ann, bob):
            s.page.wait_for_function("document.querySelector('#status')?.dataset.state === 'over'")
            s.page.wait_for_selector("#rematch-ask")
        assert ann.page.is_visible("#rematch-now")  # the host may make it at once; Bob may not
        assert bob.page.is_hidden("#rematch-now")
        assert bob.page.text_content("#rematch-asked") == (
            "Nobody has asked for a rematch yet. Waiting for: Player 1 (Ann), Player 2 (Bob)."
        )
        ann.page.click("#rematch-ask")
        ann.page.wait_for_function("document.querySelector('#rematch-ask')?.disabled === true")
        assert ann.page.text_content("#rematch-ask") == "You asked for a rematch"
        bob.page.wait_for_function(
            "document.querySelector('#rematch-asked')?.textContent === "
            "'Asked for a rematch: Player 1 (Ann). Waiting for: Player 2 (Bob).'"
        )
        assert str(_fragment(ann.page.url)["session"]) == session
        bob.page.click("#rematch-ask")

        for s in (ann, bob):
            s.page.wait_for_function(f"!location.hash.includes({session!r})", timeout=15_000)
            s.page.wait_for_selector("#board svg")
            s.idle()
        rematch = _session(server.base_url, session).json()["session"]["rematch"]
        ann_there, bob_there = _fragment(ann.page.url), _fragment(bob.page.url)
        assert ann_there["session"] == bob_there["session"] == rematch
        assert (ann_there["seat"], bob_there["seat"]) == ("1", "0")
        assert bob_there["token"] == bob_token  # the same token plays the new seat
        for s in (ann, bob):
            assert s.page.text_content("#seat-0 .name") == "Bob"
            assert s.page.text_content("#seat-1 .name") == "Ann"
            assert s.status() in ("turn", "waiting")
        assert ann.page.text_content("#seat-1 .you") == "(you)"
        assert bob.page.text_content("#seat-0 .you") == "(you)"
        view = _session(server.base_url, rematch, ann_there["token"]).json()["session"]
        assert view["seat"] == 1 and not view.get("gameOver")
        # the host's tab keeps its controls and its own seat link in the rematch
        assert ann.page.locator("#host-menu").count() == 1
        assert _fragment(str(ann.page.input_value("#seat-link-1")))["token"] == ann_there["token"]
        assert bob.page.locator("#host-menu").count() == 0
        _screenshot(bob, "valhalla-rematch-390x844")
        assert ann.errors == [] and bob.errors == []
    finally:
        first.close()
        second.close()


@pytest.mark.timeout(120)
def test_the_host_s_rematch_is_made_at_once_and_offered_to_the_other_player(
    server: Server, browser: Any
) -> None:
    """Ann starts with seat links; Dark resigns. Ann's "Rematch now" (the host's) makes the rematch
    without Dark asking: Ann's page goes there, and Dark's page, whose player did not ask, offers
    it instead ("Play the rematch"), which opens it at Dark's new seat."""
    first, second = (_context(browser, viewport=PHONE) for _ in range(2))
    try:
        ann = Seat(first.new_page())
        session = _start_open(ann, server.base_url, "valhalla", "Ann", opponents="")
        dark = Seat(second.new_page())
        dark.page.goto(str(ann.page.input_value("#seat-link-1")))
        dark.page.wait_for_selector("#board svg")
        dark.idle()
        dark.page.click("#resign")
        dark.page.click("#resign-forfeit")
        ann.page.wait_for_selector("#rematch-now")
        ann.page.click("#rematch-now")
        ann.page.wait_for_function(f"!location.hash.includes({session!r})", timeout=15_000)
        ann.page.wait_for_selector("#board svg")
        ann.idle()
        rematch = _session(server.base_url, session).json()["session"]["rematch"]
        assert _fragment(ann.page.url)["session"] == rematch and _fragment(ann.page.url)["seat"] == "1"
        dark.page.wait_for_selector("#rematch-play")
        assert _fragment(dark.page.url)["session"] == session  # offered, not taken there by itself
        assert dark.page.is_hidden("#rematch-ask")
        dark.page.click("#rematch-play")
        dark.page.wait_for_function(f"location.hash.includes({rematch!r})", timeout=15_000)
        dark.page.wait_for_selector("#board svg")
        dark.idle()
        assert _fragment(dark.page.url)["seat"] == "0"
        assert dark.page.text_content("#seat-1 .name") == "Ann"
        assert ann.errors == [] and dark.errors == []
    finally:
        first.close()
        second.close()


def test_the_open_games_and_joining_run_under_the_page_s_own_policy(server: Server, browser: Any) -> None:
    """No bypass here (as test_play's test_the_page_runs_under_its_own_policy): the open games page,
    the join dialog and the game it opens (Birka, whose panel colours its seats) run with the page's
    Content-Security-Policy enforced; a blocked script, style or connection would be a console error."""
    created = _create(server.base_url, game="birka", players=2, openSeats=[1], displayNames=["Ann"])
    session = created["session"]["session"]
    context = browser.new_context(viewport=PHONE)
    try:
        seat = Seat(context.new_page())
        seat.page.goto(f"{server.base_url}/play#lobby&game=birka")
        seat.page.locator(f"#open-games li[data-session='{session}'] button.join").click()
        seat.page.fill("#join-name", "Bob")
        seat.page.click("#join-confirm")
        seat.page.locator("#board svg").wait_for()
        seat.page.locator("#seat-1 .you").wait_for()
        assert seat.page.text_content("#seat-1 .name") == "Bob"
        assert seat.page.text_content("#seat-0 .name") == "Ann"
        assert _fragment(seat.page.url)["session"] == session
        assert seat.errors == []
    finally:
        context.close()


def _checked(seat: Seat, name: str) -> list[str]:
    """The page's width at 360 px, its controls under 44 px, and axe-core's serious or critical
    violations, in words (empty when all is well)."""
    found: list[str] = []
    width = seat.page.evaluate("document.documentElement.scrollWidth")
    if width > 360:
        found.append(f"{name}: {width} px wide")
    found += [f"{name}: small {c}" for c in seat.page.evaluate(_SMALL_CONTROLS)]
    seat.page.add_script_tag(path=str(AXE))
    result = seat.page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    found += [
        f"{name}: {v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    return found


def test_the_open_games_the_host_menu_and_the_rematch_fit_a_phone(server: Server, browser: Any) -> None:
    """At 360 px: the open games page, the join dialog, and the host's game screen with its host
    menu open and, once the game is over, the rematch box: nothing wider than the screen, every
    control at least 44 px, and no serious or critical axe-core violation."""
    need(AXE.exists(), f"axe-core is not installed ({AXE}: npm ci in clients/web)")
    context = _context(browser, viewport={"width": 360, "height": 740}, has_touch=True)
    try:
        seat = Seat(context.new_page())
        session = _start_open(seat, server.base_url, "valhalla", "Ann")
        host = seat.page.url
        found: list[str] = []
        seat.page.goto(f"{server.base_url}/play#lobby&game=valhalla")
        seat.page.wait_for_selector(f"#open-games li[data-session='{session}'] button.join")
        found += _checked(seat, "open games")
        seat.page.locator(f"#open-games li[data-session='{session}'] button.join").click()
        found += _checked(seat, "join dialog")
        seat.page.click("#join-cancel")
        claimed = _claim(server.base_url, session, "Bob")
        seat.page.goto(host)
        seat.page.wait_for_selector("#board svg")
        seat.page.wait_for_function("document.querySelector('#seat-1 .name')?.textContent === 'Bob'")
        seat.page.click("#host-menu summary")
        found += _checked(seat, "game with the host menu")
        answer = httpx.post(  # Bob resigns: the game is over
            f"{server.base_url}/v1/sessions/{session}:resign",
            headers={"authorization": f"Bearer {claimed['seatToken']['token']}"},
            json={},
            timeout=10,
        )
        assert answer.status_code == 200, answer.text
        seat.page.wait_for_selector("#rematch-ask")
        found += _checked(seat, "game over with the rematch")
        assert found == [], "\n".join(found)
        _screenshot(seat, "valhalla-host-rematch-360x740")
        assert seat.errors == []
    finally:
        context.close()
