/** The drawing module of each game, by game id; a game without one gets the generic drawing. */
import type { GameState, Move } from "@lawspeaker/client";
import { ui as birka } from "./birka.js";
import { generic } from "./generic.js";
import { ui as paxPenning } from "./pax_penning.js";
import { ui as paxVikingJunior } from "./pax_viking_junior.js";
import { ui as penki } from "./penki.js";
import type { GameUI } from "./types.js";
import { ui as valhalla } from "./valhalla.js";

// Each module is typed for its own state and move; the shell hands it its own game's values only.
const UIS: Record<string, GameUI<never, never>> = {
  valhalla,
  penki,
  pax_penning: paxPenning,
  pax_viking_junior: paxVikingJunior,
  birka,
};

/** The drawing of `game` (the generic one for a game this bundle does not know). */
export function uiFor(game: string): GameUI<unknown, unknown> {
  return (UIS[game] ?? generic) as GameUI<unknown, unknown>;
}

/** Whether this bundle draws `game` (else it is played with the generic drawing). */
export function drawn(game: string): boolean {
  return game in UIS;
}

/** The game-specific part of a state (GameState's oneof value). */
export function stateOf(state: GameState | undefined): unknown {
  return state?.game.value;
}

/** The game-specific part of a move (Move's oneof value). */
export function moveOf(move: Move): unknown {
  return move.game.value;
}
