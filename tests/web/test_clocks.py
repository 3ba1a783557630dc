"""Clocks, presence and resignation at /play, in headless Chromium against a real server with Redis:
the lobby creates a session with a per-move clock, each seat's countdown ticks in the page without
asking the server, a seat whose page is open shows as connected on the other seat's page, a timeout's
move and a resignation read in words in the log, and Resign ends a two-player game with its result."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from .conftest import Server
from .test_play import DESKTOP, PHONE, Seat, _context, _screenshot

pytestmark = pytest.mark.transport

RUNNING = "document.querySelector('#seat-list .clock[data-running]')"


def _start_clocked(
    seat: Seat, base_url: str, game: str, seconds: int, on_timeout: str, opponents: str = ""
) -> None:
    """Starts a session from the lobby with a per-move clock of ``seconds``; ``on_timeout`` is the
    "When time runs out" choice's value (TIMEOUT_ACTION_BOT = 2, FORFEIT = 3, NOTHING = 1)."""
    seat.page.goto(f"{base_url}/play")
    seat.page.select_option("#game", game)
    seat.page.wait_for_selector(f".details[data-game='{game}'] #opponents")
    if opponents:
        seat.page.select_option("#opponents", opponents)
    assert seat.page.is_hidden("#clock-move")  # no clock by default: its fields are hidden
    seat.page.select_option("#clock", "move")
    seat.page.fill("#clock-move", str(seconds))
    seat.page.select_option("#clock-timeout", on_timeout)
    seat.page.click("#start-session")
    seat.page.wait_for_selector("#board svg")
    seat.idle()


def _running(seat: Seat) -> tuple[int, int]:
    """The seat whose clock runs on the page, and its whole seconds left."""
    seat.page.wait_for_function(RUNNING, timeout=15_000)
    found = seat.page.evaluate(
        f"(() => {{ const c = {RUNNING}; "
        "return [Number(c.closest('li').id.split('-')[1]), Number(c.dataset.left)]; })()"
    )
    return int(found[0]), int(found[1])


@pytest.mark.timeout(120)
def test_a_clock_counts_down_presence_shows_and_resign_ends_the_game(server: Server, browser: Any) -> None:
    """Valhalla, 5 s a move, nothing done on a timeout: the countdown falls with no request to the
    server; the other seat's page, once open, shows the first seat connected (and the first shows
    it); after the deadline the seat reads "timed out"; the second seat resigns and both pages show
    the result, the first seat winning."""
    first, second = (_context(browser, viewport=PHONE) for _ in range(2))
    try:
        one = Seat(first.new_page())
        _start_clocked(one, server.base_url, "valhalla", 5, "1")
        acting, left = _running(one)
        assert 1 <= left <= 5, left
        assert str(one.page.text_content(f"#seat-{acting} .clock")).endswith(" left")
        requests = len(one.urls)
        one.page.wait_for_function(
            f"Number(document.querySelector('#seat-{acting} .clock')?.dataset.left) < {left}", timeout=3_000
        )
        assert len(one.urls) == requests, one.urls[requests:]  # it ticks in the page, without polling
        text = str(one.page.text_content(f"#seat-{acting} .clock"))
        assert text.startswith("00:0"), text  # mm:ss
        # the seat of the other page is away until that page opens, then connected on this one
        link = str(one.page.input_value("#seat-link-1"))
        assert "away" in str(one.page.text_content("#seat-1 .presence"))
        two = Seat(second.new_page())
        two.page.goto(link)
        two.page.wait_for_selector("#board svg")
        two.idle()
        connected = "document.querySelector('#seat-{}.seat .presence')?.textContent === 'connected'"
        one.page.wait_for_function(connected.format(1), timeout=10_000)
        two.page.wait_for_function(connected.format(0), timeout=10_000)
        assert one.page.get_attribute("#seat-1 .presence", "class") == "presence on"
        # the deadline passes: the countdown stops at 00:00, and a fresh view marks the seat timed out
        one.page.wait_for_function(f"document.querySelector('#seat-{acting} .clock')?.dataset.left === '0'")
        assert str(one.page.text_content(f"#seat-{acting} .clock")) == "00:00 left"
        two.page.reload()
        two.page.wait_for_selector(f"#seat-{acting} .mark.timed-out", timeout=10_000)
        two.idle()
        # the second seat resigns (confirmed in the dialog); both pages show the result
        assert one.page.is_visible("#resign") and two.page.is_visible("#resign")
        two.page.click("#resign")
        assert two.page.is_visible("#resign-dialog")
        two.page.click("#resign-cancel")
        assert two.page.is_hidden("#resign-dialog") and two.log_length() == one.log_length()
        two.page.click("#resign")
        two.page.click("#resign-forfeit")
        for s in (one, two):
            s.page.wait_for_function(
                "document.querySelector('#status')?.dataset.state === 'over'", timeout=10_000
            )
            assert str(s.page.text_content("#status")) == "Game over. By resignation: Player 1 wins."
            assert s.page.locator("#ranking li").all_inner_texts() == [
                "Player 1: won",
                "Player 2: left the game",
            ]
            assert s.page.is_hidden("#resign")
            assert s.page.text_content("#seat-1 .mark.out") == "out"
            assert str(s.page.locator("#log li").last.inner_text()) == "Player 2 resigned."
            assert s.page.locator("button.move").count() == 0
        _screenshot(one, "valhalla-resigned-390x844")
        session = parse_qs(urlsplit(link).fragment)["session"][0]
        result = httpx.get(f"{server.base_url}/v1/sessions/{session}", timeout=10).json()["session"]["result"]
        assert result["reason"] == "RESULT_REASON_RESIGNATION" and result["winners"] == [0]
        assert one.errors == [] and two.errors == []
    finally:
        first.close()
        second.close()


