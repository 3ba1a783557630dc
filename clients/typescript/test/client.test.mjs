// Plays whole games through the built client (dist/) against a real `lawspeaker serve`
// (../support/server.mjs: $LAWSPEAKER_BIN, by default the repository's ../../.venv/bin/lawspeaker).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Code, ConnectError, createLawspeakerClients, errorInfo, withToken } from "../dist/index.js";
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

for (const [useBinaryFormat, useHttpGet] of [
  [false, false],
  [true, false],
  [false, true],
]) {
  const format = `${useBinaryFormat ? "binary" : "JSON"}${useHttpGet ? ", GET for calls without side effects" : ""}`;
  describe(`RulesService over Connect (${format})`, () => {
    test("plays a whole Valhalla game", async () => {
      const methods = new Set();
      const fetch = (input, init) => {
        methods.add(init?.method ?? "GET");
        return globalThis.fetch(input, init);
      };
      const { rules } = createLawspeakerClients(baseUrl, { useBinaryFormat, useHttpGet, fetch });
      const { games } = await rules.listGames({});
      assert.ok(games.some((g) => g.id === "valhalla"));
      let { state } = await rules.newGame({ game: "valhalla", players: 2, seed: 42n });
      let moves = 0;
      for (;;) {
        const listed = await rules.legalMoves({ game: "valhalla", state });
        if (listed.gameOver) {
          assert.equal(listed.moves.length, 0);
          assert.ok(listed.outcome, "a finished game has an outcome");
          break;
        }
        const move = listed.moves[0];
        const verdict = await rules.validateMove({ game: "valhalla", state, move });
        assert.equal(verdict.valid, true);
        const applied = await rules.applyMove({ game: "valhalla", state, move });
        assert.ok(applied.events.length > 0);
        state = applied.state;
        assert.ok(++moves < MAX_MOVES, "the game did not end");
      }
      assert.ok(moves > 10);
      assert.deepEqual([...methods].sort(), useHttpGet ? ["GET", "POST"] : ["POST"]);
    });

    test("an illegal move names its rule, as ValidateMove does", async () => {
      const { rules } = createLawspeakerClients(baseUrl, { useBinaryFormat, useHttpGet });
      const { state } = await rules.newGame({ game: "valhalla", players: 2, seed: 7n });
      const move = { game: { case: "valhalla", value: { action: { case: "moveShip", value: { ship: 6, to: 13 } } } } };
      const verdict = await rules.validateMove({ game: "valhalla", state, move });
      assert.equal(verdict.valid, false);
      await assert.rejects(rules.applyMove({ game: "valhalla", state, move }), (err) => {
        assert.ok(err instanceof ConnectError);
        assert.equal(err.code, Code.FailedPrecondition);
        assert.equal(errorInfo(err)?.reason, verdict.violation.reason);
        return true;
      });
      await assert.rejects(rules.newGame({ game: "chess", players: 2 }), (err) => {
        assert.equal(ConnectError.from(err).code, Code.NotFound);
        assert.equal(errorInfo(err)?.reason, "GAME_NOT_FOUND");
        return true;
      });
    });

    test("a suggested move is legal, and the same seed suggests it again", async () => {
      const { rules } = createLawspeakerClients(baseUrl, { useBinaryFormat, useHttpGet });
      let { state } = await rules.newGame({ game: "valhalla", players: 2, seed: 11n });
      for (let i = 0; i < 40; i++) {
        const listed = await rules.legalMoves({ game: "valhalla", state });
        if (listed.moves.length > 1 && !listed.chance) break;
        state = (await rules.applyMove({ game: "valhalla", state, move: listed.moves[0] })).state;
      }
      const ask = { game: "valhalla", state, level: 3, budget: { playouts: 25, millis: 0 } }; // BOT_LEVEL_SEARCH
      const first = await rules.suggestMove(ask);
      assert.equal(first.playouts, 25);
      assert.ok((await rules.validateMove({ game: "valhalla", state, move: first.move })).valid);
      const again = await rules.suggestMove({ ...ask, seed: first.seed });
      assert.deepEqual(again.move, first.move);
      await assert.rejects(rules.suggestMove({ game: "valhalla", state }), (err) => {
        assert.equal(ConnectError.from(err).code, Code.InvalidArgument);
        assert.equal(errorInfo(err)?.reason, "BOT_LEVEL_REQUIRED");
        return true;
      });
    });
  });
}

