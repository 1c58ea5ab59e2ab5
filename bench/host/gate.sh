#!/usr/bin/env bash
# Benchmark of the environment gate: 24 jobs waiting behind one environment gate over one quota
# where 4 fit a window, approved by the real `deferral-host run` through the callback of the
# GitHub stand-in on loopback; one run on SQLite, and two replicas on PostgreSQL when
# DEFERRAL_TEST_POSTGRES_URL is set (or --postgres URL). Prints one JSON document on stdout
# (progress on stderr). Source: host/examples/gate_bench.rs.
#
#   bench/host/gate.sh [--debug] [--jobs 24] [--postgres URL]
#
# A release build unless --debug.
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
cargo build --quiet "${cargo_profile[@]}" -p deferral-host --bin deferral-host --example gate_bench
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"${CARGO_TARGET_DIR:-target}/$profile/examples/gate_bench" --dir "$dir" "${args[@]}"
