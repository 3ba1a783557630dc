#!/bin/sh
# Fails if src/gen differs from what `npm run generate` makes from ../../proto (run it and commit).
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npx buf generate -o "$tmp"
if ! diff -r src/gen "$tmp/src/gen" >"$tmp/diff.txt"; then
  cut -c1-160 "$tmp/diff.txt" | head -40
  echo "clients/typescript/src/gen is stale; run \`npm run generate\` in clients/typescript"
  exit 1
fi
echo "clients/typescript/src/gen is current"
