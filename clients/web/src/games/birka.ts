/**
 * The drawing of Birka: the calendar with its dice and card, Birka Köpingen (the Market and the
 * Outlaw Trader), the buildings of Birka Gärdet and Tunet, and every player's Byn (Visthus, Skepp,
 * Resource Plots). Everything fixed (names, prices, plots) comes from DescribeGame's data, so a
 * replacement data set draws correctly too.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { BirkaFeeding, BirkaPhase } from "@lawspeaker/client";
import type { BirkaMove, BirkaSeat, BirkaState } from "@lawspeaker/client";
import { h, SEAT_COLOURS, SEAT_INK, svg, title } from "../dom.js";
import type { BoardContext, GameUI } from "./types.js";

type Ctx = BoardContext<BirkaState, BirkaMove>;

// ---------------------------------------------------------------------------------------------
// The data, read once per DescribeGame data object.

interface Resource { id: string; name: string; raw: boolean; abbr: string }
type Counts = Array<[number, number]>; // (resource index, count)
interface Building {
  id: string; name: string; board: string; owned: boolean;
  price: Counts; payment: Counts; usePrice: Counts;
  craftIn: Counts; craftOut: number; sells: string; mjod: boolean;
}
interface Card { id: string; name: string; text: string; points: number; condition: JsonObject }
interface CalendarCard { id: string; name: string; text: string; effects: JsonObject[] }
interface Data {
  res: Resource[]; rawCount: number; dieFaces: number[];
  plots: number[]; plotStart: number[]; slotsPerPlot: number;
  goods: Array<{ id: string; name: string }>;
  buildings: Building[];
  runestones: Card[]; calendar: CalendarCard[]; turnsPerRound: number;
  visthusSlots: number; extensionSlots: number; extensionPrice: Counts;
  skeppMax: number; skeppPrice: Counts;
  rationFood: number[]; rationFoodCount: number; rationBread: number; rationBreadCount: number;
  rawSlots: number; craftedSlots: number; outlawUnit: [number, number]; outlawPrice: [number, number];
  supply: [number, number];
}

const obj = (v: JsonValue | undefined): JsonObject =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
const arr = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);
const str = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");
const num = (v: JsonValue | undefined, dflt = 0): number => (typeof v === "number" ? v : dflt);

const cache = new WeakMap<JsonObject, Data>();

function readData(data: JsonObject): Data {
  const hit = cache.get(data);
  if (hit) return hit;
  const resources = obj(data.resources);
  const raw = arr(resources.raw).map(obj);
  const crafted = arr(resources.crafted).map(obj);
  const res: Resource[] = [...raw, ...crafted].map((r, i) => ({
    id: str(r.id), name: str(r.name), raw: i < raw.length, abbr: "",
  }));
  // Two-letter abbreviations for tokens; on a clash the first and last letters.
  const used = new Set<string>();
  for (const r of res) {
    let a = r.name.slice(0, 2);
    if (used.has(a)) a = r.name[0] + r.name[r.name.length - 1];
    used.add(a);
    r.abbr = a;
  }
  const resIndex = (id: string): number => res.findIndex((r) => r.id === id);
  const counts = (v: JsonValue | undefined): Counts =>
    Object.entries(obj(v))
      .map(([k, n]): [number, number] => [resIndex(k), num(n)])
      .filter(([i, n]) => i >= 0 && n > 0)
      .sort((a, b) => a[0] - b[0]);
  const byn = obj(data.byn);
  const birka = obj(data.birka);
  const market = obj(birka.market);
  const outlaw = obj(birka.outlaw);
  const rations = obj(byn.rations);
  const calendar = obj(data.calendar);
  const runestones = obj(data.runestones);
  const indices = obj(data.indices);
  const supply = obj(resources.supply);
  const out: Data = {
    res,
    rawCount: raw.length,
    dieFaces: arr(resources.die_faces).map((f) => resIndex(str(f))),
    plots: arr(byn.plots).map((p) => resIndex(str(obj(p).resource))),
    plotStart: arr(byn.plots).map((p) => num(obj(p).start_token)),
    slotsPerPlot: num(indices.slots_per_plot, 4),
    goods: arr(byn.upgrades).map((g) => ({ id: str(obj(g).id), name: str(obj(g).name) })),
    buildings: arr(birka.buildings).map((v) => {
      const b = obj(v);
      const craft = obj(b.craft);
      return {
        id: str(b.id), name: str(b.name), board: str(b.board), owned: b.owned === true,
        price: counts(b.price), payment: counts(b.payment), usePrice: counts(b.use_price),
        craftIn: counts(craft.input), craftOut: craft.output ? resIndex(str(craft.output)) : -1,
        sells: str(b.sells), mjod: b.mjodhallen === true,
      };
    }),
    runestones: arr(runestones.cards).map((v) => {
      const c = obj(v);
      return { id: str(c.id), name: str(c.name), text: str(c.text), points: num(c.points), condition: obj(c.condition) };
    }),
    calendar: arr(calendar.cards).map((v) => {
      const c = obj(v);
      return { id: str(c.id), name: str(c.name), text: str(c.text), effects: arr(c.effects).map(obj) };
    }),
    turnsPerRound: num(calendar.turns_per_round, 12),
    visthusSlots: num(byn.visthus_slots, 8),
    extensionSlots: num(obj(byn.extension).slots, 4),
    extensionPrice: counts(obj(byn.extension).price),
    skeppMax: num(obj(byn.skepp).max, 4),
    skeppPrice: counts(obj(byn.skepp).price),
    rationFood: arr(rations.food).map((f) => resIndex(str(f))),
    rationFoodCount: num(rations.food_count, 3),
    rationBread: resIndex(str(rations.bread)),
    rationBreadCount: num(rations.bread_count, 1),
    rawSlots: num(market.raw_slots, 5),
    craftedSlots: num(market.crafted_slots, 3),
    outlawUnit: [num(obj(outlaw.unit).raw, 2), num(obj(outlaw.unit).crafted, 1)],
    outlawPrice: [num(obj(outlaw.price).raw, 1), num(obj(outlaw.price).crafted, 2)],
    supply: [num(supply.raw, 30), num(supply.crafted, 20)],
  };
  cache.set(data, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rules the drawing needs to put prices and effects into words.

/** The Calendar Card in effect, if any. */
function currentCard(d: Data, s: BirkaState): CalendarCard | undefined {
  return s.card >= 0 ? d.calendar[s.card] : undefined;
}

function hasEffect(d: Data, s: BirkaState, kind: string): boolean {
  return currentCard(d, s)?.effects.some((e) => str(e.kind) === kind) ?? false;
}

