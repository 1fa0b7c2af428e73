"""Codex's plugin marketplace requirements: which enabled plugins Codex loads at all.

From Codex CLI 0.171.0's marketplace policy, and measured (a plugin's PreToolUse guard, run or
not): ``[marketplaces] restrict_to_allowed_sources = true`` in the requirements (the last
requirements layer that sets it wins) keeps a plugin only when its marketplace is configured
in the config (``[marketplaces.<name>]`` with ``source_type`` and ``source``, as ``codex plugin
marketplace add`` records it; the layers' tables merged key by key, a trusted project's too)
and that source matches one rule of ``[marketplaces.allowed_sources.<rule>]`` (rules of
every requirements layer, a later layer's fields winning within one rule):

* ``source = "git"``, ``url`` (and ``ref`` when set): the same normalised Git URL (and ref);
* ``source = "host_pattern"``, ``host_pattern``: a regex searched in the Git URL's host;
* ``source = "local"``, ``path``: the same absolute folder.

A rule Codex cannot read (no ``source``, no ``url``, a relative ``path``, a bad regex) makes
Codex allow no marketplace at all. A plugin of a marketplace the config does not name is kept
only when the marketplace is OpenAI's curated one and a rule allows its Git source. Without
the restriction, every enabled plugin is kept, except one whose marketplace the config names
by a name reserved for OpenAI's marketplaces (Codex loads none of those from a user's source):
its curated, bundled and primary-runtime marketplaces, and those of its remote plugins
(``openai-curated-remote``, ``workspace-directory``, ``workspace-shared-with-me`` and its
``-private`` and ``-unlisted`` forms). Bundled and primary-runtime marketplaces are allowed
under their own names from the folders Codex keeps them in, restricted or not.

Which curated marketplace counts then depends on the sign-in (`signin`, measured):
without a ChatGPT sign-in Codex loads no plugin of ``openai-curated`` or
``openai-curated-remote``; with one, none of ``openai-api-curated``, and while ``[features]
remote_plugin`` is on (its default) none configured from ``openai-curated`` either (the
remote catalog stands for it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from hookwright.config.loading import Diagnostic
from hookwright.dialects.codex.config import Layer, LayerFiles
from hookwright.dialects.codex.requirements import RequirementLayer
from hookwright.dialects.codex.signin import SignIn

OPENAI_PLUGINS_GIT_URL: Final = "https://github.com/openai/plugins.git"
CURATED: Final = frozenset({"openai-curated", "openai-api-curated"})
BUNDLED: Final = ("openai-bundled", "openai-bundled-alpha")
PRIMARY_RUNTIME: Final = "openai-primary-runtime"
CURATED_REMOTE: Final = "openai-curated-remote"
#: The marketplaces of Codex's remote plugins.
REMOTE: Final = frozenset(
    {
        CURATED_REMOTE,
        "workspace-directory",
        "workspace-shared-with-me",
        "workspace-shared-with-me-private",
        "workspace-shared-with-me-unlisted",
    }
)
RESERVED: Final = CURATED | REMOTE | {*BUNDLED, PRIMARY_RUNTIME}
RESTRICT: Final = "marketplaces.restrict_to_allowed_sources"
_NOT_RUN: Final = "this hook does not run"
_GITHUB: Final = "https://github.com/"
_SHORTHAND: Final = re.compile(r"[A-Za-z0-9._-]+/[A-Za-z0-9._-]+")


@dataclass(frozen=True, slots=True)
class GitSource:
    url: str
    ref: str | None = None

    def shown(self) -> str:
        return f"{self.url}#{self.ref}" if self.ref else self.url


@dataclass(frozen=True, slots=True)
class LocalSource:
    path: Path

    def shown(self) -> str:
        return str(self.path)


Source = GitSource | LocalSource


@dataclass(frozen=True, slots=True)
class Rule:
    """One readable ``allowed_sources`` rule: exactly one of its three forms is set."""

    git: GitSource | None = None
    host: re.Pattern[str] | None = None
    local: Path | None = None

    def matches(self, source: Source) -> bool:
        if isinstance(source, LocalSource):
            return self.local is not None and _same_folder(self.local, source.path)
        if self.git is not None:
            return self.git.url == source.url and self.git.ref in (None, source.ref)
        host = git_hostname(source.url)
        return self.host is not None and host is not None and bool(self.host.search(host))


@dataclass(frozen=True, slots=True)
class MarketplacePolicy:
    """The composed restriction: `file` and `where` name the requirements layer (and key)
    that sets ``restrict_to_allowed_sources = true`` (None: no restriction); `broken` is the
    first rule Codex cannot read, which leaves no marketplace allowed."""

    file: Path | None = None
    where: str = RESTRICT
    rules: tuple[Rule, ...] = ()
    broken: str | None = None

    def allows(self, source: Source) -> bool:
        return self.broken is None and any(rule.matches(source) for rule in self.rules)


@dataclass(frozen=True, slots=True)
class Configured:
    """One config layer's ``[marketplaces.<name>]`` table."""

    name: str
    table: Mapping[str, Any]
    layer: Layer
    file: Path

    @property
    def folder(self) -> Path:
        """The folder whose trust a project's table needs: the one holding its ``.codex``."""
        return self.file.parent.parent


