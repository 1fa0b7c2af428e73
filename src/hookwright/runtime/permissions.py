"""Permission checks: Claude Code's modes and `permissions` rules (allow / ask / deny).

Rules use the permission-rule syntax of `IfRule` (`Bash(git push *)`, `Edit(src/**)`,
`mcp__srv__tool`). Deny rules win over ask rules, ask rules over allow rules; deny and ask rules
apply even when a hook allowed the call. A call that no rule decides falls to the mode:

| mode | read-only tools | Edit / Write | other tools |
|---|---|---|---|
| default | allow | ask | ask |
| acceptEdits | allow | allow | ask |
| plan | allow | deny | deny |
| dontAsk | allow | deny (what would ask is denied) | deny |
| bypassPermissions | allow | allow | allow |
"""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hookwright.config.private_files import FILE_MODE, write_private
from hookwright.config.safeparse import ParseError, read_json
from hookwright.core.matching import IfRule, IfRuleError
from hookwright.runtime.suggestions import blocked_write_message

log = logging.getLogger("hookwright.permissions")

PermissionMode = Literal["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"]
MODES: tuple[str, ...] = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")
Behavior = Literal["allow", "ask", "deny"]
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})

#: Settings files whose `permissions` block is read, with the destination name Claude Code uses
#: for `updatedPermissions` entries.
DESTINATIONS: dict[str, str] = {
    "userSettings": "~/.claude/settings.json",
    "projectSettings": ".claude/settings.json",
    "localSettings": ".claude/settings.local.json",
}


@dataclass(slots=True, frozen=True)
class PermissionOutcome:
    behavior: Behavior
    reason: str
    rule: str | None = None
    #: Where `rule` was written (a settings file, or ``updatedPermissions (session)``).
    file: str | None = None


