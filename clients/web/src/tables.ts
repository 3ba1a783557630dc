/** The two ways to play: one seat of a server session, and a local hot-seat game in the page. */
import { type JsonValue, fromJson, toJson } from "@bufbuild/protobuf";
import {
  type GameEvent,
  type GameOptions,
  GameOptionsSchema,
  type GameState,
  GameStateSchema,
  type LawspeakerClients,
  type Move,
  type ResignAction,
  type Session,
  type SessionMove,
} from "@lawspeaker/client";
import {
  type LogEntry,
  type Refusal,
  type Seats,
  type SessionInfo,
  type Table,
  type View,
  clients,
  refusalOf,
} from "./api.js";
import { forgetLocal, keepLocal, keptLocal } from "./keep.js";

const LOG_PAGE = 500;
const POLL_MS = 2000;
const STREAM_RETRIES = 3;

function entryOf(move: SessionMove): LogEntry {
  const happened = move.seatEvent;
  return {
    number: Number(move.number),
    seat: happened ? happened.seat : move.seat,
    chance: move.chance,
    events: happened ? [happened.summary] : move.events.map((e: GameEvent) => e.text),
    seatEvent: happened?.kind,
    name: happened?.displayName || undefined,
    onTimeout: move.onTimeout,
  };
}

/** The seats of `session`; `skew` is the server's clock minus the page's (ms), as last measured. */
function seatsOf(session: Session, skew: number): Seats {
  return { statuses: session.seats, clock: session.clock, bots: session.bots.map((b) => b.seat), skew };
}

function infoOf(session: Session): SessionInfo {
  return {
    id: session.session,
    waitingForPlayers: session.waitingForPlayers,
    rematch: session.rematch,
    rematchRequested: session.rematchRequested,
    hasHost: session.hasHost,
  };
}

/** One seat (or a spectator, without a token) of a server session. */
export class SessionTable implements Table {
  readonly kind = "session";
  private readonly api: LawspeakerClients;
  private etag = "";
  private log: LogEntry[] = [];
  private logEtag = "";
  /** The server's clock minus the page's (ms): measured when a watch delivers a version as it is
   * written (its updateTime is then the server's "now"); 0 until then. */
  private skew = 0;
  private measured = false; // whether skew is a reading yet

  constructor(
    readonly game: string,
    readonly session: string,
    /** The seat's token; undefined for a spectator. */
    readonly token: string | undefined,
  ) {
    this.api = clients(token);
  }

  /** The view now; `known` is the session as an answer just gave it (one call fewer). */
  async load(events: string[] = [], known?: Session): Promise<View> {
    let seats = known && seatsOf(known, this.skew);
    const [session, legal] = await Promise.all([
      known ??
        this.api.sessions.getSession({ session: this.session }).then((got) => {
          seats = seatsOf(got.session as Session, this.skew);
          return got.session as Session;
        }),
      this.api.sessions.sessionLegalMoves({ session: this.session }),
    ]);
    if (legal.etag !== session.etag) return this.load(events); // moved on between the two reads
    this.etag = legal.etag;
    await this.readLog(legal.etag);
    const last = this.log[this.log.length - 1];
    const gameOver = legal.gameOver || session.gameOver;
    return {
      state: session.state as GameState,
      players: session.players,
      seat: session.seat,
      toAct: legal.toAct,
      moves: gameOver ? [] : legal.moves,
      chance: legal.chance,
      gameOver,
      outcome: legal.outcome ?? session.outcome,
      log: this.log,
      canUndo:
        last !== undefined &&
        !last.chance &&
        !last.seatEvent &&
        !last.onTimeout &&
        last.seat !== undefined &&
        last.seat === session.seat,
      events,
      seats,
      result: session.result,
      session: infoOf(session),
    };
  }

  /** Reads the log again when the version changed: a move, an undo, or a seat event (a resignation,
   * a forfeit), which moveCount does not count. */
  private async readLog(etag: string): Promise<void> {
    if (etag === this.logEtag) return;
    const read: LogEntry[] = [];
    let pageToken = "";
    do {
      const page = await this.api.sessions.listSessionMoves({ session: this.session, pageSize: LOG_PAGE, pageToken });
      read.push(...page.moves.map(entryOf));
      pageToken = page.nextPageToken;
    } while (pageToken);
    this.log = read;
    this.logEtag = etag;
  }

