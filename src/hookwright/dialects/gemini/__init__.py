"""Gemini CLI hooks (0.61.0): `hooks` in Gemini's settings files, its 11 events on the
canonical lifecycle, the stdin it writes and its output, exit-code, sequential and timeout
rules. See docs/gemini.md.

Importing `hookwright.dialects.gemini.loader` registers the ``gemini`` source; `encode_stdin`
is the input bytes a Gemini hook reads, `EVENTS` Gemini's event names.
"""

from __future__ import annotations

from hookwright.dialects.gemini.events import EVENTS, TOOLS
from hookwright.dialects.gemini.loader import GeminiData, discover
from hookwright.dialects.gemini.stdin import encode_stdin

__all__ = ["EVENTS", "TOOLS", "GeminiData", "discover", "encode_stdin"]
