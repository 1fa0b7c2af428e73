"""The Gemini CLI suites: `python -m conformance.gemini` (each case in real Gemini CLI and in
`hookwright run`) and `python -m conformance.gemini.hosts` (real Gemini CLI governed by
hookwright after `install gemini`)."""
