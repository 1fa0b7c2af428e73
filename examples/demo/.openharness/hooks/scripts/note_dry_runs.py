"""An OpenHarness command hook: after a Bash call whose output says "dry run", add a note to the
tool output the model reads. The envelope arrives on stdin; the unified output goes to stdout."""

import json
import sys

envelope = json.load(sys.stdin)
output = json.dumps(envelope.get("tool_output"))
answer = {"continue": True}
if "dry run" in output:
    answer["systemMessage"] = "Note from OpenHarness: that was a dry run; nothing was pushed."
print(json.dumps(answer))
