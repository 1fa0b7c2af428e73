"""``/model NAME``: switch the session's model, as Claude Code's ``/model`` does.

A prompt that is ``/model NAME`` is a command of its own, not sent to any model and not a
UserPromptSubmit (measured with ``claude -p "/model claude-sonnet-5"``, 2.1.332). Under a
Claude Code profile with the events, PreModelSwitch decides first (`HookSession.
before_model_switch`): deny keeps the model; ask switches only once the person at the
terminal confirms (without one, it is refused as Claude Code refuses it); then PostModelSwitch
gives context that reaches the new model with its next request. The answers are Claude Code's
words, the model named by its id (Claude Code shows a display name such as ``Sonnet 5``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from hookwright.host.switches import switch_payload

if TYPE_CHECKING:
    from hookwright.runtime.agent import Agent

#: ``/model`` alone, or with one model name (a ``--model`` spec such as ``scripted:b.json``).
MODEL_COMMAND: Final = re.compile(r"/model(?:[ \t]+(\S+))?[ \t]*")


async def switch_model(agent: Agent, requested: str, source: str = "command") -> str:
    """Switch `agent` to `requested` unless a hook refuses; the line Claude Code prints."""
    from_name = agent.model_name
    model, to_name = agent.models.resolve(agent.model, requested)
    fields = switch_payload(from_name, to_name, requested, source, agent.context_tokens)
    decision = await agent.hooks.before_model_switch(**fields)
    refused = f"Model switch to {to_name} was blocked by a PreModelSwitch hook"
    if decision.refused:
        return _with_reason(refused, decision.reason)
    if decision.action == "ask" and not await _confirmed(agent, to_name, decision.reason):
        text = _with_reason(refused, decision.reason)
        return (
            text if agent.ask_user is not None else f"{text} (run /model interactively to confirm)"
        )
    agent.use_model(model, to_name)
    agent.queue_context(await agent.hooks.after_model_switch(**fields))
    agent.emit("model_switch", from_model=from_name, to_model=to_name, source=source)
    return f"Set model to `{to_name}` for this session only"


async def model_command(agent: Agent, argument: str | None) -> str:
    """The answer to ``/model [NAME]``: the current model, or the switch."""
    if argument is None:
        return f"Current model: `{agent.model_name}`"
    return await switch_model(agent, argument)


def _with_reason(text: str, reason: str | None) -> str:
    return f"{text}: {reason}" if reason else text


async def _confirmed(agent: Agent, to_name: str, reason: str | None) -> bool:
    if agent.ask_user is None:
        return False
    question = _with_reason(f"Switch the model to {to_name}?", reason)
    return await agent.ask_user("/model", question, {"model": to_name})
