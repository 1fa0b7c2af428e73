"""Claude Code version profiles: which one a session imitates, and what the model reads under
each, through `hookwright run` against a scripted Anthropic API."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conformance.compare import view
from conformance.fake_api import FakeAnthropic, ToolUse, Turn
from conformance.harness import Action, Case, Hook, cleanup, run

from claude_pin import pin_claude_code
from cli_runner import run_cli
from hookwright.dialects.claude_profiles import (
    NEWEST,
    STOP_PREAMBLE,
    V2_1_240,
    V2_1_295,
    V2_1_332,
    ClaudeCodeProfile,
    named_profile,
    profile_for,
)
from hookwright.dialects.claude_version_setting import choose_profile

DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "MARK no",
    }
}
CASE = Case(
    "profiles",
    "go",
    [
        Turn(tools=[ToolUse("toolu_a", "Bash", {"command": "echo hi > {project}/f.txt"})]),
        Turn("first"),
        Turn("second"),
    ],
    [
        Hook("PreToolUse", "deny", Action.json(DENY), matcher="Bash"),
        Hook(
            "Stop",
            "once",
            command="grep -q '\"stop_hook_active\":false' && "
            'printf \'{"decision":"block","reason":"MARK again"}\' || true',
        ),
    ],
)


def _model_view(version: str) -> list[list[str]]:
    with FakeAnthropic() as fake:
        observation = run("hookwright", CASE, fake, version=version)
    try:
        assert observation.returncode == 0, observation.stderr
        assert observation.files == {}
        return view(observation, frozenset({"model"}))["model"]
    finally:
        cleanup(observation)


def test_2_1_332_words_a_json_deny_as_a_hook_error_and_wraps_stop_feedback() -> None:
    model = _model_view("2.1.332")
    assert "tool_result toolu_a error=True: PreToolUse:Bash hook error: MARK no" in model[1]
    last = model[-1]
    reminder = (
        f"user: <system-reminder>\n{STOP_PREAMBLE}\nStop hook feedback:\nMARK again\n"
        "</system-reminder>"
    )
    assert reminder in last
    assert any(
        item.startswith("system: Stop hook blocking error from command: ")
        and item.endswith(": MARK again")
        for item in last
    )


def test_2_1_240_shows_the_reason_verbatim_and_bare_stop_feedback() -> None:
    model = _model_view("2.1.240")
    assert "tool_result toolu_a error=True: MARK no" in model[1]
    last = model[-1]
    assert "user: Stop hook feedback:\nMARK again" in last
    assert not any("blocking error" in item for item in last)


def test_a_version_behaves_as_the_newest_profile_not_after_it() -> None:
    assert profile_for((2, 1, 239)) is V2_1_240
    assert profile_for((2, 1, 300)) is V2_1_295
    assert profile_for((2, 1, 331)) is V2_1_295
    assert profile_for((3, 0, 0)) is V2_1_332 is NEWEST
    assert profile_for(None) is NEWEST
    assert named_profile(" 2.1.240 ") is V2_1_240
    with pytest.raises(ValueError, match="not a Claude Code version: 'latest'"):
        named_profile("latest")


@pytest.mark.parametrize(
    ("profile", "names"),
    [
        # As `/model NAME` printed them (measured): 2.1.240 names a model it does not list by
        # the listed one its id extends, or by its id.
        (
            V2_1_240,
            {
                "claude-sonnet-5-5": "Sonnet 5",
                "claude-haiku-5-5": "claude-haiku-5-5",
                "claude-fable-5-2": "Fable 5",
                "claude-haiku-4-5-20251001": "Haiku 4.5",
                "haiku": "Haiku 4.5",
                "gpt-x": "gpt-x",
            },
        ),
        (
            V2_1_332,
            {
                "claude-sonnet-5-5": "Sonnet 5.5",
                "claude-haiku-5-5": "Haiku 5.5",
                "claude-fable-5-2": "Fable 5.2",
                "opus": "Opus 5.5",
                "claude-foo-9": "claude-foo-9",
            },
        ),
    ],
)
def test_each_version_names_models_as_its_catalog_does(
    profile: ClaudeCodeProfile, names: dict[str, str]
) -> None:
    assert {model: profile.display_name(model) for model in names} == names


def test_a_switch_is_priced_by_the_catalog_of_the_version() -> None:
    assert V2_1_332.cache_write("claude-opus-5-5", 1_000_000) == (5.0, "catalog")
    assert V2_1_332.cache_write("claude-haiku-5-5", 100_000) == (0.0125, "catalog")
    assert V2_1_332.cache_write("claude-haiku-5-5", 100_001) == (0.0625, "catalog")
    assert V2_1_295.cache_write("claude-opus-5-5", 1_000_000) == (6.25, "default")
    assert V2_1_240.cache_write("sonnet", 2_000_000) == (5.0, "catalog")


def _settings(folder: Path, value: object) -> None:
    (folder / ".hookwright").mkdir(parents=True, exist_ok=True)
    text = json.dumps({"claudeCodeVersion": value})
    (folder / ".hookwright" / "settings.json").write_text(text)


def test_the_flag_wins_then_a_trusted_project_then_the_user(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    pin_claude_code(home, "2.1.300")
    _settings(project, "2.1.240")

    def chosen(given: str | None, trusted: bool, user: Path = home) -> object:
        return choose_profile(given, project, user, project_trusted=trusted, environ={})

    assert chosen("2.1.332", True) == (V2_1_332, [])
    assert chosen(None, True) == (V2_1_240, [])
    # An untrusted repository cannot pick an older version (and so turn off onFailure).
    assert chosen(None, False) == (V2_1_295, [])
    assert chosen(None, False, tmp_path / "nobody") == (NEWEST, [])


def test_an_unusable_setting_is_one_line_naming_the_file_and_the_next_choice_holds(
    tmp_path: Path,
) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    _settings(project, 2.1)
    _settings(home, "soon")
    profile, problems = choose_profile(None, project, home, project_trusted=True, environ={})
    assert profile is NEWEST
    assert problems == [
        f"{project / '.hookwright' / 'settings.json'}: claudeCodeVersion: expected a version "
        'string such as "2.1.332"',
        f"{home / '.hookwright' / 'settings.json'}: claudeCodeVersion: not a Claude Code "
        "version: 'soon' (profiles: 2.1.240, 2.1.295, 2.1.332)",
    ]


def test_the_environment_comes_after_the_flag_and_before_the_settings(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    _settings(project, "2.1.332")
    environ = {"HOOKWRIGHT_CLAUDE_CODE_VERSION": "2.1.240"}
    assert choose_profile(None, project, home, project_trusted=True, environ=environ) == (
        V2_1_240,
        [],
    )
    assert choose_profile("2.1.300", project, home, project_trusted=True, environ=environ)[0] is (
        V2_1_295
    )
    bad = {"HOOKWRIGHT_CLAUDE_CODE_VERSION": "new"}
    assert choose_profile(None, project, home, project_trusted=True, environ=bad) == (
        V2_1_332,
        [
            "$HOOKWRIGHT_CLAUDE_CODE_VERSION: not a Claude Code version: 'new' "
            "(profiles: 2.1.240, 2.1.295, 2.1.332)"
        ],
    )


def test_a_bad_flag_is_a_one_line_error_from_hookwright_run(tmp_path: Path) -> None:
    args = ["run", "go", "--project", str(tmp_path), "--model", "scripted:none.json"]
    done = run_cli([*args, "--claude-code-version", "two"], dict(os.environ), stdin="", timeout=60)
    assert done.returncode == 2
    assert done.stderr == (
        "hookwright: error: --claude-code-version: not a Claude Code version: 'two' "
        "(profiles: 2.1.240, 2.1.295, 2.1.332)\n"
    )


@pytest.mark.parametrize("profile", [V2_1_240, V2_1_295, V2_1_332])
def test_every_name_for_a_model_means_a_model_of_the_version_catalog(
    profile: ClaudeCodeProfile,
) -> None:
    """A name `/model` alone lists switches to a model the version knows (so no switch by one
    of its own names reads `pricing: "default"` or gets the unknown-model note)."""
    for alias in profile.model_aliases:
        for model in (alias.model, *alias.also):
            assert profile.cache_write(model, 1)[1] == "catalog", (profile.shown, alias.name)
            assert profile.unrecognized(model) is None
    assert V2_1_332.unrecognized("claude-foo-9") is not None
    assert V2_1_240.unrecognized("claude-foo-9") is None


def _models_of(model: str, mode: str, version: str) -> tuple[list[str], list[str]]:
    """The model of each request of a session started on `model` in `mode`, and the effort
    levels its hooks read."""
    case = Case(
        "model-flag",
        "go",
        [Turn(tools=[ToolUse("toolu_a", "Bash", {"command": "true"})]), Turn("done")],
        [Hook("PreToolUse", "pre"), Hook("Stop", "stop")],
        permission_mode=mode,
        hookwright_args=("--model", f"anthropic:{model}"),
    )
    with FakeAnthropic() as fake:
        observation = run("hookwright", case, fake, version=version)
    try:
        assert observation.returncode == 0, observation.stderr
        efforts = [json.loads(h["stdin"])["effort"]["level"] for h in observation.hooks]
        return view(observation, frozenset({"models"}))["models"], efforts
    finally:
        cleanup(observation)


@pytest.mark.parametrize(
    ("version", "sonnet", "opus", "effort"),
    [
        ("2.1.240", "claude-sonnet-5", "claude-opus-5", "high"),
        ("2.1.332", "claude-sonnet-5-5", "claude-opus-5-5", "medium"),
    ],
)
def test_opusplan_calls_opus_in_plan_mode_and_sonnet_otherwise(
    version: str, sonnet: str, opus: str, effort: str
) -> None:
    assert _models_of("opusplan", "bypassPermissions", version) == ([sonnet] * 2, [effort] * 2)
    planned, _ = _models_of("opusplan", "plan", version)
    assert planned and set(planned) == {opus}


def test_a_switch_asks_first_about_the_model_the_requests_go_to() -> None:
    """``/model opusplan`` asks about the Opus of plan mode first in plan mode, as many models
    as out of it; a name without a plan-mode model, or no name of the version, is unchanged."""
    assert V2_1_332.switch_models("opusplan") == ("claude-sonnet-5-5", "claude-opus-5-5")
    plan = V2_1_332.switch_models("opusplan", planning=True)
    assert plan == ("claude-opus-5-5", "claude-sonnet-5-5")
    assert V2_1_240.switch_models("opusplan") == ("claude-sonnet-5",)
    assert V2_1_240.switch_models("opusplan", planning=True) == ("claude-opus-5",)
    haiku = V2_1_332.switch_models("haiku", planning=True)
    assert haiku == ("claude-haiku-5-5", "claude-sonnet-5-5")
    assert V2_1_332.switch_models("claude-foo-9", planning=True) == ("claude-foo-9",)


def test_a_1m_tag_is_left_off_the_requests_model() -> None:
    assert _models_of("sonnet[1m]", "bypassPermissions", "2.1.332") == (
        ["claude-sonnet-5-5"] * 2,
        ["medium"] * 2,
    )
    models, _ = _models_of("claude-opus-5[1M]", "bypassPermissions", "2.1.240")
    assert models == ["claude-opus-5"] * 2
    assert V2_1_332.request_model("claude-foo-9[1m]") == "claude-foo-9"
    assert V2_1_332.request_model("claude-foo-9[2m]") == "claude-foo-9[2m]"
