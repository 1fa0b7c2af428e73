"""hookwright's own config: `.hookwright/hooks.yaml` of Python hooks named by entry point.

```yaml
hooks:
  - name: no-rm
    event: PreToolUse          # canonical name or any dialect alias
    matcher: Bash
    if: "Bash(rm *)"
    call: guards:deny_rm       # module:function, module looked up beside the YAML file first
    priority: 0
    timeout: 5                 # seconds; omitted = run inline, no limit
    on_error: continue         # or block
    mode: parallel             # or chain, or shadow (decides, never enforced)
```

Read from `~/.hookwright/hooks.yaml` (source `user`), `<project>/.hookwright/hooks.yaml`
(`project`, runs only when the project is trusted) and any `--config FILE` given in this format
(`project`). Discovery validates the files; a hook's module is imported only when it is bound.
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import CodeType, ModuleType

from hookwright.config.hook_code_cache import compiled
from hookwright.config.loading import (
    Diagnostic,
    DiscoveredHook,
    Discovery,
    LoadContext,
    LoadResult,
    register_source,
)
from hookwright.config.safeparse import ParseError, read_yaml
from hookwright.config.trust import TrustPolicy
from hookwright.core.digests import sha1_hex
from hookwright.core.events import resolve_event
from hookwright.core.spec import HookSpec, Mode, PythonHandler
from hookwright.core.validation import did_you_mean, field_path, unknown_key
from hookwright.dialects.native_entry import NativeEntry, plain_entry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hookwright.core.matching import IfRule, Matcher
    from hookwright.dialects.native_schema import Problem

FILE_NAME = "hooks.yaml"


def json_schema() -> dict[str, Any]:
    from hookwright.dialects.native_schema import json_schema as schema

    return schema()


def _entry(raw: Any) -> NativeEntry | list[Problem]:
    """One entry of `hooks`: its plain reading, else the schema's validation (which alone
    loads pydantic)."""
    entry = plain_entry(raw)
    if entry is not None:
        return entry
    from hookwright.dialects.native_schema import validate_entry

    return validate_entry(raw)


class MissingCallable(Exception):
    """A `call:` naming what its module does not have: the message names the file and the
    missing name."""


def _import_from(base: Path, target: str) -> Any:
    module_name, _, attr = target.partition(":")
    module: ModuleType
    candidate = base.joinpath(*module_name.split(".")).with_suffix(".py")
    if candidate.is_file():
        digest = sha1_hex(str(candidate.resolve()).encode())[:12]
        unique = f"_hookwright_user_{digest}_{module_name.replace('.', '_')}"
        module = sys.modules.get(unique) or _load_file(unique, candidate)
    else:
        module = importlib.import_module(module_name)
    where = str(candidate) if candidate.is_file() else module_name
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise MissingCallable(f"{where} has no {part!r}{did_you_mean(part, _public(obj))}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"{attr!r} in {where} is not callable")
    return obj


def _public(obj: Any) -> list[str]:
    return [name for name in dir(obj) if not name.startswith("_")]


class _SourceLoader(importlib.machinery.SourceFileLoader):
    """Reads a hook module's source at every load and never takes its code from
    `__pycache__`: a cached file is trusted on the source's mtime (in seconds) and size alone,
    so a module swapped for one of the same size and mtime would run its old code after a
    reload. The code of bytes compiled before comes from the user's cache, named by those
    exact bytes (`hook_code_cache`)."""

    def get_code(self, fullname: str) -> CodeType:
        source = self.get_data(self.path)
        return compiled(source, self.path, lambda: self.source_to_code(source, self.path))


def _load_file(unique: str, path: Path) -> ModuleType:
    loader = _SourceLoader(unique, str(path))
    spec = importlib.util.spec_from_file_location(unique, path, loader=loader)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[unique] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[unique]
        raise
    return module


def discover_file(path: Path, source: str, trust_root: Path | None) -> Discovery:
    """The hooks of one file, validated; their modules are imported only when bound."""
    discovery = Discovery()
    diagnostics = discovery.diagnostics
    file = str(path)
    try:
        data = read_yaml(path)
    except ParseError as exc:
        diagnostics.append(Diagnostic(file, "", exc.reason))
        return discovery
    if data is None:
        return discovery
    if not isinstance(data, dict) or not isinstance(data.get("hooks", []), list):
        diagnostics.append(Diagnostic(file, "hooks", "expected a mapping with a list"))
        return discovery
    others = sorted(
        ((str(key), value) for key, value in data.items() if key != "hooks"), key=lambda kv: kv[0]
    )
    for key, value in others:  # a YAML key may be null or a number: named as text
        message, typo = unknown_key(key, value, ("hooks",))
        diagnostics.append(Diagnostic(file, key, message, "error" if typo else "warning"))
    names: set[str] = set()
    for index, raw in enumerate(data.get("hooks") or []):
        where = f"hooks[{index}]"
        hook = _entry(raw)
        if isinstance(hook, list):
            for loc, message in hook:
                diagnostics.append(Diagnostic(file, field_path(("hooks", index, *loc)), message))
            continue
        if hook.name in names:
            diagnostics.append(
                Diagnostic(file, f"{where}.name", f"duplicate hook name {hook.name!r}")
            )
            continue
        names.add(hook.name)
        matcher = _matcher_of(hook.matcher)
        if matcher is not None and matcher.error:
            diagnostics.append(Diagnostic(file, f"{where}.matcher", matcher.error, "warning"))
        discovery.hooks.append(
            DiscoveredHook(
                name=hook.name,
                dialect="native",
                source=source,
                origin=f"{file}:{where}",
                trust_root=trust_root,
                binder=functools.partial(_bind, hook, path, source, where, matcher),
                events=(resolve_event(hook.event),),
                matcher=hook.matcher,
                if_rule=hook.if_,
                mode=_run_mode(hook),
                timeout=hook.timeout,
                priority=hook.priority,
            )
        )
    return discovery


def _matcher_of(text: str | None) -> Matcher | None:
    """The hook's compiled matcher (the matching rules load with the first hook that has one)."""
    if text is None:
        return None
    from hookwright.core.matching import compile_matcher

    return compile_matcher(text)


