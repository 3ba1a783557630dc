// Plays Lawspeaker through openapi-fetch over the types openapi-typescript generates from
// clients/openapi.json (gen/openapi-fetch/openapi.ts), against a real `lawspeaker serve`: compiled with
// `tsc --strict` and no casts (check.sh), then run as `node build/play_openapi_fetch.js
// BASE_URL API_KEY` (the server requires the key for every call but the session ones, which take a
// seat's token). A whole game of Valhalla and a few moves of every other game over the stateless routes,
// a refusal read from the typed problem, a session (create, legal moves with a seat's token, a
// move with the etag, a stale etag refused), and the lobby (a session with an open seat found in
// ListSessions, claimed, a second claim refused, the seat's token reissued by the host, the host
// deleting it). It exits non-zero on any surprise.
import createClient from "openapi-fetch";
import type { components, paths } from "./gen/openapi-fetch/openapi.js";

type Schemas = components["schemas"];
type Client = ReturnType<typeof createClient<paths>>;
type Problem = Schemas["Problem"];

// The types say what each game's operations take: these must not compile.
// @ts-expect-error players is an integer, not a string
const wrongPlayers: Schemas["NewGameRequestValhalla"] = { players: "two" };
// @ts-expect-error a Valhalla game takes Valhalla options only
const otherGame: Schemas["NewGameRequestValhalla"] = { players: 2, options: { penki: {} } };
// @ts-expect-error a 64-bit integer is a decimal string in JSON
const numberSeed: Schemas["NewGameRequestValhalla"] = { players: 2, seed: 42 };
// @ts-expect-error a game id is one the service plays
const unknownGame: Schemas["CreateSessionRequest"] = { game: "chess", players: 2 };
export { numberSeed, otherGame, unknownGame, wrongPlayers };

type OtherGame = Exclude<Schemas["GameId"], "valhalla">;
const OTHER_GAMES: readonly OtherGame[] = ["penki", "pax_penning", "pax_viking_junior", "birka"];
const MAX_PLIES = 3000;

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`check failed: ${what}`);
}

/** The answer, or a failure naming the problem's reason. */
function answer<T>(result: { data?: T; error?: Problem; response: Response }): T {
  if (result.error !== undefined) {
    throw new Error(`${result.response.status} ${result.error.reason}: ${result.error.detail}`);
  }
  check(result.data !== undefined, `an answer to ${result.response.url}`);
  return result.data;
}

/** A seeded choice, so that a run plays the same games every time. */
function chooser(seed: number): <T>(items: readonly T[]) => T {
  let s = seed >>> 0;
  return <T,>(items: readonly T[]): T => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const item = items[s % items.length];
    check(item !== undefined, "a choice among no items");
    return item;
  };
}

async function playValhalla(client: Client, pick: ReturnType<typeof chooser>): Promise<number> {
  let { state } = answer(await client.POST("/v1/games/valhalla:new", { body: { players: 2, seed: "42" } }));
  for (let ply = 0; ply < MAX_PLIES; ply++) {
    const legal = answer(await client.POST("/v1/games/valhalla:legalMoves", { body: { state } }));
    if (legal.gameOver === true) {
      check(legal.outcome !== undefined, "a finished game has an outcome");
      return ply;
    }
    check(legal.moves !== undefined && legal.moves.length > 0, "a game that is not over has legal moves");
    const move = pick(legal.moves);
    const checked = answer(await client.POST("/v1/games/valhalla:validateMove", { body: { state, move } }));
    check(checked.valid === true, "a legal move validates");
    ({ state } = answer(await client.POST("/v1/games/valhalla:applyMove", { body: { state, move } })));
  }
  throw new Error(`Valhalla did not end in ${MAX_PLIES} moves`);
}

