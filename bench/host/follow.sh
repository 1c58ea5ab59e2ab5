#!/usr/bin/env bash
# Benchmark of deferral-host's GitHub loop against the loopback stand-in of the tests: GitHub
# requests per followed deferral, and the time of the tick that follows 1,000 dispatched
# attempts. Prints one JSON document on stdout. Extra arguments go to the program, e.g.
# `bench/host/follow.sh --attempts 200`.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec cargo run --quiet --release -p deferral-host --example follow_bench -- --dir bench/host "$@"