  async play(move: Move): Promise<View> {
    const answer = await this.api.sessions.sessionApplyMove({
      session: this.session,
      move,
      etag: this.etag,
      requestId: crypto.randomUUID(),
    });
    return this.load(
      answer.events.map((e) => e.text),
      answer.session,
    );
  }

  async check(move: Move): Promise<Refusal | undefined> {
    const answer = await this.api.sessions.sessionValidateMove({ session: this.session, move });
    if (answer.valid) return undefined;
    const v = answer.violation;
    return { message: v?.message ?? "", reason: v?.reason ?? "", rule: v?.rule };
  }

  async undo(): Promise<View> {
    const answer = await this.api.sessions.undoMove({ session: this.session, etag: this.etag });
    return this.load([], answer.session);
  }

  /** Without an etag: a resignation holds on whatever version is current when it arrives. */
  async resign(action: ResignAction): Promise<View> {
    const answer = await this.api.sessions.resignSeat({ session: this.session, action });
    return this.load([], answer.session);
  }

  /** Asks for a rematch of the finished game as this seat (made once every player has asked). */
  async rematch(): Promise<View> {
    const answer = await this.api.sessions.rematch({ session: this.session });
    return this.load([], answer.session);
  }

  follow(
    changed: (view: View) => void,
    signal: AbortSignal,
    mode: (how: string) => void,
    seated: (seats: Seats) => void = () => undefined,
  ): void {
    void this.stream(changed, signal, mode, seated);
  }

  /** WatchSession over Connect streaming; after repeated failures (a proxy that buffers, a
   * browser without streaming fetch), polling GetSession instead. */
  private async stream(
    changed: (view: View) => void,
    signal: AbortSignal,
    mode: (how: string) => void,
    seated: (seats: Seats) => void,
  ): Promise<void> {
    let failures = 0;
    while (!signal.aborted && failures < STREAM_RETRIES) {
      try {
        let first = true; // the first update is the version as it stands, maybe written long ago
        for await (const update of this.api.sessions.watchSession({ session: this.session, presence: true }, { signal })) {
          failures = 0;
          const fresh = !first;
          first = false;
          mode("live");
          if (update.deleted) {
            mode("deleted");
            return;
          }
          if (!update.session) continue;
          if (update.session.etag !== this.etag) {
            const written = Date.parse(update.session.updateTime);
            if (fresh && !Number.isNaN(written)) {
              // each reading is the skew less the delivery's delay: the largest is the closest
              const reading = written - Date.now();
              this.skew = this.measured ? Math.max(this.skew, reading) : reading;
              this.measured = true;
            }
            changed(await this.load([], update.session));
          } else seated(seatsOf(update.session, this.skew)); // the same version: someone came or went
        }
      } catch (err) {
        if (signal.aborted) return;
        const ended = endOf(err);
        if (ended) return mode(ended);
        failures += 1;
        console.warn("watch failed, retrying", refusalOf(err).message);
      }
      await sleep(500 * failures, signal);
    }
    if (signal.aborted) return;
    mode("polling");
    while (!signal.aborted) {
      await sleep(POLL_MS, signal);
      if (signal.aborted) return;
      try {
        const got = await this.api.sessions.getSession({ session: this.session });
        if (!got.session) continue;
        if (got.session.etag !== this.etag) changed(await this.load());
        else seated(seatsOf(got.session, this.skew));
      } catch (err) {
        const ended = endOf(err);
        if (ended) return mode(ended);
        console.warn("poll failed", refusalOf(err).message);
      }
    }
  }
}

/**
 * How following a session ends for good, by the refusal `err`: "deleted" (the session is gone) or
 * "revoked" (this page's seat token no longer works: the host gave the seat a new one, handed it to
 * the computer or opened it); undefined for a failure worth trying again.
 */
