# Quick start on a fresh machine: `make demo`, then `make test`.
PYTHON ?= python3
STAMP := .make/installed

.PHONY: install demo test lint docs bench bench-lsp corpus clean

install: $(STAMP)

# torch comes first, pinned exactly: the local CPU wheel (pip's find-links) provides 2.13.0, and
# installing it before the project keeps any dependency range from pulling another build.
$(STAMP): pyproject.toml
	$(PYTHON) -m pip install "torch==2.13.0" numpy
	$(PYTHON) -m pip install -e ".[dev]"
	@mkdir -p $(dir $(STAMP)) && touch $(STAMP)

demo: install
	$(PYTHON) -m gradguard check examples/ --exit-zero

test: install
	$(PYTHON) -m pytest -q
	$(PYTHON) -m ruff check server tests scripts bench
	$(PYTHON) -m mypy server/gradguard

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

clean:
	rm -rf .make build dist server/*.egg-info .pytest_cache .mypy_cache .ruff_cache
