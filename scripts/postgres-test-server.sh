#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server on loopback for the tests, and stops it.
#   source scripts/postgres-test-server.sh start   -> exports DEFERRAL_TEST_POSTGRES_URL
#   postgres_test_server_stop                      -> stops it and removes its files
# Uses the Debian package's binaries (postgresql); as root, the server runs as user postgres.
postgres_test_server_start() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "PostgreSQL server binaries not found (Debian package postgresql); .ci/run installs them" >&2
    return 1
  fi
  PG_TEST_DIR=$(mktemp -d /tmp/deferral-pg.XXXXXX)
  local run=()
  if [ "$(id -u)" = 0 ]; then
    chown postgres "$PG_TEST_DIR"
    run=(runuser -u postgres --)
  fi
  # A free loopback port, so a server left behind by a killed run cannot collide with this one.
  PG_TEST_PORT=${PG_TEST_PORT:-$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}
  "${run[@]}" "$bin/initdb" -D "$PG_TEST_DIR/data" -A trust -U deferral --no-sync >/dev/null
  "${run[@]}" "$bin/pg_ctl" -D "$PG_TEST_DIR/data" -l "$PG_TEST_DIR/server.log" -w \
    -o "-p $PG_TEST_PORT -k $PG_TEST_DIR -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
  PG_TEST_BIN=$bin
  PG_TEST_RUN=("${run[@]}")
  export DEFERRAL_TEST_POSTGRES_URL="postgres://deferral@127.0.0.1:$PG_TEST_PORT/postgres"
  echo "PostgreSQL test server on 127.0.0.1:$PG_TEST_PORT ($($bin/postgres --version))"
}

postgres_test_server_stop() {
  [ -n "${PG_TEST_DIR:-}" ] || return 0
  "${PG_TEST_RUN[@]}" "$PG_TEST_BIN/pg_ctl" -D "$PG_TEST_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$PG_TEST_DIR"
  unset PG_TEST_DIR
}

if [ "${1:-}" = start ]; then
  postgres_test_server_start
fi
