#!/usr/bin/env bash
# The packages we ship, built and installed in clean places, to prove they work outside this checkout:
# the wheels of the service (lawspeaker) and of clients/python (lawspeaker-client), checked to hold
# every file of their packages and installed (not editable) in a fresh venv; `lawspeaker serve` from
# that venv, called through the installed client; and the npm tarball of clients/typescript,
# installed in a fresh npm project whose TypeScript is compiled against it and run against that server.
# Needs .venv (from the test step) and network access to PyPI and npm. Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/lawspeaker-packages.XXXXXX")
server=""
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then kill -TERM "$server"; wait "$server" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "-- wheels, built from the files git knows (tracked or new, not ignored), so no stray build output slips in"
mkdir -p "$work/src" "$work/wheels"
git ls-files -z --cached --others --exclude-standard \
  | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
  | tar --null -T - -cf - | tar -xf - -C "$work/src"
.venv/bin/pip wheel -q --no-deps -w "$work/wheels" "$work/src" "$work/src/clients/python"
ls "$work/wheels"
.venv/bin/python .ci/packages_smoke.py contents "$work/wheels" "$work/src"

echo "-- a fresh venv with the wheels installed"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$work"/wheels/*.whl
mkdir -p "$work/run" && cd "$work/run"  # out of the checkout: nothing can be imported from it
"$work/venv/bin/python" -c 'import lawspeaker, lawspeaker_client'
"$work/venv/bin/lawspeaker" --help >/dev/null

echo "-- the installed lawspeaker serve, called through the installed lawspeaker_client"
LAWSPEAKER_REDIS_URL="" "$work/venv/bin/lawspeaker" serve --host 127.0.0.1 --grpc-port 0 --http-port 0 \
  >"$work/serve.out" 2>"$work/serve.err" &
server=$!
ports=""
for _ in $(seq 300); do
  ports=$(sed -n 's/.*grpc_port=\([0-9]*\) http_port=\([0-9]*\).*/\1 \2/p' "$work/serve.out")
  [ -n "$ports" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$ports" ]; then
  echo "the installed lawspeaker serve did not start:"; tail -20 "$work/serve.err"; exit 1
fi
read -r grpc_port http_port <<<"$ports"
"$work/venv/bin/python" "$repo/.ci/packages_smoke.py" smoke --grpc-port "$grpc_port" --http-port "$http_port"

echo "-- the npm tarball of clients/typescript, installed in a fresh npm project"
(
  cd "$repo/clients/typescript"
  [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error
  npm pack --silent --pack-destination "$work" >/dev/null  # prepack builds dist/
)
tarball=$(ls "$work"/lawspeaker-client-*.tgz)
mkdir "$work/app" && cd "$work/app"
npm init -y >/dev/null
npm pkg set type=module
npm install --silent --no-audit --no-fund "$tarball"
cat >tsconfig.json <<'EOF'
{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
    "lib": ["ES2022", "DOM"], "types": [], "strict": true
  },
  "files": ["smoke.ts"]
}
EOF
# The package's main entry and its ./gen/* subpath export, as an app imports them.
cat >smoke.ts <<EOF
import { create, createLawspeakerClients, errorInfo } from "@lawspeaker/client";
import { MoveSchema } from "@lawspeaker/client/gen/lawspeaker/v1/game_pb";

const { rules } = createLawspeakerClients("http://127.0.0.1:$http_port");
const { games } = await rules.listGames({});
for (const game of games) {
  const { state } = await rules.newGame({ game: game.id, players: game.minPlayers, seed: 1n });
  const { moves } = await rules.legalMoves({ game: game.id, state });
  if (moves.length === 0) throw new Error(\`a new \${game.id} game has no legal move\`);
}
const { state } = await rules.newGame({ game: "valhalla", players: 2 });
const ship = create(MoveSchema, {
  game: { case: "valhalla", value: { action: { case: "moveShip", value: { ship: 1, to: 3 } } } },
});
const refused = await rules.applyMove({ game: "valhalla", state, move: ship }).then(
  () => undefined,
  (err: unknown) => errorInfo(err)?.reason,
);
if (refused !== "CAST_FIRST") throw new Error(\`an illegal move was answered with \${refused}\`);
console.log(\`npm tarball: \${games.length} games started over Connect; an illegal move refused with \${refused}\`);
EOF
node "$repo/clients/typescript/node_modules/typescript/bin/tsc" -p tsconfig.json
node smoke.js

echo "-- stopping the installed server"
kill -TERM "$server" && wait "$server"
server=""
echo "packages work when installed"
