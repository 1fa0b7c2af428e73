"""One hostile file (a non-UTF-8 byte, deep nesting, a huge integer, an alias bomb, a NUL in a
path, a FIFO) is one diagnostic naming it: every other file of every dialect still loads, and
the managed and user hooks still run."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from cli_runner import run_cli
from hookwright import Event, HookEngine, HookInput
from hookwright.config.loading import Diagnostic, LoadContext, discover
from hookwright.config.trust import TrustPolicy

DENY = json.dumps(
    {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "managed says no",
        }
    }
)

ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)

OH_GOOD = (
    "name: oh-good\nevents: [before_tool_dispatch]\nhandler: {type: command, command: 'true'}\n"
)

BAD_CONTENTS: dict[str, bytes] = {
    "non-utf8": b'{"hooks": {"\xff": 1}}',
    "deep": b'{"hooks": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "huge-integer": b'{"hooks": {"x": ' + b"9" * 5_000 + b"}}",
    "alias-bomb": ALIAS_BOMB.encode(),
}

#: Where a hostile file goes (relative to the project), and the message it must produce.
BAD_FILES = [
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".hookwright/hooks.yaml",
    ".openharness/hooks/bad.yaml",
    ".picoclaw/config.json",
    ".claude/plugins/bad/hooks/hooks.json",
]

MESSAGES = {
    "non-utf8": "not valid UTF-8",
    "deep": "nesting is deeper than 200 levels",
    "huge-integer": "more than 4300 digits",
    "alias-bomb": "aliases expand to more than",
}


@pytest.fixture
def ctx(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> LoadContext:
    managed = tmp_path / "managed"
    managed.mkdir()
    monkeypatch.setenv("HOOKWRIGHT_CLAUDE_MANAGED_DIR", str(managed))
    project = tmp_path / "proj"
    project.mkdir()
    return LoadContext(project_dir=project, home=isolated_home)


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        text = text.encode()
    path.write_bytes(text)
    return path


def claude_hooks(event: str, command: str) -> str:
    return json.dumps({"hooks": {event: [{"hooks": [{"type": "command", "command": command}]}]}})


def good_files(ctx: LoadContext, tmp_path: Path) -> None:
    """One valid hook in every file a bad file could otherwise take down with it."""
    deny = write(tmp_path / "deny.py", f"import sys\nsys.stdin.read()\nprint({DENY!r})\n")
    managed = Path(os.environ["HOOKWRIGHT_CLAUDE_MANAGED_DIR"])
    write(managed / "managed-settings.json", claude_hooks("PreToolUse", f"{sys.executable} {deny}"))
    write(ctx.home / ".claude" / "settings.json", claude_hooks("Stop", "true"))
    write(
        ctx.project_dir / ".claude" / "plugins" / "good" / "hooks" / "hooks.json",
        claude_hooks("SessionStart", "true"),
    )
    write(ctx.home / ".hookwright" / "mod.py", "def check(inp):\n    return None\n")
    write(
        ctx.home / ".hookwright" / "hooks.yaml",
        "hooks:\n  - {name: native-user, event: Stop, call: 'mod:check'}\n",
    )
    write(ctx.project_dir / ".openharness" / "hooks" / "good.yaml", OH_GOOD)
    write(
        ctx.home / ".picoclaw" / "config.json",
        json.dumps(
            {
                "hooks": {
                    "processes": {
                        "pico-user": {
                            "command": [sys.executable, "-c", "pass"],
                            "intercept": ["before_tool"],
                        }
                    }
                }
            }
        ),
    )


def hook_names(ctx: LoadContext) -> set[tuple[str, str]]:
    return {(hook.dialect, hook.source) for hook in discover(ctx).hooks}


@pytest.mark.parametrize("content", list(BAD_CONTENTS), ids=list(BAD_CONTENTS))
@pytest.mark.parametrize("where", BAD_FILES)
def test_a_hostile_file_is_one_diagnostic_and_everything_else_loads(
    ctx: LoadContext, tmp_path: Path, where: str, content: str
) -> None:
    good_files(ctx, tmp_path)
    expected = hook_names(ctx)
    bad = write(ctx.project_dir / where, BAD_CONTENTS[content])
    started = time.monotonic()
    discovery = discover(ctx)
    assert time.monotonic() - started < 10
    assert {(hook.dialect, hook.source) for hook in discovery.hooks} >= expected
    [diagnostic] = [d for d in discovery.diagnostics if d.file == str(bad)]
    assert diagnostic.severity == "error"
    if where.endswith((".yaml", ".yml")) or content != "alias-bomb":
        assert MESSAGES[content] in diagnostic.message
    assert not [d for d in discovery.diagnostics if d.file != str(bad) and d.severity == "error"]


async def test_a_byte_in_project_settings_does_not_switch_off_the_managed_deny_hook(
    ctx: LoadContext, tmp_path: Path
) -> None:
    good_files(ctx, tmp_path)
    bad = write(ctx.project_dir / ".claude" / "settings.json", b'{"hooks": "\xff"}')
    loaded = discover(ctx).bind(TrustPolicy().with_folder(ctx.project_dir))
    assert [str(d) for d in loaded.diagnostics] == [
        f"error: {bad}: not valid UTF-8 (byte 0xff at offset 11)"
    ]
    engine = HookEngine(audit_path=None)
    for spec in loaded.specs:
        engine.register(spec)
    try:
        verdict = await engine.dispatch(
            HookInput(
                Event.PreToolUse,
                session_id="s",
                cwd=str(ctx.project_dir),
                payload={"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}},
            )
        )
    finally:
        await engine.aclose()
    assert (verdict.decision, verdict.reason) == ("deny", "managed says no")


def test_a_nul_in_a_plugin_manifest_path_names_the_manifest_and_field(ctx: LoadContext) -> None:
    root = ctx.project_dir / ".claude" / "plugins" / "p"
    manifest = write(
        root / ".claude-plugin" / "plugin.json",
        json.dumps({"name": "p", "hooks": ["ok.json", "bad\u0000.json"]}),
    )
    write(root / "ok.json", claude_hooks("Stop", "true"))
    discovery = discover(ctx)
    assert [h.origin.rsplit(":", 1)[0] for h in discovery.hooks] == [str(root / "ok.json")]
    assert discovery.diagnostics == [
        Diagnostic(str(manifest), "hooks[1]", "the path contains a NUL byte")
    ]


def test_a_fifo_or_a_symlink_loop_is_a_diagnostic_not_a_hang(ctx: LoadContext) -> None:
    hooks = ctx.project_dir / ".openharness" / "hooks"
    hooks.mkdir(parents=True)
    os.mkfifo(hooks / "fifo.yaml")
    (ctx.project_dir / ".claude").mkdir()
    (ctx.project_dir / ".claude" / "settings.json").symlink_to("settings.json")
    write(hooks / "good.yaml", OH_GOOD)
    discovery = discover(ctx)
    assert [h.name for h in discovery.hooks] == ["oh-good"]


def test_a_prompt_file_name_too_long_for_the_system_rejects_that_hook_only(
    tmp_path: Path,
) -> None:
    from hookwright.skills import SkillHookError, scan_hooks

    hooks_dir = tmp_path / "skills" / "s" / "hooks"
    hooks_dir.mkdir(parents=True)
    (hooks_dir / "ok.md").write_text("fine\n", encoding="utf-8")
    entries = [
        {"name": "long", "file": "ab\n" * 400, "timing": "after_user_input", "role": "system",
         "persistent": False},
        {"name": "ok", "file": "ok.md", "timing": "after_user_input", "role": "system",
         "persistent": False},
    ]  # fmt: skip
    (hooks_dir / "hooks.json").write_text(json.dumps({"hooks": entries}), encoding="utf-8")
    errors: list[SkillHookError] = []
    loaded = scan_hooks(["s"], str(tmp_path / "skills"), errors=errors)
    assert [hook.name for hook in loaded] == ["ok"]
    assert len(errors) == 1 and errors[0].field == "hooks[0].file"
    assert "cannot be read" in errors[0].message


def test_a_null_or_numeric_top_level_key_in_hooks_yaml_is_a_named_warning(
    tmp_path: Path,
) -> None:
    """YAML keys need not be text: `null:` and `1:` beside `hooks` are reported by name."""

    project = tmp_path / "project"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "hooks.yaml").write_text("null: null\n1: {}\nhooks: []\n")
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    ran = run_cli(["hooks", "validate", "--project", str(project)], env, timeout=60)
    assert "Traceback" not in ran.stderr
    assert "None" in ran.stdout + ran.stderr and "1" in ran.stdout + ran.stderr
