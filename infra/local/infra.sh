#!/usr/bin/env bash
# Local development infrastructure for Cairn, without Docker: a PostgreSQL cluster (pgvector),
# Redis with RediSearch and nats-server with JetStream, data under <project>/.data/.
#
#   infra.sh start    start what is not running yet (idempotent), create database "cairn"
#   infra.sh stop     stop what is running
#   infra.sh status   state and URL of each part; exit 0 only when all are up
#   infra.sh reset    stop, delete all local data, start fresh
#   infra.sh credentials  write the bus credentials again (keys kept, permissions from the
#                     current catalog) and have a running nats-server reload them
#
# Ports: CAIRN_PG_PORT (55432), CAIRN_REDIS_PORT (56379), CAIRN_NATS_PORT (54222).
# Binaries: CAIRN_PG_BIN_DIR, CAIRN_REDIS_SERVER, CAIRN_REDISEARCH_MODULE, CAIRN_NATS_SERVER
# (default .tools/nats-server-2.10/nats-server, which install-packages.sh puts there: Debian
# 12's own nats-server is 2.9, which cannot fsync every write).
# NATS requires credentials: an nkey per service and one for the operator (the CLI), written
# under .data/nats-auth/ by services/lib/bus/src/write-bus-auth.ts (Node, the installed deps).
# As root, PostgreSQL runs as the `postgres` user (it refuses root); as anyone else it runs
# as that user. Redis and NATS run as the invoking user.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
data="$root/.data"
logs="$data/logs"

pg_port="${CAIRN_PG_PORT:-55432}"
redis_port="${CAIRN_REDIS_PORT:-56379}"
nats_port="${CAIRN_NATS_PORT:-54222}"
host=127.0.0.1
pg_db=cairn
pg_user=postgres

