/**
 * The drawing of a game that has no module of its own (a game the server registers after this
 * bundle was built): no board, the moves named by their fields. Every game stays playable.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { h, svg } from "../dom.js";
import type { BoardContext, GameUI } from "./types.js";

/** A message's fields in words: `moveShip: ship 3, to 15`; oneofs by their case, bigints as numbers. */
export function fieldsText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "bigint" || typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return `${value.length} bytes`;
  if (Array.isArray(value)) return `[${value.map(fieldsText).join(", ")}]`;
  const record = value as Record<string, unknown>;
  if ("case" in record && "value" in record && Object.keys(record).length === 2) {
    if (record.case === undefined) return "";
    const inner = fieldsText(record.value);
    return inner ? `${String(record.case)}: ${inner}` : String(record.case);
  }
  return Object.entries(record)
    .filter(([name]) => !name.startsWith("$"))
    .map(([name, v]) => {
      const text = fieldsText(v);
      return typeof v === "object" && v !== null && "case" in v ? text : `${name} ${text}`;
    })
    .filter((text) => text.trim() !== "")
    .join(", ");
}

export const generic: GameUI<unknown, unknown> = {
  seatNames: (players: number, _data: JsonObject) => Array.from({ length: players }, (_, i) => `Player ${i + 1}`),
  board: (_ctx: BoardContext<unknown, unknown>) =>
    svg(
      "svg",
      { viewBox: "0 0 300 40", role: "img", "aria-label": "No drawing of this game" },
      svg("text", { x: 150, y: 24, "text-anchor": "middle", "font-size": 12 }, "This frontend has no drawing of this game yet."),
    ),
  targets: () => [],
  describe: (move: unknown) => fieldsText(move) || "Move",
  panel: (ctx: BoardContext<unknown, unknown>) => h("pre", { class: "generic-state" }, fieldsText(ctx.state)),
};
