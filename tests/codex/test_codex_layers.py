"""Every layer Codex CLI reads hooks from: managed requirements, system, user, project, legacy
managed config and plugins, in Codex's order, with its review and switches."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_runner import run_scripted
from tests.codex.project import bash, script
from tests.codex.test_codex_run import tool_results

from hookwright.config.loading import LoadContext, LoadResult
from hookwright.config.trust import TrustPolicy
from hookwright.dialects.codex.config import LayerFiles, layer_hooks
from hookwright.dialects.codex.loader import discover
from hookwright.dialects.codex.review import review_key, trusted_hash


def group(command: str) -> dict[str, object]:
    return {"matcher": "Bash", "hooks": [{"type": "command", "command": command, "timeout": 5}]}


def hooks_json(folder: Path, command: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [group(command)]}}))


def inline(command: str, table: str = "hooks") -> str:
    return (
        f'[[{table}.PreToolUse]]\nmatcher = "Bash"\n[[{table}.PreToolUse.hooks]]\n'
        f'type = "command"\ncommand = "{command}"\ntimeout = 5\n'
    )


def reviews(*folders: Path) -> str:
    """The user's review of every hook in `folders`' hooks.json."""
    lines = []
    for folder in folders:
        for hook in layer_hooks(LayerFiles("user", folder, None), []):
            lines.append(f"[hooks.state.{json.dumps(review_key(hook))}]\n")
            lines.append(f'trusted_hash = "{trusted_hash(hook)}"\n')
    return "".join(lines)


def every_layer(tmp_path: Path, managed: Path) -> tuple[Path, Path]:
    """(home, project) with one PreToolUse hook in each layer, the user's and the project's
    reviewed; the hook's command names its layer."""
    home, project = tmp_path / "home", tmp_path / "project"
    user = home / ".codex"
    hooks_json(user, "user")
    hooks_json(project / ".codex", "project")
    hooks_json(managed, "system-json")
    (managed / "config.toml").write_text(inline("system-toml"))
    (managed / "requirements.toml").write_text(inline("requirements"))
    (managed / "managed_config.toml").write_text(inline("legacy"))
    (user / "config.toml").write_text(reviews(user, project / ".codex"))
    return home, project


def bound(home: Path, project: Path, *, trusted: bool = True) -> LoadResult:
    found = discover(LoadContext(project, home))
    policy = TrustPolicy(frozenset({project.resolve()}) if trusted else frozenset())
    return found.bind(policy)


def test_hooks_are_listed_in_codex_s_order_and_managed_ones_need_no_review(
    tmp_path: Path, managed_dir: Path
) -> None:
    """The order Codex CLI 0.171.0 runs them in (measured: the contexts reach the model in
    this order); the managed hooks are unreviewed and run, as in Codex."""
    home, project = every_layer(tmp_path, managed_dir)
    found = discover(LoadContext(project, home))
    assert [hook.command for hook in found.hooks] == [
        "requirements",
        "system-json",
        "system-toml",
        "user",
        "project",
        "legacy",
    ]
    result = bound(home, project)
    assert [(spec.source, spec.name) for spec in result.specs] == [
        ("managed", "command:requirements"),
        ("managed", "command:system-json"),
        ("managed", "command:system-toml"),
        ("user", "command:user"),
        ("project", "command:project"),
        ("managed", "command:legacy"),
    ]


def test_the_user_cannot_turn_off_a_managed_hook(tmp_path: Path, managed_dir: Path) -> None:
    home, project = every_layer(tmp_path, managed_dir)
    key = f"{managed_dir / 'requirements.toml'}:pre_tool_use:0:0"
    with (home / ".codex" / "config.toml").open("a") as config:
        config.write(f"[hooks.state.{json.dumps(key)}]\nenabled = false\n")
    assert "command:requirements" in [spec.name for spec in bound(home, project).specs]


