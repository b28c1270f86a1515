#!/usr/bin/env bash
# The first run of a new user, checked: clones this repository's HEAD commit into a temporary folder
# and, with an empty HOME and the system's own python3 first on PATH, runs the README's
# `make demo`, checks that the demo's environment has no torch and that it printed the examples'
# findings, then runs `make test-fast` in the clone (never `make test`, which runs this script).
#
# Run by `make test` (and so by CI). Uncommitted changes are not in the clone: commit first to check
# them. The environment is emptied but for the locale, the terminal, proxies, CA certificates and
# pip's and npm's own variables (PIP_*, NPM_CONFIG_*: a machine's package mirror or local wheels).
#
#   FIRST_RUN_PYTHON   the interpreter that comes first on PATH as python3 (default /usr/bin/python3)
#   FIRST_RUN_KEEP=1   keep the temporary folder (its path is printed)
#
# Exits non-zero on the first failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
system_python=${FIRST_RUN_PYTHON:-/usr/bin/python3}
started=$(date +%s)

say() { printf '[first-run] %s\n' "$*"; }
fail() {
    printf '[first-run] FAILED: %s\n' "$*" >&2
    exit 1
}
elapsed() { echo "$(($(date +%s) - $1)) s"; }

[[ -x $system_python ]] || fail "$system_python does not exist (set FIRST_RUN_PYTHON)"
command -v git >/dev/null || fail "git is needed"
command -v make >/dev/null || fail "make is needed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gradguard-first-run.XXXXXX")
cleanup() {
    if [[ ${FIRST_RUN_KEEP:-0} == 1 ]]; then
        say "kept $tmp"
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT
clone=$tmp/gradguard
home=$tmp/home
mkdir "$home"

head=$(git -C "$repo" rev-parse HEAD)
say "cloning $repo at ${head:0:12} into $clone"
if [[ -n $(git -C "$repo" status --porcelain --untracked-files=no) ]]; then
    say "note: $repo has uncommitted changes; they are not part of this check"
fi
git clone --quiet --no-checkout "$repo" "$clone"
git -C "$clone" -c advice.detachedHead=false checkout --quiet --detach "$head"

# A first-time user's environment: nothing but what reaches the network and the package indexes.
keep=(LANG LC_ALL TERM http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY
    SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE CURL_CA_BUNDLE NODE_EXTRA_CA_CERTS GIT_SSL_CAINFO)
user_env=(HOME="$home" PATH="$(dirname "$system_python"):$PATH" TMPDIR="${TMPDIR:-/tmp}")
for name in "${keep[@]}"; do
    if [[ -n ${!name:-} ]]; then user_env+=("$name=${!name}"); fi
done
while IFS= read -r name; do
    user_env+=("$name=${!name}")
done < <(compgen -e | grep -E '^(PIP_|NPM_CONFIG_|npm_config_)' || true)
as_user() { (cd "$clone" && env -i "${user_env[@]}" "$@"); }

found=$(as_user bash -c 'command -v python3')
[[ $found == "$system_python" ]] || fail "python3 on the new PATH is $found, not $system_python"
say "python3 is $found: $(as_user python3 --version 2>&1)$(as_user python3 -c '
import sys, sysconfig, os
path = os.path.join(sysconfig.get_paths()["stdlib"], "EXTERNALLY-MANAGED")
print(", externally managed (PEP 668)" if os.path.exists(path) else "")')"
say "HOME is $home (empty); PATH starts with $(dirname "$system_python")"

# ---- make demo ---------------------------------------------------------------------------------------
step=$(date +%s)
say "make demo"
if ! as_user make demo 2>&1 | tee "$tmp/demo.log"; then
    fail "make demo exited non-zero (after $(elapsed "$step"))"
fi
say "make demo passed in $(elapsed "$step")"

venv_python=$clone/.venv/bin/python
[[ -x $venv_python ]] || fail "make demo made no .venv"
base=$(as_user .venv/bin/python -c 'import sys; print(sys.base_prefix)')
system_prefix=$(as_user python3 -c 'import sys; print(sys.prefix)')
[[ $base == "$system_prefix" ]] || fail ".venv is based on $base, not on the system python ($system_prefix)"
say ".venv is a virtual environment of $system_python"

if as_user .venv/bin/python -c 'import torch' >/dev/null 2>&1; then
    fail "torch can be imported in the demo's .venv"
fi
shown=$(as_user .venv/bin/python -m pip show torch 2>/dev/null || true)
[[ -z $shown ]] || fail "pip show torch in the demo's .venv says: $shown"
say "no torch in the demo's .venv (import fails, pip show torch finds nothing)"

# Every rule's example must have been reported with its own code (path:line:column: CODE), and
# every example notebook with some code (path:cell N:line:column: CODE).
missing=()
for example in "$clone"/examples/gg[0-9][0-9][0-9]_*.py; do
    name=$(basename "$example")
    code=GG${name:2:3}
    grep -Eq "^examples/$name:[0-9]+:[0-9]+: $code " "$tmp/demo.log" || missing+=("$name ($code)")
done
for example in "$clone"/examples/*.ipynb; do
    [[ -e $example ]] || continue
    name=$(basename "$example")
    grep -Eq "^examples/$name:cell [0-9]+:[0-9]+:[0-9]+: GG[0-9]{3} " "$tmp/demo.log" || missing+=("$name")
done
((${#missing[@]} == 0)) || fail "make demo printed no finding for: ${missing[*]}"
count=$(grep -Ec '^examples/[^:]+(:cell [0-9]+)?:[0-9]+:[0-9]+: GG[0-9]{3} ' "$tmp/demo.log" || true)
say "make demo reported $count findings, one at least for each example"

# ---- make test-fast ----------------------------------------------------------------------------------
step=$(date +%s)
say "make test-fast"
if ! as_user make test-fast 2>&1 | tee "$tmp/test.log"; then
    fail "make test-fast exited non-zero (after $(elapsed "$step"))"
fi
say "make test-fast passed in $(elapsed "$step")"

say "all passed in $(elapsed "$started")"
