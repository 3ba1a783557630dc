/**
 * Pax Penning: the map (roads, stars, crossroads with runestones, dice and pawns, Sigtuna with its
 * stones and the King), the player coins of the King's Path and each House by its seat, then below
 * the map the market bowls, the Hierarchy, the dice of this turn and the viewing seat's own House.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { PaxPenningMove, PaxPenningState } from "@lawspeaker/client";
import { PaxPenningPhase as Phase, PaxPenningPiece as Piece, PaxPenningVictory as Victory } from "@lawspeaker/client";
import { h, SEAT_COLOURS, SEAT_INK, svg, title } from "../dom.js";
import type { BoardContext, GameUI } from "./types.js";

type Ctx = BoardContext<PaxPenningState, PaxPenningMove>;

// ---------------------------------------------------------------- the map data (DescribeGame data.board)

interface Point {
  id: string;
  x: number;
  y: number;
}
interface Node extends Point {
  next: string;
}
interface Space extends Node {
  difficult: boolean;
}
interface BowlData {
  id: string;
  value: number;
  printed: string | null;
}
interface SeatData {
  seat: number;
  x: number;
  y: number;
}
interface BoardData {
  sigtuna: Point;
  stars: Node[];
  royal_stars?: string[];
  crossroads: Node[];
  spaces: Space[];
  bowls: BowlData[];
  seats: SeatData[];
  dice?: number;
  things_to_end?: number;
}

function boardOf(data: JsonObject): BoardData {
  // DescribeGame's data is the engine's board.json; its shape is fixed by board.py's validation.
  return data.board as unknown as BoardData;
}

/** Map coordinates (a 100 x 100 box) to the SVG's (a 1000 wide map). */
const S = 10;
const MAP = 1000;
const WIDTH = 1000;
const MARKET_Y = MAP + 8;
const HEIGHT = MARKET_Y + 152;
/** The dice tray and the viewer's House sit in the empty south-east and south-west of the map. */
const DICE_BOX = { x: 556, y: 730, w: 372, h: 200 };
const HOUSE_BOX = { x: 72, y: 748, w: 380, h: 182 };
/** The Hierarchy column, in the map's empty west part (where the printed map has it). */
const HIER_X = 145;
const HIER_TOP = 278;
const HIER_STEP = 58;

const PIECE_NAMES: Record<number, string> = {
  [Piece.KNIGHT]: "Knight",
  [Piece.BISHOP]: "Bishop",
  [Piece.ROOK]: "Rook",
  [Piece.PAWN]: "Pawn",
  [Piece.KING]: "King",
};
/** Chess letters: the shape cue of each piece (N for the Knight, as in chess notation). */
const PIECE_LETTERS: Record<number, string> = {
  [Piece.KNIGHT]: "N",
  [Piece.BISHOP]: "B",
  [Piece.ROOK]: "R",
  [Piece.PAWN]: "P",
  [Piece.KING]: "K",
};
const PRINTED: Record<string, Piece> = { KING: Piece.KING, PAWN: Piece.PAWN, KNIGHT: Piece.KNIGHT, BISHOP: Piece.BISHOP, ROOK: Piece.ROOK };

function who(seat: number, ctx: Ctx): string {
  return ctx.seatNames[seat] ?? `Player ${seat + 1}`;
}

function pieceName(p: Piece): string {
  return PIECE_NAMES[p] ?? "piece";
}

/** "north crossroads", "east star", "a2", "Sigtuna": how a player names a place on the map. */
function placeName(id: string): string {
  if (id === "sigtuna") return "Sigtuna";
  const m = /^(crossroads|star)-(.+)$/.exec(id);
  return m ? `the ${m[2]} ${m[1]}` : id;
}

/** "bowl 2 (value 3)": the engine's events number the bowls from the top, the map prints values. */
function bowlName(b: number, board: BoardData): string {
  const bowl = board.bowls[b];
  return bowl ? `bowl ${b + 1} (value ${bowl.value})` : `bowl ${b + 1}`;
}

/** The node a pawn stands on, by the numbering of data.nodes: spaces, crossroads, stars, Sigtuna. */
function nodeAt(n: number, board: BoardData): Point {
  const ns = board.spaces.length;
  const nc = board.crossroads.length;
  if (n < ns) return board.spaces[n];
  if (n < ns + nc) return board.crossroads[n - ns];
  if (n < ns + nc + board.stars.length) return board.stars[n - ns - nc];
  return board.sigtuna;
}

function nodeById(board: BoardData): Map<string, Point> {
  const out = new Map<string, Point>();
  for (const p of [board.sigtuna, ...board.stars, ...board.crossroads, ...board.spaces]) out.set(p.id, p);
  return out;
}

// ---------------------------------------------------------------- rules arithmetic the drawing shows

/** The (seat, coin) the King stands on, or undefined in Sigtuna (the engine's blocked_coin). */
function kingCoin(state: PaxPenningState): [number, number] | undefined {
  let k = state.king;
  if (k === 0) return undefined;
  for (let seat = 0; seat < state.houses.length; seat++) {
    const coins = state.houses[seat].coins;
    if (k <= coins.length) return [seat, k - 1];
    k -= coins.length;
  }
  return undefined;
}

/** Pennings and Silvers that count now (the coin under the King counts as neither). */
function coinCounts(state: PaxPenningState, seat: number): { pennings: number; silvers: number } {
  const coins = state.houses[seat]?.coins ?? [];
  const blocked = kingCoin(state);
  let pennings = 0;
  let silvers = 0;
  coins.forEach((penning, i) => {
    if (blocked && blocked[0] === seat && blocked[1] === i) return;
    if (penning) pennings++;
    else silvers++;
  });
  return { pennings, silvers };
}