/** A price with the current card's PRICE effects on `item` applied (as the engine does). */
function priced(d: Data, s: BirkaState, item: string, base: Counts): Counts {
  const m = new Map(base);
  for (const e of currentCard(d, s)?.effects ?? []) {
    if (str(e.kind) !== "PRICE" || str(e.item) !== item) continue;
    const r = d.res.findIndex((x) => x.id === str(e.resource));
    if (r >= 0) m.set(r, Math.max(0, (m.get(r) ?? 0) + num(e.amount)));
  }
  return [...m.entries()].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);
}

/** What `seat` pays to use building `b`: its price plus the owner's payment when someone else owns it. */
function usePrice(d: Data, s: BirkaState, b: number, seat: number, base: Counts): Counts {
  const owner = s.owners[b] ?? -1;
  if (owner < 0 || owner === seat) return base;
  const m = new Map(base);
  for (const [r, n] of d.buildings[b].payment) m.set(r, (m.get(r) ?? 0) + n);
  return [...m.entries()].sort((a, c) => a[0] - c[0]);
}

/**
 * This round's Ration: [Korn/Fisk count, Bröd count]. A RATION card (Hård vinter) sets the Rations
 * of the round it was revealed in, even once a later card replaced it.
 */
function rationCost(d: Data, s: BirkaState): [number, number] {
  let cost: [number, number] = [d.rationFoodCount, d.rationBreadCount];
  for (const c of s.roundCards) {
    const e = d.calendar[c]?.effects.find((x) => str(x.kind) === "RATION");
    if (e) cost = [num(e.food_count, d.rationFoodCount), num(e.bread_count, d.rationBreadCount)];
  }
  return cost;
}

const countsText = (d: Data, c: Counts): string => c.map(([r, n]) => `${n} ${d.res[r]?.name ?? "?"}`).join(", ");

function capacity(d: Data, seat: BirkaSeat): number {
  return d.visthusSlots + (seat.extension ? d.extensionSlots : 0);
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

/** A seat's name as the shell shows it. */
function seatName(ctx: Ctx, seat: number): string {
  return ctx.seatNames[seat] ?? `Player ${seat + 1}`;
}

/** The seat a move is made by: the state's actor, or the viewing seat. */
function actorOf(ctx: Ctx): number {
  return ctx.state.actor >= 0 ? ctx.state.actor : (ctx.seat ?? ctx.toAct[0] ?? 0);
}

/**
 * Whether the viewer may see `seat`'s secret cards: their own, or everyone's once the game is over.
 * (A local hot-seat state holds every hand; a session's view has the others' hidden already.)
 */
function maySee(ctx: Ctx, seat: number): boolean {
  return seat === ctx.seat || ctx.state.phase === BirkaPhase.OVER;
}

/** A Runestone Card that can no longer be completed: its building is owned by another player. */
function blocked(d: Data, s: BirkaState, card: number, seat: number): boolean {
  const cond = d.runestones[card]?.condition;
  if (!cond || str(cond.kind) !== "BUILD") return false;
  const b = d.buildings.findIndex((x) => x.id === str(cond.building));
  const owner = b >= 0 ? (s.owners[b] ?? -1) : -1;
  return owner >= 0 && owner !== seat;
}

// ---------------------------------------------------------------------------------------------
// Drawing helpers.

const RES_COLOURS: Record<string, string> = {
  FISK: "#5b8fb9", KORN: "#e2b93b", LERA: "#b5653a", MALM: "#80848c", ULL: "#efe9d8", VIRKE: "#7a5230",
  TRAN: "#d9a441", BROD: "#c7874a", KERAMIK: "#9c3f2a", JARN: "#4a4f57", VADMAL: "#8d9c6a", TRAKOL: "#26221f",
};
const FALLBACK = ["#6a8caf", "#b0a060", "#a06a50", "#7a7a7a", "#d8d0c0", "#705040"];

function resColour(d: Data, r: number): string {
  const res = d.res[r];
  return (res && RES_COLOURS[res.id]) ?? FALLBACK[r % FALLBACK.length];
}

/** Black or white ink, whichever reads on `hex`. */
function inkOn(hex: string): string {
  const n = parseInt(hex.slice(1), 16);
  const lum = 0.299 * ((n >> 16) & 255) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255);
  return lum > 150 ? "#1b1b1b" : "#ffffff";
}

const FONT = "system-ui, sans-serif";

function text(x: number, y: number, s: string, size: number, extra: Record<string, string | number> = {}): SVGTextElement {
  return svg("text", { x, y, "font-size": size, "font-family": FONT, fill: "#1f2328", ...extra }, s);
}

/**
 * A resource token: Raw Resources are squares, Crafted ones circles (so shape, not only colour,
 * tells them apart), with the two-letter abbreviation.
 */
function token(d: Data, r: number, x: number, y: number, size: number): SVGGElement {
  const fill = resColour(d, r);
  const raw = d.res[r]?.raw ?? true;
  const shape = raw
    ? svg("rect", { x, y, width: size, height: size, rx: size * 0.12, fill, stroke: "#2a2a2a", "stroke-width": 1.5 })
    : svg("circle", { cx: x + size / 2, cy: y + size / 2, r: size / 2, fill, stroke: "#2a2a2a", "stroke-width": 1.5 });
  return svg(
    "g",
    { "pointer-events": "none" },
    shape,
    text(x + size / 2, y + size * 0.7, d.res[r]?.abbr ?? "?", size * 0.52, {
      "text-anchor": "middle", fill: inkOn(fill), "font-weight": 700,
    }),
  );
}

/** A row of "2 [Vi] 1 [Ul]" tokens, returning the group and its width. */
function countsRow(d: Data, c: Counts, x: number, y: number, size: number): SVGGElement {
  const g = svg("g", {});
  let cx = x;
  for (const [r, n] of c) {
    g.append(text(cx, y + size * 0.75, String(n), size * 0.8, { "font-weight": 600 }));
    cx += size * 0.5;
    g.append(token(d, r, cx, y, size));
    cx += size + 4;
  }
  return g;
}

const PIPS: Record<number, Array<[number, number]>> = {
  1: [[0.5, 0.5]],
  2: [[0.27, 0.27], [0.73, 0.73]],
  3: [[0.25, 0.25], [0.5, 0.5], [0.75, 0.75]],
  4: [[0.27, 0.27], [0.73, 0.27], [0.27, 0.73], [0.73, 0.73]],
  5: [[0.25, 0.25], [0.75, 0.25], [0.5, 0.5], [0.25, 0.75], [0.75, 0.75]],
  6: [[0.27, 0.22], [0.73, 0.22], [0.27, 0.5], [0.73, 0.5], [0.27, 0.78], [0.73, 0.78]],
};

