#!/usr/bin/env bash
# Benchmark of pools (issue 19): a backlog behind one quota and the tick's cost with many held
# deferrals, each side by side with a host without pools, in the same run. Prints one JSON
# document on stdout (progress on stderr). Source: host/examples/pools_bench.rs.
#
#   bench/host/pools.sh [--release] [--old-bin PATH] [--jobs 24,48] [--sizes 10000,100000]
#
# The host without pools is main's binary: --old-bin PATH, else main is built in a temporary
# worktree (removed after). Debug builds unless --release.
set -euo pipefail
cd "$(dirname "$0")/../.."
profile=debug
cargo_profile=()
old_bin=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --release) profile=release; cargo_profile=(--release) ;;
    --old-bin) old_bin="$2"; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
cargo build --quiet "${cargo_profile[@]}" -p deferral-host --bin deferral-host --example pools_bench
tmp=""
if [ -z "$old_bin" ]; then
  tmp=$(mktemp -d)
  trap 'git worktree remove --force "$tmp/main" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
  git worktree add --quiet --detach "$tmp/main" main
  (cd "$tmp/main" && CARGO_TARGET_DIR="$tmp/target" cargo build --quiet "${cargo_profile[@]}" -p deferral-host --bin deferral-host)
  old_bin="$tmp/target/$profile/deferral-host"
fi
"target/$profile/examples/pools_bench" --new-bin "target/$profile/deferral-host" --old-bin "$old_bin" --dir bench/host "${args[@]}"
