"""Load `<workspace>/.openharness/hooks/*.yaml` into HookSpecs.

Files: regular files directly in `.openharness/hooks/` ending in `.yaml`, or `.yml` (the
real project ignores those silently; hookwright loads them with a warning), sorted by file
name: that order is the chain order (upstream uses `readdir` order by accident). Sub-
directories (`scripts/`, `prompts/`, `resources/`) and other files are never read as hooks.

Per file: YAML -> `${env.*}` / `${secrets.*}` substitution -> schema validation -> duplicate
name check -> matcher regex compiled -> paths checked. Any problem is a `Diagnostic` naming
the file and the field path and skips that file only; the others still load (upstream one bad
file fails the whole workspace).

The workspace is the project: its hooks run only when it is trusted. Discovery builds the
specs (handlers are inert until dispatched) and `Discovery.bind` hands them over.

One `HookSpec` per (file, event): `dialect="openharness"`, `source="project"`,
`mode="chain"`, the matcher on the event's target field (`tool_name`, `model_ref`,
`trigger_type`; none on context and compaction events). `spec.timeout` is the handler's
timeout (default 30 s) plus a grace period: the handler enforces its own timeout and reports
it; the engine's limit is only the backstop. `spec.dialect_data` (an `OpenHarnessSpecData`)
holds the OpenHarness event name, the file, the handler type and its `timeout_seconds`;
`spec.capabilities` the declared capabilities, sorted; `spec.secrets` the resolved secret
values the hook uses (a :class:`SecretValues` that never prints them).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hookwright.config.loading import Diagnostic, DiscoveredHook, Discovery, LoadContext, LoadResult
from hookwright.config.safeparse import ParseError, is_regular_file, read_yaml
from hookwright.config.trust import TrustPolicy
from hookwright.core import validation
from hookwright.core.dialect_data import DialectData
from hookwright.core.events import Event, HookInput
from hookwright.core.home import user_home
from hookwright.core.matching import Matcher, MatcherError, compile_matcher
from hookwright.core.spec import HookSpec
from hookwright.core.words import counted
from hookwright.dialects.base import Handler
from hookwright.dialects.openharness import capabilities as caps
from hookwright.dialects.openharness.agents import AGENTS_DIR, agent_path
from hookwright.dialects.openharness.binding import HookBinding, SecretValues, redact_all
from hookwright.dialects.openharness.codec import Channel, OpenHarnessCodec
from hookwright.dialects.openharness.command import CommandChannel
from hookwright.dialects.openharness.events import CANONICAL, MATCH_FIELD, OH_NAME
from hookwright.dialects.openharness.http import HttpChannel
from hookwright.dialects.openharness.lease import LeasedTransport
from hookwright.dialects.openharness.prompt import PromptChannel, PromptFilesTransport
from hookwright.dialects.openharness.prompt_source import PromptSourceError, source_path
from hookwright.dialects.openharness.schema import (
    AgentHandler,
    CommandHandler,
    HookFile,
    HttpHandler,
    PromptHandler,
)
from hookwright.dialects.openharness.secret_store import SecretStore
from hookwright.dialects.openharness.substitution import Substitution
from hookwright.dialects.openharness.workspace import (
    OH_DIR,
    WORKSPACE_FILE,
    read_kind,
    resolve_inside,
)
from hookwright.dialects.openharness.yaml_hint import quote_hint
from hookwright.transports.base import Transport
from hookwright.transports.http import HttpTransport
from hookwright.transports.model import ModelTransport
from hookwright.transports.process import ProcessTransport

HOOKS_DIR = "hooks"
DEFAULT_TIMEOUT = 30.0
#: Extra seconds before the engine cancels a handler that enforces its own timeout.
ENGINE_GRACE = 2.0

_HANDLER_TAGS = frozenset({"command", "http", "prompt", "agent"})


@dataclass(frozen=True, slots=True)
class OpenHarnessSpecData(DialectData):
    """What the OpenHarness loader records on each of its specs (`HookSpec.dialect_data`)."""

    #: The OpenHarness event name (`before_tool_dispatch`, ...).
    event: str
    #: The hook file, resolved.
    file: str
    #: `command`, `http`, `prompt` or `agent`.
    handler_type: str
    #: The handler's own timeout; the spec's is this plus `ENGINE_GRACE`.
    timeout_seconds: float


def hook_files(root: Path) -> list[Path]:
    """Hook definition files of a workspace, in chain order."""
    hooks_dir = root / OH_DIR / HOOKS_DIR
    if not hooks_dir.is_dir():
        return []
    files = [
        entry
        for entry in hooks_dir.iterdir()
        if entry.suffix in (".yaml", ".yml") and entry.is_file()
    ]
    return sorted(files, key=lambda p: p.name)


def field_path(loc: tuple[int | str, ...]) -> str:
    """`('handler', 'command', 'timeout_seconds')` -> `handler.timeout_seconds`."""
    parts = list(loc)
    if len(parts) >= 2 and parts[0] == "handler" and parts[1] in _HANDLER_TAGS:
        del parts[1]
    return validation.field_path(parts)


def _message(error: Any) -> str:
    if error["type"] == "extra_forbidden":
        return validation.pydantic_message(error, HookFile)
    if error["type"] == "literal_error":
        return _not_one_of(error["input"], str(error["ctx"]["expected"]))
    if error["type"] == "union_tag_invalid":
        return _not_one_of(error["ctx"]["tag"], str(error["ctx"]["expected_tags"]))
    msg = str(error["msg"])
    return msg.removeprefix("Value error, ")


def _not_one_of(value: object, expected: str) -> str:
    """A value outside a fixed set, named first (pydantic lists the set without it):
    ``"after_tool_dispatchh" is not one of: ... (did you mean 'after_tool_dispatch'?)``."""
    names = re.findall(r"'([^']*)'", expected)
    hint = validation.did_you_mean(value, names) if isinstance(value, str) else ""
    return f"{validation.quoted_value(value)}{hint} is not one of: {', '.join(names)}"


@dataclass(slots=True)
class _FileLoad:
    """One file's outcome."""

    hook: HookFile | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    secrets: set[str] = field(default_factory=set)
    #: The name a file that failed validation gives its hook (None: it names none).
    rejected: str | None = None
    #: The events a file that failed validation names (those hookwright knows).
    rejected_events: tuple[Event, ...] = ()

    def error(self, file: str, path: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(file, path, redact_all(message, self.secrets)))

    def warn(self, file: str, path: str, message: str) -> None:
        self.diagnostics.append(
            Diagnostic(file, path, redact_all(message, self.secrets), "warning")
        )


