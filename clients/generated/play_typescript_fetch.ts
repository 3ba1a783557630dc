// Plays Lawspeaker through the typescript-fetch client openapi-generator generates from
// clients/openapi.json (configured by openapi-generator-typescript-fetch.yaml), against a real
// `lawspeaker serve`: compiled with `tsc --strict` and no casts (check.sh), then run as
// `node build/play_typescript_fetch.js BASE_URL API_KEY` (the server requires the key for every call but
// the session ones, which take a seat's token). A whole game of Valhalla and a few moves of every
// other game over the stateless routes, a refusal read from the typed problem, and a session
// (create, legal moves with a seat's token, a move with the etag, a stale etag refused). It exits
// non-zero on any surprise.
import {
  Configuration,
  GameId,
  type Problem,
  ProblemFromJSON,
  Reason,
  ResponseError,
  RulesServiceApi,
  SessionServiceApi,
} from "./gen/typescript-fetch/src/index.js";

const MAX_PLIES = 3000;

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`check failed: ${what}`);
}

function chooser(seed: number): <T>(items: readonly T[]) => T {
  let s = seed >>> 0;
  return <T,>(items: readonly T[]): T => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const item = items[s % items.length];
    check(item !== undefined, "a choice among no items");
    return item;
  };
}

/** The problem a refused call answered with, read with the generated model's own reader. */
async function refused(call: Promise<unknown>): Promise<{ status: number; problem: Problem }> {
  try {
    await call;
  } catch (err) {
    if (err instanceof ResponseError) {
      return { status: err.response.status, problem: ProblemFromJSON(await err.response.json()) };
    }
    throw err;
  }
  throw new Error("the call was not refused");
}

async function playValhalla(rules: RulesServiceApi, pick: ReturnType<typeof chooser>): Promise<number> {
  let { state } = await rules.newGameValhalla({ newGameRequestValhalla: { players: 2, seed: "42" } });
  for (let ply = 0; ply < MAX_PLIES; ply++) {
    const legal = await rules.legalMovesValhalla({ legalMovesRequestValhalla: { state } });
    if (legal.gameOver === true) {
      check(legal.outcome !== undefined, "a finished game has an outcome");
      return ply;
    }
    check(legal.moves !== undefined && legal.moves.length > 0, "a game that is not over has legal moves");
    const move = pick(legal.moves);
    const checked = await rules.validateMoveValhalla({ validateMoveRequestValhalla: { state, move } });
    check(checked.valid === true, "a legal move validates");
    ({ state } = await rules.applyMoveValhalla({ applyMoveRequestValhalla: { state, move } }));
  }
  throw new Error(`Valhalla did not end in ${MAX_PLIES} moves`);
}

async function playTheOthers(rules: RulesServiceApi, pick: ReturnType<typeof chooser>): Promise<void> {
  const body = async (game: GameId) => {
    const { info } = await rules.describeGame({ game });
    check(info.id === game, `DescribeGame ${game}`);
    return { players: info.minPlayers, seed: "7", rulesVersion: info.rulesVersion };
  };
  const penki = await body(GameId.Penki);
  let p = (await rules.newGamePenki({ newGameRequestPenki: penki })).state;
  for (let i = 0; i < 6; i++) {
    const { moves } = await rules.legalMovesPenki({ legalMovesRequestPenki: { state: p } });
    check(moves !== undefined && moves.length > 0, "penki has legal moves");
    p = (await rules.applyMovePenki({ applyMoveRequestPenki: { state: p, move: pick(moves) } })).state;
  }
  check(p.rulesVersion === penki.rulesVersion, "penki's rules version");
  const paxPenning = await body(GameId.PaxPenning);
  let pp = (await rules.newGamePaxPenning({ newGameRequestPaxPenning: paxPenning })).state;
  for (let i = 0; i < 6; i++) {
    const { moves } = await rules.legalMovesPaxPenning({ legalMovesRequestPaxPenning: { state: pp } });
    check(moves !== undefined && moves.length > 0, "pax_penning has legal moves");
    const move = pick(moves);
    pp = (await rules.applyMovePaxPenning({ applyMoveRequestPaxPenning: { state: pp, move } })).state;
  }
  check(pp.rulesVersion === paxPenning.rulesVersion, "pax_penning's rules version");
  const junior = await body(GameId.PaxVikingJunior);
  let j = (await rules.newGamePaxVikingJunior({ newGameRequestPaxVikingJunior: junior })).state;
  for (let i = 0; i < 6; i++) {
    const { moves } = await rules.legalMovesPaxVikingJunior({ legalMovesRequestPaxVikingJunior: { state: j } });
    check(moves !== undefined && moves.length > 0, "pax_viking_junior has legal moves");
    const move = pick(moves);
    j = (await rules.applyMovePaxVikingJunior({ applyMoveRequestPaxVikingJunior: { state: j, move } })).state;
  }
  check(j.rulesVersion === junior.rulesVersion, "pax_viking_junior's rules version");
  const birka = await body(GameId.Birka);
  let b = (await rules.newGameBirka({ newGameRequestBirka: birka })).state;
  for (let i = 0; i < 6; i++) {
    const { moves } = await rules.legalMovesBirka({ legalMovesRequestBirka: { state: b } });
    check(moves !== undefined && moves.length > 0, "birka has legal moves");
    b = (await rules.applyMoveBirka({ applyMoveRequestBirka: { state: b, move: pick(moves) } })).state;
  }
  check(b.rulesVersion === birka.rulesVersion, "birka's rules version");
}

