"""An adapter imported without its framework: one `ImportError` naming the extra to install,
not a `ModuleNotFoundError` from deep inside the import chain."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: adapter module -> (extra, the framework's top-level packages hidden from the import)
ADAPTERS = {
    "openai_agents": ("openai-agents", ("agents",)),
    "langchain": ("langchain", ("langchain", "langchain_core", "langgraph")),
    "pydantic_ai": ("pydantic-ai", ("pydantic_ai", "pydantic_graph")),
    "claude_agent_sdk": ("claude-agent-sdk", ("claude_agent_sdk",)),
    "google_adk": ("google-adk", ("google",)),
}

IMPORT_WITHOUT = """
import sys

class Hidden:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {hidden!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Hidden())
try:
    import hookwright.adapters.{module}
except ImportError as exc:
    print(type(exc).__name__, exc.name)
import hookwright.adapters.{module}
"""


@pytest.mark.parametrize("module", sorted(ADAPTERS))
def test_an_adapter_without_its_framework_names_the_extra(module: str) -> None:
    extra, hidden = ADAPTERS[module]
    code = IMPORT_WITHOUT.format(hidden=set(hidden), module=module)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stdout == f"MissingExtraError hookwright.adapters.{module}\n"
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("hookwright.adapters.MissingExtraError: ")
    assert last.endswith(f"an optional extra: pip install 'hookwright[{extra}]'")
    assert "ModuleNotFoundError" not in proc.stderr, proc.stderr