@dataclass(slots=True)
class PermissionPolicy:
    mode: PermissionMode = "default"
    allow: list[IfRule] = field(default_factory=list)
    ask: list[IfRule] = field(default_factory=list)
    deny: list[IfRule] = field(default_factory=list)
    project_dir: Path | None = None
    home: Path | None = None
    problems: list[str] = field(default_factory=list)
    #: Where each rule was first written, by behavior and rule text.
    origins: dict[tuple[Behavior, str], str] = field(default_factory=dict)

    def add_rules(self, behavior: Behavior, rules: Iterable[str], origin: str = "") -> None:
        target = {"allow": self.allow, "ask": self.ask, "deny": self.deny}[behavior]
        for index, text in enumerate(rules):
            try:
                rule = IfRule.parse(text)
                target.append(rule)
                if origin:
                    self.origins.setdefault((behavior, rule.source), origin)
            except (IfRuleError, TypeError) as exc:
                where = f"{origin}: permissions.{behavior}[{index}]" if origin else behavior
                self.problems.append(f"{where}: {exc}")

    def remove_rules(self, behavior: Behavior, rules: Iterable[str]) -> None:
        drop = set(rules)
        target = {"allow": self.allow, "ask": self.ask, "deny": self.deny}[behavior]
        target[:] = [rule for rule in target if rule.source not in drop]

    def _first(
        self, rules: list[IfRule], tool: str, tool_input: Mapping[str, Any], cwd: str | None
    ) -> IfRule | None:
        for rule in rules:
            if rule.matches(
                tool,
                tool_input,
                cwd=cwd,
                project_dir=str(self.project_dir) if self.project_dir else None,
                home=str(self.home) if self.home else None,
            ):
                return rule
        return None

    def denies_tool(self, tool: str, server: str | None = None) -> bool:
        """A deny rule without a pattern names the tool, or (`mcp__<server>`) its MCP server:
        Claude Code then offers the tool to the model no more (measured for MCP tools)."""
        whole = [rule for rule in self.deny if rule.pattern is None]
        if server is not None and any(rule.tool == f"mcp__{server}" for rule in whole):
            return True
        return any(rule.matches(tool, {}) for rule in whole)

    def rule_decision(
        self, tool: str, tool_input: Mapping[str, Any], cwd: str | None
    ) -> PermissionOutcome | None:
        """What the deny, ask and allow rules say, in that precedence; None if none matches."""
        if rule := self._first(self.deny, tool, tool_input, cwd):
            return self._by_rule("deny", f"denied by rule {rule.source}", rule)
        if rule := self._first(self.ask, tool, tool_input, cwd):
            return self._by_rule("ask", f"rule {rule.source} asks", rule)
        if rule := self._first(self.allow, tool, tool_input, cwd):
            return self._by_rule("allow", f"allowed by rule {rule.source}", rule)
        return None

    def _by_rule(self, behavior: Behavior, reason: str, rule: IfRule) -> PermissionOutcome:
        origin = self.origins.get((behavior, rule.source))
        return PermissionOutcome(behavior, reason, rule.source, origin)

    def check(
        self,
        tool: str,
        tool_input: Mapping[str, Any],
        *,
        read_only: bool,
        cwd: str | None,
        hook_allowed: bool = False,
    ) -> PermissionOutcome:
        """The decision before any PermissionRequest hook or prompt runs.

        `hook_allowed`: a PreToolUse hook answered allow, which skips the prompt but not the deny
        and ask rules.
        """
        by_rule = self.rule_decision(tool, tool_input, cwd)
        if by_rule is not None and by_rule.behavior in ("deny", "ask"):
            if by_rule.behavior == "ask" and self.mode == "dontAsk":
                return PermissionOutcome(
                    "deny", f"{by_rule.reason} (mode dontAsk)", by_rule.rule, by_rule.file
                )
            return by_rule
        if hook_allowed:
            return PermissionOutcome("allow", "allowed by hook")
        if by_rule is not None:
            return by_rule
        return self._by_mode(tool, read_only)

    def _by_mode(self, tool: str, read_only: bool) -> PermissionOutcome:
        mode = self.mode
        if read_only or mode == "bypassPermissions":
            return PermissionOutcome("allow", f"mode {mode}")
        if mode == "acceptEdits" and tool in EDIT_TOOLS:
            return PermissionOutcome("allow", "mode acceptEdits")
        if mode == "plan":
            return PermissionOutcome("deny", f"{tool} is not allowed in plan mode")
        if mode == "dontAsk":
            return PermissionOutcome("deny", f"{tool} needs permission and mode is dontAsk")
        return PermissionOutcome("ask", f"{tool} needs permission")

    def apply_updates(self, updates: Iterable[Mapping[str, Any]]) -> list[str]:
        """Apply Claude Code `updatedPermissions` entries; returns a note per entry applied.

        `session` entries change this policy only; settings destinations are also written to
        their file. `bypassPermissions` is never persisted.
        """
        notes: list[str] = []
        for entry in updates:
            kind = entry.get("type")
            destination = str(entry.get("destination", "session"))
            if kind in ("addRules", "replaceRules", "removeRules"):
                behavior = entry.get("behavior", "allow")
                if behavior not in ("allow", "ask", "deny"):
                    notes.append(f"ignored {kind}: unknown behavior {behavior!r}")
                    continue
                rules = [_rule_text(rule) for rule in entry.get("rules", [])]
                if kind == "replaceRules":
                    {"allow": self.allow, "ask": self.ask, "deny": self.deny}[behavior].clear()
                if kind == "removeRules":
                    self.remove_rules(behavior, rules)
                else:
                    self.add_rules(behavior, rules, origin=f"updatedPermissions ({destination})")
                if destination != "session":
                    self._persist(destination, kind, behavior, rules)
                notes.append(f"{kind} {behavior} {rules} -> {destination}")
            elif kind == "setMode":
                mode = entry.get("mode")
                if mode == "auto" or mode == "manual":
                    mode = "default"
                if mode in MODES:
                    self.mode = mode
                    notes.append(f"mode -> {mode}")
                else:
                    notes.append(f"ignored setMode: unknown mode {mode!r}")
            else:
                notes.append(f"ignored permission update of type {kind!r}")
        return notes

    def _settings_path(self, destination: str) -> Path | None:
        if destination == "userSettings" and self.home is not None:
            return self.home / ".claude" / "settings.json"
        if destination == "projectSettings" and self.project_dir is not None:
            return self.project_dir / ".claude" / "settings.json"
        if destination == "localSettings" and self.project_dir is not None:
            return self.project_dir / ".claude" / "settings.local.json"
        return None

    def _persist(self, destination: str, kind: str, behavior: str, rules: list[str]) -> None:
        path = self._settings_path(destination)
        if path is None:
            log.warning("cannot persist permissions to unknown destination %s", destination)
            return
        try:
            data = read_json(path) if path.exists() else {}
        except ParseError as exc:
            log.warning("not updating %s: %s", path, exc.reason)
            return
        if not isinstance(data, dict) or not isinstance(data.get("permissions", {}), dict):
            log.warning("not updating %s: expected an object with a `permissions` object", path)
            return
        permissions = data.setdefault("permissions", {})
        current: list[str] = list(permissions.get(behavior, []))
        if kind == "replaceRules":
            current = []
        if kind == "removeRules":
            current = [rule for rule in current if rule not in rules]
        else:
            current += [rule for rule in rules if rule not in current]
        permissions[behavior] = current
        text = json.dumps(data, indent=2) + "\n"
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = FILE_MODE
        try:
            write_private(path, text.encode("utf-8"), mode)
        except OSError as exc:
            log.warning("cannot update %s: %s", path, exc)


