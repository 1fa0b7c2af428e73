"""What `hookwright serve` says at start about the project's hooks that will not run: the
lines `run` and `chat` print as they open it (`hookwright.cli.run`), said once on stderr
before the first page opens a session (each session says them again on its page)."""

from __future__ import annotations

import logging

from hookwright.cli.project import CliError, bound, error_line
from hookwright.cli.run import say_not_run_on_stderr, say_opening_on_stderr
from hookwright.config.trust import TrustPolicy
from hookwright.core.home import user_home
from hookwright.host.open import NOT_RUN_LOGGER, report_not_run
from hookwright.server import ServerSettings


def say_hooks_not_run(settings: ServerSettings) -> None:
    """Open the project's hooks as its sessions will (its trust, `--trust`, its config
    files and skills; no process starts, nothing is audited) and say each hook that will not
    run, in `run`'s words. A project that cannot be opened is said as one error line: each
    session says it again on its page."""
    from hookwright.engine.kernel import HookEngine

    try:
        policy = TrustPolicy.load(user_home(), everything=settings.trust)
        hooks = bound(settings.project_dir, list(settings.config_files), policy, None,
                      settings.skills)  # fmt: skip
    except (CliError, ValueError) as exc:
        error_line(str(exc))
        return
    opened = hooks.opened
    handler = say_not_run_on_stderr()
    try:
        report_not_run(HookEngine(audit_path=None), opened.not_run, unread=opened.unread)
    finally:
        if handler is not None:  # the page's sessions report theirs on the page
            logger = logging.getLogger(NOT_RUN_LOGGER)
            logger.removeHandler(handler)
            logger.propagate = True
    said = {*opened.not_run_summary, *map(str, opened.unread)}
    say_opening_on_stderr(opened.diagnostics, opened.not_run, said)
