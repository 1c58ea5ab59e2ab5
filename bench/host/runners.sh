#!/usr/bin/env bash
# Benchmark of one admission across runners (issue 19 item 4): waves of N concurrent
# `deferral gate` processes over one pool of the real `deferral-host serve`, side by side with
# the same waves without a pool. Prints one JSON document on stdout (progress on stderr).
# Source: bench/host/runners.mjs (and tests/support/concurrent-gates.mjs).
#
#   bench/host/runners.sh [--gates 12,24] [--waves 5] [--remaining 1200] [--cost 100]
#
# Uses the committed dist/ and a debug build of deferral-host (built here if missing), as the
# Node tests do.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet -p deferral-host --bin deferral-host
exec node bench/host/runners.mjs "$@"
