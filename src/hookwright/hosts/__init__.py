"""Where settings files written by earlier installs point: ``hosts/claude_client.py`` forwards
to the client in :mod:`hookwright.bridges`. Nothing else lives here."""
