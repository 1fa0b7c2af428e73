"""Hook sources: each dialect registers a loader that reads its config files into HookSpecs.

Loading is permissive: a bad file, hook or field becomes a `Diagnostic` naming the file and the
field path, and everything else still loads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from hookwright.engine import HookEngine
from hookwright.spec import HookSpec


@dataclass(slots=True, frozen=True)
class Diagnostic:
    file: str
    path: str
    message: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        where = f"{self.file}: {self.path}" if self.path else self.file
        return f"{self.severity}: {where}: {self.message}"


@dataclass(slots=True)
class LoadContext:
    project_dir: Path
    home: Path
    config_files: Sequence[Path] = ()


@dataclass(slots=True)
class LoadResult:
    specs: list[HookSpec] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def extend(self, other: LoadResult) -> None:
        self.specs.extend(other.specs)
        self.diagnostics.extend(other.diagnostics)


SourceLoader = Callable[[LoadContext], LoadResult]

_LOADERS: dict[str, SourceLoader] = {}


def register_loader(dialect: str, loader: SourceLoader) -> None:
    _LOADERS[dialect] = loader


def loaders() -> dict[str, SourceLoader]:
    from hookwright import dialects

    dialects.load_builtin()
    return dict(_LOADERS)


def load_sources(ctx: LoadContext) -> LoadResult:
    result = LoadResult()
    known = loaders()
    for dialect, loader in known.items():
        try:
            result.extend(loader(ctx))
        except Exception as exc:
            result.diagnostics.append(
                Diagnostic(str(ctx.project_dir), dialect, f"loader failed: {exc}")
            )
    for config in ctx.config_files:
        if not _mentioned(Path(config), result):
            result.diagnostics.append(
                Diagnostic(
                    str(config),
                    "",
                    "no hooks found: not a hook config of any dialect "
                    f"({', '.join(sorted(known))})",
                    "warning",
                )
            )
    return result


def _mentioned(config: Path, result: LoadResult) -> bool:
    """True when a loaded hook or a diagnostic comes from `config`."""
    names = {str(config), str(config.resolve())}
    origins = ((spec.origin or "").rsplit(":", 1)[0] for spec in result.specs)
    return any(
        origin in names or any(origin.startswith(name) for name in names) for origin in origins
    ) or any(d.file in names for d in result.diagnostics)


def load_into(engine: HookEngine, ctx: LoadContext) -> LoadResult:
    """Load every source and register its hooks on `engine`."""
    result = load_sources(ctx)
    for spec in result.specs:
        engine.register(spec)
    return result