def compose_policy(
    layers: Sequence[RequirementLayer], diagnostics: list[Diagnostic]
) -> MarketplacePolicy:
    """`layers` lowest precedence first, as `requirements.compose` takes them."""
    setting: tuple[RequirementLayer, Any] | None = None
    rules: dict[str, dict[str, Any]] = {}
    places: dict[str, RequirementLayer] = {}
    for layer in layers:
        table = layer.table.get("marketplaces")
        if not isinstance(table, Mapping):
            continue
        if "restrict_to_allowed_sources" in table:
            setting = (layer, table["restrict_to_allowed_sources"])
        allowed = table.get("allowed_sources")
        for name, fields in (allowed if isinstance(allowed, Mapping) else {}).items():
            rules.setdefault(str(name), {}).update(fields if isinstance(fields, Mapping) else {})
            places[str(name)] = layer
    if setting is None or setting[1] is False:
        return MarketplacePolicy()
    layer, value = setting
    if not isinstance(value, bool):
        message = f"{value!r:.40} is not true or false: Codex CLI does not start; read as true"
        diagnostics.append(Diagnostic(str(layer.file), layer.where(RESTRICT), message))
    compiled, broken = _rules(rules, places, diagnostics)
    if broken is not None:
        broken = broken.removeprefix(f"{layer.file}: ")
    return MarketplacePolicy(layer.file, layer.where(RESTRICT), compiled, broken)


def _rules(
    rules: Mapping[str, Mapping[str, Any]],
    places: Mapping[str, RequirementLayer],
    diagnostics: list[Diagnostic],
) -> tuple[tuple[Rule, ...], str | None]:
    """Every readable rule, and the first (by name, as Codex reads them) that is not."""
    compiled: list[Rule] = []
    broken: str | None = None
    for name in sorted(rules):
        rule = compile_rule(rules[name])
        if isinstance(rule, Rule):
            compiled.append(rule)
            continue
        layer = places[name]
        where = layer.where(f"marketplaces.allowed_sources.{name}")
        message = f"{rule}: Codex allows no plugin marketplace while a rule is unreadable"
        diagnostics.append(Diagnostic(str(layer.file), where, message))
        broken = broken or f"{layer.file}: {where}: {rule}"
    return tuple(compiled), broken


