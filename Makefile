# Two-command set-up: `make demo` runs the embedded end-to-end demo, `make test` the test suite.
# Each creates the virtual environment .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# torch comes from the CPU build; pass extra pip options (e.g. a CPU wheel index) here.
TORCH ?= torch==2.13.0
TORCH_PIP_ARGS ?=
EXTRAS ?= dev,plot,bif,distributed

.PHONY: install demo test lint bench clean

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

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q

lint: $(VENV)/.installed
	$(BIN)/ruff check causalcal simulate bootstrap evaluate tests examples benchmarks

clean:
	rm -rf $(VENV) build dist *.egg-info demo-out
