"""`HookSession`: one agent session's hooks, as typed decisions per checkpoint.

A host (the reference agent, a framework adapter, a bridge) calls one method per lifecycle
checkpoint and applies the decision it gets back; it never reads a `Verdict`. The session keeps
what spans checkpoints: the session's identity, the consecutive Stop-block count and the
first decision per `tool_use_id` (a host that replays a step gets the first answer back instead
of running the hooks twice).
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType

from hookwright.config.loading import DiscoveredHook
from hookwright.config.policy import FailurePolicy, load_failure_policy
from hookwright.config.trust import TrustPolicy
from hookwright.core.events import TOOL_EVENTS, Event, HookInput
from hookwright.core.home import user_home
from hookwright.core.logs import LazyLogger
from hookwright.core.messages import (
    collapse_leading_system,
    insert_system_notes,
    split_leading_system,
)
from hookwright.core.results import Decision, HookResult, Verdict, failed_dispatch
from hookwright.core.spec import HookSpec
from hookwright.core.tool_results import tool_result_of
from hookwright.engine.kernel import HookEngine
from hookwright.engine.services import ModelEvaluator
from hookwright.host import open as opening
from hookwright.host.claude_profile import stop_feedback, tool_block_message
from hookwright.host.notes import model_notes, placed_notes
from hookwright.host.open import (
    NEWEST,
    ClaudeCodeProfile,
    ConfigWatchTarget,
    OpenedProject,
    ProjectScope,
)
from hookwright.host.reports import Reporter, report_verdict
from hookwright.host.toolmap import ToolMap, unmatched_tool_hooks
from hookwright.monitor.audit import AuditRecord
from hookwright.monitor.watch import EngineMonitor

TYPE_CHECKING = False
if TYPE_CHECKING:
    # Imported where a decision is made: a bridge relaying a host's own hook input (`relay`)
    # makes none, and a process answering one event does not load their ~20 record classes.
    from typing import Any, Literal

    from hookwright.core.audit_detail import PermissionSource
    from hookwright.engine.host_seams import WorkspaceAccess
    from hookwright.host.decisions import (
        Ask,
        Checkpoint,
        CompactDecision,
        CompactedDecision,
        Defer,
        Deny,
        ElicitationDecision,
        EndTurn,
        ModelRequest,
        ModelRequestDecision,
        ModelResponseDecision,
        PermissionDecision,
        Respond,
        Run,
        SessionStartDecision,
        StopDecision,
        ToolDecision,
        ToolResult,
        ToolResultDecision,
    )
    from hookwright.host.not_run import NotRun
    from hookwright.host.open import HookInfo
    from hookwright.host.switches import (
        ModelSwitchDecision,
        ResumeCost,
        SkillShellDecision,
    )

opening.register_tool_result_readers()
DEFAULT_STOP_BLOCK_CAP = 8
#: The fields every hook input of a host carries, adopted by `HookSession.adopt` (a Codex
#: input also names its turn).
HOST_COMMON_FIELDS = ("session_id", "turn_id", "transcript_path", "cwd", "permission_mode")
#: The fields of a host's hook input that are not the event's payload (`HookSession.relay`).
_NOT_PAYLOAD = frozenset({*HOST_COMMON_FIELDS, "hook_event_name"})
log = LazyLogger("hookwright.host")


def _engine_failed(event: Event, exc: Exception) -> Verdict:
    """The verdict of a dispatch the engine raised out of (it turns hook failures into values:
    this is a bug, answered as a failed dispatch)."""
    return failed_dispatch(event, f"hookwright could not run the {event} hooks: {exc}")


def new_session_id() -> str:
    """A fresh random UUID (version 4) as `str(uuid.uuid4())` writes it, made without the
    `uuid` module, which loads `platform` (about 2 % of a process that answers one event)."""
    value = int.from_bytes(os.urandom(16), "big")
    value = value & ~(0xC000 << 48) | 0x8000 << 48  # the RFC 4122 variant
    value = value & ~(0xF000 << 64) | 4 << 76  # version 4
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


@dataclass(slots=True)
class SessionIdentity:
    """The common fields every hook input carries; the host updates them as the session
    moves (a new turn, a permission-mode change, a new working directory).

    `prompt_id` names the user prompt being answered (Claude Code: a fresh uuid4 per prompt,
    kept until the next one); `effort` is the model's reasoning effort level (`"high"`), sent
    as `{"level": effort}` on the events that carry it. Inside a subagent `transcript_path` is
    the session's transcript and `agent_transcript_path` the subagent's own, on every input's
    payload (Claude Code's hooks read the session's, Codex's the subagent's but on
    SubagentStop: measured)."""

    session_id: str = field(default_factory=new_session_id)
    cwd: str | None = None
    project_dir: str | None = None
    transcript_path: str | None = None
    permission_mode: str | None = None
    turn_id: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    agent_transcript_path: str | None = None
    channel: str = "cli"
    prompt_id: str | None = None
    effort: str | None = None


class HookSession:
    """Fires the canonical events of one session on `engine` and turns each verdict into the
    decision a host applies."""

    def __init__(
        self,
        engine: HookEngine,
        identity: SessionIdentity | None = None,
        *,
        report: Reporter | None = None,
        tool_map: ToolMap | None = None,
        stop_block_cap: int = DEFAULT_STOP_BLOCK_CAP,
        host_objects: Mapping[str, Any] | None = None,
        failure_policy: FailurePolicy | None = None,
        claude_code: ClaudeCodeProfile = NEWEST,
    ) -> None:
        self.engine = engine
        #: What fails closed among the hooks added later (frontmatter, skill prompt hooks);
        #: None: read from the policy files when they are added. `open` sets the project's.
        self.failure_policy = failure_policy
        #: The Claude Code version whose wording the model reads (`dialects.claude_profiles`).
        self.claude_code = claude_code
        self.identity = identity or SessionIdentity()
        self.report = report
        self.tool_map = tool_map or ToolMap()
        self.stop_block_cap = stop_block_cap
        self.session_title: str | None = None
        #: Objects in-process Python hooks may read (`HookInput.host_objects`); never sent
        #: to a hook process.
        self.host_objects = MappingProxyType(dict(host_objects or {}))
        #: Set by `open`: one line per loading problem, and the hooks left unbound.
        self.diagnostics: tuple[str, ...] = ()
        self.untrusted: tuple[DiscoveredHook, ...] = ()
        #: Set by `open`: every declared hook that will not run, each with its reason, file
        #: and fix (also logged on `hookwright.open` and written to the audit).
        self.skipped: tuple[NotRun, ...] = ()
        #: Set by `open`: what opening the project gave (`opened.not_run`: what will not run).
        self.opened: OpenedProject | None = None
        #: Set by `open`: the config to watch for changes while the session runs.
        self.watch: ConfigWatchTarget | None = None
        self._stop_blocks = 0
        #: The 0-based index of the turn's latest model call: the `iteration` of the tool
        #: checkpoints that follow it.
        self._iteration = 0
        self._tool_decisions: dict[str, ToolDecision] = {}
        self._started = False
        self._closed = False

    @classmethod
    async def open(
        cls,
        project_dir: Path,
        *,
        home: Path | None = None,
        trust: TrustPolicy | None = None,
        config_files: Sequence[Path] = (),
        dialects: Collection[str] | None = None,
        exclude_dialects: Collection[str] = (),
        tool_map: ToolMap | None = None,
        host_tools: Sequence[str] = (),
        evaluator: ModelEvaluator | None = None,
        workspace_access: WorkspaceAccess | None = None,
        audit_path: Path | None = None,
        identity: SessionIdentity | None = None,
        report: Reporter | None = None,
        host_objects: Mapping[str, Any] | None = None,
        stop_block_cap: int = DEFAULT_STOP_BLOCK_CAP,
        claude_code: ClaudeCodeProfile | None = None,
        required_of: Collection[str] = (),
    ) -> HookSession:
        """A session on a project's hooks, for any host. Discovery runs no hook code; only
        folders `trust` trusts (default: the user's trust store, `hookwright trust DIR`) are
        bound. The audit file is off unless `audit_path` is given. `host_tools` (the host's
        tool names) turns hooks whose matcher matches none of them into diagnostics.
        `workspace_access` leases the workspace's files to hooks that touch them (OpenHarness
        command hooks and prompt files) when the host keeps them elsewhere. `claude_code`: the
        Claude Code version to imitate (None: the `claudeCodeVersion` of the project's, once
        trusted, or the user's `.hookwright/settings.json`, else the newest). `required_of`:
        dialects of `exclude_dialects` (their hooks run by the host itself) whose files an
        organization requires are read still, so that one hookwright cannot read refuses the
        session under the failure policy (`ProjectRefused`), as in every other host."""
        home = home or user_home()
        policy = trust or TrustPolicy.load(home)
        engine, state_problems = opening.session_engine(
            home, audit_path=audit_path, evaluator=evaluator, workspace_access=workspace_access
        )
        opened = await opening.open_project(
            engine,
            project_dir,
            home,
            policy,
            ProjectScope(
                config_files, dialects, exclude_dialects, claude_code, required_of=required_of
            ),
        )
        ident = identity or SessionIdentity()
        ident.cwd = ident.cwd or str(opened.project_dir)  # resolved by `open_project`
        ident.project_dir = ident.project_dir or str(opened.project_dir)
        session = cls(
            engine,
            ident,
            report=report,
            tool_map=tool_map,
            stop_block_cap=stop_block_cap,
            host_objects=host_objects,
            claude_code=opened.claude_code,
        )
        session._take_opened(opened, state_problems, host_tools)
        return session

    def _take_opened(
        self, opened: OpenedProject, problems: Sequence[str], host_tools: Sequence[str]
    ) -> None:
        """Keep what opening the project gave, and report each hook that will not run."""
        names = self.tool_map.hook_names(host_tools)
        self.diagnostics = (
            *opened.diagnostics,
            *problems,
            *unmatched_tool_hooks(self.engine.hooks(), names),
        )
        self.untrusted = opened.untrusted
        self.skipped = opened.not_run
        opening.report_not_run(self.engine, opened.not_run, unread=opened.unread)
        self.opened = opened
        self.failure_policy = opened.failure_policy
        self.watch = opened.watch

    async def __aenter__(self) -> HookSession:
        await self.begin()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def begin(self) -> list[str]:
        """Start the session's hook processes (PicoClaw observers see every event from the
        first); one line per process that failed to start."""
        if self._started:
            return []
        self._started = True
        problems = await opening.start_processes(self.engine, self.watch)
        self.diagnostics = (*self.diagnostics, *problems)
        return problems

    async def aclose(self, reason: str | None = None) -> None:
        """Fire SessionEnd (when `reason` is given), deliver pending observer events, stop
        hook processes and flush the audit. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            if reason is not None:
                await self.end(reason)
        finally:
            await self.engine.aclose()

    @property
    def session_id(self) -> str:
        return self.identity.session_id

    def tool_span(self, tool_name: str, call_id: str) -> AbstractContextManager[None]:
        """The tool call's OpenTelemetry `execute_tool` span, open while the block runs (its
        PreToolUse to its PostToolUse), when the engine sends spans; else nothing."""
        monitor = self.engine.monitor
        spans = monitor.spans if isinstance(monitor, EngineMonitor) else None
        if spans is None:
            return nullcontext()
        return spans.tool_call(self.session_id, tool_name, call_id)

    def _relayed_span(
        self, event: Event, tool_name: str, payload: Mapping[str, Any]
    ) -> AbstractContextManager[None]:
        """For a host that runs the tool and relays its events: the dispatch of one event of
        the call hangs under the call's `execute_tool` span (`monitor.otel_relay`), when the
        engine sends spans and the host gave a tool-use id; else nothing."""
        monitor = self.engine.monitor
        spans = monitor.spans if isinstance(monitor, EngineMonitor) else None
        call_id = payload.get("tool_use_id")
        if spans is None or event not in TOOL_EVENTS or not isinstance(call_id, str) or not call_id:
            return nullcontext()
        from hookwright.monitor.otel_relay import RelayedTool  # only when spans are sent

        tool = RelayedTool(None, self.session_id, tool_name, call_id, event)
        tool.duration_ms = payload.get("duration_ms")
        return spans.relayed_call(tool)

    def add_frontmatter_hooks(
        self,
        path: Path,
        kind: Literal["skill", "agent"],
        scope: str,
        *,
        project_dir: Path,
        home: Path,
        trust: TrustPolicy | None = None,
    ) -> list[str]:
        """Register the hooks of a skill's or subagent definition's frontmatter for `scope`
        (removed by `end_scope`), under the settings' policy (`disableAllHooks`, ...) of the
        files `trust` trusts; returns one line per problem."""
        return opening.add_frontmatter_hooks(
            self.engine,
            path,
            kind,
            scope,
            project_dir=project_dir,
            home=home,
            trust=trust,
            failure=self.failure_policy,
            claude_code=self.claude_code,
        )

    def remove_frontmatter_hooks(self, path: Path, scope: str) -> int:
        """Unregister what `add_frontmatter_hooks` registered from `path` for `scope`, so a
        skill invoked again replaces its hooks; returns how many were removed."""
        declared_in = f"{path}:"
        removed = 0
        for spec in self.engine.hooks():
            if spec.scope == scope and (spec.origin or "").startswith(declared_in):
                removed += self.engine.unregister(spec)
        return removed

    def end_scope(self, scope: str) -> None:
        self.engine.end_scope(scope)

    def add_skill_hooks(self, hooks: Iterable[HookInfo]) -> None:
        """Register skill prompt hooks for this session; their injections come back on the
        decisions (`Checkpoint.prompts`) for a `PromptFlow` to place. The failure policy
        closes them as it closes the project's hooks."""
        opening.add_skill_hooks(
            self.engine, hooks, self.identity.session_id, self.effective_failure_policy()
        )

    def effective_failure_policy(self) -> FailurePolicy:
        """`failure_policy`, else the policy files of the session's project and the user's
        home (a file that cannot be read is a diagnostic)."""
        if self.failure_policy is None:
            project = Path(self.identity.project_dir or self.identity.cwd or ".")
            self.failure_policy, problems = load_failure_policy(project, user_home())
            self.diagnostics = (*self.diagnostics, *map(str, problems))
        return self.failure_policy

    # Dispatch -----------------------------------------------------------------------------

    def input(self, event: Event, **payload: Any) -> HookInput:
        return self._input(event, payload)

    def _input(self, event: Event, payload: Mapping[str, Any]) -> HookInput:
        """`input`, for a payload already in a dict of its own (`fire` has one)."""
        merged = self._common()
        merged.update(payload)  # as `{**common, **payload}`: a payload's field wins in place
        return self._made(event, merged)

    def _common(self) -> dict[str, Any]:
        """The session's part of a hook input's payload, in a new dict, first in its order."""
        ident = self.identity
        project = ident.project_dir or ident.cwd or ""
        common: dict[str, Any] = {
            "channel": ident.channel,
            "chat_id": ident.session_id,
            "workspace_id": project,
            "run_id": ident.turn_id or "",
            "project_dir": project,
        }
        if ident.prompt_id is not None:
            common["prompt_id"] = ident.prompt_id
        if ident.agent_transcript_path is not None:
            common["agent_transcript_path"] = ident.agent_transcript_path
        if ident.effort:
            common["effort"] = {"level": ident.effort}
        return common

    def _made(self, event: Event, payload: dict[str, Any]) -> HookInput:
        """The hook input of `event` on this session's common fields, with `payload` whole.
        The fields go by position, in `HookInput.__init__`'s order: a class called with
        keywords has them packed into a dict and unpacked again, twice the positional call's
        cost on every event a daemon relays (`tests/host/test_relay_input.py` checks each
        field lands in its place)."""
        ident = self.identity
        return HookInput(
            event,
            ident.session_id,
            ident.turn_id,
            ident.agent_id,
            ident.agent_type,
            ident.cwd,
            ident.transcript_path,
            ident.permission_mode,
            payload,
            self.host_objects,
        )

    async def fire(self, event: Event, **payload: Any) -> Verdict:
        """Dispatch one checkpoint and report what the hooks did."""
        return await self._fire_input(event, self._input(event, payload))

    async def _fire_input(self, event: Event, inp: HookInput) -> Verdict:
        """`fire`, for the hook input made already (`relay` makes it from the host's own)."""
        if self.report is None:  # nothing to report: the engine selects, from its cached plan
            try:  # `_dispatch` without its coroutine (a daemon fires every event this way)
                return await self.engine.dispatch(inp)
            except Exception as exc:
                return _engine_failed(event, exc)
        return await self._dispatch(event, inp, self.engine.select(inp))

    async def fire_for(
        self, dialects: frozenset[str] | None, event: Event, **payload: Any
    ) -> Verdict:
        """`fire`, running only the hooks of `dialects` (None: every hook)."""
        if dialects is None:
            return await self.fire(event, **payload)
        inp = self._input(event, payload)
        selected = [spec for spec in self.engine.select(inp) if spec.dialect in dialects]
        return await self._dispatch(event, inp, selected)

    async def _dispatch(
        self, event: Event, inp: HookInput, selected: list[HookSpec] | None
    ) -> Verdict:
        """Run the `selected` hooks of `inp` (None: the engine selects them) and report what
        they did."""
        report = self.report
        slow = False
        if report is not None and selected is not None:
            slow = any(not spec.inline for spec in selected)
        if report is not None and selected is not None and slow:
            status = [spec.status_message for spec in selected if spec.status_message]
            report("hooks_running", event=event.value, count=len(selected), status=status)
        try:
            verdict = await self.engine.dispatch(inp, selected)
        except Exception as exc:
            verdict = _engine_failed(event, exc)
        if report is not None:
            if slow:
                report("hooks_done", event=event.value)
            project = self.identity.project_dir
            report_verdict(report, verdict, Path(project) if project else None)
        return verdict

    def observe(self, kind: str, fields: Mapping[str, Any], iteration: int = 0) -> None:
        """Publish a runtime event (the observation stream) without waiting: the event's
        PascalCase fields plus the scope of this session."""
        ident = self.identity
        self.engine.publish(
            kind,
            {
                **fields,
                "scope": {
                    "agent_id": ident.agent_id or "main",
                    "session_key": ident.session_id,
                    "turn_id": ident.turn_id or "",
                    "channel": ident.channel,
                    "chat_id": ident.session_id,
                },
                "attrs": {"iteration": iteration},
            },
        )

    def unexpressed(self, event: Event, what: str, host: str) -> None:
        """A decision field the host cannot apply (`what`, e.g. "for_user of a tool answer"):
        a warning in the log and for the operator, and an audit record with status
        ``unexpressed``; never dropped silently. Safe to call from any thread."""
        text = f"{host} cannot apply {what} from the {event.value} hooks; it was not applied"
        log.warning("%s", text)
        if self.report is not None:
            self.report("notice", text=text, event=event.value)
        record = AuditRecord(
            ts=time.time(),
            event=event.value,
            hook=host,
            source="host",
            dialect="host",
            status="unexpressed",
            decision=None,
            duration_ms=0.0,
            exit_code=None,
            reason=text,
            error=None,
            stderr_tail=None,
            session_id=self.session_id,
            origin=None,
            capabilities=None,
            patch=None,
        )
        self.engine.audit.note(record)

    def permission_outcome(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        tool_use_id: str | None,
        behavior: Literal["allow", "ask", "deny"],
        reason: str,
        source: PermissionSource,
    ) -> None:
        """Audit who allowed, asked about or denied a tool call: one ``Permission`` record per
        outcome, naming its source (a rule and its file, a person, a hook, the mode)."""
        record = AuditRecord(
            ts=time.time(),
            event="Permission",
            hook=source.name,
            source=source.by,
            dialect="host",
            status="ok",
            decision=behavior,
            duration_ms=0.0,
            exit_code=None,
            reason=reason,
            error=None,
            stderr_tail=None,
            session_id=self.session_id,
            origin=source.file,
            effect=behavior,
            tool_name=tool_name,
            tool_use_id=tool_use_id,
            tool_input=dict(tool_input),
            permission=source,
        )
        self.engine.audit.note(record)

    # A host that applies verdicts itself ------------------------------------------------------

    def adopt(self, hook_input: Mapping[str, Any]) -> None:
        """Take the common fields of a host's own hook input (a Claude Code CLI's session_id,
        transcript_path, cwd and permission_mode; a Codex CLI's turn_id), so hooks see the
        host's session. (`HOST_COMMON_FIELDS` one by one: a loop and `setattr` cost a third
        more, on every relayed event.)"""
        ident = self.identity
        get = hook_input.get
        if isinstance(value := get("session_id"), str) and value:
            ident.session_id = value
        if isinstance(value := get("turn_id"), str) and value:
            ident.turn_id = value
        if isinstance(value := get("transcript_path"), str) and value:
            ident.transcript_path = value
        if isinstance(value := get("cwd"), str) and value:
            ident.cwd = value
        if isinstance(value := get("permission_mode"), str) and value:
            ident.permission_mode = value

    def _merged(self, hook_input: Mapping[str, Any]) -> dict[str, Any]:
        """`_input`'s payload for a host's own hook input: the same fields in the same order
        as the common fields merged with the input less `_NOT_PAYLOAD`, without the copy
        between (none of `_NOT_PAYLOAD` is a common field, so each is taken out after)."""
        merged = self._common()
        for name, value in hook_input.items():
            if name not in _NOT_PAYLOAD:
                merged[name] = value
        return merged

    async def relay(self, event: Event, hook_input: Mapping[str, Any]) -> Verdict:
        """The verdict of `event`'s hooks on a host's own hook input, for a host that applies
        verdicts itself (a Claude Code CLI asking through SDK hook callbacks): the common
        fields are adopted, a tool's name and arguments are mapped to the hooks' (`tool_map`)
        and a rewritten input back to the host's."""
        self.adopt(hook_input)
        name = hook_input.get("tool_name")
        if not isinstance(name, str):  # the hooks' input made at once: no payload of its own
            return await self._fire_input(event, self._made(event, self._merged(hook_input)))
        payload = {k: v for k, v in hook_input.items() if k not in _NOT_PAYLOAD}
        hook_name, arguments = self.tool_map.to_hooks(name, payload.get("tool_input") or {})
        with self._relayed_span(event, name, payload):
            mapped = {**payload, "tool_name": hook_name, "tool_input": arguments}
            verdict = await self._fire_input(event, self._input(event, mapped))
        if verdict.updated_input is None:
            return verdict
        _, host_input = self.tool_map.to_host(hook_name, verdict.updated_input)
        return replace(verdict, updated_input=host_input)

    # Session and turn ------------------------------------------------------------------------

    async def start(
        self,
        source: str = "startup",
        model: str | None = None,
        resume_cost: ResumeCost | None = None,
    ) -> SessionStartDecision:
        """SessionStart. Claude Code names the `model` only when the session restarts after a
        compaction (`source="compact"`); pass it then. `resume_cost`: what resuming costs, for
        a resumed session under a Claude Code version that sends it."""
        from hookwright.host.decisions import SessionStartDecision

        payload: dict[str, Any] = {"source": source}
        if model is not None:
            payload["model"] = model
        if resume_cost is not None:
            payload.update(resume_cost.payload())
        verdict = await self.fire(Event.SessionStart, **payload)
        self._remember_title(verdict)
        leading = model_notes(verdict.results, before_prompt=True)
        return SessionStartDecision(
            leading + model_notes(verdict.results, before_prompt=False),
            verdict.effects.env_files,
            verdict.effects.initial_user_message,
            len(leading),
        )

    def _remember_title(self, verdict: Verdict) -> None:
        """A hook's `sessionTitle` names the session; later prompts carry it (Claude Code's
        UserPromptSubmit `session_title`)."""
        if verdict.effects.session_title:
            self.session_title = verdict.effects.session_title

    async def end(self, reason: str = "other") -> None:
        await self.fire(Event.SessionEnd, reason=reason)

    async def interrupt(self) -> None:
        """Interrupt: the person interrupted the running turn. Hooks are told; nothing they
        answer changes anything but a message for the user."""
        await self.fire(Event.Interrupt)

    async def notification(self, notification_type: str, message: str, **payload: Any) -> None:
        """Notification: hooks are told; their output is discarded."""
        await self.fire(
            Event.Notification, message=message, notification_type=notification_type, **payload
        )

    async def elicitation(self, event: Event, **payload: Any) -> ElicitationDecision:
        """Elicitation (an MCP server asks for input) or ElicitationResult (the answer is
        about to go back): a block declines; a hook's `action` and `content` answer."""
        from hookwright.host.decisions import ElicitationDecision

        verdict = await self.fire(event, **payload)
        if verdict.blocked:
            return ElicitationDecision("decline")
        answer = verdict.effects.elicitation
        if answer is None:
            return ElicitationDecision()
        return ElicitationDecision(answer.action, answer.content)

    async def prompt(self, prompt: str, *, dialects: frozenset[str] | None = None) -> Checkpoint:
        """UserPromptSubmit: a block or stop ends the turn before the prompt is recorded.
        `dialects`: only the hooks of these dialects run (a subagent's prompt, which only
        Codex shows its hooks); None: every hook."""
        from hookwright.host.decisions import Checkpoint, EndTurn

        self._stop_blocks = 0
        titled = {"session_title": self.session_title} if self.session_title else {}
        verdict = await self.fire_for(dialects, Event.UserPromptSubmit, prompt=prompt, **titled)
        self._remember_title(verdict)
        if verdict.blocked:
            reason = first_block_reason(verdict) or "prompt blocked by a hook"
            return Checkpoint(end=EndTurn("blocked", reason))
        if not verdict.continue_:
            return Checkpoint(end=EndTurn("stopped", verdict.stop_reason or "stopped by hook"))
        return Checkpoint(model_notes(verdict.results), prompts=verdict.effects.prompt_injections)

    async def prompt_expansion(
        self,
        prompt: str,
        *,
        command_name: str,
        command_args: str,
        command_source: str | None,
        expansion_type: str = "slash_command",
    ) -> Checkpoint:
        """UserPromptExpansion, before a prompt's command is expanded: a block, abort or stop
        ends the turn unexpanded."""
        from hookwright.host.decisions import Checkpoint, EndTurn

        verdict = await self.fire(
            Event.UserPromptExpansion,
            expansion_type=expansion_type,
            command_name=command_name,
            command_args=command_args,
            command_source=command_source,
            prompt=prompt,
        )
        end = control(verdict)
        if end is None and verdict.blocked:
            reason = first_block_reason(verdict) or "prompt expansion blocked by a hook"
            end = EndTurn("blocked", reason)
        return Checkpoint(model_notes(verdict.results), end)

    async def checkpoint(self, event: Event, **payload: Any) -> Checkpoint:
        """Any checkpoint whose effects are context and control (PreAgentStep, PrePlanning,
        PostToolBatch, SubagentStart, ...): abort and `continue: false` end the turn; a block
        ends it too where the event can block."""
        from hookwright.host.decisions import Checkpoint, EndTurn

        verdict = await self.fire(event, **payload)
        end = control(verdict)
        if end is None and verdict.blocked and event is Event.PostToolBatch:
            end = EndTurn("stopped", verdict.reason or "PostToolBatch hook stopped the loop")
        return Checkpoint(model_notes(verdict.results), end, verdict.effects.prompt_injections)

    async def subagent_start(self, agent_id: str, agent_type: str) -> Checkpoint:
        """SubagentStart, in the subagent's session before its prompt: the paragraphs their
        dialect shows ahead of that prompt (Codex's) come first, `leading` of them."""
        from hookwright.host.decisions import Checkpoint

        verdict = await self.fire(Event.SubagentStart, agent_id=agent_id, agent_type=agent_type)
        leading = model_notes(verdict.results, before_prompt=True)
        notes = leading + model_notes(verdict.results, before_prompt=False)
        prompts = verdict.effects.prompt_injections
        return Checkpoint(notes, control(verdict), prompts, leading=len(leading))

    async def stop(
        self, last_assistant_message: str, *, kept_going: bool = False, **payload: Any
    ) -> StopDecision:
        """Stop (SubagentStop in a subagent): a block makes the loop go on with its reason as
        feedback, at most `stop_block_cap` times in a row (0: no cap). `kept_going`: another
        hook that fires on stopping (TeammateIdle) made the loop go on last time, which
        `stop_hook_active` says as a Stop block's would."""
        from hookwright.host.decisions import EndTurn, StopDecision

        event = Event.SubagentStop if self.identity.agent_id else Event.Stop
        verdict = await self.fire(
            event,
            stop_hook_active=self._stop_blocks > 0 or kept_going,
            last_assistant_message=last_assistant_message,
            background_tasks=[],
            session_crons=[],
            trigger_type="message",
            run_status="completed",
            **payload,
        )
        if not verdict.continue_:
            return StopDecision(end=EndTurn("stopped", verdict.stop_reason or "stopped by hook"))
        feedback = tuple(
            _continuation(self.claude_code, result)
            for result in verdict.results
            if result.decision is Decision.block
        )
        context = model_notes(verdict.results, block_feedback=self.claude_code.stop_block_notes)
        if not feedback and not context:
            self._stop_blocks = 0
            return StopDecision()
        cap = self.stop_block_cap
        if cap and self._stop_blocks >= cap:
            self._stop_blocks = 0
            return StopDecision(capped=True)
        self._stop_blocks += 1
        return StopDecision(feedback, context)

    async def stop_failure(self, error: str, details: str) -> None:
        await self.fire(
            Event.StopFailure,
            error=error,
            error_details=details,
            last_assistant_message=details,
            trigger_type="message",
            run_status="failed",
        )

    # Model calls ------------------------------------------------------------------------------

    async def model_request(
        self, request: ModelRequest, *, iteration: int = 0, model_ref: str | None = None
    ) -> ModelRequestDecision:
        """PreContextBuild (the history, without the leading system messages) ->
        PostContextBuild (the whole context) -> PreModelCall. Context hooks may rewrite the
        messages, PreModelCall hooks the whole request; every hook's context goes into this
        very call as system messages after the leading system block. Once a hook changed the
        messages, the leading system messages are sent as one (joined by a blank line)."""
        from hookwright.host.decisions import ModelRequestDecision

        self._iteration = iteration
        built = await self._context_build(request, iteration)
        if isinstance(built, ModelRequestDecision):
            return built
        messages, notes, replaced = built
        fields: dict[str, Any] = {
            "model": request.model,
            "messages": messages,
            "tools": list(request.tools),
            "options": dict(request.options or {}),
        }
        model = await self.fire(
            Event.PreModelCall,
            **fields,
            model_ref=model_ref or request.model,
            iteration=iteration,
            graceful_terminal=False,
        )
        end = model_gate(model)
        if end is not None:
            return ModelRequestDecision(request, end)
        return _request_as_rewritten(request, fields, model, notes, replaced)

    async def _context_build(
        self, request: ModelRequest, iteration: int
    ) -> ModelRequestDecision | tuple[list[dict[str, Any]], list[str], bool]:
        """PreContextBuild and PostContextBuild: the decision when a hook ended the turn,
        else the messages they leave, their context notes and whether a hook replaced the
        messages."""
        from hookwright.host.decisions import ModelRequestDecision

        system, history = split_leading_system(copy.deepcopy(list(request.messages)))
        pre = await self.fire(Event.PreContextBuild, messages=history, iteration=iteration)
        end = model_gate(pre)
        if end is not None:
            return ModelRequestDecision(request, end)
        messages = [*system, *context_messages(pre, history)]
        post = await self.fire(Event.PostContextBuild, messages=messages, iteration=iteration)
        end = model_gate(post)
        if end is not None:
            return ModelRequestDecision(request, end)
        messages = context_messages(post, messages)
        if _rewrote_messages(pre) or _rewrote_messages(post):
            messages = collapse_leading_system(messages)
        notes = [*pre.additional_context, *post.additional_context]
        return messages, notes, _replaced_messages(pre) or _replaced_messages(post)

    async def model_response(
        self,
        request: ModelRequest,
        response: Mapping[str, Any],
        *,
        iteration: int = 0,
        model_ref: str | None = None,
    ) -> ModelResponseDecision:
        from hookwright.host.decisions import ModelResponseDecision

        post = await self.fire(
            Event.PostModelCall,
            model=request.model,
            model_ref=model_ref or request.model,
            messages=list(request.messages),
            options=dict(request.options or {}),
            iteration=iteration,
            response=dict(response),
            final_response=not response.get("tool_calls"),
        )
        end = model_gate(post)
        if end is not None:
            return ModelResponseDecision(end=end)
        replaced = post.updated_output if isinstance(post.updated_output, dict) else None
        return ModelResponseDecision(replaced, tuple(post.additional_context))

    # Tools ------------------------------------------------------------------------------------

    async def before_tool(
        self, tool_name: str, tool_input: Mapping[str, Any], tool_use_id: str, **payload: Any
    ) -> ToolDecision:
        """PreToolUse, once per `tool_use_id`: a replayed call gets the first decision."""
        known = self._tool_decisions.get(tool_use_id)
        if known is not None:
            return known
        name, arguments = self.tool_map.to_hooks(tool_name, tool_input)
        verdict = await self.fire(
            Event.PreToolUse,
            tool_name=name,
            tool_input=dict(arguments),
            tool_use_id=tool_use_id,
            **payload,
        )
        decision = self._tool_decision(verdict, name, arguments)
        self._tool_decisions[tool_use_id] = decision
        return decision

    def _tool_decision(
        self, verdict: Verdict, name: str, arguments: Mapping[str, Any]
    ) -> ToolDecision:
        from hookwright.host.decisions import Ask, Defer, Deny, Respond, Run, ToolDecision

        context, beside = placed_notes(verdict.results)
        stop_after = stop_reason_of(verdict)
        end = abort_of(verdict)
        if end is not None:
            return ToolDecision(Deny("Tool call aborted by hook."), context, None, end, beside)
        action: Run | Ask | Deny | Respond | Defer
        if verdict.respond is not None:
            action = Respond(verdict.respond, verdict.effects.skip_approval)
        elif verdict.blocked:
            message = tool_block_message(self.claude_code, verdict, name)
            action = Deny(message, verdict.reason, decider_of(verdict))
        elif verdict.decision is Decision.defer:
            action = Defer(verdict.reason)
        else:
            renamed = verdict.effects.renamed_tool
            new_name = renamed if renamed is not None else name  # PicoClaw may rename to ""
            new_input = dict(
                verdict.updated_input if verdict.updated_input is not None else arguments
            )
            host_name, host_input = self.tool_map.to_host(new_name, new_input)
            if verdict.decision is Decision.ask:
                action = Ask(host_name, host_input, verdict.reason)
            else:
                approved = verdict.decision is Decision.allow
                action = Run(
                    host_name,
                    host_input,
                    approved=approved,
                    decided_by=decider_of(verdict) if approved else None,
                )
        return ToolDecision(action, context, stop_after, beside_call=beside)

    async def permission(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        tool_use_id: str,
        *,
        prompt: bool,
        suggestions: Sequence[Mapping[str, Any]] | None = None,
        gates_asked: bool = False,
        **payload: Any,
    ) -> PermissionDecision:
        """PermissionRequest for a call the host's rules do not deny; `prompt`: whether a
        permission prompt would show (Claude Code hooks fire only then, approval gates
        always); `suggestions`: the host's `permission_suggestions` (a generic session allow
        rule when the host has none); `gates_asked`: the approval gates already allowed this
        call (asked with ``permission_prompt: false`` before the host decided to prompt), so
        only the hooks that fire on a prompt run now and no gate is asked twice."""
        name, arguments = self.tool_map.to_hooks(tool_name, tool_input)
        if suggestions is None:
            suggestions = [
                {
                    "type": "addRules",
                    "rules": [{"toolName": name}],
                    "behavior": "allow",
                    "destination": "session",
                }
            ]
        inp = self.input(
            Event.PermissionRequest,
            tool_name=name,
            tool_input=dict(arguments),
            tool_use_id=tool_use_id,
            permission_prompt=prompt,
            iteration=self._iteration,
            permission_suggestions=[dict(entry) for entry in suggestions],
            **payload,
        )
        selected = self.engine.select(inp)
        if gates_asked:
            unprompted = replace(inp, payload={**inp.payload, "permission_prompt": False})
            asked = {id(spec) for spec in self.engine.select(unprompted)}
            selected = [spec for spec in selected if id(spec) not in asked]
        verdict = await self._dispatch(Event.PermissionRequest, inp, selected)
        return self._permission_decision(verdict, tool_name, name)

    def _permission_decision(
        self, verdict: Verdict, tool_name: str, name: str
    ) -> PermissionDecision:
        """The PermissionRequest verdict for the host: `tool_name` as the host calls the tool
        (in the denial it shows), `name` as the hooks do."""
        from hookwright.host.decisions import PermissionDecision

        end = abort_of(verdict)
        if verdict.blocked:
            reason = verdict.reason or "denied by a PermissionRequest hook"
            message = (
                verdict.effects.tool_message
                or f"Permission to use {tool_name} was denied: {reason}"
            )
            return PermissionDecision(
                "deny", message=message, reason=reason, end=end, decided_by=decider_of(verdict)
            )
        if verdict.decision is Decision.allow:
            new_input = None
            if verdict.updated_input is not None:
                _, new_input = self.tool_map.to_host(name, verdict.updated_input)
            return PermissionDecision(
                "allow",
                new_input,
                permission_updates=verdict.effects.permission_updates,
                end=end,
                decided_by=decider_of(verdict),
            )
        return PermissionDecision(None, end=end)

    async def after_tool(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        tool_use_id: str,
        result: ToolResult,
        *,
        duration_ms: float,
        error: str | None = None,
        **payload: Any,
    ) -> ToolResultDecision:
        """PostToolUse, or PostToolUseFailure when `result.is_error`; `payload`: more fields
        of the tool's (an MCP tool's `mcp_server`)."""
        from hookwright.host.decisions import ToolResult, ToolResultDecision

        name, arguments = self.tool_map.to_hooks(tool_name, tool_input)
        common: dict[str, Any] = {
            "tool_name": name,
            "tool_input": dict(arguments),
            "tool_use_id": tool_use_id,
            "tool_result": {"content": result.content, "is_error": result.is_error},
            "duration_ms": duration_ms,
            "iteration": self._iteration,
            **payload,
        }
        if result.is_error:
            verdict = await self.fire(
                Event.PostToolUseFailure,
                **common,
                error=error or result.content,
                is_interrupt=False,
            )
        else:
            response = result.data if result.data is not None else {"content": result.content}
            verdict = await self.fire(Event.PostToolUse, **common, tool_response=response)
        final, replaced = result, verdict.effects.tool_response
        if replaced is None and verdict.updated_output is not None:
            final = verdict.effects.tool_result or tool_result_of(
                verdict.updated_output, default_error=result.is_error
            )
            if final.data is None:
                final = replace(final, data=result.data)
        feedback = verdict.reason if verdict.decision is Decision.block and verdict.reason else None
        label: str | None = f"{verdict.event.value} hook feedback:\n"
        if feedback is not None and verdict.effects.tool_message is not None:
            final = ToolResult(verdict.effects.tool_message, True, result.data)
            feedback, label = None, None
        context, beside = placed_notes(verdict.results, feedback_label=label)
        return ToolResultDecision(
            final,
            feedback,
            context,
            stop_reason_of(verdict),
            abort_of(verdict),
            replaced,
            beside,
        )

    async def tool_batch(self, calls: Sequence[Mapping[str, Any]]) -> Checkpoint:
        return await self.checkpoint(Event.PostToolBatch, tool_calls=[dict(c) for c in calls])

    # Model switches and skill shell commands (Claude Code 2.1.295+ / 2.1.332) ---------------

    async def before_model_switch(self, **fields: Any) -> ModelSwitchDecision:
        """PreModelSwitch with `fields` (`hookwright.host.switches.switch_payload`); a profile
        without the event fires nothing and the switch goes ahead."""
        from hookwright.host.switches import ModelSwitchDecision, model_switch_decision

        if Event.PreModelSwitch not in self.claude_code.hook_events:
            return ModelSwitchDecision("switch")
        return model_switch_decision(await self.fire(Event.PreModelSwitch, **fields))

    async def after_model_switch(self, **fields: Any) -> tuple[str, ...]:
        """PostModelSwitch: the hooks' context, for the new model's next request."""
        from hookwright.host.switches import switch_context

        if Event.PostModelSwitch not in self.claude_code.hook_events:
            return ()
        return switch_context(await self.fire(Event.PostModelSwitch, **fields))

    async def skill_shell_command(
        self,
        command: str,
        *,
        command_name: str,
        command_source: str | None,
        invoked_by: str,
        tool_use_id: str,
    ) -> SkillShellDecision:
        """PreSkillShellCommand for one ``!`command` `` of a skill; a profile without the
        event fires nothing and the command runs."""
        from hookwright.host.switches import SkillShellDecision, skill_shell_decision

        if Event.PreSkillShellCommand not in self.claude_code.hook_events:
            return SkillShellDecision(True)
        verdict = await self.fire(
            Event.PreSkillShellCommand,
            tool_name="Bash",
            tool_input={"command": command},
            tool_use_id=tool_use_id,
            command_name=command_name,
            command_source=command_source,
            invoked_by=invoked_by,
        )
        return skill_shell_decision(verdict)

    # Compaction -------------------------------------------------------------------------------

    async def pre_compact(
        self, trigger: str, instructions: str, messages: Sequence[Mapping[str, Any]]
    ) -> CompactDecision:
        from hookwright.host.decisions import CompactDecision

        verdict = await self.fire(
            Event.PreCompact,
            trigger=trigger,
            custom_instructions=instructions or None,
            messages=list(messages),
        )
        if verdict.blocked:
            return CompactDecision(skip=verdict.reason or "blocked by hook")
        texts = [*verdict.effects.compact_instructions]
        custom = verdict.payload_updates.get("custom_instructions")
        if isinstance(custom, str) and custom and custom != instructions:
            texts.append(custom)
        rewritten = verdict.payload_updates.get("messages")
        return CompactDecision(
            instructions=tuple(texts),
            messages=rewritten if isinstance(rewritten, list) else None,
        )

    async def post_compact(self, trigger: str, summary: str) -> CompactedDecision:
        from hookwright.host.decisions import CompactedDecision

        verdict = await self.fire(Event.PostCompact, trigger=trigger, compact_summary=summary)
        rewritten = verdict.payload_updates.get("compact_summary")
        notes = list(verdict.additional_context)
        text = rewritten if isinstance(rewritten, str) else summary
        if notes:
            text = "\n\n".join([text, *notes])
        return CompactedDecision(text if text != summary else None)