@pytest.mark.timeout(120)
def test_a_timed_out_seat_s_move_is_the_computer_s_and_a_seat_can_be_left_to_it(
    server: Server, browser: Any
) -> None:
    """Valhalla against the computer, 2 s a move, the computer moving on a timeout: the player waits;
    the log says the computer moved for the seat when its time ran out, and the seat reads "timed
    out". Then the player leaves the seat to the computer: the page says so, and offers no more moves."""
    context = _context(browser, viewport=DESKTOP)
    try:
        seat = Seat(context.new_page())
        # a clock number the page refuses, before any call
        seat.page.goto(f"{server.base_url}/play")
        seat.page.wait_for_selector("#opponents")
        seat.page.select_option("#clock", "bank")
        assert seat.page.is_visible("#clock-bank") and seat.page.is_visible("#clock-increment")
        assert seat.page.is_hidden("#clock-move") and seat.page.is_hidden("#clock-days")
        seat.page.fill("#clock-bank", "0")
        seat.page.click("#start-session")
        seat.page.wait_for_function(
            "(document.querySelector('.lobby .refusal')?.textContent ?? '')"
            ".startsWith('The clock is not valid')"
        )
        assert seat.page.locator("#board").count() == 0

        _start_clocked(seat, server.base_url, "valhalla", 2, "2", opponents="random")
        assert seat.page.text_content("#seat-1 .presence") == "played by the computer"
        seat.page.wait_for_selector("#log .timeout", timeout=20_000)
        entry = str(seat.page.locator("#log li:has(.timeout)").first.inner_text())
        assert entry.startswith("Player 1 Out of time, the computer moved: "), entry
        seat.page.wait_for_selector("#seat-0 .mark.timed-out", timeout=10_000)
        seat.idle()
        seat.page.click("#resign")
        seat.page.click("#resign-bot")
        seat.page.wait_for_function(
            "document.querySelector('#seat-0 .presence')?.textContent === 'played by the computer'",
            timeout=10_000,
        )
        seat.page.wait_for_selector("#log li:has-text('left; the computer plays the seat from now on.')")
        assert seat.page.is_hidden("#resign")
        status = str(seat.page.text_content("#status"))
        assert status.startswith("Player 1: the computer plays your seat.") or status.startswith(
            "Game over."
        ), status
        assert seat.page.locator("button.move").count() == 0
        assert seat.errors == []
    finally:
        context.close()
