/**
 * Pax Viking Junior: the island map (land regions, sea areas, white and black lines, rivers, the six
 * shields), the Animal tiles, Cats, Friends and Longships in each region, and below it the victory
 * cards, the box lid with the tiles drawn this turn, and each player's cat board. Nothing in this
 * game is private (the lid is unordered and shown as counts), so every seat sees the same board;
 * the viewing seat's own cat board is marked "you" and the panel measures its progress.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import {
  PaxVikingJuniorBuff,
  PaxVikingJuniorPhase,
  type PaxVikingJuniorMove,
  type PaxVikingJuniorState,
} from "@lawspeaker/client";
import { SEAT_COLOURS, SEAT_INK, h, svg, title } from "../dom.js";
import type { BoardContext, GameUI } from "./types.js";

type Ctx = BoardContext<PaxVikingJuniorState, PaxVikingJuniorMove>;
type Point = [number, number];

// ---------------------------------------------------------------- component data (DescribeGame)

interface RegionData { id: string; name: string; land: boolean; centre: Point; outline: Point[] }
interface BorderData { line: string; between: [string, string]; paths: Point[][] }
interface RiverData { name: string; points: Point[] }
interface ShieldData { id: string; region: string }
interface MapData {
  width: number; height: number; regions: RegionData[]; borders: BorderData[]; rivers: RiverData[]; shields: ShieldData[];
}
interface AnimalData { id: string; name: string; plural: string }
interface TileData { animal: string; animals: number; silfr: number; scrolls: number; name: string }
interface CatBoardData {
  id: string; name: string; colour: string; ability: string; shield: string; region: string;
  kittens: number; big_cats: number; journey_steps: number; tile_draws: number[];
  silfr_bonus: boolean; scrolls_bonus: boolean; steal_gain: boolean;
}
interface CardData { id: string; colour: string; name: string; silfr?: number; scrolls?: number; animals?: Record<string, number> }

/** The components, with what the drawing derives from them once (cells, distances). */
interface Model {
  map: MapData;
  animals: AnimalData[];
  tiles: TileData[];
  boards: CatBoardData[];
  cards: CardData[];
  regionIndex: Map<string, number>;
  /** The grid cells inside each region, nearest its centre first: where its pieces go. */
  cells: Point[][];
  /** Steps between regions over white lines (black lines cannot be crossed). */
  steps: number[][];
  /** A land tint for each region, different from its neighbours', so the regions read apart. */
  tints: string[];
}

const models = new WeakMap<JsonObject, Model>();

/** The components of DescribeGame's data, typed, with the derived geometry (computed once per data). */
function model(data: JsonObject): Model {
  const known = models.get(data);
  if (known) return known;
  // DescribeGame's data is JSON the engine validated; its shape is documented in the proto and the rules.
  const raw = data as unknown as {
    map: MapData; animals: AnimalData[]; tiles: TileData[]; cat_boards: CatBoardData[]; victory_cards: CardData[];
  };
  const map = raw.map;
  const regionIndex = new Map(map.regions.map((r, i) => [r.id, i] as const));
  const m: Model = {
    map,
    animals: raw.animals,
    tiles: raw.tiles,
    boards: raw.cat_boards,
    cards: raw.victory_cards,
    regionIndex,
    cells: map.regions.map(regionCells),
    steps: distances(map, regionIndex),
    tints: tints(map, regionIndex),
  };
  models.set(data, m);
  return m;
}

/** Whether point p lies inside the polygon (even-odd rule). */
function inside(p: Point, poly: Point[]): boolean {
  let odd = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i];
    const [xj, yj] = poly[j];
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) odd = !odd;
  }
  return odd;
}

/** The unit cells of a region (outlines run along the grid), nearest the centre first, rows before columns. */
function regionCells(region: RegionData): Point[] {
  const xs = region.outline.map((p) => p[0]);
  const ys = region.outline.map((p) => p[1]);
  const cells: Point[] = [];
  for (let y = Math.floor(Math.min(...ys)); y < Math.max(...ys); y++) {
    for (let x = Math.floor(Math.min(...xs)); x < Math.max(...xs); x++) {
      if (inside([x + 0.5, y + 0.5], region.outline)) cells.push([x, y]);
    }
  }
  const [cx, cy] = region.centre;
  const top = Math.min(...cells.map((c) => c[1]));
  // Vertical distance counts a little more, so that pieces line up in rows (easier to read); the
  // top row, where the region's name is written, is taken last.
  const cost = ([x, y]: Point): number => Math.abs(x + 0.5 - cx) + 1.2 * Math.abs(y + 0.5 - cy) + (y === top ? 2 : 0);
  return cells.sort((a, b) => cost(a) - cost(b) || a[1] - b[1] || a[0] - b[0]);
}

const LAND_TINTS = ["#cfe0a8", "#e2e2a6", "#bfd9b0", "#e6d7a8", "#d3e6c4"];

/** Greedy map colouring of the land regions with LAND_TINTS (the sea is one blue). */
function tints(map: MapData, index: Map<string, number>): string[] {
  const near: Set<number>[] = map.regions.map(() => new Set<number>());
  for (const b of map.borders) {
    const [a, c] = b.between.map((id) => index.get(id) ?? -1);
    if (a >= 0 && c >= 0) {
      near[a].add(c);
      near[c].add(a);
    }
  }
  const chosen: number[] = [];
  map.regions.forEach((_, r) => {
    const used = new Set([...near[r]].filter((n) => n < r).map((n) => chosen[n]));
    let t = 0;
    while (used.has(t) && t < LAND_TINTS.length - 1) t++;
    chosen.push(t);
  });
  return chosen.map((t) => LAND_TINTS[t]);
}

