/**
 * The open games (the server's lobby, ListSessions): the sessions with a seat waiting for a player,
 * by game and number of players and the longest waiting first, filtered by game and number of
 * players, a page at a time. Joining claims an open
 * seat under a display name (ClaimSeat) and opens the game with the seat's token in the fragment,
 * as a seat link does. Every name is a player's own words: it is put on the page as text only.
 */
import { type GameInfo, type Session, SeatRole } from "@lawspeaker/client";
import { clients, describeGame, refusalOf, unreachable } from "./api.js";
import { h, playerName } from "./dom.js";
import { uiFor } from "./games/index.js";
import { fragmentOf, rememberName, rememberedName, seatLink } from "./keep.js";
import { clockText } from "./play.js";

/** Sessions a page shows unless the fragment says otherwise (`size=`). */
const PAGE_SIZE = 20;

/** The clock of a listed session in a few words, or "" for none. */
function clockWords(session: Session): string {
  const c = session.clock;
  if (!c) return "";
  if (c.bankSeconds) return `Clock: ${clockText(c.bankSeconds)} each, +${c.incrementSeconds} s a move`;
  if (c.perMoveSeconds) return `Clock: ${clockText(c.perMoveSeconds)} a move`;
  return "";
}

/** Draws the open games into `root`, filtered as the fragment says (`game=`, `players=`, `size=`). */
export async function openGames(root: HTMLElement, signal: AbortSignal, params: URLSearchParams): Promise<void> {
  const api = clients();
  const status = h("p", { id: "open-games-status", class: "status", role: "status" }, "Loading the open games…");
  const home = h("a", { href: "#", id: "new-game-link" }, "Start a new game");
  root.replaceChildren(h("section", { class: "lobby" }, h("h1", {}, "Open games"), status));
  let games: GameInfo[];
  try {
    games = (await api.rules.listGames({})).games;
  } catch (err) {
    if (unreachable(err)) throw err; // the page says the server cannot be reached (main.ts)
    status.textContent = `The service did not answer: ${refusalOf(err).message}`;
    return;
  }
  if (signal.aborted) return;
  const titles = new Map(games.map((g) => [g.id, g.title]));
  const size = Math.min(100, Math.max(1, Number(params.get("size")) || PAGE_SIZE));
  const gameSelect = h(
    "select",
    { id: "lobby-game", name: "game" },
    h("option", { value: "" }, "All games"),
    ...games.map((g) => h("option", { value: g.id, selected: g.id === params.get("game") }, g.title)),
  );
  const playersSelect = h("select", { id: "lobby-players", name: "players" });
  const list = h("ul", { id: "open-games", class: "open-games", "aria-label": "Open games" });
  const prev = h("button", { type: "button", id: "lobby-prev" }, "Previous page");
  const next = h("button", { type: "button", id: "lobby-next" }, "Next page");
  const refresh = h("button", { type: "button", id: "lobby-refresh" }, "Refresh");
  const refusal = h("p", { id: "lobby-refusal", class: "refusal", role: "alert" });
  const pages: string[] = [""]; // the page tokens down to the one shown
  let showing = 0; // the listing on screen: a slower, older answer must not replace a newer one

  /** The players choice for the chosen game (every game's range when none is chosen). */
  const fillPlayers = (wanted: number): void => {
    const chosen = games.filter((g) => !gameSelect.value || g.id === gameSelect.value);
    const low = Math.min(...chosen.map((g) => g.minPlayers));
    const high = Math.max(...chosen.map((g) => g.maxPlayers));
    playersSelect.replaceChildren(
      h("option", { value: "0" }, "Any number"),
      ...Array.from({ length: high - low + 1 }, (_, i) => low + i).map((n) =>
        h("option", { value: n, selected: n === wanted }, `${n} players`),
      ),
    );
  };
  fillPlayers(Number(params.get("players")) || 0);

  /** Keeps the filter in the fragment (a link to it shows the same), without routing again. */
  const keepFilter = (): void => {
    const kept = new URLSearchParams();
    if (gameSelect.value) kept.set("game", gameSelect.value);
    if (playersSelect.value !== "0") kept.set("players", playersSelect.value);
    if (params.has("size")) kept.set("size", String(size));
    const rest = kept.toString();
    history.replaceState(null, "", `#lobby${rest ? `&${rest}` : ""}`);
  };

  const dialog = joinDialog();

  const draw = async (session: Session): Promise<HTMLElement> => {
    const { data } = await describeGame(session.game);
    const names = uiFor(session.game).seatNames(session.players, data);
    const title = titles.get(session.game) ?? session.game;
    const seats = session.seats.map((st) => {
      const seatName = names[st.seat] ?? `Seat ${st.seat + 1}`;
      const item = h("li", { class: "open-seat", "data-seat": st.seat, "data-role": SeatRole[st.role]?.toLowerCase() });
      item.append(h("span", { class: "who" }, seatName));
      if (st.role === SeatRole.OPEN) {
        item.append(
          h("span", { class: "presence waiting" }, "open"),
          h(
            "button",
            {
              type: "button",
              class: "join primary",
              "data-seat": st.seat,
              onclick: () => dialog.ask(session, st.seat, `Join ${title} as ${seatName}`, () => void load()),
            },
            `Join as ${seatName}`,
          ),
        );
      } else if (st.role === SeatRole.BOT) {
        item.append(h("span", { class: "presence bot" }, "the computer"));
      } else if (st.role === SeatRole.RESERVED) {
        item.append(h("span", { class: "presence waiting" }, "invited by the host"));
      } else if (st.displayName) {
        item.append(playerName(st.displayName));
      } else {
        item.append(h("span", { class: "presence" }, "a player"));
      }
      return item;
    });
    const clock = clockWords(session);
    return h(
      "li",
      { class: "open-game card", "data-session": session.session },
      h("h2", {}, title, " ", h("small", {}, `${session.players} players`)),
      clock ? h("p", { class: "hint" }, clock) : null,
      h("ul", { class: "open-seats", "aria-label": `Seats of this ${title} game` }, ...seats),
    );
  };

  const load = async (): Promise<void> => {
    const asked = ++showing;
    refusal.textContent = "";
    status.textContent = "Loading the open games…";
    root.setAttribute("aria-busy", "true");
    try {
      const page = await api.sessions.listSessions({
        game: gameSelect.value,
        players: Number(playersSelect.value),
        pageSize: size,
        pageToken: pages[pages.length - 1],
      });
      const items = await Promise.all(page.sessions.map(draw));
      if (asked !== showing || signal.aborted) return;
      list.replaceChildren(...items);
      const where = pages.length > 1 ? ` (page ${pages.length})` : "";
      status.textContent = items.length
        ? `${items.length} ${items.length === 1 ? "game waits" : "games wait"} for players${where}.`
        : pages.length > 1
          ? "No more open games."
          : "No game waits for players now: start one and leave its seats open, or refresh later.";
      prev.disabled = pages.length <= 1;
      next.disabled = !page.nextPageToken;
      next.dataset.token = page.nextPageToken;
    } catch (err) {
      if (asked !== showing) return;
      const r = refusalOf(err);
      status.textContent = "The open games could not be read.";
      refusal.textContent = `${r.message} (${r.reason})`;
    } finally {
      if (asked === showing) root.removeAttribute("aria-busy");
    }
  };

  const restart = (): void => {
    pages.splice(1);
    keepFilter();
    void load();
  };
  gameSelect.addEventListener("change", () => {
    fillPlayers(Number(playersSelect.value));
    restart();
  });
  playersSelect.addEventListener("change", restart);
  refresh.addEventListener("click", () => void load());
  next.addEventListener("click", () => {
    if (!next.dataset.token) return;
    pages.push(next.dataset.token);
    void load();
  });
  prev.addEventListener("click", () => {
    if (pages.length <= 1) return;
    pages.pop();
    void load();
  });

  root.replaceChildren(
    h(
      "section",
      { class: "lobby" },
      h("h1", {}, "Open games"),
      h(
        "p",
        {},
        "Games whose seats wait for a player, by game and number of players, the longest waiting first: ",
        "join one under your name.",
      ),
      h("p", { class: "join-link" }, home, ": with friends by link, with whoever joins, or against the computer."),
      h(
        "div",
        { class: "card filters", role: "group", "aria-label": "Filter the open games" },
        h("div", { class: "field" }, h("label", { for: "lobby-game" }, "Game"), gameSelect),
        h("div", { class: "field" }, h("label", { for: "lobby-players" }, "Players"), playersSelect),
        h("div", { class: "actions" }, refresh),
      ),
      status,
      refusal,
      list,
      h("div", { class: "actions" }, prev, next),
    ),
    dialog.element,
  );
  prev.disabled = true;
  next.disabled = true;
  await load();
}

