"""Chat messages (OpenAI format) as hosts and dialects place hook notes in them.

Hook notes (OpenHarness `systemMessage` / `additionalContext`, a native hook's context) go into
the model input as system messages right after the leading system messages, and the leading
system messages are then sent as one, their texts joined by a blank line (as the real
OpenHarness engine sends them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

Message: TypeAlias = "dict[str, Any]"


def split_leading_system(
    messages: Sequence[Mapping[str, Any]],
) -> tuple[list[Message], list[Message]]:
    """The leading system messages (the system prompt) and the history after them."""
    items = [dict(m) for m in messages]
    index = 0
    while index < len(items) and items[index].get("role") == "system":
        index += 1
    return items[:index], items[index:]


def collapse_leading_system(messages: Sequence[Mapping[str, Any]]) -> list[Message]:
    """The leading system messages as one message, their texts joined by a blank line."""
    system, history = split_leading_system(messages)
    if len(system) <= 1:
        return [*system, *history]
    text = "\n\n".join(text_of(m.get("content")) for m in system)
    return [{"role": "system", "content": text}, *history]


def insert_system_notes(
    messages: Sequence[Mapping[str, Any]], notes: Sequence[str]
) -> list[Message]:
    """`notes` as system messages after the leading system messages, which are then one."""
    system, history = split_leading_system(messages)
    extra: list[Message] = [{"role": "system", "content": note} for note in notes]
    return collapse_leading_system([*system, *extra, *history])


def text_of(content: Any) -> str:
    """A message's text: a string, or the text parts of a content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)