/** Fewest steps between every two regions: a white line is 1 step, a black line is never crossed. */
function distances(map: MapData, index: Map<string, number>): number[][] {
  const n = map.regions.length;
  const next: number[][] = Array.from({ length: n }, () => []);
  for (const b of map.borders) {
    if (b.line !== "white") continue;
    const [a, c] = b.between.map((id) => index.get(id) ?? -1);
    if (a < 0 || c < 0) continue;
    next[a].push(c);
    next[c].push(a);
  }
  return map.regions.map((_, from) => {
    const dist = new Array<number>(n).fill(Infinity);
    dist[from] = 0;
    const queue = [from];
    for (let i = 0; i < queue.length; i++) {
      for (const r of next[queue[i]]) {
        if (dist[r] === Infinity) {
          dist[r] = dist[queue[i]] + 1;
          queue.push(r);
        }
      }
    }
    return dist;
  });
}

// ---------------------------------------------------------------- words

const BUFF_WORDS: Record<number, string> = {
  [PaxVikingJuniorBuff.SILFR]: "Buff: pay 2 Silfr",
  [PaxVikingJuniorBuff.SCROLLS]: "Buff: pay 2 Scrolls",
};

function plural(k: number, one: string, many: string): string {
  return `${k} ${k === 1 ? one : many}`;
}

function regionName(m: Model, r: number): string {
  return m.map.regions[r]?.name ?? `region ${r}`;
}

function animalOf(m: Model, id: string): AnimalData | undefined {
  return m.animals.find((a) => a.id === id);
}

/** "2 Pigs, 1 Silfr" — a tile kind in words, as printed on it. */
function tileWords(m: Model, kind: number): string {
  const t = m.tiles[kind];
  if (!t) return `tile ${kind}`;
  const animal = animalOf(m, t.animal);
  const what = `${t.animals} ${t.animals === 1 ? (animal?.name ?? t.animal) : (animal?.plural ?? t.animal)}`;
  const pay = [t.silfr ? `${t.silfr} Silfr` : "", t.scrolls ? plural(t.scrolls, "Scroll", "Scrolls") : ""].filter(Boolean);
  return pay.length ? `${what}, ${pay.join(" and ")}` : what;
}

function boardWords(m: Model, b: number): string {
  const board = m.boards[b];
  return board ? `${board.name} (${board.colour})` : `cat board ${b}`;
}

function buffWords(buff: PaxVikingJuniorBuff): string {
  return BUFF_WORDS[buff] ? ` (${BUFF_WORDS[buff]})` : "";
}

/** The region of the Longship of the seat on turn (where tiles and Cats go). */
function shipRegion(state: PaxVikingJuniorState): number {
  return state.seats[state.turn]?.ship ?? -1;
}

function describe(move: PaxVikingJuniorMove, ctx: Ctx): string {
  const m = model(ctx.data);
  const s = ctx.state;
  const here = regionName(m, shipRegion(s));
  const a = move.action;
  switch (a.case) {
    case "draw":
      return describeDraw(m, s, ctx.seatNames, a.value.outcome);
    case "chooseBoard": {
      const board = m.boards[a.value.board];
      // The ability text begins with the board's name in capitals ("BYGUL: Step up to 4..."): keep the rule.
      const ability = board ? board.ability.replace(/^[^:]*:\s*/, "") : "";
      return `Take the ${boardWords(m, a.value.board)} cat board${ability ? `: ${ability}` : ""}`;
    }
    case "journey": {
      const from = shipRegion(s);
      const steps = from >= 0 ? m.steps[from]?.[a.value.region] : undefined;
      const far = steps !== undefined && Number.isFinite(steps) ? `, ${plural(steps, "step", "steps")}` : "";
      return `Journey to ${regionName(m, a.value.region)}${far}${buffWords(a.value.buff)}`;
    }
    case "drawTiles":
      return `Draw ${plural(a.value.count, "Animal tile", "Animal tiles")} from the lid${buffWords(a.value.buff)}`;
    case "skipDraw":
      return "Draw no Animal tiles";
    case "placeTile":
      return `Place the tile ${tileWords(m, a.value.tile)} in ${here}`;
    case "returnTiles":
      return `Put ${s.drawn.length === 1 ? "the drawn tile" : "the drawn tiles"} back in the lid`;
    case "placeKittens":
      return a.value.count === 0
        ? "Place no Cats"
        : `Place ${plural(a.value.count, "Kitten", "Kittens")} in ${here}${buffWords(a.value.buff)}`;
    case "placeBigCat":
      return s.phase === PaxVikingJuniorPhase.SETUP_CAT
        ? `Place a Big Cat in ${here}`
        : `Place a Big Cat in ${here} (every Kitten there goes home)`;
    case "pickUpCats": {
      const mine = s.regions[shipRegion(s)]?.kittens[s.turn] ?? 0;
      return `Pick up your ${plural(mine, "Kitten", "Kittens")} in ${here}`;
    }
    default:
      return "Move";
  }
}

/** A chance step in words: what is drawn now, or (an explicit outcome) what was drawn. */
function describeDraw(m: Model, s: PaxVikingJuniorState, names: string[], outcome: number | undefined): string {
  switch (s.phase) {
    case PaxVikingJuniorPhase.SETUP_DEAL:
      return outcome === undefined ? "Deal a victory card" : `Deal the victory card ${m.cards[outcome]?.name ?? outcome}`;
    case PaxVikingJuniorPhase.SETUP_START:
      return outcome === undefined ? "Draw the starting player" : `${names[outcome] ?? `Seat ${outcome + 1}`} starts`;
    default:
      return outcome === undefined ? "Draw an Animal tile from the lid" : `Draw the tile ${tileWords(m, outcome)}`;
  }
}

// ---------------------------------------------------------------- targets

