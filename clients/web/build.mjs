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
import { deflateSync } from "node:zlib";
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
// The app's icon: the rune Laguz (ᛚ, "law", as in lawspeaker) in gold on the bar's dark brown.
const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" rx="18" fill="#2d2a26"/><path d="M40 24V78M40 24L64 44" stroke="#e0b04a" stroke-width="10" stroke-linecap="round" fill="none"/></svg>\n`;

// The icons (drawn here, so the bytes are this file's: see icon() below), under hashed names too.
const THEME = "#2d2a26";
for (const size of [192, 512]) hashed(`icon-${size}`, "png", icon(size, false));
hashed("icon-maskable-512", "png", icon(512, true));
hashed("icon", "svg", Buffer.from(ICON_SVG));

// The web app manifest (installable: a name, a start URL, standalone display and the icons).
const manifest = {
  name: "Lawspeaker: Viking board games",
  short_name: "Lawspeaker",
  description: "Play Viking-era board games with the rules enforced by Lawspeaker.",
  id: "/play",
  start_url: "/play",
  scope: "/play",
  display: "standalone",
  orientation: "any",
  background_color: "#faf7f0",
  theme_color: THEME,
  icons: [
    { src: `/play/${names["icon.svg"]}`, sizes: "any", type: "image/svg+xml" },
    { src: `/play/${names["icon-192.png"]}`, sizes: "192x192", type: "image/png" },
    { src: `/play/${names["icon-512.png"]}`, sizes: "512x512", type: "image/png" },
    { src: `/play/${names["icon-maskable-512.png"]}`, sizes: "512x512", type: "image/png", purpose: "maskable" },
  ],
};
files.set("manifest.webmanifest", Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));

const html = readFileSync(join(here, "index.html"), "utf8")
  .replace("/play/app.js", `/play/${names["app.js"]}`)
  .replace("/play/style.css", `/play/${names["style.css"]}`)
  .replace("/play/icon.svg", `/play/${names["icon.svg"]}`)
  .replace("/play/icon-192.png", `/play/${names["icon-192.png"]}`);
files.set("index.html", Buffer.from(html));

// The service worker: the shell it keeps is this build's files (not the worker itself).
const shell = ["/play", ...[...files.keys()].filter((n) => n !== "index.html").map((n) => `/play/${n}`)].sort();
const version = createHash("sha256").update(shell.join("\n")).digest("hex").slice(0, 12);
const worker = await esbuild.transform(readFileSync(join(here, "pwa/sw.js"), "utf8"), {
  minify: true,
  target: "es2022",
  define: { __SHELL__: JSON.stringify(shell), __VERSION__: JSON.stringify(version) },
});
files.set("sw.js", Buffer.from(worker.code));

function hashed(base, ext, bytes) {
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 12);
  files.set(`${base}-${hash}.${ext}`, bytes);
  names[`${base}.${ext}`] = `${base}-${hash}.${ext}`;
}

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

// ---------------------------------------------------------------------------------------- icons
// The SVG icon is ICON_SVG above; the PNGs (which Android's install and iOS's home screen want) draw the same two
// strokes here, antialiased, and are encoded by hand: no image library for two lines.

function icon(size, maskable) {
  // strokes in a 100-unit square; a maskable icon keeps them inside the middle 80% (the safe zone)
  const scale = maskable ? 0.72 : 1;
  const at = (v) => 50 + (v - 50) * scale;
  const segments = [
    [at(40), at(24), at(40), at(78)],
    [at(40), at(24), at(64), at(44)],
  ];
  const half = (10 * scale) / 2;
  const radius = maskable ? 0 : 18; // a maskable icon fills its square: the launcher cuts the shape
  const rgba = Buffer.alloc(size * size * 4);
  const bg = [0x2d, 0x2a, 0x26];
  const ink = [0xe0, 0xb0, 0x4a];
  const unit = 100 / size;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const px = (x + 0.5) * unit;
      const py = (y + 0.5) * unit;
      // coverage of the rounded square and of the strokes, over one pixel's width (antialiasing)
      const inside = clamp((radius ? -roundedBox(px, py, radius) : 50) / unit + 0.5);
      const d = Math.min(...segments.map(([ax, ay, bx, by]) => toSegment(px, py, ax, ay, bx, by)));
      const stroke = clamp((half - d) / unit + 0.5);
      const i = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) rgba[i + c] = Math.round(bg[c] + (ink[c] - bg[c]) * stroke);
      rgba[i + 3] = Math.round(255 * inside);
    }
  }
  return png(size, size, rgba);
}

function clamp(v) {
  return Math.max(0, Math.min(1, v));
}

/** Signed distance from (x, y) to the edge of the 100-unit square with corners of radius r (< 0 inside). */
function roundedBox(x, y, r) {
  const qx = Math.abs(x - 50) - (50 - r);
  const qy = Math.abs(y - 50) - (50 - r);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

function toSegment(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = clamp(((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** An RGBA image as a PNG file (one IDAT, no filter). */
function png(width, height, rgba) {
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) rgba.copy(rows, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter method, no interlace
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const out = Buffer.alloc(data.length + 12);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), data.length + 8);
    return out;
  };
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", deflateSync(rows, { level: 9 })), chunk("IEND", Buffer.alloc(0))]);
}

function crc32(bytes) {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
