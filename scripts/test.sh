#!/usr/bin/env bash
# Runs every test of the project: Rust (fmt, clippy, tests), the dist/ freshness check, the Node
# tests against the committed dist/ on Node 20 and 24, workflow lint, and the end-to-end demo.
# Usage: npm test   (the same command .ci/run calls)
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "dist/ is built from these sources"
node scripts/dist-manifest.mjs check

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (native and wasm32), warnings denied"
cargo clippy --quiet --workspace --all-targets -- -D warnings
cargo clippy --quiet -p deferral-core -p deferral-wasm --target wasm32-unknown-unknown -- -D warnings

step "cargo test"
cargo test --quiet --workspace

NODE_TESTS=$(ls tests/node/*.test.mjs)
step "node --test on $(node --version)"
# shellcheck disable=SC2086
node --test $NODE_TESTS

NODE24=$(node scripts/node24.mjs 2>/dev/null || true)
if [ -n "$NODE24" ]; then
  step "node --test on $("$NODE24" --version)"
  # shellcheck disable=SC2086
  "$NODE24" --test $NODE_TESTS
else
  echo "Node 24 is not installed (npm ci installs it); cannot run the Node 24 pass" >&2
  exit 1
fi

if [ -f scripts/demo.sh ]; then
  step "the main job: npm run demo"
  bash scripts/demo.sh
fi
printf '\nall tests passed\n'
