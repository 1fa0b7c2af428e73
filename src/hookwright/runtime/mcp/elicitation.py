"""A server's request for user input, answered as Claude Code 2.1.240 answers it (measured):

1. `Elicitation` fires (`mcp_server_name`, `message`, `mode`, and `url` and `elicitation_id`
   for a URL request or `requested_schema` for a form). A hook that blocks declines; a hook
   whose output has an `action` answers (with its `content`). Either way the answer goes back
   at once: no ElicitationResult, no Notification.
2. Otherwise the person answers: with a terminal (`ask`), a `Notification`
   (`elicitation_dialog`, or `elicitation_url_dialog` for a URL) fires and the question is
   shown; without one the request is cancelled, as in `claude -p`.
3. `ElicitationResult` fires with that answer (`mode`, `action`, `content`); a block makes it
   decline, a hook's `action`/`content` replace it.
4. The answer goes back to the server, and a `Notification` `elicitation_response`
   (``Elicitation response for server "<server>": <action>``) fires once the tool call that
   made the server ask has had its PostToolUse.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp.types import ElicitRequestParams, ElicitRequestURLParams, ElicitResult

from hookwright.core.validation import json_type_name
from hookwright.core.words import listed
from hookwright.host import Event, HookSession

ACTIONS = ("accept", "decline", "cancel")


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """What a server asks the person: a form (`requested_schema`) or a URL to visit."""

    server: str
    message: str
    mode: str = "form"
    url: str | None = None
    elicitation_id: str | None = None
    requested_schema: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ElicitationReply:
    action: str
    content: Mapping[str, Any] | None = None


AskElicitation = Callable[[ElicitationRequest], Awaitable[ElicitationReply]]
"""Asks the person (a terminal, a web page); returns their answer."""

Later = Callable[[Callable[[], Awaitable[None]]], bool]
"""Keeps an action for after the running tool call's PostToolUse; False when no call runs."""


#: The keys Claude Code keeps of a form's schema and of each field, in its order (measured:
#: ``{"type", "properties", "required"}``; a field ``{"type", "title", ...}``; others dropped).
_SCHEMA_KEYS = ("type", "properties", "required")
_FIELD_KEYS = (
    "type",
    "title",
    "description",
    "minLength",
    "maxLength",
    "format",
    "minimum",
    "maximum",
    "enum",
    "enumNames",
    "oneOf",
    "items",
    "default",
)


def claude_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A form's `requested_schema` as Claude Code hands it to hooks."""
    shaped = {key: schema[key] for key in _SCHEMA_KEYS if key in schema}
    properties = shaped.get("properties")
    if isinstance(properties, Mapping):
        shaped["properties"] = {
            name: {k: field[k] for k in _FIELD_KEYS if k in field}
            if isinstance(field, Mapping)
            else field
            for name, field in properties.items()
        }
    return shaped


def request_of(server: str, params: ElicitRequestParams) -> ElicitationRequest:
    if isinstance(params, ElicitRequestURLParams):
        return ElicitationRequest(server, params.message, "url", params.url, params.elicitation_id)
    schema = claude_schema(params.requested_schema)
    return ElicitationRequest(server, params.message, "form", requested_schema=schema)


def _payload(request: ElicitationRequest) -> dict[str, Any]:
    fields = {
        "mcp_server_name": request.server,
        "message": request.message,
        "mode": request.mode,
        "url": request.url,
        "elicitation_id": request.elicitation_id,
        "requested_schema": dict(request.requested_schema) if request.requested_schema else None,
    }
    return {name: value for name, value in fields.items() if value is not None}


def _reply(action: str | None, content: Mapping[str, Any] | None) -> ElicitationReply:
    chosen = action if action in ACTIONS else "decline"
    return ElicitationReply(chosen, content if chosen == "accept" else None)


async def elicit(
    hooks: HookSession,
    request: ElicitationRequest,
    ask: AskElicitation | None,
    later: Later | None = None,
) -> ElicitationReply:
    """The answer for `request` after the hooks and, when they leave it open, the person.

    With `later`, the `elicitation_response` Notification waits for the end of the tool call
    that made the server ask (after its PostToolUse, as Claude Code sends it); outside a tool
    call it fires at once."""
    decided = await hooks.elicitation(Event.Elicitation, **_payload(request))
    if decided.action is not None:
        return _reply(decided.action, decided.content)
    if ask is None:
        reply = ElicitationReply("cancel")
    else:
        kind = "elicitation_url_dialog" if request.mode == "url" else "elicitation_dialog"
        await hooks.notification(kind, request.message)
        reply = await ask(request)
    result: dict[str, Any] = {"mcp_server_name": request.server, "mode": request.mode}
    if request.elicitation_id:
        result["elicitation_id"] = request.elicitation_id
    result["action"] = reply.action
    if reply.content is not None:
        result["content"] = dict(reply.content)
    override = await hooks.elicitation(Event.ElicitationResult, **result)
    if override.action is not None or override.content is not None:
        reply = _reply(
            override.action or reply.action,
            override.content if override.content is not None else reply.content,
        )
    message = f'Elicitation response for server "{request.server}": {reply.action}'

    async def respond() -> None:
        await hooks.notification("elicitation_response", message)

    if later is None or not later(respond):
        await respond()
    return reply


