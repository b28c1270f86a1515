# Quick start on a fresh machine: `make demo`, then `make test` (or `make test-fast`).
#
# Everything runs in a virtual environment of its own, $(VENV), made with $(PYTHON) (Python 3.10+).
# Nothing is ever installed into the interpreter that creates it: Debian's and Ubuntu's own Python
# refuse that anyway (PEP 668, "externally-managed-environment").
#   make demo           gradguard and its runtime dependencies only (no torch), then the examples
#   make install        what the tests need: torch 2.13.0 (the oracle the examples run under), dev tools
PYTHON ?= python3
VENV ?= .venv
VPY := $(VENV)/bin/python
# Stamps live in the environment they describe: deleting $(VENV) starts again from scratch.
VENV_STAMP := $(VENV)/.gradguard-venv
RUNTIME_STAMP := $(VENV)/.gradguard-runtime
DEV_STAMP := $(VENV)/.gradguard-dev

.PHONY: venv install demo test test-fast first-run-check lint docs bench bench-lsp corpus clean distclean \
	vsix vsix-all e2e e2e-install screenshot

# ---- Python environment ------------------------------------------------------------------------------
venv: $(VENV_STAMP)

# Made once. A failed `venv` (Debian and Ubuntu ship it separately, as python3-venv) leaves nothing
# behind; an existing environment named by VENV= is used as it is.
$(VENV_STAMP):
	@command -v $(PYTHON) >/dev/null 2>&1 || { \
		echo "make: '$(PYTHON)' not found. gradguard needs Python 3.10 or newer: install it, or name it with make PYTHON=/path/to/python3" >&2; \
		exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { \
		echo "make: gradguard needs Python 3.10 or newer, but $(PYTHON) is Python $$($(PYTHON) -c 'import platform; print(platform.python_version())'). Install a newer one and name it, for example: make PYTHON=python3.12 demo" >&2; \
		exit 1; }
	@if [ ! -x "$(VPY)" ]; then \
		if [ -e "$(VENV)" ]; then fresh=; else fresh=1; fi; \
		echo "$(PYTHON) -m venv $(VENV)"; \
		$(PYTHON) -m venv "$(VENV)" || { \
			if [ -n "$$fresh" ]; then rm -rf "$(VENV)"; fi; \
			v=$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])'); \
			echo "make: could not create the virtual environment $(VENV) with $(PYTHON) (Python $$v): its venv module or ensurepip is missing. On Debian or Ubuntu: sudo apt install python3-venv (or python$$v-venv), then run make again." >&2; \
			exit 1; }; \
	fi
	@$(VPY) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { \
		echo "make: $(VENV) has a Python older than 3.10; remove it (rm -rf $(VENV)) and run make again" >&2; exit 1; }
	@$(VPY) -m pip --version >/dev/null 2>&1 || { \
		echo "make: $(VENV) has no pip; remove it (rm -rf $(VENV)) and run make again" >&2; exit 1; }
	@touch $@

# gradguard in editable mode with its runtime dependencies: what the linter, the language server and
# the .vsix need. No torch: the linter reads code, it never imports torch.
$(RUNTIME_STAMP): $(VENV_STAMP) pyproject.toml
	$(VPY) -m pip install -e .
	@touch $@

# What the tests need on top. torch comes first, pinned exactly: the local CPU wheel (pip's
# find-links) provides 2.13.0, and installing it before the project keeps any dependency range from
# pulling another build. Without a local wheel, PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu
# gets the CPU build instead of PyPI's CUDA one (see the README).
$(DEV_STAMP): $(RUNTIME_STAMP) pyproject.toml
	$(VPY) -m pip install "torch==2.13.0" numpy
	$(VPY) -m pip install -e ".[dev]"
	@touch $@

install: $(DEV_STAMP)

# ---- Quick start -------------------------------------------------------------------------------------
# The .vsix is built too when npm and Node.js 20+ are there; the examples' findings come last.
demo: $(RUNTIME_STAMP)
	@if command -v npm >/dev/null 2>&1 && node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' 2>/dev/null; then \
		$(MAKE) --no-print-directory vsix; \
	else \
		echo "demo: not building the VS Code extension (it needs Node.js 20+ and npm); build it later with: make vsix"; \
	fi
	$(VPY) -m gradguard check examples/ --exit-zero