/** The dialog that asks for a display name and claims the seat. */
function joinDialog(): {
  element: HTMLDialogElement;
  ask: (session: Session, seat: number, heading: string, taken: () => void) => void;
} {
  const heading = h("h2", { id: "join-title" }, "Join");
  const name = h("input", {
    id: "join-name",
    type: "text",
    required: true,
    autocomplete: "nickname",
    spellcheck: false,
    "aria-describedby": "join-hint",
  });
  const refusal = h("p", { id: "join-refusal", class: "refusal", role: "alert" });
  const confirm = h("button", { type: "submit", id: "join-confirm", class: "primary" }, "Join");
  const cancel = h("button", { type: "button", id: "join-cancel" }, "Cancel");
  const form = h(
    "form",
    { "aria-labelledby": "join-title" },
    heading,
    h(
      "div",
      { class: "field" },
      h("label", { for: "join-name" }, "Your name"),
      name,
      h("small", { id: "join-hint", class: "hint" }, "The other players see it (up to 32 characters)."),
    ),
    refusal,
    h("div", { class: "actions" }, confirm, cancel),
  );
  const element = h("dialog", { id: "join-dialog", "aria-labelledby": "join-title" }, form);
  let target: { session: Session; seat: number; taken: () => void } | undefined;
  cancel.addEventListener("click", () => element.close());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!target || confirm.disabled) return;
    const { session, seat, taken } = target;
    refusal.textContent = "";
    confirm.disabled = true;
    try {
      const claimed = await clients().sessions.claimSeat({ session: session.session, displayName: name.value, seat });
      const token = claimed.seatToken;
      if (!token) throw new Error("the server returned no seat token");
      rememberName(name.value);
      element.close();
      location.hash = fragmentOf(seatLink(session.session, token.seat, token.token));
    } catch (err) {
      const r = refusalOf(err);
      refusal.textContent = `${r.message} (${r.reason})`;
      if (r.reason === "SEAT_NOT_OPEN" || r.reason === "SESSION_NOT_FOUND" || r.reason === "SESSION_OVER") taken();
    } finally {
      confirm.disabled = false;
    }
  });
  return {
    element,
    ask(session, seat, title, taken) {
      target = { session, seat, taken };
      heading.textContent = title;
      refusal.textContent = "";
      if (!name.value) name.value = rememberedName();
      element.showModal();
      name.focus();
    },
  };
}
