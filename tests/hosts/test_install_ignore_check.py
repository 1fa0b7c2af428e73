"""`install claude-code --mode http` warns when git would commit the settings file holding the
token, without running git or anything the repository configures: the ignore files are read.
Real git serves here only as the judge of what is ignored, in repositories without hostile
configuration."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cli_runner import run_cli
from hookwright.bridges import git_ignore

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")
WARNING = "holds the daemon's token and git does not ignore it: add it to .gitignore"
MARKER_SCRIPT = """#!/bin/sh
echo "$0 $*" >> {marker}
"""


def hookwright(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(list(args), dict(os.environ), timeout=60)


def git(*args: str) -> subprocess.CompletedProcess[str]:
    """Real git with only the test's home configuration (no system file)."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    env.pop("XDG_CONFIG_HOME", None)
    return subprocess.run(
        ["git", *args], capture_output=True, text=True, timeout=60, env=env, check=False
    )


def repository(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    assert git("init", "-q", str(root)).returncode == 0
    return root


def settings_in(project: Path) -> Path:
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("{}\n")
    return settings


def git_commits(settings: Path) -> bool:
    """Real git's verdict: in a work tree and not ignored."""
    done = git("-C", str(settings.parent), "check-ignore", "-q", settings.name)
    assert done.returncode in (0, 1, 128), done.stderr
    return done.returncode == 1


def hostile_config(repo: Path, marker: Path) -> None:
    """Configuration that makes git run a program: fsmonitor, a hooks folder, aliases."""
    script = repo.parent / "payload.sh"
    script.write_text(MARKER_SCRIPT.format(marker=marker))
    script.chmod(0o755)
    hooks = repo.parent / "hooks"
    hooks.mkdir()
    for name in ("post-checkout", "pre-commit", "post-index-change"):
        (hooks / name).symlink_to(script)
    with (repo / ".git" / "config").open("a") as config:
        config.write(
            f"[core]\n\tfsmonitor = {script}\n\thooksPath = {hooks}\n\tpager = {script}\n"
            f"[alias]\n\tcheck-ignore = !{script}\n\tstatus = !{script}\n"
        )


@needs_git
def test_http_install_runs_nothing_the_repository_configures(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    marker = tmp_path / "ran"
    hostile_config(repo, marker)
    git("-C", str(repo), "check-ignore", "-q", "anything")
    assert marker.exists(), "the hostile configuration does not make git run the payload"
    marker.unlink()
    done = hookwright("install", "claude-code", "--project", str(repo), "--mode", "http")
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    [line] = done.stderr.splitlines()
    assert line.startswith("hookwright: warning: ") and WARNING in line
    hookwright("uninstall", "claude-code", "--project", str(repo))
    (repo / ".gitignore").write_text(".claude/settings.local.json\n")
    done = hookwright("install", "claude-code", "--project", str(repo), "--mode", "http")
    assert done.returncode == 0 and done.stderr == ""
    assert not marker.exists()


def test_no_warning_outside_a_work_tree(tmp_path: Path) -> None:
    done = hookwright("install", "claude-code", "--project", str(tmp_path), "--mode", "http")
    assert done.returncode == 0 and done.stderr == ""


#: Each case: files to write (`home/...` in the user's home, else in the test folder), the
#: project folder, and whether git commits its settings file.
CASES: dict[str, tuple[dict[str, str], str, bool]] = {
    "nothing ignored": ({}, "repo", True),
    "root names it": ({"repo/.gitignore": ".claude/settings.local.json\n"}, "repo", False),
    "any depth glob": ({"repo/.gitignore": "*.local.json\n"}, "repo", False),
    "folder's own file": ({"repo/.claude/.gitignore": "settings.local.json\n"}, "repo", False),
    "comment and blank": ({"repo/.gitignore": "# settings.local.json\n\n"}, "repo", True),
    "ignored folder cannot be taken back": (
        {"repo/.gitignore": ".claude/\n!.claude/settings.local.json\n"},
        "repo",
        False,
    ),
    "deeper file takes back": (
        {"repo/.gitignore": "*.json\n", "repo/.claude/.gitignore": "!settings.local.json\n"},
        "repo",
        True,
    ),
    "later pattern takes back": ({"repo/.gitignore": "*.json\n!settings.*.json\n"}, "repo", True),
    "info exclude": ({"repo/.git/info/exclude": "settings.local.json\n"}, "repo", False),
    "global excludes file": (
        {
            "home/.gitconfig": '[user]\n\tname = x\n[core]\n\texcludesFile = "~/ignores" # mine\n',
            "home/ignores": ".claude/\n",
        },
        "repo",
        False,
    ),
    "default global ignore": ({"home/.config/git/ignore": "settings.local.json\n"}, "repo", False),
    "nested project": ({"repo/.gitignore": "sub/.claude/\n"}, "repo/sub", False),
    "anchored elsewhere": ({"repo/.gitignore": "/settings.local.json\n"}, "repo/sub", True),
}


@needs_git
@pytest.mark.parametrize("case", list(CASES))
def test_ignore_rules_agree_with_git(tmp_path: Path, isolated_home: Path, case: str) -> None:
    files, project, commits = CASES[case]
    repository(tmp_path / "repo")
    for name, text in files.items():
        path = isolated_home / name[5:] if name.startswith("home/") else tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    settings = settings_in(tmp_path / project)
    assert git_commits(settings) is commits
    assert git_ignore.committable(settings, isolated_home, {}) is commits


@needs_git
def test_linked_work_tree_reads_the_common_exclude(tmp_path: Path, isolated_home: Path) -> None:
    repo = repository(tmp_path / "repo")
    (repo / "README").write_text("x\n")
    assert git("-C", str(repo), "add", "README").returncode == 0
    commit = git("-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    assert commit.returncode == 0, commit.stderr
    linked = tmp_path / "linked"
    assert git("-C", str(repo), "worktree", "add", "-q", str(linked)).returncode == 0
    settings = settings_in(linked)
    assert git_ignore.committable(settings, isolated_home, {}) is True
    (repo / ".git" / "info" / "exclude").write_text("settings.local.json\n")
    assert git_commits(settings) is False
    assert git_ignore.committable(settings, isolated_home, {}) is False


def test_linked_or_endless_ignore_files_are_not_read(tmp_path: Path, isolated_home: Path) -> None:
    """An in-tree ignore file that is a link (git does not follow it either), a FIFO, or a
    global excludes file that never ends: passed over, and install still answers."""
    repo = tmp_path / "repo"
    (repo / ".git" / "info").mkdir(parents=True)
    rules = tmp_path / "rules"
    rules.write_text("settings.local.json\n")
    (repo / ".gitignore").symlink_to(rules)
    (repo / ".git" / "info" / "exclude").symlink_to(rules)
    (repo / ".claude").mkdir()
    os.mkfifo(repo / ".claude" / ".gitignore")
    (isolated_home / ".gitconfig").write_text("[core]\n\texcludesfile = /dev/zero\n")
    done = hookwright("install", "claude-code", "--project", str(repo), "--mode", "http")
    assert done.returncode == 0, done.stderr
    [line] = done.stderr.splitlines()
    assert WARNING in line


def test_a_settings_file_outside_any_work_tree_is_not_committable(
    tmp_path: Path, isolated_home: Path
) -> None:
    assert git_ignore.committable(settings_in(tmp_path), isolated_home, {}) is False
