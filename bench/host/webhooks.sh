#!/usr/bin/env bash
# Benchmark of GitHub's webhooks against polling: GitHub requests per followed run (counted by
# the loopback stand-in of the tests) with `tick` polling every minute, and with the real
# `serve --github-webhook-secret-file` taking one signed delivery per run while
# `tick --follow-interval 10m` keeps running. Prints one JSON document on stdout. Extra
# arguments go to the program, e.g. `bench/host/webhooks.sh --looks 10`.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet --release -p deferral-host --bin deferral-host --example webhook_bench
exec "${CARGO_TARGET_DIR:-target}/release/examples/webhook_bench" --dir bench/host "$@"
