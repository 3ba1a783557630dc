/**
 * Penki: wooden tiles stacked on a base line, each with two cavities that take a pair of pieces.
 *
 * The board draws the play area on the engine's cavity grid (x to the right, y = 0 resting on the
 * base line), with chess-like cavity names (column letters from the grid's leftmost reachable
 * column, row numbers from the base line) so a cavity keeps its name as the play area grows. Below
 * the base line: the bag (during the setup) or the tile supply, then each player's pairs.
 *
 * Targets: a tile connection is picked by the free places it covers (`slot:x:y`), so tapping the
 * outer place of a flat tile or the upper place of an upright one picks that tile alone; a pair
 * placement by the empty tile (`tile:x:y`) or the pair in the hand (`pair:seat:ab`); the draw by
 * the bag (`bag`). Penki has no hidden information, but a session may still leave a hand out, so
 * nothing here assumes both hands are present.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import {
  PenkiAlignment,
  PenkiOrientation,
  PenkiPhase,
  PenkiPiece,
  PenkiSetup,
  PenkiStuck,
  PenkiTiles,
  type PenkiMove,
  type PenkiPair,
  type PenkiState,
  type PenkiTile,
} from "@lawspeaker/client";
import { h, SEAT_COLOURS, SEAT_INK, svg, title } from "../dom.js";
import type { BoardContext, GameUI } from "./types.js";

type Ctx = BoardContext<PenkiState, PenkiMove>;

// ------------------------------------------------------------------ geometry and data

/** One cavity cell of the board, in viewBox units (large enough to tap at 360 px). */
const C = 44;
const MARGIN_LEFT = 30; // room for the row numbers
const MARGIN_RIGHT = 10;
const MARGIN_TOP = 8;
const LETTERS_H = 26; // the column letters under the base line
const STRIP_H = 46; // the bag or the supply
const HAND_H = 86; // one player's pairs
const FONT = 18;

const WOOD = "#d9b382";
const WOOD_EDGE = "#8a6239";
const HOLE = "#9c7447";
const JOKER_FILL = "#e9c46a";
const JOKER_INK = "#6b4e0e";
const OUTLINE = "#1b1b1b";
const WIN_LINE = "#1d4ed8";

/** The six kinds of pair, in the order the engine counts them (DescribeGame's `pair_kinds`). */
const PAIR_KINDS: [PenkiPiece, PenkiPiece][] = [
  [PenkiPiece.LIGHT, PenkiPiece.LIGHT],
  [PenkiPiece.LIGHT, PenkiPiece.DARK],
  [PenkiPiece.LIGHT, PenkiPiece.JOKER],
  [PenkiPiece.DARK, PenkiPiece.DARK],
  [PenkiPiece.DARK, PenkiPiece.JOKER],
  [PenkiPiece.JOKER, PenkiPiece.JOKER],
];

/** A number from DescribeGame's data (`grid.x_min`...), or the fallback when absent. */
function dataNumber(data: JsonObject, path: string[], fallback: number): number {
  let value: unknown = data;
  for (const key of path) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return fallback;
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === "number" ? value : fallback;
}

interface Rules {
  xMin: number; // the leftmost column the play area can reach (column "a")
  xMax: number;
  maxWidth: number;
  tiles: number; // tiles in the game, the starting one included
  rowToWin: number;
}

function rules(data: JsonObject): Rules {
  return {
    xMin: dataNumber(data, ["grid", "x_min"], -7),
    xMax: dataNumber(data, ["grid", "x_max"], 8),
    maxWidth: dataNumber(data, ["max_width"], 9),
    tiles: dataNumber(data, ["tiles"], 28),
    rowToWin: dataNumber(data, ["row_to_win"], 5),
  };
}

const upright = (o: PenkiOrientation): boolean => o === PenkiOrientation.UPRIGHT;

/** The two cavities a tile at (x, y) covers: first (left or lower), then second. */
function cavities(x: number, y: number, o: PenkiOrientation): [number, number][] {
  return [
    [x, y],
    upright(o) ? [x, y + 1] : [x + 1, y],
  ];
}

/** A cavity's name: column letter (from the grid's leftmost column) and row from the base line. */
function cavityName(x: number, y: number, r: Rules): string {
  const col = x - r.xMin;
  const letter = col >= 0 && col < 26 ? String.fromCharCode(97 + col) : `(${x})`;
  return `${letter}${y + 1}`;
}

