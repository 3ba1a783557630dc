/** The lobby: pick a game, its player count and options, and start a session or a local game. */
import { type DescMessage, fromJson } from "@bufbuild/protobuf";
import {
  type DescribeGameResponse,
  type GameInfo,
  type GameOptionInfo,
  type GameOptions,
  GameOptionsSchema,
} from "@lawspeaker/client";
import { clients, refusalOf } from "./api.js";
import { h } from "./dom.js";

/** What the lobby starts: handed to the router. */
export interface Start {
  game: string;
  players: number;
  options: GameOptions | undefined;
  local: boolean;
  /** The level of the computer opponents (every seat but the first), or "" for people only. */
  opponents: Opponents;
}

/** Who plays the other seats of a session: people (each gets a link) or the computer. */
export type Opponents = "" | "random" | "greedy" | "search";

const OPPONENTS: [Opponents, string][] = [
  ["", "People: send each a seat link"],
  ["random", "Computer: easy (random moves)"],
  ["greedy", "Computer: medium (looks one move ahead)"],
  ["search", "Computer: hard (searches for a second)"],
];

function words(name: string): string {
  const text = name.replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** An allowed value in words: enum names lose the game's prefix ("VALHALLA_START_ENTER" → "Enter"). */
function valueWords(value: string): string {
  if (/^[A-Z0-9_]+$/.test(value)) {
    const parts = value.split("_");
    return words(parts.slice(-Math.max(1, parts.length - 2)).join("_").toLowerCase());
  }
  return value === "true" ? "Yes" : value === "false" ? "No" : value;
}

/** The options message's schema of `game` (the GameOptions oneof field named after the game). */
function optionsSchema(game: string): DescMessage | undefined {
  const field = GameOptionsSchema.fields.find((f) => f.name === game);
  return field?.fieldKind === "message" ? field.message : undefined;
}

/** The chosen options as a GameOptions message; the option texts converted by each field's type. */
export function buildOptions(game: string, chosen: Map<string, string>): GameOptions | undefined {
  const schema = optionsSchema(game);
  if (!schema || chosen.size === 0) return undefined;
  const json: Record<string, unknown> = {};
  for (const [name, text] of chosen) {
    const field = schema.fields.find((f) => f.name === name);
    if (!field) continue;
    let value: unknown = text;
    if (field.fieldKind === "list") value = JSON.parse(text);
    else if (field.fieldKind === "scalar") {
      const kind = field.scalar; // 8 = bool, 9 = string, 12 = bytes; the rest are numbers
      value = kind === 8 ? text === "true" : kind === 9 || kind === 12 ? text : Number(text);
    }
    json[field.jsonName] = value;
  }
  return fromJson(GameOptionsSchema, { [game]: json } as never);
}

function optionControl(option: GameOptionInfo, chosen: Map<string, string>): HTMLElement {
  const id = `option-${option.name}`;
  const label = h("label", { for: id }, words(option.name));
  const hint = h("small", { id: `${id}-hint`, class: "hint" }, option.description);
  let control: HTMLElement;
  if (option.allowedValues.length > 0) {
    const select = h(
      "select",
      { id, "aria-describedby": `${id}-hint`, onchange: () => chosen.set(option.name, select.value) },
      ...option.allowedValues.map((v) => h("option", { value: v, selected: v === option.defaultValue }, valueWords(v))),
    );
    control = select;
  } else {
    const input = h("input", {
      id,
      type: "text",
      value: option.defaultValue,
      placeholder: option.defaultValue ? "" : "default",
      "aria-describedby": `${id}-hint`,
      oninput: () => (input.value === option.defaultValue ? chosen.delete(option.name) : chosen.set(option.name, input.value)),
    });
    control = input;
  }
  return h("div", { class: "field" }, label, control, hint);
}

/** Draws the lobby into `root`; `start` is called with the player's choice. */
export async function lobby(root: HTMLElement, start: (choice: Start) => Promise<void>): Promise<void> {
  const api = clients();
  const status = h("p", { class: "status", role: "status" }, "Loading the games…");
  root.replaceChildren(h("section", { class: "lobby" }, h("h1", {}, "Lawspeaker"), status));
  let games: GameInfo[];
  try {
    games = (await api.rules.listGames({})).games;
  } catch (err) {
    status.textContent = `The service did not answer: ${refusalOf(err).message}`;
    return;
  }
  const form = h("form", { class: "card", "aria-label": "New game" });
  const gameSelect = h(
    "select",
    { id: "game", name: "game" },
    ...games.map((g) => h("option", { value: g.id }, g.title)),
  );
  const details = h("div", { class: "details" });
  const error = h("p", { class: "refusal", role: "alert" });
  let described: DescribeGameResponse | undefined;
  const chosen = new Map<string, string>();

  const showGame = async (): Promise<void> => {
    const game = gameSelect.value;
    chosen.clear();
    details.replaceChildren(h("p", { class: "status" }, "…"));
    described = await api.rules.describeGame({ game });
    const info = described.info as GameInfo;
    const players = h(
      "select",
      { id: "players", name: "players" },
      ...Array.from({ length: info.maxPlayers - info.minPlayers + 1 }, (_, i) => info.minPlayers + i).map((n) =>
        h("option", { value: n }, String(n)),
      ),
    );
    const options = described.options.map((o) => optionControl(o, chosen));
    const opponents = h(
      "select",
      { id: "opponents", name: "opponents", "aria-describedby": "opponents-hint" },
      ...OPPONENTS.map(([value, text]) => h("option", { value }, text)),
    );
    details.replaceChildren(
      h("div", { class: "field" }, h("label", { for: "players" }, "Players"), players),
      h(
        "div",
        { class: "field" },
        h("label", { for: "opponents" }, "Other seats"),
        opponents,
        h("small", { id: "opponents-hint", class: "hint" }, "For a session: the computer plays every seat but yours."),
      ),
      ...(options.length ? [h("details", { class: "options" }, h("summary", {}, "Options"), ...options)] : []),
    );
  };
  gameSelect.addEventListener("change", () => void showGame());

  const begin = (local: boolean) => async (event: Event) => {
    event.preventDefault();
    error.textContent = "";
    const players = Number((form.querySelector("#players") as HTMLSelectElement | null)?.value ?? 0);
    const opponents = ((form.querySelector("#opponents") as HTMLSelectElement | null)?.value ?? "") as Opponents;
    let options: GameOptions | undefined;
    try {
      options = buildOptions(gameSelect.value, chosen);
    } catch (err) {
      error.textContent = `An option is not valid: ${(err as Error).message}`;
      return;
    }
    try {
      await start({ game: gameSelect.value, players, options, local, opponents });
    } catch (err) {
      const refusal = refusalOf(err);
      error.textContent = `${refusal.message} (${refusal.reason})`;
    }
  };

  form.append(
    h("div", { class: "field" }, h("label", { for: "game" }, "Game"), gameSelect),
    details,
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit", class: "primary", id: "start-session", onclick: begin(false) }, "Start a session"),
      h("button", { type: "button", id: "start-local", onclick: begin(true) }, "Play here (hot seat)"),
    ),
    h(
      "p",
      { class: "hint" },
      "A session is kept by the server: each seat gets its own link to open on another phone or tab, ",
      "or the computer plays the other seats. ",
      "Hot seat plays on this screen only, through the stateless rules API.",
    ),
    error,
  );
  root.replaceChildren(
    h(
      "section",
      { class: "lobby" },
      h("h1", {}, "Lawspeaker"),
      h("p", {}, "Play Viking-era board games; the rules are enforced by the service."),
      form,
    ),
  );
  await showGame();
}
