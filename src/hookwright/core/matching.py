"""Matcher strings and ``if`` permission rules.

Two independent pieces live here:

* :func:`compile_matcher` turns a hook group's ``matcher`` string into a :class:`Matcher`
  (Claude Code exact-list/regex rules, the narrow FileChanged/StopFailure variant, or
  OpenHarness plain regexes).
* :class:`IfRule` parses one Claude Code permission-rule string such as ``Bash(git push *)``
  or ``Edit(src/**)`` and decides whether a tool call matches it. The same parser serves
  ``permissions.allow/deny/ask`` rules.

This module deliberately imports nothing else from ``hookwright``.
"""

from __future__ import annotations

import os
import posixpath
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from hookwright.core.home import home_text
from hookwright.core.logs import LazyLogger

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, Literal, TypeAlias

    from pathspec import GitIgnoreSpec

    from hookwright.core.actions import Action
    from hookwright.core.bash_commands import split_bash_commands
    from hookwright.core.bash_syntax import parse_bash, unquote_word

__all__ = [
    "TOOL_ALIASES",
    "IfRule",
    "IfRuleError",
    "Matcher",
    "MatcherError",
    "MatcherStyle",
    "canonical_tool_name",
    "compile_matcher",
    "parse_bash",
    "split_bash_commands",
    "unquote_word",
]

logger = LazyLogger("hookwright.core.matching")


def __getattr__(name: str) -> Any:
    """`parse_bash` and `unquote_word`, loaded (with the Bash parser's module) when first
    asked for: a rule on tool names alone never needs them."""
    if name in ("parse_bash", "unquote_word"):
        from hookwright.core import bash_syntax

        return getattr(bash_syntax, name)
    if name == "split_bash_commands":
        from hookwright.core.bash_commands import split_bash_commands

        return split_bash_commands
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


MatcherStyle: TypeAlias = "Literal['claude', 'claude_narrow', 'regex']"

TOOL_ALIASES: Final[dict[str, str]] = {"Task": "Agent"}
"""Legacy tool name -> current tool name. Both sides of every comparison are normalised."""


def _build_alias_forms(aliases: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    groups: dict[str, list[str]] = {}
    for legacy, current in aliases.items():
        groups.setdefault(current, [current]).append(legacy)
    forms: dict[str, tuple[str, ...]] = {}
    for names in groups.values():
        group = tuple(names)
        for name in group:
            forms[name] = group
    return forms


_ALIAS_FORMS: Final[dict[str, tuple[str, ...]]] = _build_alias_forms(TOOL_ALIASES)
"""Every spelling of an aliased tool name -> all its spellings (for the regex path)."""


def canonical_tool_name(name: str) -> str:
    """Return the current name of a tool, mapping legacy names such as ``Task`` to ``Agent``."""
    return TOOL_ALIASES.get(name, name)


# --------------------------------------------------------------------------------------------
# Matchers
# --------------------------------------------------------------------------------------------


class MatcherError(ValueError):
    """An invalid matcher regex, raised only by ``compile_matcher(..., strict=True)``."""

    def __init__(self, pattern: str, error: str) -> None:
        super().__init__(f"invalid matcher regex {pattern!r}: {error}")
        self.pattern = pattern
        self.error = error


_MATCHER_STYLES: Final = frozenset({"claude", "claude_narrow", "regex"})
#: The patterns of this module are compiled where first used (`re`'s own cache keeps them),
#: not at import: a hook without a matcher or an `if` rule never needs one.
_EXACT_CHARS: Final[dict[str, str]] = {
    "claude": r"[A-Za-z0-9_ ,|-]+",
    "claude_narrow": r"[A-Za-z0-9_|]+",
}
_EXACT_SPLIT: Final[dict[str, str]] = {
    "claude": r"[|,]",
    "claude_narrow": r"\|",
}

_warned_patterns: set[str] = set()
_warned_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Matcher:
    """A compiled hook-group matcher; build it with :func:`compile_matcher`.

    ``error`` is derived from ``pattern``: it holds the regex error message when the pattern
    took the regex path and failed to compile, in which case the matcher matches nothing
    (except empty values, see :meth:`matches`).
    """

    pattern: str | None
    style: MatcherStyle = "claude"
    error: str | None = field(default=None, init=False)
    _match_all: bool = field(default=False, init=False, repr=False, compare=False)
    _names: frozenset[str] | None = field(default=None, init=False, repr=False, compare=False)
    _regex: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)
    _aliased: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.style not in _MATCHER_STYLES:
            raise ValueError(f"unknown matcher style {self.style!r}")
        pattern = self.pattern
        aliased = self.style != "regex"
        object.__setattr__(self, "_aliased", aliased)
        if not pattern or (aliased and pattern == "*"):
            object.__setattr__(self, "_match_all", True)
            return
        if aliased and re.fullmatch(_EXACT_CHARS[self.style], pattern):
            items = (item.strip() for item in re.split(_EXACT_SPLIT[self.style], pattern))
            names = frozenset(canonical_tool_name(item) for item in items if item)
            object.__setattr__(self, "_names", names)
            return
        try:
            object.__setattr__(self, "_regex", re.compile(pattern))
        except re.error as exc:
            object.__setattr__(self, "error", str(exc))

    @property
    def matches_all(self) -> bool:
        """True for an absent, empty or (Claude styles) ``"*"`` matcher."""
        return self._match_all

    def matches(self, value: str | None) -> bool:
        """Test one event value (tool name, session source, ...).

        A missing or empty value matches every matcher, even an invalid one: Claude Code runs
        all groups when the event carries nothing to match against.
        """
        if not value or self._match_all:
            return True
        names = self._names
        if names is not None:
            return TOOL_ALIASES.get(value, value) in names
        regex = self._regex
        if regex is None:
            return False
        if self._aliased:
            forms = _ALIAS_FORMS.get(value)
            if forms is not None:
                return any(regex.search(form) is not None for form in forms)
        return regex.search(value) is not None


