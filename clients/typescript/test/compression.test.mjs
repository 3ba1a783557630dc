// Compressed answers through the built client (dist/) against a real `lawspeaker serve`: the client
// (connect-web over Node's fetch) negotiates nothing itself; fetch asks with Accept-Encoding and
// decodes the answer, so a large one (a game's description, 58 KB of JSON) comes compressed and reads
// as the same message, and a short one (ApplyMove's) comes as it is.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { createLawspeakerClients } from "../dist/index.js";
import { startServer } from "../support/server.mjs";

let server;
let baseUrl;

before(async () => {
  server = await startServer();
  baseUrl = server.baseUrl;
});

after(async () => {
  await server?.stop();
});

function recording() {
  const seen = [];
  const fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    seen.push({
      url: String(input),
      encoding: response.headers.get("content-encoding"),
      vary: response.headers.get("vary"),
    });
    return response;
  };
  return { seen, fetch };
}

for (const useBinaryFormat of [false, true]) {
  test(`a large answer comes compressed and a short one as it is (${useBinaryFormat ? "binary" : "JSON"})`, async () => {
    const { seen, fetch } = recording();
    const { rules } = createLawspeakerClients(baseUrl, { useBinaryFormat, fetch });
    const described = await rules.describeGame({ game: "pax_viking_junior" });
    assert.equal(described.info?.id, "pax_viking_junior");
    const large = seen.at(-1);
    assert.match(large.url, /DescribeGame$/);
    assert.ok(["gzip", "br"].includes(large.encoding), `DescribeGame came as ${large.encoding}`);
    assert.equal(large.vary, "Accept-Encoding");

    const { state } = await rules.newGame({ game: "valhalla", players: 2, seed: 42n });
    const { moves } = await rules.legalMoves({ game: "valhalla", state });
    const applied = await rules.applyMove({ game: "valhalla", state, move: moves[0] });
    assert.ok(applied.state);
    const short = seen.at(-1);
    assert.match(short.url, /ApplyMove$/);
    assert.equal(short.encoding, null);
    assert.equal(short.vary, "Accept-Encoding");
  });
}
