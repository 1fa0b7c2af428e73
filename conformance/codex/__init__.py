"""The Codex CLI suite of `make conformance`: each case in real Codex CLI and in
`hookwright run`, against one scripted fake OpenAI API (`conformance.fake_responses`)."""