def compile_matcher(
    pattern: str | None, style: MatcherStyle = "claude", *, strict: bool = False
) -> Matcher:
    """Compile a matcher string once, for fast repeated :meth:`Matcher.matches` calls.

    An invalid regex yields a matcher that matches nothing and logs a warning once per
    distinct pattern; with ``strict=True`` it raises :class:`MatcherError` instead (in any
    style).
    """
    matcher = Matcher(pattern, style)
    if matcher.error is not None:
        assert pattern is not None
        if strict:
            raise MatcherError(pattern, matcher.error)
        with _warned_lock:
            first = pattern not in _warned_patterns
            _warned_patterns.add(pattern)
        if first:
            logger.warning(
                "invalid matcher regex %r (%s); the hook group will never match",
                pattern,
                matcher.error,
            )
    return matcher


# --------------------------------------------------------------------------------------------
# Bash command splitting
# --------------------------------------------------------------------------------------------


def normalise_ws(text: str) -> str:
    """`text` with each run of whitespace one space, none at either end (what ``\\s+``
    replaced by a space and stripped gives, without a regular expression)."""
    return " ".join(text.split())


def _glob_regex(pattern: str) -> str:
    return ".*".join(re.escape(part) for part in pattern.split("*"))


def _compile_glob(pattern: str) -> re.Pattern[str]:
    return re.compile(_glob_regex(pattern), re.DOTALL)


def _compile_bash_pattern(pattern: str) -> re.Pattern[str]:
    """Compile a Bash rule pattern for ``fullmatch`` against a whitespace-normalised command.

    ``prefix *`` (and the legacy ``prefix:*``) accept the prefix alone or followed by a space
    and arguments, so ``ls *`` matches ``ls`` and ``ls -la`` but not ``lsof``.
    """
    text = normalise_ws(pattern)
    if text.endswith(":*"):
        text = text[:-2].rstrip() + " *"
    if text.endswith(" *"):
        prefix = text[:-2]
        if not prefix:
            return re.compile(".*", re.DOTALL)
        return re.compile(_glob_regex(prefix) + "(?: .*)?", re.DOTALL)
    return _compile_glob(text)


# --------------------------------------------------------------------------------------------
# `if` rules
# --------------------------------------------------------------------------------------------


class IfRuleError(ValueError):
    """A malformed permission-rule string."""


_TOOL_NAME: Final = r"[A-Za-z0-9_.:*-]+"
_SHELL_TOOLS: Final = frozenset({"Bash", "PowerShell"})
_FILE_TOOL_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "Read": ("file_path",),
    "Edit": ("file_path",),
    "Write": ("file_path",),
    "MultiEdit": ("file_path",),
    "NotebookEdit": ("notebook_path", "file_path"),
    "Glob": ("path",),
    "Grep": ("path",),
}
_DIRECTORY_TOOLS: Final = frozenset({"Glob", "Grep"})
#: Rule names that match a call's canonical actions (`hookwright.core.actions`), not a tool.
ACTION_RULES: Final[dict[str, str]] = {
    "FileRead": "file.read",
    "FileWrite": "file.write",
    "FileDelete": "file.delete",
    "NetFetch": "net.fetch",
    "ProcExec": "proc.exec",
}