function tileName(x: number, y: number, o: PenkiOrientation, r: Rules): string {
  const [[x1, y1], [x2, y2]] = cavities(x, y, o);
  return `${cavityName(x1, y1, r)}–${cavityName(x2, y2, r)}`;
}

const PIECE_WORDS: Record<number, string> = {
  [PenkiPiece.LIGHT]: "light",
  [PenkiPiece.DARK]: "dark",
  [PenkiPiece.JOKER]: "joker",
};
const pieceWord = (p: PenkiPiece): string => PIECE_WORDS[p] ?? "?";

/** The key of an unordered pair kind, e.g. "12" for light + dark. */
function kindKey(a: PenkiPiece, b: PenkiPiece): string {
  return a <= b ? `${a}${b}` : `${b}${a}`;
}

/** How many pairs of each kind a hand holds (index as PAIR_KINDS). */
function kindCounts(pairs: PenkiPair[]): number[] {
  return PAIR_KINDS.map(([a, b]) => pairs.filter((p) => kindKey(p.first, p.second) === kindKey(a, b)).length);
}

/** The pieces on the board, by "x,y" (empty cavities as UNSPECIFIED). */
function cavityMap(tiles: PenkiTile[]): Map<string, PenkiPiece> {
  const map = new Map<string, PenkiPiece>();
  for (const t of tiles) {
    const [c1, c2] = cavities(t.x, t.y, t.orientation);
    map.set(`${c1[0]},${c1[1]}`, t.first);
    map.set(`${c2[0]},${c2[1]}`, t.second);
  }
  return map;
}

/** The cavities of a row of at least `rowToWin` for `seat`'s colour (jokers count), or none. */
function winningRow(state: PenkiState, seat: number, r: Rules): [number, number][] {
  const mine = seat === 0 ? PenkiPiece.LIGHT : PenkiPiece.DARK;
  const map = cavityMap(state.tiles);
  const counts = (x: number, y: number): boolean => {
    const p = map.get(`${x},${y}`);
    return p === mine || p === PenkiPiece.JOKER;
  };
  for (const key of map.keys()) {
    const [x, y] = key.split(",").map(Number);
    for (const [dx, dy] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
      if (!counts(x, y) || counts(x - dx, y - dy)) continue; // start only where a run starts
      const row: [number, number][] = [];
      while (counts(x + row.length * dx, y + row.length * dy)) row.push([x + row.length * dx, y + row.length * dy]);
      if (row.length >= r.rowToWin) return row;
    }
  }
  return [];
}

/** The free places legal tile connections cover, by "x,y". */
function slotsOf(moves: PenkiMove[]): Set<string> {
  const slots = new Set<string>();
  for (const m of moves) {
    if (m.action.case !== "connectTile") continue;
    const { x, y, orientation } = m.action.value;
    for (const [cx, cy] of cavities(x, y, orientation)) slots.add(`${cx},${cy}`);
  }
  return slots;
}

/** The columns and rows the board shows: the play area and its targets, at least `maxWidth` wide. */
interface View {
  x0: number; // leftmost column shown
  cols: number;
  rows: number;
}

function viewOf(state: PenkiState, slots: Set<string>, r: Rules): View {
  const xs: number[] = [];
  const tops: number[] = [0];
  for (const t of state.tiles) {
    for (const [x, y] of cavities(t.x, t.y, t.orientation)) {
      xs.push(x);
      tops.push(y);
    }
  }
  for (const s of slots) {
    const [x, y] = s.split(",").map(Number);
    xs.push(x);
    tops.push(y);
  }
  if (xs.length === 0) xs.push(0, 1);
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const cols = Math.max(r.maxWidth, hi - lo + 1);
  // centre the play area, kept within the columns the play area can reach (so each has a letter)
  let x0 = lo - Math.floor((cols - (hi - lo + 1)) / 2);
  x0 = Math.max(Math.min(x0, r.xMax - cols + 1), Math.min(r.xMin, lo));
  // the free places show where the next layer goes; without them keep one empty row above the top
  return { x0, cols, rows: Math.max(3, Math.max(...tops) + (slots.size ? 1 : 2)) };
}

// ------------------------------------------------------------------ drawing

