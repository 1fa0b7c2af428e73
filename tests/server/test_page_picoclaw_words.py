"""The page is told a PicoClaw hook's decision in PicoClaw's own word for its method, as the
terminal says it: a before_tool `deny_tool` is `deny_tool (deny)`, an approve_tool
`"approved": false` is `not approved (deny)`; through a real server on 127.0.0.1."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hookwright.runtime.models.scripted import ScriptedModel

from .conftest import ServerFactory
from .test_server import call, client, of_type

#: before_tool denies an `rm` with `deny_tool`; approve_tool approves nothing.
GATE = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    msg = json.loads(line)\n"
    "    if 'id' not in msg: continue\n"
    "    params = msg.get('params') or {}\n"
    "    result = {'action': 'continue'}\n"
    "    if msg['method'] == 'hook.before_tool':\n"
    "        rm = 'rm' in (params.get('arguments') or {}).get('command', '')\n"
    "        result = {'action': 'deny_tool' if rm else 'continue', 'reason': 'no rm'}\n"
    "    if msg['method'] == 'hook.approve_tool':\n"
    "        result = {'approved': False, 'reason': 'ask me first'}\n"
    "    print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': result}), flush=True)\n"
)


def test_the_page_says_deny_tool_and_not_approved(serve: ServerFactory, project: Path) -> None:
    (project / ".picoclaw").mkdir()
    (project / "gate.py").write_text(GATE)
    command = [sys.executable, str(project / "gate.py")]
    processes = {
        "gate": {"command": command, "intercept": ["before_tool"]},
        "approver": {"command": command, "intercept": ["approve_tool"]},
    }
    config = {"hooks": {"processes": processes}}
    (project / ".picoclaw" / "config.json").write_text(json.dumps(config))
    model = ScriptedModel.from_turns(
        [
            {"tool_calls": [call("Bash", command="rm -rf build")]},
            {"tool_calls": [call("Bash", command="touch made")]},
            {"content": "ok"},
        ]
    )
    server = serve(model=lambda: model, trust=True)
    with client(server) as ws:
        frames = ws.chat("go", [])
    said = {(f["hook"], f["effect_words"]) for f in of_type(frames, "hook_result")}
    assert {("gate", "deny_tool (deny)"), ("approver", "not approved (deny)")} <= said, frames
    assert not (project / "made").exists()