if TYPE_CHECKING:
    _Kind: TypeAlias = Literal[
        "any", "shell", "file", "domain", "url", "query", "agent", "generic", "action", "host"
    ]
    _Anchor: TypeAlias = Literal["root", "home", "project", "cwd", "anywhere"]


def _split_rule(rule: str) -> tuple[str, str | None]:
    text = rule.strip()
    if not text:
        raise IfRuleError("empty permission rule")
    open_at = text.find("(")
    if open_at == -1:
        if ")" in text:
            raise IfRuleError(f"unbalanced ')' in permission rule {rule!r}")
        return text, None
    tool = text[:open_at]
    if not tool:
        raise IfRuleError(f"permission rule {rule!r} has no tool name before '('")
    if not text.endswith(")"):
        raise IfRuleError(f"permission rule {rule!r} is missing its closing ')'")
    body = text[open_at + 1 : -1]
    depth = 0
    escaped = False
    for char in body:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise IfRuleError(f"unbalanced ')' in permission rule {rule!r}")
    if depth:
        raise IfRuleError(f"unbalanced '(' in permission rule {rule!r}")
    return tool, body.replace("\\(", "(").replace("\\)", ")").strip()


def _path_spec(line: str) -> GitIgnoreSpec:
    """One gitignore-style path pattern, compiled when a rule is built (pathspec loads with
    the first rule that names a path, not with every matcher)."""
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines([line])


def _file_anchor(pattern: str) -> tuple[_Anchor, str]:
    """Split a file rule into its anchor and a gitignore line relative to that anchor."""
    anchor: _Anchor
    if pattern.startswith("//"):
        anchor, rest = "root", pattern[2:]
    elif pattern.startswith("~/"):
        anchor, rest = "home", pattern[2:]
    elif pattern.startswith("/"):
        anchor, rest = "project", pattern[1:]
    elif pattern.startswith("./"):
        anchor, rest = "cwd", pattern[2:]
    elif "/" in pattern:
        anchor, rest = "cwd", pattern
    else:
        if pattern[:1] in ("!", "#"):
            pattern = "\\" + pattern
        return "anywhere", pattern
    return anchor, "/" + (rest.lstrip("/") or "**")


def _resolve_path(value: str, cwd: str, home: str) -> str:
    if value == "~" or value.startswith("~/"):
        value = home + value[1:]
    path = posixpath.normpath(posixpath.join(cwd, value))
    return "/" + path.lstrip("/")


def _relative_to(path: str, base: str) -> str | None:
    base = "/" + posixpath.normpath(base).lstrip("/")
    if base == "/":
        return path[1:]
    if path.startswith(base + "/"):
        return path[len(base) + 1 :]
    return None


