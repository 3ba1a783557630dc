"""A quick look at the frontend: builds the bundle, starts `lawspeaker serve` on free ports, opens
/play in headless Chromium, starts a game (hot seat by default, or a session with --session), plays
K random legal moves through the move list and saves a screenshot. Prints the page's console errors.

    .venv/bin/python clients/web/scripts/shot.py --game valhalla --moves 10 --out /tmp/v.png
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[3]
WEB = ROOT / "clients" / "web"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="valhalla")
    p.add_argument("--players", type=int, default=0, help="0: the game's minimum")
    p.add_argument("--moves", type=int, default=0)
    p.add_argument("--seed", type=int, default=1, help="seeds the choice of random moves")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=800)
    p.add_argument("--session", action="store_true", help="a server session (seat 0 plays every seat's turn is not possible: only seat 0's moves are played)")
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--out", default="/tmp/lawspeaker-shot.png")
    args = p.parse_args()
    if not args.no_build:
        subprocess.run(["node", "build.mjs"], cwd=WEB, check=True, stdout=subprocess.DEVNULL)
    http, grpc_port = free_port(), free_port()
    server = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "lawspeaker"), "serve", "--http-port", str(http), "--grpc-port", str(grpc_port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{http}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        rng = random.Random(args.seed)
        errors: list[str] = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            # bypass_csp: the waits below are scripts the page's policy would refuse
            page = browser.new_page(viewport={"width": args.width, "height": args.height}, bypass_csp=True)
            page.on("console", lambda m: errors.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
            page.goto(base + "/play")
            page.select_option("#game", args.game)
            page.wait_for_selector("#players")
            if args.players:
                page.select_option("#players", str(args.players))
            page.click("#start-session" if args.session else "#start-local")
            page.wait_for_selector("#status:not(:empty)")
            played = 0
            while played < args.moves:
                page.wait_for_function("!document.getElementById('app').hasAttribute('aria-busy')")
                buttons = page.query_selector_all("button.move")
                if not buttons:
                    break
                rng.choice(buttons).click()
                played += 1
                page.wait_for_timeout(30)
            page.wait_for_function("!document.getElementById('app').hasAttribute('aria-busy')")
            page.wait_for_timeout(200)
            page.screenshot(path=args.out, full_page=True)
            print(f"{args.out}: {played} moves played; status: {page.text_content('#status')}")
            browser.close()
        for e in errors:
            print(e)
    finally:
        server.terminate()
        server.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