function targets(move: PaxVikingJuniorMove, ctx: Ctx): string[] {
  const s = ctx.state;
  const here = `region:${shipRegion(s)}`;
  const a = move.action;
  switch (a.case) {
    case "draw":
      return s.phase === PaxVikingJuniorPhase.DRAWING || s.phase === PaxVikingJuniorPhase.SETUP_TILE ? ["lid"] : [];
    case "chooseBoard":
      return [`board:${a.value.board}`];
    case "journey":
      return [`region:${a.value.region}`];
    case "drawTiles":
    case "returnTiles":
      return ["lid"];
    case "placeTile":
      return [`drawn:${a.value.tile}`];
    case "placeKittens":
      return a.value.count > 0 ? ["cats:kittens", here] : [];
    case "placeBigCat":
      return ["cats:big", here];
    case "pickUpCats":
      return [here];
    default:
      return [];
  }
}

// ---------------------------------------------------------------- drawing helpers

const CELL = 40; // viewBox units per grid cell of the map
const HALO = "#f7f7ea"; // a light edge behind small text on the map
const SEA = "#a8cbe6";
const INK = "#1f2a1f";

/** The animal colours and the 2-letter codes written on tiles (the letters are the cue, not the colour). */
const ANIMAL_LOOK: Record<string, { fill: string; ink: string; code: string }> = {
  pig: { fill: "#f3a9b9", ink: "#3a1620", code: "Pi" },
  sheep: { fill: "#f7f3e3", ink: "#2a2a2a", code: "Sh" },
  cow: { fill: "#444049", ink: "#ffffff", code: "Co" },
  goat: { fill: "#c39a66", ink: "#21160a", code: "Go" },
  horse: { fill: "#8b4a2b", ink: "#ffffff", code: "Ho" },
  hen: { fill: "#f2c230", ink: "#2a1f00", code: "He" },
};
const CARD_COLOURS: Record<string, string> = { red: "#e7a096", green: "#a9d39a", yellow: "#f2dc83" };

function look(animal: string): { fill: string; ink: string; code: string } {
  return ANIMAL_LOOK[animal] ?? { fill: "#dddddd", ink: "#111111", code: animal.slice(0, 2) };
}

function points(ps: Point[], scale = CELL): string {
  return ps.map(([x, y]) => `${x * scale},${y * scale}`).join(" ");
}

/** Text in the board's font, centred on (x, y). */
function label(x: number, y: number, size: number, text: string, attrs: Record<string, string | number> = {}) {
  return svg(
    "text",
    { x, y, "font-size": size, "text-anchor": "middle", "dominant-baseline": "central", "font-family": "system-ui, sans-serif", ...attrs },
    text,
  );
}

/** An outline that shows on both light and dark seat colours. */
function edge(seat: number): string {
  return seat === 1 ? "#f2efe6" : "#1b1b1b";
}

/** An Animal tile (kind) of side `size` centred on (x, y): animal colour, code, ×2 for two animals. */
function tileGlyph(m: Model, kind: number, x: number, y: number, size: number, extra = false): SVGGElement {
  const t = m.tiles[kind];
  const l = look(t?.animal ?? "?");
  const g = svg("g", { class: "pax_viking_junior-tile" });
  const half = size / 2;
  if (t && t.animals > 1) {
    // Two animals on the tile: a second card peeks out behind it.
    g.append(svg("rect", { x: x - half + size * 0.14, y: y - half - size * 0.14, width: size, height: size, rx: size * 0.14, fill: l.fill, stroke: INK, "stroke-width": size * 0.05 }));
  }
  g.append(svg("rect", { x: x - half, y: y - half, width: size, height: size, rx: size * 0.14, fill: l.fill, stroke: extra ? "#d97706" : INK, "stroke-width": extra ? size * 0.12 : size * 0.05 }));
  g.append(label(x, y - (t && t.animals > 1 ? size * 0.1 : 0), size * 0.48, l.code, { fill: l.ink, "font-weight": 700 }));
  if (t && t.animals > 1) g.append(label(x, y + size * 0.3, size * 0.32, "×2", { fill: l.ink, "font-weight": 700 }));
  return g;
}

/** A cat's head (ears and face) of radius r at (x, y), in the seat's colour with its number. */
function catHead(seat: number, x: number, y: number, r: number, big: boolean): SVGGElement {
  const fill = SEAT_COLOURS[seat] ?? "#999";
  const stroke = edge(seat);
  const g = svg("g");
  const ear = (dir: number) =>
    svg("path", {
      d: `M${x + dir * r * 0.95},${y - r * 0.2} L${x + dir * r * 0.8},${y - r * 1.25} L${x + dir * r * 0.2},${y - r * 0.85} Z`,
      fill, stroke, "stroke-width": r * 0.14, "stroke-linejoin": "round",
    });
  g.append(ear(-1), ear(1));
  g.append(svg("circle", { cx: x, cy: y, r, fill, stroke, "stroke-width": r * (big ? 0.26 : 0.14) }));
  if (big) {
    // The Big Cat wears a crown: the shape tells it from a Kitten without the colour.
    g.append(svg("path", {
      d: `M${x - r * 0.6},${y - r * 1.05} L${x - r * 0.6},${y - r * 1.7} L${x - r * 0.3},${y - r * 1.35} L${x},${y - r * 1.8} L${x + r * 0.3},${y - r * 1.35} L${x + r * 0.6},${y - r * 1.7} L${x + r * 0.6},${y - r * 1.05} Z`,
      fill: "#f2c230", stroke: "#1b1b1b", "stroke-width": r * 0.1,
    }));
  }
  g.append(label(x, y + r * 0.08, r * 1.2, String(seat + 1), { fill: SEAT_INK[seat] ?? "#000", "font-weight": 700 }));
  return g;
}

