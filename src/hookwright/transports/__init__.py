"""Transports: how bytes reach a hook and come back, with no idea of what the bytes mean.

* :mod:`hookwright.transports.process`: one-shot child process (shell or exec form) with
  stdin delivery, capped output capture, timeouts and process-group cleanup.
* :mod:`hookwright.transports.http`: one JSON request to an endpoint, guarded against
  server-side request forgery.
* :mod:`hookwright.transports.rpc`: JSON-RPC 2.0 over a long-lived child process's stdio.
* :mod:`hookwright.transports.model`: a request to the session's model (prompt and agent hooks).
* :mod:`hookwright.transports.mcp`: a tool call on the session's MCP client.

Dialect codecs sit on top: the same process transport runs a Claude Code command hook and an
OpenHarness command hook; only the reading of stdout and the exit code differs.
"""
