#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on 127.0.0.1 for tests and benchmarks.
#   scripts/pg-test-cluster.sh start [NAME=VALUE …] → prints `DATABASE_URL=postgres://postgres@127.0.0.1:PORT/postgres`
#                                        and `PGTEST_DIR=DIR` (the cluster's folder); each NAME=VALUE
#                                        is a server setting (`-c`), e.g. shared_preload_libraries=pg_stat_statements
#   scripts/pg-test-cluster.sh stop DIR → stops that cluster and removes its folder
# Trust authentication on loopback only; nothing survives `stop`.
set -euo pipefail

bindir() {
  local initdb
  initdb=$(ls -1 /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$initdb" ] || { echo "pg-test-cluster: PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb); apt-get install postgresql" >&2; exit 2; }
  dirname "$initdb"
}

# As root the server must run as the postgres user; otherwise as whoever we are.
as_owner() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

case "${1:-}" in
  start)
    shift
    settings=''
    for setting in "$@"; do
      [[ "$setting" =~ ^[a-z_.]+=[A-Za-z0-9_.,]+$ ]] || { echo "pg-test-cluster: not a NAME=VALUE setting: $setting" >&2; exit 64; }
      settings+=" -c $setting"
    done
    bin=$(bindir)
    dir=$(mktemp -d "${TMPDIR:-/tmp}/pg-test-XXXXXX")
    chmod 700 "$dir"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    as_owner "'$bin/initdb' -D '$dir/data' -U postgres -A trust --no-sync -E UTF8 --locale=C" >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    for attempt in 1 2 3; do
      port=$(free_port)
      if as_owner "'$bin/pg_ctl' -D '$dir/data' -l '$dir/log' -w -t 30 \
          -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=on$settings\" start" >/dev/null 2>&1; then
        echo "DATABASE_URL=postgres://postgres@127.0.0.1:$port/postgres"
        echo "PGTEST_DIR=$dir"
        exit 0
      fi
    done
    cat "$dir/log" >&2 || true
    exit 1
    ;;
  stop)
    dir=${2:?usage: pg-test-cluster.sh stop DIR}
    case "$dir" in */pg-test-*) ;; *) echo "pg-test-cluster: refusing to remove $dir" >&2; exit 1 ;; esac
    bin=$(bindir)
    as_owner "'$bin/pg_ctl' -D '$dir/data' -m immediate -w stop" >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start | stop DIR" >&2
    exit 64
    ;;
esac