/** A Longship (hull, dragon prow, sail) in the seat's colour with its number on the sail. */
function longship(seat: number, x: number, y: number, size: number): SVGGElement {
  const s = size / 2;
  const fill = SEAT_COLOURS[seat] ?? "#999";
  const stroke = edge(seat);
  const g = svg("g");
  g.append(svg("path", {
    d: `M${x - s},${y - s * 0.05} Q${x - s * 0.95},${y + s * 0.7} ${x - s * 0.2},${y + s * 0.7} L${x + s * 0.2},${y + s * 0.7} Q${x + s * 0.95},${y + s * 0.7} ${x + s},${y - s * 0.05} L${x + s * 0.75},${y + s * 0.15} L${x - s * 0.75},${y + s * 0.15} Z`,
    fill: "#7a4e2a", stroke: "#1b1b1b", "stroke-width": s * 0.08, "stroke-linejoin": "round",
  }));
  g.append(svg("rect", { x: x - s * 0.55, y: y - s * 0.95, width: s * 1.1, height: s * 0.95, rx: s * 0.1, fill, stroke, "stroke-width": s * 0.1 }));
  g.append(label(x, y - s * 0.47, s * 0.85, String(seat + 1), { fill: SEAT_INK[seat] ?? "#000", "font-weight": 700 }));
  return g;
}

/** A heart in the Friend's colour with the seat's number: "these animals are Friends of seat N". */
function friendHeart(seat: number, x: number, y: number, size: number): SVGGElement {
  const s = size / 2;
  const g = svg("g");
  g.append(svg("path", {
    d: `M${x},${y + s * 0.9} C${x - s * 1.5},${y - s * 0.1} ${x - s * 0.8},${y - s * 1.2} ${x},${y - s * 0.45} C${x + s * 0.8},${y - s * 1.2} ${x + s * 1.5},${y - s * 0.1} ${x},${y + s * 0.9} Z`,
    fill: SEAT_COLOURS[seat] ?? "#999", stroke: seat === 1 ? "#e0457b" : "#c2185b", "stroke-width": s * 0.16, "stroke-linejoin": "round",
  }));
  g.append(label(x, y - s * 0.05, s * 0.85, String(seat + 1), { fill: SEAT_INK[seat] ?? "#000", "font-weight": 700 }));
  return g;
}

/** A shield on the map: the cat board whose Longship starts here (its initial, in a neutral colour). */
function shieldGlyph(board: CatBoardData | undefined, x: number, y: number, size: number): SVGGElement {
  const s = size / 2;
  const g = svg("g", { class: "pax_viking_junior-shield" });
  g.append(svg("path", {
    d: `M${x - s},${y - s} L${x + s},${y - s} L${x + s},${y} Q${x + s},${y + s * 0.8} ${x},${y + s * 1.1} Q${x - s},${y + s * 0.8} ${x - s},${y} Z`,
    fill: "#fbf7ea", stroke: "#6b5b3a", "stroke-width": s * 0.12,
  }));
  g.append(label(x, y - s * 0.05, s * 1.05, board ? [...board.name][0] : "?", { fill: "#6b5b3a", "font-weight": 700 }));
  return g;
}

// ---------------------------------------------------------------- the map

/** One thing drawn in a cell of a region. */
type Piece = (x: number, y: number, size: number) => SVGElement;

/** The pieces of region r, in the order they take its cells: tiles, Friend, Cats, Longships. */
function regionPieces(m: Model, s: PaxVikingJuniorState, r: number): Piece[] {
  const region = s.regions[r];
  const pieces: Piece[] = [];
  if (!region) return pieces;
  // The tile placed this turn is outlined, so a player sees what just changed.
  const newest = s.placed >= 0 && shipRegion(s) === r ? region.tiles.length - 1 : -1;
  region.tiles.forEach((kind, i) => pieces.push((x, y, size) => tileGlyph(m, kind, x, y, size * 0.78, i === newest)));
  if (region.friendSeat >= 0) pieces.push((x, y, size) => friendHeart(region.friendSeat, x, y, size * 0.8));
  if (region.bigCat >= 0) pieces.push((x, y, size) => catHead(region.bigCat, x, y + size * 0.12, size * 0.28, true));
  region.kittens.forEach((k, seat) => {
    if (k <= 0) return;
    pieces.push((x, y, size) => {
      const g = catHead(seat, x - size * 0.1, y + size * 0.06, size * 0.27, false);
      // The count beside the head: how many Kittens of this seat are here.
      g.append(label(x + size * 0.3, y + size * 0.28, size * 0.36, `×${k}`, { fill: INK, "font-weight": 700, stroke: HALO, "stroke-width": size * 0.06, "paint-order": "stroke" }));
      return g;
    });
  });
  s.seats.forEach((p, seat) => {
    if (p.ship === r) pieces.push((x, y, size) => longship(seat, x, y + size * 0.05, size * 0.84));
  });
  return pieces;
}

/** Places pieces in a region's cells; when they outnumber the cells, each cell takes four at half size. */
function layOut(cells: Point[], pieces: Piece[]): SVGElement[] {
  let slots: { x: number; y: number; size: number }[] = cells.map(([x, y]) => ({ x: (x + 0.5) * CELL, y: (y + 0.5) * CELL, size: CELL }));
  if (pieces.length > slots.length) {
    slots = slots.flatMap(({ x, y }) =>
      [[-1, -1], [1, -1], [-1, 1], [1, 1]].map(([dx, dy]) => ({ x: x + (dx * CELL) / 4, y: y + (dy * CELL) / 4, size: CELL / 2 })),
    );
  }
  return pieces.slice(0, slots.length).map((piece, i) => piece(slots[i].x, slots[i].y, slots[i].size));
}

