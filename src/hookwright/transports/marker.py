"""The environment variable that marks every process hookwright starts for a hook or a tool
run (its value: the run's token). Its own module, so a bridge that only checks whether it runs
under hookwright (`bridges.claude_hook`, `bridges.gemini_hook`) does not load the process
tracking of `transports.adoption`."""

#: The environment variable carrying a hook or tool run's token.
MARKER = "HOOKWRIGHT_HOOK_RUN"