function diceOnRoads(state: PaxPenningState): number {
  return state.roads.filter((v) => v > 0).length;
}

function diceSupply(state: PaxPenningState, board: BoardData): number {
  return (board.dice ?? 12) - diceOnRoads(state) - state.dice.length;
}

/** The House the viewer may look into: their own, when the state holds it. */
function ownHouse(ctx: Ctx): number[] | undefined {
  const seat = ctx.seat;
  if (seat === undefined) return undefined;
  const house = ctx.state.houses[seat];
  if (!house || house.hidden || house.stones.length === 0) return undefined;
  return house.stones;
}

// ---------------------------------------------------------------- small drawing helpers

function stone(x: number, y: number, r: number, colour: number, label?: string): SVGElement[] {
  return [
    svg("circle", { cx: x, cy: y, r, fill: SEAT_COLOURS[colour] ?? "#999", stroke: "#111", "stroke-width": 2.5 }),
    svg(
      "text",
      { x, y: y + r * 0.36, "text-anchor": "middle", "font-size": r * 1.05, "font-weight": 700, fill: SEAT_INK[colour] ?? "#000" },
      label ?? String(colour + 1),
    ),
  ];
}

function pieceGlyph(x: number, y: number, r: number, p: Piece, faint = false): SVGElement[] {
  const royal = p === Piece.KING;
  return [
    svg("rect", {
      x: x - r,
      y: y - r,
      width: 2 * r,
      height: 2 * r,
      rx: royal ? r : r * 0.35,
      fill: faint ? "#fff" : royal ? "#7a1f1f" : "#5b4a3a",
      stroke: faint ? "#5b4a3a" : "#111",
      "stroke-width": 2.5,
      "stroke-dasharray": faint ? "6 4" : null,
    }),
    svg(
      "text",
      { x, y: y + r * 0.38, "text-anchor": "middle", "font-size": r * 1.1, "font-weight": 700, fill: faint ? "#5b4a3a" : "#fff" },
      PIECE_LETTERS[p] ?? "?",
    ),
  ];
}

function dieFace(x: number, y: number, size: number, value: number, hint?: string): SVGElement[] {
  return [
    svg("rect", {
      x: x - size / 2,
      y: y - size / 2,
      width: size,
      height: size,
      rx: size * 0.18,
      fill: value > 0 ? "#fffdf5" : "#f1f1f1",
      stroke: "#111",
      "stroke-width": 2.5,
      "stroke-dasharray": value > 0 ? null : "5 4",
    }),
    // a thrown die shows its pips, as a real one does: no digit, so it cannot be taken for a
    // runestone (an arched stone with its owner's number); an empty slot shows its hint
    ...(value > 0
      ? pips(value).map(([dx, dy]) => svg("circle", { cx: x + dx * size * 0.27, cy: y + dy * size * 0.27, r: size * 0.1, fill: "#111" }))
      : [
          svg(
            "text",
            { x, y: y + size * 0.22, "text-anchor": "middle", "font-size": size * 0.62, "font-weight": 700, fill: "#111" },
            hint ?? "?",
          ),
        ]),
  ];
}

/** Where a die face's pips are, in steps of a third of the face from its centre. */
function pips(value: number): [number, number][] {
  const corners: [number, number][] = [
    [-1, -1],
    [1, 1],
  ];
  const others: [number, number][] = [
    [1, -1],
    [-1, 1],
  ];
  const middle: [number, number][] = [[0, 0]];
  const sides: [number, number][] = [
    [-1, 0],
    [1, 0],
  ];
  const faces: Record<number, [number, number][]> = {
    1: middle,
    2: corners,
    3: [...corners, ...middle],
    4: [...corners, ...others],
    5: [...corners, ...others, ...middle],
    6: [...corners, ...others, ...sides],
  };
  return faces[value] ?? middle;
}

function label(x: number, y: number, text: string, size = 26, anchor = "start", weight = 600): SVGTextElement {
  return svg("text", { x, y, "font-size": size, "font-weight": weight, "text-anchor": anchor, fill: "#2b2418" }, text);
}

/**
 * A group picked by `key`. The shell outlines a target's first child, so the children start with
 * the shape to outline; the title comes last.
 */
function target(key: string, name: string, ...children: SVGElement[]): SVGGElement {
  return svg("g", { "data-target": key }, ...children, title(name));
}

// ---------------------------------------------------------------- the map

function drawRoads(board: BoardData): SVGGElement {
  const byId = nodeById(board);
  const g = svg("g", { stroke: "#b89a67", "stroke-width": 14, "stroke-linecap": "round", fill: "none" });
  for (const n of [...board.stars, ...board.crossroads, ...board.spaces]) {
    const to = byId.get(n.next);
    if (to) g.append(svg("line", { x1: n.x * S, y1: n.y * S, x2: to.x * S, y2: to.y * S }));
  }
  return g;
}

function drawSpace(i: number, sp: Space, state: PaxPenningState): SVGGElement {
  const x = sp.x * S;
  const y = sp.y * S;
  const r = 23;
  const die = state.roads[i] ?? 0;
  // Difficult spaces are diamonds (a shape cue beside the darker fill): they cost 2 steps.
  const shape = sp.difficult
    ? svg("polygon", {
        points: `${x},${y - r - 6} ${x + r + 6},${y} ${x},${y + r + 6} ${x - r - 6},${y}`,
        fill: "#a86f3c",
        stroke: "#3b2a1a",
        "stroke-width": 3,
      })
    : svg("circle", { cx: x, cy: y, r, fill: "#f3e3c3", stroke: "#3b2a1a", "stroke-width": 3 });
  const name = `Road space ${sp.id}${sp.difficult ? " (difficult: 2 steps)" : ""}${die ? `, die ${die}` : ""}`;
  return target(`space:${i}`, name, shape, ...(die ? dieFace(x, y, 36, die) : []));
}

