/** The lobby: pick a game, its player count and options, and start a session or a local game. */
import { type DescMessage, create, fromJson } from "@bufbuild/protobuf";
import {
  type Clock,
  ClockSchema,
  type DescribeGameResponse,
  type GameInfo,
  type GameOptionInfo,
  type GameOptions,
  GameOptionsSchema,
  TimeoutAction,
} from "@lawspeaker/client";
import { clients, refusalOf, unreachable } from "./api.js";
import { h } from "./dom.js";
import { rememberedName } from "./keep.js";

/** What the lobby starts: handed to the router. */
export interface Start {
  game: string;
  players: number;
  options: GameOptions | undefined;
  local: boolean;
  /** The level of the computer opponents (every seat but the first), or "" for people only. */
  opponents: Opponents;
  /** A session's turn clock; undefined for none. */
  clock?: Clock;
  /** The name the other players see for the first seat (the creator's); "" for none. */
  name: string;
}

/** Who plays the other seats of a session: people (each gets a link, or finds the game in the lobby)
 * or the computer. */
export type Opponents = "" | "lobby" | "random" | "greedy" | "search";

const OPPONENTS: [Opponents, string][] = [
  ["", "People: send each a seat link"],
  ["lobby", "People from the lobby: anyone may join"],
  ["random", "Computer: easy (random moves)"],
  ["greedy", "Computer: medium (looks one move ahead)"],
  ["search", "Computer: hard (searches for a second)"],
];

/** The clocks the lobby offers: the choice's value, its words, and the fields it shows. */
const CLOCKS: [string, string][] = [
  ["", "No clock"],
  ["move", "Per move"],
  ["bank", "Time bank + increment"],
  ["days", "Correspondence (days a move)"],
];

const TIMEOUTS: [TimeoutAction, string][] = [
  [TimeoutAction.BOT, "The computer moves for the seat"],
  [TimeoutAction.FORFEIT, "The seat loses"],
  [TimeoutAction.NOTHING, "Nothing: the clock is only shown"],
];

/** A whole-number field of the clock: its label, shown for the clock kinds in `kinds`. */
function clockNumber(id: string, text: string, value: number, min: number, kinds: string): HTMLElement {
  return h(
    "div",
    { class: "field", "data-clock": kinds, hidden: true },
    h("label", { for: id }, text),
    h("input", { id, type: "number", inputmode: "numeric", min, step: 1, value }),
  );
}

/** The clock fields of the form, shown for the chosen kind only. */
function clockControls(): HTMLElement {
  const kind = h(
    "select",
    { id: "clock", name: "clock", "aria-describedby": "clock-hint" },
    ...CLOCKS.map(([value, text]) => h("option", { value }, text)),
  );
  const box = h(
    "div",
    { class: "clock-fields" },
    h(
      "div",
      { class: "field" },
      h("label", { for: "clock" }, "Clock"),
      kind,
      h("small", { id: "clock-hint", class: "hint" }, "For a session: how long each seat may think."),
    ),
    clockNumber("clock-move", "Seconds a move", 60, 1, "move"),
    clockNumber("clock-bank", "Minutes in each seat's bank", 10, 1, "bank"),
    clockNumber("clock-increment", "Seconds added after each move", 5, 0, "bank"),
    clockNumber("clock-days", "Days a move", 3, 1, "days"),
    h(
      "div",
      { class: "field", "data-clock": "move bank days", hidden: true },
      h("label", { for: "clock-timeout" }, "When time runs out"),
      h("select", { id: "clock-timeout" }, ...TIMEOUTS.map(([value, text]) => h("option", { value }, text))),
    ),
  );
  kind.addEventListener("change", () => {
    for (const field of box.querySelectorAll<HTMLElement>("[data-clock]")) {
      field.hidden = !(field.dataset.clock ?? "").split(" ").includes(kind.value);
    }
  });
  return box;
}