def unanswered_message(
    tool: str,
    tool_input: Mapping[str, Any],
    outcome: PermissionOutcome,
    *,
    cwd: Path,
    hook_asked: bool = False,
    hook_reason: str | None = None,
    write_needs_approval: bool = False,
) -> str:
    """The tool result Claude Code 2.1.240 gives the model when a call needs permission and
    nobody can answer (``-p``; measured): a PreToolUse hook's ask reason, else who asked."""
    if hook_asked:
        return hook_reason or f"Hook PreToolUse:{tool} asked for confirmation for this tool"
    file_path = tool_input.get("file_path")
    if outcome.rule is None and tool in EDIT_TOOLS and isinstance(file_path, str):
        where = os.path.normpath(cwd / file_path)
        return f"Claude requested permissions to write to {where}, but you haven't granted it yet."
    if outcome.rule is None and tool == "Bash":
        command = tool_input.get("command")
        blocked = (
            blocked_write_message(command, cwd, needs_approval=write_needs_approval)
            if isinstance(command, str)
            else None
        )
        return blocked or "This command requires approval"
    return f"Claude requested permissions to use {tool}, but you haven't granted it yet."


def _rule_text(rule: Any) -> str:
    if isinstance(rule, str):
        return rule
    if isinstance(rule, Mapping):
        name = str(rule.get("toolName", ""))
        content = rule.get("ruleContent")
        return f"{name}({content})" if content else name
    return str(rule)


def load_policy(
    project_dir: Path, home: Path, mode: PermissionMode = "default", *, project_trusted: bool
) -> PermissionPolicy:
    """Read `permissions` from the user, project and local Claude Code settings files; like
    Claude Code, the project's own files count only once the folder is trusted."""
    policy = PermissionPolicy(mode=mode, project_dir=project_dir, home=home)
    for destination in ("userSettings", "projectSettings", "localSettings"):
        path = policy._settings_path(destination)
        if path is None or not path.is_file():
            continue
        try:
            data = read_json(path)
        except ParseError as exc:
            policy.problems.append(f"{path}: cannot read permissions: {exc.reason}")
            continue
        block = data.get("permissions") if isinstance(data, dict) else None
        if not isinstance(block, dict):
            continue
        if destination != "userSettings" and not project_trusted:
            policy.problems.append(
                f"warning: {path}: permissions: not used, this folder is not trusted"
            )
            continue
        for behavior in ("allow", "ask", "deny"):
            rules = block.get(behavior, [])
            if isinstance(rules, list):
                policy.add_rules(behavior, rules, origin=str(path))
            else:
                policy.problems.append(f"{path}: permissions.{behavior}: expected a list")
    return policy
