"""Spec §4.3: http hooks against a real server on 127.0.0.1."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest

from bounds import GENEROUS_BOUND
from hookwright import Status

from .conftest import Endpoint, Harness, group
from .expect import TOOL, check


def http(url: str, **fields: Any) -> dict[str, Any]:
    return {"type": "http", "url": url, **fields}


DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "remote policy",
    }
}

ROWS: list[tuple[str, str, Any, int, dict[str, Any]]] = [
    ("2xx-json-decides", "/deny", DENY, 200, {"decision": "deny", "reason": "remote policy"}),
    ("2xx-empty-no-decision", "/empty", "", 200, {"decision": None, "status": "ok"}),
    ("204-no-decision", "/nocontent", "", 204, {"decision": None, "status": "ok"}),
    (
        "2xx-non-json-error",
        "/text",
        "all good",
        200,
        {"decision": None, "status": "error", "error_has": "non-JSON 2xx body"},
    ),
    (
        "2xx-bad-schema-error",
        "/bad",
        {"continue": "no"},
        200,
        {"decision": None, "status": "error", "error_has": "invalid hook output"},
    ),
    (
        "500-never-blocks",
        "/fail",
        DENY,
        500,
        {"decision": None, "status": "error", "error_has": "status 500"},
    ),
    ("403-never-blocks", "/forbidden", "denied", 403, {"decision": None, "status": "error"}),
]


@pytest.mark.parametrize(
    ("path", "body", "status", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
async def test_response(
    h: Harness, endpoint: Endpoint, path: str, body: Any, status: int, expected: dict[str, Any]
) -> None:
    url = endpoint.reply(path, body, status)
    h.hooks(group("PreToolUse", http(url), matcher="Bash"))
    check(await h.fire("PreToolUse", **TOOL, iteration=2), expected)
    [request] = endpoint.requests
    assert request["body"]["tool_name"] == "Bash"
    assert request["body"]["hook_event_name"] == "PreToolUse"
    assert "iteration" not in request["body"]
    assert request["headers"]["Content-Type"] == "application/json"


async def test_redirect_is_not_followed(h: Harness, endpoint: Endpoint) -> None:
    endpoint.reply("/target", DENY)
    url = endpoint.reply("/moved", "", 307, Location=f"{endpoint.base}/target")
    h.hooks(group("PreToolUse", http(url)))
    verdict = await h.fire("PreToolUse", **TOOL)
    check(verdict, {"decision": None, "status": "error", "error_has": "status 307"})
    assert [r["path"] for r in endpoint.requests] == ["/moved"]


async def test_timeout_is_no_decision(h: Harness, endpoint: Endpoint) -> None:
    h.hooks(group("PreToolUse", http(f"{endpoint.base}/slow", timeout=0.5)))
    started = time.monotonic()
    verdict = await h.fire("PreToolUse", **TOOL)
    assert time.monotonic() - started < GENEROUS_BOUND
    check(verdict, {"decision": None, "status": "timeout"})


async def test_worktree_path_from_http(h: Harness, endpoint: Endpoint) -> None:
    url = endpoint.reply(
        "/wt", {"hookSpecificOutput": {"hookEventName": "WorktreeCreate", "worktreePath": "/w"}}
    )
    h.hooks(group("WorktreeCreate", http(url)))
    check(await h.fire("WorktreeCreate", name="x"), {"effects": {"worktree_path": "/w"}})


async def test_headers_interpolate_only_allowed_variables(
    h: Harness, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOK_TOKEN", "t0k3n")
    monkeypatch.setenv("SECRET_KEY", "leak")
    url = endpoint.reply("/h", "")
    headers = {
        "Authorization": "Bearer $HOOK_TOKEN",
        "X-Braced": "${HOOK_TOKEN}!",
        "X-Other": "[$SECRET_KEY]",
        "X-Split": "a\r\nX-Injected: 1",
    }
    h.hooks(group("Stop", http(url, headers=headers, allowedEnvVars=["HOOK_TOKEN"])))
    await h.fire("Stop", stop_hook_active=False)
    sent = endpoint.requests[0]["headers"]
    assert sent["Authorization"] == "Bearer t0k3n"
    assert sent["X-Braced"] == "t0k3n!"
    assert sent["X-Other"] == "[]"
    assert sent["X-Split"] == "aX-Injected: 1" and "X-Injected" not in sent


async def test_settings_env_var_allow_list_is_intersected(
    h: Harness, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOK_TOKEN", "t0k3n")
    monkeypatch.setenv("OTHER", "o")
    url = endpoint.reply("/h", "")
    hook = http(
        url, headers={"A": "$HOOK_TOKEN", "B": "$OTHER"}, allowedEnvVars=["HOOK_TOKEN", "OTHER"]
    )
    h.settings(None, kind="user", httpHookAllowedEnvVars=["OTHER"])
    h.hooks(group("Stop", hook))
    await h.fire("Stop", stop_hook_active=False)
    sent = endpoint.requests[0]["headers"]
    assert (sent["A"], sent["B"]) == ("", "o")


@pytest.mark.parametrize(
    ("patterns", "allowed"),
    [
        (None, True),
        ([], False),
        (["http://127.0.0.1:*"], True),
        (["https://hooks.example/*"], False),
    ],
)
async def test_allowed_http_hook_urls(
    h: Harness, endpoint: Endpoint, patterns: list[str] | None, allowed: bool
) -> None:
    url = endpoint.reply("/deny", DENY)
    if patterns is not None:
        h.settings(None, kind="user", allowedHttpHookUrls=patterns)
    h.hooks(group("PreToolUse", http(url)))
    verdict = await h.fire("PreToolUse", **TOOL)
    assert (verdict.decision == "deny") is allowed
    assert bool(endpoint.requests) is allowed
    if not allowed:
        assert any("not allowed by allowedHttpHookUrls" in d for d in h.diagnostics)
        assert "allowedHttpHookUrls" in (verdict.results[0].error or "")


@pytest.mark.parametrize("url", ["http://10.0.0.1/hook", "http://192.168.1.1:8080/hook"])
async def test_private_destination_is_refused_before_connecting(
    h: Harness, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_client(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("connected to a refused destination")

    monkeypatch.setattr(httpx.AsyncClient, "__init__", no_client)
    h.hooks(group("PreToolUse", http(url)))
    verdict = await h.fire("PreToolUse", **TOOL)
    check(verdict, {"decision": None, "status": "error", "error_has": "destination refused"})
    assert h.audit()[0]["error"].startswith("destination refused")


async def test_an_endless_reply_stops_at_the_cap(h: Harness, endpoint: Endpoint) -> None:
    h.hooks(group("PreToolUse", http(f"{endpoint.base}/endless", timeout=60)))
    started = time.monotonic()
    verdict = await h.fire("PreToolUse", **TOOL)
    assert time.monotonic() - started < 30
    check(verdict, {"decision": None, "status": "error", "error_has": "exceeds 10000000 bytes"})


async def test_hung_timed_python_hooks_do_not_starve_http_hooks(
    h: Harness, endpoint: Endpoint
) -> None:
    """Eight hooks stuck past their timeout (more threads than the event loop's default
    executor has on this machine): an HTTP hook whose host needs a DNS lookup still answers."""
    gate = threading.Event()
    for index in range(8):
        h.engine.add(lambda inp: gate.wait(60), "Notification", timeout=0.2, name=f"hung{index}")
    try:
        stuck = await h.fire("Notification", message="hi")
        assert [r.status for r in stuck.results] == [Status.timeout] * 8
        assert h.engine.services.workers.stuck == 8
        url = endpoint.reply("/deny", DENY).replace("127.0.0.1", "localhost")
        h.hooks(group("PreToolUse", http(url, timeout=10), matcher="Bash"))
        check(await h.fire("PreToolUse", **TOOL), {"decision": "deny", "reason": "remote policy"})
        assert [r["path"] for r in endpoint.requests] == ["/deny"]
    finally:
        gate.set()
