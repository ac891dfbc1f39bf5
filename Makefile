# Two-command set-up: `make demo` runs the embedded end-to-end demo, `make test` the test suite.
# Each creates the virtual environment .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# torch comes from the CPU build; pass extra pip options (e.g. a CPU wheel index) here.
TORCH ?= torch==2.13.0
TORCH_PIP_ARGS ?=
EXTRAS ?= dev,plot,bif,distributed

.PHONY: install demo test test-fast lint lint-layers bench clean docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH_PIP_ARGS) "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $@

install: $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/causalcal demo --out demo-out

# two workers, each test file on one of them (its module fixtures made once)
test: $(VENV)/.installed
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=15

# the suite without the tests marked slow (end-to-end runs, subprocesses): a quick check
test-fast: $(VENV)/.installed
	$(BIN)/python -m pytest -q -m "not slow"

lint: $(VENV)/.installed lint-layers
	$(BIN)/ruff check causalcal simulate bootstrap evaluate tests examples benchmarks studies experiments

# The layer contract (pyproject.toml, docs/design.md §2) on the package as installed: the
# stage folders are copied under causalcal/ as a wheel would place them.
LAYERS := build/layers
lint-layers: $(VENV)/.installed
	rm -rf $(LAYERS) && mkdir -p $(LAYERS)/causalcal
	cp -r causalcal/. $(LAYERS)/causalcal/
	for stage in simulate bootstrap evaluate; do cp -r $$stage $(LAYERS)/causalcal/$$stage; done
	cd $(LAYERS) && PYTHONPATH=. $(abspath $(BIN))/lint-imports --config $(abspath pyproject.toml)
	rm -rf $(LAYERS)

# The documentation site (docs/conf.py): the API reference from every package's __all__,
# the command line's pages, docs/design.md and docs/results.md; warnings are errors.
DOCS_STAMP := $(VENV)/.docs-installed
$(DOCS_STAMP): pyproject.toml | $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e ".[docs,plot]"
	touch $@

docs: $(DOCS_STAMP)
	$(BIN)/sphinx-build -W --keep-going -q -j 2 -b html docs build/docs

clean:
	rm -rf $(VENV) build dist *.egg-info demo-out docs/api/generated docs/api/causalcal*.rst
