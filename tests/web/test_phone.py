"""The frontend on a phone (issue 39), in headless Chromium with touch at 360x740 and 390x844
against a real server with Redis: the page keeps its scroll position while the game moves on
(another seat's move, a bot's reply, the player's own tap), every tap on the board answers (a move,
a choice, or a sentence saying why not, in the page's seat names), a refusal hides its reason code
behind a toggle and clears on the next move, spectators get no player controls, and a hot-seat game
survives a reload in every game."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from . import figures
from .conftest import SCREENSHOTS, Server
from .test_play import Seat, _context

pytestmark = pytest.mark.transport

PHONES = [{"width": 360, "height": 740}, {"width": 390, "height": 844}]
GAMES = ["valhalla", "penki", "pax_penning", "pax_viking_junior", "birka"]

# A move tapped as a finger would, without Playwright scrolling the button into view first (which
# would move the page itself and hide a jump the page made).
_TAP_MOVE = "i => document.querySelectorAll('button.move')[i].click()"
_SCROLL_Y = "() => Math.round(window.scrollY)"


def _phone(browser: Any, size: dict[str, int]) -> Any:
    return _context(browser, viewport=size, has_touch=True, is_mobile=True)


def _scroll_to(seat: Seat, y: int) -> int:
    """Scrolls the page to ``y`` (as far as it goes) and returns where it is."""
    seat.page.evaluate(f"() => window.scrollTo(0, {y})")
    return int(seat.page.evaluate(_SCROLL_Y))


def _tap_move(seat: Seat, rng: random.Random) -> None:
    count = seat.page.locator("button.move").count()
    assert count > 0, seat.page.text_content("#status")
    seat.page.evaluate(_TAP_MOVE, rng.randrange(count))
    seat.idle()


def _board_middle(seat: Seat) -> int:
    """A scroll position with the board's top at the top of the screen (a player watching it)."""
    return int(
        seat.page.evaluate(
            "() => Math.round(document.querySelector('#board').getBoundingClientRect().top + scrollY)"
        )
    )


@pytest.mark.timeout(180)
@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_the_page_stays_where_the_player_left_it_while_the_game_moves(
    server: Server, browser: Any, size: dict[str, int]
) -> None:
    """Two phones play a Valhalla session: before each move both are scrolled (to the top, then to
    the board), and after it (the mover's own tap, the other's live update) both are still exactly
    there. About 8 s (two pages, 8 plies)."""
    rng = random.Random(39)
    first, second = _phone(browser, size), _phone(browser, size)
    try:
        light = Seat(first.new_page())
        light.start(server.base_url, "valhalla", local=False)
        dark = Seat(second.new_page())
        dark.open(light.page.input_value("#seat-link-1"))
        assert light.page.evaluate("() => document.documentElement.scrollHeight") > size["height"]
        for ply in range(8):
            light.wait_log(dark.log_length())
            mover, other = (light, dark) if light.status() == "turn" else (dark, light)
            assert mover.status() == "turn", [s.page.text_content("#status") for s in (light, dark)]
            where = 0 if ply % 2 == 0 else _board_middle(mover)
            at = {id(s): _scroll_to(s, where) for s in (mover, other)}
            _tap_move(mover, rng)
            other.wait_log(mover.log_length(), 15_000)
            other.idle()
            for s in (mover, other):
                assert s.page.evaluate(_SCROLL_Y) == at[id(s)], f"ply {ply}: the page moved by itself"
        assert light.errors == [] and dark.errors == []
    finally:
        first.close()
        second.close()


