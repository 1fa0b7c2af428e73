"""Where hookwright looks for the user's home folder (the trust store, the audit, the caches):
`$HOME` only when it is an absolute path. A relative `HOME` would put the trust store under the
current folder, which for a hook is the project: a repository could trust itself."""

from __future__ import annotations

import json
import pwd
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hookwright.bridges import claude_client
from hookwright.cli.app import app
from hookwright.config.trust import TrustStore
from hookwright.core.home import home_text, user_home

GUARD = {
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]
    }
}


def account(monkeypatch: pytest.MonkeyPatch, folder: Path | None) -> None:
    """This uid's password entry names `folder` (none at all when None)."""

    def entry(uid: int) -> pwd.struct_passwd:
        if folder is None:
            raise KeyError(uid)
        return pwd.struct_passwd(("me", "x", uid, uid, "", str(folder), "/bin/sh"))

    monkeypatch.setattr(pwd, "getpwuid", entry)


def test_an_absolute_home_is_used_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    account(monkeypatch, Path("/elsewhere"))
    assert user_home() == tmp_path
    assert home_text() == str(tmp_path)


@pytest.mark.parametrize("home", ["env/home", ".", "", "~"])
def test_a_home_that_is_not_absolute_gives_way_to_the_account_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: str
) -> None:
    monkeypatch.setenv("HOME", home)
    account(monkeypatch, tmp_path / "account")
    assert user_home() == tmp_path / "account"


def test_no_usable_home_at_all_is_an_error_not_the_current_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", "env/home")
    account(monkeypatch, None)
    with pytest.raises(RuntimeError, match="HOME is not an absolute path"):
        user_home()
    assert home_text() == "~"
    account(monkeypatch, Path("relative/too"))
    with pytest.raises(RuntimeError, match="neither is the password entry's"):
        user_home()


def test_a_trust_store_planted_under_a_relative_home_does_not_trust_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(GUARD))
    TrustStore(project / "env" / "home").trust(project)  # what the repository ships
    account(monkeypatch, tmp_path / "account")
    monkeypatch.setenv("HOME", "env/home")
    monkeypatch.chdir(project)
    runner = CliRunner()

    listed = runner.invoke(app, ["hooks", "list", "--project", ".", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)["hooks"]
    assert rows and all(row["hookwright"]["trusted"] is False for row in rows), listed.stdout

    TrustStore(tmp_path / "account").trust(project)  # the user's own store, in the account's home
    listed = runner.invoke(app, ["hooks", "list", "--project", ".", "--json"])
    rows = json.loads(listed.stdout)["hooks"]
    assert rows and all(row["hookwright"]["trusted"] is True for row in rows), listed.stdout
    assert not (project / "env" / "home" / ".hookwright" / "audit.jsonl").exists()


@pytest.mark.parametrize("home", ["/somewhere/home", "env/home", ".", "", "~", None])
@pytest.mark.parametrize("entry", ["/account", "relative", None])
def test_the_command_client_finds_the_same_home_as_the_daemon(
    monkeypatch: pytest.MonkeyPatch, home: str | None, entry: str | None
) -> None:
    """The standard-library client restates the rule; the daemon it starts keys its socket's
    folder by the home folder, so the two must agree on every input, errors included."""
    if home is None:
        monkeypatch.delenv("HOME", raising=False)
    else:
        monkeypatch.setenv("HOME", home)
    account(monkeypatch, None if entry is None else Path(entry))
    answers = []
    for rule in (user_home, claude_client.user_home):
        try:
            answers.append(rule())
        except RuntimeError:
            answers.append(None)
    assert answers[0] == answers[1]
