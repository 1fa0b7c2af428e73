"""Claude Code dialect conformance suite: real hook processes and a real HTTP endpoint."""