@pytest.mark.timeout(120)
def test_the_page_stays_put_while_the_computer_answers(server: Server, browser: Any) -> None:
    """Penki against the computer at 360x740: the bot's replies arrive by themselves, and the page
    scrolled to the top (then to the board) is not moved by them."""
    rng = random.Random(7)
    context = _phone(browser, PHONES[0])
    try:
        seat = Seat(context.new_page())
        seat.start(server.base_url, "penki", local=False, opponents="greedy")
        for ply in range(6):
            seat.page.wait_for_function(
                "document.querySelector('#status')?.dataset.state === 'turn'", timeout=30_000
            )
            at = _scroll_to(seat, 0 if ply % 2 == 0 else _board_middle(seat))
            before = seat.log_length()
            _tap_move(seat, rng)
            seat.page.wait_for_function(
                f"document.querySelectorAll('#log li').length > {before + 1}"
                " || document.querySelector('#status')?.dataset.state === 'over'",
                timeout=30_000,
            )
            seat.idle()
            assert seat.page.evaluate(_SCROLL_Y) == at, f"ply {ply}"
        assert seat.errors == []
    finally:
        context.close()


def _tap(seat: Seat, selector: str) -> None:
    """A finger's tap at the middle of the first element ``selector`` finds."""
    element = seat.page.locator(selector).first
    element.scroll_into_view_if_needed()
    box = element.bounding_box()
    assert box is not None, selector
    seat.page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _await_answer(seat: Seat, before: int) -> None:
    """Waits for a tap's answer: a move played (the log is no longer ``before`` long), or the moves
    that start there offered (the move list filtered, "Show all" above it)."""
    seat.page.wait_for_function(
        f"document.querySelectorAll('#log li').length !== {before}"
        " || document.querySelector('button.show-all') !== null",
        timeout=15_000,
    )
    seat.idle()


def _notice(seat: Seat) -> str:
    seat.page.wait_for_function("document.querySelector('#refusal')?.textContent !== ''")
    return str(seat.page.inner_text("#refusal"))


@pytest.mark.timeout(120)
def test_every_tap_answers_in_the_page_s_seat_names(server: Server, browser: Any) -> None:
    """Valhalla at 360x740: a tap on the board when it is not your turn, a spectator's tap, and a
    tap beside the highlighted targets each say why nothing happens; a refused move names the seats
    as the page does, keeps the server's sentence and reason code behind "Details", and clears on
    the next move; a spectator has no moves, Undo, Resign or move box."""
    context = _phone(browser, PHONES[0])
    try:
        light = Seat(context.new_page())
        light.start(server.base_url, "valhalla", local=False)
        dark = Seat(context.new_page())
        dark.open(light.page.input_value("#seat-link-1"))
        watcher = Seat(context.new_page())
        watcher.open(str(light.page.get_attribute("#watch-link", "href")))
        # not your turn, in the page's names: seat index 1 is "Player 2", seat index 0 "Player 1"
        _tap(dark, "#board svg")
        assert _notice(dark) == "Player 2 may not act now: it is Player 1's turn."
        _tap(watcher, "#board svg")
        assert _notice(watcher) == "You are watching: only the players move."
        for hidden in ("#moves", "#undo", "details.raw"):
            assert not watcher.page.locator(hidden).is_visible(), hidden
        # the same sentence when the server refuses a move sent out of turn
        move = str(light.page.get_attribute("#raw-move", "placeholder"))
        dark.page.click("details.raw summary")
        dark.page.fill("#raw-move", move)
        dark.page.click("#raw-play")
        dark.idle()
        shown = str(dark.page.inner_text("#refusal"))
        assert shown.startswith("Refused: Player 2 may not act now: it is Player 1's turn."), shown
        assert "NOT_YOUR_TURN" not in shown and not dark.page.locator("#refusal code.reason").is_visible()
        dark.page.click("#refusal details.why summary")
        assert dark.page.locator("#refusal code.reason").inner_text() == "NOT_YOUR_TURN"
        assert "Seat 1 may not act now" in str(dark.page.inner_text("#refusal"))  # the server's own words
        # the mover's tap beside every target says where the moves are
        box = light.page.locator("#board svg").bounding_box()
        assert box is not None
        corner = light.page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y)?.closest('.target') === null",
            [box["x"] + 2, box["y"] + 2],
        )
        assert corner, "the board's corner is a target: pick another empty spot"
        light.page.evaluate("() => window.scrollTo(0, 0)")
        light.page.touchscreen.tap(box["x"] + 2, box["y"] + 2)
        said = _notice(light)
        assert said.startswith("First the draw:") or "highlighted places" in said, said
        # the next move clears the refusal on dark's page
        light.page.evaluate(_TAP_MOVE, 0)
        light.idle()
        dark.page.wait_for_function("document.querySelector('#refusal')?.textContent === ''", timeout=15_000)
        assert light.errors == [] and dark.errors == [] and watcher.errors == []
    finally:
        context.close()


