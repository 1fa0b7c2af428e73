"""The `hookwright` command.

`main` answers `--version`, a plain `hooks test` and a plain `hook claude-code` itself (see
`quick`) and imports the commands (typer, rich) only for everything else, so a host that
probes the version, tests a hook or runs hookwright as its hook does not pay for them. What a
plain command runs is imported as every process that answers one event imports it
(`bridges.lean_start`), and runs after.
"""

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv == ["--version"]:
        from hookwright import __version__

        sys.stdout.write(f"hookwright {__version__}\n")
        return
    from hookwright.bridges.lean_start import lean_imports

    with lean_imports():
        from hookwright.cli.quick import command

        fast = command(argv)
    if fast is None:
        from hookwright.cli.app import main as run_commands

        run_commands()
        return
    sys.exit(fast())
