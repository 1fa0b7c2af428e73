"""An untrusted project's `.picoclaw/config.json` changes nothing: not the file-level
`enabled`, `protocol` and `defaults`, not the user's entry of the same name. With the project
trusted, each applies as PicoClaw merges its files (later files override earlier ones)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from picoclaw_support import HookProc, Pico, before_tool, until

from hookwright.config.loading import LoadContext, LoadResult
from hookwright.config.trust import TrustPolicy
from hookwright.core.results import Decision
from hookwright.dialects.picoclaw.loader import discover


def guard(pico: Pico, delay: float = 0.0) -> HookProc:
    """The user's own process: denies every tool call."""
    answer = {"result": {"action": "deny_tool", "reason": "user guard"}, "delay": delay}
    return pico.hook("guard", {"methods": {"hook.before_tool": [answer]}})


def user_config(pico: Pico, hook: HookProc) -> Path:
    hooks = {"processes": {"guard": hook.config(intercept=["before_tool"])}}
    return pico.write(hooks, pico.home / ".picoclaw" / "config.json")


def bind(pico: Pico, project_hooks: dict[str, Any], trusted: bool) -> LoadResult:
    pico.write(project_hooks)
    policy = TrustPolicy().with_folder(pico.project) if trusted else TrustPolicy()
    result = discover(LoadContext(pico.project, pico.home)).bind(policy)
    for spec in result.specs:
        pico.engine.register(spec)
    return result


def not_applied(result: LoadResult, pico: Pico, key: str) -> bool:
    config = pico.project / ".picoclaw" / "config.json"
    return f"warning: {config}: {key}: not applied: folder not trusted" in map(
        str, result.diagnostics
    )


@pytest.mark.parametrize("trusted", [False, True])
async def test_enabled_false_of_an_untrusted_project_leaves_the_users_process_running(
    pico: Pico, trusted: bool
) -> None:
    hook = guard(pico)
    user_config(pico, hook)
    own = pico.hook("own")
    result = bind(
        pico,
        {"enabled": False, "processes": {"own": own.config(intercept=["before_tool"])}},
        trusted,
    )
    verdict = await pico.engine.dispatch(before_tool(text="x"))
    if trusted:
        assert result.specs == [] and verdict.decision is None
        assert hook.records() == []
    else:
        assert verdict.decision is Decision.deny and verdict.reason is not None
        assert verdict.reason.endswith("user guard")
        assert [p["tool"] for p in hook.params("hook.before_tool")] == ["echo_text"]
        assert [h.name for h in result.untrusted] == ["own"]
        assert not_applied(result, pico, "hooks.enabled")
    assert own.records() == []


@pytest.mark.parametrize("trusted", [False, True])
async def test_timeouts_of_an_untrusted_project_do_not_apply(pico: Pico, trusted: bool) -> None:
    user_config(pico, guard(pico, delay=0.5))
    result = bind(pico, {"defaults": {"interceptor_timeout_ms": 50}}, trusted)
    verdict = await pico.engine.dispatch(before_tool(text="x"))
    if trusted:
        assert verdict.decision is None and verdict.results[0].status == "timeout"
    else:
        assert verdict.decision is Decision.deny
        assert not_applied(result, pico, "hooks.defaults")


@pytest.mark.parametrize("trusted", [False, True])
async def test_protocol_of_an_untrusted_project_does_not_apply(pico: Pico, trusted: bool) -> None:
    hook = guard(pico)
    user_config(pico, hook)
    result = bind(pico, {"protocol": "current"}, trusted)
    inp = before_tool(text="x")
    await pico.engine.dispatch(inp)
    assert await until(lambda: bool(hook.params("hook.before_tool")))
    (params,) = hook.params("hook.before_tool")
    # current sends the context object, seed the top-level chat keys
    assert ("context" in params) is trusted
    assert ("channel" in params) is not trusted
    assert not_applied(result, pico, "hooks.protocol") is not trusted


@pytest.mark.parametrize("trusted", [False, True])
async def test_an_untrusted_projects_entry_does_not_replace_the_users(
    pico: Pico, trusted: bool
) -> None:
    hook = guard(pico)
    user_config(pico, hook)
    disabled = {"command": ["true"], "intercept": ["before_tool"], "enabled": False}
    bind(pico, {"processes": {"guard": disabled}}, trusted)
    verdict = await pico.engine.dispatch(before_tool(text="x"))
    assert (verdict.decision is Decision.deny) is not trusted
    assert bool(hook.records()) is not trusted