def compile_rule(fields: Mapping[str, Any]) -> Rule | str:
    """The rule, or why Codex cannot read it."""
    kind = fields.get("source")
    if kind == "git":
        url, ref = _text(fields.get("url")), fields.get("ref")
        if url is None:
            return "missing url"
        if ref is not None and _text(ref) is None:
            return "ref must not be empty"
        source = parse_source(url, _text(ref))
        return Rule(git=source) if isinstance(source, GitSource) else "expected a Git URL"
    if kind == "host_pattern":
        pattern = _text(fields.get("host_pattern"))
        if pattern is None:
            return "missing host_pattern"
        try:
            return Rule(host=re.compile(pattern))
        except re.error as exc:
            return f"host_pattern: {exc}"
    if kind == "local":
        path = fields.get("path")
        if not isinstance(path, str) or not path:
            return "missing path"
        return Rule(local=Path(path)) if os.path.isabs(path) else "local path must be absolute"
    return "missing source" if kind is None else f"unknown source {kind!r:.40}"


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def parse_source(text: str, ref: str | None = None) -> Source | None:
    """A marketplace source as Codex normalises it: a local path, or a Git URL (``#ref`` or,
    for a shorthand, ``@ref`` split off; an explicit `ref` wins); None when it is neither."""
    base, found = text.strip(), None
    if "#" in base:
        base, _, found = base.rpartition("#")
    elif "://" not in base and not _ssh(base) and "@" in base:
        base, _, found = base.rpartition("@")
    ref = ref or (found.strip() or None if found else None)
    if base.startswith(("./", "../", "/", "~/")) or base in {".", ".."}:
        return None if ref else LocalSource(Path(os.path.expanduser(base)))
    if _ssh(base) or base.startswith(("http://", "https://")):
        url = base.rstrip("/")
        if url.startswith(_GITHUB) and not url.endswith(".git"):
            url += ".git"
        return GitSource(url, ref)
    if _SHORTHAND.fullmatch(base):
        return GitSource(f"{_GITHUB}{base}.git", ref)
    return None


def _ssh(text: str) -> bool:
    return text.startswith("ssh://") or (text.startswith("git@") and ":" in text)


def git_hostname(url: str) -> str | None:
    """The host of a Git URL, lower case (``user@host:path`` too)."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        host = None
    if host:
        return host.lower()
    _, at, rest = url.partition("@")
    name, colon, _ = rest.partition(":")
    return name.lower() if at and colon and name else None


def _same_folder(allowed: Path, source: Path) -> bool:
    """Codex's path match: both resolved when both exist, else the paths as written (a
    relative `source` matches no absolute rule)."""
    if allowed == source or not source.is_absolute():
        return allowed == source
    try:
        return allowed.resolve(strict=True) == source.resolve(strict=True)
    except (OSError, RuntimeError):
        return False


def configured(source: Configured) -> Source | str:
    """A configured marketplace's source, or why Codex cannot read it."""
    kind, text = source.table.get("source_type"), source.table.get("source")
    if kind is None:
        return f"configured marketplace `{source.name}` is missing source_type"
    if not isinstance(text, str):
        return f"configured marketplace `{source.name}` is missing source"
    if kind == "local":
        return LocalSource(Path(text))
    if kind == "git":
        found = parse_source(text, _text(source.table.get("ref")))
        if isinstance(found, GitSource):
            return found
        return f"configured marketplace `{source.name}` source does not match source_type `git`"
    return f"configured marketplace `{source.name}` has an unknown source_type {kind!r:.40}"


def managed_name(source: Source | str, codex_home: Path, home: Path) -> str | None:
    """The OpenAI marketplace Codex itself installs at a local `source`, if it is one."""
    if not isinstance(source, LocalSource) or not source.path.is_absolute():
        return None
    for name in BUNDLED:
        if source.path == codex_home / ".tmp" / "bundled-marketplaces" / name:
            return name
    cache = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(cache) if os.path.isabs(cache) else home / ".cache"
    runtime = base / "codex-runtimes" / "codex-primary-runtime" / "plugins" / PRIMARY_RUNTIME
    return PRIMARY_RUNTIME if source.path == runtime else None


def configured_marketplaces(ordered: Sequence[LayerFiles]) -> list[Configured]:
    """Every config layer's ``[marketplaces.<name>]`` tables, lowest precedence first."""
    found: list[Configured] = []
    for files in ordered:
        table = files.config.get("marketplaces") if files.config else None
        for name, entry in (table if isinstance(table, Mapping) else {}).items():
            if isinstance(entry, Mapping):
                found.append(Configured(str(name), entry, files.layer, files.file_read))
    return found


