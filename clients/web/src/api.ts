/** The service, from the page: the Connect client on the page's own origin. */
import type { JsonObject } from "@bufbuild/protobuf";
import {
  type ChanceEvent,
  type Clock,
  ConnectError,
  type GameInfo,
  type GameOutcome,
  type GameState,
  type LawspeakerClients,
  type Move,
  type ResignAction,
  type SeatEventKind,
  type SeatStatus,
  type SessionResult,
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
  /** Set when the entry is not a move but what happened to the seat (a resignation, a forfeit, a
   * claim in the lobby, the host's change). */
  seatEvent?: SeatEventKind;
  /** The seat's player's display name when the seat event happened (the claimant's, for a claim). */
  name?: string;
  /** True when the computer made the move because the seat's time ran out. */
  onTimeout?: boolean;
}

/** A session's seats as a view or a presence update gives them: clocks, who is here, who left. */
export interface Seats {
  statuses: SeatStatus[];
  clock: Clock | undefined;
  /** The seats the computer plays. */
  bots: number[];
  /** The server's clock minus the page's (ms) when the session was read: corrects the countdowns. */
  skew: number;
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
  /** A session's seats (undefined in the local mode). */
  seats?: Seats;
  /** How the session ended, once it has (by the rules, a resignation or a timeout). */
  result?: SessionResult;
  /** Who plays and what comes next, for a server session (undefined in the local mode). */
  session?: SessionInfo;
}

/** A server session's players: the lobby, the host, the rematch. */
export interface SessionInfo {
  /** The session id. */
  id: string;
  /** True while a seat has no player (open in the lobby, or reserved by the host): nothing is played. */
  waitingForPlayers: boolean;
  /** The session a rematch of this one created; "" until then. */
  rematch: string;
  /** The seats whose players asked for a rematch, while it waits for the others. */
  rematchRequested: number[];
  /** True when the session has a host (whoever holds its host token). */
  hasHost: boolean;
}

/** A refusal in words: the sentence the server wrote and the reason code (the rule). */
export interface Refusal {
  message: string;
  reason: string;
  rule?: string;
  /** The error's metadata (ErrorInfo's), e.g. NOT_YOUR_TURN's `seat` and `toAct`. */
  metadata?: Record<string, string>;
}

/** The refusal an error carries (a Lawspeaker error's sentence, or what went wrong on the way). */
export function refusalOf(err: unknown): Refusal {
  const e = ConnectError.from(err);
  const info = errorInfo(e);
  return { message: e.rawMessage || e.message, reason: info?.reason ?? String(e.code), metadata: info?.metadata };
}

/** Whether `err` is the network's (the server cannot be reached), not an answer of the server:
 * the page then says so (main.ts) rather than show a refusal. */
export function unreachable(err: unknown): boolean {
  if (!navigator.onLine) return true;
  const text = err instanceof Error ? err.message : String(err);
  return /Failed to fetch|NetworkError|Load failed|network error/i.test(text); // Chromium, Firefox, Safari
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
  /** Gives the viewing seat up: it loses (FORFEIT) or the computer plays on for it (BOT). Sessions only. */
  resign?(action: ResignAction): Promise<View>;
  /**
   * Calls `changed` with the new view whenever someone else moves, until `signal` aborts. Says how
   * it follows the game ("live" over a stream, or "polling"), and why it stopped ("deleted": the
   * session is gone; "revoked": the seat's token no longer works). `seated` gets the seats again
   * when only they changed (someone came or went), on the same version.
   */
  follow(
    changed: (view: View) => void,
    signal: AbortSignal,
    mode: (how: string) => void,
    seated?: (seats: Seats) => void,
  ): void;
}

const described = new Map<string, Promise<{ info: GameInfo; data: JsonObject }>>();

/** DescribeGame's info and data of `game`, asked once per page. */
export function describeGame(game: string): Promise<{ info: GameInfo; data: JsonObject }> {
  let found = described.get(game);
  if (!found) {
    found = clients()
      .rules.describeGame({ game })
      .then((d) => ({ info: d.info as GameInfo, data: (d.data ?? {}) as JsonObject }));
    found.catch(() => described.delete(game)); // a failure is asked again next time
    described.set(game, found);
  }
  return found;
}
