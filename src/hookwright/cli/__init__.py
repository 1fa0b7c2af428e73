"""The `hookwright` command."""
