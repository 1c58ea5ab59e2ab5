#!/usr/bin/env bash
# Benchmark of deferral-host serve: records/s with 8 clients (group commit) against bare SQLite
# one-row commits (synchronous=FULL) on the same disk in the same run, and a legitimate
# request's latency while 500 connections trickle bytes. Prints one JSON document on stdout.
# Extra arguments go to the program, e.g. `bench/host/serve.sh --records 2000`.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet --release -p deferral-host --bin deferral-host --example serve_bench
exec "${CARGO_TARGET_DIR:-target}/release/examples/serve_bench" --dir bench/host "$@"
