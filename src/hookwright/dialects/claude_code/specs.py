"""One parsed handler -> one `HookSpec`: name, matcher, `if` rule, timeout, dedup key, handler.

Dedup key (spec §3): ``(root, type, ...)`` where root is ``""`` for every settings file and
the plugin (or skill) directory otherwise; command hooks add shell, command, args and `if`;
http hooks URL and `if`; mcp_tool hooks server, tool, input and `if`; prompt and agent hooks
prompt and `if`. So one command in user and project settings runs once.

Claude Code keeps a plugin's root in the key, so the same command in settings and in a plugin
runs twice (its bug #76297). hookwright drops the plugin root from the key, and so runs such a
command once, unless ``hookwrightDedupAcrossSources`` is false (settings) or the loader option
``dedup_across_sources=False`` is given. A command that uses ``CLAUDE_PLUGIN_ROOT`` or
``CLAUDE_PLUGIN_DATA`` keeps its root either way: the same text means a different script in
each plugin.
"""

from __future__ import annotations

import json
import os
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path

from hookwright.config.loading import Diagnostic
from hookwright.core.events import TOOL_EVENTS, Event, HookInput
from hookwright.core.matching import IfRule, IfRuleError, Matcher, MatcherStyle
from hookwright.core.spec import HookSpec, OnError, Runner
from hookwright.dialects.claude_code.codec import ExitRules
from hookwright.dialects.claude_code.command import command_handler
from hookwright.dialects.claude_code.config import (
    CommandHook,
    HandlerConfig,
    HttpHook,
    McpToolHook,
    ParsedHandler,
)
from hookwright.dialects.claude_code.environment import HookSite, references_plugin_vars
from hookwright.dialects.claude_code.http import http_handler
from hookwright.dialects.claude_code.mcp_tool import hook_label, mcp_tool_handler
from hookwright.dialects.claude_code.on_failure import FAILURE_BLOCKS, blocks_on_failure
from hookwright.dialects.claude_code.prompt import prompt_handler
from hookwright.dialects.claude_code.sources import Policy
from hookwright.dialects.claude_code.tables import (
    ENV_FILE_EVENTS,
    MATCHER_EVENTS,
    NARROW_MATCHER_EVENTS,
    SESSION_END_BUDGET,
    SESSION_END_MAX,
    default_timeout,
)
from hookwright.dialects.claude_profiles import NEWEST, ClaudeCodeProfile, first_with
from hookwright.dialects.extension_key import shadow_mode
from hookwright.dialects.state_io import reads_state

SESSION_END_ENV = "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"
_NAME_LIMIT = 80


class BasenameMatcher(Matcher):
    """FileChanged matchers are tested against the basename of `file_path` (spec §2.2)."""

    __slots__ = ()

    def matches(self, value: str | None) -> bool:
        return Matcher.matches(self, os.path.basename(value) if value else value)


@dataclass(frozen=True, slots=True)
class Declaration:
    """A parsed handler and the place that declared it."""

    parsed: ParsedHandler
    file: Path
    source: str
    site: HookSite
    #: Dedup root: "" for settings files, the plugin or skill directory otherwise.
    root: str
    from_settings: bool
    scope: str | None = None
    honour_once: bool = False
    #: The event the hook fires on when it differs from the declared one (agent Stop).
    event: Event | None = None


@dataclass(frozen=True, slots=True)
class BuildOptions:
    rules: ExitRules
    policy: Policy
    dedup_across_sources: bool
    session_end_budget: float = SESSION_END_BUDGET
    #: The Claude Code version imitated: which events exist, whether `onFailure` counts.
    profile: ClaudeCodeProfile = NEWEST


def session_end_budget(timeouts: Iterable[float]) -> float:
    """The shared SessionEnd budget (spec §1.4): 1.5 s, raised to the largest SessionEnd hook
    timeout set in settings (at most 60 s); the env variable (milliseconds) overrides."""
    override = os.environ.get(SESSION_END_ENV)
    if override:
        try:
            return max(0.001, float(override) / 1000.0)
        except ValueError:
            pass
    return max([SESSION_END_BUDGET, *(min(t, SESSION_END_MAX) for t in timeouts)])


