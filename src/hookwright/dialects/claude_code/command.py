"""Command hooks (spec §1.5, §3.1, §4): run the process, decode what it said.

Shell form runs ``sh -c <command>`` as Claude Code does on Linux (node's ``shell: true``);
``"shell": "bash"`` runs ``bash -c`` and ``"shell": "powershell"`` runs ``pwsh -NoProfile
-NonInteractive -Command``. Exec form (``args`` present) spawns ``command`` directly with the
args, no shell. Placeholders are substituted textually in the command and every arg, and are
also exported as environment variables.

Async hooks (``async``/``asyncRewake``, or a first stdout line ``{"async": true}``) return an
empty result at once and report to their session's inbox (`Services.inbox`) when they finish,
as every dialect's async runs do (`dialects.async_runs`).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from hookwright.config.private_files import touch_private
from hookwright.core.effect_parts import Notice
from hookwright.core.events import HookInput
from hookwright.core.results import HookResult, Status
from hookwright.core.run_context import RunContext
from hookwright.core.spec import HookSpec
from hookwright.dialects.async_runs import AsyncRuns, run_record
from hookwright.dialects.base import Handler
from hookwright.dialects.claude_code.codec import (
    ExitRules,
    async_timeout,
    broken_json,
    decode_async,
    decode_command,
    first_line,
    is_async_declaration,
    parse_json_object,
)
from hookwright.dialects.claude_code.config import CommandHook
from hookwright.dialects.claude_code.environment import HookSite, env_file_path
from hookwright.dialects.claude_code.limits import (
    MAX_ANSWER_BYTES,
    cap_result,
    output_dir,
    over_cap_answer,
)
from hookwright.dialects.claude_code.notes import attach_notes
from hookwright.dialects.claude_code.on_failure import HookFailure, command_failure, fail_closed
from hookwright.dialects.claude_code.stdin import encode_stdin
from hookwright.engine.async_delivery import AsyncDelivery
from hookwright.engine.services import Services, services_of
from hookwright.transports.base import Block, Caps, Envelope, Failure, Output, Reply
from hookwright.transports.process import ProcessTransport

_CANT_OPEN = "can't open file '"
_NO_SUCH_FILE = "No such file or directory"
_NOT_IN_PATH = frozenset(" \t:'\"")
#: How much of stderr is searched: the last lines (interpreters print this error last), each
#: cut to the length of a long path, so a hook's output cannot make the search slow.
_TAIL_LINES = 8
_LINE_CHARS = 8_192


def _named_paths(line: str) -> list[str]:
    """The paths an interpreter or shell says it could not open in `line`."""
    paths: list[str] = []
    start = line.find(_CANT_OPEN)
    if start != -1:
        end = line.find("'", start + len(_CANT_OPEN))
        if end != -1:
            paths.append(line[start + len(_CANT_OPEN) : end])
    at = line.find(_NO_SUCH_FILE)
    while at != -1:
        head = line[:at].removesuffix("[Errno 2] ")
        if head.endswith(": "):
            head = head[:-2].removesuffix("'")
            first = len(head)
            while first > 0 and head[first - 1] not in _NOT_IN_PATH:
                first -= 1
            if first < len(head):
                paths.append(head[first:])
        at = line.find(_NO_SUCH_FILE, at + 1)
    return paths


def missing_script(stderr: str, command: str) -> str | None:
    """The stderr line saying the hook's own script does not exist, if any.

    ``python3 missing.py`` exits 2, which Claude Code takes as a block; the line is only
    reported when the missing path is named in the command, so a hook that blocks because
    some *other* file is missing is not mistaken for a missing script. Only the last lines
    of stderr are read, each cut short, so the scan stays linear and small.
    """
    tail = stderr[-_TAIL_LINES * _LINE_CHARS :].splitlines()[-_TAIL_LINES:]
    for line in (full[:_LINE_CHARS] for full in tail):
        for path in _named_paths(line):
            if path and (path in command or os.path.basename(path) in command):
                return line.strip()
    return None


class CommandCodec:
    """The codec of one `command` hook from a settings file, plugin or frontmatter, run as
    `Handler(ProcessTransport(), CommandCodec(...))`.

    With `env_file` (the events that get ``CLAUDE_ENV_FILE``) the hook gets its own file,
    numbered per session in the order hooks first run. With `blocks` (its ``onFailure`` is
    "block" where that applies) a failure of the hook blocks (`on_failure`)."""

    def __init__(
        self,
        config: CommandHook,
        *,
        site: HookSite,
        rules: ExitRules,
        timeout: float,
        env_file: bool = False,
        blocks: bool = False,
    ) -> None:
        self.config = config
        self.site = site
        self.rules = rules
        self.timeout = timeout
        self.env_file = env_file
        self.blocks = blocks
        parts = [config.command, *(config.args or [])]
        self.label = " ".join(parts)
        self._runs = AsyncRuns()

    def _spawn_args(self) -> tuple[str | None, tuple[str, ...] | None, str]:
        """(shell command, argv, shell) of the envelope."""
        config = self.config
        command = self.site.substitute(config.command)
        if config.args is not None:
            return None, (command, *(self.site.substitute(arg) for arg in config.args)), "sh"
        if config.shell == "powershell":
            return None, ("pwsh", "-NoProfile", "-NonInteractive", "-Command", command), "sh"
        return command, None, "bash" if config.shell == "bash" else "sh"

    def _env_file(self, inp: HookInput, services: Services) -> Path | None:
        if not self.env_file:
            return None
        index = services.counters.number("claude_code.env_file", self)
        return env_file_path(self.site.home, inp.session_id, index)

    def encode(self, inp: HookInput, ctx: RunContext) -> Envelope:
        """An async hook (``async``/``asyncRewake``) runs in the background from the start;
        any other may detach by declaring itself async on its first stdout line."""
        env_file = self._env_file(inp, services_of(ctx))
        if env_file is not None:
            touch_private(env_file)
        if self.site.plugin_data is not None:
            self.site.plugin_data.mkdir(parents=True, exist_ok=True)
        command, argv, shell = self._spawn_args()
        background = self.config.is_async
        timeout = self.timeout if background or ctx.timeout is None else ctx.timeout
        return Envelope(
            body=encode_stdin(inp, actions=self.config.actions),
            command=command,
            argv=argv,
            shell=shell,
            cwd=self._cwd(inp),
            env=self.site.environment(inp.session_id, env_file),
            timeout=timeout,
            caps=_BACKGROUND if background else _DETACHABLE,
            warm=services_of(ctx).warm_python,
        )

    def _cwd(self, inp: HookInput) -> str | Path:
        """The session's working directory, or the project when that no longer exists (as
        Claude Code runs hooks after the shell's directory was removed)."""
        if inp.cwd and os.path.isdir(inp.cwd):
            return inp.cwd
        return self.site.project_dir

    def decode(
        self, reply: Reply, sent: Envelope, inp: HookInput, ctx: RunContext
    ) -> HookResult | None:
        if isinstance(reply, Output) and reply.later is not None:
            detached = not sent.caps.background
            finish = functools.partial(self._delivery, inp, ctx.spec, detached=detached)
            limit = async_timeout(reply.text) if detached else None
            return self._runs.start(ctx, inp, reply.later, finish, limit)
        if isinstance(reply, Failure):
            result = self._failed(reply)
            timed_out = reply.kind == "timeout"
            failure = HookFailure(timed_out, "" if timed_out else result.error or "")
            return self._unanswered(inp, result, failure)
        if isinstance(reply, Block):
            reply = Output(reply.reason, code=reply.code, stderr=reply.stderr)
        closed = ctx.spec.on_error == "block"
        return self._decode(inp, reply, self._env_file(inp, services_of(ctx)), closed)

    def _failed(self, failure: Failure) -> HookResult:
        if failure.kind == "unstarted":
            return HookResult(status=Status.error, error=f"cannot run hook: {failure.reason}")
        if failure.kind == "error":
            return HookResult(status=Status.error, error=failure.reason)
        return HookResult(
            status=Status.timeout,
            error=f"timed out after {self.timeout:g}s",
            stderr=failure.stderr or None,
        )

    def _unanswered(self, inp: HookInput, result: HookResult, failure: HookFailure) -> HookResult:
        """A run that gave no answer to decode (it did not start, timed out, answered past
        the cap): an error, or the block of its failure when the hook `blocks`."""
        if not self.blocks:
            return result
        blocked = fail_closed(inp, result, failure, label=self.label)
        return attach_notes(inp, blocked, command=self.label, plain=False)

    def _decode(
        self, inp: HookInput, output: Output, env_file: Path | None, closed: bool = False
    ) -> HookResult:
        """`closed`: the hook fails closed by the failure policy (`on_error: block`), where
        an answer that looks like JSON and does not parse is a failure, which the engine
        blocks; Claude Code itself reads it as plain text unless the hook's `onFailure`
        says "block" (`self.blocks`)."""
        code = output.code if output.code is not None else 0
        too_big = over_cap_answer(output.text, output.size, output.truncated)
        if too_big is not None:
            result = HookResult(
                status=Status.error,
                error=f"hook {self.label}: {too_big}",
                exit_code=code,
                stderr=output.stderr or None,
            )
            return self._unanswered(inp, result, HookFailure(detail=result.error or ""))
        result = decode_command(
            inp,
            exit_code=code,
            stdout=output.text,
            stderr=output.stderr,
            label=self.label,
            rules=self.rules,
        )
        if self.blocks:
            failure = command_failure(code, output.text, output.stderr, result)
            if failure is not None:
                result = fail_closed(inp, result, failure, label=self.label)
        elif closed and code == 0 and result.status is Status.ok and broken_json(output.text):
            result.status = Status.error
        if code == 2:
            missing = missing_script(output.stderr, self.label)
            if missing is not None:
                result.status = Status.error
                result.error = f"hook script missing: {missing}"
                result.add_effects(
                    notices=(Notice("script_missing", self.label, inp.event.value, result.error),)
                )
        if env_file is not None and env_file.is_file() and env_file.stat().st_size > 0:
            result.add_effects(env_files=(str(env_file),))
        capped = cap_result(result, output_dir(self.site.home))
        plain = parse_json_object(output.text) is None
        return attach_notes(inp, capped, command=self.label, plain=plain)

    def _delivery(
        self, inp: HookInput, spec: HookSpec, final: Reply, *, detached: bool
    ) -> AsyncDelivery:
        """An async run once it ends (§3.1): its context and system message on any exit, the
        decision fields without effect; an ``asyncRewake`` hook's exit 2 wakes the agent. A
        `detached` run's answer is what it printed after the line declaring it async."""
        stdout = _answer(final, detached)
        result = run_record(final, spec)
        exit_code = result.exit_code
        if isinstance(final, Failure) and final.kind == "unstarted":
            result.status, result.error = Status.error, f"cannot run hook: {final.reason}"
        elif isinstance(final, Failure) or exit_code is None:
            result.status, result.error = (
                Status.timeout,
                f"async hook timed out after {self.timeout:g}s",
            )
        elif exit_code not in (0, 2):
            result.status = Status.error
            result.error = f"async hook exited {exit_code}: {first_line(final.stderr)}"
        context, message = decode_async(stdout) if exit_code is not None else (None, None)
        rewake = self.config.asyncRewake and exit_code == 2
        text = (final.stderr.strip() or stdout.strip()) if rewake else None
        if rewake and self.config.rewakeMessage:
            text = f"{self.config.rewakeMessage}\n{text}" if text else self.config.rewakeMessage
        capped = cap_result(
            HookResult(additional_context=context, system_message=message),
            output_dir(self.site.home),
        )
        return AsyncDelivery(
            session_id=inp.session_id,
            agent_id=inp.agent_id,
            event=inp.event,
            result=result,
            additional_context=capped.additional_context,
            system_message=capped.system_message,
            rewake=rewake,
            rewake_message=text,
            rewake_summary=self.config.rewakeSummary if rewake else None,
        )

    async def aclose(self) -> None:
        """Kill this hook's async runs that are still going (engine shutdown)."""
        await self._runs.aclose()


def _answer(final: Reply, detached: bool) -> str:
    """A finished async run's stdout; a detached run's after its first line (the one that
    declared it async)."""
    text = final.text if isinstance(final, Output) else ""
    if not detached:
        return text
    return text.split("\n", 1)[1] if "\n" in text else ""


_DETACHABLE = Caps(max_output=MAX_ANSWER_BYTES, detach=is_async_declaration)
_BACKGROUND = Caps(max_output=MAX_ANSWER_BYTES, background=True)


def command_handler(
    config: CommandHook,
    *,
    site: HookSite,
    rules: ExitRules,
    timeout: float,
    env_file: bool = False,
    blocks: bool = False,
) -> Handler:
    """One command hook as an engine handler: the process transport and its codec. A hook
    that `blocks` on failure has its timeout bounded by the transport, so its codec sees the
    timeout and words the block as Claude Code does."""
    codec = CommandCodec(
        config, site=site, rules=rules, timeout=timeout, env_file=env_file, blocks=blocks
    )
    return Handler(ProcessTransport(), codec, enforces_timeout=blocks)
