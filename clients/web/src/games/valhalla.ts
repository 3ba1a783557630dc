/**
 * Valhalla: the Midgard Serpent's three rows of twelve spaces (home harbour, open ocean, final
 * leg), read in the order the ships sail: row one left to right, row two back right to left, row
 * three left to right into the serpent's jaws. Below the serpent lie the four fate casting sticks
 * as last cast and Odin's hall with the ships already borne off; in the enter start the ships
 * waiting to enter sit above it. Valhalla has no hidden information: every seat sees the whole
 * state, so `ctx.seat` only marks "you" in the panel.
 */
import { create, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import type { ValhallaMove, ValhallaShip, ValhallaState, ValhallaSticks } from "@lawspeaker/client";
import {
  ValhallaColour,
  ValhallaHagalaz,
  ValhallaMoveSchema,
  ValhallaPhase,
  ValhallaScoring,
  ValhallaStart,
} from "@lawspeaker/client";
import { h, SEAT_COLOURS, SEAT_INK, svg, title } from "../dom.js";
import type { BoardContext, GameUI } from "./types.js";

type Ctx = BoardContext<ValhallaState, ValhallaMove>;

// ---------------------------------------------------------------------------- board data

interface Space {
  number: number;
  row: number;
  x: number;
  y: number;
  marks: string[];
}

interface Row {
  row: number;
  name: string;
  first: number;
  last: number;
}

interface Rune {
  rune: string;
  meaning: string;
}

/** DescribeGame's board data, read once per drawing with the engine's own values as fallbacks. */
interface Board {
  spaces: Space[];
  rows: Row[];
  sticks: Rune[];
  safeHarbours: number[];
  rockyShoal: number;
  repairYard: number;
  homePort: number;
  gate: number;
  entrySpaces: number[];
  blockadeRow: number;
  shipsPerFleet: number;
}

function num(value: JsonValue | undefined, fallback: number): number {
  return typeof value === "number" ? value : fallback;
}

function nums(value: JsonValue | undefined, fallback: number[]): number[] {
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === "number") : fallback;
}

function objects(value: JsonValue | undefined): JsonObject[] {
  return Array.isArray(value)
    ? value.filter((v): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v))
    : [];
}

