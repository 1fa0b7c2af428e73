"""A project whose only hooks are Python hooks (`.hookwright/hooks.yaml`), for the adapters'
own cases: each hook appends its event and tool_use_id to `<root>/runs.jsonl`, then answers
with the expression given for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from hookwright.config.trust import TrustPolicy

MODULE = """\
import json
from hookwright import add_context, ask, block, deny, respond, stop

def run(inp, answer):
    with open(__LOG__, "a") as log:
        log.write(json.dumps([inp.hook_event_name, inp.payload.get("tool_use_id")]) + "\\n")
    return answer
"""

#: A PreModelCall hook whose context says what it read of the request.
MODEL_CALL_NOTE = (
    "add_context(f\"{len(inp.payload['messages'])} messages, {inp.payload['model']}\")"
)


def native_project(root: Path, hooks: dict[str, str]) -> Path:
    """`hooks`: event name -> a Python expression for the answer (e.g. ``ask('why')``)."""
    folder = root / ".hookwright"
    folder.mkdir(parents=True)
    lines = [MODULE.replace("__LOG__", repr(str(root / "runs.jsonl")))]
    entries = []
    for index, (event, answer) in enumerate(hooks.items()):
        lines.append(f"def hook_{index}(inp):\n    return run(inp, {answer})\n")
        entries.append({"name": f"h{index}", "event": event, "call": f"native_hooks:hook_{index}"})
    (folder / "native_hooks.py").write_text("\n".join(lines))
    (folder / "hooks.yaml").write_text(yaml.safe_dump({"hooks": entries}))
    return root


def runs(root: Path) -> list[tuple[str, str | None]]:
    path = root / "runs.jsonl"
    if not path.exists():
        return []
    return [tuple(json.loads(line)) for line in path.read_text().splitlines()]  # type: ignore[misc]


def options(root: Path, **extra: Any) -> dict[str, Any]:
    return {
        "home": root / "home",
        "trust": TrustPolicy(everything=True),
        "audit_path": root / "audit.jsonl",
        **extra,
    }