/** The clock the form's fields choose; undefined for none. Throws when a number is not valid. */
function readClock(form: HTMLFormElement): Clock | undefined {
  const value = (id: string): string => (form.querySelector(`#${id}`) as HTMLInputElement | HTMLSelectElement).value;
  const whole = (id: string): number => {
    const input = form.querySelector(`#${id}`) as HTMLInputElement;
    const n = Number(input.value);
    const min = Number(input.min);
    if (input.value.trim() === "" || !Number.isInteger(n) || n < min) {
      throw new Error(`${input.labels?.[0]?.textContent ?? id}: a whole number from ${min}`);
    }
    return n;
  };
  const kind = value("clock");
  if (!kind) return undefined;
  const onTimeout = Number(value("clock-timeout")) as TimeoutAction;
  if (kind === "move") return create(ClockSchema, { perMoveSeconds: whole("clock-move"), onTimeout });
  if (kind === "bank") {
    return create(ClockSchema, { bankSeconds: whole("clock-bank") * 60, incrementSeconds: whole("clock-increment"), onTimeout });
  }
  return create(ClockSchema, { perMoveSeconds: whole("clock-days") * 86400, onTimeout });
}

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
    if (unreachable(err)) throw err; // the page says the server cannot be reached (main.ts)
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

  let shown = 0; // which call of showGame may draw: a game chosen later wins over an earlier answer
  const showGame = async (): Promise<void> => {
    const game = gameSelect.value;
    const mine = ++shown;
    chosen.clear();
    details.replaceChildren(h("p", { class: "status" }, "…"));
    delete details.dataset.game;
    startSession.disabled = startLocal.disabled = true; // until the game's players and options are drawn
    const answer = await api.rules.describeGame({ game });
    // Another game was chosen (or the same again) while this one was asked for: its answer draws,
    // not this one, which would put one game's options under another's name or undo the player's
    // choices made meanwhile.
    if (mine !== shown) return;
    described = answer;
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
        h(
          "small",
          { id: "opponents-hint", class: "hint" },
          "For a session: whoever has a seat's link plays it, the seats wait in the open games for anyone to join, ",
          "or the computer plays every seat but yours.",
        ),
      ),
      ...(options.length ? [h("details", { class: "options" }, h("summary", {}, "Options"), ...options)] : []),
    );
    details.dataset.game = game; // drawn for this game (a test can wait for it)
    startSession.disabled = startLocal.disabled = false;
  };
  gameSelect.addEventListener("change", () => void showGame());

  const begin = (local: boolean) => async (event: Event) => {
    event.preventDefault();
    error.textContent = "";
    const players = Number((form.querySelector("#players") as HTMLSelectElement | null)?.value ?? 0);
    const opponents = ((form.querySelector("#opponents") as HTMLSelectElement | null)?.value ?? "") as Opponents;
    const name = local ? "" : nameInput.value.trim();
    let options: GameOptions | undefined;
    let clock: Clock | undefined;
    try {
      options = buildOptions(gameSelect.value, chosen);
    } catch (err) {
      error.textContent = `An option is not valid: ${(err as Error).message}`;
      return;
    }
    try {
      clock = local ? undefined : readClock(form);
    } catch (err) {
      error.textContent = `The clock is not valid: ${(err as Error).message}`;
      return;
    }
    try {
      await start({ game: gameSelect.value, players, options, local, opponents, clock, name });
    } catch (err) {
      const refusal = refusalOf(err);
      error.textContent = `${refusal.message} (${refusal.reason})`;
    }
  };

  const startSession = h("button", { type: "submit", class: "primary", id: "start-session", onclick: begin(false) }, "Start a session");
  const startLocal = h("button", { type: "button", id: "start-local", onclick: begin(true) }, "Play here (hot seat)");
  const nameInput = h("input", {
    id: "your-name",
    name: "your-name",
    type: "text",
    autocomplete: "nickname",
    spellcheck: false,
    value: rememberedName(),
    "aria-describedby": "your-name-hint",
  });
  form.append(
    h("div", { class: "field" }, h("label", { for: "game" }, "Game"), gameSelect),
    details,
    h(
      "div",
      { class: "field" },
      h("label", { for: "your-name" }, "Your name"),
      nameInput,
      h("small", { id: "your-name-hint", class: "hint" }, "For a session, optional: the other players see it (up to 32 characters)."),
    ),
    clockControls(),
    h(
      "div",
      { class: "actions" },
      startSession,
      startLocal,
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
      h(
        "p",
        { class: "join-link" },
        h("a", { href: "#lobby", id: "open-games-link" }, "Join an open game"),
        ": games whose seats wait for a player.",
      ),
      form,
    ),
  );
  await showGame();
}
