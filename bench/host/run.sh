#!/usr/bin/env bash
# Benchmark of deferral-host: record throughput (full durability) and the time tick needs to
# find due deferrals among 10^4, 10^5 and 10^6 stored. Prints one JSON document on stdout.
# Extra arguments go to the program, e.g. `bench/host/run.sh --sizes 10000,100000`.
# The 10^6 case bulk-loads a ~0.3 GB SQLite file in a temporary folder here (removed after).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec cargo run --quiet --release -p deferral-host --example bench -- --dir bench/host "$@"
