#!/usr/bin/env bash
# Installs wasm-bindgen-cli at exactly the version wasm/Cargo.toml pins, when it is missing.
# Usage: bash scripts/install-wasm-bindgen.sh   (used by scripts/build-dist.sh and .ci/run)
#
# It installs `--locked`, so the CLI is built from the dependency versions its own release
# recorded. One exception, said aloud: when the registry no longer offers a version that
# lockfile names (seen here: wasm-bindgen-cli 0.2.130 locks webpki-roots 1.0.11, which this
# registry does not carry), cargo cannot honour the lock at all; then it resolves afresh within
# the crate's own version bounds and prints a warning. Any other failure stops the install.
set -euo pipefail
cd "$(dirname "$0")/.."
WB_VERSION=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' wasm/Cargo.toml)
[ -n "$WB_VERSION" ] || { echo "cannot read the pinned wasm-bindgen version from wasm/Cargo.toml" >&2; exit 1; }
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$WB_VERSION" ]; then
  exit 0
fi
echo "installing wasm-bindgen-cli $WB_VERSION --locked (about 3 minutes, once)" >&2
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
if cargo install --locked wasm-bindgen-cli --version "$WB_VERSION" 2>"$LOG"; then
  exit 0
fi
if grep -q 'failed to select a version for the requirement' "$LOG"; then
  grep -m1 'failed to select a version' "$LOG" >&2
  echo "warning: the registry lacks a version wasm-bindgen-cli $WB_VERSION's lockfile names;" \
    "installing it with versions resolved within its own bounds instead" >&2
  cargo install wasm-bindgen-cli --version "$WB_VERSION"
else
  cat "$LOG" >&2
  exit 1
fi
