# Every target creates .venv and installs the project on first use; later runs are a no-op
# until pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
MYPY := $(BIN)/mypy

.PHONY: demo test lint typecheck unit fuzz bench clean browser conformance conformance-hosts

$(STAMP): pyproject.toml
	@echo "installing hookwright and its dependencies into $(VENV) (the first time takes a few minutes)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

DEMO := examples/demo

# Always the bundled scripted model, named explicitly: no key, no network, even when
# OPENAI_API_KEY / ANTHROPIC_API_KEY / OPENAI_BASE_URL are set.
demo: $(STAMP)
	$(BIN)/python -m hookwright run "Clean the build, publish the branch and read the notes." \
		--project $(DEMO) --trust --skill careful --summary \
		--model scripted:$(abspath $(DEMO))/.hookwright/script.yaml

lint: $(STAMP)
	$(BIN)/ruff check src tests bench conformance
	$(BIN)/ruff format --check src tests bench conformance

typecheck: $(STAMP)
	$(MYPY)

# One worker process more than the machine has cores (3 on the 2-core machine the suite is sized
# for): most of a test's time is spent waiting on what it started (a command-line run, a hook's
# timeout, a server's answer), and the extra worker runs a test in those waits. Each test is
# isolated (its own HOME, temporary folder and ports), so any test may run beside any other.
# `-rs` prints why each skipped test was skipped (a missing browser, CLI or network).
CORES := $(shell nproc 2>/dev/null || echo 2)
PYTEST_WORKERS ?= $(shell echo $$(($(CORES) + 1)))
# The suite starts Python thousands of times (the command line, daemons, warm interpreters,
# hooks). Where PYTHONDONTWRITEBYTECODE is set (some shells and CI images set it), each start
# would compile hookwright from source again (about half as much CPU again per command-line
# start) and each worker would rewrite every test module's asserts: bytecode goes to a cache
# in the venv instead, never into the source tree or a test's project folders.
PYCACHE := $(abspath $(VENV))/pycache

# Two pytest plugins that come with dependencies and that no test uses are not loaded: LangSmith's
# (most of a second of CPU in each pytest process, the controller's before any worker starts) and
# anyio's (the async tests run under pytest-asyncio).
UNUSED_PLUGINS := -p no:langsmith_plugin -p no:anyio

PYTEST := PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(PYCACHE) \
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal -rs $(UNUSED_PLUGINS)

unit: $(STAMP) browser
	$(PYTEST)

# mypy checks beside pytest (on a fresh clone it has no cache yet and takes most of a minute of
# CPU, which fits in the waits of the tests); its report is kept and printed once pytest ends,
# and `make test` fails when either fails. Later runs reuse .mypy_cache and take a few seconds.
MYPY_REPORT := $(VENV)/mypy-report.txt

test: lint browser
	@$(MYPY) > $(MYPY_REPORT) 2>&1 & mypy=$$!; \
	echo "$(PYTEST)"; $(PYTEST); tests=$$?; \
	wait $$mypy; typecheck=$$?; \
	echo "$(MYPY)"; cat $(MYPY_REPORT); \
	test $$tests = 0 && test $$typecheck = 0

# The fuzz suite with its long profile: over 100,000 generated inputs (`make test` runs the
# same properties with a few examples each); prints the count of inputs at the end.
fuzz: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider tests/fuzz --hypothesis-profile=fuzz

# Headless Chromium and its driver for tests/server/test_page.py (Debian packages; no download
# by the tests themselves). Installs only when missing and when running as root.
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && apt-get install -y -qq chromium chromium-driver; \
	else \
		echo "browser: chromium/chromedriver missing; run 'make browser' as root" >&2; \
	fi

# Differential suites against the real Claude Code, Gemini and Codex CLIs (installed from npm into a temporary
# folder for the run; SKIP when npm or a CLI is unavailable). Not part of `make test`.
conformance: $(STAMP)
	$(BIN)/python -m conformance --claude-code-version 2.1.240
	$(BIN)/python -m conformance --claude-code-version 2.1.332
	$(BIN)/python -m conformance.gemini
	$(BIN)/python -m conformance.codex

# Real Claude Code, Codex and Gemini CLI governed by a project's OpenHarness and Python hooks
# (SKIP without the CLI).
conformance-hosts: $(STAMP)
	$(BIN)/python -m conformance.hosts --claude-version 2.1.240
	$(BIN)/python -m conformance.hosts --claude-version 2.1.332
	$(BIN)/python -m conformance.codex.hosts
	$(BIN)/python -m conformance.gemini.hosts

bench: $(STAMP)
	$(BIN)/python bench/dispatch.py
	$(BIN)/python bench/rpc.py
	$(BIN)/python bench/python_hook.py
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/daemon.py
	$(BIN)/python bench/actions.py
	$(BIN)/python bench/replay.py
	$(BIN)/python bench/routes.py
	$(BIN)/python bench/summary.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
