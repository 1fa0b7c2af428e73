"""The Claude Code client at the path earlier installs wrote into settings files.

Run by path (``python -I -S .../hookwright/hosts/claude_client.py``) with the standard library
only; it runs :mod:`hookwright.bridges.claude_client` from the file beside this package, so an
installed settings file keeps working after an upgrade without being rewritten."""

import os
import runpy

_HERE = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(
    os.path.join(os.path.dirname(_HERE), "bridges", "claude_client.py"), run_name="__main__"
)
