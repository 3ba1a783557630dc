// The same services over gRPC-Web instead of Connect: connect-es's own gRPC-Web transport
// (createGrpcWebTransport from @connectrpc/connect-web) with the built client's generated services
// (dist/), against a real `lawspeaker serve` (../support/server.mjs), which speaks gRPC-Web on its
// HTTP port with no proxy. One server for the file (a second `lawspeaker serve` start: ~2 s).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";

import { Code, ConnectError, RulesService, SessionService, errorInfo, withToken } from "../dist/index.js";
import { startServer } from "../support/server.mjs";

const MAX_MOVES = 5000;

let server;
let baseUrl;

before(async () => {
  server = await startServer();
  baseUrl = server.baseUrl;
});

after(async () => {
  await server?.stop();
});

function clients(useBinaryFormat) {
  const seen = new Set();
  const fetch = async (input, init) => {
    seen.add(new Headers(init?.headers).get("content-type"));
    return globalThis.fetch(input, init);
  };
  const transport = createGrpcWebTransport({ baseUrl, useBinaryFormat, fetch });
  return { rules: createClient(RulesService, transport), sessions: createClient(SessionService, transport), seen };
}

for (const useBinaryFormat of [true, false]) {
  const format = useBinaryFormat ? "application/grpc-web+proto" : "application/grpc-web+json";
  describe(`gRPC-Web (${format})`, () => {
    // A whole game in the binary form (gRPC-Web's usual one), its first moves in JSON: a whole game
    // is some seconds of calls on a loaded machine, and the Connect tests play them in every form.
    const whole = useBinaryFormat;
    test(`plays ${whole ? "a whole" : "the start of a"} Valhalla game; a refusal names its rule`, async () => {
      const { rules, seen } = clients(useBinaryFormat);
      const { games } = await rules.listGames({});
      assert.ok(games.some((g) => g.id === "valhalla"));
      let { state } = await rules.newGame({ game: "valhalla", players: 2, seed: 42n });
      const start = state;
      let moves = 0;
      for (;;) {
        const listed = await rules.legalMoves({ game: "valhalla", state });
        if (listed.gameOver) {
          assert.ok(listed.outcome, "a finished game has an outcome");
          break;
        }
        const applied = await rules.applyMove({ game: "valhalla", state, move: listed.moves[0] });
        state = applied.state;
        assert.ok(++moves < MAX_MOVES, "the game did not end");
        if (!whole && moves === 12) break;
      }
      assert.ok(moves >= 12);
      const move = { game: { case: "valhalla", value: { action: { case: "moveShip", value: { ship: 6, to: 13 } } } } };
      const verdict = await rules.validateMove({ game: "valhalla", state: start, move });
      assert.equal(verdict.valid, false);
      await assert.rejects(rules.applyMove({ game: "valhalla", state: start, move }), (err) => {
        assert.ok(err instanceof ConnectError);
        assert.equal(err.code, Code.FailedPrecondition);
        assert.equal(errorInfo(err)?.reason, verdict.violation.reason);
        assert.equal(errorInfo(err)?.domain, "lawspeaker.dev");
        return true;
      });
      await assert.rejects(rules.newGame({ game: "chess", players: 2 }), (err) => {
        assert.equal(ConnectError.from(err).code, Code.NotFound);
        assert.equal(errorInfo(err)?.reason, "GAME_NOT_FOUND");
        return true;
      });
      assert.deepEqual([...seen], [format]); // every call went as gRPC-Web
    });

    test("watches a session: each move's update as it is made, then its deletion", async () => {
      const { sessions } = clients(useBinaryFormat);
      const created = await sessions.createSession({ game: "valhalla", players: 2 });
      const id = created.session.session;
      const seat = created.session.toAct[0];
      const mine = withToken(created.seatTokens.find((t) => t.seat === seat).token);
      const updates = sessions.watchSession({ session: id }, mine)[Symbol.asyncIterator]();
      const first = await updates.next();
      assert.equal(first.value.session.etag, created.session.etag);
      assert.equal(first.value.session.seat, seat);
      const cast = { game: { case: "valhalla", value: { action: { case: "cast", value: {} } } } };
      await sessions.sessionApplyMove({ session: id, move: cast, etag: created.session.etag }, mine);
      const second = await updates.next();
      assert.equal(Number(second.value.session.moveCount), 1);
      await sessions.deleteSession({ session: id }, mine);
      assert.equal((await updates.next()).value.deleted, true);
      assert.equal((await updates.next()).done, true);
      await assert.rejects(
        (async () => {
          for await (const _ of sessions.watchSession({ session: "valhalla.missing" })) {
            // no update comes
          }
        })(),
        (err) => ConnectError.from(err).code === Code.NotFound && errorInfo(err)?.reason === "SESSION_NOT_FOUND",
      );
    });
  });
}
