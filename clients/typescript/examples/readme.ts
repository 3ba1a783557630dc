// The TypeScript example of docs/clients.md, verbatim below the marker line: test/readme.test.mjs fails
// when the two differ, compiles this file against the built client and runs it against a real server.
// ---- README ----
import {
  Code, ConnectError, MoveSchema, create, createLawspeakerClients, errorInfo, withToken,
} from "@lawspeaker/client";

const { rules, sessions } = createLawspeakerClients("http://localhost:8080");
const { state } = await rules.newGame({ game: "valhalla", players: 2, seed: 42n }); // 64-bit: bigint
const { moves } = await rules.legalMoves({ game: "valhalla", state });
const applied = await rules.applyMove({ game: "valhalla", state, move: moves[0] });
console.log(applied.events.map((e) => e.text).join(" ")); // Player 1 cast Tiewaz and Gebo heads up: 2, natural.

// a move built by hand: a oneof is { case: "<field>", value: <its message> }, so the proto3 JSON
// {"valhalla": {"moveShip": {"ship": 1, "to": 3}}} is (or fromJson(MoveSchema, thatJson))
const ship = create(MoveSchema, {
  game: { case: "valhalla", value: { action: { case: "moveShip", value: { ship: 1, to: 3 } } } },
});
try {
  await rules.applyMove({ game: "valhalla", state, move: ship });
} catch (err) {
  // a refused call rejects with a ConnectError; its google.rpc.ErrorInfo detail names the rule
  const refused = ConnectError.from(err);
  console.log(Code[refused.code], errorInfo(refused)?.reason); // FailedPrecondition CAST_FIRST
}

// a session: each seat acts with its own token (or createLawspeakerClients(url, { token })); this
// loop plays both seats. A watch does not end with the game, only when the session is deleted:
// stop it yourself (break, or pass withToken(token, { signal }) and abort).
const created = await sessions.createSession({ game: "valhalla", players: 2 });
const id = created.session!.session;
const tokens = new Map(created.seatTokens.map((t) => [t.seat, t.token]));
for await (const update of sessions.watchSession({ session: id }, withToken(tokens.get(0)!))) {
  const session = update.session!;
  if (session.gameOver) {
    console.log(session.outcome?.summary); // e.g. Dark (player 2) has sailed all 6 ships into Valhalla and wins.
    break; // leaving the loop closes the stream
  }
  const acting = withToken(tokens.get(session.toAct[0])!); // the seat to act
  const listed = await sessions.sessionLegalMoves({ session: id }, acting);
  await sessions.sessionApplyMove({ session: id, move: listed.moves[0], etag: listed.etag }, acting);
}
