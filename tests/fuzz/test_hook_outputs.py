"""Fuzz of what hooks answer: Claude Code command stdout/stderr/exit codes and HTTP responses
for every event, async declarations, prompt-hook replies, and OpenHarness unified output for
every event and capability set. Each answer becomes a `HookResult` (or, for OpenHarness's
parser, its own `OutputError`), never another exception, within the deadline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from hookwright.core.events import CLAUDE_CODE_EVENTS, Event, HookInput
from hookwright.core.results import HookResult
from hookwright.dialects.claude_code.codec import (
    EXIT_RULES,
    async_timeout,
    decode_async,
    decode_command,
    decode_http,
    is_async_declaration,
)
from hookwright.dialects.claude_code.command import missing_script
from hookwright.dialects.claude_code.prompt import decode_prompt_reply
from hookwright.dialects.openharness.binding import HookBinding
from hookwright.dialects.openharness.capabilities import SCOPE_CAPABILITY, SUPPRESS_OUTPUT
from hookwright.dialects.openharness.envelope import build_envelope
from hookwright.dialects.openharness.events import OH_NAME
from hookwright.dialects.openharness.output import OutputError, parse_output, to_result

from .budget import budget
from .strategies import ANY_TEXT, SCALARS, TEXTS, documents, long_texts

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}]

#: A payload with the fields any event's decoding reads; `tool_input` and the tool's and
#: model's answers vary (tools and models return anything), the host's own fields do not.
PAYLOAD = {
    "tool_name": "Bash",
    "tool_use_id": "toolu_1",
    "source": "policy_settings",
    "stop_hook_active": False,
    "model": "m",
    "model_ref": "platform/m",
    "messages": MESSAGES,
    "tools": [],
    "options": {"temperature": 0.2},
    "iteration": 0,
    "trigger_type": "message",
    "run_status": "completed",
    "last_assistant_message": "done",
}


#: Tool inputs and outputs as tools and models produce them: anything JSON can hold.
TOOL_VALUES = [
    {"command": "git push origin main"},
    {"command": "\x00" * 3 + "é" * 50_000},
    {"path": ["not", "a", "string"], "x": None},
    {"command": {"nested": [[[[1]]]]}},
    {},
]


@st.composite
def inputs(draw: st.DrawFn, events: list[Event]) -> HookInput:
    payload: dict[str, Any] = {
        **PAYLOAD,
        "tool_input": draw(st.sampled_from(TOOL_VALUES)),
        "tool_response": draw(st.sampled_from(TOOL_VALUES) | SCALARS),
        "response": {"content": draw(ANY_TEXT), "tool_calls": [], "finish_reason": "stop"},
    }
    return HookInput(draw(st.sampled_from(events)), session_id="s1", turn_id="t1", payload=payload)


CLAUDE_INPUTS = inputs(list(CLAUDE_CODE_EVENTS))


@st.composite
def answered(draw: st.DrawFn) -> tuple[HookInput, str]:
    """A Claude Code input and a hook's stdout for its event."""
    inp = draw(CLAUDE_INPUTS)
    return inp, draw(STDOUT_PREFIXES) + draw(CLAUDE_STDOUT[inp.event])


def claude_output(event: Event) -> dict[str, Any]:
    """An answer with every top-level field and every event-specific one (unknown ones are
    dropped by the schema)."""
    return {
        "continue": True,
        "stopReason": "stop",
        "suppressOutput": False,
        "decision": "block",
        "reason": "because",
        "systemMessage": "note",
        "terminalSequence": "\x1b]0;title\x07",
        "hookSpecificOutput": {
            "hookEventName": event.value,
            "additionalContext": "context",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
            "updatedInput": {"command": "ls"},
            "decision": {
                "behavior": "allow",
                "updatedInput": {"command": "ls"},
                "updatedPermissions": [{"type": "addRules"}],
                "message": "m",
                "interrupt": False,
            },
            "retry": True,
            "updatedToolOutput": "out",
            "classifierContext": "c",
            "initialUserMessage": "hi",
            "sessionTitle": "t",
            "watchPaths": ["a.txt"],
            "reloadSkills": True,
            "suppressOriginalPrompt": False,
            "displayContent": "d",
            "action": "accept",
            "content": {"k": 1},
            "worktreePath": "/tmp/w",
        },
    }


