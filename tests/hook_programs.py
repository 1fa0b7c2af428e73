"""Hook programs and files several tests write into a project: one copy each."""

import json
import sys
from pathlib import Path

#: A PicoClaw process: before_tool denies an `rm` with `deny_tool`, approve_tool approves nothing.
PICOCLAW_GATE = (
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


def write_picoclaw_gate(project: Path) -> None:
    """`PICOCLAW_GATE` as the project's `gate.py`, run by `.picoclaw/config.json` as two
    processes: `gate` on before_tool, `approver` on approve_tool."""
    (project / ".picoclaw").mkdir(parents=True, exist_ok=True)
    (project / "gate.py").write_text(PICOCLAW_GATE)
    command = [sys.executable, str(project / "gate.py")]
    processes = {
        "gate": {"command": command, "intercept": ["before_tool"]},
        "approver": {"command": command, "intercept": ["approve_tool"]},
    }
    config = {"hooks": {"processes": processes}}
    (project / ".picoclaw" / "config.json").write_text(json.dumps(config))


#: An OpenHarness command hook that answers `decision: block`.
OPENHARNESS_BLOCKER = {
    "name": "guard",
    "events": ["before_tool_dispatch"],
    "handler": {
        "type": "command",
        "command": """echo '{"decision": "block", "reason": "no shell"}'""",
    },
}


#: A PicoClaw process whose before_tool answers in PicoClaw's other actions: `respond` with a
#: result of its own for an `echo`, `abort_turn` for an `rm`, `hard_abort` for a `kill`.
PICOCLAW_ANSWERS = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    msg = json.loads(line)\n"
    "    if 'id' not in msg: continue\n"
    "    params = msg.get('params') or {}\n"
    "    result = {'action': 'continue'}\n"
    "    if msg['method'] == 'hook.before_tool':\n"
    "        command = (params.get('arguments') or {}).get('command', '')\n"
    "        if command.startswith('echo'):\n"
    "            result = {'action': 'respond', 'reason': 'answered here',\n"
    "                      'result': {'for_llm': 'hook-responded'}}\n"
    "        elif command.startswith('rm'):\n"
    "            result = {'action': 'abort_turn', 'reason': 'stop right there'}\n"
    "        elif command.startswith('kill'):\n"
    "            result = {'action': 'hard_abort', 'reason': 'roll it back'}\n"
    "    print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': result}), flush=True)\n"
)


#: A PicoClaw process that rewrites with `modify`: before_tool a `touch made` into `touch
#: made-by-hook`, after_tool an `echo` call's output into `hook-rewrote-this`.
PICOCLAW_MODIFY = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    msg = json.loads(line)\n"
    "    if 'id' not in msg: continue\n"
    "    params = msg.get('params') or {}\n"
    "    command = (params.get('arguments') or {}).get('command', '')\n"
    "    result = {'action': 'continue'}\n"
    "    if msg['method'] == 'hook.before_tool' and command == 'touch made':\n"
    "        call = {**params, 'arguments': {'command': 'touch made-by-hook'}}\n"
    "        result = {'action': 'modify', 'call': call}\n"
    "    if msg['method'] == 'hook.after_tool' and command.startswith('echo'):\n"
    "        wrapper = {**params, 'result': {'for_llm': 'hook-rewrote-this'}}\n"
    "        result = {'action': 'modify', 'result': wrapper}\n"
    "    print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': result}), flush=True)\n"
)


def write_picoclaw_modify(project: Path) -> None:
    """`PICOCLAW_MODIFY` as the project's `modify.py`, run by `.picoclaw/config.json` as the
    process `rewriter` on before_tool and after_tool."""
    (project / ".picoclaw").mkdir(parents=True, exist_ok=True)
    (project / "modify.py").write_text(PICOCLAW_MODIFY)
    command = [sys.executable, str(project / "modify.py")]
    rewriter = {"command": command, "intercept": ["before_tool", "after_tool"]}
    config = {"hooks": {"processes": {"rewriter": rewriter}}}
    (project / ".picoclaw" / "config.json").write_text(json.dumps(config))


#: A Gemini CLI hook that answers `decision` in the word its call names: on BeforeTool for an
#: `rm`, on AfterTool for an `echo`; the reason names the event and the word.
GEMINI_WORDS = """import json, sys
data = json.load(sys.stdin)
event, command = data["hook_event_name"], data["tool_input"]["command"]
if command.startswith("rm" if event == "BeforeTool" else "echo"):
    word = "block" if "block" in command else "deny"
    print(json.dumps({"decision": word, "reason": f"{event} {word}"}))
"""


def write_gemini_words(project: Path, home: Path, program: str = GEMINI_WORDS) -> None:
    """`program` (by default `GEMINI_WORDS`) as the project's `.gemini/words.py`, the hook
    `no` on BeforeTool and AfterTool of `run_shell_command`, in a folder `home` trusts."""
    (project / ".gemini").mkdir(parents=True)
    (project / ".gemini" / "words.py").write_text(program)
    hook = {"type": "command", "command": f"{sys.executable} .gemini/words.py", "name": "no"}
    groups = [{"matcher": "run_shell_command", "hooks": [hook]}]
    settings = {"hooks": {"BeforeTool": groups, "AfterTool": groups}}
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
    (home / ".gemini").mkdir()
    trusted = {str(project): "TRUST_FOLDER"}
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))
