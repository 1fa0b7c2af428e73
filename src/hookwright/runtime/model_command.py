"""``/model NAME``: switch the session's model, as Claude Code's ``/model`` does.

A prompt that is ``/model NAME`` is a command of its own, not sent to any model and not a
UserPromptSubmit (measured with ``claude -p "/model claude-sonnet-5"``, 2.1.332). Under a
Claude Code profile with the events, PreModelSwitch decides first (`HookSession.
before_model_switch`): deny keeps the model; ask switches only once the person at the
terminal confirms (without one, it is refused as Claude Code refuses it); then PostModelSwitch
gives context that reaches the new model with its next request. The answers are Claude Code's
words, the model named as the profile's version names it (``Sonnet 5.5``; a model it does not
know by its id; 2.1.332 adds its note on the context window it assumes for such a model).
One of the version's names for models may have PreModelSwitch asked about more than one model
(2.1.332's ``haiku`` and ``opusplan``), in turn: the first refusal keeps the model, and the
output names the switch by the name's label (``Opus in plan mode, else Sonnet``).

The command and its answer are recorded in the conversation as Claude Code records them, so
the model reads them before the next prompt: the version's caveat, the command in
``<command-name>`` tags and the answer in ``<local-command-stdout>`` (`record_local_command`).
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any, Final

from hookwright.host.switches import switch_payload
from hookwright.runtime.resume_cost import cache_warm

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


async def switch_model(agent: Agent, requested: str, source: str = "command") -> str:
    """Switch `agent` to `requested` unless a hook refuses; the line Claude Code prints."""
    profile = agent.hooks.claude_code
    targets = profile.switch_models(requested, planning=agent.policy.mode == "plan")
    model, to_name = agent.models.resolve(agent.model, targets[0])
    alias = profile.alias(requested)
    fields = _switch_fields(agent, to_name, requested, source)
    shown = alias.label if alias is not None and alias.label else profile.display_name(to_name)
    refused = f"Model switch to {shown} was blocked by a PreModelSwitch hook"
    for target in (to_name, *targets[1:]):
        gate = fields if target == to_name else _switch_fields(agent, target, requested, source)
        decision = await agent.hooks.before_model_switch(**gate)
        if decision.refused:
            return _with_reason(refused, decision.reason)
        if decision.action == "ask" and not await _confirmed(agent, target, decision.reason):
            text = _with_reason(refused, decision.reason)
            interactively = " (run /model interactively to confirm)"
            return text if agent.ask_user is not None else text + interactively
    from_name, same_api = agent.model_name, model is agent.model
    # A name whose model follows the permission mode stays that name, so each request
    # resolves it (`Agent.request_model_name`).
    agent.use_model(model, requested if alias is not None and alias.planning else to_name)
    agent.queue_context(await agent.hooks.after_model_switch(**fields))
    agent.emit("model_switch", from_model=from_name, to_model=to_name, source=source)
    text = profile.model_set.format(model=shown)
    # Only a model id sent to the session's API is Claude Code's to recognize (not a `--model`
    # spec that builds another client, which Claude Code has no way to switch to).
    note = profile.unrecognized(to_name) if same_api else None
    return text if note is None else f"{text}\n{note}"


def _switch_fields(agent: Agent, to_name: str, requested: str, source: str) -> dict[str, Any]:
    """PreModelSwitch's and PostModelSwitch's fields for a switch of `agent` to `to_name`,
    from the model its requests go to now (measured: ``opusplan``'s Opus in plan mode)."""
    profile = agent.hooks.claude_code
    alias = profile.alias(requested)
    tokens = agent.context_tokens
    return switch_payload(
        agent.request_model_name,
        to_name,
        requested if alias is None or alias.requested else None,
        source,
        tokens,
        profile.cache_write(to_name, tokens),
        cache_warm=cache_warm(agent.answered_at, time.time()),
    )


async def model_command(agent: Agent, argument: str | None) -> str:
    """The answer to ``/model [NAME]`` (the current model, or the switch), recorded in the
    conversation with the command."""
    profile = agent.hooks.claude_code
    if argument is None:
        current = profile.model_current.format(model=profile.display_name(agent.model_name))
        text = f"{current}\n{profile.model_usage}"
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
