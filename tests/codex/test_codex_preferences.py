"""Codex's macOS managed preferences (``com.openai.codex``: ``config_toml_base64``,
``requirements_toml_base64``), read from the plist files macOS keeps forced values in, with
the platform and the files injected; and through a real ``hookwright`` process, whose
``$HOOKWRIGHT_CODEX_MANAGED_PREFERENCES`` stands for the files."""

from __future__ import annotations

import base64
import plistlib
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from tests.cli_runner import run_hookwright
from tests.codex.project import bash, script
from tests.codex.test_codex_layers import inline, run

from hookwright.config.loading import Diagnostic, LoadContext
from hookwright.dialects.codex.layers import CodexLayers, read_layers
from hookwright.dialects.codex.preferences import (
    CONFIG_KEY,
    CONFIG_SOURCE,
    REQUIREMENTS_KEY,
    REQUIREMENTS_SOURCE,
)
from hookwright.dialects.codex.requirements import COMPOSITE_SOURCE
from hookwright.dialects.managed_paths import (
    CODEX_MANAGED_PREFERENCES_ENV,
    Platform,
    codex_managed_preferences,
)


def encoded(toml: str) -> str:
    return base64.b64encode(toml.encode()).decode()


def plist(path: Path, **values: Any) -> Path:
    path.write_bytes(plistlib.dumps(values, fmt=plistlib.FMT_BINARY))
    return path


def layers_with(
    tmp_path: Path, managed: Path, *files: Path, diagnostics: list[Diagnostic] | None = None
) -> CodexLayers:
    ctx = LoadContext(tmp_path / "project", tmp_path / "home")
    found = [] if diagnostics is None else diagnostics
    return read_layers(ctx, found, managed, "darwin", list(files))


def test_macos_reads_the_user_s_then_the_machine_s_forced_preferences() -> None:
    assert codex_managed_preferences("darwin", {}, "amy") == [
        PurePosixPath("/Library/Managed Preferences/amy/com.openai.codex.plist"),
        PurePosixPath("/Library/Managed Preferences/com.openai.codex.plist"),
    ]
    assert codex_managed_preferences("darwin", {"USER": "bo"})[0].parts[-2] == "bo"


@pytest.mark.parametrize("platform", ["unix", "win32"])
def test_no_other_platform_has_managed_preferences(platform: Platform) -> None:
    assert codex_managed_preferences(platform, {}, "amy") == []


@pytest.mark.parametrize("platform", ["unix", "darwin", "win32"])
def test_the_override_stands_for_the_files_on_every_platform(platform: Platform) -> None:
    env = {CODEX_MANAGED_PREFERENCES_ENV: "/p.plist"}
    assert codex_managed_preferences(platform, env, "amy") == [PurePosixPath("/p.plist")]


def test_requirement_hooks_of_a_preference_are_managed_and_come_after_the_file_s(
    tmp_path: Path, managed_dir: Path
) -> None:
    """Codex appends each event's groups layer after layer and names hooks of two layers
    by the composition's path."""
    (managed_dir / "requirements.toml").write_text(inline("file-guard"))
    forced = plist(tmp_path / "p.plist", **{REQUIREMENTS_KEY: encoded(inline("mdm-guard"))})
    hooks = layers_with(tmp_path, managed_dir, forced).hooks
    assert [(h.command, h.layer, h.group_index) for h in hooks] == [
        ("file-guard", "managed", 0),
        ("mdm-guard", "managed", 1),
    ]
    assert {hook.source for hook in hooks} == {COMPOSITE_SOURCE}
    assert [hook.declared_in for hook in hooks] == [managed_dir / "requirements.toml", forced]


def test_a_preference_alone_names_its_hooks_by_its_own_path(
    tmp_path: Path, managed_dir: Path
) -> None:
    forced = plist(
        tmp_path / "p.plist",
        **{REQUIREMENTS_KEY: encoded(inline("mdm-guard")), CONFIG_KEY: encoded(inline("cfg"))},
    )
    (managed_dir / "managed_config.toml").write_text(inline("legacy"))
    hooks = layers_with(tmp_path, managed_dir, forced).hooks
    assert [(hook.command, hook.source) for hook in hooks] == [
        ("mdm-guard", REQUIREMENTS_SOURCE),
        ("legacy", managed_dir / "managed_config.toml"),
        ("cfg", CONFIG_SOURCE),
    ]
    assert hooks[-1].origin.startswith(f"{forced}:hooks.PreToolUse[0]")


def test_the_user_s_file_wins_key_by_key(tmp_path: Path, managed_dir: Path) -> None:
    user = plist(tmp_path / "user.plist", **{REQUIREMENTS_KEY: encoded(inline("user-req"))})
    machine = plist(
        tmp_path / "machine.plist",
        **{REQUIREMENTS_KEY: encoded(inline("machine-req")), CONFIG_KEY: encoded(inline("cfg"))},
    )
    hooks = layers_with(tmp_path, managed_dir, user, machine).hooks
    assert [hook.command for hook in hooks] == ["user-req", "cfg"]