# Everything but the browser test: pytest, ruff and mypy.
test-fast: install
	$(VPY) -m pytest -q
	$(VPY) -m ruff check server tests scripts bench
	$(VPY) -m mypy server/gradguard

# What CI runs (.ci/run): the fast suite, the first-run check on a fresh clone (which runs test-fast
# there, never test), and the VS Code end-to-end test, which installs Debian packages (e2e-install).
test: install
	$(MAKE) --no-print-directory test-fast
	$(MAKE) --no-print-directory first-run-check
	$(MAKE) --no-print-directory e2e

# A clone of HEAD, an empty HOME and the system's own python3 first on PATH: make demo (no torch in
# its environment), then make test-fast.
first-run-check:
	bash scripts/first_run_check.sh

lint: install
	$(VPY) -m ruff check server tests scripts bench
	$(VPY) -m mypy server/gradguard

docs: install
	$(VPY) scripts/gen_docs.py

bench: install
	$(VPY) bench/bench_engine.py

bench-lsp: install
	$(VPY) bench/bench_lsp.py

corpus: install
	$(VPY) scripts/corpus_eval.py

# ---- VS Code extension -------------------------------------------------------------------------------
# The client (TypeScript, bundled by esbuild) and the .vsix with the gradguard wheel inside.
NPM_STAMP := node_modules/.package-lock.json
E2E_TIMEOUT ?= 1200

$(NPM_STAMP): package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
		echo "make: the VS Code extension needs Node.js 20+ and npm, and npm was not found" >&2; exit 1; }
	npm ci --no-audit --no-fund
	@touch $(NPM_STAMP)

# The wheel is built without build isolation, from the environment's own setuptools.
vsix: $(RUNTIME_STAMP) $(NPM_STAMP)
	$(VPY) -m pip install -q "setuptools>=68" wheel
	PYTHON=$(VPY) TARGET=$(TARGET) bash scripts/build_vsix.sh

# The platform-specific .vsix of every platform VS Code runs on, from PyPI's wheels for each
# (dist/gradguard-<version>-<target>.vsix); `make vsix TARGET=darwin-arm64` builds one.
VSIX_TARGETS := linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64
vsix-all: $(RUNTIME_STAMP) $(NPM_STAMP)
	$(VPY) -m pip install -q "setuptools>=68" wheel
	for target in $(VSIX_TARGETS); do PYTHON=$(VPY) TARGET=$$target bash scripts/build_vsix.sh || exit 1; done

# Chromium, ripgrep, code-server 4.100.3 and their build dependencies (idempotent; skips what is there).
# Installs Debian packages with apt-get (as root, or through sudo).
e2e-install:
	bash e2e/install.sh

# The extension in a real VS Code: code-server on loopback, driven through Chromium (see e2e/README.md).
# First the graph view's DOT builder on its own (client/test, no browser).
e2e: vsix e2e-install
	node --test --test-reporter=spec client/test/
	timeout -k 30 $(E2E_TIMEOUT) node --test --test-reporter=spec e2e/

# The README's screenshots: a squiggle with its hover, and the autograd graph view.
screenshot: vsix e2e-install
	GRADGUARD_README_SCREENSHOT=docs/img/vscode-hover.png GRADGUARD_README_GRAPH_SCREENSHOT=docs/img/graph-view.png \
		timeout -k 30 $(E2E_TIMEOUT) \
		node --test --test-reporter=spec --test-name-pattern="squiggles appear|hover explains|graph view draws the seed" e2e/

# Build and test output; the environment ($(VENV)) and node_modules stay.
clean:
	rm -rf .make build dist server/*.egg-info .pytest_cache .mypy_cache .ruff_cache client/out bundled e2e/artifacts

# Also the environment and node_modules: the next make starts from scratch.
distclean: clean
	rm -rf $(VENV) node_modules
