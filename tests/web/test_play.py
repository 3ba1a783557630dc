"""The frontend at /play, in headless Chromium against a real server with Redis: two browser
contexts play a Valhalla session and follow it live to the end, every game starts and plays in both
modes, a refused move shows the server's sentence, undo, the polling fallback, keyboard play,
phone-sized layout and axe-core's accessibility rules. Screenshots of every game at 390x844 and
1280x800 are written to ``artifacts/screenshots/``."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from .conftest import AXE, SCREENSHOTS, Server, need

pytestmark = pytest.mark.transport

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
# Chromium logs every answer with an error status; a refusal is such an answer, and is expected
EXPECTED_CONSOLE = re.compile(r"Failed to load resource: the server responded with a status of 4\d\d")


def _context(browser: Any, **options: Any) -> Any:
    """A browser context that lets the test's own scripts (waits, axe-core) past the page's
    Content-Security-Policy; test_the_page_runs_under_its_own_policy plays without that."""
    return browser.new_context(bypass_csp=True, **options)


class Seat:
    """One browser page of the frontend, with what the page logged."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        self.urls: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        page.on("request", lambda r: self.urls.append(r.url))

    def _console(self, message: Any) -> None:
        if message.type == "error" and not EXPECTED_CONSOLE.search(message.text):
            self.errors.append(f"console: {message.text}")

    def idle(self) -> None:
        """Waits until the page has shown the answer to its last call."""
        self.page.wait_for_function(
            "document.querySelector('#status') && document.querySelector('#status').textContent !== '' "
            "&& !document.getElementById('app').hasAttribute('aria-busy')"
        )

    def wait_log(self, length: int, timeout: float = 30_000) -> None:
        """Waits until the page's move log has ``length`` entries."""
        script = f"document.querySelectorAll('#log li').length === {length}"
        self.page.wait_for_function(script, timeout=timeout)

    def status(self) -> str:
        return str(self.page.get_attribute("#status", "data-state") or "")

    def log_length(self) -> int:
        return int(self.page.locator("#log li").count())

    def move_labels(self) -> list[str]:
        return [str(t) for t in self.page.locator("button.move").all_inner_texts()]

    def play_random(self, rng: random.Random) -> None:
        buttons = self.page.locator("button.move")
        count = buttons.count()
        assert count > 0, self.page.text_content("#status")
        buttons.nth(rng.randrange(count)).click()
        self.idle()

    def start(
        self, base_url: str, game: str, local: bool, players: int | None = None, opponents: str | None = None
    ) -> None:
        """Starts ``game`` from the new-game form: hot seat (``local``) or a session, whose other
        seats are ``opponents`` when given (a bot level, "lobby", or "" for a link each)."""
        self.page.goto(f"{base_url}/play")
        self.page.select_option("#game", game)
        self.page.wait_for_selector(f".details[data-game='{game}'] #players")
        if players:
            self.page.select_option("#players", str(players))
        if opponents is not None:
            self.page.select_option("#opponents", opponents)
        self.page.click("#start-local" if local else "#start-session")
        self.page.wait_for_selector("#board svg")
        self.idle()

    def open(self, url: str) -> None:
        """Opens a seat's (or a spectator's) link and waits for its game."""
        self.page.goto(url)
        self.page.wait_for_selector("#board svg")
        self.idle()


@pytest.fixture
def seat(browser: Any) -> Iterator[Seat]:
    context = _context(browser, viewport=PHONE, has_touch=True)
    yield Seat(context.new_page())
    context.close()


def _games(server: Server) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = httpx.get(f"{server.base_url}/v1/games", timeout=10).json()["games"]
    return games


