"""Tool inputs Claude Code refuses before any hook runs, and inputs it takes that look like
they might be refused: values outside a key's options, an Edit that cannot apply, an empty
command, out-of-range numbers, an Edit that creates a file, an Agent key its schema lacks;
and the hint a Read or an Edit of a missing file gets."""

from __future__ import annotations

from conformance.case_kit import SUBAGENT_INPUT, observers
from conformance.fake_api import ToolUse, Turn
from conformance.harness import Case

WATCHED = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch")


def _case(name: str, *calls: ToolUse, files: dict[str, str] | None = None) -> Case:
    """The model makes `calls`, one turn each."""
    turns = [*(Turn(tools=[call]) for call in calls), Turn("done")]
    return Case(name, "go", turns, observers(*WATCHED), files or {})


def _agent(use_id: str, **fields: object) -> ToolUse:
    return ToolUse(use_id, "Agent", {"description": "d", "prompt": "p", **fields})


def refusal_cases() -> list[Case]:
    """Agent's `model` and `isolation` outside their options (alone: the raw issue list;
    beside a wrong type: listed by 2.1.332 only); Edits Claude Code refuses before its hooks;
    Bash and Read inputs it takes and runs; a Write to a folder (refused before its hooks by
    2.1.332 only)."""
    edit = {"file_path": "{project}/a.txt", "old_string": "absent", "new_string": "b"}
    return [
        _case(
            "tool-input-invalid-option",
            _agent("toolu_a", model="gpt"),
            _agent("toolu_b", isolation="bogus"),
            _agent("toolu_c", model=None),
            _agent("toolu_d", model=5, isolation="bogus"),
            _agent("toolu_e", prompt=3, model="gpt"),
        ),
        _case(
            "edit-refused-before-hooks",
            ToolUse("toolu_a", "Edit", edit),
            ToolUse("toolu_b", "Read", {"file_path": "{project}/a.txt"}),
            ToolUse("toolu_c", "Edit", edit),
            ToolUse("toolu_d", "Edit", {**edit, "old_string": "hello", "new_string": "hello"}),
            ToolUse("toolu_e", "Edit", {**edit, "old_string": "hello"}),
            ToolUse("toolu_f", "Edit", {**edit, "file_path": "{project}/missing.txt"}),
            ToolUse("toolu_g", "Edit", {**edit, "old_string": ""}),
            ToolUse("toolu_h", "Edit", {**edit, "file_path": "{project}"}),
            ToolUse("toolu_i", "Edit", {**edit, "old_string": "world", "new_string": "earth"}),
            files={"a.txt": "hello\nhello\nworld\n"},
        ),
        _case(
            "tool-input-limits-run",
            ToolUse("toolu_a", "Bash", {"command": ""}),
            ToolUse("toolu_b", "Bash", {"command": "echo hi", "timeout": 0}),
            ToolUse("toolu_c", "Bash", {"command": "echo hi", "timeout": 700000}),
            ToolUse("toolu_d", "Read", {"file_path": "{project}/a.txt", "offset": -1}),
            ToolUse("toolu_e", "Read", {"file_path": "{project}/b.txt", "limit": 0}),
            ToolUse("toolu_f", "Read", {"file_path": ""}),
            files={"a.txt": "hello\n", "b.txt": "one\ntwo\n"},
        ),
        _case(
            "write-to-folder",
            ToolUse("toolu_a", "Write", {"file_path": "{project}/sub", "content": "x"}),
            files={"sub/a.txt": "x\n"},
        ),
    ]


def bash_timeout_cases() -> list[Case]:
    """A Bash call past its `timeout` that starts with ``sleep``: killed at the timeout in both
    versions (exit code 143, what it printed before, PostToolUseFailure), its later commands
    never run. (Claude Code moves any other command that times out to the background, which
    hookwright does not: docs/claude-code.md.)"""
    return [
        _case(
            "bash-timeout-killed",
            ToolUse(
                "toolu_a", "Bash", {"command": "sleep 5; echo late > late.txt", "timeout": 1000}
            ),
            ToolUse(
                "toolu_b",
                "Bash",
                {"command": "sleep 0.1 && echo early && sleep 5 && touch b.txt", "timeout": 1500},
            ),
        ),
    ]


def edit_create_cases() -> list[Case]:
    """An Edit with an empty `old_string`: a missing file is created (its folders too), a file
    of whitespace only is taken; the created file is then edited."""
    return [
        _case(
            "edit-creates-missing-file",
            ToolUse("toolu_a", "Edit", _create("{project}/new.txt", "hello\n")),
            ToolUse("toolu_b", "Edit", _create("{project}/deep/er/new.txt", "x")),
            ToolUse("toolu_c", "Edit", _create("{project}/blank.txt", "y\n")),
            ToolUse(
                "toolu_d",
                "Edit",
                {"file_path": "{project}/new.txt", "old_string": "hello", "new_string": "bye"},
            ),
            files={"blank.txt": " \n"},
        ),
    ]


def _create(path: str, text: str) -> dict[str, str]:
    return {"file_path": path, "old_string": "", "new_string": text}


def agent_unknown_key_cases() -> list[Case]:
    """An Agent call with a key its schema does not have: taken, not refused. Compared: the
    Agent's PreToolUse stdin (the key left out), which hooks ran, the requests (the hand-back
    aside: Claude Code starts the subagent in the background) and the file its subagent made."""
    agent = ToolUse("toolu_a", "Agent", {**SUBAGENT_INPUT, "zeta": 1})
    turns = [
        Turn(tools=[agent]),
        Turn(tools=[ToolUse("toolu_s", "Bash", {"command": "touch sub.txt"})]),
        Turn("sub done"),
        Turn("main done"),
    ]
    hooks = observers("PreToolUse", matcher="Agent")
    compared = frozenset({"order", "stdin", "handback", "files"})
    return [Case("agent-unknown-key", "go", turns, hooks, {}, compare=compared)]


def missing_file_hint_cases() -> list[Case]:
    """Read and Edit of a file that does not exist, beside files of a similar name: the same
    stem with another extension (or none), another case, a typo, an odd extension, and the
    path written without the project's folder."""
    edit = {"old_string": "x", "new_string": "y"}
    return [
        _case(
            "missing-file-hint",
            ToolUse("toolu_a", "Read", {"file_path": "{project}/notes.md"}),
            ToolUse("toolu_b", "Read", {"file_path": "{project}/NOTES.txt"}),
            ToolUse("toolu_c", "Read", {"file_path": "{project}/notes"}),
            ToolUse("toolu_d", "Read", {"file_path": "{project}/note.txt"}),
            ToolUse("toolu_e", "Read", {"file_path": "{project}/data.md"}),
            ToolUse("toolu_f", "Read", {"file_path": "{project}/../src/app.py"}),
            ToolUse("toolu_g", "Edit", {"file_path": "{project}/notes.md", **edit}),
            ToolUse("toolu_h", "Edit", {"file_path": "{project}/../src/app.py", **edit}),
            ToolUse("toolu_i", "Read", {"file_path": "sub/notes.md"}),
            files={
                "notes.txt": "x\n",
                "data.a=b": "x\n",
                "src/app.py": "x\n",
                "sub/notes.txt": "x\n",
            },
        ),
    ]
