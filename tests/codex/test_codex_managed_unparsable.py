"""A managed Codex file that cannot be read (``/etc/codex/requirements.toml``, its
``config.toml`` and legacy ``managed_config.toml``): Codex CLI 0.171.0 does not start ("Error
loading config.toml: failed to parse requirements layer /etc/codex/requirements.toml: TOML
parse error ..."); hookwright does not start either under a policy that fails Codex's hooks
closed, and otherwise runs on saying so in one error line."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.cli_runner import run_scripted
from tests.codex.project import bash, script
from tests.codex.test_codex_cloud_policy import CLOSED_CODEX
from tests.codex.test_codex_layers import hooks_json, reviews

MANAGED_FILES = ("requirements.toml", "config.toml", "managed_config.toml")
#: Not TOML.
UNPARSABLE = "hooks = [\n"


def broken_managed(
    tmp_path: Path, managed_dir: Path, name: str, policy: str | None
) -> tuple[Path, Path, dict[str, str]]:
    """(home, project, env): the managed file `name` unparsable, a reviewed project hook that
    leaves a mark when it runs, and `policy` as the user's."""
    home, project = tmp_path / "home", tmp_path / "project"
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True)
    hooks_json(project / ".codex", f"touch {tmp_path / 'hook-ran'}")
    (codex_home / "config.toml").write_text(reviews(project / ".codex"))
    (managed_dir / name).write_text(UNPARSABLE)
    if policy is not None:
        (home / ".hookwright").mkdir()
        (home / ".hookwright" / "policy.yaml").write_text(policy)
    env = {"CODEX_HOME": str(codex_home), "HOOKWRIGHT_CODEX_MANAGED_DIR": str(managed_dir)}
    return home, project, env


@pytest.mark.parametrize("name", MANAGED_FILES)
def test_a_fail_closed_run_does_not_start(tmp_path: Path, managed_dir: Path, name: str) -> None:
    home, project, env = broken_managed(tmp_path, managed_dir, name, CLOSED_CODEX)
    model = script(tmp_path / "s.json", [bash("touch made.txt"), {"content": "ok"}])
    done = run_scripted(project, model, "--json", home=home, env=env)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith(f"hookwright: error: not starting: {managed_dir / name}: invalid TOML")
    assert "Codex does not start while it cannot read it: fix or remove it" in line
    assert line.endswith("fails its hooks closed")
    assert not (project / "made.txt").exists() and not (tmp_path / "hook-ran").exists()


@pytest.mark.parametrize("name", MANAGED_FILES)
def test_a_run_the_policy_does_not_close_says_so_and_goes_on(
    tmp_path: Path, managed_dir: Path, name: str
) -> None:
    home, project, env = broken_managed(tmp_path, managed_dir, name, None)
    model = script(tmp_path / "s.json", [bash("touch made.txt"), {"content": "ok"}])
    done = run_scripted(project, model, "--json", home=home, env=env)
    assert done.returncode == 0, done.stderr
    assert (project / "made.txt").exists() and (tmp_path / "hook-ran").exists()
    said = [line for line in done.stderr.splitlines() if str(managed_dir / name) in line]
    assert len(said) == 1 and said[0].startswith(f"error: {managed_dir / name}: invalid TOML")
    assert "Codex does not start while it cannot read it" in said[0]


def test_a_user_config_that_does_not_parse_is_not_required(
    tmp_path: Path, managed_dir: Path
) -> None:
    """The user's own file is not the organization's: a fail-closed policy still starts."""
    home, project, env = broken_managed(tmp_path, managed_dir, "unused.toml", CLOSED_CODEX)
    with (home / ".codex" / "config.toml").open("a") as config:
        config.write(UNPARSABLE)
    model = script(tmp_path / "s.json", [{"content": "ok"}])
    done = run_scripted(project, model, "--json", home=home, env=env)
    assert done.returncode == 0, done.stderr
    assert "not starting" not in done.stderr