def _screenshot(seat: Seat, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    seat.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


# --------------------------------------------------------------------------- serving


def test_play_is_served_with_a_policy_that_keeps_the_page_to_this_service(server: Server) -> None:
    page = httpx.get(f"{server.base_url}/play", timeout=10)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert "manifest-src 'self'" in policy and "worker-src 'self'" in policy
    assets = re.findall(r'(?:src|href)="(/play/[^"]+)"', page.text)
    assert {a.rsplit(".", 1)[1] for a in assets} == {"js", "css", "svg", "png", "webmanifest"}
    types = {"js": "text/javascript", "css": "text/css", "svg": "image/svg+xml", "png": "image/png"}
    for asset in assets:
        answer = httpx.get(server.base_url + asset, timeout=10)
        assert answer.status_code == 200
        if asset.endswith(".webmanifest"):  # its name has no hash: revalidated (test_installable)
            assert answer.headers["cache-control"] == "no-cache"
            continue
        assert "immutable" in answer.headers["cache-control"]
        assert answer.headers["content-type"].split(";")[0] == types[asset.rsplit(".", 1)[1]]
    missing = httpx.get(f"{server.base_url}/play/app-000000000000.js", timeout=10)
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")


def test_the_page_runs_under_its_own_policy(server: Server, browser: Any) -> None:
    """No bypass here: the page loads, starts a session and plays with its CSP enforced (a blocked
    script, style or connection would be a console error)."""
    rng = random.Random(3)
    context = browser.new_context(viewport=PHONE)
    try:
        seat = Seat(context.new_page())
        seat.page.goto(f"{server.base_url}/play")
        seat.page.select_option("#game", "valhalla")
        seat.page.click("#start-session")
        seat.page.locator("#seat-link-1").wait_for()
        for n in range(1, 6):
            seat.page.locator("button.move").first.wait_for()
            buttons = seat.page.locator("button.move")
            buttons.nth(rng.randrange(buttons.count())).click()
            seat.page.locator(f"#log li:nth-child({n})").wait_for()
            if seat.page.get_attribute("#status", "data-state") != "turn":
                break
        assert seat.errors == []
    finally:
        context.close()


# --------------------------------------------------------------------------- two seats, to the end


BROWSER_PLIES = 40
"""Plies of the Valhalla session the two pages play by tapping, before the players go on from
another device (REST with the same seat tokens). A whole game is 400 to 900 plies: tapped, each
waits for the other page, and the game took 150 s alone, the suite's longest test by far."""


def _play_on_over_rest(base_url: str, session: str, tokens: dict[int, str], seed: int) -> int:
    """Plays the session to its end with random legal moves over REST, as the seats' players would
    from another device; returns the number of moves in its log."""
    rng = random.Random(seed)
    with httpx.Client(base_url=base_url, timeout=10) as http:
        current = http.get(f"/v1/sessions/{session}").json()["session"]
        for _ in range(3000):
            if current.get("gameOver"):
                return int(current.get("moveCount", "0"))
            seat = current["toAct"][0] if current.get("toAct") else 0
            auth = {"authorization": f"Bearer {tokens[seat]}"}
            moves = http.post(f"/v1/sessions/{session}:legalMoves", json={}, headers=auth).json()["moves"]
            answer = http.post(
                f"/v1/sessions/{session}:applyMove",
                json={"move": rng.choice(moves), "etag": current["etag"]},
                headers=auth,
            )
            assert answer.status_code == 200, answer.text
            current = answer.json()["session"]
    pytest.fail("the game did not end in 3000 moves")


@pytest.mark.timeout(300)
def test_two_browser_contexts_play_a_valhalla_session_and_follow_it_to_the_end(
    server: Server, browser: Any
) -> None:
    """Each page taps its own moves and sees the other's arrive live; then the same players go on
    from elsewhere (REST, the seat tokens of the links), and both pages follow the session live to
    its end and show the same result. Takes about 12 s (two browser pages, 40 tapped plies)."""
    rng = random.Random(18)
    first, second = (_context(browser, viewport=PHONE, has_touch=True) for _ in range(2))
    try:
        light = Seat(first.new_page())
        light.start(server.base_url, "valhalla", local=False)
        link = str(light.page.input_value("#seat-link-1"))
        fragment = parse_qs(urlsplit(link).fragment)
        token = fragment["token"][0]
        assert urlsplit(link).path == "/play" and fragment["seat"] == ["1"]
        own = parse_qs(urlsplit(light.page.url).fragment)
        assert own["seat"] == ["0"] and own["session"] == fragment["session"]
        dark = Seat(second.new_page())
        dark.page.goto(link)
        dark.page.wait_for_selector("#board svg")
        dark.idle()
        seats = (light, dark)
        for _ in range(BROWSER_PLIES):
            # both pages show the same log before anyone moves: the other's moves arrived live
            light.wait_log(dark.log_length())
            movers = [s for s in seats if s.status() == "turn"]
            assert len(movers) == 1, [s.page.text_content("#status") for s in seats]
            movers[0].play_random(rng)
            other = dark if movers[0] is light else light
            other.wait_log(movers[0].log_length(), 15_000)
            other.idle()
        tokens = {0: own["token"][0], 1: token}
        moves = _play_on_over_rest(server.base_url, fragment["session"][0], tokens, seed=18)
        assert moves > BROWSER_PLIES
        for s in seats:
            s.wait_log(moves, 60_000)
            s.page.wait_for_function("document.querySelector('#status')?.dataset.state === 'over'")
        summaries = [str(s.page.text_content("#status")) for s in seats]
        assert summaries[0] == summaries[1] and summaries[0].startswith("Game over.")
        assert re.search(r"(Light|Dark).*(wins|won)", summaries[0]), summaries[0]
        assert light.page.text_content("#follow-mode") == "Live"
        _screenshot(light, "valhalla-session-over-390x844")
        # the token travelled in the Authorization header only, never in a URL the browser requested
        assert not [u for s in seats for u in s.urls if token in u]
        assert light.errors == [] and dark.errors == []
    finally:
        first.close()
        second.close()


# --------------------------------------------------------------------------- every game


def _distinct_labels(seat: Seat) -> None:
    labels = seat.move_labels()
    assert all(label.strip() for label in labels), labels
    assert len(set(labels)) == len(labels), f"two moves read the same: {sorted(labels)}"


@pytest.mark.parametrize("game", ["valhalla", "penki", "pax_penning", "pax_viking_junior", "birka"])
def test_every_game_plays_hot_seat_with_distinct_moves_and_board_targets(
    server: Server, browser: Any, game: str
) -> None:
    assert game in {g["id"] for g in _games(server)}
    rng = random.Random(game)
    context = _context(browser, viewport=PHONE, has_touch=True)
    try:
        seat = Seat(context.new_page())
        seat.start(server.base_url, game, local=True)
        targets_seen = 0
        for ply in range(40):
            if seat.status() == "over":
                break
            _distinct_labels(seat)
            targets_seen += seat.page.locator("#board .target").count()
            seat.play_random(rng)
            assert seat.page.locator("#refusal").inner_text() == "", f"ply {ply}"
            assert seat.log_length() == ply + 1
        assert targets_seen > 0, "no legal move could be picked on the board"
        _screenshot(seat, f"{game}-hot-seat-390x844")
        seat.page.set_viewport_size(DESKTOP)
        _screenshot(seat, f"{game}-hot-seat-1280x800")
        assert seat.errors == []
    finally:
        context.close()


@pytest.mark.parametrize("game", ["valhalla", "penki", "pax_penning", "pax_viking_junior", "birka"])
def test_every_game_starts_a_session_with_a_link_per_seat(server: Server, browser: Any, game: str) -> None:
    info = next(g for g in _games(server) if g["id"] == game)
    players = int(info["maxPlayers"])
    rng = random.Random(game)
    context = _context(browser, viewport=DESKTOP)
    try:
        seat = Seat(context.new_page())
        seat.start(server.base_url, game, local=False, players=players)
        links = [seat.page.input_value(f"#seat-link-{n}") for n in range(players)]
        assert len({parse_qs(urlsplit(link).fragment)["token"][0] for link in links}) == players
        for _ in range(6):  # seat 0's moves while it is to act (chance steps included)
            if seat.status() != "turn":
                break
            _distinct_labels(seat)
            seat.play_random(rng)
        _screenshot(seat, f"{game}-session-1280x800")
        seat.page.set_viewport_size(PHONE)
        _screenshot(seat, f"{game}-session-390x844")
        assert seat.errors == []
    finally:
        context.close()


def test_a_session_against_the_computer_answers_each_move(server: Server, browser: Any) -> None:
    """Penki against the computer (medium): the lobby's "Other seats" makes seat 1 a bot; each of
    the player's moves is answered by the bot's, which arrives on the page by itself."""
    context = _context(browser, viewport=DESKTOP)
    try:
        seat = Seat(context.new_page())
        seat.start(server.base_url, "penki", local=False, opponents="greedy")
        assert "played by the computer" in str(seat.page.text_content("#seat-links"))
        assert seat.page.locator("#seat-link-1").count() == 0  # no link: nobody else plays
        rng = random.Random(3)
        for _ in range(4):  # the player's move, then the bot's reply arrives
            seat.page.wait_for_function(
                "document.querySelector('#status')?.dataset.state === 'turn'", timeout=30_000
            )
            before = seat.log_length()
            seat.play_random(rng)
            seat.page.wait_for_function(
                f"document.querySelectorAll('#log li').length > {before + 1}"
                " || document.querySelector('#status')?.dataset.state === 'over'",
                timeout=30_000,
            )
        session = parse_qs(urlsplit(seat.page.url).fragment)["session"][0]
        moves = httpx.get(f"{server.base_url}/v1/sessions/{session}/moves", timeout=10).json()["moves"]
        assert any(m.get("seat") == 1 for m in moves) and any(m.get("seat", 0) == 0 for m in moves)
        _screenshot(seat, "penki-against-the-computer-1280x800")
        assert seat.errors == []
    finally:
        context.close()


# --------------------------------------------------------------------------- refusals and undo


def test_a_refused_move_shows_the_server_s_sentence(server: Server, browser: Any) -> None:
    context = _context(browser, viewport=PHONE)
    try:
        light = Seat(context.new_page())
        light.start(server.base_url, "valhalla", local=False)
        link = light.page.input_value("#seat-link-1")
        dark = Seat(context.new_page())
        dark.page.goto(link)
        dark.idle()
        assert dark.status() == "waiting"
        move = json.loads(str(light.page.get_attribute("#raw-move", "placeholder")))  # light's legal move now
        dark.page.click("details.raw summary")
        dark.page.fill("#raw-move", json.dumps(move))
        dark.page.click("#raw-play")
        dark.idle()
        shown = str(dark.page.text_content("#refusal"))
        # the sentence is the server's own: the same call over REST refuses with the same words
        token = parse_qs(urlsplit(link).fragment)["token"][0]
        session = parse_qs(urlsplit(link).fragment)["session"][0]
        etag = httpx.get(
            f"{server.base_url}/v1/sessions/{session}", headers={"Authorization": f"Bearer {token}"}
        ).json()["session"]["etag"]
        answer = httpx.post(
            f"{server.base_url}/v1/sessions/{session}:applyMove",
            json={"move": move, "etag": etag},
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        )
        assert answer.status_code in (400, 403, 409, 412, 422), answer.text
        problem = answer.json()
        assert problem["detail"] in shown and problem["reason"] in shown, (shown, problem)
        assert shown.startswith("Refused:")
        # Check asks without playing: an illegal move's violation, in words
        dark.page.click("#raw-check")
        dark.page.wait_for_function("document.querySelector('#refusal')?.textContent.startsWith('Not legal')")
        # a move against a rule of the game (light must cast first) links the rule on the service's
        # rules page, which opens there
        light.page.click("details.raw summary")
        light.page.fill("#raw-move", json.dumps({"valhalla": {"moveShip": {"ship": 6, "to": 13}}}))
        light.page.click("#raw-check")
        light.page.wait_for_function("document.querySelector('#refusal a.rule') !== null")
        href = str(light.page.get_attribute("#refusal a.rule", "href"))
        assert href.startswith(f"{server.base_url}/rules/valhalla#"), href
        page = httpx.get(href.split("#")[0], timeout=10)
        assert page.status_code == 200 and f'id="{href.split("#")[1]}"' in page.text
        assert dark.log_length() == 0 and light.log_length() == 0
        assert light.errors == [] and dark.errors == []
    finally:
        context.close()


def test_undo_takes_the_seat_s_last_move_back(server: Server, browser: Any) -> None:
    rng = random.Random(5)
    first, second = (_context(browser, viewport=PHONE) for _ in range(2))
    try:
        south = Seat(first.new_page())
        south.start(server.base_url, "penki", local=False)
        north = Seat(second.new_page())
        north.page.goto(south.page.input_value("#seat-link-1"))
        north.page.wait_for_selector("#board svg")
        north.idle()
        seats = (south, north)
        for _ in range(60):
            assert all(s.page.is_disabled("#undo") for s in seats)
            mover = next(s for s in seats if s.status() == "turn")
            mover.play_random(rng)
            for s in seats:
                s.wait_log(mover.log_length())
                s.idle()
            if mover.page.is_enabled("#undo"):
                break
        else:
            pytest.fail("no move could be taken back in 60 moves")
        before = mover.log_length()
        mover.page.click("#undo")
        mover.idle()
        assert mover.log_length() == before - 1
        assert mover.page.text_content("#refusal") == ""
        other = north if mover is south else south
        other.wait_log(before - 1)
        assert south.errors == [] and north.errors == []
    finally:
        first.close()
        second.close()


def test_without_streaming_the_page_polls_and_still_sees_the_other_seat_move(
    server: Server, browser: Any
) -> None:
    rng = random.Random(7)
    first, second = (_context(browser, viewport=PHONE) for _ in range(2))
    try:
        light = Seat(first.new_page())
        light.start(server.base_url, "valhalla", local=False)
        link = light.page.input_value("#seat-link-1")
        dark = Seat(second.new_page())
        dark.page.route("**/WatchSession", lambda route: route.abort())  # a proxy that breaks streams
        dark.page.goto(link)
        polling = "document.querySelector('#follow-mode')?.dataset.mode === 'polling'"
        dark.page.wait_for_function(polling, timeout=20_000)
        light.play_random(rng)
        dark.wait_log(light.log_length(), 15_000)
    finally:
        first.close()
        second.close()


# --------------------------------------------------------------------------- phone, keyboard, accessibility


def test_keyboard_alone_starts_and_plays(server: Server, seat: Seat) -> None:
    seat.page.goto(f"{server.base_url}/play")
    seat.page.wait_for_selector("#players")
    seat.page.focus("#game")
    seat.page.keyboard.press("Tab")  # players
    focused = seat.page.evaluate("document.activeElement.id")
    assert focused == "players"
    seat.page.focus("#start-local")
    seat.page.keyboard.press("Enter")
    seat.page.wait_for_selector("button.move")
    seat.idle()
    seat.page.focus("button.move")
    seat.page.keyboard.press("Enter")
    seat.idle()
    assert seat.log_length() == 1
    # a board target takes the keyboard too
    target = seat.page.locator("#board .target").first
    if target.count():
        assert target.get_attribute("tabindex") == "0" and target.get_attribute("role") == "button"
        before = seat.log_length()
        target.focus()
        seat.page.keyboard.press("Enter")
        seat.idle()
        assert seat.log_length() > before or seat.page.locator("button.show-all").count() == 1


_SMALL_CONTROLS = """() => [...document.querySelectorAll('button, select, input, textarea, summary, a[href]')]
  .filter(el => el.offsetParent !== null)
  .map(el => [el.id || el.className || el.tagName, el.getBoundingClientRect()])
  .filter(([, r]) => r.width < 44 || r.height < 44)
  .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)"""


@pytest.mark.parametrize("game", ["valhalla", "penki", "pax_penning", "pax_viking_junior", "birka"])
def test_a_phone_screen_fits_with_44px_controls_and_no_serious_axe_violation(
    server: Server, browser: Any, game: str
) -> None:
    need(AXE.exists(), f"axe-core is not installed ({AXE}: npm ci in clients/web)")
    context = _context(browser, viewport={"width": 360, "height": 740}, has_touch=True)
    try:
        seat = Seat(context.new_page())
        seat.page.goto(f"{server.base_url}/play")
        seat.page.wait_for_selector("#players")
        pages = {"lobby": None}
        checked: dict[str, list[str]] = {}
        for name in [*pages, "game"]:
            if name == "game":
                seat.start(server.base_url, game, local=False)
                seat.page.click("details.raw summary")
            width = seat.page.evaluate("document.documentElement.scrollWidth")
            assert width <= 360, f"{name}: the page is {width} px wide on a 360 px screen"
            assert seat.page.evaluate(_SMALL_CONTROLS) == [], name
            seat.page.add_script_tag(path=str(AXE))
            result = seat.page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
            checked[name] = [
                f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
                for v in result["violations"]
                if v["impact"] in ("serious", "critical")
            ]
        assert checked == {"lobby": [], "game": []}
        assert seat.errors == []
    finally:
        context.close()


# --------------------------------------------------------------------------- options


def test_the_lobby_s_options_reach_the_game_and_a_refused_option_is_explained(
    server: Server, seat: Seat
) -> None:
    seat.page.goto(f"{server.base_url}/play")
    seat.page.select_option("#game", "valhalla")
    seat.page.wait_for_selector(".details[data-game='valhalla'] #option-start", state="attached")
    seat.page.click("details.options summary")
    seat.page.select_option("#option-start", "VALHALLA_START_ENTER")  # an enum
    seat.page.select_option("#option-doubles", "true")  # a bool
    seat.page.click("#start-session")
    seat.page.wait_for_selector("#seat-link-0")
    seat.idle()
    fragment = parse_qs(urlsplit(seat.page.input_value("#seat-link-0")).fragment)
    session = httpx.get(
        f"{server.base_url}/v1/sessions/{fragment['session'][0]}",
        headers={"Authorization": f"Bearer {fragment['token'][0]}"},
        timeout=10,
    ).json()["session"]
    options = session["state"]["valhalla"]["options"]
    assert options["start"] == "VALHALLA_START_ENTER" and options["doubles"] is True

    # a number the server refuses: the lobby shows the server's sentence, and starts nothing
    seat.page.goto(f"{server.base_url}/play")
    seat.page.select_option("#game", "pax_viking_junior")
    seat.page.wait_for_selector(
        ".details[data-game='pax_viking_junior'] #option-starting_seat", state="attached"
    )
    seat.page.click("details.options summary")
    seat.page.fill("#option-starting_seat", "7")
    seat.page.click("#start-session")
    seat.page.wait_for_function("(document.querySelector('.lobby .refusal')?.textContent ?? '') !== ''")
    refusal = str(seat.page.text_content(".lobby .refusal"))
    assert "startingSeat: must be a seat from 0 to 1" in refusal and "INVALID_OPTIONS" in refusal, refusal
    assert seat.page.locator("#board").count() == 0
    # a list that is not JSON is caught in the page, before any call
    seat.page.fill("#option-starting_seat", "")
    seat.page.fill("#option-seat_boards", '["bygul"')
    seat.page.click("#start-session")
    caught = "document.querySelector('.lobby .refusal')?.textContent.startsWith('An option')"
    seat.page.wait_for_function(caught)
    # and a valid list is sent as a list
    seat.page.fill("#option-seat_boards", '["bygul", "trjegul"]')
    seat.page.click("#start-session")
    seat.page.wait_for_selector("#board svg")
    assert seat.errors == []


def test_a_spectator_link_watches_without_a_seat(server: Server, browser: Any) -> None:
    rng = random.Random(11)
    context = _context(browser, viewport=PHONE)
    try:
        light = Seat(context.new_page())
        light.start(server.base_url, "valhalla", local=False)
        link = str(light.page.get_attribute("#watch-link", "href"))
        assert "token" not in link
        spectator = Seat(context.new_page())
        spectator.page.goto(link)
        spectator.page.wait_for_selector("#board svg")
        spectator.idle()
        assert str(spectator.page.text_content("#status")).startswith("Watching.")
        assert spectator.page.locator("button.move").count() == 0
        light.play_random(rng)
        spectator.wait_log(light.log_length())
        assert spectator.errors == [] and light.errors == []
    finally:
        context.close()
