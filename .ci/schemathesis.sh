#!/usr/bin/env bash
# schemathesis against a live server (REST, sessions in Redis), in two runs:
# 1. every check but positive_data_acceptance, with no hooks: a request the OpenAPI document forbids
#    is refused, every answer is one the document describes, no server error;
# 2. positive_data_acceptance, with .ci/schemathesis_hooks.py: every request the document allows is
#    answered, except for the refusals JSON Schema cannot express (listed, by reason, in the hooks),
#    and the sessions the run creates are played with their seat tokens.
# Bounded (a fixed seed, SCHEMATHESIS_EXAMPLES test cases per operation). Installs nothing: needs
# .venv with the dev extra and Redis at 127.0.0.1:6379. Exits non-zero on any failure, and prints
# the refusals the second run allowed, counted by reason.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work="$(mktemp -d)"
prefix="lawspeaker-schemathesis-$$-$(date +%s)"  # this run's keys in the shared Redis
server=""

cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  if command -v redis-cli >/dev/null; then
    redis-cli -h 127.0.0.1 -p 6379 --scan --pattern "$prefix:*" | xargs -r redis-cli -h 127.0.0.1 -p 6379 del >/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# Free ports: the server binds port 0 and prints the ones it got. No quotas, so that CreateSession is
# not answered 429 (documented, but it would stop the sessions the run goes on to test).
.venv/bin/lawspeaker serve --host 127.0.0.1 --http-port 0 --grpc-port 0 \
  --redis-url redis://127.0.0.1:6379/0 --redis-prefix "$prefix" --session-ttl 300 \
  --create-rate 0 --max-sessions 0 >"$work/server.log" 2>&1 &
server=$!
port=""
for _ in $(seq 150); do
  port=$(sed -n 's/.*http_port=\([0-9][0-9]*\).*/\1/p' "$work/server.log")
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { echo "the server did not start:"; cat "$work/server.log"; exit 1; }
base="http://127.0.0.1:$port"
.venv/bin/python - "$base/healthz" <<'EOF'
import sys, time, urllib.request
for _ in range(100):
    try:
        if urllib.request.urlopen(sys.argv[1], timeout=1).status == 200:
            sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(f"{sys.argv[1]} did not answer 200")
EOF

status=0
seed="${SCHEMATHESIS_SEED:-1}"
examples="${SCHEMATHESIS_EXAMPLES:-10}"
echo "-- 1. all checks but positive_data_acceptance, no hooks"
(
  cd "$work"  # schemathesis and hypothesis keep their caches in the working directory
  "$root/.venv/bin/schemathesis" --config-file "$root/.ci/schemathesis-plain.toml" run "$base/schema" \
    --checks all --exclude-checks positive_data_acceptance --seed "$seed" --max-examples "$examples" \
    --generation-database none --no-color
) || status=$?
echo "-- 2. positive_data_acceptance, with the hooks"
(
  cd "$work"
  LAWSPEAKER_ALLOWED="$work/allowed.txt" PYTHONPATH="$root/.ci" "$root/.venv/bin/schemathesis" \
    --config-file "$root/.ci/schemathesis.toml" run "$base/schema" \
    --checks positive_data_acceptance,not_a_server_error --mode positive --seed "$seed" \
    --max-examples "$examples" --generation-database none --no-color
) || status=$?

echo "Refusals the second run allowed (schemathesis_hooks.py says why), by check, operation and reason:"
if [ -s "$work/allowed.txt" ]; then sed 's/ at .*//' "$work/allowed.txt" | sort | uniq -c | sort -rn; else echo "  none"; fi
exit "$status"
