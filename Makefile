# Quick start on a fresh machine: `make demo`, then `make test`.
PYTHON ?= python3
STAMP := .make/installed

.PHONY: install demo test lint docs bench bench-lsp corpus clean vsix e2e e2e-install screenshot

install: $(STAMP)

# torch comes first, pinned exactly: the local CPU wheel (pip's find-links) provides 2.13.0, and
# installing it before the project keeps any dependency range from pulling another build.
$(STAMP): pyproject.toml
	$(PYTHON) -m pip install "torch==2.13.0" numpy
	$(PYTHON) -m pip install -e ".[dev]"
	@mkdir -p $(dir $(STAMP)) && touch $(STAMP)

demo: install vsix
	$(PYTHON) -m gradguard check examples/ --exit-zero

test: install
	$(PYTHON) -m pytest -q
	$(PYTHON) -m ruff check server tests scripts bench
	$(PYTHON) -m mypy server/gradguard
	$(MAKE) e2e

lint: install
	$(PYTHON) -m ruff check server tests scripts bench
	$(PYTHON) -m mypy server/gradguard

docs: install
	$(PYTHON) scripts/gen_docs.py

bench: install
	$(PYTHON) bench/bench_engine.py

bench-lsp: install
	$(PYTHON) bench/bench_lsp.py

corpus: install
	$(PYTHON) scripts/corpus_eval.py

# ---- VS Code extension -------------------------------------------------------------------------------
# The client (TypeScript, bundled by esbuild) and the .vsix with the gradguard wheel inside.
NPM_STAMP := node_modules/.package-lock.json
E2E_TIMEOUT ?= 1200

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $(NPM_STAMP)

vsix: install $(NPM_STAMP)
	PYTHON=$(PYTHON) bash scripts/build_vsix.sh

# Chromium, ripgrep, code-server 4.100.3 and their build dependencies (idempotent; skips what is there).
e2e-install:
	bash e2e/install.sh

# The extension in a real VS Code: code-server on loopback, driven through Chromium (see e2e/README.md).
e2e: vsix e2e-install
	timeout -k 30 $(E2E_TIMEOUT) node --test --test-reporter=spec e2e/

# The README's screenshot of a squiggle with its hover.
screenshot: vsix e2e-install
	GRADGUARD_README_SCREENSHOT=docs/img/vscode-hover.png timeout -k 30 $(E2E_TIMEOUT) \
		node --test --test-reporter=spec --test-name-pattern="squiggles appear|hover explains" e2e/

clean:
	rm -rf .make build dist server/*.egg-info .pytest_cache .mypy_cache .ruff_cache client/out bundled e2e/artifacts
