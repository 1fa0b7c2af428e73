"""The note on a Codex hook that was not reviewed says which config.toml the entry goes in, and
the entry pasted there makes the hook load; through the real command."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cli_runner import run_hookwright


def test_the_review_entry_names_its_file_and_works_when_pasted(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".codex").mkdir(parents=True)
    hook = {"type": "command", "command": "true", "timeout": 5}
    (project / ".codex" / "hooks.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )
    args = ("hooks", "validate", "-p", str(project), "--trust")
    first = run_hookwright(*args, home=isolated_home)
    assert "  warn  .codex/hooks.json (Codex): 1 hook turned off\n" in first.stdout, first.stdout
    said = re.search(r"add to your Codex config.toml \(\$CODEX_HOME, else ~/.codex\): (.*)$",
                     first.stdout, re.M)  # fmt: skip
    assert said is not None, first.stdout
    table, _, value = said.group(1).partition("] ")
    (isolated_home / ".codex").mkdir()
    (isolated_home / ".codex" / "config.toml").write_text(f"{table}]\n{value}\n")
    second = run_hookwright(*args, home=isolated_home)
    assert "  ok    .codex/hooks.json (Codex): 1 hook loaded\n" in second.stdout, second.stdout
