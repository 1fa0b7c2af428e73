"""Codex's `.codex` folders between the repository root and the project: read in Codex's
order, each trusted and reviewed on its own, none above the root or behind a link out of it.
Through `python -m hookwright run` and `hooks list` in a subfolder of a repository."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli_runner import run_hookwright
from tests.codex.project import command, script

from hookwright.dialects.codex.config import LayerFiles, layer_hooks
from hookwright.dialects.codex.layers import MANAGED_DIR_ENV
from hookwright.dialects.codex.review import review_key, trusted_hash
from hookwright.dialects.codex.root import ROOT_SEARCH_LIMIT, project_folders

LEVELS = ("above", "repo", "sub", "deep")


def nested(tmp_path: Path, *, unreviewed: str = "") -> tuple[Path, Path, Path, Path]:
    """(home, repo root, the project two folders below it, the log every hook appends to).
    A `.codex` in the folder above the repository, in its root, in `sub` and in `sub/deep`,
    each with a UserPromptSubmit hook logging its folder's name; all reviewed but
    `unreviewed`'s."""
    home, repo, log = tmp_path / "home", tmp_path / "repo", tmp_path / "ran.log"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (home / ".codex").mkdir(parents=True)
    folders = dict(zip(LEVELS, (tmp_path, repo, repo / "sub", repo / "sub" / "deep"), strict=True))
    reviews = []
    for name, folder in folders.items():
        codex = folder / ".codex"
        codex.mkdir(parents=True)
        hooks = {"UserPromptSubmit": command(f"echo {name} >> {log}")}
        (codex / "hooks.json").write_text(json.dumps({"hooks": hooks}))
        if name != unreviewed:
            (hook,) = layer_hooks(LayerFiles("project", codex, None), [])
            reviews.append(f'[hooks.state."{review_key(hook)}"]\n')
            reviews.append(f'trusted_hash = "{trusted_hash(hook)}"\n')
    (home / ".codex" / "config.toml").write_text("".join(reviews))
    return home, repo, folders["deep"], log


def _env(home: Path) -> dict[str, str]:
    return {"CODEX_HOME": str(home / ".codex"), MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV]}


def run(home: Path, project: Path, model: Path, *extra: str) -> str:
    done = run_hookwright(
        "run",
        "go",
        "--project",
        str(project),
        "--model",
        f"scripted:{model}",
        "--permission-mode",
        "bypassPermissions",
        *extra,
        home=home,
        env=_env(home),
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def ran(log: Path) -> list[str]:
    return sorted(log.read_text().split()) if log.exists() else []


def test_a_run_in_a_subfolder_runs_every_codex_folder_from_the_repository_root(
    tmp_path: Path,
) -> None:
    home, repo, deep, log = nested(tmp_path)
    assert run_hookwright("trust", str(repo), home=home).returncode == 0
    run(home, deep, script(tmp_path / "s.json", [{"content": "ok"}]))
    assert ran(log) == ["deep", "repo", "sub"]
    listed = run_hookwright("hooks", "list", "--project", str(deep), home=home, env=_env(home))
    assert listed.returncode == 0, listed.stderr
    order = [listed.stdout.index(f"echo {name} ") for name in ("repo", "sub", "deep")]
    assert order == sorted(order)
    assert "echo above" not in listed.stdout


def test_each_folder_needs_its_own_trust_and_review(tmp_path: Path) -> None:
    """Trusting the project trusts it, not the folders above it; a hook of a folder above
    that Codex has not reviewed does not run, and hookwright names the review entry."""
    home, repo, deep, log = nested(tmp_path, unreviewed="sub")
    model = script(tmp_path / "s.json", [{"content": "ok"}, {"content": "ok"}])
    assert run_hookwright("trust", str(deep), home=home).returncode == 0
    run(home, deep, model)
    assert ran(log) == ["deep"]
    listed = run_hookwright("hooks", "list", "--project", str(deep), home=home, env=_env(home))
    assert listed.stdout.count("not trusted: will not run") == 3
    assert listed.stdout.rstrip().endswith(f"hookwright trust {repo}")
    log.unlink()
    assert run_hookwright("trust", str(repo), home=home).returncode == 0
    said = run(home, deep, model)
    assert ran(log) == ["deep", "repo"]
    key = f"{repo / 'sub' / '.codex' / 'hooks.json'}:user_prompt_submit:0:0"
    assert f'[hooks.state."{key}"]' in said


def test_the_deepest_folder_s_hooks_feature_wins(tmp_path: Path) -> None:
    """As in Codex: `hooks = false` in `sub` turns every hook off, `hooks = true` in the
    project below it turns them back on."""
    home, repo, deep, log = nested(tmp_path)
    (repo / "sub" / ".codex" / "config.toml").write_text("[features]\nhooks = false\n")
    assert run_hookwright("trust", str(repo), home=home).returncode == 0
    model = script(tmp_path / "s.json", [{"content": "ok"}, {"content": "ok"}])
    run(home, deep, model)
    assert ran(log) == []
    (deep / ".codex" / "config.toml").write_text("[features]\nhooks = true\n")
    run(home, deep, model)
    assert ran(log) == ["deep", "repo", "sub"]


def test_a_codex_folder_linked_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    home, repo, deep, log = nested(tmp_path)
    outside = tmp_path / "elsewhere"
    (repo / "sub" / ".codex").rename(outside)
    (repo / "sub" / ".codex").symlink_to(outside)
    assert run_hookwright("trust", str(repo), home=home).returncode == 0
    checked = run_hookwright("hooks", "validate", "--project", str(deep), home=home, env=_env(home))
    assert "links outside the repository" in checked.stdout + checked.stderr
    run(home, deep, script(tmp_path / "s.json", [{"content": "ok"}]))
    assert ran(log) == ["deep", "repo"]


def test_a_deep_tree_is_searched_a_bounded_way_up(tmp_path: Path) -> None:
    """A repository root beyond the search limit is not found: the project alone is read."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    near = tmp_path.joinpath(*["d"] * (ROOT_SEARCH_LIMIT - 1))
    far = near / "d" / "d"
    far.mkdir(parents=True)
    assert project_folders(near, [])[0] == tmp_path / ".codex"
    assert project_folders(far, []) == [far / ".codex"]
