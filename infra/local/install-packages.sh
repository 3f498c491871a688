#!/usr/bin/env bash
# Installs the Debian packages Cairn needs on a machine without Docker, and builds
# pgvector (not packaged for Debian 12) from Debian's own source package of the next
# release. Idempotent: every step is skipped when its result is already there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
log() { printf '\033[1m[cairn]\033[0m %s\n' "$*" >&2; }

SUDO=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { log "run as root or install sudo: apt packages are needed"; exit 1; }
  SUDO="sudo"
fi

PG_MAJOR="${CAIRN_PG_MAJOR:-15}"
PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
packages=(postgresql-$PG_MAJOR postgresql-contrib redis-server redis-redisearch nats-server)
[ "${CAIRN_WITH_COMPOSE_CHECK:-1}" = 1 ] && packages+=(docker-compose)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

have_pgvector() { [ -f "$($PG_CONFIG --sharedir 2>/dev/null)/extension/vector.control" ]; }
if ! have_pgvector 2>/dev/null; then
  for p in "postgresql-server-dev-$PG_MAJOR" build-essential dpkg-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi

if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Debian's packages start their own daemons; Cairn runs its own instances, so the
# stock ones are left as the machine had them.

if ! have_pgvector; then
  log "building pgvector from Debian's source package (next release)"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  chmod 755 "$work"
  # The mirror comes from the machine's own apt sources; nothing about it is written here.
  mirror="$(
    { grep -hE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}';
      grep -hE '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | sed -E 's/\[[^]]*\]//' | awk '{print $2}'; } \
      | grep -E '/debian/?$' | head -n 1 || true
  )"
  [ -n "$mirror" ] || { log "no Debian mirror found in the apt sources"; exit 1; }
  next="${CAIRN_PGVECTOR_SUITE:-trixie}"
  mkdir -p "$work/lists/partial" "$work/parts"
  echo "deb-src $mirror $next main" > "$work/sources.list"
  apt_opts=(-o "Dir::Etc::sourcelist=$work/sources.list" -o "Dir::Etc::sourceparts=$work/parts" -o "Dir::State::Lists=$work/lists")
  apt-get "${apt_opts[@]}" update -qq
  (cd "$work" && apt-get "${apt_opts[@]}" source --download-only -qq pgvector >/dev/null)
  (cd "$work" && dpkg-source -x --no-check pgvector_*.dsc src >/dev/null)
  make -s -C "$work/src" PG_CONFIG="$PG_CONFIG" -j"$(nproc)" >/dev/null 2>&1
  $SUDO make -s -C "$work/src" PG_CONFIG="$PG_CONFIG" install >/dev/null
  have_pgvector || { log "pgvector did not install"; exit 1; }
  log "pgvector installed"
fi
