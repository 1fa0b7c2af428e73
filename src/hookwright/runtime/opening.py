"""Building a session for a project: hooks from every source (bound only where the
`TrustPolicy` trusts their folder), the model, tools, permissions and skills. The project's own
permission rules, scripted model and skills count only once the folder is trusted."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hookwright.config.state_setting import choose_state
from hookwright.config.trust import TrustPolicy
from hookwright.dialects.claude_profiles import named_profile
from hookwright.dialects.skills import scan_hooks
from hookwright.dialects.skills.config import SkillHookError
from hookwright.dialects.skills.tools import tool_filter_warnings
from hookwright.engine.kernel import HookEngine
from hookwright.engine.services import Services, WorkspaceAccess
from hookwright.engine.state import store_for
from hookwright.host import PromptChannel
from hookwright.host.open import (
    AskTrust,
    NotRun,
    ProjectScope,
    open_project,
    report_not_run,
    start_processes,
)
from hookwright.runtime import evaluators
from hookwright.runtime import transcript as transcripts
from hookwright.runtime.agent import Agent, AgentConfig, AskUser, EventSink
from hookwright.runtime.effort import load_effort
from hookwright.runtime.mcp import McpServers, connect_servers
from hookwright.runtime.mcp.elicitation import AskElicitation, elicit, request_of, to_result
from hookwright.runtime.models import Model, ModelConfigError, ModelError, make_model
from hookwright.runtime.models.retry import RetryCallback
from hookwright.runtime.permission_mode import session_mode
from hookwright.runtime.permissions import PermissionMode, load_policy
from hookwright.runtime.settings_env import load_settings_env, stop_block_cap
from hookwright.runtime.skill_commands import any_skill
from hookwright.runtime.skill_tool import SkillTool
from hookwright.runtime.subagent import AgentTool
from hookwright.runtime.tasks import register_task_tools, tasks_enabled
from hookwright.runtime.teammate import TEAMS_VARIABLE, Teammate, teams_enabled
from hookwright.runtime.tools import ToolRegistry, default_tools
from hookwright.transports.ioloop import IoLoop

DEFAULT_SCRIPT = Path(".hookwright") / "script.yaml"
NO_MODEL_TEXT = (
    "No model is configured. Pass --model openai:NAME (OPENAI_BASE_URL / OPENAI_API_KEY), "
    "--model anthropic:NAME (ANTHROPIC_API_KEY) or --model scripted:FILE."
)


@dataclass(slots=True)
class SessionSetup:
    """The opened session. `not_run`: every declared hook that will not run, and why (each
    already logged on `hookwright.open` and audited, `report_not_run`); `not_run_summary`: the
    line of `diagnostics` those lines say again hook by hook, for a host that shows both."""

    agent: Agent
    engine: HookEngine
    diagnostics: list[str] = field(default_factory=list)
    untrusted_hooks: int = 0
    not_run: tuple[NotRun, ...] = ()
    not_run_summary: tuple[str, ...] = ()


def default_model_spec(project_dir: Path, *, project_trusted: bool) -> str | None:
    """HOOKWRIGHT_MODEL, else a configured provider, else the (trusted) project's scripted
    model."""
    if spec := os.environ.get("HOOKWRIGHT_MODEL"):
        return spec
    if os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"):
        return f"openai:{os.environ.get('OPENAI_MODEL', 'gpt-4o-mini')}"
    if os.environ.get("ANTHROPIC_API_KEY"):
        return f"anthropic:{os.environ.get('ANTHROPIC_MODEL', 'claude-sonnet-4-5')}"
    script = project_dir / DEFAULT_SCRIPT
    if project_trusted and script.is_file():
        return f"scripted:{script}"
    return None


def resolve_model(
    spec: str | None,
    project_dir: Path,
    on_retry: RetryCallback | None = None,
    *,
    project_trusted: bool,
) -> Model:
    chosen = spec or default_model_spec(project_dir, project_trusted=project_trusted)
    if chosen is None:
        text = NO_MODEL_TEXT
        if (project_dir / DEFAULT_SCRIPT).is_file():
            text += f" {DEFAULT_SCRIPT} is not used: this folder is not trusted."
        raise ModelConfigError(text)
    return make_model(chosen, base_dir=project_dir, on_retry=on_retry)


async def open_session(
    project_dir: Path,
    *,
    home: Path | None = None,
    model: str | Model | None = None,
    permission_mode: PermissionMode | None = None,
    max_turns: int = 20,
    planning: bool = False,
    interactive: bool = False,
    trust: bool = False,
    config_files: Sequence[Path] = (),
    mcp_config_files: Sequence[Path] = (),
    skills: Sequence[str] = (),
    resume: str | None = None,
    fork_session: bool = False,
    history: Sequence[dict[str, Any]] | None = None,
    on_event: EventSink | None = None,
    ask_user: AskUser | None = None,
    prompt_channel: PromptChannel = "callback",
    ask_trust: AskTrust | None = None,
    ask_elicitation: AskElicitation | None = None,
    compact_tokens: int = 100_000,
    tools: ToolRegistry | None = None,
    engine: HookEngine | None = None,
    workspace_access: WorkspaceAccess | None = None,
    claude_code_version: str | None = None,
    teammate: Teammate | None = None,
) -> SessionSetup:
    """Load the project's hooks into an engine and build the agent. Raises ModelConfigError or
    ValueError (bad resume id, bad trust file) with a message for the user.

    ``permission_mode`` None: the settings files' ``permissions.defaultMode`` (see
    `permission_mode`), else ``default``.

    ``fork_session`` with ``resume``: the history of that session goes on in a new session
    (its own id and transcript, a copy of the old one), as Claude Code's ``--fork-session``.
    ``history`` (OpenAI-format messages kept by a client) starts the agent from
    ``[system prompt, *history]`` instead of an empty conversation; it excludes ``resume``.
    ``workspace_access`` leases the project's files to the hooks that touch them (see
    `hookwright.engine.services.WorkspaceAccess`). MCP servers (user config, the trusted project's
    `.mcp.json`, enabled plugins, ``mcp_config_files``) start here and stop when the agent
    closes; ``ask_elicitation`` asks the person when a server wants input and no hook answers
    (only in an ``interactive`` session; otherwise such a request is cancelled).
    ``claude_code_version`` picks the Claude Code profile (see `claude_code_version`).
    ``teammate`` runs the session as that agent team member (TeammateIdle fires when it would
    stop), where `CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS` is on (environment or settings `env`).
    ``prompt_channel`` says where ``ask_user`` asks the person (the audit records it with
    their answer)."""
    if history is not None and resume:
        raise ValueError("history and resume cannot be combined")
    if fork_session and not resume:
        raise ValueError("--fork-session needs --resume ID (the session to fork)")
    project_dir = project_dir.resolve()
    home = home or Path.home()
    given = named_profile(claude_code_version) if claude_code_version is not None else None
    owns_engine = engine is None
    state_setting, state_problems = choose_state(home)
    engine = engine or HookEngine(
        services=Services(io=IoLoop(asyncio.get_running_loop()), state=store_for(state_setting))
    )
    if workspace_access is not None:
        engine.services = replace(engine.services, workspace_access=workspace_access)
    opened = await open_project(
        engine,
        project_dir,
        home,
        TrustPolicy.load(home, everything=trust),
        ProjectScope(
            config_files,
            claude_code=given,
        ),
        ask_trust=ask_trust if interactive else None,
    )
    trust_policy, trusted = opened.policy, opened.trusted
    diagnostics = [*opened.diagnostics, *(f"warning: {p}" for p in state_problems)]
    skipped = len(opened.untrusted)
    holder: list[Agent] = []

    def on_retry(attempt: int, error: ModelError, delay: float) -> None:
        if holder:
            holder[0].model_retry(attempt, error, delay)

    chosen_model = model if model is not None and not isinstance(model, str) else None
    try:
        resolved_model = chosen_model or resolve_model(
            model if isinstance(model, str) else None,
            project_dir,
            on_retry,
            project_trusted=trusted,
        )
    except ModelConfigError:
        if owns_engine:
            await engine.aclose()
        raise
    engine.audit.describe(host="reference agent", model=resolved_model.name or None)
    mode = session_mode(permission_mode, project_dir, home, trust_policy, config_files)
    diagnostics += mode.notes
    policy = load_policy(project_dir, home, mode.mode, project_trusted=trusted)
    diagnostics += policy.problems
    profile = opened.claude_code
    effort, effort_problems = load_effort(
        project_dir, home, project_trusted=trusted, default=profile.effort_default
    )
    diagnostics += effort_problems
    settings_env, env_problems = load_settings_env(project_dir, home, project_trusted=trusted)
    diagnostics += env_problems
    if teammate is not None and not teams_enabled({**os.environ, **settings_env}):
        diagnostics.append(
            f"warning: --teammate {teammate.name}@{teammate.team}: agent teams are off "
            f"(set {TEAMS_VARIABLE}=1); TeammateIdle hooks will not run"
        )
        teammate = None
    skill_errors: list[SkillHookError] = []
    skill_hooks = (
        # quiet: each rejection is said once, as an `error:` diagnostic below
        scan_hooks(list(skills), str(project_dir / "skills"), errors=skill_errors, quiet=True)
        if skills and trusted
        else []
    )
    if skills and not trusted:
        diagnostics.append(f"warning: skills {', '.join(skills)}: not used, folder not trusted")
    diagnostics += [f"error: {e}" for e in skill_errors]
    config = AgentConfig(
        project_trusted=trusted,
        project_dir=project_dir,
        home=home,
        permission_mode=mode.mode,
        max_turns=max_turns,
        planning=planning,
        interactive=interactive,
        skill_hooks=skill_hooks,
        compact_tokens=compact_tokens,
        effort=effort,
        claude_code=profile,
        settings_env=settings_env,
        stop_block_cap=stop_block_cap(settings_env, AgentConfig.default_stop_block_cap()),
        failure_policy=opened.failure_policy,
        teammate=teammate,
    )
    messages = None
    if history is not None:
        messages = [{"role": "system", "content": config.system_prompt}, *history]
    session_id = resume
    if resume:
        messages, session_id = _resumed(home, project_dir, resume, fork=fork_session)
    registry = tools or default_tools()
    hook_tools = list(dict.fromkeys([*registry.names(), "Agent"]))
    diagnostics += map(str, tool_filter_warnings(skill_hooks, project_dir / "skills", hook_tools))
    agent = Agent(
        engine,
        resolved_model,
        registry,
        config,
        policy=policy,
        session_id=session_id,
        messages=messages,
        on_event=on_event,
        ask_user=ask_user,
        prompt_channel=prompt_channel,
    )
    holder.append(agent)
    report_not_run(engine, opened.not_run, agent.session_id)
    _register_agent_tools(registry, agent, settings_env)
    _connect_dialects(agent, engine, resolved_model, project_dir, home)
    diagnostics += await start_processes(engine, opened.watch)
    # After the hook processes: PicoClaw observers see the servers connect.
    servers = _mcp_servers(agent, home, ask_elicitation if interactive else None)
    diagnostics += await connect_servers(
        servers,
        registry,
        project_dir,
        home,
        trust_policy,
        config_files=mcp_config_files,
        denied=policy.denies_tool,
    )
    agent.closers.append(servers.close)
    engine.services = replace(engine.services, mcp=servers.call_for_hook)
    return SessionSetup(agent, engine, diagnostics, skipped, opened.not_run, opened.not_run_summary)


def _resumed(
    home: Path, project_dir: Path, resume: str, *, fork: bool
) -> tuple[list[dict[str, Any]], str]:
    """The history of session `resume` and the id the session goes on under: its own, or for
    a `fork` a new one whose transcript starts as a copy of the old (measured in Claude Code:
    ``--fork-session`` keeps the old transcript and writes a new file)."""
    path = transcripts.transcript_path(home, project_dir, resume)
    messages = transcripts.load(path)
    if not messages:
        raise ValueError(f"session {resume} has an empty transcript at {path}")
    if not fork:
        return messages, resume
    session_id = str(uuid.uuid4())
    transcripts.fork(path, transcripts.transcript_path(home, project_dir, session_id), session_id)
    return messages, session_id


def _register_agent_tools(
    registry: ToolRegistry, agent: Agent, settings_env: Mapping[str, str]
) -> None:
    """The tools that act through the agent itself: `Agent` (subagents), the task list (where
    the settings switch it on, as Claude Code does), and `Skill` (where a skill or command
    exists); a host's own tool of the same name is kept."""
    if registry.get("Agent") is None:
        registry.register(AgentTool(agent))
    if tasks_enabled({**os.environ, **settings_env}):
        register_task_tools(registry, agent)
    if registry.get("Skill") is None and any_skill(agent):
        registry.register(SkillTool(agent))


