"""The agents `type: agent` hooks name: `<workspace>/.openharness/agents/<name>.md`.

As in the real project, an agent file is Markdown with YAML frontmatter; the body (trimmed, not
empty) is the agent's system prompt. The frontmatter keys a hook agent uses:

* `model`: a model ref string, or an object with `model_ref` (or `alias`) and the sampling keys
  below (`alias` names a preset of the real project's workspace settings, which hookwright does
  not read: the alias is passed on as the model ref);
* `temperature`, `top_p`, `max_tokens` (numbers; top-level keys win over the `model` object's).

The file is read each time the hook runs (edits apply without a reload). A missing file is the
real project's `agent_not_found` failure: the hook fails open.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookwright.config.safeparse import ParseError, load_yaml_text, read_text
from hookwright.dialects.openharness.workspace import OH_DIR, resolve_inside

AGENTS_DIR = "agents"
AGENT_NOT_FOUND = "agent_not_found"
_NAME = re.compile(r"[A-Za-z0-9._-]+")
_SAMPLING = ("temperature", "top_p", "max_tokens")


class AgentError(RuntimeError):
    """An agent that cannot be used; `code` is the real project's error code."""

    def __init__(self, message: str, code: str = "hook_execution_failed") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class AgentDefinition:
    name: str
    prompt: str
    model_ref: str | None = None
    #: Sampling options in the canonical spelling (`temperature`, `top_p`, `max_tokens`).
    options: dict[str, float] = field(default_factory=dict)


def agent_path(root: Path, name: str) -> Path | None:
    """The file defining agent `name`, or None when the name cannot be a file in the
    agents folder (a path, `..`)."""
    if not _NAME.fullmatch(name) or name.strip(".") == "":
        return None
    return resolve_inside(root, f"{OH_DIR}/{AGENTS_DIR}/{name}.md")


def load_agent(root: Path, name: str) -> AgentDefinition:
    """Agent `name` of the workspace at `root`; `AgentError` when it is missing or invalid."""
    path = agent_path(root, name)
    if path is None or not path.is_file():
        raise AgentError(f"Agent {name} was not found in workspace {root}.", AGENT_NOT_FOUND)
    try:
        meta, body = _split(read_text(path), str(path))
    except ParseError as exc:
        raise AgentError(f"Agent definition in {path}: {exc.reason}") from None
    prompt = body.strip()
    if not prompt:
        raise AgentError(f"Agent definition in {path} is missing markdown prompt content.")
    model = meta.get("model")
    model_config: dict[str, Any] = model if isinstance(model, dict) else {}
    ref = model if isinstance(model, str) else model_config.get("model_ref")
    ref = ref or model_config.get("alias")
    options: dict[str, float] = {}
    for key in _SAMPLING:
        value = meta.get(key, model_config.get(key))
        if isinstance(value, int | float) and not isinstance(value, bool):
            options[key] = value
    model_ref = ref.strip() if isinstance(ref, str) and ref.strip() else None
    return AgentDefinition(name, prompt, model_ref, options)


def _split(text: str, where: str) -> tuple[dict[str, Any], str]:
    """The frontmatter mapping and the Markdown body of an agent file."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
    if end is None:
        raise ParseError("frontmatter has no closing '---'", where)
    data = load_yaml_text("\n".join(lines[1:end]), where=where)
    if data is not None and not isinstance(data, dict):
        raise ParseError("frontmatter must be a YAML mapping", where)
    return data or {}, "\n".join(lines[end + 1 :])