/** The words of a region's title: name, tiles, Friend, Cats and Longships there. */
function regionTitle(m: Model, s: PaxVikingJuniorState, r: number, names: string[]): string {
  const data = m.map.regions[r];
  const region = s.regions[r];
  const parts = [data.land ? data.name : `${data.name} (sea)`];
  if (region) {
    if (region.tiles.length) parts.push(`tiles: ${region.tiles.map((t) => tileWords(m, t)).join("; ")}`);
    if (region.friendSeat >= 0) parts.push(`Friends with ${names[region.friendSeat]}`);
    if (region.bigCat >= 0) parts.push(`Big Cat of ${names[region.bigCat]}`);
    region.kittens.forEach((k, seat) => k > 0 && parts.push(`${plural(k, "Kitten", "Kittens")} of ${names[seat]}`));
  }
  s.seats.forEach((p, seat) => p.ship === r && parts.push(`Longship of ${names[seat]}`));
  return parts.join(" — ");
}

function drawMap(m: Model, ctx: Ctx): SVGGElement {
  const s = ctx.state;
  const g = svg("g", { class: "pax_viking_junior-map" });
  const areas = svg("g");
  const lines = svg("g", { "pointer-events": "none" });
  const pieces = svg("g", { "pointer-events": "none" });
  const names = svg("g", { "pointer-events": "none", class: "pax_viking_junior-names" });
  m.map.regions.forEach((region, r) => {
    const friend = s.regions[r]?.friendSeat ?? -1;
    const area = svg("polygon", {
      points: points(region.outline),
      fill: region.land ? m.tints[r] : SEA,
      class: region.land ? "pax_viking_junior-land" : "pax_viking_junior-sea",
      "data-target": region.land ? `region:${r}` : null,
    }, title(regionTitle(m, s, r, ctx.seatNames)));
    areas.append(area);
    if (friend >= 0) {
      // The Friend's colour along the inside of the region's edge (a stroke clipped to the region).
      const clip = `pax_viking_junior-clip-${r}`;
      areas.append(svg("clipPath", { id: clip }, svg("polygon", { points: points(region.outline) })));
      areas.append(svg("polygon", {
        points: points(region.outline), fill: "none", stroke: SEAT_COLOURS[friend], "stroke-width": CELL * 0.4,
        "clip-path": `url(#${clip})`, "pointer-events": "none", opacity: 0.85,
      }));
    }
  });
  for (const river of m.map.rivers) {
    lines.append(svg("polyline", { points: points(river.points), fill: "none", stroke: "#3b82c4", "stroke-width": 5, "stroke-linecap": "round", "stroke-linejoin": "round", opacity: 0.8 }, title(river.name)));
  }
  for (const border of m.map.borders) {
    const black = border.line === "black";
    for (const path of border.paths) {
      lines.append(svg("polyline", {
        points: points(path), fill: "none", stroke: black ? "#111111" : "#ffffff",
        "stroke-width": black ? 9 : 4, "stroke-linecap": "round", "stroke-linejoin": "round",
      }));
    }
  }
  for (const shield of m.map.shields) {
    const r = m.regionIndex.get(shield.region) ?? -1;
    const cells = m.cells[r];
    if (!cells?.length) continue;
    // In the bottom corner of the farthest cell below the name row, small, so it hides no piece or name.
    const top = Math.min(...cells.map((c) => c[1]));
    const [x, y] = [...cells].reverse().find((c) => c[1] !== top) ?? cells[cells.length - 1];
    const board = m.boards.find((b) => b.shield === shield.id);
    pieces.append(shieldGlyph(board, (x + 0.8) * CELL, (y + 0.76) * CELL, CELL * 0.34));
  }
  m.map.regions.forEach((region, r) => {
    if (!region.land) {
      names.append(label(region.centre[0] * CELL, region.centre[1] * CELL, CELL * 0.34, region.name, { fill: "#2f5f86", "font-style": "italic", opacity: 0.8 }));
      return;
    }
    if (!m.cells[r].length) return; // a region narrower than a cell (only in replaced components)
    pieces.append(...layOut(m.cells[r], regionPieces(m, s, r)));
    const top = Math.min(...m.cells[r].map((c) => c[1]));
    const row = m.cells[r].filter((c) => c[1] === top);
    const x = (Math.min(...row.map((c) => c[0])) + Math.max(...row.map((c) => c[0])) + 1) / 2;
    names.append(label(x * CELL, (top + 0.16) * CELL, CELL * 0.3, region.name, { fill: INK, stroke: HALO, "stroke-width": 3, "paint-order": "stroke", "font-weight": 600 }));
  });
  g.append(areas, lines, names, pieces);
  return g;
}

// ---------------------------------------------------------------- below the map

const W = 24 * CELL;
const GAP = 10;

/** A victory card: its colour, and what it asks for (Silfr, Scrolls or animals as small tiles). */
function drawCard(m: Model, s: PaxVikingJuniorState, card: number, x: number, y: number, w: number, hgt: number, names: string[]): SVGGElement {
  const c = m.cards[card];
  const won = s.wonCard === card;
  const g = svg("g", { class: "pax_viking_junior-card" });
  g.append(svg("rect", { x, y, width: w, height: hgt, rx: 10, fill: CARD_COLOURS[c?.colour ?? ""] ?? "#eee", stroke: won ? "#d97706" : INK, "stroke-width": won ? 7 : 2 }));
  g.append(title(`Victory card: ${c?.name ?? card}${won ? ` — fulfilled by ${names[s.winner]}` : ""}`));
  if (!c) return g;
  if (c.silfr || c.scrolls) {
    const coin = c.silfr ? "Silfr" : "Scrolls";
    g.append(label(x + w / 2, y + hgt * 0.38, hgt * 0.4, String(c.silfr || c.scrolls), { fill: INK, "font-weight": 700 }));
    g.append(label(x + w / 2, y + hgt * 0.78, hgt * 0.22, coin, { fill: INK }));
    return g;
  }
  const wanted = Object.entries(c.animals ?? {});
  const size = Math.min((w - 12) / wanted.length - 6, hgt * 0.46);
  wanted.forEach(([animal, k], i) => {
    const cx = x + 6 + ((w - 12) / wanted.length) * (i + 0.5);
    const l = look(animal);
    g.append(svg("rect", { x: cx - size / 2, y: y + hgt * 0.12, width: size, height: size, rx: size * 0.14, fill: l.fill, stroke: INK, "stroke-width": 2 }));
    g.append(label(cx, y + hgt * 0.12 + size / 2, size * 0.5, l.code, { fill: l.ink, "font-weight": 700 }));
    g.append(label(cx, y + hgt * 0.8, hgt * 0.24, `×${k}`, { fill: INK, "font-weight": 700 }));
  });
  return g;
}

