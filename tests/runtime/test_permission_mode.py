"""`permissions.defaultMode` in Claude Code settings picks the mode of `hookwright run` when no
`--permission-mode` is given, as Claude Code 2.1.240 does (measured: local > project > user,
an explicit mode wins, `manual` = default, `auto` refused from project settings,
`disableBypassPermissionsMode` skips a bypass). Checked through the CLI: the mode every hook
read on stdin, whether the Write call ran, and what stderr said."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli_runner import run_hookwright

WRITE_CALL = {"name": "Write", "arguments": {"file_path": "out.txt", "content": "hi\n"}}
LOGGER = "import sys\nopen(sys.argv[1], 'a').write(sys.stdin.read())\n"


@dataclass
class Outcome:
    modes: list[str]
    wrote: bool
    stderr: str


class Setup:
    def __init__(self, tmp: Path, home: Path) -> None:
        self.tmp, self.home = tmp, home
        self.project = tmp / "project"
        self.managed = tmp / "managed"
        for folder in (self.project / ".claude", self.managed, home / ".claude"):
            folder.mkdir(parents=True, exist_ok=True)
        self.log = tmp / "hooks.jsonl"
        logger = tmp / "logger.py"
        logger.write_text(LOGGER)
        handler = {"type": "command", "command": f'"{sys.executable}" "{logger}" "{self.log}"'}
        hooks = {event: [{"hooks": [handler]}] for event in ("UserPromptSubmit", "PreToolUse")}
        self.files: dict[str, dict[str, Any]] = {"user": {"hooks": hooks}}
        self.write("user")

    def path(self, kind: str) -> Path:
        return {
            "user": self.home / ".claude" / "settings.json",
            "project": self.project / ".claude" / "settings.json",
            "local": self.project / ".claude" / "settings.local.json",
            "managed": self.managed / "managed-settings.json",
        }[kind]

    def write(self, kind: str, **permissions: Any) -> Path:
        data = self.files.setdefault(kind, {})
        data.setdefault("permissions", {}).update(permissions)
        self.path(kind).write_text(json.dumps(data))
        return self.path(kind)

    def run(self, *args: str) -> Outcome:
        script = self.tmp / "model.yaml"
        script.write_text(
            yaml.safe_dump({"turns": [{"tool_calls": [WRITE_CALL]}, {"content": "ok"}]})
        )
        self.log.unlink(missing_ok=True)
        proc = run_hookwright(
            "run",
            "write it",
            "--project",
            str(self.project),
            "--model",
            f"scripted:{script}",
            "--json",
            *args,
            home=self.home,
            env={"HOOKWRIGHT_CLAUDE_MANAGED_DIR": str(self.managed)},
        )
        assert proc.returncode == 0, proc.stderr
        modes = [json.loads(line)["permission_mode"] for line in self.log.read_text().splitlines()]
        return Outcome(modes, (self.project / "out.txt").exists(), proc.stderr)


@pytest.fixture
def setup(tmp_path: Path, isolated_home: Path) -> Setup:
    return Setup(tmp_path, isolated_home)


@pytest.mark.parametrize(
    ("by_kind", "expected"),
    [
        ({}, "default"),
        ({"project": "acceptEdits"}, "acceptEdits"),
        ({"user": "acceptEdits", "project": "plan"}, "plan"),
        ({"project": "plan", "local": "acceptEdits"}, "acceptEdits"),
        ({"managed": "plan", "local": "acceptEdits"}, "plan"),
        ({"user": "acceptEdits", "project": "bogus"}, "acceptEdits"),
        ({"project": "manual"}, "default"),
    ],
)
def test_the_highest_precedence_default_mode_is_what_hooks_read(
    setup: Setup, by_kind: dict[str, str], expected: str
) -> None:
    for kind, mode in by_kind.items():
        setup.write(kind, defaultMode=mode)
    outcome = setup.run("--trust")
    assert outcome.modes == [expected, expected]
    assert outcome.wrote == (expected == "acceptEdits")


def test_an_explicit_permission_mode_wins(setup: Setup) -> None:
    setup.write("local", defaultMode="acceptEdits")
    outcome = setup.run("--trust", "--permission-mode", "default")
    assert (outcome.modes, outcome.wrote) == (["default", "default"], False)


def test_a_config_file_mode_ranks_above_local_settings(setup: Setup) -> None:
    setup.write("local", defaultMode="acceptEdits")
    flag = setup.tmp / "flag.json"
    flag.write_text(json.dumps({"hooks": {"Stop": []}, "permissions": {"defaultMode": "plan"}}))
    outcome = setup.run("--trust", "--config", str(flag))
    assert outcome.modes == ["plan", "plan"]


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions"])
def test_an_untrusted_projects_default_mode_never_applies(setup: Setup, mode: str) -> None:
    settings = setup.write("project", defaultMode=mode)
    outcome = setup.run()
    assert (outcome.modes, outcome.wrote) == (["default", "default"], False)
    assert f"warning: {settings}: permissions: not used, this folder is not trusted" in (
        outcome.stderr
    )


def test_a_bypass_from_settings_applies_with_a_warning_naming_the_file(setup: Setup) -> None:
    settings = setup.write("project", defaultMode="bypassPermissions")
    outcome = setup.run("--trust")
    assert (outcome.modes, outcome.wrote) == (["bypassPermissions"] * 2, True)
    assert (
        f"warning: {settings}: permissions.defaultMode: bypassPermissions: every tool call runs "
        "without asking"
    ) in outcome.stderr.splitlines()


@pytest.mark.parametrize("explicit", [False, True])
def test_disable_bypass_permissions_mode_skips_a_bypass(setup: Setup, explicit: bool) -> None:
    managed = setup.write("managed", disableBypassPermissionsMode="disable")
    setup.write("user", defaultMode="acceptEdits" if explicit else "bypassPermissions")
    args = ("--permission-mode", "bypassPermissions") if explicit else ()
    outcome = setup.run("--trust", *args)
    expected = "acceptEdits" if explicit else "default"
    assert outcome.modes == [expected, expected]
    assert (
        f"warning: {managed}: permissions.disableBypassPermissionsMode: bypassPermissions is "
        "disabled by settings; not used"
    ) in outcome.stderr.splitlines()


def test_auto_from_project_settings_is_refused(setup: Setup) -> None:
    setup.write("user", defaultMode="acceptEdits")
    settings = setup.write("project", defaultMode="auto")
    outcome = setup.run("--trust")
    assert outcome.modes == ["acceptEdits", "acceptEdits"]
    assert (
        f"warning: {settings}: permissions.defaultMode: auto is ignored: only managed, user and "
        "--config settings may grant it"
    ) in outcome.stderr.splitlines()
