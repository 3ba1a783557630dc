/** A game on screen: the board, the moves to tap, the log, and the controls, for any game. */
import { fromJson, type JsonObject, type JsonValue, toJson } from "@bufbuild/protobuf";
import { type GameInfo, type Move, MoveSchema, type Session } from "@lawspeaker/client";
import { type Refusal, type Table, type View, clients, refusalOf } from "./api.js";
import { h } from "./dom.js";
import { moveOf, stateOf, uiFor } from "./games/index.js";
import type { BoardContext } from "./games/types.js";

/** A seat's link: the session and the seat's token in the fragment, which no browser sends. */
export function seatLink(session: string, seat: number, token: string): string {
  const fragment = new URLSearchParams({ session, seat: String(seat), token });
  return `${location.origin}/play#${fragment.toString()}`;
}

/** The seat links of sessions this tab created (sessionStorage: they never leave the tab). */
/** Keeps the seat tokens of a session this page created (by seat; "" for a seat the computer plays). */
export function rememberSeats(session: Session, tokens: string[]): void {
  sessionStorage.setItem(`lawspeaker.seats.${session.session}`, JSON.stringify(tokens));
}

function rememberedSeats(session: string): string[] {
  try {
    return JSON.parse(sessionStorage.getItem(`lawspeaker.seats.${session}`) ?? "[]") as string[];
  } catch {
    return [];
  }
}

const described = new Map<string, Promise<{ info: GameInfo; data: JsonObject }>>();

function describe(game: string): Promise<{ info: GameInfo; data: JsonObject }> {
  let found = described.get(game);
  if (!found) {
    found = clients()
      .rules.describeGame({ game })
      .then((d) => ({ info: d.info as GameInfo, data: (d.data ?? {}) as JsonObject }));
    described.set(game, found);
  }
  return found;
}

