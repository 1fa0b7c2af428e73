"""hookwright inside hosts it does not run: a project's hooks answering a real Claude Code's
hook events (`hookwright install claude-code`, `hookwright hook claude-code`)."""