/** The box lid (a target to draw or to put tiles back) with the number of tiles face down in it. */
function drawLid(s: PaxVikingJuniorState, x: number, y: number, w: number, hgt: number): SVGGElement {
  const left = s.lid.reduce((a, b) => a + b, 0);
  const g = svg("g", { "data-target": "lid", class: "pax_viking_junior-lid" });
  g.append(svg("rect", { x, y, width: w, height: hgt, rx: 10, fill: "#8a6a45", stroke: INK, "stroke-width": 2 }));
  g.append(svg("rect", { x: x + 10, y: y + 10, width: w - 20, height: hgt - 20, rx: 6, fill: "#a9855a", stroke: "#5a4026", "stroke-width": 2 }));
  g.append(label(x + w / 2, y + hgt * 0.36, hgt * 0.3, String(left), { fill: "#fff", "font-weight": 700 }));
  g.append(label(x + w / 2, y + hgt * 0.72, hgt * 0.18, "in the lid", { fill: "#fff" }));
  // The title comes after the frame: the shell outlines a target's first child.
  g.append(title(`Box lid: ${plural(left, "Animal tile", "Animal tiles")} face down`));
  return g;
}

/** The tiles drawn this turn, large, with their Silfr and Scrolls (each a target to place it). */
function drawDrawn(m: Model, s: PaxVikingJuniorState, x: number, y: number, hgt: number): SVGGElement {
  const g = svg("g");
  g.append(label(x + 50, y + hgt / 2, 24, "Drawn:", { fill: INK, "font-weight": 700 }));
  s.drawn.forEach((kind, i) => {
    const w = 170;
    const tx = x + 110 + i * (w + GAP);
    const t = m.tiles[kind];
    const tg = svg("g", { "data-target": `drawn:${kind}` });
    tg.append(svg("rect", { x: tx, y, width: w, height: hgt, rx: 10, fill: "#fffdf5", stroke: INK, "stroke-width": 2 }));
    tg.append(tileGlyph(m, kind, tx + 42, y + hgt / 2, 56));
    const animal = t ? animalOf(m, t.animal) : undefined;
    const what = t ? `${t.animals} ${t.animals === 1 ? (animal?.name ?? "") : (animal?.plural ?? "")}` : "";
    tg.append(label(tx + 120, y + hgt * 0.25, 22, what, { fill: INK, "font-weight": 700 }));
    tg.append(label(tx + 120, y + hgt * 0.55, 20, `${t?.silfr ?? 0} Silfr`, { fill: INK }));
    tg.append(label(tx + 120, y + hgt * 0.8, 20, `${t?.scrolls ?? 0} Scrolls`, { fill: INK }));
    tg.append(title(`Drawn tile: ${tileWords(m, kind)}`));
    g.append(tg);
  });
  return g;
}

/** One cat board: who has it, Kittens and Big Cats still on it, Silfr and Scrolls beside it. */
function drawCatBoard(m: Model, ctx: Ctx, b: number, seat: number, x: number, y: number, w: number, hgt: number): SVGGElement {
  const s = ctx.state;
  const board = m.boards[b];
  const p = seat >= 0 ? s.seats[seat] : undefined;
  const free = seat < 0;
  const g = svg("g", { class: "pax_viking_junior-board", "data-target": free ? `board:${b}` : null });
  const who = seat >= 0 ? `${ctx.seatNames[seat]}${seat === ctx.seat ? " (you)" : ""}` : "free";
  g.append(svg("rect", {
    x, y, width: w, height: hgt, rx: 10, fill: free ? "#f6f1e4" : "#fffdf5",
    stroke: seat >= 0 && seat === ctx.seat ? "#1d4ed8" : INK, "stroke-width": seat >= 0 && seat === ctx.seat ? 5 : 2,
  }));
  const font = Math.min(22, w / 8);
  const nameText = board ? board.name : "choosing…";
  if (seat >= 0) g.append(catHead(seat, x + font * 1.1, y + font * 1.25, font * 0.62, false));
  g.append(label(x + (seat >= 0 ? font * 2 : 10), y + font * 1.2, font, nameText, { fill: INK, "font-weight": 700, "text-anchor": "start" }));
  const boardTitle = board ? `${board.name} (${board.colour}) — ${board.ability}` : "No cat board yet";
  if (free || !p) {
    if (board) g.append(label(x + w / 2, y + hgt * 0.62, font * 0.85, abilityShort(board), { fill: INK }));
    g.append(title(`${boardTitle} — ${free ? "free: tap to take it" : who}`));
    return g;
  }
  const row = y + hgt * 0.58;
  // Kittens and Big Cats on the board: targets for placing them, in the player's own turn.
  const kittens = svg("g", { "data-target": seat === s.turn ? "cats:kittens" : null });
  kittens.append(svg("rect", { x: x + 4, y: row - font, width: w / 2 - 6, height: font * 2, rx: 6, fill: "transparent" }));
  kittens.append(catHead(seat, x + font * 1.1, row + font * 0.15, font * 0.5, false), label(x + font * 2.4, row + font * 0.1, font, `×${p.kittensLeft}`, { fill: INK, "font-weight": 700 }));
  const bigs = svg("g", { "data-target": seat === s.turn ? "cats:big" : null });
  bigs.append(svg("rect", { x: x + w / 2, y: row - font, width: w / 2 - 6, height: font * 2, rx: 6, fill: "transparent" }));
  bigs.append(catHead(seat, x + w / 2 + font * 0.9, row + font * 0.3, font * 0.5, true), label(x + w / 2 + font * 2.2, row + font * 0.1, font, `×${p.bigCatsLeft}`, { fill: INK, "font-weight": 700 }));
  kittens.append(title(`${plural(p.kittensLeft, "Kitten", "Kittens")} on the cat board of ${ctx.seatNames[seat]}`));
  bigs.append(title(`${plural(p.bigCatsLeft, "Big Cat", "Big Cats")} on the cat board of ${ctx.seatNames[seat]}`));
  g.append(kittens, bigs);
  const coins = y + hgt * 0.86;
  g.append(coin(x + font * 1.1, coins, font * 0.55, "S", "#c0c4cc"), label(x + font * 2.4, coins, font, String(p.silfr), { fill: INK, "font-weight": 700 }));
  g.append(coin(x + w / 2 + font * 0.9, coins, font * 0.55, "≡", "#ecd9a8"), label(x + w / 2 + font * 2.2, coins, font, String(p.scrolls), { fill: INK, "font-weight": 700 }));
  g.append(title(`${boardTitle} — ${ctx.seatNames[seat]}: ${p.silfr} Silfr, ${p.scrolls} Scrolls`));
  return g;
}

