# The two commands a new user needs: `make run` and `make test`.  Both create (or reuse) .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# `make run ARGS="--port 9000"`; set REDIS_URL to use a Redis server instead of the embedded Valkey.
ARGS ?=

.PHONY: run test lint

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/hauntd serve $(ARGS)

lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest
