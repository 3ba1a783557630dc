/**
 * What the page keeps of a session: seat tokens and the host token in this tab's sessionStorage
 * (they never leave the tab, and a reload keeps them), a seat's own token in its link's fragment
 * (which no browser sends), the player's display name in localStorage (to fill it in next time), and
 * the hot-seat game in localStorage (a reload resumes it).
 */

/** A seat's link: the session and the seat's token in the fragment, which no browser sends. */
export function seatLink(session: string, seat: number, token: string): string {
  const fragment = new URLSearchParams({ session, seat: String(seat), token });
  return `${location.origin}/play#${fragment.toString()}`;
}

/** A spectator's link to `session` (no token). */
export function watchLink(session: string): string {
  return `${location.origin}/play#${new URLSearchParams({ session }).toString()}`;
}

/** The fragment of a link made by seatLink or watchLink (for `location.hash`). */
export function fragmentOf(link: string): string {
  return new URL(link).hash;
}

const SEATS = "lawspeaker.seats.";
const HOST = "lawspeaker.host.";
const NAME = "lawspeaker.name";

/** Keeps the seat tokens of a session this page created (by seat; "" where it holds none: a seat
 * the computer plays, an open one, or one a player claimed in the lobby with a token of their own). */
export function rememberSeats(session: string, tokens: string[]): void {
  sessionStorage.setItem(SEATS + session, JSON.stringify(tokens));
}

/** The seat tokens kept for `session` (empty when this tab did not create it). */
export function rememberedSeats(session: string): string[] {
  try {
    const found: unknown = JSON.parse(sessionStorage.getItem(SEATS + session) ?? "[]");
    return Array.isArray(found) ? found.map((t) => (typeof t === "string" ? t : "")) : [];
  } catch {
    return [];
  }
}

/** Keeps the host token of `session` (CreateSession's, shown once). */
export function rememberHost(session: string, token: string): void {
  if (token) sessionStorage.setItem(HOST + session, token);
}

/** The host token kept for `session`, or "" when this tab is not its host. */
export function rememberedHost(session: string): string {
  return sessionStorage.getItem(HOST + session) ?? "";
}

/** Forgets what the tab kept of a deleted session. */
export function forget(session: string): void {
  sessionStorage.removeItem(SEATS + session);
  sessionStorage.removeItem(HOST + session);
}

/** The display name the player gave last (to fill in the next form). */
export function rememberedName(): string {
  try {
    return localStorage.getItem(NAME) ?? "";
  } catch {
    return "";
  }
}

export function rememberName(name: string): void {
  try {
    if (name.trim()) localStorage.setItem(NAME, name.trim());
  } catch {
    // storage refused (a private window's quota): the form is only not filled in next time
  }
}

/**
 * What a rematch of `session` inherits from it in this tab: the host token, and the seat tokens
 * moved one seat on as the server moves the players (old seat i plays seat i + 1, the last the first).
 */
export function rememberRematch(session: string, rematch: string): void {
  const host = rememberedHost(session);
  if (host) rememberHost(rematch, host);
  const tokens = rememberedSeats(session);
  if (tokens.length) rememberSeats(rematch, tokens.map((_, seat) => tokens[(seat - 1 + tokens.length) % tokens.length]));
}

const LOCAL = "lawspeaker.local";

/** A hot-seat game as the browser keeps it: proto3 JSON of its options and states, and its log. */
export interface KeptLocal {
  game: string;
  players: number;
  options: unknown;
  /** Each step's state (null where it was not kept) and log entry (null for the first). */
  steps: { state: unknown; entry: unknown }[];
}

/**
 * Keeps the hot-seat game in localStorage (not sessionStorage: a phone that closes the tab, or
 * the browser, finds the game again). One game at a time: starting another replaces it. False
 * when the browser refused to store it (its quota, a private window).
 */
export function keepLocal(game: KeptLocal): boolean {
  try {
    localStorage.setItem(LOCAL, JSON.stringify(game));
    return true;
  } catch {
    return false;
  }
}

/** The kept hot-seat game, or undefined. */
export function keptLocal(): KeptLocal | undefined {
  try {
    const found = JSON.parse(localStorage.getItem(LOCAL) ?? "null") as Partial<KeptLocal> | null;
    const ok =
      found !== null &&
      typeof found === "object" &&
      typeof found.game === "string" &&
      typeof found.players === "number" &&
      Array.isArray(found.steps);
    return ok ? (found as KeptLocal) : undefined;
  } catch {
    return undefined;
  }
}

/** Forgets the kept hot-seat game (the players left it). */
export function forgetLocal(): void {
  try {
    localStorage.removeItem(LOCAL);
  } catch {
    // nothing kept
  }
}
