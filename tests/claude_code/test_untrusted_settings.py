"""Settings of a folder that is not trusted change nothing, not even the user's own hooks: the
policy switches of project and local settings apply only once the project is trusted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookwright.config.loading import LoadContext, LoadResult
from hookwright.config.trust import TrustPolicy
from hookwright.dialects.claude_code.loader import discover

from .conftest import Endpoint, Harness, cmd, group
from .expect import TOOL

DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "remote policy",
    }
}


def bind(h: Harness, trusted: bool) -> LoadResult:
    """Discover the Claude Code hooks and bind them with the project trusted or not."""
    policy = TrustPolicy().with_folder(h.project) if trusted else TrustPolicy()
    result = discover(LoadContext(h.project, h.home)).bind(policy)
    for spec in result.specs:
        h.engine.register(spec)
    h.result = result
    return result


def not_applied(h: Harness, file: Path, key: str) -> bool:
    return f"warning: {file}: {key}: not applied: folder not trusted" in h.diagnostics


def marking_guard(h: Harness, marker: Path) -> dict[str, Any]:
    """A PreToolUse command hook that records that it ran and denies the call."""
    return cmd(h.sh(f"cat > /dev/null; touch {marker}; echo 'user guard' >&2; exit 2"))


@pytest.mark.parametrize("kind", ["project", "local"])
@pytest.mark.parametrize("trusted", [False, True])
async def test_disable_all_hooks_of_an_untrusted_project_leaves_the_users_hooks_running(
    h: Harness, tmp_path: Path, kind: str, trusted: bool
) -> None:
    marker = tmp_path / "guard-ran"
    h.settings(group("PreToolUse", marking_guard(h, marker)), kind="user")
    settings = h.settings(
        group("Stop", cmd(f"touch {tmp_path / 'project-hook-ran'}")),
        kind=kind,
        disableAllHooks=True,
    )
    result = bind(h, trusted)
    verdict = await h.fire_tool(command="rm -rf /")
    if trusted:
        assert result.specs == [] and result.untrusted == []
        assert verdict.decision is None and not marker.exists()
        assert any("2 hooks not loaded because of disableAllHooks" in d for d in h.diagnostics)
    else:
        assert verdict.decision == "deny" and (verdict.reason or "").endswith(": user guard\n")
        assert marker.exists()
        assert [hook.source for hook in result.untrusted] == [kind]
        assert not_applied(h, settings, "disableAllHooks")
    assert not (tmp_path / "project-hook-ran").exists()


@pytest.mark.parametrize("trusted", [False, True])
async def test_allowed_http_hook_urls_of_an_untrusted_project_do_not_widen(
    h: Harness, endpoint: Endpoint, trusted: bool
) -> None:
    url = endpoint.reply("/deny", DENY)
    hook = {"type": "http", "url": url}
    h.settings(
        group("PreToolUse", hook), kind="user", allowedHttpHookUrls=["https://hooks.example/*"]
    )
    settings = h.settings(None, allowedHttpHookUrls=["http://127.0.0.1:*"])
    bind(h, trusted)
    verdict = await h.fire("PreToolUse", **TOOL)
    if trusted:
        assert verdict.decision == "deny" and len(endpoint.requests) == 1
    else:
        assert verdict.decision is None and endpoint.requests == []
        assert "allowedHttpHookUrls" in (verdict.results[0].error or "")
        assert not_applied(h, settings, "allowedHttpHookUrls")


@pytest.mark.parametrize("trusted", [False, True])
async def test_http_env_vars_of_an_untrusted_project_are_not_interpolated(
    h: Harness, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch, trusted: bool
) -> None:
    monkeypatch.setenv("HOOK_TOKEN", "t0k3n")
    monkeypatch.setenv("OTHER", "o")
    url = endpoint.reply("/h", "")
    hook = {
        "type": "http",
        "url": url,
        "headers": {"A": "$HOOK_TOKEN", "B": "$OTHER"},
        "allowedEnvVars": ["HOOK_TOKEN", "OTHER"],
    }
    h.settings(group("Stop", hook), kind="user", httpHookAllowedEnvVars=["OTHER"])
    settings = h.settings(None, kind="local", httpHookAllowedEnvVars=["HOOK_TOKEN"])
    bind(h, trusted)
    await h.fire("Stop", stop_hook_active=False)
    (request,) = endpoint.requests
    sent = (request["headers"]["A"], request["headers"]["B"])
    assert sent == (("t0k3n", "o") if trusted else ("", "o"))
    assert not_applied(h, settings, "httpHookAllowedEnvVars") is not trusted


@pytest.mark.parametrize("trusted", [False, True])
async def test_enabled_plugins_of_an_untrusted_project_do_not_change_the_users_plugins(
    h: Harness, tmp_path: Path, trusted: bool
) -> None:
    for name in ("guard", "off"):
        h.plugin(name, group("Stop", cmd(f"touch {tmp_path / name}")), where="user")
    h.settings(None, kind="user", enabledPlugins={"off": False})
    settings = h.settings(None, enabledPlugins={"guard": False, "off": True})
    bind(h, trusted)
    await h.fire("Stop", stop_hook_active=False)
    ran = {name for name in ("guard", "off") if (tmp_path / name).exists()}
    assert ran == ({"off"} if trusted else {"guard"})
    assert not_applied(h, settings, "enabledPlugins") is not trusted


@pytest.mark.parametrize("trusted", [False, True])
async def test_dedup_switch_of_an_untrusted_project_does_not_apply(
    h: Harness, tmp_path: Path, trusted: bool
) -> None:
    log = tmp_path / "runs"
    hook = cmd(f"echo run >> {log}")
    h.settings(group("Stop", hook), kind="user")
    h.plugin("twin", group("Stop", hook), where="user")
    settings = h.settings(None, hookwrightDedupAcrossSources=False)
    bind(h, trusted)
    await h.fire("Stop", stop_hook_active=False)
    assert log.read_text().split() == (["run", "run"] if trusted else ["run"])
    assert not_applied(h, settings, "hookwrightDedupAcrossSources") is not trusted


async def test_each_ignored_switch_is_reported_once(h: Harness, tmp_path: Path) -> None:
    h.settings(group("Stop", cmd("true"), cmd("true -a"), cmd("true -b")), kind="user")
    settings = h.settings(None, disableAllHooks=True)
    result = bind(h, trusted=False)
    assert len(result.specs) == 3
    assert (
        h.diagnostics.count(
            f"warning: {settings}: disableAllHooks: not applied: folder not trusted"
        )
        == 1
    )
