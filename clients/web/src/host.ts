/**
 * The host's controls, for the tab that holds a session's host token (kept with its seat tokens,
 * in sessionStorage): per seat, a new link (the old one stops working at once), the computer in
 * place of a person, a person back in place of the computer, the seat opened in the lobby or taken
 * out of it; and deleting the game. Each is ManageSeat (or DeleteSession) with the host token.
 */
import { type SeatStatus, SeatAction, SeatRole } from "@lawspeaker/client";
import { type Refusal, type Seats, type View, clients, refusalOf } from "./api.js";
import { h, playerName } from "./dom.js";
import { forget, fragmentOf, rememberSeats, rememberedSeats, seatLink, watchLink } from "./keep.js";

/** What the host menu needs from the game screen. */
export interface HostScreen {
  /** Runs a change and shows the view after it, if any (or the refusal it met). */
  act(work: () => Promise<View | undefined>): Promise<void>;
  /** The view now, read afresh. */
  load(): Promise<View>;
  /** Shows a refusal that came outside `act`. */
  refused(refusal: Refusal): void;
  /** Leaves the game screen (once the game is deleted). */
  leave(): void;
}

interface Choice {
  action: SeatAction;
  text: string;
  /** The question to confirm first, when the change takes the seat from its player (the player's
   * name as a node of its own, isolated from the sentence around it). */
  confirm?: (Node | string)[];
}

/** The host's choices for a seat as it is played now. */
function choices(st: SeatStatus, who: string, bot: boolean): Choice[] {
  if (st.out) return [];
  if (bot || st.role === SeatRole.BOT) {
    return [
      { action: SeatAction.REISSUE_TOKEN, text: "Give to a person (new link)" },
      { action: SeatAction.OPEN, text: "Open in the lobby" },
    ];
  }
  if (st.role === SeatRole.OPEN) {
    return [
      { action: SeatAction.CLOSE, text: "Take out of the lobby" },
      { action: SeatAction.REISSUE_TOKEN, text: "Send a link instead" },
      { action: SeatAction.BOT, text: "Hand to the computer" },
    ];
  }
  if (st.role === SeatRole.RESERVED) {
    return [
      { action: SeatAction.REISSUE_TOKEN, text: "New link" },
      { action: SeatAction.OPEN, text: "Open in the lobby" },
      { action: SeatAction.BOT, text: "Hand to the computer" },
    ];
  }
  const away = (): (Node | string)[] => [
    ` ${who}`,
    ...(st.displayName ? [" (", playerName(st.displayName), ")"] : []),
    " will no longer play with their link.",
  ];
  return [
    { action: SeatAction.REISSUE_TOKEN, text: "New link", confirm: [`Give ${who} a new link?`, ...away()] },
    { action: SeatAction.BOT, text: "Hand to the computer", confirm: [`Hand ${who} to the computer?`, ...away()] },
    {
      action: SeatAction.OPEN,
      text: "Open in the lobby",
      confirm: [`Open ${who} in the lobby for anyone to claim?`, ...away()],
    },
  ];
}

const ACTION_NAMES: Partial<Record<SeatAction, string>> = {
  [SeatAction.REISSUE_TOKEN]: "reissue",
  [SeatAction.BOT]: "bot",
  [SeatAction.OPEN]: "open",
  [SeatAction.CLOSE]: "close",
};

/** Who plays the seat, in words, for the host's list. */
function roleWords(st: SeatStatus, bot: boolean): string {
  if (st.out) return "out of the game";
  if (bot || st.role === SeatRole.BOT) return "played by the computer";
  if (st.role === SeatRole.OPEN) return "open in the lobby";
  if (st.role === SeatRole.RESERVED) return "waiting for the link you send";
  return "a player";
}

