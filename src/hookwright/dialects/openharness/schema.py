"""The schema of one `.openharness/hooks/*.yaml` file, as pydantic models.

It follows the real project's `docs/schemas/hook.schema.json`: unknown fields are rejected at
every level, `timeout_seconds` is an integer of at least 1 and maps hold strings only. Where we
differ: the capability list also accepts the seed's `patch_tool_input`, an http `url` must
be http(s) with a host, and a command or http handler may ask for the tool call's canonical
actions (`actions: true`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from hookwright.dialects.openharness.capabilities import CapabilityName
from hookwright.dialects.openharness.events import OhEventName

NAME_PATTERN = r"^[a-zA-Z0-9._-]+$"

_STRICT = ConfigDict(extra="forbid", strict=True)

Timeout = Annotated[int, Field(ge=1, description="Seconds; hookwright defaults to 30.")]


def _unique(values: list[str]) -> list[str]:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"duplicate item {value!r}")
        seen.add(value)
    return values


class PromptSource(BaseModel):
    """Exactly one of `inline` text or a `file` path relative to the workspace root."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={"oneOf": [{"required": ["inline"]}, {"required": ["file"]}]},
    )

    inline: str | None = None
    file: Annotated[str, Field(min_length=1)] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> PromptSource:
        if (self.inline is None) == (self.file is None):
            raise ValueError("give exactly one of `inline` or `file`")
        return self


class CommandHandler(BaseModel):
    model_config = _STRICT

    type: Literal["command"]
    command: str = Field(min_length=1)
    cwd: str | None = None
    timeout_seconds: Timeout | None = None
    environment: dict[str, str] | None = None
    actions: bool = Field(
        default=False,
        description="hookwright: the envelope carries the tool call's canonical actions "
        "(`hookwright_actions`).",
    )
    state: bool = Field(
        default=False,
        description="hookwright: the envelope carries the session state "
        "(`hookwright.state`, docs/state.md).",
    )


HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]


class HttpHandler(BaseModel):
    model_config = _STRICT

    type: Literal["http"]
    url: str
    method: HttpMethod | None = None
    headers: dict[str, str] | None = None
    timeout_seconds: Timeout | None = None
    actions: bool = Field(
        default=False,
        description="hookwright: the request body carries the tool call's canonical actions "
        "(`hookwright_actions`).",
    )
    state: bool = Field(
        default=False,
        description="hookwright: the request body carries the session state "
        "(`hookwright.state`, docs/state.md).",
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        # The message never repeats the URL: it may carry a resolved secret.
        try:
            parts = urlsplit(value)
        except ValueError:
            raise ValueError("not a valid URL") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// URL with a host")
        return value


class PromptHandler(BaseModel):
    model_config = _STRICT

    type: Literal["prompt"]
    prompt: PromptSource
    model_ref: str | None = Field(default=None, min_length=1)
    timeout_seconds: Timeout | None = None


class AgentHandler(BaseModel):
    model_config = _STRICT

    type: Literal["agent"]
    agent: str = Field(min_length=1)
    task: PromptSource
    timeout_seconds: Timeout | None = None


HandlerConfig = Annotated[
    CommandHandler | HttpHandler | PromptHandler | AgentHandler, Field(discriminator="type")
]

HANDLER_TYPES: tuple[str, ...] = ("command", "http", "prompt", "agent")


class HookFile(BaseModel):
    """One hook: `.openharness/hooks/<file>.yaml`."""

    model_config = ConfigDict(extra="forbid", strict=True, title="OpenHarness hook")

    name: str = Field(pattern=NAME_PATTERN, min_length=1, description="Unique hook name.")
    events: list[OhEventName] = Field(min_length=1)
    matcher: str | None = Field(
        default=None,
        min_length=1,
        description="Regex (searched, not anchored) tested against tool_name, model_ref or "
        "trigger_type depending on the event; context events ignore it.",
    )
    handler: HandlerConfig
    capabilities: list[CapabilityName] = Field(default_factory=list)
    mode: Literal["enforce", "shadow"] = Field(
        default="enforce",
        description="hookwright: `shadow` runs the hook and records its answer, never "
        "applying it (docs/policy.md).",
    )

    @field_validator("events", "capabilities")
    @classmethod
    def _no_duplicates(cls, values: list[str]) -> list[str]:
        return _unique(values)


def _drop_optional_null(node: Any) -> Any:
    """`X | None = None` fields become `anyOf: [X, null]`; a YAML null is no more valid in the
    real project's schema than a missing field is, so publish plain `X`."""
    if isinstance(node, dict):
        any_of = node.get("anyOf")
        if (
            isinstance(any_of, list)
            and len(any_of) == 2
            and {"type": "null"} in any_of
            and node.get("default", ...) is None
        ):
            (kept,) = [item for item in any_of if item != {"type": "null"}]
            rest = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
            return _drop_optional_null({**kept, **rest})
        return {key: _drop_optional_null(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_drop_optional_null(item) for item in node]
    return node


def json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) for one hook file."""
    schema = _drop_optional_null(HookFile.model_json_schema())
    assert isinstance(schema, dict)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
