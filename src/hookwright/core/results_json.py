"""The JSON shape of a verdict that `hookwright hooks test` prints (`Verdict.to_json`).

Apart from `results` so that printing the verdict of a dispatch that ran no hook needs none of
the result types (the command line's fast path prints it without building an engine)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

#: A JSON value as hooks exchange it (a replaced tool output or model response, a patch, a
#: dialect's chain state). Read-only containers, so a `dict[str, str]` or `list[str]` is one.
JsonValue: TypeAlias = (
    "str | int | float | bool | Sequence[JsonValue] | Mapping[str, JsonValue] | None"
)


def verdict_to_json(
    event: str,
    *,
    decision: str | None = None,
    reason: str | None = None,
    continue_: bool = True,
    stop_reason: str | None = None,
    updated_input: Any = None,
    updated_output: JsonValue = None,
    respond: Mapping[str, Any] | None = None,
    additional_context: Iterable[str] = (),
    system_messages: Iterable[str] = (),
    abort: Any = None,
    hooks: Iterable[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The verdict's fields in print order; the defaults are those of a verdict no hook
    changed."""
    return {
        "event": event,
        "decision": decision,
        "reason": reason,
        "continue": continue_,
        "stop_reason": stop_reason,
        "updated_input": updated_input,
        "updated_output": updated_output,
        "respond": respond,
        "additional_context": list(additional_context),
        "system_messages": list(system_messages),
        "abort": abort,
        "hooks": list(hooks),
    }
