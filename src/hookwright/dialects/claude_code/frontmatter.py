"""Hooks declared in skill (``SKILL.md``) and subagent (agent ``.md``) YAML frontmatter
(spec §1.2): the same structure as settings, under a ``hooks:`` key.

The host calls `load_frontmatter_hooks` when a skill is invoked or a subagent starts, and
registers the specs it returns. They are bound to `scope`:

* skill hooks: pass the session id; they stay for the rest of the session, `once: true` is
  honoured (the hook is removed after its first run), ``CLAUDE_PLUGIN_ROOT`` is the skill's
  directory; source ``skill``;
* subagent hooks: pass the agent id; they live while that subagent runs (the engine drops them
  on its SubagentStop), a ``Stop`` hook fires on ``SubagentStop``; source ``session``.

Pass the settings' `Policy` (``load_policy(ctx)``) so ``disableAllHooks`` and
``allowManagedHooksOnly`` apply to these hooks too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from hookwright.config.loading import Diagnostic, LoadResult
from hookwright.config.safeparse import ParseError, load_yaml_text, read_text
from hookwright.core.events import Event
from hookwright.core.home import user_home
from hookwright.core.words import counted
from hookwright.dialects.claude_code.config import parse_hooks
from hookwright.dialects.claude_code.environment import HookSite
from hookwright.dialects.claude_code.loader import LoaderOptions, build_options
from hookwright.dialects.claude_code.sources import Policy
from hookwright.dialects.claude_code.specs import Declaration, build_spec, session_end_budget
from hookwright.dialects.claude_profiles import NEWEST, ClaudeCodeProfile

FrontmatterKind = Literal["skill", "agent"]


def read_frontmatter(path: Path) -> tuple[dict[str, Any] | None, Diagnostic | None]:
    """The YAML mapping between the leading ``---`` lines of a Markdown file."""
    try:
        text = read_text(path)
    except ParseError as exc:
        return None, Diagnostic(str(path), "", exc.reason)
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, None
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
    except StopIteration:
        return None, Diagnostic(str(path), "frontmatter", "frontmatter has no closing '---'")
    try:
        data = load_yaml_text("\n".join(lines[1:end]))
    except ParseError as exc:
        return None, Diagnostic(str(path), "frontmatter", exc.reason)
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return None, Diagnostic(str(path), "frontmatter", "expected a YAML mapping")
    return data, None


def _not_loaded_by_policy(path: Path, count: int) -> Diagnostic:
    return Diagnostic(
        str(path), "hooks", f"{counted(count, 'hook')} not loaded by policy", "warning"
    )


def load_frontmatter_hooks(
    path: str | Path,
    kind: FrontmatterKind,
    scope: str,
    *,
    project_dir: str | Path | None = None,
    home: str | Path | None = None,
    policy: Policy | None = None,
    options: LoaderOptions | None = None,
    profile: ClaudeCodeProfile = NEWEST,
) -> LoadResult:
    """The hooks of one skill or subagent definition, bound to `scope`, as the Claude Code
    version of `profile` loads them."""
    path = Path(path)
    result = LoadResult()
    data, problem = read_frontmatter(path)
    if problem is not None:
        result.diagnostics.append(problem)
        return result
    assert data is not None
    parsed = parse_hooks(data.get("hooks"), str(path))
    result.diagnostics.extend(parsed.diagnostics)
    policy = policy or Policy()
    source = "skill" if kind == "skill" else "session"
    if not policy.allows(source):
        if parsed.handlers:
            result.diagnostics.append(_not_loaded_by_policy(path, len(parsed.handlers)))
        return result
    root = path.parent
    site = HookSite(
        Path(project_dir) if project_dir is not None else Path.cwd(),
        Path(home) if home is not None else user_home(),
        plugin_root=root if kind == "skill" else None,
    )
    build = build_options(
        options or LoaderOptions(), policy, result.diagnostics, session_end_budget(()), profile
    )
    for handler in parsed.handlers:
        event = handler.event
        if kind == "agent" and event is Event.Stop:
            event = Event.SubagentStop
        declaration = Declaration(
            handler,
            path,
            source,
            site,
            root=str(root),
            from_settings=False,
            scope=scope,
            honour_once=kind == "skill",
            event=event,
        )
        spec = build_spec(declaration, build, result.diagnostics)
        if spec is not None:
            result.specs.append(spec)
    return result
