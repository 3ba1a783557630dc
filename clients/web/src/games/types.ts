/**
 * What a game's drawing module gives the frontend. The shell (main.ts, play.ts) knows no game: it
 * asks the module of the game being played to draw the board and panel from DescribeGame's data
 * and the state, to name each legal move in words, and to say which drawn elements each legal move
 * is picked by. Moves are never built here: the player picks one of the listed legal moves, which
 * the server (or, in the local mode, the stateless API) sends back as it came.
 */
import type { JsonObject } from "@bufbuild/protobuf";

/** Everything a drawing needs, for one game's state type `S` and move type `M`. */
export interface BoardContext<S, M> {
  /** DescribeGame's `data`: the board, tile and card data as the engine uses it. */
  data: JsonObject;
  /** The game-specific state (GameState's oneof value), as the viewing seat may see it. */
  state: S;
  /** The number of players. */
  players: number;
  /**
   * The seat whose private view this is: a session's own seat, or, in the local hot-seat mode,
   * the seat to act. Undefined for a spectator. Draw private things (a Pax Penning House) for this
   * seat only; the state has other seats' private parts hidden already in a session.
   */
  seat: number | undefined;
  /** The seats (0-based) who may act now. */
  toAct: number[];
  /** The legal moves of the viewing seat now (game-specific move messages); empty when not to act. */
  moves: M[];
  /** The seat names the shell shows ("Light", "Dark", "Player 3"...), from `seatNames`. */
  seatNames: string[];
}

/** A game's drawing module. */
export interface GameUI<S, M> {
  /** The names of the seats, e.g. ["Light", "Dark"] (the shell uses them in the log and status). */
  seatNames(players: number, data: JsonObject): string[];
  /**
   * The board as one `<svg>` (use `svg()` from ../dom.js, with a viewBox, no fixed size: the shell
   * scales it to the screen). Give every element a legal move can be picked by the attribute
   * `data-target="<key>"`, where key is one of the keys `targets` returns for that move. Put
   * a `<title>` child in each target (the shell also adds an aria-label from the moves).
   */
  board(ctx: BoardContext<S, M>): SVGSVGElement;
  /**
   * The keys of the board elements a move is picked by, most specific first (e.g. the space a
   * ship moves to, then the ship). Empty: the move is only in the move list (e.g. "pass").
   * Tapping a target offers every legal move that names it; the shell plays the move at once when
   * only one does.
   */
  targets(move: M, ctx: BoardContext<S, M>): string[];
  /**
   * Optional: the move a player most likely means by tapping the board element `key` when no
   * legal move names it (Valhalla: an own ship, moved by the sticks' score), or undefined. The
   * shell asks the server to validate it and shows the server's refusal, so that the page says
   * why that piece cannot move in the rules' own words. Never played: only checked.
   */
  attempt?(key: string, ctx: BoardContext<S, M>): object | undefined;
  /** The move in words a player understands, e.g. "Light ship 3: 12 → 15" or "Pass". */
  describe(move: M, ctx: BoardContext<S, M>): string;
  /**
   * Everything else a player needs beside the board: scores, resources, hands, the dice or sticks
   * last thrown, the private view of `ctx.seat`. Plain HTML (`h()` from ../dom.js).
   */
  panel(ctx: BoardContext<S, M>): HTMLElement;
}
