"""`${secrets.NAME}`: environment first, then ~/.openharness/secrets.yaml|json (mode 0600), and
resolved values never in diagnostics, logs or the audit."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from hookwright import Event, HookEngine, HookResult, Status, Verdict
from hookwright.config.loading import LoadResult
from hookwright.dialects.openharness import install, load_workspace, register_secrets
from hookwright.monitor.audit import AuditRecord

from .helpers import Workspace, tool_call

TOKEN = "s3cr3t-value-42"


def secrets_file(
    home: Path, values: dict[str, Any], *, mode: int = 0o600, suffix: str = "yaml"
) -> Path:
    directory = home / ".openharness"
    directory.mkdir(exist_ok=True)
    path = directory / f"secrets.{suffix}"
    path.write_text(json.dumps(values) if suffix == "json" else yaml.safe_dump(values))
    os.chmod(path, mode)
    return path


def header_hook(ws: Workspace, placeholder: str = "${secrets.HOOK_TOKEN}") -> Path:
    return ws.hook(
        "h.yaml",
        {
            "name": "h",
            "events": ["before_tool_dispatch"],
            "handler": {
                "type": "http",
                "url": "http://127.0.0.1:9/check",
                "headers": {"Authorization": f"Bearer {placeholder}"},
            },
        },
    )


def headers_of(result: LoadResult) -> dict[str, str]:
    (spec,) = result.specs
    headers: dict[str, str] = spec.handler.codec.channel.headers  # type: ignore[attr-defined]
    return headers


def test_secret_from_the_environment(ws: Workspace) -> None:
    header_hook(ws)
    result = load_workspace(ws.root, home=ws.home, environ={"HOOK_TOKEN": TOKEN})
    assert headers_of(result) == {"Authorization": f"Bearer {TOKEN}"}
    assert set(result.specs[0].secrets) == {TOKEN}


def test_environment_wins_over_the_file(ws: Workspace) -> None:
    secrets_file(ws.home, {"HOOK_TOKEN": "from-file"})
    header_hook(ws)
    result = load_workspace(ws.root, home=ws.home, environ={"HOOK_TOKEN": TOKEN})
    assert headers_of(result)["Authorization"] == f"Bearer {TOKEN}"


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_secret_from_the_user_secrets_file(ws: Workspace, suffix: str) -> None:
    secrets_file(ws.home, {"HOOK_TOKEN": TOKEN}, suffix=suffix)
    header_hook(ws)
    result = load_workspace(ws.root, home=ws.home, environ={})
    assert result.diagnostics == []
    assert headers_of(result)["Authorization"] == f"Bearer {TOKEN}"


def test_secrets_file_readable_by_others_is_refused(ws: Workspace) -> None:
    path = secrets_file(ws.home, {"HOOK_TOKEN": TOKEN}, mode=0o644)
    hook_file = header_hook(ws)
    result = load_workspace(ws.root, home=ws.home, environ={})
    assert result.specs == []
    by_file = {d.file: d for d in result.diagnostics}
    assert "0600" in by_file[str(path)].message and "0644" in by_file[str(path)].message
    hook_error = by_file[str(hook_file.resolve())]
    assert hook_error.path == "handler.headers.Authorization"
    assert "HOOK_TOKEN" in hook_error.message and str(path) in hook_error.message
    assert all(TOKEN not in str(d) for d in result.diagnostics)


def test_missing_secret_names_the_file_and_field(ws: Workspace) -> None:
    hook_file = header_hook(ws, "${secrets.NOPE}")
    result = load_workspace(ws.root, home=ws.home, environ={})
    assert result.specs == []
    (diagnostic,) = result.diagnostics
    assert (diagnostic.file, diagnostic.path) == (
        str(hook_file.resolve()),
        "handler.headers.Authorization",
    )
    assert "NOPE" in diagnostic.message


def test_secret_values_never_print(ws: Workspace) -> None:
    header_hook(ws)
    (spec,) = load_workspace(ws.root, home=ws.home, environ={"HOOK_TOKEN": TOKEN}).specs
    assert TOKEN not in repr(spec.dialect_data) and TOKEN not in str(spec)
    with pytest.raises(TypeError):
        json.dumps(spec.secrets)


def test_diagnostics_redact_resolved_secrets(ws: Workspace) -> None:
    ws.hook(
        "c.yaml",
        {
            "name": "c",
            "events": ["before_tool_dispatch"],
            "handler": {"type": "command", "command": "true", "cwd": "../${secrets.DIR}"},
        },
    )
    result = load_workspace(ws.root, home=ws.home, environ={"DIR": TOKEN})
    (diagnostic,) = result.diagnostics
    assert diagnostic.path == "handler.cwd"
    assert TOKEN not in diagnostic.message and "***" in diagnostic.message


async def test_secrets_never_reach_the_audit_or_the_logs(
    ws: Workspace, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A hook that leaks its token in stderr, in a failure and in a block reason."""
    command = ws.script("leak.py", "import sys\nsys.stderr.write(sys.argv[1] + ' leaked')\n")
    ws.hook(
        "a-fail.yaml",
        {
            "name": "fail",
            "events": ["before_tool_dispatch"],
            "handler": {"type": "command", "command": f"{command} ${{secrets.T}}; exit 1"},
        },
    )
    ws.hook(
        "b-block.yaml",
        {
            "name": "block",
            "events": ["before_tool_dispatch"],
            "handler": {"type": "command", "command": f"{command} ${{secrets.T}}; exit 2"},
        },
    )
    audit_path = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=audit_path)
    try:
        result = install(engine, ws.root, home=ws.home, environ={"T": TOKEN})
        assert result.diagnostics == []
        with caplog.at_level(logging.DEBUG):
            verdict = await engine.dispatch(tool_call(command="ls"))
        engine.audit.flush()
    finally:
        await engine.aclose()
    assert verdict.decision is not None and verdict.reason == "*** leaked"
    failed = verdict.results[0]
    assert failed.error is not None and "***" in failed.error and TOKEN not in failed.error
    audit = audit_path.read_text()
    assert audit.count("\n") == 2
    assert TOKEN not in audit and "***" in audit
    assert TOKEN not in caplog.text and "***" in caplog.text


async def test_register_secrets_for_hosts_that_register_specs_themselves(
    ws: Workspace,
) -> None:
    header_hook(ws)
    result = load_workspace(ws.root, home=ws.home, environ={"HOOK_TOKEN": TOKEN})
    (spec,) = result.specs
    records: list[AuditRecord] = []
    engine = HookEngine(audit_path=None)
    engine.add_audit_callback(records.append)
    try:
        assert register_secrets(engine, result.specs) == 1
        verdict = Verdict(Event.PreToolUse)
        leaked = HookResult(status=Status.error, error=f"sent Bearer {TOKEN}", hook=spec)
        verdict.runs.append((spec, leaked, 0))
        engine.audit.submit(verdict, "s-1")
        engine.audit.flush()
    finally:
        await engine.aclose()
    (record,) = records
    assert record.error == "sent Bearer ***"