/** Plays `table` in `root` until `signal` aborts (the player leaves). */
export async function play(root: HTMLElement, table: Table, signal: AbortSignal, leave: () => void): Promise<void> {
  const { info, data } = await describe(table.game);
  const ui = uiFor(table.game);
  const title = h("h1", {}, info.title);
  const status = h("p", { id: "status", class: "status", role: "status", "aria-live": "polite" });
  const follow = h("span", { id: "follow-mode", class: "follow" });
  const refusal = h("div", { id: "refusal", class: "refusal", role: "alert" });
  const boardBox = h("div", { id: "board", class: "board" });
  const chanceBox = h("div", { id: "chance", class: "chance" });
  const movesBox = h("section", { id: "moves", class: "moves", "aria-label": "Your moves" });
  const panelBox = h("section", { id: "panel", class: "panel", "aria-label": "Game details" });
  const lastBox = h("p", { id: "last-events", class: "events" });
  const logList = h("ol", { id: "log", class: "log" });
  const undo = h("button", { id: "undo", type: "button", disabled: true }, "Undo my last move");
  const leaveButton = h("button", { id: "leave", type: "button", onclick: leave }, "Leave");
  const seatsBox = h("section", { id: "seat-links", class: "seats" });
  const raw = h("textarea", { id: "raw-move", rows: 3, spellcheck: false, "aria-label": "Move as JSON" });
  const rawCheck = h("button", { id: "raw-check", type: "button" }, "Check");
  const rawPlay = h("button", { id: "raw-play", type: "button" }, "Play");
  let busy = false;
  let filter: number[] | undefined; // the moves a tapped board target names

  const seatNames = (players: number): string[] => ui.seatNames(players, data);
  const nameOf = (players: number, seat: number | undefined): string =>
    seat === undefined ? "Chance" : (seatNames(players)[seat] ?? `Seat ${seat + 1}`);

  const showRefusal = (r: Refusal | undefined, prefix = "Refused"): void => {
    refusal.replaceChildren();
    if (!r) return;
    refusal.append(
      h("strong", {}, `${prefix}: `),
      r.message,
      " ",
      h("code", { class: "reason" }, r.reason),
    );
    // the rule's link on the service's own rules page (an absolute URL, or a path over gRPC)
    if (r.rule && /^(https?:\/\/|\/)/.test(r.rule)) {
      const link = h("a", { class: "rule", href: r.rule, target: "_blank", rel: "noopener" }, "the rule");
      refusal.append(" ", h("small", {}, "(see ", link, ")"));
    }
  };

  const act = async (work: () => Promise<View>): Promise<void> => {
    if (busy) return;
    busy = true;
    root.setAttribute("aria-busy", "true");
    showRefusal(undefined);
    try {
      show(await work());
    } catch (err) {
      showRefusal(refusalOf(err));
      try {
        show(await table.load()); // the refusal may be because the game moved on: show it as it is
      } catch {
        // keep the last view; the refusal says what happened
      }
    } finally {
      busy = false;
      root.removeAttribute("aria-busy");
    }
  };

  const playMove = (move: Move): void => void act(() => table.play(move));

  function context(v: View): BoardContext<unknown, unknown> {
    return {
      data,
      state: stateOf(v.state),
      players: v.players,
      seat: v.seat,
      toAct: v.toAct,
      moves: v.moves.map(moveOf),
      seatNames: seatNames(v.players),
    };
  }

  function show(v: View): void {
    filter = undefined;
    const ctx = context(v);
    const labels = v.moves.map((m, i) => {
      try {
        return ui.describe(moveOf(m), ctx) || `Move ${i + 1}`;
      } catch {
        return `Move ${i + 1}`;
      }
    });
    // status
    const names = seatNames(v.players);
    const me = v.seat !== undefined ? names[v.seat] : undefined;
    const waitingFor = v.toAct.length ? v.toAct.map((s) => names[s]).join(", ") : (v.chance?.description ?? "the next step");
    if (v.gameOver) {
      status.textContent = `Game over. ${v.outcome?.summary ?? ""}`;
      status.dataset.state = "over";
    } else if (table.kind === "local") {
      status.textContent = v.chance ? v.chance.description : `${waitingFor} to play`;
      status.dataset.state = "turn";
    } else if (v.moves.length > 0) {
      // a chance step may be the caller's to draw while no seat is "to act"
      status.textContent = v.chance ? `Your turn (${me}): ${v.chance.description}` : `Your turn (${me})`;
      status.dataset.state = "turn";
    } else {
      status.textContent = `${me ? `You are ${me}. ` : "Watching. "}Waiting for ${waitingFor}`;
      status.dataset.state = "waiting";
    }
    // board, with the targets legal moves name
    let board: SVGSVGElement;
    const targets = new Map<string, number[]>();
    try {
      board = ui.board(ctx);
      v.moves.forEach((m, i) => {
        for (const key of ui.targets(moveOf(m), ctx)) targets.set(key, [...(targets.get(key) ?? []), i]);
      });
    } catch (err) {
      console.error("drawing failed", err);
      board = uiFor("").board(ctx);
    }
    board.setAttribute("class", "board-svg");
    if (!board.getAttribute("role")) board.setAttribute("role", "group");
    if (!board.getAttribute("aria-label")) board.setAttribute("aria-label", `${info.title} board`);
    for (const el of board.querySelectorAll<SVGElement>("[data-target]")) {
      const picks = targets.get(el.dataset.target ?? "");
      if (!picks) continue;
      el.classList.add("target");
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "button");
      // The name is the text the target shows, then the moves it offers: a speech-input user says
      // what they see (WCAG 2.5.3). The tooltips of its parts give way to that one name.
      for (const inner of el.querySelectorAll("title")) if (inner.parentNode !== el) inner.remove();
      const shown = [...el.childNodes]
        .filter((node) => node.nodeName !== "title")
        .map((node) => node.textContent ?? "")
        .join("")
        .replace(/\s+/g, " ")
        .trim();
      const moves = picks.map((i) => labels[i]).join("; ");
      el.setAttribute("aria-label", shown ? `${shown}. ${moves}` : moves);
      const pick = (): void => {
        if (picks.length === 1) playMove(v.moves[picks[0]]);
        else {
          filter = picks;
          drawMoves();
          movesBox.querySelector<HTMLButtonElement>("button.move")?.focus();
        }
      };
      el.addEventListener("click", pick);
      el.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          pick();
        }
      });
    }
    boardBox.replaceChildren(board);
    // chance
    chanceBox.replaceChildren();
    if (v.chance && !v.gameOver) {
      chanceBox.append(
        h("p", {}, v.chance.description),
        h(
          "details",
          {},
          h("summary", {}, `Possible outcomes (${v.chance.outcomes.length})`),
          h("ul", {}, ...v.chance.outcomes.map((o) => h("li", {}, `${o.label} (${(o.probability * 100).toFixed(1)}%)`))),
        ),
      );
    }
    // moves
    const drawMoves = (): void => {
      const shown = filter ?? v.moves.map((_, i) => i);
      movesBox.replaceChildren(
        h("h2", {}, v.moves.length ? `Moves (${v.moves.length})` : "Moves"),
        ...(filter
          ? [
              h(
                "button",
                { type: "button", class: "show-all", onclick: () => ((filter = undefined), drawMoves()) },
                `Show all ${v.moves.length} moves`,
              ),
            ]
          : []),
        v.moves.length
          ? h(
              "ul",
              { class: "move-list" },
              ...shown.map((i) =>
                h(
                  "li",
                  {},
                  h(
                    "button",
                    { type: "button", class: `move${v.chance ? " draw" : ""}`, "data-index": i, onclick: () => playMove(v.moves[i]) },
                    labels[i],
                  ),
                ),
              ),
            )
          : h("p", { class: "hint" }, v.gameOver ? "The game is over." : "No move for you now."),
      );
    };
    drawMoves();
    // panel, events, log, undo
    try {
      panelBox.replaceChildren(ui.panel(ctx));
    } catch (err) {
      console.error("panel failed", err);
      panelBox.replaceChildren();
    }
    lastBox.textContent = v.events.join(" ");
    logList.replaceChildren(
      ...v.log.map((e) =>
        h(
          "li",
          { value: e.number },
          h("span", { class: "who" }, e.chance ? "Chance" : nameOf(v.players, e.seat)),
          " ",
          e.events.join(" ") || "(no event)",
        ),
      ),
    );
    logList.lastElementChild?.scrollIntoView?.({ block: "nearest" });
    undo.disabled = !v.canUndo || v.gameOver;
    raw.placeholder = v.moves.length ? JSON.stringify(toJson(MoveSchema, v.moves[0])) : "";
  }

  undo.addEventListener("click", () => void act(() => table.undo()));

  const parseRaw = (): Move | undefined => {
    try {
      return fromJson(MoveSchema, JSON.parse(raw.value) as JsonValue);
    } catch (err) {
      showRefusal({ message: (err as Error).message, reason: "MALFORMED_MOVE" }, "Not a move");
      return undefined;
    }
  };
  rawCheck.addEventListener("click", async () => {
    const move = parseRaw();
    if (!move) return;
    try {
      const found = await table.check(move);
      if (found) showRefusal(found, "Not legal");
      else refusal.replaceChildren(h("strong", {}, "Legal: "), "this move may be played now.");
    } catch (err) {
      showRefusal(refusalOf(err));
    }
  });
  rawPlay.addEventListener("click", () => {
    const move = parseRaw();
    if (move) playMove(move);
  });

  if (table.kind === "session") {
    const session = (table as unknown as { session: string }).session;
    const tokens = rememberedSeats(session);
    if (tokens.length) {
      seatsBox.append(
        h("h2", {}, "Seat links"),
        h("p", { class: "hint" }, "Send each player their seat's link; whoever has a link plays that seat."),
      );
    }
    void describe(table.game).then(() => {
      const names = seatNames(tokens.length);
      if (!tokens.length) return;
      const watch = `${location.origin}/play#${new URLSearchParams({ session }).toString()}`;
      seatsBox.append(
        ...tokens.map((token, seat) => {
          if (!token) {
            return h("div", { class: "seat-link" }, h("span", { class: "who" }, names[seat]), "played by the computer");
          }
          const link = seatLink(session, seat, token);
          const field = h("input", { type: "text", readonly: true, value: link, "aria-label": `Link of ${names[seat]}`, id: `seat-link-${seat}` });
          return h(
            "div",
            { class: "seat-link" },
            h("span", { class: "who" }, names[seat]),
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
            h("a", { href: link, target: "_blank", rel: "noopener" }, "Open"),
          );
        }),
        h(
          "p",
          { class: "seat-link" },
          "To watch without a seat: ",
          h("a", { href: watch, id: "watch-link", target: "_blank", rel: "noopener" }, "spectator link"),
        ),
      );
    });
  }

  root.replaceChildren(
    h("header", { class: "bar" }, title, h("span", { class: "kind" }, table.kind === "local" ? "Hot seat" : "Session"), follow, leaveButton),
    h(
      "main",
      { class: "table" },
      h("div", { class: "left" }, status, refusal, boardBox, chanceBox, lastBox),
      h(
        "div",
        { class: "right" },
        movesBox,
        h("div", { class: "actions" }, undo),
        panelBox,
        h("section", { class: "log-box", "aria-label": "Move log" }, h("h2", {}, "Log"), logList),
        seatsBox,
        h(
          "details",
          { class: "raw" },
          h("summary", {}, "Type a move (JSON)"),
          h("p", { class: "hint" }, "For developers: a Move as proto3 JSON, checked or played as sent."),
          raw,
          h("div", { class: "actions" }, rawCheck, rawPlay),
        ),
      ),
    ),
  );
  try {
    show(await table.load());
  } catch (err) {
    showRefusal(refusalOf(err), "Cannot open the game");
    return;
  }
  table.follow(
    (v) => {
      if (!busy) show(v);
    },
    signal,
    (how) => {
      follow.textContent = how === "live" ? "Live" : how === "polling" ? "Polling" : "Session deleted";
      follow.dataset.mode = how;
    },
  );
}
