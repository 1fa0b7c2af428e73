"""How each `hookSpecificOutput.patch.<scope>` changes the value it targets (spec §5).

None of this is RFC 7396 JSON Merge Patch: `null` never deletes a key.

* `tool_input` / `tool_output`: when the current value and the patch are both objects, a
  shallow merge `{...current, ...patch}`; otherwise the patch replaces the value.
* `model_request`: a whitelist. `model_ref` or `model` (string) switches the model, `temperature`,
  `topP` / `top_p` and `maxTokens` (numbers) set options, `messages` (array) replaces the list
  (entries that are not `{role: str, ...}` objects are dropped). Other keys are ignored.
* `model_response`: only `text` and `finishReason` (strings).
* `context`: `messages` (array) replaces the list; a key where both sides are objects is
  merged recursively; anything else replaces.

* notes (`systemMessage`, `additionalContext`) appended to a value: an object gets them in a
  `hookNotes` list, anything else becomes text with each note after a blank line.

Each function returns the new value, or raises :class:`PatchError` when the patch cannot apply.
"""

from __future__ import annotations

import json
from typing import Any


class PatchError(ValueError):
    """A patch of the wrong shape for its scope."""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def shallow(current: Any, patch: Any) -> Any:
    if isinstance(current, dict) and isinstance(patch, dict):
        return {**current, **patch}
    return patch


def tool_input(current: Any, patch: Any) -> dict[str, Any]:
    """A tool input stays an object: a non-object patch is refused rather than handing the tool
    a string (the real project would replace it)."""
    merged = shallow(current if isinstance(current, dict) else {}, patch)
    if not isinstance(merged, dict):
        raise PatchError(f"tool_input patch must be an object, got {type(patch).__name__}")
    return merged


def tool_output(current: Any, patch: Any) -> Any:
    if patch is None:
        raise PatchError("tool_output patch null cannot replace a tool result")
    return shallow(current, patch)


def with_notes(value: Any, notes: list[str]) -> Any:
    if isinstance(value, dict):
        existing = value.get("hookNotes")
        return {**value, "hookNotes": [*(existing if isinstance(existing, list) else []), *notes]}
    if value is None or value == "":
        return "\n\n".join(notes)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return "\n\n".join([text, *notes])


def messages(value: list[Any]) -> list[dict[str, Any]]:
    return [m for m in value if isinstance(m, dict) and isinstance(m.get("role"), str)]


def model_request(payload: dict[str, Any], patch: Any) -> tuple[dict[str, Any], list[str]]:
    """The canonical request fields the patch replaces (`model`, `options`, `messages`) and
    the patch keys that were ignored."""
    if not isinstance(patch, dict):
        raise PatchError(f"model_request patch must be an object, got {type(patch).__name__}")
    updated: dict[str, Any] = {}
    ignored: list[str] = []
    model = patch.get("model_ref", patch.get("model"))
    if isinstance(model, str) and model:
        updated["model"] = model
    current = payload.get("options")
    options: dict[str, Any] = dict(current) if isinstance(current, dict) else {}
    changed = False
    for key, value in patch.items():
        if key in ("model_ref", "model"):
            if not (isinstance(value, str) and value):
                ignored.append(key)
        elif key == "temperature" and _number(value):
            options["temperature"] = value
            changed = True
        elif key in ("topP", "top_p") and _number(value):
            options.pop("topP", None)
            options["top_p"] = value
            changed = True
        elif key == "maxTokens" and _number(value):
            options.pop("maxTokens", None)
            options["max_tokens"] = value
            changed = True
        elif key == "messages" and isinstance(value, list):
            updated["messages"] = messages(value)
        else:
            ignored.append(key)
    if changed:
        updated["options"] = options
    return updated, ignored


def model_response(current: Any, patch: Any) -> tuple[dict[str, Any], list[str]]:
    """The canonical response (`{content, finish_reason, ...}`) after the patch, and the
    ignored patch keys."""
    if not isinstance(patch, dict):
        raise PatchError(f"model_response patch must be an object, got {type(patch).__name__}")
    response: dict[str, Any] = dict(current) if isinstance(current, dict) else {}
    ignored: list[str] = []
    for key, value in patch.items():
        if key == "text" and isinstance(value, str):
            response["content"] = value
        elif key == "finishReason" and isinstance(value, str):
            response["finish_reason"] = value
        else:
            ignored.append(key)
    return response, ignored


def _deep(current: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    merged = dict(current)
    for key, value in patch.items():
        existing = merged.get(key)
        if isinstance(existing, dict) and isinstance(value, dict):
            merged[key] = _deep(existing, value)
        else:
            merged[key] = value
    return merged


def context(current: dict[str, Any], patch: Any) -> dict[str, Any]:
    if not isinstance(patch, dict):
        raise PatchError(f"context patch must be an object, got {type(patch).__name__}")
    merged = _deep(current, {k: v for k, v in patch.items() if k != "messages"})
    new_messages = patch.get("messages")
    if isinstance(new_messages, list):
        merged["messages"] = messages(new_messages)
    elif "messages" in patch:
        raise PatchError("context patch `messages` must be an array")
    return merged
