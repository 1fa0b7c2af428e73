"""`hookwright schema codex` and `schema gemini`: each accepts the config its page shows, which
`hooks validate` loads without an error, and refuses a typo `hooks validate` reports too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_hookwright

GUARD = {"type": "command", "command": "./guard.sh", "timeout": 5}
CODEX = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [GUARD]}]}}
GEMINI = {
    "hooksConfig": {"enabled": True, "disabled": ["guard"]},
    "hooks": {
        "BeforeTool": [
            {
                "matcher": "write_file|replace",
                "sequential": False,
                "hooks": [
                    {"type": "command", "command": "./guard.sh", "name": "guard", "timeout": 5000}
                ],
            }
        ]
    },
}
#: schema name -> (its file in a project, a config from its docs page, the same with a typo)
CASES = {
    "codex": (".codex/hooks.json", CODEX, ("hooks", "PreToolUse", 0, "hooks", 0, "timeout"), "5s"),
    "gemini": (
        ".gemini/settings.json",
        GEMINI,
        ("hooks", "BeforeTool", 0, "hooks", 0, "type"),
        "cmd",
    ),
}


def _with(config: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    changed = json.loads(json.dumps(config))
    spot: Any = changed
    for key in path[:-1]:
        spot = spot[key]
    spot[path[-1]] = value
    return changed


def _validate(project: Path, file: str, config: dict[str, Any], home: Path) -> str:
    (project / file).parent.mkdir(parents=True, exist_ok=True)
    (project / file).write_text(json.dumps(config))
    proc = run_hookwright("hooks", "validate", "-p", str(project), "--json", home=home)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


@pytest.mark.parametrize("dialect", sorted(CASES))
def test_the_schema_agrees_with_the_loader(
    dialect: str, tmp_path: Path, isolated_home: Path
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    proc = run_hookwright("schema", dialect, home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    schema = json.loads(proc.stdout)
    validator = jsonschema.Draft202012Validator(schema)
    validator.check_schema(schema)
    file, config, path, typo = CASES[dialect]
    assert list(validator.iter_errors(config)) == []
    good = json.loads(_validate(tmp_path / "good", file, config, isolated_home))
    assert good["errors"] == 0
    broken = _with(config, path, typo)
    assert list(validator.iter_errors(broken)), f"{dialect}: a typo passes the schema"
    said = _validate(tmp_path / "broken", file, broken, isolated_home)
    assert f'"{path[-1]}' in said or f".{path[-1]}" in said
    misspelt_event = _with(config, ("hooks",), {"PreToolUsee": []})
    assert list(validator.iter_errors(misspelt_event))
