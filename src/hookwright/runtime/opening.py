"""Building a session for a project: hooks from every source (bound only where the
`TrustPolicy` trusts their folder), the model, tools, permissions and skills. The project's own
permission rules, scripted model and skills count only once the folder is trusted."""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hookwright.config.trust import TrustPolicy
from hookwright.core.home import user_home
from hookwright.dialects.claude_profiles import named_profile
from hookwright.dialects.skills import HookInfo
from hookwright.dialects.skills.tools import tool_filter_warnings
from hookwright.engine.defaults import DEFAULT_AUDIT
from hookwright.engine.kernel import HookEngine
from hookwright.host.not_run import NotRun
from hookwright.host.open import (
    OpenedProject,
    ProjectScope,
    open_project,
    report_not_run,
    scan_skill_hooks,
    session_engine,
    start_processes,
)
from hookwright.runtime import evaluators
from hookwright.runtime import transcript as transcripts
from hookwright.runtime.agent import Agent, AgentConfig
from hookwright.runtime.effort import load_effort
from hookwright.runtime.mcp import McpServers, connect_servers
from hookwright.runtime.mcp.elicitation import AskElicitation, elicit, request_of, to_result
from hookwright.runtime.models import Model, ModelConfigError, ModelError, make_model
from hookwright.runtime.models.retry import RetryCallback
from hookwright.runtime.permission_mode import session_mode
from hookwright.runtime.permissions import PermissionMode, PermissionPolicy, load_policy
from hookwright.runtime.session_options import SessionOptions
from hookwright.runtime.settings_env import load_settings_env, stop_block_cap
from hookwright.runtime.skill_commands import any_skill
from hookwright.runtime.skill_tool import SkillTool
from hookwright.runtime.subagent import AgentTool
from hookwright.runtime.tasks import register_task_tools, tasks_enabled
from hookwright.runtime.teammate import TEAMS_VARIABLE, Teammate, teams_enabled
from hookwright.runtime.tools import ToolRegistry, default_tools

DEFAULT_SCRIPT = Path(".hookwright") / "script.yaml"
NO_MODEL_TEXT = (
    "No model is configured. Pass --model openai:NAME (OPENAI_BASE_URL / OPENAI_API_KEY), "
    "--model anthropic:NAME (ANTHROPIC_API_KEY) or --model scripted:FILE."
)


@dataclass(slots=True)
class SessionSetup:
    """The opened session. `not_run`: every declared hook that will not run, and why (each
    already logged on `hookwright.open` and audited, `report_not_run`); `not_run_summary`: the
    line of `diagnostics` those lines say again hook by hook, for a host that shows both;
    `unread`: the lines of `diagnostics` naming a required file that could not be read
    (`OpenedProject.unread`), logged on `hookwright.open` and audited too."""

    agent: Agent
    engine: HookEngine
    diagnostics: list[str] = field(default_factory=list)
    untrusted_hooks: int = 0
    not_run: tuple[NotRun, ...] = ()
    not_run_summary: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()


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


async def open_session(options: SessionOptions) -> SessionSetup:
    """Load the project's hooks into an engine and build the agent. Raises ModelConfigError or
    ValueError (bad resume id, bad trust file) with a message for the user. MCP servers start
    here and stop when the agent closes."""
    _check_start(options)
    engine, opened, diagnostics = await _open_hooks(options)
    holder: list[Agent] = []
    try:
        chosen = _session_model(options.model, engine, opened, _retry_into(holder))
    except ModelConfigError:
        if options.engine is None:
            await engine.aclose()
        raise
    settings = _read_settings(opened, chosen.name, options)
    agent, lines = _build_agent(options, engine, chosen, opened, settings)
    holder.append(agent)
    ask_elicitation = options.ask_elicitation if options.interactive else None
    lines += await _start(agent, opened, settings, options.mcp_config_files, ask_elicitation)
    untrusted = len(opened.untrusted)
    return SessionSetup(
        agent,
        engine,
        diagnostics + lines,
        untrusted,
        opened.not_run,
        opened.not_run_summary,
        tuple(map(str, opened.unread)),
    )


