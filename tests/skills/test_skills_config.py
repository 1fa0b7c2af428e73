"""Loading skill hooks from real `skills/<skill>/hooks/` trees under tmp_path."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hookwright.skills import TIMINGS, HookInfo, SkillHookError, scan_hooks

_DROP = object()
"""Pass as a field value to `entry` to leave the field out."""


def entry(name: str, /, **overrides: Any) -> dict[str, Any]:
    hook: dict[str, Any] = {
        "name": name,
        "file": f"{name}.md",
        "timing": "after_user_input",
        "role": "system",
        "persistent": False,
    }
    hook.update(overrides)
    return {key: value for key, value in hook.items() if value is not _DROP}


def write_skill(
    root: Path,
    skill: str,
    hooks: list[Any] | str,
    files: dict[str, str] | None = None,
    *,
    default_files: bool = True,
) -> Path:
    """Write a skill's hooks.json (list → {"hooks": list}, str → verbatim) and its .md files."""
    hooks_dir = root / skill / "hooks"
    hooks_dir.mkdir(parents=True, exist_ok=True)
    text = hooks if isinstance(hooks, str) else json.dumps({"hooks": hooks})
    (hooks_dir / "hooks.json").write_text(text, encoding="utf-8")
    if default_files and isinstance(hooks, list):
        for hook in hooks:
            if isinstance(hook, dict) and isinstance(hook.get("file"), str):
                target = hooks_dir / hook["file"]
                if target.suffix == ".md" and target.parent == hooks_dir:
                    target.write_text(f"prompt of {hook.get('name')}\n", encoding="utf-8")
    for name, content in (files or {}).items():
        (hooks_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (hooks_dir / name).write_text(content, encoding="utf-8")
    return hooks_dir


def test_loads_every_field(tmp_path: Path) -> None:
    write_skill(
        tmp_path,
        "reader",
        [
            entry(
                "truncated-content-hint",
                timing="after_tool_call",
                persistent=True,
                role="user",
                tool_filter=["read_file", "search_text"],
            )
        ],
        {"truncated-content-hint.md": "The output was truncated.\nRead the rest in pages.\n"},
    )
    errors: list[SkillHookError] = []

    hooks = scan_hooks(["reader"], str(tmp_path), errors=errors)

    assert errors == []
    assert hooks == [
        HookInfo(
            name="truncated-content-hint",
            file="truncated-content-hint.md",
            timing="after_tool_call",
            role="user",
            persistent=True,
            tool_filter=["read_file", "search_text"],
            content="The output was truncated.\nRead the rest in pages.",
            skill="reader",
        )
    ]


def test_tool_filter_absent_or_null_means_every_tool(tmp_path: Path) -> None:
    write_skill(
        tmp_path,
        "s",
        [entry("absent", timing="after_tool_call"), entry("null", tool_filter=None)],
    )

    hooks = scan_hooks(["s"], str(tmp_path))

    assert [(h.name, h.tool_filter) for h in hooks] == [("absent", None), ("null", None)]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("text\n", "text"),
        ("text\n\n", "text\n"),
        ("  indented  \n", "  indented  "),
        ("\nleading kept", "\nleading kept"),
        ("windows\r\n", "windows"),
        ("中文提示:先读完整文件。\n", "中文提示:先读完整文件。"),
        ("\ufeffbom stripped\n", "bom stripped"),
    ],
)
def test_content_is_utf8_with_one_trailing_newline_stripped(
    tmp_path: Path, raw: str, expected: str
) -> None:
    hooks_dir = write_skill(tmp_path, "s", [entry("h")], default_files=False)
    (hooks_dir / "h.md").write_bytes(raw.encode("utf-8"))

    [hook] = scan_hooks(["s"], str(tmp_path))

    assert hook.content == expected


