// Compiled in CI (clients/openapi-ts/check.sh) against types that openapi-typescript generates from
// clients/openapi.json: the REST contract is usable from TypeScript, and the types are not `any`.
import type { components, paths } from "./gen/openapi.js";

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;
// Each game has its own paths, so a body holds that game's state, move and options and no other.
type NewGameBody = Json<paths["/v1/games/valhalla:new"]["post"]["requestBody"]>;
type NewGameResponse = Json<paths["/v1/games/valhalla:new"]["post"]["responses"]["200"]>;
type LegalMovesBody = Json<paths["/v1/games/valhalla:legalMoves"]["post"]["requestBody"]>;
type SessionApplyMoveBody = Json<paths["/v1/sessions/{session}:applyMove"]["post"]["requestBody"]>;
type Problem = components["schemas"]["Problem"];

const newGame: NewGameBody = { players: 2, seed: "42" };
const cast: SessionApplyMoveBody = { move: { valhalla: { cast: {} } }, etag: "1", requestId: "m1" };

// @ts-expect-error players is an integer, not a string
const wrong: NewGameBody = { players: "two" };
// @ts-expect-error a Valhalla game takes Valhalla options only
const otherGame: NewGameBody = { players: 2, options: { penki: {} } };
// @ts-expect-error a move is one action
const twoActions: SessionApplyMoveBody = { move: { valhalla: { cast: {}, moveShip: { ship: 1, to: 5 } } } };

async function post<B, R>(url: string, body: B): Promise<R> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!r.ok) {
    const problem = (await r.json()) as Problem;
    throw new Error(`${problem.code} ${problem.reason}: ${problem.detail}`);
  }
  return (await r.json()) as R;
}

export async function firstTurn(base: string): Promise<number> {
  const created = await post<NewGameBody, NewGameResponse>(`${base}/v1/games/valhalla:new`, newGame);
  const state: LegalMovesBody["state"] = created.state;
  const legal = await post<LegalMovesBody, { moves?: unknown[] }>(`${base}/v1/games/valhalla:legalMoves`, {
    state,
  });
  return legal.moves?.length ?? 0;
}

export { cast, otherGame, twoActions, wrong };