/** A die showing `value` (0: not rolled, a dashed empty square). */
function die(x: number, y: number, size: number, value: number, fill: string): SVGGElement {
  const g = svg(
    "g",
    {},
    svg("rect", {
      x, y, width: size, height: size, rx: size * 0.16, fill: value ? fill : "#ffffff",
      stroke: "#333", "stroke-width": 2, "stroke-dasharray": value ? "none" : "5 4",
    }),
  );
  for (const [px, py] of PIPS[value] ?? []) {
    g.append(svg("circle", { cx: x + px * size, cy: y + py * size, r: size * 0.085, fill: "#1b1b1b" }));
  }
  return g;
}

/** A seat's badge: a circle in its colour with its number (colour is not the only cue). */
function badge(seat: number, cx: number, cy: number, r: number): SVGGElement {
  return svg(
    "g",
    { "pointer-events": "none" },
    svg("circle", { cx, cy, r, fill: SEAT_COLOURS[seat] ?? "#999", stroke: "#111", "stroke-width": 2 }),
    text(cx, cy + r * 0.42, String(seat + 1), r * 1.2, { "text-anchor": "middle", fill: SEAT_INK[seat] ?? "#fff", "font-weight": 700 }),
  );
}

/** A tappable group: background shape first (the shell outlines a target's first child), then its title. */
function target(key: string, label: string, bg: SVGElement, ...children: SVGElement[]): SVGGElement {
  return svg("g", { "data-target": key }, bg, title(label), ...children);
}

