"""Skill and subagent frontmatter hooks (spec §1.2): scoped, `once`, agent Stop -> SubagentStop."""

from __future__ import annotations

from pathlib import Path

from hookwright import Event, HookInput
from hookwright.config.loading import LoadContext
from hookwright.dialects.claude_code import load_frontmatter_hooks, load_policy
from hookwright.dialects.claude_code.frontmatter import FrontmatterKind

from .conftest import Harness


def write_md(path: Path, frontmatter: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{frontmatter}---\n\n# Body\n")
    return path


def skill(h: Harness, frontmatter: str) -> Path:
    return write_md(h.project / ".claude" / "skills" / "deploy" / "SKILL.md", frontmatter)


def register(h: Harness, path: Path, kind: FrontmatterKind, scope: str) -> list[str]:
    result = load_frontmatter_hooks(
        path,
        kind,
        scope,
        project_dir=h.project,
        home=h.home,
        policy=load_policy(LoadContext(h.project, h.home)),
    )
    for spec in result.specs:
        h.engine.register(spec)
    return [str(d) for d in result.diagnostics]


async def test_skill_hook_once_and_plugin_root(h: Harness) -> None:
    out = h.project / "out"
    path = skill(
        h,
        "name: deploy\n"
        "hooks:\n"
        "  PreToolUse:\n"
        "    - matcher: Bash\n"
        "      hooks:\n"
        "        - type: command\n"
        f'          command: echo "$CLAUDE_PLUGIN_ROOT" >> {out}; echo no >&2; exit 2\n'
        "          once: true\n",
    )
    assert register(h, path, "skill", "s1") == []
    [spec] = h.engine.hooks(Event.PreToolUse)
    assert (spec.source, spec.scope, spec.once) == ("skill", "s1", True)
    first = await h.fire_tool(command="ls")
    second = await h.fire_tool(command="ls")
    assert first.decision == "deny" and second.decision is None
    assert out.read_text().split() == [str(path.parent)]


async def test_skill_hooks_only_fire_in_their_session(h: Harness) -> None:
    path = skill(h, "hooks:\n  Stop:\n    - hooks:\n        - {type: command, command: 'exit 2'}\n")
    register(h, path, "skill", "s1")
    other = await h.fire("Stop", session="s2", stop_hook_active=False)
    mine = await h.fire("Stop", session="s1", stop_hook_active=False)
    assert other.runs == [] and mine.decision == "block"


async def test_agent_stop_becomes_subagent_stop_and_ends_with_the_agent(h: Harness) -> None:
    hook = h.sh("grep -q '\"stop_hook_active\":true' || { echo again >&2; exit 2; }\n")
    path = write_md(
        h.project / ".claude" / "agents" / "reviewer.md",
        "name: reviewer\nhooks:\n  Stop:\n    - hooks:\n"
        f"        - {{type: command, once: true, command: '{hook}'}}\n",
    )
    assert register(h, path, "agent", "agent-7") == []
    [spec] = h.engine.hooks(Event.SubagentStop)
    assert (spec.source, spec.scope, spec.once) == ("session", "agent-7", False)
    assert h.engine.hooks(Event.Stop) == []

    def stop(agent: str, active: bool) -> HookInput:
        return HookInput(
            Event.SubagentStop,
            session_id="s1",
            agent_id=agent,
            agent_type="reviewer",
            cwd=str(h.project),
            payload={"stop_hook_active": active},
        )

    assert (await h.dispatch(stop("agent-other", False))).runs == []
    verdict = await h.dispatch(stop("agent-7", False))
    assert verdict.decision == "block" and verdict.reason is not None
    assert verdict.reason.endswith("]: again\n")
    assert len(h.engine.hooks(Event.SubagentStop)) == 1, "a blocked subagent keeps running"
    finished = await h.dispatch(stop("agent-7", True))
    assert finished.decision is None and len(finished.runs) == 1
    assert h.engine.hooks(Event.SubagentStop) == []


async def test_policy_applies_to_frontmatter(h: Harness) -> None:
    h.settings(None, kind="user", disableAllHooks=True)
    path = skill(h, "hooks:\n  Stop:\n    - hooks:\n        - {type: command, command: 'true'}\n")
    diagnostics = register(h, path, "skill", "s1")
    assert h.engine.hooks() == []
    assert diagnostics == [f"warning: {path}: hooks: 1 hook not loaded by policy"]


def test_frontmatter_problems_name_the_file(h: Harness) -> None:
    bad_yaml = skill(h, "hooks: [unclosed\n")
    assert register(h, bad_yaml, "skill", "s1")[0].startswith(
        f"error: {bad_yaml}: frontmatter: invalid YAML"
    )
    unclosed = write_md(h.project / "x" / "SKILL.md", "")
    unclosed.write_text("---\nhooks: {}\n")
    assert register(h, unclosed, "skill", "s1") == [
        f"error: {unclosed}: frontmatter: frontmatter has no closing '---'"
    ]
    bad_hook = skill(h, "hooks:\n  Stop:\n    - hooks:\n        - {type: command, timeout: 5}\n")
    assert register(h, bad_hook, "skill", "s1") == [
        f"error: {bad_hook}: hooks.Stop[0].hooks[0].command: Field required"
    ]
    plain = h.project / "README.md"
    plain.write_text("# no frontmatter\n")
    assert register(h, plain, "skill", "s1") == []
    assert h.engine.hooks() == []