function drawCrossroads(i: number, c: Node, state: PaxPenningState): SVGGElement {
  const x = c.x * S;
  const y = c.y * S;
  const owner = state.runestones[i] ?? -1;
  // A crossroads is a dark disc with a cross (dice are white squares, spaces light discs).
  const base = svg("circle", { cx: x, cy: y, r: 25, fill: "#7d6f57", stroke: "#3b2a1a", "stroke-width": 3 });
  const name = `${placeName(c.id)}${owner >= 0 ? `: runestone of Player ${owner + 1}` : " (empty crossroads)"}`;
  const parts: SVGElement[] = [base];
  if (owner >= 0) {
    // A runestone: an arched upright stone in the owner's colour with their number.
    parts.push(
      svg("path", {
        d: `M${x - 16} ${y + 22}V${y - 6}A16 16 0 0 1 ${x + 16} ${y - 6}V${y + 22}Z`,
        fill: SEAT_COLOURS[owner],
        stroke: "#111",
        "stroke-width": 2.5,
      }),
      svg("text", { x, y: y + 14, "text-anchor": "middle", "font-size": 22, "font-weight": 700, fill: SEAT_INK[owner] }, String(owner + 1)),
    );
  } else {
    parts.push(svg("path", { d: `M${x - 11} ${y}H${x + 11}M${x} ${y - 11}V${y + 11}`, stroke: "#f3e3c3", "stroke-width": 4 }));
  }
  return target(`crossroads:${i}`, name, ...parts);
}

