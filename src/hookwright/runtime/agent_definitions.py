"""What a subagent definition (`.claude/agents/<type>.md`) says about the model its subagent
runs on: the frontmatter's ``model``, a model name or a family (``sonnet``) that the Claude
Code profile maps to its own model; ``inherit`` or none is the parent's model. The project's
definition counts only once the project is trusted, as its hooks do."""

from __future__ import annotations

from pathlib import Path

from hookwright.dialects.claude_code.frontmatter import read_frontmatter


def definition_paths(
    project_dir: Path, home: Path, agent_type: str, *, project_trusted: bool
) -> list[Path]:
    """Where the definition of `agent_type` may be, the first existing one counting."""
    paths = [home / ".claude" / "agents" / f"{agent_type}.md"]
    if project_trusted:
        paths.insert(0, project_dir / ".claude" / "agents" / f"{agent_type}.md")
    return paths


def definition_model(
    project_dir: Path, home: Path, agent_type: str, *, project_trusted: bool
) -> str | None:
    """The definition's ``model`` (None: none, ``inherit``, or no readable definition)."""
    for path in definition_paths(project_dir, home, agent_type, project_trusted=project_trusted):
        if path.is_file():
            data, _ = read_frontmatter(path)
            model = (data or {}).get("model")
            return model if isinstance(model, str) and model != "inherit" else None
    return None
