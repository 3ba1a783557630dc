/** A game on screen: the board, the moves to tap, the log, and the controls, for any game. */
import { fromJson, type JsonValue, toJson } from "@bufbuild/protobuf";
import {
  type Move,
  MoveSchema,
  ResignAction,
  ResultReason,
  SeatEventKind,
  SeatRole,
  type SeatStatus,
  type SessionResult,
} from "@lawspeaker/client";
import { type LogEntry, type Refusal, type Seats, type Table, type View, describeGame, refusalOf, unreachable } from "./api.js";
import { h, playerName, svg } from "./dom.js";
import { moveOf, stateOf, uiFor } from "./games/index.js";
import type { BoardContext } from "./games/types.js";
import { hostMenu } from "./host.js";
import { rememberedHost, rememberedSeats, seatLink, watchLink } from "./keep.js";
import { rematchBox } from "./rematch.js";
import { SessionTable } from "./tables.js";

/** Seconds on a clock: mm:ss, h:mm:ss under a day, days and hours beyond. */
export function clockText(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds - 1e-3)); // a countdown shows 00:00 only when it is out
  const two = (n: number): string => String(n).padStart(2, "0");
  if (s >= 86400) {
    const days = Math.floor(s / 86400);
    const hours = Math.floor((s % 86400) / 3600);
    return hours ? `${days} d ${hours} h` : `${days} d`;
  }
  if (s >= 3600) return `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return `${two(Math.floor(s / 60))}:${two(s % 60)}`;
}

/** How long ago, in words ("just now", "5 min ago"). */
function ago(ms: number): string {
  const minutes = Math.floor(ms / 60000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 24 ? `${hours} h ago` : `${Math.floor(hours / 24)} d ago`;
}

/** A log entry in words when it is not a move: what happened to the seat. */
const SEAT_EVENTS: Partial<Record<SeatEventKind, string>> = {
  [SeatEventKind.RESIGNED]: "resigned.",
  [SeatEventKind.LEFT_TO_BOT]: "left; the computer plays the seat from now on.",
  [SeatEventKind.FORFEITED_ON_TIME]: "ran out of time and forfeits.",
  [SeatEventKind.HANDED_TO_BOT]: "was handed to the computer by the host.",
  [SeatEventKind.OPENED]: "was opened in the lobby by the host: it waits for a player.",
  [SeatEventKind.CLOSED]: "was taken out of the lobby by the host: it waits for the player the host invites.",
};

function logText(e: LogEntry): Node[] {
  const text = (words: string): Text => document.createTextNode(words);
  if (e.seatEvent === SeatEventKind.CLAIMED) {
    return [text("was taken by "), playerName(e.name ?? "a player"), text(" from the lobby.")];
  }
  if (e.seatEvent === SeatEventKind.TOKEN_REISSUED) {
    const got = text("got a new link from the host");
    return e.name ? [got, text(", for "), playerName(e.name), text(".")] : [got, text(".")];
  }
  if (e.seatEvent) return [text(SEAT_EVENTS[e.seatEvent] ?? e.events.join(" "))];
  const events = text(e.events.join(" ") || "(no event)");
  return e.onTimeout ? [h("span", { class: "timeout" }, "Out of time, the computer moved: "), events] : [events];
}

/** The smallest board text, in CSS px as rendered (issue 39). */
export const MIN_TEXT_PX = 12;
/** How far a board is drawn wider than the screen at most, to make its labels and targets big enough. */
const MAX_ZOOM = 4;

/** The board's texts with their font size (SVG units) and size on screen (CSS px). */
function readable(board: SVGSVGElement): { el: SVGTextElement; size: number; px: number }[] {
  const out: { el: SVGTextElement; size: number; px: number }[] = [];
  for (const el of board.querySelectorAll("text")) {
    if (!el.textContent?.trim()) continue;
    const ctm = el.getScreenCTM();
    const size = Number.parseFloat(getComputedStyle(el).fontSize);
    if (!ctm || !size) continue;
    const px = size * Math.hypot(ctm.a, ctm.b);
    if (px > 0) out.push({ el, size, px });
  }
  return out;
}

/** At most this many draws for one "Draw on" tap (a game's longest run of draws is well under it). */
const MAX_DRAWS = 200;

/** The smallest tap target, in CSS px, both ways (WCAG 2.5.5's 44 px; issue 39). */
export const MIN_TAP_PX = 44;

/**
 * Gives each board target smaller than MIN_TAP_PX an invisible hit area of that size, centred on
 * it, where that area overlaps no other target (nor the hit area of one): a tap there is the
 * target's. Where it would overlap, the target keeps its size (the board's layout must make room).
 * Redrawn for the board's size on screen (a rotated phone).
 */
function growTargets(board: SVGSVGElement, picking: Map<Element, () => void>): void {
  for (const old of board.querySelectorAll(".hit")) {
    picking.delete(old);
    old.remove();
  }
  const targets = [...board.querySelectorAll<SVGGraphicsElement>(".target")];
  const boxes = targets.map((t) => t.getBoundingClientRect());
  if (!boxes.some((b) => b.width > 0)) return; // not laid out (hidden)
  const overlaps = (a: DOMRect, b: DOMRect): boolean =>
    a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1; // 1 px: touching edges do not overlap
  const taken: DOMRect[] = [...boxes];
  targets.forEach((target, i) => {
    const box = boxes[i];
    if (box.width >= MIN_TAP_PX && box.height >= MIN_TAP_PX) return;
    const width = Math.max(box.width, MIN_TAP_PX);
    const height = Math.max(box.height, MIN_TAP_PX);
    const area = new DOMRect(box.x + box.width / 2 - width / 2, box.y + box.height / 2 - height / 2, width, height);
    if (taken.some((other, j) => j !== i && other !== box && overlaps(area, other))) return;
    // the area in the coordinates of the element it is drawn in (the target, or beside a shape)
    const inGroup = target instanceof SVGGElement;
    const space = (inGroup ? target : (target.parentNode as SVGGraphicsElement)).getScreenCTM();
    if (!space) return;
    const to = space.inverse();
    const a = new DOMPoint(area.left, area.top).matrixTransform(to);
    const b = new DOMPoint(area.right, area.bottom).matrixTransform(to);
    const hit = svg("rect", {
      class: "hit",
      x: Math.min(a.x, b.x),
      y: Math.min(a.y, b.y),
      width: Math.abs(b.x - a.x),
      height: Math.abs(b.y - a.y),
      fill: "transparent",
      "aria-hidden": "true",
    });
    if (inGroup) target.append(hit);
    else target.after(hit);
    const pick = picking.get(target);
    if (pick) picking.set(hit, pick);
    taken.push(area);
  });
}

/** How the page follows the game, for the top bar (Table.follow's modes). */
const FOLLOW_MODES: Record<string, string> = {
  live: "Live",
  polling: "Polling",
  deleted: "Session deleted",
  revoked: "Link revoked",
};

/** Plays `table` in `root` until `signal` aborts (the player leaves). */
export async function play(root: HTMLElement, table: Table, signal: AbortSignal, leave: () => void): Promise<void> {
  const { info, data } = await describeGame(table.game);
  const ui = uiFor(table.game);
  const title = h("h1", {}, info.title);
  const status = h("p", { id: "status", class: "status", role: "status", "aria-live": "polite" });
  const follow = h("span", { id: "follow-mode", class: "follow" });
  const refusal = h("div", { id: "refusal", class: "refusal", role: "alert" });
  const boardBox = h("div", { id: "board", class: "board", role: "region", "aria-label": "Board" });
  const chanceBox = h("div", { id: "chance", class: "chance" });
  const movesBox = h("section", { id: "moves", class: "moves", "aria-label": "Your moves" });
  const panelBox = h("section", { id: "panel", class: "panel", "aria-label": "Game details" });
  const lastBox = h("p", { id: "last-events", class: "events" });
  // focusable: a long log scrolls in its box, and the keyboard must reach it (axe: scrollable-region-focusable)
  const logList = h("ol", { id: "log", class: "log", tabindex: 0, "aria-label": "Moves so far" });
  const undo = h("button", { id: "undo", type: "button", disabled: true }, "Undo my last move");
  const seatList = h("ul", { id: "seat-list", class: "seat-list", "aria-label": "Seats" });
  const resultBox = h("section", { id: "result", class: "result", "aria-label": "Result" });
  const resign = h("button", { id: "resign", type: "button", hidden: true }, "Resign…");
  const resignDialog = h(
    "dialog",
    { id: "resign-dialog", "aria-labelledby": "resign-title" },
    h("h2", { id: "resign-title" }, "Give up your seat?"),
    h(
      "p",
      {},
      "Resign: you lose (with more players you are out, and the computer plays your pieces by the rules). ",
      "Leave to a bot: the computer plays on for your seat.",
    ),
    h(
      "div",
      { class: "actions" },
      h("button", { id: "resign-forfeit", type: "button", class: "primary", value: ResignAction.FORFEIT }, "Resign (lose)"),
      h("button", { id: "resign-bot", type: "button", value: ResignAction.BOT }, "Leave to a bot"),
      h("button", { id: "resign-cancel", type: "button", autofocus: true }, "Cancel"),
    ),
  );
  const leaveButton = h("button", { id: "leave", type: "button", onclick: leave }, "Leave");
  const seatsBox = h("section", { id: "seat-links", class: "seats" });
  const raw = h("textarea", { id: "raw-move", rows: 3, spellcheck: false, "aria-label": "Move as JSON" });
  const rawCheck = h("button", { id: "raw-check", type: "button" }, "Check");
  const rawPlay = h("button", { id: "raw-play", type: "button" }, "Play");
  const actionsBox = h("div", { class: "actions" }, undo, resign);
  const rawBox = h(
    "details",
    { class: "raw" },
    h("summary", {}, "Type a move (JSON)"),
    h("p", { class: "hint" }, "For developers: a Move as proto3 JSON, checked or played as sent."),
    raw,
    h("div", { class: "actions" }, rawCheck, rawPlay),
  );
  /** A word from the page (not a refusal): why a tap did nothing, or where its choice is. */
  const showNotice = (words: string): void => {
    refusal.replaceChildren(h("span", { class: "notice" }, words));
    refusal.dataset.kind = "notice";
    refusedAt = current?.log.length;
  };
  let busy = false;
  let filter: number[] | undefined; // the moves a tapped board target names
  let current: View | undefined; // the view shown
  let seats: Seats | undefined; // its seats, or newer ones a presence update gave
  let ticking: (() => void)[] = []; // redraws the running clocks and "last seen" times

  const seatNames = (players: number): string[] => ui.seatNames(players, data);
  const nameOf = (players: number, seat: number | undefined): string =>
    seat === undefined ? "Chance" : (seatNames(players)[seat] ?? `Seat ${seat + 1}`);

  let pannedFor = ""; // the targets the board box was last panned to
  /** The board on screen and its targets' picks (hit areas are redrawn when the board is resized). */
  let drawn: { board: SVGSVGElement; picking: Map<Element, () => void> } | undefined;
  new ResizeObserver(() => {
    if (!drawn) return;
    if (boardBox.clientWidth !== zoom.width) fitBoard(drawn.board); // a rotated phone: fit afresh
    growTargets(drawn.board, drawn.picking);
  }).observe(boardBox);

  /**
   * How far the board is zoomed: the largest factor any state of this game has needed at this
   * width (so the board does not change size from move to move), and whether the player asked to
   * see the whole board instead.
   */
  const zoom = { width: -1, factor: 1, whole: false };
  const zoomButton = h("button", { id: "board-zoom", type: "button", class: "board-zoom", hidden: true });
  zoomButton.addEventListener("click", () => {
    zoom.whole = !zoom.whole;
    if (drawn) {
      fitBoard(drawn.board);
      growTargets(drawn.board, drawn.picking);
    }
  });

  /**
   * Sizes the board so that every label is at least MIN_TEXT_PX and every target MIN_TAP_PX on
   * screen (issue 39): drawn wider than the screen where it must (the board box pans by finger,
   * the page does not move), up to MAX_ZOOM, past which a label too small is drawn at
   * MIN_TEXT_PX. "Whole board" shows it all at the screen's width instead.
   */
  function fitBoard(board: SVGSVGElement): void {
    board.style.width = "";
    const width = boardBox.clientWidth;
    if (width !== zoom.width) {
      zoom.width = width;
      zoom.factor = 1;
    }
    const texts = readable(board);
    const smallestText = Math.min(...texts.map((t) => t.px));
    const smallestTarget = Math.min(
      ...[...board.querySelectorAll(".target")].map((t) => {
        const r = t.getBoundingClientRect();
        return Math.min(r.width, r.height) || Number.POSITIVE_INFINITY;
      }),
    );
    const need = Math.max(1, (MIN_TEXT_PX + 0.2) / smallestText, (MIN_TAP_PX + 0.5) / smallestTarget);
    zoom.factor = Math.min(MAX_ZOOM, Math.max(zoom.factor, Number.isFinite(need) ? need : 1));
    zoomButton.hidden = zoom.factor <= 1.01;
    zoomButton.textContent = zoom.whole ? "Zoom in to read and tap" : "Show the whole board";
    const zoomed = !zoom.whole && zoom.factor > 1.01;
    boardBox.dataset.zoomed = String(zoomed);
    // a box that scrolls is reached by the keyboard too (axe: scrollable-region-focusable)
    if (zoomed) boardBox.setAttribute("tabindex", "0");
    else boardBox.removeAttribute("tabindex");
    if (!zoomed) return;
    board.style.width = `${(zoom.factor * 100).toFixed(1)}%`;
    for (const t of readable(board)) {
      if (t.px < MIN_TEXT_PX) t.el.setAttribute("font-size", String((t.size * (MIN_TEXT_PX + 0.05)) / t.px));
    }
  }

  /** Pans the board box (never the page) to the player's targets when none is in view. */
  function panToTargets(board: SVGSVGElement): void {
    if (boardBox.dataset.zoomed !== "true") return;
    const view = boardBox.getBoundingClientRect();
    const boxes = [...board.querySelectorAll(".target")].map((t) => t.getBoundingClientRect());
    if (!boxes.length) return;
    const seen = boxes.some((b) => b.right > view.left && b.left < view.right && b.bottom > view.top && b.top < view.bottom);
    if (seen) return;
    const left = Math.min(...boxes.map((b) => b.left));
    const top = Math.min(...boxes.map((b) => b.top));
    const right = Math.max(...boxes.map((b) => b.right));
    const bottom = Math.max(...boxes.map((b) => b.bottom));
    boardBox.scrollLeft += (left + right) / 2 - (view.left + view.right) / 2;
    boardBox.scrollTop += (top + bottom) / 2 - (view.top + view.bottom) / 2;
  }

  /** The move log's length when the refusal on screen was shown: the next move clears it. */
  let refusedAt: number | undefined;

  /**
   * Says why not, in the page's seat names: the server's sentence, except where it counts seats
   * from 0 (NOT_YOUR_TURN, whose seats its metadata gives), which the page says in its own words.
   * The server's own sentence and the reason code are behind a toggle, for whoever reports it.
   */
  const showRefusal = (r: Refusal | undefined, prefix = "Refused"): void => {
    refusal.replaceChildren();
    refusedAt = undefined;
    delete refusal.dataset.kind;
    if (!r) return;
    refusedAt = current?.log.length;
    refusal.dataset.kind = "refusal";
    const players = current?.players ?? 0;
    const said = r.reason === "NOT_YOUR_TURN" && r.metadata ? notYourTurnFrom(r.metadata, players) : undefined;
    refusal.append(h("strong", {}, `${prefix}: `), said ?? r.message);
    // the rule's link on the service's own rules page (an absolute URL, or a path over gRPC)
    if (r.rule && /^(https?:\/\/|\/)/.test(r.rule)) {
      const link = h("a", { class: "rule", href: r.rule, target: "_blank", rel: "noopener" }, "the rule");
      refusal.append(" ", h("small", {}, "(see ", link, ")"));
    }
    if (r.reason) {
      refusal.append(
        h(
          "details",
          { class: "why" },
          h("summary", {}, "Details"),
          h("p", {}, ...(said ? [r.message, " "] : []), "Reason: ", h("code", { class: "reason" }, r.reason)),
        ),
      );
    }
  };

  /** A seat that may not act, in the page's names: "Dark may not act now: it is Light's turn." */
  const notYourTurn = (seat: number | undefined, toAct: number[], players: number): string => {
    const who = seat === undefined ? "You" : nameOf(players, seat);
    const acting = toAct.map((s) => nameOf(players, s));
    const turn = acting.length
      ? `it is ${acting.join(" and ")}'s turn`
      : "a chance step comes first (a draw or a throw)";
    return `${who} may not act now: ${turn}.`;
  };
  const notYourTurnFrom = (metadata: Record<string, string>, players: number): string | undefined => {
    const seat = Number(metadata.seat);
    if (!Number.isInteger(seat) || players <= seat) return undefined;
    const toAct = (metadata.toAct ?? "").split(",").filter(Boolean).map(Number);
    return notYourTurn(seat, toAct, players);
  };

  /** A tap on the board that picks no move: the sentence saying why nothing happens. */
  const whyNot = (v: View, tapped: string): string => {
    if (table.kind === "session" && v.seat === undefined) return "You are watching: only the players move.";
    if (v.gameOver) return "The game is over: nothing more is played.";
    if (v.session?.waitingForPlayers) return "The game has not started: it starts when every seat has a player.";
    const left = gone(v, seats);
    if (left) return left === "out" ? "You are out of the game." : "The computer plays your seat now.";
    if (v.moves.length === 0) return notYourTurn(v.seat, v.toAct, v.players);
    if (v.chance) return `First the draw: ${v.chance.description} (the button under Moves).`;
    const what = tapped ? `${tapped}: no move of yours starts there now` : "No move of yours starts there";
    return `${what}. ${whereMoves(v)}`;
  };
  const whereMoves = (v: View): string =>
    `Your ${v.moves.length === 1 ? "move is" : `${v.moves.length} moves are`} on the highlighted places and in the list of moves.`;

  /** The move a tap on `key` most likely means (the game's `attempt`), as the table sends moves. */
  let attempted: (key: string) => Move | undefined = () => undefined;

  /** Asks the server why `move` is not legal and puts its words in place of `said`, unless the
   * page moved on meanwhile (another view, or another answer shown). */
  const explain = async (move: Move, said: string, v: View): Promise<void> => {
    let why: Refusal | undefined;
    try {
      why = await table.check(move);
    } catch {
      return; // the first answer stands
    }
    if (!why || current !== v || refusal.textContent !== said) return;
    showNotice(`${why.message} ${whereMoves(v)}`);
  };

  const act = async (work: () => Promise<View | undefined>): Promise<void> => {
    if (busy) return;
    busy = true;
    root.setAttribute("aria-busy", "true");
    showRefusal(undefined);
    try {
      const shown = await work();
      if (shown) show(shown);
    } catch (err) {
      const why = refusalOf(err);
      try {
        show(await table.load()); // the refusal may be because the game moved on: show it as it is
      } catch {
        // keep the last view; the refusal says what happened
      }
      showRefusal(why); // after the view it was refused against: the next move clears it
    } finally {
      busy = false;
      root.removeAttribute("aria-busy");
    }
  };

  const playMove = (move: Move): void => void act(() => table.play(move));

  /** Draws while the only move is a draw (a chance step), showing each, until a player has a choice. */
  const drawOn = (): void =>
    void act(async () => {
      let view = current;
      for (let i = 0; i < MAX_DRAWS && view?.chance && view.moves.length === 1 && !view.gameOver; i++) {
        view = await table.play(view.moves[0]);
        show(view);
      }
      return view;
    });

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

  /** Whether the viewing seat has left the game: resigned, forfeited, or handed to the computer. */
  const gone = (v: View, s: Seats | undefined): "out" | "bot" | undefined => {
    if (v.seat === undefined || !s) return undefined;
    if (s.statuses[v.seat]?.out) return "out";
    return s.bots.includes(v.seat) ? "bot" : undefined;
  };

  /** The seats with their clocks, who is connected, and who left; redrawn on a view or a presence update. */
  function drawSeats(): void {
    ticking = [];
    const v = current;
    if (!v || !seats) {
      seatList.replaceChildren();
      return;
    }
    const s = seats;
    const names = seatNames(v.players);
    const now = (): number => Date.now() + s.skew; // the server's clock, as the page reckons it
    seatList.replaceChildren(
      ...s.statuses.map((st) => {
        const seat = st.seat;
        const bot = s.bots.includes(seat) && !st.out;
        const waiting = st.role === SeatRole.OPEN || st.role === SeatRole.RESERVED;
        const item = h("li", {
          id: `seat-${seat}`,
          class: "seat",
          "data-acting": !v.gameOver && !v.session?.waitingForPlayers && v.toAct.includes(seat),
          "data-role": bot ? "bot" : (SeatRole[st.role]?.toLowerCase() ?? ""),
        });
        item.append(h("span", { class: "who" }, names[seat] ?? `Seat ${seat + 1}`));
        if (st.displayName && !bot && !waiting) item.append(playerName(st.displayName));
        if (seat === v.seat) item.append(h("span", { class: "you" }, "(you)"));
        const deadline = v.gameOver || !st.deadline ? Number.NaN : Date.parse(st.deadline);
        if (!Number.isNaN(deadline)) {
          const clock = h("span", { class: "clock", role: "timer", "data-running": true });
          const tick = (): void => {
            // never more than the seat had when its clock started: the measured skew errs by the delay
            const left = Math.min(st.timeLeftSeconds ?? Number.POSITIVE_INFINITY, (deadline - now()) / 1000);
            const text = `${clockText(left)} left`;
            if (clock.textContent !== text) clock.textContent = text;
            clock.dataset.left = String(Math.max(0, Math.ceil(left - 1e-3)));
            if (left <= 10) clock.dataset.low = "";
          };
          tick();
          ticking.push(tick);
          item.append(clock);
        } else if (st.timeLeftSeconds !== undefined) {
          const left = String(Math.ceil(st.timeLeftSeconds - 1e-3));
          item.append(h("span", { class: "clock", role: "timer", "data-left": left }, clockText(st.timeLeftSeconds)));
        }
        if (bot) {
          item.append(h("span", { class: "presence bot" }, "played by the computer"));
        } else if (waiting) {
          item.append(
            h("span", { class: "presence waiting" }, "waiting for a player"),
            h(
              "span",
              { class: `mark ${st.role === SeatRole.OPEN ? "open" : "reserved"}` },
              st.role === SeatRole.OPEN ? "open in the lobby" : "invited by the host",
            ),
          );
        } else {
          const words = h("span", {}, st.connected ? "connected" : "away");
          const presence = h(
            "span",
            { class: `presence ${st.connected ? "on" : "away"}` },
            h("span", { class: "dot", "aria-hidden": "true" }),
            words,
          );
          const seen = Date.parse(st.lastSeen);
          if (!st.connected) {
            const tick = (): void => {
              const text = Number.isNaN(seen) ? "away (not seen yet)" : `away, last seen ${ago(now() - seen)}`;
              if (words.textContent !== text) words.textContent = text;
            };
            tick();
            ticking.push(tick);
          }
          item.append(presence);
        }
        if (st.out) item.append(h("span", { class: "mark out" }, "out"));
        if (st.timedOut) item.append(h("span", { class: "mark timed-out" }, "timed out"));
        return item;
      }),
    );
    resign.hidden = !table.resign || v.seat === undefined || v.gameOver || gone(v, s) !== undefined;
  }

  const timer = setInterval(() => {
    for (const tick of ticking) tick();
  }, 250);
  signal.addEventListener("abort", () => clearInterval(timer));

  /** How the session ended, in the game's seat names. */
  function resultWords(r: SessionResult, names: string[]): string {
    const winners = r.winners.map((s) => names[s] ?? `Seat ${s + 1}`);
    const won = winners.length ? `${winners.join(" and ")} ${winners.length > 1 ? "win" : "wins"}.` : "Nobody wins.";
    if (r.reason === ResultReason.RESIGNATION) return `By resignation: ${won}`;
    if (r.reason === ResultReason.TIMEOUT) return `On time: ${won}`;
    return r.summary || won;
  }

  function drawResult(v: View): void {
    const r = v.result;
    if (!r) {
      resultBox.replaceChildren();
      return;
    }
    const names = seatNames(v.players);
    const outs = new Set(v.seats?.statuses.filter((s) => s.out).map((s) => s.seat));
    const ranking = r.ranking.map((p) =>
      h(
        "li",
        { value: p.place },
        h("span", { class: "who" }, names[p.seat] ?? `Seat ${p.seat + 1}`),
        r.winners.includes(p.seat) ? ": won" : outs.has(p.seat) ? ": left the game" : "",
      ),
    );
    resultBox.replaceChildren(
      h("h2", {}, "Result"),
      h("p", { id: "result-summary" }, v.outcome?.summary ?? resultWords(r, names)),
      ...(ranking.length ? [h("ol", { id: "ranking", class: "ranking" }, ...ranking)] : []),
    );
  }

  function show(v: View): void {
    filter = undefined;
    current = v;
    if (refusedAt !== undefined && v.log.length !== refusedAt) showRefusal(undefined); // a move since
    seats = v.seats;
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
    const left = gone(v, v.seats);
    if (v.gameOver) {
      const how = v.outcome?.summary ?? (v.result ? resultWords(v.result, names) : "");
      status.textContent = `Game over. ${how}`;
      status.dataset.state = "over";
    } else if (v.session?.waitingForPlayers) {
      const empty = (v.seats?.statuses ?? [])
        .filter((st) => st.role === SeatRole.OPEN || st.role === SeatRole.RESERVED)
        .map((st) => names[st.seat] ?? `Seat ${st.seat + 1}`);
      status.textContent =
        `${me ? `You are ${me}. ` : ""}Waiting for players` +
        `${empty.length ? ` (nobody plays ${empty.join(", ")} yet)` : ""}: ` +
        "the game starts when every seat has a player.";
      status.dataset.state = "players";
    } else if (left) {
      const why = left === "out" ? "you are out of the game" : "the computer plays your seat";
      status.textContent = `${me}: ${why}. Waiting for ${waitingFor}`;
      status.dataset.state = "waiting";
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
    attempted = (key) => {
      const meant = key && ui.attempt ? ui.attempt(key, ctx) : undefined;
      const like = v.moves[0];
      if (meant === undefined || !like) return undefined;
      return { ...like, game: { case: like.game.case, value: meant } } as Move; // the same game's move
    };
    const picking = new Map<Element, () => void>(); // each target's pick, for a tap beside it
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
          // the choice is under Moves; focus goes there without scrolling the board away
          movesBox.querySelector<HTMLButtonElement>("button.move")?.focus({ preventScroll: true });
          showNotice(`${picks.length} moves start there: pick one under Moves.`);
        }
      };
      picking.set(el, pick);
      el.addEventListener("click", pick);
      el.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          pick();
        }
      });
    }
    // A tap that picks no target still answers. A label or a badge drawn over a target (Pax
    // Penning's stone chips on Sigtuna) passes the tap to the target under it; elsewhere the page
    // says why nothing happens.
    board.addEventListener("click", (event) => {
      const at = event.target as Element;
      if (at.closest(".target")) return; // the target's own listener has it
      const under = document.elementsFromPoint(event.clientX, event.clientY);
      const hit = under.map((e) => e.closest(".target, .hit")).find((e) => e !== null && picking.has(e));
      if (hit) {
        picking.get(hit)?.();
        return;
      }
      const named = at.closest<SVGElement>("[data-target]");
      const tapped = named?.querySelector(":scope > title")?.textContent?.trim() ?? "";
      const said = whyNot(v, tapped);
      showNotice(said);
      // The move the tap most likely means, checked by the server: its refusal says why not in the
      // rules' words ("Dark ship 3 cannot move: ..."). Only when it is the viewer's turn to choose.
      const meant = named && v.moves.length > 0 && !v.chance ? attempted(named.dataset.target ?? "") : undefined;
      if (meant) void explain(meant, said, v);
    });
    boardBox.replaceChildren(board);
    drawn = { board, picking };
    fitBoard(board);
    growTargets(board, picking);
    const offered = [...targets.keys()].sort().join(" ");
    if (offered !== pannedFor) {
      pannedFor = offered;
      panToTargets(board);
    }
    // chance
    chanceBox.replaceChildren();
    if (v.chance && !v.gameOver && !v.session?.waitingForPlayers) {
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
        // a run of draws nobody decides (Birka's deal, Penki's pairs from the bag, Pax Penning's
        // setup): one tap draws on until a player has a choice (each draw is still its own move)
        ...(v.chance && v.moves.length === 1 && !filter && !v.gameOver
          ? [h("button", { type: "button", id: "draw-on", class: "draw-on", onclick: drawOn }, "Draw on until someone chooses")]
          : []),
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
          ...logText(e),
        ),
      ),
    );
    // the log's own box follows its end; the page itself never scrolls by itself
    logList.scrollTop = logList.scrollHeight;
    undo.disabled = !v.canUndo || v.gameOver;
    const watching = table.kind === "session" && v.seat === undefined;
    for (const control of [movesBox, actionsBox, rawBox]) control.hidden = watching;
    drawSeats();
    drawResult(v);
    drawLinks(v, v.seats);
    host?.update(v, v.seats, seatNames(v.players));
    rematch?.update(v, v.seats, seatNames(v.players));
    raw.placeholder = v.moves.length ? JSON.stringify(toJson(MoveSchema, v.moves[0])) : "";
  }

  undo.addEventListener("click", () => void act(() => table.undo()));
  resign.addEventListener("click", () => resignDialog.showModal());
  resignDialog.addEventListener("click", (event) => {
    const button = (event.target as Element).closest("button");
    if (!button) return;
    resignDialog.close();
    const resigning = table.resign?.bind(table);
    if (button.value && resigning) void act(() => resigning(Number(button.value) as ResignAction));
  });

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

  const sessionTable = table instanceof SessionTable ? table : undefined;
  const hostToken = sessionTable ? rememberedHost(sessionTable.session) : "";
  const refused = (r: Refusal): void => showRefusal(r);
  const host =
    sessionTable && hostToken
      ? hostMenu(sessionTable.session, hostToken, { act, load: () => table.load(), refused, leave })
      : undefined;
  const rematch = sessionTable ? rematchBox(sessionTable, hostToken, { act, refused }) : undefined;
  let linksDrawn = ""; // what the seat links were drawn from: they are redrawn only when it changes

  /** The links of the seats whose tokens this tab keeps (it created the session), and who plays the others. */
  function drawLinks(v: View, s: Seats | undefined): void {
    if (!sessionTable || !s) return;
    const session = sessionTable.session;
    const tokens = rememberedSeats(session);
    if (!tokens.length && !hostToken) return;
    const drawnFrom = JSON.stringify([tokens, s.bots, s.statuses.map((st) => [st.role, st.displayName, st.out])]);
    if (drawnFrom === linksDrawn) return;
    linksDrawn = drawnFrom;
    const names = seatNames(v.players);
    const bots = new Set(s.bots);
    const row = (st: SeatStatus): HTMLElement => {
      const seat = st.seat;
      const who = h("span", { class: "who" }, names[seat] ?? `Seat ${seat + 1}`);
      const token = tokens[seat] ?? "";
      if (bots.has(seat) || st.role === SeatRole.BOT) return h("div", { class: "seat-link" }, who, "played by the computer");
      if (st.role === SeatRole.OPEN) {
        const lobby = `#lobby&${new URLSearchParams({ game: table.game }).toString()}`;
        const listed = h("a", { href: lobby }, "open games");
        return h("div", { class: "seat-link" }, who, "open in the lobby, waiting for a player (", listed, ")");
      }
      if (st.role === SeatRole.RESERVED) {
        return h("div", { class: "seat-link" }, who, "waiting for the link the host sends");
      }
      if (!token) {
        return h(
          "div",
          { class: "seat-link" },
          who,
          st.displayName ? playerName(st.displayName) : null,
          "plays with a link of their own",
        );
      }
      const link = seatLink(session, seat, token);
      const field = h("input", { type: "text", readonly: true, value: link, "aria-label": `Link of ${names[seat]}`, id: `seat-link-${seat}` });
      return h(
        "div",
        { class: "seat-link" },
        who,
        st.displayName ? playerName(st.displayName) : null,
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
    };
    seatsBox.replaceChildren(
      h("h2", {}, "Seat links"),
      h("p", { class: "hint" }, "Send each player their seat's link; whoever has a link plays that seat."),
      ...s.statuses.map(row),
      h(
        "p",
        { class: "seat-link" },
        "To watch without a seat: ",
        h("a", { href: watchLink(session), id: "watch-link", target: "_blank", rel: "noopener" }, "spectator link"),
      ),
    );
  }

  root.replaceChildren(
    h("header", { class: "bar" }, title, h("span", { class: "kind" }, table.kind === "local" ? "Hot seat" : "Session"), follow, leaveButton),
    h(
      "main",
      { class: "table" },
      h("div", { class: "left" }, status, seatList, resultBox, rematch?.element, refusal, zoomButton, boardBox, chanceBox, lastBox),
      h(
        "div",
        { class: "right" },
        movesBox,
        actionsBox,
        panelBox,
        h("section", { class: "log-box", "aria-label": "Move log" }, h("h2", {}, "Log"), logList),
        seatsBox,
        host?.element,
        rawBox,
      ),
    ),
    resignDialog,
    ...(host?.dialogs ?? []),
  );
  try {
    show(await table.load());
  } catch (err) {
    if (unreachable(err)) throw err; // the page says the server cannot be reached (main.ts)
    showRefusal(refusalOf(err), "Cannot open the game");
    return;
  }
  table.follow(
    (v) => {
      if (!busy) show(v);
    },
    signal,
    (how) => {
      follow.textContent = FOLLOW_MODES[how] ?? how;
      follow.dataset.mode = how;
      if (how === "deleted" || how === "revoked") {
        status.textContent =
          how === "deleted"
            ? "This game was deleted: there is nothing more to play here."
            : "This seat's link no longer works: the host gave the seat to another player or to the computer. " +
              "Ask the host for a new link.";
        status.dataset.state = how;
        movesBox.replaceChildren();
        resign.hidden = true;
        undo.disabled = true;
      }
    },
    (s) => {
      seats = s;
      drawSeats();
    },
  );
}
