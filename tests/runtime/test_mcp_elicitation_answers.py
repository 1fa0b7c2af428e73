"""What a person's answer to an MCP form may carry (`content_problem`, the check `hookwright
serve` applies to the page's answers before they reach the server)."""

from __future__ import annotations

from typing import Any

import pytest

from hookwright.runtime.mcp.elicitation import (
    ElicitationReply,
    ElicitationRequest,
    content_problem,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 2, "maxLength": 5},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l"}]},
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "maxItems": 2,
        },
        "ok": {"type": "boolean"},
    },
    "required": ["name"],
}
FORM = ElicitationRequest("srv", "?", requested_schema=SCHEMA)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"name": "Ada"}, None),
        ({"name": "Ada", "age": 41, "size": "l", "tags": ["a", "c"], "ok": False}, None),
        ({"name": "A"}, "name: at least 2 characters"),
        ({"name": "Adelaide"}, "name: at most 5 characters"),
        ({"name": "Ada", "age": 151}, "age: at most 150"),
        ({"name": "Ada", "age": True}, "age: expected an integer, got boolean"),
        ({"name": "Ada", "ok": 1}, "ok: expected true or false, got number 1"),
        ({"name": "Ada", "size": "m"}, "size: 'm' is not one of: s, l"),
        ({"name": "Ada", "tags": "a"}, "tags: expected a list of strings, got string"),
        ({"name": "Ada", "tags": ["a", "z"]}, "tags: 'z' is not one of: a, b, c"),
        ({"name": "Ada", "tags": ["a", "b", "c"]}, "tags: choose at most 2"),
        ({}, "required: name"),
    ],
)
def test_form_answers(content: dict[str, Any], problem: str | None) -> None:
    assert content_problem(FORM, ElicitationReply("accept", content)) == problem


def test_only_accepting_a_form_carries_content() -> None:
    url = ElicitationRequest("srv", "?", "url", "https://example.test", "e1")
    assert content_problem(url, ElicitationReply("accept")) is None
    assert content_problem(url, ElicitationReply("accept", {"x": 1})) == "accept carries no content"
    assert content_problem(FORM, ElicitationReply("decline", {"name": "Ada"})) == (
        "decline carries no content"
    )
    assert content_problem(FORM, ElicitationReply("maybe")) == (
        "action must be one of: accept, decline, cancel"
    )