async function refusal(rules: RulesServiceApi): Promise<void> {
  const { state } = await rules.newGameValhalla({ newGameRequestValhalla: { players: 2, seed: "1" } });
  const move = { valhalla: { moveShip: { ship: 1, to: 5 } } };
  const { status, problem } = await refused(rules.applyMoveValhalla({ applyMoveRequestValhalla: { state, move } }));
  check(status === 409 && problem.reason === Reason.CastFirst, `409 CAST_FIRST, not ${status} ${problem.reason}`);
  check(problem.fieldViolations?.[0]?.field.startsWith("move.valhalla") === true, "the move is the field at fault");
}

async function session(base: string, key: string, pick: ReturnType<typeof chooser>): Promise<void> {
  const keyed = new SessionServiceApi(new Configuration({ basePath: base, apiKey: key }));
  const created = await keyed.createSession({
    createSessionRequest: { game: GameId.Valhalla, players: 2, seed: "5" },
  });
  const session = created.session.session;
  const tokens = new Map(created.seatTokens.map((t) => [t.seat ?? 0, t.token]));
  const token = tokens.get(created.session.toAct?.[0] ?? 0);
  check(tokens.size === 2 && token !== undefined, "a token per seat");
  const seat = new SessionServiceApi(new Configuration({ basePath: base, accessToken: token }));
  const legal = await seat.sessionLegalMoves({ session });
  check(legal.moves !== undefined && legal.moves.length > 0, "the seat on turn has legal moves");
  const move = pick(legal.moves);
  const etag = legal.etag;
  const applied = await seat.sessionApplyMove({
    session,
    sessionApplyMoveRequest: { move, etag, requestId: "play-1" },
  });
  check(applied.session.etag !== etag && applied.session.moveCount === "1", "the move made a new version");
  const stale = await refused(
    seat.sessionApplyMove({ session, sessionApplyMoveRequest: { move, etag, requestId: "play-2" } }),
  );
  check(stale.status === 409 && stale.problem.reason === Reason.SessionEtagMismatch, "a stale etag is refused");
  check(stale.problem.metadata?.["etag"] === applied.session.etag, "the problem names the current etag");
  await seat.deleteSession({ session });
}

async function main(base: string, key: string): Promise<void> {
  const pick = chooser(7);
  const rules = new RulesServiceApi(new Configuration({ basePath: base, apiKey: key }));
  const games = (await rules.listGames()).games ?? [];
  check(games.length === 5, "five games");
  console.log(`openapi-generator typescript-fetch: Valhalla played to the end in ${await playValhalla(rules, pick)} moves`);
  await playTheOthers(rules, pick);
  console.log("openapi-generator typescript-fetch: a few moves of penki, pax_penning, pax_viking_junior, birka");
  await refusal(rules);
  console.log("openapi-generator typescript-fetch: a refused move's reason read from the problem (CAST_FIRST)");
  await session(base, key, pick);
  console.log("openapi-generator typescript-fetch: a session played with a seat token, the etag and a stale etag refused");
}

const [base, key] = process.argv.slice(2);
check(base !== undefined && key !== undefined, "usage: node play_typescript_fetch.js BASE_URL API_KEY");
main(base, key).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
