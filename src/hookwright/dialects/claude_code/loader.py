"""The Claude Code source: settings files and plugins -> discovered hooks (see `sources` for
where they are read from and the policy switches).

Options come from `LoaderOptions` (``make_loader(options)`` builds a loader to register), else
from the environment: ``HOOKWRIGHT_CLAUDE_EXIT_RULES`` = ``current`` | ``classic`` picks the
exit-code rules (codec docstring). Settings may turn off hookwright's cross-source dedup with
``"hookwrightDedupAcrossSources": false`` (see `specs`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from hookwright.config.loading import (
    Diagnostic,
    DiscoveredHook,
    Discovery,
    LoadContext,
    LoadResult,
    SourceDiscoverer,
    register_source,
)
from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event
from hookwright.core.spec import HookSpec
from hookwright.core.words import counted
from hookwright.dialects.claude_code.codec import EXIT_RULES, ExitRules
from hookwright.dialects.claude_code.config import CommandHook, ParsedHandler, parse_hooks
from hookwright.dialects.claude_code.environment import HookSite
from hookwright.dialects.claude_code.sources import (
    SPEC_SOURCE,
    Plugin,
    Policy,
    SettingsFile,
    find_plugins,
    read_settings,
    resolve_policy,
    trusted_files,
)
from hookwright.dialects.claude_code.specs import (
    BuildOptions,
    Declaration,
    build_spec,
    session_end_budget,
)
from hookwright.dialects.claude_profiles import ClaudeCodeProfile, profile_for

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


def load_policy(ctx: LoadContext, trust: TrustPolicy | None = None) -> Policy:
    """The policy the settings files of `ctx` set (for `load_frontmatter_hooks`), from the files
    `trust` trusts (None: only those that need no trust, so not the project's)."""
    files, _ = read_settings(ctx)
    policy, _ = resolve_policy(trusted_files(files, trust or TrustPolicy(), []))
    return policy


def build_options(
    options: LoaderOptions,
    policy: Policy,
    diagnostics: list[Diagnostic],
    budget: float,
    profile: ClaudeCodeProfile,
) -> BuildOptions:
    dedup = options.dedup_across_sources
    return BuildOptions(
        rules=exit_rules(options, diagnostics),
        policy=policy,
        dedup_across_sources=policy.dedup_across_sources if dedup is None else dedup,
        session_end_budget=budget,
        profile=profile,
    )


def _policy_notice(policy: Policy, skipped: int, diagnostics: list[Diagnostic]) -> None:
    if not skipped:
        return
    why = "allowManagedHooksOnly" if policy.managed_only else "disableAllHooks"
    diagnostics.append(
        Diagnostic(
            "settings", why, f"{counted(skipped, 'hook')} not loaded because of {why}", "warning"
        )
    )


@dataclass(frozen=True, slots=True)
class Declared:
    """A declared handler, the folder that must be trusted before it runs, and the plugin
    that declares it (None for settings files)."""

    declaration: Declaration
    trust_root: Path | None
    plugin: Plugin | None = None


def _from_settings(handler: ParsedHandler, settings: SettingsFile, site: HookSite) -> Declared:
    source = SPEC_SOURCE[settings.kind]
    declaration = Declaration(handler, settings.path, source, site, root="", from_settings=True)
    return Declared(declaration, settings.trust_root)


def _from_plugin(handler: ParsedHandler, file: Path, plugin: Plugin, site: HookSite) -> Declared:
    declaration = Declaration(
        handler, file, "plugin", site, root=str(plugin.root), from_settings=False
    )
    return Declared(declaration, plugin.trust_root, plugin)


def _declarations(
    ctx: LoadContext, files: list[SettingsFile], diagnostics: list[Diagnostic]
) -> tuple[list[Declared], list[tuple[Declared, str]]]:
    """Every handler of the settings files and plugins, in load order; no policy applied.
    Then the handlers withheld for a misspelled narrowing key, each with why (they never run
    and are listed as not run)."""
    declared: list[Declared] = []
    withheld: list[tuple[Declared, str]] = []
    settings_site = HookSite(ctx.project_dir, ctx.home)
    for settings in files:
        parsed = parse_hooks(settings.data.get("hooks"), str(settings.path))
        diagnostics.extend(parsed.diagnostics)
        declared += [_from_settings(h, settings, settings_site) for h in parsed.handlers]
        withheld += [(_from_settings(h, settings, settings_site), w) for h, w in parsed.withheld]
    plugins, problems = find_plugins(ctx, files)
    diagnostics.extend(problems)
    for plugin in plugins:
        site = HookSite(ctx.project_dir, ctx.home, plugin.root, plugin.data_dir)
        for file, hooks, base in plugin.hooks:
            parsed = parse_hooks(hooks, str(file), base)
            diagnostics.extend(parsed.diagnostics)
            declared += [_from_plugin(h, file, plugin, site) for h in parsed.handlers]
            withheld += [(_from_plugin(h, file, plugin, site), w) for h, w in parsed.withheld]
    return declared, withheld


def declarations(ctx: LoadContext) -> list[Declaration]:
    """Every loaded handler of the settings files and plugins `ctx` reaches, with where it
    was declared (for checks that read more than its shape)."""
    files, _ = read_settings(ctx)
    declared, _ = _declarations(ctx, files, [])
    return [item.declaration for item in declared]


def _budget(declared: Iterable[Declared]) -> float:
    return session_end_budget(
        d.declaration.parsed.config.timeout
        for d in declared
        if d.declaration.from_settings
        and d.declaration.parsed.event is Event.SessionEnd
        and d.declaration.parsed.config.timeout
    )


class SettingsBinder:
    """Builds the specs of trusted declarations under the policy of the trusted settings files,
    resolved once per trust policy (every hook of a discovery is bound with the same one)."""

    def __init__(
        self,
        files: list[SettingsFile],
        declared: list[Declared],
        options: LoaderOptions,
        profile: ClaudeCodeProfile,
    ) -> None:
        self._files = files
        self._declared = declared
        self._options = options
        self._profile = profile
        self._resolved: tuple[TrustPolicy, list[HookSpec | None], list[Diagnostic]] | None = None

    def bind(self, index: int, trust: TrustPolicy) -> LoadResult:
        if self._resolved is None or self._resolved[0] != trust:
            self._resolved = (trust, *self._resolve(trust))
        _, specs, diagnostics = self._resolved
        spec = specs[index]
        return LoadResult(specs=[spec] if spec is not None else [], diagnostics=list(diagnostics))

    def _resolve(self, trust: TrustPolicy) -> tuple[list[HookSpec | None], list[Diagnostic]]:
        diagnostics: list[Diagnostic] = []
        policy, problems = resolve_policy(trusted_files(self._files, trust, diagnostics))
        diagnostics += problems
        trusted = [d for d in self._declared if trust.trusts(d.trust_root)]
        _policy_notice(
            policy, sum(not policy.allows(d.declaration.source) for d in trusted), diagnostics
        )
        allowed = [
            d
            for d in trusted
            if policy.allows(d.declaration.source) and policy.plugin_enabled(d.plugin)
        ]
        build = build_options(self._options, policy, diagnostics, _budget(allowed), self._profile)
        built = {id(d): build_spec(d.declaration, build, diagnostics) for d in allowed}
        specs = [built.get(id(d)) for d in self._declared]
        return specs, diagnostics


def discover(ctx: LoadContext, options: LoaderOptions | None = None) -> Discovery:
    """Every Claude Code hook `ctx` reaches, with a diagnostic per problem; plugins inside the
    project need the plugin's folder trusted, wherever their hooks files are. Building a spec
    runs nothing, so discovery builds one per hook for listing; the policy switches
    (`disableAllHooks`, `enabledPlugins`, the http allow-lists, dedup) are applied when binding,
    from the trusted settings files only."""
    options = options or LoaderOptions()
    discovery = Discovery()
    diagnostics = discovery.diagnostics
    files, problems = read_settings(ctx)
    discovery.files = [str(settings.path) for settings in files]
    diagnostics.extend(problems)
    _, problems = resolve_policy(files)
    diagnostics.extend(problems)
    declared, withheld = _declarations(ctx, files, diagnostics)
    profile = profile_for(ctx.claude_code_version)
    binder = SettingsBinder(files, declared, options, profile)
    listing = build_options(options, Policy(), diagnostics, _budget(declared), profile)
    for index, item in enumerate(declared):
        spec = build_spec(item.declaration, listing, diagnostics)
        if spec is not None:
            hook = DiscoveredHook.of_specs([spec], item.trust_root)
            config = item.declaration.parsed.config
            command = config.command if isinstance(config, CommandHook) else None
            bind = functools.partial(binder.bind, index)
            discovery.hooks.append(replace(hook, binder=bind, command=command))
    discovery.hooks += _withheld_hooks(withheld, listing)
    return discovery


def _withheld_hooks(
    withheld: list[tuple[Declared, str]], listing: BuildOptions
) -> list[DiscoveredHook]:
    """The withheld handlers as declared hooks that bind to nothing, so every host reports
    them as not run, with why (`DiscoveredHook.note`)."""
    hooks = []
    for item, why in withheld:
        spec = build_spec(item.declaration, listing, [])
        if spec is None:
            continue
        hook = DiscoveredHook.of_specs([spec], item.trust_root)
        hooks.append(replace(hook, binder=_binds_nothing, note=why))
    return hooks


def _binds_nothing(_policy: TrustPolicy) -> LoadResult:
    return LoadResult()


def make_loader(options: LoaderOptions) -> SourceDiscoverer:
    """A source with fixed options, to register (`register_source`) in place of the default."""

    def configured(ctx: LoadContext) -> Discovery:
        return discover(ctx, options)

    return configured


register_source("claude_code", discover)
