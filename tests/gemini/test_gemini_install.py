"""`hookwright install gemini` / `uninstall gemini` as real subprocesses: what they write into
a Gemini CLI `settings.json`, and the files they refuse (a link out of the project, a file of
another user or writable by every user, content Gemini or hookwright cannot read, a huge
file), each refusal one line with every file left as it was."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from tests.cli_runner import run_hookwright
from tests.gemini.project import guarded_project, shell_call

#: A project's own Gemini settings: tabs, a comment-free JSON object with keys of its own.
OWN = (
    b'{\n\t"general": {"vimMode": true},\n\t"hooks": {"AfterTool": '
    b'[{"hooks": [{"type": "command", "command": "mine"}]}]}\n}\n'
)


def settings_of(project: Path) -> Path:
    return project / ".gemini" / "settings.json"


def install(home: Path, project: Path) -> subprocess.CompletedProcess[str]:
    return run_hookwright("install", "gemini", "--project", str(project), home=home)


def uninstall(home: Path, project: Path) -> subprocess.CompletedProcess[str]:
    return run_hookwright("uninstall", "gemini", "--project", str(project), home=home)


def test_install_keeps_every_key_and_uninstall_restores_bytes_and_mode(tmp_path: Path) -> None:
    home, project = tmp_path / "home", guarded_project(tmp_path / "project")
    settings_of(project).parent.mkdir()
    settings_of(project).write_bytes(OWN)
    os.chmod(settings_of(project), 0o640)
    installed = install(home, project)
    assert installed.returncode == 0, installed.stderr
    data = json.loads(settings_of(project).read_text())
    assert data["general"] == {"vimMode": True}
    assert data["hooks"]["AfterTool"][0]["hooks"][0]["command"] == "mine"
    ours = data["hooks"]["BeforeTool"][0]["hooks"][0]
    assert ours["command"].endswith("-I -m hookwright hook gemini")
    assert (ours["name"], ours["timeout"]) == ("hookwright", 30000)
    events = {"SessionStart", "BeforeAgent", "BeforeModel", "BeforeTool", "AfterTool"}
    assert events | {"AfterAgent", "Notification", "SessionEnd"} == set(data["hooks"])
    assert '\n\t"hooks": {\n\t\t"AfterTool"' in settings_of(project).read_text()
    assert install(home, project).stdout.startswith("hookwright already installed in")
    removed = uninstall(home, project)
    assert removed.returncode == 0, removed.stderr
    assert settings_of(project).read_bytes() == OWN
    assert stat.S_IMODE(settings_of(project).stat().st_mode) == 0o640


def test_the_installed_command_answers_as_gemini_runs_it_and_imports_nothing_of_the_project(
    tmp_path: Path,
) -> None:
    """`bash -c COMMAND` in the project, as Gemini runs a hook: a `hookwright` package and a
    `json.py` in the project are not imported."""
    home, project = tmp_path / "home", guarded_project(tmp_path / "project")
    (project / "hookwright").mkdir()
    (project / "hookwright" / "__init__.py").write_text("open('PWNED', 'w')\n")
    (project / "json.py").write_text("open('PWNED', 'w')\n")
    assert run_hookwright("trust", str(project), home=home).returncode == 0
    assert install(home, project).returncode == 0
    command = json.loads(settings_of(project).read_text())["hooks"]["BeforeTool"][0]
    env = {**os.environ, "HOME": str(home), "GEMINI_PROJECT_DIR": str(project)}
    env.pop("HOOKWRIGHT_HOOK_RUN", None)
    ran = subprocess.run(
        ["bash", "-c", command["hooks"][0]["command"]],
        input=shell_call(project, "rm -rf build").encode(),
        capture_output=True,
        cwd=project,
        env=env,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["decision"] == "deny"
    assert not (project / "PWNED").exists()


def test_a_user_install_creates_the_file_and_uninstall_removes_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run_hookwright("install", "gemini", "--user", home=home).returncode == 0
    assert (home / ".gemini" / "settings.json").is_file()
    assert run_hookwright("uninstall", "gemini", "--user", home=home).returncode == 0
    assert not (home / ".gemini" / "settings.json").exists()


def test_install_says_when_gemini_or_hookwright_does_not_trust_the_folder(tmp_path: Path) -> None:
    home, project = tmp_path / "home", guarded_project(tmp_path / "project")
    said = install(home, project).stderr
    assert f"Gemini CLI does not trust {project}" in said
    assert f'"{project}": "TRUST_FOLDER"' in said
    assert (
        f"its hooks will not run inside Gemini CLI until you run: hookwright trust {project}"
        in said
    )
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(project): "TRUST_FOLDER"})
    )
    assert run_hookwright("trust", str(project), home=home).returncode == 0
    assert install(home, project).stderr == ""


def test_exactly_one_of_project_or_user(tmp_path: Path) -> None:
    done = run_hookwright("install", "gemini", home=tmp_path)
    assert done.returncode == 2
    assert "give exactly one of --project DIR or --user" in done.stderr


def refused(home: Path, project: Path, said: str) -> None:
    done = install(home, project)
    assert done.returncode == 2, done.stdout
    assert said in done.stderr
    assert done.stderr.count("\n") == 1


def test_a_settings_link_leaving_the_project_is_refused(tmp_path: Path) -> None:
    home, project = tmp_path / "home", guarded_project(tmp_path / "project")
    victim = home / ".gemini" / "settings.json"
    victim.parent.mkdir(parents=True)
    victim.write_bytes(b'{"security": {}}\n')
    (project / ".gemini").mkdir()
    settings_of(project).symlink_to(victim)
    refused(home, project, "is a link leaving the project")
    assert victim.read_bytes() == b'{"security": {}}\n'
    assert not (home / ".hookwright" / "installs").exists()


def test_a_gemini_folder_link_leaving_the_project_is_refused(tmp_path: Path) -> None:
    home, project = tmp_path / "home", guarded_project(tmp_path / "project")
    (home / ".gemini").mkdir(parents=True)
    (project / ".gemini").symlink_to(home / ".gemini")
    refused(home, project, "is a link leaving the project")
    assert list((home / ".gemini").iterdir()) == []


def test_a_world_writable_settings_file_is_refused(tmp_path: Path) -> None:
    home, project = tmp_path / "home", guarded_project(tmp_path / "project")
    settings_of(project).parent.mkdir()
    settings_of(project).write_bytes(OWN)
    os.chmod(settings_of(project), 0o666)
    refused(home, project, "is writable by every user")
    assert settings_of(project).read_bytes() == OWN


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_a_settings_file_of_another_user_is_refused(tmp_path: Path) -> None:
    home, project = tmp_path / "home", guarded_project(tmp_path / "project")
    settings_of(project).parent.mkdir()
    settings_of(project).write_bytes(OWN)
    os.chown(settings_of(project), 4321, -1)
    refused(home, project, "belongs to another user (uid 4321)")
    assert settings_of(project).read_bytes() == OWN


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    home, project = tmp_path / "home", guarded_project(tmp_path / "project")
    settings_of(project).parent.mkdir()
    os.mkfifo(settings_of(project))
    refused(home, project, "is not a regular file")


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b'{\n  // Gemini reads comments\n  "ui": {}\n}\n', "is not valid JSON"),
        (b'{"hooks": {"enabled": true}}', "hooks.enabled must be a list, found boolean"),
        (b'{"hooks": []}', "hooks must be an object, found list"),
        (b'{"a": NaN}', "not a finite number"),
        (b'{"a": "\\ud800"}', "lone surrogate"),
        (b"[" * 300 + b"]" * 300, "nesting is deeper than"),
        (b"\xff\xfe{}", "is not valid UTF-8"),
        (b'"just text"', "is not a JSON object"),
    ],
)
def test_content_that_cannot_be_read_is_refused_and_kept(
    tmp_path: Path, content: bytes, said: str
) -> None:
    home, project = tmp_path / "home", guarded_project(tmp_path / "project")
    settings_of(project).parent.mkdir()
    settings_of(project).write_bytes(content)
    refused(home, project, said)
    assert settings_of(project).read_bytes() == content
    assert uninstall(home, project).returncode == 2
    assert settings_of(project).read_bytes() == content


def test_a_huge_settings_file_is_refused(tmp_path: Path) -> None:
    home, project = tmp_path / "home", guarded_project(tmp_path / "project")
    settings_of(project).parent.mkdir()
    huge = b'{"a": "' + b"x" * 10_000_001 + b'"}'
    settings_of(project).write_bytes(huge)
    refused(home, project, "is longer than 10,000,000 characters")
    assert settings_of(project).stat().st_size == len(huge)