def decider_of(verdict: Verdict) -> str | None:
    """The name of the first hook whose decision is the verdict's."""
    for result in verdict.results:
        if result.decision is verdict.decision and result.hook is not None:
            return result.hook.name
    return None


def first_block_reason(verdict: Verdict) -> str | None:
    """The reason of the first hook to block: the one Claude Code shows."""
    for result in verdict.results:
        if result.decision in (Decision.deny, Decision.block) and result.reason:
            return result.reason
    return verdict.reason


def stop_reason_of(verdict: Verdict) -> str | None:
    """Why a hook said `continue: false`, or None when none did."""
    return None if verdict.continue_ else verdict.stop_reason or "stopped by hook"


def control(verdict: Verdict) -> EndTurn | None:
    """Abort and `continue: false`, the common tail of every checkpoint."""
    from hookwright.host.decisions import EndTurn

    end = abort_of(verdict)
    if end is not None:
        return end
    stopped = stop_reason_of(verdict)
    return EndTurn("stopped", stopped) if stopped is not None else None


def abort_of(verdict: Verdict) -> EndTurn | None:
    from hookwright.host.decisions import EndTurn

    reason = verdict.abort_reason or verdict.reason
    if verdict.abort == "hard":
        return EndTurn("aborted", reason or "hard abort by hook", rollback=True)
    if verdict.abort == "turn":
        if verdict.effects.abort_error:
            return EndTurn("failed", verdict.effects.abort_error)
        return EndTurn("aborted", reason or "turn aborted by hook")
    return None


