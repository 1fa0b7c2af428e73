"""A Codex sign-in kept in the system keyring (``cli_auth_credentials_store``): hookwright
never reads the keyring; it takes the user as Codex does where that can be known (measured on
Codex CLI 0.171.0 without a D-Bus session bus: ``keyring`` reads no sign-in, ``auto`` reads
``auth.json``; conformance cases ``curated_with_chatgpt_kept_in_the_keyring*``), and otherwise
says what it assumed and the setting that keeps the sign-in in a file both read."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.codex.test_codex_layers import bound
from tests.codex.test_codex_marketplaces import install, made, signed_in_with_chatgpt

from hookwright.dialects.codex.signin import keyring_answers

KEY = "cli_auth_credentials_store"


@pytest.fixture
def no_session_bus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))


def curated_plugin_signed_in(tmp_path: Path, store: str) -> tuple[Path, Path, Path]:
    """(home, project, config): the curated marketplace's plugin guard installed, the user
    signed in with ChatGPT in ``auth.json``, remote plugins off, and `store` set."""
    home, project = made(tmp_path)
    install(home, market="openai-curated")
    signed_in_with_chatgpt(home, remote_plugins=False)
    config = home / ".codex" / "config.toml"
    config.write_text(f'{KEY} = "{store}"\n' + config.read_text())
    return home, project, config


@pytest.mark.usefixtures("no_session_bus")
def test_a_keyring_sign_in_without_a_session_bus_is_no_sign_in_as_in_codex(
    tmp_path: Path,
) -> None:
    home, project, config = curated_plugin_signed_in(tmp_path, "keyring")
    result = bound(home, project)
    assert result.specs == [], "the curated plugin's guard loaded without a sign-in"
    (said,) = [d for d in result.diagnostics if d.path == KEY]
    assert said.file == str(config) and said.severity == "warning"
    assert "no D-Bus session bus is reachable here" in said.message
    assert "takes the user as not signed in with ChatGPT" in said.message
    assert said.message.endswith(f'set {KEY} = "file" in {config} and sign in again (codex login)')


@pytest.mark.usefixtures("no_session_bus")
def test_auto_without_a_session_bus_reads_auth_json_as_codex_does_and_says_nothing(
    tmp_path: Path,
) -> None:
    home, project, _ = curated_plugin_signed_in(tmp_path, "auto")
    result = bound(home, project)
    assert len(result.specs) == 1
    assert [d for d in result.diagnostics if d.path == KEY] == []


@pytest.mark.parametrize("store", ["keyring", "auto"])
def test_a_reachable_keyring_is_not_read_and_the_warning_says_what_was_assumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: str
) -> None:
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
    home, project, config = curated_plugin_signed_in(tmp_path, store)
    result = bound(home, project)
    assert len(result.specs) == 1
    (said,) = [d for d in result.diagnostics if d.path == KEY]
    assert "which hookwright does not read" in said.message
    assert "takes the user as signed in with ChatGPT" in said.message
    assert said.message.endswith(f'set {KEY} = "file" in {config} and sign in again (codex login)')


def test_the_file_store_says_nothing(tmp_path: Path) -> None:
    home, project, _ = curated_plugin_signed_in(tmp_path, "file")
    assert [d for d in bound(home, project).diagnostics if d.path == KEY] == []


def test_the_session_bus_is_found_where_codex_looks_for_it(tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    assert not keyring_answers({"XDG_RUNTIME_DIR": str(runtime)}, "unix")
    (runtime / "bus").touch()
    assert keyring_answers({"XDG_RUNTIME_DIR": str(runtime)}, "unix")
    assert keyring_answers({"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"}, "unix")
    assert keyring_answers({}, "darwin") and keyring_answers({}, "win32")
