"""The YAML side of `hookwright.config.safeparse`: a `yaml.SafeLoader` within the same bounds
(depth, integer digits, alias expansion, text size). In its own module so that PyYAML loads
only when a YAML text is parsed."""

from __future__ import annotations

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, SequenceNode

from hookwright.config.safeparse import (
    MAX_DEPTH,
    MAX_INT_DIGITS,
    MAX_TEXT_CHARS,
    MAX_YAML_NODES,
    TOO_DEEP,
    ParseError,
    decode_utf8,
    one_line,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class BoundedLoader(yaml.SafeLoader):
    """`yaml.SafeLoader` that refuses deep nesting, recursive aliases, and alias expansion past
    `MAX_YAML_NODES` nodes (each node's expanded size is computed once, as it is composed)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        if self.check_event(AliasEvent):
            event: Any = self.peek_event()  # type: ignore[no-untyped-call]
            anchored = self.anchors.get(event.anchor)
            if anchored is not None and id(anchored) not in self._sizes:
                raise ComposerError(
                    None, None, "an alias refers to a node that contains it", anchored.start_mark
                )
            return self._composed(parent, index)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            start: Any = self.peek_event()  # type: ignore[no-untyped-call]
            raise ComposerError(None, None, TOO_DEEP, start.start_mark)
        try:
            node = self._composed(parent, index)
        finally:
            self._depth -= 1
        size = self._sizes[id(node)] = self._expanded_size(node)
        if size > MAX_YAML_NODES:
            raise ComposerError(
                None, None, f"aliases expand to more than {MAX_YAML_NODES:,} nodes", node.start_mark
            )
        return node

    def _composed(self, parent: Node | None, index: Any) -> Node:
        node = super().compose_node(parent, index)
        assert node is not None  # an event is always pending here
        return node

    def _expanded_size(self, node: Node) -> int:
        if isinstance(node, SequenceNode):
            children = list(node.value)
        elif isinstance(node, MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            return 1
        return 1 + sum(self._sizes[id(child)] for child in children)


def _bounded_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    if len(node.value) > MAX_INT_DIGITS:
        raise ConstructorError(
            None, None, f"a number has more than {MAX_INT_DIGITS} digits", node.start_mark
        )
    value: int = loader.construct_yaml_int(node)
    return value


BoundedLoader.add_constructor("tag:yaml.org,2002:int", _bounded_int)


def load_yaml_text(text: str | bytes, *, where: str = "") -> Any:
    """`yaml.safe_load(text)` within the bounds above."""
    if isinstance(text, bytes):
        text = decode_utf8(text, where=where)
    if len(text) > MAX_TEXT_CHARS:
        raise ParseError(f"YAML text is longer than {MAX_TEXT_CHARS:,} characters", where)
    try:
        return _construct(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise ParseError(f"invalid YAML: {_yaml_problem(exc)}", where, line=line) from None
    except (ValueError, OverflowError) as exc:
        raise ParseError(f"invalid YAML value: {one_line(exc)}", where) from None
    except RecursionError:
        raise ParseError(TOO_DEEP, where) from None


def _construct(text: str) -> Any:
    loader = BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """The problem and where it is, without the parser's context lines."""
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if problem is None or mark is None:
        return one_line(exc)
    return f"{one_line(problem)} (line {mark.line + 1} column {mark.column + 1})"
