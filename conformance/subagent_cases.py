"""Whether a subagent shares its parent's record of the files the model read: an Edit in a
subagent of a file only the parent read, and an Edit in the parent of a file only its subagent
read. Each is an Edit of a file its own agent has not read (2.1.332 marks it
``contentNotInModelContext`` and tells the model less; 2.1.240 answers it as any Edit).
Compared: the Read and Edit hooks' stdin, which hooks ran, every request of the parent and the
subagent (the hand-back aside: its framing is each agent's own) and the files."""

from __future__ import annotations

from conformance.case_kit import SUBAGENT_INPUT, observers
from conformance.fake_api import ToolUse, Turn
from conformance.harness import Case

READ = ToolUse("toolu_r", "Read", {"file_path": "{project}/old.txt"})
EDIT = ToolUse(
    "toolu_e",
    "Edit",
    {"file_path": "{project}/old.txt", "old_string": "hello", "new_string": "bye"},
)
DELEGATE = ToolUse("toolu_a", "Agent", {**SUBAGENT_INPUT, "prompt": "edit old.txt"})
COMPARED = frozenset({"stdin", "order", "handback", "files"})


def read_set_cases() -> list[Case]:
    watched = observers("PreToolUse", "PostToolUse", matcher="Read|Edit")
    files = {"old.txt": "hello\n"}
    parent_reads = [
        Turn(tools=[READ]),
        Turn(tools=[DELEGATE]),
        Turn(tools=[EDIT]),
        Turn("sub done"),
        Turn("main done"),
    ]
    subagent_reads = [
        Turn(tools=[DELEGATE]),
        Turn(tools=[READ]),
        Turn("sub done"),
        Turn(tools=[EDIT]),
        Turn("main done"),
    ]
    return [
        Case("subagent-edit-parent-read", "go", parent_reads, watched, files, compare=COMPARED),
        Case("edit-subagent-read", "go", subagent_reads, watched, files, compare=COMPARED),
    ]