/** A cat board's ability in a few words, from its numbers (the full text is in the title). */
function abilityShort(board: CatBoardData): string {
  if (board.journey_steps > 3) return `Journey up to ${board.journey_steps} steps`;
  if (board.tile_draws.some((k) => k > 2)) return `May draw ${Math.max(...board.tile_draws)} tiles`;
  if (board.silfr_bonus) return "1 Silfr gained → 2";
  if (board.scrolls_bonus) return "1 Scroll gained → 2";
  if (board.steal_gain) return "Steal: gain the tiles' coins";
  if (board.big_cats > 2) return `${board.big_cats} Big Cats`;
  return board.ability.replace(/^[^:]*:\s*/, "").slice(0, 28);
}

/** A Silfr coin ("S", silver) or a Scroll ("≡", parchment). */
function coin(x: number, y: number, r: number, mark: string, fill: string): SVGGElement {
  return svg("g", {}, svg("circle", { cx: x, cy: y, r, fill, stroke: INK, "stroke-width": r * 0.15 }), label(x, y, r * 1.2, mark, { fill: INK, "font-weight": 700 }));
}

/** The strip below the map: victory cards and lid, the drawn tiles, the cat boards. Returns its height. */
function drawStrip(m: Model, ctx: Ctx, top: number, into: SVGElement): number {
  const s = ctx.state;
  let y = top + GAP;
  const cardH = 96;
  const lidW = 150;
  const cardW = Math.min(160, (W - lidW - GAP * (s.cards.length + 2)) / Math.max(1, s.cards.length));
  s.cards.forEach((card, i) => into.append(drawCard(m, s, card, GAP + i * (cardW + GAP), y, cardW, cardH, ctx.seatNames)));
  into.append(drawLid(s, W - GAP - lidW, y, lidW, cardH));
  y += cardH + GAP;
  if (s.drawn.length) {
    into.append(drawDrawn(m, s, GAP, y, 100));
    y += 100 + GAP;
  }
  // While cat boards are being chosen every board is shown (free ones are targets); later only the players'.
  const choosing = s.seats.some((p) => p.board < 0);
  const owner = (b: number) => s.seats.findIndex((p) => p.board === b);
  const shown: [number, number][] = choosing ? m.boards.map((_, b) => [b, owner(b)]) : s.seats.map((p, seat) => [p.board, seat]);
  const perRow = shown.length > 4 ? 3 : shown.length;
  const boardW = (W - GAP * (perRow + 1)) / perRow;
  const boardH = 104;
  shown.forEach(([b, seat], i) => {
    const col = i % perRow;
    const rowY = y + Math.floor(i / perRow) * (boardH + GAP);
    into.append(drawCatBoard(m, ctx, b, seat, GAP + col * (boardW + GAP), rowY, boardW, boardH));
  });
  y += Math.ceil(shown.length / perRow) * (boardH + GAP);
  return y - top;
}

function board(ctx: Ctx): SVGSVGElement {
  const m = model(ctx.data);
  const mapH = m.map.height * CELL;
  const root = svg("svg", { class: "pax_viking_junior", role: "group", "aria-label": "Pax Viking Junior: the map, victory cards and cat boards" });
  root.append(drawMap(m, ctx));
  const strip = svg("g", { class: "pax_viking_junior-strip" });
  const stripH = drawStrip(m, ctx, mapH, strip);
  root.prepend(svg("rect", { x: 0, y: mapH, width: W, height: stripH, fill: "#efe8d6" }));
  root.append(strip);
  root.setAttribute("viewBox", `0 0 ${m.map.width * CELL} ${mapH + stripH}`);
  return root;
}

// ---------------------------------------------------------------- the panel

