"""`hookwright run` says once which skills' hooks do not run because the skill is not enabled
(`hooks list` lists every skill's hooks; the reference agent runs only the skills named with
`--skill`), and says nothing once they are; through the real command."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from cli_runner import run_hookwright

NOTE = (
    "note: the hooks of skill tidy (skills/tidy/hooks/hooks.json) do not run in this session: a "
    "skill's hooks run once it is enabled (--skill tidy)"
)


def _project(root: Path) -> Path:
    hooks = root / "skills" / "tidy" / "hooks"
    hooks.mkdir(parents=True)
    hook = {
        "name": "tidy",
        "file": "tidy.md",
        "timing": "after_user_input",
        "role": "system",
        "persistent": False,
    }
    (hooks / "hooks.json").write_text(json.dumps({"hooks": [hook]}))
    (hooks / "tidy.md").write_text("Keep the files tidy.")
    (root / "skills" / "plain").mkdir()  # a skill without hooks is not named
    (root / "script.yaml").write_text(yaml.safe_dump({"turns": [{"content": "done"}]}))
    return root


def _run(project: Path, home: Path, *extra: str) -> tuple[str, str]:
    done = run_hookwright(
        "run", "go", "-p", str(project), "--trust", "--model",
        f"scripted:{project / 'script.yaml'}", *extra, home=home,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def test_a_skill_whose_hooks_do_not_run_is_named_with_the_flag(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj")
    out, err = _run(project, isolated_home)
    assert err.count(NOTE) == 1, err
    assert "(skill tidy" not in out, out
    out, err = _run(project, isolated_home, "--skill", "tidy")
    assert "do not run in this session" not in err, err
    assert (
        "✚ after_user_input (UserPromptSubmit) tidy (skill tidy, skills/tidy/hooks/tidy.md): "
        "system prompt: Keep the files tidy."
    ) in out, out
