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
  # PostgreSQL cannot listen on port 0, so the port is picked, released and then bound by the
  # server: if something else took it in between, the start fails and another port is tried.
  local pick_port=0
  [ -z "${PG_TEST_PORT:-}" ] && pick_port=1
  free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
  [ "$pick_port" = 1 ] && PG_TEST_PORT=$(free_port)
  "${run[@]}" "$bin/initdb" -D "$PG_TEST_DIR/data" -A trust -U deferral --no-sync >/dev/null
  # TLS as well as plain connections, with a throwaway CA whose server certificate names
  # 127.0.0.1 only (the TLS tests also check that "localhost" is refused by verify-full).
  local ssl=()
  if command -v openssl >/dev/null; then
    local tls="$PG_TEST_DIR/tls"
    mkdir -p "$tls"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=deferral test CA" \
      -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
      -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\n' > "$tls/ext"
    openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" \
      -CAcreateserial -days 2 -extfile "$tls/ext" -out "$tls/server.pem" 2>/dev/null
    chmod 600 "$tls/server.key"
    [ "$(id -u)" = 0 ] && chown -R postgres "$tls"
    ssl=(-c ssl=on -c "ssl_cert_file=$tls/server.pem" -c "ssl_key_file=$tls/server.key")
    export DEFERRAL_TEST_POSTGRES_CA="$tls/ca.pem"
  fi
  local attempt
  for attempt in 1 2 3 4 5; do
    if "${run[@]}" "$bin/pg_ctl" -D "$PG_TEST_DIR/data" -l "$PG_TEST_DIR/server.log" -w \
      -o "-p $PG_TEST_PORT -k $PG_TEST_DIR -c listen_addresses=127.0.0.1 -c fsync=off ${ssl[*]}" start >/dev/null; then
      break
    fi
    if [ "$pick_port" = 0 ] || [ "$attempt" = 5 ]; then
      echo "PostgreSQL test server did not start on 127.0.0.1:$PG_TEST_PORT; see $PG_TEST_DIR/server.log" >&2
      return 1
    fi
    PG_TEST_PORT=$(free_port)
  done
  PG_TEST_BIN=$bin
  PG_TEST_RUN=("${run[@]}")
  export DEFERRAL_TEST_POSTGRES_URL="postgres://deferral@127.0.0.1:$PG_TEST_PORT/postgres"
  echo "PostgreSQL test server on 127.0.0.1:$PG_TEST_PORT ($($bin/postgres --version))"
}

postgres_test_server_stop() {
  [ -n "${PG_TEST_DIR:-}" ] || return 0
  "${PG_TEST_RUN[@]}" "$PG_TEST_BIN/pg_ctl" -D "$PG_TEST_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$PG_TEST_DIR"
  unset PG_TEST_DIR DEFERRAL_TEST_POSTGRES_CA
}

if [ "${1:-}" = start ]; then
  postgres_test_server_start
fi
