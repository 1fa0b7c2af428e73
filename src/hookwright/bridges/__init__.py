"""hookwright inside real hosts: the Claude Code daemon, installer and client; the PicoClaw
process bridge."""
