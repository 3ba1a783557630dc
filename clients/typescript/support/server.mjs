// Starts a real `lawspeaker serve` on free loopback ports for the tests in ../test (kept outside that
// directory so `node --test test/` does not run it as a test file). The server command is
// $LAWSPEAKER_BIN, by default the repository's ../../.venv/bin/lawspeaker.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const BIN =
  process.env.LAWSPEAKER_BIN ?? fileURLToPath(new URL("../../../.venv/bin/lawspeaker", import.meta.url));

/**
 * A running server: `baseUrl` is its HTTP port; `stop()` sends SIGTERM and waits for the exit.
 * `args` are more `serve` flags (e.g. `["--create-rate", "0"]` for a test that creates many sessions).
 */
export async function startServer({ args = [] } = {}) {
  const server = spawn(BIN, ["serve", "--host", "127.0.0.1", "--grpc-port", "0", "--http-port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LAWSPEAKER_REDIS_URL: "" },
  });
  let log = ""; // the server's log, shown only if it fails to start
  server.stderr.on("data", (chunk) => {
    log = (log + chunk).slice(-4000);
  });
  const exited = new Promise((_, reject) => {
    server.once("error", (err) => reject(new Error(`cannot run ${BIN} (set LAWSPEAKER_BIN): ${err.message}`)));
    server.once("exit", (code) => reject(new Error(`${BIN} serve exited early (code ${code}):\n${log}`)));
  });
  const ports = new Promise((resolve) => {
    createInterface({ input: server.stdout }).on("line", (line) => {
      const found = /grpc_port=(\d+) http_port=(\d+)/.exec(line);
      if (found) resolve(Number(found[2]));
    });
  });
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error("no ports after 30 s")), 30_000);
  });
  let httpPort;
  try {
    httpPort = await Promise.race([ports, exited, timeout]);
  } catch (err) {
    server.kill("SIGKILL");
    throw err;
  } finally {
    clearTimeout(timer);
  }
  exited.catch(() => undefined); // a later exit is stop()'s business
  return {
    baseUrl: `http://127.0.0.1:${httpPort}`,
    async stop() {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const stopped = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGTERM");
      await stopped;
    },
  };
}
