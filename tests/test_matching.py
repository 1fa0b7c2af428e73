"""Matcher strings (claude-code-hooks spec §2.1-2.3, OpenHarness §2) and `if` rules (§2.4)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookwright.core import matching
from hookwright.core.matching import (
    TOOL_ALIASES,
    IfRule,
    IfRuleError,
    Matcher,
    MatcherError,
    MatcherStyle,
    canonical_tool_name,
    compile_matcher,
    split_bash_commands,
)

CWD = "/work/proj"
HOME = "/home/u"


@pytest.fixture
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matching, "_warned_patterns", set())


# --------------------------------------------------------------------------------------------
# Matchers
# --------------------------------------------------------------------------------------------

CLAUDE_CASES = [
    pytest.param("Bash", "Bash", True, id="exact-name"),
    pytest.param("Bash", "BashOutput", False, id="exact-not-prefix"),
    pytest.param("Writ", "Write", False, id="exact-not-substring"),
    pytest.param("Edit|Write", "Write", True, id="pipe-list-second"),
    pytest.param("Edit|Write", "Edit", True, id="pipe-list-first"),
    pytest.param("Edit|Write", "Read", False, id="pipe-list-miss"),
    pytest.param("Edit|Write", "NotebookEdit", False, id="pipe-list-is-not-regex"),
    pytest.param("Edit.*", "NotebookEdit", True, id="regex-unanchored-hits-NotebookEdit"),
    pytest.param("Edit.*", "Edit", True, id="regex-plain"),
    pytest.param("mcp__.*", "notmcp__x", True, id="regex-unanchored-hits-notmcp"),
    pytest.param("mcp__.*", "mcp__github__list", True, id="regex-mcp-prefix"),
    pytest.param("mcp__memory", "mcp__memory__create", False, id="bare-server-name-exact"),
    pytest.param("mcp__memory", "mcp__memory", True, id="bare-server-name-itself"),
    pytest.param("mcp__memory__.*", "mcp__memory__create", True, id="server-regex"),
    pytest.param("mcp__memory__.*", "mcp__other__create", False, id="server-regex-other"),
    pytest.param("Read, Write", "Write", True, id="comma-list-trimmed"),
    pytest.param("Read, Write", "Read", True, id="comma-list-first"),
    pytest.param("Read, Write", "Read, Write", False, id="comma-list-whole-string"),
    pytest.param(" Read ,, | Write ", "Write", True, id="list-empty-items-dropped"),
    pytest.param("code-reviewer", "code-reviewer", True, id="hyphen-name-exact"),
    pytest.param("code-reviewer", "senior-code-reviewer", False, id="hyphen-name-not-substring"),
    pytest.param("my-plugin:reviewer", "my-plugin:reviewer", True, id="colon-regex-path"),
    pytest.param("my-plugin:reviewer", "x-my-plugin:reviewer-2", True, id="colon-unanchored"),
    pytest.param("^my-plugin:reviewer$", "my-plugin:reviewer-2", False, id="colon-anchored"),
    pytest.param("bash", "Bash", False, id="exact-case-sensitive"),
    pytest.param("BASH.*", "Bash", False, id="regex-case-sensitive"),
    pytest.param("[Bb]ash", "bash", True, id="regex-char-class"),
    pytest.param("startup|resume", "resume", True, id="session-source-list"),
    pytest.param("Task", "Agent", True, id="alias-exact-legacy-matcher"),
    pytest.param("Agent", "Task", True, id="alias-exact-legacy-value"),
    pytest.param("Task", "TaskOutput", False, id="alias-exact-not-prefix"),
    pytest.param("^Task$", "Agent", True, id="alias-regex-legacy-matcher"),
    pytest.param("Ag.nt", "Task", True, id="alias-regex-legacy-value"),
    pytest.param("Task|Read", "Agent", True, id="alias-list"),
    pytest.param("^Read$", "Agent", False, id="alias-regex-miss"),
    pytest.param("*", "Anything", True, id="star-all"),
    pytest.param("", "Anything", True, id="empty-all"),
    pytest.param(None, "Anything", True, id="none-all"),
    pytest.param("[", "[", False, id="invalid-regex-nothing"),
    pytest.param(" ", "Bash", False, id="blank-list-nothing"),
]


@pytest.mark.parametrize(("pattern", "value", "expected"), CLAUDE_CASES)
def test_claude_matcher(pattern: str | None, value: str, expected: bool) -> None:
    assert compile_matcher(pattern).matches(value) is expected


NARROW_CASES = [
    pytest.param("rate_limit|overloaded", "overloaded", True, id="pipe-list"),
    pytest.param("rate_limit", "rate_limit_x", False, id="exact"),
    pytest.param("a,b", "a", False, id="comma-is-regex"),
    pytest.param("a,b", "xa,by", True, id="comma-regex-unanchored"),
    pytest.param("code-reviewer", "senior-code-reviewer", True, id="hyphen-is-regex"),
    pytest.param("a b", "a", False, id="space-is-regex"),
    pytest.param(".envrc|.env", ".env", True, id="dot-regex"),
    pytest.param(".envrc|.env", "xenv", True, id="dot-regex-any-char"),
    pytest.param("Task", "Agent", True, id="alias"),
]


@pytest.mark.parametrize(("pattern", "value", "expected"), NARROW_CASES)
def test_claude_narrow_matcher(pattern: str, value: str, expected: bool) -> None:
    assert compile_matcher(pattern, "claude_narrow").matches(value) is expected


REGEX_CASES = [
    pytest.param("Bash", "BashOutput", True, id="unanchored"),
    pytest.param("^Bash$", "BashOutput", False, id="anchored"),
    pytest.param("Bash|Edit", "Edit", True, id="alternation"),
    pytest.param("Edit,Write", "Edit", False, id="no-exact-list"),
    pytest.param("Edit,Write", "Edit,Write", True, id="comma-literal"),
    pytest.param("Task", "Agent", False, id="no-aliasing"),
    pytest.param("platform/openai", "platform/openai-default", True, id="model-ref"),
    pytest.param(None, "x", True, id="none-all"),
    pytest.param("", "x", True, id="empty-all"),
    pytest.param("*", "x", False, id="star-is-invalid-regex"),
]


@pytest.mark.parametrize(("pattern", "value", "expected"), REGEX_CASES)
def test_regex_matcher(pattern: str | None, value: str, expected: bool) -> None:
    assert compile_matcher(pattern, "regex").matches(value) is expected


@pytest.mark.parametrize("style", ["claude", "claude_narrow", "regex"])
@pytest.mark.parametrize("pattern", ["Bash", "^x$", "[", None])
@pytest.mark.parametrize("value", [None, ""], ids=["none", "empty"])
def test_missing_value_matches_every_group(
    style: MatcherStyle, pattern: str | None, value: str | None
) -> None:
    assert compile_matcher(pattern, style).matches(value) is True


@pytest.mark.parametrize(
    ("pattern", "style", "expected"),
    [
        pytest.param(None, "claude", True, id="none"),
        pytest.param("", "claude", True, id="empty"),
        pytest.param("*", "claude", True, id="star"),
        pytest.param("*", "claude_narrow", True, id="star-narrow"),
        pytest.param("Bash", "claude", False, id="name"),
        pytest.param(".*", "claude", False, id="regex-dot-star"),
        pytest.param("", "regex", True, id="regex-empty"),
        pytest.param("*", "regex", False, id="regex-star"),
    ],
)
def test_matches_all(pattern: str | None, style: MatcherStyle, expected: bool) -> None:
    assert compile_matcher(pattern, style).matches_all is expected


def test_invalid_regex_matches_nothing_and_warns_once(
    fresh_warnings: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="hookwright.core.matching"):
        first = compile_matcher("[")
        second = compile_matcher("[")
        compile_matcher("(", "regex")
    assert first.error is not None and second.error is not None
    assert not first.matches("[") and not first.matches("Bash")
    messages = [r.getMessage() for r in caplog.records if r.name == "hookwright.core.matching"]
    assert len(messages) == 2
    assert "'['" in messages[0] and "'('" in messages[1]


def test_valid_matcher_has_no_error_and_logs_nothing(
    fresh_warnings: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="hookwright.core.matching"):
        assert compile_matcher("Edit.*").error is None
    assert caplog.records == []


@pytest.mark.parametrize("style", ["regex", "claude"])
def test_strict_raises_matcher_error(style: MatcherStyle) -> None:
    with pytest.raises(MatcherError, match=r"'a\(b'.*missing \)") as info:
        compile_matcher("a(b", style, strict=True)
    assert isinstance(info.value, ValueError)
    assert info.value.pattern == "a(b"


def test_strict_accepts_valid_regex() -> None:
    assert compile_matcher("^Bash$", "regex", strict=True).matches("Bash")


def test_unknown_style_rejected() -> None:
    with pytest.raises(ValueError, match="style"):
        compile_matcher("Bash", "glob")  # type: ignore[arg-type]


def test_matcher_is_frozen_value_object() -> None:
    matcher = compile_matcher("Edit|Write")
    assert matcher == Matcher("Edit|Write", "claude")
    assert hash(matcher) == hash(compile_matcher("Edit|Write"))
    with pytest.raises(AttributeError):
        matcher.pattern = "Read"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("name", "expected"),
    [("Task", "Agent"), ("Agent", "Agent"), ("Bash", "Bash"), ("mcp__a__b", "mcp__a__b")],
)
def test_canonical_tool_name(name: str, expected: str) -> None:
    assert TOOL_ALIASES["Task"] == "Agent"
    assert canonical_tool_name(name) == expected


# --------------------------------------------------------------------------------------------
# IfRule parsing
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "tool", "pattern"),
    [
        pytest.param("Bash", "Bash", None, id="bare-tool"),
        pytest.param("Bash(*)", "Bash", None, id="star"),
        pytest.param("Bash()", "Bash", None, id="empty-parens"),
        pytest.param(" Bash(git push *) ", "Bash", "git push *", id="pattern"),
        pytest.param("Task(Explore)", "Agent", "Explore", id="alias"),
        pytest.param("mcp__srv__tool", "mcp__srv__tool", None, id="mcp"),
        pytest.param("mcp__srv__*", "mcp__srv__*", None, id="mcp-glob"),
        pytest.param("Bash(echo $(date))", "Bash", "echo $(date)", id="nested-parens"),
        pytest.param(r"Bash(echo \(x)", "Bash", "echo (x", id="escaped-paren"),
        pytest.param("WebFetch(domain:example.com)", "WebFetch", "domain:example.com", id="domain"),
    ],
)
def test_if_rule_parse(rule: str, tool: str, pattern: str | None) -> None:
    parsed = IfRule.parse(rule)
    assert (parsed.source, parsed.tool, parsed.pattern) == (rule, tool, pattern)


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        pytest.param("", "empty", id="empty"),
        pytest.param("   ", "empty", id="blank"),
        pytest.param("Bash(", "closing", id="unclosed"),
        pytest.param("(x)", "no tool name", id="no-tool"),
        pytest.param("Bash(a))", "unbalanced", id="extra-close"),
        pytest.param("Bash((a)", "unbalanced", id="extra-open"),
        pytest.param("Bash(a)(b)", "unbalanced", id="two-groups"),
        pytest.param("Bash)", "unbalanced", id="close-only"),
        pytest.param("Bash (ls)", "invalid tool name", id="space-before-paren"),
        pytest.param("Ba/sh", "invalid tool name", id="bad-char"),
    ],
)
def test_if_rule_parse_errors(rule: str, message: str) -> None:
    with pytest.raises(IfRuleError, match=message):
        IfRule.parse(rule)
    assert issubclass(IfRuleError, ValueError)


# --------------------------------------------------------------------------------------------
# Bash splitting
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        pytest.param("a && b", ["a", "b"], id="and"),
        pytest.param("a || b", ["a", "b"], id="or"),
        pytest.param("a; b", ["a", "b"], id="semicolon"),
        pytest.param("a | b |& c", ["a", "b", "c"], id="pipes"),
        pytest.param("a\nb", ["a", "b"], id="newline"),
        pytest.param("(cd x; ls)", ["cd x", "ls"], id="subshell"),
        pytest.param("{ a; b; }", ["a", "b"], id="group"),
        pytest.param("echo $(whoami)", ["echo $(whoami)", "whoami"], id="dollar-paren"),
        pytest.param("echo `whoami`", ["echo `whoami`", "whoami"], id="backticks"),
        pytest.param(
            "echo $(echo $(rm x))",
            ["echo $(echo $(rm x))", "echo $(rm x)", "rm x"],
            id="nested-substitution",
        ),
        pytest.param('echo "$(id -u)"', ['echo "$(id -u)"', "id -u"], id="in-string"),
        pytest.param("a=$(rm -rf /) ls", ["rm -rf /", "ls"], id="assignment-substitution"),
        pytest.param("FOO=1 BAR=2 rm -rf /", ["rm -rf /"], id="assignments-stripped"),
        pytest.param("x=1", [], id="assignment-only"),
        pytest.param("ls > out.txt 2>&1", ["ls"], id="redirections-excluded"),
        pytest.param("2>/dev/null ls -la", ["ls -la"], id="leading-redirect"),
        pytest.param("ls > out -la", ["ls -la"], id="args-after-redirect"),
        pytest.param('cat <<< "$(id)"', ["cat", "id"], id="herestring-substitution"),
        pytest.param("cat <<EOF\n$(id)\nEOF", ["cat", "id"], id="heredoc-substitution"),
        pytest.param("cat <<'EOF'\n$(id)\nEOF", ["cat"], id="quoted-heredoc-literal"),
        pytest.param("diff <(ls a) b", ["diff <(ls a) b", "ls a"], id="process-substitution"),
        pytest.param("git commit -m 'a && b'", ["git commit -m 'a && b'"], id="quoted-operator"),
        pytest.param("if true; then ls; fi", ["true", "ls"], id="if"),
        pytest.param("for f in *; do rm $f; done", ["rm $f"], id="for-loop"),
        pytest.param("export A=$(id)", ["export A=$(id)", "id"], id="export"),
        pytest.param("ls   -la", ["ls -la"], id="spaces-collapsed"),
        pytest.param('echo "a   b"', ['echo "a   b"'], id="quoted-spaces-kept"),
        pytest.param("echo hi # && rm x", ["echo hi"], id="comment"),
        pytest.param("", [], id="empty"),
    ],
)
def test_split_bash_commands(command: str, expected: list[str]) -> None:
    assert split_bash_commands(command) == expected


@pytest.mark.parametrize(
    "command",
    ['echo "unterminated', "ls &&", "(ls", "if", "echo $(", "ls |"],
)
def test_split_bash_commands_unparseable(command: str) -> None:
    assert split_bash_commands(command) is None


def test_split_bash_commands_returns_fresh_list() -> None:
    first = split_bash_commands("a && b")
    assert first is not None
    first.append("rm -rf /")
    assert split_bash_commands("a && b") == ["a", "b"]


_SHELL_WORDS = frozenset(
    {
        *("if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while"),
        *("until", "do", "done", "in", "function", "time", "coproc"),
        *("declare", "typeset", "export", "readonly", "local", "unset"),
    }
)
_words = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True).filter(
    lambda word: word not in _SHELL_WORDS
)
_parts = st.lists(_words, min_size=1, max_size=3).map(" ".join)


@settings(deadline=None)
@given(st.lists(_parts, min_size=1, max_size=8))
def test_split_and_chain_property(parts: list[str]) -> None:
    assert split_bash_commands(" && ".join(parts)) == parts


# --------------------------------------------------------------------------------------------
# IfRule matching
# --------------------------------------------------------------------------------------------

BASH_CASES = [
    pytest.param("Bash(rm *)", "FOO=1 rm -rf /", True, id="assignment-stripped"),
    pytest.param("Bash(rm *)", "ls && rm -rf /", True, id="and-chain"),
    pytest.param("Bash(rm *)", "false || rm x", True, id="or-chain"),
    pytest.param("Bash(rm *)", "ls; rm x", True, id="semicolon"),
    pytest.param("Bash(rm *)", "cat f | rm x", True, id="pipe"),
    pytest.param("Bash(rm *)", "ls -la", False, id="other-command"),
    pytest.param("Bash(rm *)", "echo rm -rf", False, id="name-as-argument"),
    pytest.param("Bash(rm *)", "ls > rm", False, id="name-as-redirect-target"),
    pytest.param("Bash(rm *)", '"rm" -rf /', True, id="quoted-command-name"),
    pytest.param("Bash(whoami)", "echo $(whoami)", True, id="dollar-paren"),
    pytest.param("Bash(whoami)", "echo `whoami`", True, id="backticks"),
    pytest.param("Bash(whoami)", "echo $(echo $(whoami))", True, id="nested-substitution"),
    pytest.param("Bash(whoami)", "a=$(whoami) ls", True, id="substitution-in-assignment"),
    pytest.param("Bash(whoami)", "echo whoami", False, id="exact-no-substitution"),
    pytest.param("Bash(ls *)", "ls", True, id="space-star-bare"),
    pytest.param("Bash(ls *)", "ls -la", True, id="space-star-args"),
    pytest.param("Bash(ls *)", "lsof", False, id="space-star-word-boundary"),
    pytest.param("Bash(ls*)", "lsof", True, id="star-no-boundary"),
    pytest.param("Bash(ls*)", "ls -la", True, id="star-with-args"),
    pytest.param("Bash(git commit:*)", "git commit -m x", True, id="legacy-prefix-args"),
    pytest.param("Bash(git commit:*)", "git commit", True, id="legacy-prefix-bare"),
    pytest.param("Bash(git commit:*)", "git commitx", False, id="legacy-prefix-boundary"),
    pytest.param("Bash(git commit:*)", "git status", False, id="legacy-prefix-other"),
    pytest.param("Bash(npm test)", "npm test", True, id="exact"),
    pytest.param("Bash(npm test)", "  npm   test ", True, id="exact-whitespace"),
    pytest.param("Bash(npm test)", "npm test --watch", False, id="exact-extra-args"),
    pytest.param("Bash(npm test)", "npm test && echo ok", True, id="exact-subcommand"),
    pytest.param("Bash(git * --force)", "git push origin --force", True, id="inner-star"),
    pytest.param("Bash(git * --force)", "git push origin", False, id="inner-star-miss"),
    pytest.param("Bash(git push *)", "git status", False, id="detailed-miss"),
    pytest.param("Bash(git push *)", "git $SUB origin", True, id="failsafe-var"),
    pytest.param("Bash(git push *)", "git ${SUB} origin", True, id="failsafe-braced-var"),
    pytest.param("Bash(git push *)", "$(echo git) push", True, id="failsafe-substitution"),
    pytest.param("Bash(git push *)", "echo `date`", True, id="failsafe-backticks"),
    pytest.param("Bash(git push *)", "echo '$HOME'", False, id="single-quoted-not-expansion"),
    pytest.param("Bash(git:*)", "echo $X", True, id="failsafe-colon-pattern"),
    pytest.param("Bash(rm)", "echo $HOME", False, id="name-only-no-failsafe"),
    pytest.param("Bash(rm *)", 'echo "unterminated', True, id="unparseable-fail-open"),
    pytest.param("Bash(rm)", "ls &&", True, id="unparseable-fail-open-exact"),
    pytest.param("Bash", "anything at all", True, id="bare-tool"),
    pytest.param("Bash(*)", "ls", True, id="star"),
    pytest.param("Bash(grep *)", "cat f | grep x", True, id="pipe-right"),
    pytest.param("Bash(git push *)", r"g\it push origin", True, id="backslash-unquoted"),
    pytest.param("PowerShell(Remove-Item *)", "Remove-Item x; ls", True, id="powershell"),
]


@pytest.mark.parametrize(("rule", "command", "expected"), BASH_CASES)
def test_bash_if_rule(rule: str, command: str, expected: bool) -> None:
    tool = "PowerShell" if rule.startswith("PowerShell") else "Bash"
    assert IfRule.parse(rule).matches(tool, {"command": command}) is expected


@pytest.mark.parametrize(
    ("rule", "tool_input", "expected"),
    [
        pytest.param("Bash", {}, True, id="bare-missing"),
        pytest.param("Bash(ls *)", {}, False, id="pattern-missing"),
        pytest.param("Bash(ls *)", {"command": ["ls"]}, False, id="pattern-non-string"),
    ],
)
def test_bash_if_rule_missing_command(
    rule: str, tool_input: dict[str, Any], expected: bool
) -> None:
    assert IfRule.parse(rule).matches("Bash", tool_input) is expected


@pytest.mark.parametrize(
    ("rule", "tool"),
    [
        pytest.param("Bash", "BashOutput", id="bash-vs-bashoutput"),
        pytest.param("Bash(ls)", "PowerShell", id="bash-vs-powershell"),
        pytest.param("Edit(*.ts)", "Write", id="edit-vs-write"),
        pytest.param("mcp__srv__tool", "mcp__srv__tool2", id="mcp-exact"),
        pytest.param("mcp__srv__*", "mcp__srvx__tool", id="mcp-glob-other-server"),
    ],
)
def test_if_rule_tool_mismatch(rule: str, tool: str) -> None:
    assert IfRule.parse(rule).matches(tool, {"command": "ls", "file_path": "/a.ts"}) is False


@pytest.mark.parametrize(
    ("rule", "tool"),
    [
        pytest.param("mcp__srv__tool", "mcp__srv__tool", id="mcp-exact"),
        pytest.param("mcp__srv__*", "mcp__srv__anything", id="mcp-glob"),
        pytest.param("*", "Read", id="star-tool"),
        pytest.param("Task", "Agent", id="alias-rule-legacy"),
        pytest.param("Agent", "Task", id="alias-call-legacy"),
    ],
)
def test_if_rule_tool_match(rule: str, tool: str) -> None:
    assert IfRule.parse(rule).matches(tool, {}) is True


FILE_CASES = [
    pytest.param("Edit(src/**)", "/work/proj/src/a/b.ts", {}, True, id="cwd-relative"),
    pytest.param("Edit(src/**)", "src/a.ts", {}, True, id="relative-file-path"),
    pytest.param("Edit(./src/**)", "/work/proj/src/a.ts", {}, True, id="dot-slash"),
    pytest.param("Edit(src/**)", "/work/proj/lib/src/a.ts", {}, False, id="cwd-relative-depth"),
    pytest.param("Edit(src/**)", "/other/src/a.ts", {}, False, id="outside-cwd"),
    pytest.param("Edit(src/**)", "src/../../x/src/a", {}, False, id="dotdot-normalised"),
    pytest.param("Edit(**/src/**)", "/work/proj/lib/src/a.ts", {}, True, id="any-depth"),
    pytest.param("Edit(**/src/**)", "/work/proj/src/a.ts", {}, True, id="any-depth-top"),
    pytest.param("Edit(**/src/**)", "/elsewhere/src/a.ts", {}, False, id="any-depth-outside"),
    pytest.param("Edit(*.ts)", "/work/proj/a/b/c.ts", {}, True, id="basename-deep"),
    pytest.param("Edit(*.ts)", "/anywhere/x.ts", {}, True, id="basename-outside-cwd"),
    pytest.param("Edit(*.ts)", "/work/proj/a.tsx", {}, False, id="basename-miss"),
    pytest.param("Read(.env)", "/work/proj/sub/.env", {}, True, id="dotfile-any-depth"),
    pytest.param("Read(.env)", "/work/proj/.envrc", {}, False, id="dotfile-exact"),
    pytest.param("Read(secrets)", "/work/proj/a/secrets/k", {}, True, id="dir-name-any-depth"),
    pytest.param("Read(//etc/passwd)", "/etc/passwd", {}, True, id="absolute"),
    pytest.param("Read(//etc/**)", "/etc/ssh/sshd_config", {}, True, id="absolute-glob"),
    pytest.param("Read(//etc/passwd)", "/work/proj/etc/passwd", {}, False, id="absolute-miss"),
    pytest.param("Read(~/.ssh/**)", "/home/u/.ssh/id_rsa", {}, True, id="home"),
    pytest.param("Read(~/.ssh/**)", "~/.ssh/id_rsa", {}, True, id="home-tilde-input"),
    pytest.param("Read(~/.ssh/**)", "/work/proj/.ssh/id_rsa", {}, False, id="home-miss"),
    pytest.param(
        "Edit(/docs/**)",
        "/work/proj/docs/a.md",
        {"cwd": "/work/proj/sub", "project_dir": "/work/proj"},
        True,
        id="project-relative",
    ),
    pytest.param(
        "Edit(/docs/**)",
        "/work/proj/sub/docs/a.md",
        {"cwd": "/work/proj/sub", "project_dir": "/work/proj"},
        False,
        id="project-relative-not-cwd",
    ),
    pytest.param(
        "Edit(docs/**)",
        "/work/proj/sub/docs/a.md",
        {"cwd": "/work/proj/sub", "project_dir": "/work/proj"},
        True,
        id="relative-follows-cwd",
    ),
]


@pytest.mark.parametrize(("rule", "file_path", "dirs", "expected"), FILE_CASES)
def test_file_if_rule(rule: str, file_path: str, dirs: dict[str, str], expected: bool) -> None:
    tool = rule.split("(", 1)[0]
    kwargs = {"cwd": CWD, "home": HOME, **dirs}
    assert IfRule.parse(rule).matches(tool, {"file_path": file_path}, **kwargs) is expected


@pytest.mark.parametrize(
    ("rule", "tool", "tool_input", "expected"),
    [
        pytest.param(
            "NotebookEdit(*.ipynb)",
            "NotebookEdit",
            {"notebook_path": "/work/proj/n.ipynb"},
            True,
            id="notebook-path",
        ),
        pytest.param("Grep(src/**)", "Grep", {"path": "src"}, True, id="grep-dir"),
        pytest.param("Grep(src/**)", "Grep", {"path": "lib"}, False, id="grep-other-dir"),
        pytest.param("Grep(src/**)", "Grep", {}, False, id="grep-default-cwd"),
        pytest.param("Glob(//work/**)", "Glob", {}, True, id="glob-default-cwd-absolute"),
        pytest.param("Edit(*.ts)", "Edit", {}, False, id="missing-file-path"),
    ],
)
def test_file_if_rule_fields(
    rule: str, tool: str, tool_input: dict[str, Any], expected: bool
) -> None:
    assert IfRule.parse(rule).matches(tool, tool_input, cwd=CWD, home=HOME) is expected


@pytest.mark.parametrize(
    ("rule", "tool", "tool_input", "expected"),
    [
        pytest.param(
            "WebFetch(domain:example.com)",
            "WebFetch",
            {"url": "https://example.com/x"},
            True,
            id="domain",
        ),
        pytest.param(
            "WebFetch(domain:example.com)",
            "WebFetch",
            {"url": "https://api.example.com:8443/x"},
            True,
            id="subdomain-with-port",
        ),
        pytest.param(
            "WebFetch(domain:example.com)",
            "WebFetch",
            {"url": "HTTPS://EXAMPLE.COM/"},
            True,
            id="domain-case-insensitive",
        ),
        pytest.param(
            "WebFetch(domain:Example.COM)",
            "WebFetch",
            {"url": "https://docs.example.com/"},
            True,
            id="rule-domain-case-insensitive",
        ),
        pytest.param(
            "WebFetch(domain:example.com)",
            "WebFetch",
            {"url": "https://notexample.com/"},
            False,
            id="suffix-not-subdomain",
        ),
        pytest.param(
            "WebFetch(domain:example.com)",
            "WebFetch",
            {"url": "https://example.com.evil.io/"},
            False,
            id="domain-as-prefix",
        ),
        pytest.param(
            "WebSearch(*python*)", "WebSearch", {"query": "learn python"}, True, id="search"
        ),
        pytest.param("WebSearch(rust)", "WebSearch", {"query": "rust lang"}, False, id="search-x"),
        pytest.param("Agent(Explore)", "Agent", {"subagent_type": "Explore"}, True, id="agent"),
        pytest.param("Task(Explore)", "Agent", {"subagent_type": "Explore"}, True, id="task-rule"),
        pytest.param("Agent(Explore)", "Task", {"subagent_type": "Explore"}, True, id="task-call"),
        pytest.param("Agent(Explore)", "Agent", {"subagent_type": "Plan"}, False, id="agent-x"),
        pytest.param("Agent(Expl*)", "Agent", {"subagent_type": "Explore"}, False, id="agent-ex"),
        pytest.param(
            "mcp__db__query(SELECT *)",
            "mcp__db__query",
            {"sql": "SELECT 1", "limit": 5},
            True,
            id="generic-glob",
        ),
        pytest.param(
            "mcp__db__query(SELECT *)",
            "mcp__db__query",
            {"sql": "DROP TABLE t"},
            False,
            id="generic-miss",
        ),
        pytest.param(
            "mcp__db__query(5)", "mcp__db__query", {"limit": 5}, False, id="generic-non-string"
        ),
    ],
)
def test_other_if_rules(rule: str, tool: str, tool_input: dict[str, Any], expected: bool) -> None:
    assert IfRule.parse(rule).matches(tool, tool_input) is expected
