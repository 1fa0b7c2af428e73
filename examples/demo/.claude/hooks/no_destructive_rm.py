"""A Claude Code command hook: refuse `rm` with -r or -f. Reads the PreToolUse input on stdin
and answers with Claude Code's JSON (permissionDecision deny) on stdout."""

import json
import sys

call = json.load(sys.stdin)
command = call.get("tool_input", {}).get("command", "")
flags = [word for word in command.split() if word.startswith("-")]
if any("r" in flag or "f" in flag for flag in flags):
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"recursive or forced rm is not allowed here: {command!r}",
        }
    }
    print(json.dumps(answer))