def label(config: HandlerConfig) -> str:
    if isinstance(config, CommandHook):
        return " ".join([config.command, *(config.args or [])])
    if isinstance(config, HttpHook):
        return config.url
    if isinstance(config, McpToolHook):
        return hook_label(config)
    return config.prompt


def dedup_key(config: HandlerConfig, root: str, across_sources: bool) -> Hashable:
    if isinstance(config, CommandHook):
        text = label(config)
        if across_sources and not references_plugin_vars(text):
            root = ""
        args = tuple(config.args) if config.args is not None else None
        return (root, "command", config.shell or "bash", config.command, args, config.if_)
    if isinstance(config, HttpHook):
        return (root, "http", config.url, config.if_)
    if isinstance(config, McpToolHook):
        arguments = json.dumps(config.input, sort_keys=True, separators=(",", ":"))
        return (root, "mcp_tool", config.server, config.tool, arguments, config.if_)
    return (root, config.type, config.prompt, config.if_)


def _matcher(decl: Declaration, event: Event, diagnostics: list[Diagnostic]) -> Matcher | None:
    pattern = decl.parsed.matcher
    if pattern is None or event not in MATCHER_EVENTS:
        return None
    style: MatcherStyle = "claude_narrow" if event in NARROW_MATCHER_EVENTS else "claude"
    matcher = (
        BasenameMatcher(pattern, style) if event is Event.FileChanged else Matcher(pattern, style)
    )
    if matcher.error is not None:
        diagnostics.append(
            Diagnostic(
                str(decl.file),
                decl.parsed.path.rsplit(".hooks[", 1)[0] + ".matcher",
                f"invalid matcher regex {pattern!r}: {matcher.error}; the group never matches",
                "warning",
            )
        )
    return matcher


def _handler(decl: Declaration, event: Event, timeout: float, options: BuildOptions) -> Runner:
    config = decl.parsed.config
    blocks = options.profile.on_failure and blocks_on_failure(config, event)
    if isinstance(config, CommandHook):
        return command_handler(
            config,
            site=decl.site,
            rules=options.rules,
            timeout=timeout,
            env_file=event in ENV_FILE_EVENTS,
            blocks=blocks,
        )
    if isinstance(config, HttpHook):
        return http_handler(
            config, policy=options.policy.http, home=decl.site.home, timeout=timeout, blocks=blocks
        )
    if isinstance(config, McpToolHook):
        return mcp_tool_handler(config, home=decl.site.home, timeout=timeout, blocks=blocks)
    return prompt_handler(config, timeout=timeout)


def build_spec(
    decl: Declaration, options: BuildOptions, diagnostics: list[Diagnostic]
) -> HookSpec | None:
    """The spec for one declaration, or None (with a diagnostic) when it cannot run."""
    parsed = decl.parsed
    config = parsed.config
    file = str(decl.file)
    event = decl.event or parsed.event
    text = label(config)
    if event not in options.profile.hook_events:
        diagnostics.append(_unknown_to_profile(file, parsed.path, event, options.profile))
        return None
    if decl.from_settings and isinstance(config, CommandHook) and references_plugin_vars(text):
        diagnostics.append(
            Diagnostic(
                file,
                f"{parsed.path}.command",
                f"hook {text!r} references CLAUDE_PLUGIN_ROOT/CLAUDE_PLUGIN_DATA, which only "
                "plugin hooks have; skipped",
            )
        )
        return None
    if_rule, runs = _if_rule(config, event, f"{parsed.path}.if", file, diagnostics)
    if not runs:
        return None
    refused = options.policy.http.url_refusal(config.url) if isinstance(config, HttpHook) else None
    if refused is not None:
        diagnostics.append(Diagnostic(file, f"{parsed.path}.url", refused))
    shadow = _shadow(config, file, parsed.path, diagnostics)
    own_timeout = config.timeout or default_timeout(config.type, event)
    timeout = own_timeout
    if event is Event.SessionEnd:
        timeout = min(own_timeout, options.session_end_budget)
    short = text if len(text) <= _NAME_LIMIT else text[: _NAME_LIMIT - 1] + "…"
    return HookSpec(
        name=f"{config.type}:{short}",
        event=event,
        handler=_handler(decl, event, own_timeout, options),
        matcher=_matcher(decl, event, diagnostics),
        if_rule=if_rule,
        source=decl.source,
        dialect="claude_code",
        mode="parallel",
        timeout=timeout,
        on_error=_on_error(config, event, options.profile),
        once=decl.honour_once and config.once,
        scope=decl.scope,
        dedup_key=dedup_key(config, decl.root, options.dedup_across_sources),
        when=_prompting if event is Event.PermissionRequest else None,
        origin=f"{file}:{parsed.path}",
        status_message=config.statusMessage,
        reads_state=reads_state(config.model_extra),
        shadow=shadow,
    )