/** Points of a five-pointed star around (cx, cy): the joker's shape cue. */
function starPoints(cx: number, cy: number, outer: number): string {
  const points: string[] = [];
  for (let i = 0; i < 10; i++) {
    const radius = i % 2 === 0 ? outer : outer * 0.45;
    const angle = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push(`${(cx + radius * Math.cos(angle)).toFixed(1)},${(cy + radius * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

/** A piece: seat colour with an outline and the seat's initial, or a joker with a star. */
function pieceShape(p: PenkiPiece, cx: number, cy: number, radius: number, names: string[]): SVGGElement {
  const g = svg("g", { class: "penki-piece" });
  if (p === PenkiPiece.JOKER) {
    g.append(
      svg("circle", { cx, cy, r: radius, fill: JOKER_FILL, stroke: OUTLINE, "stroke-width": 1.5 }),
      svg("polygon", { points: starPoints(cx, cy, radius * 0.75), fill: JOKER_INK }),
    );
    return g;
  }
  const seat = p === PenkiPiece.LIGHT ? 0 : 1;
  g.append(
    svg("circle", { cx, cy, r: radius, fill: SEAT_COLOURS[seat], stroke: OUTLINE, "stroke-width": 1.5 }),
    svg(
      "text",
      {
        x: cx,
        y: cy,
        "font-size": Math.round(radius * 1.15),
        "font-weight": 700,
        "text-anchor": "middle",
        "dominant-baseline": "central",
        fill: SEAT_INK[seat],
        "pointer-events": "none",
      },
      (names[seat] ?? (seat === 0 ? "Light" : "Dark")).charAt(0).toUpperCase(),
    ),
  );
  return g;
}

/** Placement of the board's parts in viewBox units. */
class Frame {
  readonly width: number;
  readonly base: number; // y of the base line
  constructor(readonly view: View) {
    this.width = MARGIN_LEFT + view.cols * C + MARGIN_RIGHT;
    this.base = MARGIN_TOP + view.rows * C;
  }
  /** The left edge of column x. */
  left(x: number): number {
    return MARGIN_LEFT + (x - this.view.x0) * C;
  }
  /** The top edge of row y. */
  top(y: number): number {
    return this.base - (y + 1) * C;
  }
}

function drawGrid(f: Frame, r: Rules, lo: number, hi: number): SVGGElement {
  const g = svg("g", { class: "penki-grid" });
  const { x0, cols, rows } = f.view;
  // columns a new tile could never reach without making the play area too wide
  for (let x = x0; x < x0 + cols; x++) {
    if (x >= hi - (r.maxWidth - 1) && x <= lo + (r.maxWidth - 1)) continue;
    g.append(
      svg(
        "rect",
        { x: f.left(x), y: MARGIN_TOP, width: C, height: rows * C, fill: "url(#penki-hatch)" },
        title(`Column ${cavityName(x, 0, r).slice(0, -1)}: beyond the ${r.maxWidth}-cavity width limit`),
      ),
    );
  }
  for (let x = x0; x < x0 + cols; x++) {
    for (let y = 0; y < rows; y++) {
      g.append(svg("circle", { cx: f.left(x) + C / 2, cy: f.top(y) + C / 2, r: 2, fill: "#b9ab94" }));
    }
    g.append(
      svg(
        "text",
        { x: f.left(x) + C / 2, y: f.base + 19, "font-size": FONT, "text-anchor": "middle", fill: "#5b4636" },
        cavityName(x, 0, r).slice(0, -1),
      ),
    );
  }
  for (let y = 0; y < rows; y++) {
    g.append(
      svg(
        "text",
        { x: MARGIN_LEFT - 8, y: f.top(y) + C / 2, "font-size": FONT, "text-anchor": "end", "dominant-baseline": "central", fill: "#5b4636" },
        String(y + 1),
      ),
    );
  }
  g.append(
    svg(
      "line",
      { x1: MARGIN_LEFT - 4, y1: f.base, x2: f.width - 2, y2: f.base, stroke: "#5b4636", "stroke-width": 4, "stroke-linecap": "round" },
      title("The base line"),
    ),
  );
  return g;
}

function drawTile(t: PenkiTile, f: Frame, r: Rules, names: string[], targetable: boolean): SVGGElement {
  const cells = cavities(t.x, t.y, t.orientation);
  const left = f.left(Math.min(cells[0][0], cells[1][0]));
  const top = f.top(Math.max(cells[0][1], cells[1][1]));
  const wide = upright(t.orientation) ? C : 2 * C;
  const tall = upright(t.orientation) ? 2 * C : C;
  const empty = t.first === PenkiPiece.UNSPECIFIED;
  const name = tileName(t.x, t.y, t.orientation, r);
  const g = svg(
    "g",
    { class: "penki-tile", "data-target": targetable && empty ? `tile:${t.x}:${t.y}` : null },
    svg("rect", { x: left + 2, y: top + 2, width: wide - 4, height: tall - 4, rx: 7, fill: WOOD, stroke: WOOD_EDGE, "stroke-width": 2 }),
  );
  cells.forEach(([x, y], i) => {
    const cx = f.left(x) + C / 2;
    const cy = f.top(y) + C / 2;
    const piece = i === 0 ? t.first : t.second;
    if (piece === PenkiPiece.UNSPECIFIED) g.append(svg("circle", { cx, cy, r: C * 0.3, fill: HOLE }));
    else g.append(pieceShape(piece, cx, cy, C * 0.36, names));
  });
  const what = empty
    ? `Tile ${name}, empty${targetable ? ": place a pair here" : ""}`
    : `Tile ${name}: ${pieceWord(t.first)} and ${pieceWord(t.second)}`;
  g.append(title(what));
  return g;
}

/** A free place a new tile may cover: tapping it offers the tiles that cover it. */
function drawSlot(x: number, y: number, f: Frame, r: Rules): SVGGElement {
  const left = f.left(x);
  const top = f.top(y);
  const mid = C / 2;
  return svg(
    "g",
    { class: "penki-slot", "data-target": `slot:${x}:${y}` },
    svg("rect", { x: left + 3, y: top + 3, width: C - 6, height: C - 6, rx: 6, fill: "#fff4de", stroke: "#c9a26b", "stroke-width": 1.5 }),
    svg("path", {
      d: `M${left + mid - 8} ${top + mid}h16M${left + mid} ${top + mid - 8}v16`,
      stroke: "#b7791f",
      "stroke-width": 3,
      "stroke-linecap": "round",
      "pointer-events": "none",
    }),
    title(`Free place ${cavityName(x, y, r)}: connect a tile here`),
  );
}

function drawWinningRow(row: [number, number][], f: Frame): SVGGElement {
  const centre = ([x, y]: [number, number]): [number, number] => [f.left(x) + C / 2, f.top(y) + C / 2];
  const [x1, y1] = centre(row[0]);
  const [x2, y2] = centre(row[row.length - 1]);
  // a ring round each piece of the row and a thin line through them, so the pieces stay legible
  return svg(
    "g",
    { class: "penki-win", "pointer-events": "none" },
    svg("line", { x1, y1, x2, y2, stroke: WIN_LINE, "stroke-width": 3, "stroke-linecap": "round", opacity: 0.6 }),
    ...row.map((cell) => {
      const [cx, cy] = centre(cell);
      return svg("circle", { cx, cy, r: C * 0.43, fill: "none", stroke: WIN_LINE, "stroke-width": 3.5 });
    }),
    title("The winning row"),
  );
}

/** The strip under the base line: the bag while pairs are drawn (the draw's target), else the supply. */
function drawStrip(ctx: Ctx, f: Frame, r: Rules, y: number): SVGGElement {
  const s = ctx.state;
  const drawing = s.phase === PenkiPhase.DRAW;
  const canDraw = ctx.moves.some((m) => m.action.case === "draw");
  const x = 12;
  const width = f.width - 24;
  const g = svg("g", { class: "penki-strip", "data-target": drawing && canDraw ? "bag" : null });
  g.append(svg("rect", { x, y: y + 4, width, height: STRIP_H - 8, rx: 10, fill: drawing ? "#efe3cf" : "#f6f1e7", stroke: "#b9ab94", "stroke-width": 1.5 }));
  const mid = y + STRIP_H / 2;
  if (drawing) {
    const bag = s.bag;
    let cx = x + 16;
    g.append(svg("text", { x: cx, y: mid, "font-size": FONT, "font-weight": 600, "dominant-baseline": "central", fill: "#3b2f25" }, "Bag:"));
    cx += 58;
    const counts: [PenkiPiece, number][] = [
      [PenkiPiece.LIGHT, bag?.light ?? 0],
      [PenkiPiece.DARK, bag?.dark ?? 0],
      [PenkiPiece.JOKER, bag?.joker ?? 0],
    ];
    for (const [piece, n] of counts) {
      g.append(pieceShape(piece, cx, mid, 11, ctx.seatNames));
      g.append(svg("text", { x: cx + 15, y: mid, "font-size": FONT, "dominant-baseline": "central", fill: "#3b2f25" }, `×${n}`));
      cx += 64;
    }
    g.append(title(canDraw ? "The bag: draw two pieces" : "The bag"));
  } else {
    const supply = Math.max(0, r.tiles - s.tiles.length);
    // a small stack of tiles, then the count
    for (let i = 0; i < Math.min(3, supply); i++) {
      g.append(svg("rect", { x: x + 14 + i * 4, y: mid - 9 - i * 4, width: 34, height: 16, rx: 4, fill: WOOD, stroke: WOOD_EDGE, "stroke-width": 1.5 }));
    }
    const text = supply === 1 ? "1 tile left in the supply" : `${supply} tiles left in the supply`;
    g.append(svg("text", { x: x + 64, y: mid, "font-size": FONT, "dominant-baseline": "central", fill: "#3b2f25" }, text));
    g.append(title(text));
  }
  return g;
}

/** One player's pairs: the six kinds with their counts; the kinds the player may place are targets. */
function drawHand(ctx: Ctx, seat: number, f: Frame, y: number): SVGGElement {
  const s = ctx.state;
  const names = ctx.seatNames;
  const name = names[seat] ?? `Player ${seat + 1}`;
  const hand = s.hands[seat];
  const g = svg("g", { class: "penki-hand" });
  const you = ctx.seat === seat ? " (you)" : "";
  const total = hand ? hand.pairs.length : 0;
  g.append(pieceShape(seat === 0 ? PenkiPiece.LIGHT : PenkiPiece.DARK, 22, y + 14, 9, names));
  g.append(
    svg(
      "text",
      { x: 38, y: y + 14, "font-size": FONT, "font-weight": 600, "dominant-baseline": "central", fill: "#3b2f25" },
      hand ? `${name}${you}: ${total} ${total === 1 ? "pair" : "pairs"}` : `${name}${you}: pairs not shown`,
    ),
  );
  if (!hand) return g;
  const counts = kindCounts(hand.pairs);
  const placeable = new Set(
    ctx.moves.flatMap((m) => (m.action.case === "placePair" ? [kindKey(m.action.value.first, m.action.value.second)] : [])),
  );
  const cellW = (f.width - 24) / PAIR_KINDS.length;
  PAIR_KINDS.forEach(([a, b], i) => {
    const left = 12 + i * cellW;
    const top = y + 30;
    const key = kindKey(a, b);
    const target = seat === s.turn && placeable.has(key);
    const n = counts[i];
    const cell = svg(
      "g",
      { class: "penki-pair", "data-target": target ? `pair:${seat}:${key}` : null, opacity: n === 0 ? 0.3 : null },
      svg("rect", { x: left + 3, y: top, width: cellW - 6, height: HAND_H - 36, rx: 8, fill: "#f6f1e7", stroke: "#cbbfa9", "stroke-width": 1 }),
    );
    const cx = left + cellW / 2;
    cell.append(svg("rect", { x: cx - 25, y: top + 5, width: 50, height: 26, rx: 6, fill: WOOD, stroke: WOOD_EDGE, "stroke-width": 1.5 }));
    cell.append(pieceShape(a, cx - 12, top + 18, 10, names), pieceShape(b, cx + 12, top + 18, 10, names));
    cell.append(svg("text", { x: cx, y: top + 42, "font-size": FONT - 1, "text-anchor": "middle", fill: "#3b2f25" }, `×${n}`));
    cell.append(title(`${name}: ${n} × ${pieceWord(a)} + ${pieceWord(b)}${target ? ": place this pair" : ""}`));
    g.append(cell);
  });
  return g;
}

function board(ctx: Ctx): SVGSVGElement {
  const s = ctx.state;
  const r = rules(ctx.data);
  const slots = slotsOf(ctx.moves);
  const f = new Frame(viewOf(s, slots, r));
  const height = f.base + LETTERS_H + STRIP_H + 2 * HAND_H + 6;
  const root = svg("svg", {
    viewBox: `0 0 ${f.width} ${height}`,
    role: "group",
    "aria-label": `Penki play area, ${s.tiles.length} ${s.tiles.length === 1 ? "tile" : "tiles"}`,
    class: "penki-board",
  });
  root.append(
    svg(
      "defs",
      {},
      svg(
        "pattern",
        { id: "penki-hatch", width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
        svg("rect", { width: 8, height: 8, fill: "#ece6da" }),
        svg("line", { x1: 0, y1: 0, x2: 0, y2: 8, stroke: "#c9bfae", "stroke-width": 3 }),
      ),
    ),
    svg("rect", { x: 0, y: 0, width: f.width, height: f.base, fill: "#faf6ee" }),
  );
  const xs = s.tiles.flatMap((t) => cavities(t.x, t.y, t.orientation).map(([x]) => x));
  root.append(drawGrid(f, r, xs.length ? Math.min(...xs) : 0, xs.length ? Math.max(...xs) : 1));
  const placeTiles = new Set(ctx.moves.flatMap((m) => (m.action.case === "placePair" ? [`${m.action.value.x},${m.action.value.y}`] : [])));
  for (const t of s.tiles) root.append(drawTile(t, f, r, ctx.seatNames, placeTiles.has(`${t.x},${t.y}`)));
  for (const slot of slots) {
    const [x, y] = slot.split(",").map(Number);
    root.append(drawSlot(x, y, f, r));
  }
  if (s.phase === PenkiPhase.OVER && s.winner >= 0) {
    const row = winningRow(s, s.winner, r);
    if (row.length) root.append(drawWinningRow(row, f));
  }
  const stripTop = f.base + LETTERS_H;
  root.append(drawStrip(ctx, f, r, stripTop));
  for (let seat = 0; seat < 2; seat++) root.append(drawHand(ctx, seat, f, stripTop + STRIP_H + seat * HAND_H));
  return root;
}

// ------------------------------------------------------------------ moves in words

function targets(move: PenkiMove, ctx: Ctx): string[] {
  const a = move.action;
  switch (a.case) {
    case "draw":
      return ["bag"];
    case "connectTile":
      // the place only this tile covers first: tapping it picks the tile at once
      return cavities(a.value.x, a.value.y, a.value.orientation)
        .reverse()
        .map(([x, y]) => `slot:${x}:${y}`);
    case "placePair":
      return [`tile:${a.value.x}:${a.value.y}`, `pair:${ctx.state.turn}:${kindKey(a.value.first, a.value.second)}`];
    default:
      return [];
  }
}

function describe(move: PenkiMove, ctx: Ctx): string {
  const r = rules(ctx.data);
  const a = move.action;
  switch (a.case) {
    case "draw": {
      const pair = a.value.pair;
      if (pair) return `Draw ${pieceWord(pair.first)} + ${pieceWord(pair.second)} from the bag`;
      return ctx.state.options?.setup === PenkiSetup.RANDOM_PAIRS
        ? "Deal all the pairs from the bag at random"
        : "Draw two pieces from the bag";
    }
    case "connectTile": {
      const { x, y, orientation } = a.value;
      const how = upright(orientation) ? "an upright tile" : "a flat tile";
      const where = y === 0 ? " on the base line" : "";
      return `Connect ${how} at ${tileName(x, y, orientation, r)}${where}`;
    }
    case "placePair": {
      const { x, y, first, second } = a.value;
      const tile = ctx.state.tiles.find((t) => t.x === x && t.y === y && t.first === PenkiPiece.UNSPECIFIED);
      const o = tile?.orientation ?? PenkiOrientation.HORIZONTAL;
      const pair = `${pieceWord(first)} + ${pieceWord(second)}`;
      if (first === second) return `Place ${pair} in tile ${tileName(x, y, o, r)}`;
      // a mixed pair goes in either way round: name where each piece goes
      const [c1, c2] = cavities(x, y, o);
      return `Place ${pair} in tile ${tileName(x, y, o, r)}: ${pieceWord(first)} in ${cavityName(c1[0], c1[1], r)}, ${pieceWord(second)} in ${cavityName(c2[0], c2[1], r)}`;
    }
    case "pass":
      return "Pass (not allowed in Penki)";
    default:
      return "Move";
  }
}

// ------------------------------------------------------------------ the panel

function pieceCounts(pairs: PenkiPair[]): [number, number, number] {
  const counts: [number, number, number] = [0, 0, 0];
  for (const p of pairs) {
    for (const piece of [p.first, p.second]) {
      if (piece >= PenkiPiece.LIGHT && piece <= PenkiPiece.JOKER) counts[piece - 1]++;
    }
  }
  return counts;
}

/** The options that differ from the defaults, in words. */
function optionNotes(s: PenkiState): string[] {
  const o = s.options;
  if (!o) return [];
  const notes: string[] = [];
  if (o.setup === PenkiSetup.RANDOM_PAIRS) notes.push("Pairs dealt at random in one step.");
  if (o.tiles === PenkiTiles.HORIZONTAL_ONLY) notes.push("Tiles lie flat only.");
  if (o.alignment === PenkiAlignment.TILES) notes.push("A tile above the base line sits exactly on one tile (no brick-wise offset).");
  if (o.stuck === PenkiStuck.DRAW) notes.push("The game is a draw as soon as the player on turn cannot move.");
  return notes;
}

function handsTable(ctx: Ctx): HTMLTableElement {
  const rows = [0, 1].map((seat) => {
    const hand = ctx.state.hands[seat];
    const name = `${ctx.seatNames[seat] ?? `Player ${seat + 1}`}${ctx.seat === seat ? " (you)" : ""}`;
    if (!hand) return h("tr", {}, h("th", { scope: "row" }, name), h("td", { colspan: 4 }, "not shown"));
    const [light, dark, joker] = pieceCounts(hand.pairs);
    return h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, hand.pairs.length), h("td", {}, light), h("td", {}, dark), h("td", {}, joker));
  });
  return h(
    "table",
    { class: "penki-hands" },
    h("caption", {}, "In front of each player"),
    h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", { scope: "col" }, "Pairs"), h("th", { scope: "col" }, "Light"), h("th", { scope: "col" }, "Dark"), h("th", { scope: "col" }, "Jokers"))),
    h("tbody", {}, ...rows),
  );
}

function panel(ctx: Ctx): HTMLElement {
  const s = ctx.state;
  const r = rules(ctx.data);
  const xs = s.tiles.flatMap((t) => cavities(t.x, t.y, t.orientation).map(([x]) => x));
  const width = xs.length ? Math.max(...xs) - Math.min(...xs) + 1 : 0;
  const free = s.tiles.filter((t) => t.first === PenkiPiece.UNSPECIFIED).length * 2;
  const facts = h(
    "dl",
    { class: "penki-facts" },
    h("dt", {}, "Supply"),
    h("dd", {}, `${Math.max(0, r.tiles - s.tiles.length)} of ${r.tiles - 1} tiles`),
    h("dt", {}, "Play area"),
    h("dd", {}, `${s.tiles.length} ${s.tiles.length === 1 ? "tile" : "tiles"}, ${width} of ${r.maxWidth} cavities wide, ${free} empty ${free === 1 ? "cavity" : "cavities"}`),
  );
  const bag = s.bag;
  if (bag && bag.light + bag.dark + bag.joker > 0) {
    facts.append(h("dt", {}, "Bag"), h("dd", {}, `${bag.light} light, ${bag.dark} dark, ${bag.joker} jokers`));
  }
  const box = h("div", { class: "penki-panel" });
  if (s.phase === PenkiPhase.CONNECT) {
    box.append(h("p", { class: "penki-note" }, "The last two free cavities were filled: a new tile must be connected now, in the same turn."));
  }
  box.append(facts, handsTable(ctx));
  box.append(
    h(
      "p",
      { class: "penki-legend" },
      `Pieces: ${ctx.seatNames[0]?.charAt(0) ?? "L"} light, ${ctx.seatNames[1]?.charAt(0) ?? "D"} dark, ★ joker (counts for both). Row of ${r.rowToWin} wins. Cavities are named by column letter and row from the base line.`,
    ),
  );
  const notes = optionNotes(s);
  if (notes.length) box.append(h("ul", { class: "penki-options" }, ...notes.map((n) => h("li", {}, n))));
  return box;
}

function seatNames(players: number, _data: JsonObject): string[] {
  const names = ["Light", "Dark"];
  return Array.from({ length: players }, (_, i) => names[i] ?? `Player ${i + 1}`);
}

export const ui: GameUI<PenkiState, PenkiMove> = { seatNames, board, targets, describe, panel };
