#!/usr/bin/env bash
# Installs what the end-to-end test needs: Debian's Chromium and ripgrep, the build dependencies of
# code-server's native modules, and code-server 4.100.3 (the newest that runs on Node 20) in a tools
# folder outside the work tree (from e2e/tools/package-lock.json), so a fresh clone on the same
# machine does not install it again.
#
# Idempotent: every step is skipped when its result is already there. Nothing is downloaded but
# Debian and npm packages: code-server's @vscode/ripgrep dependency would fetch a ripgrep build from
# the internet at install time, so its download cache is filled first with Debian's `rg`.
#
# Prints the tools folder's code-server path on its last line.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
RIPGREP_PKG_VERSION=1.15.11 # @vscode/ripgrep, as code-server 4.100.3 depends on it
RIPGREP_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
TOOLS="${GRADGUARD_E2E_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/gradguard-e2e}"
APT_PACKAGES=(chromium ripgrep libkrb5-dev libxkbfile-dev libx11-dev libsecret-1-dev pkg-config
    build-essential python3 fonts-dejavu-core)

log() { printf '[e2e-install] %s\n' "$*" >&2; }
start=$(date +%s)

# ---- Debian packages --------------------------------------------------------------------------------
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done
if ((${#missing[@]})); then
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
    log "apt-get install ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
    log "Debian packages: already installed"
fi

# ---- code-server ---------------------------------------------------------------------------------------
# Installed with `npm ci` from e2e/tools/package-lock.json into $TOOLS/node_modules. Not `npm install -g`:
# npm passes `global` on to code-server's postinstall, whose nested `npm install` (of lib/vscode) then
# installs that folder globally in place of code-server itself and fails half-way.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
code_server="$TOOLS/node_modules/.bin/code-server"
stamp="$TOOLS/.installed"
want="$CODE_SERVER_VERSION $(cat "$HERE/tools/package-lock.json" | cksum | cut -d' ' -f1)"
installed_version=""
if [[ -x $code_server && -f $stamp && $(cat "$stamp") == "$want" ]]; then
    installed_version=$("$code_server" --version 2>/dev/null | awk '/^[0-9]+\.[0-9]+\.[0-9]+ / {print $1; exit}' || true)
fi
if [[ $installed_version == "$CODE_SERVER_VERSION" ]]; then
    log "code-server $CODE_SERVER_VERSION: already installed in $TOOLS"
else
    # The archive @vscode/ripgrep would download, made from Debian's rg.
    cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-$RIPGREP_PKG_VERSION"
    if [[ ! -s $cache/$RIPGREP_ASSET ]]; then
        log "ripgrep download cache: $cache/$RIPGREP_ASSET (from /usr/bin/rg)"
        mkdir -p "$cache"
        work=$(mktemp -d)
        cp /usr/bin/rg "$work/rg"
        tar -czf "$cache/$RIPGREP_ASSET.tmp" -C "$work" rg
        mv "$cache/$RIPGREP_ASSET.tmp" "$cache/$RIPGREP_ASSET"
        rm -rf "$work"
    fi
    # Native modules (argon2) fall back to building from source, and node-gyp would download Node's
    # headers for that: use the ones Debian's nodejs ships instead.
    NODEDIR="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
    if [[ ! -f $NODEDIR/include/node/node.h ]]; then
        log "Node's headers are not in $NODEDIR/include/node (Debian's nodejs has them)"
        exit 1
    fi
    log "npm ci code-server@$CODE_SERVER_VERSION in $TOOLS (1 to 8 minutes: it compiles native modules)"
    rm -rf "$TOOLS"
    mkdir -p "$TOOLS"
    cp "$HERE/tools/package.json" "$HERE/tools/package-lock.json" "$TOOLS/"
    (cd "$TOOLS" && env -u npm_config_global -u npm_config_prefix \
        npm_config_yes=true npm_config_unsafe_perm=true npm_config_update_notifier=false \
        npm_config_nodedir="$NODEDIR" \
        npm_config_fund=false npm_config_audit=false npm ci --loglevel=error >&2)
    installed_version=$("$code_server" --version 2>/dev/null | awk '/^[0-9]+\.[0-9]+\.[0-9]+ / {print $1; exit}')
    if [[ $installed_version != "$CODE_SERVER_VERSION" ]]; then
        log "code-server reports version '$installed_version', expected $CODE_SERVER_VERSION"
        exit 1
    fi
    echo "$want" >"$stamp"
fi

log "done in $(($(date +%s) - start)) s"
echo "$code_server"