/** Text wrapped to lines of about `chars` characters. */
function wrap(s: string, chars: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of s.split(/\s+/)) {
    if (line && line.length + 1 + word.length > chars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

// ---------------------------------------------------------------------------------------------
// The board's sections. Every section is 800 units wide; `board` stacks them in one column (narrow
// screens) or two (wide screens).

const W = 800;

function calendarSection(ctx: Ctx, d: Data): [SVGGElement, number] {
  const s = ctx.state;
  const g = svg("g", {});
  const rounds = s.options?.calendarRounds || 5;
  const started = s.phase !== BirkaPhase.SETUP_DEAL && s.phase !== BirkaPhase.SETUP_START;
  g.append(text(10, 28, started ? `Calendar Round ${s.round} of ${rounds} · Turn ${s.turn} of ${d.turnsPerRound}` : "Setup", 24, { "font-weight": 700 }));
  // The dice: the yellow one stays on the first Dice Slot all round; the grey one is this Turn's.
  const rollingYellow = s.turn <= 1;
  const grey = s.turn > 1 ? s.die : 0;
  const diceBg = svg("rect", { x: 4, y: 40, width: 200, height: 112, rx: 10, fill: "#f6f1e3", stroke: "#b9ab85", "stroke-width": 1.5 });
  const face = (v: number): string => (v ? (d.res[d.dieFaces[v - 1]]?.name ?? "") : "–");
  const dice = target(
    "dice",
    `The dice: yellow ${s.yellow ? `${s.yellow} (${face(s.yellow)})` : "not rolled"}, grey ${grey ? `${grey} (${face(grey)})` : "not rolled"}${s.phase === BirkaPhase.ROLL ? `; the ${rollingYellow ? "yellow" : "grey"} die is rolled next` : ""}`,
    diceBg,
    die(18, 50, 64, s.yellow, "#f3c623"),
    die(114, 50, 64, grey, "#b8bcc4"),
    text(50, 142, face(s.yellow), 22, { "text-anchor": "middle" }),
    text(146, 142, face(grey), 22, { "text-anchor": "middle" }),
  );
  g.append(dice);
  const card = currentCard(d, s);
  // The card's whole text, its box as tall as the text needs (never cut off).
  const lines = card ? wrap(card.text, 48) : ["No Calendar Card revealed yet"];
  const cardH = Math.max(112, 66 + lines.length * 22);
  const cardBg = svg("rect", { x: 214, y: 40, width: W - 220, height: cardH, rx: 10, fill: card ? "#fffaf0" : "#ffffff", stroke: "#8a6d3b", "stroke-width": 2, "stroke-dasharray": card ? "none" : "6 4" });
  const cardG = target(
    "calendar",
    card ? `Calendar Card: ${card.name}. ${card.text}` : "Reveal the next Calendar Card",
    cardBg,
    text(226, 68, card ? card.name : "Calendar Card", 22, { "font-weight": 700 }),
    text(W - 14, 68, `${s.calendar.length} left`, 17, { "text-anchor": "end", fill: "#5b4a2a" }),
    ...lines.map((l, i) => text(226, 94 + i * 22, l, 20)),
  );
  g.append(cardG);
  return [g, 40 + cardH + 8];
}

function marketSection(ctx: Ctx, d: Data): [SVGGElement, number] {
  const s = ctx.state;
  const g = svg("g", {});
  const closed = hasEffect(d, s, "MARKET_CLOSED");
  g.append(text(10, 26, "Birka Köpingen · Market", 24, { "font-weight": 700 }));
  if (closed) g.append(text(W - 10, 26, `closed (${currentCard(d, s)?.name ?? ""})`, 20, { "text-anchor": "end", fill: "#b42318", "font-weight": 700 }));
  const rowH = 38;
  d.res.forEach((r, i) => {
    const col = r.raw ? 0 : 1;
    const row = r.raw ? i : i - d.rawCount;
    const x = col * 400 + 4;
    const y = 36 + row * rowH;
    const slots = r.raw ? d.rawSlots : d.craftedSlots;
    const have = s.market[i] ?? 0;
    const bg = svg("rect", { x, y, width: 392, height: rowH - 4, rx: 6, fill: closed ? "#eeeeee" : "#f7f4ec", stroke: "#d8cfb8", "stroke-width": 1 });
    const parts: SVGElement[] = [text(x + 8, y + 26, r.name, 22)];
    for (let k = 0; k < slots; k++) {
      const sx = x + 112 + k * 44;
      parts.push(k < have ? token(d, i, sx + 2, y + 2, 30) : svg("rect", { x: sx + 2, y: y + 2, width: 30, height: 30, rx: 4, fill: "none", stroke: "#c5bba3", "stroke-dasharray": "3 3" }));
    }
    parts.push(text(x + 384, y + 24, `${have}/${slots}`, 16, { "text-anchor": "end", fill: "#6b6250" }));
    g.append(target(`market:${i}`, `Market row of ${r.name}: ${have} of ${slots}`, bg, ...parts));
  });
  const rows = Math.max(d.rawCount, d.res.length - d.rawCount);
  return [g, 40 + rows * rowH];
}

function outlawSection(ctx: Ctx, d: Data): [SVGGElement, number] {
  const s = ctx.state;
  const g = svg("g", {});
  const closed = hasEffect(d, s, "OUTLAW_CLOSED");
  g.append(text(10, 24, "The Outlaw Trader", 24, { "font-weight": 700 }));
  g.append(
    closed
      ? text(W - 10, 24, `closed (${currentCard(d, s)?.name ?? ""})`, 20, { "text-anchor": "end", fill: "#b42318", "font-weight": 700 })
      : text(W - 10, 24, `unit = ${d.outlawUnit[0]} Raw or ${d.outlawUnit[1]} Crafted · Raw ${d.outlawPrice[0]}, Crafted ${d.outlawPrice[1]} units`, 16, { "text-anchor": "end", fill: "#444" }),
  );
  const cw = W / d.res.length;
  d.res.forEach((r, i) => {
    const x = i * cw;
    const bg = svg("rect", { x: x + 2, y: 34, width: cw - 4, height: 50, rx: 6, fill: closed ? "#eeeeee" : "#f3efe6", stroke: "#cfc6ad", "stroke-width": 1 });
    g.append(target(`outlaw:${i}`, `Buy ${r.name} from the Outlaw Trader`, bg, token(d, i, x + cw / 2 - 18, 41, 36)));
  });
  return [g, 92];
}

/** The height (before scaling by `k`) a building card's rows need, as `buildingCard` lays them out,
 * with room for the owner's badge or "always open" under them. */
function cardContent(bd: Data["buildings"][number]): number {
  let line = 34;
  if (bd.craftIn.length) line += 28;
  else if (bd.sells) line += 26 + 28;
  if (bd.owned) line += 28; // its price, while it is not built
  if (bd.payment.length) line += 28;
  if (bd.mjod) line += 30;
  return line + 30;
}

/** One building's card; `k` scales its contents (roomy cards on wide screens, compact on phones). */
function buildingCard(ctx: Ctx, d: Data, b: number, x: number, y: number, w: number, hgt: number, k: number): SVGGElement {
  const s = ctx.state;
  const bd = d.buildings[b];
  const owner = s.owners[b] ?? -1;
  const bg = svg("rect", {
    x, y, width: w, height: hgt, rx: 8,
    fill: owner >= 0 ? "#fbf7ea" : bd.owned ? "#f0f0ee" : "#eef4ea",
    stroke: owner >= 0 ? (SEAT_COLOURS[owner] === "#f2efe6" ? "#777" : SEAT_COLOURS[owner]) : "#9a917c",
    "stroke-width": owner >= 0 ? 4 : 1.5,
  });
  const parts: SVGElement[] = [text(x + 6, y + 24 * k, bd.name, (w < 140 ? 17 : 19) * k, { "font-weight": 700 })];
  let line = y + 34 * k;
  const row = (label: string, c: Counts): void => {
    parts.push(text(x + 5, line + 16 * k, label, 13 * k, { fill: "#555" }));
    parts.push(countsRow(d, c, x + 44 * k, line, 20 * k));
    line += 28 * k;
  };
  if (bd.craftIn.length) {
    parts.push(
      countsRow(d, bd.craftIn, x + 8, line, 22 * k),
      text(x + 70 * k, line + 18 * k, "→", 20 * k),
      token(d, bd.craftOut, x + 92 * k, line, 22 * k),
    );
    line += 28 * k;
  } else if (bd.sells) {
    const good = bd.sells === "RUNESTONE" ? "Runestone" : (d.goods.find((gd) => gd.id === bd.sells)?.name ?? bd.sells);
    parts.push(text(x + 6, line + 19 * k, `sells ${good}`, (w < 170 ? 15 : 16) * k, { fill: "#333", "font-weight": 600 }));
    line += 26 * k;
    row("buy", priced(d, s, bd.sells, bd.usePrice));
  }
  if (bd.owned && owner < 0) row("build", priced(d, s, bd.id, bd.price));
  if (bd.payment.length) row("fee", bd.payment);
  if (bd.mjod) {
    parts.push(text(x + 5, line + 19 * k, "token", 15 * k, { fill: "#555" }));
    parts.push(die(x + 56 * k, line, 26 * k, s.mjodToken, "#ffffff"));
  }
  if (owner >= 0) {
    parts.push(badge(owner, x + w - 20 * k, y + hgt - 20 * k, 14 * k));
  } else if (!bd.owned) {
    parts.push(text(x + w - 8, y + hgt - 10, "always open", 14 * k, { "text-anchor": "end", fill: "#3d6b35" }));
  }
  const who = owner >= 0 ? `owned by ${seatName(ctx, owner)}` : bd.owned ? "not built yet" : "always open";
  return target(`building:${b}`, `${bd.name} (${who})`, bg, ...parts);
}

/** Birka Gärdet and Tunet, `perRow` cards a row (all in one row when 0). */
function buildingsSection(ctx: Ctx, d: Data, perRow: number): [SVGGElement, number] {
  const g = svg("g", {});
  const boards: Array<[string, string]> = [["GARDET", "Birka Gärdet"], ["TUNET", "Birka Tunet"]];
  let y = 0;
  for (const [id, name] of boards) {
    const list = d.buildings.map((b, i) => (b.board === id ? i : -1)).filter((i) => i >= 0);
    if (!list.length) continue;
    const cols = perRow > 0 ? Math.min(perRow, list.length) : list.length;
    const w = W / cols;
    // Contents grow with the card's width, up to a third larger.
    const k = Math.min(1.35, Math.max(1, w / 135));
    // As tall as the fullest card of the board needs (Mjödhallen's token row included), at least 144.
    const cardH = Math.max(144, ...list.map((b) => cardContent(d.buildings[b]))) * k;
    g.append(text(10, y + 24, name, 24, { "font-weight": 700 }));
    y += 32;
    list.forEach((b, i) => {
      const cx = (i % cols) * w + 2;
      const cy = y + Math.floor(i / cols) * (cardH + 6);
      g.append(buildingCard(ctx, d, b, cx, cy, w - 4, cardH, k));
    });
    y += Math.ceil(list.length / cols) * (cardH + 6) + 4;
  }
  return [g, y];
}

/** The choice of a dice token or of a card kept at Tinget, when the game waits for one. */
function choiceSection(ctx: Ctx, d: Data): [SVGGElement, number] {
  const s = ctx.state;
  const g = svg("g", {});
  if (s.phase === BirkaPhase.UPGRADE_TOKEN || s.phase === BirkaPhase.MJOD_TOKEN) {
    const what = s.phase === BirkaPhase.MJOD_TOKEN ? "the Mjödhallen's dice token" : `the dice token for ${slotName(d, s.pending)}`;
    g.append(text(10, 24, `Place ${what}:`, 20, { "font-weight": 700 }));
    for (let v = 1; v <= 6; v++) {
      const x = 10 + (v - 1) * 130;
      const bg = svg("rect", { x, y: 34, width: 120, height: 74, rx: 10, fill: "#f6f1e3", stroke: "#b9ab85" });
      g.append(target(`token:${v}`, `Dice token ${v}`, bg, die(x + 8, 41, 60, v, "#ffffff"), text(x + 100, 88, String(v), 26, { "text-anchor": "middle", "font-weight": 700 })));
    }
    return [g, 118];
  }
  if (s.phase === BirkaPhase.TINGET_KEEP) {
    g.append(text(10, 24, "Tinget: keep one of the two cards drawn", 20, { "font-weight": 700 }));
    // One card a row, the board's width: its whole text in its box (never cut off).
    let y = 34;
    s.drawn.forEach((c, i) => {
      const card = c >= 0 && maySee(ctx, s.actor) ? d.runestones[c] : undefined;
      const lines = card ? wrap(card.text, 64) : [];
      const hgt = 44 + lines.length * 22;
      const bg = svg("rect", { x: 10, y, width: W - 20, height: hgt, rx: 10, fill: "#f1efe8", stroke: "#6d6a5e" });
      const label = card ? `${card.name} (${card.points} points)` : `Card ${i + 1} (hidden)`;
      g.append(target(`keep:${i}`, `Keep ${label}`, bg, text(20, y + 28, label, 19, { "font-weight": 700 }), ...lines.map((l, k) => text(20, y + 52 + k * 22, l, 17))));
      y += hgt + 8;
    });
    return [g, y + 4];
  }
  return [g, 0];
}

function slotName(d: Data, slot: number): string {
  if (slot < 0) return "the upgraded slot";
  const p = Math.floor(slot / d.slotsPerPlot);
  const k = slot % d.slotsPerPlot;
  const good = d.goods[k - 1]?.name ?? "starting";
  return `the ${good} slot of the ${d.res[d.plots[p]]?.name ?? "?"} plot`;
}

/** A Skepp: a small hull in its owner's colour and a sail; an outline for one not owned. */
function ship(x: number, y: number, filled: boolean, colour: string): SVGGElement {
  // A Skepp not (yet) owned is a faint dashed outline, so a light seat colour still reads as owned.
  const line = filled ? { stroke: "#111", "stroke-width": 2 } : { stroke: "#b3aa95", "stroke-width": 1.5, "stroke-dasharray": "3 2" };
  return svg(
    "g",
    { "pointer-events": "none" },
    svg("path", { d: `M${x} ${y + 18} L${x + 30} ${y + 18} L${x + 24} ${y + 27} L${x + 6} ${y + 27} Z`, fill: filled ? colour : "none", ...line }),
    svg("path", { d: `M${x + 15} ${y} L${x + 15} ${y + 17} L${x + 27} ${y + 15} Z`, fill: filled ? "#d9c9a3" : "none", ...line }),
  );
}

const BYN_H = 206;

function bynSection(ctx: Ctx, d: Data, seat: number): SVGGElement {
  const s = ctx.state;
  const p = s.seats[seat];
  const g = svg("g", {});
  const colour = SEAT_COLOURS[seat] ?? "#999";
  g.append(svg("rect", { x: 2, y: 2, width: W - 4, height: BYN_H - 8, rx: 10, fill: "#fcfbf8", stroke: "#555", "stroke-width": 1.5 }));
  g.append(svg("rect", { x: 2, y: 2, width: 14, height: BYN_H - 8, rx: 4, fill: colour, stroke: "#555", "stroke-width": 1.5 }));
  g.append(badge(seat, 40, 26, 16));
  const name = seatName(ctx, seat);
  g.append(text(64, 34, name, 24, { "font-weight": 700 }));
  // Skepp: owned ones filled, the rest up to the maximum as outlines.
  const skeppBg = svg("rect", { x: 176, y: 6, width: 16 + d.skeppMax * 36, height: 40, rx: 6, fill: "#f2ede2", stroke: "#cfc6ad" });
  const ships: SVGElement[] = [];
  for (let k = 0; k < d.skeppMax; k++) ships.push(ship(184 + k * 36, 10, k < p.skepp, colour));
  g.append(target(`skepp:${seat}`, `${name}: ${p.skepp} Skepp`, skeppBg, ...ships));
  // Runestones: the number held and completed (the cards only for their holder, in the panel).
  const known = maySee(ctx, seat) && p.hand.length > 0 && p.hand.every((c) => c >= 0);
  const runeText = `Runestones ${p.hand.length}${known ? ` · ${p.completed.length} done` : ""}`;
  const runeBg = svg("rect", { x: 340, y: 6, width: 250, height: 40, rx: 6, fill: "#ecebf3", stroke: "#aaa6c4" });
  g.append(target(`deck:${seat}`, `${name}: ${p.hand.length} Runestone Cards, ${p.deck.length} in the deck`, runeBg, text(350, 34, runeText, 21)));
  const tags: string[] = [];
  if (seat === ctx.seat) tags.push("you");
  if (p.feeding === BirkaFeeding.STARVING) tags.push("Starving");
  if (p.feeding === BirkaFeeding.RECOVERED) tags.push("Recovered");
  if (s.phase === BirkaPhase.OVER && s.scores.length) tags.push(`${s.scores[seat]} pts${s.winners.includes(seat) ? " ★" : ""}`);
  if (tags.length) g.append(text(W - 12, 33, tags.join(" · "), 18, { "text-anchor": "end", fill: p.feeding === BirkaFeeding.STARVING ? "#b42318" : "#1f2328", "font-weight": 700 }));
  g.append(visthus(ctx, d, seat, 54));
  g.append(plots(ctx, d, seat, 112));
  return g;
}

function visthus(ctx: Ctx, d: Data, seat: number, y: number): SVGGElement {
  const p = ctx.state.seats[seat];
  const name = seatName(ctx, seat);
  const g = svg("g", {});
  const cap = capacity(d, p);
  const held = sum(p.visthus);
  g.append(text(22, y + 20, "Visthus", 19, { "font-weight": 600 }), text(22, y + 43, `${held}/${cap}`, 19, { fill: "#555" }));
  const size = 44;
  const x0 = 106;
  const step = 48;
  const all = d.visthusSlots + d.extensionSlots;
  // The extension's slots: a dashed frame until bought (the target of BuildExtension).
  const ex = x0 + d.visthusSlots * step - 2;
  const exBg = svg("rect", { x: ex, y: y - 2, width: d.extensionSlots * step, height: size + 4, rx: 6, fill: p.extension ? "#f4efe2" : "#ffffff", stroke: "#9a917c", "stroke-dasharray": p.extension ? "none" : "6 4" });
  const exParts: SVGElement[] = p.extension ? [] : [text(ex + (d.extensionSlots * step) / 2, y + 28, "extension", 16, { "text-anchor": "middle", fill: "#8a8170" })];
  g.append(target(`extension:${seat}`, `${name}'s Visthus extension${p.extension ? "" : " (not built)"}`, exBg, ...exParts));
  for (let k = 0; k < Math.min(cap, all); k++) {
    g.append(svg("rect", { x: x0 + k * step, y, width: size, height: size, rx: 5, fill: "#ffffff", stroke: "#c5bba3", "stroke-dasharray": "3 3" }));
  }
  // Held resources fill the slots from the left, each kind one target (its background first).
  let k = 0;
  p.visthus.forEach((n, r) => {
    if (n <= 0) return;
    const bg = svg("rect", { x: x0 + k * step - 2, y: y - 2, width: n * step, height: size + 4, rx: 6, fill: "#ffffff", stroke: "#8c8c8c", "stroke-width": 1 });
    const toks: SVGElement[] = [];
    for (let j = 0; j < n; j++) toks.push(token(d, r, x0 + (k + j) * step + 2, y + 2, size - 4));
    g.append(target(`visthus:${seat}:${r}`, `${name}: ${n} ${d.res[r]?.name ?? "?"}`, bg, ...toks));
    k += n;
  });
  return g;
}

function plots(ctx: Ctx, d: Data, seat: number, y: number): SVGGElement {
  const s = ctx.state;
  const p = s.seats[seat];
  const name = seatName(ctx, seat);
  const g = svg("g", {});
  const pw = (W - 24) / d.plots.length;
  const size = 28;
  d.plots.forEach((r, pi) => {
    const x = 20 + pi * pw;
    const bg = svg("rect", { x, y, width: pw - 6, height: 82, rx: 8, fill: "#f3f6ef", stroke: "#a9b59a" });
    const parts: SVGElement[] = [token(d, r, x + 6, y + 6, 24), text(x + 35, y + 25, d.res[r]?.name ?? "?", 21)];
    g.append(target(`plot:${seat}:${pi}`, `${name}'s ${d.res[r]?.name ?? "?"} plot`, bg, ...parts));
    for (let k = 0; k < d.slotsPerPlot; k++) {
      const slot = pi * d.slotsPerPlot + k;
      const v = p.plots[slot] ?? 0;
      const sx = x + 4 + k * (size + 3);
      const sy = y + 40;
      const hit = v > 0 && v === s.die;
      const pending = s.pending === slot && s.phase === BirkaPhase.UPGRADE_TOKEN && s.actor === seat;
      const sq = svg("rect", {
        x: sx, y: sy, width: size, height: size + 8, rx: 5,
        fill: v ? (k === 0 ? "#ffffff" : "#fff6d8") : pending ? "#fde68a" : "#ffffff",
        stroke: hit ? "#d97706" : "#666", "stroke-width": hit ? 3 : 1.2, "stroke-dasharray": v || pending ? "none" : "3 3",
      });
      const good = k > 0 ? d.goods[k - 1] : undefined;
      const label = v ? String(v) : pending ? "?" : (good?.name[0] ?? "");
      const inner = text(sx + size / 2, sy + 25, label, v ? 22 : 16, { "text-anchor": "middle", "font-weight": v ? 700 : 400, fill: v ? "#111" : "#999", "pointer-events": "none" });
      if (k === 0) {
        g.append(sq, inner);
      } else {
        const what = v ? `dice token ${v}` : pending ? "waiting for its dice token" : "empty";
        g.append(target(`slot:${seat}:${pi}:${k - 1}`, `${name}'s ${d.res[r]?.name ?? "?"} plot, ${good?.name ?? ""} slot: ${what}`, sq, inner));
      }
    }
  });
  return g;
}

/** One arrangement of the sections: one column, or two (Birka beside the Byns). */
function layout(ctx: Ctx, d: Data, wide: boolean, perRow: number): SVGSVGElement {
  const left: Array<[SVGGElement, number]> = [
    calendarSection(ctx, d), marketSection(ctx, d), outlawSection(ctx, d), buildingsSection(ctx, d, perRow),
  ];
  const right: Array<[SVGGElement, number]> = [choiceSection(ctx, d)];
  ctx.state.seats.forEach((_, seat) => right.push([bynSection(ctx, d, seat), BYN_H]));
  const place = (parts: Array<[SVGGElement, number]>, x: number, y0: number): number => {
    let y = y0;
    for (const [g, hgt] of parts) {
      if (!hgt) continue;
      g.setAttribute("transform", `translate(${x} ${y})`);
      y += hgt + 6;
    }
    return y;
  };
  const hl = place(left, 0, 0);
  const width = wide ? 2 * W + 20 : W;
  const height = wide ? Math.max(hl, place(right, W + 20, 0)) : place(right, 0, hl);
  const root = svg("svg", { xmlns: "http://www.w3.org/2000/svg", viewBox: `0 0 ${width} ${height}`, role: "group", "aria-label": "Birka board" });
  for (const [g, hgt] of [...left, ...right]) if (hgt) root.append(g);
  return root;
}

/**
 * The board. The page shows it at most 80% of the screen's height and as wide as its column, so
 * the arrangement that draws larger there is chosen: one column on phones and with few players,
 * two on wide screens (an estimate of the column from the window: the page's two-column grid
 * above 900 px gives the board about three fifths).
 */
function board(ctx: Ctx): SVGSVGElement {
  const d = readData(ctx.data);
  const one = layout(ctx, d, false, 0);
  if (typeof window === "undefined" || !window.innerWidth) return one;
  const vw = Math.min(window.innerWidth, 1400);
  const boxW = vw >= 900 ? vw * 0.6 - 40 : vw - 30;
  const boxH = window.innerHeight * 0.8;
  const scale = (el: SVGSVGElement): number => {
    const [, , w, hgt] = (el.getAttribute("viewBox") ?? "0 0 1 1").split(" ").map(Number);
    return Math.min(boxW / w, boxH / hgt);
  };
  // Roomy building cards (3 a row) first: they win ties, their text being larger.
  const candidates = [layout(ctx, d, true, 3), layout(ctx, d, true, 0), one];
  let best = candidates[0];
  for (const c of candidates) if (scale(c) > scale(best) * 1.03) best = c;
  return best;
}

// ---------------------------------------------------------------------------------------------
// Moves: their targets and their words.

function seatNames(players: number): string[] {
  return Array.from({ length: players }, (_, i) => `Player ${i + 1}`);
}

function sellerOf(d: Data, good: number): number {
  const id = d.goods[good]?.id;
  return d.buildings.findIndex((b) => b.sells === id);
}

function targets(move: BirkaMove, ctx: Ctx): string[] {
  const d = readData(ctx.data);
  const s = ctx.state;
  const me = actorOf(ctx);
  const a = move.action;
  switch (a.case) {
    case "draw":
      return s.phase === BirkaPhase.CALENDAR ? ["calendar"] : ["dice"];
    case "drawCard":
      return [`deck:${me}`];
    case "collect": {
      const plot = d.plots.indexOf(a.value.resource);
      return plot >= 0 ? [`plot:${me}:${plot}`] : [];
    }
    case "payTribute":
    case "payLevy":
    case "discard":
      return [`visthus:${me}:${a.value.resource}`];
    case "takeTribute":
      return [`visthus:${a.value.seat}:${a.value.resource}`];
    case "marketTrade":
      return [`market:${a.value.take}`, `visthus:${me}:${a.value.give}`];
    case "outlawTrade":
      return [`outlaw:${a.value.take}`, `visthus:${me}:${a.value.give}`];
    case "craft":
    case "build":
      return [`building:${a.value.building}`];
    case "buySkepp":
      return [`skepp:${me}`];
    case "upgrade": {
      const seller = sellerOf(d, a.value.good);
      return [`slot:${me}:${a.value.plot}:${a.value.good}`, ...(seller >= 0 ? [`building:${seller}`] : [])];
    }
    case "placeToken":
      return [`token:${a.value.value}`];
    case "buildExtension":
      return [`extension:${me}`];
    case "acquireRunestone": {
      const tinget = d.buildings.findIndex((b) => b.sells === "RUNESTONE");
      return tinget >= 0 ? [`building:${tinget}`] : [];
    }
    case "keepCard":
      return [`keep:${a.value.index}`];
    case "payRation":
      return a.value.bread && d.rationBread >= 0 ? [`visthus:${me}:${d.rationBread}`] : [];
    default:
      return [];
  }
}

function describe(move: BirkaMove, ctx: Ctx): string {
  const d = readData(ctx.data);
  const s = ctx.state;
  const me = actorOf(ctx);
  const who = (seat: number): string => seatName(ctx, seat);
  const rn = (r: number): string => d.res[r]?.name ?? `resource ${r}`;
  const bn = (b: number): string => d.buildings[b]?.name ?? `building ${b}`;
  const a = move.action;
  switch (a.case) {
    case "draw": {
      const o = a.value.outcome;
      if (s.phase === BirkaPhase.CALENDAR) return o === undefined ? "Reveal the next Calendar Card" : `Reveal ${d.calendar[o]?.name ?? `card ${o}`}`;
      if (s.phase === BirkaPhase.SETUP_START) return o === undefined ? "Roll the dice for the Starting Player" : `${who(o)} starts`;
      const colour = s.turn <= 1 ? "yellow" : "grey";
      return o === undefined ? `Roll the ${colour} die` : `Roll the ${colour} die: ${o} (${rn(d.dieFaces[o - 1])})`;
    }
    case "drawCard": {
      const i = a.value.index;
      const what = s.phase === BirkaPhase.TINGET_DRAW ? "Draw a Runestone Card at Tinget" : `Deal ${who(me)} a Runestone Card`;
      return i === undefined || i < 0 ? what : `${what} (card ${i + 1} of the deck)`;
    }
    case "collect":
      return `Collect 1 ${rn(a.value.resource)}`;
    case "stopCollecting":
      return "Stop collecting (keep room for the Mjödhallen's payment)";
    case "payTribute": {
      const owner = s.owners[d.buildings.findIndex((b) => b.mjod)] ?? -1;
      return `Pay 1 ${rn(a.value.resource)} to the Mjödhallen${owner >= 0 ? ` (${who(owner)})` : ""}`;
    }
    case "takeTribute":
      return `Take 1 ${rn(a.value.resource)} from ${who(a.value.seat)}`;
    case "marketTrade":
      return `Market: give 1 ${rn(a.value.give)}, take 1 ${rn(a.value.take)}`;
    case "outlawTrade": {
      const { give, take } = a.value;
      const units = d.outlawPrice[d.res[take]?.raw ? 0 : 1];
      const n = units * d.outlawUnit[d.res[give]?.raw ? 0 : 1];
      return `Outlaw Trader: give ${n} ${rn(give)}, take 1 ${rn(take)}`;
    }
    case "craft": {
      const b = d.buildings[a.value.building];
      if (!b) return `Craft in ${bn(a.value.building)}`;
      const pay = usePrice(d, s, a.value.building, me, b.craftIn);
      return `Craft 1 ${rn(b.craftOut)} in the ${b.name} (pay ${countsText(d, pay)})`;
    }
    case "buySkepp":
      return `Buy a Skepp (${countsText(d, priced(d, s, "SKEPP", d.skeppPrice))})`;
    case "upgrade": {
      const { plot, good } = a.value;
      const seller = sellerOf(d, good);
      const gd = d.goods[good];
      const price = seller >= 0 ? usePrice(d, s, seller, me, priced(d, s, gd?.id ?? "", d.buildings[seller].usePrice)) : [];
      return `Buy a ${gd?.name ?? "good"}${seller >= 0 ? ` at ${bn(seller)}` : ""} for the ${rn(d.plots[plot])} plot (${countsText(d, price)})`;
    }
    case "placeToken":
      return s.phase === BirkaPhase.MJOD_TOKEN
        ? `Place the Mjödhallen's dice token: ${a.value.value}`
        : `Place dice token ${a.value.value} in ${slotName(d, s.pending)}`;
    case "build": {
      const b = d.buildings[a.value.building];
      return `Build the ${bn(a.value.building)}${b ? ` (${countsText(d, priced(d, s, b.id, b.price))})` : ""}`;
    }
    case "buildExtension":
      return `Build the Visthus extension (${countsText(d, priced(d, s, "EXTENSION", d.extensionPrice))})`;
    case "acquireRunestone": {
      const t = d.buildings.findIndex((b) => b.sells === "RUNESTONE");
      const price = t >= 0 ? priced(d, s, "RUNESTONE", d.buildings[t].usePrice) : [];
      return `Acquire Runestones at Tinget: draw two, keep one (${countsText(d, price)})`;
    }
    case "keepCard": {
      const c = s.drawn[a.value.index] ?? -1;
      const card = c >= 0 ? d.runestones[c] : undefined;
      const nth = a.value.index === 0 ? "first" : "second";
      return card ? `Keep ${card.name} (${card.points} points; the ${nth} card)` : `Keep the ${nth} card drawn`;
    }
    case "discard":
      return `Discard 1 ${rn(a.value.resource)}`;
    case "endActions":
      return `End ${who(me)}’s actions`;
    case "payRation": {
      const { food, bread } = a.value;
      const ration = s.phase === BirkaPhase.RECOVER ? "Recover: pay the Ration" : "Pay the Ration";
      if (bread) return `${ration} with ${rationCost(d, s)[1]} ${rn(d.rationBread)}`;
      const parts = food.map((n, i) => (n > 0 ? `${n} ${rn(d.rationFood[i])}` : "")).filter(Boolean);
      return `${ration} with ${parts.join(" and ") || "nothing"}`;
    }
    case "payLevy":
      return `Pay the levy (${currentCard(d, s)?.name ?? "Calendar Card"}) with 1 ${rn(a.value.resource)}`;
    default:
      return "Move";
  }
}

// ---------------------------------------------------------------------------------------------
// The panel: the standing of every player, the viewing seat's Runestones, the calendar and supply.

function panel(ctx: Ctx): HTMLElement {
  const d = readData(ctx.data);
  const s = ctx.state;
  const over = s.phase === BirkaPhase.OVER;
  const root = h("div", { class: "birka-panel" });
  // Standing.
  const head = ["Player", "Visthus", "Skepp", "Bldgs", "Stones", "Fed", ...(over ? ["Score"] : [])];
  const rows = s.seats.map((p, seat) => {
    const name = seatName(ctx, seat);
    const owned = s.owners.filter((o) => o === seat).length;
    const known = maySee(ctx, seat) && p.hand.length > 0 && p.hand.every((c) => c >= 0);
    const fed = p.feeding === BirkaFeeding.STARVING ? "starving" : p.feeding === BirkaFeeding.RECOVERED ? "recovered" : "yes";
    return h(
      "tr",
      {},
      h("th", { scope: "row" }, h("span", { class: "birka-dot", style: `background:${SEAT_COLOURS[seat] ?? "#999"}` }, String(seat + 1)), h("span", { class: "birka-name" }, ` ${name}`)),
      h("td", {}, `${sum(p.visthus)}/${capacity(d, p)}${p.extension ? " +ext" : ""}`),
      h("td", {}, String(p.skepp)),
      h("td", {}, String(owned)),
      h("td", {}, known ? `${p.hand.length} (${p.completed.length}✓)` : String(p.hand.length)),
      h("td", { class: p.feeding === BirkaFeeding.STARVING ? "birka-starving" : "" }, fed),
      ...(over ? [h("td", {}, `${s.scores[seat] ?? 0}${s.winners.includes(seat) ? " ★" : ""}${s.finisher === seat ? " (finisher)" : ""}`)] : []),
    );
  });
  root.append(
    h("table", { class: "birka-table", "aria-label": "Standing (Stones: Runestone Cards held, completed ✓ where you may see them)" }, h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, ...rows)),
  );
  // What the tokens' two letters stand for (squares Raw, circles Crafted), as on the board.
  root.append(
    h(
      "ul",
      { class: "birka-legend", "aria-label": "The resources on the tokens" },
      ...d.res.map((r, i) => {
        const fill = resColour(d, i);
        // the token's colour and shape beside its letters (the letters in the page's ink: readable on any colour)
        return h("li", {}, h("span", { class: `birka-swatch ${r.raw ? "birka-raw" : "birka-crafted"}`, style: `background:${fill}`, "aria-hidden": "true" }), h("b", {}, r.abbr), ` ${r.name}`);
      }),
    ),
  );
  // The last throw.
  const face = (v: number): string => `${v} (${d.res[d.dieFaces[v - 1]]?.name ?? "?"})`;
  const dl = h("dl", { class: "birka-dl" });
  const item = (k: string, v: string): void => {
    dl.append(h("dt", {}, k), h("dd", {}, v));
  };
  if (s.starter >= 0 && !over) item("Starting Player", seatName(ctx, s.starter));
  if (s.phase === BirkaPhase.ACTIONS && s.actor >= 0) item("Actions left", `${s.actionsLeft} (${seatName(ctx, s.actor)})`);
  if (s.phase === BirkaPhase.LEVY && s.actor >= 0) item("Levy still owed", `${s.left} (${seatName(ctx, s.actor)})`);
  if (s.yellow) item("Yellow die", face(s.yellow));
  if (s.die && s.turn > 1) item("Grey die", face(s.die));
  const card = currentCard(d, s);
  if (card) item("Calendar Card", `${card.name}: ${card.text}`);
  if (s.roundCards.length) item("Revealed this round", s.roundCards.map((c) => d.calendar[c]?.name ?? "?").join(", "));
  item("Calendar Cards left", String(s.calendar.length));
  const [food, bread] = rationCost(d, s);
  item("Ration this round", `${food} ${d.rationFood.map((r) => d.res[r]?.name ?? "?").join("/")} or ${bread} ${d.res[d.rationBread]?.name ?? "?"}`);
  if (s.drawn.length) {
    const shown = maySee(ctx, s.actor);
    item("Drawn at Tinget", s.drawn.map((c) => (c >= 0 && shown ? (d.runestones[c]?.name ?? "?") : "hidden card")).join(", "));
  }
  if (s.phase === BirkaPhase.COLLECT && s.due.some((n) => n > 0)) {
    item("Still to collect", s.due.map((n, r) => (n > 0 ? `${n} ${d.res[r]?.name ?? "?"}` : "")).filter(Boolean).join(", "));
  }
  root.append(dl);
  // The viewing seat's Runestones (never another seat's: their cards are hidden in a session).
  const seat = ctx.seat;
  const mine = seat !== undefined ? s.seats[seat] : undefined;
  if (seat !== undefined && mine && mine.hand.some((c) => c >= 0)) {
    const name = seatName(ctx, seat);
    root.append(
      h("h3", { class: "birka-h" }, `${name}’s Runestones`),
      h(
        "ul",
        { class: "birka-cards" },
        ...mine.hand.filter((c) => c >= 0).map((c) => {
          const rc = d.runestones[c];
          const done = mine.completed.includes(c);
          const dead = !done && blocked(d, s, c, seat);
          return h(
            "li",
            { class: done ? "birka-done" : dead ? "birka-blocked" : "" },
            h("strong", {}, `${done ? "✓ " : dead ? "✗ " : ""}${rc?.name ?? "?"}`),
            ` ${rc?.points ?? 0} pts — ${rc?.text ?? ""}${dead ? " (blocked: another player owns the building)" : ""}`,
          );
        }),
      ),
    );
  }
  // Other seats' hands once revealed at the end.
  if (over) {
    s.seats.forEach((p, k) => {
      if (k === seat || !p.hand.some((c) => c >= 0)) return;
      const list = p.hand.filter((c) => c >= 0).map((c) => `${p.completed.includes(c) ? "✓ " : ""}${d.runestones[c]?.name ?? "?"}`);
      root.append(h("p", { class: "birka-small" }, `${seatName(ctx, k)}: ${list.join(", ")}`));
    });
  }
  // The supply piles: what is in no Visthus and not at the Market.
  const supply = d.res.map((r, i) => (r.raw ? d.supply[0] : d.supply[1]) - sum(s.seats.map((p) => p.visthus[i] ?? 0)) - (s.market[i] ?? 0));
  root.append(h("p", { class: "birka-small" }, `Supply: ${d.res.map((r, i) => `${r.name} ${supply[i]}`).join(", ")}`));
  return root;
}

export const ui: GameUI<BirkaState, BirkaMove> = { seatNames, board, targets, describe, panel };