def model_gate(verdict: Verdict) -> EndTurn | None:
    """Model and context checkpoints: a block fails the run (OpenHarness run_failed)."""
    from hookwright.host.decisions import EndTurn

    if verdict.blocked:
        reason = verdict.reason or "blocked by hook"
        return EndTurn("failed", reason, failure="hook_blocked")
    return control(verdict)


def context_messages(verdict: Verdict, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages a context-build hook rewrote (`payload_updates.messages`), else
    `messages` unchanged."""
    rewritten = verdict.payload_updates.get("messages")
    return list(rewritten) if isinstance(rewritten, list) else messages


def _rewrote_messages(verdict: Verdict) -> bool:
    """Whether a context or model hook changed the messages or added notes to them."""
    return _replaced_messages(verdict) or bool(verdict.additional_context)


def _replaced_messages(verdict: Verdict) -> bool:
    updated = verdict.updated_input or {}
    return isinstance(verdict.payload_updates.get("messages"), list) or isinstance(
        updated.get("messages"), list
    )


def _request_as_rewritten(
    request: ModelRequest,
    fields: dict[str, Any],
    model: Verdict,
    notes: list[str],
    replaced: bool,
) -> ModelRequestDecision:
    """The request PreModelCall's `model` verdict leaves of `fields` (the request after the
    context hooks; `replaced`: one of them replaced the messages), every hook's `notes` sent
    in it as system messages after the leading system block."""
    rewritten = ["messages"] if replaced else []
    if model.updated_input:
        updates = {k: v for k, v in model.updated_input.items() if k in fields and v is not None}
        fields.update(updates)
        rewritten += [k for k in updates if k not in rewritten]
    selection = model.effects.tool_selection
    if selection is not None:
        fields["tools"] = selection.narrow(request.tools)
        rewritten += [] if "tools" in rewritten else ["tools"]
    notes = [*notes, *model.additional_context]
    if notes:
        fields["messages"] = insert_system_notes(fields["messages"], notes)
    elif _rewrote_messages(model):
        fields["messages"] = collapse_leading_system(fields["messages"])
    from hookwright.host.decisions import ModelRequest, ModelRequestDecision

    return ModelRequestDecision(
        ModelRequest(fields["model"], fields["messages"], fields["tools"], fields["options"]),
        notes=tuple(notes),
        rewritten=tuple(rewritten),
    )


def _continuation(profile: ClaudeCodeProfile, result: HookResult) -> str:
    """The user message a Stop block continues the agent with: its dialect's wording, else
    Claude Code's, as the chosen version words it."""
    worded = result.effects.continuation if result.effects is not None else None
    return worded or stop_feedback(profile, result)
