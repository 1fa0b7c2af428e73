"""`hookwright serve`: the stateless chat server (WebSocket ``/ws``) and its page (``/``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, cast

import typer

from hookwright.cli.run import MaxTurnsOpt, ModelOpt, ModeOpt, PlanOpt, SkillOpt, TrustOpt
from hookwright.runtime.models import ModelConfigError, make_model
from hookwright.runtime.permissions import MODES, PermissionMode
from hookwright.server import ServerSettings, create_app
from hookwright.server.runner import MAX_FRAME_BYTES, MAX_HISTORY, available_skills
from hookwright.skills import SkillHookError, scan_hooks

ServeProjectOpt = Annotated[
    Path, typer.Option("--project", "-p", help="Project directory.", file_okay=False)
]
HostOpt = Annotated[str, typer.Option("--host", help="Interface to listen on.")]
PortOpt = Annotated[int, typer.Option("--port", min=0, max=65535, help="TCP port (0: any).")]
FrameOpt = Annotated[
    int, typer.Option("--max-frame-bytes", min=1, help="Largest client frame accepted.")
]
HistoryOpt = Annotated[
    int, typer.Option("--max-history", min=0, help="Most history messages per request.")
]


def _fail(message: str) -> typer.Exit:
    sys.stderr.write(f"hookwright: error: {' '.join(message.split())}\n")
    return typer.Exit(code=2)


def settings_from_options(
    *,
    project: Path,
    model: str | None,
    skill: list[str] | None,
    trust: bool,
    permission_mode: str,
    plan: bool = False,
    max_turns: int = 20,
    max_frame_bytes: int = MAX_FRAME_BYTES,
    max_history: int = MAX_HISTORY,
) -> ServerSettings:
    """Check the options the way `hookwright run` does; raise `typer.Exit(2)` on bad ones."""
    project = project.resolve()
    if not project.is_dir():
        raise _fail(f"project directory {project} does not exist")
    if permission_mode not in MODES:
        raise _fail(f"unknown permission mode {permission_mode!r} (use one of: {', '.join(MODES)})")
    if model is not None:
        try:
            make_model(model, base_dir=project)
        except ModelConfigError as exc:
            raise _fail(str(exc)) from None
    skills = list(dict.fromkeys(skill or []))
    known = available_skills(project)
    unknown = [name for name in skills if name not in known]
    if unknown:
        raise _fail(
            f"unknown skill(s) {', '.join(unknown)}: not in {project / 'skills'} "
            f"(available: {', '.join(known) or 'none'})"
        )
    errors: list[SkillHookError] = []
    scan_hooks(skills, str(project / "skills"), errors=errors)
    for error in errors:
        sys.stderr.write(f"hookwright: warning: {error}\n")
    return ServerSettings(
        project_dir=project,
        model=model,
        skills=tuple(skills),
        trust=trust,
        permission_mode=cast(PermissionMode, permission_mode),
        planning=plan,
        max_turns=max_turns,
        max_frame_bytes=max_frame_bytes,
        max_history=max_history,
    )


def serve(
    project: ServeProjectOpt = Path("."),
    host: HostOpt = "127.0.0.1",
    port: PortOpt = 8765,
    model: ModelOpt = None,
    skill: SkillOpt = None,
    trust: TrustOpt = False,
    permission_mode: ModeOpt = "default",
    plan: PlanOpt = False,
    max_turns: MaxTurnsOpt = 20,
    max_frame_bytes: FrameOpt = MAX_FRAME_BYTES,
    max_history: HistoryOpt = MAX_HISTORY,
) -> None:
    """Serve the agent over WebSocket (/ws) with a chat page (/); no state between requests."""
    import uvicorn

    settings = settings_from_options(
        project=project,
        model=model,
        skill=skill,
        trust=trust,
        permission_mode=permission_mode,
        plan=plan,
        max_turns=max_turns,
        max_frame_bytes=max_frame_bytes,
        max_history=max_history,
    )
    sys.stderr.write(f"hookwright: serving {settings.project_dir} on http://{host}:{port}/\n")
    uvicorn.run(
        create_app(settings),
        host=host,
        port=port,
        log_level="info",
        # Frames up to the app's limit must reach it so it can answer with an error frame;
        # anything far beyond is dropped by uvicorn (close code 1009).
        ws_max_size=max(16 * 1024 * 1024, 2 * max_frame_bytes),
    )
