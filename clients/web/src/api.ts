/** The service, from the page: the Connect client on the page's own origin. */
import {
  type ChanceEvent,
  ConnectError,
  type GameOutcome,
  type GameState,
  type LawspeakerClients,
  type Move,
  createLawspeakerClients,
  errorInfo,
} from "@lawspeaker/client";

/** Clients of both services, acting for the seat of `token` when given. */
export function clients(token?: string): LawspeakerClients {
  return createLawspeakerClients(location.origin, token ? { token } : {});
}

/** One entry of the move log, as the page shows it. */
export interface LogEntry {
  number: number;
  seat: number | undefined;
  chance: boolean;
  events: string[];
}

/** What the page shows of a game now, in a session or in the local mode alike. */
export interface View {
  state: GameState;
  players: number;
  /** The viewing seat: the session's own seat, or in the local mode the seat to act. */
  seat: number | undefined;
  toAct: number[];
  /** The viewing seat's legal moves now (empty when it is not to act or the game is over). */
  moves: Move[];
  chance: ChanceEvent | undefined;
  gameOver: boolean;
  outcome: GameOutcome | undefined;
  log: LogEntry[];
  /** Whether the viewing seat may take its last move back now. */
  canUndo: boolean;
  /** Events of the move just made here (shown until the next move). */
  events: string[];
}

/** A refusal in words: the sentence the server wrote and the reason code (the rule). */
export interface Refusal {
  message: string;
  reason: string;
  rule?: string;
}

/** The refusal an error carries (a Lawspeaker error's sentence, or what went wrong on the way). */
export function refusalOf(err: unknown): Refusal {
  const e = ConnectError.from(err);
  const info = errorInfo(e);
  return { message: e.rawMessage || e.message, reason: info?.reason ?? String(e.code) };
}

/** A game being played: a server session (one seat of it) or a local hot-seat game. */
export interface Table {
  readonly game: string;
  readonly kind: "session" | "local";
  /** The view now, read afresh. */
  load(): Promise<View>;
  /** Plays a move; rejects with the server's error when it is refused. */
  play(move: Move): Promise<View>;
  /** Checks a move without playing it: undefined when legal, else why not. */
  check(move: Move): Promise<Refusal | undefined>;
  /** Takes the viewing seat's last move back. */
  undo(): Promise<View>;
  /**
   * Calls `changed` with the new view whenever someone else moves, until `signal` aborts. Says how
   * it follows the game ("live" over a stream, or "polling").
   */
  follow(changed: (view: View) => void, signal: AbortSignal, mode: (how: string) => void): void;
}
