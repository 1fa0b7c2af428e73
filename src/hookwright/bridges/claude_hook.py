"""One Claude Code hook event answered by a project's other hooks (`hookwright hook
claude-code`): Claude Code's stdin in, the JSON a Claude Code command hook prints out.

The project is loaded without its Claude Code hooks (Claude Code runs those itself), so no
hook runs twice. An untrusted project's hooks are never bound (none of its code runs); its
session is still opened, so the failure policy (`policy.yaml`) decides whether its guarded
actions are blocked, and at SessionStart of a folder with hook folders a one-line notice
tells the user (`systemMessage`, which Claude Code shows by default). Every answered event is
written to the user's audit, as for every other host. A config file of the project (or the
user) whose hooks did not load is never passed over in silence: at SessionStart a
`systemMessage` names it, on a gate event nothing blocked the command fails as for a failed
hook, or blocks where the failure policy fails that event closed (`with_load_failures`).
Run by hookwright itself (a hook of `hookwright run`), the command answers nothing:
hookwright already runs those hooks."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from hookwright.bridges.claude_version import AGENT_VARIABLE, calling_profile
from hookwright.config.policy import FailurePolicy
from hookwright.core.audit_record import AuditRecord
from hookwright.core.events import Event
from hookwright.core.home import user_home
from hookwright.core.results import (
    GATE_EVENTS,
    Decision,
    HookResult,
    Status,
    Verdict,
    failed_dispatch,
)
from hookwright.core.systems import system_name
from hookwright.dialects.claude_code.answer import encode_output_json
from hookwright.dialects.claude_profiles import ClaudeCodeProfile
from hookwright.host.failure_policy import closing_decision, load_failure_closing
from hookwright.host.open import ProjectScope, store_policy, untrusted_hooks, uses_picoclaw
from hookwright.host.session import HookSession
from hookwright.host.toolmap import ToolMap
from hookwright.monitor.audit import default_audit_path
from hookwright.transports.marker import MARKER

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, TypeVar

    from hookwright.config.trust import TrustPolicy
    from hookwright.host.load_failures import LoadFailure

    T = TypeVar("T")


class HookInputError(Exception):
    """Claude Code's stdin is not a hook input: one line."""


class HooksFailed(Exception):
    """A hook failed on a gate event and nothing blocked: the installed hook fails (one line)."""


#: The standard decoder's own steps, called directly: `json.loads` reaches them through three
#: Python frames, about a third of the decoding of a hook input (a daemon decodes every event).
_SCAN: Callable[[str, int], tuple[Any, int]] = vars(json.JSONDecoder())["scan_once"]
#: `json.decoder.WHITESPACE`'s characters: what the decoder skips around the document
#: (skipped here by `str.lstrip`, a tenth of the cost of the decoder's regular expression).
_SPACE = " \t\n\r"


def _decoded(text: str) -> Any:
    """`json.loads(text)`; an input it refuses is left to it, for its own error."""
    try:
        value, end = _SCAN(text, len(text) - len(text.lstrip(_SPACE)))
    except StopIteration:
        return json.loads(text)
    if end != len(text) and text[end:].lstrip(_SPACE):
        return json.loads(text)
    return value