CLAUDE_STDOUT = {event: documents(claude_output(event)) for event in CLAUDE_CODE_EVENTS}
STDOUT_PREFIXES = st.sampled_from(["", " \n", "log line\n", '{"async": true}\n'])


STDERR = st.one_of(
    TEXTS,
    long_texts(),
    st.builds(
        "python3: can't open file '{}{}': [Errno 2] No such file or directory".format,
        st.sampled_from(["/x/", "'", "./", ""]),
        long_texts(),
    ),
)
EXIT_CODES = st.sampled_from([0, 1, 2, 127, 137]) | st.integers(min_value=-300, max_value=300)


@budget(1.5)
@given(
    answered(),
    STDERR,
    EXIT_CODES,
    st.sampled_from(EXIT_RULES),
    TEXTS,
)
def test_a_command_hooks_output_is_a_result(
    answer: tuple[HookInput, str], stderr: str, exit_code: int, rules: Any, label: str
) -> None:
    inp, stdout = answer
    result = decode_command(
        inp, exit_code=exit_code, stdout=stdout, stderr=stderr, label=label, rules=rules
    )
    assert isinstance(result, HookResult)
    found = missing_script(stderr, label)
    assert found is None or found in stderr


@budget(1.0)
@given(
    answered(),
    st.none() | st.sampled_from([200, 204, 301, 404, 500]) | st.integers(),
    st.none() | TEXTS,
    st.booleans(),
)
def test_an_http_hooks_response_is_a_result(
    answer: tuple[HookInput, str], status: int | None, error: str | None, timed_out: bool
) -> None:
    inp, text = answer
    result = decode_http(inp, status=status, text=text, error=error, timed_out=timed_out)
    assert isinstance(result, HookResult)


ASYNC_LINE = {"async": True, "asyncTimeout": 5000}


@budget(0.5)
@given(documents(ASYNC_LINE) | documents(claude_output(Event.PostToolUse)))
def test_an_async_declaration_and_its_delivery_decode(text: str) -> None:
    is_async_declaration(text)
    seconds = async_timeout(text)
    assert seconds is None or seconds > 0
    context, message = decode_async(text)
    assert context is None or isinstance(context, str)
    assert message is None or isinstance(message, str)


PROMPT_REPLY = {"ok": False, "reason": "unsafe", "decision": "block", "impossible": True}


@budget(0.8)
@given(st.sampled_from(list(CLAUDE_CODE_EVENTS)), documents(PROMPT_REPLY), st.booleans())
def test_a_prompt_hooks_reply_is_a_result(event: Event, text: str, continue_on_block: bool) -> None:
    result = decode_prompt_reply(event, text, continue_on_block=continue_on_block)
    assert isinstance(result, HookResult)


OPENHARNESS_OUTPUT = {
    "continue": True,
    "stopReason": "stop",
    "suppressOutput": True,
    "systemMessage": "note",
    "decision": "block",
    "reason": "because",
    "hookSpecificOutput": {
        "additionalContext": "context",
        "patch": {
            "tool_input": {"command": "ls"},
            "tool_output": "replaced",
            "model_request": {"model": "m2", "messages": MESSAGES, "options": {"top_p": 1}},
            "model_response": {"content": "x", "tool_calls": []},
            "context": {"messages": MESSAGES, "customInstructions": "c", "summaryText": "s"},
        },
    },
}
CAPABILITIES = [*SCOPE_CAPABILITY.values(), SUPPRESS_OUTPUT]


@budget(1.5)
@given(
    inputs(sorted(OH_NAME, key=str)),
    documents(OPENHARNESS_OUTPUT),
    st.frozensets(st.sampled_from(CAPABILITIES)),
)
def test_openharness_output_is_a_result_or_an_output_error(
    inp: HookInput, text: str, capabilities: frozenset[str]
) -> None:
    try:
        out = parse_output(text)
    except OutputError as exc:
        assert "\n" not in str(exc)
        return
    binding = HookBinding(
        name="h",
        oh_event=OH_NAME[inp.event],
        event=inp.event,
        handler_type="command",
        capabilities=capabilities,
        workspace_root=Path("/ws"),
        file="/ws/.openharness/hooks/h.yaml",
    )
    envelope = build_envelope(inp, oh_event=binding.oh_event, workspace_root=Path("/ws"))
    assert isinstance(to_result(out, binding, inp, envelope), HookResult)