# the tap areas of the board's targets, as measured in the page (tap_areas.js says what)
_TAP_AREAS = (Path(__file__).parent / "tap_areas.js").read_text()


MIN_TEXT_PX, MIN_TAP_PX = 12.0, 44.0
FIGURES: dict[str, dict[str, float]] = {}
"""The smallest board text and tap area seen, by game and screen: artifacts/phone-figures.json, and
docs/benchmarks.md's "The web app on a phone" with LAWSPEAKER_WRITE_FIGURES=1."""


@pytest.fixture(scope="module", autouse=True)
def _write_figures() -> Any:
    yield
    if FIGURES:
        figures.write(FIGURES, into_docs=os.environ.get("LAWSPEAKER_WRITE_FIGURES") == "1")


# random moves played (after the setup's draws) before the mid-game's taps: Penki's random play
# ends in a row of five within 30 moves or so, so fewer there
MID_GAME_PLIES = {"penki": 4}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("stage", ["opening", "mid-game"])
@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s['width']}x{s['height']}")
@pytest.mark.parametrize("game", GAMES)
def test_every_tap_on_a_board_target_gets_an_answer(
    server: Server, browser: Any, game: str, size: dict[str, int], stage: str
) -> None:
    """A hot-seat game at 360x740 and 390x844, from its opening or mid-game (the setup drawn with
    "Draw on", then MID_GAME_PLIES random moves, 24 unless it says), 10 plies by finger taps at the
    middle of a highlighted target: each tap plays a move, or offers the moves that start there (the page says
    so), never nothing. Before each tap, every board text is at least 12 px on screen and every
    target's tap area 44 px both ways (the board is drawn wider than the screen where it must be,
    and a small target with room around it gets an invisible hit area), and no hit area overlaps
    another target or hit area. A label or a badge drawn over a target passes the tap on (Pax
    Penning's stone chips over Sigtuna, issue 39). About 3 s a game, size and stage (the mid-game's
    moves 2-4 s more); its screenshot is what a player sees mid-play."""
    rng = random.Random(f"{game}-{stage}")
    context = _phone(browser, size)
    smallest = {"text": float("inf"), "target": float("inf")}
    try:
        seat = Seat(context.new_page())
        seat.start(server.base_url, game, local=True)
        if stage == "mid-game":
            played = 0
            while played < MID_GAME_PLIES.get(game, 24) and seat.status() != "over":
                if seat.page.locator("#draw-on").count():
                    seat.page.click("#draw-on")
                    seat.idle()
                    continue
                _tap_move(seat, rng)
                played += 1
        tapped = 0
        for ply in range(40):
            if seat.status() == "over" or tapped == 10:
                break
            targets = seat.page.locator("#board .target")
            if targets.count() == 0:
                _tap_move(seat, rng)
                continue
            areas = seat.page.evaluate(_TAP_AREAS)
            assert (areas["overlapping"], areas["ungrown"]) == ([], []), f"ply {ply}"
            text, target = areas["smallestText"], areas["smallestTarget"]
            assert text is None or text >= MIN_TEXT_PX - 0.01, f"ply {ply}: a {text:.1f} px label"
            assert target is None or target >= MIN_TAP_PX - 0.5, f"ply {ply}: a {target:.1f} px target"
            smallest["text"] = min(smallest["text"], text or float("inf"))
            smallest["target"] = min(smallest["target"], target or float("inf"))
            before = seat.log_length()
            key = str(targets.nth(rng.randrange(targets.count())).get_attribute("data-target"))
            _tap(seat, f'#board .target[data-target="{key}"]')
            _await_answer(seat, before)
            tapped += 1
            if seat.log_length() == before:  # a choice: the page said so, and the moves are listed
                assert "moves start there" in _notice(seat), f"ply {ply} ({key})"
                _tap_move(seat, rng)
        over = seat.status() == "over"  # a mid-game may end before its 10 taps (Penki's random play)
        assert tapped == 10 or (stage == "mid-game" and over and tapped > 0), (
            f"only {tapped} taps on targets in {game}: {seat.page.inner_text('#status')}"
        )
        assert seat.errors == []
        # what the player sees, the page's top (artifacts/screenshots; docs/web.md shows the mid-game's)
        seat.page.evaluate("() => window.scrollTo(0, 0)")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        seat.page.screenshot(path=str(SCREENSHOTS / f"{game}-{stage}-{size['width']}x{size['height']}.png"))
        found = FIGURES.setdefault(f"{game} {size['width']}x{size['height']}", {})
        for k, v in smallest.items():
            found[k] = min(found.get(k, v), v)
    finally:
        context.close()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("game", GAMES)
