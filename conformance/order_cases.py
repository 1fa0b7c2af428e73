"""Tool calls whose input keys the model wrote in another order than the tool's schema: the
`tool_input` every hook reads keeps the model's order (Claude Code writes the object as the
model sent it)."""

from __future__ import annotations

from conformance.case_kit import observers
from conformance.fake_api import ToolUse, Turn
from conformance.harness import Case

WATCHED = ("PreToolUse", "PostToolUse", "PostToolBatch")


def _case(name: str, *calls: ToolUse) -> Case:
    """The model makes `calls`, one turn each."""
    turns = [*(Turn(tools=[call]) for call in calls), Turn("done")]
    return Case(name, "go", turns, observers(*WATCHED))


def input_order_cases() -> list[Case]:
    """Bash with `description` first, Write with `content` first, Edit with its strings
    before `file_path` (on the file the model wrote: an Edit of a file the model has not read
    or written is answered otherwise)."""
    note = {"content": "hello\n", "file_path": "{project}/note.txt"}
    return [
        _case(
            "tool-input-order-bash",
            ToolUse("toolu_a", "Bash", {"description": "say hi", "command": "echo hi"}),
        ),
        _case(
            "tool-input-order-unknown-key",
            ToolUse("toolu_a", "Bash", {"zeta": 1, "description": "say hi", "command": "echo hi"}),
            ToolUse("toolu_b", "Bash", {"zeta": 1, "command": "echo hi", "alpha": 2}),
        ),
        _case(
            "tool-input-invalid-unknown-and-missing",
            ToolUse("toolu_a", "Bash", {"zeta": 1, "description": "say hi"}),
            ToolUse("toolu_b", "Bash", {"command": 5, "zeta": 1, "alpha": 2}),
        ),
        _case(
            "tool-input-invalid-missing",
            ToolUse("toolu_a", "Bash", {"description": "say hi"}),
            ToolUse("toolu_b", "Write", {"file_path": "{project}/x.txt"}),
        ),
        _case(
            "tool-input-invalid-type",
            ToolUse("toolu_a", "Bash", {"command": 5}),
            ToolUse("toolu_b", "Bash", {"command": "echo hi", "timeout": "soon", "description": 3}),
            ToolUse("toolu_c", "Bash", {"command": "echo hi", "timeout": None}),
            ToolUse("toolu_d", "Read", {"file_path": ["a"]}),
            ToolUse("toolu_e", "Bash", {"command": "echo hi", "timeout": "5000"}),
            ToolUse("toolu_f", "Bash", {"command": "echo hi", "timeout": True}),
        ),
        _case(
            "tool-input-invalid-all-kinds",
            ToolUse("toolu_a", "Write", {"content": True, "zeta": 1}),
        ),
        _case(
            "tool-input-order-write",
            ToolUse("toolu_a", "Write", note),
        ),
        _case(
            "tool-input-order-edit",
            ToolUse("toolu_a", "Write", note),
            ToolUse(
                "toolu_b",
                "Edit",
                {"new_string": "bye", "old_string": "hello", "file_path": "{project}/note.txt"},
            ),
        ),
    ]


def unread_file_cases() -> list[Case]:
    """Edits and a Write of a file that is in the project but that the model has not read or
    written in the session (the second Edit finds it edited), and the same Edit after a
    Read."""
    edit = {"file_path": "{project}/old.txt", "old_string": "hello", "new_string": "bye"}
    again = {"file_path": "{project}/old.txt", "old_string": "bye", "new_string": "ciao"}
    files = {"old.txt": "hello\n"}
    watched = observers(*WATCHED)
    write = {"file_path": "{project}/old.txt", "content": "new\n"}
    return [
        Case(
            "edit-unread-file",
            "go",
            [
                Turn(tools=[ToolUse("toolu_a", "Edit", edit)]),
                Turn(tools=[ToolUse("toolu_b", "Edit", again)]),
                Turn("done"),
            ],
            watched,
            files,
        ),
        Case(
            "edit-unread-file-replace-all",
            "go",
            [Turn(tools=[ToolUse("toolu_a", "Edit", {**edit, "replace_all": True})]), Turn("done")],
            watched,
            files,
        ),
        Case(
            "edit-read-file",
            "go",
            [
                Turn(tools=[ToolUse("toolu_a", "Read", {"file_path": "{project}/old.txt"})]),
                Turn(tools=[ToolUse("toolu_b", "Edit", edit)]),
                Turn("done"),
            ],
            watched,
            files,
        ),
        Case(
            "write-unread-file",
            "go",
            [Turn(tools=[ToolUse("toolu_a", "Write", write)]), Turn("done")],
            watched,
            files,
        ),
    ]
