# Every target creates .venv and installs the project on first use; later runs are a no-op
# until pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

DEMO := examples/demo

demo: $(STAMP)
	$(BIN)/hookwright run "Clean the build, publish the branch and read the notes." \
		--project $(DEMO) --trust

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/dispatch.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
