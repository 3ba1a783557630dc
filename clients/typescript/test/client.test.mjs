// Plays whole games through the built client (dist/) against a real `lawspeaker serve`
// (../support/server.mjs: $LAWSPEAKER_BIN, by default the repository's ../../.venv/bin/lawspeaker).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  Code,
  ConnectError,
  ResignAction,
  ResultReason,
  SeatAction,
  SeatEventKind,
  SeatRole,
  createLawspeakerClients,
  errorInfo,
  withToken,
} from "../dist/index.js";
import { startServer } from "../support/server.mjs";

const MAX_MOVES = 5000;

let server;
let baseUrl;

before(async () => {
  // the lobby tests create, list and claim more sessions a minute than one client may by default
  server = await startServer({ args: ["--create-rate", "0", "--lobby-rate", "0"] });
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

describe("clocks and ResignSeat over Connect", () => {
  test("a clocked session shows each seat's time; a resignation ends a two-player game", async () => {
    const { sessions } = createLawspeakerClients(baseUrl);
    const clock = { perMoveSeconds: 60, bankSeconds: 300, incrementSeconds: 10 };
    const created = await sessions.createSession({ game: "valhalla", players: 2, clock });
    const id = created.session.session;
    assert.equal(created.session.clock.bankSeconds, 300);
    let view = created.session;
    for (let i = 0; !view.deadline && i < 100; i++) {
      // the server casts the opening sticks itself (no clock runs on a chance step)
      await new Promise((resolve) => setTimeout(resolve, 50));
      view = (await sessions.getSession({ session: id })).session;
    }
    assert.deepEqual(view.seats.map((s) => s.seat), [0, 1]);
    assert.ok(view.seats.every((s) => s.timeLeftSeconds > 0 && s.timeLeftSeconds <= 300));
    assert.ok(view.deadline > view.updateTime, "RFC 3339 times sort as strings");
    const tokens = new Map(created.seatTokens.map((t) => [t.seat, t.token]));

    const { session } = await sessions.resignSeat({ session: id }, withToken(tokens.get(1)));
    assert.equal(session.result.reason, ResultReason.RESIGNATION);
    assert.deepEqual(session.result.winners, [0]);
    assert.ok(session.seats[1].out);
    const log = await sessions.listSessionMoves({ session: id }, withToken(tokens.get(0)));
    const last = log.moves[log.moves.length - 1];
    assert.equal(last.seatEvent.kind, SeatEventKind.RESIGNED);
    assert.equal(last.seatEvent.seat, 1);
    await assert.rejects(
      sessions.resignSeat({ session: id, action: ResignAction.BOT }, withToken(tokens.get(1))),
      (err) => ["SEAT_RESIGNED", "SESSION_OVER"].includes(errorInfo(err)?.reason),
    );
    await sessions.deleteSession({ session: id }, withToken(tokens.get(0)));
  });

  test("a bad clock is InvalidArgument, CLOCK_INVALID", async () => {
    const { sessions } = createLawspeakerClients(baseUrl);
    const clock = { perMoveSeconds: 60, incrementSeconds: 5 }; // an increment needs a bank
    await assert.rejects(sessions.createSession({ game: "valhalla", players: 2, clock }), (err) => {
      assert.equal(ConnectError.from(err).code, Code.InvalidArgument);
      assert.equal(errorInfo(err)?.reason, "CLOCK_INVALID");
      return true;
    });
  });
});

describe("the lobby, the host and rematches over Connect", () => {
  test("a session with an open seat is listed, claimed under a name, and leaves the lobby", async () => {
    const { sessions } = createLawspeakerClients(baseUrl);
    const created = await sessions.createSession({
      game: "valhalla",
      players: 2,
      openSeats: [1],
      displayNames: ["Ann"],
    });
    const id = created.session.session;
    assert.ok(created.hostToken, "a host token");
    assert.deepEqual(created.seatTokens.map((t) => t.seat), [0]); // the open seat has no token yet
    assert.equal(created.session.waitingForPlayers, true);
    assert.equal(created.session.hasHost, true);
    assert.deepEqual(
      created.session.seats.map((s) => [s.role, s.displayName]),
      [
        [SeatRole.PERSON, "Ann"],
        [SeatRole.OPEN, ""],
      ],
    );
    // nothing is played while a seat has no player
    const waiting = await sessions.sessionLegalMoves({ session: id }, withToken(created.seatTokens[0].token));
    assert.deepEqual(waiting.moves, []);

    const listed = await allListed(sessions, { game: "valhalla", players: 2 });
    const shown = listed.find((s) => s.session === id);
    assert.ok(shown, "the lobby lists the session");
    assert.equal(shown.seat, undefined, "the public view");
    assert.equal(shown.seats[0].displayName, "Ann");
    assert.ok(!(await allListed(sessions, { game: "penki" })).some((s) => s.session === id));

    const claimed = await sessions.claimSeat({ session: id, displayName: "  Bob\u202e  " });
    assert.equal(claimed.seatToken.seat, 1);
    assert.equal(claimed.session.seat, 1, "the session as the claimed seat sees it");
    assert.equal(claimed.session.waitingForPlayers, false);
    assert.equal(claimed.session.seats[1].role, SeatRole.PERSON);
    assert.equal(claimed.session.seats[1].displayName, "Bob", "normalised: trimmed, the override removed");
    const mine = await sessions.getSession({ session: id }, withToken(claimed.seatToken.token));
    assert.equal(mine.session.seat, 1);
    const log = await sessions.listSessionMoves({ session: id });
    const claim = log.moves[log.moves.length - 1].seatEvent;
    assert.equal(claim.kind, SeatEventKind.CLAIMED);
    assert.equal(claim.displayName, "Bob");
    assert.ok(!(await allListed(sessions, { game: "valhalla" })).some((s) => s.session === id), "no longer listed");
    await assert.rejects(sessions.claimSeat({ session: id, displayName: "Cy" }), (err) => {
      assert.equal(ConnectError.from(err).code, Code.FailedPrecondition);
      assert.equal(errorInfo(err)?.reason, "SEAT_NOT_OPEN");
      return true;
    });
    await assert.rejects(sessions.claimSeat({ session: id, displayName: "x".repeat(33) }), (err) => {
      assert.equal(ConnectError.from(err).code, Code.InvalidArgument);
      assert.equal(errorInfo(err)?.reason, "DISPLAY_NAME_TOO_LONG");
      return true;
    });
    await sessions.deleteSession({ session: id }, withToken(created.hostToken));
  });

  test("of claims racing for the last open seat exactly one wins", async () => {
    const { sessions } = createLawspeakerClients(baseUrl);
    for (let round = 0; round < 3; round++) {
      const created = await sessions.createSession({ game: "penki", players: 2, openSeats: [1] });
      const id = created.session.session;
      const names = ["Ann", "Bob", "Cy", "Di"];
      const claims = await Promise.allSettled(names.map((displayName) => sessions.claimSeat({ session: id, displayName })));
      const won = claims.filter((c) => c.status === "fulfilled");
      assert.equal(won.length, 1, `round ${round}: ${claims.map((c) => c.status)}`);
      for (const lost of claims.filter((c) => c.status === "rejected")) {
        assert.equal(ConnectError.from(lost.reason).code, Code.FailedPrecondition);
        assert.equal(errorInfo(lost.reason)?.reason, "SEAT_NOT_OPEN");
      }
      const winner = names[claims.indexOf(won[0])];
      const { session } = await sessions.getSession({ session: id }, withToken(won[0].value.seatToken.token));
      assert.equal(session.seat, 1);
      assert.equal(session.seats[1].displayName, winner);
      await sessions.deleteSession({ session: id }, withToken(created.hostToken));
    }
  });

  test("the lobby filters by game and players and pages, oldest first", async () => {
    const { sessions } = createLawspeakerClients(baseUrl);
    const made = [];
    for (let i = 0; i < 3; i++) {
      const created = await sessions.createSession({ game: "pax_viking_junior", players: 3, openSeats: [1, 2] });
      made.push(created);
    }
    const other = await sessions.createSession({ game: "pax_viking_junior", players: 4, openSeats: [3] });
    const pages = [];
    let pageToken = "";
    do {
      const page = await sessions.listSessions({ game: "pax_viking_junior", players: 3, pageSize: 2, pageToken });
      assert.ok(page.sessions.length <= 2);
      pages.push(page.sessions.map((s) => s.session));
      pageToken = page.nextPageToken;
    } while (pageToken);
    const ids = pages.flat();
    assert.ok(pages.length >= 2, "more than one page");
    assert.deepEqual(
      ids.filter((id) => made.some((m) => m.session.session === id)),
      made.map((m) => m.session.session),
      "oldest first, each once",
    );
    assert.ok(!ids.includes(other.session.session), "another number of players is left out");
    const four = await allListed(sessions, { game: "pax_viking_junior", players: 4 });
    assert.ok(four.some((s) => s.session === other.session.session));
    for (const m of [...made, other]) await sessions.deleteSession({ session: m.session.session }, withToken(m.hostToken));
    assert.deepEqual(await allListed(sessions, { game: "pax_viking_junior" }), []);
  });

  test("the host reissues a seat's token (the old one is refused), hands seats to a bot, opens and closes them", async () => {
    const { sessions } = createLawspeakerClients(baseUrl);
    const created = await sessions.createSession({ game: "valhalla", players: 2, displayNames: ["Ann", "Bob"] });
    const id = created.session.session;
    const host = withToken(created.hostToken);
    const [old0, old1] = [0, 1].map((seat) => created.seatTokens.find((t) => t.seat === seat).token);
    const manage = (seat, action, more = {}) => sessions.manageSeat({ session: id, seat, action, ...more }, host);

    // only the host manages seats: a seat's token is refused
    await assert.rejects(sessions.manageSeat({ session: id, seat: 1, action: SeatAction.OPEN }, withToken(old0)), (err) => {
      assert.equal(ConnectError.from(err).code, Code.PermissionDenied);
      assert.equal(errorInfo(err)?.reason, "HOST_TOKEN_INVALID");
      return true;
    });

    const reissued = await manage(1, SeatAction.REISSUE_TOKEN, { displayName: "Bea" });
    assert.equal(reissued.seatToken.seat, 1);
    assert.notEqual(reissued.seatToken.token, old1);
    assert.equal(reissued.session.seats[1].role, SeatRole.PERSON);
    assert.equal(reissued.session.seats[1].displayName, "Bea");
    await assert.rejects(sessions.getSession({ session: id }, withToken(old1)), (err) => {
      assert.equal(ConnectError.from(err).code, Code.PermissionDenied);
      assert.equal(errorInfo(err)?.reason, "SEAT_TOKEN_INVALID");
      return true;
    });
    assert.equal((await sessions.getSession({ session: id }, withToken(reissued.seatToken.token))).session.seat, 1);
    assert.equal((await sessions.getSession({ session: id }, withToken(old0))).session.seat, 0, "seat 0 keeps its token");

    const bot = await manage(0, SeatAction.BOT);
    assert.equal(bot.session.seats[0].role, SeatRole.BOT);
    assert.deepEqual(bot.session.bots.map((b) => b.seat), [0]);
    const opened = await manage(0, SeatAction.OPEN);
    assert.equal(opened.session.seats[0].role, SeatRole.OPEN);
    assert.equal(opened.session.waitingForPlayers, true);
    assert.ok((await allListed(sessions, { game: "valhalla" })).some((s) => s.session === id), "listed once open");
    const closed = await manage(0, SeatAction.CLOSE);
    assert.equal(closed.session.seats[0].role, SeatRole.RESERVED);
    assert.ok(!(await allListed(sessions, { game: "valhalla" })).some((s) => s.session === id), "closed: not listed");
    await assert.rejects(manage(0, SeatAction.CLOSE), (err) => errorInfo(err)?.reason === "SEAT_NOT_OPEN");
    const back = await manage(0, SeatAction.REISSUE_TOKEN, { displayName: "Ann" });
    assert.equal(back.session.waitingForPlayers, false);
    assert.equal((await sessions.getSession({ session: id }, withToken(back.seatToken.token))).session.seat, 0);

    const log = await sessions.listSessionMoves({ session: id });
    assert.deepEqual(
      log.moves.filter((m) => m.seatEvent).map((m) => m.seatEvent.kind),
      [
        SeatEventKind.TOKEN_REISSUED,
        SeatEventKind.HANDED_TO_BOT,
        SeatEventKind.OPENED,
        SeatEventKind.CLOSED,
        SeatEventKind.TOKEN_REISSUED,
      ],
    );
    // a seat that was ever open: only the host deletes the session
    await assert.rejects(sessions.deleteSession({ session: id }, withToken(back.seatToken.token)), (err) => {
      assert.equal(ConnectError.from(err).code, Code.PermissionDenied);
      return true;
    });
    await sessions.deleteSession({ session: id }, host);
    await assert.rejects(sessions.getSession({ session: id }), (err) => ConnectError.from(err).code === Code.NotFound);
  });

  test("a rematch is made once every player asked: the same tokens, each player one seat on, and watchers of the old session see it", async () => {
    const { sessions } = createLawspeakerClients(baseUrl);
    const created = await sessions.createSession({
      game: "valhalla",
      players: 2,
      openSeats: [1],
      displayNames: ["Ann"],
    });
    const id = created.session.session;
    const ann = withToken(created.seatTokens[0].token);
    const claimed = await sessions.claimSeat({ session: id, displayName: "Bob" });
    const bob = withToken(claimed.seatToken.token);
    await assert.rejects(sessions.rematch({ session: id }, ann), (err) => errorInfo(err)?.reason === "GAME_NOT_OVER");
    await sessions.resignSeat({ session: id }, bob);

    const controller = new AbortController();
    const updates = sessions.watchSession({ session: id }, withToken(created.seatTokens[0].token, { signal: controller.signal }));
    const seen = updates[Symbol.asyncIterator]();
    assert.equal((await seen.next()).value.session.rematch, "");

    const first = await sessions.rematch({ session: id }, ann);
    assert.equal(first.rematch, undefined, "it waits for the other player");
    assert.deepEqual(first.session.rematchRequested, [0]);
    const again = await sessions.rematch({ session: id }, ann);
    assert.deepEqual(again.session.rematchRequested, [0], "asking twice counts once");
    const second = await sessions.rematch({ session: id }, bob);
    const next = second.rematch.session;
    assert.ok(next && next !== id);
    assert.equal(second.session.rematch, next);
    assert.equal(second.rematch.seat, 0, "Bob played seat 1: seat 0 in the rematch");

    let followed = "";
    for (let step = 0; step < 10 && !followed; step++) {
      const update = await seen.next();
      assert.equal(update.done, false);
      followed = update.value.session?.rematch ?? "";
    }
    controller.abort();
    assert.equal(followed, next, "the watch of the old session names the rematch");

    const annThere = await sessions.getSession({ session: next }, ann);
    const bobThere = await sessions.getSession({ session: next }, bob);
    assert.equal(annThere.session.seat, 1);
    assert.equal(bobThere.session.seat, 0);
    assert.deepEqual(
      annThere.session.seats.map((s) => s.displayName),
      ["Bob", "Ann"],
    );
    assert.equal(annThere.session.gameOver, false);
    assert.equal(annThere.session.hasHost, true);
    // the host token acts in the rematch too
    await sessions.deleteSession({ session: next }, withToken(created.hostToken));
    await sessions.deleteSession({ session: id }, withToken(created.hostToken));
  });

  test("the host's rematch is made at once; a spectator cannot ask for one", async () => {
    const { sessions } = createLawspeakerClients(baseUrl);
    const created = await sessions.createSession({ game: "valhalla", players: 2 });
    const id = created.session.session;
    await sessions.resignSeat({ session: id }, withToken(created.seatTokens[0].token));
    await assert.rejects(sessions.rematch({ session: id }), (err) => {
      assert.equal(ConnectError.from(err).code, Code.Unauthenticated);
      assert.equal(errorInfo(err)?.reason, "REMATCH_TOKEN_REQUIRED");
      return true;
    });
    const made = await sessions.rematch({ session: id }, withToken(created.hostToken));
    assert.ok(made.rematch.session);
    assert.equal(made.rematch.seat, undefined, "the host looks on");
    assert.deepEqual(made.session.rematchRequested, []);
    const asked = await sessions.rematch({ session: id }, withToken(created.seatTokens[1].token));
    assert.equal(asked.rematch.session, made.rematch.session, "asking again answers the same rematch");
    assert.equal(asked.rematch.seat, 0);
    await sessions.deleteSession({ session: made.rematch.session }, withToken(created.hostToken));
    await sessions.deleteSession({ session: id }, withToken(created.hostToken));
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

/** Every session the lobby lists under `filter`, page by page. */
async function allListed(sessions, filter) {
  const found = [];
  let pageToken = "";
  do {
    const page = await sessions.listSessions({ ...filter, pageToken });
    found.push(...page.sessions);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return found;
}

function castMove() {
  return { game: { case: "valhalla", value: { action: { case: "cast", value: {} } } } };
}
