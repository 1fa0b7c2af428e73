"""Generators of hostile input shared by the fuzz properties.

Two families, mixed everywhere: structured values (valid-shaped documents whose fields get
random values, wrong types, deep nesting, huge integers, long strings, surrogates and NULs)
and raw text or bytes (mutations of valid documents, invalid UTF-8, pathological repetitions
such as 100,000 `{`). `documents` and `document_bytes` combine both for any template.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import yaml
from hypothesis import strategies as st

#: Characters parsers and scanners care about, so raw text reaches the interesting branches.
SYNTAX_CHARS = "{}[]\":,0123456789-eE.\\ \n\t\r&*!|>?#'`-\x00\x85\u2028\ufeffabc"

#: Text of any code point, lone surrogates and NUL included.
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=20)
SYNTAX_TEXT = st.text(st.sampled_from(SYNTAX_CHARS), max_size=40)


@st.composite
def long_texts(draw: st.DrawFn) -> str:
    """A short unit repeated up to 200,000 times: where quadratic scanning would show."""
    unit = draw(st.sampled_from(["{", "[", " ", "\n", "a", "'", '"', "\\", "{\n", "é", "\x00"]))
    unit = draw(st.just(unit) | SYNTAX_TEXT.filter(bool))
    return unit * draw(st.integers(min_value=1, max_value=200_000 // max(len(unit), 1)))


TEXTS = st.one_of(ANY_TEXT, SYNTAX_TEXT, long_texts())

HUGE_INTS = st.integers(min_value=4000, max_value=6000).map(lambda n: int("9" * min(n, 4300)))

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    HUGE_INTS,
    st.floats(),
    ANY_TEXT,
    SYNTAX_TEXT,
    st.builds(str.__mul__, st.sampled_from(["ab\n", "x", "é", "\\"]), st.integers(300, 3000)),
)

#: Any JSON-shaped value (NaN and infinities included: Python's json writes them).
VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(ANY_TEXT | SYNTAX_TEXT, children, max_size=4)
    ),
    max_leaves=6,
)


@st.composite
def nested(draw: st.DrawFn) -> Any:
    """A value nested between 1 and 400 levels deep (beyond the parsers' 200), in a repeated
    pattern of lists and objects."""
    value: Any = draw(SCALARS)
    pattern = draw(st.lists(st.booleans(), min_size=1, max_size=4))
    for level in range(draw(st.integers(min_value=1, max_value=400))):
        value = [value] if pattern[level % len(pattern)] else {"k": value}
    return value


HOSTILE = VALUES | nested()


def paths_of(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in `value` a mutation can go."""
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += paths_of(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += paths_of(child, (*prefix, index))
    return found


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


def removed(value: Any, path: tuple[Any, ...]) -> Any:
    if len(path) == 1:
        copy = dict(value) if isinstance(value, dict) else list(value)
        del copy[path[0]]
        return copy
    return replaced(value, path[:1], removed(value[path[0]], path[1:]))


@st.composite
def mutated(draw: st.DrawFn, template: Any) -> Any:
    """`template` with up to three fields replaced by hostile values or dropped."""
    doc = template
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        path = draw(st.sampled_from(paths_of(doc)))
        if path and draw(st.integers(0, 4)) == 0:
            doc = removed(doc, path)
        else:
            doc = replaced(doc, path, draw(HOSTILE))
    return doc


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=_needs_ascii(value))


def _needs_ascii(value: Any) -> bool:
    """Lone surrogates cannot be written as UTF-8: escape them; keep other text raw."""
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except (UnicodeEncodeError, ValueError, RecursionError):
        return True
    return False


def to_yaml(value: Any) -> str:
    return yaml.safe_dump(value, allow_unicode=False)


def _serialised(value: Any, dump: Callable[[Any], str]) -> str | None:
    try:
        return dump(value)
    except (ValueError, RecursionError, yaml.YAMLError):
        return None  # a value the writer refuses (a 400-deep YAML, an over-long int)


@st.composite
def text_mutation(draw: st.DrawFn, text: str) -> str:
    """`text` with a slice replaced: truncations, stray brackets, bytes in the middle."""
    start = draw(st.integers(min_value=0, max_value=len(text)))
    end = draw(st.integers(min_value=start, max_value=len(text)))
    return text[:start] + draw(SYNTAX_TEXT | ANY_TEXT) + text[end:]


@st.composite
def documents(draw: st.DrawFn, template: Any, kind: str = "json") -> str:
    """Text a file or frame of `template`'s shape may hold: the template itself, its fields
    mutated, its text mutated, or raw junk and pathological text."""
    dump = to_json if kind == "json" else to_yaml
    choice = draw(st.integers(min_value=0, max_value=9))
    if choice <= 4:
        doc = template if choice == 0 else draw(mutated(template))
        return _serialised(doc, dump) or dump(template)
    if choice <= 6:
        return draw(text_mutation(dump(template)))
    if choice == 7:
        depth = draw(st.integers(min_value=150, max_value=5000))
        return "[" * depth + "1" + "]" * depth
    if choice == 8:
        return "9" * draw(st.integers(min_value=4000, max_value=20_000))
    return draw(TEXTS)


@st.composite
def document_bytes(draw: st.DrawFn, template: Any, kind: str = "json") -> bytes:
    """`documents` as UTF-8, or with bytes that are not UTF-8 spliced in."""
    text = draw(documents(template, kind))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(min_value=0, max_value=4)) == 0:
        at = draw(st.integers(min_value=0, max_value=len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    return data