function endOf(err: unknown): "deleted" | "revoked" | undefined {
  const reason = refusalOf(err).reason;
  if (reason === "SESSION_NOT_FOUND") return "deleted";
  if (reason === "SEAT_TOKEN_INVALID") return "revoked";
  return undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

interface Step {
  /** The state after the step; undefined for an early step whose state a restored game did not keep. */
  state: GameState | undefined;
  entry: LogEntry | undefined;
}

/** How many of a hot-seat game's last states the browser keeps (how far undo reaches after a reload). */
const KEPT_STATES = 64;

/**
 * A hot-seat game kept in the page, played through the stateless RulesService only (LegalMoves,
 * ApplyMove, ValidateMove). The page holds the whole state, its RNG included: fine for players
 * sharing one screen, and the reason a game between different devices is a server session.
 */
export class LocalTable implements Table {
  readonly kind = "local";
  private readonly api = clients();
  private steps: Step[] = [];
  /** Who acts in the last state shown (its LegalMoves answer), so a move is logged by who made it. */
  private acting: { seat: number | undefined; chance: boolean } = { seat: undefined, chance: false };

  constructor(
    readonly game: string,
    readonly players: number,
    private readonly options: GameOptions | undefined,
  ) {}

  /**
   * The hot-seat game this browser kept (keep.ts: localStorage), as it was after its last move, or
   * undefined when there is none or it cannot be read back (then it is forgotten).
   */
  static restore(): LocalTable | undefined {
    const kept = keptLocal();
    if (!kept) return undefined;
    try {
      const options = kept.options ? fromJson(GameOptionsSchema, kept.options as JsonValue) : undefined;
      const table = new LocalTable(kept.game, kept.players, options);
      table.steps = kept.steps.map((s) => ({
        state: s.state === null ? undefined : fromJson(GameStateSchema, s.state as JsonValue),
        entry: s.entry as LogEntry | undefined,
      }));
      if (table.steps.at(-1)?.state) return table;
    } catch (err) {
      console.warn("the kept hot-seat game cannot be read back", err);
    }
    forgetLocal();
    return undefined;
  }

  /** Keeps the game in the browser (after each step): a reload, or a phone closing the tab, resumes it. */
  private keep(): void {
    const first = this.steps.length - KEPT_STATES;
    keepLocal({
      game: this.game,
      players: this.players,
      options: this.options ? toJson(GameOptionsSchema, this.options) : null,
      // every log entry, and the states of the last KEPT_STATES steps (how far undo reaches after a
      // reload): a long game's states would outgrow the browser's storage
      steps: this.steps.map((s, i) => ({
        state: i >= first && s.state ? toJson(GameStateSchema, s.state) : null,
        entry: s.entry ?? null,
      })),
    });
  }

  async load(events: string[] = []): Promise<View> {
    if (this.steps.length === 0) {
      const created = await this.api.rules.newGame({ game: this.game, players: this.players, options: this.options });
      this.steps.push({ state: created.state as GameState, entry: undefined });
      this.keep();
    }
    const state = this.now;
    const legal = await this.api.rules.legalMoves({ game: this.game, state });
    this.acting = { seat: legal.chance ? undefined : legal.toAct[0], chance: legal.chance !== undefined };
    const log = this.steps.flatMap((s) => (s.entry ? [s.entry] : []));
    return {
      state,
      players: this.players,
      seat: legal.toAct[0],
      toAct: legal.toAct,
      moves: legal.moves,
      chance: legal.chance,
      gameOver: legal.gameOver,
      outcome: legal.outcome,
      log,
      canUndo: this.canUndo(),
      events,
    };
  }

  /** The state now (the last step's, which is always kept). */
  private get now(): GameState {
    const state = this.steps[this.steps.length - 1]?.state;
    if (!state) throw new Error("the hot-seat game has no state");
    return state;
  }

  /** A step may be taken back when it was a player's (not a draw) and the state before it is kept. */
  private canUndo(): boolean {
    const last = this.steps[this.steps.length - 1]?.entry;
    return last !== undefined && !last.chance && this.steps[this.steps.length - 2]?.state !== undefined;
  }

  async play(move: Move): Promise<View> {
    const state = this.now;
    const answer = await this.api.rules.applyMove({ game: this.game, state, move });
    const events = answer.events.map((e) => e.text);
    this.steps.push({
      state: answer.state as GameState,
      entry: { number: this.steps.length, ...this.acting, events },
    });
    this.keep();
    return this.load(events);
  }

  async check(move: Move): Promise<Refusal | undefined> {
    const state = this.now;
    const answer = await this.api.rules.validateMove({ game: this.game, state, move });
    if (answer.valid) return undefined;
    const v = answer.violation;
    return { message: v?.message ?? "", reason: v?.reason ?? "", rule: v?.rule };
  }

  async undo(): Promise<View> {
    if (this.canUndo()) {
      this.steps.pop();
      this.keep();
    }
    return this.load();
  }

  follow(): void {
    // one page holds every seat: nobody else moves
  }
}