def _parse(path: Path, environ: Mapping[str, str], store: SecretStore) -> _FileLoad:
    out = _FileLoad()
    file = str(path)
    try:
        raw = read_yaml(path)
    except ParseError as exc:
        out.error(file, "", exc.reason + quote_hint(path, exc))
        return out
    if raw is None:
        out.error(file, "", "empty hook file: name, events and handler are required")
        return out
    if not isinstance(raw, dict):
        out.error(file, "", f"expected a mapping, got {type(raw).__name__}")
        return out
    substitution = Substitution(environ, store)
    data = substitution.expand(raw)
    out.secrets = substitution.used_secrets
    for problem in substitution.errors:
        out.error(file, problem.path, problem.message)
    try:
        hook = HookFile.model_validate(data)
    except ValidationError as exc:
        _reject(data, file, exc, out)
        return out
    if not out.diagnostics:
        out.hook = hook
    return out


def _reject(data: Mapping[str, Any], file: str, exc: ValidationError, out: _FileLoad) -> None:
    """Each schema error of a file, naming the hook the file declares, which is not loaded."""
    name = data.get("name")
    out.rejected = name if isinstance(name, str) and name else None
    events = data.get("events")
    if isinstance(events, list):
        known = (CANONICAL[e] for e in events if isinstance(e, str) and e in CANONICAL)
        out.rejected_events = tuple(dict.fromkeys(known))
    not_loaded = f"hook {out.rejected!r} is not loaded" if out.rejected else "not loaded"
    for err in exc.errors():
        out.error(file, field_path(tuple(err["loc"])), f"{_message(err)}; {not_loaded}")


def _rejected_hook(file: str, root: Path, out: _FileLoad) -> DiscoveredHook | None:
    """A hook whose file failed validation, declared so that every host reports it as not
    run, with the first error as why."""
    if out.rejected is None or not out.diagnostics:
        return None
    first = out.diagnostics[0]
    return DiscoveredHook(
        name=out.rejected,
        dialect="openharness",
        source="project",
        origin=file,
        trust_root=root,
        binder=_binds_nothing,
        events=out.rejected_events,
        own_events=tuple(OH_NAME[event] for event in out.rejected_events),
        mode="chain",
        note=f"{first.path}: {first.message}" if first.path else first.message,
    )


