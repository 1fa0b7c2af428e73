"""What a host chooses for a reference-agent session (`runtime.opening.open_session`): one
frozen record each caller builds, in place of a long list of keyword options."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hookwright.engine.host_seams import WorkspaceAccess
    from hookwright.engine.kernel import HookEngine
    from hookwright.host import PromptChannel
    from hookwright.host.open import AskTrust
    from hookwright.runtime.agent import AskUser, EventSink
    from hookwright.runtime.mcp.elicitation import AskElicitation
    from hookwright.runtime.models import Model
    from hookwright.runtime.permissions import PermissionMode
    from hookwright.runtime.teammate import Teammate
    from hookwright.runtime.tools import ToolRegistry


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """A session on `project_dir`'s hooks, as the host wants it. The defaults are those of a
    non-interactive run on the user's trust store."""

    project_dir: Path
    #: The user's home (None: `user_home()`): the trust store, settings, logs, transcripts.
    home: Path | None = None

    # -- the model and the agent's loop
    #: A model, or its spec (``openai:NAME``, ``anthropic:NAME``, ``scripted:FILE``); None:
    #: the environment's, else the trusted project's scripted model (`default_model_spec`).
    model: str | Model | None = None
    #: None: the settings files' ``permissions.defaultMode`` (see `permission_mode`), else
    #: ``default``.
    permission_mode: PermissionMode | None = None
    max_turns: int = 20
    planning: bool = False
    compact_tokens: int = 100_000
    #: The Claude Code version profile to imitate (None: as the settings choose).
    claude_code_version: str | None = None
    #: Run as this agent team member (TeammateIdle fires when it would stop), where
    #: `CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS` is on (environment or settings `env`).
    teammate: Teammate | None = None

    # -- what is opened, and under which trust
    #: Trust every folder for this session (``--trust``).
    trust: bool = False
    config_files: Sequence[Path] = ()
    #: MCP configs beside the user's, the trusted project's `.mcp.json` and enabled plugins'.
    mcp_config_files: Sequence[Path] = ()
    #: The skills (``--skill``) whose prompt hooks the session runs.
    skills: Sequence[str] = ()

    # -- the conversation it starts from
    #: Go on with this session's transcript.
    resume: str | None = None
    #: With `resume`: go on in a new session (its own id, a copy of the old transcript), as
    #: Claude Code's ``--fork-session``.
    fork_session: bool = False
    #: OpenAI-format messages a client keeps: the agent starts from ``[system prompt,
    #: *history]``. Excludes `resume`.
    history: Sequence[dict[str, Any]] | None = None

    # -- the person and the host
    #: A person answers: `ask_trust` and `ask_elicitation` are used only then (otherwise a
    #: server's elicitation request is cancelled).
    interactive: bool = False
    on_event: EventSink | None = None
    ask_user: AskUser | None = None
    #: Where `ask_user` asks the person (the audit records it with their answer).
    prompt_channel: PromptChannel = "callback"
    ask_trust: AskTrust | None = None
    #: Asks the person when an MCP server wants input and no hook answers.
    ask_elicitation: AskElicitation | None = None
    #: The session's tools (None: `default_tools()`).
    tools: ToolRegistry | None = None
    #: An engine of the host's to open the hooks onto (None: a new session engine, closed
    #: when opening fails).
    engine: HookEngine | None = None
    #: Leases the project's files to the hooks that touch them (see
    #: `hookwright.engine.services.WorkspaceAccess`).
    workspace_access: WorkspaceAccess | None = None
