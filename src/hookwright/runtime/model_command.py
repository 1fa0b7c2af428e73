"""``/model NAME``: switch the session's model, as Claude Code's ``/model`` does.

A prompt that is ``/model NAME`` is a command of its own, not sent to any model and not a
UserPromptSubmit (measured with ``claude -p "/model claude-sonnet-5"``, 2.1.332). Under a
Claude Code profile with the events, PreModelSwitch decides first (`HookSession.
before_model_switch`): deny keeps the model; ask switches only once the person at the
terminal confirms (without one, it is refused as Claude Code refuses it); then PostModelSwitch
gives context that reaches the new model with its next request. The answers are Claude Code's
words, the model named as the profile's version names it (``Sonnet 5.5``; a model it does not
know by its id).

The command and its answer are recorded in the conversation as Claude Code records them, so
the model reads them before the next prompt: the version's caveat, the command in
``<command-name>`` tags and the answer in ``<local-command-stdout>`` (`record_local_command`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from hookwright.host.switches import switch_payload

if TYPE_CHECKING:
    from hookwright.runtime.agent import Agent

#: ``/model`` alone, or with one model name (a ``--model`` spec such as ``scripted:b.json``).
MODEL_COMMAND: Final = re.compile(r"/model(?:[ \t]+(\S+))?[ \t]*")


#: How Claude Code writes a local command into the conversation (the same in every version
#: measured): its name, then its message and arguments on lines indented by 12 spaces.
COMMAND_TAGS: Final = (
    "<command-name>/{name}</command-name>\n"
    "            <command-message>{name}</command-message>\n"
    "            <command-args>{args}</command-args>"
)
#: ``/model`` alone: what follows the current model (Claude Code lists its own aliases here).
MODEL_USAGE: Final = "Usage: /model <name>. Available: sonnet, opus, haiku, or a full model ID."


async def switch_model(agent: Agent, requested: str, source: str = "command") -> str:
    """Switch `agent` to `requested` unless a hook refuses; the line Claude Code prints."""
    from_name = agent.model_name
    profile = agent.hooks.claude_code
    model, to_name = agent.models.resolve(agent.model, profile.model_named(requested))
    tokens = agent.context_tokens
    cost = profile.cache_write(to_name, tokens)
    fields = switch_payload(from_name, to_name, requested, source, tokens, cost)
    decision = await agent.hooks.before_model_switch(**fields)
    shown = profile.display_name(to_name)
    refused = f"Model switch to {shown} was blocked by a PreModelSwitch hook"
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
    return profile.model_set.format(model=shown)


async def model_command(agent: Agent, argument: str | None) -> str:
    """The answer to ``/model [NAME]`` (the current model, or the switch), recorded in the
    conversation with the command."""
    profile = agent.hooks.claude_code
    if argument is None:
        current = profile.model_current.format(model=profile.display_name(agent.model_name))
        text = f"{current}\n{MODEL_USAGE}"
    else:
        text = await switch_model(agent, argument)
    record_local_command(agent, "model", argument or "", text)
    return text


def record_local_command(agent: Agent, name: str, args: str, output: str) -> None:
    """The three user texts Claude Code records for a local command: its caveat (worded per
    version), the command, and its output."""
    caveat = agent.hooks.claude_code.local_command_caveat
    texts = (
        f"<local-command-caveat>{caveat}</local-command-caveat>",
        COMMAND_TAGS.format(name=name, args=args),
        f"<local-command-stdout>{output}</local-command-stdout>",
    )
    for text in texts:
        agent.record({"role": "user", "content": text})


def _with_reason(text: str, reason: str | None) -> str:
    return f"{text}: {reason}" if reason else text


async def _confirmed(agent: Agent, to_name: str, reason: str | None) -> bool:
    if agent.ask_user is None:
        return False
    question = _with_reason(f"Switch the model to {to_name}?", reason)
    return await agent.ask_user("/model", question, {"model": to_name})