function str(value: JsonValue | undefined, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

/** The serpent as the engine lays it out: 12 columns a row, each row turning back at its end. */
function defaultSpaces(): Space[] {
  return Array.from({ length: 36 }, (_, i) => {
    const y = Math.floor(i / 12);
    const x = y % 2 === 0 ? i % 12 : 11 - (i % 12);
    return { number: i + 1, row: y + 1, x, y, marks: [] };
  });
}

function readBoard(data: JsonObject): Board {
  const spaces = objects(data.board).map((s) => ({
    number: num(s.number, 0),
    row: num(s.row, 1),
    x: num(s.x, 0),
    y: num(s.y, 0),
    marks: Array.isArray(s.marks) ? s.marks.filter((m): m is string => typeof m === "string") : [],
  }));
  const rows = objects(data.rows).map((r) => ({
    row: num(r.row, 0),
    name: str(r.name, ""),
    first: num(r.first, 0),
    last: num(r.last, 0),
  }));
  const sticks = objects(data.sticks).map((s) => ({ rune: str(s.rune, ""), meaning: str(s.meaning, "") }));
  return {
    spaces: spaces.length ? spaces : defaultSpaces(),
    rows: rows.length
      ? rows
      : [
          { row: 1, name: "home harbour", first: 1, last: 12 },
          { row: 2, name: "open ocean", first: 13, last: 24 },
          { row: 3, name: "final leg", first: 25, last: 36 },
        ],
    sticks: sticks.length
      ? sticks
      : ["sowulo", "tiewaz", "gebo", "hagalaz"].map((rune) => ({ rune, meaning: "" })),
    safeHarbours: nums(data.safe_harbours, [29, 32, 34]),
    rockyShoal: num(data.rocky_shoal, 30),
    repairYard: num(data.repair_yard, 19),
    homePort: num(data.home_port, 1),
    gate: num(data.valhalla_gate, 36),
    entrySpaces: nums(data.entry_spaces, [1, 2, 3, 4, 5]),
    blockadeRow: num(data.blockade_row, 3),
    shipsPerFleet: num(data.ships_per_fleet, 6),
  };
}

// ---------------------------------------------------------------------------- rules the drawing needs

type Fleet = "light" | "dark";
const FLEETS: Fleet[] = ["light", "dark"];

function fleetOf(ship: ValhallaShip): Fleet {
  return ship.colour === ValhallaColour.DARK ? "dark" : "light";
}

function fleetName(fleet: Fleet): string {
  return fleet === "light" ? "Light" : "Dark";
}

/** The seat sailing `fleet`, or undefined while colours are being chosen. */
function seatOf(state: ValhallaState, fleet: Fleet): number | undefined {
  if (state.darkSeat < 0) return undefined;
  return fleet === "dark" ? state.darkSeat : 1 - state.darkSeat;
}

/** The fleet of `seat`, or undefined while colours are being chosen. */
function fleetOfSeat(state: ValhallaState, seat: number): Fleet | undefined {
  if (state.darkSeat < 0) return undefined;
  return seat === state.darkSeat ? "dark" : "light";
}

function enterStart(state: ValhallaState): boolean {
  return state.options?.start === ValhallaStart.ENTER;
}

const RUNE_NAMES: Record<keyof Pick<ValhallaSticks, "sowulo" | "tiewaz" | "gebo" | "hagalaz">, string> = {
  sowulo: "Sowulo",
  tiewaz: "Tiewaz",
  gebo: "Gebo",
  hagalaz: "Hagalaz",
};
type RuneKey = keyof typeof RUNE_NAMES;
const RUNE_KEYS: RuneKey[] = ["sowulo", "tiewaz", "gebo", "hagalaz"];

/**
 * The points of a cast and whether it is natural, as the engine scores it (docs/rules/valhalla.md,
 * rule 3): needed to name an explicit cast and the cast behind leftover points.
 */
function score(sticks: ValhallaSticks, state: ValhallaState): { points: number; natural: boolean } {
  const heads = RUNE_KEYS.filter((k) => sticks[k]).length;
  if (heads === 0) return { points: 5, natural: true };
  if (state.options?.scoring === ValhallaScoring.TRADITIONAL) return { points: heads, natural: true };
  if (!sticks.hagalaz || sticks.gebo) return { points: heads, natural: true };
  const others = Number(sticks.sowulo) + Number(sticks.tiewaz);
  const points = state.options?.hagalaz === ValhallaHagalaz.CANCELS_OWN ? others : Math.max(0, others - 1);
  return { points, natural: false };
}

/** "Sowulo and Gebo heads up" / "all tails up", as the engine's events say it. */
function sticksLabel(sticks: ValhallaSticks): string {
  const up = RUNE_KEYS.filter((k) => sticks[k]).map((k) => RUNE_NAMES[k]);
  if (up.length === 0) return "all tails up";
  const list = up.length === 1 ? up[0] : `${up.slice(0, -1).join(", ")} and ${up[up.length - 1]}`;
  return `${list} heads up`;
}

function castText(sticks: ValhallaSticks, state: ValhallaState): string {
  const { points, natural } = score(sticks, state);
  return `${sticksLabel(sticks)}: ${points}, ${natural ? "natural" : "unnatural"}`;
}

/** The ship of `fleet` numbered `n` (1-6). */
function shipOf(state: ValhallaState, fleet: Fleet, n: number): ValhallaShip | undefined {
  return state.ships.find((s) => fleetOf(s) === fleet && s.number === n);
}

/** The ship resting on board space `space` (1-35), if any. */
function shipOn(state: ValhallaState, space: number): ValhallaShip | undefined {
  if (space < 1 || space >= 36) return undefined;
  return state.ships.find((s) => s.position === space);
}

/**
 * The row-three spaces protected by a blockade: maximal runs of adjacent same-fleet ships on
 * 25-35 of even length (rule 10, assumption BLOCKADE_RUNS), as [first, last, fleet].
 */
function blockades(state: ValhallaState, board: Board): [number, number, Fleet][] {
  const row = board.rows.find((r) => r.row === board.blockadeRow);
  if (!row) return [];
  const out: [number, number, Fleet][] = [];
  let start = 0;
  let fleet: Fleet | undefined;
  const close = (end: number): void => {
    if (fleet && start && (end - start + 1) % 2 === 0) out.push([start, end, fleet]);
  };
  for (let space = row.first; space <= row.last; space++) {
    const ship = space < board.gate ? shipOn(state, space) : undefined;
    const here = ship ? fleetOf(ship) : undefined;
    if (here !== fleet) {
      close(space - 1);
      fleet = here;
      start = here ? space : 0;
    }
  }
  close(row.last);
  return out;
}

/** The fleet moving now (the seat on turn's fleet; light before colours are chosen, unused then). */
function moverFleet(state: ValhallaState): Fleet {
  return fleetOfSeat(state, state.turn) ?? "light";
}

// ---------------------------------------------------------------------------- geometry

const CW = 100; // cell width
const CH = 120; // cell height
const GAP = 44; // sea between two rows (the serpent turns across it at the ends)
const ML = 48; // left margin: the serpent's tail
const MR = 84; // right margin: the serpent's head
const COLS = 12;
const W = ML + COLS * CW + MR;
const STRIP = 250; // the sticks and Valhalla strip under the serpent

interface Layout {
  top: number; // y of row one
  bottom: number; // y under row three
  strip: number; // y of the sticks and the hall
  height: number;
  waiting: boolean; // whether the strip of ships waiting to enter is drawn (enter start)
}

function layout(state: ValhallaState, board: Board): Layout {
  const waiting = enterStart(state) || state.ships.some((s) => s.position === 0);
  const top = waiting ? 200 : 56;
  const rows = Math.max(1, ...board.spaces.map((s) => s.y + 1));
  const bottom = top + rows * CH + (rows - 1) * GAP;
  const strip = bottom + 26;
  return { top, bottom, strip, height: strip + STRIP, waiting };
}

function cellX(space: Space): number {
  return ML + space.x * CW;
}

function cellY(space: Space, lay: Layout): number {
  return lay.top + space.y * (CH + GAP);
}

// ---------------------------------------------------------------------------- colours

const SEA = "#2e6a86";
const SERPENT = "#47643a";
const SERPENT_DARK = "#2f4526";
const CELL = ["#e6d6ae", "#d9c592"];
const INK = "#1b1b1b";
const REPAIR = "#c0392b";
const PALE = "#f4efe0"; // text on the sea

/** A text at (x, y) in `size` viewBox units, pale on the sea unless `attrs` say otherwise. */
function text(
  x: number,
  y: number,
  size: number,
  content: string,
  attrs: Record<string, string | number> = {},
): SVGTextElement {
  return svg("text", { x, y, "font-size": size, fill: PALE, ...attrs }, content);
}

/** Fleets are drawn in the shared seat colours of their own names: light cream, dark charcoal. */
function fleetFill(fleet: Fleet): string {
  return fleet === "light" ? SEAT_COLOURS[0] : SEAT_COLOURS[1];
}

function fleetInk(fleet: Fleet): string {
  return fleet === "light" ? SEAT_INK[0] : SEAT_INK[1];
}

/** An outline that stands out against both the pale cells and the ship's own fill. */
function fleetOutline(fleet: Fleet): string {
  return fleet === "light" ? "#1b1b1b" : "#f7f3e8";
}

// ---------------------------------------------------------------------------- small drawings

/** A 30x30 icon for a special space, drawn at the cell's top right. */
function markIcon(mark: string): SVGGElement | null {
  const stroke = { fill: "none", stroke: INK, "stroke-width": 2.6, "stroke-linecap": "round", "stroke-linejoin": "round" };
  switch (mark) {
    case "home_port": // a flag on its pole
      return svg(
        "g",
        {},
        svg("path", { d: "M8 28 V4", ...stroke }),
        svg("path", { d: "M9 5 L26 10 L9 16 Z", fill: "#c8553d", stroke: INK, "stroke-width": 1.6 }),
      );
    case "safe_harbour": // an anchor
      return svg(
        "g",
        {},
        svg("circle", { cx: 15, cy: 6, r: 3.2, ...stroke }),
        svg("path", { d: "M15 9 V27 M9 13 H21 M5 18 Q7 27 15 27 Q23 27 25 18", ...stroke }),
      );
    case "rocky_shoal": // rocks in the surf
      return svg(
        "g",
        {},
        svg("path", { d: "M2 26 L10 8 L17 26 Z M13 26 L21 13 L29 26 Z", fill: "#4a4a4a", stroke: INK, "stroke-width": 1.4 }),
        svg("path", { d: "M1 28 Q5 25 9 28 T17 28 T25 28 T31 28", fill: "none", stroke: "#ffffff", "stroke-width": 2 }),
      );
    case "repair_yard": // a hammer
      return svg(
        "g",
        {},
        svg("path", { d: "M6 27 L18 13", ...stroke, "stroke-width": 3.6, stroke: "#6b4423" }),
        svg("path", { d: "M12 7 L20 3 L28 11 L24 15 L20 11 L16 15 Z", fill: "#555", stroke: INK, "stroke-width": 1.4 }),
      );
    case "valhalla_gate": // the arched door of the hall
      return svg("path", { d: "M6 28 V14 A9 9 0 0 1 24 14 V28 Z M15 28 V16", fill: "#8a5a1e", stroke: INK, "stroke-width": 1.8 });
    case "entry": // a shield: ships here cannot be hit (enter start)
      return svg("path", { d: "M15 3 L26 7 V15 Q26 24 15 28 Q4 24 4 15 V7 Z", fill: "#b7cde0", stroke: INK, "stroke-width": 1.8 });
    default:
      return null;
  }
}

const MARK_LABEL: Record<string, string> = {
  home_port: "Home",
  safe_harbour: "Harbour",
  rocky_shoal: "Shoal",
  repair_yard: "Yard",
  valhalla_gate: "Gate",
  entry: "Entry",
};

const MARK_MEANING: Record<string, string> = {
  home_port: "home port: a ship that runs aground while the repair yard is taken comes back here",
  safe_harbour: "safe harbour: a ship docked here cannot be attacked",
  rocky_shoal: "rocky shoal: a ship landing here runs aground and goes to the repair yard",
  repair_yard: "repair yard: a ship sent here from the shoal leaves only on a natural one",
  valhalla_gate: "the serpent's jaws: a ship reaching or passing it passes into Valhalla",
  entry: "entry space: ships here cannot be hit",
};

function marksOf(space: Space, board: Board, state: ValhallaState): string[] {
  const marks = [...space.marks];
  if (enterStart(state) && board.entrySpaces.includes(space.number)) marks.push("entry");
  return marks;
}

function cellFill(space: Space, marks: string[]): string {
  if (marks.includes("rocky_shoal")) return "#a3a3a3";
  if (marks.includes("safe_harbour")) return "#a9d8bd";
  if (marks.includes("repair_yard")) return "#efd98a";
  if (marks.includes("valhalla_gate")) return "#f2c14e";
  if (marks.includes("home_port") || marks.includes("entry")) return "#cfe2ee";
  return CELL[(space.x + space.y) % 2];
}

/** A rune as strokes in a 40x70 box (drawn, not typed: fonts with the Runic block are rare). */
function runePath(rune: string): string {
  switch (rune) {
    case "sowulo":
      return "M27 4 L11 30 L29 42 L13 66";
    case "tiewaz":
      return "M20 4 V66 M5 21 L20 4 L35 21";
    case "gebo":
      return "M6 6 L34 64 M34 6 L6 64";
    case "hagalaz":
      return "M8 4 V66 M32 4 V66 M8 25 L32 45";
    default:
      return "";
  }
}

/**
 * A longship, centred on (0, 0) at its sail's top, about 88 wide and 74 tall: a sail with the
 * fleet letter and number (the second cue beside colour), a mast and a hull with a dragon prow.
 */
function shipShape(fleet: Fleet, n: number, underRepair: boolean): SVGGElement {
  const fill = fleetFill(fleet);
  const outline = fleetOutline(fleet);
  return svg(
    "g",
    { class: `valhalla-ship valhalla-${fleet}` },
    svg("path", {
      d: "M-40 52 L36 52 Q40 44 44 40 Q48 44 44 50 Q38 74 18 74 L-24 74 Q-38 72 -42 52 Z",
      fill,
      stroke: outline,
      "stroke-width": 3,
      "stroke-linejoin": "round",
    }),
    svg("rect", {
      x: -38,
      y: 0,
      width: 76,
      height: 50,
      rx: 5,
      fill,
      // red, not the orange dashes the shell uses to mark targets
      stroke: underRepair ? REPAIR : outline,
      "stroke-width": underRepair ? 5 : 3,
    }),
    svg(
      "text",
      { x: 0, y: 42, "text-anchor": "middle", "font-size": 44, "font-weight": 700, fill: fleetInk(fleet) },
      `${fleet === "light" ? "L" : "D"}${n}`,
    ),
    underRepair
      ? svg(
          "g",
          {},
          svg("circle", { cx: 38, cy: 0, r: 13, fill: REPAIR, stroke: INK, "stroke-width": 2 }),
          svg("text", { x: 38, y: 7, "text-anchor": "middle", "font-size": 20, "font-weight": 700, fill: "#fff" }, "R"),
        )
      : null,
  );
}

function shipTitle(ship: ValhallaShip, state: ValhallaState, seatNames: string[]): string {
  const fleet = fleetOf(ship);
  const seat = seatOf(state, fleet);
  const owner = seat === undefined ? "" : ` (${seatNames[seat] ?? `Seat ${seat + 1}`})`;
  const where =
    ship.position === 0
      ? "waiting to enter"
      : ship.position >= 36
        ? "in Valhalla"
        : `on space ${ship.position}${ship.underRepair ? ", under repair" : ""}`;
  return `${fleetName(fleet)} ship ${ship.number}${owner}, ${where}`;
}

/**
 * A ship placed with its sail top at (x, y), scaled by `scale`. It is a target group (key
 * `ship:<fleet>:<n>`) whose first child is an invisible hit box the shell outlines; a ship no
 * legal move names lets taps through to the space under it (an opponent's ship may stand on the
 * space a move lands on).
 */
function shipElement(
  ship: ValhallaShip,
  x: number,
  y: number,
  scale: number,
  state: ValhallaState,
  ctx: Ctx,
  named: Set<string>,
): SVGGElement {
  const fleet = fleetOf(ship);
  const key = `ship:${fleet}:${ship.number}`;
  return svg(
    "g",
    {
      "data-target": key,
      transform: `translate(${x} ${y}) scale(${scale})`,
      "pointer-events": named.has(key) ? null : "none",
    },
    svg("rect", { x: -47, y: -8, width: 94, height: 88, rx: 8, fill: "#ffffff", "fill-opacity": 0, stroke: "none" }),
    shipShape(fleet, ship.number, ship.underRepair),
    title(shipTitle(ship, state, ctx.seatNames)),
  );
}

// ---------------------------------------------------------------------------- the board

/** The serpent's body under the cells: one thick stroke through the rows, turning at their ends. */
function serpent(board: Board, lay: Layout): SVGGElement {
  const rows = Math.max(1, ...board.spaces.map((s) => s.y + 1));
  const mid = (y: number): number => lay.top + y * (CH + GAP) + CH / 2;
  const left = ML + CW / 2;
  const right = ML + (COLS - 1) * CW + CW / 2;
  let d = `M${ML - 14} ${mid(0)}`;
  for (let y = 0; y < rows; y++) {
    const end = y % 2 === 0 ? right : left;
    d += ` H${end}`;
    if (y < rows - 1) d += ` V${mid(y + 1)}`;
  }
  const lastRight = (rows - 1) % 2 === 0;
  const headY = mid(rows - 1);
  const headX = lastRight ? ML + COLS * CW : ML;
  const dir = lastRight ? 1 : -1;
  const p = (dx: number, dy: number): string => `${headX + dir * dx} ${headY + dy}`;
  return svg(
    "g",
    { class: "valhalla-serpent", "aria-hidden": "true" },
    svg("path", { d, fill: "none", stroke: SERPENT, "stroke-width": CH + 18, "stroke-linejoin": "round" }),
    // the tail, tapering off to the left of row one
    svg("path", {
      d: `M${ML - 10} ${mid(0) - CH / 2 - 9} L${ML - 10} ${mid(0) + CH / 2 + 9} L${6} ${mid(0) + 12} Z`,
      fill: SERPENT,
    }),
    // the head with open jaws, past the last space
    svg("path", {
      d:
        `M${p(-4, -CH / 2 - 9)} L${p(44, -CH / 2 - 22)} L${p(80, -20)} L${p(36, -8)} ` +
        `L${p(36, 8)} L${p(80, 20)} L${p(44, CH / 2 + 22)} L${p(-4, CH / 2 + 9)} Z`,
      fill: SERPENT,
      stroke: SERPENT_DARK,
      "stroke-width": 3,
    }),
    svg("circle", { cx: headX + dir * 40, cy: headY - 34, r: 7, fill: "#f2c14e", stroke: INK, "stroke-width": 2 }),
  );
}

function rowLabels(board: Board, lay: Layout): SVGElement[] {
  return board.rows.map((row) => {
    const y = lay.top + (row.row - 1) * (CH + GAP) - 12;
    const forward = (row.row - 1) % 2 === 0;
    const text = forward
      ? `→ Row ${row.row}: ${row.name} (${row.first}–${row.last}) →`
      : `← Row ${row.row}: ${row.name} (${row.first}–${row.last}) ←`;
    return svg(
      "text",
      { x: ML + (COLS * CW) / 2, y, "text-anchor": "middle", "font-size": 28, fill: PALE, "font-style": "italic" },
      text,
    );
  });
}

function cellElement(space: Space, board: Board, state: ValhallaState, lay: Layout): SVGGElement {
  const x = cellX(space);
  const y = cellY(space, lay);
  const marks = marksOf(space, board, state);
  const icon = marks.map(markIcon).find((m) => m !== null);
  const label = marks.map((m) => MARK_LABEL[m]).find((l) => l !== undefined);
  const meaning = marks.map((m) => MARK_MEANING[m]).filter((m) => m !== undefined);
  return svg(
    "g",
    { "data-target": `space:${space.number}`, class: "valhalla-space" },
    svg("rect", {
      x: x + 3,
      y: y + 3,
      width: CW - 6,
      height: CH - 6,
      rx: 10,
      fill: cellFill(space, marks),
      stroke: SERPENT_DARK,
      "stroke-width": 2,
    }),
    svg("text", { x: x + 9, y: y + 33, "font-size": 34, "font-weight": 700, fill: INK }, space.number),
    icon ? svg("g", { transform: `translate(${x + CW - 38} ${y + 8})` }, icon) : null,
    // the ship on a space covers its label; the icon still shows what the space is
    label && !shipOn(state, space.number)
      ? svg("text", { x: x + CW / 2, y: y + CH - 12, "text-anchor": "middle", "font-size": 24, fill: INK }, label)
      : null,
    title(`Space ${space.number}${meaning.length ? `: ${meaning.join("; ")}` : ""}`),
  );
}

/** A gold bar under each blockade in row three: those ships cannot be attacked or moved. */
function blockadeBars(state: ValhallaState, board: Board, lay: Layout): SVGElement[] {
  const byNumber = new Map(board.spaces.map((s) => [s.number, s]));
  return blockades(state, board).flatMap(([first, last, fleet]) => {
    const a = byNumber.get(first);
    const b = byNumber.get(last);
    if (!a || !b) return [];
    const x1 = Math.min(cellX(a), cellX(b)) + 8;
    const x2 = Math.max(cellX(a), cellX(b)) + CW - 8;
    const y = cellY(a, lay) + CH + 4;
    return [
      svg(
        "rect",
        { x: x1, y, width: x2 - x1, height: 12, rx: 6, fill: "#f2c14e", stroke: INK, "stroke-width": 2 },
        title(`Blockade of ${last - first + 1} ${fleetName(fleet)} ships (${first}–${last}): they cannot be attacked`),
      ),
    ];
  });
}

function boardShips(board: Board, state: ValhallaState, lay: Layout, ctx: Ctx, named: Set<string>): SVGElement[] {
  const byNumber = new Map(board.spaces.map((s) => [s.number, s]));
  return state.ships.flatMap((ship) => {
    const space = ship.position > 0 && ship.position < board.gate ? byNumber.get(ship.position) : undefined;
    if (!space) return [];
    return [shipElement(ship, cellX(space) + CW / 2, cellY(space, lay) + 38, 1, state, ctx, named)];
  });
}

/** The ships still waiting off the board (enter start), light on the left, dark on the right. */
function waitingStrip(state: ValhallaState, lay: Layout, ctx: Ctx, named: Set<string>): SVGElement | null {
  if (!lay.waiting) return null;
  const half = (COLS * CW) / 2;
  const parts = FLEETS.map((fleet, i) => {
    const x0 = ML + i * half;
    const waiting = state.ships.filter((s) => fleetOf(s) === fleet && s.position === 0);
    return svg(
      "g",
      {},
      svg("rect", { x: x0 + 6, y: 10, width: half - 12, height: 140, rx: 12, fill: "#24546b", stroke: "#9cc3d5", "stroke-width": 2 }),
      text(x0 + 20, 42, 26, `${fleetName(fleet)} ships waiting to enter: ${waiting.length}`),
      ...waiting.map((ship, k) => shipElement(ship, x0 + 56 + k * 96, 62, 1, state, ctx, named)),
    );
  });
  return svg("g", { class: "valhalla-waiting" }, ...parts);
}

/** One casting stick: heads up shows its rune, tails up is blank wood, not yet cast is grey. */
function stick(rune: string, face: "heads" | "tails" | "uncast", x: number, y: number): SVGGElement {
  const fill = face === "heads" ? "#f1e2bd" : face === "tails" ? "#8a6440" : "#b9b4a8";
  const name = RUNE_NAMES[rune as RuneKey] ?? rune;
  return svg(
    "g",
    { transform: `translate(${x} ${y})` },
    svg("rect", { x: 0, y: 0, width: 64, height: 150, rx: 30, fill, stroke: INK, "stroke-width": 3 }),
    face === "heads"
      ? svg("path", {
          d: runePath(rune),
          transform: "translate(12 40)",
          fill: "none",
          stroke: "#9b2c1f",
          "stroke-width": 7,
          "stroke-linecap": "round",
          "stroke-linejoin": "round",
        })
      : face === "tails"
        ? svg("path", { d: "M20 20 Q26 75 20 130 M40 24 Q46 75 42 126", fill: "none", stroke: "#5e4128", "stroke-width": 3 })
        : svg("text", { x: 32, y: 88, "text-anchor": "middle", "font-size": 40, fill: "#555" }, "?"),
    text(32, 182, 24, name, { "text-anchor": "middle" }),
    title(`${name}: ${face === "uncast" ? "not cast yet" : `${face} up`}`),
  );
}

/** The four sticks as last cast with the score; also the target of the "Cast the sticks" move. */
function sticksArea(state: ValhallaState, board: Board, lay: Layout, named: Set<string>): SVGGElement {
  const cast = state.cast;
  const x0 = ML;
  const y0 = lay.strip;
  const sticks = board.sticks.map((s, i) => {
    const up = cast ? Boolean(cast[s.rune as RuneKey]) : false;
    return stick(s.rune, cast ? (up ? "heads" : "tails") : "uncast", x0 + 22 + i * 88, y0 + 40);
  });
  const result = cast ? score(cast, state) : undefined;
  const caption = cast
    ? state.phase === ValhallaPhase.EXTRA_POINTS
      ? `${state.points} extra to use`
      : result?.natural
        ? "natural"
        : "unnatural"
    : "";
  return svg(
    "g",
    { "data-target": "sticks", class: "valhalla-sticks" },
    svg("rect", { x: x0 + 4, y: y0, width: 556, height: STRIP - 12, rx: 14, fill: "#24546b", stroke: "#9cc3d5", "stroke-width": 2 }),
    text(x0 + 22, y0 + 30, 26, cast ? "The sticks as cast" : "The sticks: not cast yet"),
    ...sticks,
    cast
      ? svg(
          "g",
          {},
          text(x0 + 470, y0 + 130, 72, `= ${result?.points ?? 0}`, { "text-anchor": "middle", "font-weight": 700 }),
          text(x0 + 470, y0 + 168, 24, caption, { "text-anchor": "middle" }),
        )
      : text(x0 + 470, y0 + 130, 30, named.has("sticks") ? "Cast!" : "", { "text-anchor": "middle" }),
    title(cast ? `The sticks as cast: ${castText(cast, state)}` : "The casting sticks: not cast yet this turn"),
  );
}

/** Odin's hall: the ships of each fleet that passed into Valhalla, in slots 1-6. */
function hall(state: ValhallaState, board: Board, lay: Layout, ctx: Ctx, named: Set<string>): SVGGElement {
  const x0 = ML + 580;
  const x1 = W - 12;
  const y0 = lay.strip;
  const slot = (x1 - x0 - 160) / board.shipsPerFleet;
  const rows = FLEETS.map((fleet, r) => {
    const y = y0 + 70 + r * 86;
    const inHall = state.ships.filter((s) => fleetOf(s) === fleet && s.position >= board.gate);
    return svg(
      "g",
      {},
      text(x0 + 14, y + 40, 26, `${fleetName(fleet)} ${inHall.length}/${board.shipsPerFleet}`, { fill: INK, "font-weight": 700 }),
      ...Array.from({ length: board.shipsPerFleet }, (_, k) =>
        svg("rect", {
          x: x0 + 150 + k * slot + 6,
          y: y - 2,
          width: slot - 12,
          height: 70,
          rx: 8,
          fill: "#f7e7b9",
          stroke: "#b08a2e",
          "stroke-width": 1.5,
        }),
      ),
      ...inHall.map((ship) =>
        shipElement(ship, x0 + 150 + (ship.number - 1) * slot + slot / 2, y + 4, 0.82, state, ctx, named),
      ),
    );
  });
  return svg(
    "g",
    { class: "valhalla-hall" },
    // the hall is also where a move to 36 lands: tapping it offers every ship that can get there
    svg(
      "g",
      { "data-target": `space:${board.gate}` },
      svg("rect", { x: x0, y: y0, width: x1 - x0, height: STRIP - 12, rx: 14, fill: "#f2c14e", stroke: INK, "stroke-width": 2 }),
      svg("path", {
        d: `M${x0 + 20} ${y0 + 44} L${(x0 + x1) / 2} ${y0 + 8} L${x1 - 20} ${y0 + 44}`,
        fill: "none",
        stroke: "#8a5a1e",
        "stroke-width": 6,
        "stroke-linejoin": "round",
      }),
      svg("text", { x: (x0 + x1) / 2, y: y0 + 62, "text-anchor": "middle", "font-size": 30, "font-weight": 700, fill: INK }, "Valhalla"),
      title("Valhalla: ships that passed the serpent's jaws (36)"),
    ),
    ...rows,
  );
}

/** The keys some legal move of the viewer names (ships no move names let taps through). */
function namedKeys(ctx: Ctx): Set<string> {
  return new Set(ctx.moves.flatMap((m) => targets(m, ctx)));
}

function board(ctx: Ctx): SVGSVGElement {
  const state = ctx.state;
  const data = readBoard(ctx.data);
  const lay = layout(state, data);
  const named = namedKeys(ctx);
  return svg(
    "svg",
    {
      viewBox: `0 0 ${W} ${lay.height}`,
      class: "valhalla-board",
      role: "group",
      "aria-label": "Valhalla: the serpent board, the casting sticks and Valhalla",
      "font-family": "system-ui, sans-serif",
    },
    svg("rect", { x: 0, y: 0, width: W, height: lay.height, fill: SEA }),
    waitingStrip(state, lay, ctx, named),
    serpent(data, lay),
    ...rowLabels(data, lay),
    ...data.spaces.map((s) => cellElement(s, data, state, lay)),
    ...blockadeBars(state, data, lay),
    ...boardShips(data, state, lay, ctx, named),
    sticksArea(state, data, lay, named),
    hall(state, data, lay, ctx, named),
  );
}

// ---------------------------------------------------------------------------- moves

function targets(move: ValhallaMove, ctx: Ctx): string[] {
  const action = move.action;
  if (action.case === "cast") return ["sticks"];
  if (action.case === "moveShip") {
    return [`space:${action.value.to}`, `ship:${moverFleet(ctx.state)}:${action.value.ship}`];
  }
  return [];
}

/**
 * The move a tap on an own ship (or the space it stands on) means when no legal move names it:
 * that ship moved by the points to play. The shell has the server check it, whose refusal says
 * why the ship cannot move (a blockade, a ship under repair, a space it may not land on...).
 */
function attempt(key: string, ctx: Ctx): ValhallaMove | undefined {
  const state = ctx.state;
  if (state.points <= 0) return undefined;
  const fleet = moverFleet(state);
  const [kind, a, b] = key.split(":");
  const ship =
    kind === "ship" && a === fleet
      ? shipOf(state, fleet, Number(b))
      : kind === "space"
        ? shipOn(state, Number(a))
        : undefined;
  if (!ship || fleetOf(ship) !== fleet) return undefined;
  const gate = readBoard(ctx.data).gate;
  if (ship.position >= gate) return undefined; // in Valhalla already: no move is meant
  const to = Math.min(ship.position + state.points, gate);
  return create(ValhallaMoveSchema, { action: { case: "moveShip", value: { ship: ship.number, to } } });
}

function describe(move: ValhallaMove, ctx: Ctx): string {
  const action = move.action;
  if (action.case === "cast") {
    const sticks = action.value.sticks;
    return sticks ? `Cast the sticks: ${castText(sticks, ctx.state)}` : "Cast the sticks";
  }
  if (action.case === "moveShip") return describeShipMove(action.value.ship, action.value.to, ctx);
  return "Move";
}

/** "Dark ship 3: 12 → 15, swaps with Light ship 2": a ship move with what it will do. */
function describeShipMove(n: number, to: number, ctx: Ctx): string {
  const state = ctx.state;
  const board = readBoard(ctx.data);
  const fleet = moverFleet(state);
  const ship = shipOf(state, fleet, n);
  const from = ship?.position ?? 0;
  const name = `${fleetName(fleet)} ship ${n}`;
  const prefix = state.phase === ValhallaPhase.EXTRA_POINTS ? `Extra ${state.points}: ` : "";
  if (from === 0) return `${prefix}${name} enters on ${to}`;
  if (to >= board.gate) return `${prefix}${name}: ${from} → Valhalla`;
  const notes: string[] = [];
  if (to < from) notes.push("backward");
  if (ship?.underRepair) notes.push("leaves the repair yard");
  const other = shipOn(state, to);
  if (other && fleetOf(other) !== fleet) notes.push(`swaps with ${fleetName(fleetOf(other))} ship ${other.number}`);
  if (to === board.rockyShoal) notes.push("runs aground on the rocky shoal");
  else if (board.safeHarbours.includes(to)) notes.push("safe harbour");
  return `${prefix}${name}: ${from} → ${to}${notes.length ? `, ${notes.join(", ")}` : ""}`;
}

// ---------------------------------------------------------------------------- panel

function seatLabel(ctx: Ctx, seat: number | undefined): string {
  if (seat === undefined) return "not chosen";
  const name = ctx.seatNames[seat] ?? `Seat ${seat + 1}`;
  return seat === ctx.seat ? `${name} (you)` : name;
}

function fleetTable(ctx: Ctx, board: Board): HTMLElement {
  const state = ctx.state;
  const entering = enterStart(state);
  const rowOne = board.rows.find((r) => r.row === 1);
  const head = ["Fleet", "Player", ...(entering ? ["Waiting"] : []), "Sailing", "In row 1", "In Valhalla"];
  const body = FLEETS.map((fleet) => {
    const ships = state.ships.filter((s) => fleetOf(s) === fleet);
    const waiting = ships.filter((s) => s.position === 0).length;
    const sailing = ships.filter((s) => s.position > 0 && s.position < board.gate);
    const inRowOne = rowOne ? ships.filter((s) => s.position <= rowOne.last && s.position < board.gate).length : 0;
    const repair = sailing.filter((s) => s.underRepair).map((s) => s.number);
    const done = ships.filter((s) => s.position >= board.gate).length;
    return h(
      "tr",
      {},
      h(
        "th",
        { scope: "row" },
        h("span", { class: `valhalla-chip valhalla-chip-${fleet}` }, fleet === "light" ? "L" : "D"),
        ` ${fleetName(fleet)}`,
      ),
      h("td", {}, seatLabel(ctx, seatOf(state, fleet))),
      entering ? h("td", {}, waiting) : null,
      h("td", {}, sailing.length, repair.length ? ` (ship ${repair.join(", ")} under repair)` : ""),
      h("td", {}, inRowOne),
      h("td", {}, `${done}/${ships.length}`),
    );
  });
  return h(
    "table",
    { class: "valhalla-fleets" },
    h("thead", {}, h("tr", {}, ...head.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, ...body),
  );
}

function castLine(state: ValhallaState): string {
  if (state.phase === ValhallaPhase.CHOOSING_COLOURS) {
    return "Choosing colours: players cast in turn; the first natural one takes the dark ships.";
  }
  if (!state.cast) return "Not cast yet this turn.";
  const text = castText(state.cast, state);
  if (state.phase === ValhallaPhase.OVER) return `Last cast: ${text}.`;
  if (state.phase === ValhallaPhase.EXTRA_POINTS) {
    return `${text}. A ship passed into Valhalla: ${state.points} extra point${state.points === 1 ? "" : "s"} for another ship.`;
  }
  return `${text}: move a ship ${state.points}.`;
}

function rulesLine(state: ValhallaState): string {
  const o = state.options;
  const parts = [
    o?.start === ValhallaStart.ENTER ? "ships enter from off the board" : "layout start",
    o?.scoring === ValhallaScoring.TRADITIONAL
      ? "traditional 1-to-1 scoring"
      : o?.hagalaz === ValhallaHagalaz.CANCELS_OWN
        ? "runes; Hagalaz cancels only its own point"
        : "runes; Hagalaz cancels another stick's point",
    o?.doubles ? "doubles (5, 4, natural 1) throw again" : "no doubles",
  ];
  return parts.join("; ");
}

function legend(board: Board, state: ValhallaState): HTMLElement {
  const items: [string, string][] = [
    ["Home port", String(board.homePort)],
    ["Repair yard", `${board.repairYard}: leave only on a natural one after running aground`],
    ["Rocky shoal", `${board.rockyShoal}: run aground, go to the repair yard`],
    ["Safe harbours", `${board.safeHarbours.join(", ")}: cannot be attacked`],
    ["Blockade", "2, 4 or 6 adjacent ships of one fleet in row 3 (gold bar) cannot be attacked"],
    ["Gate", `${board.gate}: into Valhalla (row 1 must be clear first)`],
  ];
  if (enterStart(state)) items.unshift(["Entry", `${board.entrySpaces.join(", ")}: ships here cannot be hit`]);
  return h(
    "details",
    { class: "valhalla-legend" },
    h("summary", {}, "Special spaces"),
    h("dl", {}, ...items.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
  );
}

function panel(ctx: Ctx): HTMLElement {
  const state = ctx.state;
  const data = readBoard(ctx.data);
  const won = state.winner >= 0 ? fleetOfSeat(state, state.winner) : undefined;
  const winner =
    state.winner >= 0
      ? `${seatLabel(ctx, state.winner)} wins: all ${won === "dark" ? "dark" : "light"} ships are in Valhalla.`
      : null;
  return h(
    "div",
    { class: "valhalla-panel" },
    fleetTable(ctx, data),
    h(
      "dl",
      { class: "valhalla-facts" },
      winner ? h("dt", {}, "Winner") : null,
      winner ? h("dd", {}, winner) : null,
      h("dt", {}, "Sticks"),
      h("dd", {}, castLine(state)),
      h("dt", {}, "Rules"),
      h("dd", {}, rulesLine(state)),
    ),
    legend(data, state),
  );
}

// ---------------------------------------------------------------------------- seats

/** Seats are players: which fleet each sails is decided in play (the first natural one takes dark). */
function seatNames(players: number, _data: JsonObject): string[] {
  return Array.from({ length: players }, (_, i) => `Player ${i + 1}`);
}

export const ui: GameUI<ValhallaState, ValhallaMove> = { seatNames, board, targets, attempt, describe, panel };
