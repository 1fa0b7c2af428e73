"""The Codex source: the user's and the project's `.codex` layers -> discovered hooks.

Every hook is listed; one runs only when Codex would run it and hookwright trusts it: a
project hook needs the project folder trusted by hookwright, and every hook needs Codex's
review (`review`). An unreviewed, changed or disabled hook binds to nothing, and the binding
says why in a warning naming the exact review entry, so `hooks list`, `validate` and every
host report it as not run instead of skipping it silently.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace

from hookwright.config.loading import (
    Diagnostic,
    DiscoveredHook,
    Discovery,
    LoadContext,
    LoadResult,
    register_source,
)
from hookwright.config.trust import TrustPolicy
from hookwright.core.matching import Matcher
from hookwright.core.spec import HookSpec
from hookwright.dialects.codex.codec import command_handler
from hookwright.dialects.codex.config import (
    CANONICAL,
    EVENT_LABELS,
    CodexHook,
    LayerFiles,
    codex_home,
    layer_hooks,
    read_toml,
)
from hookwright.dialects.codex.review import HookState, hook_states, review_note, review_of

DIALECT = "codex"
_NAME_LIMIT = 60


def layers(ctx: LoadContext, diagnostics: list[Diagnostic]) -> list[LayerFiles]:
    """The user layer, then the project's (when it is another folder)."""
    user = codex_home(ctx.home)
    project = ctx.project_dir / ".codex"
    found = [LayerFiles("user", user, read_toml(user / "config.toml", diagnostics))]
    if project.resolve() != user.resolve():
        found.append(
            LayerFiles("project", project, read_toml(project / "config.toml", diagnostics))
        )
    return found


def _matcher(hook: CodexHook, diagnostics: list[Diagnostic]) -> tuple[bool, Matcher | None]:
    """(valid, the group's matcher): Codex skips a group whose matcher is invalid."""
    if hook.matcher is None:
        return True, None
    matcher = Matcher(hook.matcher, "claude")
    if matcher.error is not None:
        where = f"hooks.{hook.event}[{hook.group_index}].matcher"
        diagnostics.append(
            Diagnostic(
                str(hook.source),
                where,
                f"invalid matcher {hook.matcher!r}: {matcher.error}; group skipped",
                "warning",
            )
        )
        return False, None
    return True, matcher


def build_spec(hook: CodexHook, ctx: LoadContext, matcher: Matcher | None, order: int) -> HookSpec:
    """`order`: the hook's place among every Codex hook discovered, Codex's display order."""
    text = hook.command.strip()
    short = text if len(text) <= _NAME_LIMIT else text[: _NAME_LIMIT - 1] + "…"
    return HookSpec(
        name=f"command:{short}",
        event=CANONICAL[hook.event],
        handler=command_handler(
            hook.command,
            timeout=float(hook.timeout),
            codex_home=codex_home(ctx.home),
            project=ctx.project_dir,
            run_id=f"{EVENT_LABELS[hook.event]}:{order}:{hook.source}",
        ),
        matcher=matcher,
        source=hook.layer,
        dialect=DIALECT,
        mode="parallel",
        timeout=float(hook.timeout),
        origin=hook.origin,
        status_message=hook.status_message,
    )


def bind_reviewed(
    hook: CodexHook, spec: HookSpec, states: Mapping[str, HookState], trust: TrustPolicy
) -> LoadResult:
    """The hook's spec when Codex's review lets it run; else nothing, and why."""
    review = review_of(hook, states)
    if review == "reviewed":
        return LoadResult(specs=[spec])
    note = Diagnostic(str(hook.source), hook.origin.rpartition(":")[2], review_note(hook, review))
    return LoadResult(diagnostics=[replace(note, severity="warning")])


def discover(ctx: LoadContext) -> Discovery:
    """Every Codex hook of the user's and the project's layers, in Codex's order."""
    discovery = Discovery()
    diagnostics = discovery.diagnostics
    found = layers(ctx, diagnostics)
    states = hook_states(found[0].config)
    order = 0
    for files in found:
        discovery.files += [
            str(path)
            for path in (files.folder / "hooks.json", files.folder / "config.toml")
            if path.is_file()
        ]
        for hook in layer_hooks(files, diagnostics):
            order += _add(discovery, hook, ctx, states, order)
    return discovery


def _add(
    discovery: Discovery,
    hook: CodexHook,
    ctx: LoadContext,
    states: Mapping[str, HookState],
    order: int,
) -> int:
    """List `hook`; how many places of Codex's display order it takes (0 or 1)."""
    if hook.event not in CANONICAL:
        discovery.diagnostics.append(
            Diagnostic(
                str(hook.source),
                f"hooks.{hook.event}",
                "hookwright's agents fire no Interrupt event; this hook never runs",
                "warning",
            )
        )
        return 1
    valid, matcher = _matcher(hook, discovery.diagnostics)
    if not valid:
        return 0
    spec = build_spec(hook, ctx, matcher, order)
    trust_root = ctx.project_dir if hook.layer == "project" else None
    listed = DiscoveredHook.of_specs([spec], trust_root)
    bind = functools.partial(bind_reviewed, hook, spec, states)
    discovery.hooks.append(replace(listed, binder=bind, command=hook.command))
    return 1


register_source(DIALECT, discover)