_EXPECTED = {"integer": "an integer", "number": "a number", "boolean": "true or false"}


def _fits(kind: Any, value: Any) -> bool:
    if isinstance(value, bool):
        return bool(kind == "boolean")
    if kind == "integer":
        return isinstance(value, int)
    if kind == "number":
        return isinstance(value, int | float)
    if kind == "boolean":
        return False
    return isinstance(value, str)


def choices_of(field: Mapping[str, Any]) -> list[Any] | None:
    """The values a field may take: its `enum`, or the `const` of each `oneOf` / `anyOf`
    entry (titled choices); None when it is not a choice."""
    if isinstance(field.get("enum"), list) and field["enum"]:
        return list(field["enum"])
    for key in ("oneOf", "anyOf"):
        entries = field.get(key)
        if isinstance(entries, list) and entries:
            return [e.get("const") for e in entries if isinstance(e, Mapping) and "const" in e]
    return None


def _not_a_choice(name: str, value: Any, choices: list[Any]) -> str:
    return f"{name}: {value!r} is not one of: {', '.join(map(str, choices))}"


def _field_problem(name: str, field: Mapping[str, Any], value: Any) -> str | None:
    kind = field.get("type")
    if kind == "array":
        items = field.get("items")
        allowed = choices_of(items) if isinstance(items, Mapping) else None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return f"{name}: expected a list of strings, got {json_type_name(value)}"
        wrong = [v for v in value if allowed is not None and v not in allowed]
        if wrong:
            return _not_a_choice(name, wrong[0], allowed or [])
        low, high = field.get("minItems"), field.get("maxItems")
        if isinstance(low, int) and len(value) < low:
            return f"{name}: choose at least {low}"
        if isinstance(high, int) and len(value) > high:
            return f"{name}: choose at most {high}"
        return None
    if not _fits(kind, value):
        shown = json_type_name(value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            shown += f" {value}"
        return f"{name}: expected {_EXPECTED.get(str(kind), 'a string')}, got {shown}"
    choices = choices_of(field)
    if choices is not None and value not in choices:
        return _not_a_choice(name, value, choices)
    return _bounds(name, field, value)


def _bounds(name: str, field: Mapping[str, Any], value: Any) -> str | None:
    if isinstance(value, str):
        low, high = field.get("minLength"), field.get("maxLength")
        if isinstance(low, int) and len(value) < low:
            return f"{name}: at least {low} characters"
        if isinstance(high, int) and len(value) > high:
            return f"{name}: at most {high} characters"
    elif isinstance(value, int | float) and not isinstance(value, bool):
        low, high = field.get("minimum"), field.get("maximum")
        if isinstance(low, int | float) and value < low:
            return f"{name}: at least {low:g}"
        if isinstance(high, int | float) and value > high:
            return f"{name}: at most {high:g}"
    return None


def content_problem(request: ElicitationRequest, reply: ElicitationReply) -> str | None:
    """Why `reply` cannot go to the server as the person's answer to `request`, or None.

    A form's accepted content must be an object of the schema's fields, each of its type
    (string, number, integer, boolean, an array of strings for a multi-select; a choice's value
    one of its `enum` / `oneOf` values), with every required field present; declining,
    cancelling and a URL request carry no content.
    """
    if reply.action not in ACTIONS:
        return f"action must be one of: {', '.join(ACTIONS)}"
    if reply.action != "accept" or request.mode == "url":
        return None if reply.content is None else f"{reply.action} carries no content"
    schema = request.requested_schema or {}
    properties = schema.get("properties") or {}
    content = reply.content if reply.content is not None else {}
    unknown = [name for name in content if name not in properties]
    if unknown:
        return f"unknown {listed(unknown, 'field', colon=':')}"
    missing = [name for name in schema.get("required") or () if name not in content]
    if missing:
        return f"required: {', '.join(map(str, missing))}"
    for name, value in content.items():
        field = properties[name]
        problem = _field_problem(name, field if isinstance(field, Mapping) else {}, value)
        if problem is not None:
            return problem
    return None


def to_result(reply: ElicitationReply) -> ElicitResult:
    content = dict(reply.content) if reply.content is not None else None
    return ElicitResult(action=reply.action, content=content)  # type: ignore[arg-type]
