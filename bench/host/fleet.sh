#!/usr/bin/env bash
# The fleet benchmark (issue 26 item 7): 200 jobs in 4 pools, work that prints its own last
# line, another program spending part of one pool's windows, two tickers at once on one
# PostgreSQL store (a throwaway server on loopback). Prints one JSON document on stdout.
# Source: host/examples/fleet_bench.rs, host/conformance/src/fleet.rs.
#
#   bench/host/fleet.sh [--tickers N]
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet -p deferral-host --bin deferral-host --example fleet_bench
# shellcheck source=scripts/postgres-test-server.sh
source scripts/postgres-test-server.sh
postgres_test_server_start >&2
trap postgres_test_server_stop EXIT
schema="fleet_$$"
psql "$DEFERRAL_TEST_POSTGRES_URL" -q -c "CREATE SCHEMA $schema" >&2
target/debug/examples/fleet_bench --bin target/debug/deferral-host \
  --store "$DEFERRAL_TEST_POSTGRES_URL?options=-c%20search_path%3D$schema" "$@"