@dataclass(frozen=True, slots=True)
class IfRule:
    """One Claude Code permission rule (``Tool`` or ``Tool(pattern)``), compiled once.

    ``tool`` is the canonical tool name (``Task`` becomes ``Agent``); a ``*`` in it is a glob
    over tool names (``mcp__srv__*``). ``pattern`` is ``None`` for ``Tool``, ``Tool()`` and
    ``Tool(*)``, which match every call of the tool. How a pattern is read depends on the
    tool:

    * ``Bash``/``PowerShell``: command pattern checked against every simple command (both go
      through the Bash grammar); unparseable commands, and expansions under a pattern that
      names more than the command, match (fail-open, so the hook runs).
    * ``Read``/``Edit``/``Write``/``MultiEdit``/``NotebookEdit``/``Glob``/``Grep``: gitignore
      pattern anchored like Claude Code permission rules (``//`` root, ``~/`` home, ``/``
      project dir, otherwise cwd; slash-free patterns match at any depth anywhere). Glob and
      Grep paths are directories.
    * ``WebFetch``: ``domain:host`` (host or a subdomain), otherwise a glob on the URL.
    * ``WebSearch``: glob on ``query``. ``Agent``: exact ``subagent_type``.
    * anything else: glob on any top-level string value of the input.
    """

    source: str
    tool: str
    pattern: str | None
    _tool_glob: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)
    _kind: _Kind = field(default="any", init=False, repr=False, compare=False)
    _regex: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)
    _spec: GitIgnoreSpec | None = field(default=None, init=False, repr=False, compare=False)
    _anchor: _Anchor = field(default="cwd", init=False, repr=False, compare=False)
    _detailed: bool = field(default=False, init=False, repr=False, compare=False)
    _action_field: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if "*" in self.tool:
            object.__setattr__(self, "_tool_glob", _compile_glob(self.tool))
        pattern = self.pattern
        if self.tool in ACTION_RULES:
            self._compile_action(pattern)
            return
        if pattern is None:
            return
        kind: _Kind = "generic"
        tool = None if self._tool_glob is not None else canonical_tool_name(self.tool)
        if tool in _SHELL_TOOLS:
            kind = "shell"
            object.__setattr__(self, "_regex", _compile_bash_pattern(pattern))
            object.__setattr__(self, "_detailed", " " in pattern.strip() or ":" in pattern)
        elif tool in _FILE_TOOL_FIELDS:
            kind = "file"
            anchor, line = _file_anchor(pattern)
            object.__setattr__(self, "_anchor", anchor)
            object.__setattr__(self, "_spec", _path_spec(line))
        elif tool == "WebFetch" and pattern.startswith("domain:"):
            kind = "domain"
        elif tool == "WebFetch":
            kind = "url"
            object.__setattr__(self, "_regex", _compile_glob(pattern))
        elif tool == "WebSearch":
            kind = "query"
            object.__setattr__(self, "_regex", _compile_glob(pattern))
        elif tool == "Agent":
            kind = "agent"
        else:
            object.__setattr__(self, "_regex", _compile_glob(pattern))
        object.__setattr__(self, "_kind", kind)

    def _compile_action(self, pattern: str | None) -> None:
        """An action rule: file rules are gitignore patterns anchored at the root for ``/``
        and ``//``, at home for ``~/``, at the call's cwd otherwise; ``NetFetch`` takes
        ``domain:host``, a URL glob (with ``://``) or a host glob; ``ProcExec`` a command
        pattern like ``Bash``'s, on the argv joined by spaces."""
        object.__setattr__(self, "_kind", "action")
        if pattern is None:
            return
        if self.tool.startswith("File"):
            anchor, line = _file_anchor(pattern)
            object.__setattr__(self, "_anchor", "root" if anchor == "project" else anchor)
            object.__setattr__(self, "_spec", _path_spec(line))
        elif self.tool == "NetFetch" and pattern.startswith("domain:"):
            object.__setattr__(self, "_action_field", "domain")
        elif self.tool == "NetFetch":
            field_name = "url" if "://" in pattern else "host"
            object.__setattr__(self, "_action_field", field_name)
            object.__setattr__(self, "_regex", _compile_glob(pattern))
        else:
            object.__setattr__(self, "_regex", _compile_bash_pattern(pattern))

    @property
    def reads_actions(self) -> bool:
        """Whether the rule matches a call's canonical actions (``FileWrite(...)``, ...)."""
        return self._kind == "action"

    @classmethod
    def parse(cls, rule: str) -> IfRule:
        """Parse ``Tool`` / ``Tool(pattern)``; ``\\(`` and ``\\)`` are literal parentheses.

        Raises :class:`IfRuleError` for an empty rule, a missing tool name, an invalid tool
        name or unbalanced parentheses.
        """
        tool, pattern = _split_rule(rule)
        if not re.fullmatch(_TOOL_NAME, tool):
            raise IfRuleError(f"invalid tool name {tool!r} in permission rule {rule!r}")
        if pattern in ("", "*"):
            pattern = None
        if "*" not in tool:
            tool = canonical_tool_name(tool)
        return cls(source=rule, tool=tool, pattern=pattern)

    def names_exactly(self, tool_name: str) -> bool:
        """Whether the rule is `tool_name` itself, with no glob and no content pattern."""
        return self._tool_glob is None and self.pattern is None and self.tool == tool_name

    def _applies_to(self, tool_name: str) -> bool:
        """Whether the rule names this tool (ignoring the pattern)."""
        glob = self._tool_glob
        if glob is None:
            return canonical_tool_name(tool_name) == canonical_tool_name(self.tool)
        forms = _ALIAS_FORMS.get(tool_name, (tool_name,))
        return any(glob.fullmatch(form) is not None for form in forms)

    def matches(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        *,
        cwd: str | None = None,
        project_dir: str | None = None,
        home: str | None = None,
        actions: tuple[Action, ...] | None = None,
    ) -> bool:
        """Whether a tool call matches the rule.

        ``cwd`` defaults to the process cwd, ``project_dir`` to ``cwd`` and ``home`` to the
        user's home directory; they only matter for file-tool and action rules. An action rule
        reads `actions` (the call's, derived here when not given).
        """
        kind = self._kind
        if kind == "action":
            if actions is None:
                from hookwright.core.tool_actions import derive_actions  # with its parsers

                actions = derive_actions(tool_name, tool_input, cwd, home)
            return self._match_actions(actions, cwd, home)
        if not self._applies_to(tool_name):
            return False
        if kind == "any":
            return True
        if kind == "shell":
            return self._match_shell(tool_input.get("command"))
        if kind == "file":
            return self._match_file(tool_name, tool_input, cwd, project_dir, home)
        if kind == "domain":
            return self._match_domain(tool_input.get("url"))
        if kind == "agent":
            return tool_input.get("subagent_type") == self.pattern
        regex = self._regex
        assert regex is not None
        if kind == "url":
            values: list[Any] = [tool_input.get("url")]
        elif kind == "query":
            values = [tool_input.get("query")]
        else:
            values = list(tool_input.values())
        return any(isinstance(v, str) and regex.fullmatch(v) is not None for v in values)

    def _match_actions(
        self, actions: tuple[Action, ...], cwd: str | None, home: str | None
    ) -> bool:
        """Any action of the rule's kind matches its pattern. An opaque ``ProcExec`` (a command
        that could not be understood) matches every action rule, and a dynamic path every
        file rule of its kind: what they do is not known, so the hook runs and decides."""
        from hookwright.core.actions import ProcExec  # loaded with the actions given

        wanted = ACTION_RULES[self.tool]
        for action in actions:
            if isinstance(action, ProcExec) and action.opaque:
                return True
            if action.kind != wanted:
                continue
            if self.pattern is None or self._action_matches(action, cwd, home):
                return True
        return False

    def _action_matches(self, action: Action, cwd: str | None, home: str | None) -> bool:
        from hookwright.core.actions import FileDelete, FileRead, FileWrite, NetFetch, ProcExec

        regex = self._regex
        if isinstance(action, ProcExec):
            assert regex is not None
            return regex.fullmatch(normalise_ws(" ".join(action.argv))) is not None
        if isinstance(action, NetFetch):
            if self._action_field == "domain":
                return self._match_domain(action.url)
            assert regex is not None
            value = action.url if self._action_field == "url" else action.host
            return regex.fullmatch(value) is not None
        if not isinstance(action, FileRead | FileWrite | FileDelete):
            return False
        if action.dynamic:
            return True
        anchor = self._anchor
        if anchor == "home":
            base = os.path.abspath(home or home_text())
            relative = _relative_to(action.path, base)
        elif anchor == "cwd":
            relative = _relative_to(action.path, os.path.abspath(cwd) if cwd else os.getcwd())
        else:
            relative = action.path[1:]
        spec = self._spec
        assert spec is not None
        return relative is not None and relative != "" and spec.match_file(relative)

    def _match_shell(self, command: Any) -> bool:
        if not isinstance(command, str):
            return False
        from hookwright.core.bash_commands import analyse_bash

        analysis = analyse_bash(command)
        if analysis is None:
            return True
        if self._detailed and analysis.has_expansion:
            return True
        regex = self._regex
        assert regex is not None
        return any(
            regex.fullmatch(form) is not None
            for simple in analysis.commands
            for form in simple.forms
        )

    def _match_file(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        cwd: str | None,
        project_dir: str | None,
        home: str | None,
    ) -> bool:
        work_dir = os.path.abspath(cwd) if cwd is not None else os.getcwd()
        home_dir = os.path.abspath(home if home is not None else home_text())
        canonical = canonical_tool_name(tool_name)
        value: Any = None
        for name in _FILE_TOOL_FIELDS.get(canonical, ("file_path",)):
            value = tool_input.get(name)
            if value is not None:
                break
        if value is None and canonical in _DIRECTORY_TOOLS:
            value = work_dir
        if not isinstance(value, str) or not value:
            return False
        path = _resolve_path(value, work_dir, home_dir)
        anchor = self._anchor
        if anchor == "anywhere":
            relative: str | None = path[1:]
        elif anchor == "root":
            relative = path[1:]
        elif anchor == "home":
            relative = _relative_to(path, home_dir)
        elif anchor == "project":
            base = os.path.abspath(project_dir) if project_dir is not None else work_dir
            relative = _relative_to(path, base)
        else:
            relative = _relative_to(path, work_dir)
        if not relative:
            return False
        if canonical in _DIRECTORY_TOOLS:
            relative += "/"
        spec = self._spec
        assert spec is not None
        return spec.match_file(relative)

    def _match_domain(self, url: Any) -> bool:
        if not isinstance(url, str):
            return False
        from urllib.parse import urlsplit  # deferred in a process answering one event

        assert self.pattern is not None
        domain = self.pattern.removeprefix("domain:").strip().lower().rstrip(".")
        try:
            host = urlsplit(url).hostname
        except ValueError:
            return False
        if not host or not domain:
            return False
        host = host.rstrip(".")
        if domain.startswith("*."):
            return host.endswith(domain[1:])
        return host == domain or host.endswith("." + domain)
