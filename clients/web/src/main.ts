/**
 * The Lawspeaker frontend, served by `lawspeaker serve` at /play. Routes by the URL fragment:
 *   (none)                            the lobby: a new game
 *   #lobby[&game=<id>][&players=<n>]  the open games, to join one (`&size=<n>`: games a page)
 *   #session=<id>&seat=<n>&token=<t>  one seat of a server session (the token never leaves the page:
 *                                     a fragment is not sent to the server)
 *   #session=<id>                     watching a session (a spectator)
 *   #local                            the hot-seat game started from the lobby (kept in the page)
 */
import { BotLevel, type Session } from "@lawspeaker/client";
import { clients } from "./api.js";
import { h } from "./dom.js";
import { openGames } from "./join.js";
import { fragmentOf, rememberHost, rememberName, rememberSeats, seatLink } from "./keep.js";
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
  } else if (fragment.has("local") && local) {
    document.title = `Lawspeaker: ${local.game} (hot seat)`;
    await play(root, local, running.signal, leave);
  } else {
    document.title = "Lawspeaker";
    await lobby(root, start);
  }
}

window.addEventListener("hashchange", () => void route());
route().catch((err: unknown) => {
  root.replaceChildren(h("p", { class: "refusal", role: "alert" }, `Something went wrong: ${String(err)}`));
});
