"""One `FileWrite(<guarded>/**)` rule on a Claude Code command hook blocks every route that
writes there, through the real `hookwright run` with the scripted model: Write, Edit, each shell
form (`sed -i`, `tee`, `>`, `>>`, `cp`, `mv`, `perl -i`, `python -c "open(..., 'w')"`,
`bash -c`, `sh -c`, a heredoc, `env`/`sudo`/`xargs` prefixes, pipelines, `&&`/`;`, `cd`), and
an MCP server's `write_file` (a real server over stdio). The guarded folder stands in for
/etc; after the run it holds exactly what it held before, while a write elsewhere in the same
turn ran."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from cli_runner import run_scripted

SERVER = Path(__file__).with_name("fs_mcp_server.py")
DENY = """\
import json, os, sys
event = json.load(sys.stdin)
with open(os.environ["HOOK_LOG"], "a") as log:
    log.write(json.dumps({"tool_name": event["tool_name"]}) + "\\n")
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "deny", "permissionDecisionReason": "guarded folder"}}))
"""


def shell_routes(etc: Path) -> list[str]:
    return [
        f"sed -i 's/orig/hacked/' {etc}/conf",
        f"echo hacked | tee {etc}/tee.txt",
        f"echo hacked > {etc}/redirect.txt",
        f"echo hacked >> {etc}/conf",
        f"cp source.txt {etc}/copied.txt",
        f"mv source.txt {etc}/",
        f"perl -pi -e 's/orig/hacked/' {etc}/conf",
        f"python3 -c \"open('{etc}/py.txt', 'w').write('hacked')\"",
        f"bash -c 'echo hacked > {etc}/bash_c.txt'",
        f'sh -c "tee {etc}/sh_c.txt < /dev/null"',
        f"cat > {etc}/heredoc.txt <<EOF\nhacked\nEOF",
        f"bash <<'EOF'\necho hacked > {etc}/bash_heredoc.txt\nEOF",
        f"env LANG=C tee {etc}/env.txt < /dev/null",
        f"echo hacked | sudo tee -a {etc}/conf > /dev/null",
        f"ls source.txt | xargs -I{{}} cp {{}} {etc}/",
        f"true && echo hacked > {etc}/and.txt; true",
        f"cd {etc} && echo hacked > cd.txt",
    ]


def make_project(root: Path, etc: Path, turns: list[dict[str, Any]]) -> None:
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "deny.py").write_text(DENY)
    hook = {
        "type": "command",
        "if": f"FileWrite({etc}/**)",
        "command": f"{sys.executable} .claude/deny.py",
    }
    settings = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [hook]}]}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    servers = {"fs": {"command": sys.executable, "args": [str(SERVER)]}}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    (root / "script.yaml").write_text(yaml.safe_dump(turns))
    (root / "source.txt").write_text("source")


def tool_results(home: Path) -> dict[str, dict[str, Any]]:
    [path] = (home / ".hookwright" / "projects").glob("*/*.jsonl")
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    return {
        block["tool_use_id"]: block
        for entry in entries
        if entry.get("type") == "user" and isinstance(entry["message"]["content"], list)
        for block in entry["message"]["content"]
        if block.get("type") == "tool_result"
    }


def test_one_file_write_rule_blocks_every_route(tmp_path: Path, isolated_home: Path) -> None:
    root, etc = tmp_path / "project", tmp_path / "etc"
    etc.mkdir()
    (etc / "conf").write_text("orig\n")
    calls: list[dict[str, Any]] = [
        {"name": "Write", "arguments": {"file_path": f"{etc}/written.txt", "content": "x"}},
        {
            "name": "Edit",
            "arguments": {"file_path": f"{etc}/conf", "old_string": "orig", "new_string": "x"},
        },
        {"name": "mcp__fs__write_file", "arguments": {"path": f"{etc}/mcp.txt", "content": "x"}},
        *({"name": "Bash", "arguments": {"command": c}} for c in shell_routes(etc)),
        {"name": "Bash", "arguments": {"command": "mkdir -p out && echo ok > out/allowed.txt"}},
    ]
    make_project(root, etc, [{"tool_calls": calls}, {"content": "done"}])
    proc = run_scripted(
        root,
        "script.yaml",
        home=isolated_home,
        env={"HOOK_LOG": str(tmp_path / "hooks.jsonl"), "MCP_CALL_LOG": str(tmp_path / "mcp")},
    )
    assert proc.returncode == 0, proc.stderr

    assert sorted(p.name for p in etc.iterdir()) == ["conf"]
    assert (etc / "conf").read_text() == "orig\n"
    assert (root / "source.txt").read_text() == "source"
    assert not (tmp_path / "mcp").exists(), "the MCP server received the call"
    assert (root / "out" / "allowed.txt").read_text() == "ok\n"

    results = tool_results(isolated_home)
    blocked = [f"call_{n}" for n in range(1, len(calls))]
    assert [results[c]["content"] for c in blocked] == ["guarded folder"] * len(blocked)
    assert results[f"call_{len(calls)}"].get("is_error") is not True
    hooked = [json.loads(line)["tool_name"] for line in (tmp_path / "hooks.jsonl").open()]
    assert sorted(hooked) == sorted(call["name"] for call in calls[:-1])
