"""What one loaded hook knows about itself at run time: name, event, capabilities, secrets."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hookwright.core.events import Event
from hookwright.core.words import counted


class SecretValues(frozenset[str]):
    """Resolved secret values. Printing it never shows them; JSON encoding fails rather than
    leak them."""

    def __repr__(self) -> str:
        return f"<{counted(len(self), 'secret value')}>"

    __str__ = __repr__


@dataclass(slots=True, frozen=True)
class HookBinding:
    name: str
    #: The OpenHarness event name the hook was declared for (sent as `hook_event_name`).
    oh_event: str
    event: Event
    handler_type: str
    capabilities: frozenset[str]
    workspace_root: Path
    file: str
    secrets: SecretValues = field(default_factory=SecretValues)
    #: The handler asked for the tool call's canonical actions (``actions: true``).
    actions: bool = False

    def redact(self, text: str) -> str:
        return redact_all(text, self.secrets)


def redact_all(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text
