#!/usr/bin/env bash
# Builds dist/ from source: the wasm core (cargo + wasm-bindgen + wasm-opt) and the JS entries.
# Reproducible: the same sources, rustc and wasm-bindgen give byte-identical files.
# Usage: bash scripts/build-dist.sh        (needs the Rust toolchain; installs what is missing)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

say() { printf 'build-dist: %s\n' "$*" >&2; }

# The wasm-bindgen CLI must be exactly the version the crate is pinned to with "=".
WB_VERSION=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' wasm/Cargo.toml)
[ -n "$WB_VERSION" ] || { say "cannot read the pinned wasm-bindgen version from wasm/Cargo.toml"; exit 1; }

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
bash scripts/install-wasm-bindgen.sh
WASM_OPT="$ROOT/node_modules/binaryen/bin/wasm-opt"
[ -x "$WASM_OPT" ] || { say "wasm-opt missing: run 'npm ci' first (binaryen is a devDependency)"; exit 1; }
[ -d node_modules/esbuild ] || { say "esbuild missing: run 'npm ci' first (esbuild is a devDependency)"; exit 1; }

say "compiling deferral-wasm for wasm32-unknown-unknown"
CARGO_HOME_DIR=${CARGO_HOME:-$HOME/.cargo}
RUSTUP_HOME_DIR=${RUSTUP_HOME:-$HOME/.rustup}
# Remap absolute paths so the module does not depend on where it was built.
export RUSTFLAGS="--remap-path-prefix=$ROOT=/deferral --remap-path-prefix=$CARGO_HOME_DIR=/cargo --remap-path-prefix=$RUSTUP_HOME_DIR=/rustup"
cargo build --quiet --locked -p deferral-wasm --profile wasm --target wasm32-unknown-unknown --target-dir target/wasm-build
unset RUSTFLAGS

OUT=target/wasm-build/bindgen
rm -rf "$OUT" && mkdir -p "$OUT"
wasm-bindgen --target web --no-typescript --out-dir "$OUT" \
  target/wasm-build/wasm32-unknown-unknown/wasm/deferral_wasm.wasm

say "assembling dist/"
rm -rf dist && mkdir -p dist/wasm
# Beyond -Oz (about 6 KB less in all): merging functions that differ only in constants (the
# many near-identical serde instances), -Oz repeated until it stops shrinking, and
# --low-memory-unused, which folds constant address offsets: Rust puts the stack first, growing
# down to address 0, so the low 1 KiB is touched only by a stack overflow, already fatal.
"$WASM_OPT" --low-memory-unused --merge-similar-functions -Oz --converge \
  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals -o "$OUT/optimised.wasm" "$OUT/deferral_wasm_bg.wasm"
# Committed deflate-compressed (raw deflate, zlib level 9): less than half the size (dist/ goal:
# 400 KiB), and Node's built-in zlib inflates it in about 1 ms at load (shared/wasm.js), 1 ms
# less than brotli on the same module (BENCHMARKS.md). Fixed parameters keep it reproducible (the
# same bytes from Node 20 and Node 24).
node -e '
const z = require("node:zlib"), fs = require("node:fs");
const [from, to] = process.argv.slice(1);
fs.writeFileSync(to, z.deflateRawSync(fs.readFileSync(from), { level: 9, memLevel: 9, windowBits: 15, strategy: z.constants.Z_DEFAULT_STRATEGY }));
' "$OUT/optimised.wasm" dist/wasm/deferral_wasm_bg.wasm.deflate
cp "$OUT/deferral_wasm.js" dist/wasm/deferral_wasm.js
# JS sources have no runtime dependencies, so they are copied as they are (the CLI and the tests
# load these)...
(cd action && find . -name '*.js' -print0 | sort -z | xargs -0 -I{} cp --parents {} ../dist/)
# The parts the Action and the library share (shared/: the wasm loader, the HTTP client, the
# built-in loader) go into dist/lib/ beside the Action's own: its lib/ files import them as
# ./wasm.js, ./http.js and ./builtin.js, the library as ../shared/ (bundled below).
cp shared/*.js dist/lib/
# ...except the Action's entry, which is one ES module bundled from them: a run then loads one
# file, not twenty (about 5 ms less per run). esbuild is pinned in package.json and deterministic.
# DEFERRAL_WASM_DIR tells lib/wasm.js that its wasm sits in ./wasm/ beside the bundle. The bundle
# keeps the entry's `export { run }` (GitHub's @github/local-action imports it and calls run())
# and its check that Node was started on this file, so the runner's `node dist/main.js` runs once.
node --input-type=module -e '
import { buildSync } from "esbuild";
buildSync({ entryPoints: ["dist/main.js"], outfile: process.argv[1], bundle: true, format: "esm",
  platform: "node", target: "node20", define: { DEFERRAL_WASM_DIR: "\"./wasm/\"" }, logLevel: "warning",
  banner: { js: "// Bundled by scripts/build-dist.sh from action/main.js and what it imports: edit those." } });
' "$OUT/main.js"
mv "$OUT/main.js" dist/main.js
rm -f dist/run.js
# The library's two entries ("deferral", "deferral/octokit") from library/: ES modules sharing
# one chunk, so both load one wasm instance, found in ../wasm/ from dist/lib/.
node --input-type=module -e '
import { build } from "esbuild";
const glue = { name: "wasm-glue", setup(b) {
  b.onResolve({ filter: /\/wasm\/deferral_wasm\.js$/ }, () => ({ path: `${process.cwd()}/dist/wasm/deferral_wasm.js` }));
} };
await build({ entryPoints: ["library/index.js", "library/octokit/index.js"], outdir: "dist/lib",
  outbase: "library", bundle: true, splitting: true, format: "esm", platform: "node", target: "node20",
  chunkNames: "[name]-[hash]", define: { DEFERRAL_WASM_DIR: "\"../wasm/\"" }, plugins: [glue],
  logLevel: "warning", banner: { js: "// Bundled by scripts/build-dist.sh from library/: edit those." } });
'
chmod +x dist/cli.js 2>/dev/null || true
node scripts/dist-manifest.mjs write
say "done: $(du -sk dist | cut -f1) KiB in dist/"
