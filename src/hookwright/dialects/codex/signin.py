"""How the user is signed in to Codex, as far as it decides which of OpenAI's curated plugin
marketplaces Codex loads.

Codex CLI 0.171.0 keeps its sign-in in ``$CODEX_HOME/auth.json``: ``auth_mode`` when set,
else an API key (``OPENAI_API_KEY``), else ChatGPT tokens (``tokens``). A ChatGPT sign-in, and
the other modes served by Codex's own backend (``chatgptAuthTokens``, ``agentIdentity``,
``personalAccessToken``, ``headers``), count as signed in with ChatGPT; an API key, a Bedrock
key or no sign-in at all do not. Measured with plugins of each marketplace and a ChatGPT
``auth.json`` made for the run (Codex asked no server): see `marketplaces.sign_in_refusal`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

AUTH_FILE: Final = "auth.json"
#: ``auth_mode`` values Codex serves without its own backend.
_DIRECT_MODES: Final = frozenset({"apikey", "bedrockApiKey", "bedrockAccessKeys"})


@dataclass(frozen=True, slots=True)
class SignIn:
    """`chatgpt`: signed in through Codex's backend; `file`: the ``auth.json`` read."""

    chatgpt: bool
    file: Path


def read_sign_in(codex_home: Path) -> SignIn:
    """The sign-in ``$CODEX_HOME/auth.json`` records (an unreadable file: none)."""
    file = codex_home / AUTH_FILE
    try:
        data: Any = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return SignIn(False, file)
    return SignIn(isinstance(data, dict) and _through_backend(data), file)


def _through_backend(data: dict[str, Any]) -> bool:
    mode = data.get("auth_mode")
    if isinstance(mode, str) and mode:
        return mode not in _DIRECT_MODES
    key = data.get("OPENAI_API_KEY")
    if isinstance(key, str) and key:
        return False
    return isinstance(data.get("tokens"), dict)
