// Plays Lawspeaker through the typescript-fetch client openapi-generator generates from
// clients/openapi.json (configured by openapi-generator-typescript-fetch.yaml), against a real
// `lawspeaker serve`: compiled with `tsc --strict` and no casts (check.sh), then run as
// `node build/play_typescript_fetch.js BASE_URL API_KEY` (the server requires the key for every call but
// the session ones, which take a seat's token). A whole game of Valhalla and a few moves of every
// other game over the stateless routes, a refusal read from the typed problem, a session
// (create, legal moves with a seat's token, a move with the etag, a stale etag refused), and the
// lobby (a session with an open seat found in ListSessions, claimed, a second claim refused, the
// seat's token reissued by the host, the host deleting it). It exits non-zero on any surprise.
import {
  Configuration,
  GameId,
  ManageSeatRequestActionEnum,
  type Problem,
  ProblemFromJSON,
  Reason,
  ResponseError,
  RulesServiceApi,
  SeatRole,
  type Session,
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
  // seatTokens is left out when no person plays a seat (every seat a bot's or open)
  const tokens = new Map((created.seatTokens ?? []).map((t) => [t.seat ?? 0, t.token]));
  const token = tokens.get(created.session.toAct?.[0] ?? 0);
  check(tokens.size === 2 && token !== undefined, "a token per seat");
  check(created.hostToken !== "" && created.session.hasHost === true, "a host token");
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

/** The lobby: a Valhalla session with seat 1 open, found in ListSessions (page by page), claimed
 * under a display name; a second claim refused (SEAT_NOT_OPEN); the host reissues seat 1's token,
 * and the old one is refused; a seat may not delete the session, the host does. */
async function lobby(base: string, key: string): Promise<void> {
  const keyed = new SessionServiceApi(new Configuration({ basePath: base, apiKey: key }));
  const created = await keyed.createSession({
    createSessionRequest: { game: GameId.Valhalla, players: 2, openSeats: [1], displayNames: ["Astrid"] },
  });
  const session = created.session.session;
  const host = new SessionServiceApi(new Configuration({ basePath: base, accessToken: created.hostToken }));
  check(created.seatTokens?.length === 1 && (created.seatTokens[0]?.seat ?? 0) === 0, "a token for seat 0 only");
  check(created.session.waitingForPlayers === true, "the session waits for its open seat");
  check(created.session.seats?.[1]?.role === SeatRole.SeatRoleOpen, "seat 1 is open");

  let found: Session | undefined;
  let pageToken: string | undefined;
  for (let page = 0; found === undefined && page < 100; page++) {
    const listed = await keyed.listSessions({ game: GameId.Valhalla, players: 2, pageSize: 10, pageToken });
    for (const s of listed.sessions ?? []) {
      check(s.game === "valhalla" && s.players === 2 && s.waitingForPlayers === true, "the lobby's filters");
    }
    found = listed.sessions?.find((s) => s.session === session);
    pageToken = listed.nextPageToken;
    if (!pageToken) break;
  }
  check(found !== undefined, "the session is in the lobby");
  check(found.seats?.[0]?.displayName === "Astrid", "the lobby names the host's player");

  const claimed = await keyed.claimSeat({ session, claimSeatRequest: { displayName: "Bjorn", seat: 1 } });
  check(claimed.seatToken.seat === 1, "seat 1 claimed");
  const oldToken = claimed.seatToken.token;
  const seat1 = new SessionServiceApi(new Configuration({ basePath: base, accessToken: oldToken }));
  const view = (await seat1.getSession({ session })).session;
  const names = (view.seats ?? []).map((s) => s.displayName ?? "");
  check(view.seat === 1 && names.join() === "Astrid,Bjorn", `the seat's view names both players: ${names.join()}`);
  check(view.waitingForPlayers !== true, "no longer waiting for players");

  const second = await refused(keyed.claimSeat({ session, claimSeatRequest: { displayName: "Cnut" } }));
  check(second.status === 409 && second.problem.reason === Reason.SeatNotOpen, "a second claim: 409 SEAT_NOT_OPEN");

  const reissued = await host.manageSeat({
    session,
    manageSeatRequest: { seat: 1, action: ManageSeatRequestActionEnum.SeatActionReissueToken },
  });
  const newToken = reissued.seatToken?.token;
  check(newToken !== undefined && newToken !== oldToken && reissued.seatToken?.seat === 1, "a new token for seat 1");
  const old = await refused(seat1.getSession({ session }));
  check(old.status === 403 && old.problem.reason === Reason.SeatTokenInvalid, "the old token: 403 SEAT_TOKEN_INVALID");
  const seat1Again = new SessionServiceApi(new Configuration({ basePath: base, accessToken: newToken }));
  check((await seat1Again.getSession({ session })).session.seat === 1, "the new token acts");

  const bySeat = await refused(seat1Again.deleteSession({ session }));
  check(bySeat.status === 403 && bySeat.problem.reason === Reason.HostTokenInvalid, "only the host deletes");
  await host.deleteSession({ session });
  const gone = await refused(host.getSession({ session }));
  check(gone.status === 404, "the session is gone");
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
  await lobby(base, key);
  console.log(
    "openapi-generator typescript-fetch: a lobby seat listed, claimed (a second claim SEAT_NOT_OPEN), reissued by the host, deleted",
  );
}

const [base, key] = process.argv.slice(2);
check(base !== undefined && key !== undefined, "usage: node play_typescript_fetch.js BASE_URL API_KEY");
main(base, key).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
