#!/usr/bin/env bash
# Clients generated from clients/openapi.json by the generators integrators reach for, each playing
# against a real `lawspeaker serve` (sessions in the server's memory):
#   openapi-generator (-g python, -g typescript-fetch), openapi-python-client, and
#   openapi-typescript + openapi-fetch;
# the TypeScript programs compiled with tsc --strict, the Python ones checked with mypy --strict;
# the document linted by redocly (recommended rules) and Spectral (spectral:oas). A warning of a
# linter or a generator that lint_expected.json does not list fails the check (clients/README.md
# says why each listed one stays). The commands are those of clients/README.md, run from this
# directory into gen/ (git ignores it). Needs Java, Node.js and npm, and LAWSPEAKER_BIN (default:
# the repository's .venv/bin/lawspeaker); installs the generators in gen/venv and npm packages here.
set -euo pipefail
cd "$(dirname "$0")"
root="$(cd ../.. && pwd)"
lawspeaker="${LAWSPEAKER_BIN:-$root/.venv/bin/lawspeaker}"
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
}
trap cleanup EXIT

# each command below after `logged LOG` is one clients/README.md gives, verbatim; its output goes to LOG
logged() { local log="$1"; shift; "$@" >"$log" 2>&1 || { cat "$log"; return 1; }; }

rm -rf gen build && mkdir -p gen/logs
logged gen/logs/npm.log npm ci
logged gen/logs/venv.log python3 -m venv gen/venv
logged gen/logs/pip.log gen/venv/bin/pip install -r requirements.txt
export PATH="$PWD/gen/venv/bin:$PWD/node_modules/.bin:$PATH"

echo "-- lint: redocly (recommended) and Spectral (spectral:oas)"
# both exit non-zero on a finding: findings.py says which ones lint_expected.json does not list
redocly lint ../openapi.json --config redocly.yaml --format=json >gen/logs/redocly.json 2>gen/logs/redocly.err || true
python3 findings.py redocly gen/logs/redocly.json
spectral lint ../openapi.json --ruleset .spectral.yaml -f json -o gen/logs/spectral.json >gen/logs/spectral.log 2>&1 || true
python3 findings.py spectral gen/logs/spectral.json

echo "-- generate"
logged gen/logs/openapi-generator-python.log openapi-generator-cli generate -i ../openapi.json -c openapi-generator-python.yaml -o gen/python
logged gen/logs/openapi-generator-typescript-fetch.log openapi-generator-cli generate -i ../openapi.json -c openapi-generator-typescript-fetch.yaml -o gen/typescript-fetch
logged gen/logs/openapi-python-client.log openapi-python-client generate --path ../openapi.json --config openapi-python-client.yaml --custom-template-path openapi-python-client-templates --output-path gen/openapi-python-client
logged gen/logs/openapi-typescript.log openapi-typescript ../openapi.json -o gen/openapi-fetch/openapi.ts
python3 findings.py openapi-generator gen/logs/openapi-generator-python.log gen/logs/openapi-generator-typescript-fetch.log
python3 findings.py quiet gen/logs/openapi-python-client.log
python3 findings.py openapi-typescript gen/logs/openapi-typescript.log
echo "   four clients generated, no warning but those lint_expected.json lists"

echo "-- type-check the programs: tsc --strict, mypy --strict"
tsc -p tsconfig.json
MYPYPATH=gen/python:gen/openapi-python-client mypy --strict --follow-imports=silent --no-incremental play_openapi_generator.py play_openapi_python_client.py

echo "-- play against lawspeaker serve, which asks every call for an API key (sessions: a seat token)"
"$lawspeaker" api-key --name generated-clients >gen/logs/api-key.txt
key=$(sed -n 's/^API key[^:]*: //p' gen/logs/api-key.txt)
entry=$(sed -n 's/^configuration entry[^:]*: //p' gen/logs/api-key.txt)
"$lawspeaker" serve --host 127.0.0.1 --http-port 0 --grpc-port 0 --api-keys "$entry" --api-keys-for-rules \
  >gen/logs/server.log 2>&1 &
server=$!
port=""
for _ in $(seq 150); do
  port=$(sed -n 's/.*http_port=\([0-9][0-9]*\).*/\1/p' gen/logs/server.log)
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || { cat gen/logs/server.log; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { echo "the server did not start:"; cat gen/logs/server.log; exit 1; }
base="http://127.0.0.1:$port"
PYTHONPATH=gen/python gen/venv/bin/python play_openapi_generator.py "$base" "$key"
PYTHONPATH=gen/openapi-python-client gen/venv/bin/python play_openapi_python_client.py "$base" "$key"
node build/play_typescript_fetch.js "$base" "$key"
node build/play_openapi_fetch.js "$base" "$key"
echo "generated clients: four generators, every program played its games"
