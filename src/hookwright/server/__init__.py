"""`hookwright serve`: a stateless chat endpoint over WebSocket and a small page to use it.

The server keeps no conversation between requests. A client sends its whole history with every
message and appends the messages of the ``done`` frame to it, so persistent skill hooks reach the
next request through the client, as the skill hook spec requires.
"""

from __future__ import annotations

from hookwright.server.app import STATIC_DIR, create_app
from hookwright.server.runner import ServerSettings

__all__ = ["STATIC_DIR", "ServerSettings", "create_app"]