/** A few moves of a game over its own paths, whose types are that game's. */
async function playAFew(client: Client, game: OtherGame, pick: ReturnType<typeof chooser>): Promise<void> {
  const described = answer(await client.GET("/v1/games/{game}", { params: { path: { game } } })).info;
  check(described.id === game, `DescribeGame ${game}`);
  const body = { players: described.minPlayers, seed: "7" };
  // Each game has its own paths: a literal path per game keeps every body and answer typed.
  switch (game) {
    case "penki": {
      let { state } = answer(await client.POST("/v1/games/penki:new", { body }));
      for (let i = 0; i < 6; i++) {
        const { moves } = answer(await client.POST("/v1/games/penki:legalMoves", { body: { state } }));
        check(moves !== undefined && moves.length > 0, "penki has legal moves");
        ({ state } = answer(await client.POST("/v1/games/penki:applyMove", { body: { state, move: pick(moves) } })));
      }
      check(state.rulesVersion === described.rulesVersion, "penki's rules version");
      return;
    }
    case "pax_penning": {
      let { state } = answer(await client.POST("/v1/games/pax_penning:new", { body }));
      for (let i = 0; i < 6; i++) {
        const { moves } = answer(await client.POST("/v1/games/pax_penning:legalMoves", { body: { state } }));
        check(moves !== undefined && moves.length > 0, "pax_penning has legal moves");
        const move = pick(moves);
        ({ state } = answer(await client.POST("/v1/games/pax_penning:applyMove", { body: { state, move } })));
      }
      check(state.rulesVersion === described.rulesVersion, "pax_penning's rules version");
      return;
    }
    case "pax_viking_junior": {
      let { state } = answer(await client.POST("/v1/games/pax_viking_junior:new", { body }));
      for (let i = 0; i < 6; i++) {
        const legal = answer(await client.POST("/v1/games/pax_viking_junior:legalMoves", { body: { state } }));
        check(legal.moves !== undefined && legal.moves.length > 0, "pax_viking_junior has legal moves");
        const move = pick(legal.moves);
        ({ state } = answer(await client.POST("/v1/games/pax_viking_junior:applyMove", { body: { state, move } })));
      }
      check(state.rulesVersion === described.rulesVersion, "pax_viking_junior's rules version");
      return;
    }
    case "birka": {
      let { state } = answer(await client.POST("/v1/games/birka:new", { body }));
      for (let i = 0; i < 6; i++) {
        const { moves } = answer(await client.POST("/v1/games/birka:legalMoves", { body: { state } }));
        check(moves !== undefined && moves.length > 0, "birka has legal moves");
        ({ state } = answer(await client.POST("/v1/games/birka:applyMove", { body: { state, move: pick(moves) } })));
      }
      check(state.rulesVersion === described.rulesVersion, "birka's rules version");
      return;
    }
  }
}

/** A ship moved before the sticks are cast: 409 with the rule's reason, read from the typed Problem. */
async function refusal(client: Client): Promise<void> {
  const { state } = answer(await client.POST("/v1/games/valhalla:new", { body: { players: 2, seed: "1" } }));
  const move = { valhalla: { moveShip: { ship: 1, to: 5 } } };
  const { error, response } = await client.POST("/v1/games/valhalla:applyMove", { body: { state, move } });
  check(error !== undefined && response.status === 409, "an early ship move is refused with 409");
  const reason: Schemas["Reason"] = error.reason;
  check(reason === "CAST_FIRST", `the reason is CAST_FIRST, not ${reason}`);
  check(error.fieldViolations?.[0]?.field.startsWith("move.valhalla") === true, "the move is the field at fault");
}

/** A session: create it, list a seat's legal moves with its token, move with the etag, and see a move
 * on a stale etag refused. */
