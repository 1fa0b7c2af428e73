"""A hook's replacement for a tool's structured result, shown as the tool shows its own
(`ToolRegistry.render_response`); shapes the tool would not produce are refused (None)."""

from __future__ import annotations

from typing import Any

import pytest

from hookwright.runtime.tools import ToolOutput, default_tools, function_tool
from hookwright.runtime.tools.files import FRESH_STATE as FRESH

BASH_OK = {"stdout": "out", "stderr": "", "interrupted": False}
WRITE = {
    "type": "update",
    "filePath": "/p/a.txt",
    "content": "x",
    "structuredPatch": [],
    "originalFile": "old",
}
EDIT = {
    "filePath": "/p/a.txt",
    "oldString": "a",
    "newString": "b",
    "originalFile": None,
    "structuredPatch": [],
    "userModified": False,
    "replaceAll": True,
}
READ = {
    "type": "text",
    "file": {
        "filePath": "/p/a.txt",
        "content": "a\nb",
        "numLines": 2,
        "startLine": 1,
        "totalLines": 2,
    },
}


@pytest.mark.parametrize(
    ("tool", "response", "content", "is_error"),
    [
        ("Bash", BASH_OK, "out", False),
        ("Bash", {**BASH_OK, "stdout": "\n\n  x \n", "stderr": "\te\n"}, "  x\ne", False),
        ("Bash", {**BASH_OK, "stdout": " \n"}, "(Bash completed with no output)", False),
        (
            "Bash",
            {**BASH_OK, "interrupted": True},
            "out\n<error>Command was aborted before completion</error>",
            True,
        ),
        ("Write", WRITE, f"The file /p/a.txt has been updated successfully. {FRESH}", False),
        (
            "Write",
            {**WRITE, "type": "create"},
            f"File created successfully at: /p/a.txt {FRESH}",
            False,
        ),
        (
            "Edit",
            EDIT,
            "The file /p/a.txt has been updated. All occurrences were successfully replaced. "
            + FRESH,
            False,
        ),
        ("Read", READ, "1\ta\n2\tb", False),
    ],
)
def test_a_replacement_reads_as_the_tools_own_result(
    tool: str, response: dict[str, Any], content: str, is_error: bool
) -> None:
    shown = default_tools().render_response(tool, response)
    assert shown == ToolOutput(content, is_error, response)


@pytest.mark.parametrize(
    ("tool", "response"),
    [
        ("Bash", "a string"),
        ("Bash", {"stdout": "out", "stderr": ""}),
        ("Bash", {**BASH_OK, "interrupted": 0}),
        ("Bash", {**BASH_OK, "stderr": None}),
        ("Write", {**WRITE, "type": "delete"}),
        ("Write", {key: value for key, value in WRITE.items() if key != "originalFile"}),
        ("Edit", {**EDIT, "replaceAll": None}),
        ("Read", {**READ, "type": "image"}),
        ("Read", {"type": "text", "file": {**READ["file"], "startLine": True}}),
        ("Glob", {"filenames": []}),
        ("NoSuchTool", BASH_OK),
    ],
)
def test_a_replacement_without_the_tools_shape_is_refused(tool: str, response: Any) -> None:
    assert default_tools().render_response(tool, response) is None


def test_a_function_tool_shows_a_replacement_as_its_own_return_value() -> None:
    tools = default_tools()
    tools.register(function_tool(lambda: "x", name="answer"))
    assert tools.render_response("answer", {"n": 1}) == ToolOutput('{"n": 1}', data={"n": 1})
    assert tools.render_response("answer", "text") == ToolOutput("text")