function starPoints(x: number, y: number, r: number): string {
  const pts: string[] = [];
  for (let k = 0; k < 10; k++) {
    const a = -Math.PI / 2 + (k * Math.PI) / 5;
    const rr = k % 2 === 0 ? r : r * 0.45;
    pts.push(`${(x + rr * Math.cos(a)).toFixed(1)},${(y + rr * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

function drawStar(i: number, st: Node, board: BoardData): SVGGElement {
  const royal = board.royal_stars?.includes(st.id) ?? false;
  return target(
    `star:${i}`,
    `Starting star: ${placeName(st.id)}`,
    svg("polygon", { points: starPoints(st.x * S, st.y * S, 32), fill: royal ? "#e8b53a" : "#f2d27a", stroke: "#3b2a1a", "stroke-width": 3 }),
  );
}

function drawSigtuna(board: BoardData, state: PaxPenningState): SVGGElement {
  const x = board.sigtuna.x * S;
  const y = board.sigtuna.y * S;
  const g = svg(
    "g",
    {},
    target("sigtuna", "Sigtuna", svg("circle", { cx: x, cy: y, r: 88, fill: "#d9c7e8", stroke: "#3b2a1a", "stroke-width": 4 })),
    label(x, y - 50, "Sigtuna", 25, "middle", 700),
  );
  // The stones in Sigtuna, one chip per colour with its count; each is a Gather / blessing target.
  const colours = state.sigtuna.map((n, c) => [c, n] as const).filter(([, n]) => n > 0);
  const per = 3;
  const rows = Math.ceil(colours.length / per);
  colours.forEach(([c, n], k) => {
    const row = Math.floor(k / per);
    const inRow = Math.min(per, colours.length - row * per);
    const cx = x + ((k % per) - (inRow - 1) / 2) * 50;
    const cy = y + 4 + (row - (rows - 1) / 2) * 56 + (rows === 1 ? 6 : 10);
    g.append(target(`sigtuna:${c}`, `${n} stone${n === 1 ? "" : "s"} of Player ${c + 1} in Sigtuna`, ...chip(cx, cy, c, n)));
  });
  if (state.king === 0) g.append(kingFigure(x - 84, y - 64, "The King stands in Sigtuna"));
  return g;
}

function kingFigure(x: number, y: number, name: string): SVGGElement {
  // A crown: the King on his path (shape and letter, not colour alone).
  return svg(
    "g",
    {},
    title(name),
    svg("path", {
      d: `M${x - 20} ${y + 14}L${x - 22} ${y - 12}L${x - 10} ${y}L${x} ${y - 18}L${x + 10} ${y}L${x + 22} ${y - 12}L${x + 20} ${y + 14}Z`,
      fill: "#e8b53a",
      stroke: "#111",
      "stroke-width": 2.5,
    }),
    svg("text", { x, y: y + 11, "text-anchor": "middle", "font-size": 15, "font-weight": 700, fill: "#111" }, "K"),
  );
}

/**
 * Where a pawn is drawn: on its road space (which then holds no die), on its star (several fan
 * out along the edge or downwards, clear of the roads), or beside Sigtuna while it waits to return.
 */
function pawnSpot(node: number, at: Point, k: number, board: BoardData): [number, number] {
  const x = at.x * S;
  const y = at.y * S - 4;
  const firstStar = board.spaces.length + board.crossroads.length;
  if (node < firstStar) return [x + k * 30, y - k * 12];
  if (node >= firstStar + board.stars.length) return [x + 60 + k * 30, y + 40];
  const edge = at.y * S < 100 || at.y * S > 900;
  return edge ? [x + k * 40 * (at.x > 50 ? -1 : 1), y] : [x, y + k * 46];
}

function drawPawns(board: BoardData, state: PaxPenningState): SVGGElement {
  // Pawns stand on top of stars and spaces: unless a pawn is to be chosen, let taps pass through
  // them to the star or space beneath (a returning pawn may go to a star that holds a pawn).
  const g = svg("g", { "pointer-events": state.phase === Phase.PAWN_CHOOSE ? null : "none" });
  const seen = new Map<number, number>();
  state.pawns.forEach((node, p) => {
    // Pawns sharing a node (a star, or one waiting to return) are fanned out so each stays tappable.
    const k = seen.get(node) ?? 0;
    seen.set(node, k + 1);
    const at = nodeAt(node, board);
    const [x, y] = pawnSpot(node, at, k, board);
    const waiting = state.pawn === p;
    g.append(
      target(
        `pawn:${p}`,
        `Pawn ${p + 1} on ${placeName(at.id)}${waiting ? " (returns to a starting star)" : ""}`,
        // A pawn's outline: a wide base under a round head, numbered (the pawns are nobody's).
        svg("polygon", {
          points: `${x - 19},${y + 26} ${x + 19},${y + 26} ${x + 10},${y - 4} ${x - 10},${y - 4}`,
          fill: waiting ? "#c9a227" : "#4a3b2c",
          stroke: "#fff",
          "stroke-width": 2.5,
        }),
        svg("circle", { cx: x, cy: y - 12, r: 11, fill: waiting ? "#c9a227" : "#4a3b2c", stroke: "#fff", "stroke-width": 2.5 }),
        svg("text", { x, y: y + 21, "text-anchor": "middle", "font-size": 19, "font-weight": 700, fill: "#fff" }, String(p + 1)),
      ),
    );
  });
  return g;
}

interface SeatSpot {
  x: number;
  y: number;
  /** The direction the coins run from the House badge. */
  dx: number;
  dy: number;
}

/** Where a seat's House badge and coins go: by the map edge the data puts the seat at. */
function seatSpot(seat: SeatData): SeatSpot {
  const x = seat.x * S;
  const y = seat.y * S;
  if (y <= 50) return { x: x - 110, y: 32, dx: 50, dy: 0 };
  if (y >= 850 && x >= 500) return { x: 930, y: 965, dx: -50, dy: 0 };
  if (y >= 850) return { x: 70, y: 965, dx: 50, dy: 0 };
  if (x >= 500) return { x: 955, y: Math.max(60, y - 110), dx: 0, dy: 50 };
  return { x: 45, y: Math.max(60, y - 110), dx: 0, dy: 50 };
}

function drawSeat(seat: number, spot: SeatSpot, ctx: Ctx): SVGGElement {
  const state = ctx.state;
  const house = state.houses[seat];
  const g = svg("g", {});
  const own = ctx.seat === seat && house && !house.hidden && house.size >= 0;
  const size = own ? `${house.size}` : "?";
  const w = 84;
  const hgt = 58;
  g.append(
    target(
      `house:${seat}`,
      `${who(seat, ctx)}'s House${own ? ` (${house.size} stones)` : ""}`,
      svg("rect", {
        x: spot.x - w / 2,
        y: spot.y - hgt / 2,
        width: w,
        height: hgt,
        rx: 10,
        fill: SEAT_COLOURS[seat],
        stroke: "#111",
        "stroke-width": 3,
      }),
      svg("text", { x: spot.x, y: spot.y - 3, "text-anchor": "middle", "font-size": 24, "font-weight": 700, fill: SEAT_INK[seat] }, `P${seat + 1}`),
      svg("text", { x: spot.x, y: spot.y + 22, "text-anchor": "middle", "font-size": 19, fill: SEAT_INK[seat] }, `⌂ ${size}`),
    ),
  );
  const blocked = kingCoin(state);
  const coins = house?.coins ?? [];
  coins.forEach((penning, k) => {
    const step = k + 1.35;
    const cx = spot.x + spot.dx * step;
    const cy = spot.y + spot.dy * step;
    const under = blocked !== undefined && blocked[0] === seat && blocked[1] === k;
    const side = penning ? "Penning" : "Silver";
    const coin = target(
      `coin:${seat}:${k}`,
      `${who(seat, ctx)}'s coin ${k + 1}: ${side} side up${under ? ", blocked by the King" : ""}`,
      svg("circle", { cx, cy, r: 24, fill: penning ? "#e0b341" : "#c9cdd3", stroke: "#111", "stroke-width": 2.5 }),
      svg("text", { x: cx, y: cy + 9, "text-anchor": "middle", "font-size": 25, "font-weight": 700, fill: "#111" }, penning ? "P" : "S"),
    );
    g.append(coin);
    if (under) {
      // The crown goes on the map side of a column, clear of the board edge.
      const kx = cx + (spot.dy ? (spot.x < 500 ? 44 : -44) : 0);
      const ky = cy + (spot.dx ? (spot.y < 500 ? 40 : -42) : 0);
      g.append(kingFigure(kx, ky, `The King stands on ${who(seat, ctx)}'s coin ${k + 1}`));
    }
  });
  return g;
}

// ---------------------------------------------------------------- below the map

