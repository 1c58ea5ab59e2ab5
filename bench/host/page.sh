#!/usr/bin/env bash
# Benchmark of the status page (GET / on deferral-host serve) on a 1,000- and a 50,000-deferral
# store: time per page and the server's peak memory under 16 parallel loads, with ratios to the
# 1,000 store measured in the same run. Prints one JSON document on stdout.
# Extra arguments go to the program, e.g. `bench/host/page.sh --sizes 1000,10000,50000`, or
# `--bin OTHER/deferral-host` to measure another build (before/after).
# PROFILE=dev builds and runs the debug build instead of the release one.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${PROFILE:-release}" = dev ]; then
  cargo build --quiet -p deferral-host --bin deferral-host --example page_bench
  out=debug
else
  cargo build --quiet --release -p deferral-host --bin deferral-host --example page_bench
  out=release
fi
exec "${CARGO_TARGET_DIR:-target}/$out/examples/page_bench" --dir bench/host "$@"
