#!/usr/bin/env bash
# Builds dist/gradguard-<version>.vsix: the bundled client (client/out/extension.js), the gradguard
# wheel, the pins of its dependencies and their wheels for one platform (bundled/), packaged by
# @vscode/vsce. The wheel is built with --no-deps, the pins are read from the Python environment
# that runs this script (the one `make install` set up), and the dependencies' wheels come from pip's
# index (or its local wheel folders) once, here, so the extension needs no network.
#
# TARGET (a VS Code platform: linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64) builds the
# platform-specific .vsix of another platform, dist/gradguard-<version>-<TARGET>.vsix, from PyPI's
# wheels for it (pip downloads another platform's wheels; nothing is built or run for it here).
# Without TARGET: this machine's platform, dist/gradguard-<version>.vsix, for any platform.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
TARGET="${TARGET:-}"

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' pyproject.toml | head -n1)
ext_version=$(node -p 'require("./package.json").version')
if [[ $version != "$ext_version" ]]; then
    echo "build_vsix: pyproject.toml has version $version but package.json has $ext_version; make them equal" >&2
    exit 1
fi

rm -rf bundled
mkdir -p bundled dist
"$PYTHON" -m pip wheel --no-deps --no-build-isolation --disable-pip-version-check -q -w bundled . >&2
wheel=$(ls bundled/gradguard-"$version"-*.whl)

# Exact versions of the wheel's dependencies (and theirs) as installed here: the extension installs the
# wheel with these as pip constraints, so every user gets the tested set.
"$PYTHON" - "$wheel" >bundled/constraints.txt <<'PY'
import re
import sys
import zipfile
from importlib import metadata

def requirement_names(lines):
    for line in lines or []:
        if "extra ==" in line.replace("extra==", "extra =="):
            continue
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line)
        if match:
            yield match.group(1)

with zipfile.ZipFile(sys.argv[1]) as wheel:
    meta = next(name for name in wheel.namelist() if name.endswith(".dist-info/METADATA"))
    text = wheel.read(meta).decode()
todo = list(requirement_names(re.findall(r"^Requires-Dist: (.*)$", text, re.M)))
pins = {}
while todo:
    name = todo.pop()
    key = re.sub(r"[-_.]+", "-", name).lower()
    if key in pins:
        continue
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        continue  # a dependency for other Pythons (a marker), not installed here
    pins[key] = dist.version
    todo.extend(requirement_names(dist.requires))
print("# Exact versions of gradguard's dependencies, used as pip constraints by the VS Code extension.")
for key in sorted(pins):
    print(f"{key}=={pins[key]}")
PY

# The dependencies' wheels for the platform and every supported Python (3.10 to 3.13), so the
# extension installs its server with no network (`pip install --no-index --find-links`). Where no
# wheel set is known, the extension falls back to pip's index on first start.
here="$TARGET"
if [[ -z $here ]]; then
    case "$(uname -s)-$(uname -m)" in
        Linux-x86_64) here=linux-x64 ;;
        Linux-aarch64) here=linux-arm64 ;;
        Darwin-x86_64) here=darwin-x64 ;;
        Darwin-arm64) here=darwin-arm64 ;;
        *) here=unknown ;;
    esac
fi
# pip widens each tag to the older ones it is compatible with (manylinux, macOS versions).
case "$here" in
    linux-x64) platforms=(manylinux2014_x86_64 manylinux_2_17_x86_64 manylinux_2_28_x86_64) ;;
    linux-arm64) platforms=(manylinux2014_aarch64 manylinux_2_17_aarch64 manylinux_2_28_aarch64) ;;
    darwin-x64) platforms=(macosx_10_9_x86_64 macosx_11_0_x86_64 macosx_10_9_universal2) ;;
    darwin-arm64) platforms=(macosx_11_0_arm64 macosx_10_9_universal2) ;;
    win32-x64) platforms=(win_amd64) ;;
    *)
        if [[ -n $TARGET ]]; then
            echo "build_vsix: unknown TARGET $TARGET (linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64)" >&2
            exit 2
        fi
        platforms=()
        ;;
esac
if ((${#platforms[@]})); then
    platform_args=()
    for tag in "${platforms[@]}"; do platform_args+=(--platform "$tag"); done
    for py in 3.10 3.11 3.12 3.13; do
        "$PYTHON" -m pip download --disable-pip-version-check -q --only-binary=:all: --implementation cp \
            --python-version "$py" "${platform_args[@]}" -d bundled/wheels \
            -r bundled/constraints.txt "tomli>=2.0" >&2
    done
    # The set is complete: pip can install the server from it alone, for every supported Python.
    check=$(mktemp -d)
    for py in 3.10 3.11 3.12 3.13; do
        if ! "$PYTHON" -m pip install --disable-pip-version-check -q --dry-run --no-index --find-links bundled/wheels \
            --only-binary=:all: --implementation cp --python-version "$py" "${platform_args[@]}" \
            --target "$check/$py" --constraint bundled/constraints.txt "$wheel" >&2; then
            echo "build_vsix: the wheels for $here do not install gradguard on Python $py" >&2
            rm -rf "$check"
            exit 1
        fi
    done
    rm -rf "$check"
else
    echo "build_vsix: no bundled wheels for $(uname -s) $(uname -m): the extension will use pip's index" >&2
fi

if [[ -n $TARGET ]]; then
    # The wheels of one platform: VS Code installs this .vsix only there.
    out="dist/gradguard-$version-$TARGET.vsix"
    target_args=(--target "$TARGET")
else
    out="dist/gradguard-$version.vsix"
    target_args=()
fi
rm -f "$out"
node_modules/.bin/vsce package --no-dependencies --readme-path client/README.md --skip-license \
    --allow-missing-repository --no-update-package-json ${target_args[@]+"${target_args[@]}"} -o "$out" >&2
echo "$out"
