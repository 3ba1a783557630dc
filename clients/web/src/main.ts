/**
 * The Lawspeaker frontend, served by `lawspeaker serve` at /play. Routes by the URL fragment:
 *   (none)                            the lobby: a new game
 *   #lobby[&game=<id>][&players=<n>]  the open games, to join one (`&size=<n>`: games a page)
 *   #session=<id>&seat=<n>&token=<t>  one seat of a server session (the token never leaves the page:
 *                                     a fragment is not sent to the server)
 *   #session=<id>                     watching a session (a spectator)
 *   #local                            the hot-seat game started from the lobby (kept in the browser:
 *                                     a reload resumes it, Leave forgets it)
 */
import { BotLevel, type Session } from "@lawspeaker/client";
import { clients, unreachable } from "./api.js";
import { h } from "./dom.js";
import { openGames } from "./join.js";
import { forgetLocal, fragmentOf, rememberHost, rememberName, rememberSeats, seatLink } from "./keep.js";
import { type Start, lobby } from "./lobby.js";
import { play } from "./play.js";
import { LocalTable, SessionTable } from "./tables.js";

const root = document.getElementById("app") as HTMLElement;
let running: AbortController | undefined;
let local: LocalTable | undefined;

async function start(choice: Start): Promise<void> {
  if (choice.local) {
    local = new LocalTable(choice.game, choice.players, choice.options);
    location.hash = "local";
    return;
  }
  const level = choice.opponents && choice.opponents !== "lobby" ? LEVELS[choice.opponents] : undefined;
  const bots =
    level === undefined
      ? []
      : Array.from({ length: choice.players - 1 }, (_, i) => ({
          seat: i + 1,
          level,
          // a hard bot thinks about a second a move, however fast the server
          budget: choice.opponents === "search" ? { millis: 1000 } : undefined,
        }));
  const openSeats = choice.opponents === "lobby" ? Array.from({ length: choice.players - 1 }, (_, i) => i + 1) : [];
  const created = await clients().sessions.createSession({
    game: choice.game,
    players: choice.players,
    options: choice.options,
    bots,
    clock: choice.clock,
    openSeats,
    displayNames: choice.name ? [choice.name] : [],
  });
  if (choice.name) rememberName(choice.name);
  const session = created.session as Session;
  const tokens = Array.from({ length: choice.players }, () => ""); // a bot's or an open seat has no token
  for (const t of created.seatTokens) tokens[t.seat] = t.token;
  rememberSeats(session.session, tokens);
  rememberHost(session.session, created.hostToken);
  location.hash = fragmentOf(seatLink(session.session, 0, tokens[0]));
}

const LEVELS = { random: BotLevel.RANDOM, greedy: BotLevel.GREEDY, search: BotLevel.SEARCH } as const;

function leave(): void {
  if (local) forgetLocal(); // the players left the hot-seat game: a reload no longer resumes it
  local = undefined;
  history.pushState(null, "", location.pathname);
  void route();
}

async function route(): Promise<void> {
  running?.abort();
  running = new AbortController();
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const session = fragment.get("session");
  window.scrollTo(0, 0);
  if (session) {
    const game = session.split(".")[0];
    const table = new SessionTable(game, session, fragment.get("token") ?? undefined);
    document.title = `Lawspeaker: ${game}`;
    await play(root, table, running.signal, leave);
  } else if (fragment.has("lobby")) {
    document.title = "Lawspeaker: open games";
    await openGames(root, running.signal, fragment);
  } else if (fragment.has("local") && (local ??= LocalTable.restore())) {
    document.title = `Lawspeaker: ${local.game} (hot seat)`;
    await play(root, local, running.signal, leave);
  } else {
    document.title = "Lawspeaker";
    await lobby(root, start);
  }
}

/** Routes, and says so when the server cannot be reached (the app shell started offline). */
function go(): void {
  route().catch((err: unknown) => {
    if (!unreachable(err)) {
      root.replaceChildren(h("p", { class: "refusal", role: "alert" }, `Something went wrong: ${String(err)}`));
      return;
    }
    root.replaceChildren(
      h(
        "div",
        { class: "lobby" },
        h("h1", {}, "Lawspeaker"),
        h(
          "p",
          { id: "offline", class: "refusal", role: "alert" },
          "The Lawspeaker server cannot be reached: this device may be offline. ",
          "The page starts again by itself when the connection is back.",
        ),
        h("button", { id: "retry", type: "button", class: "primary", onclick: go }, "Try again"),
      ),
    );
    // back by itself: on the browser's "online" event, and every few seconds (a server that was
    // down, or a network the browser still believed was up)
    clearTimeout(retrying);
    retrying = setTimeout(() => {
      if (document.getElementById("offline")) go();
    }, RETRY_MS);
  });
}
const RETRY_MS = 4000;
let retrying: ReturnType<typeof setTimeout> | undefined;

window.addEventListener("hashchange", go);
window.addEventListener("online", () => {
  if (document.getElementById("offline")) go();
});
go();

// The installable app's service worker keeps the app shell (never game data): the page starts
// without a network and says the server cannot be reached (pwa/sw.js).
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/play/sw.js", { scope: "/play" }).catch((err: unknown) => {
    console.warn("the service worker did not register", err);
  });
}