/** How many animals of each kind `seat` is Friends with on the map (a 2-animal tile counts 2). */
function friendAnimals(m: Model, s: PaxVikingJuniorState, seat: number): Map<string, number> {
  const have = new Map<string, number>();
  s.regions.forEach((region) => {
    if (region.friendSeat !== seat) return;
    for (const kind of region.tiles) {
      const t = m.tiles[kind];
      if (t) have.set(t.animal, (have.get(t.animal) ?? 0) + t.animals);
    }
  });
  return have;
}

function animalsText(m: Model, have: Map<string, number>): string {
  const parts = m.animals.filter((a) => (have.get(a.id) ?? 0) > 0).map((a) => `${have.get(a.id)} ${have.get(a.id) === 1 ? a.name : a.plural}`);
  return parts.length ? parts.join(", ") : "—";
}

/** How far `seat` is towards a card: "7/12 Silfr", or animals had of animals asked ("3/4 animals"). */
function progress(m: Model, s: PaxVikingJuniorState, seat: number, card: number): string {
  const c = m.cards[card];
  const p = s.seats[seat];
  if (!c || !p) return "";
  if (c.silfr) return `${Math.min(p.silfr, c.silfr)}/${c.silfr} Silfr`;
  if (c.scrolls) return `${Math.min(p.scrolls, c.scrolls)}/${c.scrolls} Scrolls`;
  const have = friendAnimals(m, s, seat);
  let got = 0;
  let want = 0;
  for (const [animal, k] of Object.entries(c.animals ?? {})) {
    want += k;
    got += Math.min(k, have.get(animal) ?? 0);
  }
  return `${got}/${want} animals`;
}

function panel(ctx: Ctx): HTMLElement {
  const m = model(ctx.data);
  const s = ctx.state;
  const root = h("div", { class: "pax_viking_junior-panel" });
  if (s.winner >= 0) {
    root.append(h("p", { class: "pax_viking_junior-won" }, `${ctx.seatNames[s.winner]} fulfilled the victory card ${m.cards[s.wonCard]?.name ?? ""}.`));
  }
  root.append(playersTable(m, ctx), animalLegend(m));
  const me = ctx.seat;
  if (s.cards.length) {
    const list = h("ul", { class: "pax_viking_junior-cards" });
    for (const card of s.cards) {
      const c = m.cards[card];
      list.append(h("li", {}, h("span", { class: `pax_viking_junior-chip pax_viking_junior-${c?.colour ?? "none"}` }, c?.colour ?? ""), ` ${c?.name ?? card}`,
        me !== undefined && s.seats[me] ? h("span", { class: "pax_viking_junior-progress" }, ` — you: ${progress(m, s, me, card)}`) : null));
    }
    root.append(h("h4", {}, "Victory cards"), list);
  }
  const facts = h("dl", { class: "pax_viking_junior-facts" });
  const fact = (term: string, value: string) => facts.append(h("dt", {}, term), h("dd", {}, value));
  fact("Box lid", plural(s.lid.reduce((a, b) => a + b, 0), "tile", "tiles"));
  if (s.drawn.length) fact("Drawn", s.drawn.map((t) => tileWords(m, t)).join("; "));
  if (s.toDraw > 0) fact("Still to draw", String(s.toDraw));
  if (s.placed >= 0) fact("Placed this turn", tileWords(m, s.placed));
  if (s.options?.buff) fact("Buff", s.buffed ? "used this turn" : "not used this turn");
  const mine = me !== undefined ? s.seats[me] : undefined;
  if (mine && mine.board >= 0) fact("Your ability", m.boards[mine.board]?.ability ?? "");
  root.append(facts);
  return root;
}

/** What the two letters on the map's tiles stand for, in their colours (no room on a tile for a name). */
function animalLegend(m: Model): HTMLElement {
  return h(
    "ul",
    { class: "pax_viking_junior-legend", "aria-label": "The animals on the tiles" },
    ...m.animals.map((a) => {
      const l = look(a.id);
      return h("li", {}, h("span", { class: "pax_viking_junior-code", style: `background:${l.fill};color:${l.ink}` }, l.code), ` ${a.name}`);
    }),
  );
}

/** Two rows per player: name and cat board, Silfr, Scrolls, Cats left; then the animals they are Friends with. */
function playersTable(m: Model, ctx: Ctx): HTMLTableElement {
  const s = ctx.state;
  const head = h("tr", {}, ...["Player", "Silfr", "Scrolls", "Kittens", "Big Cats"].map((t) => h("th", { scope: "col" }, t)));
  const table = h("table", { class: "pax_viking_junior-players" }, h("thead", {}, head));
  const body = h("tbody");
  s.seats.forEach((p, seat) => {
    const board = m.boards[p.board];
    const me = seat === ctx.seat ? "pax_viking_junior-me" : null;
    const swatch = h("span", { class: "pax_viking_junior-swatch", style: `background:${SEAT_COLOURS[seat]};color:${SEAT_INK[seat]}` }, String(seat + 1));
    body.append(
      h("tr", { class: me },
        h("th", { scope: "row", title: board?.ability ?? "" }, swatch, ` ${ctx.seatNames[seat]}`, board ? h("small", {}, ` ${board.name}`) : null),
        h("td", {}, p.silfr), h("td", {}, p.scrolls), h("td", {}, p.kittensLeft), h("td", {}, p.bigCatsLeft)),
      // The Friends on a row of their own: the list is long and the table must fit a phone.
      h("tr", { class: `pax_viking_junior-friends ${me ?? ""}` },
        h("td", { colspan: 5 }, `Friends with: ${animalsText(m, friendAnimals(m, s, seat))}`)),
    );
  });
  table.append(body);
  return table;
}

function seatNames(players: number, _data: JsonObject): string[] {
  return Array.from({ length: players }, (_, i) => `Player ${i + 1}`);
}

export const ui: GameUI<PaxVikingJuniorState, PaxVikingJuniorMove> = { seatNames, board, targets, describe, panel };
