"""The Claude Code source: settings files and plugins -> discovered hooks (see `sources` for
where they are read from and the policy switches).

Options come from `LoaderOptions` (``make_loader(options)`` builds a loader to register), else
from the environment: ``HOOKWRIGHT_CLAUDE_EXIT_RULES`` = ``current`` | ``classic`` picks the
exit-code rules (codec docstring). Settings may turn off hookwright's cross-source dedup with
``"hookwrightDedupAcrossSources": false`` (see `specs`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hookwright.dialects.claude_code.codec import EXIT_RULES, ExitRules
from hookwright.dialects.claude_code.config import parse_hooks
from hookwright.dialects.claude_code.environment import HookSite
from hookwright.dialects.claude_code.sources import (
    SPEC_SOURCE,
    Policy,
    SettingsKind,
    find_plugins,
    read_settings,
    resolve_policy,
)
from hookwright.dialects.claude_code.specs import (
    BuildOptions,
    Declaration,
    build_spec,
    session_end_budget,
)
from hookwright.events import Event
from hookwright.loading import (
    Diagnostic,
    DiscoveredHook,
    Discovery,
    LoadContext,
    SourceDiscoverer,
    register_source,
)

EXIT_RULES_ENV = "HOOKWRIGHT_CLAUDE_EXIT_RULES"


@dataclass(frozen=True, slots=True)
class LoaderOptions:
    #: None: ``$HOOKWRIGHT_CLAUDE_EXIT_RULES``, else "current".
    exit_code_rules: ExitRules | None = None
    #: None: the settings' ``hookwrightDedupAcrossSources``, else true.
    dedup_across_sources: bool | None = None


def exit_rules(options: LoaderOptions, diagnostics: list[Diagnostic]) -> ExitRules:
    if options.exit_code_rules is not None:
        return options.exit_code_rules
    value = os.environ.get(EXIT_RULES_ENV, "").strip()
    if not value:
        return "current"
    if value not in EXIT_RULES:
        diagnostics.append(
            Diagnostic(
                f"${EXIT_RULES_ENV}",
                "",
                f"unknown exit-code rules {value!r} (current, classic); using current",
                "warning",
            )
        )
        return "current"
    return value


def load_policy(ctx: LoadContext) -> Policy:
    """The policy the settings files of `ctx` set (for `load_frontmatter_hooks`)."""
    files, _ = read_settings(ctx)
    policy, _ = resolve_policy(files)
    return policy


def build_options(
    options: LoaderOptions, policy: Policy, diagnostics: list[Diagnostic], budget: float
) -> BuildOptions:
    dedup = options.dedup_across_sources
    return BuildOptions(
        rules=exit_rules(options, diagnostics),
        policy=policy,
        dedup_across_sources=policy.dedup_across_sources if dedup is None else dedup,
        session_end_budget=budget,
    )


def _policy_notice(policy: Policy, skipped: int, diagnostics: list[Diagnostic]) -> None:
    if not skipped:
        return
    why = "allowManagedHooksOnly" if policy.managed_only else "disableAllHooks"
    diagnostics.append(
        Diagnostic("settings", why, f"{skipped} hook(s) not loaded because of {why}", "warning")
    )


def _trust_root(kind: SettingsKind, ctx: LoadContext) -> Path | None:
    """Project and local settings are the repository's; managed, user and `--config` files
    need no trust."""
    return ctx.project_dir if kind in ("project", "local") else None


def discover(ctx: LoadContext, options: LoaderOptions | None = None) -> Discovery:
    """Every Claude Code hook `ctx` reaches, with a diagnostic per problem. Building a spec runs
    nothing (a command starts only when dispatched), so discovery builds them; plugins inside
    the project need the plugin's folder trusted, wherever their hooks files are."""
    options = options or LoaderOptions()
    discovery = Discovery()
    diagnostics = discovery.diagnostics
    files, problems = read_settings(ctx)
    diagnostics.extend(problems)
    policy, problems = resolve_policy(files)
    diagnostics.extend(problems)
    declarations: list[tuple[Declaration, Path | None]] = []
    skipped = 0
    settings_site = HookSite(ctx.project_dir, ctx.home)
    for settings in files:
        source = SPEC_SOURCE[settings.kind]
        parsed = parse_hooks(settings.data.get("hooks"), str(settings.path))
        diagnostics.extend(parsed.diagnostics)
        if not policy.allows(source):
            skipped += len(parsed.handlers)
            continue
        root = _trust_root(settings.kind, ctx)
        declarations += [
            (
                Declaration(h, settings.path, source, settings_site, root="", from_settings=True),
                root,
            )
            for h in parsed.handlers
        ]
    plugins, problems = find_plugins(ctx, policy)
    diagnostics.extend(problems)
    for plugin in plugins:
        site = HookSite(ctx.project_dir, ctx.home, plugin.root, plugin.data_dir)
        for file, hooks, base in plugin.hooks:
            parsed = parse_hooks(hooks, str(file), base)
            diagnostics.extend(parsed.diagnostics)
            if not policy.allows("plugin"):
                skipped += len(parsed.handlers)
                continue
            declarations += [
                (
                    Declaration(
                        h, file, "plugin", site, root=str(plugin.root), from_settings=False
                    ),
                    plugin.trust_root,
                )
                for h in parsed.handlers
            ]
    _policy_notice(policy, skipped, diagnostics)
    budget = session_end_budget(
        d.parsed.config.timeout
        for d, _ in declarations
        if d.from_settings and d.parsed.event is Event.SessionEnd and d.parsed.config.timeout
    )
    build = build_options(options, policy, diagnostics, budget)
    for declaration, trust_root in declarations:
        spec = build_spec(declaration, build, diagnostics)
        if spec is not None:
            discovery.hooks.append(DiscoveredHook.of_specs([spec], trust_root))
    return discovery


def make_loader(options: LoaderOptions) -> SourceDiscoverer:
    """A source with fixed options, to register (`register_source`) in place of the default."""

    def configured(ctx: LoadContext) -> Discovery:
        return discover(ctx, options)

    return configured


register_source("claude_code", discover)
