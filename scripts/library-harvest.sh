#!/usr/bin/env bash
# Harvests the library crossings the Node suite makes, for scripts/library-vectors.mjs: in a
# throwaway copy of HEAD, shared/wasm.js's call() also appends every `library` input to a file;
# the library is bundled again from that copy (the wasm is dist/'s, unchanged) and the Node tests
# that import the package run there. Nothing in this tree changes. Prints the harvest's path.
# Usage: bash scripts/library-harvest.sh [OUT.jsonl]   (needs npm ci; about 30 s)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$(realpath -m "${1:-${TMPDIR:-/tmp}/deferral-library-harvest.jsonl}")
COPY=$(mktemp -d)
trap 'git -C "$ROOT" worktree remove --force "$COPY" >/dev/null 2>&1 || rm -rf "$COPY"' EXIT
git worktree add -q --detach "$COPY" HEAD
cd "$COPY"
ln -s "$ROOT/node_modules" node_modules
[ -d "$ROOT/target" ] && ln -s "$ROOT/target" target   # the host binary the port tests start
node - <<'JS'
const fs = require('node:fs');
const text = fs.readFileSync('shared/wasm.js', 'utf8');
const at = "  return cross(name, typeof input === 'string' ? input : JSON.stringify(input));";
if (!text.includes(at)) throw new Error('shared/wasm.js: call() is not as this script expects; update the script');
fs.writeFileSync('shared/wasm.js', text.replace(at, "  if (name === 'library' && process.env.DEFERRAL_HARVEST) builtin('node:fs').appendFileSync(process.env.DEFERRAL_HARVEST, (typeof input === 'string' ? input : JSON.stringify(input)) + '\\n');\n" + at));
JS
node --input-type=module -e '
import { build } from "esbuild";
const glue = { name: "wasm-glue", setup(b) {
  b.onResolve({ filter: /\/wasm\/deferral_wasm\.js$/ }, () => ({ path: `${process.cwd()}/dist/wasm/deferral_wasm.js` }));
} };
await build({ entryPoints: ["library/index.js", "library/octokit/index.js"], outdir: "dist/lib",
  outbase: "library", bundle: true, splitting: true, format: "esm", platform: "node", target: "node20",
  chunkNames: "[name]-[hash]", define: { DEFERRAL_WASM_DIR: "\"../wasm/\"" }, plugins: [glue], logLevel: "warning" });'
rm -f "$OUT"
TESTS=$(grep -l "from 'deferral\(/octokit\)\?'" tests/node/*.test.mjs)
# shellcheck disable=SC2086
DEFERRAL_HARVEST=$OUT node --test $TESTS > "$COPY/node-test.log" || { tail -40 "$COPY/node-test.log" >&2; exit 1; }
echo "$OUT"