def _mcp_servers(agent: Agent, home: Path, ask: AskElicitation | None) -> McpServers:
    """The session's MCP servers: their elicitation requests go through the agent's hooks
    (and `ask`), their lifecycle and calls to its runtime-event observers."""

    async def on_elicit(server: str, params: Any) -> Any:
        request = request_of(server, params)
        return to_result(await elicit(agent.hooks, request, ask, agent.after_running_tool))

    async def on_complete(server: str, elicitation_id: str) -> None:
        message = f'Elicitation for server "{server}" completed'

        async def tell() -> None:
            await agent.hooks.notification("elicitation_complete", message)

        if not agent.after_running_tool(tell):
            await tell()

    return McpServers(
        log_dir=home / ".hookwright" / "logs",
        on_elicit=on_elicit,
        on_complete=on_complete,
        observe=agent.observe,
    )


def _connect_dialects(
    agent: Agent, engine: HookEngine, model: Model, project_dir: Path, home: Path
) -> None:
    """Claude Code async hooks report into the agent's context (one paragraph per hook: its
    system message, then its context, as Claude Code shows them); prompt and agent hooks of
    every dialect use the session's model."""
    engine.services = replace(
        engine.services, evaluator=evaluators.HookModels(model, project_dir, home)
    )
    inbox = engine.services.inbox

    def async_hook_context(session_id: str) -> list[str]:
        texts: list[str] = []
        for delivery in inbox.drain(session_id):
            if delivery.rewake and delivery.rewake_message:
                name = delivery.result.hook.name if delivery.result.hook else "async hook"
                texts.append(
                    f"Stop hook blocking error from command {name}: {delivery.rewake_message}"
                )
                agent.emit("notice", text=f"{name} woke the agent: {delivery.rewake_message}")
            reported = [t for t in (delivery.system_message, delivery.additional_context) if t]
            if reported:
                texts.append("\n".join(reported))
        return texts

    agent.context_sources.append(async_hook_context)


__all__ = ["ModelConfigError", "SessionSetup", "default_model_spec", "open_session"]