def parse_input(raw: bytes) -> tuple[Event, dict[str, Any]]:
    try:
        data = _decoded(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HookInputError(f"stdin is not a JSON hook input: {exc}") from None
    if not isinstance(data, dict):
        raise HookInputError("stdin is not a JSON object")
    name = data.get("hook_event_name")
    event = _EVENTS.get(name) if type(name) is str else None
    if event is not None:
        return event, data
    try:
        return Event(str(name)), data
    except ValueError:
        raise HookInputError(f"unknown hook_event_name {name!r}") from None


#: Each event by its name (a daemon reads one per request; `Event(name)` is a slower call).
_EVENTS: Mapping[str, Event] = {event.value: event for event in Event}


#: Folders of a project that hold hooks hookwright runs (their presence alone is checked
#: for an untrusted project; nothing in them is read).
HOOK_FOLDERS = (".hookwright", ".openharness", ".picoclaw")


def project_named(
    given: Path | None, hook_input: Mapping[str, Any], env_project: str | None = None
) -> str | Path:
    """`--project`, else the project Claude Code names (`CLAUDE_PROJECT_DIR`), else the
    input's cwd, else this process's; as named (`project_for` resolves it)."""
    if given is not None:
        return given
    named = env_project or hook_input.get("cwd")
    return named if isinstance(named, str) and named else Path.cwd()


def project_for(
    given: Path | None, hook_input: Mapping[str, Any], env_project: str | None = None
) -> Path:
    """The project folder `project_named` names, resolved."""
    return real_path(project_named(given, hook_input, env_project))


_O_PATH = getattr(os, "O_PATH", None)
#: The `Path` of each real path text seen last (building one costs more than the resolution).
_PATHS: dict[str, Path] = {}
_PATHS_KEPT = 256


def real_path(named: str | Path) -> Path:
    """`Path(named).resolve()`, read back from the kernel where `named` exists: the path of a
    descriptor opened on it (`O_PATH`), three system calls for a walk of its every component
    (the daemon resolves each event's project)."""
    if _O_PATH is None:
        return Path(named).resolve()
    try:
        fd = os.open(named, _O_PATH | os.O_CLOEXEC)
    except (OSError, ValueError):
        return Path(named).resolve()
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        real = ""
    finally:
        os.close(fd)
    if not real.startswith("/") or real.endswith(" (deleted)"):
        return Path(named).resolve()
    path = _PATHS.get(real)
    if path is None:
        if len(_PATHS) >= _PATHS_KEPT:
            _PATHS.clear()
        path = _PATHS[real] = Path(real)
    return path


#: The dialects the bridge leaves to Claude Code itself.
EXCLUDED = frozenset({"claude_code"})


def untrusted_notice(project: Path) -> str | None:
    """The line telling the user an untrusted folder's hooks do not run (None when it has
    no hook folders)."""
    if not any((project / name).is_dir() for name in HOOK_FOLDERS):
        return None
    return (
        f"hookwright: the hooks of {project} did not run: the folder is not trusted "
        f"(trust it with: hookwright trust {project})"
    )


def with_untrusted_notice(verdict: Verdict, project: Path) -> Verdict:
    """At SessionStart, the notice goes first among the messages the user is shown."""
    notice = untrusted_notice(project) if verdict.event is Event.SessionStart else None
    if notice is None:
        return verdict
    return replace(verdict, system_messages=[notice, *verdict.system_messages])


def not_running(project: Path, home: Path, exclude: frozenset[str] = EXCLUDED) -> list[str]:
    """One line per hook of `project` that will not run because its folder is not trusted
    (read from the config files alone: nothing of the project runs); `exclude`: the dialects
    the host runs itself."""
    needing = untrusted_hooks(project, home, ProjectScope(exclude=exclude))
    return [
        f"{hook.name} ({system_name(hook.dialect)}, {hook.origin or hook.source})"
        for hook in needing
    ]


async def open_session(
    project: Path,
    home: Path,
    exclude: frozenset[str] = EXCLUDED,
    tool_map: ToolMap | None = None,
    host: str = "hook claude-code",
    caller: ClaudeCodeProfile | None = None,
    required_of: frozenset[str] = frozenset(),
    trust: TrustPolicy | None = None,
) -> HookSession:
    """The project's session as the bridge runs it: the hooks of the asking CLI's own dialect
    (`exclude`) left to that CLI, its tools under the hooks' names (`tool_map`), the user's
    audit on (`HOOKWRIGHT_AUDIT_LOG` or ``~/.hookwright/audit.jsonl``), its records naming
    `host`; loaded as the calling CLI's version (`caller`; None: as the settings choose).
    `required_of`: dialects of `exclude` whose required files are read still, to refuse as
    every host does (`HookSession.open`); `trust`: the trust store as the caller read it
    (None: read here)."""
    session = await HookSession.open(
        project,
        home=home,
        trust=trust,
        exclude_dialects=exclude,
        tool_map=tool_map,
        audit_path=default_audit_path(),
        claude_code=caller,
        required_of=required_of,
    )
    session.engine.audit.describe(host=host)
    return session


async def relay_once(
    project: Path,
    home: Path,
    event: Event,
    hook_input: dict[str, Any],
    exclude: frozenset[str] = EXCLUDED,
    tool_map: ToolMap | None = None,
    host: str = "hook claude-code",
    caller: ClaudeCodeProfile | None = None,
    required_of: frozenset[str] = frozenset(),
    trust: TrustPolicy | None = None,
) -> Relayed:
    """One event on a session opened for it alone and closed after (so its audit is
    flushed), its records naming `host` (`required_of`, `trust`: see `open_session`)."""
    session = await open_session(
        project, home, exclude, tool_map, host, caller, required_of, trust=trust
    )
    async with session:
        return await relay_on(session, event, hook_input)


def relay_here(
    project: Path,
    home: Path,
    event: Event,
    hook_input: dict[str, Any],
    caller: ClaudeCodeProfile | None,
    *,
    adopt: bool = False,
    trust: TrustPolicy | None = None,
) -> Relayed:
    """`relay_once` for a process that answers this one event. When every hook of the event
    runs inline (sync Python hooks without a timeout, `HookSpec.inline`) and the session has
    no process to start, the same session steps and the engine's own run loop are driven to
    their end on this thread, with no event loop: none of them suspends, and asyncio (with
    what it pulls in, about a tenth of such an answer) is never loaded. Otherwise the event
    runs on an event loop, as `relay_once` runs it (the session's hook processes then do their
    I/O on a loop of their own, as a sync host's do), this process first made the subreaper
    of what they detach when `adopt` (an inline answer starts no process, so it has no
    leftover to hunt, and loads no `ctypes` for it). `trust`: as `open_session` takes it."""
    session = completed(open_session(project, home, caller=caller, trust=trust))
    write_on_close = getattr(session.engine.audit, "write_on_close", None)
    if write_on_close is not None:
        write_on_close()  # the session closes once this event is answered
    inline = all(spec.inline for spec in session.engine.hooks(event))
    if not inline or uses_picoclaw(session.watch):
        import asyncio

        if adopt:
            from hookwright.transports.adoption import enable_subreaper

            enable_subreaper()

        return asyncio.run(_relay_opened(session, event, hook_input))
    try:
        return completed(relay_on(session, event, hook_input))
    finally:
        session.engine.close()


async def _relay_opened(session: HookSession, event: Event, hook_input: dict[str, Any]) -> Relayed:
    async with session:
        return await relay_on(session, event, hook_input)


def completed(coroutine: Coroutine[Any, Any, T]) -> T:
    """The result of a coroutine that never suspends, driven on this thread without an event
    loop; RuntimeError (the coroutine closed) if it suspends after all."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        value: T = done.value
        return value
    coroutine.close()
    raise RuntimeError("an in-process answer waited on an event loop it does not have")


@dataclass(frozen=True, slots=True)
class Relayed:
    """One relayed event's verdict, and the config files of the session that did not load.
    (Not a named tuple, though one costs less to make: `typing` is not loaded on the
    one-event answer's path, see docs/performance.md.)"""

    verdict: Verdict
    failures: tuple[LoadFailure, ...] = ()


#: What makes a config file load again.
LOAD_FIX = "fix the file (check it with: hookwright hooks validate)"


async def relay_on(session: HookSession, event: Event, hook_input: dict[str, Any]) -> Relayed:
    """`event` relayed on `session`, answered for the config files that did not load
    (`with_load_failures`), each of them written to the audit with the event."""
    return relayed_of(session, await session.relay(event, hook_input))


def relayed_of(session: HookSession, verdict: Verdict) -> Relayed:
    """`relay_on`'s answer for the `verdict` its session's relay gave (a daemon awaits the
    relay itself: one coroutine less per event)."""
    opened = session.opened
    if opened is None or not opened.load_failures:
        return Relayed(verdict)
    failures = opened.load_failures
    verdict = with_load_failures(verdict, failures, opened.failure_policy)
    note_load_failures(session, verdict, failures)
    return Relayed(verdict, failures)


def load_failure_line(failures: tuple[LoadFailure, ...]) -> str:
    """One line naming each file that did not load, why, and the fix."""
    said = "; ".join(
        f"{failed.hooks} did not load: {_where(failed)}{failed.message}" for failed in failures
    )
    return f"hookwright: {' '.join(said.split())}; {LOAD_FIX}"


def _where(failure: LoadFailure) -> str:
    return f"{failure.field}: " if failure.field else ""


def with_load_failures(
    verdict: Verdict, failures: tuple[LoadFailure, ...], policy: FailurePolicy
) -> Verdict:
    """`verdict` (this event's own) answered for the `failures`: at SessionStart their line
    goes first among the messages shown; on a gate event nothing blocked, the failure policy
    decides as for an untrusted hook (`load_failure_closing`): a closing rule refuses the
    event with the line as the reason. Otherwise the verdict is left as it is (`not_loaded`
    then fails the command on a gate event)."""
    if not failures:
        return verdict
    line = load_failure_line(failures)
    if verdict.event is Event.SessionStart:
        return replace(verdict, system_messages=[line, *verdict.system_messages])
    if verdict.event not in GATE_EVENTS or verdict.blocked:
        return verdict
    for failed in failures:
        rule = load_failure_closing(failed.file, verdict.event, policy)
        if rule is not None:
            reason = f"{line} (the failure policy, {rule.where}, fails it closed)"
            verdict.absorb(HookResult(decision=closing_decision(verdict.event), reason=reason))
            break
    return verdict


def not_loaded(verdict: Verdict, failures: tuple[LoadFailure, ...]) -> str | None:
    """On a gate event nothing blocked, the line of the files that did not load (the command
    then fails, as for a failed hook); None otherwise."""
    if not failures or verdict.event not in GATE_EVENTS or verdict.blocked:
        return None
    return load_failure_line(failures)


def note_load_failures(
    session: HookSession, verdict: Verdict, failures: tuple[LoadFailure, ...]
) -> None:
    """One audit record per file that did not load, for this event (status `not_loaded`)."""
    now = time.time()
    decision = verdict.decision.value if verdict.blocked and verdict.decision else None
    for failed in failures:
        session.engine.audit.note(
            AuditRecord(
                ts=now,
                event=verdict.event.value,
                hook=failed.file,
                source="config",
                dialect=failed.dialect,
                status="not_loaded",
                decision=decision,
                duration_ms=0.0,
                exit_code=None,
                reason=load_failure_line((failed,)),
                error=failed.message,
                stderr_tail=None,
                session_id=session.session_id,
                origin=failed.file,
            )
        )


#: Named once: `expressible` runs on every answer, and a member looked up on `Event` goes
#: through the enum type's attribute hook.
_PRE_TOOL_USE: Final = Event.PreToolUse


def expressible(verdict: Verdict) -> Verdict:
    """A hook's own tool result (no tool runs) and a renamed tool have no Claude Code field:
    both become a refusal, the tool result's text as the reason."""
    if verdict.event is not _PRE_TOOL_USE or verdict.blocked:
        return verdict
    if verdict.respond is not None:
        text = verdict.respond.content
        return replace(verdict, decision=Decision.deny, reason=text, respond=None)
    if verdict.effects.renamed_tool is not None:
        return replace(verdict, decision=Decision.deny, reason="A hook renamed the tool; not run.")
    return verdict


_FAILED = frozenset({Status.error, Status.timeout})


def unanswered(verdict: Verdict) -> str | None:
    """Why `verdict` (already `expressible`) cannot be answered: on a gate event that nothing
    blocked, the first failed hook and its failure; None when it can be answered."""
    if verdict.event not in GATE_EVENTS or verdict.blocked:
        return None
    for _spec, result, _duration in verdict.runs:  # a run without a result did not fail
        if result is not None and result.status in _FAILED:
            name = result.hook.name if result.hook is not None else "a hook"
            error = " ".join((result.error or result.status.value).split())
            return f"hookwright: hook {name!r} failed, so no verdict was given: {error}"
    return None


def failure(event: Event, exc: Exception) -> Verdict:
    """The answer when the event could not be relayed (the project refused, `ProjectRefused`,
    or opening it failed): a gate event refused with the line as the reason, any other event
    showing it to the user."""
    line = f"hookwright failed: {' '.join(str(exc).split())}"
    verdict = failed_dispatch(event, line)
    if event not in GATE_EVENTS:
        verdict.system_messages = [line]
    return verdict


def answer(raw: bytes, project: Path | None, *, adopt: bool = False) -> bytes:
    """The bytes to print for one hook input; raises `HookInputError` on a bad input and
    `HooksFailed` when a hook failed where nothing blocked (see `unanswered`). `adopt`: this
    process becomes the subreaper of what the hooks detach before any hook process starts
    (`relay_here`)."""
    if os.environ.get(MARKER):
        return b""
    event, hook_input = parse_input(raw)
    root = project_for(project, hook_input, os.environ.get("CLAUDE_PROJECT_DIR"))
    home = user_home()
    policy = store_policy(home)  # read once: the session opens with it
    trusted = policy is not None and policy.trusts(root)
    caller = calling_profile(os.environ.get(AGENT_VARIABLE))
    try:
        relayed = relay_here(root, home, event, hook_input, caller, adopt=adopt, trust=policy)
    except Exception as exc:
        relayed = Relayed(failure(event, exc))
    verdict, failed = settle(relayed, root, trusted)
    if failed is not None:
        raise HooksFailed(failed)
    return encode_output_json(verdict)


def settle(
    relayed: Relayed, root: Path, trusted: bool, *, failed_hooks: bool = True
) -> tuple[Verdict, str | None]:
    """The verdict a bridge answers with (the untrusted notice added, made `expressible`), and
    the line it fails with instead: a failed hook's (`unanswered`, unless `failed_hooks` is
    False), else the files that did not load (`not_loaded`); None when it answers."""
    verdict = relayed.verdict
    if not trusted:
        verdict = with_untrusted_notice(verdict, root)
    verdict = expressible(verdict)
    failed = unanswered(verdict) if failed_hooks else None
    return verdict, failed or not_loaded(verdict, relayed.failures)


def outcome(
    raw: bytes,
    project: Path | None,
    answer_with: Callable[[bytes, Path | None], bytes] = answer,
    *,
    unreadable_exit: int = 1,
    unreadable: str = "error",
) -> tuple[int, bytes, str]:
    """A host's hook command's exit code, stdout and stderr for one input (see `run`)."""
    try:
        return 0, answer_with(raw, project), ""
    except HookInputError as exc:
        return unreadable_exit, b"", f"hookwright: {unreadable}: {exc}\n"
    except HooksFailed as exc:
        return 1, b"", f"{exc}\n"


def run(
    raw: bytes,
    project: Path | None,
    answer_with: Callable[[bytes, Path | None], bytes] = answer,
    *,
    unreadable_exit: int = 1,
    unreadable: str = "error",
) -> int:
    """A host's hook command (`hookwright hook claude-code` by default): the answer printed,
    or one line on stderr; the exit code. An input that cannot be read is
    `hookwright: <unreadable>: <why>` and `unreadable_exit` (what the host makes of that code
    differs: 2 blocks in Gemini CLI); a hook that failed where nothing blocked is its line
    and exit 1."""
    code, out, err = outcome(
        raw, project, answer_with, unreadable_exit=unreadable_exit, unreadable=unreadable
    )
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.write(err)
    return code


def in_this_process(raw: bytes, project: str | None) -> tuple[int, bytes, str]:
    """The answer of `hookwright hook claude-code [--project PROJECT]` (exit code, stdout,
    stderr), given in the calling process: the quick client's, when no daemon can ever be
    reached. Like the command line, the process adopts what the hooks detach (from before
    the first hook process starts: `relay_here`)."""
    return outcome(raw, Path(project) if project is not None else None, _adopting)


def main(argv: list[str]) -> int:
    """The in-process answer the Claude Code client falls back to (``[--project DIR]``): the
    same as `hookwright hook claude-code`, without the command line's own imports; like the
    command line, this process adopts what the hooks detach (from before the first hook
    process starts: `relay_here`)."""
    if argv and (len(argv) != 2 or argv[0] != "--project"):
        sys.stderr.write("usage: hookwright hook claude-code [--project DIR]\n")
        return 2
    return run(sys.stdin.buffer.read(), Path(argv[1]) if argv else None, _adopting)


def _adopting(raw: bytes, project: Path | None) -> bytes:
    """`answer` for a process that answers one event and adopts what its hooks detach."""
    return answer(raw, project, adopt=True)
