"""The schema of `.hookwright/hooks.yaml` (pydantic): what `hookwright schema native` prints,
and the validation that explains an entry the plain reading in `hookwright.dialects.native`
does not accept. Imported only then, so a project whose entries are plainly well formed never
loads pydantic."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from hookwright.core.events import UnknownEventError, resolve_event
from hookwright.core.matching import IfRule, IfRuleError
from hookwright.core.validation import pydantic_message
from hookwright.dialects.native_entry import CALL_PATTERN, NativeEntry


class NativeHook(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = Field(min_length=1)
    event: str
    call: str = Field(pattern=CALL_PATTERN)
    matcher: str | None = None
    if_: str | None = Field(default=None, alias="if")
    priority: int = 0
    timeout: float | None = Field(default=None, gt=0)
    on_error: Literal["continue", "block"] = "continue"
    #: `shadow`: run as `parallel`, its answer recorded and reported, never applied.
    mode: Literal["parallel", "chain", "shadow"] = "parallel"
    enabled: bool = True
    description: str | None = None

    @field_validator("event")
    @classmethod
    def _known_event(cls, value: str) -> str:
        try:
            resolve_event(value)
        except UnknownEventError as exc:
            raise ValueError(str(exc)) from None
        return value

    @field_validator("if_")
    @classmethod
    def _valid_if(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                IfRule.parse(value)
            except IfRuleError as exc:
                raise ValueError(str(exc)) from None
        return value


class NativeConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hooks: list[NativeHook] = Field(default_factory=list)


def json_schema() -> dict[str, Any]:
    return NativeConfig.model_json_schema(by_alias=True)


#: One problem of an entry: where in the entry (pydantic's location) and what.
Problem = tuple[tuple[int | str, ...], str]


def validate_entry(raw: Any) -> NativeEntry | list[Problem]:
    """`raw` validated by the schema: the entry, or its problems."""
    try:
        hook = NativeHook.model_validate(raw)
    except ValidationError as exc:
        return [(tuple(err["loc"]), pydantic_message(err, NativeHook)) for err in exc.errors()]
    return NativeEntry(**{name: getattr(hook, name) for name in NativeHook.model_fields})
