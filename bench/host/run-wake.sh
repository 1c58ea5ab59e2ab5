#!/usr/bin/env bash
# Wake latency of deferral-host run (launch time minus due time: median, p99, max) against a
# once-a-minute cron tick (computed from the same due times, plus a real tick's start-to-launch
# time). Prints one JSON document on stdout. Extra arguments go to the program, e.g.
# `bench/host/run-wake.sh --deferrals 100 --spread-s 20`.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet --release -p deferral-host --bin deferral-host --example run_wake_bench
exec "${CARGO_TARGET_DIR:-target}/release/examples/run_wake_bench" "$@"
