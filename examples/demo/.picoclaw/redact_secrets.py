"""A PicoClaw hook process (JSON-RPC 2.0, one message a line on stdin/stdout): every tool result
is searched for `NAME_TOKEN=value` and the value replaced before the model sees it."""

import json
import re
import sys

SECRET = re.compile(r"\b([A-Z][A-Z0-9_]*_(?:TOKEN|KEY|SECRET))=\S+")


def after_tool(params):
    result = params.get("result") or {}
    text = result.get("for_llm") or ""
    redacted = SECRET.sub(r"\1=[redacted by the PicoClaw hook]", text)
    if redacted == text:
        return {"action": "continue"}
    return {"action": "modify", "result": {**params, "result": {**result, "for_llm": redacted}}}


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message["method"]
    if method == "hook.hello":
        result = {"ok": True, "name": "redact-secrets"}
    elif method == "hook.after_tool":
        result = after_tool(message.get("params") or {})
    else:
        result = {"action": "continue"}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