def test_the_preference_s_switches_win_over_the_file_s(tmp_path: Path, managed_dir: Path) -> None:
    (managed_dir / "requirements.toml").write_text(
        "allow_managed_hooks_only = false\n[features]\nhooks = false\n"
    )
    toml = "allow_managed_hooks_only = true\n[features]\nhooks = true\n"
    forced = plist(tmp_path / "p.plist", **{REQUIREMENTS_KEY: encoded(toml)})
    layers = layers_with(tmp_path, managed_dir, forced)
    assert layers.managed_only == forced
    assert layers.pinned is not None and (layers.pinned.file, layers.pinned.value) == (forced, True)


def test_two_managed_hook_folders_are_one_error_line(tmp_path: Path, managed_dir: Path) -> None:
    (managed_dir / "requirements.toml").write_text('[hooks]\nmanaged_dir = "/opt/a"\n')
    toml = '[hooks]\nmanaged_dir = "/opt/b"\n'
    forced = plist(tmp_path / "p.plist", **{REQUIREMENTS_KEY: encoded(toml)})
    problems: list[Diagnostic] = []
    layers_with(tmp_path, managed_dir, forced, diagnostics=problems)
    assert [(p.file, p.path, p.severity) for p in problems] == [
        (str(forced), f"{REQUIREMENTS_KEY}: hooks.managed_dir", "error")
    ]
    assert "'/opt/b' conflicts with '/opt/a'" in problems[0].message


BAD = {
    "not base64": ("%%%", "not valid base64"),
    "not UTF-8": (base64.b64encode(b"\xff\xfe").decode(), "not valid UTF-8"),
    "not TOML": (encoded("[hooks"), "not valid TOML"),
    "not a string": (42, "must be a string of base64"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_data_is_one_error_line_naming_the_file_and_key_and_nothing_is_read(
    case: str, tmp_path: Path, managed_dir: Path
) -> None:
    value, said = BAD[case]
    forced = plist(tmp_path / "p.plist", **{REQUIREMENTS_KEY: value})
    later = plist(tmp_path / "m.plist", **{REQUIREMENTS_KEY: encoded(inline("machine"))})
    problems: list[Diagnostic] = []
    layers = layers_with(tmp_path, managed_dir, forced, later, diagnostics=problems)
    assert layers.hooks == []
    [problem] = problems
    assert (problem.file, problem.path, problem.severity) == (
        str(forced),
        REQUIREMENTS_KEY,
        "error",
    )
    assert said in problem.message and "\n" not in problem.message


def test_a_file_that_is_not_a_property_list_is_one_error_line(
    tmp_path: Path, managed_dir: Path
) -> None:
    forced = tmp_path / "p.plist"
    forced.write_text("not a plist")
    problems: list[Diagnostic] = []
    layers_with(tmp_path, managed_dir, forced, diagnostics=problems)
    assert [(p.file, p.severity) for p in problems] == [(str(forced), "error")]
    assert "not a property list" in problems[0].message


def test_a_forced_guard_refuses_in_a_real_run_without_review(
    tmp_path: Path, managed_dir: Path
) -> None:
    """No review entry: the preference's hook is managed, runs, and its exit 2 keeps the
    command from running."""
    guard = "echo managed says no >&2; exit 2"
    forced = plist(tmp_path / "p.plist", **{REQUIREMENTS_KEY: encoded(inline(guard))})
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".codex").mkdir(parents=True)
    project.mkdir()
    model = script(tmp_path / "s.json", [bash("touch made.txt"), {"content": "ok"}])
    results = run(home, project, model, managed_dir, {CODEX_MANAGED_PREFERENCES_ENV: str(forced)})
    assert results == [
        "Command blocked by PreToolUse hook: managed says no. Command: touch made.txt"
    ]
    assert not (project / "made.txt").exists()


def test_hooks_validate_fails_on_a_bad_preference_naming_file_and_key(
    tmp_path: Path, managed_dir: Path
) -> None:
    forced = plist(tmp_path / "p.plist", **{CONFIG_KEY: "%%%"})
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".codex").mkdir(parents=True)
    project.mkdir()
    env = {
        CODEX_MANAGED_PREFERENCES_ENV: str(forced),
        "HOOKWRIGHT_CODEX_MANAGED_DIR": str(managed_dir),
    }
    done = run_hookwright("hooks", "validate", "--project", str(project), home=home, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    said = (done.stdout + done.stderr).splitlines()
    [line] = [line for line in said if CONFIG_KEY in line]
    assert "error" in line and "not valid base64" in line
    assert any(f"error {forced} (Codex)" in heading for heading in said)
