"""What `hooks validate` checks in Claude Code hooks beyond their shape: guards that load but
can never work.

* a command whose first word is a path (``./guard.sh``, ``"$CLAUDE_PROJECT_DIR"/x.sh`` with the
  placeholders expanded, relative to the project folder) that does not exist or cannot be
  executed: an error;
* a tool matcher that names a tool no host knows (Claude Code's tools and the reference
  agent's): an error when it resembles a known tool (``bash`` for ``Bash``), a warning
  otherwise (an embedding host may have its own tools); ``mcp__`` names and patterns are fine;
* an http hook URL that is malformed, or whose host is an address the SSRF guard refuses
  (private, link-local, ...): an error that says how to reach an internal hook server;
* an http hook URL that matches no ``allowedHttpHookUrls`` pattern when the settings set that
  list (read from every settings file, as once the folder is trusted): Claude Code blocks the
  hook, so it is an error naming the files that set the list and a pattern that would allow it.

Nothing runs and nothing is resolved: host names are not looked up.
"""

from __future__ import annotations

import ipaddress
import os
import re
import shlex
from pathlib import Path
from urllib.parse import urlsplit

from hookwright.config.loading import Diagnostic, LoadContext
from hookwright.core.events import MATCH_FIELD
from hookwright.core.validation import did_you_mean, quoted_value
from hookwright.dialects.claude_code.config import CommandHook, HttpHook
from hookwright.dialects.claude_code.http import HttpPolicy
from hookwright.dialects.claude_code.loader import declarations
from hookwright.dialects.claude_code.sources import read_settings, resolve_policy
from hookwright.dialects.claude_code.specs import Declaration
from hookwright.transports.http import blocked_reason

#: Claude Code's tool names (spec §6.1, with legacy names community matchers still use) and
#: the reference agent's.
KNOWN_TOOLS = frozenset(
    {
        *("Bash", "PowerShell", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit"),
        *("Glob", "Grep", "LS", "WebFetch", "WebSearch", "Agent", "Task", "TodoWrite"),
        *("AskUserQuestion", "ExitPlanMode", "Skill", "SlashCommand", "BashOutput"),
        *("KillShell", "ListMcpResourcesTool", "ReadMcpResourceTool"),
    }
)
_EXACT = re.compile(r"[A-Za-z0-9_ ,|-]+")
_SPLIT = re.compile(r"[|,]")
_PROJECT_DIR = re.compile(r"\$\{?CLAUDE_PROJECT_DIR\}?")
INTERNAL_SERVER_FIX = (
    "hook requests reach no private or special-purpose address; run the hook server on "
    "loopback (127.0.0.1 or ::1) or forward a loopback port to it (ssh -L, a local proxy)"
)


def check(ctx: LoadContext) -> list[Diagnostic]:
    """A diagnostic per dead guard among the Claude Code hooks `ctx` reaches."""
    problems: list[Diagnostic] = []
    http = resolve_policy(read_settings(ctx)[0])[0].http
    for declaration in declarations(ctx):
        config = declaration.parsed.config
        if isinstance(config, CommandHook):
            problems += _command(declaration, config)
        elif isinstance(config, HttpHook):
            problems += _url(declaration, config.url) or _allowed(declaration, config.url, http)
        problems += _matcher(declaration)
    return list(dict.fromkeys(problems))  # a group's matcher, once


def _problem(declaration: Declaration, field: str, message: str) -> Diagnostic:
    return Diagnostic(str(declaration.file), f"{declaration.parsed.path}.{field}", message)


def _first_path(declaration: Declaration, config: CommandHook) -> Path | None:
    """The program the command starts, when it is named by a path; None when it is a name
    looked up on PATH or cannot be known without running a shell."""
    site = declaration.site
    command = _PROJECT_DIR.sub(str(site.project_dir), site.substitute(config.command))
    if config.args is not None:
        first = command
    else:
        try:
            words = shlex.split(command)
        except ValueError:
            return None
        first = words[0] if words else ""
    first = os.path.expanduser(first)
    if "/" not in first or "$" in first or "`" in first:
        return None
    return site.project_dir / first


def _command(declaration: Declaration, config: CommandHook) -> list[Diagnostic]:
    path = _first_path(declaration, config)
    if path is None:
        return []
    value = quoted_value(config.command)
    if not path.exists():
        return [_problem(declaration, "command", f"{path} does not exist (command {value})")]
    if path.is_dir() or not os.access(path, os.X_OK):
        fix = f"chmod +x {shlex.quote(str(path))}"
        message = f"{path} is not executable (command {value}); fix: {fix}"
        return [_problem(declaration, "command", message)]
    return []


def _url(declaration: Declaration, url: str) -> list[Diagnostic]:
    value = quoted_value(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises ValueError for a port that is not a number)
    except ValueError as exc:
        return [_problem(declaration, "url", f"malformed URL {value}: {exc}")]
    if parts.scheme not in ("http", "https") or not parts.hostname:
        expected = "expected http(s)://host[:port]/path"
        return [_problem(declaration, "url", f"malformed URL {value}: {expected}")]
    try:
        address = ipaddress.ip_address(parts.hostname.split("%", 1)[0])
    except ValueError:
        return []
    reason = blocked_reason(address)
    if reason is None:
        return []
    message = f"URL {value} is refused: {reason}; {INTERNAL_SERVER_FIX}"
    return [_problem(declaration, "url", message)]


def _allowed(declaration: Declaration, url: str, http: HttpPolicy) -> list[Diagnostic]:
    refused = http.url_refusal(url)
    return [] if refused is None else [_problem(declaration, "url", refused)]


def _matcher(declaration: Declaration) -> list[Diagnostic]:
    parsed = declaration.parsed
    pattern = parsed.matcher
    if MATCH_FIELD.get(parsed.event) != "tool_name" or not pattern or pattern == "*":
        return []
    group = parsed.path.rpartition(".hooks[")[0]
    if _EXACT.fullmatch(pattern):
        names = [name.strip() for name in _SPLIT.split(pattern) if name.strip()]
        unknown = [n for n in names if n not in KNOWN_TOOLS and not n.startswith("mcp__")]
        return [_unknown_tool(declaration, group, pattern, name) for name in unknown]
    if "mcp" in pattern:
        return []
    try:
        regex = re.compile(pattern)
    except re.error:
        return []  # reported when the spec is built
    if any(regex.search(tool) for tool in KNOWN_TOOLS):
        return []
    message = f"matcher {quoted_value(pattern)} matches no tool Claude Code or hookwright knows"
    return [Diagnostic(str(declaration.file), f"{group}.matcher", message, "warning")]


def _unknown_tool(declaration: Declaration, group: str, pattern: str, name: str) -> Diagnostic:
    hint = did_you_mean(name, KNOWN_TOOLS)
    message = f"matcher {quoted_value(pattern)} names {name!r}, a tool no host knows{hint}"
    message += "; tool names are case-sensitive" if hint else " (a tool of your own host?)"
    where = f"{group}.matcher"
    if hint:
        return Diagnostic(str(declaration.file), where, message)
    return Diagnostic(str(declaration.file), where, message, "warning")
