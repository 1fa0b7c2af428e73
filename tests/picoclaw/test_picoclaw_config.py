"""PicoClaw `hooks` config: validation per key, defaults, files, builtins."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from picoclaw_support import Pico

from hookwright.config.loading import LoadContext, LoadResult
from hookwright.core.events import Event
from hookwright.dialects.base import Handler
from hookwright.dialects.picoclaw import register_builtin, unregister_builtin
from hookwright.dialects.picoclaw.config import read_context

CMD = [sys.executable, "-c", "pass"]


def diagnostics(result: LoadResult) -> list[tuple[str, str]]:
    return [(d.path, d.message) for d in result.diagnostics]


def loaded_names(result: LoadResult) -> set[str]:
    return {spec.name for spec in result.specs}


def good(**options: Any) -> dict[str, Any]:
    return {"command": CMD, "intercept": ["before_tool"], **options}


@pytest.mark.parametrize(
    ("entry", "path", "message"),
    [
        (
            {"command": CMD, "intercept": ["before_tool", "not_supported"]},
            "hooks.processes.bad.intercept[1]",
            "unsupported intercept 'not_supported'",
        ),
        (
            {"command": CMD, "observe": ["turn_end", "no_such_kind"]},
            "hooks.processes.bad.observe[1]",
            "unknown event kind 'no_such_kind'",
        ),
        ({"intercept": ["before_tool"]}, "hooks.processes.bad.command", "command is required"),
        (
            {"command": [], "intercept": ["before_tool"]},
            "hooks.processes.bad.command",
            "command is required",
        ),
        (
            {"command": CMD, "transport": "http", "intercept": ["before_tool"]},
            "hooks.processes.bad.transport",
            "unsupported transport 'http'",
        ),
        ({"command": CMD}, "hooks.processes.bad", "no hook modes enabled"),
        (
            {"command": CMD, "intercept": [""], "observe": []},
            "hooks.processes.bad",
            "no hook modes enabled",
        ),
        (
            {"command": CMD, "intercept": ["before_tool"], "protocol": "v9"},
            "hooks.processes.bad.protocol",
            "Input should be 'seed' or 'current'",
        ),
        (
            {"command": CMD, "intercept": ["before_tool"], "timeout_ms": 0},
            "hooks.processes.bad.timeout_ms",
            "Input should be greater than 0",
        ),
        (
            {"command": CMD, "intercept": ["before_tool"], "restart": {"policy": "sometimes"}},
            "hooks.processes.bad.restart.policy",
            "Input should be 'on-failure' or 'never'",
        ),
        (
            {"command": "python3 hook.py", "intercept": ["before_tool"]},
            "hooks.processes.bad.command",
            "Input should be a valid list",
        ),
    ],
)
def test_an_invalid_process_is_reported_by_key_and_the_others_load(
    pico: Pico, entry: dict[str, Any], path: str, message: str
) -> None:
    result = pico.load({"processes": {"bad": entry, "good": good()}})
    config = str(pico.project / ".picoclaw" / "config.json")
    assert [(d.file, d.path) for d in result.diagnostics] == [(config, path)]
    assert message in result.diagnostics[0].message
    assert loaded_names(result) == {"good"}


def test_diagnostic_text_names_file_and_key(pico: Pico) -> None:
    result = pico.load({"processes": {"gate": {"command": CMD, "intercept": ["x"]}}})
    text = str(result.diagnostics[0])
    assert text.startswith(f"error: {pico.project / '.picoclaw' / 'config.json'}: ")
    assert "hooks.processes.gate.intercept[0]" in text


def test_coarse_intercept_gives_both_methods_of_a_pair(pico: Pico) -> None:
    result = pico.load(
        {
            "processes": {
                "llm": good(intercept=["after_llm"]),
                "tool": good(intercept=["before_tool"]),
                "approver": good(intercept=["approve_tool"]),
            }
        }
    )
    events = {(s.name, s.event) for s in result.specs}
    assert events == {
        ("llm", Event.PreModelCall),
        ("llm", Event.PostModelCall),
        ("tool", Event.PreToolUse),
        ("tool", Event.PostToolUse),
        ("tool", Event.PostToolUseFailure),  # after_tool is sent for failed tools too
        ("approver", Event.PermissionRequest),
    }
    assert all(s.mode == "chain" and s.dialect == "picoclaw" for s in result.specs)


def test_timeouts_default_and_nonpositive_values_keep_defaults(pico: Pico) -> None:
    pico.write(
        {
            "defaults": {"interceptor_timeout_ms": 0, "approval_timeout_ms": -5},
            "processes": {"a": good(intercept=["before_tool", "approve_tool"])},
        }
    )
    settings = read_context(LoadContext(pico.project, pico.home))
    assert (settings.timeouts.observer, settings.timeouts.interceptor) == (0.5, 5.0)
    assert settings.timeouts.approval == 60.0
    result = pico.load()
    timeouts = {s.event: s.handler.codec.timeout for s in result.specs}  # type: ignore[attr-defined]
    assert timeouts[Event.PreToolUse] == 5.0
    assert timeouts[Event.PermissionRequest] == 60.0


def test_configured_and_per_hook_timeouts(pico: Pico) -> None:
    result = pico.load(
        {
            "defaults": {"interceptor_timeout_ms": 250, "approval_timeout_ms": 700},
            "processes": {
                "a": good(intercept=["before_tool", "approve_tool"]),
                "b": good(intercept=["before_tool", "approve_tool"], timeout_ms=1500),
            },
        }
    )
    timeouts = {(s.name, s.event): s.handler.codec.timeout for s in result.specs}  # type: ignore[attr-defined]
    assert timeouts[("a", Event.PreToolUse)] == 0.25
    assert timeouts[("a", Event.PermissionRequest)] == 0.7
    assert timeouts[("b", Event.PreToolUse)] == 1.5
    assert timeouts[("b", Event.PermissionRequest)] == 1.5
    approve = next(s for s in result.specs if s.event is Event.PermissionRequest)
    assert approve.on_error == "block"
    assert all(s.on_error == "continue" for s in result.specs if s is not approve and s.name == "a")


def test_hooks_disabled_loads_nothing(pico: Pico) -> None:
    assert pico.load({"enabled": False, "processes": {"a": good()}}).specs == []


def test_a_disabled_process_is_left_out(pico: Pico) -> None:
    result = pico.load({"processes": {"a": good(enabled=False), "b": good()}})
    assert loaded_names(result) == {"b"}


def test_protocol_global_and_per_process(pico: Pico) -> None:
    result = pico.load(
        {
            "protocol": "current",
            "processes": {"a": good(), "b": good(protocol="seed")},
        }
    )
    protocols = {s.name: s.handler.codec.protocol for s in result.specs}  # type: ignore[attr-defined]
    assert protocols == {"a": "current", "b": "seed"}


def test_default_protocol_is_seed(pico: Pico) -> None:
    result = pico.load({"processes": {"a": good()}})
    assert {s.handler.codec.protocol for s in result.specs} == {"seed"}  # type: ignore[attr-defined]


def test_user_and_project_files_merge_by_name(pico: Pico) -> None:
    user = pico.write(
        {
            "defaults": {"interceptor_timeout_ms": 1000},
            "processes": {"shared": good(priority=1), "mine": good()},
        },
        pico.home / ".picoclaw" / "config.json",
    )
    pico.write({"processes": {"shared": good(priority=7)}})
    result = pico.load()
    by_name = {s.name: s for s in result.specs if s.event is Event.PreToolUse}
    assert by_name["mine"].source == "user"
    assert by_name["mine"].origin == f"{user}:hooks.processes.mine"
    assert by_name["shared"].source == "project" and by_name["shared"].priority == 7
    assert by_name["mine"].handler.codec.timeout == 1.0  # type: ignore[attr-defined]


def test_cli_config_file_with_hooks_processes_is_read(pico: Pico, tmp_path: Path) -> None:
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"hooks": {"processes": {"cli": good()}}}))
    not_ours = tmp_path / "other.json"
    not_ours.write_text(json.dumps({"hooks": {"PreToolUse": []}}))
    result = pico.load(None, extra, not_ours)
    assert loaded_names(result) == {"cli"}
    assert all(s.source == "project" for s in result.specs)


def test_unreadable_config_is_a_diagnostic(pico: Pico) -> None:
    path = pico.project / ".picoclaw" / "config.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    result = pico.load()
    assert result.specs == []
    assert result.diagnostics[0].file == str(path)
    assert result.diagnostics[0].message.startswith("invalid JSON: ")


def test_bad_defaults_are_reported_per_key(pico: Pico) -> None:
    result = pico.load({"defaults": {"approval_timeout_ms": "soon"}, "processes": {"a": good()}})
    assert diagnostics(result)[0][0] == "hooks.defaults.approval_timeout_ms"
    assert loaded_names(result) == {"a"}


def test_observe_only_process_is_carried_by_a_disabled_spec(pico: Pico) -> None:
    result = pico.load({"processes": {"watch": {"command": CMD, "observe": ["*"]}}})
    (spec,) = result.specs
    assert not spec.enabled
    assert not isinstance(spec.handler, Handler)


# Builtins ----------------------------------------------------------------------------------


class Suffixer:
    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config

    def before_llm(self, params: dict[str, Any]) -> dict[str, Any]:
        request = dict(params, model=self.config["model"])
        return {"action": "modify", "request": request}

    async def after_llm(self, params: dict[str, Any]) -> dict[str, Any]:
        wrapper = json.loads(json.dumps(params))
        wrapper["response"]["content"] += self.config["suffix"]
        return {"action": "modify", "response": wrapper}


def make_suffixer(config: dict[str, Any]) -> Suffixer:
    return Suffixer(config)


def make_nothing(config: Any) -> object:
    return object()


def test_builtin_import_failure_is_reported_and_others_run(pico: Pico) -> None:
    result = pico.load(
        {
            "builtins": {
                "missing": {"factory": "no_such_module_xyz:make"},
                "unregistered": {},
                "good": {"factory": f"{__name__}:make_suffixer", "config": {"model": "m"}},
            }
        }
    )
    assert [(d.path, d.message.split(":")[0]) for d in result.diagnostics] == [
        ("hooks.builtins.missing", "cannot create builtin"),
        ("hooks.builtins.unregistered", "cannot create builtin"),
    ]
    assert "No module named 'no_such_module_xyz'" in result.diagnostics[0].message
    assert "not registered" in result.diagnostics[1].message
    assert {(s.name, s.event) for s in result.specs} == {
        ("good", Event.PreModelCall),
        ("good", Event.PostModelCall),
    }
    assert all(s.source == "project" for s in result.specs)


def test_builtin_found_by_registered_name(pico: Pico) -> None:
    register_builtin("suffix", make_suffixer)
    try:
        result = pico.load({"builtins": {"suffix": {"config": {"model": "m", "suffix": "!"}}}})
    finally:
        unregister_builtin("suffix")
    assert loaded_names(result) == {"suffix"} and result.diagnostics == []


def test_builtin_without_hook_methods_is_reported(pico: Pico) -> None:
    result = pico.load({"builtins": {"empty": {"factory": f"{__name__}:make_nothing"}}})
    assert diagnostics(result) == [
        ("hooks.builtins.empty", "builtin implements none of the hook methods")
    ]