function drawMarket(ctx: Ctx, board: BoardData): SVGGElement {
  const state = ctx.state;
  const g = svg("g", {}, label(14, MARKET_Y + 28, "Market (top bowl left; value = Pennings needed)", 26));
  const n = board.bowls.length;
  const cell = (WIDTH - 20) / n;
  const reach = coinCounts(state, state.turn).pennings;
  board.bowls.forEach((bowl, b) => {
    const cx = 10 + cell * b + cell / 2;
    const cy = MARKET_Y + 96;
    const affordable = bowl.value <= reach;
    g.append(
      target(
        `bowl:${b}`,
        `Bowl ${b + 1}: value ${bowl.value}${bowl.printed ? `, printed ${pieceName(PRINTED[bowl.printed] ?? Piece.UNSPECIFIED)}` : ""}`,
        svg("ellipse", { cx, cy, rx: cell / 2 - 6, ry: 48, fill: affordable ? "#efe3c8" : "#ddd6c8", stroke: "#3b2a1a", "stroke-width": 3 }),
      ),
      svg("circle", { cx, cy: cy - 48, r: 18, fill: "#3b2a1a" }),
      svg("text", { x: cx, y: cy - 40, "text-anchor": "middle", "font-size": 22, "font-weight": 700, fill: "#fff" }, String(bowl.value)),
    );
    const pieces = state.bowls[b]?.pieces ?? [];
    // One target per kind of piece in the bowl (identical pieces are the same choice).
    const kinds = [...new Set(pieces)];
    if (kinds.length === 0 && bowl.printed) {
      const p = PRINTED[bowl.printed] ?? Piece.UNSPECIFIED;
      g.append(target(`bowl:${b}:${p}`, `Printed ${pieceName(p)} in bowl ${b + 1}`, ...pieceGlyph(cx, cy + 6, 26, p, true)));
    }
    const r = kinds.length > 2 || pieces.length > 3 ? 20 : 26;
    let slot = 0;
    const perRow = 3;
    const total = pieces.length;
    for (const p of kinds) {
      const count = pieces.filter((q) => q === p).length;
      const glyphs: SVGElement[] = [];
      for (let k = 0; k < count; k++, slot++) {
        const row = Math.floor(slot / perRow);
        const inRow = Math.min(perRow, total - row * perRow);
        const col = slot % perRow;
        const px = cx + (col - (inRow - 1) / 2) * (2 * r + 6);
        const py = cy + 6 + (row - (Math.ceil(total / perRow) - 1) / 2) * (2 * r + 6);
        glyphs.push(...pieceGlyph(px, py, r, p));
      }
      g.append(target(`bowl:${b}:${p}`, `${count > 1 ? `${count} × ` : ""}${pieceName(p)} in bowl ${b + 1}`, ...glyphs));
    }
  });
  return g;
}

function drawHierarchy(ctx: Ctx): SVGGElement {
  const state = ctx.state;
  const g = svg("g", {}, label(HIER_X - 42, HIER_TOP - 38, "Hierarchy", 26, "start", 700));
  const x = HIER_X;
  state.hierarchy.forEach((entry, i) => {
    const y = HIER_TOP + i * HIER_STEP;
    if (entry < 0) {
      const side = state.hierarchyPenning ? "Penning" : "Silver";
      g.append(
        svg(
          "g",
          {},
          title(`Hierarchy slot ${i + 1}: the Hierarchy coin, ${side} side up`),
          svg("circle", { cx: x, cy: y, r: 25, fill: state.hierarchyPenning ? "#e0b341" : "#c9cdd3", stroke: "#111", "stroke-width": 3, "stroke-dasharray": "4 3" }),
          svg("text", { x, y: y + 9, "text-anchor": "middle", "font-size": 25, "font-weight": 700, fill: "#111" }, state.hierarchyPenning ? "P" : "S"),
        ),
      );
    } else {
      g.append(svg("g", {}, title(`Hierarchy slot ${i + 1}: ${who(entry, ctx)}`), ...stone(x, y, 25, entry)));
    }
    // Change Standing swaps this slot with the one below: a button between them.
    if (i < state.hierarchy.length - 1) {
      const sy = y + HIER_STEP / 2;
      g.append(
        target(
          `swap:${i}`,
          `Swap Hierarchy slots ${i + 1} and ${i + 2}`,
          svg("circle", { cx: x + 50, cy: sy, r: 19, fill: "#fff", stroke: "#7a6a50", "stroke-width": 2 }),
          svg("text", { x: x + 50, y: sy + 8, "text-anchor": "middle", "font-size": 24, fill: "#3b2a1a" }, "⇅"),
        ),
      );
    }
  });
  return g;
}

function drawDice(ctx: Ctx, board: BoardData): SVGGElement {
  const state = ctx.state;
  const x0 = DICE_BOX.x + 12;
  const top = DICE_BOX.y;
  const g = svg("g", {});
  g.append(
    target(
      "dice",
      `Dice of this turn; ${diceSupply(state, board)} in the supply`,
      svg("rect", { x: DICE_BOX.x, y: top, width: DICE_BOX.w, height: DICE_BOX.h, rx: 12, fill: "#f7f1e3", "fill-opacity": 0.9, stroke: "#b89a67", "stroke-width": 2 }),
    ),
    label(x0, top + 32, `Dice (supply ${diceSupply(state, board)}, roads ${diceOnRoads(state)})`, 25),
  );
  // Rolled dice, grouped by value: Resolve names a die by its value.
  const values = [...state.dice].sort((a, b) => a - b);
  const perRow = 6;
  const size = 46;
  const gap = size + 8;
  const at = (k: number): [number, number] => [x0 + size / 2 + (k % perRow) * gap, top + 72 + Math.floor(k / perRow) * gap];
  let k = 0;
  for (const v of [...new Set(values)]) {
    const count = values.filter((d) => d === v).length;
    const faces: SVGElement[] = [];
    for (let i = 0; i < count; i++, k++) faces.push(...dieFace(...at(k), size, v));
    g.append(target(`die:${v}`, `${count > 1 ? `${count} dice` : "A die"} showing ${v}`, ...faces));
  }
  for (let i = 0; i < state.toRoll; i++, k++) g.append(...dieFace(...at(k), size, 0));
  // The pieces chosen from the market, waiting for a die, then the one being resolved.
  const cy = top + 172;
  let cx = x0 + 24;
  state.chosen.forEach((c, slot) => {
    g.append(target(`chosen:${slot}`, `Chosen: ${pieceName(c.piece)} from ${bowlName(c.bowl, board)}`, ...pieceGlyph(cx, cy, 20, c.piece)));
    cx += 50;
  });
  if (state.piece !== Piece.UNSPECIFIED && state.x > 0) {
    g.append(...pieceGlyph(cx, cy, 20, state.piece), label(cx + 30, cy + 8, `${pieceName(state.piece)}, X = ${state.x}`, 22));
  } else if ((state.phase === Phase.SETUP_ROADBLOCK_PLACE || state.phase === Phase.SETUP_DIE_PLACE) && state.x > 0) {
    // The setup die just rolled, waiting to be placed on a road.
    g.append(...dieFace(x0 + 20, cy, 40, state.x), label(x0 + 50, cy + 8, "to place on a road", 22));
  } else if (state.bestVote > 0) {
    g.append(...dieFace(x0 + 20, cy, 40, state.bestVote), label(x0 + 50, cy + 8, "the Thing's highest die", 22));
  }
  return g;
}

