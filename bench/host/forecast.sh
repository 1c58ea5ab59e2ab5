#!/usr/bin/env bash
# Benchmark of the reads that forecast a pool (the record answer, GET /v1/pools,
# GET /v1/deferrals/ID, the status page, /metrics) on deferral-host serve: a small pool (the
# baseline) and one with a 3-second learned window (the shortest the ledger learns), a deferral 30 days away and 10,000 fairness
# keys, in the same run. Prints one JSON document on stdout. Source: host/examples/forecast_bench.rs.
#
#   bench/host/forecast.sh [--requests 20] [--keys 10000] [--bin OTHER/deferral-host]
#
# PROFILE=dev builds and runs the debug build instead of the release one.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${PROFILE:-release}" = dev ]; then
  cargo build --quiet -p deferral-host --bin deferral-host --example forecast_bench
  out=debug
else
  cargo build --quiet --release -p deferral-host --bin deferral-host --example forecast_bench
  out=release
fi
exec "${CARGO_TARGET_DIR:-target}/$out/examples/forecast_bench" --dir bench/host "$@"
