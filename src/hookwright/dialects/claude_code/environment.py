"""What a Claude Code hook sees around its input: placeholders, environment variables and the
`CLAUDE_ENV_FILE` (spec §1.5, §8).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

_PLACEHOLDER = re.compile(r"\$\{(CLAUDE_PROJECT_DIR|CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA)\}")
_PLUGIN_REFERENCE = re.compile(r"\$\{?CLAUDE_PLUGIN_(?:ROOT|DATA)\b")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
#: Removed from the hook environment, as Claude Code does.
_DROPPED_PREFIXES = ("OTEL_",)


def references_plugin_vars(text: str) -> bool:
    """Whether `text` uses CLAUDE_PLUGIN_ROOT/DATA (as placeholder or shell variable)."""
    return _PLUGIN_REFERENCE.search(text) is not None


@dataclass(frozen=True, slots=True)
class HookSite:
    """Where a hook was declared: the values its placeholders and environment need.

    `plugin_root` is set for plugin hooks and for skill-frontmatter hooks (the skill's
    directory), `plugin_data` for plugin hooks only.
    """

    project_dir: Path
    home: Path
    plugin_root: Path | None = None
    plugin_data: Path | None = None

    def placeholders(self) -> dict[str, str]:
        values = {"CLAUDE_PROJECT_DIR": str(self.project_dir)}
        if self.plugin_root is not None:
            values["CLAUDE_PLUGIN_ROOT"] = str(self.plugin_root)
        if self.plugin_data is not None:
            values["CLAUDE_PLUGIN_DATA"] = str(self.plugin_data)
        return values

    def substitute(self, text: str) -> str:
        """Replace `${CLAUDE_PROJECT_DIR}`, `${CLAUDE_PLUGIN_ROOT}`, `${CLAUDE_PLUGIN_DATA}`
        textually; an unknown one is left for the shell."""
        values = self.placeholders()
        return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)

    def environment(
        self,
        session_id: str | None,
        env_file: Path | None = None,
        base: Mapping[str, str] | None = None,
    ) -> dict[str, str]:
        """The hook's environment: the parent's, minus OTEL_*, plus Claude Code's variables."""
        source = os.environ if base is None else base
        env = {k: v for k, v in source.items() if not k.startswith(_DROPPED_PREFIXES)}
        env.update(self.placeholders())
        env["CLAUDECODE"] = "1"
        if session_id:
            env["CLAUDE_CODE_SESSION_ID"] = session_id
        if env_file is not None:
            env["CLAUDE_ENV_FILE"] = str(env_file)
        return env


def env_file_path(home: Path, session_id: str | None, index: int) -> Path:
    """``<home>/.hookwright/claude-env/<session>/hook-<index>.sh``: one file per hook."""
    session = _UNSAFE.sub("_", session_id) if session_id else "default"
    return home / ".hookwright" / "claude-env" / session / f"hook-{index}.sh"
