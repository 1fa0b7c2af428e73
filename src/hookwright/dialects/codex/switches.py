"""Whether Codex's switches let a declared hook run: ``allow_managed_hooks_only``,
``[features] hooks``, and for a plugin's hook whether Codex loads the plugin (enabled,
``[features] plugins``, the requirements' marketplace restriction, `marketplaces`).

Codex CLI 0.171.0 (measured): ``allow_managed_hooks_only = true`` in ``requirements.toml``
runs managed hooks only; ``[features] hooks = false`` in the effective config runs no hook
at all, managed ones included, unless ``requirements.toml`` pins ``[features] hooks = true``.

hookwright differs on purpose in one place: a user's or a project's ``hooks = false`` turns
off their own hooks, never the administrator's. Managed hooks keep running, with a warning
naming the file and the pin that makes Codex agree. A project folder's config counts only
once hookwright trusts that folder (Codex: once Codex trusts the project).

Measured on Codex CLI 0.171.0: a handler with ``async: true`` never runs (no process is
started, reviewed or not, and ``exec`` says nothing); hookwright lists it as not run, naming
its ``async`` field. ``[features] plugins = false`` (a config layer's, or pinned by
the requirements) loads no plugin, so no plugin hook runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from hookwright.config.loading import Diagnostic
from hookwright.dialects.codex.config import CodexHook
from hookwright.dialects.codex.layers import (
    CodexLayers,
    FolderTrust,
    Setting,
    counts,
    plugin_enabled,
)
from hookwright.dialects.codex.marketplaces import refusal, sign_in_refusal


@dataclass(frozen=True, slots=True)
class Verdict:
    """`runs`: the switches let the hook run; `note`: why not, or what hookwright keeps."""

    runs: bool
    note: Diagnostic | None = None


def effective_feature(layers: CodexLayers, trusts: FolderTrust) -> Setting | None:
    """The setting of ``[features] hooks`` that decides (None: not set; hooks are on)."""
    return _deciding(layers.pinned, layers.feature, trusts)


def _deciding(
    pinned: Setting | None, settings: tuple[Setting, ...], trusts: FolderTrust
) -> Setting | None:
    """The pin, else the last setting that counts."""
    if pinned is not None:
        return pinned
    counted = [setting for setting in settings if counts(setting, trusts)]
    return counted[-1] if counted else None


def switch_verdict(hook: CodexHook, layers: CodexLayers, trusts: FolderTrust) -> Verdict:
    """Whether the switches let the hook run, and why not; an async hook that runs in the
    background is noted (it runs unwatched), unless another note says more."""
    where = hook.origin.rpartition(":")[2]
    verdict = _switched(hook, layers, trusts, where)
    if hook.background and verdict.runs and verdict.note is None:
        return Verdict(True, _note(hook.declared_in or hook.source, f"{where}.async", _ASYNC))
    return verdict


def _switched(hook: CodexHook, layers: CodexLayers, trusts: FolderTrust, where: str) -> Verdict:
    if hook.event in NEVER_FIRED:
        return Verdict(
            False, _note(hook.declared_in or hook.source, where, NEVER_FIRED[hook.event])
        )
    if layers.managed_only is not None and hook.layer != "managed":
        return Verdict(False, _note(layers.managed_only, "allow_managed_hooks_only", _ONLY))
    if hook.plugin is not None:
        refused = plugin_verdict(hook.plugin, layers, trusts)
        if refused is not None:
            return refused
    feature = effective_feature(layers, trusts)
    if feature is None or feature.value:
        return Verdict(True)
    if hook.layer == "managed" and feature.layer != "managed":
        return Verdict(True, _note(feature.file, "features.hooks", _KEPT))
    return Verdict(False, _note(feature.file, "features.hooks", _OFF))


_ASYNC = (
    "true: Codex starts an async hook in the background and does not wait for it (measured "
    "on Codex CLI 0.171.0): it cannot block, its additionalContext reaches the model at the "
    "next request after it ends, and it is killed if still running when the agent exits"
)
#: Events Codex accepts in a hooks file and never fires (measured on Codex CLI 0.171.0).
NEVER_FIRED: Final = {
    "StopFailure": (
        "Codex CLI 0.171.0 accepts StopFailure hooks but never runs them (measured: a model "
        "request failing with 400, 429 or 500 ends the turn without one); this hook does not run"
    ),
}
_ONLY = "allow_managed_hooks_only = true: only managed Codex hooks run; this hook does not"
_NO_PLUGINS = "false turns off Codex plugins: this plugin's hook does not run"
_OFF = "hooks = false turns off Codex hooks; this hook does not run"
_KEPT = (
    "hooks = false: Codex turns off every hook, managed ones too; hookwright keeps running "
    "the managed hooks (pin [features] hooks = true in requirements.toml so Codex agrees)"
)


def plugin_verdict(plugin: str, layers: CodexLayers, trusts: FolderTrust) -> Verdict | None:
    """Why Codex does not load the plugin's hooks: turned off, the plugins feature off, its
    marketplace not allowed by the requirements or not the curated one for the user's
    sign-in (None: it loads them)."""
    if not plugin_enabled(layers.plugins, plugin, trusts):
        return _plugin_off(plugin, layers, trusts)
    feature = _deciding(layers.plugins_pinned, layers.plugins_feature, trusts)
    if feature is not None and not feature.value:
        return Verdict(False, _note(feature.file, "features.plugins", _NO_PLUGINS))
    tables = [t for t in layers.configured if t.layer != "project" or trusts(t.folder)]
    refused = refusal(plugin, layers.marketplaces, tables, layers.homes)
    if refused is None:
        remote = _deciding(layers.remote_plugin_pinned, layers.remote_plugin_feature, trusts)
        catalog = (True, None) if remote is None else (remote.value, remote.file)
        refused = sign_in_refusal(plugin, layers.sign_in, catalog)
    return None if refused is None else Verdict(False, refused)


def _plugin_off(plugin: str, layers: CodexLayers, trusts: FolderTrust) -> Verdict:
    """Discovery lists a plugin enabled with or without the projects' config: an untrusted
    project folder's config turned it on, or the last setting that counts turned it off."""
    where = f'plugins."{plugin}".enabled'
    settings = [setting for named, setting in layers.plugins if named == plugin]
    uncounted = [s.file for s in settings if s.value and not counts(s, trusts)]
    if not uncounted:
        message = "false: the plugin is turned off; its hooks do not run"
        last = [setting for setting in settings if counts(setting, trusts)][-1]
        return Verdict(False, _note(last.file, where, message))
    project = uncounted[-1]
    message = (
        "only the project's config enables the plugin, and it counts once hookwright "
        "trusts the project; its hooks do not run"
    )
    return Verdict(False, _note(project, where, message))


def _note(file: object, field: str, message: str) -> Diagnostic:
    return Diagnostic(str(file), field, message, "warning")
