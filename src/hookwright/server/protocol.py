"""The frames of `hookwright serve`'s WebSocket endpoint, as pydantic models.

The client sends a `ChatRequest`; the server answers with a stream of the `OutFrame` models
below, ending in one `DoneFrame` (or an `ErrorFrame` when the request could not run). The
server keeps no conversation state: the client sends its whole history each time and appends
``DoneFrame.messages`` to it.

A client that sets ``permission_prompts`` on its request is asked, with a
`PermissionRequestFrame`, whenever a tool call needs the user's approval, and answers with a
`PermissionAnswer` frame naming the request's ``id``; a `PermissionClosedFrame` says how each
prompt ended (answered, or denied because no answer came in time). Without the flag such calls
are denied as in ``claude -p``.

The same flag lets MCP servers ask the person (elicitation) when no Elicitation hook answers: an
`ElicitationRequestFrame` carries the server, its message and the form's schema (or the URL),
the client answers with an `ElicitationAnswer` (accept with the form's content, decline or
cancel), an answer that does not fit the schema gets an `ElicitationInvalidFrame` (the prompt
stays open) and an `ElicitationClosedFrame` says how the prompt ended.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from hookwright.config.safeparse import ParseError, load_json_text
from hookwright.core.validation import field_path, json_type_name

__all__ = [
    "FRAME_TYPES",
    "ChatRequest",
    "DoneFrame",
    "ElicitationAnswer",
    "ElicitationClosedFrame",
    "ElicitationInvalidFrame",
    "ElicitationRequestFrame",
    "ErrorFrame",
    "HistoryMessage",
    "HookFrame",
    "HookResultFrame",
    "NoticeFrame",
    "OutFrame",
    "PermissionAnswer",
    "PermissionClosedFrame",
    "PermissionRequestFrame",
    "ProtocolError",
    "SkillPromptFrame",
    "TextFrame",
    "ToolCallFrame",
    "ToolResultFrame",
    "parse_request",
]

FRAME_TYPES: tuple[str, ...] = ("chat", "permission", "elicitation")
"""Frame types a client may send."""

SKILL_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


class ProtocolError(ValueError):
    """A frame the server cannot accept; the text is sent back in an `ErrorFrame`."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class FunctionCall(_Strict):
    name: str = Field(min_length=1)
    arguments: str


class ToolCallPart(_Strict):
    id: str = Field(min_length=1)
    type: Literal["function"] = "function"
    function: FunctionCall


class HistoryMessage(_Strict):
    """One OpenAI-format message of the client's history.

    ``_hook`` is the name of the persistent skill hook that produced the message and
    ``_hook_file`` the file its prompt came from: the server sets them in `DoneFrame.messages`
    so a client can show the message as a hook with its file, and drops them before the
    message reaches the model. ``is_error`` marks a failed or denied tool result, as
    the agent's own messages carry it (a denied call's history must come back accepted).
    """

    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] | None = None
    tool_calls: list[ToolCallPart] | None = None
    tool_call_id: str | None = Field(default=None, min_length=1)
    name: str | None = None
    is_error: bool | None = None
    hook: str | None = Field(default=None, alias="_hook")
    hook_file: str | None = Field(default=None, alias="_hook_file", max_length=4096)

    @model_validator(mode="after")
    def _shape_fits_role(self) -> HistoryMessage:
        if self.tool_calls is not None and self.role != "assistant":
            raise ValueError(f"tool_calls is only allowed on assistant messages, not {self.role}")
        if self.role == "tool" and self.tool_call_id is None:
            raise ValueError("a tool message needs tool_call_id")
        if self.content is None and not (self.role == "assistant" and self.tool_calls):
            raise ValueError("content is required (null only for an assistant tool call)")
        return self

    def to_message(self) -> dict[str, Any]:
        """The message as the agent and the model see it."""
        return self.model_dump(exclude_none=True, exclude={"hook", "hook_file"}, mode="json")


class ChatRequest(_Strict):
    type: Literal["chat"]
    history: list[HistoryMessage] = Field(default_factory=list)
    message: str = Field(min_length=1)
    skills: list[Annotated[str, Field(pattern=SKILL_NAME)]] | None = None
    """Skills for this request; None means the server's ``--skill`` list, [] means none."""
    permission_prompts: bool = False
    """The client answers permission prompts (`PermissionRequestFrame`) and MCP elicitation
    requests (`ElicitationRequestFrame`); a person is there."""
    skill_prompts: bool = False
    """The client shows skill prompt injections that are not kept (`SkillPromptFrame`)."""


class PermissionAnswer(_Strict):
    """The user's answer to the `PermissionRequestFrame` with the same ``id``."""

    type: Literal["permission"]
    id: str = Field(min_length=1)
    allow: bool


class ElicitationAnswer(_Strict):
    """The user's answer to the `ElicitationRequestFrame` with the same ``id``: ``content`` (the
    form's values) only with ``accept``; the server checks it against the requested schema."""

    type: Literal["elicitation"]
    id: str = Field(min_length=1)
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


class TextFrame(_Strict):
    type: Literal["text"] = "text"
    delta: str


class ToolCallFrame(_Strict):
    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    input: dict[str, Any] | None
    """None when the model's arguments were not a JSON object."""


class ToolResultFrame(_Strict):
    type: Literal["tool_result"] = "tool_result"
    id: str
    name: str
    content: str
    is_error: bool


class HookFrame(_Strict):
    """A persistent skill hook was injected; its message is also in `DoneFrame.messages`."""

    type: Literal["hook"] = "hook"
    name: str
    role: str
    content: str
    #: The file its prompt came from, relative to the project.
    file: str | None = None


