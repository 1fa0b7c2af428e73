"""A plugin's Codex hooks run only when Codex loads the plugin: the requirements'
``[marketplaces]`` restriction, ``[features] plugins``, OpenAI's reserved marketplace names
and the user's sign-in, as Codex CLI 0.171.0 applies them (measured by the conformance
suite's ``plugin_marketplace_*``, ``plugins_feature_*``, ``reserved_name_*``, ``curated_*``
and ``bundled_folder_*`` cases)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli_runner import run_scripted
from tests.codex.project import bash, script
from tests.codex.test_codex_layers import bound, hooks_json

from hookwright.dialects.codex.config import LayerFiles, layer_hooks
from hookwright.dialects.codex.marketplaces import GitSource, LocalSource, parse_source
from hookwright.dialects.codex.review import review_key, trusted_hash

RESTRICTED = "[marketplaces]\nrestrict_to_allowed_sources = true\n"
GUARD = "touch plugin-ran.txt"


def install(home: Path, market: str = "corp", source: str | None = None) -> None:
    """The plugin `guard@<market>` as `codex plugin add` leaves it, enabled and reviewed;
    its marketplace configured with the local `source` when given."""
    root = home / ".codex" / "plugins" / "cache" / market / "guard" / "1.0.0"
    (root / ".codex-plugin").mkdir(parents=True)
    (root / ".codex-plugin" / "plugin.json").write_text('{"name": "guard"}')
    hooks_json(root / "hooks", GUARD)
    (hook,) = layer_hooks(LayerFiles("plugin", root / "hooks", None), [])
    key = review_key(hook).replace(str(root / "hooks" / "hooks.json"), "")
    key = f"guard@{market}:hooks/hooks.json{key}"
    config = f'[plugins."guard@{market}"]\nenabled = true\n'
    config += f'[hooks.state.{json.dumps(key)}]\ntrusted_hash = "{trusted_hash(hook)}"\n'
    if source is not None:
        config += f'[marketplaces.{market}]\nsource_type = "local"\nsource = "{source}"\n'
    (home / ".codex" / "config.toml").write_text(config)


def allowed(name: str, **fields: str) -> str:
    body = "".join(f"{key} = {json.dumps(value)}\n" for key, value in fields.items())
    return f"[marketplaces.allowed_sources.{name}]\n{body}"


def made(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    return home, project


def run_one_command(tmp_path: Path, home: Path, project: Path, managed: Path) -> str:
    """`hookwright run` with the model asking for one command; its stderr."""
    model = script(tmp_path / "s.json", [bash("true"), {"content": "ok"}])
    env = {"CODEX_HOME": str(home / ".codex"), "HOOKWRIGHT_CODEX_MANAGED_DIR": str(managed)}
    done = run_scripted(project, model, home=home, env=env)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_a_restricted_marketplace_s_plugin_hook_does_not_run_and_hookwright_says_why(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project = made(tmp_path)
    install(home, source=str(tmp_path / "market"))
    requirements = managed_dir / "requirements.toml"
    requirements.write_text(RESTRICTED + allowed("corp", source="local", path="/opt/other"))
    stderr = run_one_command(tmp_path, home, project, managed_dir)
    assert not (project / "plugin-ran.txt").exists()
    line = next(line for line in stderr.splitlines() if "restrict_to_allowed_sources" in line)
    assert str(requirements) in line and "marketplaces.restrict_to_allowed_sources" in line
    assert f"`{tmp_path / 'market'}` of marketplace `corp`" in line


def test_an_allowed_local_marketplace_s_plugin_hook_runs(tmp_path: Path, managed_dir: Path) -> None:
    home, project = made(tmp_path)
    install(home, source=str(tmp_path / "market"))
    (managed_dir / "requirements.toml").write_text(
        RESTRICTED + allowed("corp", source="local", path=str(tmp_path / "market"))
    )
    run_one_command(tmp_path, home, project, managed_dir)
    assert (project / "plugin-ran.txt").exists()


def test_an_unconfigured_marketplace_is_refused_under_the_restriction(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project = made(tmp_path)
    install(home)
    requirements = managed_dir / "requirements.toml"
    requirements.write_text(RESTRICTED)
    result = bound(home, project)
    assert result.specs == []
    (note,) = [d for d in result.diagnostics if d.path.startswith("marketplaces.")]
    assert note.file == str(requirements)
    assert "marketplace `corp` is not configured" in note.message
    requirements.write_text("")
    assert [spec.name for spec in bound(home, project).specs] == [f"command:{GUARD}"]


def test_an_unreadable_rule_allows_no_marketplace_and_is_named(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project = made(tmp_path)
    install(home, source=str(tmp_path / "market"))
    requirements = managed_dir / "requirements.toml"
    requirements.write_text(
        RESTRICTED
        + allowed("corp", source="local", path=str(tmp_path / "market"))
        + allowed("zz", source="local", path="relative/folder")
    )
    result = bound(home, project)
    assert result.specs == []
    (error,) = [d for d in result.diagnostics if d.path == "marketplaces.allowed_sources.zz"]
    assert error.file == str(requirements) and error.severity == "error"
    assert "local path must be absolute" in error.message


def signed_in_with_chatgpt(home: Path, remote_plugins: bool = True) -> None:
    """ChatGPT tokens in ``auth.json`` (what `codex login` records); remote plugins turned
    off in the user's config when `remote_plugins` is false."""
    tokens = {"id_token": "x.e30.y", "access_token": "a", "refresh_token": "r"}
    (home / ".codex" / "auth.json").write_text(json.dumps({"tokens": tokens}))
    if not remote_plugins:
        with (home / ".codex" / "config.toml").open("a") as config:
            config.write("[features]\nremote_plugin = false\n")


