"""The reference agent's tools: the built-ins (Bash, Read, Write, Edit, Glob, Grep), tools made
from Python functions, and the registry that validates and runs calls."""

from __future__ import annotations

from hookwright.runtime.tools.base import (
    ModelTool,
    Tool,
    ToolContext,
    ToolInputError,
    ToolOutput,
)
from hookwright.runtime.tools.bash import BashTool
from hookwright.runtime.tools.files import EditTool, ReadTool, WriteTool
from hookwright.runtime.tools.functions import FunctionTool, function_tool
from hookwright.runtime.tools.registry import ALIASES, ToolRegistry
from hookwright.runtime.tools.search import GlobTool, GrepTool


def default_tools() -> ToolRegistry:
    """A fresh registry holding Bash, Read, Write, Edit, Glob and Grep."""
    registry = ToolRegistry()
    for tool in (BashTool(), ReadTool(), WriteTool(), EditTool(), GlobTool(), GrepTool()):
        registry.register(tool)
    return registry


__all__ = [
    "ALIASES",
    "BashTool",
    "EditTool",
    "FunctionTool",
    "GlobTool",
    "GrepTool",
    "ModelTool",
    "ReadTool",
    "Tool",
    "ToolContext",
    "ToolInputError",
    "ToolOutput",
    "ToolRegistry",
    "WriteTool",
    "default_tools",
    "function_tool",
]
