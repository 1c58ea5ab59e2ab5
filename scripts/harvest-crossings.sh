#!/usr/bin/env bash
# Harvests the crossings into the core that the Node suite makes, for the vector writers
# (scripts/library-vectors.mjs, scripts/run-vectors.mjs): in a throwaway copy of HEAD,
# shared/wasm.js also appends each `library` input to LIBRARY.jsonl and each `run` crossing (its
# input and the files' bytes, base64) to RUN.jsonl, from every process the tests start; dist/'s JS is assembled again from that copy
# (the wasm is dist/'s, unchanged) and the Node tests run there. Nothing in this tree changes.
# Usage: bash scripts/harvest-crossings.sh LIBRARY.jsonl RUN.jsonl [TEST_FILE...]
#   (needs npm ci and a built host for the port tests; a few minutes; default: every Node test)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
[ $# -ge 2 ] || { echo "usage: bash scripts/harvest-crossings.sh LIBRARY.jsonl RUN.jsonl [TEST_FILE...]" >&2; exit 2; }
LIBRARY_OUT=$(realpath -m "$1")
RUN_OUT=$(realpath -m "$2")
shift 2
COPY=$(mktemp -d)
trap 'git -C "$ROOT" worktree remove --force "$COPY" >/dev/null 2>&1 || rm -rf "$COPY"' EXIT
git worktree add -q --detach "$COPY" HEAD
cd "$COPY"
ln -s "$ROOT/node_modules" node_modules
[ -d "$ROOT/target" ] && ln -s "$ROOT/target" target   # the host binary the port tests start
LIBRARY_OUT=$LIBRARY_OUT RUN_OUT=$RUN_OUT node - <<'JS'
const fs = require('node:fs');
let text = fs.readFileSync('shared/wasm.js', 'utf8');
const swap = (from, to) => {
  if (!text.includes(from)) throw new Error(`shared/wasm.js has no ${JSON.stringify(from)}: update scripts/harvest-crossings.sh`);
  text = text.replace(from, to);
};
// The files' paths are written into the copy (not passed in the environment): the tests start
// the Action and the CLI with environments of their own.
const to = { DEFERRAL_HARVEST_LIBRARY: process.env.LIBRARY_OUT, DEFERRAL_HARVEST_RUN: process.env.RUN_OUT };
const keep = `const harvestTo = ${JSON.stringify(to)};\nconst harvest = (name, line) => builtin('node:fs').appendFileSync(harvestTo[name], \`\${line}\\n\`);\n`;
swap("const trace = process.env.DEFERRAL_TRACE_CORE === '1';", `${keep}const trace = process.env.DEFERRAL_TRACE_CORE === '1';`);
swap("  return cross(name, typeof input === 'string' ? input : JSON.stringify(input));",
  "  if (name === 'library') harvest('DEFERRAL_HARVEST_LIBRARY', typeof input === 'string' ? input : JSON.stringify(input));\n  return cross(name, typeof input === 'string' ? input : JSON.stringify(input));");
swap("  return cross('run', input, files);",
  "  harvest('DEFERRAL_HARVEST_RUN', JSON.stringify({ input, files: Buffer.from(files).toString('base64') }));\n  return cross('run', input, files);");
fs.writeFileSync('shared/wasm.js', text);
JS
# dist/'s JS as scripts/build-dist.sh assembles it, over HEAD's wasm.
cp shared/*.js dist/lib/
(cd action && find . -name '*.js' -print0 | sort -z | xargs -0 -I{} cp --parents {} ../dist/)
node --input-type=module -e '
import { build, buildSync } from "esbuild";
buildSync({ entryPoints: ["dist/main.js"], outfile: "dist/main.js", allowOverwrite: true, bundle: true, format: "esm",
  platform: "node", target: "node20", define: { DEFERRAL_WASM_DIR: "\"./wasm/\"" }, logLevel: "warning" });
const glue = { name: "wasm-glue", setup(b) {
  b.onResolve({ filter: /\/wasm\/deferral_wasm\.js$/ }, () => ({ path: `${process.cwd()}/dist/wasm/deferral_wasm.js` }));
} };
await build({ entryPoints: ["library/index.js", "library/octokit/index.js"], outdir: "dist/lib",
  outbase: "library", bundle: true, splitting: true, format: "esm", platform: "node", target: "node20",
  chunkNames: "[name]-[hash]", define: { DEFERRAL_WASM_DIR: "\"../wasm/\"" }, plugins: [glue], logLevel: "warning" });'
rm -f "$LIBRARY_OUT" "$RUN_OUT"
[ $# -gt 0 ] || set -- tests/node/*.test.mjs
# A test that fails in the copy (one that checks dist/ is built from HEAD) harvests all the same.
node --test "$@" > "$COPY/node-test.log" 2>&1 || grep -E '^# (pass|fail)' "$COPY/node-test.log" >&2
echo "$LIBRARY_OUT $RUN_OUT"