/** A stone count chip: the colour, the seat number on top and the count below (two cues). */
function chip(x: number, y: number, colour: number, count: number): SVGElement[] {
  return [
    svg("rect", { x: x - 23, y: y - 27, width: 46, height: 54, rx: 14, fill: SEAT_COLOURS[colour] ?? "#999", stroke: "#111", "stroke-width": 2.5 }),
    svg("text", { x, y: y - 6, "text-anchor": "middle", "font-size": 19, fill: SEAT_INK[colour] ?? "#000" }, `P${colour + 1}`),
    svg("text", { x, y: y + 20, "text-anchor": "middle", "font-size": 24, "font-weight": 700, fill: SEAT_INK[colour] ?? "#000" }, String(count)),
  ];
}

function drawOwnHouse(ctx: Ctx): SVGGElement {
  const g = svg("g", {});
  const seat = ctx.seat;
  const stones = ownHouse(ctx);
  const top = HOUSE_BOX.y;
  const x0 = HOUSE_BOX.x;
  if (seat === undefined || !stones) {
    g.append(label(x0 + 14, top + 150, seat === undefined ? "Houses are private." : "Your House is hidden.", 22));
    return g;
  }
  const total = stones.reduce((a, b) => a + b, 0);
  g.append(
    svg("rect", { x: x0, y: top, width: HOUSE_BOX.w, height: HOUSE_BOX.h, rx: 12, fill: "#f3eee4", "fill-opacity": 0.9, stroke: SEAT_COLOURS[seat], "stroke-width": 5 }),
    svg("rect", { x: x0, y: top, width: HOUSE_BOX.w, height: HOUSE_BOX.h, rx: 12, fill: "none", stroke: "#111", "stroke-width": 1.5 }),
    label(x0 + 14, top + 34, `Your House (${who(seat, ctx)}): ${total}`, 25, "start", 700),
  );
  let x = x0 + 40;
  stones.forEach((n, c) => {
    if (n <= 0) return;
    g.append(target(`stone:${c}`, `${n} stone${n === 1 ? "" : "s"} of Player ${c + 1} in your House`, ...chip(x, top + 110, c, n)));
    x += 70;
  });
  return g;
}

// ---------------------------------------------------------------- board

function board(ctx: Ctx): SVGSVGElement {
  const data = boardOf(ctx.data);
  const state = ctx.state;
  const root = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: "group",
    "aria-label": "Pax Penning map, market, Hierarchy and dice",
    "font-family": "system-ui, sans-serif",
  });
  root.append(
    svg("rect", { x: 0, y: 0, width: WIDTH, height: MAP, fill: "#eadfc4", rx: 16 }),
    drawRoads(data),
    ...data.stars.map((st, i) => drawStar(i, st, data)),
    ...data.crossroads.map((c, i) => drawCrossroads(i, c, state)),
    ...data.spaces.map((sp, i) => drawSpace(i, sp, state)),
    drawSigtuna(data, state),
    drawHierarchy(ctx),
    drawPawns(data, state),
    ...data.seats.filter((s) => s.seat < ctx.players).map((s) => drawSeat(s.seat, seatSpot(s), ctx)),
    svg("line", { x1: 0, y1: MAP + 4, x2: WIDTH, y2: MAP + 4, stroke: "#c9b993", "stroke-width": 2 }),
    drawMarket(ctx, data),
    drawDice(ctx, data),
    drawOwnHouse(ctx),
  );
  return root;
}

// ---------------------------------------------------------------- targets

function targets(move: PaxPenningMove, _ctx: Ctx): string[] {
  const a = move.action;
  switch (a.case) {
    case "gather":
    case "askBlessing":
      return [`sigtuna:${a.value.colour}`];
    case "roll":
      return ["dice"];
    case "sendStone":
      return [`house:${a.value.house}`, `stone:${a.value.colour}`];
    case "changeStanding":
      return [`swap:${a.value.position}`];
    case "announceLoyalty":
      return [`coin:${a.value.seat}:${a.value.coin}`];
    case "chooseBowl":
      return [`bowl:${a.value.bowl}:${a.value.piece}`, `bowl:${a.value.bowl}`];
    case "resolve":
      return [`die:${a.value.die}`, `chosen:${a.value.slot}`];
    case "placeRunestone":
      return [`crossroads:${a.value.crossroads}`, `stone:${a.value.colour}`];
    case "placeDie":
    case "removeDie":
      return [`space:${a.value.space}`];
    case "movePawn":
      return [`pawn:${a.value.pawn}`];
    case "placeStone":
      return ["sigtuna", `stone:${a.value.colour}`];
    case "returnPawn":
      return [`star:${a.value.star}`];
    case "chooseHeir":
      return [`house:${a.value.seat}`];
    default:
      return [];
  }
}

