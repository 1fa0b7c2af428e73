"""The `hookwright` command.

`main` answers `--version` itself and imports the commands (typer, rich, the engine) only for
everything else, so a host that probes the version does not pay for them.
"""

import sys


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        from hookwright import __version__

        sys.stdout.write(f"hookwright {__version__}\n")
        return
    from hookwright.cli.app import main as run_commands

    run_commands()
