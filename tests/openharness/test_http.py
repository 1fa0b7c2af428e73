"""HTTP handlers against a real server on 127.0.0.1 (never tested upstream)."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

from hookwright import Decision, HookEngine, Status

from .helpers import HookServer, Workspace, install_ws, model_call, tool_call


def http_hook(ws: Workspace, url: str, events: list[str] | None = None, **handler: Any) -> None:
    ws.hook(
        f"{len(list(ws.hooks.glob('*.yaml')))}-http.yaml",
        {
            "name": f"http-{len(list(ws.hooks.glob('*.yaml')))}",
            "events": events or ["before_tool_dispatch"],
            "handler": {"type": "http", "url": url, **handler},
            "capabilities": ["rewrite_tool_request"],
        },
    )


async def test_post_sends_the_envelope_and_applies_the_answer(
    ws: Workspace, engine: HookEngine, http_server: HookServer
) -> None:
    url = http_server.reply(
        "/check", {"hookSpecificOutput": {"patch": {"tool_input": {"command": "ls -la"}}}}
    )
    http_hook(ws, url, headers={"X-Team": "core"})
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    assert verdict.updated_input == {"command": "ls -la"}
    (request,) = http_server.requests
    assert request.method == "POST"
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["X-Team"] == "core"
    body = json.loads(request.body)
    assert body["hook_event_name"] == "before_tool_dispatch"
    assert body["tool_name"] == "Bash" and body["tool_input"] == {"command": "ls"}


async def test_secret_header_reaches_the_server(
    ws: Workspace, engine: HookEngine, http_server: HookServer
) -> None:
    url = http_server.reply("/auth", "")
    http_hook(ws, url, headers={"Authorization": "Bearer ${secrets.HOOK_TOKEN}"})
    install_ws(engine, ws, environ={"HOOK_TOKEN": "tok-123"})
    await engine.dispatch(tool_call(command="ls"))
    assert http_server.requests[0].headers["Authorization"] == "Bearer tok-123"


async def test_json_can_block(ws: Workspace, engine: HookEngine, http_server: HookServer) -> None:
    url = http_server.reply("/deny", {"continue": False, "stopReason": "policy says no"})
    http_hook(ws, url, ["before_model_call"])
    install_ws(engine, ws)
    verdict = await engine.dispatch(model_call())
    assert (verdict.decision, verdict.reason) == (Decision.block, "policy says no")


async def test_empty_2xx_has_no_effect(
    ws: Workspace, engine: HookEngine, http_server: HookServer
) -> None:
    url = http_server.reply("/empty", "", status=204)
    http_hook(ws, url)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    (result,) = verdict.results
    assert result.status is Status.ok and not result.has_effect


async def test_non_2xx_fails_open(
    ws: Workspace, engine: HookEngine, http_server: HookServer
) -> None:
    url = http_server.reply("/broken", {"decision": "block"}, status=500)
    http_hook(ws, url)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    (result,) = verdict.results
    assert verdict.decision is None
    assert result.status is Status.error and "status 500" in (result.error or "")
    assert verdict.effects.notices[0].detail["handlerType"] == "http"


async def test_status_codes_never_block(
    ws: Workspace, engine: HookEngine, http_server: HookServer
) -> None:
    url = http_server.reply("/forbidden", "", status=403)
    http_hook(ws, url)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="rm -rf /"))
    assert verdict.decision is None


async def test_invalid_json_body_fails_open(
    ws: Workspace, engine: HookEngine, http_server: HookServer
) -> None:
    url = http_server.reply("/prose", "I think it's fine")
    http_hook(ws, url)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    assert verdict.results[0].status is Status.error


async def test_timeout_fails_open(
    ws: Workspace, engine: HookEngine, http_server: HookServer
) -> None:
    url = http_server.reply("/hang", {"decision": "block"})
    http_hook(ws, url, timeout_seconds=1)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    (result,) = verdict.results
    assert verdict.decision is None
    assert result.status is Status.timeout


async def test_unreachable_endpoint_fails_open(ws: Workspace, engine: HookEngine) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    http_hook(ws, f"http://127.0.0.1:{port}/gone")
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    (result,) = verdict.results
    assert result.status is Status.error and "request failed" in (result.error or "")


async def test_get_sends_no_body(
    ws: Workspace, engine: HookEngine, http_server: HookServer
) -> None:
    url = http_server.reply("/switch", {"decision": "block", "reason": "maintenance"})
    http_hook(ws, url, method="GET")
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    assert (verdict.decision, verdict.reason) == (Decision.deny, "maintenance")
    (request,) = http_server.requests
    assert request.method == "GET" and request.body == b""
    assert "Content-Type" not in request.headers


async def test_other_methods_send_the_envelope(
    ws: Workspace, engine: HookEngine, http_server: HookServer
) -> None:
    url = http_server.reply("/put", "")
    http_hook(ws, url, method="PUT")
    install_ws(engine, ws)
    await engine.dispatch(tool_call(command="ls"))
    (request,) = http_server.requests
    assert request.method == "PUT" and json.loads(request.body)["tool_input"] == {"command": "ls"}


async def test_get_stops_reading_an_endless_body_at_the_cap(
    ws: Workspace, engine: HookEngine, http_server: HookServer
) -> None:
    http_hook(ws, f"{http_server.url}/endless", method="GET", timeout_seconds=60)
    install_ws(engine, ws)
    started = time.monotonic()
    verdict = await engine.dispatch(tool_call(command="ls"))
    assert time.monotonic() - started < 30
    (result,) = verdict.results
    assert result.status is Status.error
    assert result.error is not None and "response body exceeds 10000000 bytes" in result.error
    assert verdict.updated_input is None
    assert [r.method for r in http_server.requests] == ["GET"]
