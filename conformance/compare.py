"""Normalise two observations of one case and say where they differ.

What is compared, after ids, paths and durations are replaced by placeholders (transcript
paths and ids numbered in the order first seen, so which hooks read the same one is compared):
- `stdin`: the exact bytes every hook read, in event order (hooks of one event run in
  parallel, so a run of records of the same event is ordered by tool-use id and label);
- `order`: the sequence of (event, hook label);
- `model`: per request of the agent loop, what hooks put in front of the model: tool results
  (id, text, error flag), user texts, and the hook paragraphs of system messages;
- `verdict`: `model` cut to the first line of every tool result and hook paragraph, for
  cases whose detail lines are the agent's own error text (a spawn or network error, a JSON
  parser's message);
- `handback`: `model` with the result of each `Agent` call (a subagent's hand-back, which
  each agent frames its own way) as `<hand-back>`, for cases where what counts is the
  requests of the parent and the subagent around it;
- `models`: the model each request of the agent loop went to;
- `files`: the project's files afterwards.
Text the agent itself adds on its own (Claude Code's date, agent and skill listings, token
budget) is not hook text and is left out, but for the note on launching subagents that Claude
Code sends some models and not others: it is an item of its own wherever it is (a system
message of its own, or the end of the agent listing, which Claude Code sends as a system or a
user message by model).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.harness import HOOK_PROGRAM, Observation

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: A subagent's id, which each agent spells its own way.
AGENT_ID = re.compile(r'(?<="agent_id":")[^"]+(?=")')
DURATION = re.compile(r'"duration_ms":\d+')
#: A resumed SessionStart's wait since the last answer: the time between the two runs.
WAITED = re.compile(r'"seconds_since_last_response":\d+')
#: The token budget some models get after a tool result (2.1.240 with a Haiku 4.5 skill).
BUDGET_NOTE = re.compile(
    r"\n\n<system-reminder>\n<total_tokens>[^<]*</total_tokens>\n</system-reminder>$"
)
TRANSCRIPT = re.compile(r'"(transcript_path|agent_transcript_path)":"([^"]*)"')
AGENT_NOISE = (
    "<system-reminder>\nAs you answer",
    "<system-reminder>\nAttribution for git commits",
    "<total_tokens>",
    "Available agent types",
    "The following skills are available",
    "The following deferred tools are now available",
    "# Environment\nYou have been invoked",
    "# Environment update\n",  # 2.1.332: the working directory after a Bash `cd`
    "Today's date is",
    # 2.1.332 with an MCP server configured: its own notes while the server connects
    "If the user's request might be served by one of these servers",
    "The following MCP servers are still connecting",
    "You are powered by the model",
    # 2.1.332 on some models (claude-opus-5-5) in bypassPermissions mode: its note on the mode
    "While bypass permissions mode is active:",
    "You can do much of your work through the Bash tool when it is the simpler route",
    # 2.1.332 run as a teammate: its own note on the team it belongs to
    "# Team Coordination",
    "**IMPORTANT:** Always refer to active teammates",
    "**Team Leader:**",
    "**Team Resources:**",
    "**Your Identity:**",
    "Read the team config",
    "You are a teammate in this session's agent team.",
    '```json\n{\n  "to": "team-lead"',
    "- ",
)


#: Claude Code's note after its agent listing (every model but claude-opus-5).
CONCURRENCY_NOTE = (
    "When you launch multiple agents for independent work, send them in a single message with "
    "multiple tool uses so they run concurrently."
)


class Normaliser:
    """Replaces run-specific values by stable placeholders, numbering ids by first sight."""

    def __init__(self, observation: Observation) -> None:
        self._paths = [
            (str(HOOK_PROGRAM), "<hook.py>"),
            (str(observation.project), "<project>"),
            (str(observation.home), "<home>"),
            (str(observation.root), "<root>"),
        ]
        self._ids: dict[str, str] = {}
        self._transcripts: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        text = TRANSCRIPT.sub(self._transcript, text)
        text = DURATION.sub('"duration_ms":<ms>', text)
        text = WAITED.sub('"seconds_since_last_response":<s>', text)
        for path, placeholder in self._paths:
            text = text.replace(path, placeholder)
        text = AGENT_ID.sub(self._id, text)
        return UUID.sub(self._id, text)

    def _transcript(self, match: re.Match[str]) -> str:
        """Each agent keeps its transcripts where it does, so a path reads as the order it was
        first seen in: which events share one (the session's, a subagent's) is compared."""
        number = self._transcripts.setdefault(match.group(2), str(len(self._transcripts) + 1))
        return f'"{match.group(1)}":"<transcript{number}>"'

    def _id(self, match: re.Match[str]) -> str:
        return self._ids.setdefault(match.group(0), f"<id{len(self._ids) + 1}>")


def hook_view(observation: Observation, normalise: Callable[[str], str]) -> list[dict[str, str]]:
    records = []
    for record in observation.hooks:
        event, tool_use = _event_of(record["stdin"])
        records.append(
            {
                "event": event,
                "tool_use": tool_use,
                "label": record["label"],
                "cwd": normalise(record["cwd"]),
                "stdin": normalise(record["stdin"]),
            }
        )
    return _parallel_runs_sorted(records)


def _event_of(stdin: str) -> tuple[str, str]:
    try:
        payload = json.loads(stdin)
    except ValueError:
        return "?", ""
    if not isinstance(payload, dict):
        return "?", ""
    return str(payload.get("hook_event_name", "?")), str(payload.get("tool_use_id", ""))


def _parallel_runs_sorted(records: list[dict[str, str]]) -> list[dict[str, str]]:
    ordered: list[dict[str, str]] = []
    run: list[dict[str, str]] = []
    for record in [*records, {"event": "", "tool_use": "", "label": ""}]:
        if run and record["event"] != run[-1]["event"]:
            ordered += sorted(run, key=lambda r: (r["tool_use"], r["label"]))
            run = []
        run.append(record)
    return ordered


def model_view(
    observation: Observation, normalise: Callable[[str], str], handback: bool = False
) -> list[list[str]]:
    return [sorted(_request_items(body, normalise, handback)) for body in observation.requests]


def _request_items(
    body: dict[str, Any], normalise: Callable[[str], str], handback: bool = False
) -> list[str]:
    items: list[str] = []
    messages = body.get("messages") or []
    handbacks = _agent_call_ids(messages) if handback else frozenset()
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            items += _block_items(str(role), block, normalise, handbacks)
    return items


def _agent_call_ids(messages: list[dict[str, Any]]) -> frozenset[str]:
    """The ids of the `Agent` tool calls among `messages`."""
    return frozenset(
        str(block.get("id"))
        for message in messages
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
        if block.get("name") == "Agent"
    )


def _block_items(
    role: str,
    block: dict[str, Any],
    normalise: Callable[[str], str],
    handbacks: frozenset[str] = frozenset(),
) -> list[str]:
    kind = block.get("type")
    if kind == "tool_result":
        text = BUDGET_NOTE.sub("", _result_text(block.get("content")))
        if block.get("tool_use_id") in handbacks:
            text = "<hand-back>"
        error = bool(block.get("is_error"))
        return [f"tool_result {block.get('tool_use_id')} error={error}: {normalise(text)}"]
    if kind != "text" or role == "assistant":
        return []
    text, noted = _without_note(str(block.get("text", "")))
    if noted:
        rest = _block_items(role, {**block, "text": text}, normalise) if text.strip() else []
        return [f"note: {CONCURRENCY_NOTE}", *rest]
    if role == "system":
        return [f"system: {normalise(p)}" for p in text.split("\n\n") if _is_hook_text(p)]
    return [] if _is_noise(text) else [f"{role}: {normalise(text)}"]


def _without_note(text: str) -> tuple[str, bool]:
    """`text` without the concurrency note paragraph, and whether it had it."""
    if CONCURRENCY_NOTE not in text:
        return text, False
    for paragraph in (f"\n\n{CONCURRENCY_NOTE}", f"{CONCURRENCY_NOTE}\n\n", CONCURRENCY_NOTE):
        text = text.replace(paragraph, "")
    return text, True


def _is_hook_text(paragraph: str) -> bool:
    return not _is_noise(paragraph) and bool(paragraph.strip())


def _is_noise(text: str) -> bool:
    """Text the agent adds on its own; 2.1.332 wraps it in a ``<system-reminder>`` when the
    request goes to another model than the session's (a skill's frontmatter ``model``)."""
    return text.startswith(AGENT_NOISE) or text.removeprefix("<system-reminder>\n").startswith(
        AGENT_NOISE
    )


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def view(observation: Observation, aspects: frozenset[str]) -> dict[str, Any]:
    normalise = Normaliser(observation)
    hooks = hook_view(observation, normalise)
    result: dict[str, Any] = {}
    if "order" in aspects:
        result["order"] = [f"{r['event']} {r['label']}" for r in hooks]
    if "stdin" in aspects:
        result["stdin"] = [f"{r['label']} cwd={r['cwd']} {r['stdin']}" for r in hooks]
    if "model" in aspects:
        result["model"] = model_view(observation, normalise)
    if "handback" in aspects:
        result["handback"] = model_view(observation, normalise, handback=True)
    if "verdict" in aspects:
        result["verdict"] = [
            [item.split("\n", 1)[0] for item in items]
            for items in model_view(observation, normalise)
        ]
    if "models" in aspects:
        result["models"] = [str(body.get("model")) for body in observation.requests]
    if "files" in aspects:
        result["files"] = {name: normalise(text) for name, text in observation.files.items()}
    return result


def differences(expected: Observation, actual: Observation, aspects: frozenset[str]) -> str:
    """A unified diff of the two views ('' when they agree)."""
    want = json.dumps(view(expected, aspects), indent=1, ensure_ascii=False).splitlines()
    got = json.dumps(view(actual, aspects), indent=1, ensure_ascii=False).splitlines()
    diff = difflib.unified_diff(want, got, expected.agent, actual.agent, lineterm="", n=2)
    return "\n".join(diff)


def write_views(directory: Path, *observations: Observation, aspects: frozenset[str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for observation in observations:
        text = json.dumps(view(observation, aspects), indent=1, ensure_ascii=False)
        (directory / f"{observation.agent}.json").write_text(text + "\n")