async function session(base: string, keyed: Client, pick: ReturnType<typeof chooser>): Promise<void> {
  const created = answer(await keyed.POST("/v1/sessions", { body: { game: "valhalla", players: 2, seed: "5" } }));
  const sid = created.session.session;
  // seatTokens is left out when no person plays a seat (every seat a bot's or open)
  const tokens = new Map((created.seatTokens ?? []).map((t) => [t.seat ?? 0, t.token]));
  const token = tokens.get(created.session.toAct?.[0] ?? 0);
  check(tokens.size === 2 && token !== undefined, "a token per seat");
  check(created.hostToken !== "" && created.session.hasHost === true, "a host token");
  const seat = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${token}` } });
  const path = { params: { path: { session: sid } } };
  const legal = answer(await seat.POST("/v1/sessions/{session}:legalMoves", path));
  check(legal.moves !== undefined && legal.moves.length > 0, "the seat on turn has legal moves");
  const move = pick(legal.moves);
  const etag = legal.etag;
  const applied = answer(
    await seat.POST("/v1/sessions/{session}:applyMove", { ...path, body: { move, etag, requestId: "play-1" } }),
  );
  check(applied.session.etag !== etag && applied.session.moveCount === "1", "the move made a new version");
  const stale = await seat.POST("/v1/sessions/{session}:applyMove", {
    ...path,
    body: { move, etag, requestId: "play-2" },
  });
  check(stale.error !== undefined && stale.response.status === 409, "a stale etag is refused with 409");
  check(stale.error.reason === "SESSION_ETAG_MISMATCH", `the reason is SESSION_ETAG_MISMATCH, not ${stale.error.reason}`);
  check(stale.error.metadata?.["etag"] === applied.session.etag, "the problem names the current etag");
  answer(await seat.DELETE("/v1/sessions/{session}", path));
}

/** The lobby: a Valhalla session with seat 1 open, found in ListSessions (page by page), claimed
 * under a display name; a second claim refused (SEAT_NOT_OPEN); the host reissues seat 1's token,
 * and the old one is refused; a seat may not delete the session, the host does. */
async function lobby(base: string, keyed: Client): Promise<void> {
  const created = answer(
    await keyed.POST("/v1/sessions", {
      body: { game: "valhalla", players: 2, openSeats: [1], displayNames: ["Astrid"] },
    }),
  );
  const sid = created.session.session;
  const host = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${created.hostToken}` } });
  check(created.seatTokens?.length === 1 && (created.seatTokens[0]?.seat ?? 0) === 0, "a token for seat 0 only");
  check(created.session.waitingForPlayers === true, "the session waits for its open seat");
  check(created.session.seats?.[1]?.role === "SEAT_ROLE_OPEN", "seat 1 is open");

  let found: Schemas["Session"] | undefined;
  let pageToken: string | undefined;
  for (let page = 0; found === undefined && page < 100; page++) {
    const query = { game: "valhalla", players: 2, pageSize: 10, pageToken };
    const listed = answer(await keyed.GET("/v1/sessions", { params: { query } }));
    for (const s of listed.sessions ?? []) {
      check(s.game === "valhalla" && s.players === 2 && s.waitingForPlayers === true, "the lobby's filters");
    }
    found = listed.sessions?.find((s) => s.session === sid);
    pageToken = listed.nextPageToken;
    if (!pageToken) break;
  }
  check(found !== undefined, "the session is in the lobby");
  check(found.seats?.[0]?.displayName === "Astrid", "the lobby names the host's player");

  const path = { params: { path: { session: sid } } };
  const claimed = answer(
    await keyed.POST("/v1/sessions/{session}:claimSeat", { ...path, body: { displayName: "Bjorn", seat: 1 } }),
  );
  check(claimed.seatToken.seat === 1, "seat 1 claimed");
  const oldToken = claimed.seatToken.token;
  const seat1 = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${oldToken}` } });
  const view = answer(await seat1.GET("/v1/sessions/{session}", path)).session;
  const names = (view.seats ?? []).map((s) => s.displayName ?? "");
  check(view.seat === 1 && names.join() === "Astrid,Bjorn", `the seat's view names both players: ${names.join()}`);
  check(view.waitingForPlayers !== true, "no longer waiting for players");

  const second = await keyed.POST("/v1/sessions/{session}:claimSeat", { ...path, body: { displayName: "Cnut" } });
  check(second.error !== undefined && second.response.status === 409, "a second claim is refused with 409");
  const reason: Schemas["Reason"] = second.error.reason;
  check(reason === "SEAT_NOT_OPEN", `the reason is SEAT_NOT_OPEN, not ${reason}`);

  const reissued = answer(
    await host.POST("/v1/sessions/{session}:manageSeat", {
      ...path,
      body: { seat: 1, action: "SEAT_ACTION_REISSUE_TOKEN" },
    }),
  );
  const newToken = reissued.seatToken?.token;
  check(newToken !== undefined && newToken !== oldToken && reissued.seatToken?.seat === 1, "a new token for seat 1");
  const old = await seat1.GET("/v1/sessions/{session}", path);
  check(old.error !== undefined && old.response.status === 403, "the old token is refused with 403");
  check(old.error.reason === "SEAT_TOKEN_INVALID", `the reason is SEAT_TOKEN_INVALID, not ${old.error.reason}`);
  const seat1Again = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${newToken}` } });
  check(answer(await seat1Again.GET("/v1/sessions/{session}", path)).session.seat === 1, "the new token acts");

  const bySeat = await seat1Again.DELETE("/v1/sessions/{session}", path);
  check(bySeat.error?.reason === "HOST_TOKEN_INVALID" && bySeat.response.status === 403, "only the host deletes");
  answer(await host.DELETE("/v1/sessions/{session}", path));
  const gone = await host.GET("/v1/sessions/{session}", path);
  check(gone.response.status === 404, "the session is gone");
}

async function main(base: string, key: string): Promise<void> {
  const pick = chooser(7);
  const client = createClient<paths>({ baseUrl: base, headers: { "X-Api-Key": key } });
  const games = answer(await client.GET("/v1/games")).games ?? [];
  check(games.length === 5, "five games");
  console.log(`openapi-fetch: Valhalla played to the end in ${await playValhalla(client, pick)} moves`);
  for (const game of OTHER_GAMES) await playAFew(client, game, pick);
  console.log(`openapi-fetch: a few moves of ${OTHER_GAMES.join(", ")}`);
  await refusal(client);
  console.log("openapi-fetch: a refused move's reason read from the problem (CAST_FIRST)");
  await session(base, client, pick);
  console.log("openapi-fetch: a session played with a seat token, the etag and a stale etag refused");
  await lobby(base, client);
  console.log("openapi-fetch: a lobby seat listed, claimed (a second claim SEAT_NOT_OPEN), reissued by the host, deleted");
}

const [base, key] = process.argv.slice(2);
check(base !== undefined && key !== undefined, "usage: node play_openapi_fetch.js BASE_URL API_KEY");
main(base, key).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
