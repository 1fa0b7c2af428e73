"""The command hook `install claude-code` writes (run by path: ``exec python -I -S
.../quick_claude_client.py [--project DIR]``). It imports `quick_relay` from the folder it sits
in (hookwright's own, never the project's: `-I` keeps the working folder off `sys.path`), so
the relay runs from its cached bytecode instead of being compiled on every event, and runs
it."""

import sys

if __name__ == "__main__":
    sys.path.insert(0, __file__.rpartition("/")[0])
    import quick_relay  # type: ignore[import-not-found,unused-ignore]

    sys.exit(quick_relay.main(sys.argv[1:]))
