#!/usr/bin/env bash
# Generate TypeScript types from clients/openapi.json with openapi-typescript (pinned by
# package-lock.json) in a temporary directory and compile example.ts against them (tsc --noEmit).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$here/tsconfig.json" "$here/example.ts" "$work/"
cd "$work"
npm ci --silent --no-audit --no-fund >/dev/null
npx --no-install openapi-typescript "$here/../openapi.json" -o gen/openapi.ts
npx --no-install tsc --noEmit -p tsconfig.json
echo "openapi-typescript types of clients/openapi.json compile"