def _binds_nothing(_policy: TrustPolicy) -> LoadResult:
    return LoadResult()


def _matcher(hook: HookFile, file: str, out: _FileLoad) -> Matcher | None:
    if hook.matcher is None:
        return None
    try:
        matcher = compile_matcher(hook.matcher, "regex", strict=True)
    except MatcherError as exc:
        out.error(file, "matcher", f"invalid regex: {exc.error}")
        return None
    if not any(name in MATCH_FIELD for name in hook.events):
        out.warn(file, "matcher", "ignored: none of this hook's events has a matcher target")
    return matcher


def _channel(
    hook: HookFile, root: Path, file: str, out: _FileLoad
) -> tuple[Transport, Channel] | None:
    """How the hook's envelope travels: its transport and its handler type's channel."""
    handler = hook.handler
    timeout = float(handler.timeout_seconds or DEFAULT_TIMEOUT)
    if isinstance(handler, CommandHandler):
        cwd = resolve_inside(root, handler.cwd or ".")
        if cwd is None:
            out.error(file, "handler.cwd", f"{handler.cwd!r} resolves outside the workspace")
            return None
        environment = dict(handler.environment or {})
        command = CommandChannel(handler.command, cwd, environment, timeout)
        return LeasedTransport(ProcessTransport(), root), command
    if isinstance(handler, HttpHandler):
        headers = dict(handler.headers or {})
        return HttpTransport(), HttpChannel(handler.url, handler.method or "POST", headers, timeout)
    source, where = (
        (handler.prompt, "handler.prompt")
        if isinstance(handler, PromptHandler)
        else (handler.task, "handler.task")
    )
    try:
        prompt_file = source_path(source, root)
    except PromptSourceError as exc:
        out.error(file, f"{where}.file", str(exc))
        return None
    if prompt_file is not None and not is_regular_file(prompt_file):
        out.warn(file, f"{where}.file", f"{source.file} does not exist (yet)")
    transport = PromptFilesTransport(ModelTransport())
    if isinstance(handler, AgentHandler):
        path = agent_path(root, handler.agent)
        if path is None or not is_regular_file(path):
            where = f"{OH_DIR}/{AGENTS_DIR}/{handler.agent}.md"
            out.warn(file, "handler.agent", f"{where} does not exist (yet): agent_not_found")
        return transport, PromptChannel(
            source, root, timeout, hook_name=hook.name, agent=handler.agent
        )
    return transport, PromptChannel(
        source, root, timeout, hook_name=hook.name, model_ref=handler.model_ref
    )


def final_response(inp: HookInput) -> bool:
    """after_model_call fires once per run, on the response the run ends with (one without
    tool calls); a host that does not say (`final_response` absent) gets every response."""
    return inp.payload.get("final_response") is not False


def _asks_for_actions(hook: HookFile) -> bool:
    """A command or http handler's ``actions: true``: its envelope carries the tool call's
    canonical actions."""
    handler = hook.handler
    return isinstance(handler, CommandHandler | HttpHandler) and handler.actions


def _reads_state(hook: HookFile) -> bool:
    """A command or http handler's ``state: true``: its envelope carries the session state."""
    handler = hook.handler
    return isinstance(handler, CommandHandler | HttpHandler) and handler.state


def _specs(
    hook: HookFile,
    root: Path,
    file: str,
    matcher: Matcher | None,
    transport: Transport,
    channel: Channel,
    secrets: SecretValues,
) -> list[HookSpec]:
    capabilities = caps.normalize(hook.capabilities)
    timeout = float(hook.handler.timeout_seconds or DEFAULT_TIMEOUT)
    specs: list[HookSpec] = []
    for index, oh_event in enumerate(hook.events):
        event = CANONICAL[oh_event]
        match_field = MATCH_FIELD.get(oh_event)
        binding = HookBinding(
            name=hook.name,
            oh_event=oh_event,
            event=event,
            handler_type=hook.handler.type,
            capabilities=capabilities,
            workspace_root=root,
            file=file,
            secrets=secrets,
            actions=_asks_for_actions(hook),
        )
        specs.append(
            HookSpec(
                name=hook.name,
                event=event,
                handler=Handler(transport, OpenHarnessCodec(binding, channel)),
                matcher=matcher if match_field is not None else None,
                match_field=match_field if matcher is not None else None,
                source="project",
                dialect="openharness",
                mode="chain",
                timeout=timeout + ENGINE_GRACE,
                when=final_response if event is Event.PostModelCall else None,
                origin=f"{file}:events[{index}]",
                capabilities=tuple(sorted(capabilities)),
                dialect_data=OpenHarnessSpecData(oh_event, file, hook.handler.type, timeout),
                secrets=secrets,
                reads_state=_reads_state(hook),
                shadow=hook.mode == "shadow",
            )
        )
    return specs


