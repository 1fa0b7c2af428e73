"""Fuzz of every loader over generated files: Claude Code settings, plugins (default hooks
file, manifest, the installed-plugin and marketplace records) and skill/agent frontmatter,
native hooks.yaml, OpenHarness hook files and workspace.yaml, PicoClaw config.json, and skill
prompt hooks (hooks.json and the texts it names). Whatever the files hold, discovery and
binding return diagnostics, never raise, and a bad project file never hides the user's own
hooks."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from hookwright.config.loading import LoadContext, discover
from hookwright.config.trust import TrustPolicy
from hookwright.dialects.claude_code.frontmatter import load_frontmatter_hooks
from hookwright.dialects.skills import SkillHookError, scan_hooks
from hookwright.dialects.skills.specs import skill_specs

from .budget import budget
from .strategies import document_bytes, documents, to_json

CLAUDE = {
    "disableAllHooks": False,
    "enabledPlugins": {"p@m": True},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash|Edit",
                "hooks": [
                    {"type": "command", "command": "true", "timeout": 5, "if": "Bash(git *)"},
                    {"type": "http", "url": "http://127.0.0.1:1/h", "headers": {"A": "$X"}},
                    {"type": "prompt", "prompt": "ok? $ARGUMENTS", "model": "m"},
                ],
            }
        ],
        "Stop": [{"hooks": [{"type": "agent", "prompt": "check", "async": True}]}],
    },
}
PLUGIN_MANIFEST = {"name": "p", "hooks": ["./hooks/extra.json", "../outside.json"]}
INSTALLED = {
    "version": 2,
    "plugins": {
        "p@m": [
            {"scope": "project", "projectPath": ".", "installPath": "../proj/.claude/plugins/p"}
        ]
    },
}
MARKETPLACES = {"m": {"source": {"source": "directory"}, "installLocation": "../proj"}}
NATIVE = {
    "hooks": [
        {
            "name": "n",
            "event": "PreToolUse",
            "call": "json:dumps",
            "matcher": "Bash",
            "if": "Bash(rm *)",
            "mode": "chain",
            "timeout": 5,
        }
    ]
}
OPENHARNESS = {
    "name": "o",
    "events": ["before_tool_dispatch", "after_model_call"],
    "matcher": "Bash",
    "handler": {
        "type": "command",
        "command": "echo ${env.HOME} ${secrets.token}",
        "timeout_seconds": 5,
    },
    "capabilities": ["rewrite_tool_request", "patch_tool_input"],
}
PICOCLAW = {
    "hooks": {
        "enabled": True,
        "defaults": {"observer_timeout_ms": 500},
        "processes": {
            "p": {"command": ["true"], "intercept": ["before_tool"], "observe": ["*"], "env": {}}
        },
        "builtins": {"b": {"factory": "builtins:dict", "config": {"k": 1}, "priority": 3}},
    }
}
#: (file under the project, template, format)
FILES = [
    (".claude/settings.json", CLAUDE, "json"),
    (".claude/settings.local.json", CLAUDE, "json"),
    (".claude/plugins/p/hooks/hooks.json", CLAUDE, "json"),
    (".claude/plugins/p/hooks/extra.json", CLAUDE, "json"),
    (".claude/plugins/p/.claude-plugin/plugin.json", PLUGIN_MANIFEST, "json"),
    ("../home/.claude/plugins/installed_plugins.json", INSTALLED, "json"),
    ("../home/.claude/plugins/known_marketplaces.json", MARKETPLACES, "json"),
    (".hookwright/hooks.yaml", NATIVE, "yaml"),
    (".openharness/hooks/o.yaml", OPENHARNESS, "yaml"),
    (".openharness/workspace.yaml", {"kind": "project"}, "yaml"),
    (".picoclaw/config.json", PICOCLAW, "json"),
]


@st.composite
def project_files(draw: st.DrawFn) -> dict[str, bytes]:
    chosen = draw(
        st.lists(st.sampled_from(FILES), min_size=1, max_size=3, unique_by=lambda file: file[0])
    )
    return {where: draw(document_bytes(template, kind)) for where, template, kind in chosen}


@contextmanager
def project(files: dict[str, bytes]) -> Iterator[tuple[Path, Path]]:
    """A project holding `files` and a home whose own settings declare one valid hook."""
    with tempfile.TemporaryDirectory() as folder:
        root, home = Path(folder) / "proj", Path(folder) / "home"
        for where, data in {**files, "../home/.claude/settings.json": USER_SETTINGS}.items():
            path = root / where
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        yield root, home


USER_SETTINGS = to_json(
    {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo user-hook"}]}]}}
).encode()


@budget(0.8)
@given(project_files())
def test_discovery_and_binding_of_any_project_return_diagnostics(files: dict[str, bytes]) -> None:
    with project(files) as (root, home):
        discovery = discover(LoadContext(project_dir=root, home=home))
        user_file = str(home / ".claude" / "settings.json")
        assert any(hook.origin.startswith(user_file) for hook in discovery.hooks)
        assert not [d for d in discovery.diagnostics if "discovery failed" in d.message]
        result = discovery.bind(TrustPolicy(everything=True))
    for diagnostic in result.diagnostics:
        assert "\n" not in diagnostic.message, diagnostic


FRONTMATTER = {
    "name": "reviewer",
    "description": "d",
    "hooks": CLAUDE["hooks"],
}


@budget(0.4)
@given(documents(FRONTMATTER, "yaml"), st.sampled_from(["skill", "agent"]), st.booleans())
def test_frontmatter_hooks_of_any_file_return_diagnostics(
    text: str, kind: Any, fenced: bool
) -> None:
    body = f"---\n{text}\n---\n# Body\n" if fenced else text
    with project({"agents/reviewer.md": body.encode("utf-8", "surrogatepass")}) as (root, home):
        result = load_frontmatter_hooks(
            root / "agents" / "reviewer.md", kind, "s1", project_dir=root, home=home
        )
    for diagnostic in result.diagnostics:
        assert "\n" not in diagnostic.message, diagnostic


SKILL_HOOKS = {
    "hooks": [
        {
            "name": "hint",
            "file": "hint.md",
            "timing": "after_tool_call",
            "role": "system",
            "persistent": False,
            "tool_filter": ["read_file"],
        },
        {"name": "first", "file": "../../escape.md", "timing": "before_first_agent"},
    ]
}


@budget(0.4)
@given(
    document_bytes(SKILL_HOOKS),
    st.binary(max_size=64) | documents("Read the file again.").map(str.encode),
    st.lists(st.sampled_from(["notes", "notes", "..", "", "a/b", "missing"]), max_size=3),
)
def test_skill_hooks_of_any_files_are_loaded_or_rejected(
    config: bytes, prompt: bytes, extra_skills: list[str]
) -> None:
    files = {"skills/notes/hooks/hooks.json": config, "skills/notes/hooks/hint.md": prompt}
    with project(files) as (root, _home):
        errors: list[SkillHookError] = []
        hooks = scan_hooks(["notes", *extra_skills], str(root / "skills"), errors=errors)
        specs = skill_specs(hooks, scope="s1")
    assert len(specs) == len(hooks)
    for error in errors:
        assert "\n" not in error.message, error