if [ -t 2 ]; then tag=$'\033[1m[cairn]\033[0m'; else tag='[cairn]'; fi
log() { printf '%s %s\n' "$tag" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ---------------------------------------------------------------- binaries

find_pg_bin() {
  if [ -n "${CAIRN_PG_BIN_DIR:-}" ]; then echo "$CAIRN_PG_BIN_DIR"; return; fi
  local major="${CAIRN_PG_MAJOR:-15}"
  if [ -x "/usr/lib/postgresql/$major/bin/postgres" ]; then echo "/usr/lib/postgresql/$major/bin"; return; fi
  local newest
  newest="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)"
  if [ -n "$newest" ] && [ -x "$newest/postgres" ]; then echo "$newest"; return; fi
  if command -v pg_config >/dev/null && [ -x "$(pg_config --bindir)/postgres" ]; then pg_config --bindir; return; fi
  if command -v pg_ctl >/dev/null; then dirname "$(command -v pg_ctl)"; return; fi
  echo ""
}

pg_bin="$(find_pg_bin)"
redis_server="${CAIRN_REDIS_SERVER:-$(command -v redis-server || echo /usr/bin/redis-server)}"
redisearch="${CAIRN_REDISEARCH_MODULE:-/usr/lib/redis/modules/redisearch.so}"
nats_server="${CAIRN_NATS_SERVER:-$root/.tools/nats-server-2.10/nats-server}"

is_root() { [ "$(id -u)" = 0 ]; }

# Runs a PostgreSQL tool as the account that owns the cluster.
as_pg() {
  if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}

# ---------------------------------------------------------------- probes

# Sends a line (if any) to host:port and prints the first line of the answer; empty on failure.
tcp_ask() {
  (
    exec 3<>"/dev/tcp/$host/$1" || exit 0
    if [ -n "$2" ]; then printf '%s\r\n' "$2" >&3; fi
    IFS= read -r -t 2 line <&3 && printf '%s' "${line%$'\r'}"
  ) 2>/dev/null || true
}

port_open() { (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null; }

# A killed server stays a zombie until its parent (init) reaps it: that is not "running".
process_alive() {
  local pid="$1" state
  kill -0 "$pid" 2>/dev/null || return 1
  [ -r "/proc/$pid/stat" ] || return 0
  state="$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)"
  [ "$state" != Z ] && [ "$state" != X ]
}

pid_alive() {
  local file="$1" pid
  [ -f "$file" ] || return 1
  pid="$(head -n1 "$file" 2>/dev/null | tr -d '[:space:]')"
  [ -n "$pid" ] && process_alive "$pid"
}

wait_until() {
  local seconds="$1"; shift
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.1
  done
}

log_tail() { [ -f "$1" ] && tail -n 15 "$1" | sed 's/^/    /' >&2 || true; }

# ---------------------------------------------------------------- postgres

pg_url() { echo "postgres://$pg_user@$host:$pg_port/$pg_db"; }
pg_fallback_dir() { echo "/var/tmp/cairn-$(printf '%s' "$root" | sha1sum | cut -c1-12)/postgres"; }

# The cluster lives in .data/postgres, unless the postgres user cannot reach the project dir
# (a home dir with mode 700, say): then in a dir it can write, outside the project.
pg_data_dir() {
  if [ -f "$data/postgres/PG_VERSION" ]; then echo "$data/postgres"; return; fi
  local fallback; fallback="$(pg_fallback_dir)"
  if [ -f "$fallback/PG_VERSION" ]; then echo "$fallback"; return; fi
  echo ""
}

pg_log_file() {
  if [ "$1" = "$data/postgres" ]; then echo "$logs/postgres.log"; else echo "$1.log"; fi
}

pg_running() {
  local dir; dir="$(pg_data_dir)"
  [ -n "$dir" ] && pid_alive "$dir/postmaster.pid"
}

pg_ready() { "$pg_bin/pg_isready" -q -h "$host" -p "$pg_port" -d postgres -U "$pg_user" >/dev/null 2>&1; }

pg_psql() { "$pg_bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$pg_port" -U "$pg_user" "$@"; }

pg_choose_dir() {
  local dir="$data/postgres"
  mkdir -p "$dir"
  if is_root; then
    chown postgres:postgres "$dir"
    if runuser -u postgres -- test -w "$dir" -a -x "$dir"; then echo "$dir"; return; fi
    rmdir "$dir" 2>/dev/null || true
    dir="$(pg_fallback_dir)"
    mkdir -p "$dir"
    chown postgres:postgres "$dir" "$(dirname "$dir")"
    log "postgres cannot write under $root; keeping its cluster in $dir"
  fi
  echo "$dir"
}

pg_start() {
  [ -n "$pg_bin" ] && [ -x "$pg_bin/postgres" ] || die "PostgreSQL binaries not found; set CAIRN_PG_BIN_DIR (or run infra/local/install-packages.sh)"
  if is_root; then id postgres >/dev/null 2>&1 || die "running as root needs a 'postgres' user to run PostgreSQL"; fi
  if pg_running; then
    log "postgres already running on $pg_port"
  else
    local dir; dir="$(pg_data_dir)"
    if [ -z "$dir" ]; then
      dir="$(pg_choose_dir)"
      log "postgres: initdb in $dir"
      local init_log; init_log="$(pg_log_file "$dir")"
      mkdir -p "$(dirname "$init_log")"
      touch "$init_log"
      is_root && chown postgres:postgres "$init_log"
      if ! as_pg "$pg_bin/initdb" -D "$dir" -U "$pg_user" -A trust -E UTF8 --locale=C >>"$init_log" 2>&1; then
        log_tail "$init_log"
        die "initdb failed (log: $init_log)"
      fi
      # TCP on 127.0.0.1 only, no unix socket: nothing to own under /var/run, same URL for everyone.
      cat >>"$dir/postgresql.conf" <<EOF

# --- cairn local development (infra/local/infra.sh)
listen_addresses = '$host'
unix_socket_directories = ''
max_connections = 200
shared_buffers = 128MB
EOF
    fi
    port_open "$pg_port" && die "port $pg_port is taken by another process; set CAIRN_PG_PORT"
    # After a crash the old postmaster may linger as a zombie until init reaps it, and
    # postgres refuses to start while the pid in postmaster.pid exists at all.
    local stale
    stale="$(head -n1 "$dir/postmaster.pid" 2>/dev/null | tr -d '[:space:]' || true)"
    if [ -n "$stale" ] && ! wait_until 15 eval "! kill -0 $stale 2>/dev/null"; then
      die "the previous postmaster (pid $stale) has not gone away; stop it first"
    fi
    local logfile; logfile="$(pg_log_file "$dir")"
    touch "$logfile"
    is_root && chown postgres:postgres "$logfile"
    log "starting postgres on $pg_port"
    if ! as_pg "$pg_bin/pg_ctl" -D "$dir" -l "$logfile" -o "-p $pg_port" -w -t 60 start >>"$logfile" 2>&1; then
      log_tail "$logfile"
      die "postgres did not start (log: $logfile)"
    fi
  fi
  wait_until 30 pg_ready || die "postgres does not accept connections on $pg_port"
  if [ -z "$(pg_psql -d postgres -tAc "select 1 from pg_database where datname = '$pg_db'")" ]; then
    log "creating database $pg_db"
    pg_psql -d postgres -c "create database $pg_db" >/dev/null
  fi
  # Check that pgvector loads without installing it: migrations own `create extension`.
  if ! pg_psql -d "$pg_db" -c "begin; create extension if not exists vector; select '[1,2]'::vector; rollback;" >/dev/null 2>&1; then
    log "warning: pgvector is not available in $pg_bin (run infra/local/install-packages.sh)"
  fi
}

pg_stop() {
  if pg_running; then
    log "stopping postgres"
    as_pg "$pg_bin/pg_ctl" -D "$(pg_data_dir)" -m fast -w -t 60 stop >/dev/null 2>&1 || die "pg_ctl stop failed"
  else
    log "postgres not running"
  fi
}

pg_status() {
  local dir; dir="$(pg_data_dir)"
  if pg_running && pg_ready; then
    printf '%s postgres  up    %s  (data %s)\n' "$tag" "$(pg_url)" "$dir"
    return 0
  fi
  printf '%s postgres  down  %s  (data %s)\n' "$tag" "$(pg_url)" "${dir:-not initialised}"
  return 1
}

# ---------------------------------------------------------------- redis

redis_dir="$data/redis"
redis_pidfile="$redis_dir/redis.pid"
redis_log="$logs/redis.log"
redis_url() { echo "redis://$host:$redis_port"; }
redis_running() { pid_alive "$redis_pidfile"; }
redis_ready() { [ "$(tcp_ask "$redis_port" PING)" = "+PONG" ]; }

redis_start() {
  if redis_running; then
    log "redis already running on $redis_port"
    return 0
  fi
  [ -x "$redis_server" ] || die "redis-server not found; set CAIRN_REDIS_SERVER"
  [ -f "$redisearch" ] || die "RediSearch module not found at $redisearch; set CAIRN_REDISEARCH_MODULE"
  port_open "$redis_port" && die "port $redis_port is taken by another process; set CAIRN_REDIS_PORT"
  mkdir -p "$redis_dir" "$logs"
  log "starting redis on $redis_port"
  # A query that runs out of time fails (the service answers 503) instead of answering with
  # the matches found so far, the module's default. SAFEMODE and NOGC: a query holds the lock
  # while it runs, and no garbage collector cleans the index meanwhile; either made a query
  # miss now and then a memory that had not changed (see README, *Outages*).
  "$redis_server" --port "$redis_port" --bind "$host" --dir "$redis_dir" \
    --daemonize yes --pidfile "$redis_pidfile" --logfile "$redis_log" \
    --appendonly yes --loadmodule "$redisearch" TIMEOUT 5000 ON_TIMEOUT FAIL SAFEMODE NOGC >/dev/null
  if ! wait_until 15 redis_ready; then
    log_tail "$redis_log"
    die "redis did not start (log: $redis_log)"
  fi
}

stop_by_pidfile() {
  local name="$1" pidfile="$2" pid
  if ! pid_alive "$pidfile"; then
    log "$name not running"
    rm -f "$pidfile"
    return 0
  fi
  pid="$(head -n1 "$pidfile" | tr -d '[:space:]')"
  log "stopping $name"
  kill -TERM "$pid"
  if ! wait_until 30 eval "! process_alive $pid"; then
    log "$name did not stop in 30 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

redis_stop() { stop_by_pidfile redis "$redis_pidfile"; }

redis_status() {
  if redis_running && redis_ready; then
    printf '%s redis     up    %s  (data %s)\n' "$tag" "$(redis_url)" "$redis_dir"
    return 0
  fi
  printf '%s redis     down  %s  (data %s)\n' "$tag" "$(redis_url)" "$redis_dir"
  return 1
}

# ---------------------------------------------------------------- nats

nats_dir="$data/nats"
nats_auth_dir="$data/nats-auth"
nats_conf="$data/nats.conf"
nats_pidfile="$data/nats.pid"
nats_log="$logs/nats.log"
nats_url() { echo "nats://$host:$nats_port"; }
nats_running() { pid_alive "$nats_pidfile"; }
nats_ready() { [[ "$(tcp_ask "$nats_port" "")" == INFO* ]]; }

# JetStream's `sync_interval: always` (fsync before every acknowledgement) needs 2.10 or later.
nats_check_version() {
  local version
  version="$("$nats_server" --version 2>/dev/null | sed -nE 's/^nats-server: v([0-9]+\.[0-9]+\.[0-9]+).*/\1/p')"
  [ -n "$version" ] || die "$nats_server does not report a nats-server version; set CAIRN_NATS_SERVER"
  printf '2.10.0\n%s\n' "$version" | sort -V -C \
    || die "$nats_server is nats-server $version; Cairn needs 2.10 or later (run bash infra/local/install-packages.sh)"
}

# The permissions are derived from the TypeScript RPC catalog, so Node writes them: the
# project's Node 24 in .tools/ (scripts/toolchain.sh) or one on PATH.
node_bin() {
  local tools
  tools="$(ls -d "$root"/.tools/node-*/bin/node 2>/dev/null | sort -V | tail -n1 || true)"
  if [ -n "$tools" ]; then echo "$tools"; else command -v node || true; fi
}

# A seed per bus identity (kept once made) and the authorization block nats.conf includes;
# cli.env makes `pnpm cairn` connect as the operator.
bus_credentials_write() {
  local node; node="$(node_bin)"
  [ -n "$node" ] || die "node not found to write the bus credentials; run ./scripts/start (it installs Node 24 into .tools/)"
  [ -d "$root/services/lib/bus/node_modules/@nats-io" ] \
    || die "the dependencies are not installed; run ./scripts/start (or pnpm install) first"
  "$node" "$root/services/lib/bus/src/write-bus-auth.ts" "$nats_auth_dir" \
    || die "writing the bus credentials in $nats_auth_dir failed"
  (
    umask 077
    cat >"$nats_auth_dir/cli.env" <<EOF
# Written by infra/local/infra.sh: \`pnpm cairn\` connects to the local NATS as the operator.
CAIRN_NATS_USER=admin
CAIRN_NATS_NKEY_SEED_FILE=$nats_auth_dir/admin/nkey.seed
EOF
  )
}

# Written at every start, from the settings above. JetStream is configured as in compose
# (infra/compose/nats/nats.conf); listening, pid and log file are this machine's.
nats_write_conf() {
  cat >"$nats_conf" <<EOF
# Written by infra/local/infra.sh at every start: change the script, not this file.
server_name: cairn-local
listen: "$host:$nats_port"
pid_file: "$nats_pidfile"
log_file: "$nats_log"

jetstream {
  store_dir: "$nats_dir"
  # fsync every write: an acknowledged event is on disk, as in the compose deployment.
  sync_interval: always
}

# Every client authenticates with its bus identity's nkey and has that identity's permissions.
include "nats-auth/nats-authorization.conf"
EOF
}

cmd_credentials() {
  mkdir -p "$data" "$logs"
  bus_credentials_write
  nats_write_conf
  if nats_running; then
    log "nats reloads the bus permissions"
    kill -HUP "$(head -n1 "$nats_pidfile" | tr -d '[:space:]')"
  fi
}

nats_start() {
  if nats_running; then
    log "nats already running on $nats_port"
    return 0
  fi
  [ -x "$nats_server" ] || die "nats-server 2.10 not found at $nats_server; run bash infra/local/install-packages.sh or set CAIRN_NATS_SERVER"
  nats_check_version
  port_open "$nats_port" && die "port $nats_port is taken by another process; set CAIRN_NATS_PORT"
  mkdir -p "$nats_dir" "$logs"
  bus_credentials_write
  nats_write_conf
  log "starting nats on $nats_port"
  # nats-server has no daemon mode: detach it from this shell and its terminal.
  setsid nohup "$nats_server" -c "$nats_conf" </dev/null >>"$nats_log" 2>&1 &
  if ! wait_until 15 nats_ready; then
    log_tail "$nats_log"
    die "nats did not start (log: $nats_log)"
  fi
}

nats_stop() { stop_by_pidfile nats "$nats_pidfile"; }

nats_status() {
  if nats_running && nats_ready; then
    local version
    version="$(tcp_ask "$nats_port" "" | sed -nE 's/.*"version":"([^"]+)".*/\1/p')"
    printf '%s nats      up    %s  (data %s, nats-server %s)\n' "$tag" "$(nats_url)" "$nats_dir" "${version:-?}"
    return 0
  fi
  printf '%s nats      down  %s  (data %s)\n' "$tag" "$(nats_url)" "$nats_dir"
  return 1
}

# ---------------------------------------------------------------- commands

cmd_start() {
  mkdir -p "$data" "$logs"
  pg_start
  redis_start
  nats_start
  log "infrastructure up: $(pg_url)  $(redis_url)  $(nats_url)"
}

cmd_stop() {
  nats_stop
  redis_stop
  pg_stop
}

cmd_status() {
  local ok=0
  pg_status || ok=1
  redis_status || ok=1
  nats_status || ok=1
  return "$ok"
}

cmd_reset() {
  cmd_stop
  local dir; dir="$(pg_data_dir)"
  if [ -n "$dir" ] && [ "$dir" != "$data/postgres" ]; then
    log "deleting local data in $data and $dir"
    rm -rf -- "$dir" "$(pg_log_file "$dir")"
  else
    log "deleting local data in $data"
  fi
  rm -rf -- "$data"
  cmd_start
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  reset) cmd_reset ;;
  credentials) cmd_credentials ;;
  *)
    echo "usage: $(basename "$0") start|stop|status|reset|credentials" >&2
    exit 2
    ;;
esac
