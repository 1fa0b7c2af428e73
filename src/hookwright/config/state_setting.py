"""Where a session's state is kept: ``$HOOKWRIGHT_STATE``, else the ``state`` key of
`~/.hookwright/settings.json`, else a SQLite file, `~/.hookwright/state.db`.

``$HOOKWRIGHT_STATE`` is ``sqlite`` (the default file), ``sqlite:PATH``, a ``redis://`` /
``rediss://`` / ``unix://`` URL, or ``memory`` (this process only). The settings key is
``{"backend": "sqlite", "path": "..."}``, ``{"backend": "redis", "url": "redis://..."}`` or
``{"backend": "memory"}``. Only the user chooses: a repository cannot point its hooks' state
at a server of its own, so a project's settings file is not read for it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hookwright.config.hookwright_settings import SETTINGS_FILE, read_setting

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal, TypeAlias

ENV: Final = "HOOKWRIGHT_STATE"
KEY: Final = "state"
DEFAULT_FILE: Final = Path(".hookwright") / "state.db"
REDIS_SCHEMES: Final = ("redis://", "rediss://", "unix://")

Backend: TypeAlias = "Literal['memory', 'sqlite', 'redis']"


@dataclass(frozen=True, slots=True)
class StateSetting:
    """The chosen backend and where it is: a file for ``sqlite``, a URL for ``redis``."""

    backend: Backend
    location: str = ""


def choose_state(
    home: Path, environ: Mapping[str, str] = os.environ
) -> tuple[StateSetting, list[str]]:
    """The setting, and one line per unusable one (which then falls back to the default)."""
    default = StateSetting("sqlite", str(home / DEFAULT_FILE))
    problems: list[str] = []
    chosen = environ.get(ENV, "").strip()
    if chosen:
        setting = _from_env(chosen, default)
        if setting is not None:
            return setting, problems
        problems.append(
            f"${ENV}: expected sqlite, sqlite:PATH, memory or a redis:// URL, got {chosen[:80]!r}"
        )
    path = home / SETTINGS_FILE
    raw, problem = read_setting(path, KEY)
    if problem is not None:
        problems.append(problem)
        return default, problems
    if raw is None:
        return default, problems
    setting, problem = _from_settings(raw, default)
    if problem is not None:
        problems.append(f"{path}: {KEY}: {problem}")
    return setting, problems


def _from_env(chosen: str, default: StateSetting) -> StateSetting | None:
    if chosen == "memory":
        return StateSetting("memory")
    if chosen == "sqlite":
        return default
    if chosen.startswith("sqlite:") and len(chosen) > len("sqlite:"):
        return StateSetting("sqlite", str(Path(chosen[len("sqlite:") :]).expanduser()))
    if chosen.startswith(REDIS_SCHEMES):
        return StateSetting("redis", chosen)
    return None


def _from_settings(raw: object, default: StateSetting) -> tuple[StateSetting, str | None]:
    if not isinstance(raw, dict):
        return default, 'expected an object such as {"backend": "sqlite"}'
    backend = raw.get("backend", "sqlite")
    if backend == "memory":
        return StateSetting("memory"), None
    if backend == "sqlite":
        path = raw.get("path")
        if path is None:
            return default, None
        if isinstance(path, str) and path:
            return StateSetting("sqlite", str(Path(path).expanduser())), None
        return default, "path: expected a file path"
    if backend == "redis":
        url = raw.get("url")
        if isinstance(url, str) and url.startswith(REDIS_SCHEMES):
            return StateSetting("redis", url), None
        return default, "url: expected a redis://, rediss:// or unix:// URL"
    return default, f"backend: expected sqlite, redis or memory, got {str(backend)[:40]!r}"
