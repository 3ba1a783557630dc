// docs/clients.md's TypeScript example (the README's, before it moved) is examples/readme.ts (the
// text below its marker line): the two must be the same text, and the example must compile against the built client (dist/) and run
// against a real `lawspeaker serve`, printing what its comments say and then ending by itself.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { startServer } from "../support/server.mjs";

const run = promisify(execFile);
const MARKER = "// ---- README ----\n";
// Bounds for a child process that does not end: a stream left open holds it for minutes.
const CHILD_TIMEOUT_MS = 120_000;

let server;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server?.stop();
});

test("docs/clients.md's TypeScript example is examples/readme.ts", async () => {
  const readme = await readFile(new URL("../../../docs/clients.md", import.meta.url), "utf8");
  const source = await readFile(new URL("../examples/readme.ts", import.meta.url), "utf8");
  assert.ok(source.includes(MARKER), `examples/readme.ts lost its marker line ${JSON.stringify(MARKER)}`);
  const example = source.slice(source.indexOf(MARKER) + MARKER.length);
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  assert.ok(
    blocks.includes(example),
    "docs/clients.md's TypeScript example and clients/typescript/examples/readme.ts differ: make them the same",
  );
});

test("the example compiles, runs and ends by itself", async () => {
  const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
  const project = fileURLToPath(new URL("../examples/tsconfig.json", import.meta.url));
  await run(process.execPath, [tsc, "-p", project]).catch((err) => {
    throw new Error(`examples/readme.ts does not compile:\n${err.stdout}${err.stderr}`);
  });
  // The example calls http://localhost:8080 as written; here its calls go to the test's server.
  const runner = `
    const fetch = globalThis.fetch;
    globalThis.fetch = (input, init) =>
      fetch(String(input).replace("http://localhost:8080", ${JSON.stringify(server.baseUrl)}), init);
    await import(${JSON.stringify(new URL("../examples/dist/readme.js", import.meta.url).href)});`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", runner], {
    timeout: CHILD_TIMEOUT_MS,
  });
  const lines = stdout.trimEnd().split("\n");
  assert.deepEqual(lines.slice(0, 2), ["Player 1 cast Tiewaz and Gebo heads up: 2, natural.", "FailedPrecondition CAST_FIRST"]);
  assert.match(lines[2], /^(Light|Dark) \(player [12]\) has sailed all 6 ships into Valhalla and wins\.$/);
  assert.equal(lines.length, 3);
});

test("a watch left with break releases its connection, even after a garbage collection", async () => {
  // Node's fetch lost the abort of a request whose object had been collected (nodejs/node#55428):
  // the process then stayed alive on the watch's open connection instead of ending.
  const script = `
    import { createLawspeakerClients, withToken } from ${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)};
    const { sessions } = createLawspeakerClients(${JSON.stringify(server.baseUrl)});
    const created = await sessions.createSession({ game: "valhalla", players: 2 });
    const mine = withToken(created.seatTokens[0].token);
    for await (const update of sessions.watchSession({ session: created.session.session }, mine)) {
      globalThis.gc();
      if (update.session) break;
    }`;
  await run(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { timeout: CHILD_TIMEOUT_MS });
});
