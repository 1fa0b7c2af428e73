"""The stdout lines of a JSON-RPC hook process that were not JSON-RPC messages, kept to say
why it never answered.

A hook that prints a greeting or its logs to stdout has those lines skipped (each logged); when
it then fails to answer, the failure alone ("no hook.hello answer within 5s") does not say why.
The first few such lines and their number go with the failure, with the fix. A hostile hook may
flood stdout: at most `KEPT` lines of at most `LINE_BYTES` bytes are kept, the rest only
counted. Only a line that is not a message reaches this: a well-formed one costs nothing.
"""

from __future__ import annotations

#: Lines kept, and bytes kept of each.
KEPT = 3
LINE_BYTES = 80
FIX = "fix: write only JSON-RPC messages to stdout, one a line, and anything else to stderr"


class StrayLines:
    """The first `KEPT` stray stdout lines of one process (cut to `LINE_BYTES`), and how many
    there were."""

    __slots__ = ("count", "kept")

    def __init__(self) -> None:
        self.count = 0
        self.kept: list[str] = []

    def add(self, line: bytes) -> None:
        self.count += 1
        if len(self.kept) < KEPT:
            text = line[:LINE_BYTES].decode("utf-8", "replace").strip()
            self.kept.append(text + ("…" if len(line) > LINE_BYTES else ""))

    def note(self) -> str | None:
        """``stdout was not JSON-RPC: 'Hello world' (3 lines); fix: ...``; None when every
        line was a message."""
        if not self.count:
            return None
        shown = ", ".join(repr(text) for text in dict.fromkeys(self.kept))
        lines = "1 line" if self.count == 1 else f"{self.count} lines"
        return f"stdout was not JSON-RPC: {shown} ({lines}); {FIX}"