def test_a_hot_seat_game_survives_a_reload(server: Server, browser: Any, game: str) -> None:
    """Six moves of a hot-seat game, then a reload: the same log, the same moves to pick, Undo
    still works and the game plays on; Leave forgets it (a reload then shows the lobby)."""
    rng = random.Random(f"reload-{game}")
    context = _phone(browser, PHONES[1])
    try:
        seat = Seat(context.new_page())
        seat.start(server.base_url, game, local=True)
        for _ in range(6):
            _tap_move(seat, rng)
        log, moves = seat.page.inner_text("#log"), seat.move_labels()
        status, undo = seat.page.inner_text("#status"), seat.page.is_enabled("#undo")
        seat.page.reload()
        seat.page.wait_for_selector("#board svg")
        seat.idle()
        assert seat.page.inner_text("#log") == log
        assert seat.move_labels() == moves and seat.page.inner_text("#status") == status
        assert seat.page.is_enabled("#undo") == undo
        if undo:
            seat.page.click("#undo")
            seat.idle()
            assert seat.log_length() == 5
            _tap_move(seat, rng)
        _tap_move(seat, rng)
        assert seat.log_length() == 7
        seat.page.click("#leave")
        seat.page.wait_for_selector("#start-local")
        seat.page.goto(f"{server.base_url}/play#local")
        seat.page.reload()
        seat.page.wait_for_selector("#start-local")
        assert seat.page.locator("#board").count() == 0
        assert seat.errors == []
    finally:
        context.close()


@pytest.mark.timeout(120)
def test_a_tap_on_a_badge_over_sigtuna_reaches_sigtuna(server: Server, browser: Any) -> None:
    """Pax Penning at 360x740: where placing a stone in Sigtuna is the move, the stone chips drawn
    over Sigtuna (not targets then) pass a tap on to it, which offers the stones to place. Plays
    the setup by its first listed move to get there: about 5 s (some 50 plies)."""
    context = _phone(browser, PHONES[0])
    try:
        seat = Seat(context.new_page())
        seat.start(server.base_url, "pax_penning", local=True)
        chip = '#board [data-target^="sigtuna:"]:not(.target)'
        for _ in range(200):
            placing = seat.page.locator('#board .target[data-target="sigtuna"]').count() == 1
            if placing and seat.page.locator(chip).count() > 0:
                break
            seat.page.evaluate(_TAP_MOVE, 0)
            seat.idle()
        else:
            pytest.fail("no stone placement in Sigtuna with stones already there")
        before = seat.log_length()
        seat.page.locator(chip).first.scroll_into_view_if_needed()  # the board may be wider than the screen
        covered = seat.page.evaluate(
            """sel => { const r = document.querySelector(sel).getBoundingClientRect();
                        const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                        return hit.closest('.target') === null }""",
            chip,
        )
        assert covered, "the chip's middle is a target itself: the tap would not test the pass-through"
        offered = seat.move_labels()
        _tap(seat, chip)
        _await_answer(seat, before)
        if seat.log_length() == before:  # several stones to place: the page offers them
            assert "moves start there" in _notice(seat)
            labels = seat.move_labels()
            assert labels and all("in Sigtuna" in label for label in labels), labels
        else:  # one stone to place: the tap placed it
            assert len([m for m in offered if "in Sigtuna" in m]) == 1, offered
            assert "Sigtuna" in str(seat.page.locator("#log li").last.inner_text())
        assert seat.errors == []
    finally:
        context.close()


