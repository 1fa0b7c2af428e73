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


#: Strategies are built once: building one per draw costs more than the code under test.
_UNITS = st.sampled_from(["{", "[", " ", "\n", "a", "'", '"', "\\", "{\n", "é", "\x00"])
_REPEATS = st.integers(min_value=1, max_value=200_000)
#: An index into a sequence whose length is only known while drawing (taken modulo it).
_INDEX = st.integers(min_value=0, max_value=1 << 20)
_SMALL = st.integers(min_value=0, max_value=9)


@st.composite
def long_texts(draw: st.DrawFn) -> str:
    """A short unit repeated up to 200,000 characters: where quadratic scanning would show."""
    unit = draw(_UNITS | SYNTAX_TEXT.filter(bool))
    return unit * max(1, draw(_REPEATS) // len(unit))


TEXTS = st.one_of(ANY_TEXT, SYNTAX_TEXT, long_texts())
_JUNK = SYNTAX_TEXT | ANY_TEXT
_BYTES = st.binary(min_size=1, max_size=8)

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
    for _ in range(1 + draw(_SMALL) % 3):
        paths = paths_of(doc)
        path = paths[draw(_INDEX) % len(paths)]
        if path and draw(_SMALL) < 2:
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
def _text_mutation(draw: st.DrawFn, text: str) -> str:
    """`text` with a slice replaced: truncations, stray brackets, bytes in the middle."""
    start = draw(_INDEX) % (len(text) + 1)
    end = start + draw(_INDEX) % (len(text) + 1 - start)
    return text[:start] + draw(_JUNK) + text[end:]


def documents(template: Any, kind: str = "json") -> st.SearchStrategy[str]:
    """Text a file or frame of `template`'s shape may hold: the template itself, its fields
    mutated, its text mutated, or raw junk and pathological text."""
    dump = to_json if kind == "json" else to_yaml
    written = dump(template)
    fields, text = mutated(template), _text_mutation(written)

    @st.composite
    def document(draw: st.DrawFn) -> str:
        choice = draw(_SMALL)
        if choice == 0:
            return written
        if choice <= 4:
            return _serialised(draw(fields), dump) or written
        if choice <= 6:
            return draw(text)
        if choice == 7:
            depth = 150 + draw(_INDEX) % 5000
            return "[" * depth + "1" + "]" * depth
        if choice == 8:
            return "9" * (4000 + draw(_INDEX) % 16_000)
        return draw(TEXTS)

    return document()


def document_bytes(template: Any, kind: str = "json") -> st.SearchStrategy[bytes]:
    """`documents` as UTF-8, or with bytes that are not UTF-8 spliced in."""
    texts = documents(template, kind)

    @st.composite
    def encoded(draw: st.DrawFn) -> bytes:
        data = draw(texts).encode("utf-8", "surrogatepass")
        if draw(_SMALL) < 2:
            at = draw(_INDEX) % (len(data) + 1)
            data = data[:at] + draw(_BYTES) + data[at:]
        return data

    return encoded()
