// Builds the frontend into service/lawspeaker/http/play/static, which `lawspeaker serve` serves at
// /play. The bundle is committed, so a fresh clone serves it with no Node.js; `--check` rebuilds
// in memory and fails when the committed files differ (CI runs it, as for generated code).
//
// The client is bundled from its TypeScript source (clients/typescript/src), and every package,
// the client's included, resolves from this folder's node_modules: one lockfile decides the bytes.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(here, "../../service/lawspeaker/http/play/static");
const check = process.argv.includes("--check");

// Packages imported by the client's source resolve from here too, not from clients/typescript.
const fromHere = {
  name: "packages-from-here",
  setup(build) {
    build.onResolve({ filter: /^@(bufbuild|connectrpc)\// }, async (args) => {
      if (args.pluginData === "here") return undefined;
      // (an importer is needed for esbuild to apply the "import" condition of the package exports)
      const found = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: here,
        importer: join(here, "src", "main.ts"),
        pluginData: "here",
      });
      return found.errors.length ? { errors: found.errors } : { path: found.path };
    });
  },
};

const result = await esbuild.build({
  entryPoints: { app: join(here, "src/main.ts"), style: join(here, "src/style.css") },
  bundle: true,
  minify: true,
  format: "esm",
  // "neutral": resolve packages by their "exports" import condition (ESM), as "browser" here picked
  // their CommonJS "main" and bundled both builds
  platform: "neutral",
  conditions: ["browser"],
  target: ["es2022", "chrome109", "safari16", "firefox115"],
  legalComments: "eof",
  charset: "utf8",
  write: false,
  outdir: "out",
  alias: { "@lawspeaker/client": resolve(here, "../typescript/src/index.ts") },
  plugins: [fromHere],
  logLevel: "warning",
  metafile: process.argv.includes("--meta"),
});

// content-hashed names: a new build is a new URL, so the assets are cached for a year
const files = new Map();
const names = {};
for (const file of result.outputFiles) {
  const ext = file.path.endsWith(".css") ? "css" : "js";
  const base = file.path.split("/").pop().replace(/\.(css|js)$/, "");
  const hash = createHash("sha256").update(file.contents).digest("hex").slice(0, 12);
  const name = `${base}-${hash}.${ext}`;
  files.set(name, Buffer.from(file.contents));
  names[`${base}.${ext}`] = name;
}
const html = readFileSync(join(here, "index.html"), "utf8")
  .replace("/play/app.js", `/play/${names["app.js"]}`)
  .replace("/play/style.css", `/play/${names["style.css"]}`);
files.set("index.html", Buffer.from(html));

if (result.metafile) console.log(await esbuild.analyzeMetafile(result.metafile));
if (check) {
  let present = [];
  try {
    present = readdirSync(out);
  } catch {
    present = [];
  }
  const stale = [];
  for (const [name, bytes] of files) {
    let old = null;
    try {
      old = readFileSync(join(out, name));
    } catch {
      old = null;
    }
    if (old === null || !old.equals(bytes)) stale.push(name);
  }
  for (const name of present) if (!files.has(name)) stale.push(name);
  if (stale.length) {
    console.error(`The committed frontend bundle is stale (${stale.join(", ")}): run \`npm run build\` in clients/web and commit ${out}.`);
    process.exit(1);
  }
  console.log(`frontend bundle current: ${[...files.keys()].join(", ")}`);
} else {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const [name, bytes] of files) writeFileSync(join(out, name), bytes);
  console.log(`wrote ${[...files.keys()].map((n) => `${n} (${files.get(n).length} B)`).join(", ")} to ${out}`);
}
