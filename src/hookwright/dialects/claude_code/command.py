"""Command hooks (spec §1.5, §3.1, §4): run the process, decode what it said.

Shell form runs ``sh -c <command>`` as Claude Code does on Linux (node's ``shell: true``);
``"shell": "bash"`` runs ``bash -c`` and ``"shell": "powershell"`` runs ``pwsh -NoProfile
-NonInteractive -Command``. Exec form (``args`` present) spawns ``command`` directly with the
args, no shell. Placeholders are substituted textually in the command and every arg, and are
also exported as environment variables.

Async hooks (``async``/``asyncRewake``, or a first stdout line ``{"async": true}``) return an
empty result at once and report to their session's inbox (`Services.inbox`) when they finish.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from hookwright.config.private_files import touch_private
from hookwright.core.effects import Notice
from hookwright.core.events import HookInput
from hookwright.core.results import HookResult, Status
from hookwright.core.spec import HookSpec, RunContext
from hookwright.dialects.claude_code.codec import (
    ExitRules,
    async_timeout,
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
from hookwright.dialects.claude_code.stdin import encode_stdin
from hookwright.engine.inbox import AsyncDelivery, AsyncInbox, Job
from hookwright.engine.services import Services, services_of
from hookwright.transports.process import ProcessOutcome, run_process

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


class CommandHandler:
    """Runs one `command` hook from a settings file, plugin or frontmatter.

    With `env_file` (the events that get ``CLAUDE_ENV_FILE``) the hook gets its own file,
    numbered per session in the order hooks first run."""

    def __init__(
        self,
        config: CommandHook,
        *,
        site: HookSite,
        rules: ExitRules,
        timeout: float,
        env_file: bool = False,
    ) -> None:
        self.config = config
        self.site = site
        self.rules = rules
        self.timeout = timeout
        self.env_file = env_file
        parts = [config.command, *(config.args or [])]
        self.label = " ".join(parts)
        #: The inboxes this hook's async runs went to, to stop them on close.
        self._inboxes: list[AsyncInbox] = []

    def _spawn_args(self) -> tuple[str | None, list[str] | None, str]:
        """(shell command, argv, shell) for `run_process`."""
        config = self.config
        command = self.site.substitute(config.command)
        if config.args is not None:
            return None, [command, *(self.site.substitute(arg) for arg in config.args)], "sh"
        if config.shell == "powershell":
            return None, ["pwsh", "-NoProfile", "-NonInteractive", "-Command", command], "sh"
        return command, None, "bash" if config.shell == "bash" else "sh"

    def _env_file(self, inp: HookInput, services: Services) -> Path | None:
        if not self.env_file:
            return None
        index = services.counters.number("claude_code.env_file", self)
        path = env_file_path(self.site.home, inp.session_id, index)
        touch_private(path)
        return path

    async def _run(
        self, inp: HookInput, ctx: RunContext, timeout: float | None, *, detachable: bool
    ) -> tuple[ProcessOutcome, Path | None]:
        env_file = self._env_file(inp, services_of(ctx))
        if self.site.plugin_data is not None:
            self.site.plugin_data.mkdir(parents=True, exist_ok=True)
        command, argv, shell = self._spawn_args()
        outcome = await run_process(
            command=command,
            argv=argv,
            shell=shell,
            stdin_data=encode_stdin(inp),
            cwd=self._cwd(inp),
            env=self.site.environment(inp.session_id, env_file),
            timeout=timeout,
            max_output=MAX_ANSWER_BYTES,
            on_first_line=is_async_declaration if detachable else None,
            warm=services_of(ctx).warm_python,
        )
        return outcome, env_file

    def _cwd(self, inp: HookInput) -> str | Path:
        """The session's working directory, or the project when that no longer exists (as
        Claude Code runs hooks after the shell's directory was removed)."""
        if inp.cwd and os.path.isdir(inp.cwd):
            return inp.cwd
        return self.site.project_dir

    async def __call__(self, inp: HookInput, ctx: RunContext) -> HookResult | None:
        if self.config.is_async:
            self._spawn(services_of(ctx).inbox, self._background(inp, ctx), inp)
            return HookResult()
        timeout = ctx.timeout if ctx.timeout is not None else self.timeout
        outcome, env_file = await self._run(inp, ctx, timeout, detachable=True)
        if outcome.background is not None:
            self._spawn(services_of(ctx).inbox, self._detached(inp, ctx.spec, outcome), inp)
            return HookResult()
        return self._decode(inp, outcome, env_file)

    def _spawn(self, inbox: AsyncInbox, job: Job, inp: HookInput) -> None:
        if all(known is not inbox for known in self._inboxes):
            self._inboxes.append(inbox)
        inbox.spawn(job, owner=self, session_id=inp.session_id)

    def _decode(self, inp: HookInput, outcome: ProcessOutcome, env_file: Path | None) -> HookResult:
        if outcome.spawn_error is not None:
            return HookResult(status=Status.error, error=f"cannot run hook: {outcome.spawn_error}")
        if outcome.timed_out or outcome.exit_code is None:
            return HookResult(
                status=Status.timeout,
                error=f"timed out after {self.timeout:g}s",
                stderr=outcome.stderr or None,
            )
        too_big = over_cap_answer(outcome.stdout, outcome.stdout_size, outcome.stdout_truncated)
        if too_big is not None:
            return HookResult(
                status=Status.error,
                error=f"hook {self.label}: {too_big}",
                exit_code=outcome.exit_code,
                stderr=outcome.stderr or None,
            )
        result = decode_command(
            inp,
            exit_code=outcome.exit_code,
            stdout=outcome.stdout,
            stderr=outcome.stderr,
            label=self.label,
            rules=self.rules,
        )
        if outcome.exit_code == 2:
            missing = missing_script(outcome.stderr, self.label)
            if missing is not None:
                result.status = Status.error
                result.error = f"hook script missing: {missing}"
                result.add_effects(
                    notices=(Notice("script_missing", self.label, inp.event.value, result.error),)
                )
        if env_file is not None and env_file.is_file() and env_file.stat().st_size > 0:
            result.add_effects(env_files=(str(env_file),))
        capped = cap_result(result, output_dir(self.site.home))
        plain = parse_json_object(outcome.stdout) is None
        return attach_notes(inp, capped, command=self.label, plain=plain)

    async def _background(self, inp: HookInput, ctx: RunContext) -> AsyncDelivery:
        outcome, _env_file = await self._run(inp, ctx, self.timeout, detachable=False)
        return self._deliver(inp, ctx.spec, outcome, outcome.stdout)

    async def _detached(
        self, inp: HookInput, spec: HookSpec, outcome: ProcessOutcome
    ) -> AsyncDelivery:
        assert outcome.background is not None
        declared = outcome.stdout
        limit = async_timeout(declared)
        try:
            final = await asyncio.wait_for(outcome.background, limit)
        except TimeoutError:
            final = ProcessOutcome(exit_code=None, stdout="", stderr="", timed_out=True)
        rest = final.stdout.split("\n", 1)[1] if "\n" in final.stdout else ""
        return self._deliver(inp, spec, final, rest)

    def _deliver(
        self, inp: HookInput, spec: HookSpec, outcome: ProcessOutcome, stdout: str
    ) -> AsyncDelivery:
        result = HookResult(
            exit_code=outcome.exit_code,
            stderr=outcome.stderr or None,
            duration_ms=outcome.duration_ms,
            hook=spec,
        )
        if outcome.spawn_error is not None:
            result.status, result.error = Status.error, f"cannot run hook: {outcome.spawn_error}"
        elif outcome.timed_out or outcome.exit_code is None:
            result.status, result.error = (
                Status.timeout,
                f"async hook timed out after {self.timeout:g}s",
            )
        elif outcome.exit_code not in (0, 2):
            result.status = Status.error
            result.error = f"async hook exited {outcome.exit_code}: {first_line(outcome.stderr)}"
        context, message = decode_async(stdout) if outcome.exit_code is not None else (None, None)
        rewake = self.config.asyncRewake and outcome.exit_code == 2
        text = (outcome.stderr.strip() or stdout.strip()) if rewake else None
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
        for inbox in self._inboxes:
            await inbox.aclose(owner=self)