def _check_start(options: SessionOptions) -> None:
    """The conversation to start from names one source: a client's history or a resumed
    session, and a fork only of a resumed one."""
    if options.history is not None and options.resume:
        raise ValueError("history and resume cannot be combined")
    if options.fork_session and not options.resume:
        raise ValueError("--fork-session needs --resume ID (the session to fork)")


@dataclass(frozen=True, slots=True)
class _Settings:
    """What the settings files say about the session: its permission mode and rules, effort,
    `env` variables and teammate (None where agent teams are off), and one line per problem."""

    mode: PermissionMode
    policy: PermissionPolicy
    effort: str | None
    effort_setting: str | None
    env: dict[str, str]
    teammate: Teammate | None
    diagnostics: tuple[str, ...]


async def _open_hooks(options: SessionOptions) -> tuple[HookEngine, OpenedProject, list[str]]:
    """The project's hooks opened onto the host's engine (None: a new session engine), asking
    about trust only in an interactive session, and the diagnostics of opening it."""
    project_dir, home = options.project_dir.resolve(), options.home or user_home()
    version = options.claude_code_version
    given = named_profile(version) if version is not None else None
    policy = TrustPolicy.load(home, everything=options.trust)
    scope = ProjectScope(options.config_files, claude_code=given)
    state_problems: tuple[str, ...] = ()
    engine = options.engine
    if engine is None:
        engine, state_problems = session_engine(home, audit_path=DEFAULT_AUDIT)
    if options.workspace_access is not None:
        engine.services = replace(engine.services, workspace_access=options.workspace_access)
    ask_trust = options.ask_trust if options.interactive else None
    opened = await open_project(engine, project_dir, home, policy, scope, ask_trust=ask_trust)
    return engine, opened, [*opened.diagnostics, *state_problems]


def _retry_into(holder: list[Agent]) -> RetryCallback:
    """A model retry reported to the agent once `holder` has it (the model is made first)."""

    def on_retry(attempt: int, error: ModelError, delay: float) -> None:
        if holder:
            holder[0].model_retry(attempt, error, delay)

    return on_retry


def _session_model(
    model: str | Model | None, engine: HookEngine, opened: OpenedProject, on_retry: RetryCallback
) -> Model:
    """The model given, else the one its spec or the environment names; the audit records
    its name."""
    if model is None or isinstance(model, str):
        model = resolve_model(model, opened.project_dir, on_retry, project_trusted=opened.trusted)
    engine.audit.describe(host="reference agent", model=model.name or None)
    return model


def _read_settings(opened: OpenedProject, model_name: str, options: SessionOptions) -> _Settings:
    """The permission mode and rules, effort (by default the Claude Code profile's for
    `model_name`) and `env` of the settings files (the project's only once trusted), and
    whether the session's teammate can run (agent teams on)."""
    permission_mode, config_files = options.permission_mode, options.config_files
    project_dir, home, trusted = opened.project_dir, opened.home, opened.trusted
    mode = session_mode(permission_mode, project_dir, home, opened.policy, config_files)
    policy = load_policy(project_dir, home, mode.mode, project_trusted=trusted)
    setting, effort_problems = load_effort(project_dir, home, project_trusted=trusted)
    effort = opened.claude_code.effort_for(model_name, setting)
    env, env_problems = load_settings_env(project_dir, home, project_trusted=trusted)
    lines = [*mode.notes, *policy.problems, *effort_problems, *env_problems]
    teammate = options.teammate
    if teammate is not None and not teams_enabled({**os.environ, **env}):
        lines.append(
            f"warning: --teammate {teammate.name}@{teammate.team}: agent teams are off "
            f"(set {TEAMS_VARIABLE}=1); TeammateIdle hooks will not run"
        )
        teammate = None
    return _Settings(mode.mode, policy, effort, setting, env, teammate, tuple(lines))


def _skill_hooks(opened: OpenedProject, skills: Sequence[str]) -> tuple[list[HookInfo], list[str]]:
    """The prompt hooks of the `--skill` skills, where the folder is trusted, and one line per
    problem (each rejection said once here, not logged as well)."""
    if not skills:
        return [], []
    if not opened.trusted:
        return [], [f"warning: skills {', '.join(skills)}: not used, folder not trusted"]
    return scan_skill_hooks(opened.project_dir, skills, quiet=True)