/** The host menu of `session` for the tab holding its host `token`. */
export function hostMenu(
  session: string,
  token: string,
  screen: HostScreen,
): { element: HTMLElement; dialogs: HTMLElement[]; update: (v: View, seats: Seats | undefined, names: string[]) => void } {
  const api = clients(token).sessions;
  const rows = h("ul", { class: "host-seats" });
  const notice = h("div", { id: "host-notice", class: "host-notice", role: "status" });
  const question = h("p", { id: "host-confirm-text" });
  const yes = h("button", { type: "button", id: "host-confirm-yes", class: "primary" }, "Yes");
  const no = h("button", { type: "button", id: "host-confirm-no", autofocus: true }, "Cancel");
  const confirmDialog = h(
    "dialog",
    { id: "host-confirm", "aria-labelledby": "host-confirm-title" },
    h("h2", { id: "host-confirm-title" }, "Are you sure?"),
    question,
    h("div", { class: "actions" }, yes, no),
  );
  let confirmed: (() => void) | undefined;
  yes.addEventListener("click", () => {
    confirmDialog.close();
    const then = confirmed;
    confirmed = undefined;
    then?.();
  });
  no.addEventListener("click", () => {
    confirmed = undefined;
    confirmDialog.close();
  });
  const ask = (text: (Node | string)[], then: () => void): void => {
    question.replaceChildren(...text);
    confirmed = then;
    confirmDialog.showModal();
  };

  let own: number | undefined; // the seat this page plays
  let players = 0;

  /** Keeps the tab's seat tokens in step with a change to `seat` ("" when no token of ours plays it). */
  const keep = (seat: number, seatToken: string): void => {
    const tokens = rememberedSeats(session);
    while (tokens.length < players) tokens.push("");
    tokens[seat] = seatToken;
    rememberSeats(session, tokens);
  };

  const showLink = (seat: number, who: string, seatToken: string): void => {
    const link = seatLink(session, seat, seatToken);
    const field = h("input", { type: "text", readonly: true, value: link, id: `host-link-${seat}`, "aria-label": `New link of ${who}` });
    notice.replaceChildren(
      h("p", {}, `The new link of ${who}: send it to whoever plays the seat. The old link no longer works.`),
      h(
        "div",
        { class: "seat-link" },
        field,
        h(
          "button",
          {
            type: "button",
            onclick: () => {
              field.select();
              void navigator.clipboard?.writeText(link);
            },
          },
          "Copy",
        ),
      ),
    );
  };

  const change = (seat: number, who: string, action: SeatAction): void => {
    void screen.act(async () => {
      const answer = await api.manageSeat({ session, seat, action });
      const issued = answer.seatToken;
      if (action === SeatAction.REISSUE_TOKEN && issued) {
        keep(seat, issued.token);
        if (seat === own) {
          // this page's own seat: its old token no longer works, so it goes on with the new one
          location.hash = fragmentOf(seatLink(session, seat, issued.token));
          return undefined;
        }
        showLink(seat, who, issued.token);
      } else if (action !== SeatAction.CLOSE) {
        keep(seat, "");
        notice.replaceChildren();
        if (seat === own) {
          // this page's seat is someone else's now (the computer's, or the lobby's): look on
          location.hash = fragmentOf(watchLink(session));
          return undefined;
        }
      }
      return screen.load();
    });
  };

  const remove = h("button", { type: "button", id: "host-delete" }, "Delete the game");
  remove.addEventListener("click", () =>
    ask(["Delete this game for everyone? Its seats' links stop working and it leaves the lobby."], () => {
      void api
        .deleteSession({ session })
        .then(() => {
          forget(session);
          screen.leave();
        })
        .catch((err: unknown) => screen.refused(refusalOf(err)));
    }),
  );

  const element = h(
    "details",
    { id: "host-menu", class: "host-menu" },
    h("summary", {}, "Host controls"),
    h("p", { class: "hint" }, "You created this game: you manage its seats. The host key stays in this tab."),
    rows,
    notice,
    h("div", { class: "actions" }, remove),
  );

  const update = (v: View, seats: Seats | undefined, names: string[]): void => {
    own = v.seat;
    players = v.players;
    const bots = new Set(seats?.bots ?? []);
    rows.replaceChildren(
      ...(seats?.statuses ?? []).map((st) => {
        const who = names[st.seat] ?? `Seat ${st.seat + 1}`;
        const bot = bots.has(st.seat);
        const buttons = v.gameOver
          ? []
          : choices(st, who, bot).map((c) =>
              h(
                "button",
                {
                  type: "button",
                  "data-action": ACTION_NAMES[c.action],
                  onclick: () => {
                    const confirmText = c.confirm;
                    if (confirmText) ask(confirmText, () => change(st.seat, who, c.action));
                    else change(st.seat, who, c.action);
                  },
                },
                c.text,
              ),
            );
        return h(
          "li",
          { id: `host-seat-${st.seat}`, class: "host-seat", "data-role": bot ? "bot" : SeatRole[st.role]?.toLowerCase() },
          h(
            "div",
            { class: "host-who" },
            h("span", { class: "who" }, who),
            st.displayName && !bot ? playerName(st.displayName) : null,
            st.seat === v.seat ? " (you)" : "",
            h("span", { class: "hint" }, roleWords(st, bot)),
          ),
          buttons.length ? h("div", { class: "actions" }, ...buttons) : null,
        );
      }),
    );
  };

  return { element, dialogs: [confirmDialog], update };
}
