"""The command hook `install claude-code` writes (run by path: ``exec python -I -S
.../quick_claude_client.py [--project DIR]``). It imports `quick_exchange` from the folder it
sits in (hookwright's own, never the project's: `-I` keeps the working folder off `sys.path`),
so the client runs from cached bytecode instead of being compiled on every event, and runs it;
`quick_exchange` loads `quick_relay` from the same folder for anything but the common case."""

import sys

if __name__ == "__main__":
    sys.path.insert(0, __file__.rpartition("/")[0])
    import quick_exchange  # type: ignore[import-not-found,unused-ignore]

    sys.exit(quick_exchange.main(sys.argv[1:]))