_YML_IGNORED = (
    "loaded, but the real OpenHarness reads only *.yaml and ignores this file; rename it to .yaml"
)


def _chat_ignores(workspace: Path, count: int) -> Diagnostic:
    return Diagnostic(
        str(workspace),
        "kind",
        f"kind is 'chat': {counted(count, 'hook definition')} ignored; only kind: project "
        "workspaces run hooks",
        "warning",
    )


def discover_workspace(
    root: Path,
    *,
    home: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Discovery:
    """One workspace's hooks, one discovered hook per file; they need `root` trusted. Their
    handlers only run a command, send a request or ask a model when dispatched. `environ`
    defaults to `os.environ` (for `${env.*}` and `${secrets.*}`), `home` to the user's home
    (for the secrets file)."""
    result = Discovery()
    root = root.resolve()
    env = os.environ if environ is None else environ
    files = hook_files(root)
    workspace = root / OH_DIR / WORKSPACE_FILE
    result.files = [str(workspace)] if workspace.is_file() else []
    result.files += [str(path) for path in files]
    kind = read_kind(root)
    result.diagnostics.extend(kind.diagnostics)
    if kind.kind == "chat":
        if files:
            result.diagnostics.append(_chat_ignores(workspace, len(files)))
        return result
    store = SecretStore(home if home is not None else user_home(), env)
    first_file: dict[str, str] = {}
    for path in files:
        file = str(path)
        if path.suffix == ".yml":
            result.diagnostics.append(Diagnostic(file, "", _YML_IGNORED, "warning"))
        out = _parse(path, env, store)
        hook = out.hook
        if hook is not None and hook.name in first_file:
            out.error(
                file,
                "name",
                f"duplicate hook name {hook.name!r} (first in {first_file[hook.name]})",
            )
            hook = None
        if hook is not None:
            first_file[hook.name] = file
            matcher = _matcher(hook, file, out)
            sending = _channel(hook, root, file, out)
            if sending is not None and (matcher is not None or hook.matcher is None):
                secrets = SecretValues(out.secrets)
                specs = _specs(hook, root, file, matcher, *sending, secrets)
                result.hooks.append(DiscoveredHook.of_specs(specs, root))
        rejected = _rejected_hook(file, root, out)
        if rejected is not None:
            result.hooks.append(rejected)
        result.diagnostics.extend(out.diagnostics)
    result.diagnostics.extend(store.diagnostics)
    return result


def valid_hook_files(
    root: Path, *, home: Path, environ: Mapping[str, str] | None = None
) -> list[tuple[str, HookFile, frozenset[str]]]:
    """Each hook file of a workspace that reads and validates, with the secret values it
    uses (for checks that look beyond a file's shape; discovery reports the others)."""
    root = root.resolve()
    if read_kind(root).kind == "chat":
        return []
    store = SecretStore(home, os.environ if environ is None else environ)
    found: list[tuple[str, HookFile, frozenset[str]]] = []
    for path in hook_files(root):
        out = _parse(path, os.environ if environ is None else environ, store)
        if out.hook is not None:
            found.append((str(path), out.hook, frozenset(out.secrets)))
    return found


def load_workspace(
    root: Path,
    *,
    home: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> LoadResult:
    """Bind every hook of a workspace the host chose to run (it is trusted by being named)."""
    discovery = discover_workspace(root, home=home, environ=environ)
    return discovery.bind(TrustPolicy(everything=True))


def discover(ctx: LoadContext) -> Discovery:
    """The registered source: the project directory is the workspace."""
    return discover_workspace(ctx.project_dir, home=ctx.home)