def test_order_follows_enabled_skills_then_file(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha", [entry("a1"), entry("a2"), entry("a3")])
    write_skill(tmp_path, "beta", [entry("b1"), entry("b2")])

    hooks = scan_hooks(["beta", "alpha"], str(tmp_path))

    assert [(h.skill, h.name) for h in hooks] == [
        ("beta", "b1"),
        ("beta", "b2"),
        ("alpha", "a1"),
        ("alpha", "a2"),
        ("alpha", "a3"),
    ]


def test_only_enabled_skills_are_scanned(tmp_path: Path) -> None:
    write_skill(tmp_path, "on", [entry("kept")])
    write_skill(tmp_path, "off", [entry("ignored")])
    write_skill(tmp_path, "broken-off", "{ not json")
    errors: list[SkillHookError] = []

    hooks = scan_hooks(["on"], str(tmp_path), errors=errors)

    assert [h.name for h in hooks] == ["kept"]
    assert errors == []
    assert scan_hooks([], str(tmp_path)) == []


def test_skill_listed_twice_is_scanned_once(tmp_path: Path) -> None:
    write_skill(tmp_path, "s", [entry("h")])

    hooks = scan_hooks(["s", "s"], str(tmp_path))

    assert [h.name for h in hooks] == ["h"]


def test_default_skills_dir_is_cwd_skills(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_skill(tmp_path / "skills", "s", [entry("from-cwd")])
    monkeypatch.chdir(tmp_path)

    assert [h.name for h in scan_hooks(["s"])] == ["from-cwd"]


def test_missing_directories_mean_no_hooks_and_no_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "skills" / "no-hooks-dir").mkdir(parents=True)
    (tmp_path / "skills" / "no-hooks-json" / "hooks").mkdir(parents=True)
    (tmp_path / "skills" / "no-hooks-json" / "hooks" / "stray.md").write_text("x")
    errors: list[SkillHookError] = []

    with caplog.at_level(logging.WARNING, logger="hookwright.skills"):
        assert scan_hooks(["x"], str(tmp_path / "absent"), errors=errors) == []
        assert (
            scan_hooks(
                ["missing-skill", "no-hooks-dir", "no-hooks-json"],
                str(tmp_path / "skills"),
                errors=errors,
            )
            == []
        )

    assert errors == []
    assert caplog.records == []


def test_duplicate_name_across_skills_is_allowed(tmp_path: Path) -> None:
    write_skill(tmp_path, "one", [entry("shared")])
    write_skill(tmp_path, "two", [entry("shared")])
    errors: list[SkillHookError] = []

    hooks = scan_hooks(["one", "two"], str(tmp_path), errors=errors)

    assert [(h.skill, h.name) for h in hooks] == [("one", "shared"), ("two", "shared")]
    assert errors == []


def _bad_entry(hook: dict[str, Any], files: dict[str, str] | None = None) -> Callable[[Path], str]:
    def build(root: Path) -> str:
        write_skill(root, "bad", [entry("good-before"), hook, entry("good-after")], files)
        return "hooks[1]"

    return build


def _symlink_escape(root: Path) -> str:
    secret = root / "secret.md"
    secret.write_text("outside\n")
    hooks_dir = write_skill(
        root, "bad", [entry("good-before"), entry("link", file="link.md"), entry("good-after")]
    )
    (hooks_dir / "link.md").unlink()
    (hooks_dir / "link.md").symlink_to(secret)
    return "hooks[1]"


def _md_is_directory(root: Path) -> str:
    hooks_dir = write_skill(root, "bad", [entry("good-before"), entry("dir", file="sub")])
    (hooks_dir / "sub").mkdir()
    (hooks_dir / "good-after.md").write_text("x")
    hooks = json.loads((hooks_dir / "hooks.json").read_text())
    hooks["hooks"].append(entry("good-after"))
    (hooks_dir / "hooks.json").write_text(json.dumps(hooks))
    return "hooks[1]"


def _missing_md(root: Path) -> str:
    hooks_dir = write_skill(root, "bad", [entry("good-before"), entry("gone"), entry("good-after")])
    (hooks_dir / "gone.md").unlink()
    return "hooks[1]"


def _invalid_utf8_md(root: Path) -> str:
    hooks_dir = write_skill(
        root, "bad", [entry("good-before"), entry("latin"), entry("good-after")]
    )
    (hooks_dir / "latin.md").write_bytes(b"caf\xe9\n")
    return "hooks[1]"


def _duplicate_name(root: Path) -> str:
    hooks_dir = write_skill(root, "bad", [entry("good-before"), entry("good-after")])
    data = json.loads((hooks_dir / "hooks.json").read_text())
    data["hooks"].append(entry("good-before", file="other.md"))
    (hooks_dir / "other.md").write_text("second definition\n")
    (hooks_dir / "hooks.json").write_text(json.dumps(data))
    return "hooks[2]"


# Each case writes a skill "bad" whose hooks.json has one broken hook between two good ones and
# returns where the broken hook sits; then the field the error names and a fragment of its message.
ENTRY_CASES: list[tuple[str, Callable[[Path], str], str, str]] = [
    *[
        (f"missing-{field}", _bad_entry(entry("h", **{field: _DROP})), field, "missing required")
        for field in ("name", "file", "timing", "role", "persistent")
    ],
    ("name-wrong-type", _bad_entry(entry("h", name=7)), "name", "must be a string"),
    ("name-empty", _bad_entry(entry("h", name="  ", file="h.md")), "name", "must not be empty"),
    ("file-wrong-type", _bad_entry(entry("h", file=["h.md"])), "file", "must be a string"),
    ("timing-wrong-type", _bad_entry(entry("h", timing=3)), "timing", "must be a string"),
    ("role-wrong-type", _bad_entry(entry("h", role=None)), "role", "got null"),
    ("persistent-string", _bad_entry(entry("h", persistent="true")), "persistent", "boolean"),
    ("persistent-number", _bad_entry(entry("h", persistent=1)), "persistent", "got number"),
    (
        "tool-filter-string",
        _bad_entry(entry("h", timing="after_tool_call", tool_filter="read_file")),
        "tool_filter",
        "array of strings",
    ),
    (
        "tool-filter-item",
        _bad_entry(entry("h", timing="after_tool_call", tool_filter=["read_file", 3])),
        "tool_filter[1]",
        "non-empty string",
    ),
    (
        "tool-filter-empty",
        _bad_entry(entry("h", timing="after_tool_call", tool_filter=[])),
        "tool_filter",
        "match no tool",
    ),
    ("unknown-timing", _bad_entry(entry("h", timing="before_lunch")), "timing", "before_lunch"),
    ("bad-role", _bad_entry(entry("h", role="assistant")), "role", "'assistant'"),
    ("missing-md", _missing_md, "file", "not found"),
    ("md-is-directory", _md_is_directory, "file", "not a regular file"),
    ("invalid-utf8-md", _invalid_utf8_md, "file", "UTF-8"),
    (
        "empty-md",
        _bad_entry(entry("h", file="blank.md"), {"blank.md": "  \n"}),
        "file",
        "empty",
    ),
    (
        "dotdot-escape",
        _bad_entry(entry("h", file="../x.md"), {"../x.md": "x\n"}),
        "file",
        "escapes",
    ),
    (
        "deep-dotdot-escape",
        _bad_entry(entry("h", file="sub/../../../other/hooks/x.md")),
        "file",
        "escapes",
    ),
    ("absolute-path", _bad_entry(entry("h", file="/etc/hostname")), "file", "relative"),
    ("symlink-escape", _symlink_escape, "file", "escapes"),
    ("duplicate-name", _duplicate_name, "name", "duplicate hook name 'good-before'"),
]


@pytest.mark.parametrize(
    ("build", "field", "fragment"), [pytest.param(*c[1:], id=c[0]) for c in ENTRY_CASES]
)
def test_bad_hook_is_rejected_named_and_isolated(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    build: Callable[[Path], str],
    field: str,
    fragment: str,
) -> None:
    where = build(tmp_path)
    write_skill(tmp_path, "other", [entry("other-hook")])
    errors: list[SkillHookError] = []

    with caplog.at_level(logging.WARNING, logger="hookwright.skills"):
        hooks = scan_hooks(["bad", "other"], str(tmp_path), errors=errors)

    assert [(h.skill, h.name) for h in hooks] == [
        ("bad", "good-before"),
        ("bad", "good-after"),
        ("other", "other-hook"),
    ]
    assert [h.content for h in hooks if h.name == "good-before"] == ["prompt of good-before"]
    [error] = errors
    assert error.skill == "bad"
    assert error.file == str(tmp_path / "bad" / "hooks" / "hooks.json")
    assert error.field == f"{where}.{field}"
    assert fragment in error.message
    text = str(error)
    assert "'bad'" in text and error.file in text and error.field in text and fragment in text
    assert [r.getMessage() for r in caplog.records] == [f"rejected skill hook: {error}"]
    assert all(
        r.name == "hookwright.skills" and r.levelno == logging.WARNING for r in caplog.records
    )


def test_every_problem_of_one_hook_is_reported(tmp_path: Path) -> None:
    write_skill(
        tmp_path,
        "s",
        [{"name": "h", "file": "nope.md", "timing": "soon", "role": "bot"}],
        default_files=False,
    )
    errors: list[SkillHookError] = []

    assert scan_hooks(["s"], str(tmp_path), errors=errors) == []

    assert sorted(e.field for e in errors) == [
        "hooks[0].file",
        "hooks[0].persistent",
        "hooks[0].role",
        "hooks[0].timing",
    ]
    assert all(e.message.startswith("hook 'h': ") for e in errors)


FILE_CASES = [
    ("bad-json", '{"hooks": [', "", "invalid JSON"),
    ("top-level-array", "[]", "", "must be an object, got array"),
    ("hooks-missing", '{"hoks": []}', "hooks", "missing required field"),
    ("hooks-not-array", '{"hooks": {"name": "x"}}', "hooks", "must be an array, got object"),
]


@pytest.mark.parametrize(
    ("raw", "field", "fragment"), [pytest.param(*c[1:], id=c[0]) for c in FILE_CASES]
)
def test_bad_file_is_rejected_whole_and_isolated(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, raw: str, field: str, fragment: str
) -> None:
    write_skill(tmp_path, "before", [entry("b")])
    write_skill(tmp_path, "bad", raw, {"x.md": "x\n"})
    write_skill(tmp_path, "after", [entry("a")])
    errors: list[SkillHookError] = []

    with caplog.at_level(logging.WARNING, logger="hookwright.skills"):
        hooks = scan_hooks(["before", "bad", "after"], str(tmp_path), errors=errors)

    assert [(h.skill, h.name) for h in hooks] == [("before", "b"), ("after", "a")]
    [error] = errors
    assert (error.skill, error.field) == ("bad", field)
    assert error.file == str(tmp_path / "bad" / "hooks" / "hooks.json")
    assert fragment in error.message
    assert fragment in str(error) and "'bad'" in str(error)
    assert len(caplog.records) == 1


def test_entry_that_is_not_an_object_is_rejected(tmp_path: Path) -> None:
    write_skill(tmp_path, "s", [entry("first"), "just a string", entry("last")])
    errors: list[SkillHookError] = []

    hooks = scan_hooks(["s"], str(tmp_path), errors=errors)

    assert [h.name for h in hooks] == ["first", "last"]
    assert [(e.field, e.message) for e in errors] == [
        ("hooks[1]", "hook must be an object, got string")
    ]


@pytest.mark.parametrize("skill", ["../outside", "a/b", "..", ""])
def test_skill_name_must_be_a_plain_directory_name(tmp_path: Path, skill: str) -> None:
    write_skill(tmp_path / "skills", "ok", [entry("ok")])
    write_skill(tmp_path, "outside", [entry("escaped")])
    errors: list[SkillHookError] = []

    hooks = scan_hooks([skill, "ok"], str(tmp_path / "skills"), errors=errors)

    assert [h.name for h in hooks] == ["ok"]
    [error] = errors
    assert (error.skill, error.field) == (skill, "enabled_skills[0]")


def test_symlink_inside_hooks_dir_is_allowed(tmp_path: Path) -> None:
    hooks_dir = write_skill(tmp_path, "s", [entry("h", file="alias.md")], {"real/h.md": "real\n"})
    (hooks_dir / "alias.md").unlink()
    (hooks_dir / "alias.md").symlink_to(hooks_dir / "real" / "h.md")

    [hook] = scan_hooks(["s"], str(tmp_path))

    assert hook.content == "real"


def test_errors_are_logged_without_a_list_and_nothing_raises(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_skill(tmp_path, "s", [entry("h", timing="never")])

    with caplog.at_level(logging.WARNING, logger="hookwright.skills"):
        assert scan_hooks(["s"], str(tmp_path)) == []

    [record] = caplog.records
    assert "'s'" in record.getMessage() and "hooks[0].timing" in record.getMessage()


def test_timings_are_the_five_checkpoints_in_request_order() -> None:
    assert TIMINGS == (
        "after_user_input",
        "before_planning",
        "before_first_agent",
        "before_each_agent",
        "after_tool_call",
    )


def test_every_timing_loads(tmp_path: Path) -> None:
    write_skill(tmp_path, "s", [entry(t, timing=t) for t in TIMINGS])

    assert [h.timing for h in scan_hooks(["s"], str(tmp_path))] == list(TIMINGS)


def test_a_misspelled_tool_filter_rejects_the_hook_and_other_typos_are_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Without its filter a hook would fire after every tool: a key that resembles
    `tool_filter` rejects it; a typo of another key is a warning; any other key is ignored."""
    hooks = [
        entry("wide", timing="after_tool_call", tool_fliter=["Read"]),
        entry("kept", persistant=True, future_option=1),
    ]
    write_skill(tmp_path, "s", hooks)
    errors: list[SkillHookError] = []
    with caplog.at_level(logging.WARNING, logger="hookwright.skills"):
        loaded = scan_hooks(["s"], str(tmp_path), errors=errors)
    assert [hook.name for hook in loaded] == ["kept"]
    [error] = errors
    assert "tool_fliter" in str(error) and "did you mean 'tool_filter'?" in str(error)
    assert "would run after every tool" in str(error)
    warned = [r.getMessage() for r in caplog.records if "persistant" in r.getMessage()]
    assert len(warned) == 1 and "did you mean 'persistent'?" in warned[0]
    assert not any("future_option" in r.getMessage() for r in caplog.records)
