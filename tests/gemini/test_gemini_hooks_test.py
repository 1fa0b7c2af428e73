"""`hookwright hooks test` of Gemini CLI's two model events: BeforeModel and
BeforeToolSelection are both the canonical PreModelCall, and each runs its own hooks only
(another dialect's PreModelCall hook runs at BeforeModel, as `hook gemini` relays it)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests.cli_runner import run_hookwright
from tests.gemini.project import gemini_input

#: Appends the event Gemini named to `ran.txt`, under the name given on its command line.
RECORD_PY = """\
import json, sys
data = json.load(sys.stdin)
with open("ran.txt", "a") as out:
    out.write(f"{sys.argv[1]} {data['hook_event_name']}\\n")
"""

OPENHARNESS_YAML = """\
name: model-watch
events: [before_model_call]
handler:
  type: command
  command: {python} .gemini/record.py openharness
  timeout_seconds: 10
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".gemini").mkdir(parents=True)
    (root / ".gemini" / "record.py").write_text(RECORD_PY)
    hooks = {
        event: [{"hooks": [_command(name)]}]
        for event, name in (("BeforeModel", "model"), ("BeforeToolSelection", "selection"))
    }
    (root / ".gemini" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    (root / ".openharness" / "hooks").mkdir(parents=True)
    watch = OPENHARNESS_YAML.format(python=sys.executable)
    (root / ".openharness" / "hooks" / "model-watch.yaml").write_text(watch)
    return root


def _command(name: str) -> dict[str, str]:
    return {"type": "command", "command": f"{sys.executable} .gemini/record.py {name}"}


def _home(tmp_path: Path, project: Path) -> Path:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    trusted = {str(project): "TRUST_FOLDER"}
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))
    return home


def _ran(tmp_path: Path, project: Path, event: str) -> list[str]:
    request = {"model": "gemini-2.5-flash", "messages": [{"role": "user", "content": "hi"}]}
    stdin = gemini_input(project, event, llm_request=request)
    args = ("hooks", "test", event, "-i", "-", "--project", str(project))
    done = run_hookwright(*args, home=_home(tmp_path, project), stdin=stdin)
    assert done.returncode == 0, done.stderr
    ran = project / "ran.txt"
    lines = sorted(ran.read_text().splitlines()) if ran.exists() else []
    ran.unlink(missing_ok=True)
    return lines


def test_before_tool_selection_runs_only_the_before_tool_selection_hooks(
    tmp_path: Path, project: Path
) -> None:
    assert _ran(tmp_path, project, "BeforeToolSelection") == ["selection BeforeToolSelection"]


def test_before_model_runs_its_own_hooks_and_the_other_dialects_model_hooks(
    tmp_path: Path, project: Path
) -> None:
    assert _ran(tmp_path, project, "BeforeModel") == [
        "model BeforeModel",
        "openharness before_model_call",
    ]


def test_the_canonical_event_still_runs_every_model_hook(tmp_path: Path, project: Path) -> None:
    assert _ran(tmp_path, project, "PreModelCall") == [
        "model BeforeModel",
        "openharness before_model_call",
        "selection BeforeToolSelection",
    ]