def refusal(
    plugin_id: str,
    policy: MarketplacePolicy,
    tables: Sequence[Configured],
    homes: tuple[Path, Path],
) -> Diagnostic | None:
    """Why Codex does not load the enabled plugin `plugin_id` (None: it does). `tables`: the
    configured marketplaces that count; `homes`: ``$CODEX_HOME`` and the user's home."""
    market = plugin_id.rpartition("@")[2]
    named = [table for table in tables if table.name == market]
    if named:
        merged: dict[str, Any] = {}
        for table in named:
            merged.update(table.table)
        entry = Configured(market, merged, named[-1].layer, named[-1].file)
        return _configured_refusal(entry, policy, homes)
    if policy.file is None:
        return None
    if market in CURATED and policy.allows(GitSource(OPENAI_PLUGINS_GIT_URL)):
        return None
    message = (
        f"true: the plugin's marketplace `{market}` is not configured ([marketplaces.{market}] "
        "as `codex plugin marketplace add` records it), and Codex loads plugins only of "
        "configured marketplaces whose source a marketplaces.allowed_sources rule allows; "
        "this hook does not run"
    )
    return _note(policy.file, policy.where, message)


def _configured_refusal(
    entry: Configured, policy: MarketplacePolicy, homes: tuple[Path, Path]
) -> Diagnostic | None:
    source = configured(entry)
    where = f"marketplaces.{entry.name}"
    managed = managed_name(source, *homes)
    if managed is not None:
        if managed == entry.name:
            return None
        message = f"the folder of OpenAI's `{managed}` marketplace under another name"
        return _note(entry.file, where, f"{message}: Codex loads none of its plugins; {_NOT_RUN}")
    if entry.name in RESERVED:
        message = (
            f"`{entry.name}` is a name reserved for OpenAI's marketplaces: Codex loads no "
            "plugin of a marketplace configured under it; this hook does not run"
        )
        return _note(entry.file, where, message)
    if policy.file is None:
        return None
    if isinstance(source, str):
        message = f"{source}: Codex loads none of its plugins while {RESTRICT} is true"
        return _note(entry.file, where, f"{message}; this hook does not run")
    if policy.broken is not None:
        message = f"true, and {policy.broken}: Codex allows no plugin marketplace"
        return _note(policy.file, policy.where, f"{message}; this hook does not run")
    if policy.allows(source):
        return None
    message = (
        f"true: the source `{source.shown()}` of marketplace `{entry.name}` ({entry.file}) "
        "matches no marketplaces.allowed_sources rule, so Codex loads none of its plugins; "
        "this hook does not run"
    )
    return _note(policy.file, policy.where, message)


def sign_in_refusal(
    plugin_id: str, sign_in: SignIn, remote_catalog: tuple[bool, Path | None]
) -> Diagnostic | None:
    """Why Codex does not load `plugin_id` for how the user is signed in (None: it does).
    `remote_catalog`: whether ``[features] remote_plugin`` is on, and the file that says so
    (None: the default, on)."""
    market = plugin_id.rpartition("@")[2]
    if not sign_in.chatgpt and market in {"openai-curated", CURATED_REMOTE}:
        message = (
            f"no ChatGPT sign-in: Codex loads plugins of `{market}` only when signed in with "
            f"ChatGPT; {_NOT_RUN}"
        )
        return _note(sign_in.file, "sign-in", message)
    if sign_in.chatgpt and market == "openai-api-curated":
        message = (
            f"signed in with ChatGPT: Codex loads no plugin of `{market}` then (it is the "
            f"API's curated marketplace); {_NOT_RUN}"
        )
        return _note(sign_in.file, "sign-in", message)
    remote_on, remote_file = remote_catalog
    if sign_in.chatgpt and market == "openai-curated" and remote_on:
        message = (
            "signed in with ChatGPT and remote plugins on: Codex takes OpenAI's curated "
            f"plugins from its remote catalog (`{CURATED_REMOTE}`) and loads none configured "
            f"from `{market}` ([features] remote_plugin = false turns that off); {_NOT_RUN}"
        )
        if remote_file is None:
            return _note(sign_in.file, "sign-in", message)
        return _note(remote_file, "features.remote_plugin", message)
    return None


def _note(file: Path, where: str, message: str) -> Diagnostic:
    return Diagnostic(str(file), where, message, "warning")
