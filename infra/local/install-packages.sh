#!/usr/bin/env bash
# Installs the Debian packages Cairn needs on a machine without Docker, builds pgvector (not
# packaged for Debian 12) from Debian's own source package of the next release, and puts the
# next release's nats-server 2.10 into .tools/. Idempotent: every step is skipped when its
# result is already there.
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
# No nats-server here: bookworm's is 2.9, see "nats-server 2.10" below.
packages=(postgresql-$PG_MAJOR postgresql-contrib redis-server redis-redisearch)
# The compose files' checks (test/compose): docker-compose validates them, haproxy the cluster
# deployment's proxy configuration.
[ "${CAIRN_WITH_COMPOSE_CHECK:-1}" = 1 ] && packages+=(docker-compose haproxy)
# Headless Chromium for the console's browser tests (test/console), driven by playwright-core.
[ "${CAIRN_WITH_CONSOLE_TESTS:-1}" = 1 ] && packages+=(chromium)
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

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# apt fetches as the unprivileged _apt user, which must reach (and write) its dirs.
chmod 755 "$work"
scratch() {
  mkdir -p "$work/$1"
  if [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$work/$1"; fi
  echo "$work/$1"
}

# Sets apt_opts to an apt configuration of its own, under the scratch dir, that reads only
# "<type> <machine's Debian mirror> <suite> main" (type deb or deb-src). The machine's apt
# sources, lists and caches stay as they are.
apt_opts=()
use_debian_suite() {
  local type="$1" suite="$2" dir mirror
  # The mirror comes from the machine's own apt sources; nothing about it is written here.
  mirror="$(
    { grep -hE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}';
      grep -hE '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | sed -E 's/\[[^]]*\]//' | awk '{print $2}'; } \
      | grep -E '/debian/?$' | head -n 1 || true
  )"
  [ -n "$mirror" ] || { log "no Debian mirror found in the apt sources"; exit 1; }
  dir="$(scratch "apt-$type-$suite")"
  mkdir -p "$dir/lists/partial" "$dir/parts" "$dir/cache"
  echo "$type $mirror $suite main" > "$dir/sources.list"
  apt_opts=(-o "Dir::Etc::sourcelist=$dir/sources.list" -o "Dir::Etc::sourceparts=$dir/parts"
    -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache")
  apt-get "${apt_opts[@]}" update -qq
}

if ! have_pgvector; then
  log "building pgvector from Debian's source package (next release)"
  use_debian_suite deb-src "${CAIRN_PGVECTOR_SUITE:-trixie}"
  src="$(scratch pgvector)"
  (cd "$src" && apt-get "${apt_opts[@]}" source --download-only -qq pgvector >/dev/null)
  (cd "$src" && dpkg-source -x --no-check pgvector_*.dsc src >/dev/null)
  make -s -C "$src/src" PG_CONFIG="$PG_CONFIG" -j"$(nproc)" >/dev/null 2>&1
  $SUDO make -s -C "$src/src" PG_CONFIG="$PG_CONFIG" install >/dev/null
  have_pgvector || { log "pgvector did not install"; exit 1; }
  log "pgvector installed"
fi

# nats-server 2.10: bookworm's 2.9 cannot be told to fsync every write (JetStream's
# `sync_interval: always`, which compose sets), so the local and test servers come from
# Debian's next release, which packages 2.10 (the same minor as the compose image).
# Its binary package is used as it is rather than built from source: nats-server is a Go
# program whose only dependency is libc6 (>= 2.34), which bookworm has (2.36). `dpkg -x`
# unpacks it into .tools/ without installing it, so the machine's own nats-server (and the
# daemon it may run on 4222) is left alone. CAIRN_NATS_SERVER points Cairn at another binary.
nats_dir="$root/.tools/nats-server-2.10"
have_nats() { "$nats_dir/nats-server" --version 2>/dev/null | grep -qE '^nats-server: v2\.10\.'; }
if ! have_nats; then
  suite="${CAIRN_NATS_SUITE:-trixie}"
  log "fetching nats-server 2.10 from Debian's $suite into .tools/nats-server-2.10"
  use_debian_suite deb "$suite"
  fetched="$(scratch nats-server)"
  # `/suite`: the next release's version, even if the machine has another one installed.
  (cd "$fetched" && apt-get "${apt_opts[@]}" download -qq "nats-server/$suite")
  deb="$(ls "$fetched"/nats-server_*.deb)"
  dpkg -x "$deb" "$fetched/unpacked"
  # Assembled beside its final place and moved in whole: an interrupted run leaves no
  # binary that the check above would take for a finished install.
  rm -rf "$nats_dir.partial"
  mkdir -p "$nats_dir.partial"
  cp "$fetched/unpacked/usr/sbin/nats-server" "$fetched/unpacked/usr/share/doc/nats-server/copyright" "$nats_dir.partial/"
  dpkg-deb -f "$deb" Package Version > "$nats_dir.partial/DEBIAN-PACKAGE"
  rm -rf "$nats_dir"
  mv "$nats_dir.partial" "$nats_dir"
  have_nats || {
    log "the nats-server from $suite ($(dpkg-deb -f "$deb" Version)) does not run here or is not 2.10: $("$nats_dir/nats-server" --version 2>&1 | head -n 1)"
    exit 1
  }
  log "$("$nats_dir/nats-server" --version) installed in .tools/nats-server-2.10"
fi