def test_allow_managed_hooks_only_runs_the_managed_hooks_and_says_so(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project = every_layer(tmp_path, managed_dir)
    requirements = managed_dir / "requirements.toml"
    requirements.write_text("allow_managed_hooks_only = true\n" + requirements.read_text())
    result = bound(home, project)
    assert {spec.source for spec in result.specs} == {"managed"}
    notes = [d for d in result.diagnostics if d.path == "allow_managed_hooks_only"]
    assert len(notes) == 1 and notes[0].file == str(requirements)


def test_a_project_turning_hooks_off_turns_off_its_own_and_the_user_s_not_the_managed(
    tmp_path: Path, managed_dir: Path
) -> None:
    """Codex turns off every hook here; hookwright keeps the administrator's, and says why."""
    home, project = every_layer(tmp_path, managed_dir)
    (project / ".codex" / "config.toml").write_text("[features]\nhooks = false\n")
    result = bound(home, project)
    assert {spec.source for spec in result.specs} == {"managed"}
    (kept,) = [d for d in result.diagnostics if "keeps running the managed" in d.message]
    assert kept.file == str(project / ".codex" / "config.toml")
    assert len(bound(home, project, trusted=False).specs) == 5, "untrusted: its config is unread"


def test_requirements_pin_the_hooks_feature_over_the_project(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project = every_layer(tmp_path, managed_dir)
    (project / ".codex" / "config.toml").write_text("[features]\ncodex_hooks = false\n")
    requirements = managed_dir / "requirements.toml"
    requirements.write_text(inline("requirements") + "\n[features]\nhooks = true\n")
    assert len(bound(home, project).specs) == 6


def test_a_managed_hooks_feature_off_turns_off_every_hook(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project = every_layer(tmp_path, managed_dir)
    legacy = managed_dir / "managed_config.toml"
    legacy.write_text("[features]\nhooks = false\n\n" + legacy.read_text())
    result = bound(home, project)
    assert result.specs == []
    assert any(d.file == str(legacy) and d.path == "features.hooks" for d in result.diagnostics)


def plugin(home: Path, version: str = "1.0.0", enabled: bool = True) -> Path:
    root = home / ".codex" / "plugins" / "cache" / "local" / "guard" / version
    (root / ".codex-plugin").mkdir(parents=True)
    (root / ".codex-plugin" / "plugin.json").write_text('{"name": "guard"}')
    hooks_json(root / "hooks", 'echo "${PLUGIN_ROOT}" > seen.txt')
    with (home / ".codex" / "config.toml").open("a") as config:
        config.write(f'[plugins."guard@local"]\nenabled = {str(enabled).lower()}\n')
    return root


def test_an_enabled_plugin_s_hooks_come_last_keyed_by_the_plugin_id(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project = every_layer(tmp_path, managed_dir)
    root = plugin(home)
    found = discover(LoadContext(project, home))
    last = found.hooks[-1]
    assert last.command == 'echo "${PLUGIN_ROOT}" > seen.txt'
    result = bound(home, project)
    assert "command:user" in [spec.name for spec in result.specs]
    (note,) = [d for d in result.diagnostics if "not reviewed" in d.message]
    assert '[hooks.state."guard@local:hooks/hooks.json:pre_tool_use:0:0"]' in note.message
    assert note.file == str(root / "hooks" / "hooks.json")


def test_a_disabled_or_missing_plugin_adds_no_hooks(tmp_path: Path, managed_dir: Path) -> None:
    home, project = every_layer(tmp_path, managed_dir)
    plugin(home, enabled=False)
    with (home / ".codex" / "config.toml").open("a") as config:
        config.write('[plugins."gone@local"]\nenabled = true\n')
    assert len(discover(LoadContext(project, home)).hooks) == 6


def test_a_reviewed_plugin_hook_runs_with_its_folder_in_place(
    tmp_path: Path, managed_dir: Path
) -> None:
    """The review hashes the command as declared; the command run has `${PLUGIN_ROOT}`
    replaced (Codex CLI 0.171.0 accepted this review in the conformance suite)."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    (home / ".codex").mkdir(parents=True)
    root = plugin(home, version="local")
    (hook,) = layer_hooks(LayerFiles("plugin", root / "hooks", None), [])
    key = "guard@local:hooks/hooks.json:pre_tool_use:0:0"
    with (home / ".codex" / "config.toml").open("a") as config:
        config.write(f'[hooks.state."{key}"]\ntrusted_hash = "{trusted_hash(hook)}"\n')
    run(home, project, script(tmp_path / "s.json", [bash("true"), {"content": "ok"}]), managed_dir)
    assert (project / "seen.txt").read_text().strip() == str(root)


def run(
    home: Path, project: Path, model: Path, managed: Path, env: dict[str, str] | None = None
) -> list[str]:
    done = run_scripted(
        project,
        model,
        "--json",
        home=home,
        env={
            "CODEX_HOME": str(home / ".codex"),
            "HOOKWRIGHT_CODEX_MANAGED_DIR": str(managed),
            **(env or {}),
        },
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return tool_results(events)


def test_a_managed_deny_holds_against_a_project_rewrite_and_its_hooks_switch(
    tmp_path: Path, managed_dir: Path
) -> None:
    """The requirements' guard refuses; the project's hook rewriting the command to something
    harmless and its `[features] hooks = false` loosen nothing: the command does not run."""
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".codex").mkdir(parents=True)
    deny = "echo no from the administrator >&2; exit 2"
    (managed_dir / "requirements.toml").write_text(inline(deny.replace('"', '\\"')))
    rewrite = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": "true"},
        }
    }
    hooks_json(project / ".codex", f"echo '{json.dumps(rewrite)}'")
    (project / ".codex" / "config.toml").write_text("[features]\nhooks = false\n")
    (home / ".codex" / "config.toml").write_text(reviews(project / ".codex"))
    model = script(tmp_path / "s.json", [bash("touch made.txt"), {"content": "ok"}])
    assert run(home, project, model, managed_dir) == [
        "Command blocked by PreToolUse hook: no from the administrator. Command: touch made.txt"
    ]
    assert not (project / "made.txt").exists()


def test_a_project_s_plugin_switch_counts_once_the_project_is_trusted(
    tmp_path: Path, managed_dir: Path
) -> None:
    """An untrusted project cannot turn on a plugin the user turned off; a trusted one turns
    one off, as in Codex."""
    home, project = every_layer(tmp_path, managed_dir)
    plugin(home, enabled=False)
    config = project / ".codex" / "config.toml"
    config.write_text('[plugins."guard@local"]\nenabled = true\n')
    untrusted = bound(home, project, trusted=False)
    (note,) = [d for d in untrusted.diagnostics if d.path == 'plugins."guard@local".enabled']
    assert note.file == str(config) and "counts once hookwright trusts" in note.message
    config.write_text('[plugins."guard@local"]\nenabled = false\n')
    (home / ".codex" / "config.toml").write_text(
        (home / ".codex" / "config.toml").read_text().replace("enabled = false", "enabled = true")
    )
    trusted = bound(home, project)
    (off,) = [d for d in trusted.diagnostics if d.path == 'plugins."guard@local".enabled']
    assert off.file == str(config) and "turned off" in off.message


def test_a_hostile_plugin_id_reads_nothing_outside_the_plugin_cache(
    tmp_path: Path, managed_dir: Path
) -> None:
    """A project naming plugins that lead out of the cache, or hold a NUL, adds no hook and
    raises nothing."""
    home, project = every_layer(tmp_path, managed_dir)
    hooks_json(home / ".codex" / "plugins" / "cache" / "x" / "hooks", "escaped")
    ids = ["..@..", "hooks@../cache/x", "a\u0000b@local", "@local", "guard@"]
    (project / ".codex" / "config.toml").write_text(
        "".join(f"[plugins.{json.dumps(i)}]\nenabled = true\n" for i in ids)
    )
    found = discover(LoadContext(project, home))
    assert "escaped" not in [hook.command for hook in found.hooks]
    assert len(found.hooks) == 6
