"""Loading in three phases: discover (no hook code runs) -> TrustPolicy -> bind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookwright import Event, HookEngine
from hookwright.config.loading import LoadContext, discover
from hookwright.config.trust import TrustPolicy, TrustStore
from hookwright.runtime.permissions import load_policy
from hookwright.runtime.subagent import AgentInput
from hookwright.runtime.tools import ToolInputError
from hookwright.runtime.tools.base import parse_arguments


def native_file(folder: Path, marker: Path, name: str = "guard") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}_mod.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).touch()\ndef check(inp):\n    return None\n"
    )
    config = folder / "hooks.yaml"
    hook = {"name": name, "event": "PreToolUse", "matcher": "Bash", "call": f"{name}_mod:check"}
    config.write_text(json.dumps({"hooks": [hook]}))
    return config


@pytest.fixture
def ctx(tmp_path: Path) -> LoadContext:
    project = tmp_path / "proj"
    project.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    return LoadContext(project_dir=project, home=home)


def test_discovery_imports_nothing_and_binds_only_trusted_roots(
    ctx: LoadContext, tmp_path: Path
) -> None:
    marker = tmp_path / "imported"
    native_file(ctx.project_dir / ".hookwright", marker)
    discovery = discover(ctx)
    (hook,) = discovery.hooks
    assert (hook.name, hook.events, hook.matcher, hook.trust_root) == (
        "guard",
        (Event.PreToolUse,),
        "Bash",
        ctx.project_dir,
    )
    untrusted = discovery.bind(TrustPolicy())
    assert untrusted.specs == [] and untrusted.untrusted == [hook]
    assert not marker.exists()
    trusted = discovery.bind(TrustPolicy().with_folder(ctx.project_dir.parent))
    assert [s.name for s in trusted.specs] == ["guard"] and trusted.untrusted == []
    assert marker.exists()


def test_user_files_and_named_config_files_need_no_trust(ctx: LoadContext, tmp_path: Path) -> None:
    native_file(ctx.home / ".hookwright", tmp_path / "user-imported", "user")
    named = native_file(tmp_path / "named", tmp_path / "named-imported", "named")
    ctx.config_files = [named]
    discovery = discover(ctx)
    assert {(h.name, h.trust_root) for h in discovery.hooks} == {("user", None), ("named", None)}
    assert sorted(s.name for s in discovery.bind(TrustPolicy()).specs) == ["named", "user"]


def test_a_bind_error_names_the_file_and_field(ctx: LoadContext) -> None:
    folder = ctx.project_dir / ".hookwright"
    folder.mkdir()
    (folder / "hooks.yaml").write_text(
        "hooks:\n  - {name: gone, event: Stop, call: 'missing_mod:nothing'}\n"
    )
    discovery = discover(ctx)
    assert discovery.diagnostics == [], "discovery does not import"
    (problem,) = discovery.bind(TrustPolicy(everything=True)).diagnostics
    assert (problem.file, problem.path) == (str(folder / "hooks.yaml"), "hooks[0].call")
    assert "cannot import missing_mod:nothing" in problem.message


def test_picoclaw_builtins_are_project_code_called_only_when_bound(
    ctx: LoadContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "factory-called"
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "pico_factory.py").write_text(
        "import pathlib\n"
        "class Guard:\n    def before_tool(self, params):\n        return None\n"
        f"def make(config):\n    pathlib.Path({str(marker)!r}).touch()\n    return Guard()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    hooks = {
        "builtins": {"guard": {"factory": "pico_factory:make", "priority": 5}},
        "processes": {"proc": {"command": ["true"], "intercept": ["before_tool"]}},
    }
    config = ctx.project_dir / ".picoclaw" / "config.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"hooks": hooks}))
    discovery = discover(ctx)
    builtin, process = discovery.hooks
    assert (builtin.name, builtin.source, builtin.events, builtin.trust_root) == (
        "guard",
        "project",
        (),
        ctx.project_dir,
    )
    assert builtin.note is not None and "factory" in builtin.note
    assert process.events == (Event.PreToolUse, Event.PostToolUse, Event.PostToolUseFailure)
    assert discovery.bind(TrustPolicy()).specs == [] and not marker.exists()
    bound = discovery.bind(TrustPolicy(everything=True))
    assert marker.exists()
    engine = HookEngine(audit_path=None)
    for spec in bound.specs:
        engine.register(spec)
    ordered = engine.hooks(Event.PreToolUse)
    assert [(s.name, s.source) for s in ordered] == [("guard", "project"), ("proc", "project")]
    assert ordered[0].dialect_data.configured_priority == 5 and ordered[0].priority == -1
    engine.close()


def test_a_project_plugin_needs_trust_wherever_its_hooks_file_is(
    ctx: LoadContext, tmp_path: Path
) -> None:
    outside = tmp_path / "outside" / "hooks.json"
    outside.parent.mkdir()
    command = {"type": "command", "command": "true"}
    outside.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [command]}]}}))
    root = ctx.project_dir / ".claude" / "plugins" / "evil"
    (root / ".claude-plugin").mkdir(parents=True)
    manifest = {"name": "evil", "hooks": "../../../../outside/hooks.json"}
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    (hook,) = discover(ctx).hooks
    assert (hook.source, hook.trust_root) == ("plugin", root)
    assert hook.origin.startswith(str(outside))
    assert not TrustPolicy().trusts(hook.trust_root)
    assert TrustPolicy().with_folder(ctx.project_dir).trusts(hook.trust_root)


def test_trust_policy_reads_the_store_and_trusts_subfolders(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    TrustStore(home).trust(repo)
    policy = TrustPolicy.load(home)
    assert policy.trusts(repo / "sub") and policy.trusts(None)
    assert not policy.trusts(tmp_path)
    assert TrustPolicy.load(home, everything=True).trusts(tmp_path)
    (home / ".hookwright" / "trust.json").write_text("[1]")
    with pytest.raises(ValueError, match=r"trust\.json"):
        TrustPolicy.load(home)


def test_untrusted_project_permission_rules_are_not_used(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    for base, rule in ((home, "Read"), (project, "Bash")):
        (base / ".claude").mkdir(parents=True)
        (base / ".claude" / "settings.json").write_text(
            json.dumps({"permissions": {"allow": [rule]}})
        )
    untrusted = load_policy(project, home, project_trusted=False)
    assert [r.source for r in untrusted.allow] == ["Read"]
    assert any("not trusted" in problem for problem in untrusted.problems)
    trusted = load_policy(project, home, project_trusted=True)
    assert [r.source for r in trusted.allow] == ["Read", "Bash"]


@pytest.mark.parametrize("name", ["../../x", "a/b", "a\\b", "/etc/passwd", "..", "x.md", ""])
def test_subagent_types_are_plain_names(name: str) -> None:
    with pytest.raises(ToolInputError, match="not an agent name"):
        parse_arguments(AgentInput, {"prompt": "p", "subagent_type": name})
    assert parse_arguments(AgentInput, {"prompt": "p", "subagent_type": "code-reviewer_2"})
