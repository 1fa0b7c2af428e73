"""The `hookwright` command.

`main` answers `--version`, a plain `hooks test` and a plain `hook claude-code` itself (see
`quick`) and imports the commands (typer, rich) only for everything else, so a host that
probes the version, tests a hook or runs hookwright as its hook does not pay for them.
"""

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv == ["--version"]:
        from hookwright import __version__

        sys.stdout.write(f"hookwright {__version__}\n")
        return
    from hookwright.cli import quick

    hook = quick.parse_claude_hook(argv)
    if hook is not None:
        sys.exit(quick.run_claude_hook(hook))
    args = quick.parse(argv)
    if args is None:
        from hookwright.cli.app import main as run_commands

        run_commands()
        return
    sys.exit(quick.run(args))