// ---------------------------------------------------------------- describe

function drawText(state: PaxPenningState): string {
  switch (state.phase) {
    case Phase.SETUP_MARKET:
      return `Draw a market piece for top bowl ${state.step + 1}`;
    case Phase.SETUP_COINS:
    case Phase.THING_COINS:
      return "Toss the coin (random side up)";
    case Phase.SETUP_HIERARCHY:
      return `Draw a player for Hierarchy slot ${state.hierarchy.length + 1}`;
    case Phase.ROLL:
      return `Roll the dice (die ${state.dice.length + 1} of ${state.dice.length + state.toRoll})`;
    default:
      return "Roll the die";
  }
}

function stonesText(n: number, colour: number, ctx: Ctx, own: number): string {
  const whose = colour === own ? "your" : `${who(colour, ctx)}'s`;
  return `${n} of ${whose} stones`;
}

function hierarchyEntry(v: number | undefined, ctx: Ctx): string {
  if (v === undefined) return "?";
  return v < 0 ? "the Hierarchy coin" : who(v, ctx);
}

function describe(move: PaxPenningMove, ctx: Ctx): string {
  const state = ctx.state;
  const data = boardOf(ctx.data);
  const me = state.actor >= 0 ? state.actor : (ctx.seat ?? 0);
  const a = move.action;
  switch (a.case) {
    case "draw":
      return a.value.outcome === undefined ? drawText(state) : `${drawText(state)}: outcome ${a.value.outcome}`;
    case "gather": {
      const v = a.value;
      return `Move ${stonesText(v.count, v.colour, ctx, me)} from Sigtuna to your House (+${v.count} ${v.count === 1 ? "die" : "dice"})`;
    }
    case "askBlessing":
      return `Ask ${who(a.value.colour, ctx)} for their blessing`;
    case "bless":
      return a.value.grant
        ? `Give ${who(state.turn, ctx)} your blessing`
        : `Refuse ${who(state.turn, ctx)} your blessing`;
    case "roll": {
      const pool = Math.min(diceSupply(state, data), Math.max(1, coinCounts(state, state.turn).silvers + state.moved));
      return `Roll the dice (${pool} ${pool === 1 ? "die" : "dice"})`;
    }
    case "sendStone": {
      const v = a.value;
      const colour = v.colour < 0 ? "a hidden stone" : `a ${who(v.colour, ctx)} stone`;
      return `Send ${colour} to ${who(v.house, ctx)}'s House`;
    }
    case "changeStanding": {
      const i = a.value.position;
      return `Change Standing: swap ${hierarchyEntry(state.hierarchy[i], ctx)} (slot ${i + 1}) and ${hierarchyEntry(state.hierarchy[i + 1], ctx)} (slot ${i + 2})`;
    }
    case "announceLoyalty": {
      const v = a.value;
      const up = state.houses[v.seat]?.coins[v.coin];
      const flip = up === undefined ? "" : up ? " (Penning → Silver)" : " (Silver → Penning)";
      const whose = v.seat === me ? "your" : `${who(v.seat, ctx)}'s`;
      return `Announce Loyalty: flip ${whose} coin ${v.coin + 1}${flip}`;
    }
    case "chooseBowl": {
      const v = a.value;
      const printed = (state.bowls[v.bowl]?.pieces.length ?? 0) === 0 ? "printed " : "";
      return `Take the ${printed}${pieceName(v.piece)} from ${bowlName(v.bowl, data)}`;
    }
    case "resolve": {
      const v = a.value;
      const c = state.chosen[v.slot];
      if (!c) return `Assign a ${v.die} to chosen piece ${v.slot + 1}`;
      // Name the bowl only when two chosen pieces are of the same kind (two Pawns).
      const twin = state.chosen.some((o, i) => i !== v.slot && o.piece === c.piece);
      return `Assign a ${v.die} to the ${pieceName(c.piece)}${twin ? ` from ${bowlName(c.bowl, data)}` : ""} and resolve it`;
    }
    case "placeRunestone": {
      const v = a.value;
      const at = data.crossroads[v.crossroads];
      return `Raise a runestone of ${who(v.colour, ctx)} at ${at ? placeName(at.id) : `crossroads ${v.crossroads + 1}`}`;
    }
    case "placeDie": {
      const sp = data.spaces[a.value.space];
      const die = state.x > 0 ? `the ${state.x} die` : "the die";
      const what = state.phase === Phase.SETUP_ROADBLOCK_PLACE ? `the roadblock (${state.x})` : die;
      return `Place ${what} on road space ${sp ? sp.id : a.value.space}${sp?.difficult ? " (difficult)" : ""}`;
    }
    case "removeDie": {
      const sp = data.spaces[a.value.space];
      return `Remove the ${state.roads[a.value.space] ?? "?"} die from road space ${sp ? sp.id : a.value.space}`;
    }
    case "movePawn": {
      const p = a.value.pawn;
      const node = state.pawns[p];
      const at = node === undefined ? "?" : placeName(nodeAt(node, data).id);
      return `Walk pawn ${p + 1} (on ${at}) ${state.x} step${state.x === 1 ? "" : "s"} towards Sigtuna`;
    }
    case "placeStone":
      return `Place a ${who(a.value.colour, ctx)} stone in Sigtuna`;
    case "returnPawn": {
      const st = data.stars[a.value.star];
      return `Return the pawn to ${st ? placeName(st.id) : `star ${a.value.star + 1}`}`;
    }
    case "vote":
      return a.value.support ? "Support Olof Skötkonung (roll 1 die)" : "Do not support royalty";
    case "chooseHeir":
      return a.value.seat === me ? "Keep the victory: name no Heir" : `Name ${who(a.value.seat, ctx)} your Heir`;
    default:
      return "Move";
  }
}

