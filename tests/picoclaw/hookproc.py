"""A scriptable PicoClaw hook process for tests: JSON-RPC 2.0 over stdio, one message per line.

Run as ``python hookproc.py``. Behaviour comes from the JSON in ``HOOKPROC_SPEC``; every
message received (and a few lifecycle records with an ``_event`` key) is appended to the JSONL
file named by ``HOOKPROC_LOG``.

Spec keys:
  hello        rule for hook.hello (default: answer {"ok": true})
  methods      {method: [rule, ...]}: the first rule whose `when` matches and whose `times`
               is not used up answers; with none, hook.* methods get {} and others
               -32601 "method not found" (the upstream test helper's behaviour)
  on_eof       "exit" (default) or "ignore" (keep running after stdin closes)
  ignore_sigterm  true to ignore SIGTERM
  stderr       lines written to stderr at start
  spawn_child  true to start a sleeping child in our process group (its pid is logged)

Rule keys (all optional):
  when     {dotted.path: value} matched against params
  times    how many requests this rule answers
  delay    seconds to sleep before answering
  before   raw lines written to stdout before the answer
  garbage  number of non-JSON lines written before the answer
  big_line size of one oversized line (of "x") written before the answer
  exit     exit with this code instead of answering
  noreply  true: never answer
  id       id to answer with instead of the request's; drop_id: true omits it
  error    JSON-RPC error object to answer with
  result   literal result
  echo     {"action", "wrap", "reason", "set", "append", "prefix", "push"}: answer
           {"action": action, wrap: params edited by dotted path}
  envelope members added to the reply (e.g. {"method": null})
  rename   {key: new key} renames members of the reply (e.g. {"result": "Result"})
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

SPEC: dict[str, Any] = json.loads(os.environ.get("HOOKPROC_SPEC") or "{}")
LOG_PATH = os.environ.get("HOOKPROC_LOG")
write_lock = threading.Lock()
log_lock = threading.Lock()
uses: dict[int, int] = {}


def record(entry: dict[str, Any]) -> None:
    if not LOG_PATH:
        return
    with log_lock, open(LOG_PATH, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")


def send_raw(data: bytes) -> None:
    with write_lock:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def send(message: dict[str, Any]) -> None:
    send_raw(json.dumps(message).encode() + b"\n")


def lookup(data: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def parent_of(data: dict[str, Any], path: str) -> tuple[dict[str, Any], str]:
    *parents, last = path.split(".")
    for part in parents:
        data = data.setdefault(part, {})
    return data, last


def edit(params: dict[str, Any], echo: dict[str, Any]) -> dict[str, Any]:
    value = copy.deepcopy(params)
    for path, new in echo.get("set", {}).items():
        parent, key = parent_of(value, path)
        parent[key] = new
    for path, suffix in echo.get("append", {}).items():
        parent, key = parent_of(value, path)
        parent[key] = str(parent.get(key, "")) + suffix
    for path, prefix in echo.get("prefix", {}).items():
        parent, key = parent_of(value, path)
        parent[key] = prefix + str(parent.get(key, ""))
    for path, item in echo.get("push", {}).items():
        parent, key = parent_of(value, path)
        parent.setdefault(key, []).append(item)
    return value


def choose(method: str, params: Any) -> dict[str, Any] | None:
    rules = [SPEC["hello"]] if method == "hook.hello" and "hello" in SPEC else None
    rules = rules or SPEC.get("methods", {}).get(method, [])
    for rule in rules:
        when = rule.get("when", {})
        if any(lookup(params, path) != value for path, value in when.items()):
            continue
        if "times" in rule:
            used = uses.get(id(rule), 0)
            if used >= rule["times"]:
                continue
            uses[id(rule)] = used + 1
        chosen: dict[str, Any] = rule
        return chosen
    return None


def answer(message: dict[str, Any], rule: dict[str, Any] | None) -> None:
    method = message.get("method", "")
    params = message.get("params")
    if rule is None:
        if method == "hook.hello":
            rule = {"result": {"ok": True}}
        elif method.startswith("hook."):
            rule = {"result": {}}
        else:
            rule = {"error": {"code": -32601, "message": "method not found"}}
    if rule.get("delay"):
        time.sleep(rule["delay"])
    for line in rule.get("before", []):
        send_raw(line.encode() + b"\n")
    for index in range(rule.get("garbage", 0)):
        send_raw(f"garbage line {index} {{not json".encode() + b"\n")
    if rule.get("big_line"):
        send_raw(b"x" * rule["big_line"] + b"\n")
    if "exit" in rule:
        record({"_event": "exit", "code": rule["exit"]})
        os._exit(rule["exit"])
    if rule.get("noreply"):
        return
    reply: dict[str, Any] = {"jsonrpc": "2.0"}
    if not rule.get("drop_id"):
        reply["id"] = rule.get("id", message.get("id"))
    if "error" in rule:
        reply["error"] = rule["error"]
    elif "echo" in rule:
        echo = rule["echo"]
        result: dict[str, Any] = {"action": echo.get("action", "modify")}
        if echo.get("reason"):
            result["reason"] = echo["reason"]
        if echo.get("wrap"):
            result[echo["wrap"]] = edit(params or {}, echo)
        reply["result"] = result
    else:
        reply["result"] = rule.get("result")
    reply.update(rule.get("envelope", {}))
    for key, new in rule.get("rename", {}).items():
        reply[new] = reply.pop(key)
    send(reply)


def main() -> None:
    if SPEC.get("ignore_sigterm"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    start: dict[str, Any] = {"_event": "start", "pid": os.getpid(), "cwd": os.getcwd()}
    start["env"] = {k: v for k, v in os.environ.items() if k.startswith("HOOKPROC_X")}
    if SPEC.get("spawn_child"):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        start["child_pid"] = child.pid
    record(start)
    for line in SPEC.get("stderr", []):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            record({"_event": "bad_input", "raw": raw.decode("utf-8", "replace")})
            continue
        record(message)
        if "id" in message and "method" in message:
            rule = choose(message["method"], message.get("params"))
            threading.Thread(target=answer, args=(message, rule), daemon=True).start()
    record({"_event": "eof"})
    if SPEC.get("on_eof") == "ignore":
        while True:
            time.sleep(60)


if __name__ == "__main__":
    main()
