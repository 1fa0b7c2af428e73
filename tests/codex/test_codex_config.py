"""Where Codex hooks are found and when Codex's review lets them run."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from hookwright.config.loading import LoadContext
from hookwright.config.trust import TrustPolicy
from hookwright.dialects.codex.config import LayerFiles, layer_hooks
from hookwright.dialects.codex.loader import discover
from hookwright.dialects.codex.review import review_key, trusted_hash

GROUP = {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard", "timeout": 5}]}


def test_the_review_hash_is_codex_s_over_the_normalised_hook(tmp_path: Path) -> None:
    """Pinned to the value Codex CLI 0.171.0 accepts (the conformance suite runs reviewed
    hooks in the real CLI)."""
    folder = tmp_path / ".codex"
    folder.mkdir()
    (folder / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [GROUP]}}))
    (hook,) = layer_hooks(LayerFiles("project", folder, None), [])
    assert review_key(hook) == f"{folder / 'hooks.json'}:pre_tool_use:0:0"
    normalised = (
        b'{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"guard","timeout":5,'
        b'"type":"command"}],"matcher":"Bash"}'
    )
    assert trusted_hash(hook) == "sha256:" + hashlib.sha256(normalised).hexdigest()


def test_inline_toml_and_hooks_json_in_one_layer_both_load_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "codex-home"
    user.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(user))
    (user / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [GROUP]}}))
    (user / "config.toml").write_text(
        '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "stopper"\n'
    )
    found = discover(LoadContext(tmp_path / "project", tmp_path))
    assert [hook.command for hook in found.hooks] == ["guard", "stopper"]
    assert any("prefer a single representation" in d.message for d in found.diagnostics)


def test_a_project_cannot_review_its_own_hooks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    project = tmp_path / "project"
    folder = project / ".codex"
    folder.mkdir(parents=True)
    (folder / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [GROUP]}}))
    (hook,) = layer_hooks(LayerFiles("project", folder, None), [])
    (folder / "config.toml").write_text(
        f'[hooks.state.{json.dumps(review_key(hook))}]\ntrusted_hash = "{trusted_hash(hook)}"\n'
    )
    found = discover(LoadContext(project, tmp_path))
    bound = found.bind(TrustPolicy(frozenset({project.resolve()})))
    assert bound.specs == []
    assert any("not reviewed in Codex" in d.message for d in bound.diagnostics)


def test_hostile_project_files_are_reported_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FIFO where `hooks.json` should be is never opened for reading (no hang); a broken
    `config.toml` is one diagnostic naming the file."""
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    folder = tmp_path / "project" / ".codex"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "hooks.json")
    (folder / "config.toml").write_text("[hooks\n")
    found = discover(LoadContext(tmp_path / "project", tmp_path))
    assert found.hooks == []
    problems = {d.file: d.message for d in found.diagnostics}
    assert "not a regular file" in problems[str(folder / "hooks.json")]
    assert problems[str(folder / "config.toml")].startswith("invalid TOML")


@pytest.mark.parametrize(
    ("event", "declared", "seconds"),
    [
        ("Interrupt", None, 1),
        ("Interrupt", 10, 3),
        ("Interrupt", 0, 1),
        ("SessionEnd", None, 1),
        ("SessionEnd", 2, 2),
        ("Stop", None, 600),
        ("Stop", 0, 1),
    ],
)
def test_interrupt_and_session_end_hooks_get_codex_s_short_timeout_and_are_reviewed_so(
    tmp_path: Path, event: str, declared: int | None, seconds: int
) -> None:
    """Measured on Codex CLI 0.171.0 (conformance case `interrupt_mid_tool_call`): such a
    hook without a timeout runs for at most 1 s, a longer one is clamped to 3 s, and Codex's
    review hashes the timeout it gives the hook."""
    folder = tmp_path / ".codex"
    folder.mkdir()
    handler: dict[str, object] = {"type": "command", "command": "note"}
    if declared is not None:
        handler["timeout"] = declared
    (folder / "hooks.json").write_text(json.dumps({"hooks": {event: [{"hooks": [handler]}]}}))
    (hook,) = layer_hooks(LayerFiles("project", folder, None), [])
    assert hook.timeout == seconds
    label = {"Interrupt": "interrupt", "SessionEnd": "session_end", "Stop": "stop"}[event]
    normalised = (
        f'{{"event_name":"{label}","hooks":[{{"async":false,"command":"note",'
        f'"timeout":{seconds},"type":"command"}}]}}'
    )
    assert trusted_hash(hook) == "sha256:" + hashlib.sha256(normalised.encode()).hexdigest()