// ---------------------------------------------------------------- panel

const PHASE_NOTES: Partial<Record<Phase, (s: PaxPenningState, ctx: Ctx) => string>> = {
  [Phase.SETUP_SIGTUNA]: (s) => `Setup: ${s.x} more stone${s.x === 1 ? "" : "s"} to place in Sigtuna`,
  [Phase.SETUP_SEND]: (s, ctx) => `Setup: ${s.x} more stone${s.x === 1 ? "" : "s"} for ${who(s.target, ctx)}'s House`,
  [Phase.SETUP_RUNESTONE]: (s) => `Setup: ${s.x} runestone${s.x === 1 ? "" : "s"} to raise`,
  [Phase.GATHER]: (s) => `Gathering: ${s.moved} stone${s.moved === 1 ? "" : "s"} moved from Sigtuna`,
  [Phase.BLESSING]: (s, ctx) => `${who(s.turn, ctx)} asks ${who(s.blessing, ctx)} for a blessing`,
  [Phase.FEAST_SEND]: (s) => `Feast: ${s.pairs} pair${s.pairs === 1 ? "" : "s"} left`,
  [Phase.FEAST_FAVOUR]: (s) => `Feast: ${s.pairs} pair${s.pairs === 1 ? "" : "s"} left`,
  [Phase.BISHOP_SEND]: (s) => `Bishop: ${s.x} more stone${s.x === 1 ? "" : "s"} to send`,
  [Phase.PAY_STONE]: (s, ctx) => `Runestone owners to pay: ${s.payers.map((p) => who(p, ctx)).join(", ")}`,
  [Phase.THING_VOTE]: (s) => `The Thing: highest die so far ${s.bestVote || "none"}`,
};

function victoryText(state: PaxPenningState, ctx: Ctx): string {
  const kind =
    state.victory === Victory.THEGN ? "The Thegn's Victory" : state.victory === Victory.JARL ? "The Jarl's Victory" : state.victory === Victory.EVERYONE_LOSES ? "The last die was placed: everyone loses" : "";
  const chain = state.chain.length ? `; holders: ${state.chain.map((s) => who(s, ctx)).join(" → ")}` : "";
  const winners = state.winners.length ? `; winners: ${state.winners.map((s) => who(s, ctx)).join(", ")}` : "";
  return `${kind}${chain}${winners}`;
}

function panel(ctx: Ctx): HTMLElement {
  const state = ctx.state;
  const data = boardOf(ctx.data);
  const rows = Array.from({ length: ctx.players }, (_, seat) => {
    const house = state.houses[seat];
    const { pennings, silvers } = coinCounts(state, seat);
    const size = house && !house.hidden && house.size >= 0 && seat === ctx.seat ? String(house.size) : "?";
    return h(
      "tr",
      {},
      h("td", {}, h("span", { class: "pax_penning-chip", style: `background:${SEAT_COLOURS[seat]};color:${SEAT_INK[seat]}` }, String(seat + 1)), " ", who(seat, ctx)),
      h("td", {}, String(pennings)),
      h("td", {}, String(silvers)),
      h("td", {}, String(state.sigtuna[seat] ?? 0)),
      h("td", {}, size),
    );
  });
  const table = h(
    "table",
    { class: "pax_penning-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th", { title: "Pennings (the coin under the King does not count)" }, "Penn."), h("th", { title: "Silvers (the coin under the King does not count)" }, "Silv."), h("th", { title: "Stones in Sigtuna" }, "Sigt."), h("th", { title: "Stones in the House (only your own)" }, "House"))),
    h("tbody", {}, ...rows),
  );
  const king = kingCoin(state);
  const note = PHASE_NOTES[state.phase]?.(state, ctx);
  const stones = ownHouse(ctx);
  const items: [string, string][] = [
    ["Things held", `${state.things} of ${data.things_to_end ?? 3}`],
    [
      "Hierarchy coin",
      state.hierarchy.includes(-1)
        ? `${state.hierarchyPenning ? "Penning" : "Silver"} side, slot ${state.hierarchy.indexOf(-1) + 1} of ${state.hierarchy.length}`
        : "not placed yet",
    ],
    ["King", king ? `on ${who(king[0], ctx)}'s coin ${king[1] + 1}${state.kingUsed ? " (action taken)" : ""}` : `in Sigtuna${state.thingPending ? ": the Thing is held at the end of the turn" : ""}`],
    ["Dice", `${diceOnRoads(state)} on roads, ${diceSupply(state, data)} in the supply`],
  ];
  if (stones && ctx.seat !== undefined) {
    items.push(["Your House", stones.map((n, c) => (n ? `${n} × P${c + 1}` : "")).filter(Boolean).join(", ") || "empty"]);
  }
  if (note) items.push(["Now", note]);
  if (state.phase === Phase.OVER || state.victory !== Victory.UNSPECIFIED) items.push(["Result", victoryText(state, ctx)]);
  return h(
    "div",
    { class: "pax_penning-panel" },
    table,
    h("dl", { class: "pax_penning-dl" }, ...items.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
  );
}

// ---------------------------------------------------------------- seat names

function seatNames(players: number, _data: JsonObject): string[] {
  // The engine's events name seats "Player 1"...; the board adds each seat's stone colour and number.
  return Array.from({ length: players }, (_, i) => `Player ${i + 1}`);
}

export const ui: GameUI<PaxPenningState, PaxPenningMove> = { seatNames, board, targets, describe, panel };
