"""Counts in plain words: ``1 hook``, ``2 hooks``, ``no hooks``, for every line a person reads."""

from __future__ import annotations


def counted(count: int, word: str, plural: str | None = None, *, none: str | None = None) -> str:
    """`count` and `word`, plural when the count is not one (`plural`, else `word` + "s");
    `none` (such as ``"no"``) said instead of 0 when given."""
    noun = word if count == 1 else plural if plural is not None else word + "s"
    number = none if count == 0 and none is not None else str(count)
    return f"{number} {noun}"


def listed(
    words: list[str] | tuple[str, ...], singular: str, plural: str | None = None, *, colon: str = ""
) -> str:
    """``skill nope`` or ``skills a, b`` (``skills: a, b`` with `colon` ``":"``): the noun in
    the number of the list, then the list."""
    noun = singular if len(words) == 1 else plural if plural is not None else singular + "s"
    return f"{noun}{colon} {', '.join(words)}"