def test_the_curated_marketplace_needs_a_rule_allowing_openai_s_repository(
    tmp_path: Path, managed_dir: Path
) -> None:
    """Signed in with ChatGPT and remote plugins off, so that the rule alone decides."""
    home, project = made(tmp_path)
    install(home, market="openai-curated")
    signed_in_with_chatgpt(home, remote_plugins=False)
    requirements = managed_dir / "requirements.toml"
    requirements.write_text(RESTRICTED)
    assert bound(home, project).specs == []
    rule = allowed("openai", source="git", url="openai/plugins")
    requirements.write_text(RESTRICTED + rule)
    assert len(bound(home, project).specs) == 1


def test_a_reserved_marketplace_name_in_the_config_loads_no_plugin(
    tmp_path: Path, managed_dir: Path
) -> None:
    """Without any restriction, Codex loads no plugin of a marketplace a user configured
    under one of OpenAI's names."""
    home, project = made(tmp_path)
    install(home, market="openai-curated", source=str(tmp_path / "market"))
    result = bound(home, project)
    assert result.specs == []
    (note,) = [d for d in result.diagnostics if d.path == "marketplaces.openai-curated"]
    assert note.file == str(home / ".codex" / "config.toml") and "reserved" in note.message


@pytest.mark.parametrize("market", ["workspace-directory", "openai-curated-remote"])
def test_a_remote_plugin_marketplace_name_is_reserved_too(
    tmp_path: Path, managed_dir: Path, market: str
) -> None:
    home, project = made(tmp_path)
    install(home, market=market, source=str(tmp_path / "market"))
    signed_in_with_chatgpt(home)
    result = bound(home, project)
    assert result.specs == []
    (note,) = [d for d in result.diagnostics if d.path == f"marketplaces.{market}"]
    assert "reserved" in note.message


def test_without_a_chatgpt_sign_in_the_curated_plugins_do_not_load_and_the_api_s_do(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project = made(tmp_path)
    install(home, market="openai-curated")
    result = bound(home, project)
    assert result.specs == []
    (note,) = [d for d in result.diagnostics if d.path == "sign-in"]
    assert note.file == str(home / ".codex" / "auth.json")
    assert "only when signed in with ChatGPT" in note.message
    (home / ".codex" / "auth.json").write_text('{"OPENAI_API_KEY": "sk-x", "tokens": {}}')
    assert bound(home, project).specs == []
    install(home, market="openai-api-curated")
    assert len(bound(home, project).specs) == 1


def test_with_a_chatgpt_sign_in_remote_plugins_stand_for_the_curated_marketplace(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project = made(tmp_path)
    install(home, market="openai-curated")
    signed_in_with_chatgpt(home)
    result = bound(home, project)
    assert result.specs == []
    (note,) = [d for d in result.diagnostics if d.path == "sign-in"]
    assert "[features] remote_plugin = false" in note.message
    signed_in_with_chatgpt(home, remote_plugins=False)
    assert len(bound(home, project).specs) == 1
    install(home, market="openai-api-curated")
    result = bound(home, project)
    assert result.specs == []
    assert any("API's curated marketplace" in d.message for d in result.diagnostics)


def test_the_plugins_feature_off_in_a_project_counts_once_the_project_is_trusted(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project = made(tmp_path)
    install(home)
    config = project / ".codex" / "config.toml"
    config.write_text("[features]\nplugins = false\n")
    assert len(bound(home, project, trusted=False).specs) == 1
    result = bound(home, project)
    assert result.specs == []
    (note,) = [d for d in result.diagnostics if d.path == "features.plugins"]
    assert note.file == str(config)
    (managed_dir / "requirements.toml").write_text("[features]\nplugins = true\n")
    assert len(bound(home, project).specs) == 1


@pytest.mark.parametrize(
    ("text", "ref", "expected"),
    [
        ("acme/plugins", None, GitSource("https://github.com/acme/plugins.git")),
        ("acme/plugins@main", None, GitSource("https://github.com/acme/plugins.git", "main")),
        (
            "https://github.com/acme/plugins/",
            "v2",
            GitSource("https://github.com/acme/plugins.git", "v2"),
        ),
        ("https://git.example.com/a/b#dev", None, GitSource("https://git.example.com/a/b", "dev")),
        ("git@host.example:a/b.git", None, GitSource("git@host.example:a/b.git")),
        ("/srv/market", None, LocalSource(Path("/srv/market"))),
        ("/srv/market", "main", None),
        ("file:///srv/market", None, None),
    ],
)
def test_marketplace_sources_are_normalised_as_codex_does(
    text: str, ref: str | None, expected: GitSource | LocalSource | None
) -> None:
    assert parse_source(text, ref) == expected


def test_a_local_rule_matches_the_same_folder_through_a_link(
    tmp_path: Path, managed_dir: Path
) -> None:
    """Codex resolves both folders when both exist: a rule naming the folder a configured
    link leads to allows it."""
    home, project = made(tmp_path)
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    install(home, source=str(tmp_path / "link"))
    rule = allowed("corp", source="local", path=str(tmp_path / "real"))
    (managed_dir / "requirements.toml").write_text(RESTRICTED + rule)
    assert len(bound(home, project).specs) == 1
