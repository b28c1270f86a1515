#!/usr/bin/env bash
# Builds dist/gradguard-<version>.vsix: the bundled client (client/out/extension.js), the gradguard
# wheel and the pins of its dependencies (bundled/), packaged by @vscode/vsce. Offline once
# node_modules is installed (`npm ci`): the wheel is built with --no-deps, and the pins are read
# from the Python environment that runs this script (the one `make install` set up).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

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

out="dist/gradguard-$version.vsix"
rm -f "$out"
node_modules/.bin/vsce package --no-dependencies --readme-path client/README.md --skip-license \
    --allow-missing-repository --no-update-package-json -o "$out" >&2
echo "$out"