def _if_rule(
    config: HandlerConfig, event: Event, where: str, file: str, diagnostics: list[Diagnostic]
) -> tuple[IfRule | None, bool]:
    """The entry's `if` rule (None without one) and whether the hook can run: not when the
    rule does not parse (an error); on an event other than a tool event it never matches (a
    warning)."""
    if config.if_ is None:
        return None, True
    try:
        if_rule = IfRule.parse(config.if_)
    except IfRuleError as exc:
        diagnostics.append(Diagnostic(file, where, f"{exc}; hook skipped"))
        return None, False
    if event not in TOOL_EVENTS:
        diagnostics.append(
            Diagnostic(
                file,
                where,
                f"'if' is only evaluated on tool events; this {event.value} hook never runs",
                "warning",
            )
        )
    return if_rule, True


def _shadow(config: HandlerConfig, file: str, path: str, diagnostics: list[Diagnostic]) -> bool:
    """The entry's ``"hookwright": {"mode": "shadow"}``; another mode is a warning."""
    shadow, problem = shadow_mode(config.model_extra)
    if problem is not None:
        diagnostics.append(Diagnostic(file, f"{path}.hookwright.mode", problem, "warning"))
    return shadow


def _on_error(config: HandlerConfig, event: Event, profile: ClaudeCodeProfile) -> OnError:
    """The engine's own rule for a hook that blocks on failure, behind its codec's: what the
    codec never saw (its envelope could not be built) still blocks. Not on ConfigChange, which
    the codec lets through when the change is to policy settings."""
    guards = event in FAILURE_BLOCKS and event is not Event.ConfigChange and profile.on_failure
    return "block" if guards and blocks_on_failure(config, event) else "continue"


def _unknown_to_profile(
    file: str, path: str, event: Event, profile: ClaudeCodeProfile
) -> Diagnostic:
    since = first_with(event)
    newer = f" (Claude Code {since.shown} has it)" if since is not None else ""
    return Diagnostic(
        file,
        path,
        f"{event.value} is not an event of Claude Code {profile.shown}, the version this "
        f"session imitates{newer}; the hook never runs",
        "warning",
    )


def _prompting(inp: HookInput) -> bool:
    """Claude Code fires PermissionRequest only when a permission prompt would show; hosts that
    also dispatch it for calls already allowed (PicoClaw approvals) say so with
    `permission_prompt: false`."""
    return inp.payload.get("permission_prompt", True) is not False


def watched_file_names(specs: Iterable[HookSpec]) -> set[str]:
    """The file names FileChanged hooks watch: the literal names of their matchers."""
    names: set[str] = set()
    for spec in specs:
        if spec.event is Event.FileChanged and spec.matcher is not None and spec.matcher.pattern:
            names.update(part.strip() for part in spec.matcher.pattern.split("|") if part.strip())
    return names
