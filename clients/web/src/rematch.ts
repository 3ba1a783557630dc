/**
 * Playing again once a session's game is over (Rematch): each player asks with their seat's token,
 * and the rematch is made when all have (the host's request makes it at once). The new session has
 * the same players, each one seat on, with the same tokens. When the session on screen names its
 * rematch, a page whose player asked (or which holds the host token) goes there by itself, finding
 * its new seat with GetSession; any other page offers to.
 */
import { type SeatStatus, SeatRole } from "@lawspeaker/client";
import { type Refusal, type Seats, type View, clients, refusalOf } from "./api.js";
import { h, playerName } from "./dom.js";
import { fragmentOf, rememberRematch, seatLink, watchLink } from "./keep.js";
import type { SessionTable } from "./tables.js";

/** What the rematch box needs from the game screen. */
export interface RematchScreen {
  act(work: () => Promise<View | undefined>): Promise<void>;
  refused(refusal: Refusal): void;
}

/** The seats whose players must ask for a rematch (a person's, not the computer's). */
function voters(seats: Seats): SeatStatus[] {
  return seats.statuses.filter((st) => st.role === SeatRole.PERSON && !seats.bots.includes(st.seat));
}

export function rematchBox(
  table: SessionTable,
  hostToken: string,
  screen: RematchScreen,
): { element: HTMLElement; update: (v: View, seats: Seats | undefined, names: string[]) => void } {
  const asked = h("p", { id: "rematch-asked" });
  const ask = h("button", { type: "button", id: "rematch-ask", class: "primary" }, "Ask for a rematch");
  const now = h("button", { type: "button", id: "rematch-now" }, "Rematch now (host)");
  const made = h("div", { id: "rematch-made" });
  const element = h(
    "section",
    { id: "rematch", class: "rematch", "aria-label": "Rematch", hidden: true },
    h("h2", {}, "Play again?"),
    asked,
    h("div", { class: "actions" }, ask, now),
    made,
  );
  let following = "";

  /** Opens the rematch `id` with this page's token, at the seat it plays there. */
  const follow = async (id: string): Promise<void> => {
    if (following === id) return;
    following = id;
    rememberRematch(table.session, id);
    if (table.token) {
      try {
        const got = await clients(table.token).sessions.getSession({ session: id });
        const seat = got.session?.seat;
        if (seat !== undefined) {
          location.hash = fragmentOf(seatLink(id, seat, table.token));
          return;
        }
      } catch (err) {
        const r = refusalOf(err);
        if (r.reason !== "SEAT_TOKEN_INVALID") {
          following = "";
          screen.refused({ ...r, message: `The rematch could not be opened: ${r.message}` });
          return;
        }
        // this token plays no seat there (the computer took it over): watch instead
      }
    }
    location.hash = fragmentOf(watchLink(id));
  };

  ask.addEventListener("click", () => void screen.act(() => table.rematch()));
  now.addEventListener("click", () =>
    void screen.act(async () => {
      await clients(hostToken).sessions.rematch({ session: table.session });
      return table.load();
    }),
  );

  const update = (v: View, seats: Seats | undefined, names: string[]): void => {
    const info = v.session;
    element.hidden = !v.gameOver || !info || !seats;
    if (element.hidden || !info || !seats) return;
    const nameOf = (st: SeatStatus): (Node | string)[] => {
      const who = names[st.seat] ?? `Seat ${st.seat + 1}`;
      return st.displayName ? [`${who} (`, playerName(st.displayName), ")"] : [who];
    };
    const list = (statuses: SeatStatus[]): Node[] =>
      statuses.flatMap((st, i) => [...(i ? [document.createTextNode(", ")] : []), ...nameOf(st).map(asNode)]);
    const people = voters(seats);
    const yes = people.filter((st) => info.rematchRequested.includes(st.seat));
    const waiting = people.filter((st) => !info.rematchRequested.includes(st.seat));
    const mine = v.seat !== undefined && people.some((st) => st.seat === v.seat);
    const mineAsked = v.seat !== undefined && info.rematchRequested.includes(v.seat);
    asked.replaceChildren(
      ...(yes.length
        ? [document.createTextNode("Asked for a rematch: "), ...list(yes), document.createTextNode(".")]
        : [document.createTextNode(info.rematch ? "" : "Nobody has asked for a rematch yet.")]),
      ...(waiting.length && !info.rematch
        ? [document.createTextNode(" Waiting for: "), ...list(waiting), document.createTextNode(".")]
        : []),
    );
    ask.hidden = !mine || !table.token || Boolean(info.rematch);
    ask.disabled = mineAsked;
    ask.textContent = mineAsked ? "You asked for a rematch" : "Ask for a rematch";
    now.hidden = !hostToken || Boolean(info.rematch);
    made.replaceChildren();
    if (!info.rematch) return;
    const rematch = info.rematch;
    if (mineAsked || hostToken) {
      made.append(h("p", { class: "status" }, "The rematch has started: opening it…"));
      void follow(rematch);
      return;
    }
    made.append(
      h("p", {}, "The rematch has started."),
      table.token
        ? h("button", { type: "button", id: "rematch-play", class: "primary", onclick: () => void follow(rematch) }, "Play the rematch")
        : h("a", { id: "rematch-watch", href: watchLink(rematch) }, "Watch the rematch"),
    );
  };

  return { element, update };
}

function asNode(part: Node | string): Node {
  return typeof part === "string" ? document.createTextNode(part) : part;
}