describe("every listed game over Connect", () => {
  for (const useBinaryFormat of [false, true]) {
    test(`plays a whole game of each game ListGames lists (${useBinaryFormat ? "binary" : "JSON"})`, async () => {
      const { rules } = createLawspeakerClients(baseUrl, { useBinaryFormat });
      const { games } = await rules.listGames({});
      assert.ok(games.some((g) => g.id === "pax_viking_junior" && g.minPlayers === 2 && g.maxPlayers === 6));
      let seed = 12345;
      const pick = (n) => {
        seed = (seed * 1103515245 + 12345) % 2147483648; // a seeded choice: every game ends under it
        return seed % n;
      };
      for (const game of games) {
        for (const players of new Set([game.minPlayers, game.maxPlayers])) {
          let { state } = await rules.newGame({ game: game.id, players, seed: 9n });
          let moves = 0;
          for (;;) {
            const listed = await rules.legalMoves({ game: game.id, state });
            if (listed.gameOver) {
              assert.ok(listed.outcome, `${game.id}: a finished game has an outcome`);
              break;
            }
            const move = listed.moves[pick(listed.moves.length)];
            const applied = await rules.applyMove({ game: game.id, state, move });
            state = applied.state;
            assert.ok(++moves < MAX_MOVES, `${game.id} with ${players} players did not end`);
          }
        }
      }
    });
  }
});

describe("SessionService over Connect", () => {
  test("plays a whole Valhalla session game, each seat with its own token", async () => {
    const { sessions } = createLawspeakerClients(baseUrl);
    const created = await sessions.createSession({ game: "valhalla", players: 2 });
    assert.equal(created.seatTokens.length, 2);
    const id = created.session.session;
    const tokens = new Map(created.seatTokens.map((t) => [t.seat, t.token]));
    let session = created.session;
    let n = 0;
    while (!session.gameOver) {
      const seat = session.toAct[0];
      const listed = await sessions.sessionLegalMoves({ session: id }, withToken(tokens.get(seat)));
      assert.ok(listed.moves.length > 0);
      const applied = await sessions.sessionApplyMove(
        { session: id, move: listed.moves[0], etag: listed.etag, requestId: `move-${n}` },
        withToken(tokens.get(seat)),
      );
      assert.equal(applied.session.seat, seat);
      session = applied.session;
      assert.ok(++n < MAX_MOVES, "the session game did not end");
    }
    assert.ok(session.outcome);

    // A client made for one seat sends its token on every call.
    const seat0 = createLawspeakerClients(baseUrl, { token: tokens.get(0) }).sessions;
    const mine = await seat0.getSession({ session: id });
    assert.equal(mine.session.seat, 0);
    assert.equal(mine.session.gameOver, true);
    const log = await seat0.listSessionMoves({ session: id, pageSize: 1000 });
    assert.equal(Number(log.totalSize), n);

    // Without a token: the public view; a write is refused.
    const { session: spectator } = await sessions.getSession({ session: id });
    assert.equal(spectator.seat, undefined);
    const other = await sessions.createSession({ game: "valhalla", players: 2 });
    await assert.rejects(
      sessions.sessionApplyMove({ session: other.session.session, move: castMove(), etag: other.session.etag }),
      (err) => ConnectError.from(err).code === Code.PermissionDenied,
    );
    await seat0.deleteSession({ session: id });
  });
});

describe("WatchSession over Connect (server stream)", () => {
  for (const useBinaryFormat of [false, true]) {
    test(`streams every new version until the session is deleted (${useBinaryFormat ? "binary" : "JSON"})`, async () => {
      const { sessions } = createLawspeakerClients(baseUrl, { useBinaryFormat });
      const created = await sessions.createSession({ game: "valhalla", players: 2 });
      const id = created.session.session;
      const seat = created.session.toAct[0];
      const mine = withToken(created.seatTokens.find((t) => t.seat === seat).token);
      const updates = sessions.watchSession({ session: id }, mine)[Symbol.asyncIterator]();
      const first = await updates.next();
      assert.equal(first.value.session.etag, created.session.etag);
      assert.equal(first.value.session.seat, seat);
      await sessions.sessionApplyMove({ session: id, move: castMove(), etag: created.session.etag }, mine);
      const second = await updates.next();
      assert.equal(Number(second.value.session.moveCount), 1);
      await sessions.deleteSession({ session: id }, mine);
      assert.equal((await updates.next()).value.deleted, true);
      assert.equal((await updates.next()).done, true);
    });
  }

  test("a watch of a missing session fails with NotFound", async () => {
    const { sessions } = createLawspeakerClients(baseUrl);
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

describe("API keys", () => {
  test("the apiKey option is sent as X-Api-Key on every call, next to a seat token", async () => {
    const sent = [];
    const fetch = (input, init) => {
      sent.push(new Headers(init?.headers));
      return globalThis.fetch(input, init);
    };
    const { rules, sessions } = createLawspeakerClients(baseUrl, { apiKey: "lsk_example", fetch });
    await rules.listGames({});
    const created = await sessions.createSession({ game: "valhalla", players: 2 });
    await sessions.getSession({ session: created.session.session }, withToken(created.seatTokens[0].token));
    assert.equal(sent.length, 3);
    for (const headers of sent) assert.equal(headers.get("x-api-key"), "lsk_example");
    assert.match(sent[2].get("authorization"), /^Bearer /);
  });
});

function castMove() {
  return { game: { case: "valhalla", value: { action: { case: "cast", value: {} } } } };
}