@pytest.mark.parametrize("game", GAMES)
def test_the_top_bar_keeps_leave_beside_the_title_at_360_px(server: Server, browser: Any, game: str) -> None:
    """The bar is one row on a phone: Leave sits beside the title (a long one wraps in its own
    room), never on a line below it."""
    context = _phone(browser, PHONES[0])
    try:
        seat = Seat(context.new_page())
        seat.start(server.base_url, game, local=True)
        title, leave = seat.page.locator(".bar h1").bounding_box(), seat.page.locator("#leave").bounding_box()
        assert title is not None and leave is not None
        assert leave["y"] < title["y"] + title["height"] and leave["x"] >= title["x"] + title["width"] - 1, (
            title,
            leave,
        )
        assert leave["x"] + leave["width"] <= PHONES[0]["width"]
    finally:
        context.close()


@pytest.mark.parametrize("game", ["penki", "pax_penning", "birka"])
def test_one_tap_draws_on_until_a_player_chooses(server: Server, browser: Any, game: str) -> None:
    """A game that starts with a run of draws nobody decides (Penki's pairs from the bag, Pax
    Penning's market and coins, Birka's deal) is set up with one tap: "Draw on" plays each draw as
    its own move until a player has a choice."""
    context = _phone(browser, PHONES[0])
    try:
        seat = Seat(context.new_page())
        seat.start(server.base_url, game, local=True)
        assert seat.page.locator("button.move.draw").count() == 1, seat.move_labels()
        seat.page.click("#draw-on")
        seat.idle()
        draws, moves = seat.page.locator("button.move.draw").count(), seat.page.locator("button.move").count()
        assert seat.log_length() > 1
        assert draws == 0 or moves > 1, seat.move_labels()  # a player's choice, or a draw among several
        assert seat.page.locator("#draw-on").count() == 0
        assert seat.errors == []
    finally:
        context.close()


# A ship of the fleet to move that no legal move names, on the board (not waiting, not in Valhalla),
# whose middle is no target: [x, y] of that middle, or null. The fleet to move is the one whose
# ships the legal moves name.
_STUCK_SHIP = """() => {
  const named = [...document.querySelectorAll('#board [data-target^="ship:"].target')];
  if (!named.length) return null;
  const fleet = named[0].dataset.target.split(':')[1];
  for (const ship of document.querySelectorAll(`#board [data-target^="ship:${fleet}:"]:not(.target)`)) {
    const r = ship.getBoundingClientRect();
    const x = r.x + r.width / 2, y = r.y + r.height / 2;
    const under = document.elementFromPoint(x, y);
    const space = under?.closest('[data-target^="space:"]');
    if (!space || under.closest('.target, .hit')) continue;
    if (Number(space.dataset.target.split(':')[1]) >= 36) continue;
    return [x, y];
  }
  return null;
}"""


@pytest.mark.timeout(180)
def test_a_tap_on_a_ship_that_cannot_move_says_why_in_the_rules_words(server: Server, browser: Any) -> None:
    """Valhalla hot seat at 360x740: moves are played (seeded, at random) until the player to move
    has a ship on the board that no legal move names; a tap on it answers with the server's own
    refusal of that ship's move by the points cast (ValidateMove's words), not only "no move starts
    there". Up to 200 moves are played to find one (a few seconds)."""
    context = _phone(browser, PHONES[0])
    rng = random.Random(39)
    try:
        seat = Seat(context.new_page())
        seat.start(server.base_url, "valhalla", local=True)
        at = None
        for _ in range(200):
            at = seat.page.evaluate(_STUCK_SHIP)
            if at:
                break
            _tap_move(seat, rng)
        assert at, "no ship of the mover stood still in 200 moves"
        seat.page.evaluate("() => window.scrollTo(0, 0)")
        at = seat.page.evaluate(_STUCK_SHIP)
        assert at
        seat.page.touchscreen.tap(at[0], at[1])
        seat.page.wait_for_function(
            "() => { const t = document.querySelector('#refusal')?.textContent ?? '';"
            " return t !== '' && !t.includes('no move of yours starts there'); }",
            timeout=15_000,
        )
        said = _notice(seat)
        assert " ship " in said and ("cannot" in said or "may not" in said), said
        assert "highlighted places" in said, said  # and where the moves are
        assert seat.errors == []
    finally:
        context.close()


