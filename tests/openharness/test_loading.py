"""Discovery, validation, diagnostics, workspace kind and the schema (seed: directory layout,
top-level fields, handler fields; spec §1 and the tests upstream never wrote)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookwright import Event
from hookwright.config.loading import Diagnostic, LoadContext, LoadResult, sources
from hookwright.config.trust import TrustPolicy
from hookwright.dialects.openharness import discover, json_schema, load_workspace

from .helpers import Workspace

OK_HANDLER = {"type": "command", "command": "true"}


def hook(name: str, events: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    chosen = ["before_tool_dispatch"] if events is None else events
    return {"name": name, "events": chosen, "handler": OK_HANDLER} | extra


def loaded(ws: Workspace, **options: Any) -> LoadResult:
    return load_workspace(ws.root, home=ws.home, environ=options.pop("environ", {}), **options)


def errors(result: LoadResult) -> list[Diagnostic]:
    return [d for d in result.diagnostics if d.severity == "error"]


def only(result: LoadResult, severity: str = "error") -> Diagnostic:
    found = [d for d in result.diagnostics if d.severity == severity]
    assert len(found) == 1, result.diagnostics
    return found[0]


# Discovery --------------------------------------------------------------------------------


def test_no_openharness_directory_loads_nothing(ws: Workspace) -> None:
    (ws.root / ".openharness" / "hooks" / "scripts").rmdir()
    (ws.root / ".openharness" / "hooks").rmdir()
    result = loaded(ws)
    assert result.specs == [] and result.diagnostics == []


def test_files_load_sorted_by_name(ws: Workspace) -> None:
    for name in ("30-c", "10-a", "20-b"):
        ws.hook(f"{name}.yaml", hook(name))
    result = loaded(ws)
    assert [s.name for s in result.specs] == ["10-a", "20-b", "30-c"]
    assert result.diagnostics == []


def test_yml_loads_with_a_warning(ws: Workspace) -> None:
    path = ws.hook("legacy.yml", hook("legacy"))
    result = loaded(ws)
    assert [s.name for s in result.specs] == ["legacy"]
    notice = only(result, "warning")
    assert notice.file == str(path.resolve()) and ".yaml" in notice.message


def test_subdirectories_and_other_files_are_never_hooks(ws: Workspace) -> None:
    for sub in ("scripts", "prompts", "resources", "nested"):
        (ws.hooks / sub).mkdir(exist_ok=True)
        (ws.hooks / sub / "fake.yaml").write_text(json.dumps(hook(f"in-{sub}")))
    (ws.hooks / "README.md").write_text("# not a hook")
    (ws.hooks / "notes.yaml.bak").write_text("name: [")
    ws.hook("real.yaml", hook("real"))
    result = loaded(ws)
    assert [s.name for s in result.specs] == ["real"]
    assert result.diagnostics == []


def test_one_spec_per_event_with_the_openharness_metadata(ws: Workspace) -> None:
    path = ws.hook(
        "multi.yaml",
        hook("multi", ["before_tool_dispatch", "after_tool_dispatch", "run_completed"]),
    )
    specs = loaded(ws).specs
    assert [s.event for s in specs] == [Event.PreToolUse, Event.PostToolUse, Event.Stop]
    assert [s.dialect_data.event for s in specs] == [
        "before_tool_dispatch",
        "after_tool_dispatch",
        "run_completed",
    ]
    for spec in specs:
        assert (spec.dialect, spec.source, spec.mode) == ("openharness", "project", "chain")
        assert spec.dialect_data.file == str(path.resolve())
        assert spec.dialect_data.timeout_seconds == 30.0
        assert spec.timeout is not None and spec.timeout >= 30.0


def test_every_event_maps_to_its_canonical_event(ws: Workspace) -> None:
    expected = {
        "before_context_build": Event.PreContextBuild,
        "after_context_build": Event.PostContextBuild,
        "before_model_call": Event.PreModelCall,
        "after_model_call": Event.PostModelCall,
        "before_tool_dispatch": Event.PreToolUse,
        "after_tool_dispatch": Event.PostToolUse,
        "run_completed": Event.Stop,
        "run_failed": Event.StopFailure,
        "before_context_compact": Event.PreCompact,
        "after_context_compact": Event.PostCompact,
    }
    ws.hook("all.yaml", hook("all", list(expected)))
    specs = loaded(ws).specs
    assert {s.dialect_data.event: s.event for s in specs} == expected


def test_timeout_seconds_is_kept(ws: Workspace) -> None:
    ws.hook("t.yaml", hook("t", handler={**OK_HANDLER, "timeout_seconds": 5}))
    (spec,) = loaded(ws).specs
    assert spec.dialect_data.timeout_seconds == 5.0
    assert spec.timeout is not None and 5.0 <= spec.timeout < 30.0


def test_registered_source_needs_the_project_trusted(ws: Workspace) -> None:
    ws.hook("a.yaml", hook("a"))
    assert sources()["openharness"] is discover
    discovery = discover(LoadContext(project_dir=ws.root, home=ws.home))
    assert [(h.name, h.trust_root) for h in discovery.hooks] == [("a", ws.root.resolve())]
    assert discovery.bind(TrustPolicy()).specs == []
    result = discovery.bind(TrustPolicy().with_folder(ws.root))
    assert [s.name for s in result.specs] == ["a"]


# Validation errors name the file and the field path ----------------------------------------


@pytest.mark.parametrize(
    ("doc", "field", "words"),
    [
        (hook("bad name!"), "name", "pattern"),
        (hook("a", ["before_everything"]), "events[0]", "before_context_build"),
        (hook("a", []), "events", "at least 1"),
        (hook("a", ["run_failed", "run_failed"]), "events", "duplicate"),
        (hook("a", capabilities=["root_access"]), "capabilities[0]", "rewrite_context"),
        (hook("a", capabilities=["suppress_output"] * 2), "capabilities", "duplicate"),
        (hook("a", priority=3), "priority", "unknown field"),
        (
            hook("a", handler={**OK_HANDLER, "timeout_seconds": 0}),
            "handler.timeout_seconds",
            "greater",
        ),
        (hook("a", handler={**OK_HANDLER, "timeout_seconds": "5"}), "handler.timeout_seconds", ""),
        (hook("a", handler={**OK_HANDLER, "shell": "bash"}), "handler.shell", "unknown field"),
        (
            hook("a", handler={**OK_HANDLER, "environment": {"MODE": 1}}),
            "handler.environment.MODE",
            "string",
        ),
        (hook("a", handler={"type": "command"}), "handler.command", "required"),
        (hook("a", handler={"type": "grpc"}), "handler", "command"),
        (hook("a", handler={"type": "http", "url": "ftp://x/y"}), "handler.url", "http"),
        (
            hook("a", handler={"type": "http", "url": "http://h/", "method": "TRACE"}),
            "handler.method",
            "GET",
        ),
        (
            hook("a", handler={"type": "prompt", "prompt": {"inline": "x", "file": "y"}}),
            "handler.prompt",
            "exactly one",
        ),
        (hook("a", handler={"type": "agent", "agent": "rev"}), "handler.task", "required"),
        (hook("a", matcher=""), "matcher", "at least 1"),
    ],
)
def test_schema_errors_name_the_field(
    ws: Workspace, doc: dict[str, Any], field: str, words: str
) -> None:
    ok = ws.hook("a-ok.yaml", hook("fine"))
    bad = ws.hook("b-bad.yaml", doc)
    result = loaded(ws)
    assert [s.name for s in result.specs] == ["fine"], "a bad file never stops the others"
    diagnostic = only(result)
    assert (diagnostic.file, diagnostic.path) == (str(bad.resolve()), field)
    assert words in diagnostic.message
    assert ok.exists()


def test_missing_required_fields_are_each_reported(ws: Workspace) -> None:
    ws.hook("empty-ish.yaml", {"matcher": "Bash"})
    result = loaded(ws)
    assert sorted(d.path for d in errors(result)) == ["events", "handler", "name"]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("name: [unclosed\n", "invalid YAML"),
        ("", "empty hook file"),
        ("- just\n- a list\n", "expected a mapping"),
    ],
)
def test_unreadable_files_are_reported_and_skipped(ws: Workspace, text: str, words: str) -> None:
    bad = ws.hook("bad.yaml", text)
    ws.hook("good.yaml", hook("good"))
    result = loaded(ws)
    assert [s.name for s in result.specs] == ["good"]
    diagnostic = only(result)
    assert diagnostic.file == str(bad.resolve()) and words in diagnostic.message


def test_duplicate_name_rejects_the_second_file(ws: Workspace) -> None:
    first = ws.hook("a.yaml", hook("same"))
    second = ws.hook("b.yaml", hook("same", ["run_completed"]))
    result = loaded(ws)
    assert [(s.name, s.event) for s in result.specs] == [("same", Event.PreToolUse)]
    diagnostic = only(result)
    assert (diagnostic.file, diagnostic.path) == (str(second.resolve()), "name")
    assert str(first.resolve()) in diagnostic.message


def test_invalid_regex_is_a_load_error(ws: Workspace) -> None:
    bad = ws.hook("bad.yaml", hook("bad", matcher="Bash("))
    result = loaded(ws)
    assert result.specs == []
    diagnostic = only(result)
    assert (diagnostic.file, diagnostic.path) == (str(bad.resolve()), "matcher")
    assert "regex" in diagnostic.message


def test_matcher_on_context_events_only_warns_that_it_is_ignored(ws: Workspace) -> None:
    ws.hook("ctx.yaml", hook("ctx", ["before_context_build"], matcher="anything"))
    result = loaded(ws)
    (spec,) = result.specs
    assert spec.matcher is None
    assert only(result, "warning").path == "matcher"


def test_command_cwd_must_stay_inside_the_workspace(ws: Workspace) -> None:
    bad = ws.hook("bad.yaml", hook("bad", handler={**OK_HANDLER, "cwd": "../.."}))
    ws.hook("good.yaml", hook("good", handler={**OK_HANDLER, "cwd": "./.openharness"}))
    result = loaded(ws)
    assert [s.name for s in result.specs] == ["good"]
    diagnostic = only(result)
    assert (diagnostic.file, diagnostic.path) == (str(bad.resolve()), "handler.cwd")
    assert "outside the workspace" in diagnostic.message


def test_prompt_file_must_stay_inside_the_workspace(ws: Workspace, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("steal")
    ws.hook(
        "bad.yaml",
        hook("bad", handler={"type": "prompt", "prompt": {"file": str(outside)}}),
    )
    result = loaded(ws)
    assert result.specs == []
    assert only(result).path == "handler.prompt.file"


def test_missing_prompt_file_is_a_warning(ws: Workspace) -> None:
    ws.agent("x", "You check.")
    ws.hook(
        "p.yaml",
        hook("p", handler={"type": "agent", "agent": "x", "task": {"file": "nope.md"}}),
    )
    result = loaded(ws)
    assert len(result.specs) == 1
    assert only(result, "warning").path == "handler.task.file"


@pytest.mark.parametrize("agent", ["ghost", "../hooks/p"])
def test_an_agent_without_a_definition_is_a_warning(ws: Workspace, agent: str) -> None:
    ws.hook("p.yaml", hook("p", handler={"type": "agent", "agent": agent, "task": {"inline": "t"}}))
    result = loaded(ws)
    assert len(result.specs) == 1
    warning = only(result, "warning")
    assert warning.path == "handler.agent" and "agent_not_found" in warning.message


# ${env.NAME} --------------------------------------------------------------------------------


def test_env_placeholders_are_substituted_in_every_string(ws: Workspace) -> None:
    doc = hook(
        "env-${env.SUFFIX}",
        matcher="${env.TOOL}",
        handler={
            "type": "http",
            "url": "http://127.0.0.1:9/${ENV.SUFFIX}",
            "headers": {"X-Team": "${env.TEAM}"},
        },
    )
    ws.hook("e.yaml", doc)
    result = loaded(ws, environ={"SUFFIX": "one", "TOOL": "Bash", "TEAM": "core"})
    (spec,) = result.specs
    assert spec.name == "env-one"
    assert spec.matcher is not None and spec.matcher.pattern == "Bash"
    channel = spec.handler.codec.channel  # type: ignore[attr-defined]
    assert channel.url == "http://127.0.0.1:9/one"
    assert channel.headers == {"X-Team": "core"}


def test_unset_env_variable_names_the_file_and_field(ws: Workspace) -> None:
    bad = ws.hook(
        "e.yaml", hook("e", handler={**OK_HANDLER, "environment": {"TOKEN": "${env.MISSING}"}})
    )
    result = loaded(ws, environ={})
    assert result.specs == []
    diagnostic = only(result)
    assert (diagnostic.file, diagnostic.path) == (str(bad.resolve()), "handler.environment.TOKEN")
    assert "MISSING" in diagnostic.message


# Workspace kind -----------------------------------------------------------------------------


def test_chat_workspace_ignores_every_hook_and_says_so_once(ws: Workspace) -> None:
    ws.kind("chat")
    ws.hook("a.yaml", hook("a"))
    ws.hook("b.yaml", "name: [broken")
    result = loaded(ws)
    assert result.specs == []
    notice = only(result, "warning")
    assert len(result.diagnostics) == 1
    assert notice.path == "kind" and "chat" in notice.message and "2" in notice.message


def test_project_kind_and_absent_file_load_hooks(ws: Workspace) -> None:
    ws.hook("a.yaml", hook("a"))
    assert len(loaded(ws).specs) == 1
    ws.kind("project")
    result = loaded(ws)
    assert len(result.specs) == 1 and result.diagnostics == []


def test_unknown_kind_is_an_error_but_hooks_still_guard(ws: Workspace) -> None:
    ws.kind("team")
    ws.hook("a.yaml", hook("a"))
    result = loaded(ws)
    assert len(result.specs) == 1
    diagnostic = only(result)
    assert diagnostic.path == "kind" and "team" in diagnostic.message


# Schema -------------------------------------------------------------------------------------


def test_json_schema_describes_one_hook_file() -> None:
    schema = json_schema()
    assert schema["$schema"].endswith("2020-12/schema")
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"name", "events", "handler"}
    assert len(schema["properties"]["events"]["items"]["enum"]) == 10
    assert "patch_tool_input" in schema["properties"]["capabilities"]["items"]["enum"]
    for name in ("CommandHandler", "HttpHandler", "PromptHandler", "AgentHandler"):
        assert schema["$defs"][name]["additionalProperties"] is False
    source = schema["$defs"]["PromptSource"]
    assert source["oneOf"] == [{"required": ["inline"]}, {"required": ["file"]}]
    assert source["properties"]["inline"] == {"type": "string", "title": "Inline"}
    json.dumps(schema)