def _build_agent(
    options: SessionOptions,
    engine: HookEngine,
    model: Model,
    opened: OpenedProject,
    settings: _Settings,
) -> tuple[Agent, list[str]]:
    """The agent on the session's tools and starting conversation, and one line per problem
    of its settings and skill hooks."""
    skill_hooks, skill_lines = _skill_hooks(opened, options.skills)
    config = _agent_config(options, opened, settings, skill_hooks)
    messages, session_id = _starting_messages(config, options)
    registry = options.tools or default_tools()
    lines = [*settings.diagnostics, *skill_lines, *_filter_lines(opened, skill_hooks, registry)]
    agent = Agent(
        engine,
        model,
        registry,
        config,
        policy=settings.policy,
        session_id=session_id,
        messages=messages,
        on_event=options.on_event,
        ask_user=options.ask_user,
        prompt_channel=options.prompt_channel,
    )
    return agent, lines


def _agent_config(
    options: SessionOptions,
    opened: OpenedProject,
    settings: _Settings,
    skill_hooks: list[HookInfo],
) -> AgentConfig:
    return AgentConfig(
        project_trusted=opened.trusted,
        project_dir=opened.project_dir,
        home=opened.home,
        permission_mode=settings.mode,
        max_turns=options.max_turns,
        planning=options.planning,
        interactive=options.interactive,
        skill_hooks=skill_hooks,
        compact_tokens=options.compact_tokens,
        effort=settings.effort,
        effort_setting=settings.effort_setting,
        claude_code=opened.claude_code,
        settings_env=settings.env,
        stop_block_cap=stop_block_cap(settings.env, AgentConfig.default_stop_block_cap()),
        failure_policy=opened.failure_policy,
        teammate=settings.teammate,
    )


def _starting_messages(
    config: AgentConfig, options: SessionOptions
) -> tuple[list[dict[str, Any]] | None, str | None]:
    """The conversation the agent starts from and the session id it goes on under: the
    client's history after the system prompt, the transcript of the session `resume` names
    (see `_resumed`), or None for both (a new session)."""
    if options.history is not None:
        return [{"role": "system", "content": config.system_prompt}, *options.history], None
    if not options.resume:
        return None, None
    return _resumed(config.home, config.project_dir, options.resume, fork=options.fork_session)


def _filter_lines(
    opened: OpenedProject, skill_hooks: list[HookInfo], registry: ToolRegistry
) -> list[str]:
    """A warning per skill hook's `tool_filter` name no tool of the session has (`Agent`
    counted: it is added when the session starts)."""
    hook_tools = list(dict.fromkeys([*registry.names(), "Agent"]))
    skills_dir = opened.project_dir / "skills"
    return list(map(str, tool_filter_warnings(skill_hooks, skills_dir, hook_tools)))


async def _start(
    agent: Agent,
    opened: OpenedProject,
    settings: _Settings,
    mcp_config_files: Sequence[Path],
    ask_elicitation: AskElicitation | None,
) -> list[str]:
    """Report what will not run, add the agent's own tools, connect the dialects to the agent,
    start the hook processes and then the MCP servers; one line per problem."""
    engine, registry = agent.engine, agent.tools
    report_not_run(engine, opened.not_run, agent.session_id, opened.unread)
    _register_agent_tools(registry, agent, settings.env)
    _connect_dialects(agent, engine, agent.model, opened.project_dir, opened.home)
    lines = await start_processes(engine, opened.watch)
    # After the hook processes: PicoClaw observers see the servers connect.
    servers = _mcp_servers(agent, opened.home, ask_elicitation)
    lines += await connect_servers(
        servers,
        registry,
        opened.project_dir,
        opened.home,
        opened.policy,
        config_files=mcp_config_files,
        denied=settings.policy.denies_tool,
    )
    agent.closers.append(servers.close)
    engine.services = replace(engine.services, mcp=servers.call_for_hook)
    return lines


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


__all__ = [
    "ModelConfigError",
    "SessionOptions",
    "SessionSetup",
    "default_model_spec",
    "open_session",
]
