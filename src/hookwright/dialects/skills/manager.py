"""`HookManager`: inserts skill hook messages into one request's message list and pulls them out.

The backend keeps no state between requests: a manager lives for one request and works on that
request's ``full_messages`` list in place. Everything it removes is removed by identity, so a
message with the same text that the client sent back in its history is never touched.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from hookwright.dialects.skills.config import ROLES, TIMINGS, HookInfo

__all__ = ["HookManager", "check_timing"]

Message = dict[str, Any]


class Prompt(Protocol):
    """What an injection needs of a hook: a `HookInfo`, or a `PromptInjection` from an engine
    dispatch."""

    @property
    def name(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def persistent(self) -> bool: ...


def check_timing(timing: str) -> None:
    """Raise `ValueError` naming the valid timings when ``timing`` is not one of them."""
    if timing not in TIMINGS:
        raise ValueError(f"unknown timing {timing!r}; expected one of: {', '.join(TIMINGS)}")


class HookManager:
    """Injects hook messages at a checkpoint and removes the non-persistent ones later.

    - `inject` appends one ``{"role", "content"}`` message per matching hook, in hook order, and
      never de-duplicates: every trigger injects again. It returns the persistent ones as
      ``{"name", "role", "content"}`` for the caller to hand to the client.
    - `remove` takes out every message injected by a non-persistent hook of that timing since the
      last `remove` of it. Persistent hook messages stay in the list and in the record.
    - `inject_prompt` / `remove_prompt` handle the host's built-in step prompts by reference,
      independently of the hooks.
    """

    def __init__(self, full_messages: list[Message], hooks: Sequence[HookInfo]) -> None:
        for hook in hooks:
            check_timing(hook.timing)
            if hook.role not in ROLES:
                raise ValueError(
                    f"hook {hook.name!r} of skill {hook.skill!r} has unknown role "
                    f"{hook.role!r}; expected one of: {', '.join(ROLES)}"
                )
        self.full_messages = full_messages
        self.hooks: tuple[HookInfo, ...] = tuple(hooks)
        self._injected: dict[str, list[tuple[Prompt, Message]]] = {t: [] for t in TIMINGS}

    def inject(self, timing: str, **kwargs: Any) -> list[dict[str, str]]:
        """Append the messages of the hooks of ``timing`` that match.

        The only keyword understood is ``tool_name`` (for ``after_tool_call``: a hook with a
        ``tool_filter`` matches only when ``tool_name`` is in it; without a filter it matches every
        tool). Any other keyword raises `TypeError` rather than being silently ignored.
        """
        check_timing(timing)
        unknown = set(kwargs) - {"tool_name"}
        if unknown:
            raise TypeError(f"inject() got unexpected keyword(s): {', '.join(sorted(unknown))}")
        tool_name = kwargs.get("tool_name")
        matching = [h for h in self.hooks if h.timing == timing and _matches(h, tool_name)]
        return self.inject_hooks(timing, matching)

    def inject_hooks(self, timing: str, hooks: Iterable[Prompt]) -> list[dict[str, str]]:
        """Append the messages of exactly `hooks` (a host that selected them itself, e.g. an
        engine dispatch), recorded under `timing`; returns the persistent ones as `inject`
        does."""
        check_timing(timing)
        persistent: list[dict[str, str]] = []
        for hook in hooks:
            message: Message = {"role": hook.role, "content": hook.content}
            self.full_messages.append(message)
            self._injected[timing].append((hook, message))
            if hook.persistent:
                persistent.append({"name": hook.name, "role": hook.role, "content": hook.content})
        return persistent

    def remove(self, timing: str) -> None:
        """Remove the messages non-persistent hooks of ``timing`` injected; keep persistent ones."""
        check_timing(timing)
        records = self._injected[timing]
        dropped = [message for hook, message in records if not hook.persistent]
        self._injected[timing] = [(hook, message) for hook, message in records if hook.persistent]
        _drop_by_identity(self.full_messages, dropped)

    def injected(self, timing: str) -> list[Message]:
        """Messages of ``timing`` still recorded: live non-persistent ones and persistent ones."""
        check_timing(timing)
        return [message for _, message in self._injected[timing]]

    def inject_prompt(self, content: str, role: str = "system") -> Message:
        """Append a built-in prompt; the returned message is the handle for `remove_prompt`."""
        message: Message = {"role": role, "content": content}
        self.full_messages.append(message)
        return message

    def remove_prompt(self, msg_ref: Message) -> None:
        """Remove exactly ``msg_ref`` (by identity); a no-op if it is no longer in the list."""
        _drop_by_identity(self.full_messages, (msg_ref,))


def _matches(hook: HookInfo, tool_name: object) -> bool:
    if hook.timing != "after_tool_call" or hook.tool_filter is None:
        return True
    return isinstance(tool_name, str) and tool_name in hook.tool_filter


def _drop_by_identity(messages: list[Message], targets: Iterable[Message]) -> None:
    # The targets are referenced by the caller for the whole call, so their ids cannot be reused.
    ids = {id(target) for target in targets}
    if ids:
        messages[:] = [message for message in messages if id(message) not in ids]
