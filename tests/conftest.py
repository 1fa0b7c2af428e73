from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# Discovery knows the dialects their package registers on import (an application opens projects
# through hookwright.host.open, which imports them); tests call discovery directly.
import hookwright.dialects  # noqa: F401
from claude_pin import MEASURED_ON, PIN_ENV
from runtime.fake_llm_server import FakeLLMServer


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C restored for the processes the tests start: a suite started in the background
    by a shell without job control (`make test &` in a script) inherits SIGINT ignored, and
    an ignored signal stays ignored across `exec`, so every run a test interrupts with SIGINT
    would ignore it. A handled signal is reset to its default at `exec`."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Every test gets its own HOME so nothing reads or writes the real user's files, and Claude
    Code 2.1.240 pinned (`$HOOKWRIGHT_CLAUDE_CODE_VERSION`), the version most tests' expected
    wording was measured on; tests of a newer profile choose it themselves. A daemon a test
    starts serves http from one process (`HOOKWRIGHT_DAEMON_WORKERS`; the default is one per
    core): its counts, connection cap and loaded projects are then the whole front's, and
    the suite does not start a worker per daemon; the tests of several processes, and of the
    default, set or remove it themselves."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOOKWRIGHT_DAEMON_WORKERS", "1")
    monkeypatch.setenv(PIN_ENV, MEASURED_ON)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("HOOKWRIGHT_AUDIT_LOG", raising=False)
    yield home


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    """A fake OpenAI and Anthropic API on 127.0.0.1 for one test (the reference agent's model
    in `tests/runtime` and `tests/codex`); stopped, its threads joined, when the test ends."""
    with FakeLLMServer() as running:
        yield running


#: `make fuzz`: each fuzz property runs its share (tests/fuzz/budget.py) of 10,000 inputs instead
#: of the default 100; the shares add up to more than 100,000 inputs.
settings.register_profile("fuzz", max_examples=10_000, print_blob=True)
