"""Compare one dispatch's verdict with a table row's expectations."""

from __future__ import annotations

import dataclasses
from typing import Any

from hookwright import Verdict

TOOL: dict[str, Any] = {
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf build"},
    "tool_use_id": "toolu_1",
}


def check(verdict: Verdict, expected: dict[str, Any]) -> None:
    """Keys: decision, reason, reason_has, status, error_has, context, messages, continue_,
    stop_reason, effects, updated_input, updated_output, abort."""
    result = verdict.results[0] if verdict.results else None
    for key, want in expected.items():
        got: Any
        if key == "decision":
            got = verdict.decision.value if verdict.decision else None
        elif key == "reason":
            got = verdict.reason
        elif key == "reason_has":
            assert verdict.reason is not None and want in verdict.reason, verdict.reason
            continue
        elif key == "status":
            assert result is not None
            got = result.status.value
        elif key == "error_has":
            assert result is not None and result.error is not None, result
            assert want in result.error, result.error
            continue
        elif key == "context":
            got = list(verdict.additional_context)
        elif key == "messages":
            got = list(verdict.system_messages)
        elif key == "continue_":
            got = verdict.continue_
        elif key == "stop_reason":
            got = verdict.stop_reason
        elif key == "effects":
            got = {k: _plain(getattr(verdict.effects, k)) for k in want}
        elif key == "updated_input":
            got = verdict.updated_input
        elif key == "updated_output":
            got = verdict.updated_output
        elif key == "abort":
            got = verdict.abort
        else:
            raise KeyError(key)
        assert got == want, f"{key}: {got!r} != {want!r}"


def _plain(value: Any) -> Any:
    """An effect as plain data: tuples as lists, records as dicts."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    return value