class SkillPromptFrame(_Strict):
    """A skill prompt hook put a message before the model for this call only (a persistent
    one is a `HookFrame`, kept in the history)."""

    type: Literal["skill_prompt"] = "skill_prompt"
    skill: str | None = None
    hook: str
    timing: str
    role: str
    content: str
    #: The file its prompt came from, relative to the project.
    file: str | None = None


class HookResultFrame(_Strict):
    """A dialect hook (Claude Code, PicoClaw, ...) had an effect at a checkpoint; `system`,
    `event_words` and `file` name it as every view does (`hookwright.host.labels`)."""

    type: Literal["hook_result"] = "hook_result"
    event: str
    hook: str
    source: str
    dialect: str
    effect: str
    status: str
    decision: str | None = None
    reason: str | None = None
    error: str | None = None
    #: The hook's policy tier, and whether it runs in shadow mode (its decision not applied).
    tier: str | None = None
    shadow: bool | None = None
    system: str | None = None
    event_words: str | None = None
    #: The effect in the system's own word first (``block (deny)``), as the terminal says it.
    effect_words: str | None = None
    file: str | None = None
    #: What makes a failed hook (or a dropped patch) work, when its dialect knows.
    fix: str | None = None


class PermissionRequestFrame(_Strict):
    """A tool call waits for the user's approval (what the terminal asks as ``[y/n]``)."""

    type: Literal["permission_request"] = "permission_request"
    id: str
    tool: str
    input: dict[str, Any]
    reason: str
    timeout: float
    """Seconds the server waits for the answer before it denies the call."""


class PermissionClosedFrame(_Strict):
    """How the prompt ``id`` ended: ``by`` is ``user`` (answered) or ``timeout`` (denied)."""

    type: Literal["permission_closed"] = "permission_closed"
    id: str
    allowed: bool
    by: Literal["user", "timeout"]


class ElicitationRequestFrame(_Strict):
    """An MCP server asks the user for input and no Elicitation hook answered: a form
    (``requested_schema``: ``properties`` with each field's ``type``, ``title``, ``enum``...,
    and ``required``) or, in ``url`` mode, a page to visit."""

    type: Literal["elicitation_request"] = "elicitation_request"
    id: str
    server: str
    message: str
    mode: Literal["form", "url"]
    url: str | None = None
    elicitation_id: str | None = None
    requested_schema: dict[str, Any] | None = None
    timeout: float
    """Seconds the server waits for the answer before it cancels the request."""


class ElicitationInvalidFrame(_Strict):
    """The answer to prompt ``id`` does not fit its schema (``error`` says why); nothing was
    sent to the MCP server and the prompt still waits for an answer."""

    type: Literal["elicitation_invalid"] = "elicitation_invalid"
    id: str
    error: str


class ElicitationClosedFrame(_Strict):
    """How the prompt ``id`` ended: the ``action`` the user chose (``by`` ``user``) or
    ``cancel`` because no answer came in time (``by`` ``timeout``)."""

    type: Literal["elicitation_closed"] = "elicitation_closed"
    id: str
    action: Literal["accept", "decline", "cancel"]
    by: Literal["user", "timeout"]


class NoticeFrame(_Strict):
    """Something the user should know that is not part of the answer (retries, denials)."""

    type: Literal["notice"] = "notice"
    text: str


class DoneFrame(_Strict):
    type: Literal["done"] = "done"
    status: str
    text: str
    reason: str | None = None
    messages: list[dict[str, Any]]
    """What the client appends to its history: the user message, persistent hook messages
    (marked with ``_hook`` and ``_hook_file``), assistant and tool messages."""


class ErrorFrame(_Strict):
    type: Literal["error"] = "error"
    message: str


OutFrame: TypeAlias = (
    TextFrame
    | ToolCallFrame
    | ToolResultFrame
    | HookFrame
    | SkillPromptFrame
    | HookResultFrame
    | NoticeFrame
    | PermissionRequestFrame
    | PermissionClosedFrame
    | ElicitationRequestFrame
    | ElicitationInvalidFrame
    | ElicitationClosedFrame
    | DoneFrame
    | ErrorFrame
)


ClientFrame: TypeAlias = ChatRequest | PermissionAnswer | ElicitationAnswer

_CLIENT_MODELS: dict[str, type[ClientFrame]] = {
    "chat": ChatRequest,
    "permission": PermissionAnswer,
    "elicitation": ElicitationAnswer,
}


def parse_request(text: str, *, max_history: int) -> ClientFrame:
    """Read one client frame; raise `ProtocolError` saying what is wrong and where."""
    try:
        data = load_json_text(text)
    except ParseError as exc:
        raise ProtocolError(f"malformed JSON: {exc.reason}") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"a frame must be a JSON object, got {json_type_name(data)}")
    if "type" not in data:
        raise ProtocolError(f"field 'type' is missing; expected one of: {', '.join(FRAME_TYPES)}")
    if data["type"] not in FRAME_TYPES:
        raise ProtocolError(
            f"unknown frame type {data['type']!r}; expected one of: {', '.join(FRAME_TYPES)}"
        )
    history = data.get("history")
    if isinstance(history, list) and len(history) > max_history:
        raise ProtocolError(
            f"history has {len(history)} messages; the limit is {max_history} "
            "(start a new conversation or drop old messages)"
        )
    model = _CLIENT_MODELS[data["type"]]
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{field_path(error['loc']) or '(frame)'}: {error['msg'].removeprefix('Value error, ')}"
            for error in exc.errors()
        ]
        raise ProtocolError(f"invalid {data['type']} frame: " + "; ".join(problems)) from None