def _if_rule_of(text: str | None) -> IfRule | None:
    """The hook's `if` rule, None where it has none (or an empty one)."""
    if not text:
        return None
    from hookwright.core.matching import IfRule

    return IfRule.parse(text)


def _run_mode(hook: NativeEntry) -> Mode:
    """How the hook's stage runs: a shadow hook runs in parallel."""
    return "chain" if hook.mode == "chain" else "parallel"


def _bind(
    hook: NativeEntry,
    path: Path,
    source: str,
    where: str,
    matcher: Matcher | None,
    _policy: TrustPolicy,
) -> LoadResult:
    """Import the hook's callable (running its module) and build its spec."""
    file = str(path)
    try:
        func = _import_from(path.parent, hook.call)
    except MissingCallable as exc:
        message = f"cannot import {hook.call}: {exc}"
        return LoadResult(diagnostics=[Diagnostic(file, f"{where}.call", message)])
    except ModuleNotFoundError as exc:
        from hookwright.core.tracebacks import describe_exception  # the hook did not load

        message = f"cannot import {hook.call}: {describe_exception(exc)}"
        module = hook.call.partition(":")[0]
        if exc.name == module.partition(".")[0]:  # the hook's own module, not one it imports
            file_name = Path(*module.split(".")).with_suffix(".py")
            message += f"; create {file_name} beside {path.name}, or install {exc.name}"
        return LoadResult(diagnostics=[Diagnostic(file, f"{where}.call", message)])
    except Exception as exc:
        from hookwright.core.tracebacks import author_frames, describe_exception
        from hookwright.core.tracebacks import where as where_in

        message = f"cannot import {hook.call}: {describe_exception(exc)}"
        frames = author_frames(exc)
        if frames:
            message += f" (at {where_in(frames[-1])})"
        return LoadResult(diagnostics=[Diagnostic(file, f"{where}.call", message)])
    spec = HookSpec(
        name=hook.name,
        event=resolve_event(hook.event),
        handler=PythonHandler(func),
        matcher=matcher,
        if_rule=_if_rule_of(hook.if_),
        source=source,
        dialect="native",
        mode=_run_mode(hook),
        shadow=hook.mode == "shadow",
        priority=hook.priority,
        timeout=hook.timeout,
        on_error=hook.on_error,
        enabled=hook.enabled,
        origin=f"{file}:{where}",
        description=hook.description,
    )
    return LoadResult(specs=[spec])


def discover(ctx: LoadContext) -> Discovery:
    """User file (no trust needed), project file (the project must be trusted), and each
    `--config` file in this format (named by the user: no trust needed)."""
    discovery = Discovery()
    candidates: list[tuple[Path, str, Path | None]] = [
        (ctx.home / ".hookwright" / FILE_NAME, "user", None),
        (ctx.project_dir / ".hookwright" / FILE_NAME, "project", ctx.project_dir),
    ]
    candidates += [(Path(p), "project", None) for p in ctx.config_files if _is_native(Path(p))]
    seen: set[Path] = set()
    for path, source, trust_root in candidates:
        # A file that is there but cannot be read is read for its error, never skipped.
        if not (path.exists() or path.is_symlink()) or (resolved := path.resolve()) in seen:
            continue
        seen.add(resolved)
        discovery.files.append(str(path))
        discovery.extend(discover_file(path, source, trust_root))
    return discovery


def _is_native(path: Path) -> bool:
    """A --config file is native when it is YAML whose `hooks` is a list of hooks with `call`."""
    if path.suffix not in (".yaml", ".yml"):
        return False
    try:
        data = read_yaml(path)
    except ParseError:
        return path.name == FILE_NAME
    hooks = data.get("hooks") if isinstance(data, dict) else None
    return isinstance(hooks, list)


register_source("native", discover)
