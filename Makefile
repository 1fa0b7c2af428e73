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
	@echo "== PreToolUse: Bash 'cd build && rm -rf /' (a hook denies it)"
	@$(BIN)/hookwright hooks test PreToolUse --project $(DEMO) --input $(DEMO)/inputs/rm.json
	@echo "== PreToolUse: Bash 'FORCE=1 git push origin main' (a hook rewrites it)"
	@$(BIN)/hookwright hooks test PreToolUse --project $(DEMO) --input $(DEMO)/inputs/push.json
	@echo "== SessionStart (a hook adds context)"
	@$(BIN)/hookwright hooks test SessionStart --project $(DEMO) --input $(DEMO)/inputs/start.json

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
