#!/usr/bin/env bash
# The store's growth per 10,000 ended deferrals and what `prune` gives back, on SQLite and, with
# DEFERRAL_TEST_POSTGRES_URL set (or --postgres URL), PostgreSQL (issue 34, item 7). Prints one
# JSON document on stdout (progress on stderr). Source: host/examples/retention_bench.rs.
#
#   bench/host/retention.sh [--debug] [--deferrals 10000] [--postgres URL]
#
# A release build unless --debug (the bytes are the same either way; the times are not).
set -euo pipefail
cd "$(dirname "$0")/../.."
profile=release
cargo_profile=(--release)
args=()
for a in "$@"; do
  case "$a" in
    --debug) profile=debug; cargo_profile=() ;;
    *) args+=("$a") ;;
  esac
done
cargo build --quiet "${cargo_profile[@]}" -p deferral-host --example retention_bench
# The SQLite file lives in a temporary folder, removed after.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"${CARGO_TARGET_DIR:-target}/$profile/examples/retention_bench" --dir "$dir" "${args[@]}"