# Resolves window.__shown with Date.now() once the page's move log holds ``n`` entries (watched by a
# MutationObserver, so the time is when the page drew it, not when the test looked).
_LOG_REACHES = """n => { window.__shown = new Promise(done => {
  const reached = () => document.querySelectorAll('#log li').length >= n;
  if (reached()) { done(Date.now()); return; }
  new MutationObserver((_, watch) => {
    if (reached()) { watch.disconnect(); done(Date.now()); }
  }).observe(document.getElementById('log'), { childList: true, subtree: true });
}); }"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s['width']}x{s['height']}")
@pytest.mark.parametrize("game", GAMES)
def test_another_seat_s_screen_shows_each_move(
    server: Server, browser: Any, game: str, size: dict[str, int]
) -> None:
    """A session on one phone per seat (a browser context each, as different people; the game's
    default number of players), at 360x740 and 390x844: 12 moves tapped by whichever seat is to
    act, each shown in every other seat's move log, and no page moved by it: before each move every
    page is scrolled (to the top, then to the board) and after it is drawn everywhere each is still
    exactly there. The delay from the move's answer on the mover's screen to each other screen
    drawing it (the pages' clocks are this machine's) is recorded for docs/benchmarks.md, never
    asserted on. About 5 s a game and size."""
    rng = random.Random(f"delay-{game}")
    contexts = [_phone(browser, size)]
    delays: list[float] = []
    try:
        first = Seat(contexts[0].new_page())
        first.start(server.base_url, game, local=False)
        seats = [first]
        links = first.page.locator("[id^='seat-link-']")
        for n in range(links.count()):
            contexts.append(_phone(browser, size))
            seats.append(Seat(contexts[-1].new_page()))
            seats[-1].open(links.nth(n).input_value())
        idle = moves = 0
        while moves < 12 and first.status() != "over":
            movers = [s for s in seats if s.page.locator("button.move").count() > 0]
            if not movers:  # between moves: a page still drawing the last one (no event spans pages)
                idle += 1
                assert idle < 200, [s.page.inner_text("#status") for s in seats]
                seats[idle % len(seats)].page.wait_for_timeout(50)
                continue
            idle = 0
            mover = movers[0]
            before = mover.log_length()
            at = {id(s): _scroll_to(s, 0 if moves % 2 == 0 else _board_middle(s)) for s in seats}
            for seat in seats:
                seat.page.evaluate(_LOG_REACHES, before + 1)
            mover.page.evaluate(_TAP_MOVE, rng.randrange(mover.page.locator("button.move").count()))
            moves += 1
            answered = float(mover.page.evaluate("() => window.__shown"))
            for seat in seats:
                if seat is not mover:  # waits: the move must show there
                    delays.append(float(seat.page.evaluate("() => window.__shown")) - answered)
            for seat in seats:
                seat.idle()
                assert seat.page.evaluate(_SCROLL_Y) == at[id(seat)], f"move {moves}: a page moved by itself"
        assert moves == 12, f"only {moves} moves in {game}"
        assert all(seat.errors == [] for seat in seats)
        delays.sort()
        FIGURES.setdefault(f"{game} {size['width']}x{size['height']}", {}).update(
            delay_median_ms=delays[len(delays) // 2], delay_worst_ms=delays[-1], delay_moves=len(delays)
        )
    finally:
        for context in contexts:
            context.close()
