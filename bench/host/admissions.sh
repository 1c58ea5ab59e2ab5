#!/usr/bin/env bash
# Benchmark of one admission across runners (issue 19): twelve clients through serve over one
# pool (SQLite and PostgreSQL), and three tickers at once on one PostgreSQL store over one pool
# with a backlog, each beside its baseline in the same run. Prints one JSON document on stdout
# (progress on stderr). Source: host/examples/admissions_bench.rs.
#
#   bench/host/admissions.sh [--rounds 10] [--jobs 24,48]
#
# PostgreSQL: DEFERRAL_TEST_POSTGRES_URL if set, else a throwaway server started here
# (scripts/postgres-test-server.sh, the Debian package's binaries) and stopped after.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet --release -p deferral-host --bin deferral-host --example admissions_bench
target="${CARGO_TARGET_DIR:-target}/release"
if [ -z "${DEFERRAL_TEST_POSTGRES_URL:-}" ]; then
  # shellcheck source=../../scripts/postgres-test-server.sh
  source scripts/postgres-test-server.sh
  postgres_test_server_start >&2
  trap postgres_test_server_stop EXIT
fi
"$target/examples/admissions_bench" --bin "$target/deferral-host" \
  --postgres "$DEFERRAL_TEST_POSTGRES_URL" --dir bench/host "$@"
