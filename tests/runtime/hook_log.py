"""Claude Code command hooks that append what they read on stdin to `$HOOK_LOG`, for the tests
that check the exact input a hook received through a real run."""

from __future__ import annotations

#: Appends its stdin to `$HOOK_LOG` byte for byte.
LOG_HOOK = """\
import os, sys
with open(os.environ["HOOK_LOG"], "a") as log:
    log.write(sys.stdin.read())
"""

#: Appends its stdin to `$HOOK_LOG` as one line, and answers as `$ANSWERS` (event -> the
#: `hookSpecificOutput` fields) says for its event; no answer when `$ANSWERS` does not name it.
ANSWERING_LOG_HOOK = """\
import json, os, sys
data = sys.stdin.read()
with open(os.environ["HOOK_LOG"], "a") as log:
    log.write(data.strip() + "\\n")
event = json.loads(data)["hook_event_name"]
answer = json.loads(os.environ.get("ANSWERS", "{}")).get(event)
if answer is not None:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": event, **answer}}))
"""
