/** The two ways to play: one seat of a server session, and a local hot-seat game in the page. */
import {
  type GameEvent,
  type GameOptions,
  type GameState,
  type LawspeakerClients,
  type Move,
  type Session,
  type SessionMove,
} from "@lawspeaker/client";
import { type LogEntry, type Refusal, type Table, type View, clients, refusalOf } from "./api.js";

const LOG_PAGE = 500;
const POLL_MS = 2000;
const STREAM_RETRIES = 3;

function entryOf(move: SessionMove): LogEntry {
  return {
    number: Number(move.number),
    seat: move.seat,
    chance: move.chance,
    events: move.events.map((e: GameEvent) => e.text),
  };
}

/** One seat (or a spectator, without a token) of a server session. */
export class SessionTable implements Table {
  readonly kind = "session";
  private readonly api: LawspeakerClients;
  private etag = "";
  private log: LogEntry[] = [];

  constructor(
    readonly game: string,
    readonly session: string,
    token: string | undefined,
  ) {
    this.api = clients(token);
  }

  /** The view now; `known` is the session as an answer just gave it (one call fewer). */
  async load(events: string[] = [], known?: Session): Promise<View> {
    const [session, legal] = await Promise.all([
      known ?? this.api.sessions.getSession({ session: this.session }).then((got) => got.session as Session),
      this.api.sessions.sessionLegalMoves({ session: this.session }),
    ]);
    if (legal.etag !== session.etag) return this.load(events); // moved on between the two reads
    this.etag = legal.etag;
    await this.readLog(Number(session.moveCount));
    const last = this.log[this.log.length - 1];
    return {
      state: session.state as GameState,
      players: session.players,
      seat: session.seat,
      toAct: legal.toAct,
      moves: legal.gameOver ? [] : legal.moves,
      chance: legal.chance,
      gameOver: legal.gameOver,
      outcome: legal.outcome,
      log: this.log,
      canUndo: last !== undefined && !last.chance && last.seat !== undefined && last.seat === session.seat,
      events,
    };
  }

  /** Reads the log entries the page does not have yet (all of them after an undo shortened it). */
  private async readLog(count: number): Promise<void> {
    if (count < this.log.length) this.log = [];
    if (count === this.log.length) return;
    const read: LogEntry[] = [];
    let pageToken = "";
    do {
      const page = await this.api.sessions.listSessionMoves({ session: this.session, pageSize: LOG_PAGE, pageToken });
      read.push(...page.moves.map(entryOf));
      pageToken = page.nextPageToken;
    } while (pageToken);
    this.log = read;
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

  follow(changed: (view: View) => void, signal: AbortSignal, mode: (how: string) => void): void {
    void this.stream(changed, signal, mode);
  }

  /** WatchSession over Connect streaming; after repeated failures (a proxy that buffers, a
   * browser without streaming fetch), polling GetSession instead. */
  private async stream(changed: (view: View) => void, signal: AbortSignal, mode: (how: string) => void): Promise<void> {
    let failures = 0;
    while (!signal.aborted && failures < STREAM_RETRIES) {
      try {
        for await (const update of this.api.sessions.watchSession({ session: this.session }, { signal })) {
          failures = 0;
          mode("live");
          if (update.deleted) {
            mode("deleted");
            return;
          }
          if (update.session && update.session.etag !== this.etag) changed(await this.load([], update.session));
        }
      } catch (err) {
        if (signal.aborted) return;
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
        if (got.session && got.session.etag !== this.etag) changed(await this.load());
      } catch (err) {
        console.warn("poll failed", refusalOf(err).message);
      }
    }
  }
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
  state: GameState;
  entry: LogEntry | undefined;
}

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

  async load(events: string[] = []): Promise<View> {
    if (this.steps.length === 0) {
      const created = await this.api.rules.newGame({ game: this.game, players: this.players, options: this.options });
      this.steps.push({ state: created.state as GameState, entry: undefined });
    }
    const state = this.steps[this.steps.length - 1].state;
    const legal = await this.api.rules.legalMoves({ game: this.game, state });
    this.acting = { seat: legal.chance ? undefined : legal.toAct[0], chance: legal.chance !== undefined };
    const log = this.steps.flatMap((s) => (s.entry ? [s.entry] : []));
    const last = log[log.length - 1];
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
      canUndo: last !== undefined && !last.chance,
      events,
    };
  }

  async play(move: Move): Promise<View> {
    const state = this.steps[this.steps.length - 1].state;
    const answer = await this.api.rules.applyMove({ game: this.game, state, move });
    const events = answer.events.map((e) => e.text);
    this.steps.push({
      state: answer.state as GameState,
      entry: { number: this.steps.length, ...this.acting, events },
    });
    return this.load(events);
  }

  async check(move: Move): Promise<Refusal | undefined> {
    const state = this.steps[this.steps.length - 1].state;
    const answer = await this.api.rules.validateMove({ game: this.game, state, move });
    if (answer.valid) return undefined;
    const v = answer.violation;
    return { message: v?.message ?? "", reason: v?.reason ?? "", rule: v?.rule };
  }

  async undo(): Promise<View> {
    if (this.steps.length > 1) this.steps.pop();
    return this.load();
  }

  follow(): void {
    // one page holds every seat: nobody else moves
  }
}
